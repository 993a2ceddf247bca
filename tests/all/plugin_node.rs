//! A wasm node type (`crits:node/crit`) run over a pipeline: pipeline values in and out,
//! the `random` capability (granted in server.toml) from the world's seeded RNG, and a
//! host-prepared expression (`factor = "self.attack"`) evaluated in the caller's scope.

use std::sync::Arc;

use serde_json::json;
use tessera_host::mods::{load, ServerConfig};
use tessera_host::rules::Pipeline;
use tessera_host::{Game, Id, Registry, ScriptedController, Sym};

use crate::plugin_build::{ensure_built, repo};

fn game() -> Game {
    ensure_built();
    let server = ServerConfig::load(&repo().join("examples/server.toml")).expect("server.toml");
    let loaded = load(
        &[repo().join("examples/mods")],
        Some(&server),
        Arc::new(Registry::with_core()),
    );
    assert!(
        !loaded.has_errors(),
        "{:?}",
        loaded
            .all_diagnostics()
            .map(|d| d.to_string())
            .collect::<Vec<_>>()
    );
    Game::new(
        loaded.generation.expect("generation"),
        11,
        Box::new(ScriptedController::default()),
    )
}

fn damage_in(values: f64) -> Pipeline {
    Pipeline {
        values: vec![(Sym::new("damage"), values)],
        ..Pipeline::default()
    }
}

#[test]
fn a_certain_crit_multiplies_damage_by_an_expression() {
    let mut g = game();
    let caster = g
        .spawn(Id::parse("skirmish:class/recruit").unwrap(), None, "board")
        .unwrap();
    g.setup(|w| {
        w.set(caster, Sym::new("attack"), tessera_host::Value::Int(4))
            .map(|_| ())
            .map_err(Into::into)
    })
    .unwrap();
    let node = g
        .generation()
        .prepare_node(
            "crits",
            &json!({ "type": "crit", "chance": 100, "factor": "self.attack" }),
        )
        .unwrap();
    let (p, _) = g
        .run_node(node.as_ref(), Some(caster), damage_in(10.0))
        .unwrap();
    assert_eq!(p.value(Sym::new("damage")), Some(40.0));
    assert_eq!(p.value(Sym::new("crit")), Some(1.0));
}

#[test]
fn an_impossible_crit_leaves_damage_alone() {
    let mut g = game();
    let node = g
        .generation()
        .prepare_node("crits", &json!({ "type": "crits:node/crit", "chance": 0 }))
        .unwrap();
    let (p, _) = g.run_node(node.as_ref(), None, damage_in(10.0)).unwrap();
    assert_eq!(p.value(Sym::new("damage")), Some(10.0));
    assert_eq!(p.value(Sym::new("crit")), Some(0.0));
}

#[test]
fn crit_rolls_come_from_the_seeded_world_rng() {
    // Two games with the same seed (11, see `game`).
    let rolls = || {
        let mut g = game();
        let node = g
            .generation()
            .prepare_node("crits", &json!({ "type": "crit", "chance": 50 }))
            .unwrap();
        (0..20)
            .map(|_| {
                g.run_node(node.as_ref(), None, damage_in(1.0))
                    .unwrap()
                    .0
                    .value(Sym::new("crit"))
                    .unwrap_or(-1.0)
            })
            .collect::<Vec<_>>()
    };
    let a = rolls();
    assert_eq!(a, rolls(), "same seed, same rolls");
    assert!(
        a.contains(&1.0) && a.contains(&0.0),
        "a 50% chance over 20 rolls hits and misses: {a:?}"
    );
}

#[test]
fn bad_node_parameters_are_load_errors_naming_the_plugin() {
    let g = game();
    let err = g
        .generation()
        .prepare_node("crits", &json!({ "type": "crit", "chance": "often" }))
        .unwrap_err();
    let text = err.render(false);
    assert!(text.contains("chance"), "{text}");
}
