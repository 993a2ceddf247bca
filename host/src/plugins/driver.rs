//! The plugin-call protocol, once for both kinds of instance: what each export's return
//! value means (a handle, a boolean, a count, `-1` for failure), where a failure's message
//! comes from (the host's, when a host call failed it, else the guest's `tessera_error`),
//! the bookkeeping of a prepare (recorded host requests, replays), and the ABI checks.
//! A [`Transport`] — a wasm store (instance.rs) or a native library (native.rs) — only
//! moves arguments in and results out of one entry point and turns a trap into a fault.

use tessera_plugin_api::abi::{exports, Kind};

use super::host::{CallEnv, HostRequest, HostState};
use super::loading::LoadCx;
use super::LoadedPlugin;
use crate::rules::PluginFaultKind;

/// Why a call failed, with its kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum CallError {
    /// The plugin returned failure (`-1`) with a message, or broke the ABI in a way that
    /// leaves the instance usable; the instance is fine.
    Guest(PluginFaultKind, String),
    /// A trap, panic, out-of-fuel, out-of-memory or stack overflow: the instance is
    /// thrown away.
    Fault(PluginFaultKind, String),
}

impl CallError {
    /// The plugin reported failure with `msg`.
    pub fn failed(msg: impl Into<String>) -> CallError {
        CallError::Guest(PluginFaultKind::Failed, msg.into())
    }

    /// The plugin broke the ABI, leaving the instance usable.
    pub fn misuse(msg: impl Into<String>) -> CallError {
        CallError::Guest(PluginFaultKind::AbiMisuse, msg.into())
    }

    /// The plugin broke the ABI so that its instance cannot be trusted (a missing export).
    pub fn broken(msg: impl Into<String>) -> CallError {
        CallError::Fault(PluginFaultKind::AbiMisuse, msg.into())
    }

    /// The kind and the message.
    pub fn into_parts(self) -> (PluginFaultKind, String) {
        match self {
            CallError::Guest(k, m) | CallError::Fault(k, m) => (k, m),
        }
    }

    /// The message alone.
    pub fn into_message(self) -> String {
        self.into_parts().1
    }

    /// Whether the instance must be thrown away.
    pub fn is_fault(&self) -> bool {
        matches!(self, CallError::Fault(..))
    }
}

/// A raw call's outcome: `None` when the instance does not export the entry point.
pub(crate) type Raw<T> = Option<Result<T, CallError>>;

/// The raw entry points of one plugin instance. Each runs one export with the call
/// environment set (`env`, when the call may read the world) and returns exactly what the
/// export returned — or a [`CallError::Fault`] when it trapped, ran out of fuel or time,
/// or its arguments could not be passed. What the values mean is the driver's business.
pub(crate) trait Transport {
    /// The instance's host-side state (host requests, pushed objects, host errors).
    fn state(&mut self) -> &mut HostState;
    /// Whether `status` says the entry point panicked (the native ABI's `PANICKED`; a
    /// wasm guest's panic is a trap instead).
    fn panicked(&self, status: i32) -> bool;
    /// The guest's `tessera_error` message, if it has one.
    fn last_error(&mut self, plugin: &LoadedPlugin) -> Option<String>;
    /// `tessera_describe`.
    fn describe(&mut self, plugin: &LoadedPlugin) -> Result<Option<Vec<u8>>, CallError>;
    /// `tessera_prepare`.
    fn prepare(
        &mut self,
        plugin: &LoadedPlugin,
        kind: Kind,
        id: &str,
        params: &str,
    ) -> Result<i32, CallError>;
    /// `tessera_condition`.
    fn condition(&mut self, plugin: &LoadedPlugin, env: CallEnv, handle: i32, obj: i64)
        -> Raw<i32>;
    /// `tessera_condition_batch`: its status, with one flag byte per object in `flags`.
    fn condition_batch(
        &mut self,
        plugin: &LoadedPlugin,
        env: CallEnv,
        handle: i32,
        objs: &[i64],
        flags: &mut Vec<u8>,
    ) -> Raw<i32>;
    /// `tessera_select`.
    fn select(&mut self, plugin: &LoadedPlugin, env: CallEnv, handle: i32) -> Raw<i32>;
    /// `tessera_action`.
    fn action(
        &mut self,
        plugin: &LoadedPlugin,
        env: CallEnv,
        handle: i32,
        targets: &[i64],
    ) -> Raw<i32>;
    /// `tessera_node`.
    fn node(&mut self, plugin: &LoadedPlugin, env: CallEnv, handle: i32) -> Raw<i32>;
    /// `tessera_save_state`.
    fn save_state(&mut self, plugin: &LoadedPlugin) -> Raw<Option<Vec<u8>>>;
    /// `tessera_load_state`.
    fn load_state(&mut self, plugin: &LoadedPlugin, bytes: &[u8]) -> Raw<i32>;
    /// `tessera_load` (content loaders); an error when this kind of instance has none.
    fn load_content(
        &mut self,
        plugin: &LoadedPlugin,
        id: &str,
        text: &str,
    ) -> Result<Option<Vec<u8>>, CallError>;
}

/// The driver: one plugin call over any transport.
pub(crate) struct Driver<'a, T: Transport + ?Sized> {
    t: &'a mut T,
    plugin: &'a LoadedPlugin,
}

impl<'a, T: Transport + ?Sized> Driver<'a, T> {
    /// Calls into `t`, an instance of `plugin`.
    pub fn new(t: &'a mut T, plugin: &'a LoadedPlugin) -> Self {
        Driver { t, plugin }
    }

    /// A returned status, checked: a panic is a fault; a host call that must fail the
    /// call (an ABI misuse the guest did not see) fails it.
    fn status(&mut self, raw: Result<i32, CallError>) -> Result<i32, CallError> {
        let r = raw?;
        if self.t.panicked(r) {
            self.t.state().host_error = None;
            let msg = self
                .t
                .last_error(self.plugin)
                .unwrap_or_else(|| "without a message".into());
            return Err(CallError::Fault(
                PluginFaultKind::Panicked,
                format!("panicked: {msg}"),
            ));
        }
        self.must_fail()?;
        Ok(r)
    }

    /// The failure a host call recorded for this call, if any.
    fn must_fail(&mut self) -> Result<(), CallError> {
        match self.t.state().must_fail.take() {
            Some((kind, why)) => Err(CallError::Guest(kind, why)),
            None => Ok(()),
        }
    }

    /// The error of a call that returned failure: the host's message if a host call
    /// failed it, else the guest's own.
    fn failure(&mut self) -> CallError {
        if let Some(h) = self.t.state().host_error.take() {
            return CallError::Guest(PluginFaultKind::HostCall, h);
        }
        CallError::failed(
            self.t
                .last_error(self.plugin)
                .unwrap_or_else(|| "failed without a message".into()),
        )
    }

    /// A status that is `0` on success.
    fn zero(&mut self, raw: Result<i32, CallError>) -> Result<(), CallError> {
        match self.status(raw)? {
            0 => Ok(()),
            _ => Err(self.failure()),
        }
    }

    /// Returned bytes, checked like a status.
    fn bytes<B>(&mut self, raw: Result<B, CallError>) -> Result<B, CallError> {
        let b = raw?;
        self.must_fail()?;
        Ok(b)
    }

    /// `tessera_describe`: the description JSON. Nothing returned with a message recorded
    /// is a panic (the native SDK returns nothing when `describe` panics).
    pub fn describe(mut self) -> Result<Vec<u8>, CallError> {
        let raw = self.t.describe(self.plugin);
        match self.bytes(raw)? {
            Some(v) => Ok(v),
            None => Err(match self.t.last_error(self.plugin) {
                None => CallError::misuse("tessera_describe returned nothing"),
                Some(m) => CallError::Guest(PluginFaultKind::Panicked, format!("panicked: {m}")),
            }),
        }
    }

    /// `tessera_prepare`: the handle and the host requests it made. With `replay`, host
    /// requests must match the recorded ones.
    pub fn prepare(
        mut self,
        kind: Kind,
        id: &str,
        params: &str,
        replay: Option<Vec<(HostRequest, i32)>>,
    ) -> Result<(i32, Vec<(HostRequest, i32)>), CallError> {
        {
            let state = self.t.state();
            state.preparing = true;
            state.requests.clear();
            state.replay = replay.map(Into::into);
        }
        let raw = self.t.prepare(self.plugin, kind, id, params);
        let state = self.t.state();
        state.preparing = false;
        state.replay = None;
        let requests = std::mem::take(&mut state.requests);
        let handle = self.status(raw)?;
        if handle < 0 {
            return Err(self.failure());
        }
        Ok((handle, requests))
    }

    /// `tessera_condition`.
    pub fn condition(mut self, env: CallEnv, handle: i32, obj: i64) -> Result<bool, CallError> {
        let raw = self.t.condition(self.plugin, env, handle, obj);
        let raw = raw.ok_or_else(|| missing(exports::CONDITION))?;
        match self.status(raw)? {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(self.failure()),
        }
    }

    /// `tessera_condition_batch`, one flag per object appended to `out` (single calls
    /// when the plugin does not export it).
    pub fn condition_batch(
        mut self,
        env: CallEnv,
        handle: i32,
        objs: &[i64],
        out: &mut Vec<bool>,
    ) -> Result<(), CallError> {
        let mut flags = Vec::new();
        let Some(raw) = self
            .t
            .condition_batch(self.plugin, env, handle, objs, &mut flags)
        else {
            for &o in objs {
                let r = Driver::new(&mut *self.t, self.plugin).condition(env, handle, o)?;
                out.push(r);
            }
            return Ok(());
        };
        self.zero(raw)?;
        out.extend(flags.iter().map(|&b| b != 0));
        Ok(())
    }

    /// `tessera_select`: the objects it pushed, as many as it says.
    pub fn select(mut self, env: CallEnv, handle: i32) -> Result<Vec<i64>, CallError> {
        self.t.state().pushed.clear();
        let raw = self.t.select(self.plugin, env, handle);
        let r = self.status(raw.ok_or_else(|| missing(exports::SELECT))?)?;
        if r < 0 {
            return Err(self.failure());
        }
        let pushed = std::mem::take(&mut self.t.state().pushed);
        if usize::try_from(r).ok() != Some(pushed.len()) {
            return Err(CallError::misuse(format!(
                "tessera_select returned {r} but pushed {} object(s); return how many it pushed",
                pushed.len()
            )));
        }
        Ok(pushed)
    }

    /// `tessera_action`.
    pub fn action(mut self, env: CallEnv, handle: i32, targets: &[i64]) -> Result<(), CallError> {
        let raw = self.t.action(self.plugin, env, handle, targets);
        self.zero(raw.ok_or_else(|| missing(exports::ACTION))?)
    }

    /// `tessera_node`.
    pub fn node(mut self, env: CallEnv, handle: i32) -> Result<(), CallError> {
        let raw = self.t.node(self.plugin, env, handle);
        self.zero(raw.ok_or_else(|| missing(exports::NODE))?)
    }

    /// `tessera_save_state`, if exported.
    pub fn save_state(mut self) -> Result<Option<Vec<u8>>, CallError> {
        match self.t.save_state(self.plugin) {
            None => Ok(None),
            Some(raw) => self.bytes(raw),
        }
    }

    /// `tessera_load_state`, if exported. `Ok(false)` when the plugin has none.
    pub fn load_state(mut self, bytes: &[u8]) -> Result<bool, CallError> {
        match self.t.load_state(self.plugin, bytes) {
            None => Ok(false),
            Some(raw) => self.zero(raw).map(|()| true),
        }
    }

    /// `tessera_load`: loader `id`'s reply for a content file's text (JSON `LoadReply`);
    /// during the call the plugin may read `cx`'s path and its mod's files.
    pub fn load_content(mut self, id: &str, text: &str, cx: LoadCx) -> Result<Vec<u8>, CallError> {
        self.t.state().load = Some(cx);
        let raw = self.t.load_content(self.plugin, id, text);
        self.t.state().load = None;
        self.bytes(raw)?
            .ok_or_else(|| CallError::misuse("tessera_load returned nothing"))
    }
}

/// An entry point the plugin does not export, though it registered what needs it.
fn missing(name: &str) -> CallError {
    CallError::broken(format!("does not export {name}"))
}
