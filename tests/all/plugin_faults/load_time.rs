//! Load-time faults: the mod is disabled with a diagnostic naming the fix, the others
//! load and run.

use super::*;

/// Loads, expects the hostile mod disabled with `code`, and `good` running. Returns the
/// diagnostic's message and help.
fn load_fails(t: &Tree, server: Option<&ServerConfig>, code: &str) -> (String, Vec<String>) {
    let loaded = load_tree(t, server);
    let d = loaded
        .all_diagnostics()
        .find(|d| d.code == code)
        .unwrap_or_else(|| panic!("no {code} in:\n{}", render(&loaded)))
        .clone();
    assert_eq!(d.mod_id.as_deref(), Some("hostile"), "{}", d.render(false));
    let file = d.location.as_ref().map(|l| l.path.clone()).unwrap();
    assert!(
        file.ends_with("hostile/plugins/hostile.wasm"),
        "{}",
        file.display()
    );
    assert!(
        d.message.contains("plugins/hostile.wasm"),
        "{}",
        d.render(false)
    );
    assert_eq!(loaded.loaded, ["good"], "{}", render(&loaded));
    assert!(
        loaded.content_disabled.iter().any(|(m, _)| m == "hostile"),
        "{:?}",
        loaded.content_disabled
    );
    // The survivors run.
    let gen = loaded.generation.clone().expect("generation");
    let mut game = Game::new(gen, 1, Box::new(ScriptedController::default()));
    let minion = game.spawn(id("good:class/minion"), None, "board").unwrap();
    game.emit(Event::new(id("core:event/turn_started")))
        .unwrap();
    assert_eq!(game.world().get_int(minion, Sym::new("attack")), 2);
    (d.message, d.help)
}

const BOTH: &[&str] = &["condition/bad", "action/bad"];

#[test]
fn missing_export_is_refused_at_load() {
    let h = Hostile {
        prepare: false,
        ..Hostile::default()
    };
    let (msg, help) = load_fails(&tree(&h, BOTH, &[]), None, "E-PLUGIN-EXPORT");
    assert!(msg.contains("tessera_prepare"), "{msg}");
    assert!(help.iter().any(|h| h.contains("ABI.md")), "{help:?}");
}

#[test]
fn wrong_abi_version_is_refused_at_load() {
    let h = Hostile {
        marker: "tessera_abi_v2",
        ..Hostile::default()
    };
    let (msg, _) = load_fails(&tree(&h, BOTH, &[]), None, "E-PLUGIN-ABI");
    assert!(msg.contains("tessera_abi_v2"), "{msg}");
    assert!(msg.contains("tessera_abi_v1"), "{msg}");
}

#[test]
fn provides_that_lies_is_refused_at_load() {
    // mod.toml declares an id the plugin does not describe.
    let (msg, help) = load_fails(
        &tree(
            &Hostile::default(),
            &["condition/bad", "action/bad", "condition/ghost"],
            &[],
        ),
        None,
        "E-PLUGIN-PROVIDES",
    );
    assert!(msg.contains("hostile:condition/ghost"), "{msg}");
    assert!(msg.contains("does not describe"), "{msg}");
    assert!(help.iter().any(|h| h.contains("provides")), "{help:?}");

    // The plugin describes an id mod.toml does not declare.
    let h = Hostile {
        described: vec![
            ("condition", "hostile:condition/bad"),
            ("action", "hostile:action/bad"),
            ("action", "hostile:action/sneaky"),
        ],
        ..Hostile::default()
    };
    let (msg, _) = load_fails(&tree(&h, BOTH, &[]), None, "E-PLUGIN-PROVIDES");
    assert!(msg.contains("hostile:action/sneaky"), "{msg}");
    assert!(msg.contains("does not declare"), "{msg}");
}

const RANDOM_IMPORT: &str =
    r#"(import "tessera" "random" (func $random (param i64 i64) (result i64)))"#;

#[test]
fn capability_without_a_grant_is_refused_at_load() {
    let h = Hostile {
        imports: RANDOM_IMPORT,
        ..Hostile::default()
    };
    // Not asked for in mod.toml.
    let t = tree(&h, BOTH, &[]);
    let (msg, help) = load_fails(&t, None, "E-PLUGIN-CAPABILITY");
    assert!(msg.contains("`random`"), "{msg}");
    assert!(msg.contains("mod.toml does not ask for it"), "{msg}");
    assert!(
        help.iter()
            .any(|h| h.contains("capabilities = [\"random\"]") && h.contains("mod.toml")),
        "{help:?}"
    );

    // Asked for, but the operator does not grant it.
    let t = tree(&h, BOTH, &["random"]);
    let cfg = server(&t, "");
    let (msg, help) = load_fails(&t, Some(&cfg), "E-PLUGIN-CAPABILITY");
    assert!(msg.contains("server.toml does not grant"), "{msg}");
    assert!(
        help.iter()
            .any(|h| h.contains("[grants.hostile] capabilities = [\"random\"]")),
        "{help:?}"
    );
    // No server.toml at all grants nothing either.
    load_fails(&t, None, "E-PLUGIN-CAPABILITY");

    // Asked for and granted: it loads.
    let cfg = server(&t, "[grants.hostile]\ncapabilities = [\"random\"]\n");
    let loaded = load_tree(&t, Some(&cfg));
    assert_eq!(loaded.loaded, ["good", "hostile"], "{}", render(&loaded));
}

#[test]
fn import_outside_the_abi_is_refused_at_load() {
    let h = Hostile {
        imports: r#"(import "wasi_snapshot_preview1" "fd_write" (func (param i32 i32 i32 i32) (result i32)))"#,
        ..Hostile::default()
    };
    let (msg, _) = load_fails(&tree(&h, BOTH, &[]), None, "E-PLUGIN-IMPORT");
    assert!(msg.contains("wasi_snapshot_preview1::fd_write"), "{msg}");

    // An unknown import in the `tessera` module too.
    let h = Hostile {
        imports: r#"(import "tessera" "read_file" (func (param i32 i32) (result i32)))"#,
        ..Hostile::default()
    };
    let (msg, _) = load_fails(&tree(&h, BOTH, &[]), None, "E-PLUGIN-IMPORT");
    assert!(msg.contains("tessera::read_file"), "{msg}");
}
