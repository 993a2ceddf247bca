//! Ways to pay for a spell besides its mana cost, as the mtg rules' `costs.toml` reads
//! them: `K:Kicker <mana>` (tag `kicker`, `kicker_cost_*`), `K:Flashback <mana>` (tag
//! `flashback`, `flashback_cost_*`, and a replacement exiling the card as it leaves the
//! stack once `flashed_back`), an alternative cost — `SVar:AltCost:Cost$ ...`,
//! `S:Mode$ AlternativeCost | ValidSA$ Spell.Self | Cost$ ...`, `K:Evoke:<mana>` — (tag
//! `alt_cost`, `alt_cost_*`, `alt_life`, `alt_available`; the objects it needs are
//! counted by a card aura in the hand and chosen by a card trigger on `pays_alt_cost`).
//! A card with any of them is tagged `cost_choice`: its caster chooses how to pay.

use forge_script::{Ability, Face};
use serde_json::{json, Map, Value};

/// What a card's other ways to pay add to its class.
#[derive(Default)]
pub struct Costs {
    /// `kicker`, `flashback`, `alt_cost`, `cost_choice`.
    pub tags: Vec<String>,
    /// The costs' parts (`kicker_cost_g`, `alt_life`, ...).
    pub props: Vec<(String, Value)>,
    /// The card's trigger paying an alternative cost's objects.
    pub triggers: Vec<Value>,
    /// Flashback's exile replacement.
    pub replacements: Vec<Value>,
    /// The aura counting an alternative cost's objects in the hand.
    pub auras: Vec<Value>,
    /// Selector refs of those objects (`<class>_alt_<n>`).
    pub refs: Map<String, Value>,
}

/// A mana cost: generic and coloured (`w u b r g c`) symbols.
#[derive(Default)]
struct Mana {
    generic: i64,
    coloured: Vec<(char, i64)>,
}

impl Mana {
    /// The cost's properties, named `<prefix>_cost_*` and `<prefix>_mana_value`.
    fn props(&self, prefix: &str) -> Vec<(String, Value)> {
        let mut out = vec![(format!("{prefix}_cost_generic"), json!(self.generic))];
        let mut total = self.generic;
        for k in "wubrgc".chars() {
            let n = self
                .coloured
                .iter()
                .filter(|(c, _)| *c == k)
                .map(|(_, n)| n)
                .sum::<i64>();
            out.push((format!("{prefix}_cost_{k}"), json!(n)));
            total += n;
        }
        out.push((format!("{prefix}_mana_value"), json!(total)));
        out
    }

    /// Adds one cost part if it is a mana symbol; `false` otherwise.
    fn read(&mut self, part: &str) -> bool {
        if let Ok(n) = part.parse::<i64>() {
            self.generic += n;
            return true;
        }
        if part.len() == 1 && "WUBRGC".contains(part) {
            let k = part.to_ascii_lowercase().chars().next().unwrap_or('c');
            self.coloured.push((k, 1));
            return true;
        }
        false
    }
}

/// A mana cost written `2 G` (a keyword's parameter); `None` for anything else.
fn mana(text: &str) -> Option<Mana> {
    let mut m = Mana::default();
    text.split_whitespace().all(|p| m.read(p)).then_some(m)
}

/// An object cost part of an alternative cost: how many, from where, which, where to.
struct Part {
    count: i64,
    zone: &'static str,
    to: &'static str,
    filter: Value,
    prompt: String,
}

/// `ExileFromHand<N/valid>`, `Discard<N/valid>`, `Return<N/valid>`.
fn part(text: &str) -> Option<Result<Part, String>> {
    let (kind, rest) = text.split_once('<')?;
    let (zone, to, verb) = match kind {
        "ExileFromHand" => ("hand", "exile", "exile from your hand"),
        "Discard" => ("hand", "graveyard", "discard"),
        "Return" => ("battlefield", "hand", "return to its owner's hand"),
        _ => return None,
    };
    let (n, valid) = rest.strip_suffix('>')?.split_once('/')?;
    let Ok(count) = n.parse::<i64>() else {
        return Some(Err(format!("alternative cost {text}")));
    };
    Some(
        crate::valid::condition(valid, "alternative cost").map(|filter| Part {
            count,
            zone,
            to,
            filter,
            prompt: format!("{verb}: {valid} ({count})"),
        }),
    )
}

/// The keywords and lines of `face` that add ways to pay; `Err` lists what is not
/// understood.
pub fn translate(face: &Face, class: &str) -> Result<Costs, Vec<String>> {
    let mut c = Costs::default();
    let mut missing = Vec::new();
    let mut alternatives = Vec::new();
    for k in &face.keywords {
        let (name, arg) = match k.name.split_once(' ') {
            Some((n, a)) if k.params.is_empty() => (n, a.to_owned()),
            _ => (k.name.as_str(), k.params.join(":")),
        };
        match (name, mana(&arg)) {
            ("Kicker", Some(m)) => {
                c.tags.push("kicker".into());
                c.props.extend(m.props("kicker"));
            }
            ("Flashback", Some(m)) => {
                c.tags.push("flashback".into());
                c.props.extend(m.props("flashback"));
                c.replacements.push(flashback_exile());
            }
            ("Evoke", Some(_)) => alternatives.push(arg.clone()),
            ("Kicker" | "Flashback" | "Evoke", None) => missing.push(format!("K:{}", k.name)),
            _ => {}
        }
    }
    if let Some(s) = face.svar("AltCost") {
        match s.ability.as_ref().and_then(|a| a.params.get("Cost")) {
            Some(cost) => alternatives.push(cost.to_owned()),
            None => missing.push("SVar:AltCost (an alternative cost)".into()),
        }
    }
    for s in face.statics.iter().filter(|s| is_alternative_cost(s)) {
        let known = ["Mode", "ValidSA", "EffectZone", "Cost", "Description"];
        if s.params.get("ValidSA") != Some("Spell.Self")
            || s.params.keys_outside(&known).next().is_some()
        {
            missing.push("S:Mode$ AlternativeCost".into());
        }
        alternatives.push(s.params.get("Cost").unwrap_or("").to_owned());
    }
    match alternatives.as_slice() {
        [] => {}
        [one] => {
            if let Err(m) = alternative(class, one, &mut c) {
                missing.push(m);
            }
        }
        _ => missing.push("more than one alternative cost".into()),
    }
    if !missing.is_empty() {
        return Err(missing);
    }
    if !c.tags.is_empty() {
        c.tags.push("cost_choice".into());
    }
    Ok(c)
}

/// `S:Mode$ AlternativeCost`: read here, not as a continuous static ability.
pub fn is_alternative_cost(s: &Ability) -> bool {
    s.api.as_deref() == Some("AlternativeCost") || s.params.get("Mode") == Some("AlternativeCost")
}

/// One alternative cost (`PayLife<1> ExileFromHand<1/Card.Blue>`, `Return<2/Island>`,
/// `2 U`): its mana, life and objects; `Err` names a part the rules cannot pay.
fn alternative(class: &str, cost: &str, c: &mut Costs) -> Result<(), String> {
    let mut m = Mana::default();
    let mut life = 0;
    let mut parts = Vec::new();
    for p in cost.split_whitespace() {
        if m.read(p) {
            continue;
        }
        if let Some(n) = p
            .strip_prefix("PayLife<")
            .and_then(|r| r.strip_suffix('>'))
            .and_then(|n| n.parse::<i64>().ok())
        {
            life += n;
            continue;
        }
        match part(p) {
            Some(Ok(part)) => parts.push(part),
            Some(Err(e)) => return Err(e),
            None => return Err(format!("alternative cost {p}")),
        }
    }
    c.tags.push("alt_cost".into());
    c.props.extend(m.props("alt"));
    c.props.push(("alt_life".into(), json!(life)));
    c.props
        .push(("alt_available".into(), json!(i64::from(parts.is_empty()))));
    if parts.is_empty() {
        return Ok(());
    }
    // `alt_available` > 0 while each part has enough objects: 1 + the least surplus.
    let mut available = "1".to_owned();
    let mut pay = Vec::new();
    for (i, p) in parts.iter().enumerate() {
        let name = format!("{class}_alt_{}", i + 1);
        let mut selector = json!({ "type": "objects", "zone": p.zone, "owner": "friendly",
            "where": [p.filter.clone(), { "not": { "type": "is_self" } }] });
        c.refs
            .insert(name.clone(), json!({ "selector": selector.clone() }));
        available = format!("min({available}, count({name}) - {} + 1)", p.count);
        selector["pick"] = json!({ "chosen": p.count, "prompt": p.prompt });
        pay.push(json!({ "type": "move", "zone": p.to, "to": selector }));
    }
    c.auras.push(json!({
        "select": { "type": "objects", "zone": "hand", "where": { "type": "is_self" } },
        "modifiers": [{ "key": "alt_available", "op": "set", "value": available }],
        "zones": ["hand"],
    }));
    c.triggers.push(json!({
        "when": { "event": "pays_alt_cost", "target": { "type": "is_self" } },
        "zones": ["stack"],
        "do": pay,
    }));
    Ok(())
}

/// Flashback (702.34a): cast that way (`flashed_back`), the card is exiled instead of
/// going anywhere else as it leaves the stack.
fn flashback_exile() -> Value {
    json!({
        "would": { "event": "core:event/moved", "target": [
            { "type": "is_self" },
            { "type": "has_tag", "tag": "flashed_back" },
            { "not": { "type": "event_field", "field": "to", "is": "exile" } },
        ] },
        "zones": ["stack"],
        "to": "exile",
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn costs(text: &str) -> Result<Costs, Vec<String>> {
        let script = forge_script::parse(text);
        translate(&script.faces[0], "c")
    }

    #[test]
    fn kicker_flashback_and_an_alternative_cost() {
        let k = costs("Name:K\nManaCost:R\nTypes:Instant\nK:Kicker 2 G\n").unwrap();
        assert!(
            k.tags.contains(&"kicker".to_owned()) && k.tags.contains(&"cost_choice".to_owned())
        );
        assert!(k.props.contains(&("kicker_cost_g".to_owned(), json!(1))));
        assert!(k
            .props
            .contains(&("kicker_mana_value".to_owned(), json!(3))));
        let f = costs("Name:F\nManaCost:R\nTypes:Sorcery\nK:Flashback 1 B\n").unwrap();
        assert_eq!(f.replacements.len(), 1);
        let a = costs("Name:A\nManaCost:3 U U\nTypes:Instant\nSVar:AltCost:Cost$ PayLife<1> ExileFromHand<1/Card.Blue> | Description$ d\n").unwrap();
        assert!(a.props.contains(&("alt_life".to_owned(), json!(1))));
        assert!(a.refs.contains_key("c_alt_1") && a.auras.len() == 1 && a.triggers.len() == 1);
        let odd = costs("Name:O\nManaCost:U\nTypes:Instant\nSVar:AltCost:Cost$ Sac<1/Creature>\n");
        assert_eq!(odd.err().unwrap(), ["alternative cost Sac<1/Creature>"]);
    }
}
