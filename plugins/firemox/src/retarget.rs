//! `<target>` inside a list of effects: what the effects after it act on — the card of an
//! ability, what it is attached to, its controller, every card in play passing a test, or
//! what the triggering event was about (Firemox's event context, `context.card` & co.).

use firemox_xml::{Element, Fragments};
use serde_json::{json, Value};

use crate::effects::Cx;

/// A `<target>` inside effects that changes what the next effects act on: `this` (the
/// card of an ability), `attachedto` (what that card, an Aura, enchants), `you` or `controller` (the card's controller), or every card in play passing a test
/// (`mode="all"`, as `all-creatures` expands). `None` when `e` is not such a target.
pub fn retarget(f: &Fragments, e: &Element, cx: &Cx) -> Option<Result<Value, String>> {
    if e.name != "target" {
        return None;
    }
    let only = |keys: &[&str]| e.attrs.iter().all(|(k, _)| keys.contains(&k.as_str()));
    Some(match (e.attr("type"), e.attr("mode")) {
        (Some("this"), None) if e.children.is_empty() && only(&["type", "name"]) => cx
            .this
            .clone()
            .ok_or_else(|| "<target type=\"this\"> in a spell".to_owned()),
        (Some("you" | "controller"), None) if e.children.is_empty() && only(&["type", "name"]) => {
            Ok(json!("owner"))
        }
        // The permanent the ability's card (an Aura) enchants, while it is on the
        // battlefield (the mtg rules attach an aura as its `parent`).
        (Some("attachedto"), None) if e.children.is_empty() && only(&["type", "name"]) => cx
            .this
            .as_ref()
            .map(|_| json!({ "type": "object", "object": "self.source_card.parent", "where": { "type": "in_zone", "zone": "battlefield" } }))
            .ok_or_else(|| "<target type=\"attachedto\"> in a spell".to_owned()),
        (Some(t), None)
            if t.starts_with("context.") && e.children.is_empty() && only(&["type", "name"]) =>
        {
            context_target(t, cx)
        }
        (Some("card"), Some("all"))
            if e.attr("restriction-zone") == Some("play")
                && only(&["type", "mode", "restriction-zone", "name"]) =>
        {
            match e.children.as_slice() {
                [t] if t.name == "test" => crate::conditions::condition(f, t)
                    .map(|c| json!({ "type": "objects", "zone": "battlefield", "where": c }))
                    .map_err(|m| format!("<target mode=\"all\"> {m}")),
                _ => Err("<target mode=\"all\"> without one test".into()),
            }
        }
        _ => Err(format!("<target> {}", e.start_tag())),
    })
}

/// `<target type="context.card">` (and `card2`, `player`, `card.controller`, ...): the
/// object the triggering event was about, which the ability object remembers as its
/// `context_card` (&c.) link ([`Cx::context`]); a card's controller is its owner (the mtg
/// rules have no change of control).
fn context_target(register: &str, cx: &Cx) -> Result<Value, String> {
    let lacks = || format!("<target type=\"{register}\">");
    let rest = register.strip_prefix("context.").ok_or_else(lacks)?;
    let (base, of) = match rest.split_once('.') {
        Some((b, "controller" | "owner")) => (b, ".owner"),
        Some(_) => return Err(lacks()),
        None => (rest, ""),
    };
    let known =
        cx.context.iter().any(|(k, _)| *k == base) && !crate::trigger_context::is_number(base);
    if !known || (base == "player" && !of.is_empty()) {
        return Err(lacks());
    }
    Ok(json!({ "type": "object", "object": format!("self.context_{base}{of}") }))
}
