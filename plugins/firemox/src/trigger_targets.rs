//! The target of a triggered ability: written in its `<cost>` (by reference —
//! `target-creature`, maybe with a test — or as a `<target>` element: a card in a
//! graveyard, any target), or leading its `<effects>` (Aven Cloudchaser's
//! `target-enchantment` then "destroy it"). Firemox chooses a target met among the effects
//! as they run; the mtg rules choose a triggered ability's targets as it is put on the
//! stack (603.3d), and it fizzles if they are gone when it resolves — so a target leading
//! the effects is chosen then. A second target, or one after other effects, is missing.

use firemox_xml::{Element, Fragments};
use serde_json::Value;

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

/// The target of a trigger's `<cost>` (its children), or what it lacks.
pub fn from_cost(f: &Fragments, cost: &[Element]) -> Result<Option<Chosen>, Vec<String>> {
    let mut found = None;
    let mut missing = Vec::new();
    for g in groups(cost) {
        match chosen(f, &g) {
            Ok(c) if found.is_none() => found = Some(c),
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
