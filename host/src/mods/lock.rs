//! `mods.lock`: the resolved load order with each mod's version and content hash.
//!
//! Owns hashing a mod folder, writing and reading the lock file, and comparing a lock with
//! the current resolution so a mod whose files changed since the lock was written is
//! reported (`W-LOCK-DRIFT`). It does not decide the order; it records it.
//!
//! ```toml
//! # This file is written by Tessera. Do not edit it by hand.
//! version = 1
//!
//! [[mod]]
//! id = "core"
//! version = "0.1.0"
//! hash = "sha256:3f1c…"
//! ```

use std::io;
use std::path::{Path, PathBuf};

use semver::Version;
use serde::Deserialize;
use sha2::{Digest, Sha256};
use toml::Spanned;

use super::resolve::Resolution;
use super::toml_read::{fields_of, Codes, Field, Reader, Seg, Typed};
use crate::diag::{Diagnostic, Diagnostics, Severity, SourceText};

static CODES: Codes = Codes {
    parse: "E-LOCK-PARSE",
    unknown_key: "E-LOCK-UNKNOWN-KEY",
    wrong_type: "E-LOCK-TYPE",
    missing_key: "E-LOCK-MISSING-KEY",
};

/// The lock file format version this host writes and reads.
const LOCK_FORMAT: u64 = 1;

/// `mods.lock` as written (lenient, like the manifest: see [`Typed`]).
#[derive(Deserialize)]
struct LockToml {
    version: Field<u64>,
    #[serde(rename = "mod")]
    mods: Option<Typed<Vec<Spanned<Typed<LockedModToml>>>>>,
}

/// One `[[mod]]` as written.
#[derive(Deserialize)]
struct LockedModToml {
    id: Field<String>,
    version: Field<String>,
    hash: Field<String>,
}

/// Names the table an unknown key at `path` sits in, with the keys that table accepts.
fn table_name(path: &[Seg]) -> Option<(String, &'static [&'static str])> {
    match path {
        [] => Some(("mods.lock".into(), fields_of::<LockToml>())),
        [Seg::Key(_), Seg::Index(_)] => Some(("`[[mod]]`".into(), fields_of::<LockedModToml>())),
        _ => None,
    }
}

/// One mod in the lock, in load order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LockedMod {
    /// The mod id.
    pub id: String,
    /// Its version.
    pub version: Version,
    /// `sha256:<hex>` over its files (see [`hash_mod_dir`]).
    pub hash: String,
}

/// The contents of `mods.lock`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Lockfile {
    /// Mods in load order.
    pub mods: Vec<LockedMod>,
}

/// Hashes a mod folder: SHA-256 over every file below it (dotfiles and dot-folders
/// excluded), in order of their `/`-separated relative paths; each file contributes its
/// path, a zero byte, its length (8 bytes, little-endian) and its bytes. Symbolic links to
/// files are followed; links to folders are skipped (no loops). Returns `sha256:<hex>`.
pub fn hash_mod_dir(dir: &Path) -> io::Result<String> {
    let mut h = ModHasher::default();
    for (rel, path) in mod_files(dir)? {
        let bytes = std::fs::read(&path).map_err(|e| with_path(e, &path))?;
        h.add(&rel, &bytes);
    }
    Ok(h.finish())
}

/// The files [`hash_mod_dir`] hashes, as (`/`-separated relative path, path), sorted by
/// relative path: what `tessera pack` puts in a packed mod.
pub fn mod_files(dir: &Path) -> io::Result<Vec<(String, PathBuf)>> {
    let mut files = Vec::new();
    collect_files(dir, dir, &mut files)?;
    files.sort();
    Ok(files)
}

/// The hash of [`hash_mod_dir`], fed one file at a time (in order of relative path), so
/// files that are not on disk (a packed mod's entries) hash the same way.
#[derive(Default)]
pub struct ModHasher(Sha256);

impl ModHasher {
    /// Adds one file: its `/`-separated path relative to the mod folder, and its bytes.
    pub fn add(&mut self, rel: &str, bytes: &[u8]) {
        self.0.update(rel.as_bytes());
        self.0.update([0u8]);
        self.0
            .update(u64::try_from(bytes.len()).unwrap_or(u64::MAX).to_le_bytes());
        self.0.update(bytes);
    }

    /// `sha256:<hex>` of every file added.
    pub fn finish(self) -> String {
        let digest = self.0.finalize();
        let mut out = String::with_capacity(7 + 64);
        out.push_str("sha256:");
        for b in digest {
            out.push_str(&format!("{b:02x}"));
        }
        out
    }
}

fn with_path(e: io::Error, path: &Path) -> io::Error {
    io::Error::new(
        e.kind(),
        format!("failed to read `{}`: {e}", path.display()),
    )
}

fn collect_files(root: &Path, dir: &Path, out: &mut Vec<(String, PathBuf)>) -> io::Result<()> {
    for entry in std::fs::read_dir(dir).map_err(|e| with_path(e, dir))? {
        let entry = entry.map_err(|e| with_path(e, dir))?;
        let name = entry.file_name();
        if name.to_string_lossy().starts_with('.') {
            continue;
        }
        let path = entry.path();
        let ty = entry.file_type().map_err(|e| with_path(e, &path))?;
        let is_file = if ty.is_symlink() {
            std::fs::metadata(&path)
                .map(|m| m.is_file())
                .unwrap_or(false)
        } else {
            ty.is_file()
        };
        if ty.is_dir() {
            collect_files(root, &path, out)?;
        } else if is_file {
            let rel = path.strip_prefix(root).unwrap_or(&path);
            let rel: Vec<String> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            out.push((rel.join("/"), path));
        }
    }
    Ok(())
}

impl Lockfile {
    /// Builds the lock for a resolution, hashing every loaded mod's folder.
    pub fn from_resolution(resolution: &Resolution) -> io::Result<Lockfile> {
        let mods = resolution
            .order
            .iter()
            .map(|m| {
                Ok(LockedMod {
                    id: m.id.clone(),
                    version: m.version.clone(),
                    hash: hash_mod_dir(&m.dir)?,
                })
            })
            .collect::<io::Result<Vec<_>>>()?;
        Ok(Lockfile { mods })
    }

    /// The TOML text of the lock file.
    pub fn to_toml(&self) -> String {
        let mut out = format!(
            "# This file is written by Tessera. Do not edit it by hand.\nversion = {LOCK_FORMAT}\n"
        );
        for m in &self.mods {
            // Ids and versions are validated, hashes are hex: no escaping needed.
            out.push_str(&format!(
                "\n[[mod]]\nid = \"{}\"\nversion = \"{}\"\nhash = \"{}\"\n",
                m.id, m.version, m.hash
            ));
        }
        out
    }

    /// Writes the lock atomically (a temporary file, then a rename).
    pub fn write(&self, path: &Path) -> io::Result<()> {
        let tmp = path.with_extension("lock.tmp");
        std::fs::write(&tmp, self.to_toml()).map_err(|e| {
            io::Error::new(
                e.kind(),
                format!("failed to write `{}`: {e}", tmp.display()),
            )
        })?;
        std::fs::rename(&tmp, path).map_err(|e| {
            io::Error::new(
                e.kind(),
                format!("failed to replace `{}`: {e}", path.display()),
            )
        })
    }

    /// Reads a lock file; `Ok(None)` when it does not exist.
    pub fn read(path: &Path) -> Result<Option<Lockfile>, Diagnostics> {
        match std::fs::read_to_string(path) {
            Ok(text) => Lockfile::parse(path, &text).map(Some),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(Diagnostics(vec![Diagnostic::error(
                "E-LOCK-READ",
                format!("failed to read lock file: {e}"),
            )
            .in_file(path)
            .with_help(
                "check its permissions, or delete it to have it written again",
            )])),
        }
    }

    /// Parses lock file text (`path` is used in messages).
    pub fn parse(path: &Path, text: &str) -> Result<Lockfile, Diagnostics> {
        let src = SourceText::new(path, text);
        let mut r = Reader::new(&src, &CODES);
        let Some(doc) = r.read::<LockToml>(text, "mods.lock") else {
            return Err(Diagnostics(r.diags));
        };
        r.report_unknown(&doc, table_name);
        let t = &doc.value;
        if let Some(v) = t.version.as_ref() {
            if let Some(n) = r.unsigned(v, "version", "version = 1") {
                if n != LOCK_FORMAT {
                    r.push(
                        Diagnostic::error("E-LOCK-FORMAT", format!("mods.lock has format version {n}, but this host reads version {LOCK_FORMAT}"))
                            .at(r.loc(v.span()))
                            .with_help("delete mods.lock; it is written again on the next run"),
                    );
                }
            }
        }
        let mut lock = Lockfile::default();
        if let Some(Typed::Ok(items)) = &t.mods {
            lock.mods = items
                .iter()
                .filter_map(|item| read_locked(&mut r, item))
                .collect();
        }
        if r.diags.is_empty() {
            Ok(lock)
        } else {
            Err(Diagnostics(r.diags))
        }
    }

    /// The locked entry for `id`.
    pub fn get(&self, id: &str) -> Option<&LockedMod> {
        self.mods.iter().find(|m| m.id == id)
    }

    /// Compares this (older) lock with `current`: a `W-LOCK-DRIFT` warning for each mod
    /// whose files changed since the lock was written, and notes for mods added, removed,
    /// upgraded, or moved in the load order.
    pub fn compare(&self, current: &Lockfile, lock_path: &Path) -> Diagnostics {
        let mut out = Diagnostics::default();
        let note = |code: &'static str, msg: String| Diagnostic {
            severity: Severity::Note,
            ..Diagnostic::warning(code, msg)
        };
        for m in &current.mods {
            match self.get(&m.id) {
                None => out.push(note("N-LOCK-ADDED", format!("mod `{}` {} is new since `{}` was written", m.id, m.version, lock_path.display())).for_mod(m.id.as_str())),
                Some(old) if old.version != m.version => out.push(
                    note("N-LOCK-VERSION", format!("mod `{}` changed version since `{}` was written: {} -> {}", m.id, lock_path.display(), old.version, m.version))
                        .for_mod(m.id.as_str()),
                ),
                Some(old) if old.hash != m.hash => out.push(
                    Diagnostic::warning("W-LOCK-DRIFT", format!("files of mod `{}` {} changed since `{}` was written", m.id, m.version, lock_path.display()))
                        .for_mod(m.id.as_str())
                        .with_note(format!("locked hash {}, current hash {}", old.hash, m.hash))
                        .with_help(format!("if the change is intended, run `tessera check --update-lock` to record it (and bump the version of `{}` before you publish it); a save made with the old files may not replay", m.id)),
                ),
                Some(_) => {}
            }
        }
        for old in &self.mods {
            if current.get(&old.id).is_none() {
                out.push(
                    note(
                        "N-LOCK-REMOVED",
                        format!(
                            "mod `{}` {} was in `{}` but no longer loads",
                            old.id,
                            old.version,
                            lock_path.display()
                        ),
                    )
                    .for_mod(old.id.as_str()),
                );
            }
        }
        let common = |l: &Lockfile, other: &Lockfile| -> Vec<String> {
            l.mods
                .iter()
                .filter(|m| other.get(&m.id).is_some())
                .map(|m| m.id.clone())
                .collect()
        };
        if common(self, current) != common(current, self) {
            out.push(note(
                "N-LOCK-ORDER",
                format!(
                    "the load order changed since `{}` was written",
                    lock_path.display()
                ),
            ));
        }
        out
    }
}

/// One `[[mod]]` entry: all three keys, and a semver version.
fn read_locked(r: &mut Reader<'_>, item: &Spanned<Typed<LockedModToml>>) -> Option<LockedMod> {
    let (t, span) = r.typed(item, "mod", "a table", "[[mod]]")?;
    let mut field = |v: &Field<String>, k: &str| match v.as_ref() {
        Some(v) => r.string(v, &format!("mod.{k}"), &format!("{k} = \"...\"")),
        None => {
            r.missing(span.clone(), k, "`[[mod]]`", &format!("{k} = \"...\""));
            None
        }
    };
    let (id, version, hash) = (
        field(&t.id, "id"),
        field(&t.version, "version"),
        field(&t.hash, "hash"),
    );
    let ((id, _), (version, vspan), (hash, _)) = (id?, version?, hash?);
    match Version::parse(&version) {
        Ok(version) => Some(LockedMod { id, version, hash }),
        Err(e) => {
            r.push(
                Diagnostic::error(
                    "E-LOCK-PARSE",
                    format!("invalid version `{version}` in mods.lock: {e}"),
                )
                .at(r.loc(vspan))
                .with_help("delete mods.lock; it is written again on the next run"),
            );
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        let lock = Lockfile {
            mods: vec![LockedMod {
                id: "core".into(),
                version: Version::new(0, 1, 0),
                hash: "sha256:00".into(),
            }],
        };
        let back = Lockfile::parse(Path::new("mods.lock"), &lock.to_toml()).unwrap();
        assert_eq!(back, lock);
    }

    #[test]
    fn rejects_garbage_with_a_location() {
        let e =
            Lockfile::parse(Path::new("mods.lock"), "version = 2\n[[mod]]\nid = 1\n").unwrap_err();
        assert!(e.0.iter().any(|d| d.code == "E-LOCK-FORMAT"));
        assert!(e.0.iter().any(|d| d.code == "E-LOCK-TYPE"));
    }

    #[test]
    fn drift_and_changes() {
        let m = |id: &str, v: u64, h: &str| LockedMod {
            id: id.into(),
            version: Version::new(0, v, 0),
            hash: h.into(),
        };
        let old = Lockfile {
            mods: vec![m("a", 1, "x"), m("b", 1, "y"), m("c", 1, "z")],
        };
        let new = Lockfile {
            mods: vec![m("b", 1, "y2"), m("a", 2, "x"), m("d", 1, "w")],
        };
        let d = old.compare(&new, Path::new("mods.lock"));
        let codes: Vec<_> = d.0.iter().map(|d| d.code).collect();
        assert_eq!(
            codes,
            vec![
                "W-LOCK-DRIFT",
                "N-LOCK-VERSION",
                "N-LOCK-ADDED",
                "N-LOCK-REMOVED",
                "N-LOCK-ORDER"
            ]
        );
    }
}
