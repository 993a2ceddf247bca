//! Definition ownership and patches.
//!
//! A mod defines ids only in its own namespace. To change another mod's definition it
//! writes a patch — `[[patch]] target = "arena:class/wolf", op = "merge", value = {...}` —
//! with `replace`, `merge` (deep merge of tables) or `remove`. Patches apply in load
//! order to the content tree before it is compiled. Two patches to the same id from mods
//! with no order between them are an error naming both. Every definition remembers who
//! defined it and every patch that touched it, for `tessera explain`.

use std::collections::HashMap;

use serde_json::Value as Json;

use super::compile::ContentSource;
use super::params::PathSeg;
use crate::diag::{Diagnostic, Diagnostics, Location};
use crate::id::{closest, Id};
use crate::rules::registry::Registry;

/// The content tables whose entries are definitions with ids.
pub const CATEGORIES: &[&str] = &[
    "class",
    "aura",
    "trigger",
    "rule",
    "alias",
    "ref",
    "event",
    "move",
    "action",
    "condition",
    "selector",
];

/// One thing that happened to a definition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Touch {
    /// The mod that did it.
    pub mod_id: String,
    /// The file.
    pub file: std::path::PathBuf,
    /// 1-based line.
    pub line: usize,
    /// `defined`, `replace`, `merge` or `remove`.
    pub op: String,
}

/// Who defined and patched each id, and its final content.
#[derive(Debug, Clone, Default)]
pub struct Provenance {
    /// Touches in order (definition first).
    pub touches: HashMap<Id, Vec<Touch>>,
    /// Where each definition lives: (source index, table, name).
    places: HashMap<Id, (usize, &'static str, String)>,
    /// The content trees after patches, by source index.
    trees: Vec<Option<Json>>,
}

impl Provenance {
    /// The final definition of an id after every patch (`None`: never defined, or removed).
    pub fn definition(&self, id: Id) -> Option<&Json> {
        let (i, cat, name) = self.places.get(&id)?;
        self.trees.get(*i)?.as_ref()?.get(*cat)?.get(name)
    }

    /// Keeps the patched trees so [`Provenance::definition`] can answer.
    pub(crate) fn keep_trees(&mut self, trees: Vec<Option<Json>>) {
        self.trees = trees;
    }
}

/// Whether mod `a` is ordered after mod `b` (depends on it, directly or not, or is
/// placed after it by `[load]`). Patch conflicts are judged by it.
pub type OrderedAfter<'a> = &'a dyn Fn(&str, &str) -> bool;

struct Patch {
    source: usize,
    index: usize,
    target: Id,
    op: String,
    value: Option<Json>,
}

fn locate(registry: &Registry, src: &ContentSource, path: &[PathSeg]) -> Location {
    src.location(registry, path)
}

fn line_of(registry: &Registry, src: &ContentSource, path: &[PathSeg]) -> usize {
    src.locate(registry, path)
        .map_or(0, |s| src.line_of(s.start))
}

/// Checks ownership and applies every patch to `trees` (one per source, `None` for files
/// that did not parse), in source order. Returns the provenance of every definition.
pub fn apply(
    registry: &Registry,
    sources: &[ContentSource],
    trees: &mut [Option<Json>],
    ordered_after: Option<OrderedAfter<'_>>,
    diags: &mut Diagnostics,
) -> Provenance {
    let mut prov = Provenance::default();
    let mut owner: Owners = HashMap::new();
    let mut patches = Vec::new();
    for (i, tree) in trees.iter_mut().enumerate() {
        let Some(Json::Object(root)) = tree else {
            continue;
        };
        record_definitions(registry, sources, i, root, &mut owner, &mut prov, diags);
        if let Some(list) = root.remove("patch") {
            collect_patches(registry, &sources[i], i, list, &mut patches, diags);
        }
    }
    check_conflicts(registry, sources, &patches, ordered_after, diags);
    let loaded: std::collections::HashSet<&str> =
        sources.iter().map(|s| s.mod_id.as_str()).collect();
    for p in patches {
        let src = &sources[p.source];
        let path = vec![PathSeg::Key("patch".into()), PathSeg::Index(p.index)];
        let Some((ti, cat, name)) = owner.get(&p.target).cloned() else {
            report_absent_target(registry, src, &path, &p.target, &owner, &loaded, diags);
            continue;
        };
        let Some(Json::Object(root)) = trees[ti].as_mut() else {
            continue;
        };
        let Some(Json::Object(table)) = root.get_mut(cat) else {
            continue;
        };
        match p.op.as_str() {
            "remove" => {
                table.shift_remove(&name);
            }
            "replace" => {
                table.insert(name.clone(), p.value.unwrap_or(Json::Null));
            }
            _ => {
                if let Some(node) = table.get_mut(&name) {
                    deep_merge(node, p.value.unwrap_or(Json::Null));
                }
            }
        }
        prov.touches.entry(p.target).or_default().push(Touch {
            mod_id: src.mod_id.clone(),
            file: src.source.path.clone(),
            line: line_of(registry, src, &path),
            op: p.op,
        });
    }
    prov.places = owner;
    prov
}

/// Who defines each id: the file's index, the category and the name as written.
type Owners = HashMap<Id, (usize, &'static str, String)>;

/// Records what file `i` defines (first definition wins) and refuses definitions in
/// another mod's namespace.
fn record_definitions(
    registry: &Registry,
    sources: &[ContentSource],
    i: usize,
    root: &serde_json::Map<String, Json>,
    owner: &mut Owners,
    prov: &mut Provenance,
    diags: &mut Diagnostics,
) {
    let src = &sources[i];
    for &cat in CATEGORIES {
        let Some(Json::Object(table)) = root.get(cat) else {
            continue;
        };
        for name in table.keys() {
            let path = [PathSeg::Key(cat.into()), PathSeg::Key(name.clone())];
            if name.contains(':') {
                let foreign = Id::parse(name).ok();
                let defined_in = foreign
                    .and_then(|f| owner.get(&f))
                    .map(|(s, _, _)| sources[*s].source.path.display().to_string());
                let mut d = Diagnostic::error(
                    "E-CONTENT-FOREIGN-ID",
                    format!("mod `{}` defines `{name}`, which belongs to another mod's namespace", src.mod_id),
                )
                .at(locate(registry, src, &path))
                .for_mod(&src.mod_id)
                .with_help(format!("to change it, write a patch: [[patch]] target = \"{name}\" op = \"merge\" value = {{ ... }}"));
                if let Some(f) = defined_in {
                    d = d.with_note(format!("`{name}` is defined in {f}"));
                }
                diags.push(d);
                continue;
            }
            let Ok(id) = Id::from_parts(&src.mod_id, cat, name) else {
                continue;
            };
            owner.entry(id).or_insert((i, cat, name.clone()));
            prov.touches.entry(id).or_default().push(Touch {
                mod_id: src.mod_id.clone(),
                file: src.source.path.clone(),
                line: line_of(registry, src, &path),
                op: "defined".into(),
            });
        }
    }
}

/// Reads file `i`'s `[[patch]]` entries (one table or a list), reporting malformed ones.
fn collect_patches(
    registry: &Registry,
    src: &ContentSource,
    i: usize,
    list: Json,
    patches: &mut Vec<Patch>,
    diags: &mut Diagnostics,
) {
    let items = match list {
        Json::Array(a) => a,
        other => vec![other],
    };
    for (n, p) in items.into_iter().enumerate() {
        let path = vec![PathSeg::Key("patch".into()), PathSeg::Index(n)];
        match parse_patch(&src.mod_id, &p) {
            Ok((target, op, value)) => patches.push(Patch {
                source: i,
                index: n,
                target,
                op,
                value,
            }),
            Err((msg, help)) => diags.push(
                Diagnostic::error("E-PATCH", msg)
                    .at(locate(registry, src, &path))
                    .for_mod(&src.mod_id)
                    .with_help(help),
            ),
        }
    }
}

/// Two patches to one id from mods with no order between them: ambiguous.
fn check_conflicts(
    registry: &Registry,
    sources: &[ContentSource],
    patches: &[Patch],
    ordered_after: Option<OrderedAfter<'_>>,
    diags: &mut Diagnostics,
) {
    for (a_i, a) in patches.iter().enumerate() {
        for b in &patches[a_i + 1..] {
            let (ma, mb) = (&sources[a.source].mod_id, &sources[b.source].mod_id);
            if a.target != b.target || ma == mb {
                continue;
            }
            let ordered = ordered_after.is_some_and(|f| f(ma, mb) || f(mb, ma));
            if !ordered {
                let pa = [PathSeg::Key("patch".into()), PathSeg::Index(a.index)];
                let pb = [PathSeg::Key("patch".into()), PathSeg::Index(b.index)];
                diags.push(
                    Diagnostic::error("E-PATCH-CONFLICT", format!("mods `{ma}` and `{mb}` both patch `{}` with no order between them", a.target))
                        .at(locate(registry, &sources[b.source], &pb))
                        .with_note(format!("the other patch is at {}", locate(registry, &sources[a.source], &pa)))
                        .with_help(format!("make one mod load after the other: add `after = [\"{ma}\"]` to `[load]` in `{mb}`'s mod.toml (or depend on it)")),
                );
            }
        }
    }
}

/// A patch whose target nobody defines: skipped with a warning when the target's mod is
/// not loaded, an error (with a did-you-mean) when it is.
fn report_absent_target(
    registry: &Registry,
    src: &ContentSource,
    path: &[PathSeg],
    target: &Id,
    owner: &Owners,
    loaded: &std::collections::HashSet<&str>,
    diags: &mut Diagnostics,
) {
    if !loaded.contains(target.namespace()) {
        diags.push(
            Diagnostic::warning(
                "W-PATCH-TARGET-ABSENT",
                format!("patch target `{target}` is not loaded; the patch is skipped"),
            )
            .at(locate(registry, src, path))
            .for_mod(&src.mod_id)
            .with_note(format!(
                "no loaded mod has the namespace `{}`",
                target.namespace()
            )),
        );
        return;
    }
    let names: Vec<&str> = owner.keys().map(|i| i.as_str()).collect();
    let mut d = Diagnostic::error(
        "E-PATCH-TARGET",
        format!("patch target `{target}` is not defined by any loaded mod"),
    )
    .at(locate(registry, src, path))
    .for_mod(&src.mod_id);
    if let Some(b) = closest(target.as_str(), names).first() {
        d = d.with_help(format!("did you mean `{b}`?"));
    }
    diags.push(d);
}

fn parse_patch(ns: &str, p: &Json) -> Result<(Id, String, Option<Json>), (String, String)> {
    let help = "write `[[patch]]` with `target = \"mod:category/name\"`, `op = \"replace\" | \"merge\" | \"remove\"` and (except for remove) `value = { ... }`".to_string();
    let Json::Object(m) = p else {
        return Err(("a patch must be a table".into(), help));
    };
    for k in m.keys() {
        if !["target", "op", "value"].contains(&k.as_str()) {
            let b = closest(k, ["target", "op", "value"])
                .first()
                .map(|b| format!("did you mean `{b}`?"))
                .unwrap_or(help.clone());
            return Err((format!("a patch has no key `{k}`"), b));
        }
    }
    let target = m
        .get("target")
        .and_then(Json::as_str)
        .ok_or(("a patch needs `target`".to_string(), help.clone()))?;
    let target =
        Id::resolve(target, Some(ns)).map_err(|e| (format!("patch target: {e}"), help.clone()))?;
    let op = m
        .get("op")
        .and_then(Json::as_str)
        .unwrap_or("merge")
        .to_owned();
    if !["replace", "merge", "remove"].contains(&op.as_str()) {
        return Err((
            format!("`op = \"{op}\"` is not a patch operation"),
            "use `replace`, `merge` or `remove`".into(),
        ));
    }
    let value = m.get("value").cloned();
    if op != "remove" && value.is_none() {
        return Err((format!("a `{op}` patch needs a `value`"), help));
    }
    Ok((target, op, value))
}

/// Deep-merges `patch` into `base`: tables merge key by key, anything else replaces.
pub fn deep_merge(base: &mut Json, patch: Json) {
    match (base, patch) {
        (Json::Object(b), Json::Object(p)) => {
            for (k, v) in p {
                match b.get_mut(&k) {
                    Some(existing) => deep_merge(existing, v),
                    None => {
                        b.insert(k, v);
                    }
                }
            }
        }
        (b, p) => *b = p,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deep_merge_merges_tables_and_replaces_leaves() {
        let mut a =
            serde_json::json!({"properties": {"attack": 1, "max_health": 2}, "tags": ["x"]});
        deep_merge(
            &mut a,
            serde_json::json!({"properties": {"attack": 3}, "tags": ["y"]}),
        );
        assert_eq!(
            a,
            serde_json::json!({"properties": {"attack": 3, "max_health": 2}, "tags": ["y"]})
        );
    }
}
