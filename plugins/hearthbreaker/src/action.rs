//! One Hearthbreaker action → Tessera actions: a `give` of buffs, auras and effects
//! (one action each), and the collection made before an action that picks from it.

use serde_json::{json, Map, Value};

use crate::translate::{aura, event, id, name_of, param, tag, Fail, Out, KEYWORDS};

/// One action → Tessera actions (a `give` of several buffs is one `give` per buff).
pub fn action(v: &Value, out: &mut Out<'_>) -> Result<Vec<Value>, Fail> {
    let name = name_of(v)?;
    if name == "give" {
        let mut list = Vec::new();
        for b in v
            .get("buffs")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            list.extend(give(b, out)?);
        }
        for a in v
            .get("auras")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            list.push(json!({ "type": id("action", "give"), "aura": aura(a, out)? }));
        }
        for e in v
            .get("effects")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            list.push(
                json!({ "type": id("action", "give_effect"), "effect": effect_spec(e, out)? }),
            );
        }
        return Ok(list);
    }
    let mut m = Map::new();
    m.insert("type".into(), id("action", name));
    for (k, x) in v.as_object().into_iter().flatten() {
        if k != "name" {
            m.insert(k.clone(), param(k, x, out)?);
        }
    }
    let action = Value::Object(m);
    if picks_from_collection(&action) {
        // The collection is made the first time an action picks from it.
        let made = json!({ "ref": format!("hearthbreaker:ref/{COLLECTION_REF}") });
        return Ok(vec![made, action]);
    }
    Ok(vec![action])
}

/// The action `[ref.*]` that creates the collection (`card_collection`'s objects) when
/// it does not exist yet.
pub const COLLECTION_REF: &str = "collection";

/// Whether a translated action selects from the collection anywhere in its parameters.
fn picks_from_collection(v: &Value) -> bool {
    match v {
        Value::String(s) => s == "hearthbreaker:selector/card_collection",
        Value::Array(a) => a.iter().any(picks_from_collection),
        Value::Object(m) => m.values().any(picks_from_collection),
        _ => false,
    }
}

/// A permanent keyword buff is the keyword's tag (silence or a broken shield removes it);
/// everything else is an aura given to the target. A given buff's function amounts are
/// frozen when it is given (Hearthbreaker's `to_instance`: Blood Knight counts the shields
/// before they go, Void Terror its neighbours before they die): each is computed into a
/// property of the target first, and the aura reads that property.
fn give(b: &Value, out: &mut Out<'_>) -> Result<Vec<Value>, Fail> {
    let st = b.get("status").ok_or("a buff needs a `status`")?;
    let name = name_of(st)?;
    if KEYWORDS.contains(&name) && b.get("until").is_none() {
        return Ok(vec![
            json!({ "type": id("action", "give_keyword"), "keyword": name }),
        ]);
    }
    let mut a = aura(b, out)?;
    // Doubling is "+ the attack it has now", fixed when given (Gahz'rilla's later buffs are
    // not doubled); as a multiplier it would double them too.
    if name == "double_attack" {
        a["modifiers"] = json!([{ "key": "attack", "op": "add", "value": "self.attack" }]);
    }
    // A function amount is evaluated once, when given, seen from the target (Hearthbreaker
    // freezes it: `to_instance`); plain numbers need no freezing.
    let computed = a
        .get("modifiers")
        .and_then(Value::as_array)
        .is_some_and(|mods| {
            mods.iter()
                .any(|m| m.get("value").is_some_and(|v| !v.is_number()))
        });
    let mut give = json!({ "type": id("action", "give"), "aura": a });
    if computed {
        give["freeze"] = json!(true);
    }
    Ok(vec![give])
}

/// An effect given at run time (`give` with `effects`, `GiveEffect`): a trigger table for
/// `core:action/give_effect`. Its tags run in order, each on its own selection (`to`). The
/// selectors of its actions are fixed when it is given (`GiveEffect.act` turns them into
/// constant selectors): `self` there is the giver (Echoing Ooze copies the Ooze, not the
/// player holding the effect).
fn effect_spec(e: &Value, out: &mut Out<'_>) -> Result<Value, Fail> {
    let ev = event(e.get("event").ok_or("an effect needs an `event`")?, out)?;
    let tags = e
        .get("tags")
        .and_then(Value::as_array)
        .ok_or("an effect needs `tags`")?;
    let mut actions = Vec::new();
    for t in tags {
        let mut tr = tag(t, out)?;
        for a in tr["do"].as_array_mut().into_iter().flatten() {
            self_is_giver(a);
        }
        let select = tr.get("select").cloned();
        for mut a in tr["do"].as_array().cloned().unwrap_or_default() {
            if let (Some(s), Some(m)) = (&select, a.as_object_mut()) {
                m.entry("to").or_insert_with(|| s.clone());
            }
            actions.push(a);
        }
    }
    Ok(json!({ "when": ev, "do": actions }))
}

/// Replaces the `self` selector inside an action's parameters with `core:selector/giver`.
fn self_is_giver(v: &mut Value) {
    match v {
        Value::Array(a) => a.iter_mut().for_each(self_is_giver),
        Value::Object(m) => {
            if m.get("type").and_then(Value::as_str) == Some("hearthbreaker:selector/self") {
                m.insert("type".into(), json!("core:selector/giver"));
            }
            m.values_mut().for_each(self_is_giver);
        }
        _ => {}
    }
}
