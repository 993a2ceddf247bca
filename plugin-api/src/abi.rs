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
    /// `(id_ptr, id_len, text_ptr, text_len) -> packed` (optional: plugins with loaders):
    /// the content tree of a file, as a JSON [`LoadReply`](super::LoadReply).
    pub const LOAD: &str = "tessera_load";
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
    /// A content loader: turns files of its extensions into the content tree (never
    /// prepared; called through `tessera_load` while mods load).
    Loader,
}

impl Kind {
    /// The `kind` argument of `tessera_prepare`.
    pub fn code(self) -> i32 {
        match self {
            Kind::Condition => 1,
            Kind::Selector => 2,
            Kind::Action => 3,
            Kind::Node => 4,
            Kind::Loader => 5,
        }
    }

    /// The kind for a `tessera_prepare` code.
    pub fn from_code(code: i32) -> Option<Kind> {
        Some(match code {
            1 => Kind::Condition,
            2 => Kind::Selector,
            3 => Kind::Action,
            4 => Kind::Node,
            5 => Kind::Loader,
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
            Kind::Loader => "loader",
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

/// The native ABI v1: the same registrations as the wasm ABI, as `extern "C"` symbols of
/// a shared library (a trusted native extension), with real pointers and lengths instead
/// of wasm offsets. `ABI.md` ("Native extensions") is the prose.
///
/// The library exports [`native::MARKER`], [`native::INIT`] and the entry points in
/// [`native::exports`]; the host passes a [`native::HostVtable`] of its functions to
/// `tessera_native_v1_init` once, right after loading.
pub mod native {
    /// The native ABI version this module describes.
    pub const VERSION: u32 = 1;

    /// The symbol whose presence marks a native ABI v1 library: `extern "C" fn()`.
    pub const MARKER: &str = "tessera_native_abi_v1";

    /// `extern "C" fn(host: *const HostVtable) -> i32`: called once after loading (and
    /// again, harmlessly, if the same library is loaded again); 0 on success.
    pub const INIT: &str = "tessera_native_v1_init";

    /// A status meaning "the plugin panicked" (a fault: counted toward quarantine), in
    /// addition to the wasm ABI's `-1` ("failed, see `tessera_error`").
    pub const PANICKED: i32 = -2;

    /// Entry point names (the same names as the wasm exports, native signatures).
    pub mod exports {
        /// `(ptr: *mut u8, len: usize) -> ()`: frees a [`Bytes`](super::Bytes) result.
        pub const DEALLOC: &str = "tessera_dealloc";
        /// `() -> Bytes`
        pub const DESCRIBE: &str = "tessera_describe";
        /// `(kind: i32, id: *const u8, id_len: usize, params: *const u8, params_len: usize) -> i32`
        pub const PREPARE: &str = "tessera_prepare";
        /// `() -> Bytes`
        pub const ERROR: &str = "tessera_error";
        /// `(handle: i32, obj: i64) -> i32`
        pub const CONDITION: &str = "tessera_condition";
        /// `(handle: i32, objs: *const i64, n: usize, out: *mut u8) -> i32`
        pub const CONDITION_BATCH: &str = "tessera_condition_batch";
        /// `(handle: i32) -> i32`
        pub const SELECT: &str = "tessera_select";
        /// `(handle: i32, targets: *const i64, n: usize) -> i32`
        pub const ACTION: &str = "tessera_action";
        /// `(handle: i32) -> i32`
        pub const NODE: &str = "tessera_node";
        /// `() -> Bytes` (optional)
        pub const SAVE_STATE: &str = "tessera_save_state";
        /// `(ptr: *const u8, len: usize) -> i32` (optional)
        pub const LOAD_STATE: &str = "tessera_load_state";
    }

    /// A byte block the library returns (description, error, saved state); the host
    /// copies it, then gives it back with `tessera_dealloc(ptr, len)`. A null `ptr` means
    /// "none".
    #[repr(C)]
    #[derive(Debug, Clone, Copy)]
    pub struct Bytes {
        /// The first byte (null: none).
        pub ptr: *mut u8,
        /// How many bytes.
        pub len: usize,
    }

    impl Bytes {
        /// "None".
        pub const NONE: Bytes = Bytes {
            ptr: core::ptr::null_mut(),
            len: 0,
        };
    }

    /// The host's functions, passed to `tessera_native_v1_init`: one field per wasm
    /// import of module `tessera`, with the same name, semantics and integer types, but
    /// real pointers and `usize` lengths. Every function may only be called during a host
    /// call into the library, on the calling thread. The capability functions are null
    /// unless the mod asks for the capability and `server.toml` grants it.
    #[repr(C)]
    #[derive(Debug, Clone, Copy)]
    pub struct HostVtable {
        /// `size_of::<HostVtable>()`, for forward compatibility.
        pub size: usize,
        /// [`VERSION`].
        pub version: u32,
        /// `intern(ptr, len) -> sym`.
        pub intern: unsafe extern "C" fn(*const u8, usize) -> i32,
        /// `ctx(which) -> obj`.
        pub ctx: extern "C" fn(i32) -> i64,
        /// `event_amount() -> i64`.
        pub event_amount: extern "C" fn() -> i64,
        /// `exists(obj) -> i32`.
        pub exists: extern "C" fn(i64) -> i32,
        /// `get_int(obj, key) -> i64`.
        pub get_int: extern "C" fn(i64, i32) -> i64,
        /// `get_float(obj, key) -> f64`.
        pub get_float: extern "C" fn(i64, i32) -> f64,
        /// `has_prop(obj, key) -> i32`.
        pub has_prop: extern "C" fn(i64, i32) -> i32,
        /// `has_tag(obj, tag) -> i32`.
        pub has_tag: extern "C" fn(i64, i32) -> i32,
        /// `zone(obj) -> sym`.
        pub zone: extern "C" fn(i64) -> i32,
        /// `class(obj) -> sym`.
        pub class: extern "C" fn(i64) -> i32,
        /// `owner(obj) -> obj`.
        pub owner: extern "C" fn(i64) -> i64,
        /// `parent(obj) -> obj`.
        pub parent: extern "C" fn(i64) -> i64,
        /// `query(selector, out, cap) -> i32`: writes up to `cap` ids at `out`.
        pub query: unsafe extern "C" fn(i32, *mut i64, usize) -> i32,
        /// `eval(expr) -> f64`.
        pub eval: extern "C" fn(i32) -> f64,
        /// `push(obj)`.
        pub push: extern "C" fn(i64),
        /// `pipeline_get(key) -> f64`.
        pub pipeline_get: extern "C" fn(i32) -> f64,
        /// `pipeline_set(key, value)`.
        pub pipeline_set: extern "C" fn(i32, f64),
        /// `set_int(obj, key, value) -> status`.
        pub set_int: extern "C" fn(i64, i32, i64) -> i32,
        /// `add_int(obj, key, delta) -> i64`.
        pub add_int: extern "C" fn(i64, i32, i64) -> i64,
        /// `add_tag(obj, tag) -> status`.
        pub add_tag: extern "C" fn(i64, i32) -> i32,
        /// `remove_tag(obj, tag) -> status`.
        pub remove_tag: extern "C" fn(i64, i32) -> i32,
        /// `run_action(action, targets, n) -> status`.
        pub run_action: unsafe extern "C" fn(i32, *const i64, usize) -> i32,
        /// `emit(event, target, amount) -> status`.
        pub emit: extern "C" fn(i32, i64, i64) -> i32,
        /// `prepare_selector(json, len) -> handle`.
        pub prepare_selector: unsafe extern "C" fn(*const u8, usize) -> i32,
        /// `prepare_action(json, len) -> handle`.
        pub prepare_action: unsafe extern "C" fn(*const u8, usize) -> i32,
        /// `prepare_expr(json, len) -> handle`.
        pub prepare_expr: unsafe extern "C" fn(*const u8, usize) -> i32,
        /// Capability `random`: `random(lo, hi) -> i64`; null unless granted.
        pub random: Option<extern "C" fn(i64, i64) -> i64>,
        /// Capability `log`: `log(level, ptr, len)`; null unless granted.
        pub log: Option<unsafe extern "C" fn(i32, *const u8, usize)>,
        /// `set_float(obj, key, value) -> status` (added after the first release of
        /// version 1: appended, so `size` tells whether a host has it).
        pub set_float: extern "C" fn(i64, i32, f64) -> i32,
    }
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
    /// For a loader: the file extensions it reads (without the dot).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extensions: Vec<String>,
}

/// What `tessera_load` returns: the content tree, or why the text is not valid.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoadReply {
    /// The content tree (the shape of a TOML/JSON content file), when the text is valid.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tree: Option<serde_json::Value>,
    /// Why the text is not valid.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Where, as a byte offset into the text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<u64>,
    /// Where parts of the tree came from in the text (optional), so the host's errors about
    /// them point at the right line: dotted paths (`class.wisp`) with byte ranges. The host
    /// locates an error at its closest listed ancestor.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub spans: Vec<SourceSpan>,
    /// What the loader read but could not translate, each with where (optional): the host
    /// reports them as warnings at file:line (`tessera check` lists them), and the tree
    /// still loads.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<LoadWarning>,
}

/// A warning from a loader: what it could not translate, and where.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoadWarning {
    /// What is unsupported or doubtful, and what it means for the content.
    pub message: String,
    /// Where, as a byte offset into the text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<u64>,
    /// The construct of the format it is about, when it is an unsupported one (`K:Flash`,
    /// `S:Mode$ CantAttack`): `tessera check --format json` counts them in a histogram.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub construct: Option<String>,
}

/// Where a part of a loaded tree came from: a dotted path of table keys and a byte range.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceSpan {
    /// Table keys from the root, joined by `.` (`class.wisp`).
    pub path: String,
    /// First byte.
    pub start: u64,
    /// One past the last byte.
    pub end: u64,
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
        for k in [
            Kind::Condition,
            Kind::Selector,
            Kind::Action,
            Kind::Node,
            Kind::Loader,
        ] {
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
