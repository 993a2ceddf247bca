//! The wasmtime engines: one per process per stack limit, shared by every world.
//!
//! Owns the sandbox-wide configuration (fuel metering, epoch interruption, NaN
//! canonicalization, the pooling allocator, the on-disk compiled-module cache) and the
//! epoch ticker thread that gives every call a wall-clock backstop.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use wasmtime::{
    Cache, CacheConfig, Config, Engine, InstanceAllocationStrategy, PoolingAllocationConfig,
};

/// How often the epoch advances: the granularity of the wall-clock deadline.
pub const EPOCH_TICK: Duration = Duration::from_millis(10);

/// The engine for a wasm stack limit (bytes). Engines are created once and shared.
pub(crate) fn engine(stack_bytes: usize) -> Result<Engine, String> {
    static ENGINES: OnceLock<Mutex<HashMap<usize, Engine>>> = OnceLock::new();
    let engines = ENGINES.get_or_init(|| Mutex::new(HashMap::new()));
    let mut map = engines.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(e) = map.get(&stack_bytes) {
        return Ok(e.clone());
    }
    let engine = build(stack_bytes, true).or_else(|pooled| {
        tracing::warn!(error = %pooled, "pooling allocator unavailable; using on-demand instance allocation");
        build(stack_bytes, false)
    })?;
    start_ticker(&engine);
    map.insert(stack_bytes, engine.clone());
    Ok(engine)
}

fn build(stack_bytes: usize, pooled: bool) -> Result<Engine, String> {
    let mut config = Config::new();
    config
        .consume_fuel(true)
        .epoch_interruption(true)
        .cranelift_nan_canonicalization(true)
        .max_wasm_stack(stack_bytes)
        // Small reservations: plugins are small; limits are enforced per store.
        .memory_reservation(1 << 30)
        .memory_guard_size(64 << 10);
    if pooled {
        let mut pool = PoolingAllocationConfig::default();
        pool.total_core_instances(256)
            .total_memories(256)
            .total_tables(256)
            .max_memory_size(256 << 20)
            .table_elements(100_000);
        config.allocation_strategy(InstanceAllocationStrategy::Pooling(pool));
    }
    if let Some(dir) = cache_dir() {
        let mut cc = CacheConfig::new();
        // A folder of wasmtime's own: its cleanup removes whatever it does not recognise
        // under the folder it is given (the load cache beside it, once).
        cc.with_directory(dir.join("wasmtime"));
        match Cache::new(cc) {
            Ok(cache) => {
                config.cache(Some(cache));
            }
            Err(e) => tracing::warn!(error = %e, "compiled-module cache disabled"),
        }
    }
    Engine::new(&config).map_err(|e| format!("could not create the wasm engine: {e}"))
}

/// Where compiled modules are cached: `$TESSERA_CACHE_DIR`, else
/// `$XDG_CACHE_HOME/tessera`, else `$HOME/.cache/tessera`.
pub fn cache_dir() -> Option<std::path::PathBuf> {
    if let Some(d) = std::env::var_os("TESSERA_CACHE_DIR") {
        return Some(d.into());
    }
    if let Some(d) = std::env::var_os("XDG_CACHE_HOME") {
        return Some(std::path::PathBuf::from(d).join("tessera"));
    }
    std::env::var_os("HOME").map(|h| std::path::PathBuf::from(h).join(".cache/tessera"))
}

/// Advances the engine's epoch every [`EPOCH_TICK`], forever (one thread per engine).
fn start_ticker(engine: &Engine) {
    let weak = engine.weak();
    let spawned = std::thread::Builder::new()
        .name("tessera-epoch".into())
        .spawn(move || loop {
            std::thread::sleep(EPOCH_TICK);
            match weak.upgrade() {
                Some(e) => e.increment_epoch(),
                None => return,
            }
        });
    if let Err(e) = spawned {
        tracing::warn!(error = %e, "no epoch ticker: the wall-clock deadline is off (fuel still applies)");
    }
}
