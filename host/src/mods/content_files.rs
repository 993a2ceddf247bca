//! Reading a mod's content files: every file under its `[content] paths` that a loader
//! reads (symlinks resolved, confined to the folders the mod may read), with the loader
//! `[content] loaders` names for it and its path relative to the mod's folder.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::ResolvedMod;
use crate::diag::{Diagnostic, SourceText};
use crate::rules::compile::ContentSource;
use crate::rules::registry::Registry;

/// Reads a mod's content files: every file under its `[content] paths` that a registered
/// loader (or a loaded plugin's loader: `plugin_extensions`) reads, sorted by path.
pub(super) fn read_content(
    m: &ResolvedMod,
    registry: &Registry,
    plugin_extensions: &[String],
    reads: &[PathBuf],
) -> Result<Vec<ContentSource>, Box<Diagnostic>> {
    let readable = Readable::of(m, reads);
    let (mut files, real) = content_files(m, &readable)?;
    // A file named in `[content] loaders` is read by that loader (as its name or path
    // was written: `"card_defs.json"` or `"data/card_defs.json"`, or a glob matching the
    // end of its path: `"cardsfolder/**/*.txt"`, `"*.focs.txt"`).
    let patterns = loader_patterns(m)?;
    let folder: std::sync::Arc<dyn crate::rules::registry::ModFiles> =
        std::sync::Arc::new(super::files::ModFolder {
            mod_id: m.id.clone(),
            dir: m.dir.clone(),
            reads: reads.to_vec(),
        });
    let named_loader = |f: &Path| -> Option<&str> {
        m.manifest
            .content_loaders
            .iter()
            .zip(&patterns)
            .find(|((name, _), glob)| match glob {
                Some(g) => path_suffixes(f).any(|s| g.is_match(s)),
                None => f.ends_with(name),
            })
            .map(|((_, l), _)| l.as_str())
    };
    files.retain(|f| {
        named_loader(f).is_some()
            || f.extension().and_then(|e| e.to_str()).is_some_and(|e| {
                registry.loader_for(e).is_some() || plugin_extensions.iter().any(|x| x == e)
            })
    });
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let loader = match named_loader(&f) {
            Some(l) => {
                let full = if l.contains(':') {
                    l.to_owned()
                } else {
                    format!("{}:loader/{l}", m.id)
                };
                Some(crate::id::Id::parse(&full).map_err(|e| {
                    Diagnostic::error(
                        "E-MANIFEST-VALUE",
                        format!("`[content] loaders` names `{l}`, which is not a loader id: {e}"),
                    )
                    .in_file(&m.dir.join("mod.toml"))
                    .with_help(
                        "write the loader's name (`cards`) or its id (`my-mod:loader/cards`)",
                    )
                    .for_mod(&m.id)
                })?)
            }
            None => None,
        };
        let read_error = |why: String| {
            Diagnostic::error(
                "E-CONTENT-READ",
                format!("failed to read content file: {why}"),
            )
            .in_file(&f)
            .for_mod(&m.id)
        };
        let bytes = std::fs::read(&f).map_err(|e| read_error(e.to_string()))?;
        // Other formats' loaders may read Latin-1 (older games' content); TOML and JSON
        // are UTF-8.
        let core_format = loader.is_none()
            && f.extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| matches!(e, "toml" | "json"));
        let text = super::files::decode(bytes, !core_format)
            .ok_or_else(|| read_error("it is not UTF-8 text".into()))?;
        let mut src = ContentSource::new(m.id.clone(), SourceText::new(&f, text));
        src.path = match (&readable.own, real.get(&f)) {
            (Some(dir), Some(file)) => super::files::relative_real(dir, file),
            _ => super::files::relative(&m.dir, &f),
        };
        src.files = Some(folder.clone());
        src.loader = loader;
        out.push(src);
    }
    Ok(out)
}

/// Files' paths as found, and as they are with symlinks resolved.
type RealPaths = HashMap<PathBuf, PathBuf>;

/// Every file under the mod's `[content] paths`, and each one's path with symlinks
/// resolved (for its path relative to the mod's folder, which its loader is given).
fn content_files(
    m: &ResolvedMod,
    readable: &Readable,
) -> Result<(Vec<PathBuf>, RealPaths), Box<Diagnostic>> {
    let mut files = Vec::new();
    for p in &m.manifest.content_paths {
        let path = m.dir.join(p);
        confine(m, &path, readable, "`[content] paths`")?;
        if path.is_file() {
            files.push(path);
        } else if path.is_dir() {
            walk(&path, &mut files);
        }
    }
    // A symlink inside the folder may still point out of it.
    let mut real = HashMap::new();
    for f in &files {
        if let Some(r) = confine(m, f, readable, "a content file")? {
            real.insert(f.clone(), r);
        }
    }
    Ok((files, real))
}

/// The folders a mod may read, symlinks resolved once: its own, and those the operator
/// granted it (`[grants.<mod>] read`).
pub(super) struct Readable {
    own: Option<PathBuf>,
    granted: Vec<PathBuf>,
}

impl Readable {
    pub(super) fn of(m: &ResolvedMod, reads: &[PathBuf]) -> Readable {
        Readable {
            own: std::fs::canonicalize(&m.dir).ok(),
            granted: reads
                .iter()
                .filter_map(|r| std::fs::canonicalize(r).ok())
                .collect(),
        }
    }
}

/// A mod reads only inside its own folder (symlinks resolved), or inside a folder the
/// operator granted it (`[grants.<mod>] read`); anything else is an error naming the path.
/// Returns the path with symlinks resolved (`None` when it does not exist).
pub(super) fn confine(
    m: &ResolvedMod,
    path: &Path,
    readable: &Readable,
    what: &str,
) -> Result<Option<PathBuf>, Box<Diagnostic>> {
    // A path that does not exist reads nothing (a missing file is reported where read).
    let Ok(real) = std::fs::canonicalize(path) else {
        return Ok(None);
    };
    let mut roots = readable.own.iter().chain(&readable.granted);
    if roots.any(|r| real.starts_with(r)) {
        return Ok(Some(real));
    }
    Err(Box::new(
        Diagnostic::error(
            "E-MOD-OUTSIDE",
            format!(
                "{what} of mod `{}` reaches `{}`, outside the mod's folder `{}`",
                m.id,
                real.display(),
                m.dir.display()
            ),
        )
        .in_file(&m.dir.join("mod.toml"))
        .with_help(format!(
            "a mod reads only its own folder; to let it read another, the operator adds `[grants.{}] read = [\"<folder>\"]` to server.toml",
            m.id
        ))
        .for_mod(&m.id),
    ))
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with('.'))
        {
            continue;
        }
        if p.is_dir() {
            walk(&p, out);
        } else {
            out.push(p);
        }
    }
}

/// The `[content] loaders` keys compiled as globs (`None` for a plain file name or path).
fn loader_patterns(m: &ResolvedMod) -> Result<Vec<Option<globset::GlobMatcher>>, Box<Diagnostic>> {
    m.manifest
        .content_loaders
        .iter()
        .map(|(name, _)| {
            if !name.contains(['*', '?', '[', '{']) {
                return Ok(None);
            }
            globset::GlobBuilder::new(name)
                .literal_separator(true)
                .build()
                .map(|g| Some(g.compile_matcher()))
                .map_err(|e| {
                    Box::new(
                        Diagnostic::error(
                            "E-MANIFEST-VALUE",
                            format!("`[content] loaders` key `{name}` is not a valid glob: {e}"),
                        )
                        .in_file(&m.dir.join("mod.toml"))
                        .with_help("write a file name, a path, or a glob such as `cards/**/*.txt`")
                        .for_mod(&m.id),
                    )
                })
        })
        .collect()
}

/// Every trailing part of a path, shortest first (`c.txt`, `b/c.txt`, `a/b/c.txt`), so
/// a glob written relative to any folder matches.
fn path_suffixes(f: &Path) -> impl Iterator<Item = std::path::PathBuf> + '_ {
    let parts: Vec<_> = f.components().collect();
    (0..parts.len())
        .rev()
        .map(move |i| parts[i..].iter().collect())
}
