//! Whole-platform tests: mods and scenario files in, behaviour out.
//!
//! One binary with one module per area (as wasmtime's `tests/all`).

mod abilities;
mod abilities_format;
mod arena;
mod arena_plus;
mod aura_incremental;
mod bad_input;
mod child_lines;
mod cli;
mod cli_content;
mod cli_new;
mod cli_pack;
mod cli_snapshots;
mod cli_watch;
mod diag_memory;
mod docs;
mod firemox;
mod freeorion;
mod function_length;
mod hearthbreaker;
#[cfg(feature = "lsp")]
mod layers;
mod loader_files;
mod lsp;
mod mods_content;
mod mods_fixture;
mod mods_lock;
mod mods_manifest;
mod mods_proptest;
mod mods_resolve;
mod mods_server;
mod mtg;
mod plugin_build;
mod plugin_faults;
mod plugin_loader;
mod plugin_names;
mod plugin_native;
mod plugin_nested;
mod plugin_node;
mod public_api;
mod readme;
mod reload;
mod reload_watch;
mod scenario_matches;
mod scenarios;
#[cfg(feature = "serve")]
mod serve;
mod soak;
