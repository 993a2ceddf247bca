//! Abilities of permanents (`<activated-ability zone="play">`): mana abilities (`{T}`: one
//! mana of a colour, `tap-add-G` or `<give-mana green="1"/>`) become the mtg rules'
//! `makes_*` tags; `{T}`: deal N damage to a target (Prodigal Sorcerer) becomes the
//! `tap_ability` tag and an ability object (`<card>_ab`) the card puts on the stack when
//! activated, which chooses its target when created and resolves like a spell.

use firemox_xml::{Card as Xml, Element, Fragments};
use serde_json::{json, Map, Value};

use crate::card::{plain_list, Parts, COLOURS};
use crate::effects::{describe, effect, groups, target};

/// Translates one activated ability of a permanent into `out`.
pub fn translate(card: &Xml, class: &str, a: &Element, f: &Fragments, out: &mut Parts) {
    let no = Element { name: String::new(), attrs: Vec::new(), children: Vec::new(), text: String::new(), line: 0, from_ref: None };
    let cost = a.child("cost").unwrap_or(&no);
    let effects = a.child("effects").unwrap_or(&no);
    let extra = a.children.iter().find(|c| !matches!(c.name.as_str(), "cost" | "effects"));
    let cost_groups = groups(&cost.children);
    let tap = cost_groups.first().is_some_and(|g| g.reference == Some("T") && plain_list(f, "action", "T", g.elems));
    if let Some(e) = extra {
        out.missing.push(format!("activated ability with <{}>", e.name));
        return;
    }
    if !tap {
        let first = cost_groups.first().map_or("no cost".into(), describe);
        out.missing.push(format!("activated ability costing {first}"));
        return;
    }
    if a.attr("playable") == Some("mana-source") {
        return mana(effects, out);
    }
    let mut tags = Vec::new();
    for g in &cost_groups[1..] {
        match target(f, g) {
            Ok(t) if tags.is_empty() => tags = t,
            Ok(_) => out.missing.push("activated ability with two targets".into()),
            Err(m) => out.missing.push(format!("activated ability {m}")),
        }
    }
    let to = json!({ "ref": "mtg:ref/spell_target" });
    let mut actions = Vec::new();
    for g in groups(&effects.children) {
        match effect(f, &g, &to) {
            Ok(v) if v.iter().all(|x| x["type"] == "damage") => actions.extend(v),
            Ok(_) => out.missing.push(format!("activated ability effect {}", describe(&g))),
            Err(m) => out.missing.push(format!("activated ability effect {m}")),
        }
    }
    if tags.is_empty() || actions.is_empty() {
        out.missing.push("activated ability other than {T}: damage to a target".into());
        return;
    }
    let name = format!("{class}_ab");
    let from: Vec<Value> = tags
        .iter()
        .map(|t| match t.as_str() {
            "targets_player" => json!({ "type": "players" }),
            _ => json!({ "type": "objects", "zone": "battlefield", "tag": "creature" }),
        })
        .collect();
    if tags.iter().any(|t| t == "targets_spell") {
        out.missing.push("activated ability targeting a spell".into());
        return;
    }
    let choose = json!({ "from": from, "pick": { "chosen": 1, "prompt": "Select a target" } });
    out.tags.push("tap_ability".into());
    out.triggers.push(json!({
        "when": { "event": "mtg:event/activated", "target": { "type": "is_self" } },
        "do": [{ "type": "create", "class": name, "zone": "stack" }],
    }));
    out.classes.push((name, ability_class(&format!("{} (ability)", card.name), choose, actions)));
}

/// `{T}`: add one mana of one colour (`<give-mana green="1"/>`, `colorless`) → `makes_*`.
fn mana(effects: &Element, out: &mut Parts) {
    let colour = match effects.children.as_slice() {
        [g] if g.name == "give-mana" && g.children.is_empty() => match g.attrs.as_slice() {
            [(k, v)] if v == "1" => COLOURS.iter().find(|(n, _)| n == k).map(|(_, c)| *c).or((k == "colorless").then_some('c')),
            _ => None,
        },
        _ => None,
    };
    match colour {
        Some(c) => out.tags.push(format!("makes_{c}")),
        None => out.missing.push("mana ability other than {T}: one mana of one colour".into()),
    }
}

/// An ability object's class: it chooses its target (`choose`) when created, and when it
/// resolves on the stack acts if the target is still legal, else fizzles; then it leaves
/// the stack.
fn ability_class(title: &str, choose: Value, effect: Vec<Value>) -> Value {
    let mut props = Map::new();
    props.insert("title".into(), json!(title));
    json!({
        "properties": Value::Object(props),
        "tags": ["ability"],
        "trigger": [
            { "when": { "event": "core:event/created", "target": { "type": "is_self" } },
              "do": [{ "type": "link", "key": "chosen", "object": choose }] },
            { "when": { "event": "mtg:event/resolve", "target": { "type": "is_self" } },
              "zones": ["stack"],
              "do": [
                { "type": "if", "condition": { "type": "compare", "left": { "count": { "ref": "mtg:ref/spell_target" } }, "op": "==", "right": 0 },
                  "then": [{ "type": "emit", "event": "mtg:event/fizzled", "to": "self" }],
                  "else": effect },
                { "type": "move", "zone": "resolved", "to": "self" },
              ] },
        ],
    })
}
