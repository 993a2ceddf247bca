//! Replacement effects: `R:Event$ Moved | ActiveZones$ Battlefield | Destination$ <zone> |
//! ValidCard$ <valid> | ReplaceWith$ X`, with `X` an `AB$`/`DB$ ChangeZone | Destination$
//! <other> | Defined$ ReplacedCard` (Rest in Peace: "if a card would be put into a
//! graveyard from anywhere, exile it instead"). It becomes two class replacements of the
//! mtg mod — on `destroyed` and on `moved`, when the event's `to` is the zone — that
//! send the card to the other zone, while the holder is on the battlefield (`wasNotCast`:
//! unless it moves from the stack — Containment Priest). Also
//! `R:Event$ DamageDone` changing the damage's amount (Furnace of Rath).

use forge_script::{Ability, Face};
use serde_json::{json, Value};

/// Translates one `R:` line into class replacements; `Err` lists what it lacks.
pub fn translate(face: &Face, r: &Ability) -> Result<Vec<Value>, Vec<String>> {
    let event = r.params.get("Event").unwrap_or("?");
    if event == "AddCounter" {
        return crate::counters::add_counter(face, r).map(|r| vec![r]);
    }
    if event == "DamageDone" {
        return damage_done(face, r).map(|r| vec![r]);
    }
    if event != "Moved" {
        return Err(vec![format!("R:Event$ {event}")]);
    }
    let known = [
        "Event",
        "ActiveZones",
        "Destination",
        "ValidCard",
        "ReplaceWith",
        "Description",
    ];
    let mut missing: Vec<String> = r
        .params
        .keys_outside(&known)
        .map(|k| format!("R:Event$ Moved with {k}$"))
        .collect();
    let zone = |name: Option<&str>, missing: &mut Vec<String>| {
        let found = crate::effect::zone(name);
        if found.is_none() {
            missing.push(format!("R:Event$ Moved zone {}", name.unwrap_or("(none)")));
        }
        found.unwrap_or("")
    };
    let holder_zone = zone(r.params.get("ActiveZones"), &mut missing);
    let would_go = zone(r.params.get("Destination"), &mut missing);
    let with = r
        .params
        .get("ReplaceWith")
        .and_then(|n| face.svar(n))
        .and_then(|s| s.ability.as_ref());
    let goes = match with {
        Some(a)
            if a.api.as_deref() == Some("ChangeZone")
                && a.params.get("Defined") == Some("ReplacedCard") =>
        {
            zone(a.params.get("Destination"), &mut missing)
        }
        _ => {
            missing.push("R:Event$ Moved ReplaceWith$ other than a ChangeZone of the card".into());
            ""
        }
    };
    // `wasNotCast` (Containment Priest): a card cast enters from the stack, so the card
    // was not cast when it would move from anywhere else.
    let valid_card = r.params.get("ValidCard").unwrap_or("Card");
    let (valid_card, not_cast) = match valid_card.strip_suffix("+wasNotCast") {
        Some(v) if !v.contains(',') => (v, true),
        _ => (valid_card, false),
    };
    let valid =
        crate::valid::condition(valid_card, "R:Event$ Moved ValidCard$").unwrap_or_else(|m| {
            missing.push(m);
            Value::Null
        });
    if !missing.is_empty() {
        return Err(missing);
    }
    let mut target = vec![
        valid,
        json!({ "type": "event_field", "field": "to", "is": would_go }),
    ];
    if not_cast {
        target.push(json!({ "not": { "type": "event_field", "field": "from", "is": "stack" } }));
    }
    Ok(["core:event/destroyed", "core:event/moved"]
        .iter()
        .map(|event| {
            json!({
                "would": { "event": event, "target": target },
                "zones": [holder_zone],
                "to": goes,
            })
        })
        .collect())
}

/// `R:Event$ DamageDone | ActiveZones$ Battlefield | ValidSource$ Card | ValidTarget$
/// Creature,Player | IsCombat$ True/False | ReplaceWith$ X`, with `X` a `DealDamage |
/// Defined$ ReplacedTarget | DamageSource$ ReplacedSource | NumDmg$ Y` and `Y`
/// `ReplaceCount$DamageAmount/Twice` (or `/Plus.N`): a class replacement changing the
/// amount of the damage (Furnace of Rath: double). `IsCombat$` tells combat damage (from
/// a creature the mtg rules tag `striking` while it deals it) from other damage.
fn damage_done(face: &Face, r: &Ability) -> Result<Value, Vec<String>> {
    let p = |k: &str| r.params.get(k);
    let known = [
        "Event",
        "ActiveZones",
        "ValidSource",
        "ValidTarget",
        "ReplaceWith",
        "IsCombat",
        "Secondary",
        "Description",
    ];
    let mut missing: Vec<String> = r
        .params
        .keys_outside(&known)
        .map(|k| format!("R:Event$ DamageDone with {k}$"))
        .collect();
    if p("ActiveZones") != Some("Battlefield") {
        missing.push("R:Event$ DamageDone outside the battlefield".into());
    }
    // Any source: a card, or an ability (whose source is its card).
    if !matches!(p("ValidSource"), None | Some("Card")) {
        missing.push(format!(
            "R:Event$ DamageDone ValidSource$ {}",
            p("ValidSource").unwrap_or("")
        ));
    }
    let mut target = Vec::new();
    for t in p("ValidTarget").unwrap_or("Creature,Player").split(',') {
        match t.trim() {
            "Creature" => target.push(json!({ "type": "has_tag", "tag": "creature" })),
            "Player" => target.push(json!({ "type": "has_tag", "tag": "player" })),
            other => missing.push(format!("R:Event$ DamageDone ValidTarget$ {other}")),
        }
    }
    let with = p("ReplaceWith")
        .and_then(|n| face.svar(n))
        .and_then(|s| s.ability.as_ref())
        .filter(|a| {
            a.api.as_deref() == Some("DealDamage")
                && a.params.get("Defined") == Some("ReplacedTarget")
                && a.params.get("DamageSource") == Some("ReplacedSource")
        });
    let formula = with
        .and_then(|a| a.params.get("NumDmg"))
        .and_then(|v| face.svar(v))
        .and_then(|s| s.value.strip_prefix("ReplaceCount$DamageAmount/"));
    let amount = formula.and_then(replaced_amount);
    if amount.is_none() {
        missing.push("R:Event$ DamageDone ReplaceWith$ other than more of the same damage".into());
    }
    let combat = match p("IsCombat") {
        None => None,
        Some("True") => Some(json!({ "type": "has_tag", "tag": "striking" })),
        Some("False") => Some(json!({ "not": { "type": "has_tag", "tag": "striking" } })),
        Some(other) => {
            missing.push(format!("R:Event$ DamageDone IsCombat$ {other}"));
            None
        }
    };
    if !missing.is_empty() {
        return Err(missing);
    }
    let mut would = json!({ "event": "core:event/damaged", "target": { "any": target } });
    if let Some(c) = combat {
        would["condition"] = c;
    }
    Ok(json!({ "would": would, "zones": ["battlefield"], "amount": amount }))
}

/// The amount a replacement makes of the event's own amount, from its `ReplaceCount$`
/// formula after the `/`: `Twice` (doubled), `Plus.N` (N more); `None` for others.
pub fn replaced_amount(formula: &str) -> Option<String> {
    match formula {
        "Twice" => Some("event.amount * 2".to_owned()),
        f => f
            .strip_prefix("Plus.")
            .and_then(|n| n.parse::<i64>().ok())
            .map(|n| format!("event.amount + {n}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rest_in_peace() {
        let script = forge_script::parse("Name:R\nManaCost:1 W\nTypes:Enchantment\nR:Event$ Moved | ActiveZones$ Battlefield | Destination$ Graveyard | ValidCard$ Card | ReplaceWith$ Exile | Description$ d\nSVar:Exile:AB$ ChangeZone | Cost$ 0 | Hidden$ True | Origin$ All | Destination$ Exile | Defined$ ReplacedCard\n");
        let face = &script.faces[0];
        let r = translate(face, &face.replacements[0]).unwrap();
        assert_eq!(r.len(), 2);
        let text = r[1].to_string();
        for part in [
            "core:event/moved",
            "\"to\":\"exile\"",
            "\"is\":\"graveyard\"",
            "battlefield",
        ] {
            assert!(text.contains(part), "{part} in {text}");
        }
        let script = forge_script::parse(
            "Name:R\nManaCost:G\nTypes:Enchantment\nR:Event$ GainLife | ValidCard$ Creature\n",
        );
        let face = &script.faces[0];
        assert_eq!(
            translate(face, &face.replacements[0]).unwrap_err(),
            ["R:Event$ GainLife"]
        );
    }
}
