//! +1/+1 and -1/-1 counters: the mtg rules count them in `p1p1` / `m1m1`; putting them
//! is an `add` with `would = "put_p1p1"` (`put_m1m1`), offered to replacement effects
//! first (they may change how many).
//! - `K:etbCounter:P1P1:N` ("enters the battlefield with N counters", 614.1c): a
//!   replacement on the card's own move to the battlefield that puts them.
//! - `DB$ PutCounter | CounterType$ P1P1 | CounterNum$ N` on `Defined$ Remembered` of a
//!   `RepeatEach | RepeatCards$ <valid>` (each such permanent), with `N` a number or
//!   `Remembered$CardCounters.P1P1` (as many as it has: doubling).
//! - `R:Event$ AddCounter | ValidCard$ <valid> | ValidCounterType$ P1P1 | ReplaceWith$ X`,
//!   `X` = `DB$ ReplaceEffect | VarName$ CounterNum | VarValue$ Y`, `Y` =
//!   `ReplaceCount$CounterNum/Plus.N` or `/Twice`: that many plus N (twice as many).

use forge_script::{Ability, Face, Keyword};
use serde_json::{json, Value};

use crate::replacement::replaced_amount;

/// Forge's counter types the rules know: the property counting them and the event that
/// puts them.
const COUNTERS: &[(&str, &str, &str)] = &[
    ("P1P1", "p1p1", "put_p1p1"),
    ("M1M1", "m1m1", "put_m1m1"),
    ("LEVEL", "level", "put_level"),
    ("CHARGE", "charge", "put_charge"),
];

/// The property counting a Forge counter type's counters (`LEVEL` → `level`), if the
/// rules know it.
pub fn property_of(kind: &str) -> Option<&'static str> {
    COUNTERS
        .iter()
        .find(|(k, ..)| *k == kind)
        .map(|(_, p, _)| *p)
}

/// `PutCounter | CounterType$ TYPE | CounterNum$ N` without a target: on the card itself
/// (`Defined$ Self` or none), if it is still on the battlefield (level up, Umezawa's
/// Jitte's charge counters).
pub fn put_on_card(a: &Ability) -> Result<Vec<Value>, String> {
    let card = json!({ "type": "object", "object": "self.source_card", "where": { "type": "in_zone", "zone": "battlefield" } });
    put_on_target(a, card)
}

/// The event that puts counters of a Forge counter type.
fn event(kind: Option<&str>) -> Result<&'static str, String> {
    Ok(counter(kind)?.2)
}

/// A Forge counter type's entry.
fn counter(
    kind: Option<&str>,
) -> Result<&'static (&'static str, &'static str, &'static str), String> {
    COUNTERS
        .iter()
        .find(|(k, ..)| Some(*k) == kind)
        .ok_or_else(|| format!("counter type {}", kind.unwrap_or("(none)")))
}

/// Puts `amount` counters of a type on the targets (`to`, default the affected object):
/// an `add` offered to replacement effects first.
fn put(kind: &str, amount: Value, to: Option<Value>) -> Result<Value, String> {
    let (_, key, event) = counter(Some(kind))?;
    let mut a = json!({ "type": "add", "key": key, "amount": amount, "would": event });
    if let Some(to) = to {
        a["to"] = to;
    }
    Ok(a)
}

/// `PutCounter | CounterType$ TYPE | CounterNum$ N` at the spell's target `at`.
pub fn put_on_target(a: &Ability, at: Value) -> Result<Vec<Value>, String> {
    let n: i64 = a
        .params
        .get("CounterNum")
        .unwrap_or("1")
        .parse()
        .map_err(|_| {
            format!(
                "PutCounter CounterNum$ {}",
                a.params.get("CounterNum").unwrap_or("")
            )
        })?;
    Ok(vec![put(
        a.params.get("CounterType").unwrap_or("?"),
        json!(n),
        Some(at),
    )?])
}

/// `K:etbCounter:TYPE:N` → a class replacement of the card.
pub fn etb_counter(k: &Keyword) -> Result<Value, String> {
    let (Some(kind), Some(n), None) = (k.params.first(), k.params.get(1), k.params.get(2)) else {
        return Err(format!("K:etbCounter:{}", k.params.join(":")));
    };
    let n: i64 = n
        .parse()
        .map_err(|_| format!("K:etbCounter with {n} counters"))?;
    Ok(json!({
        "would": { "event": "core:event/moved", "target": [{ "type": "is_self" }, { "type": "event_field", "field": "to", "is": "battlefield" }] },
        "do": [put(kind, json!(n), None)?],
    }))
}

/// `RepeatEach | RepeatCards$ <valid> | RepeatSubAbility$ X` with `X` a `PutCounter` on
/// `Remembered`: puts counters on each matching permanent.
pub fn repeat_each(face: &Face, a: &Ability) -> Result<Vec<Value>, Vec<String>> {
    let p = |k: &str| a.params.get(k);
    let which = crate::valid::condition(p("RepeatCards").unwrap_or("?"), "RepeatEach RepeatCards$")
        .map_err(|m| vec![m])?;
    let Some(sub) = p("RepeatSubAbility")
        .and_then(|n| face.svar(n))
        .and_then(|s| s.ability.as_ref())
    else {
        return Err(vec!["RepeatEach without a RepeatSubAbility$".into()]);
    };
    let q = |k: &str| sub.params.get(k);
    let known = ["DB", "Defined", "CounterType", "CounterNum", "References"];
    let mut missing: Vec<String> = sub
        .params
        .keys_outside(&known)
        .map(|k| format!("RepeatEach PutCounter with {k}$"))
        .collect();
    if sub.api.as_deref() != Some("PutCounter") || q("Defined") != Some("Remembered") {
        missing.push(format!(
            "RepeatEach DB$ {}",
            sub.api.as_deref().unwrap_or("?")
        ));
    }
    let kind = q("CounterType").unwrap_or("");
    let key = counter(Some(kind)).map_err(|m| vec![m])?.1;
    let amount = match q("CounterNum") {
        Some(n) if n.parse::<i64>().is_ok() => json!(n.parse::<i64>().unwrap_or(0)),
        Some(n) => match face.svar(n).map(|s| s.value.as_str()) {
            Some(v) if v.strip_prefix("Remembered$CardCounters.") == q("CounterType") => {
                json!(format!("target.{key}"))
            }
            _ => {
                missing.push(format!("PutCounter CounterNum$ {n}"));
                Value::Null
            }
        },
        None => json!(1),
    };
    if !missing.is_empty() {
        return Err(missing);
    }
    let to = json!({ "type": "objects", "zone": "battlefield", "where": which });
    Ok(vec![put(kind, amount, Some(to)).map_err(|m| vec![m])?])
}

/// `R:Event$ AddCounter` → a class replacement on the counter type's event.
pub fn add_counter(face: &Face, r: &Ability) -> Result<Value, Vec<String>> {
    let p = |k: &str| r.params.get(k);
    let known = [
        "Event",
        "ActiveZones",
        "ValidCard",
        "ValidCounterType",
        "ReplaceWith",
        "Description",
    ];
    let mut missing: Vec<String> = r
        .params
        .keys_outside(&known)
        .map(|k| format!("R:Event$ AddCounter with {k}$"))
        .collect();
    if !matches!(p("ActiveZones"), None | Some("Battlefield")) {
        missing.push(format!(
            "R:Event$ AddCounter ActiveZones$ {}",
            p("ActiveZones").unwrap_or("")
        ));
    }
    let event =
        event(p("ValidCounterType")).map_err(|m| vec![format!("R:Event$ AddCounter {m}")])?;
    let valid = crate::valid::condition(
        p("ValidCard").unwrap_or("Card"),
        "R:Event$ AddCounter ValidCard$",
    )
    .unwrap_or_else(|m| {
        missing.push(m);
        Value::Null
    });
    let effect = p("ReplaceWith")
        .and_then(|n| face.svar(n))
        .and_then(|s| s.ability.as_ref())
        .filter(|a| {
            a.api.as_deref() == Some("ReplaceEffect")
                && a.params.get("VarName") == Some("CounterNum")
        });
    let formula = effect
        .and_then(|a| a.params.get("VarValue"))
        .and_then(|v| face.svar(v))
        .and_then(|s| s.value.strip_prefix("ReplaceCount$CounterNum/"));
    let amount = formula.and_then(replaced_amount);
    let Some(amount) = amount else {
        missing.push("R:Event$ AddCounter ReplaceWith$ other than a new CounterNum".into());
        return Err(missing);
    };
    if !missing.is_empty() {
        return Err(missing);
    }
    Ok(json!({
        "would": { "event": event, "target": valid },
        "zones": ["battlefield"],
        "amount": amount,
    }))
}
