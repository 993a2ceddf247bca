//! Creating objects: one at a time, with properties and tags given as lists, or from a
//! [`Blueprint`] (a class's starting properties and tags, sorted once, copied into each
//! new object).
//!
//! Owns the steps of creation (slot, indexes, change records); what a class starts with
//! is the rules' business, handed over as a blueprint.

use std::sync::Arc;

use super::{slots, HealthRule, ObjId, Object, PropMap, Slot, StateError, TagSet, Value, World};
use crate::id::{Id, Sym};

/// Starting properties and tags prepared for creating many objects alike: the same
/// world, events-to-be and change records as [`World::create_with`] with the lists it
/// was made from, without building the object's maps entry by entry each time.
#[derive(Debug, Clone)]
pub struct Blueprint {
    /// The properties as given, in order.
    props: Vec<(Sym, Value)>,
    /// The tags as given, in order.
    tags: Vec<Sym>,
    /// The health rule's (damage, maximum) keys the split below was made for.
    health_keys: (Sym, Sym),
    /// Properties written with the object (no side effects on others).
    direct: PropMap,
    /// Keys whose change is recorded after creation, in order (each direct key, the
    /// derived health after the maximum).
    touched: Vec<Sym>,
    /// Properties written one by one after creation (`slot`, the damage counter).
    later: Vec<(Sym, Value)>,
    /// The tags as a set.
    tag_set: TagSet,
    /// The health rule reads damage when the maximum is written: every property is
    /// written one by one, in order.
    ordered: bool,
}

impl Blueprint {
    /// Prepares `props` and `tags` for a world whose health rule is `health`.
    pub fn new(props: Vec<(Sym, Value)>, tags: Vec<Sym>, health: &HealthRule) -> Blueprint {
        let (damage_key, max_key) = (health.damage_key, health.max_key);
        let (direct, later): (Vec<_>, Vec<_>) = props
            .iter()
            .cloned()
            .partition(|(k, _)| *k != slots::slot_key() && *k != damage_key);
        let ordered = !later.is_empty() && direct.iter().any(|(k, _)| *k == max_key);
        let mut touched = Vec::with_capacity(direct.len() + 1);
        for (k, _) in &direct {
            touched.push(*k);
            if *k == max_key {
                touched.push(health.health_key);
            }
        }
        Blueprint {
            tag_set: tags.iter().copied().collect(),
            direct: direct.into_iter().collect(),
            touched,
            later,
            props,
            tags,
            health_keys: (damage_key, max_key),
            ordered,
        }
    }

    /// The properties as given.
    pub fn props(&self) -> &[(Sym, Value)] {
        &self.props
    }

    /// The tags as given.
    pub fn tags(&self) -> &[Sym] {
        &self.tags
    }
}

impl World {
    /// Creates an object and returns its id. Emits nothing: events are the rules' job.
    pub fn create(&mut self, class: Id, owner: Option<ObjId>, zone: Sym) -> ObjId {
        self.create_object(class, owner, zone, PropMap::new(), TagSet::new())
    }

    /// Creates an object with its base properties and own tags in one step: the same
    /// world, events-to-be and change records as [`World::create`] followed by
    /// [`World::set`] of each property in order and [`World::tag`] of each tag, without
    /// writing the object once per entry. Properties whose writes have side effects on
    /// others (`slot`, the health rule's damage) are written one by one.
    pub fn create_with(
        &mut self,
        class: Id,
        owner: Option<ObjId>,
        zone: Sym,
        props: &[(Sym, Value)],
        tags: &[Sym],
    ) -> Result<ObjId, StateError> {
        let bp = Blueprint::new(props.to_vec(), tags.to_vec(), &self.health);
        self.create_from(class, owner, zone, &bp)
    }

    /// Creates an object from a blueprint: the same as [`World::create_with`] with the
    /// blueprint's lists (made again if the world's health rule names other keys).
    pub fn create_from(
        &mut self,
        class: Id,
        owner: Option<ObjId>,
        zone: Sym,
        bp: &Blueprint,
    ) -> Result<ObjId, StateError> {
        if bp.health_keys != (self.health.damage_key, self.health.max_key) {
            let fresh = Blueprint::new(bp.props.clone(), bp.tags.clone(), &self.health);
            return self.create_from(class, owner, zone, &fresh);
        }
        if bp.ordered {
            let id = self.create(class, owner, zone);
            for (k, v) in &bp.props {
                self.set(id, *k, v.clone())?;
            }
            for t in &bp.tags {
                self.tag(id, *t)?;
            }
            return Ok(id);
        }
        let id = self.create_object(class, owner, zone, bp.direct.clone(), bp.tag_set.clone());
        for k in &bp.touched {
            self.dirty.touch(id, *k);
        }
        for (k, v) in &bp.later {
            self.set(id, *k, v.clone())?;
        }
        for t in &bp.tags {
            self.by_tag.entry(*t).or_default().insert(id);
        }
        Ok(id)
    }

    pub(super) fn create_object(
        &mut self,
        class: Id,
        owner: Option<ObjId>,
        zone: Sym,
        mut props: PropMap,
        tags: TagSet,
    ) -> ObjId {
        // A fresh object is the last of its owner's objects in its zone: in a group kept
        // in order its slot is the group's size, written with the object (no second
        // write through the slot array, no taking the group out of its index).
        let end_slot = self.end_slot(zone, owner);
        if let Some(slot) = end_slot {
            props.reserve_exact(1);
            props.insert(slots::slot_key(), Value::Int(slot));
        }
        let timestamp = self.next_timestamp();
        let touched = self.next_edit();
        let object = Arc::new(Object {
            class,
            owner,
            zone,
            parent: None,
            props,
            tags,
            timestamp,
        });
        let id = if let Some(index) = self.free.pop_front() {
            let slot = &mut self.slots[index as usize];
            slot.generation = slot.generation.wrapping_add(1);
            slot.zone = zone;
            slot.owner = owner;
            slot.mods = None;
            slot.touched = touched;
            slot.object = Some(object);
            super::stamps::stamp(&mut self.run_stamps, index, touched);
            ObjId {
                index,
                generation: slot.generation,
            }
        } else {
            let index = u32::try_from(self.slots.len()).unwrap_or(u32::MAX);
            self.slots.push_back(Slot {
                generation: 0,
                zone,
                owner,
                mods: None,
                touched,
                object: Some(object),
            });
            super::stamps::stamp(&mut self.run_stamps, index, touched);
            ObjId {
                index,
                generation: 0,
            }
        };
        self.by_class.entry(class).or_default().insert(id);
        self.classes_seen.insert(class);
        self.by_zone.entry(zone).or_default().insert(id);
        self.dirty.structural_at(id, zone);
        if end_slot.is_some() {
            self.append_to_group(id, zone, owner);
        } else {
            let _ = self.join_slot(id, None);
        }
        id
    }
}
