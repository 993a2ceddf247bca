//! Saves: one JSON file per running world, written atomically (temporary file, fsync,
//! rename, fsync of the folder), naming the mod set it was played with. A world is saved
//! as its seed and inputs (a [`Recording`]) plus its seats; restoring repeats the inputs
//! under the same rules and checks the checksum, so a restored world is exactly the world
//! that was saved.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

pub use crate::play::record::mod_set;
use crate::play::{RecordedMod, Recording};

use super::protocol::SeatKind;
use super::world::HostedWorld;

/// A save could not be written, read, or restored.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SaveError {
    /// The save could not be encoded as JSON.
    #[error("encoding the save of match {match_id}: {source}")]
    Encode {
        /// The match.
        match_id: u64,
        /// Why.
        source: serde_json::Error,
    },
    /// The save file could not be written.
    #[error("failed to write save file {}: {source}", path.display())]
    Write {
        /// The save file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The save file could not be read.
    #[error("failed to read save file {}: {source}", path.display())]
    Read {
        /// The save file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The saves folder could not be listed.
    #[error("failed to read the saves folder {}: {source}", path.display())]
    ReadDir {
        /// The folder.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not a save's JSON.
    #[error("{}:{line}:{column}: not a Tessera save: {message}", path.display())]
    Json {
        /// The save file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// The save's format is one this server does not read.
    #[error("{}: save format {found} is not supported (this server reads format {SAVE_FORMAT})", path.display())]
    Format {
        /// The save file.
        path: PathBuf,
        /// The format it declares.
        found: u32,
    },
    /// The match was played across hot reloads, so its inputs do not replay.
    #[error("match {match_id} was played across {reloads} hot reload(s); its inputs only replay under the mod files as they were at each reload")]
    Reloaded {
        /// The match.
        match_id: u64,
        /// How many reloads.
        reloads: u32,
    },
    /// The match was saved with another mod set.
    #[error("match {match_id} was saved with another mod set, so it would not continue the same game:\n  {}\nhelp: start the server with the mods it was saved with, or move the save out of the saves folder", differences.join("\n  "))]
    ModSet {
        /// The match.
        match_id: u64,
        /// One line per difference.
        differences: Vec<String>,
    },
}

/// The save format this server writes and reads.
pub const SAVE_FORMAT: u32 = 1;

/// One saved world (only running worlds are saved: an ended one has nothing to continue).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SaveFile {
    /// [`SAVE_FORMAT`].
    pub format: u32,
    /// The match id (clients rejoin it by id).
    #[serde(rename = "match")]
    pub match_id: u64,
    /// Who plays each seat.
    pub seats: Vec<SeatKind>,
    /// Each human seat's token (empty for server seats).
    pub tokens: Vec<String>,
    /// Seed, mod set (ids, versions, content hashes), inputs and checksum.
    pub recording: Recording,
}

impl SaveFile {
    /// The save of a world played with the mod set `mods`.
    pub(crate) fn of(w: &HostedWorld, mods: Vec<RecordedMod>) -> SaveFile {
        SaveFile {
            format: SAVE_FORMAT,
            match_id: w.id,
            seats: w.kinds.clone(),
            tokens: w.tokens.clone(),
            recording: w
                .m
                .recording(mods, &w.result().unwrap_or_else(|| "running".into())),
        }
    }

    /// Where the save of match `id` goes in `dir`.
    pub fn path(dir: &Path, id: u64) -> PathBuf {
        dir.join(format!("match-{id}.json"))
    }

    /// Writes the save atomically: a temporary file, fsync, rename over the save, fsync of
    /// the folder. A crash at any point leaves either the old save or the new one.
    pub fn write(&self, dir: &Path) -> Result<PathBuf, SaveError> {
        let path = Self::path(dir, self.match_id);
        let tmp = path.with_extension("json.tmp");
        let text = serde_json::to_string_pretty(self).map_err(|source| SaveError::Encode {
            match_id: self.match_id,
            source,
        })?;
        let write = || -> std::io::Result<()> {
            let mut f = std::fs::File::create(&tmp)?;
            f.write_all(text.as_bytes())?;
            f.write_all(b"\n")?;
            f.sync_all()?;
            std::fs::rename(&tmp, &path)?;
            std::fs::File::open(dir)?.sync_all()
        };
        write().map_err(|source| SaveError::Write {
            path: path.clone(),
            source,
        })?;
        Ok(path)
    }

    /// Reads a save; errors name the file and what is wrong with it.
    pub fn read(path: &Path) -> Result<SaveFile, SaveError> {
        let text = std::fs::read_to_string(path).map_err(|source| SaveError::Read {
            path: path.to_owned(),
            source,
        })?;
        let save: SaveFile = serde_json::from_str(&text).map_err(|e| SaveError::Json {
            path: path.to_owned(),
            line: e.line(),
            column: e.column(),
            message: e.to_string(),
        })?;
        if save.format != SAVE_FORMAT {
            return Err(SaveError::Format {
                path: path.to_owned(),
                found: save.format,
            });
        }
        Ok(save)
    }

    /// Why this save cannot be restored under the mod set `current` (`Ok` if it can).
    pub fn check_mods(&self, current: &[RecordedMod]) -> Result<(), SaveError> {
        if self.recording.reloads > 0 {
            return Err(SaveError::Reloaded {
                match_id: self.match_id,
                reloads: self.recording.reloads,
            });
        }
        let differences = self.recording.mod_differences(current);
        if differences.is_empty() {
            return Ok(());
        }
        Err(SaveError::ModSet {
            match_id: self.match_id,
            differences,
        })
    }
}

/// Every save file in `dir` (`match-*.json`), in name order.
pub fn list(dir: &Path) -> Result<Vec<PathBuf>, SaveError> {
    let rd = match std::fs::read_dir(dir) {
        Ok(rd) => rd,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => {
            return Err(SaveError::ReadDir {
                path: dir.to_owned(),
                source,
            })
        }
    };
    let mut out: Vec<PathBuf> = rd
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
            name.starts_with("match-") && name.ends_with(".json")
        })
        .collect();
    out.sort();
    Ok(out)
}
