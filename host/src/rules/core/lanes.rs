//! `core` actions that draw the universe graph: `connect` and `disconnect` add or remove
//! edges (object ids in a list property, default `lanes`; see [`super::graph`]). Owns
//! editing those lists; every write goes through the command's transaction.

use std::sync::Arc;

use super::graph;
use crate::id::Sym;
use crate::rules::registry::{
    builtin, Action, FnKind, ParamSpec, ParamType as T, Registry, Selector,
};
use crate::rules::select::Select;
use crate::rules::{ActCx, ContentError, Params, RuleError};
use crate::state::{ObjId, Value, World};

/// Adds (or removes) edges between each target and every object `with` selects, or,
/// without `with`, between each target and the next.
#[derive(Debug)]
struct Connect {
    with: Option<Select>,
    edges: Sym,
    both_ways: bool,
    add: bool,
}

impl Connect {
    /// Adds or removes the edge `from -> to` in `from`'s list.
    fn edit(&self, world: &mut World, from: ObjId, to: ObjId) -> Result<(), RuleError> {
        edit_edge(world, self.edges, from, to, self.add)
    }
}

/// Adds (`add`) or removes the edge `from -> to` in `from`'s list property `edges`; an
/// edge already as asked is left alone (no write). A property that is not a list is an
/// error.
pub(super) fn edit_edge(
    world: &mut World,
    edges: Sym,
    from: ObjId,
    to: ObjId,
    add: bool,
) -> Result<(), RuleError> {
    let mut list: Vec<Value> = match world.base(from, edges) {
        None => Vec::new(),
        Some(Value::List(items)) => items.to_vec(),
        Some(other) => {
            return Err(RuleError::Failed(format!(
                "property `{}` of object {from} is {}, not a list of objects; edges are kept as a list (`{} = []`)",
                edges,
                other.type_name(),
                edges
            )))
        }
    };
    let present = list.iter().any(|v| v.as_obj() == Some(to));
    match (add, present) {
        (true, false) => list.push(Value::Obj(to)),
        (false, true) => list.retain(|v| v.as_obj() != Some(to)),
        // Already as asked: the list is left alone (no write, no change recorded).
        _ => return Ok(()),
    }
    world.set(from, edges, Value::List(list.into()))?;
    Ok(())
}

impl Action for Connect {
    fn run(&self, ax: &mut ActCx<'_>, targets: &[ObjId]) -> Result<(), RuleError> {
        let mut pairs = Vec::new();
        match &self.with {
            Some(with) => {
                let mut others = Vec::new();
                with.select(&ax.cx(), &mut others)?;
                for &t in targets {
                    pairs.extend(others.iter().map(|&o| (t, o)));
                }
            }
            None => pairs.extend(targets.windows(2).map(|w| (w[0], w[1]))),
        }
        for (a, b) in pairs {
            if a == b {
                continue;
            }
            // Both ends must exist: a stale id in an edge list would be skipped, but
            // writing one is a mistake worth reporting.
            ax.world.object(b)?;
            self.edit(ax.world, a, b)?;
            if self.both_ways {
                self.edit(ax.world, b, a)?;
            }
        }
        Ok(())
    }
}

fn prepare(p: &mut Params<'_, '_>, add: bool) -> Result<Box<dyn Action>, ContentError> {
    Ok(Box::new(Connect {
        with: p.selector("with")?,
        edges: p.opt_name("edges")?.unwrap_or_else(graph::lanes_key),
        both_ways: p.bool_or("both_ways", true)?,
        add,
    }))
}

/// The parameters both actions take.
fn params() -> Vec<ParamSpec> {
    vec![
        ParamSpec::optional(
            "with",
            T::Selector,
            "the other ends: every object it selects, for each target (default: each target with the next target, a path)",
        ),
        ParamSpec::optional(
            "edges",
            T::Name,
            "the property listing each node's edges (default `lanes`)",
        ),
        ParamSpec::optional(
            "both_ways",
            T::Bool,
            "edit both ends' lists (default `true`: two-way lanes); `false` edits only the target's",
        ),
    ]
}

/// Registers `connect` and `disconnect`.
pub(super) fn register(r: &mut Registry) {
    r.actions
        .register(builtin(
            "core:action/connect",
            "adds edges (object ids in the list property `edges`, default `lanes`) between each target and every object `with` selects, or each target and the next; a repeated edge is not added twice, an object is never connected to itself",
            params(),
            Arc::new(FnKind(|p: &mut Params<'_, '_>| prepare(p, true))),
        ))
        .unwrap_or_else(|e| panic!("{e}"));
    r.actions
        .register(builtin(
            "core:action/disconnect",
            "removes the edges `connect` would add (between each target and every object `with` selects, or each target and the next)",
            params(),
            Arc::new(FnKind(|p: &mut Params<'_, '_>| prepare(p, false))),
        ))
        .unwrap_or_else(|e| panic!("{e}"));
}
