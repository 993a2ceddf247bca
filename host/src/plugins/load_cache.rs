//! Loader replies kept on disk, so a mod whose plugin translates thousands of files loads
//! them again without running the plugin: a reply is stored under a key of (the plugin
//! module's digest, the loader id, the file's path and text), with the digests of the
//! other files the loader instance had read (`load_read`: includes, shared fragments), and
//! is used again only while each of those still has the same digest. Errors are never
//! stored: a file that fails is translated again, and reported, every time.
//!
//! Owns the entry format, lookups (checking dependencies, each file hashed once per
//! load), writes (a temporary file renamed into place: concurrent loads never see half an
//! entry) and the cleanup of older builds' entries. Entries live under
//! `<cache dir>/loads/<mod>-<plugin>/<module digest>/`; the two newest builds of a plugin
//! are kept.

use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use sha2::{Digest as _, Sha256};

use crate::rules::registry::ModFiles;

/// A SHA-256 digest.
pub(crate) type Digest = [u8; 32];

/// The files a loader instance read besides the file it was loading, with the digest of
/// what each held (`None`: it could not be read).
pub(crate) type Reads = BTreeMap<String, Option<Digest>>;

/// The first line of every entry (a changed format is a new first line: old entries miss).
const MAGIC: &str = "tessera load cache 1";

/// How many builds of one plugin keep their entries.
const BUILDS_KEPT: usize = 2;

/// The digest of `bytes`.
pub(crate) fn digest(bytes: &[u8]) -> Digest {
    Sha256::digest(bytes).into()
}

/// One plugin build's stored replies.
#[derive(Debug)]
pub(crate) struct LoadCache {
    dir: PathBuf,
    code: Digest,
    /// Each dependency's digest now, read once per load (files do not change while mods
    /// load; a reload builds a new cache, and reads them again).
    now: Mutex<HashMap<String, Option<Digest>>>,
}

impl LoadCache {
    /// The cache of the plugin `file` of `mod_id` whose module has digest `code`, under
    /// `root`. Entries of older builds of the same plugin beyond the newest
    /// [`BUILDS_KEPT`] are removed.
    pub(crate) fn open(root: &Path, mod_id: &str, file: &Path, code: Digest) -> LoadCache {
        let plugin = format!(
            "{}-{}",
            sanitize(mod_id),
            sanitize(&file.file_stem().unwrap_or_default().to_string_lossy())
        );
        let builds = root.join("loads").join(plugin);
        let dir = builds.join(hex(&code));
        if !dir.is_dir() && std::fs::create_dir_all(&dir).is_ok() {
            prune(&builds, &dir);
        }
        LoadCache {
            dir,
            code,
            now: Mutex::new(HashMap::new()),
        }
    }

    /// The key of a loader's reply for the file at `path` holding `text`.
    pub(crate) fn key(&self, loader: &str, path: &str, text: &str) -> Digest {
        let mut h = Sha256::new();
        h.update(self.code);
        for part in [loader, path, text] {
            h.update((part.len() as u64).to_le_bytes());
            h.update(part.as_bytes());
        }
        h.finalize().into()
    }

    /// The stored reply for `key`, when there is one and every file it depends on is
    /// unchanged (read through `files`, the mod's files, as the loader read them).
    pub(crate) fn get(&self, key: &Digest, files: Option<&Arc<dyn ModFiles>>) -> Option<Vec<u8>> {
        let bytes = std::fs::read(self.entry(key)).ok()?;
        let (reads, reply) = parse_entry(&bytes)?;
        let fresh = reads
            .iter()
            .all(|(path, was)| self.digest_now(path, files) == *was);
        fresh.then(|| reply.to_vec())
    }

    /// Stores `reply` for `key`, depending on `reads`. Failing to write only loses the
    /// entry (the cache is an optimisation: a read-only disk must not fail a load).
    pub(crate) fn put(&self, key: &Digest, reads: &Reads, reply: &[u8]) {
        let path = self.entry(key);
        let tmp = path.with_extension(format!("tmp{}", std::process::id()));
        let written = std::fs::File::create(&tmp).and_then(|mut f| {
            f.write_all(&entry_bytes(reads, reply))?;
            f.flush()
        });
        if written.is_err() || std::fs::rename(&tmp, &path).is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
    }

    fn entry(&self, key: &Digest) -> PathBuf {
        self.dir.join(hex(key))
    }

    fn digest_now(&self, path: &str, files: Option<&Arc<dyn ModFiles>>) -> Option<Digest> {
        let mut now = self.now.lock().unwrap_or_else(|e| e.into_inner());
        *now.entry(path.to_owned())
            .or_insert_with(|| files.and_then(|f| f.read(path).ok()).map(|b| digest(&b)))
    }
}

/// An entry: the magic line, a `dep <digest or -> <path>` line for each file read, a
/// `reply <length>` line, then the reply's bytes.
fn entry_bytes(reads: &Reads, reply: &[u8]) -> Vec<u8> {
    let mut out = format!("{MAGIC}\n").into_bytes();
    for (path, d) in reads {
        let d = d.as_ref().map_or_else(|| "-".to_owned(), |d| hex(d));
        out.extend_from_slice(format!("dep {d} {path}\n").as_bytes());
    }
    out.extend_from_slice(format!("reply {}\n", reply.len()).as_bytes());
    out.extend_from_slice(reply);
    out
}

/// The dependencies and the reply of an entry; `None` for anything malformed (a
/// truncated or foreign file is a miss, never an error).
fn parse_entry(bytes: &[u8]) -> Option<(Reads, &[u8])> {
    let mut rest = bytes;
    let mut line = || -> Option<&str> {
        let end = rest.iter().position(|&b| b == b'\n')?;
        let l = std::str::from_utf8(&rest[..end]).ok();
        rest = &rest[end + 1..];
        l
    };
    if line()? != MAGIC {
        return None;
    }
    let mut reads = Reads::new();
    loop {
        let l = line()?;
        if let Some(len) = l.strip_prefix("reply ") {
            let len: usize = len.parse().ok()?;
            return (rest.len() == len).then_some((reads, rest));
        }
        let (d, path) = l.strip_prefix("dep ")?.split_once(' ')?;
        let d = if d == "-" { None } else { Some(unhex(d)?) };
        reads.insert(path.to_owned(), d);
    }
}

/// Removes the builds under `builds` other than `keep` and the newest others, so that
/// [`BUILDS_KEPT`] remain.
fn prune(builds: &Path, keep: &Path) {
    let Ok(entries) = std::fs::read_dir(builds) else {
        return;
    };
    let mut others: Vec<(std::time::SystemTime, PathBuf)> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p != keep && p.is_dir())
        .map(|p| {
            let t = p.metadata().and_then(|m| m.modified());
            (t.unwrap_or(std::time::UNIX_EPOCH), p)
        })
        .collect();
    others.sort();
    let remove = others.len().saturating_sub(BUILDS_KEPT - 1);
    for (_, p) in others.into_iter().take(remove) {
        let _ = std::fs::remove_dir_all(p);
    }
}

/// A name safe as one path component.
fn sanitize(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

fn hex(d: &Digest) -> String {
    d.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(s: &str) -> Option<Digest> {
    if s.len() != 64 {
        return None;
    }
    let mut d = [0u8; 32];
    for (i, b) in d.iter_mut().enumerate() {
        *b = u8::from_str_radix(s.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    Some(d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::registry::FileError;

    /// Files in memory, as a mod's folder.
    #[derive(Debug, Default)]
    struct Mem(Mutex<HashMap<String, Vec<u8>>>);

    impl ModFiles for Mem {
        fn read(&self, path: &str) -> Result<Vec<u8>, FileError> {
            let files = self.0.lock().unwrap();
            files.get(path).cloned().ok_or(FileError::Unreadable {
                path: path.into(),
                reason: "no such file".into(),
            })
        }
    }

    fn tmp(name: &str) -> PathBuf {
        let d =
            std::env::temp_dir().join(format!("tessera-load-cache-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn a_reply_is_found_while_its_dependencies_are_unchanged() {
        let root = tmp("fresh");
        let mem = Arc::new(Mem::default());
        mem.0
            .lock()
            .unwrap()
            .insert("inc/a.list".into(), b"one".to_vec());
        let files: Arc<dyn ModFiles> = mem.clone();
        let cache = LoadCache::open(&root, "m", Path::new("p.wasm"), digest(b"code"));
        let key = cache.key("m:loader/x", "cards/a.x", "text");
        assert_eq!(cache.get(&key, Some(&files)), None, "nothing stored yet");
        let reads = Reads::from([
            ("inc/a.list".to_owned(), Some(digest(b"one"))),
            ("inc/gone.list".to_owned(), None),
        ]);
        cache.put(&key, &reads, b"{\"tree\":{}}");
        assert_eq!(
            cache.get(&key, Some(&files)).as_deref(),
            Some(&b"{\"tree\":{}}"[..])
        );
        // A new load (a fresh cache over the same folder) after a dependency changed.
        mem.0
            .lock()
            .unwrap()
            .insert("inc/a.list".into(), b"two".to_vec());
        let again = LoadCache::open(&root, "m", Path::new("p.wasm"), digest(b"code"));
        assert_eq!(
            again.get(&key, Some(&files)),
            None,
            "a changed include misses"
        );
        // A file that could not be read, and now can, is a change too.
        mem.0
            .lock()
            .unwrap()
            .insert("inc/a.list".into(), b"one".to_vec());
        mem.0
            .lock()
            .unwrap()
            .insert("inc/gone.list".into(), b"new".to_vec());
        let third = LoadCache::open(&root, "m", Path::new("p.wasm"), digest(b"code"));
        assert_eq!(
            third.get(&key, Some(&files)),
            None,
            "a file that appeared misses"
        );
        let _ = std::fs::remove_dir_all(root);
    }

    #[test]
    fn keys_differ_by_plugin_build_loader_path_and_text() {
        let root = tmp("keys");
        let a = LoadCache::open(&root, "m", Path::new("p.wasm"), digest(b"build 1"));
        let b = LoadCache::open(&root, "m", Path::new("p.wasm"), digest(b"build 2"));
        let k = a.key("l", "p", "t");
        assert_ne!(k, b.key("l", "p", "t"));
        assert_ne!(k, a.key("l2", "p", "t"));
        assert_ne!(k, a.key("l", "p2", "t"));
        assert_ne!(k, a.key("l", "p", "t2"));
        // Parts are length-prefixed: moving a character between them is another key.
        assert_ne!(a.key("ab", "c", "t"), a.key("a", "bc", "t"));
        let _ = std::fs::remove_dir_all(root);
    }

    #[test]
    fn malformed_entries_are_misses() {
        let reply = b"{\"tree\":{}}";
        let good = entry_bytes(&Reads::new(), reply);
        assert_eq!(parse_entry(&good).map(|(_, r)| r), Some(&reply[..]));
        assert!(parse_entry(&good[..good.len() - 1]).is_none(), "truncated");
        assert!(parse_entry(b"another format\nreply 0\n").is_none());
        assert!(parse_entry(format!("{MAGIC}\ndep zz a\nreply 0\n").as_bytes()).is_none());
        assert!(parse_entry(b"").is_none());
    }

    #[test]
    fn only_the_newest_builds_of_a_plugin_are_kept() {
        let root = tmp("prune");
        for build in 0..4u8 {
            let c = LoadCache::open(&root, "m", Path::new("p.wasm"), digest(&[build]));
            c.put(&c.key("l", "p", "t"), &Reads::new(), b"r");
            // Modification times a second apart would slow the test; order is by name
            // then, which is fine: only the count is checked.
        }
        let builds = std::fs::read_dir(root.join("loads/m-p")).unwrap().count();
        assert_eq!(builds, BUILDS_KEPT);
        let _ = std::fs::remove_dir_all(root);
    }
}
