//! Small per-object containers: an object's base properties ([`PropMap`]) and its own
//! tags ([`TagSet`]).
//!
//! Objects carry a handful of properties and tags (a minion ~10, a planet ~30), and they
//! are read far more often than written. A sorted vector looked up by symbol identity
//! (interned symbols compare by pointer) beats a B-tree that compares symbol text on
//! every step: profiles of whole games showed `memcmp` inside `OrdMap` look-ups as the
//! top cost. Entries stay sorted by symbol text, so iteration (checksums, saves, logs)
//! is deterministic and identical to the ordered maps these replace.

use crate::id::Sym;

use super::Value;

/// An object's base property values, sorted by key text.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PropMap {
    entries: Vec<(Sym, Value)>,
}

impl PropMap {
    /// An empty map.
    pub fn new() -> PropMap {
        PropMap::default()
    }

    fn position(&self, key: &Sym) -> Option<usize> {
        self.entries.iter().position(|(k, _)| k == key)
    }

    /// The value of `key`, if set.
    pub fn get(&self, key: &Sym) -> Option<&Value> {
        self.entries.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// Whether `key` is set.
    pub fn contains_key(&self, key: &Sym) -> bool {
        self.position(key).is_some()
    }

    /// Sets `key`; returns its previous value.
    pub fn insert(&mut self, key: Sym, value: Value) -> Option<Value> {
        if let Some(i) = self.position(&key) {
            return Some(std::mem::replace(&mut self.entries[i].1, value));
        }
        let at = self.entries.partition_point(|(k, _)| *k < key);
        self.entries.insert(at, (key, value));
        None
    }

    /// Makes room for exactly `extra` more entries (a map whose final size is known: a
    /// fresh object's, whose `slot` is added to its starting properties).
    pub fn reserve_exact(&mut self, extra: usize) {
        self.entries.reserve_exact(extra);
    }

    /// Removes `key`; returns its value.
    pub fn remove(&mut self, key: &Sym) -> Option<Value> {
        self.position(key).map(|i| self.entries.remove(i).1)
    }

    /// The entries, in key order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&Sym, &Value)> + '_ {
        self.entries.iter().map(|(k, v)| (k, v))
    }

    /// The keys, in order.
    pub fn keys(&self) -> impl Iterator<Item = &Sym> + '_ {
        self.entries.iter().map(|(k, _)| k)
    }

    /// Number of properties set.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no property is set.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

impl<'a> IntoIterator for &'a PropMap {
    type Item = (&'a Sym, &'a Value);
    type IntoIter = std::iter::Map<
        std::slice::Iter<'a, (Sym, Value)>,
        fn(&'a (Sym, Value)) -> (&'a Sym, &'a Value),
    >;
    fn into_iter(self) -> Self::IntoIter {
        self.entries.iter().map(|(k, v)| (k, v))
    }
}

impl FromIterator<(Sym, Value)> for PropMap {
    fn from_iter<I: IntoIterator<Item = (Sym, Value)>>(iter: I) -> Self {
        let mut map = PropMap::new();
        for (k, v) in iter {
            map.insert(k, v);
        }
        map
    }
}

/// An object's own tags, sorted by text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TagSet {
    tags: Vec<Sym>,
}

impl TagSet {
    /// An empty set.
    pub fn new() -> TagSet {
        TagSet::default()
    }

    /// Whether `tag` is in the set.
    pub fn contains(&self, tag: &Sym) -> bool {
        self.tags.iter().any(|t| t == tag)
    }

    /// Adds `tag`; returns `None` if it was new (like `OrdSet::insert`), `Some(tag)` if
    /// it was already there.
    pub fn insert(&mut self, tag: Sym) -> Option<Sym> {
        if self.contains(&tag) {
            return Some(tag);
        }
        let at = self.tags.partition_point(|t| *t < tag);
        self.tags.insert(at, tag);
        None
    }

    /// Removes `tag`; returns it if it was there.
    pub fn remove(&mut self, tag: &Sym) -> Option<Sym> {
        let i = self.tags.iter().position(|t| t == tag)?;
        Some(self.tags.remove(i))
    }

    /// The tags, in order.
    pub fn iter(&self) -> std::slice::Iter<'_, Sym> {
        self.tags.iter()
    }

    /// Number of tags.
    pub fn len(&self) -> usize {
        self.tags.len()
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.tags.is_empty()
    }
}

impl<'a> IntoIterator for &'a TagSet {
    type Item = &'a Sym;
    type IntoIter = std::slice::Iter<'a, Sym>;
    fn into_iter(self) -> Self::IntoIter {
        self.tags.iter()
    }
}

impl FromIterator<Sym> for TagSet {
    fn from_iter<I: IntoIterator<Item = Sym>>(iter: I) -> Self {
        let mut set = TagSet::new();
        for t in iter {
            set.insert(t);
        }
        set
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn props_iterate_in_key_order_and_replace_in_place() {
        let mut m = PropMap::new();
        for (k, v) in [("zeta", 1), ("alpha", 2), ("mid", 3)] {
            assert_eq!(m.insert(Sym::new(k), Value::Int(v)), None);
        }
        assert_eq!(
            m.insert(Sym::new("mid"), Value::Int(4)),
            Some(Value::Int(3))
        );
        let keys: Vec<&str> = m.keys().map(|k| k.as_str()).collect();
        assert_eq!(keys, ["alpha", "mid", "zeta"]);
        assert_eq!(m.get(&Sym::new("mid")), Some(&Value::Int(4)));
        assert_eq!(m.remove(&Sym::new("alpha")), Some(Value::Int(2)));
        assert!(!m.contains_key(&Sym::new("alpha")));
        assert_eq!(m.len(), 2);
    }

    #[test]
    fn tags_are_a_sorted_set() {
        let mut t: TagSet = ["b", "a", "b"].into_iter().map(Sym::new).collect();
        assert_eq!(t.len(), 2);
        assert_eq!(t.insert(Sym::new("a")), Some(Sym::new("a")));
        assert_eq!(t.insert(Sym::new("c")), None);
        let order: Vec<&str> = t.iter().map(|s| s.as_str()).collect();
        assert_eq!(order, ["a", "b", "c"]);
        assert_eq!(t.remove(&Sym::new("b")), Some(Sym::new("b")));
        assert!(!t.contains(&Sym::new("b")));
    }
}
