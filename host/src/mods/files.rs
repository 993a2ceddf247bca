//! A mod's folder as its loaders read it: [`ModFolder`] reads paths relative to the
//! mod's folder, only inside that folder or a folder the operator granted the mod
//! (`[grants.<mod>] read`), symlinks resolved — the same confinement as `[content] paths`.
//! And the text of a content file: UTF-8, or — for a file another format's loader reads
//! (not TOML or JSON) — Latin-1 when it is not UTF-8 (older game content often is).

use std::path::{Path, PathBuf};

use crate::rules::registry::{FileError, ModFiles};

/// A mod's readable files.
#[derive(Debug, Clone)]
pub(crate) struct ModFolder {
    pub mod_id: String,
    pub dir: PathBuf,
    /// Folders the operator granted the mod, besides its own.
    pub reads: Vec<PathBuf>,
}

impl ModFiles for ModFolder {
    fn read(&self, path: &str) -> Result<Vec<u8>, FileError> {
        let unreadable = |reason: String| FileError::Unreadable {
            path: path.to_owned(),
            reason,
        };
        let real =
            std::fs::canonicalize(self.dir.join(path)).map_err(|e| unreadable(e.to_string()))?;
        let inside = |root: &Path| std::fs::canonicalize(root).is_ok_and(|r| real.starts_with(r));
        if !(inside(&self.dir) || self.reads.iter().any(|r| inside(r))) {
            return Err(FileError::Outside {
                path: path.to_owned(),
                mod_id: self.mod_id.clone(),
            });
        }
        if real.is_dir() {
            return list(&real).map_err(unreadable);
        }
        std::fs::read(&real).map_err(|e| unreadable(e.to_string()))
    }
}

/// A folder read as a file: the names of the files in it (not its folders), sorted, one
/// per line — how a loader lists a folder for `#include "common/*.macros"`.
fn list(dir: &Path) -> Result<Vec<u8>, String> {
    let mut names = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(|e| e.to_string())? {
        let entry = entry.map_err(|e| e.to_string())?;
        if entry.path().is_file() {
            names.push(entry.file_name().to_string_lossy().into_owned());
        }
    }
    names.sort();
    Ok(names.join("\n").into_bytes())
}

/// A file's path relative to `dir`, `/`-separated, climbing with `..` where it lies
/// outside (a granted folder beside the mod's).
pub(crate) fn relative(dir: &Path, file: &Path) -> String {
    let (Ok(dir), Ok(file)) = (std::fs::canonicalize(dir), std::fs::canonicalize(file)) else {
        return file.to_string_lossy().replace('\\', "/");
    };
    relative_real(&dir, &file)
}

/// [`relative`] of paths with their symlinks resolved already.
pub(crate) fn relative_real(dir: &Path, file: &Path) -> String {
    let common = dir
        .components()
        .zip(file.components())
        .take_while(|(a, b)| a == b)
        .count();
    let ups = dir.components().count() - common;
    let parts: Vec<String> = std::iter::repeat_n("..".to_owned(), ups)
        .chain(
            file.components()
                .skip(common)
                .map(|c| c.as_os_str().to_string_lossy().into_owned()),
        )
        .collect();
    parts.join("/")
}

/// The text of bytes read from a content file: UTF-8, or — when `latin1` — each byte as
/// its Latin-1 character if they are not UTF-8. `None` for non-UTF-8 bytes otherwise.
pub(crate) fn decode(bytes: Vec<u8>, latin1: bool) -> Option<String> {
    match String::from_utf8(bytes) {
        Ok(s) => Some(s),
        Err(e) if latin1 => Some(e.into_bytes().iter().map(|&b| char::from(b)).collect()),
        Err(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mod_reads_its_folder_and_granted_ones_only() {
        let root = tempfile::tempdir().unwrap();
        let (dir, granted, other) = (
            root.path().join("m"),
            root.path().join("g"),
            root.path().join("o"),
        );
        for d in [&dir, &granted, &other] {
            std::fs::create_dir_all(d).unwrap();
        }
        std::fs::write(dir.join("a.txt"), "a").unwrap();
        std::fs::write(granted.join("b.txt"), "b").unwrap();
        std::fs::write(other.join("c.txt"), "c").unwrap();
        let m = ModFolder {
            mod_id: "m".into(),
            dir: dir.clone(),
            reads: vec![granted.clone()],
        };
        assert_eq!(m.read("a.txt").unwrap(), b"a");
        assert_eq!(m.read("../g/b.txt").unwrap(), b"b");
        std::fs::write(dir.join("z.txt"), "z").unwrap();
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        assert_eq!(
            m.read(".").unwrap(),
            b"a.txt\nz.txt",
            "a folder lists its files"
        );
        assert!(matches!(m.read("../o"), Err(FileError::Outside { .. })));
        assert!(matches!(
            m.read("../o/c.txt"),
            Err(FileError::Outside { .. })
        ));
        assert!(matches!(
            m.read("missing.txt"),
            Err(FileError::Unreadable { .. })
        ));
        assert_eq!(relative(&dir, &granted.join("b.txt")), "../g/b.txt");
        assert_eq!(relative(&dir, &dir.join("a.txt")), "a.txt");
    }

    #[test]
    fn latin1_only_where_asked() {
        assert_eq!(
            decode(b"caf\xe9".to_vec(), true).as_deref(),
            Some("caf\u{e9}")
        );
        assert_eq!(decode(b"caf\xe9".to_vec(), false), None);
        assert_eq!(decode("é".as_bytes().to_vec(), false).as_deref(), Some("é"));
    }
}
