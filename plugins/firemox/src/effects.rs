//! The pieces of an expanded ability that the translators recognise: runs of elements
//! that came from one reference ([`groups`]), targets (`target-creature`, ...), and effects
//! on the chosen target — damage, +N/+N until end of turn, destroy, counter, return to
//! hand, gain life — as mtg actions. Anything else is reported by name.

use firemox_xml::{Element, Fragments};
use serde_json::{json, Value};

use crate::card::plain_list;

/// Consecutive elements expanded from one reference, or one element written in the card.
pub struct Group<'a> {
    /// The reference, if the elements came from one.
    pub reference: Option<&'a str>,
    /// The elements.
    pub elems: &'a [Element],
}

/// Splits a list into [`Group`]s.
pub fn groups(list: &[Element]) -> Vec<Group<'_>> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < list.len() {
        let r = list[i].from_ref.as_deref();
        let mut j = i + 1;
        if r.is_some() {
            while j < list.len() && list[j].from_ref.as_deref() == r {
                j += 1;
            }
        }
        out.push(Group { reference: r, elems: &list[i..j] });
        i = j;
    }
    out
}

/// A target reference and the mtg tags of what it may target (`targets_creature`, ...).
pub const TARGETS: &[(&str, &[&str])] = &[
    ("target-creature", &["targets_creature"]),
    ("target-dealtable", &["targets_creature", "targets_player"]),
    ("target-player", &["targets_player"]),
    ("target-spell", &["targets_spell"]),
];

/// The targeting tags of a target group, or what it lacks.
pub fn target(f: &Fragments, g: &Group<'_>) -> Result<Vec<String>, String> {
    let r = g.reference.unwrap_or("");
    match TARGETS.iter().find(|(n, _)| *n == r) {
        Some((n, tags)) if plain_list(f, "action", n, g.elems) => Ok(tags.iter().map(|t| (*t).to_owned()).collect()),
        Some((n, _)) => Err(format!("{n} with a test")),
        None if r.starts_with("target-") => Err(format!("cost {r}")),
        None => Err(format!("cost {}", describe(g))),
    }
}

/// How a group is named in the list of what a card lacks: its reference, or the element.
pub fn describe(g: &Group<'_>) -> String {
    match g.reference {
        Some(r) => format!("action {r}"),
        None => g.elems.first().map_or("nothing".into(), |e| format!("<{}>", e.name)),
    }
}

/// The effect of one group on the chosen target (`to`), with `self` the source: mtg
/// actions, or what it lacks.
pub fn effect(f: &Fragments, g: &Group<'_>, to: &Value) -> Result<Vec<Value>, String> {
    let [e] = g.elems else {
        return match g.reference {
            Some("return-to-hand" | "counter") => Err(format!("{} with parameters", describe(g))),
            _ => Err(describe(g)),
        };
    };
    let is = |name: &str| plain_list(f, "action", name, g.elems);
    match (g.reference, e.name.as_str()) {
        (None, "assign-damage") => damage(e, to),
        (Some("destroy"), _) if is("destroy") => Ok(vec![json!({ "type": "destroy", "to": to })]),
        (Some("counter"), _) if is("counter") => Ok(vec![json!({ "type": "move", "zone": "graveyard", "to": to })]),
        (Some("return-to-hand"), _) if is("return-to-hand") => Ok(vec![json!({ "type": "move", "zone": "hand", "to": to })]),
        (Some("gain-life"), "modify-register") => gain_life(f, e),
        (_, "add-modifier") => pump(f, e, to),
        _ => Err(describe(g)),
    }
}

/// `<assign-damage value="N"/>` (normal damage) → N damage from `self`.
fn damage(e: &Element, to: &Value) -> Result<Vec<Value>, String> {
    let plain_type = matches!(e.attr("type"), None | Some("damage-normal"));
    let extra = e.attrs.iter().any(|(k, _)| !["value", "type", "name"].contains(&k.as_str()));
    match e.attr("value").and_then(|v| v.parse::<i64>().ok()) {
        Some(n) if plain_type && !extra && e.children.is_empty() => {
            Ok(vec![json!({ "type": "damage", "amount": n, "source": "self", "to": to })])
        }
        _ => Err(format!("<assign-damage> {}", e.start_tag())),
    }
}

/// `gain-life` with a number: the controller of `self` gains that much life.
fn gain_life(f: &Fragments, e: &Element) -> Result<Vec<Value>, String> {
    match e.attr("value").and_then(|v| f.value(v)) {
        Some(n) if e.attr("register") == Some("controller") && e.children.is_empty() => {
            Ok(vec![json!({ "type": "add", "key": "damage", "amount": -n, "to": "owner" })])
        }
        _ => Err("action gain-life with a computed amount".into()),
    }
}

/// `<add-modifier>` of power/toughness register modifiers that add a number until the
/// cleanup step → an aura on the target until the mtg rules' `cleanup`.
fn pump(f: &Fragments, e: &Element, to: &Value) -> Result<Vec<Value>, String> {
    let mut modifiers = Vec::new();
    for m in &e.children {
        let key = match m.attr("index") {
            Some("power") => "power",
            Some("toughness") => "max_health",
            _ => return Err("<add-modifier> of something else than power/toughness".into()),
        };
        let until_cleanup = matches!(m.children.as_slice(), [u] if u.name == "until"
            && matches!(u.children.as_slice(), [p] if p.name == "end-of-phase" && p.attr("phase") == Some("cleanup") && p.children.is_empty()));
        let value = m.attr("value").and_then(|v| f.value(v));
        match (m.name.as_str(), m.attr("operation"), value) {
            ("register-modifier", Some("add"), Some(n)) if until_cleanup && m.attr("linked") != Some("true") => {
                modifiers.push(json!({ "key": key, "op": "add", "value": n }));
            }
            _ => return Err("<add-modifier> other than +N/+N until end of turn".into()),
        }
    }
    let aura = json!({ "modifiers": modifiers, "until": "mtg:event/cleanup" });
    Ok(vec![json!({ "type": "give_aura", "aura": aura, "to": to })])
}
