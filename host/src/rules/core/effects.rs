//! `core` actions on what is given to objects at run time: `give_effect` (a trigger given
//! to an object: Echoing Ooze's "at the end of the turn, copy this"), `remove_effects`,
//! and `copy_given` (a copy keeps the buffs and effects given to its original, as
//! Faceless Manipulator's does). The given triggers themselves are dispatched by `game`.

use std::sync::Arc;

use crate::id::Id;
use crate::rules::registry::{
    builtin, Action, FnKind, ParamSpec, ParamType as T, Registry, Selector,
};
use crate::rules::select::Select;
use crate::rules::{ActCx, RuleError};
use crate::state::{EffectInstance, ObjId};

#[derive(Debug)]
struct GiveEffect {
    effect: Id,
    once: bool,
}

impl Action for GiveEffect {
    fn run(&self, ax: &mut ActCx<'_>, targets: &[ObjId]) -> Result<(), RuleError> {
        let silence = ax.gen.world.silence_tag;
        for &t in targets {
            let given_silenced = silence.is_some_and(|s| ax.world.has_tag(t, s));
            ax.world.give_effect(EffectInstance {
                def: self.effect,
                holder: t,
                giver: ax.scope.this,
                timestamp: 0,
                once: self.once,
                given_silenced,
            })?;
        }
        Ok(())
    }
}

#[derive(Debug)]
struct RemoveEffects;

impl Action for RemoveEffects {
    fn run(&self, ax: &mut ActCx<'_>, targets: &[ObjId]) -> Result<(), RuleError> {
        ax.world.remove_effects(|e| targets.contains(&e.holder));
        Ok(())
    }
}

#[derive(Debug)]
struct CopyGiven {
    from: Select,
}

impl Action for CopyGiven {
    fn run(&self, ax: &mut ActCx<'_>, targets: &[ObjId]) -> Result<(), RuleError> {
        let mut from = Vec::new();
        self.from.select(&ax.cx(), &mut from)?;
        let Some(&original) = from.first() else {
            return Ok(());
        };
        let auras: Vec<_> = ax
            .world
            .aura_instances()
            .filter(|(_, a)| a.holder == original)
            .map(|(_, a)| (a.def, a.source, a.frozen.clone()))
            .collect();
        let effects: Vec<EffectInstance> = ax
            .world
            .effect_instances()
            .filter(|(_, e)| e.holder == original)
            .map(|(_, e)| e.clone())
            .collect();
        for &t in targets.iter().filter(|&&t| t != original) {
            for (def, source, frozen) in &auras {
                ax.world
                    .give_aura_frozen(*def, t, *source, frozen.clone())?;
            }
            for e in &effects {
                ax.world.give_effect(EffectInstance {
                    holder: t,
                    ..e.clone()
                })?;
            }
        }
        Ok(())
    }
}

/// Registers `give_effect`, `remove_effects` and `copy_given`.
pub(super) fn register(r: &mut Registry) {
    let mut reg = |id: &str, doc: &str, params: Vec<ParamSpec>, imp| {
        r.actions
            .register(builtin(id, doc, params, imp))
            .unwrap_or_else(|e| panic!("{e}"));
    };
    reg(
        "core:action/give_effect",
        "gives each target a trigger (it becomes the trigger's `self`; `giver` is the object whose action gave it); it lasts until its holder is removed or silenced",
        vec![
            ParamSpec::required(
                "effect",
                T::Table,
                "the trigger: `when`, `do`, and optionally `select`, `priority`, `zones`, `look_back`",
            ),
            ParamSpec::optional(
                "once",
                T::Bool,
                "the effect ends once it has fired (passed its filters and acted); default: it lasts",
            ),
        ],
        Arc::new(FnKind(|p: &mut crate::rules::Params<'_, '_>| {
            Ok(Box::new(GiveEffect {
                effect: p.effect("effect")?,
                once: p.bool_or("once", false)?,
            }) as Box<dyn Action>)
        })),
    );
    reg(
        "core:action/remove_effects",
        "ends every effect given to each target",
        Vec::new(),
        Arc::new(FnKind(|_: &mut crate::rules::Params<'_, '_>| {
            Ok(Box::new(RemoveEffects) as Box<dyn Action>)
        })),
    );
    reg(
        "core:action/copy_given",
        "gives each target copies of the auras and effects given to the first object `from` selects (a copy that keeps its original's buffs)",
        vec![ParamSpec::required(
            "from",
            T::Selector,
            "the original (its first object)",
        )],
        Arc::new(FnKind(|p: &mut crate::rules::Params<'_, '_>| {
            let from = p.selector("from")?.ok_or_else(|| {
                crate::rules::ContentError::new(
                    "E-CONTENT-MISSING-PARAM",
                    p.path_of("from"),
                    "`copy_given` needs `from`, a selector of the original",
                )
            })?;
            Ok(Box::new(CopyGiven { from }) as Box<dyn Action>)
        })),
    );
}
