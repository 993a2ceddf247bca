//! Magic: the Gathering (`mods/mtg`) with Forge's card scripts: every script of the corpus
//! (`../shared/corpora/forge/cardsfolder`, read where it lies, never copied) becomes a class
//! through the `forge` loader plugin — playable ones tagged `deck_card`, the others tagged
//! `untranslated` with what they lack — and the rules' scenarios and seeded games pass.

use std::path::{Path, PathBuf};

use tessera_host::{Sym, Value};

use crate::plugin_build::{class_stats, ensure_built, repo, tessera_at_root as tessera};

/// The corpus folder; a clear failure when the folder beside the checkout is missing.
fn cardsfolder() -> PathBuf {
    let p = repo().join("../shared/corpora/forge/cardsfolder");
    assert!(
        p.is_dir(),
        "Forge's card scripts are read from {} (the `shared` folder beside the checkout); it is missing",
        p.display()
    );
    p
}

fn scripts(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| {
            let p = e.path();
            if p.is_dir() {
                scripts(&p)
            } else {
                usize::from(p.extension().is_some_and(|x| x == "txt"))
            }
        })
        .sum()
}

#[test]
fn every_forge_script_becomes_a_class_and_the_untranslated_ones_say_why() {
    ensure_built();
    let files = scripts(&cardsfolder());
    let loaded = crate::plugin_build::load_server_without_errors("mtg.toml");
    let gen = loaded.generation.expect("a generation");
    let prop = |c: &tessera_host::rules::ClassDef, k: &str| {
        c.props
            .iter()
            .find(|(key, _)| *key == Sym::new(k))
            .map(|(_, v)| v.clone())
    };
    let cards: Vec<_> = gen
        .classes
        .values()
        .filter(|c| {
            c.id.namespace() == "mtg"
                && prop(c, "title").is_some()
                && !c.tags.contains(&Sym::new("ability"))
                && !c.tags.contains(&Sym::new("token"))
                && !c.tags.contains(&Sym::new("emblem"))
        })
        .collect();
    assert_eq!(
        cards.len(),
        files,
        "one class per card script, none dropped"
    );
    let (mut playable, mut left_out) = (0, 0);
    for c in &cards {
        let deck = c.tags.contains(&Sym::new("deck_card"));
        let untranslated = c.tags.contains(&Sym::new("untranslated"));
        assert!(
            deck != untranslated,
            "`{}`: exactly one of deck_card / untranslated",
            c.id
        );
        if untranslated {
            left_out += 1;
            assert!(
                matches!(prop(c, "missing"), Some(Value::Text(t)) if !t.is_empty()),
                "`{}` is left out without saying why",
                c.id
            );
        } else {
            playable += 1;
        }
    }
    assert!(playable >= 191, "{playable} playable cards");
    assert_eq!(playable + left_out, files);
    // A card, field by field: Serra Angel is 4/4 (`power`, `max_health`) for 3 W W.
    let angel = gen
        .class(tessera_host::Id::parse("mtg:class/serra_angel").unwrap())
        .unwrap();
    assert_eq!(prop(angel, "power").and_then(|v| v.as_f64()), Some(4.0));
    assert_eq!(class_stats(&gen, "mtg:class/serra_angel").2, Some(4.0));
    assert_eq!(prop(angel, "cost_w").and_then(|v| v.as_f64()), Some(2.0));
    for t in ["flying", "vigilance", "white", "deck_card"] {
        assert!(angel.tags.contains(&Sym::new(t)), "serra_angel lacks `{t}`");
    }
}

/// Checks a `tessera check --format json` report of a server that loads the mtg mod: no
/// error, and every warning is a card loader's (Forge's scripts, Firemox's XML) about a
/// construct a card uses that the rules lack (`W-CONTENT-LOADER` with a `construct`, at a
/// line of the card's file), each counted in the histogram. Returns the report.
pub fn only_unsupported_card_constructs(json: &str) -> serde_json::Value {
    // The JSON document comes first (stdout), anything on stderr after it.
    let doc: serde_json::Value = serde_json::Deserializer::from_str(json)
        .into_iter()
        .next()
        .and_then(Result::ok)
        .unwrap_or_else(|| panic!("`check --format json` printed no JSON: {json}"));
    assert_eq!(doc["errors"], 0, "{json}");
    let diags = doc["diagnostics"].as_array().expect("diagnostics");
    for d in diags {
        let file = d["file"].as_str().unwrap_or("");
        assert!(
            d["code"] == "W-CONTENT-LOADER"
                && d["construct"].is_string()
                && d["line"].as_u64().is_some_and(|l| l >= 1)
                && ((file.contains("cardsfolder/") && file.ends_with(".txt"))
                    || (file.contains("firemox/cards/") && file.ends_with(".xml"))),
            "not an unsupported construct of a card script: {d}"
        );
    }
    let counted: u64 = doc["unsupported"]["histogram"]
        .as_array()
        .expect("histogram")
        .iter()
        .map(|h| h["count"].as_u64().unwrap_or(0))
        .sum();
    assert_eq!(counted, doc["warnings"].as_u64().unwrap_or(0), "{json}");
    doc
}

/// `tessera check --server mtg.toml --format json`: no error; each card that does not run
/// is listed with the constructs it lacks, at their lines, with a histogram of them.
#[test]
fn tessera_check_lists_what_each_card_lacks() {
    ensure_built();
    cardsfolder();
    let _ = std::fs::remove_file(repo().join("target/mtg-check.lock"));
    let (ok, text) = tessera(&[
        "check",
        "--server",
        "mtg.toml",
        "--lock",
        "target/mtg-check.lock",
        "--format",
        "json",
    ]);
    assert!(ok, "{text}");
    let doc = only_unsupported_card_constructs(&text);
    let files = doc["unsupported"]["files"].as_array().expect("files");
    let lacks = |card: &str| {
        files
            .iter()
            .find(|f| {
                f["file"]
                    .as_str()
                    .is_some_and(|p| p.ends_with(&format!("/{card}.txt")))
            })
            .map(|f| f["constructs"].to_string())
    };
    assert_eq!(lacks("serra_angel"), None, "a playable card lacks nothing");
    assert_eq!(lacks("humility"), None);
    let zurgo = lacks("zurgo_helmsmasher").expect("Zurgo is not playable yet");
    assert!(zurgo.contains("S:Continuous with Condition$"), "{zurgo}");
    let files_total = scripts(&cardsfolder());
    assert!(
        files.len() < files_total && files.len() + 191 <= files_total,
        "{} of {files_total} scripts listed as not running",
        files.len()
    );
}

/// The rules' scenarios (`mods/mtg/tests`: Serra Angel, Giant Growth, Lightning Bolt and
/// Counterspell, combat keywords, state-based actions) pass.
#[test]
fn every_mtg_scenario_passes() {
    ensure_built();
    cardsfolder();
    let (ok, text) = tessera(&["test", "--server", "mtg.toml", "mods/mtg/tests"]);
    assert!(ok, "{text}");
    assert!(text.trim_end().ends_with(" passed, 0 failed"), "{text}");
    assert!(text.contains("Serra Angel"), "{text}");
}

/// Random decks from the translated cards: seeded AI-vs-AI games finish with no error (the
/// session note reports 1,000 games in release; a test run plays a sample).
#[test]
fn seeded_mtg_games_finish_without_errors() {
    ensure_built();
    cardsfolder();
    let (ok, text) = tessera(&[
        "run",
        "--server",
        "mtg.toml",
        "--games",
        "6",
        "--seed",
        "1",
        "--quiet",
        "--agents",
        "random,greedy",
    ]);
    assert!(ok, "{text}");
    let summary = text
        .lines()
        .find(|l| l.starts_with("6 games in"))
        .unwrap_or_else(|| panic!("no summary line: {text}"));
    assert!(summary.ends_with("errors 0"), "{summary}");
}
