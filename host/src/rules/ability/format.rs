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
    for k in m.keys() {
        if !ABILITY_KEYS.contains(&k.as_str()) {
            let mut e = ContentError::new(
                "E-ABILITY-SCHEMA",
                with(path, k),
                format!("an ability has no field `{k}`"),
            );
            e = match closest(k, ABILITY_KEYS.iter().copied()).first() {
                Some(b) => e.help(format!("did you mean `{b}`?")),
                None => e.help("an ability has `id`, `displayName`, `description` and `math`"),
            };
            return Err(e);
        }
    }
    let ns = c.namespace().to_owned();
    let raw_id = text_field(m, "id", path, &format!("{ns}:category/name"))?;
    let id = Id::resolve(raw_id, Some(&ns)).map_err(|e| {
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
    let mut keys = Vec::new();
    for (field, suffix) in [("displayName", "name"), ("description", "description")] {
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
            if !known(&ns, key) {
                return Err(ContentError::new(
                    "E-ABILITY-LOCALE",
                    with(path, field),
                    format!("translation key `{key}` of ability `{id}` is missing from mod `{ns}`'s locale"),
                )
                .help(format!("add `\"{key}\" = \"...\"` to the mod's default language file (locale/en.toml)")));
            }
        }
        keys.push(key.to_owned());
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
    let registry = gen.registry.clone();
    let meta_id = nodes::builtin_id("meta");
    let range_id = nodes::builtin_id("range");
    let damage_id = nodes::builtin_id("damage");
    let area_id = nodes::builtin_id("area_of_effect");
    let mut seen: Vec<(String, usize)> = Vec::new();
    let mut compiled = Vec::new();
    let mut meta = Meta::default();
    let mut metas = 0;
    let mut ranges = Vec::new();
    let mut damage_nodes: Vec<(usize, String)> = Vec::new();
    let mut last_area: Option<(usize, String)> = None;
    let mut failed = false;
    for (i, node) in math.iter().enumerate() {
        let npath = at(&math_path, i);
        let Json::Object(nm) = node else {
            c.errors.push(ContentError::new(
                "E-ABILITY-SCHEMA",
                npath,
                "a node must be a table with `id` and `type`",
            ));
            failed = true;
            continue;
        };
        let nid = match nm.get("id") {
            Some(Json::String(s)) if !s.is_empty() => s.clone(),
            _ => {
                c.errors.push(
                    ContentError::new(
                        "E-ABILITY-SCHEMA",
                        npath,
                        "a node needs an `id` (unique within the ability)",
                    )
                    .help("add `\"id\": \"base_damage\"`"),
                );
                failed = true;
                continue;
            }
        };
        if let Some((_, first)) = seen.iter().find(|(s, _)| *s == nid) {
            c.errors.push(
                ContentError::new(
                    "E-ABILITY-NODE-ID",
                    with(&npath, "id"),
                    format!(
                        "node id `{nid}` is used twice in ability `{id}` (first by math[{first}])"
                    ),
                )
                .help("node ids must be unique within an ability: give this node another id"),
            );
            failed = true;
            continue;
        }
        seen.push((nid.clone(), i));
        let mut params = nm.clone();
        params.shift_remove("id");
        let Some(t) = params.get("type").and_then(Json::as_str).map(str::to_owned) else {
            c.errors.push(
                ContentError::new("E-CONTENT-MISSING-PARAM", npath, "a node needs a `type`")
                    .help("e.g. `base_value`, `range`, `area_of_effect`, `damage`, `damage_over_time`, `condition`, `meta`"),
            );
            failed = true;
            continue;
        };
        let kind = match c.kind_id(&registry.nodes, &t, &npath) {
            Ok(k) => k,
            Err(e) => {
                c.errors.push(e);
                failed = true;
                continue;
            }
        };
        if kind == meta_id {
            metas += 1;
        }
        let prepared = match c.node(&Json::Object(params.clone()), &npath) {
            Ok(n) => n,
            Err(e) => {
                c.errors.push(e);
                failed = true;
                continue;
            }
        };
        if kind == meta_id {
            if let Ok(mp) = MetaParams::from_map(&params, &npath) {
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
            if let Ok(rp) = RangeParams::from_map(&params, &npath) {
                ranges.push(RangeSpec::from(rp));
            }
        } else if kind == damage_id {
            damage_nodes.push((i, nid.clone()));
        } else if kind == area_id {
            last_area = Some((i, nid.clone()));
        }
        compiled.push(AbilityNode {
            id: Sym::new(&nid),
            kind,
            node: prepared,
            origin: c.origin(&npath, format!("node `{nid}` ({kind}) of ability `{id}`")),
        });
    }
    if let Some((ai, aname)) = &last_area {
        if let Some((di, dname)) = damage_nodes.iter().find(|(di, _)| di < ai) {
            c.errors.push(
                ContentError::new(
                    "E-ABILITY-ORDER",
                    at(&math_path, *di),
                    format!("damage node `{dname}` comes before area_of_effect node `{aname}`, so the area would not shape it"),
                )
                .help(format!("`math` runs top to bottom: move `{dname}` below `{aname}`")),
            );
            failed = true;
        }
    }
    if metas == 0 {
        c.errors.push(
            ContentError::new(
                "E-ABILITY-NO-META",
                math_path,
                format!("ability `{id}` has no `meta` node"),
            )
            .help("every ability needs at least one `meta` node: `{ \"id\": \"meta\", \"type\": \"meta\", \"cooldown_seconds\": 0, \"mana_cost\": 0, \"cast_time_seconds\": 0, \"tags\": [] }`"),
        );
        failed = true;
    }
    if failed {
        return Ok(None);
    }
    let mut keys = keys.into_iter();
    Ok(Some(AbilityDef {
        id,
        display_name: keys.next().unwrap_or_default(),
        description: keys.next().unwrap_or_default(),
        nodes: compiled,
        meta,
        ranges,
        cooldown_key: cooldown_key(id),
        origin: c.origin(path, format!("ability `{id}`")),
    }))
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
