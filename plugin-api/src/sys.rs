//! The raw ABI v1 imports (module `tessera`) and guest-memory access: the only `unsafe`
//! in the SDK. Everything here is a thin, safe-to-call wrapper; the typed API lives in
//! `guest` and `rt`.
//!
//! Imports are only emitted into the module when something references them, so a plugin
//! that never calls [`random`] does not import `random` (and so needs no grant for it).
//! The SDK's own code never calls the capability imports.

use core::alloc::Layout;

use crate::guest::Obj;

/// Declares the plain-integer imports of `host_functions!` in one extern block.
macro_rules! imports {
    ($( $(#[$m:meta])* fn $name:ident($($a:ident: $t:ty),*) $(-> $r:ty)?; )*) => {
        #[link(wasm_import_module = "tessera")]
        unsafe extern "C" {
            $( $(#[$m])* pub(super) fn $name($($a: $t),*) $(-> $r)?; )*
        }
    };
}

/// The raw imports. Symbol names are mangled by rustc for a non-`env` import module, so
/// `log` here cannot collide with libm's `log`.
mod ffi {
    crate::host_fns::host_functions!(imports);

    #[link(wasm_import_module = "tessera")]
    unsafe extern "C" {
        pub(super) fn intern(ptr: i32, len: i32) -> i32;
        pub(super) fn query(selector: i32, out_ptr: i32, cap: i32) -> i32;
        pub(super) fn run_action(action: i32, targets_ptr: i32, n: i32) -> i32;
        pub(super) fn prepare_selector(json_ptr: i32, len: i32) -> i32;
        pub(super) fn prepare_action(json_ptr: i32, len: i32) -> i32;
        pub(super) fn prepare_expr(json_ptr: i32, len: i32) -> i32;
        pub(super) fn random(lo: i64, hi: i64) -> i64;
        pub(super) fn log(level: i32, ptr: i32, len: i32);
        pub(super) fn load_path(out_ptr: i32, cap: i32) -> i32;
        pub(super) fn load_read(path_ptr: i32, path_len: i32, out_ptr: i32, cap: i32) -> i64;
    }
}

/// A guest address as the ABI's `i32` (wasm32 addresses are 32 bits; the bits are kept).
fn addr<T>(p: *const T) -> i32 {
    p as usize as u32 as i32
}

/// A length as the ABI's `i32`. Lengths past `i32::MAX` cannot exist in a wasm32 memory
/// the host caps far lower; they saturate rather than wrap.
fn len32(n: usize) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

macro_rules! safe {
    ($( $(#[$m:meta])* fn $name:ident($($a:ident: $t:ty),*) $(-> $r:ty)?; )*) => {$(
        $(#[$m])*
        #[inline]
        pub(crate) fn $name($($a: $t),*) $(-> $r)? {
            // SAFETY: a host import taking and returning plain integers; the host
            // validates every argument.
            unsafe { self::ffi::$name($($a),*) }
        }
    )*};
}

crate::host_fns::host_functions!(safe);

safe! {
    /// `random(lo, hi)`: the `random` capability.
    fn random(lo: i64, hi: i64) -> i64;
}

/// `intern(ptr, len)` of a name.
#[inline]
pub(crate) fn intern_str(name: &str) -> i32 {
    // SAFETY: the host reads `len` bytes at `ptr`, which `name` owns for the call.
    unsafe { ffi::intern(addr(name.as_ptr()), len32(name.len())) }
}

/// `log(level, ptr, len)`: the `log` capability.
pub(crate) fn log_str(level: i32, msg: &str) {
    // SAFETY: as for `intern_str`.
    unsafe { ffi::log(level, addr(msg.as_ptr()), len32(msg.len())) }
}

/// `load_path(out, cap)`: the path of the file the running loader reads.
pub(crate) fn load_path() -> Option<String> {
    let mut buf: Vec<u8> = Vec::with_capacity(256);
    loop {
        // SAFETY: the host writes at most `cap` bytes into the spare capacity of `buf`.
        let n = unsafe { ffi::load_path(addr(buf.as_mut_ptr()), len32(buf.capacity())) };
        let n = usize::try_from(n).ok()?;
        if n <= buf.capacity() {
            // SAFETY: the host initialized `n` bytes.
            unsafe { buf.set_len(n) };
            return String::from_utf8(buf).ok();
        }
        buf.reserve_exact(n);
    }
}

/// `load_read(path, out, cap)`: the bytes of a file of the running loader's mod, or the
/// host's status (-1 unreadable, -2 outside what the mod may read).
pub(crate) fn load_read(path: &str) -> Result<Vec<u8>, i64> {
    let mut buf: Vec<u8> = Vec::with_capacity(64 << 10);
    loop {
        // SAFETY: the host reads `path` (owned for the call) and writes at most `cap`
        // bytes into the spare capacity of `buf`.
        let n = unsafe {
            ffi::load_read(
                addr(path.as_ptr()),
                len32(path.len()),
                addr(buf.as_mut_ptr()),
                len32(buf.capacity()),
            )
        };
        let n = usize::try_from(n).map_err(|_| n)?;
        if n <= buf.capacity() {
            // SAFETY: the host initialized `n` bytes.
            unsafe { buf.set_len(n) };
            return Ok(buf);
        }
        buf.reserve_exact(n);
    }
}

pub(crate) use crate::host_fns::PrepareWhat;

/// `prepare_selector`/`prepare_action`/`prepare_expr` of a JSON text.
pub(crate) fn prepare(what: PrepareWhat, json: &str) -> i32 {
    let (p, n) = (addr(json.as_ptr()), len32(json.len()));
    // SAFETY: as for `intern_str`.
    unsafe {
        match what {
            PrepareWhat::Selector => ffi::prepare_selector(p, n),
            PrepareWhat::Action => ffi::prepare_action(p, n),
            PrepareWhat::Expr => ffi::prepare_expr(p, n),
        }
    }
}

/// `query(selector, out, cap)` into the spare capacity of `out`: returns the host's total
/// count (or -1) and appends the ids that fitted.
pub(crate) fn query_into(selector: i32, out: &mut Vec<Obj>) -> i32 {
    let start = out.len();
    let cap = out.capacity() - start;
    // SAFETY: `Obj` is a transparent i64; the host writes at most `cap` ids into the
    // spare capacity of `out`.
    let n = unsafe { ffi::query(selector, addr(out.as_mut_ptr().add(start)), len32(cap)) };
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
    unsafe { ffi::run_action(action, addr(targets.as_ptr()), len32(targets.len())) }
}

/// The layout of every block crossing the ABI: `size` bytes, 8-aligned.
fn layout(size: usize) -> Option<Layout> {
    Layout::from_size_align(size, 8).ok()
}

/// Where a zero-size block "is": aligned, never dereferenced, never freed.
const EMPTY: usize = 8;

/// `tessera_alloc`: a block of `size` bytes (8-aligned), 0 when out of memory.
pub fn alloc(size: i32) -> i32 {
    let Ok(size) = usize::try_from(size) else {
        return 0;
    };
    if size == 0 {
        return addr(EMPTY as *const u8);
    }
    match layout(size) {
        // SAFETY: the layout has a non-zero size.
        Some(l) => addr(unsafe { std::alloc::alloc(l) }),
        None => 0,
    }
}

/// `tessera_dealloc`: frees a block from [`alloc`] or [`leak_bytes`].
pub fn dealloc(ptr: i32, size: i32) {
    let Ok(size) = usize::try_from(size) else {
        return;
    };
    if size == 0 || ptr == 0 {
        return;
    }
    if let Some(l) = layout(size) {
        // SAFETY: the ABI says the host only frees blocks we handed out, with their size,
        // and every block is allocated with `layout(size)`.
        unsafe { std::alloc::dealloc(ptr as u32 as usize as *mut u8, l) }
    }
}

/// Copies `bytes` into a fresh block the host will free, as a `packed` range
/// (0 for an empty or unallocatable result).
pub fn leak_bytes(bytes: &[u8]) -> i64 {
    let Some(l) = layout(bytes.len()).filter(|_| !bytes.is_empty()) else {
        return 0;
    };
    // SAFETY: non-zero size; the copy stays within the new block.
    unsafe {
        let p = std::alloc::alloc(l);
        if p.is_null() {
            return 0;
        }
        core::ptr::copy_nonoverlapping(bytes.as_ptr(), p, bytes.len());
        crate::abi::pack_range(p as usize as u32, bytes.len() as u32)
    }
}

/// The `len` bytes the host wrote at `ptr` (empty for `len <= 0`).
///
/// The host owns the block until after the export returns, and does not touch it during
/// the call, so borrowing it for the call is sound.
pub fn host_bytes<'a>(ptr: i32, len: i32) -> &'a [u8] {
    match usize::try_from(len) {
        Ok(n) if n > 0 && ptr != 0 => {
            // SAFETY: see above; `ptr..ptr+len` is a block from `tessera_alloc`.
            unsafe { core::slice::from_raw_parts(ptr as u32 as usize as *const u8, n) }
        }
        _ => &[],
    }
}

/// The `n` object ids the host wrote at `ptr`, borrowed in place when aligned (the
/// usual case: the block comes from `tessera_alloc`, 8-aligned), copied otherwise.
pub fn host_objs<'a>(ptr: i32, n: i32) -> std::borrow::Cow<'a, [Obj]> {
    use std::borrow::Cow;
    let Ok(n) = usize::try_from(n) else {
        return Cow::Borrowed(&[]);
    };
    let p = ptr as u32 as usize;
    if n == 0 || p == 0 {
        return Cow::Borrowed(&[]);
    }
    if p % core::mem::align_of::<Obj>() == 0 {
        // SAFETY: aligned; `Obj` is a transparent i64 (any value is valid); `n` ids the
        // host wrote into a block it does not touch during the call.
        Cow::Borrowed(unsafe { core::slice::from_raw_parts(p as *const Obj, n) })
    } else {
        Cow::Owned((0..n).map(|i| Obj(read_id(ptr, i))).collect())
    }
}

/// Writes `out[i]` bytes at `ptr` for `tessera_condition_batch`, one at a time (no
/// reference to host memory is formed, so the input ids may alias it).
pub fn write_byte(ptr: i32, i: usize, value: u8) {
    // SAFETY: the host gave `n` writable bytes at `ptr`; callers keep `i < n`.
    unsafe { core::ptr::write((ptr as u32 as usize as *mut u8).add(i), value) }
}

/// Reads id `i` of `n` at `ptr` without forming a reference (batch input).
pub fn read_id(ptr: i32, i: usize) -> i64 {
    // SAFETY: the host wrote `n` ids at `ptr`; callers keep `i < n`.
    unsafe { core::ptr::read_unaligned((ptr as u32 as usize as *const i64).add(i)) }
}

/// The wasm ABI v1 exports of a plugin, generated by `export_plugin!`: each converts the
/// raw wasm arguments (guest offsets) and calls the runtime in `rt`.
#[doc(hidden)]
#[macro_export]
macro_rules! __tessera_export_abi {
    ($plugin:ident) => {
        #[allow(unsafe_code)]
        const _: () = {
            use $crate::__rt as rt;
            #[unsafe(no_mangle)]
            pub extern "C" fn tessera_abi_v1() {}
            #[unsafe(no_mangle)]
            pub extern "C" fn tessera_alloc(size: i32) -> i32 {
                rt::sys::alloc(size)
            }
            #[unsafe(no_mangle)]
            pub extern "C" fn tessera_dealloc(ptr: i32, size: i32) {
                rt::sys::dealloc(ptr, size)
            }
            #[unsafe(no_mangle)]
            pub extern "C" fn tessera_describe() -> i64 {
                rt::sys::leak_bytes(&rt::describe(&$plugin))
            }
            #[unsafe(no_mangle)]
            pub extern "C" fn tessera_prepare(
                kind: i32,
                id_ptr: i32,
                id_len: i32,
                params_ptr: i32,
                params_len: i32,
            ) -> i32 {
                rt::prepare(
                    &$plugin,
                    kind,
                    rt::sys::host_bytes(id_ptr, id_len),
                    rt::sys::host_bytes(params_ptr, params_len),
                )
            }
            #[unsafe(no_mangle)]
            pub extern "C" fn tessera_error() -> i64 {
                rt::sys::leak_bytes(&rt::error())
            }
            #[unsafe(no_mangle)]
            pub extern "C" fn tessera_condition(handle: i32, obj: i64) -> i32 {
                rt::condition(handle, obj)
            }
            #[unsafe(no_mangle)]
            pub extern "C" fn tessera_condition_batch(
                handle: i32,
                objs_ptr: i32,
                n: i32,
                out_ptr: i32,
            ) -> i32 {
                rt::condition_batch(
                    handle,
                    usize::try_from(n).unwrap_or(0),
                    |i| rt::sys::read_id(objs_ptr, i),
                    |i, v| rt::sys::write_byte(out_ptr, i, v),
                )
            }
            #[unsafe(no_mangle)]
            pub extern "C" fn tessera_select(handle: i32) -> i32 {
                rt::select(handle)
            }
            #[unsafe(no_mangle)]
            pub extern "C" fn tessera_action(handle: i32, targets_ptr: i32, n: i32) -> i32 {
                rt::action(handle, &rt::sys::host_objs(targets_ptr, n))
            }
            #[unsafe(no_mangle)]
            pub extern "C" fn tessera_node(handle: i32) -> i32 {
                rt::node(handle)
            }
            #[unsafe(no_mangle)]
            pub extern "C" fn tessera_load(
                id_ptr: i32,
                id_len: i32,
                text_ptr: i32,
                text_len: i32,
            ) -> i64 {
                rt::sys::leak_bytes(&rt::load(
                    &$plugin,
                    rt::sys::host_bytes(id_ptr, id_len),
                    rt::sys::host_bytes(text_ptr, text_len),
                ))
            }
        };
    };
}

/// The optional wasm state exports, generated by `export_plugin!` when given
/// `save_state`/`load_state`.
#[doc(hidden)]
#[macro_export]
macro_rules! __tessera_export_state {
    ($save:path, $load:path) => {
        #[allow(unsafe_code)]
        const _: () = {
            use $crate::__rt as rt;
            #[unsafe(no_mangle)]
            pub extern "C" fn tessera_save_state() -> i64 {
                rt::sys::leak_bytes(&rt::save_state($save))
            }
            #[unsafe(no_mangle)]
            pub extern "C" fn tessera_load_state(ptr: i32, len: i32) -> i32 {
                rt::load_state($load, rt::sys::host_bytes(ptr, len))
            }
        };
    };
}
