//! Modifiers that change what an object has rather than its numbers: keywords granted
//! or removed (`<property-modifier property="flying" operation="add|remove">`), colours
//! (`<color-modifier color="black" operation="add|set">`) and keyword abilities granted
//! (`<ability-modifier>` whose `<abilities>` are only `<ability ref="flanking"/>`-like
//! keywords the mtg rules implement by a tag). Each becomes aura modifiers of the tags
//! the mtg rules read: `op = "tag"` grants one, `op = "untag"` removes one (own or
//! granted; grants and removals apply in timestamp order, the later one deciding), so
//! the same translation serves static abilities, auras and "until end of turn" effects.
//!
//! Firemox's colour `add` is its operation on the colour bits (Firemox's `ColorModifier`
//! applies `op.process(old, colour)`): it adds the colour, keeping the others, whatever
//! the card's text says ("becomes white"); `set` replaces the colours.

use firemox_xml::{Element, Fragments};
use serde_json::{json, Value};

use crate::card::{slug, COLOURS, KEYWORDS};

/// Keyword abilities (`<ability ref="...">`, a triggered ability in Firemox's
/// references) that the mtg rules implement on a tag, and that tag: lifelink and
/// deathtouch as the rules' keywords (`rules.toml`), flanking as the rules' flanking
/// trigger (`granted.toml`).
pub const KEYWORD_ABILITIES: &[(&str, &str)] = &[
    ("lifelink", "lifelink"),
    ("deathtouch", "deathtouch"),
    ("flanking", "flanking"),
];

/// Attributes any of these modifiers may carry: `linked` and `layer` (where Firemox
/// inserts the modifier; tags apply in timestamp order anyway), `name`, and
/// `live-update` (nothing here is a computed value to update).
const COMMON: &[&str] = &["linked", "layer", "name", "live-update"];

/// The tag of a keyword ability `a` (`<ability ref="flanking"/>`, exactly the reference
/// with nothing plugged in), or `None`.
pub fn keyword_ability(f: &Fragments, a: &Element) -> Option<&'static str> {
    let r = a.from_ref.as_deref()?;
    let (name, tag) = KEYWORD_ABILITIES.iter().find(|(k, _)| *k == r)?;
    crate::card::plain(f, "ability", name, a).then_some(*tag)
}

/// Whether `m` has only the attributes `allowed` and [`COMMON`] ones.
fn only(m: &Element, allowed: &[&str]) -> bool {
    m.attrs
        .iter()
        .all(|(k, _)| allowed.contains(&k.as_str()) || COMMON.contains(&k.as_str()))
}

/// The aura modifiers of one modifier element `m` (without children: what it lasts for
/// is the caller's) that grants, removes or changes what the object has; `None` when `m`
/// is none of those, `Some(Err)` when it is one this translation cannot carry.
pub fn modifier(f: &Fragments, m: &Element) -> Option<Result<Vec<Value>, String>> {
    match m.name.as_str() {
        "property-modifier" => Some(property(f, m)),
        "color-modifier" => Some(colour(m)),
        "ability-modifier" => Some(abilities(f, m)),
        _ => None,
    }
}

/// `<property-modifier property="K" operation="add|remove">` of a keyword the rules
/// implement or of a subtype (a creature type: "is a Zombie"): grant or remove its tag.
fn property(f: &Fragments, m: &Element) -> Result<Vec<Value>, String> {
    let p = m.attr("property").unwrap_or("?");
    let op = match m.attr("operation") {
        None | Some("add") => "tag",
        Some("remove") => "untag",
        Some(other) => return Err(format!("property-modifier {p} operation {other}")),
    };
    if !m.children.is_empty()
        || !only(m, &["property", "operation", "value"])
        || m.attr("value").is_some_and(|v| v != "true")
    {
        return Err(format!("property-modifier {}", m.start_tag()));
    }
    if let Some((_, tag)) = KEYWORDS.iter().find(|(k, _)| *k == p) {
        return Ok(vec![json!({ "key": tag, "op": op })]);
    }
    let first = f.aliases.get("FIRST_SUB_TYPE").copied().unwrap_or(i64::MAX);
    let last = f.aliases.get("LAST_SUB_TYPE").copied().unwrap_or(i64::MIN);
    match f.aliases.get(p) {
        Some(v) if (first..=last).contains(v) => Ok(vec![json!({ "key": slug(p), "op": op })]),
        _ => Err(format!("property-modifier {p}")),
    }
}

/// `<color-modifier color="C" operation="add|or|set">`: add the colour, or make it the
/// object's only colour (the other four removed).
fn colour(m: &Element) -> Result<Vec<Value>, String> {
    let Some((name, _)) = COLOURS.iter().find(|(n, _)| Some(*n) == m.attr("color")) else {
        return Err(format!("color-modifier {}", m.start_tag()));
    };
    if !m.children.is_empty() || !only(m, &["color", "operation"]) {
        return Err(format!("color-modifier {}", m.start_tag()));
    }
    let mut out = vec![json!({ "key": name, "op": "tag" })];
    match m.attr("operation") {
        // `or`: the colour bit added; `add` adds it too (to a card without it).
        None | Some("add" | "or") => {}
        Some("set") => out.extend(
            COLOURS
                .iter()
                .filter(|(n, _)| n != name)
                .map(|(n, _)| json!({ "key": n, "op": "untag" })),
        ),
        Some(other) => return Err(format!("color-modifier operation {other}")),
    }
    Ok(out)
}

/// Whether the modifier `m` lasts until the cleanup step and nothing else: its children
/// are one `<until><end-of-phase phase="cleanup"/></until>` and, for an
/// `<ability-modifier>`, the `<abilities>` it grants.
pub fn until_cleanup(m: &Element) -> bool {
    let until = |u: &Element| {
        u.name == "until"
            && matches!(u.children.as_slice(), [p] if p.name == "end-of-phase"
                && p.attr("phase") == Some("cleanup") && p.children.is_empty())
    };
    let granted = |a: &Element| m.name == "ability-modifier" && a.name == "abilities";
    match m.children.as_slice() {
        [u] => until(u),
        [x, y] => (until(x) && granted(y)) || (until(y) && granted(x)),
        _ => false,
    }
}

/// `<ability-modifier operation="add"><abilities>` of keyword abilities only: their tags.
fn abilities(f: &Fragments, m: &Element) -> Result<Vec<Value>, String> {
    let add = matches!(m.attr("operation"), None | Some("add"));
    let mut lists = m.children.iter().filter(|c| c.name != "until");
    let list = match (lists.next(), lists.next()) {
        (Some(a), None) if a.name == "abilities" && a.attrs.is_empty() => &a.children,
        _ => return Err("<ability-modifier>".into()),
    };
    if !add || !only(m, &["operation"]) || list.is_empty() {
        return Err("<ability-modifier>".into());
    }
    list.iter()
        .map(|a| match keyword_ability(f, a) {
            Some(tag) => Ok(json!({ "key": tag, "op": "tag" })),
            None => Err("<ability-modifier>".into()),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn element(name: &str, attrs: &[(&str, &str)]) -> Element {
        Element {
            name: name.into(),
            attrs: attrs
                .iter()
                .map(|(k, v)| ((*k).into(), (*v).into()))
                .collect(),
            ..Element::default()
        }
    }

    #[test]
    fn keywords_are_granted_or_removed() {
        let add = element(
            "property-modifier",
            &[("property", "flying"), ("linked", "false")],
        );
        assert_eq!(
            property(&Fragments::default(), &add),
            Ok(vec![json!({ "key": "flying", "op": "tag" })])
        );
        let remove = element(
            "property-modifier",
            &[("property", "trample"), ("operation", "remove")],
        );
        assert_eq!(
            property(&Fragments::default(), &remove),
            Ok(vec![json!({ "key": "trample", "op": "untag" })])
        );
        let unknown = element("property-modifier", &[("property", "banding")]);
        assert!(property(&Fragments::default(), &unknown).is_err());
    }

    #[test]
    fn a_colour_is_added_or_set() {
        let add = element("color-modifier", &[("color", "white")]);
        assert_eq!(colour(&add).map(|v| v.len()), Ok(1));
        let set = element(
            "color-modifier",
            &[("color", "black"), ("operation", "set")],
        );
        let mods = colour(&set).unwrap_or_default();
        assert_eq!(mods.len(), 5);
        assert!(mods.contains(&json!({ "key": "white", "op": "untag" })));
        assert!(!mods.contains(&json!({ "key": "black", "op": "untag" })));
        let clear = element("color-modifier", &[("operation", "clear")]);
        assert!(colour(&clear).is_err());
    }
}
