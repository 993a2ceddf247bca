//! Using an ability: the checks before a cast (caster, cooldown, mana, aim, range), the
//! cast itself (at once, or after its cast time), running the pipeline inside the
//! command's transaction, and the `core:action/cast` action ([`Game::cast`](crate::Game::cast)
//! lives in `game`).

use super::def::{AbilityDef, RangeSpec, RangeType};
use super::nodes::damage_multiplier_key;
use super::timer::{casting_key, schedule_cast};
use super::{event_id, Pipeline};
use crate::bus::Event;
use crate::id::{Id, Sym};
use crate::rules::expr::Expr;
use crate::rules::registry::Action;
use crate::rules::{ActCx, ContentError, Params, RuleError, Scope};
use crate::state::{Coords, ObjId, Value, World};

/// What a cast is aimed at.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum Aim {
    /// Nothing: the ability centres on the caster (allowed when it has no range, or an
    /// `aura` range).
    Nothing,
    /// An object (its position is where the ability lands).
    Object(ObjId),
    /// A point.
    Point(Coords),
}

/// Why a cast did not happen.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum CastError {
    /// No ability has this id in the running generation.
    #[error("unknown ability `{0}`")]
    UnknownAbility(Id),
    /// The caster (or the aimed object) does not exist.
    #[error("object {0} does not exist, so it cannot cast or be aimed at")]
    NoObject(ObjId),
    /// The caster is still casting something with a cast time.
    #[error("`{ability}` refused: the caster is still casting `{casting}`")]
    AlreadyCasting {
        /// The refused ability.
        ability: Id,
        /// What it is casting.
        casting: String,
    },
    /// The ability is recharging.
    #[error("`{ability}` refused: on cooldown until tick {ready_at} (now {now})")]
    OnCooldown {
        /// The ability.
        ability: Id,
        /// The tick it is ready again.
        ready_at: u64,
        /// The current tick.
        now: u64,
    },
    /// The caster's `mana` is below the cost.
    #[error("`{ability}` refused: not enough mana ({have} of {need} needed)")]
    NotEnoughMana {
        /// The ability.
        ability: Id,
        /// The caster's mana.
        have: f64,
        /// The cost.
        need: f64,
    },
    /// The ability has a range, so it needs a target or a point.
    #[error("`{ability}` refused: it needs a target or a point to aim at")]
    NoTarget {
        /// The ability.
        ability: Id,
    },
    /// The caster or the aimed object has no position (`x`, `y`), so range cannot be
    /// measured.
    #[error("`{ability}` refused: object {object} has no position (set its `x` and `y`)")]
    NoPosition {
        /// The ability.
        ability: Id,
        /// The unpositioned object.
        object: ObjId,
    },
    /// The target or point is too far (or too close).
    #[error("`{ability}` refused: out of range ({distance:.2} m; range {min} to {} m)", max.map_or("unlimited".to_owned(), |m| m.to_string()))]
    OutOfRange {
        /// The ability.
        ability: Id,
        /// The distance, meters.
        distance: f64,
        /// Minimum range.
        min: f64,
        /// Maximum range (`None`: unlimited).
        max: Option<f64>,
    },
    /// The cast started but a rule failed; the world was rolled back.
    #[error(transparent)]
    Rule(#[from] RuleError),
}

impl CastError {
    /// Whether the game refused the cast by its rules (cooldown, mana, range, ...), as
    /// opposed to a failure while running it.
    pub fn is_refusal(&self) -> bool {
        !matches!(self, CastError::Rule(_) | CastError::UnknownAbility(_))
    }
}

/// The caster property mana is paid from: `mana`.
pub fn mana_key() -> Sym {
    static K: std::sync::OnceLock<Sym> = std::sync::OnceLock::new();
    *K.get_or_init(|| Sym::new("mana"))
}

fn unknown() -> Id {
    static K: std::sync::OnceLock<Id> = std::sync::OnceLock::new();
    *K.get_or_init(|| Id::parse("core:ability/unknown").unwrap_or_else(|e| panic!("{e}")))
}

/// Checks one range: the distance from the caster to the aimed point. `Ok(None)` for an
/// `aura` range (not checked).
pub(crate) fn check_range(
    world: &World,
    ability: Option<Id>,
    spec: &RangeSpec,
    caster: ObjId,
    target: Option<ObjId>,
    point: Option<Coords>,
) -> Result<Option<f64>, CastError> {
    let ability = ability.unwrap_or_else(unknown);
    if spec.range_type == RangeType::Aura {
        return Ok(None);
    }
    let from = world.coords(caster).ok_or(CastError::NoPosition {
        ability,
        object: caster,
    })?;
    let to = match (point, target) {
        (Some(p), _) => p,
        (None, Some(t)) => return Err(CastError::NoPosition { ability, object: t }),
        (None, None) => return Err(CastError::NoTarget { ability }),
    };
    let distance = from.distance(to);
    let eps = 1e-9;
    if distance + eps < spec.min || spec.max.is_some_and(|m| distance > m + eps) {
        return Err(CastError::OutOfRange {
            ability,
            distance,
            min: spec.min,
            max: spec.max,
        });
    }
    Ok(Some(distance))
}

fn aim_parts(world: &World, aim: Aim) -> (Option<ObjId>, Option<Coords>) {
    match aim {
        Aim::Nothing => (None, None),
        Aim::Object(o) => (Some(o), world.coords(o)),
        Aim::Point(p) => (None, Some(p)),
    }
}

/// Everything checked before a cast starts (and again when a delayed cast fires): the
/// caster exists and is not casting, the cooldown is over, the mana is there, and the
/// aim is within every range.
pub fn precheck(world: &World, def: &AbilityDef, caster: ObjId, aim: Aim) -> Result<(), CastError> {
    let ability = def.id;
    if !world.exists(caster) {
        return Err(CastError::NoObject(caster));
    }
    if let Some(v) = world.base(caster, casting_key()) {
        return Err(CastError::AlreadyCasting {
            ability,
            casting: v.to_string(),
        });
    }
    if let Aim::Object(o) = aim {
        if !world.exists(o) {
            return Err(CastError::NoObject(o));
        }
    }
    let now = world.tick();
    let ready = u64::try_from(world.get_int(caster, def.cooldown_key)).unwrap_or(0);
    if ready > now {
        return Err(CastError::OnCooldown {
            ability,
            ready_at: ready,
            now,
        });
    }
    let need = def.meta.mana_cost;
    if need > 0.0 {
        let have = world.get_number(caster, mana_key()).unwrap_or(0.0);
        if have + 1e-9 < need {
            return Err(CastError::NotEnoughMana {
                ability,
                have,
                need,
            });
        }
    }
    if def.needs_aim() && aim == Aim::Nothing {
        return Err(CastError::NoTarget { ability });
    }
    let (target, point) = aim_parts(world, aim);
    for r in &def.ranges {
        check_range(world, Some(ability), r, caster, target, point)?;
    }
    Ok(())
}

/// Runs an ability's nodes top to bottom for `caster` aimed at `aim`, inside the
/// current command (so any error rolls everything back), then raises
/// `core:event/ability_cast`. Does not check cooldown, mana or range: see [`precheck`].
pub fn run_pipeline(
    ax: &mut ActCx<'_>,
    def: &AbilityDef,
    caster: ObjId,
    aim: Aim,
) -> Result<Pipeline, RuleError> {
    let (target, point) = aim_parts(ax.world, aim);
    let mut p = Pipeline {
        ability: Some(def.id),
        caster: Some(caster),
        target,
        point,
        targets: target.into_iter().collect(),
        ..Pipeline::default()
    };
    p.set_value(damage_multiplier_key(), 1.0);
    let owner = ax.world.object(caster).ok().and_then(|o| o.owner);
    let scope = Scope {
        this: Some(caster),
        source: Some(caster),
        target,
        player: owner,
        event: None,
        value: None,
        giver: None,
        root: None,
        effect_target: None,
    };
    let saved = std::mem::replace(&mut ax.scope, scope);
    let mut failed = None;
    for n in &def.nodes {
        p.node = Some(n.id);
        if let Err(e) = n.node.run(ax, &mut p) {
            failed = Some(match e {
                e @ RuleError::In { .. } => e,
                e => e.context(&n.origin),
            });
            break;
        }
    }
    ax.scope = saved;
    if let Some(e) = failed {
        return Err(e);
    }
    p.node = None;
    let total: i64 = p.hits.iter().map(|h| h.amount).sum();
    let mut e = Event::new(event_id("ability_cast"))
        .source(caster)
        .player(owner)
        .amount(total)
        .with("ability", Value::Text(def.id.as_str().into()));
    e.target = target;
    ax.raise(e);
    Ok(p)
}

/// Starts a checked cast: fires it now (returning the pipeline), or, with a cast time,
/// marks the caster as casting and schedules it (returning `None`).
pub(crate) fn begin(
    ax: &mut ActCx<'_>,
    def: &AbilityDef,
    caster: ObjId,
    aim: Aim,
) -> Result<Option<Pipeline>, RuleError> {
    if def.meta.cast_time_ticks == 0 {
        return run_pipeline(ax, def, caster, aim).map(Some);
    }
    schedule_cast(ax, def.id, caster, aim, def.meta.cast_time_ticks)?;
    let mut e = Event::new(event_id("cast_started"))
        .source(caster)
        .amount(i64::try_from(def.meta.cast_time_ticks).unwrap_or(i64::MAX))
        .with("ability", Value::Text(def.id.as_str().into()));
    if let Aim::Object(o) = aim {
        e.target = Some(o);
    }
    ax.raise(e);
    Ok(None)
}

fn refuse(ax: &mut ActCx<'_>, ability: Id, caster: ObjId, why: &str) {
    ax.raise(
        Event::new(event_id("cast_refused"))
            .source(caster)
            .with("ability", Value::Text(ability.as_str().into()))
            .with("reason", Value::Text(why.into())),
    );
}

/// A delayed cast falls due: checked again (the world moved on), then fired, or
/// refused with `core:event/cast_refused`.
pub(crate) fn fire_or_refuse(
    ax: &mut ActCx<'_>,
    ability: Id,
    caster: ObjId,
    aim: Aim,
) -> Result<(), RuleError> {
    let Some(def) = ax.gen.abilities.get(ability).cloned() else {
        refuse(ax, ability, caster, "the ability no longer exists");
        return Ok(());
    };
    match precheck(ax.world, &def, caster, aim) {
        Ok(()) => run_pipeline(ax, &def, caster, aim).map(|_| ()),
        Err(e) => {
            refuse(ax, ability, caster, &e.to_string());
            Ok(())
        }
    }
}

/// `core:action/cast`: `self` casts an ability at each target (or at a point, or at
/// nothing), as [`Game::cast`] does.
#[derive(Debug)]
struct CastAction {
    ability: Id,
    point: Option<[Expr; 3]>,
    skip_if_refused: bool,
}

impl Action for CastAction {
    fn run(&self, ax: &mut ActCx<'_>, targets: &[ObjId]) -> Result<(), RuleError> {
        let caster = ax.scope.this.ok_or_else(|| {
            RuleError::Failed("`cast` needs a caster: run it with a `self`".into())
        })?;
        let aims: Vec<Aim> = match &self.point {
            Some([x, y, z]) => {
                let cx = ax.cx();
                vec![Aim::Point(Coords::new(
                    x.eval(&cx)?,
                    y.eval(&cx)?,
                    z.eval(&cx)?,
                ))]
            }
            None if targets.is_empty() => vec![Aim::Nothing],
            None => targets.iter().map(|&t| Aim::Object(t)).collect(),
        };
        for aim in aims {
            let def =
                ax.gen.abilities.get(self.ability).cloned().ok_or_else(|| {
                    RuleError::Failed(format!("unknown ability `{}`", self.ability))
                })?;
            match precheck(ax.world, &def, caster, aim) {
                Ok(()) => {
                    begin(ax, &def, caster, aim)?;
                }
                Err(e) if self.skip_if_refused && e.is_refusal() => {
                    refuse(ax, def.id, caster, &e.to_string());
                }
                Err(e) => return Err(RuleError::Failed(e.to_string())),
            }
        }
        Ok(())
    }
}

/// Prepares `core:action/cast`.
pub(crate) fn prepare_cast(p: &mut Params<'_, '_>) -> Result<Box<dyn Action>, ContentError> {
    let raw = p
        .opt_text("ability")?
        .ok_or_else(|| p.error("ability", "`cast` needs `ability`: the id of the ability"))?;
    let ability = Id::resolve(&raw, Some(p.namespace())).map_err(|e| {
        p.error("ability", format!("`{raw}`: {e}"))
            .help("name the ability by its id, e.g. `original:fire/fireball`")
    })?;
    let x = p.opt_expr("x")?;
    let y = p.opt_expr("y")?;
    let z = p.opt_expr("z")?;
    let point = match (x, y, z) {
        (None, None, None) => None,
        (x, y, z) => Some([
            x.unwrap_or(Expr::lit(0.0)),
            y.unwrap_or(Expr::lit(0.0)),
            z.unwrap_or(Expr::lit(0.0)),
        ]),
    };
    Ok(Box::new(CastAction {
        ability,
        point,
        skip_if_refused: p.bool_or("skip_if_refused", false)?,
    }))
}
