//! Ability casts per second with 1,000 targets in the area.
//!
//! `engine_cast` casts one instant ability through [`Game::cast`]: `base_value`, an
//! `aura` `range`, a 30 m `sphere` with linear falloff holding 1,000 positioned targets,
//! a `damage` node with two sources (each target takes two hits, each raising
//! `core:event/damaged`: 2,000 events a cast), a `condition` rolled per target from the
//! world RNG (chance 0.75, a status tag), and `meta`. Each cast is a whole command:
//! snapshot, nodes, event dispatch, aura recompute.
//!
//! `native_loop` is the same math in plain Rust over a `Vec` of positions in the same
//! run: distance, inside test, falloff, two scaled sources with rounding, one RNG roll per
//! target, damage added to a `Vec`. The ratio of the two is the engine's cost.
//!
//! Run: `cargo bench -p tessera-host --bench abilities` (quick: append
//! `-- --warm-up-time 1 --measurement-time 3`).

#![expect(
    missing_docs,
    reason = "`criterion_group!` generates an undocumented function"
)]

use std::hint::black_box;
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use tessera_host::ability::Aim;
use tessera_host::{
    ContentSource, Coords, Game, Generation, Id, ObjId, Registry, ScriptedController, SourceText,
};

const TARGETS: usize = 1_000;
const RADIUS: f64 = 30.0;

const CONTENT: &str = r#"
[world]
cascade_limit = 100000

[class.caster]
properties = { spell_power = 100, strength = 20, x = 0, y = 0 }

[class.target]
properties = { max_health = 1000000000 }

[[abilities]]
id = "fire/nova"
displayName = "ability.bench.nova.name"
description = "ability.bench.nova.description"

[[abilities.math]]
id = "base_damage"
type = "base_value"
amount = 50
scaling = { stat = "spell_power", multiplier = 1.5 }

[[abilities.math]]
id = "around"
type = "range"
min = 0
max = "unlimited"
unit = "meters"
rangeType = "aura"

[[abilities.math]]
id = "blast"
type = "area_of_effect"
shape = "sphere"
radius = 30
unit = "meters"
falloff = "linear"

[[abilities.math]]
id = "hit"
type = "damage"
sources = [
  { damageType = "fire", base_value = 50, scaling = { stat = "spell_power", multiplier = 1.5 } },
  { damageType = "physical", base_value = 15, scaling = { stat = "strength", multiplier = 0.5 } },
]

[[abilities.math]]
id = "mark"
type = "condition"
chance = 0.75
effect = "marked"

[[abilities.math]]
id = "meta"
type = "meta"
cooldown_seconds = 0
mana_cost = 0
cast_time_seconds = 0
tags = ["fire", "aoe"]
"#;

/// Where target `i` stands: spread over a disc of radius 29 m around the caster.
fn position(i: usize) -> Coords {
    let t = i as f64;
    let r = 29.0 * ((t + 0.5) / TARGETS as f64).sqrt();
    let a = t * 2.399_963; // golden angle
    Coords::new(r * a.cos(), r * a.sin(), 0.0)
}

fn setup() -> (Game, ObjId) {
    let src = ContentSource::new("bench", SourceText::new("bench.toml", CONTENT));
    let gen = Generation::build(Arc::new(Registry::with_core()), &[src], 1).expect("content");
    let mut g = Game::new(Arc::new(gen), 1, Box::new(ScriptedController::default()));
    let caster = g
        .spawn(Id::parse("bench:class/caster").unwrap(), None, "board")
        .unwrap();
    let target = Id::parse("bench:class/target").unwrap();
    for i in 0..TARGETS {
        g.spawn_with(target, None, "board", |w, o| {
            w.set_coords(o, position(i)).map_err(Into::into)
        })
        .unwrap();
    }
    (g, caster)
}

/// The same math as the ability, in plain Rust.
fn native_cast(positions: &[Coords], damage: &mut [i64], rng: &mut u64, marked: &mut usize) {
    let (spell_power, strength) = (100.0, 20.0);
    let sources = [50.0 + spell_power * 1.5, 15.0 + strength * 0.5];
    let origin = Coords::default();
    for (p, d) in positions.iter().zip(damage.iter_mut()) {
        let dist = p.distance(origin);
        if dist > RADIUS {
            continue;
        }
        let falloff = 1.0 - (dist / RADIUS).clamp(0.0, 1.0);
        for s in sources {
            let amount = (s * falloff).round() as i64;
            if amount > 0 {
                *d += amount;
            }
        }
        *rng ^= *rng << 13;
        *rng ^= *rng >> 7;
        *rng ^= *rng << 17;
        if *rng % 1_000_000 < 750_000 {
            *marked += 1;
        }
    }
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("cast_1000_targets");
    group.throughput(Throughput::Elements(1));
    let (mut g, caster) = setup();
    let nova = Id::parse("bench:fire/nova").unwrap();
    let report = g.cast(nova, caster, Aim::Nothing).expect("cast");
    assert_eq!(
        report.pipeline.targets.len(),
        TARGETS,
        "every target is in the area"
    );
    assert_eq!(report.pipeline.hits.len(), 2 * TARGETS);
    group.bench_function("engine_cast", |b| {
        b.iter(|| black_box(g.cast(nova, caster, Aim::Nothing).expect("cast")));
    });
    let positions: Vec<Coords> = (0..TARGETS).map(position).collect();
    let mut damage = vec![0i64; TARGETS];
    let mut rng = 0x2545_f491_4f6c_dd1d_u64;
    let mut marked = 0usize;
    group.bench_function("native_loop", |b| {
        b.iter(|| {
            native_cast(black_box(&positions), &mut damage, &mut rng, &mut marked);
        });
    });
    black_box((damage, marked));
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
