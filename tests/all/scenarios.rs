//! Runs every scenario file under `tests/scenarios` through the same runner as
//! `tessera test`, and checks the runner reports failures with file, step and values.

use std::path::PathBuf;
use std::sync::Arc;

use tessera_host::{scenario, Registry};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

#[test]
fn every_scenario_passes() {
    let registry = Arc::new(Registry::with_core());
    let results = scenario::run_paths(&[root().join("tests/scenarios")], &registry, &Vec::new());
    let report = scenario::report(&results);
    assert!(results.iter().all(|r| r.passed()), "{report}");
    assert!(
        results.len() >= 25,
        "only {} scenarios:\n{report}",
        results.len()
    );
}
