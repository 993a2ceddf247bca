//! `core:action/create`: new objects of a class — one class, one picked at random from a
//! list (the world's RNG, or the controller's scripted draw: `rules::random_draw`), or the class of each selected object (a copy) — in a zone, at a
//! slot, up to a limit, remembering objects and numbers of the moment (`links`,
//! `numbers`); `core:event/created` for each.

use crate::bus::Event;
use crate::id::{Id, Sym};
use crate::rules::expr::{Expr, ObjRef};
use crate::rules::registry::Action;
use crate::rules::{ActCx, RuleError};
use crate::state::{ObjId, Value};

use super::actions::raise_from_holder;
use super::instantiate;

/// `core:event/created`, interned once.
fn created() -> Id {
    static ID: std::sync::OnceLock<Id> = std::sync::OnceLock::new();
    *ID.get_or_init(|| {
        Id::parse("core:event/created").unwrap_or_else(|e| panic!("core event id: {e}"))
    })
}

#[derive(Debug)]
pub(super) struct Create {
    /// The classes to create from: one, or several (one picked at random per object).
    pub(super) classes: Vec<Id>,
    /// Create the class of each selected object instead (a copy of a card).
    pub(super) class_of: Option<crate::rules::select::Select>,
    pub(super) zone: Sym,
    pub(super) owner: Option<ObjRef>,
    /// The new objects have no owner (a monster an effect creates).
    pub(super) unowned: bool,
    /// What the new objects are attached to (a building to its planet).
    pub(super) parent: Option<ObjRef>,
    pub(super) count: Expr,
    pub(super) limit: Option<Expr>,
    pub(super) slot: Option<Expr>,
    pub(super) props: Vec<(Sym, Value)>,
    /// Tags the new objects get besides their class's (a copy that is a token).
    pub(super) tags: Vec<Sym>,
    /// Properties naming objects of the moment of creation (`event.target`).
    pub(super) links: Vec<(Sym, ObjRef)>,
    /// Number properties evaluated at the moment of creation (`event.amount`).
    pub(super) numbers: Vec<(Sym, Expr)>,
    /// Raise no `created` events (a catalog in a hidden zone that no rule hears of).
    pub(super) quiet: bool,
}
impl Action for Create {
    fn run(&self, ax: &mut ActCx<'_>, _targets: &[ObjId]) -> Result<(), RuleError> {
        let cx = ax.cx();
        let owner = match &self.owner {
            _ if self.unowned => None,
            Some(r) => Some(r.resolve(&cx)?),
            // The acting player: the holder (or its owner), else the event's player.
            None => super::acting_player(&cx),
        };
        let parent = match &self.parent {
            Some(r) => Some(r.resolve(&cx)?),
            None => None,
        };
        let count = self.count.eval_int(&cx)?.clamp(0, 1000);
        let limit = match &self.limit {
            Some(l) => Some(l.eval_int(&cx)?),
            None => None,
        };
        let mut slot = match &self.slot {
            Some(s) => Some(s.eval_int(&cx)?),
            None => None,
        };
        let remembered = self.remembered(&cx)?;
        let mut copied = Vec::new();
        if let Some(sel) = &self.class_of {
            let mut objs = Vec::new();
            crate::rules::registry::Selector::select(sel, &cx, &mut objs)?;
            copied = objs
                .iter()
                .filter_map(|o| ax.world.object(*o).ok().map(|o| o.class))
                .collect();
        }
        let rounds: Vec<Option<Id>> = if self.class_of.is_some() {
            (0..count)
                .flat_map(|_| copied.iter().map(|c| Some(*c)))
                .collect()
        } else {
            (0..count).map(|_| None).collect()
        };
        for pick in rounds {
            let class = match pick {
                Some(c) => c,
                None if self.classes.len() == 1 => self.classes[0],
                None => {
                    let labels: Vec<String> = self.classes.iter().map(Id::to_string).collect();
                    let draw = crate::controller::RandomDraw::OneOf(&labels);
                    let i = crate::rules::random_draw(&ax.cx(), &draw)?;
                    self.classes[usize::try_from(i).unwrap_or(0)]
                }
            };
            if let Some(limit) = limit {
                let present = ax.world.group_len(self.zone, owner);
                if i64::try_from(present).unwrap_or(i64::MAX) >= limit {
                    tracing::debug!(class = %class, zone = %self.zone, limit, "zone is full; nothing created");
                    break;
                }
            }
            let id = instantiate(ax.world, ax.gen, class, owner, self.zone)?;
            if parent.is_some() {
                ax.world.set_parent(id, parent)?;
            }
            if let Some(at) = slot {
                ax.world.move_to_slot(id, self.zone, Some(at))?;
                // Several created at a slot stand side by side, in creation order.
                slot = Some(at + 1);
            }
            for (k, v) in &self.props {
                ax.world.set(id, *k, v.clone())?;
            }
            for t in &self.tags {
                ax.world.tag(id, *t)?;
            }
            for (k, v) in &remembered {
                ax.world.set(id, *k, v.clone())?;
            }
            if !self.quiet {
                let e = Event::new(created()).target(id).player(owner);
                raise_from_holder(ax, e);
            }
        }
        Ok(())
    }
}

impl Create {
    /// The `links` and `numbers`, evaluated where the objects are created (before any
    /// exists: `event.target` is the event's, not a new object's). A link naming no
    /// object is left out.
    fn remembered(&self, cx: &crate::rules::Cx<'_>) -> Result<Vec<(Sym, Value)>, RuleError> {
        let mut out = Vec::with_capacity(self.links.len() + self.numbers.len());
        for (k, r) in &self.links {
            match r.resolve(cx) {
                Ok(o) if cx.world.exists(o) => out.push((*k, Value::Obj(o))),
                Ok(_) | Err(RuleError::NoObject(_)) => {}
                Err(e) => return Err(e),
            }
        }
        for (k, e) in &self.numbers {
            out.push((*k, Value::float(e.eval(cx)?)));
        }
        Ok(out)
    }
}
