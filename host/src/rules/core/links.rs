//! Object references kept in properties: `core:action/link` stores a selected object in
//! a property (a spell on a stack remembers the target chosen when it was cast), and
//! `core:selector/object` selects the object a reference names (`self.chosen`), so the
//! reference can be followed — and re-checked with `where` — later; `core:action/attach`
//! changes what an object is attached to (its `parent`).

use std::sync::Arc;

use crate::rules::expr::ObjRef;
use crate::rules::registry::{
    builtin, Action, Deps, FnKind, ParamSpec, ParamType as T, Registry, Selector, SelectorKind,
};
use crate::rules::select::Select;
use crate::rules::{ActCx, ContentError, Cx, Params, RuleError};
use crate::state::{ObjId, Value};

/// Stores the first object `object` selects in property `key` of each target (removes
/// the property when it selects none).
#[derive(Debug)]
struct Link {
    key: crate::id::Sym,
    object: Select,
}

impl Action for Link {
    fn run(&self, ax: &mut ActCx<'_>, targets: &[ObjId]) -> Result<(), RuleError> {
        let mut found = Vec::new();
        self.object.select(&ax.cx(), &mut found)?;
        for &t in targets {
            match found.first() {
                Some(&o) => ax.world.set(t, self.key, Value::Obj(o))?,
                None => ax.world.unset(t, self.key)?,
            };
        }
        Ok(())
    }
}

/// Attaches each target to the first object `parent` selects: its new `parent` (a fleet
/// moved to another system). An object is never attached to itself or below itself.
#[derive(Debug)]
struct Attach {
    parent: Select,
}

impl Action for Attach {
    fn run(&self, ax: &mut ActCx<'_>, targets: &[ObjId]) -> Result<(), RuleError> {
        let mut found = Vec::new();
        self.parent.select(&ax.cx(), &mut found)?;
        let Some(&parent) = found.first() else {
            return Ok(());
        };
        for &t in targets {
            // The new parent must not be the target or one of its descendants.
            let mut up = Some(parent);
            let mut below_itself = false;
            while let Some(a) = up {
                if a == t {
                    below_itself = true;
                    break;
                }
                up = ax.world.object(a).ok().and_then(|o| o.parent);
            }
            if !below_itself {
                ax.world.set_parent(t, Some(parent))?;
            }
        }
        Ok(())
    }
}

/// Selects the object a reference names, if it still exists.
#[derive(Debug)]
struct Named(ObjRef);

impl Selector for Named {
    fn select(&self, cx: &Cx<'_>, out: &mut Vec<ObjId>) -> Result<(), RuleError> {
        // A reference to nothing (never linked, or cleared) selects nothing.
        if let Ok(o) = self.0.resolve(cx) {
            if cx.world.exists(o) {
                out.push(o);
            }
        }
        Ok(())
    }
    fn deps(&self, d: &mut Deps) {
        d.structural_anywhere();
        d.everything = true;
    }
}

struct NamedKind;

impl SelectorKind for NamedKind {
    fn prepare(&self, p: &mut Params<'_, '_>) -> Result<Box<dyn Selector>, ContentError> {
        let r = p
            .object("object")?
            .ok_or_else(|| p.error("object", "`object` is required"))?;
        Ok(Box::new(Named(r)))
    }
}

/// Registers `link`, `attach` and `object`.
pub(super) fn register(r: &mut Registry) {
    r.actions
        .register(builtin(
            "core:action/attach",
            "attaches each target to the first object `parent` selects (its new parent: a fleet moved into a system, a planet into another); nothing when it selects none; an object is never attached to itself or below itself",
            vec![ParamSpec::required("parent", T::Selector, "the new parent (its first object; e.g. with `pick = \"random\"`)")],
            Arc::new(FnKind(|p: &mut Params<'_, '_>| -> Result<Box<dyn Action>, ContentError> {
                Ok(Box::new(Attach {
                    parent: p.selector("parent")?.ok_or_else(|| p.error("parent", "`parent` is required"))?,
                }))
            })),
        ))
        .unwrap_or_else(|e| panic!("{e}"));
    r.actions
        .register(builtin(
            "core:action/link",
            "stores the first object `object` selects in property `key` of each target (an object reference: `self.KEY.power`, `{ type = \"object\", object = \"self.KEY\" }`); removes the property when it selects none",
            vec![
                ParamSpec::required("key", T::Name, "the property"),
                ParamSpec::required("object", T::Selector, "the object to remember (e.g. with `pick = \"chosen\"`)"),
            ],
            Arc::new(FnKind(|p: &mut Params<'_, '_>| -> Result<Box<dyn Action>, ContentError> {
                Ok(Box::new(Link {
                    key: p.name("key")?,
                    object: p.selector("object")?.ok_or_else(|| p.error("object", "`object` is required"))?,
                }))
            })),
        ))
        .unwrap_or_else(|e| panic!("{e}"));
    r.selectors
        .register(builtin(
            "core:selector/object",
            "the object a reference names (`self.chosen`, `event.target.owner`), if it exists; add `where` to re-check it",
            vec![ParamSpec::required("object", T::Object, "the reference")],
            Arc::new(NamedKind),
        ))
        .unwrap_or_else(|e| panic!("{e}"));
}
