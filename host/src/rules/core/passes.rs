//! `core:action/run_pass`: runs an effect pass (`rules::pass`) once — a turn's effects
//! application — and `core:action/advance_tick`: advances the scheduler a tick (a turn
//! counted in ticks). Both act on the whole world; the action's targets are not used.

use std::sync::Arc;

use crate::id::Id;
use crate::rules::registry::{builtin, Action, FnKind, ParamSpec, ParamType as T, Registry};
use crate::rules::{ActCx, RuleError};
use crate::state::ObjId;

/// Runs one pass.
#[derive(Debug)]
struct RunPass {
    pass: Id,
}

impl Action for RunPass {
    fn run(&self, ax: &mut ActCx<'_>, _targets: &[ObjId]) -> Result<(), RuleError> {
        let def = ax.gen.passes.get(&self.pass).cloned().ok_or_else(|| {
            RuleError::Internal(format!(
                "pass `{}` was checked at load but is not compiled",
                self.pass
            ))
        })?;
        let report = crate::rules::pass::run(ax, &def)?;
        tracing::debug!(pass = %self.pass, groups = report.groups, applied = report.applied, stacked = report.stacked, "effect pass");
        Ok(())
    }
}

/// Advances the scheduler one tick.
#[derive(Debug)]
struct AdvanceTick;

impl Action for AdvanceTick {
    fn run(&self, ax: &mut ActCx<'_>, _targets: &[ObjId]) -> Result<(), RuleError> {
        crate::rules::advance_tick(ax)
    }
}

/// Registers `core:action/run_pass` and `core:action/advance_tick`.
pub(super) fn register(r: &mut Registry) {
    r.actions
        .register(builtin(
            "core:action/advance_tick",
            "advances the scheduler one tick (`core:event/tick`, then the delayed events due): a turn-based game that counts its turns in ticks (`tick` in expressions) runs it once a turn",
            Vec::new(),
            Arc::new(FnKind(|_: &mut crate::rules::Params<'_, '_>| Ok(Box::new(AdvanceTick) as Box<dyn Action>))),
        ))
        .unwrap_or_else(|e| panic!("{e}"));
    let kind = FnKind(|p: &mut crate::rules::Params<'_, '_>| {
        let name = p.name("pass")?;
        let path = p.path_of("pass");
        let pass = p.compiler.reference(name.as_str(), "pass", &path)?;
        Ok(Box::new(RunPass { pass }) as Box<dyn Action>)
    });
    r.actions
        .register(builtin(
            "core:action/run_pass",
            "runs an effect pass (`[pass.NAME]`) once: every effects group of the pass matched, the pass's resets, the groups in priority order, its clamps",
            vec![ParamSpec::required("pass", T::Name, "the pass (`effects`, or `mod:pass/effects`)")],
            Arc::new(kind),
        ))
        .unwrap_or_else(|e| panic!("{e}"));
}
