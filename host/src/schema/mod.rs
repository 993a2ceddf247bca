//! JSON Schemas of the files Tessera reads, for editors (VS Code with Even Better TOML,
//! or any taplo-based tool, validates and completes TOML against them).
//!
//! Owns the schemas of `mod.toml` and `server.toml` (derived with `schemars` from
//! `files`' shapes) and of content files: the tables' structure is derived from the
//! content model, and every place that takes an action, condition or selector lists the
//! entries of a [`Registry`] — built-ins, content-defined kinds and every plugin's kinds,
//! with their parameters and docs. It reads no files and touches no world.

mod files;
mod reference;

pub use reference::markdown;

use serde_json::{json, Map, Value};

use crate::rules::content::ContentFile;
use crate::rules::registry::{ParamSpec, ParamType, Registry};

/// The JSON Schema of `mod.toml`.
pub fn manifest() -> Value {
    finish(
        schemars::schema_for!(files::Manifest).to_value(),
        "mod.toml",
    )
}

/// The JSON Schema of `server.toml`.
pub fn server() -> Value {
    finish(
        schemars::schema_for!(files::Server).to_value(),
        "server.toml",
    )
}

/// The JSON Schema of a content file (`content/*.toml` or `.json`), with the kinds of
/// `registry`: each `type = "..."` of an action, condition or selector completes to a
/// registered id and its parameters.
pub fn content(registry: &Registry) -> Value {
    let mut schema = schemars::schema_for!(ContentFile).to_value();
    let defs = schema
        .as_object_mut()
        .and_then(|s| s.get_mut("$defs"))
        .and_then(Value::as_object_mut);
    if let Some(defs) = defs {
        link_kinds(defs);
        defs.insert("action".into(), kind_schema(registry, "action"));
        defs.insert(
            "actions".into(),
            json!({ "description": "A list of action tables (or one).",
                    "anyOf": [ { "type": "array", "items": { "$ref": "#/$defs/action" } },
                               { "$ref": "#/$defs/action" } ] }),
        );
        defs.insert("condition".into(), kind_schema(registry, "condition"));
        defs.insert("selector".into(), kind_schema(registry, "selector"));
    }
    finish(schema, "a Tessera content file")
}

/// Adds `$schema`-independent metadata: a title.
fn finish(mut schema: Value, title: &str) -> Value {
    if let Some(o) = schema.as_object_mut() {
        o.insert("title".into(), Value::String(format!("Tessera: {title}")));
    }
    schema
}

/// Where the content model holds free-form JSON that is really an action list, a
/// condition or a selector: (definition, property, what it is).
const KIND_SLOTS: &[(&str, &str, &str)] = &[
    ("TriggerSpec", "do", "actions"),
    ("TriggerSpec", "select", "selector"),
    ("RuleSpec", "do", "actions"),
    ("RuleSpec", "select", "selector"),
    ("AuraSpec", "select", "selector"),
    ("AuraSpec", "while", "condition"),
    ("MoveSpec", "do", "actions"),
    ("MoveSpec", "subject", "selector"),
    ("MoveSpec", "target", "selector"),
];

/// Points the free-form slots of [`KIND_SLOTS`] at the kind definitions, keeping their
/// descriptions.
fn link_kinds(defs: &mut Map<String, Value>) {
    for (def, prop, kind) in KIND_SLOTS {
        let slot = defs
            .get_mut(*def)
            .and_then(|d| d.get_mut("properties"))
            .and_then(|p| p.get_mut(*prop));
        if let Some(slot) = slot {
            let description = slot.get("description").cloned();
            let mut linked = json!({ "$ref": format!("#/$defs/{kind}") });
            if let (Some(d), Some(o)) = (description, linked.as_object_mut()) {
                o.insert("description".into(), d);
            }
            *slot = linked;
        }
    }
}

/// `kind` (`action`, `condition`, `selector`) as a schema: one alternative per registry
/// entry (`type` naming it, its parameters), or a `ref` to a content fragment.
fn kind_schema(registry: &Registry, kind: &str) -> Value {
    let entries: Vec<(crate::id::Id, &str, &[ParamSpec])> = match kind {
        "action" => registry
            .actions
            .iter()
            .map(|e| (e.id, e.doc.as_str(), e.params.as_slice()))
            .collect(),
        "condition" => registry
            .conditions
            .iter()
            .map(|e| (e.id, e.doc.as_str(), e.params.as_slice()))
            .collect(),
        _ => registry
            .selectors
            .iter()
            .map(|e| (e.id, e.doc.as_str(), e.params.as_slice()))
            .collect(),
    };
    let mut any: Vec<Value> = entries
        .into_iter()
        .map(|(id, doc, params)| entry_schema(id, doc, params))
        .collect();
    any.push(json!({
        "description": format!("A `[ref.NAME]` fragment with a {kind} body, and its arguments."),
        "type": "object",
        "required": ["ref"],
        "properties": { "ref": { "type": "string" } }
    }));
    if kind != "action" {
        any.push(json!({
            "description": format!("Composed {kind}s and other forms (`all`, `any`, `not`, `from`, `where`, `pick`)."),
            "type": "object",
            "not": { "required": ["type"] }
        }));
    }
    json!({ "description": format!("A {kind} table: `type` names a registered {kind}."), "anyOf": any })
}

/// One registry entry: `type` is its id (or, for `core`, its bare name).
fn entry_schema(id: crate::id::Id, doc: &str, params: &[ParamSpec]) -> Value {
    let mut names = vec![Value::String(id.as_str().to_owned())];
    if id.namespace() == "core" {
        names.push(Value::String(id.name().to_owned()));
    }
    let mut properties = Map::new();
    properties.insert("type".into(), json!({ "enum": names, "description": doc }));
    let mut required = vec![Value::String("type".into())];
    for p in params {
        properties.insert(p.name.to_string(), param_schema(p));
        if p.required {
            required.push(Value::String(p.name.to_string()));
        }
    }
    json!({
        "description": format!("{id}: {doc}"),
        "type": "object",
        "properties": properties,
        "required": required,
    })
}

/// A parameter's schema from its type and doc.
fn param_schema(p: &ParamSpec) -> Value {
    let description = format!("{} ({})", p.doc, p.ty.describe());
    let mut s = match p.ty {
        ParamType::Bool => json!({ "type": "boolean" }),
        ParamType::Number => json!({ "type": "number" }),
        ParamType::Expr => json!({ "type": ["number", "string", "object"] }),
        ParamType::Text | ParamType::Name | ParamType::Id(_) | ParamType::Object => {
            json!({ "type": "string" })
        }
        ParamType::Names => json!({ "type": ["array", "string"], "items": { "type": "string" } }),
        ParamType::Selector => json!({ "$ref": "#/$defs/selector" }),
        ParamType::Condition => json!({ "anyOf": [ { "$ref": "#/$defs/condition" },
                                                   { "type": "array", "items": { "$ref": "#/$defs/condition" } } ] }),
        ParamType::Actions => json!({ "$ref": "#/$defs/actions" }),
        ParamType::Aura | ParamType::Table => json!({ "type": ["object", "string"] }),
        ParamType::List => json!({ "type": "array" }),
        ParamType::Any => json!({}),
    };
    if let Some(o) = s.as_object_mut() {
        o.insert("description".into(), Value::String(description));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(schema: &Value, def: Option<&str>) -> Vec<String> {
        let node = match def {
            Some(d) => &schema["$defs"][d],
            None => schema,
        };
        let mut k: Vec<String> = node["properties"]
            .as_object()
            .map(|o| o.keys().cloned().collect())
            .unwrap_or_default();
        k.sort();
        k
    }

    fn sorted(keys: &[&str]) -> Vec<String> {
        let mut k: Vec<String> = keys.iter().map(|s| s.to_string()).collect();
        k.sort();
        k
    }

    /// The schemas and the parsers name the same keys, so an editor never suggests a key
    /// `tessera check` refuses, or misses one it takes.
    #[test]
    fn file_schemas_name_the_keys_the_parsers_accept() {
        use crate::mods::schema_keys as k;
        let m = manifest();
        assert_eq!(keys(&m, None), sorted(k::manifest_top()));
        assert_eq!(keys(&m, Some("ModTable")), sorted(k::manifest_mod()));
        assert_eq!(keys(&m, Some("Plugin")), sorted(k::manifest_plugin()));
        let s = server();
        assert_eq!(keys(&s, None), sorted(k::server_top()));
        assert_eq!(keys(&s, Some("Limits")), sorted(k::server_limits()));
    }

    #[test]
    fn content_schema_lists_every_registered_kind_with_its_parameters() {
        let registry = Registry::with_core();
        let schema = content(&registry);
        let actions = schema["$defs"]["action"]["anyOf"].as_array().unwrap();
        assert_eq!(actions.len(), registry.actions.len() + 1);
        let damage = actions
            .iter()
            .find(|a| a["properties"]["type"]["enum"][0] == "core:action/damage")
            .expect("core:action/damage");
        assert_eq!(damage["properties"]["type"]["enum"][1], "damage");
        assert!(damage["properties"]["amount"]["description"].is_string());
        assert_eq!(
            schema["$defs"]["TriggerSpec"]["properties"]["do"]["$ref"],
            "#/$defs/actions"
        );
        assert!(schema["properties"]["class"].is_object());
    }
}
