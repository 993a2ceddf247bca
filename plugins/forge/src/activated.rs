//! A permanent's activated ability other than a mana ability: `A:AB$ <api> | Cost$ ...`
//! (one a card). The cost is `{T}`, mana (`4 T`, `B R G T`, `R`) and/or life
//! (`PayLife<7>`): with `{T}` alone the card gets the tag `tap_ability` (the mtg mod's
//! `activate` move taps it and raises `activated`); otherwise `paid_ability` with the
//! cost in `ability_cost_*` / `ability_life` (`ability_taps` when it also taps), paid by
//! `activate_paid`, which raises `activated_paid`. A sacrifice in the cost
//! (`Sac<1/CARDNAME>`; `Sac<1/Creature>` / `Sac<1/Land>`: tag `sacrifices_creature` /
//! `sacrifices_land`, chosen as it is paid) is paid by the card's trigger, and so are the
//! other costs that choose objects (`Discard<1/Creature>`, `ExileFromGrave<N/Card>`,
//! `Return<1/Forest>`, `tapXType<1/Creature>`: tags `discards_creature`,
//! `exiles_from_graveyard`, `returns_forest`, `taps_creature`). `ActivationLimit$ 1` and
//! `ActivationCardsInHand$ N` restrict when it may be activated (`once_each_turn`,
//! `needs_hand_size`). The card's trigger on that event puts
//! an ability object (`<card>_ab`) on the stack; the ability remembers its card
//! (`source_card`), chooses its target when created and resolves like a spell
//! (re-checked: an illegal target fizzles). Effects: at a target
//! (`ValidTgts$ Creature,Player` or permanents, [`crate::target`]) `DealDamage`, `Draw`,
//! `Destroy`, `Tap`, `Untap`, `Pump`, `ChangeZone` from the battlefield; without a target
//! `Pump` of the card itself and the untargeted effects of [`crate::effect`].

use forge_script::{Ability, Face};
use serde_json::{json, Value};

use crate::effect::number;
use crate::trigger::ability_class;

/// The card's trigger, its tags and properties, and the ability's classes.
pub struct Activated {
    /// The card's trigger on `activated` / `activated_paid`.
    pub card_trigger: Value,
    /// The ability class (first) and any class its effect needs (a token's).
    pub classes: Vec<(String, Value)>,
    /// `tap_ability` or `paid_ability` (and `ability_taps`).
    pub tags: Vec<String>,
    /// The cost's properties (`ability_cost_*`, `ability_life`).
    pub props: Vec<(String, Value)>,
    /// Class auras of the card (what a counter cost may remove: `ability_counters`).
    pub auras: Vec<Value>,
}

/// An activated ability's cost.
#[derive(Default)]
struct Cost {
    taps: bool,
    /// `X` (one): its controller chooses X as they activate it.
    x: bool,
    /// `Sac<1/CARDNAME>`, `Sac<1/Creature>`, `Sac<1/Land>`: what is sacrificed.
    sacrifice: Option<&'static str>,
    generic: i64,
    coloured: Vec<(char, i64)>,
    life: i64,
    /// Other costs that choose objects: `Discard<1/Creature>`, `ExileFromGrave<N/Card>`,
    /// `Return<1/Forest>`, `tapXType<1/Creature>`.
    chosen: Vec<Chosen>,
    /// `SubCounter<N/TYPE>`: the property counting the counters removed, and how many.
    counters: Option<(&'static str, i64)>,
}

/// A cost paid with objects its controller chooses as they pay.
#[derive(Clone, Copy)]
enum Chosen {
    /// Discard a creature card.
    DiscardCreature,
    /// Exile this many cards from the graveyard.
    ExileFromGraveyard(i64),
    /// Return a Forest you control to its owner's hand.
    ReturnForest,
    /// Tap an untapped creature you control.
    TapCreature,
}

impl Chosen {
    /// `Discard<1/Creature>`, `ExileFromGrave<N/Card>`, `Return<1/Forest>`,
    /// `tapXType<1/Creature>`.
    fn parse(part: &str) -> Option<Chosen> {
        match part {
            "Discard<1/Creature>" => Some(Chosen::DiscardCreature),
            "Return<1/Forest>" => Some(Chosen::ReturnForest),
            "tapXType<1/Creature>" => Some(Chosen::TapCreature),
            _ => part
                .strip_prefix("ExileFromGrave<")
                .and_then(|r| r.strip_suffix("/Card>"))
                .and_then(|n| n.parse::<i64>().ok())
                .filter(|n| *n > 0)
                .map(Chosen::ExileFromGraveyard),
        }
    }

    /// The tag that tells the mtg rules' `activate_paid` what the player must have, a
    /// property it reads, and the action paying it.
    fn payment(self) -> (&'static str, Option<(String, Value)>, Value) {
        let pick = |zone: &str, tag: Option<&str>, n: i64, prompt: &str, untapped: bool| {
            let mut sel = json!({ "type": "objects", "zone": zone, "owner": "friendly", "pick": { "chosen": n, "prompt": prompt } });
            if let Some(tag) = tag {
                sel["tag"] = json!(tag);
            }
            if untapped {
                sel["where"] = json!({ "not": { "type": "has_tag", "tag": "tapped" } });
            }
            sel
        };
        match self {
            Chosen::DiscardCreature => (
                "discards_creature",
                None,
                json!({ "type": "move", "zone": "graveyard", "to": pick("hand", Some("creature"), 1, "discard a creature card", false) }),
            ),
            Chosen::ExileFromGraveyard(n) => (
                "exiles_from_graveyard",
                Some(("ability_exile_count".into(), json!(n))),
                json!({ "type": "move", "zone": "exile", "to": pick("graveyard", None, n, "exile cards from your graveyard", false) }),
            ),
            Chosen::ReturnForest => (
                "returns_forest",
                None,
                json!({ "type": "move", "zone": "hand", "to": pick("battlefield", Some("forest"), 1, "return a Forest you control to its owner's hand", false) }),
            ),
            Chosen::TapCreature => (
                "taps_creature",
                None,
                json!({ "type": "tag", "tag": "tapped", "to": pick("battlefield", Some("creature"), 1, "tap an untapped creature you control", true) }),
            ),
        }
    }
}

/// Reads `Cost$`: `T`, numbers, `W U B R G C` and `PayLife<N>`; `Err` names the rest.
fn cost(text: &str) -> Result<Cost, String> {
    let mut c = Cost {
        coloured: "wubrgc".chars().map(|k| (k, 0)).collect(),
        ..Cost::default()
    };
    for part in text.split_whitespace() {
        let sac = match part {
            "Sac<1/CARDNAME>" => Some("self"),
            "Sac<1/Creature>" => Some("creature"),
            "Sac<1/Land>" => Some("land"),
            "Sac<1/Artifact>" => Some("artifact"),
            _ => None,
        };
        let sub = part
            .strip_prefix("SubCounter<")
            .and_then(|r| r.strip_suffix('>'))
            .and_then(|r| r.split_once('/'))
            .and_then(|(n, kind)| {
                Some((crate::counters::property_of(kind)?, n.parse::<i64>().ok()?))
            });
        if sub.is_some() && c.counters.is_none() {
            c.counters = sub;
        } else if sac.is_some() && c.sacrifice.is_none() {
            c.sacrifice = sac;
        } else if let Some(chosen) = Chosen::parse(part) {
            c.chosen.push(chosen);
        } else if part == "T" {
            c.taps = true;
        } else if part == "X" && !c.x {
            c.x = true;
        } else if let Ok(n) = part.parse::<i64>() {
            c.generic += n;
        } else if let Some(n) = part
            .strip_prefix("PayLife<")
            .and_then(|r| r.strip_suffix('>'))
            .and_then(|n| n.parse::<i64>().ok())
        {
            c.life += n;
        } else if part.len() == 1 && "WUBRGC".contains(part) {
            let k = part.to_ascii_lowercase().chars().next().unwrap_or('c');
            if let Some(e) = c.coloured.iter_mut().find(|(x, _)| *x == k) {
                e.1 += 1;
            }
        } else {
            return Err(part.to_owned());
        }
    }
    Ok(c)
}

/// Parameters an activated ability may carry that the translation reads or that change
/// nothing here.
const KNOWN: &[&str] = &[
    "AB",
    "Cost",
    "ValidTgts",
    "TgtPrompt",
    "NumDmg",
    "NumCards",
    "NumAtt",
    "NumDef",
    "KW",
    "Defined",
    "Origin",
    "Destination",
    "SpellDescription",
    "StackDescription",
    "AILogic",
    "References",
    "ActivationLimit",
    "ActivationCardsInHand",
    // `CopyPermanent`'s ([`copy_permanent`]).
    "Keywords",
    "AtEOT",
];

/// `ActivationLimit$ 1` (once each turn) and `ActivationCardsInHand$ N` (only with
/// exactly N cards in hand) as the mtg rules' tags and properties; `Err` names another.
fn restrictions(
    a: &Ability,
    tags: &mut Vec<String>,
    props: &mut Vec<(String, Value)>,
) -> Result<(), Vec<String>> {
    match a.params.get("ActivationLimit") {
        None => {}
        Some("1") => tags.push("once_each_turn".into()),
        Some(n) => return Err(vec![format!("A:AB$ with ActivationLimit$ {n}")]),
    }
    // "Activate only as a sorcery" (level up): the rules' `sorcery_speed_ability`.
    match a.params.get("SorcerySpeed") {
        None => {}
        Some("True") => tags.push("sorcery_speed_ability".into()),
        Some(v) => return Err(vec![format!("A:AB$ with SorcerySpeed$ {v}")]),
    }
    match a
        .params
        .get("ActivationCardsInHand")
        .map(|n| n.parse::<i64>())
    {
        None => {}
        Some(Ok(n)) => {
            tags.push("needs_hand_size".into());
            props.push(("ability_hand_size".into(), json!(n)));
        }
        Some(Err(_)) => return Err(vec!["A:AB$ with ActivationCardsInHand$".into()]),
    }
    Ok(())
}

/// Translates one `AB$` line of the card `class`; `Err` lists what it lacks.
pub fn translate(face: &Face, class: &str, a: &Ability) -> Result<Activated, Vec<String>> {
    let api = a.api.as_deref().unwrap_or("?");
    let cost_text = a.params.get("Cost").unwrap_or("");
    let cost = cost(cost_text).map_err(|_| vec![format!("A:AB$ {api} with Cost$ {cost_text}")])?;
    let name = format!("{class}_ab");
    let title = format!("{} (ability)", face.name);
    let (def, mut classes) = ability(face, class, &title, a)?;
    let mut tags = Vec::new();
    let mut props = Vec::new();
    restrictions(a, &mut tags, &mut props)?;
    let free = cost.generic == 0
        && cost.counters.is_none()
        && !cost.x
        && cost.life == 0
        && cost.sacrifice.is_none()
        && cost.chosen.is_empty()
        && cost.coloured.iter().all(|(_, n)| *n == 0);
    let event = if cost.taps && free {
        tags.push("tap_ability".to_owned());
        "activated"
    } else {
        tags.push("paid_ability".to_owned());
        if cost.taps {
            tags.push("ability_taps".to_owned());
        }
        if cost.x {
            tags.push("ability_x".to_owned());
        }
        let mut total = cost.generic;
        props.push(("ability_cost_generic".to_owned(), json!(cost.generic)));
        for (k, n) in &cost.coloured {
            props.push((format!("ability_cost_{k}"), json!(n)));
            total += n;
        }
        props.push(("ability_mana_value".to_owned(), json!(total)));
        if cost.life > 0 {
            props.push(("ability_life".to_owned(), json!(cost.life)));
        }
        "activated_paid"
    };
    // A sacrifice is part of the cost: the permanent (or the one its controller chooses)
    // goes to the graveyard as the ability goes on the stack.
    let mut act = vec![json!({ "type": "create", "class": name, "zone": "stack" })];
    match cost.sacrifice {
        Some("self") => act.push(json!({ "type": "move", "zone": "graveyard", "to": "self" })),
        Some(kind) => {
            tags.push(format!("sacrifices_{kind}"));
            act.insert(
                0,
                json!({ "type": "move", "zone": "graveyard", "to": { "type": "objects", "zone": "battlefield", "tag": kind, "owner": "friendly", "pick": { "chosen": 1, "prompt": format!("sacrifice a {kind}") } } }),
            );
        }
        None => {}
    }
    for chosen in &cost.chosen {
        let (tag, prop, pay) = chosen.payment();
        tags.push(tag.to_owned());
        props.extend(prop);
        act.insert(0, pay);
    }
    // Removing counters (`SubCounter<N/CHARGE>`): the card must have them (its aura
    // keeps `ability_counters` at its count; the rules' `removes_counters`), and its
    // trigger removes them as the ability goes on the stack.
    let mut auras = Vec::new();
    if let Some((key, n)) = cost.counters {
        tags.push("removes_counters".to_owned());
        props.push(("ability_counter_cost".to_owned(), json!(n)));
        auras.push(json!({
            "select": { "type": "objects", "zone": "battlefield", "where": { "type": "is_self" } },
            "modifiers": [{ "key": "ability_counters", "op": "set", "value": format!("target.{key}") }],
            "zones": ["battlefield"],
        }));
        act.insert(
            0,
            json!({ "type": "add", "key": key, "amount": -n, "to": "self" }),
        );
    }
    if tags.iter().any(|t| t == "once_each_turn") {
        act.push(json!({ "type": "tag", "tag": "activated_this_turn", "to": "self" }));
    }
    let card_trigger = json!({
        "when": { "event": event, "target": { "type": "is_self" } },
        "do": act,
    });
    classes.insert(0, (name, def));
    Ok(Activated {
        card_trigger,
        classes,
        tags,
        props,
        auras,
    })
}

/// An ability's class (and the classes its effect needs): with `ValidTgts$` it chooses a
/// target when created and acts on it, else it acts without one.
pub fn ability(
    face: &Face,
    class: &str,
    title: &str,
    a: &Ability,
) -> Result<(Value, Vec<(String, Value)>), Vec<String>> {
    let api = a.api.as_deref().unwrap_or("?");
    if api == "Charm" {
        return crate::charm_ability::ability(face, class, title, a);
    }
    if api == "Effect" {
        return crate::emblem::ability(face, class, title, a);
    }
    let Some(valid) = a.params.get("ValidTgts") else {
        if api == "Pump" && matches!(a.params.get("Defined"), None | Some("Self")) {
            let extra: Vec<String> = a
                .params
                .keys_outside(KNOWN)
                .map(|k| format!("A:AB$ Pump with {k}$"))
                .collect();
            if !extra.is_empty() {
                return Err(extra);
            }
            let this = json!({ "type": "object", "object": "self.source_card", "where": { "type": "in_zone", "zone": "battlefield" } });
            let pump = pump(face, a, this)?;
            return Ok((
                ability_class(title, None, "spell_target", vec![pump]),
                Vec::new(),
            ));
        }
        let mut plain = a.clone();
        // The cost is paid on activation; the references name SVars the effect reads.
        plain.params.0.retain(|(k, _)| {
            !matches!(
                k.as_str(),
                "Cost"
                    | "References"
                    | "ActivationLimit"
                    | "ActivationCardsInHand"
                    | "SorcerySpeed"
            )
        });
        let e = crate::effect::untargeted(face, class, &plain).map_err(|m| {
            m.into_iter()
                .map(|m| format!("A:AB$ {m}"))
                .collect::<Vec<_>>()
        })?;
        return Ok((
            ability_class(title, None, "spell_target", e.actions),
            e.classes,
        ));
    };
    let mut missing: Vec<String> = a
        .params
        .keys_outside(KNOWN)
        .chain(
            ["Keywords", "AtEOT"]
                .into_iter()
                .filter(|k| api != "CopyPermanent" && a.params.get(k).is_some()),
        )
        .map(|k| format!("A:AB$ {api} with {k}$"))
        .collect();
    let prompt = a.params.get("TgtPrompt").unwrap_or("Select a target");
    let (from, legal, props, players) = if crate::target::is_plain(valid) {
        let mut from = Vec::new();
        for t in valid.split(',') {
            from.push(match t.trim() {
                "Creature" => json!({ "type": "objects", "zone": "battlefield", "tag": "creature", "where": { "ref": "targetable_by_me" } }),
                _ => json!({ "type": "players" }),
            });
        }
        (from, "spell_target", Vec::new(), valid.contains("Player"))
    } else {
        match crate::target::permanent(valid) {
            Ok(p) => (
                vec![
                    json!({ "type": "objects", "zone": "battlefield", "tag": "permanent", "where": { "ref": "legal_permanent_target" } }),
                ],
                "permanent_target",
                p,
                false,
            ),
            Err(m) => return Err(vec![format!("A:AB$ {api} {m}")]),
        }
    };
    let at = json!({ "ref": legal });
    let effect = match api {
        "DealDamage" => match number(a.params.get("NumDmg")) {
            Some(n) => json!({ "type": "damage", "amount": n, "source": "self", "to": at }),
            None => {
                missing.push(format!("A:AB$ {api} without a number"));
                Value::Null
            }
        },
        "Draw" if players && !valid.contains("Creature") => {
            match number(a.params.get("NumCards").or(Some("1"))) {
                Some(n) => json!({ "type": "emit", "event": "draw", "count": n, "to": at }),
                None => {
                    missing.push(format!("A:AB$ {api} NumCards$"));
                    Value::Null
                }
            }
        }
        // Mill (701.17): the target player's top cards go to their graveyard.
        "Mill"
            if players
                && !valid.contains("Creature")
                && matches!(a.params.get("Destination"), None | Some("Graveyard")) =>
        {
            match number(a.params.get("NumCards").or(Some("1"))) {
                Some(n) => json!({ "type": "emit", "event": "mill", "count": n, "to": at }),
                None => {
                    missing.push(format!("A:AB$ {api} NumCards$"));
                    Value::Null
                }
            }
        }
        "Destroy" | "Tap" | "Untap" if !players => crate::target::act_on(api, at),
        // "Attach CARDNAME to target creature you control" (Cranial Plating): the card, if
        // still on the battlefield, is attached to it (the rules' Equipment, equipment.toml).
        "Attach"
            if !players
                && props
                    .iter()
                    .all(|(k, _)| k == "tgt_creature" || k == "tgt_yours")
                && matches!(a.params.get("Defined"), None | Some("Self")) =>
        {
            json!({ "type": "attach", "parent": at,
                "to": { "type": "object", "object": "self.source_card", "where": { "type": "in_zone", "zone": "battlefield" } } })
        }
        "Pump"
            if !players
                && !props.iter().any(|(k, _)| {
                    k != "tgt_creature"
                        && !k.starts_with("tgt_not")
                        && k != "tgt_yours"
                        && k != "tgt_opponents"
                }) =>
        {
            match pump(face, a, at) {
                Ok(p) => p,
                Err(m) => {
                    missing.extend(m);
                    Value::Null
                }
            }
        }
        "CopyPermanent" if !players => copy_permanent(a, at.clone()).unwrap_or_else(|m| {
            missing.push(m);
            Value::Null
        }),
        "ChangeZone" if !players && a.params.get("Origin") == Some("Battlefield") => {
            match crate::effect::zone(a.params.get("Destination")).filter(|z| *z != "battlefield") {
                Some(zone) => json!({ "type": "move", "zone": zone, "to": at }),
                None => {
                    missing.push(format!(
                        "A:AB$ ChangeZone to {}",
                        a.params.get("Destination").unwrap_or("?")
                    ));
                    Value::Null
                }
            }
        }
        other => {
            missing.push(format!("A:AB$ {other} at ValidTgts$ {valid}"));
            Value::Null
        }
    };
    if !missing.is_empty() {
        return Err(missing);
    }
    let choose = json!({ "from": from, "pick": { "chosen": 1, "prompt": prompt } });
    let mut def = ability_class(title, Some(choose), legal, vec![effect]);
    for (k, v) in props {
        def["properties"][k] = v;
    }
    Ok((def, Vec::new()))
}

/// `CopyPermanent | Keywords$ Haste | AtEOT$ Sacrifice` at `to` ("create a token that's a
/// copy of target creature; it has haste; sacrifice it at the beginning of the next end
/// step": Kiki-Jiki): a token of the target's class (707.2) for the ability's controller,
/// summoning sick unless it has haste, tagged `sacrificed_at_end_step` for the mtg rules.
fn copy_permanent(a: &Ability, to: Value) -> Result<Value, String> {
    let mut tags = vec!["token".to_owned(), "sick".to_owned()];
    let keywords = crate::keywords::tags_of(a.params.get("Keywords").unwrap_or(""))
        .map_err(|kw| format!("A:AB$ CopyPermanent Keywords$ {kw}"))?;
    tags.extend(keywords.iter().map(|t| (*t).to_owned()));
    match a.params.get("AtEOT") {
        None => {}
        Some("Sacrifice") => tags.push("sacrificed_at_end_step".to_owned()),
        Some(other) => return Err(format!("A:AB$ CopyPermanent AtEOT$ {other}")),
    }
    Ok(
        json!({ "type": "create", "class_of": to, "zone": "battlefield", "owner": "self.owner", "tags": tags }),
    )
}

/// `Pump | NumAtt$ +N | NumDef$ +M | KW$ Flying`: the creature `to` gets them until end
/// of turn (`+X`: the X paid, which the ability keeps as `x_paid`).
pub(crate) fn pump(face: &Face, a: &Ability, to: Value) -> Result<Value, Vec<String>> {
    let mut modifiers = Vec::new();
    let mut missing = Vec::new();
    for (param, key) in [("NumAtt", "power"), ("NumDef", "max_health")] {
        let text = a.params.get(param).map(|t| t.trim_start_matches('+'));
        // A counted amount is the ability's (`self`), which a frozen aura sees as its
        // giver (`source`).
        let counted = crate::effect::amount(face, text).map(|v| match v.as_str() {
            Some(e) => json!(e.replace("self.", "source.")),
            None => v,
        });
        match (a.params.get(param), counted) {
            (None, _) => {}
            (Some(_), Some(n)) => modifiers.push(json!({ "key": key, "op": "add", "value": n })),
            (Some(t), None) => missing.push(format!("A:AB$ Pump {param}$ {t}")),
        }
    }
    match crate::keywords::tags_of(a.params.get("KW").unwrap_or("")) {
        Ok(tags) => modifiers.extend(tags.iter().map(|t| json!({ "key": t, "op": "tag" }))),
        Err(kw) => missing.push(format!("A:AB$ Pump KW$ {kw}")),
    }
    if !missing.is_empty() {
        return Err(missing);
    }
    let aura = json!({ "modifiers": modifiers, "until": "cleanup" });
    // (The values are frozen when it is given: `+X` is the ability's X.)
    Ok(json!({ "type": "give_aura", "freeze": true, "aura": aura, "to": to }))
}
