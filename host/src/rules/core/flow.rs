//! `core` actions that route rather than change state themselves: `if` (a branch per
//! target) and `emit` (raising events, now, later, or several times). An event emitted
//! now is first offered to replacement effects (`rules::replace`), like `damage`,
//! `destroy` and `move`: content events ("put N counters") can be changed or prevented.

use crate::bus::Event;
use crate::id::{Id, Sym};
use crate::rules::expr::{Expr, ObjRef};
use crate::rules::registry::Action;
use crate::rules::{ActCx, RuleError};
use crate::state::{ObjId, Value};

use super::actions::owner_of;

/// `if`: for each target, runs `then` when the condition holds for it (tested as
/// `target`), else `else`; each branch acts on that one target.
#[derive(Debug)]
pub(super) struct If {
    pub(super) condition: Box<dyn crate::rules::registry::Condition>,
    pub(super) then: Vec<Box<dyn Action>>,
    pub(super) otherwise: Vec<Box<dyn Action>>,
}
impl Action for If {
    fn run(&self, ax: &mut ActCx<'_>, targets: &[ObjId]) -> Result<(), RuleError> {
        // Without targets the condition is tested on the holder (world-level checks such
        // as `count(...)` comparisons still work).
        let holder = ax.scope.this;
        let each = if targets.is_empty() {
            holder.as_slice()
        } else {
            targets
        };
        for &t in each {
            let holds = {
                let scope = ax.scope.with_target(t);
                self.condition.test(&ax.cx().with_scope(&scope), t)?
            };
            let branch = if holds { &self.then } else { &self.otherwise };
            let saved = ax.scope.target;
            ax.scope.target = Some(t);
            for a in branch {
                a.run(ax, &[t])?;
            }
            ax.scope.target = saved;
        }
        Ok(())
    }
}

#[derive(Debug)]
pub(super) struct Emit {
    pub(super) event: Id,
    pub(super) source: Option<ObjRef>,
    pub(super) amount: Expr,
    pub(super) delay: Option<Expr>,
    pub(super) count: Option<Expr>,
    pub(super) fields: Vec<(Sym, Value)>,
}
impl Action for Emit {
    fn run(&self, ax: &mut ActCx<'_>, targets: &[ObjId]) -> Result<(), RuleError> {
        if targets.is_empty() {
            return self.emit_for(ax, None);
        }
        for &t in targets {
            self.emit_for(ax, Some(t))?;
        }
        Ok(())
    }
}

impl Emit {
    /// Raises (or schedules) the event for one target (`None`: the action had none).
    fn emit_for(&self, ax: &mut ActCx<'_>, t: Option<ObjId>) -> Result<(), RuleError> {
        let scope = match t {
            Some(t) => ax.scope.with_target(t),
            None => ax.scope.clone(),
        };
        let cx = ax.cx();
        let cx = cx.with_scope(&scope);
        let mut e = Event::new(self.event);
        e.source = match &self.source {
            Some(r) => Some(r.resolve(&cx)?),
            None => ax.scope.this,
        };
        e.target = t;
        e.player = t.and_then(|t| owner_of(ax, t)).or(ax.scope.player);
        e.amount = self.amount.eval_int(&cx)?;
        e.extra = self.fields.clone();
        let delay = match &self.delay {
            Some(d) => Some(d.eval_int(&cx)?),
            None => None,
        };
        let times = match &self.count {
            Some(c) => c.eval_int(&cx)?.clamp(0, 1000),
            None => 1,
        };
        if times == 0 {
            return Ok(());
        }
        // Copies for all but the last time; the last takes the event itself.
        for _ in 1..times {
            deliver(ax, delay, e.clone())?;
        }
        deliver(ax, delay, e)
    }
}

/// Raises an event now (offered to replacement effects first), or schedules it `delay`
/// ticks ahead when that is positive.
fn deliver(ax: &mut ActCx<'_>, delay: Option<i64>, e: Event) -> Result<(), RuleError> {
    match delay {
        Some(d) if d > 0 => ax.world.schedule(u64::try_from(d).unwrap_or(0), e),
        _ => {
            if let Some(e) = would_happen(ax, e)? {
                ax.raise(e);
            }
        }
    }
    Ok(())
}

/// Offers an event about to be raised now to the replacement effects that listen to it:
/// the event as they leave it, or `None` when one prevents it. (A delayed event is
/// offered nothing: what it would replace is not decided until it happens.)
pub(super) fn would_happen(ax: &mut ActCx<'_>, e: Event) -> Result<Option<Event>, RuleError> {
    if !crate::rules::replace::any(ax.gen, e.id) {
        return Ok(Some(e));
    }
    let mut p = crate::rules::replace::Proposed::new(e, None);
    crate::rules::replace::offer(ax, &mut p)?;
    Ok((!p.cancelled).then_some(p.event))
}
