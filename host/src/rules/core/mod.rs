//! The built-in `core` vocabulary: actions, conditions, selectors, events and the TOML
//! and JSON content loaders, all registered as ordinary registry entries.

mod actions;
mod choices;
pub(crate) mod class_change;
mod conditions;
mod connected;
mod containment;
mod create;
mod effects;
mod flow;
pub(crate) mod graph;
mod lanes;
mod links;
mod loaders;
mod motion;
mod nearest;
mod passes;
mod properties;
mod property_actions;
mod selectors;
mod spatial;

use crate::id::{Id, Sym};
use crate::rules::registry::{Provider, Registry};
use crate::rules::{Cx, Generation, RuleError};
use crate::state::{ObjId, World};

/// Registers every `core` entry.
pub fn register(r: &mut Registry) {
    actions::register(r);
    effects::register(r);
    links::register(r);
    nearest::register(r);
    choices::register(r);
    class_change::register(r);
    conditions::register(r);
    spatial::register(r);
    connected::register(r);
    motion::register(r);
    containment::register(r);
    lanes::register(r);
    selectors::register(r);
    loaders::register(r);
    passes::register(r);
    properties::register(r);
    for (id, doc) in crate::bus::core_events::ALL {
        let id = Id::parse(id).unwrap_or_else(|e| panic!("core event id: {e}"));
        r.register_event(id, doc, Provider::BuiltIn)
            .unwrap_or_else(|e| panic!("{e}"));
    }
}

/// `friendly` / `enemy` / `any`, relative to the holder's owner.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Relation {
    /// Owned by the holder's owner (or is that player).
    Friendly,
    /// Owned by another player (or is another player).
    Enemy,
    /// Anything.
    Any,
}

impl Relation {
    /// Parses `friendly`, `enemy`, `any`.
    pub fn parse(s: &str) -> Option<Relation> {
        Some(match s {
            "friendly" => Relation::Friendly,
            "enemy" => Relation::Enemy,
            "any" | "all" | "both" => Relation::Any,
            _ => return None,
        })
    }
}

/// The `player` tag, interned once (it is tested on hot paths).
pub(crate) fn player_tag() -> Sym {
    static TAG: std::sync::OnceLock<Sym> = std::sync::OnceLock::new();
    *TAG.get_or_init(|| Sym::new("player"))
}

/// The player an object stands for: itself if it is a player, else its owner.
pub(crate) fn side_of(world: &World, obj: ObjId) -> Option<ObjId> {
    world.tagged_or_owner(obj, player_tag())
}

/// The player the holder acts for: the holder itself if it is a player, else its owner;
/// without a holder, the event's player.
pub fn acting_player(cx: &Cx<'_>) -> Option<ObjId> {
    match cx.scope.this {
        Some(t) => side_of(cx.world, t),
        None => cx.scope.player,
    }
}

/// Whether an object (with `owner`) stands in `rel` to the acting player.
pub(crate) fn owner_relation(cx: &Cx<'_>, owner: Option<ObjId>, obj: ObjId, rel: Relation) -> bool {
    if rel == Relation::Any {
        return true;
    }
    owner_relation_of(cx, acting_player(cx), owner, obj, rel)
}

/// [`owner_relation`] with the acting player already known (`me`).
pub(crate) fn owner_relation_of(
    cx: &Cx<'_>,
    me: Option<ObjId>,
    owner: Option<ObjId>,
    obj: ObjId,
    rel: Relation,
) -> bool {
    if rel == Relation::Any {
        return true;
    }
    // A player has no owner; an owned object is never a player.
    let side = if owner.is_none() && cx.world.has_tag(obj, player_tag()) {
        Some(obj)
    } else {
        owner
    };
    match (rel, me, side) {
        (Relation::Friendly, Some(me), Some(side)) => me == side,
        (Relation::Enemy, Some(me), Some(side)) => me != side,
        _ => false,
    }
}

/// Creates an object of a class: base properties and tags from the definition. Raises
/// nothing (the `create` action raises `created`; scenario setup raises nothing).
pub fn instantiate(
    world: &mut World,
    gen: &Generation,
    class: Id,
    owner: Option<ObjId>,
    zone: Sym,
) -> Result<ObjId, RuleError> {
    let def = gen.class(class).ok_or_else(|| {
        RuleError::Failed(format!("class `{class}` is not defined in this generation"))
    })?;
    Ok(world.create_from(class, owner, zone, &def.blueprint)?)
}
