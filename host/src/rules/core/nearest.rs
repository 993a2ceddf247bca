//! `core:action/connect_nearest`: joins each target to its nearest neighbours among a
//! selection (by `x` and `y`), both ways, in an object-list property (`edges`, default
//! `lanes`) —
//! how a map is given its edges (a galaxy's starlanes, a board's paths) once its places
//! are laid out.

use std::sync::Arc;

use crate::id::Sym;
use crate::rules::expr::Expr;
use crate::rules::registry::{
    builtin, Action, FnKind, ParamSpec, ParamType as T, Registry, Selector,
};
use crate::rules::select::Select;
use crate::rules::{ActCx, Params, RuleError};
use crate::state::{ObjId, Value, World};

/// Joins each target to its `count` nearest among `among`.
#[derive(Debug)]
struct ConnectNearest {
    key: Sym,
    among: Select,
    count: Expr,
}

fn position(w: &World, o: ObjId) -> (f64, f64) {
    let read = |k: &str| w.get_number(o, Sym::new(k)).unwrap_or(0.0);
    (read("x"), read("y"))
}

/// The objects in `o`'s list property `key`.
fn edges(w: &World, o: ObjId, key: Sym) -> Vec<ObjId> {
    match w.base(o, key) {
        Some(Value::List(items)) => items.iter().filter_map(Value::as_obj).collect(),
        _ => Vec::new(),
    }
}

/// Adds `b` to `a`'s list (once).
fn join(w: &mut World, a: ObjId, b: ObjId, key: Sym) -> Result<(), RuleError> {
    let mut list = edges(w, a, key);
    if !list.contains(&b) {
        list.push(b);
        let values: Vec<Value> = list.into_iter().map(Value::Obj).collect();
        w.set(a, key, Value::List(values.into()))?;
    }
    Ok(())
}

impl Action for ConnectNearest {
    fn run(&self, ax: &mut ActCx<'_>, targets: &[ObjId]) -> Result<(), RuleError> {
        let mut among = Vec::new();
        self.among.select(&ax.cx(), &mut among)?;
        let k = usize::try_from(self.count.eval_int(&ax.cx())?.max(0)).unwrap_or(0);
        for &t in targets {
            let (x, y) = position(ax.world, t);
            let mut near: Vec<(f64, ObjId)> = among
                .iter()
                .filter(|&&o| o != t)
                .map(|&o| {
                    let (ox, oy) = position(ax.world, o);
                    ((ox - x).powi(2) + (oy - y).powi(2), o)
                })
                .collect();
            near.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            for &(_, o) in near.iter().take(k) {
                join(ax.world, t, o, self.key)?;
                join(ax.world, o, t, self.key)?;
            }
        }
        Ok(())
    }
}

/// Registers `connect_nearest`.
pub(super) fn register(r: &mut Registry) {
    let kind = FnKind(|p: &mut Params<'_, '_>| {
        let among = p.selector("among")?.ok_or_else(|| {
            p.error(
                "among",
                "`connect_nearest` needs `among`, the places to join",
            )
        })?;
        Ok(Box::new(ConnectNearest {
            key: p.opt_name("edges")?.unwrap_or_else(|| Sym::new("lanes")),
            among,
            count: p.expr_or("count", 2.0)?,
        }) as Box<dyn Action>)
    });
    r.actions
        .register(builtin(
            "core:action/connect_nearest",
            "joins each target to its `count` nearest objects of `among` (by `x`, `y`), both ways, in an object-list property",
            vec![
                ParamSpec::required("among", T::Selector, "the places to join to"),
                ParamSpec::optional("count", T::Expr, "how many nearest (default 2)"),
                ParamSpec::optional("edges", T::Name, "the property listing each object's edges (default `lanes`)"),
            ],
            Arc::new(kind),
        ))
        .unwrap_or_else(|e| panic!("{e}"));
}
