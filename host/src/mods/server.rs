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
//!
//! [grants.arena]
//! capabilities = ["log", "random"]
//! ```

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

use super::toml_read::{get, Codes, Reader};
use crate::diag::{Diagnostic, Diagnostics, Location, SourceText};
use crate::id::validate_namespace;
use crate::plugins::PluginLimits;

static CODES: Codes = Codes {
    parse: "E-SERVER-PARSE",
    unknown_key: "E-SERVER-UNKNOWN-KEY",
    wrong_type: "E-SERVER-TYPE",
    missing_key: "E-SERVER-MISSING-KEY",
};

pub(crate) const TOP_KEYS: &[&str] = &[
    "mod_dirs",
    "enabled",
    "disabled",
    "trusted_native",
    "limits",
    "grants",
];
pub(crate) const LIMIT_KEYS: &[&str] = &["fuel", "memory_mb", "table_elements", "stack_kb"];
pub(crate) const GRANT_KEYS: &[&str] = &["capabilities", "read"];

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
        let Some(doc) = r.parse(text, "server.toml") else {
            return Err(Diagnostics(r.diags));
        };
        let doc = doc.get_ref();
        r.check_keys(doc, TOP_KEYS, "server.toml");
        let mut cfg = ServerConfig::default();
        let ids = |r: &mut Reader<'_>, key: &str| -> Vec<(String, Range<usize>)> {
            let list = get(doc, key)
                .and_then(|v| r.string_list(v, key, &format!("{key} = [\"my_mod\"]")))
                .unwrap_or_default();
            list.into_iter()
                .filter(|(s, span)| check_id(r, s, span.clone(), key))
                .collect()
        };
        let (enabled, disabled, trusted) = (
            ids(&mut r, "enabled"),
            ids(&mut r, "disabled"),
            ids(&mut r, "trusted_native"),
        );
        (cfg.enabled, cfg.enabled_spans) = enabled.into_iter().unzip();
        (cfg.disabled, cfg.disabled_spans) = disabled.into_iter().unzip();
        cfg.trusted_native = trusted.into_iter().map(|(s, _)| s).collect();
        if let Some(list) =
            get(doc, "mod_dirs").and_then(|v| r.string_list(v, "mod_dirs", "mod_dirs = [\"mods\"]"))
        {
            cfg.mod_dirs = list.into_iter().map(|(s, _)| base.join(s)).collect();
        } else {
            cfg.mod_dirs = vec![base.join("mods")];
        }
        for (section, what) in [("limits", "[limits.my_mod]"), ("grants", "[grants.my_mod]")] {
            let Some(t) = get(doc, section).and_then(|v| r.table(v, section, what)) else {
                continue;
            };
            for (key, v) in t.iter() {
                let id: &str = key.get_ref();
                if !check_id(&mut r, id, key.span(), section) {
                    continue;
                }
                let Some(mt) = r.table(v, &format!("{section}.{id}"), &format!("[{section}.{id}]"))
                else {
                    continue;
                };
                if section == "limits" {
                    r.check_keys(mt, LIMIT_KEYS, &format!("`[limits.{id}]`"));
                    let mut num = |k: &str| {
                        get(mt, k).and_then(|v| {
                            r.unsigned(v, &format!("limits.{id}.{k}"), &format!("{k} = 1000"))
                        })
                    };
                    let limits = Limits {
                        fuel: num("fuel"),
                        memory_mb: num("memory_mb"),
                        table_elements: num("table_elements"),
                        stack_kb: num("stack_kb"),
                    };
                    cfg.limits.insert(id.to_string(), limits);
                } else {
                    r.check_keys(mt, GRANT_KEYS, &format!("`[grants.{id}]`"));
                    let capabilities = get(mt, "capabilities")
                        .and_then(|v| {
                            r.string_list(
                                v,
                                &format!("grants.{id}.capabilities"),
                                "capabilities = [\"log\"]",
                            )
                        })
                        .map(|l| l.into_iter().map(|(s, _)| s).collect())
                        .unwrap_or_default();
                    let read = get(mt, "read")
                        .and_then(|v| {
                            r.string_list(
                                v,
                                &format!("grants.{id}.read"),
                                "read = [\"../shared/corpora/hearthbreaker\"]",
                            )
                        })
                        .map(|l| l.into_iter().map(|(s, _)| base.join(s)).collect())
                        .unwrap_or_default();
                    cfg.grants
                        .insert(id.to_string(), Grants { capabilities, read });
                }
            }
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
            ..d
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_everything() {
        let text = "mod_dirs = [\"m\"]\nenabled = [\"a\"]\ndisabled = [\"b\"]\ntrusted_native = [\"c\"]\n[limits.a]\nfuel = 1_000\nmemory_mb = 64\n[grants.a]\ncapabilities = [\"log\"]\n";
        let c = ServerConfig::parse(Path::new("server.toml"), text, Path::new("/srv")).unwrap();
        assert_eq!(c.mod_dirs, vec![PathBuf::from("/srv/m")]);
        assert_eq!(c.enabled, vec!["a"]);
        assert_eq!(c.limits_for("a").fuel, Some(1000));
        assert_eq!(c.limits_for("a").stack_kb, None);
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
