//! Issue 18, finding 2, end to end: names a plugin interns are kept for the life of the
//! process, so new ones are bounded (`plugins::MAX_GUEST_SYMBOLS` per process, each at
//! most `plugins::MAX_GUEST_NAME` bytes) while known names always resolve. Run in a
//! `tessera check` process of its own: the budget is process-wide, and spending it here
//! must not starve the other tests.

use tessera_host::plugins::{MAX_GUEST_NAME, MAX_GUEST_SYMBOLS};

use crate::cli::tessera;
use crate::mods_fixture::Tree;
use crate::plugin_faults::{manifest, prelude, write_wasm};

/// How many times the content uses the plugin's condition: `tessera_prepare` runs once per
/// use, on one load-time instance, and each call interns a share of the names (one call
/// interning them all would pass the wall-clock deadline in a debug build).
const USES: usize = 16;

/// A plugin whose `tessera_prepare` calls together intern `tries` new names (`~` and four
/// letters); the call that reaches `tries` then interns one name a byte too long and
/// `core:event/turn_started` (known: the content names it), and succeeds only if exactly the budget of new names was
/// granted, the long one refused and a known name still resolved; otherwise it fails.
fn name_spender(tries: usize) -> String {
    let chunk = tries.div_ceil(USES);
    let description = r#"{"abi":1,"name":"names","provides":[
      {"kind":"condition","id":"names:condition/any","doc":"always true","params":[]}]}"#;
    let long = MAX_GUEST_NAME + 1;
    format!(
        r#"(module
  (import "tessera" "intern" (func $intern (param i32 i32) (result i32)))
  {prelude}
  (data (i32.const 24) "core:event/turn_started")
  (data (i32.const 128) "granted a wrong number of new names, or a too-long one, or not a known name")
  (func $letter (param $n i32) (param $at i32)
    (i32.store8 (local.get $at) (i32.add (i32.const 97) (i32.rem_u (local.get $n) (i32.const 26)))))
  (global $i (mut i32) (i32.const 0))
  (global $granted (mut i32) (i32.const 0))
  (func (export "tessera_prepare") (param i32 i32 i32 i32 i32) (result i32)
    (local $stop i32) (local $ok i32)
    (if (i32.ge_u (global.get $i) (i32.const {tries})) (then (return (i32.const 0))))
    (local.set $stop (i32.add (global.get $i) (i32.const {chunk})))
    (i32.store8 (i32.const 256) (i32.const 126))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (global.get $i) (i32.const {tries})))
        (br_if $done (i32.ge_u (global.get $i) (local.get $stop)))
        (call $letter (global.get $i) (i32.const 257))
        (call $letter (i32.div_u (global.get $i) (i32.const 26)) (i32.const 258))
        (call $letter (i32.div_u (global.get $i) (i32.const 676)) (i32.const 259))
        (call $letter (i32.div_u (global.get $i) (i32.const 17576)) (i32.const 260))
        (if (i32.ge_s (call $intern (i32.const 256) (i32.const 5)) (i32.const 0))
          (then (global.set $granted (i32.add (global.get $granted) (i32.const 1)))))
        (global.set $i (i32.add (global.get $i) (i32.const 1)))
        (br $next)))
    (if (i32.lt_u (global.get $i) (i32.const {tries})) (then (return (i32.const 0))))
    ;; a name longer than the limit (zero bytes are valid UTF-8)
    (local.set $ok (i32.and
      (i32.eq (global.get $granted) (i32.const {budget}))
      (i32.and
        (i32.lt_s (call $intern (i32.const 4096) (i32.const {long})) (i32.const 0))
        (i32.ge_s (call $intern (i32.const 24) (i32.const 23)) (i32.const 0)))))
    (if (result i32) (local.get $ok)
      (then (i32.const 0))
      (else
        (global.set $err (i64.or (i64.shl (i64.const 128) (i64.const 32)) (i64.const 75)))
        (i32.const -1))))
  (func (export "tessera_condition") (param i32 i64) (result i32) (i32.const 1))
)"#,
        prelude = prelude("tessera_abi_v1", description),
        budget = MAX_GUEST_SYMBOLS,
    )
}

/// `USES` triggers, each guarded by the plugin's condition.
fn uses() -> String {
    (0..USES)
        .map(|n| {
            format!("[trigger.t{n}]\nwhen = {{ event = \"core:event/turn_started\", condition = {{ type = \"any\" }} }}\ndo = []\n")
        })
        .collect()
}

/// `tessera check` of a mod whose plugin asks for `tries` new names: its status, stdout
/// and stderr.
fn check_spender(tries: usize) -> (bool, String, String) {
    let t = Tree::new("names");
    t.write(
        "names",
        "mod.toml",
        &manifest(
            "names",
            "\n[[plugin]]\nfile = \"plugins/names.wasm\"\nprovides = [\"condition/any\"]\n",
        ),
    );
    t.write("names", "content/names.toml", &uses());
    write_wasm(&t, "names", "names.wasm", &name_spender(tries));
    let out = tessera(&t.root, &t.root)
        .args(["check", "--mods", "mods"])
        .assert()
        .get_output()
        .clone();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn new_names_past_the_process_budget_are_refused_and_known_names_still_resolve() {
    let (ok, stdout, stderr) = check_spender(MAX_GUEST_SYMBOLS + 5_000);
    assert!(ok, "{stdout}\n{stderr}");
    // 5,000 refusals are one warning, not 5,000 lines.
    assert_eq!(stderr.matches("past the limit").count(), 1, "{stderr}");
    assert!(
        stdout.contains("1 loaded") && stdout.contains("0 errors"),
        "{stdout}\n{stderr}"
    );
}

/// The check above can fail: a plugin asking for fewer names than the budget is told
/// every one was granted, so its count differs and it fails.
#[test]
fn the_name_spender_fails_when_the_budget_is_not_what_it_expects() {
    let (ok, stdout, stderr) = check_spender(1_000);
    assert!(!ok, "{stdout}");
    assert!(
        stderr.contains("granted a wrong number of new names"),
        "{stdout}\n{stderr}"
    );
}
