//! "You may pay {N}. If you do, ..." (`<choice>` whose `<either>` begins with `<pay-mana
//! colorless="N"/>`): the mode is offered only while its controller can pay N now — their
//! pool and untapped one-mana sources (the mtg rules' `can_pay_generic_now`) — and begins
//! by paying it (`pay_generic_now`: the sources chosen are tapped for what the pool lacks).
//! Coloured costs are missing.

use firemox_xml::{Element, Fragments};
use serde_json::{json, Value};

/// A payment at the head of a `<choice>` branch.
pub struct Payment<'a> {
    /// The mode's `if`: it can be paid now.
    pub when: Value,
    /// The action paying it.
    pub pay: Value,
    /// The rest of the branch.
    pub rest: &'a [Element],
}

/// A leading generic payment of `list`; `None` when `list` does not begin with
/// `<pay-mana>`.
pub fn leading<'a>(f: &Fragments, list: &'a [Element]) -> Option<Result<Payment<'a>, String>> {
    let (p, rest) = list.split_first()?;
    if p.name != "pay-mana" || p.from_ref.is_some() {
        return None;
    }
    let n = match (p.attrs.as_slice(), p.children.is_empty()) {
        ([(k, v)], true) if k == "colorless" => f.value(v).filter(|n| (1..=20).contains(n)),
        _ => None,
    };
    Some(match n {
        Some(n) => Ok(Payment {
            when: json!({ "ref": "mtg:ref/can_pay_generic_now", "n": n }),
            pay: json!({ "ref": "mtg:ref/pay_generic_now", "n": n }),
            rest,
        }),
        None => Err(format!("<choice> paying {}", p.start_tag())),
    })
}
