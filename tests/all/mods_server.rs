//! `server.toml` semantics: enabled/disabled lists, limits, grants, unknown keys.

use std::path::Path;

use tessera_host::mods::{DisableCause, ServerConfig};
use tessera_host::Severity;

use crate::mods_fixture::{find, Tree};

fn tree() -> Tree {
    let t = Tree::new("server");
    t.add("core", "0.1.0", "");
    t.add("cards", "1.0.0", "[dependencies]\ncore = \"0.1\"\n");
    t.add(
        "arena",
        "1.0.0",
        "[dependencies]\ncards = \"1\"\nmusic = { version = \"*\", optional = true }\n",
    );
    t.add("music", "1.0.0", "");
    t.add("extra", "1.0.0", "");
    t
}

#[test]
fn empty_enabled_loads_everything() {
    let t = tree();
    let r = t.resolve_with("");
    assert_eq!(r.ids(), vec!["core", "cards", "extra", "music", "arena"]);
}

#[test]
fn enabled_loads_only_those_and_their_required_dependencies() {
    let t = tree();
    let r = t.resolve_with("enabled = [\"arena\"]\n");
    assert_eq!(r.ids(), vec!["core", "cards", "arena"]);
    assert_eq!(
        r.get_disabled("music").unwrap().cause,
        DisableCause::NotEnabled
    );
    assert_eq!(
        r.get_disabled("extra").unwrap().cause,
        DisableCause::NotEnabled
    );
    assert!(
        r.diagnostics.0.is_empty(),
        "{}",
        r.diagnostics.render(false)
    );
}

#[test]
fn disabled_wins_and_dependents_follow_saying_so() {
    let t = tree();
    let r = t.resolve_with("enabled = [\"arena\", \"core\"]\ndisabled = [\"core\"]\n");
    assert_eq!(r.ids(), Vec::<&str>::new());
    assert_eq!(
        r.get_disabled("core").unwrap().cause,
        DisableCause::Operator
    );
    let cards = r.get_disabled("cards").unwrap();
    assert_eq!(cards.cause, DisableCause::Dependency);
    assert_eq!(
        cards.reasons,
        vec!["disabled because it depends on `core`, which is disabled: disabled in server.toml"]
    );
    let arena = r.get_disabled("arena").unwrap();
    assert_eq!(
        arena.reasons,
        vec!["disabled because it depends on `cards`, which is disabled: it needs `core`, which is disabled: disabled in server.toml"]
    );
    let d = find(&r, "W-DEP-DISABLED");
    assert_eq!(d.severity, Severity::Warning);
    assert!(
        !r.has_errors(),
        "operator choices are not errors:\n{}",
        r.diagnostics.render(false)
    );
}

#[test]
fn unknown_mods_in_lists_get_a_did_you_mean() {
    let t = tree();
    let r = t.resolve_with("enabled = [\"arnea\"]\ndisabled = [\"musik\"]\n");
    let d = find(&r, "E-SERVER-UNKNOWN-MOD");
    assert_eq!(
        d.message,
        "`enabled` in server.toml names `arnea`, but no such mod was found"
    );
    assert_eq!(d.help, vec!["did you mean `arena`?"]);
    assert_eq!(d.location.as_ref().unwrap().line_col(), Some((1, 12)));
    assert_eq!(
        find(&r, "W-SERVER-UNKNOWN-MOD").help,
        vec!["did you mean `music`?"]
    );
}

#[test]
fn limits_grants_and_trust_are_exposed() {
    let text = "trusted_native = [\"fast\"]\n[limits.arena]\nfuel = 5_000_000\nmemory_mb = 32\ntable_elements = 100\nstack_kb = 256\n[grants.arena]\ncapabilities = [\"log\", \"random\"]\n";
    let c = ServerConfig::parse(Path::new("server.toml"), text, Path::new("/srv")).unwrap();
    let l = c.limits_for("arena");
    assert_eq!(
        (l.fuel, l.memory_mb, l.table_elements, l.stack_kb),
        (Some(5_000_000), Some(32), Some(100), Some(256))
    );
    assert_eq!(c.limits_for("other").fuel, None);
    assert_eq!(
        c.grants_for("arena"),
        ["log".to_string(), "random".to_string()]
    );
    assert!(c.is_trusted_native("fast") && !c.is_trusted_native("arena"));
    assert_eq!(c.mod_dirs, vec![Path::new("/srv/mods").to_path_buf()]);
}

#[test]
fn unknown_keys_are_errors_with_line_col() {
    let text = "mod_dirs = [\"mods\"]\ndisable = [\"x\"]\n[limits.arena]\nmemory = 3\n";
    let e = ServerConfig::parse(Path::new("server.toml"), text, Path::new(".")).unwrap_err();
    assert_eq!(e.0.len(), 2);
    assert_eq!(e.0[0].code, "E-SERVER-UNKNOWN-KEY");
    assert_eq!(e.0[0].message, "unknown key `disable` in server.toml");
    assert_eq!(e.0[0].help, vec!["did you mean `disabled`?"]);
    assert_eq!(e.0[0].location.as_ref().unwrap().line_col(), Some((2, 1)));
    assert_eq!(e.0[1].message, "unknown key `memory` in `[limits.arena]`");
    assert_eq!(e.0[1].help, vec!["did you mean `memory_mb`?"]);
    assert_eq!(e.0[1].location.as_ref().unwrap().line_col(), Some((4, 1)));
}

#[test]
fn wrong_types_are_errors() {
    let e = ServerConfig::parse(
        Path::new("server.toml"),
        "enabled = \"arena\"\n[limits.a]\nfuel = -1\n",
        Path::new("."),
    )
    .unwrap_err();
    let codes: Vec<_> = e.0.iter().map(|d| d.code).collect();
    assert_eq!(codes, vec!["E-SERVER-TYPE", "E-SERVER-TYPE"]);
}
