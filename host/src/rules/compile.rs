//! Compiling content into a registry generation.
//!
//! Two passes over all files: first every name is declared (classes, auras, events,
//! aliases, refs) so definitions may refer to each other in any order; then every
//! definition is compiled against the registry (types resolved, parameters checked,
//! expressions parsed). Problems are collected, not stopped at, and each becomes a
//! [`Diagnostic`] pointing at the file, line and column of the offending value.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use serde_json::{Map, Value as Json};

use super::content::{AuraSpec, ClassSpec, ContentFile, RefSpec, TriggerSpec, WhenSpec};
use super::expr::{self, Expr, Names};
use super::params::{check_schema, json_type, path_string, Params, PathSeg};
use super::patch::{self, OrderedAfter, Provenance};
use super::select::{self, Pick, Select};
use super::ContentError;
use crate::bus::{Binding, IndexEntry, TriggerIndex};
use crate::diag::{Diagnostic, Diagnostics, Location, SourceText};
use crate::id::{closest, Id, Sym};
use crate::registry::{Action, Condition, Deps, Node, Registry, Selector, Table};
use crate::state::{HealthRule, Layer, Value};

/// Where a definition is written: for messages and logs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    /// The mod (namespace).
    pub mod_id: String,
    /// The file.
    pub file: PathBuf,
    /// 1-based line (0 when unknown).
    pub line: usize,
    /// What it is (`class test:class/wolf trigger[0]`).
    pub def: String,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} ({}:{}, mod `{}`)",
            self.def,
            self.file.display(),
            self.line,
            self.mod_id
        )
    }
}

/// World-wide rules taken from content `[world]`.
#[derive(Debug, Clone)]
pub struct WorldConfig {
    /// How health is derived and what a falling maximum does.
    pub health: HealthRule,
    /// Events one command may raise before it is stopped.
    pub cascade_limit: usize,
}

impl Default for WorldConfig {
    fn default() -> Self {
        WorldConfig {
            health: HealthRule::default(),
            cascade_limit: 1000,
        }
    }
}

/// A compiled object class.
#[derive(Debug)]
pub struct ClassDef {
    /// Its id.
    pub id: Id,
    /// Base properties objects start with.
    pub props: Vec<(Sym, Value)>,
    /// Tags objects start with.
    pub tags: Vec<Sym>,
    /// Its auras.
    pub auras: Vec<Arc<AuraDef>>,
    /// Display-name translation key.
    pub name: Option<String>,
    /// Description translation key.
    pub description: Option<String>,
    /// Where it is written.
    pub origin: Origin,
}

/// One compiled modifier.
#[derive(Debug)]
pub struct ModifierDef {
    /// Property.
    pub key: Sym,
    /// Layer.
    pub layer: Layer,
    /// Operand (clamp: minimum).
    pub value: Expr,
    /// Clamp maximum.
    pub max: Option<Expr>,
}

/// A compiled aura.
#[derive(Debug)]
pub struct AuraDef {
    /// Its id.
    pub id: Id,
    /// Affected objects (`None`: the holder).
    pub select: Option<Select>,
    /// Modifiers.
    pub modifiers: Vec<ModifierDef>,
    /// Condition on the holder.
    pub while_: Option<Box<dyn Condition>>,
    /// Event that ends given instances.
    pub until: Option<Id>,
    /// Where the holder must be for the aura to be active.
    pub zones: AuraZones,
    /// What it reads.
    pub deps: Deps,
    /// Where it is written.
    pub origin: Origin,
}

/// Where an aura's holder must be for the aura to be active: its source "in play".
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AuraZones {
    /// Anywhere (`zones = ["*"]`).
    Any,
    /// In one of these zones (`zones = [...]`; class auras default to `["board"]`).
    Listed(Vec<Sym>),
    /// In the zone it was in when the aura was given (the default for given auras):
    /// an aura given to a minion ends for good when the minion leaves that zone.
    WhereGiven,
}

/// `friendly`/`enemy`/`any`: the event's player relative to the holder's owner.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlayerFilter {
    /// Any player.
    Any,
    /// The holder's owner (or the holder, if it is a player).
    Friendly,
    /// Anyone else.
    Enemy,
}

/// A compiled trigger.
#[derive(Debug)]
pub struct Trigger {
    /// The event it listens to.
    pub event: Id,
    /// Player filter.
    pub player: PlayerFilter,
    /// Condition on the event's source.
    pub condition: Option<Box<dyn Condition>>,
    /// Condition on the event's target.
    pub target_condition: Option<Box<dyn Condition>>,
    /// Targets (`None`: default).
    pub select: Option<Select>,
    /// Actions.
    pub actions: Vec<Box<dyn Action>>,
    /// Higher runs first.
    pub priority: i32,
    /// Zones the holder must be in (empty: any).
    pub zones: Vec<Sym>,
    /// Class or global.
    pub binding: Binding,
    /// Where it is written.
    pub origin: Origin,
}

/// A rule checked after every event settles.
#[derive(Debug)]
pub struct Check {
    /// Objects it applies to.
    pub select: Select,
    /// What it does.
    pub actions: Vec<Box<dyn Action>>,
    /// Where it is written.
    pub origin: Origin,
}

/// One content file's text and the mod it belongs to.
#[derive(Debug, Clone)]
pub struct ContentSource {
    /// The mod id (namespace of the file's definitions).
    pub mod_id: String,
    /// The file.
    pub source: SourceText,
    /// Top-level keys that are not content and are skipped (scenario files keep their
    /// `scenario`, `object` and `step` tables beside content). Usually empty.
    pub ignore_keys: Vec<String>,
    /// Spans of every path in the file (keyed by path hash), filled when it is parsed.
    spans: Arc<OnceLock<HashMap<u64, std::ops::Range<usize>>>>,
    /// Byte offset of each line start, computed once on first use.
    lines: Arc<OnceLock<Vec<usize>>>,
}

impl ContentSource {
    /// A content file of a mod.
    pub fn new(mod_id: impl Into<String>, source: SourceText) -> ContentSource {
        ContentSource {
            mod_id: mod_id.into(),
            source,
            ignore_keys: Vec::new(),
            spans: Arc::default(),
            lines: Arc::default(),
        }
    }

    /// The 1-based line of a byte offset (binary search over line starts).
    pub fn line_of(&self, offset: usize) -> usize {
        let lines = self.lines.get_or_init(|| {
            std::iter::once(0)
                .chain(self.source.text.match_indices('\n').map(|(i, _)| i + 1))
                .collect()
        });
        lines.partition_point(|&start| start <= offset)
    }

    /// Skips top-level keys that are not content.
    pub fn ignoring(mut self, keys: &[&str]) -> ContentSource {
        self.ignore_keys = keys.iter().map(|k| (*k).to_owned()).collect();
        self
    }

    /// The byte span of a path in the file (or of its closest located ancestor); known
    /// once the file has been parsed by a build.
    pub fn locate(&self, registry: &Registry, path: &[PathSeg]) -> Option<std::ops::Range<usize>> {
        let _ = registry;
        let spans = self.spans.get()?;
        (0..=path.len())
            .rev()
            .find_map(|n| spans.get(&path_hash(&path[..n])).cloned())
    }

    /// A diagnostic location for a path.
    pub fn location(&self, registry: &Registry, path: &[PathSeg]) -> Location {
        match self.locate(registry, path) {
            Some(s) => Location::span(&self.source, s),
            None => Location::file(&self.source.path),
        }
    }
}

/// A stable 64-bit hash of a path (FNV-1a over its segments).
fn path_hash(path: &[PathSeg]) -> u64 {
    let mut h = crate::state::Fnv::new();
    for seg in path {
        match seg {
            PathSeg::Key(k) => {
                h.byte(b'k');
                h.str(k);
            }
            PathSeg::Index(i) => {
                h.byte(b'i');
                h.bytes(&(*i as u64).to_le_bytes());
            }
        }
    }
    h.finish()
}

/// A list of actions to compile along with the content (at a path in one source), for
/// embedders and scenario steps: compiled in the source's namespace, located errors.
#[derive(Debug, Clone)]
pub struct ExtraActions {
    /// Index of the source in the list given to [`Generation::build_with`].
    pub source: usize,
    /// Path of the action list in that file.
    pub path: Vec<PathSeg>,
}

/// A registry generation: the registry plus every compiled definition. Immutable; a
/// hot reload builds a new one and the world switches between two events.
#[derive(Debug)]
pub struct Generation {
    /// Sequence number (1 for the first load).
    pub number: u64,
    /// The kinds.
    pub registry: Arc<Registry>,
    /// Classes by id.
    pub classes: HashMap<Id, Arc<ClassDef>>,
    /// Classes with auras, in load order (what aura recompute walks).
    pub aura_classes: Vec<Id>,
    /// Triggers in load order (the index refers to them by position).
    pub triggers: Vec<Trigger>,
    /// Triggers by event.
    pub index: TriggerIndex,
    /// Named and inline auras by id.
    pub auras: HashMap<Id, Arc<AuraDef>>,
    /// Settle rules in load order.
    pub checks: Vec<Check>,
    /// World rules.
    pub world: WorldConfig,
    /// Every event id content may use.
    pub events: HashSet<Id>,
    /// Who defined and patched each id, and the final definitions.
    pub provenance: Provenance,
    /// The union of what every aura reads (recompute skips changes outside it).
    pub aura_deps: AuraDeps,
    /// Warnings found while building (errors fail the build).
    pub warnings: Diagnostics,
}

/// The extra action lists compiled by [`Generation::build_with`], in request order.
pub type CompiledExtras = Vec<Vec<Box<dyn Action>>>;

/// What any aura of a generation reads.
#[derive(Debug, Clone, Default)]
pub struct AuraDeps {
    /// Property keys some aura reads.
    pub keys: HashSet<Sym>,
    /// Some aura reads something untracked (a plugin): recompute on any change.
    pub everything: bool,
}

/// Options for [`Generation::build_with`].
#[derive(Default)]
pub struct BuildOptions<'a> {
    /// Generation sequence number.
    pub number: u64,
    /// Extra action lists to compile.
    pub extras: &'a [ExtraActions],
    /// Mod order, for judging patch conflicts (`None`: no two mods are ordered).
    pub ordered_after: Option<OrderedAfter<'a>>,
}

impl Generation {
    /// Compiles content files against a registry. Every problem is reported together.
    pub fn build(
        registry: Arc<Registry>,
        sources: &[ContentSource],
        number: u64,
    ) -> Result<Generation, Diagnostics> {
        let opts = BuildOptions {
            number,
            ..BuildOptions::default()
        };
        Generation::build_with(registry, sources, &opts).map(|(g, _)| g)
    }

    /// Like [`Generation::build`], with options: extra action lists to compile, and the
    /// mod order patches are judged by. Warnings land in [`Generation::warnings`].
    pub fn build_with(
        registry: Arc<Registry>,
        sources: &[ContentSource],
        opts: &BuildOptions<'_>,
    ) -> Result<(Generation, CompiledExtras), Diagnostics> {
        let number = opts.number;
        let extras = opts.extras;
        let mut diags = Diagnostics::default();
        let mut trees: Vec<Option<Json>> = Vec::new();
        for src in sources {
            match parse_tree(&registry, src) {
                Ok(tree) => trees.push(Some(tree)),
                Err(d) => {
                    diags.push(*d);
                    trees.push(None);
                }
            }
        }
        let provenance = patch::apply(
            &registry,
            sources,
            &mut trees,
            opts.ordered_after,
            &mut diags,
        );
        let mut files = Vec::new();
        for (i, src) in sources.iter().enumerate() {
            let Some(tree) = &trees[i] else { continue };
            match parse_file(&registry, src, tree) {
                Ok(f) => files.push((i, f)),
                Err(d) => diags.push(*d),
            }
        }
        let defs = declare(&registry, sources, &files, &mut diags);
        let mut gen = Generation {
            number,
            registry: registry.clone(),
            classes: HashMap::new(),
            aura_classes: Vec::new(),
            triggers: Vec::new(),
            index: TriggerIndex::default(),
            auras: HashMap::new(),
            checks: Vec::new(),
            world: WorldConfig::default(),
            events: defs.events.clone(),
            provenance,
            aura_deps: AuraDeps::default(),
            warnings: Diagnostics::default(),
        };
        for (i, file) in &files {
            let mut c = Compiler::new(&registry, &defs, sources, *i);
            c.file(file, &mut gen);
            let errors: Vec<ContentError> = c.errors.drain(..).collect();
            for e in errors {
                diags.push(c.diagnostic(e));
            }
            for (id, aura) in c.auras.drain(..) {
                gen.auras.insert(id, Arc::new(aura));
            }
        }
        for (n, t) in gen.triggers.iter().enumerate() {
            gen.index.add(
                t.event,
                IndexEntry {
                    trigger: u32::try_from(n).unwrap_or(u32::MAX),
                    priority: t.priority,
                    binding: t.binding,
                },
            );
        }
        gen.index.finish();
        for aura in gen
            .auras
            .values()
            .chain(gen.classes.values().flat_map(|c| c.auras.iter()))
        {
            gen.aura_deps.everything |= aura.deps.everything;
            gen.aura_deps.keys.extend(aura.deps.keys.iter().copied());
        }
        let mut compiled_extras = Vec::new();
        for extra in extras {
            let Some(Some(tree)) = trees.get(extra.source) else {
                continue;
            };
            let mut node = Some(tree);
            for seg in &extra.path {
                node = match (seg, node) {
                    (PathSeg::Key(k), Some(Json::Object(m))) => m.get(k),
                    (PathSeg::Index(i), Some(Json::Array(a))) => a.get(*i),
                    _ => None,
                };
            }
            let mut c = Compiler::new(&registry, &defs, sources, extra.source);
            match node {
                Some(v) => match c.actions(v, &extra.path) {
                    Ok(a) => compiled_extras.push(a),
                    Err(e) => {
                        diags.push(c.diagnostic(e));
                        compiled_extras.push(Vec::new());
                    }
                },
                None => compiled_extras.push(Vec::new()),
            }
            for (id, aura) in c.auras.drain(..) {
                gen.auras.insert(id, Arc::new(aura));
            }
        }
        if diags.has_errors() {
            return Err(diags);
        }
        gen.warnings = diags;
        gen.provenance.keep_trees(trees);
        Ok((gen, compiled_extras))
    }

    /// A class by id.
    pub fn class(&self, id: Id) -> Option<&Arc<ClassDef>> {
        self.classes.get(&id)
    }

    /// Prepares one pipeline node from its spec (`{ type = "crits:node/crit", ... }`),
    /// as a mod's content would write it, in namespace `ns`. Ability pipelines will
    /// prepare their `math` lists this way; embedders can run nodes directly.
    pub fn prepare_node(&self, ns: &str, spec: &Json) -> Result<Box<dyn Node>, Diagnostics> {
        let text = spec.to_string();
        let sources = [ContentSource::new(
            ns,
            SourceText::new("<node>", text.as_str()),
        )];
        let mut map = HashMap::new();
        let _ = self.registry.loader_for("json").map(|l| {
            l.imp.parse(&text, &mut |p, r| {
                map.insert(path_hash(p), r);
            })
        });
        let _ = sources[0].spans.set(map);
        let defs = Defs {
            events: self.events.clone(),
            ..defs_stub()
        };
        let mut c = Compiler::new(&self.registry, &defs, &sources, 0);
        c.node(spec, &[])
            .map_err(|e| Diagnostics(vec![c.diagnostic(e)]))
    }
}

fn loader_of<'r>(
    registry: &'r Registry,
    src: &ContentSource,
) -> Result<&'r crate::registry::Entry<dyn crate::registry::LoaderKind>, Box<Diagnostic>> {
    let path = &src.source.path;
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    registry.loader_for(ext).ok_or_else(|| {
        Diagnostic::error("E-CONTENT-FORMAT", format!("no content loader reads `.{ext}` files"))
            .in_file(path)
            .with_help("content files are `.toml` or `.json`, unless a mod registers a loader for another format")
            .for_mod(&src.mod_id)
            .into()
    })
}

fn parse_tree(registry: &Registry, src: &ContentSource) -> Result<Json, Box<Diagnostic>> {
    let loader = loader_of(registry, src)?;
    let mut map = HashMap::new();
    let parsed = loader.imp.parse(&src.source.text, &mut |p, r| {
        map.insert(path_hash(p), r);
    });
    let _ = src.spans.set(map);
    parsed.map_err(|(msg, span)| {
        let loc = match span {
            Some(s) => Location::span(&src.source, s),
            None => Location::file(&src.source.path),
        };
        Box::new(
            Diagnostic::error("E-CONTENT-PARSE", format!("could not parse content: {msg}"))
                .at(loc)
                .for_mod(&src.mod_id),
        )
    })
}

fn parse_file(
    registry: &Registry,
    src: &ContentSource,
    json: &Json,
) -> Result<ContentFile, Box<Diagnostic>> {
    let path = &src.source.path;
    loader_of(registry, src)?;
    let stripped;
    let content_tree = if src.ignore_keys.is_empty() {
        json
    } else {
        let mut t = json.clone();
        if let Json::Object(m) = &mut t {
            for k in &src.ignore_keys {
                m.shift_remove(k);
            }
        }
        stripped = t;
        &stripped
    };
    serde_path_to_error::deserialize::<_, ContentFile>(content_tree).map_err(|e| {
        let segs = serde_path(e.path());
        let inner = e.into_inner().to_string();
        let span = src.locate(registry, &segs);
        let mut d = Diagnostic::error(
            "E-CONTENT-SCHEMA",
            format!("{inner} (at `{}`)", path_string(&segs)),
        )
        .at(match span {
            Some(s) => Location::span(&src.source, s),
            None => Location::file(path),
        })
        .for_mod(&src.mod_id);
        if let Some(help) = unknown_field_help(&inner) {
            d = d.with_help(help);
        }
        Box::new(d)
    })
}

/// Turns serde's path into ours.
fn serde_path(p: &serde_path_to_error::Path) -> Vec<PathSeg> {
    p.iter()
        .filter_map(|s| match s {
            serde_path_to_error::Segment::Map { key }
            | serde_path_to_error::Segment::Enum { variant: key } => {
                Some(PathSeg::Key(key.clone()))
            }
            serde_path_to_error::Segment::Seq { index } => Some(PathSeg::Index(*index)),
            serde_path_to_error::Segment::Unknown => None,
        })
        .collect()
}

/// From serde's "unknown field `x`, expected one of `a`, `b`" builds a did-you-mean.
fn unknown_field_help(msg: &str) -> Option<String> {
    let rest = msg.strip_prefix("unknown field `")?;
    let (field, expected) = rest.split_once('`')?;
    let known: Vec<&str> = expected.split('`').skip(1).step_by(2).collect();
    closest(field, known.iter().copied())
        .first()
        .map(|b| format!("did you mean `{b}`?"))
}

/// Names declared by pass one.
struct Defs {
    aliases: HashMap<Id, (Json, usize)>,
    refs: HashMap<Id, (RefSpec, usize)>,
    events: HashSet<Id>,
    classes: HashSet<Id>,
    auras: HashSet<Id>,
}

fn declare(
    registry: &Registry,
    sources: &[ContentSource],
    files: &[(usize, ContentFile)],
    diags: &mut Diagnostics,
) -> Defs {
    let mut defs = Defs {
        aliases: HashMap::new(),
        refs: HashMap::new(),
        events: registry.events.iter().map(|e| e.id).collect(),
        classes: HashSet::new(),
        auras: HashSet::new(),
    };
    let mut seen: HashMap<Id, usize> = HashMap::new();
    for (i, f) in files {
        let ns = &sources[*i].mod_id;
        let mut declare_one =
            |category: &str, name: &str, table: &str, diags: &mut Diagnostics| -> Option<Id> {
                let path = [
                    PathSeg::Key(table.to_owned()),
                    PathSeg::Key(name.to_owned()),
                ];
                let id = match Id::from_parts(ns, category, name) {
                    Ok(id) => id,
                    Err(e) => {
                        let stub = defs_stub();
                        let c = Compiler::new(registry, &stub, sources, *i);
                        diags.push(c.diagnostic(ContentError::new(
                            "E-CONTENT-ID",
                            path.to_vec(),
                            format!("`{name}` is not a valid name: {e}"),
                        )));
                        return None;
                    }
                };
                if let Some(prev) = seen.insert(id, *i) {
                    let stub = defs_stub();
                    let c = Compiler::new(registry, &stub, sources, *i);
                    diags.push(
                    c.diagnostic(ContentError::new(
                        "E-CONTENT-DUPLICATE",
                        path.to_vec(),
                        format!("`{id}` is defined twice"),
                    ))
                    .with_note(format!(
                        "first defined in {}",
                        sources[prev].source.path.display()
                    ))
                    .with_help(
                        "rename one of them, or use a patch to change the other mod's definition",
                    ),
                );
                    return None;
                }
                Some(id)
            };
        for name in f.class.keys() {
            if let Some(id) = declare_one("class", name, "class", diags) {
                defs.classes.insert(id);
            }
        }
        for name in f.aura.keys() {
            if let Some(id) = declare_one("aura", name, "aura", diags) {
                defs.auras.insert(id);
            }
        }
        for name in f.event.keys() {
            if let Some(id) = declare_one("event", name, "event", diags) {
                defs.events.insert(id);
            }
        }
        for (name, v) in &f.alias {
            if let Some(id) = declare_one("alias", name, "alias", diags) {
                defs.aliases.insert(id, (v.clone(), *i));
            }
        }
        for (name, r) in &f.refs {
            if let Some(id) = declare_one("ref", name, "ref", diags) {
                defs.refs.insert(id, (r.clone(), *i));
            }
        }
    }
    defs
}

fn defs_stub() -> Defs {
    Defs {
        aliases: HashMap::new(),
        refs: HashMap::new(),
        events: HashSet::new(),
        classes: HashSet::new(),
        auras: HashSet::new(),
    }
}

/// Compiles one file's definitions. Keys that every selector/condition/action accepts.
const SELECTOR_KEYS: &[&str] = &["where", "pick", "from"];
const ACTION_KEYS: &[&str] = &["to"];

pub(crate) struct Compiler<'c> {
    registry: &'c Registry,
    defs: &'c Defs,
    sources: &'c [ContentSource],
    file: usize,
    ns: String,
    pub(crate) errors: Vec<ContentError>,
    auras: Vec<(Id, AuraDef)>,
    stack: Vec<Id>,
    inline: usize,
}

impl<'c> Compiler<'c> {
    fn new(
        registry: &'c Registry,
        defs: &'c Defs,
        sources: &'c [ContentSource],
        file: usize,
    ) -> Self {
        Compiler {
            registry,
            defs,
            sources,
            file,
            ns: sources
                .get(file)
                .map(|s| s.mod_id.clone())
                .unwrap_or_default(),
            errors: Vec::new(),
            auras: Vec::new(),
            stack: Vec::new(),
            inline: 0,
        }
    }

    pub(crate) fn namespace(&self) -> &str {
        &self.ns
    }

    fn src(&self) -> &ContentSource {
        &self.sources[self.file]
    }

    fn span(&self, path: &[PathSeg]) -> Option<std::ops::Range<usize>> {
        self.src().locate(self.registry, path)
    }

    pub(crate) fn origin(&self, path: &[PathSeg], def: String) -> Origin {
        let line = self
            .span(path)
            .map_or(0, |s| self.src().source.line_col(s.start).0);
        Origin {
            mod_id: self.ns.clone(),
            file: self.src().source.path.clone(),
            line,
            def,
        }
    }

    fn diagnostic(&self, e: ContentError) -> Diagnostic {
        let src = self.src();
        let loc = match self.span(&e.path) {
            Some(s) => Location::span(&src.source, s),
            None => Location::file(&src.source.path),
        };
        let mut d = Diagnostic::error(e.code, e.message)
            .at(loc)
            .for_mod(&src.mod_id);
        d.notes.push(format!("in `{}`", path_string(&e.path)));
        d.help = e.help;
        d
    }

    fn file(&mut self, f: &ContentFile, gen: &mut Generation) {
        if let Some(w) = &f.world {
            if let Some(d) = w.on_max_health_drop {
                gen.world.health.on_drop = d;
            }
            if let Some(l) = w.cascade_limit {
                gen.world.cascade_limit = l.max(1);
            }
        }
        for (name, spec) in &f.class {
            let path = vec![PathSeg::Key("class".into()), PathSeg::Key(name.clone())];
            if let Ok(id) = Id::from_parts(&self.ns, "class", name) {
                if let Err(e) = self.class(id, spec, &path, gen) {
                    self.errors.push(e);
                }
            }
        }
        for (name, spec) in &f.aura {
            let path = vec![PathSeg::Key("aura".into()), PathSeg::Key(name.clone())];
            if let Ok(id) = Id::from_parts(&self.ns, "aura", name) {
                match self.aura(id, spec, &path, false) {
                    Ok(a) => self.auras.push((id, a)),
                    Err(e) => self.errors.push(e),
                }
            }
        }
        for (name, spec) in &f.trigger {
            let path = vec![PathSeg::Key("trigger".into()), PathSeg::Key(name.clone())];
            let def = format!("trigger `{}:trigger/{name}`", self.ns);
            match self.trigger(spec, &path, Binding::Global, def) {
                Ok(t) => gen.triggers.push(t),
                Err(e) => self.errors.push(e),
            }
        }
        for (name, spec) in &f.rule {
            let path = vec![PathSeg::Key("rule".into()), PathSeg::Key(name.clone())];
            let r = (|| {
                let mut p = path.clone();
                p.push(PathSeg::Key("select".into()));
                let select = self.selector(&spec.select, &p)?;
                p.pop();
                p.push(PathSeg::Key("do".into()));
                let actions = self.actions(&spec.actions, &p)?;
                Ok(Check {
                    select,
                    actions,
                    origin: self.origin(&path, format!("rule `{}:rule/{name}`", self.ns)),
                })
            })();
            match r {
                Ok(c) => gen.checks.push(c),
                Err(e) => self.errors.push(e),
            }
        }
        // Aliases and refs are compiled where used; check unused ones compile too.
        for name in f.alias.keys() {
            if let Ok(id) = Id::from_parts(&self.ns, "alias", name) {
                let path = vec![PathSeg::Key("alias".into()), PathSeg::Key(name.clone())];
                if let Err(e) = self.alias_expr(id, &path) {
                    self.errors.push(e);
                }
            }
        }
    }

    fn class(
        &mut self,
        id: Id,
        spec: &ClassSpec,
        path: &[PathSeg],
        gen: &mut Generation,
    ) -> Result<(), ContentError> {
        let mut props = Vec::new();
        for (k, v) in &spec.properties {
            let mut p = path.to_vec();
            p.push(PathSeg::Key("properties".into()));
            p.push(PathSeg::Key(k.clone()));
            let value = Value::from_json(v).ok_or_else(|| {
                ContentError::new(
                    "E-CONTENT-TYPE",
                    p.clone(),
                    format!(
                        "property `{k}` must be a number, bool, text or list, found {}",
                        json_type(v)
                    ),
                )
            })?;
            props.push((Sym::new(k), value));
        }
        let mut auras = Vec::new();
        for (n, a) in spec.aura.iter().enumerate() {
            let mut p = path.to_vec();
            p.push(PathSeg::Key("aura".into()));
            p.push(PathSeg::Index(n));
            let aura_id = Id::from_parts(&self.ns, "aura", &format!("class/{}/{n}", id.name()))
                .map_err(|e| ContentError::new("E-CONTENT-ID", p.clone(), e.to_string()))?;
            let def = self.aura(aura_id, a, &p, true)?;
            auras.push(Arc::new(def));
        }
        for (n, t) in spec.trigger.iter().enumerate() {
            let mut p = path.to_vec();
            p.push(PathSeg::Key("trigger".into()));
            p.push(PathSeg::Index(n));
            match self.trigger(
                t,
                &p,
                Binding::Class(id),
                format!("class `{id}` trigger[{n}]"),
            ) {
                Ok(t) => gen.triggers.push(t),
                Err(e) => self.errors.push(e),
            }
        }
        if !auras.is_empty() {
            gen.aura_classes.push(id);
        }
        gen.classes.insert(
            id,
            Arc::new(ClassDef {
                id,
                props,
                tags: spec.tags.iter().map(|t| Sym::new(t)).collect(),
                auras,
                name: spec.name.clone(),
                description: spec.description.clone(),
                origin: self.origin(path, format!("class `{id}`")),
            }),
        );
        Ok(())
    }

    fn trigger(
        &mut self,
        spec: &TriggerSpec,
        path: &[PathSeg],
        binding: Binding,
        def: String,
    ) -> Result<Trigger, ContentError> {
        let mut p = path.to_vec();
        p.push(PathSeg::Key("when".into()));
        let (event, player, condition, target_condition) = match &spec.when {
            WhenSpec::Event(e) => (e.as_str(), None, None, None),
            WhenSpec::Full {
                event,
                player,
                condition,
                target,
            } => (
                event.as_str(),
                player.as_deref(),
                condition.as_ref(),
                target.as_ref(),
            ),
        };
        let event = self.reference(event, "event", &p)?;
        let player = match player {
            None | Some("any") => PlayerFilter::Any,
            Some("friendly") => PlayerFilter::Friendly,
            Some("enemy") => PlayerFilter::Enemy,
            Some(other) => {
                p.push(PathSeg::Key("player".into()));
                return Err(ContentError::new(
                    "E-CONTENT-PARAM",
                    p,
                    format!("`player = \"{other}\"` is not a player filter"),
                )
                .help("use `friendly`, `enemy` or `any`"));
            }
        };
        let condition = match condition {
            Some(c) => {
                p.push(PathSeg::Key("condition".into()));
                Some(self.condition(c, &p)?)
            }
            None => None,
        };
        let target_condition = match target_condition {
            Some(c) => Some(self.condition(c, &with(&with(path, "when"), "target"))?),
            None => None,
        };
        let select = match &spec.select {
            Some(s) => Some(self.selector(s, &with(path, "select"))?),
            None => None,
        };
        let actions = self.actions(&spec.actions, &with(path, "do"))?;
        Ok(Trigger {
            event,
            player,
            condition,
            target_condition,
            select,
            actions,
            priority: spec.priority,
            zones: spec.zones.iter().map(|z| Sym::new(z)).collect(),
            binding,
            origin: self.origin(path, def),
        })
    }

    fn aura(
        &mut self,
        id: Id,
        spec: &AuraSpec,
        path: &[PathSeg],
        class_aura: bool,
    ) -> Result<AuraDef, ContentError> {
        let select = match &spec.select {
            Some(s) => Some(self.selector(s, &with(path, "select"))?),
            None => None,
        };
        let mut modifiers = Vec::new();
        for (n, m) in spec.modifiers.iter().enumerate() {
            let mut p = with(path, "modifiers");
            p.push(PathSeg::Index(n));
            let layer = match m.op.as_str() {
                "set" => Layer::Set,
                "add" => Layer::Add,
                "multiply" => Layer::Multiply,
                "clamp" => Layer::Clamp,
                other => {
                    return Err(ContentError::new(
                        "E-CONTENT-PARAM",
                        with(&p, "op"),
                        format!("`op = \"{other}\"` is not a modifier operation"),
                    )
                    .help("use `set`, `add`, `multiply` or `clamp`"))
                }
            };
            let (value, max) = if layer == Layer::Clamp {
                let min = match &m.min {
                    Some(v) => self.expr(v, &with(&p, "min"))?,
                    None => Expr::lit(f64::NEG_INFINITY),
                };
                let max = match &m.max {
                    Some(v) => Some(self.expr(v, &with(&p, "max"))?),
                    None => None,
                };
                (min, max)
            } else {
                let v = m.value.as_ref().ok_or_else(|| {
                    ContentError::new(
                        "E-CONTENT-MISSING-PARAM",
                        p.clone(),
                        format!("modifier `{}` needs a `value`", m.op),
                    )
                })?;
                (self.expr(v, &with(&p, "value"))?, None)
            };
            modifiers.push(ModifierDef {
                key: Sym::new(&m.key),
                layer,
                value,
                max,
            });
        }
        let while_ = match &spec.while_ {
            Some(c) => Some(self.condition(c, &with(path, "while"))?),
            None => None,
        };
        let until = match &spec.until {
            Some(e) => Some(self.reference(e, "event", &with(path, "until"))?),
            None => None,
        };
        let zones = match &spec.zones {
            Some(z) if z.iter().any(|z| z == "*") => AuraZones::Any,
            Some(z) => AuraZones::Listed(z.iter().map(|z| Sym::new(z)).collect()),
            None if class_aura => AuraZones::Listed(vec![Sym::new("board")]),
            None => AuraZones::WhereGiven,
        };
        let mut deps = Deps {
            structural: true,
            ..Deps::default()
        };
        if let Some(s) = &select {
            s.deps(&mut deps);
        }
        if let Some(w) = &while_ {
            w.deps(&mut deps);
        }
        for m in &modifiers {
            m.value.deps(&mut deps);
            if let Some(x) = &m.max {
                x.deps(&mut deps);
            }
        }
        Ok(AuraDef {
            id,
            select,
            modifiers,
            while_,
            until,
            zones,
            deps,
            origin: self.origin(path, format!("aura `{id}`")),
        })
    }

    /// Resolves a reference to a declared id of a category; unknown ids get suggestions.
    pub(crate) fn reference(
        &mut self,
        s: &str,
        category: &'static str,
        path: &[PathSeg],
    ) -> Result<Id, ContentError> {
        let full = if s.contains(':') || s.contains('/') {
            s.to_owned()
        } else {
            format!("{category}/{s}")
        };
        let id = Id::resolve(&full, Some(&self.ns))
            .map_err(|e| ContentError::new("E-CONTENT-ID", path.to_vec(), e.to_string()))?;
        let (known, names): (bool, Vec<&'static str>) = match category {
            "class" => (
                self.defs.classes.contains(&id),
                self.defs.classes.iter().map(|i| i.as_str()).collect(),
            ),
            "event" => (
                self.defs.events.contains(&id),
                self.defs.events.iter().map(|i| i.as_str()).collect(),
            ),
            "aura" => (
                self.defs.auras.contains(&id),
                self.defs.auras.iter().map(|i| i.as_str()).collect(),
            ),
            _ => (true, Vec::new()),
        };
        // A bare event name may also mean the core event (`damaged` → `core:event/damaged`).
        if !known && category == "event" && !s.contains(':') {
            if let Ok(core) = Id::resolve(&full, Some("core")) {
                if self.defs.events.contains(&core) {
                    return Ok(core);
                }
            }
        }
        if !known {
            let mut sorted = names;
            sorted.sort_unstable();
            let mut e = ContentError::new(
                "E-CONTENT-UNKNOWN-ID",
                path.to_vec(),
                format!("unknown {category} `{id}`"),
            );
            match closest(id.as_str(), sorted.iter().copied()).first() {
                Some(b) => e = e.help(format!("did you mean `{b}`?")),
                None => e = e.help(format!("define it with `[{category}.{}]`, or check the mod that should provide it is loaded", id.name())),
            }
            return Err(e);
        }
        Ok(id)
    }

    /// Resolves a `type` against a kind table: full id, short `category/name` in this mod,
    /// or a bare name (this mod's first, then `core`'s).
    fn kind_id<K: ?Sized>(
        &self,
        table: &Table<K>,
        s: &str,
        path: &[PathSeg],
    ) -> Result<Id, ContentError> {
        let kind = table.kind();
        let candidates: Vec<String> = if s.contains(':') {
            vec![s.to_owned()]
        } else if s.contains('/') {
            vec![format!("{}:{s}", self.ns)]
        } else {
            vec![
                format!("{}:{kind}/{s}", self.ns),
                format!("core:{kind}/{s}"),
            ]
        };
        for c in &candidates {
            if let Ok(id) = Id::parse(c) {
                if table.get(id).is_some() {
                    return Ok(id);
                }
            }
        }
        let mut e = ContentError::new(
            "E-CONTENT-UNKNOWN-ID",
            with(path, "type"),
            format!("unknown {kind} `{s}`"),
        );
        let names: Vec<&str> = table.names().collect();
        let suggestions = closest(s, names.iter().copied());
        if let Some(b) = suggestions.first() {
            e = e.help(format!("did you mean `{b}`?"));
        } else {
            let mut all = names.clone();
            all.sort_unstable();
            e = e.help(format!("known {kind}s: {}", all.join(", ")));
        }
        Err(e)
    }

    /// Compiles an expression value: a number, an expression string, or `{ count = selector }`.
    pub(crate) fn expr(&mut self, v: &Json, path: &[PathSeg]) -> Result<Expr, ContentError> {
        match v {
            Json::Number(n) => Ok(Expr::lit(n.as_f64().unwrap_or(0.0))),
            Json::String(s) => {
                let mut names = CompilerNames { c: self, path, failure: None };
                let parsed = expr::parse(s, &mut names);
                // An alias or selector ref that failed keeps its own error (code, help).
                if let Some(inner) = names.failure.take() {
                    return Err(inner);
                }
                parsed.map_err(|m| ContentError::new("E-CONTENT-EXPR", path.to_vec(), m))
            }
            Json::Object(m) if m.len() == 1 && m.contains_key("count") => {
                let sel = self.selector(&m["count"], &with(path, "count"))?;
                Ok(Expr::Count(Arc::new(sel)))
            }
            other => Err(ContentError::new(
                "E-CONTENT-TYPE",
                path.to_vec(),
                format!("expected a number or expression, found {}", json_type(other)),
            )
            .help("write a number (`3`), dice (`\"1d6\"`), a reference (`\"self.attack\"`) or `{ count = <selector> }`")),
        }
    }

    fn alias_expr(&mut self, id: Id, path: &[PathSeg]) -> Result<Expr, ContentError> {
        if let Some(pos) = self.stack.iter().position(|s| *s == id) {
            let mut cycle: Vec<&str> = self.stack[pos..].iter().map(|i| i.as_str()).collect();
            cycle.push(id.as_str());
            return Err(ContentError::new(
                "E-CONTENT-CYCLE",
                path.to_vec(),
                format!(
                    "aliases refer to each other in a cycle: {}",
                    cycle.join(" -> ")
                ),
            ));
        }
        let (value, _) = self.defs.aliases.get(&id).cloned().ok_or_else(|| {
            ContentError::new(
                "E-CONTENT-UNKNOWN-ID",
                path.to_vec(),
                format!("unknown alias `{id}`"),
            )
        })?;
        self.stack.push(id);
        let r = self.expr(&value, path);
        self.stack.pop();
        r
    }

    /// Expands `{ ref = "name", arg = ... }` into its body with arguments substituted.
    fn expand_ref(
        &mut self,
        m: &Map<String, Json>,
        want: &str,
        path: &[PathSeg],
    ) -> Result<(Id, Json), ContentError> {
        let name = m.get("ref").and_then(Json::as_str).ok_or_else(|| {
            ContentError::new(
                "E-CONTENT-TYPE",
                with(path, "ref"),
                "`ref` must be the name of a `[ref.NAME]`",
            )
        })?;
        let full = if name.contains(':') || name.contains('/') {
            name.to_owned()
        } else {
            format!("ref/{name}")
        };
        let id = Id::resolve(&full, Some(&self.ns))
            .map_err(|e| ContentError::new("E-CONTENT-ID", with(path, "ref"), e.to_string()))?;
        let Some((spec, _)) = self.defs.refs.get(&id) else {
            let names: Vec<&str> = self.defs.refs.keys().map(|i| i.as_str()).collect();
            let mut e = ContentError::new(
                "E-CONTENT-UNKNOWN-ID",
                with(path, "ref"),
                format!("unknown ref `{id}`"),
            );
            if let Some(b) = closest(id.as_str(), names).first() {
                e = e.help(format!("did you mean `{b}`?"));
            }
            return Err(e);
        };
        if let Some(pos) = self.stack.iter().position(|s| *s == id) {
            let mut cycle: Vec<&str> = self.stack[pos..].iter().map(|i| i.as_str()).collect();
            cycle.push(id.as_str());
            return Err(ContentError::new(
                "E-CONTENT-CYCLE",
                path.to_vec(),
                format!("refs use each other in a cycle: {}", cycle.join(" -> ")),
            )
            .help("a ref may not (even indirectly) use itself"));
        }
        let body = match want {
            "action" => spec.action.as_ref(),
            "condition" => spec.condition.as_ref(),
            _ => spec.selector.as_ref(),
        }
        .ok_or_else(|| {
            ContentError::new(
                "E-CONTENT-TYPE",
                with(path, "ref"),
                format!("ref `{id}` has no `{want}` body, but it is used as a {want}"),
            )
        })?;
        for k in m.keys().filter(|k| *k != "ref") {
            if !spec.params.iter().any(|p| p == k) {
                return Err(ContentError::new(
                    "E-CONTENT-UNKNOWN-PARAM",
                    with(path, k),
                    format!("ref `{id}` has no parameter `{k}`"),
                )
                .help(format!("its parameters are: {}", spec.params.join(", "))));
            }
        }
        for p in &spec.params {
            if !m.contains_key(p) {
                return Err(ContentError::new(
                    "E-CONTENT-MISSING-PARAM",
                    path.to_vec(),
                    format!("ref `{id}` needs the argument `{p}`"),
                ));
            }
        }
        Ok((id, substitute(body, m)))
    }

    fn with_ref<T>(
        &mut self,
        id: Id,
        f: impl FnOnce(&mut Self) -> Result<T, ContentError>,
    ) -> Result<T, ContentError> {
        self.stack.push(id);
        let ns = std::mem::replace(&mut self.ns, id.namespace().to_owned());
        let r = f(self);
        self.ns = ns;
        self.stack.pop();
        r
    }

    /// Compiles a selector: a string (`"self"`), a table, or a list (union of sources).
    pub(crate) fn selector(&mut self, v: &Json, path: &[PathSeg]) -> Result<Select, ContentError> {
        match v {
            Json::String(s) => {
                let mut m = Map::new();
                m.insert("type".into(), Json::String(s.clone()));
                self.selector_table(&m, path)
            }
            Json::Array(items) => {
                let mut sources: Vec<Box<dyn Selector>> = Vec::new();
                for (i, item) in items.iter().enumerate() {
                    let mut p = path.to_vec();
                    p.push(PathSeg::Index(i));
                    sources.push(Box::new(self.selector(item, &p)?));
                }
                Ok(Select {
                    sources,
                    filters: Vec::new(),
                    pick: Pick::All,
                })
            }
            Json::Object(m) => self.selector_table(m, path),
            other => Err(ContentError::new(
                "E-CONTENT-TYPE",
                path.to_vec(),
                format!("expected a selector, found {}", json_type(other)),
            )
            .help("write a selector as `{ type = \"core:selector/objects\", ... }` or `\"self\"`")),
        }
    }

    fn selector_table(
        &mut self,
        m: &Map<String, Json>,
        path: &[PathSeg],
    ) -> Result<Select, ContentError> {
        if m.contains_key("ref") {
            let (id, body) = self.expand_ref(m, "selector", path)?;
            return self.with_ref(id, |c| c.selector(&body, path));
        }
        let mut sources: Vec<Box<dyn Selector>> = Vec::new();
        if let Some(t) = m.get("type") {
            let t = t.as_str().ok_or_else(|| {
                ContentError::new(
                    "E-CONTENT-TYPE",
                    with(path, "type"),
                    "`type` must be a selector id",
                )
            })?;
            let id = self.kind_id(&self.registry.selectors, t, path)?;
            let entry = self.registry.selectors.get(id).ok_or_else(|| {
                ContentError::new(
                    "E-CONTENT-UNKNOWN-ID",
                    with(path, "type"),
                    format!("unknown selector `{id}`"),
                )
            })?;
            check_schema(id, &entry.params, m, path, SELECTOR_KEYS)?;
            let imp = entry.imp.clone();
            let mut p = Params {
                map: m,
                path: path.to_vec(),
                compiler: self,
                entry: id,
            };
            sources.push(imp.prepare(&mut p)?);
        }
        if let Some(from) = m.get("from") {
            let items = from
                .as_array()
                .cloned()
                .unwrap_or_else(|| vec![from.clone()]);
            for (i, item) in items.iter().enumerate() {
                let mut p = with(path, "from");
                p.push(PathSeg::Index(i));
                sources.push(Box::new(self.selector(item, &p)?));
            }
        }
        if sources.is_empty() {
            return Err(ContentError::new(
                "E-CONTENT-MISSING-PARAM",
                path.to_vec(),
                "a selector needs a `type` (or `from = [...]`)",
            )
            .help("for example `{ type = \"core:selector/objects\", zone = \"board\" }`"));
        }
        if m.get("type").is_none() {
            if let Ok(union) = Id::parse("core:selector/union") {
                check_schema(union, &[], m, path, SELECTOR_KEYS)?;
            }
        }
        let filters = match m.get("where") {
            Some(w) => vec![self.condition(w, &with(path, "where"))?],
            None => Vec::new(),
        };
        let pick = match m.get("pick") {
            None => Pick::All,
            Some(p) => self.pick(p, &with(path, "pick"))?,
        };
        Ok(Select {
            sources,
            filters,
            pick,
        })
    }

    fn pick(&mut self, v: &Json, path: &[PathSeg]) -> Result<Pick, ContentError> {
        let bad = || {
            ContentError::new("E-CONTENT-PARAM", path.to_vec(), "unknown picker")
                .help("use `\"all\"`, `\"random\"`, `{ random = N }`, `{ first = N }`, `\"chosen\"` or `{ chosen = N, prompt = \"...\" }`")
        };
        match v {
            Json::String(s) => match s.as_str() {
                "all" => Ok(Pick::All),
                "random" => Ok(Pick::Random(Expr::lit(1.0))),
                "chosen" => Ok(Pick::Chosen {
                    count: Expr::lit(1.0),
                    prompt: "choose a target".into(),
                }),
                _ => Err(bad()),
            },
            Json::Object(m) => {
                if let Some(n) = m.get("random") {
                    return Ok(Pick::Random(self.expr(n, &with(path, "random"))?));
                }
                if let Some(n) = m.get("first") {
                    return Ok(Pick::First(self.expr(n, &with(path, "first"))?));
                }
                if let Some(n) = m.get("chosen") {
                    let prompt = m
                        .get("prompt")
                        .and_then(Json::as_str)
                        .unwrap_or("choose a target")
                        .to_owned();
                    return Ok(Pick::Chosen {
                        count: self.expr(n, &with(path, "chosen"))?,
                        prompt,
                    });
                }
                Err(bad())
            }
            _ => Err(bad()),
        }
    }

    /// Compiles a condition: a table, a list (all must hold), `all`/`any`/`not`, or a ref.
    pub(crate) fn condition(
        &mut self,
        v: &Json,
        path: &[PathSeg],
    ) -> Result<Box<dyn Condition>, ContentError> {
        match v {
            Json::Array(items) => {
                let mut all = Vec::new();
                for (i, item) in items.iter().enumerate() {
                    let mut p = path.to_vec();
                    p.push(PathSeg::Index(i));
                    all.push(self.condition(item, &p)?);
                }
                Ok(Box::new(select::All(all)))
            }
            Json::String(s) => {
                let mut m = Map::new();
                m.insert("type".into(), Json::String(s.clone()));
                self.condition(&Json::Object(m), path)
            }
            Json::Object(m) => {
                if let Some(items) = m.get("all") {
                    return self.condition(items, &with(path, "all"));
                }
                if let Some(items) = m.get("any") {
                    let list = items.as_array().ok_or_else(|| {
                        ContentError::new(
                            "E-CONTENT-TYPE",
                            with(path, "any"),
                            "`any` takes a list of conditions",
                        )
                    })?;
                    let mut any = Vec::new();
                    for (i, item) in list.iter().enumerate() {
                        let mut p = with(path, "any");
                        p.push(PathSeg::Index(i));
                        any.push(self.condition(item, &p)?);
                    }
                    return Ok(Box::new(select::Any(any)));
                }
                if let Some(inner) = m.get("not") {
                    return Ok(Box::new(select::Not(
                        self.condition(inner, &with(path, "not"))?,
                    )));
                }
                if m.contains_key("ref") {
                    let (id, body) = self.expand_ref(m, "condition", path)?;
                    return self.with_ref(id, |c| c.condition(&body, path));
                }
                let t = m.get("type").and_then(Json::as_str).ok_or_else(|| {
                    ContentError::new(
                        "E-CONTENT-MISSING-PARAM",
                        path.to_vec(),
                        "a condition needs a `type` (or `all`, `any`, `not`, `ref`)",
                    )
                })?;
                let id = self.kind_id(&self.registry.conditions, t, path)?;
                let entry = self.registry.conditions.get(id).ok_or_else(|| {
                    ContentError::new(
                        "E-CONTENT-UNKNOWN-ID",
                        with(path, "type"),
                        format!("unknown condition `{id}`"),
                    )
                })?;
                check_schema(id, &entry.params, m, path, &[])?;
                let imp = entry.imp.clone();
                let mut p = Params {
                    map: m,
                    path: path.to_vec(),
                    compiler: self,
                    entry: id,
                };
                imp.prepare(&mut p)
            }
            other => Err(ContentError::new(
                "E-CONTENT-TYPE",
                path.to_vec(),
                format!("expected a condition, found {}", json_type(other)),
            )),
        }
    }

    /// Compiles a list of actions (a single table counts as a list of one).
    pub(crate) fn actions(
        &mut self,
        v: &Json,
        path: &[PathSeg],
    ) -> Result<Vec<Box<dyn Action>>, ContentError> {
        let items: Vec<(Vec<PathSeg>, &Json)> = match v {
            Json::Array(items) => items
                .iter()
                .enumerate()
                .map(|(i, it)| {
                    let mut p = path.to_vec();
                    p.push(PathSeg::Index(i));
                    (p, it)
                })
                .collect(),
            Json::Object(_) => vec![(path.to_vec(), v)],
            other => {
                return Err(ContentError::new(
                    "E-CONTENT-TYPE",
                    path.to_vec(),
                    format!("expected a list of actions, found {}", json_type(other)),
                )
                .help("write `do = [{ type = \"core:action/damage\", amount = 1 }]`"))
            }
        };
        let mut out = Vec::new();
        for (p, item) in items {
            let Json::Object(m) = item else {
                return Err(ContentError::new(
                    "E-CONTENT-TYPE",
                    p,
                    format!("expected an action table, found {}", json_type(item)),
                ));
            };
            if m.contains_key("ref") {
                let (id, body) = self.expand_ref(m, "action", &p)?;
                let mut expanded = self.with_ref(id, |c| c.actions(&body, &p))?;
                out.append(&mut expanded);
                continue;
            }
            let t = m.get("type").and_then(Json::as_str).ok_or_else(|| {
                ContentError::new(
                    "E-CONTENT-MISSING-PARAM",
                    p.clone(),
                    "an action needs a `type` (or a `ref`)",
                )
                .help("for example `{ type = \"core:action/damage\", amount = 2 }`")
            })?;
            let id = self.kind_id(&self.registry.actions, t, &p)?;
            let entry = self.registry.actions.get(id).ok_or_else(|| {
                ContentError::new(
                    "E-CONTENT-UNKNOWN-ID",
                    with(&p, "type"),
                    format!("unknown action `{id}`"),
                )
            })?;
            check_schema(id, &entry.params, m, &p, ACTION_KEYS)?;
            let imp = entry.imp.clone();
            let to = match m.get("to") {
                Some(s) => Some(self.selector(s, &with(&p, "to"))?),
                None => None,
            };
            let mut params = Params {
                map: m,
                path: p.clone(),
                compiler: self,
                entry: id,
            };
            let action = imp.prepare(&mut params)?;
            let origin = self.origin(&p, format!("action `{id}`"));
            out.push(Box::new(Located { action, to, origin }) as Box<dyn Action>);
        }
        Ok(out)
    }

    /// Compiles one node: a table with a `type` naming a registered node type.
    pub(crate) fn node(
        &mut self,
        v: &Json,
        path: &[PathSeg],
    ) -> Result<Box<dyn Node>, ContentError> {
        let Json::Object(m) = v else {
            return Err(ContentError::new(
                "E-CONTENT-TYPE",
                path.to_vec(),
                format!("expected a node table, found {}", json_type(v)),
            ));
        };
        let t = m.get("type").and_then(Json::as_str).ok_or_else(|| {
            ContentError::new(
                "E-CONTENT-MISSING-PARAM",
                path.to_vec(),
                "a node needs a `type`",
            )
        })?;
        let id = self.kind_id(&self.registry.nodes, t, path)?;
        let entry = self.registry.nodes.get(id).ok_or_else(|| {
            ContentError::new(
                "E-CONTENT-UNKNOWN-ID",
                with(path, "type"),
                format!("unknown node `{id}`"),
            )
        })?;
        check_schema(id, &entry.params, m, path, &[])?;
        let imp = entry.imp.clone();
        let mut p = Params {
            map: m,
            path: path.to_vec(),
            compiler: self,
            entry: id,
        };
        imp.prepare(&mut p)
    }

    /// An aura parameter: a name or an inline table.
    pub(crate) fn aura_param(&mut self, v: &Json, path: &[PathSeg]) -> Result<Id, ContentError> {
        match v {
            Json::String(s) => self.reference(s, "aura", path),
            Json::Object(_) => {
                let spec: AuraSpec = serde_json::from_value(v.clone()).map_err(|e| {
                    ContentError::new(
                        "E-CONTENT-SCHEMA",
                        path.to_vec(),
                        format!("inline aura: {e}"),
                    )
                })?;
                self.inline += 1;
                let line = self.origin(path, String::new()).line;
                let id = Id::from_parts(
                    &self.ns,
                    "aura",
                    &format!("inline/{}/{line}-{}", self.file, self.inline),
                )
                .map_err(|e| ContentError::new("E-CONTENT-ID", path.to_vec(), e.to_string()))?;
                let def = self.aura(id, &spec, path, false)?;
                self.auras.push((id, def));
                Ok(id)
            }
            other => Err(ContentError::new(
                "E-CONTENT-TYPE",
                path.to_vec(),
                format!("expected an aura name or table, found {}", json_type(other)),
            )),
        }
    }
}

/// An action with its optional `to` override and its origin (for error context).
#[derive(Debug)]
struct Located {
    action: Box<dyn Action>,
    to: Option<Select>,
    origin: Origin,
}

impl Action for Located {
    fn run(
        &self,
        ax: &mut super::ActCx<'_>,
        targets: &[crate::state::ObjId],
    ) -> Result<(), super::RuleError> {
        let _span =
            tracing::trace_span!("action", def = %self.origin.def, mod_id = %self.origin.mod_id)
                .entered();
        let r = match &self.to {
            Some(sel) => {
                let mut own = Vec::new();
                sel.select(&ax.cx(), &mut own)
                    .and_then(|()| self.action.run(ax, &own))
            }
            None => self.action.run(ax, targets),
        };
        r.map_err(|e| match e {
            e @ super::RuleError::In { .. } => e,
            e => e.context(&self.origin),
        })
    }
}

fn with(path: &[PathSeg], key: &str) -> Vec<PathSeg> {
    let mut p = path.to_vec();
    p.push(PathSeg::Key(key.to_owned()));
    p
}

/// Replaces `$name` in a ref body with the arguments: a whole-string `"$name"` becomes
/// the argument value; `$name` inside text is replaced by the argument's text.
fn substitute(body: &Json, args: &Map<String, Json>) -> Json {
    match body {
        Json::String(s) => {
            if let Some(name) = s.strip_prefix('$') {
                if let Some(v) = args.get(name) {
                    return v.clone();
                }
            }
            let mut out = s.clone();
            for (k, v) in args {
                let text = match v {
                    Json::String(t) => t.clone(),
                    other => other.to_string(),
                };
                out = out.replace(&format!("${k}"), &format!("({text})"));
            }
            Json::String(out)
        }
        Json::Array(a) => Json::Array(a.iter().map(|x| substitute(x, args)).collect()),
        Json::Object(m) => Json::Object(
            m.iter()
                .map(|(k, v)| (k.clone(), substitute(v, args)))
                .collect(),
        ),
        other => other.clone(),
    }
}

struct CompilerNames<'a, 'c> {
    c: &'a mut Compiler<'c>,
    path: &'a [PathSeg],
    /// The first alias or selector error, reported as it is rather than as text.
    failure: Option<ContentError>,
}

impl Names for CompilerNames<'_, '_> {
    fn alias(&mut self, name: &str) -> Result<Option<Expr>, String> {
        let Ok(id) = Id::from_parts(&self.c.ns, "alias", name) else {
            return Ok(None);
        };
        if !self.c.defs.aliases.contains_key(&id) {
            return Ok(None);
        }
        self.c.alias_expr(id, self.path).map(Some).map_err(|e| {
            let msg = e.message.clone();
            self.failure.get_or_insert(e);
            msg
        })
    }

    fn selector(&mut self, name: &str) -> Result<Arc<dyn Selector>, String> {
        let mut m = Map::new();
        m.insert("ref".into(), Json::String(name.to_owned()));
        self.c
            .selector(&Json::Object(m), self.path)
            .map(|s| Arc::new(s) as Arc<dyn Selector>)
            .map_err(|e| {
                let msg = e.message.clone();
                self.failure.get_or_insert(e);
                msg
            })
    }
}
