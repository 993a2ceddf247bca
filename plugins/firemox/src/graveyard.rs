//! Targets in graveyards (`<target type="card" mode="choose" restriction-zone="graveyard">`
//! in the cost of an ability of a permanent, with the card's `<test>`: Academy Ruins'
//! "target artifact card in your graveyard") → the ability's `targets_graveyard_card`: it
//! chooses a card in a graveyard passing the test as it is put on the stack, and acts only
//! if that card is still in a graveyard as it resolves (the mtg rules' `graveyard_target`).

use firemox_xml::{Element, Fragments};
use serde_json::{json, Value};

/// An ability's target read from its cost: its targeting tags and filter, or what it lacks.
pub type Targeted = Result<(Vec<String>, Option<Value>), String>;

/// The targeting tag of an ability's target in a graveyard, and its filter; `None` when
/// `t` is not such a target.
pub fn target(f: &Fragments, t: &Element) -> Option<Targeted> {
    let known = t.attrs.iter().all(|(k, v)| match k.as_str() {
        "type" => v == "card",
        "restriction-zone" => v == "graveyard",
        "mode" => v == "choose",
        "raise-event" => v == "true" || v == "false",
        "name" => true,
        _ => false,
    });
    if t.name != "target" || t.attr("restriction-zone") != Some("graveyard") || !known {
        return None;
    }
    let tags = vec!["targets_graveyard_card".to_owned()];
    Some(match t.children.as_slice() {
        [] => Ok((tags, None)),
        [test] if test.name == "test" => crate::conditions::condition(f, test)
            .map(|c| (tags, Some(c)))
            .map_err(|m| format!("target in a graveyard: {m}")),
        _ => Err("target in a graveyard with more than a test".into()),
    })
}

/// Where an ability targeting a card in a graveyard chooses it.
pub fn candidates() -> Value {
    json!({ "type": "objects", "zone": "graveyard", "tag": "card" })
}
