//! Selectors as content writes them: inclusive sources, then exclusive filters, then a
//! picker; and the `all`/`any`/`not` condition combinators.

use std::sync::Arc;

use super::expr::Expr;
use super::{Cx, RuleError};
use crate::controller::ControllerError;
use crate::rules::registry::{Condition, Deps, Selector};
use crate::state::{ObjId, ScopeReads};

/// How a selection is narrowed to its final objects.
#[derive(Debug)]
#[non_exhaustive]
pub enum Pick {
    /// Every candidate.
    All,
    /// `n` distinct candidates at random, from the world's seeded RNG.
    Random(Expr),
    /// The first `n` candidates (in selection order).
    First(Expr),
    /// One candidate for each distinct value of a property (the first in selection order;
    /// an absent property is a value too): FOCS's `Unique sortkey = …`.
    Unique(crate::id::Sym),
    /// `n` candidates chosen by the controller of the holder's owner.
    Chosen {
        /// How many to choose.
        count: Expr,
        /// What the choice is for (shown to players, matched by scripted answers).
        prompt: String,
    },
}

/// `sort = "key"` (lowest first) or `sort = "-key"` (highest first), by effective value;
/// ties keep source order.
#[derive(Debug, Clone, Copy)]
pub struct SortBy {
    /// The property.
    pub key: crate::id::Sym,
    /// Highest first.
    pub descending: bool,
}

/// Drops every repeat of an object in `out[start..]`, keeping its first occurrence (so the
/// union of sources keeps source order). Linear: selections over a whole board are common,
/// and a pairwise check was quadratic in the number of candidates.
fn dedup_keep_first(out: &mut Vec<ObjId>, start: usize) {
    let n = out.len() - start;
    // A strictly increasing run (one index-ordered source) has no repeats.
    if n < 2 || out[start..].windows(2).all(|w| w[0] < w[1]) {
        return;
    }
    if n <= 16 {
        let mut keep = start;
        for i in start..out.len() {
            let o = out[i];
            if !out[start..keep].contains(&o) {
                out[keep] = o;
                keep += 1;
            }
        }
        out.truncate(keep);
        return;
    }
    let mut seen = std::collections::HashSet::with_capacity(n);
    let mut keep = start;
    for i in start..out.len() {
        let o = out[i];
        if seen.insert(o) {
            out[keep] = o;
            keep += 1;
        }
    }
    out.truncate(keep);
}

/// What lets one evaluation round make a selection once for everything written the same:
/// its text (with the namespace that resolved its names) and the parts of the scope it
/// reads. A selection reading the RNG, the event, a controller or a plugin has none.
/// Only valid while the world does not change (a pass's match step, an aura round).
#[derive(Debug, Clone)]
pub struct SelectMemo {
    /// The namespace and the selection's table as written.
    pub text: Arc<str>,
    /// The parts of the scope the selection reads.
    pub reads: ScopeReads,
    /// A hash of `text`, to order selections so that equal texts sit together without
    /// comparing texts (equal hashes do not make texts equal).
    pub hash: u64,
}

impl SelectMemo {
    /// The memo of a selection written as `text`, reading `reads` of the scope.
    pub fn new(text: String, reads: ScopeReads) -> SelectMemo {
        use std::hash::{Hash, Hasher};
        // Fixed keys: the same text hashes the same in every run.
        let mut h = std::hash::DefaultHasher::new();
        text.hash(&mut h);
        SelectMemo {
            text: Arc::from(text),
            reads,
            hash: h.finish(),
        }
    }

    /// The scope parts this selection reads, as they are in `cx` (the rest `None`): two
    /// evaluations with equal texts and keys select the same objects.
    pub(crate) fn key(&self, cx: &Cx<'_>) -> [Option<ObjId>; 4] {
        let part = |r: ScopeReads, v: Option<ObjId>| if self.reads.contains(r) { v } else { None };
        let s = cx.scope;
        [
            part(ScopeReads::THIS, s.this),
            part(ScopeReads::SOURCE, s.source),
            part(ScopeReads::PLAYER, s.player),
            part(ScopeReads::ACTING, crate::rules::core::acting_player(cx)),
        ]
    }
}

/// The sources a selection gathered last in an evaluation round (an aura round, a pass's
/// match step), and for which text and scope: the next selection gathering the same
/// sources (auras are ordered so that they sit together; a pass's groups are matched
/// holder by holder) filters a copy instead of gathering again. Only valid while the
/// world does not change.
#[derive(Default)]
pub(crate) struct LastGathered {
    of: Option<(Arc<str>, [Option<ObjId>; 4])>,
    ids: Vec<ObjId>,
}

impl LastGathered {
    /// Selects `sel`'s objects into `out`, through the last gathering when `memo` (the
    /// memo of its sources) allows and it gathered the same sources in the same scope.
    pub(crate) fn select(
        &mut self,
        cx: &Cx<'_>,
        sel: &Select,
        memo: Option<&SelectMemo>,
        out: &mut Vec<ObjId>,
    ) -> Result<(), RuleError> {
        let Some(memo) = memo else {
            return sel.select(cx, out);
        };
        let key = memo.key(cx);
        let same = |(text, k): &(Arc<str>, [Option<ObjId>; 4])| {
            *k == key && (Arc::ptr_eq(text, &memo.text) || **text == *memo.text)
        };
        if !self.of.as_ref().is_some_and(same) {
            self.of = None;
            self.ids.clear();
            sel.gather(cx, &mut self.ids)?;
            self.of = Some((memo.text.clone(), key));
        }
        let start = out.len();
        out.extend_from_slice(&self.ids);
        sel.select_gathered(cx, out, start)
    }
}

/// A compiled selector: the union of its sources (in order, without duplicates), filtered
/// by every condition, then picked.
#[derive(Debug)]
pub struct Select {
    /// Inclusive sources.
    pub sources: Vec<Box<dyn Selector>>,
    /// Exclusive filters: a candidate stays only if all hold (tested as `target`).
    pub filters: Vec<Box<dyn Condition>>,
    /// Order of the candidates before picking (default: source order).
    pub sort: Option<SortBy>,
    /// The picker.
    pub pick: Pick,
}

impl Select {
    /// What the selection reads, with its candidates as `target` (an aura's selection:
    /// `target.power` in a filter is read from each candidate).
    pub fn deps_of_targets(&self, d: &mut Deps) {
        let mut sources = Deps::default();
        for s in &self.sources {
            s.deps(&mut sources);
        }
        // Filters test the candidates: confined to the sources' zones when they are.
        let confined = !self.sources.is_empty() && sources.confined() && !sources.zones.is_empty();
        let mut filters = Deps::default();
        if let Some(sort) = self.sort {
            filters.key(sort.key);
        }
        for f in &self.filters {
            f.deps(&mut filters);
        }
        filters.confine_tested(confined);
        d.merge(&sources);
        d.merge(&filters);
        // A picker other than `all` draws from the RNG, asks a controller or evaluates
        // an expression in the scope.
        match self.pick {
            Pick::All => {}
            // One per distinct value: reads the candidates' key, nothing of the scope.
            Pick::Unique(key) => d.key(key),
            _ => d.scope(crate::state::ScopeReads::OTHER),
        }
    }

    /// Whether `obj` would be selected, tested alone: only for one source in id order,
    /// filters, no sort and no picker (see [`Selector::contains`]).
    pub fn contains(&self, cx: &Cx<'_>, obj: ObjId) -> Option<Result<bool, RuleError>> {
        if self.sources.len() != 1 || self.sort.is_some() || !matches!(self.pick, Pick::All) {
            return None;
        }
        match self.sources[0].contains(cx, obj)? {
            Ok(true) => {}
            other => return Some(other),
        }
        // Filters test a candidate as `target`, as `candidates` does.
        let scope = cx.scope.with_target(obj);
        let tcx = cx.with_scope(&scope);
        for f in &self.filters {
            match f.test(&tcx, obj) {
                Ok(true) => {}
                other => return Some(other),
            }
        }
        Some(Ok(true))
    }

    /// A tag every selected object has, for a selection [`Select::contains`] answers.
    pub fn source_tag(&self) -> Option<crate::id::Sym> {
        if self.sources.len() != 1 || self.sort.is_some() || !matches!(self.pick, Pick::All) {
            return None;
        }
        self.sources[0].source_tag()
    }

    /// The candidates after sources and filters, before picking.
    pub fn candidates(&self, cx: &Cx<'_>, out: &mut Vec<ObjId>) -> Result<(), RuleError> {
        let start = out.len();
        self.gather(cx, out)?;
        self.narrow(cx, out, start)
    }

    /// The union of the sources' selections, in source order without repeats, appended
    /// to `out`: the candidates before filters, order and picker.
    pub fn gather(&self, cx: &Cx<'_>, out: &mut Vec<ObjId>) -> Result<(), RuleError> {
        let start = out.len();
        for s in &self.sources {
            s.select(cx, out)?;
        }
        dedup_keep_first(out, start);
        Ok(())
    }

    /// The final selection from gathered candidates (`out[start..]`, as
    /// [`Select::gather`] left them): filtered, ordered, then picked. With `gather`, the
    /// same as [`Selector::select`]; it lets one gathering serve selections that differ
    /// only after their sources.
    pub fn select_gathered(
        &self,
        cx: &Cx<'_>,
        out: &mut Vec<ObjId>,
        start: usize,
    ) -> Result<(), RuleError> {
        self.narrow(cx, out, start)?;
        self.pick(cx, out, start)
    }

    /// What the sources alone read of the scope, when that is known (see
    /// [`Deps::known_scope_reads`]): the parts a gathering may be reused across.
    pub fn sources_scope_reads(&self) -> Option<ScopeReads> {
        let mut d = Deps::default();
        for s in &self.sources {
            s.deps(&mut d);
        }
        d.known_scope_reads()
    }

    /// Filters and orders the candidates in `out[start..]`.
    fn narrow(&self, cx: &Cx<'_>, out: &mut Vec<ObjId>, start: usize) -> Result<(), RuleError> {
        // Each filter tests the survivors of the previous one in a single batch.
        let mut answers = Vec::new();
        for f in &self.filters {
            if out.len() == start {
                break;
            }
            answers.clear();
            f.test_many(cx, &out[start..], &mut answers)?;
            let mut keep = start;
            for i in start..out.len() {
                if answers.get(i - start).copied().unwrap_or(false) {
                    out[keep] = out[i];
                    keep += 1;
                }
            }
            out.truncate(keep);
        }
        if let Some(sort) = self.sort {
            let key = |o: &ObjId| cx.world.get_number(*o, sort.key).unwrap_or(0.0);
            out[start..].sort_by(|a, b| {
                let ord = key(a).total_cmp(&key(b));
                if sort.descending {
                    ord.reverse()
                } else {
                    ord
                }
            });
        }
        Ok(())
    }

    /// Applies the picker to `out[start..]`.
    fn pick(&self, cx: &Cx<'_>, out: &mut Vec<ObjId>, start: usize) -> Result<(), RuleError> {
        match &self.pick {
            Pick::All => {}
            Pick::Unique(key) => unique(cx, out, start, *key),
            Pick::First(n) => {
                let n = usize::try_from(n.eval_int(cx)?.max(0)).unwrap_or(0);
                out.truncate(start + n.min(out.len() - start));
            }
            Pick::Random(n) => {
                let n = usize::try_from(n.eval_int(cx)?.max(0)).unwrap_or(0);
                let n = n.min(out.len() - start);
                if let Some(picked) = scripted_random(cx, &out[start..], n) {
                    let options = out[start..].to_vec();
                    out.truncate(start);
                    for i in picked? {
                        let o = *options.get(i).ok_or_else(|| {
                            RuleError::Choice(ControllerError::Invalid(format!(
                                "scripted random pick {i} does not exist"
                            )))
                        })?;
                        out.push(o);
                    }
                    return Ok(());
                }
                let pool = &mut out[start..];
                // Partial Fisher-Yates from the world RNG: deterministic per seed.
                for i in 0..n {
                    let hi = i64::try_from(pool.len() - 1).unwrap_or(0);
                    let j =
                        usize::try_from(cx.world.random_range(i64::try_from(i).unwrap_or(0), hi))
                            .unwrap_or(i);
                    pool.swap(i, j);
                }
                out.truncate(start + n);
            }
            Pick::Chosen { count, prompt } => {
                let n = usize::try_from(count.eval_int(cx)?.max(0)).unwrap_or(0);
                let options: Vec<ObjId> = out[start..].to_vec();
                if options.is_empty() || n == 0 {
                    out.truncate(start);
                    return Ok(());
                }
                let controller = cx.controller.ok_or_else(|| {
                    RuleError::Choice(ControllerError::Unsupported(format!("`{prompt}`: a chosen pick cannot be used here (auras and counts cannot ask players)")))
                })?;
                let chooser = cx
                    .scope
                    .this
                    .and_then(|t| cx.world.object(t).ok().and_then(|o| o.owner))
                    .or(cx.scope.player);
                let request = crate::controller::Choice {
                    chooser,
                    prompt: prompt.clone(),
                    options: options.clone(),
                    labels: Vec::new(),
                    min: n.min(options.len()),
                    max: n.min(options.len()),
                };
                let picked = controller
                    .try_borrow_mut()
                    .map_err(|_| RuleError::Choice(ControllerError::Busy))?
                    .choose(cx.world, &request)
                    .map_err(RuleError::Choice)?;
                if picked.len() < request.min || picked.len() > request.max {
                    return Err(RuleError::Choice(ControllerError::Invalid(format!(
                        "`{prompt}` needs {} choice(s), the controller gave {}",
                        request.min,
                        picked.len()
                    ))));
                }
                out.truncate(start);
                for i in picked {
                    let o = *options.get(i).ok_or_else(|| {
                        RuleError::Choice(ControllerError::Invalid(format!(
                            "`{prompt}`: option {i} does not exist"
                        )))
                    })?;
                    if out[start..].contains(&o) {
                        return Err(RuleError::Choice(ControllerError::Invalid(format!(
                            "`{prompt}`: option {i} chosen twice"
                        ))));
                    }
                    out.push(o);
                }
            }
        }
        Ok(())
    }
}

/// Keeps, in `out[start..]`, the first object for each distinct value of `key`.
fn unique(cx: &Cx<'_>, out: &mut Vec<ObjId>, start: usize, key: crate::id::Sym) {
    let mut seen: Vec<Option<crate::state::Value>> = Vec::new();
    let mut keep = start;
    for i in start..out.len() {
        let o = out[i];
        let v = cx.world.base(o, key).cloned();
        if !seen.contains(&v) {
            seen.push(v);
            out[keep] = o;
            keep += 1;
        }
    }
    out.truncate(keep);
}

/// A random pick's outcome scripted by the controller (tests), if it has one; `None`
/// (no controller here, or it scripts nothing) leaves the pick to the world's RNG.
fn scripted_random(
    cx: &Cx<'_>,
    options: &[ObjId],
    n: usize,
) -> Option<Result<Vec<usize>, RuleError>> {
    let mut controller = cx.controller?.try_borrow_mut().ok()?;
    let picked = controller.random_pick(cx.world, options, n)?;
    Some(picked.map_err(RuleError::Choice).and_then(|v| {
        if v.len() == n {
            Ok(v)
        } else {
            Err(RuleError::Choice(ControllerError::Invalid(format!(
                "a random pick of {n} was scripted with {} object(s)",
                v.len()
            ))))
        }
    }))
}

impl Selector for Select {
    fn select(&self, cx: &Cx<'_>, out: &mut Vec<ObjId>) -> Result<(), RuleError> {
        let start = out.len();
        self.candidates(cx, out)?;
        self.pick(cx, out, start)
    }

    fn count(&self, cx: &Cx<'_>) -> Result<usize, RuleError> {
        if matches!(self.pick, Pick::All) && self.filters.is_empty() && self.sources.len() == 1 {
            return self.sources[0].count(cx);
        }
        let mut v = Vec::new();
        self.candidates(cx, &mut v)?;
        match &self.pick {
            Pick::All | Pick::Chosen { .. } => Ok(v.len()),
            Pick::Unique(key) => {
                unique(cx, &mut v, 0, *key);
                Ok(v.len())
            }
            Pick::Random(n) | Pick::First(n) => Ok(usize::try_from(n.eval_int(cx)?.max(0))
                .unwrap_or(0)
                .min(v.len())),
        }
    }

    /// What a selection nested in something else reads (inside a count, a condition):
    /// its candidates are not that thing's target.
    fn deps(&self, d: &mut Deps) {
        let mut inner = Deps::default();
        self.deps_of_targets(&mut inner);
        d.nested(&inner);
    }

    fn contains(&self, cx: &Cx<'_>, obj: ObjId) -> Option<Result<bool, RuleError>> {
        Select::contains(self, cx, obj)
    }

    fn source_tag(&self) -> Option<crate::id::Sym> {
        Select::source_tag(self)
    }
}

/// `all = [...]`: every condition holds (an empty list holds).
#[derive(Debug)]
pub struct All(pub Vec<Box<dyn Condition>>);

impl Condition for All {
    fn test(&self, cx: &Cx<'_>, obj: ObjId) -> Result<bool, RuleError> {
        for c in &self.0 {
            if !c.test(cx, obj)? {
                return Ok(false);
            }
        }
        Ok(true)
    }
    /// Each condition tests, in one batch, the objects every earlier one held for (as a
    /// selection's filters do), so a condition that answers a batch at once (a graph
    /// search, a plugin) still does inside `all`.
    fn test_many(&self, cx: &Cx<'_>, objs: &[ObjId], out: &mut Vec<bool>) -> Result<(), RuleError> {
        narrow(&self.0, cx, objs, out, true)
    }
    fn deps(&self, d: &mut Deps) {
        self.0.iter().for_each(|c| c.deps(d));
    }
}

/// The batch of `all` (`all = true`) or `any` (`false`): each condition tests, at once,
/// the objects still undecided; an object is decided by the first condition answering
/// `false` (for `all`) or `true` (for `any`), as one object tested alone would be.
/// Appends one answer per object (a missing answer counts as `false`).
fn narrow(
    conditions: &[Box<dyn Condition>],
    cx: &Cx<'_>,
    objs: &[ObjId],
    out: &mut Vec<bool>,
    all: bool,
) -> Result<(), RuleError> {
    let start = out.len();
    // Undecided objects hold for `all` (until a condition fails) and fail for `any`
    // (until one holds).
    out.extend(objs.iter().map(|_| all));
    // Inline buffers: most batches are a handful of objects (a board), and this runs for
    // every `all`/`any` condition a selection tests.
    let mut open: smallvec::SmallVec<[usize; 16]> = (0..objs.len()).collect();
    let mut batch: smallvec::SmallVec<[ObjId; 16]> = smallvec::SmallVec::new();
    let mut answers = Vec::with_capacity(objs.len());
    for c in conditions {
        if open.is_empty() {
            break;
        }
        batch.clear();
        batch.extend(open.iter().map(|&i| objs[i]));
        answers.clear();
        c.test_many(cx, &batch, &mut answers)?;
        let mut k = 0;
        open.retain(|i| {
            let i = *i;
            let answer = answers.get(k).copied().unwrap_or(false);
            k += 1;
            if answer != all {
                out[start + i] = answer;
                return false;
            }
            true
        });
    }
    Ok(())
}

/// `any = [...]`: at least one condition holds.
#[derive(Debug)]
pub struct Any(pub Vec<Box<dyn Condition>>);

impl Condition for Any {
    fn test(&self, cx: &Cx<'_>, obj: ObjId) -> Result<bool, RuleError> {
        for c in &self.0 {
            if c.test(cx, obj)? {
                return Ok(true);
            }
        }
        Ok(false)
    }
    /// Each condition tests, in one batch, the objects no earlier one held for.
    fn test_many(&self, cx: &Cx<'_>, objs: &[ObjId], out: &mut Vec<bool>) -> Result<(), RuleError> {
        narrow(&self.0, cx, objs, out, false)
    }
    fn deps(&self, d: &mut Deps) {
        self.0.iter().for_each(|c| c.deps(d));
    }
}

/// `not = {...}`: the condition does not hold.
#[derive(Debug)]
pub struct Not(pub Box<dyn Condition>);

impl Condition for Not {
    fn test(&self, cx: &Cx<'_>, obj: ObjId) -> Result<bool, RuleError> {
        Ok(!self.0.test(cx, obj)?)
    }
    /// The inner condition answers the whole batch.
    fn test_many(&self, cx: &Cx<'_>, objs: &[ObjId], out: &mut Vec<bool>) -> Result<(), RuleError> {
        let start = out.len();
        self.0.test_many(cx, objs, out)?;
        // One answer per object, whatever the inner condition gave (a missing one is false).
        out.resize(start + objs.len(), false);
        out[start..].iter_mut().for_each(|b| *b = !*b);
        Ok(())
    }
    fn deps(&self, d: &mut Deps) {
        self.0.deps(d);
    }
}
