//! A card's `K:` lines ([`translate`]): keywords the rules know as tags (the card
//! module's [`KEYWORDS`]), keywords with their own translation (Equip, Modular, Level up,
//! enters-with-counters, enters tapped unless life is paid, entering as a copy, ways to
//! pay, prowess, exalted, evasion limits), and the rest listed as missing.

use forge_script::Face;
use serde_json::json;

use crate::card::{Parts, KEYWORDS};

/// `K:` lines: combat keywords become tags, `etbCounter` a replacement
/// ([`crate::counters`]), `ETBReplacement` an unless-life tap ([`crate::entering`]), prowess and exalted triggers ([`crate::triggered_keywords`]);
/// anything else is missing.
pub(crate) fn translate(face: &Face, class: &str, parts: &mut Parts, missing: &mut Vec<String>) {
    for k in &face.keywords {
        // Ways to pay ([`crate::costs`]).
        let word = k.name.split(' ').next().unwrap_or("");
        if matches!(word, "Kicker" | "Flashback" | "Evoke") {
            continue;
        }
        // Persist ([`crate::persist`]).
        if k.name == "Persist" && k.params.is_empty() {
            let p = crate::persist::translate(class, &face.name);
            parts.replacements.extend(p.replacements);
            parts.triggers.extend(p.triggers);
            parts.classes.push(p.class);
            continue;
        }
        if k.name == "etbCounter" {
            match crate::counters::etb_counter(k) {
                Ok(r) => parts.replacements.push(r),
                Err(m) => missing.push(m),
            }
            continue;
        }
        if k.name == "ETBReplacement" && k.params.first().is_some_and(|p| p == "Copy") {
            match crate::copies::enters_as_copy(face, class, k) {
                Ok(copy) => {
                    parts.replacements.push(copy.replacement);
                    parts.world_triggers.extend(copy.triggers);
                }
                Err(m) => missing.push(m),
            }
            continue;
        }
        // Equip N ([`crate::equipment`]): the rules' `equip` move.
        if let Some(e) = crate::equipment::equip(&k.name).filter(|_| k.params.is_empty()) {
            match e {
                Ok((tag, props)) => {
                    parts.tags.push(tag);
                    parts.props.extend(props);
                }
                Err(m) => missing.push(m),
            }
            continue;
        }
        // Modular N ([`crate::modular`]).
        if let Some(m) =
            crate::modular::translate(k, class, &face.name).filter(|_| k.params.is_empty())
        {
            match m {
                Ok(m) => {
                    parts.replacements.push(m.replacement);
                    parts.triggers.extend(m.triggers);
                    parts.classes.push(m.class);
                }
                Err(m) => missing.push(m),
            }
            continue;
        }
        if k.name == "Level up" && k.params.len() == 1 {
            continue; // [`crate::levels`]: an activated ability.
        }
        if k.name == "ETBReplacement" {
            match crate::entering::etb_replacement(face, k) {
                Ok((tag, (key, n))) => {
                    parts.tags.push(tag);
                    parts.props.push((key, json!(n)));
                }
                Err(m) => missing.push(m),
            }
            continue;
        }
        if k.name == "Chapter" {
            match crate::saga::translate(face, class, k) {
                Ok(saga) => {
                    parts.tags.extend(saga.tags);
                    parts.props.extend(saga.props);
                    parts.triggers.push(saga.trigger);
                    parts.classes.extend(saga.classes);
                }
                Err(m) => missing.extend(m),
            }
            continue;
        }
        if k.name == "MayEffectFromOpeningHand" {
            match crate::entering::from_opening_hand(face, k) {
                Ok(tag) => parts.tags.push(tag),
                Err(m) => missing.push(m),
            }
            continue;
        }
        if let Some((trigger, ability)) =
            crate::triggered_keywords::translate(&k.name, &face.name, class)
        {
            if k.params.is_empty() {
                parts.triggers.push(trigger);
                parts.classes.push(ability);
                continue;
            }
        }
        // "enters the battlefield tapped" (the mtg rules tap a permanent tagged so as it
        // enters); split second (702.61: the rules let no spell be cast nor non-mana
        // ability be activated while a spell tagged so is on the stack).
        // "Enchant creature" / "Enchant land": what the Aura may enchant is its
        // `SP$ Attach`'s `ValidTgts$` ([`crate::target::attach`]); another `Enchant` stays missing.
        if matches!(k.name.as_str(), "Enchant creature" | "Enchant land") && k.params.is_empty() {
            continue;
        }
        let tag = match k.name.as_str() {
            "CARDNAME enters the battlefield tapped." => Some("enters_tapped"),
            "Split second" => Some("split_second"),
            "CARDNAME can't be countered." => Some("uncounterable"),
            // 508.1d: the rules do not let its controller finish declaring attackers while
            // it could attack and does not.
            "CARDNAME attacks each turn if able." | "CARDNAME attacks each combat if able." => {
                Some("attacks_each_combat")
            }
            "CantBeBlockedBy Creature.Wall" => Some("unblockable_by_walls"),
            // "Can't be blocked by creatures with power N or less" (Questing Beast).
            n if n
                .strip_prefix("CantBeBlockedBy Creature.powerLE")
                .and_then(|n| n.parse::<i64>().ok())
                .is_some() =>
            {
                let n = n.trim_start_matches("CantBeBlockedBy Creature.powerLE");
                parts.props.push((
                    "blockers_power_above".into(),
                    json!(n.parse::<i64>().unwrap_or(0)),
                ));
                Some("blocked_only_by_power")
            }
            _ => None,
        };
        if let (Some(tag), true) = (tag, k.params.is_empty()) {
            parts.tags.push(tag.into());
            continue;
        }
        match KEYWORDS.iter().find(|(name, _)| *name == k.name) {
            Some((_, tag)) if k.params.is_empty() => parts.tags.push((*tag).into()),
            _ => missing.push(format!("K:{}", k.name)),
        }
    }
}

/// The tags of a `&`-separated keyword list (`KW$ Flying & Trample`, `TokenKeywords$`,
/// `Keywords$`): `Err` is the first keyword the rules do not know.
pub fn tags_of(list: &str) -> Result<Vec<&'static str>, &str> {
    list.split('&')
        .map(str::trim)
        .filter(|k| !k.is_empty())
        .map(|kw| {
            KEYWORDS
                .iter()
                .find(|(name, _)| *name == kw)
                .map(|(_, tag)| *tag)
                .ok_or(kw)
        })
        .collect()
}
