//! `counter`: an action with plugin-internal state that survives hot reload through
//! `save_state`/`load_state`.
//!
//! The count lives in the instance, not in the world: a rolled-back command does not
//! un-count, and a faulted instance starts again from 0. Mods that need exact counts keep
//! them in properties, as this action also does.
//!
//! ```toml
//! # content
//! effect = [{ type = "counter:action/count", key = "times_counted" }]
//! ```

use std::cell::Cell;

use serde::Deserialize;
use tessera_plugin_api::prelude::*;

thread_local! {
    /// Calls of `count` on this instance (and the instances it was reloaded from).
    static CALLS: Cell<i64> = const { Cell::new(0) };
}

/// Parameters of `count`.
#[derive(Deserialize, Params)]
struct Count {
    /// The property that receives the running count (default `count`).
    #[serde(default = "count_key")]
    key: Sym,
}

fn count_key() -> Sym {
    sym!("count")
}

/// Counts its calls and sets property `key` of every target to the running count.
#[action("counter:action/count")]
fn count(_ctx: &Ctx, targets: &[Obj], p: &Count) -> Result<(), HostError> {
    let n = CALLS.get() + 1;
    CALLS.set(n);
    for t in targets {
        t.set_int(p.key, n)?;
    }
    Ok(())
}

/// The state: the count, 8 bytes little-endian.
fn save() -> Vec<u8> {
    CALLS.get().to_le_bytes().to_vec()
}

/// Restores [`save`]'s bytes.
fn load(bytes: &[u8]) -> Result<(), String> {
    let bytes: [u8; 8] = bytes
        .try_into()
        .map_err(|_| format!("expected 8 bytes of state, got {}", bytes.len()))?;
    CALLS.set(i64::from_le_bytes(bytes));
    Ok(())
}

export_plugin!(provides = [count], save_state = save, load_state = load);
