//! Translating FreeOrion's own content (`../shared/corpora/focs/default`, read in place)
//! with the freeorion mod's shim and game rules: every entry translates or says, at
//! file:line, which construct it lacks; the share that translates whole is measured; and
//! `LRN_ALGO_ELEGANCE`'s structure is checked to the letter.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use focs_script::translate::{translate, Rules, Translation};
use focs_script::{parse, preprocess, DirFiles};

mod common;
use common::{Corpus, WithShim};
use serde_json::json;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpora/focs/default")
}

fn mod_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../mods/freeorion/focs")
}

fn entries(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    paths.sort();
    for p in paths {
        if p.is_dir() {
            entries(&p, out);
        } else if p.to_string_lossy().ends_with(".focs.txt") {
            out.push(p);
        }
    }
}

fn translate_all() -> Vec<(String, Translation)> {
    let root = root();
    let shim = std::fs::read_to_string(mod_dir().join("shim.macros")).unwrap();
    let mut rules =
        Rules::parse(&std::fs::read_to_string(mod_dir().join("game_rules.txt")).unwrap()).unwrap();
    // FreeOrion's named values, as the loader reads them (`scripting/macros/*.focs.py`).
    let named = std::fs::read_to_string(root.join("scripting/macros/named_values.focs.py"));
    assert!(rules.add_named_values(&named.unwrap()) >= 2);
    let mut files = WithShim(Corpus(DirFiles::new(&root)), shim);
    let mut paths = Vec::new();
    entries(&root.join("scripting"), &mut paths);
    paths
        .iter()
        .map(|p| {
            let name = p
                .strip_prefix(&root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            let pre = preprocess(&name, &["shim.macros"], &mut files);
            let nodes = parse(&pre).unwrap_or_else(|d| panic!("{name}: {d}"));
            // Named values its folder's other entries define, as the loader reads them.
            let mut rules = rules.clone();
            for sibling in std::fs::read_dir(p.parent().unwrap()).unwrap() {
                let sibling = sibling.unwrap().path();
                if sibling != *p && sibling.to_string_lossy().ends_with(".focs.txt") {
                    rules.add_named_values(&String::from_utf8_lossy(
                        &std::fs::read(&sibling).unwrap(),
                    ));
                }
            }
            (name, translate(&pre, &nodes, &rules))
        })
        .collect()
}

#[test]
fn every_entry_translates_or_names_what_it_lacks_at_file_line() {
    let all = translate_all();
    assert_eq!(all.len(), 109);
    let whole = all.iter().filter(|(_, t)| t.unsupported.is_empty()).count();
    let mut histogram: BTreeMap<String, usize> = BTreeMap::new();
    for (name, t) in &all {
        assert!(
            !t.classes.is_empty() || !t.unsupported.is_empty(),
            "{name} gave nothing"
        );
        for u in &t.unsupported {
            assert!(
                u.line > 0 && !u.file.is_empty(),
                "{name}: {u} has no file:line"
            );
            assert!(u.to_string().starts_with("FOCS-UNSUPPORTED: "), "{u}");
            *histogram.entry(u.construct.clone()).or_default() += 1;
        }
    }
    for (name, t) in &all {
        if !t.unsupported.is_empty() {
            let mut set: Vec<_> = t.unsupported.iter().map(|u| u.construct.clone()).collect();
            set.sort();
            set.dedup();
            println!("{name} lacks {}", set.join(" | "));
        }
    }
    let mut by_count: Vec<_> = histogram.into_iter().collect();
    by_count.sort_by_key(|c| std::cmp::Reverse(c.1));
    let top: Vec<String> = by_count
        .iter()
        .take(40)
        .map(|(c, n)| format!("{n:4} {c}"))
        .collect();
    println!(
        "{whole}/109 entries translate whole; constructs left out:\n{}",
        top.join("\n")
    );
    // Measured when the translation was last extended (104 of 109; 86 before): see the
    // freeorion mod's README.
    assert!(whole >= 104, "{whole}/109 translate whole");
}

#[test]
fn algo_elegance_has_the_structure_freeorion_gives_it() {
    let all = translate_all();
    let (_, t) = all
        .iter()
        .find(|(n, _)| n.ends_with("learning/ALGO_ELEGANCE.focs.txt"))
        .unwrap();
    assert!(t.unsupported.is_empty(), "{:?}", t.unsupported);
    let class = &t.tree["class"]["lrn_algo_elegance"];
    // researchcost = 12 * TECH_COST_MULTIPLIER (the game rule, 2.0), researchturns = 3.
    assert_eq!(class["properties"]["research_cost"], json!(24.0));
    assert_eq!(class["properties"]["research_turns"], json!(3.0));
    let groups = class["effects"].as_array().unwrap();
    assert_eq!(groups.len(), 1, "one effects group");
    let g = &groups[0];
    // Scope: ProductionCenter ∧ OwnedBy Source.Owner ∧ research focus.
    assert_eq!(
        g["scope"],
        json!({ "type": "objects", "zone": "universe", "tag": "planet", "owner": "friendly",
                "where": { "type": "is", "key": "focus", "value": ["FOCUS_RESEARCH"] } })
    );
    // EARLY_PRIORITY is 90 in the corpus' priorities.macros.
    assert_eq!(g["priority"], json!(90));
    assert_eq!(g["source"], json!("self.owner.capital"));
    assert_eq!(
        g["zones"],
        json!(["researched"]),
        "a tech acts once researched"
    );
    // Target research += population × 0.5 × RESEARCH_PER_POP (0.2).
    assert_eq!(
        g["effects"],
        json!([{ "key": "target_research", "value": "(value + ((target.population * 0.5) * 0.2))" }])
    );
}

#[test]
fn target_inside_a_meter_values_nested_condition_is_the_effects_target() {
    // buildings.macros: a species liking a building counts that building `Not InSystem
    // id = Target.SystemID` — outside the *target planet's* system. Read as the nested
    // candidate's own system, every building would be excluded and the count always 0.
    let all = translate_all();
    let mut seen = 0;
    for (name, t) in &all {
        let Some(classes) = t.tree["class"].as_object() else {
            continue;
        };
        for class in classes.values() {
            for g in class["effects"].as_array().into_iter().flatten() {
                if g["label"] != json!("LIKES_BUILDING_LABEL") {
                    continue;
                }
                let text = g["effects"].to_string();
                // Some entries like buildings by a flat amount; the counted form is the one.
                if !text.contains("count") {
                    continue;
                }
                assert!(
                    text.contains(r#""b":"effect_target.system""#),
                    "{name}: {text}"
                );
                assert!(!text.contains(r#""b":"target.system""#), "{name}: {text}");
                seen += 1;
            }
        }
    }
    assert!(seen > 0, "no building liked by species was translated");
}
