//! The ABI v1 contract shared by the host and guests: names, kind codes, object-id
//! packing, and the description format. No I/O and no wasm-specific code, so the host
//! (native) and plugins (wasm32) compile the same definitions. `ABI.md` is the prose.

use serde::{Deserialize, Serialize};

/// The ABI version this module describes.
pub const VERSION: u32 = 1;

/// The export whose presence marks an ABI v1 module.
pub const MARKER: &str = "tessera_abi_v1";

/// Module name of every host import.
pub const IMPORT_MODULE: &str = "tessera";

/// Export names, in one place.
pub mod exports {
    /// `(size: i32) -> i32`
    pub const ALLOC: &str = "tessera_alloc";
    /// `(ptr: i32, size: i32) -> ()`
    pub const DEALLOC: &str = "tessera_dealloc";
    /// `() -> packed`
    pub const DESCRIBE: &str = "tessera_describe";
    /// `(kind, id_ptr, id_len, params_ptr, params_len) -> handle`
    pub const PREPARE: &str = "tessera_prepare";
    /// `() -> packed`
    pub const ERROR: &str = "tessera_error";
    /// `(handle: i32, obj: i64) -> i32`
    pub const CONDITION: &str = "tessera_condition";
    /// `(handle: i32, objs_ptr: i32, n: i32, out_ptr: i32) -> i32`
    pub const CONDITION_BATCH: &str = "tessera_condition_batch";
    /// `(handle: i32) -> i32`
    pub const SELECT: &str = "tessera_select";
    /// `(handle: i32, targets_ptr: i32, n: i32) -> i32`
    pub const ACTION: &str = "tessera_action";
    /// `(handle: i32) -> i32`
    pub const NODE: &str = "tessera_node";
    /// `() -> packed` (optional)
    pub const SAVE_STATE: &str = "tessera_save_state";
    /// `(ptr: i32, len: i32) -> i32` (optional)
    pub const LOAD_STATE: &str = "tessera_load_state";
}

/// What a registry entry provided by a plugin is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// A predicate over (context, object).
    Condition,
    /// Produces an ordered set of objects.
    Selector,
    /// Changes the world.
    Action,
    /// A step of an ability pipeline.
    Node,
}

impl Kind {
    /// The `kind` argument of `tessera_prepare`.
    pub fn code(self) -> i32 {
        match self {
            Kind::Condition => 1,
            Kind::Selector => 2,
            Kind::Action => 3,
            Kind::Node => 4,
        }
    }

    /// The kind for a `tessera_prepare` code.
    pub fn from_code(code: i32) -> Option<Kind> {
        Some(match code {
            1 => Kind::Condition,
            2 => Kind::Selector,
            3 => Kind::Action,
            4 => Kind::Node,
            _ => return None,
        })
    }

    /// The id category of this kind (`condition`, ...).
    pub fn category(self) -> &'static str {
        match self {
            Kind::Condition => "condition",
            Kind::Selector => "selector",
            Kind::Action => "action",
            Kind::Node => "node",
        }
    }
}

/// Which object `ctx(which)` returns.
pub mod ctx {
    /// The holder of the trigger or aura.
    pub const SELF: i32 = 0;
    /// The event's source.
    pub const SOURCE: i32 = 1;
    /// The event's target (or the object under test).
    pub const TARGET: i32 = 2;
    /// The event's player.
    pub const PLAYER: i32 = 3;
}

/// "No object".
pub const NO_OBJECT: i64 = -1;

/// Packs an object id (slot index and generation) into the ABI's `i64`.
pub fn pack_obj(index: u32, generation: u32) -> i64 {
    ((u64::from(generation) << 32) | u64::from(index)) as i64
}

/// Unpacks an ABI object id into (index, generation); `None` for negative ids.
pub fn unpack_obj(obj: i64) -> Option<(u32, u32)> {
    if obj < 0 {
        return None;
    }
    let v = obj as u64;
    Some(((v & 0xffff_ffff) as u32, (v >> 32) as u32))
}

/// Packs a guest byte range into the ABI's `i64`.
pub fn pack_range(ptr: u32, len: u32) -> i64 {
    ((u64::from(ptr) << 32) | u64::from(len)) as i64
}

/// Unpacks a guest byte range: (ptr, len); `None` for 0 ("none").
pub fn unpack_range(packed: i64) -> Option<(u32, u32)> {
    if packed == 0 {
        return None;
    }
    let v = packed as u64;
    Some(((v >> 32) as u32, (v & 0xffff_ffff) as u32))
}

/// A parameter's type in a description.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ParamType {
    /// Any number.
    Number,
    /// A whole number.
    Integer,
    /// Text.
    Text,
    /// A bool.
    Bool,
    /// A list.
    List,
    /// A table.
    Table,
    /// Anything.
    Any,
}

/// One parameter in a description.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ParamDesc {
    /// The key in content.
    pub name: String,
    /// Its type.
    #[serde(rename = "type")]
    pub ty: ParamType,
    /// Whether content must give it.
    #[serde(default)]
    pub required: bool,
    /// What it means.
    #[serde(default)]
    pub doc: String,
}

/// One registry entry a plugin provides.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Provided {
    /// What it is.
    pub kind: Kind,
    /// Its full id (`namespace:category/name`).
    pub id: String,
    /// What it does.
    #[serde(default)]
    pub doc: String,
    /// Its parameters.
    #[serde(default)]
    pub params: Vec<ParamDesc>,
}

/// What `tessera_describe` returns.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Description {
    /// The ABI version (1).
    pub abi: u32,
    /// The plugin's name.
    #[serde(default)]
    pub name: String,
    /// What it provides.
    pub provides: Vec<Provided>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packing_round_trips() {
        let o = pack_obj(7, 3);
        assert_eq!(unpack_obj(o), Some((7, 3)));
        assert_eq!(unpack_obj(NO_OBJECT), None);
        assert_eq!(unpack_range(pack_range(1024, 17)), Some((1024, 17)));
        assert_eq!(unpack_range(0), None);
        for k in [Kind::Condition, Kind::Selector, Kind::Action, Kind::Node] {
            assert_eq!(Kind::from_code(k.code()), Some(k));
        }
    }

    #[test]
    fn descriptions_parse_from_json() {
        let d: Description = serde_json::from_str(
            r#"{"abi":1,"name":"b","provides":[{"kind":"condition","id":"b:condition/x","params":[{"name":"n","type":"number","required":true}]}]}"#,
        )
        .unwrap();
        assert_eq!(d.provides[0].kind, Kind::Condition);
        assert_eq!(d.provides[0].params[0].ty, ParamType::Number);
    }
}
