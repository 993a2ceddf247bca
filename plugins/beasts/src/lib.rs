//! `beasts`: one condition, `beasts:condition/is_beast` — the smallest useful plugin, and
//! the hot-path benchmark subject (one tag read, maybe one property read, per object).
//!
//! ```toml
//! # content
//! condition = { type = "beasts:condition/is_beast", min_attack = 3 }
//! ```

use serde::Deserialize;
use tessera_plugin_api::prelude::*;

/// Parameters of `is_beast`.
#[derive(Deserialize, Params)]
struct IsBeast {
    /// Also require at least this much attack (effective value).
    min_attack: Option<i64>,
}

/// The object is tagged `beast` (and has at least `min_attack` attack, when given).
#[condition("beasts:condition/is_beast")]
fn is_beast(_ctx: &Ctx, obj: Obj, p: &IsBeast) -> bool {
    obj.has_tag(sym!("beast"))
        && p.min_attack
            .is_none_or(|min| obj.get_int(sym!("attack")) >= min)
}

export_plugin!(provides = [is_beast]);
