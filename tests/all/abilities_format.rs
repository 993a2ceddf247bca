//! The ability schema as a content format: every rule of its "Rules & Conventions" is an
//! error at file:line (one failing fixture each, in `tests/fixtures/abilities`), TOML and
//! JSON load the same abilities, and bad node parameters are located errors.

use std::path::PathBuf;
use std::sync::Arc;

use tessera_host::mods::load;
use tessera_host::{ContentSource, Diagnostic, Diagnostics, Generation, Id, Registry, SourceText};

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/abilities")
}

fn build(name: &str, text: &str) -> Result<Generation, Diagnostics> {
    let src = ContentSource::new("original", SourceText::new(name, text));
    Generation::build(Arc::new(Registry::with_core()), &[src], 1)
}

/// Builds a fixture that must fail and returns the error with `code`.
fn error_in_fixture(file: &str, code: &str) -> Diagnostic {
    let path = fixtures().join(file);
    let text = std::fs::read_to_string(&path).expect("fixture");
    let d = build(path.to_str().unwrap(), &text).expect_err("the fixture must be rejected");
    d.0.iter()
        .find(|x| x.code == code)
        .cloned()
        .unwrap_or_else(|| panic!("no {code} in:\n{}", d.render(false)))
}

fn line(d: &Diagnostic) -> usize {
    d.location
        .as_ref()
        .and_then(|l| l.line_col())
        .map(|(l, _)| l)
        .unwrap_or_else(|| panic!("no line in:\n{}", d.render(false)))
}

#[test]
fn rule_1_an_ability_without_a_meta_node_is_refused() {
    let d = error_in_fixture("no_meta.json", "E-ABILITY-NO-META");
    assert!(
        d.message
            .contains("ability `original:fire/spark` has no `meta` node"),
        "{}",
        d.render(false)
    );
    assert_eq!(line(&d), 6, "points at `math`:\n{}", d.render(false));
    assert!(d.help.iter().any(|h| h.contains("\"type\": \"meta\"")));
    assert!(
        d.render(false).contains("no_meta.json:6"),
        "{}",
        d.render(false)
    );
}

#[test]
fn rule_2_node_ids_are_unique_within_an_ability() {
    let d = error_in_fixture("duplicate_node_id.toml", "E-ABILITY-NODE-ID");
    assert!(
        d.message.contains("node id `hit` is used twice") && d.message.contains("math[0]"),
        "{}",
        d.render(false)
    );
    assert_eq!(
        line(&d),
        12,
        "points at the second `id`:\n{}",
        d.render(false)
    );
}

#[test]
fn rule_3_display_names_are_translation_keys_not_text() {
    let d = error_in_fixture("raw_text_name.json", "E-ABILITY-RAW-TEXT");
    assert!(
        d.message
            .contains("`displayName` must be a translation key, not text: `Fireball`"),
        "{}",
        d.render(false)
    );
    assert_eq!(line(&d), 4);
    assert!(d
        .help
        .iter()
        .any(|h| h.contains("ability.original.fireball.name")));
}

#[test]
fn rule_3_translation_keys_must_exist_in_the_mods_locale() {
    let tmp = tempfile::tempdir().expect("a temporary folder");
    let dir = tmp.path().to_path_buf();
    let m = dir.join("original");
    for sub in ["content", "locale"] {
        std::fs::create_dir_all(m.join(sub)).unwrap();
    }
    for f in ["mod.toml", "locale/en.toml", "content/spark.json"] {
        std::fs::copy(fixtures().join("missing_locale_key").join(f), m.join(f)).unwrap();
    }
    let loaded = load(
        std::slice::from_ref(&dir),
        None,
        Arc::new(Registry::with_core()),
    );
    let d = loaded
        .all_diagnostics()
        .find(|d| d.code == "E-ABILITY-LOCALE")
        .cloned()
        .unwrap_or_else(|| {
            panic!(
                "{:?}",
                loaded
                    .all_diagnostics()
                    .map(|d| d.render(false))
                    .collect::<Vec<_>>()
            )
        });
    assert!(
        d.message.contains(
            "translation key `ability.original.spark.description` of ability `original:fire/spark` is missing"
        ),
        "{}",
        d.render(false)
    );
    assert_eq!(line(&d), 5);
    assert!(d
        .location
        .as_ref()
        .unwrap()
        .path
        .ends_with("content/spark.json"));
    // A content error disables the mod, as any content error does.
    assert!(!loaded.loaded.contains(&"original".to_owned()));
}

#[test]
fn rule_5_damage_must_come_after_the_area_that_shapes_it() {
    let d = error_in_fixture("damage_before_area.json", "E-ABILITY-ORDER");
    assert!(
        d.message
            .contains("damage node `burst` comes before area_of_effect node `blast`"),
        "{}",
        d.render(false)
    );
    assert_eq!(line(&d), 7);
    assert!(d
        .help
        .iter()
        .any(|h| h.contains("move `burst` below `blast`")));
}

#[test]
fn abilities_are_in_their_mods_namespace() {
    let text = r#"{ "abilities": { "id": "elsewhere:fire/bolt", "displayName": "a.b", "description": "a.c",
        "math": [{ "id": "m", "type": "meta", "cooldown_seconds": 0, "mana_cost": 0, "cast_time_seconds": 0, "tags": [] }] } }"#;
    let d = build("ns.json", text).unwrap_err();
    let e =
        d.0.iter()
            .find(|d| d.code == "E-ABILITY-NAMESPACE")
            .expect("namespace error");
    assert!(
        e.help.iter().any(|h| h.contains("original:fire/bolt")),
        "{}",
        e.render(false)
    );
}

#[test]
fn the_same_ability_loads_from_json_and_from_toml() {
    let json = r#"{ "abilities": { "id": "fire/bolt", "displayName": "ability.original.bolt.name",
      "description": "ability.original.bolt.description", "math": [
        { "id": "r", "type": "range", "min": 0, "max": null, "unit": "meters", "rangeType": "hitscan" },
        { "id": "m", "type": "meta", "cooldown_seconds": 1.5, "mana_cost": 3, "cast_time_seconds": 0, "tags": ["fire"] } ] } }"#;
    let toml = r#"
[abilities]
id = "fire/bolt"
displayName = "ability.original.bolt.name"
description = "ability.original.bolt.description"

[[abilities.math]]
id = "r"
type = "range"
min = 0
max = "unlimited"
unit = "meters"
rangeType = "hitscan"

[[abilities.math]]
id = "m"
type = "meta"
cooldown_seconds = 1.5
mana_cost = 3
cast_time_seconds = 0
tags = ["fire"]
"#;
    let id = Id::parse("original:fire/bolt").unwrap();
    let a = build("a.json", json).unwrap();
    let b = build("a.toml", toml).unwrap();
    let (a, b) = (a.abilities.get(id).unwrap(), b.abilities.get(id).unwrap());
    assert_eq!(a.meta, b.meta);
    assert_eq!(a.meta.cooldown_ticks, 15);
    assert_eq!(a.ranges, b.ranges);
    assert_eq!(a.ranges[0].max, None);
    assert_eq!(a.nodes.len(), 2);
}

#[test]
fn bad_node_parameters_are_located_with_a_fix() {
    let text = r#"{ "abilities": { "id": "fire/bolt", "displayName": "a.b", "description": "a.c", "math": [
  { "id": "area", "type": "area_of_effect", "shape": "sphere", "radius": 5, "unit": "meters", "falloff": "linaer" },
  { "id": "m", "type": "meta", "cooldown_seconds": 0, "mana_cost": 0, "cast_time_seconds": 0, "tags": [] } ] } }"#;
    let d = build("bad.json", text).unwrap_err();
    let e = &d.0[0];
    assert_eq!(line(e), 2, "{}", e.render(false));
    assert!(
        e.message.contains("`falloff` cannot be `linaer`"),
        "{}",
        e.render(false)
    );
    assert!(e.help.iter().any(|h| h.contains("did you mean `linear`?")));

    let text = r#"{ "abilities": { "id": "fire/bolt", "displayName": "a.b", "description": "a.c", "math": [
  { "id": "m", "type": "meta", "cooldown_seconds": 0, "mana_cost": 0, "cast_time_secs": 0, "tags": [] } ] } }"#;
    let d = build("bad.json", text).unwrap_err();
    let e = &d.0[0];
    assert_eq!(e.code, "E-CONTENT-UNKNOWN-PARAM", "{}", e.render(false));
    assert!(
        e.help.iter().any(|h| h.contains("cast_time_seconds")),
        "{}",
        e.render(false)
    );

    let text = r#"{ "abilities": { "id": "fire/bolt", "displayName": "a.b", "description": "a.c", "math": [
  { "id": "m", "type": "meta", "cooldown_seconds": 0, "mana_cost": 0, "cast_time_seconds": 0, "tags": [] },
  { "id": "dot", "type": "damage_over_time", "damageType": "fire", "damage_per_tick": 1,
    "tick_interval_seconds": 2, "duration_seconds": 1, "scaling": { "stat": "x", "multiplier": 0 }, "stacks": false },
  { "id": "c", "type": "condition", "chance": 1.5, "effect": "stun" },
  { "id": "d", "type": "damage", "sources": [{ "damageType": "fire", "base_value": 1, "scaling": { "stat": "x", "multipler": 1 } }] },
  { "id": "e", "type": "fireball" } ] } }"#;
    let d = build("bad.json", text).unwrap_err();
    let text = d.render(false);
    for (code, needle, l) in [
        ("E-CONTENT-PARAM", "shorter than one tick interval", 4),
        ("E-CONTENT-PARAM", "`chance` must be between 0.0 and 1.0", 5),
        ("E-CONTENT-PARAM", "unknown field `multipler`", 6),
        ("E-CONTENT-UNKNOWN-ID", "unknown node `fireball`", 7),
    ] {
        let e =
            d.0.iter()
                .find(|e| e.code == code && e.message.contains(needle))
                .unwrap_or_else(|| panic!("{needle}:\n{text}"));
        assert_eq!(line(e), l, "{needle}:\n{text}");
    }
}
