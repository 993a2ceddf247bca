//! `mods.lock`: writing, reading, and drift when a mod's files change.

use tessera_host::mods::{hash_mod_dir, Lockfile};

use crate::mods_fixture::Tree;

#[test]
fn lock_records_order_versions_and_hashes_and_reports_drift() {
    let t = Tree::new("lock");
    t.add("core", "0.1.0", "");
    t.add("arena", "1.0.0", "[dependencies]\ncore = \"0.1\"\n");
    let r = t.resolve();
    let lock = Lockfile::from_resolution(&r).unwrap();
    assert_eq!(
        lock.mods.iter().map(|m| m.id.as_str()).collect::<Vec<_>>(),
        vec!["core", "arena"]
    );
    assert!(lock.mods[0].hash.starts_with("sha256:") && lock.mods[0].hash.len() == 7 + 64);
    let path = t.root.join("mods.lock");
    lock.write(&path).unwrap();
    let read = Lockfile::read(&path).unwrap().unwrap();
    assert_eq!(read, lock);

    // Unchanged: nothing to report.
    let again = Lockfile::from_resolution(&t.resolve()).unwrap();
    assert!(read.compare(&again, &path).0.is_empty());

    // Dotfiles do not count.
    t.write("arena", ".editor-state", "x");
    assert!(read
        .compare(&Lockfile::from_resolution(&t.resolve()).unwrap(), &path)
        .0
        .is_empty());

    // A content change is drift, naming the mod.
    t.write(
        "arena",
        "content/defs.toml",
        "[class.arena_thing]\nattack = 2\n",
    );
    let now = Lockfile::from_resolution(&t.resolve()).unwrap();
    let d = read.compare(&now, &path);
    assert_eq!(d.0.len(), 1);
    assert_eq!(d.0[0].code, "W-LOCK-DRIFT");
    assert_eq!(d.0[0].mod_id.as_deref(), Some("arena"));
    assert_eq!(
        d.0[0].message,
        format!(
            "files of mod `arena` 1.0.0 changed since `{}` was written",
            path.display()
        )
    );
}

#[test]
fn missing_lock_is_none_and_hash_depends_on_paths_and_bytes() {
    let t = Tree::new("lock-hash");
    assert!(Lockfile::read(&t.root.join("mods.lock")).unwrap().is_none());
    let a = t.add("a", "1.0.0", "");
    let h1 = hash_mod_dir(&a).unwrap();
    assert_eq!(h1, hash_mod_dir(&a).unwrap());
    std::fs::rename(a.join("content/defs.toml"), a.join("content/other.toml")).unwrap();
    assert_ne!(h1, hash_mod_dir(&a).unwrap());
    assert!(hash_mod_dir(&t.root.join("nope")).is_err());
}
