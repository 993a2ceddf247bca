//! One card definition → one `[class.*]`: its fields become properties and tags, its
//! `impl.buffs` / `impl.auras` / `enrage` / top-level `buffs` become class auras, and its
//! `battlecry`, `combo`, `choices`, `deathrattle`, `impl.effects` and top-level `effects`
//! become triggers.

use std::collections::HashMap;

use serde_json::{json, Map, Value};

use crate::action::COLLECTION_REF;
use crate::translate::{self, slug, Fail, Out, KEYWORDS};

/// A card that could not be translated.
pub struct CardError {
    /// The card's position in the file's list.
    pub index: usize,
    /// The card's name.
    pub card: String,
    /// What is wrong.
    pub message: String,
}

/// The whole file (a list of card definitions) → the content tree.
pub fn translate_all(defs: &Value) -> Result<Value, CardError> {
    let list = defs.as_array().ok_or_else(|| CardError {
        index: 0,
        card: String::new(),
        message: "expected a list of card definitions".into(),
    })?;
    // Card names → class names. A name used by two cards (a token and a card, e.g.
    // "Spellbender") refers to the one without a `ref_name`.
    let mut names: HashMap<String, String> = HashMap::new();
    for c in list {
        let name = c.get("name").and_then(Value::as_str).unwrap_or_default();
        let class = class_name(c);
        if let Some(r) = c.get("ref_name").and_then(Value::as_str) {
            names.insert(r.to_owned(), class.clone());
            names.entry(name.to_owned()).or_insert(class);
        } else {
            names.insert(name.to_owned(), class);
        }
    }
    let lookup = |n: &str| names.get(n).cloned();
    let mut classes = Map::new();
    let mut refs = Map::new();
    for (index, c) in list.iter().enumerate() {
        let name = c.get("name").and_then(Value::as_str).unwrap_or_default();
        let class = class_name(c);
        let def = card(c, &class, name, &mut refs, &lookup).map_err(|message| CardError {
            index,
            card: name.to_owned(),
            message,
        })?;
        if classes.insert(class.clone(), def).is_some() {
            return Err(CardError {
                index,
                card: name.to_owned(),
                message: format!("two cards are both named `{class}`"),
            });
        }
    }
    // The collection (`card_collection` picks from it): one object of every collectible
    // card in the hidden zone `collection`, unowned, created quietly (no `created` event
    // per card: no rule hears of the catalog) by the action `ref.collection` the first
    // time it runs. The actions that pick from the collection run it first (see
    // `action::action`), so a game whose cards never do creates none of it (creating
    // it at every game's start was an eighth of the time of a game).
    let catalog: Vec<Value> = list
        .iter()
        .filter(|c| c.get("collectible").and_then(Value::as_bool) == Some(true))
        .map(|c| json!({ "type": "core:action/create", "class": format!("hearthbreaker:class/{}", class_name(c)), "zone": "collection", "unowned": true, "quiet": true }))
        .collect();
    let empty = json!({ "type": "core:condition/compare", "left": { "count": { "type": "core:selector/objects", "zone": "collection" } }, "op": "==", "right": 0 });
    refs.insert(
        COLLECTION_REF.into(),
        json!({ "action": [{ "type": "core:action/if", "condition": empty, "then": catalog }] }),
    );
    Ok(json!({ "class": classes, "ref": refs }))
}

/// Hearthbreaker's `CHARACTER_CLASS` numbers (ALL = 0, MAGE = 1, ... WARLOCK = 9).
pub fn class_id(class: &str) -> i64 {
    match class {
        "mage" => 1,
        "hunter" => 2,
        "shaman" => 3,
        "warrior" => 4,
        "druid" => 5,
        "priest" => 6,
        "paladin" => 7,
        "rogue" => 8,
        "warlock" => 9,
        _ => 0,
    }
}

/// The class name of each card of the file, in order.
pub fn class_names(defs: &Value) -> Vec<String> {
    defs.as_array()
        .map(|l| l.iter().map(class_name).collect())
        .unwrap_or_default()
}

fn class_name(c: &Value) -> String {
    let n = c
        .get("ref_name")
        .or_else(|| c.get("name"))
        .and_then(Value::as_str)
        .unwrap_or_default();
    slug(n)
}

fn card(
    c: &Value,
    class: &str,
    name: &str,
    refs: &mut Map<String, Value>,
    names: &dyn Fn(&str) -> Option<String>,
) -> Result<Value, Fail> {
    let mut out = Out {
        slug: class,
        refs,
        names,
        prompt: name,
    };
    let kind = c.get("type").and_then(Value::as_str).unwrap_or("minion");
    let int = |k: &str| c.get(k).and_then(Value::as_i64).unwrap_or(0);
    let text = |k: &str| {
        c.get(k)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_ascii_lowercase()
    };
    let card_class = match text("character_class").as_str() {
        "" => "neutral".to_owned(),
        other => other.to_owned(),
    };
    let mut props = Map::new();
    props.insert("cost".into(), json!(int("mana")));
    props.insert("base_cost".into(), json!(int("mana")));
    props.insert("attack".into(), json!(int("attack")));
    // The printed attack (`base_attack_equal_to` and `attribute base_attack` read it).
    props.insert("base_attack".into(), json!(int("attack")));
    match kind {
        "minion" => {
            props.insert("max_health".into(), json!(int("health")));
        }
        "weapon" => {
            props.insert("durability".into(), json!(int("durability")));
        }
        other => {
            return Err(format!(
                "unknown card type `{other}` (expected minion or weapon)"
            ))
        }
    }
    if c.get("overload").is_some() {
        props.insert("overload".into(), json!(int("overload")));
    }
    props.insert("title".into(), json!(name));
    props.insert("card_class".into(), json!(card_class));
    // Hearthbreaker's class number (`is_class` compares it with a hero's `class_id`).
    props.insert("class_id".into(), json!(class_id(&card_class)));
    props.insert("rarity".into(), json!(text("rarity")));
    props.insert("minion_type".into(), json!(text("minion_type")));
    let mut tags = vec![json!("card"), json!("hearthbreaker"), json!(kind)];
    if c.get("collectible").and_then(Value::as_bool) == Some(true) {
        tags.push(json!("collectible"));
    }
    tags.push(json!(format!("class_{card_class}")));
    tags.push(json!(format!("rarity_{}", text("rarity"))));
    if !text("minion_type").is_empty() {
        tags.push(json!(text("minion_type")));
    }
    for (k, tag) in [
        ("battlecry", "battlecry"),
        ("deathrattle", "deathrattle"),
        ("choices", "choose_one"),
        ("combo", "combo"),
    ] {
        if c.get(k).is_some() {
            tags.push(json!(tag));
        }
    }
    let in_play = if kind == "weapon" { "weapon" } else { "board" };
    let mut auras = Vec::new();
    let mut triggers = Vec::new();
    let imp = c.get("impl");
    // Buffs a card is created with: keywords are its own tags (silence removes them, a
    // shield breaks), other statuses an aura on itself (silence turns it off).
    for b in list(imp.and_then(|i| i.get("buffs"))) {
        let st = b.get("status").ok_or("a buff needs a `status`")?;
        let n = st.get("name").and_then(Value::as_str).unwrap_or_default();
        // A keyword with a condition (Southsea Deckhand's charge while its player has a
        // weapon) is a conditional aura instead.
        if KEYWORDS.contains(&n) && b.get("until").is_none() && b.get("condition").is_none() {
            tags.push(json!(n));
            // A weapon's windfury is its hero's (`Hero.calculate_stat` adds the weapon's):
            // the equipped weapon grants the tag to its player (Doomhammer).
            if kind == "weapon" && n == "windfury" {
                auras.push(json!({
                    "modifiers": [{ "key": "windfury", "op": "tag" }],
                    "select": { "type": "hearthbreaker:selector/player", "players": "friendly" },
                    "zones": ["weapon"]
                }));
            }
        } else {
            let mut a = translate::aura(b, &mut out)?;
            a["zones"] = json!([in_play]);
            auras.push(a);
        }
    }
    // Buffs active while the card is in its owner's hand (cost changes).
    for b in list(c.get("buffs")) {
        let mut a = translate::aura(b, &mut out)?;
        a["zones"] = json!(["hand"]);
        auras.push(a);
    }
    for a in list(imp.and_then(|i| i.get("auras"))) {
        let mut t = translate::aura(a, &mut out)?;
        t["zones"] = json!([in_play]);
        auras.push(t);
    }
    for a in list(c.get("enrage")) {
        let mut t = translate::aura(a, &mut out)?;
        t["zones"] = json!([in_play]);
        let enraged = json!({ "type": "hearthbreaker:condition/enraged" });
        t["while"] = match t.get("while") {
            Some(c) => json!({ "all": [enraged, c] }),
            None => enraged,
        };
        auras.push(t);
    }
    let own = |event: &str| json!({ "event": format!("hearthbreaker:event/{event}"), "target": "is_self" });
    // A minion's battlecry and deathrattle are lists; a weapon's are single tags.
    for t in c.get("battlecry").map(one_or_many).unwrap_or_default() {
        triggers.push(trigger(own("battlecry"), None, t, &mut out)?);
    }
    if let Some(t) = c.get("combo") {
        for t in one_or_many(t) {
            triggers.push(trigger(own("combo"), None, t, &mut out)?);
        }
    }
    for (i, t) in list(c.get("choices")).iter().enumerate() {
        // Choose one: option `i` runs when the player chose it (`choice` = i + 1).
        let mut tr = trigger(own("choose_one"), None, t, &mut out)?;
        let body = tr["do"].take();
        tr["do"] = json!([{
            "type": "core:action/if",
            "to": "self",
            "condition": { "type": "hearthbreaker:condition/chose", "option": i + 1 },
            "then": [{ "type": "hearthbreaker:action/run_choice", "actions": body, "to": tr.get("select").cloned().unwrap_or(json!("self")) }]
        }]);
        tr.as_object_mut().map(|m| m.remove("select"));
        triggers.push(tr);
    }
    for t in c.get("deathrattle").map(one_or_many).unwrap_or_default() {
        triggers.push(trigger(own("deathrattle"), None, t, &mut out)?);
    }
    for e in list(imp.and_then(|i| i.get("effects"))) {
        let ev = e.get("event").ok_or("an effect needs an `event`")?;
        let when = translate::event(ev, &mut out)?;
        // A minion hears its own damage events until its death is processed: in
        // Hearthbreaker a minion killed in a combat or by a spell is only marked dead, and
        // keeps its effects until `check_delayed` removes it, so it still hears the
        // `did_damage` and `damaged` of that damage (Emperor Cobra's poison, Dragon Egg).
        // Here deaths settle sooner, so these listeners stay on in the graveyard too, where
        // only damage dealt before the death can reach them (nothing damages a card in the
        // graveyard; no corpus minion with such an effect damages from its deathrattle).
        let own_damage = matches!(
            ev.get("event_name").and_then(Value::as_str),
            Some("did_damage" | "damaged")
        );
        let zones: &[&str] = if own_damage && kind == "minion" {
            &["board", "graveyard"]
        } else {
            &[in_play]
        };
        for t in list(e.get("tags")) {
            let mut tr = trigger(when.clone(), None, t, &mut out)?;
            tr["zones"] = json!(zones);
            triggers.push(tr);
        }
    }
    for e in list(c.get("effects")) {
        let when = translate::event(
            e.get("event").ok_or("an effect needs an `event`")?,
            &mut out,
        )?;
        for t in list(e.get("tags")) {
            triggers.push(trigger(when.clone(), Some("hand"), t, &mut out)?);
        }
    }
    let mut def = Map::new();
    def.insert("properties".into(), Value::Object(props));
    def.insert("tags".into(), Value::Array(tags));
    if !auras.is_empty() {
        def.insert("aura".into(), Value::Array(auras));
    }
    if !triggers.is_empty() {
        def.insert("trigger".into(), Value::Array(triggers));
    }
    Ok(Value::Object(def))
}

fn trigger(when: Value, zone: Option<&str>, tag: &Value, out: &mut Out<'_>) -> Result<Value, Fail> {
    let mut t = translate::tag(tag, out)?;
    t["when"] = when;
    if let Some(z) = zone {
        t["zones"] = json!([z]);
    }
    Ok(t)
}

fn list(v: Option<&Value>) -> Vec<&Value> {
    v.and_then(Value::as_array)
        .map(|a| a.iter().collect())
        .unwrap_or_default()
}

fn one_or_many(v: &Value) -> Vec<&Value> {
    match v {
        Value::Array(a) => a.iter().collect(),
        other => vec![other],
    }
}
