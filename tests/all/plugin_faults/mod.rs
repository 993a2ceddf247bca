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

mod abi_misuse;
mod hand_written;
mod load_time;
mod reload;
mod run_time;

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

/// A running fixture with `h` as the hostile plugin, after one harmless call (the
/// instance's call counter is 1). The tree is returned too: it holds the mods' folder.
fn poked_fixture(h: &Hostile) -> (Tree, Fixture) {
    let t = tree(h, &["condition/bad", "action/bad"], &[]);
    let loaded = load_tree(&t, None);
    let mut w = Fixture::new(&loaded);
    w.poke(w.bystander).expect("harmless poke");
    assert_eq!(w.get(w.bystander, "calls"), 1);
    (t, w)
}

/// The shared shape of a run-time fault test in the condition.
fn condition_fault(fault: &'static str, expect: PluginFaultKind) -> PluginFault {
    let h = Hostile {
        cond_fault: fault,
        ..Hostile::default()
    };
    let (_mods, mut w) = poked_fixture(&h);
    let err = w.poke_victim_fails();
    assert_names_everything(&err, "tessera_condition", "hostile:condition/bad", COND_USE);
    assert_recovered(&mut w, &err, expect);
    err
}

/// The shared shape of a run-time fault test in the action.
fn action_fault(fault: &'static str, expect: PluginFaultKind) -> PluginFault {
    let h = Hostile {
        action_fault: fault,
        ..Hostile::default()
    };
    let (_mods, mut w) = poked_fixture(&h);
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
    assert_recovered(&mut w, &err, expect);
    err
}

/// What every run-time fault leaves: the expected kind, the instance replaced, the other
/// mods still running, and (once the bystander's marks are reset) a new instance that
/// counts its calls from 1 again.
fn assert_recovered(w: &mut Fixture, err: &PluginFault, expect: PluginFaultKind) {
    assert_eq!(err.kind, expect, "{err}");
    assert!(err.replaced, "the instance was replaced: {err}");
    w.others_still_run();
    let bystander = w.bystander;
    w.game
        .setup(|world| {
            world.set(bystander, Sym::new("marks"), tessera_host::Value::Int(0))?;
            Ok(())
        })
        .unwrap();
    w.fresh_instance_works(1);
}
