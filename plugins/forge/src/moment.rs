//! When a card's trigger fires (`T:Mode$ ...` read as a [`Moment`]) and the card trigger
//! that hears it: the event, its filters and the zones the card listens from.

use forge_script::Ability;
use serde_json::{json, Value};

/// When the trigger fires: on entering, or on leaving, the battlefield, when it
/// attacks, at the beginning of its controller's upkeep, or when its controller casts a
/// spell.
#[derive(Clone, Copy, PartialEq)]
pub enum Moment {
    Enters,
    Leaves,
    Dies,
    Attacks,
    Upkeep,
    SpellCast,
    /// A creature its controller controls attacks (Hellrider).
    AttacksAny,
    /// The card is dealt damage (Jackal Pup).
    Damaged,
    /// The card deals damage to an opponent (Hypnotic Specter).
    DamagesOpponent,
    /// A creature an opponent controls dies (Massacre Wurm).
    OpponentCreatureDies,
    /// A land enters the battlefield under its controller's control (landfall: Lotus
    /// Cobra).
    Landfall,
    /// An opponent draws a card (Consecrated Sphinx).
    OpponentDraws,
    /// The beginning of each player's draw step (Howling Mine), or of its controller's.
    DrawStep {
        each: bool,
    },
    /// The card — or, `equipped`, the creature it equips — deals damage (combat damage
    /// only with `combat`) to what `to` says (Quietus Spike, Umezawa's Jitte).
    DealsDamage {
        equipped: bool,
        to: DamageTo,
        combat: bool,
    },
    /// The card attacks and isn't blocked (Ophidian).
    Unblocked,
    /// The beginning of each end step (Pestilence, Ichorid), or of its controller's.
    EndStep {
        each: bool,
    },
}

/// What a damage trigger's damage is dealt to (`ValidTarget$`).
#[derive(Clone, Copy, PartialEq)]
pub enum DamageTo {
    /// A player (`Player`).
    Player,
    /// An opponent (`Opponent`).
    Opponent,
    /// Anything (`Creature,Player,Planeswalker`: "deals combat damage").
    Any,
}

/// `T:Mode$ DamageDone` with `ValidSource$ Card.Self` / `Creature.EquippedBy`,
/// `ValidTarget$ Player` / `Opponent` / `Creature,Player,Planeswalker` and `CombatDamage$`.
fn deals_damage(t: &Ability) -> Option<Moment> {
    let equipped = match t.params.get("ValidSource")? {
        "Card.Self" | "Creature.Self" => false,
        "Creature.EquippedBy" => true,
        _ => return None,
    };
    let to = match t.params.get("ValidTarget")? {
        "Player" => DamageTo::Player,
        "Opponent" => DamageTo::Opponent,
        "Creature,Player,Planeswalker" => DamageTo::Any,
        _ => return None,
    };
    let combat = match t.params.get("CombatDamage") {
        None => false,
        Some("True") => true,
        Some(_) => return None,
    };
    // Damage to an opponent from the card itself, any damage: [`Moment::DamagesOpponent`].
    (equipped || combat || to != DamageTo::Opponent).then_some(Moment::DealsDamage {
        equipped,
        to,
        combat,
    })
}

/// The moment of the `T:` line `t`, if the rules know it.
pub fn of(t: &Ability) -> Option<Moment> {
    let mode = t.api.as_deref().unwrap_or("?");
    // (`Card.Self+kicked` / `+evoked`: an intervening "if" on how it was cast.)
    let own = matches!(
        t.params.get("ValidCard"),
        Some("Card.Self" | "Creature.Self" | "Card.Self+kicked" | "Card.Self+evoked")
    );
    let (origin, dest) = (t.params.get("Origin"), t.params.get("Destination"));
    let you = |k: &str| t.params.get(k) == Some("You");
    match (mode, origin, dest) {
        ("ChangesZone", None | Some("Any"), Some("Battlefield")) if own => Some(Moment::Enters),
        ("ChangesZone", Some("Battlefield"), None | Some("Any")) if own => Some(Moment::Leaves),
        ("ChangesZone", Some("Battlefield"), Some("Graveyard")) if own => Some(Moment::Dies),
        ("Attacks", None, None) if own => Some(Moment::Attacks),
        ("AttackerUnblocked", None, None) if own => Some(Moment::Unblocked),
        ("Drawn", None, None) if t.params.get("ValidCard") == Some("Card.OppOwn") => {
            Some(Moment::OpponentDraws)
        }
        ("ChangesZone", None | Some("Any"), Some("Battlefield"))
            if t.params.get("ValidCard") == Some("Land.YouCtrl") =>
        {
            Some(Moment::Landfall)
        }
        ("ChangesZone", Some("Battlefield"), Some("Graveyard"))
            if t.params.get("ValidCard") == Some("Creature.OppCtrl") =>
        {
            Some(Moment::OpponentCreatureDies)
        }
        ("Phase", None, None) if t.params.get("Phase") == Some("Upkeep") && you("ValidPlayer") => {
            Some(Moment::Upkeep)
        }
        ("SpellCast", None, None) if you("ValidActivatingPlayer") => Some(Moment::SpellCast),
        ("Phase", None, None) if t.params.get("Phase") == Some("Draw") => {
            match t.params.get("ValidPlayer") {
                Some("Player") => Some(Moment::DrawStep { each: true }),
                Some("You") => Some(Moment::DrawStep { each: false }),
                _ => None,
            }
        }
        ("Phase", None, None) if t.params.get("Phase") == Some("End of Turn") => {
            match t.params.get("ValidPlayer") {
                None | Some("Player") => Some(Moment::EndStep { each: true }),
                Some("You") => Some(Moment::EndStep { each: false }),
                _ => None,
            }
        }
        ("Attacks", None, None) if t.params.get("ValidCard") == Some("Creature.YouCtrl") => {
            Some(Moment::AttacksAny)
        }
        ("DamageDone", None, None)
            if t.params.get("ValidTarget") == Some("Card.Self")
                && t.params.get("ValidSource").is_none()
                && t.params.get("CombatDamage").is_none() =>
        {
            Some(Moment::Damaged)
        }
        ("DamageDone", None, None) if deals_damage(t).is_some() => deals_damage(t),
        ("DamageDone", None, None)
            if t.params.get("ValidSource") == Some("Card.Self")
                && t.params.get("ValidTarget") == Some("Opponent") =>
        {
            Some(Moment::DamagesOpponent)
        }
        _ => None,
    }
}

/// The card's triggers for `moment`, each running `create` (which puts the ability on the
/// stack); `cast` filters the spells a `SpellCast` trigger hears.
pub fn card_triggers(moment: Moment, create: &Value, cast: Option<Value>) -> Vec<Value> {
    match moment {
        Moment::Enters => vec![json!({
            "when": { "event": "core:event/moved", "target": [{ "type": "is_self" }, { "type": "in_zone", "zone": "battlefield" }] },
            "do": create,
        })],
        // Destroyed, or otherwise moved, from the battlefield: both events carry `from`;
        // the card hears it from where it went.
        // Dies: the same, heard in the graveyard.
        Moment::Leaves | Moment::Dies => ["core:event/destroyed", "core:event/moved"]
            .iter()
            .map(|event| {
                let mut target = vec![
                    json!({ "type": "is_self" }),
                    json!({ "type": "event_field", "field": "from", "is": "battlefield" }),
                ];
                if moment == Moment::Dies {
                    target.push(json!({ "type": "in_zone", "zone": "graveyard" }));
                }
                json!({ "when": { "event": event, "target": target }, "do": create })
            })
            .collect(),
        // Another player's creature put into a graveyard from the battlefield (destroyed,
        // or otherwise moved), heard by the card on the battlefield.
        Moment::OpponentCreatureDies => ["core:event/destroyed", "core:event/moved"]
            .iter()
            .map(|event| {
                json!({ "when": { "event": event, "target": [
                    { "type": "has_tag", "tag": "creature" },
                    { "type": "owned_by", "owner": "enemy" },
                    { "type": "event_field", "field": "from", "is": "battlefield" },
                    { "type": "in_zone", "zone": "graveyard" },
                ] }, "zones": ["battlefield"], "do": create })
            })
            .collect(),
        // The mtg rules raise `card_drawn` at each card drawn (its player: the drawer).
        Moment::OpponentDraws => vec![json!({
            "when": { "event": "card_drawn", "player": "enemy" },
            "zones": ["battlefield"],
            "do": create,
        })],
        Moment::Landfall => vec![json!({
            "when": { "event": "core:event/moved", "target": [
                { "type": "has_tag", "tag": "land" },
                { "type": "owned_by", "owner": "friendly" },
                { "type": "in_zone", "zone": "battlefield" },
            ] },
            "zones": ["battlefield"],
            "do": create,
        })],
        Moment::Attacks => vec![json!({
            "when": { "event": "attacks", "target": { "type": "is_self" } },
            "do": create,
        })],
        Moment::Upkeep => vec![json!({
            "when": { "event": "upkeep", "player": "friendly" },
            "zones": ["battlefield"],
            "do": create,
        })],
        Moment::AttacksAny => vec![json!({
            "when": { "event": "attacks", "target": [{ "type": "has_tag", "tag": "creature" }, { "type": "owned_by", "owner": "friendly" }] },
            "zones": ["battlefield"],
            "do": create,
        })],
        // The amount is kept on the card for the ability (`self.source_card.damage_taken`).
        Moment::Damaged => {
            let mut act = vec![
                json!({ "type": "set", "key": "damage_taken", "value": "event.amount", "to": "self" }),
            ];
            act.extend(after_create(create, vec![json!({ "type": "set", "key": "damage_amount", "value": "event.amount", "to": { "ref": "top_of_stack" } })]));
            // Looking back (the mtg rules keep last-known information): a creature dealt
            // lethal damage is in the graveyard when the damage is heard, and still hears it.
            vec![json!({
                "when": { "event": "core:event/damaged", "target": { "type": "is_self" } },
                "zones": ["battlefield"],
                "look_back": true,
                "do": act,
            })]
        }
        Moment::DamagesOpponent => vec![json!({
            "when": { "event": "core:event/damaged", "condition": { "type": "is_self" }, "target": [{ "type": "has_tag", "tag": "player" }, { "type": "owned_by", "owner": "enemy" }] },
            "zones": ["battlefield"],
            "do": create,
        })],
        Moment::DrawStep { each } => vec![json!({
            "when": { "event": "draw_step", "player": if each { "any" } else { "friendly" } },
            "zones": ["battlefield"],
            "do": create,
        })],
        Moment::DealsDamage {
            equipped,
            to,
            combat,
        } => vec![deals_damage_trigger(equipped, to, combat, create)],
        Moment::Unblocked => vec![json!({
            "when": { "event": "attacker_unblocked", "target": { "type": "is_self" } },
            "do": create,
        })],
        Moment::EndStep { each } => vec![json!({
            "when": { "event": "end_step", "player": if each { "any" } else { "friendly" } },
            "zones": ["battlefield"],
            "do": create,
        })],
        Moment::SpellCast => vec![json!({
            "when": { "event": "cast", "player": "friendly", "target": cast },
            "zones": ["battlefield"],
            "do": create,
        })],
    }
}

/// The card trigger of [`Moment::DealsDamage`]: it hears `damaged` events of more than 0
/// damage whose source is the card (or the creature it equips: the source contains it),
/// tagged `striking` for combat damage; the ability it puts on the stack remembers what
/// was dealt damage (`triggered_target`) and how much (`damage_amount`).
fn deals_damage_trigger(equipped: bool, to: DamageTo, combat: bool, create: &Value) -> Value {
    let mut source = vec![if equipped {
        json!({ "type": "contains", "what": { "type": "is_self" } })
    } else {
        json!({ "type": "is_self" })
    }];
    if combat {
        source.push(json!({ "type": "has_tag", "tag": "striking" }));
    }
    let target = match to {
        DamageTo::Player => json!([{ "type": "has_tag", "tag": "player" }]),
        DamageTo::Opponent => {
            json!([{ "type": "has_tag", "tag": "player" }, { "type": "owned_by", "owner": "enemy" }])
        }
        DamageTo::Any => json!([]),
    };
    let act = after_create(
        create,
        vec![
            json!({ "type": "link", "key": "triggered_target", "object": { "type": "object", "object": "event.target" }, "to": { "ref": "top_of_stack" } }),
            json!({ "type": "set", "key": "damage_amount", "value": "event.amount", "to": { "ref": "top_of_stack" } }),
        ],
    );
    json!({
        "when": { "event": "core:event/damaged", "condition": source, "target": target },
        "zones": ["battlefield"],
        // A creature that dies dealing its combat damage still triggers (last-known
        // information, as for `Damaged`).
        "look_back": true,
        "do": [{ "type": "if", "condition": { "type": "compare", "left": "event.amount", "op": ">", "right": 0 }, "then": act }],
    })
}

/// `create` (the actions putting the ability on the stack, maybe inside an intervening
/// "if") followed by `extra`, run on the new ability (`top_of_stack`) only when it was
/// created.
fn after_create(create: &Value, extra: Vec<Value>) -> Vec<Value> {
    let mut acts = create.as_array().cloned().unwrap_or_default();
    match acts.first_mut() {
        Some(first) if first["type"] == "if" => {
            if let Some(then) = first["then"].as_array_mut() {
                then.extend(extra);
            }
        }
        _ => acts.extend(extra),
    }
    acts
}
