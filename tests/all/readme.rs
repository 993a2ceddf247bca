//! The README, run exactly as written.
//!
//! "Your first mod in five minutes": a game runs with `tessera run --watch` in a copy of
//! the repository's mods; every file block of the tutorial (a block whose first line is a
//! `# path` or `// path` comment) is written where it says, in order, with the edits the
//! prose describes, and the running game must print the reload lines the tutorial
//! promises; `tessera test`, `tessera build` and `tessera check` are run as the tutorial
//! says. The content-language section's blocks must also check and pass, against the
//! teaching mods in `examples/mods`.

use crate::plugin_build::copy_tree;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The fenced blocks of the README (language, body), in order.
fn blocks() -> Vec<(String, String)> {
    let text = std::fs::read_to_string(repo().join("README.md")).expect("README.md");
    let mut out = Vec::new();
    let mut current: Option<(String, String)> = None;
    for line in text.lines() {
        let l = line.trim_end();
        match &mut current {
            None => {
                if let Some(lang) = l.strip_prefix("```").filter(|x| !x.is_empty()) {
                    current = Some((lang.to_owned(), String::new()));
                }
            }
            Some(_) if l == "```" => out.extend(current.take()),
            Some((_, b)) => {
                b.push_str(l);
                b.push('\n');
            }
        }
    }
    out
}

/// The tutorial's file blocks: (path, appends?, body without the path line).
fn file_blocks() -> Vec<(String, bool, String)> {
    blocks()
        .into_iter()
        .filter_map(|(_, b)| {
            let first = b.lines().next()?;
            let path = first
                .strip_prefix("# ")
                .or_else(|| first.strip_prefix("// "))?;
            let (path, append) = match path.strip_suffix(" (append)") {
                Some(p) => (p, true),
                None => (path, false),
            };
            if !(path.starts_with("mods/") || path.starts_with("plugins/")) {
                return None;
            }
            let body = b.split_once('\n').map(|x| x.1).unwrap_or("").to_owned();
            Some((path.to_owned(), append, body))
        })
        .collect()
}

fn write(root: &Path, path: &str, append: bool, body: &str) {
    let p = root.join(path);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    if append {
        let old = std::fs::read_to_string(&p).unwrap();
        std::fs::write(&p, format!("{old}\n{body}")).unwrap();
    } else {
        std::fs::write(&p, body).unwrap();
    }
}

/// Lines of the running game, read on a thread.
struct Running {
    child: std::process::Child,
    lines: Receiver<String>,
    seen: Vec<String>,
}

impl Running {
    /// Waits for a line containing all of `parts`; panics with everything seen if none comes.
    fn wait_for(&mut self, parts: &[&str]) -> String {
        let deadline = Instant::now() + Duration::from_secs(60);
        while Instant::now() < deadline {
            if let Ok(l) = self.lines.recv_timeout(Duration::from_millis(100)) {
                self.seen.push(l.clone());
                if parts.iter().all(|p| l.contains(p)) {
                    return l;
                }
            }
        }
        let _ = self.child.kill();
        panic!(
            "the running game never printed a line with {parts:?}; its output:\n{}",
            self.seen
                .iter()
                .filter(|l| !l.starts_with("  "))
                .cloned()
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
}

/// The arguments of the README's `tessera` command that starts with `tessera <prefix>`.
fn command_args(prefix: &str) -> Vec<String> {
    blocks()
        .into_iter()
        .filter(|(lang, _)| lang == "sh")
        .flat_map(|(_, b)| b.lines().map(str::to_owned).collect::<Vec<_>>())
        .find(|l| l.starts_with(&format!("tessera {prefix}")))
        .unwrap_or_else(|| panic!("the README has no `tessera {prefix}` command"))
        .split_whitespace()
        .skip(1)
        .take_while(|w| !w.starts_with('#'))
        .map(str::to_owned)
        .collect()
}

/// N of a `reloaded ... (generation N) ...` line.
fn generation_of(line: &str) -> u64 {
    line.split("(generation ")
        .nth(1)
        .and_then(|r| r.split(')').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no generation in `{line}`"))
}

fn tessera(root: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_tessera"));
    c.current_dir(root).env_remove("RUST_LOG");
    c
}

#[test]
fn your_first_mod_in_five_minutes_runs_as_written() {
    crate::plugin_build::ensure_built();
    let files = file_blocks();
    let find = |path: &str, append: bool| {
        files
            .iter()
            .find(|(p, a, _)| p == path && *a == append)
            .unwrap_or_else(|| panic!("the tutorial has no block for `{path}`"))
            .2
            .clone()
    };
    let root = std::env::temp_dir().join(format!("tessera-tutorial-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    copy_tree(&repo().join("mods"), &root.join("mods"));
    std::fs::copy(repo().join("server.toml"), root.join("server.toml")).unwrap();
    // The plugin SDK as it sits in the repository (a member of the root workspace).
    crate::plugin_build::link_sdk(&root);

    // 1. A game that reloads edits (and rebuilds plugin sources under ./plugins), started
    // with the README's own command.
    std::fs::create_dir_all(root.join("plugins")).unwrap();
    let mut child = tessera(&root)
        .args(command_args("run --watch"))
        .env("CARGO_TARGET_DIR", repo().join("plugins/target"))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("tessera run");
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        for l in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(l).is_err() {
                break;
            }
        }
    });
    let mut game = Running {
        child,
        lines: rx,
        seen: Vec::new(),
    };
    game.wait_for(&["watching the mod folders"]);

    // 2. `tessera new mod`, then the dependency, the card and its translations.
    let out = tessera(&root)
        .args(command_args("new mod"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    game.wait_for(&["reloaded my-cards (generation 2) in ", " ms after the save"]);
    let manifest = root.join("mods/my-cards/mod.toml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    assert!(text.contains("# arena = \"^1.0\""), "{text}");
    std::fs::write(
        &manifest,
        text.replace("# arena = \"^1.0\"", "arena = \"^1.0\""),
    )
    .unwrap();
    write(
        &root,
        "mods/my-cards/locale/en.toml",
        true,
        &find("mods/my-cards/locale/en.toml", true),
    );
    let cards_path = "mods/my-cards/content/cards.toml";
    write(&root, cards_path, false, &find(cards_path, false));
    let live = game.wait_for(&["reloaded my-cards (generation "]);
    let mut generation = generation_of(&live);

    // 3. Change it while it plays; break it (no number is used up); fix it.
    let cards = root.join(cards_path);
    let text = std::fs::read_to_string(&cards).unwrap();
    assert!(text.contains("attack = 3"));
    std::fs::write(&cards, text.replace("attack = 3", "attack = 5")).unwrap();
    generation += 1;
    game.wait_for(&[&format!("reloaded my-cards (generation {generation}) in ")]);
    std::fs::write(&cards, "[class.river_giant\n").unwrap();
    game.wait_for(&[
        "reload failed: ",
        &format!("keeping generation {generation}"),
    ]);
    std::fs::write(&cards, text.replace("attack = 3", "attack = 5")).unwrap();
    game.wait_for(&[&format!(
        "reloaded my-cards (generation {})",
        generation + 1
    )]);

    // 4. Its scenario passes.
    let scenario = "mods/my-cards/tests/river_giant.toml";
    write(&root, scenario, false, &find(scenario, false));
    let out = tessera(&root).arg("test").output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("ok     a river giant trades with two brook lurkers"),
        "{text}"
    );

    // 5. A plugin condition, built and used by a new card while the game runs.
    for path in ["plugins/my-cards/Cargo.toml", "plugins/my-cards/src/lib.rs"] {
        write(&root, path, false, &find(path, false));
    }
    let out = tessera(&root)
        .args(["build", "plugins/my-cards"])
        .env("CARGO_TARGET_DIR", repo().join("plugins/target"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(root.join("mods/my-cards/plugins/my-cards.wasm").is_file());
    write(
        &root,
        "mods/my-cards/content/medic.toml",
        false,
        &find("mods/my-cards/content/medic.toml", false),
    );
    write(
        &root,
        "mods/my-cards/locale/en.toml",
        true,
        "[my-cards.field_medic]\nname = \"Field Medic\"\n",
    );
    write(
        &root,
        "mods/my-cards/mod.toml",
        true,
        &find("mods/my-cards/mod.toml", true),
    );
    // The running game takes the mod with its plugin (the writes may arrive as one
    // reload or as several; the last one is good).
    game.wait_for(&["reloaded my-cards (generation "]);
    let out = tessera(&root).arg("check").output().unwrap();
    let text =
        String::from_utf8_lossy(&out.stderr).into_owned() + &String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("0 errors, 0 warnings"), "{text}");

    // 6. Saving the plugin's source rebuilds it and the game reloads the new module.
    let lib = root.join("plugins/my-cards/src/lib.rs");
    let source = std::fs::read_to_string(&lib).unwrap();
    assert!(source.contains("> 0"));
    std::fs::write(&lib, source.replace("> 0", ">= 2")).unwrap();
    game.wait_for(&["rebuilt plugin my-cards in "]);
    game.wait_for(&["reloaded my-cards (generation "]);
    let _ = game.child.kill();
    let _ = game.child.wait();
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn the_content_language_examples_check_and_pass() {
    let all = blocks();
    let find = |needle: &str| {
        all.iter()
            .filter(|(l, _)| l == "toml")
            .map(|(_, b)| b)
            .find(|b| b.contains(needle))
            .unwrap_or_else(|| panic!("no README toml block with `{needle}`"))
            .clone()
    };
    let (manifest, content, scenario, server_text) = (
        find("id = \"my-mod\""),
        find("[class.wolf]"),
        find("the wolf's battlecry"),
        find("mod_dirs"),
    );
    let root = std::env::temp_dir().join(format!("tessera-readme-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let dir = root.join("my-mod");
    for (rel, body) in [
        ("mod.toml", manifest.as_str()),
        ("content/wolf.toml", content.as_str()),
        ("tests/wolf.toml", scenario.as_str()),
        (
            "locale/en.toml",
            "\"my-mod.name\" = \"My mod\"\n\"my-mod.wolf.name\" = \"Wolf\"\n",
        ),
    ] {
        write(&dir, rel, false, body);
    }
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

/// Issue 21, defect 7: `tessera` was not on PATH and the README mixed `tessera X` with
/// `cargo run --release -- X`. It says how to install the command, and every shell
/// command it shows is the installed `tessera` (or cargo's install and test), naming
/// subcommands that exist.
#[test]
fn every_readme_command_is_the_installed_tessera() {
    let text = std::fs::read_to_string(repo().join("README.md")).unwrap();
    assert!(text.contains("cargo install --path host"));
    let help = Command::new(env!("CARGO_BIN_EXE_tessera"))
        .arg("--help")
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&help.stdout).into_owned();
    let lines: Vec<String> = blocks()
        .into_iter()
        .filter(|(lang, _)| lang == "sh")
        .flat_map(|(_, b)| b.lines().map(str::to_owned).collect::<Vec<_>>())
        .collect();
    assert!(lines.len() >= 8, "{lines:?}");
    for l in &lines {
        if let Some(rest) = l.strip_prefix("tessera ") {
            let sub = rest.split_whitespace().next().unwrap_or_default();
            assert!(
                help.lines()
                    .any(|h| h.trim_start().starts_with(&format!("{sub} "))),
                "`{l}`: `tessera --help` has no `{sub}`:\n{help}"
            );
        } else {
            assert!(
                [
                    "cargo install --path host",
                    "cargo install --path host --features agones",
                    "cargo test --workspace",
                ]
                .contains(&l.as_str()),
                "a README command that is not `tessera ...`: `{l}`"
            );
        }
    }
}

/// Issue 21, defect 8: the README promised `455 cards, 0 errors` from `check --server
/// hearthbreaker.toml`, which printed something else. The comment is what it prints.
#[test]
fn the_readme_says_what_check_prints_for_hearthbreaker() {
    crate::plugin_build::ensure_built();
    let line = blocks()
        .into_iter()
        .flat_map(|(_, b)| b.lines().map(str::to_owned).collect::<Vec<_>>())
        .find(|l| l.starts_with("tessera check --server hearthbreaker.toml"))
        .expect("the README's hearthbreaker check command");
    let promise = line.split_once('#').expect("a comment").1.trim().to_owned();
    let lock = std::env::temp_dir().join(format!("tessera-hb-{}.lock", std::process::id()));
    let out = Command::new(env!("CARGO_BIN_EXE_tessera"))
        .current_dir(repo())
        .args(["check", "--server", "hearthbreaker.toml", "--lock"])
        .arg(&lock)
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&lock);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains(&promise),
        "the README says `{promise}`; check printed {stdout}"
    );
}

/// Issue 21, defect 16: `.gitignore` ignored `/plugins/target` only, so a new plugin
/// crate's `target/` (tens of MB) showed up in `git status`.
#[test]
fn a_new_plugin_crates_build_output_is_ignored() {
    if !repo().join(".git").exists() {
        eprintln!("not a git checkout; nothing to check");
        return;
    }
    for path in [
        "plugins/my-cards/target/debug/x.rlib",
        "target/debug/tessera",
        "hearthbreaker.mods.lock",
    ] {
        let status = Command::new("git")
            .current_dir(repo())
            .args(["check-ignore", "--no-index", "-q", path])
            .status()
            .expect("git");
        assert!(status.success(), "`{path}` is not ignored by .gitignore");
    }
}
