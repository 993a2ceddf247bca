//! One Forge card script → one class of the `mtg` mod: what is translated (name, cost,
//! types, power and toughness, combat keywords, mana abilities) and, for everything else,
//! the list of constructs the card lacks.

use forge_script::{AbilityKind, Face, Severity};
use serde_json::{json, Map, Value};

/// Keywords the mtg rules implement, as Forge writes them, and the tag each becomes.
pub const KEYWORDS: &[(&str, &str)] = &[
    ("Flying", "flying"),
    ("Reach", "reach"),
    ("Vigilance", "vigilance"),
    ("Haste", "haste"),
    ("Defender", "defender"),
    ("First Strike", "first_strike"),
    ("Double Strike", "double_strike"),
    ("Trample", "trample"),
    ("Deathtouch", "deathtouch"),
    ("Lifelink", "lifelink"),
    ("Plainswalk", "plainswalk"),
    ("Islandwalk", "islandwalk"),
    ("Swampwalk", "swampwalk"),
    ("Mountainwalk", "mountainwalk"),
    ("Forestwalk", "forestwalk"),
    ("Flash", "flash"),
    ("Hexproof", "hexproof"),
    ("Indestructible", "indestructible"),
    ("Protection from white", "protection_from_white"),
    ("Protection from blue", "protection_from_blue"),
    ("Protection from black", "protection_from_black"),
    ("Protection from red", "protection_from_red"),
    ("Protection from green", "protection_from_green"),
    // "This creature assigns no combat damage" (given until end of turn: Ophidian).
    (
        "HIDDEN CARDNAME assigns no combat damage",
        "assigns_no_combat_damage",
    ),
    // Creature types the rules' protection knows (moves.toml, game.toml).
    ("Protection from Demons", "protection_from_demon"),
    ("Protection from Dragons", "protection_from_dragon"),
];

/// Colour letters and the colour tag of each.
pub(crate) const COLOURS: &[(char, &str)] = &[
    ('w', "white"),
    ('u', "blue"),
    ('b', "black"),
    ('r', "red"),
    ('g', "green"),
];

/// A translated script: its class name and the content tree (`{ class = { NAME = ... } }`).
#[derive(Debug)]
pub struct Card {
    /// The class name (the card's name, lowercase, `_` for other characters).
    pub class: String,
    /// The content tree.
    pub tree: Value,
    /// What the card lacks (empty when it is playable).
    pub missing: Vec<String>,
}

/// What a card's lines add up to: its tags, its triggers, its static abilities (auras),
/// its replacement effects, and classes of the abilities it puts on the stack (and of
/// the tokens it makes).
#[derive(Default)]
pub(crate) struct Parts {
    pub(crate) tags: Vec<String>,
    pub(crate) triggers: Vec<Value>,
    pub(crate) auras: Vec<Value>,
    pub(crate) replacements: Vec<Value>,
    pub(crate) classes: Vec<(String, Value)>,
    pub(crate) props: Vec<(String, Value)>,
    /// Triggers of the world the card defines (`[trigger.NAME]`), by name.
    pub(crate) world_triggers: Vec<(String, Value)>,
}

/// Why a script cannot become a class at all (it has no name).
#[derive(Debug)]
pub struct ScriptError {
    /// Byte offset of the problem.
    pub offset: usize,
    /// What is wrong and what to do.
    pub message: String,
}

/// Translates a script's text. A card the rules cannot play yet is still returned (with
/// `missing` listed and no `deck_card` tag); only a script without a `Name` is an error.
pub fn translate(text: &str) -> Result<Card, ScriptError> {
    let script = forge_script::parse(text);
    let Some(face) = script.faces.first().filter(|f| !f.name.trim().is_empty()) else {
        let line = script.diagnostics.first().map_or(1, |d| d.line);
        return Err(ScriptError {
            offset: line_offset(text, line),
            message: "a Forge card script needs a `Name:` line; add `Name:<card name>` at the top"
                .into(),
        });
    };
    let class = slug(&face.name);
    let mut missing: Vec<String> = script
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| format!("script error {} at line {}", d.code, d.line))
        .collect();
    if script.faces.len() > 1 {
        let mode = face.alternate_mode.as_deref().unwrap_or("several faces");
        missing.push(format!("AlternateMode {mode}"));
    }
    let mut props = Map::new();
    let mut parts = Parts {
        tags: vec!["card".into()],
        ..Parts::default()
    };
    props.insert("title".into(), json!(face.name));
    crate::characteristics::types(face, &mut parts.tags, &mut missing);
    crate::characteristics::cost(face, &mut props, &mut parts.tags, &mut missing);
    crate::characteristics::power_toughness(face, &mut props, &mut missing);
    if parts.tags.iter().any(|t| t == "planeswalker") {
        match crate::loyalty::printed(face) {
            Ok(n) => {
                props.insert("loyalty".into(), json!(n));
                props.insert("printed_loyalty".into(), json!(n));
            }
            Err(m) => missing.push(m),
        }
    }
    crate::keywords::translate(face, &class, &mut parts, &mut missing);
    // Level up N (702.87): "{N}: put a level counter on this; level up only as a
    // sorcery", an activated ability like the script's own.
    let levelled = crate::levels::with_level_up(face);
    let face = levelled.as_ref().unwrap_or(face);
    // Kicker, flashback, alternative costs ([`crate::costs`]).
    let mut cost_refs = Map::new();
    match crate::costs::translate(face, &class) {
        Ok(c) => {
            parts.tags.extend(c.tags);
            parts.props.extend(c.props);
            parts.triggers.extend(c.triggers);
            parts.replacements.extend(c.replacements);
            parts.auras.extend(c.auras);
            cost_refs = c.refs;
        }
        Err(m) => missing.extend(m),
    }
    abilities(face, &class, &mut parts, &mut missing);
    for (i, t) in face.triggers.iter().enumerate() {
        // A mana ability's trigger (Wild Growth) does not use the stack.
        if t.api.as_deref() == Some("TapsForMana") {
            match crate::mana::taps_for_mana(face, t) {
                Ok(trigger) => parts.triggers.push(trigger),
                Err(m) => missing.push(m),
            }
            continue;
        }
        if crate::enters_with::is_static_enters(t) {
            match crate::enters_with::translate(face, t) {
                Ok(trigger) => parts.triggers.push(trigger),
                Err(m) => missing.extend(m),
            }
            continue;
        }
        match crate::trigger::translate(face, &class, i, t) {
            Ok(tr) => {
                parts.triggers.extend(tr.card_triggers);
                parts.classes.extend(tr.classes);
            }
            Err(m) => missing.extend(m),
        }
    }
    for s in face
        .statics
        .iter()
        .filter(|s| !crate::costs::is_alternative_cost(s))
    {
        match crate::statics::translate(face, s) {
            Ok(aura) => parts.auras.push(aura),
            Err(m) => missing.extend(m),
        }
    }
    for r in &face.replacements {
        // "This spell can't be countered" (a replacement that can't happen): a tag the
        // counter spells read.
        let keys = ["Event", "ValidCard", "ValidSA", "Layer", "Description"];
        if r.params.get("Event") == Some("Counter")
            && r.params.get("ValidCard") == Some("Card.Self")
            && r.params.get("Layer") == Some("CantHappen")
            && r.params.keys_outside(&keys).next().is_none()
        {
            parts.tags.push("uncounterable".into());
            continue;
        }
        match crate::replacement::translate(face, r) {
            Ok(rs) => parts.replacements.extend(rs),
            Err(m) => missing.extend(m),
        }
    }
    missing.sort();
    missing.dedup();
    props.extend(parts.props);
    let mut tags = parts.tags;
    if missing.is_empty() {
        tags.push("deck_card".into());
    } else {
        tags.push("untranslated".into());
        props.insert("missing".into(), json!(missing.join("; ")));
    }
    let mut seen = std::collections::HashSet::new();
    tags.retain(|t| seen.insert(t.clone()));
    let mut def = json!({ "properties": Value::Object(props), "tags": tags });
    if missing.is_empty() {
        for (key, list) in [
            ("trigger", parts.triggers),
            ("aura", parts.auras),
            ("replacement", parts.replacements),
        ] {
            if !list.is_empty() {
                def[key] = Value::Array(list);
            }
        }
    }
    // `Legendary` is a tag like the other supertypes (`legendary`): the mtg rules' legend
    // rule (704.5j) is a state-based action over it.
    let mut tree = json!({});
    let mut classes = Map::new();
    classes.insert(class.clone(), def);
    if missing.is_empty() {
        // An ability has its card's colours (a black card's ability is a black source:
        // protection from black stops it).
        let colours: Vec<Value> = COLOURS
            .iter()
            .filter(|(_, c)| tags.iter().any(|t| t == c))
            .map(|(_, c)| json!(c))
            .collect();
        for (name, mut def) in parts.classes {
            if let Some(list) = def["tags"].as_array_mut() {
                if list.iter().any(|t| t == "ability") {
                    list.extend(colours.iter().cloned());
                }
            }
            classes.insert(name, def);
        }
    }
    tree["class"] = Value::Object(classes);
    if missing.is_empty() && !parts.world_triggers.is_empty() {
        tree["trigger"] = Value::Object(parts.world_triggers.into_iter().collect());
    }
    let content = tree.to_string();
    let mut refs = crate::effect::own_count_refs(&class, &content);
    refs.extend(crate::counting::refs(face, &content));
    refs.extend(crate::charm_two::refs(face, &class, &content));
    refs.extend(cost_refs);
    if !refs.is_empty() {
        tree["ref"] = Value::Object(refs);
    }
    Ok(Card {
        tree,
        class,
        missing,
    })
}

/// The parameters of a mana ability the rules run as written (`AB$ Mana | Cost$ T |
/// Produced$ G`); any other makes it something else.
const MANA_ABILITY_KEYS: &[&str] = &[
    "AB",
    "Cost",
    "Produced",
    "Amount",
    "SpellDescription",
    "AILogic",
];

/// `A:` lines: `AB$ Mana | Cost$ T | Produced$ <colour or Any>` (a mana ability) becomes
/// `makes_*` tags; an instant's or sorcery's `SP$` line a resolve trigger ([`crate::spell`]);
/// other spells and abilities are not implemented yet.
fn abilities(face: &Face, class: &str, out: &mut Parts, missing: &mut Vec<String>) {
    let (tags, triggers) = (&mut out.tags, &mut out.triggers);
    let is_spell = tags.iter().any(|t| t == "spell");
    if is_spell && !face.abilities.iter().any(|a| a.kind == AbilityKind::Spell) {
        missing.push("an instant or sorcery without A:SP$".into());
    }
    let mut activated = 0;
    let mut loyalty_slot = 0;
    for a in &face.abilities {
        if crate::loyalty::is_loyalty(a) {
            loyalty_slot += 1;
            match crate::loyalty::translate(face, class, loyalty_slot, a) {
                Ok(l) => {
                    tags.push(l.tag);
                    triggers.push(l.card_trigger);
                    out.classes.extend(l.classes);
                    out.props.push(l.prop);
                    out.props.extend(l.x_slot);
                }
                Err(m) => missing.extend(m),
            }
            continue;
        }
        if a.kind == AbilityKind::Spell && is_spell {
            // An additional cost sacrificing an artifact or a creature (Tinker): the
            // rules let the spell be cast only by a player who has one (`castable_now`),
            // and the card's trigger sacrifices the one they choose as it is cast.
            let mut a = a.clone();
            if let Some((kind, rest)) =
                crate::spell::additional_sacrifice(a.params.get("Cost").unwrap_or(""))
            {
                tags.push(format!("cast_sacrifices_{kind}"));
                triggers.push(json!({
                    "when": { "event": "cast", "target": { "type": "is_self" } },
                    "zones": ["stack"],
                    "do": [{ "type": "move", "zone": "graveyard", "to": { "type": "objects", "zone": "battlefield", "tag": kind, "owner": "friendly",
                        "pick": { "chosen": 1, "prompt": format!("sacrifice a {kind}") } } }],
                }));
                if let Some(c) = a.params.0.iter_mut().find(|(k, _)| k == "Cost") {
                    c.1 = rest;
                }
            }
            let a = &a;
            let spell = if a.api.as_deref() == Some("Charm") {
                crate::charm::translate(face, class, a)
            } else {
                crate::spell::translate(face, class, a)
            };
            match spell {
                Ok(s) => {
                    tags.extend(s.tags);
                    out.props.extend(s.props);
                    // A charm has one trigger per mode.
                    match s.trigger {
                        Value::Array(modes) => triggers.extend(modes),
                        one => triggers.push(one),
                    }
                    out.classes.extend(s.classes);
                }
                Err(m) => missing.extend(m),
            }
            continue;
        }
        // Ninjutsu ([`crate::ninjutsu`]): the rules' own move, from the hand.
        if crate::ninjutsu::is_ninjutsu(a) {
            match crate::ninjutsu::translate(a) {
                Ok((tag, props)) => {
                    tags.push(tag);
                    out.props.extend(props);
                }
                Err(m) => missing.extend(m),
            }
            continue;
        }
        let api = a.api.as_deref().unwrap_or("?");
        let key = a.params.0.first().map_or("?", |(k, _)| k.as_str());
        // An Aura's spell (`SP$ Attach | ValidTgts$ Creature`): what it may enchant, as
        // the mtg rules' `tgt_*` properties (`cast_aura`, auras.toml).
        if (key, api) == ("SP", "Attach") && tags.iter().any(|t| t == "aura") {
            match crate::target::attach(a) {
                Ok(props) => out.props.extend(props),
                Err(m) => missing.extend(m),
            }
            continue;
        }
        let plain = a.params.keys_outside(MANA_ABILITY_KEYS).next().is_none();
        let produced = a.params.get("Produced").unwrap_or("");
        let makes: Option<Vec<char>> = match produced {
            "Any" => Some("wubrg".chars().collect()),
            // `1` is Forge's older way to write colourless mana.
            "1" => Some(vec!['c']),
            p if p.len() == 1 && "WUBRGC".contains(p) => {
                Some(p.to_ascii_lowercase().chars().collect())
            }
            _ => None,
        };
        let amount = crate::effect::number(a.params.get("Amount").or(Some("1")));
        // `Amount$ X` with `X` a count the rules make (Gaea's Cradle's creatures you
        // control): the card's aura keeps `mana_amount` at the count, which may be 0.
        let counted = a
            .params
            .get("Amount")
            .and_then(|x| face.svar(x))
            .and_then(|v| crate::statics::COUNTS.iter().find(|(c, _)| *c == v.value))
            .map(|(_, r)| *r);
        if let (("AB", "Mana", Some("T"), Some(cs)), Some(r), true) = (
            (key, api, a.params.get("Cost"), makes.clone()),
            counted,
            a.params
                .keys_outside(MANA_ABILITY_KEYS)
                .all(|k| k == "References"),
        ) {
            for c in cs {
                tags.push(format!("makes_{c}"));
            }
            out.props.push(("mana_amount_counted".into(), json!(1)));
            out.auras.push(json!({
                "select": { "type": "objects", "zone": "battlefield", "where": { "type": "is_self" } },
                "modifiers": [{ "key": "mana_amount", "op": "set", "value": format!("count({r})") }],
                "zones": ["battlefield"],
            }));
            continue;
        }
        match (key, api, a.params.get("Cost"), makes, amount) {
            ("AB", "Mana", Some(cost @ ("T" | "T Sac<1/CARDNAME>")), Some(cs), Some(n))
                if plain && (1..=10).contains(&n) =>
            {
                for c in cs {
                    tags.push(format!("makes_{c}"));
                }
                if n > 1 {
                    out.props.push(("mana_amount".into(), json!(n)));
                }
                if cost != "T" {
                    tags.push("sacrifice_for_mana".into());
                }
            }
            ("AB", "Mana", ..) => missing.push(format!("A:{key}$ {api}")),
            // Up to four activated abilities a card ([`crate::slot`]).
            ("AB", ..) => match crate::slot::translate(face, class, a, activated, &out.classes) {
                Ok(ab) => {
                    activated += 1;
                    tags.extend(ab.tags);
                    triggers.push(ab.card_trigger);
                    out.classes.extend(ab.classes);
                    out.props.extend(ab.props);
                    out.auras.extend(ab.auras);
                }
                Err(m) => missing.extend(m),
            },
            _ => missing.push(format!("A:{key}$ {api}")),
        }
    }
}

/// A card name as a class name: lowercase letters and digits, `_` between words
/// (`Gaea's Cradle` → `gaeas_cradle`).
pub fn slug(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if c == '\'' {
            continue;
        } else if !out.ends_with('_') && !out.is_empty() {
            out.push('_');
        }
    }
    while out.ends_with('_') {
        out.pop();
    }
    if out.is_empty() {
        out.push_str("unnamed");
    }
    out
}

/// The byte offset where 1-based `line` starts.
fn line_offset(text: &str, line: usize) -> usize {
    text.split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_creature_with_keywords() {
        let c = translate("Name:Test Angel\nManaCost:3 W W\nTypes:Creature Angel\nPT:4/4\nK:Flying\nK:Vigilance\nOracle:x\n").unwrap();
        assert!(c.missing.is_empty(), "{:?}", c.missing);
        let def = &c.tree["class"]["test_angel"];
        assert_eq!(def["properties"]["power"], 4);
        assert_eq!(def["properties"]["max_health"], 4);
        assert_eq!(def["properties"]["cost_w"], 2);
        assert_eq!(def["properties"]["cost_generic"], 3);
        assert_eq!(def["properties"]["mana_value"], 5);
        let tags: Vec<&str> = def["tags"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_str)
            .collect();
        for t in [
            "creature",
            "white",
            "flying",
            "vigilance",
            "deck_card",
            "angel",
        ] {
            assert!(tags.contains(&t), "{t} in {tags:?}");
        }
    }

    #[test]
    fn mana_abilities_and_land_types() {
        let elf = translate("Name:Elf\nManaCost:G\nTypes:Creature Elf\nPT:1/1\nA:AB$ Mana | Cost$ T | Produced$ G | SpellDescription$ Add {G}.\n").unwrap();
        assert!(elf.missing.is_empty(), "{:?}", elf.missing);
        assert!(elf.tree.to_string().contains("makes_g"));
        let sea = translate("Name:Sea\nManaCost:no cost\nTypes:Land Island Swamp\n").unwrap();
        assert!(sea.missing.is_empty(), "{:?}", sea.missing);
        let text = sea.tree.to_string();
        assert!(
            text.contains("makes_u") && text.contains("makes_b"),
            "{text}"
        );
    }

    #[test]
    fn what_a_card_lacks_is_listed_and_it_stays_out_of_decks() {
        let c = translate("Name:Odd\nManaCost:X R\nTypes:Legendary Creature Wizard\nPT:*/2\nK:Shroud\nT:Mode$ ChangesZone | Origin$ Any | Destination$ Battlefield | Execute$ E\nSVar:E:DB$ Draw\n").unwrap();
        assert_eq!(c.missing, ["K:Shroud", "PT */2", "T:Mode$ ChangesZone",]);
        let def = &c.tree["class"]["odd"];
        let tags = def["tags"].to_string();
        assert!(
            tags.contains("untranslated") && !tags.contains("deck_card"),
            "{tags}"
        );
        assert!(def["properties"]["missing"]
            .as_str()
            .unwrap()
            .contains("K:Shroud"));
    }

    #[test]
    fn damage_and_pump_spells() {
        let bolt = translate("Name:Bolt\nManaCost:R\nTypes:Instant\nA:SP$ DealDamage | Cost$ R | ValidTgts$ Creature,Player | TgtPrompt$ t | NumDmg$ 3 | SpellDescription$ d\n").unwrap();
        assert!(bolt.missing.is_empty(), "{:?}", bolt.missing);
        let text = bolt.tree.to_string();
        for part in [
            "targets_creature",
            "targets_player",
            "\"amount\":3",
            "resolve",
            "spell_target",
            "deck_card",
        ] {
            assert!(text.contains(part), "{part} in {text}");
        }
        let growth = translate("Name:Growth\nManaCost:G\nTypes:Instant\nA:SP$ Pump | Cost$ G | ValidTgts$ Creature | NumAtt$ +3 | NumDef$ +3 | KW$ Trample\n").unwrap();
        assert!(growth.missing.is_empty(), "{:?}", growth.missing);
        let text = growth.tree.to_string();
        assert!(
            text.contains("\"until\":\"cleanup\"") && text.contains("trample"),
            "{text}"
        );
        let counter = translate("Name:Nope\nManaCost:U U\nTypes:Instant\nA:SP$ Counter | Cost$ U U | TargetType$ Spell | ValidTgts$ Card | SpellDescription$ c\n").unwrap();
        assert!(counter.missing.is_empty(), "{:?}", counter.missing);
        assert!(counter.tree.to_string().contains("targets_spell"));
        let odd = translate("Name:Odd\nManaCost:R\nTypes:Sorcery\nA:SP$ DealDamage | ValidTgts$ Creature | NumDmg$ X | TargetMax$ 2\n").unwrap();
        assert_eq!(
            odd.missing,
            ["A:SP$ DealDamage with TargetMax$", "NumDmg$ X"]
        );
    }

    #[test]
    fn an_enters_the_battlefield_trigger_with_a_target() {
        let c = translate("Name:Killer\nManaCost:2 B B\nTypes:Creature Human\nPT:2/1\nT:Mode$ ChangesZone | Origin$ Any | Destination$ Battlefield | ValidCard$ Card.Self | Execute$ TrigDestroy | TriggerDescription$ d\nSVar:TrigDestroy:DB$Destroy | ValidTgts$ Creature.nonArtifact+nonBlack | NoRegen$ True | TgtPrompt$ p\n").unwrap();
        assert!(c.missing.is_empty(), "{:?}", c.missing);
        let text = c.tree.to_string();
        for part in [
            "killer_etb",
            "\"zone\":\"stack\"",
            "\"tag\":\"black\"",
            "\"tag\":\"artifact\"",
            "destroy",
            "chosen",
        ] {
            assert!(text.contains(part), "{part} in {text}");
        }
        let odd = translate("Name:Odd\nManaCost:B\nTypes:Creature Human\nPT:1/1\nT:Mode$ ChangesZone | Origin$ Any | Destination$ Battlefield | ValidCard$ Card.Self | Execute$ T\nSVar:T:DB$ Mill | NumCards$ 1\n").unwrap();
        assert_eq!(
            odd.missing,
            ["DB$ Mill without a target", "Mill with NumCards$"]
        );
    }

    #[test]
    fn a_script_without_a_name_is_an_error_at_its_line() {
        let e = translate("ManaCost:R\nTypes:Instant\n").unwrap_err();
        assert!(e.message.contains("Name:"), "{}", e.message);
    }

    #[test]
    fn slugs() {
        assert_eq!(slug("Gaea's Cradle"), "gaeas_cradle");
        assert_eq!(
            slug("Kiki-Jiki, Mirror Breaker"),
            "kiki_jiki_mirror_breaker"
        );
    }
}
