//! The library's public functions return typed errors: no `pub fn` (outside the CLI,
//! which is the binary's) and no method of a `pub trait` in `host/src` returns
//! `Result<_, String>`. A caller matches on an error's kind, never on its text.
//! Crate-private functions (`pub(crate)`, `pub(super)`, private) may still carry messages.

use std::fs;
use std::path::Path;

use crate::layers::rust_files;

/// Whether a function signature returns `Result<…, String>`.
fn returns_string_error(signature: &str) -> bool {
    let Some(ret) = signature.split("->").nth(1) else {
        return false;
    };
    let compact: String = ret.chars().filter(|c| !c.is_whitespace()).collect();
    compact.contains("Result<") && compact.contains(",String>")
}

/// The signatures (from `fn` to the body or `;`) of public functions and of the methods
/// of public traits in `text`, with their 1-based lines.
fn public_signatures(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut trait_depth: Option<i32> = None;
    let mut depth = 0i32;
    let lines: Vec<&str> = text.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        let t = line.trim_start();
        if t.starts_with("//") {
            continue;
        }
        let public_fn = t.starts_with("pub fn ") || t.starts_with("pub async fn ");
        let trait_fn = trait_depth.is_some_and(|d| depth == d + 1) && t.starts_with("fn ");
        if public_fn || trait_fn {
            let mut sig = String::new();
            for l in &lines[i..] {
                let end = l.find(['{', ';']);
                sig.push_str(&l[..end.unwrap_or(l.len())]);
                sig.push(' ');
                if end.is_some() {
                    break;
                }
            }
            out.push((i + 1, sig));
        }
        if t.starts_with("pub trait ") {
            trait_depth = Some(depth);
        }
        depth += line.matches('{').count() as i32 - line.matches('}').count() as i32;
        if trait_depth.is_some_and(|d| depth <= d) && !t.starts_with("pub trait ") {
            trait_depth = None;
        }
    }
    out
}

#[test]
fn the_checker_finds_string_errors_in_functions_and_trait_methods() {
    let sample = "pub fn a() -> Result<u8, String> {\n}\n\
                  pub(crate) fn b() -> Result<u8, String> {\n}\n\
                  pub trait T {\n    fn c(&self)\n        -> Result<(), String>;\n    fn d(&self) -> u8 {\n        0\n    }\n}\n\
                  fn e() -> Result<u8, String> {\n}\n\
                  pub fn f() -> Result<u8, MyError> {\n}\n";
    let bad: Vec<usize> = public_signatures(sample)
        .into_iter()
        .filter(|(_, s)| returns_string_error(s))
        .map(|(line, _)| line)
        .collect();
    assert_eq!(bad, vec![1, 6]);
}

#[test]
fn no_public_function_returns_a_string_error() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut found = Vec::new();
    for file in &files {
        let rel = file.strip_prefix(&src).unwrap();
        // The CLI is the binary's own code, not the library's API.
        if rel.starts_with("cli") || rel == Path::new("main.rs") {
            continue;
        }
        let text = fs::read_to_string(file).unwrap();
        for (line, sig) in public_signatures(&text) {
            if returns_string_error(&sig) {
                found.push(format!("{}:{line}: {}", rel.display(), sig.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "public functions returning `Result<_, String>` (return a typed error, or make them \
         crate-private):\n{}",
        found.join("\n")
    );
}
