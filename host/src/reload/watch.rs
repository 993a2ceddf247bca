//! The debounced file watcher (feature `hot-reload`, over `notify`): a burst of writes
//! becomes one batch; reads are ignored.

use std::path::PathBuf;
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use notify::{EventKind, RecommendedWatcher, RecursiveMode, Watcher};

use super::WatchError;

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
    pub fn new(dirs: &[PathBuf], debounce: Duration) -> Result<ModWatcher, WatchError> {
        let (raw_tx, raw_rx) = channel::<Vec<PathBuf>>();
        let mut watcher =
            notify::recommended_watcher(move |res: notify::Result<notify::Event>| match res {
                Ok(e) if !matches!(e.kind, EventKind::Access(_)) => {
                    let _ = raw_tx.send(e.paths);
                }
                Ok(_) => {}
                Err(e) => tracing::warn!(error = %e, "file watcher error"),
            })
            .map_err(|e| WatchError::Start(e.to_string()))?;
        for d in dirs {
            watcher
                .watch(d, RecursiveMode::Recursive)
                .map_err(|e| WatchError::Watch {
                    path: d.clone(),
                    message: e.to_string(),
                })?;
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
            .map_err(WatchError::Thread)?;
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
