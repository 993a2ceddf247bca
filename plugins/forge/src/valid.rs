//! Forge's "valid card" expressions (`Creature`, `Creature.YouCtrl+Other`,
//! `Creature.nonArtifact+nonBlack`, `Card.Self`, lists with `,`) as conditions an object on
//! the battlefield must meet. Used by statics (`Affected$`), replacements (`ValidCard$`)
//! and mass effects (`ValidCards$`).

use serde_json::{json, Value};

use crate::card::slug;

/// Forge's comparison suffix with its number (`GE3`, `LT10`: `SVarCompare$`,
/// `LifeAmount$`, `cmcLE3`) as an operator of `core:condition/compare` and the number.
pub(crate) fn comparison(text: &str) -> Option<(&'static str, i64)> {
    const OPS: [(&str, &str); 5] = [
        ("GE", ">="),
        ("GT", ">"),
        ("LE", "<="),
        ("LT", "<"),
        ("EQ", "=="),
    ];
    OPS.iter().find_map(|(f, op)| {
        text.strip_prefix(f)
            .and_then(|n| n.parse::<i64>().ok())
            .map(|n| (*op, n))
    })
}

/// The card types a valid expression may start with, and the tag each tests (`None`: any
/// card).
const BASES: &[(&str, Option<&str>)] = &[
    ("Card", Some("card")),
    ("Permanent", Some("permanent")),
    ("Creature", Some("creature")),
    ("Artifact", Some("artifact")),
    ("Enchantment", Some("enchantment")),
    ("Land", Some("land")),
    ("Instant", Some("instant")),
    ("Sorcery", Some("sorcery")),
    // Basic land types (`Island,Swamp`: Polluted Delta's search).
    ("Plains", Some("plains")),
    ("Island", Some("island")),
    ("Swamp", Some("swamp")),
    ("Mountain", Some("mountain")),
    ("Forest", Some("forest")),
    // Artifact and enchantment subtypes (Stoneforge Mystic's search).
    ("Equipment", Some("equipment")),
    ("Aura", Some("aura")),
];

/// Colour words Forge writes in properties (`Creature.White`), as the loader's colour tags.
const COLOURS: &[&str] = &["White", "Blue", "Black", "Red", "Green"];

/// `expr` as one condition (an `any` over its `,`-separated alternatives); `Err` names
/// the part that is not understood (for the card's `missing` list, prefixed by `what`).
pub fn condition(expr: &str, what: &str) -> Result<Value, String> {
    let mut alternatives = Vec::new();
    for alt in expr.split(',').map(str::trim) {
        alternatives.push(Value::Array(one(alt).map_err(|p| format!("{what} {p}"))?));
    }
    Ok(match alternatives.len() {
        1 => alternatives.remove(0),
        _ => json!({ "any": alternatives }),
    })
}

/// One alternative: the base type's tag, then each `+`-joined property.
fn one(alt: &str) -> Result<Vec<Value>, String> {
    let (base, props) = alt.split_once('.').unwrap_or((alt, ""));
    let Some((_, tag)) = BASES.iter().find(|(b, _)| *b == base) else {
        return Err(alt.to_owned());
    };
    let mut all = Vec::new();
    if let Some(t) = tag {
        all.push(json!({ "type": "has_tag", "tag": t }));
    }
    for p in props.split('+').filter(|p| !p.is_empty()) {
        all.push(property(p).ok_or_else(|| format!("{base}.{p}"))?);
    }
    Ok(all)
}

/// One property: whose it is, which it is, its colour or type (or their negation).
fn property(p: &str) -> Option<Value> {
    Some(match p {
        "YouCtrl" => json!({ "type": "owned_by", "owner": "friendly" }),
        "OppCtrl" => json!({ "type": "owned_by", "owner": "enemy" }),
        "Self" => json!({ "type": "is_self" }),
        "Other" => json!({ "not": { "type": "is_self" } }),
        "tapped" => json!({ "type": "has_tag", "tag": "tapped" }),
        // Mana value up to the X chosen (`cmcLEChosenX`: Ugin's -X; `self` the ability).
        "cmcLEChosenX" | "cmcLEX" => {
            json!({ "type": "compare", "left": "target.mana_value", "op": "<=", "right": "self.x_paid" })
        }
        // One or more colours / none (105.2c).
        "nonColorless" | "Colorless" => {
            let any: Vec<Value> = COLOURS
                .iter()
                .map(|c| json!({ "type": "has_tag", "tag": c.to_ascii_lowercase() }))
                .collect();
            if p == "Colorless" {
                json!({ "not": { "any": any } })
            } else {
                json!({ "any": any })
            }
        }
        // Mana value (`cmcLE3`: 3 or less), power, toughness (`powerLE2`).
        p if ["cmc", "power", "toughness"]
            .iter()
            .any(|k| p.starts_with(k)) =>
        {
            let (key, rest) = [
                ("cmc", "mana_value"),
                ("power", "power"),
                ("toughness", "max_health"),
            ]
            .iter()
            .find_map(|(f, k)| p.strip_prefix(f).map(|r| (*k, r)))?;
            let (op, n) = comparison(rest)?;
            json!({ "type": "compare", "left": format!("target.{key}"), "op": op, "right": n })
        }
        "untapped" => json!({ "not": { "type": "has_tag", "tag": "tapped" } }),
        // A keyword the permanent has or lacks (`withoutFlying`: Earthquake).
        p if p.starts_with("without") || p.starts_with("with") => {
            let (neg, kw) = match p.strip_prefix("without") {
                Some(k) => (true, k),
                None => (false, &p["with".len()..]),
            };
            let (_, tag) = crate::card::KEYWORDS
                .iter()
                .find(|(name, _)| name.replace(' ', "") == kw)?;
            let has = json!({ "type": "has_tag", "tag": tag });
            if neg {
                json!({ "not": has })
            } else {
                has
            }
        }
        _ => match p.strip_prefix("non") {
            Some(t) => json!({ "not": type_or_colour(t)? }),
            None => type_or_colour(p)?,
        },
    })
}

/// `White` → the `white` tag; `Merfolk`, `Artifact` → the type's tag. Properties that
/// are not a single capitalised word (`cmcLE3`, `powerGTX`, `EnchantedBy`) are refused.
fn type_or_colour(t: &str) -> Option<Value> {
    let word = t.chars().next()?.is_ascii_uppercase()
        && t.chars().all(|c| c.is_ascii_alphabetic())
        && !["EnchantedBy", "EquippedBy", "AttachedBy"].contains(&t);
    if !word {
        return None;
    }
    let tag = if COLOURS.contains(&t) {
        t.to_ascii_lowercase()
    } else {
        slug(t)
    };
    Some(json!({ "type": "has_tag", "tag": tag }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_properties_and_lists() {
        let c = condition("Creature.Merfolk+Other", "Affected$").unwrap();
        assert_eq!(
            c,
            json!([{ "type": "has_tag", "tag": "creature" }, { "type": "has_tag", "tag": "merfolk" }, { "not": { "type": "is_self" } }])
        );
        let c = condition("Creature.nonBlack,Player", "ValidTgts$").unwrap_err();
        assert_eq!(c, "ValidTgts$ Player");
        let c = condition("Creature.YouCtrl,Land.nonBasic", "x").unwrap();
        assert!(c["any"].as_array().is_some_and(|a| a.len() == 2), "{c}");
        assert_eq!(
            condition("Creature.powerGTX", "Affected$").unwrap_err(),
            "Affected$ Creature.powerGTX"
        );
    }
}
