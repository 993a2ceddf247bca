//! The plugin of {id}: kinds that content uses like built-ins. Build it with
//! `tessera build {crate_dir}`; `tessera run --watch` rebuilds it on save.

use serde::Deserialize;
use tessera_plugin_api::prelude::*;

/// The parameters content may give the condition (`{ type = "...", min = 2 }`).
#[derive(Deserialize, Params)]
struct Wounded {
    /// Count only objects missing at least this much health (default 1).
    min: Option<i64>,
}

/// The object has taken at least `min` damage.
#[condition("{id}:condition/wounded")]
fn wounded(_ctx: &Ctx, obj: Obj, p: &Wounded) -> bool {
    obj.get_int(sym!("damage")) >= p.min.unwrap_or(1)
}

export_plugin!(provides = [wounded]);
