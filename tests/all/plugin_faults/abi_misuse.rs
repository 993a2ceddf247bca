//! Plugins that misuse the ABI (a kind preparing itself, too many functions, a selector
//! that miscounts, a write inside a condition, a looping error): each is an error, never
//! a crash.

use super::*;

/// Issue 18, finding 1: a condition kind whose `tessera_prepare` prepares a selector
/// filtered by that same kind recursed through the host until the process aborted (stack
/// overflow). Now the nesting stops with an error naming the site, and the mod is
/// disabled like any mod with a content error.
#[test]
fn a_kind_preparing_itself_is_stopped_not_a_stack_overflow() {
    let description = r#"{"abi":1,"name":"loop","provides":[
      {"kind":"condition","id":"loop:condition/again","doc":"prepares itself","params":[]}]}"#;
    let selector = r#"{"type":"core:selector/objects","where":{"type":"loop:condition/again"}}"#;
    let wat = format!(
        r#"(module
  (import "tessera" "prepare_selector" (func $prepare_selector (param i32 i32) (result i32)))
  {prelude}
  (data (i32.const 4096) "{json}")
  (func (export "tessera_prepare") (param i32 i32 i32 i32 i32) (result i32)
    (drop (call $prepare_selector (i32.const 4096) (i32.const {len})))
    (i32.const 0))
  (func (export "tessera_condition") (param i32 i64) (result i32) (i32.const 1))
)"#,
        prelude = prelude("tessera_abi_v1", description),
        json = wat_str(selector),
        len = selector.len(),
    );
    let t = Tree::new("wat-self-prepare");
    t.write(
        "loop",
        "mod.toml",
        &manifest(
            "loop",
            "\n[[plugin]]\nfile = \"plugins/loop.wasm\"\nprovides = [\"condition/again\"]\n",
        ),
    );
    t.write(
        "loop",
        "content/loop.toml",
        "[trigger.t]\nwhen = { event = \"core:event/tick\", condition = { type = \"again\" } }\ndo = []\n",
    );
    write_wasm(&t, "loop", "loop.wasm", &wat);
    let loaded = load_tree(&t, None);
    let text = render(&loaded);
    assert!(loaded.has_errors(), "{text}");
    assert!(text.contains("E-CONTENT-DEPTH"), "{text}");
    assert!(text.contains("nest more than 128 deep"), "{text}");
}

/// Issue 18, finding 2: a module with hundreds of thousands of tiny functions took 30+ s
/// and gigabytes to compile on first load. Modules over the function limit are refused
/// before compiling.
#[test]
fn a_module_with_too_many_functions_is_refused_before_compiling() {
    let description = r#"{"abi":1,"name":"big","provides":[]}"#;
    let funcs = "(func)".repeat(60_000);
    let wat = format!(
        "(module\n{prelude}\n(func (export \"tessera_prepare\") (param i32 i32 i32 i32 i32) (result i32) (i32.const 0))\n{funcs})",
        prelude = prelude("tessera_abi_v1", description)
    );
    let t = Tree::new("wat-too-big");
    t.write(
        "big",
        "mod.toml",
        &manifest(
            "big",
            "\n[[plugin]]\nfile = \"plugins/big.wasm\"\nprovides = []\n",
        ),
    );
    write_wasm(&t, "big", "big.wasm", &wat);
    let loaded = load_tree(&t, None);
    let text = render(&loaded);
    assert!(text.contains("E-PLUGIN-TOO-LARGE"), "{text}");
    assert!(text.contains("functions; the limit is 50000"), "{text}");
}

/// Issue 18, finding 6: a `tessera_select` returning a count other than what it pushed
/// was ignored, and pushed ids that name no object were dropped silently. Both are errors
/// naming the export now.
#[test]
fn a_selector_that_miscounts_or_pushes_junk_is_an_error() {
    let description = r#"{"abi":1,"name":"sel","provides":[
      {"kind":"selector","id":"sel:selector/miscount","doc":"returns 2, pushes none","params":[]},
      {"kind":"selector","id":"sel:selector/junk","doc":"pushes a made-up id","params":[]}]}"#;
    let wat = format!(
        r#"(module
  (import "tessera" "push" (func $push (param i64)))
  {prelude}
  ;; The handle is the id's length: 21 for `sel:selector/miscount`, 17 for `sel:selector/junk`.
  (func (export "tessera_prepare") (param i32 i32) (param $len i32) (param i32 i32) (result i32)
    (local.get $len))
  (func (export "tessera_select") (param $h i32) (result i32)
    (if (result i32) (i32.eq (local.get $h) (i32.const 17))
      (then (call $push (i64.const 0x7fff00001234)) (i32.const 1))
      (else (i32.const 2))))
)"#,
        prelude = prelude("tessera_abi_v1", description)
    );
    let t = Tree::new("wat-select-lies");
    t.write(
        "sel",
        "mod.toml",
        &manifest(
            "sel",
            "\n[[plugin]]\nfile = \"plugins/sel.wasm\"\nprovides = [\"selector/miscount\", \"selector/junk\"]\n",
        ),
    );
    t.write(
        "sel",
        "content/sel.toml",
        "[event.a]\n[event.b]\n\n[trigger.a]\nwhen = \"a\"\nselect = { type = \"miscount\" }\ndo = [{ type = \"tag\", tag = \"x\" }]\n\n[trigger.b]\nwhen = \"b\"\nselect = { type = \"junk\" }\ndo = [{ type = \"tag\", tag = \"x\" }]\n",
    );
    write_wasm(&t, "sel", "sel.wasm", &wat);
    let loaded = load_tree(&t, None);
    assert!(!loaded.has_errors(), "{}", render(&loaded));
    let gen = loaded.generation.clone().unwrap();
    let mut game = Game::new(gen, 1, Box::new(ScriptedController::default()));
    let err = game
        .emit(Event::new(id("sel:event/a")))
        .expect_err("a miscount fails the command");
    let fault = plugin_fault(&err);
    assert_eq!(fault.kind, PluginFaultKind::AbiMisuse, "{err}");
    assert!(
        fault
            .message
            .contains("tessera_select returned 2 but pushed 0 object(s)"),
        "{err}"
    );
    let err = game
        .emit(Event::new(id("sel:event/b")))
        .expect_err("a made-up id fails the command");
    let fault = plugin_fault(&err);
    assert_eq!(fault.kind, PluginFaultKind::AbiMisuse, "{err}");
    assert!(
        fault.message.contains("which is no object of this world"),
        "{err}"
    );
}

/// Issue 18, finding 6: a write inside a condition was refused, but a guest that ignored
/// the refusal returned normally and the call succeeded. The call fails now (ABI.md:
/// writes only in actions and nodes), and nothing was written.
#[test]
fn a_write_inside_a_condition_fails_the_call() {
    let description = r#"{"abi":1,"name":"sneak","provides":[
      {"kind":"condition","id":"sneak:condition/writes","doc":"writes, then says yes","params":[]}]}"#;
    let wat = format!(
        r#"(module
  (import "tessera" "intern" (func $intern (param i32 i32) (result i32)))
  (import "tessera" "set_int" (func $set_int (param i64 i32 i64) (result i32)))
  {prelude}
  (data (i32.const 4096) "attack")
  (func (export "tessera_prepare") (param i32 i32 i32 i32 i32) (result i32) (i32.const 0))
  (func (export "tessera_condition") (param $h i32) (param $o i64) (result i32)
    (drop (call $set_int (local.get $o) (call $intern (i32.const 4096) (i32.const 6)) (i64.const 99)))
    (i32.const 1))
)"#,
        prelude = prelude("tessera_abi_v1", description)
    );
    let t = Tree::new("wat-sneaky-write");
    t.write(
        "sneak",
        "mod.toml",
        &manifest(
            "sneak",
            "\n[[plugin]]\nfile = \"plugins/sneak.wasm\"\nprovides = [\"condition/writes\"]\n",
        ),
    );
    t.write(
        "sneak",
        "content/sneak.toml",
        "[event.go]\n\n[class.unit]\nproperties = { attack = 1 }\n\n[trigger.go]\nwhen = \"go\"\nselect = { type = \"objects\", where = { type = \"writes\" } }\ndo = [{ type = \"tag\", tag = \"seen\" }]\n",
    );
    write_wasm(&t, "sneak", "sneak.wasm", &wat);
    let loaded = load_tree(&t, None);
    assert!(!loaded.has_errors(), "{}", render(&loaded));
    let gen = loaded.generation.clone().unwrap();
    let mut game = Game::new(gen, 1, Box::new(ScriptedController::default()));
    let unit = game.spawn(id("sneak:class/unit"), None, "board").unwrap();
    let err = game
        .emit(Event::new(id("sneak:event/go")))
        .expect_err("the condition's call fails");
    let fault = plugin_fault(&err);
    assert_eq!(fault.kind, PluginFaultKind::HostCall, "{err}");
    assert!(
        fault
            .message
            .contains("set_int: conditions and selectors cannot change the world"),
        "{err}"
    );
    assert_eq!(game.world().get_int(unit, Sym::new("attack")), 1);
    assert!(!game.world().has_tag(unit, Sym::new("seen")));
}

/// Issue 18, finding 6: when a call failed and the guest's `tessera_error` then looped
/// forever, the error said "failed without a message". It says what happened now.
#[test]
fn a_looping_tessera_error_is_reported_as_such() {
    let description = r#"{"abi":1,"name":"mute","provides":[
      {"kind":"condition","id":"mute:condition/fails","doc":"fails, and its error loops","params":[]}]}"#;
    let prelude = prelude("tessera_abi_v1", description).replace(
        r#"(func (export "tessera_error") (result i64) (global.get $err))"#,
        r#"(func (export "tessera_error") (result i64) (loop $l (br $l)) (i64.const 0))"#,
    );
    assert!(
        prelude.contains("(loop $l"),
        "the prelude's tessera_error was replaced"
    );
    let wat = format!(
        r#"(module
  {prelude}
  (func (export "tessera_prepare") (param i32 i32 i32 i32 i32) (result i32) (i32.const 0))
  (func (export "tessera_condition") (param i32 i64) (result i32) (i32.const -1))
)"#
    );
    let t = Tree::new("wat-mute-error");
    t.write(
        "mute",
        "mod.toml",
        &manifest(
            "mute",
            "\n[[plugin]]\nfile = \"plugins/mute.wasm\"\nprovides = [\"condition/fails\"]\n",
        ),
    );
    t.write(
        "mute",
        "content/mute.toml",
        "[event.go]\n\n[class.unit]\n\n[trigger.go]\nwhen = { event = \"go\", condition = { type = \"fails\" } }\ndo = []\n",
    );
    write_wasm(&t, "mute", "mute.wasm", &wat);
    let loaded = load_tree(&t, None);
    assert!(!loaded.has_errors(), "{}", render(&loaded));
    let gen = loaded.generation.clone().unwrap();
    let mut game = Game::new(gen, 1, Box::new(ScriptedController::default()));
    let unit = game.spawn(id("mute:class/unit"), None, "board").unwrap();
    let err = game
        .emit(Event::new(id("mute:event/go")).target(unit))
        .expect_err("the condition fails");
    let fault = plugin_fault(&err);
    assert_eq!(fault.kind, PluginFaultKind::Failed, "{err}");
    assert!(
        fault
            .message
            .contains("its `tessera_error` failed too: ran out of fuel"),
        "{err}"
    );
}
