//! The native ABI v1 glue (feature `native`): calls into the host through the
//! [`HostVtable`] given to `tessera_native_v1_init`, and the library's entry points
//! (`__tessera_export_abi!`). The only `unsafe` of a native build. Same API as the wasm
//! `sys`, so `guest` and `rt` do not know which one they run on.
//!
//! Panics: every entry point runs under [`guard`], so a panic (when the library is built
//! with `panic = "unwind"`) becomes the status [`PANICKED`] with the message recorded for
//! `tessera_error`, instead of unwinding into the host (which would abort).

use core::sync::atomic::{AtomicPtr, Ordering};
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::abi::native::{Bytes, HostVtable, PANICKED, VERSION};
use crate::guest::Obj;

/// The host's functions, set once by `tessera_native_v1_init`.
static HOST: AtomicPtr<HostVtable> = AtomicPtr::new(core::ptr::null_mut());

/// `tessera_native_v1_init`: keeps the host's vtable. 0 on success; -1 for a null or
/// too-small table or another version.
pub fn init(host: *const HostVtable) -> i32 {
    if host.is_null() {
        return -1;
    }
    // SAFETY: the ABI says `host` points to a vtable that lives as long as the library is
    // loaded (the host passes a `static`); `size` and `version` are its first fields, read
    // before anything else so an older or newer table is refused, not misread.
    let (size, version) = unsafe { ((*host).size, (*host).version) };
    if size < core::mem::size_of::<HostVtable>() || version != VERSION {
        return -1;
    }
    HOST.store(host.cast_mut(), Ordering::Release);
    0
}

/// The host's vtable.
#[inline]
fn host() -> &'static HostVtable {
    let p = HOST.load(Ordering::Acquire);
    assert!(
        !p.is_null(),
        "the host did not call tessera_native_v1_init before calling the plugin"
    );
    // SAFETY: set by `init` from a vtable that outlives the library (see there).
    unsafe { &*p }
}

/// Runs an entry point; a panic becomes [`PANICKED`] (the panic hook recorded its
/// message for `tessera_error`).
#[inline]
pub fn guard(f: impl FnOnce() -> i32) -> i32 {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or(PANICKED)
}

/// Runs an entry point returning bytes; a panic returns none (the host then asks
/// `tessera_error`).
pub fn guard_bytes(f: impl FnOnce() -> Vec<u8>) -> Bytes {
    catch_unwind(AssertUnwindSafe(f)).map_or(Bytes::NONE, |b| leak_bytes(&b))
}

/// Hands bytes to the host as a [`Bytes`] it frees with `tessera_dealloc`.
pub fn leak_bytes(bytes: &[u8]) -> Bytes {
    if bytes.is_empty() {
        return Bytes::NONE;
    }
    let boxed: Box<[u8]> = bytes.into();
    let len = boxed.len();
    Bytes {
        ptr: Box::into_raw(boxed).cast::<u8>(),
        len,
    }
}

/// `tessera_dealloc`: frees a [`Bytes`] from [`leak_bytes`].
pub fn free_bytes(ptr: *mut u8, len: usize) {
    if ptr.is_null() || len == 0 {
        return;
    }
    // SAFETY: the ABI says the host only frees blocks this library returned, with their
    // length; each is a `Box<[u8]>` of exactly that length (see `leak_bytes`).
    drop(unsafe { Box::from_raw(core::ptr::slice_from_raw_parts_mut(ptr, len)) });
}

/// The `len` bytes the host passed at `ptr` (empty for null).
///
/// The host owns them until the entry point returns and does not touch them meanwhile.
pub fn host_bytes<'a>(ptr: *const u8, len: usize) -> &'a [u8] {
    if ptr.is_null() || len == 0 {
        return &[];
    }
    // SAFETY: see above.
    unsafe { core::slice::from_raw_parts(ptr, len) }
}

/// The `n` object ids the host passed at `ptr` (8-aligned host memory).
pub fn host_objs<'a>(ptr: *const i64, n: usize) -> &'a [Obj] {
    if ptr.is_null() || n == 0 {
        return &[];
    }
    // SAFETY: `Obj` is a transparent i64; the host passes `n` aligned ids it owns and does
    // not touch during the call.
    unsafe { core::slice::from_raw_parts(ptr.cast::<Obj>(), n) }
}

/// The `n` result bytes the host passed at `ptr` for `tessera_condition_batch`.
pub fn host_out<'a>(ptr: *mut u8, n: usize) -> &'a mut [u8] {
    if ptr.is_null() || n == 0 {
        return &mut [];
    }
    // SAFETY: the host passes `n` writable bytes, not aliasing the ids, that nothing else
    // uses during the call.
    unsafe { core::slice::from_raw_parts_mut(ptr, n) }
}

macro_rules! forward {
    ($( $(#[$m:meta])* fn $name:ident($($a:ident: $t:ty),*) $(-> $r:ty)?; )*) => {$(
        $(#[$m])*
        #[inline]
        pub(crate) fn $name($($a: $t),*) $(-> $r)? {
            (host().$name)($($a),*)
        }
    )*};
}

crate::host_fns::host_functions!(forward);

/// `random(lo, hi)`: the `random` capability (panics if not granted: the host passes a
/// null function then).
pub(crate) fn random(lo: i64, hi: i64) -> i64 {
    match host().random {
        Some(f) => f(lo, hi),
        None => panic!("the `random` capability is not granted to this mod (mod.toml `capabilities` and server.toml `[grants]`)"),
    }
}

/// `intern(ptr, len)` of a name.
#[inline]
pub(crate) fn intern_str(name: &str) -> i32 {
    // SAFETY: the host reads `len` bytes at `ptr`, which `name` owns for the call.
    unsafe { (host().intern)(name.as_ptr(), name.len()) }
}

/// `log(level, ptr, len)`: the `log` capability (panics if not granted).
pub(crate) fn log_str(level: i32, msg: &str) {
    match host().log {
        // SAFETY: as for `intern_str`.
        Some(f) => unsafe { f(level, msg.as_ptr(), msg.len()) },
        None => panic!("the `log` capability is not granted to this mod (mod.toml `capabilities` and server.toml `[grants]`)"),
    }
}

/// Loaders run only in wasm plugins: a native library is never reading a file.
pub(crate) fn load_path() -> Option<String> {
    None
}

/// Loaders run only in wasm plugins (see [`load_path`]).
pub(crate) fn load_read(_path: &str) -> Result<Vec<u8>, i64> {
    Err(-1)
}

pub(crate) use crate::host_fns::PrepareWhat;

/// `prepare_selector`/`prepare_action`/`prepare_expr` of a JSON text.
pub(crate) fn prepare(what: PrepareWhat, json: &str) -> i32 {
    let h = host();
    let f = match what {
        PrepareWhat::Selector => h.prepare_selector,
        PrepareWhat::Action => h.prepare_action,
        PrepareWhat::Expr => h.prepare_expr,
    };
    // SAFETY: as for `intern_str`.
    unsafe { f(json.as_ptr(), json.len()) }
}

/// `query(selector, out, cap)` into the spare capacity of `out`: returns the host's total
/// count (or -1) and appends the ids that fitted.
pub(crate) fn query_into(selector: i32, out: &mut Vec<Obj>) -> i32 {
    let start = out.len();
    let cap = out.capacity() - start;
    // SAFETY: `Obj` is a transparent i64; the host writes at most `cap` ids into the
    // spare capacity of `out`.
    let n = unsafe { (host().query)(selector, out.as_mut_ptr().add(start).cast::<i64>(), cap) };
    if let Ok(written) = usize::try_from(n) {
        // SAFETY: the host initialized `min(n, cap)` ids past `start`.
        unsafe { out.set_len(start + written.min(cap)) };
    }
    n
}

/// `run_action(action, targets, n)`.
pub(crate) fn run_action_on(action: i32, targets: &[Obj]) -> i32 {
    // SAFETY: `Obj` is a transparent i64; the host reads `targets.len()` ids the slice
    // owns for the call.
    unsafe { (host().run_action)(action, targets.as_ptr().cast::<i64>(), targets.len()) }
}

/// The native ABI v1 entry points of a plugin, generated by `export_plugin!`: each
/// converts the raw arguments, runs the runtime in `rt` under [`guard`].
#[doc(hidden)]
#[macro_export]
macro_rules! __tessera_export_abi {
    ($plugin:ident) => {
        #[allow(unsafe_code)]
        const _: () = {
            use $crate::__rt as rt;
            use $crate::abi::native::{Bytes, HostVtable};
            #[unsafe(no_mangle)]
            pub extern "C" fn tessera_native_abi_v1() {}
            #[unsafe(no_mangle)]
            pub extern "C" fn tessera_native_v1_init(host: *const HostVtable) -> i32 {
                rt::sys::init(host)
            }
            #[unsafe(no_mangle)]
            pub extern "C" fn tessera_dealloc(ptr: *mut u8, len: usize) {
                rt::sys::free_bytes(ptr, len)
            }
            #[unsafe(no_mangle)]
            pub extern "C" fn tessera_describe() -> Bytes {
                rt::sys::guard_bytes(|| rt::describe(&$plugin))
            }
            #[unsafe(no_mangle)]
            pub extern "C" fn tessera_prepare(
                kind: i32,
                id: *const u8,
                id_len: usize,
                params: *const u8,
                params_len: usize,
            ) -> i32 {
                rt::sys::guard(|| {
                    rt::prepare(
                        &$plugin,
                        kind,
                        rt::sys::host_bytes(id, id_len),
                        rt::sys::host_bytes(params, params_len),
                    )
                })
            }
            #[unsafe(no_mangle)]
            pub extern "C" fn tessera_error() -> Bytes {
                rt::sys::guard_bytes(rt::error)
            }
            #[unsafe(no_mangle)]
            pub extern "C" fn tessera_condition(handle: i32, obj: i64) -> i32 {
                rt::sys::guard(|| rt::condition(handle, obj))
            }
            #[unsafe(no_mangle)]
            pub extern "C" fn tessera_condition_batch(
                handle: i32,
                objs: *const i64,
                n: usize,
                out: *mut u8,
            ) -> i32 {
                rt::sys::guard(|| {
                    let ids = rt::sys::host_objs(objs, n);
                    let out = rt::sys::host_out(out, n);
                    rt::condition_batch(
                        handle,
                        ids.len().min(out.len()),
                        |i| ids[i].raw(),
                        |i, v| out[i] = v,
                    )
                })
            }
            #[unsafe(no_mangle)]
            pub extern "C" fn tessera_select(handle: i32) -> i32 {
                rt::sys::guard(|| rt::select(handle))
            }
            #[unsafe(no_mangle)]
            pub extern "C" fn tessera_action(handle: i32, targets: *const i64, n: usize) -> i32 {
                rt::sys::guard(|| rt::action(handle, rt::sys::host_objs(targets, n)))
            }
            #[unsafe(no_mangle)]
            pub extern "C" fn tessera_node(handle: i32) -> i32 {
                rt::sys::guard(|| rt::node(handle))
            }
        };
    };
}

/// The optional native state entry points, generated by `export_plugin!` when given
/// `save_state`/`load_state`.
#[doc(hidden)]
#[macro_export]
macro_rules! __tessera_export_state {
    ($save:path, $load:path) => {
        #[allow(unsafe_code)]
        const _: () = {
            use $crate::__rt as rt;
            #[unsafe(no_mangle)]
            pub extern "C" fn tessera_save_state() -> $crate::abi::native::Bytes {
                rt::sys::guard_bytes(|| rt::save_state($save))
            }
            #[unsafe(no_mangle)]
            pub extern "C" fn tessera_load_state(ptr: *const u8, len: usize) -> i32 {
                rt::sys::guard(|| rt::load_state($load, rt::sys::host_bytes(ptr, len)))
            }
        };
    };
}
