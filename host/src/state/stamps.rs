//! Edit stamps by run of slots: the latest edit stamp of each run of 32 slots, so the
//! objects edited since an edit count are found without reading every slot's stamp.
//!
//! A step that keeps objects in some state (a [`Mark`](super::Mark)) revisits the
//! objects edited since it last ran. In a galaxy of 100,000 objects a turn edits a few
//! hundred: reading each slot's stamp cost a 100k-object effects pass a tenth of its
//! time, where reading one stamp a run skips the runs nothing touched. The runs'
//! stamps live in the same persistent [`Trie`](super::trie::Trie) as the slots, so a
//! snapshot stays O(1) and a rolled-back command takes its stamps back with it.
//!
//! Only a world with marks asks, so the stamps are kept from the first mark on: a world
//! without (a card game's) pays nothing on its edits. Asked about edits from before the
//! stamps were kept, [`World::edited_after`] says it cannot answer.

use super::trie::Trie;
use super::{ObjId, World};

/// Slots a run covers (a leaf of the slot trie).
const RUN: usize = 32;

/// The runs' stamps, and the edit count when they began to be kept.
#[derive(Debug, Clone)]
pub(super) struct RunStamps {
    runs: Trie<u64>,
    since: u64,
}

/// Stamps slot `index` with edit count `edit` in the runs' stamps, when kept (edit
/// counts only grow, so the run's stamp becomes `edit`).
pub(super) fn stamp(stamps: &mut Option<RunStamps>, index: u32, edit: u64) {
    let Some(RunStamps { runs, .. }) = stamps else {
        return;
    };
    let run = index as usize / RUN;
    while runs.len() <= run {
        runs.push_back(0);
    }
    if let Some(s) = runs.get_mut(run) {
        *s = edit;
    }
}

impl World {
    /// Starts keeping the runs' stamps (a step marks where it finished).
    pub(super) fn keep_run_stamps(&mut self) {
        if self.run_stamps.is_none() {
            self.run_stamps = Some(RunStamps {
                runs: Trie::new(),
                since: self.edits,
            });
        }
    }

    /// Lists the living objects made or edited after edit count `since`, in slot order;
    /// `false` (nothing listed) when the world did not keep its stamps then (they are
    /// kept from the first [`World::set_mark`] on).
    pub fn edited_after(&self, since: u64, out: &mut Vec<ObjId>) -> bool {
        let Some(stamps) = self.run_stamps.as_ref().filter(|s| s.since <= since) else {
            return false;
        };
        for (run, &stamp) in stamps.runs.iter().enumerate() {
            if stamp <= since {
                continue;
            }
            let first = run * RUN;
            for index in first..(first + RUN).min(self.slots.len()) {
                let Some(s) = self.slots.get(index) else {
                    break;
                };
                if s.object.is_some() && s.touched > since {
                    // Slot indexes fit in u32 (they are made from one).
                    let index = u32::try_from(index).unwrap_or(u32::MAX);
                    out.push(ObjId {
                        index,
                        generation: s.generation,
                    });
                }
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use crate::id::{Id, Sym};
    use crate::state::{ObjId, Value, World};

    #[test]
    fn the_objects_edited_after_a_count_are_found_across_runs_and_snapshots() {
        let mut w = World::new(1);
        let class = Id::parse("t:class/rock").expect("id");
        let ids: Vec<ObjId> = (0..100)
            .map(|_| w.create(class, None, Sym::new("board")))
            .collect();
        let all = |w: &World, since| {
            let mut out = Vec::new();
            assert!(w.edited_after(since, &mut out), "kept since {since}");
            out
        };
        assert!(
            !w.edited_after(0, &mut Vec::new()),
            "no mark: no stamps kept"
        );
        let since = w.edit_count();
        w.set_mark(class, Sym::new("reset"), 1);
        assert!(
            !w.edited_after(since - 1, &mut Vec::new()),
            "not kept that far back"
        );
        assert!(all(&w, since).is_empty(), "nothing since");
        let snapshot = w.clone();
        for i in [3, 40, 99] {
            w.set(ids[i], Sym::new("hp"), Value::Int(1)).expect("set");
        }
        // The last in its zone: removing it renumbers no other object's slot.
        w.remove(ids[99]).expect("remove");
        assert_eq!(all(&w, since), [ids[3], ids[40]], "the dead are not listed");
        assert!(
            all(&snapshot, since).is_empty(),
            "the snapshot keeps its stamps"
        );
        let made = w.create(class, None, Sym::new("board"));
        assert_eq!(made.index, ids[99].index, "the slot is reused");
        assert_eq!(all(&w, since), [ids[3], ids[40], made]);
    }
}
