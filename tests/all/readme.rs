//! The README's modding tutorial, run exactly as written: its `mod.toml`, content and
//! scenario blocks become a mod beside the example mods, which must check cleanly and
//! pass its scenario; its `server.toml` block must parse.

use std::path::PathBuf;
use std::process::Command;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The fenced ```toml blocks of the README, in order.
fn toml_blocks() -> Vec<String> {
    let text = std::fs::read_to_string(repo().join("README.md")).expect("README.md");
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        match (&mut current, line.trim_end()) {
            (None, "```toml") => current = Some(String::new()),
            (Some(b), "```") => {
                blocks.push(std::mem::take(b));
                current = None;
            }
            (Some(b), l) => {
                b.push_str(l);
                b.push('\n');
            }
            _ => {}
        }
    }
    blocks
}

#[test]
fn the_readme_tutorial_runs_as_written() {
    let blocks = toml_blocks();
    let find = |needle: &str| {
        blocks
            .iter()
            .find(|b| b.contains(needle))
            .unwrap_or_else(|| panic!("no README toml block with `{needle}`"))
            .clone()
    };
    let (manifest, content, scenario, server_text) = (
        find("[mod]"),
        find("[class.wolf]"),
        find("[scenario]"),
        find("mod_dirs"),
    );
    let root = std::env::temp_dir().join(format!("tessera-readme-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let dir = root.join("my-mod");
    std::fs::create_dir_all(dir.join("content")).unwrap();
    std::fs::create_dir_all(dir.join("tests")).unwrap();
    std::fs::create_dir_all(dir.join("locale")).unwrap();
    std::fs::write(dir.join("mod.toml"), &manifest).unwrap();
    std::fs::write(dir.join("content/wolf.toml"), &content).unwrap();
    std::fs::write(dir.join("tests/wolf.toml"), &scenario).unwrap();
    std::fs::write(
        dir.join("locale/en.toml"),
        "\"my-mod.name\" = \"My mod\"\n\"my-mod.wolf.name\" = \"Wolf\"\n",
    )
    .unwrap();

    crate::plugin_build::ensure_built();
    let out = Command::new(env!("CARGO_BIN_EXE_tessera"))
        .args(["test", "--mods"])
        .arg(repo().join("examples/mods"))
        .arg("--mods")
        .arg(&root)
        .arg("--server")
        .arg(repo().join("examples/server.toml"))
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("ok     the wolf's battlecry hits the only enemy"),
        "{text}"
    );

    let server = root.join("server.toml");
    std::fs::write(&server, &server_text).unwrap();
    tessera_host::mods::ServerConfig::load(&server).expect("the README's server.toml parses");
    let _ = std::fs::remove_dir_all(&root);
}
