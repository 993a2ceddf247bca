//! Reading the world: every object, by class, zone or tag; base and effective property
//! values (modifiers applied); inherited values through parents; tags, granted ones
//! included.

use super::*;

impl World {
    /// Every living object, in id order (deterministic).
    pub fn objects(&self) -> impl Iterator<Item = (ObjId, &Object)> + '_ {
        self.slots.iter().enumerate().filter_map(|(i, s)| {
            s.object.as_ref().map(|o| {
                (
                    ObjId {
                        index: u32::try_from(i).unwrap_or(u32::MAX),
                        generation: s.generation,
                    },
                    &**o,
                )
            })
        })
    }

    /// Appends the objects of a class, in id order, to `out` (without an iterator over
    /// the index when the class has at most one object: the common case).
    pub fn objects_of_class_into(&self, class: Id, out: &mut impl Extend<ObjId>) {
        if !self.classes_seen.may_contain(class) {
            return;
        }
        let Some(set) = self.by_class.get(&class) else {
            return;
        };
        match set.len() {
            0 => {}
            1 => out.extend(set.get_min().copied()),
            _ => out.extend(set.iter().copied()),
        }
    }

    /// Living objects of one class, in id order.
    pub fn objects_of_class(&self, class: Id) -> impl Iterator<Item = ObjId> + '_ {
        self.by_class
            .get(&class)
            .into_iter()
            .flat_map(|s| s.iter().copied())
    }

    /// The objects in a zone, in id order.
    pub fn objects_in_zone(&self, zone: Sym) -> impl Iterator<Item = ObjId> + '_ {
        self.by_zone
            .get(&zone)
            .into_iter()
            .flat_map(|s| s.iter().copied())
    }

    /// The objects with a tag, their own or granted by a modifier and not removed by
    /// one, in id order.
    pub fn objects_tagged(&self, tag: Sym) -> impl Iterator<Item = ObjId> + '_ {
        let removed = self.by_removed_tag.get(&tag).is_some_and(|s| !s.is_empty());
        self.objects_tagged_or_removed(tag)
            .filter(move |o| !removed || self.has_tag(*o, tag))
    }

    /// The objects with a tag of their own or granted, removed or not, in id order.
    fn objects_tagged_or_removed(&self, tag: Sym) -> TaggedIds<'_> {
        let own = self.by_tag.get(&tag);
        let granted = self.by_granted_tag.get(&tag);
        match (own, granted) {
            (Some(a), Some(b)) if !b.is_empty() => {
                let mut v: Vec<ObjId> = a.iter().chain(b.iter()).copied().collect();
                v.sort_unstable();
                v.dedup();
                TaggedIds::Merged(v.into_iter())
            }
            (Some(a), _) => TaggedIds::One(a.iter()),
            (None, Some(b)) => TaggedIds::One(b.iter()),
            (None, None) => TaggedIds::Merged(Vec::new().into_iter()),
        }
    }

    /// How many objects a tag could name (own and granted; an upper bound, cheap).
    pub fn tagged_len(&self, tag: Sym) -> usize {
        self.by_tag.get(&tag).map_or(0, |s| s.len())
            + self.by_granted_tag.get(&tag).map_or(0, |s| s.len())
    }

    /// How many objects a zone holds.
    pub fn zone_len(&self, zone: Sym) -> usize {
        self.by_zone.get(&zone).map_or(0, |s| s.len())
    }

    /// How many object slots the world has (living objects and the slots of removed
    /// ones): every object's slot index is below it.
    pub fn slot_count(&self) -> usize {
        self.slots.len()
    }

    /// Number of living objects.
    pub fn len(&self) -> usize {
        self.by_class.values().map(|s| s.len()).sum()
    }

    /// Whether the world has no objects.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The base value of a property (no modifiers).
    pub fn base(&self, id: ObjId, key: Sym) -> Option<&Value> {
        self.object(id).ok()?.props.get(&key)
    }

    /// The effective numeric value of a property: base (0 if absent) with modifiers
    /// applied. `health` is derived as `max_health - damage` when the object has a
    /// maximum health. Returns `None` for a missing object or a non-numeric property
    /// without modifiers.
    pub fn get_number(&self, id: ObjId, key: Sym) -> Option<f64> {
        // One slot look-up for the object and its modifiers.
        let (obj, mods) = self.living(id)?;
        if key == self.health.health_key && !obj.props.contains_key(&key) {
            let max = self.get_number(id, self.health.max_key)?;
            if obj.props.contains_key(&self.health.max_key)
                || self.has_mods(id, self.health.max_key)
            {
                let damage = self.get_number(id, self.health.damage_key).unwrap_or(0.0);
                return Some(max - damage);
            }
        }
        let base = obj.props.get(&key);
        match (base, mods) {
            (Some(v), None) => v.as_f64(),
            (Some(v), Some(m)) => v.as_f64().map(|b| apply(b, key, m)),
            (None, Some(m)) if m.iter().any(|x| x.key == key) => Some(apply(0.0, key, m)),
            // `timestamp`, unless content sets one: when it entered its zone (the order
            // of a stack, of timestamps in a layer).
            (None, _) if key == timestamp_key() => Some(obj.timestamp as f64),
            (None, _) => None,
        }
    }

    /// The effective value `key` of `id` would have over the base value `base`: the
    /// object's modifiers for it applied (`base` when the object is absent).
    pub fn number_over(&self, id: ObjId, key: Sym, base: f64) -> f64 {
        match self.living(id) {
            Some((_, Some(mods))) => apply(base, key, mods),
            _ if base.is_nan() => 0.0,
            _ => base,
        }
    }

    /// Like [`World::get_number`], but integral (rounded down) and 0 when absent.
    pub fn get_int(&self, id: ObjId, key: Sym) -> i64 {
        self.get_number(id, key).map_or(0, |f| f.floor() as i64)
    }

    /// Looks a property up on the object, then on its parent, and so on up the attachment
    /// chain (building → planet → system); the first object that has it answers.
    pub fn get_inherited(&self, id: ObjId, key: Sym) -> Option<f64> {
        let mut cur = Some(id);
        let mut hops = 0;
        while let Some(c) = cur {
            if let Some(v) = self.get_number(c, key) {
                return Some(v);
            }
            cur = self.object(c).ok()?.parent;
            hops += 1;
            if hops > 64 {
                return None;
            }
        }
        None
    }

    fn has_mods(&self, id: ObjId, key: Sym) -> bool {
        self.applied(id)
            .is_some_and(|m| m.iter().any(|x| x.key == key))
    }

    /// Whether the object has the tag: its own tags with the grants (`op = "tag"`) and
    /// removals (`op = "untag"`) of the modifiers in effect on it
    /// ([`modifier::tag_in_effect`]).
    pub fn has_tag(&self, id: ObjId, tag: Sym) -> bool {
        self.living(id)
            .is_some_and(|(o, mods)| tag_with(o, mods, tag))
    }

    /// `id` itself when it has `tag` (own or granted), else its owner; `None` when it does
    /// not exist. One look-up for the side an object is on: a player (tagged as one) is
    /// its own side, anything else its owner's.
    pub(crate) fn tagged_or_owner(&self, id: ObjId, tag: Sym) -> Option<ObjId> {
        let (o, mods) = self.living(id)?;
        if tag_with(o, mods, tag) {
            Some(id)
        } else {
            o.owner
        }
    }

    /// Whether `o` (the object `id`) has `tag`: its own tags, or one granted by a
    /// modifier of an aura (`op = "tag"`), unless a modifier removes it (`op = "untag"`).
    pub fn object_has_tag(&self, id: ObjId, o: &Object, tag: Sym) -> bool {
        tag_with(o, self.applied(id), tag)
    }
}

/// Whether `o`, with the modifiers `mods` in effect on it, has `tag`: its own tags with
/// the modifiers' grants and removals ([`modifier::tag_in_effect`]).
#[inline]
fn tag_with(o: &Object, mods: Option<&Arc<Vec<AppliedMod>>>, tag: Sym) -> bool {
    let own = o.tags.contains(&tag);
    match mods {
        Some(mods) => modifier::tag_in_effect(own, tag, mods.iter()),
        None => own,
    }
}

/// The ids [`World::objects_tagged`] walks: one index's (a tag only objects have, or only
/// modifiers grant), or both merged. An enum, not a boxed iterator: selections by tag ask
/// for it tens of thousands of times a game.
enum TaggedIds<'a> {
    One(super::id_set::IdIter<'a>),
    Merged(std::vec::IntoIter<ObjId>),
}

impl Iterator for TaggedIds<'_> {
    type Item = ObjId;

    fn next(&mut self) -> Option<ObjId> {
        match self {
            TaggedIds::One(ids) => ids.next().copied(),
            TaggedIds::Merged(ids) => ids.next(),
        }
    }
}
