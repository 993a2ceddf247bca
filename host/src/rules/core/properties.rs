//! `core` conditions on property values and object identity: `is` (a property equals a
//! value or another object's property, or a list property holds it — a planet's `focus`, an empire's researched
//! `techs`) and `same` (two references name the same object — "owned by the source's
//! owner" — or one names an object at all).

use std::sync::Arc;

use crate::id::Sym;
use crate::rules::expr::ObjRef;
use crate::rules::registry::{
    builtin, Condition, Deps, FnKind, ParamSpec, ParamType as T, Registry,
};
use crate::rules::{ContentError, Cx, Params, RuleError};
use crate::state::{ObjId, Value};

/// `is`: property `key` of the object (or of `of`) equals one of `values`; a list property
/// passes when it holds one of them.
#[derive(Debug)]
struct Is {
    of: Option<ObjRef>,
    key: Sym,
    values: Vec<Value>,
    /// Instead of `values`: another object's property (`like = "source.species"`).
    like: Option<(ObjRef, Sym)>,
}

impl Condition for Is {
    fn test(&self, cx: &Cx<'_>, obj: ObjId) -> Result<bool, RuleError> {
        let on = match &self.of {
            None => obj,
            Some(r) => match r.resolve(cx) {
                Ok(o) => o,
                Err(RuleError::NoObject(_)) => return Ok(false),
                Err(e) => return Err(e),
            },
        };
        let Some(v) = cx.world.base(on, self.key) else {
            return Ok(false);
        };
        let liked;
        let wanted: &[Value] = match &self.like {
            None => &self.values,
            Some((r, key)) => {
                let other = match r.resolve(cx) {
                    Ok(o) => o,
                    Err(RuleError::NoObject(_)) => return Ok(false),
                    Err(e) => return Err(e),
                };
                match cx.world.base(other, *key) {
                    Some(w) => {
                        liked = [w.clone()];
                        &liked
                    }
                    None => return Ok(false),
                }
            }
        };
        Ok(match v {
            Value::List(items) => items.iter().any(|i| matches(wanted, i)),
            one => matches(wanted, one),
        })
    }
    fn deps(&self, d: &mut Deps) {
        if let Some((r, key)) = &self.like {
            d.scope(r.base.scope_reads());
            d.structural_anywhere();
            d.key(*key);
        }
        match &self.of {
            None => d.target_key(self.key),
            Some(of) => {
                d.scope(of.base.scope_reads());
                d.structural_anywhere();
                d.key(self.key);
            }
        }
    }
}

/// Whether `v` equals one of `values` (numbers by value, whatever their type).
fn matches(values: &[Value], v: &Value) -> bool {
    values.iter().any(|w| match (w.as_f64(), v.as_f64()) {
        (Some(a), Some(b)) => a == b,
        _ => w == v,
    })
}

/// `like = "source.species"`: an object reference and the property read from it.
fn like(p: &mut Params<'_, '_>) -> Result<Option<(ObjRef, Sym)>, ContentError> {
    let Some(raw) = p.raw("like") else {
        return Ok(None);
    };
    let bad = |p: &Params<'_, '_>| {
        p.error(
            "like",
            "`like` must be an object reference and a property, as `source.species`",
        )
    };
    let Some((r, key)) = raw.as_str().and_then(|s| s.rsplit_once('.')) else {
        return Err(bad(p));
    };
    let r = ObjRef::parse(r).map_err(|e| p.error("like", e.message))?;
    let key = crate::rules::expr::check_ident(key)
        .map(|()| Sym::new(key))
        .map_err(|e| p.error("like", e))?;
    Ok(Some((r, key)))
}

/// `same`: references `a` and `b` name the same living object; without `b`, `a` names
/// a living object.
#[derive(Debug)]
struct Same {
    a: ObjRef,
    b: Option<ObjRef>,
}

impl Condition for Same {
    fn test(&self, cx: &Cx<'_>, _obj: ObjId) -> Result<bool, RuleError> {
        let resolve = |r: &ObjRef| match r.resolve(cx) {
            Ok(o) if cx.world.exists(o) => Ok(Some(o)),
            Ok(_) | Err(RuleError::NoObject(_)) => Ok(None),
            Err(e) => Err(e),
        };
        let Some(a) = resolve(&self.a)? else {
            return Ok(false);
        };
        match &self.b {
            None => Ok(true),
            Some(b) => Ok(resolve(b)? == Some(a)),
        }
    }
    fn deps(&self, d: &mut Deps) {
        d.scope(self.a.base.scope_reads());
        if let Some(b) = &self.b {
            d.scope(b.base.scope_reads());
        }
        d.structural_anywhere();
    }
}

fn kind<F>(f: F) -> Arc<FnKind<F>>
where
    F: Fn(&mut Params<'_, '_>) -> Result<Box<dyn Condition>, ContentError> + Send + Sync + 'static,
{
    Arc::new(FnKind(f))
}

/// Registers `is` and `same`.
pub(super) fn register(r: &mut Registry) {
    let is = kind(|p| {
        let like = like(p)?;
        let values = match p.raw("value") {
            Some(serde_json::Value::Array(items)) => items.iter().map(Value::from_json).collect(),
            Some(one) => Value::from_json(one).map(|v| vec![v]),
            None if like.is_some() => Some(Vec::new()),
            None => None,
        };
        if like.is_some() && p.raw("value").is_some() {
            return Err(p.error("like", "give `value` or `like`, not both"));
        }
        let values = values.ok_or_else(|| {
            p.error(
                "value",
                "`value` must be a number, text, bool or a list of them",
            )
            .help("e.g. `{ type = \"is\", key = \"focus\", value = \"research\" }`")
        })?;
        Ok(Box::new(Is {
            of: p.object("of")?,
            key: p.name("key")?,
            values,
            like,
        }) as Box<dyn Condition>)
    });
    r.conditions
        .register(builtin(
            "core:condition/is",
            "a property of the object (or of `of`) equals the value, or one of a list of values, or another object's property (`like`); a list property passes when it holds one",
            vec![
                ParamSpec::required("key", T::Name, "the property"),
                ParamSpec::optional("value", T::Any, "a value, or a list of values (or give `like`)"),
                ParamSpec::optional("like", T::Text, "instead of `value`: another object's property, `ref.key` (`source.species`)"),
                ParamSpec::optional("of", T::Object, "whose property (default: the object under test)"),
            ],
            is,
        ))
        .unwrap_or_else(|e| panic!("{e}"));
    let same = kind(|p| {
        let a = p
            .object("a")?
            .ok_or_else(|| p.error("a", "`a` is required"))?;
        Ok(Box::new(Same {
            a,
            b: p.object("b")?,
        }) as Box<dyn Condition>)
    });
    r.conditions
        .register(builtin(
            "core:condition/same",
            "references `a` and `b` name the same object (`a = \"target.owner\", b = \"source.owner\"`); without `b`, `a` names an object",
            vec![
                ParamSpec::required("a", T::Object, "an object reference"),
                ParamSpec::optional("b", T::Object, "another"),
            ],
            same,
        ))
        .unwrap_or_else(|e| panic!("{e}"));
}
