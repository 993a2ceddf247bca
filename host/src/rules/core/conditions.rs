//! `core` conditions: `has_tag`, `compare`, `is_self`, `is_source`, `owned_by`,
//! `in_zone`, `of_class`, `shares_class`, `event_field`.

use std::sync::Arc;

use super::{owner_relation, Relation};
use crate::id::{Id, Sym};
use crate::rules::expr::{Expr, ObjRef};
use crate::rules::registry::{
    builtin, Condition, ConditionKind, Deps, FnKind, ParamSpec, ParamType as T, Registry, Selector,
};
use crate::rules::select::Select;
use crate::rules::{ContentError, Cx, Params, RuleError};
use crate::state::{ObjId, ScopeReads};

#[derive(Debug)]
struct HasTag(Vec<Sym>);
impl Condition for HasTag {
    fn test(&self, cx: &Cx<'_>, obj: ObjId) -> Result<bool, RuleError> {
        Ok(self.0.iter().all(|t| cx.world.has_tag(obj, *t)))
    }
    fn deps(&self, d: &mut Deps) {
        d.structural_of_tested();
        self.0.iter().for_each(|t| d.tag(*t));
    }
}

#[derive(Debug, Clone, Copy)]
enum Cmp {
    Lt,
    Le,
    Eq,
    Ne,
    Ge,
    Gt,
}

#[derive(Debug)]
struct Compare {
    left: Expr,
    op: Cmp,
    right: Expr,
    /// Whether each side may differ between the objects of one batch
    /// ([`Expr::reads_candidate`]); a side that cannot is evaluated once a batch.
    varies: [bool; 2],
    /// Each side's key when it is the candidate's own property ([`Expr::target_key`]).
    keys: [Option<Sym>; 2],
}

impl Compare {
    fn new(left: Expr, op: Cmp, right: Expr) -> Compare {
        let varies = [left.reads_candidate(), right.reads_candidate()];
        let keys = [left.target_key(), right.target_key()];
        Compare {
            left,
            op,
            right,
            varies,
            keys,
        }
    }

    /// The batch when each side is a candidate's own property or the same for every
    /// candidate (`target.power >= 3`, `target.cost <= self.mana`): the fixed sides are
    /// evaluated on the first object, left first (a property read cannot fail, so the
    /// first error is the one `test` would give), then one tight loop reads the
    /// properties. `false` (nothing written) when a side needs a scope per candidate.
    fn batch_by_reads(
        &self,
        cx: &Cx<'_>,
        objs: &[ObjId],
        out: &mut Vec<bool>,
    ) -> Result<bool, RuleError> {
        let keys = self.keys;
        let (Some(&first), false, false) = (
            objs.first(),
            self.varies[0] && keys[0].is_none(),
            self.varies[1] && keys[1].is_none(),
        ) else {
            return Ok(false);
        };
        let scope = cx.scope.with_target(first);
        let once = |e: &Expr, key: Option<Sym>| match key {
            Some(_) => Ok(None),
            None => e.eval(&cx.with_scope(&scope)).map(Some),
        };
        let (l, r) = (once(&self.left, keys[0])?, once(&self.right, keys[1])?);
        let read = |key: Sym, o: ObjId| cx.world.get_number(o, key).unwrap_or(0.0);
        let op = self.op;
        match (l, keys[0], r, keys[1]) {
            (Some(l), _, Some(r), _) => out.extend(objs.iter().map(|_| op.holds(l, r))),
            (None, Some(k), Some(r), _) => {
                out.extend(objs.iter().map(|&o| op.holds(read(k, o), r)))
            }
            (Some(l), _, None, Some(k)) => {
                out.extend(objs.iter().map(|&o| op.holds(l, read(k, o))))
            }
            (None, Some(a), None, Some(b)) => {
                out.extend(objs.iter().map(|&o| op.holds(read(a, o), read(b, o))));
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// One side's value for `obj`: a candidate's own property read directly, a side the
    /// same for the whole batch evaluated on its first object and then remembered in
    /// `fixed`, anything else evaluated with `obj` as `target`.
    fn side(
        &self,
        which: usize,
        cx: &Cx<'_>,
        obj: ObjId,
        fixed: &mut [Option<f64>; 2],
    ) -> Result<f64, RuleError> {
        let e = if which == 0 { &self.left } else { &self.right };
        if let Some(key) = self.keys[which] {
            return Ok(cx.world.get_number(obj, key).unwrap_or(0.0));
        }
        if let Some(v) = fixed[which] {
            return Ok(v);
        }
        let scope = cx.scope.with_target(obj);
        let v = e.eval(&cx.with_scope(&scope))?;
        if !self.varies[which] {
            fixed[which] = Some(v);
        }
        Ok(v)
    }
}
impl Cmp {
    fn holds(self, l: f64, r: f64) -> bool {
        match self {
            Cmp::Lt => l < r,
            Cmp::Le => l <= r,
            Cmp::Eq => l == r,
            Cmp::Ne => l != r,
            Cmp::Ge => l >= r,
            Cmp::Gt => l > r,
        }
    }
}

impl Condition for Compare {
    fn test(&self, cx: &Cx<'_>, _obj: ObjId) -> Result<bool, RuleError> {
        Ok(self.op.holds(self.left.eval(cx)?, self.right.eval(cx)?))
    }
    /// A candidate's property (`target.cost`) is read directly, without a scope per
    /// candidate, and a side that reads nothing of the candidate (`self.mana`,
    /// `count(my_minions)`) is evaluated once for the batch: the answers, and the first
    /// error, are those of [`Compare::test`] on each object in turn.
    fn test_many(&self, cx: &Cx<'_>, objs: &[ObjId], out: &mut Vec<bool>) -> Result<(), RuleError> {
        if self.batch_by_reads(cx, objs, out)? {
            return Ok(());
        }
        let mut fixed = [None, None];
        for &o in objs {
            let l = self.side(0, cx, o, &mut fixed)?;
            let r = self.side(1, cx, o, &mut fixed)?;
            out.push(self.op.holds(l, r));
        }
        Ok(())
    }
    fn deps(&self, d: &mut Deps) {
        self.left.deps(d);
        self.right.deps(d);
    }
}

#[derive(Debug)]
struct IsSelf;
impl Condition for IsSelf {
    fn test(&self, cx: &Cx<'_>, obj: ObjId) -> Result<bool, RuleError> {
        Ok(cx.scope.this == Some(obj))
    }
    fn deps(&self, d: &mut Deps) {
        d.scope(ScopeReads::THIS);
    }
}

/// The event being handled has a text field (`from`, `to`, `key`, ...) with one of the
/// values: "a card would be put into a graveyard" is a replacement on `moved` whose event
/// has `to = graveyard`; "leaves the battlefield" a trigger whose event has `from =
/// battlefield`. False outside an event, or when the event has no such text field.
#[derive(Debug)]
struct EventField {
    field: Sym,
    values: Vec<Sym>,
}
impl Condition for EventField {
    fn test(&self, cx: &Cx<'_>, _obj: ObjId) -> Result<bool, RuleError> {
        let Some(event) = &cx.scope.event else {
            return Ok(false);
        };
        Ok(event.extra.iter().any(|(k, v)| {
            *k == self.field
                && matches!(v, crate::state::Value::Text(t) if self.values.iter().any(|s| s.as_str() == &**t))
        }))
    }
    fn deps(&self, d: &mut Deps) {
        d.scope(ScopeReads::OTHER);
    }
}

#[derive(Debug)]
struct IsSource;
impl Condition for IsSource {
    fn test(&self, cx: &Cx<'_>, obj: ObjId) -> Result<bool, RuleError> {
        Ok(cx.scope.source == Some(obj))
    }
    fn deps(&self, d: &mut Deps) {
        d.scope(ScopeReads::SOURCE);
    }
}

#[derive(Debug)]
struct OwnedBy(Relation);
impl Condition for OwnedBy {
    fn test(&self, cx: &Cx<'_>, obj: ObjId) -> Result<bool, RuleError> {
        let owner = cx.world.object(obj).ok().and_then(|o| o.owner);
        Ok(owner_relation(cx, owner, obj, self.0))
    }
    fn deps(&self, d: &mut Deps) {
        d.structural_of_tested();
        // A relation other than `any` is judged from the acting player; whether an
        // object is a player is its `player` tag.
        if self.0 != Relation::Any {
            d.scope(ScopeReads::ACTING);
        }
        d.tag(super::player_tag());
    }
}

/// The object's owner is a given object (`by = "self.chosen"`: the cards of the player a
/// spell targets).
#[derive(Debug)]
struct OwnedByObject(ObjRef);
impl Condition for OwnedByObject {
    fn test(&self, cx: &Cx<'_>, obj: ObjId) -> Result<bool, RuleError> {
        let Ok(by) = self.0.resolve(cx) else {
            return Ok(false);
        };
        Ok(cx.world.object(obj).is_ok_and(|o| o.owner == Some(by)))
    }
    fn deps(&self, d: &mut Deps) {
        d.structural_of_tested();
        d.scope(self.0.base.scope_reads());
    }
}

#[derive(Debug)]
struct InZone(Vec<Sym>);
impl Condition for InZone {
    fn test(&self, cx: &Cx<'_>, obj: ObjId) -> Result<bool, RuleError> {
        Ok(cx.world.object(obj).is_ok_and(|o| self.0.contains(&o.zone)))
    }
    fn deps(&self, d: &mut Deps) {
        d.structural_of_tested();
    }
}

#[derive(Debug)]
struct OfClass(Vec<Id>);
impl Condition for OfClass {
    fn test(&self, cx: &Cx<'_>, obj: ObjId) -> Result<bool, RuleError> {
        Ok(cx
            .world
            .object(obj)
            .is_ok_and(|o| self.0.contains(&o.class)))
    }
    fn deps(&self, d: &mut Deps) {
        d.structural_of_tested();
    }
}

/// Another object of `among` has the object's class (with `same_owner`, also its owner):
/// the legend rule's "two legendary permanents with the same name".
#[derive(Debug)]
struct SharesClass {
    among: Select,
    same_owner: bool,
}
impl Condition for SharesClass {
    fn test(&self, cx: &Cx<'_>, obj: ObjId) -> Result<bool, RuleError> {
        let Ok(o) = cx.world.object(obj) else {
            return Ok(false);
        };
        let (class, owner) = (o.class, o.owner);
        let mut among = Vec::new();
        self.among.select(cx, &mut among)?;
        Ok(among.iter().any(|&a| {
            a != obj
                && cx
                    .world
                    .object(a)
                    .is_ok_and(|x| x.class == class && (!self.same_owner || x.owner == owner))
        }))
    }
    fn deps(&self, d: &mut Deps) {
        // `among` is selected in the tester's scope (its scope reads are the condition's);
        // its candidates are other objects than the one under test, so what it reads
        // counts as read from any object.
        Selector::deps(&self.among, d);
        d.structural_anywhere();
    }
}

/// The object stands next to `of` (default: the holder): same owner, same zone, slots
/// one apart.
#[derive(Debug)]
struct Adjacent(Option<ObjRef>);
impl Condition for Adjacent {
    fn test(&self, cx: &Cx<'_>, obj: ObjId) -> Result<bool, RuleError> {
        let of = match &self.0 {
            Some(r) => match r.resolve(cx) {
                Ok(o) => o,
                Err(_) => return Ok(false),
            },
            None => match cx.scope.this {
                Some(t) => t,
                None => return Ok(false),
            },
        };
        let (Ok(a), Ok(b)) = (cx.world.object(of), cx.world.object(obj)) else {
            return Ok(false);
        };
        Ok(of != obj
            && a.owner == b.owner
            && a.zone == b.zone
            && (cx.world.slot(of) - cx.world.slot(obj)).abs() == 1)
    }
    fn deps(&self, d: &mut Deps) {
        d.structural_anywhere();
        d.key(crate::state::slot_key());
        d.scope(
            self.0
                .as_ref()
                .map_or(ScopeReads::THIS, |r| r.base.scope_reads()),
        );
    }
}

/// A condition kind built from a closure over its parameters.
fn kind<F>(f: F) -> Arc<dyn ConditionKind>
where
    F: Fn(&mut Params<'_, '_>) -> Result<Box<dyn Condition>, ContentError> + Send + Sync + 'static,
{
    Arc::new(FnKind(f))
}

/// Registers the core conditions.
pub(super) fn register(r: &mut Registry) {
    values(r);
    identity(r);
    place(r);
}

/// Registers one built-in kind (a duplicate is a bug in this file).
fn reg(r: &mut Registry, id: &str, doc: &str, params: Vec<ParamSpec>, imp: Arc<dyn ConditionKind>) {
    r.conditions
        .register(builtin(id, doc, params, imp))
        .unwrap_or_else(|e| panic!("{e}"));
}

/// Tags and compared values.
fn values(r: &mut Registry) {
    reg(
        r,
        "core:condition/has_tag",
        "the object has the tag (or all of the tags)",
        vec![ParamSpec::required(
            "tag",
            T::Names,
            "the tag, or a list of tags",
        )],
        kind(|p| Ok(Box::new(HasTag(p.names("tag")?)))),
    );
    reg(
        r,
        "core:condition/compare",
        "compares two expressions; the object under test is `target`",
        vec![
            ParamSpec::required("left", T::Expr, "left side"),
            ParamSpec::required("op", T::Text, "one of < <= == != >= >"),
            ParamSpec::required("right", T::Expr, "right side"),
        ],
        kind(|p| {
            let op = match p.opt_text("op")?.as_deref() {
                Some("<") => Cmp::Lt,
                Some("<=") => Cmp::Le,
                Some("==" | "=") => Cmp::Eq,
                Some("!=") => Cmp::Ne,
                Some(">=") => Cmp::Ge,
                Some(">") => Cmp::Gt,
                other => {
                    return Err(p
                        .error(
                            "op",
                            format!("`{}` is not a comparison", other.unwrap_or("")),
                        )
                        .help("use one of `<`, `<=`, `==`, `!=`, `>=`, `>`"))
                }
            };
            Ok(Box::new(Compare::new(
                p.expr("left")?,
                op,
                p.expr("right")?,
            )))
        }),
    );
}

/// Who the object is: the holder, the source, whose it is.
fn identity(r: &mut Registry) {
    reg(
        r,
        "core:condition/is_self",
        "the object is the holder (`self`)",
        vec![],
        kind(|_| Ok(Box::new(IsSelf))),
    );
    reg(
        r,
        "core:condition/event_field",
        "the event being handled has the text field `field` equal to `is` (or one of a list)",
        vec![
            ParamSpec::required(
                "field",
                T::Name,
                "the event's field: `from`, `to`, `key`, ...",
            ),
            ParamSpec::required("is", T::Names, "the value, or a list of values"),
        ],
        kind(|p| {
            Ok(Box::new(EventField {
                field: p.name("field")?,
                values: p.names("is")?,
            }))
        }),
    );
    reg(
        r,
        "core:condition/is_source",
        "the object is the event's source",
        vec![],
        kind(|_| Ok(Box::new(IsSource))),
    );
    reg(
        r,
        "core:condition/owned_by",
        "the object's owner is friendly/enemy/any relative to the holder's owner, or (`by`) a given object",
        vec![
            ParamSpec::optional("owner", T::Name, "`friendly`, `enemy` or `any`"),
            ParamSpec::optional("by", T::Object, "instead of `owner`: the owner itself (`self.chosen`: the player a spell targets)"),
        ],
        kind(|p| {
            if let Some(by) = p.object("by")? {
                if p.raw("owner").is_some() {
                    return Err(p.error("by", "give either `owner` or `by`, not both"));
                }
                return Ok(Box::new(OwnedByObject(by)));
            }
            let Some(s) = p.opt_name("owner")? else {
                return Err(p
                    .error("owner", "`owned_by` needs `owner` (a relation) or `by` (an object)")
                    .help("use `owner = \"friendly\"`, `\"enemy\"`, `\"any\"`, or `by = \"self.chosen\"`"));
            };
            let rel = Relation::parse(s.as_str()).ok_or_else(|| {
                p.error("owner", format!("`{s}` is not a relation"))
                    .help("use `friendly`, `enemy` or `any`")
            })?;
            Ok(Box::new(OwnedBy(rel)))
        }),
    );
}

/// Where the object is and what it is: zone, neighbours, class.
fn place(r: &mut Registry) {
    reg(
        r,
        "core:condition/in_zone",
        "the object is in the zone (or one of the zones)",
        vec![ParamSpec::required(
            "zone",
            T::Names,
            "a zone or a list of zones",
        )],
        kind(|p| Ok(Box::new(InZone(p.names("zone")?)))),
    );
    reg(
        r,
        "core:condition/adjacent",
        "the object is next to `of` (default: the holder): same owner and zone, slots one apart",
        vec![ParamSpec::optional(
            "of",
            T::Object,
            "whose neighbours (default `self`)",
        )],
        kind(|p| Ok(Box::new(Adjacent(p.object("of")?)))),
    );
    reg(
        r,
        "core:condition/shares_class",
        "another object of `among` has the object's class (with `same_owner`, also its owner)",
        vec![
            ParamSpec::required("among", T::Selector, "the objects to compare with"),
            ParamSpec::optional(
                "same_owner",
                T::Bool,
                "the other must have the same owner too (default false)",
            ),
        ],
        kind(|p| {
            let among = p.selector("among")?.ok_or_else(|| {
                p.error(
                    "among",
                    "`shares_class` needs `among`, the objects to compare with",
                )
            })?;
            Ok(Box::new(SharesClass {
                among,
                same_owner: p.bool_or("same_owner", false)?,
            }))
        }),
    );
    reg(
        r,
        "core:condition/of_class",
        "the object is of the class (or one of the classes)",
        vec![ParamSpec::required(
            "class",
            T::Names,
            "a class id or a list of them",
        )],
        kind(|p| {
            let names = p.names("class")?;
            let mut ids = Vec::new();
            for n in names {
                let path = p.path_of("class");
                ids.push(p.compiler.reference(n.as_str(), "class", &path)?);
            }
            Ok(Box::new(OfClass(ids)))
        }),
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::expr::{parse, Names};
    use crate::rules::{Generation, Scope};
    use crate::state::{Value, World};

    /// No aliases, no selectors: expressions over properties, numbers and dice.
    struct Plain;
    impl Names for Plain {
        fn alias(&mut self, _: &str) -> Result<Option<Expr>, crate::rules::expr::NameError> {
            Ok(None)
        }
        fn selector(
            &mut self,
            name: &str,
        ) -> Result<Arc<dyn Selector>, crate::rules::expr::NameError> {
            Err(crate::rules::expr::NameError(format!(
                "no selector `{name}`"
            )))
        }
    }

    fn compare(left: &str, op: Cmp, right: &str) -> Compare {
        let e = |s: &str| parse(s, &mut Plain).unwrap_or_else(|err| panic!("{s}: {err}"));
        Compare::new(e(left), op, e(right))
    }

    fn cx<'a>(world: &'a World, gen: &'a Generation, scope: &'a Scope) -> Cx<'a> {
        Cx {
            world,
            gen,
            scope,
            controller: None,
            rt: &(),
        }
    }

    /// The answers (or the first error) for `objs` held by `holder`: in one batch, or one
    /// object at a time as `test` sees it; and the next number the world's RNG draws.
    fn answers(c: &Compare, w: World, holder: ObjId, objs: &[ObjId], batch: bool) -> (String, i64) {
        let gen = Generation::build(Arc::new(Registry::with_core()), &[], 1).expect("no content");
        let scope = Scope {
            this: Some(holder),
            ..Scope::default()
        };
        let answers: Result<Vec<bool>, RuleError> = if batch {
            let mut out = Vec::new();
            c.test_many(&cx(&w, &gen, &scope), objs, &mut out)
                .map(|()| out)
        } else {
            objs.iter()
                .map(|&o| c.test(&cx(&w, &gen, &scope.with_target(o)), o))
                .collect()
        };
        (format!("{answers:?}"), w.random_range(0, 1_000_000))
    }

    #[test]
    fn a_batch_answers_as_each_object_alone_with_sides_evaluated_once() {
        let mut w = World::new(7);
        let class = Id::parse("t:class/card").expect("id");
        let holder = w.create(class, None, Sym::new("table"));
        w.set(holder, Sym::new("mana"), Value::Int(3)).expect("set");
        let cards: Vec<ObjId> = (0..6)
            .map(|i| {
                let c = w.create(class, Some(holder), Sym::new("hand"));
                w.set(c, Sym::new("cost"), Value::Int(i)).expect("set");
                c
            })
            .collect();
        let cases = [
            ("target.cost", Cmp::Le, "self.mana"),
            ("self.mana", Cmp::Gt, "target.cost"),
            ("self.mana", Cmp::Lt, "5"),
            ("self.mana + 1", Cmp::Eq, "self.mana * 2 - 2"),
            ("target.cost + self.mana", Cmp::Gt, "4"),
            ("1d6", Cmp::Ge, "target.cost"),
            ("target.cost", Cmp::Ne, "2d3"),
            ("target.cost", Cmp::Ge, "target.cost"),
            ("self.mana / self.absent", Cmp::Lt, "1"),
            ("target.cost", Cmp::Lt, "self.mana / (target.cost - 2)"),
        ];
        for (l, op, r) in cases {
            let c = compare(l, op, r);
            let expected = answers(&c, w.clone(), holder, &cards, false);
            let got = answers(&c, w.clone(), holder, &cards, true);
            assert_eq!(got, expected, "{l} {op:?} {r}");
        }
        // Which sides count as the same for a whole batch.
        let c = compare("self.mana", Cmp::Lt, "target.cost");
        assert_eq!(c.varies, [false, true]);
        assert_eq!(compare("1d6", Cmp::Lt, "3").varies, [true, false]);
        assert_eq!(
            compare("root.cost", Cmp::Lt, "player.mana").varies,
            [true, false]
        );
    }
}
