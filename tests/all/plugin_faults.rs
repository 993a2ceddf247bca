//! Hostile plugins, written by hand in WAT against `plugin-api/ABI.md` alone: each fault
//! fails its call cleanly, rolls the command back (the world's checksum is unchanged),
//! names the mod, plugin file, export, definition id and content file:line, replaces the
//! instance, and leaves the same world running other mods' content. Load-time faults
//! (missing export, wrong ABI, lying `provides`, capabilities, foreign imports) disable
//! only the plugin's mod, with a diagnostic naming the fix.
//!
//! The first test is the positive one: a minimal plugin that implements ABI.md exactly
//! (no SDK) loads and runs, which is what shows ABI.md is complete.

use std::sync::Arc;

use tessera_host::mods::{load, LoadedMods, ServerConfig};
use tessera_host::{
    Event, Game, Id, ObjId, PluginFault, PluginFaultKind, Registry, RuleError, ScriptedController,
    Sym,
};

use crate::mods_fixture::Tree;

// ---------------------------------------------------------------------------------------
// WAT building blocks
// ---------------------------------------------------------------------------------------

/// Escapes text for a WAT string literal.
fn wat_str(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

/// `(ptr << 32) | len`: ABI.md's `packed`.
fn packed(ptr: u32, len: usize) -> i64 {
    (i64::from(ptr) << 32) | len as i64
}

/// Where the description JSON lives in every test module's memory.
const DESC_AT: u32 = 1024;
/// Where a "panic message" lives.
const MSG_AT: u32 = 512;

/// The plumbing every ABI v1 plugin needs (ABI.md "Exports"): `memory`, the version
/// marker, a bump allocator, a no-op `dealloc`, `describe` pointing at a JSON data
/// segment, and `error` returning the last recorded message (`$err`, packed; 0 = none).
/// `marker` is the version export (`tessera_abi_v1` unless a test lies about it).
pub(crate) fn prelude(marker: &str, description: &str) -> String {
    let desc = packed(DESC_AT, description.len());
    format!(
        r#"
  (memory (export "memory") 2)
  ;; The description (ABI.md "The description"), returned by tessera_describe.
  (data (i32.const {DESC_AT}) "{json}")
  ;; Bump allocator: never frees. 0 means out of memory.
  (global $heap (mut i32) (i32.const 8192))
  ;; The last error message, packed (ptr << 32 | len); 0 = none.
  (global $err (mut i64) (i64.const 0))
  (func (export "{marker}"))
  (func (export "tessera_alloc") (param $n i32) (result i32)
    (local $p i32) (local $end i32)
    (local.set $p (global.get $heap))
    (local.set $end (i32.and (i32.add (i32.add (local.get $p) (local.get $n)) (i32.const 7))
                             (i32.const -8)))
    ;; grow memory when the block does not fit
    (if (i32.gt_u (local.get $end) (i32.shl (memory.size) (i32.const 16)))
      (then
        (if (i32.eq (memory.grow (i32.add (i32.shr_u (i32.sub (local.get $end)
                                                             (i32.shl (memory.size) (i32.const 16)))
                                                     (i32.const 16))
                                          (i32.const 1)))
                    (i32.const -1))
          (then (return (i32.const 0))))))
    (global.set $heap (local.get $end))
    (local.get $p))
  (func (export "tessera_dealloc") (param i32 i32))
  (func (export "tessera_describe") (result i64) (i64.const {desc}))
  (func (export "tessera_error") (result i64) (global.get $err))
"#,
        json = wat_str(description),
    )
}

/// The description of the hostile plugin: one condition and one action, no parameters.
fn hostile_description(ids: &[(&str, &str)]) -> String {
    let provides: Vec<String> = ids
        .iter()
        .map(|(kind, id)| {
            format!(
                r#"{{"kind":"{kind}","id":"{id}","doc":"hostile on `evil` objects","params":[]}}"#
            )
        })
        .collect();
    format!(
        r#"{{"abi":1,"name":"hostile","provides":[{}]}}"#,
        provides.join(",")
    )
}

const HOSTILE_IDS: &[(&str, &str)] = &[
    ("condition", "hostile:condition/bad"),
    ("action", "hostile:action/bad"),
];

/// What the hostile plugin does on an object whose `evil` property is non-zero, and how
/// the module is put together. `Default` is a well-behaved plugin.
#[derive(Clone)]
struct Hostile {
    /// WAT instructions run by `tessera_condition` on an evil object (then it returns 1).
    cond_fault: &'static str,
    /// WAT instructions run by `tessera_action` on an evil target (local `$t` is it).
    action_fault: &'static str,
    /// The version marker export.
    marker: &'static str,
    /// Whether `tessera_prepare` is exported.
    prepare: bool,
    /// Extra imports.
    imports: &'static str,
    /// What `describe` says it provides.
    described: Vec<(&'static str, &'static str)>,
}

impl Default for Hostile {
    fn default() -> Self {
        Hostile {
            cond_fault: "",
            action_fault: "",
            marker: "tessera_abi_v1",
            prepare: true,
            imports: "",
            described: HOSTILE_IDS.to_vec(),
        }
    }
}

impl Hostile {
    /// The module text. Well-behaved on non-evil objects: the condition is true, and the
    /// action counts its calls in instance memory (`$calls`) and writes the count to the
    /// target's `calls` property, so a test can tell a fresh instance (count restarts at
    /// 1) from the old one.
    fn wat(&self) -> String {
        let prepare = if self.prepare {
            r#"
  ;; Prepare: intern the property names once (also on every fresh instance, which the
  ;; host prepares again), and hand out handle 0 for every use site.
  (func (export "tessera_prepare") (param i32 i32 i32 i32 i32) (result i32)
    (global.set $s_evil (call $intern (i32.const 16) (i32.const 4)))
    (global.set $s_calls (call $intern (i32.const 24) (i32.const 5)))
    (global.set $s_attack (call $intern (i32.const 32) (i32.const 6)))
    (i32.const 0))"#
        } else {
            "  ;; (no tessera_prepare export)"
        };
        let msg = "the dragon refused: too many heads";
        format!(
            r#"(module
  (import "tessera" "intern" (func $intern (param i32 i32) (result i32)))
  (import "tessera" "get_int" (func $get_int (param i64 i32) (result i64)))
  (import "tessera" "set_int" (func $set_int (param i64 i32 i64) (result i32)))
  {imports}
  {prelude}
  (data (i32.const 16) "evil")
  (data (i32.const 24) "calls")
  (data (i32.const 32) "attack")
  (data (i32.const {MSG_AT}) "{msg}")
  (global $s_evil (mut i32) (i32.const -1))
  (global $s_calls (mut i32) (i32.const -1))
  (global $s_attack (mut i32) (i32.const -1))
  (global $calls (mut i64) (i64.const 0))
  (global $i (mut i32) (i32.const 0))
  {prepare}

  ;; Runaway recursion, for the stack-overflow fault.
  (func $recurse (param $d i64) (result i64)
    (i64.add (call $recurse (i64.add (local.get $d) (i64.const 1))) (i64.const 1)))

  ;; Record a message the way the SDK records a panic message, for tessera_error.
  (func $record_panic
    (global.set $err (i64.const {msg_packed})))

  (func $evil (param $o i64) (result i32)
    (i64.ne (call $get_int (local.get $o) (global.get $s_evil)) (i64.const 0)))

  (func (export "tessera_condition") (param $h i32) (param $o i64) (result i32)
    (if (call $evil (local.get $o))
      (then {cond_fault}))
    (i32.const 1))

  (func (export "tessera_action") (param $h i32) (param $ts i32) (param $n i32) (result i32)
    (local $t i64)
    (local.set $t (i64.load (local.get $ts)))
    (global.set $calls (i64.add (global.get $calls) (i64.const 1)))
    (if (call $evil (local.get $t))
      (then {action_fault}))
    (drop (call $set_int (local.get $t) (global.get $s_calls) (global.get $calls)))
    (i32.const 0))
)"#,
            imports = self.imports,
            prelude = prelude(self.marker, &hostile_description(&self.described)),
            msg_packed = packed(MSG_AT, msg.len()),
            cond_fault = self.cond_fault,
            action_fault = self.action_fault,
        )
    }
}

// The faults (WAT instruction sequences).

/// An endless loop.
const ENDLESS_LOOP: &str = "(loop $forever (br $forever))";
/// Grow memory by 1 MiB until refused, then trap (what a Rust OOM does).
const MEMORY_BOMB: &str = r#"
        (loop $more
          (br_if $more (i32.ne (memory.grow (i32.const 16)) (i32.const -1))))
        (unreachable)"#;
/// One huge grow (4 GiB - 64 KiB), then a store where the memory would be.
const HUGE_GROW: &str = r#"
        (drop (memory.grow (i32.const 65535)))
        (i32.store (i32.const 0x7fff0000) (i32.const 1))"#;
/// Infinite recursion.
const STACK_OVERFLOW: &str = "(drop (call $recurse (i64.const 0)))";
/// Two writes through the transaction, then a trap.
const TWO_WRITES_THEN_TRAP: &str = r#"
        (drop (call $set_int (local.get $t) (global.get $s_attack) (i64.const 100)))
        (drop (call $set_int (local.get $t) (global.get $s_calls) (i64.const 999)))
        (unreachable)"#;
/// A Rust-style panic: record the message, then trap.
const PANIC: &str = "(call $record_panic) (unreachable)";
/// Just trap.
const TRAP: &str = "(unreachable)";
/// About 100,000 iterations: ~600,000 fuel, inside the default budget (10,000,000).
const BUSY_LOOP: &str = r#"
        (global.set $i (i32.const 0))
        (loop $count
          (global.set $i (i32.add (global.get $i) (i32.const 1)))
          (br_if $count (i32.lt_u (global.get $i) (i32.const 100000))))"#;

// ---------------------------------------------------------------------------------------
// The fixture: a well-behaved mod with a built-in trigger, and the hostile mod
// ---------------------------------------------------------------------------------------

const HOSTILE_CONTENT: &str = r#"# The hostile plugin's condition guards the trigger; its action runs after a built-in.
[event.poke]
description = "poke an object"

[class.victim]
properties = { attack = 1, evil = 1, calls = 0, marks = 0 }

[class.bystander]
properties = { attack = 1, evil = 0, calls = 0, marks = 0 }

[trigger.poked]
when = { event = "poke", condition = { type = "bad" } }
do = [
  { type = "add", key = "marks", amount = 1 },
  { type = "bad" },
]
"#;

const GOOD_CONTENT: &str = r#"[class.minion]
properties = { attack = 1 }

[trigger.grow]
when = "core:event/turn_started"
select = { type = "objects", class = "minion" }
do = [{ type = "add", key = "attack", amount = 1 }]
"#;

/// The 1-based line of the first line of `text` containing `needle`.
fn line_of(text: &str, needle: &str) -> usize {
    text.lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("`{needle}` not in content"))
        + 1
}

pub(crate) fn manifest(id: &str, plugin: &str) -> String {
    format!("[mod]\nid = \"{id}\"\nversion = \"1.0.0\"\napi = \"0.1\"\n{plugin}")
}

fn plugin_entry(provides: &[&str], capabilities: &[&str]) -> String {
    let q = |v: &[&str]| {
        v.iter()
            .map(|s| format!("\"{s}\""))
            .collect::<Vec<_>>()
            .join(", ")
    };
    format!(
        "\n[[plugin]]\nfile = \"plugins/hostile.wasm\"\nprovides = [{}]\ncapabilities = [{}]\n",
        q(provides),
        q(capabilities)
    )
}

/// A tree with `good` (built-in content only) and `hostile` (the plugin and its content).
fn tree(h: &Hostile, provides: &[&str], capabilities: &[&str]) -> Tree {
    let t = Tree::new("faults");
    t.write("good", "mod.toml", &manifest("good", ""));
    t.write("good", "content/good.toml", GOOD_CONTENT);
    t.write(
        "hostile",
        "mod.toml",
        &manifest("hostile", &plugin_entry(provides, capabilities)),
    );
    t.write("hostile", "content/hostile.toml", HOSTILE_CONTENT);
    write_wasm(&t, "hostile", "hostile.wasm", &h.wat());
    t
}

pub(crate) fn write_wasm(t: &Tree, folder: &str, file: &str, wat: &str) {
    let bytes = wat::parse_str(wat).unwrap_or_else(|e| panic!("bad WAT: {e}\n{wat}"));
    let path = t.mods().join(folder).join("plugins").join(file);
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, bytes).expect("write wasm");
}

pub(crate) fn server(t: &Tree, text: &str) -> ServerConfig {
    let text = format!("mod_dirs = [\"mods\"]\n{text}");
    ServerConfig::parse(&t.root.join("server.toml"), &text, &t.root)
        .unwrap_or_else(|e| panic!("server.toml: {}", e.render(false)))
}

pub(crate) fn load_tree(t: &Tree, server: Option<&ServerConfig>) -> LoadedMods {
    load(&[t.mods()], server, Arc::new(Registry::with_core()))
}

pub(crate) fn render(l: &LoadedMods) -> String {
    l.all_diagnostics()
        .map(|d| d.render(false))
        .collect::<Vec<_>>()
        .join("\n")
}

pub(crate) fn id(s: &str) -> Id {
    Id::parse(s).unwrap()
}

/// A running world with a minion of `good`, an evil victim and a bystander of `hostile`.
struct Fixture {
    game: Game,
    minion: ObjId,
    victim: ObjId,
    bystander: ObjId,
}

impl Fixture {
    fn new(loaded: &LoadedMods) -> Fixture {
        assert_eq!(loaded.loaded, ["good", "hostile"], "{}", render(loaded));
        let gen = loaded.generation.clone().expect("generation");
        let mut game = Game::new(gen, 7, Box::new(ScriptedController::default()));
        let minion = game.spawn(id("good:class/minion"), None, "board").unwrap();
        let victim = game
            .spawn(id("hostile:class/victim"), None, "board")
            .unwrap();
        let bystander = game
            .spawn(id("hostile:class/bystander"), None, "board")
            .unwrap();
        Fixture {
            game,
            minion,
            victim,
            bystander,
        }
    }

    fn get(&self, o: ObjId, key: &str) -> i64 {
        self.game.world().get_int(o, Sym::new(key))
    }

    fn poke(&mut self, o: ObjId) -> Result<(), RuleError> {
        self.game
            .emit(Event::new(id("hostile:event/poke")).target(o))
            .map(|_| ())
    }

    /// Pokes the victim, expects the command to fail with a plugin fault and change
    /// nothing; returns the fault.
    fn poke_victim_fails(&mut self) -> PluginFault {
        let before = self.game.world().checksum();
        let err = self
            .poke(self.victim)
            .expect_err("the hostile call must fail");
        assert_eq!(
            self.game.world().checksum(),
            before,
            "the failed command must leave the world as it was: {err}"
        );
        plugin_fault(&err).clone()
    }

    /// Other mods' content still runs in this world: the built-in trigger grows the minion.
    fn others_still_run(&mut self) {
        let before = self.get(self.minion, "attack");
        self.game
            .emit(Event::new(id("core:event/turn_started")))
            .expect("good's trigger runs");
        assert_eq!(self.get(self.minion, "attack"), before + 1);
    }

    /// The plugin works again on a harmless object, with a fresh instance: its call
    /// counter (instance memory) starts over.
    fn fresh_instance_works(&mut self, expected_calls: i64) {
        self.poke(self.bystander).expect("the plugin runs again");
        assert_eq!(self.get(self.bystander, "marks"), 1);
        assert_eq!(self.get(self.bystander, "calls"), expected_calls);
    }
}

/// The plugin fault at the root of a rule error (fails the test if it is another error).
pub(crate) fn plugin_fault(err: &RuleError) -> &PluginFault {
    match err.root() {
        RuleError::Plugin(fault) => fault,
        other => panic!("expected a plugin fault, got: {other}"),
    }
}

/// Asserts a run-time fault names everything ABI.md promises, in its fields and in its
/// message.
fn assert_names_everything(fault: &PluginFault, export: &str, def: &str, use_line_needle: &str) {
    let line = line_of(HOSTILE_CONTENT, use_line_needle);
    assert_eq!(fault.mod_id, "hostile", "{fault}");
    assert!(fault.file.ends_with("plugins/hostile.wasm"), "{fault}");
    assert_eq!(fault.export, export, "{fault}");
    assert_eq!(fault.definition, def, "{fault}");
    assert!(
        fault.site.ends_with(&format!("hostile.toml:{line}")),
        "{fault}"
    );
    let err = fault.to_string();
    for part in [
        "mod `hostile`".to_owned(),
        "plugins/hostile.wasm".to_owned(),
        format!("export `{export}`"),
        format!("definition `{def}`"),
        format!("hostile.toml:{line}"),
    ] {
        assert!(err.contains(&part), "`{part}` missing from: {err}");
    }
}

const COND_USE: &str = "condition = { type = \"bad\" }";
const ACTION_USE: &str = "{ type = \"bad\" },";

/// The shared shape of a run-time fault test in the condition.
fn condition_fault(fault: &'static str, expect: PluginFaultKind) -> PluginFault {
    let h = Hostile {
        cond_fault: fault,
        ..Hostile::default()
    };
    let t = tree(&h, &["condition/bad", "action/bad"], &[]);
    let loaded = load_tree(&t, None);
    let mut w = Fixture::new(&loaded);
    // A healthy call first: the instance's call counter is 1.
    w.poke(w.bystander).expect("harmless poke");
    assert_eq!(w.get(w.bystander, "calls"), 1);
    let err = w.poke_victim_fails();
    assert_names_everything(&err, "tessera_condition", "hostile:condition/bad", COND_USE);
    assert_eq!(err.kind, expect, "{err}");
    assert!(err.replaced, "the instance was replaced: {err}");
    w.others_still_run();
    // Reset the bystander's marks, then check the new instance counts from 1 again.
    w.game
        .setup(|world| {
            world.set(w.bystander, Sym::new("marks"), tessera_host::Value::Int(0))?;
            Ok(())
        })
        .unwrap();
    w.fresh_instance_works(1);
    err
}

/// The shared shape of a run-time fault test in the action.
fn action_fault(fault: &'static str, expect: PluginFaultKind) -> PluginFault {
    let h = Hostile {
        action_fault: fault,
        ..Hostile::default()
    };
    let t = tree(&h, &["condition/bad", "action/bad"], &[]);
    let loaded = load_tree(&t, None);
    let mut w = Fixture::new(&loaded);
    w.poke(w.bystander).expect("harmless poke");
    assert_eq!(w.get(w.bystander, "calls"), 1);
    let (attack, calls, marks) = (
        w.get(w.victim, "attack"),
        w.get(w.victim, "calls"),
        w.get(w.victim, "marks"),
    );
    let err = w.poke_victim_fails();
    // The built-in `add marks` before the plugin, and anything the plugin wrote: gone.
    assert_eq!(
        (
            w.get(w.victim, "attack"),
            w.get(w.victim, "calls"),
            w.get(w.victim, "marks")
        ),
        (attack, calls, marks)
    );
    assert_names_everything(&err, "tessera_action", "hostile:action/bad", ACTION_USE);
    assert_eq!(err.kind, expect, "{err}");
    assert!(err.replaced, "the instance was replaced: {err}");
    w.others_still_run();
    w.game
        .setup(|world| {
            world.set(w.bystander, Sym::new("marks"), tessera_host::Value::Int(0))?;
            Ok(())
        })
        .unwrap();
    w.fresh_instance_works(1);
    err
}

// ---------------------------------------------------------------------------------------
// ABI.md is enough: a plugin written by hand loads and runs
// ---------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------
// Run-time faults
// ---------------------------------------------------------------------------------------

#[test]
fn infinite_loop_is_stopped_by_fuel() {
    let err = condition_fault(ENDLESS_LOOP, PluginFaultKind::OutOfFuel);
    assert!(err.message.contains("ran out of fuel"), "{err}");
}

#[test]
fn memory_bomb_hits_the_memory_limit() {
    let err = action_fault(MEMORY_BOMB, PluginFaultKind::MemoryLimit);
    assert!(err.message.contains("trapped"), "{err}");
    assert!(err.message.contains("memory limit"), "{err}");
}

#[test]
fn one_huge_memory_grow_is_refused() {
    let err = action_fault(HUGE_GROW, PluginFaultKind::MemoryLimit);
    assert!(err.message.contains("memory limit"), "{err}");
}

#[test]
fn stack_overflow_is_caught() {
    let err = condition_fault(STACK_OVERFLOW, PluginFaultKind::StackOverflow);
    assert!(err.message.contains("overflowed its stack"), "{err}");
}

#[test]
fn trap_after_two_writes_rolls_both_back() {
    let err = action_fault(TWO_WRITES_THEN_TRAP, PluginFaultKind::Trap);
    assert!(err.message.contains("trapped"), "{err}");
}

#[test]
fn panic_message_reaches_the_error() {
    let err = action_fault(PANIC, PluginFaultKind::Panicked);
    assert_eq!(
        err.message, "panicked: the dragon refused: too many heads",
        "{err}"
    );
}

#[test]
fn fuel_limit_from_server_toml_is_honoured() {
    let h = Hostile {
        cond_fault: BUSY_LOOP,
        ..Hostile::default()
    };
    let t = tree(&h, &["condition/bad", "action/bad"], &[]);

    // Default fuel: the loop fits, the victim is poked.
    let loaded = load_tree(&t, None);
    let mut w = Fixture::new(&loaded);
    w.poke(w.victim).expect("fits the default fuel");
    assert_eq!(w.get(w.victim, "marks"), 1);

    // The operator lowers the fuel for this mod only: the same loop runs out.
    let cfg = server(&t, "[limits.hostile]\nfuel = 100000\n");
    let loaded = load_tree(&t, Some(&cfg));
    let mut w = Fixture::new(&loaded);
    let err = w.poke_victim_fails();
    assert_eq!(err.kind, PluginFaultKind::OutOfFuel, "{err}");
    assert_names_everything(&err, "tessera_condition", "hostile:condition/bad", COND_USE);
    w.others_still_run();
    // A harmless call fits the lowered budget.
    w.fresh_instance_works(1);
}

#[test]
fn repeated_faults_quarantine_the_mod() {
    let h = Hostile {
        cond_fault: TRAP,
        ..Hostile::default()
    };
    let t = tree(&h, &["condition/bad", "action/bad"], &[]);
    let loaded = load_tree(&t, None);
    let mut w = Fixture::new(&loaded);
    for n in 1..=5 {
        let err = w.poke_victim_fails();
        assert_eq!(err.kind, PluginFaultKind::Trap, "fault {n}: {err}");
        assert_eq!(err.quarantine.is_some(), n == 5, "fault {n}: {err}");
        if n == 5 {
            assert!(
                err.to_string().contains("now quarantined in this world")
                    && err
                        .to_string()
                        .contains("switched off and the game goes on"),
                "fault {n}: {err}"
            );
        }
    }
    // Issue 18, finding 4: quarantine isolates. The mod's definitions are switched off in
    // this world (its condition is false, its action does nothing) and the game goes on:
    // poking is no longer an error, and changes nothing of the hostile mod's.
    let before = w.game.world().checksum();
    w.poke(w.victim)
        .expect("a quarantined mod's definitions are off, not errors");
    w.poke(w.bystander).expect("the game goes on");
    assert_eq!(w.get(w.bystander, "marks"), 0, "its action did not run");
    assert_eq!(w.game.world().checksum(), before);
    w.others_still_run();
    // Another world of the same generation never sees this world's quarantine: the mod
    // still runs there (and still faults on the victim).
    let mut other = Fixture::new(&loaded);
    let err = other.poke_victim_fails();
    assert!(
        err.kind == PluginFaultKind::Trap && err.quarantine.is_none(),
        "{err}"
    );
    other.fresh_instance_works(1);
}

// ---------------------------------------------------------------------------------------
// Load-time faults: the mod is disabled, the others load and run
// ---------------------------------------------------------------------------------------

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
