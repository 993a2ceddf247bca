//! `core` actions: `damage`, `heal`, `destroy`, `create`, `move`, `emit`, `if` (the last
//! two are in `flow`); `set`, `add`, `tag`, `untag`, `give_aura` and `remove_aura` are in
//! `property_actions`.

use std::sync::Arc;

use super::create::Create;
use crate::bus::Event;
use crate::id::{Id, Sym};
use crate::rules::expr::{Expr, ObjRef};
use crate::rules::registry::{
    builtin, Action, ActionKind, FnKind, ParamSpec, ParamType as T, Registry,
};
use crate::rules::replace::{self, Proposed};
use crate::rules::{ActCx, ContentError, Params, RuleError};
use crate::state::{ObjId, Value};

/// A core event id, parsed and interned once per call site (actions run in hot loops:
/// formatting and parsing the id on every call cost more than the action itself).
macro_rules! ev {
    ($name:literal) => {{
        static ID: std::sync::OnceLock<Id> = std::sync::OnceLock::new();
        *ID.get_or_init(|| {
            Id::parse(concat!("core:event/", $name))
                .unwrap_or_else(|e| panic!("core event id: {e}"))
        })
    }};
}
pub(super) use ev;

/// Evaluates an expression with `target` = the object being acted on.
pub(super) fn eval_for(ax: &ActCx<'_>, e: &Expr, target: ObjId) -> Result<i64, RuleError> {
    let scope = ax.scope.with_target(target);
    e.eval_int(&ax.cx().with_scope(&scope))
}

/// Evaluates an expression with `target` = the object being acted on, keeping decimals
/// (for decimal properties; a result that is not finite is an error).
pub(super) fn eval_decimal(ax: &ActCx<'_>, e: &Expr, target: ObjId) -> Result<f64, RuleError> {
    let scope = ax.scope.with_target(target);
    crate::rules::expr::finite(e.eval(&ax.cx().with_scope(&scope))?, e)
}

/// The player an event about `obj` concerns: the object itself if it is a player, else
/// its owner.
pub(super) fn owner_of(ax: &ActCx<'_>, obj: ObjId) -> Option<ObjId> {
    super::side_of(ax.world, obj)
}

/// Raises `event` about `target` with the holder as its source.
pub(super) fn raise_from_holder(ax: &mut ActCx<'_>, e: Event) {
    let e = match ax.scope.this {
        Some(s) => e.source(s),
        None => e,
    };
    ax.raise(e);
}

/// The world before an action moves or damages anything, when the game keeps last-known
/// information (`[world] last_known`).
fn snapshot(ax: &ActCx<'_>) -> Option<crate::state::Snapshot> {
    ax.gen
        .world
        .last_known
        .then(|| crate::state::Snapshot::of(ax.world))
}

/// The event with `source` as its source, when there is one.
pub(super) fn with_source(e: Event, source: Option<ObjId>) -> Event {
    match source {
        Some(s) => e.source(s),
        None => e,
    }
}

/// Offers a move of `t` from `from` to `to` (raising `event` once done) to replacement
/// effects: the zone it goes to instead, or `None` when the move is prevented.
fn would_move(
    ax: &mut ActCx<'_>,
    event: Id,
    t: ObjId,
    from: Sym,
    to: Sym,
) -> Result<Option<Sym>, RuleError> {
    if !replace::any(ax.gen, event) {
        return Ok(Some(to));
    }
    let e = Event::new(event)
        .target(t)
        .player(owner_of(ax, t))
        .with("from", Value::Text(from.as_str().into()))
        .with("to", Value::Text(to.as_str().into()));
    let mut p = Proposed::new(with_source(e, ax.scope.this), Some(to));
    replace::offer(ax, &mut p)?;
    if p.cancelled || !ax.world.exists(t) {
        return Ok(None);
    }
    Ok(Some(p.to.unwrap_or(to)))
}

#[derive(Debug)]
struct Damage {
    amount: Expr,
    /// Who deals it (default: the holder).
    source: Option<ObjRef>,
}
impl Action for Damage {
    fn run(&self, ax: &mut ActCx<'_>, targets: &[ObjId]) -> Result<(), RuleError> {
        let rule = ax.world.health_rule().clone();
        let source = match &self.source {
            Some(r) => r.resolve(&ax.cx()).ok(),
            None => ax.scope.this,
        };
        let raise = |ax: &mut ActCx<'_>, e: Event| ax.raise(with_source(e, source));
        let before = snapshot(ax);
        for &t in targets {
            let mut amount = eval_for(ax, &self.amount, t)?;
            if amount <= 0 || !ax.world.exists(t) {
                continue;
            }
            if replace::any(ax.gen, ev!("damaged")) {
                let e = Event::new(ev!("damaged"))
                    .target(t)
                    .amount(amount)
                    .player(owner_of(ax, t));
                let mut p = Proposed::new(with_source(e, source), None);
                replace::offer(ax, &mut p)?;
                if p.cancelled || !ax.world.exists(t) {
                    continue;
                }
                amount = p.event.amount;
            }
            // A shield absorbs the whole hit, once.
            if let Some(shield) = rule.shield_tag {
                if ax.world.untag(t, shield)? {
                    let e = Event::new(ev!("shield_broken"))
                        .target(t)
                        .amount(amount)
                        .player(owner_of(ax, t));
                    raise(ax, e);
                    continue;
                }
            }
            // Armour soaks what it can; the rest reaches health.
            if let Some(armor) = rule.armor_key {
                let have = ax.world.get_int(t, armor).max(0);
                let soaked = have.min(amount);
                if soaked > 0 {
                    ax.world.set(t, armor, Value::Int(have - soaked))?;
                    amount -= soaked;
                    let e = Event::new(ev!("armor_lost"))
                        .target(t)
                        .amount(soaked)
                        .player(owner_of(ax, t));
                    raise(ax, e);
                }
                if amount == 0 {
                    continue;
                }
            }
            ax.world.add(t, rule.damage_key, amount)?;
            let e = Event::new(ev!("damaged"))
                .target(t)
                .amount(amount)
                .player(owner_of(ax, t))
                .before(before.clone());
            raise(ax, e);
        }
        Ok(())
    }
}

#[derive(Debug)]
struct Heal(Expr);
impl Action for Heal {
    fn run(&self, ax: &mut ActCx<'_>, targets: &[ObjId]) -> Result<(), RuleError> {
        let key = ax.world.health_rule().damage_key;
        for &t in targets {
            let amount = eval_for(ax, &self.0, t)?;
            let damage = ax.world.get_int(t, key);
            let healed = amount.min(damage).max(0);
            if healed == 0 {
                continue;
            }
            ax.world.set(t, key, Value::Int(damage - healed))?;
            let e = Event::new(ev!("healed"))
                .target(t)
                .amount(healed)
                .player(owner_of(ax, t));
            raise_from_holder(ax, e);
        }
        Ok(())
    }
}

#[derive(Debug)]
struct Destroy(Sym);
impl Action for Destroy {
    fn run(&self, ax: &mut ActCx<'_>, targets: &[ObjId]) -> Result<(), RuleError> {
        // Every target leaves "at once": each event keeps the world from before any left.
        let before = snapshot(ax);
        for &t in targets {
            let Ok(o) = ax.world.object(t) else { continue };
            if o.zone == self.0 {
                continue; // already destroyed: destroying twice raises nothing
            }
            let from = o.zone;
            let Some(zone) = would_move(ax, ev!("destroyed"), t, from, self.0)? else {
                continue;
            };
            if ax.world.object(t).map_or(true, |o| o.zone == zone) {
                continue;
            }
            // The slot it leaves: once moved, `self.slot` is its place in the new zone, so
            // a deathrattle reads its old position as `event.slot`.
            let left = ax.world.slot(t);
            let from = ax.world.move_to(t, zone)?;
            let e = Event::new(ev!("destroyed"))
                .target(t)
                .player(owner_of(ax, t))
                .with("from", Value::Text(from.as_str().into()))
                .with("slot", Value::Int(left))
                .before(before.clone());
            raise_from_holder(ax, e);
        }
        Ok(())
    }
}

#[derive(Debug)]
struct Move {
    zone: Sym,
    slot: Option<Expr>,
    owner: Option<ObjRef>,
}
impl Action for Move {
    fn run(&self, ax: &mut ActCx<'_>, targets: &[ObjId]) -> Result<(), RuleError> {
        let before = snapshot(ax);
        for &t in targets {
            if !ax.world.exists(t) {
                continue;
            }
            if let Some(r) = &self.owner {
                let scope = ax.scope.with_target(t);
                let owner = r.resolve(&ax.cx().with_scope(&scope))?;
                ax.world.set_owner(t, Some(owner))?;
            }
            let from = ax.world.object(t)?.zone;
            let Some(zone) = would_move(ax, ev!("moved"), t, from, self.zone)? else {
                continue;
            };
            let at = match &self.slot {
                Some(e) => Some(eval_for(ax, e, t)?),
                None => None,
            };
            let left = ax.world.slot(t);
            let from = ax.world.move_to_slot(t, zone, at)?;
            let e = Event::new(ev!("moved"))
                .target(t)
                .player(owner_of(ax, t))
                .with("from", Value::Text(from.as_str().into()))
                .with("slot", Value::Int(left))
                .with("to", Value::Text(zone.as_str().into()))
                .before(before.clone());
            ax.raise(e);
        }
        Ok(())
    }
}

pub(super) fn changed(ax: &mut ActCx<'_>, t: ObjId, key: Sym, old: Option<Value>, new: i64) {
    let id = ev!("property_changed");
    // Most games do not listen to it: skip building the payload (three interned keys and
    // a string) when no trigger would see it.
    if ax.gen.index.listeners(id).is_empty() {
        return;
    }
    let e = Event::new(id)
        .target(t)
        .with("key", Value::Text(key.as_str().into()))
        .with("old", old.unwrap_or(Value::Int(0)))
        .with("new", Value::Int(new))
        .amount(new);
    ax.raise_if_listened(e);
}

pub(super) fn kind<F>(f: F) -> Arc<dyn ActionKind>
where
    F: Fn(&mut Params<'_, '_>) -> Result<Box<dyn Action>, ContentError> + Send + Sync + 'static,
{
    Arc::new(FnKind(f))
}

/// Registers the core actions.
pub(super) fn register(r: &mut Registry) {
    life(r);
    objects(r);
    branch(r);
    super::property_actions::properties(r);
    super::property_actions::auras(r);
    events(r);
}

/// Registers one built-in kind (a duplicate is a bug in this file).
pub(super) fn reg(
    r: &mut Registry,
    id: &str,
    doc: &str,
    params: Vec<ParamSpec>,
    imp: Arc<dyn ActionKind>,
) {
    r.actions
        .register(builtin(id, doc, params, imp))
        .unwrap_or_else(|e| panic!("{e}"));
}

/// Damage, healing and destruction.
fn life(r: &mut Registry) {
    reg(
        r,
        "core:action/damage",
        "adds to each target's `damage` and raises `core:event/damaged`",
        vec![
            ParamSpec::required("amount", T::Expr, "how much (the target is `target`)"),
            ParamSpec::optional(
                "source",
                T::Object,
                "who deals it, for the `damaged` event (default: the holder), e.g. `event.source` in combat rules",
            ),
        ],
        kind(|p| {
            Ok(Box::new(Damage {
                amount: p.expr("amount")?,
                source: p.object("source")?,
            }))
        }),
    );
    reg(
        r,
        "core:action/heal",
        "removes damage (never below 0) and raises `core:event/healed` with the amount healed",
        vec![ParamSpec::required("amount", T::Expr, "how much")],
        kind(|p| Ok(Box::new(Heal(p.expr("amount")?)))),
    );
    reg(
        r,
        "core:action/destroy",
        "moves each target to the graveyard zone and raises `core:event/destroyed`",
        vec![ParamSpec::optional(
            "zone",
            T::Name,
            "where destroyed objects go (default `graveyard`)",
        )],
        kind(|p| {
            Ok(Box::new(Destroy(
                p.opt_name("zone")?.unwrap_or_else(|| Sym::new("graveyard")),
            )))
        }),
    );
}

/// Creating and moving objects.
fn objects(r: &mut Registry) {
    reg(
        r,
        "core:action/create",
        "creates objects of a class and raises `core:event/created` for each",
        vec![
            ParamSpec::optional("class", T::Any, "the class to create, or a list of classes to pick one from at random (the world's RNG) for each object, or a selector table (as `class_of`)"),
            ParamSpec::optional("class_of", T::Selector, "instead of `class`: create an object of the class of each selected object (a copy of a card)"),
            ParamSpec::optional("otherwise", T::Id("class"), "the class to create instead of a `class` that no loaded content defines (content naming a class another mod or file may define: a generic class, told apart by `properties`); without it an undefined class is an error"),
            ParamSpec::optional("zone", T::Name, "where (default `board`)"),
            ParamSpec::optional("owner", T::Object, "who owns it (default: the holder's owner)"),
            ParamSpec::optional("unowned", T::Bool, "instead of `owner`: the new objects have no owner (default false)"),
            ParamSpec::optional("parent", T::Object, "what the new objects are attached to (e.g. `self`: a planet's buildings)"),
            ParamSpec::optional("count", T::Expr, "how many (default 1)"),
            ParamSpec::optional("limit", T::Expr, "create nothing once the owner has this many objects in the zone (e.g. `self.owner.board_limit`)"),
            ParamSpec::optional("properties", T::Table, "base properties to set on the new objects"),
            ParamSpec::optional("tags", T::Names, "tags the new objects get besides their class's (a copy of a card that is a token)"),
            ParamSpec::optional("links", T::Table, "object references resolved as the objects are created, each kept as a property naming that object (`{ context = \"event.target\" }`: a triggered ability remembering the card its event was about); a reference naming nothing sets nothing"),
            ParamSpec::optional("numbers", T::Table, "expressions evaluated as the objects are created, each kept as a number property (`{ context_amount = \"event.amount\" }`)"),
            ParamSpec::optional("slot", T::Expr, "the position in the zone (0 = first; default: the end), e.g. `event.slot` or `self.left_slot` in a deathrattle to take the destroyed holder's place"),
            ParamSpec::optional("quiet", T::Bool, "raise no `core:event/created` (default false): for objects no rule needs to hear of, such as a catalog of cards in a hidden zone, where an event per object would only cost time"),
        ],
        kind(|p| {
            // `class` may also be a selector table: the same as `class_of`.
            let (classes, class_of) = if p.raw("class").is_some_and(serde_json::Value::is_object) {
                if p.raw("class_of").is_some() {
                    return Err(p.error("class_of", "give either `class` or `class_of`, not both"));
                }
                (Vec::new(), p.selector("class")?)
            } else if let Some(other) = p.opt_id("otherwise", "class")? {
                // A class nobody defines falls back to `otherwise`, decided here: the
                // classes of a generation are known when its content compiles.
                let named = p.ids_if_defined("class", "class")?;
                let classes = named.into_iter().map(|c| c.unwrap_or(other)).collect();
                (classes, p.selector("class_of")?)
            } else {
                (p.ids("class", "class")?, p.selector("class_of")?)
            };
            if classes.is_empty() == class_of.is_none() {
                return Err(p.error(
                    "class",
                    "`create` needs exactly one of `class` (a class or a list) and `class_of` (a selector)",
                ));
            }
            let unowned = p.bool_or("unowned", false)?;
            if unowned && p.raw("owner").is_some() {
                return Err(p.error("unowned", "give either `owner` or `unowned = true`, not both"));
            }
            Ok(Box::new(Create {
                classes,
                class_of,
                zone: p.opt_name("zone")?.unwrap_or_else(|| Sym::new("board")),
                owner: p.object("owner")?,
                unowned,
                parent: p.object("parent")?,
                count: p.expr_or("count", 1.0)?,
                limit: p.opt_expr("limit")?,
                slot: p.opt_expr("slot")?,
                props: p.table("properties")?,
                tags: p.names("tags")?,
                links: p.object_table("links")?,
                numbers: p.expr_table("numbers")?,
                quiet: p.bool_or("quiet", false)?,
            }))
        }),
    );
    reg(
        r,
        "core:action/move",
        "moves each target to a zone (at the end, or at `slot`) and raises `core:event/moved`",
        vec![
            ParamSpec::required("zone", T::Name, "the zone"),
            ParamSpec::optional(
                "slot",
                T::Expr,
                "the position in the zone (0 = first; default: the end)",
            ),
            ParamSpec::optional(
                "owner",
                T::Object,
                "a new owner (e.g. `self.owner` to take control)",
            ),
        ],
        kind(|p| {
            Ok(Box::new(Move {
                zone: p.name("zone")?,
                slot: p.opt_expr("slot")?,
                owner: p.object("owner")?,
            }))
        }),
    );
}

/// `if`: actions chosen per target by a condition.
fn branch(r: &mut Registry) {
    reg(
        r,
        "core:action/if",
        "for each target, runs `then` if the condition holds for it, else `else`",
        vec![
            ParamSpec::required(
                "condition",
                T::Condition,
                "tested on each target (as `target`)",
            ),
            ParamSpec::optional("then", T::Actions, "actions when it holds"),
            ParamSpec::optional("else", T::Actions, "actions when it does not"),
        ],
        kind(|p| {
            let condition = p
                .condition("condition")?
                .ok_or_else(|| p.error("condition", "`if` needs a `condition`"))?;
            Ok(Box::new(super::flow::If {
                condition,
                then: p.actions("then")?,
                otherwise: p.actions("else")?,
            }))
        }),
    );
}

/// Raising events.
fn events(r: &mut Registry) {
    reg(
        r,
        "core:action/emit",
        "raises an event (once per target, or once if there are none), now or after `delay` ticks; one raised now is first offered to replacement effects (they may change its amount or prevent it)",
        vec![
            ParamSpec::required("event", T::Id("event"), "the event id"),
            ParamSpec::optional(
                "source",
                T::Object,
                "the event's source (default: the holder)",
            ),
            ParamSpec::optional("amount", T::Expr, "the event's amount (default 0)"),
            ParamSpec::optional("delay", T::Expr, "ticks to wait (default 0: now)"),
            ParamSpec::optional("fields", T::Table, "extra fields"),
            ParamSpec::optional("count", T::Expr, "how many times to raise it (default 1)"),
        ],
        kind(|p| {
            Ok(Box::new(super::flow::Emit {
                event: p.id("event", "event")?,
                source: p.object("source")?,
                amount: p.expr_or("amount", 0.0)?,
                delay: p.opt_expr("delay")?,
                count: p.opt_expr("count")?,
                fields: p.table("fields")?,
            }))
        }),
    );
}
