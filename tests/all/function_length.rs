//! Functions stay short enough to read at once: none in `host/src` runs past 100 lines,
//! from its `fn` line to its closing brace.

use std::fs;
use std::path::Path;

use crate::layers::rust_files;

/// The most lines a function may take.
const MAX_LINES: usize = 100;

/// Each line's count of `{` minus `}` in code: braces in comments, strings (raw ones
/// and ones spanning lines too) and char literals do not count.
fn brace_deltas(text: &str) -> Vec<i64> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = vec![0i64];
    let mut i = 0;
    // Inside a string: the closing it waits for (`"`, or `"` and that many `#`s).
    let mut string: Option<usize> = None;
    let mut raw = false;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '\n' {
            out.push(0);
        } else if let Some(hashes) = string {
            if c == '\\' && !raw {
                i += 1;
            } else if c == '"' && (0..hashes).all(|k| chars.get(i + 1 + k) == Some(&'#')) {
                i += hashes;
                string = None;
            }
        } else if c == '/' && next == Some('/') {
            while i + 1 < chars.len() && chars[i + 1] != '\n' {
                i += 1;
            }
        } else if c == 'r' && matches!(next, Some('"' | '#')) && !ident_before(&chars, i) {
            let hashes = chars[i + 1..].iter().take_while(|&&h| h == '#').count();
            if chars.get(i + 1 + hashes) == Some(&'"') {
                string = Some(hashes);
                raw = true;
                i += 1 + hashes;
            }
        } else if c == '"' {
            string = Some(0);
            raw = false;
        } else if c == '\'' {
            // A char literal ('{', '\n'); a lifetime ('a) has no closing quote.
            if next == Some('\\') {
                while i + 1 < chars.len() && chars[i + 1] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if chars.get(i + 2) == Some(&'\'') {
                i += 2;
            }
        } else if c == '{' {
            *out.last_mut().unwrap() += 1;
        } else if c == '}' {
            *out.last_mut().unwrap() -= 1;
        }
        i += 1;
    }
    out
}

/// Whether `chars[i]` continues an identifier (so `r` there is not a raw string's).
fn ident_before(chars: &[char], i: usize) -> bool {
    i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_')
}

/// Whether a trimmed line starts a function item.
fn starts_fn(t: &str) -> bool {
    let mut rest = t;
    for prefix in [
        "pub(crate) ",
        "pub(super) ",
        "pub ",
        "const ",
        "async ",
        "unsafe ",
    ] {
        rest = rest.strip_prefix(prefix).unwrap_or(rest);
    }
    rest.starts_with("fn ")
}

/// Functions of `text` longer than `max` lines: (first line, length, the `fn` line).
fn long_functions(text: &str, max: usize) -> Vec<(usize, usize, String)> {
    let lines: Vec<&str> = text.lines().collect();
    let deltas = brace_deltas(text);
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let t = line.trim_start();
        if !starts_fn(t) {
            continue;
        }
        let mut depth = 0i64;
        let mut opened = false;
        for (j, l) in lines.iter().enumerate().skip(i) {
            let d = deltas[j];
            // A declaration without a body (a trait method) ends at its `;`.
            if !opened && d == 0 && l.trim_end().ends_with(';') {
                break;
            }
            opened |= d > 0 || l.contains('{');
            depth += d;
            if opened && depth <= 0 {
                let len = j - i + 1;
                if len > max {
                    out.push((i + 1, len, t.to_owned()));
                }
                break;
            }
        }
    }
    out
}

#[test]
fn the_checker_measures_bodies_and_skips_declarations() {
    let body = "    x();\n".repeat(5);
    let text = format!(
        "trait T {{\n    fn a(&self);\n}}\npub(crate) fn b() {{\n{body}    let s = \"{{\";\n    let c = '{{'; // }}\n    let r = r#\"}}\"#;\n}}\n"
    );
    assert_eq!(long_functions(&text, 10), vec![]);
    let found = long_functions(&text, 9);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!((found[0].0, found[0].1), (4, 10));
}

#[test]
fn no_function_in_the_host_is_over_100_lines() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut found = Vec::new();
    for file in &files {
        let text = fs::read_to_string(file).unwrap();
        for (line, len, sig) in long_functions(&text, MAX_LINES) {
            let rel = file.strip_prefix(&src).unwrap().display();
            found.push(format!("{rel}:{line}: {len} lines: {sig}"));
        }
    }
    assert!(
        found.is_empty(),
        "functions over {MAX_LINES} lines (split them into named steps):\n{}",
        found.join("\n")
    );
}
