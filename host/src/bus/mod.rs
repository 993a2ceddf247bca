//! Events, the event queue, the trigger index, dispatch order and the scheduler's
//! delivery rule.
//!
//! Owns what an event is, the breadth-first queue (an event raised while another is
//! handled goes after it), how triggers are found for an event (indexed by event id, so an
//! event costs in proportion to its listeners), and the cascade limit that stops trigger
//! loops with the loop named. It does not evaluate triggers: `rules` does that.

use crate::id::{Id, IdHash};
pub use crate::state::Event;
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

/// Ids of the events the host itself defines (the `core` event vocabulary).
pub mod core_events {
    /// Every core event id, with a one-line meaning.
    pub const ALL: &[(&str, &str)] = &[
        (
            "core:event/created",
            "an object was created (target = the object)",
        ),
        (
            "core:event/destroyed",
            "an object was destroyed (target = the object; extra from, slot = the slot it left)",
        ),
        (
            "core:event/damaged",
            "an object took damage (target, amount)",
        ),
        (
            "core:event/healed",
            "an object was healed (target, amount actually healed)",
        ),
        (
            "core:event/moved",
            "an object changed zone (target; extra from, to, slot = the slot it left)",
        ),
        (
            "core:event/property_changed",
            "a base property changed (target; extra key, old, new)",
        ),
        (
            "core:event/tagged",
            "the `tag` action gave an object a tag it did not have (target; extra tag)",
        ),
        (
            "core:event/untagged",
            "the `untag` action took a tag from an object (target; extra tag)",
        ),
        (
            "core:event/shield_broken",
            "a shield tag absorbed a hit (target; amount = the damage absorbed)",
        ),
        (
            "core:event/armor_lost",
            "armour soaked damage (target; amount = the armour lost)",
        ),
        ("core:event/turn_started", "a turn started (player)"),
        ("core:event/turn_ended", "a turn ended (player)"),
        (
            "core:event/tick",
            "the scheduler advanced one tick (amount = the tick)",
        ),
        (
            "core:event/mods_reloaded",
            "the world switched to a new registry generation (amount = its number)",
        ),
    ];
}

/// One queued event and what caused it (an index into the command's event log).
#[derive(Debug, Clone)]
pub struct Queued {
    /// The event, shared by the log and its handling (logging it copies no fields).
    pub event: Arc<Event>,
    /// Index of the event whose handling raised this one, if any.
    pub cause: Option<usize>,
}

/// The breadth-first event queue of one command, with its log and cascade limit.
#[derive(Debug, Default)]
pub struct EventQueue {
    queue: VecDeque<Queued>,
    /// Every event handled so far in this command, in order, with its cause.
    pub log: Vec<Queued>,
    /// Index of the event being handled.
    pub current: Option<usize>,
}

impl EventQueue {
    /// Raises an event: queued after everything already waiting (breadth-first).
    pub fn raise(&mut self, event: Event) {
        self.queue.push_back(Queued {
            event: Arc::new(event),
            cause: self.current,
        });
    }

    /// Takes the next event; it becomes the current one (and stays in the log).
    pub fn next(&mut self, limit: usize) -> Option<Result<(usize, Arc<Event>), CascadeError>> {
        let q = self.queue.pop_front()?;
        if self.log.len() >= limit {
            let chain = self.chain_to(q.cause);
            return Some(Err(CascadeError::new(limit, chain, q.event.id)));
        }
        let i = self.log.len();
        let event = Arc::clone(&q.event);
        self.log.push(q);
        self.current = Some(i);
        Some(Ok((i, event)))
    }

    /// Whether any event is waiting.
    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    fn chain_to(&self, mut cause: Option<usize>) -> Vec<Id> {
        let mut chain = Vec::new();
        while let Some(c) = cause {
            chain.push(self.log[c].event.id);
            cause = self.log[c].cause;
            if chain.len() > 10_000 {
                break;
            }
        }
        chain.reverse();
        chain
    }
}

/// A cascade of events went past the limit: almost always a trigger loop.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("cascade limit of {limit} events reached: {}", self.describe())]
pub struct CascadeError {
    /// The limit in force.
    pub limit: usize,
    /// The repeating part of the causal chain (`a -> b -> a`), if one was found.
    pub cycle: Vec<Id>,
    /// The last events of the causal chain that led to the limit.
    pub tail: Vec<Id>,
}

impl CascadeError {
    fn new(limit: usize, mut chain: Vec<Id>, last: Id) -> CascadeError {
        chain.push(last);
        let cycle = find_cycle(&chain);
        let tail = chain[chain.len().saturating_sub(8)..].to_vec();
        CascadeError { limit, cycle, tail }
    }

    fn describe(&self) -> String {
        let join = |v: &[Id]| {
            v.iter()
                .map(|i| i.as_str())
                .collect::<Vec<_>>()
                .join(" -> ")
        };
        if self.cycle.is_empty() {
            format!(
                "the events ... {} kept raising more events; raise `cascade_limit` in `[world]` if this is intended",
                join(&self.tail)
            )
        } else {
            format!(
                "the loop is {}; a trigger on one of these events raises the event that started it (add a condition that stops it)",
                join(&self.cycle)
            )
        }
    }
}

/// Finds the shortest repeating period at the end of `chain` (repeated at least twice)
/// and returns it closed, starting from the loop event that came first in the chain:
/// `[a, b, a]`.
fn find_cycle(chain: &[Id]) -> Vec<Id> {
    let n = chain.len();
    for period in 1..=n / 2 {
        let a = &chain[n - period..];
        let b = &chain[n - 2 * period..n - period];
        if a == b {
            let first = chain.iter().position(|e| a.contains(e)).unwrap_or(0);
            let start = a.iter().position(|e| *e == chain[first]).unwrap_or(0);
            let mut cycle: Vec<Id> = a[start..].iter().chain(&a[..start]).copied().collect();
            cycle.push(cycle[0]);
            return cycle;
        }
    }
    Vec::new()
}

/// What a trigger is bound to: every object of a class, the objects it was given to at
/// run time, or nothing (a standalone trigger).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Binding {
    /// Runs once per object of the class, with `self` = the object.
    Class(Id),
    /// Runs once, with no `self`.
    Global,
    /// A given effect (`core:action/give_effect`): runs once per instance given, with
    /// `self` = the object holding the instance and `giver` = the object that gave it.
    Given(Id),
}

/// One entry of the index: a trigger number (load order) and its priority.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IndexEntry {
    /// Position of the trigger in the generation's trigger table (= load order).
    pub trigger: u32,
    /// Higher runs first.
    pub priority: i32,
    /// What it is bound to.
    pub binding: Binding,
}

/// Triggers by event id. Within an event, entries are sorted by the documented dispatch
/// order: priority (higher first), then definition load order; the dispatcher then visits
/// bound objects in object-id order.
#[derive(Debug, Clone, Default)]
pub struct TriggerIndex {
    by_event: HashMap<Id, Vec<IndexEntry>, IdHash>,
}

impl TriggerIndex {
    /// Adds a trigger. Call in load order, then [`TriggerIndex::finish`].
    pub fn add(&mut self, event: Id, entry: IndexEntry) {
        self.by_event.entry(event).or_default().push(entry);
    }

    /// Sorts every list into dispatch order.
    pub fn finish(&mut self) {
        for list in self.by_event.values_mut() {
            list.sort_by_key(|e| (std::cmp::Reverse(e.priority), e.trigger));
        }
    }

    /// The triggers listening to `event`, in dispatch order.
    pub fn listeners(&self, event: Id) -> &[IndexEntry] {
        self.by_event.get(&event).map_or(&[], Vec::as_slice)
    }

    /// Number of distinct events with listeners.
    pub fn event_count(&self) -> usize {
        self.by_event.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(s: &str) -> Id {
        Id::parse(&format!("t:event/{s}")).unwrap()
    }

    #[test]
    fn queue_is_breadth_first_and_records_causes() {
        let mut q = EventQueue::default();
        q.raise(Event::new(id("a")));
        let (i, _) = q.next(100).unwrap().unwrap();
        q.raise(Event::new(id("b")));
        q.raise(Event::new(id("c")));
        let (j, e) = q.next(100).unwrap().unwrap();
        assert_eq!(e.id, id("b"));
        q.raise(Event::new(id("d")));
        let (_, e) = q.next(100).unwrap().unwrap();
        assert_eq!(e.id, id("c"), "c was raised before d");
        assert_eq!(q.log[j].cause, Some(i));
    }

    #[test]
    fn cascade_limit_names_the_loop() {
        let mut q = EventQueue::default();
        q.raise(Event::new(id("start")));
        let mut err = None;
        for n in 0..1000 {
            match q.next(50) {
                Some(Ok(_)) => q.raise(Event::new(id(if n % 2 == 0 { "ping" } else { "pong" }))),
                Some(Err(e)) => {
                    err = Some(e);
                    break;
                }
                None => break,
            }
        }
        let err = err.expect("limit reached");
        assert_eq!(err.cycle, vec![id("ping"), id("pong"), id("ping")]);
        assert!(
            err.to_string()
                .contains("t:event/ping -> t:event/pong -> t:event/ping"),
            "{err}"
        );
    }

    #[test]
    fn index_orders_by_priority_then_load_order() {
        let mut ix = TriggerIndex::default();
        let e = id("x");
        for (t, p) in [(0, 0), (1, 5), (2, 0), (3, 5)] {
            ix.add(
                e,
                IndexEntry {
                    trigger: t,
                    priority: p,
                    binding: Binding::Global,
                },
            );
        }
        ix.finish();
        let order: Vec<_> = ix.listeners(e).iter().map(|e| e.trigger).collect();
        assert_eq!(order, [1, 3, 0, 2]);
        assert!(ix.listeners(id("none")).is_empty());
    }
}
