//! Effects of a spell in which another player than its caster decides, through the mtg
//! rules' player triggers: a counter unless its controller pays (`UnlessCost$ N`: Mana
//! Leak, the rules' `unless.toml`) and the target's controller's search for a basic land
//! (`DefinedPlayer$ TargetedController`: Path to Exile, `searches.toml`).

use forge_script::Ability;
use serde_json::{json, Value};

/// What countering the target does: it goes to `zone`, or (`UnlessCost$ N`, a generic
/// mana cost: Mana Leak) it is marked for the mtg mod's unless-cost rule, whose owner
/// pays {N} or sees it go to the graveyard.
pub fn counter(a: &Ability, zone: &str, missing: &mut Vec<String>) -> Vec<Value> {
    let Some(cost) = a.params.get("UnlessCost") else {
        return vec![json!({ "type": "move", "zone": zone })];
    };
    let Ok(n) = cost.trim().parse::<u32>() else {
        missing.push(format!("A:SP$ Counter with UnlessCost$ {cost}"));
        return Vec::new();
    };
    if zone != "graveyard" {
        missing.push("A:SP$ Counter with UnlessCost$ and Destination$".into());
    }
    vec![
        json!({ "type": "set", "key": "unless_generic", "value": n }),
        json!({ "type": "tag", "tag": "unless_pending" }),
        json!({ "type": "emit", "event": "unless_cost" }),
    ]
}

/// `DB$ ChangeZone | DefinedPlayer$ TargetedController | Origin$ Library | Destination$
/// Battlefield | Tapped$ True | ChangeType$ Land.Basic | ChangeNum$ 1` (optional or not):
/// the target's controller may search their library for a basic land card and put it
/// onto the battlefield tapped (Path to Exile; the mtg rules' `searches.toml`).
pub fn target_controller_searches(ab: &Ability, missing: &mut Vec<String>) -> Vec<Value> {
    let p = |k: &str| ab.params.get(k);
    let fits = p("Origin") == Some("Library")
        && p("Destination") == Some("Battlefield")
        && p("Tapped") == Some("True")
        && p("ChangeType") == Some("Land.Basic")
        && matches!(p("ChangeNum"), None | Some("1"))
        && ab.params.0.iter().all(|(k, _)| {
            [
                "DB",
                "DefinedPlayer",
                "Origin",
                "Destination",
                "Tapped",
                "ChangeType",
                "ChangeNum",
                "Optional",
                "StackDescription",
                "SpellDescription",
            ]
            .contains(&k.as_str())
        });
    if !fits {
        missing.push("SubAbility DB$ ChangeZone by TargetedController".into());
        return Vec::new();
    }
    vec![
        json!({ "type": "emit", "event": "may_search_basic_land", "to": { "type": "owner", "of": "self.chosen" } }),
    ]
}
