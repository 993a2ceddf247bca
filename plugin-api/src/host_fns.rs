//! The host functions both transports offer with plain-integer signatures, listed once:
//! the wasm `sys` (imports) and the native `sys` (the host's vtable) each pass their own
//! wrapper macro to [`host_functions!`], so their lists cannot drift apart. Functions
//! that take guest memory (`intern`, `log`, `query`, `run_action`, `prepare_*`) and the
//! optional capability `random` are written per transport.

/// Invokes `$wrap! { fn name(args) -> ret; ... }` with every plain-integer host function
/// of ABI v1 (each with its doc comment).
macro_rules! host_functions {
    ($wrap:ident) => {
        $wrap! {
            /// `ctx(which)`.
            fn ctx(which: i32) -> i64;
            /// `event_amount()`.
            fn event_amount() -> i64;
            /// `exists(obj)`.
            fn exists(obj: i64) -> i32;
            /// `get_int(obj, key)`.
            fn get_int(obj: i64, key: i32) -> i64;
            /// `get_float(obj, key)`.
            fn get_float(obj: i64, key: i32) -> f64;
            /// `has_prop(obj, key)`.
            fn has_prop(obj: i64, key: i32) -> i32;
            /// `has_tag(obj, tag)`.
            fn has_tag(obj: i64, tag: i32) -> i32;
            /// `zone(obj)`.
            fn zone(obj: i64) -> i32;
            /// `class(obj)`.
            fn class(obj: i64) -> i32;
            /// `owner(obj)`.
            fn owner(obj: i64) -> i64;
            /// `parent(obj)`.
            fn parent(obj: i64) -> i64;
            /// `eval(expr)`.
            fn eval(expr: i32) -> f64;
            /// `push(obj)`.
            fn push(obj: i64);
            /// `pipeline_get(key)`.
            fn pipeline_get(key: i32) -> f64;
            /// `pipeline_set(key, value)`.
            fn pipeline_set(key: i32, value: f64);
            /// `set_int(obj, key, value)`.
            fn set_int(obj: i64, key: i32, value: i64) -> i32;
            /// `set_float(obj, key, value)`.
            fn set_float(obj: i64, key: i32, value: f64) -> i32;
            /// `add_int(obj, key, delta)`.
            fn add_int(obj: i64, key: i32, delta: i64) -> i64;
            /// `add_tag(obj, tag)`.
            fn add_tag(obj: i64, tag: i32) -> i32;
            /// `remove_tag(obj, tag)`.
            fn remove_tag(obj: i64, tag: i32) -> i32;
            /// `emit(event, target, amount)`.
            fn emit(event: i32, target: i64, amount: i64) -> i32;
        }
    };
}
pub(crate) use host_functions;

/// Which `prepare_*` host function (`prepare_selector`, `prepare_action`, `prepare_expr`).
#[derive(Clone, Copy)]
pub(crate) enum PrepareWhat {
    Selector,
    Action,
    Expr,
}
