//! Targets written as elements in the cost of an ability of a permanent (rather than by a
//! `target-*` reference): a card in a graveyard ([`crate::graveyard`]), a reference's
//! expansion written out in full (`<target type="dealtable" mode="choose"><test
//! ref="is-targetable-dealtable"/></target>`: `target-dealtable`), and the card itself
//! (`<target type="this"/>`: no target; its effects act on the card, as without one).

use crate::effects::TARGETS;
use crate::graveyard::Targeted;
use firemox_xml::{Element, Fragments};

/// The targeting tags and filter of a `<target>` in a cost; `None` when it is none of the
/// above.
pub fn target(f: &Fragments, t: &Element) -> Option<Targeted> {
    if t.name != "target" {
        return None;
    }
    if let Some(r) = crate::graveyard::target(f, t) {
        return Some(r);
    }
    if t.attrs
        .iter()
        .all(|(k, v)| (k == "type" && v == "this") || k == "name")
        && t.attr("type").is_some()
        && t.children.is_empty()
    {
        return Some(Ok((Vec::new(), None)));
    }
    written_out(f, t).map(|tags| Ok((tags, None)))
}

/// The tags of the `target-*` reference whose expansion `t` is, written out.
fn written_out(f: &Fragments, t: &Element) -> Option<Vec<String>> {
    TARGETS.iter().find_map(|(name, tags)| {
        let site = Element {
            name: "action".into(),
            attrs: vec![("ref".into(), (*name).into())],
            ..Element::default()
        };
        let expanded = firemox_xml::expand::expand_all(f, &[site]).ok()?;
        // (Written out, `restriction-zone="play"` may be left out: the test itself asks
        // for a card in play.)
        let in_play = |e: &Element| Element {
            attrs: e
                .attrs
                .iter()
                .filter(|(k, v)| !(k == "restriction-zone" && v == "play"))
                .cloned()
                .collect(),
            ..e.clone()
        };
        match expanded.as_slice() {
            [e] if same(&in_play(e), &in_play(t)) => {
                Some(tags.iter().map(|s| (*s).to_owned()).collect())
            }
            _ => None,
        }
    })
}

/// Whether two elements are the same but for their lines and where they came from.
fn same(a: &Element, b: &Element) -> bool {
    a.name == b.name
        && a.attrs == b.attrs
        && a.text == b.text
        && a.children.len() == b.children.len()
        && a.children.iter().zip(&b.children).all(|(x, y)| same(x, y))
}
