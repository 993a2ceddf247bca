//! The compiled definitions a generation holds: classes, auras, triggers, settle rules,
//! and where each is written.

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use crate::bus::Binding;
use crate::id::{Id, Sym};
use crate::rules::expr::Expr;
use crate::rules::registry::{Action, Condition, Deps};
use crate::rules::select::{Select, SelectMemo};
use crate::state::{Blueprint, HealthRule, Layer, Value};

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
    /// Objects with this tag are silenced: their own triggers do not run and their own
    /// auras (class and given) are off.
    pub silence_tag: Option<Sym>,
    /// Modifier layers in the order they apply (`[world] layers`).
    pub layers: Vec<Sym>,
    /// `destroyed` and `moved` events keep a snapshot of the world before the action.
    pub last_known: bool,
}

/// The layers when content declares none: one per numeric operation.
pub const DEFAULT_LAYERS: [&str; 4] = ["set", "add", "multiply", "clamp"];

impl Default for WorldConfig {
    fn default() -> Self {
        WorldConfig {
            health: HealthRule::default(),
            cascade_limit: 1000,
            silence_tag: None,
            layers: DEFAULT_LAYERS.iter().map(|l| Sym::new(l)).collect(),
            last_known: false,
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
    /// `props` and `tags` prepared once for creating its objects.
    pub blueprint: Blueprint,
    /// Its auras.
    pub auras: Vec<Arc<AuraDef>>,
    /// Its effects groups, in order (applied by their passes).
    pub effects: Vec<Arc<crate::rules::pass::EffectsGroupDef>>,
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
    /// How it combines (set, add, multiply, clamp, tag).
    pub layer: Layer,
    /// Where its layer stands in `[world] layers` (`u16::MAX`: a tag with no layer).
    pub rank: u16,
    /// Operand (clamp: minimum).
    pub value: Expr,
    /// Clamp maximum.
    pub max: Option<Expr>,
}

/// When given aura instances end: an event, filtered like a trigger's `when` (relative to
/// the instance's giver, else its holder).
#[derive(Debug)]
pub struct Until {
    /// The event.
    pub event: Id,
    /// Whose event it must be.
    pub player: PlayerFilter,
    /// A condition on the event's target.
    pub target: Option<Box<dyn Condition>>,
}

/// A compiled aura.
#[derive(Debug)]
pub struct AuraDef {
    /// Its id.
    pub id: Id,
    /// Affected objects (`None`: the holder).
    pub select: Option<Select>,
    /// How a recompute round may gather `select`'s sources once for every aura written
    /// with the same sources (`None`: it may not).
    pub sources_memo: Option<SelectMemo>,
    /// A tag every object `select` selects has ([`Select::source_tag`]), read once here:
    /// recompute asks it of every aura on every change.
    pub source_tag: Option<Sym>,
    /// Modifiers.
    pub modifiers: Vec<ModifierDef>,
    /// Whether every modifier's value (and clamp maximum) is the same for every target:
    /// none reads `target` or `root`, draws dice, or nests a selection that may read the
    /// target ([`Expr::reads_candidate`](crate::rules::expr::Expr)). Then one evaluation
    /// serves all the aura's targets.
    pub same_for_every_target: bool,
    /// Condition on the holder.
    pub while_: Option<Box<dyn Condition>>,
    /// Events that end given instances (whichever comes first; empty: none).
    pub until: Vec<Until>,
    /// Where the holder must be for the aura to be active.
    pub zones: AuraZones,
    /// The earliest layer rank of its modifiers: a silence granted to its holder in an
    /// earlier layer switches it off.
    pub first_rank: u16,
    /// What it reads.
    pub deps: Deps,
    /// Where it is written.
    pub origin: Origin,
}

/// Where an aura's holder must be for the aura to be active: its source "in play".
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
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
#[non_exhaustive]
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
    /// Judge the zones (and silence) in the event's snapshot from before the action.
    pub look_back: bool,
    /// Class or global.
    pub binding: Binding,
    /// Where it is written.
    pub origin: Origin,
}

/// A compiled replacement (or prevention) effect: a trigger on the event that would
/// happen (its `when` filters, holder zones and actions) plus what it changes.
#[derive(Debug)]
pub struct Replacement {
    /// When it applies, and what it does when it does (`do`, run before the event).
    pub trigger: Trigger,
    /// The event does not happen.
    pub cancel: bool,
    /// The amount instead (`event.amount` reads the amount proposed so far).
    pub amount: Option<crate::rules::expr::Expr>,
    /// The destination zone instead.
    pub to: Option<Sym>,
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
    /// What its selection reads, when that is all it reads (no plugin, nothing from the
    /// event, no RNG, every candidate picked): once it selects nothing, it is skipped
    /// until one of these changes. `None`: it selects after every event.
    pub quiet_deps: Option<Deps>,
}

impl Check {
    /// A rule selecting `select` and doing `actions`; works out [`Check::quiet_deps`].
    pub fn new(select: Select, actions: Vec<Box<dyn Action>>, origin: Origin) -> Check {
        let mut deps = Deps::default();
        select.deps_of_targets(&mut deps);
        let quiet_deps = (!deps.everything && !deps.scoped).then_some(deps);
        Check {
            select,
            actions,
            origin,
            quiet_deps,
        }
    }
}
