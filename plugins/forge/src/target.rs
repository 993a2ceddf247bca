//! Targets over permanents of any type: `ValidTgts$ Artifact,Enchantment` (Disenchant),
//! `Permanent` (Vindicate), `Creature.nonBlack` (Doom Blade), `Artifact,Creature,Land`
//! (Icy Manipulator). The mtg rules test such a target with `legal_permanent_target`
//! (moves.toml), reading properties of the spell or ability that aims: `tgt_permanent`,
//! `tgt_creature`, `tgt_artifact`, `tgt_enchantment`, `tgt_land` (which types it may
//! target, 1 each), `tgt_not_<colour or type>` (what the target must not be) and
//! `tgt_yours` / `tgt_opponents` (whose). A spell tagged `targets_permanent` is cast with
//! `cast_at_permanent`; on resolution `permanent_target` re-checks the same test.

use serde_json::{json, Value};

/// Forge's permanent types and the property naming each.
const TYPES: &[(&str, &str)] = &[
    ("Permanent", "tgt_permanent"),
    ("Creature", "tgt_creature"),
    ("Artifact", "tgt_artifact"),
    ("Enchantment", "tgt_enchantment"),
    ("Land", "tgt_land"),
];

/// What a target may not be (`nonBlack`, `nonArtifact`): the rules know these.
const EXCLUSIONS: &[&str] = &[
    "White",
    "Blue",
    "Black",
    "Red",
    "Green",
    "Artifact",
    "Creature",
    "Land",
    "Basic",
    "Legendary",
];

/// The `tgt_*` properties for a `ValidTgts$` expression over permanents; `Err` names the
/// part the rules cannot test (for the card's `missing` list). Properties (`.nonBlack`)
/// are allowed only on a single alternative, as the rules apply them to every type.
pub fn permanent(valid: &str) -> Result<Vec<(String, Value)>, String> {
    let alternatives: Vec<&str> = valid.split(',').map(str::trim).collect();
    let mut props: Vec<(String, Value)> = Vec::new();
    for alt in &alternatives {
        let (base, filters) = alt.split_once('.').unwrap_or((alt, ""));
        let Some((_, key)) = TYPES.iter().find(|(t, _)| *t == base) else {
            return Err(format!("ValidTgts$ {alt}"));
        };
        props.push(((*key).to_owned(), json!(1)));
        if !filters.is_empty() && alternatives.len() > 1 {
            return Err(format!("ValidTgts$ {valid}"));
        }
        for f in filters.split('+').filter(|f| !f.is_empty()) {
            // `cmcLE3`: mana value 3 or less (`tgt_max_mana_value`, on while
            // `tgt_mana_value_limited`).
            if let Some(n) = f.strip_prefix("cmcLE").and_then(|n| n.parse::<i64>().ok()) {
                props.push(("tgt_mana_value_limited".to_owned(), json!(1)));
                props.push(("tgt_max_mana_value".to_owned(), json!(n)));
                continue;
            }
            let key = match f {
                "YouCtrl" => "tgt_yours".to_owned(),
                "OppCtrl" => "tgt_opponents".to_owned(),
                _ => match f.strip_prefix("non").filter(|t| EXCLUSIONS.contains(t)) {
                    Some(t) => format!("tgt_not_{}", t.to_ascii_lowercase()),
                    None => return Err(format!("ValidTgts$ {base}.{f}")),
                },
            };
            props.push((key, json!(1)));
        }
    }
    Ok(props)
}

/// Whether `valid` is a plain list of `Creature` and `Player` (the rules' older
/// `targets_creature` / `targets_player` moves), not a permanent target.
pub fn is_plain(valid: &str) -> bool {
    valid
        .split(',')
        .all(|t| matches!(t.trim(), "Creature" | "Player"))
}

/// `Destroy`, `Tap` or `Untap` aimed at `to` (a selector of the chosen target).
pub fn act_on(api: &str, to: Value) -> Value {
    match api {
        "Destroy" => json!({ "type": "destroy", "to": to }),
        "Tap" => json!({ "type": "tag", "tag": "tapped", "to": to }),
        _ => json!({ "type": "untag", "tag": "tapped", "to": to }),
    }
}

/// `A:SP$ Attach | Cost$ ... | ValidTgts$ <permanents>` of an Aura: the `tgt_*`
/// properties of what it may enchant ([`permanent`]); `Err` lists what the
/// rules cannot do (another parameter, a target in another zone).
pub fn attach(a: &forge_script::Ability) -> Result<Vec<(String, Value)>, Vec<String>> {
    let mut missing: Vec<String> = a
        .params
        .keys_outside(&[
            "SP",
            "Cost",
            "ValidTgts",
            "TgtPrompt",
            "AILogic",
            "SpellDescription",
        ])
        .map(|k| format!("A:SP$ Attach with {k}$"))
        .collect();
    let props = match a.params.get("ValidTgts").map(permanent) {
        Some(Ok(props)) => props,
        Some(Err(m)) => {
            missing.push(format!("A:SP$ Attach {m}"));
            Vec::new()
        }
        None => {
            missing.push("A:SP$ Attach without ValidTgts$".into());
            Vec::new()
        }
    };
    if missing.is_empty() {
        Ok(props)
    } else {
        Err(missing)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_exclusions_and_controllers() {
        let p = permanent("Artifact,Enchantment").unwrap();
        assert_eq!(
            p,
            [
                ("tgt_artifact".to_owned(), json!(1)),
                ("tgt_enchantment".to_owned(), json!(1))
            ]
        );
        let p = permanent("Creature.nonArtifact+nonBlack").unwrap();
        let keys: Vec<&str> = p.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["tgt_creature", "tgt_not_artifact", "tgt_not_black"]);
        assert_eq!(
            permanent("Creature.nonAngel+YouCtrl").unwrap_err(),
            "ValidTgts$ Creature.nonAngel"
        );
        let p = permanent("Permanent.nonLand+cmcLE3").unwrap();
        assert_eq!(
            p,
            [
                ("tgt_permanent".to_owned(), json!(1)),
                ("tgt_not_land".to_owned(), json!(1)),
                ("tgt_mana_value_limited".to_owned(), json!(1)),
                ("tgt_max_mana_value".to_owned(), json!(3))
            ]
        );
        assert_eq!(
            permanent("Permanent.cmcGE3").unwrap_err(),
            "ValidTgts$ Permanent.cmcGE3"
        );
        assert!(permanent("Player").is_err());
        assert!(is_plain("Creature,Player") && !is_plain("Creature.nonBlack"));
    }
}
