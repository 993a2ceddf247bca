//! `tessera new mod|plugin` and `tessera test` (issue 21): a new user goes from nothing
//! to a passing test with the commands alone.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use snapbox::str;

use crate::cli::tessera;
use crate::plugin_build::{ensure_built, link_sdk, repo};

/// An empty scratch folder, removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("tessera-new-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("scratch folder");
        Scratch(dir)
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn new_mod_then_check_and_test_pass_in_under_a_minute() {
    let dir = Scratch::new("mod");
    let started = Instant::now();
    tessera(dir.path(), dir.path())
        .args(["new", "mod", "my-cards"])
        .assert()
        .success()
        .stdout_eq(str![[r#"
creating mod `my-cards` in mods/my-cards
    created mods/my-cards/mod.toml
    created mods/my-cards/content/example.toml
    created mods/my-cards/locale/en.toml
    created mods/my-cards/tests/example.toml
next: `tessera check` validates it, `tessera test` runs its tests

"#]]);
    tessera(dir.path(), dir.path())
        .arg("check")
        .assert()
        .success()
        .stdout_eq(str![[r#"
checked 1 mod: 1 loaded (my-cards 1 class), 0 disabled; 0 errors, 0 warnings

"#]])
        .stderr_eq(str![""]);
    tessera(dir.path(), dir.path())
        .arg("test")
        .assert()
        .success()
        .stdout_eq(str![[r#"
ok     an example unit hits the other units when it is created (mods/my-cards/tests/example.toml)
1 passed, 0 failed

"#]]);
    assert!(started.elapsed() < Duration::from_secs(60));
    // It never overwrites: a second `new mod` with the same name is refused.
    tessera(dir.path(), dir.path())
        .args(["new", "mod", "my-cards"])
        .assert()
        .code(2)
        .stderr_eq(str![[r#"
error: mods/my-cards/mod.toml already exists; `tessera new` never overwrites a file: choose another name or `--path`

"#]]);
    tessera(dir.path(), dir.path())
        .args(["new", "mod", "My Cards"])
        .assert()
        .code(2);
}

#[test]
fn new_plugin_is_declared_built_and_tested() {
    let dir = Scratch::new("plugin");
    link_sdk(dir.path());
    tessera(dir.path(), dir.path())
        .args(["new", "mod", "healers"])
        .assert()
        .success();
    tessera(dir.path(), dir.path())
        .args(["new", "plugin", "healers", "--mod", "mods/healers"])
        .env("CARGO_TARGET_DIR", repo().join("plugins/target"))
        .assert()
        .success();
    assert!(dir
        .path()
        .join("mods/healers/plugins/healers.wasm")
        .is_file());
    tessera(dir.path(), dir.path())
        .arg("check")
        .assert()
        .success()
        .stderr_eq(str![""]);
    tessera(dir.path(), dir.path())
        .arg("test")
        .assert()
        .success()
        .stdout_eq(str![[r#"
ok     an example unit hits the other units when it is created (mods/healers/tests/example.toml)
ok     an example medic heals only the wounded (mods/healers/tests/plugin_example.toml)
2 passed, 0 failed

"#]]);
}

#[test]
fn test_filter_runs_the_matching_scenarios_only() {
    let dir = Scratch::new("filter");
    tessera(dir.path(), dir.path())
        .args(["new", "mod", "a"])
        .assert()
        .success();
    std::fs::copy(
        dir.path().join("mods/a/tests/example.toml"),
        dir.path().join("mods/a/tests/second.toml"),
    )
    .unwrap();
    tessera(dir.path(), dir.path())
        .args(["test", "--filter", "second"])
        .assert()
        .success()
        .stdout_eq(str![[r#"
ok     an example unit hits the other units when it is created (mods/a/tests/second.toml)
1 passed, 0 failed

"#]]);
    tessera(dir.path(), dir.path())
        .args(["test", "--filter", "hits the other"])
        .assert()
        .success()
        .stdout_eq(str![[r#"
ok     an example unit hits the other units when it is created (mods/a/tests/example.toml)
ok     an example unit hits the other units when it is created (mods/a/tests/second.toml)
2 passed, 0 failed

"#]]);
    tessera(dir.path(), dir.path())
        .args(["test", "--filter", "nothing like it"])
        .assert()
        .code(2)
        .stderr_eq(str![[r#"
error: no scenario's name or file contains `nothing like it` (under mods/a/tests); `tessera test` without --filter lists them all

"#]]);
}

/// Issue 21, defect 18: `tessera test tests` at the repository root failed three
/// scenarios that `cargo test` passes, because `./server.toml` loaded the arena mods into
/// them. A scenario runs on its own content unless it is in a mod, plays a match, or
/// says `mods = "loaded"`.
#[test]
fn test_at_the_repository_root_runs_scenarios_as_cargo_test_does() {
    ensure_built();
    let out = tessera(&repo(), &repo())
        .args(["test", "tests"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8_lossy(&out);
    for name in [
        "action_damage_and_heal",
        "aura_reads_derived_health",
        "cascade_limit_stops_trigger_loop",
    ] {
        assert!(
            text.lines()
                .any(|l| l.starts_with("ok ") && l.contains(&format!("{name}.toml"))),
            "{text}"
        );
    }
    assert!(text.ends_with(" passed, 0 failed\n"), "{text}");
}

/// `tessera schema`: the content schema is generated from the registry, so the kinds a
/// loaded plugin adds are in it with their parameters; mod.toml's and server.toml's are
/// written beside it.
#[test]
fn schema_lists_plugin_kinds_and_writes_every_file_schema() {
    ensure_built();
    let out = tessera(&repo(), &repo())
        .args(["schema", "content", "--mods"])
        .arg(repo().join("examples/mods"))
        .arg("--server")
        .arg(repo().join("examples/server.toml"))
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let schema: serde_json::Value = serde_json::from_slice(&out).expect("JSON");
    let actions = schema["$defs"]["action"]["anyOf"]
        .as_array()
        .expect("actions");
    let chain = actions
        .iter()
        .find(|a| a["properties"]["type"]["enum"][0] == "tactics:action/chain_damage")
        .expect("the tactics plugin's action");
    assert!(
        chain["properties"].as_object().unwrap().len() > 1,
        "{chain}"
    );
    let dir = Scratch::new("schema");
    tessera(dir.path(), dir.path())
        .args(["schema", "--out", "schemas"])
        .assert()
        .success()
        .stdout_eq(str![[r#"
wrote schemas/content.schema.json
wrote schemas/mod.schema.json
wrote schemas/server.schema.json
point your editor at them: see the README's "Editor support" (a .taplo.toml for Even Better TOML)

"#]]);
    let manifest: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("schemas/mod.schema.json")).unwrap(),
    )
    .unwrap();
    assert!(manifest["properties"]["dependencies"].is_object());
}
