//! `spellbook`: an ability pipeline node type, `original:node/critical_strike`, for the
//! `mods/spellbook` mod (namespace `original`). It uses the `random` capability (the
//! mod's manifest asks for it; `server.toml` grants it).
//!
//! ```toml
//! [[abilities.math]]
//! id = "empower"
//! type = "critical_strike"
//! chance = "self.crit_chance"   # percent, evaluated for the caster
//! multiplier = 2
//! ```
//!
//! The built-in `damage` and `damage_over_time` nodes multiply everything they deal by the
//! pipeline value `damage_multiplier` (1 when a cast starts), so a critical strike placed
//! above them makes the whole cast critical.

use serde::Deserialize;
use tessera_plugin_api::prelude::*;

/// Parameters of `critical_strike`.
#[derive(Deserialize, Params)]
struct CriticalStrike {
    /// Percent chance, 0 to 100: a number or an expression read for the caster.
    chance: Expr,
    /// What damage is multiplied by on a critical strike (default 2).
    multiplier: Option<f64>,
}

/// Rolls `chance` percent from the world's seeded RNG. On a hit, multiplies the pipeline
/// value `damage_multiplier` by `multiplier`; sets `critical` to 1 or 0 either way.
#[node("original:node/critical_strike")]
fn critical_strike(ctx: &Ctx, p: &CriticalStrike) -> Result<(), String> {
    let chance = ctx.eval(&p.chance);
    let hit = chance > 0.0 && (random(1, 100) as f64) <= chance;
    if hit {
        let key = sym!("damage_multiplier");
        let current = ctx.pipeline_get(key);
        let current = if current == 0.0 { 1.0 } else { current };
        ctx.pipeline_set(key, current * p.multiplier.unwrap_or(2.0));
    }
    ctx.pipeline_set(sym!("critical"), if hit { 1.0 } else { 0.0 });
    Ok(())
}

export_plugin!(provides = [critical_strike]);
