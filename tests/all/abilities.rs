//! Casting abilities on the whole platform (mods/spellbook with its wasm node): the
//! schema's Fireball with exact numbers, its burn through the scheduler, stacking and
//! timer restarts, seeded chance, cooldown, mana and range refusals, and triggers that
//! cast.

use std::sync::Arc;

use tessera_host::ability::{Aim, CastError};
use tessera_host::mods::{load, ServerConfig};
use tessera_host::{
    ContentSource, Coords, Event, Game, Generation, Id, ObjId, Registry, ScriptedController,
    SourceText, Sym, Value,
};

use crate::plugin_build::{ensure_built, repo};

fn spellbook(seed: u64) -> Game {
    ensure_built();
    let server = ServerConfig::load(&repo().join("server.toml")).expect("server.toml");
    let loaded = load(
        &[repo().join("mods")],
        Some(&server),
        Arc::new(Registry::with_core()),
    );
    assert!(
        !loaded.has_errors(),
        "{:?}",
        loaded
            .all_diagnostics()
            .map(|d| d.render(false))
            .collect::<Vec<_>>()
    );
    Game::new(
        loaded.generation.expect("generation"),
        seed,
        Box::new(ScriptedController::default()),
    )
}

fn id(s: &str) -> Id {
    Id::parse(s).unwrap()
}

fn fireball() -> Id {
    id("original:fire/fireball")
}

fn spawn(g: &mut Game, class: &str, x: f64) -> ObjId {
    g.spawn_with(id(class), None, "board", |w, o| {
        w.set_coords(o, Coords::new(x, 0.0, 0.0))?;
        Ok(())
    })
    .unwrap()
}

fn dummy(g: &mut Game, x: f64) -> ObjId {
    spawn(g, "original:class/dummy", x)
}

fn mage(g: &mut Game) -> ObjId {
    spawn(g, "original:class/mage", 0.0)
}

fn damage(g: &Game, o: ObjId) -> i64 {
    g.world().get_int(o, Sym::new("damage"))
}

/// Ticks one at a time up to `until`, returning (tick, damage taken) whenever `o` took
/// damage.
fn damage_ticks(g: &mut Game, o: ObjId, until: u64) -> Vec<(u64, i64)> {
    let mut out = Vec::new();
    while g.world().tick() < until {
        let before = damage(g, o);
        g.tick(1).unwrap();
        let d = damage(g, o) - before;
        if d != 0 {
            out.push((g.world().tick(), d));
        }
    }
    out
}

#[test]
fn fireball_on_targets_at_0_2_5_and_5_m_from_the_centre() {
    let mut g = spellbook(3);
    let caster = mage(&mut g);
    assert_eq!(g.world().get_int(caster, Sym::new("spell_power")), 100);
    assert_eq!(g.world().get_int(caster, Sym::new("strength")), 20);
    let centre = dummy(&mut g, 20.0);
    let middle = dummy(&mut g, 22.5);
    let edge = dummy(&mut g, 25.0);
    let report = g.cast(fireball(), caster, Aim::Object(centre)).unwrap();
    // cast_time_seconds 1.5 = 15 ticks.
    assert!(!report.fired);
    assert_eq!(report.fires_at, Some(15));
    g.tick(14).unwrap();
    assert_eq!(damage(&g, centre), 0);
    g.tick(1).unwrap();
    // fire 50 + 1.5 × 100 = 200, physical 15 + 0.5 × 20 = 25, linear falloff over 5 m.
    assert_eq!(damage(&g, centre), 200 + 25);
    assert_eq!(
        damage(&g, middle),
        100 + 13,
        "12.5 rounds half away from zero"
    );
    assert_eq!(damage(&g, edge), 0);
    assert_eq!(g.world().get_int(caster, Sym::new("mana")), 20);
    // Knockback 8 m away from the origin (the centre dummy, at the origin, away from the
    // caster).
    assert_eq!(g.world().coords(centre), Some(Coords::new(28.0, 0.0, 0.0)));
    assert_eq!(g.world().coords(middle), Some(Coords::new(30.5, 0.0, 0.0)));
    assert_eq!(g.world().coords(edge), Some(Coords::new(33.0, 0.0, 0.0)));
}

#[test]
fn fireball_burns_5_ticks_of_10_plus_0_3_spell_power() {
    let mut g = spellbook(3);
    let caster = mage(&mut g);
    let centre = dummy(&mut g, 20.0);
    let middle = dummy(&mut g, 22.5);
    g.cast(fireball(), caster, Aim::Object(centre)).unwrap();
    g.tick(15).unwrap();
    let hit = (damage(&g, centre), damage(&g, middle));
    let burn = damage_ticks(&mut g, centre, 200);
    // 5 s / 1 s = 5 ticks, every 10 world ticks after the hit at tick 15.
    assert_eq!(
        burn,
        vec![(25, 40), (35, 40), (45, 40), (55, 40), (65, 40)],
        "10 + 0.3 × 100 = 40"
    );
    assert_eq!(damage(&g, middle) - hit.1, 5 * 20, "half strength at 2.5 m");
    assert_eq!(damage(&g, centre) - hit.0, 200);
    assert_eq!(
        g.world().scheduled_len(),
        0,
        "nothing left in the scheduler"
    );
}

#[test]
fn re_applying_a_non_stacking_burn_restarts_its_timer() {
    let mut g = spellbook(3);
    let first = mage(&mut g);
    let second = mage(&mut g);
    let target = dummy(&mut g, 20.0);
    g.cast(fireball(), first, Aim::Object(target)).unwrap();
    g.tick(30).unwrap(); // fired at 15, burnt at 25
    assert_eq!(damage(&g, target), 225 + 40);
    // The second mage's fireball fires at tick 45 and restarts the burn: the old chain's
    // tick due at 45 is dropped, the new one ticks 5 times from 55.
    g.cast(fireball(), second, Aim::Object(target)).unwrap();
    g.tick(14).unwrap();
    assert_eq!(
        damage(&g, target),
        225 + 40 + 40,
        "the old burn ticked at 35"
    );
    // With this seed the first fireball's ignite landed (chance 0.75): fire resistance
    // -20 until tick 65, so the second hit's fire part is 200 × 1.2 = 240, and the new
    // burn, fixed when it lands, is 40 × 1.2 = 48 a tick.
    assert!(g
        .world()
        .has_tag(target, Sym::new("reduce_fire_resistance")));
    assert_eq!(g.world().get_int(target, Sym::new("fire_resistance")), -20);
    let ticks = damage_ticks(&mut g, target, 200);
    assert_eq!(
        ticks,
        vec![
            (45, 240 + 25),
            (55, 48),
            (65, 48),
            (75, 48),
            (85, 48),
            (95, 48)
        ]
    );
    assert_eq!(
        g.world().get_int(target, Sym::new("fire_resistance")),
        0,
        "the second ignite ended too, undone exactly"
    );
    let key = Sym::new("dot.original:fire/fireball.burn_dot.stacks");
    assert_eq!(g.world().get_int(target, key), 0);
}

#[test]
fn re_applying_a_stacking_dot_adds_a_stack() {
    let mut g = spellbook(3);
    let caster = mage(&mut g);
    let target = dummy(&mut g, 10.0);
    let dart = id("original:nature/poison_dart");
    let stacks = Sym::new("dot.original:nature/poison_dart.poison.stacks");
    g.cast(dart, caster, Aim::Object(target)).unwrap();
    g.tick(15).unwrap();
    g.cast(dart, caster, Aim::Object(target)).unwrap();
    assert_eq!(g.world().get_int(target, stacks), 2);
    // 3 + 0.1 × 20 = 5 a tick; first stack at 10, 20, 30, 40; second at 25, 35, 45, 55.
    let ticks = damage_ticks(&mut g, target, 100);
    assert_eq!(
        ticks,
        vec![
            (20, 5),
            (25, 5),
            (30, 5),
            (35, 5),
            (40, 5),
            (45, 5),
            (55, 5)
        ]
    );
    assert_eq!(damage(&g, target), 40);
    assert_eq!(g.world().get_int(target, stacks), 0);
}

#[test]
fn a_chance_of_0_75_lands_within_1_percent_over_10_000_seeded_casts() {
    let count = |seed| {
        let mut g = spellbook(seed);
        let caster = mage(&mut g);
        let target = dummy(&mut g, 5.0);
        let hex = id("original:arcane/hex");
        (0..10_000)
            .filter(|_| {
                let r = g.cast(hex, caster, Aim::Object(target)).unwrap();
                !r.pipeline.conditions.is_empty()
            })
            .count()
    };
    let landed = count(42);
    let rate = landed as f64 / 10_000.0;
    assert!((rate - 0.75).abs() <= 0.01, "{landed} of 10,000 landed");
    assert_eq!(landed, count(42), "the same seed rolls the same");
}

#[test]
fn cooldown_and_mana_refuse_a_second_cast_and_change_nothing() {
    let mut g = spellbook(3);
    let caster = mage(&mut g);
    let target = dummy(&mut g, 20.0);
    g.cast(fireball(), caster, Aim::Object(target)).unwrap();
    g.tick(15).unwrap();
    let before = g.world().checksum();
    let err = g.cast(fireball(), caster, Aim::Object(target)).unwrap_err();
    // cooldown_seconds 12 = 120 ticks from the moment it fired.
    assert_eq!(
        err,
        CastError::OnCooldown {
            ability: fireball(),
            ready_at: 135,
            now: 15
        }
    );
    assert!(err.is_refusal());
    assert_eq!(g.world().checksum(), before);
    g.tick(120).unwrap();
    let before = g.world().checksum();
    let err = g.cast(fireball(), caster, Aim::Object(target)).unwrap_err();
    assert_eq!(
        err,
        CastError::NotEnoughMana {
            ability: fireball(),
            have: 20.0,
            need: 80.0
        }
    );
    assert_eq!(g.world().checksum(), before);
    g.setup(|w| {
        w.set(caster, Sym::new("mana"), Value::Int(80))
            .map(|_| ())
            .map_err(Into::into)
    })
    .unwrap();
    assert!(g.cast(fireball(), caster, Aim::Object(target)).is_ok());
}

#[test]
fn a_target_out_of_range_is_refused_and_changes_nothing() {
    let mut g = spellbook(3);
    let caster = mage(&mut g);
    let far = dummy(&mut g, 35.0);
    let before = g.world().checksum();
    let err = g.cast(fireball(), caster, Aim::Object(far)).unwrap_err();
    assert!(
        matches!(err, CastError::OutOfRange { distance, min, max: Some(max), .. } if distance == 35.0 && min == 0.0 && max == 30.0),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "`original:fire/fireball` refused: out of range (35.00 m; range 0 to 30 m)"
    );
    let err = g
        .cast(fireball(), caster, Aim::Point(Coords::new(0.0, 30.5, 0.0)))
        .unwrap_err();
    assert!(matches!(err, CastError::OutOfRange { .. }), "{err:?}");
    let err = g.cast(fireball(), caster, Aim::Nothing).unwrap_err();
    assert!(matches!(err, CastError::NoTarget { .. }), "{err:?}");
    let nowhere = g.spawn(id("original:class/mage"), None, "board").unwrap();
    let unplaced = g.spawn(id("original:class/dummy"), None, "board").unwrap();
    g.setup(|w| {
        for k in ["x", "y"] {
            w.unset(nowhere, Sym::new(k))?;
            w.unset(unplaced, Sym::new(k))?;
        }
        Ok(())
    })
    .unwrap();
    let err = g.cast(fireball(), nowhere, Aim::Object(far)).unwrap_err();
    assert_eq!(
        err,
        CastError::NoPosition {
            ability: fireball(),
            object: nowhere
        }
    );
    let err = g
        .cast(fireball(), caster, Aim::Object(unplaced))
        .unwrap_err();
    assert!(matches!(err, CastError::NoPosition { object, .. } if object == unplaced));
    assert_eq!(g.world().get_int(caster, Sym::new("mana")), 100);
    assert_eq!(damage(&g, far), 0);
    assert!(before != 0);
}

#[test]
fn a_delayed_cast_whose_target_left_range_is_refused_when_it_falls_due() {
    let mut g = spellbook(3);
    let caster = mage(&mut g);
    let target = dummy(&mut g, 20.0);
    g.cast(fireball(), caster, Aim::Object(target)).unwrap();
    g.setup(|w| {
        w.set_coords(target, Coords::new(40.0, 0.0, 0.0))
            .map_err(Into::into)
    })
    .unwrap();
    let out = g.tick(15).unwrap();
    let refused = out
        .events
        .iter()
        .find(|e| e.id == id("core:event/cast_refused"))
        .expect("cast_refused");
    assert!(refused.to_string().contains("out of range"), "{refused}");
    assert_eq!(damage(&g, target), 0);
    assert_eq!(
        g.world().get_int(caster, Sym::new("mana")),
        100,
        "nothing paid"
    );
    assert!(g.world().base(caster, Sym::new("casting")).is_none());
}

/// Abilities written inline next to classes and triggers: a trigger casts through
/// `core:action/cast`, and a refused cast can be skipped instead of failing the event.
#[test]
fn triggers_cast_abilities_through_core_action_cast() {
    let content = r#"
[class.turret]
properties = { spell_power = 10, x = 0, y = 0 }

[[class.turret.trigger]]
when = "core:event/turn_started"
select = { type = "core:selector/objects", zone = "board", where = { type = "has_tag", tag = "enemy" } }
do = [{ type = "cast", ability = "turret/zap", skip_if_refused = true }]

[class.enemy]
properties = { max_health = 50, y = 0 }
tags = ["enemy"]

[[abilities]]
id = "turret/zap"
displayName = "ability.demo.zap.name"
description = "ability.demo.zap.description"

[[abilities.math]]
id = "reach"
type = "range"
min = 0
max = 10
unit = "meters"
rangeType = "hitscan"

[[abilities.math]]
id = "zap"
type = "damage"
sources = [{ damageType = "lightning", base_value = 1, scaling = { stat = "spell_power", multiplier = 0.5 } }]

[[abilities.math]]
id = "meta"
type = "meta"
cooldown_seconds = 0
mana_cost = 0
cast_time_seconds = 0
tags = ["lightning"]
"#;
    let src = ContentSource::new("demo", SourceText::new("demo.toml", content));
    let gen = Generation::build(Arc::new(Registry::with_core()), &[src], 1).unwrap();
    let mut g = Game::new(Arc::new(gen), 1, Box::new(ScriptedController::default()));
    g.spawn(id("demo:class/turret"), None, "board").unwrap();
    let near = spawn(&mut g, "demo:class/enemy", 4.0);
    let far = spawn(&mut g, "demo:class/enemy", 15.0);
    let out = g.emit(Event::new(id("core:event/turn_started"))).unwrap();
    assert_eq!(damage(&g, near), 6, "1 + 0.5 × 10");
    assert_eq!(damage(&g, far), 0, "out of range: skipped");
    assert!(out
        .events
        .iter()
        .any(|e| e.id == id("core:event/cast_refused") && e.to_string().contains("out of range")));
}
