//! Firemox tests on a card (the `tested` card of a `<while>` or a target's `<test>`) as
//! mtg conditions on `target`: `and` / `or` / `not`, `controller player="you|opponent"`
//! (the owner: the mtg rules have no change of control), `has-idcard` (card types),
//! `has-property` (keywords the rules implement, subtypes), `has-color`, `is-this` (the
//! holder itself), `in-zone` (play, tapped or untapped), the combat states
//! (`tested-is-attacking`, `-blocking`, `-blocked`). Anything else — tests on other
//! cards, registers, counters — is named as missing.

use firemox_xml::{Element, Fragments};
use serde_json::{json, Value};

use crate::card::{slug, COLOURS, KEYWORDS};

/// The mtg condition for a Firemox test element, or what it lacks.
pub fn condition(f: &Fragments, e: &Element) -> Result<Value, String> {
    let on_tested = matches!(e.attr("card"), None | Some("tested"));
    // Combat states of the tested card (`tested-is-attacking` & co. compare its `state`
    // register with a flag): the mtg rules' combat tags.
    let state = match e.from_ref.as_deref() {
        Some("tested-is-attacking") => Some("attacking"),
        Some("tested-is-blocking") => Some("blocking"),
        Some("tested-is-blocked") => Some("blocked"),
        _ => None,
    };
    if let Some(tag) = state.filter(|_| matches!(e.name.as_str(), "test" | "equal")) {
        return Ok(json!({ "type": "has_tag", "tag": tag }));
    }
    let all = |list: &[Element]| {
        list.iter()
            .map(|c| condition(f, c))
            .collect::<Result<Vec<_>, _>>()
    };
    match e.name.as_str() {
        "and" | "test" | "while" => Ok(json!({ "all": all(&e.children)? })),
        "or" => Ok(json!({ "any": all(&e.children)? })),
        "not" => match e.children.as_slice() {
            [one] => Ok(json!({ "not": condition(f, one)? })),
            _ => Err("test <not> with several tests".into()),
        },
        "controller" if on_tested => match e.attr("player") {
            // (`controller`: the controller of the card whose test it is.)
            Some("you" | "controller") => Ok(json!({ "type": "owned_by", "owner": "friendly" })),
            Some("opponent") => Ok(json!({ "type": "owned_by", "owner": "enemy" })),
            other => Err(format!("test controller player={}", other.unwrap_or("?"))),
        },
        "has-idcard" if on_tested => match e.attr("idcard") {
            Some(
                t @ ("creature" | "land" | "artifact" | "enchantment" | "instant" | "sorcery"
                | "plains" | "island" | "swamp" | "mountain" | "forest" | "permanent"),
            ) => Ok(json!({ "type": "has_tag", "tag": t })),
            Some("artifact-creature") => Ok(
                json!({ "all": [{ "type": "has_tag", "tag": "artifact" }, { "type": "has_tag", "tag": "creature" }] }),
            ),
            other => Err(format!("test has-idcard {}", other.unwrap_or("?"))),
        },
        "has-property" if on_tested => {
            let p = e.attr("property").unwrap_or("?");
            let first = f.aliases.get("FIRST_SUB_TYPE").copied().unwrap_or(i64::MAX);
            let last = f.aliases.get("LAST_SUB_TYPE").copied().unwrap_or(i64::MIN);
            match (KEYWORDS.iter().find(|(k, _)| *k == p), f.aliases.get(p)) {
                (Some((_, tag)), _) => Ok(json!({ "type": "has_tag", "tag": tag })),
                (None, Some(v)) if (first..=last).contains(v) => {
                    Ok(json!({ "type": "has_tag", "tag": slug(p) }))
                }
                _ => Err(format!("test has-property {p}")),
            }
        }
        "has-color" if on_tested => match COLOURS.iter().find(|(n, _)| Some(*n) == e.attr("color"))
        {
            Some((n, _)) => Ok(json!({ "type": "has_tag", "tag": n })),
            None => Err(format!("test has-color {}", e.attr("color").unwrap_or("?"))),
        },
        "is-this" if on_tested => Ok(json!({ "type": "is_self" })),
        "in-zone" if on_tested && e.children.is_empty() => match e.attr("zone") {
            Some("play") => Ok(json!({ "type": "in_zone", "zone": "battlefield" })),
            Some("playANDtapped") => Ok(
                json!({ "all": [{ "type": "in_zone", "zone": "battlefield" }, { "type": "has_tag", "tag": "tapped" }] }),
            ),
            Some("playANDuntapped") => Ok(
                json!({ "all": [{ "type": "in_zone", "zone": "battlefield" }, { "not": { "type": "has_tag", "tag": "tapped" } }] }),
            ),
            other => Err(format!("test in-zone {}", other.unwrap_or("?"))),
        },
        "is-spell" if on_tested => Ok(json!({ "type": "in_zone", "zone": "stack" })),
        other => Err(format!("test <{other}>")),
    }
}

/// A register of the spell's target as an mtg expression (`target-list.last` / `target`:
/// the target chosen on cast, the mtg rules' `chosen` link): `power`, `toughness`
/// (`max_health`), `life` (`health`); or a number written as digits or an alias.
pub fn value(f: &Fragments, e: Option<&Element>, attr: Option<&str>) -> Result<String, String> {
    if let Some(v) = attr {
        return f
            .value(v)
            .map(|n| n.to_string())
            .ok_or_else(|| format!("value `{v}`"));
    }
    let Some(e) = e else {
        return Err("a comparison without a value".into());
    };
    if !e.children.is_empty() {
        return Err(format!("computed value <{}>", e.children[0].name));
    }
    let key = match e.attr("index") {
        Some("power") => "power",
        Some("toughness") => "max_health",
        Some("life") => "health",
        other => return Err(format!("register index {}", other.unwrap_or("?"))),
    };
    match e.attr("register") {
        Some("target-list.last" | "target") => Ok(format!("self.chosen.{key}")),
        other => Err(format!("register {}", other.unwrap_or("?"))),
    }
}

/// The mtg comparison operator of a Firemox comparison element (`<sup>` → `>`, …).
pub fn comparison(name: &str) -> Option<&'static str> {
    Some(match name {
        "sup" => ">",
        "inf" => "<",
        "equal" => "==",
        "sup-equal" => ">=",
        "inf-equal" => "<=",
        "not-equal" => "!=",
        _ => return None,
    })
}

/// `<sup>`, `<inf>`, `<equal>`, `<sup-equal>`, `<inf-equal>`, `<not-equal>` of two values
/// ([`value`]) as an mtg comparison; other tests through [`condition`].
pub fn test(f: &Fragments, e: &Element) -> Result<Value, String> {
    if matches!(e.name.as_str(), "test" | "and") {
        let all = e
            .children
            .iter()
            .map(|c| test(f, c))
            .collect::<Result<Vec<_>, _>>()?;
        return Ok(json!({ "all": all }));
    }
    let Some(op) = comparison(&e.name) else {
        return condition(f, e);
    };
    let left = value(f, e.child("left"), e.attr("left"))?;
    let right = value(f, e.child("right"), e.attr("right"))?;
    Ok(json!({ "type": "compare", "left": left, "op": op, "right": right }))
}
