//! `hearthbreaker`: a content loader for Hearthbreaker's card definitions
//! (`card_defs.json`, the JSON its tag classes serialize to). Every card becomes a class in
//! the `hearthbreaker` namespace, and every name of Hearthbreaker's vocabulary becomes a
//! Tessera id the `hearthbreaker` mod defines in content:
//!
//! | Hearthbreaker | Tessera |
//! |---|---|
//! | action `{"name": "draw", ...}` | `{ type = "hearthbreaker:action/draw", ... }` |
//! | selector `{"name": "minion", "players", "picker", "condition"}` | `{ type = "hearthbreaker:selector/minion", players, where, pick }` |
//! | condition `{"name": "is_type", ...}` (`and` / `not`) | `{ type = "hearthbreaker:condition/is_type", ... }` (`all` / `not`) |
//! | event `{"event_name", "player", "condition"}` | `when = { event = "hearthbreaker:event/<name>", player, target }` |
//! | picker `all` / `random` (`count`) / `user` | `pick = "all"` / `{ random = N }` / `{ chosen = 1 }` |
//! | status (`change_attack`, `taunt`, ...) | aura modifiers ([`status`]) |
//! | function (`count`, `attribute`, ...) | expressions ([`amount`]) |
//! | card source (`collection`, `deck`, ...) and card names | class ids or selectors for `create` ([`card`]) |
//!
//! The translation is structural: an unknown name becomes an id the mod does not define,
//! which the content compiler reports as an unknown action/condition/selector/event at
//! the card — so "zero unknown names" is checked by loading. The semantics of each id live
//! in the mod's content (`mods/hearthbreaker/content`).

mod action;
mod card;
mod translate;

use serde_json::Value;
use tessera_plugin_api::prelude::*;

pub use translate::{amount, card_source, status};

/// Hearthbreaker's `card_defs.json` → `[class.*]` (plus generated `[ref.*]` selections for
/// `attribute` amounts). Reads `*.hbjson` files, and any file `mod.toml` names for it
/// (`[content] loaders = { "card_defs.json" = "cards" }`).
#[loader("hearthbreaker:loader/cards", extensions = ["hbjson"])]
fn cards(text: &str) -> Result<Value, LoadError> {
    let defs: Value = serde_json::from_str(text).map_err(|e| {
        let offset = line_offset(text, e.line(), e.column());
        LoadError::at(offset, format!("not Hearthbreaker card JSON: {e}"))
    })?;
    let ranges = card_ranges(text);
    let tree = card::translate_all(&defs).map_err(|e| {
        let offset = ranges.get(e.index).map_or(0, |r| r.start);
        LoadError::at(offset, format!("card `{}`: {}", e.card, e.message))
    })?;
    // Errors the host finds in a card's class point at the card's line in the file.
    for (class, range) in card::class_names(&defs).iter().zip(&ranges) {
        report_span(format!("class.{class}"), range.clone());
    }
    Ok(tree)
}

/// The byte ranges of the top-level list's objects (the cards), in order: a brace matcher
/// that skips strings (serde_json keeps no positions).
fn card_ranges(text: &str) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let (mut depth, mut start, mut in_str, mut escaped) = (0usize, 0usize, false, false);
    for (i, b) in text.bytes().enumerate() {
        if in_str {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_str = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_str = true,
            b'{' | b'[' => {
                if depth == 1 && b == b'{' {
                    start = i;
                }
                depth += 1;
            }
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                if depth == 1 && b == b'}' {
                    out.push(start..i + 1);
                }
            }
            _ => {}
        }
    }
    out
}

/// The content tree of a parsed `card_defs.json` (what the loader returns), or why a card
/// cannot be translated (`card: message`).
pub fn translate_file(defs: &Value) -> Result<Value, String> {
    card::translate_all(defs).map_err(|e| format!("card `{}`: {}", e.card, e.message))
}

fn line_offset(text: &str, line: usize, col: usize) -> usize {
    text.split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum::<usize>()
        + col.saturating_sub(1)
}

export_plugin!(provides = [cards]);
