//! # Tessera host
//!
//! The runtime of the Tessera modding platform: it owns the game world and the event bus,
//! and runs rules that come from mods.
//!
//! Data flows one way: **files → mods → registry generation → world**. The world never
//! reads files; content is compiled into an immutable [`Generation`] against a
//! [`Registry`] of kinds; a [`Game`] runs a [`World`] under one generation.
//!
//! ```
//! use std::sync::Arc;
//! use tessera_host::{ContentSource, Event, Game, Generation, Id, Registry, ScriptedController, SourceText, Sym};
//!
//! let content = r#"
//! [class.wolf]
//! properties = { attack = 2, max_health = 3 }
//! tags = ["beast"]
//!
//! [[class.wolf.trigger]]
//! when = "core:event/turn_started"
//! do = [{ type = "add", key = "attack", amount = 1 }]
//! "#;
//! let src = ContentSource::new("demo", SourceText::new("demo.toml", content));
//! let gen = Generation::build(Arc::new(Registry::with_core()), &[src], 1).unwrap();
//! let mut game = Game::new(Arc::new(gen), 7, Box::new(ScriptedController::default()));
//! let wolf = game.spawn(Id::parse("demo:class/wolf").unwrap(), None, "board").unwrap();
//! game.emit(Event::new(Id::parse("core:event/turn_started").unwrap())).unwrap();
//! assert_eq!(game.world().get_int(wolf, Sym::new("attack")), 3);
//! ```
//!
//! ## Core concepts
//!
//! - [`Id`] — `namespace:category/name`, interned; [`Sym`] — any interned key.
//! - [`World`] — objects with base properties, tags, zones, owners, parents; effective
//!   values are computed from modifiers, never undone; cloning is a cheap snapshot.
//! - [`Registry`] — one table per kind (action, condition, selector, event, node,
//!   loader); every provider implements the same trait per kind.
//! - [`Generation`] — content compiled against a registry: classes, triggers (indexed by
//!   event), auras, settle rules.
//! - [`Game`] — commands run as transactions; events dispatch breadth-first.
//! - [`Diagnostic`] — every problem with a code, a file:line and a fix.
//! - [`mods`] — manifests, discovery, semver resolution, load order, `mods.lock`,
//!   `server.toml`, and loading the resolved mods' plugins and content
//!   ([`mods::load`]).
//! - [`plugins`] — sandboxed WebAssembly plugins (ABI v1, see `plugin-api/ABI.md`) and
//!   trusted native extensions, registered as ordinary registry entries.
//! - [`scenario`] — scenario tests, the data-file way to test content.
//! - `serve` (feature `serve`, on by default) — `tessera serve`: many worlds per
//!   process over a WebSocket protocol (`docs/protocol.md`), admin HTTP, saves.
//! - [`ability`] — the ability schema (`math` node pipelines) and casting
//!   ([`Game::cast`]).
//!
//! ## Layers
//!
//! The modules form layers. A module imports only from layers above it in this list
//! (never from its own layer or one below), and always from the module that defines an
//! item, not through this crate's root re-exports. `tests/all/layers.rs` reads this list
//! and fails when an import breaks it, so the list is the rule:
//!
//! 1. `id`, `diag` — interned names and keys; diagnostics. They know nothing else.
//! 2. `state` — the world: objects, properties, tags, zones, slots, modifiers, events as
//!    values, and what a rule reads of the world (`Deps`).
//! 3. `bus` — the event queue, the trigger index and the cascade limit.
//! 4. `controller` — who answers choices (AI, script, client) and what they are asked.
//! 5. `rules` — the rules engine: the registry of kinds and the contexts kinds run in,
//!    content compiled into a [`Generation`], selections, expressions, auras, triggers,
//!    replacement effects, the built-in `core` kinds and the ability schema. One layer
//!    because it is one recursion: a kind runs in a context that holds the generation
//!    that holds compiled kinds. A world's plugin runtime passes through as an opaque
//!    [`rules::Sandbox`].
//! 6. `plugins` — sandboxed WebAssembly plugins and native extensions, registered as
//!    kinds.
//! 7. `game` — a world running under a generation: commands as transactions, moves,
//!    casting, generation swaps.
//! 8. `mods` — manifests, discovery, resolution, and loading mods into a generation.
//! 9. `reload`, `schema` — hot reload of a running game; JSON schemas of the files.
//! 10. `play`, `lsp` — matches between agents, records and replays; the language server.
//! 11. `scenario` — scenario tests.
//! 12. `serve` — many worlds per process over WebSocket.

#![deny(missing_docs)]

mod bus;
mod controller;
mod diag;
mod game;
mod id;
#[cfg(feature = "lsp")]
pub mod lsp;
pub mod mods;
pub mod play;
pub mod plugins;
pub mod reload;
pub mod rules;
pub mod scenario;
pub mod schema;
#[cfg(feature = "serve")]
pub mod serve;
mod state;

pub use bus::{core_events, Binding, CascadeError, Event, EventQueue, IndexEntry, TriggerIndex};
pub use diag::{line_col, Diagnostic, Diagnostics, Location, Severity, SourceText};
pub use game::{
    Answer, CastReport, Choice, Controller, ControllerError, Game, MoveOption, Outcome,
    RandomController, RandomDraw, ScriptedController, SwapReport,
};
pub use id::{closest, validate_namespace, Id, IdError, IdHash, IdHasher, Sym};
pub use rules::registry::Registry;
pub use rules::{ability, registry};
pub use rules::{ContentSource, ExtraActions};
pub use rules::{Generation, PluginFault, PluginFaultKind, RuleError};
pub use state::{
    decimal, AccountEntry, Accounting, AppliedMod, Coords, EffectInstance, HealthRule, Layer,
    MaxHealthDrop, ObjId, Object, Snapshot, StateError, Value, World,
};
