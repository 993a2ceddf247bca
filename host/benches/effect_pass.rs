//! One turn's effects pass over a generated universe of ~100,000 objects holding 2,000
//! effects groups (issue 16), against a hand-written native loop over the same data in
//! the same run.
//!
//! The universe: 10 empires, 2,000 systems, 20,000 planets (10 a system; 100 owned by
//! each empire, half with the industry focus), 78,000 buildings (1,000 of them — one on
//! each owned planet — hold an effects group), and 100 researched techs an empire (1,000
//! tech objects, each holding one group): 101,010 objects, 2,000 effects groups.
//!
//! - A tech's group acts for its empire's capital and targets the empire's planets with
//!   one focus (`planet`, owned by the source's owner, `focus` industry for even techs,
//!   research for odd ones): `target_industry = value + target.population * 0.01`, or
//!   `target_research = value * 1.01 + 0.1`; priorities 0..90.
//! - A building's group targets its planet: `max_troops = value + 2` in stacking group
//!   `garrison` for half the building kinds (so only one of those counts a planet).
//! - The pass resets `target_industry`, `target_research` and `max_troops` and clamps
//!   `troops` to `max_troops`; each turn adds 1 troop (a group of every building kind).
//!
//! `engine_turn` raises the `turn` event (one command: snapshot, `run_pass`, aura
//! recompute). `native_turn` does the same matching, resets, priority-ordered application
//! with stacking and clamping over plain `Vec`s. The ratio of the two is the engine's cost.
//!
//! No effect here reads a property the pass writes (but through `value`), so the pass
//! keeps its running values aside and a turn like the last writes nothing.
//! `engine_turn_writing` is the same universe with one more group that runs an action
//! (it tags the capital, which changes no meter): a pass running actions writes each
//! effect's value to the world as it goes, as FreeOrion's own content does (its effects
//! read meters other effects write, and some run actions).
//!
//! Run: `cargo bench -p tessera-host --bench effect_pass` (quick: append
//! `-- --warm-up-time 1 --measurement-time 5`).

#![expect(
    missing_docs,
    reason = "`criterion_group!` generates an undocumented function"
)]

use std::fmt::Write as _;
use std::hint::black_box;
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, Criterion};
use tessera_host::{
    ContentSource, Event, Game, Generation, Id, ObjId, Registry, ScriptedController, SourceText,
    Sym, Value,
};

const EMPIRES: usize = 10;
const SYSTEMS: usize = 2_000;
const PLANETS_PER_SYSTEM: usize = 10;
const OWNED_PER_EMPIRE: usize = 100;
const TECHS: usize = 100;
const BUILDING_KINDS: usize = 50;
const PLAIN_BUILDINGS: usize = 77_000;

/// The rules: the pass, the universe's classes, 100 techs and 50 building kinds; with
/// `writing`, a palace whose group runs an action (see the module docs).
fn content(writing: bool) -> String {
    let mut s = String::from(
        r#"
[pass.effects]
reset = { target_industry = 0.0, target_research = 0.0, max_troops = 0.0 }
clamp = [{ key = "troops", min = 0, max = "target.max_troops" }]

[event.turn]
[trigger.turn]
when = "turn"
do = [{ type = "run_pass", pass = "effects" }]

[class.empire]
tags = ["player"]
[class.system]
tags = ["system"]
properties = { x = 0.0, y = 0.0 }
[class.planet]
tags = ["planet"]
properties = { population = 0.0, focus = "", target_industry = 0.0, target_research = 0.0, max_troops = 0.0, troops = 0.0 }
[class.building]
tags = ["building"]
"#,
    );
    for t in 0..TECHS {
        let (focus, key, value) = if t % 2 == 0 {
            (
                "industry",
                "target_industry",
                "value + target.population * 0.01",
            )
        } else {
            ("research", "target_research", "value * 1.01 + 0.1")
        };
        let _ = write!(
            s,
            r#"
[class.tech{t}]
tags = ["tech"]
[[class.tech{t}.effects]]
source = "self.owner.capital"
priority = {p}
scope = {{ type = "objects", zone = "universe", tag = "planet", owner = "friendly", where = {{ type = "is", key = "focus", value = "{focus}" }} }}
effects = [{{ key = "{key}", value = "{value}" }}]
"#,
            p = (t % 10) * 10
        );
    }
    if writing {
        s.push_str(
            r#"
[class.palace]
[[class.palace.effects]]
source = "self.owner.capital"
do = [{ type = "tag", tag = "seat_of_power" }]
"#,
        );
    }
    for k in 0..BUILDING_KINDS {
        let stacking = if k % 2 == 0 {
            "stacking = \"garrison\"\n"
        } else {
            ""
        };
        let _ = write!(
            s,
            r#"
[class.building{k}]
tags = ["building"]
[[class.building{k}.effects]]
priority = 50
{stacking}scope = {{ type = "object", object = "self.parent" }}
effects = [{{ key = "max_troops", value = "value + 2" }}, {{ key = "troops", value = "value + 1" }}]
"#
        );
    }
    s
}

/// The universe as plain data, for the native loop (and to build the engine's world).
struct Universe {
    /// Each planet: owner (empire index), industry focus, population.
    planets: Vec<(Option<usize>, bool, f64)>,
    /// Each group-holding building: its kind and its planet.
    buildings: Vec<(usize, usize)>,
}

fn universe() -> Universe {
    let mut planets = Vec::with_capacity(SYSTEMS * PLANETS_PER_SYSTEM);
    for i in 0..SYSTEMS * PLANETS_PER_SYSTEM {
        // The first 1,000 planets are owned, 100 an empire, spread over the galaxy.
        let owner =
            (i % 20 == 0 && i / 20 < EMPIRES * OWNED_PER_EMPIRE).then_some((i / 20) % EMPIRES);
        planets.push((owner, (i / 20) % 2 == 0, 3.0 + (i % 7) as f64));
    }
    let owned: Vec<usize> = (0..planets.len())
        .filter(|&i| planets[i].0.is_some())
        .collect();
    let buildings = owned
        .iter()
        .enumerate()
        .map(|(n, &p)| (n % BUILDING_KINDS, p))
        .collect();
    Universe { planets, buildings }
}

fn id(s: &str) -> Id {
    Id::parse(&format!("bench:class/{s}")).unwrap()
}

/// The engine's world for `u` (see [`content`] for `writing`); returns the game and a
/// planet to check.
fn engine(u: &Universe, writing: bool) -> (Game, ObjId) {
    let text = content(writing);
    let src = ContentSource::new("bench", SourceText::new("bench.toml", text.as_str()));
    let gen = Generation::build(Arc::new(Registry::with_core()), &[src], 1).expect("content");
    let mut g = Game::new(Arc::new(gen), 1, Box::new(ScriptedController::default()));
    let empires: Vec<ObjId> = (0..EMPIRES)
        .map(|_| g.spawn(id("empire"), None, "table").unwrap())
        .collect();
    let systems: Vec<ObjId> = (0..SYSTEMS)
        .map(|_| g.spawn(id("system"), None, "universe").unwrap())
        .collect();
    let (population, focus) = (Sym::new("population"), Sym::new("focus"));
    let mut planets = Vec::with_capacity(u.planets.len());
    for (i, &(owner, industry, pop)) in u.planets.iter().enumerate() {
        let owner = owner.map(|e| empires[e]);
        let p = g
            .spawn_with(id("planet"), owner, "universe", |w, o| {
                w.set_parent(o, Some(systems[i / PLANETS_PER_SYSTEM]))?;
                w.set(o, population, Value::Float(pop))?;
                let f = if owner.is_none() {
                    ""
                } else if industry {
                    "industry"
                } else {
                    "research"
                };
                w.set(o, focus, Value::Text(f.into()))?;
                Ok(())
            })
            .unwrap();
        planets.push(p);
    }
    let capital = Sym::new("capital");
    for (e, &emp) in empires.iter().enumerate() {
        let first = u.planets.iter().position(|p| p.0 == Some(e)).unwrap();
        let at = planets[first];
        g.spawn_with(id("tech0"), Some(emp), "researched", |w, _| {
            w.set(emp, capital, Value::Obj(at))?;
            Ok(())
        })
        .unwrap();
        for t in 1..TECHS {
            g.spawn(id(&format!("tech{t}")), Some(emp), "researched")
                .unwrap();
        }
        if writing {
            g.spawn(id("palace"), Some(emp), "researched").unwrap();
        }
    }
    for &(kind, p) in &u.buildings {
        let owner = u.planets[p].0.map(|e| empires[e]);
        g.spawn_with(id(&format!("building{kind}")), owner, "universe", |w, o| {
            w.set_parent(o, Some(planets[p])).map_err(Into::into)
        })
        .unwrap();
    }
    for i in 0..PLAIN_BUILDINGS {
        g.spawn_with(id("building"), None, "universe", |w, o| {
            w.set_parent(o, Some(planets[(i * 7) % planets.len()]))
                .map_err(Into::into)
        })
        .unwrap();
    }
    (g, planets[0])
}

/// The native loop's per-planet meters.
#[derive(Clone, Copy, Default)]
struct Meters {
    target_industry: f64,
    target_research: f64,
    max_troops: f64,
    troops: f64,
}

/// One turn over plain data: match, reset, apply by priority with stacking, clamp.
fn native_turn(u: &Universe, m: &mut [Meters], by_empire: &[Vec<usize>]) {
    // Match: (priority, holder order, kind, targets).
    let mut matched: Vec<(usize, usize, u8, Vec<usize>)> = Vec::with_capacity(2_000);
    for (e, planets) in by_empire.iter().enumerate() {
        for t in 0..TECHS {
            let industry = t % 2 == 0;
            let targets: Vec<usize> = planets
                .iter()
                .copied()
                .filter(|&p| u.planets[p].1 == industry)
                .collect();
            matched.push(((t % 10) * 10, e * TECHS + t, u8::from(!industry), targets));
        }
    }
    for (n, &(kind, p)) in u.buildings.iter().enumerate() {
        matched.push((50, 100_000 + n, 2 + u8::from(kind % 2 == 0), vec![p]));
    }
    matched.sort_by_key(|g| (g.0, g.1));
    for x in m.iter_mut() {
        x.target_industry = 0.0;
        x.target_research = 0.0;
        x.max_troops = 0.0;
    }
    let mut claimed = vec![false; m.len()];
    for (_, _, kind, targets) in &matched {
        for &p in targets {
            let x = &mut m[p];
            match kind {
                0 => x.target_industry += u.planets[p].2 * 0.01,
                1 => x.target_research = x.target_research * 1.01 + 0.1,
                k => {
                    if *k == 3 {
                        if claimed[p] {
                            continue;
                        }
                        claimed[p] = true;
                    }
                    x.max_troops += 2.0;
                    x.troops += 1.0;
                }
            }
        }
    }
    for x in m.iter_mut() {
        x.troops = x.troops.clamp(0.0, x.max_troops);
    }
}

/// Asserts that the engine and the native loop agree on the first planet's meters.
fn check(g: &Game, planet: ObjId, m: &Meters) {
    let read = |k: &str| g.world().get_number(planet, Sym::new(k)).unwrap_or(0.0);
    for (k, v) in [
        ("target_industry", m.target_industry),
        ("target_research", m.target_research),
        ("max_troops", m.max_troops),
    ] {
        assert!(
            (read(k) - v).abs() < 1e-9,
            "{k}: engine {} native {v}",
            read(k)
        );
    }
}

fn bench(c: &mut Criterion) {
    let u = universe();
    let turn = Id::parse("bench:event/turn").unwrap();
    let mut engines = [false, true].map(|writing| {
        let (mut g, planet) = engine(&u, writing);
        assert!(g.world().len() > 100_000, "{} objects", g.world().len());
        g.emit(Event::new(turn)).expect("turn");
        (g, planet)
    });
    let mut m = vec![Meters::default(); u.planets.len()];
    let mut by_empire = vec![Vec::new(); EMPIRES];
    for (i, p) in u.planets.iter().enumerate() {
        if let Some(e) = p.0 {
            by_empire[e].push(i);
        }
    }
    native_turn(&u, &mut m, &by_empire);
    for (g, planet) in &engines {
        check(g, *planet, &m[0]);
    }
    let mut group = c.benchmark_group("effects_pass_100k_objects_2000_groups");
    group.sample_size(10);
    let [(kept, _), (writing, _)] = &mut engines;
    group.bench_function("engine_turn", |b| {
        b.iter(|| black_box(kept.emit(Event::new(turn)).expect("turn")));
    });
    group.bench_function("engine_turn_writing", |b| {
        b.iter(|| black_box(writing.emit(Event::new(turn)).expect("turn")));
    });
    group.bench_function("native_turn", |b| {
        b.iter(|| native_turn(black_box(&u), black_box(&mut m), &by_empire));
    });
    group.finish();
    // Still equal after every measured turn.
    for (g, planet) in &engines {
        check(g, *planet, &m[0]);
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
