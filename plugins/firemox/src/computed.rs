//! Damage of a computed amount (`<assign-damage type="damage-normal"><value register="this"
//! index="power"/></assign-damage>`: Abyssal Hunter's "damage equal to its power"; the
//! chosen target's, `register="target-list.first"`): the amount as an mtg expression read
//! as the effect happens — the card's own power is its source card's (`source_card`) for an
//! ability, the spell's for a spell; X (`<value register="stack" index="0"/>`) is the X
//! paid (`x_paid`) of an ability whose cost has `pay-x`. An ability whose cost sacrifices its card reads no
//! register of the card (there is no last-known information of its power then).

use firemox_xml::Element;
use serde_json::{json, Value};

use crate::effects::Cx;

/// The actions of `e` when it is an `<assign-damage>` of a computed amount on `to`, or
/// `None` when it is not one.
pub fn damage(e: &Element, to: &Value, cx: &Cx) -> Option<Result<Vec<Value>, String>> {
    if e.name != "assign-damage" || e.from_ref.is_some() {
        return None;
    }
    let [v] = e.children.as_slice() else {
        return None;
    };
    if v.name != "value" || e.attr("value").is_some() {
        return None;
    }
    let plain = matches!(e.attr("type"), None | Some("damage-normal"))
        && e.attrs
            .iter()
            .all(|(k, _)| matches!(k.as_str(), "type" | "name"));
    let amount = register(v, cx).filter(|_| plain);
    Some(
        amount
            .map(|n| vec![json!({ "type": "damage", "amount": n, "source": "self", "to": to })])
            .ok_or_else(|| format!("<assign-damage> of {}", v.start_tag())),
    )
}

/// `<value register="this|target-list.first|target-list.last|target" index="power|toughness"/>`
/// or X (`register="stack" index="0"`, when the cost paid it) as an mtg expression.
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
        _ => return None,
    };
    match v.attr("register")? {
        "this" if cx.this.is_some() => Some(format!("self.source_card.{key}")),
        "this" => Some(format!("self.{key}")),
        "target-list.first" | "target-list.last" | "target" => Some(format!("self.chosen.{key}")),
        _ => None,
    }
}
