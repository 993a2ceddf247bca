//! Empire meters and stockpiles. The freeorion mod's empire (a player object) carries its
//! meters as properties (`SOCIAL_CATEGORY_NUM_POLICY_SLOTS` → `social_category_num_policy_slots`),
//! which the effects pass resets each turn as FreeOrion's `Empire::ResetMeters` does, and
//! its stockpiles (`influence_stockpile`).
//!
//! - `SetEmpireMeter empire = E meter = M value = …` → a group of its own whose target is
//!   the empire `E` (same source, activation, stacking group, priority and label), setting
//!   property `m` with the running `value`. FreeOrion applies it once per target of the
//!   group's scope; the translation applies it once, so it is supported where the scope
//!   has at most one object: `Source`, or a scope naming one (`Object id = …`, one empire's
//!   `Capital`),
//!   and then only when that scope selects something.
//! - `EmpireStockpile empire = E resource = R` → `E.r_stockpile`; as a condition with
//!   `low`/`high`, bounds on it.
//! - `SpeciesShipsDestroyed empire = E` → `E.ships_destroyed`; `TurnsSincePolicyAdopted
//!   empire = E name = P` → the current turn less the `adopted_turn` of `E`'s adopted `P`.

use serde_json::{json, Map, Value as Json};

use super::{class_name, snake, Built, Cx};
use crate::{Node, Value};

impl Cx<'_> {
    /// `SetEmpireMeter`: the empire's reference and the `{ key, value }` effect.
    pub(crate) fn empire_meter(&mut self, n: &Node) -> Built<(String, Json)> {
        let (Some(e), Some(Value::Str(meter)), Some(v)) =
            (n.get("empire"), n.get("meter"), n.get("value"))
        else {
            return self.unsupported(n.line, "SetEmpireMeter without empire, meter and value", "");
        };
        let empire = self.object_ref(&e.clone(), n.line)?;
        if empire.starts_with("target") || empire.starts_with("root") {
            return self.unsupported(n.line, "SetEmpireMeter of the target's empire", "");
        }
        let key = class_name(meter);
        let value = self.value(&v.clone())?;
        Ok((empire, json!({ "key": key, "value": value })))
    }

    /// The groups setting empire meters (see the module doc); `scope` is the FOCS scope.
    pub(crate) fn empire_groups(
        &mut self,
        group: &Map<String, Json>,
        sets: &[(String, Json)],
        scope: Option<&Value>,
    ) -> Built<Vec<Json>> {
        if sets.is_empty() {
            return Ok(Vec::new());
        }
        if !scope.is_none_or(at_most_one) {
            return self.unsupported(
                0,
                "SetEmpireMeter in a group whose scope may hold several objects",
                "",
            );
        }
        let mut empires: Vec<&String> = Vec::new();
        for (e, _) in sets {
            if !empires.contains(&e) {
                empires.push(e);
            }
        }
        let mut out = Vec::new();
        for empire in empires {
            let mut g = group.clone();
            if let Some(sel) = group.get("scope") {
                // Only when the original scope selects its object.
                let selects = json!({ "type": "number", "low": 1, "of": sel });
                let activation = match group.get("activation") {
                    Some(a) => json!({ "all": [a, selects] }),
                    None => selects,
                };
                g.insert("activation".into(), activation);
            }
            g.insert(
                "scope".into(),
                json!({ "type": "object", "object": empire }),
            );
            let effects: Vec<Json> = sets
                .iter()
                .filter(|(e, _)| e == empire)
                .map(|(_, s)| s.clone())
                .collect();
            g.insert("effects".into(), Json::Array(effects));
            out.push(Json::Object(g));
        }
        Ok(out)
    }

    /// `EmpireStockpile empire = E resource = R` as expression text.
    pub(crate) fn stockpile(&mut self, n: &Node) -> Built<String> {
        let (Some(e), Some(Value::Node(r))) = (n.get("empire"), n.get("resource")) else {
            return self.unsupported(n.line, "EmpireStockpile without empire and resource", "");
        };
        let empire = self.object_ref(&e.clone(), n.line)?;
        Ok(format!("{empire}.{}_stockpile", snake(&r.kind)))
    }

    /// `SpeciesShipsDestroyed empire = E`: the ships `E` has destroyed (of every species),
    /// its `ships_destroyed` counter. A `species` parameter is not supported.
    pub(crate) fn ships_destroyed(&mut self, n: &Node) -> Built<String> {
        let Some(e) = n.get("empire") else {
            return self.unsupported(n.line, "SpeciesShipsDestroyed without an empire", "");
        };
        if n.params.len() != 1 {
            return self.unsupported(n.line, "SpeciesShipsDestroyed of one species", "");
        }
        let empire = self.object_ref(&e.clone(), n.line)?;
        Ok(format!("{empire}.ships_destroyed"))
    }

    /// `TurnsSincePolicyAdopted empire = E name = P`: the turns since `E` adopted `P` (the
    /// current turn less the `adopted_turn` the mod records when a policy object moves to
    /// zone `adopted`); 0 when `E` has not adopted it.
    pub(crate) fn turns_since_adopted(
        &mut self,
        n: &Node,
        b: &mut super::values::Locals,
    ) -> Built<String> {
        let name = match n.get("name") {
            Some(Value::Str(s)) => s.clone(),
            Some(Value::Node(t)) if t.kind.starts_with("This") && t.params.is_empty() => {
                self.entry.clone()
            }
            _ => {
                return self.unsupported(
                    n.line,
                    "TurnsSincePolicyAdopted of a policy not named",
                    "",
                )
            }
        };
        let Some(e) = n.get("empire") else {
            return self.unsupported(n.line, "TurnsSincePolicyAdopted without an empire", "");
        };
        let empire = self.object_ref(&e.clone(), n.line)?;
        let adopted = json!({ "type": "objects", "zone": "adopted", "where": { "all": [
            { "type": "is", "key": "title", "value": name },
            { "type": "same", "a": "target.owner", "b": empire },
        ] } });
        let has = format!("stat{}", b.lets.len() + 1);
        b.lets
            .insert(has.clone(), json!({ "exists": adopted.clone() }));
        let since = format!("stat{}", b.lets.len() + 1);
        b.lets.insert(
            since.clone(),
            json!({ "min": adopted, "key": "adopted_turn" }),
        );
        Ok(format!("({has} * (tick - {since}))"))
    }

    /// `EmpireStockpile … low = X high = Y` as a condition.
    pub(crate) fn stockpile_range(&mut self, n: &Node) -> Built<Json> {
        let expr = self.stockpile(n)?;
        let mut all = Vec::new();
        for (label, op) in [("low", ">="), ("high", "<=")] {
            if let Some(v) = n.get(label) {
                let bound = self.value(&v.clone())?;
                all.push(json!({ "type": "compare", "left": expr, "op": op, "right": bound }));
            }
        }
        Ok(json!({ "all": all }))
    }
}

/// A FOCS scope that holds at most one object: `Source`, or an `And` naming one
/// (`Object id = …`, or `Capital` with `OwnedBy`: one empire's capital).
fn at_most_one(scope: &Value) -> bool {
    match scope {
        Value::Node(n) if n.kind == "Source" && n.params.is_empty() => true,
        Value::Node(n) if n.kind == "Object" => true,
        Value::Node(n) if n.kind == "And" || n.kind == "AND" => match n.args.first() {
            Some(Value::List(items)) => {
                let has = |kind: &str| {
                    items
                        .iter()
                        .any(|i| matches!(i, Value::Node(c) if c.kind == kind))
                };
                // One capital per empire: the capital of one owner.
                has("Object") || (has("Capital") && has("OwnedBy"))
            }
            _ => false,
        },
        _ => false,
    }
}
