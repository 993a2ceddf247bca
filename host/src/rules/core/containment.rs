//! `core` conditions over the attachment hierarchy (`parent`: building → planet →
//! system): `contains` (a descendant satisfies a condition) and `contained_by` (an
//! ancestor does). Owns walking the hierarchy for them; the world keeps no index of
//! children, so `contains` finds descendants by one pass over the objects per batch of
//! candidates (a selection's filter), not one per candidate.

use std::sync::Arc;

use crate::rules::registry::{
    builtin, Condition, ConditionKind, Deps, FnKind, ParamSpec, ParamType as T, Registry,
};
use crate::rules::{ContentError, Cx, Params, RuleError};
use crate::state::{ObjId, World};

/// How many `parent` hops are followed (a cycle of parents ends there, not in a loop).
const MAX_DEPTH: usize = 64;

/// Calls `f` with each ancestor of `obj`, nearest first, each at most once.
fn each_ancestor(world: &World, obj: ObjId, mut f: impl FnMut(ObjId)) {
    let mut seen: smallvec::SmallVec<[ObjId; 8]> = smallvec::SmallVec::new();
    let mut cur = world.object(obj).ok().and_then(|o| o.parent);
    while let Some(a) = cur {
        if seen.len() >= MAX_DEPTH || seen.contains(&a) || a == obj {
            return;
        }
        seen.push(a);
        f(a);
        cur = world.object(a).ok().and_then(|o| o.parent);
    }
}

/// Tests `what` once on each distinct object of `pairs` (`(tested, answer for)`), then
/// sets `hit[answer for]` where it holds.
fn settle(
    what: &dyn Condition,
    cx: &Cx<'_>,
    pairs: &[(ObjId, usize)],
    hit: &mut [bool],
) -> Result<(), RuleError> {
    let mut tested: Vec<ObjId> = pairs.iter().map(|(o, _)| *o).collect();
    tested.sort_unstable();
    tested.dedup();
    let mut answers = Vec::with_capacity(tested.len());
    what.test_many(cx, &tested, &mut answers)?;
    for &(o, i) in pairs {
        let holds = tested
            .binary_search(&o)
            .ok()
            .and_then(|k| answers.get(k).copied())
            .unwrap_or(false);
        if holds {
            hit[i] = true;
        }
    }
    Ok(())
}

/// The condition `what` of `contains` / `contained_by`. A batch tests `what` once per
/// related object for every candidate; when `what` reads the scope (`root`, `source`, …)
/// and no outer condition fixed `root`, each candidate is tested alone instead, as its own
/// `root`.
#[derive(Debug)]
struct Nested {
    what: Box<dyn Condition>,
    scoped: bool,
}

impl Nested {
    fn new(what: Box<dyn Condition>) -> Nested {
        let mut d = Deps::default();
        what.deps(&mut d);
        Nested {
            scoped: d.scoped || d.everything,
            what,
        }
    }

    fn per_object(&self, cx: &Cx<'_>) -> bool {
        self.scoped && cx.scope.root.is_none()
    }
}

/// Tests each of `objs` alone, with it as `target` and `root`.
fn per_object(
    c: &dyn Condition,
    cx: &Cx<'_>,
    objs: &[ObjId],
    out: &mut Vec<bool>,
) -> Result<(), RuleError> {
    for &o in objs {
        let scope = cx.scope.with_target(o);
        c.test_many(&cx.with_scope(&scope), &[o], out)?;
    }
    Ok(())
}

/// `contains`: a descendant of the object (a child through `parent`, at any depth)
/// satisfies `what`.
#[derive(Debug)]
struct Contains(Nested);

impl Condition for Contains {
    fn test(&self, cx: &Cx<'_>, obj: ObjId) -> Result<bool, RuleError> {
        let mut out = Vec::with_capacity(1);
        self.test_many(cx, &[obj], &mut out)?;
        Ok(out.first().copied().unwrap_or(false))
    }

    fn test_many(&self, cx: &Cx<'_>, objs: &[ObjId], out: &mut Vec<bool>) -> Result<(), RuleError> {
        if self.0.per_object(cx) {
            return per_object(self, cx, objs, out);
        }
        let mut order: Vec<(ObjId, usize)> = objs.iter().copied().zip(0..).collect();
        order.sort_unstable();
        // (descendant, candidate) for every candidate above every object.
        let mut pairs = Vec::new();
        for (id, o) in cx.world.objects() {
            if o.parent.is_none() {
                continue;
            }
            each_ancestor(cx.world, id, |a| {
                let from = order.partition_point(|(c, _)| *c < a);
                for &(_, i) in order[from..].iter().take_while(|(c, _)| *c == a) {
                    pairs.push((id, i));
                }
            });
        }
        let mut hit = vec![false; objs.len()];
        settle(self.0.what.as_ref(), cx, &pairs, &mut hit)?;
        out.extend(hit);
        Ok(())
    }

    fn deps(&self, d: &mut Deps) {
        d.structural_anywhere();
        let mut inner = Deps::default();
        self.0.what.deps(&mut inner);
        d.nested(&inner);
    }
}

/// `contained_by`: an ancestor of the object (its parent, at any depth) satisfies `what`.
#[derive(Debug)]
struct ContainedBy(Nested);

impl Condition for ContainedBy {
    fn test(&self, cx: &Cx<'_>, obj: ObjId) -> Result<bool, RuleError> {
        let mut out = Vec::with_capacity(1);
        self.test_many(cx, &[obj], &mut out)?;
        Ok(out.first().copied().unwrap_or(false))
    }

    fn test_many(&self, cx: &Cx<'_>, objs: &[ObjId], out: &mut Vec<bool>) -> Result<(), RuleError> {
        if self.0.per_object(cx) {
            return per_object(self, cx, objs, out);
        }
        let mut pairs = Vec::new();
        for (i, &o) in objs.iter().enumerate() {
            each_ancestor(cx.world, o, |a| pairs.push((a, i)));
        }
        let mut hit = vec![false; objs.len()];
        settle(self.0.what.as_ref(), cx, &pairs, &mut hit)?;
        out.extend(hit);
        Ok(())
    }

    fn deps(&self, d: &mut Deps) {
        d.structural_anywhere();
        let mut inner = Deps::default();
        self.0.what.deps(&mut inner);
        d.nested(&inner);
    }
}

/// A condition kind built from a closure over its parameters.
fn kind<F>(f: F) -> Arc<dyn ConditionKind>
where
    F: Fn(&mut Params<'_, '_>) -> Result<Box<dyn Condition>, ContentError> + Send + Sync + 'static,
{
    Arc::new(FnKind(f))
}

/// The `what` parameter, required.
fn what(p: &mut Params<'_, '_>) -> Result<Box<dyn Condition>, ContentError> {
    p.condition("what")?.ok_or_else(|| {
        p.error("what", "`what` is required")
            .help("give a condition, e.g. `what = { type = \"of_class\", class = \"factory\" }`")
    })
}

/// Registers `contains` and `contained_by`.
pub(super) fn register(r: &mut Registry) {
    let what_param = |doc: &'static str| vec![ParamSpec::required("what", T::Condition, doc)];
    for (id, doc, param, imp) in [
        (
            "core:condition/contains",
            "a descendant of the object (a child through `parent`, at any depth) satisfies `what`",
            "the condition a descendant must satisfy (in it, `target` is the descendant)",
            kind(|p| Ok(Box::new(Contains(Nested::new(what(p)?))))),
        ),
        (
            "core:condition/contained_by",
            "an ancestor of the object (its `parent`, at any depth) satisfies `what`",
            "the condition an ancestor must satisfy (in it, `target` is the ancestor)",
            kind(|p| Ok(Box::new(ContainedBy(Nested::new(what(p)?))))),
        ),
    ] {
        r.conditions
            .register(builtin(id, doc, what_param(param), imp))
            .unwrap_or_else(|e| panic!("{e}"));
    }
}
