//! Ids and interned symbols.
//!
//! Owns [`Sym`] (any interned string: property keys, tags, zones), [`Id`]
//! (`namespace:category/name`, validated) and [`IdHash`], the hasher of maps keyed by them. Both are a `u32` underneath, so comparing and
//! hashing them costs an integer compare. This module knows nothing about mods, content
//! or the world; it only says what a well-formed id is and why a malformed one is not.

use std::collections::HashMap;
use std::fmt;
use std::sync::{OnceLock, RwLock};

use serde::{Deserialize, Deserializer, Serialize, Serializer};

mod hash;
pub use hash::{IdHash, IdHasher};

/// Process-wide string interner. Interned strings are leaked on purpose: the set of ids
/// and keys a process sees is bounded by the content it loads.
fn interner() -> &'static RwLock<HashMap<&'static str, ()>> {
    static INTERNER: OnceLock<RwLock<HashMap<&'static str, ()>>> = OnceLock::new();
    INTERNER.get_or_init(|| RwLock::new(HashMap::new()))
}

/// An interned string: a property key, tag, zone name or any other name compared often.
///
/// A `Sym` is the address of its one interned copy, so equality and hashing compare a
/// pointer, and reading the text (or ordering by it) takes no lock.
///
/// ```
/// use tessera_host::Sym;
/// let a = Sym::new("attack");
/// assert_eq!(a, Sym::new("attack"));
/// assert_eq!(a.as_str(), "attack");
/// ```
#[derive(Clone, Copy)]
pub struct Sym(&'static str);

impl Sym {
    /// Interns `s` (once per distinct string) and returns its symbol.
    pub fn new(s: &str) -> Sym {
        {
            let guard = interner().read().unwrap_or_else(|e| e.into_inner());
            if let Some((&k, _)) = guard.get_key_value(s) {
                return Sym(k);
            }
        }
        let mut guard = interner().write().unwrap_or_else(|e| e.into_inner());
        if let Some((&k, _)) = guard.get_key_value(s) {
            return Sym(k);
        }
        let leaked: &'static str = Box::leak(s.to_owned().into_boxed_str());
        guard.insert(leaked, ());
        Sym(leaked)
    }

    /// The symbol of `s` if it was interned before (never allocates).
    pub fn existing(s: &str) -> Option<Sym> {
        let guard = interner().read().unwrap_or_else(|e| e.into_inner());
        guard.get_key_value(s).map(|(&k, _)| Sym(k))
    }

    /// The symbol's text.
    pub fn as_str(self) -> &'static str {
        self.0
    }
}

impl PartialEq for Sym {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self.0, other.0)
    }
}

impl Eq for Sym {}

impl std::hash::Hash for Sym {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        (self.0.as_ptr() as usize).hash(state);
    }
}

impl PartialOrd for Sym {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// Symbols order by their text, so anything sorted by symbol is deterministic across runs.
impl Ord for Sym {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        if self == other {
            std::cmp::Ordering::Equal
        } else {
            self.0.cmp(other.0)
        }
    }
}

impl fmt::Debug for Sym {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.as_str())
    }
}

impl fmt::Display for Sym {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Sym {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Sym {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Ok(Sym::new(&s))
    }
}

/// Why a string is not a valid [`Id`]. `position` is a byte offset into the input.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum IdError {
    /// The input was empty.
    #[error("an id cannot be empty; write it as `namespace:category/name`")]
    Empty,
    /// A character outside `[a-z0-9_.-]` (and the separators) appeared.
    #[error("invalid character {ch:?} at position {position} in id `{input}`: ids use only lowercase letters, digits, `_`, `.` and `-`{hint}")]
    InvalidChar {
        /// The whole input.
        input: String,
        /// The offending character.
        ch: char,
        /// Byte offset of the character.
        position: usize,
        /// Extra advice (e.g. "write it in lowercase").
        hint: String,
    },
    /// A `/` appeared in the namespace, before the `:`.
    #[error("`/` at position {position} in id `{input}` comes before the `:`; the namespace cannot contain `/` (write `namespace:category/name`)")]
    SlashInNamespace {
        /// The whole input.
        input: String,
        /// Byte offset of the slash.
        position: usize,
    },
    /// More than one `:`.
    #[error("id `{input}` has a second `:` at position {position}; an id has exactly one namespace (`namespace:category/name`)")]
    ExtraColon {
        /// The whole input.
        input: String,
        /// Byte offset of the second colon.
        position: usize,
    },
    /// A namespace, category or name segment is empty.
    #[error("id `{input}` has an empty {part}; write it as `namespace:category/name`")]
    EmptyPart {
        /// The whole input.
        input: String,
        /// Which part is empty ("namespace", "category" or "name").
        part: &'static str,
    },
    /// A short form was given but there is no namespace to resolve it against.
    #[error("id `{input}` has no namespace and there is no current mod to take it from; write `{}`", full_form(.input))]
    NoNamespace {
        /// The whole input.
        input: String,
    },
    /// The id has no category (`namespace:name`).
    #[error("id `{input}` has no category; write it as `{namespace}:<category>/{name}` (for example `{namespace}:action/{name}`)")]
    NoCategory {
        /// The whole input.
        input: String,
        /// The namespace part.
        namespace: String,
        /// The name part.
        name: String,
    },
}

/// How to write `input` (which has no namespace) as a full id: `namespace:category/name`
/// keeps its category when it has one.
fn full_form(input: &str) -> String {
    if input.contains('/') {
        format!("namespace:{input}")
    } else {
        format!("namespace:category/{input}")
    }
}

/// A validated, interned id: `namespace:category/name`.
///
/// The namespace is a mod id; the category says what kind of thing it names (`action`,
/// `condition`, `class`, `event`, ...); the name may contain further `/` segments.
///
/// ```
/// use tessera_host::Id;
/// let id = Id::parse("core:action/damage").unwrap();
/// assert_eq!(id.namespace(), "core");
/// assert_eq!(id.category(), "action");
/// assert_eq!(id.name(), "damage");
/// assert_eq!(Id::resolve("action/damage", Some("core")).unwrap(), id);
/// assert!(Id::parse("Core:action/damage").is_err());
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Id(Sym);

/// Checks one segment's characters; `offset` is where the segment starts in `input`.
fn check_chars(
    input: &str,
    segment: &str,
    offset: usize,
    allow_slash: bool,
) -> Result<(), IdError> {
    for (i, ch) in segment.char_indices() {
        let ok = ch.is_ascii_lowercase()
            || ch.is_ascii_digit()
            || matches!(ch, '_' | '.' | '-')
            || (allow_slash && ch == '/');
        if !ok {
            let position = offset + i;
            if ch == ':' {
                return Err(IdError::ExtraColon {
                    input: input.to_owned(),
                    position,
                });
            }
            if ch == '/' {
                return Err(IdError::SlashInNamespace {
                    input: input.to_owned(),
                    position,
                });
            }
            let hint = if ch.is_ascii_uppercase() {
                format!(" (write `{}` in lowercase)", ch.to_ascii_lowercase())
            } else if ch == ' ' {
                " (use `_` instead of spaces)".to_owned()
            } else {
                String::new()
            };
            return Err(IdError::InvalidChar {
                input: input.to_owned(),
                ch,
                position,
                hint,
            });
        }
    }
    Ok(())
}

/// Checks that a string is a valid namespace (a mod id): `[a-z0-9_.-]+`.
pub fn validate_namespace(ns: &str) -> Result<(), IdError> {
    if ns.is_empty() {
        return Err(IdError::Empty);
    }
    check_chars(ns, ns, 0, false)
}

impl Id {
    /// Parses a full id (`namespace:category/name`).
    pub fn parse(s: &str) -> Result<Id, IdError> {
        Id::resolve(s, None)
    }

    /// Parses an id, resolving a short form (`category/name`) against `namespace`.
    pub fn resolve(s: &str, namespace: Option<&str>) -> Result<Id, IdError> {
        if s.is_empty() {
            return Err(IdError::Empty);
        }
        let (ns, rest, rest_offset) = match s.find(':') {
            Some(colon) => (&s[..colon], &s[colon + 1..], colon + 1),
            None => match namespace {
                Some(ns) => (ns, s, 0),
                None => {
                    return Err(IdError::NoNamespace {
                        input: s.to_owned(),
                    })
                }
            },
        };
        if ns.is_empty() {
            return Err(IdError::EmptyPart {
                input: s.to_owned(),
                part: "namespace",
            });
        }
        if s.contains(':') {
            check_chars(s, ns, 0, false)?;
        } else {
            validate_namespace(ns)?;
        }
        check_chars(s, rest, rest_offset, true)?;
        let Some(slash) = rest.find('/') else {
            return Err(IdError::NoCategory {
                input: s.to_owned(),
                namespace: ns.to_owned(),
                name: rest.to_owned(),
            });
        };
        let (category, name) = (&rest[..slash], &rest[slash + 1..]);
        if category.is_empty() {
            return Err(IdError::EmptyPart {
                input: s.to_owned(),
                part: "category",
            });
        }
        if name.is_empty() || name.split('/').any(str::is_empty) {
            return Err(IdError::EmptyPart {
                input: s.to_owned(),
                part: "name",
            });
        }
        if s.contains(':') {
            Ok(Id(Sym::new(s)))
        } else {
            Ok(Id(Sym::new(&format!("{ns}:{rest}"))))
        }
    }

    /// Builds `namespace:category/name` from parts, validating the result.
    pub fn from_parts(namespace: &str, category: &str, name: &str) -> Result<Id, IdError> {
        Id::parse(&format!("{namespace}:{category}/{name}"))
    }

    /// The whole id text.
    pub fn as_str(self) -> &'static str {
        self.0.as_str()
    }

    /// The interned symbol of the whole id.
    pub fn sym(self) -> Sym {
        self.0
    }

    /// The namespace (the mod id).
    pub fn namespace(self) -> &'static str {
        let s = self.as_str();
        &s[..s.find(':').unwrap_or(0)]
    }

    /// The category (`action`, `condition`, `class`, ...).
    pub fn category(self) -> &'static str {
        let s = self.as_str();
        let rest = &s[s.find(':').map_or(0, |c| c + 1)..];
        &rest[..rest.find('/').unwrap_or(rest.len())]
    }

    /// The name after the category (may contain `/`).
    pub fn name(self) -> &'static str {
        let s = self.as_str();
        let rest = &s[s.find(':').map_or(0, |c| c + 1)..];
        &rest[rest.find('/').map_or(rest.len(), |i| i + 1)..]
    }
}

impl fmt::Debug for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Display for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Id {
    type Err = IdError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Id::parse(s)
    }
}

impl Serialize for Id {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Id {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Id::parse(&s).map_err(serde::de::Error::custom)
    }
}

/// Suggests the candidates closest to `wanted` (edit distance), best first, at most three.
pub fn closest<'a>(wanted: &str, candidates: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let mut scored: Vec<(f64, &str)> = candidates
        .into_iter()
        .map(|c| {
            let full = strsim::jaro_winkler(wanted, c);
            // Also compare the last segment, so `damge` finds `core:action/damage`.
            let tail = c.rsplit(['/', ':']).next().unwrap_or(c);
            let wtail = wanted.rsplit(['/', ':']).next().unwrap_or(wanted);
            (full.max(strsim::jaro_winkler(wtail, tail)), c)
        })
        .filter(|(score, _)| *score > 0.8)
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
    scored.dedup_by(|a, b| a.1 == b.1);
    scored.into_iter().take(3).map(|(_, c)| c).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 21, defect 13: `explain river_giant` suggested `namespace:river_giant`.
    #[test]
    fn a_bare_name_is_told_its_category_too() {
        let e = Id::parse("river_giant").unwrap_err().to_string();
        assert!(e.contains("write `namespace:category/river_giant`"), "{e}");
        let e = Id::parse("class/river_giant").unwrap_err().to_string();
        assert!(e.contains("write `namespace:class/river_giant`"), "{e}");
    }

    #[test]
    fn parses_full_ids() {
        let id = Id::parse("arena:class/river_wolf").unwrap();
        assert_eq!(id.namespace(), "arena");
        assert_eq!(id.category(), "class");
        assert_eq!(id.name(), "river_wolf");
        let nested = Id::parse("spellbook:ability/fire/fireball").unwrap();
        assert_eq!(nested.name(), "fire/fireball");
    }

    #[test]
    fn interning_makes_equal_ids_identical() {
        let a = Id::parse("core:event/damaged").unwrap();
        let b: Id = "core:event/damaged".parse().unwrap();
        assert!(std::ptr::eq(a.as_str(), b.as_str()));
    }

    #[test]
    fn short_forms_resolve_against_namespace() {
        let id = Id::resolve("action/chain", Some("arena")).unwrap();
        assert_eq!(id.as_str(), "arena:action/chain");
        assert!(matches!(
            Id::resolve("action/chain", None),
            Err(IdError::NoNamespace { .. })
        ));
    }

    #[test]
    fn errors_name_the_character_and_position() {
        let err = Id::parse("core:action/Damage").unwrap_err();
        match &err {
            IdError::InvalidChar { ch, position, .. } => {
                assert_eq!(*ch, 'D');
                assert_eq!(*position, 12);
            }
            other => panic!("unexpected {other:?}"),
        }
        assert!(err.to_string().contains("lowercase"));
        assert!(matches!(
            Id::parse("co/re:action/x"),
            Err(IdError::SlashInNamespace { position: 2, .. })
        ));
        assert!(matches!(
            Id::parse("a:b:c/d"),
            Err(IdError::ExtraColon { position: 3, .. })
        ));
        assert!(matches!(
            Id::parse("core:damage"),
            Err(IdError::NoCategory { .. })
        ));
        assert!(matches!(
            Id::parse("core:action/"),
            Err(IdError::EmptyPart { part: "name", .. })
        ));
        assert!(matches!(
            Id::parse(":action/x"),
            Err(IdError::EmptyPart {
                part: "namespace",
                ..
            })
        ));
        assert!(matches!(Id::parse(""), Err(IdError::Empty)));
        let spaced = Id::parse("core:action/deal damage").unwrap_err();
        assert!(spaced.to_string().contains("instead of spaces"), "{spaced}");
    }

    #[test]
    fn symbols_order_by_text() {
        let mut v = [Sym::new("zeta"), Sym::new("alpha"), Sym::new("mid")];
        v.sort();
        let texts: Vec<_> = v.iter().map(|s| s.as_str()).collect();
        assert_eq!(texts, ["alpha", "mid", "zeta"]);
    }

    #[test]
    fn closest_suggests_similar_ids() {
        let c = [
            "core:action/damage",
            "core:action/heal",
            "core:action/destroy",
        ];
        assert_eq!(closest("core:action/damge", c)[0], "core:action/damage");
        assert_eq!(closest("damage", c)[0], "core:action/damage");
        assert!(closest("zzzz", c).is_empty());
    }
}
