//! "When this creature enters the battlefield, <effect> target creature": `T:Mode$
//! ChangesZone | Destination$ Battlefield | ValidCard$ Card.Self | Execute$ X` with `X` a
//! `DB$ Destroy`, `DB$ DealDamage | NumDmg$ N` or `DB$ ChangeZone | Destination$ Hand`
//! aimed by `ValidTgts$ Creature[.filter]`. The card gets a trigger that puts an ability
//! object (class `<card>_etb`) on the stack; the ability chooses its target when it is
//! created, and on resolution re-checks it (an illegal target: it fizzles), acts, and
//! leaves the stack — the mtg rules' priority passing resolves it like a spell.

use forge_script::{Ability, Face};
use serde_json::{json, Map, Value};

/// The card's triggers and the ability class to add, or what it lacks.
pub struct Etb {
    /// Triggers of the card itself.
    pub card_trigger: Value,
    /// The ability class's name and definition.
    pub ability: (String, Value),
}

/// Translates one `T:` line of the card `class`; `Err` lists the constructs it lacks.
pub fn translate(face: &Face, class: &str, t: &Ability) -> Result<Etb, Vec<String>> {
    let mode = t.api.as_deref().unwrap_or("?");
    let mut missing = Vec::new();
    let etb = mode == "ChangesZone"
        && t.params.get("Destination") == Some("Battlefield")
        && matches!(t.params.get("Origin"), None | Some("Any"))
        && matches!(
            t.params.get("ValidCard"),
            Some("Card.Self" | "Creature.Self")
        );
    let known = [
        "Mode",
        "Origin",
        "Destination",
        "ValidCard",
        "Execute",
        "TriggerDescription",
    ];
    if !etb || t.params.0.iter().any(|(k, _)| !known.contains(&k.as_str())) {
        return Err(vec![format!("T:Mode$ {mode}")]);
    }
    let Some(exec) = t
        .params
        .get("Execute")
        .and_then(|n| face.svar(n))
        .and_then(|s| s.ability.as_ref())
    else {
        return Err(vec![
            "T:Mode$ ChangesZone without an Execute$ ability".into()
        ]);
    };
    let api = exec.api.as_deref().unwrap_or("?");
    let allowed = [
        "DB",
        "ValidTgts",
        "TgtPrompt",
        "NumDmg",
        "NoRegen",
        "Origin",
        "Destination",
    ];
    for (k, _) in &exec.params.0 {
        if !allowed.contains(&k.as_str()) {
            missing.push(format!("ETB DB$ {api} with {k}$"));
        }
    }
    let filter = target_filter(exec.params.get("ValidTgts"), &mut missing);
    let target = json!({ "type": "object", "object": "self.chosen", "where": filter.clone() });
    let effect = match api {
        "Destroy" => json!({ "type": "destroy", "to": target }),
        "DealDamage" => match exec
            .params
            .get("NumDmg")
            .and_then(|n| n.parse::<i64>().ok())
        {
            Some(n) => json!({ "type": "damage", "amount": n, "source": "self", "to": target }),
            None => {
                missing.push("ETB DB$ DealDamage without a number".into());
                Value::Null
            }
        },
        "ChangeZone"
            if exec.params.get("Destination") == Some("Hand")
                && exec.params.get("Origin") == Some("Battlefield") =>
        {
            json!({ "type": "move", "zone": "hand", "to": target })
        }
        other => {
            missing.push(format!("ETB DB$ {other}"));
            Value::Null
        }
    };
    if !missing.is_empty() {
        return Err(missing);
    }
    let ability = format!("{class}_etb");
    let prompt = exec
        .params
        .get("TgtPrompt")
        .unwrap_or("Select target creature");
    let choose = json!({ "type": "objects", "zone": "battlefield", "tag": "creature", "where": filter, "pick": { "chosen": 1, "prompt": prompt } });
    let title = format!("{} (enters the battlefield)", face.name);
    let def = ability_class(&title, choose, "etb_target", effect);
    let card_trigger = json!({
        "when": { "event": "core:event/moved", "target": [{ "type": "is_self" }, { "type": "in_zone", "zone": "battlefield" }] },
        "do": [{ "type": "create", "class": ability, "zone": "stack" }],
    });
    Ok(Etb {
        card_trigger,
        ability: (ability, def),
    })
}

/// An ability object's class: it chooses its target (`choose`, a selector with a chosen
/// pick) when it is created, and when it resolves on the stack acts (`effect`) if its
/// target is still legal (`count(legal_ref)`), else fizzles; then it leaves the stack.
pub fn ability_class(title: &str, choose: Value, legal_ref: &str, effect: Value) -> Value {
    let mut props = Map::new();
    props.insert("title".into(), json!(title));
    json!({
        "properties": Value::Object(props),
        "tags": ["ability"],
        "trigger": [
            { "when": { "event": "core:event/created", "target": { "type": "is_self" } },
              "do": [{ "type": "link", "key": "chosen", "object": choose }] },
            { "when": { "event": "resolve", "target": { "type": "is_self" } },
              "zones": ["stack"],
              "do": [
                { "type": "if", "condition": { "type": "compare", "left": format!("count({legal_ref})"), "op": "==", "right": 0 },
                  "then": [{ "type": "emit", "event": "fizzled", "to": "self" }],
                  "else": [effect] },
                { "type": "move", "zone": "resolved", "to": "self" },
              ] },
        ],
    })
}

/// `Creature`, `Creature.OppCtrl`, `Creature.nonArtifact+nonBlack` → the conditions a
/// target must meet (on the battlefield, a creature, and the filter).
fn target_filter(valid: Option<&str>, missing: &mut Vec<String>) -> Value {
    let mut all = vec![
        json!({ "type": "in_zone", "zone": "battlefield" }),
        json!({ "type": "has_tag", "tag": "creature" }),
    ];
    let Some(v) = valid else {
        missing.push("ETB ability without ValidTgts$".into());
        return Value::Array(all);
    };
    let (base, props) = v.split_once('.').unwrap_or((v, ""));
    if base != "Creature" || v.contains(',') {
        missing.push(format!("ETB ValidTgts$ {v}"));
    }
    for p in props.split('+').filter(|p| !p.is_empty()) {
        match p {
            "OppCtrl" => all.push(json!({ "type": "owned_by", "owner": "enemy" })),
            "YouCtrl" => all.push(json!({ "type": "owned_by", "owner": "friendly" })),
            _ => match p.strip_prefix("non") {
                Some(t) if !t.is_empty() => {
                    all.push(json!({ "not": { "type": "has_tag", "tag": crate::card::slug(t) } }));
                }
                _ => missing.push(format!("ETB ValidTgts$ filter .{p}")),
            },
        }
    }
    Value::Array(all)
}
