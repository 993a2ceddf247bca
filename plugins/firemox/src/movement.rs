//! Effects moving the target between zones (`<move-card>`, `move-library-top`,
//! `move-library-bottom`): to the top or the bottom of its owner's library, or onto the
//! battlefield, under its owner's control: the mtg rules have no change of control, so
//! `controller="you"` (of cards the card's test says are yours) is read as the owner, and
//! other controllers are missing.

use firemox_xml::Element;
use serde_json::{json, Value};

/// `<move-card>` of the target to the top or the bottom of its owner's library
/// (`move-library-top`), or onto the battlefield (under its owner's control: the mtg rules
/// have no change of control).
pub fn move_card(e: &Element, to: &Value) -> Result<Vec<Value>, String> {
    let owner = matches!(e.attr("controller"), Some("owner" | "target.owner" | "you"));
    let known = e.children.is_empty()
        && e.attrs.iter().all(|(k, _)| {
            matches!(
                k.as_str(),
                "destination" | "position" | "controller" | "name"
            )
        });
    match (e.attr("destination"), e.attr("position")) {
        (Some("library"), Some("top")) if owner && known => Ok(vec![
            json!({ "type": "move", "zone": "library", "slot": 0, "to": to }),
        ]),
        (Some("library"), Some("bottom")) if owner && known => {
            Ok(vec![json!({ "type": "move", "zone": "library", "to": to })])
        }
        (Some("play"), None) if owner && known => Ok(vec![
            json!({ "type": "move", "zone": "battlefield", "to": to }),
        ]),
        _ => Err(format!("<move-card> {}", e.start_tag())),
    }
}
