//! What a trigger's filters say about one event and one holder: whether the holder
//! listens (zones, silence), whether the event passes `when` (player, conditions), and
//! which objects the actions apply to. Shared by trigger dispatch (`game`) and
//! replacement effects (`replace`), which are triggers on an event that would happen.

use std::sync::Arc;

use crate::bus::{Binding, Event};
use crate::rules::compile::{Generation, PlayerFilter, Trigger};
use crate::rules::core::acting_player;
use crate::rules::registry::Selector;
use crate::rules::{Cx, RuleError};
use crate::state::{ObjId, World};

impl Trigger {
    /// Whether `holder` listens at all: it is in one of the trigger's zones and is not
    /// silenced — judged in the world before the action when the trigger looks back and
    /// the event kept it. A global trigger (no holder) always listens. A given effect's
    /// silence is judged by its dispatcher: silence ends it, but one given to an object
    /// already silenced still runs.
    pub fn holder_listens(
        &self,
        world: &World,
        gen: &Generation,
        holder: Option<ObjId>,
        event: &Event,
    ) -> bool {
        let Some(h) = holder else { return true };
        let judge = |world: &World| {
            (self.zones.is_empty() || world.object(h).is_ok_and(|o| self.zones.contains(&o.zone)))
                && (matches!(self.binding, Binding::Given(_))
                    || !gen.world.silence_tag.is_some_and(|s| world.has_tag(h, s)))
        };
        match (&event.before, self.look_back) {
            (Some(before), true) => before.read(|then| {
                if then.exists(h) {
                    judge(then)
                } else {
                    judge(world)
                }
            }),
            _ => judge(world),
        }
    }

    /// Whether `event` passes the trigger's `when` filters, judged from the holder's side
    /// (`cx.scope` is the scope of the holder handling the event).
    pub fn passes(
        &self,
        cx: &Cx<'_>,
        holder: Option<ObjId>,
        event: &Arc<Event>,
    ) -> Result<bool, RuleError> {
        if self.player != PlayerFilter::Any {
            let mine = match (acting_player(cx), event.player) {
                (Some(me), Some(p)) => (me == p) == (self.player == PlayerFilter::Friendly),
                _ => false,
            };
            if !mine {
                return Ok(false);
            }
        }
        for (cond, subject) in [
            (&self.condition, event.source.or(event.target).or(holder)),
            (&self.target_condition, event.target),
        ] {
            let Some(c) = cond else { continue };
            let Some(subject) = subject else {
                return Ok(false);
            };
            let scope = cx.scope.with_target(subject);
            if !c
                .test(&cx.with_scope(&scope), subject)
                .map_err(|e| e.context(&self.origin))?
            {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// The objects the actions apply to: `select`, or by default the holder (class
    /// triggers) or the event's target (global triggers).
    pub fn targets(
        &self,
        cx: &Cx<'_>,
        holder: Option<ObjId>,
        event: &Event,
    ) -> Result<Vec<ObjId>, RuleError> {
        let mut targets = Vec::new();
        match &self.select {
            Some(s) => s
                .select(cx, &mut targets)
                .map_err(|e| e.context(&self.origin))?,
            None => targets.extend(match self.binding {
                Binding::Class(_) | Binding::Given(_) => holder,
                Binding::Global => event.target,
            }),
        }
        Ok(targets)
    }
}
