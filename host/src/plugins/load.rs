//! Loading one plugin of a mod: compile, check, describe, register.

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::path::Path;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use tessera_plugin_api::abi::{self, exports, Description, Kind, ParamType as AbiType};
use wasmtime::{Engine, ExternType, Module};

use super::instance::PluginInstance;
use super::kinds::{PluginKind, ENGINE_KEYS};
use super::linker::{linker, CAPABILITY_IMPORTS};
#[cfg(feature = "native-plugins")]
use super::native;
use super::{engine, next_key, LoadedPlugin, LoadedShared, PluginCode};
use crate::diag::Diagnostic;
use crate::id::Id;
use crate::rules::registry::{Entry, ParamSpec, ParamType, Provider, Registry};

/// Sandbox limits of one mod's plugins, per instance (one instance per plugin per
/// world). Defaults are safe; `server.toml` `[limits.<mod>]` raises or lowers `fuel`,
/// `memory_mb`, `table_elements` and `stack_kb`. A call that hits a limit is a fault: it
/// fails, its command rolls back, the instance is replaced, and `max_faults` faults within
/// `fault_window` calls quarantine the mod in that world.
///
/// What these do **not** bound, and what does instead:
/// - host work done on a plugin's behalf: a `query` over many objects, a `run_action`, an
///   `eval` cost the host, not fuel (they are bounded by the world's size and the
///   content's own limits, such as `[world] cascade_limit`);
/// - host memory a plugin makes the host keep: new interned names are capped
///   process-wide (`MAX_GUEST_SYMBOLS` names of at most `MAX_GUEST_NAME` bytes);
///   objects and properties it writes live in the world like any content's;
/// - compiling the module: bounded before compiling by `MAX_MODULE_BYTES` and
///   `MAX_MODULE_FUNCTIONS` (`E-PLUGIN-TOO-LARGE`), not by fuel or the deadline;
/// - `tessera_prepare` at load runs under the same fuel and memory limits, but the
///   host objects it asks for are compiled as content (depth-limited like content);
/// - trusted native extensions (`trusted_native`): none of these limits apply to them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PluginLimits {
    /// Fuel per call: roughly one unit per wasm instruction, deterministic, so every
    /// machine stops a runaway call at the same point. Bounds CPU per call, not per
    /// command (a command may make many calls). By default 10,000,000 (a few ms).
    /// `server.toml`: `fuel`.
    pub fuel: u64,
    /// Linear memory per instance, bytes: a `memory.grow` past it is refused (the guest
    /// sees -1) and a call that then traps says so. By default 64 MiB. `server.toml`:
    /// `memory_mb`.
    pub memory_bytes: usize,
    /// Table elements per instance (function references). By default 10,000.
    /// `server.toml`: `table_elements`.
    pub table_elements: usize,
    /// Wasm stack per call, bytes: deeper recursion is a stack-overflow fault. By default
    /// 512 KiB. `server.toml`: `stack_kb`. The host's own stack is not the guest's.
    pub stack_bytes: usize,
    /// Wall-clock deadline per call, the backstop behind fuel (a host call that blocks,
    /// a slow machine). Not deterministic, so fuel should stop a loop first. By default
    /// 1 s. Not set from `server.toml`.
    pub deadline: Duration,
    /// Faults within `fault_window` calls that quarantine the mod in a world (its
    /// definitions switch off there; other worlds are not affected). By default 5. Not set
    /// from `server.toml`.
    pub max_faults: usize,
    /// The quarantine window, in calls of that plugin in that world. By default 100.
    pub fault_window: u64,
}

impl Default for PluginLimits {
    fn default() -> Self {
        PluginLimits {
            fuel: 10_000_000,
            memory_bytes: 64 << 20,
            table_elements: 10_000,
            stack_bytes: 512 << 10,
            deadline: super::DEFAULT_DEADLINE,
            max_faults: 5,
            fault_window: 100,
        }
    }
}

/// Imports every plugin may use (capabilities come on top).
const BASE_IMPORTS: &[&str] = &[
    "intern",
    "ctx",
    "event_amount",
    "exists",
    "get_int",
    "get_float",
    "has_prop",
    "has_tag",
    "zone",
    "class",
    "owner",
    "parent",
    "query",
    "eval",
    "push",
    "pipeline_get",
    "pipeline_set",
    "set_int",
    "set_float",
    "add_int",
    "add_tag",
    "remove_tag",
    "run_action",
    "emit",
    "prepare_selector",
    "prepare_action",
    "load_path",
    "load_read",
    "prepare_expr",
];

/// What a mod's manifest says about one plugin, and what the operator grants.
#[derive(Debug, Clone, Copy)]
pub struct PluginRequest<'a> {
    /// The mod id.
    pub mod_id: &'a str,
    /// The mod's folder.
    pub mod_dir: &'a Path,
    /// `[[plugin]] file`, relative to the mod folder.
    pub file: &'a str,
    /// `[[plugin]] provides` (short ids resolve against the mod).
    pub provides: &'a [String],
    /// `[[plugin]] capabilities` (asked for).
    pub asked: &'a [String],
    /// `server.toml` `[grants.<mod>] capabilities`.
    pub granted: &'a [String],
    /// Whether `server.toml` lists the mod in `trusted_native` (needed to load a native
    /// library: a `file` ending in `.so`, `.dylib` or `.dll`).
    pub trusted_native: bool,
}

/// Loads a plugin: compiles it, checks its ABI, imports and capabilities, and checks its
/// description against `provides`. Every problem is a diagnostic naming the mod and the
/// plugin file, with a fix. [`register_plugin`] then adds what it provides to a registry.
///
/// A `file` ending in `.so`, `.dylib` or `.dll` is a trusted native extension (native
/// ABI v1): loaded only if `req.trusted_native`, else refused with `E-PLUGIN-UNTRUSTED`.
#[expect(
    clippy::result_large_err,
    reason = "a load error is rare; `Diagnostic` is the loader's error everywhere"
)]
pub fn load_plugin(
    req: PluginRequest<'_>,
    limits: PluginLimits,
) -> Result<Arc<LoadedPlugin>, Diagnostic> {
    let path = req.mod_dir.join(req.file);
    let err = |code: &'static str, msg: String| {
        Diagnostic::error(code, msg)
            .in_file(&path)
            .for_mod(req.mod_id)
    };
    let code = if is_native_file(req.file) {
        native_code(&req, &path, err)?
    } else {
        load_wasm(&req, &path, &limits, err)?
    };
    finish_load(req, code, limits, err)
}

/// Whether a `[[plugin]] file` names a native library (by its extension).
fn is_native_file(file: &str) -> bool {
    Path::new(file)
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| matches!(e, "so" | "dylib" | "dll"))
}

/// Opens a trusted native extension.
#[cfg(feature = "native-plugins")]
#[expect(
    clippy::result_large_err,
    reason = "the same `Diagnostic` error as `load_plugin`"
)]
fn native_code(
    req: &PluginRequest<'_>,
    path: &Path,
    err: impl Fn(&'static str, String) -> Diagnostic,
) -> Result<PluginCode, Diagnostic> {
    Ok(PluginCode::Native(native::open(req, path, err)?))
}

/// Native extensions are compiled out (feature `native-plugins` is off): the mod is
/// refused with a diagnostic saying how to get them back.
#[cfg(not(feature = "native-plugins"))]
#[expect(
    clippy::result_large_err,
    reason = "the same `Diagnostic` error as `load_plugin`"
)]
fn native_code(
    req: &PluginRequest<'_>,
    _path: &Path,
    err: impl Fn(&'static str, String) -> Diagnostic,
) -> Result<PluginCode, Diagnostic> {
    Err(err(
        "E-PLUGIN-NATIVE-DISABLED",
        format!(
            "mod `{}` ships a native library ({}), but this host was built without support for native extensions (the `native-plugins` feature of tessera-host is off)",
            req.mod_id, req.file
        ),
    )
    .with_help("rebuild the host with the feature (`cargo build --features native-plugins`, or keep tessera-host's default features), or ask the mod's author for a WebAssembly build (`tessera build`), which needs no trust".to_owned()))
}

/// The largest plugin module compiled, in bytes.
pub const MAX_MODULE_BYTES: usize = 32 << 20;
/// The most functions a plugin module may define (compile time grows with them).
pub const MAX_MODULE_FUNCTIONS: u32 = 50_000;

/// Refuses a module too large to compile in bounded time and memory: more than
/// [`MAX_MODULE_BYTES`] bytes or [`MAX_MODULE_FUNCTIONS`] functions (read from the
/// function section's count; anything malformed is left to the compiler to report).
fn check_size(bytes: &[u8]) -> Result<(), String> {
    if bytes.len() > MAX_MODULE_BYTES {
        return Err(format!(
            "the module is {} bytes; the limit is {MAX_MODULE_BYTES}",
            bytes.len()
        ));
    }
    let mut at = 8; // magic and version
    while at < bytes.len() {
        let id = bytes[at];
        let Some((size, next)) = leb_u32(bytes, at + 1) else {
            return Ok(());
        };
        if id == 3 {
            let count = leb_u32(bytes, next).map_or(0, |(n, _)| n);
            if count > MAX_MODULE_FUNCTIONS {
                return Err(format!(
                    "the module defines {count} functions; the limit is {MAX_MODULE_FUNCTIONS}"
                ));
            }
            return Ok(());
        }
        at = next.saturating_add(size as usize);
    }
    Ok(())
}

/// An unsigned LEB128 number at `at`: its value and where the next byte is.
fn leb_u32(bytes: &[u8], mut at: usize) -> Option<(u32, usize)> {
    let mut value: u64 = 0;
    for shift in (0..35).step_by(7) {
        let b = *bytes.get(at)?;
        at += 1;
        value |= u64::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            return u32::try_from(value).ok().map(|v| (v, at));
        }
    }
    None
}

/// Compiles and links a wasm plugin, checking its ABI marker, exports, imports and
/// capabilities.
#[expect(
    clippy::result_large_err,
    reason = "the same `Diagnostic` error as `load_plugin`"
)]
fn load_wasm(
    req: &PluginRequest<'_>,
    path: &Path,
    limits: &PluginLimits,
    err: impl Fn(&'static str, String) -> Diagnostic,
) -> Result<PluginCode, Diagnostic> {
    let (engine, module, digest) = compile_wasm(req, path, limits, &err)?;
    check_wasm_exports(req, &module, &err)?;
    let effective = granted_imports(req, &module, &err)?;
    let linker = linker(&engine, &effective).map_err(|e| err("E-PLUGIN-LINK", format!("{e:#}")))?;
    let pre = linker.instantiate_pre(&module).map_err(|e| {
        err(
            "E-PLUGIN-LINK",
            format!("plugin {} cannot be linked: {e:#}", req.file),
        )
    })?;
    Ok(PluginCode::Wasm {
        engine,
        pre,
        digest,
    })
}

/// Reads and compiles the module (and its digest), bounded in size first (compiling costs time and memory
/// in proportion to it).
#[expect(
    clippy::result_large_err,
    reason = "a load error is rare; `Diagnostic` is the loader's error everywhere"
)]
fn compile_wasm(
    req: &PluginRequest<'_>,
    path: &Path,
    limits: &PluginLimits,
    err: &impl Fn(&'static str, String) -> Diagnostic,
) -> Result<(Engine, Module, super::load_cache::Digest), Diagnostic> {
    let bytes = std::fs::read(path).map_err(|e| {
        err("E-PLUGIN-MISSING", format!("failed to read plugin {}: {e}", req.file))
            .with_help("build it with `tessera build <plugin crate folder>` (the example plugins live in `plugins/`)")
    })?;
    check_size(&bytes).map_err(|m| {
        err("E-PLUGIN-TOO-LARGE", format!("plugin {}: {m}", req.file)).with_help(
            "a plugin is small code over the host's API; split it, or move data into content files",
        )
    })?;
    let engine = engine::engine(limits.stack_bytes).map_err(|m| err("E-PLUGIN-ENGINE", m))?;
    let module = Module::new(&engine, &bytes).map_err(|e| {
        err(
            "E-PLUGIN-COMPILE",
            format!(
                "plugin {} is not a valid WebAssembly module: {e:#}",
                req.file
            ),
        )
    })?;
    Ok((engine, module, super::load_cache::digest(&bytes)))
}

/// Refuses a module of another ABI version, or without the exports every plugin needs.
#[expect(
    clippy::result_large_err,
    reason = "a load error is rare; `Diagnostic` is the loader's error everywhere"
)]
fn check_wasm_exports(
    req: &PluginRequest<'_>,
    module: &Module,
    err: &impl Fn(&'static str, String) -> Diagnostic,
) -> Result<(), Diagnostic> {
    let names: Vec<String> = module.exports().map(|e| e.name().to_owned()).collect();
    if !names.iter().any(|n| n == abi::MARKER) {
        let other = names.iter().find(|n| n.starts_with("tessera_abi_v"));
        return Err(match other {
            Some(v) => err("E-PLUGIN-ABI", format!("plugin {} targets ABI `{v}`, but this host speaks `{}`", req.file, abi::MARKER))
                .with_help("rebuild the plugin against a tessera-plugin-api version this host supports, or upgrade the host"),
            None => err("E-PLUGIN-ABI", format!("plugin {} is not a Tessera plugin: it has no `{}` export", req.file, abi::MARKER))
                .with_help("build it with the tessera-plugin-api SDK, or export the functions listed in plugin-api/ABI.md"),
        });
    }
    for needed in [
        exports::ALLOC,
        exports::DEALLOC,
        exports::DESCRIBE,
        exports::PREPARE,
        exports::ERROR,
        "memory",
    ] {
        if !names.iter().any(|n| n == needed) {
            return Err(err(
                "E-PLUGIN-EXPORT",
                format!("plugin {} does not export `{needed}`", req.file),
            )
            .with_help("see plugin-api/ABI.md for the exports every plugin needs"));
        }
    }

    Ok(())
}

/// Checks the imports: only the ABI's, and capabilities only when mod.toml asks for them
/// and server.toml grants them. Returns the capabilities the plugin uses.
#[expect(
    clippy::result_large_err,
    reason = "a load error is rare; `Diagnostic` is the loader's error everywhere"
)]
fn granted_imports(
    req: &PluginRequest<'_>,
    module: &Module,
    err: &impl Fn(&'static str, String) -> Diagnostic,
) -> Result<Vec<String>, Diagnostic> {
    let mut effective = Vec::new();
    for imp in module.imports() {
        let (m, name) = (imp.module(), imp.name());
        if m != abi::IMPORT_MODULE {
            return Err(err(
                "E-PLUGIN-IMPORT",
                format!(
                    "plugin {} imports `{m}::{name}`; plugins get no WASI or other host access",
                    req.file
                ),
            )
            .with_help("use only the `tessera` imports listed in plugin-api/ABI.md"));
        }
        if let Some((cap, _)) = CAPABILITY_IMPORTS.iter().find(|(_, n)| *n == name) {
            if !req.asked.iter().any(|a| a == cap) {
                return Err(err(
                    "E-PLUGIN-CAPABILITY",
                    format!(
                        "plugin {} uses the `{cap}` capability, but mod.toml does not ask for it",
                        req.file
                    ),
                )
                .with_help(format!(
                    "add `capabilities = [\"{cap}\"]` to the `[[plugin]]` entry of {}'s mod.toml",
                    req.mod_id
                )));
            }
            if !req.granted.iter().any(|g| g == cap) {
                return Err(err("E-PLUGIN-CAPABILITY", format!("plugin {} uses the `{cap}` capability, which server.toml does not grant", req.file))
                    .with_help(format!("the operator can grant it: `[grants.{}] capabilities = [\"{cap}\"]` in server.toml", req.mod_id)));
            }
            effective.push((*cap).to_owned());
            continue;
        }
        if !BASE_IMPORTS.contains(&name) || !matches!(imp.ty(), ExternType::Func(_)) {
            return Err(err(
                "E-PLUGIN-IMPORT",
                format!(
                    "plugin {} imports `tessera::{name}`, which ABI v1 does not have",
                    req.file
                ),
            )
            .with_help("see plugin-api/ABI.md for the imports of ABI v1"));
        }
    }
    Ok(effective)
}

/// Describes a plugin (wasm or native) and checks the description against `provides`.
#[expect(
    clippy::result_large_err,
    reason = "the same `Diagnostic` error as `load_plugin`"
)]
fn finish_load(
    req: PluginRequest<'_>,
    code: PluginCode,
    limits: PluginLimits,
    err: impl Fn(&'static str, String) -> Diagnostic,
) -> Result<Arc<LoadedPlugin>, Diagnostic> {
    let shared = Arc::new(LoadedShared {
        mod_id: req.mod_id.to_owned(),
        host_objects: RwLock::new(Vec::new()),
    });
    let mut plugin = LoadedPlugin {
        key: next_key(),
        shared,
        code,
        limits,
        mod_id: req.mod_id.to_owned(),
        file: req.file.into(),
        description: Description {
            abi: abi::VERSION,
            name: String::new(),
            provides: Vec::new(),
        },
        loader: Mutex::new(None),
        parsers: Mutex::new(Vec::new()),
        load_cache: std::sync::OnceLock::new(),
        prepared: Mutex::new(Vec::new()),
        calls: AtomicU64::new(0),
        faults_total: AtomicU64::new(0),
        world_quarantines: AtomicU64::new(0),
    };
    let fail = |m: String| {
        err(
            "E-PLUGIN-DESCRIBE",
            format!("plugin {}: `tessera_describe` failed: {m}", req.file),
        )
    };
    let mut inst = PluginInstance::new(&plugin).map_err(|e| {
        let m = e.into_message();
        err("E-PLUGIN-INSTANTIATE", format!("plugin {} {m}", req.file))
    })?;
    let desc_bytes = inst.describe(&plugin).map_err(|e| fail(e.into_message()))?;
    let description: Description = serde_json::from_slice(&desc_bytes).map_err(|e| {
        fail(format!(
            "its description is not valid JSON of ABI.md's shape: {e}"
        ))
    })?;
    if description.abi != abi::VERSION {
        return Err(err(
            "E-PLUGIN-ABI",
            format!(
                "plugin {} describes itself as ABI {}, but exports `{}`",
                req.file,
                description.abi,
                abi::MARKER
            ),
        ));
    }
    check_provides(&req, &description).map_err(|m| {
        err("E-PLUGIN-PROVIDES", m).with_help(
            "make `[[plugin]] provides` in mod.toml list exactly what the plugin describes",
        )
    })?;
    plugin.description = description;
    *plugin.loader.lock().unwrap_or_else(|e| e.into_inner()) = Some(inst);
    Ok(Arc::new(plugin))
}

fn check_provides(req: &PluginRequest<'_>, d: &Description) -> Result<(), String> {
    let mut declared = BTreeSet::new();
    for p in req.provides {
        let id =
            Id::resolve(p, Some(req.mod_id)).map_err(|e| format!("`provides` entry `{p}`: {e}"))?;
        declared.insert(id);
    }
    let mut described = BTreeSet::new();
    for p in &d.provides {
        let id = Id::parse(&p.id).map_err(|e| format!("the plugin describes `{}`: {e}", p.id))?;
        if id.namespace() != req.mod_id {
            return Err(format!(
                "the plugin provides `{id}`, outside its mod's namespace `{}`",
                req.mod_id
            ));
        }
        for param in &p.params {
            if ENGINE_KEYS.contains(&param.name.as_str()) {
                return Err(format!("`{id}` has a parameter `{}`, but that key belongs to the engine (use sites may always write {}); rename the parameter", param.name, ENGINE_KEYS.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ")));
            }
        }
        if id.category() != p.kind.category() {
            return Err(format!(
                "the plugin describes `{id}` as a {}, but its id says {}",
                p.kind.category(),
                id.category()
            ));
        }
        described.insert(id);
    }
    let missing: Vec<String> = declared
        .difference(&described)
        .map(|i| format!("`{i}`"))
        .collect();
    let extra: Vec<String> = described
        .difference(&declared)
        .map(|i| format!("`{i}`"))
        .collect();
    match (missing.is_empty(), extra.is_empty()) {
        (true, true) => Ok(()),
        (false, _) => Err(format!(
            "mod.toml says plugin {} provides {}, but the plugin does not describe {}",
            req.file,
            missing.join(", "),
            if missing.len() == 1 { "it" } else { "them" }
        )),
        (true, false) => Err(format!(
            "plugin {} provides {} that mod.toml does not declare in `provides`",
            req.file,
            extra.join(", ")
        )),
    }
}

/// What a loaded plugin provides could not be registered.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum RegisterError {
    /// The description names an id that is not a valid id.
    #[error(transparent)]
    Id(#[from] crate::id::IdError),
    /// The registry refused the entry (a duplicate, or the wrong category).
    #[error(transparent)]
    Registry(#[from] crate::rules::registry::RegistryError),
}

/// Registers everything a loaded plugin provides as registry entries.
pub fn register_plugin(
    plugin: &Arc<LoadedPlugin>,
    registry: &mut Registry,
) -> Result<(), RegisterError> {
    for p in &plugin.description.provides {
        let id = Id::parse(&p.id)?;
        let params: Vec<ParamSpec> = p
            .params
            .iter()
            .map(|d| ParamSpec {
                name: Cow::Owned(d.name.clone()),
                ty: match d.ty {
                    AbiType::Number | AbiType::Integer => ParamType::Number,
                    AbiType::Text => ParamType::Text,
                    AbiType::Bool => ParamType::Bool,
                    AbiType::List => ParamType::List,
                    AbiType::Table => ParamType::Table,
                    AbiType::Any => ParamType::Any,
                },
                required: d.required,
                doc: Cow::Owned(d.doc.clone()),
            })
            .collect();
        let (mod_id, file) = (plugin.mod_id.clone(), plugin.file.display().to_string());
        let provider = if plugin.is_native() {
            Provider::Native { mod_id, file }
        } else {
            Provider::Plugin { mod_id, file }
        };
        let kind = Arc::new(PluginKind {
            plugin: plugin.clone(),
            id,
            kind: p.kind,
        });
        let r = match p.kind {
            Kind::Condition => registry.conditions.register(Entry {
                id,
                provider,
                params,
                doc: p.doc.clone(),
                imp: kind,
            }),
            Kind::Selector => registry.selectors.register(Entry {
                id,
                provider,
                params,
                doc: p.doc.clone(),
                imp: kind,
            }),
            Kind::Action => registry.actions.register(Entry {
                id,
                provider,
                params,
                doc: p.doc.clone(),
                imp: kind,
            }),
            Kind::Node => registry.nodes.register(Entry {
                id,
                provider,
                params,
                doc: p.doc.clone(),
                imp: kind,
            }),
            Kind::Loader => registry.loaders.register(Entry {
                id,
                provider,
                params,
                doc: p.doc.clone(),
                imp: Arc::new(super::kinds::PluginLoader {
                    plugin: plugin.clone(),
                    id,
                    extensions: p
                        .extensions
                        .iter()
                        .map(|e| crate::id::Sym::new(e).as_str())
                        .collect(),
                }),
            }),
        };
        r?;
    }
    registry.providers.push(plugin.clone());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn native_libraries_are_known_by_their_extension() {
        assert!(is_native_file("plugins/libx.so"));
        assert!(is_native_file("x.dll") && is_native_file("x.dylib"));
        assert!(!is_native_file("plugins/x.wasm"));
    }

    /// Without the `native-plugins` feature a mod shipping a native library is refused
    /// with a diagnostic saying how to get native extensions back (`.ci/run` runs the
    /// library's unit tests without default features).
    #[cfg(not(feature = "native-plugins"))]
    #[test]
    fn a_native_library_without_the_feature_is_refused_with_a_fix() {
        let req = PluginRequest {
            mod_id: "m",
            mod_dir: Path::new("mods/m"),
            file: "plugins/libm.so",
            provides: &[],
            asked: &[],
            granted: &[],
            trusted_native: true,
        };
        let d = load_plugin(req, PluginLimits::default()).expect_err("refused");
        assert_eq!(d.code, "E-PLUGIN-NATIVE-DISABLED");
        assert!(
            d.render(false).contains("--features native-plugins"),
            "{}",
            d.render(false)
        );
    }
}
