//! `condition`: a status effect or reaction, rolled independently for every affected
//! object (and every `condition` node) from the world's seeded RNG.
//!
//! How the engine maps `effect`:
//!
//! - `knockback` / `pull` — displacement: the object moves `force` meters in `direction`
//!   (`away_from_origin`, the default for knockback; `toward_origin`, the default for
//!   pull, never past the origin; or `up`). The origin is the area's, else the aimed
//!   point, else the caster. An object at the origin is pushed away from the caster.
//! - `reduce_<stat>` / `increase_<stat>` — needs `magnitude`: `<stat>` gets
//!   `+magnitude` (an aura modifier, so it is undone exactly) while the condition lasts;
//!   `reduce_fire_resistance` with `-20` lowers `fire_resistance` by 20.
//! - anything else — a status: the object is tagged `<effect>` while it lasts.
//!
//! Timed effects (stat and status) also tag the object `<effect>`, keep `magnitude` in
//! `cond.<effect>.magnitude`, and end after `duration_seconds` through the scheduler
//! (`core:event/condition_expired`); without a duration they last until removed.
//! Re-applying a timed condition restarts its timer. Each landing raises
//! `core:event/condition_applied` (extra `effect`).

use serde::Deserialize;
use serde_json::json;

use super::{caster, non_negative, one_of, params_of};
use crate::bus::Event;
use crate::id::{Id, Sym};
use crate::rules::ability::def::ticks;
use crate::rules::ability::event_id;
use crate::rules::ability::timer::{self, CondApply};
use crate::rules::registry::Node;
use crate::rules::{ActCx, ContentError, Params, Pipeline, RuleError};
use crate::state::{Coords, ObjId, Value};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ConditionParams {
    chance: f64,
    effect: String,
    duration_seconds: Option<f64>,
    magnitude: Option<f64>,
    force: Option<f64>,
    direction: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Direction {
    Away,
    Toward,
    Up,
}

#[derive(Debug)]
enum Effect {
    Move { force: f64, direction: Direction },
    Timed { aura: Option<Id> },
}

#[derive(Debug)]
struct Condition {
    /// Out of 1,000,000.
    threshold: i64,
    effect: Sym,
    kind: Effect,
    duration: Option<u64>,
    magnitude: Option<f64>,
}

const MILLION: i64 = 1_000_000;

pub(super) fn condition(p: &mut Params<'_, '_>) -> Result<Box<dyn Node>, ContentError> {
    let cp: ConditionParams = params_of(p)?;
    if !(0.0..=1.0).contains(&cp.chance) {
        return Err(p
            .error(
                "chance",
                format!("`chance` must be between 0.0 and 1.0, found {}", cp.chance),
            )
            .help("`1.0` always applies; `0.75` applies three times in four"));
    }
    let effect = cp.effect.trim();
    if effect.is_empty() || effect.chars().any(char::is_whitespace) {
        return Err(p.error(
            "effect",
            "`effect` must be a name such as `knockback` or `stun`",
        ));
    }
    if let Some(d) = cp.duration_seconds {
        non_negative(d, "duration_seconds", p, false)?;
    }
    let displacement = matches!(effect, "knockback" | "pull");
    let kind = if displacement {
        let force = cp.force.ok_or_else(|| {
            p.error("effect", format!("`{effect}` needs `force` (meters)"))
                .help("add `\"force\": 8`")
        })?;
        non_negative(force, "force", p, true)?;
        let default = if effect == "pull" {
            "toward_origin"
        } else {
            "away_from_origin"
        };
        let dir = cp.direction.as_deref().unwrap_or(default);
        let direction = match one_of(
            dir,
            "direction",
            &["away_from_origin", "toward_origin", "up"],
            p,
        )? {
            "away_from_origin" => Direction::Away,
            "toward_origin" => Direction::Toward,
            _ => Direction::Up,
        };
        Effect::Move { force, direction }
    } else {
        for key in ["force", "direction"] {
            if p.raw(key).is_some() {
                return Err(p
                    .error(
                        key,
                        format!("`{key}` only applies to displacement effects, not `{effect}`"),
                    )
                    .help("use `knockback` or `pull` to move the target, or remove the key"));
            }
        }
        let stat = effect
            .strip_prefix("reduce_")
            .or_else(|| effect.strip_prefix("increase_"));
        let aura = match (stat, cp.magnitude) {
            (Some(stat), Some(m)) => {
                let spec = json!({
                    "modifiers": [{ "key": stat, "op": "add", "value": m }],
                    "zones": ["*"],
                });
                let path = p.path.clone();
                Some(p.compiler.aura_param(&spec, &path)?)
            }
            (Some(stat), None) => {
                return Err(p
                    .error(
                        "effect",
                        format!("`{effect}` changes `{stat}`, so it needs a `magnitude`"),
                    )
                    .help(format!(
                        "add `\"magnitude\": -20` (added to `{stat}` while the condition lasts)"
                    )));
            }
            (None, _) => None,
        };
        Effect::Timed { aura }
    };
    let threshold = (cp.chance * 1_000_000.0).round();
    Ok(Box::new(Condition {
        threshold: if threshold >= 1_000_000.0 {
            MILLION
        } else {
            threshold.max(0.0) as i64
        },
        effect: Sym::new(effect),
        kind,
        duration: cp.duration_seconds.map(ticks),
        magnitude: cp.magnitude,
    }))
}

impl Condition {
    /// Whether the chance lands: a draw from 0 to a million - 1 (scriptable, as every
    /// random draw is: `rules::random_draw`) below the threshold.
    fn rolls(&self, ax: &ActCx<'_>) -> Result<bool, RuleError> {
        Ok(match self.threshold {
            t if t >= MILLION => true,
            t if t <= 0 => false,
            t => {
                let draw = crate::controller::RandomDraw::Number {
                    lo: 0,
                    hi: MILLION - 1,
                };
                crate::rules::random_draw(&ax.cx(), &draw)? < t
            }
        })
    }

    fn displace(
        &self,
        ax: &mut ActCx<'_>,
        p: &Pipeline,
        target: ObjId,
        force: f64,
        direction: Direction,
    ) -> Result<bool, RuleError> {
        let Some(at) = ax.world.coords(target) else {
            return Ok(false);
        };
        let caster_at = caster(ax, p).and_then(|c| ax.world.coords(c));
        let origin = p.area.map(|a| a.origin).or(p.point).or(caster_at);
        let away = origin
            .and_then(|o| (at - o).unit())
            .or_else(|| caster_at.and_then(|c| (at - c).unit()));
        let moved = match direction {
            Direction::Up => at + Coords::new(0.0, 0.0, force),
            Direction::Away => match away {
                Some(d) => at + d * force,
                None => return Ok(false),
            },
            Direction::Toward => match (away, origin) {
                (Some(d), Some(o)) => at - d * force.min(at.distance(o)),
                _ => return Ok(false),
            },
        };
        ax.world.set_coords(target, moved)?;
        Ok(true)
    }
}

impl Node for Condition {
    fn run(&self, ax: &mut ActCx<'_>, p: &mut Pipeline) -> Result<(), RuleError> {
        let c = caster(ax, p);
        let mut landed = 0usize;
        for i in 0..p.targets.len() {
            let t = p.targets[i];
            if !ax.world.exists(t) || !self.rolls(ax)? {
                continue;
            }
            let applied = match self.kind {
                Effect::Move { force, direction } => self.displace(ax, p, t, force, direction)?,
                Effect::Timed { aura } => {
                    timer::apply_condition(
                        ax,
                        &CondApply {
                            caster: c,
                            target: t,
                            effect: self.effect,
                            duration: self.duration,
                            aura,
                            magnitude: self.magnitude,
                        },
                    )?;
                    true
                }
            };
            if !applied {
                continue;
            }
            landed += 1;
            p.conditions.push((t, self.effect));
            let amount = self.magnitude.or(match self.kind {
                Effect::Move { force, .. } => Some(force),
                Effect::Timed { .. } => None,
            });
            let owner = ax.world.object(t).ok().and_then(|o| o.owner);
            let mut e = Event::new(event_id("condition_applied"))
                .target(t)
                .player(owner)
                .amount(amount.map_or(0, |a| a.round() as i64))
                .with("effect", Value::Text(self.effect.as_str().into()));
            e.source = c;
            ax.raise(e);
        }
        if let Some(n) = p.node {
            p.set_value(n, landed as f64);
        }
        Ok(())
    }
}
