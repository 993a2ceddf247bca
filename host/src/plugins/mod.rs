//! Plugins: WebAssembly modules (the sandbox: wasmtime, host functions, limits and
//! faults) and trusted native extensions (native.rs: the same registrations through the
//! native ABI, loaded only for mods `server.toml` lists in `trusted_native`).
//!
//! Owns loading a mod's plugin (compile through the on-disk cache, check its imports,
//! capabilities and ABI version, check `describe` against the manifest's `provides`),
//! registering what it provides as ordinary registry entries (the engine cannot tell them
//! from built-ins), preparing each use site at load, and running calls: one instance per
//! plugin per world ([`Runtime`]), created lazily, under fuel and an epoch deadline, with
//! memory and table limits. A trap fails that call (the command rolls back), throws the
//! instance away, and counts toward quarantine. Must not touch files other than the
//! plugin binaries, and never panics on anything a plugin does.
//!
//! The ABI is specified in `plugin-api/ABI.md`; its constants live in
//! `tessera_plugin_api::abi`, shared with the guest SDK.

#![expect(
    unsafe_code,
    reason = "host functions read the world through a call environment valid only during a guest call (see host/mod.rs); native libraries are loaded and called through raw symbols (native.rs)"
)]

pub mod build;
mod driver;
mod engine;
mod host;
mod instance;
mod kinds;
mod linker;
mod load;
mod load_cache;
mod loading;
#[cfg(feature = "native-plugins")]
mod native;
#[cfg(feature = "native-plugins")]
mod native_vtable;
mod profile;
pub(crate) use profile::{start_content, stop_content};

use std::cell::RefCell;
use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use tessera_plugin_api::abi::{Description, Kind};
use wasmtime::{Engine, InstancePre};

pub use engine::cache_dir;
pub use load::{load_plugin, register_plugin, PluginLimits, PluginRequest, RegisterError};
pub use profile::TimeSplit;

use driver::CallError;
use host::{HostObject, HostRequest, HostState};
pub use host::{MAX_GUEST_NAME, MAX_GUEST_SYMBOLS};
use instance::PluginInstance;

use crate::rules::registry::Registry;
pub use crate::rules::{PluginFault, PluginFaultKind, Quarantine};
use crate::rules::{RuleError, Sandbox};

// SAFETY: the raw pointers in a `CallEnv` are only set while a call runs on the thread
// that owns the borrows; between calls (the only time a store may move between threads,
// e.g. inside the registry's mutex) they are `None`.
unsafe impl Send for host::CallEnv {}

/// State shared by a plugin's instances: what they prepared on the host.
pub(crate) struct LoadedShared {
    pub mod_id: String,
    host_objects: RwLock<Vec<Option<Arc<HostObject>>>>,
}

impl LoadedShared {
    /// Reserves the next host handle (filled once the prepare call returns).
    fn reserve_handle(&self, _nth: usize) -> i32 {
        let mut objs = self.host_objects.write().unwrap_or_else(|e| e.into_inner());
        objs.push(None);
        i32::try_from(objs.len() - 1).unwrap_or(-1)
    }

    fn fill(&self, h: i32, obj: HostObject) {
        let mut objs = self.host_objects.write().unwrap_or_else(|e| e.into_inner());
        if let Some(slot) = usize::try_from(h).ok().and_then(|i| objs.get_mut(i)) {
            *slot = Some(Arc::new(obj));
        }
    }

    fn host_object(&self, h: i32) -> Option<Arc<HostObject>> {
        let objs = self.host_objects.read().unwrap_or_else(|e| e.into_inner());
        objs.get(usize::try_from(h).ok()?)?.clone()
    }
}

/// One recorded prepare call, replayed on every new instance.
#[derive(Debug, Clone)]
struct PrepareCall {
    kind: Kind,
    id: String,
    params: String,
    handle: i32,
    requests: Vec<(HostRequest, i32)>,
}

/// What runs a plugin's code.
pub(crate) enum PluginCode {
    /// A sandboxed wasm module.
    Wasm {
        engine: Engine,
        pre: InstancePre<HostState>,
        /// The module's digest: the key of its loader replies in the load cache.
        digest: load_cache::Digest,
    },
    /// A trusted native library (feature `native-plugins`).
    #[cfg(feature = "native-plugins")]
    Native(Arc<native::NativeLib>),
}

/// A loaded plugin: its compiled module (or native library), what it provides, and its fault record. Shared
/// by every world using the generation it belongs to.
pub struct LoadedPlugin {
    key: u64,
    shared: Arc<LoadedShared>,
    code: PluginCode,
    limits: PluginLimits,
    /// The mod.
    pub mod_id: String,
    /// The plugin file (as written in `mod.toml`).
    pub file: PathBuf,
    /// What `describe` said.
    pub description: Description,
    loader: Mutex<Option<PluginInstance>>,
    /// Idle instances for `tessera_load` calls: one is taken for a call and given back
    /// after it, so files load on several threads at once (a loader's call depends only
    /// on its file). Apart from `loader`, whose `prepare` calls must run in load order.
    parsers: Mutex<Vec<PluginInstance>>,
    /// Its loader replies on disk (opened at the first load; `None` when there is no
    /// cache folder, the cache is off, or the plugin is native).
    load_cache: std::sync::OnceLock<Option<load_cache::LoadCache>>,
    prepared: Mutex<Vec<PrepareCall>>,
    calls: AtomicU64,
    faults_total: AtomicU64,
    world_quarantines: AtomicU64,
}

impl std::fmt::Debug for LoadedPlugin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "plugin {} of mod `{}`", self.file.display(), self.mod_id)
    }
}

impl LoadedPlugin {
    /// Its load cache: under [`cache_dir`], unless `TESSERA_LOAD_CACHE=off`.
    fn load_cache(&self) -> Option<&load_cache::LoadCache> {
        self.load_cache
            .get_or_init(|| {
                let digest = match &self.code {
                    PluginCode::Wasm { digest, .. } => *digest,
                    #[cfg(feature = "native-plugins")]
                    PluginCode::Native(_) => return None,
                };
                if std::env::var("TESSERA_LOAD_CACHE").is_ok_and(|v| v == "off") {
                    return None;
                }
                let root = cache_dir()?;
                Some(load_cache::LoadCache::open(
                    &root,
                    &self.mod_id,
                    &self.file,
                    digest,
                ))
            })
            .as_ref()
    }

    /// Calls made to it since it was loaded, in every world.
    pub fn calls_total(&self) -> u64 {
        self.calls.load(Ordering::Relaxed)
    }

    /// Faults (traps, fuel or memory exhausted) since the plugin was loaded.
    pub fn faults_total(&self) -> u64 {
        self.faults_total.load(Ordering::Relaxed)
    }

    /// How many worlds quarantined it (each switched its definitions off there).
    pub fn world_quarantines(&self) -> u64 {
        self.world_quarantines.load(Ordering::Relaxed)
    }

    fn describe_site(&self, export: &str, def: &str, site: &str) -> String {
        format!(
            "mod `{}`, plugin {}, export `{export}`, definition `{def}` used at {site}",
            self.mod_id,
            self.file.display()
        )
    }

    /// A fault of this plugin at a use site, not yet replaced nor quarantining.
    fn fault(&self, at: &CallSite<'_>, kind: PluginFaultKind, message: String) -> PluginFault {
        PluginFault {
            mod_id: self.mod_id.clone(),
            file: self.file.clone(),
            export: at.export.to_owned(),
            definition: at.def.to_owned(),
            site: at.site.to_owned(),
            kind,
            message,
            replaced: false,
            quarantine: None,
        }
    }

    /// Whether this is a trusted native library (not a sandboxed wasm module).
    pub fn is_native(&self) -> bool {
        #[cfg(feature = "native-plugins")]
        return matches!(self.code, PluginCode::Native(_));
        #[cfg(not(feature = "native-plugins"))]
        false
    }

    /// A fresh instance with every recorded prepare replayed. A native library is one
    /// instance for the whole process: its prepared use sites stay valid, nothing is
    /// replayed.
    fn fresh_instance(&self) -> Result<PluginInstance, CallError> {
        let mut inst = PluginInstance::new(self)?;
        if self.is_native() {
            return Ok(inst);
        }
        let calls = self
            .prepared
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        for c in calls {
            let (h, _) = inst.prepare(self, c.kind, &c.id, &c.params, Some(c.requests.clone()))?;
            if h != c.handle {
                return Err(CallError::broken(format!(
                    "prepare is not deterministic: `{}` got handle {h} on a new instance, {} at load",
                    c.id, c.handle
                )));
            }
        }
        Ok(inst)
    }
}

/// Where a plugin call is made: the export, the definition and its use site (for the
/// [`PluginFault`] if it fails; nothing is formatted unless it does).
#[derive(Debug, Clone, Copy)]
pub(crate) struct CallSite<'a> {
    /// The export called.
    pub export: &'a str,
    /// The definition id.
    pub def: &'a str,
    /// The use site (file:line).
    pub site: &'a str,
}

/// The plugin instances of one world: one per plugin, created on first use.
#[derive(Default)]
pub struct Runtime {
    /// By plugin key (a handful per world: an ordered map beats hashing each call).
    instances: RefCell<std::collections::BTreeMap<u64, PluginInstance>>,
    /// Plugins with a call in progress (their instance is out of the map meanwhile).
    busy: RefCell<std::collections::BTreeSet<u64>>,
    /// Time per mod, when profiling is on.
    pub(crate) profiler: profile::Profiler,
    /// This world's fault record per plugin: a quarantine switches the mod's definitions
    /// off in this world only (other worlds, scenarios and tests never see it).
    faults: RefCell<std::collections::BTreeMap<u64, FaultRecord>>,
    /// Faults recorded in this world, all plugins together (a host call that runs
    /// other plugins compares it before and after to see a nested fault).
    fault_count: std::cell::Cell<u64>,
    /// Fault injection (soak tests): every how many plugin calls one faults; 0 = off.
    inject_every: std::cell::Cell<u64>,
    /// Plugin calls made in this world while injection was on.
    inject_calls: std::cell::Cell<u64>,
}

/// One plugin's faults in one world.
#[derive(Debug, Default)]
struct FaultRecord {
    /// Calls made in this world.
    calls: u64,
    /// The call numbers of recent faults (within the window).
    recent: VecDeque<u64>,
    /// Why it was quarantined, once it is.
    off: Option<String>,
}

impl std::fmt::Debug for Runtime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Runtime {{ instances: {} }}",
            self.instances.borrow().len()
        )
    }
}

impl Runtime {
    /// Drops the instances of plugins not in `keep` (after a reload, the old generation's
    /// instances are freed). Returns how many were dropped.
    pub fn retain_plugins(&self, keep: &[Arc<LoadedPlugin>]) -> usize {
        let mut map = self.instances.borrow_mut();
        let before = map.len();
        map.retain(|k, _| keep.iter().any(|p| p.key == *k));
        before - map.len()
    }

    /// Turns the per-mod time split on or off (off by default: timing costs a little).
    pub fn set_profiling(&self, on: bool) {
        self.profiler.set_enabled(on);
    }

    /// The time split gathered since profiling was turned on (or last taken).
    pub fn take_profile(&self) -> TimeSplit {
        self.profiler.take()
    }

    /// Fault injection, for soak and fault tests: from now on one plugin call in `every`
    /// in this world (counting every plugin together) fails as a fault without running
    /// the guest — its instance is thrown away and the fault counts toward quarantine,
    /// exactly as a trap. The first to fail is call number `every - phase % every`, so
    /// worlds given different phases fault at different calls and, over many worlds,
    /// exactly 1 call in `every` faults. Deterministic: the same inputs fault the same
    /// calls, so a replay with the same setting reproduces the game. `every = 0` turns it
    /// off (the default; then the only cost is one comparison per call).
    pub fn inject_faults(&self, every: u64, phase: u64) {
        self.inject_every.set(every);
        self.inject_calls.set(phase.checked_rem(every).unwrap_or(0));
    }

    /// Whether fault injection fails this call (see [`Runtime::inject_faults`]).
    fn injected(&self) -> bool {
        let every = self.inject_every.get();
        if every == 0 {
            return false;
        }
        let n = self.inject_calls.get() + 1;
        self.inject_calls.set(n);
        n % every == 0
    }

    /// Number of live instances (for leak checks).
    pub fn instance_count(&self) -> usize {
        self.instances.borrow().len()
    }

    /// Runs `f` on this world's instance of `plugin`. A fault throws the instance away
    /// (the next call gets a fresh one) and counts toward quarantine.
    pub(crate) fn call<R>(
        &self,
        plugin: &LoadedPlugin,
        at: CallSite<'_>,
        f: impl FnOnce(&mut PluginInstance) -> Result<R, CallError>,
    ) -> Result<R, RuleError> {
        if let Some(reason) = self.switched_off(plugin) {
            return Err(plugin
                .fault(
                    &at,
                    PluginFaultKind::Quarantined,
                    format!("the mod is quarantined in this world ({reason})"),
                )
                .into());
        }
        if !self.busy.borrow_mut().insert(plugin.key) {
            return Err(plugin.fault(&at, PluginFaultKind::ReEntered, "the plugin re-entered itself (one of its definitions ran another of its definitions); an instance runs one call at a time".into()).into());
        }
        let started = self.profiler.enabled().then(std::time::Instant::now);
        let result = self.call_inner(plugin, &at, f);
        if let Some(t) = started {
            self.profiler.plugin(&plugin.mod_id, t.elapsed());
        }
        self.busy.borrow_mut().remove(&plugin.key);
        result
    }

    /// Why `plugin` is quarantined in this world, if it is: its definitions are then
    /// off (conditions false, selectors empty, actions and nodes do nothing).
    pub(crate) fn switched_off(&self, plugin: &LoadedPlugin) -> Option<String> {
        self.faults
            .borrow()
            .get(&plugin.key)
            .and_then(|r| r.off.clone())
    }

    /// The runtime a rules context carries ([`Sandbox`]): this world's, or an internal
    /// error when a context was built with something else.
    pub(crate) fn of(rt: &Sandbox) -> Result<&Runtime, RuleError> {
        rt.downcast_ref()
            .ok_or_else(|| RuleError::internal("a rules context carried no plugin runtime"))
    }

    /// Whether `plugin` is quarantined in this world (checked before every call).
    pub(crate) fn is_off(&self, plugin: &LoadedPlugin) -> bool {
        self.faults
            .borrow()
            .get(&plugin.key)
            .is_some_and(|r| r.off.is_some())
    }

    /// Faults recorded in this world so far, every plugin together.
    pub(crate) fn faults_recorded(&self) -> u64 {
        self.fault_count.get()
    }

    /// Records a fault of `plugin` in this world; quarantines it here after too many
    /// within the window. Returns the quarantine when this fault caused it.
    fn record_fault(&self, plugin: &LoadedPlugin, message: &str) -> Option<Quarantine> {
        plugin.faults_total.fetch_add(1, Ordering::Relaxed);
        self.fault_count.set(self.fault_count.get() + 1);
        let mut all = self.faults.borrow_mut();
        let r = all.entry(plugin.key).or_default();
        let now = r.calls;
        r.recent.push_back(now);
        let window = plugin.limits.fault_window;
        while r
            .recent
            .front()
            .is_some_and(|&f| now.saturating_sub(f) > window)
        {
            r.recent.pop_front();
        }
        if r.recent.len() < plugin.limits.max_faults || r.off.is_some() {
            return None;
        }
        let reason = format!(
            "{} faults within {window} calls, the last: {message}",
            r.recent.len()
        );
        tracing::error!(mod_id = %plugin.mod_id, plugin = %plugin.file.display(), "mod quarantined in this world, its definitions are switched off: {reason}");
        plugin.world_quarantines.fetch_add(1, Ordering::Relaxed);
        r.off = Some(reason);
        Some(Quarantine {
            faults: r.recent.len(),
            window,
        })
    }

    /// Records a fault that threw the instance away (or never made one) as a
    /// [`PluginFault`].
    fn faulted(
        &self,
        plugin: &LoadedPlugin,
        at: &CallSite<'_>,
        kind: PluginFaultKind,
        message: String,
        replaced: bool,
    ) -> PluginFault {
        let quarantine = self.record_fault(plugin, &message);
        PluginFault {
            replaced,
            quarantine,
            ..plugin.fault(at, kind, message)
        }
    }

    fn call_inner<R>(
        &self,
        plugin: &LoadedPlugin,
        at: &CallSite<'_>,
        f: impl FnOnce(&mut PluginInstance) -> Result<R, CallError>,
    ) -> Result<R, RuleError> {
        plugin.calls.fetch_add(1, Ordering::Relaxed);
        self.faults
            .borrow_mut()
            .entry(plugin.key)
            .or_default()
            .calls += 1;
        let taken = self.instances.borrow_mut().remove(&plugin.key);
        let mut inst = match taken {
            Some(i) => i,
            None => match plugin.fresh_instance() {
                Ok(i) => i,
                Err(e) => {
                    let (kind, m) = e.into_parts();
                    return Err(self.faulted(plugin, at, kind, m, false).into());
                }
            },
        };
        if self.injected() {
            drop(inst);
            let m = "an injected fault (fault injection is on in this world)".to_owned();
            return Err(self
                .faulted(plugin, at, PluginFaultKind::Injected, m, true)
                .into());
        }
        match f(&mut inst) {
            Ok(r) => {
                self.instances.borrow_mut().insert(plugin.key, inst);
                Ok(r)
            }
            Err(CallError::Guest(kind, m)) => {
                self.instances.borrow_mut().insert(plugin.key, inst);
                Err(plugin.fault(at, kind, m).into())
            }
            Err(CallError::Fault(kind, m)) => Err(self.faulted(plugin, at, kind, m, true).into()),
        }
    }

    /// Hands plugin state over to a new generation: for every instance of `old` that
    /// has `save_state`, saves it and loads it into a new instance of `new`. Returns a
    /// message for each handover that failed (reported, never fatal).
    pub fn hand_over(&self, old: &LoadedPlugin, new: &LoadedPlugin) -> Vec<String> {
        let mut problems = Vec::new();
        let taken = self.instances.borrow_mut().remove(&old.key);
        let Some(mut inst) = taken else {
            return problems;
        };
        let saved = match inst.save_state(old) {
            Ok(s) => s,
            Err(e) => {
                let m = e.into_message();
                problems.push(format!("save_state of {old:?} failed: {m}"));
                None
            }
        };
        let Some(bytes) = saved else { return problems };
        match new.fresh_instance() {
            Ok(mut fresh) => match fresh.load_state(new, &bytes) {
                Ok(_) => {
                    self.instances.borrow_mut().insert(new.key, fresh);
                }
                Err(e) => {
                    let m = e.into_message();
                    problems.push(format!(
                        "load_state of {new:?} failed, it starts fresh: {m}"
                    ));
                }
            },
            Err(e) => {
                let m = e.into_message();
                problems.push(format!("{new:?} could not be instantiated: {m}"))
            }
        }
        problems
    }
}

fn next_key() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// The default per-call deadline.
pub const DEFAULT_DEADLINE: Duration = Duration::from_secs(1);

impl Registry {
    /// The plugins whose entries are registered in this registry, in load order.
    pub fn plugins(&self) -> Vec<Arc<LoadedPlugin>> {
        self.providers
            .iter()
            .filter_map(|p| p.clone().downcast::<LoadedPlugin>().ok())
            .collect()
    }
}
