//! `damage` and `damage_over_time`: hurting the affected objects, now and over time.
//!
//! Every amount is `(base + caster[stat] × multiplier) × falloff × damage_multiplier ×
//! (1 - target[<type>_resistance] / 100)`, rounded to the nearest whole point (halves
//! away from zero); nothing is dealt when that is 0 or less. Damage goes to the target's
//! `damage` counter and raises `core:event/damaged` (extra `damage_type`), as
//! `core:action/damage` does.

use serde::Deserialize;

use super::{caster, damage_multiplier_key, non_negative, params_of, Scale, Scaling};
use crate::bus::Event;
use crate::id::Sym;
use crate::rules::ability::def::ticks;
use crate::rules::ability::timer::{self, DotApply};
use crate::rules::ability::{event_id, pipeline::Hit};
use crate::rules::registry::Node;
use crate::rules::{ActCx, ContentError, Params, Pipeline, RuleError};
use crate::state::{ObjId, Value};

/// Deals `amount` of `damage_type` to `target` (nothing if ≤ 0 or the target is gone):
/// adds to its `damage` and raises `core:event/damaged` with `source`.
pub(crate) fn deal_damage(
    ax: &mut ActCx<'_>,
    source: Option<ObjId>,
    target: ObjId,
    amount: i64,
    damage_type: Sym,
) -> Result<bool, RuleError> {
    if amount <= 0 || !ax.world.exists(target) {
        return Ok(false);
    }
    let key = ax.world.health_rule().damage_key;
    ax.world.add(target, key, amount)?;
    let owner = ax.world.object(target).ok().and_then(|o| o.owner);
    let mut e = Event::new(event_id("damaged"))
        .target(target)
        .amount(amount)
        .player(owner)
        .with("damage_type", Value::Text(damage_type.as_str().into()));
    e.source = source.filter(|s| ax.world.exists(*s));
    ax.raise(e);
    Ok(true)
}

/// The factor a target's resistance to a damage type leaves (`1 - resistance / 100`,
/// never below 0).
fn resisted(ax: &ActCx<'_>, target: ObjId, key: Sym) -> f64 {
    let r = ax.world.get_number(target, key).unwrap_or(0.0);
    (1.0 - r / 100.0).max(0.0)
}

/// Rounds a damage amount to whole points (halves away from zero), saturating.
fn whole(v: f64) -> i64 {
    let r = v.round();
    if r.is_nan() {
        0
    } else {
        // `as` saturates at the i64 range.
        r as i64
    }
}

fn resistance_key(damage_type: &str) -> Sym {
    Sym::new(&format!("{damage_type}_resistance"))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SourceParams {
    #[serde(rename = "damageType")]
    damage_type: String,
    base_value: f64,
    scaling: Scaling,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct DamageParams {
    sources: Vec<SourceParams>,
}

#[derive(Debug)]
struct Source {
    damage_type: Sym,
    resistance: Sym,
    base: f64,
    scale: Scale,
}

#[derive(Debug)]
struct Damage(Vec<Source>);

pub(super) fn damage(p: &mut Params<'_, '_>) -> Result<Box<dyn Node>, ContentError> {
    let dp: DamageParams = params_of(p)?;
    if dp.sources.is_empty() {
        return Err(p
            .error("sources", "`sources` is empty: a damage node needs at least one source")
            .help("add `{ \"damageType\": \"fire\", \"base_value\": 10, \"scaling\": { \"stat\": \"spell_power\", \"multiplier\": 1 } }`"));
    }
    Ok(Box::new(Damage(
        dp.sources
            .iter()
            .map(|s| Source {
                damage_type: Sym::new(&s.damage_type),
                resistance: resistance_key(&s.damage_type),
                base: s.base_value,
                scale: Scale::from(&s.scaling),
            })
            .collect(),
    )))
}

impl Node for Damage {
    fn run(&self, ax: &mut ActCx<'_>, p: &mut Pipeline) -> Result<(), RuleError> {
        let c = caster(ax, p);
        let mult = p.value(damage_multiplier_key()).unwrap_or(1.0);
        let mut total = 0i64;
        for s in &self.0 {
            let raw = (s.base + s.scale.of(ax, c)) * mult;
            for i in 0..p.targets.len() {
                let t = p.targets[i];
                let amount = whole(raw * p.scale_of(i) * resisted(ax, t, s.resistance));
                if deal_damage(ax, c, t, amount, s.damage_type)? {
                    total = total.saturating_add(amount);
                    p.hits.push(Hit {
                        target: t,
                        damage_type: s.damage_type,
                        amount,
                    });
                }
            }
        }
        if let Some(n) = p.node {
            p.set_value(n, total as f64);
        }
        Ok(())
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct DotParams {
    #[serde(rename = "damageType")]
    damage_type: String,
    damage_per_tick: f64,
    tick_interval_seconds: f64,
    duration_seconds: f64,
    scaling: Scaling,
    stacks: bool,
}

#[derive(Debug)]
struct DamageOverTime {
    damage_type: Sym,
    resistance: Sym,
    per_tick: f64,
    scale: Scale,
    interval: u64,
    count: u32,
    stacks: bool,
}

pub(super) fn damage_over_time(p: &mut Params<'_, '_>) -> Result<Box<dyn Node>, ContentError> {
    let dp: DotParams = params_of(p)?;
    non_negative(dp.tick_interval_seconds, "tick_interval_seconds", p, false)?;
    non_negative(dp.duration_seconds, "duration_seconds", p, false)?;
    let interval = ticks(dp.tick_interval_seconds);
    if interval == 0 {
        return Err(p.error(
            "tick_interval_seconds",
            format!(
                "`tick_interval_seconds` = {} is shorter than one world tick (1/{} s)",
                dp.tick_interval_seconds,
                crate::rules::ability::TICKS_PER_SECOND
            ),
        ));
    }
    let n = (dp.duration_seconds / dp.tick_interval_seconds + 1e-9).floor();
    if n < 1.0 {
        return Err(p
            .error(
                "duration_seconds",
                format!(
                    "`duration_seconds` ({}) is shorter than one tick interval ({}), so it would never tick",
                    dp.duration_seconds, dp.tick_interval_seconds
                ),
            )
            .help("total ticks = duration_seconds / tick_interval_seconds: make the duration at least one interval"));
    }
    let count = if n >= f64::from(u32::MAX) {
        u32::MAX
    } else {
        n as u32
    };
    Ok(Box::new(DamageOverTime {
        damage_type: Sym::new(&dp.damage_type),
        resistance: resistance_key(&dp.damage_type),
        per_tick: dp.damage_per_tick,
        scale: Scale::from(&dp.scaling),
        interval,
        count,
        stacks: dp.stacks,
    }))
}

impl Node for DamageOverTime {
    /// Applies the effect to every affected object. The per-tick amount is fixed now
    /// (stats, falloff, multiplier and resistance at the moment it lands).
    fn run(&self, ax: &mut ActCx<'_>, p: &mut Pipeline) -> Result<(), RuleError> {
        let c = caster(ax, p);
        let mult = p.value(damage_multiplier_key()).unwrap_or(1.0);
        let raw = (self.per_tick + self.scale.of(ax, c)) * mult;
        let key = format!(
            "dot.{}.{}",
            p.ability.map_or("none", |a| a.as_str()),
            p.node.map_or("dot", |n| n.as_str())
        );
        let mut applied = 0usize;
        for i in 0..p.targets.len() {
            let t = p.targets[i];
            let amount = whole(raw * p.scale_of(i) * resisted(ax, t, self.resistance));
            if amount <= 0 || !ax.world.exists(t) {
                continue;
            }
            timer::apply_dot(
                ax,
                &DotApply {
                    caster: c,
                    target: t,
                    key: &key,
                    per_tick: amount,
                    damage_type: self.damage_type,
                    interval: self.interval,
                    count: self.count,
                    stacks: self.stacks,
                },
            )?;
            applied += 1;
        }
        if let Some(n) = p.node {
            p.set_value(n, applied as f64);
        }
        Ok(())
    }
}
