//! `decklist`: a content loader — a mod can add a file format. A `.deck` file lists one
//! card per line, `name cost attack/health [tag ...]`, and becomes classes exactly as if
//! they had been written in TOML:
//!
//! ```text
//! # name        cost  attack/health  tags
//! ember_whelp   1     2/1            beast
//! stone_golem   3     2/4            taunt
//! ```
//!
//! Each card becomes `[class.NAME]` with `properties = { cost, attack, max_health }` and
//! `tags = ["card", "minion", ...]`. A malformed line is an error at that line.
//!
//! A line `include shared/basics.list` adds the cards of another file of the mod (its
//! path relative to this file's folder), read with the SDK's `load_file`: a list shared by
//! several decks. Included files use another extension than `.deck`, so they are not
//! decks of their own.

use serde_json::{json, Map, Value};
use tessera_plugin_api::prelude::*;

/// One card per line: `name cost attack/health [tag ...]`; `#` starts a comment;
/// `include PATH` adds another file's cards.
#[loader("decklist:loader/cards", extensions = ["deck"])]
fn cards(text: &str) -> Result<Value, LoadError> {
    let mut classes = Map::new();
    let folder = load_path()
        .and_then(|p| p.rsplit_once('/').map(|(dir, _)| dir.to_owned()))
        .unwrap_or_default();
    read_list(text, &folder, &mut classes, 0)?;
    Ok(json!({ "class": classes }))
}

/// Deepest chain of includes (a file including itself stops here).
const MAX_INCLUDES: usize = 8;

/// The cards of `text` (a file in `folder`) into `classes`; errors at offsets into `text`.
fn read_list(
    text: &str,
    folder: &str,
    classes: &mut Map<String, Value>,
    depth: usize,
) -> Result<(), LoadError> {
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let content = line.split('#').next().unwrap_or("").trim();
        if content.is_empty() {
            continue;
        }
        // Where a token starts, for errors.
        let at = |token: &str| start + line.find(token).unwrap_or(0);
        if let Some(path) = content.strip_prefix("include ") {
            include(path.trim(), folder, classes, depth)
                .map_err(|e| LoadError::at(at(path.trim()), e))?;
            continue;
        }
        let mut words = content.split_whitespace();
        let usage =
            "write a card as `name cost attack/health [tag ...]`, e.g. `ember_whelp 1 2/1 beast`";
        let name = words.next().unwrap_or_default();
        if !name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        {
            return Err(LoadError::at(
                at(name),
                format!("`{name}` is not a card name (lowercase letters, digits, `_`)"),
            ));
        }
        let cost = words
            .next()
            .ok_or_else(|| LoadError::at(at(name), format!("`{name}` has no cost; {usage}")))?;
        let cost: i64 = cost
            .parse()
            .map_err(|_| LoadError::at(at(cost), format!("`{cost}` is not a cost; {usage}")))?;
        let stats = words.next().ok_or_else(|| {
            LoadError::at(at(name), format!("`{name}` has no attack/health; {usage}"))
        })?;
        let (attack, health) = stats
            .split_once('/')
            .and_then(|(a, h)| Some((a.parse::<i64>().ok()?, h.parse::<i64>().ok()?)))
            .ok_or_else(|| {
                LoadError::at(
                    at(stats),
                    format!("`{stats}` is not attack/health; {usage}"),
                )
            })?;
        if classes.contains_key(name) {
            return Err(LoadError::at(at(name), format!("`{name}` is listed twice")));
        }
        let mut tags = vec![json!("card"), json!("minion")];
        tags.extend(words.map(|t| json!(t)));
        classes.insert(
            name.to_owned(),
            json!({
                "properties": { "cost": cost, "attack": attack, "max_health": health },
                "tags": tags,
            }),
        );
    }
    Ok(())
}

/// Adds the cards of `path` (relative to `folder`); the error says which file and why.
fn include(
    path: &str,
    folder: &str,
    classes: &mut Map<String, Value>,
    depth: usize,
) -> Result<(), String> {
    if depth >= MAX_INCLUDES {
        return Err(format!(
            "`include {path}`: includes nest deeper than {MAX_INCLUDES} (a file including itself?)"
        ));
    }
    let full = if folder.is_empty() {
        path.to_owned()
    } else {
        format!("{folder}/{path}")
    };
    let bytes = load_file(&full).map_err(|e| format!("`include {path}`: {e}"))?;
    let text = String::from_utf8(bytes).map_err(|_| format!("`{path}` is not UTF-8 text"))?;
    let dir = full.rsplit_once('/').map_or("", |(d, _)| d);
    read_list(&text, dir, classes, depth + 1).map_err(|e| format!("in `{path}`: {}", e.message))
}

export_plugin!(provides = [cards]);
