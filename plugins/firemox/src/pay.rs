//! "You may pay {N}. If you do, ..." (`<choice>` whose `<either>` begins with `<pay-mana
//! colorless="N"/>`): the mode is offered only while its controller can pay N now — their
//! pool and untapped one-mana sources (the mtg rules' `can_pay_generic_now`) — and begins
//! by paying it (`pay_generic_now`: the sources chosen are tapped for what the pool lacks).
//! A fixed cost with coloured mana (`<pay-mana red="1" colorless="2"/>`) is the mtg rules'
//! `can_pay_mana_now` / `pay_mana_now` (sources of each colour tapped as it is paid);
//! other costs are missing.

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
    let lacks = || format!("<choice> paying {}", p.start_tag());
    Some(match n {
        Some(n) => Ok(Payment {
            when: json!({ "ref": "mtg:ref/can_pay_generic_now", "n": n }),
            pay: json!({ "ref": "mtg:ref/pay_generic_now", "n": n }),
            rest,
        }),
        None => coloured(f, p).ok_or_else(lacks).map(|args| Payment {
            when: json!({ "ref": "mtg:ref/can_pay_mana_now", "w": args[0], "u": args[1], "b": args[2], "r": args[3], "g": args[4], "n": args[5] }),
            pay: json!({ "ref": "mtg:ref/pay_mana_now", "w": args[0], "u": args[1], "b": args[2], "r": args[3], "g": args[4], "n": args[5] }),
            rest,
        }),
    })
}

/// A `<pay-mana>` of fixed amounts with a colour (`red="1" colorless="2"`): W, U, B, R,
/// G and generic, for the mtg rules' `can_pay_mana_now` / `pay_mana_now`.
fn coloured(f: &Fragments, p: &Element) -> Option<[i64; 6]> {
    const ORDER: [&str; 6] = ["white", "blue", "black", "red", "green", "colorless"];
    if !p.children.is_empty() || p.attrs.is_empty() {
        return None;
    }
    let mut args = [0; 6];
    for (k, v) in &p.attrs {
        let i = ORDER.iter().position(|c| c == k)?;
        args[i] = f.value(v).filter(|n| (0..=20).contains(n))?;
    }
    args[..5].iter().any(|n| *n > 0).then_some(args)
}
