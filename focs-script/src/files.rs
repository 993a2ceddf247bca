//! Where the preprocessor reads files from: [`Files`] (a loader plugin gives its host's
//! read access; tests and tools give a folder, [`DirFiles`]), and how `#include` paths
//! resolve to names relative to the content root.

use std::path::PathBuf;

/// Reads the files of a content tree by their names relative to its root
/// (`scripting/common/priorities.macros`).
pub trait Files {
    /// The text of `name`, or why it cannot be read.
    fn read(&mut self, name: &str) -> Result<String, String>;

    /// The names of the files in folder `dir` (for `#include "common/*.macros"`), or why
    /// they cannot be listed. By default, folders cannot be listed.
    fn list(&mut self, dir: &str) -> Result<Vec<String>, String> {
        Err(format!("cannot list the folder `{dir}` here"))
    }
}

/// Files in a folder on disk (the content root, holding `scripting/`). FOCS files may be
/// Latin-1: bytes that are not UTF-8 are read as Latin-1.
#[derive(Debug, Clone)]
pub struct DirFiles {
    /// The content root.
    pub root: PathBuf,
}

impl DirFiles {
    /// Files under `root`.
    pub fn new(root: impl Into<PathBuf>) -> DirFiles {
        DirFiles { root: root.into() }
    }
}

impl Files for DirFiles {
    fn read(&mut self, name: &str) -> Result<String, String> {
        let bytes = std::fs::read(self.root.join(name)).map_err(|e| e.to_string())?;
        Ok(decode(bytes))
    }

    fn list(&mut self, dir: &str) -> Result<Vec<String>, String> {
        let mut names = Vec::new();
        for entry in std::fs::read_dir(self.root.join(dir)).map_err(|e| e.to_string())? {
            let entry = entry.map_err(|e| e.to_string())?;
            if entry.path().is_file() {
                names.push(entry.file_name().to_string_lossy().into_owned());
            }
        }
        Ok(names)
    }
}

/// Whether file name `name` matches `pattern`, where one `*` stands for any text.
pub(crate) fn matches(pattern: &str, name: &str) -> bool {
    match pattern.split_once('*') {
        None => pattern == name,
        Some((pre, post)) => {
            name.len() >= pre.len() + post.len() && name.starts_with(pre) && name.ends_with(post)
        }
    }
}

/// UTF-8 text as it is; other bytes as Latin-1 (each byte one character).
pub(crate) fn decode(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes)
        .unwrap_or_else(|e| e.into_bytes().iter().map(|&b| char::from(b)).collect())
}

/// The root-relative name an `#include` path names: `/scripting/x` from the root,
/// anything else from the including file's folder; `.` and `..` resolved. `None` when
/// `..` climbs above the root.
pub(crate) fn resolve(including: &str, path: &str) -> Option<String> {
    let mut parts: Vec<&str> = match path.strip_prefix('/') {
        Some(_) => Vec::new(),
        None => {
            let mut dir: Vec<&str> = including.split('/').collect();
            dir.pop();
            dir
        }
    };
    for seg in path.trim_start_matches('/').split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            s => parts.push(s),
        }
    }
    Some(parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn include_paths_resolve_from_the_root_or_the_including_folder() {
        let from = "scripting/ship_hulls/asteroid/SH_SMALL_ASTEROID.focs.txt";
        assert_eq!(
            resolve(from, "/scripting/common/misc.macros").as_deref(),
            Some("scripting/common/misc.macros")
        );
        assert_eq!(
            resolve(from, "../ship_hulls.macros").as_deref(),
            Some("scripting/ship_hulls/ship_hulls.macros")
        );
        assert_eq!(resolve("a.txt", "../../x").as_deref(), None);
    }

    #[test]
    fn one_star_matches_any_text() {
        assert!(matches("*.macros", "misc.macros"));
        assert!(!matches("*.macros", "misc.py"));
        assert!(matches("a*b", "ab") && !matches("a*b", "b"));
    }

    #[test]
    fn latin1_bytes_are_read_as_latin1() {
        assert_eq!(decode(b"caf\xe9".to_vec()), "caf\u{e9}");
        assert_eq!(decode("café".as_bytes().to_vec()), "café");
    }
}
