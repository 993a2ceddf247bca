//! The wasm side of the host ABI: the linker that exposes [`HostState`]'s imports to a
//! module (reading and writing guest memory), and the store's resource limiter. The
//! imports' logic itself is in `host`, shared with native extensions.

use tessera_plugin_api::abi;
use wasmtime::{Caller, Extern, Linker, ResourceLimiter, StoreLimits};

use super::host::{HostState, RequestKind};

/// The store's resource limiter: the operator's limits, remembering a refused memory grow
/// so that the fault which usually follows (a Rust plugin aborts on out-of-memory) can
/// say why, instead of only "trapped".
pub(crate) struct Limiter {
    pub limits: StoreLimits,
    /// The memory limit, bytes (for the message).
    pub memory_bytes: usize,
    /// The size (bytes) of the last memory grow refused since the call began.
    pub refused_memory: Option<usize>,
}

impl ResourceLimiter for Limiter {
    fn memory_growing(
        &mut self,
        current: usize,
        desired: usize,
        maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        let allowed = self.limits.memory_growing(current, desired, maximum)?;
        if !allowed {
            self.refused_memory = Some(desired);
        }
        Ok(allowed)
    }

    fn table_growing(
        &mut self,
        current: usize,
        desired: usize,
        maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        self.limits.table_growing(current, desired, maximum)
    }

    fn instances(&self) -> usize {
        self.limits.instances()
    }

    fn tables(&self) -> usize {
        self.limits.tables()
    }

    fn memories(&self) -> usize {
        self.limits.memories()
    }
}

pub(super) fn read_bytes(
    caller: &mut Caller<'_, HostState>,
    ptr: i32,
    len: i32,
) -> Option<Vec<u8>> {
    let mem = match caller.get_export("memory") {
        Some(Extern::Memory(m)) => m,
        _ => return None,
    };
    let (ptr, len) = (usize::try_from(ptr).ok()?, usize::try_from(len).ok()?);
    mem.data(&caller)
        .get(ptr..ptr.checked_add(len)?)
        .map(<[u8]>::to_vec)
}

fn write_i64s(caller: &mut Caller<'_, HostState>, ptr: i32, values: &[i64]) -> bool {
    let Some(Extern::Memory(mem)) = caller.get_export("memory") else {
        return false;
    };
    let Ok(ptr) = usize::try_from(ptr) else {
        return false;
    };
    let data = mem.data_mut(caller);
    let Some(end) = ptr.checked_add(values.len() * 8) else {
        return false;
    };
    let Some(dst) = data.get_mut(ptr..end) else {
        return false;
    };
    for (chunk, v) in dst.chunks_exact_mut(8).zip(values) {
        chunk.copy_from_slice(&v.to_le_bytes());
    }
    true
}

fn read_i64s(caller: &mut Caller<'_, HostState>, ptr: i32, n: i32) -> Option<Vec<i64>> {
    let bytes = read_bytes(caller, ptr, n.checked_mul(8)?)?;
    Some(
        bytes
            .chunks_exact(8)
            .map(|c| i64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
            .collect(),
    )
}

/// The capabilities a plugin may import, and the imports every plugin may use.
pub(crate) const CAPABILITY_IMPORTS: &[(&str, &str)] = &[("random", "random"), ("log", "log")];

/// A host function's view of its store.
type C<'a> = Caller<'a, HostState>;

/// Builds the linker: the ABI imports, plus the granted capabilities.
pub(crate) fn linker(
    engine: &wasmtime::Engine,
    granted: &[String],
) -> wasmtime::Result<Linker<HostState>> {
    let mut l: Linker<HostState> = Linker::new(engine);
    link_reads(&mut l)?;
    link_writes(&mut l)?;
    link_requests(&mut l)?;
    link_capabilities(&mut l, granted)?;
    super::loading::link(&mut l)?;
    Ok(l)
}

/// Object, context and pipeline reads, and `intern`, `push`, `query`, `eval`.
fn link_reads(l: &mut Linker<HostState>) -> wasmtime::Result<()> {
    let m = abi::IMPORT_MODULE;
    l.func_wrap(m, "intern", |mut c: C<'_>, ptr: i32, len: i32| -> i32 {
        let bytes = read_bytes(&mut c, ptr, len);
        c.data_mut().intern(bytes.as_deref())
    })?;
    l.func_wrap(m, "ctx", |c: C<'_>, which: i32| c.data().ctx(which))?;
    l.func_wrap(m, "event_amount", |c: C<'_>| c.data().event_amount())?;
    l.func_wrap(m, "exists", |c: C<'_>, o: i64| c.data().exists(o))?;
    l.func_wrap(m, "get_int", |c: C<'_>, o: i64, k: i32| {
        c.data().get_int(o, k)
    })?;
    l.func_wrap(m, "get_float", |c: C<'_>, o: i64, k: i32| {
        c.data().get_float(o, k)
    })?;
    l.func_wrap(m, "has_prop", |c: C<'_>, o: i64, k: i32| {
        c.data().has_prop(o, k)
    })?;
    l.func_wrap(m, "has_tag", |c: C<'_>, o: i64, t: i32| {
        c.data().has_tag(o, t)
    })?;
    for (name, class) in [("zone", false), ("class", true)] {
        l.func_wrap(m, name, move |mut c: C<'_>, o: i64| {
            c.data_mut().zone_or_class(o, class)
        })?;
    }
    for (name, parent) in [("owner", false), ("parent", true)] {
        l.func_wrap(m, name, move |c: C<'_>, o: i64| {
            c.data().owner_or_parent(o, parent)
        })?;
    }
    l.func_wrap(m, "push", |mut c: C<'_>, o: i64| c.data_mut().push(o))?;
    l.func_wrap(
        m,
        "query",
        |mut c: C<'_>, h: i32, out: i32, cap: i32| -> i32 {
            match c.data_mut().query(h) {
                Ok(packed) => {
                    let n = usize::try_from(cap.max(0)).unwrap_or(0).min(packed.len());
                    if !write_i64s(&mut c, out, &packed[..n]) {
                        return c
                            .data_mut()
                            .fail("query: output buffer is outside memory", -1);
                    }
                    i32::try_from(packed.len()).unwrap_or(i32::MAX)
                }
                Err(status) => status,
            }
        },
    )?;
    l.func_wrap(m, "eval", |mut c: C<'_>, h: i32| c.data_mut().eval(h))?;
    l.func_wrap(m, "pipeline_get", |c: C<'_>, k: i32| {
        c.data().pipeline_get(k)
    })?;
    l.func_wrap(m, "pipeline_set", |mut c: C<'_>, k: i32, v: f64| {
        c.data_mut().pipeline_set(k, v)
    })?;
    Ok(())
}

/// Writes: the host refuses them outside a writable environment.
fn link_writes(l: &mut Linker<HostState>) -> wasmtime::Result<()> {
    let m = abi::IMPORT_MODULE;
    l.func_wrap(m, "set_int", |mut c: C<'_>, o: i64, k: i32, v: i64| {
        c.data_mut().set_int(o, k, v)
    })?;
    l.func_wrap(m, "set_float", |mut c: C<'_>, o: i64, k: i32, v: f64| {
        c.data_mut().set_float(o, k, v)
    })?;
    l.func_wrap(m, "add_int", |mut c: C<'_>, o: i64, k: i32, d: i64| {
        c.data_mut().add_int(o, k, d)
    })?;
    for (name, add) in [("add_tag", true), ("remove_tag", false)] {
        l.func_wrap(m, name, move |mut c: C<'_>, o: i64, t: i32| {
            c.data_mut().tag(o, t, add)
        })?;
    }
    l.func_wrap(m, "emit", |mut c: C<'_>, e: i32, t: i64, a: i64| {
        c.data_mut().emit(e, t, a)
    })?;
    l.func_wrap(m, "run_action", |mut c: C<'_>, h: i32, ptr: i32, n: i32| {
        let targets = read_i64s(&mut c, ptr, n);
        c.data_mut().run_action(h, targets)
    })?;
    Ok(())
}

/// Prepare-time requests (selectors, action lists, expressions the host compiles).
fn link_requests(l: &mut Linker<HostState>) -> wasmtime::Result<()> {
    let m = abi::IMPORT_MODULE;
    for (name, kind) in [
        ("prepare_selector", RequestKind::Selector),
        ("prepare_action", RequestKind::Action),
        ("prepare_expr", RequestKind::Expr),
    ] {
        l.func_wrap(m, name, move |mut c: C<'_>, ptr: i32, len: i32| {
            let bytes = read_bytes(&mut c, ptr, len);
            c.data_mut().prepare_request(kind, bytes)
        })?;
    }
    Ok(())
}

/// The capability imports this plugin was granted (`random`, `log`).
fn link_capabilities(l: &mut Linker<HostState>, granted: &[String]) -> wasmtime::Result<()> {
    let m = abi::IMPORT_MODULE;
    if granted.iter().any(|g| g == "random") {
        l.func_wrap(m, "random", |c: C<'_>, lo: i64, hi: i64| {
            c.data().random(lo, hi)
        })?;
    }
    if granted.iter().any(|g| g == "log") {
        l.func_wrap(m, "log", |mut c: C<'_>, level: i32, ptr: i32, len: i32| {
            let bytes = read_bytes(&mut c, ptr, len.min(4096));
            c.data().log(level, bytes.as_deref())
        })?;
    }
    Ok(())
}
