//! Effect accounting: which effects group moved which property of which object, by how
//! much, in the last run of an effect pass (`rules::pass` records it; `tessera explain`
//! and scenario expectations read it). It explains state and is not state itself: the
//! checksum leaves it out and saves do not keep it (the next pass records it again).

use std::collections::HashMap;
use std::sync::Arc;

use super::{IdHash, ObjId, World};
use crate::id::Sym;

/// One change an effects group made to one property.
#[derive(Debug, Clone, PartialEq)]
pub struct AccountEntry {
    /// The object the group acted for (`source`).
    pub source: ObjId,
    /// The group's accounting label.
    pub label: Arc<str>,
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

/// Every recorded change of the last pass, by (object, property), in the order applied.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Accounting {
    /// Hashed by identity (engine keys; a pass records tens of thousands of changes).
    entries: HashMap<(ObjId, Sym), smallvec::SmallVec<[AccountEntry; 1]>, IdHash>,
}

impl Accounting {
    /// Records a change.
    pub fn record(&mut self, obj: ObjId, key: Sym, entry: AccountEntry) {
        self.entries.entry((obj, key)).or_default().push(entry);
    }

    /// The changes recorded for one property of one object, in the order applied.
    pub fn of(&self, obj: ObjId, key: Sym) -> &[AccountEntry] {
        self.entries.get(&(obj, key)).map_or(&[], |v| v.as_slice())
    }

    /// How many (object, property) pairs have records.
    pub fn len(&self) -> usize {
        self.entries.len()
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
