//! The hot-reload loop (feature `hot-reload`): watches mod folders, stages a reload on
//! a worker thread when files change, and hands finished stagings to the caller.

use std::path::PathBuf;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::{ModWatcher, Staged, WatchError};
use crate::game::{Game, SwapReport};
use crate::mods::{load_generation, LoadedMods, ServerConfig};
use crate::rules::registry::Registry;

/// A staging under way: its thread (the loaded mods and the load's own cost), the files
/// whose changes started it, and when the first of them was seen.
type Staging = (JoinHandle<(LoadedMods, Duration)>, Vec<PathBuf>, Instant);

/// Watches mods, stages reloads off the game thread, and hands them over.
pub struct HotReload {
    watcher: ModWatcher,
    dirs: Vec<PathBuf>,
    server: Option<ServerConfig>,
    registry: Arc<Registry>,
    next_number: u64,
    staging: Option<Staging>,
    pending: Vec<PathBuf>,
    /// When the oldest pending change was seen.
    pending_since: Option<Instant>,
    /// How many stagings were started.
    pub attempts: u64,
}

impl std::fmt::Debug for HotReload {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "HotReload {{ dirs: {:?}, attempts: {} }}",
            self.dirs, self.attempts
        )
    }
}

impl HotReload {
    /// Starts watching `dirs`; generations it stages are numbered from `next_number`. A
    /// staging that fails does not use a number up: the next good one gets it.
    pub fn new(
        dirs: Vec<PathBuf>,
        server: Option<ServerConfig>,
        registry: Arc<Registry>,
        debounce: Duration,
        next_number: u64,
    ) -> Result<HotReload, WatchError> {
        Ok(HotReload {
            watcher: ModWatcher::new(&dirs, debounce)?,
            dirs,
            server,
            registry,
            next_number,
            staging: None,
            pending: Vec::new(),
            pending_since: None,
            attempts: 0,
        })
    }

    /// Call between commands, as often as convenient: starts a staging when files
    /// changed, and returns a staging that finished. Never blocks on the staging.
    pub fn poll(&mut self) -> Option<Staged> {
        self.step(Duration::ZERO)
    }

    /// Like [`HotReload::poll`], waiting up to `timeout` for something to happen.
    pub fn wait(&mut self, timeout: Duration) -> Option<Staged> {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let slice = left.min(Duration::from_millis(20));
            if let Some(s) = self.step(slice) {
                return Some(s);
            }
            if left.is_zero() {
                return None;
            }
        }
    }

    fn step(&mut self, wait: Duration) -> Option<Staged> {
        let (seen, changed) = self.watcher.timed_changes(if self.staging.is_some() {
            Duration::ZERO
        } else {
            wait
        });
        self.pending.extend(changed);
        self.pending_since = self.pending_since.or(seen);
        if let Some((handle, _, _)) = &self.staging {
            if !handle.is_finished() {
                if !wait.is_zero() {
                    std::thread::sleep(wait.min(Duration::from_millis(5)));
                }
                return None;
            }
            let (handle, changed, seen) = self.staging.take()?;
            let Ok((loaded, took)) = handle.join() else {
                tracing::error!("the staging thread panicked; keeping the current generation");
                return None;
            };
            let staged = Staged {
                loaded,
                changed,
                took,
                seen,
                unplayable: std::sync::OnceLock::new(),
            };
            if staged.is_good() {
                self.next_number += 1;
            }
            return Some(staged);
        }
        if self.pending.is_empty() {
            return None;
        }
        let changed = std::mem::take(&mut self.pending);
        let (dirs, server, registry, number) = (
            self.dirs.clone(),
            self.server.clone(),
            self.registry.clone(),
            self.next_number,
        );
        self.attempts += 1;
        let seen = self.pending_since.take().unwrap_or_else(Instant::now);
        let handle = std::thread::Builder::new()
            .name("tessera-stage".into())
            .spawn(move || {
                let started = Instant::now();
                let loaded = load_generation(&dirs, server.as_ref(), registry, number);
                (loaded, started.elapsed())
            });
        match handle {
            Ok(h) => self.staging = Some((h, changed, seen)),
            Err(e) => tracing::error!(error = %e, "could not start a staging thread"),
        }
        None
    }

    /// Applies a staging to a game (see [`apply`]).
    pub fn apply(game: &mut Game, staged: &Staged) -> (String, Option<SwapReport>) {
        super::apply(game, staged)
    }
}
