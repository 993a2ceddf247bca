//! The host's function table for native extensions: `extern "C"` functions running the
//! same logic as the wasm imports (`HostState` methods) on the calling instance's state,
//! one `static` table per capability combination (the ABI says the table outlives the
//! library).

use tessera_plugin_api::abi::native::{self, HostVtable};

use super::host::RequestKind;
use super::native::{bytes_at, with};

// The host functions of the vtable: each runs the wasm import's logic on the current
// call's state. They never panic (a panic here would abort: it cannot unwind through C).

unsafe extern "C" fn h_intern(ptr: *const u8, len: usize) -> i32 {
    with(-1, |s| s.intern(bytes_at(ptr, len)))
}
extern "C" fn h_ctx(which: i32) -> i64 {
    with(-1, |s| s.ctx(which))
}
extern "C" fn h_event_amount() -> i64 {
    with(0, |s| s.event_amount())
}
extern "C" fn h_exists(o: i64) -> i32 {
    with(0, |s| s.exists(o))
}
extern "C" fn h_get_int(o: i64, k: i32) -> i64 {
    with(0, |s| s.get_int(o, k))
}
extern "C" fn h_get_float(o: i64, k: i32) -> f64 {
    with(0.0, |s| s.get_float(o, k))
}
extern "C" fn h_has_prop(o: i64, k: i32) -> i32 {
    with(0, |s| s.has_prop(o, k))
}
extern "C" fn h_has_tag(o: i64, t: i32) -> i32 {
    with(0, |s| s.has_tag(o, t))
}
extern "C" fn h_zone(o: i64) -> i32 {
    with(-1, |s| s.zone_or_class(o, false))
}
extern "C" fn h_class(o: i64) -> i32 {
    with(-1, |s| s.zone_or_class(o, true))
}
extern "C" fn h_owner(o: i64) -> i64 {
    with(-1, |s| s.owner_or_parent(o, false))
}
extern "C" fn h_parent(o: i64) -> i64 {
    with(-1, |s| s.owner_or_parent(o, true))
}
unsafe extern "C" fn h_query(h: i32, out: *mut i64, cap: usize) -> i32 {
    with(-1, |s| match s.query(h) {
        Ok(ids) => {
            let n = cap.min(ids.len());
            if n > 0 {
                if out.is_null() {
                    return s.fail("query: null output buffer", -1);
                }
                // SAFETY: the library passes `cap` writable ids at `out` (ABI); `n <= cap`.
                unsafe { std::ptr::copy_nonoverlapping(ids.as_ptr(), out, n) };
            }
            i32::try_from(ids.len()).unwrap_or(i32::MAX)
        }
        Err(status) => status,
    })
}
extern "C" fn h_eval(h: i32) -> f64 {
    with(0.0, |s| s.eval(h))
}
extern "C" fn h_push(o: i64) {
    with((), |s| s.push(o))
}
extern "C" fn h_pipeline_get(k: i32) -> f64 {
    with(0.0, |s| s.pipeline_get(k))
}
extern "C" fn h_pipeline_set(k: i32, v: f64) {
    with((), |s| s.pipeline_set(k, v))
}
extern "C" fn h_set_int(o: i64, k: i32, v: i64) -> i32 {
    with(-1, |s| s.set_int(o, k, v))
}
extern "C" fn h_set_float(o: i64, k: i32, v: f64) -> i32 {
    with(-1, |s| s.set_float(o, k, v))
}
extern "C" fn h_add_int(o: i64, k: i32, d: i64) -> i64 {
    with(0, |s| s.add_int(o, k, d))
}
extern "C" fn h_add_tag(o: i64, t: i32) -> i32 {
    with(-1, |s| s.tag(o, t, true))
}
extern "C" fn h_remove_tag(o: i64, t: i32) -> i32 {
    with(-1, |s| s.tag(o, t, false))
}
unsafe extern "C" fn h_run_action(h: i32, targets: *const i64, n: usize) -> i32 {
    let targets = if n == 0 {
        Some(Vec::new())
    } else if targets.is_null() {
        None
    } else {
        // SAFETY: the library passes `n` readable ids at `targets` (ABI).
        Some(unsafe { std::slice::from_raw_parts(targets, n) }.to_vec())
    };
    with(-1, |s| s.run_action(h, targets))
}
extern "C" fn h_emit(e: i32, t: i64, a: i64) -> i32 {
    with(-1, |s| s.emit(e, t, a))
}
unsafe extern "C" fn h_prepare_selector(ptr: *const u8, len: usize) -> i32 {
    with(-1, |s| {
        s.prepare_request(
            RequestKind::Selector,
            bytes_at(ptr, len).map(<[u8]>::to_vec),
        )
    })
}
unsafe extern "C" fn h_prepare_action(ptr: *const u8, len: usize) -> i32 {
    with(-1, |s| {
        s.prepare_request(RequestKind::Action, bytes_at(ptr, len).map(<[u8]>::to_vec))
    })
}
unsafe extern "C" fn h_prepare_expr(ptr: *const u8, len: usize) -> i32 {
    with(-1, |s| {
        s.prepare_request(RequestKind::Expr, bytes_at(ptr, len).map(<[u8]>::to_vec))
    })
}
extern "C" fn h_random(lo: i64, hi: i64) -> i64 {
    with(lo, |s| s.random(lo, hi))
}
unsafe extern "C" fn h_log(level: i32, ptr: *const u8, len: usize) {
    with((), |s| s.log(level, bytes_at(ptr, len.min(4096))))
}

const fn table(random: bool, log: bool) -> HostVtable {
    HostVtable {
        size: std::mem::size_of::<HostVtable>(),
        version: native::VERSION,
        intern: h_intern,
        ctx: h_ctx,
        event_amount: h_event_amount,
        exists: h_exists,
        get_int: h_get_int,
        get_float: h_get_float,
        has_prop: h_has_prop,
        has_tag: h_has_tag,
        zone: h_zone,
        class: h_class,
        owner: h_owner,
        parent: h_parent,
        query: h_query,
        eval: h_eval,
        push: h_push,
        pipeline_get: h_pipeline_get,
        pipeline_set: h_pipeline_set,
        set_int: h_set_int,
        add_int: h_add_int,
        add_tag: h_add_tag,
        remove_tag: h_remove_tag,
        run_action: h_run_action,
        emit: h_emit,
        prepare_selector: h_prepare_selector,
        prepare_action: h_prepare_action,
        prepare_expr: h_prepare_expr,
        random: if random { Some(h_random) } else { None },
        log: if log { Some(h_log) } else { None },
        set_float: h_set_float,
    }
}

// One `static` per capability combination: the ABI says the table outlives the library.
static VT_NONE: HostVtable = table(false, false);
static VT_RANDOM: HostVtable = table(true, false);
static VT_LOG: HostVtable = table(false, true);
static VT_BOTH: HostVtable = table(true, true);

/// The host's table with the granted capabilities (null functions otherwise).
pub(super) fn vtable(random: bool, log: bool) -> &'static HostVtable {
    match (random, log) {
        (false, false) => &VT_NONE,
        (true, false) => &VT_RANDOM,
        (false, true) => &VT_LOG,
        (true, true) => &VT_BOTH,
    }
}
