//! `crits`: a pipeline node type using the `random` capability (the mod's manifest asks
//! for it; `server.toml` must grant it).
//!
//! ```toml
//! # content: an ability pipeline
//! pipeline = [
//!   { type = "core:node/damage", amount = 3 },
//!   { type = "crits:node/crit", chance = 25, factor = "self.crit_factor" },
//! ]
//! ```

use serde::Deserialize;
use tessera_plugin_api::prelude::*;

/// Parameters of `crit`.
#[derive(Deserialize, Params)]
struct Crit {
    /// Percent chance to crit, 0 to 100 (default 25).
    #[serde(default = "quarter")]
    chance: i64,
    /// The multiplier: a number or an expression (default 2).
    factor: Option<Expr>,
    /// The pipeline value to multiply (default `damage`).
    #[serde(default = "damage")]
    key: Sym,
}

fn quarter() -> i64 {
    25
}

fn damage() -> Sym {
    sym!("damage")
}

/// With `chance` percent, multiplies the pipeline's `damage` by `factor` (rounded down)
/// and sets the pipeline value `crit` to 1; otherwise sets `crit` to 0.
#[node("crits:node/crit")]
fn crit(ctx: &Ctx, p: &Crit) -> Result<(), String> {
    let hit = random(1, 100) <= p.chance;
    if hit {
        let factor = p.factor.as_ref().map_or(2.0, |f| ctx.eval(f));
        let value = ctx.pipeline_get(p.key);
        ctx.pipeline_set(p.key, (value * factor).floor());
    }
    ctx.pipeline_set(sym!("crit"), if hit { 1.0 } else { 0.0 });
    Ok(())
}

export_plugin!(provides = [crit]);
