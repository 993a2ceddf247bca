//! Compiled abilities: the definition a generation holds, and the book of all of them.

use std::collections::HashMap;
use std::sync::Arc;

use crate::id::{Id, Sym};
use crate::rules::registry::Node;
use crate::rules::Origin;

/// World ticks per second of ability time.
///
/// The ability schema speaks in seconds (`cooldown_seconds`, `tick_interval_seconds`,
/// `duration_seconds`, `cast_time_seconds`); the host's clock is the scheduler's tick
/// ([`crate::Game::tick`]). One second is **10 ticks**, so a tenth of a second is the
/// finest step: `ticks = round(seconds × 10)`. A 12 s cooldown lasts 120 ticks; a burn
/// with a 1 s interval ticks every 10 ticks.
pub const TICKS_PER_SECOND: u32 = 10;

/// Seconds of ability time as scheduler ticks (`round(seconds × 10)`, never negative).
pub fn ticks(seconds: f64) -> u64 {
    let t = (seconds * f64::from(TICKS_PER_SECOND)).round();
    if t.is_finite() && t > 0.0 {
        // `as` saturates for floats beyond u64::MAX; t is finite and positive here.
        t as u64
    } else {
        0
    }
}

/// What the `meta` node(s) of an ability say (several `meta` nodes add their mana costs,
/// and the longest cooldown and cast time win).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Meta {
    /// Recharge after use, ticks.
    pub cooldown_ticks: u64,
    /// Mana spent when the ability fires (from the caster's `mana` property).
    pub mana_cost: f64,
    /// Time from starting the cast to the ability firing, ticks (0: instant).
    pub cast_time_ticks: u64,
    /// Tags, for filtering, synergies and resistances.
    pub tags: Vec<Sym>,
}

/// `range.rangeType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum RangeType {
    /// Aimed at a target or point within range (lands at once: no travel time).
    Projectile,
    /// Aimed at a target or point within range, instantly.
    Hitscan,
    /// Aimed at a target or point within (short) range.
    Melee,
    /// Centred on the caster: needs no aim, range is not checked.
    Aura,
}

/// A compiled `range` node, for checks before a cast starts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RangeSpec {
    /// Minimum distance, meters.
    pub min: f64,
    /// Maximum distance, meters (`None`: unlimited).
    pub max: Option<f64>,
    /// How it travels.
    pub range_type: RangeType,
}

/// One node of a compiled ability.
#[derive(Debug)]
pub struct AbilityNode {
    /// Its id within the ability (results are stored under it).
    pub id: Sym,
    /// Its node type.
    pub kind: Id,
    /// The prepared node.
    pub node: Box<dyn Node>,
    /// Where it is written.
    pub origin: Origin,
}

/// A compiled ability: its nodes in order, plus what must be checked before it is cast.
#[derive(Debug)]
pub struct AbilityDef {
    /// Its id (`namespace:category/name`).
    pub id: Id,
    /// Display-name translation key.
    pub display_name: String,
    /// Description translation key.
    pub description: String,
    /// The `math` list, prepared, in order.
    pub nodes: Vec<AbilityNode>,
    /// Cooldown, mana, cast time, tags.
    pub meta: Meta,
    /// Every `range` node (all are checked).
    pub ranges: Vec<RangeSpec>,
    /// The caster property holding the tick this ability is ready again.
    pub cooldown_key: Sym,
    /// Where it is written.
    pub origin: Origin,
}

impl AbilityDef {
    /// Whether the ability needs something to aim at (it has a range that is not `aura`).
    pub fn needs_aim(&self) -> bool {
        self.ranges.iter().any(|r| r.range_type != RangeType::Aura)
    }
}

/// The caster property holding when an ability is ready again: `cooldown.<ability id>`.
pub fn cooldown_key(ability: Id) -> Sym {
    Sym::new(&format!("cooldown.{ability}"))
}

/// Every ability of a generation, by id, in load order.
#[derive(Debug, Clone, Default)]
pub struct AbilityBook {
    by_id: HashMap<Id, Arc<AbilityDef>>,
    order: Vec<Id>,
}

impl AbilityBook {
    /// An ability by id.
    pub fn get(&self, id: Id) -> Option<&Arc<AbilityDef>> {
        self.by_id.get(&id)
    }

    /// Every ability, in load order.
    pub fn iter(&self) -> impl Iterator<Item = &Arc<AbilityDef>> + '_ {
        self.order.iter().filter_map(|id| self.by_id.get(id))
    }

    /// How many abilities there are.
    pub fn len(&self) -> usize {
        self.order.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }

    /// Adds an ability; returns the one already there if the id is taken.
    pub(crate) fn insert(&mut self, def: AbilityDef) -> Result<(), Arc<AbilityDef>> {
        if let Some(prev) = self.by_id.get(&def.id) {
            return Err(prev.clone());
        }
        self.order.push(def.id);
        self.by_id.insert(def.id, Arc::new(def));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_become_ticks() {
        assert_eq!(ticks(12.0), 120);
        assert_eq!(ticks(1.5), 15);
        assert_eq!(ticks(0.0), 0);
        assert_eq!(ticks(-3.0), 0);
        assert_eq!(ticks(f64::NAN), 0);
    }
}
