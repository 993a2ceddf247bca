//! Marks: when a step that keeps objects in some state last finished — an effect pass's
//! reset (its meters back at their reset values) or its clamps (every value within its
//! bounds) — as the generation it ran under and the world's edit count then, with the
//! objects it left outside that state without editing them.
//!
//! With a mark, the step's next run need visit only the objects edited since
//! ([`World::edited_since`]) and the ones it holds: the others are still as it left
//! them. A mark from another generation says nothing (the step's definition may have
//! changed). Marks are part of the world, so a rolled-back command takes its marks back
//! with it; they are not part of the checksum (they change what is visited, never what
//! results).

use std::sync::Arc;

use crate::id::{Id, Sym};

use super::{ObjId, World};

/// When a step last finished.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mark {
    /// The number of the generation it ran under.
    pub generation: u64,
    /// The world's edit count when it finished ([`World::edit_count`]).
    pub edits: u64,
    /// Objects left outside the step's state without an edit, to visit on its next run
    /// as if edited: a pass that keeps running values aside writes a meter its effects
    /// brought back to the value it held before its reset, so nothing edits it, yet it
    /// is away from its reset value.
    pub held: Arc<[ObjId]>,
}

impl World {
    /// The mark of step `step` of `owner` (a pass's `reset`), if it has run under
    /// generation `generation`.
    pub fn mark(&self, owner: Id, step: Sym, generation: u64) -> Option<Mark> {
        self.marks
            .get(&(owner, step))
            .filter(|m| m.generation == generation)
            .cloned()
    }

    /// Records that step `step` of `owner` finished now, under generation `generation`,
    /// holding nothing.
    pub fn set_mark(&mut self, owner: Id, step: Sym, generation: u64) {
        let edits = self.edit_count();
        self.keep_run_stamps();
        let held = Arc::from([]);
        let mark = Mark {
            generation,
            edits,
            held,
        };
        self.marks.insert((owner, step), mark);
    }

    /// Sets the objects the mark of step `step` of `owner` holds (nothing when the step
    /// has no mark): its next run visits them as if edited.
    pub fn hold(&mut self, owner: Id, step: Sym, held: Vec<ObjId>) {
        if let Some(m) = self.marks.get_mut(&(owner, step)) {
            m.held = Arc::from(held);
        }
    }
}
