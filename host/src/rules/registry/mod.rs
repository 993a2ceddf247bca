//! The registry: one table per kind (action, condition, selector, event type, node type,
//! content loader), each entry keyed by [`Id`] and knowing its provider and parameter
//! schema.
//!
//! Owns the traits every provider implements — built-in Rust code now, wasm plugins and
//! native extensions later — so the engine calls all providers the same way and cannot
//! tell them apart. It does not own content (that is `rules`) or the world.

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

use indexmap::IndexMap;

use crate::id::Id;
use crate::rules::{ActCx, ContentError, Cx, Params, Pipeline, RuleError};
use crate::state::ObjId;
pub use crate::state::{Deps, ScopeReads};
pub use loader::{FileError, LoadInput, LoadWarning, LoaderKind, ModFiles};

mod loader;

/// Who implements a registry entry.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Provider {
    /// Native Rust code compiled into the host.
    BuiltIn,
    /// A WebAssembly plugin of a mod.
    Plugin {
        /// The mod.
        mod_id: String,
        /// The plugin file.
        file: String,
    },
    /// A trusted native extension of a mod.
    Native {
        /// The mod.
        mod_id: String,
        /// The library file.
        file: String,
    },
}

impl fmt::Display for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Provider::BuiltIn => f.write_str("built-in"),
            Provider::Plugin { mod_id, file } => write!(f, "wasm plugin {file} of mod `{mod_id}`"),
            Provider::Native { mod_id, file } => {
                write!(f, "native extension {file} of mod `{mod_id}`")
            }
        }
    }
}

/// The type of a parameter, checked at load.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ParamType {
    /// An expression (number, dice, reference, arithmetic).
    Expr,
    /// Text.
    Text,
    /// A bool.
    Bool,
    /// A name (zone, tag, property key).
    Name,
    /// An id of the given category (`class`, `event`, `aura`).
    Id(&'static str),
    /// An object reference (`self.owner`).
    Object,
    /// A selector.
    Selector,
    /// A condition (or a list of conditions, all of which must hold).
    Condition,
    /// A list of actions.
    Actions,
    /// An aura: a name or an inline aura table.
    Aura,
    /// A table of property values.
    Table,
    /// A list of names.
    Names,
    /// A plain number (no expression).
    Number,
    /// A list of anything.
    List,
    /// Anything.
    Any,
}

impl ParamType {
    /// How the type is described in messages and schemas.
    pub fn describe(self) -> &'static str {
        match self {
            ParamType::Expr => "a number or expression (e.g. `2`, `1d6`, `self.attack + 1`)",
            ParamType::Text => "text",
            ParamType::Bool => "`true` or `false`",
            ParamType::Name => "a name (lowercase)",
            ParamType::Id(_) => "an id (`namespace:category/name`, or short `category/name`)",
            ParamType::Object => "an object reference (e.g. `self`, `source.owner`)",
            ParamType::Selector => "a selector table (e.g. `{ type = \"core:selector/self\" }`)",
            ParamType::Condition => "a condition table, or a list of them",
            ParamType::Actions => "a list of action tables",
            ParamType::Aura => "an aura name or an inline aura table",
            ParamType::Table => "a table of property values",
            ParamType::Names => "a list of names",
            ParamType::Number => "a number",
            ParamType::List => "a list",
            ParamType::Any => "any value",
        }
    }
}

/// One parameter of a registry entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParamSpec {
    /// The key in content.
    pub name: Cow<'static, str>,
    /// Its type.
    pub ty: ParamType,
    /// Whether it must be given.
    pub required: bool,
    /// What it means.
    pub doc: Cow<'static, str>,
}

impl ParamSpec {
    /// A required parameter.
    pub const fn required(name: &'static str, ty: ParamType, doc: &'static str) -> ParamSpec {
        ParamSpec {
            name: Cow::Borrowed(name),
            ty,
            required: true,
            doc: Cow::Borrowed(doc),
        }
    }

    /// An optional parameter.
    pub const fn optional(name: &'static str, ty: ParamType, doc: &'static str) -> ParamSpec {
        ParamSpec {
            name: Cow::Borrowed(name),
            ty,
            required: false,
            doc: Cow::Borrowed(doc),
        }
    }
}

/// A prepared action: parameters checked and compiled once, run many times.
pub trait Action: Send + Sync + fmt::Debug {
    /// Runs on the targets. Every write goes through `ax.world` inside the command's
    /// transaction; an error rolls the whole command back.
    fn run(&self, ax: &mut ActCx<'_>, targets: &[ObjId]) -> Result<(), RuleError>;
    /// Whether it picks its own targets (an action with `to`) rather than acting on those
    /// it is given. Such an action still runs when a trigger's `select` finds no one;
    /// the others have no one to act on. By default, `false`.
    fn picks_own_targets(&self) -> bool {
        false
    }
}

/// A prepared condition: a predicate over (context, object).
pub trait Condition: Send + Sync + fmt::Debug {
    /// Whether `obj` passes. In expressions, `target` is `obj`.
    fn test(&self, cx: &Cx<'_>, obj: ObjId) -> Result<bool, RuleError>;
    /// Tests many objects at once, appending one answer per object to `out` (plugins
    /// answer a whole batch in one call). By default, one `test` per object.
    fn test_many(&self, cx: &Cx<'_>, objs: &[ObjId], out: &mut Vec<bool>) -> Result<(), RuleError> {
        for &o in objs {
            let scope = cx.scope.with_target(o);
            out.push(self.test(&cx.with_scope(&scope), o)?);
        }
        Ok(())
    }
    /// What it reads (default: everything — always recompute).
    fn deps(&self, d: &mut Deps) {
        d.everything = true;
    }
}

/// What a selector reads of its evaluation's scope, when that is known (see
/// [`Deps::known_scope_reads`]): which parts of the scope two evaluations must agree on
/// to select the same objects.
pub(crate) fn scope_reads_of(sel: &dyn Selector) -> Option<ScopeReads> {
    let mut d = Deps::default();
    sel.deps(&mut d);
    d.known_scope_reads()
}

/// A prepared selector: produces an ordered set of objects.
pub trait Selector: Send + Sync + fmt::Debug {
    /// Appends the selected objects to `out`, in a deterministic order.
    fn select(&self, cx: &Cx<'_>, out: &mut Vec<ObjId>) -> Result<(), RuleError>;
    /// How many objects it would select (override to avoid building the list).
    fn count(&self, cx: &Cx<'_>) -> Result<usize, RuleError> {
        let mut v = Vec::new();
        self.select(cx, &mut v)?;
        Ok(v.len())
    }
    /// What it reads (default: everything).
    fn deps(&self, d: &mut Deps) {
        d.everything = true;
    }
    /// Whether `obj` would be among the selected objects, answered for that object
    /// alone, when the selection is a plain filter over candidates in id order (no
    /// picking, no sorting). `None`: it cannot say without selecting everything (the
    /// default), so aura recompute evaluates the whole selection.
    fn contains(&self, _cx: &Cx<'_>, _obj: ObjId) -> Option<Result<bool, RuleError>> {
        None
    }
    /// A tag every selected object has (its own or granted), when the selection is one
    /// that [`Selector::contains`] can answer: a change to an object without it cannot
    /// change the selection. `None` (the default): no such tag is known.
    fn source_tag(&self) -> Option<crate::id::Sym> {
        None
    }
}

/// A prepared pipeline node (a step of an ability's `math` list).
pub trait Node: Send + Sync + fmt::Debug {
    /// Runs the step over the shared pipeline context.
    fn run(&self, ax: &mut ActCx<'_>, pipeline: &mut Pipeline) -> Result<(), RuleError>;
}

/// An action kind: turns parameters into a prepared [`Action`].
pub trait ActionKind: Send + Sync {
    /// Checks and compiles parameters (called once per use site, at load).
    fn prepare(&self, p: &mut Params<'_, '_>) -> Result<Box<dyn Action>, ContentError>;
}

/// A condition kind.
pub trait ConditionKind: Send + Sync {
    /// Checks and compiles parameters.
    fn prepare(&self, p: &mut Params<'_, '_>) -> Result<Box<dyn Condition>, ContentError>;
}

/// A selector kind.
pub trait SelectorKind: Send + Sync {
    /// Checks and compiles parameters.
    fn prepare(&self, p: &mut Params<'_, '_>) -> Result<Box<dyn Selector>, ContentError>;
}

/// A node kind.
pub trait NodeKind: Send + Sync {
    /// Checks and compiles parameters.
    fn prepare(&self, p: &mut Params<'_, '_>) -> Result<Box<dyn Node>, ContentError>;
}

/// A kind written as a closure over its parameters (how built-ins are declared).
pub struct FnKind<F>(pub F);

impl<F> ActionKind for FnKind<F>
where
    F: Fn(&mut Params<'_, '_>) -> Result<Box<dyn Action>, ContentError> + Send + Sync,
{
    fn prepare(&self, p: &mut Params<'_, '_>) -> Result<Box<dyn Action>, ContentError> {
        (self.0)(p)
    }
}

impl<F> ConditionKind for FnKind<F>
where
    F: Fn(&mut Params<'_, '_>) -> Result<Box<dyn Condition>, ContentError> + Send + Sync,
{
    fn prepare(&self, p: &mut Params<'_, '_>) -> Result<Box<dyn Condition>, ContentError> {
        (self.0)(p)
    }
}

/// A declared event type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventType {
    /// What it means.
    pub doc: String,
}

/// One registry entry.
pub struct Entry<K: ?Sized> {
    /// The id.
    pub id: Id,
    /// Who implements it.
    pub provider: Provider,
    /// Its parameters.
    pub params: Vec<ParamSpec>,
    /// What it does.
    pub doc: String,
    /// The implementation.
    pub imp: Arc<K>,
}

impl<K: ?Sized> fmt::Debug for Entry<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.id, self.provider)
    }
}

/// A registration was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RegistryError {
    /// The id is already registered in this table.
    #[error("`{id}` is already registered (by {existing}); ids are unique per kind")]
    Duplicate {
        /// The id.
        id: Id,
        /// Who registered it first.
        existing: String,
    },
    /// The id's category does not match the table.
    #[error("`{id}` is registered as a {kind} but its category is `{}`; name it `{}:{kind}/{}`", id.category(), id.namespace(), id.name())]
    WrongCategory {
        /// The id.
        id: Id,
        /// The table's kind.
        kind: &'static str,
    },
}

impl<K: ?Sized> Clone for Entry<K> {
    fn clone(&self) -> Self {
        Entry {
            id: self.id,
            provider: self.provider.clone(),
            params: self.params.clone(),
            doc: self.doc.clone(),
            imp: self.imp.clone(),
        }
    }
}

/// One kind's table.
pub struct Table<K: ?Sized> {
    kind: &'static str,
    entries: IndexMap<Id, Entry<K>>,
}

impl<K: ?Sized> Clone for Table<K> {
    fn clone(&self) -> Self {
        Table {
            kind: self.kind,
            entries: self.entries.clone(),
        }
    }
}

impl<K: ?Sized> Table<K> {
    fn new(kind: &'static str) -> Table<K> {
        Table {
            kind,
            entries: IndexMap::new(),
        }
    }

    /// Adds an entry; duplicates and ids of another category are refused.
    pub fn register(&mut self, entry: Entry<K>) -> Result<(), RegistryError> {
        if entry.id.category() != self.kind {
            return Err(RegistryError::WrongCategory {
                id: entry.id,
                kind: self.kind,
            });
        }
        if let Some(e) = self.entries.get(&entry.id) {
            return Err(RegistryError::Duplicate {
                id: entry.id,
                existing: e.provider.to_string(),
            });
        }
        self.entries.insert(entry.id, entry);
        Ok(())
    }

    /// The entry for an id.
    pub fn get(&self, id: Id) -> Option<&Entry<K>> {
        self.entries.get(&id)
    }

    /// Every entry, in registration order.
    pub fn iter(&self) -> impl Iterator<Item = &Entry<K>> + '_ {
        self.entries.values()
    }

    /// Every id, as text (for did-you-mean).
    pub fn names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.entries.keys().map(|i| i.as_str())
    }

    /// The kind this table holds (`action`, `condition`, ...).
    pub fn kind(&self) -> &'static str {
        self.kind
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether it is empty.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// All kind tables of one registry generation. Cloning is cheap (entries are shared), so
/// a load can extend the core registry with its mods' plugins.
#[derive(Clone)]
pub struct Registry {
    /// Actions.
    pub actions: Table<dyn ActionKind>,
    /// Conditions.
    pub conditions: Table<dyn ConditionKind>,
    /// Selectors.
    pub selectors: Table<dyn SelectorKind>,
    /// Event types.
    pub events: Table<EventType>,
    /// Pipeline node types.
    pub nodes: Table<dyn NodeKind>,
    /// Content loaders.
    pub loaders: Table<dyn LoaderKind>,
    /// What provides the entries beyond the host's own code: the plugins layer keeps its
    /// loaded plugins here (for state handover on reload) and lists them with
    /// `Registry::plugins`; the registry holds them opaquely, so it stays below them.
    pub(crate) providers: Vec<Arc<dyn std::any::Any + Send + Sync>>,
}

impl fmt::Debug for Registry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Registry {{ actions: {}, conditions: {}, selectors: {}, events: {}, nodes: {}, loaders: {} }}",
            self.actions.len(),
            self.conditions.len(),
            self.selectors.len(),
            self.events.len(),
            self.nodes.len(),
            self.loaders.len()
        )
    }
}

impl Registry {
    /// An empty registry (no kinds at all).
    pub fn empty() -> Registry {
        Registry {
            actions: Table::new("action"),
            conditions: Table::new("condition"),
            selectors: Table::new("selector"),
            events: Table::new("event"),
            nodes: Table::new("node"),
            loaders: Table::new("loader"),
            providers: Vec::new(),
        }
    }

    /// A registry with the built-in `core` vocabulary.
    pub fn with_core() -> Registry {
        let mut r = Registry::empty();
        crate::rules::core::register(&mut r);
        crate::rules::ability::register(&mut r);
        r
    }

    /// Registers a built-in event type.
    pub fn register_event(
        &mut self,
        id: Id,
        doc: &str,
        provider: Provider,
    ) -> Result<(), RegistryError> {
        self.events.register(Entry {
            id,
            provider,
            params: Vec::new(),
            doc: doc.to_owned(),
            imp: Arc::new(EventType {
                doc: doc.to_owned(),
            }),
        })
    }

    /// The loader for a file extension.
    pub fn loader_for(&self, ext: &str) -> Option<&Entry<dyn LoaderKind>> {
        self.loaders
            .iter()
            .find(|l| l.imp.extensions().contains(&ext))
    }
}

/// Builds a built-in entry.
pub fn builtin<K: ?Sized>(id: &str, doc: &str, params: Vec<ParamSpec>, imp: Arc<K>) -> Entry<K> {
    Entry {
        id: Id::parse(id).unwrap_or_else(|e| panic!("built-in id `{id}` is invalid: {e}")),
        provider: Provider::BuiltIn,
        params,
        doc: doc.to_owned(),
        imp,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn core_registry_has_every_kind_and_no_duplicates() {
        let r = Registry::with_core();
        for (name, n) in [
            ("action", r.actions.len()),
            ("condition", r.conditions.len()),
            ("selector", r.selectors.len()),
            ("event", r.events.len()),
            ("loader", r.loaders.len()),
        ] {
            assert!(n > 0, "no {name} entries");
        }
        for id in [
            "core:action/damage",
            "core:action/heal",
            "core:action/destroy",
            "core:action/create",
            "core:action/move",
            "core:action/set",
            "core:action/add",
            "core:action/tag",
            "core:action/untag",
            "core:action/give_aura",
            "core:action/remove_aura",
            "core:action/emit",
        ] {
            assert!(
                r.actions.get(Id::parse(id).unwrap()).is_some(),
                "{id} missing"
            );
        }
        for id in [
            "has_tag",
            "compare",
            "is_self",
            "is_source",
            "owned_by",
            "in_zone",
            "of_class",
        ] {
            let id = Id::parse(&format!("core:condition/{id}")).unwrap();
            assert!(r.conditions.get(id).is_some(), "{id} missing");
        }
        for id in ["self", "source", "target", "owner", "objects", "players"] {
            let id = Id::parse(&format!("core:selector/{id}")).unwrap();
            assert!(r.selectors.get(id).is_some(), "{id} missing");
        }
    }

    #[test]
    fn duplicates_and_wrong_categories_are_refused() {
        let mut r = Registry::with_core();
        let dup = r.register_event(
            Id::parse("core:event/damaged").unwrap(),
            "again",
            Provider::BuiltIn,
        );
        assert!(matches!(dup, Err(RegistryError::Duplicate { .. })));
        let wrong = r.register_event(
            Id::parse("core:action/boom").unwrap(),
            "x",
            Provider::BuiltIn,
        );
        let msg = wrong.unwrap_err().to_string();
        assert!(msg.contains("core:event/boom"), "{msg}");
    }
}
