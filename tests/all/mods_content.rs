//! Mods in, content out: per-mod content loading, a broken mod isolated, patches and
//! their provenance, namespace ownership, locale warnings, and the `tessera check` CLI.

use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;

use tessera_host::mods::{load, LoadedMods};
use tessera_host::{Game, Id, Registry, ScriptedController, Sym};

use crate::mods_fixture::Tree;

fn load_tree(t: &Tree) -> LoadedMods {
    load(&[t.mods()], None, Arc::new(Registry::with_core()))
}

fn codes(l: &LoadedMods) -> Vec<&'static str> {
    l.all_diagnostics().map(|d| d.code).collect()
}

fn manifest(id: &str, deps: &str) -> String {
    format!("[mod]\nid = \"{id}\"\nversion = \"1.0.0\"\napi = \"0.1\"\n{deps}")
}

#[test]
fn one_broken_mod_leaves_the_other_four_running() {
    let t = Tree::new("five");
    t.write("a", "mod.toml", &manifest("a", ""));
    t.write(
        "a",
        "content/base.toml",
        "[class.minion]\nproperties = { attack = 1, max_health = 2 }\n\n[trigger.grow]\nwhen = \"core:event/turn_started\"\nselect = { type = \"objects\", class = \"minion\" }\ndo = [{ type = \"add\", key = \"attack\", amount = 1 }]\n",
    );
    t.write(
        "b",
        "mod.toml",
        &manifest("b", "[dependencies]\na = \"^1\"\n"),
    );
    t.write(
        "b",
        "content/b.toml",
        "[class.big]\nproperties = { attack = 5 }\n",
    );
    t.write(
        "c",
        "mod.toml",
        &manifest("c", "[dependencies]\nb = \"^1\"\n"),
    );
    t.write(
        "c",
        "content/c.toml",
        "[class.bigger]\nproperties = { attack = 9 }\n",
    );
    t.write("d", "mod.toml", &manifest("d", ""));
    t.write(
        "d",
        "content/d.toml",
        "[class.lone]\nproperties = { attack = 2 }\n",
    );
    t.write(
        "broken",
        "mod.toml",
        &manifest("broken", "[dependencies]\na = \"^1\"\n"),
    );
    t.write(
        "broken",
        "content/bad.toml",
        "[class.oops]\nproperties = { attack = 1 }\n\n[[class.oops.trigger]]\nwhen = \"core:event/created\"\ndo = [{ type = \"damge\", amount = 1 }]\n",
    );
    t.write(
        "needs-broken",
        "mod.toml",
        &manifest("needs-broken", "[dependencies]\nbroken = \"^1\"\n"),
    );
    t.write("needs-broken", "content/x.toml", "[class.x]\n");

    let loaded = load_tree(&t);
    assert_eq!(loaded.loaded, ["a", "b", "c", "d"]);
    let disabled: Vec<&str> = loaded
        .content_disabled
        .iter()
        .map(|(id, _)| id.as_str())
        .collect();
    assert_eq!(disabled, ["broken", "needs-broken"]);
    let why = &loaded.content_disabled[1].1;
    assert!(why.contains("depends on `broken`"), "{why}");
    let err = loaded
        .all_diagnostics()
        .find(|d| d.code == "E-CONTENT-UNKNOWN-ID")
        .expect("unknown action reported");
    assert_eq!(err.mod_id.as_deref(), Some("broken"));
    assert_eq!(
        err.location
            .as_ref()
            .and_then(|l| l.line_col())
            .map(|(l, _)| l),
        Some(6)
    );
    assert!(
        err.help.iter().any(|h| h.contains("core:action/damage")),
        "{:?}",
        err.help
    );

    // The four survivors run.
    let gen = loaded.generation.clone().expect("generation");
    let mut game = Game::new(gen, 1, Box::new(ScriptedController::default()));
    let m = game
        .spawn(Id::parse("a:class/minion").unwrap(), None, "board")
        .unwrap();
    let big = game
        .spawn(Id::parse("c:class/bigger").unwrap(), None, "board")
        .unwrap();
    game.emit(tessera_host::Event::new(
        Id::parse("core:event/turn_started").unwrap(),
    ))
    .unwrap();
    assert_eq!(game.world().get_int(m, Sym::new("attack")), 2);
    assert_eq!(game.world().get_int(big, Sym::new("attack")), 9);
}

#[test]
fn malformed_content_disables_only_its_mod() {
    let t = Tree::new("malformed");
    t.write("good", "mod.toml", &manifest("good", ""));
    t.write("good", "content/g.toml", "[class.ok]\n");
    t.write("bad", "mod.toml", &manifest("bad", ""));
    t.write("bad", "content/b.toml", "[class.ok\nproperties = 1\n");
    let loaded = load_tree(&t);
    assert_eq!(loaded.loaded, ["good"]);
    let d = loaded
        .all_diagnostics()
        .find(|d| d.code == "E-CONTENT-PARSE")
        .expect("parse error");
    assert_eq!(
        d.location
            .as_ref()
            .and_then(|l| l.line_col())
            .map(|(l, _)| l),
        Some(1)
    );
}

#[test]
fn patches_apply_in_load_order_and_are_remembered() {
    let t = Tree::new("patch");
    t.write("base", "mod.toml", &manifest("base", ""));
    t.write("base", "content/c.toml", "[class.wolf]\ntags = [\"beast\"]\nproperties = { attack = 1, max_health = 2 }\n\n[class.sheep]\n");
    t.write(
        "tweak",
        "mod.toml",
        &manifest("tweak", "[dependencies]\nbase = \"^1\"\n"),
    );
    t.write(
        "tweak",
        "content/p.toml",
        "[[patch]]\ntarget = \"base:class/wolf\"\nop = \"merge\"\nvalue = { properties = { attack = 3 } }\n\n[[patch]]\ntarget = \"base:class/sheep\"\nop = \"remove\"\n",
    );
    t.write(
        "later",
        "mod.toml",
        &manifest("later", "[dependencies]\ntweak = \"^1\"\n"),
    );
    t.write("later", "content/p.toml", "[[patch]]\ntarget = \"base:class/wolf\"\nop = \"merge\"\nvalue = { properties = { max_health = 5 } }\n");
    let loaded = load_tree(&t);
    assert!(!loaded.has_errors(), "{:?}", codes(&loaded));
    let gen = loaded.generation.as_ref().unwrap();
    let wolf = Id::parse("base:class/wolf").unwrap();
    let touches: Vec<(&str, &str, usize)> = gen.provenance.touches[&wolf]
        .iter()
        .map(|t| (t.mod_id.as_str(), t.op.as_str(), t.line))
        .collect();
    assert_eq!(
        touches,
        [
            ("base", "defined", 1),
            ("tweak", "merge", 1),
            ("later", "merge", 1)
        ]
    );
    let def = gen.provenance.definition(wolf).expect("final definition");
    assert_eq!(def["properties"]["attack"], 3);
    assert_eq!(def["properties"]["max_health"], 5);
    assert_eq!(def["tags"][0], "beast");
    assert!(
        gen.class(Id::parse("base:class/sheep").unwrap()).is_none(),
        "removed by patch"
    );

    // The CLI shows the same story.
    let out = Command::new(env!("CARGO_BIN_EXE_tessera"))
        .args(["explain", "base:class/wolf", "--mods"])
        .arg(t.mods())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("defined by `base`"), "{text}");
    assert!(text.contains("patched (merge) by `tweak`"), "{text}");
    assert!(
        text.find("`tweak`").unwrap() < text.find("`later`").unwrap(),
        "{text}"
    );
    assert!(text.contains("attack = 3"), "{text}");
}

#[test]
fn unordered_patches_to_one_id_are_an_error_naming_both() {
    let t = Tree::new("patch-conflict");
    t.write("base", "mod.toml", &manifest("base", ""));
    t.write("base", "content/c.toml", "[class.wolf]\n");
    for m in ["left", "right"] {
        t.write(
            m,
            "mod.toml",
            &manifest(m, "[dependencies]\nbase = \"^1\"\n"),
        );
        t.write(
            m,
            "content/p.toml",
            "[[patch]]\ntarget = \"base:class/wolf\"\nop = \"replace\"\nvalue = {}\n",
        );
    }
    let loaded = load_tree(&t);
    let d = loaded
        .all_diagnostics()
        .find(|d| d.code == "E-PATCH-CONFLICT")
        .expect("conflict reported");
    assert!(
        d.message.contains("`left`") && d.message.contains("`right`"),
        "{}",
        d.message
    );
    let rendered = d.render(false);
    assert!(
        rendered.contains("left") && rendered.contains("right") && rendered.contains("p.toml"),
        "{rendered}"
    );
    assert!(
        d.help.iter().any(|h| h.contains("after = [")),
        "{:?}",
        d.help
    );
}

#[test]
fn defining_another_mods_id_needs_a_patch() {
    let t = Tree::new("foreign");
    t.write("base", "mod.toml", &manifest("base", ""));
    t.write("base", "content/c.toml", "[class.wolf]\n");
    t.write(
        "thief",
        "mod.toml",
        &manifest("thief", "[dependencies]\nbase = \"^1\"\n"),
    );
    t.write(
        "thief",
        "content/t.toml",
        "[class.\"base:class/wolf\"]\nproperties = { attack = 9 }\n",
    );
    let loaded = load_tree(&t);
    let d = loaded
        .all_diagnostics()
        .find(|d| d.code == "E-CONTENT-FOREIGN-ID")
        .expect("reported");
    assert_eq!(d.mod_id.as_deref(), Some("thief"));
    assert!(
        d.notes
            .iter()
            .any(|n| n.contains("base") && n.contains("c.toml")),
        "{:?}",
        d.notes
    );
    assert!(d
        .location
        .as_ref()
        .unwrap()
        .path
        .ends_with("thief/content/t.toml"));
    assert!(loaded.loaded.contains(&"base".to_string()));
}

#[test]
fn missing_translation_keys_are_warnings_naming_key_and_file() {
    let t = Tree::new("locale");
    t.write("m", "mod.toml", &manifest("m", ""));
    t.write(
        "m",
        "content/c.toml",
        "[class.wolf]\nname = \"m.wolf.name\"\ndescription = \"m.wolf.text\"\n",
    );
    t.write("m", "locale/en.toml", "[m.wolf]\nname = \"Wolf\"\n");
    let loaded = load_tree(&t);
    assert!(!loaded.has_errors());
    let warnings: Vec<_> = loaded
        .all_diagnostics()
        .filter(|d| d.code == "W-LOCALE-MISSING")
        .collect();
    assert_eq!(warnings.len(), 1);
    assert!(
        warnings[0].message.contains("`m.wolf.text`"),
        "{}",
        warnings[0].message
    );
    assert!(warnings[0]
        .location
        .as_ref()
        .unwrap()
        .path
        .ends_with("content/c.toml"));
    assert_eq!(loaded.locale.get("en", "m.wolf.name"), Some("Wolf"));
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

#[test]
fn the_example_mods_pass_check_with_no_warnings() {
    crate::plugin_build::ensure_built();
    let lock = std::env::temp_dir().join(format!("tessera-example-{}.lock", std::process::id()));
    let out = Command::new(env!("CARGO_BIN_EXE_tessera"))
        .args(["check", "--format", "json", "--lock"])
        .arg(&lock)
        .arg("--mods")
        .arg(repo().join("examples/mods"))
        .arg("--server")
        .arg(repo().join("examples/server.toml"))
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&lock);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json output");
    assert!(out.status.success(), "{doc:#}");
    assert_eq!(doc["errors"], 0, "{doc:#}");
    assert_eq!(doc["warnings"], 0, "{doc:#}");
}

#[test]
fn check_fails_with_stable_codes_in_json() {
    let t = Tree::new("check-json");
    t.write(
        "m",
        "mod.toml",
        &manifest("m", "[dependencies]\nghost = \"^2\"\n"),
    );
    t.write("m", "content/c.toml", "[class.x]\n");
    let lock = t.root.join("mods.lock");
    let out = Command::new(env!("CARGO_BIN_EXE_tessera"))
        .args(["check", "--format", "json", "--lock"])
        .arg(&lock)
        .arg("--mods")
        .arg(t.mods())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json output");
    let codes: Vec<&str> = doc["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|d| d["code"].as_str())
        .collect();
    assert!(codes.contains(&"E-DEP-MISSING"), "{codes:?}");
}

#[test]
fn mod_scenarios_run_against_loaded_mods() {
    crate::plugin_build::ensure_built();
    let out = Command::new(env!("CARGO_BIN_EXE_tessera"))
        .args(["test", "--mods"])
        .arg(repo().join("examples/mods"))
        .arg("--server")
        .arg(repo().join("examples/server.toml"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.trim_end().ends_with("6 passed, 0 failed"), "{text}");
    // Plugin-provided definitions run like built-ins: a wasm condition in an aura filter,
    // a wasm selector and an action calling back into core, and plugin-internal state.
    for name in ["pack leader", "marksman", "plugin state persists"] {
        assert!(
            text.lines()
                .any(|l| l.starts_with("ok") && l.contains(name)),
            "{name}: {text}"
        );
    }
}

#[test]
fn explain_describes_plugin_provided_ids() {
    crate::plugin_build::ensure_built();
    let out = Command::new(env!("CARGO_BIN_EXE_tessera"))
        .args(["explain", "beasts:condition/is_beast", "--mods"])
        .arg(repo().join("examples/mods"))
        .arg("--server")
        .arg(repo().join("examples/server.toml"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("condition, wasm plugin plugins/beasts.wasm of mod `beasts`"),
        "{text}"
    );
    assert!(text.contains("min_attack (optional)"), "{text}");
}

/// `[content] loaders` keys may be globs matching the end of a file's path: a folder of
/// files with a foreign extension (Forge's `cardsfolder/**/*.txt`) goes to one loader;
/// files the glob does not match are not read.
#[test]
fn a_loader_glob_picks_files_by_folder_and_pattern() {
    let t = Tree::new("loader-glob");
    t.write(
        "g",
        "mod.toml",
        &format!(
            "{}\n[content]\npaths = [\"content\", \"data\"]\nloaders = {{ \"cardsfolder/**/*.txt\" = \"core:loader/toml\" }}\n",
            manifest("g", "")
        ),
    );
    t.write("g", "content/base.toml", "[class.base]\n");
    t.write(
        "g",
        "data/cardsfolder/a/alpha.txt",
        "[class.alpha]\nproperties = { power = 1 }\n",
    );
    t.write("g", "data/cardsfolder/b/c/beta.txt", "[class.beta]\n");
    // Not under cardsfolder: not read (it would not even parse).
    t.write("g", "data/notes/readme.txt", "this is not TOML [");
    let l = load_tree(&t);
    assert!(codes(&l).is_empty(), "{:?}", codes(&l));
    let gen = l.generation.as_ref().expect("a generation");
    for class in ["g:class/base", "g:class/alpha", "g:class/beta"] {
        assert!(
            gen.classes.contains_key(&Id::parse(class).unwrap()),
            "{class}"
        );
    }

    // A key that is not a glob is an error naming the key.
    t.write(
        "g",
        "mod.toml",
        &format!(
            "{}\n[content]\npaths = [\"data\"]\nloaders = {{ \"cardsfolder/[a\" = \"core:loader/toml\" }}\n",
            manifest("g", "")
        ),
    );
    let l = load_tree(&t);
    let d = l
        .all_diagnostics()
        .find(|d| d.code == "E-MANIFEST-VALUE")
        .expect("an error for the bad glob");
    assert!(
        d.message.contains("`cardsfolder/[a` is not a valid glob"),
        "{}",
        d.message
    );
}

/// Issue 18, finding 3: `[content] paths = ["/etc"]` handed host files to loaders, and
/// `[[plugin]] file = "../../etc/passwd"` was read. A mod reads only its own folder
/// (symlinks resolved) unless the operator grants another in server.toml.
#[test]
fn a_mod_reads_only_its_own_folder_unless_granted() {
    let t = Tree::new("confined");
    let outside = t.mods().parent().unwrap().join("elsewhere");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("x.toml"), "[class.stolen]\n").unwrap();
    t.write(
        "m",
        "mod.toml",
        &format!(
            "{}\n[content]\npaths = [\"content\", \"../../elsewhere\"]\n",
            manifest("m", "")
        ),
    );
    t.write("m", "content/a.toml", "[class.own]\n");
    let l = load_tree(&t);
    let d = l
        .all_diagnostics()
        .find(|d| d.code == "E-MOD-OUTSIDE")
        .unwrap_or_else(|| panic!("no E-MOD-OUTSIDE: {:?}", codes(&l)));
    assert!(
        d.message.contains("`[content] paths` of mod `m` reaches"),
        "{}",
        d.message
    );
    assert!(d.message.contains("elsewhere"), "{}", d.message);
    assert!(
        d.help.iter().any(|h| h.contains("[grants.m] read")),
        "{:?}",
        d.help
    );

    // A symlink inside the folder that points out is caught too.
    #[cfg(unix)]
    {
        t.write("m", "mod.toml", &manifest("m", ""));
        std::os::unix::fs::symlink(outside.join("x.toml"), t.mods().join("m/content/link.toml"))
            .unwrap();
        let l = load_tree(&t);
        assert!(codes(&l).contains(&"E-MOD-OUTSIDE"), "{:?}", codes(&l));
        std::fs::remove_file(t.mods().join("m/content/link.toml")).unwrap();
    }

    // The operator's grant lets it read there.
    t.write(
        "m",
        "mod.toml",
        &format!(
            "{}\n[content]\npaths = [\"content\", \"../../elsewhere\"]\n",
            manifest("m", "")
        ),
    );
    let server_text = "[grants.m]\nread = [\"elsewhere\"]\n";
    let root = t.mods().parent().unwrap().to_path_buf();
    let server =
        tessera_host::mods::ServerConfig::parse(&root.join("server.toml"), server_text, &root)
            .expect("server.toml");
    let l = load(&[t.mods()], Some(&server), Arc::new(Registry::with_core()));
    assert!(codes(&l).is_empty(), "{:?}", codes(&l));
    let gen = l.generation.as_ref().unwrap();
    assert!(gen
        .classes
        .contains_key(&Id::parse("m:class/stolen").unwrap()));

    // A plugin file outside the folder is never read (no grant covers plugins).
    t.write(
        "m",
        "mod.toml",
        &format!(
            "{}\n[[plugin]]\nfile = \"../../elsewhere/x.toml\"\nprovides = []\n",
            manifest("m", "")
        ),
    );
    let l = load(&[t.mods()], Some(&server), Arc::new(Registry::with_core()));
    let d = l
        .all_diagnostics()
        .find(|d| d.code == "E-MOD-OUTSIDE")
        .unwrap_or_else(|| panic!("no E-MOD-OUTSIDE: {:?}", codes(&l)));
    assert!(
        d.message.contains("`[[plugin]] file` of mod `m`"),
        "{}",
        d.message
    );
}
