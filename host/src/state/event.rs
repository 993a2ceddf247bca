//! What an event is: an id plus a payload (actor, target, amount, extra values), as
//! raised by actions and kept by the scheduler. Dispatch lives in `bus`.

use std::fmt;

use crate::id::{Id, Sym};
use crate::state::{ObjId, Value};

/// An event: an id plus a payload.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    /// What happened (`core:event/damaged`, ...).
    pub id: Id,
    /// What caused it.
    pub source: Option<ObjId>,
    /// What it happened to.
    pub target: Option<ObjId>,
    /// The player it concerns (for `friendly`/`enemy` filters).
    pub player: Option<ObjId>,
    /// How much (damage dealt, health healed, ...).
    pub amount: i64,
    /// Other fields (`from`, `to`, `key`, ...).
    pub extra: Vec<(Sym, Value)>,
    /// The world just before the action that raised it changed anything (last-known
    /// information, with `[world] last_known`: `event.last.KEY`, `look_back` triggers).
    pub before: Option<crate::state::Snapshot>,
}

impl Event {
    /// An event with an empty payload.
    pub fn new(id: Id) -> Event {
        Event {
            id,
            source: None,
            target: None,
            player: None,
            amount: 0,
            extra: Vec::new(),
            before: None,
        }
    }

    /// Attaches the world as it was before the action (last-known information).
    pub fn before(mut self, snapshot: Option<crate::state::Snapshot>) -> Self {
        self.before = snapshot;
        self
    }

    /// Sets the source.
    pub fn source(mut self, s: ObjId) -> Self {
        self.source = Some(s);
        self
    }

    /// Sets the target.
    pub fn target(mut self, t: ObjId) -> Self {
        self.target = Some(t);
        self
    }

    /// Sets the player.
    pub fn player(mut self, p: Option<ObjId>) -> Self {
        self.player = p;
        self
    }

    /// Sets the amount.
    pub fn amount(mut self, a: i64) -> Self {
        self.amount = a;
        self
    }

    /// Adds an extra field.
    pub fn with(mut self, key: &str, v: Value) -> Self {
        self.extra.push((Sym::new(key), v));
        self
    }

    /// An extra field by key.
    pub fn field(&self, key: Sym) -> Option<&Value> {
        self.extra.iter().find(|(k, _)| *k == key).map(|(_, v)| v)
    }
}

impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.id)?;
        if let Some(s) = self.source {
            write!(f, " source={s}")?;
        }
        if let Some(t) = self.target {
            write!(f, " target={t}")?;
        }
        if self.amount != 0 {
            write!(f, " amount={}", self.amount)?;
        }
        for (k, v) in &self.extra {
            write!(f, " {k}={v}")?;
        }
        Ok(())
    }
}
