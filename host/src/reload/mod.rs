//! Hot reload: watching mod folders, staging a new generation off the game thread, and
//! handing it to the game between two commands.
//!
//! Owns the debounced file watcher (`notify`, feature `hot-reload`; a burst of writes —
//! an editor's save, a cargo build — becomes one batch; reads are ignored), staging (a full load of the mods on a worker
//! thread: parse, resolve, validate, compile plugins through the module cache), and the
//! decision to swap: only a staging with no errors goes live ([`Game::swap`]); otherwise
//! the current generation stays and the diagnostics are reported. It never touches the
//! world itself; the game applies a staged generation when it is between commands.

use std::path::PathBuf;
use std::time::{Duration, Instant};

#[cfg(feature = "hot-reload")]
mod hot;
mod rebuild;
#[cfg(feature = "hot-reload")]
mod watch;

#[cfg(feature = "hot-reload")]
pub use hot::HotReload;
#[cfg(feature = "hot-reload")]
pub use rebuild::PluginRebuilder;
pub use rebuild::{crate_of, is_plugin_crate};
#[cfg(feature = "hot-reload")]
pub use watch::ModWatcher;

use crate::game::{Game, SwapReport};
use crate::mods::LoadedMods;

/// The file watcher could not start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WatchError {
    /// The operating system's file watcher refused to start.
    #[error("could not start the file watcher: {0}")]
    Start(String),
    /// A folder could not be watched (missing, or no permission).
    #[error("could not watch {}: {message}", path.display())]
    Watch {
        /// The folder.
        path: PathBuf,
        /// Why.
        message: String,
    },
    /// The debounce thread could not be spawned.
    #[error("could not start the debounce thread: {0}")]
    Thread(#[source] std::io::Error),
}

/// A finished staging: the loaded mods, and whether they may go live.
#[derive(Debug)]
pub struct Staged {
    /// What the load produced (generation and diagnostics).
    pub loaded: LoadedMods,
    /// The changed files that started it.
    pub changed: Vec<PathBuf>,
    /// The staging's own cost: loading, validating and compiling the changed mods (not
    /// the wait for the game to poll for it).
    pub took: Duration,
    /// When the change was seen (after the debounce): [`HotReload::apply`] reports how
    /// long after it the new generation went live.
    pub seen: Instant,
    /// Why no match could start under it, once looked at (every world applying the same
    /// staging shares the answer).
    pub unplayable: std::sync::OnceLock<Option<String>>,
}

impl Staged {
    /// Whether it validated: a generation and no errors anywhere.
    pub fn is_good(&self) -> bool {
        self.loaded.generation.is_some() && !self.loaded.has_errors()
    }

    /// Whether it may replace a generation holding the mods `live`: no errors, except
    /// about mods disabled because a live mod's folder was deleted (directly or through
    /// their dependencies) — deleting a mod unloads it and its dependents cleanly, while
    /// any other error keeps the last good generation.
    pub fn may_replace(&self, live: &[String]) -> bool {
        if self.loaded.generation.is_none() {
            return false;
        }
        if self.is_good() {
            return true;
        }
        let found: std::collections::BTreeSet<&str> = self
            .loaded
            .discovery
            .mods
            .iter()
            .map(|m| m.manifest.id.as_str())
            .collect();
        let mut unloaded: std::collections::BTreeSet<&str> = live
            .iter()
            .map(String::as_str)
            .filter(|m| !found.contains(m))
            .collect();
        if unloaded.is_empty() {
            return false;
        }
        loop {
            let before = unloaded.len();
            for m in &self.loaded.discovery.mods {
                if m.manifest
                    .dependencies
                    .iter()
                    .any(|d| !d.optional && unloaded.contains(d.id.as_str()))
                {
                    unloaded.insert(m.manifest.id.as_str());
                }
            }
            if unloaded.len() == before {
                break;
            }
        }
        self.loaded
            .all_diagnostics()
            .filter(|d| d.is_error())
            .all(|d| d.mod_id.as_deref().is_some_and(|m| unloaded.contains(m)))
    }
}

/// Applies a staging to a game: swaps when it validated, keeps the current generation
/// otherwise. Returns the log line (`reloaded <mods> (generation N) in X ms, live Y ms
/// after the save`: X is the staging's own cost, Y includes waiting for the game to
/// reach a safe point, such as the end of a turn; or `reload failed: <reason> —
/// keeping generation N`) and the swap report.
pub fn apply(game: &mut Game, staged: &Staged) -> (String, Option<SwapReport>) {
    let current = game.generation().number;
    let Some(gen) = staged
        .loaded
        .generation
        .clone()
        .filter(|_| staged.is_good())
    else {
        let errors = staged
            .loaded
            .all_diagnostics()
            .filter(|d| d.is_error())
            .count();
        return (format!("reload failed: {errors} error(s) in the changed mods — keeping generation {current}"), None);
    };
    let number = gen.number;
    let mods = changed_mods(staged);
    match game.swap(gen) {
        Ok(report) => (
            format!(
                "reloaded {} (generation {number}) in {} ms, live {} ms after the save",
                mods,
                staged.took.as_millis(),
                staged.seen.elapsed().as_millis()
            ),
            Some(report),
        ),
        Err(e) => (
            format!("reload failed: {e} — keeping generation {current}"),
            None,
        ),
    }
}

/// The mod folders the changed files belong to, for the log line.
fn changed_mods(staged: &Staged) -> String {
    let mut ids: Vec<&str> = staged
        .loaded
        .resolution
        .order
        .iter()
        .filter(|m| {
            // Mod folders may be relative to the working folder; the watcher's paths are
            // absolute.
            let dir = std::fs::canonicalize(&m.dir).unwrap_or_else(|_| m.dir.clone());
            staged.changed.iter().any(|p| {
                p.starts_with(&m.dir)
                    || p.starts_with(&dir)
                    || std::fs::canonicalize(p).is_ok_and(|c| c.starts_with(&dir))
            })
        })
        .map(|m| m.id.as_str())
        .collect();
    ids.dedup();
    if ids.is_empty() {
        "mods".to_owned()
    } else {
        ids.join(", ")
    }
}
