//! Restrictions on activating a permanent's ability (602.5b), from the ability's `<test>`
//! (whose tested card is the card itself):
//!
//! - `use-once-each-turn` in the cost (with `<test ref="once-each-turn"/>`, which a few
//!   card files forget): the mtg rules' "once each turn" (`once_each_turn`, or slot N's
//!   `ability_N_once`);
//! - any other test the loader can say as a condition ([`crate::counts::test`]: card
//!   types, controller, counts of cards in a zone such as threshold or "you control a
//!   Swamp", comparisons): "activate only if ...", a class aura of the card granting the
//!   rules' `ability_forbidden` (slot N's `ability_N_forbidden`) while it does not hold.
//!
//! Tests of the phase (`during-your-upkeep`) and of registers are missing.

use firemox_xml::{Element, Fragments};
use serde_json::{json, Value};

use crate::card::Parts;
use crate::slot::Slot;

/// What a card gets for an ability's restrictions.
#[derive(Default)]
pub struct Restrictions {
    /// Tags of the card (`once_each_turn`).
    pub tags: Vec<String>,
    /// Class auras of the card (granting `ability_forbidden` while a condition fails).
    pub auras: Vec<Value>,
}

/// The restrictions of an ability with the test `test` (if any) whose cost uses it once
/// each turn (`once`), in `slot`; `Err` names what the loader cannot say.
pub fn translate(
    f: &Fragments,
    class: &str,
    test: Option<&Element>,
    once: bool,
    slot: Slot,
    out: &mut Parts,
) -> Result<Restrictions, String> {
    let mut parts = Vec::new();
    if let Some(t) = test {
        conjuncts(t, &mut parts);
    }
    let (once_tests, others): (Vec<&Element>, Vec<&Element>) = parts
        .into_iter()
        .partition(|e| e.from_ref.as_deref() == Some("once-each-turn"));
    // (A few card files mark the use in the cost and forget the test: Fire Drake's
    // "activate only once each turn" is still meant.)
    if !once_tests.is_empty() && !once {
        return Err("with the once-each-turn test without its cost".into());
    }
    let mut r = Restrictions::default();
    if once {
        r.tags.push(slot.name("once_each_turn"));
    }
    if others.is_empty() {
        return Ok(r);
    }
    let mut conditions = Vec::new();
    for e in others {
        conditions.push(crate::counts::test(f, class, e, out).map_err(|m| format!("with {m}"))?);
    }
    r.auras.push(json!({
        "select": { "type": "objects", "zone": "battlefield", "where": [
            { "type": "is_self" },
            { "not": { "all": conditions } },
        ] },
        "modifiers": [{ "key": slot.name("ability_forbidden"), "op": "tag" }],
        "zones": ["battlefield"],
    }));
    Ok(r)
}

/// The tests `e` requires all of: the children of `<test>` wrappers and `<and>`, each
/// referenced test (`<test ref="...">`, which keeps its name) as one.
fn conjuncts<'a>(e: &'a Element, out: &mut Vec<&'a Element>) {
    let wrapper = e.from_ref.is_none() && matches!(e.name.as_str(), "test" | "and");
    if wrapper {
        for c in &e.children {
            conjuncts(c, out);
        }
    } else {
        out.push(e);
    }
}
