//! Changing the world: base properties set, unset and added to (the health rule kept);
//! tags; zones (with timestamps and slots), owners and parents; delayed events. Every
//! change marks what aura recompute must look at.

use super::*;

impl World {
    /// Sets a base property value. Marks the key dirty for aura recompute.
    /// A lower base maximum health follows the health rule, like a lost modifier does
    /// (`clamp`: current health is kept down to the new maximum, never below).
    pub fn set(&mut self, id: ObjId, key: Sym, value: Value) -> Result<Option<Value>, StateError> {
        let max_before = (key == self.health.max_key).then(|| self.get_int(id, key));
        if key == slots::slot_key() {
            self.slot_written(id);
        }
        let obj = self.object_mut(id)?;
        let old = obj.props.insert(key, value);
        self.dirty.touch(id, key);
        // `health` is derived from these two: whoever reads it must see the change.
        if key == self.health.damage_key || key == self.health.max_key {
            self.dirty.touch(id, self.health.health_key);
        }
        if let Some(before) = max_before {
            let after = self.get_int(id, key);
            if after < before {
                let damage_key = self.health.damage_key;
                let damage = self.get_int(id, damage_key);
                let kept = self.health.damage_after_max_change(damage, before, after);
                if kept != damage {
                    self.set(id, damage_key, Value::Int(kept))?;
                }
            }
        }
        Ok(old)
    }

    /// Removes a base property; returns its old value.
    pub fn unset(&mut self, id: ObjId, key: Sym) -> Result<Option<Value>, StateError> {
        if key == slots::slot_key() {
            self.slot_written(id);
        }
        let old = self.object_mut(id)?.props.remove(&key);
        if old.is_some() {
            self.dirty.touch(id, key);
        }
        Ok(old)
    }

    /// Adds to a numeric base property (absent counts as 0); returns the new base value.
    pub fn add(&mut self, id: ObjId, key: Sym, amount: i64) -> Result<i64, StateError> {
        let current = match self.base(id, key) {
            None => 0,
            Some(Value::Int(i)) => *i,
            Some(Value::Float(f)) => *f as i64,
            Some(other) => {
                return Err(StateError::NotANumber {
                    obj: id,
                    key,
                    found: other.type_name(),
                })
            }
        };
        let new = current.saturating_add(amount);
        self.set(id, key, Value::Int(new))?;
        Ok(new)
    }

    /// Adds a tag; returns whether it was new.
    pub fn tag(&mut self, id: ObjId, tag: Sym) -> Result<bool, StateError> {
        let obj = self.object_mut(id)?;
        let added = obj.tags.insert(tag).is_none();
        let zone = obj.zone;
        if added {
            self.by_tag.entry(tag).or_default().insert(id);
            self.dirty.tagged_at(id, zone, tag);
        }
        Ok(added)
    }

    /// Removes a tag; returns whether it was present.
    pub fn untag(&mut self, id: ObjId, tag: Sym) -> Result<bool, StateError> {
        let obj = self.object_mut(id)?;
        let removed = obj.tags.remove(&tag).is_some();
        let zone = obj.zone;
        if removed {
            if let Some(set) = self.by_tag.get_mut(&tag) {
                set.remove(&id);
            }
            self.dirty.tagged_at(id, zone, tag);
        }
        Ok(removed)
    }

    /// Moves an object to a zone; returns the zone it left. Entering a zone restarts the
    /// object's timestamp (its class auras now apply after older ones).
    /// The object goes to the end of its owner's objects in that zone (see `slots`).
    pub fn move_to(&mut self, id: ObjId, zone: Sym) -> Result<Sym, StateError> {
        self.move_to_slot(id, zone, None)
    }

    /// Changes only the zone field (slots are kept by the caller).
    pub(super) fn move_zone(&mut self, id: ObjId, zone: Sym) -> Result<Sym, StateError> {
        let ts = self.next_timestamp();
        let obj = self.object_mut(id)?;
        let old = std::mem::replace(&mut obj.zone, zone);
        obj.timestamp = ts;
        self.sync_slot(id);
        self.dirty.structural_at(id, old);
        self.dirty.structural_at(id, zone);
        if old != zone {
            if let Some(set) = self.by_zone.get_mut(&old) {
                set.remove(&id);
            }
            self.by_zone.entry(zone).or_default().insert(id);
        }
        Ok(old)
    }

    /// Changes an object's class (a copy effect, a double-faced card turning over);
    /// returns the class it had. Its properties and tags are the caller's business.
    pub fn set_class(&mut self, id: ObjId, class: Id) -> Result<Id, StateError> {
        let obj = self.object_mut(id)?;
        let old = std::mem::replace(&mut obj.class, class);
        let zone = obj.zone;
        self.dirty.structural_at(id, zone);
        if old != class {
            if let Some(set) = self.by_class.get_mut(&old) {
                set.remove(&id);
            }
            self.by_class.entry(class).or_default().insert(id);
            self.classes_seen.insert(class);
        }
        Ok(old)
    }

    /// Changes an object's owner.
    /// The object goes to the end of its new owner's objects in its zone.
    pub fn set_owner(&mut self, id: ObjId, owner: Option<ObjId>) -> Result<(), StateError> {
        self.leave_slot(id)?;
        let obj = self.object_mut(id)?;
        obj.owner = owner;
        let zone = obj.zone;
        self.sync_slot(id);
        self.dirty.structural_at(id, zone);
        self.join_slot(id, None)
    }

    /// Attaches an object to a parent (or detaches it with `None`).
    pub fn set_parent(&mut self, id: ObjId, parent: Option<ObjId>) -> Result<(), StateError> {
        let obj = self.object_mut(id)?;
        obj.parent = parent;
        let zone = obj.zone;
        self.dirty.structural_at(id, zone);
        Ok(())
    }

    /// Schedules an event `delay` ticks from now (0 = at the next tick).
    pub fn schedule(&mut self, delay: u64, event: Event) {
        let due = self.tick.saturating_add(delay.max(1));
        let seq = self.next_timestamp();
        self.scheduled.insert((due, seq), event);
    }

    /// Number of delayed events waiting.
    pub fn scheduled_len(&self) -> usize {
        self.scheduled.len()
    }
}
