//! Flat programs: an expression over numbers, `value` and the target's own properties
//! compiled to a list of stack operations, for the places that evaluate one expression
//! many thousand times a run (an effect pass applies each effect to every target).
//!
//! [`Expr::eval`] walks the tree, and every node is a call returning a `Result` as large
//! as the rule error. A flat program runs in one loop over a small stack of numbers and
//! reads the world directly. It gives exactly what [`Expr::eval`] gives: the same reads,
//! the same operations in the same order. Where that would be an error (dividing by
//! zero, a power that is not finite) it answers nothing, and the caller evaluates the
//! expression itself for the error.
//!
//! The shapes content writes most (`value + 2`, `value * 1.01 + 0.1`,
//! `value + target.population * 0.01`) run as one step each ([`Shape`]) rather than a
//! loop over their operations: the same operations in the same order, without the
//! stack and a branch on every operation.

use super::{Base, BinOp, Expr};
use crate::id::Sym;
use crate::state::{ObjId, World};

/// The deepest stack a flat program may need; deeper expressions stay trees.
const DEPTH: usize = 16;

/// One step of a flat program.
#[derive(Debug, Clone, Copy)]
enum Op {
    /// Push a number.
    Num(f64),
    /// Push the running value.
    Running,
    /// Push a property of the target (absent or not a number: 0).
    Target(Sym),
    /// Negate the top.
    Neg,
    /// Replace the top with its absolute value.
    Abs,
    /// Pop two, push the result.
    Bin(BinOp),
    /// Replace the top `x` with `x op k` (a literal right operand, one step fewer).
    BinK(BinOp, f64),
}

/// A common program as one step: each computes exactly what its operations compute.
#[derive(Debug, Clone, Copy)]
enum Shape {
    /// `value op k`.
    RunK(BinOp, f64),
    /// `(value op1 a) op2 b`.
    RunKK(BinOp, f64, BinOp, f64),
    /// `value op1 (target.key op2 k)`.
    RunTargetK(BinOp, Sym, BinOp, f64),
    /// Anything else: the operations, one by one.
    Ops,
}

impl Shape {
    /// The shape `ops` have.
    fn of(ops: &[Op]) -> Shape {
        match *ops {
            [Op::Running, Op::BinK(o, k)] => Shape::RunK(o, k),
            [Op::Running, Op::BinK(o1, a), Op::BinK(o2, b)] => Shape::RunKK(o1, a, o2, b),
            [Op::Running, Op::Target(key), Op::BinK(o2, k), Op::Bin(o1)] => {
                Shape::RunTargetK(o1, key, o2, k)
            }
            _ => Shape::Ops,
        }
    }
}

/// An expression compiled to stack operations ([`Flat::compile`]).
#[derive(Debug, Clone)]
pub(crate) struct Flat {
    ops: Box<[Op]>,
    shape: Shape,
}

impl Flat {
    /// The flat program of `e`, when it reads nothing but numbers, `value` and
    /// properties of the target (`target.KEY`, `effect_target.KEY`) and is at most
    /// [`DEPTH`] deep.
    pub(crate) fn compile(e: &Expr) -> Option<Flat> {
        let mut ops = Vec::new();
        let depth = push_ops(e, &mut ops)?;
        (depth <= DEPTH).then(|| Flat {
            shape: Shape::of(&ops),
            ops: ops.into(),
        })
    }

    /// The target's properties the program reads (`target.KEY`), in order, with repeats.
    pub(crate) fn target_keys(&self) -> impl Iterator<Item = Sym> + '_ {
        self.ops.iter().filter_map(|op| match op {
            Op::Target(key) => Some(*key),
            _ => None,
        })
    }

    /// The value for target `target` with running value `value`; `None` where
    /// [`Expr::eval`] would fail.
    pub(crate) fn eval(&self, world: &World, target: ObjId, value: f64) -> Option<f64> {
        self.eval_with(value, |key| world.get_number(target, key).unwrap_or(0.0))
    }

    /// Like [`Flat::eval`], with the target's properties read by `read` (a caller that
    /// knows they cannot change may cache them).
    #[inline]
    pub(crate) fn eval_with(&self, value: f64, mut read: impl FnMut(Sym) -> f64) -> Option<f64> {
        match self.shape {
            Shape::RunK(o, k) => binary(o, value, k),
            Shape::RunKK(o1, a, o2, b) => binary(o2, binary(o1, value, a)?, b),
            Shape::RunTargetK(o1, key, o2, k) => binary(o1, value, binary(o2, read(key), k)?),
            Shape::Ops => self.run_ops(value, read),
        }
    }

    /// The operations run one by one on a stack.
    fn run_ops(&self, value: f64, mut read: impl FnMut(Sym) -> f64) -> Option<f64> {
        let mut stack = [0.0f64; DEPTH];
        let mut top = 0usize;
        for op in self.ops.iter() {
            match *op {
                Op::Num(n) => {
                    *stack.get_mut(top)? = n;
                    top += 1;
                }
                Op::Running => {
                    *stack.get_mut(top)? = value;
                    top += 1;
                }
                Op::Target(key) => {
                    *stack.get_mut(top)? = read(key);
                    top += 1;
                }
                Op::Neg => {
                    let x = stack.get_mut(top.checked_sub(1)?)?;
                    *x = -*x;
                }
                Op::Abs => {
                    let x = stack.get_mut(top.checked_sub(1)?)?;
                    *x = x.abs();
                }
                Op::Bin(op) => {
                    top = top.checked_sub(1)?;
                    let y = *stack.get(top)?;
                    let x = stack.get_mut(top.checked_sub(1)?)?;
                    *x = binary(op, *x, y)?;
                }
                Op::BinK(op, k) => {
                    let x = stack.get_mut(top.checked_sub(1)?)?;
                    *x = binary(op, *x, k)?;
                }
            }
        }
        (top == 1).then_some(stack[0])
    }
}

/// `x op y` as [`Expr::eval`] computes it; `None` where it fails.
#[inline]
fn binary(op: BinOp, x: f64, y: f64) -> Option<f64> {
    Some(match op {
        BinOp::Add => x + y,
        BinOp::Sub => x - y,
        BinOp::Mul => x * y,
        BinOp::Div if y == 0.0 => return None,
        BinOp::Div => x / y,
        BinOp::Min => x.min(y),
        BinOp::Max => x.max(y),
        BinOp::Pow => Some(x.powf(y)).filter(|v| v.is_finite())?,
    })
}

/// Appends `e`'s operations (operands first); returns the stack depth it needs.
fn push_ops(e: &Expr, ops: &mut Vec<Op>) -> Option<usize> {
    Some(match e {
        Expr::Num(n) => {
            ops.push(Op::Num(*n));
            1
        }
        Expr::Running => {
            ops.push(Op::Running);
            1
        }
        Expr::Prop { obj, key }
            if obj.hops.is_empty() && matches!(obj.base, Base::Target | Base::EffectTarget) =>
        {
            ops.push(Op::Target(*key));
            1
        }
        Expr::Neg(a) => {
            let d = push_ops(a, ops)?;
            ops.push(Op::Neg);
            d
        }
        Expr::Abs(a) => {
            let d = push_ops(a, ops)?;
            ops.push(Op::Abs);
            d
        }
        Expr::Bin(op, a, b) if b.number().is_some() => {
            let d = push_ops(a, ops)?;
            ops.push(Op::BinK(*op, b.number()?));
            d
        }
        Expr::Bin(op, a, b) => {
            let da = push_ops(a, ops)?;
            let db = push_ops(b, ops)?;
            ops.push(Op::Bin(*op));
            da.max(db + 1)
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::id::Id;
    use crate::rules::expr::parse;
    use crate::rules::expr::tests::NoNames;
    use crate::rules::registry::Registry;
    use crate::rules::{Cx, Generation, RuleError, Scope};
    use crate::state::Value;

    fn expr(s: &str) -> Expr {
        parse(s, &mut NoNames).unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    /// The tree's answer, for comparison: the value, or `None` for an error.
    fn tree(e: &Expr, world: &World, target: ObjId, value: f64) -> Option<f64> {
        let gen = Generation::build(Arc::new(Registry::with_core()), &[], 1).expect("no content");
        let scope = Scope {
            target: Some(target),
            effect_target: Some(target),
            value: Some(value),
            ..Scope::default()
        };
        let cx = Cx {
            world,
            gen: &gen,
            scope: &scope,
            controller: None,
            rt: &(),
        };
        let r: Result<f64, RuleError> = e.eval(&cx);
        r.ok()
    }

    #[test]
    fn a_flat_program_gives_what_the_tree_gives() {
        let mut w = World::new(1);
        let class = Id::parse("t:class/planet").expect("id");
        let p = w.create(class, None, Sym::new("board"));
        w.set(p, Sym::new("population"), Value::Float(7.5))
            .expect("set");
        w.set(p, Sym::new("zero"), Value::Float(0.0)).expect("set");
        w.set(p, Sym::new("name"), Value::Text("x".into()))
            .expect("set");
        for text in [
            "value + target.population * 0.01",
            "value * 1.01 + 0.1",
            "-(value - effect_target.population) / 4",
            "max(min(1.0, value), target.population) - abs(-3)",
            "value + target.absent + target.name",
            "value / target.zero",
            "(value - 2) ^ 0.5",
            "2 ^ 3 ^ 2",
            "value / 0",
            "-(value)",
            "(value - 8) ^ 0.5",
            "2 ^ value - 3 * 0.5 / 2",
            "((((((((((((((((1 + value))))))))))))))))",
            "value ^ 0.5",
            "value - target.zero / 0",
            "max(value, target.absent - 1)",
        ] {
            let e = expr(text);
            let flat = Flat::compile(&e).unwrap_or_else(|| panic!("{text}: not flat"));
            for value in [0.0, 1.5, -4.0] {
                let want = tree(&e, &w, p, value).map(f64::to_bits);
                let got = flat.eval(&w, p, value).map(f64::to_bits);
                assert_eq!(got, want, "{text} with value {value}");
            }
        }
    }

    #[test]
    fn the_common_shapes_run_as_one_step() {
        let shape = |text: &str| Flat::compile(&expr(text)).map(|f| f.shape);
        assert!(matches!(
            shape("value + 2"),
            Some(Shape::RunK(BinOp::Add, _))
        ));
        assert!(matches!(
            shape("value * 1.01 + 0.1"),
            Some(Shape::RunKK(BinOp::Mul, _, BinOp::Add, _))
        ));
        assert!(matches!(
            shape("value + target.population * 0.01"),
            Some(Shape::RunTargetK(BinOp::Add, _, BinOp::Mul, _))
        ));
        assert!(matches!(shape("2 + value"), Some(Shape::Ops)));
    }

    /// Expression text over what flat programs read, with every operator.
    fn text() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            (-4i32..9).prop_map(|n| format!("{n}")),
            (0u8..4).prop_map(|n| format!("{}.5", n)),
            Just("value".to_owned()),
            Just("target.population".to_owned()),
            Just("effect_target.zero".to_owned()),
            Just("target.absent".to_owned()),
        ];
        leaf.prop_recursive(5, 40, 2, |inner| {
            let ops = ["+", "-", "*", "/", "^"];
            prop_oneof![
                (inner.clone(), 0..ops.len(), inner.clone())
                    .prop_map(move |(a, o, b)| format!("({a} {} {b})", ops[o])),
                (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("min({a}, {b})")),
                (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("max({a}, {b})")),
                inner.clone().prop_map(|a| format!("abs({a})")),
                inner.prop_map(|a| format!("-({a})")),
            ]
        })
    }

    proptest::proptest! {
        /// Any expression a flat program takes gives what the tree gives, bit for bit,
        /// or fails where the tree fails.
        #[test]
        fn generated_expressions_agree_with_the_tree(t in text(), value in -3.0f64..3.0) {
            let mut w = World::new(1);
            let p = w.create(Id::parse("t:class/planet").expect("id"), None, Sym::new("board"));
            w.set(p, Sym::new("population"), Value::Float(7.5)).expect("set");
            w.set(p, Sym::new("zero"), Value::Float(0.0)).expect("set");
            let e = expr(&t);
            if let Some(flat) = Flat::compile(&e) {
                let want = tree(&e, &w, p, value).map(f64::to_bits);
                proptest::prop_assert_eq!(flat.eval(&w, p, value).map(f64::to_bits), want, "{}", t);
            }
        }
    }

    #[test]
    fn what_reads_beyond_the_target_stays_a_tree() {
        for text in [
            "source.population",
            "target.owner.population",
            "count(x) + 1",
            "tick",
        ] {
            if let Ok(e) = parse(text, &mut NoNames) {
                assert!(Flat::compile(&e).is_none(), "{text}");
            }
        }
        let deep = (0..20).fold(String::from("1"), |s, _| format!("1 - ({s})"));
        assert!(
            Flat::compile(&expr(&deep)).is_none(),
            "deeper than the stack"
        );
    }
}
