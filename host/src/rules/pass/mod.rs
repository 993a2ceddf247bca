//! Effect passes: the once-a-turn application of every class's effects groups of one pass
//! (`[pass.NAME]`, `[[class.NAME.effects]]`), as a 4X game's turn processing applies its
//! content's effects (FreeOrion's effects application is the model).
//!
//! A run of a pass:
//! 1. **Match** — every effects group of the pass, for every holder (an object of a class
//!    that has the group, in one of the group's zones), is matched against the world as
//!    it is before anything changes: its source resolved, its activation tested on the
//!    source, its scope selected.
//! 2. **Reset** — the pass's `reset` properties go back to their reset values on every
//!    object whose class declares them (maximum and target meters are recomputed from
//!    nothing each run; current values carry over).
//! 3. **Apply** — the matched groups apply in priority order (lower first), then holder
//!    order, then their order in the class. Each effect sets one property of each target
//!    from an expression in which `value` is that property's running value and
//!    `effect_target` the target (also inside the expression's nested selections), so
//!    `value * 2` at a later priority doubles what earlier groups added. A stacking group
//!    claims a target for the first group of it that applies; later groups of the same
//!    stacking group skip that target. The running values are kept aside and each
//!    changed property is written once, unless the pass writes a property the world's
//!    own rules act on (health, the slot); whatever reads the world itself (an action, a
//!    value that is not a flat program) first gets the values set so far ([`running`]).
//! 4. **Clamp** — the pass's clamps bound their properties (current ≤ maximum) on every
//!    object whose class declares them.
//!
//! A group whose activation, scope or value names an object that does not exist
//! (`source.system` of a source in no system) does nothing there, rather than failing the
//! turn. Every change an effect or clamp makes is recorded in the world's
//! [`Accounting`](crate::state::Accounting) with the group's label. Values written are
//! decimal (`Value::Float`). The pass owns nothing between runs but that accounting.

mod meters;
mod order;
mod running;
mod scopes;
mod writes;

use std::collections::HashSet;

use order::apply_order;
use running::{Planned, Running};
use scopes::{ScopeCache, Targets};
pub(crate) use writes::pass_writes;
pub use writes::PassWrites;

use crate::id::IdHash;
use crate::id::{Id, Sym};
use crate::rules::expr::{Expr, Flat, ObjRef};
use crate::rules::registry::{Action, Condition};
use crate::rules::select::{Select, SelectMemo};
use crate::rules::{ActCx, Generation, Origin, RuleError, Scope};
use crate::state::{Accounting, ObjId, Value, World};

/// A compiled `[pass.NAME]`.
#[derive(Debug)]
pub struct PassDef {
    /// Its id (`ns:pass/NAME`).
    pub id: Id,
    /// Properties reset before the effects apply, with their reset values.
    pub reset: Vec<(Sym, f64)>,
    /// Bounds applied after the effects.
    pub clamps: Vec<PassClamp>,
    /// Whether every clamp's bounds read only the object clamped (`target.key`, numbers),
    /// so a run may skip the objects not edited since the last.
    pub clamps_local: bool,
    /// Whether changes are recorded for `tessera explain`.
    pub accounting: bool,
    /// Where it is written.
    pub origin: Origin,
}

/// One clamp of a pass: bounds evaluated with `target` = the object.
#[derive(Debug)]
pub struct PassClamp {
    /// The property.
    pub key: Sym,
    /// The lowest value.
    pub min: Option<Expr>,
    /// The highest value.
    pub max: Option<Expr>,
}

/// A compiled effects group of a class.
#[derive(Debug)]
pub struct EffectsGroupDef {
    /// The pass it belongs to.
    pub pass: Id,
    /// Whom it acts for (`None`: the holder).
    pub source: Option<ObjRef>,
    /// Which objects it changes (`None`: the source).
    pub scope: Option<Select>,
    /// How a run may reuse its scope's selection for other groups (`None`: it may not).
    pub scope_memo: Option<SelectMemo>,
    /// How a run may reuse its scope's gathered sources for a group selecting the same
    /// sources with another `where` (an empire's planets by focus).
    pub sources_memo: Option<SelectMemo>,
    /// A condition on the source.
    pub activation: Option<Box<dyn Condition>>,
    /// Zones the holder must be in (`None`: any).
    pub zones: Option<Vec<Sym>>,
    /// Its stacking group.
    pub stacking: Option<Sym>,
    /// Lower applies first.
    pub priority: i32,
    /// The accounting label.
    pub label: Sym,
    /// The properties it sets, in order.
    pub effects: Vec<(Sym, Expr)>,
    /// Each effect's value as a flat program, where it compiles to one (`effects`'
    /// order): applied to every target, it is the pass's most evaluated expression.
    pub(crate) flat: Vec<Option<Flat>>,
    /// Actions run on its targets after the properties.
    pub actions: Vec<Box<dyn Action>>,
    /// Where it is written.
    pub origin: Origin,
}

/// What a run of a pass did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PassReport {
    /// Groups that matched (active, with their source present).
    pub groups: usize,
    /// Target applications (a group on one target), stacking skips excluded.
    pub applied: usize,
    /// Applications skipped because the target's stacking group was taken.
    pub stacked: usize,
}

/// One matched group: what it will change, ordered by `(priority, holder, index)`.
struct Matched<'g> {
    priority: i32,
    holder: ObjId,
    index: usize,
    group: &'g EffectsGroupDef,
    source: ObjId,
    targets: Targets,
}

/// Runs `pass` once. Errors (an expression dividing by zero, a plugin fault) name the
/// group and roll back the whole command, like any action's.
pub fn run(ax: &mut ActCx<'_>, pass: &PassDef) -> Result<PassReport, RuleError> {
    let gen = ax.gen;
    let matched = match_groups(ax, gen, pass.id)?;
    let order = apply_order(&matched);
    let writes = ax.gen.pass_writes.get(&pass.id);
    let buffered = writes.is_some_and(|w| writes::world_allows(ax.world, &w.keys));
    let mut running = writes.filter(|_| buffered).map(|w| {
        let reset = pass.reset.iter().map(|(k, _)| *k);
        Running::new(ax.world, w.keys.iter().copied().chain(reset), &w.reads)
    });
    // A pass whose groups run no actions makes no objects: its clamps' objects can be
    // listed with the reset's, in one scan (with what its writes edit added).
    let clamps_early = buffered && writes.is_some_and(|w| !w.actions);
    let visits = meters::visits(ax.world, ax.gen, pass, clamps_early);
    meters::reset(ax.world, ax.gen, pass, &visits.reset, running.as_mut());
    let mut st = Applying {
        claimed: HashSet::default(),
        running,
        book: pass
            .accounting
            .then(|| Accounting::sized_like(ax.world.accounting())),
        group: 0,
        actions_ran: false,
        report: PassReport {
            groups: matched.len(),
            ..PassReport::default()
        },
    };
    let saved = ax.scope.clone();
    for m in order.iter().filter_map(|&n| matched.get(n as usize)) {
        if let Err(e) = apply(ax, m, &mut st) {
            ax.scope = saved;
            return Err(in_group(m.group, e));
        }
    }
    ax.scope = saved;
    let mut holders = visits.clamp;
    if let Some(mut r) = st.running.take() {
        r.clamp(ax.world, &pass.clamps, st.book.as_mut());
        let flushed = r.flush(ax.world)?;
        ax.world.hold(pass.id, meters::reset_step(), flushed.held);
        holders =
            holders.map(|h| meters::with_written(ax.gen, ax.world, pass, h, &flushed.written));
    }
    meters::clamp(ax, pass, holders, st.book.as_mut())?;
    if let Some(book) = st.book {
        ax.world.set_accounting(book);
    }
    Ok(st.report)
}

/// What the apply step carries from one matched group to the next.
struct Applying {
    /// The (target, stacking group) pairs claimed so far.
    claimed: HashSet<(ObjId, Sym), IdHash>,
    /// The running values, when the pass keeps them aside ([`running`]).
    running: Option<Running>,
    /// The changes made, when the pass records them.
    book: Option<Accounting>,
    /// The matched group's (source, label) number in `book`.
    group: u32,
    /// Whether a group's actions have run (they may have destroyed targets).
    actions_ran: bool,
    report: PassReport,
}

fn in_group(g: &EffectsGroupDef, e: RuleError) -> RuleError {
    RuleError::In {
        what: g.origin.to_string(),
        source: Box::new(e),
    }
}

/// Step 1: every group of the pass on every holder, matched against the world as it is.
fn match_groups<'g>(
    ax: &ActCx<'_>,
    gen: &'g Generation,
    pass: Id,
) -> Result<Vec<Matched<'g>>, RuleError> {
    let mut out = Vec::new();
    let mut holders = Vec::new();
    let mut cache = ScopeCache::default();
    for class in &gen.effects_classes {
        let Some(def) = gen.classes.get(class) else {
            continue;
        };
        if !def.effects.iter().any(|g| g.pass == pass) {
            continue;
        }
        holders.clear();
        ax.world.objects_of_class_into(*class, &mut holders);
        for &holder in &holders {
            for (index, group) in def.effects.iter().enumerate() {
                if group.pass != pass {
                    continue;
                }
                if let Some(m) = match_one(ax, &mut cache, holder, index, group)
                    .map_err(|e| in_group(group, e))?
                {
                    out.push(m);
                }
            }
        }
    }
    Ok(out)
}

/// One group on one holder: `None` when it is off (zone, activation, no source).
fn match_one<'g>(
    ax: &ActCx<'_>,
    cache: &mut ScopeCache,
    holder: ObjId,
    index: usize,
    group: &'g EffectsGroupDef,
) -> Result<Option<Matched<'g>>, RuleError> {
    let world = &*ax.world;
    let Ok(h) = world.object(holder) else {
        return Ok(None);
    };
    if group.zones.as_ref().is_some_and(|z| !z.contains(&h.zone)) {
        return Ok(None);
    }
    let owner = h.owner;
    let mut scope = Scope {
        this: Some(holder),
        player: owner,
        ..Scope::default()
    };
    let source = match &group.source {
        None => holder,
        Some(r) => match r.resolve(&ax.cx().with_scope(&scope)) {
            Ok(s) if world.object(s).is_ok() => s,
            Ok(_) | Err(RuleError::NoObject(_)) => return Ok(None),
            Err(e) => return Err(e),
        },
    };
    scope.source = Some(source);
    let cx = ax.cx();
    let cx = cx.with_scope(&scope);
    if let Some(cond) = &group.activation {
        let tested = scope.with_target(source);
        if !absent_is_none(cond.test(&cx.with_scope(&tested), source))?.unwrap_or(false) {
            return Ok(None);
        }
    }
    let targets = match &group.scope {
        Some(sel) => match cache.select(&cx, sel, (&group.scope_memo, &group.sources_memo))? {
            Some(t) => t,
            None => return Ok(None),
        },
        None => Targets::One(source),
    };
    Ok(Some(Matched {
        priority: group.priority,
        holder,
        index,
        group,
        source,
        targets,
    }))
}

/// A group whose activation or scope names an object that does not exist (`source.system`
/// of a source in no system) matches nothing, as in FreeOrion; other errors stand.
fn absent_is_none<T>(r: Result<T, RuleError>) -> Result<Option<T>, RuleError> {
    match r {
        Ok(v) => Ok(Some(v)),
        Err(RuleError::NoObject(what)) => {
            tracing::debug!(%what, "an effects group names no object: it matches nothing");
            Ok(None)
        }
        Err(e) => Err(e),
    }
}

/// A base value as a number (not a number: 0).
fn number(v: &Value) -> f64 {
    v.as_f64().unwrap_or(0.0)
}

/// A property's base value as an effect starts from it (absent: 0), and whether it is a
/// decimal (a write over an equal decimal is skipped).
fn base_number(world: &World, obj: ObjId, key: Sym) -> (f64, bool) {
    match world.base(obj, key) {
        Some(v) => (number(v), matches!(v, Value::Float(_))),
        None => (0.0, false),
    }
}

/// Step 3 for one matched group: its effects on each target it still may change.
fn apply(ax: &mut ActCx<'_>, m: &Matched<'_>, st: &mut Applying) -> Result<(), RuleError> {
    let g = m.group;
    if let Some(b) = st.book.as_mut() {
        st.group = b.group(m.source, g.label);
    }
    // The targets the group's actions get (listed only when it has actions).
    let mut acted = Vec::new();
    // Each effect's column among the running values, found once for every target, and
    // its property's number in the accounting (pushed one by one: collecting into a
    // small vector costs more than the look-ups, twice a group).
    let mut columns = smallvec::SmallVec::<[Option<usize>; 4]>::new();
    let mut keys = smallvec::SmallVec::<[u32; 4]>::new();
    for (k, _) in &g.effects {
        if let Some(r) = st.running.as_ref() {
            columns.push(r.column(*k));
        }
        if let Some(b) = st.book.as_mut() {
            keys.push(b.key(*k));
        }
    }
    // The records of a shared list, looked up once for the groups that share it.
    let listed = match (&m.targets, st.running.as_mut()) {
        (Targets::Many(list), Some(r)) => Some(r.records_of(list)),
        _ => None,
    };
    // A shared list's targets in one call when it can; the general loop goes on from
    // where that stopped.
    let (from, first_effect) = match &listed {
        Some(records) => apply_listed(ax.world, m, records, (&columns, &keys), st),
        None => (0, 0),
    };
    for (i, &t) in m.targets.as_slice().iter().enumerate().skip(from) {
        // Effects only set properties: until an action runs, every matched target lives.
        if st.actions_ran && ax.world.object(t).is_err() {
            continue;
        }
        if let Some(stack) = g.stacking {
            if !st.claimed.insert((t, stack)) {
                st.report.stacked += 1;
                continue;
            }
        }
        st.report.applied += 1;
        if !g.actions.is_empty() {
            acted.push(t);
        }
        // One look-up of the target's record for all the group's effects.
        let record = match &listed {
            Some(records) => records.get(i).copied(),
            None => st.running.as_mut().map(|r| r.record(t)),
        };
        let skipped = if i == from { first_effect } else { 0 };
        for (n, (key, expr)) in g.effects.iter().enumerate().skip(skipped) {
            let flat = g.flat.get(n).and_then(Option::as_ref);
            let kept = record.zip(columns.get(n).copied().flatten());
            let numbered = keys.get(n).copied().unwrap_or(u32::MAX);
            apply_effect(ax, m, (t, kept), (*key, numbered, expr, flat), st)?;
        }
    }
    if let (Targets::Many(list), Some(records), Some(r)) = (&m.targets, listed, st.running.as_mut())
    {
        r.keep_records(list, records);
    }
    if !g.actions.is_empty() && !acted.is_empty() {
        ax.scope = Scope {
            this: Some(m.holder),
            source: Some(m.source),
            ..Scope::default()
        };
        st.actions_ran = true;
        // Actions read and change the world itself: it gets the values set so far, and
        // what was kept may be stale after.
        if let Some(r) = st.running.as_mut() {
            r.write_back(ax.world)?;
            r.forget();
        }
        for a in &g.actions {
            a.run(ax, &acted)?;
        }
    }
    Ok(())
}

/// Step 3 for a matched group's shared list (`records`, its targets' records) in one
/// call ([`Running::apply_planned`]), when every effect of the group is a flat program
/// on a property kept aside (`columns`, `keys`: as [`apply`] found them), it claims no
/// stacking group and every target lives. Returns the target and the effect the general
/// step goes on from: `(records.len(), 0)` when all applied, `(0, 0)` when none did.
fn apply_listed(
    world: &World,
    m: &Matched<'_>,
    records: &[usize],
    (columns, keys): (&[Option<usize>], &[u32]),
    st: &mut Applying,
) -> (usize, usize) {
    let g = m.group;
    if g.stacking.is_some() {
        return (0, 0);
    }
    // Effects only set properties: until an action runs, every matched target lives.
    let live = !st.actions_ran || m.targets.as_slice().iter().all(|&t| world.exists(t));
    let (Some(plan), Some(r), true) = (plan(g, columns, keys), st.running.as_mut(), live) else {
        return (0, 0);
    };
    let book = st.book.as_mut().map(|b| (b, st.group));
    let (from, first_effect) = r
        .apply_planned(world, records, &plan, book)
        .err()
        .unwrap_or((records.len(), 0));
    st.report.applied += from;
    (from, first_effect)
}

/// The plan of `g`'s effects for [`Running::apply_planned`] (`columns` and `keys` as
/// [`apply`] found them among the running values and in the accounting), when every
/// effect is a flat program on a property kept aside and the group runs no actions.
fn plan<'g>(
    g: &'g EffectsGroupDef,
    columns: &[Option<usize>],
    keys: &[u32],
) -> Option<smallvec::SmallVec<[Planned<'g>; 4]>> {
    if !g.actions.is_empty() || columns.len() != g.effects.len() {
        return None;
    }
    let mut plan = smallvec::SmallVec::new();
    for n in 0..g.effects.len() {
        plan.push(Planned {
            column: (*columns.get(n)?)?,
            key: keys.get(n).copied().unwrap_or(u32::MAX),
            flat: g.flat.get(n)?.as_ref()?,
        });
    }
    Some(plan)
}

/// One effect of a matched group on target `t` (with its record and the key's column
/// when the pass keeps running values aside): `key` (numbered in the accounting)
/// set to `expr` (run as its flat program when it has one), with `value` the property's
/// running value.
fn apply_effect(
    ax: &mut ActCx<'_>,
    m: &Matched<'_>,
    (t, kept): (ObjId, Option<(usize, usize)>),
    (key, numbered, expr, flat): (Sym, u32, &Expr, Option<&Flat>),
    st: &mut Applying,
) -> Result<(), RuleError> {
    // Absent counts as 0; a write is skipped only over an equal decimal (a pass that
    // changes nothing leaves nothing for aura recompute to look at).
    let record = kept.map(|(record, _)| record);
    let (kept, before, decimal) = match (st.running.as_mut(), kept) {
        (Some(r), Some((record, col))) => {
            let (at, v, decimal) = r.get(ax.world, record, col);
            (Some(at), v, decimal)
        }
        _ => {
            let (v, decimal) = base_number(ax.world, t, key);
            (None, v, decimal)
        }
    };
    let fast = match (flat, st.running.as_mut(), record) {
        (Some(f), Some(r), Some(record)) => {
            let world = &*ax.world;
            f.eval_with(before, |k| r.read(world, record, k))
        }
        (Some(f), _, _) => f.eval(ax.world, t, before),
        (None, _, _) => None,
    };
    let after = match fast {
        Some(after) => after,
        None => {
            // A value that is not a flat program reads the world itself: it gets the
            // values set so far.
            if let Some(r) = st.running.as_mut() {
                r.write_back(ax.world)?;
            }
            ax.scope = Scope {
                this: Some(m.holder),
                source: Some(m.source),
                target: Some(t),
                value: Some(before),
                effect_target: Some(t),
                ..Scope::default()
            };
            // A value naming no object leaves the property as it is (FreeOrion's
            // references to nothing read as nothing).
            let Some(after) = absent_is_none(expr.eval(&ax.cx()))? else {
                return Ok(());
            };
            after
        }
    };
    if !(decimal && after == before) {
        match (kept, st.running.as_mut()) {
            (Some(at), Some(r)) => r.set(at, after),
            _ => {
                ax.world.set(t, key, Value::float(after))?;
            }
        }
    }
    if let Some(b) = st.book.as_mut() {
        if after != before {
            b.push(t, numbered, st.group, before, after);
        }
    }
    Ok(())
}

/// Whether an expression reads nothing but properties of the object it is evaluated on
/// (`target.key`, numbers): its value for an object changes only when that object does.
pub(crate) fn reads_only_target(e: &Expr) -> bool {
    let mut d = crate::state::Deps::default();
    e.deps(&mut d);
    !d.everything && !d.scoped && !d.structural && d.nontarget.is_empty()
}
