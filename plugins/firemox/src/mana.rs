//! Mana abilities of permanents (605.1a: an activated ability without a target that could
//! add mana — `playable="mana-source"`, or any ability whose effects hold `<give-mana>`).
//!
//! - `{T}` (and maybe sacrificing the card): N mana of one colour (`tap-add-G`, `<give-mana
//!   colorless="2"/>`) → the mtg rules' `makes_*` tags, with the card's `mana_amount` and
//!   `sacrifice_for_mana` (the most common amount and sacrifice of these abilities);
//! - every other mana ability — other costs (mana, life, sacrificing the card or another
//!   permanent, no `{T}`), several colours at once, a computed amount, more effects ("deals
//!   1 damage to you", "draw a card") — becomes the mtg rules' `mana_ability`: its cost in
//!   `mana_ability_cost_*` / `mana_ability_taps` / `mana_ability_life` /
//!   `mana_sacrifices_<kind>`, and the card's trigger on `mana_ability` adding the mana at
//!   once. Several such abilities (one colour of a choice: "add one mana of any colour")
//!   must share one cost, or differ only in generic mana (the dearer ones pay the rest as
//!   they go off); the trigger asks which (`choose_mode`, labelled by the mana).

use firemox_xml::{Element, Fragments};
use serde_json::{json, Value};

use crate::card::{Parts, COLOURS};
use crate::effects::Cx;
use crate::play::Cost;

/// One mana ability of the card, kept until the card is complete ([`finish`]).
#[derive(Debug, Clone)]
pub enum Ability {
    /// `{T}` (and maybe sacrificing the card): `amount` mana of one colour (`c` for colourless).
    Plain {
        /// The mtg colour letter.
        colour: char,
        /// How much mana.
        amount: i64,
        /// Whether the cost also sacrifices the card.
        sacrifice: bool,
    },
    /// Any other mana ability: its cost and what it does.
    Other {
        /// The cost.
        cost: CostKey,
        /// The mtg actions adding the mana (and the rest of its effects).
        actions: Vec<Value>,
        /// How the player is offered it among the card's others (`add {W}{U}`).
        label: String,
    },
}

/// The cost of a mana ability other than a plain one.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CostKey {
    /// `{T}`.
    pub taps: bool,
    /// `mana_ability_cost_*` and `mana_ability_mana_value` (empty: no mana).
    pub mana: Vec<(String, i64)>,
    /// Sacrificing the card itself.
    pub sacrifice: bool,
    /// Sacrificing another permanent of a kind (`creature`, `land`, ...).
    pub sacrifices: Option<&'static str>,
    /// Life paid.
    pub life: i64,
}

/// Whether an activated ability of a permanent is a mana ability: Firemox says so
/// (`mana-source`), or it has no target and its effects add mana (605.1a).
pub fn is_mana_ability(a: &Element, effects: &Element, cost: &Cost) -> bool {
    a.attr("playable") == Some("mana-source")
        || (cost.targets.is_empty() && effects.children.iter().any(|e| e.name == "give-mana"))
}

/// Reads one mana ability into `out.mana` (or what it lacks into `out.missing`).
pub fn translate(f: &Fragments, class: &str, effects: &Element, cost: Cost, out: &mut Parts) {
    if !cost.targets.is_empty() {
        return out.missing.push("mana ability with a target".into());
    }
    let key = CostKey {
        taps: cost.taps,
        mana: cost.mana.unwrap_or_default(),
        sacrifice: cost.sacrifice,
        sacrifices: cost.sacrifices,
        life: cost.life,
    };
    let plain_cost = key.taps && key.mana.is_empty() && key.sacrifices.is_none() && key.life == 0;
    if let (true, Some((colour, amount))) = (plain_cost, one_colour(effects)) {
        let sacrifice = key.sacrifice;
        return out.mana.push(Ability::Plain {
            colour,
            amount,
            sacrifice,
        });
    }
    match effects_of(f, class, &effects.children, out) {
        Ok((actions, label)) => out.mana.push(Ability::Other {
            cost: key,
            actions,
            label,
        }),
        Err(m) => out
            .missing
            .extend(m.into_iter().map(|m| format!("mana ability {m}"))),
    }
}

/// `<give-mana green="1"/>` alone: the colour and the amount.
fn one_colour(effects: &Element) -> Option<(char, i64)> {
    let [g] = effects.children.as_slice() else {
        return None;
    };
    if g.name != "give-mana" || !g.children.is_empty() {
        return None;
    }
    match g.attrs.as_slice() {
        [(k, v)] => letter(k).zip(v.parse::<i64>().ok().filter(|n| (1..=10).contains(n))),
        _ => None,
    }
}

/// The mtg letter of a Firemox mana word (`colorless` → `c`).
fn letter(word: &str) -> Option<char> {
    COLOURS
        .iter()
        .find(|(n, _)| *n == word)
        .map(|(_, c)| *c)
        .or((word == "colorless").then_some('c'))
}

/// A mana ability's effects as mtg actions acting at once (the card is `self`), and the
/// label of the mana it adds. `<give-mana>` adds to its controller's pool; the other
/// effects go through [`crate::effects::actions`] (a `<target-list operation="clear"/>`
/// before a new `<target>` only ends the previous target).
fn effects_of(
    f: &Fragments,
    class: &str,
    list: &[Element],
    out: &mut Parts,
) -> Result<(Vec<Value>, String), Vec<String>> {
    let cx = Cx::new(class, json!("self"), Some(json!("self")), &[], false);
    let (mut actions, mut labels, mut rest) = (Vec::new(), Vec::new(), Vec::new());
    for (i, e) in list.iter().enumerate() {
        if e.name == "give-mana" {
            let (add, label) = give_mana(f, class, e, out).map_err(|m| vec![m])?;
            actions.extend(add);
            labels.push(label);
        } else if !is_clear_before_target(e, list.get(i + 1)) {
            rest.push(e.clone());
        }
    }
    if !rest.is_empty() {
        let read = crate::effects::actions(f, &rest, &cx);
        cx.counted_into(&mut out.refs);
        actions.extend(read?);
    }
    Ok((actions, format!("add {}", labels.join(""))))
}

/// `<target-list operation="clear"/>` followed by a `<target>`.
fn is_clear_before_target(e: &Element, next: Option<&Element>) -> bool {
    e.name == "target-list"
        && e.attr("operation") == Some("clear")
        && e.children.is_empty()
        && next.is_some_and(|n| n.name == "target")
}

/// `<give-mana>`: fixed amounts as attributes (`white="1" blue="1"`), or computed ones as
/// elements (`<black><counter .../></black>`, `<green register="this" index="power"/>`,
/// `<red register="controller" index="red"/>`: what the pool holds) → `add` to the pool of
/// the card's controller, and the label (`{W}{U}`).
fn give_mana(
    f: &Fragments,
    class: &str,
    e: &Element,
    out: &mut Parts,
) -> Result<(Vec<Value>, String), String> {
    let mut amounts: Vec<(char, String)> = Vec::new();
    for (k, v) in e.attrs.iter().filter(|(k, _)| k != "name") {
        let c = letter(k).ok_or_else(|| format!("<give-mana {k}>"))?;
        let n = f
            .value(v)
            .filter(|n| (0..=20).contains(n))
            .ok_or_else(|| format!("<give-mana {k}=\"{v}\">"))?;
        amounts.push((c, n.to_string()));
    }
    for c in &e.children {
        let l = letter(&c.name).ok_or_else(|| format!("<give-mana> with <{}>", c.name))?;
        amounts.push((l, computed(f, class, c, out)?));
    }
    if amounts.is_empty() {
        return Err("<give-mana> of nothing".into());
    }
    let label = amounts.iter().map(|(c, n)| symbols(*c, n)).collect();
    let actions = amounts
        .into_iter()
        .map(|(c, n)| json!({ "type": "add", "key": format!("pool_{c}"), "amount": n, "to": "owner" }))
        .collect();
    Ok((actions, label))
}

/// `<give-mana red="5"/>` outside a mana ability (a ritual spell, a triggered ability):
/// fixed amounts only, added to the pool of the controller of `self`.
pub fn fixed(f: &Fragments, e: &Element) -> Result<Vec<Value>, String> {
    if !e.children.is_empty() {
        return Err("<give-mana> of a computed amount".into());
    }
    let mut out = Parts::default();
    give_mana(f, "", e, &mut out).map(|(actions, _)| actions)
}

/// `{W}{W}` for two white mana, `{W}xN` for a computed amount.
fn symbols(c: char, n: &str) -> String {
    let s = format!("{{{}}}", c.to_ascii_uppercase());
    match n.parse::<usize>() {
        Ok(k) => s.repeat(k),
        Err(_) => format!("{s}xN"),
    }
}

/// A computed amount of one colour of `<give-mana>`.
fn computed(f: &Fragments, class: &str, c: &Element, out: &mut Parts) -> Result<String, String> {
    let register = (c.attr("register"), c.attr("index"));
    match (register, c.children.as_slice()) {
        ((Some("this"), Some("power")), []) if c.attrs.len() == 2 => Ok("self.power".into()),
        ((Some("controller"), Some(i)), []) if c.attrs.len() == 2 => {
            let l = letter(i).ok_or_else(|| format!("<give-mana> of the register {i}"))?;
            Ok(format!("self.owner.pool_{l}"))
        }
        ((None, None), [one]) if c.attrs.is_empty() => {
            crate::counts::expression(f, class, one, out).map_err(|m| format!("<give-mana> {m}"))
        }
        _ => Err(format!("<give-mana> {}", c.start_tag())),
    }
}

/// Completes the card's mana abilities: the plain ones sharing the most common amount and
/// sacrifice become `makes_*` tags; the rest become the card's `mana_ability` (one cost).
pub fn finish(parts: &mut Parts) {
    let all = std::mem::take(&mut parts.mana);
    let main = most_common_plain(&all);
    let mut others: Vec<(CostKey, Vec<Value>, String)> = Vec::new();
    for a in all {
        match a {
            Ability::Plain {
                colour,
                amount,
                sacrifice,
            } if Some((amount, sacrifice)) == main => parts.tags.push(format!("makes_{colour}")),
            Ability::Plain {
                colour,
                amount,
                sacrifice,
            } => others.push(plain_as_other(colour, amount, sacrifice)),
            Ability::Other {
                cost,
                actions,
                label,
            } => others.push((cost, actions, label)),
        }
    }
    if let Some((amount, sacrifice)) = main {
        if amount > 1 {
            parts.props.push(("mana_amount".into(), json!(amount)));
        }
        if sacrifice {
            parts.tags.push("sacrifice_for_mana".into());
        }
    }
    if !others.is_empty() {
        other_abilities(others, parts);
    }
}

/// The (amount, sacrifice) most plain mana abilities share (the first on a tie).
fn most_common_plain(all: &[Ability]) -> Option<(i64, bool)> {
    let keys: Vec<(i64, bool)> = all
        .iter()
        .filter_map(|a| match a {
            Ability::Plain {
                amount, sacrifice, ..
            } => Some((*amount, *sacrifice)),
            Ability::Other { .. } => None,
        })
        .collect();
    let count = |k: &(i64, bool)| keys.iter().filter(|x| *x == k).count();
    keys.iter()
        .copied()
        .fold(None, |best: Option<(i64, bool)>, k| match best {
            Some(b) if count(&b) >= count(&k) => Some(b),
            _ => Some(k),
        })
}

/// A plain mana ability that differs from the card's others, as an other one.
fn plain_as_other(colour: char, amount: i64, sacrifice: bool) -> (CostKey, Vec<Value>, String) {
    let cost = CostKey {
        taps: true,
        sacrifice,
        ..CostKey::default()
    };
    let add =
        json!({ "type": "add", "key": format!("pool_{colour}"), "amount": amount, "to": "owner" });
    let label = format!("add {}", symbols(colour, &amount.to_string()));
    (cost, vec![add], label)
}

/// The card's `mana_ability`: the shared cost as tags and properties, and its trigger on
/// `mana_ability` (sacrifice another permanent, add the mana — chosen among several —,
/// sacrifice the card).
fn other_abilities(others: Vec<(CostKey, Vec<Value>, String)>, parts: &mut Parts) {
    let Some(cost) = shared_cost(&others) else {
        return parts
            .missing
            .push("mana abilities with different costs (other than {T} alone)".into());
    };
    parts.tags.push("mana_ability".into());
    if cost.taps {
        parts.tags.push("mana_ability_taps".into());
    }
    for (k, v) in &cost.mana {
        let key = k.replacen("ability_", "mana_ability_", 1);
        parts.props.push((key, json!(v)));
    }
    if cost.life > 0 {
        parts
            .props
            .push(("mana_ability_life".into(), json!(cost.life)));
    }
    let mut act = Vec::new();
    if let Some(kind) = cost.sacrifices {
        parts.tags.push(format!("mana_sacrifices_{kind}"));
        act.push(json!({ "type": "move", "zone": "graveyard", "to": { "type": "objects", "zone": "battlefield", "tag": kind, "owner": "friendly", "pick": { "chosen": 1, "prompt": format!("sacrifice a {kind}") } } }));
    }
    act.extend(choose(others, generic_only(&cost).unwrap_or(0)));
    if cost.sacrifice {
        act.push(json!({ "type": "move", "zone": "graveyard", "to": "self" }));
    }
    parts.triggers.push(json!({
        "when": { "event": "mtg:event/mana_ability", "target": { "type": "is_self" } },
        "do": act,
    }));
}

/// The cost the card's `mana_ability` pays: its abilities' shared cost, or — when they
/// differ only in generic mana (Castle Sengir's `{1}{T}` and `{2}{T}`) — the least of it;
/// the dearer ones pay the rest as they go off ([`choose`]). `None` when they differ
/// otherwise.
fn shared_cost(others: &[(CostKey, Vec<Value>, String)]) -> Option<CostKey> {
    let first = &others[0].0;
    if others.iter().all(|(c, _, _)| c == first) {
        return Some(first.clone());
    }
    let least = others
        .iter()
        .map(|(c, _, _)| generic_only(c))
        .collect::<Option<Vec<i64>>>()?
        .into_iter()
        .min()?;
    let rest = |c: &CostKey| CostKey {
        mana: Vec::new(),
        ..c.clone()
    };
    others
        .iter()
        .all(|(c, _, _)| rest(c) == rest(first))
        .then(|| CostKey {
            mana: generic_cost(least),
            ..first.clone()
        })
}

/// The generic mana of a cost without coloured or colourless symbols.
fn generic_only(c: &CostKey) -> Option<i64> {
    let mut generic = 0;
    for (k, v) in &c.mana {
        match k.as_str() {
            "ability_cost_generic" => generic = *v,
            "ability_mana_value" => {}
            _ if *v == 0 => {}
            _ => return None,
        }
    }
    Some(generic)
}

/// `ability_cost_*` of N generic mana (nothing for 0).
fn generic_cost(n: i64) -> Vec<(String, i64)> {
    if n == 0 {
        return Vec::new();
    }
    let mut v: Vec<(String, i64)> = ["generic", "w", "u", "b", "r", "g", "c"]
        .iter()
        .map(|k| {
            (
                format!("ability_cost_{k}"),
                if *k == "generic" { n } else { 0 },
            )
        })
        .collect();
    v.push(("ability_mana_value".into(), n));
    v
}

/// One ability's actions, or a `choose_mode` among several (labels made unique); one
/// costing more generic mana than the card's `mana_ability` (`paid`) pays the rest first,
/// and is offered only while it can (the mtg rules' `can_pay_generic_now`).
fn choose(others: Vec<(CostKey, Vec<Value>, String)>, paid: i64) -> Vec<Value> {
    if others.len() == 1 {
        return others.into_iter().next().map(|o| o.1).unwrap_or_default();
    }
    let mut seen: Vec<String> = Vec::new();
    let modes: Vec<Value> = others
        .into_iter()
        .map(|(cost, actions, label)| {
            let n = seen.iter().filter(|l| **l == label).count();
            seen.push(label.clone());
            let label = if n == 0 { label } else { format!("{label} ({})", n + 1) };
            let extra = generic_only(&cost).map_or(0, |g| g - paid);
            if extra <= 0 {
                return json!({ "label": label, "do": actions });
            }
            let mut all = vec![json!({ "ref": "mtg:ref/pay_generic_now", "n": extra })];
            all.extend(actions);
            json!({ "label": label, "if": { "ref": "mtg:ref/can_pay_generic_now", "n": extra }, "do": all })
        })
        .collect();
    vec![json!({ "type": "choose_mode", "modes": modes, "prompt": "add which mana" })]
}
