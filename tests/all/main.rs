//! Whole-platform tests: mods and scenario files in, behaviour out.
//!
//! One binary with one module per area (as wasmtime's `tests/all`).
