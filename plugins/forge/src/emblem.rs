//! Emblems (114): `AB$ Effect | Duration$ Permanent | Triggers$ T` — "you get (target
//! opponent gets, `ValidTgts$ Opponent | EffectOwner$ Targeted`) an emblem with
//! 'whenever a player draws a card, you lose 2 life'" (Ob Nixilis Reignited). The emblem is
//! an object of its own class (`<card>_emblem`, tag `emblem`) created in the `command`
//! zone, owned by whoever gets it; its triggers work from there and put their ability
//! (`<card>_emblem_<n>`) on the stack, controlled by the emblem's owner. Emblems with
//! static abilities, and other triggers than a card drawn, stay missing.

use forge_script::{Ability, Face};
use serde_json::{json, Value};

use crate::trigger::ability_class;

/// The parameters of an `Effect` giving an emblem.
const PARAMS: &[&str] = &[
    "AB",
    "SP",
    "ValidTgts",
    "TgtPrompt",
    "EffectOwner",
    "Name",
    "Image",
    "Triggers",
    "Duration",
    "AILogic",
    "SpellDescription",
    "StackDescription",
];

/// The ability (activated or loyalty) `a` giving an emblem: its class and the classes it
/// needs (the emblem's and its triggers' abilities). `Err` lists what the rules lack.
pub fn ability(
    face: &Face,
    class: &str,
    title: &str,
    a: &Ability,
) -> Result<(Value, Vec<(String, Value)>), Vec<String>> {
    let p = |k: &str| a.params.get(k);
    let mut missing: Vec<String> = a
        .params
        .keys_outside(PARAMS)
        .map(|k| format!("A:AB$ Effect with {k}$"))
        .collect();
    if p("Duration") != Some("Permanent") {
        missing.push(format!(
            "A:AB$ Effect for {}",
            p("Duration").unwrap_or("the turn")
        ));
    }
    // Who gets it: the ability's controller, or the opponent it targets.
    let (choose, owner) = match (p("ValidTgts"), p("EffectOwner")) {
        (None, None) => (None, json!("self.owner")),
        (Some("Opponent"), Some("Targeted")) => {
            let prompt = p("TgtPrompt").unwrap_or("Select target opponent");
            let from = json!([{ "type": "players", "which": "enemy" }]);
            (
                Some(json!({ "from": from, "pick": { "chosen": 1, "prompt": prompt } })),
                json!("self.chosen"),
            )
        }
        (v, o) => {
            missing.push(format!(
                "A:AB$ Effect at {} for {}",
                v.unwrap_or("(none)"),
                o.unwrap_or("(none)")
            ));
            (None, Value::Null)
        }
    };
    let emblem = format!("{class}_emblem");
    let mut classes = Vec::new();
    let mut triggers = Vec::new();
    let names = p("Triggers").unwrap_or("");
    for (i, name) in names
        .split(',')
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .enumerate()
    {
        let ability = format!("{emblem}_{}", i + 1);
        match trigger(face, class, name, &ability) {
            Ok((t, mut c)) => {
                triggers.push(t);
                classes.append(&mut c);
            }
            Err(m) => missing.extend(m),
        }
    }
    if triggers.is_empty() {
        missing.push("A:AB$ Effect without Triggers$".into());
    }
    if !missing.is_empty() {
        return Err(missing);
    }
    let name = p("Name").unwrap_or("Emblem");
    classes.insert(
        0,
        (
            emblem.clone(),
            json!({ "properties": { "title": name }, "tags": ["emblem"], "trigger": triggers }),
        ),
    );
    let give = json!({ "type": "create", "class": emblem, "zone": "command", "owner": owner });
    Ok((
        ability_class(title, choose, "spell_target", vec![give]),
        classes,
    ))
}

/// The emblem's trigger `name` (an SVar: `Mode$ Drawn | ValidCard$ Card | TriggerZones$
/// Command | Execute$ X`: whenever a player draws a card) putting `ability` on the stack,
/// and that ability's classes.
fn trigger(
    face: &Face,
    class: &str,
    name: &str,
    ability: &str,
) -> Result<(Value, Vec<(String, Value)>), Vec<String>> {
    let lacks = || vec![format!("emblem trigger {name}")];
    let t = face
        .svar(name)
        .and_then(|s| s.ability.as_ref())
        .ok_or_else(lacks)?;
    let p = |k: &str| t.params.get(k);
    let known = [
        "Mode",
        "ValidCard",
        "TriggerZones",
        "Execute",
        "TriggerDescription",
    ];
    let fits = t.api.as_deref() == Some("Drawn")
        && matches!(p("ValidCard"), None | Some("Card"))
        && p("TriggerZones") == Some("Command")
        && t.params.keys_outside(&known).next().is_none();
    if !fits {
        return Err(vec![format!(
            "emblem trigger Mode$ {}",
            t.api.as_deref().unwrap_or("?")
        )]);
    }
    let exec = p("Execute")
        .and_then(|n| face.svar(n))
        .and_then(|s| s.ability.as_ref())
        .ok_or_else(lacks)?;
    let effect = crate::effect::untargeted(face, class, exec)?;
    let title = format!("{} (emblem: a card is drawn)", face.name);
    let mut classes = vec![(
        ability.to_owned(),
        ability_class(&title, None, "spell_target", effect.actions),
    )];
    classes.extend(effect.classes);
    // The mtg rules raise `card_drawn` at each card drawn.
    let heard = json!({
        "when": { "event": "card_drawn", "player": "any" },
        "zones": ["command"],
        "do": [{ "type": "create", "class": ability, "zone": "stack" }],
    });
    Ok((heard, classes))
}
