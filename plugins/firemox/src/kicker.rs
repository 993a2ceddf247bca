//! Kicker (702.33) on permanents: `<ability ref="cast-spell-kicker">` plugs a mana cost
//! (`<pay-mana colorless="3" blue="1"/>`) into the reference's cost, beside the card's mana
//! cost and the `kicker` mark, and the kicker's effects after `put-in-play` (Faerie
//! Squadron: "if it was kicked, it enters with two +1/+1 counters and flying"). The card
//! gets the mtg rules' kicker (`costs.toml`: tags `kicker` and `cost_choice`,
//! `kicker_cost_*`; kicked, its `kicked` is 1 while it is on the battlefield): the effects
//! run as it enters kicked (counters and the like, [`crate::effects::actions`] acting on
//! the card), and keywords it gains (`<add-modifier>` of keywords without an end) are a
//! class aura while it was kicked. On instants and sorceries the kicked effects replace
//! the others as the spell resolves kicked ([`spell`]). Kicker costs other than mana, and
//! kicked effects choosing targets of their own, are missing.

use firemox_xml::{Card as Xml, Element, Fragments};
use serde_json::{json, Value};

use crate::card::{plain_list, Parts, KEYWORDS};
use crate::effects::{groups, Cx};

/// Translates a `cast-spell-kicker` ability of the card `class` (a permanent) into `out`.
pub fn translate(card: &Xml, f: &Fragments, class: &str, a: &Element, out: &mut Parts) {
    if card.is("instant") || card.is("sorcery") {
        // Read with the spell's own hand ability ([`spell`]), which it needs.
        let cast = card.abilities.iter().any(|h| {
            h.from_ref.is_none()
                && h.name == "activated-ability"
                && h.attr("zone") == Some("hand")
                && h.attr("playable") == Some("this")
        });
        if !cast {
            out.missing
                .push("kicker of a spell without its hand ability".into());
        }
        return;
    }
    if let Err(m) = read(f, class, a, out) {
        out.missing.push(format!("kicker {m}"));
    }
}

/// The card's kicker ability, if it has one.
pub fn of(card: &Xml) -> Option<&Element> {
    card.abilities
        .iter()
        .find(|a| a.from_ref.as_deref() == Some("cast-spell-kicker"))
}

/// Kicker on an instant or sorcery (`k`, its `cast-spell-kicker`), whose kicked effects
/// replace its others (Explosive Growth: +5/+5 instead of +2/+2): the kicker's cost
/// properties and the kicked effects, read in the spell's context `cx`. The kicked cost
/// must choose the same target as the spell's own (`target`: its tags and filter).
pub fn spell(
    f: &Fragments,
    k: &Element,
    target: Option<&(Vec<String>, Option<Value>)>,
    cx: &Cx,
) -> Result<(Vec<(String, Value)>, Vec<Value>), String> {
    let [cost, effects] = k.children.as_slice() else {
        return Err("with parts other than a cost and effects".into());
    };
    let mut kicked_target = None;
    let mut rest = Vec::new();
    for g in groups(&cost.children) {
        if g.reference.is_some_and(|r| r.starts_with("target-")) && kicked_target.is_none() {
            kicked_target = Some(crate::effects::filtered_target(f, &g)?);
        } else {
            rest.extend_from_slice(g.elems);
        }
    }
    if kicked_target.as_ref() != target {
        return Err("choosing another target than the spell".into());
    }
    let props = kicker_cost(f, &rest)?;
    let list = groups(&effects.children);
    let (first, last) = match (list.first(), list.last()) {
        (Some(p), Some(e)) if list.len() > 2 => (p, e),
        _ => return Err("without effects".into()),
    };
    let framed = first.reference == Some("put-in-play")
        && plain_list(f, "action", "put-in-play", first.elems)
        && last.reference == Some("finish-spell")
        && plain_list(f, "action", "finish-spell", last.elems);
    if !framed {
        return Err("effects not between put-in-play and finish-spell".into());
    }
    let body = &effects.children[first.elems.len()..effects.children.len() - last.elems.len()];
    let actions =
        crate::effects::actions(f, body, cx).map_err(|m| format!("effect {}", m.join(", ")))?;
    Ok((props, actions))
}

fn read(f: &Fragments, class: &str, a: &Element, out: &mut Parts) -> Result<(), String> {
    if !out.tags.iter().any(|t| t == "permanent") {
        return Err("on a card that is not a permanent".into());
    }
    let [cost, effects] = a.children.as_slice() else {
        return Err("with parts other than a cost and effects".into());
    };
    let cost = kicker_cost(f, &cost.children)?;
    let list = groups(&effects.children);
    let rest = match list.first() {
        Some(g)
            if g.reference == Some("put-in-play")
                && plain_list(f, "action", "put-in-play", g.elems) =>
        {
            &effects.children[g.elems.len()..]
        }
        _ => return Err("effects not beginning with put-in-play".into()),
    };
    let (keywords, rest) = keywords(rest)?;
    let cx = Cx::new(class, json!("self"), Some(json!("self")), &[], false);
    let actions = crate::effects::actions(f, &rest, &cx);
    cx.counted_into(&mut out.refs);
    let actions = actions.map_err(|m| format!("effect {}", m.join(", ")))?;
    out.tags.extend(["kicker".into(), "cost_choice".into()]);
    out.props.extend(cost);
    let kicked = json!({ "type": "compare", "left": "self.kicked", "op": "==", "right": 1 });
    if !actions.is_empty() {
        out.triggers.push(json!({
            "when": { "event": "core:event/moved", "target": [{ "type": "is_self" }, { "type": "in_zone", "zone": "battlefield" }], "condition": kicked },
            "do": actions,
        }));
    }
    if !keywords.is_empty() {
        out.auras.push(json!({
            "select": { "type": "objects", "zone": "battlefield", "where": [{ "type": "is_self" }, { "type": "compare", "left": "target.kicked", "op": "==", "right": 1 }] },
            "modifiers": keywords,
            "zones": ["battlefield"],
        }));
    }
    Ok(())
}

/// The kicker's mana (`kicker_cost_*`, `kicker_mana_value`) from the expanded cost: the
/// card's mana cost, the `kicker` mark, and one `<pay-mana>` of fixed amounts.
fn kicker_cost(f: &Fragments, cost: &[Element]) -> Result<Vec<(String, Value)>, String> {
    let mut mana = None;
    let (mut printed, mut marked) = (false, false);
    for g in groups(cost) {
        match (g.reference, g.elems) {
            (None, [p])
                if p.name == "pay-mana" && p.attr("value") == Some("manacost") && !printed =>
            {
                printed = p.children.is_empty() && p.attrs.len() == 1;
            }
            (Some("kicker"), _) if plain_list(f, "action", "kicker", g.elems) => marked = true,
            (None, [p]) if p.name == "pay-mana" && mana.is_none() => {
                mana = crate::play::pay_mana(f, p);
                if mana.is_none() {
                    return Err(format!("cost {}", p.start_tag()));
                }
            }
            _ => return Err(format!("cost {}", crate::effects::describe(&g))),
        }
    }
    match (printed, marked, mana) {
        (true, true, Some(m)) => Ok(m
            .into_iter()
            .map(|(k, n)| (k.replace("ability_", "kicker_"), json!(n)))
            .collect()),
        _ => Err("cost other than the mana cost and more mana".into()),
    }
}

/// Splits off the `<add-modifier>`s giving the card keywords for good (no `<until>`): the
/// aura's modifiers, and the other effects.
fn keywords(list: &[Element]) -> Result<(Vec<Value>, Vec<Element>), String> {
    let (mut modifiers, mut rest) = (Vec::new(), Vec::new());
    for e in list {
        if e.name != "add-modifier" || e.from_ref.is_some() {
            rest.push(e.clone());
            continue;
        }
        for m in &e.children {
            let known = m.children.is_empty()
                && m.name == "property-modifier"
                && matches!(m.attr("operation"), None | Some("add"))
                && m.attrs.iter().all(|(k, _)| {
                    matches!(k.as_str(), "property" | "operation" | "layer" | "linked")
                });
            let keyword = m
                .attr("property")
                .and_then(|p| KEYWORDS.iter().find(|(k, _)| *k == p))
                .filter(|_| known && e.attrs.is_empty());
            match keyword {
                Some((_, tag)) => modifiers.push(json!({ "key": tag, "op": "tag" })),
                None => return Err(format!("effect <add-modifier> {}", m.start_tag())),
            }
        }
    }
    Ok((modifiers, rest))
}
