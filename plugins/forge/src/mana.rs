//! Mana added by an ability that is not a mana ability — a triggered ability on the
//! stack (`AB$ Mana | Cost$ 0 | Produced$ Any`: Lotus Cobra's landfall): one mana of a
//! colour, or (`Any`) of the colour its controller chooses (`core:action/choose_mode`),
//! into its controller's pool (`pool_w` ... `pool_c`). And triggered mana abilities
//! (605.1b), which do not use the stack: "whenever enchanted land is tapped for mana, its
//! controller adds {G}" (`T:Mode$ TapsForMana | ValidCard$ Card.AttachedBy | Static$
//! True`: Wild Growth), heard on the mtg rules' `tapped_for_mana`.

use forge_script::{Ability, Face};
use serde_json::{json, Value};

/// The colours by Forge's letter and the pool each fills.
const POOLS: &[(&str, &str)] = &[
    ("W", "pool_w"),
    ("U", "pool_u"),
    ("B", "pool_b"),
    ("R", "pool_r"),
    ("G", "pool_g"),
    ("C", "pool_c"),
];

/// The actions adding the mana of `a` (`Produced$`, `Amount$` N); `Err` names what the
/// rules cannot add.
pub fn produced(a: &Ability) -> Result<Vec<Value>, String> {
    produced_for(a, json!("owner"))
}

/// The same into the pool of the player `to` selects.
fn produced_for(a: &Ability, to: Value) -> Result<Vec<Value>, String> {
    let produced = a.params.get("Produced").unwrap_or("?");
    let amount: i64 = match a.params.get("Amount") {
        None => 1,
        Some(n) => n.parse().map_err(|_| format!("Mana with Amount$ {n}"))?,
    };
    let add = |pool: &str| json!({ "type": "add", "key": pool, "amount": amount, "to": to });
    if produced == "Any" {
        let modes: Vec<Value> = POOLS[..5]
            .iter()
            .map(|(letter, pool)| json!({ "label": letter, "do": [add(pool)] }))
            .collect();
        return Ok(vec![
            json!({ "type": "choose_mode", "prompt": "add one mana of any colour", "modes": modes }),
        ]);
    }
    match POOLS.iter().find(|(letter, _)| *letter == produced) {
        Some((_, pool)) => Ok(vec![add(pool)]),
        None => Err(format!("Mana with Produced$ {produced}")),
    }
}

/// `T:Mode$ TapsForMana | ValidCard$ Card.AttachedBy | Static$ True | Execute$ X`, `X` =
/// `AB$ Mana | Cost$ 0 | Produced$ <colour> | Defined$ TriggeredCardController`: a card
/// trigger adding the mana at once to the pool of the tapped land's controller; `Err`
/// names what the rules lack.
pub fn taps_for_mana(face: &Face, t: &Ability) -> Result<Value, String> {
    let lacks = || "T:Mode$ TapsForMana".to_string();
    let known = t.params.0.iter().all(|(k, _)| {
        [
            "Mode",
            "ValidCard",
            "Execute",
            "Static",
            "TriggerZones",
            "TriggerDescription",
        ]
        .contains(&k.as_str())
    });
    let exec = t
        .params
        .get("Execute")
        .and_then(|n| face.svar(n))
        .and_then(|s| s.ability.as_ref())
        .ok_or_else(lacks)?;
    let exec_known = exec.api.as_deref() == Some("Mana")
        && matches!(exec.params.get("Cost"), None | Some("0"))
        && matches!(
            exec.params.get("Defined"),
            None | Some("TriggeredCardController")
        )
        && exec.params.0.iter().all(|(k, _)| {
            ["AB", "DB", "Cost", "Produced", "Amount", "Defined"].contains(&k.as_str())
        });
    if !(known
        && exec_known
        && t.params.get("ValidCard") == Some("Card.AttachedBy")
        && t.params.get("Static") == Some("True"))
    {
        return Err(lacks());
    }
    let actions = produced_for(exec, json!({ "type": "owner", "of": "event.target" }))
        .map_err(|_| lacks())?;
    Ok(json!({
        "when": { "event": "tapped_for_mana", "target": { "type": "same", "a": "target", "b": "self.parent" } },
        "zones": ["battlefield"],
        "do": actions,
    }))
}
