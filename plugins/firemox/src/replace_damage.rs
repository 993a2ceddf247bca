//! Replacement abilities changing how much damage is dealt (`<assigned-damage>` whose
//! effects re-assign `context.int`, the damage's amount, as another amount): doubled
//! (Furnace of Rath), halved rounded down (Ghosts of the Innocent), plus N (Sulfuric
//! Vapors), minus N (Sphere of Law, Lashknife Barrier: a prevention when `type` says
//! `damage-can-be-prevented`); without effects, prevented (Dawn Elemental); as many
//! +1/+1 counters instead (Phytohydra, Vigor: the mtg rules' `p1p1`, `put_p1p1`). They become class replacements of the mtg rules'
//! `core:event/damaged` with an `amount` (0 or less: the damage is not dealt), tested on
//! the damage's source (`source-test`) and what it is dealt to (`destination-test`).

use firemox_xml::{Element, Fragments};
use serde_json::{json, Value};

use crate::card::Parts;
use crate::conditions::condition;
use crate::replace::shape;

/// Translates a damage replacement into `out.replacements`.
pub fn translate(f: &Fragments, a: &Element, out: &mut Parts) -> Result<(), String> {
    let e = &a.children[0];
    let known = a
        .attrs
        .iter()
        .all(|(k, v)| (k == "zone" && v == "play") || k == "layer" || k == "name");
    if !known || a.children.len() > 2 {
        return Err(format!("{} outside play", a.start_tag()));
    }
    let no = Element::default();
    let instead = instead(a.child("effects").unwrap_or(&no))?;
    let mut source = kind(e.attr("type"))?;
    let mut would = json!({ "event": "core:event/damaged" });
    for t in &e.children {
        match t.name.as_str() {
            "source-test" => source.push(source_test(f, t)?),
            "destination-test" => destination_test(f, t, &mut would)?,
            other => return Err(format!("<assigned-damage> with <{other}>")),
        }
    }
    if !source.is_empty() {
        would["condition"] = json!(source);
    }
    let mut r = json!({ "would": would, "zones": ["battlefield"] });
    match instead {
        Instead::Amount(a) => r["amount"] = json!(a),
        Instead::Prevented => r["cancel"] = json!(true),
        Instead::Counters => {
            r["cancel"] = json!(true);
            r["do"] = json!([{ "type": "add", "key": "p1p1", "amount": "event.amount", "would": "mtg:event/put_p1p1" }]);
        }
    }
    out.replacements.push(r);
    Ok(())
}

/// What happens instead of the damage.
enum Instead {
    /// That much damage is dealt (none: not dealt).
    Amount(String),
    /// It is prevented (no effects: Dawn Elemental).
    Prevented,
    /// It is prevented and as many +1/+1 counters put on what it was dealt to (Phytohydra).
    Counters,
}

/// Reads the effects: none (prevented), +1/+1 counters on what would be dealt damage
/// (`<repeat value="context.int"/>` of `add-object +1/+1`), or another amount.
fn instead(effects: &Element) -> Result<Instead, String> {
    let parts: Vec<String> = effects.children.iter().map(shape).collect();
    let counters = |on: &str| {
        parts
            == [
                format!("target(type={on})"),
                "repeat(value=context.int)".to_owned(),
                "add-object(object-name=+1/+1)".to_owned(),
            ]
    };
    if parts.is_empty() {
        Ok(Instead::Prevented)
    } else if counters("this") || counters("context.card") {
        Ok(Instead::Counters)
    } else {
        amount(effects).map(Instead::Amount)
    }
}

/// The damage `type` as conditions on the source: any damage, damage that can be
/// prevented (not the mtg rules' unpreventable damage), combat damage (`striking`), both.
fn kind(t: Option<&str>) -> Result<Vec<Value>, String> {
    Ok(match t {
        Some("damage-any") => vec![],
        Some("damage-can-be-prevented") => vec![
            json!({ "not": { "ref": "mtg:ref/unpreventable_combat_damage" } }),
            json!({ "not": { "type": "has_tag", "tag": "unpreventable" } }),
        ],
        Some("damage-combat") => vec![json!({ "type": "has_tag", "tag": "striking" })],
        Some("damage-combat-can-be-prevented") => vec![
            json!({ "type": "has_tag", "tag": "striking" }),
            json!({ "not": { "ref": "mtg:ref/unpreventable_combat_damage" } }),
            json!({ "not": { "type": "has_tag", "tag": "unpreventable" } }),
        ],
        other => {
            return Err(format!(
                "<assigned-damage type=\"{}\">",
                other.unwrap_or("?")
            ))
        }
    })
}

/// The new amount from the effects: re-targeting the damaged object or player
/// (`context.target`, `context.card`, `context.player`), maybe `<unregister-this/>` (the
/// replacement applies once to an event, as every replacement of the mtg rules), then
/// one `<assign-damage>` of `context.int` combined with a number.
fn amount(effects: &Element) -> Result<String, String> {
    let parts: Vec<String> = effects
        .children
        .iter()
        .map(shape)
        .filter(|s| s != "unregister-this")
        .collect();
    let lacks = || format!("<assigned-damage> effects {}", parts.join(", "));
    let [retarget, assign] = parts.as_slice() else {
        return Err(lacks());
    };
    let same = [
        "target(type=context.target)",
        "target(type=context.card)",
        "target(type=context.player)",
    ];
    if !same.contains(&retarget.as_str()) {
        return Err(lacks());
    }
    let inner = assign
        .strip_prefix("assign-damage(type=context.int2)[value[")
        .and_then(|s| s.strip_suffix("]]"))
        .ok_or_else(lacks)?;
    formula(inner).ok_or_else(lacks)
}

/// `mult(left=2 right=context.int)` → `event.amount * 2`, and the same for `add`,
/// `minus(left=context.int right=N)`, `div-truncated(left=context.int right=N)`.
fn formula(s: &str) -> Option<String> {
    let (op, args) = s.strip_suffix(')')?.split_once('(')?;
    let mut n = None;
    let mut left_is_amount = false;
    for arg in args.split(' ') {
        let (k, v) = arg.split_once('=')?;
        match (k, v) {
            ("left", "context.int") => left_is_amount = true,
            ("right", "context.int") => {}
            ("left" | "right", v) => {
                n = Some(v.parse::<i64>().ok().filter(|n| (1..=20).contains(n))?)
            }
            _ => return None,
        }
    }
    let n = n?;
    match (op, left_is_amount) {
        ("mult", _) => Some(format!("event.amount * {n}")),
        ("add", _) => Some(format!("event.amount + {n}")),
        ("minus", true) => Some(format!("event.amount - {n}")),
        ("div-truncated", true) => Some(format!("event.amount / {n}")),
        _ => None,
    }
}

/// The source test: conditions on the source; `is-spell` is an instant or sorcery.
fn source_test(f: &Fragments, t: &Element) -> Result<Value, String> {
    match t.children.as_slice() {
        [s] if s.name == "is-spell" && s.attrs.is_empty() && s.children.is_empty() => {
            Ok(json!({ "type": "has_tag", "tag": "spell" }))
        }
        [s] => condition(f, s).map_err(|m| format!("<assigned-damage> source {m}")),
        _ => Err("<assigned-damage> source test of several tests".into()),
    }
}

/// The destination test: a player (`is-player`; `target="you"`: you), a player or a
/// creature, or conditions on the permanent dealt damage.
fn destination_test(f: &Fragments, t: &Element, would: &mut Value) -> Result<(), String> {
    let player = json!({ "type": "has_tag", "tag": "player" });
    let creature = json!({ "type": "has_tag", "tag": "creature" });
    match shape(t).as_str() {
        "destination-test[is-player]" => would["target"] = player,
        "destination-test[is-player(target=you)]" => {
            would["target"] = player;
            would["player"] = json!("friendly");
        }
        "destination-test[or[is-player, has-idcard(idcard=creature)]]" => {
            would["target"] = json!({ "any": [player, creature] });
        }
        _ => match t.children.as_slice() {
            [d] => {
                would["target"] =
                    condition(f, d).map_err(|m| format!("<assigned-damage> destination {m}"))?
            }
            _ => return Err("<assigned-damage> destination test of several tests".into()),
        },
    }
    Ok(())
}
