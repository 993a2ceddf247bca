//! `core` conditions over the universe graph and over counts: `within_jumps`,
//! `within_distance` and `number`. Places, searches and positions come from
//! [`super::graph`]; this file owns how the conditions evaluate their `of` selection and
//! answer a batch of candidates with one search (see the module doc of `graph`).

use std::sync::Arc;

use super::graph::{self, Graph, Reach};
use crate::id::Sym;
use crate::rules::expr::Expr;
use crate::rules::registry::{
    builtin, Condition, ConditionKind, Deps, FnKind, ParamSpec, ParamType as T, Registry, Selector,
};
use crate::rules::select::Select;
use crate::rules::{ContentError, Cx, Params, RuleError};
use crate::state::ObjId;

/// The objects a condition measures from (`of`). When the selection reads nothing of the
/// scope (no `self`, `source`, `target`, owner relation or dice) it is the same for every
/// candidate, so a batch selects it once; otherwise it is selected for each candidate,
/// with the candidate as `target`, exactly as a lone test does.
#[derive(Debug)]
pub(super) struct Of {
    pub(super) select: Select,
    pub(super) scoped: bool,
}

impl Of {
    fn new(select: Select) -> Of {
        let mut d = Deps::default();
        select.deps(&mut d);
        Of {
            scoped: d.scoped || d.everything,
            select,
        }
    }

    pub(super) fn from_params(p: &mut Params<'_, '_>) -> Result<Of, ContentError> {
        let select = p.selector("of")?.ok_or_else(|| {
            p.error("of", "`of` is required").help(
                "give the objects to measure from, e.g. `of = { type = \"objects\", tag = \"palace\" }`",
            )
        })?;
        Ok(Of::new(select))
    }

    /// The places (under `place`) of the selected objects, sorted, without repeats.
    pub(super) fn places(
        &self,
        cx: &Cx<'_>,
        place: impl Fn(ObjId) -> Option<ObjId>,
    ) -> Result<Vec<ObjId>, RuleError> {
        let mut picked = Vec::new();
        self.select.select(cx, &mut picked)?;
        let mut places: Vec<ObjId> = picked.into_iter().filter_map(place).collect();
        places.sort_unstable();
        places.dedup();
        Ok(places)
    }
}

/// Evaluates `e` with `obj` as `target` (a literal needs no scope).
fn eval_for(e: &Expr, cx: &Cx<'_>, obj: ObjId) -> Result<f64, RuleError> {
    if let Expr::Num(n) = e {
        return Ok(*n);
    }
    let scope = cx.scope.with_target(obj);
    e.eval(&cx.with_scope(&scope))
}

/// A jump bound: whole jumps, rounded down; `None` when negative (nothing is within).
#[expect(
    clippy::neg_cmp_op_on_partial_ord,
    reason = "`!(j >= 0)` is meant: it refuses NaN too, where `j < 0` would not"
)]
fn bound(j: f64) -> Option<u32> {
    // `!(j >= 0)` also refuses NaN.
    if !(j >= 0.0) {
        return None;
    }
    Some(j.floor().min(f64::from(u32::MAX - 1)) as u32)
}

/// `within_jumps`: the object's place is at most `jumps` edges from the place of an
/// object `of` selects.
#[derive(Debug)]
struct WithinJumps {
    jumps: Expr,
    of: Of,
    edges: Sym,
}

impl Condition for WithinJumps {
    fn test(&self, cx: &Cx<'_>, obj: ObjId) -> Result<bool, RuleError> {
        let mut out = Vec::with_capacity(1);
        self.test_many(cx, &[obj], &mut out)?;
        Ok(out.first().copied().unwrap_or(false))
    }

    /// One bounded multi-source search for the whole batch (one per distinct `of`
    /// selection when it reads the scope), then a look-up per candidate.
    fn test_many(&self, cx: &Cx<'_>, objs: &[ObjId], out: &mut Vec<bool>) -> Result<(), RuleError> {
        let g = Graph::new(cx.world, self.edges);
        let mut wants = Vec::with_capacity(objs.len());
        let mut deepest = None;
        for &o in objs {
            let want = match g.place(o) {
                Some(p) => bound(eval_for(&self.jumps, cx, o)?).map(|j| (p, j)),
                None => None,
            };
            if let Some((_, j)) = want {
                deepest = deepest.max(Some(j));
            }
            wants.push(want);
        }
        let Some(deepest) = deepest else {
            out.extend(wants.iter().map(|_| false));
            return Ok(());
        };
        let within = |reach: &Reach, want: Option<(ObjId, u32)>| {
            want.is_some_and(|(p, j)| reach.distance(p).is_some_and(|d| d <= j))
        };
        let mut reach = Reach::default();
        if !self.of.scoped {
            g.search(&self.of.places(cx, |o| g.place(o))?, deepest, &mut reach);
            out.extend(wants.iter().map(|w| within(&reach, *w)));
            return Ok(());
        }
        let mut last: Option<Vec<ObjId>> = None;
        for (&o, want) in objs.iter().zip(&wants) {
            if want.is_none() {
                out.push(false);
                continue;
            }
            let scope = cx.scope.with_target(o);
            let sources = self.of.places(&cx.with_scope(&scope), |o| g.place(o))?;
            if last.as_ref() != Some(&sources) {
                g.search(&sources, deepest, &mut reach);
                last = Some(sources);
            }
            out.push(within(&reach, *want));
        }
        Ok(())
    }

    fn deps(&self, d: &mut Deps) {
        // Places are found through parents anywhere, and the graph spans every zone.
        d.structural_anywhere();
        d.key(self.edges);
        self.jumps.deps(d);
        self.of.select.deps(d);
    }
}

/// `within_distance`: the object's position is at most `distance` from the position of
/// an object `of` selects (Euclidean, on `x`/`y` of places).
#[derive(Debug)]
struct WithinDistance {
    distance: Expr,
    of: Of,
}

impl WithinDistance {
    /// The positions of the selected objects.
    fn sources(&self, cx: &Cx<'_>) -> Result<Vec<(f64, f64)>, RuleError> {
        let mut picked = Vec::new();
        self.of.select.select(cx, &mut picked)?;
        Ok(picked
            .into_iter()
            .filter_map(|o| graph::position(cx.world, o))
            .collect())
    }
}

/// Whether `at` is within `d` of one of `sources` (compared squared: no square root).
fn near(at: (f64, f64), d: f64, sources: &[(f64, f64)]) -> bool {
    let d2 = d * d;
    d >= 0.0
        && sources.iter().any(|&(x, y)| {
            let (dx, dy) = (at.0 - x, at.1 - y);
            dx * dx + dy * dy <= d2
        })
}

impl Condition for WithinDistance {
    fn test(&self, cx: &Cx<'_>, obj: ObjId) -> Result<bool, RuleError> {
        let Some(at) = graph::position(cx.world, obj) else {
            return Ok(false);
        };
        let d = self.distance.eval(cx)?;
        Ok(near(at, d, &self.sources(cx)?))
    }

    fn test_many(&self, cx: &Cx<'_>, objs: &[ObjId], out: &mut Vec<bool>) -> Result<(), RuleError> {
        let shared = if self.of.scoped {
            None
        } else {
            Some(self.sources(cx)?)
        };
        for &o in objs {
            let Some(at) = graph::position(cx.world, o) else {
                out.push(false);
                continue;
            };
            let d = eval_for(&self.distance, cx, o)?;
            let ok = match &shared {
                Some(s) => near(at, d, s),
                None => {
                    let scope = cx.scope.with_target(o);
                    near(at, d, &self.sources(&cx.with_scope(&scope))?)
                }
            };
            out.push(ok);
        }
        Ok(())
    }

    fn deps(&self, d: &mut Deps) {
        d.structural_anywhere();
        let (x, y) = graph::position_keys();
        d.key(x);
        d.key(y);
        self.distance.deps(d);
        self.of.select.deps(d);
    }
}

/// `number`: how many objects `of` selects is within `low..=high` (either bound may be
/// left out). The object under test plays no part unless the bounds or `of` read it.
#[derive(Debug)]
struct Number {
    low: Option<Expr>,
    high: Option<Expr>,
    of: Of,
}

impl Number {
    fn in_bounds(&self, cx: &Cx<'_>, obj: ObjId, n: usize) -> Result<bool, RuleError> {
        let n = n as f64;
        if let Some(low) = &self.low {
            if n < eval_for(low, cx, obj)? {
                return Ok(false);
            }
        }
        if let Some(high) = &self.high {
            if n > eval_for(high, cx, obj)? {
                return Ok(false);
            }
        }
        Ok(true)
    }
}

impl Condition for Number {
    fn test(&self, cx: &Cx<'_>, obj: ObjId) -> Result<bool, RuleError> {
        let n = self.of.select.count(cx)?;
        self.in_bounds(cx, obj, n)
    }

    fn test_many(&self, cx: &Cx<'_>, objs: &[ObjId], out: &mut Vec<bool>) -> Result<(), RuleError> {
        let shared = if self.of.scoped {
            None
        } else {
            Some(self.of.select.count(cx)?)
        };
        for &o in objs {
            let n = match shared {
                Some(n) => n,
                None => {
                    let scope = cx.scope.with_target(o);
                    self.of.select.count(&cx.with_scope(&scope))?
                }
            };
            out.push(self.in_bounds(cx, o, n)?);
        }
        Ok(())
    }

    fn deps(&self, d: &mut Deps) {
        for e in self.low.iter().chain(&self.high) {
            e.deps(d);
        }
        self.of.select.deps(d);
    }
}

/// A condition kind built from a closure over its parameters.
fn kind<F>(f: F) -> Arc<dyn ConditionKind>
where
    F: Fn(&mut Params<'_, '_>) -> Result<Box<dyn Condition>, ContentError> + Send + Sync + 'static,
{
    Arc::new(FnKind(f))
}

/// Registers one built-in kind (a duplicate is a bug in this file).
fn reg(r: &mut Registry, id: &str, doc: &str, params: Vec<ParamSpec>, imp: Arc<dyn ConditionKind>) {
    r.conditions
        .register(builtin(id, doc, params, imp))
        .unwrap_or_else(|e| panic!("{e}"));
}

/// The `of` parameter every condition here takes.
pub(super) const OF: ParamSpec = ParamSpec::required(
    "of",
    T::Selector,
    "the objects to measure from (a selector; in it `target` is the object under test)",
);

/// Registers `within_jumps`, `within_distance` and `number`.
pub(super) fn register(r: &mut Registry) {
    reg(
        r,
        "core:condition/within_jumps",
        "the object's place is at most `jumps` edges from the place of an object `of` selects; a place is the object, or its nearest ancestor through `parent`, carrying the edge property (default `lanes`: a list of objects)",
        vec![
            ParamSpec::required("jumps", T::Expr, "how many edges at most (rounded down; negative: never)"),
            OF,
            ParamSpec::optional("edges", T::Name, "the property listing each node's edges (default `lanes`)"),
        ],
        kind(|p| {
            let edges = p.opt_name("edges")?.unwrap_or_else(graph::lanes_key);
            Ok(Box::new(WithinJumps {
                jumps: p.expr("jumps")?,
                of: Of::from_params(p)?,
                edges,
            }))
        }),
    );
    reg(
        r,
        "core:condition/within_distance",
        "the object's position is at most `distance` (straight line) from the position of an object `of` selects; a position is the `x` and `y` of the object, or of its nearest ancestor through `parent` that has both",
        vec![ParamSpec::required("distance", T::Expr, "how far at most"), OF],
        kind(|p| {
            Ok(Box::new(WithinDistance {
                distance: p.expr("distance")?,
                of: Of::from_params(p)?,
            }))
        }),
    );
    reg(
        r,
        "core:condition/number",
        "the count of objects `of` selects is at least `low` and at most `high` (whatever the object under test; FOCS's `Number`)",
        vec![
            ParamSpec::optional("low", T::Expr, "the least count (default: no lower bound)"),
            ParamSpec::optional("high", T::Expr, "the greatest count (default: no upper bound)"),
            OF,
        ],
        kind(|p| {
            Ok(Box::new(Number {
                low: p.opt_expr("low")?,
                high: p.opt_expr("high")?,
                of: Of::from_params(p)?,
            }))
        }),
    );
}

#[cfg(test)]
mod tests;
