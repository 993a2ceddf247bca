//! The ability file format: the `abilities` table of a content file (JSON or TOML, same
//! shape), checked by the schema's rules and compiled against the registry.
//!
//! ```json
//! { "abilities": { "id": "original:fire/fireball", "displayName": "...",
//!                  "description": "...", "math": [ { "id": "...", "type": "...", ... } ] } }
//! ```
//!
//! `abilities` holds one ability (as in the schema) or a list of them (TOML
//! `[[abilities]]`). The schema's rules are errors at the offending line:
//!
//! - every ability has at least one `meta` node (`E-ABILITY-NO-META`);
//! - node `id`s are unique within an ability (`E-ABILITY-NODE-ID`);
//! - `displayName` and `description` are translation keys, never raw text
//!   (`E-ABILITY-RAW-TEXT`), present in the mod's default language when the mod's
//!   translations are known (`E-ABILITY-LOCALE`);
//! - a `damage` node comes after every `area_of_effect` node, which shapes it
//!   (`E-ABILITY-ORDER`).
//!
//! An ability's namespace is its mod's (`E-ABILITY-NAMESPACE`); ids are unique across the
//! generation (`E-CONTENT-DUPLICATE`).

use serde_json::{Map, Value as Json};

use super::def::{cooldown_key, ticks, AbilityDef, AbilityNode, Meta, RangeSpec};
use super::nodes::{self, MetaParams, RangeParams};
use crate::id::{closest, Id, Sym};
use crate::rules::compile::{Compiler, Generation};
use crate::rules::{ContentError, PathSeg};

/// Answers whether mod `m` translates key `k` in its default language.
pub type Translations<'a> = &'a dyn Fn(&str, &str) -> bool;

const ABILITY_KEYS: &[&str] = &["id", "displayName", "description", "math"];

fn with(path: &[PathSeg], key: &str) -> Vec<PathSeg> {
    let mut p = path.to_vec();
    p.push(PathSeg::Key(key.to_owned()));
    p
}

fn at(path: &[PathSeg], i: usize) -> Vec<PathSeg> {
    let mut p = path.to_vec();
    p.push(PathSeg::Index(i));
    p
}

/// Compiles the `abilities` value of one content file into `gen.abilities`; problems go
/// to the compiler's errors (each at its path, so at its file:line).
pub(crate) fn compile_file(
    c: &mut Compiler<'_>,
    abilities: Option<&Json>,
    translations: Option<Translations<'_>>,
    gen: &mut Generation,
) {
    let Some(v) = abilities else { return };
    let root = vec![PathSeg::Key("abilities".into())];
    let items: Vec<(Vec<PathSeg>, &Json)> = match v {
        Json::Object(_) => vec![(root, v)],
        Json::Array(a) => a
            .iter()
            .enumerate()
            .map(|(i, x)| (at(&root, i), x))
            .collect(),
        _ => {
            c.errors.push(
                ContentError::new(
                    "E-ABILITY-SCHEMA",
                    root,
                    "`abilities` must be an ability table (or a list of them)",
                )
                .help("write `{ \"abilities\": { \"id\": ..., \"displayName\": ..., \"description\": ..., \"math\": [...] } }`"),
            );
            return;
        }
    };
    for (path, item) in items {
        match ability(c, item, &path, translations, gen) {
            Ok(Some(def)) => {
                let id = def.id;
                if let Err(prev) = gen.abilities.insert(def) {
                    c.errors.push(
                        ContentError::new(
                            "E-CONTENT-DUPLICATE",
                            with(&path, "id"),
                            format!(
                                "ability `{id}` is defined twice (first in {}:{})",
                                prev.origin.file.display(),
                                prev.origin.line
                            ),
                        )
                        .help("give one of them another id"),
                    );
                }
            }
            Ok(None) => {}
            Err(e) => c.errors.push(e),
        }
    }
}

fn text_field<'j>(
    m: &'j Map<String, Json>,
    key: &str,
    path: &[PathSeg],
    example: &str,
) -> Result<&'j str, ContentError> {
    match m.get(key) {
        Some(Json::String(s)) => Ok(s),
        Some(_) => Err(ContentError::new(
            "E-ABILITY-SCHEMA",
            with(path, key),
            format!("`{key}` must be text"),
        )
        .help(format!("for example `\"{key}\": \"{example}\"`"))),
        None => Err(ContentError::new(
            "E-ABILITY-SCHEMA",
            path.to_vec(),
            format!("an ability needs `{key}`"),
        )
        .help(format!("add `\"{key}\": \"{example}\"`"))),
    }
}

/// Whether `s` has the shape of a translation key: lowercase words joined by dots, no
/// spaces (`ability.original.fireball.name`).
pub fn is_translation_key(s: &str) -> bool {
    s.contains('.')
        && !s.starts_with('.')
        && !s.ends_with('.')
        && s.chars().all(|ch| {
            ch.is_ascii_lowercase() || ch.is_ascii_digit() || matches!(ch, '.' | '_' | '-')
        })
}

/// Compiles one ability; `Ok(None)` when its nodes had errors (already recorded).
fn ability(
    c: &mut Compiler<'_>,
    v: &Json,
    path: &[PathSeg],
    translations: Option<Translations<'_>>,
    gen: &Generation,
) -> Result<Option<AbilityDef>, ContentError> {
    let Json::Object(m) = v else {
        return Err(ContentError::new(
            "E-ABILITY-SCHEMA",
            path.to_vec(),
            "an ability must be a table with `id`, `displayName`, `description` and `math`",
        ));
    };
    check_ability_keys(m, path)?;
    let ns = c.namespace().to_owned();
    let id = ability_id(m, path, &ns)?;
    let mut keys = Vec::new();
    for (field, suffix) in [("displayName", "name"), ("description", "description")] {
        keys.push(translation_key(
            m,
            path,
            &ns,
            id,
            field,
            suffix,
            translations,
        )?);
    }
    let math_path = with(path, "math");
    let Some(Json::Array(math)) = m.get("math") else {
        return Err(ContentError::new(
            "E-ABILITY-SCHEMA",
            if m.contains_key("math") {
                math_path
            } else {
                path.to_vec()
            },
            "an ability needs `math`: the list of its nodes",
        )
        .help("add `\"math\": [ { \"id\": \"cost\", \"type\": \"meta\", ... } ]`"));
    };
    let mut walk = MathWalk::new(id);
    for (i, node) in math.iter().enumerate() {
        let npath = at(&math_path, i);
        if let Err(e) = walk.node(c, gen, i, node, &npath) {
            c.errors.push(e);
            walk.failed = true;
        }
    }
    walk.check_shape(c, &math_path);
    if walk.failed {
        return Ok(None);
    }
    let mut keys = keys.into_iter();
    Ok(Some(AbilityDef {
        id,
        display_name: keys.next().unwrap_or_default(),
        description: keys.next().unwrap_or_default(),
        nodes: walk.compiled,
        meta: walk.meta,
        ranges: walk.ranges,
        cooldown_key: cooldown_key(id),
        origin: c.origin(path, format!("ability `{id}`")),
    }))
}

/// Refuses a key an ability does not have, with a did-you-mean.
fn check_ability_keys(m: &Map<String, Json>, path: &[PathSeg]) -> Result<(), ContentError> {
    let Some(k) = m.keys().find(|k| !ABILITY_KEYS.contains(&k.as_str())) else {
        return Ok(());
    };
    let e = ContentError::new(
        "E-ABILITY-SCHEMA",
        with(path, k),
        format!("an ability has no field `{k}`"),
    );
    Err(match closest(k, ABILITY_KEYS.iter().copied()).first() {
        Some(b) => e.help(format!("did you mean `{b}`?")),
        None => e.help("an ability has `id`, `displayName`, `description` and `math`"),
    })
}

/// The ability's `id`, resolved in and confined to the mod's namespace `ns`.
fn ability_id(m: &Map<String, Json>, path: &[PathSeg], ns: &str) -> Result<Id, ContentError> {
    let raw_id = text_field(m, "id", path, &format!("{ns}:category/name"))?;
    let id = Id::resolve(raw_id, Some(ns)).map_err(|e| {
        ContentError::new("E-ABILITY-ID", with(path, "id"), format!("`{raw_id}`: {e}")).help(
            format!("ability ids are `namespace:category/name`, e.g. `{ns}:fire/fireball`"),
        )
    })?;
    if id.namespace() != ns {
        return Err(ContentError::new(
            "E-ABILITY-NAMESPACE",
            with(path, "id"),
            format!(
                "ability `{id}` is in namespace `{}`, but this file belongs to mod `{ns}`",
                id.namespace()
            ),
        )
        .help(format!(
            "a mod defines abilities only in its own namespace: name it `{ns}:{}/{}`",
            id.category(),
            id.name()
        )));
    }
    Ok(id)
}

/// `displayName` or `description`: a translation key (never raw text), known to the mod's
/// default language when its translations are.
fn translation_key(
    m: &Map<String, Json>,
    path: &[PathSeg],
    ns: &str,
    id: Id,
    field: &str,
    suffix: &str,
    translations: Option<Translations<'_>>,
) -> Result<String, ContentError> {
    let example = format!("ability.{ns}.{}.{suffix}", id.name());
    let key = text_field(m, field, path, &example)?;
    if !is_translation_key(key) {
        return Err(ContentError::new(
            "E-ABILITY-RAW-TEXT",
            with(path, field),
            format!("`{field}` must be a translation key, not text: `{key}`"),
        )
        .help(format!(
            "use a key such as `{example}` and put the text in the mod's locale file"
        )));
    }
    if let Some(known) = translations {
        if !known(ns, key) {
            return Err(ContentError::new(
                "E-ABILITY-LOCALE",
                with(path, field),
                format!(
                    "translation key `{key}` of ability `{id}` is missing from mod `{ns}`'s locale"
                ),
            )
            .help(format!(
                "add `\"{key}\" = \"...\"` to the mod's default language file (locale/en.toml)"
            )));
        }
    }
    Ok(key.to_owned())
}

/// The nodes of one ability's `math`, compiled in order, and what the ability-level rules
/// need to know about them (metas, ranges, where damage and areas are).
struct MathWalk {
    ability: Id,
    seen: Vec<(String, usize)>,
    compiled: Vec<AbilityNode>,
    meta: Meta,
    metas: usize,
    ranges: Vec<RangeSpec>,
    damage_nodes: Vec<(usize, String)>,
    last_area: Option<(usize, String)>,
    failed: bool,
    /// The built-in kinds the walk looks for: meta, range, damage, area_of_effect.
    builtins: [Id; 4],
}

impl MathWalk {
    fn new(ability: Id) -> MathWalk {
        MathWalk {
            ability,
            seen: Vec::new(),
            compiled: Vec::new(),
            meta: Meta::default(),
            metas: 0,
            ranges: Vec::new(),
            damage_nodes: Vec::new(),
            last_area: None,
            failed: false,
            builtins: ["meta", "range", "damage", "area_of_effect"].map(nodes::builtin_id),
        }
    }

    /// Compiles node `i` of `math`.
    fn node(
        &mut self,
        c: &mut Compiler<'_>,
        gen: &Generation,
        i: usize,
        node: &Json,
        npath: &[PathSeg],
    ) -> Result<(), ContentError> {
        let Json::Object(nm) = node else {
            return Err(ContentError::new(
                "E-ABILITY-SCHEMA",
                npath.to_vec(),
                "a node must be a table with `id` and `type`",
            ));
        };
        let nid = self.node_id(nm, npath)?;
        self.seen.push((nid.clone(), i));
        let mut params = nm.clone();
        params.shift_remove("id");
        let Some(t) = params.get("type").and_then(Json::as_str).map(str::to_owned) else {
            return Err(
                ContentError::new("E-CONTENT-MISSING-PARAM", npath.to_vec(), "a node needs a `type`")
                    .help("e.g. `base_value`, `range`, `area_of_effect`, `damage`, `damage_over_time`, `condition`, `meta`"),
            );
        };
        let kind = c.kind_id(&gen.registry.nodes, &t, npath)?;
        if kind == self.builtins[0] {
            self.metas += 1;
        }
        let prepared = c.node(&Json::Object(params.clone()), npath)?;
        self.note(kind, &params, i, &nid, npath);
        let id = self.ability;
        self.compiled.push(AbilityNode {
            id: Sym::new(&nid),
            kind,
            node: prepared,
            origin: c.origin(npath, format!("node `{nid}` ({kind}) of ability `{id}`")),
        });
        Ok(())
    }

    /// The node's `id`: present and unique within the ability.
    fn node_id(&self, nm: &Map<String, Json>, npath: &[PathSeg]) -> Result<String, ContentError> {
        let nid = match nm.get("id") {
            Some(Json::String(s)) if !s.is_empty() => s.clone(),
            _ => {
                return Err(ContentError::new(
                    "E-ABILITY-SCHEMA",
                    npath.to_vec(),
                    "a node needs an `id` (unique within the ability)",
                )
                .help("add `\"id\": \"base_damage\"`"))
            }
        };
        if let Some((_, first)) = self.seen.iter().find(|(s, _)| *s == nid) {
            return Err(ContentError::new(
                "E-ABILITY-NODE-ID",
                with(npath, "id"),
                format!(
                    "node id `{nid}` is used twice in ability `{}` (first by math[{first}])",
                    self.ability
                ),
            )
            .help("node ids must be unique within an ability: give this node another id"));
        }
        Ok(nid)
    }

    /// Folds what the ability needs from a built-in node: `meta` costs and tags, `range`
    /// specs, where `damage` and `area_of_effect` nodes are.
    fn note(
        &mut self,
        kind: Id,
        params: &Map<String, Json>,
        i: usize,
        nid: &str,
        npath: &[PathSeg],
    ) {
        let [meta_id, range_id, damage_id, area_id] = self.builtins;
        if kind == meta_id {
            if let Ok(mp) = MetaParams::from_map(params, npath) {
                let meta = &mut self.meta;
                meta.cooldown_ticks = meta.cooldown_ticks.max(ticks(mp.cooldown_seconds));
                meta.cast_time_ticks = meta.cast_time_ticks.max(ticks(mp.cast_time_seconds));
                meta.mana_cost += mp.mana_cost;
                for t in mp.tags {
                    let t = Sym::new(&t);
                    if !meta.tags.contains(&t) {
                        meta.tags.push(t);
                    }
                }
            }
        } else if kind == range_id {
            if let Ok(rp) = RangeParams::from_map(params, npath) {
                self.ranges.push(RangeSpec::from(rp));
            }
        } else if kind == damage_id {
            self.damage_nodes.push((i, nid.to_owned()));
        } else if kind == area_id {
            self.last_area = Some((i, nid.to_owned()));
        }
    }

    /// The ability-level rules: damage after every area, at least one meta node.
    fn check_shape(&mut self, c: &mut Compiler<'_>, math_path: &[PathSeg]) {
        if let Some((ai, aname)) = &self.last_area {
            if let Some((di, dname)) = self.damage_nodes.iter().find(|(di, _)| di < ai) {
                c.errors.push(
                    ContentError::new(
                        "E-ABILITY-ORDER",
                        at(math_path, *di),
                        format!("damage node `{dname}` comes before area_of_effect node `{aname}`, so the area would not shape it"),
                    )
                    .help(format!("`math` runs top to bottom: move `{dname}` below `{aname}`")),
                );
                self.failed = true;
            }
        }
        if self.metas == 0 {
            c.errors.push(
                ContentError::new(
                    "E-ABILITY-NO-META",
                    math_path.to_vec(),
                    format!("ability `{}` has no `meta` node", self.ability),
                )
                .help("every ability needs at least one `meta` node: `{ \"id\": \"meta\", \"type\": \"meta\", \"cooldown_seconds\": 0, \"mana_cost\": 0, \"cast_time_seconds\": 0, \"tags\": [] }`"),
            );
            self.failed = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn translation_keys_are_dotted_lowercase() {
        assert!(is_translation_key("ability.original.fireball.name"));
        assert!(!is_translation_key("Fireball"));
        assert!(!is_translation_key("Hurls a ball of fire."));
        assert!(!is_translation_key("fireball"));
        assert!(!is_translation_key("ability.original.fire ball"));
    }
}
