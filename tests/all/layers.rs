//! The host's layering, checked: every `crate::` path in `host/src` names a module of a
//! lower layer than the file's own top-level module, as the list in `host/src/lib.rs`
//! (section "Layers") says. The list is read from the crate documentation, so it is
//! written down once.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The layers from `lib.rs`: module name → layer number (1 is the lowest).
fn layers(lib: &str) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    let section = lib
        .split("//! ## Layers")
        .nth(1)
        .expect("lib.rs documents its layers under `## Layers`");
    for line in section.lines().skip(1).take_while(|l| l.starts_with("//!")) {
        let line = line.trim_start_matches("//!").trim();
        let Some((num, rest)) = line.split_once(". ") else {
            continue;
        };
        let Ok(n) = num.parse::<usize>() else {
            continue;
        };
        let names = rest.split('—').next().unwrap_or("");
        for name in names.split(',') {
            let name = name.trim().trim_matches('`');
            if !name.is_empty() {
                out.insert(name.to_owned(), n);
            }
        }
    }
    out
}

/// Source without comments and string literals (so paths in docs and messages do not
/// count).
fn code_only(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        let mut in_str = false;
        let mut prev = ' ';
        let mut kept = String::new();
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            if !in_str && c == '/' && chars.peek() == Some(&'/') {
                break;
            }
            if c == '"' && prev != '\\' && prev != '\'' {
                in_str = !in_str;
                kept.push(' ');
            } else if !in_str {
                kept.push(c);
            }
            prev = if prev == '\\' && c == '\\' { ' ' } else { c };
        }
        out.push_str(&kept);
        out.push('\n');
    }
    out
}

/// The first path segment of every item a `crate::` path reaches: `crate::a::b` → `a`,
/// `crate::{a::X, b}` → `a`, `b`.
fn crate_roots(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        let before = rest[..at].chars().next_back();
        rest = &rest[at + "crate::".len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue; // `tessera_host_crate::` and the like
        }
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 0;
            let mut item = String::new();
            for c in group.chars() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        out.push(first_segment(&item));
                        item.clear();
                        continue;
                    }
                    _ => {}
                }
                item.push(c);
            }
            out.push(first_segment(&item));
        } else {
            out.push(first_segment(rest));
        }
    }
    out.retain(|s| !s.is_empty());
    out
}

/// The top-level modules that `use super::...` lines at the top of a file reach through
/// the crate root: in a file `depth` modules deep, `depth` or more `super::` climb to it.
/// (Lines inside inline modules are indented, and not followed.)
fn super_roots(code: &str, depth: usize) -> Vec<String> {
    let mut out = Vec::new();
    for line in code.lines() {
        let Some(path) = ["use ", "pub use ", "pub(crate) use "]
            .iter()
            .find_map(|p| line.strip_prefix(p))
        else {
            continue;
        };
        let mut rest = path;
        let mut climbs = 0;
        while let Some(r) = rest.strip_prefix("super::") {
            climbs += 1;
            rest = r;
        }
        if climbs > 0 && climbs >= depth {
            out.push(first_segment(rest));
        }
    }
    out
}

fn first_segment(path: &str) -> String {
    path.trim()
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect()
}

/// Every `.rs` file under `dir` (the source-scanning tests share it).
pub(crate) fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).expect("read host/src").flatten() {
        let p = entry.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// Every import that breaks the layering, as `file: module (layer) imports target (layer)`.
fn violations(src: &Path) -> Vec<String> {
    let layer = layers(&fs::read_to_string(src.join("lib.rs")).expect("lib.rs"));
    let mut files = Vec::new();
    rust_files(src, &mut files);
    files.sort();
    let mut bad = Vec::new();
    for file in files {
        let rel = file.strip_prefix(src).expect("under src");
        let top = rel.components().next().expect("a component");
        let top = top
            .as_os_str()
            .to_string_lossy()
            .trim_end_matches(".rs")
            .to_owned();
        // The binary's own modules and the crate root sit above every layer.
        if matches!(top.as_str(), "lib" | "main" | "cli") {
            continue;
        }
        let Some(&own) = layer.get(&top) else {
            bad.push(format!(
                "{}: module `{top}` is in no layer of lib.rs",
                rel.display()
            ));
            continue;
        };
        let code = code_only(&fs::read_to_string(&file).expect("read source"));
        // How many modules deep the file is: `x.rs` and `x/mod.rs` 1, `x/y.rs` 2, ...
        let depth = rel.components().count() - usize::from(rel.ends_with("mod.rs"));
        let mut targets = crate_roots(&code);
        targets.extend(super_roots(&code, depth));
        for target in targets {
            if target == top || target == "self" {
                continue;
            }
            match layer.get(&target) {
                None => bad.push(format!(
                    "{}: `crate::{target}` goes through the crate root; import it from the module that defines it",
                    rel.display()
                )),
                Some(&t) if t >= own => bad.push(format!(
                    "{}: `{top}` (layer {own}) imports `{target}` (layer {t}); a module may import only lower layers",
                    rel.display()
                )),
                Some(_) => {}
            }
        }
    }
    bad.sort();
    bad.dedup();
    bad
}

#[test]
fn every_host_module_imports_only_lower_layers() {
    let bad = violations(&src());
    assert!(bad.is_empty(), "layering broken:\n{}", bad.join("\n"));
}

#[test]
fn the_layer_list_names_every_top_level_module() {
    let layer = layers(&fs::read_to_string(src().join("lib.rs")).unwrap());
    for expected in ["id", "state", "rules", "plugins", "game", "mods", "serve"] {
        assert!(
            layer.contains_key(expected),
            "{expected} missing from {layer:?}"
        );
    }
    assert!(layer["state"] < layer["rules"] && layer["rules"] < layer["game"]);
}

#[test]
fn the_checker_catches_an_upward_import_and_a_root_import() {
    let tmp = tempfile::tempdir().expect("a temporary folder");
    let dir = tmp.path().to_path_buf();
    fs::create_dir_all(dir.join("state")).unwrap();
    fs::write(
        dir.join("lib.rs"),
        "//! ## Layers\n//!\n//! 1. `id` — names.\n//! 2. `state` — the world.\n//! 3. `game` — games.\n",
    )
    .unwrap();
    fs::write(
        dir.join("id.rs"),
        "// crate::game in a comment is fine\nconst S: &str = \"crate::game\";\n",
    )
    .unwrap();
    fs::write(
        dir.join("state/mod.rs"),
        "use crate::{id::Id, game::Game};\nuse crate::Sym;\n",
    )
    .unwrap();
    fs::write(dir.join("game.rs"), "use crate::state::World;\n").unwrap();
    fs::write(
        dir.join("state/slots.rs"),
        "use super::super::game::Game;\nuse super::World;\n",
    )
    .unwrap();
    let bad = violations(&dir);
    assert_eq!(bad.len(), 3, "{bad:?}");
    let has = |text: &str| bad.iter().any(|b| b.contains(text));
    assert!(has("`state` (layer 2) imports `game` (layer 3)"), "{bad:?}");
    assert!(has("`crate::Sym` goes through the crate root"), "{bad:?}");
    assert!(
        has("state/slots.rs: `state` (layer 2) imports `game`"),
        "{bad:?}"
    );
}
