//! Modal activated abilities: `A:AB$ Charm | Cost$ ... | Choices$ A,B,C` ("choose one",
//! Umezawa's Jitte). The mode is chosen as the ability is activated (its object is
//! created: `charm_mode`), with the target of a mode that has one (`ValidTgts$
//! Creature`: `chosen`); as it resolves only that mode acts — a targeted mode whose
//! target is gone fizzles. Modes: at the target, `Pump`, `DealDamage | NumDmg$ N`,
//! `Destroy`; without one, `Pump | Defined$ Equipped` (the creature the card equips) or
//! `Self`, and the untargeted effects of [`crate::effect`].

use forge_script::{Ability, Face};
use serde_json::{json, Value};

use crate::trigger::ability_class;

/// The parameters of the charm line itself.
const KEYS: &[&str] = &[
    "AB",
    "Cost",
    "Choices",
    "CharmNum",
    "Defined",
    "SpellDescription",
    "AILogic",
];

/// The ability class of the charm `a` of the card `class`, and the classes its modes
/// need; `Err` lists what the rules lack.
pub fn ability(
    face: &Face,
    class: &str,
    title: &str,
    a: &Ability,
) -> Result<(Value, Vec<(String, Value)>), Vec<String>> {
    let mut missing: Vec<String> = a
        .params
        .keys_outside(KEYS)
        .map(|k| format!("A:AB$ Charm with {k}$"))
        .collect();
    if !matches!(a.params.get("CharmNum"), None | Some("1")) {
        missing.push("A:AB$ Charm with CharmNum$ other than 1".into());
    }
    if !matches!(a.params.get("Defined"), None | Some("You")) {
        missing.push("A:AB$ Charm with Defined$".into());
    }
    let mut modes = Vec::new();
    let mut resolve = Vec::new();
    let mut classes = Vec::new();
    for (i, name) in crate::charm::choices(a).into_iter().enumerate() {
        let Some(m) = face.svar(name).and_then(|s| s.ability.as_ref()) else {
            missing.push(format!("A:AB$ Charm choice {name} (not an ability)"));
            continue;
        };
        match mode(face, class, m) {
            Ok((targeted, actions, more)) => {
                let n = i + 1;
                let label = m.params.get("SpellDescription").unwrap_or(name).to_owned();
                let mut pick =
                    vec![json!({ "type": "set", "key": "charm_mode", "value": n, "to": "self" })];
                let mut mode_def = json!({ "label": label, "do": [] });
                let mut act = actions;
                if targeted {
                    pick.push(json!({ "type": "link", "key": "chosen", "to": "self", "object": { "type": "objects", "zone": "battlefield", "tag": "creature",
                        "where": { "ref": "targetable_by_me" }, "pick": { "chosen": 1, "prompt": m.params.get("TgtPrompt").unwrap_or("Select target creature") } } }));
                    mode_def["if"] = json!({ "type": "compare", "left": "count(all_creatures)", "op": ">", "right": 0 });
                    act = vec![
                        json!({ "type": "if", "condition": { "type": "compare", "left": "count(etb_target)", "op": "==", "right": 0 },
                        "then": [{ "type": "emit", "event": "fizzled", "to": "self" }], "else": act }),
                    ];
                }
                mode_def["do"] = Value::Array(pick);
                modes.push(mode_def);
                resolve.push(json!({ "type": "if", "condition": { "type": "compare", "left": "self.charm_mode", "op": "==", "right": n }, "then": act }));
                classes.extend(more);
            }
            Err(m) => missing.extend(m),
        }
    }
    if !missing.is_empty() {
        return Err(missing);
    }
    let mut def = ability_class(title, None, "spell_target", resolve);
    let choose = json!({ "type": "choose_mode", "prompt": format!("{}: choose one", face.name), "modes": modes });
    if let Some(created) = def["trigger"][0]["do"].as_array_mut() {
        created.push(choose);
    }
    Ok((def, classes))
}

/// One mode: whether it targets a creature, its actions, and classes it needs.
fn mode(
    face: &Face,
    class: &str,
    m: &Ability,
) -> Result<(bool, Vec<Value>, Vec<(String, Value)>), Vec<String>> {
    let api = m.api.as_deref().unwrap_or("?");
    let mut plain = m.clone();
    plain
        .params
        .0
        .retain(|(k, _)| !matches!(k.as_str(), "SpellDescription" | "IsCurse" | "TgtPrompt"));
    let at = json!({ "ref": "etb_target" });
    match (plain.params.get("ValidTgts"), plain.params.get("Defined")) {
        (Some("Creature"), None) => {
            plain.params.0.retain(|(k, _)| k != "ValidTgts");
            let effect = match api {
                "Pump" => crate::activated::pump(face, &plain, at)?,
                "Destroy" => json!({ "type": "destroy", "to": at }),
                "DealDamage" => match crate::effect::number(plain.params.get("NumDmg")) {
                    Some(n) => json!({ "type": "damage", "amount": n, "source": "self", "to": at }),
                    None => {
                        return Err(vec![format!(
                            "A:AB$ Charm mode DealDamage without a number"
                        )])
                    }
                },
                other => return Err(vec![format!("A:AB$ Charm mode {other} at a creature")]),
            };
            let extra: Vec<String> = plain
                .params
                .keys_outside(&["DB", "NumAtt", "NumDef", "KW", "NumDmg"])
                .map(|k| format!("A:AB$ Charm mode {api} with {k}$"))
                .collect();
            if !extra.is_empty() {
                return Err(extra);
            }
            Ok((true, vec![effect], Vec::new()))
        }
        (Some(v), _) => Err(vec![format!("A:AB$ Charm mode at ValidTgts$ {v}")]),
        (None, Some("Equipped")) if api == "Pump" => {
            let equipped = json!({ "type": "object", "object": "self.source_card.parent",
                "where": [{ "type": "in_zone", "zone": "battlefield" }, { "type": "has_tag", "tag": "creature" }] });
            plain.params.0.retain(|(k, _)| k != "Defined");
            Ok((
                false,
                vec![crate::activated::pump(face, &plain, equipped)?],
                Vec::new(),
            ))
        }
        _ => {
            let e = crate::effect::untargeted(face, class, &plain).map_err(|m| {
                m.into_iter()
                    .map(|m| format!("A:AB$ Charm mode {m}"))
                    .collect::<Vec<_>>()
            })?;
            Ok((false, e.actions, e.classes))
        }
    }
}
