//! Instants and sorceries with one target: `SP$ DealDamage` (N damage to a creature or
//! player), `SP$ Pump` (+N/+M and keywords until end of turn), `SP$ Counter` (a spell
//! on the stack goes to its owner's graveyard; with `UnlessCost$ N`, unless its owner
//! pays {N}: the mtg mod's `unless.toml`) and `SP$ ChangeZone | Origin$ Battlefield |
//! Destination$ Exile` (or hand, graveyard), optionally followed by `SubAbility$` → `DB$
//! GainLife` (you gain N life; or, with `Defined$ RememberedController | LifeAmount$ X`
//! and `X` = `RememberedLKI$CardPower`, the target's controller gains its power as it
//! last was on the battlefield: Swords to Plowshares). Each becomes a trigger on the mtg
//! mod's `resolve` event that acts on the target chosen on cast (re-checked: an illegal
//! target makes the spell fizzle) and then puts the card into its owner's graveyard.
//! Spells without a target (`SP$ DestroyAll`, `GainLife`, `Token`, `ChangeZoneAll`,
//! [`crate::effect`]) are tagged `untargeted` and just act.

use forge_script::{Ability, Face};
use serde_json::{json, Value};

use crate::card::KEYWORDS;
use crate::effect::number;

/// A spell's trigger and the tags saying what it may target, or what it lacks.
pub struct Spell {
    /// `targets_creature` / `targets_player`, or `untargeted`.
    pub tags: Vec<String>,
    /// The class trigger that resolves it.
    pub trigger: Value,
    /// Classes its effect needs (a token's).
    pub classes: Vec<(String, Value)>,
    /// Properties of the card: what a permanent target may be ([`crate::target`]).
    pub props: Vec<(String, Value)>,
}

/// The spell APIs without a target ([`crate::effect::untargeted`]).
const UNTARGETED: &[&str] = &[
    "DestroyAll",
    "DamageAll",
    "ChangeZoneAll",
    "Token",
    "GainLife",
    "Draw",
    "PumpAll",
    "ChangeZone",
    "AddTurn",
    "Fog",
    "Scry",
    "Discard",
    "Dig",
    // "Add {B}{B}{B}" (Dark Ritual): mana into its caster's pool as it resolves.
    "Mana",
];

/// Translates the card's `SP$` line (`a`) of the card `class`; `Err` lists the
/// constructs it lacks.
pub fn translate(face: &Face, class: &str, a: &Ability) -> Result<Spell, Vec<String>> {
    let api = a.api.as_deref().unwrap_or("?");
    // The spell's `Cost$` is its mana cost (paid from `ManaCost` on cast); anything more
    // (`Sac<1/Artifact>`: Tinker) is an additional cost the rules do not pay yet.
    let extra_cost: Vec<&str> = a
        .params
        .get("Cost")
        .unwrap_or("")
        .split_whitespace()
        .filter(|c| c.parse::<u32>().is_err() && !(c.len() == 1 && "WUBRGCX".contains(*c)))
        .collect();
    if !extra_cost.is_empty() {
        return Err(vec![format!(
            "A:SP$ {api} with an additional cost {}",
            extra_cost.join(" ")
        )]);
    }
    if UNTARGETED.contains(&api) && a.params.get("ValidTgts").is_none() {
        return untargeted(face, class, a);
    }
    let mut missing = Vec::new();
    let known = [
        "SP",
        "Cost",
        "ValidTgts",
        "TgtPrompt",
        "NumDmg",
        "NumAtt",
        "NumDef",
        "KW",
        "SpellDescription",
        "SubAbility",
        "AILogic",
        "TargetType",
        "Origin",
        "Destination",
        "RememberLKI",
        "StackDescription",
        "NumCards",
        // No regeneration exists in the rules: "it can't be regenerated" changes nothing.
        "NoRegen",
        "Mode",
        "DiscardValid",
        "CounterType",
        "CounterNum",
        "ChangeType",
        "UnlessCost",
        "LibraryPosition",
        "Shuffle",
        // The SVars the amounts read (`NumDmg$ X`).
        "References",
    ];
    for (k, _) in &a.params.0 {
        if !known.contains(&k.as_str()) {
            missing.push(format!("A:SP$ {api} with {k}$"));
        }
    }
    let (tags, props) = targets(a, api, &mut missing);
    let from_graveyard = tags.iter().any(|t| t == "targets_graveyard_card");
    let at = if tags.iter().any(|t| t == "targets_permanent") {
        "permanent_target"
    } else if from_graveyard {
        "graveyard_card_target"
    } else {
        "spell_target"
    };
    let creatures_only = props.iter().all(|(k, _)| {
        k != "tgt_permanent"
            && !matches!(k.as_str(), "tgt_artifact" | "tgt_enchantment" | "tgt_land")
    });
    let mut effect = match api {
        "DealDamage" => deal_damage(face, a, &mut missing),
        "Pump" => pump(a, &tags, creatures_only, at, &mut missing),
        // Into its owner's graveyard, or their hand (`Destination$ Hand`: Remand).
        "Counter" => {
            let zone = match a.params.get("Destination") {
                Some("Hand") => "hand",
                _ => "graveyard",
            };
            // A spell that can't be countered (`uncounterable`) stays on the stack.
            vec![json!({ "type": "if", "to": { "ref": "spell_target" },
                "condition": { "not": { "type": "has_tag", "tag": "uncounterable" } },
                "then": crate::asks::counter(a, zone, &mut missing) })]
        }
        "ChangeZone" => change_zone(a, &tags, at, &mut missing),
        "Draw" => crate::players::draw(a, &tags, &mut missing),
        "Discard" => crate::players::discard(face, a, &tags, &mut missing),
        // "Put N +1/+1 counters on target creature" (Jund Charm).
        "PutCounter" if creatures_only && tags.iter().all(|t| t == "targets_creature") => {
            crate::counters::put_on_target(a, json!({ "ref": at })).unwrap_or_else(|m| {
                missing.push(m);
                Vec::new()
            })
        }
        // "Exile all cards from target player's graveyard" (Jund Charm).
        "ChangeZoneAll" if tags == ["targets_player"] => crate::mass::player_graveyard(a)
            .unwrap_or_else(|m| {
                missing.push(m);
                Vec::new()
            }),
        "Destroy" | "Tap" | "Untap"
            if tags
                .iter()
                .all(|t| t == "targets_permanent" || t == "targets_creature") =>
        {
            vec![crate::target::act_on(api, json!({ "ref": at }))]
        }
        other => {
            missing.push(format!("A:SP$ {other}"));
            Vec::new()
        }
    };
    if let Some(sub) = a.params.get("SubAbility") {
        let (actions, lki) = crate::sub_ability::sub_ability(face, sub, &mut missing);
        if lki {
            // The target's power before the effect moves it (its last-known value).
            effect.insert(
                0,
                json!({ "type": "set", "key": "lki_power", "value": "self.chosen.power", "to": "self" }),
            );
        }
        effect.extend(actions);
    }
    let destination = a.params.get("Destination");
    if !matches!(api, "ChangeZone" | "ChangeZoneAll")
        && destination.is_some()
        && !(api == "Counter" && matches!(destination, Some("Graveyard" | "Hand")))
    {
        missing.push(format!(
            "A:SP$ {api} with Destination$ {}",
            destination.unwrap_or("")
        ));
    }
    if api != "ChangeZone" && a.params.get("LibraryPosition").is_some() {
        missing.push(format!("A:SP$ {api} with LibraryPosition$"));
    }
    if api != "Counter" && a.params.get("UnlessCost").is_some() {
        missing.push(format!("A:SP$ {api} with UnlessCost$"));
    }
    if !matches!(api, "Draw" | "Discard") && a.params.get("NumCards").is_some() {
        missing.push(format!("A:SP$ {api} with NumCards$"));
    }
    let origin = if from_graveyard {
        "Graveyard"
    } else {
        "Battlefield"
    };
    if api != "ChangeZoneAll" && a.params.get("ChangeType").is_some() {
        missing.push(format!("A:SP$ {api} with ChangeType$"));
    }
    if api != "PutCounter"
        && (a.params.get("CounterType").is_some() || a.params.get("CounterNum").is_some())
    {
        missing.push(format!("A:SP$ {api} with CounterType$"));
    }
    // (`ChangeZoneAll` checks its own zones, [`crate::mass::player_graveyard`].)
    for (k, v) in [("Origin", origin), ("RememberLKI", "True")] {
        if api == "ChangeZoneAll" && k == "Origin" {
            continue;
        }
        if a.params.get(k).is_some_and(|x| x != v)
            || (a.params.get(k).is_some() && api != "ChangeZone")
        {
            missing.push(format!(
                "A:SP$ {api} with {k}$ {}",
                a.params.get(k).unwrap_or("")
            ));
        }
    }
    if !missing.is_empty() {
        return Err(missing);
    }
    let mut actions = vec![
        json!({ "type": "if", "condition": { "type": "compare", "left": format!("count({at})"), "op": "==", "right": 0 },
        "then": [{ "type": "emit", "event": "fizzled", "to": "self" }],
        "else": effect }),
    ];
    actions.push(json!({ "type": "move", "zone": "graveyard", "to": "self" }));
    let trigger = json!({
        "when": { "event": "resolve", "target": { "type": "is_self" } },
        "zones": ["stack"],
        "do": actions,
    });
    Ok(Spell {
        tags,
        trigger,
        classes: Vec::new(),
        props,
    })
}

/// A spell without a target: its effect, then into the graveyard.
fn untargeted(face: &Face, class: &str, a: &Ability) -> Result<Spell, Vec<String>> {
    let mut plain = a.clone();
    // The spell's `Cost$` is its mana cost, paid on cast.
    plain.params.0.retain(|(k, _)| k != "Cost");
    let effect = crate::effect::untargeted(face, class, &plain).map_err(|m| {
        m.into_iter()
            .map(|m| format!("A:SP$ {m}"))
            .collect::<Vec<_>>()
    })?;
    let mut actions = effect.actions;
    actions.push(json!({ "type": "move", "zone": "graveyard", "to": "self" }));
    let trigger = json!({
        "when": { "event": "resolve", "target": { "type": "is_self" } },
        "zones": ["stack"],
        "do": actions,
    });
    Ok(Spell {
        tags: vec!["untargeted".into()],
        trigger,
        classes: effect.classes,
        props: Vec::new(),
    })
}

/// `ChangeZone | Origin$ Battlefield | Destination$ Exile` (hand, graveyard, library):
/// the target creature goes there.
fn change_zone(a: &Ability, tags: &[String], at: &str, missing: &mut Vec<String>) -> Vec<Value> {
    // "Return target (creature) card from your graveyard to your hand / the battlefield"
    // (Regrowth, Zombify); a creature put onto the battlefield is summoning sick.
    if tags == ["targets_graveyard_card"] {
        return match a.params.get("Destination") {
            Some("Hand") => vec![json!({ "type": "move", "zone": "hand", "to": { "ref": at } })],
            Some("Battlefield") => vec![
                json!({ "type": "tag", "tag": "sick", "to": { "ref": at } }),
                json!({ "type": "move", "zone": "battlefield", "to": { "ref": at } }),
            ],
            other => {
                missing.push(format!(
                    "A:SP$ ChangeZone from Graveyard to {}",
                    other.unwrap_or("(none)")
                ));
                Vec::new()
            }
        };
    }
    if tags
        .iter()
        .any(|t| t != "targets_creature" && t != "targets_permanent")
    {
        missing.push("A:SP$ ChangeZone on a non-creature".into());
    }
    if a.params.get("Origin") != Some("Battlefield") {
        missing.push(format!(
            "A:SP$ ChangeZone from {}",
            a.params.get("Origin").unwrap_or("(none)")
        ));
    }
    if a.params.get("Shuffle").is_some_and(|s| s != "True")
        || (a.params.get("Shuffle").is_some() && a.params.get("Destination") != Some("Library"))
    {
        missing.push("A:SP$ ChangeZone with Shuffle$".into());
    }
    // `LibraryPosition$ N`: N cards from the top (Oust: second from the top).
    let position = a.params.get("LibraryPosition");
    match crate::effect::zone(a.params.get("Destination")).filter(|z| *z != "battlefield") {
        Some("library") if position.is_some() => match position.and_then(|n| n.parse::<u32>().ok())
        {
            Some(n) => {
                vec![json!({ "type": "move", "zone": "library", "slot": n, "to": { "ref": at } })]
            }
            None => {
                missing.push(format!(
                    "A:SP$ ChangeZone with LibraryPosition$ {}",
                    position.unwrap_or("")
                ));
                Vec::new()
            }
        },
        Some(_) if position.is_some() => {
            missing.push("A:SP$ ChangeZone with LibraryPosition$".into());
            Vec::new()
        }
        // "Its owner shuffles it into their library" (`Shuffle$ True`: Chaos Warp).
        Some("library") if a.params.get("Shuffle") == Some("True") => vec![
            json!({ "type": "move", "zone": "library", "to": { "ref": at } }),
            json!({ "type": "emit", "event": "shuffle", "to": { "type": "owner", "of": "self.chosen" } }),
        ],
        Some(zone) => {
            vec![json!({ "type": "move", "zone": zone, "to": { "ref": at } })]
        }
        None => {
            missing.push(format!(
                "A:SP$ ChangeZone to {}",
                a.params.get("Destination").unwrap_or("(none)")
            ));
            Vec::new()
        }
    }
}

/// `ValidTgts$ Creature,Player` → the targeting tags; `TargetType$ Spell | ValidTgts$ Card`
/// (any spell on the stack) → `targets_spell`; other permanents (`Artifact,Enchantment`,
/// `Creature.nonBlack`) → `targets_permanent` and the card's `tgt_*` properties
/// ([`crate::target`]).
fn targets(
    a: &Ability,
    api: &str,
    missing: &mut Vec<String>,
) -> (Vec<String>, Vec<(String, Value)>) {
    let mut tags = Vec::new();
    let mut props = Vec::new();
    let spell = a.params.get("TargetType") == Some("Spell");
    if let Some(t) = a.params.get("TargetType").filter(|_| !spell) {
        missing.push(format!("TargetType$ {t}"));
    }
    match a.params.get("ValidTgts") {
        None => missing.push(format!("A:SP$ {api} without ValidTgts$")),
        Some(v)
            if !spell
                && !crate::target::is_plain(v)
                && v != "Opponent"
                && a.params.get("Origin") != Some("Graveyard") =>
        {
            match crate::target::permanent(v) {
                Ok(p) => {
                    tags.push("targets_permanent".to_owned());
                    props = p;
                }
                Err(m) => missing.push(m),
            }
        }
        // A card in its caster's graveyard (Regrowth; Zombify: a creature card).
        Some(v @ ("Card.YouCtrl" | "Creature.YouCtrl"))
            if !spell && a.params.get("Origin") == Some("Graveyard") =>
        {
            tags.push("targets_graveyard_card".to_owned());
            if v.starts_with("Creature") {
                props.push(("tgt_creature".to_owned(), json!(1)));
            }
        }
        // A noncreature spell (Negate).
        Some("Card.nonCreature") if spell => {
            tags.push("targets_spell".to_owned());
            props.push(("tgt_not_creature".to_owned(), json!(1)));
        }
        Some(v) => {
            for t in v.split(',') {
                match (t.trim(), spell) {
                    ("Creature", false) => tags.push("targets_creature".to_owned()),
                    ("Player", false) => tags.push("targets_player".to_owned()),
                    ("Opponent", false) => {
                        tags.push("targets_player".to_owned());
                        props.push(("tgt_opponents".to_owned(), json!(1)));
                    }
                    ("Card", true) => tags.push("targets_spell".to_owned()),
                    (other, _) => missing.push(format!("ValidTgts$ {other}")),
                }
            }
        }
    }
    if (api == "Counter") != spell {
        missing.push(format!("A:SP$ {api} with TargetType$ Spell"));
    }
    (tags, props)
}

/// `NumDmg$ N`, or an SVar counted as it resolves (`Count$Kicked.4.2`, `Count$xPaid`).
fn deal_damage(face: &Face, a: &Ability, missing: &mut Vec<String>) -> Vec<Value> {
    match crate::effect::amount(face, a.params.get("NumDmg")) {
        Some(n) => vec![
            json!({ "type": "damage", "amount": n, "source": "self", "to": { "ref": "spell_target" } }),
        ],
        None => {
            missing.push(format!(
                "NumDmg$ {}",
                a.params.get("NumDmg").unwrap_or("(none)")
            ));
            Vec::new()
        }
    }
}

fn pump(
    a: &Ability,
    tags: &[String],
    creatures_only: bool,
    at: &str,
    missing: &mut Vec<String>,
) -> Vec<Value> {
    if tags
        .iter()
        .any(|t| t != "targets_creature" && t != "targets_permanent")
        || !creatures_only
    {
        missing.push("A:SP$ Pump on a non-creature".into());
    }
    let mut modifiers = Vec::new();
    for (param, key) in [("NumAtt", "power"), ("NumDef", "max_health")] {
        match (a.params.get(param), number(a.params.get(param))) {
            (None, _) => {}
            (Some(_), Some(n)) => modifiers.push(json!({ "key": key, "op": "add", "value": n })),
            (Some(t), None) => missing.push(format!("{param}$ {t}")),
        }
    }
    if let Some(kws) = a.params.get("KW") {
        for kw in kws.split('&').map(str::trim) {
            match KEYWORDS.iter().find(|(name, _)| *name == kw) {
                Some((_, tag)) => modifiers.push(json!({ "key": tag, "op": "tag" })),
                None => missing.push(format!("KW$ {kw}")),
            }
        }
    }
    let aura = json!({ "modifiers": modifiers, "until": "cleanup" });
    vec![json!({ "type": "give_aura", "aura": aura, "to": { "ref": at } })]
}

/// A spell's `Cost$` with `Sac<1/Artifact>` or `Sac<1/Creature>`: the tag of what is
/// sacrificed and the cost without it.
pub fn additional_sacrifice(cost: &str) -> Option<(&'static str, String)> {
    let parts: Vec<&str> = cost.split_whitespace().collect();
    let (i, kind) = parts.iter().enumerate().find_map(|(i, p)| match *p {
        "Sac<1/Artifact>" => Some((i, "artifact")),
        "Sac<1/Creature>" => Some((i, "creature")),
        _ => None,
    })?;
    let rest: Vec<&str> = parts
        .iter()
        .enumerate()
        .filter(|(j, _)| *j != i)
        .map(|(_, p)| *p)
        .collect();
    Some((kind, rest.join(" ")))
}
