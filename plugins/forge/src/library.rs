//! Effects that put cards at a place in the library, without a target: "search your
//! library for a card, then shuffle and put that card on top" (`ChangeZone | Origin$
//! Library | Destination$ Library | LibraryPosition$ 0`: Vampiric Tutor; the card is
//! marked `stays_on_top`, which the mtg rules' shuffle leaves on top) and "put N cards
//! from your hand on top of your library" (`ChangeZone | Origin$ Hand | Destination$
//! Library | ChangeNum$ N`: Brainstorm, after its draws; the rules' `puts_back` event,
//! raised after the draws, lets the player choose them). And "look at the top N cards,
//! put M of them somewhere and the rest on the bottom" (`Dig`: Impulse, Opt, Goblin Guide).

use forge_script::Ability;
use serde_json::{json, Value};

/// The parameters of a search put on top.
const TO_TOP: &[&str] = &[
    "Origin",
    "Destination",
    "LibraryPosition",
    "ChangeType",
    "ChangeNum",
    "Mandatory",
];

/// The parameters of cards put back from the hand.
const PUT_BACK: &[&str] = &["Origin", "Destination", "ChangeNum", "Mandatory"];

/// Which of the two `a` is, as the parameters it uses; `None` when it is neither.
pub fn keys_of(a: &Ability) -> Option<Vec<&'static str>> {
    let p = |k: &str| a.params.get(k);
    match (p("Origin"), p("Destination"), p("LibraryPosition")) {
        (Some("Library"), Some("Library"), Some("0")) => Some(TO_TOP.to_vec()),
        (Some("Hand"), Some("Library"), None | Some("0")) if p("Defined").is_none() => {
            let mut keys = PUT_BACK.to_vec();
            keys.push("LibraryPosition");
            Some(keys)
        }
        _ => None,
    }
}

/// The actions of `a` (one [`keys_of`] knows); `Err` names what the rules lack.
pub fn actions(a: &Ability) -> Result<Vec<Value>, String> {
    let p = |k: &str| a.params.get(k);
    if p("Origin") == Some("Hand") {
        let n: i64 = p("ChangeNum").unwrap_or("1").parse().map_err(|_| {
            format!(
                "ChangeZone from Hand to Library with ChangeNum$ {}",
                p("ChangeNum").unwrap_or("")
            )
        })?;
        if p("Mandatory") != Some("True") {
            return Err("ChangeZone from Hand to Library without Mandatory$".into());
        }
        return Ok(vec![
            json!({ "type": "emit", "event": "puts_back", "amount": n, "to": "owner" }),
        ]);
    }
    let which =
        crate::valid::condition(p("ChangeType").unwrap_or("Card"), "ChangeZone ChangeType$")?;
    if !matches!(p("ChangeNum"), None | Some("1")) {
        return Err("ChangeZone from Library to Library with ChangeNum$".into());
    }
    Ok(vec![
        json!({ "type": "tag", "tag": "stays_on_top", "to": { "type": "objects", "zone": "library", "owner": "friendly", "where": which,
            "pick": { "chosen": 1, "prompt": "search your library for a card to put on top" } } }),
        json!({ "type": "emit", "event": "shuffle", "to": "owner" }),
    ])
}

/// The parameters [`dig`] reads.
pub const DIG: &[&str] = &[
    "DigNum",
    "ChangeNum",
    "ChangeValid",
    "DestinationZone",
    "LibraryPosition",
    "LibraryPosition2",
    "Optional",
    "Reveal",
    // Looked at without revealing: the rules keep no hidden information apart.
    "NoReveal",
    "Defined",
    "RememberChanged",
    "DestinationZone2",
];

/// `Dig | DigNum$ N | ChangeNum$ M` (701.*: look at the top N cards of a library; M of
/// them, or `All` that fit `ChangeValid$`, go to `DestinationZone$` — the hand unless
/// said, the bottom of the library with `LibraryPosition$ -1` — and the rest to the
/// bottom, or stay on top with `LibraryPosition2$ 0`). `Optional$`: "you may" move them.
/// The cards looked at are tagged `digging` meanwhile; the rest keep their order (one
/// of the orders "in any order" allows). `Err` names what the rules lack.
pub fn dig(a: &Ability) -> Result<Vec<Value>, String> {
    let p = |k: &str| a.params.get(k);
    let num = |k: &str| -> Result<i64, String> {
        p(k).unwrap_or("1")
            .parse()
            .map_err(|_| format!("Dig with {k}$ {}", p(k).unwrap_or("")))
    };
    let dig_num = num("DigNum")?;
    let all = p("ChangeNum") == Some("All");
    let change_num = if all { 0 } else { num("ChangeNum")? };
    // Whose library: the caster's, or (two players, nobody choosing) the defending
    // player's or the target's owner's (Chaos Warp).
    let whose = match p("Defined") {
        None | Some("You") => json!({ "type": "owned_by", "owner": "friendly" }),
        Some("DefendingPlayer") if all => json!({ "type": "owned_by", "owner": "enemy" }),
        Some("TargetedController") if all => {
            json!({ "type": "owned_by", "by": "self.chosen.owner" })
        }
        Some(other) => return Err(format!("Dig with Defined$ {other}")),
    };
    let dest = match (p("DestinationZone"), p("LibraryPosition")) {
        (None | Some("Hand"), None) => "hand",
        (Some("Library"), Some("-1")) => "library",
        (Some(z @ ("Graveyard" | "Exile")), None) => {
            crate::effect::zone(Some(z)).unwrap_or("graveyard")
        }
        // Onto the battlefield, when nobody chooses (summoning sick, 302.6).
        (Some("Battlefield"), None) if all => "battlefield",
        (z, pos) => {
            return Err(format!(
                "Dig to {} at {}",
                z.unwrap_or("Hand"),
                pos.unwrap_or("(no position)")
            ))
        }
    };
    if !matches!(p("DestinationZone2"), None | Some("Library")) {
        return Err(format!(
            "Dig with DestinationZone2$ {}",
            p("DestinationZone2").unwrap_or("")
        ));
    }
    let rest_to_bottom = match p("LibraryPosition2") {
        None | Some("-1") => true,
        Some("0") => false,
        Some(other) => return Err(format!("Dig with LibraryPosition2$ {other}")),
    };
    let in_zone = |zone: &str, mut conditions: Vec<Value>| {
        conditions.insert(0, whose.clone());
        json!({ "type": "objects", "zone": zone, "tag": "digging", "where": conditions })
    };
    let mut moved = Vec::new();
    if let Some(v) = p("ChangeValid") {
        moved.push(crate::valid::condition(v, "Dig ChangeValid$")?);
    }
    let mut which = in_zone("library", moved);
    // Moving as many as were looked at needs no choice.
    if !all && change_num < dig_num {
        which["pick"] = json!({ "chosen": change_num, "prompt": format!("the card(s) to put into the {dest}") });
    }
    let mut put = Vec::new();
    if dest == "battlefield" {
        put.push(json!({ "type": "tag", "tag": "sick", "to": which.clone() }));
    }
    put.push(json!({ "type": "move", "zone": dest, "to": which }));
    if p("Optional") == Some("True") {
        put = vec![
            json!({ "type": "choose_mode", "prompt": format!("put the card(s) into the {dest}?"), "modes": [
            { "label": "yes", "do": put },
            { "label": "no", "do": [] },
        ] }),
        ];
    }
    let mut actions = vec![json!({ "type": "tag", "tag": "digging",
        "to": { "type": "objects", "zone": "library", "where": whose, "sort": "slot", "pick": { "first": dig_num } } })];
    actions.extend(put);
    if rest_to_bottom {
        actions.push(
            json!({ "type": "move", "zone": "library", "to": in_zone("library", Vec::new()) }),
        );
    }
    // The cards moved are remembered (`Remembered$CardManaCost`) until a `Cleanup`.
    if p("RememberChanged") == Some("True") {
        actions
            .push(json!({ "type": "tag", "tag": "remembered", "to": in_zone(dest, Vec::new()) }));
    }
    for zone in ["library", dest] {
        actions.push(json!({ "type": "untag", "tag": "digging", "to": in_zone(zone, Vec::new()) }));
    }
    Ok(actions)
}
