//! Scenario matches (`[match]`): the files in `tests/scenarios/matches` play the arena
//! game (`arena` + `arena-classic`) the way Hearthbreaker's card tests do, and every
//! mistake in a match scenario is a clear failure naming the file, the step and what to
//! write instead — never a panic.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use tessera_host::mods::{load, ServerConfig};
use tessera_host::scenario::{self, SharedContent};
use tessera_host::Registry;

use crate::plugin_build::repo;

/// The arena rules and cards (no plugin needed), as `tessera test` loads them.
fn arena() -> (Arc<Registry>, SharedContent) {
    let root = repo();
    let text = format!(
        "mod_dirs = [{:?}]\nenabled = [\"arena\", \"arena-classic\"]\n",
        root.join("mods").display().to_string()
    );
    let server = ServerConfig::parse(&root.join("server.toml"), &text, &root).expect("server");
    let loaded = load(
        &[root.join("mods")],
        Some(&server),
        Arc::new(Registry::with_core()),
    );
    let errors: Vec<String> = loaded
        .all_diagnostics()
        .filter(|d| d.is_error())
        .map(|d| d.render(false))
        .collect();
    assert!(errors.is_empty(), "{}", errors.join("\n"));
    let registry = loaded
        .generation
        .as_ref()
        .map_or_else(|| Arc::new(Registry::with_core()), |g| g.registry.clone());
    let shared = loaded.sources(&registry);
    (registry, shared)
}

#[test]
fn every_match_scenario_passes() {
    let (registry, shared) = arena();
    let dir = repo().join("tests/scenarios/matches");
    let results = scenario::run_paths(&[dir], &registry, &shared);
    let report = scenario::report(&results);
    assert!(results.iter().all(|r| r.passed()), "{report}");
    assert!(
        results.len() >= 7,
        "only {} scenarios:\n{report}",
        results.len()
    );
}

/// A scratch folder for one test's files.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tessera-match-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// Runs one scenario text that must fail; returns its single failure message.
fn failure_of(name: &str, text: &str) -> (PathBuf, String) {
    let (registry, shared) = arena();
    let dir = scratch(name);
    let file = dir.join(format!("{name}.toml"));
    std::fs::write(&file, text).expect("write");
    let r = scenario::run_file(&file, &registry, &shared);
    assert_eq!(
        r.failures.len(),
        1,
        "expected one failure: {:?}",
        r.failures
    );
    let msg = r.failures[0].to_string();
    let _ = std::fs::remove_dir_all(&dir);
    (file, msg)
}

const HEADER: &str = "[scenario]\nname = \"bad\"\nnamespace = \"arena\"\n\n";
const MATCH: &str = "[match]\ndecks = [[\"arena-classic:class/brook_lurker\"], [\"arena-classic:class/brook_lurker\"]]\ncontrollers = [\"play_first\", \"none\"]\n\n";

fn assert_names_file(file: &Path, msg: &str) {
    assert!(msg.starts_with(&file.display().to_string()), "{msg}");
}

#[test]
fn a_bad_path_names_the_step_and_the_right_form() {
    let text = format!(
        "{HEADER}{MATCH}[[step]]\nname = \"one turn\"\nturns = 1\nexpect = {{ \"p1.board.first.attack\" = 2 }}\n"
    );
    let (file, msg) = failure_of("bad_path", &text);
    assert_names_file(&file, &msg);
    assert!(msg.contains("step 1 (one turn)"), "{msg}");
    assert!(
        msg.contains("expected p1.board.first.attack = 2, found 0 (no such property; a path to an object is NAME.ZONE.SLOT.property, e.g. `p1.board.0.attack`"),
        "{msg}"
    );
}

#[test]
fn bad_references_in_answers_and_randoms_are_caught_before_the_step_runs() {
    let cases = [
        (
            "answers = [[\"p3.board.0\"]]",
            "answers[0]: `p3` is not a named object (names are: p1, p2)",
        ),
        (
            "randoms = [[\"p2\"], [\"p1.board.zero\"]]",
            "randoms[1]: `p1.board.zero`: `zero` is not a slot number; write `p1.board.0` (slot 0 = first)",
        ),
    ];
    for (i, (line, want)) in cases.iter().enumerate() {
        let text = format!("{HEADER}{MATCH}[[step]]\nname = \"aim\"\nturns = 1\n{line}\n");
        let (file, msg) = failure_of(&format!("bad_reference_{i}"), &text);
        assert_names_file(&file, &msg);
        assert!(msg.contains("step 1 (aim)"), "{msg}");
        assert!(msg.contains(want), "{msg}");
    }
}

#[test]
fn a_path_to_an_empty_slot_says_what_is_there() {
    let text = format!(
        "{HEADER}{MATCH}[[step]]\nname = \"look\"\nexpect = {{ \"p1.board.3.attack\" = 2, \"p2.hand.cost\" = 2 }}\n"
    );
    let (_, msg) = failure_of("empty_slot", &text);
    assert!(
        msg.contains("`p1.board.3` does not exist: p1 has 0 object(s) in `board`"),
        "{msg}"
    );
    assert!(
        msg.contains("`p2.hand` is ambiguous: p2 has 4 objects in `hand`; write `p2.hand.0`"),
        "{msg}"
    );
}

#[test]
fn an_unknown_class_in_a_deck_suggests_the_closest() {
    let text = format!(
        "{HEADER}[match]\ndecks = [[\"arena-classic:class/brook_lurker\"], [\"arena-classic:class/brook_lurker\", \"arena-classic:class/stone_wardn\"]]\n"
    );
    let (file, msg) = failure_of("bad_class", &text);
    assert_names_file(&file, &msg);
    assert!(
        msg.contains("[match]: decks[1][1]: class `arena-classic:class/stone_wardn` is not defined; did you mean `arena-classic:class/stone_warden`?"),
        "{msg}"
    );
}

#[test]
fn an_unknown_controller_lists_the_known_ones() {
    let text = format!(
        "{HEADER}[match]\ndecks = [[\"arena-classic:class/brook_lurker\"], [\"arena-classic:class/brook_lurker\"]]\ncontrollers = [\"none\", \"play_frist\"]\n"
    );
    let (file, msg) = failure_of("bad_controller", &text);
    assert_names_file(&file, &msg);
    assert!(
        msg.contains("[match]: controllers[1]: unknown controller `play_frist`; write one of: none, play_first, keep_playing, play_and_attack"),
        "{msg}"
    );
}

#[test]
fn match_setup_mistakes_say_what_to_write() {
    let cases = [
        (
            "[match]\ndecks = [[\"arena-classic:class/brook_lurker\"]]\n".to_owned(),
            "[match]: decks: the game has 2 players, so write 2 decks",
        ),
        (
            format!("{MATCH}first = \"p3\"\n"),
            "[match]: first: `p3` is not a player; write one of: p1, p2",
        ),
        (
            "[match]\ndecks = [[], [\"arena-classic:class/brook_lurker\"]]\n".to_owned(),
            "[match]: decks[0] is empty; list at least one class",
        ),
        (
            format!("{MATCH}attack_move = \"charge\"\n"),
            "[match]: attack_move: the game has no move `arena:move/charge`; its moves are: ",
        ),
        (
            "[match]\ndecks = [[\"arena-classic:class/brook_lurker\"], [\"arena-classic:class/brook_lurker\"]]\ncontroller = [\"none\", \"none\"]\n".to_owned(),
            "unknown field `controller`",
        ),
    ];
    for (i, (table, want)) in cases.iter().enumerate() {
        let (file, msg) = failure_of(&format!("setup_{i}"), &format!("{HEADER}{table}"));
        assert_names_file(&file, &msg);
        assert!(msg.contains(want), "case {i}: {msg}");
    }
}

#[test]
fn turns_without_a_match_say_how_to_add_one() {
    let text = format!("{HEADER}[[step]]\nname = \"play\"\nturns = 2\n");
    let (_, msg) = failure_of("no_match", &text);
    assert!(msg.contains("step 1 (play)"), "{msg}");
    assert!(
        msg.contains("`turns` plays turns of a match: add a `[match]` table"),
        "{msg}"
    );
}
