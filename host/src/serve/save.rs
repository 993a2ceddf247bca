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
    pub fn write(&self, dir: &Path) -> Result<PathBuf, String> {
        let path = Self::path(dir, self.match_id);
        let tmp = path.with_extension("json.tmp");
        let text = serde_json::to_string_pretty(self)
            .map_err(|e| format!("encoding the save of match {}: {e}", self.match_id))?;
        let write = || -> std::io::Result<()> {
            let mut f = std::fs::File::create(&tmp)?;
            f.write_all(text.as_bytes())?;
            f.write_all(b"\n")?;
            f.sync_all()?;
            std::fs::rename(&tmp, &path)?;
            std::fs::File::open(dir)?.sync_all()
        };
        write().map_err(|e| format!("failed to write save file {}: {e}", path.display()))?;
        Ok(path)
    }

    /// Reads a save; errors name the file and what is wrong with it.
    pub fn read(path: &Path) -> Result<SaveFile, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("failed to read save file {}: {e}", path.display()))?;
        let save: SaveFile = serde_json::from_str(&text).map_err(|e| {
            format!(
                "{}:{}:{}: not a Tessera save: {e}",
                path.display(),
                e.line(),
                e.column()
            )
        })?;
        if save.format != SAVE_FORMAT {
            return Err(format!(
                "{}: save format {} is not supported (this server reads format {SAVE_FORMAT})",
                path.display(),
                save.format
            ));
        }
        Ok(save)
    }

    /// Why this save cannot be restored under the mod set `current` (`Ok` if it can).
    pub fn check_mods(&self, current: &[RecordedMod]) -> Result<(), String> {
        if self.recording.reloads > 0 {
            return Err(format!(
                "match {} was played across {} hot reload(s); its inputs only replay under the mod files as they were at each reload",
                self.match_id, self.recording.reloads
            ));
        }
        let diff = self.recording.mod_differences(current);
        if diff.is_empty() {
            return Ok(());
        }
        Err(format!(
            "match {} was saved with another mod set, so it would not continue the same game:\n  {}\nhelp: start the server with the mods it was saved with, or move the save out of the saves folder",
            self.match_id,
            diff.join("\n  ")
        ))
    }
}

/// Every save file in `dir` (`match-*.json`), in name order.
pub fn list(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let rd = match std::fs::read_dir(dir) {
        Ok(rd) => rd,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => {
            return Err(format!(
                "failed to read the saves folder {}: {e}",
                dir.display()
            ))
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
