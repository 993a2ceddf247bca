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

use super::{ObjId, StateError, Value, World};
use crate::id::Sym;

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

    /// The objects sharing `id`'s owner and zone, other than `id`, with their slots.
    fn group_of(&self, id: ObjId) -> Result<Vec<(ObjId, i64)>, StateError> {
        let me = self.object(id)?;
        let (owner, zone) = (me.owner, me.zone);
        let key = slot_key();
        Ok(self
            .objects_in_zone(zone)
            .filter(|o| *o != id)
            .filter_map(|o| self.object(o).ok().map(|obj| (o, obj)))
            .filter(|(_, obj)| obj.owner == owner)
            .map(|(o, obj)| {
                let s = match obj.props.get(&key) {
                    Some(Value::Int(i)) => *i,
                    _ => 0,
                };
                (o, s)
            })
            .collect())
    }

    /// Takes `id` out of its group's order: the objects after it move one slot left, and
    /// `left_slot` records where it stood.
    pub(crate) fn leave_slot(&mut self, id: ObjId) -> Result<(), StateError> {
        let mine = self.slot(id);
        for (o, s) in self.group_of(id)? {
            if s > mine {
                self.set(o, slot_key(), Value::Int(s - 1))?;
            }
        }
        self.set(id, left_slot_key(), Value::Int(mine))?;
        Ok(())
    }

    /// Puts `id` into its group's order at `at` (clamped to the end; `None` = the end);
    /// the objects from that slot on move one slot right.
    pub(crate) fn join_slot(&mut self, id: ObjId, at: Option<i64>) -> Result<(), StateError> {
        let group = self.group_of(id)?;
        let end = i64::try_from(group.len()).unwrap_or(i64::MAX);
        let at = at.map_or(end, |a| a.clamp(0, end));
        for (o, s) in group {
            if s >= at {
                self.set(o, slot_key(), Value::Int(s + 1))?;
            }
        }
        self.set(id, slot_key(), Value::Int(at))?;
        Ok(())
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
