//! Switching a running world to a new registry generation: the last step of a hot reload.
//!
//! A swap happens between two commands, so never in the middle of an event. The rules:
//!
//! - **Classes re-bind by id.** Triggers and auras come from the generation, so objects
//!   pick up edited triggers and auras at once; removed ones stop.
//! - **Base properties follow the class where the game has not changed them**: a property
//!   whose base value still equals the old class default takes the new default (or is
//!   removed, if the new class no longer has it); a property the game changed keeps its
//!   value; a property new to the class is added. Tags follow the same rule.
//! - **Objects whose class is gone stay** in the world, unchanged and inert (no class
//!   triggers or auras), and are reported as orphans; the world stays consistent.
//! - **Given auras whose definition is gone end**, and are counted.
//! - **Auras are recomputed** in full (with the health rule), then `core:event/mods_reloaded`
//!   is raised (amount = the new generation's number) so content can react.
//! - **Plugin state is handed over**: for each plugin of the new generation that replaces one
//!   of the old (same mod and file), the old instance's `save_state` goes to the new
//!   instance's `load_state`; a plugin without them starts fresh; failures are reported, not
//!   fatal. The old generation's instances are freed.
//! - **Keep the last good**: if raising `mods_reloaded` fails (a trigger of the new content
//!   errs), the world and the old generation are put back and the error returned.

use std::sync::Arc;

use super::{Game, Outcome};
use crate::bus::Event;
use crate::id::Id;
use crate::rules::{Generation, RuleError};
use crate::state::ObjId;

/// What a swap did.
#[derive(Debug, Default)]
pub struct SwapReport {
    /// The generation swapped from.
    pub from: u64,
    /// The generation swapped to.
    pub to: u64,
    /// Objects whose class the new generation does not define (kept, inert).
    pub orphans: Vec<(ObjId, Id)>,
    /// Base properties and tags updated to the classes' new defaults.
    pub rebound: usize,
    /// Given auras ended because their definition is gone.
    pub ended_auras: usize,
    /// Plugin state handovers that failed (the plugin starts fresh).
    pub handover_problems: Vec<String>,
    /// Plugin instances of the old generation freed.
    pub freed_instances: usize,
    /// What `core:event/mods_reloaded` caused.
    pub outcome: Outcome,
}

impl Game {
    /// Switches to a new generation between two commands, by the rules in this module's
    /// documentation. On error nothing changes (the old generation stays live).
    pub fn swap(&mut self, new: Arc<Generation>) -> Result<SwapReport, RuleError> {
        let old = self.gen.clone();
        let mut report = SwapReport {
            from: old.number,
            to: new.number,
            ..SwapReport::default()
        };
        let (old_plugins, new_plugins) = (old.registry.plugins(), new.registry.plugins());
        for p in &new_plugins {
            let replaced = old_plugins
                .iter()
                .find(|o| o.mod_id == p.mod_id && o.file == p.file && !Arc::ptr_eq(o, p));
            if let Some(o) = replaced {
                report.handover_problems.extend(self.rt.hand_over(o, p));
            }
        }
        report.freed_instances = self.rt.retain_plugins(&new_plugins);

        let snapshot = self.world.clone();
        let rebind = rebind(&mut self.world, &old, &new, &mut report);
        if let Err(e) = rebind {
            self.world = snapshot;
            return Err(e);
        }
        self.world.set_health_rule(new.world.health.clone());
        self.world.mark_all_dirty();
        self.gen = new;
        let reloaded = Id::parse("core:event/mods_reloaded").map_err(RuleError::internal)?;
        let amount = i64::try_from(report.to).unwrap_or(i64::MAX);
        match self.emit(Event::new(reloaded).amount(amount)) {
            Ok(outcome) => {
                report.outcome = outcome;
                tracing::info!(
                    from = report.from,
                    to = report.to,
                    orphans = report.orphans.len(),
                    "generation swapped"
                );
                Ok(report)
            }
            Err(e) => {
                self.world = snapshot;
                self.world.set_health_rule(old.world.health.clone());
                self.gen = old;
                Err(e)
            }
        }
    }
}

fn rebind(
    world: &mut crate::state::World,
    old: &Generation,
    new: &Generation,
    report: &mut SwapReport,
) -> Result<(), RuleError> {
    let objects: Vec<(ObjId, Id)> = world.objects().map(|(id, o)| (id, o.class)).collect();
    for (obj, class) in objects {
        let Some(new_def) = new.class(class) else {
            report.orphans.push((obj, class));
            continue;
        };
        let Some(old_def) = old.class(class) else {
            continue;
        };
        if Arc::ptr_eq(old_def, new_def) {
            continue;
        }
        report.rebound += crate::rules::core::class_change::rebase(world, obj, old_def, new_def)?;
    }
    let gone: Vec<u64> = world
        .aura_instances()
        .filter(|(_, a)| !new.auras.contains_key(&a.def))
        .map(|(n, _)| n)
        .collect();
    for n in gone {
        if world.remove_aura_instance(n) {
            report.ended_auras += 1;
        }
    }
    Ok(())
}
