//! Plugins under development: watches plugin source crates and rebuilds a crate when its
//! sources change, like a dev extension. The build installs the new module into its
//! mod's `plugins/` folder, where the mod watcher sees it and stages a reload as for any
//! other edit; a failed build leaves the last good module in place.

use std::path::{Path, PathBuf};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::ModWatcher;
use crate::plugins::build::{build, BuildError, Built};

/// The build running on a worker thread: the crates, when it started, and its result.
type Build = (
    Vec<PathBuf>,
    Instant,
    JoinHandle<Result<Vec<Built>, BuildError>>,
);

/// Rebuilds plugin crates under a folder when their sources change.
pub struct PluginRebuilder {
    watcher: ModWatcher,
    building: Option<Build>,
    pending: Vec<PathBuf>,
}

impl std::fmt::Debug for PluginRebuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PluginRebuilder")
    }
}

/// The plugin crate a changed file belongs to: the nearest folder above it whose
/// `Cargo.toml` names a target mod (`[package.metadata.tessera]`).
pub fn crate_of(path: &Path) -> Option<PathBuf> {
    path.ancestors().skip(1).find_map(|dir| {
        std::fs::read_to_string(dir.join("Cargo.toml"))
            .ok()
            .filter(|t| t.contains("[package.metadata.tessera]"))
            .map(|_| dir.to_path_buf())
    })
}

impl PluginRebuilder {
    /// Watches `dir` (e.g. `./plugins`) recursively; bursts of saves closer together than
    /// `debounce` are one rebuild. Build output (`target/`) is ignored.
    pub fn new(dir: &Path, debounce: Duration) -> Result<PluginRebuilder, String> {
        Ok(PluginRebuilder {
            watcher: ModWatcher::new(&[dir.to_path_buf()], debounce)?,
            building: None,
            pending: Vec::new(),
        })
    }

    /// Call as often as convenient; never blocks on a build. Starts a build when sources
    /// changed, and returns a log line when one finished: `rebuilt plugin NAME in X s`, or
    /// `plugin build failed: ... — the last good module stays`.
    pub fn poll(&mut self) -> Option<String> {
        for p in self.watcher.changes(Duration::ZERO) {
            if let Some(c) = crate_of(&p) {
                if !self.pending.contains(&c) {
                    self.pending.push(c);
                }
            }
        }
        if let Some((_, _, handle)) = &self.building {
            if !handle.is_finished() {
                return None;
            }
            let (crates, started, handle) = self.building.take()?;
            let names = crates
                .iter()
                .map(|c| {
                    c.file_name()
                        .unwrap_or_default()
                        .to_string_lossy()
                        .into_owned()
                })
                .collect::<Vec<_>>()
                .join(", ");
            return Some(match handle.join() {
                Ok(Ok(built)) => format!(
                    "rebuilt plugin {} in {:.1} s",
                    built
                        .iter()
                        .map(|b| b.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", "),
                    started.elapsed().as_secs_f64()
                ),
                Ok(Err(e)) => {
                    format!("plugin build failed: {names}: {e}\n— the last good module stays")
                }
                Err(_) => format!("plugin build failed: {names}: the build thread panicked"),
            });
        }
        if self.pending.is_empty() {
            return None;
        }
        let crates = std::mem::take(&mut self.pending);
        let job = crates.clone();
        match std::thread::Builder::new()
            .name("tessera-plugin-build".into())
            .spawn(move || build(&job))
        {
            Ok(h) => self.building = Some((crates, Instant::now(), h)),
            Err(e) => {
                return Some(format!(
                    "plugin build failed: could not start a build thread: {e}"
                ))
            }
        }
        None
    }

    /// Waits up to `timeout` for a build to finish (for tests and tools).
    pub fn wait(&mut self, timeout: Duration) -> Option<String> {
        let deadline = Instant::now() + timeout;
        while Instant::now() < deadline {
            if let Some(line) = self.poll() {
                return Some(line);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        None
    }
}
