//! Reads FreeOrion's FOCS content (`*.focs.txt`) up to the text its parser sees: the
//! preprocessing FreeOrion does before parsing, with every line traced back to where it
//! was written.
//!
//! - `#include "/scripting/common/priorities.macros"` (from the content root) and
//!   `#include "../ship_hulls.macros"` (from the including file's folder) insert a file in
//!   place of the line, each file once.
//! - A macro is defined as a name followed by a body in triple quotes (`NAME '''body'''`,
//!   usually on two lines), in `.macros` files or anywhere else; definitions are taken out
//!   of the text. A later definition of a name replaces an earlier one.
//! - `[[NAME]]` and `[[NAME(a, b)]]` are replaced by the body, with `@1@`, `@2@`, …
//!   replaced by the arguments; bodies may use other macros.
//!
//! [`parse`] then reads the text into a syntax tree of entries and nodes.
//!
//! [`preprocess`] never fails: it returns the expanded text, the origin of each of its
//! lines (file, line, and the macro it came through), and linter-style [`Diagnostic`]s
//! (an include that cannot be read, an undefined macro with the closest defined name, an
//! unclosed `[[` or `'''`, a missing argument, runaway recursion). Turning the text into
//! rules is a loader's job, not this crate's.

mod expand;
mod files;
mod grammar;
mod lex;
mod macros;
mod parse;
pub mod translate;

pub use expand::{preprocess, Origin, Preprocessed};
pub use files::{DirFiles, Files};
pub use grammar::ENTRIES;
pub use macros::{Macro, Macros};
pub use parse::{Node, Value};

/// The entries of a preprocessed file, or the syntax error that stopped reading it,
/// at its file:line (through the macro it came from, if any).
pub fn parse(pre: &Preprocessed) -> Result<Vec<Node>, Diagnostic> {
    let located = |(line, message): (usize, String)| {
        let origin = pre.origin(line);
        // Through a macro, the line as expanded says where in the expansion.
        let text = pre
            .text
            .lines()
            .nth(line.saturating_sub(1))
            .unwrap_or("")
            .trim();
        let via = origin
            .and_then(|o| o.via.as_deref())
            .map_or(String::new(), |m| {
                format!(" (in the expansion of [[{m}]]: `{text}`)")
            });
        Diagnostic {
            code: "FOCS-SYNTAX",
            severity: Severity::Error,
            file: origin.map_or_else(String::new, |o| o.file.to_string()),
            line: origin.map_or(0, |o| o.line),
            message: format!("{message}{via}"),
            help: Some("see FreeOrion's FOCS documentation for this keyword's parameters".into()),
        }
    };
    let tokens = lex::tokens(&pre.text).map_err(located)?;
    parse::entries(&tokens).map_err(located)
}

/// How serious a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    /// The text cannot be used as written (what follows from it is incomplete).
    Error,
    /// Usable, but suspicious (a macro defined twice with different bodies).
    Warning,
}

/// One finding: a stable code, where, what is wrong and how to fix it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// Stable code: `FOCS-SYNTAX`, `FOCS-INCLUDE`, `FOCS-MACRO-UNDEFINED`, `FOCS-MACRO-UNCLOSED`,
    /// `FOCS-MACRO-ARGS`, `FOCS-MACRO-DEPTH`, `FOCS-MACRO-REDEFINED`.
    pub code: &'static str,
    /// Error or warning.
    pub severity: Severity,
    /// The file (as the preprocessor names it: relative to the content root).
    pub file: String,
    /// 1-based line in that file.
    pub line: u32,
    /// What is wrong.
    pub message: String,
    /// How to fix it.
    pub help: Option<String>,
}

impl std::fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let level = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        write!(
            f,
            "{}:{}: {level}[{}]: {}",
            self.file, self.line, self.code, self.message
        )?;
        if let Some(h) = &self.help {
            write!(f, " (help: {h})")?;
        }
        Ok(())
    }
}

/// The closest of `names` to `name`, if one is close (for "did you mean").
fn closest<'a>(name: &str, names: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    names
        .map(|n| (strsim::levenshtein(name, n), n))
        .filter(|(d, n)| *d <= (name.len().max(n.len()) / 4).max(1))
        .min()
        .map(|(_, n)| n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closest_names_are_suggested_and_far_ones_are_not() {
        let names = ["EARLY_PRIORITY", "LATE_PRIORITY", "RESEARCH_PER_POP"];
        assert_eq!(
            closest("EARLY_PRIORTY", names.iter().copied()),
            Some("EARLY_PRIORITY")
        );
        assert_eq!(closest("TROOPS", names.iter().copied()), None);
    }
}
