//! The world: objects, properties, tags, modifiers, aura and effect instances, the RNG, the
//! scheduler's pending events, snapshots and checksums.
//!
//! Owns every piece of game state and nothing else: it never reads files, never knows
//! about mods, and never runs rules. All collections are persistent (`imbl`'s maps, the
//! slot array a radix trie of shared nodes, `trie.rs`), so cloning a [`World`] is a cheap
//! snapshot: a command is rolled back by putting the snapshot back.

mod accounting;
mod auras;
mod changes;
mod checksum;
mod class_filter;
mod compact;
mod coords;
mod create;
mod deps;
mod dirty;
mod edits;
mod effects;
mod event;
mod id_set;
mod marks;
mod modifier;
mod queries;
mod slots;
mod stamps;
mod trie;
mod value;

use std::cell::RefCell;
use std::sync::Arc;

use imbl::{OrdMap, Vector};
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

pub use accounting::{decimal, AccountEntry, Accounting};
pub use changes::Changes;
pub(crate) use checksum::Fnv;
pub use compact::{PropMap, TagSet};
pub use coords::Coords;
pub use create::Blueprint;
pub use deps::{Deps, ScopeReads};
pub use dirty::Dirty;
pub use effects::EffectInstance;
pub use event::Event;
pub use marks::Mark;
pub use modifier::{apply, tag_in_effect, AppliedMod, AuraKey, HealthRule, Layer, MaxHealthDrop};
pub use slots::slot_key;
pub use value::{ObjId, Value};

use crate::id::IdHash;
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
    /// The world's edit count when the object or its modifiers last changed (or it was
    /// made): a step that keeps objects in some state need revisit only those edited
    /// since it last ran ([`World::edited_since`]).
    touched: u64,
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
type Index<K> = IdMap<K, id_set::IdSet>;

/// A persistent hash map over engine keys, hashed with [`IdHash`].
type IdMap<K, V> = imbl::GenericHashMap<K, V, IdHash, imbl::shared_ptr::DefaultSharedPtr>;

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
    slots: trie::Trie<Slot>,
    /// The latest edit stamp of each run of 32 slots, kept from the first mark on
    /// ([`stamps`]).
    run_stamps: Option<stamps::RunStamps>,
    free: Vector<u32>,
    by_class: Index<Id>,
    /// The classes that have had objects here (dispatch skips the others unlooked-up).
    classes_seen: class_filter::ClassFilter,
    /// Living objects by zone (an index: selections by zone need not scan every object).
    by_zone: Index<Sym>,
    /// Living objects by their own tags.
    by_tag: Index<Sym>,
    /// Objects by the tags modifiers grant them (`op = "tag"`).
    by_granted_tag: Index<Sym>,
    /// Objects by the tags modifiers remove from them (`op = "untag"`).
    by_removed_tag: Index<Sym>,
    /// Each (zone, owner) group in slot order.
    groups: IdMap<GroupKey, slots::Group>,
    /// Runtime aura instances by instance number.
    pub(crate) auras: OrdMap<u64, AuraInstance>,
    /// Runtime effect instances (given triggers) by instance number.
    pub(crate) effects: OrdMap<u64, EffectInstance>,
    /// Modifiers each aura currently produces (cache of the last recompute). Hashed:
    /// every recompute looks up each aura it lists; nothing reads it in key order.
    pub(crate) aura_results: IdMap<AuraKey, Arc<Vec<(ObjId, AppliedMod)>>>,
    /// The objects holding class auras, each with its class's place in the
    /// generation's list of classes with auras, as the last recompute after a
    /// structural change listed them; only a structural change alters it.
    pub(crate) aura_holders: Option<Arc<Vec<(ObjId, u32)>>>,
    rng: RefCell<ChaCha8Rng>,
    seed: u64,
    /// Current tick of the scheduler.
    pub(crate) tick: u64,
    clock: u64,
    /// Edits made to objects so far (each stamps its slot's `touched`).
    edits: u64,
    next_aura: u64,
    next_effect: u64,
    /// Delayed events by (due tick, sequence).
    pub(crate) scheduled: OrdMap<(u64, u64), Event>,
    pub(crate) dirty: Dirty,
    /// When each kind of change last happened, and which settle rules are quiet.
    changes: Changes,
    health: HealthRule,
    /// What the last effect pass changed, and why (not part of the checksum).
    accounting: Arc<Accounting>,
    /// When steps that keep objects in a state last finished ([`Mark`]).
    marks: OrdMap<(Id, Sym), Mark>,
}

impl World {
    /// An empty world whose RNG starts from `seed`.
    pub fn new(seed: u64) -> World {
        World {
            slots: trie::Trie::new(),
            run_stamps: None,
            free: Vector::new(),
            by_class: IdMap::with_hasher(IdHash),
            classes_seen: class_filter::ClassFilter::default(),
            by_zone: IdMap::with_hasher(IdHash),
            by_tag: IdMap::with_hasher(IdHash),
            by_granted_tag: IdMap::with_hasher(IdHash),
            by_removed_tag: IdMap::with_hasher(IdHash),
            groups: IdMap::with_hasher(IdHash),
            auras: OrdMap::new(),
            effects: OrdMap::new(),
            aura_results: IdMap::with_hasher(IdHash),
            aura_holders: None,
            rng: RefCell::new(ChaCha8Rng::seed_from_u64(seed)),
            seed,
            tick: 0,
            clock: 0,
            edits: 0,
            next_aura: 0,
            next_effect: 0,
            scheduled: OrdMap::new(),
            dirty: Dirty::default(),
            changes: Changes::default(),
            health: HealthRule::default(),
            accounting: Arc::default(),
            marks: OrdMap::new(),
        }
    }

    /// The seed the world's RNG started from.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Starts the RNG again from `seed` (a test re-seeding mid-game, as Hearthbreaker's
    /// tests call `random.seed`); the next draws are those of a world made with it.
    pub fn reseed(&mut self, seed: u64) {
        self.rng = RefCell::new(ChaCha8Rng::seed_from_u64(seed));
        self.seed = seed;
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
        if !self.effects.is_empty() {
            self.remove_effects(|e| e.holder == id);
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
        let edit = self.next_edit();
        match self.slots.get_mut(id.index as usize) {
            Some(Slot {
                generation,
                object: Some(o),
                touched,
                ..
            }) if *generation == id.generation => {
                *touched = edit;
                stamps::stamp(&mut self.run_stamps, id.index, edit);
                Ok(Arc::make_mut(o))
            }
            _ => Err(StateError::NoObject(id)),
        }
    }

    /// The next edit count, for a slot about to change.
    fn next_edit(&mut self) -> u64 {
        self.edits += 1;
        self.edits
    }

    /// The world's edit count: every change to an object's properties, tags, zone,
    /// owner, parent or modifiers, and every creation, raises it. Compare with
    /// [`World::edited_since`].
    pub fn edit_count(&self) -> u64 {
        self.edits
    }

    /// Whether the living object `id` was made, or it or its modifiers changed, after the
    /// edit count was `count` (a stale id: `false`, there is nothing to revisit).
    pub fn edited_since(&self, id: ObjId, count: u64) -> bool {
        self.edit_stamp(id).is_some_and(|stamp| stamp > count)
    }

    /// The world's edit count when the living object `id` was made or it or its
    /// modifiers last changed (`None`: no such object).
    pub fn edit_stamp(&self, id: ObjId) -> Option<u64> {
        match self.slots.get(id.index as usize) {
            Some(s) if s.generation == id.generation && s.object.is_some() => Some(s.touched),
            _ => None,
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
        let edit = self.next_edit();
        if let Some(s) = self.slots.get_mut(id.index as usize) {
            if s.generation == id.generation && s.object.is_some() {
                s.touched = edit;
                s.mods = mods;
                stamps::stamp(&mut self.run_stamps, id.index, edit);
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
}

#[cfg(test)]
mod tests;

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
