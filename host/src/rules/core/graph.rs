//! The universe graph: objects as the nodes of a graph whose edges each node lists in a
//! property (by default `lanes`, a list of object ids), placed in the plane by the
//! numeric properties `x` and `y`. Owns what the spatial conditions (`within_jumps`,
//! `within_distance`), the `connect`/`disconnect` actions and the `jumps`/`distance`
//! expression functions share: an object's *place*, bounded multi-source breadth-first
//! search, shortest jump counts and positions. It owns no state and changes nothing.
//!
//! **Places.** An object that does not carry the property itself (a planet, a building)
//! stands at its nearest ancestor through `parent` that does (building → planet →
//! system). For jumps that is the nearest object carrying the edge property; for
//! distances the nearest carrying both `x` and `y`. A node with no edges carries an empty
//! list. Edges are followed as listed: a list on A naming B is an edge A → B, and a
//! two-way lane is listed on both ends (`core:action/connect` writes both by default).
//! Entries that are not objects, or name objects that no longer exist, are skipped.
//!
//! **Where the adjacency lives.** It is read from the properties on demand; the world
//! keeps no adjacency index. The world is persistent (imbl) and snapshots must stay
//! O(1); an index beside it would have to be kept in step by every write of an edge
//! property (`set`, `unset`, object removal, a hot reload's new class defaults, a patch)
//! and its key would be content's choice, yet the world knows nothing of content
//! (`state` owns state, not rules). Reading on demand costs one slot look-up and a scan
//! of a handful of properties per node visited, and only nodes within the bound are
//! visited. What makes many candidates cheap is not an index but doing the search once:
//! a condition testing a batch of candidates (a selection's filter, `Condition::
//! test_many`) runs one bounded multi-source search from every picked object's place and
//! then answers each candidate by one look-up of its place's distance ([`Reach`]), so
//! the cost is one search plus a look-up per candidate, never a search per candidate.
//! `benches/graph.rs` measures it against a hand-written BFS over `Vec` adjacency.

use std::collections::VecDeque;
use std::sync::OnceLock;

use crate::id::Sym;
use crate::state::{Deps, ObjId, Value, World};

/// The edge property when content names none.
pub(crate) const DEFAULT_EDGES: &str = "lanes";

/// How many `parent` hops a place is looked for before giving up (a cycle of parents, or
/// an absurdly deep chain, finds no place instead of looping).
const MAX_DEPTH: usize = 64;

/// The default edge property, `lanes`, interned once.
pub(crate) fn lanes_key() -> Sym {
    static KEY: OnceLock<Sym> = OnceLock::new();
    *KEY.get_or_init(|| Sym::new(DEFAULT_EDGES))
}

/// The position properties `x` and `y`, interned once.
pub(crate) fn position_keys() -> (Sym, Sym) {
    static KEYS: OnceLock<(Sym, Sym)> = OnceLock::new();
    *KEYS.get_or_init(|| (Sym::new("x"), Sym::new("y")))
}

/// The graph one edge property draws over a world.
#[derive(Clone, Copy)]
pub(crate) struct Graph<'w> {
    world: &'w World,
    edges: Sym,
}

impl<'w> Graph<'w> {
    /// The graph whose edges are listed in property `edges`.
    pub(crate) fn new(world: &'w World, edges: Sym) -> Graph<'w> {
        Graph { world, edges }
    }

    /// The node an object stands at: itself if it carries the edge property (a list),
    /// else its nearest ancestor through `parent` that does; `None` when none does.
    pub(crate) fn place(&self, obj: ObjId) -> Option<ObjId> {
        let mut cur = obj;
        for _ in 0..MAX_DEPTH {
            let o = self.world.object(cur).ok()?;
            if matches!(o.props.get(&self.edges), Some(Value::List(_))) {
                return Some(cur);
            }
            cur = o.parent?;
        }
        None
    }

    /// Calls `f` with each living object `node` has an edge to.
    pub(crate) fn each_neighbour(&self, node: ObjId, mut f: impl FnMut(ObjId)) {
        let Ok(o) = self.world.object(node) else {
            return;
        };
        if let Some(Value::List(items)) = o.props.get(&self.edges) {
            for n in items.iter().filter_map(Value::as_obj) {
                if self.world.exists(n) {
                    f(n);
                }
            }
        }
    }

    /// Breadth-first search from every node of `sources` at once, at most `max` edges
    /// deep, into `reach` (cleared first). Sources that are not nodes are ignored.
    pub(crate) fn search(&self, sources: &[ObjId], max: u32, reach: &mut Reach) {
        reach.clear();
        let mut queue = VecDeque::new();
        for &s in sources {
            if self.place(s) == Some(s) && reach.visit(s, 0) {
                queue.push_back((s, 0u32));
            }
        }
        while let Some((node, d)) = queue.pop_front() {
            if d >= max {
                continue;
            }
            self.each_neighbour(node, |n| {
                if reach.visit(n, d + 1) {
                    queue.push_back((n, d + 1));
                }
            });
        }
    }

    /// The fewest edges from node `from` to node `to` (0 when they are the same), or
    /// `None` when `to` cannot be reached (or either is not a node).
    pub(crate) fn jumps(&self, from: ObjId, to: ObjId) -> Option<u32> {
        if self.place(from) != Some(from) || self.place(to) != Some(to) {
            return None;
        }
        if from == to {
            return Some(0);
        }
        let mut reach = Reach::default();
        reach.visit(from, 0);
        let mut queue = VecDeque::from([(from, 0u32)]);
        while let Some((node, d)) = queue.pop_front() {
            let mut found = false;
            self.each_neighbour(node, |n| {
                found |= n == to;
                if reach.visit(n, d + 1) {
                    queue.push_back((n, d + 1));
                }
            });
            if found {
                return Some(d + 1);
            }
        }
        None
    }
}

/// The nodes a search reached and how many edges from the nearest source, by object slot
/// (a vector indexed by slot, grown as needed: no hashing per visit). Only living
/// objects are visited, so a slot names one object.
#[derive(Debug, Default, Clone)]
pub(crate) struct Reach {
    dist: Vec<u32>,
    visited: Vec<u32>,
}

impl Reach {
    const UNREACHED: u32 = u32::MAX;

    /// Forgets every visit (keeps the memory).
    fn clear(&mut self) {
        for &i in &self.visited {
            if let Some(d) = self.dist.get_mut(i as usize) {
                *d = Self::UNREACHED;
            }
        }
        self.visited.clear();
    }

    /// Marks `node` reached at `d` edges; `false` if it was reached before.
    fn visit(&mut self, node: ObjId, d: u32) -> bool {
        let i = node.index as usize;
        if i >= self.dist.len() {
            self.dist.resize(i + 1, Self::UNREACHED);
        }
        if self.dist[i] != Self::UNREACHED {
            return false;
        }
        self.dist[i] = d;
        self.visited.push(node.index);
        true
    }

    /// How many edges from the nearest source the search reached `node` at, if it did.
    pub(crate) fn distance(&self, node: ObjId) -> Option<u32> {
        self.dist
            .get(node.index as usize)
            .copied()
            .filter(|d| *d != Self::UNREACHED)
    }
}

/// Where an object stands in the plane: its own `x` and `y` (effective values, modifiers
/// applied) if it has both, else its nearest ancestor's that has both.
pub(crate) fn position(world: &World, obj: ObjId) -> Option<(f64, f64)> {
    let (xk, yk) = position_keys();
    let mut cur = obj;
    for _ in 0..MAX_DEPTH {
        if let (Some(x), Some(y)) = (world.get_number(cur, xk), world.get_number(cur, yk)) {
            return Some((x, y));
        }
        cur = world.object(cur).ok()?.parent?;
    }
    None
}

/// The straight-line distance between the places of two objects, if both have one.
pub(crate) fn distance_between(world: &World, a: ObjId, b: ObjId) -> Option<f64> {
    let (ax, ay) = position(world, a)?;
    let (bx, by) = position(world, b)?;
    Some((ax - bx).hypot(ay - by))
}

/// The fewest edges (`lanes`) between the places of two objects, if there is a path.
pub(crate) fn jumps_between(world: &World, a: ObjId, b: ObjId) -> Option<u32> {
    let g = Graph::new(world, lanes_key());
    g.jumps(g.place(a)?, g.place(b)?)
}

/// `jumps(a, b)` in an expression: [`jumps_between`], or -1 when there is no path.
pub(crate) fn jumps_value(world: &World, a: ObjId, b: ObjId) -> f64 {
    jumps_between(world, a, b).map_or(-1.0, f64::from)
}

/// `distance(a, b)` in an expression: [`distance_between`], or -1 when either object has
/// no position.
pub(crate) fn distance_value(world: &World, a: ObjId, b: ObjId) -> f64 {
    distance_between(world, a, b).unwrap_or(-1.0)
}

/// What `jumps(a, b)` (`jumps`) or `distance(a, b)` reads: the edge or position keys of
/// objects anywhere (places are found through parents, paths cross any object), and the
/// scope for references other than `target`.
pub(crate) fn value_deps(jumps: bool, refs: [&crate::rules::expr::ObjRef; 2], d: &mut Deps) {
    d.structural_anywhere();
    if jumps {
        d.key(lanes_key());
    } else {
        let (x, y) = position_keys();
        d.key(x);
        d.key(y);
    }
    for r in refs {
        if r.base != crate::rules::expr::Base::Target {
            d.scope(r.base.scope_reads());
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::id::Id;

    /// A world with `n` systems in a chain (0 - 1 - ... - n-1, lanes both ways), each at
    /// `x = i`, `y = 0`; returns the world and the systems.
    fn chain(n: usize) -> (World, Vec<ObjId>) {
        let mut w = World::new(1);
        let class = Id::parse("t:class/system").unwrap();
        let space = Sym::new("space");
        let systems: Vec<ObjId> = (0..n).map(|_| w.create(class, None, space)).collect();
        let (x, y) = position_keys();
        for (i, &s) in systems.iter().enumerate() {
            let mut lanes = Vec::new();
            if i > 0 {
                lanes.push(Value::Obj(systems[i - 1]));
            }
            if i + 1 < n {
                lanes.push(Value::Obj(systems[i + 1]));
            }
            w.set(s, lanes_key(), Value::List(lanes.into())).unwrap();
            w.set(s, x, Value::Int(i as i64)).unwrap();
            w.set(s, y, Value::Int(0)).unwrap();
        }
        (w, systems)
    }

    fn child_of(w: &mut World, parent: ObjId) -> ObjId {
        let c = w.create(Id::parse("t:class/thing").unwrap(), None, Sym::new("space"));
        w.set_parent(c, Some(parent)).unwrap();
        c
    }

    #[test]
    fn a_place_is_the_nearest_object_with_edges_up_the_parents() {
        let (mut w, s) = chain(3);
        let planet = child_of(&mut w, s[1]);
        let building = child_of(&mut w, planet);
        let g = Graph::new(&w, lanes_key());
        assert_eq!(g.place(s[1]), Some(s[1]));
        assert_eq!(g.place(building), Some(s[1]));
        assert_eq!(position(&w, building), Some((1.0, 0.0)));
        let loose = child_of(&mut w, s[0]);
        w.set_parent(loose, None).unwrap();
        assert_eq!(Graph::new(&w, lanes_key()).place(loose), None);
        assert_eq!(position(&w, loose), None);
    }

    #[test]
    fn a_cycle_of_parents_has_no_place() {
        let (mut w, s) = chain(1);
        let a = child_of(&mut w, s[0]);
        let b = child_of(&mut w, a);
        w.set_parent(a, Some(b)).unwrap();
        assert_eq!(Graph::new(&w, lanes_key()).place(b), None);
        assert_eq!(position(&w, b), None);
    }

    #[test]
    fn the_search_stops_at_its_bound_and_starts_from_every_source() {
        let (w, s) = chain(20);
        let g = Graph::new(&w, lanes_key());
        let mut reach = Reach::default();
        g.search(&[s[0]], 6, &mut reach);
        assert_eq!(reach.distance(s[6]), Some(6));
        assert_eq!(reach.distance(s[7]), None);
        g.search(&[s[0], s[19]], 3, &mut reach);
        assert_eq!(reach.distance(s[0]), Some(0));
        assert_eq!(reach.distance(s[2]), Some(2));
        assert_eq!(reach.distance(s[16]), Some(3));
        assert_eq!(reach.distance(s[6]), None, "cleared from the last search");
    }

    #[test]
    fn jumps_follow_edges_as_listed_and_skip_removed_objects() {
        let (mut w, s) = chain(5);
        assert_eq!(jumps_between(&w, s[0], s[4]), Some(4));
        assert_eq!(jumps_between(&w, s[3], s[3]), Some(0));
        // A one-way edge 0 -> 4.
        let lanes = Value::List(vec![Value::Obj(s[1]), Value::Obj(s[4])].into());
        w.set(s[0], lanes_key(), lanes).unwrap();
        assert_eq!(jumps_between(&w, s[0], s[4]), Some(1));
        assert_eq!(jumps_between(&w, s[4], s[0]), Some(4));
        // Remove the middle system: the chain is cut, and its stale id is skipped.
        w.remove(s[2]).unwrap();
        assert_eq!(jumps_between(&w, s[4], s[0]), None);
        assert_eq!(jumps_between(&w, s[0], s[4]), Some(1));
        assert_eq!(distance_between(&w, s[0], s[4]), Some(4.0));
    }

    struct Aliases;
    impl crate::rules::expr::Names for Aliases {
        fn alias(
            &mut self,
            name: &str,
        ) -> Result<Option<crate::rules::expr::Expr>, crate::rules::expr::NameError> {
            Ok((name == "distance").then(|| crate::rules::expr::Expr::lit(7.0)))
        }
        fn selector(
            &mut self,
            name: &str,
        ) -> Result<Arc<dyn crate::rules::registry::Selector>, crate::rules::expr::NameError>
        {
            Err(crate::rules::expr::NameError(format!(
                "no selector `{name}`"
            )))
        }
    }

    fn parse(text: &str) -> Result<String, String> {
        crate::rules::expr::parse(text, &mut Aliases)
            .map(|e| e.to_string())
            .map_err(|e| e.to_string())
    }

    #[test]
    fn jumps_and_distance_parse_as_functions_of_two_objects() {
        assert_eq!(
            parse("jumps(self, target.parent) + 1").unwrap(),
            "(jumps(self, target.parent) + 1)"
        );
        assert_eq!(
            parse("distance ( source.owner , event.target )").unwrap(),
            "distance(source.owner, event.target)"
        );
        // Not followed by `(`, the name is what it was before: an alias here.
        assert_eq!(parse("distance * 2").unwrap(), "(7 * 2)");
        assert!(parse("jumps(self)")
            .unwrap_err()
            .contains("takes two objects"));
        assert!(parse("jumps(self, target")
            .unwrap_err()
            .contains("takes two objects"));
        let e = parse("distance(3, self)").unwrap_err();
        assert!(
            e.contains("is not an object") && e.contains("column 10"),
            "{e}"
        );
    }
}
