//! Counters put on a permanent: `<add-object object-name="+1/+1"/>` (`-1/-1`), N times
//! after `<repeat value="N"/>` — the mtg rules' `p1p1` / `m1m1` counters, put with
//! `add` and `would = "mtg:event/put_p1p1"` (`put_m1m1`) so replacement effects see them
//! (Hardened Scales); age counters (cumulative upkeep) as `age`, which no replacement
//! effect watches. Other kinds of counters are missing.

use firemox_xml::Element;
use serde_json::{json, Value};

/// The counter kinds the mtg rules have: Firemox's object name, the property, the event.
const KINDS: &[(&str, &str, Option<&str>)] = &[
    ("+1/+1", "p1p1", Some("mtg:event/put_p1p1")),
    ("-1/-1", "m1m1", Some("mtg:event/put_m1m1")),
    ("age", "age", None),
];

/// The actions for the group `elems` when it is one `<add-object>` of a counter kind the
/// rules have, put `times` times (1 without a `<repeat>`) on `to`; `None` otherwise.
pub fn add_object(elems: &[Element], to: &Value, times: Option<Value>) -> Option<Vec<Value>> {
    let [e] = elems else { return None };
    let plain = e.name == "add-object"
        && e.from_ref.is_none()
        && e.children.is_empty()
        && e.attrs
            .iter()
            .all(|(k, _)| matches!(k.as_str(), "object-name" | "name"));
    if !plain {
        return None;
    }
    let (_, key, event) = KINDS
        .iter()
        .find(|(n, _, _)| Some(*n) == e.attr("object-name"))?;
    let n = times.unwrap_or(json!(1));
    let mut add = json!({ "type": "add", "key": key, "amount": n, "to": to });
    if let Some(event) = event {
        add["would"] = json!(event);
    }
    Some(vec![add])
}
