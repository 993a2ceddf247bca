//! The user guide in `docs/` (issue 21): its content reference is what the registry says
//! now, and every page the summary lists, every file it includes and every README anchor
//! it names exists (so `mdbook build docs` in CI has nothing missing to trip on).
//! Regenerate the reference with `SNAPSHOTS=overwrite cargo test --test all docs`.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::plugin_build::repo;

fn docs() -> PathBuf {
    repo().join("docs")
}

#[test]
fn the_content_reference_is_generated_from_the_registry_and_up_to_date() {
    let out = Command::new(env!("CARGO_BIN_EXE_tessera"))
        .args(["schema", "--markdown", "--core-only"])
        .current_dir(std::env::temp_dir())
        .env_remove("RUST_LOG")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let fresh = String::from_utf8(out.stdout).unwrap();
    // It is the registry's: every built-in kind is in it.
    let registry = tessera_host::Registry::with_core();
    for id in registry.actions.names().chain(registry.selectors.names()) {
        assert!(fresh.contains(&format!("### `{id}`")), "{id} is missing");
    }
    let path = docs().join("src/reference.md");
    let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
    if checked_in != fresh {
        if std::env::var("SNAPSHOTS").as_deref() == Ok("overwrite") {
            std::fs::write(&path, &fresh).unwrap();
        } else {
            panic!(
                "{} is out of date with the registry; regenerate it with \
                 `tessera schema --markdown --core-only > docs/src/reference.md` \
                 (or SNAPSHOTS=overwrite cargo test --test all docs)",
                path.display()
            );
        }
    }
}

/// `{{#include PATH[:ANCHOR]}}` directives of a page.
fn includes(page: &str) -> Vec<(String, Option<String>)> {
    page.split("{{#include ")
        .skip(1)
        .filter_map(|rest| rest.split_once("}}"))
        .map(|(arg, _)| match arg.trim().split_once(':') {
            Some((p, a)) => (p.to_owned(), Some(a.to_owned())),
            None => (arg.trim().to_owned(), None),
        })
        .collect()
}

fn check_page(page: &Path) {
    let text = std::fs::read_to_string(page).unwrap_or_else(|e| panic!("{}: {e}", page.display()));
    for (rel, anchor) in includes(&text) {
        let target = page.parent().unwrap().join(&rel);
        let included = std::fs::read_to_string(&target)
            .unwrap_or_else(|e| panic!("{} includes {rel}: {e}", page.display()));
        if let Some(a) = anchor {
            let start = format!("ANCHOR: {a} ");
            let end = format!("ANCHOR_END: {a} ");
            let at = included.find(&start).unwrap_or_else(|| {
                panic!(
                    "{} includes {rel}:{a}, which has no `ANCHOR: {a}`",
                    page.display()
                )
            });
            let body = &included[at..included
                .find(&end)
                .unwrap_or_else(|| panic!("{rel} has no `ANCHOR_END: {a}`"))];
            assert!(body.lines().count() > 3, "{rel}:{a} is empty");
        }
    }
}

#[test]
fn every_page_and_include_of_the_user_guide_exists() {
    let src = docs().join("src");
    let summary = std::fs::read_to_string(src.join("SUMMARY.md")).unwrap();
    let pages: Vec<&str> = summary
        .split("](")
        .skip(1)
        .filter_map(|rest| rest.split_once(')'))
        .map(|(p, _)| p)
        .collect();
    for want in [
        "reference.md",
        "abi.md",
        "operator/protocol.md",
        "modder/first-mod.md",
    ] {
        assert!(pages.contains(&want), "SUMMARY.md lists no {want}");
    }
    for p in pages {
        check_page(&src.join(p));
    }
    let abi = std::fs::read_to_string(src.join("abi.md")).unwrap();
    assert!(abi.contains("plugin-api/ABI.md"));
}
