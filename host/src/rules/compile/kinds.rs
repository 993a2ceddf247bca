//! Compiling what definitions use: conditions, actions, nodes, expressions, aliases and
//! refs — each against the registry, with errors at the offending key. Selectors are in
//! `selectors`.

use std::sync::Arc;

use serde_json::{Map, Value as Json};

use crate::bus::Binding;
use crate::id::{closest, Id};
use crate::rules::content::{AuraSpec, TriggerSpec};
use crate::rules::expr::{self, Expr, NameError, Names};
use crate::rules::params::{check_schema, json_type, Params, PathSeg};
use crate::rules::registry::{Action, Condition, Node, Selector, Table};
use crate::rules::select::{self, Select};
use crate::rules::ContentError;

use super::*;

impl<'c> Compiler<'c> {
    /// Resolves a reference to a declared id of a category; unknown ids get suggestions.
    pub(crate) fn reference(
        &mut self,
        s: &str,
        category: &'static str,
        path: &[PathSeg],
    ) -> Result<Id, ContentError> {
        let full = if s.contains(':') || s.contains('/') {
            s.to_owned()
        } else {
            format!("{category}/{s}")
        };
        let id = Id::resolve(&full, Some(&self.ns))
            .map_err(|e| ContentError::new("E-CONTENT-ID", path.to_vec(), e.to_string()))?;
        let (known, names): (bool, Vec<&'static str>) = match category {
            "class" => (
                self.defs.classes.contains(&id),
                self.defs.classes.iter().map(|i| i.as_str()).collect(),
            ),
            "event" => (
                self.defs.events.contains(&id),
                self.defs.events.iter().map(|i| i.as_str()).collect(),
            ),
            "aura" => (
                self.defs.auras.contains(&id),
                self.defs.auras.iter().map(|i| i.as_str()).collect(),
            ),
            "pass" => (
                self.defs.passes.contains(&id),
                self.defs.passes.iter().map(|i| i.as_str()).collect(),
            ),
            _ => (true, Vec::new()),
        };
        // A bare event name may also mean the core event (`damaged` → `core:event/damaged`).
        if !known && category == "event" && !s.contains(':') {
            if let Ok(core) = Id::resolve(&full, Some("core")) {
                if self.defs.events.contains(&core) {
                    return Ok(core);
                }
            }
        }
        if !known {
            let mut sorted = names;
            sorted.sort_unstable();
            let mut e = ContentError::new(
                "E-CONTENT-UNKNOWN-ID",
                path.to_vec(),
                format!("unknown {category} `{id}`"),
            );
            match closest(id.as_str(), sorted.iter().copied()).first() {
                Some(b) => e = e.help(format!("did you mean `{b}`?")),
                None => e = e.help(format!("define it with `[{category}.{}]`, or check the mod that should provide it is loaded", id.name())),
            }
            return Err(e);
        }
        Ok(id)
    }

    /// The ids a kind's name may stand for, in order: a full id as written; `category/name`
    /// in the mod's namespace; a bare name in the mod's namespace, then in `core`.
    pub(crate) fn kind_candidates(&self, kind: &str, s: &str) -> Vec<String> {
        if s.contains(':') {
            vec![s.to_owned()]
        } else if s.contains('/') {
            vec![format!("{}:{s}", self.ns)]
        } else {
            vec![
                format!("{}:{kind}/{s}", self.ns),
                format!("core:{kind}/{s}"),
            ]
        }
    }

    /// Resolves a `type` against a kind table: full id, short `category/name` in this mod,
    /// or a bare name (this mod's first, then `core`'s).
    pub(crate) fn kind_id<K: ?Sized>(
        &self,
        table: &Table<K>,
        s: &str,
        path: &[PathSeg],
    ) -> Result<Id, ContentError> {
        let kind = table.kind();
        let candidates = self.kind_candidates(kind, s);
        for c in &candidates {
            if let Ok(id) = Id::parse(c) {
                if table.get(id).is_some() {
                    return Ok(id);
                }
            }
        }
        let mut e = ContentError::new(
            "E-CONTENT-UNKNOWN-ID",
            with(path, "type"),
            format!("unknown {kind} `{s}`"),
        );
        // Registered kinds and the ones content defines (`[action.X]`, ...).
        let mut names: Vec<&str> = table.names().collect();
        names.extend(
            self.defs
                .refs
                .keys()
                .filter(|id| id.category() == kind)
                .map(|id| id.as_str()),
        );
        let suggestions = closest(s, names.iter().copied());
        if let Some(b) = suggestions.first() {
            e = e.help(format!("did you mean `{b}`?"));
        } else {
            let mut all = names.clone();
            all.sort_unstable();
            e = e.help(format!("known {kind}s: {}", all.join(", ")));
        }
        Err(e)
    }

    /// Compiles an expression value: a number, an expression string, or `{ count = selector }`.
    pub(crate) fn expr(&mut self, v: &Json, path: &[PathSeg]) -> Result<Expr, ContentError> {
        match v {
            Json::Number(n) => Ok(Expr::lit(n.as_f64().unwrap_or(0.0))),
            Json::String(s) => {
                let mut names = CompilerNames { c: self, path, failure: None };
                let parsed = expr::parse(s, &mut names);
                // An alias or selector ref that failed keeps its own error (code, help).
                if let Some(inner) = names.failure.take() {
                    return Err(inner);
                }
                parsed.map_err(|e| ContentError::new("E-CONTENT-EXPR", path.to_vec(), e.to_string()))
            }
            Json::Object(m) => self.expr_table(m, path),
            other => Err(ContentError::new(
                "E-CONTENT-TYPE",
                path.to_vec(),
                format!("expected a number or expression, found {}", json_type(other)),
            )
            .help("write a number (`3`), dice (`\"1d6\"`), a reference (`\"self.attack\"`) or `{ count = <selector> }`")),
        }
    }

    pub(crate) fn alias_expr(&mut self, id: Id, path: &[PathSeg]) -> Result<Expr, ContentError> {
        if let Some(pos) = self.stack.iter().position(|s| *s == id) {
            let mut cycle: Vec<&str> = self.stack[pos..].iter().map(|i| i.as_str()).collect();
            cycle.push(id.as_str());
            return Err(ContentError::new(
                "E-CONTENT-CYCLE",
                path.to_vec(),
                format!(
                    "aliases refer to each other in a cycle: {}",
                    cycle.join(" -> ")
                ),
            ));
        }
        self.check_chain(id, path, "aliases")?;
        let (value, _) = self.defs.aliases.get(&id).cloned().ok_or_else(|| {
            ContentError::new(
                "E-CONTENT-UNKNOWN-ID",
                path.to_vec(),
                format!("unknown alias `{id}`"),
            )
        })?;
        self.stack.push(id);
        let r = self.expr(&value, path);
        self.stack.pop();
        r
    }

    /// Compiles a condition: a table, a list (all must hold), `all`/`any`/`not`, or a ref.
    pub(crate) fn condition(
        &mut self,
        v: &Json,
        path: &[PathSeg],
    ) -> Result<Box<dyn Condition>, ContentError> {
        self.nested(path, |c| c.condition_at(v, path))
    }

    fn condition_at(
        &mut self,
        v: &Json,
        path: &[PathSeg],
    ) -> Result<Box<dyn Condition>, ContentError> {
        match v {
            Json::Array(items) => {
                let mut all = Vec::new();
                for (i, item) in items.iter().enumerate() {
                    let mut p = path.to_vec();
                    p.push(PathSeg::Index(i));
                    all.push(self.condition(item, &p)?);
                }
                Ok(Box::new(select::All(all)))
            }
            Json::String(s) => {
                let mut m = Map::new();
                m.insert("type".into(), Json::String(s.clone()));
                self.condition(&Json::Object(m), path)
            }
            Json::Object(m) => {
                if let Some(items) = m.get("all") {
                    return self.condition(items, &with(path, "all"));
                }
                if let Some(items) = m.get("any") {
                    let list = items.as_array().ok_or_else(|| {
                        ContentError::new(
                            "E-CONTENT-TYPE",
                            with(path, "any"),
                            "`any` takes a list of conditions",
                        )
                    })?;
                    let mut any = Vec::new();
                    for (i, item) in list.iter().enumerate() {
                        let mut p = with(path, "any");
                        p.push(PathSeg::Index(i));
                        any.push(self.condition(item, &p)?);
                    }
                    return Ok(Box::new(select::Any(any)));
                }
                if let Some(inner) = m.get("not") {
                    return Ok(Box::new(select::Not(
                        self.condition(inner, &with(path, "not"))?,
                    )));
                }
                if let Some(r) = self.content_kind("condition", m) {
                    return self.condition(&Json::Object(r), path);
                }
                if m.contains_key("ref") {
                    let (id, body) = self.expand_ref(m, "condition", path)?;
                    return self.with_ref(id, |c| c.condition(&body, path));
                }
                let t = m.get("type").and_then(Json::as_str).ok_or_else(|| {
                    ContentError::new(
                        "E-CONTENT-MISSING-PARAM",
                        path.to_vec(),
                        "a condition needs a `type` (or `all`, `any`, `not`, `ref`)",
                    )
                })?;
                let registry = self.registry;
                let (id, imp) = self.entry(&registry.conditions, t, m, path, &[])?;
                let mut p = Params {
                    map: m,
                    path: path.to_vec(),
                    compiler: self,
                    entry: id,
                };
                imp.prepare(&mut p)
            }
            other => Err(ContentError::new(
                "E-CONTENT-TYPE",
                path.to_vec(),
                format!("expected a condition, found {}", json_type(other)),
            )),
        }
    }

    /// Compiles a list of actions (a single table counts as a list of one).
    pub(crate) fn actions(
        &mut self,
        v: &Json,
        path: &[PathSeg],
    ) -> Result<Vec<Box<dyn Action>>, ContentError> {
        let items: Vec<(Vec<PathSeg>, &Json)> = match v {
            Json::Array(items) => items
                .iter()
                .enumerate()
                .map(|(i, it)| {
                    let mut p = path.to_vec();
                    p.push(PathSeg::Index(i));
                    (p, it)
                })
                .collect(),
            Json::Object(_) => vec![(path.to_vec(), v)],
            other => {
                return Err(ContentError::new(
                    "E-CONTENT-TYPE",
                    path.to_vec(),
                    format!("expected a list of actions, found {}", json_type(other)),
                )
                .help("write `do = [{ type = \"core:action/damage\", amount = 1 }]`"))
            }
        };
        let mut out = Vec::new();
        for (p, item) in items {
            let Json::Object(m) = item else {
                return Err(ContentError::new(
                    "E-CONTENT-TYPE",
                    p,
                    format!("expected an action table, found {}", json_type(item)),
                ));
            };
            let rewritten = self.content_kind("action", m);
            let m = rewritten.as_ref().unwrap_or(m);
            if m.contains_key("ref") {
                let (id, body) = self.expand_ref(m, "action", &p)?;
                let mut expanded = self.with_ref(id, |c| c.actions(&body, &p))?;
                match m.get("to") {
                    // `to` on a ref use: the whole body acts on that selection.
                    Some(s) => {
                        let to = Some(self.selector(s, &with(&p, "to"))?);
                        let origin = self.origin(&p, format!("`{id}`"));
                        let action = Box::new(Sequence(expanded));
                        out.push(Box::new(Located { action, to, origin }) as Box<dyn Action>);
                    }
                    None => out.append(&mut expanded),
                }
                continue;
            }
            let t = m.get("type").and_then(Json::as_str).ok_or_else(|| {
                ContentError::new(
                    "E-CONTENT-MISSING-PARAM",
                    p.clone(),
                    "an action needs a `type` (or a `ref`)",
                )
                .help("for example `{ type = \"core:action/damage\", amount = 2 }`")
            })?;
            let registry = self.registry;
            let (id, imp) = self.entry(&registry.actions, t, m, &p, ACTION_KEYS)?;
            let to = match m.get("to") {
                Some(s) => Some(self.selector(s, &with(&p, "to"))?),
                None => None,
            };
            let mut params = Params {
                map: m,
                path: p.clone(),
                compiler: self,
                entry: id,
            };
            let action = imp.prepare(&mut params)?;
            let origin = self.origin(&p, format!("action `{id}`"));
            out.push(Box::new(Located { action, to, origin }) as Box<dyn Action>);
        }
        Ok(out)
    }

    /// Compiles one node: a table with a `type` naming a registered node type.
    pub(crate) fn node(
        &mut self,
        v: &Json,
        path: &[PathSeg],
    ) -> Result<Box<dyn Node>, ContentError> {
        let Json::Object(m) = v else {
            return Err(ContentError::new(
                "E-CONTENT-TYPE",
                path.to_vec(),
                format!("expected a node table, found {}", json_type(v)),
            ));
        };
        let t = m.get("type").and_then(Json::as_str).ok_or_else(|| {
            ContentError::new(
                "E-CONTENT-MISSING-PARAM",
                path.to_vec(),
                "a node needs a `type`",
            )
        })?;
        let registry = self.registry;
        let (id, imp) = self.entry(&registry.nodes, t, m, path, &[])?;
        let mut p = Params {
            map: m,
            path: path.to_vec(),
            compiler: self,
            entry: id,
        };
        imp.prepare(&mut p)
    }

    /// Resolves `type` against a kind table, checks the use site's parameters against the
    /// entry's schema, and returns the entry's id and implementation.
    pub(crate) fn entry<K: ?Sized>(
        &self,
        table: &Table<K>,
        t: &str,
        m: &Map<String, Json>,
        path: &[PathSeg],
        generic: &[&str],
    ) -> Result<(Id, Arc<K>), ContentError> {
        let id = self.kind_id(table, t, path)?;
        let entry = table.get(id).ok_or_else(|| {
            ContentError::new(
                "E-CONTENT-UNKNOWN-ID",
                with(path, "type"),
                format!("unknown {} `{id}`", table.kind()),
            )
        })?;
        check_schema(id, &entry.params, m, path, generic)?;
        Ok((id, entry.imp.clone()))
    }

    /// An aura parameter: a name or an inline table.
    pub(crate) fn aura_param(&mut self, v: &Json, path: &[PathSeg]) -> Result<Id, ContentError> {
        match v {
            Json::String(s) => self.reference(s, "aura", path),
            Json::Object(_) => {
                let spec: AuraSpec = serde_json::from_value(v.clone()).map_err(|e| {
                    ContentError::new(
                        "E-CONTENT-SCHEMA",
                        path.to_vec(),
                        format!("inline aura: {e}"),
                    )
                })?;
                self.inline += 1;
                let line = self.origin(path, String::new()).line;
                let id = Id::from_parts(
                    &self.ns,
                    "aura",
                    &format!("inline/{}/{line}-{}", self.file, self.inline),
                )
                .map_err(|e| ContentError::new("E-CONTENT-ID", path.to_vec(), e.to_string()))?;
                let def = self.aura(id, &spec, path, false)?;
                self.auras.push((id, def));
                Ok(id)
            }
            other => Err(ContentError::new(
                "E-CONTENT-TYPE",
                path.to_vec(),
                format!("expected an aura name or table, found {}", json_type(other)),
            )),
        }
    }
}

impl Compiler<'_> {
    /// A given effect: an inline trigger table (`when`, `select`, `do`, `priority`,
    /// `zones`, `look_back`), compiled as a trigger bound to its own id (run per instance
    /// given by `give_effect`); returns the id.
    pub(crate) fn effect_param(&mut self, v: &Json, path: &[PathSeg]) -> Result<Id, ContentError> {
        if !v.is_object() {
            return Err(ContentError::new(
                "E-CONTENT-TYPE",
                path.to_vec(),
                format!(
                    "expected an effect table (`when`, `do`, optional `select`), found {}",
                    json_type(v)
                ),
            ));
        }
        let spec: TriggerSpec = serde_json::from_value(v.clone()).map_err(|e| {
            ContentError::new("E-CONTENT-SCHEMA", path.to_vec(), format!("given effect: {e}"))
                .help("a given effect is a trigger table: `when`, `do`, and optionally `select`, `priority`, `zones`, `look_back`")
        })?;
        self.inline += 1;
        let line = self.origin(path, String::new()).line;
        let id = Id::from_parts(
            &self.ns,
            "effect",
            &format!("inline/{}/{line}-{}", self.file, self.inline),
        )
        .map_err(|e| ContentError::new("E-CONTENT-ID", path.to_vec(), e.to_string()))?;
        let trigger = self.trigger(
            &spec,
            path,
            Binding::Given(id),
            format!("given effect `{id}`"),
        )?;
        self.effects.push(trigger);
        Ok(id)
    }
}

/// Actions run one after another on the same targets (a ref body used with `to`).
#[derive(Debug)]
struct Sequence(Vec<Box<dyn Action>>);

impl Action for Sequence {
    fn run(
        &self,
        ax: &mut crate::rules::ActCx<'_>,
        targets: &[crate::state::ObjId],
    ) -> Result<(), crate::rules::RuleError> {
        self.0.iter().try_for_each(|a| a.run(ax, targets))
    }
}

/// An action with its optional `to` override and its origin (for error context).
#[derive(Debug)]
struct Located {
    action: Box<dyn Action>,
    to: Option<Select>,
    origin: Origin,
}

impl Action for Located {
    fn run(
        &self,
        ax: &mut crate::rules::ActCx<'_>,
        targets: &[crate::state::ObjId],
    ) -> Result<(), crate::rules::RuleError> {
        let _span =
            tracing::trace_span!("action", def = %self.origin.def, mod_id = %self.origin.mod_id)
                .entered();
        let r = match &self.to {
            // An action sent `to` a selection that selects nothing does nothing: without
            // targets, actions fall back to their holder (`if` tests it, `emit` raises
            // one untargeted event), which is what an action with no `to` means.
            Some(sel) => {
                let mut own = Vec::new();
                sel.select(&ax.cx(), &mut own).and_then(|()| {
                    if own.is_empty() {
                        Ok(())
                    } else {
                        self.action.run(ax, &own)
                    }
                })
            }
            None => self.action.run(ax, targets),
        };
        r.map_err(|e| match e {
            e @ crate::rules::RuleError::In { .. } => e,
            e => e.context(&self.origin),
        })
    }
    fn picks_own_targets(&self) -> bool {
        self.to.is_some()
    }
}

pub(crate) fn with(path: &[PathSeg], key: &str) -> Vec<PathSeg> {
    let mut p = path.to_vec();
    p.push(PathSeg::Key(key.to_owned()));
    p
}

struct CompilerNames<'a, 'c> {
    c: &'a mut Compiler<'c>,
    path: &'a [PathSeg],
    /// The first alias or selector error, reported as it is rather than as text.
    failure: Option<ContentError>,
}

impl Names for CompilerNames<'_, '_> {
    fn alias(&mut self, name: &str) -> Result<Option<Expr>, NameError> {
        if let Some((_, e)) = self.c.locals.iter().rev().find(|(n, _)| n == name) {
            return Ok(Some(e.clone()));
        }
        let Ok(id) = Id::from_parts(&self.c.ns, "alias", name) else {
            return Ok(None);
        };
        if !self.c.defs.aliases.contains_key(&id) {
            return Ok(None);
        }
        self.c.alias_expr(id, self.path).map(Some).map_err(|e| {
            let msg = NameError(e.message.clone());
            self.failure.get_or_insert(e);
            msg
        })
    }

    fn selector(&mut self, name: &str) -> Result<Arc<dyn Selector>, NameError> {
        let mut m = Map::new();
        m.insert("ref".into(), Json::String(name.to_owned()));
        self.c
            .selector(&Json::Object(m), self.path)
            .map(|s| Arc::new(s) as Arc<dyn Selector>)
            .map_err(|e| {
                let msg = NameError(e.message.clone());
                self.failure.get_or_insert(e);
                msg
            })
    }
}
