//! Triggers of the card itself: "when this enters the battlefield" (`T:Mode$ ChangesZone
//! | Destination$ Battlefield | ValidCard$ Card.Self | Execute$ X`), "when this leaves
//! the battlefield" (`Origin$ Battlefield | Destination$ Any`; "when this dies" with
//! `Destination$ Graveyard`, heard in the graveyard) and "whenever this
//! attacks" (`T:Mode$ Attacks | ValidCard$ Card.Self`). The card gets
//! a trigger that puts an ability object (class `<card>_etb` / `<card>_ltb`) on the
//! stack; the mtg rules' priority passing resolves it like a spell. `X` ([`crate::effect`])
//! either aims at a creature — `DB$ Destroy`, `DealDamage | NumDmg$ N`, `ChangeZone |
//! Destination$ Hand` with `ValidTgts$ Creature[.filter]`: the ability chooses its
//! target when it is created and re-checks it on resolution (an illegal target: it
//! fizzles) — or has no target (`GainLife`, `ChangeZoneAll`, `Token`).

use forge_script::{Ability, Face};
use serde_json::{json, Map, Value};

use crate::effect::{untargeted, Effect};
use crate::moment::Moment;

/// The card's trigger and the classes to add (its ability, and a token's class).
pub struct Triggered {
    /// The triggers of the card itself.
    pub card_triggers: Vec<Value>,
    /// The ability class (first) and any token class, by name.
    pub classes: Vec<(String, Value)>,
}

/// Translates the `index`-th `T:` line of the card `class`; `Err` lists what it lacks.
pub fn translate(
    face: &Face,
    class: &str,
    index: usize,
    t: &Ability,
) -> Result<Triggered, Vec<String>> {
    let mode = t.api.as_deref().unwrap_or("?");
    let moment = crate::moment::of(t);
    let known = [
        "Mode",
        "Origin",
        "Destination",
        "ValidCard",
        "Execute",
        "TriggerDescription",
        "TriggerController",
        "TriggerZones",
        "Phase",
        "ValidPlayer",
        "ValidActivatingPlayer",
        "ValidSource",
        "ValidTarget",
        "LifeTotal",
        "LifeAmount",
        "CombatDamage",
        "IsPresent",
        "PresentZone",
        "PresentCompare",
        // A hint for Forge's display: the trigger is not the card's main one.
        "Secondary",
    ];
    let controller_ok = matches!(
        t.params.get("TriggerController"),
        None | Some("TriggeredCardController")
    );
    // "At the beginning of your upkeep, if CARDNAME is in your graveyard" (Ichorid): the
    // card hears it in its graveyard.
    let in_graveyard = t.params.get("TriggerZones") == Some("Graveyard")
        && matches!(moment, Some(Moment::Upkeep | Moment::EndStep { .. }));
    let zones_ok =
        matches!(t.params.get("TriggerZones"), None | Some("Battlefield")) || in_graveyard;
    let (Some(moment), true, true) = (moment, controller_ok, zones_ok) else {
        return Err(vec![format!("T:Mode$ {mode}")]);
    };
    let cast = match (moment, t.params.get("ValidCard")) {
        (Moment::SpellCast, Some(v)) => {
            Some(crate::valid::condition(v, "T:Mode$ SpellCast ValidCard$").map_err(|m| vec![m])?)
        }
        (Moment::SpellCast, None) => Some(json!({ "type": "has_tag", "tag": "card" })),
        _ => None,
    };
    let Some(exec) = t
        .params
        .get("Execute")
        .and_then(|n| face.svar(n))
        .and_then(|s| s.ability.as_ref())
    else {
        return Err(vec![format!("T:Mode$ {mode} without an Execute$ ability")]);
    };
    // "You may pay a cost. If you do, ..." ([`crate::trigger_cost`]).
    let paid = match crate::trigger_cost::split_cost(exec) {
        Some(split) if t.params.get("OptionalDecider") == Some("You") => Some(split),
        _ => None,
    };
    let exec = paid.as_ref().map_or(exec, |(plain, _)| plain);
    // "You may return target card ..." / "you may search your library for ..." / "you
    // may add mana": taking it is never worse, so the rules always do (a "may" of any other effect stays
    // missing).
    let may_return = exec.api.as_deref() == Some("ChangeZone")
        && exec.params.get("Origin") == Some("Graveyard")
        && exec.params.get("Destination") == Some("Hand")
        && exec.params.get("ValidTgts").is_some();
    let may_search = exec.api.as_deref() == Some("ChangeZone")
        && exec.params.get("Origin") == Some("Library")
        && exec.params.get("ValidTgts").is_none();
    // Adding mana is never worse either (no mana burn).
    let may_add_mana = exec.api.as_deref() == Some("Mana");
    if t.params.0.iter().any(|(k, _)| {
        !known.contains(&k.as_str())
            && !(k == "OptionalDecider"
                && (t.params.get(k) == Some("You") || may_return || may_search || may_add_mana))
    }) {
        return Err(vec![format!("T:Mode$ {mode}")]);
    }
    let kind = match moment {
        Moment::Enters => "etb",
        Moment::Leaves => "ltb",
        Moment::Dies => "dies",
        Moment::Attacks => "attack",
        Moment::Upkeep => "upkeep",
        Moment::SpellCast => "cast",
        Moment::AttacksAny => "attack_any",
        Moment::Damaged => "damaged",
        Moment::DamagesOpponent => "damage",
        Moment::OpponentCreatureDies => "opponent_dies",
        Moment::Landfall => "landfall",
        Moment::OpponentDraws => "opponent_draws",
        Moment::DrawStep { .. } => "draw_step",
        Moment::EndStep { .. } => "end_step",
        Moment::DealsDamage { .. } => "deals_damage",
        Moment::Unblocked => "unblocked",
    };
    let earlier = face.triggers[..index]
        .iter()
        .filter(|e| e.api == t.api && e.params.get("Origin") == t.params.get("Origin"))
        .count();
    let ability = match earlier {
        0 => format!("{class}_{kind}"),
        n => format!("{class}_{kind}{n}"),
    };
    let mut legal = "etb_target";
    let (choose, effect) = if may_return {
        legal = "graveyard_target";
        let (choose, effect) = from_graveyard(exec)?;
        (Some(choose), effect)
    } else if exec.params.get("ValidTgts") == Some("Planeswalker.ControlledBy TriggeredTarget") {
        legal = "planeswalker_target";
        let (choose, effect) = at_damaged_players_planeswalker(face, exec)?;
        (Some(choose), effect)
    } else if exec.params.get("ValidTgts").is_some() {
        let (choose, effect) = targeted(face, exec)?;
        (Some(choose), effect)
    } else {
        (None, untargeted(face, class, exec)?)
    };
    let Effect {
        mut actions,
        classes,
    } = effect;
    // "You may ...": its controller chooses as it resolves (the cases above, never worse,
    // are always taken).
    if let Some((_, cost)) = &paid {
        actions = crate::trigger_cost::may_pay(&face.name, cost, actions).map_err(|m| vec![m])?;
    } else if t.params.get("OptionalDecider") == Some("You")
        && !(may_return || may_search || may_add_mana)
    {
        actions = vec![
            json!({ "type": "choose_mode", "prompt": format!("{}: do it?", face.name), "modes": [
            { "label": "yes", "do": actions },
            { "label": "no", "do": [] },
        ] }),
        ];
    }
    let title = match moment {
        Moment::Enters => format!("{} (enters the battlefield)", face.name),
        Moment::Leaves => format!("{} (leaves the battlefield)", face.name),
        Moment::Dies => format!("{} (dies)", face.name),
        Moment::Attacks => format!("{} (attacks)", face.name),
        Moment::Upkeep => format!("{} (upkeep)", face.name),
        Moment::SpellCast => format!("{} (a spell is cast)", face.name),
        Moment::AttacksAny => format!("{} (a creature attacks)", face.name),
        Moment::Damaged => format!("{} (is dealt damage)", face.name),
        Moment::DamagesOpponent => format!("{} (deals damage to an opponent)", face.name),
        Moment::OpponentCreatureDies => {
            format!("{} (a creature an opponent controls dies)", face.name)
        }
        Moment::Landfall => format!("{} (a land enters)", face.name),
        Moment::OpponentDraws => format!("{} (an opponent draws a card)", face.name),
        Moment::DrawStep { .. } => format!("{} (draw step)", face.name),
        Moment::EndStep { .. } => format!("{} (end step)", face.name),
        Moment::DealsDamage { equipped: true, .. } => {
            format!("{} (equipped creature deals damage)", face.name)
        }
        Moment::DealsDamage { .. } => format!("{} (deals damage)", face.name),
        Moment::Unblocked => format!("{} (attacks and isn't blocked)", face.name),
    };
    let def = ability_class(&title, choose, legal, actions);
    let mut create = json!([{ "type": "create", "class": ability, "zone": "stack" }]);
    // "If ..." (603.4): the trigger happens only while the condition holds.
    if let Some(cond) = intervening_if(t)? {
        create = json!([{ "type": "if", "condition": cond, "then": create }]);
    }
    let mut card_triggers = crate::moment::card_triggers(moment, &create, cast);
    if in_graveyard {
        for trigger in &mut card_triggers {
            trigger["zones"] = json!(["graveyard"]);
        }
    }
    let mut all = vec![(ability, def)];
    all.extend(classes);
    Ok(Triggered {
        card_triggers,
        classes: all,
    })
}

/// A trigger's intervening "if" (603.4), tested on the card: `LifeTotal$ You |
/// LifeAmount$ GE40` (its controller's life), `IsPresent$ Card.Self+untapped` (the card is
/// untapped), `IsPresent$ Card.YouCtrl | PresentZone$ Hand | PresentCompare$ GT4` (cards in
/// its controller's hand), `IsPresent$ Creature | PresentCompare$ EQ0` (creatures on the
/// battlefield). `Err` names a condition the rules cannot test.
fn intervening_if(t: &Ability) -> Result<Option<Value>, Vec<String>> {
    let p = |k: &str| t.params.get(k);
    let compare = crate::valid::comparison;
    let mut all = Vec::new();
    // "If it was kicked" / "if it was evoked" (costs.toml: `kicked`, `alt_paid`).
    match p("ValidCard") {
        Some("Card.Self+kicked") => {
            all.push(json!({ "type": "compare", "left": "self.kicked", "op": ">", "right": 0 }))
        }
        Some("Card.Self+evoked") => {
            all.push(json!({ "type": "compare", "left": "self.alt_paid", "op": ">", "right": 0 }))
        }
        _ => {}
    }
    match (p("LifeTotal"), p("LifeAmount").and_then(compare)) {
        (None, None) if p("LifeAmount").is_none() => {}
        (Some("You"), Some((op, n))) => all
            .push(json!({ "type": "compare", "left": "self.owner.health", "op": op, "right": n })),
        _ => return Err(vec!["T: with LifeTotal$".into()]),
    }
    match (
        p("IsPresent"),
        p("PresentZone"),
        p("PresentCompare").and_then(compare),
    ) {
        (None, None, None) if p("PresentCompare").is_none() => {}
        (Some("Card.Self+untapped"), None, None) if p("PresentCompare").is_none() => {
            all.push(json!({ "not": { "type": "has_tag", "tag": "tapped" } }));
        }
        // "If no creatures are on the battlefield" (Pestilence).
        (Some("Creature"), None, Some((op, n))) => all.push(
            json!({ "type": "compare", "left": "count(all_creatures)", "op": op, "right": n }),
        ),
        (Some("Card.YouCtrl"), Some("Hand"), Some((op, n))) => {
            all.push(json!({ "type": "compare", "left": "count(my_hand)", "op": op, "right": n }))
        }
        _ => {
            return Err(vec![format!(
                "T: with IsPresent$ {}",
                p("IsPresent").unwrap_or("(none)")
            )])
        }
    }
    Ok((!all.is_empty()).then(|| Value::Array(all)))
}

/// "Return target card from your graveyard to your hand" (`ChangeZone | Origin$ Graveyard |
/// Destination$ Hand | ValidTgts$ Card.YouCtrl`): the card is chosen among its
/// controller's graveyard as the ability is created, and must still be there when it
/// resolves (`graveyard_target`).
fn from_graveyard(exec: &Ability) -> Result<(Value, Effect), Vec<String>> {
    let extra: Vec<String> = exec
        .params
        .keys_outside(&[
            "AB",
            "DB",
            "Cost",
            "Origin",
            "Destination",
            "ValidTgts",
            "TgtPrompt",
        ])
        .map(|k| format!("ChangeZone from Graveyard with {k}$"))
        .collect();
    if !extra.is_empty() || exec.params.get("Cost").is_some_and(|c| c != "0") {
        return Err(extra);
    }
    let filter = crate::valid::condition(
        exec.params.get("ValidTgts").unwrap_or("Card"),
        "ChangeZone from Graveyard ValidTgts$",
    )
    .map_err(|m| vec![m])?;
    let prompt = exec
        .params
        .get("TgtPrompt")
        .unwrap_or("Select target card in your graveyard");
    let choose = json!({ "type": "objects", "zone": "graveyard", "owner": "friendly", "where": filter, "pick": { "chosen": 1, "prompt": prompt } });
    let effect = json!({ "type": "move", "zone": "hand", "to": { "ref": "graveyard_target" } });
    Ok((
        choose,
        Effect {
            actions: vec![effect],
            classes: Vec::new(),
        },
    ))
}

/// A targeted trigger's ability: its target selector (chosen on creation) and effect.
fn targeted(face: &Face, exec: &Ability) -> Result<(Value, Effect), Vec<String>> {
    let api = exec.api.as_deref().unwrap_or("?");
    let mut missing = Vec::new();
    let blink = returns_remembered(face, exec);
    let allowed = [
        "DB",
        "ValidTgts",
        "TgtPrompt",
        "NumDmg",
        "NoRegen",
        "Origin",
        "Destination",
    ];
    let blink_keys = [
        "AB",
        "Cost",
        "RememberTargets",
        "ForgetOtherTargets",
        "SubAbility",
    ];
    for (k, _) in &exec.params.0 {
        let key = k.as_str();
        if !(allowed.contains(&key) || blink && blink_keys.contains(&key)) {
            missing.push(format!("ETB DB$ {api} with {k}$"));
        }
    }
    let filter = target_filter(exec.params.get("ValidTgts"), &mut missing);
    let target = json!({ "type": "object", "object": "self.chosen", "where": filter.clone() });
    let effect = match api {
        "Destroy" => json!({ "type": "destroy", "to": target }),
        "DealDamage" => match exec
            .params
            .get("NumDmg")
            .and_then(|n| n.parse::<i64>().ok())
        {
            Some(n) => json!({ "type": "damage", "amount": n, "source": "self", "to": target }),
            None => {
                missing.push("ETB DB$ DealDamage without a number".into());
                Value::Null
            }
        },
        "ChangeZone"
            if exec.params.get("Destination") == Some("Hand")
                && exec.params.get("Origin") == Some("Battlefield") =>
        {
            json!({ "type": "move", "zone": "hand", "to": target })
        }
        // Exiled, then returned to the battlefield by the mtg rules' `return_from_exile`
        // once its leaving is handled (a new object, 400.7: untapped, undamaged, summoning
        // sick; its enters-the-battlefield triggers fire again).
        "ChangeZone" if blink => {
            json!({ "type": "if", "to": target, "condition": { "type": "in_zone", "zone": "battlefield" }, "then": [
            { "type": "move", "zone": "exile" },
            { "type": "emit", "event": "return_from_exile" },
        ] })
        }
        other => {
            missing.push(format!("ETB DB$ {other}"));
            Value::Null
        }
    };
    if !missing.is_empty() {
        return Err(missing);
    }
    let prompt = exec
        .params
        .get("TgtPrompt")
        .unwrap_or("Select target creature");
    let choose = json!({ "type": "objects", "zone": "battlefield", "tag": "creature", "where": filter, "pick": { "chosen": 1, "prompt": prompt } });
    Ok((
        choose,
        Effect {
            actions: vec![effect],
            classes: Vec::new(),
        },
    ))
}

/// `AB$ ChangeZone | Origin$ Battlefield | Destination$ Exile | RememberTargets$ True |
/// SubAbility$ X`, `X` = `DB$ ChangeZone | Defined$ Remembered | Origin$ Exile |
/// Destination$ Battlefield [| GainControl$ True]`: "exile target creature, then return
/// it to the battlefield under your control" (Restoration Angel; the targets are the
/// trigger's controller's creatures, so control does not change).
fn returns_remembered(face: &Face, exec: &Ability) -> bool {
    let p = |k: &str| exec.params.get(k);
    let exiles = exec.api.as_deref() == Some("ChangeZone")
        && p("Origin") == Some("Battlefield")
        && p("Destination") == Some("Exile")
        && p("RememberTargets") == Some("True")
        && matches!(p("Cost"), None | Some("0"))
        && p("ValidTgts").is_some_and(|v| v.contains("YouCtrl"));
    let returns = p("SubAbility")
        .and_then(|n| face.svar(n))
        .and_then(|s| s.ability.as_ref())
        .is_some_and(|r| {
            r.api.as_deref() == Some("ChangeZone")
                && r.params.get("Defined") == Some("Remembered")
                && r.params.get("Origin") == Some("Exile")
                && r.params.get("Destination") == Some("Battlefield")
                && r.params.0.iter().all(|(k, v)| match k.as_str() {
                    "DB" | "Defined" | "Origin" | "Destination" => true,
                    "GainControl" => v == "True",
                    _ => false,
                })
        });
    exiles && returns
}

/// An ability object's class. With a target (`choose`, a selector with a chosen pick) it
/// chooses it when it is created, and when it resolves on the stack acts if its target
/// is still legal (`count(legal_ref)`), else fizzles; without one it just acts. Then it
/// leaves the stack.
pub fn ability_class(
    title: &str,
    choose: Option<Value>,
    legal_ref: &str,
    effect: Vec<Value>,
) -> Value {
    let mut props = Map::new();
    props.insert("title".into(), json!(title));
    let mut triggers = Vec::new();
    // The ability remembers the card that made it (`source_card`: "CARDNAME gets +1/+0").
    // It keeps the X its card's cost was paid with (`x_paid`: Kessig Wolf Run's +X/+0).
    let mut on_create = vec![
        json!({ "type": "link", "key": "source_card", "object": { "type": "object", "object": "event.source" } }),
        json!({ "type": "set", "key": "x_paid", "value": "self.source_card.ability_x_paid" }),
    ];
    let mut resolve = match choose {
        Some(choose) => {
            on_create.push(json!({ "type": "link", "key": "chosen", "object": choose }));
            vec![
                json!({ "type": "if", "condition": { "type": "compare", "left": format!("count({legal_ref})"), "op": "==", "right": 0 },
                  "then": [{ "type": "emit", "event": "fizzled", "to": "self" }],
                  "else": effect }),
            ]
        }
        None => effect,
    };
    resolve.push(json!({ "type": "move", "zone": "resolved", "to": "self" }));
    triggers.push(
        json!({ "when": { "event": "core:event/created", "target": { "type": "is_self" } }, "do": on_create }),
    );
    triggers.push(
        json!({ "when": { "event": "resolve", "target": { "type": "is_self" } },
      "zones": ["stack"],
      "do": resolve }),
    );
    json!({
        "properties": Value::Object(props),
        "tags": ["ability"],
        "trigger": triggers,
    })
}

/// `Creature`, `Creature.OppCtrl`, `Creature.nonArtifact+nonBlack` → the conditions a
/// target must meet (on the battlefield, a creature, and the filter).
fn target_filter(valid: Option<&str>, missing: &mut Vec<String>) -> Value {
    let mut all = vec![
        json!({ "type": "in_zone", "zone": "battlefield" }),
        json!({ "type": "has_tag", "tag": "creature" }),
        json!({ "ref": "targetable_by_me" }),
    ];
    let Some(v) = valid else {
        missing.push("ETB ability without ValidTgts$".into());
        return Value::Array(all);
    };
    let (base, props) = v.split_once('.').unwrap_or((v, ""));
    if base != "Creature" || v.contains(',') {
        missing.push(format!("ETB ValidTgts$ {v}"));
    }
    for p in props.split('+').filter(|p| !p.is_empty()) {
        match p {
            "OppCtrl" => all.push(json!({ "type": "owned_by", "owner": "enemy" })),
            "YouCtrl" => all.push(json!({ "type": "owned_by", "owner": "friendly" })),
            _ => match p.strip_prefix("non") {
                Some(t) if !t.is_empty() => {
                    all.push(json!({ "not": { "type": "has_tag", "tag": crate::card::slug(t) } }));
                }
                _ => missing.push(format!("ETB ValidTgts$ filter .{p}")),
            },
        }
    }
    Value::Array(all)
}

/// `DealDamage | ValidTgts$ Planeswalker.ControlledBy TriggeredTarget | NumDmg$ X`
/// ("it deals that much damage to target planeswalker that player controls": Questing
/// Beast): the planeswalker is chosen among those of the player the trigger's damage was
/// dealt to (`triggered_target`) as the ability is created, and must still be a
/// planeswalker on the battlefield as it resolves (`planeswalker_target`).
fn at_damaged_players_planeswalker(
    face: &Face,
    exec: &Ability,
) -> Result<(Value, Effect), Vec<String>> {
    let mut missing: Vec<String> = exec
        .params
        .keys_outside(&["DB", "AB", "ValidTgts", "TgtPrompt", "NumDmg", "References"])
        .map(|k| format!("DealDamage to a planeswalker with {k}$"))
        .collect();
    if exec.api.as_deref() != Some("DealDamage")
        || exec.params.get("Cost").is_some_and(|c| c != "0")
    {
        missing.push(format!(
            "{} at a planeswalker",
            exec.api.as_deref().unwrap_or("?")
        ));
    }
    let amount = crate::effect::amount(face, exec.params.get("NumDmg"));
    let Some(amount) = amount.filter(|_| missing.is_empty()) else {
        missing.push("DealDamage to a planeswalker without an amount".into());
        return Err(missing);
    };
    let prompt = exec
        .params
        .get("TgtPrompt")
        .unwrap_or("Select target planeswalker");
    let choose = json!({ "type": "objects", "zone": "battlefield", "tag": "planeswalker",
        "where": [{ "type": "owned_by", "by": "self.triggered_target" }, { "ref": "targetable_by_me" }],
        "pick": { "chosen": 1, "prompt": prompt } });
    let effect = json!({ "type": "damage", "amount": amount, "source": "self", "to": { "ref": "planeswalker_target" } });
    Ok((
        choose,
        Effect {
            actions: vec![effect],
            classes: Vec::new(),
        },
    ))
}
