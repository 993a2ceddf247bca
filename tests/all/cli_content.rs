//! What `check` and `replay` say about content and mods (issue 21): undeclared property
//! keys are warnings with a did-you-mean, and a replay with other mods names each mod
//! that differs.

use std::path::Path;
use std::process::Command;

use tessera_host::mods::hash_mod_dir;

use crate::mods_fixture::Tree;
use crate::plugin_build::{ensure_built, repo};

fn tessera(dir: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_tessera"));
    c.current_dir(dir)
        .env_remove("RUST_LOG")
        .env("NO_COLOR", "1");
    c
}

/// Issue 21, defect 4 (first half): a misspelled property (`atack = 5`) passed `check`
/// with 0 errors and 0 warnings. When the rules mod declares its properties, it is a
/// warning at the key's line, with a did-you-mean.
#[test]
fn a_misspelled_property_is_a_warning_with_a_did_you_mean() {
    let t = Tree::new("undeclared");
    t.add("rules", "1.0.0", "");
    t.write(
        "rules",
        "content/properties.toml",
        "[properties]\nattack = \"damage dealt in combat\"\ncost = \"mana to play it\"\n",
    );
    t.add("cards", "1.0.0", "[dependencies]\nrules = \"^1\"\n");
    t.write(
        "cards",
        "content/ogre.toml",
        "[class.ogre]\nproperties = { cost = 3, atack = 5, max_health = 6 }\n",
    );
    // A mod that does not depend on the rules mod is not held to its declarations.
    t.add("other", "1.0.0", "");
    t.write(
        "other",
        "content/x.toml",
        "[class.x]\nproperties = { speed = 1 }\n",
    );
    let out = tessera(&t.root).arg("check").output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "warnings do not fail check: {stdout}\n{stderr}"
    );
    assert!(stdout.contains("0 errors, 1 warning"), "{stdout}");
    assert!(
        stderr.contains("warning[W-CONTENT-UNDECLARED-PROPERTY]: class `cards:class/ogre` sets property `atack`, which no loaded mod declares"),
        "{stderr}"
    );
    assert!(
        stderr.contains("mods/cards/content/ogre.toml:2:"),
        "{stderr}"
    );
    assert!(stderr.contains("help: did you mean `attack`?"), "{stderr}");
    assert!(
        !stderr.contains("`speed`") && !stderr.contains("`cards_thing`"),
        "{stderr}"
    );
    // Declared, it is quiet.
    t.write(
        "cards",
        "content/ogre.toml",
        "[properties]\natack = \"a house rule\"\n[class.ogre]\nproperties = { atack = 5 }\n",
    );
    let out = tessera(&t.root)
        .args(["check", "--update-lock"])
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("0 errors, 0 warnings"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The repository's rules mod declares its properties, so the README tutorial's card
/// with `atack = 5` (beside arena's own cards and Hearthbreaker's) gets the warning.
#[test]
fn the_tutorials_misspelled_card_is_caught_against_arena() {
    let t = Tree::new("undeclared-arena");
    crate::plugin_build::copy_tree(&repo().join("mods/arena"), &t.mods().join("arena"));
    t.add("my-cards", "0.1.0", "[dependencies]\narena = \"^1.0\"\n");
    t.write(
        "my-cards",
        "content/cards.toml",
        "[class.river_giant]\nproperties = { cost = 2, atack = 5, max_health = 4 }\ntags = [\"card\", \"minion\"]\n",
    );
    let out = tessera(&t.root).arg("check").output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("sets property `atack`") && stderr.contains("did you mean `attack`?"),
        "{stderr}"
    );
    assert!(
        !stderr.contains("`cost`") && !stderr.contains("`my-cards_thing`"),
        "{stderr}"
    );
}

/// Issue 21, defect 12: `replay` with different mods did not say which mod differs.
#[test]
fn replay_with_other_mods_names_each_mod_that_differs() {
    ensure_built();
    let tmp = tempfile::tempdir().expect("a temporary folder");
    let dir = tmp.path().to_path_buf();
    let rec = dir.join("game.json");
    let out = tessera(&repo())
        .args(["run", "--seed", "5", "--quiet", "--record"])
        .arg(&rec)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // The same game under another server file: other mods are loaded.
    let out = tessera(&repo())
        .arg("replay")
        .arg(&rec)
        .args(["--server", "hearthbreaker.toml"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("the mods differ from the recording"),
        "{stderr}"
    );
    let hb = hash_mod_dir(&repo().join("mods/hearthbreaker")).unwrap();
    assert!(
        stderr.contains(&format!(
            "mod `hearthbreaker` 0.1.0 ({hb}) is loaded now but was not then"
        )),
        "{stderr}"
    );
    let classic = hash_mod_dir(&repo().join("mods/arena-classic")).unwrap();
    assert!(
        stderr.contains(&format!(
            "mod `arena-classic` 1.0.0 ({classic}) is not loaded now"
        )),
        "{stderr}"
    );

    // A mod whose files changed: its id, version and both hashes.
    let text = std::fs::read_to_string(&rec).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let arena = v["mods"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|m| m["id"] == "arena")
        .expect("arena is recorded");
    let recorded = format!("sha256:{}", "ab".repeat(32));
    arena["hash"] = serde_json::Value::String(recorded.clone());
    let version = arena["version"].as_str().unwrap().to_owned();
    std::fs::write(&rec, v.to_string()).unwrap();
    let out = tessera(&repo()).arg("replay").arg(&rec).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let loaded = hash_mod_dir(&repo().join("mods/arena")).unwrap();
    assert!(
        stderr.contains(&format!(
            "mod `arena` {version} has changed on disk since the recording (recorded {recorded}, loaded {loaded})"
        )),
        "{stderr}"
    );
    assert!(
        !stderr.contains("arena-classic"),
        "only arena differs: {stderr}"
    );
}
