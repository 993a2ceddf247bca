//! Positions: where an object is in space, for ranges and areas of effect.
//!
//! Coordinates are **3D, in meters**, stored as three ordinary base properties of the
//! object: `x`, `y` and `z` (floats or ints). An object is *positioned* when it has `x`
//! or `y`; a missing axis counts as 0, so 2D games simply leave `z` out. Keeping them as
//! properties means positions are part of snapshots, rollback, checksums and saves with
//! no extra state, and content can set them like any property
//! (`properties = { x = 2.5, y = 0 }`). Positions are read from **base** values: auras
//! do not move objects.

use super::{ObjId, Object, StateError, Value, World};
use crate::id::Sym;

/// A point in the world, in meters.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Coords {
    /// East-west.
    pub x: f64,
    /// North-south.
    pub y: f64,
    /// Up-down.
    pub z: f64,
}

impl Coords {
    /// A point.
    pub const fn new(x: f64, y: f64, z: f64) -> Coords {
        Coords { x, y, z }
    }

    /// Straight-line (3D) distance.
    pub fn distance(self, other: Coords) -> f64 {
        (self - other).length()
    }

    /// Distance ignoring height (`z`).
    pub fn distance_xy(self, other: Coords) -> f64 {
        (self.x - other.x).hypot(self.y - other.y)
    }

    /// Length of the vector.
    pub fn length(self) -> f64 {
        self.dot(self).sqrt()
    }

    /// Dot product.
    pub fn dot(self, o: Coords) -> f64 {
        self.x * o.x + self.y * o.y + self.z * o.z
    }

    /// The vector scaled to length 1 (`None` for a zero vector).
    pub fn unit(self) -> Option<Coords> {
        let l = self.length();
        (l > 1e-12).then(|| self * (1.0 / l))
    }
}

impl std::ops::Sub for Coords {
    type Output = Coords;
    fn sub(self, o: Coords) -> Coords {
        Coords::new(self.x - o.x, self.y - o.y, self.z - o.z)
    }
}

impl std::ops::Add for Coords {
    type Output = Coords;
    fn add(self, o: Coords) -> Coords {
        Coords::new(self.x + o.x, self.y + o.y, self.z + o.z)
    }
}

impl std::ops::Mul<f64> for Coords {
    type Output = Coords;
    fn mul(self, k: f64) -> Coords {
        Coords::new(self.x * k, self.y * k, self.z * k)
    }
}

/// The property keys holding a position: `x`, `y`, `z`.
fn coord_keys() -> [Sym; 3] {
    static KEYS: std::sync::OnceLock<[Sym; 3]> = std::sync::OnceLock::new();
    *KEYS.get_or_init(|| [Sym::new("x"), Sym::new("y"), Sym::new("z")])
}

impl Object {
    /// Where the object is, if it is positioned (has `x` or `y`).
    pub fn coords(&self) -> Option<Coords> {
        let [kx, ky, kz] = coord_keys();
        let x = self.props.get(&kx).and_then(Value::as_f64);
        let y = self.props.get(&ky).and_then(Value::as_f64);
        if x.is_none() && y.is_none() {
            return None;
        }
        let z = self.props.get(&kz).and_then(Value::as_f64);
        Some(Coords::new(
            x.unwrap_or(0.0),
            y.unwrap_or(0.0),
            z.unwrap_or(0.0),
        ))
    }
}

impl World {
    /// Where an object is, if it is positioned (has `x` or `y`); `None` for a missing
    /// object or one without a position.
    pub fn coords(&self, id: ObjId) -> Option<Coords> {
        self.object(id).ok()?.coords()
    }

    /// Moves an object to a point (sets its `x`, `y` and `z`).
    pub fn set_coords(&mut self, id: ObjId, at: Coords) -> Result<(), StateError> {
        let [kx, ky, kz] = coord_keys();
        for (k, v) in [(kx, at.x), (ky, at.y), (kz, at.z)] {
            let v = if v.is_nan() { 0.0 } else { v };
            self.set(id, k, Value::Float(v))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::id::Id;

    #[test]
    fn positions_are_properties_with_z_optional() {
        let mut w = World::new(1);
        let class = Id::parse("t:class/x").unwrap();
        let a = w.create(class, None, Sym::new("board"));
        assert_eq!(w.coords(a), None);
        w.set(a, Sym::new("x"), Value::Int(3)).unwrap();
        w.set(a, Sym::new("y"), Value::Float(4.0)).unwrap();
        let at = w.coords(a).unwrap();
        assert_eq!(at, Coords::new(3.0, 4.0, 0.0));
        assert_eq!(at.distance(Coords::default()), 5.0);
        w.set_coords(a, Coords::new(1.0, 2.0, 3.0)).unwrap();
        assert_eq!(w.coords(a), Some(Coords::new(1.0, 2.0, 3.0)));
    }
}
