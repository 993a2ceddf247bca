//! The world: objects, properties, tags, modifiers, aura instances, the RNG, the
//! scheduler's pending events, snapshots and checksums.
//!
//! Owns every piece of game state and nothing else: it never reads files, never knows
//! about mods, and never runs rules. All collections are persistent (`imbl`), so cloning a
//! [`World`] is a cheap snapshot: a command is rolled back by putting the snapshot back.

mod auras;
mod changes;
mod checksum;
mod compact;
mod create;
mod coords;
mod deps;
mod dirty;
mod event;
mod modifier;
mod slots;
mod value;

use std::cell::RefCell;
use std::sync::Arc;

use imbl::{OrdMap, OrdSet, Vector};
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

pub use changes::Changes;
pub(crate) use checksum::Fnv;
pub use compact::{PropMap, TagSet};
pub use create::Blueprint;
pub use coords::Coords;
pub use deps::Deps;
pub use dirty::Dirty;
pub use event::Event;
pub use modifier::{apply, AppliedMod, AuraKey, HealthRule, Layer, MaxHealthDrop};
pub use slots::slot_key;
pub use value::{ObjId, Value};

use crate::id::{Id, Sym};

/// One game thing: card, minion, player, planet, ability instance.
#[derive(Debug, Clone, PartialEq)]
pub struct Object {
    /// The definition it was created from.
    pub class: Id,
    /// The controlling player object, if any.
    pub owner: Option<ObjId>,
    /// The zone it is in (`board`, `hand`, `graveyard`, ...).
    pub zone: Sym,
    /// What it is attached to (building → planet → system).
    pub parent: Option<ObjId>,
    /// Base property values (before modifiers).
    pub props: PropMap,
    /// Tags.
    pub tags: TagSet,
    /// When it entered its current zone (orders its class auras' modifiers).
    pub timestamp: u64,
}

#[derive(Debug, Clone, PartialEq)]
struct Slot {
    generation: u32,
    /// The object's zone and owner, kept beside it so selections that filter on them
    /// read the slot array, not each object behind its pointer (a cache miss apiece
    /// over 100k objects).
    zone: Sym,
    owner: Option<ObjId>,
    /// The modifiers in effect on the object (kept in its slot: every effective read
    /// needs them, and a separate map cost a tree look-up per read).
    mods: Option<Arc<Vec<AppliedMod>>>,
    object: Option<Arc<Object>>,
}

/// An aura given to an object at runtime (`give_aura`), as opposed to a class aura.
#[derive(Debug, Clone, PartialEq)]
pub struct AuraInstance {
    /// The aura definition.
    pub def: Id,
    /// The object holding it (`self` for the aura's selector and conditions).
    pub holder: ObjId,
    /// The object that gave it, if any.
    pub source: Option<ObjId>,
    /// When it was given.
    pub timestamp: u64,
    /// The zone the holder was in when it was given.
    pub zone: Sym,
    /// The modifiers' values, when they were fixed as it was given (`give_aura` with
    /// `freeze`): "+X attack, X as it was then". `None`: evaluated live.
    pub frozen: Option<Arc<[f64]>>,
}

/// Errors from world operations (stale ids and the like). Never a panic.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum StateError {
    /// The id names no living object (removed, or from another world).
    #[error("object {0} does not exist (it was removed, or the id is stale)")]
    NoObject(ObjId),
    /// A property holds a value of the wrong type for the operation.
    #[error("property `{key}` of object {obj} is {found}, expected a number")]
    NotANumber {
        /// The object.
        obj: ObjId,
        /// The property.
        key: Sym,
        /// The type found.
        found: &'static str,
    },
}

/// An index from a key (class, zone, tag) to the living objects it names, in id order.
type Index<K> = IdMap<K, OrdSet<ObjId>>;

/// A persistent hash map over engine keys, hashed with [`IdHash`].
type IdMap<K, V> = imbl::GenericHashMap<K, V, IdHash, imbl::shared_ptr::DefaultSharedPtr>;

/// Hashes the world's index keys: interned symbols (hashed by address), object ids and
/// small tuples of them. Keys come from the engine, never from players, so a fast
/// multiply-fold beats SipHash's flood resistance (SipHash was ~5% of a game).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct IdHash;

impl std::hash::BuildHasher for IdHash {
    type Hasher = IdHasher;
    fn build_hasher(&self) -> IdHasher {
        IdHasher(0)
    }
}

/// The hasher of [`IdHash`].
#[derive(Debug, Default)]
pub(crate) struct IdHasher(u64);

impl std::hash::Hasher for IdHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }
    fn write_u64(&mut self, n: u64) {
        // Fold, then mix so low bits (aligned addresses end in zeros) vary too.
        let x = (self.0.rotate_left(5) ^ n).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        self.0 = x ^ (x >> 29);
    }
    fn write_u32(&mut self, n: u32) {
        self.write_u64(u64::from(n));
    }
    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

/// The objects sharing an owner in a zone (a player's board, hand, deck), in slot order.
type GroupKey = (Sym, Option<ObjId>);

/// The read-only property `timestamp`: when an object entered its current zone (later
/// is larger), unless content gives it a `timestamp` property of its own.
pub fn timestamp_key() -> Sym {
    static KEY: std::sync::OnceLock<Sym> = std::sync::OnceLock::new();
    *KEY.get_or_init(|| Sym::new("timestamp"))
}

/// The world as it was at one moment, kept by an event for last-known information
/// (what a destroyed object looked like before it left). Cheap: the world's maps are
/// shared, not copied. Two snapshots are equal only if they are the same one. (Behind a
/// mutex only so that events, and worlds holding them, stay `Send`: the world's RNG cell
/// is not `Sync`.)
#[derive(Clone)]
pub struct Snapshot(Arc<std::sync::Mutex<World>>);

impl Snapshot {
    /// Takes a snapshot of `world`.
    pub fn of(world: &World) -> Snapshot {
        Snapshot(Arc::new(std::sync::Mutex::new(world.clone())))
    }

    /// Reads the world as it was.
    pub fn read<R>(&self, f: impl FnOnce(&World) -> R) -> R {
        f(&self.0.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

impl PartialEq for Snapshot {
    fn eq(&self, other: &Snapshot) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl std::fmt::Debug for Snapshot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Snapshot(..)")
    }
}

/// The whole game state. Cloning is cheap (structural sharing) and is how snapshots work.
///
/// Indexes (all persistent, so snapshots stay O(1)): objects by class, by zone, by own
/// tag and by tag granted through a modifier, and each (zone, owner) group in slot order.
/// Keys are interned symbols hashed by identity, so a look-up never compares text.
#[derive(Debug, Clone)]
pub struct World {
    slots: Vector<Slot>,
    free: Vector<u32>,
    by_class: Index<Id>,
    /// Living objects by zone (an index: selections by zone need not scan every object).
    by_zone: Index<Sym>,
    /// Living objects by their own tags.
    by_tag: Index<Sym>,
    /// Objects by the tags modifiers grant them (`op = "tag"`).
    by_granted_tag: Index<Sym>,
    /// Each (zone, owner) group in slot order.
    groups: IdMap<GroupKey, slots::Group>,
    /// Runtime aura instances by instance number.
    pub(crate) auras: OrdMap<u64, AuraInstance>,
    /// Modifiers each aura currently produces (cache of the last recompute).
    pub(crate) aura_results: OrdMap<AuraKey, Arc<Vec<(ObjId, AppliedMod)>>>,
    /// The objects holding class auras, each with its class's place in the
    /// generation's list of classes with auras, as the last recompute after a
    /// structural change listed them; only a structural change alters it.
    pub(crate) aura_holders: Option<Arc<Vec<(ObjId, u32)>>>,
    rng: RefCell<ChaCha8Rng>,
    seed: u64,
    /// Current tick of the scheduler.
    pub(crate) tick: u64,
    clock: u64,
    next_aura: u64,
    /// Delayed events by (due tick, sequence).
    pub(crate) scheduled: OrdMap<(u64, u64), Event>,
    pub(crate) dirty: Dirty,
    /// When each kind of change last happened, and which settle rules are quiet.
    changes: Changes,
    health: HealthRule,
}

impl World {
    /// An empty world whose RNG starts from `seed`.
    pub fn new(seed: u64) -> World {
        World {
            slots: Vector::new(),
            free: Vector::new(),
            by_class: IdMap::with_hasher(IdHash),
            by_zone: IdMap::with_hasher(IdHash),
            by_tag: IdMap::with_hasher(IdHash),
            by_granted_tag: IdMap::with_hasher(IdHash),
            groups: IdMap::with_hasher(IdHash),
            auras: OrdMap::new(),
            aura_results: OrdMap::new(),
            aura_holders: None,
            rng: RefCell::new(ChaCha8Rng::seed_from_u64(seed)),
            seed,
            tick: 0,
            clock: 0,
            next_aura: 0,
            scheduled: OrdMap::new(),
            dirty: Dirty::default(),
            changes: Changes::default(),
            health: HealthRule::default(),
        }
    }

    /// The seed the world's RNG started from.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The health rule in force.
    pub fn health_rule(&self) -> &HealthRule {
        &self.health
    }

    /// Marks everything changed, so every aura is recomputed (after a generation swap).
    pub fn mark_all_dirty(&mut self) {
        self.dirty.structural = true;
        self.dirty.other = true;
        self.dirty.anywhere = true;
        // The settle rules may have changed too: each selects again.
        self.changes.forget_quiet();
    }

    /// Takes what changed since the last call (aura recompute's input), recording it
    /// in the world's [`Changes`] first.
    pub fn take_dirty(&mut self) -> Dirty {
        self.changes.fold(&self.dirty, &self.health);
        std::mem::take(&mut self.dirty)
    }

    /// Whether settle rule `rule` (its place in the generation's list), reading `deps`,
    /// may be skipped: its last selection found nothing and nothing it reads changed
    /// since.
    pub fn rule_quiet(&self, rule: usize, deps: &Deps) -> bool {
        self.changes.quiet(rule, deps, &self.dirty, &self.health)
    }

    /// Records whether settle rule `rule`'s selection, reading `deps`, just found
    /// nothing (`Some`) or found something (`None`).
    pub fn set_rule_quiet(&mut self, rule: usize, deps: Option<&Deps>) {
        self.changes.set_quiet(rule, deps);
    }

    /// Sets the health rule (done once, from the rules mod's `[world]` table).
    pub fn set_health_rule(&mut self, rule: HealthRule) {
        self.health = rule;
    }

    /// The scheduler's current tick.
    pub fn tick(&self) -> u64 {
        self.tick
    }

    /// A fresh, strictly increasing timestamp.
    pub fn next_timestamp(&mut self) -> u64 {
        self.clock += 1;
        self.clock
    }

    /// A uniformly random integer in `lo..=hi` from the world's seeded RNG.
    /// Reading through `&World` is deliberate: conditions and selectors may roll dice.
    pub fn random_range(&self, lo: i64, hi: i64) -> i64 {
        if hi <= lo {
            return lo;
        }
        let span = hi.abs_diff(lo).saturating_add(1);
        let r = self.rng.borrow_mut().next_u64();
        // Lemire-free simple modulo; bias is negligible for game-sized spans.
        lo.wrapping_add_unsigned(r % span)
    }

    /// Removes an object entirely (its slot may be reused with a new generation).
    pub fn remove(&mut self, id: ObjId) -> Result<Arc<Object>, StateError> {
        self.leave_slot(id)?;
        let obj = self.object(id)?.clone();
        if let Some(set) = self.by_class.get_mut(&obj.class) {
            set.remove(&id);
        }
        if let Some(set) = self.by_zone.get_mut(&obj.zone) {
            set.remove(&id);
        }
        for t in &obj.tags {
            if let Some(set) = self.by_tag.get_mut(t) {
                set.remove(&id);
            }
        }
        self.set_modifiers(id, Vec::new());
        self.slots[id.index as usize].object = None;
        self.free.push_back(id.index);
        let gone: Vec<u64> = self
            .auras
            .iter()
            .filter(|(_, a)| a.holder == id)
            .map(|(k, _)| *k)
            .collect();
        for k in gone {
            self.auras.remove(&k);
        }
        self.dirty.structural_at(id, obj.zone);
        Ok(obj)
    }

    /// Whether `id` names a living object.
    pub fn exists(&self, id: ObjId) -> bool {
        self.object(id).is_ok()
    }

    /// The object named by `id`.
    pub fn object(&self, id: ObjId) -> Result<&Arc<Object>, StateError> {
        match self.slots.get(id.index as usize) {
            Some(Slot {
                generation,
                object: Some(o),
                ..
            }) if *generation == id.generation => Ok(o),
            _ => Err(StateError::NoObject(id)),
        }
    }

    fn object_mut(&mut self, id: ObjId) -> Result<&mut Object, StateError> {
        match self.slots.get_mut(id.index as usize) {
            Some(Slot {
                generation,
                object: Some(o),
                ..
            }) if *generation == id.generation => Ok(Arc::make_mut(o)),
            _ => Err(StateError::NoObject(id)),
        }
    }

    /// An object's zone and owner, read without touching the object itself.
    pub fn zone_and_owner(&self, id: ObjId) -> Option<(Sym, Option<ObjId>)> {
        match self.slots.get(id.index as usize) {
            Some(s) if s.generation == id.generation && s.object.is_some() => {
                Some((s.zone, s.owner))
            }
            _ => None,
        }
    }

    /// A living object and the modifiers in effect on it, from one slot look-up.
    fn living(&self, id: ObjId) -> Option<(&Object, Option<&Arc<Vec<AppliedMod>>>)> {
        match self.slots.get(id.index as usize) {
            Some(Slot {
                generation,
                object: Some(o),
                mods,
                ..
            }) if *generation == id.generation => Some((o, mods.as_ref())),
            _ => None,
        }
    }

    /// The modifiers in effect on a living object, if any.
    pub(crate) fn applied(&self, id: ObjId) -> Option<&Arc<Vec<AppliedMod>>> {
        match self.slots.get(id.index as usize) {
            Some(s) if s.generation == id.generation && s.object.is_some() => s.mods.as_ref(),
            _ => None,
        }
    }

    /// Stores the modifiers in effect on a living object (`None`: none).
    pub(crate) fn store_applied(&mut self, id: ObjId, mods: Option<Arc<Vec<AppliedMod>>>) {
        if let Some(s) = self.slots.get_mut(id.index as usize) {
            if s.generation == id.generation && s.object.is_some() {
                s.mods = mods;
            }
        }
    }

    /// Keeps the slot's copy of zone and owner in step with the object.
    fn sync_slot(&mut self, id: ObjId) {
        if let Ok(o) = self.object(id) {
            let (zone, owner) = (o.zone, o.owner);
            if let Some(s) = self.slots.get_mut(id.index as usize) {
                s.zone = zone;
                s.owner = owner;
            }
        }
    }

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
    pub fn objects_of_class_into<const N: usize>(
        &self,
        class: Id,
        out: &mut smallvec::SmallVec<[ObjId; N]>,
    ) {
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

    /// The objects with a tag, their own or granted by a modifier, in id order.
    pub fn objects_tagged(&self, tag: Sym) -> impl Iterator<Item = ObjId> + '_ {
        let own = self.by_tag.get(&tag);
        let granted = self.by_granted_tag.get(&tag);
        let merged: Box<dyn Iterator<Item = ObjId> + '_> = match (own, granted) {
            (Some(a), Some(b)) if !b.is_empty() => {
                let mut v: Vec<ObjId> = a.iter().chain(b.iter()).copied().collect();
                v.sort_unstable();
                v.dedup();
                Box::new(v.into_iter())
            }
            (Some(a), _) => Box::new(a.iter().copied()),
            (None, Some(b)) => Box::new(b.iter().copied()),
            (None, None) => Box::new(std::iter::empty()),
        };
        merged
    }

    /// How many objects a tag could name (own and granted; an upper bound, cheap).
    pub fn tagged_len(&self, tag: Sym) -> usize {
        self.by_tag.get(&tag).map_or(0, OrdSet::len)
            + self.by_granted_tag.get(&tag).map_or(0, OrdSet::len)
    }

    /// How many objects a zone holds.
    pub fn zone_len(&self, zone: Sym) -> usize {
        self.by_zone.get(&zone).map_or(0, OrdSet::len)
    }

    /// Number of living objects.
    pub fn len(&self) -> usize {
        self.by_class.values().map(OrdSet::len).sum()
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

    /// Whether the object has the tag.
    pub fn has_tag(&self, id: ObjId, tag: Sym) -> bool {
        self.living(id).is_some_and(|(o, mods)| {
            o.tags.contains(&tag)
                || mods.is_some_and(|mods| {
                    mods.iter()
                        .any(|m| m.key == tag && m.layer == modifier::Layer::Tag)
                })
        })
    }

    /// Whether `o` (the object `id`) has `tag`: its own tags, or one granted by a
    /// modifier of an aura (`op = "tag"`).
    pub fn object_has_tag(&self, id: ObjId, o: &Object, tag: Sym) -> bool {
        o.tags.contains(&tag)
            || self.applied(id).is_some_and(|mods| {
                mods.iter()
                    .any(|m| m.key == tag && m.layer == modifier::Layer::Tag)
            })
    }

    /// Moves an object to a zone; returns the zone it left. Entering a zone restarts the
    /// object's timestamp (its class auras now apply after older ones).
    /// The object goes to the end of its owner's objects in that zone (see `slots`).
    pub fn move_to(&mut self, id: ObjId, zone: Sym) -> Result<Sym, StateError> {
        self.move_to_slot(id, zone, None)
    }

    /// Changes only the zone field (slots are kept by the caller).
    fn move_zone(&mut self, id: ObjId, zone: Sym) -> Result<Sym, StateError> {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn class() -> Id {
        Id::parse("test:class/thing").unwrap()
    }

    #[test]
    fn dirty_tells_tag_only_changes_apart() {
        let (o, zone) = (ObjId { index: 1, generation: 0 }, Sym::new("board"));
        let (soldier, silence) = (Sym::new("soldier"), Sym::new("silenced"));
        let mut d = Dirty::default();
        assert!(!d.tags_only(None), "nothing changed");
        d.tagged_at(o, zone, soldier);
        assert!(d.structural && d.tags_only(Some(silence)));
        assert_eq!(d.tags.as_slice(), &[soldier]);
        d.tagged_at(o, zone, silence);
        assert!(!d.tags_only(Some(silence)), "silence switches auras off");
        let mut d = Dirty::default();
        d.tagged_at(o, zone, soldier);
        d.structural_at(o, zone);
        assert!(!d.tags_only(None), "a move is not a tag change");
        let mut w = World::new(1);
        let a = w.create(class(), None, zone);
        w.take_dirty();
        w.tag(a, soldier).expect("tag");
        assert!(w.dirty.tags_only(None));
        w.mark_all_dirty();
        assert!(!w.dirty.tags_only(None));
    }

    #[test]
    fn generational_ids_do_not_alias_reused_slots() {
        let mut w = World::new(1);
        let a = w.create(class(), None, Sym::new("board"));
        w.remove(a).unwrap();
        let b = w.create(class(), None, Sym::new("board"));
        assert_eq!(a.index, b.index);
        assert_ne!(a, b);
        assert!(!w.exists(a));
        assert!(w.exists(b));
        assert_eq!(
            w.set(a, Sym::new("x"), Value::Int(1)),
            Err(StateError::NoObject(a))
        );
    }

    #[test]
    fn snapshots_are_independent() {
        let mut w = World::new(1);
        let a = w.create(class(), None, Sym::new("board"));
        w.set(a, Sym::new("attack"), Value::Int(2)).unwrap();
        let snap = w.clone();
        let sum = w.checksum();
        w.set(a, Sym::new("attack"), Value::Int(5)).unwrap();
        w.tag(a, Sym::new("frozen")).unwrap();
        assert_ne!(w.checksum(), sum);
        assert_eq!(snap.get_int(a, Sym::new("attack")), 2);
        assert_eq!(snap.checksum(), sum);
    }

    #[test]
    fn health_is_max_health_minus_damage() {
        let mut w = World::new(1);
        let a = w.create(class(), None, Sym::new("board"));
        w.set(a, Sym::new("max_health"), Value::Int(5)).unwrap();
        assert_eq!(w.get_int(a, Sym::new("health")), 5);
        w.add(a, Sym::new("damage"), 3).unwrap();
        assert_eq!(w.get_int(a, Sym::new("health")), 2);
        let plain = w.create(class(), None, Sym::new("board"));
        assert_eq!(w.get_number(plain, Sym::new("health")), None);
    }

    #[test]
    fn inherited_lookups_walk_the_attachment_chain() {
        let mut w = World::new(1);
        let system = w.create(class(), None, Sym::new("space"));
        let planet = w.create(class(), None, Sym::new("space"));
        let building = w.create(class(), None, Sym::new("space"));
        w.set_parent(planet, Some(system)).unwrap();
        w.set_parent(building, Some(planet)).unwrap();
        w.set(system, Sym::new("star"), Value::Int(3)).unwrap();
        assert_eq!(w.get_inherited(building, Sym::new("star")), Some(3.0));
        assert_eq!(w.get_number(building, Sym::new("star")), None);
    }

    #[test]
    fn index_hash_spreads_aligned_keys_over_low_bits() {
        use std::hash::BuildHasher;
        // Interned symbols hash by address: 16-byte aligned, so their low bits are zero.
        let low5 = |n: u64| IdHash.hash_one(n * 16) & 31;
        let buckets: std::collections::BTreeSet<u64> = (1..256).map(low5).collect();
        assert_eq!(
            buckets.len(),
            32,
            "every bucket of the trie's first level is used"
        );
        let key = |o: ObjId| IdHash.hash_one((Sym::new("board"), Some(o)));
        let a = ObjId {
            index: 1,
            generation: 0,
        };
        let b = ObjId {
            index: 2,
            generation: 0,
        };
        assert_ne!(key(a), key(b));
    }

    #[test]
    fn rng_is_reproducible_from_the_seed() {
        let a = World::new(42);
        let b = World::new(42);
        let ra: Vec<_> = (0..10).map(|_| a.random_range(1, 6)).collect();
        let rb: Vec<_> = (0..10).map(|_| b.random_range(1, 6)).collect();
        assert_eq!(ra, rb);
        assert!(ra.iter().all(|r| (1..=6).contains(r)));
    }

    #[test]
    fn adding_to_text_is_an_error_not_a_panic() {
        let mut w = World::new(1);
        let a = w.create(class(), None, Sym::new("board"));
        w.set(a, Sym::new("name"), Value::Text("x".into())).unwrap();
        assert!(matches!(
            w.add(a, Sym::new("name"), 1),
            Err(StateError::NotANumber { .. })
        ));
    }
}

/// Worlds move between threads (a server's worker pool): they, and the events they hold,
/// must stay `Send`.
#[cfg(test)]
mod send_check {
    fn is_send<T: Send>() {}

    #[test]
    fn worlds_and_events_are_send() {
        is_send::<super::World>();
        is_send::<super::Event>();
        is_send::<super::Snapshot>();
    }
}
