//! Content loaders from plugins: a mod adds a file format (`examples/mods/decklist`, whose
//! wasm plugin reads `.deck` card lists). Its files become content like TOML's; a bad file
//! is an error at its line and disables only that mod.

use std::sync::Arc;

use tessera_host::mods::{load, ServerConfig};
use tessera_host::{Id, Registry, Sym};

use crate::mods_fixture::Tree;
use crate::plugin_build::{class_stats, copy_tree, ensure_built, repo};

#[test]
fn a_plugin_loader_reads_its_files_as_content() {
    ensure_built();
    let server = ServerConfig::load(&repo().join("examples/server.toml")).unwrap();
    let loaded = load(
        &[repo().join("examples/mods")],
        Some(&server),
        Arc::new(Registry::with_core()),
    );
    assert!(!loaded.has_errors(), "{:?}", loaded.diagnostics);
    let gen = loaded.generation.expect("generation");
    assert_eq!(
        class_stats(&gen, "decklist:class/stone_golem"),
        (Some(3.0), Some(2.0), Some(4.0))
    );
    let golem = gen
        .class(Id::parse("decklist:class/stone_golem").unwrap())
        .expect("the .deck file's card is a class");
    assert!(golem.tags.contains(&Sym::new("taunt")));
    // starter.deck includes shared/basics.list (read by the plugin with `load_file`).
    assert_eq!(
        class_stats(&gen, "decklist:class/oak_guard"),
        (Some(2.0), Some(0.0), Some(5.0))
    );
    let entry = gen
        .registry
        .loader_for("deck")
        .expect("the plugin's loader is registered");
    assert_eq!(entry.id.as_str(), "decklist:loader/cards");
}

#[test]
fn a_malformed_line_is_an_error_at_its_line_and_only_that_mod_is_disabled() {
    ensure_built();
    let t = Tree::new("plugin-loader-bad");
    copy_tree(
        &repo().join("examples/mods/decklist"),
        &t.mods().join("decklist"),
    );
    t.write(
        "decklist",
        "content/broken.deck",
        "# a list with a mistake\nember_pup 1 1/1\nbad_card x 1/1\n",
    );
    t.write(
        "other",
        "mod.toml",
        "[mod]\nid = \"other\"\nversion = \"1.0.0\"\napi = \"0.1\"\n",
    );
    t.write("other", "content/c.toml", "[class.unit]\n");
    let loaded = load(&[t.mods()], None, Arc::new(Registry::with_core()));
    let d = loaded
        .all_diagnostics()
        .find(|d| d.is_error() && d.message.contains("`x` is not a cost"))
        .unwrap_or_else(|| panic!("no error about the bad line: {:?}", loaded.diagnostics));
    let text = d.render(false);
    assert!(
        text.contains("broken.deck:3:"),
        "the error names the file and line: {text}"
    );
    assert!(
        text.contains("write a card as `name cost attack/health"),
        "and how to fix it: {text}"
    );
    assert!(!loaded.loaded.contains(&"decklist".to_string()));
    assert!(
        loaded.loaded.contains(&"other".to_string()),
        "other mods still load"
    );
}

#[test]
fn an_include_outside_the_mod_or_missing_is_an_error_at_its_line() {
    ensure_built();
    let t = Tree::new("plugin-loader-include");
    copy_tree(
        &repo().join("examples/mods/decklist"),
        &t.mods().join("decklist"),
    );
    std::fs::write(t.root.join("secret.list"), "spy 1 1/1\n").unwrap();
    for (deck, why) in [
        (
            "# reaches out\n\ninclude ../../../secret.list\n",
            "outside the folders this mod may read",
        ),
        ("# a typo\n\ninclude shared/basic.list\n", "cannot be read"),
    ] {
        t.write("decklist", "content/extra.deck", deck);
        let loaded = load(&[t.mods()], None, Arc::new(Registry::with_core()));
        let d = loaded
            .all_diagnostics()
            .find(|d| d.is_error() && d.message.contains(why))
            .unwrap_or_else(|| panic!("no `{why}` error: {:?}", loaded.diagnostics));
        let text = d.render(false);
        assert!(
            text.contains("extra.deck:3:"),
            "at the include line: {text}"
        );
        assert!(!loaded.loaded.contains(&"decklist".to_string()));
    }
}

/// A plugin loader's replies are kept on disk (`$TESSERA_CACHE_DIR/loads`) and used
/// again while the plugin, the file and every file the loader read are unchanged — proved
/// here by tampering with the stored reply: the tampered value is what loads, until the
/// cache is turned off or a file the loader included changes.
#[test]
fn loader_replies_are_kept_until_the_plugin_the_file_or_an_include_changes() {
    ensure_built();
    let t = Tree::new("plugin-loader-cache");
    copy_tree(
        &repo().join("examples/mods/decklist"),
        &t.mods().join("decklist"),
    );
    let cache = t.root.join("cache");
    let max_health = |cache_on: bool| -> String {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_tessera"));
        cmd.current_dir(&t.root)
            .env("TESSERA_CACHE_DIR", &cache)
            .args(["explain", "decklist:class/oak_guard", "--mods", "mods"]);
        if !cache_on {
            cmd.env("TESSERA_LOAD_CACHE", "off");
        }
        let out = cmd.output().expect("tessera runs");
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let line = text
            .lines()
            .find(|l| l.trim_start().starts_with("max_health"));
        line.unwrap_or_else(|| panic!("no max_health in:\n{text}"))
            .trim()
            .to_owned()
    };
    assert_eq!(max_health(true), "max_health = 5");
    let packs: Vec<_> = walk_files(&cache.join("loads"));
    assert_eq!(
        packs.len(),
        1,
        "one pack for the plugin's build; the cache holds {:?}",
        walk_files(&cache)
    );
    let stored = std::fs::read_to_string(&packs[0]).unwrap();
    assert!(
        stored.contains("content/shared/basics.list"),
        "the reply names the file the loader included: {stored}"
    );
    std::fs::write(
        &packs[0],
        stored.replace("\"max_health\":5", "\"max_health\":9"),
    )
    .unwrap();
    assert_eq!(max_health(true), "max_health = 9", "the kept reply is used");
    assert_eq!(
        max_health(false),
        "max_health = 5",
        "TESSERA_LOAD_CACHE=off"
    );
    t.write(
        "decklist",
        "content/shared/basics.list",
        "oak_guard 2 0/7 taunt\n",
    );
    assert_eq!(
        max_health(true),
        "max_health = 7",
        "a changed include makes the kept reply stale"
    );
}

/// Every file under `dir`, recursively.
fn walk_files(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk_files(&p));
        } else {
            out.push(p);
        }
    }
    out
}
