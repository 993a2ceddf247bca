//! Hearthbreaker compatibility (`mods/hearthbreaker`): its real card definitions
//! (`../shared/corpora/hearthbreaker/card_defs.json`, read where it lies, never copied)
//! load through the mod's loader plugin with every name known, and its scenarios pass.

use std::path::PathBuf;
use std::sync::Arc;

use tessera_host::mods::{load, ServerConfig};
use tessera_host::{Registry, Sym};

use crate::plugin_build::{class_stats, ensure_built, load_errors, repo};

/// The corpus file; a clear failure when the folder beside the checkout is missing.
fn corpus() -> PathBuf {
    let p = repo().join("../shared/corpora/hearthbreaker/card_defs.json");
    assert!(
        p.is_file(),
        "the Hearthbreaker corpus is read from {} (the `shared` folder beside the checkout); it is missing",
        p.display()
    );
    p
}

fn load_hearthbreaker() -> tessera_host::mods::LoadedMods {
    ensure_built();
    corpus();
    let server = ServerConfig::load(&repo().join("hearthbreaker.toml")).unwrap();
    load(
        &[repo().join("mods")],
        Some(&server),
        Arc::new(Registry::with_core()),
    )
}

#[test]
fn all_455_card_definitions_load_with_every_name_known() {
    let loaded = load_hearthbreaker();
    let errors = load_errors(&loaded);
    assert!(
        errors.is_empty(),
        "{} errors, the first: {}",
        errors.len(),
        errors
            .iter()
            .take(5)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    let gen = loaded.generation.expect("a generation");
    let text = std::fs::read_to_string(corpus()).unwrap();
    let defs: serde_json::Value = serde_json::from_str(&text).unwrap();
    let count = defs.as_array().unwrap().len();
    assert_eq!(count, 455);
    let cards = gen
        .classes
        .iter()
        .filter(|(id, c)| {
            id.namespace() == "hearthbreaker"
                && c.tags.contains(&Sym::new("hearthbreaker"))
                && (c.tags.contains(&Sym::new("minion")) || c.tags.contains(&Sym::new("weapon")))
        })
        .count();
    assert_eq!(
        cards, count,
        "one minion or weapon class per card definition"
    );
    // A card, field by field.
    assert_eq!(
        class_stats(&gen, "hearthbreaker:class/raid_leader"),
        (Some(3.0), Some(2.0), Some(2.0))
    );
}

/// Runs `tessera` at the repository root; stdout and stderr together, and whether it succeeded.
fn tessera(args: &[&str]) -> (bool, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_tessera"))
        .current_dir(repo())
        .args(args)
        .env_remove("RUST_LOG")
        .output()
        .expect("tessera runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `tessera check` reports the same: the mod and its 455 cards load with no error.
#[test]
fn tessera_check_reports_no_errors() {
    ensure_built();
    corpus();
    let _ = std::fs::remove_file(repo().join("target/hearthbreaker-check.lock"));
    let (ok, out, err) = tessera(&[
        "check",
        "--server",
        "hearthbreaker.toml",
        "--lock",
        "target/hearthbreaker-check.lock",
    ]);
    let text = out + &err;
    assert!(ok, "{text}");
    assert!(text.contains(" 0 errors"), "{text}");
}

/// Every scenario of the hearthbreaker mod passes — among them the card tests reproduced
/// from Hearthbreaker's own (`tests/card_tests/<class>/test_*.toml`).
#[test]
fn every_hearthbreaker_scenario_passes() {
    ensure_built();
    corpus();
    let (ok, text, err) = tessera(&[
        "test",
        "--server",
        "hearthbreaker.toml",
        "mods/hearthbreaker/tests",
    ]);
    assert!(ok, "{text}\n{err}");
    assert!(text.trim_end().ends_with(" passed, 0 failed"), "{text}");
    // Hearthbreaker's card tests, reproduced (the count per class file is in the mod's
    // README): at least 400 passed (the bar), and every class file represented.
    let dir = repo().join("mods/hearthbreaker/tests/card_tests");
    let mut per_class = Vec::new();
    for e in std::fs::read_dir(&dir).unwrap().flatten() {
        let n = std::fs::read_dir(e.path())
            .unwrap()
            .flatten()
            .filter(|f| f.file_name().to_string_lossy().starts_with("test"))
            .filter(|f| text.contains(&*f.path().file_name().unwrap().to_string_lossy()))
            .count();
        per_class.push((e.file_name().to_string_lossy().into_owned(), n));
    }
    let total: usize = per_class.iter().map(|(_, n)| n).sum();
    assert!(total >= 400, "{total} reproduced: {per_class:?}");
    for class in [
        "druid", "hunter", "mage", "neutral", "paladin", "priest", "rogue", "shaman", "warlock",
        "warrior",
    ] {
        assert!(
            per_class.iter().any(|(c, n)| c == class && *n > 0),
            "no `{class}` card test passed: {per_class:?}"
        );
    }
}

/// The 455 cards in random decks: seeded AI-vs-AI games on the arena rules finish with no
/// error (the note reports 1,000 games in release; a test run plays a sample).
#[test]
fn seeded_games_with_hearthbreaker_decks_finish_without_errors() {
    ensure_built();
    corpus();
    let (ok, out, err) = tessera(&[
        "run",
        "--server",
        "hearthbreaker.toml",
        "--games",
        "24",
        "--seed",
        "500",
        "--quiet",
        "--agents",
        "random,random",
    ]);
    let text = out + &err;
    assert!(ok, "{text}");
    let summary = text
        .lines()
        .find(|l| l.starts_with("24 games in"))
        .unwrap_or_else(|| panic!("no summary line: {text}"));
    assert!(summary.ends_with("errors 0"), "{summary}");
}

/// A name the vocabulary does not define is an error located at the card that uses it, in
/// Hearthbreaker's own file (the loader reports where each card is).
#[test]
fn an_unknown_name_is_an_error_at_the_cards_line() {
    ensure_built();
    let corpus = corpus().canonicalize().unwrap();
    let tmp = tempfile::tempdir().expect("a temporary folder");
    let root = tmp.path().to_path_buf();
    for m in ["arena", "hearthbreaker"] {
        crate::plugin_build::copy_tree(&repo().join("mods").join(m), &root.join(m));
    }
    // Point the copy at the corpus where it lies, and take `kill` out of the vocabulary.
    let manifest = root.join("hearthbreaker/mod.toml");
    let text = std::fs::read_to_string(&manifest).unwrap().replace(
        "../../../shared/corpora/hearthbreaker/card_defs.json",
        &corpus.display().to_string(),
    );
    std::fs::write(&manifest, text).unwrap();
    let actions = root.join("hearthbreaker/content/actions_characters.toml");
    let text = std::fs::read_to_string(&actions)
        .unwrap()
        .replace("[action.kill]", "[action.kill_renamed]");
    std::fs::write(&actions, text).unwrap();
    let server = ServerConfig::load(&repo().join("hearthbreaker.toml")).unwrap();
    let loaded = load(
        std::slice::from_ref(&root),
        Some(&server),
        Arc::new(Registry::with_core()),
    );
    let d = loaded
        .diagnostics
        .0
        .iter()
        .find(|d| {
            let s = d.to_string();
            d.is_error() && s.contains("hearthbreaker:action/kill") && s.contains("card_defs.json")
        })
        .unwrap_or_else(|| panic!("no error about `kill`: {:?}", loaded.diagnostics));
    let shown = d.to_string();
    assert!(
        shown.contains("card_defs.json:"),
        "located in the corpus file: {shown}"
    );
    // The error points at the first line of a card (`{`) whose definition uses `kill`.
    let text = std::fs::read_to_string(&corpus).unwrap();
    let at = shown
        .split("card_defs.json:")
        .nth(1)
        .and_then(|r| r.split(':').next())
        .and_then(|n| n.parse::<usize>().ok())
        .unwrap_or_else(|| panic!("a line number: {shown}"));
    let lines: Vec<&str> = text.lines().collect();
    let first = lines[at - 1];
    assert_eq!(first.trim(), "{", "the card's first line: {shown}");
    let indent = &first[..first.len() - first.trim_start().len()];
    let card: Vec<&str> = lines[at..]
        .iter()
        .take_while(|l| !l.starts_with(&format!("{indent}}}")))
        .copied()
        .collect();
    assert!(
        card.iter().any(|l| l.contains("\"kill\"")),
        "the card at line {at} uses `kill`: {shown}"
    );
}
