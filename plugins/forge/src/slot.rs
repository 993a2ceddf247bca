//! A card's second to fourth activated ability (other than mana abilities) in the mtg
//! rules' slots 2 to 4 (`mods/mtg/content/abilities.toml`): the first ability's
//! translation ([`crate::activated`]) with slot N's names — `ability_N` for
//! `tap_ability` / `paid_ability`, `ability_N_taps`, `ability_N_cost_*`,
//! `ability_N_sacrifices_<kind>`, `ability_N_once`, `ability_N_sorcery`, the counters it
//! removes in `ability_N_counter_cost` / `ability_N_counters`, the event `activated_N`
//! and the ability class `<card>_ab_N` (Walking Ballista's second ability). Costs the
//! slots do not have (X, discarding, exiling from the graveyard, returning or tapping
//! another permanent, a hand size) are missing there.

use forge_script::{Ability, Face};
use serde_json::{json, Value};

use crate::activated::Activated;

/// Translates the card's next activated ability `a` (`taken` it has already): the first
/// in the rules' own names, the second to fourth in their slots; `Err` lists what it
/// lacks (a fifth, a cost the slots lack, two abilities making the same class).
pub fn translate(
    face: &Face,
    class: &str,
    a: &Ability,
    taken: usize,
    classes: &[(String, Value)],
) -> Result<Activated, Vec<String>> {
    if taken >= MAX {
        return Err(vec![
            "more than four activated abilities other than mana".into()
        ]);
    }
    let ab = crate::activated::translate(face, class, a)?;
    let ab = match taken {
        0 => ab,
        n => into_slot(ab, class, n + 1)?,
    };
    if clashes(&ab, classes) {
        return Err(vec!["two activated abilities making the same class".into()]);
    }
    Ok(ab)
}

/// The most activated abilities a card may have besides mana abilities.
pub const MAX: usize = 4;

/// `ab` (translated as a card's first ability) moved to slot `n` (2 to [`MAX`]) of the
/// card `class`; `Err` names what slot N cannot carry.
pub fn into_slot(mut ab: Activated, class: &str, n: usize) -> Result<Activated, Vec<String>> {
    let mut tags = Vec::new();
    for t in &ab.tags {
        let renamed = match t.as_str() {
            "tap_ability" | "paid_ability" => format!("ability_{n}"),
            "ability_taps" => format!("ability_{n}_taps"),
            "once_each_turn" => format!("ability_{n}_once"),
            "sorcery_speed_ability" => format!("ability_{n}_sorcery"),
            // Slot N always compares its counters with its counter cost.
            "removes_counters" => continue,
            other => match other.strip_prefix("sacrifices_") {
                Some(kind) => format!("ability_{n}_sacrifices_{kind}"),
                None => return Err(vec![format!("a second activated ability with {other}")]),
            },
        };
        tags.push(renamed);
    }
    ab.tags = tags;
    let mut props = Vec::new();
    for (k, v) in std::mem::take(&mut ab.props) {
        let renamed = match (k.strip_prefix("ability_"), k.as_str()) {
            (_, "ability_mana_value" | "ability_life" | "ability_counter_cost") => {
                format!("ability_{n}_{}", &k["ability_".len()..])
            }
            (Some(rest), _) if rest.starts_with("cost_") => format!("ability_{n}_{rest}"),
            _ => return Err(vec![format!("a second activated ability with {k}")]),
        };
        props.push((renamed, v));
    }
    ab.props = props;
    for aura in &mut ab.auras {
        if let Some(mods) = aura["modifiers"].as_array_mut() {
            for m in mods.iter_mut().filter(|m| m["key"] == "ability_counters") {
                m["key"] = json!(format!("ability_{n}_counters"));
            }
        }
    }
    let old = format!("{class}_ab");
    let new = format!("{class}_ab_{n}");
    ab.card_trigger["when"]["event"] = json!(format!("activated_{n}"));
    if let Some(list) = ab.card_trigger["do"].as_array_mut() {
        // The slot's move remembers "once each turn" itself (`ability_N_used`).
        list.retain(|a| a["tag"] != "activated_this_turn");
        for a in list.iter_mut().filter(|a| a["class"] == old.as_str()) {
            a["class"] = json!(new);
        }
    }
    if let Some(first) = ab.classes.first_mut() {
        first.0 = new;
    }
    Ok(ab)
}

/// Whether a class the abilities need is already among `classes` (two abilities making
/// the same token class).
fn clashes(ab: &Activated, classes: &[(String, Value)]) -> bool {
    ab.classes
        .iter()
        .any(|(name, _)| classes.iter().any(|(n, _)| n == name))
}
