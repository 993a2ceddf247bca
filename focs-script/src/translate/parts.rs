//! Meters of ship parts. FreeOrion keeps a meter per part name on a ship (`SetCapacity
//! partname = "GT_TROOP_POD" value = …`); in the freeorion mod each part is an object
//! attached to its ship (titled with its FOCS name), carrying its own meters. An effects
//! group that sets part meters becomes, for each part name, a group of its own whose
//! targets are the parts of that name attached to the original group's targets (same
//! source, activation, stacking group, priority and label). `PartCapacity name = P` (and
//! `PartSecondaryStat`) in such an effect is the part type's `base_capacity`
//! (`base_secondary_stat`): a weapon's `damage` (`shots`), another part's `capacity`.

use serde_json::{json, Map, Value as Json};

use super::{Built, Cx};
use crate::{Node, Value};

impl Cx<'_> {
    /// The groups setting part meters: `parts` are (part name, `{ key, value }`) in order.
    pub(crate) fn part_groups(
        &mut self,
        group: &Map<String, Json>,
        parts: &[(String, Json)],
    ) -> Built<Vec<Json>> {
        if parts.is_empty() {
            return Ok(Vec::new());
        }
        // The targets of the original group, as a condition on an ancestor of the part.
        let holder = match group.get("scope") {
            None => json!({ "type": "is_source" }),
            Some(sel) => match selection_condition(sel) {
                Some(c) => c,
                None => {
                    return self.unsupported(
                        0,
                        "a ship part's meter set on a scope that picks objects",
                        "",
                    )
                }
            },
        };
        let mut names: Vec<&String> = Vec::new();
        for (p, _) in parts {
            if !names.contains(&p) {
                names.push(p);
            }
        }
        let mut out = Vec::new();
        for name in names {
            let mut g = group.clone();
            g.insert(
                "scope".into(),
                json!({ "type": "objects", "zone": "universe", "tag": "part", "where": { "all": [
                    { "type": "is", "key": "title", "value": name },
                    { "type": "contained_by", "what": holder },
                ] } }),
            );
            let sets: Vec<Json> = parts
                .iter()
                .filter(|(p, _)| p == name)
                .map(|(_, s)| s.clone())
                .collect();
            g.insert("effects".into(), Json::Array(sets));
            out.push(Json::Object(g));
        }
        Ok(out)
    }

    /// `PartCapacity name = P` where the effect sets part `P`'s meter: the part's `key`.
    pub(crate) fn part_stat(&mut self, n: &Node, key: &str) -> Built<String> {
        let name = match n.get("name") {
            Some(Value::Str(s)) => Some(s.clone()),
            Some(Value::Node(c)) if c.kind == "CurrentContent" => Some(self.entry.clone()),
            _ => None,
        };
        match (name, &self.ship_part) {
            (Some(a), Some(b)) if a == *b => Ok(format!("target.{key}")),
            _ => self.unsupported(
                n.line,
                &format!("{} other than of the part whose meter is set", n.kind),
                "",
            ),
        }
    }
}

/// A selection of objects by tag, zone, owner and condition as one condition (for
/// `contained_by`); `None` when it picks (random, unique, …).
pub(crate) fn selection_condition(sel: &Json) -> Option<Json> {
    let m = sel.as_object()?;
    if m.contains_key("pick") || m.get("type").and_then(Json::as_str) != Some("objects") {
        return None;
    }
    let mut all = Vec::new();
    if let Some(t) = m.get("tag") {
        all.push(json!({ "type": "has_tag", "tag": t }));
    }
    if let Some(z) = m.get("zone") {
        all.push(json!({ "type": "in_zone", "zone": z }));
    }
    if let Some(o) = m.get("owner") {
        all.push(json!({ "type": "owned_by", "owner": o }));
    }
    if let Some(w) = m.get("where") {
        all.push(w.clone());
    }
    Some(json!({ "all": all }))
}
