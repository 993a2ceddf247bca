//! Resolution over whole fixture trees: every failure kind, isolation, order, explain.

use tessera_host::mods::{discover, resolve, DisableCause, EnabledBecause};
use tessera_host::Severity;

use crate::mods_fixture::{codes, display, find, Tree};

#[test]
fn missing_dependency_says_what_is_needed_and_how_to_fix_it() {
    let t = Tree::new("missing");
    t.add("a", "1.0.0", "[dependencies]\ncore = \"^0.2\"\n");
    let r = t.resolve();
    let d = find(&r, "E-DEP-MISSING");
    assert_eq!(
        d.message,
        "mod `a` requires `core` ^0.2, but no mod `core` is installed"
    );
    assert_eq!(
        d.help,
        vec![format!(
            "install a version of `core` matching `^0.2` into a mod folder, or remove `core` from `[dependencies]` in `{}`",
            display(&t.manifest_path("a"))
        )]
    );
    assert_eq!(d.location.as_ref().unwrap().line_col(), Some((6, 1)));
    assert!(r.order.is_empty());
    let a = r.get_disabled("a").unwrap();
    assert_eq!(a.cause, DisableCause::Broken);
    assert_eq!(
        a.reasons,
        vec!["it requires `core` ^0.2, which is not installed"]
    );
}

#[test]
fn missing_dependency_suggests_a_similar_id() {
    let t = Tree::new("missing-typo");
    t.add("core", "0.2.0", "");
    t.add("a", "1.0.0", "[dependencies]\ncroe = \"^0.2\"\n");
    let r = t.resolve();
    assert_eq!(find(&r, "E-DEP-MISSING").help[0], "did you mean `core`?");
}

#[test]
fn version_mismatch_names_the_installed_version_and_where() {
    let t = Tree::new("mismatch");
    let core = t.add("core", "0.1.3", "");
    t.add("a", "1.0.0", "[dependencies]\ncore = \"^0.2\"\n");
    let r = t.resolve();
    let d = find(&r, "E-DEP-VERSION");
    assert_eq!(
        d.message,
        "mod `a` requires `core` ^0.2, but version 0.1.3 is installed"
    );
    assert_eq!(
        d.notes,
        vec![format!("`core` 0.1.3 is installed in `{}`", display(&core))]
    );
    assert_eq!(
        d.help,
        vec![format!(
            "install a version of `core` matching `^0.2`, or change the requirement in `{}` to `core = \"^0.1.3\"` if `a` works with it",
            display(&t.manifest_path("a"))
        )]
    );
    assert_eq!(r.ids(), vec!["core"]);
}

#[test]
fn version_conflict_names_both_requirements() {
    let t = Tree::new("conflict");
    t.add("core", "0.1.3", "");
    t.add("a", "1.0.0", "[dependencies]\ncore = \"^0.1\"\n");
    t.add("b", "1.0.0", "[dependencies]\ncore = \"^0.2\"\n");
    let r = t.resolve();
    let d = find(&r, "E-DEP-CONFLICT");
    assert_eq!(
        d.message,
        "version conflict on `core`: `b` requires ^0.2, but the installed 0.1.3 is the one other mods need"
    );
    assert!(
        d.notes
            .contains(&"`a` requires `core` ^0.1, which 0.1.3 satisfies".to_string()),
        "{:?}",
        d.notes
    );
    assert_eq!(r.ids(), vec!["core", "a"]);
}

#[test]
fn breaks_refuses_the_pair_with_the_reason() {
    let t = Tree::new("breaks");
    t.add("old-arena", "1.0.0", "");
    t.add(
        "arena",
        "2.0.0",
        "[breaks]\nold-arena = { version = \"*\", reason = \"replaced by arena\" }\n",
    );
    let r = t.resolve();
    let d = find(&r, "E-MOD-BREAKS");
    assert_eq!(
        d.message,
        "mods `arena` and `old-arena` cannot load together: replaced by arena"
    );
    assert_eq!(
        d.help,
        vec!["disable one of them in server.toml: `disabled = [\"old-arena\"]` keeps `arena`, `disabled = [\"arena\"]` keeps `old-arena`".to_string()]
    );
    assert_eq!(r.ids(), vec!["old-arena"]);
    assert_eq!(
        r.get_disabled("arena").unwrap().reasons,
        vec!["it breaks `old-arena` 1.0.0, which is also enabled: replaced by arena"]
    );
    // The operator's fix works.
    let r = t.resolve_with("disabled = [\"old-arena\"]\n");
    assert_eq!(r.ids(), vec!["arena"]);
    assert!(!r.has_errors(), "{}", r.diagnostics.render(false));
}

#[test]
fn conflicts_only_warn() {
    let t = Tree::new("conflicts");
    t.add(
        "a",
        "1.0.0",
        "[conflicts]\nb = { version = \"*\", reason = \"both change combat\" }\n",
    );
    t.add("b", "1.0.0", "");
    let r = t.resolve();
    let d = find(&r, "W-MOD-CONFLICT");
    assert_eq!(d.severity, Severity::Warning);
    assert_eq!(d.notes, vec!["both change combat"]);
    assert_eq!(r.ids(), vec!["a", "b"]);
}

#[test]
fn duplicate_ids_name_both_paths() {
    let t = Tree::new("duplicate");
    t.add("core", "0.1.0", "");
    let other = t.root.join("more");
    std::fs::create_dir_all(other.join("core-fork")).unwrap();
    std::fs::write(
        other.join("core-fork/mod.toml"),
        "[mod]\nid = \"core\"\nversion = \"0.2.0\"\napi = \"0.1\"\n",
    )
    .unwrap();
    t.add("a", "1.0.0", "[dependencies]\ncore = \"*\"\n");
    t.add("b", "1.0.0", "");
    let r = resolve(
        &discover(&[t.mods(), other.clone()]),
        &tessera_host::mods::HOST_API_VERSION,
        None,
    );
    let d = find(&r, "E-MOD-DUPLICATE");
    assert_eq!(
        d.message,
        format!(
            "two mods use the id `core`: `{}` and `{}`",
            display(&t.mods().join("core")),
            display(&other.join("core-fork"))
        )
    );
    assert_eq!(r.ids(), vec!["b"]);
    assert_eq!(r.get_disabled("a").unwrap().cause, DisableCause::Dependency);
}

#[test]
fn cycle_path_is_printed_exactly() {
    let t = Tree::new("cycle");
    t.add("a", "1.0.0", "[dependencies]\nb = \"*\"\n");
    t.add("b", "1.0.0", "[dependencies]\nc = \"*\"\n");
    t.add("c", "1.0.0", "[dependencies]\na = \"*\"\n");
    t.add("d", "1.0.0", "[dependencies]\na = \"*\"\n");
    t.add("e", "1.0.0", "");
    let r = t.resolve();
    let d = find(&r, "E-DEP-CYCLE");
    assert_eq!(d.message, "dependency cycle: a -> b -> c -> a");
    assert_eq!(d.location.as_ref().unwrap().line_col(), Some((6, 1)));
    assert_eq!(r.ids(), vec!["e"]);
    assert_eq!(
        r.get_disabled("b").unwrap().reasons,
        vec!["it is part of the dependency cycle a -> b -> c -> a"]
    );
    assert_eq!(
        r.get_disabled("d").unwrap().reasons,
        vec!["disabled because it depends on `a`, which is disabled: it is part of the dependency cycle a -> b -> c -> a"]
    );
}

#[test]
fn self_dependency_is_a_cycle() {
    let t = Tree::new("self-cycle");
    t.add("a", "1.0.0", "[dependencies]\na = \"*\"\n");
    let r = t.resolve();
    assert_eq!(find(&r, "E-DEP-CYCLE").message, "dependency cycle: a -> a");
}

#[test]
fn another_platform_api_is_refused() {
    let t = Tree::new("api");
    t.write(
        "future",
        "mod.toml",
        "[mod]\nid = \"future\"\nversion = \"1.0.0\"\napi = \"0.2\"\n",
    );
    let r = t.resolve();
    let d = find(&r, "E-MOD-API");
    assert_eq!(
        d.message,
        "mod `future` 1.0.0 targets platform API `^0.2`, but this host provides API 0.1.0"
    );
    assert_eq!(d.help, vec!["use a version of `future` made for API 0.1, or a Tessera host that provides API `^0.2`"]);
    assert_eq!(d.location.as_ref().unwrap().line_col(), Some((4, 7)));
}

#[test]
fn dependents_are_disabled_transitively_and_say_why() {
    let t = Tree::new("cascade");
    t.add("a", "1.0.0", "[dependencies]\nmissing = \"1\"\n");
    t.add("b", "1.0.0", "[dependencies]\na = \"1\"\n");
    t.add("c", "1.0.0", "[dependencies]\nb = \"1\"\n");
    let r = t.resolve();
    assert_eq!(
        r.get_disabled("b").unwrap().reasons,
        vec!["disabled because it depends on `a`, which is disabled: it requires `missing` ^1, which is not installed"]
    );
    assert_eq!(
        r.get_disabled("c").unwrap().reasons,
        vec!["disabled because it depends on `b`, which is disabled: it needs `a`, which is disabled: it requires `missing` ^1, which is not installed"]
    );
    assert_eq!(find(&r, "E-DEP-DISABLED").severity, Severity::Error);
    assert_eq!(
        r.explain("c").unwrap(),
        format!(
            "`c` is disabled: {}",
            r.get_disabled("c").unwrap().reasons[0]
        )
    );
}

#[test]
fn five_mods_one_broken_four_load() {
    let t = Tree::new("five");
    t.add("core", "0.1.0", "");
    t.add("cards", "1.0.0", "[dependencies]\ncore = \"^0.1\"\n");
    t.add(
        "arena",
        "1.4.0",
        "[dependencies]\ncore = \"^0.1\"\ncards = \"1\"\n",
    );
    t.add("music", "0.3.0", "");
    t.write("broken", "mod.toml", "[mod]\nid = \"broken\"\nversion = \"1.0\"\napi = \"0.1\"\n[dependencies]\ncore = \"^0.1\"\n");
    let d = t.discover();
    let r = resolve(&d, &tessera_host::mods::HOST_API_VERSION, None);
    assert_eq!(r.ids(), vec!["core", "cards", "arena", "music"]);
    assert_eq!(r.disabled.len(), 1);
    assert_eq!(r.disabled[0].id, "broken");
    assert_eq!(r.disabled[0].cause, DisableCause::Broken);
    assert_eq!(d.diagnostics.0.len(), 1);
    assert!(
        r.diagnostics.0.is_empty(),
        "{}",
        r.diagnostics.render(false)
    );
}

#[test]
fn every_problem_is_reported_in_one_pass() {
    let t = Tree::new("all-at-once");
    t.add("a", "1.0.0", "[dependencies]\nnope = \"1\"\n");
    t.add("b", "1.0.0", "[dependencies]\nc = \"*\"\n");
    t.add("c", "1.0.0", "[dependencies]\nb = \"*\"\n");
    t.write(
        "f",
        "mod.toml",
        "[mod]\nid = \"f\"\nversion = \"1.0.0\"\napi = \"9\"\n",
    );
    t.add("ok", "1.0.0", "");
    let r = t.resolve();
    let mut c = codes(&r);
    c.sort();
    assert_eq!(c, vec!["E-DEP-CYCLE", "E-DEP-MISSING", "E-MOD-API"]);
    assert_eq!(r.ids(), vec!["ok"]);
}

#[test]
fn mutual_optional_dependencies_warn_and_order_deterministically() {
    let t = Tree::new("optional-cycle");
    t.add(
        "b",
        "1.0.0",
        "[dependencies]\na = { version = \"*\", optional = true }\n",
    );
    t.add(
        "a",
        "1.0.0",
        "[dependencies]\nb = { version = \"*\", optional = true }\n",
    );
    let r = t.resolve();
    assert_eq!(r.ids(), vec!["a", "b"]);
    let d = find(&r, "W-DEP-OPTIONAL-CYCLE");
    assert_eq!(d.message, "optional dependencies form a cycle: a -> b -> a");
    assert!(!r.has_errors());
}

#[test]
fn absent_optional_dependency_is_fine_and_present_one_orders_first() {
    let t = Tree::new("optional");
    t.add("a", "1.0.0", "[dependencies]\nzz = { version = \"1\", optional = true }\nghost = { version = \"1\", optional = true }\n");
    t.add("zz", "1.0.0", "");
    let r = t.resolve();
    assert_eq!(r.ids(), vec!["zz", "a"]);
    assert!(r.diagnostics.0.is_empty());
    assert_eq!(r.get("zz").unwrap().optional_for, vec!["a"]);
}

#[test]
fn load_order_is_dependencies_then_hints_then_id() {
    let t = Tree::new("order");
    t.add("core", "1.0.0", "[load]\nafter = [\"zeta\"]\n");
    t.add("zeta", "1.0.0", "");
    t.add("alpha", "1.0.0", "[dependencies]\ncore = \"1\"\n");
    t.add("beta", "1.0.0", "[load]\nbefore = [\"alpha\"]\n");
    t.add("gamma", "1.0.0", "[load]\nafter = [\"absent\"]\n");
    let r = t.resolve();
    assert_eq!(r.ids(), vec!["beta", "gamma", "zeta", "core", "alpha"]);
}

#[test]
fn explain_says_why_each_mod_is_enabled() {
    let t = Tree::new("explain");
    t.add("core", "0.1.0", "");
    t.add("a", "1.0.0", "[dependencies]\ncore = \"0.1\"\n");
    t.add("b", "1.0.0", "");
    let r = t.resolve();
    assert_eq!(
        r.get("core").unwrap().enabled_because,
        EnabledBecause::Default
    );
    assert_eq!(
        r.explain("core").unwrap(),
        "`core` 0.1.0: enabled by default (server.toml has no `enabled` list); required by `a`"
    );
    let r = t.resolve_with("enabled = [\"a\"]\n");
    assert_eq!(r.explain("a").unwrap(), "`a` 1.0.0: enabled in server.toml");
    assert_eq!(r.explain("core").unwrap(), "`core` 0.1.0: required by `a`");
    assert_eq!(r.get_disabled("b").unwrap().cause, DisableCause::NotEnabled);
    assert!(r.explain("nothing").is_none());
}

#[test]
fn diagnostics_render_with_source_lines() {
    let t = Tree::new("render");
    t.add("a", "1.0.0", "[dependencies]\ncore = \"^0.2\"\n");
    let r = t.resolve();
    let out = r.diagnostics.render(false);
    assert!(
        out.contains("error[E-DEP-MISSING]: mod `a` requires `core` ^0.2"),
        "{out}"
    );
    assert!(out.contains("core = \"^0.2\""), "{out}");
    assert!(out.contains("help: install a version of `core`"), "{out}");
    assert_eq!(r.diagnostics.0[0].to_json()["code"], "E-DEP-MISSING");
}

#[test]
#[ignore = "prints sample output; run with --ignored --nocapture"]
fn show_rendered_diagnostics() {
    let t = Tree::new("show");
    t.add("a", "1.0.0", "[dependencies]\nb = \"*\"\n");
    t.add("b", "1.0.0", "[dependencies]\na = \"*\"\n");
    t.add("c", "1.0.0", "[dependencies]\ncore = \"^0.2\"\n");
    t.add("d", "1.0.0", "[dependencies]\nc = \"1\"\n");
    t.write(
        "e",
        "mod.toml",
        "[mod]\nid = \"e\"\nversion = \"1.0\"\napi = \"0.1\"\nnmae = \"E\"\n",
    );
    let d = t.discover();
    let r = resolve(&d, &tessera_host::mods::HOST_API_VERSION, None);
    eprintln!(
        "{}\n\n{}",
        d.diagnostics.render(false),
        r.diagnostics.render(false)
    );
}

#[test]
fn summary_lists_order_and_disabled_mods() {
    let t = Tree::new("summary");
    t.add("core", "0.1.0", "");
    t.add(
        "a",
        "1.0.0",
        "[dependencies]\ncore = \"0.1\"\nnope = \"1\"\n",
    );
    let r = t.resolve();
    assert_eq!(
        r.summary(),
        "1 mod loads, in this order (server.toml has no `enabled` list, so every discovered mod is enabled):\n    1. core 0.1.0\n\
         1 mod is disabled:\n  a 1.0.0: it requires `nope` ^1, which is not installed\n"
    );
}
