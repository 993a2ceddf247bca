//! Steps 2 and 4 of a pass: the reset (meters back to their reset values) and the
//! clamps (values within their bounds), and which objects each visits.
//!
//! Both visit the objects of the classes that declare their properties, and after the
//! first run under a generation only those edited since the step last finished (its
//! [`Mark`](crate::state::Mark)): the others are still as the step left them. One scan of
//! those classes finds the objects for both steps when the clamps may be listed before
//! the effects apply (a pass whose groups run no actions makes no objects).

use super::running::Running;
use super::{number, PassClamp, PassDef};
use crate::id::{Id, Sym};
use crate::rules::expr::Expr;
use crate::rules::{ActCx, Generation, RuleError, Scope};
use crate::state::{AccountEntry, Accounting, ObjId, Value, World};

/// The name of a pass's reset step in the world's marks.
pub(super) fn reset_step() -> Sym {
    static STEP: std::sync::OnceLock<Sym> = std::sync::OnceLock::new();
    *STEP.get_or_init(|| Sym::new("reset"))
}

/// The name of a pass's clamp step in the world's marks.
fn clamp_step() -> Sym {
    // Interned once: every clamped value is recorded under it.
    static STEP: std::sync::OnceLock<Sym> = std::sync::OnceLock::new();
    *STEP.get_or_init(|| Sym::new("clamp"))
}

/// The objects the reset and the clamps of one run visit.
pub(super) struct Visits {
    /// The reset's, in class order.
    pub(super) reset: Vec<ObjId>,
    /// The clamps', when listed before the effects (`None`: the clamp step lists them).
    pub(super) clamp: Option<Vec<ObjId>>,
}

/// What a step visits of the objects of the classes declaring its properties: those
/// edited since (`Some(edits)`), or all of them (`None`).
struct Wanted<'a> {
    keys: &'a [Sym],
    since: Option<u64>,
    out: Vec<ObjId>,
}

impl Wanted<'_> {
    fn declared_by(&self, gen: &Generation, class: &Id) -> bool {
        gen.classes
            .get(class)
            .is_some_and(|c| c.props.iter().any(|(k, _)| self.keys.contains(k)))
    }
}

/// The classes for which `wanted` holds, in id order (the order objects are visited).
fn classes_where(gen: &Generation, wanted: impl Fn(&Id) -> bool) -> Vec<&Id> {
    let mut classes: Vec<&Id> = gen.classes.keys().filter(|c| wanted(c)).collect();
    classes.sort_by_key(|id| id.as_str());
    classes
}

/// Lists, for each step, the objects of the classes declaring its properties (in class
/// id order) edited since its `since`: one pass over those classes, each object's edit
/// stamp read once; or, when every step has run before, one pass over the objects
/// edited since the earliest of them ([`scan_edited`]).
fn scan(world: &World, gen: &Generation, steps: &mut [Wanted<'_>]) {
    let classes = classes_where(gen, |c| steps.iter().any(|w| w.declared_by(gen, c)));
    let since = steps
        .iter()
        .filter(|w| !w.keys.is_empty())
        .try_fold(u64::MAX, |earliest, w| w.since.map(|s| earliest.min(s)));
    if since.is_some_and(|since| scan_edited(world, gen, &classes, steps, since)) {
        return;
    }
    let mut ids = Vec::new();
    for class in classes {
        let wants: Vec<bool> = steps.iter().map(|w| w.declared_by(gen, class)).collect();
        ids.clear();
        world.objects_of_class_into(*class, &mut ids);
        for &id in &ids {
            let Some(stamp) = world.edit_stamp(id) else {
                continue;
            };
            for (w, _) in steps.iter_mut().zip(&wants).filter(|(_, on)| **on) {
                if w.since.is_none_or(|e| stamp > e) {
                    w.out.push(id);
                }
            }
        }
    }
}

/// [`scan`] over the objects edited since `since` (the earliest step's), in the order
/// the scan of `classes` gives (class, then id): a turn edits few of a galaxy's objects,
/// and the world finds them without reading every stamp ([`World::edited_after`]).
/// `false` (nothing listed) when the world cannot say what was edited since.
fn scan_edited(
    world: &World,
    gen: &Generation,
    classes: &[&Id],
    steps: &mut [Wanted<'_>],
    since: u64,
) -> bool {
    let mut edited = Vec::new();
    if !world.edited_after(since, &mut edited) {
        return false;
    }
    let wants: Vec<Vec<bool>> = classes
        .iter()
        .map(|c| steps.iter().map(|w| w.declared_by(gen, c)).collect())
        .collect();
    let mut found: Vec<(usize, ObjId, u64)> = edited
        .into_iter()
        .filter_map(|id| {
            let class = world.object(id).ok()?.class;
            let rank = classes.iter().position(|c| **c == class)?;
            Some((rank, id, world.edit_stamp(id)?))
        })
        .collect();
    found.sort_unstable_by_key(|&(rank, id, _)| (rank, id));
    for (rank, id, stamp) in found {
        for (w, _) in steps.iter_mut().zip(&wants[rank]).filter(|(_, on)| **on) {
            if w.since.is_none_or(|e| stamp > e) {
                w.out.push(id);
            }
        }
    }
    true
}

/// The objects the reset visits and, when `clamps_early`, the clamps: one scan of the
/// classes declaring their properties (in class id order), each object's edit stamp
/// read once. The reset also visits the objects its mark holds.
pub(super) fn visits(
    world: &World,
    gen: &Generation,
    pass: &PassDef,
    clamps_early: bool,
) -> Visits {
    let reset_keys: Vec<Sym> = pass.reset.iter().map(|(k, _)| *k).collect();
    let clamp_keys = clamp_keys(pass);
    let reset_mark = world.mark(pass.id, reset_step(), gen.number);
    let mut steps = [
        Wanted {
            keys: &reset_keys,
            since: reset_mark.as_ref().map(|m| m.edits),
            out: Vec::new(),
        },
        Wanted {
            keys: if clamps_early { &clamp_keys } else { &[] },
            since: clamp_since(world, gen, pass),
            out: Vec::new(),
        },
    ];
    scan(world, gen, &mut steps);
    let [mut reset, clamp] = steps.map(|w| w.out);
    if let Some(m) = reset_mark {
        reset.extend(
            m.held
                .iter()
                .filter(|&&id| !world.edited_since(id, m.edits)),
        );
    }
    Visits {
        reset,
        clamp: clamps_early.then_some(clamp),
    }
}

/// The properties a pass's clamps bound.
fn clamp_keys(pass: &PassDef) -> Vec<Sym> {
    pass.clamps.iter().map(|c| c.key).collect()
}

/// The edit count since which the clamps must look again (`None`: at every object,
/// because a bound reads other objects or they have not run under this generation).
fn clamp_since(world: &World, gen: &Generation, pass: &PassDef) -> Option<u64> {
    if !pass.clamps_local {
        return None;
    }
    world
        .mark(pass.id, clamp_step(), gen.number)
        .map(|m| m.edits)
}

/// Step 2: the reset properties of each object of `ids` back to their reset values, in
/// the world, or into `running` when the pass keeps its values aside. Each object is read
/// once; only the properties that differ from their reset value are set (most objects a
/// pass leaves alone). Then the reset's mark is set.
pub(super) fn reset(
    world: &mut World,
    gen: &Generation,
    pass: &PassDef,
    ids: &[ObjId],
    mut running: Option<&mut Running>,
) {
    if pass.reset.is_empty() {
        return;
    }
    let mut stale: Vec<(Sym, f64)> = Vec::new();
    for &id in ids {
        let Ok(o) = world.object(id) else {
            continue;
        };
        stale.clear();
        for &(key, to) in &pass.reset {
            match o.props.get(&key) {
                None => {}
                Some(Value::Float(x)) if *x == to => {}
                Some(_) => stale.push((key, to)),
            }
        }
        for &(key, to) in &stale {
            match running.as_deref_mut() {
                Some(r) => r.seed(id, key, to),
                None => {
                    // The object was just read: the write cannot fail.
                    let _ = world.set(id, key, Value::float(to));
                }
            }
        }
    }
    world.set_mark(pass.id, reset_step(), gen.number);
}

/// Step 4: the clamps, on `holders` (listed before the effects, with the objects the
/// effects wrote added), or on the objects of the classes that declare their
/// properties and were edited since the clamps last ran. When every bound reads only
/// the object it bounds (`target.max_troops`, a number), an object not edited since is
/// still within them and is not looked at again.
pub(super) fn clamp(
    ax: &mut ActCx<'_>,
    pass: &PassDef,
    holders: Option<Vec<ObjId>>,
    mut book: Option<&mut Accounting>,
) -> Result<(), RuleError> {
    if pass.clamps.is_empty() {
        return Ok(());
    }
    // Listed once for every clamp (after the effects: their actions may have created
    // objects); each clamp then skips the objects without its property.
    let holders = match holders {
        Some(h) => h,
        None => visits_after_effects(ax.world, ax.gen, pass),
    };
    for c in &pass.clamps {
        for &id in &holders {
            let Some(before) = ax.world.base(id, c.key).map(number) else {
                continue;
            };
            let scope = Scope {
                target: Some(id),
                this: Some(id),
                ..Scope::default()
            };
            let cx = ax.cx();
            let cx = cx.with_scope(&scope);
            let v = clamped(c, before, |e| e.eval(&cx))?;
            if v != before {
                ax.world.set(id, c.key, Value::float(v))?;
                record_clamp(book.as_deref_mut(), id, c.key, before, v);
            }
        }
    }
    ax.world.set_mark(pass.id, clamp_step(), ax.gen.number);
    Ok(())
}

/// `before` within clamp `c`'s bounds (each evaluated by `bound`), the maximum first.
pub(super) fn clamped<E>(
    c: &PassClamp,
    before: f64,
    mut bound: impl FnMut(&Expr) -> Result<f64, E>,
) -> Result<f64, E> {
    let mut v = before;
    if let Some(max) = &c.max {
        v = v.min(bound(max)?);
    }
    if let Some(min) = &c.min {
        v = v.max(bound(min)?);
    }
    Ok(v)
}

/// Records a clamp's change of `key` of `obj` (its own source, labelled `clamp`).
pub(super) fn record_clamp(
    book: Option<&mut Accounting>,
    obj: ObjId,
    key: Sym,
    before: f64,
    after: f64,
) {
    if let Some(b) = book {
        let entry = AccountEntry {
            source: obj,
            label: clamp_step(),
            before,
            after,
        };
        b.record(obj, key, entry);
    }
}

/// The clamps' objects listed after the effects: those of the classes declaring the
/// clamped properties edited since the clamps last ran.
fn visits_after_effects(world: &World, gen: &Generation, pass: &PassDef) -> Vec<ObjId> {
    let keys = clamp_keys(pass);
    let mut step = [Wanted {
        keys: &keys,
        since: clamp_since(world, gen, pass),
        out: Vec::new(),
    }];
    scan(world, gen, &mut step);
    let [step] = step;
    step.out
}

/// The clamps' objects of a pass that listed them before its effects, with the objects
/// its flush wrote (edited since, whatever the mark) that a clamped property's class
/// declares; in id order, each once.
pub(super) fn with_written(
    gen: &Generation,
    world: &World,
    pass: &PassDef,
    mut listed: Vec<ObjId>,
    written: &[ObjId],
) -> Vec<ObjId> {
    let keys = clamp_keys(pass);
    let clamped = Wanted {
        keys: &keys,
        since: None,
        out: Vec::new(),
    };
    let declares = |id: &ObjId| {
        world
            .object(*id)
            .is_ok_and(|o| clamped.declared_by(gen, &o.class))
    };
    listed.extend(written.iter().filter(|id| declares(id)));
    listed.sort_unstable();
    listed.dedup();
    listed
}
