//! Effects that put cards at a place in the library, without a target: "search your
//! library for a card, then shuffle and put that card on top" (`ChangeZone | Origin$
//! Library | Destination$ Library | LibraryPosition$ 0`: Vampiric Tutor; the card is
//! marked `stays_on_top`, which the mtg rules' shuffle leaves on top) and "put N cards
//! from your hand on top of your library" (`ChangeZone | Origin$ Hand | Destination$
//! Library | ChangeNum$ N`: Brainstorm, after its draws; the rules' `puts_back` event,
//! raised after the draws, lets the player choose them).

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
