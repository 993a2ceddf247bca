//! What the language server knows about a workspace: one full load of its mods (the same
//! as `tessera check`), turned into diagnostics per file, where each id is defined and
//! patched, and every kind with its parameters.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::diag::{Diagnostics, Severity};
use crate::mods::{self, LoadedMods, ServerConfig};
use crate::rules::registry::{ParamSpec, Registry};

/// One diagnostic in a file, 0-based as LSP counts.
#[derive(Debug, Clone)]
pub struct FileDiag {
    /// Line (0-based).
    pub line: u32,
    /// Column (0-based, in characters).
    pub col: u32,
    /// Where the span ends: line and column (0-based), the same as the start when the
    /// span is unknown.
    pub end: (u32, u32),
    /// Error, warning or note.
    pub severity: Severity,
    /// The stable code (`E-CONTENT-UNKNOWN-ID`).
    pub code: &'static str,
    /// The message, with its notes and help.
    pub message: String,
}

/// Where an id was defined or patched.
#[derive(Debug, Clone)]
pub struct Site {
    /// The mod.
    pub mod_id: String,
    /// The file (absolute).
    pub file: PathBuf,
    /// Line (1-based; 0 when unknown).
    pub line: usize,
    /// `defined`, or the patch operation.
    pub op: String,
}

/// A registered kind (action, condition, selector, node type).
#[derive(Debug, Clone)]
pub struct Kind {
    /// Its id.
    pub id: String,
    /// `action`, `condition`, ...
    pub kind: &'static str,
    /// What it does.
    pub doc: String,
    /// Its parameters.
    pub params: Vec<ParamSpec>,
}

/// The workspace, as of its last load.
#[derive(Debug, Default)]
pub struct Index {
    /// Diagnostics by file (absolute path).
    pub diagnostics: BTreeMap<PathBuf, Vec<FileDiag>>,
    /// Every defined id and where it was defined and patched.
    pub ids: BTreeMap<String, Vec<Site>>,
    /// Every kind of the registry the mods loaded into.
    pub kinds: Vec<Kind>,
    /// Each mod's folder (absolute) and namespace.
    pub mods: Vec<(PathBuf, String)>,
}

/// The mod folders of a workspace: `server.toml`'s, else `mods/`.
fn load(root: &Path) -> Result<LoadedMods, Diagnostics> {
    let server_path = root.join("server.toml");
    let server = if server_path.is_file() {
        Some(ServerConfig::load(&server_path)?)
    } else {
        None
    };
    let dirs = match &server {
        Some(s) => s.mod_dirs.clone(),
        None => vec![root.join("mods")],
    };
    Ok(mods::load(
        &dirs,
        server.as_ref(),
        Arc::new(Registry::with_core()),
    ))
}

fn absolute(root: &Path, p: &Path) -> PathBuf {
    let p = if p.is_absolute() {
        p.to_path_buf()
    } else {
        root.join(p)
    };
    std::fs::canonicalize(&p).unwrap_or(p)
}

impl Index {
    /// Loads the workspace at `root` (absolute) as `tessera check` would. Fails only when
    /// `server.toml` is unusable (its diagnostics say why).
    pub fn load(root: &Path) -> Result<Index, Diagnostics> {
        let loaded = load(root)?;
        let mut index = Index::default();
        for d in loaded.all_diagnostics() {
            let Some(loc) = &d.location else { continue };
            let (line, col) = loc.line_col().unwrap_or((1, 1));
            let end = loc.end_line_col().unwrap_or((line, col));
            let mut message = d.message.clone();
            for n in d
                .notes
                .iter()
                .map(|n| format!("note: {n}"))
                .chain(d.help.iter().map(|h| format!("help: {h}")))
            {
                message.push('\n');
                message.push_str(&n);
            }
            index
                .diagnostics
                .entry(absolute(root, &loc.path))
                .or_default()
                .push(FileDiag {
                    line: u32::try_from(line.saturating_sub(1)).unwrap_or(0),
                    col: u32::try_from(col.saturating_sub(1)).unwrap_or(0),
                    end: (
                        u32::try_from(end.0.saturating_sub(1)).unwrap_or(0),
                        u32::try_from(end.1.saturating_sub(1)).unwrap_or(0),
                    ),
                    severity: d.severity,
                    code: d.code,
                    message,
                });
        }
        index.mods = loaded
            .resolution
            .order
            .iter()
            .map(|m| (absolute(root, &m.dir), m.id.clone()))
            .collect();
        if let Some(gen) = &loaded.generation {
            for (id, touches) in &gen.provenance.touches {
                let sites = touches
                    .iter()
                    .map(|t| Site {
                        mod_id: t.mod_id.clone(),
                        file: absolute(root, &t.file),
                        line: t.line,
                        op: t.op.clone(),
                    })
                    .collect();
                index.ids.insert(id.as_str().to_owned(), sites);
            }
            index.kinds = kinds(&gen.registry);
        } else {
            index.kinds = kinds(&Registry::with_core());
        }
        Ok(index)
    }

    /// Keeps what `older` knew about the ids of mods that did not load this time (a mod
    /// with an error is disabled, but its ids are still where they were while it is
    /// being fixed).
    pub fn inherit(&mut self, older: &Index) {
        let loaded: std::collections::BTreeSet<&str> = self
            .ids
            .keys()
            .filter_map(|id| id.split_once(':').map(|(ns, _)| ns))
            .collect();
        let kept: Vec<(String, Vec<Site>)> = older
            .ids
            .iter()
            .filter(|(id, _)| {
                id.split_once(':')
                    .is_some_and(|(ns, _)| !loaded.contains(ns))
            })
            .map(|(id, sites)| (id.clone(), sites.clone()))
            .collect();
        self.ids.extend(kept);
    }

    /// The namespace of the mod `file` belongs to.
    pub fn namespace_of(&self, file: &Path) -> Option<&str> {
        self.mods
            .iter()
            .filter(|(dir, _)| file.starts_with(dir))
            .max_by_key(|(dir, _)| dir.components().count())
            .map(|(_, ns)| ns.as_str())
    }

    /// The full id `word` stands for in `file`: itself when full, else an id of the
    /// file's mod, of `core`, or of any mod, with that name (`river_giant`,
    /// `class/river_giant`, `damage`).
    pub fn resolve(&self, file: &Path, word: &str) -> Option<String> {
        if word.contains(':') {
            return Some(word.to_owned());
        }
        let ns = self.namespace_of(file);
        let matches = |id: &str| {
            id.split_once(':').is_some_and(|(_, rest)| {
                rest == word || rest.split_once('/').is_some_and(|(_, name)| name == word)
            })
        };
        let known = self
            .ids
            .keys()
            .map(String::as_str)
            .chain(self.kinds.iter().map(|k| k.id.as_str()));
        let all: Vec<&str> = known.filter(|id| matches(id)).collect();
        let in_ns = |n: &str| {
            all.iter()
                .find(|id| id.starts_with(&format!("{n}:")))
                .copied()
        };
        ns.and_then(in_ns)
            .or_else(|| in_ns("core"))
            .or_else(|| all.first().copied())
            .map(str::to_owned)
    }

    /// The kind with this id.
    pub fn kind(&self, id: &str) -> Option<&Kind> {
        self.kinds.iter().find(|k| k.id == id)
    }

    /// Markdown saying what `id` is: where it is defined and patched, or a kind's doc and
    /// parameters.
    pub fn hover(&self, id: &str) -> Option<String> {
        if let Some(k) = self.kind(id) {
            let mut out = format!("**{id}** ({})\n\n{}\n", k.kind, k.doc);
            for p in &k.params {
                let req = if p.required { "required" } else { "optional" };
                out.push_str(&format!(
                    "\n- `{}` ({req}, {}): {}",
                    p.name,
                    p.ty.describe(),
                    p.doc
                ));
            }
            return Some(out);
        }
        let sites = self.ids.get(id)?;
        let mut out = format!("**{id}**\n");
        for s in sites {
            let what = if s.op == "defined" {
                "defined".to_owned()
            } else {
                format!("patched ({})", s.op)
            };
            out.push_str(&format!(
                "\n- {what} by `{}` at {}:{}",
                s.mod_id,
                s.file.display(),
                s.line
            ));
        }
        Some(out)
    }
}

fn kinds(registry: &Registry) -> Vec<Kind> {
    let mut out = Vec::new();
    let mut add = |kind: &'static str, id: crate::id::Id, doc: &str, params: &[ParamSpec]| {
        out.push(Kind {
            id: id.as_str().to_owned(),
            kind,
            doc: doc.to_owned(),
            params: params.to_vec(),
        });
    };
    for e in registry.actions.iter() {
        add("action", e.id, &e.doc, &e.params);
    }
    for e in registry.conditions.iter() {
        add("condition", e.id, &e.doc, &e.params);
    }
    for e in registry.selectors.iter() {
        add("selector", e.id, &e.doc, &e.params);
    }
    for e in registry.nodes.iter() {
        add("node", e.id, &e.doc, &e.params);
    }
    out
}

/// The id-like word around `col` (0-based, in characters) of `line`.
pub fn word_at(line: &str, col: usize) -> Option<String> {
    let chars: Vec<char> = line.chars().collect();
    let is_id = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || "_.-:/".contains(c);
    let col = col.min(chars.len());
    let start = (0..col)
        .rev()
        .take_while(|&i| is_id(chars[i]))
        .last()
        .unwrap_or(col);
    let end = (col..chars.len())
        .take_while(|&i| is_id(chars[i]))
        .last()
        .map_or(col, |i| i + 1);
    (start < end).then(|| chars[start..end].iter().collect())
}

/// The value of the last `type = "..."` before column `col` of `line`: the kind whose
/// parameters to offer there.
pub fn type_before(line: &str, col: usize) -> Option<&str> {
    let end = line.char_indices().nth(col).map_or(line.len(), |(i, _)| i);
    let before = &line[..end];
    let at = before.rfind("type")?;
    let rest = line[at + 4..]
        .trim_start()
        .strip_prefix('=')?
        .trim_start()
        .strip_prefix('"')?;
    rest.split('"').next()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_and_types_on_a_line() {
        let l = r#"do = [{ type = "damage", amount = 2 }] # arena:class/hero"#;
        assert_eq!(word_at(l, 17).as_deref(), Some("damage"));
        assert_eq!(word_at(l, 45).as_deref(), Some("arena:class/hero"));
        assert_eq!(word_at(l, 0).as_deref(), Some("do"));
        assert_eq!(type_before(l, 30), Some("damage"));
        assert_eq!(type_before(l, 5), None);
        let two = r#"do = [{ type = "heal" }, { type = "create", class = "x" }]"#;
        assert_eq!(type_before(two, 50), Some("create"));
    }
}
