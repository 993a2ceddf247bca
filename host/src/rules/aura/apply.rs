//! Putting aura results into effect: the objects whose modifiers from the changed auras
//! differ get their lists rebuilt, the health rule clamps damage under a falling maximum,
//! and every key that may have changed is marked for the next round.

use std::collections::{BTreeSet, HashMap};

use super::AuraResult;
use crate::id::Sym;
use crate::state::{AppliedMod, AuraKey, MaxHealthDrop, ObjId, World};

/// The new modifiers of every change on the affected objects (sorted), grouped by
/// object; a stable sort keeps each object's modifiers in change order. Each result is
/// read front to back: reading them object by object instead jumps between results, a
/// cache miss per modifier over a whole galaxy. A change whose old result was empty
/// affects every object in its new one, so it needs no look-up in `affected`.
fn new_modifiers(
    world: &World,
    changes: &[(AuraKey, Option<AuraResult>)],
    affected: &[ObjId],
) -> Vec<(ObjId, AppliedMod)> {
    // Sized once: growing a galaxy's worth of modifiers step by step costs fresh pages.
    let total = changes
        .iter()
        .map(|(_, n)| n.as_ref().map_or(0, |n| n.len()))
        .sum();
    let mut new_mods: Vec<(ObjId, AppliedMod)> = Vec::with_capacity(total);
    for (key, new) in changes {
        let new = new.as_deref().map_or(&[][..], |n| n.as_slice());
        if world.aura_results.get(key).is_none_or(|o| o.is_empty()) {
            new_mods.extend_from_slice(new);
        } else {
            new_mods.extend(
                new.iter()
                    .filter(|(o, _)| affected.binary_search(o).is_ok())
                    .cloned(),
            );
        }
    }
    new_mods.sort_by_key(|(o, _)| *o);
    new_mods
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

pub(super) fn apply_changes(world: &mut World, changes: Vec<(AuraKey, Option<AuraResult>)>) {
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
    affected.sort_unstable();
    affected.dedup();
    let new_mods = new_modifiers(world, &changes, &affected);
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
    let mut next = 0;
    for &obj in &affected {
        keys.clear();
        let old = world.applied(obj).cloned();
        let mut list: Vec<AppliedMod> = Vec::new();
        for m in old.iter().flat_map(|l| l.iter()) {
            if changed_keys.contains(&m.aura) {
                keys.push(m.key);
            } else {
                list.push(m.clone());
            }
        }
        // Both lists are in object order: the object's new modifiers start at `next`.
        next += new_mods[next..]
            .iter()
            .take_while(|(o, _)| *o < obj)
            .count();
        for (_, m) in new_mods[next..].iter().take_while(|(o, _)| *o == obj) {
            list.push(m.clone());
            keys.push(m.key);
        }
        keys.sort_unstable_by_key(|k| k.as_str().as_ptr() as usize);
        keys.dedup();
        touched.extend(keys.iter().map(|k| (obj, *k)));
        list.sort_by_key(|m| (m.rank, m.layer, m.timestamp, m.aura));
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
