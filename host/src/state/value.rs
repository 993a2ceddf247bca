//! Property values and object ids.

use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

/// A generational object id: the slot index plus the generation of the slot, so an id
/// kept after its object was removed never names the object that reused the slot.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct ObjId {
    /// Slot index.
    pub index: u32,
    /// Slot generation.
    pub generation: u32,
}

impl fmt::Debug for ObjId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.index)?;
        if self.generation > 0 {
            write!(f, "g{}", self.generation)?;
        }
        Ok(())
    }
}

impl fmt::Display for ObjId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

/// A base property value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum Value {
    /// A whole number.
    Int(i64),
    /// A real number (canonicalized: never NaN).
    Float(f64),
    /// A flag.
    Bool(bool),
    /// Text (translation keys, names).
    Text(Arc<str>),
    /// A reference to another object.
    Obj(ObjId),
    /// A list of values.
    List(Arc<[Value]>),
}

impl Value {
    /// The value as a number, if it is one (bools count as 0/1).
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Int(i) => Some(*i as f64),
            Value::Float(f) => Some(*f),
            Value::Bool(b) => Some(f64::from(u8::from(*b))),
            _ => None,
        }
    }

    /// The value as an object reference, if it is one.
    pub fn as_obj(&self) -> Option<ObjId> {
        match self {
            Value::Obj(o) => Some(*o),
            _ => None,
        }
    }

    /// A float value with NaN canonicalized to 0 (determinism: NaN never enters the world).
    pub fn float(f: f64) -> Value {
        Value::Float(if f.is_nan() { 0.0 } else { f })
    }

    /// A short name of the value's type, for error messages.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Int(_) => "integer",
            Value::Float(_) => "number",
            Value::Bool(_) => "bool",
            Value::Text(_) => "text",
            Value::Obj(_) => "object",
            Value::List(_) => "list",
        }
    }

    /// Converts a content value (from TOML or JSON) into a property value.
    pub fn from_json(v: &serde_json::Value) -> Option<Value> {
        Some(match v {
            serde_json::Value::Bool(b) => Value::Bool(*b),
            serde_json::Value::Number(n) => match n.as_i64() {
                Some(i) => Value::Int(i),
                None => Value::float(n.as_f64()?),
            },
            serde_json::Value::String(s) => Value::Text(s.as_str().into()),
            serde_json::Value::Array(a) => Value::List(
                a.iter()
                    .map(Value::from_json)
                    .collect::<Option<Vec<_>>>()?
                    .into(),
            ),
            serde_json::Value::Null | serde_json::Value::Object(_) => return None,
        })
    }

    /// Feeds a canonical byte form into a checksum.
    pub(crate) fn hash_into(&self, h: &mut super::Fnv) {
        match self {
            Value::Int(i) => {
                h.byte(1);
                h.bytes(&i.to_le_bytes());
            }
            Value::Float(f) => {
                // Canonical rounding: to a millionth, so the last bits of a decimal
                // computed in another order (or on another machine) never split two
                // worlds that agree to every shown digit; -0 and 0 hash alike.
                h.byte(2);
                let canonical = (f * 1e6).round() as i64;
                h.bytes(&canonical.to_le_bytes());
            }
            Value::Bool(b) => h.bytes(&[3, u8::from(*b)]),
            Value::Text(t) => {
                h.byte(4);
                h.str(t);
            }
            Value::Obj(o) => {
                h.byte(5);
                h.bytes(&o.index.to_le_bytes());
                h.bytes(&o.generation.to_le_bytes());
            }
            Value::List(l) => {
                h.byte(6);
                h.bytes(&(l.len() as u64).to_le_bytes());
                for v in l.iter() {
                    v.hash_into(h);
                }
            }
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Int(i) => write!(f, "{i}"),
            Value::Float(x) => write!(f, "{x}"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Text(t) => write!(f, "{t:?}"),
            Value::Obj(o) => write!(f, "{o}"),
            Value::List(l) => {
                f.write_str("[")?;
                for (i, v) in l.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{v}")?;
                }
                f.write_str("]")
            }
        }
    }
}
