//! Parsing `mod.toml` text into a [`Manifest`]: the key walk behind [`Manifest::parse`].
//!
//! Owns the known keys of every manifest section and the errors about how a manifest is
//! written (unknown keys with a did-you-mean, wrong types, bad ids, non-semver versions,
//! `[breaks]` without a reason). The types themselves live in [`manifest`](super::manifest).

use std::ops::Range;

use semver::{Version, VersionReq};
use toml::de::DeTable;

use super::manifest::{Break, Conflict, Dependency, Manifest, ManifestSpans, PluginEntry};
use super::toml_read::{get, key_span, Codes, Reader};
use crate::diag::Diagnostic;
use crate::id::validate_namespace;

pub(crate) static CODES: Codes = Codes {
    parse: "E-MANIFEST-PARSE",
    unknown_key: "E-MANIFEST-UNKNOWN-KEY",
    wrong_type: "E-MANIFEST-TYPE",
    missing_key: "E-MANIFEST-MISSING-KEY",
};

pub(crate) const TOP_KEYS: &[&str] = &[
    "mod",
    "dependencies",
    "conflicts",
    "breaks",
    "load",
    "content",
    "plugin",
    "locale",
];
pub(crate) const MOD_KEYS: &[&str] = &[
    "id",
    "version",
    "api",
    "name",
    "description",
    "authors",
    "license",
];
const DEP_KEYS: &[&str] = &["version", "optional"];
const CONFLICT_KEYS: &[&str] = &["version", "reason"];
const LOAD_KEYS: &[&str] = &["after", "before"];
const CONTENT_KEYS: &[&str] = &["paths", "loaders"];
pub(crate) const PLUGIN_KEYS: &[&str] = &["file", "provides", "capabilities"];
const LOCALE_KEYS: &[&str] = &["dir", "default"];

/// Parses a strict semver version, explaining `1.0` and friends.
fn parse_version(r: &mut Reader<'_>, raw: &str, span: Range<usize>) -> Option<Version> {
    match Version::parse(raw) {
        Ok(v) => Some(v),
        Err(e) => {
            let numbers: Vec<&str> = raw.split('.').collect();
            let short = !raw.is_empty()
                && numbers.len() < 3
                && numbers
                    .iter()
                    .all(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()));
            let mut d = Diagnostic::error("E-MANIFEST-VERSION", format!("invalid version `{raw}`: {e}"))
                .at(r.loc(span))
                .with_label("not a semver version")
                .with_note("mod versions are strict semver (https://semver.org): MAJOR.MINOR.PATCH, three numbers, with an optional `-pre` or `+build` suffix");
            if short {
                let mut fixed = numbers.clone();
                while fixed.len() < 3 {
                    fixed.push("0");
                }
                d = d.with_help(format!("write `version = \"{}\"`", fixed.join(".")));
            } else {
                d = d.with_help("write it like `version = \"1.0.0\"`");
            }
            r.push(d);
            None
        }
    }
}

/// Parses a version requirement for `what` (a dependency id or `api`).
fn parse_req(r: &mut Reader<'_>, raw: &str, span: Range<usize>, what: &str) -> Option<VersionReq> {
    match VersionReq::parse(raw) {
        Ok(v) => Some(v),
        Err(e) => {
            r.push(
                Diagnostic::error(
                    "E-MANIFEST-VERSION-REQ",
                    format!("invalid version requirement `{raw}` for {what}: {e}"),
                )
                .at(r.loc(span))
                .with_label("not a version requirement")
                .with_help("write a requirement like `\"^1.2\"`, `\">=0.3, <0.5\"` or `\"*\"`"),
            );
            None
        }
    }
}

/// Checks a mod id used as a key or list entry.
fn check_mod_id(r: &mut Reader<'_>, id: &str, span: Range<usize>, what: &str) -> bool {
    match validate_namespace(id) {
        Ok(()) => true,
        Err(e) => {
            let lower = id.to_lowercase().replace([' ', ':', '/'], "_");
            r.push(
                Diagnostic::error("E-MANIFEST-ID", format!("invalid mod id `{id}` in {what}"))
                    .at(r.loc(span))
                    .with_label("invalid mod id")
                    .with_note(e.to_string())
                    .with_help(format!("mod ids use lowercase letters, digits, `_`, `.` and `-`; for example `{lower}`")),
            );
            false
        }
    }
}

pub(crate) fn read_manifest(
    r: &mut Reader<'_>,
    doc: &DeTable<'_>,
    doc_span: Range<usize>,
) -> Option<Manifest> {
    r.check_keys(doc, TOP_KEYS, "mod.toml");
    // [mod] first, so every later diagnostic carries the mod id.
    let Some(mod_v) = get(doc, "mod") else {
        r.missing(
            doc_span.start..doc_span.start,
            "[mod]",
            "mod.toml",
            "[mod]\nid = \"my_mod\"\nversion = \"0.1.0\"\napi = \"0.1\"",
        );
        return None;
    };
    let mod_t = r.table(mod_v, "mod", "[mod]")?;
    r.check_keys(mod_t, MOD_KEYS, "`[mod]`");
    let header = key_span(doc, "mod").unwrap_or(0..0);
    let mut spans = ManifestSpans::default();

    let mut id = None;
    match get(mod_t, "id") {
        Some(v) => {
            if let Some((s, span)) = r.string(v, "mod.id", "id = \"my_mod\"") {
                if check_mod_id(r, &s, span.clone(), "`[mod] id`") {
                    r.mod_id = Some(s.clone());
                    spans.id = Some(span);
                    id = Some(s);
                }
            }
        }
        None => r.missing(header.clone(), "id", "`[mod]`", "id = \"my_mod\""),
    }
    let version = match get(mod_t, "version") {
        Some(v) => r
            .string(v, "mod.version", "version = \"0.1.0\"")
            .and_then(|(s, span)| parse_version(r, &s, span)),
        None => {
            r.missing(header.clone(), "version", "`[mod]`", "version = \"0.1.0\"");
            None
        }
    };
    let api = match get(mod_t, "api") {
        Some(v) => r
            .string(v, "mod.api", "api = \"0.1\"")
            .and_then(|(s, span)| {
                spans.api = Some(span.clone());
                parse_req(r, &s, span, "`api`")
            }),
        None => {
            r.missing(header.clone(), "api", "`[mod]`", "api = \"0.1\"");
            None
        }
    };
    let text = |r: &mut Reader<'_>, key: &str, example: &str| {
        get(mod_t, key)
            .and_then(|v| r.string(v, &format!("mod.{key}"), example))
            .map(|(s, _)| s)
    };
    let name = text(r, "name", "name = \"My Mod\"");
    let description = text(r, "description", "description = \"what it adds\"");
    let license = text(r, "license", "license = \"MIT\"");
    let authors = get(mod_t, "authors")
        .and_then(|v| r.string_list(v, "mod.authors", "authors = [\"Ada\"]"))
        .map(|v| v.into_iter().map(|(s, _)| s).collect())
        .unwrap_or_default();

    let mut m = Manifest::new(
        id.clone().unwrap_or_default(),
        Version::new(0, 0, 0),
        VersionReq::STAR,
    );
    m.name = name.unwrap_or_else(|| m.id.clone());
    m.description = description.unwrap_or_default();
    m.license = license;
    m.authors = authors;

    if let Some(v) = get(doc, "dependencies") {
        if let Some(t) = r.table(v, "dependencies", "[dependencies]") {
            m.dependencies = read_dependencies(r, t);
        }
    }
    if let Some(v) = get(doc, "conflicts") {
        if let Some(t) = r.table(v, "conflicts", "[conflicts]") {
            m.conflicts = read_conflicts(r, t, false)
                .into_iter()
                .map(|(id, req, reason, span)| Conflict {
                    id,
                    req,
                    reason,
                    span,
                })
                .collect();
        }
    }
    if let Some(v) = get(doc, "breaks") {
        if let Some(t) = r.table(v, "breaks", "[breaks]") {
            m.breaks = read_conflicts(r, t, true)
                .into_iter()
                .map(|(id, req, reason, span)| Break {
                    id,
                    req,
                    reason: reason.unwrap_or_default(),
                    span,
                })
                .collect();
        }
    }
    if let Some(v) = get(doc, "load") {
        if let Some(t) = r.table(v, "load", "[load]") {
            r.check_keys(t, LOAD_KEYS, "`[load]`");
            for (key, out) in [("after", &mut m.load.after), ("before", &mut m.load.before)] {
                if let Some(list) = get(t, key).and_then(|v| {
                    r.string_list(
                        v,
                        &format!("load.{key}"),
                        &format!("{key} = [\"other_mod\"]"),
                    )
                }) {
                    for (s, span) in list {
                        if check_mod_id(r, &s, span, &format!("`[load] {key}`")) {
                            out.push(s);
                        }
                    }
                }
            }
        }
    }
    if let Some(v) = get(doc, "content") {
        if let Some(t) = r.table(v, "content", "[content]") {
            r.check_keys(t, CONTENT_KEYS, "`[content]`");
            if let Some(list) = get(t, "paths")
                .and_then(|v| r.string_list(v, "content.paths", "paths = [\"content\"]"))
            {
                m.content_paths = list.into_iter().map(|(s, _)| s).collect();
            }
            if let Some(lt) = get(t, "loaders").and_then(|v| {
                r.table(
                    v,
                    "content.loaders",
                    "loaders = { \"cards.json\" = \"cards\" }",
                )
            }) {
                for (key, v) in lt.iter() {
                    let file: &str = key.get_ref();
                    if let Some((loader, _)) = r.string(
                        v,
                        &format!("content.loaders.{file}"),
                        &format!("\"{file}\" = \"cards\""),
                    ) {
                        m.content_loaders.push((file.to_owned(), loader));
                    }
                }
            }
        }
    }
    if let Some(v) = get(doc, "plugin") {
        match v.get_ref().as_array() {
            Some(items) => {
                for item in items {
                    if let Some(p) = read_plugin(r, item) {
                        m.plugins.push(p);
                    }
                }
            }
            None => {
                let _ = r.string_list(v, "plugin", "[[plugin]]");
            }
        }
    }
    if let Some(v) = get(doc, "locale") {
        if let Some(t) = r.table(v, "locale", "[locale]") {
            r.check_keys(t, LOCALE_KEYS, "`[locale]`");
            if let Some((s, _)) =
                get(t, "dir").and_then(|v| r.string(v, "locale.dir", "dir = \"locale\""))
            {
                m.locale.dir = s;
            }
            if let Some((s, _)) =
                get(t, "default").and_then(|v| r.string(v, "locale.default", "default = \"en\""))
            {
                m.locale.default = s;
            }
        }
    }
    m.id = id?;
    m.version = version?;
    m.api = api?;
    m.spans = spans;
    Some(m)
}

fn read_dependencies(r: &mut Reader<'_>, t: &DeTable<'_>) -> Vec<Dependency> {
    let mut out = Vec::new();
    for (key, v) in t.iter() {
        let id: &str = key.get_ref();
        let ok = check_mod_id(r, id, key.span(), "`[dependencies]`");
        let example = format!("{id} = \"^1.0\"");
        let what = format!("dependency `{id}`");
        let entry = match v.get_ref().as_str() {
            Some(s) => parse_req(r, s, v.span(), &what).map(|req| (req, false)),
            None => match r.table(
                v,
                &format!("dependencies.{id}"),
                &format!("{id} = {{ version = \"^1.0\", optional = true }}"),
            ) {
                Some(dt) => {
                    r.check_keys(dt, DEP_KEYS, &format!("dependency `{id}`"));
                    let optional = get(dt, "optional")
                        .and_then(|v| {
                            r.boolean(v, &format!("dependencies.{id}.optional"), "optional = true")
                        })
                        .unwrap_or(false);
                    match get(dt, "version") {
                        Some(v) => r
                            .string(v, &format!("dependencies.{id}.version"), &example)
                            .and_then(|(s, span)| parse_req(r, &s, span, &what))
                            .map(|req| (req, optional)),
                        None => {
                            r.missing(key.span(), "version", &what, "version = \"^1.0\"");
                            None
                        }
                    }
                }
                None => None,
            },
        };
        if let (true, Some((req, optional))) = (ok, entry) {
            out.push(Dependency {
                id: id.to_string(),
                req,
                optional,
                span: Some(key.span().start..v.span().end),
            });
        }
    }
    out.sort_by(|a, b| a.id.cmp(&b.id));
    out
}

type ConflictEntry = (String, VersionReq, Option<String>, Option<Range<usize>>);

/// `[conflicts]` and `[breaks]`: `id = "req"` or `id = { version, reason }`.
fn read_conflicts(
    r: &mut Reader<'_>,
    t: &DeTable<'_>,
    reason_required: bool,
) -> Vec<ConflictEntry> {
    let section = if reason_required {
        "breaks"
    } else {
        "conflicts"
    };
    let mut out = Vec::new();
    for (key, v) in t.iter() {
        let id: &str = key.get_ref();
        let ok = check_mod_id(r, id, key.span(), &format!("`[{section}]`"));
        let what = format!("`{id}` in `[{section}]`");
        let example =
            format!("{id} = {{ version = \"*\", reason = \"why they cannot load together\" }}");
        let entry = match v.get_ref().as_str() {
            Some(s) if !reason_required => parse_req(r, s, v.span(), &what).map(|req| (req, None)),
            Some(_) => {
                r.push(
                    Diagnostic::error(
                        "E-MANIFEST-BREAKS-REASON",
                        format!("`[breaks]` entry `{id}` has no reason"),
                    )
                    .at(r.loc(key.span().start..v.span().end))
                    .with_label("`reason` is required")
                    .with_note(
                        "the reason is shown to operators when the two mods are refused together",
                    )
                    .with_help(format!("write `{example}`")),
                );
                None
            }
            None => match r.table(v, &format!("{section}.{id}"), &example) {
                Some(ct) => {
                    r.check_keys(ct, CONFLICT_KEYS, &what);
                    let req = match get(ct, "version") {
                        Some(v) => r
                            .string(v, &format!("{section}.{id}.version"), "version = \"*\"")
                            .and_then(|(s, span)| parse_req(r, &s, span, &what)),
                        None => Some(VersionReq::STAR),
                    };
                    let reason = get(ct, "reason")
                        .and_then(|v| {
                            r.string(v, &format!("{section}.{id}.reason"), "reason = \"...\"")
                        })
                        .map(|(s, _)| s);
                    if reason_required && reason.is_none() && get(ct, "reason").is_none() {
                        r.missing(
                            key.span(),
                            "reason",
                            &what,
                            "reason = \"why they cannot load together\"",
                        );
                        None
                    } else {
                        req.map(|req| (req, reason))
                    }
                }
                None => None,
            },
        };
        if let (true, Some((req, reason))) = (ok, entry) {
            out.push((
                id.to_string(),
                req,
                reason,
                Some(key.span().start..v.span().end),
            ));
        }
    }
    out
}

fn read_plugin(
    r: &mut Reader<'_>,
    item: &toml::Spanned<toml::de::DeValue<'_>>,
) -> Option<PluginEntry> {
    let t = r.table(
        item,
        "plugin",
        "[[plugin]]\nfile = \"plugins/my_plugin.wasm\"",
    )?;
    r.check_keys(t, PLUGIN_KEYS, "`[[plugin]]`");
    let file = match get(t, "file") {
        Some(v) => r
            .string(v, "plugin.file", "file = \"plugins/my_plugin.wasm\"")
            .map(|(s, _)| s),
        None => {
            r.missing(
                item.span(),
                "file",
                "`[[plugin]]`",
                "file = \"plugins/my_plugin.wasm\"",
            );
            None
        }
    };
    let list = |r: &mut Reader<'_>, key: &str, example: &str| -> Vec<String> {
        get(t, key)
            .and_then(|v| r.string_list(v, &format!("plugin.{key}"), example))
            .map(|l| l.into_iter().map(|(s, _)| s).collect())
            .unwrap_or_default()
    };
    let provides = list(r, "provides", "provides = [\"action/my_action\"]");
    let capabilities = list(r, "capabilities", "capabilities = [\"log\"]");
    Some(PluginEntry {
        file: file?,
        provides,
        capabilities,
    })
}

#[cfg(test)]
mod tests {
    use super::super::manifest::ManifestError;
    use super::*;
    use std::path::Path;

    fn parse(text: &str) -> Result<Manifest, ManifestError> {
        Manifest::parse(Path::new("mods/x/mod.toml"), text)
    }

    const GOOD: &str = r#"
[mod]
id = "arena"
version = "1.4.0"
api = "0.1"
name = "Arena"
authors = ["Ada"]
license = "MIT"

[dependencies]
core = "^0.1"
spellcraft = { version = ">=0.3, <0.5", optional = true }

[conflicts]
noisy = "*"

[breaks]
old-arena = { version = "*", reason = "replaced by arena" }

[load]
after = ["x"]
before = ["y"]

[[plugin]]
file = "plugins/arena_rules.wasm"
provides = ["action/chain_damage"]
capabilities = ["log", "random"]

[locale]
dir = "lang"
"#;

    #[test]
    fn parses_the_design_example() {
        let m = parse(GOOD).unwrap();
        assert_eq!(m.id, "arena");
        assert_eq!(m.version, Version::new(1, 4, 0));
        assert_eq!(m.dependencies.len(), 2);
        assert!(m.dependencies[1].optional);
        assert_eq!(m.breaks[0].reason, "replaced by arena");
        assert_eq!(m.conflicts[0].id, "noisy");
        assert_eq!(m.load.after, vec!["x"]);
        assert_eq!(m.plugins[0].capabilities, vec!["log", "random"]);
        assert_eq!(m.content_paths, vec!["content"]);
        assert_eq!(m.locale.dir, "lang");
        assert_eq!(m.locale.default, "en");
    }

    #[test]
    fn reports_every_problem_at_once() {
        let e = parse("[mod]\nid = \"Bad Id\"\nversion = \"1.0\"\napi = \"0.1\"\nnmae = \"x\"\n[breaks]\nold = \"*\"\n").unwrap_err();
        let codes: Vec<_> = e.diagnostics.0.iter().map(|d| d.code).collect();
        assert!(codes.contains(&"E-MANIFEST-ID"), "{codes:?}");
        assert!(codes.contains(&"E-MANIFEST-VERSION"), "{codes:?}");
        assert!(codes.contains(&"E-MANIFEST-UNKNOWN-KEY"), "{codes:?}");
        assert!(codes.contains(&"E-MANIFEST-BREAKS-REASON"), "{codes:?}");
        assert!(e.id.is_none());
    }

    #[test]
    fn keeps_the_id_when_something_else_is_wrong() {
        let e = parse("[mod]\nid = \"a\"\nversion = \"x\"\napi = \"0.1\"\n").unwrap_err();
        assert_eq!(e.id.as_deref(), Some("a"));
        assert_eq!(e.diagnostics.0[0].mod_id.as_deref(), Some("a"));
    }

    #[test]
    fn missing_keys_and_wrong_types() {
        let e = parse("[mod]\nid = 3\n[dependencies]\ncore = 1\n").unwrap_err();
        let codes: Vec<_> = e.diagnostics.0.iter().map(|d| d.code).collect();
        assert!(codes.contains(&"E-MANIFEST-TYPE"), "{codes:?}");
        assert!(codes.contains(&"E-MANIFEST-MISSING-KEY"), "{codes:?}");
        assert!(parse("").is_err());
        assert!(parse("mod = 1").is_err());
        assert!(parse("[mod\n").is_err());
    }
}
