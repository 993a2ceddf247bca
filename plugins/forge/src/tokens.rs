//! Creature tokens (`Token`): a class of their own per card and token
//! (`<card>_token_<name>`), described by `TokenName$ | TokenTypes$ | TokenColors$ |
//! TokenPower$ | TokenToughness$ | TokenKeywords$`, or by the name of one of Forge's token
//! scripts (`TokenScript$ w_1_1_cat_soldier_vigilance`: colours, power, toughness,
//! creature types, then keywords). `TokenTapped$` / `TokenAttacking$` tokens are created
//! tapped and attacking (506.3a: they were never declared as attackers).

use forge_script::{Ability, Face};
use serde_json::{json, Map, Value};

use crate::card::{slug, COLOURS, KEYWORDS};
use crate::effect::{amount, number};

/// The parameters [`token`] reads.
pub const PARAMS: &[&str] = &[
    "TokenOwner",
    "TokenName",
    "TokenColors",
    "TokenTypes",
    "TokenPower",
    "TokenToughness",
    "TokenAmount",
    "TokenKeywords",
    "TokenScript",
    "TokenTapped",
    "TokenAttacking",
];

/// What a token is: its name, tags (types, colours, keywords), power and toughness.
struct Described {
    name: String,
    tags: Vec<String>,
    power: i64,
    toughness: i64,
}

/// A creature token's class (named after the card and the token), and how many to make.
pub fn token(face: &Face, class: &str, a: &Ability) -> Result<(String, Value, Value), Vec<String>> {
    let p = |k: &str| a.params.get(k);
    let mut missing = Vec::new();
    if !matches!(p("TokenOwner"), None | Some("You")) {
        missing.push(format!(
            "Token TokenOwner$ {}",
            p("TokenOwner").unwrap_or("")
        ));
    }
    let described = match p("TokenScript") {
        Some(script) => scripted(script),
        None => described(a),
    };
    let Some(amount) = amount(face, p("TokenAmount").or(Some("1"))) else {
        missing.push("Token without a number of power, toughness and amount".into());
        return Err(missing);
    };
    let mut described = match described {
        Ok(d) if missing.is_empty() => d,
        Ok(_) => return Err(missing),
        Err(m) => {
            missing.extend(m);
            return Err(missing);
        }
    };
    described
        .tags
        .extend(["token", "permanent"].map(str::to_owned));
    for (k, tag) in [("TokenTapped", "tapped"), ("TokenAttacking", "attacking")] {
        if p(k) == Some("True") {
            described.tags.push(tag.to_owned());
        }
    }
    // Summoning sick unless it enters attacking (it was never declared as an attacker).
    if !described.tags.iter().any(|t| t == "attacking") {
        described.tags.push("sick".to_owned());
    }
    let mut props = Map::new();
    props.insert(
        "title".into(),
        json!(format!("{} token ({})", described.name, face.name)),
    );
    props.insert("power".into(), json!(described.power));
    props.insert("max_health".into(), json!(described.toughness));
    props.insert("mana_value".into(), json!(0));
    let name = format!("{class}_token_{}", slug(&described.name));
    Ok((
        name,
        json!({ "properties": Value::Object(props), "tags": described.tags }),
        amount,
    ))
}

/// A token from `TokenName$`, `TokenTypes$` (a creature), `TokenColors$`, `TokenPower$`,
/// `TokenToughness$` and `TokenKeywords$`.
fn described(a: &Ability) -> Result<Described, Vec<String>> {
    let p = |k: &str| a.params.get(k);
    let mut missing = Vec::new();
    let types: Vec<&str> = p("TokenTypes")
        .unwrap_or("")
        .split(',')
        .map(str::trim)
        .collect();
    if !types.contains(&"Creature") {
        missing.push(format!("Token TokenTypes$ {}", types.join(",")));
    }
    let (Some(power), Some(toughness)) = (number(p("TokenPower")), number(p("TokenToughness")))
    else {
        missing.push("Token without a number of power, toughness and amount".into());
        return Err(missing);
    };
    let mut tags: Vec<String> = types.iter().map(|t| slug(t)).collect();
    for c in p("TokenColors")
        .unwrap_or("")
        .split(',')
        .filter(|c| !c.is_empty())
    {
        tags.push(c.trim().to_ascii_lowercase());
    }
    match crate::keywords::tags_of(p("TokenKeywords").unwrap_or("")) {
        Ok(kws) => tags.extend(kws.iter().map(|t| (*t).to_owned())),
        Err(k) => missing.push(format!("Token TokenKeywords$ {k}")),
    }
    if !missing.is_empty() {
        return Err(missing);
    }
    let name = p("TokenName").unwrap_or("Token").to_owned();
    Ok(Described {
        name,
        tags,
        power,
        toughness,
    })
}

/// A creature token from the name of Forge's token script: `<colours>_<power>_<toughness>_`
/// then its creature types, then its keywords (`b_1_1_harpy_flying`: a black 1/1 Harpy
/// with flying; `wb_1_1_human_cleric`). Any other script (several, a noncreature token:
/// `c_a_food_sac`) is refused.
fn scripted(script: &str) -> Result<Described, Vec<String>> {
    let refuse = || vec![format!("Token TokenScript$ {script}")];
    let parts: Vec<&str> = script.split('_').collect();
    let [colours, power, toughness, words @ ..] = parts.as_slice() else {
        return Err(refuse());
    };
    let (Ok(power), Ok(toughness)) = (power.parse::<i64>(), toughness.parse::<i64>()) else {
        return Err(refuse());
    };
    let mut tags = vec!["creature".to_owned()];
    for c in colours.chars() {
        match COLOURS.iter().find(|(l, _)| *l == c) {
            Some((_, colour)) => tags.push((*colour).to_owned()),
            None if c == 'c' => {}
            None => return Err(refuse()),
        }
    }
    // Keywords end the name; the words before them are creature types.
    let is_keyword = |w: &str| KEYWORDS.iter().any(|(_, tag)| *tag == w);
    let types_end = words
        .iter()
        .rposition(|w| !is_keyword(w))
        .map_or(0, |i| i + 1);
    // (Two-word keywords, `first_strike`, would read as types: refused.)
    let odd = |w: &&str| {
        w.is_empty()
            || !w.chars().all(|c| c.is_ascii_lowercase())
            || ["first", "double", "strike"].contains(w)
    };
    if types_end == 0 || words.iter().any(odd) {
        return Err(refuse());
    }
    tags.extend(words.iter().map(|w| (*w).to_owned()));
    let name = words[..types_end]
        .iter()
        .map(|w| {
            let mut c = w.chars();
            c.next().map_or(String::new(), |f| {
                f.to_ascii_uppercase().to_string() + c.as_str()
            })
        })
        .collect::<Vec<_>>()
        .join(" ");
    Ok(Described {
        name,
        tags,
        power,
        toughness,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_scripts_name_colours_size_types_and_keywords() {
        let d = scripted("w_1_1_cat_soldier_vigilance").unwrap();
        assert_eq!(
            (d.name.as_str(), d.power, d.toughness),
            ("Cat Soldier", 1, 1)
        );
        assert_eq!(d.tags, ["creature", "white", "cat", "soldier", "vigilance"]);
        let d = scripted("wb_1_1_human_cleric").unwrap();
        assert_eq!(d.tags, ["creature", "white", "black", "human", "cleric"]);
        assert_eq!(d.name, "Human Cleric");
        assert!(scripted("c_a_food_sac").is_err());
        assert!(scripted("w_1_1_human,u_1_1_merfolk").is_err());
    }
}
