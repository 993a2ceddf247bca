//! Effects without a target, shared by triggered abilities and spells: `GainLife |
//! Defined$ You | LifeAmount$ N`, `ChangeZoneAll | ChangeType$ Card | Origin$ Z |
//! Destination$ Z` (every card in a zone kind to another: Rest in Peace's "exile all
//! cards from all graveyards"), `Token | TokenPower$ | TokenToughness$ | TokenTypes$ |
//! TokenColors$` (a creature token, a class of its own: `<card>_token_<name>`), and
//! `DestroyAll | ValidCards$ <valid>` (Wrath of God), `DealDamage | Defined$ You` (or the
//! defending player; `NumDmg$ X` with `X` the damage that triggered it: Jackal Pup) and
//! `Discard | Defined$ TriggeredTarget | Mode$ Random` (Hypnotic Specter), `AddTurn`
//! (Time Walk) and `Fog`.

use forge_script::{Ability, Face};
use serde_json::{json, Value};

pub use crate::amounts::{amount, number, own_count, own_count_refs};

/// What an effect does, and the classes it needs (a token's).
pub struct Effect {
    /// The actions (`self` is the spell or ability object; its owner is "you").
    pub actions: Vec<Value>,
    /// Classes to add, by name.
    pub classes: Vec<(String, Value)>,
}

/// Forge's zone names and the mtg rules' zones.
const ZONES: &[(&str, &str)] = &[
    ("Graveyard", "graveyard"),
    ("Exile", "exile"),
    ("Hand", "hand"),
    ("Library", "library"),
    ("Battlefield", "battlefield"),
];

/// The mtg zone of a Forge zone name.
pub fn zone(name: Option<&str>) -> Option<&'static str> {
    ZONES
        .iter()
        .find(|(f, _)| Some(*f) == name)
        .map(|(_, z)| *z)
}

/// Parameters any ability may carry that change nothing here.
const INERT: &[&str] = &[
    "DB",
    "AB",
    "SP",
    "SpellDescription",
    "StackDescription",
    "AILogic",
    "TokenImage",
    "NoRegen",
    "References",
    // A hint to Forge's AI that the effect harms what it affects.
    "IsCurse",
];

/// Translates an untargeted ability (`DB$`, or `AB$` with `Cost$ 0`) of the card
/// `class`; `Err` lists what it lacks.
pub fn untargeted(face: &Face, class: &str, a: &Ability) -> Result<Effect, Vec<String>> {
    let api = a.api.as_deref().unwrap_or("?");
    let p = |k: &str| a.params.get(k);
    let mut missing = Vec::new();
    let mut used: Vec<&str> = INERT.to_vec();
    if p("Cost").is_some_and(|c| c != "0") {
        missing.push(format!("{api} with Cost$ {}", p("Cost").unwrap_or("")));
    }
    used.push("Cost");
    let mut classes = Vec::new();
    let actions = match api {
        "Draw" => {
            used.extend(["Defined", "NumCards"]);
            let to = match p("Defined") {
                None | Some("You") => json!("owner"),
                // The player whose draw step triggered it: the one whose turn it is.
                Some("TriggeredPlayer") => json!({ "type": "players", "tag": "turn" }),
                Some("Each") => json!({ "type": "players" }),
                Some(other) => {
                    missing.push(format!("Draw Defined$ {other}"));
                    json!("owner")
                }
            };
            match number(p("NumCards").or(Some("1"))) {
                Some(n) => {
                    vec![json!({ "type": "emit", "event": "draw", "count": n, "to": to })]
                }
                None => {
                    missing.push(format!("Draw NumCards$ {}", p("NumCards").unwrap_or("")));
                    Vec::new()
                }
            }
        }
        "LoseLife" => {
            used.extend(["Defined", "LifeAmount"]);
            // `Opponent`: in a two-player game, the other player.
            let to = match p("Defined") {
                None | Some("You") => json!("owner"),
                Some("Opponent") => json!({ "type": "players", "which": "enemy" }),
                // The player a damage trigger's damage was dealt to.
                Some("TriggeredTarget") => {
                    json!({ "type": "object", "object": "self.triggered_target", "where": { "type": "has_tag", "tag": "player" } })
                }
                Some(other) => {
                    missing.push(format!("LoseLife Defined$ {other}"));
                    json!("owner")
                }
            };
            let half_up = p("LifeAmount").and_then(|x| face.svar(x)).is_some_and(|v| {
                v.value == "TriggeredTarget$LifeTotal/HalfUp"
                    && p("Defined") == Some("TriggeredTarget")
            });
            match amount(face, p("LifeAmount")) {
                // "Loses half their life, rounded up" (Quietus Spike): one life at a time,
                // as many times as half of it rounded up (`count` rounds down).
                _ if half_up => vec![json!({ "type": "emit", "event": "lose_one_life",
                    "count": "(self.triggered_target.health + 1) / 2", "to": to })],
                Some(n) => {
                    vec![json!({ "type": "add", "key": "damage", "amount": n, "to": to })]
                }
                None => {
                    missing.push(format!(
                        "LoseLife LifeAmount$ {}",
                        p("LifeAmount").unwrap_or("")
                    ));
                    Vec::new()
                }
            }
        }
        "GainLife" => {
            used.extend(["Defined", "LifeAmount"]);
            if !matches!(p("Defined"), None | Some("You")) {
                missing.push(format!("GainLife Defined$ {}", p("Defined").unwrap_or("")));
            }
            match amount(face, p("LifeAmount")) {
                Some(n) => {
                    let gain = match n.as_i64() {
                        Some(n) => json!(-n),
                        None => json!(format!("0 - ({})", n.as_str().unwrap_or("0"))),
                    };
                    vec![json!({ "type": "add", "key": "damage", "amount": gain, "to": "owner" })]
                }
                None => {
                    missing.push(format!(
                        "GainLife LifeAmount$ {}",
                        p("LifeAmount").unwrap_or("")
                    ));
                    Vec::new()
                }
            }
        }
        // Shuffled into each library, then each player draws ([`crate::everyone`]).
        "ChangeZoneAll" if crate::everyone::shuffles_into_libraries(a) => {
            used.extend(crate::everyone::SHUFFLE_KEYS);
            crate::everyone::shuffle_into_libraries(face, a).unwrap_or_else(|m| {
                missing.extend(m);
                Vec::new()
            })
        }
        "ChangeZoneAll" => {
            used.extend(["ChangeType", "Origin", "Destination"]);
            // (All the zones named by `Origin$`: one here.)
            if p("UseAllOriginZones") == Some("True") {
                used.push("UseAllOriginZones");
            }
            let (from, to) = (zone(p("Origin")), zone(p("Destination")));
            let which = crate::valid::condition(
                p("ChangeType").unwrap_or("Card"),
                "ChangeZoneAll ChangeType$",
            );
            match (from, to, which) {
                (Some(from), Some(to), Ok(which)) => vec![
                    json!({ "type": "move", "zone": to, "to": { "type": "objects", "zone": from, "where": which } }),
                ],
                (_, _, which) => {
                    missing.push(format!(
                        "ChangeZoneAll from {} to {}",
                        p("Origin").unwrap_or("?"),
                        p("Destination").unwrap_or("?")
                    ));
                    missing.extend(which.err());
                    Vec::new()
                }
            }
        }
        "DestroyAll" | "DamageAll" => {
            used.extend(crate::mass::KEYS);
            crate::mass::actions(face, api, a).unwrap_or_else(|m| {
                missing.push(m);
                Vec::new()
            })
        }
        "Token" => {
            used.extend(crate::tokens::PARAMS);
            match crate::tokens::token(face, class, a) {
                Ok((name, def, amount)) => {
                    let create = json!({ "type": "create", "class": name, "zone": "battlefield", "count": amount });
                    classes.push((name, def));
                    vec![create]
                }
                Err(m) => {
                    missing.extend(m);
                    Vec::new()
                }
            }
        }
        "DealDamage" => {
            used.extend(["Defined", "NumDmg"]);
            let to = match p("Defined") {
                Some("You") => Some(json!("owner")),
                // Two players: the defending player, an opponent.
                Some("TriggeredDefender" | "Opponent") => Some(json!({ "ref": "enemy_players" })),
                _ => None,
            };
            match (to, amount(face, p("NumDmg"))) {
                (Some(to), Some(amount)) => {
                    vec![json!({ "type": "damage", "amount": amount, "source": "self", "to": to })]
                }
                _ => {
                    missing.push(format!(
                        "DealDamage to {} of {}",
                        p("Defined").unwrap_or("(none)"),
                        p("NumDmg").unwrap_or("(none)")
                    ));
                    Vec::new()
                }
            }
        }
        "Discard" if crate::everyone::discard_hands(a).is_some() => {
            used.extend(["Defined", "Mode"]);
            crate::everyone::discard_hands(a).unwrap_or_default()
        }
        "Discard" => {
            used.extend(["Defined", "NumCards", "Mode"]);
            let whose = match p("Defined") {
                Some("TriggeredTarget" | "Opponent") => Some("enemy"),
                Some("You") => Some("friendly"),
                _ => None,
            };
            match (whose, number(p("NumCards").or(Some("1"))), p("Mode")) {
                (Some(whose), Some(n), Some("Random")) => vec![
                    json!({ "type": "move", "zone": "graveyard", "to": { "type": "objects", "zone": "hand", "owner": whose, "pick": { "random": n } } }),
                ],
                // "Then discard two cards" (Faithless Looting): of their choice.
                (Some("friendly"), Some(n), Some("TgtChoose")) => vec![
                    json!({ "type": "emit", "event": "discards_chosen", "amount": n, "to": "owner" }),
                ],
                _ => {
                    missing.push(format!(
                        "Discard by {} with Mode$ {}",
                        p("Defined").unwrap_or("(none)"),
                        p("Mode").unwrap_or("(none)")
                    ));
                    Vec::new()
                }
            }
        }
        // Each creature that matches gets +N/+M and keywords until end of turn (Overrun).
        "PumpAll" => {
            used.extend(["ValidCards", "NumAtt", "NumDef", "KW"]);
            let mut modifiers = Vec::new();
            // `NumAtt$ X` counted as it resolves (Craterhoof Behemoth's creatures you
            // control): the values are frozen when the aura is given.
            for (param, key) in [("NumAtt", "power"), ("NumDef", "max_health")] {
                match (p(param), amount(face, p(param))) {
                    (None, _) => {}
                    (Some(_), Some(n)) => {
                        modifiers.push(json!({ "key": key, "op": "add", "value": n }))
                    }
                    (Some(t), None) => missing.push(format!("PumpAll {param}$ {t}")),
                }
            }
            match crate::keywords::tags_of(p("KW").unwrap_or("")) {
                Ok(tags) => modifiers.extend(tags.iter().map(|t| json!({ "key": t, "op": "tag" }))),
                Err(kw) => missing.push(format!("PumpAll KW$ {kw}")),
            }
            match crate::valid::condition(
                p("ValidCards").unwrap_or("Creature"),
                "PumpAll ValidCards$",
            ) {
                Ok(which) => vec![json!({ "type": "give_aura", "freeze": true,
                    "aura": { "modifiers": modifiers, "until": "cleanup" },
                    "to": { "type": "objects", "zone": "battlefield", "where": [which, { "type": "has_tag", "tag": "creature" }] } })],
                Err(m) => {
                    missing.push(m);
                    Vec::new()
                }
            }
        }
        // Search your library (401.2: a hidden zone, no target) for up to `ChangeNum$`
        // cards matching `ChangeType$`, put them into a zone (tapped with `Tapped$`),
        // then shuffle: Demonic Tutor, Rampant Growth, Wood Elves.
        // Put up to `ChangeNum$` cards matching `ChangeType$` from your hand onto the
        // battlefield (Quicksilver Amulet: "you may put a creature card": taking it is
        // never worse, as with searches).
        "ChangeZone"
            if p("Origin") == Some("Hand")
                && p("Destination") == Some("Battlefield")
                && p("Defined").is_none() =>
        {
            used.extend(["Origin", "Destination", "ChangeType", "ChangeNum"]);
            let which = crate::valid::condition(
                p("ChangeType").unwrap_or("Card"),
                "ChangeZone ChangeType$",
            );
            match (which, number(p("ChangeNum").or(Some("1")))) {
                (Ok(which), Some(n)) => vec![json!({ "type": "move", "zone": "battlefield",
                    "to": { "type": "objects", "zone": "hand", "owner": "friendly", "where": which,
                        "pick": { "chosen": n, "prompt": "put a card from your hand onto the battlefield" } } })],
                (which, _) => {
                    missing.push("ChangeZone from Hand with ChangeNum$".into());
                    missing.extend(which.err());
                    Vec::new()
                }
            }
        }
        // Library positions ([`crate::library`]): Vampiric Tutor, Brainstorm.
        "ChangeZone" if crate::library::keys_of(a).is_some() => {
            used.extend(crate::library::keys_of(a).unwrap_or_default());
            crate::library::actions(a).unwrap_or_else(|m| {
                missing.push(m);
                Vec::new()
            })
        }
        "ChangeZone" if p("Origin") == Some("Library") => {
            used.extend([
                "Origin",
                "Destination",
                "ChangeType",
                "ChangeNum",
                "Tapped",
                "Mandatory",
                "NoShuffle",
                "ShuffleNonMandatory",
            ]);
            let to = zone(p("Destination")).filter(|z| *z != "library");
            let which = crate::valid::condition(
                p("ChangeType").unwrap_or("Card"),
                "ChangeZone ChangeType$",
            );
            match (to, which, number(p("ChangeNum").or(Some("1")))) {
                (Some(to), Ok(which), Some(n)) => {
                    let found = json!({ "type": "objects", "zone": "library", "owner": "friendly", "where": which,
                        "pick": { "chosen": n, "prompt": "search your library" } });
                    let mut acts = Vec::new();
                    if p("Tapped") == Some("True") {
                        acts.push(json!({ "type": "link", "key": "found", "object": found, "to": "self" }));
                        let it = json!({ "type": "object", "object": "self.found" });
                        acts.push(json!({ "type": "tag", "tag": "tapped", "to": it.clone() }));
                        acts.push(json!({ "type": "move", "zone": to, "to": it }));
                    } else {
                        acts.push(json!({ "type": "move", "zone": to, "to": found }));
                    }
                    // `NoShuffle$`: a later part of the effect searches again, then shuffles
                    // (Cultivate).
                    if p("NoShuffle") != Some("True") {
                        acts.push(json!({ "type": "emit", "event": "shuffle", "to": "owner" }));
                    }
                    acts
                }
                (_, which, _) => {
                    missing.push(format!(
                        "ChangeZone from Library to {}",
                        p("Destination").unwrap_or("?")
                    ));
                    missing.extend(which.err());
                    Vec::new()
                }
            }
        }
        // The card itself from one zone to another (Rancor: "return CARDNAME to its
        // owner's hand" from the graveyard), if it is still in that zone.
        "ChangeZone"
            if matches!(p("Defined"), None | Some("Self"))
                && zone(p("Origin")).is_some_and(|z| z != "library" && z != "battlefield") =>
        {
            used.extend(["Origin", "Destination", "Defined"]);
            match (zone(p("Origin")), zone(p("Destination"))) {
                (Some(from), Some(to)) => vec![json!({ "type": "move", "zone": to,
                    "to": { "type": "object", "object": "self.source_card", "where": { "type": "in_zone", "zone": from } } })],
                _ => {
                    missing.push(format!(
                        "ChangeZone of the card from {} to {}",
                        p("Origin").unwrap_or("?"),
                        p("Destination").unwrap_or("?")
                    ));
                    Vec::new()
                }
            }
        }
        // Extra turns (500.7): the mtg rules' `end_turn` gives the next turn to a player
        // with `extra_turns` left (Time Walk).
        "AddTurn" => {
            used.extend(["Defined", "NumTurns"]);
            match (p("Defined"), number(p("NumTurns").or(Some("1")))) {
                (None | Some("You"), Some(n)) if n > 0 => {
                    vec![json!({ "type": "add", "key": "extra_turns", "amount": n, "to": "owner" })]
                }
                _ => {
                    missing.push(format!(
                        "AddTurn for {} of {}",
                        p("Defined").unwrap_or("(none)"),
                        p("NumTurns").unwrap_or("(none)")
                    ));
                    Vec::new()
                }
            }
        }
        // "Prevent all combat damage that would be dealt this turn" (Fog): the players'
        // replacement in the mtg rules prevents combat damage while a player is tagged
        // `prevents_combat_damage` (until the cleanup).
        // Scry N (701.22): the rules' `scry` event, raised before what follows.
        "Scry" => {
            used.push("ScryNum");
            match number(p("ScryNum").or(Some("1"))) {
                Some(n) => {
                    vec![json!({ "type": "emit", "event": "scry", "amount": n, "to": "owner" })]
                }
                None => {
                    missing.push(format!("Scry ScryNum$ {}", p("ScryNum").unwrap_or("")));
                    Vec::new()
                }
            }
        }
        // "Sacrifice CARDNAME" (`Defined$ Self` or `SacValid$ Self`): the card goes from the
        // battlefield to its owner's graveyard, if it is still there (701.17).
        "Sacrifice"
            if matches!(
                (p("Defined"), p("SacValid")),
                (Some("Self"), None) | (None, Some("Self"))
            ) =>
        {
            used.extend(["Defined", "SacValid"]);
            vec![json!({ "type": "move", "zone": "graveyard",
                "to": { "type": "object", "object": "self.source_card", "where": { "type": "in_zone", "zone": "battlefield" } } })]
        }
        "PutCounter" if matches!(p("Defined"), None | Some("Self")) => {
            used.extend(["Defined", "CounterType", "CounterNum"]);
            crate::counters::put_on_card(a).unwrap_or_else(|m| {
                missing.push(m);
                Vec::new()
            })
        }
        // "CARDNAME gets +N/+M / gains K until end of turn" (`Defined$ Self` or none).
        "Pump" if matches!(p("Defined"), None | Some("Self")) && p("ValidTgts").is_none() => {
            used.extend(["Defined", "NumAtt", "NumDef", "KW"]);
            let this = json!({ "type": "object", "object": "self.source_card", "where": { "type": "in_zone", "zone": "battlefield" } });
            crate::activated::pump(face, a, this)
                .map(|p| vec![p])
                .unwrap_or_else(|m| {
                    missing.extend(m);
                    Vec::new()
                })
        }
        // "Sacrifice it" (Mulldrifter evoked): the ability's card, if still there.
        "Sacrifice"
            if a.params
                .0
                .iter()
                .all(|(k, _)| matches!(k.as_str(), "DB" | "AB" | "Cost")) =>
        {
            vec![
                json!({ "type": "move", "zone": "graveyard", "to": { "type": "object", "object": "self.source_card", "where": { "type": "in_zone", "zone": "battlefield" } } }),
            ]
        }
        "Sacrifice" => {
            used.extend(crate::players::SACRIFICE);
            crate::players::sacrifice(a).unwrap_or_else(|m| {
                missing.push(m);
                Vec::new()
            })
        }
        "Dig" => {
            used.extend(crate::library::DIG);
            crate::library::dig(a).unwrap_or_else(|m| {
                missing.push(m);
                Vec::new()
            })
        }
        "Fog" => vec![json!({ "type": "tag", "tag": "prevents_combat_damage", "to": "owner" })],
        "WinsGame" => {
            used.push("Defined");
            if !matches!(p("Defined"), None | Some("You")) {
                missing.push(format!("WinsGame Defined$ {}", p("Defined").unwrap_or("")));
            }
            // Two players: the opponent loses (104.2a).
            vec![json!({ "type": "tag", "tag": "lost", "to": { "ref": "enemy_players" } })]
        }
        "Mana" => {
            used.extend(["Produced", "Amount"]);
            crate::mana::produced(a).unwrap_or_else(|m| {
                missing.push(m);
                Vec::new()
            })
        }
        "RepeatEach" => {
            used.extend(["RepeatCards", "RepeatSubAbility"]);
            crate::counters::repeat_each(face, a).unwrap_or_else(|m| {
                missing.extend(m);
                Vec::new()
            })
        }
        other => {
            missing.push(format!("DB$ {other} without a target"));
            Vec::new()
        }
    };
    let mut actions = actions;
    let sub_done = crate::everyone::shuffles_into_libraries(a);
    if let Some(next) = p("SubAbility").filter(|_| !sub_done) {
        used.push("SubAbility");
        match face.svar(next).and_then(|s| s.ability.as_ref()) {
            // `Cleanup | ClearRemembered$ True` forgets the objects remembered (tagged
            // `remembered`, e.g. by `Dig | RememberChanged$ True`).
            Some(c)
                if c.api.as_deref() == Some("Cleanup") && c.params.get("SubAbility").is_none() =>
            {
                if c.params.get("ClearRemembered") == Some("True") {
                    actions.push(json!({ "type": "untag", "tag": "remembered", "to": { "type": "objects", "tag": "remembered" } }));
                }
            }
            Some(sub) => match untargeted(face, class, sub) {
                Ok(e) => {
                    actions.extend(e.actions);
                    classes.extend(e.classes);
                }
                Err(m) => missing.extend(m),
            },
            None => missing.push(format!("SubAbility$ {next} (not an ability)")),
        }
    }
    for (k, _) in &a.params.0 {
        if !used.contains(&k.as_str()) {
            missing.push(format!("{api} with {k}$"));
        }
    }
    if !missing.is_empty() {
        return Err(missing);
    }
    Ok(Effect { actions, classes })
}
