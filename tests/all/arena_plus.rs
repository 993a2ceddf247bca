//! The game's mods with the `arena-plus` wasm plugin, built by the test run itself (a
//! clean clone has no `.wasm`): every scenario of `mods/*/tests` passes through the CLI,
//! the plugin describes what the manifest declares, bad parameters are load errors that
//! name the parameter, and seeded games with the plugin's cards play without error.

use std::process::Command;
use std::sync::Arc;

use tessera_host::mods::{load, LoadedMods, ServerConfig};
use tessera_host::{Id, Registry};

use crate::mods_fixture::Tree;
use crate::plugin_build::{copy_tree, ensure_game_plugins_built, repo};

/// The plugin's entries, as `mods/arena-plus/mod.toml` declares them.
const ENTRIES: [&str; 5] = [
    "arena-plus:action/chain_damage",
    "arena-plus:action/swap_positions",
    "arena-plus:selector/most_attack",
    "arena-plus:selector/neighbours",
    "arena-plus:condition/wounded",
];

/// The arena-plus scenarios (`mods/arena-plus/tests/*.toml`), by name.
const SCENARIOS: [&str; 5] = [
    "chain damage bounces along a row",
    "chain-damage cards: Arc Lash, Storm Conduit, Tempest Idol",
    "most attack: ties by lowest slot or all tied",
    "wounded: true and false",
    "neighbours and swaps",
];

fn tessera() -> Command {
    Command::new(env!("CARGO_BIN_EXE_tessera"))
}

/// The game's mods (`mods/`) loaded with the repository's `server.toml`.
fn load_game_mods() -> LoadedMods {
    ensure_game_plugins_built();
    let server = ServerConfig::load(&repo().join("server.toml")).expect("server.toml");
    load(
        &[repo().join("mods")],
        Some(&server),
        Arc::new(Registry::with_core()),
    )
}

fn diagnostics(l: &LoadedMods) -> Vec<String> {
    l.all_diagnostics().map(|d| d.to_string()).collect()
}

#[test]
fn every_game_mod_scenario_passes_with_the_plugin_built() {
    ensure_game_plugins_built();
    let out = tessera()
        .args(["test", "--mods"])
        .arg(repo().join("mods"))
        .arg("--server")
        .arg(repo().join("server.toml"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{text}\n{err}");
    let summary = text.lines().last().unwrap_or_default();
    assert!(summary.ends_with(" passed, 0 failed"), "{text}");
    let passed: usize = summary
        .split_whitespace()
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    assert!(passed > SCENARIOS.len(), "{text}");
    for name in SCENARIOS {
        assert!(
            text.lines()
                .any(|l| l.starts_with("ok") && l.contains(name) && l.contains("arena-plus")),
            "{name}: {text}"
        );
    }
}

#[test]
fn the_plugin_provides_what_the_manifest_declares_and_the_cards_load() {
    let loaded = load_game_mods();
    assert!(!loaded.has_errors(), "{:#?}", diagnostics(&loaded));
    assert_eq!(
        loaded.all_diagnostics().count(),
        0,
        "{:#?}",
        diagnostics(&loaded)
    );
    assert!(
        loaded.loaded.iter().any(|m| m == "arena-plus"),
        "{:?}",
        loaded.loaded
    );
    let gen = loaded.generation.as_ref().expect("generation");
    let collectible = tessera_host::Sym::new("collectible");
    let cards: Vec<String> = gen
        .classes
        .values()
        .filter(|c| c.id.as_str().starts_with("arena-plus:") && c.tags.contains(&collectible))
        .map(|c| c.id.as_str().to_owned())
        .collect();
    assert_eq!(cards.len(), 10, "{cards:?}");

    // `tessera explain` shows each entry as the plugin's, with its parameters.
    for (id, param) in ENTRIES.iter().zip([
        "falloff (optional)",
        "with (optional)",
        "ties (optional)",
        "of (optional)",
        "by (optional)",
    ]) {
        Id::parse(id).expect("a valid id");
        let out = tessera()
            .args(["explain", id, "--mods"])
            .arg(repo().join("mods"))
            .arg("--server")
            .arg(repo().join("server.toml"))
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{id}: {text}");
        assert!(
            text.contains("wasm plugin plugins/arena-plus.wasm of mod `arena-plus`"),
            "{id}: {text}"
        );
        assert!(text.contains(param), "{id}: {text}");
    }
}

#[test]
fn bad_parameters_are_load_errors_naming_the_parameter() {
    ensure_game_plugins_built();
    let t = Tree::new("arena-plus-params");
    for m in ["arena", "arena-plus"] {
        copy_tree(&repo().join("mods").join(m), &t.mods().join(m));
    }
    let cases: [(&str, &str); 7] = [
        (
            "{ type = \"arena-plus:action/chain_damage\", amount = 0 }",
            "`amount` must be a whole number from 1 to 20, not 0",
        ),
        (
            "{ type = \"arena-plus:action/chain_damage\", amount = 2, falloff = 0 }",
            "`falloff` must be at least 1",
        ),
        (
            "{ type = \"arena-plus:action/chain_damage\", amount = 2, prefer = \"up\" }",
            "unknown variant `up`, expected `right` or `left`",
        ),
        (
            "{ type = \"arena-plus:action/chain_damage\", amount = 2, zone = \"Board Two\" }",
            "`zone` must be a name",
        ),
        (
            "{ type = \"arena-plus:action/swap_positions\", with = \"middle\" }",
            "unknown variant `middle`",
        ),
        (
            "{ type = \"damage\", amount = 1, to = { type = \"arena-plus:selector/most_attack\", ties = \"some\" } }",
            "unknown variant `some`, expected `first` or `all`",
        ),
        (
            "{ type = \"if\", condition = { type = \"arena-plus:condition/wounded\", by = 0 }, then = [] }",
            "`by` must be at least 1",
        ),
    ];
    let mut content = String::new();
    for (i, (action, _)) in cases.iter().enumerate() {
        content.push_str(&format!(
            "[class.bad{i}]\ntags = [\"minion\"]\n\n[[class.bad{i}.trigger]]\nwhen = \"core:event/created\"\ndo = [{action}]\n\n"
        ));
    }
    t.write(
        "bad-plus",
        "mod.toml",
        "[mod]\nid = \"bad-plus\"\nversion = \"1.0.0\"\napi = \"0.1\"\n\n[dependencies]\narena-plus = \"^1\"\n",
    );
    t.write("bad-plus", "content/bad.toml", &content);
    let loaded = load(&[t.mods()], None, Arc::new(Registry::with_core()));
    // The plugin's own mod is fine; only the mod with bad parameters is disabled.
    assert_eq!(
        loaded.loaded,
        ["arena", "arena-plus"],
        "{:#?}",
        diagnostics(&loaded)
    );
    let errors: Vec<_> = loaded
        .all_diagnostics()
        .filter(|d| d.code == "E-PLUGIN-PREPARE")
        .collect();
    for (action, want) in cases {
        assert!(
            errors.iter().any(|d| d.message.contains(want)
                && d.mod_id.as_deref() == Some("bad-plus")
                && d.message.contains("content/bad.toml")),
            "no error with {want:?} for {action}:\n{:#?}",
            diagnostics(&loaded)
        );
    }
}

/// The summary line of `tessera run --games N`.
fn summary(text: &str) -> &str {
    text.lines()
        .rev()
        .find(|l| l.contains(" games in "))
        .unwrap_or_default()
}

#[test]
fn seeded_games_with_arena_plus_play_without_error() {
    ensure_game_plugins_built();
    let run = |seed: &str| {
        let out = tessera()
            .args(["run", "--games", "12", "--seed", seed, "--mods"])
            .arg(repo().join("mods"))
            .arg("--server")
            .arg(repo().join("server.toml"))
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        // Load problems (a missing or refused plugin) go to stderr and disable the mod.
        assert!(err.trim().is_empty(), "{err}");
        assert!(out.status.success(), "{}\n{err}", summary(&text));
        assert!(summary(&text).ends_with("errors 0"), "{}", summary(&text));
        text
    };
    let text = run("40");
    // The plugin's code ran in these games: cards were played and chains bounced.
    for needle in ["the chain bounces to", "casts Arc Lash"] {
        assert!(
            text.contains(needle),
            "no `{needle}` in 12 games:\n{}",
            summary(&text)
        );
    }
    // Same seeds, same games (the plugin is deterministic): the same results and world
    // checksums, timings aside.
    let results = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| l.starts_with("game "))
            .map(|l| {
                l.split(", ")
                    .filter(|part| !part.ends_with(" ms") && !part.contains(" ms ("))
                    .chain(l.split_once("(checksum").map(|(_, c)| c))
                    .collect::<Vec<_>>()
                    .join(", ")
            })
            .collect()
    };
    let first = results(&text);
    assert_eq!(first.len(), 12, "{first:?}");
    assert_eq!(first, results(&run("40")));
}
