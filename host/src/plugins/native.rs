//! Trusted native extensions: a mod's plugin as a shared library (`.so`, `.dylib`,
//! `.dll`) speaking the native ABI v1 (`plugin-api/ABI.md`, "Native extensions";
//! constants in `tessera_plugin_api::abi::native`), loaded with `libloading` only when
//! `server.toml` lists the mod in `trusted_native`.
//!
//! The library provides the same registrations as a wasm plugin and goes through the same
//! flow: `describe` checked against `provides`, use sites prepared at load, registry
//! entries the engine cannot tell from built-ins, the same fault record and quarantine.
//! The host's functions reach it as a [`HostVtable`] of `extern "C"` functions, given once
//! to `tessera_native_v1_init`; they run the same logic as the wasm imports (methods of
//! [`HostState`]), reaching the calling instance's state through a thread-local set for
//! the duration of each call (native code calls back synchronously, on the same thread).
//!
//! **What is not protected**: a native library runs with the server's full rights. No
//! fuel, no deadline, no memory or stack limit: an endless loop hangs the server, a
//! crash (segfault, abort, stack overflow, or a panic in a library built with
//! `panic = "abort"`) takes the process down, and the library can read or write any
//! memory and do any I/O. Only a panic in a library built with `panic = "unwind"` (what
//! `tessera build --native` does) and errors it returns are reported like a wasm guest's.
//! The library's state (the SDK's handle table, the plugin's statics) is one per process,
//! shared by every world, and survives faults.
//!
//! **Reloading**: each load opens a private copy of the library (a unique temporary path,
//! unlinked once mapped), because opening the same path again would return the library
//! already loaded and a rebuilt file would never take effect. Old copies are not closed:
//! unloading Rust code that registered thread-local destructors is unsound, so each
//! native reload keeps the old code mapped (a restart frees it). This deliberately
//! departs from "close the old library once nothing references it".

use std::cell::Cell;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use libloading::Library;
use tessera_plugin_api::abi::native::{self, exports, Bytes, HostVtable};
use tessera_plugin_api::abi::Kind;
use wasmtime::StoreLimitsBuilder;

use super::driver::{CallError, Raw, Transport};
use super::host::{CallEnv, HostState};
use super::load::PluginRequest;
use super::native_vtable::vtable;
use super::LoadedPlugin;
use crate::diag::Diagnostic;

type DeallocFn = unsafe extern "C" fn(*mut u8, usize);
type BytesFn = unsafe extern "C" fn() -> Bytes;
type PrepareFn = unsafe extern "C" fn(i32, *const u8, usize, *const u8, usize) -> i32;
type ConditionFn = unsafe extern "C" fn(i32, i64) -> i32;
type BatchFn = unsafe extern "C" fn(i32, *const i64, usize, *mut u8) -> i32;
type HandleFn = unsafe extern "C" fn(i32) -> i32;
type ActionFn = unsafe extern "C" fn(i32, *const i64, usize) -> i32;
type LoadStateFn = unsafe extern "C" fn(*const u8, usize) -> i32;
type InitFn = unsafe extern "C" fn(*const HostVtable) -> i32;

/// Copies the library to a unique path under the temp dir, so every load is a fresh
/// library (see the module docs on reloading).
fn private_copy(mod_id: &str, path: &Path) -> std::io::Result<PathBuf> {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join("tessera-native");
    std::fs::create_dir_all(&dir)?;
    let name = path
        .file_name()
        .map_or_else(|| "plugin".into(), |f| f.to_string_lossy().into_owned());
    let copy = dir.join(format!("{mod_id}-{}-{n}-{name}", std::process::id()));
    std::fs::copy(path, &copy)?;
    Ok(copy)
}

/// A loaded native library and its entry points.
pub(crate) struct NativeLib {
    /// Kept loaded for as long as the process runs (see the module docs); the function
    /// pointers below point into it.
    _lib: std::mem::ManuallyDrop<Library>,
    dealloc: DeallocFn,
    describe: BytesFn,
    prepare: PrepareFn,
    error: BytesFn,
    condition: Option<ConditionFn>,
    batch: Option<BatchFn>,
    select: Option<HandleFn>,
    action: Option<ActionFn>,
    node: Option<HandleFn>,
    save: Option<BytesFn>,
    load: Option<LoadStateFn>,
}

impl NativeLib {
    /// Copies a returned block out and gives it back to the library.
    fn take(&self, b: Bytes) -> Option<Vec<u8>> {
        if b.ptr.is_null() {
            return None;
        }
        // SAFETY: the native ABI says a non-null `Bytes` is `len` readable bytes owned by
        // the library until `tessera_dealloc`; the library is trusted to keep it.
        let v = unsafe { std::slice::from_raw_parts(b.ptr, b.len) }.to_vec();
        // SAFETY: giving the block back exactly once, with its length.
        unsafe { (self.dealloc)(b.ptr, b.len) };
        Some(v)
    }
}

/// Opens a trusted library: checks trust, the version marker and the entry points, and
/// calls `tessera_native_v1_init` with the host's vtable.
#[expect(
    clippy::result_large_err,
    reason = "the same `Diagnostic` error as `load_plugin`"
)]
pub(crate) fn open(
    req: &PluginRequest<'_>,
    path: &Path,
    err: impl Fn(&'static str, String) -> Diagnostic,
) -> Result<Arc<NativeLib>, Diagnostic> {
    check_trusted_file(req, path, &err)?;
    let lib = load_library(req, path, &err)?;
    check_marker(req, &lib, &err)?;
    bind(req, lib, &err).map(Arc::new)
}

/// Refuses a library the operator does not trust, or one that is not there.
#[expect(
    clippy::result_large_err,
    reason = "a load error is rare; `Diagnostic` is the loader's error everywhere"
)]
fn check_trusted_file(
    req: &PluginRequest<'_>,
    path: &Path,
    err: &impl Fn(&'static str, String) -> Diagnostic,
) -> Result<(), Diagnostic> {
    if !req.trusted_native {
        return Err(err(
            "E-PLUGIN-UNTRUSTED",
            format!(
                "mod `{}` ships a native library ({}), which would run unsandboxed with the server's full rights; it is refused because server.toml does not trust this mod",
                req.mod_id, req.file
            ),
        )
        .with_help(format!(
            "if you trust this mod's code, add `trusted_native = [\"{}\"]` to server.toml (top level); otherwise ask its author for a WebAssembly build (`tessera build`), which needs no trust",
            req.mod_id
        )));
    }
    if !path.is_file() {
        return Err(err(
            "E-PLUGIN-MISSING",
            format!("failed to read plugin {}: no such file", req.file),
        )
        .with_help("build it with `tessera build --native <plugin crate folder>`".to_owned()));
    }
    Ok(())
}

/// Loads the library from a private copy (so a rebuild can replace the file while it is
/// loaded).
#[expect(
    clippy::result_large_err,
    reason = "a load error is rare; `Diagnostic` is the loader's error everywhere"
)]
fn load_library(
    req: &PluginRequest<'_>,
    path: &Path,
    err: &impl Fn(&'static str, String) -> Diagnostic,
) -> Result<Library, Diagnostic> {
    let copy = private_copy(req.mod_id, path).map_err(|e| {
        err(
            "E-PLUGIN-NATIVE",
            format!("plugin {} could not be copied for loading: {e}", req.file),
        )
    })?;
    // SAFETY: loading runs the library's initializers. The operator trusts this mod
    // (`trusted_native`), which is exactly the promise that its code is sound.
    let loaded = unsafe { Library::new(&copy) };
    // The mapping stays valid after the path is gone; nothing else needs the copy.
    let _ = std::fs::remove_file(&copy);
    loaded.map_err(|e| {
        err(
            "E-PLUGIN-NATIVE",
            format!(
                "plugin {} could not be loaded as a native library: {e}",
                req.file
            ),
        )
        .with_help("build it for this host's platform (`tessera build --native`)".to_owned())
    })
}

/// Refuses a library without the native ABI's marker (saying so when it carries the wasm
/// ABI's instead).
#[expect(
    clippy::result_large_err,
    reason = "a load error is rare; `Diagnostic` is the loader's error everywhere"
)]
fn check_marker(
    req: &PluginRequest<'_>,
    lib: &Library,
    err: &impl Fn(&'static str, String) -> Diagnostic,
) -> Result<(), Diagnostic> {
    // SAFETY: the markers are declared by the ABIs as `extern "C" fn()`; they are only
    // looked up, never called.
    let has = |name: &str| unsafe { lib.get::<unsafe extern "C" fn()>(name.as_bytes()).is_ok() };
    if has(native::MARKER) {
        return Ok(());
    }
    Err(if has(tessera_plugin_api::abi::MARKER) {
        err("E-PLUGIN-ABI", format!("plugin {} exports the wasm ABI's `{}`, not the native ABI's `{}`", req.file, tessera_plugin_api::abi::MARKER, native::MARKER))
    } else {
        err("E-PLUGIN-ABI", format!("plugin {} is not a Tessera native extension (or targets a native ABI this host does not speak): it has no `{}` symbol", req.file, native::MARKER))
    }
    .with_help("build it with the tessera-plugin-api SDK's `native` feature (`tessera build --native`), or export the symbols of ABI.md's \"Native extensions\"".to_owned()))
}

/// Hands the library the host's function table (with this load's grants) and reads its
/// entry points.
#[expect(
    clippy::result_large_err,
    reason = "a load error is rare; `Diagnostic` is the loader's error everywhere"
)]
fn bind(
    req: &PluginRequest<'_>,
    lib: Library,
    err: &impl Fn(&'static str, String) -> Diagnostic,
) -> Result<NativeLib, Diagnostic> {
    // SAFETY (every `get` below): each symbol is declared by the native ABI with exactly
    // the type it is read as; the trusted library is built by the SDK (or by hand to
    // ABI.md). The pointers stay valid because the library is never unloaded.
    unsafe {
        macro_rules! required {
            ($name:expr, $ty:ty) => {
                *lib.get::<$ty>($name.as_bytes()).map_err(|_| {
                    err(
                        "E-PLUGIN-EXPORT",
                        format!("plugin {} does not export `{}`", req.file, $name),
                    )
                    .with_help("see ABI.md, \"Native extensions\", for the symbols every native extension needs".to_owned())
                })?
            };
        }
        macro_rules! optional {
            ($name:expr, $ty:ty) => {
                lib.get::<$ty>($name.as_bytes()).ok().map(|s| *s)
            };
        }
        let init: InitFn = required!(native::INIT, InitFn);
        let granted =
            |cap: &str| req.asked.iter().any(|a| a == cap) && req.granted.iter().any(|g| g == cap);
        let vtable = vtable(granted("random"), granted("log"));
        // A library loaded twice (another generation) is the same library: init again
        // with this load's grants.
        if init(vtable) != 0 {
            return Err(err(
                "E-PLUGIN-ABI",
                format!(
                    "plugin {} refused the host's function table (native ABI v{}) in `{}`",
                    req.file,
                    native::VERSION,
                    native::INIT
                ),
            )
            .with_help(
                "rebuild it against a tessera-plugin-api version this host supports".to_owned(),
            ));
        }
        let out = NativeLib {
            dealloc: required!(exports::DEALLOC, DeallocFn),
            describe: required!(exports::DESCRIBE, BytesFn),
            prepare: required!(exports::PREPARE, PrepareFn),
            error: required!(exports::ERROR, BytesFn),
            condition: optional!(exports::CONDITION, ConditionFn),
            batch: optional!(exports::CONDITION_BATCH, BatchFn),
            select: optional!(exports::SELECT, HandleFn),
            action: optional!(exports::ACTION, ActionFn),
            node: optional!(exports::NODE, HandleFn),
            save: optional!(exports::SAVE_STATE, BytesFn),
            load: optional!(exports::LOAD_STATE, LoadStateFn),
            _lib: std::mem::ManuallyDrop::new(lib),
        };
        Ok(out)
    }
}

/// A native plugin's per-world state on the host (symbols are process-wide, see
/// `HostState::global_syms`); the library itself is shared.
pub(crate) struct NativeInstance {
    lib: Arc<NativeLib>,
    state: HostState,
}

thread_local! {
    /// The state of the native call running on this thread (null between calls).
    static CURRENT: Cell<*mut HostState> = const { Cell::new(std::ptr::null_mut()) };
}

/// Runs `f` on the state of the native call running on this thread; `default` outside
/// one.
pub(super) fn with<R>(default: R, f: impl FnOnce(&mut HostState) -> R) -> R {
    let p = CURRENT.get();
    if p.is_null() {
        return default;
    }
    // SAFETY: `CURRENT` is only non-null while `NativeInstance::call` runs on this thread,
    // pointing to that instance's state, which nothing else touches during the call (a
    // nested plugin call uses another instance and restores the pointer when it returns).
    f(unsafe { &mut *p })
}

/// Bytes the library passed (`None` for null with a non-zero length).
pub(super) fn bytes_at<'a>(ptr: *const u8, len: usize) -> Option<&'a [u8]> {
    if len == 0 {
        return Some(&[]);
    }
    if ptr.is_null() {
        return None;
    }
    // SAFETY: the native ABI says the library passes `len` readable bytes it owns for
    // the call; the library is trusted.
    Some(unsafe { std::slice::from_raw_parts(ptr, len) })
}

impl NativeInstance {
    /// The state for a new world's use of the library.
    pub fn new(plugin: &LoadedPlugin, lib: Arc<NativeLib>) -> NativeInstance {
        // Native code has no store: the limiter is never consulted.
        let limiter = super::linker::Limiter {
            limits: StoreLimitsBuilder::new().build(),
            memory_bytes: 0,
            refused_memory: None,
        };
        let mut state = HostState::new(plugin.shared.clone(), limiter);
        state.global_syms = true;
        NativeInstance { lib, state }
    }

    /// Runs `f` with the call environment set and this state current on this thread.
    fn call<R>(&mut self, env: Option<CallEnv>, f: impl FnOnce(&NativeLib) -> R) -> R {
        self.state.env = env;
        self.state.host_error = None;
        self.state.must_fail = None;
        let prev = CURRENT.replace(&mut self.state as *mut HostState);
        let r = f(&self.lib);
        CURRENT.set(prev);
        self.state.env = None;
        r
    }
}

/// The native transport: arguments passed as pointers into the host's own memory, the
/// instance's state current on this thread for the call's host calls.
impl Transport for NativeInstance {
    fn state(&mut self) -> &mut HostState {
        &mut self.state
    }

    fn panicked(&self, status: i32) -> bool {
        status == native::PANICKED
    }

    fn last_error(&mut self, _plugin: &LoadedPlugin) -> Option<String> {
        // SAFETY: a native ABI entry point with no arguments.
        let b = self.call(None, |l| unsafe { (l.error)() });
        self.lib
            .take(b)
            .map(|v| String::from_utf8_lossy(&v).into_owned())
    }

    fn describe(&mut self, _plugin: &LoadedPlugin) -> Result<Option<Vec<u8>>, CallError> {
        // SAFETY: a native ABI entry point with no arguments.
        let b = self.call(None, |l| unsafe { (l.describe)() });
        Ok(self.lib.take(b))
    }

    fn prepare(
        &mut self,
        _plugin: &LoadedPlugin,
        kind: Kind,
        id: &str,
        params: &str,
    ) -> Result<i32, CallError> {
        Ok(self.call(None, |l| {
            // SAFETY: both buffers are valid for their lengths for the whole call.
            unsafe {
                (l.prepare)(
                    kind.code(),
                    id.as_ptr(),
                    id.len(),
                    params.as_ptr(),
                    params.len(),
                )
            }
        }))
    }

    fn condition(
        &mut self,
        _plugin: &LoadedPlugin,
        env: CallEnv,
        handle: i32,
        obj: i64,
    ) -> Raw<i32> {
        let f = self.lib.condition?;
        // SAFETY: a native ABI entry point taking integers.
        Some(Ok(self.call(Some(env), |_| unsafe { f(handle, obj) })))
    }

    fn condition_batch(
        &mut self,
        _plugin: &LoadedPlugin,
        env: CallEnv,
        handle: i32,
        objs: &[i64],
        flags: &mut Vec<u8>,
    ) -> Raw<i32> {
        let f = self.lib.batch?;
        flags.resize(objs.len(), 0);
        // SAFETY: `objs` and `flags` are valid for `objs.len()` elements for the call.
        Some(Ok(self.call(Some(env), |_| unsafe {
            f(handle, objs.as_ptr(), objs.len(), flags.as_mut_ptr())
        })))
    }

    fn select(&mut self, _plugin: &LoadedPlugin, env: CallEnv, handle: i32) -> Raw<i32> {
        let f = self.lib.select?;
        // SAFETY: a native ABI entry point taking integers.
        Some(Ok(self.call(Some(env), |_| unsafe { f(handle) })))
    }

    fn action(
        &mut self,
        _plugin: &LoadedPlugin,
        env: CallEnv,
        handle: i32,
        targets: &[i64],
    ) -> Raw<i32> {
        let f = self.lib.action?;
        // SAFETY: `targets` is valid for its length for the whole call.
        Some(Ok(self.call(Some(env), |_| unsafe {
            f(handle, targets.as_ptr(), targets.len())
        })))
    }

    fn node(&mut self, _plugin: &LoadedPlugin, env: CallEnv, handle: i32) -> Raw<i32> {
        let f = self.lib.node?;
        // SAFETY: a native ABI entry point taking integers.
        Some(Ok(self.call(Some(env), |_| unsafe { f(handle) })))
    }

    fn save_state(&mut self, _plugin: &LoadedPlugin) -> Raw<Option<Vec<u8>>> {
        let f = self.lib.save?;
        // SAFETY: a native ABI entry point with no arguments.
        let b = self.call(None, |_| unsafe { f() });
        Some(Ok(self.lib.take(b)))
    }

    fn load_state(&mut self, _plugin: &LoadedPlugin, bytes: &[u8]) -> Raw<i32> {
        let f = self.lib.load?;
        // SAFETY: `bytes` is valid for its length for the whole call.
        Some(Ok(
            self.call(None, |_| unsafe { f(bytes.as_ptr(), bytes.len()) })
        ))
    }

    /// Content loaders are a wasm-only feature: a native library cannot provide one.
    fn load_content(
        &mut self,
        _plugin: &LoadedPlugin,
        id: &str,
        _text: &str,
    ) -> Result<Option<Vec<u8>>, CallError> {
        Err(CallError::misuse(format!(
            "`{id}`: content loaders are only supported in wasm plugins; build the plugin without `--native`"
        )))
    }
}
