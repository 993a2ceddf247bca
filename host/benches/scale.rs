//! The world at galaxy scale: creating objects, aura recompute over 100,000 objects, and
//! memory per object and per world. Every engine figure has a hand-written native loop
//! over the same data, measured in the same run, so results read as ratios.
//!
//! Groups:
//!
//! - `create`: `World::create` of 10,000 and of 100,000 objects into one zone (each
//!   joins the end of its group's slot order), vs pushing the same records into a `Vec`.
//!   `engine_N` creates and drops the world, `engine_N_kept` creates it and drops it
//!   outside the clock (the difference is the teardown, which at 100k objects runs out of
//!   cache). Targets: 100k < 100 ms, and 100k ≤ 12x the 10k figure (no quadratic join).
//! - `aura`: 100,000 units and 2,000 aura holders. Units carry one of 200 tags
//!   (`t0`..`t199`, 500 units each), sit in `board` or `reserve`, belong to one of two
//!   players, and have a `power` 0..9. Aura `j` selects units tagged `t{j % 200}` in
//!   `board`, owned by its holder's owner (`friendly`), with `target.power >= j % 10`,
//!   and adds 1 to their `attack`: selection by tag, zone, owner and a property
//!   comparison. `engine_full` recomputes every aura from nothing (a fresh snapshot of
//!   the world before its first recompute, then `rules::aura::recompute`);
//!   `native_full` does the same selection and sums with plain structs and a per-tag
//!   index (the engine has one too). `engine_one_change` sets one unit's `power`, then
//!   recomputes and reads the effective `attack` of the unit (the only value that
//!   changed); `native_one_change` re-tests that unit against the auras of its tag.
//!   Targets: full < 50 ms and ≤ 5x native; one change < 100 µs.
//!
//! Memory (printed, not timed): resident bytes of a world of 100,000 objects, and of
//! 1,000 arena matches in one process sharing one generation (bytes per world).
//! Targets: < 200 MB and < 2 MB per world.
//!
//! Run: `cargo bench -p tessera-host --bench scale` (quick: append
//! `-- --warm-up-time 1 --measurement-time 3`).

#![expect(
    missing_docs,
    reason = "`criterion_group!` generates an undocumented function"
)]

use std::fmt::Write as _;
use std::hint::black_box;
use std::path::PathBuf;
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use tessera_host::plugins::Runtime;
use tessera_host::rules::aura;
use tessera_host::{ContentSource, Generation, Id, ObjId, Registry, SourceText, Sym, Value, World};

/// The `tessera` binary's allocator (`host/src/main.rs`): creating and dropping 100,000
/// objects is bound by small allocations, and the system allocator's free-list upkeep
/// grows with the heap where mimalloc's does not.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const UNITS: usize = 100_000;
const TAGS: usize = 200;
const AURAS: usize = 2_000;

fn id(s: &str) -> Id {
    Id::parse(s).unwrap_or_else(|e| panic!("{e}"))
}

// ---------------------------------------------------------------------------------------
// Create
// ---------------------------------------------------------------------------------------

/// The record a native world would push per object (class, owner, zone, slot).
#[expect(
    dead_code,
    reason = "written, never read: it stands for the stored object"
)]
#[derive(Clone, Copy)]
struct NativeObject {
    class: Id,
    owner: Option<u32>,
    zone: Sym,
    slot: i64,
}

fn bench_create(c: &mut Criterion) {
    let class = id("bench:class/unit");
    let zone = Sym::new("space");
    let mut group = c.benchmark_group("create");
    group.sample_size(10);
    for n in [10_000usize, 100_000] {
        let fill = || {
            let mut w = World::new(1);
            for _ in 0..n {
                w.create(class, None, zone);
            }
            w
        };
        // Creating, then dropping the world (its teardown walks every object).
        group.bench_function(format!("engine_{n}"), |b| b.iter(|| black_box(fill())));
        // Creating only: the world is dropped outside the clock.
        group.bench_function(format!("engine_{n}_kept"), |b| {
            b.iter_with_large_drop(|| black_box(fill()))
        });
        group.bench_function(format!("native_{n}"), |b| {
            b.iter(|| {
                let mut v: Vec<NativeObject> = Vec::new();
                for i in 0..n {
                    v.push(NativeObject {
                        class,
                        owner: None,
                        zone,
                        slot: i64::try_from(i).unwrap_or(0),
                    });
                }
                black_box(v)
            })
        });
    }
    group.finish();
}

// ---------------------------------------------------------------------------------------
// Auras
// ---------------------------------------------------------------------------------------

fn threshold(j: usize) -> i64 {
    i64::try_from(j % 10).unwrap_or(0)
}

fn power_of(i: usize) -> i64 {
    i64::try_from((i / 7) % 10).unwrap_or(0)
}

fn in_board(i: usize) -> bool {
    (i / 3) % 2 == 0
}

fn aura_content() -> String {
    let mut s = String::from("[class.unit]\n\n[class.player]\n\n");
    for j in 0..AURAS {
        let _ = writeln!(
            s,
            "[class.holder{j}]\n\n[[class.holder{j}.aura]]\n\
             select = {{ type = \"objects\", tag = \"t{}\", zone = \"board\", owner = \"friendly\", \
             where = {{ type = \"compare\", left = \"target.power\", op = \">=\", right = {} }} }}\n\
             modifiers = [{{ key = \"attack\", op = \"add\", value = 1 }}]\n",
            j % TAGS,
            threshold(j)
        );
    }
    s
}

fn generation() -> Arc<Generation> {
    let src = ContentSource::new("bench", SourceText::new("scale.toml", aura_content()));
    match Generation::build(Arc::new(Registry::with_core()), &[src], 1) {
        Ok(g) => Arc::new(g),
        Err(d) => panic!("benchmark content does not compile: {d:?}"),
    }
}

/// The world before any recompute: two players, 100k units, 2,000 holders.
fn aura_world() -> (World, Vec<ObjId>, [ObjId; 2]) {
    let mut w = World::new(1);
    let player = id("bench:class/player");
    let players = [
        w.create(player, None, Sym::new("table")),
        w.create(player, None, Sym::new("table")),
    ];
    let unit = id("bench:class/unit");
    let tags: Vec<Sym> = (0..TAGS).map(|t| Sym::new(&format!("t{t}"))).collect();
    let (board, reserve) = (Sym::new("board"), Sym::new("reserve"));
    let (power, attack) = (Sym::new("power"), Sym::new("attack"));
    let units: Vec<ObjId> = (0..UNITS)
        .map(|i| {
            let zone = if in_board(i) { board } else { reserve };
            let u = w.create(unit, Some(players[i % 2]), zone);
            w.tag(u, tags[i % TAGS]).expect("tag");
            w.set(u, power, Value::Int(power_of(i))).expect("set");
            w.set(u, attack, Value::Int(1)).expect("set");
            u
        })
        .collect();
    for j in 0..AURAS {
        w.create(
            id(&format!("bench:class/holder{j}")),
            Some(players[j % 2]),
            board,
        );
    }
    (w, units, players)
}

/// The attack the rules give unit `i` with power `p`.
fn expected_attack(i: usize, p: i64) -> i64 {
    if !in_board(i) {
        return 1;
    }
    1 + (0..AURAS)
        .filter(|&j| j % TAGS == i % TAGS && j % 2 == i % 2 && p >= threshold(j))
        .count() as i64
}

struct NativeUnit {
    owner: usize,
    board: bool,
    power: i64,
    attack: f64,
}

struct NativeAura {
    tag: usize,
    owner: usize,
    threshold: i64,
}

/// Every aura selects from its tag's units and adds to the effective attacks.
fn native_full(units: &[NativeUnit], by_tag: &[Vec<usize>], auras: &[NativeAura], out: &mut [f64]) {
    for (o, u) in out.iter_mut().zip(units) {
        *o = u.attack;
    }
    for a in auras {
        for &i in &by_tag[a.tag] {
            let u = &units[i];
            if u.board && u.owner == a.owner && u.power >= a.threshold {
                out[i] += 1.0;
            }
        }
    }
}

/// One unit's power changed: re-test it against its tag's auras.
fn native_one(
    units: &[NativeUnit],
    auras_by_tag: &[Vec<usize>],
    auras: &[NativeAura],
    i: usize,
) -> f64 {
    let u = &units[i];
    let mut v = u.attack;
    for &a in &auras_by_tag[i % TAGS] {
        let a = &auras[a];
        if u.board && u.owner == a.owner && u.power >= a.threshold {
            v += 1.0;
        }
    }
    v
}

fn bench_auras(c: &mut Criterion) {
    let gen = generation();
    let rt = Runtime::default();
    let (fresh, units, _) = aura_world();
    let mut w = fresh.clone();
    aura::recompute(&mut w, &gen, &rt).expect("recompute");
    let attack = Sym::new("attack");
    for i in [0, 1, 6, 7, 12, 99_999] {
        assert_eq!(
            w.get_int(units[i], attack),
            expected_attack(i, power_of(i)),
            "unit {i}"
        );
    }
    let mut group = c.benchmark_group("aura");
    group.sample_size(10);
    group.bench_function("engine_full", |b| {
        b.iter_batched(
            || fresh.clone(),
            |mut w| {
                aura::recompute(&mut w, &gen, &rt).expect("recompute");
                w
            },
            BatchSize::LargeInput,
        )
    });

    let power = Sym::new("power");
    let target = 0usize;
    let mut high = false;
    group.bench_function("engine_one_change", |b| {
        b.iter(|| {
            high = !high;
            let p = if high { 9 } else { 0 };
            w.set(units[target], power, Value::Int(p)).expect("set");
            aura::recompute(&mut w, &gen, &rt).expect("recompute");
            black_box(w.get_int(units[target], attack))
        })
    });
    let p = w.get_int(units[target], power);
    assert_eq!(w.get_int(units[target], attack), expected_attack(target, p));

    let mut nunits: Vec<NativeUnit> = (0..UNITS)
        .map(|i| NativeUnit {
            owner: i % 2,
            board: in_board(i),
            power: power_of(i),
            attack: 1.0,
        })
        .collect();
    let mut by_tag = vec![Vec::new(); TAGS];
    for i in 0..UNITS {
        by_tag[i % TAGS].push(i);
    }
    let nauras: Vec<NativeAura> = (0..AURAS)
        .map(|j| NativeAura {
            tag: j % TAGS,
            owner: j % 2,
            threshold: threshold(j),
        })
        .collect();
    let mut auras_by_tag = vec![Vec::new(); TAGS];
    for (j, a) in nauras.iter().enumerate() {
        auras_by_tag[a.tag].push(j);
    }
    let mut out = vec![0.0; UNITS];
    native_full(&nunits, &by_tag, &nauras, &mut out);
    assert_eq!(out[6] as i64, expected_attack(6, power_of(6)));
    group.bench_function("native_full", |b| {
        b.iter(|| {
            native_full(black_box(&nunits), &by_tag, &nauras, &mut out);
            black_box(&out);
        })
    });
    let mut high = false;
    group.bench_function("native_one_change", |b| {
        b.iter(|| {
            high = !high;
            nunits[target].power = if high { 9 } else { 0 };
            black_box(native_one(&nunits, &auras_by_tag, &nauras, target))
        })
    });
    group.finish();
}

// ---------------------------------------------------------------------------------------
// Memory
// ---------------------------------------------------------------------------------------

/// Resident set size of this process, in bytes (Linux `/proc/self/statm`).
fn resident() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The arena generation (`mods/` with `server.toml`), its plugins built first.
fn arena_generation() -> Arc<Generation> {
    let plugin = repo().join("plugins").join("arena-plus");
    let built = tessera_host::plugins::build::build(&[plugin])
        .unwrap_or_else(|e| panic!("building arena-plus failed:\n{e}"));
    let dest = repo().join("mods/arena-plus/plugins");
    std::fs::create_dir_all(&dest).expect("plugins folder");
    for b in built {
        std::fs::copy(
            &b.wasm,
            dest.join(format!("{}.wasm", b.name.replace('-', "_"))),
        )
        .expect("copy plugin");
    }
    let path = repo().join("server.toml");
    let text = std::fs::read_to_string(&path).expect("server.toml");
    let server = tessera_host::mods::ServerConfig::parse(&path, &text, &repo())
        .unwrap_or_else(|d| panic!("server.toml: {d:?}"));
    let dirs = server.mod_dirs.clone();
    let loaded = tessera_host::mods::load(&dirs, Some(&server), Arc::new(Registry::with_core()));
    loaded.generation.clone().expect("the arena mods load")
}

fn report_memory() {
    let Some(before) = resident() else {
        println!("memory: /proc/self/statm unreadable; skipped");
        return;
    };
    let (w, _, _) = aura_world();
    let after = resident().unwrap_or(before);
    let bytes = after.saturating_sub(before);
    println!(
        "memory: a world of {} objects: {:.1} MB resident ({} bytes/object; target < 200 MB)",
        UNITS + AURAS + 2,
        bytes as f64 / 1e6,
        bytes / (UNITS as u64 + AURAS as u64 + 2)
    );
    drop(w);

    let gen = arena_generation();
    let before = resident().unwrap_or(0);
    let mut matches = Vec::new();
    for seed in 0..1_000u64 {
        let agents: Vec<Box<dyn tessera_host::Controller>> = (0..2)
            .map(|i| {
                Box::new(tessera_host::play::RandomAgent::new(seed * 2 + i))
                    as Box<dyn tessera_host::Controller>
            })
            .collect();
        let m = tessera_host::play::Match::new(
            gen.clone(),
            seed,
            agents,
            std::rc::Rc::new(|_: &str| None),
            &mut |_| {},
        )
        .expect("match");
        matches.push(m);
    }
    let after = resident().unwrap_or(before);
    let per = after.saturating_sub(before) / 1_000;
    println!(
        "memory: 1,000 arena matches sharing one generation: {per} bytes/world ({:.2} MB; target < 2 MB)",
        per as f64 / 1e6
    );
}

fn bench_memory(_c: &mut Criterion) {
    report_memory();
}

criterion_group!(benches, bench_memory, bench_create, bench_auras);
criterion_main!(benches);
