//! Choices that are not objects: `core:action/choose_number` (X: a number in a range,
//! kept in a property) and `core:action/choose_mode` (choose one — or N — of labelled
//! action lists, each offered only while its optional `if` holds on the holder). The
//! acting player's controller answers, as for a `chosen` pick; a scenario scripts the
//! answer with the label as written (`answers = [["3"]]`).

use std::sync::Arc;

use crate::controller::Choice;
use crate::id::Sym;
use crate::rules::expr::Expr;
use crate::rules::registry::{builtin, Action, FnKind, ParamSpec, ParamType as T, Registry};
use crate::rules::{ActCx, ContentError, LabelledActions, Params, RuleError};
use crate::state::{ObjId, Value};

/// The most numbers one `choose_number` offers (a range wider than this is an error).
pub const MAX_NUMBERS: i64 = 1000;

/// The acting player: the holder's owner, else the event's player.
fn acting(ax: &ActCx<'_>) -> Option<ObjId> {
    ax.scope
        .this
        .and_then(|t| ax.world.object(t).ok().and_then(|o| o.owner))
        .or(ax.scope.player)
}

/// Offers `labels` to the acting player: between `min` and `max` of them.
fn ask(
    ax: &ActCx<'_>,
    chooser: Option<ObjId>,
    prompt: &str,
    labels: Vec<String>,
    min: usize,
    max: usize,
) -> Result<Vec<usize>, RuleError> {
    let request = Choice {
        chooser,
        prompt: prompt.to_owned(),
        options: Vec::new(),
        min: min.min(labels.len()),
        max: max.min(labels.len()),
        labels,
    };
    crate::rules::ask(ax, &request)
}

/// Evaluates `e` as an integer in the action's scope.
fn int(ax: &ActCx<'_>, e: &Expr) -> Result<i64, RuleError> {
    e.eval_int(&ax.cx())
}

#[derive(Debug)]
struct ChooseNumber {
    key: Sym,
    min: Expr,
    max: Expr,
    prompt: String,
}

impl Action for ChooseNumber {
    fn run(&self, ax: &mut ActCx<'_>, targets: &[ObjId]) -> Result<(), RuleError> {
        let (lo, hi) = (int(ax, &self.min)?, int(ax, &self.max)?);
        if hi < lo {
            return Err(RuleError::Failed(format!(
                "choice failed: `{}`: there is no number from {lo} to {hi}",
                self.prompt
            )));
        }
        if hi - lo >= MAX_NUMBERS {
            return Err(RuleError::Failed(format!(
                "`{}`: {lo} to {hi} offers more than {MAX_NUMBERS} numbers; narrow `min`/`max`",
                self.prompt
            )));
        }
        let labels = (lo..=hi).map(|n| n.to_string()).collect();
        let picked = ask(ax, acting(ax), &self.prompt, labels, 1, 1)?;
        let n = lo + i64::try_from(picked[0]).unwrap_or(0);
        for &t in targets {
            ax.world.set(t, self.key, Value::Int(n))?;
        }
        Ok(())
    }
}

#[derive(Debug)]
struct ChooseMode {
    modes: Vec<LabelledActions>,
    count: Expr,
    prompt: String,
}

impl Action for ChooseMode {
    fn run(&self, ax: &mut ActCx<'_>, targets: &[ObjId]) -> Result<(), RuleError> {
        let n = usize::try_from(int(ax, &self.count)?.max(0)).unwrap_or(0);
        // Only the modes whose `if` holds on the holder are offered.
        let mut offered = Vec::new();
        for (i, m) in self.modes.iter().enumerate() {
            let holds = match (&m.when, ax.scope.this) {
                (None, _) => true,
                (Some(c), Some(this)) => {
                    let scope = ax.scope.with_target(this);
                    c.test(&ax.cx().with_scope(&scope), this)?
                }
                (Some(_), None) => false,
            };
            if holds {
                offered.push(i);
            }
        }
        if offered.is_empty() {
            return Ok(());
        }
        let labels = offered
            .iter()
            .map(|&i| self.modes[i].label.clone())
            .collect();
        let mut picked = ask(ax, acting(ax), &self.prompt, labels, n, n)?;
        // Chosen modes happen in the order they are written, whatever the answer's order.
        picked.sort_unstable();
        for p in picked {
            let Some(&i) = offered.get(p) else { continue };
            for a in &self.modes[i].actions {
                a.run(ax, targets)?;
            }
        }
        Ok(())
    }
}

/// Registers `choose_number` and `choose_mode`.
pub(super) fn register(r: &mut Registry) {
    r.actions
        .register(builtin(
            "core:action/choose_number",
            "the acting player chooses a number from `min` to `max` (X), stored in property `key` of each target",
            vec![
                ParamSpec::required("key", T::Name, "the property that keeps the number"),
                ParamSpec::optional("min", T::Expr, "the least (default 0)"),
                ParamSpec::required("max", T::Expr, "the most (e.g. `self.owner.mana`)"),
                ParamSpec::optional("prompt", T::Text, "what the player is asked"),
            ],
            Arc::new(FnKind(|p: &mut Params<'_, '_>| -> Result<Box<dyn Action>, ContentError> {
                Ok(Box::new(ChooseNumber {
                    key: p.name("key")?,
                    min: p.expr_or("min", 0.0)?,
                    max: p.expr("max")?,
                    prompt: p.opt_text("prompt")?.unwrap_or_else(|| "choose a number".into()),
                }))
            })),
        ))
        .unwrap_or_else(|e| panic!("{e}"));
    r.actions
        .register(builtin(
            "core:action/choose_mode",
            "the acting player chooses `count` of the `modes` (choose one, choose two); the chosen modes' actions run on the targets, in the order written",
            vec![
                ParamSpec::required("modes", T::List, "`[{ label = \"...\", do = [...], if = <condition on the holder> }, ...]` (a mode whose `if` fails is not offered)"),
                ParamSpec::optional("count", T::Expr, "how many modes to choose (default 1)"),
                ParamSpec::optional("prompt", T::Text, "what the player is asked"),
            ],
            Arc::new(FnKind(|p: &mut Params<'_, '_>| -> Result<Box<dyn Action>, ContentError> {
                let modes = p.labelled_actions("modes")?;
                if modes.is_empty() {
                    return Err(p.error("modes", "`modes` lists no mode"));
                }
                Ok(Box::new(ChooseMode {
                    modes,
                    count: p.expr_or("count", 1.0)?,
                    prompt: p.opt_text("prompt")?.unwrap_or_else(|| "choose a mode".into()),
                }))
            })),
        ))
        .unwrap_or_else(|e| panic!("{e}"));
}
