//! Snapshots of what the `tessera` commands print for `check`, `test`, `replay` and
//! `explain --scenario`
//! (`mods`, `explain` and `run --seed` are in `cli.rs`). Update them with
//! `SNAPSHOTS=overwrite cargo test --test all cli_snapshots`; temporary folders are
//! redacted to `[ROOT]`.

use snapbox::str;

use crate::cli::tessera;
use crate::mods_fixture::Tree;
use crate::plugin_build::{ensure_built, repo};

/// A mod with one class and two scenarios: one holds, one expects the wrong value.
fn scenario_tree() -> Tree {
    let t = Tree::new("cli-snap-test");
    t.add("m", "1.0.0", "");
    t.write(
        "m",
        "tests/attack_adds_up.toml",
        r#"[scenario]
name = "adding to attack adds up"

[[object]]
name = "u"
class = "m:class/m_thing"
zone = "board"

[[step]]
do = [{ type = "add", key = "attack", amount = 2 }]
targets = ["u"]
expect = { "u.attack" = 3 }
"#,
    );
    t.write(
        "m",
        "tests/attack_expected_wrong.toml",
        r#"[scenario]
name = "a wrong expectation is reported with the step and the value"

[[object]]
name = "u"
class = "m:class/m_thing"
zone = "board"

[[step]]
name = "add two"
do = [{ type = "add", key = "attack", amount = 2 }]
targets = ["u"]
expect = { "u.attack" = 4 }
"#,
    );
    t
}

#[test]
fn check_at_the_repository_root_summarises_the_loaded_mods() {
    ensure_built();
    tessera(&repo(), &repo())
        .arg("check")
        .assert()
        .success()
        .stdout_eq(str![[r#"
checked 8 mods: 4 loaded (arena 2 classes, arena-classic 57 classes, arena-plus 10 classes, original 2 classes), 4 disabled; 0 errors, 0 warnings

"#]]);
}

#[test]
fn test_reports_each_scenario_and_the_failing_step() {
    let t = scenario_tree();
    tessera(&t.root, &t.root)
        .args(["test", "--mods", "mods"])
        .assert()
        .failure()
        .stdout_eq(str![[r#"
ok     adding to attack adds up (mods/m/tests/attack_adds_up.toml)
FAILED a wrong expectation is reported with the step and the value (mods/m/tests/attack_expected_wrong.toml)
         mods/m/tests/attack_expected_wrong.toml: step 1 (add two): expected u.attack = 4, found 3
1 passed, 1 failed

"#]]);
}

#[test]
fn replay_of_a_recorded_game_reports_the_matching_checksum() {
    ensure_built();
    let t = Tree::new("cli-snap-replay");
    let rec = t.root.join("game.json");
    tessera(&repo(), &t.root)
        .args(["run", "--seed", "42", "--quiet", "--record"])
        .arg(&rec)
        .assert()
        .success();
    tessera(&repo(), &t.root)
        .arg("replay")
        .arg(&rec)
        .arg("--quiet")
        .assert()
        .success()
        .stdout_eq(str![[r#"
replayed [ROOT]/game.json: Player 2 wins after 21 turns; checksum 759a6a5d4d15deee matches

"#]]);
}

#[test]
fn explain_with_a_scenario_lists_each_change_of_the_last_effect_pass() {
    let scenario = repo().join("tests/scenarios/effect_pass_priorities_stacking.toml");
    let t = Tree::new("cli-snap-explain");
    tessera(&repo(), &t.root)
        .args(["explain", "colony.output", "--step", "1", "--scenario"])
        .arg(&scenario)
        .assert()
        .success()
        .stdout_eq(str![[r#"
colony.output = 5 (after step 1 of [..]effect_pass_priorities_stacking.toml)
  workshop: 0 -> 2 (+2) from workshop
  doubler: 2 -> 4 (+2) from doubler
  bonus: 4 -> 5 (+1) from bonus

"#]]);
    tessera(&repo(), &t.root)
        .args(["explain", "colony", "--scenario"])
        .arg(&scenario)
        .assert()
        .failure()
        .stderr_eq(str![[r#"
error: `colony` is not `object.property` (e.g. `capital.target_industry`)

"#]]);
}
