//! Triggered abilities with a cost paid as they resolve: "you may exile a black creature
//! card other than CARDNAME from your graveyard. If you do, return CARDNAME to the
//! battlefield" (Ichorid: `OptionalDecider$ You` and an `Execute$` ability with `Cost$
//! ExileFromGrave<N/valid>`). Its controller chooses whether to pay; paying exiles the N
//! cards they choose, and the effect happens only if they were exiled. `Other` in the
//! valid expression is "other than the card": the card is marked `cost_source` while the
//! cost is paid.

use forge_script::Ability;
use serde_json::{json, Value};

/// The actions that offer to pay `cost` and, if it is paid, do `effect`; `Err` names a
/// cost the rules cannot pay as a trigger resolves.
pub fn may_pay(title: &str, cost: &str, effect: Vec<Value>) -> Result<Vec<Value>, String> {
    let unsupported = || format!("a triggered ability with Cost$ {cost}");
    let inner = cost
        .strip_prefix("ExileFromGrave<")
        .and_then(|r| r.strip_suffix('>'))
        .ok_or_else(unsupported)?;
    let (n, valid) = inner.split_once('/').ok_or_else(unsupported)?;
    let n: i64 = n.parse().map_err(|_| unsupported())?;
    let (valid, other) = without_other(valid);
    let mut which = vec![crate::valid::condition(&valid, "ExileFromGrave")?];
    if other {
        which.push(json!({ "not": { "type": "has_tag", "tag": "cost_source" } }));
    }
    let card = json!({ "type": "object", "object": "self.source_card" });
    let chosen = json!({ "type": "objects", "zone": "graveyard", "owner": "friendly", "where": which,
        "pick": { "chosen": n, "prompt": format!("{title}: choose the cards to exile") } });
    let paid = json!({ "type": "objects", "zone": "exile", "tag": "paid_cost" });
    let pay = vec![
        json!({ "type": "tag", "tag": "paid_cost", "to": chosen }),
        json!({ "type": "move", "zone": "exile", "to": { "type": "objects", "zone": "graveyard", "tag": "paid_cost" } }),
        json!({ "type": "if", "condition": { "type": "compare", "left": "count(paid_cost)", "op": ">=", "right": n }, "then": effect }),
        json!({ "type": "untag", "tag": "paid_cost", "to": paid }),
    ];
    Ok(vec![
        json!({ "type": "tag", "tag": "cost_source", "to": card.clone() }),
        json!({ "type": "choose_mode", "prompt": format!("{title}: pay the cost?"), "modes": [
            { "label": "pay", "do": pay },
            { "label": "don't pay", "do": [] },
        ] }),
        json!({ "type": "untag", "tag": "cost_source", "to": card }),
    ])
}

/// `Creature.Black+Other` → (`Creature.Black`, true).
fn without_other(valid: &str) -> (String, bool) {
    let (base, props) = valid.split_once('.').unwrap_or((valid, ""));
    let kept: Vec<&str> = props
        .split('+')
        .filter(|p| !p.is_empty() && *p != "Other")
        .collect();
    let other = props.split('+').any(|p| p == "Other");
    match kept.is_empty() {
        true => (base.to_owned(), other),
        false => (format!("{base}.{}", kept.join("+")), other),
    }
}

/// `exec` without its `Cost$` (the effect alone), and the cost, when it has one to pay.
pub fn split_cost(exec: &Ability) -> Option<(Ability, String)> {
    let cost = exec.params.get("Cost").filter(|c| *c != "0")?.to_owned();
    let mut plain = exec.clone();
    plain.params.0.retain(|(k, _)| k != "Cost");
    Some((plain, cost))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exile_a_card_other_than_this_one() {
        assert_eq!(
            without_other("Creature.Black+Other"),
            ("Creature.Black".into(), true)
        );
        assert_eq!(without_other("Card"), ("Card".into(), false));
        let acts = Value::Array(
            may_pay(
                "I",
                "ExileFromGrave<1/Creature.Black+Other>",
                vec![json!({ "type": "x" })],
            )
            .unwrap(),
        )
        .to_string();
        for part in [
            "cost_source",
            "\"zone\":\"exile\"",
            "\"tag\":\"black\"",
            "count(paid_cost)",
        ] {
            assert!(acts.contains(part), "{part} in {acts}");
        }
        assert!(may_pay("I", "Sac<1/Creature>", Vec::new()).is_err());
    }
}
