//! `focs`: a content loader for FreeOrion's FOCS entries (`*.focs.txt`), read in place
//! from FreeOrion's content folder. Each file is preprocessed as FreeOrion does it —
//! `#include` lines and `[[MACRO]]` / `[[MACRO(a, b)]]` expansion from the `.macros`
//! files it includes, after the freeorion mod's shim (`focs/shim.macros`, the names the
//! content uses but does not define) — parsed, and translated by `focs_script::translate`
//! into classes of the `freeorion` mod: one per `Tech`, `BuildingType`, `Species`,
//! `Special`, `Policy`, `Hull`, `Part` and `FieldType`, with its effects groups.
//!
//! A construct the translation lacks is reported as a warning at its file:line
//! (`tessera check` lists them); the class still loads, tagged `untranslated`, without
//! the effects group that used it. The mod's files it reads: `focs/shim.macros`,
//! `focs/game_rules.txt` (the values of `GameRule` lookups) and `focs/includes.txt`
//! (include names to read from another file: `from = to`). Named values other files define
//! are read from FreeOrion's `scripting/macros/*.focs.py` (only their `NamedReal(name=…,
//! value=<number>)` definitions) and from the other `.focs.txt` files of the entry's folder
//! (`NamedReal name = "…" value = <number>`).

use focs_script::translate::{translate, Rules};
use focs_script::{parse, preprocess, Files, Severity};
use serde_json::Value;
use tessera_plugin_api::prelude::*;

/// Where the mod keeps the loader's own files.
const SHIM: &str = "focs/shim.macros";
const GAME_RULES: &str = "focs/game_rules.txt";
const INCLUDES: &str = "focs/includes.txt";
/// Where FreeOrion keeps its named values, under the content root.
const NAMED_VALUES_DIR: &str = "scripting/macros";

/// The content root's files, read through the host (confined to what the mod may read).
struct ModFiles {
    /// The content root relative to the mod's folder (ends with `/`, or is empty).
    root: String,
    /// Include names read from another file (`from`, `to`), from `focs/includes.txt`.
    renamed: Vec<(String, String)>,
}

impl Files for ModFiles {
    fn read(&mut self, name: &str) -> Result<String, String> {
        if name == "shim.macros" {
            return read_text(SHIM);
        }
        let name = self
            .renamed
            .iter()
            .find(|(from, _)| from == name)
            .map_or(name, |(_, to)| to.as_str());
        read_text(&format!("{}{name}", self.root))
    }

    fn list(&mut self, dir: &str) -> Result<Vec<String>, String> {
        load_dir(&format!("{}{dir}", self.root)).map_err(|e| e.to_string())
    }
}

/// A file's text: UTF-8, else Latin-1 (FreeOrion's older files are).
fn read_text(path: &str) -> Result<String, String> {
    let bytes = load_file(path).map_err(|e| e.to_string())?;
    Ok(match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => e.into_bytes().iter().map(|&b| char::from(b)).collect(),
    })
}

/// `from = to` lines (`#` comments).
fn renames(text: &str) -> Vec<(String, String)> {
    text.lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .filter_map(|l| l.split_once('='))
        .map(|(a, b)| (a.trim().to_owned(), b.trim().to_owned()))
        .collect()
}

/// The byte offset where 1-based line `line` of `text` starts.
fn line_offset(text: &str, line: u32) -> Option<usize> {
    if line <= 1 {
        return Some(0);
    }
    text.match_indices('\n')
        .nth(line as usize - 2)
        .map(|(i, _)| i + 1)
}

/// Adds the named values other files define: FreeOrion's `scripting/macros/*.focs.py`
/// (`NamedReal(name="FU_RAMSCOOP_REFUEL", value=0.4)`) and the other entries of the
/// file's folder (`NamedReal name = "X" value = 20` in BLACK_HOLE_POW_GEN, looked up in
/// HYPER_DAM).
fn named_values_elsewhere(root: &str, path: &str, rules: &mut Rules) -> Result<(), LoadError> {
    let macros_dir = format!("{root}{NAMED_VALUES_DIR}");
    let folder = path.rsplit_once('/').map_or("", |(d, _)| d);
    let own = path.rsplit_once('/').map_or(path, |(_, f)| f);
    let wanted = [(macros_dir.as_str(), ".focs.py"), (folder, ".focs.txt")];
    for (dir, suffix) in wanted {
        for file in load_dir(dir).unwrap_or_default() {
            if file.ends_with(suffix) && !(dir == folder && file == own) {
                let text = read_text(&format!("{dir}/{file}"))
                    .map_err(|e| LoadError::new(format!("{dir}/{file}: {e}")))?;
                rules.add_named_values(&text);
            }
        }
    }
    Ok(())
}

/// One FOCS file → its classes.
#[loader("freeorion:loader/focs", extensions = ["focs"])]
fn focs(text: &str) -> Result<Value, LoadError> {
    let path =
        load_path().ok_or_else(|| LoadError::new("the FOCS loader runs only on a mod's files"))?;
    let at = path.find("scripting/").ok_or_else(|| {
        LoadError::new(format!("`{path}` is not under a `scripting/` folder: FOCS entries are read from FreeOrion's content root (default/scripting/...)"))
    })?;
    let (root, name) = path.split_at(at);
    let rules_text =
        read_text(GAME_RULES).map_err(|e| LoadError::new(format!("{GAME_RULES}: {e}")))?;
    let mut rules = Rules::parse(&rules_text)
        .map_err(|(line, m)| LoadError::new(format!("{GAME_RULES}:{line}: {m}")))?;
    let renamed = read_text(INCLUDES).map(|t| renames(&t)).unwrap_or_default();
    let mut files = ModFiles {
        root: root.to_owned(),
        renamed,
    };
    let pre = preprocess(name, &["shim.macros"], &mut files);
    let here = |file: &str, line: u32| (file == name).then(|| line_offset(text, line)).flatten();
    for d in &pre.diagnostics {
        // Includes of files the content does not have, undefined names: the entry
        // may still read (what they held is missing), so they are warnings here.
        let sev = if d.severity == Severity::Error {
            ""
        } else {
            " (warning)"
        };
        report_warning(format!("{d}{sev}"), here(&d.file, d.line));
    }
    let nodes = parse(&pre).map_err(|d| {
        let offset = here(&d.file, d.line);
        LoadError {
            message: d.to_string(),
            offset,
        }
    })?;
    let mut t = translate(&pre, &nodes, &rules);
    // A name looked up but defined in another file: read the other files' named values
    // (only then: most entries need none) and translate again.
    if t.unsupported
        .iter()
        .any(|u| u.construct.ends_with("(defined in another file)"))
    {
        named_values_elsewhere(root, &path, &mut rules)?;
        t = translate(&pre, &nodes, &rules);
    }
    for (path, file, line) in &t.spans {
        if let Some(at) = here(file, *line) {
            let end = text[at..].find('\n').map_or(text.len(), |n| at + n);
            report_span(path.clone(), at..end);
        }
    }
    for u in &t.unsupported {
        report_warning(u.to_string(), here(&u.file, u.line));
    }
    Ok(t.tree)
}

export_plugin!(provides = [focs]);
