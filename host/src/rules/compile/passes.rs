//! Compiling effect passes (`[pass.NAME]`) and a class's effects groups
//! (`[[class.NAME.effects]]`) into `rules::pass`'s definitions.

use std::sync::Arc;

use super::kinds::with;
use super::Compiler;
use crate::id::{Id, Sym};
use crate::rules::content::{EffectsGroupSpec, PassSpec};
use crate::rules::expr::{Flat, ObjRef};
use crate::rules::pass::{EffectsGroupDef, PassClamp, PassDef};
use crate::rules::select::Select;
use crate::rules::select::SelectMemo;
use crate::rules::{ContentError, PathSeg};
use crate::state::Deps;

impl Compiler<'_> {
    /// `[pass.NAME]`.
    pub(crate) fn pass_def(
        &mut self,
        name: &str,
        spec: &PassSpec,
    ) -> Result<PassDef, ContentError> {
        let path = vec![PathSeg::Key("pass".into()), PathSeg::Key(name.to_owned())];
        let id = Id::from_parts(self.namespace(), "pass", name)
            .map_err(|e| ContentError::new("E-CONTENT-ID", path.clone(), e.to_string()))?;
        let mut reset = Vec::new();
        for (key, v) in &spec.reset {
            let p = with(&with(&path, "reset"), key);
            let n = v.as_f64().ok_or_else(|| {
                ContentError::new(
                    "E-CONTENT-TYPE",
                    p.clone(),
                    format!("the reset value of `{key}` must be a number"),
                )
                .help("write e.g. `reset = { max_troops = 0 }`")
            })?;
            reset.push((Sym::new(key), n));
        }
        let mut clamps = Vec::new();
        for (n, c) in spec.clamp.iter().enumerate() {
            let mut p = with(&path, "clamp");
            p.push(PathSeg::Index(n));
            if c.min.is_none() && c.max.is_none() {
                return Err(ContentError::new(
                    "E-CONTENT-MISSING",
                    p,
                    "a clamp needs `min`, `max` or both",
                )
                .help("e.g. `{ key = \"troops\", min = 0, max = \"target.max_troops\" }`"));
            }
            clamps.push(PassClamp {
                key: Sym::new(&c.key),
                min: c
                    .min
                    .as_ref()
                    .map(|m| self.expr(m, &with(&p, "min")))
                    .transpose()?,
                max: c
                    .max
                    .as_ref()
                    .map(|m| self.expr(m, &with(&p, "max")))
                    .transpose()?,
            });
        }
        let clamps_local = clamps.iter().all(|c| {
            [&c.min, &c.max]
                .into_iter()
                .flatten()
                .all(crate::rules::pass::reads_only_target)
        });
        Ok(PassDef {
            id,
            reset,
            clamps,
            clamps_local,
            accounting: spec.accounting.unwrap_or(true),
            origin: self.origin(&path, format!("pass `{id}`")),
        })
    }

    /// A class's effects groups.
    pub(crate) fn effects_groups(
        &mut self,
        class: Id,
        specs: &[EffectsGroupSpec],
        path: &[PathSeg],
    ) -> Result<Vec<Arc<EffectsGroupDef>>, ContentError> {
        let mut out = Vec::with_capacity(specs.len());
        for (n, spec) in specs.iter().enumerate() {
            let mut p = with(path, "effects");
            p.push(PathSeg::Index(n));
            out.push(Arc::new(self.effects_group(class, n, spec, &p)?));
        }
        Ok(out)
    }

    fn effects_group(
        &mut self,
        class: Id,
        n: usize,
        spec: &EffectsGroupSpec,
        p: &[PathSeg],
    ) -> Result<EffectsGroupDef, ContentError> {
        let pass = self.reference(
            spec.pass.as_deref().unwrap_or("effects"),
            "pass",
            &with(p, "pass"),
        )?;
        let source = match &spec.source {
            Some(s) => Some(ObjRef::parse(s).map_err(|e| {
                ContentError::new("E-CONTENT-EXPR", with(p, "source"), e.to_string())
                    .help("write an object reference such as `self`, `self.owner` or `self.parent.parent`")
            })?),
            None => None,
        };
        let scope = spec
            .scope
            .as_ref()
            .map(|s| self.selector(s, &with(p, "scope")))
            .transpose()?;
        let (scope_memo, sources_memo) = match (&spec.scope, &scope) {
            (Some(text), Some(sel)) => (
                scope_memo(self.namespace(), text, sel),
                super::selectors::sources_memo(self.namespace(), text, sel),
            ),
            _ => (None, None),
        };
        let activation = spec
            .activation
            .as_ref()
            .map(|c| self.condition(c, &with(p, "activation")))
            .transpose()?;
        let mut effects = Vec::with_capacity(spec.effects.len());
        for (i, e) in spec.effects.iter().enumerate() {
            let mut ep = with(p, "effects");
            ep.push(PathSeg::Index(i));
            effects.push((Sym::new(&e.key), self.expr(&e.value, &with(&ep, "value"))?));
        }
        let actions = match &spec.actions {
            Some(a) => self.actions(a, &with(p, "do"))?,
            None => Vec::new(),
        };
        if effects.is_empty() && actions.is_empty() {
            return Err(ContentError::new(
                "E-CONTENT-MISSING",
                p.to_vec(),
                "an effects group needs `effects` or `do`",
            )
            .help("e.g. `effects = [{ key = \"industry\", value = \"value + 1\" }]`"));
        }
        let label = spec.label.clone().unwrap_or_else(|| class.to_string());
        Ok(EffectsGroupDef {
            pass,
            source,
            scope,
            scope_memo,
            sources_memo,
            activation,
            zones: spec
                .zones
                .as_ref()
                .map(|z| z.iter().map(|z| Sym::new(z)).collect()),
            stacking: spec.stacking.as_deref().map(Sym::new),
            priority: spec.priority,
            label: Sym::new(&label),
            flat: effects.iter().map(|(_, e)| Flat::compile(e)).collect(),
            effects,
            actions,
            origin: self.origin(p, format!("class `{class}` effects[{n}]")),
        })
    }
}

/// How a pass may reuse `sel`'s selection (see [`SelectMemo`]): keyed by the namespace
/// that resolved its names and its table as written, when what it reads of the scope is
/// known.
fn scope_memo(ns: &str, text: &serde_json::Value, sel: &Select) -> Option<SelectMemo> {
    let mut d = Deps::default();
    sel.deps_of_targets(&mut d);
    let reads = d.known_scope_reads()?;
    Some(SelectMemo::new(format!("{ns}\u{0}{text}"), reads))
}
