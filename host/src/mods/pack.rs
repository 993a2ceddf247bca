//! Packed mods: a mod folder as one `.zip` (`tessera pack`), and installing one into a
//! mods folder (`tessera install`).
//!
//! Owns the archive layout and its checks. A packed mod holds every file of the mod folder
//! that `mods.lock` hashes ([`mod_files`]: manifest, content, locale, built plugins,
//! tests), under a folder named by the mod id, plus a `mods.lock` entry in lock form (id,
//! version, `sha256:` hash). The hash is the lock's own ([`ModHasher`]), so a packed mod's
//! hash is what `tessera check` locks for the folder it came from and for the folder it is
//! installed as. Installing checks the hash, the manifest, that the mod's required
//! dependencies are in the target folder at versions that match, and that no entry
//! points outside its folder; it writes nothing until every check passed. It must not
//! load content or touch the registry.

use std::io::{Read, Write};
use std::path::{Component, Path, PathBuf};

use semver::{Version, VersionReq};
use zip::write::SimpleFileOptions;

use super::lock::{mod_files, LockedMod, Lockfile, ModHasher};
use super::{discover, Manifest};

/// The archive entry holding the packed mod's lock (id, version, hash).
pub const LOCK_ENTRY: &str = "mods.lock";

/// At most this many bytes are unpacked from one archive (a guard against zip bombs).
pub const MAX_UNPACKED: u64 = 1 << 30;

/// Why packing or installing failed. Each message says what went wrong and how to fix it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PackError {
    /// A file could not be read or written.
    #[error("failed to {action} `{}`: {source}", path.display())]
    Io {
        /// `read`, `write`, `create`, ...
        action: &'static str,
        /// The file or folder.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The archive is not a readable zip file.
    #[error("`{}` is not a readable zip archive: {source}\nhelp: make packed mods with `tessera pack`", path.display())]
    Zip {
        /// The archive.
        path: PathBuf,
        /// The cause.
        source: zip::result::ZipError,
    },
    /// The mod's manifest is invalid.
    #[error("the manifest of `{}` is invalid:\n{rendered}", path.display())]
    Manifest {
        /// The manifest.
        path: PathBuf,
        /// Its diagnostics, rendered.
        rendered: String,
    },
    /// A plugin the manifest lists has not been built.
    #[error("plugin `{file}` of mod `{mod_id}` is not built (no `{}`)\nhelp: build it first with `tessera build`, then pack again", path.display())]
    PluginNotBuilt {
        /// The mod.
        mod_id: String,
        /// The manifest's `[[plugin]] file`.
        file: String,
        /// Where it should be.
        path: PathBuf,
    },
    /// The archive is not a packed mod (no lock entry, no manifest, other layout).
    #[error("`{}` is not a packed mod: {why}\nhelp: make packed mods with `tessera pack MOD_DIR`", path.display())]
    NotPacked {
        /// The archive.
        path: PathBuf,
        /// What is missing or wrong.
        why: String,
    },
    /// An entry would be written outside the mod's folder.
    #[error("`{}` has an unsafe entry `{entry}`: it would be written outside the mods folder; nothing was installed\nhelp: only install packed mods from sources you trust, and repack this one with `tessera pack`", path.display())]
    UnsafeEntry {
        /// The archive.
        path: PathBuf,
        /// The entry's name.
        entry: String,
    },
    /// The files do not hash to what the archive's lock says.
    #[error("`{}` is damaged or was changed after packing: its files hash to {actual}, its mods.lock says {expected}; nothing was installed\nhelp: download or pack it again", path.display())]
    HashMismatch {
        /// The archive.
        path: PathBuf,
        /// The lock's hash.
        expected: String,
        /// The files' hash.
        actual: String,
    },
    /// The archive's hash is not the one the operator asked for.
    #[error("`{}` has hash {actual}, but {expected} was expected; nothing was installed\nhelp: check that this is the file you meant to install", path.display())]
    UnexpectedHash {
        /// The archive.
        path: PathBuf,
        /// The hash asked for.
        expected: String,
        /// The archive's hash.
        actual: String,
    },
    /// A required dependency is not in the mods folder, or not at a matching version.
    #[error("{0}")]
    MissingDependency(Box<MissingDependency>),
    /// The mod is already installed and replacing was not asked for.
    #[error("`{}` already exists (mod `{mod_id}` {installed}); nothing was installed\nhelp: pass `--replace` to replace it with {version}", dir.display())]
    AlreadyInstalled {
        /// The mod.
        mod_id: String,
        /// The version in the archive.
        version: Version,
        /// What the folder holds (a version, or `unreadable`).
        installed: String,
        /// The folder.
        dir: PathBuf,
    },
}

/// A required dependency a packed mod lacks in the mods folder it is installed into.
#[derive(Debug, thiserror::Error)]
#[error("mod `{mod_id}` {version} needs `{dep}` {req}, {}; nothing was installed\nhelp: install `{dep}` {req} into `{}` first", found.as_ref().map_or_else(|| format!("which is not in `{}`", dir.display()), |v| format!("but `{}` has {dep} {v}", dir.display())), dir.display())]
pub struct MissingDependency {
    /// The mod being installed.
    pub mod_id: String,
    /// Its version.
    pub version: Version,
    /// The dependency.
    pub dep: String,
    /// The version it needs.
    pub req: VersionReq,
    /// The version in the folder, if any.
    pub found: Option<Version>,
    /// The mods folder.
    pub dir: PathBuf,
}

fn io<'a>(action: &'static str, path: &'a Path) -> impl FnOnce(std::io::Error) -> PackError + 'a {
    move |source| PackError::Io {
        action,
        path: path.to_path_buf(),
        source,
    }
}

/// A packed mod: what `pack` wrote or `install` read.
#[derive(Debug, Clone)]
pub struct Packed {
    /// The mod, its version and its hash, as `mods.lock` lists them.
    pub locked: LockedMod,
    /// Its files (relative paths), in archive order.
    pub files: Vec<String>,
}

impl Packed {
    /// The lock text of this mod alone (what the archive's `mods.lock` entry holds).
    pub fn lock_text(&self) -> String {
        Lockfile {
            mods: vec![self.locked.clone()],
        }
        .to_toml()
    }
}

fn load_manifest(dir: &Path) -> Result<Manifest, PackError> {
    let path = dir.join("mod.toml");
    let text = std::fs::read_to_string(&path).map_err(io("read", &path))?;
    parse_manifest(&path, &text)
}

fn parse_manifest(path: &Path, text: &str) -> Result<Manifest, PackError> {
    Manifest::parse(path, text).map_err(|e| PackError::Manifest {
        path: path.to_path_buf(),
        rendered: e.diagnostics.render(false),
    })
}

/// Packs the mod folder `dir` into the zip file `out`: every file the lock hashes, under
/// `ID/`, and a `mods.lock` entry. Every plugin the manifest lists must be built.
pub fn pack(dir: &Path, out: &Path) -> Result<Packed, PackError> {
    let manifest = load_manifest(dir)?;
    for p in &manifest.plugins {
        let path = dir.join(&p.file);
        if !path.is_file() {
            return Err(PackError::PluginNotBuilt {
                mod_id: manifest.id.clone(),
                file: p.file.clone(),
                path,
            });
        }
    }
    let files = mod_files(dir).map_err(io("read", dir))?;
    let file = std::fs::File::create(out).map_err(io("create", out))?;
    let mut zip = zip::ZipWriter::new(file);
    // A fixed time and mode, so packing the same files twice gives the same archive.
    let options = SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .last_modified_time(zip::DateTime::default())
        .unix_permissions(0o644);
    let zip_err = |source| PackError::Zip {
        path: out.to_path_buf(),
        source,
    };
    let mut hasher = ModHasher::default();
    for (rel, path) in &files {
        let bytes = std::fs::read(path).map_err(io("read", path))?;
        hasher.add(rel, &bytes);
        zip.start_file(format!("{}/{rel}", manifest.id), options)
            .map_err(zip_err)?;
        zip.write_all(&bytes).map_err(io("write", out))?;
    }
    let packed = Packed {
        locked: LockedMod {
            id: manifest.id.clone(),
            version: manifest.version.clone(),
            hash: hasher.finish(),
        },
        files: files.into_iter().map(|(rel, _)| rel).collect(),
    };
    zip.start_file(LOCK_ENTRY, options).map_err(zip_err)?;
    zip.write_all(packed.lock_text().as_bytes())
        .map_err(io("write", out))?;
    zip.finish().map_err(zip_err)?;
    Ok(packed)
}

/// How [`install`] treats an existing folder and the hash.
#[derive(Debug, Clone, Default)]
pub struct InstallOptions {
    /// Replace the mod's folder if it exists. By default this option is `false`: an
    /// existing folder is an error.
    pub replace: bool,
    /// The hash the archive must have (`sha256:…`, as `mods.lock` or `tessera pack`
    /// printed it). By default (`None`) only the archive's own lock is checked.
    pub expect_hash: Option<String>,
}

/// A mod's files read from an archive, checked against its lock.
struct Unpacked {
    manifest: Manifest,
    packed: Packed,
    files: Vec<(String, Vec<u8>)>,
}

/// A relative path of plain components only (no `..`, no root, no drive).
fn safe_relative(rel: &str) -> bool {
    let p = Path::new(rel);
    !rel.is_empty()
        && !rel.contains('\\')
        && p.components().all(|c| matches!(c, Component::Normal(_)))
}

/// Every file entry of the archive with its bytes, refusing unsafe paths and archives that
/// unpack to more than [`MAX_UNPACKED`].
fn read_entries(zip_path: &Path) -> Result<Vec<(String, Vec<u8>)>, PackError> {
    let zip_err = |source| PackError::Zip {
        path: zip_path.to_path_buf(),
        source,
    };
    let file = std::fs::File::open(zip_path).map_err(io("open", zip_path))?;
    let mut archive = zip::ZipArchive::new(file).map_err(zip_err)?;
    let mut entries: Vec<(String, Vec<u8>)> = Vec::new();
    let mut total = 0u64;
    for i in 0..archive.len() {
        let mut entry = archive.by_index(i).map_err(zip_err)?;
        let name = entry.name().to_owned();
        if !safe_relative(name.trim_end_matches('/')) || entry.enclosed_name().is_none() {
            return Err(PackError::UnsafeEntry {
                path: zip_path.to_path_buf(),
                entry: name,
            });
        }
        if entry.is_dir() {
            continue;
        }
        total = total.saturating_add(entry.size());
        if total > MAX_UNPACKED {
            return Err(PackError::NotPacked {
                path: zip_path.to_path_buf(),
                why: format!("it unpacks to more than {} MB", MAX_UNPACKED >> 20),
            });
        }
        let mut bytes = Vec::new();
        entry
            .by_ref()
            .take(MAX_UNPACKED)
            .read_to_end(&mut bytes)
            .map_err(io("read", zip_path))?;
        entries.push((name, bytes));
    }
    Ok(entries)
}

/// The one mod the archive's lock entry lists.
fn read_lock(zip_path: &Path, entries: &[(String, Vec<u8>)]) -> Result<LockedMod, PackError> {
    let not_packed = |why: String| PackError::NotPacked {
        path: zip_path.to_path_buf(),
        why,
    };
    let lock_bytes = entries
        .iter()
        .find(|(n, _)| n == LOCK_ENTRY)
        .map(|(_, b)| b.clone())
        .ok_or_else(|| not_packed(format!("it has no `{LOCK_ENTRY}` entry")))?;
    let lock_text = String::from_utf8(lock_bytes)
        .map_err(|_| not_packed(format!("its `{LOCK_ENTRY}` is not UTF-8 text")))?;
    let lock = Lockfile::parse(&zip_path.join(LOCK_ENTRY), &lock_text).map_err(|d| {
        not_packed(format!(
            "its `{LOCK_ENTRY}` is invalid:\n{}",
            d.render(false)
        ))
    })?;
    let [locked] = lock.mods.as_slice() else {
        return Err(not_packed(format!(
            "its `{LOCK_ENTRY}` lists {} mods, a packed mod has one",
            lock.mods.len()
        )));
    };
    Ok(locked.clone())
}

fn read_archive(zip_path: &Path) -> Result<Unpacked, PackError> {
    let not_packed = |why: String| PackError::NotPacked {
        path: zip_path.to_path_buf(),
        why,
    };
    let entries = read_entries(zip_path)?;
    let locked = &read_lock(zip_path, &entries)?;
    let prefix = format!("{}/", locked.id);
    let mut files = Vec::new();
    for (name, bytes) in entries {
        if name == LOCK_ENTRY {
            continue;
        }
        let Some(rel) = name.strip_prefix(&prefix) else {
            return Err(not_packed(format!(
                "entry `{name}` is outside the mod's folder `{prefix}`"
            )));
        };
        files.push((rel.to_owned(), bytes));
    }
    files.sort();
    let mut hasher = ModHasher::default();
    for (rel, bytes) in &files {
        hasher.add(rel, bytes);
    }
    let actual = hasher.finish();
    if actual != locked.hash {
        return Err(PackError::HashMismatch {
            path: zip_path.to_path_buf(),
            expected: locked.hash.clone(),
            actual,
        });
    }
    let manifest_bytes = files
        .iter()
        .find(|(rel, _)| rel == "mod.toml")
        .map(|(_, b)| b)
        .ok_or_else(|| not_packed(format!("it has no `{prefix}mod.toml`")))?;
    let manifest_text = std::str::from_utf8(manifest_bytes)
        .map_err(|_| not_packed(format!("`{prefix}mod.toml` is not UTF-8 text")))?;
    let manifest = parse_manifest(&zip_path.join(&prefix).join("mod.toml"), manifest_text)?;
    if manifest.id != locked.id || manifest.version != locked.version {
        return Err(not_packed(format!(
            "its manifest says `{}` {}, its `{LOCK_ENTRY}` says `{}` {}",
            manifest.id, manifest.version, locked.id, locked.version
        )));
    }
    let packed = Packed {
        locked: locked.clone(),
        files: files.iter().map(|(rel, _)| rel.clone()).collect(),
    };
    Ok(Unpacked {
        manifest,
        packed,
        files,
    })
}

/// Installs the packed mod `zip_path` into the mods folder `mods_dir` (as
/// `mods_dir/ID/`), after checking its hash, its manifest, its entries' paths and that
/// each required dependency is in `mods_dir` at a matching version. Returns what was
/// installed; on any error nothing was written.
pub fn install(
    zip_path: &Path,
    mods_dir: &Path,
    options: &InstallOptions,
) -> Result<Packed, PackError> {
    let unpacked = read_archive(zip_path)?;
    let locked = &unpacked.packed.locked;
    if let Some(expected) = &options.expect_hash {
        if *expected != locked.hash {
            return Err(PackError::UnexpectedHash {
                path: zip_path.to_path_buf(),
                expected: expected.clone(),
                actual: locked.hash.clone(),
            });
        }
    }
    let present = discover(&[mods_dir.to_path_buf()]);
    for dep in unpacked
        .manifest
        .dependencies
        .iter()
        .filter(|d| !d.optional)
    {
        let found: Vec<&Version> = present
            .mods
            .iter()
            .filter(|m| m.manifest.id == dep.id)
            .map(|m| &m.manifest.version)
            .collect();
        if !found.iter().any(|v| dep.req.matches(v)) {
            return Err(PackError::MissingDependency(Box::new(MissingDependency {
                mod_id: locked.id.clone(),
                version: locked.version.clone(),
                dep: dep.id.clone(),
                req: dep.req.clone(),
                found: found.first().map(|v| (*v).clone()),
                dir: mods_dir.to_path_buf(),
            })));
        }
    }
    let target = mods_dir.join(&locked.id);
    if target.exists() && !options.replace {
        let installed = load_manifest(&target)
            .map_or_else(|_| "unreadable".to_owned(), |m| m.version.to_string());
        return Err(PackError::AlreadyInstalled {
            mod_id: locked.id.clone(),
            version: locked.version.clone(),
            installed,
            dir: target,
        });
    }
    // Unpack beside the target, then swap it in, so a failed write leaves no half mod.
    let staging = mods_dir.join(format!(".{}.installing", locked.id));
    if staging.exists() {
        std::fs::remove_dir_all(&staging).map_err(io("remove", &staging))?;
    }
    let written = write_files(&staging, &unpacked.files);
    if let Err(e) = written {
        let _ = std::fs::remove_dir_all(&staging);
        return Err(e);
    }
    if target.exists() {
        std::fs::remove_dir_all(&target).map_err(io("remove", &target))?;
    }
    std::fs::rename(&staging, &target).map_err(io("move into place", &target))?;
    Ok(unpacked.packed)
}

fn write_files(dir: &Path, files: &[(String, Vec<u8>)]) -> Result<(), PackError> {
    for (rel, bytes) in files {
        // `read_archive` accepted only plain relative components.
        let path = rel.split('/').fold(dir.to_path_buf(), |p, c| p.join(c));
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(io("create", parent))?;
        }
        std::fs::write(&path, bytes).map_err(io("write", &path))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_relative_paths_are_safe() {
        assert!(safe_relative("arena/content/cards.toml"));
        assert!(safe_relative("mods.lock"));
        for bad in [
            "../evil",
            "arena/../../evil",
            "/etc/passwd",
            "a\\..\\b",
            "",
            "./x",
        ] {
            assert!(!safe_relative(bad), "{bad}");
        }
    }
}
