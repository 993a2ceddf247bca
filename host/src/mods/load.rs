//! Loading the content of resolved mods into a registry generation.
//!
//! Owns the step from a [`Resolution`] to a [`Generation`]: reading each enabled mod's
//! content files (in load order, files sorted by path), compiling them together (patches
//! judged by the mods' order), and — when a mod's content has errors — disabling that
//! mod and everything that requires it, then building again from the rest, so one broken
//! mod never takes the others down. Also owns translation files and their checks.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::{
    discover, resolve, Discovery, Resolution, ResolvedMod, ServerConfig, HOST_API_VERSION,
};
use crate::diag::{Diagnostic, Diagnostics, Location, SourceText};
use crate::plugins::{load_plugin, register_plugin, LoadedPlugin, PluginLimits, PluginRequest};
use crate::rules::compile::{BuildOptions, ContentSource};
use crate::rules::registry::Registry;
use crate::rules::Generation;

use super::content_files::{confine, read_content, Readable};

/// Translation keys per language: `lang → key → (mod, file)`.
#[derive(Debug, Clone, Default)]
pub struct Locale {
    /// Keys by language.
    pub languages: BTreeMap<String, HashMap<String, (String, PathBuf)>>,
    /// Text by language and key.
    pub text: BTreeMap<String, HashMap<String, String>>,
}

impl Locale {
    /// The text of a key in a language, if translated.
    pub fn get(&self, lang: &str, key: &str) -> Option<&str> {
        self.text.get(lang)?.get(key).map(String::as_str)
    }
}

/// Everything `tessera check` reports and `tessera run` starts from.
#[derive(Debug)]
pub struct LoadedMods {
    /// Folders outside their own that mods may read (`[grants.<mod>] read`), by mod.
    pub read_grants: BTreeMap<String, Vec<PathBuf>>,
    /// What was found on disk.
    pub discovery: Discovery,
    /// The resolved set and order.
    pub resolution: Resolution,
    /// The compiled generation of every mod that loaded (`None` only if nothing could).
    pub generation: Option<Arc<Generation>>,
    /// Mods disabled because their content (or a required mod's) failed, with why.
    pub content_disabled: Vec<(String, String)>,
    /// Content, patch and locale diagnostics.
    pub diagnostics: Diagnostics,
    /// Translations of the loaded mods.
    pub locale: Locale,
    /// Mods whose content made it into the generation, in load order.
    pub loaded: Vec<String>,
}

impl LoadedMods {
    /// Every diagnostic: manifests, resolution, content.
    pub fn all_diagnostics(&self) -> impl Iterator<Item = &Diagnostic> + '_ {
        self.discovery
            .diagnostics
            .0
            .iter()
            .chain(self.resolution.diagnostics.0.iter())
            .chain(self.diagnostics.0.iter())
    }

    /// Whether any diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.all_diagnostics().any(Diagnostic::is_error)
    }

    /// The resolved mod record of a loaded mod.
    pub fn resolved(&self, id: &str) -> Option<&ResolvedMod> {
        self.resolution.get(id)
    }

    /// The content files of every loaded mod, in load order (for scenario runs that
    /// test content against the mods it builds on).
    pub fn sources(&self, registry: &Registry) -> Vec<ContentSource> {
        self.resolution
            .order
            .iter()
            .filter(|m| self.loaded.contains(&m.id))
            .filter_map(|m| {
                let reads = self.read_grants.get(&m.id).map_or(&[][..], Vec::as_slice);
                read_content(m, registry, &[], reads).ok()
            })
            .flatten()
            .collect()
    }
}

/// Discovers, resolves and loads mods from folders (with an optional `server.toml`).
pub fn load(
    dirs: &[PathBuf],
    server: Option<&ServerConfig>,
    registry: Arc<Registry>,
) -> LoadedMods {
    load_generation(dirs, server, registry, 1)
}

/// Like [`load`], numbering the generation (hot reload counts generations up).
pub fn load_generation(
    dirs: &[PathBuf],
    server: Option<&ServerConfig>,
    registry: Arc<Registry>,
    number: u64,
) -> LoadedMods {
    let discovery = discover(dirs);
    let resolution = resolve(&discovery, &HOST_API_VERSION, server);
    load_resolved(discovery, resolution, server, registry, number)
}

/// Loads the plugins and content of an already resolved set.
pub fn load_resolved(
    discovery: Discovery,
    resolution: Resolution,
    server: Option<&ServerConfig>,
    registry: Arc<Registry>,
    number: u64,
) -> LoadedMods {
    let mut diagnostics = Diagnostics::default();
    let (plugins, broken_plugins) = load_plugins(&resolution, server, &mut diagnostics);
    let (per_mod, unreadable) = read_all_content(
        &resolution,
        server,
        &registry,
        &plugin_extensions(&plugins),
        &mut diagnostics,
    );
    let after = order_relation(&resolution);
    let ordered_after = |a: &str, b: &str| after.get(a).is_some_and(|s| s.contains(b));
    // Translations, read up front so abilities can be checked against them while they
    // compile (problems with these files are reported once, below).
    let all_ids: Vec<String> = resolution.order.iter().map(|m| m.id.clone()).collect();
    let early_locale = read_locales(&resolution, &all_ids, &mut Diagnostics::default());
    let translations = |mod_id: &str, key: &str| {
        resolution.get(mod_id).is_some_and(|m| {
            early_locale
                .languages
                .get(&m.manifest.locale.default)
                .is_some_and(|l| l.contains_key(key))
        })
    };
    let mut disabled: BTreeMap<String, String> = BTreeMap::new();
    for (id, why) in unreadable.iter().chain(broken_plugins.iter()) {
        disable_with_dependents(&resolution, id, why, &mut disabled);
    }
    let rounds = Rounds {
        resolution: &resolution,
        registry: &registry,
        plugins: &plugins,
        per_mod: &per_mod,
        opts: BuildOptions {
            number,
            extras: &[],
            ordered_after: Some(&ordered_after),
            translations: Some(&translations),
        },
    };
    let generation = rounds.build(&mut disabled, &mut diagnostics);
    let loaded: Vec<String> = resolution
        .order
        .iter()
        .map(|m| m.id.clone())
        .filter(|id| !disabled.contains_key(id))
        .collect();
    let locale = read_locales(&resolution, &loaded, &mut diagnostics);
    let generation = generation.map(|mut gen| {
        gen.mods = loaded.clone();
        Arc::new(gen)
    });
    if let Some(gen) = &generation {
        check_locale_keys(gen, &resolution, &locale, &mut diagnostics);
    }
    diagnostics.fold_repeats();
    let read_grants = resolution
        .order
        .iter()
        .map(|m| {
            let reads = server.map_or(&[][..], |s| s.reads_for(&m.id));
            (m.id.clone(), reads.to_vec())
        })
        .collect();
    LoadedMods {
        read_grants,
        discovery,
        resolution,
        generation,
        content_disabled: disabled.into_iter().collect(),
        diagnostics,
        locale,
        loaded,
    }
}

/// Mods to disable (with their dependents), each with why.
type Disabling = BTreeMap<String, String>;

/// Every resolved mod's `[[plugin]]`s, loaded in order; a mod whose plugin fails is
/// returned with why (to be disabled with its dependents).
fn load_plugins(
    resolution: &Resolution,
    server: Option<&ServerConfig>,
    diagnostics: &mut Diagnostics,
) -> (Vec<(String, Arc<LoadedPlugin>)>, Disabling) {
    let mut plugins: Vec<(String, Arc<LoadedPlugin>)> = Vec::new();
    let mut broken_plugins: BTreeMap<String, String> = BTreeMap::new();
    for m in &resolution.order {
        for entry in &m.manifest.plugins {
            let req = PluginRequest {
                mod_id: &m.id,
                mod_dir: &m.dir,
                file: &entry.file,
                provides: &entry.provides,
                asked: &entry.capabilities,
                granted: server.map_or(&[][..], |s| s.grants_for(&m.id)),
                trusted_native: server.is_some_and(|s| s.is_trusted_native(&m.id)),
            };
            let limits = server.map_or_else(PluginLimits::default, |s| {
                s.limits_for(&m.id).plugin_limits()
            });
            let own = Readable::of(m, &[]);
            let loaded = match confine(m, &m.dir.join(&entry.file), &own, "`[[plugin]] file`") {
                Ok(_) => load_plugin(req, limits),
                Err(d) => Err(*d),
            };
            match loaded {
                Ok(p) => plugins.push((m.id.clone(), p)),
                Err(d) => {
                    broken_plugins.insert(
                        m.id.clone(),
                        format!("its plugin {} could not be loaded (see above)", entry.file),
                    );
                    diagnostics.push(d);
                }
            }
        }
    }
    (plugins, broken_plugins)
}

/// The file extensions the loaded plugins' loaders read: files a plugin's loader reads are
/// content too (the loader parses them once the plugin is registered).
fn plugin_extensions(plugins: &[(String, Arc<LoadedPlugin>)]) -> Vec<String> {
    plugins
        .iter()
        .flat_map(|(_, p)| p.description.provides.iter())
        .filter(|d| d.kind == tessera_plugin_api::abi::Kind::Loader)
        .flat_map(|d| d.extensions.iter().cloned())
        .collect()
}

/// Every resolved mod's content files; a mod whose files cannot be read is returned with
/// why (to be disabled with its dependents).
fn read_all_content(
    resolution: &Resolution,
    server: Option<&ServerConfig>,
    registry: &Registry,
    plugin_extensions: &[String],
    diagnostics: &mut Diagnostics,
) -> (Vec<(String, Vec<ContentSource>)>, Disabling) {
    let mut per_mod: Vec<(String, Vec<ContentSource>)> = Vec::new();
    let mut unreadable: BTreeMap<String, String> = BTreeMap::new();
    for m in &resolution.order {
        let reads = server.map_or(&[][..], |s| s.reads_for(&m.id));
        match read_content(m, registry, plugin_extensions, reads) {
            Ok(sources) => per_mod.push((m.id.clone(), sources)),
            Err(d) => {
                unreadable.insert(m.id.clone(), d.message.clone());
                diagnostics.push(*d);
            }
        }
    }
    (per_mod, unreadable)
}

/// Building the generation in rounds: each round leaves out the mods disabled so far, and
/// a round that fails disables the mods its errors name (with their dependents).
struct Rounds<'a> {
    resolution: &'a Resolution,
    registry: &'a Arc<Registry>,
    plugins: &'a [(String, Arc<LoadedPlugin>)],
    per_mod: &'a [(String, Vec<ContentSource>)],
    opts: BuildOptions<'a>,
}

impl Rounds<'_> {
    /// Builds until a round succeeds or fails with nobody left to blame.
    fn build(
        &self,
        disabled: &mut BTreeMap<String, String>,
        diagnostics: &mut Diagnostics,
    ) -> Option<Generation> {
        // Each round disables at least one more mod, so this ends.
        for _ in 0..=self.resolution.order.len() {
            let sources: Vec<ContentSource> = self
                .per_mod
                .iter()
                .filter(|(id, _)| !disabled.contains_key(id))
                .flat_map(|(_, s)| s.iter().cloned())
                .collect();
            let round_registry = self.registry_for(disabled, diagnostics);
            match Generation::build_with(Arc::new(round_registry), &sources, &self.opts) {
                Ok((gen, _)) => {
                    diagnostics.0.extend(gen.warnings.0.iter().cloned());
                    return Some(gen);
                }
                Err(errs) => {
                    let culprits: BTreeSet<String> = errs
                        .0
                        .iter()
                        .filter(|d| d.is_error())
                        .filter_map(|d| d.mod_id.clone())
                        .filter(|m| !disabled.contains_key(m))
                        .collect();
                    diagnostics.0.extend(errs.0);
                    if culprits.is_empty() {
                        return None;
                    }
                    for c in culprits {
                        disable_with_dependents(
                            self.resolution,
                            &c,
                            "its content has errors (see above)",
                            disabled,
                        );
                    }
                }
            }
        }
        None
    }

    /// The registry with the still-enabled mods' plugins registered; a plugin that
    /// registers an id twice disables its mod.
    fn registry_for(
        &self,
        disabled: &mut BTreeMap<String, String>,
        diagnostics: &mut Diagnostics,
    ) -> Registry {
        let mut round_registry = (**self.registry).clone();
        let enabled: Vec<&(String, Arc<LoadedPlugin>)> = self
            .plugins
            .iter()
            .filter(|(m, _)| !disabled.contains_key(m))
            .collect();
        for (mod_id, p) in enabled {
            if let Err(m) = register_plugin(p, &mut round_registry) {
                diagnostics.push(
                    Diagnostic::error("E-PLUGIN-REGISTER", m.to_string())
                        .in_file(&p.file)
                        .for_mod(mod_id),
                );
                disable_with_dependents(
                    self.resolution,
                    mod_id,
                    "its plugin provides an id that is already registered",
                    disabled,
                );
            }
        }
        round_registry
    }
}

/// For each mod, every mod it loads after (dependencies and `[load]` hints, transitively).
fn order_relation(res: &Resolution) -> HashMap<String, BTreeSet<String>> {
    let present: BTreeSet<&str> = res.order.iter().map(|m| m.id.as_str()).collect();
    let mut direct: HashMap<&str, Vec<&str>> = HashMap::new();
    for m in &res.order {
        let e = direct.entry(m.id.as_str()).or_default();
        for d in &m.manifest.dependencies {
            if present.contains(d.id.as_str()) {
                e.push(d.id.as_str());
            }
        }
        for a in &m.manifest.load.after {
            if present.contains(a.as_str()) {
                e.push(a.as_str());
            }
        }
        for b in &m.manifest.load.before {
            if present.contains(b.as_str()) {
                direct.entry(b.as_str()).or_default().push(m.id.as_str());
            }
        }
    }
    let mut out = HashMap::new();
    for m in &res.order {
        let mut seen = BTreeSet::new();
        let mut stack = vec![m.id.as_str()];
        while let Some(x) = stack.pop() {
            for &y in direct.get(x).map_or(&[][..], Vec::as_slice) {
                if seen.insert(y.to_owned()) {
                    stack.push(y);
                }
            }
        }
        out.insert(m.id.clone(), seen);
    }
    out
}

fn disable_with_dependents(
    res: &Resolution,
    id: &str,
    why: &str,
    disabled: &mut BTreeMap<String, String>,
) {
    if disabled.contains_key(id) {
        return;
    }
    disabled.insert(id.to_owned(), why.to_owned());
    for m in &res.order {
        if m.manifest
            .dependencies
            .iter()
            .any(|d| !d.optional && d.id == id)
        {
            let reason = format!("it depends on `{id}`, which is disabled: {why}");
            disable_with_dependents(res, &m.id, &reason, disabled);
        }
    }
}

/// Reads `<locale dir>/<lang>.toml` of every loaded mod; nested tables flatten to dotted
/// keys.
fn read_locales(res: &Resolution, loaded: &[String], diags: &mut Diagnostics) -> Locale {
    let mut locale = Locale::default();
    let loaded: std::collections::HashSet<&str> = loaded.iter().map(String::as_str).collect();
    for m in res.order.iter().filter(|m| loaded.contains(m.id.as_str())) {
        let dir = m.dir.join(&m.manifest.locale.dir);
        let Ok(rd) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut files: Vec<PathBuf> = rd
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "toml"))
            .collect();
        files.sort();
        for f in files {
            let lang = f
                .file_stem()
                .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
            let text = match std::fs::read_to_string(&f) {
                Ok(t) => t,
                Err(e) => {
                    diags.push(
                        Diagnostic::warning(
                            "W-LOCALE-READ",
                            format!("failed to read translation file: {e}"),
                        )
                        .in_file(&f)
                        .for_mod(&m.id),
                    );
                    continue;
                }
            };
            let table: toml::Table = match toml::from_str(&text) {
                Ok(t) => t,
                Err(e) => {
                    let src = SourceText::new(&f, text.clone());
                    let loc = match e.span() {
                        Some(s) => Location::span(&src, s),
                        None => Location::file(&f),
                    };
                    diags.push(
                        Diagnostic::error(
                            "E-LOCALE-PARSE",
                            format!("could not parse translations: {}", e.message()),
                        )
                        .at(loc)
                        .for_mod(&m.id),
                    );
                    continue;
                }
            };
            let mut flat = Vec::new();
            flatten("", &table, &mut flat);
            for (k, v) in flat {
                locale
                    .languages
                    .entry(lang.clone())
                    .or_default()
                    .insert(k.clone(), (m.id.clone(), f.clone()));
                locale.text.entry(lang.clone()).or_default().insert(k, v);
            }
        }
    }
    locale
}

fn flatten(prefix: &str, t: &toml::Table, out: &mut Vec<(String, String)>) {
    for (k, v) in t {
        let key = if prefix.is_empty() {
            k.clone()
        } else {
            format!("{prefix}.{k}")
        };
        match v {
            toml::Value::Table(inner) => flatten(&key, inner, out),
            toml::Value::String(s) => out.push((key, s.clone())),
            other => out.push((key, other.to_string())),
        }
    }
}

/// Display names and descriptions are translation keys: each must exist in the mod's
/// default language. A missing key is a warning naming the key and the file using it.
fn check_locale_keys(gen: &Generation, res: &Resolution, locale: &Locale, diags: &mut Diagnostics) {
    let mut classes: Vec<_> = gen.classes.values().collect();
    classes.sort_by_key(|c| c.id);
    let mut texts = SourceCache::default();
    for class in classes {
        let Some(m) = res.get(&class.origin.mod_id) else {
            continue;
        };
        let lang = &m.manifest.locale.default;
        for key in class.name.iter().chain(class.description.iter()) {
            let known = locale
                .languages
                .get(lang)
                .is_some_and(|l| l.contains_key(key));
            if !known {
                let loc = texts.line_location(&class.origin.file, class.origin.line);
                diags.push(
                    Diagnostic::warning("W-LOCALE-MISSING", format!("translation key `{key}` used by `{}` is missing from language `{lang}`", class.id))
                        .at(loc)
                        .for_mod(&m.id)
                        .with_help(format!("add `\"{key}\" = \"...\"` to {}/{}.toml", m.manifest.locale.dir, lang)),
                );
            }
        }
    }
}

/// Content files read for quoting, each read once however many diagnostics point into it
/// (`None`: unreadable, so its diagnostics name only the file).
#[derive(Default)]
struct SourceCache(HashMap<PathBuf, Option<SourceText>>);

impl SourceCache {
    /// A location at the start of a line of a file.
    fn line_location(&mut self, file: &Path, line: usize) -> Location {
        let source = self.0.entry(file.to_path_buf()).or_insert_with(|| {
            std::fs::read_to_string(file)
                .ok()
                .map(|t| SourceText::new(file, t))
        });
        match source {
            Some(source) => Location::line(source, line),
            None => Location::file(file),
        }
    }
}
