//! FOCS scopes that pick objects (`Unique`, `NumberOf`) and species opinions.
//!
//! - `Unique sortkey = LocalCandidate.Species condition = C` → the objects matching `C`,
//!   one per distinct `species` (`pick = { unique = "species" }`: the first in id order).
//! - `NumberOf number = N condition = C` → `N` of them at random (`pick = { random = N }`,
//!   the world's seeded RNG), as FreeOrion's `NumberOf` picks.
//! - `SetSpeciesTargetOpinion species = Target.Species empire = E opinion = Value ± X`
//!   → the target raises `freeorion:event/species_opinion` with source `E` and amount
//!   `±X` (evaluated for the target, so `Target.Owner` in `X` is the picked object's); the
//!   freeorion mod adds it to the `target_opinion` of the opinion object of the target's
//!   species owned by `E`. Other opinion forms (`opinion = Value * 2`, a species given by
//!   name) are unsupported.

use serde_json::{json, Value as Json};

use super::{snake, Built, Cx};
use crate::{Node, Value};

impl Cx<'_> {
    /// A scope that is a `Unique` or `NumberOf`: `None` when it is neither.
    pub(crate) fn picking_scope(&mut self, v: &Value) -> Option<Built<Json>> {
        let Value::Node(n) = v else { return None };
        let pick = match n.kind.as_str() {
            "Unique" => match n.get("sortkey") {
                Some(Value::Ref(p)) if p.len() == 2 && p[0] == "LocalCandidate" => {
                    json!({ "unique": snake(&p[1]) })
                }
                _ => {
                    return Some(self.unsupported(
                        n.line,
                        "Unique with a sort key other than LocalCandidate.<property>",
                        "",
                    ))
                }
            },
            "NumberOf" => match n.get("number").map(|v| self.value(v)) {
                Some(Ok(count)) => json!({ "random": count }),
                Some(Err(stop)) => return Some(Err(stop)),
                None => return Some(self.unsupported(n.line, "NumberOf without a number", "")),
            },
            _ => return None,
        };
        Some(self.picked(n, pick))
    }

    fn picked(&mut self, n: &Node, pick: Json) -> Built<Json> {
        let Some(cond) = n.get("condition") else {
            return self.unsupported(n.line, &format!("{} without a condition", n.kind), "");
        };
        // The scope's own condition: its candidate is the target (depth 0).
        let c = self.condition(cond)?;
        Ok(json!({ "type": "objects", "zone": "universe", "where": c, "pick": pick }))
    }

    /// `SetSpeciesTargetOpinion species = Target.Species empire = E opinion = Value ± X`.
    pub(crate) fn species_opinion(&mut self, n: &Node) -> Built<Json> {
        let species_of_target = matches!(n.get("species"),
            Some(Value::Ref(p)) if p.len() == 2 && p[0] == "Target" && p[1] == "Species");
        if !species_of_target {
            return self.unsupported(
                n.line,
                &format!("{} of a species other than Target.Species", n.kind),
                "",
            );
        }
        let Some(empire) = n.get("empire") else {
            return self.unsupported(n.line, &format!("{} without an empire", n.kind), "");
        };
        let empire = self.object_ref(&empire.clone(), n.line)?;
        let amount = match n.get("opinion") {
            Some(Value::Binary(op @ ("+" | "-"), l, r))
                if matches!(&**l, Value::Node(v) if v.kind == "Value" && v.params.is_empty())
                    && !mentions_value(r) =>
            {
                let x = self.value(r)?;
                if *op == "-" {
                    negate(x)
                } else {
                    x
                }
            }
            _ => {
                return self.unsupported(
                    n.line,
                    &format!("{} with an opinion other than Value ± X", n.kind),
                    "",
                )
            }
        };
        // Only when the empire exists (an unowned source has none).
        let emit = json!({ "type": "emit", "event": "freeorion:event/species_opinion",
            "source": empire, "amount": amount });
        Ok(json!({ "type": "if", "condition": { "type": "same", "a": empire }, "then": [emit] }))
    }
}

/// Whether a value reads `Value` anywhere.
fn mentions_value(v: &Value) -> bool {
    match v {
        Value::Node(n) => {
            n.kind == "Value"
                || n.params.iter().any(|(_, p)| mentions_value(p))
                || n.args.iter().any(mentions_value)
        }
        Value::Binary(_, a, b) => mentions_value(a) || mentions_value(b),
        Value::Neg(a) => mentions_value(a),
        Value::Call(name, args) => name == "Value" || args.iter().any(mentions_value),
        Value::List(l) => l.iter().any(mentions_value),
        Value::Labelled(_, a) => mentions_value(a),
        _ => false,
    }
}

/// `-(x)` of a content expression (a number, text, or `{ expr, let }`).
fn negate(x: Json) -> Json {
    match x {
        Json::Number(n) => json!(-n.as_f64().unwrap_or(0.0)),
        Json::String(s) => json!(format!("-({s})")),
        Json::Object(mut m) => {
            let e = m
                .get("expr")
                .and_then(Json::as_str)
                .unwrap_or("0")
                .to_owned();
            m.insert("expr".into(), json!(format!("-({e})")));
            Json::Object(m)
        }
        other => other,
    }
}
