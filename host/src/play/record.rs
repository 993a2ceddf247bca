//! Recordings: a game's seed, mod set and inputs, enough to play it again exactly
//! (`tessera replay FILE`), and the final checksum to prove it did.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::mods::{LoadedMods, Lockfile};

/// A recording could not be read.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum RecordingError {
    /// The file could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: Arc<std::io::Error>,
    },
    /// The file is not a recording's JSON.
    #[error("{}:{line}:{column}: not a Tessera recording: {message}", path.display())]
    Json {
        /// The file.
        path: PathBuf,
        /// 1-based line of the problem.
        line: usize,
        /// 1-based column of the problem.
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// The recording's format is one this host does not read.
    #[error("{}: recording format {found} is not supported (this tessera reads format 1)", path.display())]
    Format {
        /// The file.
        path: PathBuf,
        /// The format it declares.
        found: u32,
    },
    /// The loaded mods' files could not be read to hash them (for the mod set a
    /// recording or a save lists).
    #[error("hashing the mods: {0}")]
    Hash(Arc<std::io::Error>),
}

/// One input of a game: which legal move was played, or how a choice was answered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Input {
    /// The index of the move among the legal moves, in their listed order.
    Move(usize),
    /// The option indices chosen.
    Choice(Vec<usize>),
}

/// One mod of the recorded set.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordedMod {
    /// Its id.
    pub id: String,
    /// Its version.
    pub version: String,
    /// The sha256 of its folder (as in `mods.lock`).
    pub hash: String,
}

/// A recorded game.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Recording {
    /// File format version (1).
    pub format: u32,
    /// The world's seed.
    pub seed: u64,
    /// The agents, by seat (informational: replay uses the inputs).
    pub agents: Vec<String>,
    /// The mods the game was played with, in load order.
    pub mods: Vec<RecordedMod>,
    /// Every move and choice, in order.
    pub inputs: Vec<Input>,
    /// The final world checksum (hex).
    pub checksum: String,
    /// How it ended (`player 2 won`, `draw`).
    pub result: String,
    /// Generations the game switched to by hot reload (a game played across edits
    /// cannot be replayed from the files as they are now).
    #[serde(default)]
    pub reloads: u32,
}

impl Recording {
    /// Writes the recording as JSON, atomically (temporary file, then rename).
    pub fn write(&self, path: &Path) -> std::io::Result<()> {
        let text = serde_json::to_string_pretty(self).map_err(std::io::Error::other)?;
        let tmp = path.with_extension("tmp");
        std::fs::write(&tmp, text + "\n")?;
        std::fs::rename(&tmp, path)
    }

    /// Reads a recording; errors name the file and what is wrong.
    pub fn read(path: &Path) -> Result<Recording, RecordingError> {
        let text = std::fs::read_to_string(path).map_err(|source| RecordingError::Read {
            path: path.to_owned(),
            source: Arc::new(source),
        })?;
        Recording::parse(&text, path)
    }

    /// Parses a recording's JSON text read from `path` (named in errors).
    pub fn parse(text: &str, path: &Path) -> Result<Recording, RecordingError> {
        let r: Recording = serde_json::from_str(text).map_err(|e| RecordingError::Json {
            path: path.to_owned(),
            line: e.line(),
            column: e.column(),
            message: e.to_string(),
        })?;
        if r.format != 1 {
            return Err(RecordingError::Format {
                path: path.to_owned(),
                found: r.format,
            });
        }
        Ok(r)
    }

    /// Differences between the recorded mod set and `current`, one line each.
    pub fn mod_differences(&self, current: &[RecordedMod]) -> Vec<String> {
        let mut out = Vec::new();
        for m in &self.mods {
            match current.iter().find(|c| c.id == m.id) {
                None => out.push(format!(
                    "mod `{}` {} ({}) is not loaded now",
                    m.id, m.version, m.hash
                )),
                Some(c) if c.version != m.version => out.push(format!(
                    "mod `{}` was {} and is {} now (recorded {}, loaded {})",
                    m.id, m.version, c.version, m.hash, c.hash
                )),
                Some(c) if c.hash != m.hash => out.push(format!(
                    "mod `{}` {} has changed on disk since the recording (recorded {}, loaded {})",
                    m.id, m.version, m.hash, c.hash
                )),
                Some(_) => {}
            }
        }
        for c in current {
            if !self.mods.iter().any(|m| m.id == c.id) {
                out.push(format!(
                    "mod `{}` {} ({}) is loaded now but was not then",
                    c.id, c.version, c.hash
                ));
            }
        }
        out
    }
}

/// The mod set of loaded mods as a recording or a save lists it, in load order (ids,
/// versions, content hashes as in `mods.lock`).
pub fn mod_set(loaded: &LoadedMods) -> Result<Vec<RecordedMod>, RecordingError> {
    let lock = Lockfile::from_resolution(&loaded.resolution)
        .map_err(|e| RecordingError::Hash(Arc::new(e)))?;
    Ok(loaded
        .resolution
        .order
        .iter()
        .filter(|m| loaded.loaded.contains(&m.id))
        .map(|m| RecordedMod {
            id: m.id.clone(),
            version: m.version.to_string(),
            hash: lock.get(&m.id).map(|l| l.hash.clone()).unwrap_or_default(),
        })
        .collect())
}
