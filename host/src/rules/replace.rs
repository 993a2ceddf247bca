//! Replacement and prevention: the "would" step. Before an action changes the world
//! (`damage`, `destroy`, `move`), it offers the event that would happen to the
//! replacement effects of content (`[[class.X.replacement]]`). Each may change the
//! amount or the destination, cancel the event, and act; each applies at most once per
//! event; when several apply, the affected object's controller chooses which goes
//! first, and the rest are offered the changed event again.

use std::cell::Cell;
use std::sync::Arc;

use crate::bus::{Binding, Event};
use crate::id::{Id, Sym};
use crate::rules::compile::Generation;
use crate::rules::core::side_of;
use crate::rules::{aura, ActCx, RuleError, Scope};
use crate::state::ObjId;

/// How deep replacement effects may nest (a replacement's actions causing another event
/// that is offered again) before the command fails as a loop.
pub const MAX_DEPTH: u32 = 32;

thread_local! {
    static DEPTH: Cell<u32> = const { Cell::new(0) };
}

/// An event that would happen, as the replacement effects leave it.
#[derive(Debug, Clone)]
pub struct Proposed {
    /// The event (its amount is the one that will be used).
    pub event: Event,
    /// Where the object would go, for moves.
    pub to: Option<Sym>,
    /// A replacement prevented it: it does not happen and raises nothing.
    pub cancelled: bool,
}

impl Proposed {
    /// An event nothing has replaced yet.
    pub fn new(event: Event, to: Option<Sym>) -> Proposed {
        Proposed {
            event,
            to,
            cancelled: false,
        }
    }
}

/// Whether any replacement effect could apply to event `id` (the fast path for games
/// without them: one look-up).
pub fn any(gen: &Generation, id: Id) -> bool {
    !gen.replacements.is_empty() && !gen.replacement_index.listeners(id).is_empty()
}

/// One replacement effect of one holder: (index in `Generation::replacements`, holder).
type Applying = (u32, ObjId);

/// Offers `p` to every replacement effect that applies, until none is left or one
/// cancels it.
pub fn offer(ax: &mut ActCx<'_>, p: &mut Proposed) -> Result<(), RuleError> {
    if !any(ax.gen, p.event.id) {
        return Ok(());
    }
    let _depth = DepthGuard::enter(&p.event)?;
    let mut used: Vec<Applying> = Vec::new();
    while !p.cancelled {
        let event = Arc::new(p.event.clone());
        let candidates = applicable(ax, &event, &used)?;
        let chosen = match candidates.as_slice() {
            [] => break,
            [one] => *one,
            several => choose_first(ax, &event, several)?,
        };
        used.push(chosen);
        apply(ax, p, chosen, &event)?;
    }
    Ok(())
}

/// The replacement effects that apply to `event` and have not applied to it yet, in
/// dispatch order (definition order, then holder id).
fn applicable(
    ax: &ActCx<'_>,
    event: &Arc<Event>,
    used: &[Applying],
) -> Result<Vec<Applying>, RuleError> {
    let gen = ax.gen;
    let mut out = Vec::new();
    for entry in gen.replacement_index.listeners(event.id) {
        let Binding::Class(class) = entry.binding else {
            continue; // replacement effects are held by objects
        };
        let r = &gen.replacements[entry.trigger as usize];
        for h in ax.world.objects_of_class(class) {
            if used.contains(&(entry.trigger, h))
                || !r.trigger.holder_listens(ax.world, gen, Some(h), event)
            {
                continue;
            }
            let scope = Scope::for_event(Some(h), event);
            if r.trigger
                .passes(&ax.cx().with_scope(&scope), Some(h), event)?
            {
                out.push((entry.trigger, h));
            }
        }
    }
    Ok(out)
}

/// Asks the affected object's controller which of several replacement effects applies
/// first (the options are their holders, in dispatch order).
fn choose_first(
    ax: &ActCx<'_>,
    event: &Event,
    candidates: &[Applying],
) -> Result<Applying, RuleError> {
    let chooser = event
        .target
        .and_then(|t| side_of(ax.world, t))
        .or(event.player);
    let prompt = format!(
        "several effects replace `{}`: choose which applies first",
        event.id
    );
    // One option is picked (min = max = 1), so `picked[0]` exists.
    let request = crate::controller::Choice {
        chooser,
        prompt,
        options: candidates.iter().map(|&(_, h)| h).collect(),
        labels: Vec::new(),
        min: 1,
        max: 1,
    };
    let picked = crate::rules::ask(ax, &request)?;
    Ok(candidates[picked[0]])
}

/// Applies one replacement effect: its changes to `p`, then its actions (with `self` =
/// the holder and the event being replaced as `event`).
fn apply(
    ax: &mut ActCx<'_>,
    p: &mut Proposed,
    (index, holder): Applying,
    event: &Arc<Event>,
) -> Result<(), RuleError> {
    let gen = ax.gen;
    let r = &gen.replacements[index as usize];
    let _span = tracing::debug_span!("replacement", def = %r.trigger.origin.def, mod_id = %r.trigger.origin.mod_id).entered();
    tracing::debug!(event = %event.id, "replacement applies");
    let scope = Scope::for_event(Some(holder), event);
    let targets = {
        let cx = ax.cx();
        let cx = cx.with_scope(&scope);
        if let Some(e) = &r.amount {
            p.event.amount = e.eval_int(&cx).map_err(|e| e.context(&r.trigger.origin))?;
            if p.event.amount <= 0 {
                p.cancelled = true;
            }
        }
        match &r.trigger.select {
            Some(_) => r.trigger.targets(&cx, Some(holder), event)?,
            None => event.target.into_iter().collect(),
        }
    };
    p.cancelled |= r.cancel;
    if let Some(z) = r.to {
        p.to = Some(z);
    }
    if r.trigger.actions.is_empty() {
        return Ok(());
    }
    let outer = std::mem::replace(&mut ax.scope, scope);
    let result = r.trigger.actions.iter().try_for_each(|a| {
        a.run(ax, &targets)?;
        aura::recompute(ax.world, gen, ax.rt)
    });
    ax.scope = outer;
    result.map_err(|e| e.context(&r.trigger.origin))
}

/// Counts nested offers on this thread; fails past [`MAX_DEPTH`].
struct DepthGuard;

impl DepthGuard {
    fn enter(event: &Event) -> Result<DepthGuard, RuleError> {
        let depth = DEPTH.with(|d| {
            let n = d.get() + 1;
            d.set(n);
            n
        });
        let guard = DepthGuard;
        if depth > MAX_DEPTH {
            return Err(RuleError::Failed(format!(
                "replacement effects nested {MAX_DEPTH} deep replacing `{}`: a replacement's actions cause the kind of event it replaces; give it a condition that stops",
                event.id
            )));
        }
        Ok(guard)
    }
}

impl Drop for DepthGuard {
    fn drop(&mut self) {
        DEPTH.with(|d| d.set(d.get().saturating_sub(1)));
    }
}
