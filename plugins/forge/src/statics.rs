//! Static abilities: `S:Mode$ Continuous | Affected$ <valid> | AddPower$ N | AddToughness$ N
//! | SetPower$ N | SetToughness$ N | AddKeyword$ K & K | RemoveAllAbilities$ True` becomes a
//! class aura of the card, on while it is on the battlefield, over the battlefield's
//! objects that match `Affected$`. Its modifiers go in the mtg rules' layers (613):
//! keywords in `ability` (6), losing all abilities in `lose_abilities` (6, ordered
//! before the abilities it removes, 613.8), set power/toughness in `set` (7b), +N/+N in
//! `add` (7c); within a layer by timestamp — Humility and Glorious Anthem give 2/2 in
//! either order, and Humility switches a Lord of Atlantis's bonus off. `S:Mode$
//! RaiseCost` raises the generic cost of the spells in hands ([`raise_cost`]).

use forge_script::{Ability, Face};
use serde_json::{json, Value};

use crate::card::KEYWORDS;

/// The parameters a continuous static may have that change nothing in play.
const INERT: &[&str] = &[
    "Mode",
    "Description",
    "Affected",
    "CheckSVar",
    "SVarCompare",
    // The SVars the ability reads (its `X`), for Forge's AI.
    "References",
];

/// Counts the rules can make (`Count$Valid <valid>`, the `X` of `CheckSVar$ X`), and the
/// mtg rules' selector ref counting them.
pub const COUNTS: &[(&str, &str)] = &[
    ("Count$Valid Forest.YouCtrl", "my_forests"),
    ("Count$Valid Island.YouCtrl", "my_islands"),
    ("Count$Valid Swamp.YouCtrl", "my_swamps"),
    ("Count$Valid Mountain.YouCtrl", "my_mountains"),
    ("Count$Valid Plains.YouCtrl", "my_plains"),
    ("Count$Valid Creature.YouCtrl", "my_creatures"),
    ("Count$Valid Land.YouCtrl", "my_lands"),
    ("Count$Valid Artifact.YouCtrl", "my_artifacts"),
];

/// `CheckSVar$ X | SVarCompare$ GE1` → the aura's `while` condition (`count(ref) >= 1`).
fn check_svar(face: &Face, s: &Ability) -> Result<Option<Value>, String> {
    let Some(name) = s.params.get("CheckSVar") else {
        return Ok(None);
    };
    let counted = face
        .svar(name)
        .and_then(|v| COUNTS.iter().find(|(c, _)| *c == v.value))
        .map(|(_, r)| format!("count({r})"))
        // Another count the rules make (`Count$Valid Card.Self+counters_GE2_LEVEL`).
        .or_else(|| {
            crate::effect::amount(face, Some(name)).and_then(|v| v.as_str().map(str::to_owned))
        });
    let compare = s
        .params
        .get("SVarCompare")
        .and_then(|c| crate::valid::comparison(c));
    match (counted, compare) {
        (Some(r), Some((op, n))) => Ok(Some(
            json!({ "type": "compare", "left": r, "op": op, "right": n }),
        )),
        _ => Err("S:Continuous with CheckSVar$".into()),
    }
}

/// Translates one `S:` line of `face` into a class aura; `Err` lists what it lacks.
pub fn translate(face: &Face, s: &Ability) -> Result<Value, Vec<String>> {
    let mode = s.api.as_deref().unwrap_or("?");
    if mode == "RaiseCost" {
        return raise_cost(s).map_err(|m| vec![m]);
    }
    if mode != "Continuous" {
        return Err(vec![format!("S:Mode$ {mode}")]);
    }
    if let Some(aura) = controller_keyword(s) {
        return Ok(aura);
    }
    let mut missing = Vec::new();
    let mut modifiers = Vec::new();
    for (k, v) in &s.params.0 {
        match k.as_str() {
            k if INERT.contains(&k) => {}
            // "CARDNAME has hexproof as long as it's untapped": `Affected$` over the card
            // itself (below).
            "AffectedDefined" if v == "Self" => {}
            "AddPower" | "AddToughness" | "SetPower" | "SetToughness" => {
                let key = if k.ends_with("Power") {
                    "power"
                } else {
                    "max_health"
                };
                let (op, layer) = if k.starts_with("Add") {
                    ("add", "add")
                } else {
                    ("set", "set")
                };
                // A number, or an SVar the rules can count (`X` = `Count$Valid ...`).
                let value = number(v)
                    .map(|n| json!(n))
                    .or_else(|| crate::effect::amount(face, Some(v)));
                match value {
                    Some(n) => {
                        modifiers.push(json!({ "key": key, "op": op, "value": n, "layer": layer }))
                    }
                    None => missing.push(format!("S:Continuous {k}$ {v}")),
                }
            }
            "AddKeyword" => {
                for kw in v.split('&').map(str::trim) {
                    match KEYWORDS.iter().find(|(name, _)| *name == kw) {
                        Some((_, tag)) => {
                            modifiers.push(json!({ "key": tag, "op": "tag", "layer": "ability" }))
                        }
                        None => missing.push(format!("S:Continuous AddKeyword$ {kw}")),
                    }
                }
            }
            // "Can't attack" (Ensnaring Bridge): the rules' `cannot_attack`.
            "AddHiddenKeyword" if v == "CARDNAME can't attack." => {
                modifiers.push(json!({ "key": "cannot_attack", "op": "tag", "layer": "ability" }))
            }
            "RemoveAllAbilities" if v == "True" => modifiers
                .push(json!({ "key": "no_abilities", "op": "tag", "layer": "lose_abilities" })),
            other => missing.push(format!("S:Continuous with {other}$")),
        }
    }
    let enchanted = matches!(
        s.params.get("Affected"),
        Some("Creature.EnchantedBy" | "Card.EnchantedBy" | "Land.EnchantedBy")
    );
    let equipped = matches!(
        s.params.get("Affected"),
        Some("Creature.EquippedBy" | "Card.EquippedBy")
    );
    let affected = match s.params.get("Affected") {
        _ if enchanted || equipped => Value::Null,
        None => {
            missing.push("S:Continuous without Affected$".into());
            Value::Null
        }
        Some(a) => {
            // `X` in `Affected$` (`Creature.powerGTX`) is the card's SVar X.
            let x = crate::effect::amount(face, Some("X"));
            crate::valid::condition_with_x(
                a,
                "S:Continuous Affected$",
                x.as_ref().and_then(Value::as_str),
            )
            .unwrap_or_else(|m| {
                missing.push(m);
                Value::Null
            })
        }
    };
    let affected = match s.params.get("AffectedDefined") {
        Some(_) => json!([{ "type": "is_self" }, affected]),
        None => affected,
    };
    if modifiers.is_empty() {
        missing.push("S:Continuous that changes nothing the rules know".into());
    }
    let condition = check_svar(face, s).unwrap_or_else(|m| {
        missing.push(m);
        None
    });
    if !missing.is_empty() {
        return Err(missing);
    }
    // An Aura's static ability ("enchanted creature gets +2/+1") is over the object it
    // enchants (the mtg rules' `enchanted`).
    let select = if enchanted {
        json!({ "ref": "enchanted" })
    } else if equipped {
        // An Equipment's ("equipped creature gets +2/+0"): the rules' `equipped`.
        json!({ "ref": "equipped" })
    } else {
        json!({ "type": "objects", "zone": "battlefield", "where": affected })
    };
    let mut aura = json!({
        "select": select,
        "modifiers": modifiers,
        "zones": ["battlefield"],
    });
    // "As long as you control a Forest" (Kird Ape): on while the count holds.
    if let Some(c) = condition {
        aura["while"] = c;
    }
    Ok(aura)
}

/// `S:Mode$ RaiseCost | ValidCard$ <valid> | Type$ Spell | Amount$ N` ("noncreature spells
/// cost {1} more to cast": Thalia): a class aura adding N to the generic cost of every
/// matching card in a hand (the cards cast from there; lands are not spells), on while
/// the card is on the battlefield. The mtg rules pay a card's cost parts, so the raised
/// `cost_generic` is what is paid; its mana value is not changed (202.3).
fn raise_cost(s: &Ability) -> Result<Value, String> {
    let fits = s.params.get("Type") == Some("Spell")
        && s.params.0.iter().all(|(k, _)| {
            ["Mode", "ValidCard", "Type", "Amount", "Description"].contains(&k.as_str())
        });
    let amount = s.params.get("Amount").and_then(number);
    let valid = crate::valid::condition(
        s.params.get("ValidCard").unwrap_or("Card"),
        "S:RaiseCost ValidCard$",
    )?;
    match amount {
        Some(n) if fits => Ok(json!({
            "select": { "type": "objects", "zone": "hand", "where": [valid, { "not": { "type": "has_tag", "tag": "land" } }] },
            "modifiers": [{ "key": "cost_generic", "op": "add", "value": n, "layer": "add" }],
            "zones": ["battlefield"],
        })),
        _ => Err("S:Mode$ RaiseCost".into()),
    }
}

/// `S:Mode$ Continuous | Affected$ You | AddKeyword$ K`, a keyword of the card's
/// controller: `AdjustLandPlays:N` ("you may play N additional lands on each of your
/// turns": Exploration) adds N to their `land_limit`; `Skip your draw step.` (Yawgmoth's
/// Bargain) tags them `skips_draw_step`, which the rules' turn reads. An aura over that
/// player.
fn controller_keyword(s: &Ability) -> Option<Value> {
    let keyword = s.params.get("AddKeyword")?;
    let modifier = match keyword.strip_prefix("AdjustLandPlays:").and_then(number) {
        Some(n) => json!({ "key": "land_limit", "op": "add", "value": n, "layer": "add" }),
        None if keyword == "Skip your draw step." => {
            json!({ "key": "skips_draw_step", "op": "tag", "layer": "ability" })
        }
        None => return None,
    };
    let plain = s.params.get("Affected") == Some("You")
        && s.params
            .0
            .iter()
            .all(|(k, _)| ["Mode", "Affected", "AddKeyword", "Description"].contains(&k.as_str()));
    plain.then(|| {
        json!({
            "select": { "type": "players", "which": "friendly" },
            "modifiers": [modifier],
            "zones": ["battlefield"],
        })
    })
}

/// A whole number written as `3`, `+3` or `-2`.
fn number(text: &str) -> Option<i64> {
    let t = text.trim();
    t.strip_prefix('+').unwrap_or(t).parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn static_line(line: &str) -> (Face, Ability) {
        let script =
            forge_script::parse(&format!("Name:X\nManaCost:W\nTypes:Enchantment\n{line}\n"));
        let face = script.faces[0].clone();
        let s = face.statics[0].clone();
        (face, s)
    }

    fn tr(line: &str) -> Result<Value, Vec<String>> {
        let (face, s) = static_line(line);
        translate(&face, &s)
    }

    #[test]
    fn anthem_humility_and_a_lord() {
        let anthem = tr("S:Mode$ Continuous | Affected$ Creature.YouCtrl | AddPower$ 1 | AddToughness$ 1 | Description$ d").unwrap();
        let text = anthem.to_string();
        for part in ["\"layer\":\"add\"", "max_health", "friendly", "battlefield"] {
            assert!(text.contains(part), "{part} in {text}");
        }
        let humility = tr("S:Mode$ Continuous | Affected$ Creature | SetPower$ 1 | SetToughness$ 1 | RemoveAllAbilities$ True | Description$ d").unwrap();
        let text = humility.to_string();
        for part in ["\"layer\":\"set\"", "no_abilities", "lose_abilities"] {
            assert!(text.contains(part), "{part} in {text}");
        }
        let lord = tr("S:Mode$ Continuous | Affected$ Creature.Merfolk+Other | AddPower$ 1 | AddToughness$ 1 | AddKeyword$ Islandwalk | Description$ d").unwrap();
        assert!(lord.to_string().contains("islandwalk"), "{lord}");
        let odd =
            tr("S:Mode$ Continuous | Affected$ Card.Self | AddKeyword$ Flying | CheckSVar$ X")
                .unwrap_err();
        assert_eq!(odd, ["S:Continuous with CheckSVar$"]);
        let ape = tr("S:Mode$ Continuous | Affected$ Card.Self | AddPower$ 1 | CheckSVar$ X | SVarCompare$ GE1\nSVar:X:Count$Valid Forest.YouCtrl").unwrap();
        assert!(
            ape["while"].to_string().contains("count(my_forests)"),
            "{ape}"
        );
        let other = tr("S:Mode$ CantAttack | ValidCard$ Creature").unwrap_err();
        assert_eq!(other, ["S:Mode$ CantAttack"]);
    }
}
