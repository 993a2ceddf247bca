//! Ability time: damage-over-time ticks, condition expiry and cast completion, all
//! through the world scheduler ([`crate::World::schedule`], delivered by
//! [`crate::Game::tick`]).
//!
//! Each timer is one scheduled `core:event/ability_timer` (extra `timer` = `dot`,
//! `condition` or `cast`). A generation with abilities carries one built-in trigger on
//! that event (see [`install`]) which handles it. Timer state lives in the world, as
//! properties of the affected object, so it is snapshotted, rolled back and saved with
//! everything else:
//!
//! - a damage over time with key `K` (`dot.<ability>.<node>`) keeps `K.stacks` (active
//!   stacks) and `K.epoch`. A stacking one adds a stack with its own chain of ticks; a
//!   non-stacking one bumps the epoch and starts a fresh chain, and ticks of an older
//!   epoch are dropped when they fall due: its timer restarts.
//! - a timed condition keeps `cond.<effect>.epoch` (and `.aura`, `.magnitude`), the same
//!   way.
//! - a cast in progress is the caster's `casting` property (the ability id).

use super::cast::{self, Aim};
use super::event_id;
use super::nodes::deal_damage;
use crate::bus::{Binding, Event};
use crate::id::{Id, Sym};
use crate::rules::compile::{Generation, Origin, PlayerFilter, Trigger};
use crate::rules::registry::Action;
use crate::rules::{ActCx, RuleError};
use crate::state::{Coords, ObjId, Value};

/// Interned payload keys.
struct Keys {
    timer: Sym,
    key: Sym,
    epoch: Sym,
    left: Sym,
    every: Sym,
    stacks: Sym,
    damage_type: Sym,
    effect: Sym,
    ability: Sym,
    x: Sym,
    y: Sym,
    z: Sym,
}

fn keys() -> &'static Keys {
    static K: std::sync::OnceLock<Keys> = std::sync::OnceLock::new();
    K.get_or_init(|| Keys {
        timer: Sym::new("timer"),
        key: Sym::new("key"),
        epoch: Sym::new("epoch"),
        left: Sym::new("left"),
        every: Sym::new("every"),
        stacks: Sym::new("stacks"),
        damage_type: Sym::new("damage_type"),
        effect: Sym::new("effect"),
        ability: Sym::new("ability"),
        x: Sym::new("x"),
        y: Sym::new("y"),
        z: Sym::new("z"),
    })
}

/// The caster property naming the ability being cast.
pub(crate) fn casting_key() -> Sym {
    static K: std::sync::OnceLock<Sym> = std::sync::OnceLock::new();
    *K.get_or_init(|| Sym::new("casting"))
}

fn int(e: &Event, k: Sym) -> i64 {
    match e.field(k) {
        Some(Value::Int(i)) => *i,
        Some(v) => v.as_f64().map_or(0, |f| f as i64),
        None => 0,
    }
}

fn text(e: &Event, k: Sym) -> Option<&str> {
    match e.field(k) {
        Some(Value::Text(t)) => Some(t),
        _ => None,
    }
}

fn timer_event() -> Event {
    Event::new(event_id("ability_timer"))
}

/// One application of a damage over time.
pub(crate) struct DotApply<'a> {
    pub caster: Option<ObjId>,
    pub target: ObjId,
    pub key: &'a str,
    pub per_tick: i64,
    pub damage_type: Sym,
    pub interval: u64,
    pub count: u32,
    pub stacks: bool,
}

/// Applies a damage over time: adds a stack, or restarts the timer.
pub(crate) fn apply_dot(ax: &mut ActCx<'_>, d: &DotApply<'_>) -> Result<(), RuleError> {
    let stacks_k = Sym::new(&format!("{}.stacks", d.key));
    let epoch_k = Sym::new(&format!("{}.epoch", d.key));
    let stacks = ax.world.get_int(d.target, stacks_k);
    let mut epoch = ax.world.get_int(d.target, epoch_k);
    if d.stacks {
        ax.world.set(d.target, stacks_k, Value::Int(stacks + 1))?;
    } else {
        epoch += 1;
        ax.world.set(d.target, epoch_k, Value::Int(epoch))?;
        ax.world.set(d.target, stacks_k, Value::Int(1))?;
    }
    let mut e = timer_event()
        .target(d.target)
        .amount(d.per_tick)
        .with("timer", Value::Text("dot".into()))
        .with("key", Value::Text(d.key.into()))
        .with("epoch", Value::Int(epoch))
        .with("left", Value::Int(i64::from(d.count)))
        .with(
            "every",
            Value::Int(i64::try_from(d.interval).unwrap_or(i64::MAX)),
        )
        .with("stacks", Value::Bool(d.stacks))
        .with("damage_type", Value::Text(d.damage_type.as_str().into()));
    e.source = d.caster;
    ax.world.schedule(d.interval, e);
    Ok(())
}

fn dot_tick(ax: &mut ActCx<'_>, e: &Event) -> Result<(), RuleError> {
    let k = keys();
    let Some(target) = e.target.filter(|t| ax.world.exists(*t)) else {
        return Ok(());
    };
    let Some(key) = text(e, k.key) else {
        return Ok(());
    };
    let stacks_k = Sym::new(&format!("{key}.stacks"));
    let stacking = matches!(e.field(k.stacks), Some(Value::Bool(true)));
    if !stacking {
        let epoch_k = Sym::new(&format!("{key}.epoch"));
        if ax.world.get_int(target, epoch_k) != int(e, k.epoch) {
            return Ok(()); // re-applied since: this chain's timer was restarted
        }
    }
    let damage_type = Sym::new(text(e, k.damage_type).unwrap_or("untyped"));
    deal_damage(ax, e.source, target, e.amount, damage_type)?;
    let left = int(e, k.left);
    if left > 1 {
        let mut next = e.clone();
        next.extra.retain(|(key, _)| *key != k.left);
        next.extra.push((k.left, Value::Int(left - 1)));
        let every = u64::try_from(int(e, k.every)).unwrap_or(1);
        ax.world.schedule(every, next);
    } else {
        let stacks = ax.world.get_int(target, stacks_k) - 1;
        if stacks > 0 {
            ax.world.set(target, stacks_k, Value::Int(stacks))?;
        } else {
            ax.world.unset(target, stacks_k)?;
        }
    }
    Ok(())
}

/// One landing of a timed condition.
pub(crate) struct CondApply {
    pub caster: Option<ObjId>,
    pub target: ObjId,
    pub effect: Sym,
    pub duration: Option<u64>,
    pub aura: Option<Id>,
    pub magnitude: Option<f64>,
}

/// Applies a timed condition (tag, optional stat aura and magnitude), restarting its
/// timer if it is already on.
pub(crate) fn apply_condition(ax: &mut ActCx<'_>, c: &CondApply) -> Result<(), RuleError> {
    let base = format!("cond.{}", c.effect);
    let epoch_k = Sym::new(&format!("{base}.epoch"));
    let aura_k = Sym::new(&format!("{base}.aura"));
    let epoch = ax.world.get_int(c.target, epoch_k) + 1;
    ax.world.set(c.target, epoch_k, Value::Int(epoch))?;
    ax.world.tag(c.target, c.effect)?;
    if let Some(m) = c.magnitude {
        ax.world.set(
            c.target,
            Sym::new(&format!("{base}.magnitude")),
            Value::Float(m),
        )?;
    }
    if let Some(def) = c.aura {
        if ax.world.base(c.target, aura_k).is_none() {
            let n = ax.world.give_aura(def, c.target, c.caster)?;
            ax.world.set(
                c.target,
                aura_k,
                Value::Int(i64::try_from(n).unwrap_or(i64::MAX)),
            )?;
        }
    }
    if let Some(d) = c.duration {
        let mut e = timer_event()
            .target(c.target)
            .with("timer", Value::Text("condition".into()))
            .with("effect", Value::Text(c.effect.as_str().into()))
            .with("epoch", Value::Int(epoch));
        e.source = c.caster;
        ax.world.schedule(d, e);
    }
    Ok(())
}

fn condition_expired(ax: &mut ActCx<'_>, e: &Event) -> Result<(), RuleError> {
    let k = keys();
    let Some(target) = e.target.filter(|t| ax.world.exists(*t)) else {
        return Ok(());
    };
    let Some(effect) = text(e, k.effect) else {
        return Ok(());
    };
    let base = format!("cond.{effect}");
    let epoch_k = Sym::new(&format!("{base}.epoch"));
    if ax.world.get_int(target, epoch_k) != int(e, k.epoch) {
        return Ok(()); // re-applied since: its timer restarted
    }
    let aura_k = Sym::new(&format!("{base}.aura"));
    if let Some(n) = ax.world.base(target, aura_k).and_then(Value::as_f64) {
        ax.world.remove_aura_instance(n as u64);
    }
    let effect_sym = Sym::new(effect);
    ax.world.untag(target, effect_sym)?;
    for k in [aura_k, Sym::new(&format!("{base}.magnitude"))] {
        ax.world.unset(target, k)?;
    }
    let owner = ax.world.object(target).ok().and_then(|o| o.owner);
    ax.raise(
        Event::new(event_id("condition_expired"))
            .target(target)
            .player(owner)
            .with("effect", Value::Text(effect.into())),
    );
    Ok(())
}

/// Schedules a cast to fire after its cast time.
pub(crate) fn schedule_cast(
    ax: &mut ActCx<'_>,
    ability: Id,
    caster: ObjId,
    aim: Aim,
    delay: u64,
) -> Result<(), RuleError> {
    ax.world
        .set(caster, casting_key(), Value::Text(ability.as_str().into()))?;
    let mut e = timer_event()
        .source(caster)
        .with("timer", Value::Text("cast".into()))
        .with("ability", Value::Text(ability.as_str().into()));
    match aim {
        Aim::Nothing => {}
        Aim::Object(o) => e.target = Some(o),
        Aim::Point(p) => {
            for (k, v) in [("x", p.x), ("y", p.y), ("z", p.z)] {
                e = e.with(k, Value::Float(v));
            }
        }
    }
    ax.world.schedule(delay, e);
    Ok(())
}

fn cast_completed(ax: &mut ActCx<'_>, e: &Event) -> Result<(), RuleError> {
    let k = keys();
    let Some(caster) = e.source.filter(|c| ax.world.exists(*c)) else {
        return Ok(());
    };
    ax.world.unset(caster, casting_key())?;
    let Some(ability) = text(e, k.ability).and_then(|a| Id::parse(a).ok()) else {
        return Ok(());
    };
    let aim = match (e.target, e.field(k.x)) {
        (Some(t), _) => Aim::Object(t),
        (None, Some(_)) => {
            let f = |s| e.field(s).and_then(Value::as_f64).unwrap_or(0.0);
            Aim::Point(Coords::new(f(k.x), f(k.y), f(k.z)))
        }
        _ => Aim::Nothing,
    };
    cast::fire_or_refuse(ax, ability, caster, aim)
}

/// The built-in trigger's action: handles one `core:event/ability_timer`.
#[derive(Debug)]
struct TimerAction;

impl Action for TimerAction {
    fn run(&self, ax: &mut ActCx<'_>, _targets: &[ObjId]) -> Result<(), RuleError> {
        let Some(e) = ax.scope.event.clone() else {
            return Ok(());
        };
        match text(&e, keys().timer) {
            Some("dot") => dot_tick(ax, &e),
            Some("condition") => condition_expired(ax, &e),
            Some("cast") => cast_completed(ax, &e),
            _ => Ok(()),
        }
    }
}

/// Adds the built-in trigger that handles ability timers, when the generation has any
/// abilities (called once per build, before triggers are indexed).
pub(crate) fn install(gen: &mut Generation) {
    if gen.abilities.is_empty() {
        return;
    }
    gen.triggers.push(Trigger {
        event: event_id("ability_timer"),
        player: PlayerFilter::Any,
        condition: None,
        target_condition: None,
        select: None,
        actions: vec![Box::new(TimerAction) as Box<dyn Action>],
        priority: 0,
        zones: Vec::new(),
        look_back: false,
        binding: Binding::Global,
        origin: Origin {
            mod_id: "core".into(),
            file: "<host: ability timers>".into(),
            line: 0,
            def: "built-in ability timers".into(),
        },
    });
}
