//! `core:action/move_towards` and `core:action/move_in_orbit`: move objects across the
//! plane (`x`, `y`) toward a point or an object, a bounded distance at a time (FOCS's
//! `MoveTowards`: fields drifting, fleets flying between systems), or along a circle around
//! one (FOCS's `MoveInOrbit`). Positions are those of [`super::graph::position`]: an
//! object's own `x`/`y`, else its nearest ancestor's.

use std::sync::Arc;

use super::graph::{self, position};
use crate::rules::expr::{finite, Expr};
use crate::rules::registry::{
    builtin, Action, FnKind, ParamSpec, ParamType as T, Registry, Selector,
};
use crate::rules::select::Select;
use crate::rules::{ActCx, ContentError, Params, RuleError};
use crate::state::{ObjId, Value};

/// `move_towards`: see the module doc.
#[derive(Debug)]
struct MoveTowards {
    speed: Expr,
    /// The object to move toward (its first object), or …
    of: Option<Select>,
    /// … the point.
    point: Option<(Expr, Expr)>,
}

/// Where a move goes: a position, and the object standing there when it goes to one.
type Goal = ((f64, f64), Option<ObjId>);

impl MoveTowards {
    /// Where to go, seen from `t`: the point, or the first selected object and its
    /// position. `None` when there is nothing to go to.
    fn goal(&self, ax: &ActCx<'_>, t: ObjId) -> Result<Option<Goal>, RuleError> {
        let scope = ax.scope.with_target(t);
        let cx = ax.cx();
        let cx = cx.with_scope(&scope);
        if let Some((x, y)) = &self.point {
            return Ok(Some((
                (finite(x.eval(&cx)?, x)?, finite(y.eval(&cx)?, y)?),
                None,
            )));
        }
        let mut found = Vec::new();
        if let Some(of) = &self.of {
            of.select(&cx, &mut found)?;
        }
        Ok(found
            .first()
            .and_then(|&o| position(ax.world, o).map(|p| (p, Some(o)))))
    }
}

impl Action for MoveTowards {
    fn run(&self, ax: &mut ActCx<'_>, targets: &[ObjId]) -> Result<(), RuleError> {
        let (xk, yk) = graph::position_keys();
        for &t in targets {
            let Some(((gx, gy), goal)) = self.goal(ax, t)? else {
                continue;
            };
            let Some((x, y)) = position(ax.world, t) else {
                continue;
            };
            let scope = ax.scope.with_target(t);
            let speed =
                finite(self.speed.eval(&ax.cx().with_scope(&scope))?, &self.speed)?.max(0.0);
            let d = (gx - x).hypot(gy - y);
            if d <= speed {
                // Arrived: at the object, it is attached there and stands where it does.
                if let Some(g) = goal.filter(|&g| g != t) {
                    ax.world.unset(t, xk)?;
                    ax.world.unset(t, yk)?;
                    ax.world.set_parent(t, Some(g))?;
                    continue;
                }
                ax.world.set(t, xk, Value::Float(gx))?;
                ax.world.set(t, yk, Value::Float(gy))?;
                continue;
            }
            // On the way: it stands on its own, no longer where its parent is.
            let f = speed / d;
            ax.world.set(t, xk, Value::Float(x + (gx - x) * f))?;
            ax.world.set(t, yk, Value::Float(y + (gy - y) * f))?;
            ax.world.set_parent(t, None)?;
        }
        Ok(())
    }
}

/// `move_in_orbit`: along the circle around a centre, an arc of `speed`.
#[derive(Debug)]
struct MoveInOrbit(MoveTowards);

impl Action for MoveInOrbit {
    fn run(&self, ax: &mut ActCx<'_>, targets: &[ObjId]) -> Result<(), RuleError> {
        let (xk, yk) = graph::position_keys();
        for &t in targets {
            let Some(((cx, cy), _)) = self.0.goal(ax, t)? else {
                continue;
            };
            let Some((x, y)) = position(ax.world, t) else {
                continue;
            };
            let scope = ax.scope.with_target(t);
            let speed = finite(
                self.0.speed.eval(&ax.cx().with_scope(&scope))?,
                &self.0.speed,
            )?;
            let r = (x - cx).hypot(y - cy);
            // At the centre (within 1) there is no circle to move along.
            if speed == 0.0 || r < 1.0 {
                continue;
            }
            let angle = (y - cy).atan2(x - cx) + speed / r;
            ax.world.set(t, xk, Value::Float(cx + r * angle.cos()))?;
            ax.world.set(t, yk, Value::Float(cy + r * angle.sin()))?;
            ax.world.set_parent(t, None)?;
        }
        Ok(())
    }
}

/// `move_towards`'s and `move_in_orbit`'s parameters.
fn prepare(p: &mut Params<'_, '_>) -> Result<MoveTowards, ContentError> {
    let of = p.selector("of")?;
    let point = match (p.opt_expr("x")?, p.opt_expr("y")?) {
        (Some(x), Some(y)) => Some((x, y)),
        (None, None) => None,
        _ => return Err(p.error("x", "give both `x` and `y`, or `of`")),
    };
    if of.is_some() == point.is_some() {
        return Err(p
            .error("of", "give either `of` or the point `x`, `y`")
            .help("e.g. `{ type = \"move_towards\", speed = 40, of = { type = \"object\", object = \"target.previous_system\" } }`"));
    }
    Ok(MoveTowards {
        speed: p.expr("speed")?,
        of,
        point,
    })
}

/// Registers `move_towards` and `move_in_orbit`.
pub(super) fn register(r: &mut Registry) {
    r.actions
        .register(builtin(
            "core:action/move_in_orbit",
            "moves each target along the circle around the point `x`, `y` (or the position of the first object `of` selects) through an arc of length `speed` (counter-clockwise; negative: clockwise), standing on its own; a target within 1 of the centre stays",
            vec![
                ParamSpec::required("speed", T::Expr, "the arc's length (the target is `target`)"),
                ParamSpec::optional("of", T::Selector, "the centre's object (its first object)"),
                ParamSpec::optional("x", T::Expr, "instead of `of`: the centre's x"),
                ParamSpec::optional("y", T::Expr, "instead of `of`: the centre's y"),
            ],
            Arc::new(FnKind(|p: &mut Params<'_, '_>| -> Result<Box<dyn Action>, ContentError> {
                Ok(Box::new(MoveInOrbit(prepare(p)?)))
            })),
        ))
        .unwrap_or_else(|e| panic!("{e}"));
    r.actions
        .register(builtin(
            "core:action/move_towards",
            "moves each target's position (`x`, `y`) at most `speed` toward the point `x`, `y` or the position of the first object `of` selects; on the way the target stands on its own (detached from its parent), and on reaching an object it is attached to it",
            vec![
                ParamSpec::required("speed", T::Expr, "how far at most (the target is `target`)"),
                ParamSpec::optional("of", T::Selector, "the object to move toward (its first object)"),
                ParamSpec::optional("x", T::Expr, "instead of `of`: the point's x"),
                ParamSpec::optional("y", T::Expr, "instead of `of`: the point's y"),
            ],
            Arc::new(FnKind(|p: &mut Params<'_, '_>| -> Result<Box<dyn Action>, ContentError> {
                Ok(Box::new(prepare(p)?))
            })),
        ))
        .unwrap_or_else(|e| panic!("{e}"));
}
