//! FreeOrion (`mods/freeorion`) with FreeOrion's own FOCS content (`../shared/corpora/focs`,
//! read where it lies, never copied): every entry loads through the `focs` loader plugin
//! (or says, at file:line, which construct it lacks), the rules' scenarios pass against
//! the corpus' techs, and `tessera explain` shows a meter's accounting.

use crate::plugin_build::{ensure_built, repo, tessera_at_root as tessera};

fn corpus() {
    let p = repo().join("../shared/corpora/focs/default/scripting");
    assert!(
        p.is_dir(),
        "FreeOrion's content is read from {} (the `shared` folder beside the checkout); it is missing",
        p.display()
    );
}

/// `tessera check --server freeorion.toml` loads the mod with no error, and lists each
/// construct the translation lacks as a warning at its FOCS file:line.
#[test]
fn check_loads_and_lists_what_is_untranslated_at_file_line() {
    ensure_built();
    corpus();
    let _ = std::fs::remove_file(repo().join("target/freeorion-check.lock"));
    let (ok, text) = tessera(&[
        "check",
        "--server",
        "freeorion.toml",
        "--lock",
        "target/freeorion-check.lock",
    ]);
    assert!(ok, "{text}");
    assert!(text.contains(" 0 errors,"), "{text}");
    assert!(text.contains("1 loaded (freeorion "), "{text}");
    let unsupported: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("FOCS-UNSUPPORTED: scripting/"))
        .collect();
    assert!(!unsupported.is_empty(), "{text}");
    for line in &unsupported {
        // `FOCS-UNSUPPORTED: scripting/<file>.focs.txt:<line>: `<construct>` in <entry> ...`
        let rest = line.split("FOCS-UNSUPPORTED: ").nth(1).unwrap();
        let (file, after) = rest.split_once(':').unwrap();
        let line_no: String = after.chars().take_while(char::is_ascii_digit).collect();
        assert!(
            file.starts_with("scripting/") && !line_no.is_empty(),
            "{line}"
        );
        assert!(after.contains(" is not supported; "), "{line}");
    }
}

/// The rules' scenarios (mods/freeorion/tests): fusion and robotic production, algorithmic
/// elegance with a doubling between it and nascent AI, subterranean habitation, the
/// garrison techs, the regional admin's location.
#[test]
fn every_freeorion_scenario_passes() {
    ensure_built();
    corpus();
    let (ok, text) = tessera(&["test", "--server", "freeorion.toml", "mods/freeorion/tests"]);
    assert!(ok, "{text}");
    assert!(text.trim_end().ends_with(" passed, 0 failed"), "{text}");
    assert!(text.contains("GRO_SUBTER_HAB"), "{text}");
}

/// `tessera explain` shows GRO_SUBTER_HAB's change of a target population under its
/// accounting label.
#[test]
fn explain_shows_the_accounting_label_of_subterranean_habitation() {
    ensure_built();
    corpus();
    let (ok, text) = tessera(&[
        "explain",
        "home.target_population",
        "--server",
        "freeorion.toml",
        "--scenario",
        "mods/freeorion/tests/subterranean_habitation.toml",
    ]);
    assert!(ok, "{text}");
    assert!(
        text.contains("home.target_population = 3 (at the end of "),
        "{text}"
    );
    // The source is the tech's: its empire's capital.
    assert!(
        text.contains("  GRO_SUBTER_HAB: 0 -> 3 (+3) from home"),
        "{text}"
    );
}

/// `tessera run --server freeorion.toml --turns N` plays a generated galaxy to the turn
/// limit with no error, printing each turn's empire totals.
#[test]
fn a_generated_galaxy_plays_to_the_turn_limit() {
    ensure_built();
    corpus();
    let (ok, text) = tessera(&[
        "run",
        "--server",
        "freeorion.toml",
        "--turns",
        "12",
        "--seed",
        "3",
    ]);
    assert!(ok, "{text}");
    assert!(
        text.contains("draw (turn limit 12 reached) after 12 turns"),
        "{text}"
    );
    let header = text
        .lines()
        .find(|l| l.starts_with("-- turn 12: "))
        .unwrap_or_else(|| panic!("{text}"));
    for total in [
        "industry: Player 1 ",
        "population: Player 1 ",
        "research: Player 1 ",
        "techs: Player 1 ",
    ] {
        assert!(header.contains(total), "{header}");
    }
}
