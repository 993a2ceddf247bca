//! Discovery: finding mod folders and reading their manifests.
//!
//! Owns walking the mod folders an operator names (each direct subfolder holding a
//! `mod.toml` is a mod) and turning each into a [`FoundMod`] or, when its manifest is
//! malformed, a [`BrokenMod`] — so one bad manifest disables only its own mod. It does not
//! judge whether mods fit together (duplicate ids included: that is resolution's job, so it
//! applies however the candidates were gathered).

use std::path::{Path, PathBuf};

use super::manifest::Manifest;
use crate::diag::{Diagnostic, Diagnostics};

/// A mod folder with a readable manifest.
#[derive(Debug, Clone)]
pub struct FoundMod {
    /// The mod folder.
    pub dir: PathBuf,
    /// Its parsed `mod.toml`.
    pub manifest: Manifest,
}

/// A mod folder whose manifest could not be used. Its diagnostics are in
/// [`Discovery::diagnostics`].
#[derive(Debug, Clone)]
pub struct BrokenMod {
    /// The mod folder.
    pub dir: PathBuf,
    /// The mod id, when the manifest's `[mod] id` was readable.
    pub id: Option<String>,
}

/// Everything found in the mod folders.
#[derive(Debug, Clone, Default)]
pub struct Discovery {
    /// Mods with good manifests, in folder order then by folder name.
    pub mods: Vec<FoundMod>,
    /// Mods whose manifests have errors.
    pub broken: Vec<BrokenMod>,
    /// Problems found while discovering (bad manifests, missing folders).
    pub diagnostics: Diagnostics,
}

impl Discovery {
    /// Builds a discovery result from mods made in code (tests, tools).
    pub fn from_mods(mods: Vec<FoundMod>) -> Discovery {
        Discovery {
            mods,
            broken: Vec::new(),
            diagnostics: Diagnostics::default(),
        }
    }

    /// Adds one mod folder (a folder holding `mod.toml`) to the result.
    pub fn add_mod_dir(&mut self, dir: &Path) {
        let manifest_path = dir.join("mod.toml");
        match Manifest::load(&manifest_path) {
            Ok(manifest) => self.mods.push(FoundMod {
                dir: dir.to_path_buf(),
                manifest,
            }),
            Err(e) => {
                let id = e.id.clone();
                for mut d in e.diagnostics.0 {
                    if d.mod_id.is_none() {
                        d.mod_id = id.clone();
                    }
                    d.notes.push(format!(
                        "the mod in `{}` is disabled until its manifest is fixed",
                        dir.display()
                    ));
                    self.diagnostics.push(d);
                }
                self.broken.push(BrokenMod {
                    dir: dir.to_path_buf(),
                    id,
                });
            }
        }
    }
}

/// Finds the mods in each folder of `dirs` (each direct subfolder with a `mod.toml`;
/// folders whose names start with `.` are skipped). Folders are read in the order given,
/// subfolders by name, so the result is deterministic. A folder that cannot be read is an
/// `E-MODS-DIR` error; a malformed manifest is reported and becomes a [`BrokenMod`].
pub fn discover(dirs: &[PathBuf]) -> Discovery {
    let mut out = Discovery::default();
    for dir in dirs {
        let entries = match std::fs::read_dir(dir) {
            Ok(e) => e,
            Err(e) => {
                out.diagnostics.push(
                    Diagnostic::error("E-MODS-DIR", format!("failed to read mod folder `{}`: {e}", dir.display()))
                        .with_help("create the folder, or pass the right one with `--mods DIR` or `mod_dirs` in server.toml"),
                );
                continue;
            }
        };
        let mut subdirs: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
            .map(|e| e.path())
            .filter(|p| p.is_dir() && p.join("mod.toml").is_file())
            .collect();
        subdirs.sort();
        for sub in subdirs {
            out.add_mod_dir(&sub);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_folder_is_an_error_not_a_panic() {
        let d = discover(&[PathBuf::from("/definitely/not/here/tessera")]);
        assert_eq!(d.diagnostics.0[0].code, "E-MODS-DIR");
        assert!(d.mods.is_empty());
    }
}
