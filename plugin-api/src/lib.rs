//! The Tessera guest SDK.
//!
//! [`abi`] is the ABI v1 contract (see `ABI.md`), shared with the host. The typed guest
//! wrappers and macros build on it.

pub mod abi;

/// The plugin ABI version this SDK targets; exported by every plugin as `tessera_abi_v1`.
pub const ABI_VERSION: u32 = abi::VERSION;
