//! Sagas (714): `K:Chapter:N:A1,A2,...,AN` — chapter abilities, each an SVar naming an
//! untargeted ability ([`crate::effect`]). The card is tagged `saga` with `chapters` = N;
//! the mtg rules (`content/sagas.toml`) add its lore counters and raise `lore_added`, on
//! which the card's trigger puts the chapter ability whose number its `lore` equals on the
//! stack (`<card>_chapter_<i>`). The last chapter's ability ends by sacrificing the Saga
//! when its lore count is at least N (714.4).

use forge_script::{Face, Keyword};
use serde_json::{json, Value};

use crate::trigger::ability_class;

/// What a Saga adds to its card: tags, properties, the card's trigger and the chapter
/// abilities' classes.
pub struct Saga {
    /// `saga`.
    pub tags: Vec<String>,
    /// `chapters`.
    pub props: Vec<(String, Value)>,
    /// The card's trigger on `lore_added`.
    pub trigger: Value,
    /// The chapter abilities' classes (and any class their effects need).
    pub classes: Vec<(String, Value)>,
}

/// Translates `K:Chapter:N:...` of the card `class`; `Err` lists what it lacks.
pub fn translate(face: &Face, class: &str, k: &Keyword) -> Result<Saga, Vec<String>> {
    let lacks = || vec![format!("K:Chapter:{}", k.params.join(":"))];
    let [count, names] = k.params.as_slice() else {
        return Err(lacks());
    };
    let names: Vec<&str> = names.split(',').map(str::trim).collect();
    let chapters = count
        .parse::<usize>()
        .ok()
        .filter(|n| *n > 0 && *n == names.len())
        .ok_or_else(lacks)?;
    let mut classes = Vec::new();
    let mut creates = Vec::new();
    let mut missing = Vec::new();
    for (i, name) in names.iter().enumerate() {
        let chapter = i + 1;
        let Some(a) = face.svar(name).and_then(|s| s.ability.as_ref()) else {
            missing.push(format!("K:Chapter ability {name} (not an ability)"));
            continue;
        };
        let effect = match crate::effect::untargeted(face, class, a) {
            Ok(e) => e,
            Err(m) => {
                missing.extend(m.into_iter().map(|m| format!("K:Chapter {m}")));
                continue;
            }
        };
        let mut actions = effect.actions;
        if chapter == chapters {
            actions.push(json!({ "type": "move", "zone": "graveyard", "to": { "type": "object", "object": "self.source_card",
                "where": [{ "type": "in_zone", "zone": "battlefield" }, { "type": "compare", "left": "target.lore", "op": ">=", "right": "target.chapters" }] } }));
        }
        let ability = format!("{class}_chapter_{chapter}");
        let title = format!("{} (chapter {})", face.name, roman(chapter));
        classes.push((
            ability.clone(),
            ability_class(&title, None, "spell_target", actions),
        ));
        classes.extend(effect.classes);
        creates.push(json!({ "type": "if", "condition": { "type": "compare", "left": "self.lore", "op": "==", "right": chapter },
            "then": [{ "type": "create", "class": ability, "zone": "stack" }] }));
    }
    if !missing.is_empty() {
        return Err(missing);
    }
    Ok(Saga {
        tags: vec!["saga".into()],
        props: vec![("chapters".into(), json!(chapters))],
        trigger: json!({ "when": { "event": "lore_added", "target": { "type": "is_self" } }, "zones": ["battlefield"], "do": creates }),
        classes,
    })
}

/// A chapter's number as printed (I, II, III, ...).
fn roman(n: usize) -> &'static str {
    ["I", "II", "III", "IV", "V", "VI"]
        .get(n - 1)
        .copied()
        .unwrap_or("?")
}
