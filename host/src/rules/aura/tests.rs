//! Aura evaluation: modifiers the same for every target are evaluated once and copied,
//! and give what evaluating them target by target gives.

use std::sync::Arc;

use super::recompute;
use crate::diag::SourceText;
use crate::id::{Id, Sym};
use crate::rules::registry::Registry;
use crate::rules::{ContentSource, Generation};
use crate::state::{ObjId, Value, World};

/// A holder with four auras over the `unit`-tagged objects on the board: one reading the
/// holder (`self.power`, the same for every target), one reading each target
/// (`target.power`), one drawing dice, one clamped by a bound read from each target.
const CONTENT: &str = r#"
[class.unit]
tags = ["unit"]

[class.holder]

[[class.holder.aura]]
select = { type = "objects", tag = "unit", zone = "board" }
modifiers = [{ key = "from_holder", op = "add", value = "self.power + 1" }]

[[class.holder.aura]]
select = { type = "objects", tag = "unit", zone = "board" }
modifiers = [{ key = "from_target", op = "add", value = "target.power * 2" }]

[[class.holder.aura]]
select = { type = "objects", tag = "unit", zone = "board" }
modifiers = [{ key = "rolled", op = "add", value = "1d1000" }]

[[class.holder.aura]]
select = { type = "objects", tag = "unit", zone = "board" }
modifiers = [{ key = "bounded", op = "clamp", min = 0, max = "target.power" }]
"#;

fn generation(content: &str) -> Generation {
    let src = ContentSource::new("t", SourceText::new("auras.toml", content.to_string()));
    Generation::build(Arc::new(Registry::with_core()), &[src], 1)
        .unwrap_or_else(|d| panic!("content does not compile: {d:?}"))
}

fn class(name: &str) -> Id {
    Id::parse(&format!("t:class/{name}")).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn only_modifiers_reading_nothing_of_the_target_are_shared_by_all_targets() {
    let gen = generation(CONTENT);
    let holder_auras = &gen
        .aura_class_defs
        .iter()
        .find(|c| c.id == class("holder"))
        .expect("the holder class has auras")
        .auras;
    let shared: Vec<bool> = holder_auras
        .iter()
        .map(|a| a.same_for_every_target)
        .collect();
    assert_eq!(shared, [true, false, false, false]);

    let mut w = World::new(3);
    let board = Sym::new("board");
    let power = Sym::new("power");
    let holder = w.create(class("holder"), None, board);
    w.set(holder, power, Value::Int(4)).expect("set");
    let units: Vec<ObjId> = (0..5)
        .map(|i| {
            let u = w.create(class("unit"), None, board);
            w.tag(u, Sym::new("unit")).expect("tag");
            w.set(u, power, Value::Int(i)).expect("set");
            w.set(u, Sym::new("bounded"), Value::Int(3)).expect("set");
            u
        })
        .collect();
    recompute(&mut w, &gen, &()).expect("recompute");
    let of =
        |key: &str| -> Vec<i64> { units.iter().map(|u| w.get_int(*u, Sym::new(key))).collect() };
    assert_eq!(
        of("from_holder"),
        [5; 5],
        "the holder's power + 1 on every unit"
    );
    assert_eq!(
        of("from_target"),
        [0, 2, 4, 6, 8],
        "each unit's own power doubled"
    );
    assert_eq!(
        of("bounded"),
        [0, 1, 2, 3, 3],
        "3 clamped to each unit's power"
    );
    let rolled = of("rolled");
    assert!(rolled.iter().all(|r| (1..=1000).contains(r)), "{rolled:?}");
    let mut distinct = rolled.clone();
    distinct.sort_unstable();
    distinct.dedup();
    assert!(
        distinct.len() > 1,
        "one roll per unit, not one for all: {rolled:?}"
    );
}

/// A holder in `table` whose aura sums the `attack` of the objects in `weapon` into its
/// own `total`: the key is read only there.
const SUM_CONTENT: &str = r#"
[ref.weapons]
selector = { type = "objects", zone = "weapon" }

[class.thing]

[class.holder]

[[class.holder.aura]]
zones = ["table"]
modifiers = [{ key = "total", op = "add", value = "sum(weapons, attack)" }]
"#;

#[test]
fn a_key_summed_in_one_zone_makes_the_aura_stale_only_when_it_changes_there() {
    let gen = generation(SUM_CONTENT);
    let def = gen
        .aura_class_defs
        .iter()
        .find(|c| c.id == class("holder"))
        .and_then(|c| c.auras.first().cloned())
        .expect("the holder's aura");
    let attack = Sym::new("attack");
    let (total, weapon_zone) = (Sym::new("total"), Sym::new("weapon"));
    let mut w = World::new(1);
    let holder = w.create(class("holder"), None, Sym::new("table"));
    let weapon = w.create(class("thing"), None, weapon_zone);
    let minion = w.create(class("thing"), None, Sym::new("board"));
    w.set(weapon, attack, Value::Int(3)).expect("set");
    w.set(minion, attack, Value::Int(5)).expect("set");
    recompute(&mut w, &gen, &()).expect("recompute");
    assert_eq!(w.get_int(holder, total), 3);

    let key = crate::state::AuraKey::Class { holder, index: 0 };
    let stale = |w: &World| super::is_stale(w, key, holder, &def, &w.dirty, false);
    w.set(minion, attack, Value::Int(7)).expect("set");
    assert!(!stale(&w), "attack changed outside `weapon`");
    recompute(&mut w, &gen, &()).expect("recompute");
    assert_eq!(w.get_int(holder, total), 3);

    w.set(weapon, attack, Value::Int(4)).expect("set");
    assert!(stale(&w), "attack changed in `weapon`");
    recompute(&mut w, &gen, &()).expect("recompute");
    assert_eq!(w.get_int(holder, total), 4);

    w.set(holder, attack, Value::Int(1)).expect("set");
    assert!(stale(&w), "a change to the holder always counts");
    recompute(&mut w, &gen, &()).expect("recompute");

    // The minion brings its changed attack into `weapon`: a structural change there.
    w.move_to(minion, weapon_zone).expect("move");
    assert!(stale(&w));
    recompute(&mut w, &gen, &()).expect("recompute");
    assert_eq!(w.get_int(holder, total), 11);
}
