//! Unit tests of the graph conditions: a batch (a selection's filter) answers exactly as
//! one test per object does, whether `of` reads the scope or not; objects without a place;
//! bad parameters are content errors naming the key.

use std::sync::Arc;

use crate::diag::SourceText;
use crate::id::{Id, Sym};
use crate::rules::registry::{Registry, Selector};
use crate::rules::{ContentSource, Cx, Generation, Scope};
use crate::state::{ObjId, Value, World};

/// Compiles content holding one trigger whose `select` is `select`.
fn build(select: &str) -> Result<Generation, String> {
    let text = format!(
        "[event.ping]\n\n[trigger.t]\nwhen = {{ event = \"event/ping\" }}\nselect = {select}\ndo = []\n"
    );
    let src = ContentSource::new("t", SourceText::new("t.toml", text));
    Generation::build(Arc::new(Registry::with_core()), &[src], 1).map_err(|d| d.to_string())
}

/// A chain of `n` systems (tag `system`, lanes both ways, `x = i`), each with a planet
/// (tag `planet`); the palace (tag `palace`, owned by `players[0]`) is a building on the
/// first planet, and a second palace owned by `players[1]` is on the last planet.
struct Map {
    world: World,
    systems: Vec<ObjId>,
    planets: Vec<ObjId>,
    players: [ObjId; 2],
    stray: ObjId,
}

fn map(n: usize) -> Map {
    let mut w = World::new(3);
    let c = |s: &str| Id::parse(&format!("t:class/{s}")).unwrap();
    let space = Sym::new("space");
    let tag = |w: &mut World, o: ObjId, t: &str| w.tag(o, Sym::new(t)).map(|_| ()).unwrap();
    let players = [0, 1].map(|_| w.create(c("player"), None, Sym::new("table")));
    for p in players {
        tag(&mut w, p, "player");
    }
    let systems: Vec<ObjId> = (0..n).map(|_| w.create(c("system"), None, space)).collect();
    let mut planets = Vec::new();
    for (i, &s) in systems.iter().enumerate() {
        let lanes: Vec<Value> = [i.checked_sub(1), Some(i + 1).filter(|j| *j < n)]
            .into_iter()
            .flatten()
            .map(|j| Value::Obj(systems[j]))
            .collect();
        w.set(s, Sym::new("lanes"), Value::List(lanes.into()))
            .unwrap();
        w.set(s, Sym::new("x"), Value::Int(i as i64)).unwrap();
        w.set(s, Sym::new("y"), Value::Int(0)).unwrap();
        tag(&mut w, s, "system");
        let p = w.create(c("planet"), None, space);
        w.set_parent(p, Some(s)).unwrap();
        tag(&mut w, p, "planet");
        planets.push(p);
    }
    for (k, at) in [(0, planets[0]), (1, planets[n - 1])] {
        let palace = w.create(c("palace"), Some(players[k]), space);
        w.set_parent(palace, Some(at)).unwrap();
        tag(&mut w, palace, "palace");
    }
    // A planet in no system: no place, no position.
    let stray = w.create(c("planet"), None, space);
    tag(&mut w, stray, "planet");
    Map {
        world: w,
        systems,
        planets,
        players,
        stray,
    }
}

/// What the trigger's selection picks (filters in batches), and what testing its filter
/// on each candidate alone answers; they must agree.
fn batch_and_alone(gen: &Generation, world: &World, this: Option<ObjId>) -> Vec<ObjId> {
    let select = gen.triggers[0].select.as_ref().unwrap();
    let scope = Scope {
        this,
        ..Scope::default()
    };
    let cx = Cx {
        world,
        gen,
        scope: &scope,
        controller: None,
        rt: &(),
    };
    let mut batch = Vec::new();
    select.select(&cx, &mut batch).unwrap();
    let mut all = Vec::new();
    select.sources[0].select(&cx, &mut all).unwrap();
    let alone: Vec<ObjId> = all
        .into_iter()
        .filter(|&o| {
            let s = scope.with_target(o);
            select.filters[0].test(&cx.with_scope(&s), o).unwrap()
        })
        .collect();
    assert_eq!(batch, alone, "a batch answers as lone tests do");
    batch
}

#[test]
fn within_jumps_batches_answer_as_lone_tests_do() {
    let m = map(12);
    let gen = build(
        r#"{ type = "objects", tag = "planet", where = { type = "within_jumps", jumps = 3, of = { type = "objects", tag = "palace" } } }"#,
    )
    .unwrap();
    let picked = batch_and_alone(&gen, &m.world, None);
    let want: Vec<ObjId> = [0, 1, 2, 3, 8, 9, 10, 11].map(|i| m.planets[i]).to_vec();
    assert_eq!(picked, want);
    assert!(!picked.contains(&m.stray), "no place: never within");
}

#[test]
fn an_of_that_reads_the_scope_is_selected_for_each_candidate() {
    let m = map(12);
    // Friendly palaces only: which is judged from the holder (`self`), so `of` is scoped.
    let gen = build(
        r#"{ type = "objects", tag = "planet", where = { type = "within_jumps", jumps = "1 + 1", of = { type = "objects", tag = "palace", owner = "friendly" } } }"#,
    )
    .unwrap();
    let mine = batch_and_alone(&gen, &m.world, Some(m.players[0]));
    assert_eq!(mine, [0, 1, 2].map(|i| m.planets[i]).to_vec());
    let theirs = batch_and_alone(&gen, &m.world, Some(m.players[1]));
    assert_eq!(theirs, [9, 10, 11].map(|i| m.planets[i]).to_vec());
    // The bound may read the candidate: `target.reach` (absent reads 0).
    let mut world = m.world.clone();
    world
        .set(m.planets[5], Sym::new("reach"), Value::Int(5))
        .unwrap();
    let gen = build(
        r#"{ type = "objects", tag = "planet", where = { not = { type = "within_jumps", jumps = "target.reach", of = { type = "objects", tag = "palace" } } } }"#,
    )
    .unwrap();
    let far = batch_and_alone(&gen, &world, None);
    assert!(!far.contains(&m.planets[5]) && !far.contains(&m.planets[0]));
    assert!(far.contains(&m.planets[4]) && far.contains(&m.stray));
}

#[test]
fn within_distance_and_number_batches_answer_as_lone_tests_do() {
    let m = map(8);
    let gen = build(
        r#"{ type = "objects", tag = "system", where = { type = "within_distance", distance = 2.5, of = { type = "objects", tag = "palace", owner = "friendly" } } }"#,
    )
    .unwrap();
    let near = batch_and_alone(&gen, &m.world, Some(m.players[1]));
    assert_eq!(near, [5, 6, 7].map(|i| m.systems[i]).to_vec());
    let gen = build(
        r#"{ type = "objects", tag = "system", where = [{ type = "number", low = 2, high = 2, of = { type = "objects", tag = "palace" } }, { type = "within_distance", distance = 0, of = { type = "objects", tag = "palace" } }] }"#,
    )
    .unwrap();
    let two = batch_and_alone(&gen, &m.world, None);
    assert_eq!(two, vec![m.systems[0], m.systems[7]]);
    let gen = build(
        r#"{ type = "objects", tag = "system", where = { type = "number", high = 1, of = { type = "objects", tag = "palace" } } }"#,
    )
    .unwrap();
    assert!(batch_and_alone(&gen, &m.world, None).is_empty());
}

#[test]
fn contains_and_contained_by_batches_answer_as_lone_tests_do() {
    let m = map(4);
    let gen = build(
        r#"{ type = "objects", zone = "space", where = { type = "contains", what = { type = "has_tag", tag = "palace" } } }"#,
    )
    .unwrap();
    let holders = batch_and_alone(&gen, &m.world, None);
    assert_eq!(
        holders,
        vec![m.systems[0], m.systems[3], m.planets[0], m.planets[3]]
    );
    let gen = build(
        r#"{ type = "objects", tag = "palace", where = { type = "contained_by", what = { type = "within_jumps", jumps = 0, of = { type = "objects", tag = "system", where = { type = "compare", left = "target.x", op = "==", right = 3 } } } } }"#,
    )
    .unwrap();
    assert_eq!(batch_and_alone(&gen, &m.world, None).len(), 1);
    // A cycle of parents ends the walk instead of looping.
    let mut world = m.world.clone();
    world.set_parent(m.systems[1], Some(m.planets[1])).unwrap();
    let gen = build(
        r#"{ type = "objects", tag = "planet", where = { type = "contained_by", what = { type = "has_tag", tag = "nothing" } } }"#,
    )
    .unwrap();
    assert!(batch_and_alone(&gen, &world, None).is_empty());
}

#[test]
fn bad_parameters_are_content_errors_naming_what_is_wrong() {
    let cases = [
        (r#"{ type = "within_jumps", jumps = 3 }"#, "`of`"),
        (
            r#"{ type = "within_jumps", jumps = "3 +", of = { type = "self" } }"#,
            "expression `3 +`",
        ),
        (
            r#"{ type = "within_jumps", jumps = 3, of = { type = "self" }, edges = 4 }"#,
            "`edges`",
        ),
        (
            r#"{ type = "within_distance", of = { type = "self" } }"#,
            "`distance`",
        ),
        (r#"{ type = "number", low = 1, of = 7 }"#, "`of`"),
        (r#"{ type = "contains" }"#, "`what`"),
        (r#"{ type = "contained_by", what = 3 }"#, "`what`"),
    ];
    for (condition, names) in cases {
        let select = format!(r#"{{ type = "objects", where = {condition} }}"#);
        let err = build(&select).expect_err(condition);
        assert!(err.contains(names), "{condition}: {err}");
    }
}
