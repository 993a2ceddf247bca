//! `IdSet`: a persistent set of object ids in id order, stored as a sorted persistent
//! vector. The world hands out slot indexes mostly in ascending order, so adding an object
//! to its class, zone and tags is most often an append (O(1) amortized, where an ordered tree
//! walks and splits nodes: a third of creating a galaxy's 100,000 objects). Any other
//! insert or removal finds its place by binary search and shifts within the vector's
//! chunks (O(log n)). Iteration is in id order, as the tree's was.

use imbl::Vector;

use super::ObjId;

/// An [`IdSet`]'s ids, in order (a concrete type: callers keep it in their own iterators
/// without boxing).
pub(crate) type IdIter<'a> = imbl::vector::Iter<'a, ObjId, imbl::shared_ptr::DefaultSharedPtr>;

/// A persistent, ordered set of object ids (see the module docs).
#[derive(Debug, Clone, Default)]
pub(crate) struct IdSet(Vector<ObjId>);

impl IdSet {
    /// Adds `id`; false when it was there already.
    pub(crate) fn insert(&mut self, id: ObjId) -> bool {
        if self.0.back().is_none_or(|last| *last < id) {
            self.0.push_back(id);
            return true;
        }
        match self.0.binary_search(&id) {
            Ok(_) => false,
            Err(at) => {
                self.0.insert(at, id);
                true
            }
        }
    }

    /// Removes `id`; false when it was not there.
    pub(crate) fn remove(&mut self, id: &ObjId) -> bool {
        if self.0.back() == Some(id) {
            self.0.pop_back();
            return true;
        }
        match self.0.binary_search(id) {
            Ok(at) => {
                self.0.remove(at);
                true
            }
            Err(_) => false,
        }
    }

    /// How many ids it holds.
    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether it holds no id.
    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The lowest id.
    pub(crate) fn get_min(&self) -> Option<&ObjId> {
        self.0.front()
    }

    /// The ids in order.
    pub(crate) fn iter(&self) -> IdIter<'_> {
        self.0.iter()
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    fn id(index: u32, generation: u32) -> ObjId {
        ObjId { index, generation }
    }

    #[test]
    fn keeps_the_order_and_answers_of_an_ordered_set() {
        let mut set = IdSet::default();
        let mut model = BTreeSet::new();
        // Appends, inserts before the end, repeats, removals at the end and inside, and
        // a slot index reused with a later generation.
        let steps: Vec<(bool, ObjId)> = (0..300u32)
            .map(|i| (true, id(i, 0)))
            .chain([(true, id(5, 1)), (true, id(7, 0)), (false, id(299, 0))])
            .chain((0..300u32).step_by(7).map(|i| (false, id(i, 0))))
            .chain([(false, id(1_000, 0)), (true, id(2, 0)), (true, id(400, 3))])
            .collect();
        for (add, o) in steps {
            let (got, want) = if add {
                (set.insert(o), model.insert(o))
            } else {
                (set.remove(&o), model.remove(&o))
            };
            assert_eq!(got, want, "{} {o:?}", if add { "insert" } else { "remove" });
            assert_eq!(set.len(), model.len());
        }
        assert!(set.iter().eq(model.iter()));
        assert_eq!(set.get_min(), model.first());
    }
}
