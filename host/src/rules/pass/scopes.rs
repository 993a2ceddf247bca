//! Scope selections within one match step of a pass: made once for every group that
//! selects the same way, and a matched group's targets.

use std::collections::HashMap;
use std::sync::Arc;

use super::absent_is_none;
use crate::id::IdHash;
use crate::rules::select::{LastGathered, Select, SelectMemo};
use crate::rules::{Cx, RuleError};
use crate::state::{ObjId, ScopeReads};

/// Scope selections made during one match step, by scope text and the values of the
/// scope parts it reads (the world does not change while groups are matched). A
/// galaxy's 1,000 techs, each selecting its empire's planets with one focus, select
/// 20 distinct sets; FreeOrion caches condition results within its effects pass alike.
#[derive(Default)]
pub(super) struct ScopeCache {
    /// Selections by the text's hash computed at load and the scope parts read, each
    /// with its text (equal hashes do not make texts equal). Looking one up copies
    /// nothing: a scope's text is long, and every group looks its selection up.
    selected: HashMap<MemoKey, smallvec::SmallVec<[Made; 1]>, IdHash>,
    /// Selections that read the holder (`self.parent`: a galaxy's 1,000 buildings each
    /// select their planet), kept only while one holder's groups are matched: groups are
    /// matched holder by holder, and no other holder's can reuse them. Keeping them with
    /// the others would grow the map by one entry a holder for nothing.
    of_holder: Vec<(MemoKey, Made)>,
    /// The holder `of_holder` belongs to.
    holder: Option<ObjId>,
    /// The list the last fresh selection was made in.
    scratch: Vec<ObjId>,
    /// The sources the last fresh selection gathered: a group selecting the same sources
    /// with another `where` (the same empire's planets with the other focus) filters them.
    last: LastGathered,
}

/// A selection's text hash (computed at load) and the scope parts it reads.
type MemoKey = (u64, [Option<ObjId>; 4]);

/// A selection made, by the text it was made from.
struct Made {
    text: Arc<str>,
    targets: Option<Targets>,
}

impl ScopeCache {
    /// The selection of `sel` in `cx` (`None`: it names no object), reused when its
    /// memo (the first of `memos`) allows and an equal one was made; made through the
    /// last gathering of its sources when their memo (the second) allows.
    pub(super) fn select(
        &mut self,
        cx: &Cx<'_>,
        sel: &Select,
        memos: (&Option<SelectMemo>, &Option<SelectMemo>),
    ) -> Result<Option<Targets>, RuleError> {
        let (memo, sources) = (memos.0.as_ref(), memos.1.as_ref());
        let Some(memo) = memo else {
            return self.fresh(cx, sel, sources);
        };
        let key = (memo.hash, memo.key(cx));
        let same = |m: &Made| Arc::ptr_eq(&m.text, &memo.text) || m.text == memo.text;
        if memo.reads.contains(ScopeReads::THIS) {
            if self.holder != cx.scope.this {
                self.of_holder.clear();
                self.holder = cx.scope.this;
            }
            if let Some((_, hit)) = self.of_holder.iter().find(|(k, m)| *k == key && same(m)) {
                return Ok(hit.targets.clone());
            }
            let made = self.fresh(cx, sel, sources)?;
            let text = memo.text.clone();
            self.of_holder.push((
                key,
                Made {
                    text,
                    targets: made.clone(),
                },
            ));
            return Ok(made);
        }
        if let Some(hit) = self
            .selected
            .get(&key)
            .and_then(|b| b.iter().find(|m| same(m)))
        {
            return Ok(hit.targets.clone());
        }
        let made = self.fresh(cx, sel, sources)?;
        self.selected.entry(key).or_default().push(Made {
            text: memo.text.clone(),
            targets: made.clone(),
        });
        Ok(made)
    }

    /// `sel`'s selection made now (its sources gathered again unless `sources`, their
    /// memo, matches the last gathering), in a list kept for the next.
    fn fresh(
        &mut self,
        cx: &Cx<'_>,
        sel: &Select,
        sources: Option<&SelectMemo>,
    ) -> Result<Option<Targets>, RuleError> {
        self.scratch.clear();
        let made = self.last.select(cx, sel, sources, &mut self.scratch);
        if absent_is_none(made)?.is_none() {
            return Ok(None);
        }
        Ok(Some(match self.scratch.as_slice() {
            [one] => Targets::One(*one),
            all => Targets::Many(Arc::from(all)),
        }))
    }
}

/// A matched group's targets: one object (a group acting on its source, or on one named
/// object: most of a galaxy's buildings) without an allocation, or a shared list.
#[derive(Clone)]
pub(super) enum Targets {
    One(ObjId),
    Many(Arc<[ObjId]>),
}

impl Targets {
    pub(super) fn as_slice(&self) -> &[ObjId] {
        match self {
            Targets::One(o) => std::slice::from_ref(o),
            Targets::Many(all) => all,
        }
    }
}
