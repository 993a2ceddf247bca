//! Compiling content into a registry generation.
//!
//! Two passes over all files: first every name is declared (classes, auras, events,
//! aliases, refs) so definitions may refer to each other in any order; then every
//! definition is compiled against the registry (types resolved, parameters checked,
//! expressions parsed). Problems are collected, not stopped at, and each becomes a
//! [`Diagnostic`] pointing at the file, line and column of the offending value.
//!
//! Owns the build (parsing every file, patches, declaring names, compiling, indexing
//! triggers) and the [`Generation`] it produces. The compiled definition types are in
//! `defs`; compiling definitions (classes, triggers, auras) is in `definitions`; compiling
//! the kinds they use (selectors, conditions, actions, nodes, expressions, refs) is in
//! `kinds`; the content file it reads, parsed once and kept, is `source`'s
//! [`ContentSource`].

mod declare;
use declare::{declare, defs_stub};
mod definitions;
mod defs;
mod exprs;
mod kinds;
mod parse;
use parse::{loader_warnings, parse_ahead, parse_file, parse_tree};
mod passes;
mod play;
mod properties;
mod refs;
mod selectors;
mod source;

pub use defs::{
    AuraDef, AuraZones, Check, ClassDef, ModifierDef, Origin, PlayerFilter, Replacement, Trigger,
    Until, WorldConfig, DEFAULT_LAYERS,
};
pub use play::{DeckDef, GameDef, MoveDef};
pub use source::ContentSource;

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use serde_json::Value as Json;

use super::content::{ContentFile, RefSpec};
use super::params::PathSeg;
use super::patch::{self, OrderedAfter, Provenance};
use super::ContentError;
use crate::bus::{IndexEntry, TriggerIndex};
use crate::diag::{Diagnostic, Diagnostics, SourceText};
use crate::id::{Id, IdHash, Sym};
use crate::rules::registry::{Action, LoadInput, Node, Registry};
use source::path_hash;

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
    pub classes: HashMap<Id, Arc<ClassDef>, IdHash>,
    /// Classes with auras, in load order (what aura recompute walks).
    pub aura_classes: Vec<Id>,
    /// Where each class of `aura_classes` stands in it.
    pub aura_class_rank: HashMap<Id, usize, IdHash>,
    /// The definitions of `aura_classes`, in the same order.
    pub aura_class_defs: Vec<Arc<ClassDef>>,
    /// The zones class auras can be on in (`None`: some class aura is on in any zone),
    /// so recompute looks for holders in those zones instead of among every object of
    /// every class with an aura (cards in a library or collection hold auras too).
    pub aura_class_zones: Option<Vec<Sym>>,
    /// Triggers in load order (the index refers to them by position).
    pub triggers: Vec<Trigger>,
    /// Triggers by event.
    pub index: TriggerIndex,
    /// Replacement effects in load order (`replacement_index` refers to them).
    pub replacements: Vec<Replacement>,
    /// Replacement effects by the event they replace, in the triggers' dispatch order.
    pub replacement_index: TriggerIndex,
    /// Named and inline auras by id.
    pub auras: HashMap<Id, Arc<AuraDef>, IdHash>,
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
    /// How a match is set up and won (`[game]`), if some mod defines it.
    pub game: Option<GameDef>,
    /// What players may do (`[move.NAME]`), in load order.
    pub moves: Vec<MoveDef>,
    /// Match log lines of declared events.
    pub event_logs: HashMap<Id, String, IdHash>,
    /// The mods whose content and plugins it holds, in load order (set by mod loading).
    pub mods: Vec<String>,
    /// Warnings found while building (errors fail the build).
    pub warnings: Diagnostics,
    /// Abilities by id.
    pub abilities: crate::rules::ability::AbilityBook,
    /// Effect passes by id (`[pass.NAME]`).
    pub passes: HashMap<Id, Arc<crate::rules::pass::PassDef>, IdHash>,
    /// Classes with effects groups, in load order (what a pass walks).
    pub effects_classes: Vec<Id>,
    /// What each pass's effects groups write (see `rules::pass`).
    pub pass_writes: HashMap<Id, crate::rules::pass::PassWrites, IdHash>,
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
    /// Which translation keys each mod has, for the ability schema's rule that display
    /// names are keys present in the mod's locale (`None`: not checked).
    pub translations: Option<crate::rules::ability::Translations<'a>>,
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
        let mut diags = Diagnostics::default();
        parse_ahead(&registry, sources, parse::cores());
        let mut trees: Vec<Option<Json>> = Vec::new();
        for src in sources {
            match parse_tree(&registry, src) {
                Ok(tree) => {
                    for w in loader_warnings(src) {
                        diags.push(w);
                    }
                    trees.push(Some(tree));
                }
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
        let mut defs = declare(&registry, sources, &files, &mut diags);
        defs.properties = properties::visible(sources, &files, opts.ordered_after);
        let mut gen = Generation::empty(opts.number, &registry, &defs, provenance);
        for (i, file) in &files {
            let mut c = Compiler::new(&registry, &defs, sources, *i);
            c.file(file, &mut gen);
            crate::rules::ability::compile_file(
                &mut c,
                file.abilities.as_ref(),
                opts.translations,
                &mut gen,
            );
            let errors: Vec<ContentError> = c.errors.drain(..).collect();
            for e in errors {
                diags.push(c.diagnostic(e));
            }
            for w in c.warnings.drain(..) {
                diags.push(w);
            }
            for (id, aura) in c.auras.drain(..) {
                gen.auras.insert(id, Arc::new(aura));
            }
            gen.triggers.append(&mut c.effects);
        }
        crate::rules::ability::install(&mut gen);
        gen.index_all();
        let compiled_extras = opts
            .extras
            .iter()
            .filter_map(|extra| gen.compile_extra(extra, &trees, &defs, sources, &mut diags))
            .collect();
        if diags.has_errors() {
            return Err(diags);
        }
        gen.warnings = diags;
        gen.provenance.keep_trees(trees);
        Ok((gen, compiled_extras))
    }

    /// A generation with nothing compiled yet: the declared layers and events, the patch
    /// provenance.
    fn empty(
        number: u64,
        registry: &Arc<Registry>,
        defs: &Defs,
        provenance: Provenance,
    ) -> Generation {
        Generation {
            number,
            registry: registry.clone(),
            classes: HashMap::default(),
            aura_classes: Vec::new(),
            aura_class_rank: HashMap::default(),
            aura_class_defs: Vec::new(),
            aura_class_zones: None,
            triggers: Vec::new(),
            index: TriggerIndex::default(),
            replacements: Vec::new(),
            replacement_index: TriggerIndex::default(),
            auras: HashMap::default(),
            checks: Vec::new(),
            world: WorldConfig {
                layers: defs.layers.clone(),
                ..WorldConfig::default()
            },
            events: defs.events.clone(),
            provenance,
            aura_deps: AuraDeps::default(),
            game: None,
            moves: Vec::new(),
            event_logs: HashMap::default(),
            mods: Vec::new(),
            warnings: Diagnostics::default(),
            abilities: crate::rules::ability::AbilityBook::default(),
            passes: HashMap::default(),
            effects_classes: Vec::new(),
            pass_writes: HashMap::default(),
        }
    }

    /// Indexes what was compiled: triggers and replacements by event, aura classes, and
    /// what the auras read.
    fn index_all(&mut self) {
        for (n, t) in self.triggers.iter().enumerate() {
            self.index.add(
                t.event,
                IndexEntry {
                    trigger: u32::try_from(n).unwrap_or(u32::MAX),
                    priority: t.priority,
                    binding: t.binding,
                },
            );
        }
        self.index.finish();
        for (n, r) in self.replacements.iter().enumerate() {
            self.replacement_index.add(
                r.trigger.event,
                IndexEntry {
                    trigger: u32::try_from(n).unwrap_or(u32::MAX),
                    priority: r.trigger.priority,
                    binding: r.trigger.binding,
                },
            );
        }
        self.replacement_index.finish();
        index_aura_classes(self);
        for aura in self
            .auras
            .values()
            .chain(self.classes.values().flat_map(|c| c.auras.iter()))
        {
            self.aura_deps.everything |= aura.deps.everything;
            self.aura_deps.keys.extend(aura.deps.keys.iter().copied());
        }
        self.pass_writes = crate::rules::pass::pass_writes(self);
    }

    /// Compiles one extra action list: `None` when its source could not be read, empty
    /// when its path names nothing or it has errors (which go to `diags`).
    fn compile_extra(
        &mut self,
        extra: &ExtraActions,
        trees: &[Option<Json>],
        defs: &Defs,
        sources: &[ContentSource],
        diags: &mut Diagnostics,
    ) -> Option<Vec<Box<dyn Action>>> {
        let Some(Some(tree)) = trees.get(extra.source) else {
            return None;
        };
        let mut node = Some(tree);
        for seg in &extra.path {
            node = match (seg, node) {
                (PathSeg::Key(k), Some(Json::Object(m))) => m.get(k),
                (PathSeg::Index(i), Some(Json::Array(a))) => a.get(*i),
                _ => None,
            };
        }
        let registry = self.registry.clone();
        let mut c = Compiler::new(&registry, defs, sources, extra.source);
        let compiled = match node {
            Some(v) => match c.actions(v, &extra.path) {
                Ok(a) => a,
                Err(e) => {
                    diags.push(c.diagnostic(e));
                    Vec::new()
                }
            },
            None => Vec::new(),
        };
        for (id, aura) in c.auras.drain(..) {
            self.auras.insert(id, Arc::new(aura));
        }
        // Effects given by the extra actions listen like the others: indexed after them.
        for t in c.effects.drain(..) {
            self.index.add(
                t.event,
                IndexEntry {
                    trigger: u32::try_from(self.triggers.len()).unwrap_or(u32::MAX),
                    priority: t.priority,
                    binding: t.binding,
                },
            );
            self.triggers.push(t);
        }
        self.index.finish();
        Some(compiled)
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
            l.imp.parse(&LoadInput::text(&text), &mut |p, r| {
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

/// Names declared by pass one.
pub(crate) struct Defs {
    pub(super) aliases: HashMap<Id, (Json, usize)>,
    pub(super) refs: HashMap<Id, (RefSpec, usize)>,
    pub(super) events: HashSet<Id>,
    pub(super) classes: HashSet<Id>,
    pub(super) auras: HashSet<Id>,
    /// Declared effect passes (`[pass.NAME]`).
    pub(super) passes: HashSet<Id>,
    /// Modifier layers in order (`[world] layers` of the last file declaring them):
    /// known before any aura compiles, whichever file declares them.
    pub(super) layers: Vec<Sym>,
    /// The property keys each mod's classes may set, for mods that see a declaration
    /// (`[properties]`).
    pub(super) properties: HashMap<String, HashSet<String>>,
}

/// Compiles one file's definitions. Keys that every selector/condition/action accepts.
const SELECTOR_KEYS: &[&str] = &["where", "pick", "from", "sort"];
const ACTION_KEYS: &[&str] = &["to"];

pub(crate) struct Compiler<'c> {
    registry: &'c Registry,
    defs: &'c Defs,
    sources: &'c [ContentSource],
    file: usize,
    ns: String,
    pub(crate) errors: Vec<ContentError>,
    /// Warnings found while compiling (they do not fail the build).
    pub(crate) warnings: Vec<Diagnostic>,
    auras: Vec<(Id, AuraDef)>,
    /// Given effects compiled from `give_effect` tables (triggers bound to their id).
    effects: Vec<Trigger>,
    stack: Vec<Id>,
    inline: usize,
    /// How deeply selectors and conditions are being compiled one inside another.
    depth: usize,
    /// Names bound by the `let` of the expressions being compiled (innermost last).
    locals: Vec<(String, crate::rules::expr::Expr)>,
}

/// The longest chain of aliases or refs using one another (a longer one is an error
/// naming the chain, not a stack overflow).
pub(crate) const MAX_CHAIN: usize = 64;
/// How deeply selectors and conditions may nest (plugin kinds preparing selectors
/// included).
pub(crate) const MAX_NESTING: usize = 128;

impl Compiler<'_> {
    /// Fails when `id` would make the alias or ref chain longer than [`MAX_CHAIN`].
    pub(crate) fn check_chain(
        &self,
        id: Id,
        path: &[PathSeg],
        what: &str,
    ) -> Result<(), ContentError> {
        if self.stack.len() < MAX_CHAIN {
            return Ok(());
        }
        let first: Vec<&str> = self.stack.iter().take(3).map(|i| i.as_str()).collect();
        Err(ContentError::new(
            "E-CONTENT-DEPTH",
            path.to_vec(),
            format!(
                "{what} use each other more than {MAX_CHAIN} deep: {} -> ... -> {}",
                first.join(" -> "),
                id
            ),
        )
        .help(format!(
            "shorten the chain: at most {MAX_CHAIN} {what} may use one another in a row"
        )))
    }

    /// Runs `f` one nesting level deeper; fails past [`MAX_NESTING`].
    pub(crate) fn nested<T>(
        &mut self,
        path: &[PathSeg],
        f: impl FnOnce(&mut Self) -> Result<T, ContentError>,
    ) -> Result<T, ContentError> {
        if self.depth >= MAX_NESTING {
            return Err(ContentError::new(
                "E-CONTENT-DEPTH",
                path.to_vec(),
                format!("selectors and conditions nest more than {MAX_NESTING} deep here"),
            )
            .help("a kind that prepares a selector or condition using itself loops forever; break the loop"));
        }
        self.depth += 1;
        let r = f(self);
        self.depth -= 1;
        r
    }
}

/// Fills `aura_class_rank` and `aura_class_zones` from the classes with auras.
fn index_aura_classes(gen: &mut Generation) {
    gen.aura_class_rank = gen
        .aura_classes
        .iter()
        .enumerate()
        .map(|(i, c)| (*c, i))
        .collect();
    gen.aura_class_defs = gen
        .aura_classes
        .iter()
        .filter_map(|c| gen.classes.get(c).cloned())
        .collect();
    let mut zones: Option<Vec<Sym>> = Some(Vec::new());
    for class in &gen.aura_classes {
        let Some(def) = gen.classes.get(class) else {
            continue;
        };
        for aura in &def.auras {
            match (&aura.zones, zones.as_mut()) {
                (AuraZones::Listed(z), Some(all)) => all.extend(z.iter().copied()),
                (_, _) => zones = None,
            }
        }
    }
    if let Some(z) = zones.as_mut() {
        z.sort();
        z.dedup();
    }
    gen.aura_class_zones = zones;
}
