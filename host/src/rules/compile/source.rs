//! A mod's content file as the compiler reads it ([`ContentSource`]): its text, the mod
//! and loader it belongs to, and what its first parse leaves behind for every later build
//! (the tree, the loader's warnings, the span of every path, line starts).

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use serde_json::Value as Json;

use crate::diag::{Location, SourceText};
use crate::id::Id;
use crate::rules::params::PathSeg;
use crate::rules::registry::Registry;

/// One content file's text and the mod it belongs to.
#[derive(Debug, Clone)]
pub struct ContentSource {
    /// The mod id (namespace of the file's definitions).
    pub mod_id: String,
    /// The file.
    pub source: SourceText,
    /// Top-level keys that are not content and are skipped (scenario files keep their
    /// `scenario`, `object` and `step` tables beside content). Usually empty.
    pub ignore_keys: Vec<String>,
    /// The loader that reads it, when the mod names one for this file (`[content]
    /// loaders`); otherwise the loader for its extension.
    pub loader: Option<Id>,
    /// The file's path relative to its mod's folder (`/`-separated), for loaders;
    /// empty for content built in memory.
    pub path: String,
    /// The mod's files, for loaders of formats that include other files.
    pub files: Option<Arc<dyn crate::rules::registry::ModFiles>>,
    /// Spans of every path in the file (keyed by path hash), filled when it is parsed.
    pub(super) spans: Arc<OnceLock<HashMap<u64, std::ops::Range<usize>>>>,
    /// The parsed tree, kept after the first successful parse: a source compiled again (each
    /// scenario of a run compiles the mods' shared sources with its own) is not parsed
    /// again — for a plugin loader, not translated again.
    pub(super) tree: Arc<OnceLock<Json>>,
    /// The loader's warnings from that parse (reported by every build using the source).
    pub(super) warnings: Arc<OnceLock<Vec<crate::rules::registry::LoadWarning>>>,
    /// Byte offset of each line start, computed once on first use.
    pub(super) lines: Arc<OnceLock<Vec<usize>>>,
}

impl ContentSource {
    /// A content file of a mod.
    pub fn new(mod_id: impl Into<String>, source: SourceText) -> ContentSource {
        ContentSource {
            mod_id: mod_id.into(),
            source,
            ignore_keys: Vec::new(),
            loader: None,
            path: String::new(),
            files: None,
            spans: Arc::default(),
            tree: Arc::default(),
            warnings: Arc::default(),
            lines: Arc::default(),
        }
    }

    /// Whether the source's tree is parsed and kept.
    pub(super) fn is_parsed(&self) -> bool {
        self.tree.get().is_some()
    }

    /// The 1-based line of a byte offset (binary search over line starts).
    pub fn line_of(&self, offset: usize) -> usize {
        let lines = self.lines.get_or_init(|| {
            std::iter::once(0)
                .chain(self.source.text.match_indices('\n').map(|(i, _)| i + 1))
                .collect()
        });
        lines.partition_point(|&start| start <= offset)
    }

    /// Skips top-level keys that are not content.
    pub fn ignoring(mut self, keys: &[&str]) -> ContentSource {
        self.ignore_keys = keys.iter().map(|k| (*k).to_owned()).collect();
        self
    }

    /// The byte span of a path in the file (or of its closest located ancestor); known
    /// once the file has been parsed by a build.
    pub fn locate(&self, registry: &Registry, path: &[PathSeg]) -> Option<std::ops::Range<usize>> {
        let _ = registry;
        let spans = self.spans.get()?;
        (0..=path.len())
            .rev()
            .find_map(|n| spans.get(&path_hash(&path[..n])).cloned())
    }

    /// A diagnostic location for a path.
    pub fn location(&self, registry: &Registry, path: &[PathSeg]) -> Location {
        match self.locate(registry, path) {
            Some(s) => Location::span(&self.source, s),
            None => Location::file(&self.source.path),
        }
    }
}

/// A stable 64-bit hash of a path (FNV-1a over its segments).
pub(super) fn path_hash(path: &[PathSeg]) -> u64 {
    let mut h = crate::state::Fnv::new();
    for seg in path {
        match seg {
            PathSeg::Key(k) => {
                h.byte(b'k');
                h.str(k);
            }
            PathSeg::Index(i) => {
                h.byte(b'i');
                h.bytes(&(*i as u64).to_le_bytes());
            }
        }
    }
    h.finish()
}
