//! Builds the example plugins (once per test run) into their mods' `plugins/` folders, as
//! `tessera build` does, so a fresh clone needs nothing else before `cargo test`.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Builds every example plugin once; panics with cargo's output if that fails.
pub fn ensure_built() {
    static BUILT: OnceLock<Result<(), String>> = OnceLock::new();
    let r = BUILT.get_or_init(|| {
        let dirs: Vec<PathBuf> = [
            "arena-plus",
            "beasts",
            "counter",
            "crits",
            "decklist",
            "firemox",
            "focs",
            "forge",
            "hearthbreaker",
            "spellbook",
            "tactics",
        ]
        .iter()
        .map(|p| repo().join("plugins").join(p))
        .collect();
        tessera_host::plugins::build::build(&dirs)
            .map(|_| ())
            .map_err(|e| e.to_string())
    });
    if let Err(e) = r {
        panic!("building the example plugins failed:\n{e}");
    }
}

/// Builds the game's plugins (the crates whose mods live in `mods/`); every plugin is
/// built together, once.
pub fn ensure_game_plugins_built() {
    ensure_built();
}

/// Copies a folder tree (test fixtures are copies of the repository's mods).
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let p = e.path();
        let dest = to.join(e.file_name());
        if p.is_dir() {
            copy_tree(&p, &dest);
        } else {
            std::fs::copy(&p, &dest).unwrap();
        }
    }
}

/// Makes `root` look like a checkout for building plugin crates under it: the plugin SDK
/// (a member of the root workspace) linked in, with the root workspace's manifest.
pub fn link_sdk(root: &Path) {
    for member in [
        "plugin-api",
        "host",
        "forge-script",
        "focs-script",
        "firemox-xml",
    ] {
        std::os::unix::fs::symlink(repo().join(member), root.join(member)).unwrap();
    }
    for f in ["Cargo.toml", "Cargo.lock"] {
        std::fs::copy(repo().join(f), root.join(f)).unwrap();
    }
}

/// A class's base cost, attack and maximum health (a content loader's output, checked
/// field by field).
pub fn class_stats(
    gen: &tessera_host::rules::Generation,
    class: &str,
) -> (Option<f64>, Option<f64>, Option<f64>) {
    let def = gen
        .class(tessera_host::Id::parse(class).unwrap())
        .unwrap_or_else(|| panic!("class `{class}` is defined"));
    let prop = |k: &str| {
        def.props
            .iter()
            .find(|(key, _)| *key == tessera_host::Sym::new(k))
            .and_then(|(_, v)| v.as_f64())
    };
    (prop("cost"), prop("attack"), prop("max_health"))
}

/// Runs `tessera` at the repository root: whether it succeeded, and stdout then stderr.
pub fn tessera_at_root(args: &[&str]) -> (bool, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_tessera"))
        .current_dir(repo())
        .args(args)
        .env_remove("RUST_LOG")
        .output()
        .expect("tessera runs");
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.success(), text)
}

/// Loads the repository's `mods/` under the server file `server` (at the repository root),
/// as `tessera --server` would, and fails the test with every error if there is one.
pub fn load_server_without_errors(server: &str) -> tessera_host::mods::LoadedMods {
    let server = tessera_host::mods::ServerConfig::load(&repo().join(server)).unwrap();
    let loaded = tessera_host::mods::load(
        &[repo().join("mods")],
        Some(&server),
        std::sync::Arc::new(tessera_host::Registry::with_core()),
    );
    let errors = load_errors(&loaded);
    assert!(errors.is_empty(), "{}", errors.join("\n"));
    loaded
}

/// The error diagnostics of a load (its `diagnostics`), as text.
pub fn load_errors(loaded: &tessera_host::mods::LoadedMods) -> Vec<String> {
    loaded
        .diagnostics
        .0
        .iter()
        .filter(|d| d.is_error())
        .map(|d| d.to_string())
        .collect()
}
