//! A spell's sub-ability (`SubAbility$ Name` after its targeted effect): what the spell
//! does after acting on its target — you draw or gain life, the target's controller gains
//! life (its last-known power: Swords to Plowshares) or may search (Path to Exile),
//! "then reveals the top card of their library" (Chaos Warp).

use forge_script::Face;
use serde_json::{json, Value};

use crate::effect::number;

/// `SubAbility$ Name` → the SVar's `DB$` ability: `Draw | NumCards$ N` (you draw),
/// `GainLife | LifeAmount$ N` (you gain),
/// or `GainLife | Defined$ RememberedController | LifeAmount$ X` with `X` the target's
/// last-known power (its controller gains it; the flag says the power must be read
/// before the spell acts); a `DB$ Cleanup` after it does nothing here.
pub(crate) fn sub_ability(
    face: &Face,
    name: &str,
    missing: &mut Vec<String>,
) -> (Vec<Value>, bool) {
    let Some(ab) = face.svar(name).and_then(|s| s.ability.as_ref()) else {
        missing.push(format!("SubAbility$ {name} (not an ability)"));
        return (Vec::new(), false);
    };
    let api = ab.api.as_deref().unwrap_or("?");
    let plain = ab.params.0.iter().all(|(k, _)| {
        [
            "DB",
            "LifeAmount",
            "SpellDescription",
            "Defined",
            "References",
            "SubAbility",
        ]
        .contains(&k.as_str())
    });
    if let Some(next) = ab.params.get("SubAbility") {
        let cleanup = face
            .svar(next)
            .and_then(|s| s.ability.as_ref())
            .is_some_and(|c| c.api.as_deref() == Some("Cleanup") && c.params.0.len() <= 2);
        if !cleanup {
            missing.push(format!("SubAbility$ {next} after {api}"));
        }
    }
    let lki_power = |n: &str| {
        face.svar(n).is_some_and(|s| {
            s.value == "RememberedLKI$CardPower" || s.value == "Targeted$CardPower"
        })
    };
    // "A creature dealt damage this way can't be regenerated": no regeneration exists.
    let no_regen = api == "Pump"
        && ab.params.get("KW") == Some("HIDDEN CARDNAME can't be regenerated.")
        && ab.params.get("Defined") == Some("Targeted")
        && ab.params.0.len() == 3;
    if no_regen {
        return (Vec::new(), false);
    }
    let amount = ab.params.get("LifeAmount");
    let only = |keys: &[&str]| ab.params.0.iter().all(|(k, _)| keys.contains(&k.as_str()));
    if api == "LoseLife" && only(&["DB", "LifeAmount"]) {
        if let Some(n) = number(ab.params.get("LifeAmount")) {
            return (
                vec![json!({ "type": "add", "key": "damage", "amount": n, "to": "owner" })],
                false,
            );
        }
    }
    if api == "Draw"
        && ab
            .params
            .0
            .iter()
            .all(|(k, _)| ["DB", "NumCards"].contains(&k.as_str()))
    {
        if let Some(n) = number(ab.params.get("NumCards").or(Some("1"))) {
            return (
                vec![json!({ "type": "emit", "event": "draw", "count": n, "to": "owner" })],
                false,
            );
        }
    }
    // "If it was kicked, instead it deals N damage to that target and the damage can't be
    // prevented" (Urza's Rage): the spell is `unpreventable` while it deals it, which the
    // rules' preventions leave alone.
    if api == "DealDamage"
        && ab.params.get("Defined") == Some("Targeted")
        && only(&[
            "DB",
            "Defined",
            "NumDmg",
            "References",
            "NoPrevention",
            "Condition",
            "ConditionDescription",
        ])
        && matches!(ab.params.get("Condition"), None | Some("Kicked"))
    {
        if let Some(n) = crate::effect::amount(face, ab.params.get("NumDmg")) {
            let mut act = vec![
                json!({ "type": "damage", "amount": n, "source": "self", "to": { "ref": "spell_target" } }),
            ];
            if ab.params.get("NoPrevention") == Some("True") {
                act.insert(
                    0,
                    json!({ "type": "tag", "tag": "unpreventable", "to": "self" }),
                );
                act.push(json!({ "type": "untag", "tag": "unpreventable", "to": "self" }));
            }
            if ab.params.get("Condition") == Some("Kicked") {
                act = vec![
                    json!({ "type": "if", "to": "self", "condition": { "type": "compare", "left": "target.kicked", "op": ">", "right": 0 }, "then": act }),
                ];
            }
            return (act, false);
        }
    }
    if api == "ChangeZone" && ab.params.get("DefinedPlayer") == Some("TargetedController") {
        return (crate::asks::target_controller_searches(ab, missing), false);
    }
    // "Then reveals the top card of their library ..." (Chaos Warp).
    if api == "Dig" && ab.params.get("SubAbility").is_none() {
        let unknown = ab
            .params
            .keys_outside(crate::library::DIG)
            .find(|k| !["DB", "SpellDescription", "StackDescription"].contains(k));
        return match (unknown, crate::library::dig(ab)) {
            (None, Ok(actions)) => (actions, false),
            (Some(k), _) => {
                missing.push(format!("SubAbility DB$ Dig with {k}$"));
                (Vec::new(), false)
            }
            (None, Err(m)) => {
                missing.push(m);
                (Vec::new(), false)
            }
        };
    }
    match (api, ab.params.get("Defined"), number(amount)) {
        ("GainLife", None | Some("You"), Some(n)) if plain => (
            vec![json!({ "type": "add", "key": "damage", "amount": -n, "to": "owner" })],
            false,
        ),
        // "Its controller gains N life" (Oust).
        ("GainLife", Some("TargetedController"), Some(n)) if plain => (
            vec![
                json!({ "type": "add", "key": "damage", "amount": -n, "to": { "type": "owner", "of": "self.chosen" } }),
            ],
            false,
        ),
        ("GainLife", Some("RememberedController" | "TargetedController"), None)
            if plain && amount.is_some_and(lki_power) =>
        {
            (
                vec![
                    json!({ "type": "add", "key": "damage", "amount": "0 - self.lki_power", "to": { "type": "owner", "of": "self.chosen" } }),
                ],
                true,
            )
        }
        _ => {
            missing.push(format!("SubAbility DB$ {api}"));
            (Vec::new(), false)
        }
    }
}
