//! `core:action/connect_nearest`: joins each target to its nearest neighbours among a
//! selection (by the `x` and `y` of their places, as `graph` finds them; objects without
//! one are left out), both ways, in an object-list property (`edges`, default `lanes`) —
//! how a map is given its edges (a galaxy's starlanes, a board's paths) once its places
//! are laid out. Edges are written as `connect` writes them (`lanes::edit_edge`).

use std::sync::Arc;

use super::graph::position;
use super::lanes::edit_edge;
use crate::id::Sym;
use crate::rules::expr::Expr;
use crate::rules::registry::{
    builtin, Action, FnKind, ParamSpec, ParamType as T, Registry, Selector,
};
use crate::rules::select::Select;
use crate::rules::{ActCx, Params, RuleError};
use crate::state::ObjId;

/// Joins each target to its `count` nearest among `among`.
#[derive(Debug)]
struct ConnectNearest {
    key: Sym,
    among: Select,
    count: Expr,
}

impl Action for ConnectNearest {
    fn run(&self, ax: &mut ActCx<'_>, targets: &[ObjId]) -> Result<(), RuleError> {
        let mut among = Vec::new();
        self.among.select(&ax.cx(), &mut among)?;
        let k = usize::try_from(self.count.eval_int(&ax.cx())?.max(0)).unwrap_or(0);
        for &t in targets {
            let Some((x, y)) = position(ax.world, t) else {
                continue;
            };
            let mut near: Vec<(f64, ObjId)> = among
                .iter()
                .filter(|&&o| o != t)
                .filter_map(|&o| {
                    let (ox, oy) = position(ax.world, o)?;
                    Some(((ox - x).powi(2) + (oy - y).powi(2), o))
                })
                .collect();
            near.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            for &(_, o) in near.iter().take(k) {
                edit_edge(ax.world, self.key, t, o, true)?;
                edit_edge(ax.world, self.key, o, t, true)?;
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
