//! FOCS effects that create objects or hand out techs, in the freeorion mod's model:
//!
//! - `CreateShip designname = "SM_TREE" [empire = E] [species = "SP_X"]` → for each
//!   target that stands somewhere, a `ship` attached where the target is attached (its
//!   parent: the system of a planet), owned by `E` (without `E`: unowned, as FreeOrion's
//!   monsters), with `design` the design's name and `species`. Premade designs are not in the corpus: the ship gets no hull or parts. A
//!   display name (`name = …`) is not kept.
//! - `GiveEmpireTech name = X [empire = E]` in a group acting on its source → the empire's
//!   tech `X` moves from zone `available` to `researched`, as research does in the mod.

use serde_json::{json, Map, Value as Json};

use super::{class_name, Built, Cx};
use crate::{Node, Value};

impl Cx<'_> {
    /// `CreateShip`: see the module doc.
    pub(crate) fn create_ship(&mut self, n: &Node) -> Built<Json> {
        let Some(Value::Str(design)) = n.get("designname") else {
            return self.unsupported(n.line, "CreateShip of a design not named by text", "");
        };
        let mut props = Map::new();
        props.insert("design".into(), json!(design));
        match n.get("species") {
            None => {}
            Some(Value::Str(s)) => {
                props.insert("species".into(), json!(class_name(s)));
            }
            Some(_) => {
                return self.unsupported(n.line, "CreateShip of a species not named by text", "")
            }
        }
        let mut create = Map::new();
        create.insert("type".into(), json!("create"));
        create.insert("class".into(), json!("ship"));
        create.insert("zone".into(), json!("universe"));
        create.insert("parent".into(), json!("target.parent"));
        // Only where the target stands somewhere (and the empire exists).
        let mut needs = vec![json!({ "type": "same", "a": "target.parent" })];
        match n.get("empire") {
            Some(e) => {
                let owner = self.object_ref(&e.clone(), n.line)?;
                needs.push(json!({ "type": "same", "a": owner }));
                create.insert("owner".into(), json!(owner));
            }
            // FreeOrion's ship without an empire is unowned (a monster).
            None => {
                create.insert("unowned".into(), json!(true));
            }
        }
        create.insert("properties".into(), Json::Object(props));
        if n.params
            .iter()
            .any(|(l, _)| !matches!(l.as_str(), "designname" | "species" | "empire" | "name"))
        {
            return self.unsupported(n.line, "CreateShip with other parameters", "");
        }
        // One ship per target, where that target is.
        Ok(json!({ "type": "if", "condition": { "all": needs }, "then": [Json::Object(create)] }))
    }

    /// `GiveEmpireTech`: see the module doc.
    pub(crate) fn give_tech(&mut self, n: &Node) -> Built<Json> {
        let Some(Value::Str(tech)) = n.get("name") else {
            return self.unsupported(n.line, "GiveEmpireTech of a tech not named by text", "");
        };
        if !self.scope_is_source {
            return self.unsupported(n.line, "GiveEmpireTech in a group acting on others", "");
        }
        // The group acts on its source only: its target is the source.
        let empire = match n.get("empire") {
            None => "source.owner".to_owned(),
            Some(Value::Ref(p)) if p.len() == 2 && p[0] == "Target" && p[1] == "Owner" => {
                "source.owner".to_owned()
            }
            Some(e) => {
                let r = self.object_ref(&e.clone(), n.line)?;
                if r.starts_with("target") {
                    return self.unsupported(
                        n.line,
                        "GiveEmpireTech to the empire of another object",
                        "",
                    );
                }
                r
            }
        };
        Ok(json!({ "type": "move", "zone": "researched", "to": {
            "type": "objects", "zone": "available", "pick": { "first": 1 }, "where": { "all": [
                { "type": "is", "key": "title", "value": tech },
                { "type": "same", "a": "target.owner", "b": empire },
            ] } } }))
    }
}
