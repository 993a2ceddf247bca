//! A running game: a world bound to a registry generation and a controller, driven by
//! commands.
//!
//! Owns commands and transactions (every command runs against a snapshot and is rolled
//! back whole on any error), event dispatch (breadth-first, in the documented order:
//! trigger priority, then definition load order, then object id), settle rules, aura
//! recompute timing, the scheduler's tick, and the [`Controller`] trait that answers
//! choices. It reads no files.

mod cast;
mod moves;
mod swap;

use std::cell::RefCell;
use std::sync::Arc;

pub use crate::controller::{
    Answer, Choice, Controller, ControllerError, MoveOption, RandomController, RandomDraw,
    ScriptedController,
};
pub use cast::CastReport;
pub use swap::SwapReport;

use crate::bus::{Binding, Event, EventQueue};
use crate::id::{Id, Sym};
use crate::plugins::Runtime;
use crate::rules::compile::{PlayerFilter, Trigger};
use crate::rules::core::{acting_player, instantiate};
use crate::rules::registry::{Action, Node, Selector};
use crate::rules::{aura, ActCx, Cx, Generation, Pipeline, RuleError, Scope};
use crate::state::{ObjId, World};

/// What a successful command did.
#[derive(Debug, Clone, Default)]
pub struct Outcome {
    /// Every event handled, in order.
    pub events: Vec<Event>,
}

/// A world, the generation of rules it runs, and who answers its choices.
pub struct Game {
    world: World,
    gen: Arc<Generation>,
    controller: RefCell<Box<dyn Controller>>,
    rt: Runtime,
}

impl std::fmt::Debug for Game {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Game")
            .field("generation", &self.gen.number)
            .field("objects", &self.world.len())
            .finish()
    }
}

impl Game {
    /// A new game with an empty world seeded with `seed`.
    pub fn new(gen: Arc<Generation>, seed: u64, controller: Box<dyn Controller>) -> Game {
        let mut world = World::new(seed);
        world.set_health_rule(gen.world.health.clone());
        Game {
            world,
            gen,
            controller: RefCell::new(controller),
            rt: Runtime::default(),
        }
    }

    /// The world (read-only: change it through commands).
    pub fn world(&self) -> &World {
        &self.world
    }

    /// The rules generation in force.
    pub fn generation(&self) -> &Arc<Generation> {
        &self.gen
    }

    /// This world's plugin instances.
    pub fn runtime(&self) -> &Runtime {
        &self.rt
    }

    /// Replaces the controller.
    pub fn set_controller(&mut self, controller: Box<dyn Controller>) {
        self.controller = RefCell::new(controller);
    }

    /// The controller (to inspect a scripted one after a run).
    pub fn controller(&self) -> std::cell::Ref<'_, Box<dyn Controller>> {
        self.controller.borrow()
    }

    /// Setup: creates an object of a class without raising events (auras update).
    pub fn spawn(
        &mut self,
        class: Id,
        owner: Option<ObjId>,
        zone: &str,
    ) -> Result<ObjId, RuleError> {
        let mut created = None;
        self.command("spawn", |ax| {
            created = Some(instantiate(ax.world, ax.gen, class, owner, Sym::new(zone))?);
            Ok(())
        })?;
        created.ok_or_else(|| RuleError::internal("a spawn command succeeded but created nothing"))
    }

    /// Setup: creates each (class, owner, zone) of `objects`, in order, in a single
    /// command and without raising events: the same world as a [`Game::spawn`] per
    /// object, for one snapshot and one aura recompute in all (dealing two 30-card decks
    /// was 60 commands). On an error nothing is created.
    pub fn spawn_all(
        &mut self,
        objects: &[(Id, Option<ObjId>, Sym)],
    ) -> Result<Vec<ObjId>, RuleError> {
        let mut created = Vec::with_capacity(objects.len());
        self.command("spawn", |ax| {
            for &(class, owner, zone) in objects {
                created.push(instantiate(ax.world, ax.gen, class, owner, zone)?);
            }
            Ok(())
        })?;
        Ok(created)
    }

    /// Setup: creates an object of a class and prepares it (properties, tags, parent) in
    /// the same command, before auras see it. No events are raised.
    pub fn spawn_with(
        &mut self,
        class: Id,
        owner: Option<ObjId>,
        zone: &str,
        prepare: impl FnOnce(&mut World, ObjId) -> Result<(), RuleError>,
    ) -> Result<ObjId, RuleError> {
        let mut created = None;
        self.command("spawn", |ax| {
            let id = instantiate(ax.world, ax.gen, class, owner, Sym::new(zone))?;
            prepare(ax.world, id)?;
            created = Some(id);
            Ok(())
        })?;
        created.ok_or_else(|| RuleError::internal("a spawn command succeeded but created nothing"))
    }

    /// Setup: changes the world directly (no events; auras update). Rolled back on error.
    pub fn setup(
        &mut self,
        f: impl FnOnce(&mut World) -> Result<(), RuleError>,
    ) -> Result<(), RuleError> {
        self.command("setup", |ax| f(ax.world)).map(|_| ())
    }

    /// Command: raises an event and handles everything it causes.
    pub fn emit(&mut self, event: Event) -> Result<Outcome, RuleError> {
        let name = event.id;
        self.command(name.as_str(), |ax| {
            ax.raise(event);
            Ok(())
        })
    }

    /// Command: runs actions on targets, with `this` as the holder.
    pub fn run_actions(
        &mut self,
        actions: &[Box<dyn Action>],
        this: Option<ObjId>,
        targets: &[ObjId],
    ) -> Result<Outcome, RuleError> {
        self.command("actions", |ax| {
            ax.scope.this = this;
            for a in actions {
                a.run(ax, targets)?;
                aura::recompute(ax.world, ax.gen, ax.rt)?;
            }
            Ok(())
        })
    }

    /// Command: runs one pipeline node with `this` as the caster, over `pipeline`
    /// (values produced by earlier nodes); returns the pipeline after the node.
    pub fn run_node(
        &mut self,
        node: &dyn Node,
        this: Option<ObjId>,
        pipeline: Pipeline,
    ) -> Result<(Pipeline, Outcome), RuleError> {
        let mut p = pipeline;
        let outcome = self.command("node", |ax| {
            ax.scope.this = this;
            node.run(ax, &mut p)
        })?;
        Ok((p, outcome))
    }

    /// Command: advances the scheduler `n` ticks. Each tick raises `core:event/tick`, then
    /// delivers the delayed events that fall due, in the order they were scheduled.
    pub fn tick(&mut self, n: u32) -> Result<Outcome, RuleError> {
        let mut outcome = Outcome::default();
        for _ in 0..n {
            let o = self.command("tick", crate::rules::advance_tick)?;
            outcome.events.extend(o.events);
        }
        Ok(outcome)
    }

    /// Runs `f` as one transaction, then handles every event it raised. On any error
    /// the world is exactly as it was before.
    fn command(
        &mut self,
        name: &str,
        f: impl FnOnce(&mut ActCx<'_>) -> Result<(), RuleError>,
    ) -> Result<Outcome, RuleError> {
        let _span = tracing::debug_span!("command", name).entered();
        // `RUST_LOG=tessera_host=debug`: every command and every trigger that fires, with
        // its mod; `trace` adds events and actions.
        tracing::debug!(name, "command");
        let snapshot = self.world.clone();
        let mut queue = EventQueue::default();
        let result = {
            let mut ax = ActCx {
                world: &mut self.world,
                gen: &self.gen,
                scope: Scope::default(),
                queue: &mut queue,
                controller: &self.controller,
                rt: &self.rt,
            };
            f(&mut ax)
                .and_then(|()| aura::recompute(ax.world, ax.gen, ax.rt))
                .and_then(|()| settle(&mut ax))
        };
        match result {
            Ok(()) => Ok(Outcome {
                // Handled: the log holds each event's last reference.
                events: queue
                    .log
                    .into_iter()
                    .map(|q| Arc::unwrap_or_clone(q.event))
                    .collect(),
            }),
            Err(e) => {
                tracing::debug!(error = %e, "command failed; world rolled back");
                self.world = snapshot;
                Err(e)
            }
        }
    }
}

/// Handles queued events until none are left: triggers, `until` expiry, aura recompute
/// and settle rules after each.
fn settle(ax: &mut ActCx<'_>) -> Result<(), RuleError> {
    let limit = ax.gen.world.cascade_limit;
    while let Some(next) = ax.queue.next(limit) {
        let (_, event) = next?;
        let _span = tracing::debug_span!("event", id = %event.id).entered();
        tracing::trace!(%event, "dispatch");
        let gen = ax.gen;
        dispatch(ax, &event)?;
        if ax.world.has_effects() {
            end_silenced_effects(ax);
        }
        // Given auras that last `until` this event end now.
        let ended = end_auras_until(ax, &event)?;
        if ended > 0 {
            tracing::trace!(ended, "auras ended");
        }
        aura::recompute(ax.world, gen, ax.rt)?;
        for (n, check) in gen.checks.iter().enumerate() {
            // A rule that found nothing, with nothing it reads changed since, would find
            // nothing again.
            if let Some(deps) = &check.quiet_deps {
                if ax.world.rule_quiet(n, deps) {
                    continue;
                }
            }
            let scope = Scope::for_event(None, &event);
            let timer = crate::plugins::start_content(ax.rt);
            let mut targets = Vec::new();
            {
                let cx = Cx {
                    world: ax.world,
                    gen,
                    scope: &scope,
                    controller: Some(ax.controller),
                    rt: ax.rt,
                };
                check
                    .select
                    .select(&cx, &mut targets)
                    .map_err(|e| e.context(&check.origin))?;
            }
            if let Some(deps) = &check.quiet_deps {
                ax.world
                    .set_rule_quiet(n, targets.is_empty().then_some(deps));
            }
            if targets.is_empty() {
                crate::plugins::stop_content(ax.rt, timer, &check.origin.mod_id);
                continue;
            }
            let _span = tracing::trace_span!("rule", def = %check.origin.def, mod_id = %check.origin.mod_id).entered();
            ax.scope = scope;
            for a in &check.actions {
                a.run(ax, &targets)?;
            }
            crate::plugins::stop_content(ax.rt, timer, &check.origin.mod_id);
            aura::recompute(ax.world, gen, ax.rt)?;
        }
    }
    Ok(())
}

/// Runs the triggers listening to `event`: standalone ones once, class ones once per
/// object of the class (in id order), given effects once per instance (in the order given).
fn dispatch(ax: &mut ActCx<'_>, event: &Arc<Event>) -> Result<(), RuleError> {
    let gen = ax.gen;
    for entry in gen.index.listeners(event.id) {
        let trigger = &gen.triggers[entry.trigger as usize];
        match entry.binding {
            Binding::Global => {
                run_trigger(ax, trigger, None, None, event)?;
            }
            Binding::Class(class) => {
                let mut holders: smallvec::SmallVec<[ObjId; 16]> = smallvec::SmallVec::new();
                ax.world.objects_of_class_into(class, &mut holders);
                for h in holders {
                    if ax.world.exists(h) {
                        run_trigger(ax, trigger, Some(h), None, event)?;
                    }
                }
            }
            Binding::Given(def) => run_given(ax, trigger, def, event)?,
        }
    }
    Ok(())
}

/// Runs a given effect's trigger for each instance of it; a one-shot instance ends once it
/// fired, and one whose holder was silenced after it was given ends without running.
fn run_given(
    ax: &mut ActCx<'_>,
    trigger: &Trigger,
    def: crate::id::Id,
    event: &Arc<Event>,
) -> Result<(), RuleError> {
    if !ax.world.has_effects() {
        return Ok(());
    }
    let instances: smallvec::SmallVec<[(u64, ObjId, Option<ObjId>); 8]> = ax
        .world
        .effect_instances()
        .filter(|(_, e)| e.def == def)
        .map(|(n, e)| (n, e.holder, e.giver))
        .collect();
    let silence = ax.gen.world.silence_tag;
    for (n, holder, giver) in instances {
        // An earlier instance's actions may have ended this one.
        let Some(inst) = ax.world.effect_instance(n) else {
            continue;
        };
        let once = inst.once;
        if effect_silenced(ax.world, inst, silence) {
            ax.world.remove_effect_instance(n);
            continue;
        }
        if run_trigger(ax, trigger, Some(holder), giver, event)? && once {
            ax.world.remove_effect_instance(n);
        }
    }
    Ok(())
}

/// Whether a given effect's holder was silenced after it was given (silence ends it).
fn effect_silenced(
    world: &crate::state::World,
    inst: &crate::state::EffectInstance,
    silence: Option<crate::id::Sym>,
) -> bool {
    !inst.given_silenced && silence.is_some_and(|s| world.has_tag(inst.holder, s))
}

/// Ends, for good, the given effects whose holder has been silenced since they were given
/// (a later loss of the silence tag does not bring them back).
fn end_silenced_effects(ax: &mut ActCx<'_>) {
    let silence = ax.gen.world.silence_tag;
    if silence.is_none() {
        return;
    }
    let world = &*ax.world;
    let ended: Vec<u64> = world
        .effect_instances()
        .filter(|(_, e)| effect_silenced(world, e, silence))
        .map(|(n, _)| n)
        .collect();
    for n in ended {
        ax.world.remove_effect_instance(n);
    }
}

/// Ends the given aura instances whose `until` matches the event (its player and target
/// filters judged from the holder's side: "until the end of its holder's turn"); returns how
/// many ended.
fn end_auras_until(ax: &mut ActCx<'_>, event: &Arc<Event>) -> Result<usize, RuleError> {
    let gen = ax.gen;
    let mut ending = Vec::new();
    for (n, inst) in ax.world.aura_instances() {
        let Some(def) = gen.auras.get(&inst.def) else {
            continue;
        };
        for until in def.until.iter().filter(|u| u.event == event.id) {
            if until_matches(ax, until, inst, event)? {
                ending.push(n);
                break;
            }
        }
    }
    for n in &ending {
        ax.world.remove_aura_instance(*n);
    }
    Ok(ending.len())
}

/// Whether one `until` of a given aura instance matches the event.
fn until_matches(
    ax: &ActCx<'_>,
    until: &crate::rules::compile::Until,
    inst: &crate::state::AuraInstance,
    event: &Arc<Event>,
) -> Result<bool, RuleError> {
    let gen = ax.gen;
    let scope = Scope::for_event(Some(inst.holder), event);
    let cx = Cx {
        world: ax.world,
        gen,
        scope: &scope,
        controller: Some(ax.controller),
        rt: ax.rt,
    };
    if until.player != PlayerFilter::Any {
        let mine = match (acting_player(&cx), event.player) {
            (Some(me), Some(p)) => (me == p) == (until.player == PlayerFilter::Friendly),
            _ => false,
        };
        if !mine {
            return Ok(false);
        }
    }
    if let Some(c) = &until.target {
        let Some(t) = event.target else {
            return Ok(false);
        };
        if !c.test(&cx.with_scope(&scope.with_target(t)), t)? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Runs one trigger for one holder (timed per mod when profiling); whether it fired (it
/// listened, passed its filters and ran its actions). `giver`: a given effect's giver.
fn run_trigger(
    ax: &mut ActCx<'_>,
    t: &Trigger,
    holder: Option<ObjId>,
    giver: Option<ObjId>,
    event: &Arc<Event>,
) -> Result<bool, RuleError> {
    let timer = crate::plugins::start_content(ax.rt);
    let r = run_trigger_untimed(ax, t, holder, giver, event);
    crate::plugins::stop_content(ax.rt, timer, &t.origin.mod_id);
    r
}

fn run_trigger_untimed(
    ax: &mut ActCx<'_>,
    t: &Trigger,
    holder: Option<ObjId>,
    giver: Option<ObjId>,
    event: &Arc<Event>,
) -> Result<bool, RuleError> {
    if !t.holder_listens(ax.world, ax.gen, holder, event) {
        return Ok(false);
    }
    let mut scope = Scope::for_event(holder, event);
    scope.giver = giver;
    let gen = ax.gen;
    let targets = {
        let cx = ax.cx();
        let cx = cx.with_scope(&scope);
        if !t.passes(&cx, holder, event)? {
            return Ok(false);
        }
        t.targets(&cx, holder, event)?
    };
    // A `select` that selects nothing leaves the actions nothing to act on: only those
    // that pick their own targets (`to`) run; the rest do nothing, as an action whose
    // `to` selects nothing does nothing (without targets they would act for the holder).
    let no_one = t.select.is_some() && targets.is_empty();
    let _span =
        tracing::debug_span!("trigger", def = %t.origin.def, mod_id = %t.origin.mod_id).entered();
    tracing::debug!(
        event = %event.id,
        at = %format_args!("{}:{}", t.origin.file.display(), t.origin.line),
        targets = targets.len(),
        "trigger fires"
    );
    ax.scope = scope;
    for a in t
        .actions
        .iter()
        .filter(|a| !no_one || a.picks_own_targets())
    {
        tracing::trace!(action = ?a, "action");
        a.run(ax, &targets)?;
        aura::recompute(ax.world, gen, ax.rt)?;
    }
    Ok(true)
}
