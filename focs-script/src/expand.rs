//! The preprocessing pass: includes gathered into one text with each line's origin,
//! macro definitions taken out, and macro uses expanded (arguments substituted, nested
//! uses expanded in turn), each output line traced to the line it came from.

use std::collections::HashSet;
use std::sync::Arc;

use crate::files::{matches, resolve, Files};
use crate::macros::{take_definitions, Macro, Macros};
use crate::{closest, Diagnostic, Severity};

/// Deepest nesting of macro uses before expansion stops (a macro that uses itself).
const MAX_DEPTH: usize = 32;

/// Where a line of the expanded text was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    /// The file (relative to the content root).
    pub file: Arc<str>,
    /// The 1-based line.
    pub line: u32,
    /// The outermost macro the line came through, when it was not written there itself.
    pub via: Option<Arc<str>>,
}

/// A preprocessed file: its text, the origin of each line, the macros it saw and what
/// was wrong.
#[derive(Debug, Clone, Default)]
pub struct Preprocessed {
    /// The expanded text (definitions removed, includes inserted, macros expanded).
    pub text: String,
    /// The origin of each line of `text`, in order.
    pub lines: Vec<Origin>,
    /// Every macro defined by the file, the files it includes and the prelude.
    pub macros: Macros,
    /// Problems, in the order met.
    pub diagnostics: Vec<Diagnostic>,
}

impl Preprocessed {
    /// The origin of 1-based line `line` of the expanded text.
    pub fn origin(&self, line: usize) -> Option<&Origin> {
        self.lines.get(line.checked_sub(1)?)
    }

    /// Whether any finding is an error.
    pub fn has_errors(&self) -> bool {
        self.diagnostics
            .iter()
            .any(|d| d.severity == Severity::Error)
    }
}

/// Preprocesses `entry` (a name relative to the content root, like
/// `scripting/techs/growth/SUBTER_HAB.focs.txt`). The `prelude` files are read first:
/// their macros are defined for the entry, and a definition the content makes itself
/// replaces a prelude's (a prelude supplies names the content lacks).
pub fn preprocess(entry: &str, prelude: &[&str], files: &mut dyn Files) -> Preprocessed {
    let mut g = Gathered::default();
    for p in prelude {
        g.file(p, None, files);
    }
    g.file(entry, None, files);
    let mut text = g.text;
    let (found, unclosed) = take_definitions(&mut text);
    let starts = line_starts(&text);
    let origin_at = |offset: usize| g.origins[starts.partition_point(|&s| s <= offset) - 1].clone();
    let mut out = Preprocessed {
        diagnostics: g.diagnostics,
        ..Preprocessed::default()
    };
    for u in unclosed {
        let (file, line) = origin_at(u.start);
        out.diagnostics.push(error(
            "FOCS-MACRO-UNCLOSED",
            &file,
            line,
            format!(
                "the body of macro `{}` opens with ''' but never closes",
                u.name
            ),
            "end the body with '''",
        ));
    }
    for f in found {
        let (file, line) = origin_at(f.start);
        define(
            &mut out,
            prelude,
            f.name,
            Macro {
                body: f.body,
                file: file.to_string(),
                line,
            },
        );
    }
    let mut x = Expander {
        macros: &out.macros,
        diagnostics: Vec::new(),
    };
    let (expanded, lines) = x.text(&text, &g.origins);
    out.diagnostics.append(&mut x.diagnostics);
    out.text = expanded;
    out.lines = lines;
    out
}

/// Records a definition; a second one with another body is a warning (the later wins),
/// unless the first came from a prelude: supplying what the content lacks, it is meant to
/// give way.
fn define(out: &mut Preprocessed, prelude: &[&str], name: String, m: Macro) {
    if let Some(old) = out.macros.get(&name) {
        if old.body.trim() != m.body.trim() && !prelude.contains(&old.file.as_str()) {
            out.diagnostics.push(Diagnostic {
                code: "FOCS-MACRO-REDEFINED",
                severity: Severity::Warning,
                file: m.file.clone(),
                line: m.line,
                message: format!(
                    "macro `{name}` is defined again with another body (first at {}:{}); this definition is used",
                    old.file, old.line
                ),
                help: Some("give one of them another name".into()),
            });
        }
    }
    out.macros.insert(name, m);
}

fn error(code: &'static str, file: &str, line: u32, message: String, help: &str) -> Diagnostic {
    Diagnostic {
        code,
        severity: Severity::Error,
        file: file.to_owned(),
        line,
        message,
        help: Some(help.to_owned()),
    }
}

/// Byte offsets where each line of `text` starts.
fn line_starts(text: &str) -> Vec<usize> {
    std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .collect()
}

/// The files gathered into one text: each line and where it was written.
#[derive(Default)]
struct Gathered {
    text: String,
    origins: Vec<(Arc<str>, u32)>,
    seen: HashSet<String>,
    diagnostics: Vec<Diagnostic>,
}

impl Gathered {
    /// Appends file `name`, its includes inserted in place (each file once). `from` is the
    /// include line that asked for it.
    fn file(&mut self, name: &str, from: Option<(&Arc<str>, u32)>, files: &mut dyn Files) {
        if !self.seen.insert(name.to_owned()) {
            return;
        }
        let text = match files.read(name) {
            Ok(t) => t,
            Err(why) => {
                let (file, line) = from.map_or((name.into(), 0), |(f, l)| (f.to_string(), l));
                let help = "check the path: `/scripting/…` is from the content root, others from this file's folder";
                let msg = format!("cannot read `{name}`: {why}");
                self.diagnostics
                    .push(error("FOCS-INCLUDE", &file, line, msg, help));
                return;
            }
        };
        let file: Arc<str> = name.into();
        for (i, line) in text.lines().enumerate() {
            let n = u32::try_from(i + 1).unwrap_or(u32::MAX);
            match include_path(line) {
                Some(Ok(path)) => match resolve(name, path) {
                    Some(target) if target.contains('*') => {
                        self.glob(&target, (&file, n), files);
                    }
                    Some(target) => self.file(&target, Some((&file, n)), files),
                    None => self.diagnostics.push(error(
                        "FOCS-INCLUDE",
                        name,
                        n,
                        format!("`{path}` climbs above the content root"),
                        "include a file inside the content tree",
                    )),
                },
                Some(Err(())) => self.diagnostics.push(error(
                    "FOCS-INCLUDE",
                    name,
                    n,
                    "an `#include` line without a quoted path".into(),
                    "write `#include \"/scripting/common/misc.macros\"`",
                )),
                None => {
                    self.text.push_str(line);
                    self.text.push('\n');
                    self.origins.push((file.clone(), n));
                }
            }
        }
    }
}

impl Gathered {
    /// Appends every file a pattern (`scripting/species/common/*.macros`) names, in name
    /// order.
    fn glob(&mut self, target: &str, from: (&Arc<str>, u32), files: &mut dyn Files) {
        let (dir, pattern) = target.rsplit_once('/').unwrap_or(("", target));
        match files.list(dir) {
            Ok(mut names) => {
                names.retain(|f| matches(pattern, f));
                names.sort();
                for f in names {
                    self.file(&format!("{dir}/{f}"), Some(from), files);
                }
            }
            Err(why) => self.diagnostics.push(error(
                "FOCS-INCLUDE",
                from.0,
                from.1,
                format!("cannot list `{dir}` for `{pattern}`: {why}"),
                "include the files by name",
            )),
        }
    }
}

/// The quoted path of an `#include` line; `Some(Err)` for an include without one.
fn include_path(line: &str) -> Option<Result<&str, ()>> {
    let rest = line.trim_start().strip_prefix("#include")?;
    let rest = rest.trim();
    let path = rest
        .strip_prefix('"')
        .and_then(|r| r.split_once('"'))
        .map(|(p, _)| p);
    Some(path.filter(|p| !p.is_empty()).ok_or(()))
}

/// Expands macro uses, reporting problems at the line of the outermost use.
struct Expander<'a> {
    macros: &'a Macros,
    diagnostics: Vec<Diagnostic>,
}

impl Expander<'_> {
    /// The expanded text and each output line's origin.
    fn text(&mut self, text: &str, origins: &[(Arc<str>, u32)]) -> (String, Vec<Origin>) {
        let mut out = String::with_capacity(text.len());
        let mut lines = Vec::with_capacity(origins.len());
        for (i, line) in text.lines().enumerate() {
            let Some((file, n)) = origins.get(i) else {
                break;
            };
            let mut rest = line;
            // The macro the current output line came through, if any part did.
            let mut via: Option<String> = None;
            while let Some(p) = rest.find("[[") {
                out.push_str(&rest[..p]);
                let at = (file.as_ref(), *n);
                match self.one(&rest[p..], at, 0) {
                    Some((used, name, expansion)) => {
                        for (k, piece) in expansion.split('\n').enumerate() {
                            if k > 0 {
                                lines.push(origin(file, *n, Some(&name)));
                                out.push('\n');
                            }
                            out.push_str(piece);
                        }
                        via.get_or_insert(name);
                        rest = &rest[p + used..];
                    }
                    None => {
                        out.push_str("[[");
                        rest = &rest[p + 2..];
                    }
                }
            }
            out.push_str(rest);
            out.push('\n');
            lines.push(origin(file, *n, via.as_deref()));
        }
        (out, lines)
    }

    /// Expands the use at the start of `s` (`[[NAME]]` or `[[NAME(args)]]`): the bytes it
    /// takes, the macro's name and its expansion; `None` (reported) when it cannot.
    fn one(&mut self, s: &str, at: (&str, u32), depth: usize) -> Option<(usize, String, String)> {
        let Some((used, name, args)) = parse_use(s) else {
            let snippet: String = s.chars().take(40).collect();
            self.report(
                "FOCS-MACRO-UNCLOSED",
                at,
                format!("`[[` without a matching `]]`: `{snippet}`"),
                "write `[[NAME]]` or `[[NAME(a, b)]]`",
            );
            return None;
        };
        let Some(m) = self.macros.get(name) else {
            let help = match closest(name, self.macros.keys().map(String::as_str)) {
                Some(c) => format!("did you mean `{c}`? Otherwise define it in a .macros file this file includes"),
                None => "define it in a .macros file this file includes (or the mod's shim for names the content lacks)".into(),
            };
            self.report(
                "FOCS-MACRO-UNDEFINED",
                at,
                format!("macro `{name}` is not defined"),
                &help,
            );
            return None;
        };
        if depth >= MAX_DEPTH {
            self.report(
                "FOCS-MACRO-DEPTH",
                at,
                format!(
                    "macro `{name}` nests deeper than {MAX_DEPTH} uses (a macro that uses itself?)"
                ),
                "break the cycle of macros using each other",
            );
            return None;
        }
        let body = self.substitute(name, &m.body, &args, at);
        let expanded = self.nested(&body, at, depth + 1);
        Some((used, name.to_owned(), expanded))
    }

    /// `body` with `@1@`, `@2@`, … replaced by the arguments.
    fn substitute(&mut self, name: &str, body: &str, args: &[&str], at: (&str, u32)) -> String {
        let mut out = String::with_capacity(body.len());
        let mut rest = body;
        while let Some(p) = rest.find('@') {
            let after = &rest[p + 1..];
            let digits = after.chars().take_while(char::is_ascii_digit).count();
            let closed = digits > 0 && after[digits..].starts_with('@');
            if !closed {
                out.push_str(&rest[..=p]);
                rest = after;
                continue;
            }
            out.push_str(&rest[..p]);
            let k: usize = after[..digits].parse().unwrap_or(0);
            match k.checked_sub(1).and_then(|i| args.get(i)) {
                Some(a) => out.push_str(a.trim()),
                None => self.report(
                    "FOCS-MACRO-ARGS",
                    at,
                    format!(
                        "macro `{name}` uses argument @{k}@ but is given {}",
                        args.len()
                    ),
                    &format!("pass at least {k} argument(s): `[[{name}(…)]]`"),
                ),
            }
            rest = &after[digits + 1..];
        }
        out.push_str(rest);
        out
    }

    /// Expands every use inside an expansion.
    fn nested(&mut self, text: &str, at: (&str, u32), depth: usize) -> String {
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(p) = rest.find("[[") {
            out.push_str(&rest[..p]);
            match self.one(&rest[p..], at, depth) {
                Some((used, _, expansion)) => {
                    out.push_str(&expansion);
                    rest = &rest[p + used..];
                }
                None => {
                    out.push_str("[[");
                    rest = &rest[p + 2..];
                }
            }
        }
        out.push_str(rest);
        out
    }

    fn report(&mut self, code: &'static str, at: (&str, u32), message: String, help: &str) {
        self.diagnostics
            .push(error(code, at.0, at.1, message, help));
    }
}

fn origin(file: &Arc<str>, line: u32, via: Option<&str>) -> Origin {
    Origin {
        file: file.clone(),
        line,
        via: via.map(Arc::from),
    }
}

/// A use at the start of `s`: the bytes it takes, its name and its arguments (split at
/// top-level commas; nested parentheses and `[[…]]` kept whole).
fn parse_use(s: &str) -> Option<(usize, &str, Vec<&str>)> {
    let body = s.strip_prefix("[[")?;
    let name_len = body
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(body.len());
    let name = &body[..name_len];
    if name.is_empty() {
        return None;
    }
    let after = &body[name_len..];
    if let Some(rest) = after.trim_start().strip_prefix("]]") {
        return Some((s.len() - rest.len(), name, Vec::new()));
    }
    let inner = after.trim_start().strip_prefix('(')?;
    let mut depth = 0i32;
    let mut args = Vec::new();
    let mut start = 0;
    for (i, c) in inner.char_indices() {
        match c {
            '(' | '[' => depth += 1,
            ']' => depth -= 1,
            ')' if depth > 0 => depth -= 1,
            ')' => {
                args.push(&inner[start..i]);
                let rest = inner[i + 1..].trim_start().strip_prefix("]]")?;
                return Some((s.len() - rest.len(), name, args));
            }
            ',' if depth == 0 => {
                args.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    struct Mem(BTreeMap<&'static str, &'static str>);

    impl Files for Mem {
        fn read(&mut self, name: &str) -> Result<String, String> {
            self.0
                .get(name)
                .map(|s| (*s).to_owned())
                .ok_or_else(|| "no such file".to_owned())
        }
    }

    fn mem(files: &[(&'static str, &'static str)]) -> Mem {
        Mem(files.iter().copied().collect())
    }

    #[test]
    fn includes_and_macros_expand_with_arguments_and_origins() {
        let mut files = mem(&[
            ("s/a/T.focs.txt", "Tech\n  cost = [[COST(3, 2)]]\n  p = [[P]]\n#include \"/s/m.macros\"\n#include \"../n.macros\"\n"),
            ("s/m.macros", "// c\nCOST\n'''@1@ * [[MULT]] + @2@'''\nMULT\n'''(GameRule\nname = \"X\")'''\n"),
            ("s/n.macros", "P '''[[PRIO]]'''\n"),
            ("shim.macros", "PRIO\n'''5'''\n"),
        ]);
        let p = preprocess("s/a/T.focs.txt", &["shim.macros"], &mut files);
        assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
        // Comments stay (the parser skips them); definitions and includes are gone.
        let lines: Vec<&str> = p.text.lines().filter(|l| !l.trim().is_empty()).collect();
        assert_eq!(
            lines,
            [
                "Tech",
                "  cost = 3 * (GameRule",
                "name = \"X\") + 2",
                "  p = 5",
                "// c"
            ]
        );
        let at = |needle: &str| {
            let i = p.text.lines().position(|l| l.contains(needle)).unwrap();
            p.origin(i + 1).unwrap().clone()
        };
        let o = at("name = ");
        assert_eq!(
            (&*o.file, o.line, o.via.as_deref()),
            ("s/a/T.focs.txt", 2, Some("COST"))
        );
        let o = at("p = 5");
        assert_eq!(
            (&*o.file, o.line, o.via.as_deref()),
            ("s/a/T.focs.txt", 3, Some("P"))
        );
        let o = at("Tech");
        assert_eq!(
            (&*o.file, o.line, o.via.as_deref()),
            ("s/a/T.focs.txt", 1, None)
        );
        assert_eq!(p.text.lines().count(), p.lines.len());
        assert_eq!(p.macros["PRIO"].file, "shim.macros");
    }

    #[test]
    fn problems_name_the_file_and_line() {
        let mut files = mem(&[
            ("T.focs.txt", "a = [[EARLY_PRIORTY]]\nb = [[TWO(1)]]\nc = [[LOOP]]\nd = [[OPEN\n#include \"gone.macros\"\n"),
            ("m.macros", "EARLY_PRIORITY '''1'''\nTWO '''@1@ @2@'''\nLOOP '''[[LOOP]]'''\n"),
        ]);
        let p = preprocess("T.focs.txt", &["m.macros"], &mut files);
        let got: Vec<(&str, u32)> = p.diagnostics.iter().map(|d| (d.code, d.line)).collect();
        assert_eq!(
            got,
            [
                ("FOCS-INCLUDE", 5),
                ("FOCS-MACRO-UNDEFINED", 1),
                ("FOCS-MACRO-ARGS", 2),
                ("FOCS-MACRO-DEPTH", 3),
                ("FOCS-MACRO-UNCLOSED", 4),
            ]
        );
        assert!(p.diagnostics[1]
            .help
            .as_deref()
            .unwrap()
            .contains("EARLY_PRIORITY"));
        assert!(p.diagnostics.iter().all(|d| d.file == "T.focs.txt"));
        assert!(p.has_errors());
    }

    #[test]
    fn a_redefinition_with_another_body_warns_and_the_later_wins() {
        let mut files = mem(&[
            (
                "T.focs.txt",
                "X '''2'''\nv = [[X]]\n#include \"q.macros\"\n",
            ),
            ("q.macros", "X '''3'''\n"),
        ]);
        let p = preprocess("T.focs.txt", &[], &mut files);
        assert_eq!(p.diagnostics.len(), 1);
        assert_eq!(p.diagnostics[0].code, "FOCS-MACRO-REDEFINED");
        assert!(p.text.contains("v = 3"), "{}", p.text);
    }

    #[test]
    fn the_content_replaces_a_prelude_definition_quietly() {
        let mut files = mem(&[
            ("T.focs.txt", "X '''2'''\nv = [[X]]\n"),
            ("p.macros", "X '''1'''\n"),
        ]);
        let p = preprocess("T.focs.txt", &["p.macros"], &mut files);
        assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
        assert!(p.text.contains("v = 2"));
    }
}
