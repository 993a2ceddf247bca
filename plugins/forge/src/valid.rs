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
    condition_with_x(expr, what, None)
}

/// [`condition`], where a comparison may be with `X` (`Creature.powerGTX`: Ensnaring
/// Bridge), `x` being X as an expression of the rules (`count(my_hand)`).
pub fn condition_with_x(expr: &str, what: &str, x: Option<&str>) -> Result<Value, String> {
    let mut alternatives = Vec::new();
    for alt in expr.split(',').map(str::trim) {
        alternatives.push(Value::Array(
            one(alt, x).map_err(|p| format!("{what} {p}"))?,
        ));
    }
    Ok(match alternatives.len() {
        1 => alternatives.remove(0),
        _ => json!({ "any": alternatives }),
    })
}

/// One alternative: the base type's tag, then each `+`-joined property.
fn one(alt: &str, x: Option<&str>) -> Result<Vec<Value>, String> {
    let (base, props) = alt.split_once('.').unwrap_or((alt, ""));
    let tag = match BASES.iter().find(|(b, _)| *b == base) {
        Some((_, tag)) => tag.map(str::to_owned),
        // Any other subtype (`Knight.YouCtrl`: History of Benalia) is its type's tag; words
        // that name no object's type (players, spells) are refused.
        None if is_subtype(base) => Some(slug(base)),
        None => return Err(alt.to_owned()),
    };
    let mut all = Vec::new();
    if let Some(t) = tag {
        all.push(json!({ "type": "has_tag", "tag": t }));
    }
    for p in props.split('+').filter(|p| !p.is_empty()) {
        all.push(property(p, x).ok_or_else(|| format!("{base}.{p}"))?);
    }
    Ok(all)
}

/// Whether `word` may be a subtype: one capitalised word that is not a player, a spell or
/// an emblem.
fn is_subtype(word: &str) -> bool {
    word.chars().next().is_some_and(|c| c.is_ascii_uppercase())
        && word.chars().all(|c| c.is_ascii_alphabetic())
        && ![
            "Player",
            "Opponent",
            "You",
            "Spell",
            "Emblem",
            "Any",
            "Triggered",
            "Targeted",
        ]
        .contains(&word)
}

/// One property: whose it is, which it is, its colour or type (or their negation).
fn property(p: &str, x: Option<&str>) -> Option<Value> {
    Some(match p {
        "YouCtrl" => json!({ "type": "owned_by", "owner": "friendly" }),
        // (The rules know one owner per card, which is also its controller.)
        "OppCtrl" | "OppOwn" => json!({ "type": "owned_by", "owner": "enemy" }),
        "Self" => json!({ "type": "is_self" }),
        // Not the card itself: the holder (a static's card), nor the card whose ability
        // is resolving (`self.source_card`: battle cry's "each other attacking creature").
        "Other" => {
            json!({ "not": { "any": [{ "type": "is_self" }, { "type": "same", "a": "target", "b": "self.source_card" }] } })
        }
        "tapped" => json!({ "type": "has_tag", "tag": "tapped" }),
        // `counters_GE2_LEVEL`: how many counters of a type the rules count it has.
        p if p.starts_with("counters_") => {
            let (cmp, kind) = p.strip_prefix("counters_")?.split_once('_')?;
            let (op, n) = comparison(cmp)?;
            let key = crate::counters::property_of(kind)?;
            json!({ "type": "compare", "left": format!("target.{key}"), "op": op, "right": n })
        }
        "attacking" => json!({ "type": "has_tag", "tag": "attacking" }),
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
            let right = match (comparison(rest), x) {
                (Some((op, n)), _) => Some((op, json!(n))),
                // `GTX`: compared with X.
                (None, Some(x)) => comparison(&rest.replace('X', "0"))
                    .filter(|_| rest.ends_with('X'))
                    .map(|(op, _)| (op, json!(x))),
                (None, None) => None,
            };
            let (op, right) = right?;
            json!({ "type": "compare", "left": format!("target.{key}"), "op": op, "right": right })
        }
        "untapped" => json!({ "not": { "type": "has_tag", "tag": "tapped" } }),
        // `namedRelentless Rats`: the card's name.
        p if p.starts_with("named") => {
            json!({ "type": "is", "key": "title", "value": p.strip_prefix("named")? })
        }
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
            json!([{ "type": "has_tag", "tag": "creature" }, { "type": "has_tag", "tag": "merfolk" }, { "not": { "any": [{ "type": "is_self" }, { "type": "same", "a": "target", "b": "self.source_card" }] } }])
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
