//! The reference game: the mods in `mods/` play whole games between AIs; the same seed
//! gives the same game line for line; a recording replays to the same checksum; a game
//! running with hot reload picks up an edited card and keeps going.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::rc::Rc;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tessera_host::mods::{load, LoadedMods, ServerConfig};
use tessera_host::play::{GreedyAgent, Input, Match, PlayError, RandomAgent, ReplayAgent, Summary};
use tessera_host::reload::HotReload;
use tessera_host::{Controller, ControllerError};
use tessera_host::{Generation, Registry};

use crate::child_lines::Lines;
use crate::plugin_build::{copy_tree, ensure_built, repo};

/// The game's mods as `tessera run` loads them from the repository root.
pub(crate) fn game_mods(dir: &Path) -> LoadedMods {
    ensure_built();
    let server = ServerConfig::load(&repo().join("server.toml")).expect("server.toml");
    let loaded = load(
        &[dir.to_path_buf()],
        Some(&server),
        Arc::new(Registry::with_core()),
    );
    let errors: Vec<String> = loaded
        .all_diagnostics()
        .filter(|d| d.is_error())
        .map(|d| d.render(false))
        .collect();
    assert!(
        errors.is_empty(),
        "the game's mods must load cleanly:\n{}",
        errors.join("\n")
    );
    loaded
}

pub(crate) fn translator(loaded: &LoadedMods) -> tessera_host::play::Translate {
    let text = loaded.locale.text.get("en").cloned().unwrap_or_default();
    Rc::new(move |k: &str| text.get(k).cloned())
}

fn agents(kind: &str, seed: u64) -> Vec<Box<dyn Controller>> {
    kind.split(',')
        .enumerate()
        .map(|(i, k)| -> Box<dyn Controller> {
            match k {
                "greedy" => Box::new(GreedyAgent::new()),
                _ => Box::new(RandomAgent::new(seed * 31 + i as u64)),
            }
        })
        .collect()
}

/// Plays one game; returns its log, summary and inputs.
fn play(
    gen: &Arc<Generation>,
    loaded: &LoadedMods,
    seed: u64,
    seats: Vec<Box<dyn Controller>>,
) -> (Vec<String>, Summary, Vec<Input>) {
    let mut log = Vec::new();
    let mut out = |l: &str| log.push(l.to_owned());
    let mut m = Match::new(gen.clone(), seed, seats, translator(loaded), &mut out)
        .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
    let s = m
        .play(&mut out)
        .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
    let inputs = m.inputs();
    (log, s, inputs)
}

#[test]
fn the_same_seed_gives_the_same_game_line_for_line() {
    let loaded = game_mods(&repo().join("mods"));
    let gen = loaded.generation.clone().expect("generation");
    let (a, sa, _) = play(&gen, &loaded, 11, agents("random,greedy", 11));
    let (b, sb, _) = play(&gen, &loaded, 11, agents("random,greedy", 11));
    assert_eq!(a, b, "same seed, same log");
    assert_eq!(sa.checksum, sb.checksum);
    assert_eq!(sa.ending, sb.ending);
    let (c, sc, _) = play(&gen, &loaded, 12, agents("random,greedy", 12));
    assert!(
        c != a || sc.checksum != sa.checksum,
        "another seed plays another game"
    );
    // The log reads like a game: turns, plays, attacks, damage, deaths, the end.
    let text = a.join("\n");
    for needle in [
        "-- turn 1: Player",
        " plays ",
        " attacks ",
        " damage",
        " ends the turn",
    ] {
        assert!(text.contains(needle), "the log has `{needle}`:\n{text}");
    }
}

#[test]
fn seeded_games_between_the_ais_finish_without_error() {
    let loaded = game_mods(&repo().join("mods"));
    let gen = loaded.generation.clone().expect("generation");
    let mut endings = Vec::new();
    for seed in 0..30 {
        let (_, s, _) = play(&gen, &loaded, seed, agents("random,random", seed));
        assert!(s.turns > 2, "seed {seed}: a real game takes turns ({s:?})");
        endings.push(s.ending);
    }
    for seed in 100..104 {
        let (_, s, _) = play(&gen, &loaded, seed, agents("random,greedy", seed));
        endings.push(s.ending);
    }
    assert!(
        endings.contains(&tessera_host::play::Ending::Won(0))
            && endings.contains(&tessera_host::play::Ending::Won(1)),
        "both seats win some games: {endings:?}"
    );
}

#[test]
fn a_recording_replays_to_the_same_checksum_and_a_changed_one_does_not() {
    let loaded = game_mods(&repo().join("mods"));
    let gen = loaded.generation.clone().expect("generation");
    let (log, s, inputs) = play(&gen, &loaded, 5, agents("greedy,random", 5));
    assert!(inputs.iter().any(|i| matches!(i, Input::Choice(_))) || !inputs.is_empty());
    let queue = Rc::new(RefCell::new(
        inputs.iter().cloned().collect::<VecDeque<_>>(),
    ));
    let seats: Vec<Box<dyn Controller>> = (0..2)
        .map(|_| Box::new(ReplayAgent::new(queue.clone())) as Box<dyn Controller>)
        .collect();
    let (replayed_log, r, _) = play(&gen, &loaded, 5, seats);
    assert_eq!(replayed_log, log);
    assert_eq!(r.checksum, s.checksum);
    assert!(queue.borrow().is_empty(), "every input is used");

    // Change one move: the replay either diverges with an error or ends elsewhere.
    let mut changed = inputs.clone();
    let i = changed
        .iter()
        .position(|x| matches!(x, Input::Move(n) if *n > 0))
        .expect("some move other than the first option");
    changed[i] = Input::Move(0);
    let queue = Rc::new(RefCell::new(changed.into_iter().collect::<VecDeque<_>>()));
    let seats: Vec<Box<dyn Controller>> = (0..2)
        .map(|_| Box::new(ReplayAgent::new(queue.clone())) as Box<dyn Controller>)
        .collect();
    let mut out = |_: &str| {};
    let mut m = Match::new(gen.clone(), 5, seats, translator(&loaded), &mut out).unwrap();
    match m.play(&mut out) {
        Err(PlayError::Agent(e)) => {
            assert!(matches!(e, ControllerError::NoAnswer(_)), "{e:?}");
            let e = e.to_string();
            assert!(e.contains("diverged") || e.contains("ended before"), "{e}")
        }
        Err(e) => panic!("expected the replay agent to refuse, got: {e}"),
        Ok(other) => assert_ne!(other.checksum, s.checksum),
    }
}

fn tessera(dir: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_tessera"));
    c.current_dir(dir).env_remove("RUST_LOG");
    c
}

#[test]
fn tessera_run_records_and_tessera_replay_checks_the_checksum() {
    ensure_built();
    let dir = std::env::temp_dir().join(format!("tessera-arena-replay-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let rec = dir.join("game.json");
    let out = tessera(&repo())
        .args(["run", "--seed", "42", "--quiet", "--record"])
        .arg(&rec)
        .output()
        .expect("tessera runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("game 1 (seed 42): "), "{stdout}");
    let out = tessera(&repo())
        .arg("replay")
        .arg(&rec)
        .arg("--quiet")
        .output()
        .unwrap();
    let replay = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{replay}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(replay.contains("matches"), "{replay}");
    // A tampered checksum is caught.
    let text = std::fs::read_to_string(&rec).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let mut v = v;
    v["checksum"] = serde_json::Value::String("0000000000000000".into());
    std::fs::write(&rec, v.to_string()).unwrap();
    let out = tessera(&repo())
        .arg("replay")
        .arg(&rec)
        .arg("--quiet")
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("replay diverged"));
    // Issue 18, finding 6: inputs past the game's end were accepted.
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let inputs = v["inputs"].as_array_mut().expect("inputs");
    let last = inputs.last().cloned().expect("an input");
    inputs.push(last.clone());
    inputs.push(last);
    std::fs::write(&rec, v.to_string()).unwrap();
    let out = tessera(&repo())
        .arg("replay")
        .arg(&rec)
        .arg("--quiet")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success(), "{stdout}");
    assert!(
        stdout.contains("the game ended with 2 recorded input(s) not used"),
        "{stdout}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A copy of the game's mods to edit.
fn mods_copy(name: &str) -> PathBuf {
    ensure_built();
    let root = std::env::temp_dir().join(format!("tessera-arena-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    copy_tree(&repo().join("mods"), &root.join("mods"));
    std::fs::copy(repo().join("server.toml"), root.join("server.toml")).unwrap();
    root
}

#[test]
fn a_running_match_picks_up_an_edited_card_and_keeps_going() {
    let root = mods_copy("watch");
    let mods = root.join("mods");
    let loaded = game_mods(&mods);
    let gen = loaded.generation.clone().expect("generation");
    let server = ServerConfig::load(&root.join("server.toml")).unwrap();
    let mut hot = HotReload::new(
        vec![mods.clone()],
        Some(server),
        Arc::new(Registry::with_core()),
        Duration::from_millis(100),
        gen.number + 1,
    )
    .unwrap();
    let mut out = |_: &str| {};
    let mut m = Match::new(
        gen.clone(),
        3,
        agents("random,random", 3),
        translator(&loaded),
        &mut out,
    )
    .unwrap();
    for _ in 0..15 {
        assert!(m.step(&mut out).unwrap().is_none(), "the game is still on");
    }
    let file = mods.join("arena-classic/content/minions.toml");
    let text = std::fs::read_to_string(&file).unwrap();
    let edited = text.replace(
        "properties = { cost = 2, attack = 2, max_health = 3 }",
        "properties = { cost = 2, attack = 7, max_health = 3 }",
    );
    assert_ne!(text, edited, "the Brook Lurker line is in the file");
    std::fs::write(&file, edited).unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    let line = loop {
        if let Some(staged) = hot.wait(Duration::from_millis(50)) {
            let (line, report) = m.apply_reload(&staged);
            assert!(report.is_some(), "{line}");
            break line;
        }
        assert!(Instant::now() < deadline, "no reload within 20 s");
    };
    assert!(
        line.starts_with("reloaded arena-classic (generation 2)"),
        "{line}"
    );
    let lurker = tessera_host::Id::parse("arena-classic:class/brook_lurker").unwrap();
    let world = m.game().world();
    for o in world.objects_of_class(lurker) {
        assert_eq!(
            world.get_int(o, tessera_host::Sym::new("attack")),
            7,
            "objects of the class re-bind"
        );
    }
    assert_eq!(m.game().generation().number, 2);
    let s = m.play(&mut out).expect("the game goes on after the reload");
    assert!(s.turns > 0);
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn tessera_run_watch_reloads_while_the_game_runs() {
    let root = mods_copy("cli-watch");
    let mut child = tessera(&root)
        .args([
            "run",
            "--seed",
            "9",
            "--watch",
            "--games",
            "1",
            "--turn-delay-ms",
            "150",
            "--agents",
            "random,random",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("tessera runs");
    let mut lines = Lines::of(child.stdout.take().expect("stdout"));
    let errors = Lines::of(child.stderr.take().expect("stderr"));
    lines.wait_for("watching the mod folders", Duration::from_secs(60));
    let file = root.join("mods/arena-classic/content/minions.toml");
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(
        &file,
        text.replace(
            "cost = 4, attack = 3, max_health = 5",
            "cost = 4, attack = 4, max_health = 5",
        ),
    )
    .unwrap();
    lines.wait_for(
        "reloaded arena-classic (generation 2) in ",
        Duration::from_secs(60),
    );
    // A broken save is reported and the game keeps the last good generation.
    std::fs::write(&file, "[class.broken\n").unwrap();
    let stdout = lines.finish();
    let status = child.wait().unwrap();
    assert!(status.success(), "{stdout}\n{}", errors.finish());
    assert!(stdout.contains("watching the mod folders"), "{stdout}");
    assert!(
        stdout.contains("reloaded arena-classic (generation 2) in "),
        "{stdout}"
    );
    assert!(
        stdout.contains("reload failed: ") && stdout.contains("keeping generation 2"),
        "{stdout}"
    );
    assert!(
        stdout.contains("game 1 (seed 9): "),
        "the game finished: {stdout}"
    );
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn every_scenario_of_the_game_mods_passes() {
    ensure_built();
    let out = tessera(&repo()).arg("test").output().expect("tessera test");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let last = text.trim_end().lines().last().unwrap_or("");
    let passed: usize = last
        .split(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no summary line: {text}"));
    assert!(last.ends_with(" passed, 0 failed"), "{text}");
    assert!(
        passed >= 5,
        "the game's mods have their scenario tests: {text}"
    );
}

#[test]
fn tessera_run_builds_a_missing_plugin_module_first() {
    // A fresh clone has the plugin sources under ./plugins but no built modules.
    let root = mods_copy("fresh");
    let module = root.join("mods/arena-plus/plugins/arena-plus.wasm");
    std::fs::remove_file(&module).expect("the copy has the module");
    // The plugin sources as a clone has them: the plugins workspace (without its build
    // output) and the SDK it depends on (a member of the root workspace).
    std::fs::create_dir_all(root.join("plugins")).unwrap();
    for e in std::fs::read_dir(repo().join("plugins")).unwrap().flatten() {
        let name = e.file_name();
        if name == "target" {
            continue;
        }
        if e.path().is_dir() {
            copy_tree(&e.path(), &root.join("plugins").join(&name));
        } else {
            std::fs::copy(e.path(), root.join("plugins").join(&name)).unwrap();
        }
    }
    crate::plugin_build::link_sdk(&root);
    let out = tessera(&root)
        .args(["run", "--seed", "3", "--quiet"])
        .env("CARGO_TARGET_DIR", repo().join("plugins/target"))
        .output()
        .expect("tessera runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(
        stderr
            .contains("building the plugins the mods need (their modules are missing): arena-plus"),
        "{stderr}"
    );
    // Issue 21, defect 17: the first run was silent for minutes while plugins built. Each
    // plugin is built on its own and reported as it starts and as it finishes.
    assert!(
        stderr.contains("  building plugin 1/1: arena-plus ...\n"),
        "{stderr}"
    );
    assert!(
        stderr.contains("  built plugin 1/1: arena-plus in "),
        "{stderr}"
    );
    assert!(
        module.is_file(),
        "the module was built into the copy's mod folder"
    );
    assert!(!stderr.contains("error"), "arena-plus loaded: {stderr}");
    assert!(stdout.contains("game 1 (seed 3): "), "{stdout}");
    let _ = std::fs::remove_dir_all(&root);
}

/// Issue 18, finding 5: deleting `arena-classic` (every card) was accepted as a good
/// reload, and the next game failed and ended the run. Now a reload under which no match
/// can start is refused with the reason, and the game keeps its generation.
#[test]
fn a_reload_that_leaves_no_playable_game_is_refused() {
    let root = mods_copy("unplayable");
    let mods = root.join("mods");
    // The rules and the one card mod: without arena-classic no card is left to deal.
    for other in ["arena-plus", "spellbook", "hearthbreaker"] {
        std::fs::remove_dir_all(mods.join(other)).unwrap();
    }
    let loaded = game_mods(&mods);
    let gen = loaded.generation.clone().expect("generation");
    let server = ServerConfig::load(&root.join("server.toml")).unwrap();
    let mut hot = HotReload::new(
        vec![mods.clone()],
        Some(server),
        Arc::new(Registry::with_core()),
        Duration::from_millis(100),
        gen.number + 1,
    )
    .unwrap();
    let mut out = |_: &str| {};
    let mut m = Match::new(
        gen.clone(),
        5,
        agents("random,random", 5),
        translator(&loaded),
        &mut out,
    )
    .unwrap();
    assert!(m.step(&mut out).unwrap().is_none());
    // Moved out in one step (a delete file by file could be staged half done).
    std::fs::rename(
        mods.join("arena-classic"),
        root.join("arena-classic-removed"),
    )
    .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    let line = loop {
        if let Some(staged) = hot.wait(Duration::from_millis(50)) {
            let (line, report) = m.apply_reload(&staged);
            assert!(report.is_none(), "{line}");
            break line;
        }
        assert!(Instant::now() < deadline, "no reload within 20 s");
    };
    assert!(
        line.starts_with(
            "reload refused: a new match could not start under it: no class has the tag"
        ),
        "{line}"
    );
    assert!(
        line.ends_with(&format!("keeping generation {}", gen.number)),
        "{line}"
    );
    assert_eq!(m.game().generation().number, gen.number);
    assert!(m.step(&mut out).is_ok(), "the game goes on");
    let _ = std::fs::remove_dir_all(&root);
}

/// `--quiet` makes no log lines at all (`Match::set_log`), and plays the same games: the
/// same turns, moves, events and checksums as a run that logs every move.
#[test]
fn a_quiet_run_plays_the_same_games() {
    ensure_built();
    let games = |quiet: bool| {
        let mut c = tessera(&repo());
        c.args(["run", "--games", "3", "--seed", "7"]);
        if quiet {
            c.arg("--quiet");
        }
        let out = c.output().expect("tessera runs");
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(out.status.success(), "{stdout}");
        // `game 1 (seed 7): Player 2 wins after 9 turns, 30 moves, 301 events, 4 ms
        // (checksum …)`, without the time.
        let lines: Vec<String> = stdout
            .lines()
            .filter(|l| l.starts_with("game "))
            .map(|l| {
                let (head, rest) = l.split_once(" events, ").expect("events");
                let checksum = rest.split_once("(checksum").expect("checksum").1;
                format!("{head} events{checksum}")
            })
            .collect();
        (lines, stdout.lines().count())
    };
    let (logged, logged_lines) = games(false);
    let (quiet, quiet_lines) = games(true);
    assert_eq!(logged.len(), 3, "{logged:?}");
    assert_eq!(logged, quiet);
    assert!(
        quiet_lines < 6 && logged_lines > 30,
        "{quiet_lines} vs {logged_lines}"
    );
}
