//! `core` actions on an object's base properties, tags and given auras: `set`, `add`,
//! `tag`, `untag`, `give_aura`, `remove_aura`.

use std::sync::Arc;

use super::actions::{changed, ev, eval_decimal, eval_for, kind, owner_of, reg, with_source};
use crate::bus::Event;
use crate::id::{Id, Sym};
use crate::rules::expr::Expr;
use crate::rules::registry::{Action, ParamSpec, ParamType as T, Registry};
use crate::rules::{ActCx, RuleError};
use crate::state::{ObjId, Value};

#[derive(Debug)]
struct SetProp {
    key: Sym,
    value: Expr,
}
impl Action for SetProp {
    fn run(&self, ax: &mut ActCx<'_>, targets: &[ObjId]) -> Result<(), RuleError> {
        for &t in targets {
            // A decimal property (its base a decimal number) stays decimal.
            if let Some(Value::Float(_)) = ax.world.base(t, self.key) {
                let v = eval_decimal(ax, &self.value, t)?;
                let old = ax.world.set(t, self.key, Value::float(v))?;
                changed(ax, t, self.key, old, v.floor() as i64);
                continue;
            }
            let v = eval_for(ax, &self.value, t)?;
            let old = ax.world.set(t, self.key, Value::Int(v))?;
            changed(ax, t, self.key, old, v);
        }
        Ok(())
    }
}

/// `set` with `text`: a text value for each target.
#[derive(Debug)]
struct SetText {
    key: Sym,
    text: Arc<str>,
}
impl Action for SetText {
    fn run(&self, ax: &mut ActCx<'_>, targets: &[ObjId]) -> Result<(), RuleError> {
        for &t in targets {
            ax.world.set(t, self.key, Value::Text(self.text.clone()))?;
        }
        Ok(())
    }
}

#[derive(Debug)]
struct AddProp {
    key: Sym,
    amount: Expr,
    /// The event this addition is (`would`): offered to replacement effects first (they
    /// may change the amount or prevent it), raised once done.
    would: Option<Id>,
}
impl Action for AddProp {
    fn run(&self, ax: &mut ActCx<'_>, targets: &[ObjId]) -> Result<(), RuleError> {
        for &t in targets {
            let old = ax.world.base(t, self.key).cloned();
            if let Some(Value::Float(x)) = old {
                let v = x + eval_decimal(ax, &self.amount, t)?;
                ax.world.set(t, self.key, Value::float(v))?;
                changed(ax, t, self.key, old, v.floor() as i64);
                continue;
            }
            let mut a = eval_for(ax, &self.amount, t)?;
            let mut done = None;
            if let Some(id) = self.would {
                let e = Event::new(id).target(t).player(owner_of(ax, t)).amount(a);
                let Some(e) = super::flow::would_happen(ax, with_source(e, ax.scope.this))? else {
                    continue;
                };
                a = e.amount;
                done = Some(e);
            }
            let new = ax.world.add(t, self.key, a)?;
            changed(ax, t, self.key, old, new);
            if let Some(e) = done {
                ax.raise(e);
            }
        }
        Ok(())
    }
}

#[derive(Debug)]
struct Tag {
    tags: Vec<Sym>,
    add: bool,
}
impl Action for Tag {
    fn run(&self, ax: &mut ActCx<'_>, targets: &[ObjId]) -> Result<(), RuleError> {
        let id = if self.add {
            ev!("tagged")
        } else {
            ev!("untagged")
        };
        for &t in targets {
            for &tag in &self.tags {
                let changed = if self.add {
                    ax.world.tag(t, tag)?
                } else {
                    ax.world.untag(t, tag)?
                };
                // Most games do not listen: no payload is built unless a trigger would
                // hear it.
                if changed && !ax.gen.index.listeners(id).is_empty() {
                    let e = Event::new(id)
                        .target(t)
                        .player(owner_of(ax, t))
                        .with("tag", Value::Text(tag.as_str().into()));
                    ax.raise(with_source(e, ax.scope.this));
                }
            }
        }
        Ok(())
    }
}

#[derive(Debug)]
struct GiveAura {
    aura: Id,
    /// Fix the modifiers' values as they are now, seen from each target.
    freeze: bool,
}
impl Action for GiveAura {
    fn run(&self, ax: &mut ActCx<'_>, targets: &[ObjId]) -> Result<(), RuleError> {
        for &t in targets {
            let frozen = if self.freeze {
                let def = ax.gen.auras.get(&self.aura).ok_or_else(|| {
                    RuleError::Failed(format!(
                        "aura `{}` is not defined in this generation",
                        self.aura
                    ))
                })?;
                // As the aura will see it: the target is its holder (`self`), the giver
                // its source.
                let scope = crate::rules::Scope {
                    this: Some(t),
                    source: ax.scope.this,
                    target: Some(t),
                    ..crate::rules::Scope::default()
                };
                let cx = ax.cx().with_scope(&scope);
                let values = def
                    .modifiers
                    .iter()
                    .map(|m| m.value.eval(&cx))
                    .collect::<Result<Vec<f64>, _>>()?;
                Some(Arc::from(values))
            } else {
                None
            };
            ax.world
                .give_aura_frozen(self.aura, t, ax.scope.this, frozen)?;
        }
        Ok(())
    }
}

#[derive(Debug)]
struct RemoveAura(Id);
impl Action for RemoveAura {
    fn run(&self, ax: &mut ActCx<'_>, targets: &[ObjId]) -> Result<(), RuleError> {
        ax.world
            .remove_auras(|a| a.def == self.0 && targets.contains(&a.holder));
        Ok(())
    }
}

/// Base properties and tags.
pub(super) fn properties(r: &mut Registry) {
    reg(
        r,
        "core:action/set",
        "sets a base property of each target",
        vec![
            ParamSpec::required("key", T::Name, "the property"),
            ParamSpec::optional("value", T::Expr, "the new value (a number)"),
            ParamSpec::optional(
                "text",
                T::Text,
                "instead of `value`: the new text (a focus, a name)",
            ),
        ],
        kind(|p| {
            let key = p.name("key")?;
            if let Some(text) = p.opt_text("text")? {
                return Ok(Box::new(SetText {
                    key,
                    text: text.into(),
                }) as Box<dyn Action>);
            }
            if p.raw("value").is_none() {
                return Err(p.error("value", "`set` needs a `value` (a number) or a `text`")
                    .help("e.g. `{ type = \"set\", key = \"attack\", value = 3 }` or `{ type = \"set\", key = \"focus\", text = \"industry\" }`"));
            }
            Ok(Box::new(SetProp {
                key,
                value: p.expr("value")?,
            }))
        }),
    );
    reg(
        r,
        "core:action/add",
        "adds to a base property of each target (negative to subtract)",
        vec![
            ParamSpec::required("key", T::Name, "the property"),
            ParamSpec::required("amount", T::Expr, "how much"),
            ParamSpec::optional(
                "would",
                T::Id("event"),
                "an event this addition is (\"counters are put\"): offered to replacement effects first (with the amount; they may change or prevent it), raised once done; whole-number properties",
            ),
        ],
        kind(|p| {
            Ok(Box::new(AddProp {
                key: p.name("key")?,
                amount: p.expr("amount")?,
                would: p.opt_id("would", "event")?,
            }))
        }),
    );
    reg(
        r,
        "core:action/tag",
        "adds a tag (or tags) to each target",
        vec![ParamSpec::required("tag", T::Names, "the tag or tags")],
        kind(|p| {
            Ok(Box::new(Tag {
                tags: p.names("tag")?,
                add: true,
            }))
        }),
    );
    reg(
        r,
        "core:action/untag",
        "removes a tag (or tags) from each target",
        vec![ParamSpec::required("tag", T::Names, "the tag or tags")],
        kind(|p| {
            Ok(Box::new(Tag {
                tags: p.names("tag")?,
                add: false,
            }))
        }),
    );
}

/// Giving and removing auras.
pub(super) fn auras(r: &mut Registry) {
    reg(
        r,
        "core:action/give_aura",
        "gives each target an aura (it becomes the aura's holder)",
        vec![
            ParamSpec::required("aura", T::Aura, "an aura name or an inline aura table"),
            ParamSpec::optional(
                "freeze",
                T::Bool,
                "fix the modifiers' values as they are when given, seen from the target (\"+X attack, X as it was then\"); default: evaluated live",
            ),
        ],
        kind(|p| {
            Ok(Box::new(GiveAura {
                aura: p.aura("aura")?,
                freeze: p.bool_or("freeze", false)?,
            }))
        }),
    );
    reg(
        r,
        "core:action/remove_aura",
        "removes an aura given to each target",
        vec![ParamSpec::required("aura", T::Aura, "the aura name")],
        kind(|p| Ok(Box::new(RemoveAura(p.aura("aura")?)))),
    );
}
