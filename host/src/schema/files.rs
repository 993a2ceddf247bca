//! The shapes of `mod.toml` and `server.toml` for their JSON Schemas. The parsers
//! (`mods::manifest_parse`, `mods::server`) read spans and explain mistakes, so they do
//! not use these types; a test checks that both name the same keys.

use std::collections::BTreeMap;

use schemars::JsonSchema;

/// A mod's manifest (`mod.toml`).
#[derive(JsonSchema)]
#[schemars(deny_unknown_fields)]
#[expect(dead_code, reason = "only its JSON Schema is used")]
pub(super) struct Manifest {
    /// The mod itself.
    #[schemars(rename = "mod")]
    pub module: ModTable,
    /// Mods this one needs: `id = "^1.0"` or `{ version = "^1.0", optional = true }`.
    pub dependencies: Option<BTreeMap<String, Dependency>>,
    /// Mods this one works badly with (a warning): `{ version, reason }`.
    pub conflicts: Option<BTreeMap<String, Conflict>>,
    /// Mods this one refuses to load with (an error); `reason` is required.
    pub breaks: Option<BTreeMap<String, Conflict>>,
    /// Load order without a dependency.
    pub load: Option<Load>,
    /// Where the content files are.
    pub content: Option<Content>,
    /// The wasm plugins (or trusted native extensions) of the mod.
    pub plugin: Option<Vec<Plugin>>,
    /// Where the translations are.
    pub locale: Option<Locale>,
}

/// `[mod]`.
#[derive(JsonSchema)]
#[schemars(deny_unknown_fields)]
#[expect(dead_code, reason = "only its JSON Schema is used")]
pub(super) struct ModTable {
    /// The namespace of everything the mod defines: lowercase `[a-z0-9_.-]`.
    #[schemars(regex(pattern = r"^[a-z0-9_.-]+$"))]
    pub id: String,
    /// Strict semver: `MAJOR.MINOR.PATCH`.
    #[schemars(regex(pattern = r"^\d+\.\d+\.\d+"))]
    pub version: String,
    /// The platform API the mod targets (`0.1`).
    pub api: String,
    /// Display name: a translation key.
    pub name: Option<String>,
    /// Description: a translation key or text.
    pub description: Option<String>,
    /// Who wrote it.
    pub authors: Option<Vec<String>>,
    /// SPDX license expression.
    pub license: Option<String>,
}

/// A dependency: a semver requirement, or a table.
#[derive(JsonSchema)]
#[serde(untagged)]
#[expect(dead_code, reason = "only its JSON Schema is used")]
pub(super) enum Dependency {
    /// `"^1.0"`.
    Requirement(String),
    /// `{ version = "^1.0", optional = true }`.
    Table {
        /// The semver requirement.
        version: String,
        /// Load without it when it is missing (default `false`).
        optional: Option<bool>,
    },
}

/// `[conflicts]` / `[breaks]` entries.
#[derive(JsonSchema)]
#[schemars(deny_unknown_fields)]
#[expect(dead_code, reason = "only its JSON Schema is used")]
pub(super) struct Conflict {
    /// Which versions (`*` for all).
    pub version: String,
    /// Why (required in `[breaks]`).
    pub reason: Option<String>,
}

/// `[load]`.
#[derive(JsonSchema)]
#[schemars(deny_unknown_fields)]
#[expect(dead_code, reason = "only its JSON Schema is used")]
pub(super) struct Load {
    /// Load after these mods when they are present.
    pub after: Option<Vec<String>>,
    /// Load before these mods when they are present.
    pub before: Option<Vec<String>>,
}

/// `[content]`.
#[derive(JsonSchema)]
#[schemars(deny_unknown_fields)]
#[expect(dead_code, reason = "only its JSON Schema is used")]
pub(super) struct Content {
    /// Content folders or files (default `["content"]`).
    pub paths: Option<Vec<String>>,
    /// Content loaders for other file formats, by id.
    pub loaders: Option<Vec<String>>,
}

/// `[[plugin]]`.
#[derive(JsonSchema)]
#[schemars(deny_unknown_fields)]
#[expect(dead_code, reason = "only its JSON Schema is used")]
pub(super) struct Plugin {
    /// The module, relative to the mod (`plugins/x.wasm`).
    pub file: String,
    /// What it provides: `category/name` (checked against the plugin's `describe`).
    pub provides: Vec<String>,
    /// Capabilities it asks for (`log`, `random`); the operator must grant them.
    pub capabilities: Option<Vec<String>>,
}

/// `[locale]`.
#[derive(JsonSchema)]
#[schemars(deny_unknown_fields)]
#[expect(dead_code, reason = "only its JSON Schema is used")]
pub(super) struct Locale {
    /// The folder of `<language>.toml` files (default `locale`).
    pub dir: Option<String>,
    /// The language every key must exist in (default `en`).
    pub default: Option<String>,
}

/// The operator's `server.toml`.
#[derive(JsonSchema)]
#[schemars(deny_unknown_fields)]
#[expect(dead_code, reason = "only its JSON Schema is used")]
pub(super) struct Server {
    /// Folders of mod folders, relative to server.toml (default `["mods"]`).
    pub mod_dirs: Option<Vec<String>>,
    /// Mods to enable (empty: every discovered mod).
    pub enabled: Option<Vec<String>>,
    /// Mods to disable; wins over `enabled`, and disables their dependents.
    pub disabled: Option<Vec<String>>,
    /// Mods allowed to load native extensions.
    pub trusted_native: Option<Vec<String>>,
    /// Per-mod plugin sandbox limits.
    pub limits: Option<BTreeMap<String, Limits>>,
    /// Capabilities granted per mod.
    pub grants: Option<BTreeMap<String, Grants>>,
}

/// `[limits.<mod>]`.
#[derive(JsonSchema)]
#[schemars(deny_unknown_fields)]
#[expect(dead_code, reason = "only its JSON Schema is used")]
pub(super) struct Limits {
    /// Fuel per plugin call.
    pub fuel: Option<u64>,
    /// Linear memory per instance, in MiB.
    pub memory_mb: Option<u64>,
    /// Table elements per instance.
    pub table_elements: Option<u64>,
    /// Wasm stack, in KiB.
    pub stack_kb: Option<u64>,
    /// Wall-clock time per plugin call, in milliseconds (default 1000).
    pub deadline_ms: Option<u64>,
}

/// `[grants.<mod>]`.
#[derive(JsonSchema)]
#[schemars(deny_unknown_fields)]
#[expect(dead_code, reason = "only its JSON Schema is used")]
pub(super) struct Grants {
    /// The capabilities allowed (`log`, `random`).
    pub capabilities: Vec<String>,
    /// Folders outside the mod's own that its content may be read from (relative to
    /// server.toml).
    pub read: Vec<String>,
}
