//! `Trie`: the persistent vector behind the world's slot array — a radix tree of
//! 32-wide nodes shared by `Arc`, so a clone (a command's snapshot) is O(1), a read is
//! one index step per level (three levels hold 32,768 objects, four a million) and a
//! write copies only the nodes on its path the first time after a clone.
//!
//! Owns nothing but the layout. It replaced `imbl::Vector` there: the slot array only
//! ever grows at the end and is read far more than written, and imbl's general RRB
//! vector (relaxed nodes, size tables, a front and back buffer) spent a quarter of a
//! 100k-object effects pass finding slots.

use std::sync::Arc;

/// Bits of the index each level consumes.
const BITS: u32 = 5;
/// Entries per node.
const WIDTH: usize = 1 << BITS;
const MASK: usize = WIDTH - 1;

/// A persistent vector that grows at the end.
#[derive(Clone)]
pub(crate) struct Trie<T> {
    root: Node<T>,
    len: usize,
    /// Levels of branches above the leaves (0: the root is a leaf).
    depth: u32,
}

#[derive(Clone)]
enum Node<T> {
    Leaf(Arc<Vec<T>>),
    Branch(Arc<Vec<Node<T>>>),
}

impl<T: Clone> Trie<T> {
    /// An empty vector.
    pub(crate) fn new() -> Trie<T> {
        Trie {
            root: Node::Leaf(Arc::new(Vec::new())),
            len: 0,
            depth: 0,
        }
    }

    /// How many entries it holds.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The entry at `i`.
    pub(crate) fn get(&self, i: usize) -> Option<&T> {
        if i >= self.len {
            return None;
        }
        let mut node = &self.root;
        let mut shift = self.depth * BITS;
        loop {
            match node {
                Node::Branch(children) => {
                    node = children.get((i >> shift) & MASK)?;
                    shift -= BITS;
                }
                Node::Leaf(items) => return items.get(i & MASK),
            }
        }
    }

    /// The entry at `i`, to change (copying the nodes on its path that a clone shares).
    pub(crate) fn get_mut(&mut self, i: usize) -> Option<&mut T> {
        if i >= self.len {
            return None;
        }
        let mut node = &mut self.root;
        let mut shift = self.depth * BITS;
        loop {
            match node {
                Node::Branch(children) => {
                    node = Arc::make_mut(children).get_mut((i >> shift) & MASK)?;
                    shift -= BITS;
                }
                Node::Leaf(items) => return Arc::make_mut(items).get_mut(i & MASK),
            }
        }
    }

    /// Appends `value`.
    pub(crate) fn push_back(&mut self, value: T) {
        let capacity = WIDTH << (self.depth * BITS);
        if self.len == capacity {
            let old = std::mem::replace(&mut self.root, Node::Branch(Arc::new(Vec::new())));
            if let Node::Branch(children) = &mut self.root {
                Arc::make_mut(children).push(old);
            }
            self.depth += 1;
        }
        let i = self.len;
        let mut node = &mut self.root;
        let mut level = self.depth;
        loop {
            match node {
                Node::Branch(children) => {
                    let children = Arc::make_mut(children);
                    let at = (i >> (level * BITS)) & MASK;
                    if at == children.len() {
                        children.push(Node::empty(level - 1));
                    }
                    node = &mut children[at];
                    level -= 1;
                }
                Node::Leaf(items) => {
                    Arc::make_mut(items).push(value);
                    break;
                }
            }
        }
        self.len += 1;
    }

    /// Every entry, in order (one leaf look-up per 32 entries).
    pub(crate) fn iter(&self) -> impl Iterator<Item = &T> + '_ {
        (0..self.len.div_ceil(WIDTH)).flat_map(move |leaf| self.leaf(leaf << BITS).iter())
    }

    /// The leaf holding entry `i` (`i` < len).
    fn leaf(&self, i: usize) -> &[T] {
        let mut node = &self.root;
        let mut shift = self.depth * BITS;
        loop {
            match node {
                Node::Branch(children) => {
                    match children.get((i >> shift) & MASK) {
                        Some(n) => node = n,
                        None => return &[],
                    }
                    shift -= BITS;
                }
                Node::Leaf(items) => return items,
            }
        }
    }
}

impl<T> Node<T> {
    /// An empty node `level` levels above the leaves.
    fn empty(level: u32) -> Node<T> {
        if level == 0 {
            Node::Leaf(Arc::new(Vec::with_capacity(WIDTH)))
        } else {
            Node::Branch(Arc::new(Vec::with_capacity(WIDTH)))
        }
    }
}

impl<T: Clone> Default for Trie<T> {
    fn default() -> Self {
        Trie::new()
    }
}

impl<T: Clone + std::fmt::Debug> std::fmt::Debug for Trie<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<T: Clone> std::ops::Index<usize> for Trie<T> {
    type Output = T;
    fn index(&self, i: usize) -> &T {
        match self.get(i) {
            Some(v) => v,
            None => panic!("index {i} out of a trie of {}", self.len),
        }
    }
}

impl<T: Clone> std::ops::IndexMut<usize> for Trie<T> {
    fn index_mut(&mut self, i: usize) -> &mut T {
        let len = self.len;
        match self.get_mut(i) {
            Some(v) => v,
            None => panic!("index {i} out of a trie of {len}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pushes_reads_and_writes_across_levels_like_a_vec() {
        let mut t: Trie<usize> = Trie::new();
        let mut v: Vec<usize> = Vec::new();
        // Past 32, 1,024 and 32,768 entries: one, two and three levels of branches.
        for i in 0..40_000 {
            t.push_back(i * 3);
            v.push(i * 3);
        }
        assert_eq!(t.len(), v.len());
        assert!(t.iter().eq(v.iter()));
        for i in [0, 31, 32, 1023, 1024, 32_767, 32_768, 39_999] {
            assert_eq!(t.get(i), Some(&v[i]));
        }
        assert_eq!(t.get(40_000), None);
        *t.get_mut(1024).unwrap() = 7;
        t[39_999] = 9;
        assert_eq!((t[1024], t[39_999], t[1023]), (7, 9, 1023 * 3));
    }

    #[test]
    fn a_clone_keeps_its_values_when_the_original_changes() {
        let mut t: Trie<String> = Trie::new();
        for i in 0..2_000 {
            t.push_back(i.to_string());
        }
        let snapshot = t.clone();
        t[5] = "changed".into();
        for i in 0..100 {
            t.push_back(format!("new {i}"));
        }
        assert_eq!(snapshot.len(), 2_000);
        assert_eq!(snapshot[5], "5");
        assert_eq!(t[5], "changed");
        assert_eq!(t[2_050], "new 50");
        assert!(snapshot
            .iter()
            .enumerate()
            .all(|(i, s)| *s == i.to_string()));
    }

    #[test]
    fn an_empty_trie_has_nothing() {
        let t: Trie<u8> = Trie::default();
        assert_eq!(t.len(), 0);
        assert_eq!(t.get(0), None);
        assert_eq!(t.iter().count(), 0);
        assert_eq!(format!("{t:?}"), "[]");
    }
}
