//! Auras (`<idcards>local-enchantment</idcards>`, the `cast-enchant` ability and an
//! `<attachment>`): the card becomes an Aura of the mtg rules (`mods/mtg/content/auras.toml`)
//! — tagged `aura`, what it may enchant in `tgt_*` (from the attachment's `<valid-target>`
//! test), and its `<modifiers>` as a class aura over the enchanted object (`mtg:enchanted`).

use firemox_xml::{Element, Fragments};
use serde_json::{json, Value};

use crate::card::Parts;

/// `<valid-target ref>` tests and the `tgt_*` flag each becomes, with the
/// `<valid-attachment ref>` test that goes with it (the state-based re-check, which the
/// mtg rules make from the same flag).
const ENCHANT: &[(&str, &str, &str)] = &[
    (
        "valid-creature-to-enchant",
        "valid-enchant-creature",
        "tgt_creature",
    ),
    ("valid-land-to-enchant", "valid-enchant-land", "tgt_land"),
    (
        "valid-artifact-to-enchant",
        "valid-enchant-artifact",
        "tgt_artifact",
    ),
    (
        "valid-permanent-to-enchant",
        "valid-enchant-permanent",
        "tgt_permanent",
    ),
    (
        "valid-enchantment-to-enchant",
        "valid-enchant-enchantment",
        "tgt_enchantment",
    ),
];

/// Translates an aura's `<attachment>` into `out` (tags, the `tgt_*` property) and returns
/// its class aura (none when the attachment has no modifiers: "enchant creature" whose
/// text is in other abilities).
pub fn translate(f: &Fragments, a: &Element, out: &mut Parts) -> Option<Value> {
    out.tags
        .extend(["aura".into(), "enchantment".into(), "permanent".into()]);
    let mut modifiers = Vec::new();
    let mut target = None;
    let mut attachment = None;
    for c in &a.children {
        match c.name.as_str() {
            "modifiers" => {
                for m in &c.children {
                    match crate::statics::modifier(f, m) {
                        Ok(v) => modifiers.extend(v),
                        Err(e) => out.missing.push(format!("attachment {e}")),
                    }
                }
            }
            "valid-target" if c.attrs.is_empty() => target = c.from_ref.as_deref(),
            "valid-attachment" if c.attrs.is_empty() => attachment = c.from_ref.as_deref(),
            other => out.missing.push(format!("attachment with <{other}>")),
        }
    }
    match ENCHANT.iter().find(|(t, _, _)| Some(*t) == target) {
        Some((_, valid, flag)) if Some(*valid) == attachment => {
            out.props.push(((*flag).into(), json!(1)));
        }
        _ => out.missing.push(format!(
            "attachment enchanting {} (valid-attachment {})",
            target.unwrap_or("a test of its own"),
            attachment.unwrap_or("a test of its own")
        )),
    }
    (!modifiers.is_empty()).then(|| {
        json!({ "select": { "ref": "mtg:ref/enchanted" }, "modifiers": modifiers, "zones": ["battlefield"] })
    })
}
