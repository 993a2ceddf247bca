//! [`Game::cast`]: using an ability as a command (the checks and the pipeline are the
//! ability module's; this runs them inside one transaction of the game).

use std::sync::{Arc, Mutex};

use super::{Game, Outcome};
use crate::id::Id;
use crate::rules::ability::cast::begin;
use crate::rules::ability::{precheck, AbilityDef, Aim, CastError, Pipeline};
use crate::rules::registry::Action;
use crate::rules::{ActCx, RuleError};
use crate::state::ObjId;

/// What a cast did.
#[derive(Debug, Clone)]
pub struct CastReport {
    /// The ability.
    pub ability: Id,
    /// Whether it fired now (`false`: it has a cast time and fires at `fires_at`).
    pub fired: bool,
    /// When a delayed cast fires (tick).
    pub fires_at: Option<u64>,
    /// The pipeline after its last node (empty when it has not fired yet).
    pub pipeline: Pipeline,
    /// The command's events.
    pub outcome: Outcome,
}

/// The one-off action [`Game::cast`] runs as its command.
#[derive(Debug)]
struct Begin {
    def: Arc<AbilityDef>,
    caster: ObjId,
    aim: Aim,
    out: Arc<Mutex<Option<Pipeline>>>,
}

impl Action for Begin {
    fn run(&self, ax: &mut ActCx<'_>, _targets: &[ObjId]) -> Result<(), RuleError> {
        let p = begin(ax, &self.def, self.caster, self.aim)?;
        *self.out.lock().unwrap_or_else(|e| e.into_inner()) = p;
        Ok(())
    }
}

impl Game {
    /// Command: `caster` uses `ability` aimed at `aim`.
    ///
    /// Refused (nothing changes) when the caster is missing or still casting, the
    /// ability is on cooldown, the caster's `mana` is below the cost, or the aim is out
    /// of range. Otherwise, in one transaction: an instant ability runs its nodes top to
    /// bottom (the `meta` node pays the mana and starts the cooldown); one with a cast
    /// time marks the caster `casting` and fires after `cast_time_seconds` of
    /// [`Game::tick`]s, checked again then. Any rule error rolls the whole cast back.
    pub fn cast(&mut self, ability: Id, caster: ObjId, aim: Aim) -> Result<CastReport, CastError> {
        let def = self
            .generation()
            .abilities
            .get(ability)
            .cloned()
            .ok_or(CastError::UnknownAbility(ability))?;
        precheck(self.world(), &def, caster, aim)?;
        let out: Arc<Mutex<Option<Pipeline>>> = Arc::default();
        let action: Box<dyn Action> = Box::new(Begin {
            def: def.clone(),
            caster,
            aim,
            out: out.clone(),
        });
        let now = self.world().tick();
        let outcome = self.run_actions(std::slice::from_ref(&action), Some(caster), &[])?;
        let pipeline = out.lock().unwrap_or_else(|e| e.into_inner()).take();
        Ok(CastReport {
            ability,
            fired: pipeline.is_some(),
            fires_at: pipeline
                .is_none()
                .then(|| now.saturating_add(def.meta.cast_time_ticks)),
            pipeline: pipeline.unwrap_or_default(),
            outcome,
        })
    }
}
