//! Plugins under development: watches plugin source crates and rebuilds a crate when its
//! sources change, like a dev extension. The build installs the new module into its
//! mod's `plugins/` folder, where the mod watcher sees it and stages a reload as for any
//! other edit; a failed build leaves the last good module in place.

use std::path::{Path, PathBuf};
#[cfg(feature = "hot-reload")]
use std::thread::JoinHandle;
#[cfg(feature = "hot-reload")]
use std::time::{Duration, Instant};

#[cfg(feature = "hot-reload")]
use super::{ModWatcher, WatchError};
#[cfg(feature = "hot-reload")]
use crate::plugins::build::{build, BuildError, Built};

/// The build running on a worker thread: the crates, when it started, and its result.
#[cfg(feature = "hot-reload")]
type Build = (
    Vec<PathBuf>,
    Instant,
    JoinHandle<Result<Vec<Built>, BuildError>>,
);

/// Rebuilds plugin crates under a folder when their sources change (feature `hot-reload`).
#[cfg(feature = "hot-reload")]
pub struct PluginRebuilder {
    watcher: ModWatcher,
    building: Option<Build>,
    pending: Vec<PathBuf>,
}

#[cfg(feature = "hot-reload")]
impl std::fmt::Debug for PluginRebuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PluginRebuilder")
    }
}

/// The plugin crate a changed file belongs to: the nearest folder above it whose
/// `Cargo.toml` is a plugin crate's ([`is_plugin_crate`]). A workspace manifest (the
/// `plugins/Cargo.toml` above every example crate) is never one, even when a comment in
/// it mentions the metadata table.
pub fn crate_of(path: &Path) -> Option<PathBuf> {
    path.ancestors()
        .skip(1)
        .find(|dir| is_plugin_crate(dir))
        .map(Path::to_path_buf)
}

/// Whether `dir/Cargo.toml` is a plugin crate's manifest: it parses, and has a
/// `[package]` with a `[package.metadata.tessera]` table (the mod it builds for). A
/// manifest still being written (it does not parse yet) is not one.
pub fn is_plugin_crate(dir: &Path) -> bool {
    std::fs::read_to_string(dir.join("Cargo.toml"))
        .ok()
        .and_then(|t| toml::from_str::<toml::Table>(&t).ok())
        .is_some_and(|doc| {
            doc.get("package")
                .and_then(|p| p.get("metadata"))
                .and_then(|m| m.get("tessera"))
                .is_some_and(toml::Value::is_table)
        })
}

#[cfg(feature = "hot-reload")]
impl PluginRebuilder {
    /// Watches `dir` (e.g. `./plugins`) recursively; bursts of saves closer together than
    /// `debounce` are one rebuild. Build output (`target/`) is ignored.
    pub fn new(dir: &Path, debounce: Duration) -> Result<PluginRebuilder, WatchError> {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 21, defect 3: a new crate's source saved before its Cargo.toml exists made
    /// the watcher build the `plugins/` workspace, whose comment names the metadata table.
    #[test]
    fn a_workspace_manifest_is_not_a_plugin_crate() {
        let root = std::env::temp_dir().join(format!("tessera-crate-of-{}", std::process::id()));
        let src = root.join("my-cards/src");
        std::fs::create_dir_all(&src).unwrap();
        std::fs::write(
            root.join("Cargo.toml"),
            "# copies each module (`[package.metadata.tessera] mod`)\n[workspace]\nmembers = []\n",
        )
        .unwrap();
        assert_eq!(crate_of(&src.join("lib.rs")), None);
        std::fs::write(
            root.join("my-cards/Cargo.toml"),
            "[package]\nname = \"my-cards\"\n[package.metadata.tessera]\nmod = \"../m\"\n",
        )
        .unwrap();
        assert_eq!(crate_of(&src.join("lib.rs")), Some(root.join("my-cards")));
        std::fs::remove_dir_all(&root).unwrap();
    }
}
