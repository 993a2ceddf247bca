//! Resolution: deciding which mods load, in which order, and why the others do not.
//!
//! Owns checking the whole mod set at once — duplicate ids, the platform API, missing
//! dependencies, version mismatches and conflicts, required-dependency cycles, `breaks`,
//! `conflicts`, and the operator's `enabled`/`disabled` lists — and reporting *every*
//! problem together, each with a `help:` fix. A broken mod is disabled together with the
//! mods that require it (transitively); every other mod still loads.
//!
//! # Load order
//!
//! Dependencies (required, and optional ones that are present) load first; then
//! `[load] after/before` hints apply; ties go to the smallest mod id. Concretely: a
//! topological sort that always takes the smallest id among the mods whose predecessors
//! have all loaded. Cycles of soft edges (optional dependencies, hints) are broken by
//! loading the mod whose pending edges are weakest, then the smallest id, with a warning.
//! The result does not depend on the order mods were discovered in.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use semver::Version;

use super::checks::{
    check_api, check_breaks, check_conflicts, check_cycles, check_dependencies, propagate,
};
use super::discovery::{Discovery, FoundMod};
use super::manifest::Manifest;
use super::order::{Graph, Strength};
use super::server::ServerConfig;
use crate::diag::{Diagnostic, Diagnostics, Severity};
use crate::id::closest;

/// A mod that loads, in load order.
#[derive(Debug, Clone)]
pub struct ResolvedMod {
    /// The mod id.
    pub id: String,
    /// Its version.
    pub version: Version,
    /// Its folder.
    pub dir: PathBuf,
    /// Its manifest.
    pub manifest: Manifest,
    /// Why it is enabled.
    pub enabled_because: EnabledBecause,
    /// Loaded mods that require it, sorted.
    pub required_by: Vec<String>,
    /// Loaded mods that optionally use it, sorted.
    pub optional_for: Vec<String>,
}

/// Why a mod is enabled (for `tessera mods`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum EnabledBecause {
    /// `server.toml` has no `enabled` list, so every discovered mod is enabled.
    Default,
    /// Listed in `enabled` in `server.toml`.
    EnabledInServer,
    /// Not listed, but required by these enabled mods.
    RequiredBy(Vec<String>),
}

/// What kind of thing disabled a mod.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum DisableCause {
    /// Listed in `disabled` in `server.toml`.
    Operator,
    /// `server.toml` has an `enabled` list that neither names it nor needs it.
    NotEnabled,
    /// A problem with the mod itself (manifest, API, dependencies, cycle, breaks, duplicate).
    Broken,
    /// It requires a mod that is disabled.
    Dependency,
}

/// A mod that does not load, and every reason why.
#[derive(Debug, Clone)]
pub struct DisabledMod {
    /// The mod id.
    pub id: String,
    /// Its version, when its manifest was readable.
    pub version: Option<Version>,
    /// Its folders (more than one for a duplicate id).
    pub dirs: Vec<PathBuf>,
    /// The first thing that disabled it.
    pub cause: DisableCause,
    /// Every reason, as sentences (`disabled because it depends on ...`).
    pub reasons: Vec<String>,
}

/// The outcome of [`resolve`].
#[derive(Debug, Clone, Default)]
pub struct Resolution {
    /// Mods that load, in load order.
    pub order: Vec<ResolvedMod>,
    /// Mods that do not load, by id.
    pub disabled: Vec<DisabledMod>,
    /// Every problem resolution found (discovery's own are in [`Discovery::diagnostics`]).
    pub diagnostics: Diagnostics,
}

impl Resolution {
    /// The loaded mod with this id.
    pub fn get(&self, id: &str) -> Option<&ResolvedMod> {
        self.order.iter().find(|m| m.id == id)
    }

    /// The disabled mod with this id.
    pub fn get_disabled(&self, id: &str) -> Option<&DisabledMod> {
        self.disabled.iter().find(|m| m.id == id)
    }

    /// The ids in load order.
    pub fn ids(&self) -> Vec<&str> {
        self.order.iter().map(|m| m.id.as_str()).collect()
    }

    /// A plain-text summary for operators: the load order with versions and why each mod
    /// is enabled, then every disabled mod with its reasons.
    pub fn summary(&self) -> String {
        let by_default = self
            .order
            .iter()
            .any(|m| m.enabled_because == EnabledBecause::Default);
        let n = self.order.len();
        let mut out = format!(
            "{n} {} in this order{}:\n",
            plural(n, "mod loads,", "mods load,"),
            if by_default {
                " (server.toml has no `enabled` list, so every discovered mod is enabled)"
            } else {
                ""
            }
        );
        for (i, m) in self.order.iter().enumerate() {
            let why = self.explain(&m.id).unwrap_or_default();
            let why = why.split_once(": ").map_or(why.as_str(), |(_, w)| w);
            // Said once in the heading, not on every line.
            let why = why
                .strip_prefix(DEFAULT_REASON)
                .map_or(why, |w| w.trim_start_matches("; "));
            let why = if why.is_empty() {
                String::new()
            } else {
                format!(" ({why})")
            };
            out.push_str(&format!("  {:>3}. {} {}{why}\n", i + 1, m.id, m.version));
        }
        if !self.disabled.is_empty() {
            let n = self.disabled.len();
            out.push_str(&format!(
                "{n} {} disabled:\n",
                plural(n, "mod is", "mods are")
            ));
            for d in &self.disabled {
                let v = d
                    .version
                    .as_ref()
                    .map(|v| format!(" {v}"))
                    .unwrap_or_default();
                out.push_str(&format!("  {}{v}: {}\n", d.id, d.reasons.join("; ")));
            }
        }
        out
    }

    /// One line saying why `id` is enabled or disabled, for `tessera mods`;
    /// `None` for a mod resolution never saw.
    pub fn explain(&self, id: &str) -> Option<String> {
        if let Some(m) = self.get(id) {
            let mut why = match &m.enabled_because {
                EnabledBecause::Default => DEFAULT_REASON.to_string(),
                EnabledBecause::EnabledInServer => "enabled in server.toml".to_string(),
                EnabledBecause::RequiredBy(by) => format!("required by {}", list(by)),
            };
            if !m.required_by.is_empty()
                && !matches!(m.enabled_because, EnabledBecause::RequiredBy(_))
            {
                why.push_str(&format!("; required by {}", list(&m.required_by)));
            }
            if !m.optional_for.is_empty() {
                why.push_str(&format!("; optional for {}", list(&m.optional_for)));
            }
            return Some(format!("`{id}` {}: {why}", m.version));
        }
        let d = self.get_disabled(id)?;
        Some(format!("`{id}` is disabled: {}", d.reasons.join("; ")))
    }
}

/// Why a mod is enabled when server.toml has no `enabled` list.
const DEFAULT_REASON: &str = "enabled by default (server.toml has no `enabled` list)";

/// `one` when `n` is 1, else `many`.
fn plural<'a>(n: usize, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 {
        one
    } else {
        many
    }
}

pub(super) fn list(ids: &[String]) -> String {
    ids.iter()
        .map(|i| format!("`{i}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Per-id working state.
pub(super) struct Node<'a> {
    pub(super) found: Option<&'a FoundMod>,
    pub(super) dirs: Vec<PathBuf>,
    pub(super) cause: Option<DisableCause>,
    pub(super) reasons: Vec<String>,
    /// For cascades: the mod at the root of the chain and its reason.
    pub(super) root: Option<(String, String)>,
    /// The disabling came from an error (not the operator's choice).
    pub(super) by_error: bool,
}

impl Node<'_> {
    pub(super) fn active(&self) -> bool {
        self.cause.is_none() && self.found.is_some()
    }

    pub(super) fn disable(&mut self, cause: DisableCause, reason: String, by_error: bool) {
        if self.cause.is_none() {
            self.cause = Some(cause);
            self.by_error = by_error;
        }
        self.reasons.push(reason);
    }
}

/// Resolves the discovered mods against the host's API version and the operator's
/// selection. Reports every problem at once; never fails as a whole.
pub fn resolve(
    discovery: &Discovery,
    api_version: &Version,
    server: Option<&ServerConfig>,
) -> Resolution {
    let mut diags = Diagnostics::default();
    let mut nodes = nodes_of(discovery, &mut diags);
    let enabled_in_server = apply_server(&mut nodes, server, &mut diags);
    check_api(&mut nodes, api_version, &mut diags);
    check_dependencies(&mut nodes, &mut diags);
    propagate(&mut nodes, &mut diags);
    check_cycles(&mut nodes, &mut diags);
    propagate(&mut nodes, &mut diags);
    check_breaks(&mut nodes, &mut diags);
    propagate(&mut nodes, &mut diags);
    check_conflicts(&nodes, &mut diags);
    let order = load_order(&nodes, &enabled_in_server, &mut diags);
    let disabled = nodes
        .iter()
        .filter_map(|(id, n)| {
            Some(DisabledMod {
                id: id.clone(),
                version: n.found.map(|f| f.manifest.version.clone()),
                dirs: n.dirs.clone(),
                cause: n
                    .cause
                    .or_else(|| n.found.is_none().then_some(DisableCause::Broken))?,
                reasons: n.reasons.clone(),
            })
        })
        .collect();
    Resolution {
        order,
        disabled,
        diagnostics: diags,
    }
}

/// One node per mod id found (readable or not); duplicate ids and broken manifests are
/// disabled, as `Broken`.
fn nodes_of<'d>(discovery: &'d Discovery, diags: &mut Diagnostics) -> BTreeMap<String, Node<'d>> {
    let mut nodes: BTreeMap<String, Node<'_>> = BTreeMap::new();
    let blank = || Node {
        found: None,
        dirs: Vec::new(),
        cause: None,
        reasons: Vec::new(),
        root: None,
        by_error: false,
    };
    let mut copies: Copies<'_> = BTreeMap::new();
    for m in &discovery.mods {
        copies
            .entry(&m.manifest.id)
            .or_default()
            .push((m.dir.clone(), Some(&m.manifest.version)));
        let n = nodes.entry(m.manifest.id.clone()).or_insert_with(blank);
        n.found = Some(m);
        n.dirs.push(m.dir.clone());
    }
    for b in &discovery.broken {
        let Some(id) = &b.id else { continue };
        copies.entry(id).or_default().push((b.dir.clone(), None));
        let n = nodes.entry(id.clone()).or_insert_with(blank);
        n.dirs.push(b.dir.clone());
    }
    disable_duplicates(&mut nodes, &copies, diags);
    for b in &discovery.broken {
        if let Some(n) = b.id.as_ref().and_then(|id| nodes.get_mut(id)) {
            if n.cause.is_none() {
                n.disable(
                    DisableCause::Broken,
                    format!(
                        "its manifest `{}` has errors",
                        b.dir.join("mod.toml").display()
                    ),
                    true,
                );
            }
        }
    }
    nodes
}

/// Every folder found for each mod id, with its version when the manifest was readable.
type Copies<'d> = BTreeMap<&'d str, Vec<(PathBuf, Option<&'d Version>)>>;

/// Duplicate ids: neither copy loads, since picking one silently may pick the wrong one.
fn disable_duplicates(
    nodes: &mut BTreeMap<String, Node<'_>>,
    copies: &Copies<'_>,
    diags: &mut Diagnostics,
) {
    for (id, cs) in copies {
        if cs.len() < 2 {
            continue;
        }
        let paths: Vec<String> = cs
            .iter()
            .map(|(p, _)| format!("`{}`", p.display()))
            .collect();
        let mut d = Diagnostic::error(
            "E-MOD-DUPLICATE",
            format!("two mods use the id `{id}`: {}", paths.join(" and ")),
        )
        .for_mod(*id);
        for (p, v) in cs {
            let v = v.map_or("an unreadable manifest".to_string(), |v| {
                format!("version {v}")
            });
            d = d.with_note(format!("`{id}` found in `{}` ({v})", p.display()));
        }
        diags.push(d.with_help(format!("remove or rename one of the folders; each mod id is a namespace and must be unique (neither copy of `{id}` loads until then)")));
        if let Some(n) = nodes.get_mut(*id) {
            n.disable(
                DisableCause::Broken,
                format!("two mods use the id `{id}` ({})", paths.join(", ")),
                true,
            );
        }
    }
}

/// Applies `disabled` then `enabled` from server.toml; returns the ids listed in `enabled`.
fn apply_server(
    nodes: &mut BTreeMap<String, Node<'_>>,
    server: Option<&ServerConfig>,
    diags: &mut Diagnostics,
) -> BTreeSet<String> {
    let Some(cfg) = server else {
        return BTreeSet::new();
    };
    let known: Vec<String> = nodes.keys().cloned().collect();
    let unknown = |id: &str, in_enabled: bool, index: usize| {
        let list_name = if in_enabled { "enabled" } else { "disabled" };
        let mut d = if in_enabled {
            Diagnostic::error(
                "E-SERVER-UNKNOWN-MOD",
                format!("`enabled` in server.toml names `{id}`, but no such mod was found"),
            )
        } else {
            Diagnostic::warning(
                "W-SERVER-UNKNOWN-MOD",
                format!("`disabled` in server.toml names `{id}`, but no such mod was found"),
            )
        };
        if let Some(loc) = cfg.entry_location(in_enabled, index) {
            d = d.at(loc).with_label("unknown mod");
        }
        match closest(id, known.iter().map(String::as_str)).first() {
            Some(best) => d.with_help(format!("did you mean `{best}`?")),
            None => d.with_help(format!(
                "install the mod into one of the mod folders, or remove it from `{list_name}`"
            )),
        }
    };
    for (i, id) in cfg.disabled.iter().enumerate() {
        match nodes.get_mut(id) {
            Some(n) => n.disable(
                DisableCause::Operator,
                "disabled in server.toml".into(),
                false,
            ),
            None => diags.push(unknown(id, false, i)),
        }
    }
    let listed: BTreeSet<String> = cfg.enabled.iter().cloned().collect();
    if listed.is_empty() {
        return listed;
    }
    for (i, id) in cfg.enabled.iter().enumerate() {
        if !nodes.contains_key(id) {
            diags.push(unknown(id, true, i));
        }
    }
    // Closure over required dependencies.
    let mut keep: BTreeSet<String> = BTreeSet::new();
    let mut stack: Vec<String> = listed
        .iter()
        .filter(|id| nodes.contains_key(*id))
        .cloned()
        .collect();
    while let Some(id) = stack.pop() {
        if !keep.insert(id.clone()) {
            continue;
        }
        if let Some(f) = nodes.get(&id).and_then(|n| n.found) {
            for d in f.manifest.dependencies.iter().filter(|d| !d.optional) {
                if nodes.contains_key(&d.id) && !keep.contains(&d.id) {
                    stack.push(d.id.clone());
                }
            }
        }
    }
    for (id, n) in nodes.iter_mut() {
        if !keep.contains(id) && n.cause.is_none() {
            n.disable(
                DisableCause::NotEnabled,
                "not listed in `enabled` in server.toml, and no enabled mod requires it".into(),
                false,
            );
        }
    }
    listed
}

fn load_order(
    nodes: &BTreeMap<String, Node<'_>>,
    enabled_in_server: &BTreeSet<String>,
    diags: &mut Diagnostics,
) -> Vec<ResolvedMod> {
    let active: BTreeMap<&str, &FoundMod> = nodes
        .iter()
        .filter(|(_, n)| n.active())
        .filter_map(|(id, n)| Some((id.as_str(), n.found?)))
        .collect();
    let mut g = Graph::default();
    let mut required_by: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    let mut optional_for: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for id in active.keys() {
        g.node(id);
    }
    for (id, f) in &active {
        for dep in &f.manifest.dependencies {
            let Some(t) = active.get(dep.id.as_str()) else {
                continue;
            };
            if dep.optional {
                if dep.req.matches(&t.manifest.version) {
                    g.edge(&dep.id, id, Strength::Optional);
                    optional_for
                        .entry(t.manifest.id.as_str())
                        .or_default()
                        .insert(id);
                }
            } else {
                g.edge(&dep.id, id, Strength::Required);
                required_by
                    .entry(t.manifest.id.as_str())
                    .or_default()
                    .insert(id);
            }
        }
        for a in &f.manifest.load.after {
            g.edge(a, id, Strength::Hint);
        }
        for b in &f.manifest.load.before {
            g.edge(id, b, Strength::Hint);
        }
    }
    let (order, broken) = g.sort();
    for b in broken {
        let text = b.path.join(" -> ");
        let d = match b.strength {
            Strength::Optional | Strength::Required => Diagnostic::warning(
                "W-DEP-OPTIONAL-CYCLE",
                format!("optional dependencies form a cycle: {text}"),
            )
            .with_note(format!(
                "`{}` loads first (the smallest id), so it loads without the others' content",
                b.loaded_first
            ))
            .with_help("remove one of the optional dependencies to choose the order yourself"),
            Strength::Hint => Diagnostic::warning(
                "W-LOAD-CYCLE",
                format!("load order hints form a cycle: {text}"),
            )
            .with_note(format!(
                "`{}` loads first (the smallest id); the hints that point back to it are ignored",
                b.loaded_first
            ))
            .with_help("remove one of the `[load] after`/`before` entries"),
        };
        diags.push(d.for_mod(b.loaded_first.as_str()));
    }
    order
        .into_iter()
        .filter_map(|id| {
            let f = active.get(id.as_str())?;
            let req: Vec<String> = required_by
                .get(id.as_str())
                .map(|s| s.iter().map(|x| x.to_string()).collect())
                .unwrap_or_default();
            let enabled_because = if enabled_in_server.is_empty() {
                EnabledBecause::Default
            } else if enabled_in_server.contains(&id) {
                EnabledBecause::EnabledInServer
            } else {
                EnabledBecause::RequiredBy(req.clone())
            };
            Some(ResolvedMod {
                version: f.manifest.version.clone(),
                dir: f.dir.clone(),
                manifest: f.manifest.clone(),
                enabled_because,
                required_by: req,
                optional_for: optional_for
                    .get(id.as_str())
                    .map(|s| s.iter().map(|x| x.to_string()).collect())
                    .unwrap_or_default(),
                id,
            })
        })
        .collect()
}

/// Severity helper for callers that only want errors.
impl Resolution {
    /// Whether any diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.diagnostics
            .0
            .iter()
            .any(|d| d.severity == Severity::Error)
    }
}
