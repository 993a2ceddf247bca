//! Core engine throughput: trigger evaluations, aura recompute, expression evaluation.
//!
//! Every engine figure has a plain-Rust baseline measured in the same run (the
//! `native_*` functions), so results are reported as ratios to native code on the same
//! machine and build. Content is generated as TOML strings, compiled through the normal
//! loader into a [`Generation`], and driven through the public [`Game`] API.
//!
//! Groups:
//!
//! - `triggers`: 1,000 triggers over 50 event ids (20 per event). One `Game::emit`
//!   evaluates 20 triggers (condition `target.x >= 0`, action `add count 1`); throughput
//!   is reported in trigger evaluations. `engine_class_bound` binds the 1,000 triggers to
//!   100 classes (2 per event) of which only half have an object, so 10 run per emit.
//!   `native_closures` is the same work as a `Vec` of 20 closures over the same `World`.
//! - `aura`: 1,000 units and 100 aura holders; every aura selects units by tag and zone,
//!   filters on `power`, and adds 1 to `attack`. One `Game::setup` property change, then
//!   recompute: `engine_unread_key` changes a key no aura reads (dependency tracking
//!   makes this near-free), `engine_filter_key` changes `power` on one unit so every aura
//!   re-evaluates and most change. `native_full_recompute` does the full selection and
//!   modifier math (100 auras x 1,000 objects) over plain structs.
//! - `expr`: `self.attack * 2 + target.power - 3` parsed once and evaluated, vs the same
//!   arithmetic in Rust (with the same two `World` look-ups, and with plain numbers).
//!
//! Run: `cargo bench -p tessera-host --bench core` (quick: append
//! `-- --warm-up-time 1 --measurement-time 3`).

#![expect(
    missing_docs,
    reason = "`criterion_group!` generates an undocumented function"
)]

use std::fmt::Write as _;
use std::hint::black_box;
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use tessera_host::registry::Selector;
use tessera_host::rules::expr::{self, Expr, NameError, Names};
use tessera_host::rules::{Cx, Scope};
use tessera_host::{
    ContentSource, Event, Game, Generation, Id, ObjId, Registry, ScriptedController, SourceText,
    Sym, Value, World,
};

const EVENTS: usize = 50;
const TRIGGERS: usize = 1_000;
const PER_EVENT: usize = TRIGGERS / EVENTS;
const OBJECTS: usize = 1_000;
const AURAS: usize = 100;

/// Compiles content split into files of `per_file` top-level tables each (a mod keeps its
/// content in many files; one 1,000-definition file would mostly measure load-time
/// location look-ups, which re-parse the file once per definition).
fn compile(content: &str) -> Arc<Generation> {
    const PER_FILE: usize = 40;
    let mut files: Vec<String> = vec![String::new()];
    let mut tables = 0;
    for line in content.lines() {
        if line.starts_with("[class.")
            || line.starts_with("[trigger.")
            || line.starts_with("[event.")
        {
            tables += 1;
            if tables > PER_FILE {
                files.push(String::new());
                tables = 1;
            }
        }
        let last = files.last_mut().expect("one file");
        last.push_str(line);
        last.push('\n');
    }
    let sources: Vec<ContentSource> = files
        .into_iter()
        .enumerate()
        .map(|(i, text)| {
            ContentSource::new("bench", SourceText::new(format!("bench{i}.toml"), text))
        })
        .collect();
    match Generation::build(Arc::new(Registry::with_core()), &sources, 1) {
        Ok(g) => Arc::new(g),
        Err(d) => panic!("benchmark content does not compile: {d:?}"),
    }
}

fn game(gen: &Arc<Generation>) -> Game {
    Game::new(gen.clone(), 7, Box::new(ScriptedController::default()))
}

fn id(s: &str) -> Id {
    Id::parse(s).unwrap_or_else(|e| panic!("{e}"))
}

fn event_ids() -> Vec<Id> {
    (0..EVENTS)
        .map(|k| id(&format!("bench:event/e{k}")))
        .collect()
}

// ---------------------------------------------------------------------------------------
// Triggers
// ---------------------------------------------------------------------------------------

const WHEN_CONDITION: &str =
    r#"condition = { type = "compare", left = "target.x", op = ">=", right = 0 }"#;
const ACTION: &str = r#"do = [{ type = "add", key = "count", amount = 1 }]"#;

fn declare_events(s: &mut String) {
    for k in 0..EVENTS {
        let _ = writeln!(s, "[event.e{k}]");
    }
}

/// 1,000 standalone triggers, 20 per event; each adds to the event target's `count`.
fn global_trigger_content() -> String {
    let mut s = String::from("[class.thing]\nproperties = { x = 1, count = 0 }\n\n");
    declare_events(&mut s);
    for t in 0..TRIGGERS {
        let k = t % EVENTS;
        let _ = writeln!(
            s,
            "[trigger.t{t}]\nwhen = {{ event = \"event/e{k}\", {WHEN_CONDITION} }}\n{ACTION}\n"
        );
    }
    s
}

/// 1,000 class triggers on 100 classes (10 each); event k is heard by classes `k` and
/// `k + 50`. Only classes `0..50` get an object, so an emit runs 10 triggers and skips
/// 10 whose class has no object.
fn class_trigger_content() -> String {
    let mut s = String::from("[class.thing]\nproperties = { x = 1, count = 0 }\n\n");
    declare_events(&mut s);
    for c in 0..2 * EVENTS {
        let k = c % EVENTS;
        let _ = writeln!(s, "[class.holder{c}]\nproperties = {{ count = 0 }}\n");
        for _ in 0..PER_EVENT / 2 {
            let _ = writeln!(
                s,
                "[[class.holder{c}.trigger]]\nwhen = {{ event = \"event/e{k}\", {WHEN_CONDITION} }}\n{ACTION}\n"
            );
        }
    }
    s
}

fn spawn_things(g: &mut Game) -> Vec<ObjId> {
    let thing = id("bench:class/thing");
    (0..OBJECTS)
        .map(|_| g.spawn(thing, None, "board").expect("spawn"))
        .collect()
}

fn bench_triggers(c: &mut Criterion) {
    let events = event_ids();
    let mut group = c.benchmark_group("triggers");
    group.throughput(Throughput::Elements(PER_EVENT as u64));

    // Standalone triggers: emit one event, 20 triggers run on its target.
    let gen = compile(&global_trigger_content());
    assert_eq!(gen.triggers.len(), TRIGGERS);
    assert_eq!(gen.index.event_count(), EVENTS);
    let mut g = game(&gen);
    let things = spawn_things(&mut g);
    let count = Sym::new("count");
    // Sanity: one emit runs exactly 20 triggers.
    g.emit(Event::new(events[0]).target(things[0]))
        .expect("emit");
    assert_eq!(g.world().get_int(things[0], count), PER_EVENT as i64);
    let mut n = 0usize;
    group.bench_function("engine_global", |b| {
        b.iter(|| {
            n = n.wrapping_add(1);
            let e = Event::new(events[n % EVENTS]).target(things[n % OBJECTS]);
            black_box(g.emit(e).expect("emit"));
        })
    });

    // Native baseline: 20 closures doing the same compare + add on the same world.
    let mut world = World::new(7);
    let thing = id("bench:class/thing");
    let (x, board) = (Sym::new("x"), Sym::new("board"));
    let objs: Vec<ObjId> = (0..OBJECTS)
        .map(|_| {
            let o = world.create(thing, None, board);
            world.set(o, x, Value::Int(1)).expect("set");
            world.set(o, count, Value::Int(0)).expect("set");
            o
        })
        .collect();
    type Handler = Box<dyn Fn(&mut World, ObjId) -> Result<(), tessera_host::StateError>>;
    let handlers: Vec<Vec<Handler>> = (0..EVENTS)
        .map(|_| {
            (0..PER_EVENT)
                .map(|_| {
                    Box::new(move |w: &mut World, target: ObjId| {
                        if w.get_number(target, x).unwrap_or(0.0) >= 0.0 {
                            w.add(target, count, 1)?;
                        }
                        Ok(())
                    }) as Handler
                })
                .collect()
        })
        .collect();
    let mut n = 0usize;
    group.bench_function("native_closures", |b| {
        b.iter(|| {
            n = n.wrapping_add(1);
            let target = objs[n % OBJECTS];
            for h in &handlers[n % EVENTS] {
                h(&mut world, black_box(target)).expect("handler");
            }
        })
    });

    // Class-bound triggers: 10 of the 20 listeners have a holder.
    group.throughput(Throughput::Elements((PER_EVENT / 2) as u64));
    let gen = compile(&class_trigger_content());
    assert_eq!(gen.triggers.len(), TRIGGERS);
    let mut g = game(&gen);
    let things = spawn_things(&mut g);
    let holders: Vec<ObjId> = (0..EVENTS)
        .map(|c| {
            g.spawn(id(&format!("bench:class/holder{c}")), None, "board")
                .expect("spawn")
        })
        .collect();
    g.emit(Event::new(events[3]).target(things[0]))
        .expect("emit");
    assert_eq!(g.world().get_int(holders[3], count), (PER_EVENT / 2) as i64);
    let mut n = 0usize;
    group.bench_function("engine_class_bound", |b| {
        b.iter(|| {
            n = n.wrapping_add(1);
            let e = Event::new(events[n % EVENTS]).target(things[n % OBJECTS]);
            black_box(g.emit(e).expect("emit"));
        })
    });
    group.finish();
}

// ---------------------------------------------------------------------------------------
// Auras
// ---------------------------------------------------------------------------------------

/// Threshold of aura `j`: it buffs units with `power >= j % 10`.
fn threshold(j: usize) -> i64 {
    (j % 10) as i64
}

/// Units have `power = i % 10` initially.
fn initial_power(i: usize) -> i64 {
    (i % 10) as i64
}

/// 100 holder classes, one aura each: units on the board with `power >= j % 10` get
/// `attack + 1`.
fn aura_content() -> String {
    let mut s = String::from(
        "[class.unit]\nproperties = { attack = 1, power = 0, other = 0 }\ntags = [\"unit\"]\n\n",
    );
    for j in 0..AURAS {
        let t = threshold(j);
        let _ = writeln!(
            s,
            "[class.buffer{j}]\n\n[[class.buffer{j}.aura]]\n\
             select = {{ type = \"objects\", tag = \"unit\", zone = \"board\", where = {{ type = \"compare\", left = \"target.power\", op = \">=\", right = {t} }} }}\n\
             modifiers = [{{ key = \"attack\", op = \"add\", value = 1 }}]\n"
        );
    }
    s
}

fn expected_attack(power: i64) -> i64 {
    1 + (0..AURAS).filter(|&j| power >= threshold(j)).count() as i64
}

/// Plain-Rust model of the same world: the aura math without the engine.
#[derive(Clone)]
struct NativeUnit {
    tags: Vec<Sym>,
    zone: Sym,
    power: i64,
    attack: i64,
}

struct NativeAura {
    tag: Sym,
    zone: Sym,
    threshold: i64,
    add: f64,
}

/// Full recompute: every aura selects over every object and produces its modifiers;
/// then every object's effective `attack` is base + its modifiers.
fn native_recompute(
    units: &[NativeUnit],
    auras: &[NativeAura],
    mods: &mut [Vec<(usize, f64)>],
    out: &mut [f64],
) {
    for (a, aura) in auras.iter().enumerate() {
        let list = &mut mods[a];
        list.clear();
        for (i, u) in units.iter().enumerate() {
            if u.zone == aura.zone && u.tags.contains(&aura.tag) && u.power >= aura.threshold {
                list.push((i, aura.add));
            }
        }
    }
    for (o, u) in out.iter_mut().zip(units) {
        *o = u.attack as f64;
    }
    for list in mods.iter() {
        for &(i, v) in list {
            out[i] += v;
        }
    }
}

fn bench_auras(c: &mut Criterion) {
    let gen = compile(&aura_content());
    let mut g = game(&gen);
    let unit = id("bench:class/unit");
    let (power, other, attack) = (Sym::new("power"), Sym::new("other"), Sym::new("attack"));
    let units: Vec<ObjId> = (0..OBJECTS)
        .map(|_| g.spawn(unit, None, "board").expect("spawn"))
        .collect();
    g.setup(|w| {
        for (i, &u) in units.iter().enumerate() {
            w.set(u, power, Value::Int(initial_power(i)))?;
        }
        Ok(())
    })
    .expect("setup");
    for j in 0..AURAS {
        g.spawn(id(&format!("bench:class/buffer{j}")), None, "board")
            .expect("spawn");
    }
    for i in [0, 1, 5, 9] {
        assert_eq!(
            g.world().get_int(units[i], attack),
            expected_attack(initial_power(i)),
            "unit {i}"
        );
    }

    let mut group = c.benchmark_group("aura");
    group.sample_size(20);

    // (a) A key no aura reads: dependency tracking skips every aura.
    let mut n = 0i64;
    group.bench_function("engine_unread_key", |b| {
        b.iter(|| {
            n += 1;
            g.setup(|w| {
                w.set(units[0], other, Value::Int(n))
                    .map(|_| ())
                    .map_err(Into::into)
            })
            .expect("setup");
        })
    });

    // (b) `power` on one unit flips between 0 and 9: every aura re-evaluates its filter
    // over 1,000 units, and the 90 auras with threshold 1..=9 change their result.
    let target = units[0];
    let mut high = false;
    group.bench_function("engine_filter_key", |b| {
        b.iter(|| {
            high = !high;
            let p = if high { 9 } else { 0 };
            g.setup(|w| {
                w.set(target, power, Value::Int(p))
                    .map(|_| ())
                    .map_err(Into::into)
            })
            .expect("setup");
        })
    });
    let p = g.world().get_int(target, power);
    assert_eq!(g.world().get_int(target, attack), expected_attack(p));

    // Native: the full selection + modifier math over the same object count.
    let (unit_tag, board) = (Sym::new("unit"), Sym::new("board"));
    let mut nunits: Vec<NativeUnit> = (0..OBJECTS)
        .map(|i| NativeUnit {
            tags: vec![unit_tag],
            zone: board,
            power: initial_power(i),
            attack: 1,
        })
        .collect();
    let nauras: Vec<NativeAura> = (0..AURAS)
        .map(|j| NativeAura {
            tag: unit_tag,
            zone: board,
            threshold: threshold(j),
            add: 1.0,
        })
        .collect();
    let mut mods = vec![Vec::new(); AURAS];
    let mut out = vec![0.0; OBJECTS];
    native_recompute(&nunits, &nauras, &mut mods, &mut out);
    assert_eq!(out[9] as i64, expected_attack(9));
    let mut high = false;
    group.bench_function("native_full_recompute", |b| {
        b.iter(|| {
            high = !high;
            nunits[0].power = if high { 9 } else { 0 };
            native_recompute(black_box(&nunits), &nauras, &mut mods, &mut out);
            black_box(&out);
        })
    });
    group.finish();
}

// ---------------------------------------------------------------------------------------
// Expressions
// ---------------------------------------------------------------------------------------

struct NoNames;
impl Names for NoNames {
    fn alias(&mut self, _name: &str) -> Result<Option<Expr>, NameError> {
        Ok(None)
    }
    fn selector(&mut self, name: &str) -> Result<Arc<dyn Selector>, NameError> {
        Err(NameError(format!("no selector `{name}`")))
    }
}

fn bench_expr(c: &mut Criterion) {
    let gen = compile("[class.unit]\nproperties = { attack = 3, power = 4 }\n");
    let mut g = game(&gen);
    let unit = id("bench:class/unit");
    let a = g.spawn(unit, None, "board").expect("spawn");
    let b = g.spawn(unit, None, "board").expect("spawn");
    let e = expr::parse("self.attack * 2 + target.power - 3", &mut NoNames).expect("parse");
    let scope = Scope {
        this: Some(a),
        target: Some(b),
        ..Scope::default()
    };
    let rt = tessera_host::plugins::Runtime::default();
    let cx = Cx {
        world: g.world(),
        gen: &gen,
        scope: &scope,
        controller: None,
        rt: &rt,
    };
    assert_eq!(e.eval(&cx).expect("eval"), 7.0);
    let lit = expr::parse("(2 + 3) * 4 - 1", &mut NoNames).expect("parse");

    let mut group = c.benchmark_group("expr");
    group.throughput(Throughput::Elements(1));
    group.bench_function("engine_props", |bch| {
        bch.iter(|| black_box(e.eval(black_box(&cx)).expect("eval")))
    });
    let (attack, power) = (Sym::new("attack"), Sym::new("power"));
    let world = g.world();
    group.bench_function("native_props", |bch| {
        bch.iter(|| {
            let (s, t) = black_box((a, b));
            let x = world.get_number(s, attack).unwrap_or(0.0);
            let y = world.get_number(t, power).unwrap_or(0.0);
            black_box(x * 2.0 + y - 3.0)
        })
    });
    group.bench_function("engine_literals", |bch| {
        bch.iter(|| black_box(lit.eval(black_box(&cx)).expect("eval")))
    });
    group.bench_function("native_literals", |bch| {
        bch.iter(|| {
            let (p, q, r, s) = black_box((2.0f64, 3.0f64, 4.0f64, 1.0f64));
            black_box((p + q) * r - s)
        })
    });
    group.finish();
}

criterion_group!(benches, bench_triggers, bench_auras, bench_expr);
criterion_main!(benches);
