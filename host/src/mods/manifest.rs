//! `mod.toml`: the manifest types and their parser.
//!
//! Owns what a manifest *says* (id, version, API requirement, dependencies, conflicts,
//! breaks, load hints, content paths, plugins, locale) and every error about how it is
//! written: bad TOML, unknown keys (with a did-you-mean), wrong types, bad ids and
//! non-semver versions, each with file:line:column. It does not decide whether a set of
//! mods fits together; that is [`resolve`](super::resolve).
//!
//! Keys are `snake_case`, like the rest of Tessera's files.

use std::ops::Range;
use std::path::Path;

use semver::{Version, VersionReq};

use super::manifest_parse::{read_manifest, CODES};
use super::toml_read::Reader;
use crate::diag::{Diagnostic, Diagnostics, Location, SourceText};

/// A parsed `mod.toml`.
#[derive(Debug, Clone)]
pub struct Manifest {
    /// The mod id, which is also its namespace (`[mod] id`).
    pub id: String,
    /// The mod's version (strict semver, `[mod] version`).
    pub version: Version,
    /// The platform API this mod targets (`[mod] api`, a requirement such as `"0.1"`).
    pub api: VersionReq,
    /// Display name. By default, the id.
    pub name: String,
    /// One-line description. By default empty.
    pub description: String,
    /// Authors. By default empty.
    pub authors: Vec<String>,
    /// SPDX license expression, if given.
    pub license: Option<String>,
    /// `[dependencies]`, sorted by id.
    pub dependencies: Vec<Dependency>,
    /// `[conflicts]`: mods this one works badly with (a warning when both load).
    pub conflicts: Vec<Conflict>,
    /// `[breaks]`: mods this one refuses to load with.
    pub breaks: Vec<Break>,
    /// `[load]`: ordering hints that add no dependency.
    pub load: LoadHints,
    /// `[content] paths`: folders (relative to the mod) holding definitions.
    /// By default `["content"]`.
    pub content_paths: Vec<String>,
    /// `[content] loaders`: files read by a named loader whatever their extension, as
    /// `(file name or path as written under the paths, loader id)` — e.g. a JSON file in
    /// another program's format (`"card_defs.json" = "cards"`).
    pub content_loaders: Vec<(String, String)>,
    /// `[[plugin]]` entries.
    pub plugins: Vec<PluginEntry>,
    /// `[locale]`.
    pub locale: LocaleConfig,
    /// The manifest text, when parsed from a file (lets resolution point at lines).
    pub source: Option<SourceText>,
    pub(crate) spans: ManifestSpans,
}

/// Byte spans of the values resolution errors point at.
#[derive(Debug, Clone, Default)]
pub(crate) struct ManifestSpans {
    pub id: Option<Range<usize>>,
    pub api: Option<Range<usize>>,
}

/// One `[dependencies]` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dependency {
    /// The mod depended on.
    pub id: String,
    /// Which versions are accepted.
    pub req: VersionReq,
    /// Whether the mod also loads without it (`optional = true`). By default `false`.
    pub optional: bool,
    pub(crate) span: Option<Range<usize>>,
}

impl Dependency {
    /// A required dependency on `id` matching `req`.
    pub fn new(id: impl Into<String>, req: VersionReq) -> Dependency {
        Dependency {
            id: id.into(),
            req,
            optional: false,
            span: None,
        }
    }

    /// Makes it optional.
    pub fn optional(mut self) -> Dependency {
        self.optional = true;
        self
    }
}

/// One `[conflicts]` entry: loading both is allowed but warned about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conflict {
    /// The other mod.
    pub id: String,
    /// Which of its versions conflict.
    pub req: VersionReq,
    /// Why, if the author said.
    pub reason: Option<String>,
    pub(crate) span: Option<Range<usize>>,
}

/// One `[breaks]` entry: the two mods never load together.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Break {
    /// The other mod.
    pub id: String,
    /// Which of its versions are broken.
    pub req: VersionReq,
    /// Why (required).
    pub reason: String,
    pub(crate) span: Option<Range<usize>>,
}

/// `[load]`: order only, no dependency. Names of absent mods are ignored.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LoadHints {
    /// Load after these mods when they are present.
    pub after: Vec<String>,
    /// Load before these mods when they are present.
    pub before: Vec<String>,
}

/// One `[[plugin]]` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PluginEntry {
    /// The `.wasm` (or native library) file, relative to the mod folder.
    pub file: String,
    /// What it registers (`action/chain_damage`, ...), relative to the mod's namespace.
    pub provides: Vec<String>,
    /// Capabilities it asks for; the operator grants them in `server.toml`.
    pub capabilities: Vec<String>,
}

/// `[locale]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocaleConfig {
    /// Folder of translation files, relative to the mod. By default `"locale"`.
    pub dir: String,
    /// The language used when a key is missing in another. By default `"en"`.
    pub default: String,
}

impl Default for LocaleConfig {
    fn default() -> Self {
        LocaleConfig {
            dir: "locale".into(),
            default: "en".into(),
        }
    }
}

/// Why a manifest could not be used: every problem found, and the id if it could be read
/// (so dependents can say "depends on `x`, whose manifest has errors").
#[derive(Debug, Clone)]
pub struct ManifestError {
    /// The mod id, when `[mod] id` itself was readable and valid.
    pub id: Option<String>,
    /// Every problem, each with a location.
    pub diagnostics: Diagnostics,
}

impl Manifest {
    /// A manifest built in code (tests, generated mods): no dependencies, default sections.
    pub fn new(id: impl Into<String>, version: Version, api: VersionReq) -> Manifest {
        let id = id.into();
        Manifest {
            name: id.clone(),
            id,
            version,
            api,
            description: String::new(),
            authors: Vec::new(),
            license: None,
            dependencies: Vec::new(),
            conflicts: Vec::new(),
            breaks: Vec::new(),
            load: LoadHints::default(),
            content_paths: vec!["content".into()],
            content_loaders: Vec::new(),
            plugins: Vec::new(),
            locale: LocaleConfig::default(),
            source: None,
            spans: ManifestSpans::default(),
        }
    }

    /// Reads and parses `path`.
    pub fn load(path: &Path) -> Result<Manifest, ManifestError> {
        match std::fs::read_to_string(path) {
            Ok(text) => Manifest::parse(path, &text),
            Err(e) => Err(ManifestError {
                id: None,
                diagnostics: Diagnostics(vec![Diagnostic::error(
                    "E-MANIFEST-READ",
                    format!("failed to read manifest: {e}"),
                )
                .in_file(path)
                .with_help("check that the file exists and is readable")]),
            }),
        }
    }

    /// Parses manifest text; `path` is only used in messages. Reports every problem.
    pub fn parse(path: &Path, text: &str) -> Result<Manifest, ManifestError> {
        let src = SourceText::new(path, text);
        let mut r = Reader::new(&src, &CODES);
        let Some(doc) = r.read(text, "mod.toml") else {
            return Err(ManifestError {
                id: None,
                diagnostics: Diagnostics(r.diags),
            });
        };
        let parsed = read_manifest(&mut r, &doc);
        let id = r.mod_id.clone();
        match parsed {
            Some(mut m) if r.diags.is_empty() => {
                m.source = Some(src.clone());
                Ok(m)
            }
            _ => Err(ManifestError {
                id,
                diagnostics: Diagnostics(r.diags),
            }),
        }
    }

    /// Where a dependency entry is written, for diagnostics.
    pub(crate) fn location_of(&self, span: &Option<Range<usize>>) -> Option<Location> {
        match (&self.source, span) {
            (Some(src), Some(span)) => Some(Location::span(src, span.clone())),
            (Some(src), None) => Some(Location::file(&src.path)),
            _ => None,
        }
    }
}
