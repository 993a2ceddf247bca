//! Activated abilities that tap their permanent to deal damage: `A:AB$ DealDamage | Cost$ T
//! | ValidTgts$ Creature,Player | NumDmg$ N` (Prodigal Sorcerer). The card gets the tag
//! `tap_ability` (the mtg mod's `activate` move taps it and raises `activated`) and a
//! trigger that puts an ability object (`<card>_ab`) on the stack; the ability chooses its
//! target when created and resolves like a spell (re-checked: an illegal target fizzles).

use forge_script::{Ability, Face};
use serde_json::{json, Value};

use crate::trigger::ability_class;

/// The card's trigger and the ability class to add.
pub struct Activated {
    /// The card's trigger on `activated`.
    pub card_trigger: Value,
    /// The ability class's name and definition.
    pub ability: (String, Value),
}

/// Translates one `AB$ DealDamage` line of the card `class`; `Err` lists what it lacks.
pub fn translate(face: &Face, class: &str, a: &Ability) -> Result<Activated, Vec<String>> {
    let api = a.api.as_deref().unwrap_or("?");
    let known = [
        "AB",
        "Cost",
        "ValidTgts",
        "TgtPrompt",
        "NumDmg",
        "SpellDescription",
        "AILogic",
    ];
    let mut missing: Vec<String> = a
        .params
        .keys_outside(&known)
        .map(|k| format!("A:AB$ {api} with {k}$"))
        .collect();
    if api != "DealDamage" {
        missing.push(format!("A:AB$ {api}"));
    }
    if a.params.get("Cost") != Some("T") {
        missing.push(format!(
            "A:AB$ {api} with Cost$ {}",
            a.params.get("Cost").unwrap_or("(none)")
        ));
    }
    let amount = a.params.get("NumDmg").and_then(|n| n.parse::<i64>().ok());
    if amount.is_none() {
        missing.push(format!("A:AB$ {api} without a number"));
    }
    let mut from = Vec::new();
    for t in a.params.get("ValidTgts").unwrap_or("").split(',') {
        match t.trim() {
            "Creature" => from.push(
                json!({ "type": "objects", "zone": "battlefield", "tag": "creature", "where": { "ref": "not_hexproof_against_me" } }),
            ),
            "Player" => from.push(json!({ "type": "players" })),
            other => missing.push(format!("A:AB$ ValidTgts$ {other}")),
        }
    }
    if !missing.is_empty() {
        return Err(missing);
    }
    let prompt = a.params.get("TgtPrompt").unwrap_or("Select a target");
    let choose = json!({ "from": from, "pick": { "chosen": 1, "prompt": prompt } });
    let effect = json!({ "type": "damage", "amount": amount, "source": "self", "to": { "ref": "spell_target" } });
    let name = format!("{class}_ab");
    let def = ability_class(
        &format!("{} (ability)", face.name),
        Some(choose),
        "spell_target",
        vec![effect],
    );
    let card_trigger = json!({
        "when": { "event": "activated", "target": { "type": "is_self" } },
        "do": [{ "type": "create", "class": name, "zone": "stack" }],
    });
    Ok(Activated {
        card_trigger,
        ability: (name, def),
    })
}
