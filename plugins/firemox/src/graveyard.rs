//! A card in a graveyard as the target of an ability (`<target type="card" mode="choose"
//! restriction-zone="graveyard">` in the cost, maybe with a `<test>` on the card: Volrath's
//! Stronghold's "target creature card in your graveyard", Steamclaw's "target card in a
//! graveyard"): the mtg rules' `targets_graveyard_card`, chosen among the cards of every
//! graveyard that pass the test, and re-checked as the ability resolves
//! (`mtg:ref/graveyard_target`: still in a graveyard, else it fizzles).

use firemox_xml::{Element, Fragments};
use serde_json::{json, Value};

/// The targeting tag of graveyard card targets.
pub const TAG: &str = "targets_graveyard_card";

/// Whether `e` is a graveyard card target element (whatever its test).
pub fn is_target(e: &Element) -> bool {
    e.name == "target"
        && e.attr("type") == Some("card")
        && e.attr("restriction-zone") == Some("graveyard")
}

/// The filter of a graveyard card target `e` (its `<test>` as an mtg condition on the
/// candidate, `None` without one), or what it lacks.
pub fn filter(f: &Fragments, e: &Element) -> Result<Option<Value>, String> {
    let known = e.attrs.iter().all(|(k, v)| match k.as_str() {
        "type" | "restriction-zone" | "name" => true,
        "mode" => v == "choose",
        "raise-event" => v == "true" || v == "false",
        _ => false,
    });
    if !known || e.attr("mode") != Some("choose") {
        return Err(format!("graveyard target {}", e.start_tag()));
    }
    match e.children.as_slice() {
        [] => Ok(None),
        [t] if t.name == "test" => crate::conditions::condition(f, t)
            .map(Some)
            .map_err(|m| format!("graveyard target {m}")),
        _ => Err("graveyard target with more than a test".into()),
    }
}

/// The candidates of a graveyard card target: the cards of every graveyard.
pub fn candidates() -> Value {
    json!({ "type": "objects", "zone": "graveyard", "tag": "card" })
}

/// A spell's graveyard target (`e`), as the mtg rules' `cast_at_graveyard_card` says
/// them: a card in its caster's graveyard (the test `<controller player="controller"/>`
/// or `"you"`: Regrowth), a creature card with `<has-idcard idcard="creature"/>` too
/// (Raise Dead: `tgt_creature`). Its tags, or what it lacks (another player's graveyard:
/// Reanimate).
pub fn spell_tags(e: &Element) -> Result<Vec<String>, String> {
    let lacks = || format!("graveyard target {}", e.start_tag());
    let known = e.attrs.iter().all(|(k, v)| match k.as_str() {
        "type" | "restriction-zone" | "name" => true,
        "mode" => v == "choose",
        "raise-event" => v == "true" || v == "false",
        _ => false,
    });
    let [test] = e.children.as_slice() else {
        return Err(lacks());
    };
    if !known || test.name != "test" || !test.attrs.is_empty() {
        return Err(lacks());
    }
    let parts = match test.children.as_slice() {
        [and] if and.name == "and" && and.attrs.is_empty() => and.children.as_slice(),
        list => list,
    };
    let mut tags = vec![TAG.to_owned()];
    let mut yours = false;
    for p in parts {
        let only =
            |k: &str, v: &str| p.children.is_empty() && p.attrs.len() == 1 && p.attr(k) == Some(v);
        match p.name.as_str() {
            "controller" if only("player", "controller") || only("player", "you") => yours = true,
            "has-idcard" if only("idcard", "creature") => tags.push("tgt_creature".into()),
            _ => return Err(format!("graveyard target test <{}>", p.name)),
        }
    }
    if yours {
        Ok(tags)
    } else {
        Err("graveyard target in any graveyard".into())
    }
}

#[cfg(test)]
mod tests {
    use super::spell_tags;

    fn target(xml: &str) -> firemox_xml::Element {
        firemox_xml::tree::parse(xml).expect("well-formed")
    }

    #[test]
    fn a_creature_card_of_yours() {
        let t = target(
            r#"<target mode="choose" type="card" restriction-zone="graveyard"><test><and><controller player="controller"/><has-idcard idcard="creature"/></and></test></target>"#,
        );
        assert_eq!(
            spell_tags(&t).expect("sayable"),
            ["targets_graveyard_card", "tgt_creature"]
        );
    }

    #[test]
    fn any_graveyard_or_another_test_is_missing() {
        let any = target(
            r#"<target type="card" restriction-zone="graveyard"><test><has-idcard idcard="creature"/></test></target>"#,
        );
        assert_eq!(
            spell_tags(&any).unwrap_err(),
            "graveyard target in any graveyard"
        );
        let colour = target(
            r#"<target type="card" restriction-zone="graveyard"><test><and><controller player="you"/><has-color color="green"/></and></test></target>"#,
        );
        assert!(spell_tags(&colour).unwrap_err().contains("has-color"));
    }
}
