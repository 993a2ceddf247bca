//! Spells at a target player (`ValidTgts$ Player`, the spell's `self.chosen`): they draw
//! cards, or discard — at random, chosen by the caster among the matching ones, or (`Mode$
//! TgtChoose`) chosen by that player through the mtg rules' `discards_chosen`. And
//! "each player (you, each opponent) sacrifices a creature" (`Sacrifice | Defined$ Player
//! | SacValid$ Creature`), each choosing their own through the rules' `sacrifices_creature`.

use forge_script::{Ability, Face};
use serde_json::{json, Value};

use crate::effect::number;

/// `Draw | NumCards$ N | ValidTgts$ Player`: the target player draws N cards.
pub fn draw(a: &Ability, tags: &[String], missing: &mut Vec<String>) -> Vec<Value> {
    if tags.iter().any(|t| t != "targets_player") {
        missing.push("A:SP$ Draw at a non-player".into());
    }
    match number(a.params.get("NumCards").or(Some("1"))) {
        Some(n) => vec![
            json!({ "type": "emit", "event": "draw", "count": n, "to": { "ref": "spell_target" } }),
        ],
        None => {
            missing.push(format!(
                "A:SP$ Draw NumCards$ {}",
                a.params.get("NumCards").unwrap_or("")
            ));
            Vec::new()
        }
    }
}

/// `Discard | ValidTgts$ Player | NumCards$ N` with `Mode$ Random` (Hymn to Tourach) or
/// `Mode$ RevealYouChoose | DiscardValid$ <valid>` (Duress: the caster chooses among the
/// target player's cards that match): the cards go to the graveyard.
/// (`NumCards$ X` may be counted as it resolves: Mind Twist's X.)
pub fn discard(face: &Face, a: &Ability, tags: &[String], missing: &mut Vec<String>) -> Vec<Value> {
    if tags.iter().any(|t| t != "targets_player") {
        missing.push("A:SP$ Discard at a non-player".into());
    }
    let Some(n) = crate::effect::amount(face, a.params.get("NumCards").or(Some("1"))) else {
        missing.push("A:SP$ Discard NumCards$".into());
        return Vec::new();
    };
    let mut conditions = vec![json!({ "type": "owned_by", "by": "self.chosen" })];
    if let Some(v) = a.params.get("DiscardValid") {
        match crate::valid::condition(v, "A:SP$ Discard DiscardValid$") {
            Ok(c) => conditions.push(c),
            Err(m) => missing.push(m),
        }
    }
    // "Target player discards N cards" of their choice: the mtg rules' `discards_chosen`
    // lets that player choose.
    if a.params.get("Mode") == Some("TgtChoose") && a.params.get("DiscardValid").is_none() {
        return vec![
            json!({ "type": "emit", "event": "discards_chosen", "amount": n, "to": { "type": "object", "object": "self.chosen" } }),
        ];
    }
    let pick = match a.params.get("Mode") {
        Some("Random") if a.params.get("DiscardValid").is_none() => json!({ "random": n }),
        Some("RevealYouChoose") => json!({ "chosen": n, "prompt": "choose the card to discard" }),
        other => {
            missing.push(format!(
                "A:SP$ Discard with Mode$ {}",
                other.unwrap_or("(none)")
            ));
            Value::Null
        }
    };
    let from = json!({ "type": "objects", "zone": "hand", "where": conditions, "pick": pick });
    vec![json!({ "type": "move", "zone": "graveyard", "to": from })]
}

/// The parameters [`sacrifice`] reads.
pub const SACRIFICE: &[&str] = &["Defined", "SacValid"];

/// `Sacrifice | Defined$ Player / You / Opponent | SacValid$ Creature` without a target:
/// each of those players sacrifices a creature of their choice (the mtg rules'
/// `sacrifices_creature`, asked of that player). `Err` names what the rules lack.
pub fn sacrifice(a: &Ability) -> Result<Vec<Value>, String> {
    let p = |k: &str| a.params.get(k);
    if p("SacValid") != Some("Creature") {
        return Err(format!(
            "Sacrifice SacValid$ {}",
            p("SacValid").unwrap_or("(none)")
        ));
    }
    let who = match p("Defined") {
        Some("Player") => json!({ "type": "players" }),
        None | Some("You") => json!("owner"),
        Some("Opponent") => json!({ "type": "players", "which": "enemy" }),
        Some(other) => return Err(format!("Sacrifice Defined$ {other}")),
    };
    Ok(vec![
        json!({ "type": "emit", "event": "sacrifices_creature", "to": who }),
    ])
}
