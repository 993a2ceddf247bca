//! Typed access to a registry entry's parameters while it is prepared, with errors that
//! point at the offending key.

use std::fmt;

use serde_json::{Map, Value as Json};

use super::compile::Compiler;
use super::expr::{Expr, ObjRef};
use super::select::Select;
use super::ContentError;
use crate::id::{Id, Sym};
use crate::rules::registry::{Action, Condition, ParamSpec, ParamType};
use crate::state::Value;

/// One step of a path into a content file: a table key or a list index.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum PathSeg {
    /// A table key.
    Key(String),
    /// A list index.
    Index(usize),
}

impl fmt::Display for PathSeg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PathSeg::Key(k) => f.write_str(k),
            PathSeg::Index(i) => write!(f, "[{i}]"),
        }
    }
}

/// Renders a path as `class.wolf.trigger[0].do[1]`.
pub fn path_string(path: &[PathSeg]) -> String {
    let mut s = String::new();
    for seg in path {
        match seg {
            PathSeg::Key(k) => {
                if !s.is_empty() {
                    s.push('.');
                }
                s.push_str(k);
            }
            PathSeg::Index(i) => s.push_str(&format!("[{i}]")),
        }
    }
    s
}

/// A mode of `choose_mode`: its label, the condition under which it is offered (`if`,
/// tested on the holder; none: always), and its actions.
#[derive(Debug)]
pub struct LabelledActions {
    /// What the player is shown (and a scenario answers with).
    pub label: String,
    /// Offered only while this holds on the holder.
    pub when: Option<Box<dyn Condition>>,
    /// What the mode does.
    pub actions: Vec<Box<dyn Action>>,
}

/// The parameters of one use of a registry entry, being prepared.
pub struct Params<'a, 'c> {
    pub(crate) map: &'a Map<String, Json>,
    pub(crate) path: Vec<PathSeg>,
    pub(crate) compiler: &'a mut Compiler<'c>,
    pub(crate) entry: Id,
}

impl Params<'_, '_> {
    /// The id of the entry being prepared.
    pub fn entry(&self) -> Id {
        self.entry
    }

    /// The namespace of the mod whose content this is.
    pub fn namespace(&self) -> &str {
        self.compiler.namespace()
    }

    /// The path of a key, for errors.
    pub fn path_of(&self, key: &str) -> Vec<PathSeg> {
        let mut p = self.path.clone();
        p.push(PathSeg::Key(key.to_owned()));
        p
    }

    /// An error about a key.
    pub fn error(&self, key: &str, message: impl Into<String>) -> ContentError {
        ContentError::new("E-CONTENT-PARAM", self.path_of(key), message)
    }

    /// The raw value of a key.
    pub fn raw(&self, key: &str) -> Option<&Json> {
        self.map.get(key)
    }

    fn missing(&self, key: &str, ty: ParamType) -> ContentError {
        ContentError::new(
            "E-CONTENT-MISSING-PARAM",
            self.path.clone(),
            format!("`{}` needs the parameter `{key}`", self.entry),
        )
        .help(format!("add `{key} = ...` ({})", ty.describe()))
    }

    /// A required expression.
    pub fn expr(&mut self, key: &str) -> Result<Expr, ContentError> {
        self.opt_expr(key)?
            .ok_or_else(|| self.missing(key, ParamType::Expr))
    }

    /// An optional expression.
    pub fn opt_expr(&mut self, key: &str) -> Result<Option<Expr>, ContentError> {
        let Some(v) = self.map.get(key) else {
            return Ok(None);
        };
        let path = self.path_of(key);
        self.compiler.expr(v, &path).map(Some)
    }

    /// An optional expression with a default literal.
    pub fn expr_or(&mut self, key: &str, default: f64) -> Result<Expr, ContentError> {
        Ok(self.opt_expr(key)?.unwrap_or(Expr::lit(default)))
    }

    /// A required name (zone, tag, key).
    pub fn name(&mut self, key: &str) -> Result<Sym, ContentError> {
        self.opt_name(key)?
            .ok_or_else(|| self.missing(key, ParamType::Name))
    }

    /// An optional name.
    pub fn opt_name(&mut self, key: &str) -> Result<Option<Sym>, ContentError> {
        match self.map.get(key) {
            None => Ok(None),
            Some(Json::String(s)) if !s.is_empty() => Ok(Some(Sym::new(s))),
            Some(other) => Err(self.wrong_type(key, ParamType::Name, other)),
        }
    }

    /// A list of names (a single name counts as a list of one).
    pub fn names(&mut self, key: &str) -> Result<Vec<Sym>, ContentError> {
        match self.map.get(key) {
            None => Ok(Vec::new()),
            Some(Json::String(s)) => Ok(vec![Sym::new(s)]),
            Some(Json::Array(a)) => a
                .iter()
                .map(|v| match v {
                    Json::String(s) => Ok(Sym::new(s)),
                    other => Err(self.wrong_type(key, ParamType::Names, other)),
                })
                .collect(),
            Some(other) => Err(self.wrong_type(key, ParamType::Names, other)),
        }
    }

    /// Ids of a category: one (`"wolf"`) or a list (`["wolf", "bear"]`); each checked to
    /// exist. Absent: an empty list.
    pub fn ids(&mut self, key: &str, category: &'static str) -> Result<Vec<Id>, ContentError> {
        self.each_id(key, category, |r| r)
    }

    /// Like [`Params::ids`], but an id no loaded content defines is `None` rather than an
    /// error (for a parameter with a fallback, such as `create`'s `otherwise`).
    pub fn ids_if_defined(
        &mut self,
        key: &str,
        category: &'static str,
    ) -> Result<Vec<Option<Id>>, ContentError> {
        self.each_id(key, category, |r| match r {
            Ok(id) => Ok(Some(id)),
            Err(e) if e.code == "E-CONTENT-UNKNOWN-ID" => Ok(None),
            Err(e) => Err(e),
        })
    }

    /// One id or a list of them, each resolved and then judged by `on`.
    fn each_id<T>(
        &mut self,
        key: &str,
        category: &'static str,
        on: impl Fn(Result<Id, ContentError>) -> Result<T, ContentError>,
    ) -> Result<Vec<T>, ContentError> {
        let items: Vec<Json> = match self.map.get(key) {
            None => return Ok(Vec::new()),
            Some(Json::Array(a)) => a.clone(),
            Some(v) => vec![v.clone()],
        };
        let path = self.path_of(key);
        items
            .iter()
            .map(|v| match v {
                Json::String(s) => on(self.compiler.reference(s, category, &path)),
                other => Err(self.wrong_type(key, ParamType::Id(category), other)),
            })
            .collect()
    }

    /// Optional text.
    pub fn opt_text(&mut self, key: &str) -> Result<Option<String>, ContentError> {
        match self.map.get(key) {
            None => Ok(None),
            Some(Json::String(s)) => Ok(Some(s.clone())),
            Some(other) => Err(self.wrong_type(key, ParamType::Text, other)),
        }
    }

    /// A bool with a default.
    pub fn bool_or(&mut self, key: &str, default: bool) -> Result<bool, ContentError> {
        match self.map.get(key) {
            None => Ok(default),
            Some(Json::Bool(b)) => Ok(*b),
            Some(other) => Err(self.wrong_type(key, ParamType::Bool, other)),
        }
    }

    /// A required id of a category (`class`, `event`), short forms resolved against the
    /// mod's namespace; checked to exist.
    pub fn id(&mut self, key: &str, category: &'static str) -> Result<Id, ContentError> {
        self.opt_id(key, category)?
            .ok_or_else(|| self.missing(key, ParamType::Id(category)))
    }

    /// An optional id of a category; checked to exist.
    pub fn opt_id(
        &mut self,
        key: &str,
        category: &'static str,
    ) -> Result<Option<Id>, ContentError> {
        match self.map.get(key) {
            None => Ok(None),
            Some(Json::String(s)) => {
                let path = self.path_of(key);
                self.compiler.reference(s, category, &path).map(Some)
            }
            Some(other) => Err(self.wrong_type(key, ParamType::Id(category), other)),
        }
    }

    /// An optional object reference (`self.owner`).
    pub fn object(&mut self, key: &str) -> Result<Option<ObjRef>, ContentError> {
        match self.map.get(key) {
            None => Ok(None),
            Some(Json::String(s)) => ObjRef::parse(s)
                .map(Some)
                .map_err(|e| ContentError::new("E-CONTENT-PARAM", self.path_of(key), e.message)),
            Some(other) => Err(self.wrong_type(key, ParamType::Object, other)),
        }
    }

    /// An optional selector.
    pub fn selector(&mut self, key: &str) -> Result<Option<Select>, ContentError> {
        let Some(v) = self.map.get(key) else {
            return Ok(None);
        };
        let path = self.path_of(key);
        self.compiler.selector(v, &path).map(Some)
    }

    /// An optional condition (a list means all of them).
    pub fn condition(&mut self, key: &str) -> Result<Option<Box<dyn Condition>>, ContentError> {
        let Some(v) = self.map.get(key) else {
            return Ok(None);
        };
        let path = self.path_of(key);
        self.compiler.condition(v, &path).map(Some)
    }

    /// A list of actions (absent = none).
    pub fn actions(&mut self, key: &str) -> Result<Vec<Box<dyn Action>>, ContentError> {
        let Some(v) = self.map.get(key) else {
            return Ok(Vec::new());
        };
        let path = self.path_of(key);
        self.compiler.actions(v, &path)
    }

    /// A list of labelled action lists (`[{ label = "...", do = [...], if = ... }, ...]`),
    /// for modes a player chooses among (absent = none).
    pub fn labelled_actions(&mut self, key: &str) -> Result<Vec<LabelledActions>, ContentError> {
        let Some(v) = self.map.get(key) else {
            return Ok(Vec::new());
        };
        let path = self.path_of(key);
        let Json::Array(items) = v else {
            return Err(self.wrong_type(key, ParamType::List, v));
        };
        let mut out = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let mut p = path.clone();
            p.push(PathSeg::Index(i));
            let bad = |p: &[PathSeg]| {
                ContentError::new(
                    "E-CONTENT-PARAM",
                    p.to_vec(),
                    "each entry is `{ label = \"...\", do = [...] }`",
                )
            };
            let Json::Object(m) = item else {
                return Err(bad(&p));
            };
            let (Some(Json::String(label)), Some(actions)) = (m.get("label"), m.get("do")) else {
                return Err(bad(&p));
            };
            if let Some(extra) = m
                .keys()
                .find(|k| !["label", "do", "if"].contains(&k.as_str()))
            {
                let mut at = p.clone();
                at.push(PathSeg::Key(extra.clone()));
                return Err(ContentError::new(
                    "E-CONTENT-UNKNOWN-PARAM",
                    at,
                    format!("a mode has no `{extra}`: give it `label`, `do` and optionally `if`"),
                ));
            }
            let when = match m.get("if") {
                Some(c) => {
                    let mut at = p.clone();
                    at.push(PathSeg::Key("if".into()));
                    Some(self.compiler.condition(c, &at)?)
                }
                None => None,
            };
            p.push(PathSeg::Key("do".into()));
            out.push(LabelledActions {
                label: label.clone(),
                when,
                actions: self.compiler.actions(actions, &p)?,
            });
        }
        Ok(out)
    }

    /// An aura: the id of a named aura, or an inline aura table (registered under a
    /// generated id).
    pub fn aura(&mut self, key: &str) -> Result<Id, ContentError> {
        let Some(v) = self.map.get(key) else {
            return Err(self.missing(key, ParamType::Aura));
        };
        let path = self.path_of(key);
        self.compiler.aura_param(v, &path)
    }

    /// A given effect: an inline trigger table, compiled as a trigger bound to the id
    /// returned (`core:action/give_effect`).
    pub fn effect(&mut self, key: &str) -> Result<Id, ContentError> {
        let Some(v) = self.map.get(key) else {
            return Err(self.missing(key, ParamType::Table));
        };
        let path = self.path_of(key);
        self.compiler.effect_param(v, &path)
    }

    /// A table of property values.
    pub fn table(&mut self, key: &str) -> Result<Vec<(Sym, Value)>, ContentError> {
        match self.map.get(key) {
            None => Ok(Vec::new()),
            Some(Json::Object(m)) => m
                .iter()
                .map(|(k, v)| {
                    Value::from_json(v)
                        .map(|v| (Sym::new(k), v))
                        .ok_or_else(|| {
                            ContentError::new(
                                "E-CONTENT-TYPE",
                                self.path_of(key),
                                format!("`{k}` must be a number, bool, text or list"),
                            )
                        })
                })
                .collect(),
            Some(other) => Err(self.wrong_type(key, ParamType::Table, other)),
        }
    }

    /// A table of object references (`{ context = "event.target" }`), in key order.
    pub fn object_table(&mut self, key: &str) -> Result<Vec<(Sym, ObjRef)>, ContentError> {
        self.table_of(key, |_, k, v, path| match v {
            Json::String(s) => {
                ObjRef::parse(s).map_err(|e| ContentError::new("E-CONTENT-PARAM", path, e.message))
            }
            other => Err(ContentError::new(
                "E-CONTENT-TYPE",
                path,
                format!(
                    "`{k}` must be an object reference such as `event.target`, not {}",
                    json_type(other)
                ),
            )),
        })
    }

    /// A table of expressions (`{ amount = "event.amount" }`), in key order.
    pub fn expr_table(&mut self, key: &str) -> Result<Vec<(Sym, Expr)>, ContentError> {
        self.table_of(key, |p, _, v, path| p.compiler.expr(v, &path))
    }

    /// Each entry of the table parameter `key`, read by `read` (with the entry's key,
    /// value and path), in key order; none when it is absent.
    fn table_of<T>(
        &mut self,
        key: &str,
        mut read: impl FnMut(&mut Self, &str, &Json, Vec<PathSeg>) -> Result<T, ContentError>,
    ) -> Result<Vec<(Sym, T)>, ContentError> {
        let map = self.map;
        match map.get(key) {
            None => Ok(Vec::new()),
            Some(Json::Object(m)) => m
                .iter()
                .map(|(k, v)| {
                    let mut path = self.path_of(key);
                    path.push(PathSeg::Key(k.clone()));
                    read(self, k, v, path).map(|t| (Sym::new(k), t))
                })
                .collect(),
            Some(other) => Err(self.wrong_type(key, ParamType::Table, other)),
        }
    }

    /// A "wrong type" error.
    pub fn wrong_type(&self, key: &str, ty: ParamType, found: &Json) -> ContentError {
        ContentError::new(
            "E-CONTENT-TYPE",
            self.path_of(key),
            format!(
                "`{key}` of `{}` must be {}, found {}",
                self.entry,
                ty.describe(),
                json_type(found)
            ),
        )
    }
}

/// Checks a parameter table against an entry's schema: unknown keys (with the closest
/// known one), missing required keys, and obviously wrong types.
pub(crate) fn check_schema(
    entry: Id,
    specs: &[ParamSpec],
    map: &Map<String, Json>,
    path: &[PathSeg],
    generic: &[&str],
) -> Result<(), ContentError> {
    for (k, v) in map {
        if k == "type" || generic.contains(&k.as_str()) {
            continue;
        }
        let Some(spec) = specs.iter().find(|s| s.name == k.as_str()) else {
            let mut p = path.to_vec();
            p.push(PathSeg::Key(k.clone()));
            let known: Vec<&str> = specs
                .iter()
                .map(|s| s.name.as_ref())
                .chain(generic.iter().copied())
                .collect();
            let mut e = ContentError::new(
                "E-CONTENT-UNKNOWN-PARAM",
                p,
                format!("`{entry}` has no parameter `{k}`"),
            );
            if let Some(best) = crate::id::closest(k, known.iter().copied()).first() {
                e = e.help(format!("did you mean `{best}`?"));
            } else if known.is_empty() {
                e = e.help(format!("`{entry}` takes no parameters"));
            } else {
                e = e.help(format!("known parameters: {}", known.join(", ")));
            }
            return Err(e);
        };
        let ok = match spec.ty {
            ParamType::Expr => matches!(v, Json::Number(_) | Json::String(_) | Json::Object(_)),
            ParamType::Text | ParamType::Name | ParamType::Id(_) | ParamType::Object => {
                v.is_string()
            }
            ParamType::Bool => v.is_boolean(),
            ParamType::Selector | ParamType::Condition => v.is_object() || v.is_array(),
            ParamType::Actions => v.is_array() || v.is_object(),
            ParamType::Aura => v.is_string() || v.is_object(),
            ParamType::Table => v.is_object(),
            ParamType::Names => v.is_string() || v.is_array(),
            ParamType::Number => v.is_number(),
            ParamType::List => v.is_array(),
            ParamType::Any => true,
        };
        if !ok {
            let mut p = path.to_vec();
            p.push(PathSeg::Key(k.clone()));
            return Err(ContentError::new(
                "E-CONTENT-TYPE",
                p,
                format!(
                    "`{k}` of `{entry}` must be {}, found {}",
                    spec.ty.describe(),
                    json_type(v)
                ),
            ));
        }
    }
    for spec in specs.iter().filter(|s| s.required) {
        if !map.contains_key(spec.name.as_ref()) {
            return Err(ContentError::new(
                "E-CONTENT-MISSING-PARAM",
                path.to_vec(),
                format!("`{entry}` needs the parameter `{}`", spec.name),
            )
            .help(format!(
                "add `{} = ...` ({}): {}",
                spec.name,
                spec.ty.describe(),
                spec.doc
            )));
        }
    }
    Ok(())
}

/// A short name of a JSON value's type.
pub(crate) fn json_type(v: &Json) -> &'static str {
    match v {
        Json::Null => "null",
        Json::Bool(_) => "a bool",
        Json::Number(_) => "a number",
        Json::String(_) => "text",
        Json::Array(_) => "a list",
        Json::Object(_) => "a table",
    }
}
