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
    /// `[match]`: a real game set up like Hearthbreaker's `generate_game_for`, played by
    /// testing agents one turn at a time (`turns` steps).
    #[serde(rename = "match")]
    pub game_match: Option<MatchSpec>,
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
    /// What the scenario runs on: `"loaded"` (the loaded mods' content, then its own) or
    /// `"own"` (only its own content and `content` files, on the `core` vocabulary and
    /// the plugins' kinds). By default `"loaded"` for a scenario inside a mod's folder or
    /// with a `[match]` (a match plays the loaded game), `"own"` otherwise — the same from
    /// `tessera test` and from `cargo test`.
    pub mods: Option<ScenarioMods>,
}

/// `[scenario] mods`: which content a scenario runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum ScenarioMods {
    /// The loaded mods' content, then the scenario's own.
    Loaded,
    /// Only the scenario's own content.
    Own,
}

/// `[match]`: players `p1`, `p2`, ... with stacked decks, an opening hand each, and a
/// testing agent each. Nothing of the game's own start (`[game] start`) runs: the match
/// deals the opening itself, as Hearthbreaker's harness does.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MatchSpec {
    /// One deck per player: a pattern of class ids repeated to the deck size, drawn in
    /// order (the first listed is drawn first).
    pub decks: Vec<Vec<String>>,
    /// Who plays each player: `none` (default), `play_first`, `keep_playing`,
    /// `play_and_attack`.
    #[serde(default)]
    pub controllers: Vec<String>,
    /// Each player's class (default: the game's `[game] player_class`).
    #[serde(default)]
    pub heroes: Vec<String>,
    /// Who plays the first turn (default `p1`).
    pub first: Option<String>,
    /// Opening hands in turn order (default `[3, 4]`: the first player draws 3, the
    /// second 4, as in Hearthbreaker's `pre_game`).
    pub hands: Option<Vec<usize>>,
    /// A class every player but the first gets in hand after the opening (the coin:
    /// `arena:class/coin`); default none.
    pub coin: Option<String>,
    /// Cards per deck (default 30).
    pub deck_size: Option<usize>,
    /// The zone of a player's hand (default `hand`).
    pub hand_zone: Option<String>,
    /// The attack move of `play_and_attack` and `predictable` (default: every move named
    /// `attack`).
    pub attack_move: Option<String>,
    /// The hero power move of `predictable` (default: every move named `hero_power`).
    pub power_move: Option<String>,
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

/// `[[step]]`: one command (`emit`, `do`, `tick`, `play` or `turns`) and what must be true
/// after.
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
    /// Play this many single turns of the match (each one player's turn: its start, its
    /// agent's moves, its end).
    pub turns: Option<u32>,
    /// New controllers for some players of the match from this step on, by seat:
    /// `{ p1 = "predictable" }` (Hearthbreaker's `game.players[0].agent = ...`). Applied
    /// before the step does anything else.
    #[serde(default)]
    pub controllers: IndexMap<String, String>,
    /// Re-seed the world's RNG before the step does anything else (Hearthbreaker's
    /// `random.seed(n)` in the middle of a test).
    pub seed: Option<u64>,
    /// Start a new game before the step does anything else: a fresh world from `seed`
    /// (this step's, else the scenario's), set up again from `[match]` and `[[object]]`,
    /// with the names pointing at the new game's objects (a test that plays several
    /// games, as some of Hearthbreaker's do, stays one file).
    #[serde(default)]
    pub new_game: bool,
    /// Start a new game as `new_game` does, with this `[match]` table (other decks,
    /// controllers or heroes) instead of the file's.
    pub new_match: Option<MatchSpec>,
    /// Half a turn: `"start"` starts the next player's turn and lets its controller play,
    /// leaving the turn open (expectations then see the middle of the turn); `"end"` ends it.
    pub turn: Option<String>,
    /// Scripted answers for choices in this step: each a list of references (names or
    /// paths such as `p2.board.0`).
    #[serde(default)]
    pub answers: Vec<Vec<String>>,
    /// Scripted outcomes of random picks in this step, in order: each the list of objects
    /// one pick takes. Random picks beyond them use the world's seeded RNG.
    #[serde(default)]
    pub randoms: Vec<Vec<String>>,
    /// Names for objects created during the step, in creation order.
    #[serde(default)]
    pub name_created: Vec<String>,
    /// `"name.property" = value` (numbers — an unset property is 0, as in expressions —
    /// or `zone`/`owner`/`class`/`exists`/`tags`/`no_tags`); the name may be a path
    /// (`p1.board.0.attack`, `p1.weapon.durability`), and `p1.hand.count` counts a zone.
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
    /// What the last effect pass recorded for a property, in the order applied:
    /// `{ "colony.output" = ["workshop: 0 -> 2", "doubler: 2 -> 4"] }` (as `tessera
    /// explain` prints it).
    #[serde(default)]
    pub expect_accounting: IndexMap<String, Vec<String>>,
    /// The step must fail with a message containing this text, leaving the world
    /// exactly as before (same checksum).
    pub expect_error: Option<String>,
    /// Keep going after this step fails (default: stop).
    #[serde(default)]
    pub continue_on_failure: bool,
}
