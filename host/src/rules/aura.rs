//! Aura recompute: which modifiers are in effect, derived from the active auras.
//!
//! Runs after every action and every event. Only auras whose dependencies changed are
//! re-evaluated (a damage change does not re-run an aura that selects by tag); their
//! old modifiers are replaced by new ones on exactly the objects affected. Because the
//! modifiers are derived, an aura whose source left play simply produces nothing, and
//! every value it touched is back to what the remaining modifiers say.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use super::compile::{AuraDef, AuraZones};
use super::{Cx, Generation, RuleError, Scope};
use crate::id::{Id, Sym};
use crate::plugins::Runtime;
use crate::state::{AppliedMod, AuraKey, MaxHealthDrop, ObjId, World};

/// How many rounds auras get to settle (an aura reading a value another aura changes
/// needs a second round); beyond this they are reported as oscillating.
const MAX_ROUNDS: usize = 8;

/// The modifiers one aura produces, by target.
type AuraResult = Arc<Vec<(ObjId, AppliedMod)>>;

struct Active {
    key: AuraKey,
    def: Arc<AuraDef>,
    holder: ObjId,
    source: Option<ObjId>,
    timestamp: u64,
    /// Modifier values fixed when the instance was given.
    frozen: Option<Arc<[f64]>>,
}

/// Recomputes the auras whose inputs changed since the last call.
pub fn recompute(world: &mut World, gen: &Generation, rt: &Runtime) -> Result<(), RuleError> {
    for _ in 0..MAX_ROUNDS {
        if !world.dirty.any() {
            return Ok(());
        }
        if world.dirty.structural {
            end_departed(world, gen);
        } else if !gen.aura_deps.everything
            && world
                .dirty
                .keys
                .iter()
                .all(|k| !gen.aura_deps.keys.contains(k))
        {
            // Only keys no aura reads changed: nothing to do.
            world.dirty = Default::default();
            return Ok(());
        }
        let dirty = std::mem::take(&mut world.dirty);
        let active = active_auras(world, gen);
        let mut changes: Vec<(AuraKey, Option<AuraResult>)> = Vec::new();
        for a in &active {
            let deps = &a.def.deps;
            let stale = !world.aura_results.contains_key(&a.key)
                || deps.everything
                || (dirty.structural && deps.structural)
                || deps.keys.iter().any(|k| dirty.keys.contains(k));
            if !stale {
                continue;
            }
            // An aura that cannot be evaluated (its holder's parent is gone, a division
            // by zero) is off, not fatal: otherwise every later command would fail.
            let mods = Arc::new(evaluate(world, gen, rt, a).unwrap_or_else(|e| {
                tracing::warn!(error = %e, "aura switched off: it could not be evaluated");
                Vec::new()
            }));
            if world
                .aura_results
                .get(&a.key)
                .map(|old| **old != *mods)
                .unwrap_or(true)
            {
                changes.push((a.key, Some(mods)));
            }
        }
        let live: BTreeSet<AuraKey> = active.iter().map(|a| a.key).collect();
        for key in world.aura_results.keys() {
            if !live.contains(key) {
                changes.push((*key, None));
            }
        }
        if changes.is_empty() {
            continue;
        }
        apply_changes(world, changes);
    }
    if world.dirty.any() {
        tracing::warn!("auras did not settle after {MAX_ROUNDS} rounds; two auras may be changing each other's inputs");
        world.dirty = Default::default();
    }
    Ok(())
}

/// Whether an aura is on: its holder is in the right zone and not silenced (a silenced
/// holder's own auras, class and given, are off; auras of others still reach it).
fn zone_ok(
    world: &World,
    def: &AuraDef,
    holder: ObjId,
    given_in: Option<Sym>,
    silence: Option<Sym>,
) -> bool {
    world.object(holder).is_ok_and(|o| {
        !silence.is_some_and(|t| o.tags.contains(&t))
            && match &def.zones {
                AuraZones::Any => true,
                AuraZones::Listed(z) => z.contains(&o.zone),
                AuraZones::WhereGiven => given_in.is_none_or(|g| g == o.zone),
            }
    })
}

/// Given auras whose holder is gone, or left the zone it was given in (when the aura
/// does not name zones), end for good: a buff does not come back with a returning card.
fn end_departed(world: &mut World, gen: &Generation) {
    let departed: Vec<u64> = world
        .aura_instances()
        .filter(|(_, a)| {
            let def_default = gen
                .auras
                .get(&a.def)
                .is_none_or(|d| d.zones == AuraZones::WhereGiven);
            match world.object(a.holder) {
                Err(_) => true,
                Ok(o) => def_default && o.zone != a.zone,
            }
        })
        .map(|(n, _)| n)
        .collect();
    for n in departed {
        world.remove_aura_instance(n);
    }
}

/// The objects holding class auras that may be on, in `aura_classes` order then id.
fn class_aura_holders(world: &World, gen: &Generation) -> Vec<(ObjId, Id)> {
    let Some(zones) = &gen.aura_class_zones else {
        return gen
            .aura_classes
            .iter()
            .flat_map(|c| world.objects_of_class(*c).map(move |h| (h, *c)))
            .collect();
    };
    let mut found: Vec<(usize, ObjId, Id)> = Vec::new();
    for z in zones {
        for h in world.objects_in_zone(*z) {
            let Ok(o) = world.object(h) else { continue };
            if let Some(rank) = gen.aura_class_rank.get(&o.class) {
                found.push((*rank, h, o.class));
            }
        }
    }
    found.sort_unstable();
    found.into_iter().map(|(_, h, c)| (h, c)).collect()
}

fn active_auras(world: &World, gen: &Generation) -> Vec<Active> {
    let mut out = Vec::new();
    for (holder, class) in class_aura_holders(world, gen) {
        let Some(def) = gen.classes.get(&class) else {
            continue;
        };
        let Ok(o) = world.object(holder) else {
            continue;
        };
        for (i, aura) in def.auras.iter().enumerate() {
            if zone_ok(world, aura, holder, None, gen.world.silence_tag) {
                out.push(Active {
                    key: AuraKey::Class {
                        holder,
                        index: u16::try_from(i).unwrap_or(u16::MAX),
                    },
                    def: aura.clone(),
                    holder,
                    source: Some(holder),
                    timestamp: o.timestamp,
                    frozen: None,
                });
            }
        }
    }
    for (n, inst) in world.aura_instances() {
        let Some(def) = gen.auras.get(&inst.def) else {
            tracing::warn!(aura = %inst.def, "aura instance refers to an aura this generation does not define; it has no effect");
            continue;
        };
        if zone_ok(
            world,
            def,
            inst.holder,
            Some(inst.zone),
            gen.world.silence_tag,
        ) {
            out.push(Active {
                key: AuraKey::Instance(n),
                def: def.clone(),
                holder: inst.holder,
                source: inst.source,
                timestamp: inst.timestamp,
                frozen: inst.frozen.clone(),
            });
        }
    }
    out
}

fn evaluate(
    world: &World,
    gen: &Generation,
    rt: &Runtime,
    a: &Active,
) -> Result<Vec<(ObjId, AppliedMod)>, RuleError> {
    let scope = Scope {
        this: Some(a.holder),
        source: a.source,
        target: Some(a.holder),
        ..Scope::default()
    };
    let cx = Cx {
        world,
        gen,
        scope: &scope,
        controller: None,
        rt,
    };
    let ctx = |e: RuleError| e.context(&a.def.origin);
    if let Some(w) = &a.def.while_ {
        if !w.test(&cx, a.holder).map_err(ctx)? {
            return Ok(Vec::new());
        }
    }
    let mut targets = Vec::new();
    match &a.def.select {
        Some(s) => {
            use crate::registry::Selector;
            s.select(&cx, &mut targets).map_err(ctx)?;
        }
        None => targets.push(a.holder),
    }
    let mut out = Vec::with_capacity(targets.len() * a.def.modifiers.len());
    for t in targets {
        let tscope = scope.with_target(t);
        let tcx = cx.with_scope(&tscope);
        for (i, m) in a.def.modifiers.iter().enumerate() {
            let value = match a.frozen.as_ref().and_then(|f| f.get(i)) {
                Some(v) => *v,
                None => m.value.eval(&tcx).map_err(ctx)?,
            };
            let max = match &m.max {
                Some(x) => x.eval(&tcx).map_err(ctx)?,
                None => f64::INFINITY,
            };
            out.push((
                t,
                AppliedMod {
                    key: m.key,
                    layer: m.layer,
                    value,
                    max,
                    timestamp: a.timestamp,
                    aura: a.key,
                },
            ));
        }
    }
    Ok(out)
}

fn apply_changes(world: &mut World, changes: Vec<(AuraKey, Option<AuraResult>)>) {
    let mut affected: BTreeSet<ObjId> = BTreeSet::new();
    let changed_keys: BTreeSet<AuraKey> = changes.iter().map(|(k, _)| *k).collect();
    // The new modifiers of each object, in change order (one pass over all changes; a
    // scan of every change per affected object was quadratic).
    let mut new_by_obj: HashMap<ObjId, Vec<&AppliedMod>> = HashMap::new();
    for (key, new) in &changes {
        if let Some(old) = world.aura_results.get(key) {
            affected.extend(old.iter().map(|(o, _)| *o));
        }
        if let Some(new) = new {
            for (o, m) in new.iter() {
                affected.insert(*o);
                new_by_obj.entry(*o).or_default().push(m);
            }
        }
    }
    let rule = world.health_rule().clone();
    let old_max: Vec<(ObjId, Option<f64>)> = affected
        .iter()
        .map(|&o| (o, world.get_number(o, rule.max_key)))
        .collect();
    let mut touched_keys = BTreeSet::new();
    for &obj in &affected {
        let mut list: Vec<AppliedMod> = world
            .applied
            .get(&obj)
            .map(|l| {
                l.iter()
                    .filter(|m| !changed_keys.contains(&m.aura))
                    .cloned()
                    .collect()
            })
            .unwrap_or_default();
        if let Some(mods) = new_by_obj.get(&obj) {
            for m in mods {
                list.push((*m).clone());
                touched_keys.insert(m.key);
            }
        }
        if let Some(old) = world.applied.get(&obj) {
            for m in old.iter().filter(|m| changed_keys.contains(&m.aura)) {
                touched_keys.insert(m.key);
            }
        }
        list.sort_by_key(|m| (m.layer, m.timestamp, m.aura));
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
    for k in touched_keys {
        world.dirty.keys.insert(k);
    }
}
