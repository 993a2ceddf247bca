//! The scenario file format (serde types).

use indexmap::IndexMap;
use serde::Deserialize;
use serde_json::Value as Json;

/// A whole scenario file. Content tables (`class`, `aura`, ...) sit beside these and
/// are read by the content compiler, so they are not listed here.
#[derive(Debug, Clone, Deserialize)]
pub struct ScenarioFile {
    /// `[scenario]`.
    pub scenario: ScenarioHeader,
    /// `[[object]]`: named objects set up before the steps (no events raised).
    #[serde(default)]
    pub object: Vec<ObjectSpec>,
    /// `[[step]]`: commands and assertions, in order.
    #[serde(default)]
    pub step: Vec<StepSpec>,
}

/// `[scenario]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioHeader {
    /// What it checks.
    pub name: Option<String>,
    /// The world's RNG seed (default 0).
    #[serde(default)]
    pub seed: u64,
    /// Namespace of the inline content (default `test`).
    pub namespace: Option<String>,
    /// More content files to load, relative to this file.
    #[serde(default)]
    pub content: Vec<String>,
}

/// `[[object]]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ObjectSpec {
    /// The name steps use for it.
    pub name: String,
    /// Its class (short names resolve in the scenario's namespace).
    pub class: String,
    /// Its zone (default `board`).
    pub zone: Option<String>,
    /// Name of its owner (an object defined earlier).
    pub owner: Option<String>,
    /// Name of its parent (an object defined earlier).
    pub parent: Option<String>,
    /// Base properties beyond the class's.
    #[serde(default)]
    pub properties: IndexMap<String, Json>,
    /// Tags beyond the class's.
    #[serde(default)]
    pub tags: Vec<String>,
}

/// `emit = { event, source, target, player, amount }`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EmitSpec {
    /// The event id (bare names: the scenario's namespace, then `core`).
    pub event: String,
    /// Source object name.
    pub source: Option<String>,
    /// Target object name.
    pub target: Option<String>,
    /// Player object name.
    pub player: Option<String>,
    /// Amount.
    #[serde(default)]
    pub amount: i64,
}

/// `play = { move, player, subject, target }`: a move as a player would make it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlaySpec {
    /// The move (`attack`, or `arena:move/attack`; bare names: the scenario's namespace).
    #[serde(rename = "move")]
    pub id: String,
    /// The player making it (default: the subject's owner, or the subject if it is a player).
    pub player: Option<String>,
    /// What acts.
    pub subject: String,
    /// What it acts on.
    pub target: Option<String>,
}

/// `[[step]]`: one command (`emit`, `do`, `tick` or `play`) and what must be true after.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StepSpec {
    /// What the step does, for failure messages.
    pub name: Option<String>,
    /// Raise an event.
    pub emit: Option<EmitSpec>,
    /// Run actions as one command (`self` and `targets` name objects).
    #[serde(rename = "do")]
    pub actions: Option<Json>,
    /// Holder (`self`) for `do`.
    #[serde(rename = "self")]
    pub this: Option<String>,
    /// Targets for `do`.
    #[serde(default)]
    pub targets: Vec<String>,
    /// Advance the scheduler this many ticks.
    pub tick: Option<u32>,
    /// Play a move (`[move.NAME]` of the game's rules), if it is legal now.
    pub play: Option<PlaySpec>,
    /// Scripted answers for choices in this step: each a list of object names.
    #[serde(default)]
    pub answers: Vec<Vec<String>>,
    /// Names for objects created during the step, in creation order.
    #[serde(default)]
    pub name_created: Vec<String>,
    /// `"name.property" = value` (numbers — an unset property is 0, as in expressions —
    /// or `zone`/`owner`/`class`/`exists`/`tags`/`no_tags`).
    #[serde(default)]
    pub expect: IndexMap<String, Json>,
    /// Objects per zone: `{ board = 3 }`.
    #[serde(default)]
    pub expect_count: IndexMap<String, usize>,
    /// Events that must happen in this step, in this order (others may come between).
    #[serde(default)]
    pub expect_events: Vec<Json>,
    /// How many times events must happen in this step: `{ damaged = 2 }`.
    #[serde(default)]
    pub expect_event_counts: IndexMap<String, usize>,
    /// Events that must not happen in this step.
    #[serde(default)]
    pub expect_no_events: Vec<String>,
    /// The step must fail with a message containing this text, leaving the world
    /// exactly as before (same checksum).
    pub expect_error: Option<String>,
    /// Keep going after this step fails (default: stop).
    #[serde(default)]
    pub continue_on_failure: bool,
}
