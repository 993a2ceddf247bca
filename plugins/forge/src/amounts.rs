//! Amounts a card's script writes: whole numbers, and SVars counting something the rules
//! can count (cards in hand, devotion, the remembered cards' mana value, the damage that
//! triggered the card, counts of permanents the card defines as refs of its own).

use forge_script::Face;
use serde_json::{json, Map, Value};

use crate::card::slug;

/// An amount: a whole number, or an SVar (`X`) counting something the rules can count —
/// `Count$InYourHand` (cards in your hand, `/Minus.N` or `/Plus.N` after it) or
/// `TriggerCount$DamageAmount` (the damage that triggered the card) — as an expression.
pub fn amount(face: &Face, text: Option<&str>) -> Option<Value> {
    if let Some(n) = number(text) {
        return Some(json!(n));
    }
    let svar = face.svar(text?)?;
    let (base, adjust) = svar
        .value
        .split_once('/')
        .map_or((svar.value.as_str(), ""), |(b, a)| (b, a));
    let counted = crate::statics::COUNTS
        .iter()
        .find(|(c, _)| *c == base)
        .map(|(_, r)| format!("count({r})"));
    let base = match base {
        "Count$InYourHand" => "count(my_hand)".to_owned(),
        // The mana value of the cards remembered (Dark Confidant's revealed card).
        "Remembered$CardManaCost" => "sum(remembered_cards, mana_value)".to_owned(),
        // Kept on the ability by its damage trigger ([`crate::moment`]).
        "TriggerCount$DamageAmount" => "self.damage_amount".to_owned(),
        // X as its caster chose it (costs.toml).
        "Count$xPaid" => "self.x_paid".to_owned(),
        // `Count$Kicked.A.B`: A if the spell was kicked, else B.
        _ if base.starts_with("Count$Kicked.") => {
            let (a, b) = base["Count$Kicked.".len()..].split_once('.')?;
            let (a, b) = (a.parse::<i64>().ok()?, b.parse::<i64>().ok()?);
            format!("{b} + {} * self.kicked", a - b)
        }
        _ if counted.is_some() => counted?,
        // Devotion to a colour (700.5): its mana symbols among the costs of your permanents.
        _ if base.starts_with("Count$Devotion.") => {
            let colour = base.strip_prefix("Count$Devotion.")?.to_ascii_lowercase();
            let (letter, _) = crate::card::COLOURS.iter().find(|(_, c)| *c == colour)?;
            format!("sum(my_permanents, cost_{letter})")
        }
        // Any other `Count$Valid`: a count the card defines ([`crate::counting`]).
        _ if base.starts_with("Count$Valid ") => {
            crate::counting::count(face, base.strip_prefix("Count$Valid ")?)?
        }
        // Permanents of a type you control (Krenko's Goblins): a count the card defines
        // ([`own_count`]).
        _ => match base.strip_prefix("Count$TypeYouCtrl.") {
            Some(t) if !t.is_empty() && t.chars().all(|c| c.is_ascii_alphabetic()) => {
                format!("count({})", own_count(&slug(&face.name), t))
            }
            _ => return None,
        },
    };
    let expr = match adjust.split_once('.') {
        None if adjust.is_empty() => base.to_owned(),
        Some(("Minus", n)) => format!("{base} - {}", n.parse::<i64>().ok()?),
        Some(("Plus", n)) => format!("{base} + {}", n.parse::<i64>().ok()?),
        _ => return None,
    };
    Some(json!(expr))
}

/// The name of the selector ref counting the permanents of type `t` its controller
/// controls, defined by the card `class` itself (`<class>_count_<type>`: the card module
/// adds a ref for each such name its content uses).
pub fn own_count(class: &str, t: &str) -> String {
    format!("{class}_count_{}", slug(t))
}

/// The refs for the counts the content of `class` uses ([`own_count`]): `ref.NAME` with
/// a selector over its controller's permanents with the type's tag.
pub fn own_count_refs(class: &str, content: &str) -> Map<String, Value> {
    let prefix = format!("count({class}_count_");
    let mut refs = Map::new();
    for (i, _) in content.match_indices(&prefix) {
        let rest = &content[i + prefix.len()..];
        let Some(end) = rest.find(')') else { continue };
        let tag = &rest[..end];
        refs.insert(
            format!("{class}_count_{tag}"),
            json!({ "selector": { "type": "objects", "zone": "battlefield", "tag": tag, "owner": "friendly" } }),
        );
    }
    refs
}

/// A whole number written as `3`, `+3` or `-2`.
pub fn number(text: Option<&str>) -> Option<i64> {
    let t = text?.trim();
    t.strip_prefix('+').unwrap_or(t).parse().ok()
}
