//! Targets written in an ability's cost as `<target>` elements rather than by reference:
//! a card in a graveyard ([`crate::graveyard`]), any target (`type="dealtable"
//! mode="choose"` with the corpus' `is-targetable-dealtable` test: `target-dealtable`
//! written out), and the card itself (`type="this"`: what the effects act on when nothing
//! is targeted).

use firemox_xml::{Element, Fragments};
use serde_json::Value;

/// What a `<target>` element of a cost chooses.
pub enum Written {
    /// The card itself.
    This,
    /// The targeting tags ([`crate::effects::TARGETS`]) and a filter on the candidate.
    Chosen(Vec<String>, Option<Value>),
}

/// Reads a `<target>` element of a cost; `Err` names what it lacks.
pub fn read(f: &Fragments, t: &Element) -> Result<Written, String> {
    let only = |allowed: &[&str]| {
        t.attrs
            .iter()
            .all(|(k, _)| allowed.contains(&k.as_str()) || k == "name")
    };
    if crate::graveyard::is_target(t) {
        let filter = crate::graveyard::filter(f, t)?;
        return Ok(Written::Chosen(vec![crate::graveyard::TAG.into()], filter));
    }
    match t.attr("type") {
        Some("this") if only(&["type"]) && t.children.is_empty() => Ok(Written::This),
        Some("dealtable")
            if only(&["type", "mode", "restriction-zone"])
                && t.attr("mode") == Some("choose")
                && matches!(t.attr("restriction-zone"), None | Some("play"))
                && matches!(t.children.as_slice(), [c] if c.name == "test"
                    && c.from_ref.as_deref() == Some("is-targetable-dealtable")) =>
        {
            Ok(Written::Chosen(
                vec!["targets_creature".into(), "targets_player".into()],
                None,
            ))
        }
        _ => Err(format!("cost {}", t.start_tag())),
    }
}
