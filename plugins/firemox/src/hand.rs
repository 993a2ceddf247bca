//! Abilities played from the hand besides casting: cycling (`<ability ref="cycling">`
//! with its mana cost plugged into the reference's cost) → the mtg rules' `cycle` move
//! (`mods/mtg/content/cycling.toml`): the tag `cycling` and the cost in `cycling_cost_*`.

use firemox_xml::{Element, Fragments};
use serde_json::json;

use crate::card::{Parts, COLOURS};

/// Translates a cycling ability into `out`.
pub fn cycling(f: &Fragments, a: &Element, out: &mut Parts) {
    let pay = a.child("cost").map(|c| c.children.as_slice());
    let Some([pay]) = pay else {
        out.missing
            .push("cycling with a cost other than mana".into());
        return;
    };
    // Exactly the reference with this cost plugged in and no other effect.
    let site = Element {
        name: "ability".into(),
        attrs: vec![("ref".into(), "cycling".into())],
        children: vec![Element {
            name: "actions".into(),
            children: vec![pay.clone()],
            ..Element::default()
        }],
        ..Element::default()
    };
    let plain = firemox_xml::expand::expand_all(f, &[site])
        .is_ok_and(|v| v.as_slice() == std::slice::from_ref(a));
    if !plain {
        out.missing
            .push("cycling with other costs or effects".into());
        return;
    }
    match mana(f, pay) {
        Some(cost) => {
            let total: i64 = cost.iter().map(|(_, n)| n).sum();
            out.tags.push("cycling".into());
            for (k, n) in cost {
                out.props.push((format!("cycling_cost_{k}"), json!(n)));
            }
            out.props.push(("cycling_mana_value".into(), json!(total)));
        }
        None => out
            .missing
            .push(format!("cycling cost {}", pay.start_tag())),
    }
}

/// A `<pay-mana colorless="1" white="1"/>` as the mtg rules' cost parts (`generic`, `w`
/// ... `g`), or `None` for anything else.
pub fn mana(f: &Fragments, e: &Element) -> Option<Vec<(&'static str, i64)>> {
    if e.name != "pay-mana" || !e.children.is_empty() {
        return None;
    }
    let mut out = vec![
        ("generic", 0),
        ("w", 0),
        ("u", 0),
        ("b", 0),
        ("r", 0),
        ("g", 0),
        ("c", 0),
    ];
    for (k, v) in &e.attrs {
        let n = f.value(v)?;
        let slot = if k == "colorless" {
            "generic"
        } else {
            let c = COLOURS.iter().find(|(name, _)| name == k)?.1;
            ["w", "u", "b", "r", "g"]
                .into_iter()
                .find(|s| s.starts_with(c))?
        };
        out.iter_mut().find(|(s, _)| *s == slot)?.1 += n;
    }
    Some(out)
}
