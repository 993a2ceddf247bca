//! Diagnostics: what went wrong, where, and how to fix it.
//!
//! Owns [`Diagnostic`] (a stable code, a severity, a message, an optional source location,
//! notes and help lines) and its two renderings: Cargo-style human text with the source
//! line underlined (through `annotate-snippets`, the renderer rustc and Cargo use), and JSON
//! for tools. Every module that reports problems to modders or operators builds these; this
//! module never decides what is an error.

use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Serialize;

/// How bad a diagnostic is. Errors disable what they are about; warnings never fail a check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Something worth knowing that changes nothing.
    Note,
    /// Loads, but probably not what the author meant.
    Warning,
    /// Does not load.
    Error,
}

/// A source file's text, shared so diagnostics can quote it without re-reading the file.
#[derive(Debug, Clone)]
pub struct SourceText {
    /// Where the text came from (shown to the user as given).
    pub path: PathBuf,
    /// The whole text.
    pub text: Arc<str>,
}

impl SourceText {
    /// Wraps a file's text.
    pub fn new(path: impl Into<PathBuf>, text: impl Into<Arc<str>>) -> SourceText {
        SourceText {
            path: path.into(),
            text: text.into(),
        }
    }

    /// 1-based line and column of a byte offset (clamped to the text).
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        line_col(&self.text, offset)
    }
}

/// 1-based line and column (in characters) of a byte offset in `text`.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let col = text[line_start..offset].chars().count() + 1;
    (line, col)
}

/// Where a diagnostic points: a file, and optionally a byte span in it.
#[derive(Debug, Clone)]
pub struct Location {
    /// The file.
    pub path: PathBuf,
    /// The byte span, when known.
    pub span: Option<Range<usize>>,
    /// The file text, when available (for quoting the line).
    pub source: Option<Arc<str>>,
}

impl Location {
    /// A whole file, no span.
    pub fn file(path: impl Into<PathBuf>) -> Location {
        Location {
            path: path.into(),
            span: None,
            source: None,
        }
    }

    /// A span in a file whose text we have.
    pub fn span(source: &SourceText, span: Range<usize>) -> Location {
        Location {
            path: source.path.clone(),
            span: Some(span),
            source: Some(source.text.clone()),
        }
    }

    /// 1-based line and column of the span's start, if both span and text are known.
    pub fn line_col(&self) -> Option<(usize, usize)> {
        match (&self.span, &self.source) {
            (Some(span), Some(text)) => Some(line_col(text, span.start)),
            _ => None,
        }
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line_col() {
            Some((line, col)) => write!(f, "{}:{line}:{col}", self.path.display()),
            None => write!(f, "{}", self.path.display()),
        }
    }
}

/// One problem found in mods, content or configuration.
#[derive(Debug, Clone)]
pub struct Diagnostic {
    /// Stable code for tools (`E-DEP-MISSING`, `E-CONTENT-UNKNOWN-ID`, ...).
    pub code: &'static str,
    /// How bad it is.
    pub severity: Severity,
    /// One lowercase phrase saying what went wrong.
    pub message: String,
    /// Where, when it is about a place in a file.
    pub location: Option<Location>,
    /// Label under the underlined span.
    pub label: Option<String>,
    /// `note:` lines: why, and what else is involved.
    pub notes: Vec<String>,
    /// `help:` lines: how to fix it.
    pub help: Vec<String>,
    /// The mod this is about, if any.
    pub mod_id: Option<String>,
}

impl Diagnostic {
    /// A new error with a code and message.
    pub fn error(code: &'static str, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(Severity::Error, code, message)
    }

    /// A new warning with a code and message.
    pub fn warning(code: &'static str, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(Severity::Warning, code, message)
    }

    fn new(severity: Severity, code: &'static str, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            code,
            severity,
            message: message.into(),
            location: None,
            label: None,
            notes: Vec::new(),
            help: Vec::new(),
            mod_id: None,
        }
    }

    /// Points the diagnostic at a location.
    pub fn at(mut self, location: Location) -> Self {
        self.location = Some(location);
        self
    }

    /// Points the diagnostic at a whole file.
    pub fn in_file(self, path: &Path) -> Self {
        self.at(Location::file(path))
    }

    /// Sets the label under the span.
    pub fn with_label(mut self, label: impl Into<String>) -> Self {
        self.label = Some(label.into());
        self
    }

    /// Adds a `note:` line.
    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }

    /// Adds a `help:` line.
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help.push(help.into());
        self
    }

    /// Names the mod this is about.
    pub fn for_mod(mut self, mod_id: impl Into<String>) -> Self {
        self.mod_id = Some(mod_id.into());
        self
    }

    /// Whether this is an error (not a warning or note).
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// Renders for a terminal: Cargo's layout, with colour when `color` is set.
    pub fn render(&self, color: bool) -> String {
        use annotate_snippets::{Level, Renderer, Snippet};
        let level = match self.severity {
            Severity::Error => Level::Error,
            Severity::Warning => Level::Warning,
            Severity::Note => Level::Note,
        };
        let title = match &self.mod_id {
            Some(m) => format!("{} (mod `{m}`)", self.message),
            None => self.message.clone(),
        };
        let origin = self
            .location
            .as_ref()
            .map(Location::to_string)
            .unwrap_or_default();
        let renderer = if color {
            Renderer::styled()
        } else {
            Renderer::plain()
        };
        let mut message = level.title(&title).id(self.code);
        if let Some(loc) = &self.location {
            match (&loc.span, &loc.source) {
                (Some(span), Some(text)) => {
                    let span = clamp_span(text, span.clone());
                    message = message.snippet(
                        Snippet::source(text)
                            .line_start(1)
                            .origin(&origin)
                            .fold(true)
                            .annotation(
                                level.span(span).label(self.label.as_deref().unwrap_or("")),
                            ),
                    );
                }
                _ => {
                    message = message.footer(Level::Note.title(&origin));
                }
            }
        }
        for n in &self.notes {
            message = message.footer(Level::Note.title(n));
        }
        for h in &self.help {
            message = message.footer(Level::Help.title(h));
        }
        let rendered = renderer.render(message).to_string();
        rendered
    }

    /// The JSON form for `--format json`: stable keys, `code` never changes meaning.
    pub fn to_json(&self) -> serde_json::Value {
        let (line, column) = self
            .location
            .as_ref()
            .and_then(Location::line_col)
            .map_or((None, None), |(l, c)| (Some(l), Some(c)));
        serde_json::json!({
            "code": self.code,
            "severity": self.severity,
            "message": self.message,
            "mod": self.mod_id,
            "file": self.location.as_ref().map(|l| l.path.display().to_string()),
            "line": line,
            "column": column,
            "label": self.label,
            "notes": self.notes,
            "help": self.help,
        })
    }
}

/// Keeps a span inside the text and on character boundaries, so rendering never panics.
fn clamp_span(text: &str, span: Range<usize>) -> Range<usize> {
    let fix = |mut i: usize| {
        i = i.min(text.len());
        while !text.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    let start = fix(span.start);
    let end = fix(span.end.max(span.start));
    start..end.max(start)
}

/// One line: `error[CODE]: message at file:line:col`.
impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sev = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        };
        write!(f, "{sev}[{}]: {}", self.code, self.message)?;
        if let Some(loc) = &self.location {
            write!(f, " at {loc}")?;
        }
        for h in &self.help {
            write!(f, "; help: {h}")?;
        }
        Ok(())
    }
}

/// A list of diagnostics returned together (resolution and loading report everything at once).
#[derive(Debug, Clone, Default)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl Diagnostics {
    /// Adds one.
    pub fn push(&mut self, d: Diagnostic) {
        self.0.push(d);
    }

    /// Whether any is an error.
    pub fn has_errors(&self) -> bool {
        self.0.iter().any(Diagnostic::is_error)
    }

    /// Renders all, separated by blank lines.
    pub fn render(&self, color: bool) -> String {
        self.0
            .iter()
            .map(|d| d.render(color))
            .collect::<Vec<_>>()
            .join("\n\n")
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for d in &self.0 {
            writeln!(f, "{d}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostics {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_is_one_based() {
        assert_eq!(line_col("ab\ncd", 0), (1, 1));
        assert_eq!(line_col("ab\ncd", 4), (2, 2));
        assert_eq!(line_col("ab", 99), (1, 3));
    }

    #[test]
    fn renders_source_line_with_code_and_help() {
        let src = SourceText::new(
            "mods/a/content/cards.toml",
            "[class.wolf]\nattack = \"x\"\n",
        );
        let d = Diagnostic::error("E-CONTENT-TYPE", "expected a number")
            .at(Location::span(&src, 22..25))
            .with_label("this is text")
            .with_help("write `attack = 2`");
        let out = d.render(false);
        assert!(
            out.contains("error[E-CONTENT-TYPE]: expected a number"),
            "{out}"
        );
        assert!(out.contains("mods/a/content/cards.toml:2:10"), "{out}");
        assert!(out.contains("attack = \"x\""), "{out}");
        assert!(out.contains("help: write `attack = 2`"), "{out}");
        assert_eq!(d.to_json()["line"], 2);
        assert!(d.to_string().contains("cards.toml:2:10"));
    }

    #[test]
    fn out_of_range_spans_do_not_panic() {
        let src = SourceText::new("x.toml", "é");
        let d = Diagnostic::error("E-X", "m").at(Location::span(&src, 1..50));
        let _ = d.render(true);
    }
}
