//! Trusted native extensions: the `beasts` plugin built both ways from one source — a
//! wasm module and a native library (`tessera build --native`, feature
//! `tessera-plugin-api/native`) — runs the same scenario (`mods/beasts/tests`) with the
//! same result; without `trusted_native` in server.toml the native mod is refused with
//! `E-PLUGIN-UNTRUSTED` and the other mods still load.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use tessera_host::mods::{load, LoadedMods, ServerConfig};
use tessera_host::plugins::build::{build_for, native_file_name, Target};
use tessera_host::registry::Provider;
use tessera_host::{scenario, Id, Registry};

use crate::plugin_build::{copy_tree, ensure_built, repo};

/// Builds the native `beasts` library once (into `mods/beasts/plugins/`); its file name.
fn native_beasts() -> String {
    static BUILT: OnceLock<Result<String, String>> = OnceLock::new();
    let r = BUILT.get_or_init(|| {
        build_for(&[repo().join("plugins/beasts")], Target::Native)
            .map(|_| native_file_name("beasts"))
            .map_err(|e| e.to_string())
    });
    match r {
        Ok(f) => f.clone(),
        Err(e) => panic!("building the native beasts plugin failed:\n{e}"),
    }
}

/// A copy of the example mods in a fresh folder, with `beasts` declaring its plugin as
/// `file` (the wasm module or the native library), and a server.toml.
fn mods_tree(tag: &str, file: &str, server: &str) -> PathBuf {
    ensure_built();
    let root = std::env::temp_dir().join(format!("tessera-native-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    copy_tree(&repo().join("examples/mods"), &root.join("mods"));
    let manifest = root.join("mods/beasts/mod.toml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    assert!(text.contains("file = \"plugins/beasts.wasm\""), "{text}");
    std::fs::write(
        &manifest,
        text.replace(
            "file = \"plugins/beasts.wasm\"",
            &format!("file = \"plugins/{file}\""),
        ),
    )
    .unwrap();
    std::fs::write(
        root.join("server.toml"),
        format!("mod_dirs = [\"mods\"]\n{server}\n[grants.crits]\ncapabilities = [\"random\"]\n[grants.original]\ncapabilities = [\"random\"]\n"),
    )
    .unwrap();
    root
}

fn load_tree(root: &Path) -> LoadedMods {
    let server = ServerConfig::load(&root.join("server.toml")).expect("server.toml");
    load(
        &[root.join("mods")],
        Some(&server),
        Arc::new(Registry::with_core()),
    )
}

fn diagnostics(loaded: &LoadedMods) -> Vec<String> {
    loaded.all_diagnostics().map(|d| d.to_string()).collect()
}

/// Runs `beasts`' scenarios (as `tessera test --mods` does); the provider of
/// `beasts:condition/is_beast`.
fn run_beasts_scenarios(root: &Path) -> Provider {
    let loaded = load_tree(root);
    assert!(!loaded.has_errors(), "{:#?}", diagnostics(&loaded));
    assert!(loaded.loaded.iter().any(|m| m == "beasts"));
    let base = Registry::with_core();
    let shared = loaded.sources(&base);
    let gen = loaded.generation.as_ref().expect("generation");
    let results = scenario::run_paths(&[root.join("mods/beasts/tests")], &gen.registry, &shared);
    let report = scenario::report(&results);
    assert!(!results.is_empty(), "no scenarios ran");
    assert!(results.iter().all(|r| r.passed()), "{report}");
    let id = Id::parse("beasts:condition/is_beast").unwrap();
    gen.registry
        .conditions
        .get(id)
        .expect("is_beast registered")
        .provider
        .clone()
}

#[test]
fn the_same_scenario_passes_with_the_wasm_and_the_native_build() {
    let lib = native_beasts();

    let wasm = mods_tree("wasm", "beasts.wasm", "");
    let p = run_beasts_scenarios(&wasm);
    assert!(matches!(p, Provider::Plugin { .. }), "{p:?}");

    let native = mods_tree("native", &lib, "trusted_native = [\"beasts\"]");
    copy_lib(&lib, &native);
    let p = run_beasts_scenarios(&native);
    assert!(matches!(p, Provider::Native { .. }), "{p:?}");

    let _ = std::fs::remove_dir_all(wasm);
    let _ = std::fs::remove_dir_all(native);
}

/// The native library, next to the wasm module in the copied mod.
fn copy_lib(lib: &str, root: &Path) {
    let from = repo().join("examples/mods/beasts/plugins").join(lib);
    let to = root.join("mods/beasts/plugins").join(lib);
    if !to.is_file() {
        std::fs::copy(from, to).unwrap();
    }
}

#[test]
fn an_untrusted_native_library_is_refused_and_other_mods_still_load() {
    let lib = native_beasts();
    let root = mods_tree("untrusted", &lib, "");
    copy_lib(&lib, &root);
    let loaded = load_tree(&root);
    let diags = diagnostics(&loaded);
    let refusal = loaded
        .all_diagnostics()
        .find(|d| d.code == "E-PLUGIN-UNTRUSTED")
        .unwrap_or_else(|| panic!("no E-PLUGIN-UNTRUSTED in {diags:#?}"));
    let text = refusal.to_string();
    assert!(text.contains("mod `beasts`"), "{text}");
    assert!(text.contains(&lib), "{text}");
    assert!(text.contains("trusted_native = [\"beasts\"]"), "{text}");
    assert!(!loaded.loaded.iter().any(|m| m == "beasts"), "{diags:#?}");
    for other in ["skirmish", "tactics", "crits", "counter"] {
        assert!(
            loaded.loaded.iter().any(|m| m == other),
            "`{other}` did not load: {diags:#?}"
        );
    }
    assert!(loaded.generation.is_some(), "{diags:#?}");
    let _ = std::fs::remove_dir_all(root);
}

#[test]
fn a_wasm_module_named_like_a_library_is_not_a_native_extension() {
    ensure_built();
    let root = mods_tree("fake", "fake.so", "trusted_native = [\"beasts\"]");
    std::fs::copy(
        root.join("mods/beasts/plugins/beasts.wasm"),
        root.join("mods/beasts/plugins/fake.so"),
    )
    .unwrap();
    let loaded = load_tree(&root);
    let d = loaded
        .all_diagnostics()
        .find(|d| d.code == "E-PLUGIN-NATIVE")
        .unwrap_or_else(|| panic!("{:#?}", diagnostics(&loaded)));
    assert!(
        d.to_string()
            .contains("could not be loaded as a native library"),
        "{d}"
    );
    assert!(loaded.loaded.iter().any(|m| m == "skirmish"));
    let _ = std::fs::remove_dir_all(root);
}

/// Distinct private copies of native libraries mapped into this process (Linux).
fn mapped_copies() -> Option<std::collections::BTreeSet<String>> {
    let maps = std::fs::read_to_string("/proc/self/maps").ok()?;
    Some(
        maps.lines()
            .filter_map(|l| l.split_whitespace().nth(5))
            .filter(|p| p.contains("tessera-native/beasts-"))
            .map(str::to_owned)
            .collect(),
    )
}

#[test]
fn every_native_load_is_a_fresh_private_copy() {
    let lib = native_beasts();
    let root = mods_tree("reload", &lib, "trusted_native = [\"beasts\"]");
    copy_lib(&lib, &root);
    let first = load_tree(&root);
    assert!(!first.has_errors(), "{:?}", diagnostics(&first));
    let after_one = mapped_copies();
    let second = load_tree(&root);
    assert!(!second.has_errors(), "{:?}", diagnostics(&second));
    if let (Some(a), Some(b)) = (after_one, mapped_copies()) {
        // Opening the same path twice would return the first library, and a rebuilt
        // file would never take effect; each load maps its own copy instead.
        assert!(
            b.len() > a.len(),
            "a second load mapped no new copy: {a:?} then {b:?}"
        );
        assert!(
            b.iter()
                .all(|p| p.contains("(deleted)") || !std::path::Path::new(p).exists()),
            "copies are unlinked once mapped: {b:?}"
        );
    }
    let _ = std::fs::remove_dir_all(root);
}
