//! "Choose two" modal spells (`SP$ Charm | CharmNum$ 2`: Cryptic Command, Kolaghan's
//! Command). The spell is cast without a target of the cast move (the mtg rules'
//! `cast_untargeted`); as it is cast (601.2b-c) its controller chooses two modes
//! (`charm_mode_<i>` = 1) and, for a mode with a target, that target (`charm_target_<i>`;
//! a mode is offered only while it has one). As it resolves (608.2b) each chosen
//! targeted mode whose target is still legal counts in `legal_targets`; a spell whose
//! targets are all illegal does nothing (it fizzles), else each chosen mode acts — a
//! targeted one only on a legal target.
//!
//! Targeted modes: `Counter` (a spell), `ChangeZone` from the battlefield to the hand (a
//! permanent) or from your graveyard to your hand (a creature card), `Discard | Mode$
//! TgtChoose` (a player, who chooses), `Destroy` (an artifact), `DealDamage` (any target).
//! Untargeted: `TapAll | ValidCards$ <valid>` and the effects of [`crate::effect`].

use forge_script::{Ability, Face};
use serde_json::{json, Value};

use crate::spell::Spell;

/// A targeted mode: how its target is picked, what keeps it legal, and what it does to
/// `{ object = charm_target_<i> }`.
struct Targeted {
    pick: Value,
    legal: Value,
    act: fn(Value, &Ability) -> Option<Value>,
}

/// Translates the choose-two charm `a` of the card `class`; `Err` lists what it lacks.
pub fn translate(face: &Face, class: &str, a: &Ability) -> Result<Spell, Vec<String>> {
    let mut missing = Vec::new();
    let mut modes = Vec::new();
    let mut count_legal = Vec::new();
    let mut resolve = Vec::new();
    let mut classes = Vec::new();
    for (i, name) in crate::charm::choices(a).into_iter().enumerate() {
        let n = i + 1;
        let Some(m) = face.svar(name).and_then(|s| s.ability.as_ref()) else {
            missing.push(format!("A:SP$ Charm choice {name} (not an ability)"));
            continue;
        };
        // The mode as its text says, without its closing full stop.
        let label = m
            .params
            .get("SpellDescription")
            .unwrap_or(name)
            .trim_end_matches(['.', ';', ' '])
            .to_owned();
        let chosen = json!({ "type": "compare", "left": format!("self.charm_mode_{n}"), "op": "==", "right": 1 });
        let flag =
            json!({ "type": "set", "key": format!("charm_mode_{n}"), "value": 1, "to": "self" });
        if m.params.get("ValidTgts").is_none() {
            match untargeted(face, class, m) {
                Ok((acts, more)) => {
                    modes.push(json!({ "label": label, "do": [flag] }));
                    resolve.push(json!({ "type": "if", "condition": chosen, "then": acts }));
                    classes.extend(more);
                }
                Err(e) => missing.extend(e),
            }
            continue;
        }
        let Some(t) = targeted(m) else {
            missing.push(format!(
                "A:SP$ Charm with CharmNum$ 2 mode {} at ValidTgts$ {}",
                m.api.as_deref().unwrap_or("?"),
                m.params.get("ValidTgts").unwrap_or("")
            ));
            continue;
        };
        let key = format!("charm_target_{n}");
        let target = json!({ "type": "object", "object": format!("self.{key}"), "where": t.legal });
        let Some(act) = (t.act)(target.clone(), m) else {
            missing.push(format!(
                "A:SP$ Charm mode {}",
                m.api.as_deref().unwrap_or("?")
            ));
            continue;
        };
        let mut pick = t.pick.clone();
        pick["pick"] = json!({ "chosen": 1, "prompt": m.params.get("TgtPrompt").unwrap_or("choose a target") });
        modes.push(json!({ "label": label, "if": { "type": "compare", "left": format!("count({class}_charm_{n})"), "op": ">", "right": 0 },
            "do": [flag, { "type": "link", "key": key, "object": pick, "to": "self" },
                   { "type": "add", "key": "targeted_modes", "amount": 1, "to": "self" }] }));
        // (An `if` without targets tests the spell itself, which no legality condition
        // admits.)
        count_legal.push(json!({ "type": "if", "condition": chosen.clone(), "then": [
            { "type": "if", "to": target, "condition": t.legal, "then": [
                { "type": "add", "key": "legal_targets", "amount": 1, "to": "self" },
            ] },
        ] }));
        resolve.push(json!({ "type": "if", "condition": chosen, "then": [act] }));
    }
    if !missing.is_empty() {
        return Err(missing);
    }
    let cast = json!({
        "when": { "event": "cast", "target": { "type": "is_self" } },
        "zones": ["stack"],
        "do": [
            { "type": "set", "key": "targeted_modes", "value": 0, "to": "self" },
            { "type": "choose_mode", "count": 2, "prompt": format!("{}: choose two", face.name), "modes": modes },
        ],
    });
    let mut on_resolve =
        vec![json!({ "type": "set", "key": "legal_targets", "value": 0, "to": "self" })];
    on_resolve.extend(count_legal);
    on_resolve.push(json!({ "type": "if",
        "condition": [{ "type": "compare", "left": "self.targeted_modes", "op": ">", "right": 0 }, { "type": "compare", "left": "self.legal_targets", "op": "==", "right": 0 }],
        "then": [{ "type": "emit", "event": "fizzled", "to": "self" }],
        "else": resolve }));
    on_resolve.push(json!({ "type": "move", "zone": "graveyard", "to": "self" }));
    let resolve = json!({
        "when": { "event": "resolve", "target": { "type": "is_self" } },
        "zones": ["stack"],
        "do": on_resolve,
    });
    Ok(Spell {
        tags: vec!["untargeted".into()],
        trigger: Value::Array(vec![cast, resolve]),
        classes,
        props: Vec::new(),
    })
}

/// The refs the card `class` defines for its choose-two charm's targeted modes
/// (`<class>_charm_<n>`: the candidates; a mode is offered while it has one), for those
/// `content` uses.
pub fn refs(face: &Face, class: &str, content: &str) -> serde_json::Map<String, Value> {
    let mut refs = serde_json::Map::new();
    for a in face
        .abilities
        .iter()
        .filter(|a| a.api.as_deref() == Some("Charm"))
    {
        for (i, name) in crate::charm::choices(a).into_iter().enumerate() {
            let key = format!("{class}_charm_{}", i + 1);
            if !content.contains(&format!("count({key})")) {
                continue;
            }
            if let Some(t) = face
                .svar(name)
                .and_then(|s| s.ability.as_ref())
                .and_then(targeted)
            {
                refs.insert(key, json!({ "selector": t.pick }));
            }
        }
    }
    refs
}

/// An untargeted mode's actions (`TapAll`, or [`crate::effect::untargeted`]).
fn untargeted(
    face: &Face,
    class: &str,
    m: &Ability,
) -> Result<(Vec<Value>, Vec<(String, Value)>), Vec<String>> {
    if m.api.as_deref() == Some("TapAll") {
        let extra: Vec<String> = m
            .params
            .keys_outside(&["DB", "ValidCards", "SpellDescription"])
            .map(|k| format!("TapAll with {k}$"))
            .collect();
        let which = crate::valid::condition(
            m.params.get("ValidCards").unwrap_or("Permanent"),
            "TapAll ValidCards$",
        )
        .map_err(|e| vec![e])?;
        if !extra.is_empty() {
            return Err(extra);
        }
        return Ok((
            vec![
                json!({ "type": "tag", "tag": "tapped", "to": { "type": "objects", "zone": "battlefield", "where": which } }),
            ],
            Vec::new(),
        ));
    }
    let mut plain = m.clone();
    plain.params.0.retain(|(k, _)| k != "SpellDescription");
    let e = crate::effect::untargeted(face, class, &plain)?;
    Ok((e.actions, e.classes))
}

/// A targeted mode the rules know, by its API and `ValidTgts$`.
fn targeted(m: &Ability) -> Option<Targeted> {
    let p = |k: &str| m.params.get(k);
    let known = |keys: &[&str]| m.params.keys_outside(keys).next().is_none();
    let base = ["DB", "ValidTgts", "TgtPrompt", "SpellDescription"];
    let battlefield = |tag: &str| json!([{ "type": "in_zone", "zone": "battlefield" }, { "type": "has_tag", "tag": tag }, { "ref": "targetable_by_me" }]);
    match (m.api.as_deref()?, p("ValidTgts")?) {
        ("Counter", "Card")
            if p("TargetType") == Some("Spell")
                && known(&[&base[..], &["TargetType"]].concat()) =>
        {
            Some(Targeted {
                pick: json!({ "type": "objects", "zone": "stack", "tag": "card", "where": { "not": { "type": "is_self" } } }),
                legal: json!([{ "type": "in_zone", "zone": "stack" }, { "type": "has_tag", "tag": "card" }, { "not": { "type": "is_self" } }]),
                act: |t, _| {
                    Some(
                        json!({ "type": "if", "to": t, "condition": [{ "not": { "type": "is_self" } }, { "type": "in_zone", "zone": "stack" }, { "not": { "type": "has_tag", "tag": "uncounterable" } }], "then": [{ "type": "move", "zone": "graveyard" }] }),
                    )
                },
            })
        }
        ("ChangeZone", "Permanent")
            if p("Origin") == Some("Battlefield")
                && p("Destination") == Some("Hand")
                && known(&[&base[..], &["Origin", "Destination"]].concat()) =>
        {
            Some(Targeted {
                pick: json!({ "type": "objects", "zone": "battlefield", "tag": "permanent", "where": { "ref": "targetable_by_me" } }),
                legal: battlefield("permanent"),
                act: |t, _| Some(json!({ "type": "move", "zone": "hand", "to": t })),
            })
        }
        ("ChangeZone", "Creature.YouCtrl")
            if p("Origin") == Some("Graveyard")
                && p("Destination") == Some("Hand")
                && known(&[&base[..], &["Origin", "Destination"]].concat()) =>
        {
            Some(Targeted {
                pick: json!({ "type": "objects", "zone": "graveyard", "tag": "creature", "owner": "friendly" }),
                legal: json!([{ "type": "in_zone", "zone": "graveyard" }, { "type": "has_tag", "tag": "creature" }, { "type": "owned_by", "owner": "friendly" }]),
                act: |t, _| Some(json!({ "type": "move", "zone": "hand", "to": t })),
            })
        }
        ("Discard", "Player")
            if p("Mode") == Some("TgtChoose")
                && known(&[&base[..], &["Mode", "NumCards"]].concat()) =>
        {
            Some(Targeted {
                pick: json!({ "type": "players" }),
                legal: json!({ "type": "has_tag", "tag": "player" }),
                act: |t, m| {
                    let n = crate::effect::number(m.params.get("NumCards").or(Some("1")))?;
                    Some(
                        json!({ "type": "emit", "event": "discards_chosen", "amount": n, "to": t }),
                    )
                },
            })
        }
        ("Destroy", "Artifact") if known(&base) => Some(Targeted {
            pick: json!({ "type": "objects", "zone": "battlefield", "tag": "artifact", "where": { "ref": "targetable_by_me" } }),
            legal: battlefield("artifact"),
            act: |t, _| Some(json!({ "type": "destroy", "to": t })),
        }),
        ("DealDamage", "Creature,Player,Planeswalker")
            if known(&[&base[..], &["NumDmg"]].concat()) =>
        {
            Some(Targeted {
                pick: json!({ "from": [
                { "type": "objects", "zone": "battlefield", "tag": "creature", "where": { "ref": "targetable_by_me" } },
                { "type": "objects", "zone": "battlefield", "tag": "planeswalker", "where": { "ref": "targetable_by_me" } },
                { "type": "players" },
            ] }),
                legal: json!({ "any": [
                { "type": "has_tag", "tag": "player" },
                { "all": [{ "type": "in_zone", "zone": "battlefield" }, { "any": [{ "type": "has_tag", "tag": "creature" }, { "type": "has_tag", "tag": "planeswalker" }] }, { "ref": "targetable_by_me" }] },
            ] }),
                act: |t, m| {
                    let n = crate::effect::number(m.params.get("NumDmg"))?;
                    Some(json!({ "type": "damage", "amount": n, "source": "self", "to": t }))
                },
            })
        }
        _ => None,
    }
}
