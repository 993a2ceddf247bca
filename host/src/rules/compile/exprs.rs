//! Expressions written as tables: statistics over a selection (`{ count = … }`,
//! `{ sum = …, key = … }`, `{ max = … }`, `{ min = … }`, `{ mean = … }`,
//! `{ exists = … }`), conditionals (`{ if = …, then = …, else = … }`) and expression
//! text with local names (`{ expr = "value + 0.5 * pop", let = { pop = … } }`), so a
//! selection or a condition can sit inside arithmetic.

use std::sync::Arc;

use serde_json::{Map, Value as Json};

use super::kinds::with;
use super::Compiler;
use crate::id::Sym;
use crate::rules::expr::{Expr, Stat};
use crate::rules::{ContentError, PathSeg};

/// What a table expression may be, for the error that names none of them.
const FORMS: &str = "an expression table is `{ count = <selector> }`, `{ sum = <selector>, key = \"k\" }` (also `max`, `min`, `mean`), `{ exists = <selector> }`, `{ if = <condition>, then = <expr>, else = <expr> }` or `{ expr = \"text\", let = { name = <expr> } }`";

impl Compiler<'_> {
    /// Compiles an expression table (see the module doc).
    pub(crate) fn expr_table(
        &mut self,
        m: &Map<String, Json>,
        path: &[PathSeg],
    ) -> Result<Expr, ContentError> {
        let only = |keys: &[&str]| m.keys().all(|k| keys.contains(&k.as_str()));
        if m.contains_key("count") && only(&["count"]) {
            let sel = self.selector(&m["count"], &with(path, "count"))?;
            return Ok(Expr::Count(Arc::new(sel)));
        }
        if m.contains_key("exists") && only(&["exists"]) {
            let sel = self.selector(&m["exists"], &with(path, "exists"))?;
            return Ok(Expr::Stat(Stat::Exists, Arc::new(sel), None));
        }
        for (name, stat) in [
            ("sum", None),
            ("max", Some(Stat::Max)),
            ("min", Some(Stat::Min)),
            ("mean", Some(Stat::Mean)),
        ] {
            if m.contains_key(name) && only(&[name, "key"]) {
                return self.statistic(m, name, stat, path);
            }
        }
        if m.contains_key("if") && only(&["if", "then", "else"]) {
            let cond = self.condition(&m["if"], &with(path, "if"))?;
            let then = self.table_part(m, "then", path)?;
            let other = match m.get("else") {
                Some(v) => self.expr(v, &with(path, "else"))?,
                None => Expr::lit(0.0),
            };
            return Ok(Expr::If(Arc::from(cond), Box::new(then), Box::new(other)));
        }
        if m.contains_key("expr") && only(&["expr", "let"]) {
            return self.expr_with_locals(m, path);
        }
        Err(ContentError::new(
            "E-CONTENT-EXPR",
            path.to_vec(),
            format!(
                "an expression table with keys {:?} is not one the engine knows",
                m.keys().collect::<Vec<_>>()
            ),
        )
        .help(FORMS))
    }

    /// `{ sum|max|min|mean = <selector>, key = "k" }`.
    fn statistic(
        &mut self,
        m: &Map<String, Json>,
        name: &str,
        stat: Option<Stat>,
        path: &[PathSeg],
    ) -> Result<Expr, ContentError> {
        let sel = Arc::new(self.selector(&m[name], &with(path, name))?);
        let key = m.get("key").and_then(Json::as_str).ok_or_else(|| {
            ContentError::new(
                "E-CONTENT-MISSING",
                with(path, "key"),
                format!("`{name}` needs the property to read in `key`"),
            )
            .help(format!(
                "e.g. `{{ {name} = {{ type = \"objects\" }}, key = \"population\" }}`"
            ))
        })?;
        let key = Sym::new(key);
        Ok(match stat {
            None => Expr::Sum(sel, key),
            Some(s) => Expr::Stat(s, sel, Some(key)),
        })
    }

    /// A required sub-expression of a table.
    fn table_part(
        &mut self,
        m: &Map<String, Json>,
        key: &str,
        path: &[PathSeg],
    ) -> Result<Expr, ContentError> {
        match m.get(key) {
            Some(v) => self.expr(v, &with(path, key)),
            None => Err(ContentError::new(
                "E-CONTENT-MISSING",
                with(path, key),
                format!("missing `{key}`"),
            )
            .help(FORMS)),
        }
    }

    /// `{ expr = "text", let = { name = <expr>, … } }`: the names are visible in the text
    /// (and in later names of the same `let`).
    fn expr_with_locals(
        &mut self,
        m: &Map<String, Json>,
        path: &[PathSeg],
    ) -> Result<Expr, ContentError> {
        let depth = self.locals.len();
        let result = (|| {
            if let Some(lets) = m.get("let") {
                let Json::Object(lets) = lets else {
                    return Err(ContentError::new("E-CONTENT-TYPE", with(path, "let"), "`let` must be a table of names")
                        .help("e.g. `let = { pop = { sum = { type = \"objects\" }, key = \"population\" } }`"));
                };
                for (name, v) in lets {
                    let e = self.expr(v, &with(&with(path, "let"), name))?;
                    self.locals.push((name.clone(), e));
                }
            }
            let text = m.get("expr").filter(|v| v.is_string()).ok_or_else(|| {
                ContentError::new(
                    "E-CONTENT-TYPE",
                    with(path, "expr"),
                    "`expr` must be expression text",
                )
            })?;
            self.expr(text, &with(path, "expr"))
        })();
        self.locals.truncate(depth);
        result
    }
}
