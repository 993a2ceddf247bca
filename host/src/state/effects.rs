//! Effect instances in the world: triggers given to an object at run time
//! (`core:action/give_effect`), kept beside the object they were given to and ended by
//! its removal, by its silence, or (for a one-shot effect) by firing. What an effect does
//! is the rules' business (`game` dispatches it); the world only keeps the instances.

use super::{ObjId, StateError, World};
use crate::id::Id;

/// A trigger given to an object at run time, as opposed to a class trigger.
#[derive(Debug, Clone, PartialEq)]
pub struct EffectInstance {
    /// The given effect's definition (a trigger of the generation bound to it).
    pub def: Id,
    /// The object holding it (`self` for its filters and actions).
    pub holder: ObjId,
    /// The object that gave it, if any (`giver` in its expressions and selectors).
    pub giver: Option<ObjId>,
    /// When it was given (instances of one definition run in this order).
    pub timestamp: u64,
    /// It ends once it has fired (it passed its filters and ran its actions).
    pub once: bool,
    /// The holder was already silenced when it was given: that silence does not end it.
    pub given_silenced: bool,
}

impl World {
    /// Gives an effect instance to its `holder` (its `timestamp` is set to now); returns the
    /// instance number.
    pub fn give_effect(&mut self, mut inst: EffectInstance) -> Result<u64, StateError> {
        self.object(inst.holder)?;
        inst.timestamp = self.next_timestamp();
        self.next_effect += 1;
        let n = self.next_effect;
        self.effects.insert(n, inst);
        Ok(n)
    }

    /// Ends one effect instance; returns whether it existed.
    pub fn remove_effect_instance(&mut self, n: u64) -> bool {
        self.effects.remove(&n).is_some()
    }

    /// Ends the effect instances matching `pred`; returns how many ended.
    pub fn remove_effects(&mut self, mut pred: impl FnMut(&EffectInstance) -> bool) -> usize {
        let gone: Vec<u64> = self
            .effects
            .iter()
            .filter(|(_, e)| pred(e))
            .map(|(k, _)| *k)
            .collect();
        for k in &gone {
            self.effects.remove(k);
        }
        gone.len()
    }

    /// The effect instance numbered `n`, if it has not ended.
    pub fn effect_instance(&self, n: u64) -> Option<&EffectInstance> {
        self.effects.get(&n)
    }

    /// The effect instances, by instance number (the order they were given in).
    pub fn effect_instances(&self) -> impl Iterator<Item = (u64, &EffectInstance)> + '_ {
        self.effects.iter().map(|(k, v)| (*k, v))
    }

    /// Whether any effect instance exists (most worlds have none: a cheap test first).
    pub fn has_effects(&self) -> bool {
        !self.effects.is_empty()
    }
}
