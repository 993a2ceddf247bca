//! Parsing expression text into an [`Expr`](super::Expr): the grammar in the module doc
//! of `rules::expr`, names resolved through [`Names`] (aliases, selector refs).

use std::sync::Arc;

use super::*;

/// Resolves names that are not built in: aliases (named constants or expressions) and
/// named selectors for `count(...)`.
pub trait Names {
    /// The expression an alias stands for, if `name` is one.
    fn alias(&mut self, name: &str) -> Result<Option<Expr>, NameError>;
    /// The selector `name` stands for, for `count(name)`.
    fn selector(&mut self, name: &str) -> Result<Arc<dyn Selector>, NameError>;
}

/// Parses an expression. An error names the column (1-based) in the text and keeps its
/// span.
pub fn parse(text: &str, names: &mut dyn Names) -> Result<Expr, ExprError> {
    let mut p = Parser {
        s: text.as_bytes(),
        text,
        pos: 0,
        names,
    };
    let e = p.expr()?;
    p.ws();
    if p.pos < p.s.len() {
        return Err(p.err(&format!("unexpected `{}`", &text[p.pos..])));
    }
    Ok(e)
}

struct Parser<'a> {
    s: &'a [u8],
    text: &'a str,
    pos: usize,
    names: &'a mut dyn Names,
}

impl Parser<'_> {
    fn err(&self, msg: &str) -> ExprError {
        ExprError::at(self.text, self.pos, msg)
    }
    fn ws(&mut self) {
        while self.pos < self.s.len() && self.s[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
    }
    fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.s.get(self.pos).copied()
    }
    fn eat(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }
    fn expr(&mut self) -> Result<Expr, ExprError> {
        let mut lhs = self.term()?;
        loop {
            let op = match self.peek() {
                Some(b'+') => BinOp::Add,
                Some(b'-') => BinOp::Sub,
                _ => return Ok(lhs),
            };
            self.pos += 1;
            let rhs = self.term()?;
            lhs = Expr::Bin(op, Box::new(lhs), Box::new(rhs));
        }
    }
    fn term(&mut self) -> Result<Expr, ExprError> {
        let mut lhs = self.power()?;
        loop {
            let op = match self.peek() {
                Some(b'*') => BinOp::Mul,
                Some(b'/') => BinOp::Div,
                _ => return Ok(lhs),
            };
            self.pos += 1;
            let rhs = self.power()?;
            lhs = Expr::Bin(op, Box::new(lhs), Box::new(rhs));
        }
    }
    /// `a ^ b` (right-associative, above `*` and `/`, below unary minus's operand).
    fn power(&mut self) -> Result<Expr, ExprError> {
        let base = self.unary()?;
        if !self.eat(b'^') {
            return Ok(base);
        }
        let exp = self.power()?;
        Ok(Expr::Bin(BinOp::Pow, Box::new(base), Box::new(exp)))
    }
    fn unary(&mut self) -> Result<Expr, ExprError> {
        if self.eat(b'-') {
            return Ok(match self.unary()? {
                Expr::Num(n) => Expr::Num(-n),
                e => Expr::Neg(Box::new(e)),
            });
        }
        self.atom()
    }
    fn word(&mut self) -> &str {
        let start = self.pos;
        while self.pos < self.s.len()
            && (self.s[self.pos].is_ascii_alphanumeric() || matches!(self.s[self.pos], b'_' | b'.'))
        {
            self.pos += 1;
        }
        &self.text[start..self.pos]
    }
    fn atom(&mut self) -> Result<Expr, ExprError> {
        match self.peek() {
            None => Err(self.err("expected a number, dice or reference but the expression ended")),
            Some(b'(') => {
                self.pos += 1;
                let e = self.expr()?;
                if !self.eat(b')') {
                    return Err(self.err("expected `)`"));
                }
                Ok(e)
            }
            Some(c) if c.is_ascii_digit() => self.number_or_dice(),
            Some(c) if c.is_ascii_alphabetic() || c == b'_' || c == b'$' => self.named(),
            Some(c) => Err(self.err(&format!("unexpected `{}`", c as char))),
        }
    }
    /// A word: a function call (`min`, `max`, `count`, `sum`), a path to a property or
    /// event field, or an alias.
    fn named(&mut self) -> Result<Expr, ExprError> {
        let start = self.pos;
        let w = self.word().to_owned();
        if w.is_empty() {
            return Err(self.err("unexpected character"));
        }
        match w.as_str() {
            "min" | "max" => self.min_max(&w),
            "count" => {
                if !self.eat(b'(') {
                    return Err(self.err("expected `(` after `count`"));
                }
                self.ws();
                let name = self.word().to_owned();
                if !self.eat(b')') {
                    return Err(self.err(
                        "`count` takes the name of a selector ref, e.g. `count(friendly_minions)`",
                    ));
                }
                let sel = self.names.selector(&name).map_err(|m| self.err(&m.0))?;
                Ok(Expr::Count(sel))
            }
            "sum" => self.sum(),
            "value" => Ok(Expr::Running),
            "tick" => Ok(Expr::Tick),
            "abs" => {
                if !self.eat(b'(') {
                    return Err(self.err("expected `(` after `abs`"));
                }
                let e = self.expr()?;
                if !self.eat(b')') {
                    return Err(self.err("expected `)`"));
                }
                Ok(Expr::Abs(Box::new(e)))
            }
            "jumps" | "distance" if self.text[self.pos..].trim_start().starts_with('(') => {
                self.object_pair(&w)
            }
            _ if w.contains('.') => self.path(&w, start),
            _ => match self.names.alias(&w).map_err(|m| {
                self.pos = start;
                self.err(&m.0)
            })? {
                Some(e) => Ok(e),
                None => {
                    self.pos = start;
                    Err(self.err(&format!(
                        "unknown name `{w}`; write a property as `self.{w}` or `target.{w}`, or define an alias `{w}` in `[alias]`"
                    )))
                }
            },
        }
    }
    /// `min(a, b)` or `max(a, b)`, after the name.
    fn min_max(&mut self, w: &str) -> Result<Expr, ExprError> {
        let op = if w == "min" { BinOp::Min } else { BinOp::Max };
        if !self.eat(b'(') {
            return Err(self.err(&format!("expected `(` after `{w}`")));
        }
        let a = self.expr()?;
        if !self.eat(b',') {
            return Err(self.err(&format!("`{w}` takes two arguments separated by `,`")));
        }
        let b = self.expr()?;
        if !self.eat(b')') {
            return Err(self.err("expected `)`"));
        }
        Ok(Expr::Bin(op, Box::new(a), Box::new(b)))
    }
    /// `sum(selector_ref, property)`, after the name.
    fn sum(&mut self) -> Result<Expr, ExprError> {
        if !self.eat(b'(') {
            return Err(self.err("expected `(` after `sum`"));
        }
        self.ws();
        let name = self.word().to_owned();
        let usage =
            "`sum` takes a selector ref and a property, e.g. `sum(friendly_minions, attack)`";
        if !self.eat(b',') {
            return Err(self.err(usage));
        }
        self.ws();
        let key = self.word().to_owned();
        check_ident(&key).map_err(|m| self.err(&m))?;
        if !self.eat(b')') {
            return Err(self.err(usage));
        }
        let sel = self.names.selector(&name).map_err(|m| self.err(&m.0))?;
        Ok(Expr::Sum(sel, Sym::new(&key)))
    }
    /// `jumps(a, b)` or `distance(a, b)` over two object references, after the name.
    fn object_pair(&mut self, w: &str) -> Result<Expr, ExprError> {
        let usage = format!("`{w}` takes two objects, e.g. `{w}(source, target.parent)`");
        let arg = |p: &mut Self, before: u8| -> Result<ObjRef, ExprError> {
            if !p.eat(before) {
                return Err(p.err(&usage));
            }
            p.ws();
            let start = p.pos;
            let text = p.word().to_owned();
            ObjRef::parse(&text).map_err(|e| {
                p.pos = start;
                p.err(&e.message)
            })
        };
        let a = arg(self, b'(')?;
        let b = arg(self, b',')?;
        if !self.eat(b')') {
            return Err(self.err(&usage));
        }
        Ok(if w == "jumps" {
            Expr::Jumps(a, b)
        } else {
            Expr::Distance(a, b)
        })
    }
    /// A dotted word read at `start`: `event.<field>`, `event.last.<key>`, or
    /// `<object path>.<property>`.
    fn path(&mut self, w: &str, start: usize) -> Result<Expr, ExprError> {
        let (head, rest) = w.split_once('.').unwrap_or((w, ""));
        if head == "event" && !rest.contains('.') {
            check_ident(rest).map_err(|m| self.err(&m))?;
            return Ok(Expr::EventField(Sym::new(rest)));
        }
        if let Some(key) = rest.strip_prefix("last.") {
            if head == "event" {
                check_ident(key).map_err(|m| self.err(&m))?;
                return Ok(Expr::LastKnown(Sym::new(key)));
            }
        }
        let (path, key) = w.rsplit_once('.').unwrap_or((w, ""));
        let obj = ObjRef::parse(path).map_err(|e| {
            self.pos = start;
            self.err(&e.message)
        })?;
        check_ident(key).map_err(|m| self.err(&m))?;
        Ok(Expr::Prop {
            obj,
            key: Sym::new(key),
        })
    }
    fn number_or_dice(&mut self) -> Result<Expr, ExprError> {
        let start = self.pos;
        while self.pos < self.s.len()
            && (self.s[self.pos].is_ascii_digit() || self.s[self.pos] == b'.')
        {
            self.pos += 1;
        }
        let num = &self.text[start..self.pos];
        if self.s.get(self.pos) == Some(&b'd')
            && self.s.get(self.pos + 1).is_some_and(u8::is_ascii_digit)
        {
            self.pos += 1;
            let sstart = self.pos;
            while self.pos < self.s.len() && self.s[self.pos].is_ascii_digit() {
                self.pos += 1;
            }
            let count: u32 = num
                .parse()
                .map_err(|_| self.err("dice count must be a whole number"))?;
            let sides: u32 = self.text[sstart..self.pos]
                .parse()
                .map_err(|_| self.err("dice sides must be a whole number"))?;
            if count == 0 || sides == 0 || count > 1000 {
                return Err(self.err("dice need 1 to 1000 dice of at least 1 side (e.g. `3d8`)"));
            }
            return Ok(Expr::Dice { count, sides });
        }
        num.parse::<f64>()
            .map(Expr::Num)
            .map_err(|_| self.err(&format!("`{num}` is not a number")))
    }
}
