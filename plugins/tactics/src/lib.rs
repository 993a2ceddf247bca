//! `tactics`: a selector over a host selector's results, and an action that calls back
//! into a `core` action.
//!
//! ```toml
//! # content
//! target = { type = "tactics:selector/most_attack", among = { type = "core:selector/objects", zone = "board" } }
//! effect = [{ type = "tactics:action/chain_damage", amount = 4, hits = 3 }]
//! ```

use serde::Deserialize;
use tessera_plugin_api::prelude::*;

/// Parameters of `most_attack`.
#[derive(Deserialize, Params)]
struct MostAttack {
    /// Where to look: a selector, written as in content. (`from`, `where` and `pick` are
    /// the engine's own selector keys, so the parameter has another name.)
    among: Selector,
    /// The property to compare (default `attack`).
    #[serde(default = "attack")]
    key: Sym,
}

fn attack() -> Sym {
    sym!("attack")
}

/// The object with the highest `key` (default `attack`) among the results of `among`; the
/// first one on ties; nothing if `from` selects nothing.
#[selector("tactics:selector/most_attack")]
fn most_attack(ctx: &Ctx, p: &MostAttack) -> Option<Obj> {
    let mut best: Option<(Obj, i64)> = None;
    for obj in ctx.query(&p.among) {
        let v = obj.get_int(p.key);
        if best.is_none_or(|(_, b)| v > b) {
            best = Some((obj, v));
        }
    }
    best.map(|(obj, _)| obj)
}

/// Parameters of `chain_damage`.
#[derive(Deserialize, Params)]
#[params(init = ChainDamage::prepare_hits)]
struct ChainDamage {
    /// Damage of the first hit; each later hit does half the one before (at least 1).
    amount: i64,
    /// How many hits in all (default 3).
    #[serde(default = "three")]
    hits: u32,
    /// One `core:action/damage` per hit, prepared at load.
    #[serde(skip)]
    damage: Vec<ActionList>,
}

fn three() -> u32 {
    3
}

impl ChainDamage {
    /// Prepares the host actions the hits run: `[{type = "core:action/damage", amount = n}]`.
    fn prepare_hits(&mut self) -> Result<(), String> {
        if self.amount < 1 {
            return Err(format!("`amount` must be at least 1, not {}", self.amount));
        }
        let mut amount = self.amount;
        for _ in 0..self.hits.min(16) {
            let json = format!(r#"[{{"type": "core:action/damage", "amount": {amount}}}]"#);
            self.damage.push(ActionList::prepare(&json)?);
            amount = (amount / 2).max(1);
        }
        Ok(())
    }
}

/// Damage that bounces: hits the targets in turn (wrapping around), `hits` times (at most
/// 16), halving each time; skips targets that have died.
#[action("tactics:action/chain_damage")]
fn chain_damage(ctx: &Ctx, targets: &[Obj], p: &ChainDamage) -> Result<(), String> {
    if targets.is_empty() {
        return Ok(());
    }
    for (i, damage) in p.damage.iter().enumerate() {
        let target = targets[i % targets.len()];
        if target.exists() {
            ctx.run(damage, &[target])?;
        }
    }
    Ok(())
}

export_plugin!(provides = [most_attack, chain_damage]);
