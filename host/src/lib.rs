//! # Tessera host
//!
//! The runtime of the Tessera modding platform: it owns the game world and the event bus,
//! and runs rules that come from mods.
//!
//! Data flows one way: **files → mods → registry generation → world**.
//!
//! ## Core concepts
//!
//! - [`Id`] — `namespace:category/name`, interned; [`Sym`] — any interned key.

#![deny(missing_docs)]

mod diag;
mod id;
pub mod mods;

pub use diag::{line_col, Diagnostic, Diagnostics, Location, Severity, SourceText};
pub use id::{closest, validate_namespace, Id, IdError, Sym};
