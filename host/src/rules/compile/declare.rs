//! Declaring ids before anything compiles: every file's classes, auras, events, aliases,
//! refs, moves and content-defined kinds (`[action.X]`, `[condition.X]`, `[selector.X]`)
//! become known ids, so definitions may use each other in any order; duplicates are errors.

use std::collections::{HashMap, HashSet};

use crate::diag::{Diagnostic, Diagnostics};
use crate::id::Id;
use crate::rules::content::{ContentFile, RefSpec};
use crate::rules::params::PathSeg;
use crate::rules::registry::Registry;
use crate::rules::ContentError;

use super::{Compiler, ContentSource, Defs};

pub(super) fn declare(
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
        passes: HashSet::new(),
        layers: declared_layers(files),
        properties: HashMap::new(),
    };
    let mut declarer = Declarer {
        registry,
        sources,
        seen: HashMap::new(),
    };
    for (i, f) in files {
        declarer.file(*i, f, &mut defs, diags);
    }
    defs
}

/// Declares ids file by file, remembering where each was first declared.
struct Declarer<'a> {
    registry: &'a Registry,
    sources: &'a [ContentSource],
    seen: HashMap<Id, usize>,
}

impl Declarer<'_> {
    /// Declares everything file `i` defines.
    fn file(&mut self, i: usize, f: &ContentFile, defs: &mut Defs, diags: &mut Diagnostics) {
        for name in f.class.keys() {
            if let Some(id) = self.one(i, "class", name, diags) {
                defs.classes.insert(id);
            }
        }
        for name in f.aura.keys() {
            if let Some(id) = self.one(i, "aura", name, diags) {
                defs.auras.insert(id);
            }
        }
        for name in f.pass.keys() {
            if let Some(id) = self.one(i, "pass", name, diags) {
                defs.passes.insert(id);
            }
        }
        for name in f.event.keys() {
            if let Some(id) = self.one(i, "event", name, diags) {
                defs.events.insert(id);
            }
        }
        for (name, v) in &f.alias {
            if let Some(id) = self.one(i, "alias", name, diags) {
                defs.aliases.insert(id, (v.clone(), i));
            }
        }
        for (name, r) in &f.refs {
            if let Some(id) = self.one(i, "ref", name, diags) {
                defs.refs.insert(id, (r.clone(), i));
            }
        }
        for name in f.moves.keys() {
            self.one(i, "move", name, diags);
        }
        self.kinds(i, f, defs, diags);
    }

    /// Content-defined kinds (`[action.X]`, `[condition.X]`, `[selector.X]`): refs
    /// declared under their kind's category.
    fn kinds(&mut self, i: usize, f: &ContentFile, defs: &mut Defs, diags: &mut Diagnostics) {
        let kinds = [
            ("action", &f.action),
            ("condition", &f.condition),
            ("selector", &f.selector),
        ];
        for (kind, table) in kinds {
            for (name, k) in table {
                let Some(id) = self.one(i, kind, name, diags) else {
                    continue;
                };
                let body = match kind {
                    "action" => k.actions.clone(),
                    "condition" => k.condition.clone(),
                    _ => k.select.clone(),
                };
                let Some(body) = body else {
                    let key = match kind {
                        "action" => "do",
                        "condition" => "condition",
                        _ => "select",
                    };
                    diags.push(
                        self.diagnostic(
                            i,
                            ContentError::new(
                                "E-CONTENT-MISSING-PARAM",
                                vec![PathSeg::Key(kind.to_owned()), PathSeg::Key(name.clone())],
                                format!("`[{kind}.{name}]` has no body"),
                            )
                            .help(format!("write what it does under `{key} = ...`")),
                        ),
                    );
                    continue;
                };
                let spec = RefSpec {
                    params: k.params.clone(),
                    defaults: k.defaults.clone(),
                    action: (kind == "action").then(|| body.clone()),
                    condition: (kind == "condition").then(|| body.clone()),
                    selector: (kind == "selector").then_some(body),
                };
                defs.refs.insert(id, (spec, i));
            }
        }
    }

    /// Declares `[category.name]` of file `i`: its id, or `None` (reported) when the name
    /// is not valid or the id is already declared.
    fn one(&mut self, i: usize, category: &str, name: &str, diags: &mut Diagnostics) -> Option<Id> {
        let path = [
            PathSeg::Key(category.to_owned()),
            PathSeg::Key(name.to_owned()),
        ];
        let ns = &self.sources[i].mod_id;
        let id = match Id::from_parts(ns, category, name) {
            Ok(id) => id,
            Err(e) => {
                diags.push(self.diagnostic(
                    i,
                    ContentError::new(
                        "E-CONTENT-ID",
                        path.to_vec(),
                        format!("`{name}` is not a valid name: {e}"),
                    ),
                ));
                return None;
            }
        };
        if let Some(prev) = self.seen.insert(id, i) {
            diags.push(
                self.diagnostic(
                    i,
                    ContentError::new(
                        "E-CONTENT-DUPLICATE",
                        path.to_vec(),
                        format!("`{id}` is defined twice"),
                    ),
                )
                .with_note(format!(
                    "first defined in {}",
                    self.sources[prev].source.path.display()
                ))
                .with_help(
                    "rename one of them, or use a patch to change the other mod's definition",
                ),
            );
            return None;
        }
        Some(id)
    }

    /// A problem in file `i`, located in it.
    fn diagnostic(&self, i: usize, e: ContentError) -> Diagnostic {
        let stub = defs_stub();
        let c = Compiler::new(self.registry, &stub, self.sources, i);
        c.diagnostic(e)
    }
}

pub(super) fn defs_stub() -> Defs {
    Defs {
        aliases: HashMap::new(),
        refs: HashMap::new(),
        events: HashSet::new(),
        classes: HashSet::new(),
        auras: HashSet::new(),
        passes: HashSet::new(),
        layers: declared_layers(&[]),
        properties: HashMap::new(),
    }
}

/// The modifier layers: `[world] layers` of the last file that declares them, else the
/// default (one per numeric operation).
fn declared_layers(files: &[(usize, ContentFile)]) -> Vec<crate::id::Sym> {
    let declared = files
        .iter()
        .rev()
        .find_map(|(_, f)| f.world.as_ref().and_then(|w| w.layers.as_ref()));
    match declared {
        Some(l) => l.iter().map(|n| crate::id::Sym::new(n)).collect(),
        None => super::DEFAULT_LAYERS
            .iter()
            .map(|n| crate::id::Sym::new(n))
            .collect(),
    }
}
