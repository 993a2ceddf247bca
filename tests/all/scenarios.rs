//! Runs every scenario file under `tests/scenarios` (but `matches/`, which needs the
//! game's mods: see `scenario_matches`) through the same runner as `tessera test`, and
//! checks the runner reports failures with file, step and values.

use std::path::PathBuf;
use std::sync::Arc;

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
