//! "You may have this enter the battlefield as a copy of a creature (land) on the
//! battlefield" (`K:ETBReplacement:Copy:<svar>:Optional`, `<svar>` = `DB$ ChooseCard |
//! Choices$ Creature.Other | SubAbility$ DBCopy` with `DBCopy` = `DB$ Clone | Defined$
//! Remembered`, `IntoPlayTapped$` for Vesuva): a replacement of the card as it would
//! enter, asking its controller whether and what to copy; the card becomes an object of
//! the chosen one's class (the host's `become`: 707.2, copiable values), tagged
//! `<card>_copy`. Once it leaves the battlefield the copy effect ends: a world trigger
//! the card defines turns it back into itself (400.7: it is a new object).

use forge_script::{Face, Keyword};
use serde_json::{json, Value};

/// The card's replacement and the world trigger (name, definition) ending the copy.
pub struct EntersAsCopy {
    /// The class replacement on `moved` to the battlefield.
    pub replacement: Value,
    /// `<card>_copy_ends` (on `moved`) and `<card>_copy_ends_destroyed` (on `destroyed`).
    pub triggers: Vec<(String, Value)>,
}

/// Translates `K:ETBReplacement:Copy:<svar>:Optional` of the card `class`; `Err` names the
/// construct it lacks.
pub fn enters_as_copy(face: &Face, class: &str, k: &Keyword) -> Result<EntersAsCopy, String> {
    let lacks = || format!("K:ETBReplacement:{}", k.params.join(":"));
    let [kind, svar, optional] = k.params.as_slice() else {
        return Err(lacks());
    };
    if kind != "Copy" || optional != "Optional" {
        return Err(lacks());
    }
    let choose = face
        .svar(svar)
        .and_then(|s| s.ability.as_ref())
        .ok_or_else(lacks)?;
    let p = |key: &str| choose.params.get(key);
    let copy = p("SubAbility")
        .and_then(|n| face.svar(n))
        .and_then(|s| s.ability.as_ref())
        .ok_or_else(lacks)?;
    let fits = choose.api.as_deref() == Some("ChooseCard")
        && matches!(p("Defined"), None | Some("You"))
        && matches!(p("Amount"), None | Some("1"))
        && p("RememberChosen") == Some("True")
        && choose
            .params
            .keys_outside(&[
                "DB",
                "Cost",
                "Defined",
                "Amount",
                "Choices",
                "SubAbility",
                "RememberChosen",
                "AILogic",
                "SpellDescription",
            ])
            .next()
            .is_none()
        && copy.api.as_deref() == Some("Clone")
        && copy.params.get("Defined") == Some("Remembered")
        && copy
            .params
            .keys_outside(&["DB", "Defined", "IntoPlayTapped"])
            .next()
            .is_none();
    if !fits {
        return Err(lacks());
    }
    let which =
        crate::valid::condition(p("Choices").unwrap_or("?"), "ETBReplacement:Copy Choices$")?;
    let tag = format!("{class}_copy");
    let mut copy_actions = vec![
        json!({ "type": "tag", "tag": tag, "to": "self" }),
        json!({ "type": "become", "to": "self", "class_of": { "type": "objects", "zone": "battlefield", "where": which,
            "pick": { "chosen": 1, "prompt": format!("{}: the permanent to copy", face.name) } } }),
    ];
    if copy.params.get("IntoPlayTapped") == Some("True") {
        copy_actions.push(json!({ "type": "tag", "tag": "tapped", "to": "self" }));
    }
    let replacement = json!({
        "would": { "event": "core:event/moved", "target": [{ "type": "is_self" }, { "type": "event_field", "field": "to", "is": "battlefield" }] },
        "do": [{ "type": "choose_mode", "prompt": format!("{}: enter as a copy?", face.name), "modes": [
            { "label": "yes", "do": copy_actions },
            { "label": "no", "do": [] },
        ] }],
    });
    let ends = |event: &str| {
        json!({
            "when": { "event": event, "target": [{ "type": "has_tag", "tag": tag }, { "not": { "type": "in_zone", "zone": "battlefield" } }] },
            "do": [{ "type": "untag", "tag": tag }, { "type": "become", "class": class }],
        })
    };
    let triggers = vec![
        (format!("{class}_copy_ends"), ends("core:event/moved")),
        (
            format!("{class}_copy_ends_destroyed"),
            ends("core:event/destroyed"),
        ),
    ];
    Ok(EntersAsCopy {
        replacement,
        triggers,
    })
}
