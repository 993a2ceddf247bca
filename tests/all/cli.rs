//! The `tessera` command's texts, snapshotted with snapbox so they cannot drift from the
//! README again (issue 21). Update the inline snapshots with `SNAPSHOTS=overwrite cargo
//! test --test all cli`; temporary folders are redacted to `[ROOT]`.

use std::path::Path;

use snapbox::cmd::Command;
use snapbox::{str, Assert, Redactions};

use crate::mods_fixture::Tree;
use crate::plugin_build::{ensure_built, repo};

/// `tessera` in `cwd`, with `root` redacted to `[ROOT]` in what it prints.
pub fn tessera(cwd: &Path, root: &Path) -> Command {
    let mut redactions = Redactions::new();
    redactions
        .insert("[ROOT]", root.to_path_buf())
        .expect("a redaction");
    Command::new(env!("CARGO_BIN_EXE_tessera"))
        .current_dir(cwd)
        .env_remove("RUST_LOG")
        .env("NO_COLOR", "1")
        .with_assert(
            Assert::new()
                .action_env(snapbox::assert::DEFAULT_ACTION_ENV)
                .redact_with(redactions),
        )
}

/// Issue 21, defect 15: `tessera mods` said `(enabled by default …)` on every line and
/// `1 mods are`.
#[test]
fn mods_says_why_once_and_counts_in_the_singular() {
    let t = Tree::new("cli-mods");
    t.add("core", "0.1.0", "");
    t.add("a", "1.0.0", "[dependencies]\ncore = \"0.1\"\n");
    t.add("b", "1.0.0", "[dependencies]\nnope = \"1\"\n");
    tessera(&t.root, &t.root)
        .args(["mods", "--mods", "mods"])
        .assert()
        .failure()
        .stdout_eq(str![[r#"
2 mods load, in this order (server.toml has no `enabled` list, so every discovered mod is enabled):
    1. core 0.1.0 (required by `a`)
    2. a 1.0.0
1 mod is disabled:
  b 1.0.0: it requires `nope` ^1, which is not installed
dependencies:
  core depends on nothing
  a depends on core ^0.1

"#]]);
}

/// Issue 21, defect 13: `explain river_giant` suggested `namespace:river_giant`; it names
/// the loaded ids the short name may stand for.
#[test]
fn explain_a_short_name_suggests_the_full_ids() {
    let t = Tree::new("cli-explain");
    t.add("core", "0.1.0", "");
    t.add("giants", "1.0.0", "");
    tessera(&t.root, &t.root)
        .args(["explain", "giants_thing", "--mods", "mods"])
        .assert()
        .code(2)
        .stderr_eq(str![[r#"
error: `giants_thing` is not a full id (`namespace:category/name`); did you mean `giants:class/giants_thing`?

"#]]);
    tessera(&t.root, &t.root)
        .args(["explain", "river_giant", "--mods", "mods"])
        .assert()
        .code(2)
        .stderr_eq(str![[r#"
error: id `river_giant` has no namespace and there is no current mod to take it from; write `namespace:category/river_giant`

"#]]);
}

/// Issue 21, defect 14: the match log never said which AI plays which seat, never showed
/// hero health, and a game that ended in turn 15 was reported `after 14 turns`.
#[test]
fn the_match_log_names_the_agents_shows_health_and_counts_the_last_turn() {
    ensure_built();
    let out = tessera(&repo(), &repo())
        .args(["run", "--seed", "3", "--agents", "greedy,random"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8_lossy(&out);
    assert_eq!(
        text.lines().next(),
        Some("== game 1 (seed 3): Player 1 greedy, Player 2 random ==")
    );
    let headers: Vec<&str> = text.lines().filter(|l| l.starts_with("-- turn ")).collect();
    assert!(
        headers[0].starts_with("-- turn 1: Player ")
            && headers[0].ends_with(" (health: Player 1 30, Player 2 30) --"),
        "{text}"
    );
    assert!(
        headers.iter().all(|h| h.contains("(health: Player 1 ")),
        "{text}"
    );
    let last: u32 = headers
        .last()
        .and_then(|h| h["-- turn ".len()..].split(':').next())
        .and_then(|n| n.parse().ok())
        .expect("a turn header");
    let summary = text.lines().last().expect("a summary");
    assert!(
        summary.contains(&format!(" wins after {last} turns,")),
        "the game ended in turn {last}: {summary}"
    );
}

/// Issue 21, defect 6: `W-LOCK-DRIFT` never named `--update-lock`, and two server files
/// shared one `mods.lock`, so checking each in turn reported the other's mods as notes.
#[test]
fn each_server_file_has_its_own_lock_and_drift_names_update_lock() {
    let t = Tree::new("cli-lock");
    t.add("core", "0.1.0", "");
    t.add("a", "1.0.0", "");
    t.add("b", "1.0.0", "");
    std::fs::write(t.root.join("one.toml"), "enabled = [\"core\", \"a\"]\n").unwrap();
    std::fs::write(t.root.join("two.toml"), "enabled = [\"core\", \"b\"]\n").unwrap();
    for server in ["one.toml", "two.toml", "one.toml", "two.toml"] {
        tessera(&t.root, &t.root)
            .args(["check", "--server", server])
            .assert()
            .success()
            .stdout_eq(str![[r#"
checked 3 mods: 2 loaded ([..] 1 class, core 1 class), 1 disabled; 0 errors, 0 warnings

"#]])
            .stderr_eq(str![""]);
    }
    assert!(t.root.join("one.mods.lock").is_file() && t.root.join("two.mods.lock").is_file());
    t.write(
        "a",
        "content/defs.toml",
        "[class.a_thing]\nproperties = { attack = 2 }\n",
    );
    let out = tessera(&t.root, &t.root)
        .args(["check", "--server", "one.toml"])
        .assert()
        .success()
        .get_output()
        .stderr
        .clone();
    let text = String::from_utf8_lossy(&out);
    assert!(
        text.contains("warning[W-LOCK-DRIFT]: files of mod `a` 1.0.0 changed since"),
        "{text}"
    );
    assert!(
        text.contains("run `tessera check --update-lock` to record it"),
        "{text}"
    );
    tessera(&t.root, &t.root)
        .args(["check", "--server", "one.toml", "--update-lock"])
        .assert()
        .success()
        .stderr_eq(str![""]);
    tessera(&t.root, &t.root)
        .args(["check", "--server", "one.toml"])
        .assert()
        .success()
        .stderr_eq(str![""]);
}

/// The start of a long log, for a failure message.
fn head(log: &str) -> String {
    log.lines().take(40).collect::<Vec<_>>().join("\n")
}

/// The log lines of `tessera run --seed 1 --quiet` under `RUST_LOG=<filter>`.
fn run_log(filter: &str) -> String {
    ensure_built();
    let out = tessera(&repo(), &repo())
        .args(["run", "--seed", "1", "--quiet"])
        .env("RUST_LOG", filter)
        .assert()
        .success()
        .get_output()
        .stderr
        .clone();
    String::from_utf8_lossy(&out).into_owned()
}

/// Issue 21, defect 1: `RUST_LOG=tessera_host=debug` printed nothing more than a plain
/// run, and no line named a trigger or its mod. `debug` shows commands and triggers with
/// their mod; `trace` adds events and actions.
#[test]
fn debug_logs_commands_and_triggers_with_their_mod_and_trace_adds_events() {
    let debug = run_log("tessera_host=debug");
    let fired = debug
        .lines()
        .find(|l| l.contains("trigger fires") && l.contains("mod_id=arena"))
        .unwrap_or_else(|| panic!("no trigger of arena in:\n{}", head(&debug)));
    assert!(
        fired.contains("def=") && fired.contains("at=") && fired.contains(".toml:"),
        "{fired}"
    );
    assert!(
        debug
            .lines()
            .any(|l| l.contains(" command ") && l.contains("name=\"arena:move/")),
        "{}",
        head(&debug)
    );
    assert!(!debug.contains("dispatch"), "events are trace, not debug");
    let trace = run_log("tessera_host=trace");
    assert!(trace
        .lines()
        .any(|l| l.contains("dispatch") && l.contains("core:event/")));
    assert!(trace.lines().any(|l| l.contains(" action")));
    assert!(run_log("warn").is_empty());
}

/// `tessera run | head -1`: when the reader goes away, the command stops quietly with
/// success; it panicked ("failed printing to stdout: Broken pipe").
#[test]
fn a_closed_stdout_ends_the_command_quietly() {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_tessera"))
        .current_dir(repo())
        .args(["run", "--games", "200", "--agents", "random,random"])
        .env_remove("RUST_LOG")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("tessera runs");
    let mut first = String::new();
    BufReader::new(child.stdout.take().expect("its stdout"))
        .read_line(&mut first)
        .expect("a line");
    // The reader is dropped here: every later write fails with a broken pipe.
    assert!(first.starts_with("== game 1"), "{first}");
    let out = child.wait_with_output().expect("tessera ends");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{:?}: {stderr}", out.status);
    assert!(!stderr.contains("panicked"), "{stderr}");
}
