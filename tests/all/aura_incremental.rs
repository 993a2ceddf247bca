//! Incremental aura recompute: after property changes, the modifiers in effect are
//! exactly those a whole recompute gives (auras that read a key only from their targets
//! re-test just the changed objects).

use std::sync::Arc;

use tessera_host::plugins::Runtime;
use tessera_host::rules::aura;
use tessera_host::{ContentSource, Generation, Id, ObjId, Registry, SourceText, Sym, Value, World};

const CONTENT: &str = r#"
[class.unit]
[class.player]

[class.lord]
[[class.lord.aura]]
select = { type = "objects", tag = "soldier", zone = "board", owner = "friendly", where = { type = "compare", left = "target.power", op = ">=", right = 3 } }
modifiers = [{ key = "attack", op = "add", value = "target.power" }]

[class.banner]
[[class.banner.aura]]
select = { type = "objects", tag = "soldier", where = { type = "compare", left = "target.power", op = "<", right = "self.rank" } }
modifiers = [{ key = "armor", op = "add", value = 1 }]
"#;

fn id(s: &str) -> Id {
    Id::parse(s).expect("id")
}

/// Every object's modifiers, as (object, key, value) in list order.
fn modifiers(w: &World) -> Vec<(ObjId, Sym, u64)> {
    let ids: Vec<ObjId> = w.objects().map(|(o, _)| o).collect();
    ids.into_iter()
        .flat_map(|o| {
            w.modifiers(o)
                .iter()
                .map(move |m| (o, m.key, m.value.to_bits()))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// The generation from `content` and a world (RNG seed `seed`) with two players.
fn setup(content: &str, seed: u64) -> (Generation, World, [ObjId; 2]) {
    let src = ContentSource::new("t", SourceText::new("t.toml", content));
    let gen = Generation::build(Arc::new(Registry::with_core()), &[src], 1).expect("compiles");
    let mut w = World::new(seed);
    let players = [
        w.create(id("t:class/player"), None, Sym::new("table")),
        w.create(id("t:class/player"), None, Sym::new("table")),
    ];
    (gen, w, players)
}

/// The modifiers in effect after an incremental recompute, checked against a whole one.
fn matches_whole_recompute(
    w: &World,
    gen: &Generation,
    rt: &Runtime,
    step: usize,
) -> Vec<(ObjId, Sym, u64)> {
    let incremental = modifiers(w);
    let mut whole = w.clone();
    whole.mark_all_dirty();
    aura::recompute(&mut whole, gen, rt).expect("recompute");
    assert_eq!(incremental, modifiers(&whole), "step {step}");
    incremental
}

#[test]
fn incremental_recompute_matches_a_whole_recompute() {
    let (gen, mut w, players) = setup(CONTENT, 3);
    let rt = Runtime::default();
    let (power, rank) = (Sym::new("power"), Sym::new("rank"));
    let mut units = Vec::new();
    for i in 0..40usize {
        let zone = if i % 3 == 0 { "reserve" } else { "board" };
        let u = w.create(id("t:class/unit"), Some(players[i % 2]), Sym::new(zone));
        if i % 4 != 0 {
            w.tag(u, Sym::new("soldier")).expect("tag");
        }
        w.set(u, power, Value::Int((i % 7) as i64)).expect("set");
        units.push(u);
    }
    w.create(id("t:class/lord"), Some(players[0]), Sym::new("board"));
    let banner = w.create(id("t:class/banner"), Some(players[1]), Sym::new("board"));
    w.set(banner, rank, Value::Int(2)).expect("set");
    aura::recompute(&mut w, &gen, &Runtime::default()).expect("recompute");

    let mut armor_seen = false;
    for step in 0..200usize {
        // One to three power changes (read from targets only), sometimes the banner's
        // rank (read from the holder: every target may change).
        for k in 0..=(step % 3) {
            let u = units[(step * 7 + k * 13) % units.len()];
            w.set(u, power, Value::Int(((step + k) % 9) as i64))
                .expect("set");
        }
        if step % 17 == 0 {
            w.set(banner, rank, Value::Int((step % 5) as i64))
                .expect("set");
        }
        aura::recompute(&mut w, &gen, &rt).expect("recompute");
        let incremental = matches_whole_recompute(&w, &gen, &rt, step);
        let armored = incremental
            .iter()
            .filter(|(_, k, _)| *k == Sym::new("armor"))
            .count();
        armor_seen |= armored > 0;
    }
    assert!(
        armor_seen,
        "the banner's aura (reading the holder's rank) took effect"
    );
    // The lord's aura is in effect: a board soldier of player 1 with power >= 3.
    let strong = units
        .iter()
        .copied()
        .find(|&u| {
            w.object(u)
                .is_ok_and(|o| o.zone == Sym::new("board") && o.owner == Some(players[0]))
                && w.has_tag(u, Sym::new("soldier"))
                && w.get_int(u, power) >= 3
        })
        .expect("a strong soldier");
    assert!(w
        .modifiers(strong)
        .iter()
        .any(|m| m.key == Sym::new("attack")));
}

/// Auras over zones, with filters on the candidates' tags and owners, a `while` on the
/// holder's tag, and a count over another zone.
const STRUCTURAL: &str = r#"
[class.unit]
[class.player]

[class.captain]
[[class.captain.aura]]
select = { type = "objects", zone = "board", owner = "friendly", where = { type = "has_tag", tag = "soldier" } }
while = { type = "has_tag", tag = "inspiring" }
modifiers = [{ key = "attack", op = "add", value = 1 }]

[[class.captain.aura]]
select = { type = "objects", zone = "board", tag = "soldier" }
modifiers = [{ key = "armor", op = "add", value = "count(graves)" }]

[ref.graves]
selector = { type = "objects", zone = "grave" }

[class.herald]
[[class.herald.aura]]
zones = ["hand"]
select = { type = "objects", zone = ["hand", "board"], where = { type = "owned_by", owner = "enemy" } }
modifiers = [{ key = "cost", op = "add", value = 1 }]
"#;

/// Structural changes (moves between zones, tags, owners, new and removed objects, in
/// zones the auras read and zones they do not) leave exactly the modifiers a whole
/// recompute gives.
#[test]
fn structural_changes_recompute_only_what_they_touch_and_match_a_whole_recompute() {
    let (gen, mut w, players) = setup(STRUCTURAL, 5);
    let rt = Runtime::default();
    let zones = ["board", "hand", "grave", "collection"].map(Sym::new);
    let (soldier, inspiring) = (Sym::new("soldier"), Sym::new("inspiring"));
    let mut objects = Vec::new();
    for i in 0..30usize {
        let u = w.create(id("t:class/unit"), Some(players[i % 2]), zones[i % 4]);
        if i % 3 != 0 {
            w.tag(u, soldier).expect("tag");
        }
        objects.push(u);
    }
    let captain = w.create(id("t:class/captain"), Some(players[0]), Sym::new("board"));
    w.create(id("t:class/herald"), Some(players[1]), Sym::new("hand"));
    aura::recompute(&mut w, &gen, &rt).expect("recompute");
    let (mut attack_seen, mut cost_seen) = (false, false);
    for step in 0..300usize {
        let pick = objects[(step * 11) % objects.len()];
        if !w.exists(pick) {
            objects.retain(|o| *o != pick);
            continue;
        }
        match step % 7 {
            0 => drop(w.move_to(pick, zones[(step / 7) % 4]).expect("move")),
            1 => drop(w.tag(pick, soldier).expect("tag")),
            2 => drop(w.untag(pick, soldier).expect("untag")),
            3 => w.set_owner(pick, Some(players[step % 2])).expect("owner"),
            4 => {
                let z = zones[(step / 4) % 4];
                objects.push(w.create(id("t:class/unit"), Some(players[1]), z));
            }
            5 if step % 3 == 0 => drop(w.remove(pick).expect("remove")),
            5 => drop(w.move_to(pick, Sym::new("collection")).expect("move")),
            _ if step % 2 == 0 => drop(w.tag(captain, inspiring).expect("tag")),
            _ => drop(w.untag(captain, inspiring).expect("untag")),
        }
        aura::recompute(&mut w, &gen, &rt).expect("recompute");
        let incremental = matches_whole_recompute(&w, &gen, &rt, step);
        attack_seen |= incremental.iter().any(|(_, k, _)| *k == Sym::new("attack"));
        cost_seen |= incremental.iter().any(|(_, k, _)| *k == Sym::new("cost"));
    }
    assert!(attack_seen && cost_seen, "the auras took effect");
}
