//! `arena-plus`: board-position effects for the arena card game.
//!
//! | id | kind | what |
//! |---|---|---|
//! | `arena-plus:action/chain_damage` | action | damage that bounces along a row of minions, 1 less per bounce |
//! | `arena-plus:selector/most_attack` | selector | the minion(s) with the highest attack on a side |
//! | `arena-plus:selector/neighbours` | selector | the minions next to an object (slot − 1, slot + 1) |
//! | `arena-plus:condition/wounded` | condition | health below max health |
//! | `arena-plus:action/swap_positions` | action | swaps a minion with its neighbour |
//!
//! Positions are the engine's `slot` property: the 0-based place of an object among the
//! objects with the same owner in the same zone. Two objects are neighbours when they
//! share owner and zone and their slots are one apart (as `core:condition/adjacent`).
//! Damage always goes through the registered `core:action/damage`, so divine shield,
//! armour and the `damaged` events work as for any other card.
//!
//! ```toml
//! # content
//! select = { type = "arena-plus:selector/most_attack", side = "enemy" }
//! do = [{ type = "arena-plus:action/chain_damage", amount = "3 + self.owner.spell_power" }]
//! ```

use serde::Deserialize;
use serde_json::json;
use tessera_plugin_api::abi::ParamType;
use tessera_plugin_api::prelude::*;
use tessera_plugin_api::ParamKind;

/// The most damage one hit of `chain_damage` deals: one host action is prepared per
/// amount from 1 to this, so larger amounts are clamped to it.
const MAX_DAMAGE: i64 = 20;

fn board() -> String {
    "board".to_owned()
}

fn minion() -> String {
    "minion".to_owned()
}

fn one() -> i64 {
    1
}

/// Checks that a zone or tag parameter is a plain name, with a message naming it.
fn check_name(param: &str, value: &str) -> Result<(), String> {
    let ok = !value.is_empty()
        && value.chars().all(|c| {
            c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '_' | '-' | '.' | ':' | '/')
        });
    if ok {
        Ok(())
    } else {
        Err(format!(
            "`{param}` must be a name such as \"board\" or \"minion\" (lowercase letters, digits, `_`), not {value:?}"
        ))
    }
}

/// Prepares `core:selector/objects` over `zone` and `tag`, with an owner relation.
fn pool(zone: &str, tag: &str, owner: Option<&str>) -> Result<Selector, String> {
    let mut sel = json!({ "type": "core:selector/objects", "zone": zone, "tag": tag });
    if let Some(o) = owner {
        sel["owner"] = json!(o);
    }
    Selector::prepare(&sel.to_string()).map_err(|e| e.to_string())
}

/// Whether `a` and `b` share owner and zone (the same row of the board).
fn same_row(a: Obj, b: Obj) -> bool {
    a.owner() == b.owner() && a.zone() == b.zone()
}

/// The object of `row` in `obj`'s row at `slot`, if any.
fn at_slot(row: &[Obj], obj: Obj, slot: i64) -> Option<Obj> {
    row.iter()
        .copied()
        .find(|&o| o != obj && same_row(o, obj) && o.get_int(sym!("slot")) == slot)
}

/// Implements [`ParamKind`] for an enum parameter written as text in content.
macro_rules! text_param {
    ($t:ty) => {
        impl ParamKind for $t {
            const TYPE: ParamType = ParamType::Text;
        }
    };
}

/// A side of the board, relative to the holder's owner.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Side {
    /// The holder's owner's.
    Friendly,
    /// The other player's.
    Enemy,
    /// Both.
    #[default]
    Any,
}
text_param!(Side);

impl Side {
    fn relation(self) -> &'static str {
        match self {
            Side::Friendly => "friendly",
            Side::Enemy => "enemy",
            Side::Any => "any",
        }
    }
}

/// What to do with a tie for the highest attack.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Ties {
    /// Only the tied minion with the lowest slot (the leftmost).
    #[default]
    First,
    /// Every tied minion, lowest slot first.
    All,
}
text_param!(Ties);

/// A direction along a row.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Direction {
    /// Towards higher slots.
    #[default]
    Right,
    /// Towards lower slots.
    Left,
}
text_param!(Direction);

impl Direction {
    fn step(self) -> i64 {
        match self {
            Direction::Right => 1,
            Direction::Left => -1,
        }
    }
}

/// An object of the scope.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Who {
    /// The holder of the trigger or aura.
    #[default]
    #[serde(rename = "self")]
    This,
    /// The event's target (inside `if`, the object being acted on).
    Target,
    /// The event's source.
    Source,
}
text_param!(Who);

impl Who {
    fn resolve(self, ctx: &Ctx) -> Option<Obj> {
        match self {
            Who::This => ctx.this(),
            Who::Target => ctx.target(),
            Who::Source => ctx.source(),
        }
    }
}

// ------------------------------------------------------------------ chain_damage

/// Parameters of `chain_damage`.
#[derive(Deserialize, Params)]
#[params(init = ChainDamage::prepare)]
struct ChainDamage {
    /// Damage of the first hit: a whole number from 1 to 20, or an expression such as
    /// `"3 + self.owner.spell_power"` (evaluated when the action runs, rounded down and
    /// clamped to 0..=20).
    amount: serde_json::Value,
    /// How much less each bounce deals (default 1; at least 1).
    #[serde(default = "one")]
    falloff: i64,
    /// Where the chain goes first when both neighbours are unhit: `right` (higher slot,
    /// the default) or `left`.
    #[serde(default)]
    prefer: Direction,
    /// Only bounce to objects in this zone (default `board`).
    #[serde(default = "board")]
    zone: String,
    /// Only bounce to objects with this tag (default `minion`).
    #[serde(default = "minion")]
    tag: String,
    /// `amount` as a host expression, when it is not a literal.
    #[serde(skip)]
    amount_expr: Option<Expr>,
    /// `amount` when it is a literal.
    #[serde(skip)]
    amount_lit: i64,
    /// `damage[n - 1]` is `[{ type = "core:action/damage", amount = n }]`.
    #[serde(skip)]
    damage: Vec<ActionList>,
    /// The objects a chain may reach: `zone` and `tag`, any owner.
    #[serde(skip)]
    pool: Option<Selector>,
}

impl ChainDamage {
    /// Checks the parameters and prepares the host objects the action runs.
    fn prepare(&mut self) -> Result<(), String> {
        match &self.amount {
            serde_json::Value::Number(n) => {
                let v = n.as_i64().filter(|v| (1..=MAX_DAMAGE).contains(v));
                self.amount_lit = v.ok_or_else(|| {
                    format!("`amount` must be a whole number from 1 to {MAX_DAMAGE}, not {n}")
                })?;
            }
            serde_json::Value::String(s) => {
                let e = Expr::prepare(&self.amount.to_string())
                    .map_err(|_| format!("`amount` {s:?} is not an expression the host accepts"))?;
                self.amount_expr = Some(e);
            }
            other => {
                return Err(format!(
                    "`amount` must be a number or an expression (text), not {other}"
                ))
            }
        }
        if self.falloff < 1 {
            return Err(format!(
                "`falloff` must be at least 1 (each bounce deals less), not {}",
                self.falloff
            ));
        }
        check_name("zone", &self.zone)?;
        check_name("tag", &self.tag)?;
        for n in 1..=MAX_DAMAGE {
            let list = json!([{ "type": "core:action/damage", "amount": n }]).to_string();
            self.damage
                .push(ActionList::prepare(&list).map_err(|e| e.to_string())?);
        }
        self.pool = Some(pool(&self.zone, &self.tag, None)?);
        Ok(())
    }

    /// The first hit's damage in this scope.
    fn first_hit(&self, ctx: &Ctx) -> i64 {
        match &self.amount_expr {
            // `as` saturates (NaN becomes 0); the clamp bounds it anyway.
            Some(e) => (ctx.eval(e).floor() as i64).clamp(0, MAX_DAMAGE),
            None => self.amount_lit,
        }
    }
}

/// Deals `amount` damage to each target, then bounces: to the target's neighbour (same
/// owner and zone, slot one apart, tagged `tag`) that has not been hit yet — the one on
/// the `prefer` side (default right) if both qualify — dealing `falloff` (default 1)
/// less each bounce, until the damage reaches 0 or no unhit neighbour is left. Each
/// bounce raises `arena-plus:event/chain_bounced` (target: the minion hit next; amount:
/// its damage). Each target starts a chain of its own. Every hit runs
/// `core:action/damage`.
#[action("arena-plus:action/chain_damage")]
fn chain_damage(ctx: &Ctx, targets: &[Obj], p: &ChainDamage) -> Result<(), String> {
    let first = p.first_hit(ctx);
    if first <= 0 || targets.is_empty() {
        return Ok(());
    }
    let Some(pool) = &p.pool else {
        return Err("chain_damage was not prepared".into());
    };
    let row_objects = ctx.query(pool);
    let bounced = sym!("arena-plus:event/chain_bounced");
    for &start in targets {
        if !start.exists() {
            continue;
        }
        let mut hit = vec![start];
        let mut current = start;
        let mut amount = first;
        loop {
            ctx.run(
                &p.damage[usize::try_from(amount - 1).unwrap_or(0)],
                &[current],
            )?;
            amount -= p.falloff;
            if amount <= 0 {
                break;
            }
            let slot = current.get_int(sym!("slot"));
            let next = [p.prefer.step(), -p.prefer.step()]
                .into_iter()
                .filter_map(|d| at_slot(&row_objects, current, slot + d))
                .find(|o| !hit.contains(o));
            let Some(next) = next else { break };
            ctx.emit(bounced, Some(next), amount)?;
            hit.push(next);
            current = next;
        }
    }
    Ok(())
}

// ------------------------------------------------------------------ most_attack

/// Parameters of `most_attack`.
#[derive(Deserialize, Params)]
#[params(init = MostAttack::prepare)]
struct MostAttack {
    /// Whose minions: `friendly`, `enemy` or `any` (default), relative to the holder's
    /// owner.
    #[serde(default)]
    side: Side,
    /// The zone to look in (default `board`).
    #[serde(default = "board")]
    zone: String,
    /// Only objects with this tag (default `minion`).
    #[serde(default = "minion")]
    tag: String,
    /// On a tie: `first` (default) selects the tied minion with the lowest slot; `all`
    /// selects every tied minion, lowest slot first.
    #[serde(default)]
    ties: Ties,
    /// The candidates, prepared from `side`, `zone` and `tag`.
    #[serde(skip)]
    among: Option<Selector>,
}

impl MostAttack {
    fn prepare(&mut self) -> Result<(), String> {
        check_name("zone", &self.zone)?;
        check_name("tag", &self.tag)?;
        self.among = Some(pool(&self.zone, &self.tag, Some(self.side.relation()))?);
        Ok(())
    }
}

/// The minion with the highest `attack` (effective, auras included) on `side` in `zone`:
/// on a tie the one with the lowest slot (`ties = "first"`, the default; with `side =
/// "any"` and both sides tied at that slot, the first in id order), or every tied one,
/// lowest slot first (`ties = "all"`). Nothing when there is no candidate.
#[selector("arena-plus:selector/most_attack")]
fn most_attack(ctx: &Ctx, p: &MostAttack) -> Vec<Obj> {
    let Some(among) = &p.among else {
        return Vec::new();
    };
    let mut found = ctx.query(among);
    let Some(best) = found.iter().map(|o| o.get_int(sym!("attack"))).max() else {
        return found;
    };
    found.retain(|o| o.get_int(sym!("attack")) == best);
    // Stable: equal slots keep the host's id order.
    found.sort_by_key(|o| o.get_int(sym!("slot")));
    if p.ties == Ties::First {
        found.truncate(1);
    }
    found
}

// ------------------------------------------------------------------ neighbours

/// Parameters of `neighbours`.
#[derive(Deserialize, Params)]
#[params(init = Neighbours::prepare)]
struct Neighbours {
    /// Whose neighbours: `self` (default, the holder), `target` or `source`.
    #[serde(default)]
    of: Who,
    /// Only objects with this tag (default `minion`).
    #[serde(default = "minion")]
    tag: String,
    /// Every object with `tag`.
    #[serde(skip)]
    pool: Option<Selector>,
}

impl Neighbours {
    fn prepare(&mut self) -> Result<(), String> {
        check_name("tag", &self.tag)?;
        let sel = json!({ "type": "core:selector/objects", "tag": self.tag }).to_string();
        self.pool = Some(Selector::prepare(&sel).map_err(|e| e.to_string())?);
        Ok(())
    }
}

/// The objects tagged `tag` (default `minion`) right next to `of` (default the holder):
/// same owner and zone, slot one lower, then slot one higher. Nothing if `of` is absent.
#[selector("arena-plus:selector/neighbours")]
fn neighbours(ctx: &Ctx, p: &Neighbours) -> Vec<Obj> {
    let (Some(of), Some(pool)) = (p.of.resolve(ctx), &p.pool) else {
        return Vec::new();
    };
    if !of.exists() {
        return Vec::new();
    }
    let row = ctx.query(pool);
    let slot = of.get_int(sym!("slot"));
    [slot - 1, slot + 1]
        .into_iter()
        .filter_map(|s| at_slot(&row, of, s))
        .collect()
}

// ------------------------------------------------------------------ wounded

/// Parameters of `wounded`.
#[derive(Deserialize, Params)]
#[params(init = Wounded::check)]
struct Wounded {
    /// How much health must be missing (default 1).
    #[serde(default = "one")]
    by: i64,
}

impl Wounded {
    fn check(&mut self) -> Result<(), String> {
        if self.by < 1 {
            return Err(format!(
                "`by` must be at least 1 (health missing), not {}",
                self.by
            ));
        }
        Ok(())
    }
}

/// The object has health below its maximum (by at least `by`, default 1). Objects
/// without `max_health` (cards in hand, players' secrets) are never wounded.
#[condition("arena-plus:condition/wounded")]
fn wounded(_ctx: &Ctx, obj: Obj, p: &Wounded) -> bool {
    if !obj.has_prop(sym!("max_health")) {
        return false;
    }
    let max = obj.get_int(sym!("max_health"));
    let health = if obj.has_prop(sym!("health")) {
        obj.get_int(sym!("health"))
    } else {
        max - obj.get_int(sym!("damage"))
    };
    max - health >= p.by
}

// ------------------------------------------------------------------ swap_positions

/// Parameters of `swap_positions`.
#[derive(Deserialize, Params)]
#[params(init = SwapPositions::prepare)]
struct SwapPositions {
    /// Which neighbour to swap with: `right` (default) or `left`. A target with no
    /// neighbour there stays put.
    #[serde(default)]
    with: Direction,
    /// Only swap with objects with this tag (default `minion`).
    #[serde(default = "minion")]
    tag: String,
    /// Every object with `tag`.
    #[serde(skip)]
    pool: Option<Selector>,
}

impl SwapPositions {
    fn prepare(&mut self) -> Result<(), String> {
        check_name("tag", &self.tag)?;
        let sel = json!({ "type": "core:selector/objects", "tag": self.tag }).to_string();
        self.pool = Some(Selector::prepare(&sel).map_err(|e| e.to_string())?);
        Ok(())
    }
}

/// Swaps each target with its neighbour on the `with` side (default right): the two
/// exchange slots, so the row stays dense. Targets are swapped in turn (a later swap
/// sees the earlier ones).
#[action("arena-plus:action/swap_positions")]
fn swap_positions(ctx: &Ctx, targets: &[Obj], p: &SwapPositions) -> Result<(), String> {
    let Some(pool) = &p.pool else {
        return Err("swap_positions was not prepared".into());
    };
    let row = ctx.query(pool);
    for &t in targets {
        if !t.exists() {
            continue;
        }
        let slot = t.get_int(sym!("slot"));
        let Some(other) = at_slot(&row, t, slot + p.with.step()) else {
            continue;
        };
        t.set_int(sym!("slot"), slot + p.with.step())?;
        other.set_int(sym!("slot"), slot)?;
    }
    Ok(())
}

export_plugin!(
    provides = [
        chain_damage,
        most_attack,
        neighbours,
        wounded,
        swap_positions
    ]
);
