//! FOCS conditions → Tessera conditions and scopes (selectors).
//!
//! Universe objects live in zone `universe` and carry a tag for their type (`planet`,
//! `building`, `ship`, `fleet`, `system`, `field`); object-valued properties name what
//! contains them (`planet`, `system`) and empires keep `capital`, `techs` and `policies`.
//! A scope `And [ Planet OwnedBy empire = Source.Owner … ]` becomes
//! `{ type = "objects", zone = "universe", tag = "planet", owner = "friendly", where = … }`
//! — "friendly" is the holder's owner, which the freeorion mod keeps equal to the
//! source's owner — so the world's (zone, owner) index answers it.

use serde_json::{json, Value as Json};

use super::{class_name, snake, Built, Cx};
use crate::{Node, Value};

/// FOCS object-type conditions and the tag the freeorion mod gives those objects.
const TYPES: &[(&str, &str)] = &[
    ("Planet", "planet"),
    ("Building", "building"),
    ("Ship", "ship"),
    ("Fleet", "fleet"),
    ("System", "system"),
    ("Field", "field"),
    ("ProductionCenter", "planet"),
];

/// Meters (and other numbers) a `Name low = … high = …` condition may test.
pub(crate) const METERS: &[&str] = &[
    "Population",
    "TargetPopulation",
    "Industry",
    "TargetIndustry",
    "Research",
    "TargetResearch",
    "Influence",
    "TargetInfluence",
    "Construction",
    "TargetConstruction",
    "Happiness",
    "TargetHappiness",
    "MaxFuel",
    "Fuel",
    "MaxShield",
    "Shield",
    "MaxDefense",
    "Defense",
    "MaxTroops",
    "Troops",
    "Supply",
    "MaxSupply",
    "Stealth",
    "Detection",
    "Speed",
    "Capacity",
    "MaxCapacity",
    "SecondaryStat",
    "MaxSecondaryStat",
    "RebelTroops",
    "Stockpile",
    "MaxStockpile",
    "Structure",
    "MaxStructure",
    "Size",
];

impl Cx<'_> {
    /// A scope: `None` for `Source` (an effects group's default), else a selector.
    pub(crate) fn scope(&mut self, v: &Value) -> Built<Option<Json>> {
        if let Some(sel) = self.picking_scope(v) {
            return sel.map(Some);
        }
        let items: Vec<Value> = match v {
            Value::Node(n) if n.kind == "Source" && n.params.is_empty() => return Ok(None),
            Value::Node(n) if is_and(n) => match n.args.first() {
                Some(Value::List(l)) => l.clone(),
                _ => vec![v.clone()],
            },
            other => vec![other.clone()],
        };
        let mut sel = serde_json::Map::new();
        sel.insert("type".into(), json!("objects"));
        sel.insert("zone".into(), json!("universe"));
        let mut rest = Vec::new();
        for item in items {
            match &item {
                Value::Node(n)
                    if n.params.is_empty() && n.args.is_empty() && !sel.contains_key("tag") =>
                {
                    if let Some((_, tag)) = TYPES.iter().find(|(k, _)| *k == n.kind) {
                        sel.insert("tag".into(), json!(tag));
                        continue;
                    }
                    rest.push(item);
                }
                Value::Node(n)
                    if n.kind == "OwnedBy"
                        && owned_by_source_owner(n)
                        && !sel.contains_key("owner") =>
                {
                    sel.insert("owner".into(), json!("friendly"));
                }
                _ => rest.push(item),
            }
        }
        let mut filters = Vec::new();
        self.candidate_owned_by_source_owner = sel.contains_key("owner");
        for item in &rest {
            let c = self.condition(item);
            if c.is_err() {
                self.candidate_owned_by_source_owner = false;
            }
            filters.push(c?);
        }
        self.candidate_owned_by_source_owner = false;
        match filters.len() {
            0 => {}
            1 => {
                sel.insert("where".into(), filters.remove(0));
            }
            _ => {
                sel.insert("where".into(), json!({ "all": filters }));
            }
        }
        Ok(Some(Json::Object(sel)))
    }

    /// A condition.
    pub(crate) fn condition(&mut self, v: &Value) -> Built<Json> {
        match v {
            Value::Node(n) => self.condition_node(n),
            Value::List(items) => {
                let all = items
                    .iter()
                    .map(|i| self.condition(i))
                    .collect::<Built<Vec<_>>>()?;
                Ok(json!({ "all": all }))
            }
            // `(Source.System.ID = LocalCandidate.NextSystemID)`: the same object.
            Value::Binary(op @ ("==" | "=" | "!="), a, b) if is_object_id(a) && is_object_id(b) => {
                let (a, b) = (self.object_ref(a, 0)?, self.object_ref(b, 0)?);
                let same = json!({ "type": "same", "a": a, "b": b });
                Ok(if *op == "!=" {
                    json!({ "not": same })
                } else {
                    same
                })
            }
            // `(0.1 <= LocalCandidate.Population <= 3)`: both comparisons.
            Value::Binary(op, a, c)
                if is_comparison(op)
                    && matches!(&**a, Value::Binary(o, _, _) if is_comparison(o)) =>
            {
                let Value::Binary(_, _, b) = &**a else {
                    return self.unsupported(0, "a chained comparison", "");
                };
                let first = self.condition(a)?;
                let second = self.condition(&Value::Binary(op, b.clone(), c.clone()))?;
                Ok(json!({ "all": [first, second] }))
            }
            Value::Binary(op, a, b)
                if matches!(*op, "<" | "<=" | ">" | ">=" | "==" | "!=" | "=") =>
            {
                let op = if *op == "=" { "==" } else { op };
                let (l, r) = (self.value(a)?, self.value(b)?);
                Ok(json!({ "type": "compare", "left": l, "op": op, "right": r }))
            }
            other => self.unsupported(0, &format!("{other:?}"), ""),
        }
    }

    fn condition_node(&mut self, n: &Node) -> Built<Json> {
        self.line = n.line;
        let kind = n.kind.as_str();
        if let Some((_, tag)) = TYPES.iter().find(|(k, _)| *k == kind) {
            return self.typed(n, tag);
        }
        if METERS.contains(&kind) {
            return self.meter_range(n, &format!("target.{}", snake(kind)));
        }
        match kind {
            "And" | "AND" => self.nested(n, "all"),
            "Or" | "OR" => self.nested(n, "any"),
            "Not" | "NOT" => {
                let inner = n
                    .args
                    .first()
                    .ok_or(super::Stop)
                    .or_else(|_| self.unsupported(n.line, "Not without a condition", ""))?;
                Ok(json!({ "not": self.condition(inner)? }))
            }
            "All" => Ok(json!({ "all": [] })),
            "None" => Ok(json!({ "not": { "all": [] } })),
            "Source" => Ok(json!({ "type": "is_source" })),
            "Capital" => Ok(json!({ "type": "same", "a": "target", "b": "target.owner.capital" })),
            "Unowned" => Ok(json!({ "not": { "type": "same", "a": "target.owner" } })),
            "OwnedBy" => self.owned_by(n),
            "Species" => self.species(n),
            "Focus" if n.params.is_empty() => Ok(json!({ "all": [
                { "type": "has_tag", "tag": "planet" },
                { "not": { "type": "is", "key": "focus", "value": "" } },
            ] })),
            "Focus" if matches!(n.get("type"), Some(Value::Ref(_))) => {
                let like = self.like_param(n, "type")?;
                Ok(json!({ "type": "is", "key": "focus", "like": like }))
            }
            "Focus" => self.is_text(n, "type", "focus"),
            // Owned by an empire a person plays (FOCS: "human player, not human species").
            "Human" => Ok(
                json!({ "type": "is", "of": "target.owner", "key": "controller", "value": "human" }),
            ),
            "Random" => self.random(n),
            // A system's star, or the star of the system an object is in.
            "Star" => {
                let own = self.is_text(n, "type", "star")?;
                Ok(json!({ "any": [own.clone(), { "type": "contained_by", "what": own }] }))
            }
            "HasTag" => match n.get("name") {
                Some(Value::Str(s)) => Ok(json!({ "type": "has_tag", "tag": class_name(s) })),
                _ => self.unsupported(n.line, "HasTag without a name", ""),
            },
            "HasSpecial" => self.has_special(n),
            "Contains" | "ContainedBy" => self.containment(n),
            "InSystem" => self.in_system(n),
            "Object" => {
                let id = self.object_param(n, "id")?;
                Ok(json!({ "type": "same", "a": "target", "b": id }))
            }
            "OwnerHasTech" => self.empire_has(n, "researched"),
            "EmpireHasAdoptedPolicy" => self.empire_has(n, "adopted"),
            "WithinStarlaneJumps" => self.within(n, "jumps", "within_jumps"),
            "WithinDistance" => self.within(n, "distance", "within_distance"),
            "Number" => self.number(n),
            "Turn" => self.meter_range(n, "tick"),
            "Homeworld" if n.params.is_empty() => {
                Ok(json!({ "type": "has_tag", "tag": "homeworld" }))
            }
            // The homeworld of a named species: the planet's `homeworld_of` holds it.
            "Homeworld" => match n.get("name").and_then(strings) {
                None if n.get("name").is_some_and(|v| matches!(v, Value::Ref(_))) => {
                    let like = self.like_param(n, "name")?;
                    Ok(json!({ "type": "is", "key": "homeworld_of", "like": like }))
                }
                Some(names) => Ok(
                    json!({ "type": "is", "key": "homeworld_of", "value": names.iter().map(|s| class_name(s)).collect::<Vec<_>>() }),
                ),
                None => self.unsupported(n.line, "Homeworld name = <not text>", ""),
            },
            // The freeorion mod has no movement: it tags every ship `stationary`.
            "Stationary" => Ok(json!({ "type": "has_tag", "tag": "stationary" })),
            "DesignHasHull" => self.design_has(n, "hull"),
            "DesignHasPartClass" => self.design_has_class(n),
            // The mod has no combat and no bombard orders: no ship is ordered to bombard.
            "OrderedBombardedBy" => Ok(json!({ "not": { "all": [] } })),
            "EmpireStockpile" => self.stockpile_range(n),
            "DesignHasPart" => self.design_has(n, "part"),
            "Design" => self.design_named(n),
            // FreeOrion's armed ship: a weapon or fighter hangar with damage above 0.
            "Armed" => Ok(json!({ "type": "contains", "what": { "all": [
                { "type": "has_tag", "tag": "part" },
                { "any": [{ "type": "has_tag", "tag": "short_range" }, { "type": "has_tag", "tag": "fighter_hangar" }] },
                { "type": "compare", "left": "target.capacity", "op": ">", "right": 0 },
            ] } })),
            "CanColonize" => Ok(self.species_flag("CanColonize")),
            "CanProduceShips" => Ok(self.species_flag("CanProduceShips")),
            // FreeOrion's population centres are its planets (`PopCenter` is part of
            // `Planet`); as `ProductionCenter`, a planet.
            "PopulationCenter" => Ok(json!({ "type": "has_tag", "tag": "planet" })),
            "ProducedByEmpire" => {
                let empire = self.object_param(n, "empire")?;
                Ok(json!({ "type": "same", "a": "target.produced_by", "b": empire }))
            }
            "VisibleToEmpire" => self.visible_to_empire(n),
            // A condition with a description for the player: the condition.
            "Described" => match n.get("condition") {
                Some(c) => self.condition(&c.clone()),
                None => self.unsupported(n.line, "Described without a condition", ""),
            },
            // The mod has no production queue: nothing is ever enqueued.
            "Enqueued" => Ok(json!({ "not": { "all": [] } })),
            "ResourceSupplyConnected" => self.supply_connected(n),
            // Monsters are the mod's ships tagged `monster`; fleets and ships set to
            // fight are tagged `aggressive`.
            "Monster" => Ok(json!({ "type": "has_tag", "tag": "monster" })),
            "Aggressive" => Ok(json!({ "type": "has_tag", "tag": "aggressive" })),
            "SpeciesLikes" => self.opinion(n, "likes"),
            "SpeciesDislikes" => self.opinion(n, "dislikes"),
            _ => self.unsupported(n.line, kind, ""),
        }
    }

    /// `And [ … ]` / `Or [ … ]`.
    fn nested(&mut self, n: &Node, how: &str) -> Built<Json> {
        let items = match n.args.first() {
            Some(Value::List(l)) => l.clone(),
            Some(one) => vec![one.clone()],
            None => Vec::new(),
        };
        // `And`/`Or` test the same candidate: `RootCandidate` in them is still the
        // candidate (only `Contains`, `Number`, … nest a new one).
        let r = items
            .iter()
            .map(|i| self.condition(i))
            .collect::<Built<Vec<_>>>()?;
        Ok(json!({ how: r }))
    }

    /// `Planet`, `Building name = [ … ]`, `Planet type = Tundra`, …
    fn typed(&mut self, n: &Node, tag: &str) -> Built<Json> {
        let mut all = vec![json!({ "type": "has_tag", "tag": tag })];
        for (label, v) in &n.params {
            match label.as_str() {
                "name" => {
                    // `Building name = ThisBuilding`: the entry's own name.
                    let this = match v {
                        Value::Node(t) if t.kind.starts_with("This") && t.params.is_empty() => {
                            Some(vec![self.entry.clone()])
                        }
                        _ => None,
                    };
                    let names = this
                        .or_else(|| strings(v))
                        .ok_or(super::Stop)
                        .or_else(|_| {
                            self.unsupported(n.line, &format!("{} name = <not text>", n.kind), "")
                        })?;
                    // By the FOCS name every class keeps as `title`: a name the content
                    // never defines (an entry the corpus lacks) then matches nothing,
                    // where a class reference would not compile.
                    all.push(json!({ "type": "is", "key": "title", "value": names }));
                }
                "environment" if n.get("species").is_none() => {
                    let words = words(v).ok_or(super::Stop).or_else(|_| {
                        self.unsupported(n.line, "Planet environment = <not words>", "")
                    })?;
                    all.push(json!({ "type": "is", "key": "environment", "value": words }));
                }
                // `Planet type = LocalCandidate.OriginalType`: another property.
                "type" if matches!(v, Value::Ref(_)) => {
                    let like = self.like_param(n, "type")?;
                    all.push(json!({ "type": "is", "key": "planet_type", "like": like }));
                }
                "type" | "size" => {
                    let key = format!("planet_{label}");
                    let words = words(v).ok_or(super::Stop).or_else(|_| {
                        self.unsupported(n.line, &format!("{} {label} = <not words>", n.kind), "")
                    })?;
                    all.push(json!({ "type": "is", "key": key, "value": words }));
                }
                other => return self.unsupported(n.line, &format!("{} {other} = …", n.kind), ""),
            }
        }
        Ok(if all.len() == 1 {
            all.remove(0)
        } else {
            json!({ "all": all })
        })
    }

    /// `Population low = 3 high = 10`: bounds on an expression.
    fn meter_range(&mut self, n: &Node, expr: &str) -> Built<Json> {
        let mut all = Vec::new();
        for (label, op) in [("low", ">="), ("high", "<=")] {
            if let Some(v) = n.get(label) {
                let bound = self.value(v)?;
                all.push(json!({ "type": "compare", "left": expr, "op": op, "right": bound }));
            }
        }
        if n.params.iter().any(|(l, _)| l != "low" && l != "high") {
            return self.unsupported(
                n.line,
                &format!("{} with a parameter other than low/high", n.kind),
                "",
            );
        }
        Ok(match all.len() {
            // No bounds: the object has the meter at all.
            0 => json!({ "type": "compare", "left": expr, "op": ">", "right": f64::MIN }),
            1 => all.remove(0),
            _ => json!({ "all": all }),
        })
    }

    /// `SpeciesLikes name = ThisBuilding`: the object's `likes` (a planet's: its species'
    /// likes, which the freeorion mod copies onto it) holds the name.
    fn opinion(&mut self, n: &Node, key: &str) -> Built<Json> {
        let name = match n.get("name") {
            Some(Value::Str(s)) => class_name(s),
            Some(Value::Node(t)) if t.kind.starts_with("This") && t.params.is_empty() => {
                class_name(&self.entry)
            }
            _ => {
                return self.unsupported(
                    n.line,
                    &format!("{} of a name that is not text or This…", n.kind),
                    "",
                )
            }
        };
        Ok(json!({ "type": "is", "key": key, "value": name }))
    }

    /// `Random probability = P`: a draw from the world's seeded RNG (replayable).
    fn random(&mut self, n: &Node) -> Built<Json> {
        let Some(p) = n.get("probability") else {
            return self.unsupported(n.line, "Random without a probability", "");
        };
        let p = self.value(p)?;
        let right = match p {
            Json::Number(x) => json!(x.as_f64().unwrap_or(0.0) * 1_000_000.0),
            Json::String(s) => json!(format!("({s}) * 1000000")),
            other => {
                json!({ "expr": format!("({}) * 1000000", other["expr"].as_str().unwrap_or("0")), "let": other["let"] })
            }
        };
        Ok(json!({ "type": "compare", "left": "1d1000000", "op": "<=", "right": right }))
    }

    fn owned_by(&mut self, n: &Node) -> Built<Json> {
        if let Some(e) = n.get("empire") {
            let empire = self.object_ref(e, n.line)?;
            return Ok(json!({ "type": "same", "a": "target.owner", "b": empire }));
        }
        match n.get("affiliation") {
            Some(Value::Node(a)) if a.kind == "AnyEmpire" => {
                Ok(json!({ "type": "same", "a": "target.owner" }))
            }
            _ => self.unsupported(n.line, "OwnedBy affiliation other than AnyEmpire", ""),
        }
    }

    /// `Species` (has one) or `Species name = X`.
    fn species(&mut self, n: &Node) -> Built<Json> {
        match n.get("name") {
            None if n.params.is_empty() => Ok(json!({ "all": [
                { "any": [{ "type": "has_tag", "tag": "planet" }, { "type": "has_tag", "tag": "ship" }] },
                { "not": { "type": "is", "key": "species", "value": "" } },
            ] })),
            Some(Value::Ref(_)) => {
                let like = self.like_param(n, "name")?;
                Ok(json!({ "type": "is", "key": "species", "like": like }))
            }
            Some(v) => match strings(v) {
                Some(names) => Ok(
                    json!({ "type": "is", "key": "species", "value": names.iter().map(|s| class_name(s)).collect::<Vec<_>>() }),
                ),
                None => self.unsupported(n.line, "Species name = <not text>", ""),
            },
            None => self.unsupported(n.line, "Species with other parameters", ""),
        }
    }

    /// `Focus type = "FOCUS_INDUSTRY"` → `{ type = "is", key = "focus", value = … }`.
    fn is_text(&mut self, n: &Node, label: &str, key: &str) -> Built<Json> {
        match n.get(label).and_then(|v| strings(v).or_else(|| words(v))) {
            Some(values) => Ok(json!({ "type": "is", "key": key, "value": values })),
            None => self.unsupported(n.line, &format!("{} without `{label}`", n.kind), ""),
        }
    }

    fn has_special(&mut self, n: &Node) -> Built<Json> {
        let what = match n.get("name").and_then(strings) {
            Some(names) => json!({ "type": "is", "key": "title", "value": names }),
            None if n.params.is_empty() => json!({ "type": "has_tag", "tag": "special" }),
            None => return self.unsupported(n.line, "HasSpecial with other parameters", ""),
        };
        Ok(json!({ "type": "contains", "what": what }))
    }

    fn containment(&mut self, n: &Node) -> Built<Json> {
        let inner = match (n.args.first(), n.get("condition")) {
            (Some(c), _) | (None, Some(c)) => c.clone(),
            _ => return self.unsupported(n.line, &format!("{} without a condition", n.kind), ""),
        };
        self.depth += 1;
        let what = self.condition(&inner);
        self.depth -= 1;
        let ty = if n.kind == "Contains" {
            "contains"
        } else {
            "contained_by"
        };
        Ok(json!({ "type": ty, "what": what? }))
    }

    fn in_system(&mut self, n: &Node) -> Built<Json> {
        match n.get("id") {
            Some(v) => {
                let sys = self.object_ref(v, n.line)?;
                Ok(json!({ "type": "same", "a": "target.system", "b": sys }))
            }
            None => Ok(json!({ "type": "same", "a": "target.system" })),
        }
    }

    /// `OwnerHasTech name = X` / `EmpireHasAdoptedPolicy name = X [empire = E]`: the
    /// empire (`E`, else the candidate's owner) has an object titled `X` in `zone`
    /// (`researched`, `adopted`) — what research, `GiveEmpireTech` and adoption move
    /// there. The candidate's owner is `root.owner` inside the selection, so that form is
    /// used where the candidate is the outermost one (depth 0) or the empire is not the
    /// candidate's.
    fn empire_has(&mut self, n: &Node, zone: &str) -> Built<Json> {
        let Some(names) = n.get("name").and_then(strings) else {
            return self.unsupported(n.line, &format!("{} without a name", n.kind), "");
        };
        let empire = match n.get("empire") {
            Some(e) => self.object_ref(&e.clone(), n.line)?,
            None => "target.owner".to_owned(),
        };
        let empire = match empire.strip_prefix("target") {
            Some(rest) if self.depth == 0 => format!("root{rest}"),
            // A nested candidate's empire: not reachable from inside the selection; its
            // list of titles (`techs`, `policies`: what scenarios and the mod's founding
            // give it; research and adoption do not add to them).
            Some(_) => {
                let key = if zone == "researched" {
                    "techs"
                } else {
                    "policies"
                };
                let names: Vec<String> = names.iter().map(|s| class_name(s)).collect();
                return Ok(json!({ "type": "is", "of": empire, "key": key, "value": names }));
            }
            None => empire,
        };
        Ok(json!({ "type": "number", "low": 1, "of": {
            "type": "objects", "zone": zone, "where": { "all": [
                { "type": "is", "key": "title", "value": names },
                { "type": "same", "a": "target.owner", "b": empire },
            ] } } }))
    }

    /// `WithinStarlaneJumps jumps = 6 condition = …` / `WithinDistance distance = …`.
    fn within(&mut self, n: &Node, label: &str, ty: &str) -> Built<Json> {
        let (Some(bound), Some(cond)) = (n.get(label), n.get("condition")) else {
            return self.unsupported(
                n.line,
                &format!("{} without `{label}` and `condition`", n.kind),
                "",
            );
        };
        let bound = self.value(bound)?;
        let of = self.objects_where(cond)?;
        Ok(json!({ "type": ty, label: bound, "of": of }))
    }

    /// `Number low = 1 high = 3 condition = …`.
    fn number(&mut self, n: &Node) -> Built<Json> {
        let Some(cond) = n.get("condition") else {
            return self.unsupported(n.line, "Number without a condition", "");
        };
        let mut m = serde_json::Map::new();
        m.insert("type".into(), json!("number"));
        for label in ["low", "high"] {
            if let Some(v) = n.get(label) {
                m.insert(label.into(), self.value(v)?);
            }
        }
        m.insert("of".into(), self.objects_where(cond)?);
        Ok(Json::Object(m))
    }

    /// A selection of the universe objects matching a condition (nested: its candidate is
    /// its own `target`).
    pub(crate) fn objects_where(&mut self, cond: &Value) -> Built<Json> {
        self.depth += 1;
        let c = self.condition(cond);
        self.depth -= 1;
        Ok(json!({ "type": "objects", "zone": "universe", "where": c? }))
    }

    /// A parameter that is another object's property (`name = Source.Species`), as `is`'s
    /// `like` text.
    fn like_param(&mut self, n: &Node, label: &str) -> Built<String> {
        let v = n.get(label).cloned().unwrap_or(Value::Num(0.0));
        match self.like_ref(&v) {
            Some(r) => r,
            None => self.unsupported(
                n.line,
                &format!("{} {label} = <not a property>", n.kind),
                "",
            ),
        }
    }

    /// A parameter that names an object (`id = Source.PlanetID`).
    fn object_param(&mut self, n: &Node, label: &str) -> Built<String> {
        match n.get(label) {
            Some(v) => self.object_ref(v, n.line),
            None => self.unsupported(n.line, &format!("{} without `{label}`", n.kind), ""),
        }
    }
}

/// `OwnedBy empire = Source.Owner`.
fn owned_by_source_owner(n: &Node) -> bool {
    n.params.len() == 1
        && matches!(n.get("empire"), Some(Value::Ref(r)) if r.len() == 2 && r[0] == "Source" && r[1] == "Owner")
}

fn is_comparison(op: &str) -> bool {
    matches!(op, "<" | "<=" | ">" | ">=" | "==" | "!=" | "=")
}

/// A reference to an object's id (`Source.System.ID`, `Target.PreviousSystemID`).
fn is_object_id(v: &Value) -> bool {
    matches!(v, Value::Ref(p) if p.len() >= 2 && p.last().is_some_and(|l| l.ends_with("ID")))
}

fn is_and(n: &Node) -> bool {
    n.kind == "And" || n.kind == "AND"
}

/// Text values: `"X"` or `[ "X" "Y" ]`.
fn strings(v: &Value) -> Option<Vec<String>> {
    match v {
        Value::Str(s) => Some(vec![s.clone()]),
        Value::List(l) => l
            .iter()
            .map(|i| match i {
                Value::Str(s) => Some(s.clone()),
                _ => None,
            })
            .collect(),
        _ => None,
    }
}

/// Enumeration words: `Tundra` or `[ Tundra Desert ]`, lowercased.
fn words(v: &Value) -> Option<Vec<String>> {
    let one = |i: &Value| match i {
        Value::Node(n) if n.params.is_empty() && n.args.is_empty() => Some(snake(&n.kind)),
        Value::Str(s) => Some(class_name(s)),
        _ => None,
    };
    match v {
        Value::List(l) => l.iter().map(one).collect(),
        other => one(other).map(|w| vec![w]),
    }
}
