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

/// A copy of the mtg rules mod whose Forge loader reads three scripts written here: one
/// it translates, two using constructs the rules lack (shroud; a second {X}: one X is read).
fn forge_cards_tree() -> Tree {
    let t = Tree::new("cli-snap-forge");
    let mtg = repo().join("mods/mtg");
    // Every rules file (they refer to each other's events and refs) and the locale.
    let mut files: Vec<String> = std::fs::read_dir(mtg.join("content"))
        .expect("the mtg mod's content folder")
        .map(|e| {
            format!(
                "content/{}",
                e.expect("entry").file_name().to_string_lossy()
            )
        })
        .filter(|f| f.ends_with(".toml"))
        .collect();
    files.push("locale/en.toml".into());
    for rel in &files {
        let text = std::fs::read_to_string(mtg.join(rel)).expect("the mtg mod's file");
        t.write("mtg", rel, &text);
    }
    let wasm = t.mods().join("mtg/plugins/forge.wasm");
    std::fs::create_dir_all(wasm.parent().expect("parent")).expect("mkdir");
    std::fs::copy(mtg.join("plugins/forge.wasm"), &wasm).expect("copy forge.wasm");
    t.write(
        "mtg",
        "mod.toml",
        r#"[mod]
id = "mtg"
version = "0.1.0"
api = "0.1"

[content]
paths = ["content", "cardsfolder"]
loaders = { "cardsfolder/**/*.txt" = "cards" }

[locale]
dir = "locale"
default = "en"

[[plugin]]
file = "plugins/forge.wasm"
provides = ["loader/cards"]
"#,
    );
    t.write(
        "mtg",
        "cardsfolder/b/bear.txt",
        "Name:Bear\nManaCost:1 G\nTypes:Creature Bear\nPT:2/2\n",
    );
    t.write(
        "mtg",
        "cardsfolder/o/odd_sprite.txt",
        "Name:Odd Sprite\nManaCost:U\nTypes:Creature Faerie\nPT:1/1\nK:Shroud\n",
    );
    t.write(
        "mtg",
        "cardsfolder/o/odd_wizard.txt",
        "Name:Odd Wizard\nManaCost:X X R\nTypes:Legendary Creature Wizard\nPT:1/1\nK:Shroud\n",
    );
    t
}

#[test]
fn check_format_json_lists_every_diagnostic_and_a_histogram_of_unsupported_constructs() {
    ensure_built();
    let t = forge_cards_tree();
    tessera(&t.root, &t.root)
        .args(["check", "--mods", "mods", "--format", "json"])
        .assert()
        .success()
        .stdout_eq(str![[r#"
{
  "loaded": [
    "mtg"
  ],
  "disabled": [],
  "errors": 0,
  "warnings": 3,
  "diagnostics": [
    {
      "code": "W-CONTENT-LOADER",
      "severity": "warning",
      "message": "`K:Shroud` is not supported yet: `odd_sprite` loads tagged `untranslated` and decks leave it out",
      "mod": "mtg",
      "file": "mods/mtg/cardsfolder/o/odd_sprite.txt",
      "line": 5,
      "column": 1,
      "label": null,
      "notes": [],
      "help": [],
      "more": 0,
      "construct": "K:Shroud"
    },
    {
      "code": "W-CONTENT-LOADER",
      "severity": "warning",
      "message": "`K:Shroud` is not supported yet: `odd_wizard` loads tagged `untranslated` and decks leave it out",
      "mod": "mtg",
      "file": "mods/mtg/cardsfolder/o/odd_wizard.txt",
      "line": 5,
      "column": 1,
      "label": null,
      "notes": [],
      "help": [],
      "more": 0,
      "construct": "K:Shroud"
    },
    {
      "code": "W-CONTENT-LOADER",
      "severity": "warning",
      "message": "`mana symbol {X}` is not supported yet: `odd_wizard` loads tagged `untranslated` and decks leave it out",
      "mod": "mtg",
      "file": "mods/mtg/cardsfolder/o/odd_wizard.txt",
      "line": 2,
      "column": 1,
      "label": null,
      "notes": [],
      "help": [],
      "more": 0,
      "construct": "mana symbol {X}"
    }
  ],
  "unsupported": {
    "histogram": [
      {
        "construct": "K:Shroud",
        "count": 2
      },
      {
        "construct": "mana symbol {X}",
        "count": 1
      }
    ],
    "files": [
      {
        "file": "mods/mtg/cardsfolder/o/odd_sprite.txt",
        "constructs": [
          "K:Shroud"
        ]
      },
      {
        "file": "mods/mtg/cardsfolder/o/odd_wizard.txt",
        "constructs": [
          "K:Shroud",
          "mana symbol {X}"
        ]
      }
    ]
  }
}

"#]]);
}
