//! The target of a triggered ability: written in its `<cost>` (by reference —
//! `target-creature`, maybe with a test — or as a `<target>` element: a card in a
//! graveyard, any target), or leading its `<effects>` (Aven Cloudchaser's
//! `target-enchantment` then "destroy it"). Firemox chooses a target met among the effects
//! as they run; the mtg rules choose a triggered ability's targets as it is put on the
//! stack (603.3d), and it fizzles if they are gone when it resolves — so a target leading
//! the effects is chosen then. A second target, or one after other effects, is missing.
//!
//! A target the controller may leave out (`<choice cancel="true">` of one `<either>`
//! holding only the `<target>`: Cloudstone Curio's "you may return another target
//! permanent") is chosen likewise, and the effects become "you may" as it resolves
//! ([`Cost::optional`]). Its test may name the triggering card (`<is
//! target="context.card"/>`; sharing a card type with it: the bitwise `and` of both
//! cards' `<card-types>` above 0), read through the ability's `context_card` link.

use firemox_xml::{Element, Fragments};
use serde_json::{json, Value};

use crate::cost_targets::Written;
use crate::effects::{describe, filtered_target, groups, Group};

/// The targeting tags of a target and the filter on its candidates.
pub type Chosen = (Vec<String>, Option<Value>);

/// The target a group chooses, or what it lacks.
fn chosen(f: &Fragments, g: &Group<'_>) -> Result<Chosen, String> {
    let chosen = match g.elems {
        [t] if g.reference.is_none() && t.name == "target" => {
            match crate::cost_targets::read(f, t)? {
                Written::Chosen(tags, filter) => (tags, filter),
                Written::This => return Err(describe(g)),
            }
        }
        _ => filtered_target(f, g)?,
    };
    if chosen.0.iter().any(|t| t == "targets_spell") {
        return Err("a spell target".into());
    }
    Ok(chosen)
}

/// What a trigger's `<cost>` says: its target, and whether its controller may leave the
/// effects out.
#[derive(Default)]
pub struct Cost {
    /// The target, if it has one.
    pub target: Option<Chosen>,
    /// The target was a choice with `cancel="true"`: "you may".
    pub optional: bool,
}

/// The target of a trigger's `<cost>` (its children), or what it lacks.
pub fn from_cost(f: &Fragments, cost: &[Element]) -> Result<Cost, Vec<String>> {
    let mut found = Cost::default();
    let mut missing = Vec::new();
    for g in groups(cost) {
        let read = match g.elems {
            [c] if g.reference.is_none() && c.name == "choice" => {
                optional_target(f, c).map(|t| (t, true))
            }
            _ => chosen(f, &g).map(|t| (t, false)),
        };
        match read {
            Ok((c, optional)) if found.target.is_none() => {
                found = Cost {
                    target: Some(c),
                    optional,
                }
            }
            Ok(_) => missing.push("with two targets".into()),
            Err(_) => missing.push(format!("cost {}", describe(&g))),
        }
    }
    if missing.is_empty() {
        Ok(found)
    } else {
        Err(missing)
    }
}

/// `<choice cancel="true">` of one `<either>` holding one `<target type="card"
/// mode="choose" restriction-zone="play">` with a test: a permanent passing it.
fn optional_target(f: &Fragments, c: &Element) -> Result<Chosen, String> {
    let lacks = || format!("cost {}", c.start_tag());
    let only = |e: &Element, keys: &[&str]| e.attrs.iter().all(|(k, _)| keys.contains(&k.as_str()));
    let [either] = c.children.as_slice() else {
        return Err(lacks());
    };
    let ([t], true) = (either.children.as_slice(), c.attr("cancel") == Some("true")) else {
        return Err(lacks());
    };
    let plain = only(c, &["cancel", "name"])
        && either.attrs.is_empty()
        && t.name == "target"
        && t.attr("type") == Some("card")
        && t.attr("mode") == Some("choose")
        && t.attr("restriction-zone") == Some("play")
        && only(
            t,
            &["type", "mode", "restriction-zone", "raise-event", "name"],
        );
    match (plain, t.children.as_slice()) {
        (true, [test]) if test.name == "test" => Ok((
            vec!["targets_permanent".into(), "tgt_permanent".into()],
            Some(target_test(f, test)?),
        )),
        _ => Err(lacks()),
    }
}

/// A target's test on the candidate (`target`), where the triggering card is the
/// ability's `context_card`: `<is target="context.card"/>`, sharing a card type with it,
/// or any test [`crate::conditions::condition`] knows.
fn target_test(f: &Fragments, t: &Element) -> Result<Value, String> {
    match t.name.as_str() {
        "test" | "and" => Ok(
            json!({ "all": t.children.iter().map(|c| target_test(f, c)).collect::<Result<Vec<_>, _>>()? }),
        ),
        "not" => match t.children.as_slice() {
            [one] => Ok(json!({ "not": target_test(f, one)? })),
            _ => Err("test <not> of several tests".into()),
        },
        "is" if t.attrs.len() == 1 && t.attr("target") == Some("context.card") => {
            Ok(json!({ "type": "same", "a": "target", "b": "self.context_card" }))
        }
        "sup" => shares_type(t).ok_or_else(|| format!("test {}", t.start_tag())),
        _ => crate::conditions::condition(f, t),
    }
}

/// The card types a permanent may have (`<card-types>` bits the rules know as tags).
const TYPES: &[&str] = &[
    "creature",
    "artifact",
    "enchantment",
    "land",
    "planeswalker",
];

/// `<sup right="0"><left><and><left><card-types card="context.card"/></left><right>
/// <card-types card="tested"/></right></and></left></sup>`: the candidate shares a card
/// type with the triggering card.
fn shares_type(t: &Element) -> Option<Value> {
    let types = |e: &Element, card: &str| {
        matches!(e.children.as_slice(), [c] if c.name == "card-types" && c.attrs.len() == 1 && c.attr("card") == Some(card) && c.children.is_empty())
            && e.attrs.is_empty()
    };
    let [left] = t.children.as_slice() else {
        return None;
    };
    let [and] = left.children.as_slice() else {
        return None;
    };
    let [a, b] = and.children.as_slice() else {
        return None;
    };
    let shape = t.attrs.len() == 1
        && t.attr("right") == Some("0")
        && left.name == "left"
        && left.attrs.is_empty()
        && and.name == "and"
        && and.attrs.is_empty()
        && a.name == "left"
        && b.name == "right";
    let pair = (types(a, "context.card") && types(b, "tested"))
        || (types(a, "tested") && types(b, "context.card"));
    (shape && pair).then(|| {
        let any: Vec<Value> = TYPES
            .iter()
            .map(|ty| json!({ "all": [
                { "type": "has_tag", "tag": ty },
                { "type": "compare", "left": { "count": { "type": "object", "object": "self.context_card", "where": { "type": "has_tag", "tag": ty } } }, "op": ">", "right": 0 },
            ] }))
            .collect();
        json!({ "any": any })
    })
}

/// A target leading a trigger's effects, and how many elements it takes; `None` when the
/// effects do not begin with one.
pub fn leading(f: &Fragments, effects: &[Element]) -> Option<(Chosen, usize)> {
    let g = groups(effects).into_iter().next()?;
    let plain_target = g.reference.is_some_and(|r| r.starts_with("target-"))
        || matches!(g.elems, [t] if g.reference.is_none() && t.name == "target" && t.attr("mode") == Some("choose"));
    if !plain_target {
        return None;
    }
    chosen(f, &g).ok().map(|c| (c, g.elems.len()))
}

#[cfg(test)]
mod tests {
    use super::shares_type;

    fn parse(xml: &str) -> firemox_xml::Element {
        firemox_xml::tree::parse(xml).expect("well-formed")
    }

    #[test]
    fn card_types_anded_above_zero_share_a_type() {
        let t = parse(
            r#"<sup right="0"><left><and><left><card-types card="context.card"/></left><right><card-types card="tested"/></right></and></left></sup>"#,
        );
        let c = shares_type(&t).expect("sharing a type");
        assert_eq!(c["any"].as_array().map(Vec::len), Some(5));
        assert_eq!(c["any"][0]["all"][0]["tag"], "creature");
        assert_eq!(
            c["any"][0]["all"][1]["left"]["count"]["object"],
            "self.context_card"
        );
    }

    #[test]
    fn other_comparisons_are_not_sharing() {
        let t = parse(
            r#"<sup right="1"><left><and><left><card-types card="context.card"/></left><right><card-types card="tested"/></right></and></left></sup>"#,
        );
        assert!(shares_type(&t).is_none());
    }
}
