//! `core` selectors: `self`, `source`, `target`, `owner`, `objects`, `players`.

use std::sync::Arc;

use super::{acting_player, owner_relation_of, Relation};
use crate::id::{Id, Sym};
use crate::rules::expr::{Base, ObjRef};
use crate::rules::registry::{
    builtin, Deps, ParamSpec, ParamType as T, Registry, Selector, SelectorKind,
};
use crate::rules::{ContentError, Cx, Params, RuleError};
use crate::state::{ObjId, ScopeReads};

/// Selects one object named by a reference (`self`, `source`, `target`, `self.owner`).
#[derive(Debug)]
struct RefSelector(ObjRef);

impl Selector for RefSelector {
    fn select(&self, cx: &Cx<'_>, out: &mut Vec<ObjId>) -> Result<(), RuleError> {
        // An absent object selects nothing (a trigger without a target is not an error).
        if let Ok(o) = self.0.resolve(cx) {
            if cx.world.exists(o) {
                out.push(o);
            }
        }
        Ok(())
    }
    fn count(&self, cx: &Cx<'_>) -> Result<usize, RuleError> {
        Ok(usize::from(
            self.0.resolve(cx).is_ok_and(|o| cx.world.exists(o)),
        ))
    }
    fn deps(&self, d: &mut Deps) {
        d.structural_anywhere();
        d.scope(self.0.base.scope_reads());
    }
}

struct RefKind(Base);

impl SelectorKind for RefKind {
    fn prepare(&self, p: &mut Params<'_, '_>) -> Result<Box<dyn Selector>, ContentError> {
        let mut r = ObjRef {
            base: self.0,
            hops: smallvec::SmallVec::new(),
        };
        if self.0 == Base::This && p.entry().name() == "owner" {
            let of = p.object("of")?.unwrap_or(r.clone());
            r = ObjRef {
                base: of.base,
                hops: of.hops,
            };
            r.hops.push(Sym::new("owner"));
        }
        Ok(Box::new(RefSelector(r)))
    }
}

/// Every object matching class, tags, zone and owner relation, in id order.
#[derive(Debug)]
struct Objects {
    class: Option<Id>,
    tags: Vec<Sym>,
    zones: Vec<Sym>,
    owner: Relation,
    exclude_self: bool,
}

impl Objects {
    /// Whether `id` matches; `known` is a tag it is known to have (the index it came
    /// from). Zone and owner come from the world's slot array; the object itself is
    /// read only for tags.
    fn matches(&self, cx: &Cx<'_>, me: Option<ObjId>, id: ObjId, known: Option<Sym>) -> bool {
        let Some((zone, owner)) = cx.world.zone_and_owner(id) else {
            return false;
        };
        (self.zones.is_empty() || self.zones.contains(&zone))
            && !(self.exclude_self && cx.scope.this == Some(id))
            && owner_relation_of(cx, me, owner, id, self.owner)
            && self
                .tags
                .iter()
                .filter(|t| Some(**t) != known)
                .all(|t| cx.world.has_tag(id, *t))
    }

    /// `me`: the acting player (the same for every candidate of one selection).
    fn matches_obj(
        &self,
        cx: &Cx<'_>,
        me: Option<ObjId>,
        id: ObjId,
        o: &crate::state::Object,
    ) -> bool {
        (self.zones.is_empty() || self.zones.contains(&o.zone))
            && self.tags.iter().all(|t| cx.world.object_has_tag(id, o, *t))
            && !(self.exclude_self && cx.scope.this == Some(id))
            && owner_relation_of(cx, me, o.owner, id, self.owner)
    }
}

impl Objects {
    /// The count of `owner = "friendly"` objects in one zone, with no other filter, read
    /// off the world's (zone, owner) groups instead of visiting them: the acting player's
    /// objects there, plus the acting player itself when it stands there (an ownerless
    /// player counts as its own side). `None` for any other selection.
    fn count_by_group(&self, cx: &Cx<'_>) -> Option<usize> {
        if self.owner != Relation::Friendly
            || self.zones.len() != 1
            || !self.tags.is_empty()
            || self.class.is_some()
            || self.exclude_self
        {
            return None;
        }
        let zone = self.zones[0];
        let Some(me) = acting_player(cx) else {
            return Some(0);
        };
        let itself = cx.world.zone_and_owner(me) == Some((zone, None))
            && cx.world.has_tag(me, super::player_tag());
        Some(cx.world.group_len(zone, Some(me)) + usize::from(itself))
    }
}

/// Where a selection's candidates come from: the smallest index that covers it.
enum Source {
    Class(Id),
    Zones,
    Tag(Sym),
    /// The acting player's objects in the one zone (`owner = "friendly"`), and the player
    /// itself when it stands there.
    Group(Sym, ObjId),
    Everything,
}

impl Objects {
    fn source(&self, cx: &Cx<'_>, me: Option<ObjId>) -> Source {
        if let Some(c) = self.class {
            return Source::Class(c);
        }
        let by_tag = self
            .tags
            .iter()
            .map(|t| (cx.world.tagged_len(*t), *t))
            .min_by_key(|(n, _)| *n);
        // A friendly selection in one zone: the (zone, owner) group is usually smaller
        // than the zone (a player's hand beside the opponent's; an empire's planets among
        // a galaxy's objects), and its members need no zone or owner test. It is taken
        // unless it holds most of the zone (the members are copied and sorted into id
        // order) or a tag has fewer objects.
        if let (Relation::Friendly, [zone], Some(me)) = (self.owner, self.zones.as_slice(), me) {
            let group = cx.world.group_len(*zone, Some(me));
            let fewer_tagged = by_tag.is_some_and(|(n, _)| n < group);
            if group * 4 < cx.world.zone_len(*zone) * 3 && !fewer_tagged {
                return Source::Group(*zone, me);
            }
        }
        let by_zone: Option<usize> = (!self.zones.is_empty())
            .then(|| self.zones.iter().map(|z| cx.world.zone_len(*z)).sum());
        match (by_zone, by_tag) {
            (Some(z), Some((t, tag))) if t < z => Source::Tag(tag),
            (Some(_), _) => Source::Zones,
            (None, Some((_, tag))) => Source::Tag(tag),
            (None, None) => Source::Everything,
        }
    }

    /// Visits every match, in id order.
    fn each(&self, cx: &Cx<'_>, mut f: impl FnMut(ObjId)) {
        let me = (self.owner != Relation::Any)
            .then(|| acting_player(cx))
            .flatten();
        let source = self.source(cx, me);
        let known = match source {
            Source::Tag(t) => Some(t),
            _ => None,
        };
        let keep = |id: ObjId| {
            if self.matches(cx, me, id, known) {
                f(id)
            }
        };
        match source {
            Source::Class(c) => cx.world.objects_of_class(c).for_each(keep),
            Source::Tag(t) => cx.world.objects_tagged(t).for_each(keep),
            Source::Group(zone, me) => {
                let mut members = cx.world.group_members(zone, Some(me));
                let itself = cx.world.zone_and_owner(me) == Some((zone, None));
                if itself {
                    members.push(me);
                    members.sort_unstable();
                }
                for id in members {
                    // The group's members are in the zone and the acting player's: only
                    // the tags are left to test (one look-up of the object each; a
                    // galaxy's empire holds more buildings than planets).
                    let tagged = self.tags.iter().all(|t| cx.world.has_tag(id, *t));
                    if !tagged || (self.exclude_self && cx.scope.this == Some(id)) {
                        continue;
                    }
                    let me_ok = id != me
                        || cx.world.object(id).is_ok_and(|o| {
                            owner_relation_of(cx, Some(me), o.owner, id, self.owner)
                        });
                    if me_ok {
                        f(id);
                    }
                }
            }
            Source::Zones if self.zones.len() == 1 => {
                cx.world.objects_in_zone(self.zones[0]).for_each(keep)
            }
            Source::Zones => {
                let mut all: Vec<ObjId> = self
                    .zones
                    .iter()
                    .flat_map(|z| cx.world.objects_in_zone(*z))
                    .collect();
                all.sort_unstable();
                all.into_iter().for_each(keep)
            }
            Source::Everything => cx
                .world
                .objects()
                .filter(|(id, o)| self.matches_obj(cx, me, *id, o))
                .for_each(|(id, _)| f(id)),
        }
    }
}

impl Selector for Objects {
    fn select(&self, cx: &Cx<'_>, out: &mut Vec<ObjId>) -> Result<(), RuleError> {
        self.each(cx, |id| out.push(id));
        Ok(())
    }
    fn count(&self, cx: &Cx<'_>) -> Result<usize, RuleError> {
        if let Some(n) = self.count_by_group(cx) {
            return Ok(n);
        }
        let mut n = 0;
        self.each(cx, |_| n += 1);
        Ok(n)
    }
    fn contains(&self, cx: &Cx<'_>, obj: ObjId) -> Option<Result<bool, RuleError>> {
        let me = (self.owner != Relation::Any)
            .then(|| acting_player(cx))
            .flatten();
        let class_ok = self
            .class
            .is_none_or(|c| cx.world.object(obj).is_ok_and(|o| o.class == c));
        Some(Ok(class_ok && self.matches(cx, me, obj, None)))
    }
    fn deps(&self, d: &mut Deps) {
        // Every candidate is in one of `zones` (when listed), whichever index it came from.
        if self.zones.is_empty() {
            d.structural_anywhere();
        } else {
            d.structural_in(&self.zones);
        }
        // The owner relation is judged from the acting player; `exclude_self` reads the
        // holder.
        if self.owner != Relation::Any {
            d.scope(ScopeReads::ACTING);
        }
        if self.exclude_self {
            d.scope(ScopeReads::THIS);
        }
        self.tags.iter().for_each(|t| d.tag(*t));
        if self.owner != Relation::Any {
            d.tag(super::player_tag());
        }
    }
    fn source_tag(&self) -> Option<Sym> {
        self.tags.first().copied()
    }
}

struct ObjectsKind {
    players_only: bool,
}

impl SelectorKind for ObjectsKind {
    fn prepare(&self, p: &mut Params<'_, '_>) -> Result<Box<dyn Selector>, ContentError> {
        let mut tags = p.names("tag")?;
        tags.extend(p.names("tags")?);
        if self.players_only {
            tags.push(Sym::new("player"));
        }
        let rel_key = if self.players_only { "which" } else { "owner" };
        let owner = match p.opt_name(rel_key)? {
            None => Relation::Any,
            Some(s) => Relation::parse(s.as_str()).ok_or_else(|| {
                p.error(rel_key, format!("`{s}` is not a relation"))
                    .help("use `friendly`, `enemy` or `any`")
            })?,
        };
        Ok(Box::new(Objects {
            class: p.opt_id("class", "class")?,
            tags,
            zones: p.names("zone")?,
            owner,
            exclude_self: p.bool_or("exclude_self", false)?,
        }))
    }
}

/// Registers the core selectors.
pub(super) fn register(r: &mut Registry) {
    let reg = |r: &mut Registry,
               id: &str,
               doc: &str,
               params: Vec<ParamSpec>,
               imp: Arc<dyn SelectorKind>| {
        r.selectors
            .register(builtin(id, doc, params, imp))
            .unwrap_or_else(|e| panic!("{e}"));
    };
    reg(
        r,
        "core:selector/self",
        "the object holding the trigger or aura",
        vec![],
        Arc::new(RefKind(Base::This)),
    );
    reg(
        r,
        "core:selector/source",
        "the event's source",
        vec![],
        Arc::new(RefKind(Base::Source)),
    );
    reg(
        r,
        "core:selector/target",
        "the event's target",
        vec![],
        Arc::new(RefKind(Base::Target)),
    );
    reg(
        r,
        "core:selector/giver",
        "the object that gave the effect being run (`give_effect`); nothing if it is gone",
        vec![],
        Arc::new(RefKind(Base::Giver)),
    );
    reg(
        r,
        "core:selector/owner",
        "the owner of an object (default: of `self`)",
        vec![ParamSpec::optional(
            "of",
            T::Object,
            "whose owner (e.g. `target`)",
        )],
        Arc::new(RefKind(Base::This)),
    );
    let object_params = |rel: &'static str, rel_doc: &'static str| {
        vec![
            ParamSpec::optional("class", T::Id("class"), "only objects of this class"),
            ParamSpec::optional(
                "tag",
                T::Names,
                "only objects with this tag (or all of these tags)",
            ),
            ParamSpec::optional("tags", T::Names, "only objects with all of these tags"),
            ParamSpec::optional(
                "zone",
                T::Names,
                "only objects in this zone (or one of these)",
            ),
            ParamSpec::optional(rel, T::Name, rel_doc),
            ParamSpec::optional("exclude_self", T::Bool, "leave out the holder"),
        ]
    };
    reg(
        r,
        "core:selector/objects",
        "objects by class, tag, zone and owner, in id order",
        object_params(
            "owner",
            "`friendly`, `enemy` or `any`, relative to the holder's owner",
        ),
        Arc::new(ObjectsKind {
            players_only: false,
        }),
    );
    reg(
        r,
        "core:selector/players",
        "player objects (tagged `player`)",
        object_params(
            "which",
            "`friendly`, `enemy` or `any`, relative to the holder's owner",
        ),
        Arc::new(ObjectsKind { players_only: true }),
    );
}
