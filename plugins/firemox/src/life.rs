//! Life lost by the target (`lose-life-target` with a number: `<modify-register
//! register="target" index="life" operation="minus" value="N"/>`, "target player loses N
//! life"): the mtg rules keep a player's life as `max_health - damage`, so losing life adds
//! to `damage` (as paying life does) without dealing damage (nothing prevents it).

use firemox_xml::Fragments;
use serde_json::{json, Value};

use crate::effects::Group;

/// The actions of a `lose-life-target` group on `to`, or `None` when `g` is not one.
pub fn effect(f: &Fragments, g: &Group<'_>, to: &Value) -> Option<Vec<Value>> {
    let [e] = g.elems else { return None };
    let plain = g.reference == Some("lose-life-target")
        && e.name == "modify-register"
        && e.children.is_empty()
        && e.attr("register") == Some("target")
        && e.attr("index") == Some("life")
        && e.attr("operation") == Some("minus")
        && e.attrs.iter().all(|(k, _)| {
            matches!(
                k.as_str(),
                "register" | "index" | "operation" | "value" | "name"
            )
        });
    let n = e
        .attr("value")
        .and_then(|v| f.value(v))
        .filter(|n| (1..=40).contains(n) && plain)?;
    Some(vec![
        json!({ "type": "add", "key": "damage", "amount": n, "to": to }),
    ])
}
