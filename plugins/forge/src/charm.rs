//! Modal spells: `SP$ Charm | Choices$ A,B,C [| CharmNum$ 1]` ("choose one": Boros
//! Charm, Esper Charm). The mode is chosen as the spell is cast (601.2b), and it says what
//! the spell targets — so here the mode is told by how the spell is cast: each mode is
//! translated as a spell of its own ([`crate::spell::translate`]) and its kind of target
//! (a creature, a player, a spell, none, another permanent, a graveyard card) is the
//! mtg rules' cast move that casts it, which records it in the card's `cast_as` (see
//! [`CAST_AS`]). The card gets the tags of every mode, and one resolve trigger per mode
//! that acts only when the card was cast as that mode. Two modes of one kind of target,
//! or "choose two", are not translated.

use forge_script::Ability;
use serde_json::{json, Value};

use crate::spell::Spell;

/// The mtg rules' `cast_as` values: which cast move put the spell on the stack, by the
/// tag that offers the move.
pub const CAST_AS: &[(&str, i64)] = &[
    ("targets_creature", 1),
    ("targets_player", 2),
    ("targets_spell", 3),
    ("untargeted", 4),
    ("targets_permanent", 5),
    ("targets_graveyard_card", 6),
];

/// The parameters of the charm line itself.
const CHARM_KEYS: &[&str] = &[
    "SP",
    "Cost",
    "Choices",
    "CharmNum",
    "SpellDescription",
    "AILogic",
];

/// Translates the `SP$ Charm` line `a` of the card `class`; `Err` lists what it lacks.
pub fn translate(
    face: &forge_script::Face,
    class: &str,
    a: &Ability,
) -> Result<Spell, Vec<String>> {
    let mut missing: Vec<String> = a
        .params
        .0
        .iter()
        .filter(|(k, _)| !CHARM_KEYS.contains(&k.as_str()))
        .map(|(k, _)| format!("A:SP$ Charm with {k}$"))
        .collect();
    // "Choose two" ([`crate::charm_two`]).
    if a.params.get("CharmNum") == Some("2") && missing.is_empty() {
        return crate::charm_two::translate(face, class, a);
    }
    if !matches!(a.params.get("CharmNum"), None | Some("1")) {
        missing.push(format!(
            "A:SP$ Charm with CharmNum$ {}",
            a.params.get("CharmNum").unwrap_or("")
        ));
    }
    let choices = choices(a);
    if choices.is_empty() {
        missing.push("A:SP$ Charm without Choices$".into());
    }
    let mut out = Spell {
        tags: Vec::new(),
        trigger: Value::Null,
        classes: Vec::new(),
        props: Vec::new(),
    };
    let mut triggers = Vec::new();
    for name in choices {
        let Some(mode) = face.svar(name).and_then(|s| s.ability.as_ref()) else {
            missing.push(format!("A:SP$ Charm choice {name} (not an ability)"));
            continue;
        };
        let mut spell = mode.clone();
        // The mode as a spell: `DB$ X` → `SP$ X`, its cost the charm's (paid on cast).
        if let Some(first) = spell.params.0.first_mut() {
            first.0 = "SP".into();
        }
        let spell = spell;
        match crate::spell::translate(face, class, &spell) {
            Ok(s) => {
                let kinds: Vec<i64> = s
                    .tags
                    .iter()
                    .filter_map(|t| CAST_AS.iter().find(|(tag, _)| tag == t).map(|(_, n)| *n))
                    .collect();
                if kinds.is_empty() || s.tags.iter().any(|t| out.tags.contains(t)) {
                    missing.push("A:SP$ Charm with two modes of one kind of target".into());
                    continue;
                }
                if !s.props.is_empty() && !out.props.is_empty() {
                    missing.push("A:SP$ Charm with two modes targeting permanents".into());
                }
                triggers.push(only_when_cast_as(s.trigger, &kinds));
                out.tags.extend(s.tags);
                out.props.extend(s.props);
                out.classes.extend(s.classes);
            }
            Err(m) => missing.extend(m),
        }
    }
    if !missing.is_empty() {
        return Err(missing);
    }
    out.trigger = Value::Array(triggers);
    Ok(out)
}

/// The mode's resolve trigger, heard only when the card was cast as one of `kinds`.
fn only_when_cast_as(mut trigger: Value, kinds: &[i64]) -> Value {
    let cast_as: Vec<Value> = kinds
        .iter()
        .map(|n| json!({ "type": "compare", "left": "target.cast_as", "op": "==", "right": n }))
        .collect();
    let target = trigger["when"]["target"].take();
    trigger["when"]["target"] = json!([target, { "any": cast_as }]);
    trigger
}

/// The SVar names a `Charm`'s `Choices$` lists (its modes, in order).
pub fn choices(a: &Ability) -> Vec<&str> {
    a.params
        .get("Choices")
        .unwrap_or("")
        .split(',')
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .collect()
}
