//! The whole Firemox corpus (`../shared/corpora/firemox`, read where it lies, never
//! copied): every one of the 6,620 card files decodes, parses and has its references
//! expanded, each failure reported as file:line and the element; the time it takes is
//! printed (run with `--release -- --nocapture` for the figure the issue asks for).

use std::path::PathBuf;
use std::time::Instant;

use firemox_xml::{decode, parse_card, Fragments};

fn corpus() -> PathBuf {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpora/firemox");
    assert!(p.join("cards").is_dir(), "the Firemox corpus is read from {} (the `shared` folder beside the checkout); it is missing", p.display());
    p
}

fn fragments(root: &std::path::Path) -> Fragments {
    let read = |name: &str| {
        let bytes = std::fs::read(root.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        decode(&bytes)
            .unwrap_or_else(|e| panic!("{name}: {e}"))
            .text
    };
    Fragments::load(
        "fragment-references.xml",
        &read("fragment-references.xml"),
        "fragment-aliases.xml",
        &read("fragment-aliases.xml"),
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn every_card_file_parses_with_its_references_expanded() {
    let root = corpus();
    let start = Instant::now();
    let f = fragments(&root);
    let mut files: Vec<PathBuf> = std::fs::read_dir(root.join("cards"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    files.sort();
    let (mut ok, mut failures, mut warnings, mut abilities) = (0, Vec::new(), 0, 0);
    for p in &files {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("?");
        let bytes = std::fs::read(p).unwrap();
        match parse_card(name, &bytes, &f) {
            Ok(c) => {
                ok += 1;
                warnings += c.warnings.len();
                abilities += c.abilities.len();
            }
            Err(e) => failures.push(e.to_string()),
        }
    }
    let took = start.elapsed();
    println!("{ok}/{} card files parsed in {took:.2?} ({abilities} abilities, {warnings} unknown alias words)", files.len());
    assert_eq!(files.len(), 6620, "the corpus has 6,620 card files");
    assert!(
        failures.is_empty(),
        "{} failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(
        abilities >= files.len(),
        "every card has at least its cast ability"
    );
}

/// References are expanded as the Firemox compiler does: the MACRO value reaches the
/// referenced action, the test is ANDed, `<macro>` nodes take their default.
#[test]
fn corpus_references_expand_with_their_parameters() {
    let root = corpus();
    let f = fragments(&root);
    let card = |name: &str| {
        let bytes = std::fs::read(root.join("cards").join(name)).unwrap();
        parse_card(name, &bytes, &f).unwrap_or_else(|e| panic!("{e}"))
    };
    let bears = card("Grizzly_Bears.xml");
    assert_eq!(
        (
            bears.register("power"),
            bears.register("toughness"),
            bears.register("green"),
            bears.register("colorless")
        ),
        (Some(2), Some(2), Some(1), Some(1))
    );
    assert_eq!(bears.abilities[0].name, "activated-ability");
    assert_eq!(bears.abilities[0].from_ref.as_deref(), Some("cast-spell"));
    let bolt = card("Lightning_Bolt.xml");
    let cost = bolt.abilities[0].child("cost").unwrap();
    let target = cost
        .children
        .iter()
        .find(|c| c.from_ref.as_deref() == Some("target-dealtable"))
        .expect("target-dealtable expanded");
    assert_eq!(target.name, "target");
    let angel = card("Serra_Angel.xml");
    assert!(angel.has("flying") && angel.has("vigilance") && angel.is("creature"));
    // A MACRO test: `<action ref="target-creature"><test>...</test></action>` ANDs the given test.
    let with_test = files_with(&root, "<action ref=\"target-creature\">")
        .into_iter()
        .next()
        .expect("a card using a target-creature test");
    let c = card(&with_test);
    let text = format!("{:?}", c.abilities);
    assert!(!text.contains("ref\""), "no reference is left: {with_test}");
}

fn files_with(root: &std::path::Path, needle: &str) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(root.join("cards"))
        .unwrap()
        .flatten()
        .filter(|e| {
            std::fs::read(e.path()).is_ok_and(|b| String::from_utf8_lossy(&b).contains(needle))
        })
        .filter_map(|e| e.file_name().to_str().map(str::to_owned))
        .collect();
    v.sort();
    v
}
