//! The typed guest API: symbols, objects, the call context, host-prepared handles and the
//! capabilities. Everything here is only meaningful inside a host call.

use core::fmt;
use core::marker::PhantomData;
use core::sync::atomic::{AtomicI32, Ordering};

use serde::de::{Deserialize, Deserializer, Error as _};

use crate::abi;
use crate::sys;

/// A host call that reported failure (`-1`).
///
/// The host knows why, and reports the real cause with the call that failed; this error
/// only lets the plugin stop early (`?`) and say which import failed. Converts into
/// `String`, so `?` works in definitions returning `Result<(), String>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HostError {
    op: &'static str,
}

impl HostError {
    /// A failure of the import `op`.
    pub fn new(op: &'static str) -> HostError {
        HostError { op }
    }

    /// The import that failed.
    pub fn op(&self) -> &'static str {
        self.op
    }
}

impl fmt::Display for HostError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "host call `{}` failed", self.op)
    }
}

impl std::error::Error for HostError {}

impl From<HostError> for String {
    fn from(e: HostError) -> String {
        e.to_string()
    }
}

fn status(op: &'static str, s: i32) -> Result<(), HostError> {
    if s < 0 {
        Err(HostError::new(op))
    } else {
        Ok(())
    }
}

/// An interned name: a property key, tag, zone or event id.
///
/// Symbols are stable for the life of the instance. Intern once — with [`sym!`](crate::sym)
/// (cached in a `static`), at prepare time in a parameter struct (a `Sym` field
/// deserializes from a string), or with [`Sym::new`] — and pass the `Sym` on the hot path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(transparent)]
pub struct Sym(i32);

impl Sym {
    /// Interns `name` (one host call; cache the result).
    pub fn new(name: &str) -> Sym {
        Sym(sys::intern_str(name))
    }

    /// The ABI's symbol id.
    pub fn raw(self) -> i32 {
        self.0
    }

    /// A symbol from an ABI id (as returned by `zone`/`class`); `None` for -1.
    pub fn from_raw(raw: i32) -> Option<Sym> {
        (raw >= 0).then_some(Sym(raw))
    }
}

impl<'de> Deserialize<'de> for Sym {
    /// A `Sym` parameter is written as a string in content and interned at prepare time.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Sym, D::Error> {
        let name = std::borrow::Cow::<'de, str>::deserialize(d)?;
        let s = Sym::new(&name);
        if s.0 < 0 {
            return Err(D::Error::custom(format_args!("cannot intern {name:?}")));
        }
        Ok(s)
    }
}

/// A lazily interned symbol in a `static`: what [`sym!`](crate::sym) expands to.
///
/// The first [`get`](SymCache::get) interns; later ones are a load. Wasm instances are
/// single-threaded, and each instance has its own memory, hence its own cache.
#[derive(Debug)]
pub struct SymCache {
    name: &'static str,
    id: AtomicI32,
}

impl SymCache {
    /// A cache for `name`, not yet interned.
    pub const fn new(name: &'static str) -> SymCache {
        SymCache {
            name,
            id: AtomicI32::new(-1),
        }
    }

    /// The symbol, interning it on first use.
    #[inline]
    pub fn get(&self) -> Sym {
        let id = self.id.load(Ordering::Relaxed);
        if id >= 0 {
            return Sym(id);
        }
        self.intern()
    }

    #[cold]
    fn intern(&self) -> Sym {
        let s = Sym::new(self.name);
        self.id.store(s.0, Ordering::Relaxed);
        s
    }
}

/// A cached symbol: `sym!("attack")` interns `"attack"` on first use and is a plain load
/// afterwards.
///
/// ```ignore
/// let attack = obj.get_int(sym!("attack"));
/// ```
#[macro_export]
macro_rules! sym {
    ($name:literal) => {{
        static SYM: $crate::SymCache = $crate::SymCache::new($name);
        SYM.get()
    }};
}

/// An object id. Reads work in any call; writes only in actions and nodes.
///
/// An `Obj` may name an object that has since died: reads then return defaults (0, false,
/// `None`), as the host does; check [`exists`](Obj::exists) where it matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(transparent)]
pub struct Obj(pub(crate) i64);

impl Obj {
    /// An object from an ABI id; `None` for negative ids ("no object").
    pub fn from_raw(raw: i64) -> Option<Obj> {
        (raw >= 0).then_some(Obj(raw))
    }

    /// The ABI's object id.
    pub fn raw(self) -> i64 {
        self.0
    }

    /// Whether the object lives.
    pub fn exists(self) -> bool {
        sys::exists(self.0) == 1
    }

    /// The effective value of an integer property (modifiers applied), rounded down; 0 if
    /// absent.
    pub fn get_int(self, key: Sym) -> i64 {
        sys::get_int(self.0, key.0)
    }

    /// The effective value of a property; 0 if absent.
    pub fn get_float(self, key: Sym) -> f64 {
        sys::get_float(self.0, key.0)
    }

    /// Whether the property has a value.
    pub fn has_prop(self, key: Sym) -> bool {
        sys::has_prop(self.0, key.0) == 1
    }

    /// Whether the object is tagged `tag`.
    pub fn has_tag(self, tag: Sym) -> bool {
        sys::has_tag(self.0, tag.0) == 1
    }

    /// The object's zone.
    pub fn zone(self) -> Option<Sym> {
        Sym::from_raw(sys::zone(self.0))
    }

    /// The object's class id.
    pub fn class(self) -> Option<Sym> {
        Sym::from_raw(sys::class(self.0))
    }

    /// The object's owner.
    pub fn owner(self) -> Option<Obj> {
        Obj::from_raw(sys::owner(self.0))
    }

    /// The object this one is attached to.
    pub fn parent(self) -> Option<Obj> {
        Obj::from_raw(sys::parent(self.0))
    }

    /// Sets a base property (actions and nodes only).
    pub fn set_int(self, key: Sym, value: i64) -> Result<(), HostError> {
        status("set_int", sys::set_int(self.0, key.0, value))
    }

    /// Sets a decimal base property (actions and nodes only); `value` must be finite.
    pub fn set_float(self, key: Sym, value: f64) -> Result<(), HostError> {
        status("set_float", sys::set_float(self.0, key.0, value))
    }

    /// Adds `delta` to a base property (actions and nodes only); the new base value.
    ///
    /// Outside an action or node the host fails the whole call (the return value cannot
    /// tell failure from a base value of -1).
    pub fn add_int(self, key: Sym, delta: i64) -> i64 {
        sys::add_int(self.0, key.0, delta)
    }

    /// Tags the object (actions and nodes only).
    pub fn add_tag(self, tag: Sym) -> Result<(), HostError> {
        status("add_tag", sys::add_tag(self.0, tag.0))
    }

    /// Removes a tag (actions and nodes only).
    pub fn remove_tag(self, tag: Sym) -> Result<(), HostError> {
        status("remove_tag", sys::remove_tag(self.0, tag.0))
    }
}

/// Deserializes a JSON value (any shape) and hands its text to a `prepare_*` import.
fn prepare_value<'de, D: Deserializer<'de>>(
    d: D,
    what: sys::PrepareWhat,
    op: &'static str,
) -> Result<i32, D::Error> {
    let v = serde_json::Value::deserialize(d)?;
    let text = v.to_string();
    let h = sys::prepare(what, &text);
    if h < 0 {
        return Err(D::Error::custom(format_args!(
            "host call `{op}` refused {text}"
        )));
    }
    Ok(h)
}

macro_rules! host_handle {
    ($(#[$m:meta])* $name:ident, $what:ident, $op:literal, $example:literal) => {
        $(#[$m])*
        ///
        /// Prepare it at load: as a parameter field (it deserializes from the content's
        /// value and calls the host then), or with `prepare` from a parameter struct's
        /// `init` hook. Preparing outside `tessera_prepare` fails.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub struct $name(i32);

        impl $name {
            #[doc = concat!("Prepares one from JSON text written as in content, e.g. `", $example, "`.")]
            pub fn prepare(json: &str) -> Result<$name, HostError> {
                let h = sys::prepare(sys::PrepareWhat::$what, json);
                if h < 0 {
                    Err(HostError::new($op))
                } else {
                    Ok($name(h))
                }
            }

            /// The host's handle.
            pub fn raw(self) -> i32 {
                self.0
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<$name, D::Error> {
                prepare_value(d, sys::PrepareWhat::$what, $op).map($name)
            }
        }
    };
}

host_handle!(
    /// A host selector (`core:selector/...` or any registered one), run with
    /// [`Ctx::query`].
    Selector, Selector, "prepare_selector", r#"{"type": "core:selector/objects", "zone": "board"}"#
);
host_handle!(
    /// A host action list, run with [`Ctx::run`].
    ActionList, Action, "prepare_action", r#"[{"type": "core:action/damage", "amount": 1}]"#
);
host_handle!(
    /// A host expression, evaluated with [`Ctx::eval`].
    Expr, Expr, "prepare_expr", r#""self.attack * 2""#
);

/// The scope of the current call: who is involved, and what the plugin may do there.
///
/// The SDK passes `&Ctx` to every definition; it is only valid during that call.
#[derive(Debug)]
pub struct Ctx {
    _call: PhantomData<*const ()>,
}

impl Ctx {
    /// The context of the current host call (SDK-internal).
    pub(crate) const fn current() -> Ctx {
        Ctx { _call: PhantomData }
    }

    /// The holder of the trigger or aura (`self` in content).
    pub fn this(&self) -> Option<Obj> {
        Obj::from_raw(sys::ctx(abi::ctx::SELF))
    }

    /// The event's source.
    pub fn source(&self) -> Option<Obj> {
        Obj::from_raw(sys::ctx(abi::ctx::SOURCE))
    }

    /// The event's target (or the object under test).
    pub fn target(&self) -> Option<Obj> {
        Obj::from_raw(sys::ctx(abi::ctx::TARGET))
    }

    /// The event's player.
    pub fn player(&self) -> Option<Obj> {
        Obj::from_raw(sys::ctx(abi::ctx::PLAYER))
    }

    /// The amount of the event being handled (0 outside events).
    pub fn event_amount(&self) -> i64 {
        sys::event_amount()
    }

    /// Runs a host selector in this scope. On failure the host fails the call (and says
    /// why); the result is then empty. See [`query_into`](Ctx::query_into) to reuse a
    /// buffer.
    pub fn query(&self, selector: &Selector) -> Vec<Obj> {
        let mut out = Vec::new();
        // The host reports the failure itself; nothing to add here.
        let _ = self.query_into(selector, &mut out);
        out
    }

    /// Runs a host selector in this scope, appending the objects to `out` (reusing its
    /// allocation); how many were appended.
    pub fn query_into(&self, selector: &Selector, out: &mut Vec<Obj>) -> Result<usize, HostError> {
        let start = out.len();
        out.reserve(16);
        let mut n = sys::query_into(selector.0, out);
        if let Ok(total) = usize::try_from(n) {
            if start + total > out.len() {
                // The buffer was too small: size it and run again.
                out.truncate(start);
                out.reserve(total);
                n = sys::query_into(selector.0, out);
            }
        }
        usize::try_from(n).map_err(|_| HostError::new("query"))?;
        Ok(out.len() - start)
    }

    /// Evaluates a host expression in this scope.
    pub fn eval(&self, expr: &Expr) -> f64 {
        sys::eval(expr.0)
    }

    /// Runs a host action list on `targets` (actions and nodes only), inside the current
    /// transaction.
    pub fn run(&self, action: &ActionList, targets: &[Obj]) -> Result<(), HostError> {
        status("run_action", sys::run_action_on(action.0, targets))
    }

    /// Raises the event `event` (its id as a symbol) at `target` with `amount`; the source
    /// is `self` (actions and nodes only).
    pub fn emit(&self, event: Sym, target: Option<Obj>, amount: i64) -> Result<(), HostError> {
        let t = target.map_or(abi::NO_OBJECT, Obj::raw);
        status("emit", sys::emit(event.0, t, amount))
    }

    /// A value produced by an earlier node of the pipeline (nodes only); 0 if none.
    pub fn pipeline_get(&self, key: Sym) -> f64 {
        sys::pipeline_get(key.0)
    }

    /// Produces a pipeline value for later nodes (nodes only).
    pub fn pipeline_set(&self, key: Sym, value: f64) {
        sys::pipeline_set(key.0, value)
    }

    /// Adds an object to a selector's result (SDK-internal: selectors return theirs).
    pub(crate) fn push(&self, obj: Obj) {
        sys::push(obj.0)
    }
}

/// A log level for [`log`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Level {
    /// Something failed.
    Error,
    /// Something looks wrong.
    Warn,
    /// Worth knowing.
    Info,
    /// Detail for plugin authors.
    Debug,
}

/// Writes a log line tagged with the mod. **Capability `log`**: calling this makes the
/// module import `log`, which the host links only when the mod's manifest asks for the
/// `log` capability and `server.toml` grants it; otherwise the module is refused at load.
pub fn log(level: Level, msg: &str) {
    let l = match level {
        Level::Error => 0,
        Level::Warn => 1,
        Level::Info => 2,
        Level::Debug => 3,
    };
    sys::log_str(l, msg)
}

/// A uniform integer in `lo..=hi` from the world's seeded RNG (deterministic).
/// **Capability `random`**: calling this makes the module import `random`, which the host
/// links only when the mod's manifest asks for it and `server.toml` grants it.
pub fn random(lo: i64, hi: i64) -> i64 {
    sys::random(lo, hi)
}
