//! `base_value`, `range`, `area_of_effect` and `meta`: the nodes that compute numbers,
//! check reach, shape the area and pay for the cast.

use serde::Deserialize;
use serde_json::{Map, Value as Json};

use super::{caster, non_negative, one_of, params_of, Scale, Scaling};
use crate::id::Sym;
use crate::rules::ability::cast::{check_range, mana_key};
use crate::rules::ability::def::{cooldown_key, ticks, RangeSpec, RangeType};
use crate::rules::ability::pipeline::{Area, Falloff, Shape};
use crate::rules::registry::Node;
use crate::rules::{ActCx, ContentError, Params, PathSeg, Pipeline, RuleError};
use crate::state::{Coords, ObjId, Value};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct BaseValueParams {
    amount: f64,
    scaling: Scaling,
}

#[derive(Debug)]
struct BaseValue {
    amount: f64,
    scale: Scale,
    key: Sym,
}

pub(super) fn base_value(p: &mut Params<'_, '_>) -> Result<Box<dyn Node>, ContentError> {
    let bp: BaseValueParams = params_of(p)?;
    Ok(Box::new(BaseValue {
        amount: bp.amount,
        scale: Scale::from(&bp.scaling),
        key: Sym::new("base_value"),
    }))
}

impl Node for BaseValue {
    fn run(&self, ax: &mut ActCx<'_>, p: &mut Pipeline) -> Result<(), RuleError> {
        let v = self.amount + self.scale.of(ax, caster(ax, p));
        if let Some(n) = p.node {
            p.set_value(n, v);
        }
        p.set_value(self.key, v);
        Ok(())
    }
}

/// The parameters of a `range` node.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RangeParams {
    min: f64,
    max: Json,
    unit: String,
    #[serde(rename = "rangeType")]
    range_type: String,
}

impl RangeParams {
    /// Reads a `range` node's table.
    pub(crate) fn from_map(m: &Map<String, Json>, path: &[PathSeg]) -> Result<Self, ContentError> {
        super::from_map(m, path)
    }

    fn max(&self) -> Result<Option<f64>, String> {
        match &self.max {
            Json::Null => Ok(None),
            Json::String(s) if s == "unlimited" => Ok(None),
            Json::Number(n) => Ok(n.as_f64()),
            _ => Err("`max` must be a number, `null` or `\"unlimited\"`".into()),
        }
    }
}

impl From<RangeParams> for RangeSpec {
    fn from(r: RangeParams) -> RangeSpec {
        RangeSpec {
            min: r.min,
            max: r.max().ok().flatten(),
            range_type: match r.range_type.as_str() {
                "projectile" => RangeType::Projectile,
                "melee" => RangeType::Melee,
                "aura" => RangeType::Aura,
                _ => RangeType::Hitscan,
            },
        }
    }
}

#[derive(Debug)]
struct Range(RangeSpec);

pub(super) fn range(p: &mut Params<'_, '_>) -> Result<Box<dyn Node>, ContentError> {
    let rp: RangeParams = params_of(p)?;
    non_negative(rp.min, "min", p, true)?;
    let max = rp.max().map_err(|m| p.error("max", m))?;
    if let Some(m) = max {
        non_negative(m, "max", p, true)?;
        if m < rp.min {
            return Err(p.error(
                "max",
                format!("`max` ({m}) is less than `min` ({})", rp.min),
            ));
        }
    }
    one_of(&rp.unit, "unit", &["meters"], p)?;
    one_of(
        &rp.range_type,
        "rangeType",
        &["projectile", "hitscan", "melee", "aura"],
        p,
    )?;
    Ok(Box::new(Range(RangeSpec::from(rp))))
}

impl Node for Range {
    fn run(&self, ax: &mut ActCx<'_>, p: &mut Pipeline) -> Result<(), RuleError> {
        let Some(c) = caster(ax, p) else {
            return Err(RuleError::Failed("a range needs a caster".into()));
        };
        let d = check_range(ax.world, p.ability, &self.0, c, p.target, p.point)
            .map_err(|e| RuleError::Failed(e.to_string()))?;
        if let (Some(n), Some(d)) = (p.node, d) {
            p.set_value(n, d);
        }
        Ok(())
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct AreaParams {
    shape: String,
    radius: f64,
    unit: String,
    falloff: String,
    angle_degrees: Option<f64>,
    width: Option<f64>,
}

#[derive(Debug)]
struct AreaOfEffect {
    shape: Shape,
    radius: f64,
    falloff: Falloff,
    /// Cone: cosine of half the opening angle.
    cos_half: f64,
    /// Line: half the width.
    half_width: f64,
}

pub(super) fn area_of_effect(p: &mut Params<'_, '_>) -> Result<Box<dyn Node>, ContentError> {
    let ap: AreaParams = params_of(p)?;
    let shape = match one_of(
        &ap.shape,
        "shape",
        &["sphere", "cone", "cylinder", "line"],
        p,
    )? {
        "sphere" => Shape::Sphere,
        "cone" => Shape::Cone,
        "cylinder" => Shape::Cylinder,
        _ => Shape::Line,
    };
    non_negative(ap.radius, "radius", p, false)?;
    one_of(&ap.unit, "unit", &["meters"], p)?;
    let falloff = match one_of(&ap.falloff, "falloff", &["none", "linear", "quadratic"], p)? {
        "none" => Falloff::None,
        "linear" => Falloff::Linear,
        _ => Falloff::Quadratic,
    };
    let angle = ap.angle_degrees.unwrap_or(90.0);
    if !(angle > 0.0 && angle <= 360.0) {
        return Err(p.error(
            "angle_degrees",
            format!("`angle_degrees` must be more than 0 and at most 360, found {angle}"),
        ));
    }
    let width = ap.width.unwrap_or(1.0);
    non_negative(width, "width", p, false)?;
    Ok(Box::new(AreaOfEffect {
        shape,
        radius: ap.radius,
        falloff,
        cos_half: (angle.to_radians() / 2.0).cos(),
        half_width: width / 2.0,
    }))
}

impl AreaOfEffect {
    /// Whether a point is inside, and its distance for the falloff.
    fn measure(&self, origin: Coords, apex: Coords, dir: Coords, at: Coords) -> Option<f64> {
        match self.shape {
            Shape::Sphere => Some(origin.distance(at)).filter(|d| *d <= self.radius),
            Shape::Cylinder => Some(origin.distance_xy(at)).filter(|d| *d <= self.radius),
            Shape::Cone => {
                let v = at - apex;
                let d = v.length();
                if d > self.radius {
                    return None;
                }
                if d < 1e-12 {
                    return Some(0.0);
                }
                (v.dot(dir) / d >= self.cos_half - 1e-12).then_some(d)
            }
            Shape::Line => {
                let v = at - apex;
                let along = v.dot(dir);
                if !(0.0..=self.radius).contains(&along) {
                    return None;
                }
                let off = (v - dir * along).length();
                (off <= self.half_width).then_some(along)
            }
        }
    }
}

impl Node for AreaOfEffect {
    fn run(&self, ax: &mut ActCx<'_>, p: &mut Pipeline) -> Result<(), RuleError> {
        let me = caster(ax, p);
        let caster_at = me.and_then(|c| ax.world.coords(c));
        let Some(origin) = p.point.or(caster_at) else {
            return Err(RuleError::Failed(
                "the area has nowhere to be: the caster has no position (`x`, `y`) and nothing positioned was aimed at".into(),
            ));
        };
        let (apex, dir) = match self.shape {
            Shape::Sphere | Shape::Cylinder => (origin, Coords::default()),
            Shape::Cone | Shape::Line => {
                let apex = caster_at.ok_or_else(|| {
                    RuleError::Failed(
                        "a cone or line starts at the caster, who has no position (`x`, `y`)"
                            .into(),
                    )
                })?;
                let dir = (origin - apex).unit().ok_or_else(|| {
                    RuleError::Failed(
                        "a cone or line needs a target or point away from the caster to aim at"
                            .into(),
                    )
                })?;
                (apex, dir)
            }
        };
        let zone = me.and_then(|c| ax.world.object(c).ok()).map(|o| o.zone);
        let mut targets: Vec<ObjId> = Vec::new();
        let mut scale = Vec::new();
        for (id, o) in ax.world.objects() {
            if Some(id) == me || zone.is_some_and(|z| o.zone != z) {
                continue;
            }
            let Some(at) = o.coords() else { continue };
            if let Some(d) = self.measure(origin, apex, dir, at) {
                targets.push(id);
                scale.push(self.falloff.factor(d, self.radius));
            }
        }
        if let Some(n) = p.node {
            p.set_value(n, targets.len() as f64);
        }
        p.targets = targets;
        p.scale = scale;
        p.area = Some(Area {
            shape: self.shape,
            origin,
            radius: self.radius,
            falloff: self.falloff,
        });
        Ok(())
    }
}

/// The parameters of a `meta` node.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct MetaParams {
    pub cooldown_seconds: f64,
    pub mana_cost: f64,
    pub cast_time_seconds: f64,
    pub tags: Vec<String>,
}

impl MetaParams {
    /// Reads a `meta` node's table.
    pub(crate) fn from_map(m: &Map<String, Json>, path: &[PathSeg]) -> Result<Self, ContentError> {
        super::from_map(m, path)
    }
}

#[derive(Debug)]
struct Meta {
    cooldown: u64,
    mana: f64,
    tags: Vec<Sym>,
}

pub(super) fn meta(p: &mut Params<'_, '_>) -> Result<Box<dyn Node>, ContentError> {
    let mp: MetaParams = params_of(p)?;
    non_negative(mp.cooldown_seconds, "cooldown_seconds", p, true)?;
    non_negative(mp.mana_cost, "mana_cost", p, true)?;
    non_negative(mp.cast_time_seconds, "cast_time_seconds", p, true)?;
    Ok(Box::new(Meta {
        cooldown: ticks(mp.cooldown_seconds),
        mana: mp.mana_cost,
        tags: mp.tags.iter().map(|t| Sym::new(t)).collect(),
    }))
}

impl Node for Meta {
    /// Pays the mana cost, starts the cooldown and adds the tags. Running out of mana
    /// here fails the command (casts check first, so this only happens when a node
    /// before it spent the mana).
    fn run(&self, ax: &mut ActCx<'_>, p: &mut Pipeline) -> Result<(), RuleError> {
        let Some(c) = caster(ax, p) else {
            return Err(RuleError::Failed("`meta` needs a caster".into()));
        };
        if self.mana > 0.0 {
            let key = mana_key();
            let have = ax.world.get_number(c, key).unwrap_or(0.0);
            if have + 1e-9 < self.mana {
                return Err(RuleError::Failed(format!(
                    "not enough mana: {have} of {} needed",
                    self.mana
                )));
            }
            let base = ax.world.base(c, key).and_then(Value::as_f64).unwrap_or(0.0);
            let left = base - self.mana;
            let v = if left.fract() == 0.0 && left.abs() < 9.0e15 {
                Value::Int(left as i64)
            } else {
                Value::Float(left)
            };
            ax.world.set(c, key, v)?;
        }
        if self.cooldown > 0 {
            if let Some(ability) = p.ability {
                let key = cooldown_key(ability);
                let ready = ax.world.tick().saturating_add(self.cooldown);
                let current = ax.world.get_int(c, key);
                let ready = i64::try_from(ready).unwrap_or(i64::MAX).max(current);
                ax.world.set(c, key, Value::Int(ready))?;
            }
        }
        for t in &self.tags {
            if !p.tags.contains(t) {
                p.tags.push(*t);
            }
        }
        Ok(())
    }
}
