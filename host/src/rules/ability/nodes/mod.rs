//! The built-in node types (`core:node/*`), exactly the ability schema's: `base_value`,
//! `range`, `area_of_effect`, `damage`, `damage_over_time`, `condition`, `meta`.
//!
//! Each is an ordinary registry entry with a parameter schema, so content checks them
//! like any kind (unknown keys with a did-you-mean, missing keys, types), and plugins may
//! add more node types beside them.

mod condition;
mod damage;
mod values;

use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{Map, Value as Json};

pub(crate) use damage::deal_damage;
pub(crate) use values::{MetaParams, RangeParams};

use crate::id::{Id, Sym};
use crate::rules::registry::{builtin, Node, NodeKind, ParamSpec, ParamType as T, Registry};
use crate::rules::{ActCx, ContentError, Params, PathSeg, Pipeline};
use crate::state::ObjId;

/// The id of a built-in node type (`core:node/<name>`).
pub(crate) fn builtin_id(name: &str) -> Id {
    Id::from_parts("core", "node", name)
        .unwrap_or_else(|e| panic!("built-in node id `{name}`: {e}"))
}

/// A built-in node kind: a function from parameters to a prepared node.
struct BuiltinNode(fn(&mut Params<'_, '_>) -> Result<Box<dyn Node>, ContentError>);

impl NodeKind for BuiltinNode {
    fn prepare(&self, p: &mut Params<'_, '_>) -> Result<Box<dyn Node>, ContentError> {
        (self.0)(p)
    }
}

const SCALING: &str = "`{ stat, multiplier }`: adds the caster's `stat` × `multiplier`";

/// Registers the seven built-in node types.
pub(crate) fn register(r: &mut Registry) {
    type Prep = fn(&mut Params<'_, '_>) -> Result<Box<dyn Node>, ContentError>;
    let entries: Vec<(&str, &str, Vec<ParamSpec>, Prep)> = vec![
        (
            "base_value",
            "the foundational number: `amount + caster[stat] × multiplier`, stored under the node's id and as `base_value`",
            vec![
                ParamSpec::required("amount", T::Number, "the flat base value"),
                ParamSpec::required("scaling", T::Table, SCALING),
            ],
            values::base_value,
        ),
        (
            "range",
            "how far the ability reaches: the aimed target or point must be within `min`..`max` meters of the caster",
            vec![
                ParamSpec::required("min", T::Number, "minimum distance (> 0 for a dead zone)"),
                ParamSpec::required("max", T::Any, "maximum distance; `null` (TOML: `\"unlimited\"`) for no limit"),
                ParamSpec::required("unit", T::Text, "`meters`"),
                ParamSpec::required("rangeType", T::Text, "`projectile`, `hitscan`, `melee` or `aura` (centred on the caster, not checked)"),
            ],
            values::range,
        ),
        (
            "area_of_effect",
            "the impact zone: affected objects become every positioned object in the caster's zone inside the shape (the caster excepted), each scaled by the falloff",
            vec![
                ParamSpec::required("shape", T::Text, "`sphere`, `cone`, `cylinder` or `line`"),
                ParamSpec::required("radius", T::Number, "size of the area, meters"),
                ParamSpec::required("unit", T::Text, "`meters`"),
                ParamSpec::required("falloff", T::Text, "`none`, `linear` or `quadratic`"),
                ParamSpec::optional("angle_degrees", T::Number, "cone: full opening angle (default 90)"),
                ParamSpec::optional("width", T::Number, "line: full width in meters (default 1)"),
            ],
            values::area_of_effect,
        ),
        (
            "damage",
            "instant damage: every source (its own damage type and stat scaling) is applied independently to every affected object",
            vec![ParamSpec::required("sources", T::List, "`[{ damageType, base_value, scaling }]`")],
            damage::damage,
        ),
        (
            "damage_over_time",
            "repeating damage through the world scheduler: `duration_seconds / tick_interval_seconds` ticks; `stacks` true adds a stack, false resets the timer",
            vec![
                ParamSpec::required("damageType", T::Text, "damage type per tick"),
                ParamSpec::required("damage_per_tick", T::Number, "flat damage each tick"),
                ParamSpec::required("tick_interval_seconds", T::Number, "seconds between ticks"),
                ParamSpec::required("duration_seconds", T::Number, "total duration"),
                ParamSpec::required("scaling", T::Table, SCALING),
                ParamSpec::required("stacks", T::Bool, "`true`: re-applying adds a stack; `false`: resets the timer"),
            ],
            damage::damage_over_time,
        ),
        (
            "condition",
            "a status effect rolled per affected object from the world RNG: `knockback`/`pull` move it, `reduce_<stat>`/`increase_<stat>` add `magnitude` to the stat, anything else is a status tag",
            vec![
                ParamSpec::required("chance", T::Number, "probability 0.0 to 1.0"),
                ParamSpec::required("effect", T::Text, "the condition to apply"),
                ParamSpec::optional("duration_seconds", T::Number, "how long it lasts (omit for instant effects)"),
                ParamSpec::optional("magnitude", T::Number, "modifier for stat-changing effects"),
                ParamSpec::optional("force", T::Number, "meters, for `knockback` and `pull`"),
                ParamSpec::optional("direction", T::Text, "`away_from_origin`, `toward_origin` or `up`"),
            ],
            condition::condition,
        ),
        (
            "meta",
            "cooldown, mana cost, cast time and tags: checked before a cast, paid when the ability fires",
            vec![
                ParamSpec::required("cooldown_seconds", T::Number, "recharge time after use"),
                ParamSpec::required("mana_cost", T::Number, "taken from the caster's `mana`"),
                ParamSpec::required("cast_time_seconds", T::Number, "time before the ability fires (0 = instant)"),
                ParamSpec::required("tags", T::Names, "for filtering, synergies and resistances"),
            ],
            values::meta,
        ),
    ];
    for (name, doc, params, prep) in entries {
        let imp: Arc<dyn NodeKind> = Arc::new(BuiltinNode(prep));
        r.nodes
            .register(builtin(&format!("core:node/{name}"), doc, params, imp))
            .unwrap_or_else(|e| panic!("{e}"));
    }
}

/// Reads a node's parameters (the whole table, `type` aside) into a typed struct, with
/// errors at the offending key.
pub(crate) fn from_map<T: DeserializeOwned>(
    map: &Map<String, Json>,
    path: &[PathSeg],
) -> Result<T, ContentError> {
    let mut m = map.clone();
    m.shift_remove("type");
    let json = Json::Object(m);
    serde_path_to_error::deserialize::<_, T>(&json).map_err(|e| {
        let mut p = path.to_vec();
        for seg in e.path().iter() {
            match seg {
                serde_path_to_error::Segment::Map { key } => p.push(PathSeg::Key(key.clone())),
                serde_path_to_error::Segment::Seq { index } => p.push(PathSeg::Index(*index)),
                _ => {}
            }
        }
        ContentError::new("E-CONTENT-PARAM", p, e.into_inner().to_string())
    })
}

/// Reads the node's parameters being prepared.
fn params_of<T: DeserializeOwned>(p: &Params<'_, '_>) -> Result<T, ContentError> {
    from_map(p.map, &p.path)
}

/// `{ "stat": "spell_power", "multiplier": 1.5 }`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Scaling {
    stat: String,
    multiplier: f64,
}

/// A compiled scaling: `caster[stat] × multiplier`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Scale {
    stat: Sym,
    multiplier: f64,
}

impl From<&Scaling> for Scale {
    fn from(s: &Scaling) -> Scale {
        Scale {
            stat: Sym::new(&s.stat),
            multiplier: s.multiplier,
        }
    }
}

impl Scale {
    /// The caster's stat (effective value, 0 when absent) times the multiplier.
    fn of(self, ax: &ActCx<'_>, caster: Option<ObjId>) -> f64 {
        caster
            .and_then(|c| ax.world.get_number(c, self.stat))
            .unwrap_or(0.0)
            * self.multiplier
    }
}

/// The caster of the running pipeline (falls back to `self`).
fn caster(ax: &ActCx<'_>, p: &Pipeline) -> Option<ObjId> {
    p.caster.or(ax.scope.this)
}

/// The pipeline value every damage is multiplied by (1 unless a node changed it, e.g. a
/// critical hit).
pub(crate) fn damage_multiplier_key() -> Sym {
    static K: std::sync::OnceLock<Sym> = std::sync::OnceLock::new();
    *K.get_or_init(|| Sym::new("damage_multiplier"))
}

/// A parameter that must be positive (or zero when `zero_ok`).
fn non_negative(v: f64, key: &str, p: &Params<'_, '_>, zero_ok: bool) -> Result<(), ContentError> {
    let ok = v.is_finite() && (v > 0.0 || (zero_ok && v == 0.0));
    if ok {
        Ok(())
    } else {
        Err(p.error(
            key,
            format!(
                "`{key}` must be {}, found {v}",
                if zero_ok { "0 or more" } else { "more than 0" }
            ),
        ))
    }
}

/// A parameter that must be one of a closed set of words.
fn one_of<'w>(
    v: &str,
    key: &str,
    allowed: &[&'w str],
    p: &Params<'_, '_>,
) -> Result<&'w str, ContentError> {
    allowed.iter().find(|a| **a == v).copied().ok_or_else(|| {
        let mut e = p.error(key, format!("`{key}` cannot be `{v}`"));
        e = match closest(v, allowed.iter().copied()).first() {
            Some(b) => e.help(format!(
                "did you mean `{b}`? (one of: {})",
                allowed.join(", ")
            )),
            None => e.help(format!("use one of: {}", allowed.join(", "))),
        };
        e
    })
}

use crate::id::closest;
