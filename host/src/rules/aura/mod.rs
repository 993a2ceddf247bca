//! Aura recompute: which modifiers are in effect, derived from the active auras.
//!
//! Runs after every action and every event. Only auras whose dependencies changed are
//! re-evaluated (a damage change does not re-run an aura that selects by tag); their
//! old modifiers are replaced by new ones on exactly the objects affected. Because the
//! modifiers are derived, an aura whose source left play simply produces nothing, and
//! every value it touched is back to what the remaining modifiers say.

mod apply;
#[cfg(test)]
mod tests;

use std::collections::BTreeSet;
use std::sync::Arc;

use apply::apply_changes;

use super::compile::{AuraDef, AuraZones};
use super::{Cx, Generation, RuleError, Sandbox, Scope};
use crate::id::Sym;
use crate::rules::select::LastGathered;
use crate::state::{AppliedMod, AuraKey, Deps, Dirty, ObjId, World};

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
pub fn recompute(world: &mut World, gen: &Generation, rt: &Sandbox) -> Result<(), RuleError> {
    for _ in 0..MAX_ROUNDS {
        if !world.dirty.any() {
            return Ok(());
        }
        // Only own tags added or removed (none of them the silence tag): no aura switches
        // on or off, and only auras reading one of those tags are affected by them.
        let tags_only = world.dirty.tags_only(gen.world.silence_tag);
        if world.dirty.structural && !tags_only {
            end_departed(world, gen);
        } else if !world.dirty.structural
            && !gen.aura_deps.everything
            && world
                .dirty
                .keys
                .iter()
                .all(|k| !gen.aura_deps.keys.contains(k))
        {
            // Only keys no aura reads changed: nothing to do.
            world.take_dirty();
            return Ok(());
        }
        let dirty = world.take_dirty();
        let moved = dirty.structural && !tags_only;
        if (moved && holders_may_change(world, gen, &dirty)) || world.aura_holders.is_none() {
            world.aura_holders = Some(Arc::new(class_aura_holders(world, gen)));
        }
        let changed_tags = tags_of_changed(world, &dirty);
        let needs = |key: AuraKey, holder: ObjId, def: &AuraDef| {
            is_stale(world, key, holder, def, &dirty, tags_only)
                && !untouched(world, holder, def, &dirty, &changed_tags)
        };
        // Without a structural change (other than tags) no aura switches on or off, so
        // only the stale ones need listing; with one, every active aura (the rest end).
        let mut active = active_auras(world, gen, |key, holder, def| {
            moved || needs(key, holder, def)
        });
        sort_by_source(&mut active);
        let mut changes: Vec<(AuraKey, Option<AuraResult>)> = Vec::new();
        let mut last = LastGathered::default();
        for a in &active {
            // Without a structural change, only the stale auras were listed.
            if moved && !needs(a.key, a.holder, &a.def) {
                continue;
            }
            // An aura that cannot be evaluated (its holder's parent is gone, a division
            // by zero) is off, not fatal: otherwise every later command would fail.
            let mods = match incremental(world, gen, rt, a, &dirty) {
                Some(Incremental::Unchanged) => continue,
                Some(Incremental::Changed(mods)) => mods,
                None => evaluate(world, gen, rt, a, &mut last).unwrap_or_else(|e| {
                    tracing::warn!(error = %e, "aura switched off: it could not be evaluated");
                    Vec::new()
                }),
            };
            let mods = Arc::new(mods);
            if world
                .aura_results
                .get(&a.key)
                .map(|old| **old != *mods)
                .unwrap_or(true)
            {
                changes.push((a.key, Some(mods)));
            }
        }
        if moved {
            let live: BTreeSet<AuraKey> = active.iter().map(|a| a.key).collect();
            for key in world.aura_results.keys() {
                if !live.contains(key) {
                    changes.push((*key, None));
                }
            }
        }
        if changes.is_empty() {
            continue;
        }
        apply_changes(world, changes);
    }
    if world.dirty.any() {
        tracing::warn!("auras did not settle after {MAX_ROUNDS} rounds; two auras may be changing each other's inputs");
        world.take_dirty();
    }
    Ok(())
}

/// Puts the active auras in the order to evaluate them: those drawing their candidates from
/// the same tag next to each other, so each tag's objects are read from memory once
/// while its auras run, not once per aura (2,000 auras over 100,000 objects spent most of
/// a full recompute waiting on memory). Each aura's result is its own, and they are
/// combined in an order of their own ([`apply_changes`]), so the order changes nothing
/// else.
///
/// Within a tag, auras whose selections gather the same sources (equal texts, ordered by
/// their hash, see [`SelectMemo`](crate::rules::select::SelectMemo)) run back to back
/// too, so one gathering serves them all ([`LastGathered`]).
fn sort_by_source(active: &mut [Active]) {
    active.sort_by_key(|a| {
        (
            a.def.source_tag,
            a.def.sources_memo.as_ref().map(|m| m.hash),
        )
    });
}

/// Every tag (own or granted) of the objects whose keys changed, when only keys changed
/// and few enough to list; `None` otherwise.
fn tags_of_changed(world: &World, dirty: &Dirty) -> Option<Vec<Sym>> {
    if dirty.structural || dirty.too_many {
        return None;
    }
    let mut tags: Vec<Sym> = Vec::new();
    for (o, _) in &dirty.changed {
        let Ok(obj) = world.object(*o) else { continue };
        tags.extend(obj.tags.iter().copied());
        tags.extend(
            world
                .modifiers(*o)
                .iter()
                .filter(|m| m.layer.is_tag())
                .map(|m| m.key),
        );
    }
    tags.sort_unstable();
    tags.dedup();
    Some(tags)
}

/// Whether a stale aura is nevertheless unaffected: it would be updated object by object
/// ([`incremental`]), and every object it selects has a tag none of the changed objects
/// has, so none of them is or can become one of its targets.
fn untouched(
    world: &World,
    holder: ObjId,
    def: &AuraDef,
    dirty: &Dirty,
    changed_tags: &Option<Vec<Sym>>,
) -> bool {
    let Some(tags) = changed_tags else {
        return false;
    };
    let deps = &def.deps;
    // Only keys changed, so every active aura has a result from an earlier round (a
    // new holder, a swapped generation or a first recompute are structural changes).
    !deps.everything
        && !nontarget_changed(world, deps, holder, dirty)
        && def.source_tag.is_some_and(|t| !tags.contains(&t))
}

/// Whether an aura held by `holder` had its inputs changed (or was never evaluated).
/// `tags_only`: the structural changes only (un)tagged objects, so only an aura reading
/// one of those tags can be hit by them. Structurally, it is hit when its holder changed
/// or objects changed in the zones it reads (any zone, for an aura whose reads are not
/// confined to zones).
fn is_stale(
    world: &World,
    key: AuraKey,
    holder: ObjId,
    def: &AuraDef,
    dirty: &Dirty,
    tags_only: bool,
) -> bool {
    let deps = &def.deps;
    deps.everything
        || ((!tags_only || deps.reads_tag_of(&dirty.tags)) && dirty.structural_hits(deps, holder))
        || deps
            .keys
            .iter()
            .any(|k| dirty.keys.contains(k) && key_change_matters(world, deps, *k, holder, dirty))
        || !world.aura_results.contains_key(&key)
}

/// Whether the change of `k` recorded in `dirty` may change what an aura held by
/// `holder` reads: always, unless `k` is read only from objects in some zones
/// ([`Deps::confined_zones_of`](crate::state::Deps::confined_zones_of)) and every
/// object whose `k` changed is elsewhere (and is not the holder). Which objects changed
/// is known only between structural changes.
fn key_change_matters(world: &World, deps: &Deps, k: Sym, holder: ObjId, dirty: &Dirty) -> bool {
    if !deps.confines_keys {
        return true;
    }
    let Some(zones) = deps.confined_zones_of(k) else {
        return true;
    };
    dirty.structural
        || dirty.too_many
        || dirty.changed.iter().any(|&(o, key)| {
            key == k
                && (o == holder
                    || world
                        .zone_and_owner(o)
                        .is_none_or(|(z, _)| zones.contains(&z)))
        })
}

/// Whether a key the aura reads from objects other than its targets changed where it
/// reads it (see [`key_change_matters`]).
fn nontarget_changed(world: &World, deps: &Deps, holder: ObjId, dirty: &Dirty) -> bool {
    deps.nontarget
        .iter()
        .any(|k| dirty.keys.contains(k) && key_change_matters(world, deps, *k, holder, dirty))
}

/// Whether the objects holding class auras may differ from the cached list: objects
/// were created, removed or moved in the zones holders are looked for in (or anywhere,
/// when holders are found by class).
fn holders_may_change(world: &World, gen: &Generation, dirty: &Dirty) -> bool {
    let Some(zones) = gen.aura_class_zones.as_ref() else {
        return true;
    };
    dirty.anywhere
        || holders_by_class(world, gen, zones)
        || zones.iter().any(|z| dirty.zones.contains(z))
}

/// Whether class-aura holders are found among the aura classes' objects rather than in
/// their zones: when those zones hold many more objects than there are such classes (a
/// galaxy's one big zone).
fn holders_by_class(world: &World, gen: &Generation, zones: &[Sym]) -> bool {
    let in_zones: usize = zones.iter().map(|z| world.zone_len(*z)).sum();
    in_zones > gen.aura_classes.len().saturating_mul(4)
}

/// The aura's new result from its old one when only keys it reads from its targets
/// changed: the changed objects are re-tested and re-evaluated alone, the rest kept.
/// `None` when that does not apply (a structural change, a key read from another
/// object, a selection that cannot test one object alone, an error): evaluate it whole.
fn incremental(
    world: &World,
    gen: &Generation,
    rt: &Sandbox,
    a: &Active,
    dirty: &Dirty,
) -> Option<Incremental> {
    let deps = &a.def.deps;
    if dirty.structural || dirty.too_many || deps.everything {
        return None;
    }
    if nontarget_changed(world, deps, a.holder, dirty) {
        return None;
    }
    let select = a.def.select.as_ref()?;
    let old = world.aura_results.get(&a.key)?;
    let mut objs: Vec<ObjId> = dirty
        .changed
        .iter()
        .filter(|(_, k)| deps.keys.contains(k))
        .map(|(o, _)| *o)
        .collect();
    objs.sort_unstable();
    objs.dedup();
    let scope = holder_scope(a);
    let cx = aura_cx(world, gen, rt, &scope);
    if let Some(w) = &a.def.while_ {
        if !w.test(&cx, a.holder).ok()? {
            return Some(if old.is_empty() {
                Incremental::Unchanged
            } else {
                Incremental::Changed(Vec::new())
            });
        }
    }
    // Each changed object's new modifiers; the old result is copied only if one differs.
    let mut result: Option<Vec<(ObjId, AppliedMod)>> = None;
    for o in objs {
        let mut mods = Vec::new();
        if select.contains(&cx, o)?.ok()? {
            evaluate_target(&cx, a, o, &mut mods).ok()?;
        }
        let current = result.as_deref().unwrap_or(old);
        let at = current.partition_point(|(t, _)| *t < o);
        let end = at + current[at..].iter().take_while(|(t, _)| *t == o).count();
        if current[at..end]
            .iter()
            .map(|(_, m)| m)
            .eq(mods.iter().map(|(_, m)| m))
        {
            continue;
        }
        let r = result.get_or_insert_with(|| (**old).clone());
        r.splice(at..end, mods);
    }
    Some(match result {
        Some(r) => Incremental::Changed(r),
        None => Incremental::Unchanged,
    })
}

/// What [`incremental`] found.
enum Incremental {
    /// No changed object's modifiers differ: the old result stands.
    Unchanged,
    /// The new result.
    Changed(Vec<(ObjId, AppliedMod)>),
}

/// Whether an aura is on: its holder is in the right zone and not silenced (a silenced
/// holder's own auras, class and given, are off; auras of others still reach it; a
/// granted silence switches off the auras of later layers).
fn zone_ok(
    world: &World,
    def: &AuraDef,
    holder: ObjId,
    given_in: Option<Sym>,
    silence: Option<Sym>,
) -> bool {
    world.object(holder).is_ok_and(|o| {
        !silence.is_some_and(|t| o.tags.contains(&t) || silenced_before(world, holder, t, def))
            && match &def.zones {
                AuraZones::Any => true,
                AuraZones::Listed(z) => z.contains(&o.zone),
                AuraZones::WhereGiven => given_in.is_none_or(|g| g == o.zone),
            }
    })
}

/// Whether the holder is granted the silence tag in a layer before every layer of the
/// aura's modifiers (an ability-removing effect): Humility removes a lord's ability in an
/// earlier layer than the lord's bonus applies, so the bonus never applies. A silence
/// granted in no layer leaves auras on (it still stops triggers). A removal of the
/// silence tag in such a layer counts too, in its order among the grants.
fn silenced_before(world: &World, holder: ObjId, silence: Sym, def: &AuraDef) -> bool {
    let early = world
        .modifiers(holder)
        .iter()
        .filter(|m| m.rank < def.first_rank);
    crate::state::tag_in_effect(false, silence, early)
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

/// The objects holding class auras that may be on, with their class's rank in
/// `aura_classes`, in that order then by id.
fn class_aura_holders(world: &World, gen: &Generation) -> Vec<(ObjId, u32)> {
    let rank = |r: usize| u32::try_from(r).unwrap_or(u32::MAX);
    // Look in the zones unless they hold many more objects than there are classes with
    // auras (a galaxy's one big zone): then look among those classes' objects.
    let by_zone = gen
        .aura_class_zones
        .as_ref()
        .filter(|zones| !holders_by_class(world, gen, zones));
    let Some(zones) = by_zone else {
        return gen
            .aura_classes
            .iter()
            .enumerate()
            .flat_map(|(r, c)| world.objects_of_class(*c).map(move |h| (h, rank(r))))
            .collect();
    };
    let mut found: Vec<(u32, ObjId)> = Vec::new();
    for z in zones {
        for h in world.objects_in_zone(*z) {
            let Ok(o) = world.object(h) else { continue };
            if let Some(r) = gen.aura_class_rank.get(&o.class) {
                found.push((rank(*r), h));
            }
        }
    }
    found.sort_unstable();
    found.into_iter().map(|(r, h)| (h, r)).collect()
}

/// The active auras that `want` keeps (given their key, holder and definition).
fn active_auras(
    world: &World,
    gen: &Generation,
    want: impl Fn(AuraKey, ObjId, &AuraDef) -> bool,
) -> Vec<Active> {
    let mut out = Vec::new();
    let holders = world.aura_holders.clone().unwrap_or_default();
    for &(holder, rank) in holders.iter() {
        let Some(def) = usize::try_from(rank)
            .ok()
            .and_then(|r| gen.aura_class_defs.get(r))
        else {
            continue;
        };
        for (i, aura) in def.auras.iter().enumerate() {
            let key = AuraKey::Class {
                holder,
                index: u16::try_from(i).unwrap_or(u16::MAX),
            };
            if !want(key, holder, aura) {
                continue;
            }
            let Ok(o) = world.object(holder) else {
                break;
            };
            if zone_ok(world, aura, holder, None, gen.world.silence_tag) {
                out.push(Active {
                    key,
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
        if want(AuraKey::Instance(n), inst.holder, def)
            && zone_ok(
                world,
                def,
                inst.holder,
                Some(inst.zone),
                gen.world.silence_tag,
            )
        {
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

/// The context auras are evaluated in (no controller: auras never ask for choices).
fn aura_cx<'a>(world: &'a World, gen: &'a Generation, rt: &'a Sandbox, scope: &'a Scope) -> Cx<'a> {
    Cx {
        world,
        gen,
        scope,
        controller: None,
        rt,
    }
}

/// The scope an aura is evaluated in: `self` is the holder (also `target` for `while`).
fn holder_scope(a: &Active) -> Scope {
    Scope {
        this: Some(a.holder),
        source: a.source,
        target: Some(a.holder),
        ..Scope::default()
    }
}

fn evaluate(
    world: &World,
    gen: &Generation,
    rt: &Sandbox,
    a: &Active,
    last: &mut LastGathered,
) -> Result<Vec<(ObjId, AppliedMod)>, RuleError> {
    let scope = holder_scope(a);
    let cx = aura_cx(world, gen, rt, &scope);
    let ctx = |e: RuleError| e.context(&a.def.origin);
    if let Some(w) = &a.def.while_ {
        if !w.test(&cx, a.holder).map_err(ctx)? {
            return Ok(Vec::new());
        }
    }
    let mut targets = Vec::new();
    match &a.def.select {
        Some(s) => last
            .select(&cx, s, a.def.sources_memo.as_ref(), &mut targets)
            .map_err(ctx)?,
        None => targets.push(a.holder),
    }
    let mut out = Vec::with_capacity(targets.len() * a.def.modifiers.len());
    let mut targets = targets.into_iter();
    if a.def.same_for_every_target {
        // The first target's modifiers, evaluated once, are every target's.
        let Some(first) = targets.next() else {
            return Ok(out);
        };
        evaluate_target(&cx, a, first, &mut out)?;
        let n = out.len();
        for t in targets {
            for k in 0..n {
                let m = out[k].1.clone();
                out.push((t, m));
            }
        }
        return Ok(out);
    }
    for t in targets {
        evaluate_target(&cx, a, t, &mut out)?;
    }
    Ok(out)
}

/// Appends the aura's modifiers on one target `t` (values with `t` as `target`).
fn evaluate_target(
    cx: &Cx<'_>,
    a: &Active,
    t: ObjId,
    out: &mut Vec<(ObjId, AppliedMod)>,
) -> Result<(), RuleError> {
    let ctx = |e: RuleError| e.context(&a.def.origin);
    let tscope = cx.scope.with_target(t);
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
                rank: m.rank,
                value,
                max,
                timestamp: a.timestamp,
                aura: a.key,
            },
        ));
    }
    Ok(())
}
