//! FOCS effects → an effects group's property effects and actions:
//! `SetTargetResearch value = …` sets property `target_research` (any meter of
//! [`METERS`]); `If condition = C effects = … else = …` over meter effects becomes
//! `{ if = C, then = …, else = "value" }` per meter (the condition tested on the target,
//! as FreeOrion does), its other effects an `if` action; `Destroy` destroys the target; `GenerateSitRepMessage` raises the
//! mod's `sitrep` event.

use serde_json::{json, Map, Value as Json};

use super::conditions::METERS;
use super::{snake, Built, Cx};
use crate::{Node, Value};

/// What a group's `effects` translate to.
#[derive(Debug, Default)]
pub(crate) struct Effects {
    /// `{ key, value }` property effects, in order.
    pub sets: Vec<Json>,
    /// Actions on the targets.
    pub actions: Vec<Json>,
    /// The first accounting label met.
    pub label: Option<String>,
    /// Meter effects on a ship's parts (`SetCapacity partname = "GT_TROOP_POD" value =
    /// …`): the part's FOCS name and the `{ key, value }` effect.
    pub parts: Vec<(String, Json)>,
    /// Empire meter effects (`SetEmpireMeter empire = E meter = M value = …`): the
    /// empire's reference and the `{ key, value }` effect (see `empire`).
    pub empire: Vec<(String, Json)>,
    /// Specials removed from the targets (`RemoveSpecial name = X`; see `change`).
    pub removals: Vec<String>,
}

impl Cx<'_> {
    /// A list of effects.
    pub(crate) fn effects(&mut self, list: &[Value]) -> Built<Effects> {
        let mut out = Effects::default();
        for e in list {
            let Value::Node(n) = e else {
                return self.unsupported(0, &format!("the effect {e:?}"), "");
            };
            self.effect(n, &mut out)?;
        }
        Ok(out)
    }

    fn effect(&mut self, n: &Node, out: &mut Effects) -> Built<()> {
        self.line = n.line;
        // A weapon's damage is its capacity meter, its shots its secondary stat (FOCS
        // `SetDamage partname = …`, `SetMaxShots …`).
        let meter = match n.kind.as_str() {
            "SetDamage" if n.get("partname").is_some() => Some("Capacity"),
            "SetMaxDamage" if n.get("partname").is_some() => Some("MaxCapacity"),
            "SetShots" if n.get("partname").is_some() => Some("SecondaryStat"),
            "SetMaxShots" if n.get("partname").is_some() => Some("MaxSecondaryStat"),
            other => other.strip_prefix("Set").filter(|m| METERS.contains(m)),
        };
        if let Some(meter) = meter {
            // `SetMaxTroops Value = …` (capitalised label) occurs in the content too.
            let Some(v) = n.get("value").or_else(|| n.get("Value")) else {
                return self.unsupported(n.line, &format!("{} without a value", n.kind), "");
            };
            let part = match n.get("partname") {
                None => None,
                Some(Value::Str(s)) => Some(s.clone()),
                // A part's own groups: `partname = CurrentContent` is the part itself.
                Some(Value::Node(c)) if c.kind == "CurrentContent" => Some(self.entry.clone()),
                Some(_) => {
                    return self.unsupported(n.line, &format!("{} of a part not named", n.kind), "")
                }
            };
            self.ship_part = part.clone();
            self.in_meter_value = true;
            let value = self.value(v);
            self.in_meter_value = false;
            self.ship_part = None;
            let value = value?;
            if let (None, Some(Value::Str(l))) = (&out.label, n.get("accountinglabel")) {
                out.label = Some(l.clone());
            }
            let set = json!({ "key": snake(meter), "value": value });
            match part {
                Some(p) => out.parts.push((p, set)),
                None => out.sets.push(set),
            }
            return Ok(());
        }
        match n.kind.as_str() {
            "If" => self.if_effect(n, out),
            "NoOp" => Ok(()),
            "Destroy" => {
                out.actions.push(json!({ "type": "destroy" }));
                Ok(())
            }
            "GenerateSitRepMessage" | "GenerateSitrepMessage" => {
                out.actions
                    .push(json!({ "type": "emit", "event": "freeorion:event/sitrep" }));
                Ok(())
            }
            "CreateShip" => {
                let a = self.create_ship(n)?;
                out.actions.push(a);
                Ok(())
            }
            "AddSpecial" => {
                let a = self.add_special(n)?;
                out.actions.push(a);
                Ok(())
            }
            "CreateBuilding" => {
                let a = self.create_building(n)?;
                out.actions.push(a);
                Ok(())
            }
            "SetSpecies" => {
                let a = self.set_species(n)?;
                out.actions.extend(a);
                Ok(())
            }
            "SetPlanetType" => {
                let a = self.set_planet_type(n)?;
                out.actions.push(a);
                Ok(())
            }
            "SetPlanetSize" => {
                let a = self.set_planet_size(n)?;
                out.actions.push(a);
                Ok(())
            }
            "SetEmpireMeter" => {
                let e = self.empire_meter(n)?;
                out.empire.push(e);
                Ok(())
            }
            // A fleet that blockades (FreeOrion's obstructive flag): tag `obstructive`
            // (the mod has no blockades to read it).
            "SetObstructive" if n.params.is_empty() => {
                out.actions.push(json!({ "type": "if",
                    "condition": { "type": "has_tag", "tag": "fleet" },
                    "then": [{ "type": "tag", "tag": "obstructive" }] }));
                Ok(())
            }
            "GiveEmpireTech" => {
                let a = self.give_tech(n)?;
                out.actions.push(a);
                Ok(())
            }
            "SetSpeciesTargetOpinion" => {
                let a = self.species_opinion(n)?;
                out.actions.push(a);
                Ok(())
            }
            // The target moves into the system that is, or holds, a matching object
            // (one picked from the world's seeded RNG, as FreeOrion picks one).
            "MoveTo" => {
                let Some(dest) = n.get("destination") else {
                    return self.unsupported(n.line, "MoveTo without a destination", "");
                };
                let here = self.objects_where(dest)?["where"].clone();
                let holds = self.objects_where(&Value::Node(Node {
                    kind: "Contains".into(),
                    line: n.line,
                    params: Vec::new(),
                    args: vec![dest.clone()],
                }))?["where"]
                    .clone();
                out.actions.push(json!({ "type": "attach", "parent": {
                    "type": "objects", "zone": "universe", "tag": "system",
                    "where": { "any": [here, holds] }, "pick": "random" } }));
                Ok(())
            }
            // Toward an object (`target = Object id = …`) or a point (`x = … y = …`),
            // `speed` at most.
            "MoveTowards" | "MoveInOrbit" => {
                let Some(speed) = n.get("speed") else {
                    return self.unsupported(n.line, &format!("{} without a speed", n.kind), "");
                };
                let mut m = Map::new();
                let ty = if n.kind == "MoveTowards" {
                    "move_towards"
                } else {
                    "move_in_orbit"
                };
                m.insert("type".into(), json!(ty));
                m.insert("speed".into(), self.value(speed)?);
                match (n.get("target"), n.get("x"), n.get("y")) {
                    (Some(Value::Node(o)), None, None)
                        if o.kind == "Object" && o.params.len() == 1 =>
                    {
                        let Some(id) = o.get("id") else {
                            return self.unsupported(
                                n.line,
                                &format!("{} to an Object without an id", n.kind),
                                "",
                            );
                        };
                        let r = self.object_ref(&id.clone(), n.line)?;
                        m.insert("of".into(), json!({ "type": "object", "object": r }));
                    }
                    (None, Some(x), Some(y)) => {
                        m.insert("x".into(), self.value(x)?);
                        m.insert("y".into(), self.value(y)?);
                    }
                    _ => {
                        return self.unsupported(
                            n.line,
                            &format!("{} to other than an Object id or a point", n.kind),
                            "",
                        )
                    }
                }
                out.actions.push(Json::Object(m));
                Ok(())
            }
            // A fleet's destination: one object matching the condition, picked at random
            // from the world's seeded RNG (as FreeOrion picks one), kept in the fleet's
            // `destination` (the mod moves no fleets; see its README).
            "SetDestination" => {
                let Some(dest) = n.get("destination") else {
                    return self.unsupported(n.line, "SetDestination without a destination", "");
                };
                let mut sel = self.objects_where(dest)?;
                sel["pick"] = json!("random");
                out.actions
                    .push(json!({ "type": "link", "key": "destination", "object": sel }));
                Ok(())
            }
            // A special removing itself from the object it is attached to (the group's
            // source, its only target): the special object raises `remove_special`, which
            // the mod answers by destroying it. Removing another special is not supported.
            "RemoveSpecial" => match n.get("name") {
                Some(Value::Str(s)) if *s == self.entry && self.scope_is_source => {
                    out.actions.push(json!({ "type": "emit",
                        "event": "freeorion:event/remove_special", "source": "self" }));
                    Ok(())
                }
                // Another special, from each target (see `change`).
                _ => {
                    let name = self.remove_special_named(n)?;
                    out.removals.push(name);
                    Ok(())
                }
            },
            // A system's star (`SetStarType type = Blue`): FreeOrion changes systems only.
            "SetStarType" => match n.get("type") {
                Some(Value::Node(w)) if w.params.is_empty() && w.args.is_empty() => {
                    out.actions.push(json!({ "type": "if",
                        "condition": { "type": "has_tag", "tag": "system" },
                        "then": [{ "type": "set", "key": "star", "text": snake(&w.kind) }] }));
                    Ok(())
                }
                _ => self.unsupported(n.line, "SetStarType of a type that is not one word", ""),
            },
            other => self.unsupported(n.line, other, ""),
        }
    }

    /// `If condition = C effects = [ … ] else = [ … ]` over meter effects.
    fn if_effect(&mut self, n: &Node, out: &mut Effects) -> Built<()> {
        let Some(cond) = n.get("condition") else {
            return self.unsupported(n.line, "If without a condition", "");
        };
        let cond = self.condition(cond)?;
        let mut branch = |cx: &mut Self, label: &str| -> Built<(Map<String, Json>, Vec<Json>)> {
            let list = match n.get(label) {
                Some(Value::List(l)) => l.clone(),
                Some(one) => vec![one.clone()],
                None => Vec::new(),
            };
            let e = cx.effects(&list)?;
            if !e.parts.is_empty() {
                return cx.unsupported(n.line, "If setting a ship part's meter", "");
            }
            if !e.empire.is_empty() || !e.removals.is_empty() {
                return cx.unsupported(
                    n.line,
                    "If setting an empire meter or removing a special",
                    "",
                );
            }
            let mut by_key = Map::new();
            for s in e.sets {
                let key = s["key"].as_str().unwrap_or_default().to_owned();
                if by_key.insert(key, s["value"].clone()).is_some() {
                    return cx.unsupported(n.line, "If setting one meter twice", "");
                }
            }
            if let (None, Some(l)) = (&out.label, e.label) {
                out.label = Some(l);
            }
            Ok((by_key, e.actions))
        };
        let (then, then_do) = branch(self, "effects")?;
        let (other, else_do) = branch(self, "else")?;
        // Effects other than meters (a sitrep, a move): the `if` action, on each target.
        if !then_do.is_empty() || !else_do.is_empty() {
            out.actions
                .push(json!({ "type": "if", "condition": cond.clone(),
                "then": then_do, "else": else_do }));
        }
        let mut keys: Vec<&String> = then.keys().collect();
        keys.extend(other.keys().filter(|k| !then.contains_key(*k)));
        for key in keys {
            let pick =
                |m: &Map<String, Json>| m.get(key).cloned().unwrap_or_else(|| json!("value"));
            out.sets.push(json!({
                "key": key,
                "value": { "if": cond.clone(), "then": pick(&then), "else": pick(&other) },
            }));
        }
        Ok(())
    }
}
