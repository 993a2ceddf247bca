//! Wasm plugins vs native code on the same predicate, in one run: "the object is tagged
//! `beast` and its attack is at least 2".
//!
//! Everything is measured through the public API on a generation built by `mods::load`
//! from a temporary mod tree: a mod `beasts` with the example plugin
//! (`plugins/beasts`, built with `tessera_host::plugins::build::build`) and one content
//! file declaring two triggers that are never fired — they only hold the prepared
//! conditions and selectors the benchmark calls directly:
//!
//! - `native`: `{ all = [{ type = "has_tag", tag = "beast" }, { type = "compare",
//!   left = "target.attack", op = ">=", right = 2 }] }` (built-in `core` conditions);
//! - `plugin`: `{ type = "beasts:condition/is_beast", min_attack = 2 }`.
//!
//! Groups (throughput in objects; criterion's "elem/s" → ns per object = 1e9 / rate):
//!
//! - `predicate/rust_closure`: `world.has_tag(o, beast) && world.get_int(o, attack) >= 2`
//!   over 1,000 objects: the absolute floor.
//! - `predicate/native_single`: the built-in condition's `Condition::test`, once per
//!   object (with the object as `target`, as the engine does), 1,000 objects.
//! - `predicate/wasm_single`: the plugin condition's `Condition::test`, once per object:
//!   one `tessera_condition` call each (1,000 guest calls per iteration).
//! - `predicate/native_batch`: `Condition::test_many` on 1,000 objects (built-ins have no
//!   batch entry point; this is the default loop of `test`).
//! - `predicate/lua_single` and `predicate/lua_batch`: the same predicate written in Lua
//!   5.4 (`mlua`, vendored), calling two host functions per object (`has_tag`,
//!   `get_int`) with the same packed object handles and interned keys that cross into
//!   wasm: one Lua call per object, or one Lua call looping over 1,000 handles (input and
//!   output tables reused, answers read back). Lua is what most modding platforms embed;
//!   the sandboxed wasm plugin should beat it by 3x or more in both shapes.
//! - `predicate/wasm_batch`: `Condition::test_many` on 1,000 objects: one
//!   `tessera_condition_batch` call.
//! - `selector/native` and `selector/wasm`: the whole engine path, `Select::select` of
//!   `{ type = "core:selector/objects", where = <condition> }` over 10,000 objects (the
//!   engine batches plugin filters through `test_many`).
//! - `plugin_load`: for each example plugin, `wasmtime::Module::new` with the sandbox's
//!   code-generation settings and no cache (`compile_uncached`); `load_plugin` with a
//!   cache miss (`load_uncached`: a nonce custom section makes every iteration a new
//!   module — compile, link, instantiate, describe, checks); `load_plugin` with a cache
//!   hit (`load_cached`); and for `beasts`, `first_call` (a new world's first plugin
//!   call: instantiate + replay prepare + the call) vs `warm_call`.
//!
//! The compiled-module cache goes to a fresh temp dir (`TESSERA_CACHE_DIR`), so nothing
//! from earlier runs is reused.
//!
//! Run: `cargo bench -p tessera-host --bench plugins` (quick: append
//! `-- --warm-up-time 1 --measurement-time 3`).

#![expect(
    missing_docs,
    reason = "`criterion_group!` generates an undocumented function"
)]

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use tessera_host::mods::load;
use tessera_host::plugins::{load_plugin, PluginLimits, PluginRequest, Runtime};
use tessera_host::registry::{Condition, Selector};
use tessera_host::rules::select::Select;
use tessera_host::rules::{Cx, Scope};
use tessera_host::{Game, Generation, Id, ObjId, Registry, ScriptedController, Sym};

const OBJECTS: usize = 10_000;
const BATCH: usize = 1_000;
const MIN_ATTACK: i64 = 2;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A fresh cache dir for this process, set before any engine is created.
fn setup_cache() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("tessera-bench-cache-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("cache dir");
        // Before any engine exists: engines read it once, when they are created.
        std::env::set_var("TESSERA_CACHE_DIR", &dir);
        dir
    })
}

/// Builds the example plugins (like `tessera build plugins/*`); returns their wasm files.
fn built_plugins() -> &'static Vec<(String, PathBuf)> {
    static BUILT: OnceLock<Vec<(String, PathBuf)>> = OnceLock::new();
    BUILT.get_or_init(|| {
        let dirs: Vec<PathBuf> = ["beasts", "counter", "crits", "tactics"]
            .iter()
            .map(|p| repo().join("plugins").join(p))
            .collect();
        tessera_host::plugins::build::build(&dirs)
            .unwrap_or_else(|e| panic!("building the example plugins failed:\n{e}"))
            .into_iter()
            .map(|b| (b.name, b.wasm))
            .collect()
    })
}

const CONTENT: &str = r#"
[event.probe]

[class.wolf]
properties = { attack = 3 }
tags = ["beast"]

[class.cub]
properties = { attack = 1 }
tags = ["beast"]

[class.rock]
properties = { attack = 5 }

[trigger.native]
when = { event = "probe", condition = { all = [{ type = "has_tag", tag = "beast" }, { type = "compare", left = "target.attack", op = ">=", right = 2 }] } }
select = { type = "core:selector/objects", where = { all = [{ type = "has_tag", tag = "beast" }, { type = "compare", left = "target.attack", op = ">=", right = 2 }] } }
do = []

[trigger.plugin]
when = { event = "probe", condition = { type = "beasts:condition/is_beast", min_attack = 2 } }
select = { type = "core:selector/objects", where = { type = "beasts:condition/is_beast", min_attack = 2 } }
do = []
"#;

struct Setup {
    _tmp: TempDir,
    gen: Arc<Generation>,
    game: Game,
    objs: Vec<ObjId>,
    expected: usize,
}

struct TempDir(PathBuf);
impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn setup() -> Setup {
    setup_cache();
    let beasts = built_plugins()
        .iter()
        .find(|(n, _)| n == "beasts")
        .expect("beasts built")
        .1
        .clone();
    let root = std::env::temp_dir().join(format!("tessera-bench-plugins-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let m = root.join("mods/beasts");
    std::fs::create_dir_all(m.join("plugins")).expect("mkdir");
    std::fs::create_dir_all(m.join("content")).expect("mkdir");
    std::fs::copy(&beasts, m.join("plugins/beasts.wasm")).expect("copy wasm");
    std::fs::write(
        m.join("mod.toml"),
        "[mod]\nid = \"beasts\"\nversion = \"0.1.0\"\napi = \"0.1\"\n\n[[plugin]]\nfile = \"plugins/beasts.wasm\"\nprovides = [\"condition/is_beast\"]\n",
    )
    .expect("mod.toml");
    std::fs::write(m.join("content/bench.toml"), CONTENT).expect("content");
    let loaded = load(&[root.join("mods")], None, Arc::new(Registry::with_core()));
    assert_eq!(
        loaded.loaded,
        ["beasts"],
        "{:?}",
        loaded.all_diagnostics().collect::<Vec<_>>()
    );
    let gen = loaded.generation.clone().expect("generation");
    let mut game = Game::new(gen.clone(), 1, Box::new(ScriptedController::default()));
    let classes = [
        Id::parse("beasts:class/wolf").expect("id"),
        Id::parse("beasts:class/cub").expect("id"),
        Id::parse("beasts:class/rock").expect("id"),
    ];
    let mut objs = Vec::with_capacity(OBJECTS);
    for i in 0..OBJECTS {
        objs.push(game.spawn(classes[i % 3], None, "board").expect("spawn"));
    }
    // Wolves (every third object) are the only beasts with attack >= 2.
    let expected = OBJECTS.div_ceil(3);
    Setup {
        _tmp: TempDir(root),
        gen,
        game,
        objs,
        expected,
    }
}

/// The condition and selector of the trigger whose definition name contains `name`.
fn trigger_parts<'g>(gen: &'g Generation, name: &str) -> (&'g dyn Condition, &'g Select) {
    let t = gen
        .triggers
        .iter()
        .find(|t| t.origin.def.contains(name))
        .unwrap_or_else(|| panic!("no trigger `{name}`"));
    (
        t.condition.as_deref().expect("condition"),
        t.select.as_ref().expect("select"),
    )
}

/// The predicate in Lua 5.4 (mlua, vendored), reading the same world through two host
/// functions registered into Lua, `has_tag(obj, tag)` and `get_int(obj, key)`: objects
/// cross as the ABI's packed integer handles and keys as integers interned once at load,
/// exactly what crosses into the wasm plugin (`plugin-api/ABI.md`). The host functions
/// hold a snapshot of the world (a `World` clone is O(1)), as the wasm host holds a
/// pointer to it.
struct LuaPredicate {
    lua: mlua::Lua,
    single: mlua::Function,
    batch: mlua::Function,
    /// The batch's input (object handles) and output (answers), made once and reused,
    /// as the wasm batch reuses its guest buffer.
    input: mlua::Table,
    output: mlua::Table,
    len: usize,
}

const LUA_PREDICATE: &str = r#"
local has_tag, get_int, BEAST, ATTACK, MIN = ...
local function is_beast(o)
  return has_tag(o, BEAST) and get_int(o, ATTACK) >= MIN
end
local function batch(objs, out)
  for i = 1, #objs do
    out[i] = is_beast(objs[i])
  end
end
return is_beast, batch
"#;

impl LuaPredicate {
    fn new(world: &tessera_host::World, objs: &[ObjId]) -> LuaPredicate {
        let lua = mlua::Lua::new();
        // The symbol table: what the wasm host's `intern` import fills.
        let syms = std::rc::Rc::new(vec![Sym::new("beast"), Sym::new("attack")]);
        let w = std::rc::Rc::new(world.clone());
        let (w2, syms2) = (w.clone(), syms.clone());
        let has_tag = lua
            .create_function(move |_, (o, t): (i64, usize)| {
                Ok(match (unpack(o), syms.get(t)) {
                    (Some(o), Some(t)) => w.has_tag(o, *t),
                    _ => false,
                })
            })
            .expect("has_tag");
        let get_int = lua
            .create_function(move |_, (o, k): (i64, usize)| {
                Ok(match (unpack(o), syms2.get(k)) {
                    (Some(o), Some(k)) => w2.get_int(o, *k),
                    _ => 0,
                })
            })
            .expect("get_int");
        let (single, batch): (mlua::Function, mlua::Function) = lua
            .load(LUA_PREDICATE)
            .call((has_tag, get_int, 0, 1, MIN_ATTACK))
            .expect("the Lua predicate loads");
        let input = lua.create_table().expect("table");
        for (i, o) in objs.iter().enumerate() {
            input.raw_set(i + 1, pack(*o)).expect("set");
        }
        let output = lua.create_table().expect("table");
        LuaPredicate {
            lua,
            single,
            batch,
            input,
            output,
            len: objs.len(),
        }
    }

    fn single(&self, o: ObjId) -> bool {
        self.single.call(pack(o)).expect("lua call")
    }

    fn single_all(&self, objs: &[ObjId]) -> Vec<bool> {
        objs.iter().map(|&o| self.single(o)).collect()
    }

    /// One Lua call over every object; the answers read back.
    fn batch(&self) -> Vec<bool> {
        let () = self
            .batch
            .call((&self.input, &self.output))
            .expect("lua batch");
        (1..=self.len)
            .map(|i| self.output.raw_get(i).expect("answer"))
            .collect()
    }
}

impl Drop for LuaPredicate {
    fn drop(&mut self) {
        // Collect while the world snapshot is still alive (closures hold it).
        let _ = self.lua.gc_collect();
    }
}

fn pack(o: ObjId) -> i64 {
    tessera_plugin_api::abi::pack_obj(o.index, o.generation)
}

fn unpack(o: i64) -> Option<ObjId> {
    tessera_plugin_api::abi::unpack_obj(o).map(|(index, generation)| ObjId { index, generation })
}

fn bench_predicate(c: &mut Criterion) {
    let s = setup();
    let rt = Runtime::default();
    let scope = Scope::default();
    let cx = Cx {
        world: s.game.world(),
        gen: &s.gen,
        scope: &scope,
        controller: None,
        rt: &rt,
    };
    let (native, native_sel) = trigger_parts(&s.gen, "native");
    let (plugin, plugin_sel) = trigger_parts(&s.gen, "plugin");
    let objs = &s.objs[..BATCH];
    let world = s.game.world();
    let (beast, attack) = (Sym::new("beast"), Sym::new("attack"));

    // Every variant agrees on the answers.
    let closure = |o: ObjId| world.has_tag(o, beast) && world.get_int(o, attack) >= MIN_ATTACK;
    let single = |c: &dyn Condition, o: ObjId| {
        let sc = scope.with_target(o);
        c.test(&cx.with_scope(&sc), o).expect("test")
    };
    let want: Vec<bool> = objs.iter().map(|&o| closure(o)).collect();
    for (name, c) in [("native", native), ("plugin", plugin)] {
        let got: Vec<bool> = objs.iter().map(|&o| single(c, o)).collect();
        assert_eq!(got, want, "{name} single");
        let mut out = Vec::new();
        c.test_many(&cx, objs, &mut out).expect("test_many");
        assert_eq!(out, want, "{name} batch");
    }
    for (name, sel) in [("native", native_sel), ("plugin", plugin_sel)] {
        let mut out = Vec::new();
        sel.select(&cx, &mut out).expect("select");
        assert_eq!(out.len(), s.expected, "{name} selector");
    }

    let mut group = c.benchmark_group("predicate");
    group.throughput(Throughput::Elements(BATCH as u64));
    group.bench_function("rust_closure", |b| {
        b.iter(|| {
            let mut n = 0usize;
            for &o in black_box(objs) {
                n += usize::from(closure(o));
            }
            black_box(n)
        })
    });
    for (name, cond) in [("native_single", native), ("wasm_single", plugin)] {
        group.bench_function(name, |b| {
            b.iter(|| {
                let mut n = 0usize;
                for &o in black_box(objs) {
                    n += usize::from(single(cond, o));
                }
                black_box(n)
            })
        });
    }
    let mut out = Vec::with_capacity(BATCH);
    for (name, cond) in [("native_batch", native), ("wasm_batch", plugin)] {
        group.bench_function(name, |b| {
            b.iter(|| {
                out.clear();
                cond.test_many(&cx, black_box(objs), &mut out)
                    .expect("test_many");
                black_box(out.len())
            })
        });
    }
    let lua = LuaPredicate::new(world, objs);
    assert_eq!(lua.single_all(objs), want, "lua single");
    assert_eq!(lua.batch(), want, "lua batch");
    group.bench_function("lua_single", |b| {
        b.iter(|| {
            let mut n = 0usize;
            for &o in black_box(objs) {
                n += usize::from(lua.single(o));
            }
            black_box(n)
        })
    });
    group.bench_function("lua_batch", |b| b.iter(|| black_box(lua.batch().len())));
    group.finish();

    let mut group = c.benchmark_group("selector");
    group.throughput(Throughput::Elements(OBJECTS as u64));
    group.sample_size(30);
    let mut out = Vec::with_capacity(OBJECTS);
    for (name, sel) in [("native", native_sel), ("wasm", plugin_sel)] {
        group.bench_function(name, |b| {
            b.iter(|| {
                out.clear();
                sel.select(&cx, &mut out).expect("select");
                black_box(out.len())
            })
        });
    }
    group.finish();

    // Instantiation, through a new world's (Runtime's) first call.
    let mut group = c.benchmark_group("plugin_load");
    group.sample_size(20);
    let o = s.objs[0];
    group.bench_function("beasts/first_call", |b| {
        b.iter_batched(
            Runtime::default,
            |rt| {
                let cx = Cx {
                    world: s.game.world(),
                    gen: &s.gen,
                    scope: &scope,
                    controller: None,
                    rt: &rt,
                };
                let r = plugin.test(&cx, o).expect("test");
                black_box(r);
                rt
            },
            // One at a time: every live Runtime holds a slot of the instance pool.
            BatchSize::PerIteration,
        )
    });
    group.bench_function("beasts/warm_call", |b| {
        b.iter(|| black_box(plugin.test(&cx, black_box(o)).expect("test")))
    });
    group.finish();
}

/// Appends a custom section named `bench-nonce` holding `n`: a different module to the
/// cache (which keys on the bytes), the same code to the engine.
fn with_nonce(bytes: &[u8], n: u64) -> Vec<u8> {
    let name = b"bench-nonce";
    let payload = n.to_le_bytes();
    let size = 1 + name.len() + payload.len();
    let mut out = bytes.to_vec();
    out.push(0); // custom section id
    out.push(u8::try_from(size).expect("small")); // LEB128 of a size < 128
    out.push(u8::try_from(name.len()).expect("small"));
    out.extend_from_slice(name);
    out.extend_from_slice(&payload);
    out
}

/// The sandbox's code-generation settings (host/src/plugins/engine.rs), without a cache.
fn uncached_engine() -> wasmtime::Engine {
    let mut config = wasmtime::Config::new();
    config
        .consume_fuel(true)
        .epoch_interruption(true)
        .cranelift_nan_canonicalization(true)
        .max_wasm_stack(512 << 10);
    wasmtime::Engine::new(&config).expect("engine")
}

fn provides(name: &str) -> (Vec<String>, Vec<String>) {
    let v = |s: &[&str]| s.iter().map(|x| (*x).to_owned()).collect::<Vec<_>>();
    match name {
        "beasts" => (v(&["condition/is_beast"]), v(&[])),
        "counter" => (v(&["action/count"]), v(&[])),
        "crits" => (v(&["node/crit"]), v(&["random"])),
        "tactics" => (v(&["selector/most_attack", "action/chain_damage"]), v(&[])),
        other => panic!("unknown plugin {other}"),
    }
}

fn bench_load(c: &mut Criterion) {
    setup_cache();
    let engine = uncached_engine();
    let nonce = AtomicU64::new(0);
    let mut group = c.benchmark_group("plugin_load");
    group.sample_size(10);
    for (name, wasm) in built_plugins() {
        let bytes = std::fs::read(wasm).expect("read wasm");
        let (provides, caps) = provides(name);
        let tmp =
            std::env::temp_dir().join(format!("tessera-bench-load-{name}-{}", std::process::id()));
        std::fs::create_dir_all(tmp.join("plugins")).expect("mkdir");
        let file = format!("plugins/{name}.wasm");
        let req = PluginRequest {
            mod_id: name,
            mod_dir: &tmp,
            file: &file,
            provides: &provides,
            asked: &caps,
            granted: &caps,
            trusted_native: false,
        };
        eprintln!("{name}.wasm: {} bytes", bytes.len());
        group.bench_function(format!("{name}/compile_uncached"), |b| {
            b.iter(|| wasmtime::Module::new(&engine, black_box(&bytes)).expect("compile"))
        });
        group.bench_function(format!("{name}/load_uncached"), |b| {
            b.iter_batched(
                || {
                    let n = nonce.fetch_add(1, Ordering::Relaxed);
                    std::fs::write(tmp.join(&file), with_nonce(&bytes, n)).expect("write");
                },
                |()| load_plugin(req, PluginLimits::default()).expect("load"),
                BatchSize::PerIteration,
            )
        });
        std::fs::write(tmp.join(&file), &bytes).expect("write");
        load_plugin(req, PluginLimits::default()).expect("warm the cache");
        group.bench_function(format!("{name}/load_cached"), |b| {
            b.iter(|| load_plugin(req, PluginLimits::default()).expect("load"))
        });
        let _ = std::fs::remove_dir_all(&tmp);
    }
    group.finish();
}

criterion_group!(benches, bench_predicate, bench_load);
criterion_main!(benches);
