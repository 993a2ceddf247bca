//! `ClassFilter`: which classes may have objects in a world, answered without a look-up.

use std::hash::BuildHasher;

use super::IdHash;
use crate::id::Id;

/// A fixed-size bit filter over class ids. A class whose bit is clear has never had an
/// object in this world; a set bit means it may have one (bits are never cleared, and
/// classes may share a bit). Dispatch asks for the objects of every class with a
/// trigger listening to an event, and most of a card pool's classes have no object in
/// a given match: the filter answers those without a look-up in the class index.
#[derive(Debug, Clone, Default)]
pub(crate) struct ClassFilter([u64; ClassFilter::WORDS]);

impl ClassFilter {
    /// 1,024 bits: a match's few dozen classes leave most of them clear.
    const WORDS: usize = 16;

    /// The word and bit of `class`.
    fn place(class: Id) -> (usize, u64) {
        // The top bits of the hash (its multiply mixes them best), 0..1024.
        let bit = usize::try_from(IdHash.hash_one(class) >> 54).unwrap_or(0);
        (bit / 64 % Self::WORDS, 1u64 << (bit % 64))
    }

    /// Notes that `class` has an object.
    pub(crate) fn insert(&mut self, class: Id) {
        let (word, bit) = Self::place(class);
        self.0[word] |= bit;
    }

    /// Whether `class` may have objects (false: it has none).
    pub(crate) fn may_contain(&self, class: Id) -> bool {
        let (word, bit) = Self::place(class);
        self.0[word] & bit != 0
    }
}

#[cfg(test)]
mod tests {
    use super::ClassFilter;
    use crate::id::Id;

    #[test]
    fn every_inserted_class_may_be_contained_and_most_others_are_not() {
        let class =
            |n: usize| Id::parse(&format!("t:class/c{n}")).unwrap_or_else(|e| panic!("{e}"));
        let mut f = ClassFilter::default();
        for n in 0..40 {
            f.insert(class(n));
        }
        assert!(
            (0..40).all(|n| f.may_contain(class(n))),
            "no false negative"
        );
        let false_positives = (40..1040).filter(|&n| f.may_contain(class(n))).count();
        assert!(
            false_positives < 150,
            "{false_positives} of 1,000 absent classes pass"
        );
    }
}
