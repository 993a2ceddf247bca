//! Replacement abilities (`<replacement-ability>`, 614) of the shapes the mtg rules play:
//!
//! - "As this enters, you may pay N life; if you don't, it enters tapped" (the shock lands:
//!   a `<choice>` between paying life and moving it `playANDtapped`) → the mtg rules'
//!   `enters_tapped_unless_life` with `etb_life`;
//! - permanents passing a test entering tapped (Kismet, Root Maze: `<moved-card>` to play,
//!   `move-card destination="playANDtapped"` of `context.card`) → a class trigger tapping
//!   each as it enters the battlefield, before anyone has priority (614.1c);
//! - "as this enters, you may reveal a Giant card from your hand; if you don't, it enters
//!   tapped" (Ancient Amphitheater) → the card's trigger as it enters, a choice;
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
        None => e.name.to_string(),
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
pub fn translate(f: &Fragments, class: &str, a: &Element, out: &mut Parts) {
    let result = match a.children.first().map(|e| e.name.as_str()) {
        Some("moved-card") => pay_life_or_tapped(f, a, out)
            .or_else(|| enter_tapped(f, a, out))
            .or_else(|| reveal_or_tapped(class, a, out)),
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

/// "As this enters, you may reveal a <subtype> card from your hand. If you don't, it
/// enters tapped" (Gilt-Leaf Palace): the card's trigger as it enters offers revealing
/// only with such a card in hand (`<class>_revealable`); otherwise, or if its controller
/// chooses so, it is tapped. (Revealing shows the card; nothing else happens.)
fn reveal_or_tapped(class: &str, a: &Element, out: &mut Parts) -> Option<Result<(), String>> {
    let either = &a.child("effects")?.child("choice")?.children;
    let test = either.get(1)?.children.first()?.child("test")?;
    let subtype = test.children.first()?.children.get(1)?.attr("property")?;
    let expected = format!(
        "replacement-ability(zone=play)[moved-card[source-test[and[is-this, not[in-zone(zone=play)]]], destination-test[in-zone(zone=play)]], effects[choice(controller=you cancel=false)[either[target(type=this), move-card(destination=playANDtapped controller=controller)], either[target(type=card mode=choose restriction-zone=hand)[test[and[controller(player=you), has-property(property={subtype})]]], @reveal:face-up(for=opponent), @reveal:msg(type=ok controller=opponent)[text], @reveal:face-down(for=opponent), @put-in-play:target-list(operation=clear), @put-in-play:target(type=this), @put-in-play:move-card(controller=target.owner destination=play)]], unregister-this]]"
    );
    if shape(a) != expected {
        return None;
    }
    let tag = crate::card::slug(subtype);
    let name = format!("{class}_revealable");
    out.refs.push((
        name.clone(),
        json!({ "selector": { "type": "objects", "zone": "hand", "owner": "friendly", "tag": tag } }),
    ));
    let modes = json!([
        { "label": format!("reveal a card ({tag})"), "if": { "type": "compare", "left": format!("count({name})"), "op": ">", "right": 0 }, "do": [] },
        { "label": "enters tapped", "do": [{ "type": "tag", "tag": "tapped", "to": "self" }] },
    ]);
    out.triggers.push(json!({
        "when": { "event": "core:event/moved", "target": [{ "type": "is_self" }, { "type": "in_zone", "zone": "battlefield" }, { "type": "event_field", "field": "to", "is": "battlefield" }] },
        "do": [{ "type": "choose_mode", "modes": modes, "prompt": format!("reveal a card ({tag}) from your hand, or it enters tapped") }],
    }));
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
