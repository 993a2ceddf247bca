//! FOCS tokens: words, numbers, strings and operators, each with the 1-based line of the
//! preprocessed text it is on; `//` and `/* */` comments skipped.

/// One token.
#[derive(Debug, Clone, PartialEq)]
pub enum Tok {
    /// A name: `Tech`, `researchcost`, `Source`.
    Word(String),
    /// A number as written.
    Num(f64),
    /// A double-quoted string, without its quotes.
    Str(String),
    /// An operator or bracket: `= + - * / ^ ( ) [ ] , . < > <= >= == !=`.
    Op(&'static str),
}

/// A token and its line.
#[derive(Debug, Clone, PartialEq)]
pub struct Token {
    /// The token.
    pub tok: Tok,
    /// 1-based line in the preprocessed text.
    pub line: usize,
    /// Whether it follows the previous token with nothing between (`max(` is a call;
    /// `Human (…)` is a node and a parenthesized value).
    pub glued: bool,
}

const OPS: &[&str] = &[
    "<=", ">=", "==", "!=", "=", "+", "-", "*", "/", "^", "(", ")", "[", "]", ",", ".", "<", ">",
];

/// The tokens of `text`, or the line and description of the first thing that is not one.
pub fn tokens(text: &str) -> Result<Vec<Token>, (usize, String)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1);
    let mut last_end = usize::MAX;
    while i < b.len() {
        let c = b[i];
        let rest = &text[i..];
        let glued = last_end == i;
        let before = out.len();
        if c == b'\n' {
            line += 1;
            i += 1;
        } else if c.is_ascii_whitespace() {
            i += 1;
        } else if rest.starts_with("//") {
            i += rest.find('\n').unwrap_or(rest.len());
        } else if let Some(body) = rest.strip_prefix("/*") {
            let end = body
                .find("*/")
                .ok_or((line, "a `/*` comment that never closes".to_owned()))?;
            line += rest[..end + 4].matches('\n').count();
            i += end + 4;
        } else if c == b'"' {
            let end = rest[1..]
                .find('"')
                .ok_or((line, "a string that never closes".to_owned()))?;
            let s = &rest[1..=end];
            out.push(Token {
                tok: Tok::Str(s.to_owned()),
                line,
                glued: false,
            });
            line += s.matches('\n').count();
            i += end + 2;
        } else if c.is_ascii_digit() || leading_point(b, i) {
            let len = rest
                .find(|ch: char| !(ch.is_ascii_digit() || ch == '.'))
                .unwrap_or(rest.len());
            let n = rest[..len]
                .parse::<f64>()
                .map_err(|_| (line, format!("`{}` is not a number", &rest[..len])))?;
            out.push(Token {
                tok: Tok::Num(n),
                line,
                glued: false,
            });
            i += len;
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let len = rest
                .find(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_'))
                .unwrap_or(rest.len());
            out.push(Token {
                tok: Tok::Word(rest[..len].to_owned()),
                line,
                glued: false,
            });
            i += len;
        } else if let Some(op) = OPS.iter().find(|op| rest.starts_with(**op)) {
            out.push(Token {
                tok: Tok::Op(op),
                line,
                glued: false,
            });
            i += op.len();
        } else {
            let ch = rest.chars().next().unwrap_or(' ');
            return Err((line, format!("unexpected character `{ch}`")));
        }
        if out.len() > before {
            if let Some(t) = out.last_mut() {
                t.glued = glued;
            }
            last_end = i;
        }
    }
    Ok(out)
}

/// Whether `b[i]` is the point of a number written without its 0 (`Value * .5`), not the
/// dot of a reference (`Source.Owner`).
fn leading_point(b: &[u8], i: usize) -> bool {
    let digit_after = b.get(i + 1).is_some_and(u8::is_ascii_digit);
    let name_before = i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
    b[i] == b'.' && digit_after && !name_before
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_numbers_strings_and_operators_with_lines() -> Result<(), (usize, String)> {
        let t =
            tokens("Tech // x\n  name = \"A\" /* a\nb */ cost = 12 * 0.5 <= Source.Owner").unwrap();
        let toks: Vec<_> = t.iter().map(|t| (t.tok.clone(), t.line)).collect();
        assert_eq!(toks[0], (Tok::Word("Tech".into()), 1));
        assert_eq!(toks[2], (Tok::Op("="), 2));
        assert_eq!(toks[3], (Tok::Str("A".into()), 2));
        assert_eq!(toks[4], (Tok::Word("cost".into()), 3));
        assert_eq!(toks[8], (Tok::Num(0.5), 3));
        assert_eq!(toks[9], (Tok::Op("<="), 3));
        assert_eq!(toks[11], (Tok::Op("."), 3));
        assert!(
            t[11].glued && t[12].glued && !t[10].glued,
            "Source.Owner is glued"
        );
        assert_eq!(
            tokens("x * .5")?.get(2).map(|t| t.tok.clone()),
            Some(Tok::Num(0.5))
        );
        assert_eq!(tokens("a = \"open").unwrap_err().0, 1);
        assert_eq!(
            tokens("a\n = @").unwrap_err(),
            (2, "unexpected character `@`".to_owned())
        );
        Ok(())
    }
}
