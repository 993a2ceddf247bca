//! Modifiers and effective property values.
//!
//! A property's effective value is its base value with the active modifiers applied in
//! layer order — the game's `[world] layers`, by default set → add → multiply → clamp —
//! and within a layer by timestamp. Modifiers are only ever produced by auras (see
//! `rules::aura`), so removing an aura can never leave a wrong value behind: nothing is
//! undone, everything is recomputed.

use serde::{Deserialize, Serialize};

use super::ObjId;
use crate::id::Sym;

/// Which layer a modifier applies in; layers apply in declaration order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Layer {
    /// Replace the value (the latest set wins).
    Set,
    /// Add to the value.
    Add,
    /// Multiply the value.
    Multiply,
    /// Clamp the value between a minimum and a maximum.
    Clamp,
    /// Grant the tag named by the key while the modifier is in effect (no number).
    Tag,
    /// Remove the tag named by the key while the modifier is in effect, whether the
    /// object has it of its own or by a grant (no number): grants and removals of one tag
    /// apply in layer order, then by timestamp, and the last one decides.
    Untag,
}

/// Identifies one aura producing modifiers: a class aura of an object, or an aura instance.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum AuraKey {
    /// The `index`-th aura of the holder's class.
    Class {
        /// The object whose class defines the aura.
        holder: ObjId,
        /// Index of the aura in the class definition.
        index: u16,
    },
    /// An aura instance given at runtime (`give_aura`).
    Instance(u64),
}

/// One modifier in effect on one object.
#[derive(Debug, Clone, PartialEq)]
pub struct AppliedMod {
    /// The property it changes.
    pub key: Sym,
    /// How it combines with the value so far.
    pub layer: Layer,
    /// Where its layer stands in the game's layer order (`[world] layers`); `u16::MAX`
    /// for a granted tag in no layer.
    pub rank: u16,
    /// The operand (for `Clamp`: the minimum).
    pub value: f64,
    /// For `Clamp`: the maximum.
    pub max: f64,
    /// When the aura producing it started (orders modifiers within a layer).
    pub timestamp: u64,
    /// The aura producing it.
    pub aura: AuraKey,
}

/// Applies `mods` (any order; only those for `key` count) to `base`.
///
/// Modifiers apply one after another in layer order (their `rank`), and within a layer
/// by timestamp then aura key, so the result never depends on the order the auras were
/// recomputed in: a `set` replaces the value so far (the latest set in a layer wins), an
/// `add` adds, a `multiply` multiplies, a `clamp` bounds it.
pub fn apply(base: f64, key: Sym, mods: &[AppliedMod]) -> f64 {
    // Objects under many auras carry long lists, mostly for other keys: one scan to skip
    // the sort when nothing here is for `key`.
    if !mods.iter().any(|m| m.key == key) {
        return if base.is_nan() { 0.0 } else { base };
    }
    let mut mine: smallvec::SmallVec<[&AppliedMod; 8]> = mods
        .iter()
        .filter(|m| m.key == key && !m.layer.is_tag())
        .collect();
    mine.sort_by_key(|m| (m.rank, m.timestamp, m.aura));
    let value = mine.iter().fold(base, |value, m| match m.layer {
        Layer::Set => m.value,
        Layer::Add => value + m.value,
        Layer::Multiply => value * m.value,
        Layer::Clamp => value.max(m.value).min(m.max),
        Layer::Tag | Layer::Untag => value,
    });
    if value.is_nan() {
        0.0
    } else {
        value
    }
}

impl Layer {
    /// Whether the modifier grants or removes a tag rather than changing a number.
    pub fn is_tag(self) -> bool {
        matches!(self, Layer::Tag | Layer::Untag)
    }
}

/// Whether an object has `tag`, given whether it has it of its own (`own`) and the
/// modifiers in effect on it (any order; only those for `tag` count).
///
/// Without a removal of the tag, any grant gives it. With one, the grants (`Tag`) and
/// removals (`Untag`) apply one after another in layer order (`rank`), then by timestamp
/// then aura key, starting from `own`, and the last one decides: "loses flying" then
/// "gains flying" leaves it flying, the other way round not.
pub fn tag_in_effect<'a>(
    own: bool,
    tag: Sym,
    mods: impl IntoIterator<Item = &'a AppliedMod>,
) -> bool {
    let mut mine: smallvec::SmallVec<[&AppliedMod; 4]> = smallvec::SmallVec::new();
    let (mut granted, mut removed) = (false, false);
    for m in mods {
        if m.key != tag {
            continue;
        }
        match m.layer {
            Layer::Tag => granted = true,
            Layer::Untag => removed = true,
            _ => continue,
        }
        mine.push(m);
    }
    if !removed {
        return own || granted;
    }
    mine.sort_by_key(|m| (m.rank, m.timestamp, m.aura));
    mine.iter().fold(own, |_, m| m.layer == Layer::Tag)
}

/// What happens to damage when an object's maximum health falls. Chosen by the game's
/// rules mod (`[world] on_max_health_drop`), because games differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum MaxHealthDrop {
    /// Damage stays marked (Magic): losing a toughness bonus can kill.
    #[default]
    Keep,
    /// Current health is clamped to the new maximum and never falls because of it
    /// (Hearthstone, Hearthbreaker's `change_health`): losing a health buff never kills.
    Clamp,
}

/// How `health` is derived: `health = max_health - damage`, with damage as state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HealthRule {
    /// The maximum-health property (default `max_health`).
    pub max_key: Sym,
    /// The damage counter (default `damage`).
    pub damage_key: Sym,
    /// The derived property (default `health`).
    pub health_key: Sym,
    /// What a falling maximum does to damage.
    pub on_drop: MaxHealthDrop,
    /// A tag that absorbs one hit: damage to an object with it removes the tag instead
    /// (Hearthstone's divine shield). `None`: no shield.
    pub shield_tag: Option<Sym>,
    /// A property that soaks damage before health does (armour). `None`: no armour.
    pub armor_key: Option<Sym>,
}

impl Default for HealthRule {
    fn default() -> Self {
        HealthRule {
            max_key: Sym::new("max_health"),
            damage_key: Sym::new("damage"),
            health_key: Sym::new("health"),
            on_drop: MaxHealthDrop::Keep,
            shield_tag: None,
            armor_key: None,
        }
    }
}

impl HealthRule {
    /// The damage to keep when the effective maximum goes from `old_max` to `new_max`.
    pub fn damage_after_max_change(&self, damage: i64, old_max: i64, new_max: i64) -> i64 {
        match self.on_drop {
            MaxHealthDrop::Keep => damage,
            MaxHealthDrop::Clamp if new_max < old_max => {
                // health' = min(old health, new max)  =>  damage' = new_max - health'
                let health = (old_max - damage).min(new_max);
                (new_max - health).max(0)
            }
            MaxHealthDrop::Clamp => damage,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(key: &str, layer: Layer, value: f64, ts: u64) -> AppliedMod {
        AppliedMod {
            key: Sym::new(key),
            layer,
            rank: match layer {
                Layer::Set => 0,
                Layer::Add => 1,
                Layer::Multiply => 2,
                Layer::Clamp => 3,
                Layer::Tag | Layer::Untag => u16::MAX,
            },
            value,
            max: f64::INFINITY,
            timestamp: ts,
            aura: AuraKey::Instance(ts),
        }
    }

    #[test]
    fn declared_layers_order_operations_and_timestamps_order_a_layer() {
        // Layers [modify, set]: the add (layer 0) applies before the set (layer 1).
        let mut add = m("power", Layer::Add, 1.0, 9);
        add.rank = 0;
        let mut set = m("power", Layer::Set, 5.0, 1);
        set.rank = 1;
        assert_eq!(
            apply(2.0, Sym::new("power"), &[set.clone(), add.clone()]),
            5.0
        );
        // One layer holding both: timestamp order decides (set at 1, then +1 at 9).
        set.rank = 0;
        assert_eq!(
            apply(2.0, Sym::new("power"), &[add.clone(), set.clone()]),
            6.0
        );
        add.timestamp = 0;
        assert_eq!(apply(2.0, Sym::new("power"), &[add, set]), 5.0);
    }

    #[test]
    fn layers_apply_in_order_regardless_of_list_order() {
        let mods = vec![
            m("attack", Layer::Multiply, 2.0, 1),
            m("attack", Layer::Add, 1.0, 2),
            m("attack", Layer::Set, 5.0, 3),
            m("health", Layer::Add, 100.0, 4),
        ];
        // set 5, +1, *2
        assert_eq!(apply(2.0, Sym::new("attack"), &mods), 12.0);
        let mut rev = mods.clone();
        rev.reverse();
        assert_eq!(apply(2.0, Sym::new("attack"), &rev), 12.0);
    }

    #[test]
    fn latest_set_wins_and_clamp_is_last() {
        let mut clamp = m("attack", Layer::Clamp, 0.0, 9);
        clamp.max = 4.0;
        let mods = vec![
            m("attack", Layer::Set, 7.0, 5),
            m("attack", Layer::Set, 3.0, 2),
            clamp,
        ];
        assert_eq!(apply(1.0, Sym::new("attack"), &mods), 4.0);
    }

    #[test]
    fn grants_and_removals_of_a_tag_apply_in_timestamp_order() {
        let flying = Sym::new("flying");
        let grant = m("flying", Layer::Tag, 1.0, 5);
        let remove = m("flying", Layer::Untag, 1.0, 3);
        let other = m("reach", Layer::Untag, 1.0, 9);
        // No removal: own or granted.
        assert!(tag_in_effect(true, flying, std::slice::from_ref(&other)));
        assert!(tag_in_effect(false, flying, std::slice::from_ref(&grant)));
        // Removed: an own tag is gone; a later grant gives it back, an earlier one not.
        assert!(!tag_in_effect(true, flying, std::slice::from_ref(&remove)));
        assert!(tag_in_effect(
            true,
            flying,
            &[grant.clone(), remove.clone()]
        ));
        let late = m("flying", Layer::Untag, 1.0, 7);
        assert!(!tag_in_effect(
            false,
            flying,
            &[late.clone(), grant.clone()]
        ));
        // An earlier layer applies first whatever the timestamps.
        let mut early = late;
        early.rank = 0;
        assert!(tag_in_effect(false, flying, &[grant, early]));
        // A removal does not change numbers.
        assert_eq!(apply(2.0, flying, &[remove]), 2.0);
    }

    #[test]
    fn health_rules_differ_when_max_falls() {
        let keep = HealthRule::default();
        let clamp = HealthRule {
            on_drop: MaxHealthDrop::Clamp,
            ..HealthRule::default()
        };
        // 2/4 with 3 damage (1 health) loses +2 health
        assert_eq!(keep.damage_after_max_change(3, 4, 2), 3); // health -1: dies
        assert_eq!(clamp.damage_after_max_change(3, 4, 2), 1); // health 1: lives
                                                               // undamaged: health simply falls to the new max
        assert_eq!(clamp.damage_after_max_change(0, 4, 2), 0);
        // a rising max never changes damage
        assert_eq!(clamp.damage_after_max_change(3, 2, 4), 3);
    }
}
