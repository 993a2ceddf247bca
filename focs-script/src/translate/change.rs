//! FOCS effects that change what an object is or carries, in the freeorion mod's model
//! (species and specials are objects attached to the planet or ship they belong to):
//!
//! - `AddSpecial name = "X"` → unless the target already carries a special titled `X`, a
//!   special object of class `x` attached to it (the generic class `special` titled `X`
//!   when no loaded content defines `X`: `create`'s `otherwise`), owned by the target's
//!   owner. FreeOrion's `capacity` is not supported.
//! - `RemoveSpecial name = "X"` on other targets than the special itself → a group of
//!   its own on the specials titled `X` attached to the targets, each raising
//!   `remove_special` (the mod removes it after the pass, as a special removing itself).
//! - `CreateBuilding type = "X"` → on a planet target, a building of class `x` (or the
//!   generic `building` titled `X`) attached to it and owned by its owner.
//! - `SetSpecies name = "X"` → the target's `species` becomes `x`, it gets a species object
//!   of class `x` (or the generic `species`) unless it has one, and it raises
//!   `species_changed`: the mod removes its species objects of another species.
//! - `SetPlanetType type = T`, `SetPlanetSize planetsize = S` → on a planet, its
//!   `planet_type` / `planet_size` (and `habitable_size`, FreeOrion's defaults per size),
//!   with FreeOrion's coupling: an asteroid or gas-giant type sets the matching size and
//!   the reverse; leaving those for another type makes a medium planet, for another size
//!   a barren one.

use serde_json::{json, Map, Value as Json};

use super::{class_name, snake, Built, Cx};
use crate::{Node, Value};

/// FreeOrion's habitable size of each planet size (its game rules' defaults).
const HABITABLE: &[(&str, f64)] = &[
    ("tiny", 1.0),
    ("small", 2.0),
    ("medium", 3.0),
    ("large", 5.0),
    ("huge", 8.0),
    ("asteroids", 3.0),
    ("gas_giant", 6.0),
];

/// The target's owner, if any: `create` owned by it, else unowned.
fn owned_like_target(mut create: Json) -> Json {
    let mut unowned = create.clone();
    create["owner"] = json!("target.owner");
    unowned["unowned"] = json!(true);
    json!({ "type": "if", "condition": { "type": "same", "a": "target.owner" },
        "then": [create], "else": [unowned] })
}

/// The target carries (has attached, at any depth) an object tagged `tag` whose `key` is
/// `value`.
fn carries(tag: &str, key: &str, value: &str) -> Json {
    json!({ "type": "contains", "what": { "all": [
        { "type": "has_tag", "tag": tag },
        { "type": "is", "key": key, "value": value },
    ] } })
}

impl Cx<'_> {
    /// A text parameter naming an entry (`name = "SP_HUMAN"`).
    fn named(&mut self, n: &Node, label: &str) -> Built<String> {
        match n.get(label) {
            Some(Value::Str(s)) => Ok(s.clone()),
            _ => self.unsupported(n.line, &format!("{} {label} = <not text>", n.kind), ""),
        }
    }

    /// Refuses parameters other than `allowed`.
    fn only(&mut self, n: &Node, allowed: &[&str]) -> Built<()> {
        if let Some((l, _)) = n
            .params
            .iter()
            .find(|(l, _)| !allowed.contains(&l.as_str()))
        {
            return self.unsupported(n.line, &format!("{} {l} = …", n.kind), "");
        }
        Ok(())
    }

    /// `AddSpecial`: see the module doc.
    pub(crate) fn add_special(&mut self, n: &Node) -> Built<Json> {
        self.only(n, &["name"])?;
        let name = self.named(n, "name")?;
        let create = json!({ "type": "create", "class": class_name(&name), "otherwise": "special",
            "zone": "universe", "parent": "target", "properties": { "title": name } });
        Ok(
            json!({ "type": "if", "condition": { "not": carries("special", "title", &name) },
            "then": [owned_like_target(create)] }),
        )
    }

    /// `RemoveSpecial name = X` of another special than the entry on its source: the name.
    pub(crate) fn remove_special_named(&mut self, n: &Node) -> Built<String> {
        self.only(n, &["name"])?;
        self.named(n, "name")
    }

    /// The groups removing specials (`RemoveSpecial name = X` on other objects): for each
    /// name, a group of its own whose targets are the specials titled `X` attached to the
    /// original group's targets, each raising `remove_special` (same source, activation,
    /// priority, label; no stacking group, which would claim the specials instead).
    pub(crate) fn removal_groups(
        &mut self,
        group: &Map<String, Json>,
        names: &[String],
    ) -> Built<Vec<Json>> {
        if names.is_empty() {
            return Ok(Vec::new());
        }
        let holder = match group.get("scope") {
            None => json!({ "type": "is_source" }),
            Some(sel) => match super::parts::selection_condition(sel) {
                Some(c) => c,
                None => {
                    return self.unsupported(0, "RemoveSpecial on a scope that picks objects", "")
                }
            },
        };
        let mut out = Vec::new();
        for name in names {
            let mut g = group.clone();
            g.remove("stacking");
            g.insert(
                "scope".into(),
                json!({ "type": "objects", "zone": "universe", "tag": "special", "where": { "all": [
                    { "type": "is", "key": "title", "value": name },
                    { "type": "contained_by", "what": holder },
                ] } }),
            );
            g.insert(
                "do".into(),
                json!([{ "type": "emit",
                "event": "freeorion:event/remove_special", "source": "target" }]),
            );
            out.push(Json::Object(g));
        }
        Ok(out)
    }

    /// `CreateBuilding`: see the module doc.
    pub(crate) fn create_building(&mut self, n: &Node) -> Built<Json> {
        self.only(n, &["type"])?;
        let name = self.named(n, "type")?;
        let create = json!({ "type": "create", "class": class_name(&name), "otherwise": "building",
            "zone": "universe", "parent": "target", "properties": { "title": name } });
        Ok(
            json!({ "type": "if", "condition": { "type": "has_tag", "tag": "planet" },
            "then": [owned_like_target(create)] }),
        )
    }

    /// `SetSpecies`: see the module doc.
    pub(crate) fn set_species(&mut self, n: &Node) -> Built<Vec<Json>> {
        self.only(n, &["name"])?;
        let name = self.named(n, "name")?;
        let species = class_name(&name);
        let create = json!({ "type": "create", "class": species, "otherwise": "species",
            "zone": "universe", "parent": "target",
            "properties": { "title": name, "species": species } });
        Ok(vec![
            json!({ "type": "set", "key": "species", "text": species }),
            json!({ "type": "if", "condition": { "not": carries("species", "species", &species) },
                "then": [owned_like_target(create)] }),
            json!({ "type": "emit", "event": "freeorion:event/species_changed" }),
        ])
    }

    /// A planet type or size word (`Asteroids`, `GasGiant`) in the mod's spelling.
    fn word(&mut self, n: &Node, label: &str) -> Built<String> {
        match n.get(label) {
            Some(Value::Node(w)) if w.params.is_empty() && w.args.is_empty() => Ok(snake(&w.kind)),
            _ => self.unsupported(n.line, &format!("{} {label} = <not a word>", n.kind), ""),
        }
    }

    /// `SetPlanetType type = T`: see the module doc.
    pub(crate) fn set_planet_type(&mut self, n: &Node) -> Built<Json> {
        self.only(n, &["type"])?;
        let ty = self.word(n, "type")?;
        let mut then = vec![json!({ "type": "set", "key": "planet_type", "text": ty })];
        match ty.as_str() {
            "asteroids" | "gas_giant" => then.extend(size_sets(&ty)),
            _ => then.push(json!({ "type": "if",
                "condition": { "type": "is", "key": "planet_size", "value": ["asteroids", "gas_giant"] },
                "then": size_sets("medium") })),
        }
        Ok(
            json!({ "type": "if", "condition": { "type": "has_tag", "tag": "planet" }, "then": then }),
        )
    }

    /// `SetPlanetSize planetsize = S`: see the module doc.
    pub(crate) fn set_planet_size(&mut self, n: &Node) -> Built<Json> {
        self.only(n, &["planetsize"])?;
        let size = self.word(n, "planetsize")?;
        if !HABITABLE.iter().any(|(s, _)| *s == size) {
            return self.unsupported(n.line, &format!("SetPlanetSize planetsize = {size}"), "");
        }
        let mut then = size_sets(&size);
        match size.as_str() {
            "asteroids" | "gas_giant" => {
                then.push(json!({ "type": "set", "key": "planet_type", "text": size }))
            }
            _ => then.push(json!({ "type": "if",
                "condition": { "type": "is", "key": "planet_type", "value": ["asteroids", "gas_giant"] },
                "then": [{ "type": "set", "key": "planet_type", "text": "barren" }] })),
        }
        Ok(
            json!({ "type": "if", "condition": { "type": "has_tag", "tag": "planet" }, "then": then }),
        )
    }
}

/// A planet's size and its habitable size.
fn size_sets(size: &str) -> Vec<Json> {
    let habitable = HABITABLE
        .iter()
        .find(|(s, _)| *s == size)
        .map_or(3.0, |(_, h)| *h);
    vec![
        json!({ "type": "set", "key": "planet_size", "text": size }),
        json!({ "type": "set", "key": "habitable_size", "value": habitable }),
    ]
}
