//! Mods: manifests, discovery, dependency resolution, load order, the lock file and the
//! operator's `server.toml`.
//!
//! Owns everything between "a folder of mod folders" and "an ordered list of mods to load":
//!
//! - [`Manifest`] — a parsed `mod.toml`.
//! - [`discover`] — finds mod folders and parses their manifests; a bad manifest disables
//!   only its own mod.
//! - [`resolve`] — checks the whole set at once (missing dependencies, version conflicts,
//!   `breaks`, duplicate ids, cycles, API mismatches), disables broken mods and their
//!   dependents, and computes the deterministic load order.
//! - [`Lockfile`] — `mods.lock`: the resolved order with versions and content hashes, and
//!   drift detection.
//! - [`ServerConfig`] — `server.toml`: mod folders, enabled/disabled lists, per-mod limits
//!   and capability grants, trusted native extensions.
//!
//! It must not touch the registry or the world: content loading and patches consume the
//! [`Resolution`] this module produces. Every problem is a [`Diagnostic`](crate::Diagnostic)
//! with a stable code; nothing here panics on user input or prints.
//!
//! ```
//! use tessera_host::mods::{discover, resolve, HOST_API_VERSION};
//! let dir = std::env::temp_dir().join(format!("tessera-doc-mods-{}", std::process::id()));
//! std::fs::create_dir_all(dir.join("core")).unwrap();
//! std::fs::write(
//!     dir.join("core/mod.toml"),
//!     "[mod]\nid = \"core\"\nversion = \"0.1.0\"\napi = \"0.1\"\n",
//! )
//! .unwrap();
//! let found = discover(&[dir.clone()]);
//! let resolution = resolve(&found, &HOST_API_VERSION, None);
//! assert_eq!(resolution.order[0].id, "core");
//! # std::fs::remove_dir_all(&dir).ok();
//! ```

use semver::Version;

mod checks;
mod content_files;
mod discovery;
mod files;
mod load;
mod lock;
mod manifest;
mod manifest_parse;
mod order;
mod pack;
mod resolve;
mod server;
mod toml_read;

pub use discovery::{discover, BrokenMod, Discovery, FoundMod};
pub use load::{load, load_generation, load_resolved, LoadedMods, Locale};
pub use lock::{hash_mod_dir, mod_files, LockedMod, Lockfile, ModHasher};
pub use manifest::{
    Break, Conflict, Dependency, LoadHints, LocaleConfig, Manifest, ManifestError, PluginEntry,
};
pub use pack::{install, pack, InstallOptions, MissingDependency, PackError, Packed};
pub use resolve::{resolve, DisableCause, DisabledMod, EnabledBecause, Resolution, ResolvedMod};
pub use server::{Grants, Limits, ServerConfig};

/// The platform API version this host implements; a mod's `[mod] api` requirement must
/// match it.
pub const HOST_API_VERSION: Version = Version::new(0, 1, 0);

/// The keys the manifest and server.toml parsers accept, for the JSON Schema's test that
/// the schemas name the same ones (`crate::schema`).
#[cfg(test)]
pub(crate) mod schema_keys {
    use super::toml_read::fields_of;

    /// The top-level keys of `mod.toml`.
    pub(crate) fn manifest_top() -> &'static [&'static str] {
        fields_of::<super::manifest_parse::ManifestToml>()
    }
    /// The keys of `[mod]`.
    pub(crate) fn manifest_mod() -> &'static [&'static str] {
        fields_of::<super::manifest_parse::ModToml>()
    }
    /// The keys of `[[plugin]]`.
    pub(crate) fn manifest_plugin() -> &'static [&'static str] {
        fields_of::<super::manifest_parse::PluginToml>()
    }
    /// The top-level keys of `server.toml`.
    pub(crate) fn server_top() -> &'static [&'static str] {
        fields_of::<super::server::ServerToml>()
    }
    /// The keys of `[limits.<mod>]`.
    pub(crate) fn server_limits() -> &'static [&'static str] {
        fields_of::<super::server::LimitsToml>()
    }
}
