//! Issue 18, finding 6: a trap inside a nested host call (a plugin's condition run by a
//! selector that another plugin's action ran through `query`) returned -1 to the outer
//! guest, which could ignore it and succeed, and the fault did not count toward
//! quarantine. The fault now counts as the faulting plugin's in this world, the outer call
//! fails with it (the command rolls back), and the outer plugin is not blamed.

use tessera_host::{Event, Game, PluginFaultKind, ScriptedController, Sym};

use crate::mods_fixture::Tree;
use crate::plugin_faults::{id, load_tree, manifest, prelude, render, write_wasm};

/// The selector `asker` prepares: every object `trapper`'s condition accepts.
const NESTED_SELECTOR: &str =
    r#"{"type":"core:selector/objects","where":{"type":"trapper:condition/bad"}}"#;

/// `asker:action/ask`: queries [`NESTED_SELECTOR`], ignores the status `query` returns
/// (as a careless guest would), then adds 1 to `asked` of every target.
fn asker_wat() -> String {
    let description = r#"{"abi":1,"name":"asker","provides":[
      {"kind":"action","id":"asker:action/ask","doc":"queries trapper's condition","params":[]}]}"#;
    format!(
        r#"(module
  (import "tessera" "intern" (func $intern (param i32 i32) (result i32)))
  (import "tessera" "add_int" (func $add_int (param i64 i32 i64) (result i64)))
  (import "tessera" "prepare_selector" (func $prepare_selector (param i32 i32) (result i32)))
  (import "tessera" "query" (func $query (param i32 i32 i32) (result i32)))
  {prelude}
  (data (i32.const 4096) "{selector}")
  (data (i32.const 4000) "asked")
  (global $sel (mut i32) (i32.const -1))
  (func (export "tessera_prepare") (param i32 i32 i32 i32 i32) (result i32)
    (global.set $sel (call $prepare_selector (i32.const 4096) (i32.const {len})))
    (i32.const 0))
  (func (export "tessera_action") (param $h i32) (param $ts i32) (param $n i32) (result i32)
    (local $i i32)
    (drop (call $query (global.get $sel) (i32.const 6144) (i32.const 16)))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (drop (call $add_int (i64.load (i32.add (local.get $ts) (i32.shl (local.get $i) (i32.const 3))))
                             (call $intern (i32.const 4000) (i32.const 5)) (i64.const 1)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (i32.const 0))
)"#,
        prelude = prelude("tessera_abi_v1", description),
        selector = NESTED_SELECTOR.replace('"', "\\\""),
        len = NESTED_SELECTOR.len(),
    )
}

/// `trapper:condition/bad`: traps on every object.
fn trapper_wat() -> String {
    let description = r#"{"abi":1,"name":"trapper","provides":[
      {"kind":"condition","id":"trapper:condition/bad","doc":"traps","params":[]}]}"#;
    format!(
        r#"(module
  {prelude}
  (func (export "tessera_prepare") (param i32 i32 i32 i32 i32) (result i32) (i32.const 0))
  (func (export "tessera_condition") (param i32 i64) (result i32) unreachable)
)"#,
        prelude = prelude("tessera_abi_v1", description)
    )
}

fn nested_tree() -> Tree {
    let t = Tree::new("wat-nested-query");
    t.write(
        "trapper",
        "mod.toml",
        &manifest(
            "trapper",
            "\n[[plugin]]\nfile = \"plugins/trapper.wasm\"\nprovides = [\"condition/bad\"]\n",
        ),
    );
    write_wasm(&t, "trapper", "trapper.wasm", &trapper_wat());
    t.write(
        "asker",
        "mod.toml",
        &manifest(
            "asker",
            "[dependencies]\ntrapper = \"1\"\n\n[[plugin]]\nfile = \"plugins/asker.wasm\"\nprovides = [\"action/ask\"]\n",
        ),
    );
    t.write(
        "asker",
        "content/asker.toml",
        "[event.go]\n\n[class.unit]\nproperties = { asked = 0 }\n\n[trigger.go]\nwhen = \"go\"\nselect = { type = \"objects\", class = \"unit\" }\ndo = [{ type = \"ask\" }]\n",
    );
    write_wasm(&t, "asker", "asker.wasm", &asker_wat());
    t
}

#[test]
fn a_trap_in_a_nested_query_fails_the_call_and_counts_toward_quarantine() {
    let t = nested_tree();
    let loaded = load_tree(&t, None);
    assert!(!loaded.has_errors(), "{}", render(&loaded));
    let gen = loaded.generation.clone().expect("generation");
    let mut game = Game::new(gen.clone(), 1, Box::new(ScriptedController::default()));
    let unit = game.spawn(id("asker:class/unit"), None, "board").unwrap();
    let asked = |g: &Game| g.world().get_int(unit, Sym::new("asked"));
    // The default limits quarantine on the 5th fault within the window.
    for n in 1..=5 {
        let before = game.world().checksum();
        let err = game
            .emit(Event::new(id("asker:event/go")))
            .expect_err("the nested fault fails the outer call");
        assert_eq!(
            game.world().checksum(),
            before,
            "fault {n} rolled back: {err}"
        );
        // The asker's call fails as a nested fault; its message carries the trapper's.
        let fault = crate::plugin_faults::plugin_fault(&err);
        assert_eq!(fault.kind, PluginFaultKind::Nested, "fault {n}: {err}");
        assert_eq!(fault.mod_id, "asker", "fault {n}: {err}");
        assert!(
            fault.message.contains("mod `trapper`") && fault.message.contains("trapped"),
            "fault {n}: {err}"
        );
        assert!(fault.message.contains("query failed"), "fault {n}: {err}");
        assert_eq!(
            fault.message.contains("now quarantined in this world"),
            n == 5,
            "fault {n}: {err}"
        );
    }
    // The trapper is off in this world: its condition is false, the query is empty, and
    // the asker (not blamed) runs.
    game.emit(Event::new(id("asker:event/go")))
        .expect("the asker runs once the trapper is off");
    assert_eq!(asked(&game), 1);
    let plugins: Vec<_> = gen
        .registry
        .plugins()
        .iter()
        .map(|p| (p.mod_id.clone(), p.faults_total()))
        .collect();
    assert!(plugins.contains(&("trapper".to_owned(), 5)), "{plugins:?}");
    assert!(plugins.contains(&("asker".to_owned(), 0)), "{plugins:?}");
}
