//! Effects on every player at once, without a target: `Discard | Mode$ Hand | Defined$
//! Each` (each player discards their hand: Wheel of Fortune) and `ChangeZoneAll | Origin$
//! Hand,Graveyard | Destination$ Library | Shuffle$ True` (each player shuffles those
//! zones into their library: Timetwister), whose "then draw N cards" (`SubAbility$` →
//! `DB$ Draw | Defined$ Each | NumCards$ N`) waits for the shuffle to end: the mtg
//! rules' `draws_after_shuffle` (a shuffle is a chain of events, drawn cards must come
//! from the shuffled library).

use forge_script::{Ability, Face};
use serde_json::{json, Value};

use crate::effect::{number, zone};

/// `Discard | Mode$ Hand | Defined$ Each`: every card in every hand goes to its owner's
/// graveyard. `None` when `a` is another discard.
pub fn discard_hands(a: &Ability) -> Option<Vec<Value>> {
    let each = a.params.get("Defined") == Some("Each") && a.params.get("Mode") == Some("Hand");
    each.then(|| {
        vec![json!({ "type": "move", "zone": "graveyard", "to": { "type": "objects", "zone": "hand" } })]
    })
}

/// Whether `a` shuffles zones into each library (`ChangeZoneAll | Destination$ Library |
/// Shuffle$ True`): then [`shuffle_into_libraries`] translates it with its sub-ability.
pub fn shuffles_into_libraries(a: &Ability) -> bool {
    a.api.as_deref() == Some("ChangeZoneAll")
        && a.params.get("Destination") == Some("Library")
        && a.params.get("Shuffle") == Some("True")
}

/// The parameters [`shuffle_into_libraries`] reads.
pub const SHUFFLE_KEYS: &[&str] = &[
    "ChangeType",
    "Origin",
    "Destination",
    "Shuffle",
    "UseAllOriginZones",
    "SubAbility",
];

/// Each player's cards in the `Origin$` zones (`Hand,Graveyard`) go into their library,
/// each library is shuffled, and a following `Draw | Defined$ Each | NumCards$ N` draws
/// once the shuffle is over. `Err` names what the rules lack.
pub fn shuffle_into_libraries(face: &Face, a: &Ability) -> Result<Vec<Value>, Vec<String>> {
    let p = |k: &str| a.params.get(k);
    let mut missing = Vec::new();
    if !matches!(p("ChangeType"), None | Some("Card")) {
        missing.push(format!(
            "ChangeZoneAll into libraries of ChangeType$ {}",
            p("ChangeType").unwrap_or("")
        ));
    }
    let mut actions = Vec::new();
    for origin in p("Origin").unwrap_or("").split(',').map(str::trim) {
        match zone(Some(origin)).filter(|z| *z != "library" && *z != "battlefield") {
            Some(z) => actions.push(
                json!({ "type": "move", "zone": "library", "to": { "type": "objects", "zone": z } }),
            ),
            None => missing.push(format!("ChangeZoneAll into libraries from {origin}")),
        }
    }
    let draws = match p("SubAbility").map(|n| face.svar(n).and_then(|s| s.ability.as_ref())) {
        None => 0,
        Some(Some(d)) if each_draws(d).is_some() => each_draws(d).unwrap_or(0),
        Some(_) => {
            missing.push(
                "ChangeZoneAll into libraries with SubAbility$ other than each player drawing"
                    .into(),
            );
            0
        }
    };
    if !missing.is_empty() {
        return Err(missing);
    }
    actions.push(json!({ "type": "set", "key": "draws_after_shuffle", "value": draws, "to": { "type": "players" } }));
    actions.push(json!({ "type": "emit", "event": "shuffle", "to": { "type": "players" } }));
    Ok(actions)
}

/// `DB$ Draw | Defined$ Each | NumCards$ N` (and nothing more): N.
fn each_draws(d: &Ability) -> Option<i64> {
    let plain = d
        .params
        .keys_outside(&["DB", "Defined", "NumCards", "SpellDescription"])
        .next()
        .is_none();
    (plain && d.api.as_deref() == Some("Draw") && d.params.get("Defined") == Some("Each"))
        .then(|| number(d.params.get("NumCards").or(Some("1"))))
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spell(text: &str) -> (Face, Ability) {
        let script = forge_script::parse(&format!("Name:X\nManaCost:U\nTypes:Sorcery\n{text}\n"));
        let face = script.faces[0].clone();
        let a = face.abilities[0].clone();
        (face, a)
    }

    #[test]
    fn shuffle_then_draw_waits_for_the_shuffle() {
        let (face, a) = spell("A:SP$ ChangeZoneAll | Cost$ 2 U | ChangeType$ Card | Origin$ Hand,Graveyard | Destination$ Library | Shuffle$ True | SubAbility$ D | UseAllOriginZones$ True\nSVar:D:DB$ Draw | NumCards$ 7 | Defined$ Each");
        assert!(shuffles_into_libraries(&a));
        let acts = Value::Array(shuffle_into_libraries(&face, &a).unwrap()).to_string();
        for part in [
            "\"zone\":\"hand\"",
            "\"zone\":\"graveyard\"",
            "draws_after_shuffle",
            "\"value\":7",
            "shuffle",
        ] {
            assert!(acts.contains(part), "{part} in {acts}");
        }
        let (face, a) = spell("A:SP$ ChangeZoneAll | Origin$ Hand | Destination$ Library | Shuffle$ True | SubAbility$ D\nSVar:D:DB$ Draw | NumCards$ 7");
        assert!(shuffle_into_libraries(&face, &a).is_err());
    }

    #[test]
    fn each_player_discards_their_hand() {
        let (_, a) = spell("A:SP$ Discard | Cost$ 2 R | Mode$ Hand | Defined$ Each");
        assert!(discard_hands(&a).is_some());
        let (_, a) = spell("A:SP$ Discard | Mode$ Hand | Defined$ You");
        assert!(discard_hands(&a).is_none());
    }
}
