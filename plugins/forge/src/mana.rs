//! Mana added by an ability that is not a mana ability — a triggered ability on the
//! stack (`AB$ Mana | Cost$ 0 | Produced$ Any`: Lotus Cobra's landfall): one mana of a
//! colour, or (`Any`) of the colour its controller chooses (`core:action/choose_mode`),
//! into its controller's pool (`pool_w` ... `pool_c`).

use forge_script::Ability;
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
    let produced = a.params.get("Produced").unwrap_or("?");
    let amount: i64 = match a.params.get("Amount") {
        None => 1,
        Some(n) => n.parse().map_err(|_| format!("Mana with Amount$ {n}"))?,
    };
    let add = |pool: &str| json!({ "type": "add", "key": pool, "amount": amount, "to": "owner" });
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
