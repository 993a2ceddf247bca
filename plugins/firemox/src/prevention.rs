//! Damage prevention effects: `prevent-N` ("prevent the next N damage that would be dealt
//! to the last target this turn": Samite Healer, Healing Salve) gives the target a
//! prevention shield — the mtg rules' `prevent_next`, used up by the damage it prevents
//! and ended by the cleanup — and `prevent-all-combat-damage` (Fog, Holy Day) tags the
//! controller `prevents_combat_damage` until the cleanup.

use firemox_xml::Fragments;
use serde_json::{json, Value};

use crate::card::plain_list;
use crate::effects::Group;

/// The actions of a prevention group on the target `to`, or `None` when `g` is not one.
pub fn effect(f: &Fragments, g: &Group<'_>, to: &Value) -> Option<Vec<Value>> {
    let r = g.reference?;
    if !plain_list(f, "action", r, g.elems) {
        return None;
    }
    if r == "prevent-all-combat-damage" {
        return Some(vec![
            json!({ "type": "tag", "tag": "prevents_combat_damage", "to": "owner" }),
        ]);
    }
    let n = r
        .strip_prefix("prevent-")?
        .parse::<i64>()
        .ok()
        .filter(|n| (1..=10).contains(n))?;
    Some(vec![
        json!({ "type": "add", "key": "prevent_next", "amount": n, "to": to }),
    ])
}
