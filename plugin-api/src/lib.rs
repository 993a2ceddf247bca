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
//! `cdylib`), or `tessera build`.
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
//! The ABI itself is [`abi`] and `ABI.md`. On targets other than `wasm32` only [`abi`],
//! [`Params`] and the macros exist (the host uses `abi`).
//!
//! # Crate features
//!
//! None.

// The macros name `::tessera_plugin_api`; this makes that path work inside the crate too.
extern crate self as tessera_plugin_api;

#[cfg(target_arch = "wasm32")]
mod guest;
mod params;
#[cfg(target_arch = "wasm32")]
mod rt;
#[cfg(target_arch = "wasm32")]
#[expect(
    unsafe_code,
    reason = "the ABI's imports and guest memory; all unsafe is here"
)]
mod sys;

pub mod abi;

/// The plugin ABI version this SDK targets; exported by every plugin as `tessera_abi_v1`.
pub const ABI_VERSION: u32 = abi::VERSION;

#[cfg(target_arch = "wasm32")]
pub use guest::{
    log, random, ActionList, Ctx, Expr, HostError, Level, Obj, Selector, Sym, SymCache,
};
pub use params::{ParamKind, Params};
pub use tessera_plugin_api_macros::{action, condition, export_plugin, node, selector, Params};

/// Everything a plugin usually needs: `use tessera_plugin_api::prelude::*;`.
pub mod prelude {
    #[cfg(target_arch = "wasm32")]
    pub use crate::guest::{
        log, random, ActionList, Ctx, Expr, HostError, Level, Obj, Selector, Sym,
    };
    pub use crate::params::Params;
    #[cfg(target_arch = "wasm32")]
    pub use crate::sym;
    pub use tessera_plugin_api_macros::{action, condition, export_plugin, node, selector, Params};
}

/// What the SDK's macros expand to. Not a stable API.
#[doc(hidden)]
pub mod __rt {
    pub use crate::params::{field, init, parse};
    #[cfg(target_arch = "wasm32")]
    pub use crate::rt::*;
}
