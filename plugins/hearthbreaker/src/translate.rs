//! The vocabulary, structurally: Hearthbreaker's actions, selectors, pickers, conditions,
//! events, statuses, functions and card sources → Tessera content values. Names are never
//! interpreted here beyond their shape; their meaning is the `hearthbreaker` mod's content.

use serde_json::{json, Map, Value};

use crate::action::action;

/// Why a part of a card cannot be translated.
pub type Fail = String;

/// What the translation of one card collects beside its class: generated selector refs
/// (for `attribute` amounts, which `sum(ref, key)` needs by name).
pub struct Out<'a> {
    /// The card's class name (prefix of generated names).
    pub slug: &'a str,
    /// Generated `[ref.*]` tables.
    pub refs: &'a mut Map<String, Value>,
    /// The card's name → class slug table, for card names in actions.
    pub names: &'a dyn Fn(&str) -> Option<String>,
    /// The prompt for choices the player makes (`user` pickers): the card's name.
    pub prompt: &'a str,
}

pub(crate) fn name_of(v: &Value) -> Result<&str, Fail> {
    v.get("name")
        .and_then(Value::as_str)
        .ok_or_else(|| format!("expected a table with a `name`, found {v}"))
}

pub(crate) fn id(kind: &str, name: &str) -> Value {
    Value::String(format!("hearthbreaker:{kind}/{name}"))
}

/// Hearthbreaker's `players` (`friendly`, `enemy`, `both`, `current_player`, ...) as
/// written in Tessera (`both` is `any`).
fn players(v: &Value) -> Value {
    match v.as_str() {
        Some("both") => json!("any"),
        Some(s) => json!(s),
        None => v.clone(),
    }
}

/// A selector table → `{ type = "hearthbreaker:selector/<name>", players, where, pick }`.
pub fn selector(v: &Value, out: &mut Out<'_>) -> Result<Value, Fail> {
    let name = name_of(v)?;
    let mut m = Map::new();
    m.insert("type".into(), id("selector", name));
    for (k, x) in v.as_object().into_iter().flatten() {
        match k.as_str() {
            "name" => {}
            "players" => {
                m.insert("players".into(), players(x));
            }
            "condition" => {
                m.insert("where".into(), condition(x, out)?);
            }
            "picker" => {
                if let Some(p) = picker(x, out)? {
                    m.insert("pick".into(), p);
                }
            }
            other => {
                m.insert(other.into(), param(other, x, out)?);
            }
        }
    }
    Ok(Value::Object(m))
}

/// A picker → a Tessera `pick` (`None` for `all`: a selection is all by default).
pub fn picker(v: &Value, out: &Out<'_>) -> Result<Option<Value>, Fail> {
    match name_of(v)? {
        "all" => Ok(None),
        "random" => {
            let n = v.get("count").cloned().unwrap_or(json!(1));
            Ok(Some(json!({ "random": n })))
        }
        "user" => Ok(Some(json!({ "chosen": 1, "prompt": out.prompt }))),
        other => Ok(Some(json!({ "type": id("picker", other) }))),
    }
}

/// A condition → `{ type = "hearthbreaker:condition/<name>", ... }`; `and` and `not`
/// become `all` and `not`; `include_self = false` adds "and not the holder itself".
pub fn condition(v: &Value, out: &mut Out<'_>) -> Result<Value, Fail> {
    let name = name_of(v)?;
    match name {
        "and" => {
            let list = v
                .get("conditions")
                .and_then(Value::as_array)
                .ok_or("`and` needs `conditions`")?;
            let all = list
                .iter()
                .map(|c| condition(c, out))
                .collect::<Result<Vec<_>, _>>()?;
            return Ok(json!({ "all": all }));
        }
        "not" => {
            let inner = v.get("condition").ok_or("`not` needs a `condition`")?;
            return Ok(json!({ "not": condition(inner, out)? }));
        }
        _ => {}
    }
    let mut m = Map::new();
    m.insert("type".into(), id("condition", name));
    let mut exclude_self = false;
    for (k, x) in v.as_object().into_iter().flatten() {
        match k.as_str() {
            "name" => {}
            "include_self" => exclude_self = x == &Value::Bool(false),
            other => {
                m.insert(other.into(), param(other, x, out)?);
            }
        }
    }
    let c = Value::Object(m);
    Ok(if exclude_self {
        json!({ "all": [c, { "not": { "type": "core:condition/is_self" } }] })
    } else {
        c
    })
}

/// A list of conditions (card sources' `conditions`) → one condition (all must hold).
pub fn conditions(v: &Value, out: &mut Out<'_>) -> Result<Value, Fail> {
    let list = v.as_array().ok_or("`conditions` must be a list")?;
    let all = list
        .iter()
        .map(|c| condition(c, out))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(json!({ "all": all }))
}

/// An event table → a trigger's `when`: `{ event = "hearthbreaker:event/<name>",
/// player, target = <condition> }`.
pub fn event(v: &Value, out: &mut Out<'_>) -> Result<Value, Fail> {
    let name = v
        .get("event_name")
        .and_then(Value::as_str)
        .ok_or_else(|| format!("an event needs an `event_name`, found {v}"))?;
    let mut m = Map::new();
    m.insert("event".into(), event_id(name));
    if let Some(p) = v.get("player") {
        let p = players(p);
        // `current_player`: whoever's turn it is — the event's own player, so any.
        if p != json!("any") && p != json!("current_player") {
            m.insert("player".into(), p);
        }
    }
    let target = v.get("condition").map(|c| condition(c, out)).transpose()?;
    // Hearthbreaker binds these on one object, not on a player: only the holder hears
    // them. The holder is the event's source (the attacker) or its target.
    match name {
        "attack" | "did_damage" | "attack_completed" => {
            m.insert("condition".into(), json!("is_self"));
        }
        "damaged" | "drawn" | "spell_targeted" => {
            let own = json!({ "type": "core:condition/is_self" });
            let t = match target {
                Some(t) => json!({ "all": [own, t] }),
                None => own,
            };
            m.insert("target".into(), t);
            return Ok(Value::Object(m));
        }
        // A card's effects attach once it is played: it never hears its own `card_played`
        // (here the minion is already on the board when the event is raised).
        "card_played" => {
            let not_own = json!({ "not": { "type": "core:condition/is_self" } });
            let t = match target {
                Some(t) => json!({ "all": [not_own, t] }),
                None => not_own,
            };
            m.insert("target".into(), t);
            return Ok(Value::Object(m));
        }
        _ => {}
    }
    if let Some(t) = target {
        m.insert("target".into(), t);
    }
    Ok(Value::Object(m))
}

/// An event name → its id. `turn_ended` is core's own turn end: Hearthbreaker raises it
/// first thing, before the next turn starts, and an event the mod raised from core's would
/// be queued after the next turn's start.
fn event_id(name: &str) -> Value {
    match name {
        "turn_ended" => json!("core:event/turn_ended"),
        other => id("event", other),
    }
}

/// A number or a function (`count`, `attribute`, `difference`, `random_amount`,
/// `event_value`) → a Tessera expression.
pub fn amount(v: &Value, out: &mut Out<'_>) -> Result<Value, Fail> {
    if v.is_number() {
        return Ok(v.clone());
    }
    let name = name_of(v)?;
    let sel = |out: &mut Out<'_>| -> Result<String, Fail> {
        let s = v
            .get("selector")
            .ok_or_else(|| format!("`{name}` needs a `selector`"))?;
        let s = selector(s, out)?;
        let r = format!("{}_{}", out.slug, out.refs.len());
        out.refs.insert(r.clone(), json!({ "selector": s }));
        Ok(r)
    };
    match name {
        "count" => Ok(json!(format!("count({})", sel(out)?))),
        "attribute" => {
            let key = v
                .get("attribute")
                .and_then(Value::as_str)
                .ok_or("`attribute` needs an `attribute`")?;
            Ok(json!(format!("sum({}, {})", sel(out)?, property(key))))
        }
        "event_value" => Ok(json!("event.amount")),
        "random_amount" => {
            let lo = v.get("minimum").and_then(Value::as_i64).unwrap_or(0);
            let hi = v.get("maximum").and_then(Value::as_i64).unwrap_or(lo);
            Ok(json!(format!("1d{} + {}", hi - lo + 1, lo - 1)))
        }
        "difference" => {
            let a = amount(v.get("amount").ok_or("`difference` needs `amount`")?, out)?;
            let b = amount(v.get("value").ok_or("`difference` needs `value`")?, out)?;
            // Hearthbreaker's `Difference`: `max(0, value - amount)` (Jeeves: up to 3 cards).
            Ok(json!(format!("max(0, ({}) - ({}))", text(&b), text(&a))))
        }
        other => Err(format!("unknown function `{other}`")),
    }
}

fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Hearthbreaker's attribute names → Tessera property keys.
pub fn property(key: &str) -> &str {
    match key {
        "mana" => "cost",
        "health" => "health",
        "max_health" => "max_health",
        "character_class" => "class_id",
        other => other,
    }
}

/// An amount scaled by a status's `multiplier`.
fn scaled(v: &Value, out: &mut Out<'_>) -> Result<Value, Fail> {
    let a = amount(v.get("amount").unwrap_or(&json!(0)), out)?;
    Ok(match v.get("multiplier").and_then(Value::as_f64) {
        Some(m) if (m - 1.0).abs() > f64::EPSILON => json!(format!("({}) * ({m})", text(&a))),
        _ => a,
    })
}

/// Keyword statuses: a tag while the status holds.
pub const KEYWORDS: &[&str] = &[
    "taunt",
    "charge",
    "stealth",
    "divine_shield",
    "windfury",
    "mega_windfury",
    "frozen",
    "immune",
    "can_attack",
    "cant_attack",
    "heal_as_damage",
    "no_spell_target",
    "power_targets_minions",
    "double_deathrattle",
];

/// A status → aura modifiers (statuses are modifiers on the recomputed-property model).
pub fn status(v: &Value, out: &mut Out<'_>) -> Result<Vec<Value>, Fail> {
    let name = name_of(v)?;
    if KEYWORDS.contains(&name) {
        return Ok(vec![json!({ "key": name, "op": "tag" })]);
    }
    Ok(match name {
        "change_attack" => vec![json!({ "key": "attack", "op": "add", "value": scaled(v, out)? })],
        "change_health" => {
            vec![json!({ "key": "max_health", "op": "add", "value": scaled(v, out)? })]
        }
        "set_attack" => vec![json!({ "key": "attack", "op": "set", "value": scaled(v, out)? })],
        "attack_equals_health" => {
            // An override after every other buff (Hearthbreaker's attack = health wins over
            // +attack auras): a clamp, the last layer, to exactly the health.
            vec![
                json!({ "key": "attack", "op": "clamp", "min": "self.health", "max": "self.health" }),
            ]
        }
        "double_attack" => vec![json!({ "key": "attack", "op": "multiply", "value": 2 })],
        "spell_damage" => {
            let d = amount(v.get("damage").unwrap_or(&json!(0)), out)?;
            vec![json!({ "key": "spell_damage", "op": "add", "value": d })]
        }
        "mana_change" => {
            let mut mods = vec![json!({ "key": "cost", "op": "add", "value": scaled(v, out)? })];
            // `calculate_stat` never goes below 0 (Kirin Tor Mage's -100 makes a secret free).
            if v.get("minimum").is_none() {
                mods.push(json!({ "key": "cost", "op": "clamp", "min": 0 }));
            }
            if let Some(min) = v.get("minimum") {
                // ManaChange.update: max(min(cost, minimum), cost + amount) — a card that
                // already costs less than the minimum keeps its cost (a Wisp stays at 0).
                // differs: `cost` here is the printed cost, not the cost after earlier changes.
                let min = match amount(min, out)? {
                    Value::String(e) => format!("({e})"),
                    n => n.to_string(),
                };
                mods.push(json!({ "key": "cost", "op": "clamp", "min": format!("min({min}, target.base_cost)") }));
            }
            mods
        }
        "multiply_heal_amount" => vec![json!({
            "key": "heal_multiplier", "op": "multiply", "value": amount(v.get("amount").unwrap_or(&json!(1)), out)?
        })],
        "multiply_spell_damage" => vec![json!({
            "key": "spell_multiplier", "op": "multiply", "value": amount(v.get("amount").unwrap_or(&json!(1)), out)?
        })],
        other => return Err(format!("unknown status `{other}`")),
    })
}

/// A card name or a card source → what `create` takes as `class`: a class id, or a
/// selector table whose objects' classes are copied.
pub fn card_source(v: &Value, out: &mut Out<'_>) -> Result<Value, Fail> {
    if let Some(name) = v.as_str() {
        let slug = (out.names)(name).unwrap_or_else(|| slug(name));
        return Ok(json!(format!("hearthbreaker:class/{slug}")));
    }
    // A list of card names: one of them at random.
    if let Some(list) = v.as_array() {
        return list
            .iter()
            .map(|n| card_source(n, out))
            .collect::<Result<Vec<_>, _>>()
            .map(Value::Array);
    }
    let name = name_of(v)?;
    let mut m = Map::new();
    m.insert("type".into(), id("selector", &format!("card_{name}")));
    for (k, x) in v.as_object().into_iter().flatten() {
        match k.as_str() {
            "name" => {}
            "conditions" => {
                if x.as_array().is_some_and(|a| !a.is_empty()) {
                    m.insert("where".into(), conditions(x, out)?);
                }
            }
            "player" => {
                m.insert("players".into(), players(x));
            }
            "selector" => {
                m.insert("from".into(), json!([selector(x, out)?]));
                m.remove("type");
            }
            other => {
                m.insert(other.into(), param(other, x, out)?);
            }
        }
    }
    if name != "object" && name != "same" && name != "last_card" {
        m.insert("pick".into(), json!({ "random": 1 }));
    }
    Ok(Value::Object(m))
}

/// A class name from a card's name: lowercase, runs of other characters as `_`.
pub fn slug(name: &str) -> String {
    let mut s = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            s.push(c.to_ascii_lowercase());
        } else if c == '\'' {
            // "Captain's Parrot" → captains_parrot
        } else if !s.ends_with('_') {
            s.push('_');
        }
    }
    s.trim_matches('_').to_owned()
}

/// A buff (`{status, condition?, until?}`) or aura (`{status, selector, condition?, until?,
/// expires}`) → an
/// aura table for `give_aura`.
pub fn aura(v: &Value, out: &mut Out<'_>) -> Result<Value, Fail> {
    let st = v.get("status").ok_or("a buff needs a `status`")?;
    let mut m = Map::new();
    m.insert("modifiers".into(), Value::Array(status(st, out)?));
    if let Some(s) = v.get("selector") {
        m.insert("select".into(), selector(s, out)?);
    }
    // A buff's or aura's `condition` holds while it is true of the holder (Hearthbreaker
    // evaluates it with the holder as both owner and target: `condition.evaluate(owner,
    // owner)`), as an aura's `while` is (its holder is both `self` and `target`).
    if let Some(c) = v.get("condition") {
        m.insert("while".into(), condition(c, out)?);
    }
    if let Some(u) = v.get("until") {
        let mut until = event(u, out)?;
        // An aura's end is filtered by player and target only: "until its holder's attack
        // completes" ends at any completed attack (the holder's own, in every corpus use).
        until.as_object_mut().map(|m| m.remove("condition"));
        // `expires` (an AuraUntil's default): it also ends at its holder's turn end.
        if v.get("expires") == Some(&Value::Bool(true)) {
            let turn_end = json!({ "event": "core:event/turn_ended", "player": "friendly" });
            if until != turn_end {
                until = json!([until, turn_end]);
            }
        }
        m.insert("until".into(), until);
    }
    Ok(Value::Object(m))
}

/// A tag (`{selector, actions, condition?}`) → `{ select, do }` for a trigger.
pub fn tag(t: &Value, out: &mut Out<'_>) -> Result<Value, Fail> {
    let mut actions = Vec::new();
    for a in t
        .get("actions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        actions.extend(action(a, out)?);
    }
    let actions = match t.get("condition") {
        Some(c) => vec![
            json!({ "type": "core:action/if", "condition": condition(c, out)?, "then": actions }),
        ],
        None => actions,
    };
    let mut actions = Value::Array(actions);
    let mut m = Map::new();
    if let Some(s) = t.get("selector") {
        let sel = selector(s, out)?;
        // Hearthbreaker's card queries are relative to the action's target player; ours to
        // the holder's owner: acting on the enemy player, their `friendly` is our `enemy`
        // (Deathlord: the enemy puts a minion from their own deck into play).
        if sel["type"] == "hearthbreaker:selector/player" && sel["players"] == "enemy" {
            flip_card_players(&mut actions);
        }
        // RandomPicker(count): `count` picks, each among all the targets (a target can be
        // picked again; dead minions are no longer candidates), the actions acting on each
        // pick in turn (Flamewaker: 2 missiles at a lone hero both hit).
        let n = sel["pick"]["random"].as_u64().unwrap_or(1);
        if n > 1 {
            let mut one = sel;
            one["pick"] = json!({ "random": 1 });
            let each = json!({ "type": "hearthbreaker:action/run_on_pick", "actions": actions, "to": one });
            actions = Value::Array(vec![each; n as usize]);
        } else {
            m.insert("select".into(), sel);
        }
    }
    m.insert("do".into(), actions);
    Ok(Value::Object(m))
}

/// Swaps `friendly` and `enemy` in the card queries (`card_*` selectors) inside `v`.
fn flip_card_players(v: &mut Value) {
    match v {
        Value::Array(a) => a.iter_mut().for_each(flip_card_players),
        Value::Object(m) => {
            let card_query = m
                .get("type")
                .and_then(Value::as_str)
                .is_some_and(|t| t.starts_with("hearthbreaker:selector/card_"));
            if card_query {
                let flipped = match m.get("players").and_then(Value::as_str) {
                    Some("friendly") => Some("enemy"),
                    Some("enemy") => Some("friendly"),
                    _ => None,
                };
                if let Some(p) = flipped {
                    m.insert("players".into(), json!(p));
                }
            }
            m.values_mut().for_each(flip_card_players);
        }
        _ => {}
    }
}

/// An action parameter by its key.
pub(crate) fn param(key: &str, v: &Value, out: &mut Out<'_>) -> Result<Value, Fail> {
    Ok(match key {
        "amount" | "count" | "value" | "minimum" | "maximum" | "attack_min" | "attack_max"
        | "attack_equal" => amount(v, out)?,
        "selector" => selector(v, out)?,
        "condition" => condition(v, out)?,
        "conditions" => conditions(v, out)?,
        "card" | "weapon" | "query" | "secrets" | "card_name" => card_source(v, out)?,
        "win_action" => Value::Array(action(v, out)?),
        "players" | "player" => players(v),
        "minion_type" => json!(v.as_str().unwrap_or_default().to_ascii_lowercase()),
        "status" if v.is_object() => Value::Array(status(v, out)?),
        _ => v.clone(),
    })
}
