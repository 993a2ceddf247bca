//! The content schema: what a content file (TOML or JSON, same shape) may contain.
//!
//! These are plain serde types; meaning is given by `compile`. Parameter tables of
//! actions, conditions and selectors stay as JSON values here, because their shape is
//! defined by the registry entry they name, not by this file.

use indexmap::IndexMap;
use serde::Deserialize;
use serde_json::Value as Json;

use crate::state::MaxHealthDrop;

/// `[world] on_max_health_drop` as the JSON Schema of content files describes it (the
/// state module's type stays free of schema derives).
#[derive(schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
#[expect(dead_code, reason = "only its JSON Schema is used")]
enum MaxHealthDropName {
    /// Damage stays marked: losing maximum health can kill (Magic).
    Keep,
    /// Current health is clamped to the new maximum: losing a buff never kills (Hearthstone).
    Clamp,
}

/// One content file.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ContentFile {
    /// World rules (health rule, cascade limit). At most one mod should set each.
    #[serde(default)]
    pub world: Option<WorldSpec>,
    /// Object classes by name (`[class.wolf]`).
    #[serde(default)]
    pub class: IndexMap<String, ClassSpec>,
    /// Standalone triggers, bound to no object (`[trigger.draw_on_turn]`).
    #[serde(default)]
    pub trigger: IndexMap<String, TriggerSpec>,
    /// Named auras, given with `give_aura` (`[aura.frenzy]`).
    #[serde(default)]
    pub aura: IndexMap<String, AuraSpec>,
    /// Rules checked after every event settles (`[rule.deaths]`).
    #[serde(default)]
    pub rule: IndexMap<String, RuleSpec>,
    /// Named constants and expressions (`[alias] big = 10`).
    #[serde(default)]
    pub alias: IndexMap<String, Json>,
    /// Reusable fragments with parameters (`[ref.hit] params = ["n"] action = {...}`).
    #[serde(default, rename = "ref")]
    pub refs: IndexMap<String, RefSpec>,
    /// Event types this mod declares (`[event.spell_cast]`).
    #[serde(default)]
    pub event: IndexMap<String, EventSpec>,
    /// Actions defined in content (`[action.draw] params = ["amount"] do = [...]`), used
    /// as `{ type = "ns:action/draw", amount = 2 }` like any registered action.
    #[serde(default)]
    pub action: IndexMap<String, KindSpec>,
    /// Conditions defined in content (`[condition.is_beast] condition = {...}`).
    #[serde(default)]
    pub condition: IndexMap<String, KindSpec>,
    /// Selectors defined in content (`[selector.my_beasts] select = {...}`).
    #[serde(default)]
    pub selector: IndexMap<String, KindSpec>,
    /// How a match is set up and won (`[game]`; one rules mod defines it).
    #[serde(default)]
    pub game: Option<GameSpec>,
    /// What a player may do on their turn (`[move.attack]`).
    #[serde(default, rename = "move")]
    pub moves: IndexMap<String, MoveSpec>,
    /// Abilities in the ability schema's shape: one ability table or a list of them
    /// (compiled by `crate::rules::ability`).
    #[serde(default)]
    pub abilities: Option<Json>,
    /// The property keys this mod's classes may set, each with what it means
    /// (`[properties] attack = "damage dealt in combat"`). Once any loaded mod declares
    /// properties, a class setting a key no mod declares is a warning with a
    /// did-you-mean (`atack` → `attack`); the health rule's keys (`max_health`, `damage`,
    /// `health`) and `[world] armor_key` are always declared.
    #[serde(default)]
    pub properties: IndexMap<String, String>,
    /// Effect passes (`[pass.effects]`): run by the `pass` action, they apply every
    /// class's effects groups of that pass at once (see [`PassSpec`]).
    #[serde(default)]
    pub pass: IndexMap<String, PassSpec>,
}

/// `[pass.NAME]`: a once-a-turn effect pass. When the `pass` action runs it, every
/// effects group of the pass is matched first (activation and scope, against the world
/// as it was), then the `reset` properties go back to their reset values, then the groups
/// apply in priority order (then holder order, then their order in the class) with a
/// running `value`, a stacking group claiming a target for its first group only; then
/// the clamps apply.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PassSpec {
    /// Properties set back before the effects apply, each to a number
    /// (`reset = { max_troops = 0, target_population = 0 }`), on every object whose class
    /// declares the property.
    #[serde(default)]
    pub reset: IndexMap<String, Json>,
    /// Bounds applied after the effects, on every object whose class declares the
    /// property (`{ key = "troops", min = 0, max = "target.max_troops" }`).
    #[serde(default)]
    pub clamp: Vec<PassClampSpec>,
    /// Record, for each property an effect changes, which group changed it and by how
    /// much (`tessera explain` shows it). Default true.
    pub accounting: Option<bool>,
}

/// One clamp of a pass.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PassClampSpec {
    /// The property.
    pub key: String,
    /// The lowest value (an expression; `target` is the object).
    pub min: Option<Json>,
    /// The highest value (an expression; `target` is the object).
    pub max: Option<Json>,
}

/// One effects group of a class (`[[class.NAME.effects]]`): while its holder exists (and
/// is in one of `zones`, when given), each run of its pass sets properties of the objects
/// its `scope` picks.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EffectsGroupSpec {
    /// The pass it belongs to (default: `effects`).
    pub pass: Option<String>,
    /// The object the group acts for (`source` in its expressions; default `self`, the
    /// holder): an object reference such as `self.owner.capital`. A group whose source
    /// does not exist does nothing.
    pub source: Option<String>,
    /// Which objects it changes (a selector; default: the source).
    pub scope: Option<Json>,
    /// A condition on the source; the group does nothing while it is false.
    pub activation: Option<Json>,
    /// Zones the holder must be in (default: any).
    pub zones: Option<Vec<String>>,
    /// Groups sharing a stacking group change a target only once a pass: the first to
    /// apply claims it.
    pub stacking: Option<String>,
    /// Lower applies first (default 0).
    #[serde(default)]
    pub priority: i32,
    /// The accounting label (default: the class id).
    pub label: Option<String>,
    /// The properties it sets, in order: `{ key = "industry", value = "value + 1" }`
    /// (`value` is the property's running value).
    #[serde(default)]
    pub effects: Vec<EffectSpec>,
    /// Actions run on its targets after its properties are set.
    #[serde(rename = "do")]
    pub actions: Option<Json>,
}

/// One property an effects group sets.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EffectSpec {
    /// The property.
    pub key: String,
    /// Its new value (an expression; `value` is the running value, `target` the object).
    pub value: Json,
}

/// `[game]`: how a match is set up, whose turn it is, and how it ends. The host creates
/// the players and their decks, raises `start`, then asks the active player's controller
/// for moves until a player has the `lost` tag.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GameSpec {
    /// The class of player objects (a player is also its hero).
    pub player_class: String,
    /// How many players (default 2).
    #[serde(default)]
    pub players: Option<usize>,
    /// The zone players are in (default `table`).
    #[serde(default)]
    pub player_zone: Option<String>,
    /// Random decks dealt to each player before the start.
    #[serde(default)]
    pub deck: Option<DeckSpec>,
    /// The event raised once the players and decks exist (opening hands, first turn).
    pub start: String,
    /// The tag of the player whose turn it is (default `active`).
    #[serde(default)]
    pub active_tag: Option<String>,
    /// The tag a player gets when they lose (default `lost`); all players lost = a draw.
    #[serde(default)]
    pub lost_tag: Option<String>,
    /// Turns after which the game is a draw (default 60).
    #[serde(default)]
    pub turn_limit: Option<u32>,
    /// How good the world is for a player (`self`), for AIs that look ahead.
    #[serde(default)]
    pub score: Option<Json>,
    /// Properties whose changes on objects in `show_zones` the match log reports
    /// (auras changing numbers), e.g. `["attack", "max_health"]`.
    #[serde(default)]
    pub show: Vec<String>,
    /// Zones whose objects the log reports on (default `board`).
    #[serde(default)]
    pub show_zones: Vec<String>,
    /// What each turn's header line says of every player, by name: expressions with
    /// `self` = the player (`{ industry = "sum(my_planets, industry)" }`; default: its
    /// `health`).
    #[serde(default)]
    pub header: IndexMap<String, Json>,
}

/// `[game.deck]`: each player gets `size` cards drawn at random (at most `copies` of a
/// class) from the classes with `tag`, created in `zone` in random order.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DeckSpec {
    /// Classes with this tag may go in a deck.
    pub tag: String,
    /// Cards per deck.
    pub size: usize,
    /// Most copies of one class (default 2).
    #[serde(default)]
    pub copies: Option<usize>,
    /// The deck zone (default `deck`).
    #[serde(default)]
    pub zone: Option<String>,
}

/// `[move.NAME]`: something the active player may do. The legal moves are every
/// `subject` (selected with `self` = the player) paired with every `target` (selected
/// with `self` = the subject), or the subject alone when there is no `target`.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MoveSpec {
    /// What acts: cards in hand, minions that can attack, the player itself (`"self"`).
    pub subject: Json,
    /// What it acts on, if anything.
    #[serde(default)]
    pub target: Option<Json>,
    /// What happens: `self` = the subject, `target` = the target, `player` = the player.
    #[serde(rename = "do")]
    pub actions: Json,
    /// The move ends the player's turn.
    #[serde(default)]
    pub ends_turn: bool,
    /// The move gives up the player's chance to act without ending the turn (passing
    /// priority): once a turn has taken too many moves and no move ending it is legal,
    /// only such moves are offered, so a loop of free actions cannot go on forever.
    #[serde(default)]
    pub passes: bool,
    /// Log line: `{player}`, `{subject}` and `{target}` are replaced by display names.
    #[serde(default)]
    pub log: Option<String>,
}

/// `[world]`: rules of the whole game.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WorldSpec {
    /// What a falling maximum health does to damage: `keep` (default) or `clamp`.
    #[schemars(with = "Option<MaxHealthDropName>")]
    pub on_max_health_drop: Option<MaxHealthDrop>,
    /// How many events one command may raise before it is stopped as a loop (default 1000).
    pub cascade_limit: Option<usize>,
    /// A tag that absorbs one hit: `damage` to an object with it removes the tag and
    /// raises `core:event/shield_broken` instead of dealing damage.
    pub shield_tag: Option<String>,
    /// A property that soaks damage before health (armour); it never goes below 0.
    pub armor_key: Option<String>,
    /// A tag that silences: an object with it runs none of its own triggers and its own
    /// auras (class and given) are off; other objects' auras still affect it.
    pub silence_tag: Option<String>,
    /// The modifier layers in the order they apply (default `["set", "add", "multiply",
    /// "clamp"]`). A modifier applies in its `layer`, or else in the layer named like its
    /// `op`; within a layer modifiers apply in timestamp order. A silence tag granted in
    /// a layer switches off the holder's auras whose modifiers all apply in later layers
    /// (an ability-removing effect).
    pub layers: Option<Vec<String>>,
    /// Last-known information: `destroyed`, `moved` and `damaged` events keep the world as
    /// it was before the action, so `event.last.KEY` reads what the object was (its buffed
    /// power, say) and `look_back` triggers of objects that left in the same action, or
    /// before the event was handled, still hear it (simultaneous deaths see each other; a
    /// creature dealt lethal damage hears that it was dealt it). Default false.
    pub last_known: Option<bool>,
}

/// `[class.NAME]`: a definition objects are created from.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ClassSpec {
    /// Display-name translation key.
    pub name: Option<String>,
    /// Description translation key.
    pub description: Option<String>,
    /// Base property values.
    #[serde(default)]
    pub properties: IndexMap<String, Json>,
    /// Tags every object of the class starts with.
    #[serde(default)]
    pub tags: Vec<String>,
    /// Triggers of the class; each runs with `self` = the object.
    #[serde(default)]
    pub trigger: Vec<TriggerSpec>,
    /// Auras of the class; active while the object is in one of the aura's zones.
    #[serde(default)]
    pub aura: Vec<AuraSpec>,
    /// Replacement and prevention effects of the class: offered each event that would
    /// happen (`damaged`, `destroyed`, `moved`) before it happens.
    #[serde(default)]
    pub replacement: Vec<ReplacementSpec>,
    /// Effects groups of the class (`[[class.NAME.effects]]`), applied by their pass.
    #[serde(default)]
    pub effects: Vec<EffectsGroupSpec>,
}

/// A replacement (or prevention) effect: before an event happens, it may change it
/// (`amount`, `to`), cancel it (`cancel`), and act (`do`). Each applies at most once per
/// event; when several apply, the affected object's controller chooses which goes first.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReplacementSpec {
    /// The event that would happen, filtered like a trigger's `when`
    /// (`{ event, player, condition, target }`; `target` tests the affected object).
    pub would: WhenSpec,
    /// Prevents the event: it does not happen (and raises nothing).
    #[serde(default)]
    pub cancel: bool,
    /// The amount instead (an expression; `event.amount` is the amount proposed so far).
    /// Zero or less prevents an event with an amount (damage, healing).
    pub amount: Option<Json>,
    /// The zone instead, for an object that would move (`destroyed`, `moved`).
    pub to: Option<String>,
    /// Which objects the actions apply to (default: the affected object).
    pub select: Option<Json>,
    /// Actions run when it applies, before the (changed) event happens.
    #[serde(rename = "do", default)]
    pub actions: Option<Json>,
    /// Zones the holder must be in for it to apply (default: any).
    #[serde(default)]
    pub zones: Vec<String>,
}

/// A trigger: when an event happens (and a condition holds), select objects and act.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TriggerSpec {
    /// The event, or `{ event, player, condition }`.
    pub when: WhenSpec,
    /// Which objects the actions apply to (default: `self` for class triggers, the
    /// event's target for standalone triggers).
    pub select: Option<Json>,
    /// The actions.
    #[serde(rename = "do")]
    pub actions: Json,
    /// Higher runs first (default 0).
    #[serde(default)]
    pub priority: i32,
    /// Zones the holder must be in for the trigger to listen (default: any).
    #[serde(default)]
    pub zones: Vec<String>,
    /// Judge the holder's zones as they were before the action that raised the event
    /// (needs `[world] last_known`): a leaves-play trigger of an object that left in the
    /// same action still fires.
    #[serde(default)]
    pub look_back: bool,
}

/// `when` of a trigger.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
#[non_exhaustive]
pub enum WhenSpec {
    /// Just the event id.
    Event(String),
    /// Event id with filters.
    Full {
        /// The event id.
        event: String,
        /// `friendly`, `enemy` or `any` (default): the event's player relative to the
        /// holder's owner.
        #[serde(default)]
        player: Option<String>,
        /// A condition on the event's source (tested as `target`).
        #[serde(default)]
        condition: Option<Json>,
        /// A condition on the event's target (`target = "is_self"`: "when I am ...").
        #[serde(default)]
        target: Option<Json>,
    },
}

/// `until` of an aura: one event (filtered like a `when`), or a list of them (whichever
/// comes first ends it).
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
#[non_exhaustive]
pub enum UntilSpec {
    /// One event.
    One(WhenSpec),
    /// Several: the first that happens ends the aura.
    Any(Vec<WhenSpec>),
}

/// An aura: selected objects get modifiers while it is active.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AuraSpec {
    /// Which objects are affected (default: the holder).
    pub select: Option<Json>,
    /// The modifiers.
    #[serde(default)]
    pub modifiers: Vec<ModifierSpec>,
    /// A condition on the holder; the aura is off while it is false.
    #[serde(rename = "while")]
    pub while_: Option<Json>,
    /// An event that ends the aura (given auras are removed when it happens): an event id,
    /// or `{ event, player, target }` filtered like a trigger's `when`, relative to the
    /// aura's holder; or a list of them (the first that happens ends it).
    pub until: Option<UntilSpec>,
    /// Zones the holder must be in (default for class auras: `board`; given auras: any).
    pub zones: Option<Vec<String>>,
}

/// One modifier of an aura.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ModifierSpec {
    /// The property.
    pub key: String,
    /// `set`, `add`, `multiply`, `clamp`, `tag` (grant the tag named by `key`) or `untag`
    /// (remove it, own or granted: grants and removals of a tag apply in layer then
    /// timestamp order, the last one deciding).
    pub op: String,
    /// The operand (an expression; for `clamp` use `min`/`max`).
    pub value: Option<Json>,
    /// For `clamp`: the minimum.
    pub min: Option<Json>,
    /// For `clamp`: the maximum.
    pub max: Option<Json>,
    /// The layer it applies in (one of `[world] layers`; default: the layer named like
    /// its `op`; a `tag` or `untag` modifier without a layer applies after every layer).
    pub layer: Option<String>,
}

/// A rule checked after every event settles: select objects and act on them.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RuleSpec {
    /// Which objects it applies to.
    pub select: Json,
    /// What it does to them.
    #[serde(rename = "do")]
    pub actions: Json,
}

/// A reusable fragment: exactly one of `action`, `condition`, `selector`.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RefSpec {
    /// Parameter names; `$name` in the body is replaced by the argument.
    #[serde(default)]
    pub params: Vec<String>,
    /// Values for parameters a use may leave out.
    #[serde(default)]
    pub defaults: IndexMap<String, Json>,
    /// An action list body.
    pub action: Option<Json>,
    /// A condition body.
    pub condition: Option<Json>,
    /// A selector body.
    pub selector: Option<Json>,
}

/// An action, condition or selector defined in content: a named, parameterised body
/// that content uses with `type = "ns:<kind>/<name>"`, exactly like a registered kind
/// (it is expanded where it is used, like a `[ref]`). The body key matches the table:
/// `[action.X] do`, `[condition.X] condition`, `[selector.X] select`.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KindSpec {
    /// What it does (for `tessera explain` and readers).
    pub description: Option<String>,
    /// Parameter names; `$name` in the body is replaced by the argument.
    #[serde(default)]
    pub params: Vec<String>,
    /// Values for parameters a use may leave out.
    #[serde(default)]
    pub defaults: IndexMap<String, Json>,
    /// The body of an `[action.X]`: a list of actions.
    #[serde(rename = "do")]
    pub actions: Option<Json>,
    /// The body of a `[condition.X]`.
    pub condition: Option<Json>,
    /// The body of a `[selector.X]`.
    pub select: Option<Json>,
}

/// A declared event type.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EventSpec {
    /// What it means.
    pub description: Option<String>,
    /// Match log line when it happens: `{source}`, `{target}`, `{player}` and `{amount}`
    /// are replaced (absent: the event is not logged).
    pub log: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn until_takes_one_event_or_a_list() {
        let one: AuraSpec = serde_json::from_value(serde_json::json!({ "until": "e" })).unwrap();
        assert!(matches!(
            one.until,
            Some(UntilSpec::One(WhenSpec::Event(_)))
        ));
        let list: AuraSpec = serde_json::from_value(serde_json::json!({
            "until": [{ "event": "e", "target": { "type": "x" } }, { "event": "f", "player": "friendly" }]
        }))
        .unwrap();
        assert!(matches!(list.until, Some(UntilSpec::Any(v)) if v.len() == 2));
    }
}
