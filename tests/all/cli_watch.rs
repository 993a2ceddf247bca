//! `tessera run --watch` as the README's tutorial uses it (issue 21): the game keeps
//! playing while the modder works, and a reload says what `check` would say.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::time::{Duration, Instant};

use crate::plugin_build::{copy_tree, ensure_built, repo};

/// A running `tessera`, its stdout and stderr lines merged into one channel.
pub struct Running {
    child: Child,
    lines: Receiver<String>,
    /// Every line read so far.
    pub seen: Vec<String>,
}

fn forward(from: impl Read + Send + 'static, to: Sender<String>) {
    std::thread::spawn(move || {
        for l in BufReader::new(from).lines().map_while(Result::ok) {
            if to.send(l).is_err() {
                break;
            }
        }
    });
}

impl Running {
    /// Starts `tessera ARGS` in `cwd`.
    pub fn start(cwd: &Path, args: &[&str]) -> Running {
        let mut child = Command::new(env!("CARGO_BIN_EXE_tessera"))
            .current_dir(cwd)
            .args(args)
            .env_remove("RUST_LOG")
            .env("NO_COLOR", "1")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("tessera starts");
        let (tx, lines) = channel();
        forward(child.stdout.take().expect("stdout"), tx.clone());
        forward(child.stderr.take().expect("stderr"), tx);
        Running {
            child,
            lines,
            seen: Vec::new(),
        }
    }

    /// Waits (on its output, at most a minute) for a line containing every part.
    pub fn wait_for(&mut self, parts: &[&str]) -> String {
        // stdout and stderr are read on two threads, so a line may have arrived (and been
        // passed over) while an earlier wait looked for another one.
        if let Some(l) = self
            .seen
            .iter()
            .find(|l| parts.iter().all(|p| l.contains(p)))
        {
            return l.clone();
        }
        let deadline = Instant::now() + Duration::from_secs(60);
        while let Some(left) = deadline.checked_duration_since(Instant::now()) {
            match self.lines.recv_timeout(left) {
                Ok(l) => {
                    self.seen.push(l.clone());
                    if parts.iter().all(|p| l.contains(p)) {
                        return l;
                    }
                }
                Err(_) => break,
            }
        }
        let _ = self.child.kill();
        panic!(
            "no line with {parts:?}; the output was:\n{}",
            self.seen.join("\n")
        );
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A copy of the repository's mods and server.toml in a temporary folder.
fn game_copy(name: &str) -> PathBuf {
    ensure_built();
    let root = std::env::temp_dir().join(format!("tessera-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    copy_tree(&repo().join("mods"), &root.join("mods"));
    std::fs::copy(repo().join("server.toml"), root.join("server.toml")).unwrap();
    root
}

/// Issue 21, defects 2 and 11: the tutorial's watcher (`--games 20`) exited before its
/// step 5, and a reload went live silently past a warning `check` reports.
#[test]
fn run_watch_plays_until_stopped_and_a_reload_prints_its_warnings() {
    let root = game_copy("watch-forever");
    let mut game = Running::start(&root, &["run", "--watch", "--quiet"]);
    game.wait_for(&["watching the mod folders"]);
    // Without --games, a watched run keeps starting games.
    game.wait_for(&["game 3 (seed 3): "]);
    let dir = root.join("mods/my-cards");
    std::fs::create_dir_all(dir.join("content")).unwrap();
    std::fs::write(
        dir.join("content/cards.toml"),
        "[class.river_giant]\nname = \"my-cards.river_giant.name\"\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("mod.toml"),
        "[mod]\nid = \"my-cards\"\nversion = \"0.1.0\"\napi = \"0.1\"\n",
    )
    .unwrap();
    game.wait_for(&["reloaded ", "my-cards (generation "]);
    game.wait_for(&["warning[W-LOCALE-MISSING]: translation key `my-cards.river_giant.name`"]);
    drop(game);
    let _ = std::fs::remove_dir_all(&root);
}
