//! A new build of a plugin changes behaviour and keeps the state it saved.

use super::*;

/// The well-behaved hostile plugin with `save_state`/`load_state` for its call counter;
/// `factor` scales what its action writes (a "new build" changes it).
fn stateful_build(factor: i64) -> String {
    let wat = Hostile::default().wat();
    let wat = wat.replace(
        "(drop (call $set_int (local.get $t) (global.get $s_calls) (global.get $calls)))",
        &format!("(drop (call $set_int (local.get $t) (global.get $s_calls) (i64.mul (global.get $calls) (i64.const {factor}))))"),
    );
    let state = r#"
  ;; State handover: the counter as 8 little-endian bytes at address 64.
  (func (export "tessera_save_state") (result i64)
    (i64.store (i32.const 64) (global.get $calls))
    (i64.const 274877906952)) ;; packed (64 << 32 | 8)
  (func (export "tessera_load_state") (param $p i32) (param $n i32) (result i32)
    (if (i32.ne (local.get $n) (i32.const 8)) (then (return (i32.const -1))))
    (global.set $calls (i64.load (local.get $p)))
    (i32.const 0))
)"#;
    let end = wat.rfind(')').expect("module end");
    format!("{}{state}", &wat[..end])
}

#[test]
fn a_new_plugin_build_changes_behaviour_and_keeps_its_state() {
    let provides = ["condition/bad", "action/bad"];
    let t = tree(&Hostile::default(), &provides, &[]);
    write_wasm(&t, "hostile", "hostile.wasm", &stateful_build(1));
    let loaded = load_tree(&t, None);
    assert!(!loaded.has_errors(), "{}", render(&loaded));
    let mut g = Game::new(
        loaded.generation.expect("generation"),
        1,
        Box::new(ScriptedController::default()),
    );
    let o = g
        .spawn(id("hostile:class/bystander"), None, "board")
        .unwrap();
    let poke = |g: &mut Game| {
        g.emit(Event::new(id("hostile:event/poke")).target(o))
            .expect("poke")
    };
    poke(&mut g);
    poke(&mut g);
    assert_eq!(g.world().get_int(o, Sym::new("calls")), 2);

    // A new build: its action writes 100x the count. The counter comes along.
    write_wasm(&t, "hostile", "hostile.wasm", &stateful_build(100));
    let loaded = load_tree(&t, None);
    assert!(!loaded.has_errors(), "{}", render(&loaded));
    let report = g
        .swap(loaded.generation.expect("generation"))
        .expect("swap");
    assert!(
        report.handover_problems.is_empty(),
        "{:?}",
        report.handover_problems
    );
    poke(&mut g);
    assert_eq!(
        g.world().get_int(o, Sym::new("calls")),
        300,
        "new behaviour, old state (3 calls)"
    );

    // A build whose saved state it cannot read starts fresh, reported, not fatal.
    let broken =
        stateful_build(100).replace("(i32.ne (local.get $n) (i32.const 8))", "(i32.const 1)");
    write_wasm(&t, "hostile", "hostile.wasm", &broken);
    let report = g
        .swap(load_tree(&t, None).generation.expect("generation"))
        .expect("swap");
    assert_eq!(
        report.handover_problems.len(),
        1,
        "{:?}",
        report.handover_problems
    );
    assert!(
        report.handover_problems[0].contains("load_state"),
        "{:?}",
        report.handover_problems
    );
    poke(&mut g);
    assert_eq!(
        g.world().get_int(o, Sym::new("calls")),
        100,
        "fresh state: 1 call"
    );
}
