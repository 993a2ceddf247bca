//! Loader replies kept on disk, so a mod whose plugin translates thousands of files loads
//! them again without running the plugin: a reply is stored under a key of (the plugin
//! module's digest, the loader id, the file's path and text), with the digests of the
//! other files the loader instance had read (`load_read`: includes, shared fragments), and
//! is used again only while each of those still has the same digest. Errors are never
//! stored: a file that fails is translated again, and reported, every time.
//!
//! Owns the pack format, lookups (checking dependencies, each file hashed once per load),
//! writes and the cleanup of older builds. One pack file per plugin build,
//! `<cache dir>/loads/<mod>-<plugin>/<module digest>.pack`: a magic line, then records
//! appended as loads translate files (one `write` each, to a file opened for appending:
//! concurrent loads add whole records; thousands of small files cost the file system far
//! more). A pack is read whole when the plugin's first file loads; a record that does not
//! parse ends the reading (what follows is translated again). The newest
//! [`BUILDS_KEPT`] builds of a plugin keep their packs; a pack mostly of superseded records
//! is rewritten with the newest record of each key.

use std::collections::{BTreeMap, HashMap};
use std::io::{Read, Seek, SeekFrom, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use sha2::{Digest as _, Sha256};

use crate::rules::registry::ModFiles;

/// A SHA-256 digest.
pub(crate) type Digest = [u8; 32];

/// The files a loader instance read besides the file it was loading, with the digest of
/// what each held (`None`: it could not be read).
pub(crate) type Reads = BTreeMap<String, Option<Digest>>;

/// The first line of every pack (a changed format is a new first line: old packs miss).
const MAGIC: &[u8] = b"tessera load cache 2\n";

/// How many builds of one plugin keep their packs.
const BUILDS_KEPT: usize = 2;

/// The digest of `bytes`.
pub(crate) fn digest(bytes: &[u8]) -> Digest {
    Sha256::digest(bytes).into()
}

/// One plugin build's stored replies.
#[derive(Debug)]
pub(crate) struct LoadCache {
    pack: PathBuf,
    code: Digest,
    /// Where each key's newest record is in the pack as it was at open, and that pack
    /// open for reading (replies are read when asked for, not held in memory).
    index: HashMap<Digest, Record>,
    kept: Mutex<Option<std::fs::File>>,
    /// The pack opened for appending, at the first write (`None` inside when it cannot be).
    append: Mutex<Option<Option<std::fs::File>>>,
    /// Each dependency's digest now, read once per load (files do not change while mods
    /// load; a reload builds a new cache, and reads them again).
    now: Mutex<HashMap<String, Option<Digest>>>,
}

/// Where one record's parts are in the pack.
#[derive(Debug)]
struct Record {
    reads: Reads,
    reply: Range<usize>,
}

impl LoadCache {
    /// The cache of the plugin `file` of `mod_id` whose module has digest `code`, under
    /// `root`. Packs of older builds of the same plugin beyond the newest
    /// [`BUILDS_KEPT`] are removed.
    pub(crate) fn open(root: &Path, mod_id: &str, file: &Path, code: Digest) -> LoadCache {
        let plugin = format!(
            "{}-{}",
            sanitize(mod_id),
            sanitize(&file.file_stem().unwrap_or_default().to_string_lossy())
        );
        let builds = root.join("loads").join(plugin);
        let pack = builds.join(format!("{}.pack", hex(&code)));
        let mut bytes = std::fs::read(&pack).unwrap_or_default();
        if bytes.is_empty() && std::fs::create_dir_all(&builds).is_ok() {
            prune(&builds, &pack);
        }
        let (mut index, records) = read_pack(&bytes);
        if records > 2 * index.len() + 64 {
            bytes = compact(&pack, &index, &bytes);
            index = read_pack(&bytes).0;
        }
        LoadCache {
            kept: Mutex::new(std::fs::File::open(&pack).ok()),
            pack,
            code,
            index,
            append: Mutex::new(None),
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
        let record = self.index.get(key)?;
        let fresh = record
            .reads
            .iter()
            .all(|(path, was)| self.digest_now(path, files) == *was);
        if !fresh {
            return None;
        }
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        let f = kept.as_mut()?;
        let mut reply = vec![0; record.reply.len()];
        f.seek(SeekFrom::Start(record.reply.start as u64)).ok()?;
        f.read_exact(&mut reply).ok()?;
        Some(reply)
    }

    /// Appends `reply` for `key`, depending on `reads`. Failing to write only loses the
    /// record (the cache is an optimisation: a read-only disk must not fail a load).
    pub(crate) fn put(&self, key: &Digest, reads: &Reads, reply: &[u8]) {
        let mut append = self.append.lock().unwrap_or_else(|e| e.into_inner());
        let file = append.get_or_insert_with(|| self.open_for_append());
        if let Some(f) = file {
            if f.write_all(&record_bytes(key, reads, reply)).is_err() {
                *file = None;
            }
        }
    }

    /// The pack opened for appending; a new pack starts with its magic line.
    fn open_for_append(&self) -> Option<std::fs::File> {
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.pack)
            .ok()?;
        if f.metadata().ok()?.len() == 0 {
            f.write_all(MAGIC).ok()?;
        }
        Some(f)
    }

    fn digest_now(&self, path: &str, files: Option<&Arc<dyn ModFiles>>) -> Option<Digest> {
        let mut now = self.now.lock().unwrap_or_else(|e| e.into_inner());
        *now.entry(path.to_owned())
            .or_insert_with(|| files.and_then(|f| f.read(path).ok()).map(|b| digest(&b)))
    }
}

/// Rewrites the pack with the newest record of each key (a temporary file renamed over
/// it: a load reading it meanwhile keeps the old one open); the new pack's bytes.
fn compact(pack: &Path, index: &HashMap<Digest, Record>, bytes: &[u8]) -> Vec<u8> {
    let mut out = MAGIC.to_vec();
    for (key, r) in index {
        out.extend_from_slice(&record_bytes(key, &r.reads, &bytes[r.reply.clone()]));
    }
    let tmp = pack.with_extension(format!("tmp{}", std::process::id()));
    if std::fs::write(&tmp, &out).is_err() || std::fs::rename(&tmp, pack).is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    out
}

/// A record: `rec <key> <length of the rest>`, a `dep <digest or -> <path>` line for each
/// file read, a `reply <length>` line, then the reply's bytes.
fn record_bytes(key: &Digest, reads: &Reads, reply: &[u8]) -> Vec<u8> {
    let mut body = Vec::new();
    for (path, d) in reads {
        let d = d.as_ref().map_or_else(|| "-".to_owned(), hex);
        body.extend_from_slice(format!("dep {d} {path}\n").as_bytes());
    }
    body.extend_from_slice(format!("reply {}\n", reply.len()).as_bytes());
    body.extend_from_slice(reply);
    let mut out = format!("rec {} {}\n", hex(key), body.len()).into_bytes();
    out.extend_from_slice(&body);
    out
}

/// The newest record of each key in a pack, and how many records it holds. Reading stops
/// at the first record that does not parse (a pack of another format reads as empty).
fn read_pack(pack: &[u8]) -> (HashMap<Digest, Record>, usize) {
    let mut index = HashMap::new();
    let mut records = 0;
    let Some(mut at) = pack.starts_with(MAGIC).then_some(MAGIC.len()) else {
        return (index, 0);
    };
    while let Some((key, record, next)) = read_record(pack, at) {
        index.insert(key, record);
        records += 1;
        at = next;
    }
    (index, records)
}

/// The record at `at`, and where the next begins.
fn read_record(pack: &[u8], at: usize) -> Option<(Digest, Record, usize)> {
    let mut cursor = at;
    let (key, len) = line(pack, &mut cursor)?
        .strip_prefix("rec ")?
        .split_once(' ')?;
    let (key, len): (Digest, usize) = (unhex(key)?, len.parse().ok()?);
    let end = cursor.checked_add(len).filter(|&e| e <= pack.len())?;
    let mut reads = Reads::new();
    loop {
        let l = line(pack, &mut cursor)?;
        if let Some(n) = l.strip_prefix("reply ") {
            let n: usize = n.parse().ok()?;
            let reply = cursor..cursor.checked_add(n)?;
            return (reply.end == end).then_some((key, Record { reads, reply }, end));
        }
        let (d, path) = l.strip_prefix("dep ")?.split_once(' ')?;
        let d = if d == "-" { None } else { Some(unhex(d)?) };
        reads.insert(path.to_owned(), d);
    }
}

/// The UTF-8 line at `cursor` (without its newline), moving the cursor past it.
fn line<'p>(pack: &'p [u8], cursor: &mut usize) -> Option<&'p str> {
    let rest = pack.get(*cursor..)?;
    let end = rest.iter().position(|&b| b == b'\n')?;
    *cursor += end + 1;
    std::str::from_utf8(&rest[..end]).ok()
}

/// Removes the packs under `builds` other than `keep` and the newest others, so that
/// [`BUILDS_KEPT`] remain.
fn prune(builds: &Path, keep: &Path) {
    let Ok(entries) = std::fs::read_dir(builds) else {
        return;
    };
    let mut others: Vec<(std::time::SystemTime, PathBuf)> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p != keep && p.extension().is_some_and(|e| e == "pack"))
        .map(|p| {
            let t = p.metadata().and_then(|m| m.modified());
            (t.unwrap_or(std::time::UNIX_EPOCH), p)
        })
        .collect();
    others.sort();
    let remove = others.len().saturating_sub(BUILDS_KEPT - 1);
    for (_, p) in others.into_iter().take(remove) {
        let _ = std::fs::remove_file(p);
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

    fn open(root: &Path, build: &[u8]) -> LoadCache {
        LoadCache::open(root, "m", Path::new("p.wasm"), digest(build))
    }

    fn set(mem: &Mem, path: &str, text: &[u8]) {
        mem.0.lock().unwrap().insert(path.into(), text.to_vec());
    }

    #[test]
    fn a_reply_is_found_while_its_dependencies_are_unchanged() {
        let root = tmp("fresh");
        let mem = Arc::new(Mem::default());
        set(&mem, "inc/a.list", b"one");
        let files: Arc<dyn ModFiles> = mem.clone();
        let cache = open(&root, b"code");
        let key = cache.key("m:loader/x", "cards/a.x", "text");
        assert_eq!(cache.get(&key, Some(&files)), None, "nothing stored yet");
        let reads = Reads::from([
            ("inc/a.list".to_owned(), Some(digest(b"one"))),
            ("inc/gone.list".to_owned(), None),
        ]);
        cache.put(&key, &reads, b"{\"tree\":{}}");
        let next_load = open(&root, b"code");
        let found = next_load.get(&key, Some(&files));
        assert_eq!(found.as_deref(), Some(&b"{\"tree\":{}}"[..]));
        // The next load after a dependency changed.
        set(&mem, "inc/a.list", b"two");
        let again = open(&root, b"code");
        assert_eq!(
            again.get(&key, Some(&files)),
            None,
            "a changed include misses"
        );
        // A file that could not be read, and now can, is a change too.
        set(&mem, "inc/a.list", b"one");
        set(&mem, "inc/gone.list", b"new");
        let third = open(&root, b"code");
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
        let (a, b) = (open(&root, b"build 1"), open(&root, b"build 2"));
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
    fn the_newest_record_of_a_key_wins_and_a_bad_record_ends_the_pack() {
        let (k1, k2, k3) = (digest(b"1"), digest(b"2"), digest(b"3"));
        let reads = Reads::from([("x".to_owned(), Some(digest(b"x")))]);
        let mut pack = MAGIC.to_vec();
        pack.extend(record_bytes(&k1, &reads, b"old"));
        pack.extend(record_bytes(&k2, &Reads::new(), b"two"));
        pack.extend(record_bytes(&k1, &reads, b"new"));
        let whole = pack.len();
        pack.extend(record_bytes(&k3, &Reads::new(), b"three"));
        let (index, records) = read_pack(&pack[..pack.len() - 1]);
        assert_eq!(records, 3, "the truncated last record is not read");
        assert_eq!(&pack[index[&k1].reply.clone()], b"new");
        assert_eq!(index[&k1].reads, reads);
        assert_eq!(&pack[index[&k2].reply.clone()], b"two");
        assert!(!index.contains_key(&k3));
        assert_eq!(read_pack(&pack[..whole]).1, 3);
        assert_eq!(read_pack(b"tessera load cache 1\n").1, 0, "another format");
        assert_eq!(read_pack(b"").1, 0);
    }

    #[test]
    fn a_pack_mostly_of_superseded_records_is_rewritten() {
        let root = tmp("compact");
        let files: Arc<dyn ModFiles> = Arc::new(Mem::default());
        let writer = open(&root, b"code");
        let key = writer.key("l", "p", "t");
        for n in 0..200 {
            writer.put(&key, &Reads::new(), format!("reply {n}").as_bytes());
        }
        drop(writer);
        let pack = root
            .join("loads/m-p")
            .join(format!("{}.pack", hex(&digest(b"code"))));
        let before = std::fs::metadata(&pack).unwrap().len();
        let cache = open(&root, b"code");
        assert!(std::fs::metadata(&pack).unwrap().len() < before / 50);
        assert_eq!(
            cache.get(&key, Some(&files)).as_deref(),
            Some(&b"reply 199"[..])
        );
        let _ = std::fs::remove_dir_all(root);
    }

    #[test]
    fn only_the_newest_builds_of_a_plugin_are_kept() {
        let root = tmp("prune");
        for build in 0..4u8 {
            let c = open(&root, &[build]);
            c.put(&c.key("l", "p", "t"), &Reads::new(), b"r");
        }
        let builds = std::fs::read_dir(root.join("loads/m-p")).unwrap().count();
        assert_eq!(builds, BUILDS_KEPT);
        let _ = std::fs::remove_dir_all(root);
    }
}
