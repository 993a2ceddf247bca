//! Marks: when a step that keeps objects in some state last finished — an effect pass's
//! reset (its meters back at their reset values) or its clamps (every value within its
//! bounds) — as the generation it ran under and the world's edit count then.
//!
//! With a mark, the step's next run need visit only the objects edited since
//! ([`World::edited_since`]): the others are still as it left them. A mark from another
//! generation says nothing (the step's definition may have changed). Marks are part of
//! the world, so a rolled-back command takes its marks back with it; they are not part of
//! the checksum (they change what is visited, never what results).

use crate::id::{Id, Sym};

use super::World;

/// When a step last finished.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mark {
    /// The number of the generation it ran under.
    pub generation: u64,
    /// The world's edit count when it finished ([`World::edit_count`]).
    pub edits: u64,
}

impl World {
    /// The mark of step `step` of `owner` (a pass's `reset`), if it has run under
    /// generation `generation`.
    pub fn mark(&self, owner: Id, step: Sym, generation: u64) -> Option<Mark> {
        self.marks
            .get(&(owner, step))
            .copied()
            .filter(|m| m.generation == generation)
    }

    /// Records that step `step` of `owner` finished now, under generation `generation`.
    pub fn set_mark(&mut self, owner: Id, step: Sym, generation: u64) {
        let edits = self.edit_count();
        self.marks.insert((owner, step), Mark { generation, edits });
    }
}
