//! A card's characteristics (205, 202, 208): its card types, supertypes and subtypes (as
//! tags), its mana cost (the `cost_*` properties, `mana_value`, colour tags) and its
//! power and toughness — what [`crate::card::translate`] reads before abilities.

use forge_script::{Face, Shard};
use serde_json::{json, Map, Value};

use crate::card::{slug, COLOURS};

/// Basic land types: each has the intrinsic ability "{T}: Add one mana" of its colour (305.6).
const LAND_TYPES: &[(&str, char)] = &[
    ("Plains", 'w'),
    ("Island", 'u'),
    ("Swamp", 'b'),
    ("Mountain", 'r'),
    ("Forest", 'g'),
];

/// The card types of permanents the rules play (each also a tag, with `permanent`).
const PERMANENT_TYPES: [&str; 5] = [
    "Creature",
    "Land",
    "Artifact",
    "Enchantment",
    "Planeswalker",
];

/// Card types, supertypes and subtypes: creatures, lands, artifacts, enchantments and
/// planeswalkers are
/// permanents (cast with `cast_creature` / `cast_permanent`); other card types, and the
/// supertypes whose rules are not implemented yet (the legend rule's `Legendary`), are
/// missing.
pub fn types(face: &Face, tags: &mut Vec<String>, missing: &mut Vec<String>) {
    let is = |t: &str| face.types.iter().any(|x| x == t);
    let permanent = PERMANENT_TYPES.iter().any(|t| is(t));
    for t in ["Instant", "Sorcery"] {
        if is(t) {
            tags.push(t.to_ascii_lowercase());
            tags.push("spell".into());
        }
    }
    let spell = is("Instant") || is("Sorcery");
    // Tribal (Kindred) only gives a non-creature card creature types: they are tags.
    if is("Battle") {
        missing.push("card type Battle".into());
    }
    if !permanent && !spell && !missing.iter().any(|m| m.starts_with("card type")) {
        missing.push("no card type the rules play".into());
    }
    for t in ["Snow", "World"] {
        if is(t) {
            missing.push(format!("supertype {t}"));
        }
    }
    for t in PERMANENT_TYPES {
        if is(t) {
            tags.push(t.to_ascii_lowercase());
            tags.push("permanent".into());
        }
    }
    for (land, c) in LAND_TYPES {
        if is(land) {
            tags.push(format!("makes_{c}"));
        }
    }
    for t in &face.types {
        if !["Creature", "Land", "Artifact", "Enchantment"].contains(&t.as_str()) {
            tags.push(slug(t));
        }
    }
}

/// The mana cost: generic, coloured and colourless symbols; colour tags from the cost
/// (or the `Colors:` indicator). X, hybrid, Phyrexian and snow symbols are not
/// implemented yet; a non-land without a cost cannot be cast.
pub fn cost(
    face: &Face,
    props: &mut Map<String, Value>,
    tags: &mut Vec<String>,
    missing: &mut Vec<String>,
) {
    let mut generic = 0u32;
    let mut coloured: Vec<(char, u32)> = "wubrgc".chars().map(|c| (c, 0)).collect();
    // Hybrid symbols (107.4e) of one colour pair: `cost_h_<pair>` and `cost_hybrid`.
    let mut hybrid: Option<(String, u32)> = None;
    let is_land = face.types.iter().any(|t| t == "Land");
    match &face.mana_cost {
        Some(mc) if mc.castable => {
            for s in &mc.shards {
                match s {
                    Shard::Generic(n) => generic += n,
                    Shard::Colored(c) if "WUBRGC".contains(*c) => {
                        let c = c.to_ascii_lowercase();
                        if let Some(e) = coloured.iter_mut().find(|(k, _)| *k == c) {
                            e.1 += 1;
                        }
                    }
                    Shard::Hybrid(a, b) => match hybrid_pair(*a, *b) {
                        Some(pair) if hybrid.as_ref().is_none_or(|(p, _)| *p == pair) => {
                            hybrid.get_or_insert((pair, 0)).1 += 1;
                        }
                        _ => missing.push(format!("mana symbol {}", symbol(s))),
                    },
                    // One X (107.3): the caster chooses it as they cast the spell.
                    Shard::Variable('X') if !tags.iter().any(|t| t == "x_cost") => {
                        tags.push("x_cost".into());
                    }
                    other => missing.push(format!("mana symbol {}", symbol(other))),
                }
            }
        }
        _ if is_land => {}
        _ => missing.push("no mana cost (cannot be cast)".into()),
    }
    props.insert("cost_generic".into(), json!(generic));
    let mut total = generic;
    for (c, n) in &coloured {
        props.insert(format!("cost_{c}"), json!(n));
        total += n;
    }
    if let Some((pair, n)) = &hybrid {
        props.insert(format!("cost_h_{pair}"), json!(n));
        props.insert("cost_hybrid".into(), json!(n));
        total += n;
    }
    props.insert("mana_value".into(), json!(total));
    let indicated: Vec<char> = face
        .colors
        .iter()
        .filter_map(|c| {
            COLOURS
                .iter()
                .find(|(_, name)| c.eq_ignore_ascii_case(name))
        })
        .map(|(k, _)| *k)
        .collect();
    for (k, name) in COLOURS {
        let in_cost = coloured.iter().any(|(c, n)| c == k && *n > 0)
            || hybrid.as_ref().is_some_and(|(p, _)| p.contains(*k));
        if in_cost || indicated.contains(k) {
            tags.push((*name).into());
        }
    }
}

/// A hybrid symbol's two colours in WUBRG order (`G/W` → `wg`), as the mtg rules name
/// the pair's `cost_h_*` property.
fn hybrid_pair(a: char, b: char) -> Option<String> {
    let order = "WUBRG";
    let (i, j) = (order.find(a)?, order.find(b)?);
    let (x, y) = if i < j {
        (a, b)
    } else if i > j {
        (b, a)
    } else {
        return None;
    };
    Some(format!("{x}{y}").to_ascii_lowercase())
}

/// How a mana symbol is written, for the list of what a card lacks.
fn symbol(s: &Shard) -> String {
    match s {
        Shard::Generic(n) => format!("{{{n}}}"),
        Shard::Colored(c) | Shard::Variable(c) => format!("{{{c}}}"),
        Shard::TwoOr(c) => format!("{{2/{c}}}"),
        Shard::Phyrexian(c) => format!("{{{c}/P}}"),
        Shard::Hybrid(a, b) => format!("{{{a}/{b}}}"),
    }
}

/// `PT:4/4` → power and toughness (`max_health`); characteristic-defining `*` is not
/// implemented yet.
pub fn power_toughness(face: &Face, props: &mut Map<String, Value>, missing: &mut Vec<String>) {
    let Some((p, t)) = &face.pt else {
        if face.types.iter().any(|t| t == "Creature") {
            missing.push("a creature without PT".into());
        }
        return;
    };
    match (p.parse::<i64>(), t.parse::<i64>()) {
        (Ok(p), Ok(t)) => {
            props.insert("power".into(), json!(p));
            props.insert("max_health".into(), json!(t));
        }
        _ => missing.push(format!("PT {p}/{t}")),
    }
}
