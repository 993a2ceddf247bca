//! The host side of the ABI: the `tessera` imports a plugin may call, and the call
//! environment they read the world through.
//!
//! A guest only runs inside a host call (`PluginInstance::call`), and that call holds the
//! borrows of the world, generation, scope and queue for its whole duration. The
//! [`CallEnv`] carries those borrows as raw pointers into the store for exactly that
//! window and is cleared when the call returns, so every dereference below happens while
//! the referenced values are alive and not otherwise used. This is the only `unsafe`
//! code in the host besides loading native libraries (native.rs).
//!
//! The imports' logic is written once, as methods of [`HostState`] taking plain values
//! (bytes already read out of guest memory); the wasm linker (linker.rs) and the native vtable
//! (native.rs) are thin adapters over it.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

use super::linker::Limiter;
use std::sync::RwLock;
use tessera_plugin_api::abi;

use super::LoadedShared;
use crate::bus::{Event, EventQueue};
use crate::controller::Controller;
use crate::id::{Id, Sym};
use crate::rules::expr::Expr;
use crate::rules::registry::{Action, Selector};
use crate::rules::select::Select;
use crate::rules::{ActCx, Cx, Generation, Pipeline, PluginFaultKind, Sandbox, Scope};
use crate::state::{ObjId, World};

use super::Runtime;

/// Borrows of the running command, valid only during one guest call.
#[derive(Clone, Copy)]
pub(crate) struct CallEnv {
    pub world: *const World,
    /// Null for read-only calls (conditions, selectors).
    pub world_mut: *mut World,
    pub gen: *const Generation,
    pub scope: *const Scope,
    /// Null for read-only calls.
    pub queue: *mut EventQueue,
    /// Null when no controller is available (aura recompute).
    pub controller: *const RefCell<Box<dyn Controller>>,
    pub rt: *const Sandbox,
    /// Null unless a node is running.
    pub pipeline: *mut Pipeline,
}

impl CallEnv {
    /// A read-only environment (conditions, selectors).
    pub fn read(cx: &Cx<'_>) -> CallEnv {
        CallEnv {
            world: cx.world,
            world_mut: std::ptr::null_mut(),
            gen: cx.gen,
            scope: cx.scope,
            queue: std::ptr::null_mut(),
            controller: cx.controller.map_or(std::ptr::null(), |c| c as *const _),
            rt: cx.rt,
            pipeline: std::ptr::null_mut(),
        }
    }

    /// A writable environment (actions, nodes).
    pub fn write(ax: &mut ActCx<'_>, pipeline: Option<&mut Pipeline>) -> CallEnv {
        let world: *mut World = ax.world;
        CallEnv {
            world,
            world_mut: world,
            gen: ax.gen,
            scope: &ax.scope,
            queue: ax.queue,
            controller: ax.controller,
            rt: ax.rt,
            pipeline: pipeline.map_or(std::ptr::null_mut(), |p| p as *mut _),
        }
    }
}

/// What a prepare call asked the host to prepare: recorded at load, replayed after.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum HostRequest {
    /// `prepare_selector`
    Selector(String),
    /// `prepare_action`
    Action(String),
    /// `prepare_expr`
    Expr(String),
}

/// A host object a plugin prepared.
#[derive(Debug)]
pub(crate) enum HostObject {
    Selector(Select),
    Actions(Vec<Box<dyn Action>>),
    Expr(Expr),
}

/// The data of a plugin's store.
pub(crate) struct HostState {
    pub env: Option<CallEnv>,
    pub limits: Limiter,
    pub shared: Arc<LoadedShared>,
    pub syms: Vec<Sym>,
    pub sym_ids: HashMap<Sym, i32>,
    pub pushed: Vec<i64>,
    /// During prepare: requests made so far, and the host handle each got.
    pub requests: Vec<(HostRequest, i32)>,
    /// During a replayed prepare: the handles recorded at load, in order.
    pub replay: Option<std::collections::VecDeque<(HostRequest, i32)>>,
    /// An error the host found during the call (reported instead of the guest's).
    pub host_error: Option<String>,
    /// Why the call fails even when the guest ignores a failed import and returns
    /// normally: a write attempted in a read-only call (a condition or selector), or a
    /// plugin fault inside a nested host call (`query`, `eval`, `run_action`).
    pub must_fail: Option<(PluginFaultKind, String)>,
    /// Whether `prepare_*` may be called now.
    pub preparing: bool,
    /// Symbols are process-wide ([`global_syms`]) rather than per instance: a native
    /// library is one instance shared by every world, and caches symbol ids in statics.
    pub global_syms: bool,
    /// During `tessera_load`: the file being read and its mod's files.
    pub load: Option<super::loading::LoadCx>,
    /// Every file a loader on this instance read besides the one it was loading, over
    /// all its calls (what a call remembers may come from an earlier one): the
    /// dependencies of its replies in the load cache.
    pub load_reads: super::load_cache::Reads,
}

impl HostState {
    pub fn new(shared: Arc<LoadedShared>, limits: Limiter) -> HostState {
        HostState {
            env: None,
            limits,
            shared,
            syms: Vec::new(),
            sym_ids: HashMap::new(),
            pushed: Vec::new(),
            requests: Vec::new(),
            replay: None,
            host_error: None,
            must_fail: None,
            preparing: false,
            global_syms: false,
            load_reads: Default::default(),
            load: None,
        }
    }

    /// Refuses a write in a read-only call; the call then fails (see `must_fail`).
    fn refuse_write<T>(&mut self, what: &str, value: T) -> T {
        let msg = format!("{what}: conditions and selectors cannot change the world");
        self.must_fail
            .get_or_insert_with(|| (PluginFaultKind::HostCall, msg.clone()));
        self.fail(msg, value)
    }

    pub(crate) fn fail<T>(&mut self, msg: impl Into<String>, value: T) -> T {
        self.host_error.get_or_insert_with(|| msg.into());
        value
    }

    /// Faults this world's plugins have had so far (0 outside a call).
    fn faults_seen(&self) -> u64 {
        // SAFETY: see the module docs: `env` is only set during the call its borrows
        // come from.
        self.env
            .and_then(|env| Runtime::of(unsafe { &*env.rt }).ok())
            .map_or(0, Runtime::faults_recorded)
    }

    /// Fails a nested host call with `msg`. When a plugin faulted inside it (since
    /// `before`), the fault already counted as that plugin's; the calling guest cannot
    /// ignore it: its call fails too (and its command rolls back).
    fn fail_nested<T>(&mut self, before: u64, msg: String, value: T) -> T {
        if self.faults_seen() > before {
            self.must_fail.get_or_insert_with(|| {
                (
                    PluginFaultKind::Nested,
                    format!("{msg} (a plugin faulted inside this host call, so the call fails)"),
                )
            });
        }
        self.fail(msg, value)
    }
}

fn obj(o: i64) -> Option<ObjId> {
    abi::unpack_obj(o).map(|(index, generation)| ObjId { index, generation })
}

fn pack(o: Option<ObjId>) -> i64 {
    o.map_or(abi::NO_OBJECT, |o| abi::pack_obj(o.index, o.generation))
}

/// The process-wide symbol table of native libraries: (symbols by id, ids by symbol).
type SymTable = (Vec<Sym>, HashMap<Sym, i32>);

fn global_syms() -> &'static RwLock<SymTable> {
    static TABLE: std::sync::OnceLock<RwLock<SymTable>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| RwLock::new((Vec::new(), HashMap::new())))
}

/// Which import `prepare_request` serves.
#[derive(Debug, Clone, Copy)]
pub(crate) enum RequestKind {
    Selector,
    Action,
    Expr,
}

impl RequestKind {
    fn name(self) -> &'static str {
        match self {
            RequestKind::Selector => "prepare_selector",
            RequestKind::Action => "prepare_action",
            RequestKind::Expr => "prepare_expr",
        }
    }
}

/// The imports' logic, shared by the wasm linker and the native vtable.
impl HostState {
    /// The world, read-only, during a call.
    fn world(&self) -> Option<&World> {
        let env = self.env?;
        // SAFETY: see the module docs: `env` is only set while the borrows it was made
        // from are held by the active host call.
        Some(unsafe { &*env.world })
    }

    fn world_mut(&mut self) -> Option<&mut World> {
        let env = self.env?;
        if env.world_mut.is_null() {
            return None;
        }
        // SAFETY: see module docs; a writable environment holds the only `&mut World` of
        // the command for the whole call.
        Some(unsafe { &mut *env.world_mut })
    }

    fn sym(&self, id: i32) -> Option<Sym> {
        let i = usize::try_from(id).ok()?;
        if self.global_syms {
            let t = global_syms().read().unwrap_or_else(|e| e.into_inner());
            return t.0.get(i).copied();
        }
        self.syms.get(i).copied()
    }

    fn sym_id(&mut self, s: Sym) -> i32 {
        if self.global_syms {
            if let Some(&i) = global_syms()
                .read()
                .unwrap_or_else(|e| e.into_inner())
                .1
                .get(&s)
            {
                return i;
            }
            let mut t = global_syms().write().unwrap_or_else(|e| e.into_inner());
            if let Some(&i) = t.1.get(&s) {
                return i;
            }
            let i = i32::try_from(t.0.len()).unwrap_or(-1);
            t.0.push(s);
            t.1.insert(s, i);
            return i;
        }
        if let Some(&i) = self.sym_ids.get(&s) {
            return i;
        }
        let i = i32::try_from(self.syms.len()).unwrap_or(-1);
        self.syms.push(s);
        self.sym_ids.insert(s, i);
        i
    }

    /// The read-only evaluation context of the current call.
    fn with_cx<R>(&self, f: impl FnOnce(&Cx<'_>) -> R) -> Option<R> {
        let env = self.env?;
        // SAFETY: as in `world`: every pointer comes from the active call's borrows.
        let cx = unsafe {
            Cx {
                world: &*env.world,
                gen: &*env.gen,
                scope: &*env.scope,
                controller: env.controller.as_ref(),
                rt: &*env.rt,
            }
        };
        Some(f(&cx))
    }

    fn host_object(&self, h: i32) -> Option<Arc<HostObject>> {
        self.shared.host_object(h)
    }

    /// `intern` of bytes (`None`: outside guest memory). Symbols live for the whole
    /// process, so names no content or plugin used before are bounded: see
    /// [`guest_symbol`].
    pub(crate) fn intern(&mut self, bytes: Option<&[u8]>) -> i32 {
        let Some(text) = bytes.and_then(|b| std::str::from_utf8(b).ok()) else {
            return -1;
        };
        match guest_symbol(text) {
            Some(sym) => self.sym_id(sym),
            None => -1,
        }
    }

    pub(crate) fn ctx(&self, which: i32) -> i64 {
        let Some(env) = self.env else {
            return abi::NO_OBJECT;
        };
        // SAFETY: see module docs.
        let scope = unsafe { &*env.scope };
        pack(match which {
            abi::ctx::SELF => scope.this,
            abi::ctx::SOURCE => scope.source,
            abi::ctx::TARGET => scope.target,
            abi::ctx::PLAYER => scope.player,
            _ => None,
        })
    }

    pub(crate) fn event_amount(&self) -> i64 {
        let Some(env) = self.env else { return 0 };
        // SAFETY: see module docs.
        unsafe { &*env.scope }
            .event
            .as_ref()
            .map_or(0, |e| e.amount)
    }

    pub(crate) fn exists(&self, o: i64) -> i32 {
        i32::from(obj(o).is_some_and(|o| self.world().is_some_and(|w| w.exists(o))))
    }

    pub(crate) fn get_int(&self, o: i64, key: i32) -> i64 {
        match (obj(o), self.sym(key), self.world()) {
            (Some(o), Some(k), Some(w)) => w.get_int(o, k),
            _ => 0,
        }
    }

    pub(crate) fn get_float(&self, o: i64, key: i32) -> f64 {
        match (obj(o), self.sym(key), self.world()) {
            (Some(o), Some(k), Some(w)) => w.get_number(o, k).unwrap_or(0.0),
            _ => 0.0,
        }
    }

    pub(crate) fn has_prop(&self, o: i64, key: i32) -> i32 {
        match (obj(o), self.sym(key), self.world()) {
            (Some(o), Some(k), Some(w)) => {
                i32::from(w.get_number(o, k).is_some() || w.base(o, k).is_some())
            }
            _ => 0,
        }
    }

    pub(crate) fn has_tag(&self, o: i64, tag: i32) -> i32 {
        match (obj(o), self.sym(tag), self.world()) {
            (Some(o), Some(t), Some(w)) => i32::from(w.has_tag(o, t)),
            _ => 0,
        }
    }

    /// `zone` (`class = false`) or `class` (`class = true`).
    pub(crate) fn zone_or_class(&mut self, o: i64, class: bool) -> i32 {
        let s = match (obj(o), self.world()) {
            (Some(o), Some(w)) => match w.object(o) {
                Ok(obj) if !class => obj.zone,
                Ok(obj) => obj.class.sym(),
                Err(_) => return -1,
            },
            _ => return -1,
        };
        self.sym_id(s)
    }

    /// `owner` (`parent = false`) or `parent` (`parent = true`).
    pub(crate) fn owner_or_parent(&self, o: i64, parent: bool) -> i64 {
        let found = match (obj(o), self.world()) {
            (Some(o), Some(w)) => {
                w.object(o)
                    .ok()
                    .and_then(|x| if parent { x.parent } else { x.owner })
            }
            _ => None,
        };
        pack(found)
    }

    pub(crate) fn push(&mut self, o: i64) {
        self.pushed.push(o);
    }

    /// `query`: every selected id, or the failure status (recorded).
    pub(crate) fn query(&mut self, h: i32) -> Result<Vec<i64>, i32> {
        let Some(object) = self.host_object(h) else {
            return Err(self.fail("query: no such prepared selector", -1));
        };
        let HostObject::Selector(sel) = &*object else {
            return Err(self.fail("query: the handle is not a selector", -1));
        };
        let before = self.faults_seen();
        let result = self.with_cx(|cx| {
            let mut v = Vec::new();
            sel.select(cx, &mut v).map(|()| v)
        });
        match result {
            Some(Ok(objs)) => Ok(objs.iter().map(|o| pack(Some(*o))).collect()),
            Some(Err(e)) => Err(self.fail_nested(before, format!("query failed: {e}"), -1)),
            None => Err(self.fail("query outside a call", -1)),
        }
    }

    pub(crate) fn eval(&mut self, h: i32) -> f64 {
        let Some(object) = self.host_object(h) else {
            return self.fail("eval: no such prepared expression", 0.0);
        };
        let HostObject::Expr(e) = &*object else {
            return self.fail("eval: the handle is not an expression", 0.0);
        };
        let before = self.faults_seen();
        match self.with_cx(|cx| e.eval(cx)) {
            Some(Ok(v)) => v,
            Some(Err(e)) => self.fail_nested(before, format!("eval failed: {e}"), 0.0),
            None => 0.0,
        }
    }

    pub(crate) fn pipeline_get(&self, key: i32) -> f64 {
        let (Some(env), Some(k)) = (self.env, self.sym(key)) else {
            return 0.0;
        };
        if env.pipeline.is_null() {
            return 0.0;
        }
        // SAFETY: see module docs; non-null only during a node call.
        unsafe { &*env.pipeline }.value(k).unwrap_or(0.0)
    }

    pub(crate) fn pipeline_set(&mut self, key: i32, v: f64) {
        let (Some(env), Some(k)) = (self.env, self.sym(key)) else {
            return;
        };
        if env.pipeline.is_null() {
            self.fail("pipeline_set outside a node call", ());
            return;
        }
        // SAFETY: see module docs; non-null only during a node call.
        unsafe { &mut *env.pipeline }
            .values
            .push((k, if v.is_nan() { 0.0 } else { v }));
    }

    pub(crate) fn set_int(&mut self, o: i64, key: i32, v: i64) -> i32 {
        let (Some(o), Some(k)) = (obj(o), self.sym(key)) else {
            return self.fail("set_int: bad object or key", -1);
        };
        match self.world_mut() {
            Some(w) => match w.set(o, k, crate::state::Value::Int(v)) {
                Ok(_) => 0,
                Err(e) => self.fail(format!("set_int: {e}"), -1),
            },
            None => self.refuse_write("set_int", -1),
        }
    }

    /// Sets a decimal base property; a value that is not finite is refused (a fault).
    pub(crate) fn set_float(&mut self, o: i64, key: i32, v: f64) -> i32 {
        let (Some(o), Some(k)) = (obj(o), self.sym(key)) else {
            return self.fail("set_float: bad object or key", -1);
        };
        if !v.is_finite() {
            return self.fail(format!("set_float: {v} is not a finite number"), -1);
        }
        match self.world_mut() {
            Some(w) => match w.set(o, k, crate::state::Value::Float(v)) {
                Ok(_) => 0,
                Err(e) => self.fail(format!("set_float: {e}"), -1),
            },
            None => self.refuse_write("set_float", -1),
        }
    }

    pub(crate) fn add_int(&mut self, o: i64, key: i32, d: i64) -> i64 {
        let (Some(o), Some(k)) = (obj(o), self.sym(key)) else {
            return self.fail("add_int: bad object or key", 0);
        };
        match self.world_mut() {
            Some(w) => match w.add(o, k, d) {
                Ok(v) => v,
                Err(e) => self.fail(format!("add_int: {e}"), 0),
            },
            None => self.refuse_write("add_int", 0),
        }
    }

    /// `add_tag` (`add = true`) or `remove_tag`.
    pub(crate) fn tag(&mut self, o: i64, tag: i32, add: bool) -> i32 {
        let (Some(o), Some(t)) = (obj(o), self.sym(tag)) else {
            return self.fail("tag: bad object or tag", -1);
        };
        match self.world_mut() {
            Some(w) => match if add { w.tag(o, t) } else { w.untag(o, t) } {
                Ok(_) => 0,
                Err(e) => self.fail(format!("tag: {e}"), -1),
            },
            None => self.refuse_write("tag", -1),
        }
    }

    pub(crate) fn emit(&mut self, event: i32, target: i64, amount: i64) -> i32 {
        let Some(s) = self.sym(event) else {
            return self.fail("emit: bad event symbol", -1);
        };
        let Ok(id) = Id::parse(s.as_str()) else {
            return self.fail(format!("emit: `{s}` is not an event id"), -1);
        };
        let Some(env) = self.env else { return -1 };
        if env.queue.is_null() {
            return self.fail("emit: conditions and selectors cannot raise events", -1);
        }
        // SAFETY: see module docs.
        let (gen, scope) = unsafe { (&*env.gen, &*env.scope) };
        if !gen.events.contains(&id) {
            return self.fail(format!("emit: unknown event `{id}`"), -1);
        }
        let mut e = Event::new(id).amount(amount);
        e.source = scope.this;
        e.target = obj(target);
        // SAFETY: see module docs; the queue is exclusively ours during the call.
        unsafe { &mut *env.queue }.raise(e);
        0
    }

    /// `run_action` on targets read from guest memory (`None`: outside it).
    pub(crate) fn run_action(&mut self, h: i32, targets: Option<Vec<i64>>) -> i32 {
        let Some(object) = self.host_object(h) else {
            return self.fail("run_action: no such prepared action", -1);
        };
        let HostObject::Actions(actions) = &*object else {
            return self.fail("run_action: the handle is not an action list", -1);
        };
        let Some(targets) = targets else {
            return self.fail("run_action: targets are outside memory", -1);
        };
        let targets: Vec<ObjId> = targets.into_iter().filter_map(obj).collect();
        let Some(env) = self.env else { return -1 };
        if env.world_mut.is_null() || env.queue.is_null() || env.controller.is_null() {
            return self.fail(
                "run_action: conditions and selectors cannot run actions",
                -1,
            );
        }
        // SAFETY: see module docs; a writable environment holds `&mut` borrows of the
        // world and queue for the whole call, and nothing else uses them meanwhile.
        let mut ax = unsafe {
            ActCx {
                world: &mut *env.world_mut,
                gen: &*env.gen,
                scope: (*env.scope).clone(),
                queue: &mut *env.queue,
                controller: &*env.controller,
                rt: &*env.rt,
            }
        };
        let before = self.faults_seen();
        for a in actions {
            if let Err(e) = a.run(&mut ax, &targets) {
                return self.fail_nested(before, format!("run_action: {e}"), -1);
            }
        }
        0
    }

    /// `prepare_selector`/`prepare_action`/`prepare_expr` of bytes read from the guest.
    pub(crate) fn prepare_request(&mut self, kind: RequestKind, bytes: Option<Vec<u8>>) -> i32 {
        let name = kind.name();
        if !self.preparing {
            return self.fail(
                format!("{name} may only be called during tessera_prepare"),
                -1,
            );
        }
        let Some(bytes) = bytes else {
            return self.fail(format!("{name}: bytes outside memory"), -1);
        };
        let Ok(text) = String::from_utf8(bytes) else {
            return self.fail(format!("{name}: not UTF-8"), -1);
        };
        let req = match kind {
            RequestKind::Selector => HostRequest::Selector(text),
            RequestKind::Action => HostRequest::Action(text),
            RequestKind::Expr => HostRequest::Expr(text),
        };
        if let Some(replay) = &mut self.replay {
            return match replay.pop_front() {
                Some((r, h)) if r == req => h,
                _ => self.fail(format!("{name}: prepare is not deterministic (a new instance asked for something else than at load)"), -1),
            };
        }
        let h = self.shared.reserve_handle(self.requests.len());
        self.requests.push((req, h));
        h
    }

    /// `random` (capability).
    pub(crate) fn random(&self, lo: i64, hi: i64) -> i64 {
        self.world().map_or(lo, |w| w.random_range(lo, hi))
    }

    /// `log` (capability).
    pub(crate) fn log(&self, level: i32, bytes: Option<&[u8]>) {
        let text = bytes
            .map(|b| String::from_utf8_lossy(&b[..b.len().min(4096)]).into_owned())
            .unwrap_or_default();
        let mod_id = &self.shared.mod_id;
        match level {
            0 => tracing::error!(mod_id = %mod_id, "{text}"),
            1 => tracing::warn!(mod_id = %mod_id, "{text}"),
            2 => tracing::info!(mod_id = %mod_id, "{text}"),
            _ => tracing::debug!(mod_id = %mod_id, "{text}"),
        }
    }
}

/// The longest name a plugin may intern.
pub const MAX_GUEST_NAME: usize = 256;
/// How many new names (never seen before) plugins may intern in one process, all
/// together: symbols are never freed, so this bounds the memory a guest can pin.
pub const MAX_GUEST_SYMBOLS: usize = 65_536;

static GUEST_SYMBOLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// The symbol of a name a guest asked for: an existing one, or a new one while the
/// process-wide budget lasts (`None` past it, or for a name longer than
/// [`MAX_GUEST_NAME`]).
pub(crate) fn guest_symbol(text: &str) -> Option<Sym> {
    guest_symbol_within(text, &GUEST_SYMBOLS, MAX_GUEST_SYMBOLS)
}

/// [`guest_symbol`] against a given counter and budget.
fn guest_symbol_within(
    text: &str,
    taken: &std::sync::atomic::AtomicUsize,
    budget: usize,
) -> Option<Sym> {
    use std::sync::atomic::Ordering;
    if let Some(s) = Sym::existing(text) {
        return Some(s);
    }
    if text.len() > MAX_GUEST_NAME {
        return None;
    }
    if taken.fetch_add(1, Ordering::Relaxed) >= budget {
        taken.fetch_sub(1, Ordering::Relaxed);
        // Said once per process: a plugin asking in a loop must not flood the log.
        static SAID: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
        if !SAID.swap(true, Ordering::Relaxed) {
            tracing::warn!(
                "a plugin asked to intern a new name past the limit of {budget} new names per process; refused (later refusals are not logged)"
            );
        }
        return None;
    }
    Some(Sym::new(text))
}

#[cfg(test)]
mod guest_symbol_tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    /// Issue 18, finding 2: every new name a plugin interned was kept for the life of the
    /// process, without limit (400 calls on unique strings took 323 MB).
    #[test]
    fn new_guest_names_are_bounded_and_known_names_always_resolve() {
        let taken = AtomicUsize::new(0);
        let known = Sym::new("attack");
        assert_eq!(guest_symbol_within("attack", &taken, 0), Some(known));
        let a = guest_symbol_within("guest-name-test-a", &taken, 2).unwrap();
        assert_eq!(a.as_str(), "guest-name-test-a");
        assert!(guest_symbol_within("guest-name-test-b", &taken, 2).is_some());
        assert_eq!(guest_symbol_within("guest-name-test-c", &taken, 2), None);
        assert_eq!(
            Sym::existing("guest-name-test-c"),
            None,
            "nothing was interned"
        );
        // Names seen before still resolve past the budget.
        assert_eq!(guest_symbol_within("guest-name-test-a", &taken, 2), Some(a));
        assert_eq!(
            guest_symbol_within(&"x".repeat(MAX_GUEST_NAME + 1), &taken, 99),
            None
        );
    }
}
