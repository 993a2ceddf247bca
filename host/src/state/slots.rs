//! Order within a zone: every object has a `slot`, its 0-based position among the objects
//! with the same owner in the same zone (a player's board, hand or deck).
//!
//! The world keeps slots dense and in order: an object entering a zone goes to the end
//! (or to a given slot, shifting the ones after it right); an object leaving a zone closes
//! the gap. `slot` is an ordinary base property, so content reads it as `self.slot`, and
//! auras that read it recompute when neighbours come and go. An object that leaves a zone
//! takes a slot in its new zone (a destroyed minion has a graveyard slot); it remembers
//! where it stood in `left_slot`, and `destroyed` and `moved` events carry that slot as
//! `event.slot` (a deathrattle summons into its holder's position with
//! `slot = "event.slot"` or `slot = "self.left_slot"`).
//!
//! Each (zone, owner) group is indexed in slot order, so joining at the end is O(log n)
//! and leaving or joining in the middle costs the objects whose slot changes. Content
//! (a plugin swapping two minions) may write `slot` itself; its group is then no longer
//! known to be in order, and is handled by reading every member's `slot` (the same
//! arithmetic, over the group only) until its slots are dense again.

use imbl::Vector;

use super::{GroupKey, ObjId, StateError, Value, World};
use crate::id::Sym;

/// The objects of one (zone, owner) group.
#[derive(Debug, Clone)]
pub(super) struct Group {
    /// The members; in slot order while `ordered`.
    members: Vector<ObjId>,
    /// Whether every member's slot is its index in `members` (false once content wrote
    /// a slot itself, until the slots are dense again).
    ordered: bool,
}

impl Default for Group {
    fn default() -> Self {
        Group {
            members: Vector::new(),
            ordered: true,
        }
    }
}

/// The property that holds an object's position in its zone.
pub fn slot_key() -> Sym {
    static KEY: std::sync::OnceLock<Sym> = std::sync::OnceLock::new();
    *KEY.get_or_init(|| Sym::new("slot"))
}

/// The property that holds the slot an object had in the zone it last left.
pub fn left_slot_key() -> Sym {
    static KEY: std::sync::OnceLock<Sym> = std::sync::OnceLock::new();
    *KEY.get_or_init(|| Sym::new("left_slot"))
}

impl World {
    /// An object's slot in its zone (0 = first).
    pub fn slot(&self, id: ObjId) -> i64 {
        self.get_int(id, slot_key())
    }

    /// How many objects `owner` has in `zone` (its group's size).
    pub fn group_len(&self, zone: Sym, owner: Option<ObjId>) -> usize {
        self.groups
            .get(&(zone, owner))
            .map_or(0, |g| g.members.len())
    }

    /// The objects an owner has in a zone, in id order (a copy: the group is small
    /// beside its zone).
    pub fn group_members(&self, zone: Sym, owner: Option<ObjId>) -> Vec<ObjId> {
        let mut out: Vec<ObjId> = self
            .groups
            .get(&(zone, owner))
            .map(|g| g.members.iter().copied().collect())
            .unwrap_or_default();
        out.sort_unstable();
        out
    }

    /// The key of the group `id` belongs to: its zone and owner.
    fn group_key(&self, id: ObjId) -> Result<(Sym, Option<ObjId>), StateError> {
        let me = self.object(id)?;
        Ok((me.zone, me.owner))
    }

    /// Content wrote `id`'s slot: its group's order is no longer known.
    pub(super) fn slot_written(&mut self, id: ObjId) {
        if let Ok(key) = self.group_key(id) {
            if let Some(g) = self.groups.get_mut(&key) {
                g.ordered = false;
            }
        }
    }

    /// Writes a slot the group's order decided (not content's write).
    fn put_slot(&mut self, id: ObjId, slot: i64) -> Result<(), StateError> {
        let obj = self.object_mut(id)?;
        obj.props.insert(slot_key(), Value::Int(slot));
        self.dirty.touch(id, slot_key());
        Ok(())
    }

    /// Writes each member's position, from index `from` on, as its `slot`.
    fn renumber(&mut self, members: &Vector<ObjId>, from: usize) -> Result<(), StateError> {
        // By index: skipping through an iterator would walk the members before `from`.
        for i in from..members.len() {
            self.put_slot(members[i], i64::try_from(i).unwrap_or(i64::MAX))?;
        }
        Ok(())
    }

    /// A member's base slot (0 when unset).
    fn base_slot(&self, id: ObjId) -> i64 {
        match self.base(id, slot_key()) {
            Some(Value::Int(i)) => *i,
            _ => 0,
        }
    }

    /// Shifts by `delta` the base slot of every other member whose slot passes `test`,
    /// reading the slots themselves (a group content has reordered).
    fn shift_unordered(
        &mut self,
        members: &Vector<ObjId>,
        id: ObjId,
        delta: i64,
        test: impl Fn(i64) -> bool,
    ) -> Result<(), StateError> {
        for &o in members.iter().filter(|&&o| o != id) {
            let s = self.base_slot(o);
            if test(s) {
                self.put_slot(o, s + delta)?;
            }
        }
        Ok(())
    }

    /// Stores a group after a change; an unordered group is sorted by slot again, and
    /// counts as ordered once its slots are dense.
    fn store_group(&mut self, key: GroupKey, mut group: Group) {
        if group.members.is_empty() {
            self.groups.remove(&key);
            return;
        }
        if !group.ordered {
            let mut v: Vec<(i64, ObjId)> = group
                .members
                .iter()
                .map(|&o| (self.base_slot(o), o))
                .collect();
            v.sort_unstable();
            group.ordered = v
                .iter()
                .enumerate()
                .all(|(i, (s, _))| usize::try_from(*s) == Ok(i));
            group.members = v.into_iter().map(|(_, o)| o).collect();
        }
        self.groups.insert(key, group);
    }

    /// Takes `id` out of its group's order: the objects after it move one slot left, and
    /// `left_slot` records where it stood.
    pub(crate) fn leave_slot(&mut self, id: ObjId) -> Result<(), StateError> {
        let mine = self.slot(id);
        let key = self.group_key(id)?;
        // Taken out of the index while it changes (here and in `join_slot`): its members
        // are then shared with no one but a snapshot, and change in place instead of
        // copying the chunk they are in (a clone from the index copied it on every join:
        // creating 100k objects in one zone took 22% longer).
        if let Some(mut group) = self.groups.remove(&key) {
            match group.members.index_of(&id) {
                Some(at) => {
                    group.members.remove(at);
                    let shifted = if group.ordered {
                        self.renumber(&group.members, at)
                    } else {
                        self.shift_unordered(&group.members, id, -1, |s| s > mine)
                    };
                    self.store_group(key, group);
                    shifted?;
                }
                None => {
                    self.groups.insert(key, group);
                }
            }
        }
        self.set(id, left_slot_key(), Value::Int(mine))?;
        Ok(())
    }

    /// The slot an object joining (zone, owner) at the end takes, when the group is kept
    /// in order (its size); `None` when content reordered it.
    pub(super) fn end_slot(&self, zone: Sym, owner: Option<ObjId>) -> Option<i64> {
        match self.groups.get(&(zone, owner)) {
            None => Some(0),
            Some(g) if g.ordered => Some(i64::try_from(g.members.len()).unwrap_or(i64::MAX)),
            Some(_) => None,
        }
    }

    /// Appends a fresh object whose `slot` already holds [`World::end_slot`] to its
    /// ordered group: the same world as [`World::join_slot`] at the end.
    pub(super) fn append_to_group(&mut self, id: ObjId, zone: Sym, owner: Option<ObjId>) {
        self.groups
            .entry((zone, owner))
            .or_default()
            .members
            .push_back(id);
        self.dirty.touch(id, slot_key());
    }

    /// Puts `id` into its group's order at `at` (clamped to the end; `None` = the end);
    /// the objects from that slot on move one slot right.
    pub(crate) fn join_slot(&mut self, id: ObjId, at: Option<i64>) -> Result<(), StateError> {
        let key = self.group_key(id)?;
        let mut group = self.groups.remove(&key).unwrap_or_default();
        let placed = self.place_in_group(&mut group, id, at);
        self.store_group(key, group);
        placed
    }

    /// [`World::join_slot`] on a group taken out of the index.
    fn place_in_group(
        &mut self,
        group: &mut Group,
        id: ObjId,
        at: Option<i64>,
    ) -> Result<(), StateError> {
        let end = group.members.len();
        if group.ordered {
            let at = at.map_or(end, |a| usize::try_from(a.max(0)).unwrap_or(0).min(end));
            group.members.insert(at, id);
            self.renumber(&group.members, at)
        } else {
            let end = i64::try_from(end).unwrap_or(i64::MAX);
            let at = at.map_or(end, |a| a.clamp(0, end));
            self.shift_unordered(&group.members, id, 1, |s| s >= at)?;
            self.put_slot(id, at)?;
            group.members.push_back(id);
            Ok(())
        }
    }

    /// Moves an object to a zone at a slot (`None`: the end); returns the zone it left.
    pub fn move_to_slot(
        &mut self,
        id: ObjId,
        zone: Sym,
        at: Option<i64>,
    ) -> Result<Sym, StateError> {
        self.leave_slot(id)?;
        let old = self.move_zone(id, zone)?;
        self.join_slot(id, at)?;
        Ok(old)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::id::Id;

    fn zone_order(w: &World, owner: ObjId, zone: &str) -> Vec<ObjId> {
        let mut v: Vec<(i64, ObjId)> = w
            .objects()
            .filter(|(_, o)| o.owner == Some(owner) && o.zone == Sym::new(zone))
            .map(|(id, _)| (w.slot(id), id))
            .collect();
        v.sort();
        v.into_iter().map(|(_, id)| id).collect()
    }

    #[test]
    fn a_created_object_joins_the_end_of_a_group_content_reordered() {
        let mut w = World::new(1);
        let class = Id::parse("t:class/c").unwrap();
        let p = w.create(class, None, Sym::new("table"));
        let board = Sym::new("board");
        let [a, b, c] = [0; 3].map(|_| w.create(class, Some(p), board));
        // Content swaps the first two: the group is no longer known to be in order.
        w.set(a, slot_key(), Value::Int(1)).unwrap();
        w.set(b, slot_key(), Value::Int(0)).unwrap();
        let d = w.create(class, Some(p), board);
        assert_eq!(zone_order(&w, p, "board"), vec![b, a, c, d]);
        assert_eq!(w.slot(d), 3);
        // Its slots are dense again: the next one joins the end as well.
        let e = w.create(class, Some(p), board);
        assert_eq!(w.slot(e), 4);
        assert_eq!(w.group_len(board, Some(p)), 5);
    }

    #[test]
    fn slots_stay_dense_and_ordered() {
        let mut w = World::new(1);
        let class = Id::parse("t:class/c").unwrap();
        let p = w.create(class, None, Sym::new("table"));
        let a = w.create(class, Some(p), Sym::new("board"));
        let b = w.create(class, Some(p), Sym::new("board"));
        let c = w.create(class, Some(p), Sym::new("board"));
        let other = w.create(class, Some(a), Sym::new("board"));
        assert_eq!(w.slot(other), 0, "another owner's board has its own order");
        assert_eq!(zone_order(&w, p, "board"), vec![a, b, c]);
        assert_eq!((w.slot(a), w.slot(b), w.slot(c)), (0, 1, 2));
        w.move_to(b, Sym::new("graveyard")).unwrap();
        assert_eq!((w.slot(a), w.slot(c)), (0, 1));
        assert_eq!(
            w.get_int(b, left_slot_key()),
            1,
            "it remembers where it stood"
        );
        assert_eq!(w.slot(b), 0, "first in the graveyard");
        let d = w.create(class, Some(p), Sym::new("hand"));
        w.move_to_slot(d, Sym::new("board"), Some(1)).unwrap();
        assert_eq!(zone_order(&w, p, "board"), vec![a, d, c]);
        w.move_to_slot(b, Sym::new("board"), Some(99)).unwrap();
        assert_eq!(zone_order(&w, p, "board"), vec![a, d, c, b]);
        w.remove(a).unwrap();
        assert_eq!(zone_order(&w, p, "board"), vec![d, c, b]);
        assert_eq!(w.slot(d), 0);
    }

    /// One step of a random history: create in a zone, move (to the end or a slot),
    /// change owner, or remove.
    #[derive(Debug, Clone)]
    enum Op {
        Create {
            owner: usize,
            zone: usize,
        },
        Move {
            obj: usize,
            zone: usize,
            at: Option<i64>,
        },
        Owner {
            obj: usize,
            owner: usize,
        },
        Remove {
            obj: usize,
        },
    }

    fn op() -> impl proptest::strategy::Strategy<Value = Op> {
        use proptest::prelude::*;
        prop_oneof![
            (0..2usize, 0..3usize).prop_map(|(owner, zone)| Op::Create { owner, zone }),
            (0..40usize, 0..3usize, proptest::option::of(-2..10i64))
                .prop_map(|(obj, zone, at)| Op::Move { obj, zone, at }),
            (0..40usize, 0..2usize).prop_map(|(obj, owner)| Op::Owner { obj, owner }),
            (0..40usize).prop_map(|obj| Op::Remove { obj }),
        ]
    }

    proptest::proptest! {
        /// Whatever happens, every (owner, zone) group's slots are exactly 0..n, and a
        /// move to slot `at` puts the object there (clamped to the group).
        #[test]
        fn slots_stay_a_permutation_of_0_to_n(ops in proptest::collection::vec(op(), 1..60)) {
            let zones = [Sym::new("board"), Sym::new("hand"), Sym::new("deck")];
            let mut w = World::new(3);
            let class = Id::parse("t:class/c").unwrap();
            let players = [w.create(class, None, Sym::new("table")), w.create(class, None, Sym::new("table"))];
            let mut objs: Vec<ObjId> = Vec::new();
            for op in ops {
                match op {
                    Op::Create { owner, zone } => objs.push(w.create(class, Some(players[owner]), zones[zone])),
                    Op::Move { obj, zone, at } => {
                        let Some(&o) = objs.get(obj % objs.len().max(1)) else { continue };
                        if !w.exists(o) { continue; }
                        w.move_to_slot(o, zones[zone], at).unwrap();
                        let n = w.objects_in_zone(zones[zone]).filter(|x| w.object(*x).unwrap().owner == w.object(o).unwrap().owner).count();
                        let last = i64::try_from(n).unwrap_or(i64::MAX) - 1;
                        let want = at.map_or(last, |a| a.clamp(0, last));
                        proptest::prop_assert_eq!(w.slot(o), want);
                    }
                    Op::Owner { obj, owner } => {
                        let Some(&o) = objs.get(obj % objs.len().max(1)) else { continue };
                        if w.exists(o) { w.set_owner(o, Some(players[owner])).unwrap(); }
                    }
                    Op::Remove { obj } => {
                        let Some(&o) = objs.get(obj % objs.len().max(1)) else { continue };
                        if w.exists(o) { w.remove(o).unwrap(); }
                    }
                }
                for &p in &players {
                    for &z in &zones {
                        let mut slots: Vec<i64> = w
                            .objects_in_zone(z)
                            .filter(|x| w.object(*x).unwrap().owner == Some(p))
                            .map(|x| w.slot(x))
                            .collect();
                        slots.sort_unstable();
                        let want: Vec<i64> = (0..slots.len() as i64).collect();
                        proptest::prop_assert_eq!(slots, want);
                    }
                }
            }
        }
    }
}
