//! Runs every scenario file under `tests/scenarios` (but `matches/`, which needs the
//! game's mods: see `scenario_matches`) through the same runner as `tessera test`, and
//! checks the runner reports failures with file, step and values.

use std::path::PathBuf;
use std::sync::Arc;

use tessera_host::scenario::ScenarioFailure;
use tessera_host::{scenario, Registry};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

#[test]
fn every_scenario_passes() {
    let registry = Arc::new(Registry::with_core());
    // `matches/` plays the arena game: `scenario_matches` runs it with the game's mods.
    let paths: Vec<PathBuf> = std::fs::read_dir(root().join("tests/scenarios"))
        .expect("tests/scenarios")
        .flatten()
        .map(|e| e.path())
        .filter(|p| !p.ends_with("matches"))
        .collect();
    let results = scenario::run_paths(&paths, &registry, &Vec::new());
    let report = scenario::report(&results);
    assert!(results.iter().all(|r| r.passed()), "{report}");
    assert!(
        results.len() >= 25,
        "only {} scenarios:\n{report}",
        results.len()
    );
}

/// Issue 18, finding 2: a step `tick = 100000000` kept every tick's events and grew past
/// 8 GB; now a step may tick at most 100,000 times, and the failure says how to split it.
#[test]
fn a_step_that_ticks_too_much_is_refused_before_it_runs() {
    let tmp = tempfile::tempdir().expect("a temporary folder");
    let dir = tmp.path().to_path_buf();
    let file = dir.join("ticks.toml");
    std::fs::write(
        &file,
        "[scenario]\nname = \"ticks\"\n\n[[step]]\nname = \"forever\"\ntick = 100000000\n",
    )
    .unwrap();
    let r = scenario::run_file(&file, &Arc::new(Registry::with_core()), &Vec::new());
    assert_eq!(r.failures.len(), 1, "{:?}", r.failures);
    assert!(
        matches!(&r.failures[0], ScenarioFailure::Step { step: 1, message, .. }
            if message.contains("`tick = 100000000` is more than 100000 ticks in one step")),
        "{}",
        r.failures[0]
    );
}
