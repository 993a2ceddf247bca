//! One plugin instance: for wasm, its store, its exports, and calls into it under fuel
//! and an epoch deadline, with traps turned into faults (the wasm [`Transport`]); for a
//! native library, see native.rs. [`PluginInstance`] is either, and runs every call
//! through the one protocol driver (driver.rs).

use std::time::Duration;

use tessera_plugin_api::abi::{self, exports, Kind};
use wasmtime::{Memory, Store, StoreLimitsBuilder, Trap, TypedFunc};

use super::driver::{CallError, Driver, Raw, Transport};
use super::host::{CallEnv, HostRequest, HostState};
use super::linker::Limiter;
#[cfg(feature = "native-plugins")]
use super::native::NativeInstance;
use super::{engine, LoadedPlugin, PluginCode};
use crate::rules::PluginFaultKind;

/// An instance of a wasm plugin (one per world).
pub(crate) struct WasmInstance {
    store: Store<HostState>,
    memory: Memory,
    alloc: TypedFunc<i32, i32>,
    dealloc: TypedFunc<(i32, i32), ()>,
    error: TypedFunc<(), i64>,
    describe: TypedFunc<(), i64>,
    prepare: TypedFunc<(i32, i32, i32, i32, i32), i32>,
    condition: Option<TypedFunc<(i32, i64), i32>>,
    batch: Option<TypedFunc<(i32, i32, i32, i32), i32>>,
    select: Option<TypedFunc<i32, i32>>,
    action: Option<TypedFunc<(i32, i32, i32), i32>>,
    node: Option<TypedFunc<i32, i32>>,
    save: Option<TypedFunc<(), i64>>,
    load: Option<TypedFunc<(i32, i32), i32>>,
    content: Option<TypedFunc<(i32, i32, i32, i32), i64>>,
    /// A guest buffer the host reuses for object lists: (ptr, capacity in bytes).
    scratch: Option<(i32, usize)>,
}

/// What kind of fault a wasmtime error is.
fn trap_kind(e: &wasmtime::Error) -> PluginFaultKind {
    match e.downcast_ref::<Trap>() {
        Some(Trap::OutOfFuel) => PluginFaultKind::OutOfFuel,
        Some(Trap::StackOverflow) => PluginFaultKind::StackOverflow,
        Some(Trap::Interrupt) => PluginFaultKind::Deadline,
        Some(_) => PluginFaultKind::Trap,
        None => PluginFaultKind::AbiMisuse,
    }
}

fn describe_trap(e: &wasmtime::Error) -> String {
    match e.downcast_ref::<Trap>() {
        Some(Trap::OutOfFuel) => {
            "ran out of fuel (an endless loop, or raise `fuel` in server.toml [limits])".into()
        }
        Some(Trap::StackOverflow) => {
            "overflowed its stack (runaway recursion, or raise `stack_kb`)".into()
        }
        Some(Trap::Interrupt) => "hit the wall-clock deadline".into(),
        Some(Trap::UnreachableCodeReached) => "trapped (a panic or an `unreachable`)".into(),
        Some(Trap::MemoryOutOfBounds) => "accessed memory out of bounds".into(),
        Some(t) => format!("trapped: {t}"),
        None => format!("failed: {e:#}"),
    }
}

impl WasmInstance {
    /// Instantiates the plugin (no prepares run yet).
    pub fn new(
        plugin: &LoadedPlugin,
        engine: &wasmtime::Engine,
        pre: &wasmtime::InstancePre<HostState>,
    ) -> Result<WasmInstance, CallError> {
        let limits = StoreLimitsBuilder::new()
            .memory_size(plugin.limits.memory_bytes)
            .table_elements(plugin.limits.table_elements)
            .instances(1)
            .build();
        let limits = Limiter {
            limits,
            memory_bytes: plugin.limits.memory_bytes,
            refused_memory: None,
        };
        let mut store = Store::new(engine, HostState::new(plugin.shared.clone(), limits));
        store.limiter(|s| &mut s.limits);
        store
            .set_fuel(plugin.limits.fuel)
            .map_err(|e| CallError::Fault(PluginFaultKind::Trap, e.to_string()))?;
        store.set_epoch_deadline(ticks(plugin.limits.deadline));
        let instance = pre.instantiate(&mut store).map_err(|e| {
            CallError::Fault(
                trap_kind(&e),
                format!("could not be instantiated: {}", describe_trap(&e)),
            )
        })?;
        let memory = instance
            .get_memory(&mut store, "memory")
            .ok_or_else(|| CallError::broken("does not export its `memory`"))?;
        macro_rules! required {
            ($name:expr) => {
                instance
                    .get_typed_func(&mut store, $name)
                    .map_err(|e| CallError::broken(format!("export `{}`: {e}", $name)))?
            };
        }
        macro_rules! optional {
            ($name:expr) => {
                match instance.get_export(&mut store, $name) {
                    None => None,
                    Some(_) => Some(required!($name)),
                }
            };
        }
        Ok(WasmInstance {
            alloc: required!(exports::ALLOC),
            dealloc: required!(exports::DEALLOC),
            error: required!(exports::ERROR),
            describe: required!(exports::DESCRIBE),
            prepare: required!(exports::PREPARE),
            condition: optional!(exports::CONDITION),
            batch: optional!(exports::CONDITION_BATCH),
            select: optional!(exports::SELECT),
            action: optional!(exports::ACTION),
            node: optional!(exports::NODE),
            save: optional!(exports::SAVE_STATE),
            load: optional!(exports::LOAD_STATE),
            content: optional!(exports::LOAD),
            store,
            memory,
            scratch: None,
        })
    }

    /// Runs `f` with the call environment set, fuel refilled and the deadline armed.
    fn call<R>(
        &mut self,
        plugin: &LoadedPlugin,
        env: Option<CallEnv>,
        f: impl FnOnce(&mut Self) -> wasmtime::Result<R>,
    ) -> Result<R, CallError> {
        self.store.data_mut().env = env;
        self.store.data_mut().host_error = None;
        self.store.data_mut().must_fail = None;
        self.store.data_mut().limits.refused_memory = None;
        let armed = self.store.set_fuel(plugin.limits.fuel);
        self.store.set_epoch_deadline(ticks(plugin.limits.deadline));
        let result = armed.and_then(|()| f(self));
        self.store.data_mut().env = None;
        result.map_err(|e| {
            let mut msg = describe_trap(&e);
            let mut kind = trap_kind(&e);
            if let Some(h) = self.store.data_mut().host_error.take() {
                msg = format!("{msg} ({h})");
            } else if matches!(e.downcast_ref::<Trap>(), Some(Trap::UnreachableCodeReached)) {
                if let Some(panic) = self.last_error(plugin) {
                    msg = format!("panicked: {panic}");
                    kind = PluginFaultKind::Panicked;
                }
            }
            let limiter = &self.store.data().limits;
            if let Some(desired) = limiter.refused_memory {
                kind = PluginFaultKind::MemoryLimit;
                msg = format!(
                    "{msg}, after its memory hit the memory limit of {} MiB (growing to {} MiB was refused; raise `memory_mb` in server.toml [limits.{}])",
                    limiter.memory_bytes >> 20,
                    desired.div_ceil(1 << 20),
                    plugin.mod_id
                );
            }
            CallError::Fault(kind, msg)
        })
    }

    /// The guest's `tessera_error` message. If `tessera_error` itself traps or runs out
    /// of fuel, that is said instead of "no message".
    fn last_error(&mut self, plugin: &LoadedPlugin) -> Option<String> {
        let _ = self.store.set_fuel(plugin.limits.fuel.min(1_000_000));
        let packed = match self.error.call(&mut self.store, ()) {
            Ok(p) => p,
            Err(e) => {
                return Some(format!(
                    "(its `tessera_error` failed too: {})",
                    describe_trap(&e)
                ))
            }
        };
        let bytes = match self.take_packed(packed) {
            Ok(b) => b?,
            Err(e) => return Some(format!("(its `tessera_error` reply was unusable: {e})")),
        };
        Some(String::from_utf8_lossy(&bytes).into_owned())
    }

    /// Copies a `packed` guest range out and frees it.
    fn take_packed(&mut self, packed: i64) -> wasmtime::Result<Option<Vec<u8>>> {
        let Some((ptr, len)) = abi::unpack_range(packed) else {
            return Ok(None);
        };
        let (p, l) = (ptr as usize, len as usize);
        let bytes = self
            .memory
            .data(&self.store)
            .get(p..p.saturating_add(l))
            .map(<[u8]>::to_vec)
            .ok_or_else(|| wasmtime::Error::msg("returned a range outside its memory"))?;
        self.dealloc
            .call(&mut self.store, (ptr as i32, len as i32))?;
        Ok(Some(bytes))
    }

    /// Allocates guest memory and copies `bytes` in.
    fn put(&mut self, bytes: &[u8]) -> wasmtime::Result<(i32, i32)> {
        let len = i32::try_from(bytes.len()).map_err(|_| wasmtime::Error::msg("too large"))?;
        let ptr = self.alloc.call(&mut self.store, len.max(1))?;
        if ptr == 0 {
            return Err(wasmtime::Error::msg(
                "tessera_alloc returned 0 (out of memory)",
            ));
        }
        self.memory.write(&mut self.store, ptr as usize, bytes)?;
        Ok((ptr, len))
    }

    /// A scratch buffer of at least `bytes`.
    fn scratch(&mut self, bytes: usize) -> wasmtime::Result<i32> {
        if let Some((ptr, cap)) = self.scratch {
            if cap >= bytes {
                return Ok(ptr);
            }
            self.dealloc.call(&mut self.store, (ptr, cap as i32))?;
            self.scratch = None;
        }
        let cap = bytes.next_power_of_two().max(1024);
        let ptr = self
            .alloc
            .call(&mut self.store, i32::try_from(cap).unwrap_or(i32::MAX))?;
        if ptr == 0 {
            return Err(wasmtime::Error::msg(
                "tessera_alloc returned 0 (out of memory)",
            ));
        }
        self.scratch = Some((ptr, cap));
        Ok(ptr)
    }
}

/// The wasm transport: arguments copied into the guest's memory, results out of it,
/// each call under fuel and the epoch deadline.
impl Transport for WasmInstance {
    fn state(&mut self) -> &mut HostState {
        self.store.data_mut()
    }

    fn panicked(&self, _status: i32) -> bool {
        // A wasm guest's panic traps (`unreachable`); `call` reports it.
        false
    }

    fn last_error(&mut self, plugin: &LoadedPlugin) -> Option<String> {
        WasmInstance::last_error(self, plugin)
    }

    fn describe(&mut self, plugin: &LoadedPlugin) -> Result<Option<Vec<u8>>, CallError> {
        self.call(plugin, None, |me| {
            let packed = me.describe.call(&mut me.store, ())?;
            me.take_packed(packed)
        })
    }

    fn prepare(
        &mut self,
        plugin: &LoadedPlugin,
        kind: Kind,
        id: &str,
        params: &str,
    ) -> Result<i32, CallError> {
        self.call(plugin, None, |me| {
            let (ip, il) = me.put(id.as_bytes())?;
            let (pp, pl) = me.put(params.as_bytes())?;
            let h = me
                .prepare
                .call(&mut me.store, (kind.code(), ip, il, pp, pl))?;
            me.dealloc.call(&mut me.store, (ip, il.max(1)))?;
            me.dealloc.call(&mut me.store, (pp, pl.max(1)))?;
            Ok(h)
        })
    }

    fn condition(
        &mut self,
        plugin: &LoadedPlugin,
        env: CallEnv,
        handle: i32,
        obj: i64,
    ) -> Raw<i32> {
        // Taken out and put back, not cloned: a typed function's clone copies its
        // registered type (a measurable share of a hot-path call).
        let f = self.condition.take()?;
        let r = self.call(plugin, Some(env), |me| f.call(&mut me.store, (handle, obj)));
        self.condition = Some(f);
        Some(r)
    }

    fn condition_batch(
        &mut self,
        plugin: &LoadedPlugin,
        env: CallEnv,
        handle: i32,
        objs: &[i64],
        flags: &mut Vec<u8>,
    ) -> Raw<i32> {
        let f = self.batch.take()?;
        let n = objs.len();
        let r = self.call(plugin, Some(env), |me| {
            let base = me.scratch(n * 9)?;
            let mut bytes = Vec::with_capacity(n * 8);
            for o in objs {
                bytes.extend_from_slice(&o.to_le_bytes());
            }
            me.memory.write(&mut me.store, base as usize, &bytes)?;
            let out_ptr = base + i32::try_from(n * 8).unwrap_or(i32::MAX);
            let status = f.call(
                &mut me.store,
                (handle, base, i32::try_from(n).unwrap_or(i32::MAX), out_ptr),
            )?;
            flags.resize(n, 0);
            me.memory.read(&me.store, out_ptr as usize, flags)?;
            Ok(status)
        });
        self.batch = Some(f);
        Some(r)
    }

    fn select(&mut self, plugin: &LoadedPlugin, env: CallEnv, handle: i32) -> Raw<i32> {
        let f = self.select.clone()?;
        Some(self.call(plugin, Some(env), |me| f.call(&mut me.store, handle)))
    }

    fn action(
        &mut self,
        plugin: &LoadedPlugin,
        env: CallEnv,
        handle: i32,
        targets: &[i64],
    ) -> Raw<i32> {
        let f = self.action.clone()?;
        Some(self.call(plugin, Some(env), |me| {
            let base = me.scratch(targets.len() * 8)?;
            let bytes: Vec<u8> = targets.iter().flat_map(|t| t.to_le_bytes()).collect();
            me.memory.write(&mut me.store, base as usize, &bytes)?;
            let n = i32::try_from(targets.len()).unwrap_or(i32::MAX);
            f.call(&mut me.store, (handle, base, n))
        }))
    }

    fn node(&mut self, plugin: &LoadedPlugin, env: CallEnv, handle: i32) -> Raw<i32> {
        let f = self.node.clone()?;
        Some(self.call(plugin, Some(env), |me| f.call(&mut me.store, handle)))
    }

    fn save_state(&mut self, plugin: &LoadedPlugin) -> Raw<Option<Vec<u8>>> {
        let f = self.save.clone()?;
        Some(self.call(plugin, None, |me| {
            let packed = f.call(&mut me.store, ())?;
            me.take_packed(packed)
        }))
    }

    fn load_state(&mut self, plugin: &LoadedPlugin, bytes: &[u8]) -> Raw<i32> {
        let f = self.load.clone()?;
        Some(self.call(plugin, None, |me| {
            let (p, l) = me.put(bytes)?;
            let r = f.call(&mut me.store, (p, l))?;
            me.dealloc.call(&mut me.store, (p, l.max(1)))?;
            Ok(r)
        }))
    }

    fn load_content(
        &mut self,
        plugin: &LoadedPlugin,
        id: &str,
        text: &str,
    ) -> Result<Option<Vec<u8>>, CallError> {
        let Some(f) = self.content.clone() else {
            return Err(CallError::misuse(
                "the module exports no `tessera_load` (rebuild it with this SDK)",
            ));
        };
        self.call(plugin, None, |me| {
            let (ip, il) = me.put(id.as_bytes())?;
            let (tp, tl) = me.put(text.as_bytes())?;
            let packed = f.call(&mut me.store, (ip, il, tp, tl))?;
            me.dealloc.call(&mut me.store, (ip, il.max(1)))?;
            me.dealloc.call(&mut me.store, (tp, tl.max(1)))?;
            me.take_packed(packed)
        })
    }
}

fn ticks(deadline: Duration) -> u64 {
    (deadline.as_millis() / engine::EPOCH_TICK.as_millis().max(1)).max(1) as u64 + 1
}

/// A plugin instance of either kind, with the same calls.
pub(crate) enum PluginInstance {
    /// A sandboxed wasm instance.
    Wasm(Box<WasmInstance>),
    /// A trusted native library's per-world host state.
    #[cfg(feature = "native-plugins")]
    Native(Box<NativeInstance>),
}

/// Each call of [`PluginInstance`]: the protocol driver over the instance's transport.
macro_rules! through_driver {
    ($( $(#[$m:meta])* fn $name:ident(&mut self, plugin: &LoadedPlugin $(, $a:ident: $t:ty)*) -> $r:ty; )*) => {$(
        $(#[$m])*
        pub fn $name(&mut self, plugin: &LoadedPlugin $(, $a: $t)*) -> $r {
            match self {
                PluginInstance::Wasm(w) => Driver::new(&mut **w, plugin).$name($($a),*),
                #[cfg(feature = "native-plugins")]
                PluginInstance::Native(n) => Driver::new(&mut **n, plugin).$name($($a),*),
            }
        }
    )*};
}

impl PluginInstance {
    /// The files its loader calls read (none for a native library: its loads are not
    /// cached).
    pub fn load_reads(&self) -> Option<&super::load_cache::Reads> {
        match self {
            PluginInstance::Wasm(w) => Some(&w.store.data().load_reads),
            #[cfg(feature = "native-plugins")]
            PluginInstance::Native(_) => None,
        }
    }

    /// A new instance of the plugin (no prepares run yet).
    pub fn new(plugin: &LoadedPlugin) -> Result<PluginInstance, CallError> {
        match &plugin.code {
            PluginCode::Wasm { engine, pre, .. } => Ok(PluginInstance::Wasm(Box::new(
                WasmInstance::new(plugin, engine, pre)?,
            ))),
            #[cfg(feature = "native-plugins")]
            PluginCode::Native(lib) => Ok(PluginInstance::Native(Box::new(NativeInstance::new(
                plugin,
                lib.clone(),
            )))),
        }
    }

    through_driver! {
        /// `tessera_describe`: the description JSON.
        fn describe(&mut self, plugin: &LoadedPlugin) -> Result<Vec<u8>, CallError>;
        /// `tessera_prepare`. With `replay`, host requests must match the recorded ones.
        fn prepare(
            &mut self,
            plugin: &LoadedPlugin,
            kind: Kind,
            id: &str,
            params: &str,
            replay: Option<Vec<(HostRequest, i32)>>
        ) -> Result<(i32, Vec<(HostRequest, i32)>), CallError>;
        /// `tessera_condition`.
        fn condition(&mut self, plugin: &LoadedPlugin, env: CallEnv, handle: i32, obj: i64) -> Result<bool, CallError>;
        /// `tessera_condition_batch`.
        fn condition_batch(
            &mut self,
            plugin: &LoadedPlugin,
            env: CallEnv,
            handle: i32,
            objs: &[i64],
            out: &mut Vec<bool>
        ) -> Result<(), CallError>;
        /// `tessera_select`: the pushed objects.
        fn select(&mut self, plugin: &LoadedPlugin, env: CallEnv, handle: i32) -> Result<Vec<i64>, CallError>;
        /// `tessera_action`.
        fn action(&mut self, plugin: &LoadedPlugin, env: CallEnv, handle: i32, targets: &[i64]) -> Result<(), CallError>;
        /// `tessera_node`.
        fn node(&mut self, plugin: &LoadedPlugin, env: CallEnv, handle: i32) -> Result<(), CallError>;
        /// `tessera_save_state`, if exported.
        fn save_state(&mut self, plugin: &LoadedPlugin) -> Result<Option<Vec<u8>>, CallError>;
        /// `tessera_load_state`, if exported. `Ok(false)` when the plugin has none.
        fn load_state(&mut self, plugin: &LoadedPlugin, bytes: &[u8]) -> Result<bool, CallError>;
        /// `tessera_load`: a loader's reply for a content file's text.
        fn load_content(&mut self, plugin: &LoadedPlugin, id: &str, text: &str, cx: super::loading::LoadCx) -> Result<Vec<u8>, CallError>;
    }
}
