//! Graph algorithms behind resolution: dependency cycles and the deterministic load order.
//!
//! Owns the pure graph part: strongly connected components (to find required-dependency
//! cycles and print their path), and the topological sort that picks the smallest id among
//! ready mods, breaking cycles of *soft* edges (optional dependencies, `[load]` hints)
//! deterministically. It knows mods only as string ids; [`resolve`](super::resolve) turns
//! what it finds into diagnostics.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// How binding an ordering edge is. Stronger edges win when edges form a cycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Strength {
    /// `[load] after/before`.
    Hint,
    /// An optional dependency that is present.
    Optional,
    /// A required dependency (never in a cycle by the time ordering runs).
    Required,
}

/// A soft cycle the sort had to break: the path (in "depends on / loads after" direction,
/// first node repeated at the end) and the strongest edge kind that was dropped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct BrokenCycle {
    pub path: Vec<String>,
    pub strength: Strength,
    /// The mod that was loaded early to break the cycle.
    pub loaded_first: String,
}

/// Ordering graph: `preds[n]` maps each mod `n` must load after to the edge strength.
#[derive(Debug, Default)]
pub(crate) struct Graph {
    pub preds: BTreeMap<String, BTreeMap<String, Strength>>,
}

impl Graph {
    /// Adds a node (idempotent).
    pub fn node(&mut self, n: &str) {
        self.preds.entry(n.to_string()).or_default();
    }

    /// `after` loads after `before`. Keeps the strongest edge; ignores unknown nodes
    /// and self-edges.
    pub fn edge(&mut self, before: &str, after: &str, s: Strength) {
        if before == after || !self.preds.contains_key(before) {
            return;
        }
        if let Some(p) = self.preds.get_mut(after) {
            let e = p.entry(before.to_string()).or_insert(s);
            *e = (*e).max(s);
        }
    }

    /// The load order: Kahn's algorithm taking the smallest ready id each step. When only
    /// soft cycles remain, loads the mod whose pending edges are weakest (then smallest id)
    /// and reports the cycle it broke.
    pub fn sort(&self) -> (Vec<String>, Vec<BrokenCycle>) {
        let mut succs: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        let mut pending: BTreeMap<&str, usize> = BTreeMap::new();
        for (n, ps) in &self.preds {
            pending.insert(n, ps.len());
            for p in ps.keys() {
                succs.entry(p.as_str()).or_default().push(n);
            }
        }
        let mut ready: BTreeSet<&str> = pending
            .iter()
            .filter(|(_, c)| **c == 0)
            .map(|(n, _)| *n)
            .collect();
        let mut done: BTreeSet<&str> = BTreeSet::new();
        let mut order = Vec::with_capacity(self.preds.len());
        let mut broken = Vec::new();
        while done.len() < self.preds.len() {
            let next = match ready.pop_first() {
                Some(n) => n,
                None => {
                    let Some((n, strength)) = self.pick_cycle_breaker(&done) else {
                        break;
                    };
                    broken.push(BrokenCycle {
                        path: self.cycle_through(n, &done),
                        strength,
                        loaded_first: n.to_string(),
                    });
                    n
                }
            };
            if !done.insert(next) {
                continue;
            }
            order.push(next.to_string());
            for s in succs.get(next).map(Vec::as_slice).unwrap_or(&[]) {
                if let Some(c) = pending.get_mut(s) {
                    *c = c.saturating_sub(1);
                    if *c == 0 && !done.contains(s) {
                        ready.insert(s);
                    }
                }
            }
        }
        (order, broken)
    }

    /// Among mods not yet loaded and with no pending required edge, the one whose
    /// strongest pending edge is weakest, then the smallest id.
    fn pick_cycle_breaker(&self, done: &BTreeSet<&str>) -> Option<(&str, Strength)> {
        self.preds
            .iter()
            .filter(|(n, _)| !done.contains(n.as_str()))
            .filter_map(|(n, ps)| {
                let max = ps
                    .iter()
                    .filter(|(p, _)| !done.contains(p.as_str()))
                    .map(|(_, s)| *s)
                    .max()
                    .unwrap_or(Strength::Hint);
                (max < Strength::Required).then_some((n.as_str(), max))
            })
            .min_by(|a, b| a.1.cmp(&b.1).then(a.0.cmp(b.0)))
    }

    /// Shortest path `n -> p -> ... -> n` over pending "loads after" edges (BFS, sorted
    /// neighbours, so deterministic). Falls back to `[n]` if no cycle passes through `n`.
    fn cycle_through(&self, n: &str, done: &BTreeSet<&str>) -> Vec<String> {
        let skip = |m: &str| done.contains(m);
        shortest_cycle(n, |m| {
            self.preds
                .get(m)
                .map(|ps| ps.keys().filter(|p| !skip(p)).cloned().collect())
                .unwrap_or_default()
        })
        .unwrap_or_else(|| vec![n.to_string()])
    }
}

/// Shortest cycle from `start` back to `start` following `next` (which must return its
/// neighbours sorted). Returns the path with `start` at both ends.
pub(crate) fn shortest_cycle(
    start: &str,
    next: impl Fn(&str) -> Vec<String>,
) -> Option<Vec<String>> {
    let mut parent: BTreeMap<String, String> = BTreeMap::new();
    let mut queue = VecDeque::new();
    queue.push_back(start.to_string());
    while let Some(m) = queue.pop_front() {
        for nb in next(&m) {
            if nb == start {
                let mut middle = Vec::new();
                let mut cur = m.clone();
                while cur != start {
                    let up = parent
                        .get(&cur)
                        .cloned()
                        .unwrap_or_else(|| start.to_string());
                    middle.push(cur);
                    cur = up;
                }
                middle.reverse();
                let mut path = vec![start.to_string()];
                path.extend(middle);
                path.push(start.to_string());
                return Some(path);
            }
            if nb != start && !parent.contains_key(&nb) {
                parent.insert(nb.clone(), m.clone());
                queue.push_back(nb);
            }
        }
    }
    None
}

/// Strongly connected components with more than one member or a self-edge, each sorted,
/// in order of their smallest member. `deps[n]` lists what `n` requires.
pub(crate) fn cycles(deps: &BTreeMap<String, Vec<String>>) -> Vec<Vec<String>> {
    // Iterative Tarjan, so deep dependency chains cannot overflow the stack.
    let names: Vec<&str> = deps.keys().map(String::as_str).collect();
    let index_of: BTreeMap<&str, usize> = names.iter().enumerate().map(|(i, n)| (*n, i)).collect();
    let adj: Vec<Vec<usize>> = names
        .iter()
        .map(|n| {
            deps.get(*n)
                .map(|ds| {
                    ds.iter()
                        .filter_map(|d| index_of.get(d.as_str()).copied())
                        .collect()
                })
                .unwrap_or_default()
        })
        .collect();
    let count = names.len();
    let mut index = vec![usize::MAX; count];
    let mut low = vec![0; count];
    let mut on_stack = vec![false; count];
    let mut stack = Vec::new();
    let mut next_index = 0;
    let mut out = Vec::new();
    for root in 0..count {
        if index[root] != usize::MAX {
            continue;
        }
        let mut work: Vec<(usize, usize)> = vec![(root, 0)];
        while let Some(&mut (v, ref mut child)) = work.last_mut() {
            if *child == 0 && index[v] == usize::MAX {
                index[v] = next_index;
                low[v] = next_index;
                next_index += 1;
                stack.push(v);
                on_stack[v] = true;
            }
            if let Some(&w) = adj[v].get(*child) {
                *child += 1;
                if index[w] == usize::MAX {
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                let mut comp = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    comp.push(w);
                    if w == v {
                        break;
                    }
                }
                if comp.len() > 1 || adj[v].contains(&v) {
                    let mut c: Vec<String> = comp.iter().map(|&i| names[i].to_string()).collect();
                    c.sort();
                    out.push(c);
                }
            }
        }
    }
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn deps(pairs: &[(&str, &[&str])]) -> BTreeMap<String, Vec<String>> {
        pairs
            .iter()
            .map(|(n, ds)| (n.to_string(), ds.iter().map(|d| d.to_string()).collect()))
            .collect()
    }

    #[test]
    fn finds_cycles_and_self_loops() {
        let d = deps(&[
            ("a", &["b"]),
            ("b", &["c"]),
            ("c", &["a"]),
            ("d", &["d"]),
            ("e", &["a"]),
        ]);
        assert_eq!(cycles(&d), vec![vec!["a", "b", "c"], vec!["d"]]);
    }

    #[test]
    fn cycle_path_starts_and_ends_at_start() {
        let d = deps(&[("a", &["b"]), ("b", &["c"]), ("c", &["a"])]);
        let p = shortest_cycle("a", |m| d.get(m).cloned().unwrap_or_default()).unwrap();
        assert_eq!(p, vec!["a", "b", "c", "a"]);
        let p = shortest_cycle("d", |_| vec!["d".to_string()]).unwrap();
        assert_eq!(p, vec!["d", "d"]);
    }

    #[test]
    fn sort_takes_smallest_ready_and_breaks_soft_cycles() {
        let mut g = Graph::default();
        for n in ["a", "b", "c", "z"] {
            g.node(n);
        }
        g.edge("z", "a", Strength::Required); // a after z
        g.edge("b", "c", Strength::Optional);
        g.edge("c", "b", Strength::Optional);
        let (order, broken) = g.sort();
        assert_eq!(order, vec!["z", "a", "b", "c"]);
        assert_eq!(broken.len(), 1);
        assert_eq!(broken[0].path, vec!["b", "c", "b"]);
        assert_eq!(broken[0].loaded_first, "b");
    }

    #[test]
    fn hints_break_before_optional_edges() {
        let mut g = Graph::default();
        for n in ["a", "b"] {
            g.node(n);
        }
        g.edge("a", "b", Strength::Optional); // b after a (optional dep)
        g.edge("b", "a", Strength::Hint); // a after b (hint)
        let (order, broken) = g.sort();
        assert_eq!(order, vec!["a", "b"]);
        assert_eq!(broken[0].strength, Strength::Hint);
    }
}
