//! A loader reads its file's path and the mod's other files (formats that include one
//! file from another, like FreeOrion's `#include`), confined to the folders the mod may
//! read; a file a plugin's loader reads may be Latin-1. The loader here is an embedder's
//! Rust loader for a small format: `include "path"` lines and `name attack` lines.

use std::sync::Arc;

use serde_json::{json, Map, Value as Json};
use tessera_host::mods::{load, LoadedMods, ServerConfig};
use tessera_host::registry::{builtin, LoadInput, LoaderKind};
use tessera_host::{Id, Registry};

use crate::mods_fixture::Tree;

/// `.inc` files: `include "p"` (relative to the including file), `name attack`, `#` notes.
struct IncLoader;

impl IncLoader {
    fn lines(
        input: &LoadInput<'_>,
        path: &str,
        text: &str,
        out: &mut Map<String, Json>,
    ) -> Result<(), String> {
        for line in text.lines().map(str::trim) {
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            if let Some(rest) = line.strip_prefix("include ") {
                let target = rest.trim_matches('"');
                let dir = path.rsplit_once('/').map_or("", |(d, _)| d);
                let full = if dir.is_empty() {
                    target.to_owned()
                } else {
                    format!("{dir}/{target}")
                };
                let files = input.files.ok_or("no mod files to include from")?;
                let bytes = files.read(&full).map_err(|e| e.to_string())?;
                Self::lines(input, &full, &String::from_utf8_lossy(&bytes), out)?;
                continue;
            }
            let (name, attack) = line.split_once(' ').ok_or(format!("bad line `{line}`"))?;
            let attack: i64 = attack
                .parse()
                .map_err(|_| format!("bad attack in `{line}`"))?;
            out.insert(
                name.to_owned(),
                json!({ "properties": { "attack": attack } }),
            );
        }
        Ok(())
    }
}

impl LoaderKind for IncLoader {
    fn extensions(&self) -> &[&str] {
        &["inc"]
    }

    fn parse(
        &self,
        input: &LoadInput<'_>,
        _spans: &mut dyn FnMut(&[tessera_host::rules::PathSeg], std::ops::Range<usize>),
    ) -> Result<Json, (String, Option<std::ops::Range<usize>>)> {
        let mut classes = Map::new();
        Self::lines(input, input.path, input.text, &mut classes).map_err(|m| (m, None))?;
        Ok(json!({ "class": classes }))
    }
}

fn registry() -> Arc<Registry> {
    let mut r = Registry::with_core();
    r.loaders
        .register(builtin(
            "test:loader/inc",
            "include files",
            Vec::new(),
            Arc::new(IncLoader) as Arc<dyn LoaderKind>,
        ))
        .unwrap();
    Arc::new(r)
}

fn load_with_grant(t: &Tree) -> LoadedMods {
    let server = t.root.join("server.toml");
    std::fs::write(
        &server,
        "mod_dirs = [\"mods\"]\n\n[grants.m]\nread = [\"granted\"]\n",
    )
    .unwrap();
    let server = ServerConfig::load(&server).unwrap();
    load(&[t.mods()], Some(&server), registry())
}

/// The error diagnostics of a load, rendered.
fn errors(l: &LoadedMods) -> Vec<String> {
    l.all_diagnostics()
        .filter(|d| d.is_error())
        .map(|d| d.to_string())
        .collect()
}

fn has_class(l: &LoadedMods, id: &str) -> bool {
    let id = Id::parse(id).unwrap();
    l.generation
        .as_ref()
        .is_some_and(|g| g.classes.contains_key(&id))
}

#[test]
fn a_loader_includes_files_of_its_mod_and_of_granted_folders() {
    let t = Tree::new("loader-files");
    t.write(
        "m",
        "mod.toml",
        "[mod]\nid = \"m\"\nversion = \"1.0.0\"\napi = \"0.1\"\n",
    );
    // Included files have an extension no loader reads, so they are not content of their own.
    t.write(
        "m",
        "content/main.inc",
        "include \"parts/more.part\"\nwolf 3\n",
    );
    t.write(
        "m",
        "content/parts/more.part",
        "include \"../../../../granted/far.part\"\nbear 5\n",
    );
    std::fs::create_dir_all(t.root.join("granted")).unwrap();
    std::fs::write(t.root.join("granted/far.part"), "owl 1\n").unwrap();
    // Latin-1 bytes (an `é` in a note): read, not refused as non-UTF-8.
    std::fs::write(t.mods().join("m/content/latin.inc"), b"# caf\xe9\nfox 2\n").unwrap();
    let l = load_with_grant(&t);
    let errors = errors(&l);
    assert!(errors.is_empty(), "{}", errors.join("\n"));
    for id in ["m:class/wolf", "m:class/bear", "m:class/owl", "m:class/fox"] {
        assert!(has_class(&l, id), "{id} was loaded");
    }
}

#[test]
fn an_include_outside_what_the_mod_may_read_is_refused_by_name() {
    let t = Tree::new("loader-outside");
    t.write(
        "m",
        "mod.toml",
        "[mod]\nid = \"m\"\nversion = \"1.0.0\"\napi = \"0.1\"\n",
    );
    t.write(
        "m",
        "content/main.inc",
        "include \"../../../secret/x.part\"\nwolf 3\n",
    );
    std::fs::create_dir_all(t.root.join("secret")).unwrap();
    std::fs::write(t.root.join("secret/x.part"), "spy 9\n").unwrap();
    let l = load_with_grant(&t);
    let errors = errors(&l);
    assert!(
        errors
            .iter()
            .any(|e| e.contains("main.inc") && e.contains("outside the folders mod `m` may read")),
        "{errors:?}"
    );
    assert!(!has_class(&l, "m:class/spy"));
}
