//! Persist (702.79): "When this creature dies, if it had no -1/-1 counters on it, return
//! it to the battlefield under its owner's control with a -1/-1 counter on it." As the
//! creature would go from the battlefield to a graveyard, its replacement (acting, not
//! changing the event) marks it `persisting` when it has no -1/-1 counter (the counters it
//! had, before it leaves: 603.10a looks back); once in the graveyard the marked card puts
//! its ability (`<card>_persist`) on the stack, which returns it with a -1/-1 counter if
//! it is still there.

use serde_json::{json, Value};

use crate::moment::Moment;

/// The card's replacements, its triggers and its ability class.
pub struct Persist {
    /// On `destroyed` and `moved` to a graveyard from the battlefield.
    pub replacements: Vec<Value>,
    /// Heard in the graveyard.
    pub triggers: Vec<Value>,
    /// The ability's class, by name.
    pub class: (String, Value),
}

/// Persist for the card `class` named `title`.
pub fn translate(class: &str, title: &str) -> Persist {
    let replacements = ["core:event/destroyed", "core:event/moved"]
        .iter()
        .map(|event| {
            json!({
                "would": { "event": event, "target": [
                    { "type": "is_self" },
                    { "type": "in_zone", "zone": "battlefield" },
                    { "type": "event_field", "field": "to", "is": "graveyard" },
                    { "type": "compare", "left": "target.m1m1", "op": "==", "right": 0 },
                ] },
                "zones": ["battlefield"],
                "do": [{ "type": "tag", "tag": "persisting" }],
            })
        })
        .collect();
    let name = format!("{class}_persist");
    let create = json!([{ "type": "if", "condition": { "type": "has_tag", "tag": "persisting" }, "then": [
        { "type": "untag", "tag": "persisting" },
        { "type": "create", "class": name, "zone": "stack" },
    ] }]);
    let triggers = crate::moment::card_triggers(Moment::Dies, &create, None);
    let card = json!({ "type": "object", "object": "self.source_card", "where": { "type": "in_zone", "zone": "graveyard" } });
    let effect = vec![
        json!({ "type": "if", "to": card, "condition": { "type": "in_zone", "zone": "graveyard" }, "then": [
            { "type": "move", "zone": "battlefield" },
            { "type": "add", "key": "m1m1", "amount": 1, "would": "put_m1m1" },
        ] }),
    ];
    let def =
        crate::trigger::ability_class(&format!("{title} (persist)"), None, "spell_target", effect);
    Persist {
        replacements,
        triggers,
        class: (name, def),
    }
}
