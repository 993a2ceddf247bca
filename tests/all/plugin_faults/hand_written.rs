//! ABI.md is enough: a plugin written by hand in WAT, with no SDK, loads and runs.

use super::*;

/// A complete, well-behaved plugin in WAT: `wat:condition/strong` (tagged `beast` and
/// attack >= 2; single and batch entry points) and `wat:action/bump` (attack += 10 on
/// every target, through `add_int`).
fn minimal_plugin() -> String {
    let description = r#"{"abi":1,"name":"wat","provides":[
      {"kind":"condition","id":"wat:condition/strong","doc":"a beast with attack >= 2","params":[]},
      {"kind":"action","id":"wat:action/bump","doc":"attack += 10","params":[]}]}"#;
    format!(
        r#"(module
  (import "tessera" "intern" (func $intern (param i32 i32) (result i32)))
  (import "tessera" "get_int" (func $get_int (param i64 i32) (result i64)))
  (import "tessera" "has_tag" (func $has_tag (param i64 i32) (result i32)))
  (import "tessera" "add_int" (func $add_int (param i64 i32 i64) (result i64)))
  {prelude}
  (data (i32.const 16) "beast")
  (data (i32.const 24) "attack")
  (global $beast (mut i32) (i32.const -1))
  (global $attack (mut i32) (i32.const -1))

  ;; kind 1 = condition, 3 = action; the id and params are not needed here.
  (func (export "tessera_prepare") (param $kind i32) (param i32 i32 i32 i32) (result i32)
    (global.set $beast (call $intern (i32.const 16) (i32.const 5)))
    (global.set $attack (call $intern (i32.const 24) (i32.const 6)))
    (i32.const 0))

  (func $strong (param $o i64) (result i32)
    (i32.and (call $has_tag (local.get $o) (global.get $beast))
             (i64.ge_s (call $get_int (local.get $o) (global.get $attack)) (i64.const 2))))

  (func (export "tessera_condition") (param $h i32) (param $o i64) (result i32)
    (call $strong (local.get $o)))

  ;; n objects (i64) at $objs; write n bytes (0/1) at $out.
  (func (export "tessera_condition_batch") (param $h i32) (param $objs i32) (param $n i32)
                                           (param $out i32) (result i32)
    (local $i i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (i32.store8 (i32.add (local.get $out) (local.get $i))
          (call $strong (i64.load (i32.add (local.get $objs) (i32.shl (local.get $i) (i32.const 3))))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (i32.const 0))

  (func (export "tessera_action") (param $h i32) (param $ts i32) (param $n i32) (result i32)
    (local $i i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (drop (call $add_int (i64.load (i32.add (local.get $ts) (i32.shl (local.get $i) (i32.const 3))))
                             (global.get $attack) (i64.const 10)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (i32.const 0))
)"#,
        prelude = prelude("tessera_abi_v1", description)
    )
}

#[test]
fn a_plugin_written_by_hand_in_wat_from_abi_md_loads_and_runs() {
    let t = Tree::new("wat-ok");
    t.write(
        "wat",
        "mod.toml",
        &manifest(
            "wat",
            "\n[[plugin]]\nfile = \"plugins/wat.wasm\"\nprovides = [\"condition/strong\", \"action/bump\"]\n",
        ),
    );
    t.write(
        "wat",
        "content/wat.toml",
        r#"[event.howl]

[class.wolf]
properties = { attack = 3 }
tags = ["beast"]

[class.cub]
properties = { attack = 1 }
tags = ["beast"]

[class.rock]
properties = { attack = 5 }

# A selector filtered by the plugin (batched), then the plugin's action.
[trigger.howl]
when = "howl"
select = { type = "objects", zone = "board", where = { type = "strong" } }
do = [{ type = "bump" }]

# The plugin's condition guarding a trigger (a single call).
[trigger.growl]
when = { event = "howl", condition = { type = "strong" } }
do = [{ type = "add", key = "attack", amount = 100 }]
"#,
    );
    write_wasm(&t, "wat", "wat.wasm", &minimal_plugin());
    let loaded = load_tree(&t, None);
    assert_eq!(loaded.loaded, ["wat"], "{}", render(&loaded));
    assert!(!loaded.has_errors(), "{}", render(&loaded));
    let gen = loaded.generation.clone().unwrap();
    let mut game = Game::new(gen, 1, Box::new(ScriptedController::default()));
    let wolf = game.spawn(id("wat:class/wolf"), None, "board").unwrap();
    let cub = game.spawn(id("wat:class/cub"), None, "board").unwrap();
    let rock = game.spawn(id("wat:class/rock"), None, "board").unwrap();
    let attack = |g: &Game, o| g.world().get_int(o, Sym::new("attack"));

    // No target: `growl`'s condition has no subject, so only `howl` runs.
    game.emit(Event::new(id("wat:event/howl"))).unwrap();
    assert_eq!(
        (attack(&game, wolf), attack(&game, cub), attack(&game, rock)),
        (13, 1, 5)
    );
    // Howling at the cub: not strong, only `howl` runs (the wolf again).
    game.emit(Event::new(id("wat:event/howl")).target(cub))
        .unwrap();
    assert_eq!((attack(&game, wolf), attack(&game, cub)), (23, 1));
    // Howling at the wolf: strong, so `growl` adds 100 to it as well.
    game.emit(Event::new(id("wat:event/howl")).target(wolf))
        .unwrap();
    assert_eq!(attack(&game, wolf), 133);
    assert_eq!(attack(&game, rock), 5);
}
