//! FOCS conditions and values about what a ship is built of and what a species can do,
//! read from the objects attached to it: in the freeorion mod a ship's hull and each of
//! its parts are objects of the `Hull`/`Part` class attached to the ship (their `title`
//! is the FOCS name), and a planet's or ship's species an object of its `Species` class,
//! tagged with the species' flags (`CanColonize` → `can_colonize`).
//!
//! - `DesignHasHull name = "SH_ROBOTIC"` → the ship contains a hull titled so.
//! - `DesignHasPart low = 1 high = 999 name = "GT_TROOP_POD"` → at least `low` (default 1,
//!   FreeOrion's) and at most `high` parts titled so are attached.
//! - `Design name = "SM_KRILL_1"` → a ship of that (premade) design: its `design`.
//! - `HullFuel name = Source.Hull` → the `base_fuel` (the hull's `fuel`) of the hull
//!   attached to the source.
//! - `CanColonize`, `CanProduceShips` → the object's species has the flag.
//! - `ResourceSupplyConnected empire = E condition = C` → `connected` to an object
//!   matching `C` through systems `E`'s supply reaches: a system is supplied when a planet
//!   `E` owns is within its `supply` meter's jumps of it (no contested or obstructed
//!   supply).
//! - `VisibleToEmpire empire = E` → true when the mod's game rule `RULE_ALL_OBJECTS_VISIBLE`
//!   is 1 (FreeOrion's rule of the same name: every object visible to every empire); the
//!   mod has no detection model, so without the rule the condition is unsupported.

use serde_json::{json, Value as Json};

use super::values::Locals;
use super::{class_name, Built, Cx};
use crate::{Node, Value};

impl Cx<'_> {
    /// `DesignHasHull name = X` / `DesignHasPart [low = L] [high = H] name = X`.
    pub(crate) fn design_has(&mut self, n: &Node, tag: &str) -> Built<Json> {
        let Some(Value::Str(name)) = n.get("name") else {
            return self.unsupported(n.line, &format!("{} without a text name", n.kind), "");
        };
        let what = json!({ "all": [
            { "type": "has_tag", "tag": tag },
            { "type": "is", "key": "title", "value": name },
        ] });
        self.design_count(n, what, "name")
    }

    /// `DesignHasPartClass low = 1 high = 999 class = Stealth`: the ship contains a part of
    /// that class (a part's class is its tag: `stealth`).
    pub(crate) fn design_has_class(&mut self, n: &Node) -> Built<Json> {
        let Some(Value::Node(c)) = n.get("class") else {
            return self.unsupported(n.line, "DesignHasPartClass without a class word", "");
        };
        let what = json!({ "all": [
            { "type": "has_tag", "tag": "part" },
            { "type": "has_tag", "tag": super::snake(&c.kind) },
        ] });
        self.design_count(n, what, "class")
    }

    /// A ship holding at least `low` (default 1) parts matching `what` (no upper bound, or
    /// `high` ≥ 999, which the content writes for "any").
    fn design_count(&mut self, n: &Node, what: Json, label: &str) -> Built<Json> {
        let bound = |cx: &mut Self, label: &str| -> Built<Option<f64>> {
            match n.get(label) {
                None => Ok(None),
                Some(v) => match cx.constant(v) {
                    Some(x) => Ok(Some(x)),
                    None => {
                        cx.unsupported(n.line, &format!("{} {label} = <not a number>", n.kind), "")
                    }
                },
            }
        };
        let low = bound(self, "low")?.unwrap_or(1.0);
        let high = bound(self, "high")?;
        if n.params
            .iter()
            .any(|(l, _)| l != label && !matches!(l.as_str(), "low" | "high"))
        {
            return self.unsupported(n.line, &format!("{} with other parameters", n.kind), "");
        }
        // At least one, and no upper bound (the content writes `high = 999` for "any"):
        // the ship contains one.
        if low <= 1.0 && high.is_none_or(|h| h >= 999.0) {
            let has = json!({ "type": "contains", "what": what });
            return Ok(if low <= 0.0 {
                json!({ "all": [] })
            } else {
                has
            });
        }
        // Other counts would need the parts counted per ship: not modelled.
        self.unsupported(
            n.line,
            &format!("{} counting from {low} to {high:?}", n.kind),
            "",
        )
    }

    /// `CanColonize`: the object (a planet or ship) has a species with the flag.
    pub(crate) fn species_flag(&mut self, flag: &str) -> Json {
        json!({ "type": "contains", "what": { "all": [
            { "type": "has_tag", "tag": "species" },
            { "type": "has_tag", "tag": super::snake(flag) },
        ] } })
    }

    /// `VisibleToEmpire empire = E`: see the module's doc.
    pub(crate) fn visible_to_empire(&mut self, n: &Node) -> Built<Json> {
        match self.rules.game_rules.get("RULE_ALL_OBJECTS_VISIBLE") {
            Some(v) if *v == 1.0 => Ok(json!({ "all": [] })),
            _ => self.unsupported(
                n.line,
                "VisibleToEmpire (no detection model; the game rule RULE_ALL_OBJECTS_VISIBLE is not 1)",
                "",
            ),
        }
    }

    /// `HullFuel name = Source.Hull`: property `key` of the hull attached to the source.
    pub(crate) fn hull_stat(&mut self, n: &Node, b: &mut Locals, key: &str) -> Built<String> {
        match n.get("name") {
            Some(Value::Ref(p)) if p.len() == 2 && p[0] == "Source" && p[1] == "Hull" => {
                let name = format!("stat{}", b.lets.len() + 1);
                b.lets.insert(
                    name.clone(),
                    json!({ "sum": { "type": "objects", "tag": "hull", "where": {
                        "type": "contained_by", "what": { "type": "is_source" },
                    } }, "key": key }),
                );
                Ok(name)
            }
            Some(Value::Str(s)) => self.unsupported(
                n.line,
                &format!(
                    "{} of the hull type {} (not the source's)",
                    n.kind,
                    class_name(s)
                ),
                "",
            ),
            _ => self.unsupported(
                n.line,
                &format!("{} of a hull other than Source.Hull", n.kind),
                "",
            ),
        }
    }

    /// `ResourceSupplyConnected empire = E condition = C`: see the module's doc.
    pub(crate) fn supply_connected(&mut self, n: &Node) -> Built<Json> {
        let (Some(e), Some(c)) = (n.get("empire"), n.get("condition")) else {
            return self.unsupported(
                n.line,
                &format!("{} without empire and condition", n.kind),
                "",
            );
        };
        let mut empire = self.object_ref(&e.clone(), n.line)?;
        // A scope's candidates owned by the source's owner (`And [ … OwnedBy empire =
        // Source.Owner … ResourceSupplyConnected empire = LocalCandidate.Owner … ]`): the
        // candidate's empire is the source's owner.
        if empire == "target.owner" && self.depth == 0 && self.candidate_owned_by_source_owner {
            empire = "source.owner".into();
        }
        // Evaluated at each system of the path, where `target` is that system.
        if empire.starts_with("target") || empire.starts_with("root") {
            return self.unsupported(
                n.line,
                &format!("{} for the empire of the candidate", n.kind),
                "",
            );
        }
        let of = self.objects_where(c)?;
        let supplied = json!({ "type": "number", "low": 1, "of": {
            "type": "objects", "zone": "universe", "tag": "planet", "where": { "all": [
                { "type": "same", "a": "target.owner", "b": empire },
                { "type": "within_jumps", "jumps": "target.supply",
                  "of": { "type": "object", "object": "root" } },
            ] } } });
        Ok(json!({ "type": "connected", "of": of, "through": supplied }))
    }

    /// `Design name = "SM_KRILL_1"`: a ship whose `design` is that name.
    pub(crate) fn design_named(&mut self, n: &Node) -> Built<Json> {
        match n.get("name") {
            Some(Value::Str(s)) => Ok(json!({ "all": [
                { "type": "has_tag", "tag": "ship" },
                { "type": "is", "key": "design", "value": s },
            ] })),
            _ => self.unsupported(n.line, "Design without a text name", ""),
        }
    }
}
