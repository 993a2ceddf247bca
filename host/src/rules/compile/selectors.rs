//! Compiling selectors: sources (a kind, `from = [...]`, a ref), filters (`where`), the
//! order (`sort`) and the picker (`pick`), with errors at the offending key.

use serde_json::{Map, Value as Json};

use super::kinds::with;
use super::*;
use crate::id::{Id, Sym};
use crate::rules::expr::Expr;
use crate::rules::params::{check_schema, json_type, Params, PathSeg};
use crate::rules::registry::Selector;
use crate::rules::select::{Pick, Select, SelectMemo, SortBy};
use crate::rules::ContentError;

impl Compiler<'_> {
    /// Compiles a selector: a string (`"self"`), a table, or a list (union of sources).
    pub(crate) fn selector(&mut self, v: &Json, path: &[PathSeg]) -> Result<Select, ContentError> {
        self.nested(path, |c| c.selector_at(v, path))
    }

    fn selector_at(&mut self, v: &Json, path: &[PathSeg]) -> Result<Select, ContentError> {
        match v {
            Json::String(s) => {
                let mut m = Map::new();
                m.insert("type".into(), Json::String(s.clone()));
                self.selector_table(&m, path)
            }
            Json::Array(items) => {
                let mut sources: Vec<Box<dyn Selector>> = Vec::new();
                for (i, item) in items.iter().enumerate() {
                    let mut p = path.to_vec();
                    p.push(PathSeg::Index(i));
                    sources.push(Box::new(self.selector(item, &p)?));
                }
                Ok(Select {
                    sources,
                    filters: Vec::new(),
                    sort: None,
                    pick: Pick::All,
                })
            }
            Json::Object(m) => self.selector_table(m, path),
            other => Err(ContentError::new(
                "E-CONTENT-TYPE",
                path.to_vec(),
                format!("expected a selector, found {}", json_type(other)),
            )
            .help("write a selector as `{ type = \"core:selector/objects\", ... }` or `\"self\"`")),
        }
    }

    pub(crate) fn selector_table(
        &mut self,
        m: &Map<String, Json>,
        path: &[PathSeg],
    ) -> Result<Select, ContentError> {
        if let Some(r) = self.content_kind("selector", m) {
            return self.selector_table(&r, path);
        }
        if m.contains_key("ref") && ["where", "pick", "sort"].iter().any(|k| m.contains_key(*k)) {
            // `{ ref = "x", where = ... }` narrows the ref's selection: the same as
            // `{ from = [{ ref = "x" }], where = ... }`.
            let (narrow, inner): (Map<String, Json>, Map<String, Json>) = m
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .partition(|(k, _)| matches!(k.as_str(), "where" | "pick" | "sort"));
            let mut outer = narrow;
            outer.insert("from".into(), Json::Array(vec![Json::Object(inner)]));
            return self.selector_table(&outer, path);
        }
        if m.contains_key("ref") {
            let (id, body) = self.expand_ref(m, "selector", path)?;
            return self.with_ref(id, |c| c.selector(&body, path));
        }
        let sources = self.selector_sources(m, path)?;
        let filters = match m.get("where") {
            Some(w) => vec![self.condition(w, &with(path, "where"))?],
            None => Vec::new(),
        };
        let pick = match m.get("pick") {
            None => Pick::All,
            Some(p) => self.pick(p, &with(path, "pick"))?,
        };
        let sort = match m.get("sort") {
            None => None,
            Some(v) => Some(sort_by(v, path)?),
        };
        Ok(Select {
            sources,
            filters,
            sort,
            pick,
        })
    }

    /// What a selector table selects from: its `type` and its `from` list (a union).
    fn selector_sources(
        &mut self,
        m: &Map<String, Json>,
        path: &[PathSeg],
    ) -> Result<Vec<Box<dyn Selector>>, ContentError> {
        let mut sources: Vec<Box<dyn Selector>> = Vec::new();
        if let Some(t) = m.get("type") {
            let t = t.as_str().ok_or_else(|| {
                ContentError::new(
                    "E-CONTENT-TYPE",
                    with(path, "type"),
                    "`type` must be a selector id",
                )
            })?;
            let registry = self.registry;
            let (id, imp) = self.entry(&registry.selectors, t, m, path, SELECTOR_KEYS)?;
            let mut p = Params {
                map: m,
                path: path.to_vec(),
                compiler: self,
                entry: id,
            };
            sources.push(imp.prepare(&mut p)?);
        }
        if let Some(from) = m.get("from") {
            let items = from
                .as_array()
                .cloned()
                .unwrap_or_else(|| vec![from.clone()]);
            for (i, item) in items.iter().enumerate() {
                let mut p = with(path, "from");
                p.push(PathSeg::Index(i));
                sources.push(Box::new(self.selector(item, &p)?));
            }
        }
        if sources.is_empty() {
            return Err(ContentError::new(
                "E-CONTENT-MISSING-PARAM",
                path.to_vec(),
                "a selector needs a `type` (or `from = [...]`)",
            )
            .help("for example `{ type = \"core:selector/objects\", zone = \"board\" }`"));
        }
        if m.get("type").is_none() {
            if let Ok(union) = Id::parse("core:selector/union") {
                check_schema(union, &[], m, path, SELECTOR_KEYS)?;
            }
        }
        Ok(sources)
    }

    pub(crate) fn pick(&mut self, v: &Json, path: &[PathSeg]) -> Result<Pick, ContentError> {
        let bad = || {
            ContentError::new("E-CONTENT-PARAM", path.to_vec(), "unknown picker")
                .help("use `\"all\"`, `\"random\"`, `{ random = N }`, `{ first = N }`, `{ unique = \"key\" }`, `\"chosen\"` or `{ chosen = N, prompt = \"...\" }`")
        };
        match v {
            Json::String(s) => match s.as_str() {
                "all" => Ok(Pick::All),
                "random" => Ok(Pick::Random(Expr::lit(1.0))),
                "chosen" => Ok(Pick::Chosen {
                    count: Expr::lit(1.0),
                    prompt: "choose a target".into(),
                }),
                _ => Err(bad()),
            },
            Json::Object(m) => {
                if let Some(n) = m.get("random") {
                    return Ok(Pick::Random(self.expr(n, &with(path, "random"))?));
                }
                if let Some(k) = m.get("unique") {
                    let key = k
                        .as_str()
                        .filter(|k| crate::rules::expr::check_ident(k).is_ok());
                    return match key {
                        Some(k) => Ok(Pick::Unique(crate::id::Sym::new(k))),
                        None => Err(ContentError::new(
                            "E-CONTENT-PARAM",
                            with(path, "unique"),
                            "`unique` names the property whose values must differ",
                        )
                        .help("e.g. `pick = { unique = \"species\" }`")),
                    };
                }
                if let Some(n) = m.get("first") {
                    return Ok(Pick::First(self.expr(n, &with(path, "first"))?));
                }
                if let Some(n) = m.get("chosen") {
                    let prompt = m
                        .get("prompt")
                        .and_then(Json::as_str)
                        .unwrap_or("choose a target")
                        .to_owned();
                    return Ok(Pick::Chosen {
                        count: self.expr(n, &with(path, "chosen"))?,
                        prompt,
                    });
                }
                Err(bad())
            }
            _ => Err(bad()),
        }
    }
}

/// A selector's `sort`: a property name, `-` first for highest first.
fn sort_by(v: &Json, path: &[PathSeg]) -> Result<SortBy, ContentError> {
    let Json::String(s) = v else {
        return Err(ContentError::new(
            "E-CONTENT-TYPE",
            with(path, "sort"),
            format!("`sort` must be a property name, found {}", json_type(v)),
        ));
    };
    let (key, desc) = match s.strip_prefix('-') {
        Some(k) => (k, true),
        None => (s.as_str(), false),
    };
    if key.is_empty()
        || !key
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
    {
        return Err(ContentError::new(
            "E-CONTENT-PARAM",
            with(path, "sort"),
            format!("`{s}` is not a property to sort by"),
        )
        .help("write a property name, `-` first for highest first: `sort = \"slot\"`, `sort = \"-attack\"`"));
    }
    Ok(SortBy {
        key: Sym::new(key),
        descending: desc,
    })
}

/// How an evaluation round may gather `sel`'s sources once for every selection written
/// with the same sources (see [`SelectMemo`]): keyed by the namespace that resolved its
/// names and its text without `where`, `sort` and `pick` (the only keys that act after
/// the sources), when what the sources read of the scope is known.
pub(crate) fn sources_memo(ns: &str, text: &Json, sel: &Select) -> Option<SelectMemo> {
    let reads = sel.sources_scope_reads()?;
    let sources = match text {
        Json::Object(m) => Json::Object(
            m.iter()
                .filter(|(k, _)| !matches!(k.as_str(), "where" | "sort" | "pick"))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        ),
        other => other.clone(),
    };
    Some(SelectMemo::new(format!("{ns}\u{0}{sources}"), reads))
}
