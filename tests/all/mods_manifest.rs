//! `mod.toml` errors seen through discovery: bad semver, unknown keys, isolation.

use crate::mods_fixture::Tree;

#[test]
fn version_1_0_is_rejected_and_explained() {
    let t = Tree::new("semver");
    t.add("a", "1.0", "");
    let d = t.discover();
    assert!(d.mods.is_empty());
    assert_eq!(d.broken[0].id.as_deref(), Some("a"));
    let diag = &d.diagnostics.0[0];
    assert_eq!(diag.code, "E-MANIFEST-VERSION");
    assert!(
        diag.message.starts_with("invalid version `1.0`"),
        "{}",
        diag.message
    );
    assert!(
        diag.notes[0].contains("MAJOR.MINOR.PATCH"),
        "{:?}",
        diag.notes
    );
    assert_eq!(diag.help, vec!["write `version = \"1.0.0\"`".to_string()]);
    assert_eq!(diag.location.as_ref().unwrap().line_col(), Some((3, 11)));
    let rendered = diag.render(false);
    assert!(rendered.contains("version = \"1.0\""), "{rendered}");
    assert!(rendered.contains("mod.toml:3:11"), "{rendered}");
}

#[test]
fn unknown_key_names_the_closest_key_and_line_col() {
    let t = Tree::new("unknown-key");
    t.write(
        "a",
        "mod.toml",
        "[mod]\nid = \"a\"\nversion = \"1.0.0\"\napi = \"0.1\"\n\n[dependencies]\ncore = { version = \"^1\", optinal = true }\n",
    );
    let d = t.discover();
    let diag = &d.diagnostics.0[0];
    assert_eq!(diag.code, "E-MANIFEST-UNKNOWN-KEY");
    assert_eq!(diag.message, "unknown key `optinal` in dependency `core`");
    assert_eq!(diag.help, vec!["did you mean `optional`?".to_string()]);
    assert_eq!(diag.location.as_ref().unwrap().line_col(), Some((7, 26)));
    assert!(diag.to_string().contains("mod.toml:7:26"), "{diag}");
    assert_eq!(diag.mod_id.as_deref(), Some("a"));
}

#[test]
fn unknown_top_level_and_mod_keys() {
    let t = Tree::new("unknown-key-2");
    t.write(
        "a",
        "mod.toml",
        "[mod]\nid = \"a\"\nverison = \"1.0.0\"\napi = \"0.1\"\n[dependecies]\n",
    );
    let d = t.discover();
    let helps: Vec<_> = d
        .diagnostics
        .0
        .iter()
        .flat_map(|d| d.help.clone())
        .collect();
    assert!(
        helps.contains(&"did you mean `dependencies`?".to_string()),
        "{helps:?}"
    );
    assert!(
        helps.contains(&"did you mean `version`?".to_string()),
        "{helps:?}"
    );
    // `version` is then missing too: reported in the same pass.
    assert!(d
        .diagnostics
        .0
        .iter()
        .any(|d| d.code == "E-MANIFEST-MISSING-KEY"));
}

#[test]
fn a_malformed_manifest_disables_only_its_mod() {
    let t = Tree::new("malformed");
    t.add("good", "1.0.0", "");
    t.write("bad", "mod.toml", "[mod\nid = \"bad\"\n");
    t.add("bad_id", "1.0.0", "[dependencies]\n\"Core Mod\" = \"1\"\n");
    let d = t.discover();
    assert_eq!(d.mods.len(), 1);
    assert_eq!(d.broken.len(), 2);
    assert!(d.diagnostics.0.iter().any(|d| d.code == "E-MANIFEST-PARSE"));
    assert!(d.diagnostics.0.iter().any(|d| d.code == "E-MANIFEST-ID"));
    let r = tessera_host::mods::resolve(&d, &tessera_host::mods::HOST_API_VERSION, None);
    assert_eq!(r.ids(), vec!["good"]);
}

#[test]
fn wrong_types_and_missing_breaks_reason() {
    let t = Tree::new("types");
    t.write(
        "a",
        "mod.toml",
        "[mod]\nid = \"a\"\nversion = \"1.0.0\"\napi = 1\nauthors = \"me\"\n[breaks]\nold = { version = \"*\" }\n",
    );
    let d = t.discover();
    let msgs: Vec<_> = d
        .diagnostics
        .0
        .iter()
        .map(|d| (d.code, d.message.clone()))
        .collect();
    assert!(
        msgs.contains(&(
            "E-MANIFEST-TYPE",
            "`mod.api` must be a string, found an integer".into()
        )),
        "{msgs:?}"
    );
    assert!(
        msgs.contains(&(
            "E-MANIFEST-TYPE",
            "`mod.authors` must be an array of strings, found a string".into()
        )),
        "{msgs:?}"
    );
    assert!(
        msgs.iter()
            .any(|(c, m)| *c == "E-MANIFEST-MISSING-KEY" && m.contains("reason")),
        "{msgs:?}"
    );
}
