//! Keywords that are triggered abilities: `K:Prowess` ("whenever you cast a noncreature
//! spell, this creature gets +1/+1 until end of turn", 702.108) and `K:Exalted`
//! ("whenever a creature you control attacks alone, it gets +1/+1 until end of turn",
//! 702.83; the mtg rules raise `attacked_alone` for a lone attacker). Each gives the card a
//! trigger that puts an ability (`<card>_prowess`, `<card>_exalted`) on the stack.

use serde_json::{json, Value};

use crate::trigger::ability_class;

/// The card's trigger and the ability class for a triggered keyword, or `None` when the
/// keyword is not one of these.
pub fn translate(name: &str, card: &str, class: &str) -> Option<(Value, (String, Value))> {
    let pump = |to: Value| {
        json!({ "type": "give_aura", "aura": { "modifiers": [
            { "key": "power", "op": "add", "value": 1 },
            { "key": "max_health", "op": "add", "value": 1 },
        ], "until": "cleanup" }, "to": to })
    };
    match name {
        "Prowess" => {
            let ability = format!("{class}_prowess");
            let this = json!({ "type": "object", "object": "self.source_card", "where": { "type": "in_zone", "zone": "battlefield" } });
            let def = ability_class(
                &format!("{card} (prowess)"),
                None,
                "spell_target",
                vec![pump(this)],
            );
            let trigger = json!({
                "when": { "event": "cast", "player": "friendly", "target": { "not": { "type": "has_tag", "tag": "creature" } } },
                "zones": ["battlefield"],
                "do": [{ "type": "create", "class": ability, "zone": "stack" }],
            });
            Some((trigger, (ability, def)))
        }
        "Exalted" => {
            let ability = format!("{class}_exalted");
            // The lone attacker, remembered when the ability is created.
            let attacker = json!({ "type": "objects", "zone": "battlefield", "tag": "attacking", "owner": "friendly" });
            let def = ability_class(
                &format!("{card} (exalted)"),
                Some(attacker),
                "etb_target",
                vec![pump(json!({ "ref": "etb_target" }))],
            );
            let trigger = json!({
                "when": { "event": "attacked_alone", "target": { "type": "owned_by", "owner": "friendly" } },
                "zones": ["battlefield"],
                "do": [{ "type": "create", "class": ability, "zone": "stack" }],
            });
            Some((trigger, (ability, def)))
        }
        _ => None,
    }
}
