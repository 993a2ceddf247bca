//! The Tessera guest SDK: write Tessera plugins (WebAssembly modules speaking ABI v1) as
//! plain Rust functions.
//!
//! ```ignore
//! use serde::Deserialize;
//! use tessera_plugin_api::prelude::*;
//!
//! /// Parameters of `is_beast`.
//! #[derive(Deserialize, Params)]
//! struct IsBeast {
//!     /// Also require at least this much attack.
//!     min_attack: Option<i64>,
//! }
//!
//! /// The object is tagged `beast` (with at least `min_attack` attack, if given).
//! #[condition("beasts:condition/is_beast")]
//! fn is_beast(_ctx: &Ctx, obj: Obj, p: &IsBeast) -> bool {
//!     obj.has_tag(sym!("beast")) && p.min_attack.is_none_or(|m| obj.get_int(sym!("attack")) >= m)
//! }
//!
//! export_plugin!(provides = [is_beast]);
//! ```
//!
//! Build it with `cargo build --release --target wasm32-unknown-unknown` (crate type
//! `cdylib`), or `tessera build`. The same source builds as a **trusted native extension**
//! (a shared library for the host, speaking the native ABI of `ABI.md`) with the `native`
//! feature: `cargo build --release --features tessera-plugin-api/native` (plus
//! `--config 'profile.release.panic="unwind"'` so that a panic is reported instead of
//! aborting the server), or `tessera build --native`.
//!
//! # Core concepts
//!
//! - **Definitions** are functions marked [`condition`], [`selector`], [`action`] or
//!   [`node`] with their full id (`namespace:category/name`; the category must match the
//!   attribute). Their doc comment is their `doc` in the description. The signatures:
//!   - condition: `fn(&Ctx, Obj, &P) -> bool` (or `Result<bool, E>`)
//!   - selector: `fn(&Ctx, &P) -> Vec<Obj>` (or `Option<Obj>`, `Obj`, `Result<_, E>`)
//!   - action: `fn(&Ctx, &[Obj], &P) -> Result<(), E>` (or `()`)
//!   - node: `fn(&Ctx, &P) -> Result<(), E>` (or `()`)
//!
//!   where `E: Display` becomes the error message, and the last argument (the
//!   [`Params`]) may be left out.
//! - **Parameters** are a struct deriving `serde::Deserialize` and [`Params`]. They are
//!   parsed once per use site in content, when the host prepares it; the definition then
//!   runs with a reference to them. Host handles — [`Selector`], [`ActionList`], [`Expr`] —
//!   and symbols ([`Sym`]) are parameter types too, prepared at that moment.
//! - **[`export_plugin!`]** generates the module's exports (`tessera_describe`,
//!   `tessera_prepare`, `tessera_condition`, ...) from the list of definitions, plus
//!   `tessera_save_state`/`tessera_load_state` when given functions for them.
//! - **Symbols**: the hot path passes integers. Intern names once: [`sym!`] caches in a
//!   `static`; a [`Sym`] parameter field is interned at prepare time.
//! - **Capabilities**: [`random`] and [`log`] import `random` and `log` only when a plugin
//!   calls them; the host refuses a module importing a capability its mod was not granted.
//! - **State**: wasm instances are single-threaded, so a plugin may keep state in a
//!   `thread_local!` (or `static` with atomics). An instance lives per world and is
//!   replaced after a fault, with fresh state; give `save_state`/`load_state` to carry
//!   state across hot reloads. Plugin state is not part of the world's transactions: a
//!   rolled-back command does not roll it back.
//! - **Panics** trap the call; the SDK records the panic message, which the host reports.
//!
//! The ABI itself is [`abi`] and `ABI.md`. On targets other than `wasm32`, without the
//! `native` feature, only [`abi`], [`Params`] and the macros exist (the host uses `abi`).
//!
//! # Crate features
//!
//! - `native`: build the plugin as a trusted native extension (native ABI v1) instead of
//!   a wasm module. The same source compiles; differences: the SDK's state and the
//!   plugin's statics are shared by every world of the process (there is one library, not
//!   an instance per world), definitions' parameter structs must be `Send + Sync` (calls
//!   may come from any thread), and calling [`random`] or [`log`] without the capability
//!   granted panics (the host cannot refuse the library at load for it).

// The macros name `::tessera_plugin_api`; this makes that path work inside the crate too.
extern crate self as tessera_plugin_api;

#[cfg(any(target_arch = "wasm32", feature = "native"))]
mod guest;
mod params;
#[cfg(any(target_arch = "wasm32", feature = "native"))]
mod rt;
#[cfg(all(target_arch = "wasm32", not(feature = "native")))]
#[expect(
    unsafe_code,
    reason = "the ABI's imports and guest memory; all unsafe is here"
)]
#[doc(hidden)]
pub mod sys;
#[cfg(feature = "native")]
#[expect(
    unsafe_code,
    reason = "the native ABI's host vtable and host-owned buffers; all unsafe is here"
)]
#[doc(hidden)]
#[path = "sys_native.rs"]
pub mod sys;

pub mod abi;
#[cfg(any(feature = "native", target_arch = "wasm32"))]
mod host_fns;

/// The plugin ABI version this SDK targets; exported by every plugin as `tessera_abi_v1`.
pub const ABI_VERSION: u32 = abi::VERSION;

#[cfg(any(target_arch = "wasm32", feature = "native"))]
pub use guest::{
    log, random, ActionList, Ctx, Expr, HostError, Level, Obj, Selector, Sym, SymCache,
};
pub use params::{ParamKind, Params};
pub use tessera_plugin_api_macros::{
    action, condition, export_plugin, loader, node, selector, Params,
};

/// Why a loader cannot read a file: what is wrong and where (a byte offset into the text,
/// which the host turns into file:line:col).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadError {
    /// What is wrong, and how to fix it.
    pub message: String,
    /// Where, as a byte offset into the text.
    pub offset: Option<usize>,
}

/// Reports, while a loader runs, where a part of the tree it returns came from: `path` is
/// the table keys from the root joined by `.` (`"class.wisp"`), `range` the bytes of the
/// text. Errors the host finds in that part then point at its line. Optional.
#[cfg(any(target_arch = "wasm32", feature = "native"))]
pub fn report_span(path: impl Into<String>, range: core::ops::Range<usize>) {
    rt::push_span(path.into(), range);
}

/// Reports, while a loader runs, something it read but could not translate (an
/// unsupported construct), at byte `offset` of the text when known. The host shows it as
/// a warning at file:line (`tessera check` lists it); the returned tree still loads.
#[cfg(any(target_arch = "wasm32", feature = "native"))]
pub fn report_warning(message: impl Into<String>, offset: Option<usize>) {
    rt::push_warning(message.into(), offset, None);
}

/// Reports, while a loader runs, an unsupported construct of its format (`construct`: a
/// short name such as `K:Flash`, the same for every file that uses it) with a message and
/// the byte `offset` when known: a warning at file:line like [`report_warning`], which
/// `tessera check --format json` also counts in a histogram of constructs.
#[cfg(any(target_arch = "wasm32", feature = "native"))]
pub fn report_unsupported(
    construct: impl Into<String>,
    message: impl Into<String>,
    offset: Option<usize>,
) {
    rt::push_warning(message.into(), offset, Some(construct.into()));
}

/// While a loader runs: the path of the file it reads, relative to its mod's folder
/// (`content/cards.deck`). `None` outside a loader.
#[cfg(any(target_arch = "wasm32", feature = "native"))]
pub fn load_path() -> Option<String> {
    sys::load_path()
}

/// While a loader runs: the bytes of another file of its mod — `path` relative to the
/// mod's folder, as [`load_path`] is — for formats where one file includes another. The
/// host reads only inside the mod's folder and the folders the operator granted it.
#[cfg(any(target_arch = "wasm32", feature = "native"))]
pub fn load_file(path: &str) -> Result<Vec<u8>, ReadError> {
    sys::load_read(path).map_err(|status| match status {
        -2 => ReadError::Outside,
        _ => ReadError::Unreadable,
    })
}

/// While a loader runs: the names of the files in folder `path` (relative to its mod's
/// folder, confined as [`load_file`] is), sorted — reading a folder gives its file
/// names, one per line.
#[cfg(any(target_arch = "wasm32", feature = "native"))]
pub fn load_dir(path: &str) -> Result<Vec<String>, ReadError> {
    let bytes = load_file(path)?;
    let text = String::from_utf8_lossy(&bytes);
    Ok(text
        .lines()
        .filter(|l| !l.is_empty())
        .map(str::to_owned)
        .collect())
}

/// Why [`load_file`] read nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ReadError {
    /// No such file, not readable, too large, or no loader is running.
    Unreadable,
    /// Outside the folders the mod may read.
    Outside,
}

impl core::fmt::Display for ReadError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            ReadError::Unreadable => "the file cannot be read",
            ReadError::Outside => {
                "the file is outside the folders this mod may read (its own, and those the server grants it)"
            }
        })
    }
}

impl LoadError {
    /// An error about the whole file.
    pub fn new(message: impl Into<String>) -> LoadError {
        LoadError {
            message: message.into(),
            offset: None,
        }
    }

    /// An error at a byte offset.
    pub fn at(offset: usize, message: impl Into<String>) -> LoadError {
        LoadError {
            message: message.into(),
            offset: Some(offset),
        }
    }
}

/// Everything a plugin usually needs: `use tessera_plugin_api::prelude::*;`.
pub mod prelude {
    #[cfg(any(target_arch = "wasm32", feature = "native"))]
    pub use crate::guest::{
        log, random, ActionList, Ctx, Expr, HostError, Level, Obj, Selector, Sym,
    };
    pub use crate::params::Params;
    #[cfg(any(target_arch = "wasm32", feature = "native"))]
    pub use crate::sym;
    #[cfg(any(target_arch = "wasm32", feature = "native"))]
    pub use crate::{
        load_dir, load_file, load_path, report_span, report_unsupported, report_warning,
    };
    pub use crate::{LoadError, ReadError};
    pub use tessera_plugin_api_macros::{
        action, condition, export_plugin, loader, node, selector, Params,
    };
}

/// What the SDK's macros expand to. Not a stable API.
#[doc(hidden)]
pub mod __rt {
    pub use crate::params::{field, init, parse};
    #[cfg(any(target_arch = "wasm32", feature = "native"))]
    pub use crate::rt::*;
    #[cfg(any(target_arch = "wasm32", feature = "native"))]
    pub use crate::sys;
}

/// Fallback of the ABI glue `export_plugin!` expands to, on targets the SDK cannot build a
/// plugin for.
#[cfg(not(any(target_arch = "wasm32", feature = "native")))]
#[doc(hidden)]
#[macro_export]
macro_rules! __tessera_export_abi {
    ($($t:tt)*) => {
        ::core::compile_error!("a Tessera plugin builds for `wasm32-unknown-unknown` (sandboxed), or for the host with the `native` feature of tessera-plugin-api (a trusted native extension)");
    };
}

/// Fallback of the state glue (see `__tessera_export_abi`).
#[cfg(not(any(target_arch = "wasm32", feature = "native")))]
#[doc(hidden)]
#[macro_export]
macro_rules! __tessera_export_state {
    ($($t:tt)*) => {};
}
