//! "Becomes an N/N creature until end of turn" (Mishra's Factory, Xanthic Statue,
//! Sorceress Queen's "becomes 0/2"): the modifiers of an `<add-modifier>` until the
//! cleanup that the rules' layers can carry besides +N/+N and keywords —
//! `<register-indirection index="power|toughness" value="N">` (set: layer 7b, the mtg
//! rules' `set`), `<idcard-modifier idcard="creature|artifact-creature" operation="or">`
//! (type-changing, layer 4: the `creature` tag, and `artifact`), and
//! `<property-modifier>` of a subtype (its tag); and keywords granted or removed and
//! colours ([`crate::granted`]). A permanent that becomes a creature is
//! summoning sick unless its controller has had it since their turn began (the mtg rules
//! tag every permanent entering the battlefield `sick`).

use firemox_xml::{Element, Fragments};
use serde_json::{json, Value};

use crate::card::slug;

/// A keyword granted or removed, or a colour ([`crate::granted`]), until the cleanup:
/// `m` without its `<until>` (the caller's to check).
fn granted(f: &Fragments, m: &Element) -> Option<Vec<Value>> {
    let mut bare = m.clone();
    bare.children.retain(|c| c.name != "until");
    crate::granted::modifier(f, &bare)?.ok()
}

/// The aura modifiers for one modifier element `m` of an `<add-modifier>` that lasts until
/// the cleanup, or `None` when it is not one of these.
pub fn modifier(f: &Fragments, m: &Element) -> Option<Vec<Value>> {
    let plain = |allowed: &[&str]| {
        m.attrs
            .iter()
            .all(|(k, _)| allowed.contains(&k.as_str()) || k == "linked" || k == "name")
    };
    match m.name.as_str() {
        "register-indirection" if plain(&["index", "value", "operation"]) => {
            let key = match m.attr("index")? {
                "power" => "power",
                "toughness" => "max_health",
                _ => return None,
            };
            if !matches!(m.attr("operation"), None | Some("set")) {
                return None;
            }
            let n = m.attr("value").and_then(|v| f.value(v))?;
            Some(vec![json!({ "key": key, "op": "set", "value": n })])
        }
        "idcard-modifier"
            if plain(&["idcard", "operation"]) && m.attr("operation") == Some("or") =>
        {
            let tags: &[&str] = match m.attr("idcard")? {
                "creature" => &["creature"],
                "artifact-creature" => &["artifact", "creature"],
                _ => return None,
            };
            Some(
                tags.iter()
                    .map(|t| json!({ "key": t, "op": "tag" }))
                    .collect(),
            )
        }
        "property-modifier"
            if plain(&["property", "operation"])
                && matches!(m.attr("operation"), None | Some("add")) =>
        {
            let p = m.attr("property")?;
            let first = f.aliases.get("FIRST_SUB_TYPE").copied().unwrap_or(i64::MAX);
            let last = f.aliases.get("LAST_SUB_TYPE").copied().unwrap_or(i64::MIN);
            let subtype = f.aliases.get(p).is_some_and(|v| (first..=last).contains(v));
            subtype
                .then(|| vec![json!({ "key": slug(p), "op": "tag" })])
                .or_else(|| granted(f, m))
        }
        _ => granted(f, m),
    }
}
