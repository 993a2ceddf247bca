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
//! (bytes already read out of guest memory; imports.rs); the wasm linker (linker.rs) and
//! the native vtable (native.rs) are thin adapters over it.

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

mod imports;

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
