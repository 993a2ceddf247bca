//! `tessera pack` and `tessera install` (issue 21): a mod folder becomes one `.zip` whose
//! hash is the one `tessera check` locks, and installing it checks that hash, its
//! dependencies and its paths before writing anything.

use std::io::Write;
use std::path::Path;

use tessera_host::mods::{hash_mod_dir, Lockfile};

use crate::cli::tessera;
use crate::mods_fixture::Tree;

/// Runs `tessera ARGS` in `cwd`, expecting `ok`; returns (stdout, stderr).
fn run(cwd: &Path, args: &[&str], ok: bool) -> (String, String) {
    let out = tessera(cwd, cwd).args(args).output().expect("tessera runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(
        out.status.success(),
        ok,
        "tessera {args:?}\n{stdout}\n{stderr}"
    );
    (stdout, stderr)
}

/// A zip with these entries (name, text).
fn write_zip(path: &Path, entries: &[(&str, &str)]) {
    let mut zip = zip::ZipWriter::new(std::fs::File::create(path).unwrap());
    for (name, text) in entries {
        zip.start_file(*name, zip::write::SimpleFileOptions::default())
            .unwrap();
        zip.write_all(text.as_bytes()).unwrap();
    }
    zip.finish().unwrap();
}

#[test]
fn a_packed_mod_has_the_hash_check_locks_and_installs_where_its_dependencies_are() {
    let t = Tree::new("pack");
    t.add("core", "0.1.0", "");
    let cards = t.add("cards", "1.2.0", "[dependencies]\ncore = \"^0.1\"\n");
    t.write("cards", "locale/en.toml", "[cards]\nname = \"Cards\"\n");
    t.write(
        "cards",
        "plugins/cards.wasm",
        "\0asm not really, but packed as bytes",
    );
    let hash = hash_mod_dir(&cards).unwrap();

    let (stdout, _) = run(&t.root, &["pack", "mods/cards", "--out", "cards.zip"], true);
    assert!(
        stdout.starts_with("packed cards 1.2.0 (4 files) into cards.zip\n"),
        "{stdout}"
    );
    assert!(stdout.contains(&format!("hash = \"{hash}\"")), "{stdout}");
    // The default name is ID-VERSION.zip.
    run(&t.root, &["pack", "mods/cards"], true);
    assert!(t.root.join("cards-1.2.0.zip").is_file());
    // Packing is reproducible: the same files give the same bytes.
    assert_eq!(
        std::fs::read(t.root.join("cards.zip")).unwrap(),
        std::fs::read(t.root.join("cards-1.2.0.zip")).unwrap()
    );
    // `check` locks the same hash.
    run(&t.root, &["check"], true);
    let lock = Lockfile::read(&t.root.join("mods.lock")).unwrap().unwrap();
    let locked = lock.mods.iter().find(|m| m.id == "cards").unwrap();
    assert_eq!(locked.hash, hash);

    // Into a folder without its dependency: refused, naming it and its requirement.
    let other = t.root.join("server-mods");
    std::fs::create_dir_all(&other).unwrap();
    let (_, stderr) = run(
        &t.root,
        &["install", "cards.zip", "--mods", "server-mods"],
        false,
    );
    assert!(
        stderr.contains("mod `cards` 1.2.0 needs `core` ^0.1, which is not in `server-mods`; nothing was installed"),
        "{stderr}"
    );
    assert!(
        stderr.contains("help: install `core` ^0.1 into `server-mods` first"),
        "{stderr}"
    );
    // With the wrong version of it: refused, naming both versions.
    let core_toml = "[mod]\nid = \"core\"\nversion = \"0.2.0\"\napi = \"0.1\"\n";
    std::fs::create_dir_all(other.join("core")).unwrap();
    std::fs::write(other.join("core/mod.toml"), core_toml).unwrap();
    let (_, stderr) = run(
        &t.root,
        &["install", "cards.zip", "--mods", "server-mods"],
        false,
    );
    assert!(
        stderr.contains("needs `core` ^0.1, but `server-mods` has core 0.2.0"),
        "{stderr}"
    );
    assert!(!other.join("cards").exists(), "nothing was written");
    // With it: installed, and the installed folder hashes as packed.
    std::fs::write(
        other.join("core/mod.toml"),
        core_toml.replace("0.2.0", "0.1.0"),
    )
    .unwrap();
    let (stdout, _) = run(
        &t.root,
        &["install", "cards.zip", "--mods", "server-mods"],
        true,
    );
    assert!(
        stdout.contains(&format!("installed cards 1.2.0 (4 files, {hash})")),
        "{stdout}"
    );
    assert_eq!(hash_mod_dir(&other.join("cards")).unwrap(), hash);
    run(
        &t.root,
        &["check", "--mods", "server-mods", "--lock", "server.lock"],
        true,
    );
    // Twice: refused unless --replace.
    let (_, stderr) = run(
        &t.root,
        &["install", "cards.zip", "--mods", "server-mods"],
        false,
    );
    assert!(
        stderr.contains("already exists (mod `cards` 1.2.0)"),
        "{stderr}"
    );
    assert!(stderr.contains("help: pass `--replace`"), "{stderr}");
    let replace = ["install", "cards.zip", "--mods", "server-mods", "--replace"];
    run(&t.root, &replace, true);
    // An expected hash that is not the file's: refused.
    let wrong = format!("sha256:{}", "0".repeat(64));
    let (_, stderr) = run(
        &t.root,
        &[&replace[..], &["--hash", &wrong]].concat(),
        false,
    );
    assert!(
        stderr.contains(&format!("has hash {hash}, but {wrong} was expected")),
        "{stderr}"
    );
    run(&t.root, &[&replace[..], &["--hash", &hash]].concat(), true);
}

#[test]
fn install_refuses_changed_files_and_paths_outside_the_mods_folder() {
    let t = Tree::new("pack-bad");
    let dir = t.add("cards", "1.0.0", "");
    run(&t.root, &["pack", "mods/cards", "--out", "cards.zip"], true);
    let hash = hash_mod_dir(&dir).unwrap();
    let lock =
        format!("version = 1\n\n[[mod]]\nid = \"cards\"\nversion = \"1.0.0\"\nhash = \"{hash}\"\n");
    let manifest = std::fs::read_to_string(dir.join("mod.toml")).unwrap();
    let target = t.root.join("target-mods");
    std::fs::create_dir_all(&target).unwrap();

    // A file changed after packing: the hash no longer matches.
    write_zip(
        &t.root.join("changed.zip"),
        &[
            ("cards/mod.toml", &manifest),
            (
                "cards/content/defs.toml",
                "[class.cards_thing]\nproperties = { attack = 99 }\n",
            ),
            ("mods.lock", &lock),
        ],
    );
    let (_, stderr) = run(
        &t.root,
        &["install", "changed.zip", "--mods", "target-mods"],
        false,
    );
    assert!(
        stderr.contains("is damaged or was changed after packing"),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("its mods.lock says {hash}")),
        "{stderr}"
    );

    // Entries that climb out of the folder, or are absolute: refused, nothing written.
    for evil in [
        "cards/../../evil.toml",
        "../evil.toml",
        "/tmp/tessera-evil.toml",
    ] {
        write_zip(
            &t.root.join("evil.zip"),
            &[
                ("cards/mod.toml", &manifest),
                (evil, "x"),
                ("mods.lock", &lock),
            ],
        );
        let (_, stderr) = run(
            &t.root,
            &["install", "evil.zip", "--mods", "target-mods"],
            false,
        );
        assert!(
            stderr.contains(&format!(
                "has an unsafe entry `{evil}`: it would be written outside the mods folder"
            )),
            "{stderr}"
        );
    }
    assert!(!t.root.join("evil.toml").exists() && !t.root.join("target-mods/cards").exists());
    assert!(
        std::fs::read_dir(&target).unwrap().next().is_none(),
        "nothing was written"
    );

    // Not a packed mod at all.
    std::fs::write(t.root.join("plain.zip"), "not a zip").unwrap();
    let (_, stderr) = run(
        &t.root,
        &["install", "plain.zip", "--mods", "target-mods"],
        false,
    );
    assert!(
        stderr.contains("`plain.zip` is not a readable zip archive"),
        "{stderr}"
    );

    // A plugin the manifest lists must be built before packing.
    t.add(
        "plug",
        "1.0.0",
        "[[plugin]]\nfile = \"plugins/plug.wasm\"\nprovides = [\"action/zap\"]\n",
    );
    let (_, stderr) = run(&t.root, &["pack", "mods/plug"], false);
    assert!(
        stderr.contains("plugin `plugins/plug.wasm` of mod `plug` is not built"),
        "{stderr}"
    );
    assert!(
        stderr.contains("help: build it first with `tessera build`"),
        "{stderr}"
    );
}
