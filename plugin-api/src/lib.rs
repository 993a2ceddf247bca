//! The Tessera guest SDK.
//!
//! This crate will hold the plugin ABI (versioned exports and host imports) and the typed
//! Rust wrappers plugin authors use. The ABI itself is specified by the plugins issue;
//! until then the crate only publishes the ABI version the host will speak.

/// The plugin ABI version this SDK targets; exported by every plugin as `tessera_abi_v1`.
pub const ABI_VERSION: u32 = 1;
