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
