//! The shared context nodes run over: who casts, at what, which objects are affected
//! (and how strongly), the values earlier nodes produced, and what was done.

use crate::id::{Id, Sym};
use crate::state::{Coords, ObjId};

/// The shape of an area of effect (`area_of_effect.shape`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Shape {
    /// Every object within `radius` (3D) of the origin.
    Sphere,
    /// Every object within `radius` of the origin measured flat (x, y); height ignored.
    Cylinder,
    /// From the caster toward the origin: within `radius` of the caster and within half
    /// of `angle_degrees` (default 90) of that direction.
    Cone,
    /// From the caster toward the origin: within `radius` along that direction and
    /// within half of `width` (default 1 m) of the line.
    Line,
}

/// How damage drops with distance (`area_of_effect.falloff`): with `t` = distance ÷
/// radius, `none` keeps 1, `linear` gives `1 - t`, `quadratic` gives `(1 - t)²`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Falloff {
    /// Full damage everywhere in the area.
    None,
    /// `1 - t`.
    Linear,
    /// `(1 - t)²`.
    Quadratic,
}

impl Falloff {
    /// The damage factor at `distance` from the origin of an area of `radius`.
    pub fn factor(self, distance: f64, radius: f64) -> f64 {
        let t = if radius > 0.0 {
            (distance / radius).clamp(0.0, 1.0)
        } else {
            0.0
        };
        match self {
            Falloff::None => 1.0,
            Falloff::Linear => 1.0 - t,
            Falloff::Quadratic => (1.0 - t) * (1.0 - t),
        }
    }
}

/// The area an `area_of_effect` node shaped.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Area {
    /// Its shape.
    pub shape: Shape,
    /// Where it is centred (sphere, cylinder) or aimed (cone, line).
    pub origin: Coords,
    /// Its size, meters.
    pub radius: f64,
    /// How damage drops off.
    pub falloff: Falloff,
}

/// One amount of damage a pipeline dealt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hit {
    /// Who took it.
    pub target: ObjId,
    /// Its damage type (`fire`, `physical`, ...).
    pub damage_type: Sym,
    /// How much (after falloff, multipliers, resistance and rounding).
    pub amount: i64,
}

/// The shared context of an ability pipeline: what the cast is, the objects affected,
/// values produced by earlier nodes, and what the nodes did.
///
/// Nodes run top to bottom over one `Pipeline`; each may read what earlier ones left.
/// The engine starts it with the caster, the aimed target or point, the primary target
/// as the only affected object, and the value `damage_multiplier` = 1.
#[derive(Debug, Clone, Default)]
pub struct Pipeline {
    /// Named numbers produced so far, in order (the latest value of a key wins).
    pub values: Vec<(Sym, f64)>,
    /// The objects the pipeline affects (an `area_of_effect` node replaces them).
    pub targets: Vec<ObjId>,
    /// How strongly each target is affected (parallel to `targets`; missing = 1).
    pub scale: Vec<f64>,
    /// The ability being cast.
    pub ability: Option<Id>,
    /// Who casts it.
    pub caster: Option<ObjId>,
    /// The object it was aimed at.
    pub target: Option<ObjId>,
    /// The point it lands at (the aimed point, or the aimed object's position).
    pub point: Option<Coords>,
    /// The area shaped so far.
    pub area: Option<Area>,
    /// Tags of the ability (from `meta`).
    pub tags: Vec<Sym>,
    /// The id of the node running now (its results are stored under it).
    pub node: Option<Sym>,
    /// Damage dealt so far.
    pub hits: Vec<Hit>,
    /// Conditions that landed: (target, effect).
    pub conditions: Vec<(ObjId, Sym)>,
}

impl Pipeline {
    /// A value produced by an earlier node.
    pub fn value(&self, key: Sym) -> Option<f64> {
        self.values
            .iter()
            .rev()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| *v)
    }

    /// Produces a value (NaN is stored as 0, as for plugins).
    pub fn set_value(&mut self, key: Sym, v: f64) {
        self.values.push((key, if v.is_nan() { 0.0 } else { v }));
    }

    /// How strongly target number `i` is affected.
    pub fn scale_of(&self, i: usize) -> f64 {
        self.scale.get(i).copied().unwrap_or(1.0)
    }

    /// The total damage dealt to one object.
    pub fn damage_to(&self, target: ObjId) -> i64 {
        self.hits
            .iter()
            .filter(|h| h.target == target)
            .map(|h| h.amount)
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn falloff_curves() {
        assert_eq!(Falloff::Linear.factor(0.0, 5.0), 1.0);
        assert_eq!(Falloff::Linear.factor(2.5, 5.0), 0.5);
        assert_eq!(Falloff::Linear.factor(5.0, 5.0), 0.0);
        assert_eq!(Falloff::Quadratic.factor(2.5, 5.0), 0.25);
        assert_eq!(Falloff::None.factor(4.9, 5.0), 1.0);
    }
}
