//! Planeswalkers' loyalty abilities (606): `A:AB$ <api> | Cost$ AddCounter<N/LOYALTY> |
//! Planeswalker$ True` (+N), `SubCounter<N/LOYALTY>` (-N). Each becomes a slot of the mtg
//! rules' loyalty abilities (`content/planeswalkers.toml`): tag `loyalty_ability_<slot>`
//! and its signed cost in `loyalty_cost_<slot>`; the card's trigger on `loyalty_<slot>`
//! puts the ability object (`<card>_loyalty_<slot>`) on the stack. The effect is read like
//! any activated ability's ([`crate::activated::ability`]). `Ultimate$` only marks the
//! last ability for Forge's AI; the printed `Loyalty:` is the card's `loyalty`.

use forge_script::{Ability, Face};
use serde_json::{json, Value};

/// The most loyalty abilities a planeswalker may have (the rules' slots).
pub const SLOTS: usize = 4;

/// One loyalty ability: the card's trigger, tag, property and the classes it needs.
pub struct Loyalty {
    /// The card's trigger on `loyalty_<slot>`.
    pub card_trigger: Value,
    /// `loyalty_ability_<slot>`.
    pub tag: String,
    /// `loyalty_cost_<slot>`.
    pub prop: (String, Value),
    /// With an X cost (`SubCounter<X/LOYALTY>`, X chosen): `loyalty_x_slot` = the slot.
    pub x_slot: Option<(String, Value)>,
    /// The ability class (first) and any class its effect needs.
    pub classes: Vec<(String, Value)>,
}

/// Whether an `A:` line is a loyalty ability (`Planeswalker$ True`).
pub fn is_loyalty(a: &Ability) -> bool {
    a.params.get("Planeswalker") == Some("True")
}

/// The signed loyalty cost of `AddCounter<N/LOYALTY>` / `SubCounter<N/LOYALTY>`.
fn cost(text: &str) -> Option<i64> {
    let counter = |prefix: &str| {
        text.trim()
            .strip_prefix(prefix)
            .and_then(|r| r.strip_suffix("/LOYALTY>"))
            .and_then(|n| n.parse::<i64>().ok())
            .filter(|n| *n >= 0)
    };
    // Forge writes a 0 loyalty cost as `0` (Xenagos's Satyr) or `AddCounter<0/LOYALTY>`.
    if text.trim() == "0" {
        return Some(0);
    }
    counter("AddCounter<").or_else(|| counter("SubCounter<").map(|n| -n))
}

/// The printed loyalty (`Loyalty:3`: the card's `loyalty` and `printed_loyalty`); `Err`
/// when it is missing or not a number.
pub fn printed(face: &Face) -> Result<i64, String> {
    match face.loyalty.as_deref().map(|l| l.trim().parse::<i64>()) {
        Some(Ok(n)) if n > 0 => Ok(n),
        Some(_) => Err(format!(
            "Loyalty:{} (not a number)",
            face.loyalty.as_deref().unwrap_or("")
        )),
        None => Err("a planeswalker without Loyalty:".into()),
    }
}

/// Translates the loyalty ability in `slot` (1-based) of the card `class`; `Err` lists
/// what it lacks.
pub fn translate(
    face: &Face,
    class: &str,
    slot: usize,
    a: &Ability,
) -> Result<Loyalty, Vec<String>> {
    let api = a.api.as_deref().unwrap_or("?");
    if slot > SLOTS {
        return Err(vec![format!("more than {SLOTS} loyalty abilities")]);
    }
    let cost_text = a.params.get("Cost").unwrap_or("");
    // "-X" (Ugin): its controller chooses X as they activate it (planeswalkers.toml).
    let chosen_x = cost_text.trim() == "SubCounter<X/LOYALTY>"
        && face
            .svar("X")
            .is_some_and(|v| matches!(v.value.as_str(), "XChoice" | "Count$xPaid"));
    let Some(n) = cost(cost_text).or(chosen_x.then_some(0)) else {
        return Err(vec![format!("A:AB$ {api} loyalty cost {cost_text}")]);
    };
    let mut plain = a.clone();
    plain
        .params
        .0
        .retain(|(k, _)| !matches!(k.as_str(), "Cost" | "Planeswalker" | "Ultimate"));
    let name = format!("{class}_loyalty_{slot}");
    let title = format!("{} (loyalty ability)", face.name);
    let (def, mut classes) = crate::activated::ability(face, class, &title, &plain)?;
    classes.insert(0, (name.clone(), def));
    Ok(Loyalty {
        card_trigger: json!({
            "when": { "event": format!("loyalty_{slot}"), "target": { "type": "is_self" } },
            "do": [{ "type": "create", "class": name, "zone": "stack" }],
        }),
        tag: format!("loyalty_ability_{slot}"),
        prop: (format!("loyalty_cost_{slot}"), json!(n)),
        x_slot: chosen_x.then(|| ("loyalty_x_slot".to_owned(), json!(slot))),
        classes,
    })
}

#[cfg(test)]
mod tests {
    use super::cost;

    #[test]
    fn loyalty_costs_are_signed() {
        assert_eq!(cost("AddCounter<2/LOYALTY>"), Some(2));
        assert_eq!(cost("SubCounter<10/LOYALTY>"), Some(-10));
        assert_eq!(cost("AddCounter<0/LOYALTY>"), Some(0));
        assert_eq!(cost("0"), Some(0));
        assert_eq!(cost("SubCounter<X/LOYALTY>"), None);
        assert_eq!(cost("T"), None);
    }
}
