//! FreeOrion's own content (`../shared/corpora/focs/default`, read in place, never
//! copied): every `.focs.txt` entry preprocesses with its includes read and every macro it
//! uses expanded — except the names the corpus uses but never defines, which a mod
//! supplies in a shim. Those are listed here exactly, so a change in what the
//! preprocessor resolves shows up as a failure.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use focs_script::{preprocess, DirFiles, Files};

mod common;
use common::{Corpus, WithShim};

/// Macro files the entries include that the corpus did not save (SOURCES: "Other macro
/// files not included").
const NOT_SAVED: &[&str] = &[
    "scripting/common/upkeep.macros",
    "scripting/macros/advanced_focus.macros",
    "scripting/macros/multiplier.macros",
];

/// The names the corpus notes list as used but defined in none of its files.
const UNDEFINED_IN_CORPUS: &str = "BAD_WEAPONS BEFORE_ANYTHING_ELSE_PRIORITY CONCENTRATION_CAMP_PRIORITY EARLY_AFTER_ALL_TARGET_MAX_METERS_PRIORITY \
    GAS_GIANT_STEALTH_BONUS GOOD_DETECTION GOOD_STEALTH GREAT_DETECTION GREAT_STEALTH LARGE_PLANET \
    LATE_AFTER_ALL_TARGET_MAX_METERS_PRIORITY PLANETARY_DRIVE_ACTIVATION POPULATION_DEFAULT_PRIORITY \
    POPULATION_OVERRIDE_PRIORITY ROBOTIC_REPAIR STOCKPILE_PER_POP SYSTEM_MINES_SCOPE_ TARGET_2ND_SCALING_PRIORITY \
    TARGET_AFTER_2ND_SCALING_PRIORITY TARGET_AFTER_SCALING_PRIORITY TARGET_EARLY_BEFORE_SCALING_PRIORITY \
    TARGET_LAST_BEFORE_OVERRIDE_PRIORITY TARGET_LATE_AFTER_2ND_SCALING_PRIORITY TELEPATHIC_DETECTION \
    ULTIMATE_DETECTION ULTIMATE_STEALTH VERY_BAD_MULTIPLIER WEAPON_BASE_DEFAULT_EFFECTS XENOPHOBIC_OTHER XENOPHOBIC_SELF";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpora/focs/default")
}

/// Root-relative names of the `.focs.txt` files under `dir`, sorted.
fn entries(root: &Path, dir: &Path, out: &mut Vec<String>) {
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e} (the corpus lives in ../shared)", dir.display()))
        .map(|e| e.expect("dir entry").path())
        .collect();
    paths.sort();
    for p in paths {
        if p.is_dir() {
            entries(root, &p, out);
        } else if p.to_string_lossy().ends_with(".focs.txt") {
            let rel = p
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            out.push(rel);
        }
    }
}

/// Names the entries use that no saved file defines: the corpus notes' list (whose
/// `SYSTEM_MINES_SCOPE_` is a scan artefact of `[[SYSTEM_MINES_SCOPE_@3@]]`, which expands
/// to a defined name) and the three defined in the files it did not save.
fn expected_undefined() -> BTreeSet<String> {
    let mut names: BTreeSet<String> = UNDEFINED_IN_CORPUS
        .split_whitespace()
        .filter(|n| *n != "SYSTEM_MINES_SCOPE_")
        .map(str::to_owned)
        .collect();
    for n in [
        "BAD_MULTIPLIER",
        "FLEET_UPKEEP_MULTIPLICATOR",
        "SHIP_PART_COST_MULTIPLIER",
    ] {
        names.insert(n.to_owned());
    }
    names
}

/// Preprocesses every entry; returns the undefined names and every other problem
/// (includes of files the corpus did not save excepted).
fn run(
    names: &[String],
    files: &mut dyn Files,
    prelude: &[&str],
) -> (BTreeSet<String>, Vec<String>) {
    let mut undefined = BTreeSet::new();
    let mut other = Vec::new();
    for name in names {
        let p = preprocess(name, prelude, files);
        assert!(!p.text.trim().is_empty(), "{name} expands to nothing");
        assert_eq!(
            p.text.lines().count(),
            p.lines.len(),
            "{name}: one origin a line"
        );
        for d in &p.diagnostics {
            let not_saved = NOT_SAVED
                .iter()
                .any(|n| d.message.contains(&format!("`{n}`")));
            match d.code {
                "FOCS-MACRO-UNDEFINED" => {
                    undefined.insert(d.message.split('`').nth(1).unwrap_or_default().to_owned());
                }
                "FOCS-MACRO-REDEFINED" => {}
                "FOCS-INCLUDE" if not_saved => {}
                _ => other.push(d.to_string()),
            }
        }
    }
    (undefined, other)
}

#[test]
fn every_entry_preprocesses_and_only_the_names_the_corpus_lacks_are_undefined() {
    let root = root();
    let mut names = Vec::new();
    entries(&root, &root.join("scripting"), &mut names);
    assert_eq!(names.len(), 109, "the corpus has 109 .focs.txt entries");
    let (undefined, other) = run(&names, &mut Corpus(DirFiles::new(&root)), &[]);
    assert!(other.is_empty(), "{}", other.join("\n"));
    assert_eq!(undefined, expected_undefined());

    // With a shim defining those names, nothing is left undefined.
    let shim: String = expected_undefined()
        .iter()
        .map(|n| format!("{n}\n\'\'\'0\'\'\'\n"))
        .collect();
    let mut files = WithShim(Corpus(DirFiles::new(&root)), shim);
    let (undefined, other) = run(&names, &mut files, &["shim.macros"]);
    assert!(other.is_empty(), "{}", other.join("\n"));
    assert!(undefined.is_empty(), "{undefined:?}");
}

#[test]
fn an_expanded_line_points_at_the_entry_line_that_used_the_macro() {
    let root = root();
    let name = "scripting/techs/growth/SUBTER_HAB.focs.txt";
    let p = preprocess(name, &[], &mut Corpus(DirFiles::new(&root)));
    assert!(!p.has_errors(), "{:?}", p.diagnostics);
    let (i, line) = p
        .text
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains("researchcost"))
        .unwrap();
    // TECH_COST_MULTIPLIER is a GameRule lookup in the saved base_prod.macros.
    assert!(
        line.contains("12 * (GameRule name = \"RULE_TECH_COST_FACTOR\")"),
        "{line}"
    );
    let o = p.origin(i + 1).unwrap();
    assert_eq!(
        (&*o.file, o.line, o.via.as_deref()),
        (name, 6, Some("TECH_COST_MULTIPLIER"))
    );
}

#[test]
fn every_entry_parses_into_a_tree_with_the_labels_where_focs_puts_them() {
    let root = root();
    let mut names = Vec::new();
    entries(&root, &root.join("scripting"), &mut names);
    let shim: String = expected_undefined()
        .iter()
        .map(|n| format!("{n}\n'''0'''\n"))
        .collect();
    let mut files = WithShim(Corpus(DirFiles::new(&root)), shim);
    let mut failures = Vec::new();
    let mut groups = 0;
    for name in &names {
        let pre = preprocess(name, &["shim.macros"], &mut files);
        match focs_script::parse(&pre) {
            Ok(entries) => {
                assert!(!entries.is_empty(), "{name}: no entry");
                for e in &entries {
                    let named = e.get("name").is_some() || e.kind == "SpeciesCensusOrdering";
                    assert!(named, "{name}: an entry without a name");
                    groups += check_groups(e, name);
                }
            }
            Err(d) => failures.push(d.to_string()),
        }
    }
    println!(
        "{} of {} entries parse; {groups} effects groups",
        names.len() - failures.len(),
        names.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every effects group under `v` has `effects`, and no node but entries and effects
/// groups holds their labels; returns how many groups there are.
fn check_groups(n: &focs_script::Node, file: &str) -> usize {
    use focs_script::Value;
    fn walk(v: &Value, file: &str, count: &mut usize) {
        match v {
            Value::Node(n) => {
                if n.kind == "EffectsGroup" {
                    *count += 1;
                    assert!(
                        n.get("effects").is_some(),
                        "{file}:{}: a group without effects",
                        n.line
                    );
                } else {
                    for l in [
                        "scope",
                        "activation",
                        "effects",
                        "priority",
                        "stackinggroup",
                    ] {
                        // FOCS's `If condition = … effects = … else = …` has its own.
                        if n.kind == "If" && l == "effects" {
                            continue;
                        }
                        assert!(n.get(l).is_none(), "{file}: `{}` took `{l}`", n.kind);
                    }
                }
                n.params.iter().for_each(|(_, v)| walk(v, file, count));
                n.args.iter().for_each(|v| walk(v, file, count));
            }
            Value::List(items) | Value::Call(_, items) => {
                items.iter().for_each(|v| walk(v, file, count))
            }
            Value::Labelled(_, v) | Value::Neg(v) => walk(v, file, count),
            Value::Binary(_, a, b) => {
                walk(a, file, count);
                walk(b, file, count);
            }
            _ => {}
        }
    }
    let mut count = 0;
    n.params.iter().for_each(|(_, v)| walk(v, file, &mut count));
    count
}

#[test]
fn lrn_algo_elegance_reads_as_freeorion_defines_it() {
    use focs_script::Value::{self, Binary, List, Node as N, Num, Ref, Str};
    let root = root();
    let name = "scripting/techs/learning/ALGO_ELEGANCE.focs.txt";
    let pre = preprocess(name, &[], &mut Corpus(DirFiles::new(&root)));
    assert!(!pre.has_errors(), "{:?}", pre.diagnostics);
    let entries = focs_script::parse(&pre).unwrap();
    let [tech] = entries.as_slice() else {
        panic!("one entry: {entries:?}")
    };
    assert_eq!(tech.kind, "Tech");
    assert_eq!(tech.get("name"), Some(&Str("LRN_ALGO_ELEGANCE".into())));
    let node = |v: &Value| match v {
        N(n) => n.clone(),
        other => panic!("not a node: {other:?}"),
    };
    // researchcost = 12 * [[TECH_COST_MULTIPLIER]], a game rule in the saved macros.
    let Some(Binary("*", twelve, rule)) = tech.get("researchcost") else {
        panic!("{tech:?}")
    };
    assert_eq!(**twelve, Num(12.0));
    let rule = node(rule);
    assert_eq!(rule.kind, "GameRule");
    assert_eq!(rule.get("name"), Some(&Str("RULE_TECH_COST_FACTOR".into())));
    assert_eq!(tech.get("researchturns"), Some(&Num(3.0)));
    let Some(List(groups)) = tech.get("effectsgroups") else {
        panic!("{tech:?}")
    };
    let [group] = groups.as_slice() else {
        panic!("one effects group: {groups:?}")
    };
    let group = node(group);
    // scope = And [ ProductionCenter  OwnedBy empire = Source.Owner  Focus type = research ]
    let scope = node(group.get("scope").unwrap());
    assert_eq!(scope.kind, "And");
    let [List(conds)] = scope.args.as_slice() else {
        panic!("{scope:?}")
    };
    let conds: Vec<_> = conds.iter().map(node).collect();
    let kinds: Vec<&str> = conds.iter().map(|c| c.kind.as_str()).collect();
    assert_eq!(kinds, ["ProductionCenter", "OwnedBy", "Focus"]);
    let source_owner = Ref(vec!["Source".into(), "Owner".into()]);
    assert_eq!(conds[1].get("empire"), Some(&source_owner));
    assert_eq!(conds[2].get("type"), Some(&Str("FOCUS_RESEARCH".into())));
    // priority = [[EARLY_PRIORITY]] (90)
    assert_eq!(group.get("priority"), Some(&Num(90.0)));
    // effects = SetTargetResearch value = Value + Target.Population * 0.5 * [[RESEARCH_PER_POP]]
    let effect = node(group.get("effects").unwrap());
    assert_eq!(effect.kind, "SetTargetResearch");
    let Some(Binary("+", value, product)) = effect.get("value") else {
        panic!("{effect:?}")
    };
    assert_eq!(node(value).kind, "Value");
    let pop = Ref(vec!["Target".into(), "Population".into()]);
    let half = Binary("*", Box::new(pop), Box::new(Num(0.5)));
    assert_eq!(**product, Binary("*", Box::new(half), Box::new(Num(0.2))));
}
