//! Putting aura results into effect: the objects whose modifiers from the changed auras
//! differ get their lists rebuilt, the health rule clamps damage under a falling maximum,
//! and every key that may have changed is marked for the next round.

use std::collections::{BTreeSet, HashMap};

use super::AuraResult;
use crate::id::Sym;
use crate::state::{AppliedMod, AuraKey, MaxHealthDrop, ObjId, World};

/// Each affected object's new modifiers, in change order: those of `affected[k]` fill
/// `mods[starts[k]..starts[k + 1]]`.
struct NewModifiers {
    mods: Vec<Option<AppliedMod>>,
    starts: Vec<usize>,
}

impl NewModifiers {
    /// The new modifiers of the changes on the affected objects. Each result is read front
    /// to back, twice (count, then place): gathering them object by object instead jumps
    /// between results (a cache miss per modifier over a galaxy), and sorting a galaxy's
    /// modifiers by object cost more than everything else in placing them.
    fn of(changes: &[(AuraKey, Option<AuraResult>)], affected: &[ObjId]) -> NewModifiers {
        let at = Positions::new(affected);
        let entries = || {
            changes
                .iter()
                .flat_map(|(_, n)| n.as_deref().map_or(&[][..], |n| n.as_slice()))
        };
        // Where each modifier goes (`None`: its object's share did not change).
        let places: Vec<Option<usize>> = entries().map(|(o, _)| at.find(*o)).collect();
        let mut starts = vec![0usize; affected.len() + 1];
        for k in places.iter().flatten() {
            starts[k + 1] += 1;
        }
        for k in 0..affected.len() {
            starts[k + 1] += starts[k];
        }
        let mut fill = starts.clone();
        let mut mods = vec![None; starts[affected.len()]];
        for (k, (_, m)) in places.iter().zip(entries()) {
            if let Some(k) = *k {
                mods[fill[k]] = Some(m.clone());
                fill[k] += 1;
            }
        }
        NewModifiers { mods, starts }
    }

    /// How many new modifiers `affected[k]` gets.
    fn count(&self, k: usize) -> usize {
        self.starts[k + 1] - self.starts[k]
    }

    /// Takes the new modifiers of `affected[k]`.
    fn take(&mut self, k: usize) -> impl Iterator<Item = AppliedMod> + '_ {
        self.mods[self.starts[k]..self.starts[k + 1]]
            .iter_mut()
            .filter_map(Option::take)
    }
}

/// Where each object stands in a sorted, deduplicated list of objects: read off a table
/// by slot index when the list is dense enough for one (a full recompute touches most
/// of a galaxy), by binary search otherwise.
struct Positions<'a> {
    sorted: &'a [ObjId],
    /// `sorted`'s position of the object with each slot index (`u32::MAX`: none).
    table: Vec<u32>,
}

impl<'a> Positions<'a> {
    /// How many table entries an object of the list may cost before a table is not worth it.
    const SPREAD: usize = 16;

    fn new(sorted: &'a [ObjId]) -> Positions<'a> {
        let span = sorted.last().map_or(0, |o| o.index as usize + 1);
        let mut table = Vec::new();
        if span <= sorted.len().saturating_mul(Self::SPREAD) {
            table = vec![u32::MAX; span];
            for (k, o) in sorted.iter().enumerate() {
                table[o.index as usize] = u32::try_from(k).unwrap_or(u32::MAX);
            }
        }
        Positions { sorted, table }
    }

    fn find(&self, o: ObjId) -> Option<usize> {
        match self.table.get(o.index as usize) {
            Some(&k) if self.sorted.get(k as usize) == Some(&o) => Some(k as usize),
            // No object with its slot index is listed.
            Some(&u32::MAX) => None,
            // Not tabled, or the slot index is shared by an older object: search.
            _ => self.sorted.binary_search(&o).ok(),
        }
    }
}

/// Sorts and deduplicates `ids`. A full recompute lists most objects of a galaxy, each
/// once per modifier: then they are marked in a table by slot index and read back in
/// order (linear), unless two of them share a slot index (an object and its successor in
/// the slot), which only a sort orders.
fn sort_dedup(ids: &mut Vec<ObjId>) {
    let span = ids.iter().map(|o| o.index as usize + 1).max().unwrap_or(0);
    if ids.len() >= 64 && span <= ids.len().saturating_mul(Positions::SPREAD) {
        // Each slot index's generation plus one (0: not listed).
        let mut marks = vec![0u64; span];
        let mut shared = false;
        for o in ids.iter() {
            let m = &mut marks[o.index as usize];
            let g = u64::from(o.generation) + 1;
            shared |= *m != 0 && *m != g;
            *m = g;
        }
        if !shared {
            ids.clear();
            ids.extend(
                marks
                    .iter()
                    .enumerate()
                    .filter(|(_, g)| **g != 0)
                    .map(|(i, g)| ObjId {
                        index: u32::try_from(i).unwrap_or(u32::MAX),
                        generation: u32::try_from(g - 1).unwrap_or(u32::MAX),
                    }),
            );
            return;
        }
    }
    ids.sort_unstable();
    ids.dedup();
}

/// An aura result's modifiers grouped by object.
fn by_object(v: &[(ObjId, AppliedMod)]) -> HashMap<ObjId, Vec<&AppliedMod>> {
    let mut by: HashMap<ObjId, Vec<&AppliedMod>> = HashMap::new();
    for (o, m) in v {
        by.entry(*o).or_default().push(m);
    }
    by
}

/// Adds to `affected` the objects whose modifiers from one aura differ between its old
/// and new result (an object whose share is the same keeps its list as it is).
fn differing(old: &[(ObjId, AppliedMod)], new: &[(ObjId, AppliedMod)], affected: &mut Vec<ObjId>) {
    if old.is_empty() || new.is_empty() {
        affected.extend(old.iter().chain(new).map(|(o, _)| *o));
        return;
    }
    let by_id = |v: &[(ObjId, AppliedMod)]| v.windows(2).all(|w| w[0].0 <= w[1].0);
    if by_id(old) && by_id(new) {
        differing_sorted(old, new, affected);
        return;
    }
    let (before, after) = (by_object(old), by_object(new));
    for (o, mods) in &before {
        if after.get(o) != Some(mods) {
            affected.push(*o);
        }
    }
    affected.extend(after.keys().filter(|o| !before.contains_key(o)).copied());
}

/// [`differing`] for two results in object order (most selections): one merge walk.
fn differing_sorted(
    old: &[(ObjId, AppliedMod)],
    new: &[(ObjId, AppliedMod)],
    affected: &mut Vec<ObjId>,
) {
    let run = |v: &[(ObjId, AppliedMod)], i: usize| {
        let o = v[i].0;
        let end = i + v[i..].iter().take_while(|(t, _)| *t == o).count();
        (o, end)
    };
    let (mut i, mut j) = (0, 0);
    while i < old.len() || j < new.len() {
        if j == new.len() || (i < old.len() && old[i].0 < new[j].0) {
            let (o, end) = run(old, i);
            affected.push(o);
            i = end;
        } else if i == old.len() || new[j].0 < old[i].0 {
            let (o, end) = run(new, j);
            affected.push(o);
            j = end;
        } else {
            let ((o, ei), (_, ej)) = (run(old, i), run(new, j));
            if old[i..ei]
                .iter()
                .map(|(_, m)| m)
                .ne(new[j..ej].iter().map(|(_, m)| m))
            {
                affected.push(o);
            }
            i = ei;
            j = ej;
        }
    }
}

pub(super) fn apply_changes(world: &mut World, mut changes: Vec<(AuraKey, Option<AuraResult>)>) {
    // Each object's new modifiers are taken in change order: in (timestamp, aura) order,
    // the order its list is sorted in within a layer, they arrive nearly sorted (a
    // galaxy's full recompute spent an eighth of its time sorting them).
    changes.sort_by_key(|(key, new)| {
        let first = new.as_deref().and_then(|n| n.first());
        (first.map(|(_, m)| m.timestamp), *key)
    });
    let changed_keys: BTreeSet<AuraKey> = changes.iter().map(|(k, _)| *k).collect();
    let mut affected: Vec<ObjId> = Vec::new();
    for (key, new) in &changes {
        let old = world
            .aura_results
            .get(key)
            .map_or(&[][..], |o| o.as_slice());
        let new = new.as_deref().map_or(&[][..], |n| n.as_slice());
        differing(old, new, &mut affected);
    }
    sort_dedup(&mut affected);
    let mut new_mods = NewModifiers::of(&changes, &affected);
    let rule = world.health_rule().clone();
    let old_max: Vec<(ObjId, Option<f64>)> = if rule.on_drop == MaxHealthDrop::Clamp {
        affected
            .iter()
            .map(|&o| (o, world.get_number(o, rule.max_key)))
            .collect()
    } else {
        Vec::new()
    };
    // The keys whose values may have changed, object by object (in object order, each
    // object's keys by symbol address, as `Dirty::touch` is fed below).
    let mut touched: Vec<(ObjId, Sym)> = Vec::new();
    let mut keys: Vec<Sym> = Vec::new();
    for (k, &obj) in affected.iter().enumerate() {
        keys.clear();
        let old = world.applied(obj).cloned();
        let kept = old.as_ref().map_or(0, |l| l.len());
        let mut list: Vec<AppliedMod> = Vec::with_capacity(kept + new_mods.count(k));
        for m in old.iter().flat_map(|l| l.iter()) {
            if changed_keys.contains(&m.aura) {
                keys.push(m.key);
            } else {
                list.push(m.clone());
            }
        }
        for m in new_mods.take(k) {
            keys.push(m.key);
            list.push(m);
        }
        keys.sort_unstable_by_key(|k| k.as_str().as_ptr() as usize);
        keys.dedup();
        touched.extend(keys.iter().map(|k| (obj, *k)));
        // By (rank, layer, timestamp, aura), the aura key compared only on a tie: a
        // galaxy's full recompute sorts 50,000 short lists.
        list.sort_by(|a, b| {
            (a.rank, a.layer, a.timestamp)
                .cmp(&(b.rank, b.layer, b.timestamp))
                .then_with(|| a.aura.cmp(&b.aura))
        });
        world.set_modifiers(obj, list);
    }
    for (key, new) in changes {
        match new {
            Some(n) => {
                world.aura_results.insert(key, n);
            }
            None => {
                world.aura_results.remove(&key);
            }
        }
    }
    // The health rule: a falling maximum may take damage with it (clamp).
    if rule.on_drop == MaxHealthDrop::Clamp {
        for (obj, before) in old_max {
            let (Some(before), Some(after)) = (before, world.get_number(obj, rule.max_key)) else {
                continue;
            };
            if after < before {
                let damage = world.get_int(obj, rule.damage_key);
                let kept = rule.damage_after_max_change(
                    damage,
                    before.floor() as i64,
                    after.floor() as i64,
                );
                if kept != damage {
                    let _ = world.set(obj, rule.damage_key, crate::state::Value::Int(kept));
                }
            }
        }
    }
    // Values other auras may read have changed: they get another round.
    for (obj, k) in touched {
        world.dirty.touch(obj, k);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::state::Layer;

    fn id(index: u32, generation: u32) -> ObjId {
        ObjId { index, generation }
    }

    fn add(aura: u16, value: f64) -> AppliedMod {
        AppliedMod {
            key: Sym::new("attack"),
            layer: Layer::Add,
            rank: 1,
            value,
            max: f64::INFINITY,
            timestamp: 0,
            aura: AuraKey::Class {
                holder: id(0, 0),
                index: aura,
            },
        }
    }

    #[test]
    fn positions_by_table_and_by_search_agree() {
        // Dense (a table), sparse (searched), and a slot index shared by an old and a
        // new object (the table holds one of them; the other is searched).
        let dense: Vec<ObjId> = (0..40).map(|i| id(i, 0)).collect();
        let sparse = vec![id(3, 0), id(90_000, 0)];
        let shared = vec![id(1, 0), id(2, 0), id(2, 1), id(3, 0)];
        for list in [&dense, &sparse, &shared] {
            let at = Positions::new(list);
            for (k, o) in list.iter().enumerate() {
                assert_eq!(at.find(*o), Some(k), "{o:?} in {list:?}");
            }
            for absent in [id(7, 5), id(41, 0), id(90_001, 0), id(2, 2)] {
                assert_eq!(at.find(absent), None, "{absent:?} in {list:?}");
            }
        }
        assert!(!Positions::new(&dense).table.is_empty());
        assert!(Positions::new(&sparse).table.is_empty());
    }

    #[test]
    fn sort_dedup_by_table_and_by_sort_agree() {
        let mut dense: Vec<ObjId> = (0..200).rev().map(|i| id(i % 90, 0)).collect();
        let mut shared = dense.clone();
        shared.push(id(7, 3));
        let mut small = vec![id(4, 0), id(1, 0), id(4, 0)];
        for list in [&mut dense, &mut shared, &mut small] {
            let mut sorted = list.clone();
            sorted.sort_unstable();
            sorted.dedup();
            sort_dedup(list);
            assert_eq!(*list, sorted);
        }
        assert_eq!(dense.len(), 90);
        assert_eq!(shared.len(), 91);
    }

    #[test]
    fn modifier_lists_do_not_depend_on_the_order_of_the_changes() {
        // Three auras of different ages (one with two modifiers in two layers) over
        // overlapping objects, applied in two orders: every list comes out the same,
        // ordered by layer rank, then age, then aura.
        let mut world = World::new(1);
        let class = crate::id::Id::parse("test:class/thing").expect("id");
        let objs: Vec<ObjId> = (0..3)
            .map(|_| world.create(class, None, Sym::new("board")))
            .collect();
        let aura = |index: u16, timestamp: u64, on: &[ObjId], ranks: &[u16]| {
            let key = AuraKey::Class {
                holder: objs[0],
                index,
            };
            let result: Vec<(ObjId, AppliedMod)> = on
                .iter()
                .flat_map(|o| {
                    ranks.iter().map(move |&rank| {
                        let mut m = add(index, f64::from(index));
                        m.aura = key;
                        m.rank = rank;
                        m.timestamp = timestamp;
                        (*o, m)
                    })
                })
                .collect();
            (key, Some(Arc::new(result)))
        };
        let changes = vec![
            aura(1, 30, &objs, &[1]),
            aura(2, 10, &objs[1..], &[2, 1]),
            aura(3, 20, &objs[..2], &[1]),
        ];
        let mut forward = world.clone();
        apply_changes(&mut forward, changes.clone());
        let mut backward = world;
        apply_changes(&mut backward, changes.into_iter().rev().collect());
        let order = |w: &World, o: ObjId| -> Vec<(u16, u64)> {
            w.applied(o)
                .map(|l| l.iter().map(|m| (m.rank, m.timestamp)).collect())
                .unwrap_or_default()
        };
        for &o in &objs {
            assert_eq!(order(&forward, o), order(&backward, o), "{o:?}");
        }
        assert_eq!(
            order(&forward, objs[1]),
            vec![(1, 10), (1, 20), (1, 30), (2, 10)]
        );
        assert_eq!(order(&forward, objs[2]), vec![(1, 10), (1, 30), (2, 10)]);
    }

    #[test]
    fn new_modifiers_are_grouped_by_object_in_change_order() {
        let (a, b, c) = (id(5, 0), id(9, 0), id(12, 0));
        let change = |aura: u16, on: &[ObjId]| {
            let result: Vec<(ObjId, AppliedMod)> = on
                .iter()
                .map(|o| (*o, add(aura, f64::from(aura))))
                .collect();
            (
                AuraKey::Class {
                    holder: id(0, 0),
                    index: aura,
                },
                Some(Arc::new(result)),
            )
        };
        // `b` is not affected: its modifiers are left out.
        let changes = vec![change(1, &[c, a]), change(2, &[a, b, c]), change(3, &[])];
        let affected = [a, c];
        let mut new = NewModifiers::of(&changes, &affected);
        let values = |mods: Vec<AppliedMod>| -> Vec<f64> { mods.iter().map(|m| m.value).collect() };
        assert_eq!(values(new.take(0).collect()), vec![1.0, 2.0]);
        assert_eq!(values(new.take(1).collect()), vec![1.0, 2.0]);
        assert_eq!(new.take(0).count(), 0, "taken once");
    }
}
