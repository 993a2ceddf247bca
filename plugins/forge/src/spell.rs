//! Instants and sorceries with one target: `SP$ DealDamage` (N damage to a creature or
//! player), `SP$ Pump` (+N/+M and keywords until end of turn) and `SP$ Counter` (a spell
//! on the stack goes to its owner's graveyard), optionally followed by
//! `SubAbility$` → `DB$ GainLife` (you gain N life). Each becomes a trigger on the mtg
//! mod's `resolve` event that acts on the target chosen on cast (re-checked: an illegal
//! target makes the spell fizzle) and then puts the card into its owner's graveyard.

use forge_script::{Ability, Face};
use serde_json::{json, Value};

use crate::card::KEYWORDS;

/// A spell's trigger and the tags saying what it may target, or what it lacks.
pub struct Spell {
    /// `targets_creature` / `targets_player`.
    pub tags: Vec<String>,
    /// The class trigger that resolves it.
    pub trigger: Value,
}

/// Translates the card's `SP$` line (`a`); `Err` lists the constructs it lacks.
pub fn translate(face: &Face, a: &Ability) -> Result<Spell, Vec<String>> {
    let api = a.api.as_deref().unwrap_or("?");
    let mut missing = Vec::new();
    let known = [
        "SP",
        "Cost",
        "ValidTgts",
        "TgtPrompt",
        "NumDmg",
        "NumAtt",
        "NumDef",
        "KW",
        "SpellDescription",
        "SubAbility",
        "AILogic",
        "TargetType",
    ];
    for (k, _) in &a.params.0 {
        if !known.contains(&k.as_str()) {
            missing.push(format!("A:SP$ {api} with {k}$"));
        }
    }
    let tags = targets(a, api, &mut missing);
    let mut effect = match api {
        "DealDamage" => deal_damage(a, &mut missing),
        "Pump" => pump(a, &tags, &mut missing),
        "Counter" => {
            vec![json!({ "type": "move", "zone": "graveyard", "to": { "ref": "spell_target" } })]
        }
        other => {
            missing.push(format!("A:SP$ {other}"));
            Vec::new()
        }
    };
    if let Some(sub) = a.params.get("SubAbility") {
        effect.extend(sub_ability(face, sub, &mut missing));
    }
    if !missing.is_empty() {
        return Err(missing);
    }
    let mut actions = vec![
        json!({ "type": "if", "condition": { "type": "compare", "left": "count(spell_target)", "op": "==", "right": 0 },
        "then": [{ "type": "emit", "event": "fizzled", "to": "self" }],
        "else": effect }),
    ];
    actions.push(json!({ "type": "move", "zone": "graveyard", "to": "self" }));
    let trigger = json!({
        "when": { "event": "resolve", "target": { "type": "is_self" } },
        "zones": ["stack"],
        "do": actions,
    });
    Ok(Spell { tags, trigger })
}

/// `ValidTgts$ Creature,Player` → the targeting tags; `TargetType$ Spell | ValidTgts$ Card`
/// (any spell on the stack) → `targets_spell`.
fn targets(a: &Ability, api: &str, missing: &mut Vec<String>) -> Vec<String> {
    let mut tags = Vec::new();
    let spell = a.params.get("TargetType") == Some("Spell");
    if let Some(t) = a.params.get("TargetType").filter(|_| !spell) {
        missing.push(format!("TargetType$ {t}"));
    }
    match a.params.get("ValidTgts") {
        None => missing.push(format!("A:SP$ {api} without ValidTgts$")),
        Some(v) => {
            for t in v.split(',') {
                match (t.trim(), spell) {
                    ("Creature", false) => tags.push("targets_creature".to_owned()),
                    ("Player", false) => tags.push("targets_player".to_owned()),
                    ("Card", true) => tags.push("targets_spell".to_owned()),
                    (other, _) => missing.push(format!("ValidTgts$ {other}")),
                }
            }
        }
    }
    if (api == "Counter") != spell {
        missing.push(format!("A:SP$ {api} with TargetType$ Spell"));
    }
    tags
}

/// A whole number written as `3`, `+3` or `-2`.
fn number(text: Option<&str>) -> Option<i64> {
    let t = text?.trim();
    t.strip_prefix('+').unwrap_or(t).parse().ok()
}

fn deal_damage(a: &Ability, missing: &mut Vec<String>) -> Vec<Value> {
    match number(a.params.get("NumDmg")) {
        Some(n) => vec![
            json!({ "type": "damage", "amount": n, "source": "self", "to": { "ref": "spell_target" } }),
        ],
        None => {
            missing.push(format!(
                "NumDmg$ {}",
                a.params.get("NumDmg").unwrap_or("(none)")
            ));
            Vec::new()
        }
    }
}

fn pump(a: &Ability, tags: &[String], missing: &mut Vec<String>) -> Vec<Value> {
    if tags.iter().any(|t| t != "targets_creature") {
        missing.push("A:SP$ Pump on a non-creature".into());
    }
    let mut modifiers = Vec::new();
    for (param, key) in [("NumAtt", "power"), ("NumDef", "max_health")] {
        match (a.params.get(param), number(a.params.get(param))) {
            (None, _) => {}
            (Some(_), Some(n)) => modifiers.push(json!({ "key": key, "op": "add", "value": n })),
            (Some(t), None) => missing.push(format!("{param}$ {t}")),
        }
    }
    if let Some(kws) = a.params.get("KW") {
        for kw in kws.split('&').map(str::trim) {
            match KEYWORDS.iter().find(|(name, _)| *name == kw) {
                Some((_, tag)) => modifiers.push(json!({ "key": tag, "op": "tag" })),
                None => missing.push(format!("KW$ {kw}")),
            }
        }
    }
    let aura = json!({ "modifiers": modifiers, "until": "cleanup" });
    vec![json!({ "type": "give_aura", "aura": aura, "to": { "ref": "spell_target" } })]
}

/// `SubAbility$ Name` → the SVar's `DB$` ability: `GainLife | LifeAmount$ N` (you gain).
fn sub_ability(face: &Face, name: &str, missing: &mut Vec<String>) -> Vec<Value> {
    let Some(ab) = face.svar(name).and_then(|s| s.ability.as_ref()) else {
        missing.push(format!("SubAbility$ {name} (not an ability)"));
        return Vec::new();
    };
    let api = ab.api.as_deref().unwrap_or("?");
    let plain = ab
        .params
        .0
        .iter()
        .all(|(k, _)| ["DB", "LifeAmount", "SpellDescription"].contains(&k.as_str()));
    match (api, number(ab.params.get("LifeAmount"))) {
        ("GainLife", Some(n)) if plain => {
            vec![json!({ "type": "add", "key": "damage", "amount": -n, "to": "owner" })]
        }
        _ => {
            missing.push(format!("SubAbility DB$ {api}"));
            Vec::new()
        }
    }
}
