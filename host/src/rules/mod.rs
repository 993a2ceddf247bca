//! The content model (definitions), the expression language and the effect engine.
//!
//! Owns how content becomes runnable rules: the content schema (`content`), compiling it
//! against the registry into a [`Generation`] (`compile`), the expression language
//! (`expr`), selectors with filters and pickers (`select`), aura recompute (`aura`) and
//! the built-in `core` vocabulary (`core`). It reads no files itself: text comes in
//! from loaders, and the world is only touched through contexts handed in by `game`.

pub mod ability;
pub mod aura;
pub(crate) mod compile;
pub mod content;
pub(crate) mod core;
pub mod expr;
mod fault;
mod params;
pub mod pass;
pub(crate) mod patch;
pub mod registry;
pub(crate) mod replace;
pub mod select;
mod trigger;

use std::cell::RefCell;
use std::fmt;
use std::sync::Arc;

/// The shared context of an ability pipeline (owned by [`crate::rules::ability`]).
pub use ability::Pipeline;
pub use compile::{
    AuraDef, AuraDeps, AuraZones, BuildOptions, Check, ClassDef, CompiledExtras, ContentSource,
    DeckDef, ExtraActions, GameDef, Generation, ModifierDef, MoveDef, Origin, PlayerFilter,
    Replacement, Trigger, Until, WorldConfig, DEFAULT_LAYERS,
};
pub use fault::{PluginFault, PluginFaultKind, Quarantine};
pub use params::{LabelledActions, Params, PathSeg};

use crate::bus::{CascadeError, Event, EventQueue};
use crate::controller::{Controller, ControllerError};
use crate::state::{ObjId, StateError, World};

/// Who is who while a rule runs.
#[derive(Debug, Clone, Default)]
pub struct Scope {
    /// The object holding the trigger or aura (`self`).
    pub this: Option<ObjId>,
    /// The event's source (`source`).
    pub source: Option<ObjId>,
    /// The event's target, or the object under test in a condition (`target`).
    pub target: Option<ObjId>,
    /// The event's player (`player`).
    pub player: Option<ObjId>,
    /// The event being handled.
    pub event: Option<Arc<Event>>,
    /// The running value of the property an effect is setting (`value` in expressions;
    /// see `rules::pass`).
    pub value: Option<f64>,
    /// The object that gave the effect being run (`giver`; a given effect only).
    pub giver: Option<ObjId>,
    /// The object under test of the outermost condition being evaluated (`root`, FOCS's
    /// `RootCandidate`): the first [`Scope::with_target`] sets it, nested conditions
    /// (`number`'s `of`, `contains`' `what`) keep it while they rebind `target`.
    pub root: Option<ObjId>,
    /// The object an effect pass's effect is setting a property of (`effect_target`):
    /// `target` while the effect's value is evaluated, and still that object inside the
    /// value's nested selections, where `target` is each candidate.
    pub effect_target: Option<ObjId>,
}

impl Scope {
    /// The scope of a trigger on `this` handling `event`.
    pub fn for_event(this: Option<ObjId>, event: &Arc<Event>) -> Scope {
        Scope {
            this,
            source: event.source,
            target: event.target,
            player: event.player,
            event: Some(event.clone()),
            value: None,
            giver: None,
            root: None,
            effect_target: None,
        }
    }

    /// The same scope with `target` replaced (conditions test their object as `target`).
    pub fn with_target(&self, target: ObjId) -> Scope {
        Scope {
            target: Some(target),
            root: self.root.or(Some(target)),
            ..self.clone()
        }
    }
}

/// A world's sandbox state as the rules carry it: the plugins layer keeps its runtime
/// (instances, fault records) behind this and its kinds take it back by type
/// (`plugins::Runtime::of`). The rules pass it along without looking inside, so they
/// stay below the sandbox that calls them.
pub type Sandbox = dyn std::any::Any;

/// Read-only evaluation context: conditions, selectors, expressions.
#[derive(Clone, Copy)]
pub struct Cx<'a> {
    /// The world.
    pub world: &'a World,
    /// The rules generation.
    pub gen: &'a Generation,
    /// Who is who.
    pub scope: &'a Scope,
    /// Who answers choices (absent while recomputing auras: `chosen` is refused there).
    pub controller: Option<&'a RefCell<Box<dyn Controller>>>,
    /// This world's plugin instances.
    pub rt: &'a Sandbox,
}

impl<'a> Cx<'a> {
    /// The same context with another scope.
    pub fn with_scope<'b>(&self, scope: &'b Scope) -> Cx<'b>
    where
        'a: 'b,
    {
        Cx {
            world: self.world,
            gen: self.gen,
            scope,
            controller: self.controller,
            rt: self.rt,
        }
    }
}

/// Mutable context for actions: the world inside the command's transaction, the event
/// queue, and the controller.
pub struct ActCx<'a> {
    /// The world (every write is part of the current transaction).
    pub world: &'a mut World,
    /// The rules generation.
    pub gen: &'a Generation,
    /// Who is who.
    pub scope: Scope,
    /// Where raised events go.
    pub queue: &'a mut EventQueue,
    /// Who answers choices.
    pub controller: &'a RefCell<Box<dyn Controller>>,
    /// This world's plugin instances.
    pub rt: &'a Sandbox,
}

impl ActCx<'_> {
    /// A read-only view of this context.
    pub fn cx(&self) -> Cx<'_> {
        Cx {
            world: self.world,
            gen: self.gen,
            scope: &self.scope,
            controller: Some(self.controller),
            rt: self.rt,
        }
    }

    /// Raises an event (queued after those already waiting).
    pub fn raise(&mut self, event: Event) {
        self.queue.raise(event);
    }

    /// Raises an event only if some trigger listens to it (for high-volume events such
    /// as `property_changed`).
    pub fn raise_if_listened(&mut self, event: Event) {
        if !self.gen.index.listeners(event.id).is_empty() {
            self.queue.raise(event);
        }
    }
}

/// Asks the controller to make `request` and checks the answer: distinct options that
/// exist, between `min` and `max` of them.
pub(crate) fn ask(
    ax: &ActCx<'_>,
    request: &crate::controller::Choice,
) -> Result<Vec<usize>, RuleError> {
    let prompt = &request.prompt;
    let picked = ax
        .controller
        .try_borrow_mut()
        .map_err(|_| RuleError::Choice(ControllerError::Busy))?
        .choose(ax.world, request)
        .map_err(RuleError::Choice)?;
    let mut seen = picked.clone();
    seen.sort_unstable();
    seen.dedup();
    if seen.len() != picked.len() || picked.iter().any(|&i| i >= request.len()) {
        return Err(RuleError::Choice(ControllerError::Invalid(format!(
            "`{prompt}`: the answer {picked:?} repeats an option or names one that does not exist"
        ))));
    }
    if picked.len() < request.min || picked.len() > request.max {
        return Err(RuleError::Choice(ControllerError::Invalid(format!(
            "`{prompt}` needs {} to {} choice(s), the controller gave {}",
            request.min,
            request.max,
            picked.len()
        ))));
    }
    Ok(picked)
}

/// Draws at random for a rule: the controller's scripted outcome if it has one (tests fix
/// every random draw this way), else the world's seeded RNG. Returns an index among the
/// labels of [`RandomDraw::OneOf`], or the number of [`RandomDraw::Number`]. With no
/// controller here (auras recomputing) or a busy one, the RNG draws.
pub(crate) fn random_draw(
    cx: &Cx<'_>,
    draw: &crate::controller::RandomDraw<'_>,
) -> Result<i64, RuleError> {
    use crate::controller::RandomDraw;
    let scripted = cx
        .controller
        .and_then(|c| c.try_borrow_mut().ok())
        .and_then(|mut c| c.random_draw(cx.world, draw));
    if let Some(answer) = scripted {
        return answer
            .and_then(|a| draw.check(a))
            .map_err(RuleError::Choice);
    }
    Ok(match draw {
        RandomDraw::OneOf(labels) => cx
            .world
            .random_range(0, i64::try_from(labels.len()).unwrap_or(i64::MAX) - 1),
        RandomDraw::Number { lo, hi } => cx.world.random_range(*lo, *hi),
    })
}

/// Advances the scheduler one tick inside a command: raises `core:event/tick`, then the
/// delayed events that fall due, in the order they were scheduled (`Game::tick`, and the
/// `advance_tick` action of a turn-based game that counts its turns in ticks).
pub(crate) fn advance_tick(ax: &mut ActCx<'_>) -> Result<(), RuleError> {
    static TICK: std::sync::OnceLock<crate::id::Id> = std::sync::OnceLock::new();
    let tick_event = *TICK.get_or_init(|| {
        crate::id::Id::parse("core:event/tick").unwrap_or_else(|e| panic!("core event id: {e}"))
    });
    ax.world.tick += 1;
    let now = ax.world.tick;
    let now_i = i64::try_from(now).unwrap_or(i64::MAX);
    ax.raise(Event::new(tick_event).amount(now_i));
    while let Some((due, seq)) = ax.world.scheduled.get_min().map(|(k, _)| *k) {
        if due > now {
            break;
        }
        if let Some(e) = ax.world.scheduled.remove(&(due, seq)) {
            ax.raise(e);
        }
    }
    Ok(())
}

/// A rule failed while running. The command rolls back; nothing is half-applied.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum RuleError {
    /// An expression divided by zero.
    #[error("division by zero in `{0}`")]
    DivideByZero(String),
    /// An expression's result is not a finite number (a root of a negative number, an
    /// overflow).
    #[error("`{0}` gives no finite number")]
    NotFinite(String),
    /// A reference named no object in this scope.
    #[error("`{0}` names no object here")]
    NoObject(String),
    /// A world operation failed.
    #[error(transparent)]
    State(#[from] StateError),
    /// An event cascade ran away.
    #[error(transparent)]
    Cascade(#[from] CascadeError),
    /// A choice could not be made: the controller's error, or the engine's check of its
    /// answer.
    #[error("choice failed: {0}")]
    Choice(ControllerError),
    /// An action refused to run.
    #[error("{0}")]
    Failed(String),
    /// A plugin call failed: which plugin, where, and what kind of fault (boxed: a rule
    /// error stays small on the paths that never see one).
    #[error(transparent)]
    Plugin(Box<PluginFault>),
    /// The host reached a state it believes impossible: a bug in Tessera, not in the
    /// content or a mod.
    #[error("internal error: {0}; this is a bug in Tessera, please report it at {ISSUES}")]
    Internal(String),
    /// Context: which definition was running, and where it is written.
    #[error("{what}: {source}")]
    In {
        /// The definition and its file:line.
        what: String,
        /// The underlying error.
        source: Box<RuleError>,
    },
}

impl From<PluginFault> for RuleError {
    fn from(fault: PluginFault) -> RuleError {
        RuleError::Plugin(Box::new(fault))
    }
}

/// Where to report a bug in Tessera (named by internal errors): the issues of the
/// repository the workspace's `Cargo.toml` names.
pub const ISSUES: &str = concat!(env!("CARGO_PKG_REPOSITORY"), "/issues");

impl RuleError {
    /// An internal error: the host reached a state it believes impossible.
    pub fn internal(what: impl fmt::Display) -> RuleError {
        RuleError::Internal(what.to_string())
    }

    /// The plugin fault at the root of this error, if a plugin call failed.
    pub fn plugin_fault(&self) -> Option<&PluginFault> {
        match self.root() {
            RuleError::Plugin(f) => Some(f),
            _ => None,
        }
    }

    /// Wraps the error with what was running.
    pub fn context(self, what: impl fmt::Display) -> RuleError {
        RuleError::In {
            what: what.to_string(),
            source: Box::new(self),
        }
    }

    /// The innermost error.
    pub fn root(&self) -> &RuleError {
        match self {
            RuleError::In { source, .. } => source.root(),
            other => other,
        }
    }
}

/// A content problem found while compiling: where (a path into the file) and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContentError {
    /// Path to the offending value.
    pub path: Vec<PathSeg>,
    /// What is wrong.
    pub message: String,
    /// How to fix it.
    pub help: Vec<String>,
    /// Stable code.
    pub code: &'static str,
}

impl ContentError {
    /// A new error at a path.
    pub fn new(code: &'static str, path: Vec<PathSeg>, message: impl Into<String>) -> ContentError {
        ContentError {
            path,
            message: message.into(),
            help: Vec::new(),
            code,
        }
    }

    /// Adds a `help:` line.
    pub fn help(mut self, h: impl Into<String>) -> ContentError {
        self.help.push(h.into());
        self
    }
}

impl fmt::Display for ContentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} (at `{}`)",
            self.message,
            params::path_string(&self.path)
        )
    }
}

#[cfg(test)]
mod issues_tests {
    /// Internal errors name where to report them: the workspace's repository must be set
    /// (an empty `repository` would make the address `/issues`).
    #[test]
    fn internal_errors_name_the_repository_issues() {
        assert!(super::ISSUES.starts_with("https://"), "{}", super::ISSUES);
        assert!(super::ISSUES.ends_with("/issues"));
        let e = super::RuleError::Internal("x".into()).to_string();
        assert!(e.contains(super::ISSUES), "{e}");
    }
}
