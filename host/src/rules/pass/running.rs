//! Running values of an effect pass's properties, kept aside while its effects apply.
//!
//! Most of a pass's work is one property of one object changed many times over (a
//! galaxy's 1,000 techs each add to the same planets' target meters). The running values
//! live here from the reset on:
//! - the reset puts a meter's reset value here ([`Running::seed`]), not in the world;
//! - the effects change the values here, and an effect's flat program reads the target's
//!   properties here first ([`Running::read`]), so it sees what earlier effects set; the
//!   properties programs read that no effect sets are kept here too, once read;
//! - before anything else reads the world — an effect value that is not a flat program
//!   (`source.output`, a count), a group's actions — the values set so far are written
//!   ([`Running::write_back`]), and after actions everything kept is forgotten
//!   ([`Running::forget`]): they may have changed anything;
//! - the clamps whose bounds are numbers or the object's own properties bound them here
//!   ([`Running::clamp`]);
//! - each property that ends different from what the world holds is written once
//!   ([`Running::flush`]). The world ends as if each step had written it.
//!
//! A turn that brings every meter back to what it was writes nothing, so the world copies
//! nothing and aura recompute has nothing to look at. The meters left that way are away
//! from their reset values without an edit: the reset's mark holds them
//! ([`World::hold`]), and the next reset visits them.

use std::sync::Arc;

use super::{base_number, meters, PassClamp};
use crate::id::Sym;
use crate::rules::expr::{Expr, Flat};
use crate::state::{Accounting, ObjId, StateError, Value, World};

/// One property of one object in a run, by column: its running value, or the world's
/// value once read, with what the flags say of it.
#[derive(Clone, Copy, Default)]
struct Cell {
    value: f64,
    flags: u8,
}

/// The cell holds a value (the world's, when not [`WRITTEN`]).
const KEPT: u8 = 1;
/// The world holds (or will hold) the value as a decimal.
const DECIMAL: u8 = 2;
/// The reset or an effect set it: the world must end with the value.
const WRITTEN: u8 = 4;
/// The reset set it (the world held another value).
const SEEDED: u8 = 8;

impl Cell {
    fn has(self, flag: u8) -> bool {
        self.flags & flag != 0
    }
}

/// What a run keeps of one object besides its cells.
struct Record {
    obj: ObjId,
    /// Whether a value set here may differ from the world's (listed in `pending`).
    pending: bool,
}

/// Where a running value is kept: its object's record and its cell.
#[derive(Clone, Copy)]
pub(super) struct At {
    record: usize,
    cell: usize,
}

/// The running values of one pass run, by object in the order first touched, and by
/// column: one for each property the pass resets or its effects set, then one for each
/// property its effects' flat programs read that it does not set.
///
/// Those reads are kept because only actions change such properties while the effects
/// apply (and actions make the run forget everything), and each look-up in the world
/// chases the object through its slot: a target read by many groups is looked up once.
/// An object is looked up here once for all the effects of a group, and a group finds
/// each effect's column once for all its targets ([`Running::column`]).
pub(super) struct Running {
    /// The columns' properties: the ones set first (`..set`), then the ones only read.
    keys: Box<[Sym]>,
    /// How many columns hold properties the pass sets.
    set: usize,
    /// Each object's record, by slot index (`NONE`: none yet).
    at: Vec<u32>,
    records: Vec<Record>,
    /// `keys.len()` cells a record, in record order.
    cells: Vec<Cell>,
    /// The records with values set since the last write-back.
    pending: Vec<usize>,
    /// Objects written before the flush (by [`Running::write_back`]).
    written: Vec<ObjId>,
    /// Objects held when their records were forgotten (see [`Flushed::held`]).
    held: Vec<ObjId>,
    /// The last shared target list whose records were looked up, and its records in
    /// order: the groups of one scope sit together in priority order (an empire's techs
    /// of one priority all target its planets with one focus).
    last_list: Option<(Arc<[ObjId]>, Vec<usize>)>,
}

/// No record.
const NONE: u32 = u32::MAX;

/// One effect of a group, planned for [`Running::apply_planned`]: the column of the
/// property it sets, that property's number in the accounting, and its flat program.
pub(super) struct Planned<'g> {
    pub(super) column: usize,
    pub(super) key: u32,
    pub(super) flat: &'g Flat,
}

impl Running {
    /// Running values for objects of `world`, with a column for each of `keys` (every
    /// property the pass resets or sets) and each of `reads` (properties its programs
    /// read and it does not set). Records are found by slot index (a pass
    /// touches many objects many times over, and an index is cheaper than a hash); the
    /// index has room for every slot but is filled only up to the highest slot touched
    /// (100,000 slots: 400 KB written each run, where a galaxy's effects touch its first
    /// 20,000).
    pub(super) fn new(
        world: &World,
        keys: impl IntoIterator<Item = Sym>,
        reads: &[Sym],
    ) -> Running {
        let mut keys: Vec<Sym> = keys.into_iter().collect();
        keys.sort_unstable();
        keys.dedup();
        let set = keys.len();
        for k in reads {
            if !keys.contains(k) {
                keys.push(*k);
            }
        }
        Running {
            keys: keys.into(),
            set,
            at: Vec::with_capacity(world.slot_count()),
            records: Vec::new(),
            cells: Vec::new(),
            pending: Vec::new(),
            written: Vec::new(),
            held: Vec::new(),
            last_list: None,
        }
    }

    /// The records of every object of `list`, in order (made empty the first time): the
    /// last list's again when it is the same list. Give them back with
    /// [`Running::keep_records`].
    pub(super) fn records_of(&mut self, list: &Arc<[ObjId]>) -> Vec<usize> {
        if let Some((last, records)) = self.last_list.take() {
            if Arc::ptr_eq(&last, list) {
                return records;
            }
        }
        list.iter().map(|&o| self.record(o)).collect()
    }

    /// Keeps `records`, the records of `list`, for the next group with the same list.
    pub(super) fn keep_records(&mut self, list: &Arc<[ObjId]>, records: Vec<usize>) {
        self.last_list = Some((list.clone(), records));
    }

    /// The column of `key` (`None`: the pass neither resets nor sets it).
    pub(super) fn column(&self, key: Sym) -> Option<usize> {
        self.keys.iter().position(|k| *k == key)
    }

    /// The record of `obj` (made empty the first time).
    pub(super) fn record(&mut self, obj: ObjId) -> usize {
        let i = obj.index as usize;
        if i >= self.at.len() {
            self.at.resize(i + 1, NONE);
        }
        if let Some(r) = self.at.get(i).and_then(|&n| self.records.get(n as usize)) {
            if r.obj == obj {
                return self.at[i] as usize;
            }
        }
        let n = self.records.len();
        // Records number at most the world's slots, whose indexes are u32 too.
        self.at[i] = u32::try_from(n).unwrap_or(NONE);
        self.records.push(Record {
            obj,
            pending: false,
        });
        self.cells
            .resize(self.cells.len() + self.keys.len(), Cell::default());
        n
    }

    /// The cells of `record`.
    fn cells_of(&mut self, record: usize) -> &mut [Cell] {
        let k = self.keys.len();
        &mut self.cells[record * k..(record + 1) * k]
    }

    /// Lists `record` for the next write-back.
    fn touch(&mut self, record: usize) {
        if let Some(r) = self.records.get_mut(record) {
            if !r.pending {
                r.pending = true;
                self.pending.push(record);
            }
        }
    }

    /// The reset put `key` of `obj` back to `value` (the world holds another value).
    pub(super) fn seed(&mut self, obj: ObjId, key: Sym, value: f64) {
        let Some(col) = self.column(key) else {
            return;
        };
        let record = self.record(obj);
        self.cells_of(record)[col] = Cell {
            value,
            flags: KEPT | DECIMAL | WRITTEN | SEEDED,
        };
        self.touch(record);
    }

    /// Where column `col` of the object of `record` is kept, with its running value
    /// (absent or not a number: 0) and whether it is a decimal.
    #[inline]
    pub(super) fn get(&mut self, world: &World, record: usize, col: usize) -> (At, f64, bool) {
        let cell = record * self.keys.len() + col;
        let c = self.cells[cell];
        let at = At { record, cell };
        if c.has(KEPT) {
            return (at, c.value, c.has(DECIMAL));
        }
        let (value, decimal) = self.load(world, cell, self.records[record].obj, col);
        (at, value, decimal)
    }

    /// The effective value of `key` of the object of `record`, as an effect reads it
    /// (absent: 0): over its running value when an effect or the reset set it, else from
    /// the world (once a run, for a property the pass does not set).
    #[inline]
    pub(super) fn read(&mut self, world: &World, record: usize, key: Sym) -> f64 {
        // The common case inline: a property only read, read before.
        if let Some(col) = self.column(key).filter(|&col| col >= self.set) {
            let cell = self.cells[record * self.keys.len() + col];
            if cell.has(KEPT) {
                return cell.value;
            }
        }
        self.read_world(world, record, key)
    }

    /// [`Running::read`] from the world: a property set (over its running value when
    /// written), or one only read, read for the first time (and kept).
    #[cold]
    #[inline(never)]
    fn read_world(&mut self, world: &World, record: usize, key: Sym) -> f64 {
        let obj = self.records[record].obj;
        let Some(col) = self.column(key) else {
            // Not a property any program of the pass reads: not kept.
            return world.get_number(obj, key).unwrap_or(0.0);
        };
        let cell = &mut self.cells[record * self.keys.len() + col];
        if col >= self.set {
            *cell = Cell {
                value: world.get_number(obj, key).unwrap_or(0.0),
                flags: KEPT,
            };
            return cell.value;
        }
        if cell.has(WRITTEN) {
            world.number_over(obj, key, cell.value)
        } else {
            world.get_number(obj, key).unwrap_or(0.0)
        }
    }

    /// Writes every value set so far that differs from what the world holds, before
    /// something reads the world itself. The values stay kept, as the world now holds them.
    pub(super) fn write_back(&mut self, world: &mut World) -> Result<(), StateError> {
        let k = self.keys.len();
        for n in std::mem::take(&mut self.pending) {
            let Some(r) = self.records.get_mut(n) else {
                continue;
            };
            r.pending = false;
            let mut wrote = false;
            let cells = &mut self.cells[n * k..n * k + self.set];
            let same = same_as_world(world, r.obj, &self.keys, cells);
            for ((key, c), same) in self.keys.iter().zip(cells).zip(same) {
                if !c.has(WRITTEN) || same {
                    continue;
                }
                world.set(r.obj, *key, Value::float(c.value))?;
                c.flags &= !(WRITTEN | SEEDED);
                wrote = true;
            }
            if wrote {
                self.written.push(r.obj);
            }
        }
        Ok(())
    }

    /// Forgets everything kept, after [`Running::write_back`] (actions ran: any value
    /// kept may be stale). Objects the reset put here that hold their old values stay
    /// held.
    pub(super) fn forget(&mut self) {
        self.pending.clear();
        self.last_list = None;
        let k = self.keys.len();
        for (n, r) in self.records.drain(..).enumerate() {
            let cells = &self.cells[n * k..(n + 1) * k];
            if cells.iter().any(|c| c.has(SEEDED) && c.has(WRITTEN)) {
                self.held.push(r.obj);
            }
            if let Some(at) = self.at.get_mut(r.obj.index as usize) {
                *at = NONE;
            }
        }
        self.cells.clear();
    }

    /// An effect set the property kept at `at` to `value` (a decimal; not a number
    /// reads 0 after, as the world would store it).
    #[inline]
    pub(super) fn set(&mut self, at: At, value: f64) {
        if let Some(c) = self.cells.get_mut(at.cell) {
            c.value = if value.is_nan() { 0.0 } else { value };
            c.flags |= KEPT | DECIMAL | WRITTEN;
            self.touch(at.record);
        }
    }

    /// Applies `plan` — a group's effects, each a flat program on a property kept here —
    /// to the objects of `records` in order, target by target, as the general step
    /// would (see `apply_effect`), recording each change in `book` under its group's
    /// number. A galaxy's turn applies ~50,000 effects this way: one call a group.
    ///
    /// Stops before the first (target, effect) whose program fails, returning their
    /// positions: the caller applies it and the rest the general way, which reports the
    /// failure.
    pub(super) fn apply_planned(
        &mut self,
        world: &World,
        records: &[usize],
        plan: &[Planned<'_>],
        mut book: Option<(&mut Accounting, u32)>,
    ) -> Result<(), (usize, usize)> {
        let k = self.keys.len();
        for (i, &record) in records.iter().enumerate() {
            let obj = self.records.get(record).ok_or((i, 0))?.obj;
            // Whether a value of this target was set (it is listed for write-back once).
            let mut set = false;
            for (n, p) in plan.iter().enumerate() {
                let cell = record * k + p.column;
                let c = *self.cells.get(cell).ok_or((i, n))?;
                let (before, decimal) = if c.has(KEPT) {
                    (c.value, c.has(DECIMAL))
                } else {
                    self.load(world, cell, obj, p.column)
                };
                let read = |key| self.read(world, record, key);
                let Some(after) = p.flat.eval_with(before, read) else {
                    if set {
                        self.touch(record);
                    }
                    return Err((i, n));
                };
                // A write over an equal decimal is skipped; a change is recorded.
                if !(decimal && after == before) {
                    if let Some(c) = self.cells.get_mut(cell) {
                        c.value = if after.is_nan() { 0.0 } else { after };
                        c.flags |= KEPT | DECIMAL | WRITTEN;
                    }
                    set = true;
                }
                if let Some((b, group)) = book.as_mut().filter(|_| after != before) {
                    b.push(obj, p.key, *group, before, after);
                }
            }
            if set {
                self.touch(record);
            }
        }
        Ok(())
    }

    /// The base value of the property of column `col` of `obj` (kept at `cell`), first
    /// read this run, kept: as [`Running::get`] reads it.
    #[cold]
    fn load(&mut self, world: &World, cell: usize, obj: ObjId, col: usize) -> (f64, bool) {
        let Some(&key) = self.keys.get(col) else {
            return (0.0, false);
        };
        let (value, decimal) = base_number(world, obj, key);
        if let Some(c) = self.cells.get_mut(cell) {
            *c = Cell {
                value,
                flags: KEPT | if decimal { DECIMAL } else { 0 },
            };
        }
        (value, decimal)
    }

    /// The running value of `key` of `obj`, when the reset or an effect set it.
    fn written(&self, obj: ObjId, key: Sym) -> Option<f64> {
        let n = *self.at.get(obj.index as usize)? as usize;
        self.records.get(n).filter(|r| r.obj == obj)?;
        let c = self.cells.get(n * self.keys.len() + self.column(key)?)?;
        c.has(WRITTEN).then_some(c.value)
    }

    /// Bounds the set values of every clamp whose bounds are numbers or properties of
    /// the object clamped (`target.max_troops`, read as the pass left it), recording each
    /// change under the label `clamp`. The other clamps bound the world after the flush.
    pub(super) fn clamp(
        &mut self,
        world: &World,
        clamps: &[PassClamp],
        mut book: Option<&mut Accounting>,
    ) {
        let k = self.keys.len();
        for c in clamps.iter().filter(|c| bounds_local(c)) {
            let Some(col) = self.column(c.key) else {
                continue;
            };
            for record in 0..self.records.len() {
                let cell = self.cells[record * k + col];
                if !cell.has(WRITTEN) {
                    continue;
                }
                let (obj, before) = (self.records[record].obj, cell.value);
                let bound = |e: &Expr| Ok::<_, std::convert::Infallible>(self.bound(world, obj, e));
                let Ok(v) = meters::clamped(c, before, bound);
                if v != before {
                    self.cells[record * k + col].value = v;
                    meters::record_clamp(book.as_deref_mut(), obj, c.key, before, v);
                }
            }
        }
    }

    /// A local bound's value for `obj`: a number, or the object's property as the pass
    /// left it (modifiers applied, as the world would read it).
    fn bound(&self, world: &World, obj: ObjId, e: &Expr) -> f64 {
        let Some(key) = e.target_key() else {
            return e.number().unwrap_or(0.0);
        };
        match self.written(obj, key) {
            Some(base) => world.number_over(obj, key, base),
            None => world.get_number(obj, key).unwrap_or(0.0),
        }
    }

    /// Writes every property the reset or an effect set that ends different from what
    /// the world holds, by object in the order first touched.
    pub(super) fn flush(self, world: &mut World) -> Result<Flushed, StateError> {
        let (mut held, mut written) = (self.held, self.written);
        let k = self.keys.len();
        for (n, r) in self.records.iter().enumerate() {
            let (mut holds, mut wrote) = (false, false);
            let cells = &self.cells[n * k..n * k + self.set];
            let same = same_as_world(world, r.obj, &self.keys, cells);
            for ((key, c), same) in self.keys.iter().zip(cells).zip(same) {
                if !c.has(WRITTEN) {
                    continue;
                }
                if !same {
                    world.set(r.obj, *key, Value::float(c.value))?;
                    wrote = true;
                } else if c.has(SEEDED) {
                    holds = true;
                }
            }
            if holds {
                held.push(r.obj);
            }
            if wrote {
                written.push(r.obj);
            }
        }
        held.sort_unstable();
        held.dedup();
        Ok(Flushed { held, written })
    }
}

/// For each of `cells` (the values of `keys`), whether it is written and the world holds
/// it for `obj` already (the same decimal, bit for bit): the object is looked up once.
fn same_as_world(
    world: &World,
    obj: ObjId,
    keys: &[Sym],
    cells: &[Cell],
) -> smallvec::SmallVec<[bool; 8]> {
    let Ok(o) = world.object(obj) else {
        return smallvec::smallvec![false; cells.len()];
    };
    // Only written values are compared: the callers skip the others.
    let same = |(key, c): (&Sym, &Cell)| {
        c.has(WRITTEN)
            && matches!(o.props.get(key), Some(Value::Float(x)) if x.to_bits() == c.value.to_bits())
    };
    keys.iter().zip(cells).map(same).collect()
}

/// What a flush did.
pub(super) struct Flushed {
    /// The objects the reset put here with a value that ends as the world holds it
    /// (away from its reset value, unwritten): the reset's mark holds them.
    pub(super) held: Vec<ObjId>,
    /// The objects written, in the order written.
    pub(super) written: Vec<ObjId>,
}

/// Whether a clamp's bounds are numbers or properties of the object clamped.
fn bounds_local(c: &PassClamp) -> bool {
    let local = |e: &Option<Expr>| {
        e.as_ref()
            .is_none_or(|e| e.number().is_some() || e.target_key().is_some())
    };
    local(&c.min) && local(&c.max)
}
