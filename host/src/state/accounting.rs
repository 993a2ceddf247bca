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
///
/// A group changes many objects for one source under one label, and a pass sets few
/// properties: each change refers to its (source, label) pair and its property by
/// number, so a change takes 32 bytes where it took 72: a galaxy's turn records ~50,000
/// of them, and the world keeps the last pass's until the next.
#[derive(Debug, Clone, Default)]
pub struct Accounting {
    changes: Vec<Change>,
    /// The (source, label) pairs changes refer to, in the order first recorded.
    groups: Vec<(ObjId, Sym)>,
    /// The properties changes refer to, in the order first recorded.
    keys: Vec<Sym>,
    /// Positions in `changes` by (object, property), hashed by identity (engine keys).
    index: OnceLock<ChangeIndex>,
}

/// Positions of changes by (object, property).
type ChangeIndex = HashMap<(ObjId, Sym), smallvec::SmallVec<[u32; 1]>, IdHash>;

/// One recorded change: what [`AccountEntry`] says, with its source and label by number.
#[derive(Debug, Clone)]
struct Change {
    obj: ObjId,
    key: u32,
    group: u32,
    before: f64,
    after: f64,
}

impl PartialEq for Accounting {
    fn eq(&self, other: &Accounting) -> bool {
        self.changes.len() == other.changes.len()
            && (0..self.changes.len()).all(|n| self.entry(n) == other.entry(n))
    }
}

impl Accounting {
    /// Records a change.
    #[inline]
    pub fn record(&mut self, obj: ObjId, key: Sym, entry: AccountEntry) {
        let group = self.group(entry.source, entry.label);
        let key = self.key(key);
        self.push(obj, key, group, entry.before, entry.after);
    }

    /// The number changes by `source` under `label` refer to (the last pair's again, or
    /// a new one: a pass records a group's changes together).
    #[inline]
    pub(crate) fn group(&mut self, source: ObjId, label: Sym) -> u32 {
        if self.groups.last() != Some(&(source, label)) {
            self.groups.push((source, label));
        }
        // A pass matches far fewer than 2^32 groups; a change referring past the list
        // reads as none.
        u32::try_from(self.groups.len() - 1).unwrap_or(u32::MAX)
    }

    /// The number changes of property `key` refer to.
    pub(crate) fn key(&mut self, key: Sym) -> u32 {
        let n = match self.keys.iter().position(|k| *k == key) {
            Some(n) => n,
            None => {
                self.keys.push(key);
                self.keys.len() - 1
            }
        };
        // A pass sets far fewer than 2^32 properties.
        u32::try_from(n).unwrap_or(u32::MAX)
    }

    /// Records a change of the property numbered `key` ([`Accounting::key`]) by the pair
    /// numbered `group` ([`Accounting::group`]).
    #[inline]
    pub(crate) fn push(&mut self, obj: ObjId, key: u32, group: u32, before: f64, after: f64) {
        self.changes.push(Change {
            obj,
            key,
            group,
            before,
            after,
        });
        // A pass records many changes before anyone asks: the index is dropped only when
        // one was built (`get_mut`: no atomic load on the pass's busiest path).
        if self.index.get_mut().is_some() {
            self.index.take();
        }
    }

    /// An empty accounting with room for as many changes and groups as `like` holds (a
    /// pass records about as many changes each turn: growing the list to tens of
    /// thousands again would copy it a dozen times).
    pub fn sized_like(like: &Accounting) -> Accounting {
        Accounting {
            changes: Vec::with_capacity(like.changes.len()),
            groups: Vec::with_capacity(like.groups.len()),
            keys: Vec::new(),
            index: OnceLock::new(),
        }
    }

    /// The change at `n` as an entry.
    fn entry(&self, n: usize) -> Option<(ObjId, Sym, AccountEntry)> {
        let c = self.changes.get(n)?;
        let &(source, label) = self.groups.get(c.group as usize)?;
        let key = *self.keys.get(c.key as usize)?;
        let entry = AccountEntry {
            source,
            label,
            before: c.before,
            after: c.after,
        };
        Some((c.obj, key, entry))
    }

    fn index(&self) -> &ChangeIndex {
        self.index.get_or_init(|| {
            let mut index = ChangeIndex::default();
            for (n, c) in self.changes.iter().enumerate() {
                // A pass records far fewer than 2^32 changes; more would be dropped here
                // rather than mis-indexed.
                if let Ok(n) = u32::try_from(n) {
                    if let Some(&key) = self.keys.get(c.key as usize) {
                        index.entry((c.obj, key)).or_default().push(n);
                    }
                }
            }
            index
        })
    }

    /// The changes recorded for one property of one object, in the order applied.
    pub fn of(&self, obj: ObjId, key: Sym) -> Vec<AccountEntry> {
        self.index().get(&(obj, key)).map_or_else(Vec::new, |at| {
            at.iter()
                .filter_map(|&n| self.entry(n as usize).map(|(_, _, e)| e))
                .collect()
        })
    }

    /// How many (object, property) pairs have records.
    pub fn len(&self) -> usize {
        self.index().len()
    }

    /// Whether nothing is recorded.
    pub fn is_empty(&self) -> bool {
        self.changes.is_empty()
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::id::Id;

    #[test]
    fn changes_read_back_with_their_source_and_label_in_order() {
        let mut w = World::new(1);
        let class = Id::parse("t:class/planet").expect("id");
        let (a, b) = (
            w.create(class, None, Sym::new("board")),
            w.create(class, None, Sym::new("board")),
        );
        let (industry, label) = (Sym::new("industry"), Sym::new("FUSION"));
        let mut book = Accounting::default();
        let g = book.group(a, label);
        let k = book.key(industry);
        book.push(a, k, g, 0.0, 1.5);
        book.push(b, k, g, 0.0, 1.5);
        assert_eq!(book.of(a, industry).len(), 1, "the index is built");
        let entry = |source, label, before, after| AccountEntry {
            source,
            label,
            before,
            after,
        };
        book.record(a, industry, entry(b, Sym::new("clamp"), 1.5, 1.0));
        assert_eq!(book.group(b, Sym::new("clamp")), 1, "the last pair again");
        assert_eq!(book.key(industry), k, "a property keeps its number");
        assert_eq!(
            book.of(a, industry),
            [
                entry(a, label, 0.0, 1.5),
                entry(b, Sym::new("clamp"), 1.5, 1.0)
            ],
            "a record after a question is found"
        );
        assert_eq!((book.len(), book.of(b, Sym::new("absent"))), (2, vec![]));
        assert!(!book.is_empty());
        assert_eq!(std::mem::size_of::<Change>(), 32, "a change stays small");
    }
}
