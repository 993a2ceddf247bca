//! The expression language used by every numeric field in content.
//!
//! Grammar (parsed once at load, evaluated without allocation):
//!
//! ```text
//! expr    := term (('+' | '-') term)*
//! term    := unary (('*' | '/') unary)*
//! unary   := '-' unary | atom
//! atom    := number | dice | ref | alias | '(' expr ')'
//!          | ('min' | 'max') '(' expr ',' expr ')' | 'count' '(' selector-alias ')'
//!          | ('jumps' | 'distance') '(' ref ',' ref ')'
//! dice    := N 'd' S                       (3d8: three rolls of 1..=8 from the world RNG)
//! ref     := base ('.' field)+             (self.attack, source.owner.mana, event.amount)
//! base    := self | source | target | player | event
//! ```
//!
//! Numbers are `f64`; integral uses round down. Dividing by zero is a runtime error
//! (the command rolls back), never a panic or an infinity. A property that is absent
//! reads as 0; an object that is absent (no `target` here) is an error.
//!
//! `jumps(a, b)` is the fewest edges (`lanes`) from `a`'s place to `b`'s and
//! `distance(a, b)` the straight line between their positions (`x`, `y`), places as
//! `core:condition/within_jumps` finds them (the object or its nearest ancestor carrying
//! them); both are `-1` when there is no path or no place (test `>= 0` before comparing).

use std::fmt;
use std::ops::Range;
use std::sync::Arc;

use crate::id::Sym;
use crate::rules::registry::{scope_reads_of, Condition, Deps, ScopeReads, Selector};
use crate::rules::{Cx, RuleError};
use crate::state::ObjId;

/// An expression (or object reference) that does not parse: what is wrong, the text, and
/// where in it (byte offsets; the message names the 1-based column).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message} at column {} of expression `{text}`", self.column())]
#[non_exhaustive]
pub struct ExprError {
    /// What is wrong (and how to fix it).
    pub message: String,
    /// The whole expression.
    pub text: String,
    /// Where in `text` (byte offsets).
    pub span: Range<usize>,
}

impl ExprError {
    /// An error at byte `at` of `text`.
    fn at(text: &str, at: usize, message: impl Into<String>) -> ExprError {
        let at = at.min(text.len());
        let end = text[at..].chars().next().map_or(at, |c| at + c.len_utf8());
        ExprError {
            message: message.into(),
            text: text.to_owned(),
            span: at..end,
        }
    }

    /// The 1-based column where the problem starts.
    pub fn column(&self) -> usize {
        self.span.start + 1
    }
}

/// A name an expression uses (an alias, a selector ref) that cannot be resolved.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct NameError(pub String);

impl From<String> for NameError {
    fn from(message: String) -> NameError {
        NameError(message)
    }
}

/// A binary operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum BinOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `min(a, b)`
    Min,
    /// `max(a, b)`
    Max,
    /// `a ^ b`
    Pow,
}

/// A statistic over the objects a selector picks (FOCS's `Statistic`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Stat {
    /// The largest value of the property (0 when nothing is picked).
    Max,
    /// The smallest value of the property (0 when nothing is picked).
    Min,
    /// The mean of the property (0 when nothing is picked).
    Mean,
    /// 1 when the selector picks anything, else 0.
    Exists,
}

/// A parsed expression.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Expr {
    /// A literal.
    Num(f64),
    /// `NdS`: the sum of N rolls of 1..=S.
    Dice {
        /// Number of dice.
        count: u32,
        /// Sides per die.
        sides: u32,
    },
    /// A property of an object (`self.attack`, `target.max_health`).
    Prop {
        /// The object.
        obj: ObjRef,
        /// The property.
        key: Sym,
    },
    /// A numeric field of the current event (`event.amount`, `event.<extra>`).
    EventField(Sym),
    /// `event.last.KEY`: the event target's value as it was before the action that
    /// raised the event (last-known information; the current value when the event kept
    /// no snapshot).
    LastKnown(Sym),
    /// `-e`
    Neg(Box<Expr>),
    /// `a op b`
    Bin(BinOp, Box<Expr>, Box<Expr>),
    /// `count(selector)`: how many objects a selector picks.
    Count(Arc<dyn Selector>),
    /// `sum(selector, key)`: the sum of a property over the objects a selector picks.
    Sum(Arc<dyn Selector>, Sym),
    /// A statistic of a property over the objects a selector picks (`{ max = <selector>,
    /// key = "population" }`); `Exists` reads no property.
    Stat(Stat, Arc<dyn Selector>, Option<Sym>),
    /// `value`: the running value of the property an effect is setting (the effect
    /// passes of `rules::pass`); 0 elsewhere.
    Running,
    /// `abs(e)`
    Abs(Box<Expr>),
    /// `tick`: the scheduler's current tick (a turn-based game that advances it once a
    /// turn reads the turn number).
    Tick,
    /// `{ if = <condition>, then = a, else = b }`: the condition is tested on `target`
    /// (or on `self` where there is no target).
    If(Arc<dyn Condition>, Box<Expr>, Box<Expr>),
    /// `jumps(a, b)`: the fewest edges between two objects' places; -1 when none.
    Jumps(ObjRef, ObjRef),
    /// `distance(a, b)`: the straight line between two objects' positions; -1 when either
    /// has none.
    Distance(ObjRef, ObjRef),
}

impl Expr {
    /// A literal expression.
    pub fn lit(v: f64) -> Expr {
        Expr::Num(v)
    }

    /// The key of `target.KEY` (a property of the object under test, no hops): the whole
    /// expression, when it is just that read.
    pub(crate) fn target_key(&self) -> Option<Sym> {
        match self {
            Expr::Prop { obj, key } if obj.base == Base::Target && obj.hops.is_empty() => {
                Some(*key)
            }
            _ => None,
        }
    }

    /// Whether the value may differ between the objects one batch of a condition tests
    /// (each tested as `target`): it reads `target` or `root`, draws from the RNG, reads
    /// the running value, tests an `if`, or nests a selection whose reads of the scope are
    /// not known to leave `target` alone. Conservative: `false` means every object of
    /// the batch gets the same value, so it can be evaluated once.
    pub(crate) fn reads_candidate(&self) -> bool {
        let selection = |s: &Arc<dyn Selector>| {
            scope_reads_of(s.as_ref()).is_none_or(|r| r.contains(ScopeReads::OTHER))
        };
        let varies = |r: &ObjRef| matches!(r.base, Base::Target | Base::Root);
        match self {
            Expr::Num(_) | Expr::EventField(_) | Expr::LastKnown(_) | Expr::Tick => false,
            Expr::Dice { .. } | Expr::Running | Expr::If(..) => true,
            Expr::Prop { obj, .. } => varies(obj),
            Expr::Neg(e) | Expr::Abs(e) => e.reads_candidate(),
            Expr::Bin(_, a, b) => a.reads_candidate() || b.reads_candidate(),
            Expr::Count(s) | Expr::Sum(s, _) | Expr::Stat(_, s, _) => selection(s),
            Expr::Jumps(a, b) | Expr::Distance(a, b) => varies(a) || varies(b),
        }
    }

    /// The number, when the expression is a literal.
    pub(crate) fn number(&self) -> Option<f64> {
        match self {
            Expr::Num(n) => Some(*n),
            _ => None,
        }
    }

    /// Evaluates in a scope. No allocation.
    pub fn eval(&self, cx: &Cx<'_>) -> Result<f64, RuleError> {
        Ok(match self {
            Expr::Num(n) => *n,
            Expr::Dice { count, sides } => {
                let mut sum = 0i64;
                let draw = crate::controller::RandomDraw::Number {
                    lo: 1,
                    hi: i64::from(*sides),
                };
                for _ in 0..*count {
                    sum += super::random_draw(cx, &draw)?;
                }
                sum as f64
            }
            Expr::Prop { obj, key } => {
                let o = obj.resolve(cx)?;
                cx.world.get_number(o, *key).unwrap_or(0.0)
            }
            Expr::EventField(key) => {
                let ev = cx.scope.event.as_deref().ok_or_else(|| {
                    RuleError::NoObject(format!("event.{key} (there is no event here)"))
                })?;
                match key.as_str() {
                    "amount" => ev.amount as f64,
                    _ => ev.field(*key).and_then(|v| v.as_f64()).unwrap_or(0.0),
                }
            }
            Expr::LastKnown(key) => {
                let ev = cx.scope.event.as_deref().ok_or_else(|| {
                    RuleError::NoObject(format!("event.last.{key} (there is no event here)"))
                })?;
                let t = ev.target.ok_or_else(|| {
                    RuleError::NoObject(format!("event.last.{key} (the event has no target)"))
                })?;
                match &ev.before {
                    Some(then) => then.read(|w| w.get_number(t, *key)),
                    None => cx.world.get_number(t, *key),
                }
                .unwrap_or(0.0)
            }
            Expr::Neg(e) => -e.eval(cx)?,
            Expr::Bin(op, a, b) => {
                let (x, y) = (a.eval(cx)?, b.eval(cx)?);
                match op {
                    BinOp::Add => x + y,
                    BinOp::Sub => x - y,
                    BinOp::Mul => x * y,
                    BinOp::Div if y == 0.0 => {
                        return Err(RuleError::DivideByZero(self.to_string()))
                    }
                    BinOp::Div => x / y,
                    BinOp::Min => x.min(y),
                    BinOp::Max => x.max(y),
                    BinOp::Pow => finite(x.powf(y), self)?,
                }
            }
            Expr::Count(sel) => sel.count(cx)? as f64,
            Expr::Stat(stat, sel, key) => statistic(cx, *stat, sel.as_ref(), *key)?,
            Expr::Running => cx.scope.value.unwrap_or(0.0),
            Expr::Tick => cx.world.tick as f64,
            Expr::Abs(e) => e.eval(cx)?.abs(),
            Expr::If(cond, a, b) => {
                let on = cx.scope.target.or(cx.scope.this).ok_or_else(|| {
                    RuleError::NoObject("the object an `if` tests (no target or self here)".into())
                })?;
                let scope = cx.scope.with_target(on);
                if cond.test(&cx.with_scope(&scope), on)? {
                    a.eval(cx)?
                } else {
                    b.eval(cx)?
                }
            }
            Expr::Sum(sel, key) => {
                let mut objs = Vec::new();
                sel.select(cx, &mut objs)?;
                objs.iter()
                    .map(|o| cx.world.get_number(*o, *key).unwrap_or(0.0))
                    .sum()
            }
            Expr::Jumps(a, b) => {
                super::core::graph::jumps_value(cx.world, a.resolve(cx)?, b.resolve(cx)?)
            }
            Expr::Distance(a, b) => {
                super::core::graph::distance_value(cx.world, a.resolve(cx)?, b.resolve(cx)?)
            }
        })
    }

    /// Evaluates and rounds down to an integer.
    pub fn eval_int(&self, cx: &Cx<'_>) -> Result<i64, RuleError> {
        Ok(self.eval(cx)?.floor() as i64)
    }

    /// What the expression reads (for aura recompute).
    pub fn deps(&self, d: &mut Deps) {
        match self {
            Expr::Num(_) => {}
            Expr::Dice { .. } | Expr::EventField(_) | Expr::LastKnown(_) | Expr::Running => {
                d.scope(crate::state::ScopeReads::OTHER)
            }
            Expr::Abs(e) => e.deps(d),
            // Ticks are not tracked changes: whoever reads one recomputes always.
            Expr::Tick => d.everything = true,
            Expr::If(c, a, b) => {
                c.deps(d);
                a.deps(d);
                b.deps(d);
            }
            Expr::Stat(_, s, key) => {
                let mut inner = Deps::default();
                s.deps(&mut inner);
                d.nested(&inner);
                if let Some(k) = key {
                    d.key_of_selected(*k, &inner);
                }
            }
            Expr::Prop { obj, key } => {
                // `target` is the object under test; every other base comes from the scope.
                if obj.base != Base::Target {
                    d.scope(obj.base.scope_reads());
                }
                if obj.base == Base::Target && obj.hops.is_empty() {
                    d.target_key(*key);
                } else {
                    d.key(*key);
                }
                // One hop from the object under test or the holder reads that object's
                // relation (its owner, its parent), a change to that object; further
                // hops reach objects anywhere.
                match (obj.base, obj.hops.len()) {
                    (_, 0) => {}
                    (Base::Target | Base::This, 1) => d.structural_of_tested(),
                    _ => d.structural_anywhere(),
                }
            }
            Expr::Neg(e) => e.deps(d),
            Expr::Bin(_, a, b) => {
                a.deps(d);
                b.deps(d);
            }
            Expr::Count(s) => {
                let mut inner = Deps::default();
                s.deps(&mut inner);
                d.nested(&inner);
            }
            Expr::Sum(s, key) => {
                let mut inner = Deps::default();
                s.deps(&mut inner);
                d.nested(&inner);
                d.key_of_selected(*key, &inner);
            }
            Expr::Jumps(a, b) => super::core::graph::value_deps(true, [a, b], d),
            Expr::Distance(a, b) => super::core::graph::value_deps(false, [a, b], d),
        }
    }
}

/// `e`'s result, refused when it is not a finite number (`(-8) ^ 0.5`, overflow).
pub(crate) fn finite(x: f64, e: &Expr) -> Result<f64, RuleError> {
    if x.is_finite() {
        Ok(x)
    } else {
        Err(RuleError::NotFinite(e.to_string()))
    }
}

/// A statistic of `key` over what `sel` picks.
fn statistic(
    cx: &Cx<'_>,
    stat: Stat,
    sel: &dyn Selector,
    key: Option<Sym>,
) -> Result<f64, RuleError> {
    let mut objs = Vec::new();
    sel.select(cx, &mut objs)?;
    if stat == Stat::Exists {
        return Ok(f64::from(u8::from(!objs.is_empty())));
    }
    if objs.is_empty() {
        return Ok(0.0);
    }
    let read = |o: &ObjId| key.and_then(|k| cx.world.get_number(*o, k)).unwrap_or(0.0);
    let values = objs.iter().map(read);
    Ok(match stat {
        Stat::Max => values.fold(f64::NEG_INFINITY, f64::max),
        Stat::Min => values.fold(f64::INFINITY, f64::min),
        _ => values.sum::<f64>() / objs.len() as f64,
    })
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expr::Num(n) => write!(f, "{n}"),
            Expr::Dice { count, sides } => write!(f, "{count}d{sides}"),
            Expr::Prop { obj, key } => write!(f, "{obj}.{key}"),
            Expr::EventField(k) => write!(f, "event.{k}"),
            Expr::LastKnown(k) => write!(f, "event.last.{k}"),
            Expr::Neg(e) => write!(f, "-({e})"),
            Expr::Bin(BinOp::Min, a, b) => write!(f, "min({a}, {b})"),
            Expr::Bin(BinOp::Max, a, b) => write!(f, "max({a}, {b})"),
            Expr::Bin(BinOp::Pow, a, b) => write!(f, "({a} ^ {b})"),
            Expr::Stat(stat, _, key) => {
                let name = match stat {
                    Stat::Max => "max",
                    Stat::Min => "min",
                    Stat::Mean => "mean",
                    Stat::Exists => "exists",
                };
                match key {
                    Some(k) => write!(f, "{name}_of(.., {k})"),
                    None => write!(f, "{name}(..)"),
                }
            }
            Expr::Running => f.write_str("value"),
            Expr::Tick => f.write_str("tick"),
            Expr::Abs(e) => write!(f, "abs({e})"),
            Expr::If(_, a, b) => write!(f, "if(.., {a}, {b})"),
            Expr::Bin(op, a, b) => {
                let o = match op {
                    BinOp::Add => "+",
                    BinOp::Sub => "-",
                    BinOp::Mul => "*",
                    _ => "/",
                };
                write!(f, "({a} {o} {b})")
            }
            Expr::Count(_) => write!(f, "count(..)"),
            Expr::Sum(_, key) => write!(f, "sum(.., {key})"),
            Expr::Jumps(a, b) => write!(f, "jumps({a}, {b})"),
            Expr::Distance(a, b) => write!(f, "distance({a}, {b})"),
        }
    }
}

/// Whether `p` is a property or hop name (lowercase `[a-z0-9_]`, not empty); the error says why not.
pub(crate) fn check_ident(p: &str) -> Result<(), String> {
    if p.is_empty()
        || !p
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
    {
        return Err(format!(
            "`{p}` is not a property name (use lowercase letters, digits and `_`)"
        ));
    }
    Ok(())
}

mod flat;
mod objref;
mod parse;

pub(crate) use flat::Flat;
pub use objref::{Base, ObjRef};
pub use parse::{parse, Names};

#[cfg(test)]
mod tests {
    use super::*;

    /// Knows one alias (`big` = 10) and no selectors.
    pub(super) struct NoNames;
    impl Names for NoNames {
        fn alias(&mut self, name: &str) -> Result<Option<Expr>, NameError> {
            Ok((name == "big").then_some(Expr::Num(10.0)))
        }
        fn selector(&mut self, name: &str) -> Result<Arc<dyn Selector>, NameError> {
            Err(NameError(format!("no selector `{name}`")))
        }
    }

    fn p(s: &str) -> Result<Expr, std::string::String> {
        parse(s, &mut NoNames).map_err(|e| e.to_string())
    }

    #[test]
    fn parses_precedence_and_functions() {
        assert_eq!(p("1 + 2 * 3").unwrap().to_string(), "(1 + (2 * 3))");
        assert_eq!(p("(1 + 2) * 3").unwrap().to_string(), "((1 + 2) * 3)");
        assert_eq!(
            p("max(1, big) - -2").unwrap().to_string(),
            "(max(1, 10) - -2)"
        );
        assert_eq!(p("3d8-2").unwrap().to_string(), "(3d8 - 2)");
        assert_eq!(
            p("source.owner.mana").unwrap().to_string(),
            "source.owner.mana"
        );
        assert_eq!(
            p("event.amount * 2").unwrap().to_string(),
            "(event.amount * 2)"
        );
    }

    #[test]
    fn errors_name_the_column() {
        let e = p("1 + * 2").unwrap_err();
        assert!(e.contains("column 5"), "{e}");
        let e = p("attack + 1").unwrap_err();
        assert!(e.contains("self.attack"), "{e}");
        let e = p("me.attack").unwrap_err();
        assert!(e.contains("`me` is not an object"), "{e}");
        assert!(p("0d6").is_err());
        assert!(p("min(1 2)").unwrap_err().contains("two arguments"));
        assert!(p("(1 + 2").unwrap_err().contains("expected `)`"));
        assert!(p("").is_err());
    }
}
