//! The universe graph at galaxy scale: `core:condition/within_jumps` as a selection's
//! filter over a generated 10,000-system galaxy, against a hand-written breadth-first
//! search over `Vec` adjacency built from the same data, in the same run (figures are
//! ratios to that native code on the same machine and build).
//!
//! The galaxy: systems on a 100 x 100 grid (`x`, `y` 10 apart), each with lanes to its
//! right and lower neighbours kept with probability 3/4 from a fixed seed (two-way, in
//! `lanes`), ~3 lanes a system; one planet per system (its child: a planet's place is its
//! system); 8 palaces, buildings on planets spread over the grid, owned by player 0.
//! 20,017 objects in all.
//!
//! Groups (`within_jumps`), each selecting the planets within N jumps of a palace:
//!
//! - `engine_6` / `native_6`: N = 6 (~600 planets picked; FreeOrion's regional admin
//!   distance). The engine selects the 10,000 planets by tag, finds each one's place
//!   through `parent`, runs one bounded multi-source search and looks each place up.
//!   The native code runs the same search over `Vec<Vec<u32>>` and filters a `Vec` of
//!   planet → system indices.
//! - `native_world_6`, `native_world_30`: the same search and filter hand-written against
//!   the same `World` (tag index, `parent`, `lanes` lists read from objects): the cost of
//!   reading the persistent world, without the engine's layers.
//! - `engine_30` / `native_30`: N = 30 (most of the galaxy: the search dominates).
//! - `engine_6_scoped`: N = 6 with `of` selecting *friendly* palaces, which reads the
//!   scope (the acting player), so `of` is selected once per candidate (the search still
//!   runs once, as every candidate's selection is the same).
//!
//! Run: `cargo bench -p tessera-host --bench graph` (quick: append
//! `-- --warm-up-time 1 --measurement-time 3`; unset `RUST_BACKTRACE` first).

#![expect(
    missing_docs,
    reason = "`criterion_group!` generates an undocumented function"
)]

use std::collections::VecDeque;
use std::hint::black_box;
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use tessera_host::registry::Selector;
use tessera_host::rules::{Cx, Scope};
use tessera_host::{
    ContentSource, Game, Generation, Id, ObjId, Registry, ScriptedController, SourceText, Sym,
    Value, World,
};

const SIDE: usize = 100;
const SYSTEMS: usize = SIDE * SIDE;
const PALACES: usize = 8;

/// A fixed-seed xorshift: the same galaxy on every run, without a dependency.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// The galaxy as plain data: each system's neighbours (by index), which system each
/// palace stands in.
struct Galaxy {
    lanes: Vec<Vec<u32>>,
    palaces: Vec<u32>,
}

fn galaxy() -> Galaxy {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut lanes = vec![Vec::new(); SYSTEMS];
    for r in 0..SIDE {
        for c in 0..SIDE {
            let i = r * SIDE + c;
            for j in [
                (c + 1 < SIDE).then(|| i + 1),
                (r + 1 < SIDE).then(|| i + SIDE),
            ]
            .into_iter()
            .flatten()
            {
                if rng.next() % 4 != 0 {
                    lanes[i].push(j as u32);
                    lanes[j].push(i as u32);
                }
            }
        }
    }
    let palaces = (0..PALACES)
        .map(|_| (rng.next() % SYSTEMS as u64) as u32)
        .collect();
    Galaxy { lanes, palaces }
}

/// Bounded multi-source BFS over `Vec` adjacency, then the planets (one per system, in
/// system order) whose system is within `max`: the native baseline.
fn native_within(
    g: &Galaxy,
    max: u32,
    dist: &mut [u32],
    queue: &mut VecDeque<u32>,
    out: &mut Vec<u32>,
) {
    dist.fill(u32::MAX);
    queue.clear();
    for &p in &g.palaces {
        if dist[p as usize] == u32::MAX {
            dist[p as usize] = 0;
            queue.push_back(p);
        }
    }
    while let Some(s) = queue.pop_front() {
        let d = dist[s as usize];
        if d >= max {
            continue;
        }
        for &n in &g.lanes[s as usize] {
            if dist[n as usize] == u32::MAX {
                dist[n as usize] = d + 1;
                queue.push_back(n);
            }
        }
    }
    out.clear();
    out.extend((0..SYSTEMS as u32).filter(|&s| dist[s as usize] <= max));
}

/// The same search and filter written by hand against the same `World` (the tag index,
/// each planet's `parent`, `lanes` lists read from the objects): what reading the
/// persistent world costs, without the engine's selection and condition layers.
fn native_world_within(
    world: &World,
    palaces: &[ObjId],
    max: u32,
    dist: &mut [u32],
    queue: &mut VecDeque<ObjId>,
    out: &mut Vec<ObjId>,
) {
    let (lanes, planet) = (Sym::new("lanes"), Sym::new("planet"));
    dist.fill(u32::MAX);
    queue.clear();
    let parent = |o: ObjId| world.object(o).ok().and_then(|o| o.parent);
    for &p in palaces {
        if let Some(s) = parent(p).and_then(parent) {
            if dist[s.index as usize] == u32::MAX {
                dist[s.index as usize] = 0;
                queue.push_back(s);
            }
        }
    }
    while let Some(s) = queue.pop_front() {
        let d = dist[s.index as usize];
        if d >= max {
            continue;
        }
        if let Some(Value::List(items)) = world.base(s, lanes) {
            for n in items.iter().filter_map(Value::as_obj) {
                if dist[n.index as usize] == u32::MAX {
                    dist[n.index as usize] = d + 1;
                    queue.push_back(n);
                }
            }
        }
    }
    out.clear();
    out.extend(
        world
            .objects_tagged(planet)
            .filter(|&p| parent(p).is_some_and(|s| dist[s.index as usize] <= max)),
    );
}

const CONTENT: &str = r#"
[class.system]
[class.planet]
[class.palace]
[class.player]
[event.ping]

[trigger.jumps6]
when = { event = "event/ping" }
select = { type = "objects", tag = "planet", where = { type = "within_jumps", jumps = 6, of = { type = "objects", tag = "palace" } } }
do = []

[trigger.jumps30]
when = { event = "event/ping" }
select = { type = "objects", tag = "planet", where = { type = "within_jumps", jumps = 30, of = { type = "objects", tag = "palace" } } }
do = []

[trigger.scoped6]
when = { event = "event/ping" }
select = { type = "objects", tag = "planet", where = { type = "within_jumps", jumps = 6, of = { type = "objects", tag = "palace", owner = "friendly" } } }
do = []
"#;

fn id(s: &str) -> Id {
    Id::parse(s).unwrap_or_else(|e| panic!("{e}"))
}

/// The galaxy in a world: returns the game, player 0 and the planets in system order.
fn world(g: &Galaxy, gen: &Arc<Generation>) -> (Game, ObjId, Vec<ObjId>) {
    let mut game = Game::new(gen.clone(), 7, Box::new(ScriptedController::default()));
    let mut planets = Vec::new();
    let mut player = None;
    game.setup(|w| {
        let space = Sym::new("space");
        let (lanes, x, y) = (Sym::new("lanes"), Sym::new("x"), Sym::new("y"));
        let p0 = w.create(id("bench:class/player"), None, Sym::new("table"));
        w.tag(p0, Sym::new("player"))?;
        player = Some(p0);
        let systems: Vec<ObjId> = (0..SYSTEMS)
            .map(|_| w.create(id("bench:class/system"), None, space))
            .collect();
        for (i, &s) in systems.iter().enumerate() {
            let list: Vec<Value> = g.lanes[i]
                .iter()
                .map(|&j| Value::Obj(systems[j as usize]))
                .collect();
            w.set(s, lanes, Value::List(list.into()))?;
            w.set(s, x, Value::Int((i % SIDE * 10) as i64))?;
            w.set(s, y, Value::Int((i / SIDE * 10) as i64))?;
            let planet = w.create(id("bench:class/planet"), None, space);
            w.tag(planet, Sym::new("planet"))?;
            w.set_parent(planet, Some(s))?;
            planets.push(planet);
        }
        for &p in &g.palaces {
            let palace = w.create(id("bench:class/palace"), Some(p0), space);
            w.tag(palace, Sym::new("palace"))?;
            w.set_parent(palace, Some(planets[p as usize]))?;
        }
        Ok(())
    })
    .expect("setup");
    (game, player.expect("player"), planets)
}

fn bench_within_jumps(c: &mut Criterion) {
    let src = ContentSource::new("bench", SourceText::new("graph.toml", CONTENT.to_owned()));
    let gen = match Generation::build(Arc::new(Registry::with_core()), &[src], 1) {
        Ok(g) => Arc::new(g),
        Err(d) => panic!("benchmark content does not compile: {d}"),
    };
    let g = galaxy();
    let (game, player, planets) = world(&g, &gen);
    let rt = tessera_host::plugins::Runtime::default();
    let scope = Scope {
        this: Some(player),
        ..Scope::default()
    };
    let cx = Cx {
        world: game.world(),
        gen: &gen,
        scope: &scope,
        controller: None,
        rt: &rt,
    };
    let select = |name: &str| {
        gen.triggers
            .iter()
            .find(|t| t.origin.def.contains(name))
            .and_then(|t| t.select.as_ref())
            .unwrap_or_else(|| panic!("no trigger `{name}`"))
    };

    let mut group = c.benchmark_group("within_jumps");
    group.throughput(Throughput::Elements(SYSTEMS as u64));
    group.sample_size(30);
    let (mut dist, mut queue, mut native) = (vec![0; SYSTEMS], VecDeque::new(), Vec::new());
    let mut out = Vec::new();
    for (n, trigger) in [(6u32, "jumps6"), (30, "jumps30"), (6, "scoped6")] {
        // Both sides pick the same planets.
        native_within(&g, n, &mut dist, &mut queue, &mut native);
        out.clear();
        select(trigger).select(&cx, &mut out).expect("select");
        let want: Vec<ObjId> = native.iter().map(|&s| planets[s as usize]).collect();
        assert_eq!(out, want, "{trigger}");
        eprintln!("{trigger}: {} of {SYSTEMS} planets", out.len());
        let engine_name = match trigger {
            "scoped6" => "engine_6_scoped".to_owned(),
            _ => format!("engine_{n}"),
        };
        group.bench_function(&engine_name, |b| {
            b.iter(|| {
                out.clear();
                select(trigger)
                    .select(black_box(&cx), &mut out)
                    .expect("select");
                black_box(out.len())
            })
        });
        if trigger != "scoped6" {
            let palaces: Vec<ObjId> = game.world().objects_tagged(Sym::new("palace")).collect();
            let (mut wdist, mut wqueue, mut wout) = (
                vec![0; 2 * SYSTEMS + PALACES + 1],
                VecDeque::new(),
                Vec::new(),
            );
            native_world_within(cx.world, &palaces, n, &mut wdist, &mut wqueue, &mut wout);
            assert_eq!(wout, out, "native over the world: {trigger}");
            group.bench_function(format!("native_world_{n}"), |b| {
                b.iter(|| {
                    native_world_within(
                        black_box(cx.world),
                        &palaces,
                        n,
                        &mut wdist,
                        &mut wqueue,
                        &mut wout,
                    );
                    black_box(wout.len())
                })
            });
            group.bench_function(format!("native_{n}"), |b| {
                b.iter(|| {
                    native_within(black_box(&g), n, &mut dist, &mut queue, &mut native);
                    black_box(native.len())
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench_within_jumps);
criterion_main!(benches);
