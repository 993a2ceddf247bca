//! The checks resolution runs over the whole mod set, each reporting every problem it
//! finds with a `help:` fix and disabling the mods it is about.
//!
//! Owns the platform API check, dependency presence and version checks (including
//! conflicts between requirers), required-dependency cycles, `breaks`, `conflicts`, and
//! propagation of a disabled mod to its dependents. The order of the checks and the final
//! load order are [`resolve`](super::resolve)'s.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use semver::Version;

use super::discovery::FoundMod;
use super::manifest::Dependency;
use super::order::{cycles, shortest_cycle};
use super::resolve::{list, DisableCause, Node};
use crate::diag::{Diagnostic, Diagnostics};
use crate::id::closest;

pub(super) fn check_api(
    nodes: &mut BTreeMap<String, Node<'_>>,
    api: &Version,
    diags: &mut Diagnostics,
) {
    for (id, n) in nodes.iter_mut() {
        let Some(f) = n.found.filter(|_| n.cause.is_none()) else {
            continue;
        };
        let m = &f.manifest;
        if m.api.matches(api) {
            continue;
        }
        let mut d = Diagnostic::error(
            "E-MOD-API",
            format!(
                "mod `{id}` {} targets platform API `{}`, but this host provides API {api}",
                m.version, m.api
            ),
        )
        .for_mod(id.as_str())
        .with_help(format!(
            "use a version of `{id}` made for API {}.{}, or a Tessera host that provides API `{}`",
            api.major, api.minor, m.api
        ));
        if let Some(loc) = m.location_of(&m.spans.api) {
            d = d.at(loc).with_label("platform API required here");
        }
        diags.push(d);
        n.disable(
            DisableCause::Broken,
            format!(
                "it targets platform API `{}`, but this host provides {api}",
                m.api
            ),
            true,
        );
    }
}

pub(super) fn check_dependencies(nodes: &mut BTreeMap<String, Node<'_>>, diags: &mut Diagnostics) {
    let wanted = requirements(nodes);
    let known: Vec<String> = nodes.keys().cloned().collect();
    let mut problems: Vec<(String, String)> = Vec::new();
    for (id, n) in nodes.iter() {
        let Some(f) = n.found.filter(|_| n.active()) else {
            continue;
        };
        let m = &f.manifest;
        let manifest_path = f.dir.join("mod.toml");
        for dep in &m.dependencies {
            let target = nodes.get(&dep.id);
            let present = target
                .and_then(|t| t.found)
                .filter(|_| target.is_some_and(|t| t.dirs.len() == 1));
            let at = |d: Diagnostic| match m.location_of(&dep.span) {
                Some(loc) => d.at(loc),
                None => d,
            };
            match (target, present) {
                (None, _) if !dep.optional => {
                    diags.push(missing(id, dep, &known, &manifest_path, at));
                    problems.push((
                        id.clone(),
                        format!(
                            "it requires `{}` {}, which is not installed",
                            dep.id, dep.req
                        ),
                    ));
                }
                (Some(_), Some(t)) if !dep.req.matches(&t.manifest.version) => {
                    diags.push(mismatch(id, dep, t, &wanted, &manifest_path, at));
                    if !dep.optional {
                        problems.push((
                            id.clone(),
                            format!(
                                "it requires `{}` {}, but version {} is installed",
                                dep.id, dep.req, t.manifest.version
                            ),
                        ));
                    }
                }
                _ => {}
            }
        }
    }
    for (id, reason) in problems {
        if let Some(n) = nodes.get_mut(&id) {
            n.disable(DisableCause::Broken, reason, true);
        }
    }
}

/// Every active requirement on each dependency id: (requirer, req text, satisfied).
type Wanted = BTreeMap<String, Vec<(String, String, bool)>>;

/// The active mods' requirements on each installed dependency.
fn requirements(nodes: &BTreeMap<String, Node<'_>>) -> Wanted {
    let mut wanted = Wanted::new();
    let version_of = |id: &str| {
        nodes
            .get(id)
            .and_then(|n| n.found)
            .map(|f| f.manifest.version.clone())
    };
    for (id, n) in nodes.iter() {
        let Some(f) = n.found.filter(|_| n.active()) else {
            continue;
        };
        for dep in &f.manifest.dependencies {
            if let Some(v) = version_of(&dep.id) {
                wanted.entry(dep.id.clone()).or_default().push((
                    id.clone(),
                    dep.req.to_string(),
                    dep.req.matches(&v),
                ));
            }
        }
    }
    wanted
}

/// `E-DEP-MISSING`: a required mod is not installed (`at` places it at the entry).
fn missing(
    id: &str,
    dep: &Dependency,
    known: &[String],
    manifest_path: &Path,
    at: impl Fn(Diagnostic) -> Diagnostic,
) -> Diagnostic {
    let mut d = at(Diagnostic::error(
        "E-DEP-MISSING",
        format!(
            "mod `{id}` requires `{}` {}, but no mod `{}` is installed",
            dep.id, dep.req, dep.id
        ),
    ))
    .for_mod(id)
    .with_label("required here");
    if let Some(best) = closest(&dep.id, known.iter().map(String::as_str)).first() {
        d = d.with_help(format!("did you mean `{best}`?"));
    }
    d.with_help(format!(
        "install a version of `{}` matching `{}` into a mod folder, or remove `{}` from `[dependencies]` in `{}`",
        dep.id,
        dep.req,
        dep.id,
        manifest_path.display()
    ))
}

/// The installed version of a dependency does not match: a warning for an optional one,
/// else an error, a conflict when other mods need the installed version.
fn mismatch(
    id: &str,
    dep: &Dependency,
    t: &FoundMod,
    wanted: &Wanted,
    manifest_path: &Path,
    at: impl Fn(Diagnostic) -> Diagnostic,
) -> Diagnostic {
    let have = &t.manifest.version;
    let others: Vec<&(String, String, bool)> = wanted
        .get(&dep.id)
        .map(|w| w.iter().filter(|(r, _, ok)| r != id && *ok).collect())
        .unwrap_or_default();
    let code = match (dep.optional, others.is_empty()) {
        (true, _) => "W-DEP-OPTIONAL-VERSION",
        (false, true) => "E-DEP-VERSION",
        (false, false) => "E-DEP-CONFLICT",
    };
    let message = if dep.optional {
        format!(
            "mod `{id}` can use `{}` {}, but version {have} is installed; `{id}` loads without it",
            dep.id, dep.req
        )
    } else if others.is_empty() {
        format!(
            "mod `{id}` requires `{}` {}, but version {have} is installed",
            dep.id, dep.req
        )
    } else {
        format!("version conflict on `{}`: `{id}` requires {}, but the installed {have} is the one other mods need", dep.id, dep.req)
    };
    let mut d = at(if dep.optional {
        Diagnostic::warning(code, message)
    } else {
        Diagnostic::error(code, message)
    })
    .for_mod(id)
    .with_label(format!("{have} does not match"))
    .with_note(format!(
        "`{}` {have} is installed in `{}`",
        dep.id,
        t.dir.display()
    ));
    for (other, req, _) in &others {
        d = d.with_note(format!(
            "`{other}` requires `{}` {req}, which {have} satisfies",
            dep.id
        ));
    }
    d.with_help(format!(
        "install a version of `{}` matching `{}`, or change the requirement in `{}` to `{} = \"^{have}\"` if `{id}` works with it",
        dep.id,
        dep.req,
        manifest_path.display(),
        dep.id
    ))
}

/// One dependent to disable: (mod, the dependency, reason, root mod and reason, by error).
type Cascade = (String, String, String, (String, String), bool);

/// Disables, until nothing changes, every active mod that requires a disabled one.
pub(super) fn propagate(nodes: &mut BTreeMap<String, Node<'_>>, diags: &mut Diagnostics) {
    loop {
        let mut changes: Vec<Cascade> = Vec::new();
        for (id, n) in nodes.iter() {
            let Some(f) = n.found.filter(|_| n.active()) else {
                continue;
            };
            for dep in f.manifest.dependencies.iter().filter(|d| !d.optional) {
                let Some(t) = nodes.get(&dep.id) else {
                    continue;
                };
                if t.active() {
                    continue;
                }
                let first = t
                    .reasons
                    .first()
                    .cloned()
                    .unwrap_or_else(|| "its manifest has errors".into());
                let root = t
                    .root
                    .clone()
                    .unwrap_or_else(|| (dep.id.clone(), first.clone()));
                let why = match &t.root {
                    None => first,
                    Some((r, rr)) => format!("it needs `{r}`, which is disabled: {rr}"),
                };
                let reason = format!(
                    "disabled because it depends on `{}`, which is disabled: {why}",
                    dep.id
                );
                changes.push((id.clone(), dep.id.clone(), reason, root, t.by_error));
                break;
            }
        }
        if changes.is_empty() {
            return;
        }
        for (id, dep, reason, root, by_error) in changes {
            let mut d =
                if by_error {
                    Diagnostic::error("E-DEP-DISABLED", format!("mod `{id}` is {reason}"))
                        .with_help(format!(
                            "fix `{}` (see its own diagnostic); `{id}` loads again once it does",
                            root.0
                        ))
                } else {
                    Diagnostic::warning("W-DEP-DISABLED", format!("mod `{id}` is {reason}"))
                        .with_help(format!(
                    "enable `{}` in server.toml, or also disable `{id}` to say this is intended",
                    root.0
                ))
                };
            d = d
                .for_mod(id.as_str())
                .with_note(format!("`{id}` requires `{dep}`"));
            diags.push(d);
            if let Some(n) = nodes.get_mut(&id) {
                n.disable(DisableCause::Dependency, reason, by_error);
                n.root = Some(root);
            }
        }
    }
}

pub(super) fn check_cycles(nodes: &mut BTreeMap<String, Node<'_>>, diags: &mut Diagnostics) {
    let deps: BTreeMap<String, Vec<String>> = nodes
        .iter()
        .filter_map(|(id, n)| {
            let f = n.found.filter(|_| n.active())?;
            let mut ds: Vec<String> = f
                .manifest
                .dependencies
                .iter()
                .filter(|d| !d.optional && nodes.get(&d.id).is_some_and(Node::active))
                .map(|d| d.id.clone())
                .collect();
            ds.sort();
            ds.dedup();
            Some((id.clone(), ds))
        })
        .collect();
    for comp in cycles(&deps) {
        let members: BTreeSet<&str> = comp.iter().map(String::as_str).collect();
        let start = comp[0].as_str();
        let path = shortest_cycle(start, |m| {
            deps.get(m)
                .map(|ds| {
                    ds.iter()
                        .filter(|d| members.contains(d.as_str()))
                        .cloned()
                        .collect()
                })
                .unwrap_or_default()
        })
        .unwrap_or_else(|| vec![start.to_string(), start.to_string()]);
        let text = path.join(" -> ");
        let mut d =
            Diagnostic::error("E-DEP-CYCLE", format!("dependency cycle: {text}")).for_mod(start);
        if let Some((f, dep)) = nodes.get(start).and_then(|n| n.found).and_then(|f| {
            let next = path.get(1)?;
            Some((f, f.manifest.dependencies.iter().find(|d| &d.id == next)?))
        }) {
            if let Some(loc) = f.manifest.location_of(&dep.span) {
                d = d.at(loc).with_label("the cycle starts here");
            }
        }
        for w in path.windows(2) {
            let file = nodes
                .get(&w[0])
                .and_then(|n| n.found)
                .map(|f| f.dir.join("mod.toml").display().to_string())
                .unwrap_or_default();
            d = d.with_note(format!("`{}` requires `{}` (in `{file}`)", w[0], w[1]));
        }
        let off_path: Vec<String> = comp.iter().filter(|c| !path.contains(c)).cloned().collect();
        if !off_path.is_empty() {
            d = d.with_note(format!("also part of the cycle: {}", list(&off_path)));
        }
        diags.push(d.with_help("remove one of these dependencies, or mark it `optional = true` (optional dependencies may point both ways)"));
        for m in &comp {
            if let Some(n) = nodes.get_mut(m) {
                n.disable(
                    DisableCause::Broken,
                    format!("it is part of the dependency cycle {text}"),
                    true,
                );
            }
        }
    }
}

pub(super) fn check_breaks(nodes: &mut BTreeMap<String, Node<'_>>, diags: &mut Diagnostics) {
    let ids: Vec<String> = nodes.keys().cloned().collect();
    for id in ids {
        let Some(f) = nodes.get(&id).filter(|n| n.active()).and_then(|n| n.found) else {
            continue;
        };
        for br in &f.manifest.breaks {
            let Some(other) = nodes
                .get(&br.id)
                .filter(|n| n.active())
                .and_then(|n| n.found)
            else {
                continue;
            };
            let v = &other.manifest.version;
            if !br.req.matches(v) {
                continue;
            }
            let mut d = Diagnostic::error("E-MOD-BREAKS", format!("mods `{id}` and `{}` cannot load together: {}", br.id, br.reason))
                .for_mod(id.as_str())
                .with_note(format!("`{id}` declares that it breaks `{}` {} (installed: {v})", br.id, br.req))
                .with_note(format!("`{id}` is disabled so that `{}` and the mods that need it keep working", br.id))
                .with_help(format!(
                    "disable one of them in server.toml: `disabled = [\"{}\"]` keeps `{id}`, `disabled = [\"{id}\"]` keeps `{}`",
                    br.id, br.id
                ));
            if let Some(loc) = f.manifest.location_of(&br.span) {
                d = d.at(loc).with_label("declared here");
            }
            diags.push(d);
            if let Some(n) = nodes.get_mut(&id) {
                n.disable(
                    DisableCause::Broken,
                    format!(
                        "it breaks `{}` {v}, which is also enabled: {}",
                        br.id, br.reason
                    ),
                    true,
                );
            }
            break;
        }
    }
}

pub(super) fn check_conflicts(nodes: &BTreeMap<String, Node<'_>>, diags: &mut Diagnostics) {
    for (id, n) in nodes {
        let Some(f) = n.found.filter(|_| n.active()) else {
            continue;
        };
        for c in &f.manifest.conflicts {
            let Some(other) = nodes
                .get(&c.id)
                .filter(|n| n.active())
                .and_then(|n| n.found)
            else {
                continue;
            };
            let v = &other.manifest.version;
            if !c.req.matches(v) {
                continue;
            }
            let mut d = Diagnostic::warning(
                "W-MOD-CONFLICT",
                format!("mod `{id}` conflicts with `{}` {v}", c.id),
            )
            .for_mod(id.as_str());
            if let Some(reason) = &c.reason {
                d = d.with_note(reason.clone());
            }
            if let Some(loc) = f.manifest.location_of(&c.span) {
                d = d.at(loc).with_label("declared here");
            }
            diags.push(d.with_help(format!("both load, but may misbehave together; if they do, disable one in server.toml (`disabled = [\"{}\"]`)", c.id)));
        }
    }
}
