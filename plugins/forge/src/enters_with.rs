//! "It enters the battlefield with ..." written as a static trigger: `T:Mode$ ChangesZone |
//! Destination$ Battlefield | ValidCard$ Card.Self[+kicked] | Static$ True | Execute$ X`,
//! `X` = `PutCounter | Defined$ Self | CounterType$ T | CounterNum$ N` optionally followed
//! by `SubAbility$` → `Pump | Defined$ Self | KW$ ... | Permanent$ True` (Kavu Titan: "if
//! it was kicked, it enters with three +1/+1 counters and with trample"). It acts at once
//! as the card arrives, without the stack: a card trigger puts the counters and gives the
//! keywords for as long as it stays on the battlefield (a given aura ends when its holder
//! leaves the zone).

use forge_script::{Ability, Face};
use serde_json::{json, Value};

/// Whether `t` is such a static enters-the-battlefield trigger.
pub fn is_static_enters(t: &Ability) -> bool {
    t.api.as_deref() == Some("ChangesZone")
        && t.params.get("Static") == Some("True")
        && t.params.get("Destination") == Some("Battlefield")
        && matches!(
            t.params.get("ValidCard"),
            Some("Card.Self" | "Card.Self+kicked")
        )
}

/// The card trigger of a static enters trigger; `Err` lists what it lacks.
pub fn translate(face: &Face, t: &Ability) -> Result<Value, Vec<String>> {
    let known = [
        "Mode",
        "ValidCard",
        "Origin",
        "Destination",
        "Execute",
        "Static",
        "TriggerDescription",
    ];
    let mut missing: Vec<String> = t
        .params
        .keys_outside(&known)
        .map(|k| format!("T:Mode$ ChangesZone Static$ with {k}$"))
        .collect();
    if !matches!(t.params.get("Origin"), None | Some("Any")) {
        missing.push("T:Mode$ ChangesZone Static$ with Origin$".into());
    }
    let mut actions = Vec::new();
    let mut next = t.params.get("Execute");
    while let Some(name) = next {
        let Some(a) = face.svar(name).and_then(|s| s.ability.as_ref()) else {
            missing.push(format!("T:Mode$ ChangesZone Static$ Execute$ {name}"));
            break;
        };
        match effect(a) {
            Ok(act) => actions.push(act),
            Err(m) => missing.push(m),
        }
        next = a.params.get("SubAbility");
    }
    if !missing.is_empty() {
        return Err(missing);
    }
    let mut when = vec![
        json!({ "type": "is_self" }),
        json!({ "type": "in_zone", "zone": "battlefield" }),
    ];
    // "If it was kicked" (costs.toml's `kicked`).
    if t.params.get("ValidCard") == Some("Card.Self+kicked") {
        when.push(json!({ "type": "compare", "left": "target.kicked", "op": ">", "right": 0 }));
    }
    Ok(json!({ "when": { "event": "core:event/moved", "target": when }, "do": actions }))
}

/// One effect on the card itself: counters, or keywords and +N/+M for as long as it stays.
fn effect(a: &Ability) -> Result<Value, String> {
    let api = a.api.as_deref().unwrap_or("?");
    let p = |k: &str| a.params.get(k);
    if p("Defined") != Some("Self") || p("Cost").is_some_and(|c| c != "0") {
        return Err(format!(
            "T:Mode$ ChangesZone Static$ {api} not on the card itself"
        ));
    }
    let keys: &[&str] = match api {
        "PutCounter" => &[
            "AB",
            "DB",
            "Cost",
            "Defined",
            "CounterType",
            "CounterNum",
            "SubAbility",
        ],
        "Pump" => &[
            "AB",
            "DB",
            "Cost",
            "Defined",
            "KW",
            "NumAtt",
            "NumDef",
            "Permanent",
            "SubAbility",
        ],
        _ => return Err(format!("T:Mode$ ChangesZone Static$ {api}")),
    };
    if let Some(k) = a.params.keys_outside(keys).next() {
        return Err(format!("T:Mode$ ChangesZone Static$ {api} with {k}$"));
    }
    if api == "PutCounter" {
        return crate::counters::put_on_target(a, json!({ "type": "self" }))
            .map(|mut v| v.remove(0));
    }
    if p("Permanent") != Some("True") {
        return Err("T:Mode$ ChangesZone Static$ Pump until end of turn".into());
    }
    let mut modifiers = Vec::new();
    for (param, key) in [("NumAtt", "power"), ("NumDef", "max_health")] {
        if let Some(t) = p(param) {
            let n = crate::effect::number(Some(t))
                .ok_or_else(|| format!("T: Static$ Pump {param}$ {t}"))?;
            modifiers.push(json!({ "key": key, "op": "add", "value": n }));
        }
    }
    let tags = crate::keywords::tags_of(p("KW").unwrap_or(""))
        .map_err(|kw| format!("T: Static$ Pump KW$ {kw}"))?;
    modifiers.extend(tags.iter().map(|t| json!({ "key": t, "op": "tag" })));
    Ok(json!({ "type": "give_aura", "aura": { "modifiers": modifiers }, "to": { "type": "self" } }))
}
