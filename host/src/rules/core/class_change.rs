//! `core:action/become`: an object takes another class — a copy ("enters as a copy of a
//! creature"), a double-faced card turning over. Its class-given properties and tags are
//! replaced by the new class's ([`rebase`], the same rule a hot reload applies when a
//! class changes); what play gave it (damage, counters, tags such as `tapped`) and
//! class-given values the game has since changed stay. The object keeps its id, zone,
//! owner and timestamp; its class's triggers, auras and replacements are the new class's
//! from then on.

use std::sync::Arc;

use crate::id::Id;
use crate::rules::compile::ClassDef;
use crate::rules::params::Params;
use crate::rules::registry::{builtin, Action, FnKind, ParamSpec, ParamType as T, Registry};
use crate::rules::select::Select;
use crate::rules::{ActCx, ContentError, RuleError};
use crate::state::{ObjId, StateError, World};

/// Replaces on `obj` what class `old` gave by what class `new` gives: each base property
/// of `old` still at its class value is set to `new`'s value (or removed when `new` has
/// none), each property only `new` has is set unless the object has it already, and
/// `old`'s tags give way to `new`'s. Returns how many properties and tags changed.
pub(crate) fn rebase(
    world: &mut World,
    obj: ObjId,
    old: &ClassDef,
    new: &ClassDef,
) -> Result<usize, StateError> {
    let mut changed = 0;
    for (k, old_v) in &old.props {
        if world.base(obj, *k) != Some(old_v) {
            continue; // the game changed it: keep
        }
        match new.props.iter().find(|(nk, _)| nk == k) {
            Some((_, new_v)) if new_v != old_v => {
                world.set(obj, *k, new_v.clone())?;
                changed += 1;
            }
            Some(_) => {}
            None => {
                world.unset(obj, *k)?;
                changed += 1;
            }
        }
    }
    for (k, new_v) in &new.props {
        if !old.props.iter().any(|(ok, _)| ok == k) && world.base(obj, *k).is_none() {
            world.set(obj, *k, new_v.clone())?;
            changed += 1;
        }
    }
    for t in old.tags.iter().filter(|t| !new.tags.contains(t)) {
        if world.untag(obj, *t)? {
            changed += 1;
        }
    }
    for t in new.tags.iter().filter(|t| !old.tags.contains(t)) {
        if world.tag(obj, *t)? {
            changed += 1;
        }
    }
    Ok(changed)
}

#[derive(Debug)]
struct Become {
    /// The class to take.
    class: Option<Id>,
    /// Or the class of the first object this selects (a copy of it).
    class_of: Option<Select>,
}

impl Action for Become {
    fn run(&self, ax: &mut ActCx<'_>, targets: &[ObjId]) -> Result<(), RuleError> {
        let class = match (&self.class, &self.class_of) {
            (Some(c), _) => *c,
            (None, Some(sel)) => {
                let mut found = Vec::new();
                crate::rules::registry::Selector::select(sel, &ax.cx(), &mut found)?;
                match found.first().and_then(|o| ax.world.object(*o).ok()) {
                    Some(o) => o.class,
                    None => return Ok(()), // nothing to copy
                }
            }
            (None, None) => return Ok(()),
        };
        let gen = ax.gen;
        let new = gen.class(class).ok_or_else(|| {
            RuleError::Failed(format!(
                "`become`: class `{class}` is not defined in this generation"
            ))
        })?;
        for &t in targets {
            let Ok(old_class) = ax.world.object(t).map(|o| o.class) else {
                continue;
            };
            if old_class == class {
                continue;
            }
            if let Some(old) = gen.class(old_class) {
                rebase(ax.world, t, old, new)?;
            }
            ax.world.set_class(t, class)?;
        }
        Ok(())
    }
}

/// Registers `become`.
pub(super) fn register(r: &mut Registry) {
    r.actions
        .register(builtin(
            "core:action/become",
            "each target becomes an object of `class` (or of the class of the first object `class_of` selects: a copy): the properties and tags its old class gave are replaced by the new class's; what play gave it stays",
            vec![
                ParamSpec::optional("class", T::Id("class"), "the class to become"),
                ParamSpec::optional("class_of", T::Selector, "instead of `class`: the class of the first object selected (nothing happens when none is)"),
            ],
            Arc::new(FnKind(|p: &mut Params<'_, '_>| -> Result<Box<dyn Action>, ContentError> {
                let class = p.opt_id("class", "class")?;
                let class_of = p.selector("class_of")?;
                if class.is_some() == class_of.is_some() {
                    return Err(p.error("class", "`become` needs exactly one of `class` and `class_of`"));
                }
                Ok(Box::new(Become { class, class_of }))
            })),
        ))
        .unwrap_or_else(|e| panic!("{e}"));
}
