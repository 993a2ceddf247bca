//! `server.toml`: the operator's one configuration file.
//!
//! Owns parsing and exposing what an operator controls: mod folders, `enabled`/`disabled`
//! lists, per-mod `[limits.<mod>]` and `[grants.<mod>]`, and `trusted_native`. Unknown keys
//! are errors with a did-you-mean, like in `mod.toml`. The selection semantics (disabled
//! wins, dependents follow) are applied by [`resolve`](super::resolve); limits and grants
//! are only parsed here and used by the plugin sandbox.
//!
//! ```toml
//! mod_dirs = ["mods", "/srv/extra-mods"]   # relative to server.toml; default ["mods"]
//! enabled = []                             # empty: every discovered mod
//! disabled = ["noisy"]                     # wins over `enabled`; dependents follow
//! trusted_native = ["fastpath"]            # may load native extensions
//!
//! [limits.arena]
//! fuel = 10_000_000
//! memory_mb = 64
//! table_elements = 10_000
//! stack_kb = 512
//! deadline_ms = 1000
//!
//! [grants.arena]
//! capabilities = ["log", "random"]
//! ```

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

use indexmap::IndexMap;
use serde::Deserialize;
use toml::Spanned;

use super::toml_read::{fields_of, Codes, Field, Reader, Seg, StringList, Typed};
use crate::diag::{Diagnostic, Diagnostics, Location, SourceText};
use crate::id::validate_namespace;
use crate::plugins::PluginLimits;

static CODES: Codes = Codes {
    parse: "E-SERVER-PARSE",
    unknown_key: "E-SERVER-UNKNOWN-KEY",
    wrong_type: "E-SERVER-TYPE",
    missing_key: "E-SERVER-MISSING-KEY",
};

/// `server.toml` as written; every field optional and lenient ([`Typed`]), so one read
/// reports every mistake.
#[derive(Deserialize)]
pub(crate) struct ServerToml {
    mod_dirs: Field<StringList>,
    enabled: Field<StringList>,
    disabled: Field<StringList>,
    trusted_native: Field<StringList>,
    limits: Field<IndexMap<String, Spanned<Typed<LimitsToml>>>>,
    grants: Field<IndexMap<String, Spanned<Typed<GrantsToml>>>>,
}

/// One `[limits.<mod>]` as written.
#[derive(Deserialize)]
pub(crate) struct LimitsToml {
    fuel: Field<u64>,
    memory_mb: Field<u64>,
    table_elements: Field<u64>,
    stack_kb: Field<u64>,
    deadline_ms: Field<u64>,
}

/// One `[grants.<mod>]` as written.
#[derive(Deserialize)]
struct GrantsToml {
    capabilities: Field<StringList>,
    read: Field<StringList>,
}

/// Names the table an unknown key at `path` sits in, with the keys that table accepts.
fn table_name(path: &[Seg]) -> Option<(String, &'static [&'static str])> {
    match path {
        [] => Some(("server.toml".into(), fields_of::<ServerToml>())),
        [Seg::Key(section), Seg::Key(id)] if section == "limits" => {
            Some((format!("`[limits.{id}]`"), fields_of::<LimitsToml>()))
        }
        [Seg::Key(section), Seg::Key(id)] if section == "grants" => {
            Some((format!("`[grants.{id}]`"), fields_of::<GrantsToml>()))
        }
        _ => None,
    }
}

/// Per-mod sandbox limits from `[limits.<mod>]`. `None` means the host's safe default.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Limits {
    /// Fuel per plugin call.
    pub fuel: Option<u64>,
    /// Linear memory per instance, in MiB.
    pub memory_mb: Option<u64>,
    /// Table elements per instance.
    pub table_elements: Option<u64>,
    /// Wasm stack, in KiB.
    pub stack_kb: Option<u64>,
    /// Wall-clock time per plugin call, in milliseconds (a loader translating large
    /// files on a busy machine may need more than the default second).
    pub deadline_ms: Option<u64>,
}

/// Capabilities granted to one mod in `[grants.<mod>]`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Grants {
    /// Capability names (`log`, `random`, ...). By default none.
    pub capabilities: Vec<String>,
    /// Folders outside the mod's own that its `[content] paths` may read (resolved
    /// against the folder of `server.toml`). By default none: a mod reads only its folder.
    pub read: Vec<PathBuf>,
}

/// A parsed `server.toml`. [`ServerConfig::default`] is what a server with no file uses.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// Folders holding mod folders, resolved against the directory of `server.toml`.
    /// By default `["mods"]`.
    pub mod_dirs: Vec<PathBuf>,
    /// When non-empty, only these mods and what they require load. By default empty.
    pub enabled: Vec<String>,
    /// Mods that never load; wins over `enabled`. By default empty.
    pub disabled: Vec<String>,
    /// Mods allowed to load trusted native extensions. By default none.
    pub trusted_native: Vec<String>,
    /// `[limits.<mod>]`, by mod id.
    pub limits: BTreeMap<String, Limits>,
    /// `[grants.<mod>]`, by mod id.
    pub grants: BTreeMap<String, Grants>,
    /// The file's text, when parsed from a file.
    pub source: Option<SourceText>,
    pub(crate) enabled_spans: Vec<Range<usize>>,
    pub(crate) disabled_spans: Vec<Range<usize>>,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            mod_dirs: vec![PathBuf::from("mods")],
            enabled: Vec::new(),
            disabled: Vec::new(),
            trusted_native: Vec::new(),
            limits: BTreeMap::new(),
            grants: BTreeMap::new(),
            source: None,
            enabled_spans: Vec::new(),
            disabled_spans: Vec::new(),
        }
    }
}

impl ServerConfig {
    /// Reads and parses `path`; relative `mod_dirs` are taken from the file's folder.
    pub fn load(path: &Path) -> Result<ServerConfig, Diagnostics> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            Diagnostics(vec![Diagnostic::error(
                "E-SERVER-READ",
                format!("failed to read server config: {e}"),
            )
            .in_file(path)
            .with_help("check the path given with `--server`")])
        })?;
        let base = path.parent().unwrap_or(Path::new("."));
        ServerConfig::parse(path, &text, base)
    }

    /// Parses `server.toml` text. `path` is used in messages; relative `mod_dirs` are
    /// joined to `base`. Reports every problem at once.
    pub fn parse(path: &Path, text: &str, base: &Path) -> Result<ServerConfig, Diagnostics> {
        let src = SourceText::new(path, text);
        let mut r = Reader::new(&src, &CODES);
        let Some(doc) = r.read::<ServerToml>(text, "server.toml") else {
            return Err(Diagnostics(r.diags));
        };
        r.report_unknown(&doc, table_name);
        let t = &doc.value;
        let mut cfg = ServerConfig::default();
        let (enabled, disabled, trusted) = (
            mod_ids(&mut r, &t.enabled, "enabled"),
            mod_ids(&mut r, &t.disabled, "disabled"),
            mod_ids(&mut r, &t.trusted_native, "trusted_native"),
        );
        (cfg.enabled, cfg.enabled_spans) = enabled.into_iter().unzip();
        (cfg.disabled, cfg.disabled_spans) = disabled.into_iter().unzip();
        cfg.trusted_native = trusted.into_iter().map(|(s, _)| s).collect();
        cfg.mod_dirs = match t
            .mod_dirs
            .as_ref()
            .and_then(|v| r.string_list(v, "mod_dirs", "mod_dirs = [\"mods\"]"))
        {
            Some(list) => list.into_iter().map(|(s, _)| base.join(s)).collect(),
            None => vec![base.join("mods")],
        };
        for (id, limits) in per_mod(&mut r, &doc, &t.limits, "limits") {
            let limits = read_limits(&mut r, &id, limits);
            cfg.limits.insert(id, limits);
        }
        for (id, grants) in per_mod(&mut r, &doc, &t.grants, "grants") {
            let grants = read_grants(&mut r, &id, grants, base);
            cfg.grants.insert(id, grants);
        }
        if !r.diags.is_empty() {
            return Err(Diagnostics(r.diags));
        }
        cfg.source = Some(src.clone());
        Ok(cfg)
    }

    /// The limits for `mod_id` (all `None` when the operator set none).
    pub fn limits_for(&self, mod_id: &str) -> Limits {
        self.limits.get(mod_id).cloned().unwrap_or_default()
    }

    /// The capabilities granted to `mod_id`.
    pub fn grants_for(&self, mod_id: &str) -> &[String] {
        self.grants
            .get(mod_id)
            .map_or(&[], |g| g.capabilities.as_slice())
    }

    /// Folders outside its own that `mod_id` may read content from.
    pub fn reads_for(&self, mod_id: &str) -> &[PathBuf] {
        self.grants.get(mod_id).map_or(&[], |g| g.read.as_slice())
    }

    /// Whether `mod_id` may load trusted native extensions.
    pub fn is_trusted_native(&self, mod_id: &str) -> bool {
        self.trusted_native.iter().any(|m| m == mod_id)
    }

    /// Where entry `index` of `enabled` (or `disabled`) is written, for diagnostics.
    pub(crate) fn entry_location(&self, in_enabled: bool, index: usize) -> Option<Location> {
        let spans = if in_enabled {
            &self.enabled_spans
        } else {
            &self.disabled_spans
        };
        let src = self.source.as_ref()?;
        Some(match spans.get(index) {
            Some(span) => Location::span(src, span.clone()),
            None => Location::file(&src.path),
        })
    }
}

/// A list of mod ids (`enabled`, `disabled`, `trusted_native`), keeping the valid ones.
fn mod_ids(r: &mut Reader<'_>, v: &Field<StringList>, key: &str) -> Vec<(String, Range<usize>)> {
    let list = v
        .as_ref()
        .and_then(|v| r.string_list(v, key, &format!("{key} = [\"my_mod\"]")))
        .unwrap_or_default();
    list.into_iter()
        .filter(|(s, span)| check_id(r, s, span.clone(), key))
        .collect()
}

/// The entries of `[limits]` or `[grants]` whose mod id is valid and whose value is a
/// table.
fn per_mod<'v, T>(
    r: &mut Reader<'_>,
    doc: &super::toml_read::Document<'_, ServerToml>,
    v: &'v Field<IndexMap<String, Spanned<Typed<T>>>>,
    section: &str,
) -> Vec<(String, &'v T)> {
    let Some((entries, _)) = v
        .as_ref()
        .and_then(|v| r.typed(v, section, "a table", &format!("[{section}.my_mod]")))
    else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (id, v) in entries {
        let key = doc
            .key_span(&[Seg::Key(section.into()), Seg::Key(id.clone())])
            .unwrap_or(0..0);
        if !check_id(r, id, key, section) {
            continue;
        }
        let example = format!("[{section}.{id}]");
        if let Some((t, _)) = r.typed(v, &format!("{section}.{id}"), "a table", &example) {
            out.push((id.clone(), t));
        }
    }
    out
}

/// One `[limits.<mod>]`.
fn read_limits(r: &mut Reader<'_>, id: &str, t: &LimitsToml) -> Limits {
    let mut num = |v: &Field<u64>, k: &str| {
        v.as_ref()
            .and_then(|v| r.unsigned(v, &format!("limits.{id}.{k}"), &format!("{k} = 1000")))
    };
    Limits {
        fuel: num(&t.fuel, "fuel"),
        memory_mb: num(&t.memory_mb, "memory_mb"),
        table_elements: num(&t.table_elements, "table_elements"),
        stack_kb: num(&t.stack_kb, "stack_kb"),
        deadline_ms: num(&t.deadline_ms, "deadline_ms"),
    }
}

/// One `[grants.<mod>]`; `read` folders are joined to `base`.
fn read_grants(r: &mut Reader<'_>, id: &str, t: &GrantsToml, base: &Path) -> Grants {
    let capabilities = t
        .capabilities
        .as_ref()
        .and_then(|v| {
            r.string_list(
                v,
                &format!("grants.{id}.capabilities"),
                "capabilities = [\"log\"]",
            )
        })
        .map(|l| l.into_iter().map(|(s, _)| s).collect())
        .unwrap_or_default();
    let read = t
        .read
        .as_ref()
        .and_then(|v| {
            r.string_list(
                v,
                &format!("grants.{id}.read"),
                "read = [\"../shared/corpora/hearthbreaker\"]",
            )
        })
        .map(|l| l.into_iter().map(|(s, _)| base.join(s)).collect())
        .unwrap_or_default();
    Grants { capabilities, read }
}

fn check_id(r: &mut Reader<'_>, id: &str, span: Range<usize>, key: &str) -> bool {
    match validate_namespace(id) {
        Ok(()) => true,
        Err(e) => {
            r.push(
                Diagnostic::error(
                    "E-SERVER-MOD-ID",
                    format!("invalid mod id `{id}` in `{key}`"),
                )
                .at(r.loc(span))
                .with_note(e.to_string())
                .with_help("write the mod's id exactly as in its mod.toml `[mod] id`"),
            );
            false
        }
    }
}

impl Limits {
    /// The plugin defaults with these limits (an operator's `[limits.<mod>]`) applied.
    pub fn plugin_limits(&self) -> PluginLimits {
        let l = self;
        let d = PluginLimits::default();
        let to_usize = |v: u64| usize::try_from(v).unwrap_or(usize::MAX);
        PluginLimits {
            fuel: l.fuel.unwrap_or(d.fuel),
            memory_bytes: l
                .memory_mb
                .map_or(d.memory_bytes, |m| to_usize(m.saturating_mul(1 << 20))),
            table_elements: l.table_elements.map_or(d.table_elements, to_usize),
            stack_bytes: l
                .stack_kb
                .map_or(d.stack_bytes, |k| to_usize(k.saturating_mul(1024))),
            deadline: l
                .deadline_ms
                .map_or(d.deadline, std::time::Duration::from_millis),
            ..d
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_everything() {
        let text = "mod_dirs = [\"m\"]\nenabled = [\"a\"]\ndisabled = [\"b\"]\ntrusted_native = [\"c\"]\n[limits.a]\nfuel = 1_000\nmemory_mb = 64\ndeadline_ms = 5_000\n[grants.a]\ncapabilities = [\"log\"]\n";
        let c = ServerConfig::parse(Path::new("server.toml"), text, Path::new("/srv")).unwrap();
        assert_eq!(c.mod_dirs, vec![PathBuf::from("/srv/m")]);
        assert_eq!(c.enabled, vec!["a"]);
        assert_eq!(c.limits_for("a").fuel, Some(1000));
        assert_eq!(c.limits_for("a").stack_kb, None);
        let limits = c.limits_for("a").plugin_limits();
        assert_eq!(limits.deadline, std::time::Duration::from_millis(5_000));
        assert_eq!(
            c.limits_for("b").plugin_limits().deadline,
            crate::plugins::DEFAULT_DEADLINE
        );
        assert_eq!(c.grants_for("a"), ["log".to_string()]);
        assert!(c.is_trusted_native("c"));
        assert!(c.entry_location(false, 0).unwrap().line_col().is_some());
    }

    #[test]
    fn unknown_keys_everywhere() {
        let text = "mod_dir = [\"m\"]\n[limits.a]\nfule = 1\n[grants.a]\ncapability = []\n";
        let e = ServerConfig::parse(Path::new("server.toml"), text, Path::new(".")).unwrap_err();
        let helps: Vec<_> = e.0.iter().flat_map(|d| d.help.clone()).collect();
        assert!(
            helps.contains(&"did you mean `mod_dirs`?".to_string()),
            "{helps:?}"
        );
        assert!(
            helps.contains(&"did you mean `fuel`?".to_string()),
            "{helps:?}"
        );
        assert!(
            helps.contains(&"did you mean `capabilities`?".to_string()),
            "{helps:?}"
        );
    }
}
