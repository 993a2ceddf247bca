//! The ABI's host functions called with arbitrary arguments from a guest. One wasm
//! plugin (`fuzz`, written below in WAT) is an interpreter: each call of its condition,
//! selector or action reads one instruction from the event's amount (`event_amount`)
//! and makes the host call it names, with arguments from 16 registers kept in its
//! memory (or traps, loops, grows memory, recurses). The fuzzer's bytes are the
//! instructions, raised as events in a fresh world, so every import runs through the
//! real linker, with guest pointers, handles, symbols and object ids the fuzzer chose,
//! in read-only (condition, selector) and writable (action) calls.
//!
//! Instruction (the event's i64 amount): bits 0-5 the operation, then four 4-bit
//! register numbers a, b, c (arguments) and d (destination), then a signed immediate
//! (bits 22-63).

use std::sync::{Arc, OnceLock};

use tessera_host::mods::{load, ServerConfig};
use tessera_host::{Event, Game, Generation, Id, Registry, ScriptedController};

/// Each operation's WAT: a value for register d (an i64 on the stack). `A`, `B`, `C`
/// are the argument registers as i64, `A32`... as i32.
const OPS: &[&str] = &[
    "(i64.shr_s (local.get $amt) (i64.const 22))",
    "(call $ctx A32)",
    "(call $event_amount)",
    "(i64.extend_i32_s (call $exists A))",
    "(call $get_int A B32)",
    "(i64.trunc_sat_f64_s (call $get_float A B32))",
    "(i64.extend_i32_s (call $has_prop A B32))",
    "(i64.extend_i32_s (call $has_tag A B32))",
    "(i64.extend_i32_s (call $zone A))",
    "(i64.extend_i32_s (call $class A))",
    "(call $owner A)",
    "(call $parent A)",
    "(i64.extend_i32_s (call $query A32 B32 C32))",
    "(i64.trunc_sat_f64_s (call $eval A32))",
    "(call $push A) (global.set $pushed (i32.add (global.get $pushed) (i32.const 1))) (i64.const 0)",
    "(i64.trunc_sat_f64_s (call $pipeline_get A32))",
    "(call $pipeline_set A32 (f64.reinterpret_i64 B)) (i64.const 0)",
    "(i64.extend_i32_s (call $set_int A B32 C))",
    "(call $add_int A B32 C)",
    "(i64.extend_i32_s (call $add_tag A B32))",
    "(i64.extend_i32_s (call $remove_tag A B32))",
    "(i64.extend_i32_s (call $emit A32 B C))",
    "(i64.extend_i32_s (call $run_action A32 B32 C32))",
    "(i64.extend_i32_s (call $intern A32 B32))",
    "(call $random A B)",
    "(call $log A32 B32 C32) (i64.const 0)",
    "(i64.add A B)",
    // Guest memory past the registers and names: targets for run_action, names to intern.
    "(i64.store (i32.add (i32.const 4096) (i32.and A32 (i32.const 0x7ff8))) B) (i64.const 0)",
    // A known name (IMM mod 16) interned: real keys, tags, zones and events.
    "(i64.extend_i32_s (call $intern (i32.load (call $name IMM)) (i32.load (i32.add (call $name IMM) (i32.const 4)))))",
    "(i64.extend_i32_s (call $prepare_selector A32 B32))",
    "(i64.extend_i32_s (call $prepare_action A32 B32))",
    "(i64.extend_i32_s (call $prepare_expr A32 B32))",
    "(unreachable)",
    "(loop $spin (br $spin)) (i64.const 0)",
    "(i64.extend_i32_s (memory.grow (i32.and A32 (i32.const 0xffff))))",
    "(call $deep (i64.const 0))",
];

/// Names the guest can intern by number (op 28).
const NAMES: &[&str] = &[
    "attack", "max_health", "damage", "board", "hand", "beast", "fuzz:event/op",
    "fuzz:event/cop", "fuzz:event/sop", "fuzz:event/plain", "core:event/turn_started",
    "fuzz:class/unit", "marks", "no-such-name", "", "core:event/tick",
];

const IMPORTS: &str = r#"
  (import "tessera" "intern" (func $intern (param i32 i32) (result i32)))
  (import "tessera" "ctx" (func $ctx (param i32) (result i64)))
  (import "tessera" "event_amount" (func $event_amount (result i64)))
  (import "tessera" "exists" (func $exists (param i64) (result i32)))
  (import "tessera" "get_int" (func $get_int (param i64 i32) (result i64)))
  (import "tessera" "get_float" (func $get_float (param i64 i32) (result f64)))
  (import "tessera" "has_prop" (func $has_prop (param i64 i32) (result i32)))
  (import "tessera" "has_tag" (func $has_tag (param i64 i32) (result i32)))
  (import "tessera" "zone" (func $zone (param i64) (result i32)))
  (import "tessera" "class" (func $class (param i64) (result i32)))
  (import "tessera" "owner" (func $owner (param i64) (result i64)))
  (import "tessera" "parent" (func $parent (param i64) (result i64)))
  (import "tessera" "query" (func $query (param i32 i32 i32) (result i32)))
  (import "tessera" "eval" (func $eval (param i32) (result f64)))
  (import "tessera" "push" (func $push (param i64)))
  (import "tessera" "pipeline_get" (func $pipeline_get (param i32) (result f64)))
  (import "tessera" "pipeline_set" (func $pipeline_set (param i32 f64)))
  (import "tessera" "set_int" (func $set_int (param i64 i32 i64) (result i32)))
  (import "tessera" "add_int" (func $add_int (param i64 i32 i64) (result i64)))
  (import "tessera" "add_tag" (func $add_tag (param i64 i32) (result i32)))
  (import "tessera" "remove_tag" (func $remove_tag (param i64 i32) (result i32)))
  (import "tessera" "emit" (func $emit (param i32 i64 i64) (result i32)))
  (import "tessera" "run_action" (func $run_action (param i32 i32 i32) (result i32)))
  (import "tessera" "prepare_selector" (func $prepare_selector (param i32 i32) (result i32)))
  (import "tessera" "prepare_action" (func $prepare_action (param i32 i32) (result i32)))
  (import "tessera" "prepare_expr" (func $prepare_expr (param i32 i32) (result i32)))
  (import "tessera" "random" (func $random (param i64 i64) (result i64)))
  (import "tessera" "log" (func $log (param i32 i32 i32)))
"#;

/// Host objects the guest prepares (their handles go to registers 13, 14, 15).
const SELECTOR: &str = r#"{"type":"core:selector/objects","class":"fuzz:class/unit"}"#;
const ACTIONS: &str = r#"[{"type":"core:action/add","key":"attack","amount":1}]"#;
const EXPR: &str = r#""self.attack * 2 + 1""#;

const DESCRIPTION: &str = r#"{"abi":1,"name":"fuzz","provides":[
  {"kind":"condition","id":"fuzz:condition/check","doc":"one instruction","params":[]},
  {"kind":"selector","id":"fuzz:selector/pick","doc":"one instruction","params":[]},
  {"kind":"action","id":"fuzz:action/step","doc":"one instruction","params":[]}]}"#;

/// Where things live in the guest's memory.
const NAME_TABLE: usize = 256;
const NAME_TEXT: usize = 512;
const JSON_AT: usize = 2048;
const DESC_AT: usize = 24576;

fn wat_string(s: &str) -> String {
    s.bytes().map(|b| format!("\\{b:02x}")).collect()
}

/// The interpreter's `$step`: decode, dispatch with `br_table`, store the result.
fn step_function() -> String {
    let mut body = String::from("(block $op0 (br_table");
    for i in 0..OPS.len() {
        body.push_str(&format!(" $op{i}"));
    }
    body.push_str(" $op0 (i32.wrap_i64 (i64.and (local.get $amt) (i64.const 63)))))\n");
    let mut wat = String::new();
    for i in (1..OPS.len()).rev() {
        wat.push_str(&format!("(block $op{i}\n"));
    }
    wat.push_str(&body);
    for (i, op) in OPS.iter().enumerate() {
        let code = op
            .replace("A32", "(i32.wrap_i64 (local.get $a))")
            .replace("B32", "(i32.wrap_i64 (local.get $b))")
            .replace("C32", "(i32.wrap_i64 (local.get $c))")
            .replace(" A)", " (local.get $a))")
            .replace(" A ", " (local.get $a) ")
            .replace(" B)", " (local.get $b))")
            .replace(" B ", " (local.get $b) ")
            .replace(" C)", " (local.get $c))")
            .replace("IMM", "(i64.shr_s (local.get $amt) (i64.const 22))");
        wat.push_str(&format!("  (local.set $v {code}) (br $done)\n"));
        if i + 1 < OPS.len() {
            wat.push_str(")\n");
        }
    }
    format!(
        r#"(func $step (param $amt i64)
    (local $a i64) (local $b i64) (local $c i64) (local $v i64)
    (local.set $a (call $reg (i64.shr_u (local.get $amt) (i64.const 6))))
    (local.set $b (call $reg (i64.shr_u (local.get $amt) (i64.const 10))))
    (local.set $c (call $reg (i64.shr_u (local.get $amt) (i64.const 14))))
    (block $done
{wat})
    (call $set (i64.shr_u (local.get $amt) (i64.const 18)) (local.get $v)))"#
    )
}

/// The interpreter plugin, in WAT.
pub fn guest_wat() -> String {
    let mut data = String::new();
    let mut text_at = NAME_TEXT;
    for (i, name) in NAMES.iter().enumerate() {
        let entry = [text_at as u32, name.len() as u32];
        let bytes: Vec<u8> = entry.iter().flat_map(|v| v.to_le_bytes()).collect();
        let entry: String = bytes.iter().map(|b| format!("\\{b:02x}")).collect();
        data.push_str(&format!("  (data (i32.const {}) \"{entry}\")\n", NAME_TABLE + i * 8));
        data.push_str(&format!("  (data (i32.const {text_at}) \"{}\")\n", wat_string(name)));
        text_at += name.len();
    }
    let mut json_at = JSON_AT;
    let mut prepares = String::new();
    for (reg, (import, json)) in [("prepare_selector", SELECTOR), ("prepare_action", ACTIONS), ("prepare_expr", EXPR)]
        .iter()
        .enumerate()
    {
        data.push_str(&format!("  (data (i32.const {json_at}) \"{}\")\n", wat_string(json)));
        prepares.push_str(&format!(
            "    (call $set (i64.const {}) (i64.extend_i32_s (call ${import} (i32.const {json_at}) (i32.const {}))))\n",
            13 + reg,
            json.len()
        ));
        json_at += json.len();
    }
    let desc = (DESC_AT as i64) << 32 | DESCRIPTION.len() as i64;
    format!(
        r#"(module
{IMPORTS}
  (memory (export "memory") 1)
{data}
  (data (i32.const {DESC_AT}) "{description}")
  (global $heap (mut i32) (i32.const 32768))
  (global $pushed (mut i32) (i32.const 0))
  (func (export "tessera_abi_v1"))
  (func (export "tessera_alloc") (param $n i32) (result i32)
    (local $p i32) (local $end i32)
    (local.set $p (global.get $heap))
    (local.set $end (i32.and (i32.add (i32.add (local.get $p) (local.get $n)) (i32.const 7)) (i32.const -8)))
    (if (i32.gt_u (local.get $end) (i32.shl (memory.size) (i32.const 16)))
      (then (if (i32.eq (memory.grow (i32.add (i32.shr_u (i32.sub (local.get $end) (i32.shl (memory.size) (i32.const 16))) (i32.const 16)) (i32.const 1))) (i32.const -1))
        (then (return (i32.const 0))))))
    (global.set $heap (local.get $end))
    (local.get $p))
  (func (export "tessera_dealloc") (param i32 i32))
  (func (export "tessera_describe") (result i64) (i64.const {desc}))
  (func (export "tessera_error") (result i64) (i64.const 0))
  (func $reg (param $i i64) (result i64)
    (i64.load (i32.shl (i32.and (i32.wrap_i64 (local.get $i)) (i32.const 15)) (i32.const 3))))
  (func $set (param $i i64) (param $v i64)
    (i64.store (i32.shl (i32.and (i32.wrap_i64 (local.get $i)) (i32.const 15)) (i32.const 3)) (local.get $v)))
  (func $name (param $k i64) (result i32)
    (i32.add (i32.const {NAME_TABLE}) (i32.shl (i32.and (i32.wrap_i64 (local.get $k)) (i32.const 15)) (i32.const 3))))
  (func $deep (param $n i64) (result i64)
    (i64.add (call $deep (i64.add (local.get $n) (i64.const 1))) (i64.const 1)))
  {step}
  (func (export "tessera_prepare") (param i32 i32 i32 i32 i32) (result i32)
{prepares}    (i32.const 0))
  (func (export "tessera_condition") (param $h i32) (param $o i64) (result i32)
    (call $set (i64.const 12) (local.get $o))
    (call $step (call $event_amount))
    (i32.wrap_i64 (i64.and (call $reg (i64.const 0)) (i64.const 1))))
  (func (export "tessera_select") (param $h i32) (result i32)
    (global.set $pushed (i32.const 0))
    (call $step (call $event_amount))
    (global.get $pushed))
  (func (export "tessera_action") (param $h i32) (param $ts i32) (param $n i32) (result i32)
    (if (i32.gt_s (local.get $n) (i32.const 0))
      (then (call $set (i64.const 12) (i64.load (local.get $ts)))))
    (call $step (call $event_amount))
    (i32.const 0))
)"#,
        description = wat_string(DESCRIPTION),
        step = step_function(),
    )
}

const MANIFEST: &str = r#"[mod]
id = "fuzz"
version = "1.0.0"
api = "0.1"

[[plugin]]
file = "plugins/fuzz.wasm"
provides = ["condition/check", "selector/pick", "action/step"]
capabilities = ["random", "log"]
"#;

const CONTENT: &str = r#"
[event.op]
[event.cop]
[event.sop]
[event.plain]

[class.unit]
properties = { attack = 1, max_health = 5 }
tags = ["beast"]

[trigger.op]
when = "op"
select = { type = "objects", class = "unit" }
do = [{ type = "step" }]

[trigger.cop]
when = { event = "cop", condition = { type = "check" } }
do = [{ type = "add", key = "marks", amount = 1 }]

[trigger.sop]
when = "sop"
select = { type = "pick" }
do = [{ type = "add", key = "marks", amount = 1 }]
"#;

/// Small limits, so a runaway instruction costs little: fuel for a short loop, a few
/// MiB of memory, a small stack.
const SERVER: &str = r#"mod_dirs = ["mods"]

[grants.fuzz]
capabilities = ["random", "log"]

[limits.fuzz]
fuel = 20000
memory_mb = 4
stack_kb = 64
"#;

/// The generation with the interpreter plugin, loaded once per process.
pub fn generation() -> Arc<Generation> {
    static GEN: OnceLock<Arc<Generation>> = OnceLock::new();
    GEN.get_or_init(|| {
        let dir = crate::scratch_dir("host-calls");
        let wasm = wat::parse_str(guest_wat()).expect("the interpreter's WAT");
        crate::write(&dir, "mods/fuzz/mod.toml", MANIFEST.as_bytes());
        crate::write(&dir, "mods/fuzz/content/fuzz.toml", CONTENT.as_bytes());
        crate::write(&dir, "mods/fuzz/plugins/fuzz.wasm", &wasm);
        let server = ServerConfig::parse(&dir.join("server.toml"), SERVER, &dir)
            .unwrap_or_else(|e| panic!("server.toml: {}", e.render(false)));
        let loaded = load(&[dir.join("mods")], Some(&server), Arc::new(Registry::with_core()));
        let problems: Vec<String> = loaded
            .all_diagnostics()
            .filter(|d| d.is_error())
            .map(|d| d.render(false))
            .collect();
        assert!(problems.is_empty(), "the fuzz mod must load:\n{}", problems.join("\n"));
        loaded.generation.expect("a generation")
    })
    .clone()
}

/// Runs the fuzzer's bytes as instructions: 9 bytes each (which event and target, then
/// the amount), at most 256, in a fresh world with three units.
pub fn run(data: &[u8]) {
    let gen = generation();
    let mut game = Game::new(gen, 1, Box::new(ScriptedController::default()));
    let unit = Id::parse("fuzz:class/unit").expect("an id");
    let units: Vec<_> = (0..3)
        .filter_map(|i| game.spawn(unit, None, if i == 2 { "hand" } else { "board" }).ok())
        .collect();
    let events = ["fuzz:event/op", "fuzz:event/cop", "fuzz:event/sop", "fuzz:event/plain"]
        .map(|e| Id::parse(e).expect("an id"));
    for chunk in data.chunks_exact(9).take(256) {
        let which = usize::from(chunk[0] & 3);
        let amount = i64::from_le_bytes(chunk[1..9].try_into().unwrap_or([0; 8]));
        let mut event = Event::new(events[which]).amount(amount);
        if let Some(u) = units.get(usize::from(chunk[0] >> 2) % 4) {
            event = event.source(*u).target(*u);
        }
        let _ = game.emit(event);
    }
    let _ = game.world().checksum();
}
