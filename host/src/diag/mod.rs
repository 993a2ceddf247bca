//! Diagnostics: what went wrong, where, and how to fix it.
//!
//! Owns [`Diagnostic`] (a stable code, a severity, a message, an optional source location,
//! notes and help lines) and its two renderings: Cargo-style human text with the source
//! line underlined (through `annotate-snippets`, the renderer rustc and Cargo use), and JSON
//! for tools. Every module that reports problems to modders or operators builds these; this
//! module never decides what is an error.

use std::collections::HashMap;
use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use serde::Serialize;

/// How bad a diagnostic is. Errors disable what they are about; warnings never fail a check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
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
    /// Byte offsets of line starts, built on first use and shared by every clone.
    lines: Arc<OnceLock<Vec<usize>>>,
}

impl SourceText {
    /// Wraps a file's text.
    pub fn new(path: impl Into<PathBuf>, text: impl Into<Arc<str>>) -> SourceText {
        SourceText {
            path: path.into(),
            text: text.into(),
            lines: Arc::default(),
        }
    }

    /// 1-based line and column of a byte offset (clamped to the text).
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = floor_boundary(&self.text, offset);
        let line = self.line_index(offset);
        let col = self.text[self.line_start(line)..offset].chars().count() + 1;
        (line + 1, col)
    }

    /// The 0-based line holding byte `offset`.
    fn line_index(&self, offset: usize) -> usize {
        let starts = self.lines.get_or_init(|| {
            std::iter::once(0)
                .chain(self.text.match_indices('\n').map(|(i, _)| i + 1))
                .collect()
        });
        starts.partition_point(|&s| s <= offset).saturating_sub(1)
    }

    /// Byte offset where 0-based `line` starts (the text's end past the last line).
    fn line_start(&self, line: usize) -> usize {
        self.lines
            .get()
            .and_then(|l| l.get(line).copied())
            .unwrap_or(self.text.len())
    }

    /// Byte offset where 0-based `line` ends (before its newline).
    fn line_end(&self, line: usize) -> usize {
        let next = self.line_start(line + 1);
        let end = if next > self.line_start(line) && self.text[..next].ends_with('\n') {
            next - 1
        } else {
            next
        };
        end.min(self.text.len())
    }

    /// Byte span of 1-based `line` (without its newline), if the text has that line.
    pub fn line_span(&self, line: usize) -> Option<Range<usize>> {
        self.line_index(0);
        let index = line.checked_sub(1)?;
        let start = self.lines.get()?.get(index).copied()?;
        Some(start..self.line_end(index))
    }
}

/// The largest offset `<= offset` inside `text` on a character boundary.
fn floor_boundary(text: &str, offset: usize) -> usize {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

/// 1-based line and column (in characters) of a byte offset in `text`.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = floor_boundary(text, offset);
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let col = text[line_start..offset].chars().count() + 1;
    (line, col)
}

/// The most a diagnostic quotes of its file: the lines around its span, cut to this many
/// bytes, so a diagnostic never holds more than this of the file however big the file is.
pub const MAX_EXCERPT_BYTES: usize = 1024;

/// The lines of a file a diagnostic quotes, and where its span starts and ends.
#[derive(Debug, Clone)]
pub struct Excerpt {
    /// 1-based line and column of the span's start.
    pub start: (usize, usize),
    /// 1-based line and column of the span's end.
    pub end: (usize, usize),
    /// 1-based line number of the first quoted line.
    pub first_line: usize,
    /// The quoted lines (at most [`MAX_EXCERPT_BYTES`]); empty when the span's first line
    /// alone is longer (minified JSON), and then only the line and column are shown.
    pub text: Box<str>,
    /// The span inside `text`.
    pub span: Range<usize>,
}

impl Excerpt {
    /// Quotes the whole lines of `source` that `span` covers, within [`MAX_EXCERPT_BYTES`].
    fn new(source: &SourceText, span: &Range<usize>) -> Excerpt {
        let text = &source.text;
        let start = floor_boundary(text, span.start);
        let end = floor_boundary(text, span.end.max(start));
        let first = source.line_index(start);
        let last = source.line_index(end.saturating_sub(1).max(start));
        let from = source.line_start(first);
        let mut to = source.line_end(last);
        if to - from > MAX_EXCERPT_BYTES {
            to = source.line_end(first);
        }
        let quoted = if to - from > MAX_EXCERPT_BYTES {
            ""
        } else {
            &text[from..to]
        };
        let rel = |i: usize| (i - from).min(quoted.len());
        Excerpt {
            start: source.line_col(start),
            end: source.line_col(end),
            first_line: first + 1,
            span: rel(start)..rel(end.min(to)).max(rel(start)),
            text: printable(quoted).into(),
        }
    }
}

/// `text` with every control character but tab and line breaks replaced by spaces, one a
/// byte (so spans stay where they were): the snippet renderer miscounts widths on them
/// (a vertical tab made it subtract with overflow), and a terminal should not get them.
fn printable(text: &str) -> String {
    text.chars()
        .flat_map(|c| {
            let blank = c.is_control() && !matches!(c, '\t' | '\n' | '\r');
            let n = if blank { c.len_utf8() } else { 1 };
            std::iter::repeat_n(if blank { ' ' } else { c }, n)
        })
        .collect()
}

/// Where a diagnostic points: a file, and optionally a byte span in it.
#[derive(Debug, Clone)]
pub struct Location {
    /// The file.
    pub path: PathBuf,
    /// The byte span in the file, when known.
    pub span: Option<Range<usize>>,
    /// The quoted lines and the span's line and column, when the text was available. Only
    /// these lines are kept, never the whole file (a file with many warnings stays cheap).
    pub excerpt: Option<Excerpt>,
}

impl Location {
    /// A whole file, no span.
    pub fn file(path: impl Into<PathBuf>) -> Location {
        Location {
            path: path.into(),
            span: None,
            excerpt: None,
        }
    }

    /// A span in a file whose text we have.
    pub fn span(source: &SourceText, span: Range<usize>) -> Location {
        Location {
            path: source.path.clone(),
            excerpt: Some(Excerpt::new(source, &span)),
            span: Some(span),
        }
    }

    /// A whole line (1-based) of a file whose text we have; the whole file if it has no
    /// such line.
    pub fn line(source: &SourceText, line: usize) -> Location {
        match source.line_span(line) {
            Some(span) => Location::span(source, span),
            None => Location::file(&source.path),
        }
    }

    /// 1-based line and column of the span's start, if both span and text are known.
    pub fn line_col(&self) -> Option<(usize, usize)> {
        self.excerpt.as_ref().map(|e| e.start)
    }

    /// 1-based line and column of the span's end, if both span and text are known.
    pub fn end_line_col(&self) -> Option<(usize, usize)> {
        self.excerpt.as_ref().map(|e| e.end)
    }

    /// Bytes of the file this location keeps (its excerpt), for memory accounting.
    pub fn quoted_bytes(&self) -> usize {
        self.excerpt.as_ref().map_or(0, |e| e.text.len())
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
    /// For a summary of folded repeats ([`Diagnostics::fold_repeats`]): how many more
    /// diagnostics like this one it stands for; 0 otherwise.
    pub more: usize,
    /// The unsupported construct of a content format it is about, when a loader named
    /// one (`W-CONTENT-LOADER`): `tessera check --format json` counts them.
    pub construct: Option<String>,
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
            more: 0,
            construct: None,
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

    /// Names the unsupported construct of a content format this is about.
    pub fn with_construct(mut self, construct: Option<String>) -> Self {
        self.construct = construct;
        self
    }

    /// How many problems this diagnostic counts for: 1, or 1 + `more` for a summary.
    pub fn count(&self) -> usize {
        1 + self.more
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
        // With a snippet, annotate-snippets appends line:col itself: give it the bare path.
        let snippet_origin = self
            .location
            .as_ref()
            .map(|l| l.path.display().to_string())
            .unwrap_or_default();
        let renderer = if color {
            Renderer::styled()
        } else {
            Renderer::plain()
        };
        // Never trim quoted lines to a terminal width: excerpts are short already, and
        // annotate-snippets' trimming subtracts with overflow when a span sits inside
        // more than 20 leading blanks of a line longer than the width (found by fuzzing).
        let renderer = renderer.term_width(2 * MAX_EXCERPT_BYTES);
        let mut message = level.title(&title).id(self.code);
        if let Some(loc) = &self.location {
            match &loc.excerpt {
                Some(ex) if !ex.text.is_empty() => {
                    let span = clamp_span(&ex.text, ex.span.clone());
                    message = message.snippet(
                        Snippet::source(&ex.text)
                            .line_start(ex.first_line)
                            .origin(&snippet_origin)
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
            "more": self.more,
            "construct": self.construct,
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

/// How many warnings of one code in one file [`Diagnostics::fold_repeats`] keeps.
pub const MAX_SIMILAR_WARNINGS: usize = 50;

/// The warning standing for `more` warnings like `first` that are not shown.
fn summary(first: &Diagnostic, more: usize) -> Diagnostic {
    let plural = if more == 1 { "" } else { "s" };
    let mut d = Diagnostic::warning(
        first.code,
        format!(
            "… and {more} more warning{plural} like {} in this file",
            first.code
        ),
    )
    .with_help(format!(
        "fix the {MAX_SIMILAR_WARNINGS} shown above and run `tessera check` again to see the rest"
    ));
    d.location = first.location.as_ref().map(|l| Location::file(&l.path));
    d.mod_id.clone_from(&first.mod_id);
    d.more = more - 1;
    d
}

/// A list of diagnostics returned together (resolution and loading report everything at once).
#[derive(Debug, Clone, Default)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl Diagnostics {
    /// Adds one.
    pub fn push(&mut self, d: Diagnostic) {
        self.0.push(d);
    }

    /// Keeps the first `MAX_SIMILAR_WARNINGS` warnings of each code in each file and
    /// replaces the rest with one summary warning of that code (`… and N more`), at the
    /// place of the first one left out. Errors are all kept.
    pub fn fold_repeats(&mut self) {
        type Key = (&'static str, Option<PathBuf>);
        let mut counts: HashMap<Key, usize> = HashMap::new();
        let mut summaries: Vec<(usize, Key)> = Vec::new();
        let mut kept = Vec::with_capacity(self.0.len());
        for d in std::mem::take(&mut self.0) {
            if d.severity != Severity::Warning {
                kept.push(d);
                continue;
            }
            let key = (d.code, d.location.as_ref().map(|l| l.path.clone()));
            let n = counts.entry(key.clone()).or_insert(0);
            *n += 1;
            if *n <= MAX_SIMILAR_WARNINGS {
                kept.push(d);
            } else if *n == MAX_SIMILAR_WARNINGS + 1 {
                summaries.push((kept.len(), key));
                kept.push(d);
            }
        }
        for (at, key) in summaries {
            let more = counts[&key] - MAX_SIMILAR_WARNINGS;
            kept[at] = summary(&kept[at], more);
        }
        self.0 = kept;
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
    fn a_location_keeps_only_the_lines_it_quotes() {
        let big = format!(
            "{}[class.x]\nname = 1\n{}",
            "# pad\n".repeat(100_000),
            "# tail\n".repeat(1000)
        );
        let src = SourceText::new("big.toml", big.as_str());
        let at = big.find("name").unwrap();
        let loc = Location::span(&src, at..at + 4);
        assert_eq!(loc.line_col(), Some((100_002, 1)));
        assert_eq!(loc.quoted_bytes(), "name = 1".len());
        let out = Diagnostic::warning("W-X", "m").at(loc).render(false);
        assert!(
            out.contains("big.toml:100002:1") && out.contains("name = 1"),
            "{out}"
        );
        assert_eq!(Location::line(&src, 100_001).line_col(), Some((100_001, 1)));
        assert!(Location::line(&src, 999_999).line_col().is_none());
    }

    #[test]
    fn a_line_too_long_to_quote_keeps_its_position() {
        let line = "x".repeat(MAX_EXCERPT_BYTES * 4);
        let src = SourceText::new("min.json", line.as_str());
        let loc = Location::span(&src, 3000..3001);
        assert_eq!(loc.quoted_bytes(), 0);
        let out = Diagnostic::error("E-X", "m").at(loc).render(false);
        assert!(out.contains("min.json:1:3001"), "{out}");
    }

    #[test]
    fn repeated_warnings_fold_into_one_summary_per_file_and_code() {
        let mut d = Diagnostics::default();
        for i in 0..(MAX_SIMILAR_WARNINGS + 30) {
            d.push(Diagnostic::warning("W-A", format!("w{i}")).in_file(Path::new("a.toml")));
            d.push(Diagnostic::error("E-B", "e").in_file(Path::new("a.toml")));
        }
        d.push(Diagnostic::warning("W-A", "other file").in_file(Path::new("b.toml")));
        d.fold_repeats();
        let warnings: Vec<_> = d.0.iter().filter(|d| !d.is_error()).collect();
        assert_eq!(warnings.len(), MAX_SIMILAR_WARNINGS + 2);
        assert_eq!(
            d.0.iter().filter(|d| d.is_error()).count(),
            MAX_SIMILAR_WARNINGS + 30
        );
        let last = warnings[MAX_SIMILAR_WARNINGS].message.as_str();
        assert_eq!(last, "… and 30 more warnings like W-A in this file");
        assert_eq!(
            warnings.iter().map(|w| w.count()).sum::<usize>(),
            MAX_SIMILAR_WARNINGS + 31
        );
        assert_eq!(warnings[MAX_SIMILAR_WARNINGS + 1].message, "other file");
    }

    #[test]
    fn out_of_range_spans_do_not_panic() {
        let src = SourceText::new("x.toml", "é");
        let d = Diagnostic::error("E-X", "m").at(Location::span(&src, 1..50));
        let _ = d.render(true);
    }
}
