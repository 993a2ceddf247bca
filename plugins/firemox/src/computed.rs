//! Computed amounts of effects: damage dealt, life gained or lost, as an mtg expression
//! read as the effect happens. `<assign-damage><value register="this" index="power"/>`
//! (Abyssal Hunter's "damage equal to its power"), `<action ref="gain-life"><value>
//! <counter .../></value>` (An-Havva Inn: one more than the green creatures in play),
//! Kindle's "2 plus the Kindles in all graveyards". The card's own power is its source
//! card's (`source_card`) for an ability, the spell's for a spell; the chosen target's is
//! `register="target-list.first"`; the triggering event's card is the ability's
//! `context_card` link; X (`<value register="stack" index="0"/>`) is the X paid
//! (`x_paid`) of an ability whose cost has `pay-x`. An ability whose cost sacrifices its
//! card reads no register of the card (there is no last-known information of its power
//! then). Counted selectors become refs of the card ([`Cx::counted`]).

use firemox_xml::{Element, Fragments};
use serde_json::{json, Value};

use crate::counts::Scope;
use crate::effects::Cx;

impl Scope for &Cx {
    fn count(&mut self, selector: Value) -> String {
        let name = format!("{}_value_{:08x}", self.class, fnv(&selector.to_string()));
        let mut counted = self.counted.borrow_mut();
        if !counted.iter().any(|(n, _)| *n == name) {
            counted.push((name.clone(), json!({ "selector": selector })));
        }
        name
    }
    fn register(&self, e: &Element) -> Option<String> {
        register(e, self)
    }
    fn class(&self) -> &str {
        &self.class
    }
}

/// A stable 32-bit FNV-1a hash: counted selectors are named by what they select, so
/// the same counter read twice is one ref.
fn fnv(s: &str) -> u32 {
    s.bytes().fold(0x811c_9dc5_u32, |h, b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    })
}

/// Firemox's `all` / `destroy` value: damage that much destroys.
const ALL: i64 = 65535;

/// The amount an action element says: its `value` attribute (digits or an alias), or
/// its one `<value>` child, computed ([`crate::counts::expression_in`]).
pub fn amount(f: &Fragments, e: &Element, cx: &Cx) -> Result<String, String> {
    match (e.attr("value"), e.children.as_slice()) {
        (Some(v), []) => f
            .value(v)
            .filter(|n| *n != ALL)
            .map(|n| n.to_string())
            .or_else(|| context_number(v, cx))
            .ok_or_else(|| format!("value `{v}`")),
        (None, [v]) if v.name == "value" => crate::counts::expression_in(f, v, &mut { cx }),
        _ => Err(format!("an amount in {}", e.start_tag())),
    }
}

/// The actions of `e` when it is an `<assign-damage>` (normal damage from `self`) on
/// `to`, of a number or a computed amount ([`amount`]), or `None` when it is not one.
pub fn damage(
    f: &Fragments,
    e: &Element,
    to: &Value,
    cx: &Cx,
) -> Option<Result<Vec<Value>, String>> {
    if e.name != "assign-damage" || e.from_ref.is_some() {
        return None;
    }
    let plain = matches!(e.attr("type"), None | Some("damage-normal"))
        && e.attrs
            .iter()
            .all(|(k, _)| matches!(k.as_str(), "type" | "value" | "name"));
    if !plain {
        return Some(Err(format!("<assign-damage> {}", e.start_tag())));
    }
    // Firemox destroys with damage of `all` / `destroy` (65535): the `destroy` reference.
    if e.children.is_empty() && e.attr("value").and_then(|v| f.value(v)) == Some(ALL) {
        return Some(Ok(vec![json!({ "type": "destroy", "to": to })]));
    }
    Some(
        amount(f, e, cx)
            .map(|n| vec![json!({ "type": "damage", "amount": n, "source": "self", "to": to })])
            .map_err(|m| format!("<assign-damage> of {m}")),
    )
}

/// `gain-life` / `lose-life` (`<modify-register register="controller" index="life"
/// operation="add|minus">`): the controller of `self` gains or loses the amount. The mtg
/// rules keep a player's life as `max_health - damage`: gaining takes from `damage`,
/// losing adds to it (without dealing damage: nothing prevents it).
pub fn own_life(f: &Fragments, e: &Element, cx: &Cx) -> Result<Vec<Value>, String> {
    let sign = match e.attr("operation") {
        Some("add") => "0 - ",
        Some("minus") => "",
        _ => return Err(format!("<modify-register> {}", e.start_tag())),
    };
    let known = e.attrs.iter().all(|(k, _)| {
        matches!(
            k.as_str(),
            "register" | "index" | "operation" | "value" | "name"
        )
    });
    if e.attr("register") != Some("controller") || e.attr("index") != Some("life") || !known {
        return Err(format!("<modify-register> {}", e.start_tag()));
    }
    let n = amount(f, e, cx).map_err(|m| format!("life of {m}"))?;
    Ok(vec![
        json!({ "type": "add", "key": "damage", "amount": format!("{sign}({n})"), "to": "owner" }),
    ])
}

/// `context.int`: the number the triggering event was about (the damage dealt), which
/// the ability object remembers as its `context_int` ([`Cx::context`]).
fn context_number(v: &str, cx: &Cx) -> Option<String> {
    let base = v.strip_prefix("context.")?;
    (crate::trigger_context::is_number(base) && cx.context.iter().any(|(k, _)| *k == base))
        .then(|| format!("self.context_{base}"))
}

/// `<value register="this|target-list.first|target-list.last|target|context.card"
/// index="power|toughness|manacost"/>`, the controller's life, or X
/// (`register="stack" index="0"`, when the cost paid it) as an mtg expression.
fn register(v: &Element, cx: &Cx) -> Option<String> {
    if !v.children.is_empty()
        || v.attrs
            .iter()
            .any(|(k, _)| !matches!(k.as_str(), "register" | "index" | "name"))
    {
        return None;
    }
    if (v.attr("register"), v.attr("index")) == (Some("stack"), Some("0")) {
        // The X paid (`pay-x` in the cost: the ability's `x_paid`).
        return cx.x.then(|| "self.x_paid".to_owned());
    }
    let key = match v.attr("index")? {
        "power" => "power",
        "toughness" => "max_health",
        "manacost" => "mana_value",
        "life" => {
            return matches!(v.attr("register")?, "you" | "controller")
                .then(|| "self.owner.health".to_owned())
        }
        _ => return None,
    };
    match v.attr("register")? {
        "this" if cx.this.is_some() => Some(format!("self.source_card.{key}")),
        "this" => Some(format!("self.{key}")),
        "target-list.first" | "target-list.last" | "target" => Some(format!("self.chosen.{key}")),
        r => {
            let base = r.strip_prefix("context.")?;
            cx.context
                .iter()
                .any(|(k, _)| {
                    *k == base && base != "player" && !crate::trigger_context::is_number(base)
                })
                .then(|| format!("self.context_{base}.{key}"))
        }
    }
}
