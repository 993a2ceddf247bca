//! Replacement abilities (`<replacement-ability>`, 614) of the shapes the mtg rules play:
//!
//! - "As this enters, you may pay N life; if you don't, it enters tapped" (the shock lands:
//!   a `<choice>` between paying life and moving it `playANDtapped`) → the mtg rules'
//!   `enters_tapped_unless_life` with `etb_life`;
//! - permanents passing a test entering tapped (Kismet, Root Maze: `<moved-card>` to play,
//!   `move-card destination="playANDtapped"` of `context.card`) → a class trigger tapping
//!   each as it enters the battlefield, before anyone has priority (614.1c);
//! - damage dealt as a different amount (`<assigned-damage>` re-assigning `context.int`
//!   doubled, halved, plus or minus N: Furnace of Rath, Sphere of Law) → a class
//!   replacement of the mtg rules' `damaged` with an `amount` (none left: prevented).
//!
//! Each shape is matched exactly on the expanded XML ([`shape`]); anything else is missing.

use firemox_xml::{Element, Fragments};
use serde_json::{json, Value};

use crate::card::Parts;

/// The expanded element as one line: name, attributes but `name`, children in brackets,
/// and `@ref:` before an element a reference expanded to.
pub fn shape(e: &Element) -> String {
    let attrs: Vec<String> = e
        .attrs
        .iter()
        .filter(|(k, _)| k != "name")
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    let mut s = match &e.from_ref {
        Some(r) => format!("@{r}:{}", e.name),
        None => e.name.clone(),
    };
    if !attrs.is_empty() {
        s += &format!("({})", attrs.join(" "));
    }
    if !e.children.is_empty() {
        let children: Vec<String> = e.children.iter().map(shape).collect();
        s += &format!("[{}]", children.join(", "));
    }
    s
}

/// Translates one replacement ability into `out`, or lists it as missing.
pub fn translate(f: &Fragments, a: &Element, out: &mut Parts) {
    let result = match a.children.first().map(|e| e.name.as_str()) {
        Some("moved-card") => pay_life_or_tapped(f, a, out).or_else(|| enter_tapped(f, a, out)),
        Some("assigned-damage") => Some(crate::replace_damage::translate(f, a, out)),
        _ => None,
    };
    match result {
        Some(Ok(())) => {}
        Some(Err(m)) => out.missing.push(format!("replacement-ability {m}")),
        None => out.missing.push("replacement-ability".into()),
    }
}

/// "As this enters, you may pay N life. If you don't, it enters tapped" (Blood Crypt).
fn pay_life_or_tapped(f: &Fragments, a: &Element, out: &mut Parts) -> Option<Result<(), String>> {
    let pay = a
        .child("effects")?
        .child("choice")?
        .children
        .first()?
        .children
        .first()?;
    let n = pay.attr("value").and_then(|v| f.value(v))?;
    let expected = format!(
        "replacement-ability(zone=play)[moved-card[source-test[and[is-this, not[in-zone(zone=play)]]], destination-test[in-zone(zone=play)]], effects[choice(cancel=false)[either[@pay-life:modify-register(value={n} register=controller index=life operation=minus), target(type=this), move-card(destination=play controller=controller)], either[target(type=this), move-card(destination=playANDtapped controller=controller)]], unregister-this]]"
    );
    if shape(a) != expected || !(1..=20).contains(&n) {
        return None;
    }
    out.tags.push("enters_tapped_unless_life".into());
    out.props.push(("etb_life".into(), json!(n)));
    Some(Ok(()))
}

/// Permanents passing a test (not this card) entering play tapped (Kismet: the
/// opponents' creatures, artifacts and lands): a class trigger on the battlefield tapping
/// each as it enters.
fn enter_tapped(f: &Fragments, a: &Element, out: &mut Parts) -> Option<Result<(), String>> {
    let moved = a.children.first()?;
    let src = moved.child("source-test")?;
    let [and] = src.children.as_slice() else {
        return None;
    };
    let (last, tests) = and.children.split_last()?;
    let tail = "not[in-zone(zone=play)]]], destination-test[in-zone(zone=play)]], effects[target(type=context.card), move-card(destination=playANDtapped controller=controller), unregister-this]]";
    let whole = shape(a);
    let ok = and.name == "and"
        && shape(last) == "not[in-zone(zone=play)]"
        && whole.starts_with("replacement-ability(zone=play)[moved-card[source-test[and[")
        && whole.ends_with(tail)
        && moved.children.len() == 2
        && a.children.len() == 2;
    if !ok {
        return None;
    }
    let mut target = Vec::new();
    for t in tests {
        match crate::conditions::condition(f, t) {
            Ok(c) => target.push(c),
            Err(m) => return Some(Err(format!("entering tapped: {m}"))),
        }
    }
    target.push(json!({ "not": { "type": "is_self" } }));
    target.push(json!({ "type": "in_zone", "zone": "battlefield" }));
    target.push(json!({ "type": "event_field", "field": "to", "is": "battlefield" }));
    out.triggers.push(tap_as_it_enters(target));
    Some(Ok(()))
}

/// The class trigger tapping what enters passing `target`.
fn tap_as_it_enters(target: Vec<Value>) -> Value {
    json!({
        "when": { "event": "core:event/moved", "target": target },
        "zones": ["battlefield"],
        "do": [{ "type": "tag", "tag": "tapped", "to": { "type": "object", "object": "event.target" } }],
    })
}
