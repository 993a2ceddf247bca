//! Firemox's event context (validator.xsd's documentation of each event: `context.card`,
//! `context.card2`, `context.player`, `context.int`) as the parts of the mtg event a
//! triggered ability object remembers when it is created ([`Context::remember`]).

use serde_json::{json, Value};

/// What Firemox's event context holds for an event (validator.xsd's documentation of
/// each event), as the mtg event's parts: the ability object created on the stack
/// remembers them (`core:action/create`'s `links`) for `<target type="context.card">`.
#[derive(Clone, Copy)]
pub enum Context {
    /// None this translation reads.
    Nothing,
    /// `context.card`: the event's card (moved, attacking).
    Card,
    /// `context.card`: the blocker (the event's source); `context.card2`: the attacker
    /// it blocks (the blocker's `blocks` link).
    Blocking,
    /// `context.card` / `context.player`: the damaged card or player; `context.card2`:
    /// the source.
    Damage,
    /// `context.card`: the spell; `context.player`: its caster.
    Cast,
}

impl Context {
    /// The registers and the references (or, for `int`, the number) they are kept from.
    pub fn links(self) -> &'static [(&'static str, &'static str)] {
        match self {
            Context::Nothing => &[],
            Context::Card => &[("card", "event.target")],
            Context::Blocking => &[("card", "event.source"), ("card2", "event.source.blocks")],
            Context::Damage => &[
                ("card", "event.target"),
                ("player", "event.target"),
                ("card2", "event.source"),
                ("int", "event.amount"),
            ],
            Context::Cast => &[("card", "event.target"), ("player", "event.target.owner")],
        }
    }

    /// Adds the `links` (and the `numbers`: `context.int`, the damage dealt) to the
    /// `create` action of the ability object.
    pub fn remember(self, create: &mut Value) {
        let kept = |numbers: bool| -> serde_json::Map<String, Value> {
            self.links()
                .iter()
                .filter(|(k, _)| is_number(k) == numbers)
                .map(|(k, r)| (format!("context_{k}"), json!(r)))
                .collect()
        };
        for (table, numbers) in [("links", false), ("numbers", true)] {
            let kept = kept(numbers);
            if !kept.is_empty() {
                create[table] = Value::Object(kept);
            }
        }
    }
}

/// Whether a context register is a number (`int`, `int2`), not an object.
pub fn is_number(register: &str) -> bool {
    register.starts_with("int")
}
