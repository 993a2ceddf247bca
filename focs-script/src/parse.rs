//! The FOCS syntax tree: entries (`Tech`, `BuildingType`, `Species`, …) of nodes with
//! labelled parameters (`name = value`), positional arguments (`And [ … ]`, `Not X`),
//! lists and arithmetic.
//!
//! Which node takes a label is decided by the rules in grammar.rs.

use crate::grammar::{takes, CONDITION_LABELS, ENTRIES, ENUM_LABELS, FLAGS, PREFIX, REPEATABLE};
use crate::lex::{Tok, Token};

/// A value in the tree.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// A number.
    Num(f64),
    /// A string.
    Str(String),
    /// A dotted reference: `Source.Owner`, `Target.HabitableSize`.
    Ref(Vec<String>),
    /// A node: a condition, effect, value or enumeration word.
    Node(Node),
    /// `[ … ]`.
    List(Vec<Value>),
    /// `label = value` inside a list (`parameters = [ tag = "planet" data = Target.ID ]`).
    Labelled(String, Box<Value>),
    /// `a op b` with `op` one of `+ - * / ^ < > <= >= == !=`.
    Binary(&'static str, Box<Value>, Box<Value>),
    /// `-a`.
    Neg(Box<Value>),
    /// `max(a, b)`, `min`, `abs`, `floor`.
    Call(String, Vec<Value>),
}

/// A keyword with its parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// The keyword: `Tech`, `EffectsGroup`, `OwnedBy`, `SetTargetResearch`.
    pub kind: String,
    /// 1-based line (of the preprocessed text) of the keyword.
    pub line: usize,
    /// Labelled parameters, in order.
    pub params: Vec<(String, Value)>,
    /// Positional arguments (`And [ … ]` has one list; `Not X` one node; `Statistic
    /// Count …` the word `Count`).
    pub args: Vec<Value>,
}

impl Node {
    /// The value of label `name`.
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.params.iter().find(|(k, _)| k == name).map(|(_, v)| v)
    }
}

/// A parse error: the line and what was expected.
pub type ParseError = (usize, String);

/// Reads the entries of a token stream.
pub fn entries(tokens: &[Token]) -> Result<Vec<Node>, ParseError> {
    let mut p = Parser {
        t: tokens,
        i: 0,
        parens: 0,
    };
    let mut out = Vec::new();
    while let Some(tok) = p.peek() {
        match tok {
            Tok::Word(w) if ENTRIES.contains(&w.as_str()) => {
                let w = w.clone();
                let line = p.line();
                p.i += 1;
                out.push(p.node(w, line, true)?);
            }
            other => {
                let what = describe(other);
                return Err((
                    p.line(),
                    format!("expected an entry ({}), found {what}", ENTRIES.join(", ")),
                ));
            }
        }
    }
    Ok(out)
}

fn describe(t: &Tok) -> String {
    match t {
        Tok::Word(w) => format!("`{w}`"),
        Tok::Num(n) => format!("the number {n}"),
        Tok::Str(s) => format!("the string \"{s}\""),
        Tok::Op(o) => format!("`{o}`"),
    }
}

struct Parser<'a> {
    t: &'a [Token],
    i: usize,
    /// How many parentheses are open (inside them, `=` compares).
    parens: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.t.get(self.i).map(|t| &t.tok)
    }

    fn peek_at(&self, k: usize) -> Option<&Tok> {
        self.t.get(self.i + k).map(|t| &t.tok)
    }

    fn line(&self) -> usize {
        self.t
            .get(self.i)
            .or_else(|| self.t.last())
            .map_or(1, |t| t.line)
    }

    fn is_op(&self, op: &str) -> bool {
        matches!(self.peek(), Some(Tok::Op(o)) if *o == op)
    }

    fn expect(&mut self, op: &str) -> Result<(), ParseError> {
        if self.is_op(op) {
            self.i += 1;
            return Ok(());
        }
        let found = self.peek().map_or("the end of the file".into(), describe);
        Err((self.line(), format!("expected `{op}`, found {found}")))
    }

    /// A label ahead (`word =`, not `word ==`).
    fn label_ahead(&self) -> Option<String> {
        match (self.peek(), self.peek_at(1)) {
            (Some(Tok::Word(w)), Some(Tok::Op("="))) => Some(w.clone()),
            _ => None,
        }
    }

    /// The rest of a node after its keyword.
    fn node(&mut self, kind: String, line: usize, entry: bool) -> Result<Node, ParseError> {
        let mut n = Node {
            kind,
            line,
            params: Vec::new(),
            args: Vec::new(),
        };
        if PREFIX.contains(&n.kind.as_str()) && self.label_ahead().is_none() {
            n.args.push(self.operand()?);
        } else if self.is_op("[") && !entry {
            n.args.push(self.list()?);
        }
        loop {
            if entry {
                if let Some(Tok::Word(flag)) = self.peek() {
                    if FLAGS.contains(&flag.as_str()) {
                        let flag = Node {
                            kind: flag.clone(),
                            line: self.line(),
                            params: Vec::new(),
                            args: Vec::new(),
                        };
                        self.i += 1;
                        n.args.push(Value::Node(flag));
                        continue;
                    }
                }
            }
            let Some(label) = self.label_ahead() else {
                break;
            };
            let again = !entry && n.get(&label).is_some() && !REPEATABLE.contains(&label.as_str());
            if !takes(&n.kind, entry, &label) || again {
                break;
            }
            self.i += 2;
            let v = match label.as_str() {
                l if ENUM_LABELS.contains(&l) => self.enum_value()?,
                "parameters" if !self.is_op("[") => self.pairs()?,
                l if CONDITION_LABELS.contains(&l) => self.operand()?,
                // A quoted name ends the value: `NamedRealLookup name = "X" + 2` adds 2 to
                // the lookup, not to the name.
                _ if matches!(self.peek(), Some(Tok::Str(_))) => self.operand()?,
                // A name is never a comparison: in `(SpeciesContentOpinion … name =
                // ThisSpecial > 0)` the `> 0` compares the opinion.
                "name" => self.binary(1)?,
                _ => self.expr()?,
            };
            n.params.push((label, v));
        }
        Ok(n)
    }

    /// An enumeration word, a string, a reference or a list of them.
    fn enum_value(&mut self) -> Result<Value, ParseError> {
        match self.peek() {
            Some(Tok::Op("[")) => {
                self.i += 1;
                let mut items = Vec::new();
                while !self.is_op("]") {
                    if self.peek().is_none() {
                        return Err((self.line(), "a list that never closes".into()));
                    }
                    items.push(self.enum_value()?);
                }
                self.i += 1;
                Ok(Value::List(items))
            }
            Some(Tok::Word(w)) if !matches!(self.peek_at(1), Some(Tok::Op("." | "("))) => {
                let node = Node {
                    kind: w.clone(),
                    line: self.line(),
                    params: Vec::new(),
                    args: Vec::new(),
                };
                self.i += 1;
                Ok(Value::Node(node))
            }
            _ => self.expr(),
        }
    }

    /// The rest of `( a )` or of a tuple `( a, b )` (a position), after the `(`.
    fn tuple(&mut self) -> Result<Value, ParseError> {
        let first = self.expr()?;
        if !self.is_op(",") {
            self.expect(")")?;
            return Ok(first);
        }
        let mut items = vec![first];
        while self.is_op(",") {
            self.i += 1;
            items.push(self.expr()?);
        }
        self.expect(")")?;
        Ok(Value::List(items))
    }

    /// `tag = a data = b` written without brackets (a sitrep's one parameter).
    fn pairs(&mut self) -> Result<Value, ParseError> {
        let mut items = Vec::new();
        for want in ["tag", "data"] {
            match self.label_ahead() {
                Some(l) if l == want => {
                    self.i += 2;
                    items.push(Value::Labelled(l, Box::new(self.expr()?)));
                }
                _ => {
                    return Err((
                        self.line(),
                        format!("expected `{want} = …` in `parameters`"),
                    ))
                }
            }
        }
        Ok(Value::List(items))
    }

    /// `[ item … ]`, items optionally separated by commas.
    fn list(&mut self) -> Result<Value, ParseError> {
        self.expect("[")?;
        let mut items = Vec::new();
        loop {
            if self.is_op("]") {
                self.i += 1;
                return Ok(Value::List(items));
            }
            if self.peek().is_none() {
                return Err((self.line(), "a list that never closes".into()));
            }
            if self.is_op(",") {
                self.i += 1;
                continue;
            }
            if let Some(label) = self.label_ahead() {
                self.i += 2;
                items.push(Value::Labelled(label, Box::new(self.expr()?)));
            } else {
                items.push(self.expr()?);
            }
        }
    }

    /// An expression: comparisons over sums over products over powers over operands.
    fn expr(&mut self) -> Result<Value, ParseError> {
        self.binary(0)
    }

    fn binary(&mut self, level: usize) -> Result<Value, ParseError> {
        const LEVELS: &[&[&str]] = &[
            &["<=", ">=", "==", "!=", "<", ">"],
            &["+", "-"],
            &["*", "/"],
            &["^"],
        ];
        let Some(ops) = LEVELS.get(level) else {
            return self.unary();
        };
        let mut lhs = self.binary(level + 1)?;
        while let Some(Tok::Op(op)) = self.peek() {
            let eq = level == 0 && *op == "=" && self.parens > 0;
            let Some(op) = ops.iter().find(|o| *o == op).or(eq.then_some(&"==")) else {
                break;
            };
            self.i += 1;
            let rhs = self.binary(level + 1)?;
            lhs = Value::Binary(op, Box::new(lhs), Box::new(rhs));
        }
        Ok(lhs)
    }

    fn unary(&mut self) -> Result<Value, ParseError> {
        if self.is_op("-") {
            self.i += 1;
            return Ok(Value::Neg(Box::new(self.unary()?)));
        }
        self.operand()
    }

    /// A number, string, list, parenthesized expression, call, reference or node.
    fn operand(&mut self) -> Result<Value, ParseError> {
        let line = self.line();
        let Some(tok) = self.peek().cloned() else {
            return Err((line, "expected a value, found the end of the file".into()));
        };
        self.i += 1;
        match tok {
            Tok::Num(n) => Ok(Value::Num(n)),
            Tok::Str(s) => Ok(Value::Str(s)),
            Tok::Op("[") => {
                self.i -= 1;
                self.list()
            }
            Tok::Op("(") => {
                self.parens += 1;
                let v = self.tuple();
                self.parens -= 1;
                v
            }
            Tok::Word(w) if self.is_op("(") && self.t[self.i].glued => {
                self.i += 1;
                let mut args = vec![self.expr()?];
                while self.is_op(",") {
                    self.i += 1;
                    args.push(self.expr()?);
                }
                self.expect(")")?;
                Ok(Value::Call(w, args))
            }
            Tok::Word(w) if self.is_op(".") => {
                let mut path = vec![w];
                while self.is_op(".") {
                    self.i += 1;
                    match self.peek().cloned() {
                        Some(Tok::Word(part)) => {
                            self.i += 1;
                            path.push(part);
                        }
                        _ => return Err((self.line(), "expected a name after `.`".into())),
                    }
                }
                Ok(Value::Ref(path))
            }
            Tok::Word(w) if w.starts_with(|c: char| c.is_ascii_uppercase()) => {
                Ok(Value::Node(self.node(w, line, false)?))
            }
            // A lowercase enumeration word (`OneOf(tiny, small)`); a label is not a value.
            Tok::Word(w) if !self.is_op("=") => Ok(Value::Node(Node {
                kind: w,
                line,
                params: Vec::new(),
                args: Vec::new(),
            })),
            other => Err((
                line,
                format!("expected a value, found {}", describe(&other)),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lex::tokens;

    fn one(text: &str) -> Node {
        let mut e = entries(&tokens(text).unwrap()).unwrap();
        assert_eq!(e.len(), 1, "{e:?}");
        e.remove(0)
    }

    fn node(v: Option<&Value>) -> &Node {
        match v {
            Some(Value::Node(n)) => n,
            other => panic!("not a node: {other:?}"),
        }
    }

    #[test]
    fn labels_go_to_the_innermost_node_that_takes_them() {
        let t = one(
            "Tech name = \"T\" effectsgroups = EffectsGroup scope = Source activation = Planet \
             effects = SetTargetPopulation value = Value + 1 accountinglabel = \"L\" \
             graphic = \"g.png\"",
        );
        let g = node(t.get("effectsgroups"));
        // `Source` and `Planet` take no group labels; the effect takes its label.
        assert_eq!(node(g.get("scope")).params, vec![]);
        assert_eq!(node(g.get("activation")).kind, "Planet");
        let e = node(g.get("effects"));
        assert_eq!(e.get("accountinglabel"), Some(&Value::Str("L".into())));
        assert!(g.get("accountinglabel").is_none());
        // After the group, the entry's own label.
        assert_eq!(t.get("graphic"), Some(&Value::Str("g.png".into())));
    }

    #[test]
    fn enumerations_prefixes_flags_and_repeated_labels() {
        let t = one(
            "Species name = \"S\" Playable CanColonize tags = [ \"A\" ] \
             location = Enqueued type = Building name = \"B\" \
             effectsgroups = [ EffectsGroup scope = Not Contains Building name = \"X\" \
               effects = SetTargetResearch value = Statistic Count condition = Planet \
                 * JumpsBetween object = Source.ID object = Target.ID ]",
        );
        let flags: Vec<&str> = t.args.iter().map(|a| node(Some(a)).kind.as_str()).collect();
        assert_eq!(flags, ["Playable", "CanColonize"]);
        assert!(t.get("tags").is_some(), "a flag takes no labels");
        // `type = Building` is an enumeration: `name` is Enqueued's.
        let enq = node(t.get("location"));
        assert_eq!(node(enq.get("type")).params, vec![]);
        assert_eq!(enq.get("name"), Some(&Value::Str("B".into())));
        let Some(Value::List(groups)) = t.get("effectsgroups") else {
            panic!()
        };
        let g = node(groups.first());
        let not = node(g.get("scope"));
        let contains = node(not.args.first());
        assert_eq!(
            (not.kind.as_str(), contains.kind.as_str()),
            ("Not", "Contains")
        );
        let effect = node(g.get("effects"));
        let Some(Value::Binary("*", stat, jumps)) = effect.get("value") else {
            panic!("{effect:?}")
        };
        let stat = node(Some(stat));
        assert_eq!(node(stat.args.first()).kind, "Count");
        let jumps = node(Some(jumps));
        assert_eq!(jumps.params.len(), 2, "`object` twice");
    }

    #[test]
    fn calls_tuples_comparisons_and_bare_parameters() {
        let t = one(
            "Hull name = \"H\" slots = [ Slot type = External position = (0.5, .25) ] \
             effectsgroups = EffectsGroup scope = And [ Human (GalaxyMaxAIAggression = 0) ] \
             effects = [ SetTargetIndustry value = max(6, Value * 2) \
               GenerateSitRepMessage message = \"M\" icon = \"i.png\" \
                 parameters = tag = \"planet\" data = Target.ID empire = Source.Owner ]",
        );
        let Some(Value::List(slots)) = t.get("slots") else {
            panic!()
        };
        let pos = node(slots.first()).get("position");
        let tuple = Value::List(vec![Value::Num(0.5), Value::Num(0.25)]);
        assert_eq!(pos, Some(&tuple));
        let g = node(t.get("effectsgroups"));
        let and = node(g.get("scope"));
        let Some(Value::List(items)) = and.args.first() else {
            panic!()
        };
        assert_eq!(
            node(items.first()).kind,
            "Human",
            "`Human (…)` is not a call"
        );
        assert!(matches!(items.get(1), Some(Value::Binary("==", _, _))));
        let Some(Value::List(effects)) = g.get("effects") else {
            panic!()
        };
        let set = node(effects.first());
        assert!(
            matches!(set.get("value"), Some(Value::Call(f, args)) if f == "max" && args.len() == 2)
        );
        let sitrep = node(effects.get(1));
        assert!(sitrep.get("icon").is_some() && sitrep.get("empire").is_some());
        assert!(matches!(sitrep.get("parameters"), Some(Value::List(p)) if p.len() == 2));
        assert_eq!(t.get("graphic"), None);
    }

    #[test]
    fn errors_name_the_line_and_what_was_expected() {
        let err =
            entries(&tokens("Tech name = \"T\"\n researchcost = (1 + \n").unwrap()).unwrap_err();
        assert_eq!(err.0, 2);
        assert!(err.1.contains("expected a value"), "{err:?}");
        let err = entries(&tokens("Tehc name = \"T\"").unwrap()).unwrap_err();
        assert!(err.1.contains("expected an entry"), "{err:?}");
    }
}
