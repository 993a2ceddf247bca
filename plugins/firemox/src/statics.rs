//! Static modifiers (`<modifiers><static-modifier filter-zone="play">`): while the card is
//! on the battlefield, the cards in play that pass its `<while>` test get its register
//! modifiers (power and toughness, added) and property modifiers (keywords the mtg rules
//! implement) — a class aura of the mtg rules (Glorious Anthem: creatures you control get
//! +1/+1).

use firemox_xml::{Element, Fragments};
use serde_json::{json, Value};

use crate::card::Parts;

/// The class aura for one `<static-modifier>`, or what it lacks.
pub fn translate(
    f: &Fragments,
    class: &str,
    s: &Element,
    out: &mut Parts,
) -> Result<Value, String> {
    if s.name != "static-modifier" {
        return Err(format!("<{}> in <modifiers>", s.name));
    }
    if s.attrs
        .iter()
        .any(|(k, v)| !(k == "filter-zone" && v == "play"))
    {
        return Err(format!("static-modifier {}", s.start_tag()));
    }
    let mut modifiers = Vec::new();
    let mut filter = None;
    for c in &s.children {
        match c.name.as_str() {
            "modifiers" => {
                for m in &c.children {
                    modifiers.extend(modifier(f, m)?);
                }
            }
            "while" => {
                filter = Some(
                    crate::counts::test(f, class, c, out)
                        .map_err(|m| format!("static-modifier {m}"))?,
                )
            }
            other => return Err(format!("static-modifier with <{other}>")),
        }
    }
    let Some(filter) = filter else {
        return Err("static-modifier without <while>".into());
    };
    if modifiers.is_empty() {
        return Err("static-modifier without modifiers".into());
    }
    let select = json!({ "type": "objects", "zone": "battlefield", "where": filter });
    Ok(json!({ "select": select, "modifiers": modifiers, "zones": ["battlefield"] }))
}

/// A modifier of the card itself (`<modifiers><register-modifier>` or
/// `<property-modifier>`, with a `<while>` test and maybe a computed `<value>`): a class
/// aura over the card while it is on the battlefield and the test holds (Anurid
/// Barkripper's threshold, Ashenmoor Cohort's "another black creature").
pub fn translate_own(
    f: &Fragments,
    class: &str,
    m: &Element,
    out: &mut Parts,
) -> Result<Value, String> {
    let mut tests = vec![json!({ "type": "is_self" })];
    let mut bare = m.clone();
    bare.children.clear();
    let mut value = None;
    for c in &m.children {
        match c.name.as_str() {
            "while" => tests.push(crate::counts::test(f, class, c, out)?),
            "value" if m.name == "register-modifier" => {
                value = Some(crate::counts::expression(f, class, c, out)?);
            }
            other => return Err(format!("own <{}> with <{other}>", m.name)),
        }
    }
    if let Some(v) = &value {
        bare.set_attr("value", "0");
        let mut mods = modifier(f, &bare).map_err(|e| format!("own {e}"))?;
        let [one] = mods.as_mut_slice() else {
            return Err(format!("own <{}> with a computed value", m.name));
        };
        let sign = if m.attr("operation") == Some("minus") {
            "0 - "
        } else {
            ""
        };
        one["value"] = json!(format!("{sign}{v}"));
        return Ok(own_aura(tests, mods));
    }
    let mods = modifier(f, &bare).map_err(|e| format!("own {e}"))?;
    Ok(own_aura(tests, mods))
}

fn own_aura(tests: Vec<Value>, modifiers: Vec<Value>) -> Value {
    let select = json!({ "type": "objects", "zone": "battlefield", "where": tests });
    json!({ "select": select, "modifiers": modifiers, "zones": ["battlefield"] })
}

/// One modifier: `<register-modifier index="power|toughness" operation="add" value="N">`,
/// or one changing what the object has ([`crate::granted`]: `<property-modifier
/// property="flying">`, a colour, a keyword ability) (also an aura's, [`crate::attach`]).
/// Its aura modifiers (a colour set makes several).
pub fn modifier(f: &Fragments, m: &Element) -> Result<Vec<Value>, String> {
    let plain = |allowed: &[&str]| {
        m.children.is_empty() && m.attrs.iter().all(|(k, _)| allowed.contains(&k.as_str()))
    };
    match m.name.as_str() {
        "register-modifier" if plain(&["index", "operation", "value", "linked", "layer"]) => {
            let key = match m.attr("index") {
                Some("power") => "power",
                Some("toughness") => "max_health",
                other => return Err(format!("static register-modifier {}", other.unwrap_or("?"))),
            };
            match (
                m.attr("operation"),
                m.attr("value").and_then(|v| f.value(v)),
            ) {
                (Some("add"), Some(n)) => Ok(vec![json!({ "key": key, "op": "add", "value": n })]),
                (Some("minus"), Some(n)) => {
                    Ok(vec![json!({ "key": key, "op": "add", "value": -n })])
                }
                _ => Err("static register-modifier other than adding a number".into()),
            }
        }
        // Keywords granted or removed, colours, keyword abilities granted.
        other => match crate::granted::modifier(f, m) {
            Some(r) => r.map_err(|e| format!("static {e}")),
            None => Err(format!("static <{other}>")),
        },
    }
}
