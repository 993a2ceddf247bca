//! Modular N (702.43): `K:Modular N` — "this enters the battlefield with N +1/+1 counters
//! on it; when it dies, you may put its +1/+1 counters on target artifact creature". The
//! counters on entering are `K:etbCounter:P1P1:N`'s replacement ([`crate::counters`]);
//! the dies trigger puts a `<card>_modular` ability on the stack that remembers how many
//! counters the card had as it died (`modular_count`, from `event.last.p1p1`: its
//! last-known value), chooses an artifact creature as it is created, and asks its
//! controller as it resolves.

use forge_script::Keyword;
use serde_json::{json, Value};

use crate::trigger::ability_class;

/// What `K:Modular N` adds to the card `class` (named `name` in titles): its replacement,
/// its card triggers and its ability class; `None` for another keyword.
pub struct Modular {
    /// The enters-with-counters replacement.
    pub replacement: Value,
    /// The dies triggers (destroyed, or otherwise moved, into the graveyard).
    pub triggers: Vec<Value>,
    /// The ability's class, by name.
    pub class: (String, Value),
}

/// Translates `K:Modular N` of the card `class`; `None` for another keyword, `Err` for
/// an amount that is not a number.
pub fn translate(k: &Keyword, class: &str, name: &str) -> Option<Result<Modular, String>> {
    let n = k.name.strip_prefix("Modular ")?;
    Some(build(n, class, name).ok_or_else(|| format!("K:{}", k.name)))
}

fn build(n: &str, class: &str, name: &str) -> Option<Modular> {
    let n: i64 = n.trim().parse().ok().filter(|n| *n > 0)?;
    let etb = Keyword {
        name: "etbCounter".into(),
        params: vec!["P1P1".into(), n.to_string()],
        line: 0,
    };
    let replacement = crate::counters::etb_counter(&etb).ok()?;
    let ability = format!("{class}_modular");
    let act = json!([
        { "type": "create", "class": ability, "zone": "stack" },
        { "type": "set", "key": "modular_count", "value": "event.last.p1p1", "to": { "ref": "top_of_stack" } },
    ]);
    let triggers = ["core:event/destroyed", "core:event/moved"]
        .iter()
        .map(|event| {
            json!({ "when": { "event": event, "target": [
                { "type": "is_self" },
                { "type": "event_field", "field": "from", "is": "battlefield" },
                { "type": "in_zone", "zone": "graveyard" },
            ] }, "do": act })
        })
        .collect();
    let choose = json!({ "type": "objects", "zone": "battlefield", "tag": "creature",
        "where": [{ "type": "has_tag", "tag": "artifact" }, { "ref": "targetable_by_me" }],
        "pick": { "chosen": 1, "prompt": "modular: choose target artifact creature" } });
    let put = json!({ "type": "add", "key": "p1p1", "amount": "self.modular_count", "would": "put_p1p1", "to": { "ref": "etb_target" } });
    let effect = vec![
        json!({ "type": "choose_mode", "prompt": format!("{name}: put its +1/+1 counters on the artifact creature?"), "modes": [
        { "label": "yes", "do": [put] },
        { "label": "no", "do": [] },
    ] }),
    ];
    let def = ability_class(
        &format!("{name} (modular)"),
        Some(choose),
        "etb_target",
        effect,
    );
    Some(Modular {
        replacement,
        triggers,
        class: (ability, def),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modular_one() {
        let k = Keyword {
            name: "Modular 1".into(),
            params: Vec::new(),
            line: 1,
        };
        let m = translate(&k, "ravager", "Ravager").unwrap().unwrap();
        assert_eq!(m.triggers.len(), 2);
        assert!(m.triggers[0].to_string().contains("event.last.p1p1"));
        assert_eq!(m.class.0, "ravager_modular");
        let bad = Keyword {
            name: "Modular X".into(),
            params: Vec::new(),
            line: 1,
        };
        assert!(translate(&bad, "r", "R").unwrap().is_err());
    }
}
