//! Forge's own card scripts (`../shared/corpora/forge/cardsfolder`, read in place, never
//! copied): at least 99% parse without errors, and each failure is reported as
//! `file:line` with its code.

use std::path::{Path, PathBuf};

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpora/forge/cardsfolder")
}

fn scripts(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e} (the corpus lives in ../shared)", dir.display()))
        .map(|e| e.expect("dir entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            scripts(&p, out);
        } else if p.extension().is_some_and(|e| e == "txt") {
            out.push(p);
        }
    }
}

#[test]
fn at_least_99_percent_of_the_corpus_parses() {
    let mut files = Vec::new();
    scripts(&corpus(), &mut files);
    assert_eq!(files.len(), 277, "the corpus has 277 scripts");
    let (mut ok, mut faces, mut failures) = (0, 0, Vec::new());
    for f in &files {
        let text = std::fs::read_to_string(f).expect("UTF-8 script");
        let s = forge_script::parse(&text);
        faces += s.faces.len();
        if s.is_ok() {
            ok += 1;
        } else {
            for d in &s.diagnostics {
                failures.push(format!("{}:{}: {d}", f.display(), d.line));
            }
        }
    }
    assert_eq!(faces, 288, "277 scripts hold 288 faces");
    assert!(
        ok * 100 >= files.len() * 99,
        "{ok}/{} parse; failures:\n{}",
        files.len(),
        failures.join("\n")
    );
    eprintln!("{ok}/{} scripts parse, {faces} faces", files.len());
    for f in &failures {
        eprintln!("{f}");
    }
}

#[test]
fn the_scripts_the_scenarios_need_read_as_forge_means_them() {
    let read = |name: &str| {
        let mut files = Vec::new();
        scripts(&corpus(), &mut files);
        let f = files
            .iter()
            .find(|p| p.file_name().is_some_and(|n| n == name))
            .unwrap_or_else(|| panic!("{name} in the corpus"));
        forge_script::parse(&std::fs::read_to_string(f).unwrap())
    };
    let bolt = read("lightning_bolt.txt");
    let a = &bolt.faces[0].abilities[0];
    assert_eq!(a.kind, forge_script::AbilityKind::Spell);
    assert_eq!(a.api.as_deref(), Some("DealDamage"));
    assert_eq!(a.params.get("NumDmg"), Some("3"));

    let angel = read("serra_angel.txt");
    let kw: Vec<&str> = angel.faces[0]
        .keywords
        .iter()
        .map(|k| k.name.as_str())
        .collect();
    assert_eq!(kw, ["Flying", "Vigilance"]);
    assert_eq!(angel.faces[0].pt, Some(("4".into(), "4".into())));

    let humility = read("humility.txt");
    let s = &humility.faces[0].statics[0];
    assert_eq!(s.api.as_deref(), Some("Continuous"));
    assert_eq!(s.params.get("RemoveAllAbilities"), Some("True"));

    let giant = read("bonecrusher_giant_stomp.txt");
    assert_eq!(giant.faces.len(), 2);
    assert_eq!(giant.faces[1].name, "Stomp");
    let sub = giant.faces[1]
        .svar("DBDamage")
        .and_then(|s| s.ability.as_ref());
    assert_eq!(sub.and_then(|a| a.api.as_deref()), Some("DealDamage"));
}
