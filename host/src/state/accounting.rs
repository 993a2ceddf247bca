//! Effect accounting: which effects group moved which property of which object, by how
//! much, in the last run of an effect pass (`rules::pass` records it; `tessera explain`
//! and scenario expectations read it). It explains state and is not state itself: the
//! checksum leaves it out and saves do not keep it (the next pass records it again).

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use super::{IdHash, ObjId, World};
use crate::id::Sym;

/// One change an effects group made to one property.
#[derive(Debug, Clone, PartialEq)]
pub struct AccountEntry {
    /// The object the group acted for (`source`).
    pub source: ObjId,
    /// The group's accounting label (interned: a pass records one entry per change, and
    /// copying a symbol costs nothing where sharing a string counted references).
    pub label: Sym,
    /// The value before the group applied.
    pub before: f64,
    /// The value after.
    pub after: f64,
}

impl AccountEntry {
    /// One line: `label: before -> after` (numbers to six decimals, trailing zeros off).
    pub fn describe(&self) -> String {
        format!(
            "{}: {} -> {}",
            self.label,
            decimal(self.before),
            decimal(self.after)
        )
    }
}

/// A decimal number as people write it: `2`, `2.5`, `0.3` (rounded to a millionth).
pub fn decimal(x: f64) -> String {
    let r = (x * 1e6).round() / 1e6;
    if r == 0.0 {
        "0".to_owned()
    } else {
        format!("{r}")
    }
}

/// Every recorded change of the last pass, in the order applied. A pass records tens of
/// thousands of changes and most are never asked about, so recording appends to a list
/// and the index by (object, property) is built on the first question.
#[derive(Debug, Clone, Default)]
pub struct Accounting {
    entries: Vec<(ObjId, Sym, AccountEntry)>,
    /// Positions in `entries` by (object, property), hashed by identity (engine keys).
    index: OnceLock<HashMap<(ObjId, Sym), smallvec::SmallVec<[u32; 1]>, IdHash>>,
}

impl PartialEq for Accounting {
    fn eq(&self, other: &Accounting) -> bool {
        self.entries == other.entries
    }
}

impl Accounting {
    /// Records a change.
    #[inline]
    pub fn record(&mut self, obj: ObjId, key: Sym, entry: AccountEntry) {
        self.entries.push((obj, key, entry));
        // A pass records many changes before anyone asks: the index is dropped only when
        // one was built.
        if self.index.get().is_some() {
            self.index.take();
        }
    }

    fn index(&self) -> &HashMap<(ObjId, Sym), smallvec::SmallVec<[u32; 1]>, IdHash> {
        self.index.get_or_init(|| {
            let mut index: HashMap<_, smallvec::SmallVec<[u32; 1]>, IdHash> = HashMap::default();
            for (n, (obj, key, _)) in self.entries.iter().enumerate() {
                // A pass records far fewer than 2^32 changes; more would be dropped here
                // rather than mis-indexed.
                if let Ok(n) = u32::try_from(n) {
                    index.entry((*obj, *key)).or_default().push(n);
                }
            }
            index
        })
    }

    /// The changes recorded for one property of one object, in the order applied.
    pub fn of(&self, obj: ObjId, key: Sym) -> Vec<&AccountEntry> {
        self.index().get(&(obj, key)).map_or_else(Vec::new, |at| {
            at.iter().map(|&n| &self.entries[n as usize].2).collect()
        })
    }

    /// How many (object, property) pairs have records.
    pub fn len(&self) -> usize {
        self.index().len()
    }

    /// Whether nothing is recorded.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

impl World {
    /// The accounting of the last effect pass.
    pub fn accounting(&self) -> &Accounting {
        &self.accounting
    }

    /// Replaces the accounting (an effect pass records its own).
    pub fn set_accounting(&mut self, accounting: Accounting) {
        self.accounting = Arc::new(accounting);
    }
}
