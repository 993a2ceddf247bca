//! `core:condition/connected`: whether an object's place is joined to the place of an
//! object `of` selects by a path of edges (`lanes`) whose places all pass a condition
//! (`through`): FOCS's `ResourceSupplyConnected`, where `through` says which systems an
//! empire's supply reaches. Places and edges are those of [`super::graph`].

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Arc;

use super::graph::{self, Graph};
use super::spatial::{Of, OF};
use crate::id::Sym;
use crate::rules::registry::{
    builtin, Condition, Deps, FnKind, ParamSpec, ParamType as T, Registry, Selector,
};
use crate::rules::{ContentError, Cx, Params, RuleError, Scope};
use crate::state::ObjId;

/// `connected`: see the module doc.
#[derive(Debug)]
struct Connected {
    of: Of,
    through: Option<Box<dyn Condition>>,
    edges: Sym,
}

impl Connected {
    /// Whether `through` holds at `place`, tested as its own outermost condition (`target`
    /// and `root` are the place), remembered in `known`.
    fn open(
        &self,
        cx: &Cx<'_>,
        place: ObjId,
        known: &mut HashMap<ObjId, bool>,
    ) -> Result<bool, RuleError> {
        let Some(c) = &self.through else {
            return Ok(true);
        };
        if let Some(&k) = known.get(&place) {
            return Ok(k);
        }
        let fresh = Scope {
            root: None,
            ..cx.scope.clone()
        }
        .with_target(place);
        let k = c.test(&cx.with_scope(&fresh), place)?;
        known.insert(place, k);
        Ok(k)
    }

    /// The places reachable from `sources` through open places (the sources included
    /// when they are open).
    fn reach(
        &self,
        cx: &Cx<'_>,
        g: &Graph<'_>,
        sources: &[ObjId],
        known: &mut HashMap<ObjId, bool>,
    ) -> Result<HashSet<ObjId>, RuleError> {
        let mut seen = HashSet::new();
        let mut queue = VecDeque::new();
        for &s in sources {
            if self.open(cx, s, known)? && seen.insert(s) {
                queue.push_back(s);
            }
        }
        while let Some(node) = queue.pop_front() {
            let mut next = Vec::new();
            g.each_neighbour(node, |n| next.push(n));
            for n in next {
                if !seen.contains(&n) && self.open(cx, n, known)? {
                    seen.insert(n);
                    queue.push_back(n);
                }
            }
        }
        Ok(seen)
    }
}

impl Condition for Connected {
    fn test(&self, cx: &Cx<'_>, obj: ObjId) -> Result<bool, RuleError> {
        let mut out = Vec::with_capacity(1);
        self.test_many(cx, &[obj], &mut out)?;
        Ok(out.first().copied().unwrap_or(false))
    }

    /// One search per distinct `of` selection (one for the batch when it reads nothing of
    /// the scope), each place's `through` tested once per batch.
    fn test_many(&self, cx: &Cx<'_>, objs: &[ObjId], out: &mut Vec<bool>) -> Result<(), RuleError> {
        let g = Graph::new(cx.world, self.edges);
        let mut known = HashMap::new();
        let mut last: Option<(Vec<ObjId>, HashSet<ObjId>)> = None;
        for &o in objs {
            let Some(place) = g.place(o) else {
                out.push(false);
                continue;
            };
            let scope = cx.scope.with_target(o);
            let ocx = cx.with_scope(&scope);
            let sources = if self.of.scoped || last.is_none() {
                self.of.places(&ocx, |x| g.place(x))?
            } else {
                last.as_ref().map(|(s, _)| s.clone()).unwrap_or_default()
            };
            if last.as_ref().is_none_or(|(s, _)| *s != sources) {
                let reached = self.reach(cx, &g, &sources, &mut known)?;
                last = Some((sources, reached));
            }
            out.push(last.as_ref().is_some_and(|(_, r)| r.contains(&place)));
        }
        Ok(())
    }

    fn deps(&self, d: &mut Deps) {
        // Places are found through parents anywhere, and the graph spans every zone.
        d.structural_anywhere();
        d.key(self.edges);
        self.of.select.deps(d);
        if let Some(c) = &self.through {
            let mut inner = Deps::default();
            c.deps(&mut inner);
            d.nested(&inner);
        }
    }
}

/// Registers `connected`.
pub(super) fn register(r: &mut Registry) {
    r.conditions
        .register(builtin(
            "core:condition/connected",
            "the object's place is joined to the place of an object `of` selects by edges (default `lanes`) through places that all satisfy `through` (both ends included; default: any place); FOCS's `ResourceSupplyConnected`",
            vec![
                OF,
                ParamSpec::optional("through", T::Condition, "the places a path may use, each tested as its own outermost condition (`target` and `root` are the place)"),
                ParamSpec::optional("edges", T::Name, "the property listing each node's edges (default `lanes`)"),
            ],
            Arc::new(FnKind(|p: &mut Params<'_, '_>| -> Result<Box<dyn Condition>, ContentError> {
                let edges = p.opt_name("edges")?.unwrap_or_else(graph::lanes_key);
                Ok(Box::new(Connected {
                    of: Of::from_params(p)?,
                    through: p.condition("through")?,
                    edges,
                }))
            })),
        ))
        .unwrap_or_else(|e| panic!("{e}"));
}
