//! A card in a graveyard as the target of an ability (`<target type="card" mode="choose"
//! restriction-zone="graveyard">` in the cost, maybe with a `<test>` on the card: Volrath's
//! Stronghold's "target creature card in your graveyard", Steamclaw's "target card in a
//! graveyard"): the mtg rules' `targets_graveyard_card`, chosen among the cards of every
//! graveyard that pass the test, and re-checked as the ability resolves
//! (`mtg:ref/graveyard_target`: still in a graveyard, else it fizzles).

use firemox_xml::{Element, Fragments};
use serde_json::{json, Value};

/// The targeting tag of graveyard card targets.
pub const TAG: &str = "targets_graveyard_card";

/// Whether `e` is a graveyard card target element (whatever its test).
pub fn is_target(e: &Element) -> bool {
    e.name == "target"
        && e.attr("type") == Some("card")
        && e.attr("restriction-zone") == Some("graveyard")
}

/// The filter of a graveyard card target `e` (its `<test>` as an mtg condition on the
/// candidate, `None` without one), or what it lacks.
pub fn filter(f: &Fragments, e: &Element) -> Result<Option<Value>, String> {
    let known = e.attrs.iter().all(|(k, v)| match k.as_str() {
        "type" | "restriction-zone" | "name" => true,
        "mode" => v == "choose",
        "raise-event" => v == "true" || v == "false",
        _ => false,
    });
    if !known || e.attr("mode") != Some("choose") {
        return Err(format!("graveyard target {}", e.start_tag()));
    }
    match e.children.as_slice() {
        [] => Ok(None),
        [t] if t.name == "test" => crate::conditions::condition(f, t)
            .map(Some)
            .map_err(|m| format!("graveyard target {m}")),
        _ => Err("graveyard target with more than a test".into()),
    }
}

/// The candidates of a graveyard card target: the cards of every graveyard.
pub fn candidates() -> Value {
    json!({ "type": "objects", "zone": "graveyard", "tag": "card" })
}
