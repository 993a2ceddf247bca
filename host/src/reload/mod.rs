//! Hot reload: watching mod folders, staging a new generation off the game thread, and
//! handing it to the game between two commands.
//!
//! Owns the debounced file watcher (`notify`; a burst of writes — an editor's save, a
//! cargo build — becomes one batch; reads are ignored), staging (a full load of the mods on a worker
//! thread: parse, resolve, validate, compile plugins through the module cache), and the
//! decision to swap: only a staging with no errors goes live ([`Game::swap`]); otherwise
//! the current generation stays and the diagnostics are reported. It never touches the
//! world itself; the game applies a staged generation when it is between commands.

use std::path::PathBuf;
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use notify::{EventKind, RecommendedWatcher, RecursiveMode, Watcher};

mod rebuild;

pub use rebuild::{crate_of, is_plugin_crate, PluginRebuilder};

use crate::game::{Game, SwapReport};
use crate::mods::{load_generation, LoadedMods, ServerConfig};
use crate::rules::registry::Registry;

/// Watches folders; changes arrive debounced: a burst of writes (an editor's save, a cargo
/// build) is one batch, delivered once the folders have been quiet for the debounce time.
/// Reads are not changes (notify also reports file opens; staging reads every file).
pub struct ModWatcher {
    _watcher: RecommendedWatcher,
    /// Each batch with when it was complete (the folders went quiet).
    batches: Receiver<(Instant, Vec<PathBuf>)>,
}

impl std::fmt::Debug for ModWatcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ModWatcher")
    }
}

impl ModWatcher {
    /// Watches every folder (recursively); events closer together than `debounce` are
    /// one batch.
    pub fn new(dirs: &[PathBuf], debounce: Duration) -> Result<ModWatcher, String> {
        let (raw_tx, raw_rx) = channel::<Vec<PathBuf>>();
        let mut watcher =
            notify::recommended_watcher(move |res: notify::Result<notify::Event>| match res {
                Ok(e) if !matches!(e.kind, EventKind::Access(_)) => {
                    let _ = raw_tx.send(e.paths);
                }
                Ok(_) => {}
                Err(e) => tracing::warn!(error = %e, "file watcher error"),
            })
            .map_err(|e| format!("could not start the file watcher: {e}"))?;
        for d in dirs {
            watcher
                .watch(d, RecursiveMode::Recursive)
                .map_err(|e| format!("could not watch {}: {e}", d.display()))?;
        }
        let (tx, batches) = channel();
        std::thread::Builder::new()
            .name("tessera-debounce".into())
            .spawn(move || {
                // Ends when the watcher (and so `raw_tx`) is dropped.
                while let Ok(first) = raw_rx.recv() {
                    let mut batch = first;
                    loop {
                        match raw_rx.recv_timeout(debounce) {
                            Ok(more) => batch.extend(more),
                            Err(RecvTimeoutError::Timeout) => break,
                            Err(RecvTimeoutError::Disconnected) => return,
                        }
                    }
                    if tx.send((Instant::now(), batch)).is_err() {
                        return;
                    }
                }
            })
            .map_err(|e| format!("could not start the debounce thread: {e}"))?;
        Ok(ModWatcher {
            _watcher: watcher,
            batches,
        })
    }

    /// The paths changed since the last call, waiting up to `timeout` for the first batch
    /// (zero: do not wait). Build output (`target/`) is ignored.
    pub fn changes(&self, timeout: Duration) -> Vec<PathBuf> {
        self.timed_changes(timeout).1
    }

    /// [`ModWatcher::changes`], with when the first of them was seen (after the debounce).
    pub fn timed_changes(&self, timeout: Duration) -> (Option<Instant>, Vec<PathBuf>) {
        let first = if timeout.is_zero() {
            self.batches.try_recv().ok()
        } else {
            self.batches.recv_timeout(timeout).ok()
        };
        let seen = first.as_ref().map(|(t, _)| *t);
        let mut out: Vec<PathBuf> = first
            .into_iter()
            .chain(std::iter::from_fn(|| self.batches.try_recv().ok()))
            .flat_map(|(_, b)| b)
            .collect();
        out.retain(|p| !p.components().any(|c| c.as_os_str() == "target"));
        out.sort();
        out.dedup();
        (seen.filter(|_| !out.is_empty()), out)
    }
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
    ) -> Result<HotReload, String> {
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
