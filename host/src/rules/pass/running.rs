//! Running values of an effect pass's properties, kept aside while its effects apply.
//!
//! Most of a pass's work is one property of one object changed many times over (a
//! galaxy's 1,000 techs each add to the same planets' target meters). The running values
//! live here from the reset on:
//! - the reset puts a meter's reset value here ([`Running::seed`]), not in the world;
//! - the effects change the values here, and an effect's flat program reads the target's
//!   properties here first ([`Running::read`]), so it sees what earlier effects set;
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

use super::{base_number, meters, PassClamp};
use crate::id::Sym;
use crate::rules::expr::Expr;
use crate::state::{Accounting, ObjId, StateError, Value, World};

/// A property's running value during one pass, or a value an effect read.
struct Kept {
    key: Sym,
    value: f64,
    /// Whether it is a value read (an effective value, cached), not a running value.
    read: bool,
    /// Whether the world holds (or will hold) it as a decimal.
    decimal: bool,
    /// Whether the reset or an effect set it (the world must end with `value`).
    written: bool,
    /// Whether the reset set it (the world held another value).
    seeded: bool,
}

/// What a run keeps of one object: its running values and the values its effects read.
struct Record {
    obj: ObjId,
    kept: smallvec::SmallVec<[Kept; 4]>,
    /// Whether a value set here may differ from the world's (listed in `pending`).
    pending: bool,
}

/// Where a running value is kept: its object's record and its place there.
#[derive(Clone, Copy)]
pub(super) struct At {
    record: usize,
    kept: usize,
}

/// The running values of one pass run, by object in the order first touched.
///
/// Reads of properties no effect has set are cached too: only the pass's own writes and
/// actions change the world while its effects apply, and each look-up in the world
/// chases the object through its slot, so a target read by many groups is looked up
/// once. An object is looked up here once for all the effects of a group.
pub(super) struct Running {
    /// Each object's record, by slot index (`NONE`: none yet).
    at: Vec<u32>,
    records: Vec<Record>,
    /// The records with values set since the last write-back.
    pending: Vec<usize>,
    /// Objects written before the flush (by [`Running::write_back`]).
    written: Vec<ObjId>,
    /// Objects held when their records were forgotten (see [`Flushed::held`]).
    held: Vec<ObjId>,
}

/// No record.
const NONE: u32 = u32::MAX;

impl Running {
    /// Room for every object of `world` (indexed by slot: a pass touches many objects
    /// many times over, and an index is cheaper than a hash).
    pub(super) fn new(world: &World) -> Running {
        Running {
            at: vec![NONE; world.slot_count()],
            records: Vec::new(),
            pending: Vec::new(),
            written: Vec::new(),
            held: Vec::new(),
        }
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
            kept: smallvec::SmallVec::new(),
            pending: false,
        });
        n
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
        let record = self.record(obj);
        let kept = Kept {
            key,
            value,
            read: false,
            decimal: true,
            written: true,
            seeded: true,
        };
        let r = &mut self.records[record];
        match r.kept.iter_mut().find(|k| k.key == key && !k.read) {
            Some(k) => *k = kept,
            None => r.kept.push(kept),
        }
        self.touch(record);
    }

    /// Where `key` of the object of `record` is kept, with its running value (absent or
    /// not a number: 0) and whether it is a decimal.
    pub(super) fn get(&mut self, world: &World, record: usize, key: Sym) -> (At, f64, bool) {
        let r = &mut self.records[record];
        if let Some(n) = r.kept.iter().position(|k| k.key == key && !k.read) {
            let k = &r.kept[n];
            return (At { record, kept: n }, k.value, k.decimal);
        }
        let (value, decimal) = base_number(world, r.obj, key);
        r.kept.push(Kept {
            key,
            value,
            read: false,
            decimal,
            written: false,
            seeded: false,
        });
        let at = At {
            record,
            kept: r.kept.len() - 1,
        };
        (at, value, decimal)
    }

    /// The effective value of `key` of the object of `record`, as an effect reads it
    /// (absent: 0): over its running value when an effect or the reset set it, else from
    /// the world, once a run.
    pub(super) fn read(&mut self, world: &World, record: usize, key: Sym) -> f64 {
        let r = &mut self.records[record];
        // A running value comes first; a cached read stands for none (kept only while
        // no effect has set the key).
        let mut cached = None;
        for k in r.kept.iter().filter(|k| k.key == key) {
            match (k.read, k.written) {
                (true, _) => cached = Some(k.value),
                (false, true) => return world.number_over(r.obj, key, k.value),
                // Kept but not set since the world last got it: the world is current.
                (false, false) => return world.get_number(r.obj, key).unwrap_or(0.0),
            }
        }
        if let Some(v) = cached {
            return v;
        }
        let value = world.get_number(r.obj, key).unwrap_or(0.0);
        r.kept.push(Kept {
            key,
            value,
            read: true,
            decimal: false,
            written: false,
            seeded: false,
        });
        value
    }

    /// Writes every value set so far that differs from what the world holds, before
    /// something reads the world itself. The values stay kept, as the world now holds them.
    pub(super) fn write_back(&mut self, world: &mut World) -> Result<(), StateError> {
        for n in std::mem::take(&mut self.pending) {
            let Some(r) = self.records.get_mut(n) else {
                continue;
            };
            r.pending = false;
            let mut wrote = false;
            for k in r.kept.iter_mut().filter(|k| k.written) {
                if same_as_world(world, r.obj, k) {
                    continue;
                }
                world.set(r.obj, k.key, Value::float(k.value))?;
                (k.written, k.seeded, wrote) = (false, false, true);
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
        for r in self.records.drain(..) {
            if r.kept.iter().any(|k| k.seeded && k.written) {
                self.held.push(r.obj);
            }
            if let Some(at) = self.at.get_mut(r.obj.index as usize) {
                *at = NONE;
            }
        }
    }

    /// An effect set the property kept at `at` to `value` (a decimal; not a number
    /// reads 0 after, as the world would store it).
    pub(super) fn set(&mut self, at: At, value: f64) {
        let kept = self
            .records
            .get_mut(at.record)
            .and_then(|r| r.kept.get_mut(at.kept));
        if let Some(k) = kept {
            k.value = if value.is_nan() { 0.0 } else { value };
            k.decimal = true;
            k.written = true;
            self.touch(at.record);
        }
    }

    /// The running value of `key` of `obj`, when the reset or an effect set it.
    fn written(&self, obj: ObjId, key: Sym) -> Option<f64> {
        let n = *self.at.get(obj.index as usize)?;
        let r = self.records.get(n as usize).filter(|r| r.obj == obj)?;
        let k = r.kept.iter().find(|k| k.key == key && !k.read)?;
        k.written.then_some(k.value)
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
        for c in clamps.iter().filter(|c| bounds_local(c)) {
            for record in 0..self.records.len() {
                let r = &self.records[record];
                let found = r.kept.iter().position(|k| k.key == c.key && !k.read);
                let Some(n) = found.filter(|&n| r.kept[n].written) else {
                    continue;
                };
                let (obj, before) = (r.obj, r.kept[n].value);
                let bound = |e: &Expr| Ok::<_, std::convert::Infallible>(self.bound(world, obj, e));
                let Ok(v) = meters::clamped(c, before, bound);
                if v != before {
                    self.records[record].kept[n].value = v;
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
        for r in self.records {
            let (mut holds, mut wrote) = (false, false);
            for k in r.kept.iter().filter(|k| k.written) {
                if !same_as_world(world, r.obj, k) {
                    world.set(r.obj, k.key, Value::float(k.value))?;
                    wrote = true;
                } else if k.seeded {
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

/// Whether the world holds `k`'s value for `obj` already (the same decimal, bit for bit).
fn same_as_world(world: &World, obj: ObjId, k: &Kept) -> bool {
    matches!(world.base(obj, k.key), Some(Value::Float(x)) if x.to_bits() == k.value.to_bits())
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
