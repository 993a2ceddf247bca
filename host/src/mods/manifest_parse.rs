//! Parsing `mod.toml` text into a [`Manifest`]: the serde types behind [`Manifest::parse`]
//! and the checks on what they hold.
//!
//! Owns the manifest's serde types (so the known keys of every section) and the errors
//! about how a manifest is written (unknown keys with a did-you-mean, wrong types, bad ids, non-semver versions,
//! `[breaks]` without a reason). The types themselves live in [`manifest`](super::manifest).

use std::ops::Range;

use indexmap::IndexMap;
use semver::{Version, VersionReq};
use serde::Deserialize;
use toml::Spanned;

use super::manifest::{Break, Conflict, Dependency, Manifest, ManifestSpans, PluginEntry};
use super::toml_read::{fields_of, Codes, Document, Field, Reader, Seg, StrOr, StringList, Typed};
use crate::diag::Diagnostic;
use crate::id::validate_namespace;

pub(crate) static CODES: Codes = Codes {
    parse: "E-MANIFEST-PARSE",
    unknown_key: "E-MANIFEST-UNKNOWN-KEY",
    wrong_type: "E-MANIFEST-TYPE",
    missing_key: "E-MANIFEST-MISSING-KEY",
};

/// `mod.toml` as written. Every field is optional and lenient ([`Typed`]) so one read
/// reports every mistake; [`read_manifest`] checks what is required and what it means.
#[derive(Deserialize)]
pub(crate) struct ManifestToml {
    #[serde(rename = "mod")]
    module: Field<ModToml>,
    dependencies: Field<Entries<DependencyToml>>,
    conflicts: Field<Entries<ConflictToml>>,
    breaks: Field<Entries<ConflictToml>>,
    load: Field<LoadToml>,
    content: Field<ContentToml>,
    plugin: Field<Vec<Spanned<Typed<PluginToml>>>>,
    locale: Field<LocaleToml>,
}

/// `id = "^1.0"` or `id = { ... }` entries of `[dependencies]`, `[conflicts]`, `[breaks]`,
/// in the order written.
type Entries<T> = IndexMap<String, Spanned<Typed<StrOr<T>>>>;

/// `[mod]`: who the mod is.
#[derive(Deserialize)]
pub(crate) struct ModToml {
    id: Field<String>,
    version: Field<String>,
    api: Field<String>,
    name: Field<String>,
    description: Field<String>,
    authors: Field<StringList>,
    license: Field<String>,
}

/// The long form of a `[dependencies]` entry.
#[derive(Deserialize)]
struct DependencyToml {
    version: Field<String>,
    optional: Field<bool>,
}

/// The long form of a `[conflicts]` or `[breaks]` entry.
#[derive(Deserialize)]
struct ConflictToml {
    version: Field<String>,
    reason: Field<String>,
}

/// `[load]`: ordering hints.
#[derive(Deserialize)]
struct LoadToml {
    after: Field<StringList>,
    before: Field<StringList>,
}

/// `[content]`: where the content files are and which loader reads which file.
#[derive(Deserialize)]
struct ContentToml {
    paths: Field<StringList>,
    loaders: Field<IndexMap<String, Spanned<Typed<String>>>>,
}

/// One `[[plugin]]`.
#[derive(Deserialize)]
pub(crate) struct PluginToml {
    file: Field<String>,
    provides: Field<StringList>,
    capabilities: Field<StringList>,
}

/// `[locale]`.
#[derive(Deserialize)]
struct LocaleToml {
    dir: Field<String>,
    default: Field<String>,
}

/// Names the table an unknown key at `path` sits in, with the keys that table accepts.
fn table_name(path: &[Seg]) -> Option<(String, &'static [&'static str])> {
    let keys: Vec<&str> = path.iter().filter_map(Seg::key).collect();
    Some(match (path, keys.as_slice()) {
        ([], _) => ("mod.toml".into(), fields_of::<ManifestToml>()),
        ([_], ["mod"]) => ("`[mod]`".into(), fields_of::<ModToml>()),
        ([_], ["load"]) => ("`[load]`".into(), fields_of::<LoadToml>()),
        ([_], ["content"]) => ("`[content]`".into(), fields_of::<ContentToml>()),
        ([_], ["locale"]) => ("`[locale]`".into(), fields_of::<LocaleToml>()),
        ([_, Seg::Index(_)], ["plugin"]) => ("`[[plugin]]`".into(), fields_of::<PluginToml>()),
        ([_, _], ["dependencies", id]) => {
            (format!("dependency `{id}`"), fields_of::<DependencyToml>())
        }
        ([_, _], [section @ ("conflicts" | "breaks"), id]) => (
            format!("`{id}` in `[{section}]`"),
            fields_of::<ConflictToml>(),
        ),
        _ => return None,
    })
}

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

/// Checks a parsed `mod.toml` and builds the [`Manifest`]; `None` when anything is wrong
/// (every problem is in `r`).
pub(crate) fn read_manifest(
    r: &mut Reader<'_>,
    doc: &Document<'_, ManifestToml>,
) -> Option<Manifest> {
    // The top level and `[mod]` first, then the id, so every later diagnostic carries it.
    r.report_unknown(doc, |p| match p {
        [] => table_name(p),
        [Seg::Key(k)] if k == "mod" => table_name(p),
        _ => None,
    });
    let (module, header) = read_mod_table(r, doc)?;
    let mut spans = ManifestSpans::default();
    let id = read_id(r, module, &header, &mut spans);
    r.report_unknown(doc, table_name);
    let required = |r: &mut Reader<'_>, key: &str, example: &str| match field(module, key) {
        Some(v) => r.string(v, &format!("mod.{key}"), example),
        None => {
            r.missing(header.clone(), key, "`[mod]`", example);
            None
        }
    };
    let version = required(r, "version", "version = \"0.1.0\"")
        .and_then(|(s, span)| parse_version(r, &s, span));
    let api = required(r, "api", "api = \"0.1\"").and_then(|(s, span)| {
        spans.api = Some(span.clone());
        parse_req(r, &s, span, "`api`")
    });
    let mut m = Manifest::new(
        id.clone().unwrap_or_default(),
        Version::new(0, 0, 0),
        VersionReq::STAR,
    );
    read_about(r, module, &mut m);
    read_relations(r, doc, &mut m);
    let t = &doc.value;
    if let Some(load) = table(r, &t.load, "load", "[load]") {
        read_load(r, load, &mut m);
    }
    if let Some(content) = table(r, &t.content, "content", "[content]") {
        read_content(r, content, &mut m);
    }
    if let Some(plugins) = t.plugin.as_ref().and_then(|v| {
        r.typed(v, "plugin", "an array of tables", "[[plugin]]")
            .map(|(p, _)| p)
    }) {
        m.plugins = plugins.iter().filter_map(|p| read_plugin(r, p)).collect();
    }
    if let Some(locale) = table(r, &t.locale, "locale", "[locale]") {
        let mut text = |v: &Field<String>, key: &str, example: &str| {
            v.as_ref()
                .and_then(|v| r.string(v, &format!("locale.{key}"), example))
                .map(|(s, _)| s)
        };
        if let Some(s) = text(&locale.dir, "dir", "dir = \"locale\"") {
            m.locale.dir = s;
        }
        if let Some(s) = text(&locale.default, "default", "default = \"en\"") {
            m.locale.default = s;
        }
    }
    m.id = id?;
    m.version = version?;
    m.api = api?;
    m.spans = spans;
    Some(m)
}

/// A present table-valued field, or a type error (`what` is how it is written).
fn table<'v, T>(r: &mut Reader<'_>, v: &'v Field<T>, key: &str, what: &str) -> Option<&'v T> {
    r.typed(v.as_ref()?, key, "a table", what).map(|(t, _)| t)
}

/// `[mod]` and the span of its header; reports it missing or not a table.
fn read_mod_table<'d>(
    r: &mut Reader<'_>,
    doc: &'d Document<'_, ManifestToml>,
) -> Option<(&'d ModToml, Range<usize>)> {
    let Some(v) = doc.value.module.as_ref() else {
        r.missing(
            doc.span.start..doc.span.start,
            "[mod]",
            "mod.toml",
            "[mod]\nid = \"my_mod\"\nversion = \"0.1.0\"\napi = \"0.1\"",
        );
        return None;
    };
    let (module, _) = r.typed(v, "mod", "a table", "[mod]")?;
    let header = doc.key_span(&[Seg::Key("mod".into())]).unwrap_or(0..0);
    Some((module, header))
}

/// A `[mod]` string field by name.
fn field<'m>(module: &'m ModToml, key: &str) -> Option<&'m Spanned<Typed<String>>> {
    match key {
        "id" => module.id.as_ref(),
        "version" => module.version.as_ref(),
        "api" => module.api.as_ref(),
        "name" => module.name.as_ref(),
        "description" => module.description.as_ref(),
        "license" => module.license.as_ref(),
        _ => None,
    }
}

/// `[mod] id`: checked, and stamped on the reader so later diagnostics name the mod.
fn read_id(
    r: &mut Reader<'_>,
    module: &ModToml,
    header: &Range<usize>,
    spans: &mut ManifestSpans,
) -> Option<String> {
    let Some(v) = module.id.as_ref() else {
        r.missing(header.clone(), "id", "`[mod]`", "id = \"my_mod\"");
        return None;
    };
    let (s, span) = r.string(v, "mod.id", "id = \"my_mod\"")?;
    if !check_mod_id(r, &s, span.clone(), "`[mod] id`") {
        return None;
    }
    r.mod_id = Some(s.clone());
    spans.id = Some(span);
    Some(s)
}

/// The descriptive `[mod]` keys: name, description, license, authors.
fn read_about(r: &mut Reader<'_>, module: &ModToml, m: &mut Manifest) {
    let text = |r: &mut Reader<'_>, key: &str, example: &str| {
        field(module, key)
            .and_then(|v| r.string(v, &format!("mod.{key}"), example))
            .map(|(s, _)| s)
    };
    let name = text(r, "name", "name = \"My Mod\"");
    let description = text(r, "description", "description = \"what it adds\"");
    let license = text(r, "license", "license = \"MIT\"");
    m.name = name.unwrap_or_else(|| m.id.clone());
    m.description = description.unwrap_or_default();
    m.license = license;
    m.authors = module
        .authors
        .as_ref()
        .and_then(|v| r.string_list(v, "mod.authors", "authors = [\"Ada\"]"))
        .map(|v| v.into_iter().map(|(s, _)| s).collect())
        .unwrap_or_default();
}

/// `[dependencies]`, `[conflicts]` and `[breaks]`.
fn read_relations(r: &mut Reader<'_>, doc: &Document<'_, ManifestToml>, m: &mut Manifest) {
    let t = &doc.value;
    if let Some(deps) = table(r, &t.dependencies, "dependencies", "[dependencies]") {
        m.dependencies = read_dependencies(r, doc, deps);
    }
    if let Some(conflicts) = table(r, &t.conflicts, "conflicts", "[conflicts]") {
        m.conflicts = read_conflicts(r, doc, conflicts, false)
            .into_iter()
            .map(|(id, req, reason, span)| Conflict {
                id,
                req,
                reason,
                span,
            })
            .collect();
    }
    if let Some(breaks) = table(r, &t.breaks, "breaks", "[breaks]") {
        m.breaks = read_conflicts(r, doc, breaks, true)
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

/// `[load] after` and `before`: lists of mod ids.
fn read_load(r: &mut Reader<'_>, load: &LoadToml, m: &mut Manifest) {
    for (key, v, out) in [
        ("after", &load.after, &mut m.load.after),
        ("before", &load.before, &mut m.load.before),
    ] {
        let Some(list) = v.as_ref().and_then(|v| {
            r.string_list(
                v,
                &format!("load.{key}"),
                &format!("{key} = [\"other_mod\"]"),
            )
        }) else {
            continue;
        };
        for (s, span) in list {
            if check_mod_id(r, &s, span, &format!("`[load] {key}`")) {
                out.push(s);
            }
        }
    }
}

/// `[content] paths` and `loaders`.
fn read_content(r: &mut Reader<'_>, content: &ContentToml, m: &mut Manifest) {
    if let Some(list) = content
        .paths
        .as_ref()
        .and_then(|v| r.string_list(v, "content.paths", "paths = [\"content\"]"))
    {
        m.content_paths = list.into_iter().map(|(s, _)| s).collect();
    }
    let Some(loaders) = content.loaders.as_ref().and_then(|v| {
        r.typed(
            v,
            "content.loaders",
            "a table",
            "loaders = { \"cards.json\" = \"cards\" }",
        )
        .map(|(t, _)| t)
    }) else {
        return;
    };
    for (file, v) in loaders {
        if let Some((loader, _)) = r.string(
            v,
            &format!("content.loaders.{file}"),
            &format!("\"{file}\" = \"cards\""),
        ) {
            m.content_loaders.push((file.clone(), loader));
        }
    }
}

/// The span of entry `id` of `[section]` (its key).
fn entry_span(doc: &Document<'_, ManifestToml>, section: &str, id: &str) -> Range<usize> {
    doc.key_span(&[Seg::Key(section.into()), Seg::Key(id.into())])
        .unwrap_or(0..0)
}

fn read_dependencies(
    r: &mut Reader<'_>,
    doc: &Document<'_, ManifestToml>,
    deps: &Entries<DependencyToml>,
) -> Vec<Dependency> {
    let mut out = Vec::new();
    for (id, v) in deps {
        let key = entry_span(doc, "dependencies", id);
        let ok = check_mod_id(r, id, key.clone(), "`[dependencies]`");
        let example = format!("{id} = \"^1.0\"");
        let what = format!("dependency `{id}`");
        let entry = match r.typed(
            v,
            &format!("dependencies.{id}"),
            "a table",
            &format!("{id} = {{ version = \"^1.0\", optional = true }}"),
        ) {
            Some((StrOr::Str(s), span)) => parse_req(r, s, span, &what).map(|req| (req, false)),
            Some((StrOr::Table(dt), _)) => {
                let optional = dt
                    .optional
                    .as_ref()
                    .and_then(|v| {
                        r.boolean(v, &format!("dependencies.{id}.optional"), "optional = true")
                    })
                    .unwrap_or(false);
                match dt.version.as_ref() {
                    Some(v) => r
                        .string(v, &format!("dependencies.{id}.version"), &example)
                        .and_then(|(s, span)| parse_req(r, &s, span, &what))
                        .map(|req| (req, optional)),
                    None => {
                        r.missing(key.clone(), "version", &what, "version = \"^1.0\"");
                        None
                    }
                }
            }
            None => None,
        };
        if let (true, Some((req, optional))) = (ok, entry) {
            out.push(Dependency {
                id: id.clone(),
                req,
                optional,
                span: Some(key.start..v.span().end),
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
    doc: &Document<'_, ManifestToml>,
    entries: &Entries<ConflictToml>,
    reason_required: bool,
) -> Vec<ConflictEntry> {
    let section = if reason_required {
        "breaks"
    } else {
        "conflicts"
    };
    let mut out = Vec::new();
    for (id, v) in entries {
        let key = entry_span(doc, section, id);
        let ok = check_mod_id(r, id, key.clone(), &format!("`[{section}]`"));
        let what = format!("`{id}` in `[{section}]`");
        let example =
            format!("{id} = {{ version = \"*\", reason = \"why they cannot load together\" }}");
        let entry = match r.typed(v, &format!("{section}.{id}"), "a table", &example) {
            Some((StrOr::Str(s), span)) if !reason_required => {
                parse_req(r, s, span, &what).map(|req| (req, None))
            }
            Some((StrOr::Str(_), span)) => {
                r.push(
                    Diagnostic::error(
                        "E-MANIFEST-BREAKS-REASON",
                        format!("`[breaks]` entry `{id}` has no reason"),
                    )
                    .at(r.loc(key.start..span.end))
                    .with_label("`reason` is required")
                    .with_note(
                        "the reason is shown to operators when the two mods are refused together",
                    )
                    .with_help(format!("write `{example}`")),
                );
                None
            }
            Some((StrOr::Table(ct), _)) => {
                read_conflict_table(r, ct, section, id, &key, reason_required)
            }
            None => None,
        };
        if let (true, Some((req, reason))) = (ok, entry) {
            out.push((id.clone(), req, reason, Some(key.start..v.span().end)));
        }
    }
    out
}

/// The long form `{ version, reason }` of a conflict or break.
fn read_conflict_table(
    r: &mut Reader<'_>,
    ct: &ConflictToml,
    section: &str,
    id: &str,
    key: &Range<usize>,
    reason_required: bool,
) -> Option<(VersionReq, Option<String>)> {
    let what = format!("`{id}` in `[{section}]`");
    let req = match ct.version.as_ref() {
        Some(v) => r
            .string(v, &format!("{section}.{id}.version"), "version = \"*\"")
            .and_then(|(s, span)| parse_req(r, &s, span, &what)),
        None => Some(VersionReq::STAR),
    };
    let reason = ct
        .reason
        .as_ref()
        .and_then(|v| r.string(v, &format!("{section}.{id}.reason"), "reason = \"...\""))
        .map(|(s, _)| s);
    if reason_required && ct.reason.is_none() {
        r.missing(
            key.clone(),
            "reason",
            &what,
            "reason = \"why they cannot load together\"",
        );
        return None;
    }
    req.map(|req| (req, reason))
}

fn read_plugin(r: &mut Reader<'_>, item: &Spanned<Typed<PluginToml>>) -> Option<PluginEntry> {
    let (t, span) = r.typed(
        item,
        "plugin",
        "a table",
        "[[plugin]]\nfile = \"plugins/my_plugin.wasm\"",
    )?;
    let file = match t.file.as_ref() {
        Some(v) => r
            .string(v, "plugin.file", "file = \"plugins/my_plugin.wasm\"")
            .map(|(s, _)| s),
        None => {
            r.missing(
                span,
                "file",
                "`[[plugin]]`",
                "file = \"plugins/my_plugin.wasm\"",
            );
            None
        }
    };
    let list = |r: &mut Reader<'_>, v: &Field<StringList>, key: &str, example: &str| {
        v.as_ref()
            .and_then(|v| r.string_list(v, &format!("plugin.{key}"), example))
            .map(|l| l.into_iter().map(|(s, _)| s).collect())
            .unwrap_or_default()
    };
    let provides = list(
        r,
        &t.provides,
        "provides",
        "provides = [\"action/my_action\"]",
    );
    let capabilities = list(
        r,
        &t.capabilities,
        "capabilities",
        "capabilities = [\"log\"]",
    );
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
