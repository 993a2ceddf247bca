//! Counts a card defines for itself: `Count$Valid <valid>` over the battlefield
//! (`Creature.namedRelentless Rats+Other`: the other Relentless Rats) becomes a selector
//! ref of the card's own, `<card>_valid_<i>` (the i-th such count among its SVars), which
//! its expressions read as `count(<card>_valid_<i>)`.

use forge_script::Face;
use serde_json::{json, Map, Value};

use crate::card::slug;

/// The valid expressions of the card's `Count$Valid` SVars the rules' fixed counts
/// ([`crate::statics::COUNTS`]) do not cover, in order, without repeats.
fn valids(face: &Face) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    for s in &face.svars {
        let Some(v) = s.value.strip_prefix("Count$Valid ") else {
            continue;
        };
        let fixed = crate::statics::COUNTS.iter().any(|(c, _)| *c == s.value);
        if !fixed && !out.contains(&v) {
            out.push(v);
        }
    }
    out
}

/// `count(<card>_valid_<i>)` for `Count$Valid <valid>` (`valid` one of [`valids`]).
pub fn count(face: &Face, valid: &str) -> Option<String> {
    crate::valid::condition(valid, "Count$Valid").ok()?;
    let i = valids(face).iter().position(|v| *v == valid)?;
    Some(format!("count({}_valid_{i})", slug(&face.name)))
}

/// The refs of the counts [`count`] names that `content` uses: objects on the
/// battlefield matching each valid expression.
pub fn refs(face: &Face, content: &str) -> Map<String, Value> {
    let class = slug(&face.name);
    let mut refs = Map::new();
    for (i, v) in valids(face).into_iter().enumerate() {
        if !content.contains(&format!("count({class}_valid_{i})")) {
            continue;
        }
        if let Ok(which) = crate::valid::condition(v, "Count$Valid") {
            refs.insert(
                format!("{class}_valid_{i}"),
                json!({ "selector": { "type": "objects", "zone": "battlefield", "where": which } }),
            );
        }
    }
    refs
}
