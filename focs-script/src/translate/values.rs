//! FOCS values → Tessera expressions: `Value + Target.Population * 0.5` →
//! `"(value + (target.population * 0.5))"`; a `Statistic` becomes a local name bound in
//! the expression's `let` (`{ expr = "value + s1", let = { s1 = { count = … } } }`);
//! `GameRule` lookups take the rules' values, `NamedReal` its value (remembered for
//! `NamedRealLookup` in the same file).

use serde_json::{json, Map, Value as Json};

use super::{snake, Built, Cx, Rules};
use crate::{Node, Value};

/// The local names an expression being built binds (its `let`).
pub(crate) struct Locals {
    pub(crate) lets: Map<String, Json>,
}

impl Cx<'_> {
    /// A value as a content expression: a number, expression text, or `{ expr, let }`.
    pub(crate) fn value(&mut self, v: &Value) -> Built<Json> {
        let mut b = Locals { lets: Map::new() };
        let text = self.expr(v, &mut b)?;
        if b.lets.is_empty() {
            return Ok(match text.parse::<f64>() {
                Ok(n) => json!(n),
                Err(_) => json!(text),
            });
        }
        Ok(json!({ "expr": text, "let": b.lets }))
    }

    fn expr(&mut self, v: &Value, b: &mut Locals) -> Built<String> {
        Ok(match v {
            Value::Num(n) => number(*n),
            Value::Ref(parts)
                if parts
                    .last()
                    .is_some_and(|l| l == "DistanceFromOriginalType") =>
            {
                self.type_distance(&parts[..parts.len() - 1], b)?
            }
            Value::Ref(parts) => self.property_ref(parts)?,
            Value::Neg(a) => format!("-({})", self.expr(a, b)?),
            Value::Binary(op, l, r) if matches!(*op, "+" | "-" | "*" | "/" | "^") => {
                format!("({} {op} {})", self.expr(l, b)?, self.expr(r, b)?)
            }
            // A comparison as a number (`(Target.DistanceFromOriginalType == 0)`): 1 when
            // it holds, else 0.
            Value::Binary(op, _, _)
                if matches!(*op, "<" | "<=" | ">" | ">=" | "==" | "!=" | "=") =>
            {
                let test = self.condition(v)?;
                let name = format!("stat{}", b.lets.len() + 1);
                b.lets
                    .insert(name.clone(), json!({ "if": test, "then": 1, "else": 0 }));
                name
            }
            Value::Call(name, args) => self.call(name, args, b)?,
            Value::Node(n) => self.value_node(n, b)?,
            other => return self.unsupported(0, &format!("the value {other:?}"), ""),
        })
    }

    fn call(&mut self, name: &str, args: &[Value], b: &mut Locals) -> Built<String> {
        let lower = name.to_ascii_lowercase();
        match (lower.as_str(), args) {
            ("max" | "min", [x, y]) => Ok(format!(
                "{lower}({}, {})",
                self.expr(x, b)?,
                self.expr(y, b)?
            )),
            ("abs", [x]) => Ok(format!("abs({})", self.expr(x, b)?)),
            // A uniform draw from the world's seeded RNG, in millionths of the range.
            ("randomnumber", [lo, hi]) => {
                let (lo, hi) = (self.expr(lo, b)?, self.expr(hi, b)?);
                Ok(format!(
                    "({lo} + ({hi} - {lo}) * (1d1000001 - 1) / 1000000)"
                ))
            }
            // `Value(Target.MaxShield)`: the meter's value as effects left it so far —
            // what reading it gives here.
            ("value", [x]) => self.expr(x, b),
            _ => self.unsupported(0, &format!("the function {name}"), ""),
        }
    }

    fn value_node(&mut self, n: &Node, b: &mut Locals) -> Built<String> {
        self.line = n.line;
        match n.kind.as_str() {
            "Value" if n.params.is_empty() => Ok("value".into()),
            "CurrentTurn" => Ok("tick".into()),
            "NamedReal" | "NamedInteger" => {
                let (Some(Value::Str(name)), Some(v)) = (n.get("name"), n.get("value")) else {
                    return self.unsupported(
                        n.line,
                        &format!("{} without name and value", n.kind),
                        "",
                    );
                };
                let text = self.expr(v, b)?;
                self.named.insert(name.clone(), text.clone());
                Ok(text)
            }
            "NamedRealLookup" | "NamedIntegerLookup" => match n.get("name") {
                Some(Value::Str(name)) => {
                    let elsewhere = self
                        .rules
                        .named
                        .get(name)
                        .or_else(|| self.rules.game_rules.get(name));
                    match (self.named.get(name), elsewhere) {
                        (Some(t), _) => Ok(t.clone()),
                        // Defined in another file (FreeOrion's named values), or nowhere
                        // the content has: the mod's rules may give it.
                        (None, Some(v)) => Ok(number(*v)),
                        (None, None) => self.unsupported(
                            n.line,
                            &format!("NamedRealLookup of `{name}` (defined in another file)"),
                            "",
                        ),
                    }
                }
                _ => self.unsupported(n.line, "NamedRealLookup without a name", ""),
            },
            "GameRule" => match n.get("name") {
                Some(Value::Str(name)) => match self.rules.game_rules.get(name) {
                    Some(v) => Ok(number(*v)),
                    None => self.unsupported(
                        n.line,
                        &format!("GameRule `{name}` (not in the mod's game rules)"),
                        "",
                    ),
                },
                _ => self.unsupported(n.line, "GameRule without a name", ""),
            },
            "Statistic" => self.statistic(n, b),
            "EmpireStockpile" => self.stockpile(n),
            "SpeciesShipsDestroyed" => self.ships_destroyed(n),
            // The fewest starlane jumps between two objects' systems; -1 without a path
            // (FreeOrion's, as the host's `jumps`).
            "JumpsBetween" => {
                let ends: Vec<Value> = n
                    .params
                    .iter()
                    .filter(|(l, _)| l == "object")
                    .map(|(_, v)| v.clone())
                    .collect();
                let [a, b] = ends.as_slice() else {
                    return self.unsupported(n.line, "JumpsBetween without two objects", "");
                };
                let (a, b) = (self.object_ref(a, n.line)?, self.object_ref(b, n.line)?);
                Ok(format!("jumps({a}, {b})"))
            }
            "TurnsSincePolicyAdopted" => self.turns_since_adopted(n, b),
            "HullFuel" => self.hull_stat(n, b, "base_fuel"),
            "SpeciesContentOpinion" => self.content_opinion(n, b),
            "PartCapacity" => self.part_stat(n, "base_capacity"),
            "PartSecondaryStat" => self.part_stat(n, "base_secondary_stat"),
            // Universe-wide settings (`GalaxyMaxAIAggression`, `UniverseWidth`, …): the
            // mod's game rules give them, under the same name.
            other
                if n.params.is_empty()
                    && (other.starts_with("Galaxy") || other.starts_with("Universe")) =>
            {
                match self.rules.game_rules.get(other) {
                    Some(v) => Ok(number(*v)),
                    None => self.unsupported(
                        n.line,
                        &format!("the value {other} (not in the mod's game rules)"),
                        "",
                    ),
                }
            }
            other => self.unsupported(n.line, &format!("the value {other}"), ""),
        }
    }

    /// `X.DistanceFromOriginalType`: FreeOrion's `Planet::TypeDifference` of the planet's
    /// type and original type — steps around the wheel of the nine types (0 to 4), 0 when
    /// either is an asteroid field or a gas giant.
    fn type_distance(&mut self, obj: &[String], b: &mut Locals) -> Built<String> {
        let of = self.path(obj)?;
        let mut index = |key: &str| {
            let mut terms = Vec::new();
            for (i, ty) in WHEEL.iter().enumerate() {
                let local = format!("stat{}", b.lets.len() + 1);
                b.lets.insert(
                    local.clone(),
                    json!({ "if": { "type": "is", "of": of, "key": key, "value": ty },
                    "then": i, "else": 0 }),
                );
                terms.push(local);
            }
            let ring = format!("stat{}", b.lets.len() + 1);
            b.lets.insert(
                ring.clone(),
                json!({ "if": { "type": "is", "of": of, "key": key, "value": WHEEL },
                "then": 1, "else": 0 }),
            );
            (format!("({})", terms.join(" + ")), ring)
        };
        let (now, now_ring) = index("planet_type");
        let (was, was_ring) = index("original_type");
        let diff = format!("abs({now} - {was})");
        Ok(format!(
            "(min({diff}, 9 - {diff}) * {now_ring} * {was_ring})"
        ))
    }

    /// `SpeciesContentOpinion species = X.Species name = N`: 1 when the species likes `N`,
    /// -1 when it dislikes it, else 0 (FreeOrion's); the object `X` carries its species'
    /// `likes` and `dislikes`.
    fn content_opinion(&mut self, n: &Node, b: &mut Locals) -> Built<String> {
        let of = match n.get("species") {
            Some(Value::Ref(p)) if p.len() == 2 && p[1] == "Species" => self.path(&p[..1])?,
            _ => {
                return self.unsupported(
                    n.line,
                    "SpeciesContentOpinion of a species other than <object>.Species",
                    "",
                )
            }
        };
        let name = match n.get("name") {
            Some(Value::Str(s)) => super::class_name(s),
            Some(Value::Node(t)) if t.kind.starts_with("This") && t.params.is_empty() => {
                super::class_name(&self.entry)
            }
            _ => return self.unsupported(n.line, "SpeciesContentOpinion of a name not given", ""),
        };
        let mut one = |key: &str| {
            let local = format!("stat{}", b.lets.len() + 1);
            b.lets.insert(
                local.clone(),
                json!({ "if": { "type": "is", "of": of, "key": key, "value": name },
                "then": 1, "else": 0 }),
            );
            local
        };
        let likes = one("likes");
        let dislikes = one("dislikes");
        Ok(format!("({likes} - {dislikes})"))
    }

    /// `Statistic Count condition = …` and friends, bound to a local name.
    fn statistic(&mut self, n: &Node, b: &mut Locals) -> Built<String> {
        let (how, inner) = match n.args.first() {
            Some(Value::Node(w)) => (w.kind.clone(), w),
            _ => return self.unsupported(n.line, "Statistic without its kind", ""),
        };
        // The labels may sit on the statistic or on its kind word (`Statistic If condition = …`).
        let get = |label: &str| n.get(label).or_else(|| inner.get(label));
        let Some(cond) = get("condition") else {
            return self.unsupported(n.line, &format!("Statistic {how} without a condition"), "");
        };
        if how == "If" {
            if let Some(test) = self.test_of_target(cond)? {
                // A test of the effect's target (a value comparison, or `And [ Target … ]`):
                // 1 when it holds for the target, else 0.
                let name = format!("stat{}", b.lets.len() + 1);
                b.lets
                    .insert(name.clone(), json!({ "if": test, "then": 1, "else": 0 }));
                return Ok(name);
            }
        }
        let sel = self.objects_where(cond)?;
        let key = |cx: &mut Self| -> Built<String> {
            match get("value") {
                Some(Value::Ref(p)) if p.len() == 2 && p[0] == "LocalCandidate" => Ok(snake(&p[1])),
                _ => cx.unsupported(
                    n.line,
                    &format!("Statistic {how} of a value other than LocalCandidate.<property>"),
                    "",
                ),
            }
        };
        let table = match how.as_str() {
            "Count" => json!({ "count": sel }),
            "If" => json!({ "exists": sel }),
            "Sum" | "Max" | "Min" | "Mean" => {
                let k = key(self)?;
                json!({ how.to_ascii_lowercase(): sel, "key": k })
            }
            other => return self.unsupported(n.line, &format!("Statistic {other}"), ""),
        };
        let name = format!("stat{}", b.lets.len() + 1);
        b.lets.insert(name.clone(), table);
        Ok(name)
    }

    /// The condition of a `Statistic If` when it tests the effect's target rather than
    /// selecting objects: a value comparison (`(Value < Target.TargetPopulation)`) or
    /// `And [ Target … ]`; `None` otherwise.
    fn test_of_target(&mut self, cond: &Value) -> Built<Option<Json>> {
        match cond {
            Value::Binary(op, _, _)
                if matches!(*op, "<" | "<=" | ">" | ">=" | "==" | "!=" | "=") =>
            {
                Ok(Some(self.condition(cond)?))
            }
            Value::Node(n) if n.kind == "And" || n.kind == "AND" => {
                let Some(Value::List(items)) = n.args.first() else {
                    return Ok(None);
                };
                let is_target = |v: &Value| matches!(v, Value::Node(t) if t.kind == "Target" && t.params.is_empty());
                if !items.iter().any(is_target) {
                    return Ok(None);
                }
                let rest: Vec<Value> = items.iter().filter(|v| !is_target(v)).cloned().collect();
                Ok(Some(self.condition(&Value::List(rest))?))
            }
            _ => Ok(None),
        }
    }

    /// `Target.Population` → `target.population`; `Source.Owner.X` → `source.owner.x`.
    fn property_ref(&mut self, parts: &[String]) -> Built<String> {
        let (obj, last) = parts.split_at(parts.len().saturating_sub(1));
        let Some(last) = last.first() else {
            return self.unsupported(0, "an empty reference", "");
        };
        if obj.is_empty() {
            return self.unsupported(0, &format!("the reference {last}"), "");
        }
        if matches!(
            last.as_str(),
            "ID" | "Owner" | "PlanetID" | "SystemID" | "FleetID" | "Planet" | "System"
        ) {
            return self.unsupported(0, &format!("{} as a number", parts.join(".")), "");
        }
        Ok(format!("{}.{}", self.path(obj)?, snake(last)))
    }

    /// A property of an object as `like` reference text: `Source.Species` →
    /// `source.species`; in a species' own groups `Source.PreferredFocus` is its
    /// species' (the holder's) `preferred_focus`. `None` when `v` is not such a reference.
    pub(crate) fn like_ref(&mut self, v: &Value) -> Option<Built<String>> {
        let Value::Ref(parts) = v else { return None };
        let (obj, last) = parts.split_at(parts.len().checked_sub(1)?);
        let last = last.first()?;
        if obj.is_empty() {
            return None;
        }
        if self.kind == "Species" && obj == ["Source"] && last == "PreferredFocus" {
            return Some(Ok("self.preferred_focus".into()));
        }
        Some(self.path(obj).map(|p| format!("{p}.{}", snake(last))))
    }

    /// An object reference: `Source.Owner` → `source.owner`, `Source.PlanetID` →
    /// `source.planet`.
    pub(crate) fn object_ref(&mut self, v: &Value, line: usize) -> Built<String> {
        match v {
            Value::Ref(parts) => {
                let parts: Vec<String> = match parts.last().map(String::as_str) {
                    Some("ID") => parts[..parts.len() - 1].to_vec(),
                    _ => parts.clone(),
                };
                self.path(&parts)
            }
            Value::Node(n)
                if n.params.is_empty() && matches!(n.kind.as_str(), "Source" | "Target") =>
            {
                self.path(std::slice::from_ref(&n.kind))
            }
            other => self.unsupported(line, &format!("the object {other:?}"), ""),
        }
    }

    /// A base and hops: `Source`, `Target.Owner`, `LocalCandidate.SystemID`.
    fn path(&mut self, parts: &[String]) -> Built<String> {
        let Some((head, hops)) = parts.split_first() else {
            return self.unsupported(0, "an empty reference", "");
        };
        let base = match head.as_str() {
            "Source" => "source",
            // Inside a meter value's nested condition `Target` is still the effect's
            // target ("buildings not in the target's system"), not the candidate.
            "Target" if self.depth > 0 && self.in_meter_value => "effect_target",
            "Target" | "LocalCandidate" => "target",
            "RootCandidate" if self.depth == 0 => "target",
            // Inside a nested condition: the outermost candidate (Tessera's `root`).
            "RootCandidate" => "root",
            other => return self.unsupported(0, other, ""),
        };
        let mut out = base.to_owned();
        for h in hops {
            let hop = match h.as_str() {
                "Owner" => "owner",
                "Planet" | "PlanetID" => "planet",
                "System" | "SystemID" => "system",
                "Fleet" | "FleetID" => "fleet",
                // A moving fleet's next and previous systems (this mod moves none).
                "NextSystemID" => "next_system",
                // The empire that produced a building or ship.
                "ProducedByEmpireID" | "ProducedByEmpire" => "produced_by",
                "PreviousSystemID" => "previous_system",
                other => return self.unsupported(0, &format!("{head}.{other} as an object"), ""),
            };
            out.push('.');
            out.push_str(hop);
        }
        Ok(out)
    }
}

/// FreeOrion's wheel of planet types, in order (`PT_SWAMP` … `PT_OCEAN`).
const WHEEL: [&str; 9] = [
    "swamp", "toxic", "inferno", "radiated", "barren", "tundra", "desert", "terran", "ocean",
];

/// A number as expression text.
pub(crate) fn number(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        format!("{n}")
    }
}

/// The number a value always has: literals, arithmetic and game rules.
pub(crate) fn fold(v: &Value, rules: &Rules) -> Option<f64> {
    Some(match v {
        Value::Num(n) => *n,
        Value::Neg(a) => -fold(a, rules)?,
        Value::Binary(op, a, b) => {
            let (x, y) = (fold(a, rules)?, fold(b, rules)?);
            match *op {
                "+" => x + y,
                "-" => x - y,
                "*" => x * y,
                "/" if y != 0.0 => x / y,
                "^" => x.powf(y),
                _ => return None,
            }
        }
        Value::Node(n) if n.kind == "GameRule" => match n.get("name") {
            Some(Value::Str(name)) => *rules.game_rules.get(name)?,
            _ => return None,
        },
        Value::Node(n) if n.kind == "NamedReal" => fold(n.get("value")?, rules)?,
        _ => return None,
    })
}
