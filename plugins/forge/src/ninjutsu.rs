//! Ninjutsu (702.49): `A:AB$ ChangeZone | Cost$ 1 U Return<1/Creature.attacking+unblocked>
//! | ActivationZone$ Hand | Origin$ Hand | Destination$ Battlefield | Defined$ Self |
//! Ninjutsu$ True` becomes the mtg rules' tag `ninjutsu` with the mana part of the cost in
//! `ninjutsu_cost_*` and `ninjutsu_mana_value`; the rules' `ninjutsu` move activates it
//! (`content/ninjutsu.toml`), returning the unblocked attacker as it is paid.

use forge_script::Ability;
use serde_json::{json, Value};

/// The return part of every ninjutsu cost.
const RETURN: &str = "Return<1/Creature.attacking+unblocked>";

/// The parameters a ninjutsu line has.
const KEYS: &[&str] = &[
    "AB",
    "Cost",
    "CostDesc",
    "ActivationZone",
    "Origin",
    "Destination",
    "Defined",
    "Ninjutsu",
    "SpellDescription",
];

/// Whether `a` is a ninjutsu ability.
pub fn is_ninjutsu(a: &Ability) -> bool {
    a.api.as_deref() == Some("ChangeZone") && a.params.get("Ninjutsu") == Some("True")
}

/// The tag and cost properties of the ninjutsu ability `a`; `Err` names what the rules
/// lack (another parameter or cost).
pub fn translate(a: &Ability) -> Result<(String, Vec<(String, Value)>), Vec<String>> {
    let mut missing: Vec<String> = a
        .params
        .keys_outside(KEYS)
        .map(|k| format!("A:AB$ ChangeZone Ninjutsu with {k}$"))
        .collect();
    let p = |k: &str| a.params.get(k);
    let plain = p("ActivationZone") == Some("Hand")
        && p("Origin") == Some("Hand")
        && p("Destination") == Some("Battlefield")
        && matches!(p("Defined"), None | Some("Self"));
    let cost = p("Cost").unwrap_or("");
    let mana: Vec<&str> = cost.split_whitespace().filter(|c| *c != RETURN).collect();
    let props = crate::equipment::cost_parts("ninjutsu", &mana.join(" "));
    match (plain && cost.contains(RETURN), props) {
        (true, Some(props)) if missing.is_empty() => Ok(("ninjutsu".into(), props)),
        _ => {
            missing.push(format!("A:AB$ ChangeZone Ninjutsu with Cost$ {cost}"));
            Err(missing)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ninjutsu_cost() {
        let script = forge_script::parse("Name:N\nManaCost:3 U\nTypes:Creature Ninja\nPT:2/2\nA:AB$ ChangeZone | Cost$ 1 U Return<1/Creature.attacking+unblocked> | CostDesc$ Ninjutsu 1 U | ActivationZone$ Hand | Origin$ Hand | Ninjutsu$ True | Destination$ Battlefield | Defined$ Self | SpellDescription$ x\n");
        let a = &script.faces[0].abilities[0];
        assert!(is_ninjutsu(a));
        let (tag, props) = translate(a).unwrap();
        assert_eq!(tag, "ninjutsu");
        assert!(props.contains(&("ninjutsu_cost_u".into(), json!(1))));
        assert!(props.contains(&("ninjutsu_mana_value".into(), json!(2))));
    }
}
