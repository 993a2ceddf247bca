//! Abilities: the ability schema as a content format, and the pipeline engine that runs
//! it.
//!
//! An ability (`{"abilities": {"id", "displayName", "description", "math": [...]}}` in a
//! content file, JSON or TOML) is an ordered list of **nodes** run top to bottom over one
//! shared [`Pipeline`]: the caster, the aimed object or point, the affected objects and
//! how strongly each is affected, the values earlier nodes produced, the tags, and what
//! was dealt. Node types are registry entries (`core:node/*` built in; wasm plugins and
//! native extensions add more through the same [`crate::rules::registry::NodeKind`] trait), so
//! their parameters are checked at load like any kind's.
//!
//! Owns: the format and its rules (`format`), compiled abilities (`def`), the pipeline
//! context (`pipeline`), the seven built-in node types (`nodes`), casting — checks,
//! [`Game::cast`](crate::Game::cast), `core:action/cast` (`cast`) — and ability time
//! through the world scheduler (`timer`). It never reads files (content arrives through
//! the compiler) and touches the world only inside commands.
//!
//! # Time
//!
//! Seconds in the schema become scheduler ticks: [`TICKS_PER_SECOND`] = 10, so
//! `ticks = round(seconds × 10)`. Cooldowns are stored on the caster as the tick the
//! ability is ready again (`cooldown.<ability id>`).
//!
//! # Space
//!
//! Positions are 3D coordinates in meters, stored as the `x`, `y`, `z` properties of an
//! object ([`crate::state::Coords`]; `z` may be left out in 2D games). Ranges measure the
//! straight-line distance from the caster to the aimed point; an area hits every
//! positioned object in the caster's zone inside its shape, the caster excepted.
//!
//! # Casting
//!
//! A cast is one command: refused when the caster is casting, the cooldown runs, the
//! `mana` property is below the cost, or the aim is out of range; otherwise the nodes
//! run in order (the `meta` node pays and starts the cooldown) and any error rolls it
//! all back. With `cast_time_seconds` > 0 the ability fires that much later, checked
//! again then. Events: `core:event/ability_cast`, `cast_started`, `cast_refused`,
//! `condition_applied`, `condition_expired`, and `damaged` (extra `damage_type`).

pub(crate) mod cast;
mod def;
pub(crate) mod format;
pub(crate) mod nodes;
mod pipeline;
mod timer;

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

pub use cast::{precheck, run_pipeline, Aim, CastError};
pub use def::{
    cooldown_key, ticks, AbilityBook, AbilityDef, AbilityNode, Meta, RangeSpec, RangeType,
    TICKS_PER_SECOND,
};
pub use pipeline::{Area, Falloff, Hit, Pipeline, Shape};

pub(crate) use format::{compile_file, Translations};
pub(crate) use timer::install;

use crate::id::Id;
use crate::rules::registry::{
    builtin, ActionKind, FnKind, ParamSpec, ParamType as T, Provider, Registry,
};

/// The events abilities raise, with their meaning.
pub const EVENTS: &[(&str, &str)] = &[
    (
        "ability_cast",
        "an ability fired (source = caster, target = aimed object; amount = instant damage dealt; extra ability)",
    ),
    (
        "cast_started",
        "a cast with a cast time began (source = caster, target = aimed object; amount = ticks to go; extra ability)",
    ),
    (
        "cast_refused",
        "a cast was refused (source = caster; extra ability, reason)",
    ),
    (
        "condition_applied",
        "an ability's condition landed (source = caster, target; amount = magnitude or force; extra effect)",
    ),
    (
        "condition_expired",
        "a timed condition ended (target; extra effect)",
    ),
    (
        "ability_timer",
        "internal: an ability timer fell due (damage over time tick, condition end, cast completion); handled by the host",
    ),
];

/// The id of a core event (cached: it is raised in hot loops).
pub(crate) fn event_id(name: &str) -> Id {
    static IDS: OnceLock<HashMap<&'static str, Id>> = OnceLock::new();
    let ids = IDS.get_or_init(|| {
        EVENTS
            .iter()
            .map(|(n, _)| *n)
            .chain(["damaged"])
            .map(|n| {
                let id = Id::from_parts("core", "event", n)
                    .unwrap_or_else(|e| panic!("core event id `{n}`: {e}"));
                (n, id)
            })
            .collect()
    });
    ids.get(name).copied().unwrap_or_else(|| {
        Id::from_parts("core", "event", name)
            .unwrap_or_else(|e| panic!("core event id `{name}`: {e}"))
    })
}

/// Registers the built-in node types, the ability events and `core:action/cast`.
pub(crate) fn register(r: &mut Registry) {
    nodes::register(r);
    for (name, doc) in EVENTS {
        r.register_event(event_id(name), doc, Provider::BuiltIn)
            .unwrap_or_else(|e| panic!("{e}"));
    }
    let cast: Arc<dyn ActionKind> = Arc::new(FnKind(cast::prepare_cast));
    r.actions
        .register(builtin(
            "core:action/cast",
            "`self` uses an ability at each target (or at the point `x`, `y`, `z`, or at nothing), as `Game::cast` does",
            vec![
                ParamSpec::required("ability", T::Text, "the ability's id (`original:fire/fireball`)"),
                ParamSpec::optional("x", T::Expr, "aim at this point instead of the targets"),
                ParamSpec::optional("y", T::Expr, "aim at this point instead of the targets"),
                ParamSpec::optional("z", T::Expr, "aim at this point instead of the targets"),
                ParamSpec::optional("skip_if_refused", T::Bool, "a refused cast raises `core:event/cast_refused` instead of failing the command (default false)"),
            ],
            cast,
        ))
        .unwrap_or_else(|e| panic!("{e}"));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_core_registry_has_the_schemas_node_types_and_cast() {
        let r = Registry::with_core();
        for name in [
            "base_value",
            "range",
            "area_of_effect",
            "damage",
            "damage_over_time",
            "condition",
            "meta",
        ] {
            let entry = r.nodes.get(nodes::builtin_id(name)).expect(name);
            assert!(
                entry.params.iter().any(|p| p.required),
                "{name} has a parameter schema"
            );
        }
        assert!(r
            .actions
            .get(Id::parse("core:action/cast").unwrap())
            .is_some());
        for (name, _) in EVENTS {
            assert!(r.events.get(event_id(name)).is_some(), "{name}");
        }
    }
}
