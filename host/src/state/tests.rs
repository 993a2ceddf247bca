//! Unit tests of the world: objects, properties, tags, zones and slots, auras and
//! dirty tracking, snapshots.

use super::*;

fn class() -> Id {
    Id::parse("test:class/thing").unwrap()
}

#[test]
fn dirty_tells_tag_only_changes_apart() {
    let (o, zone) = (
        ObjId {
            index: 1,
            generation: 0,
        },
        Sym::new("board"),
    );
    let (soldier, silence) = (Sym::new("soldier"), Sym::new("silenced"));
    let mut d = Dirty::default();
    assert!(!d.tags_only(None), "nothing changed");
    d.tagged_at(o, zone, soldier);
    assert!(d.structural && d.tags_only(Some(silence)));
    assert_eq!(d.tags.as_slice(), &[soldier]);
    d.tagged_at(o, zone, silence);
    assert!(!d.tags_only(Some(silence)), "silence switches auras off");
    let mut d = Dirty::default();
    d.tagged_at(o, zone, soldier);
    d.structural_at(o, zone);
    assert!(!d.tags_only(None), "a move is not a tag change");
    let mut w = World::new(1);
    let a = w.create(class(), None, zone);
    w.take_dirty();
    w.tag(a, soldier).expect("tag");
    assert!(w.dirty.tags_only(None));
    w.mark_all_dirty();
    assert!(!w.dirty.tags_only(None));
}

#[test]
fn generational_ids_do_not_alias_reused_slots() {
    let mut w = World::new(1);
    let a = w.create(class(), None, Sym::new("board"));
    w.remove(a).unwrap();
    let b = w.create(class(), None, Sym::new("board"));
    assert_eq!(a.index, b.index);
    assert_ne!(a, b);
    assert!(!w.exists(a));
    assert!(w.exists(b));
    assert_eq!(
        w.set(a, Sym::new("x"), Value::Int(1)),
        Err(StateError::NoObject(a))
    );
}

#[test]
fn snapshots_are_independent() {
    let mut w = World::new(1);
    let a = w.create(class(), None, Sym::new("board"));
    w.set(a, Sym::new("attack"), Value::Int(2)).unwrap();
    let snap = w.clone();
    let sum = w.checksum();
    w.set(a, Sym::new("attack"), Value::Int(5)).unwrap();
    w.tag(a, Sym::new("frozen")).unwrap();
    assert_ne!(w.checksum(), sum);
    assert_eq!(snap.get_int(a, Sym::new("attack")), 2);
    assert_eq!(snap.checksum(), sum);
}

#[test]
fn health_is_max_health_minus_damage() {
    let mut w = World::new(1);
    let a = w.create(class(), None, Sym::new("board"));
    w.set(a, Sym::new("max_health"), Value::Int(5)).unwrap();
    assert_eq!(w.get_int(a, Sym::new("health")), 5);
    w.add(a, Sym::new("damage"), 3).unwrap();
    assert_eq!(w.get_int(a, Sym::new("health")), 2);
    let plain = w.create(class(), None, Sym::new("board"));
    assert_eq!(w.get_number(plain, Sym::new("health")), None);
}

#[test]
fn inherited_lookups_walk_the_attachment_chain() {
    let mut w = World::new(1);
    let system = w.create(class(), None, Sym::new("space"));
    let planet = w.create(class(), None, Sym::new("space"));
    let building = w.create(class(), None, Sym::new("space"));
    w.set_parent(planet, Some(system)).unwrap();
    w.set_parent(building, Some(planet)).unwrap();
    w.set(system, Sym::new("star"), Value::Int(3)).unwrap();
    assert_eq!(w.get_inherited(building, Sym::new("star")), Some(3.0));
    assert_eq!(w.get_number(building, Sym::new("star")), None);
}

#[test]
fn index_hash_spreads_aligned_keys_over_low_bits() {
    use std::hash::BuildHasher;
    // Interned symbols hash by address: 16-byte aligned, so their low bits are zero.
    let low5 = |n: u64| IdHash.hash_one(n * 16) & 31;
    let buckets: std::collections::BTreeSet<u64> = (1..256).map(low5).collect();
    assert_eq!(
        buckets.len(),
        32,
        "every bucket of the trie's first level is used"
    );
    let key = |o: ObjId| IdHash.hash_one((Sym::new("board"), Some(o)));
    let a = ObjId {
        index: 1,
        generation: 0,
    };
    let b = ObjId {
        index: 2,
        generation: 0,
    };
    assert_ne!(key(a), key(b));
}

#[test]
fn rng_is_reproducible_from_the_seed() {
    let a = World::new(42);
    let b = World::new(42);
    let ra: Vec<_> = (0..10).map(|_| a.random_range(1, 6)).collect();
    let rb: Vec<_> = (0..10).map(|_| b.random_range(1, 6)).collect();
    assert_eq!(ra, rb);
    assert!(ra.iter().all(|r| (1..=6).contains(r)));
}

#[test]
fn adding_to_text_is_an_error_not_a_panic() {
    let mut w = World::new(1);
    let a = w.create(class(), None, Sym::new("board"));
    w.set(a, Sym::new("name"), Value::Text("x".into())).unwrap();
    assert!(matches!(
        w.add(a, Sym::new("name"), 1),
        Err(StateError::NotANumber { .. })
    ));
}

#[test]
fn edits_stamp_the_objects_they_touch() {
    let mut w = World::new(1);
    let zone = Sym::new("board");
    let (a, b) = (w.create(class(), None, zone), w.create(class(), None, zone));
    let made = w.edit_count();
    assert!(w.edited_since(a, 0) && w.edited_since(b, 0), "made after 0");
    assert!(!w.edited_since(a, made) && !w.edited_since(b, made));
    w.set(a, Sym::new("power"), Value::Int(2)).expect("set");
    assert!(w.edited_since(a, made), "a property write");
    assert!(!w.edited_since(b, made), "the other object is untouched");
    let before_tag = w.edit_count();
    w.tag(b, Sym::new("soldier")).expect("tag");
    assert!(w.edited_since(b, before_tag), "a tag");
    let before_mods = w.edit_count();
    let m = AppliedMod {
        key: Sym::new("power"),
        layer: Layer::Add,
        rank: 0,
        value: 1.0,
        max: f64::INFINITY,
        timestamp: 0,
        aura: AuraKey::Instance(0),
    };
    w.set_modifiers(a, vec![m]);
    assert!(w.edited_since(a, before_mods), "the modifiers in effect");
    assert!(!w.edited_since(b, before_mods));
    let snapshot = w.clone();
    w.remove(b).expect("remove");
    assert!(
        !w.edited_since(b, 0),
        "a removed object has nothing to revisit"
    );
    assert!(
        snapshot.edited_since(b, before_tag),
        "a snapshot keeps its stamps"
    );
}

#[test]
fn marks_hold_for_their_generation_only() {
    let mut w = World::new(1);
    let (pass, step) = (Id::parse("test:pass/effects").unwrap(), Sym::new("reset"));
    assert_eq!(w.mark(pass, step, 1), None);
    w.create(class(), None, Sym::new("board"));
    w.set_mark(pass, step, 1);
    let m = w.mark(pass, step, 1).expect("set under generation 1");
    assert_eq!(m.edits, w.edit_count());
    assert_eq!(w.mark(pass, step, 2), None, "another generation");
    assert_eq!(w.mark(pass, Sym::new("clamp"), 1), None, "another step");
    assert!(m.held.is_empty());
    let a = w.create(class(), None, Sym::new("board"));
    w.hold(pass, step, vec![a]);
    let held = w.mark(pass, step, 1).expect("still set");
    assert_eq!(
        (&*held.held, held.edits),
        (&[a][..], m.edits),
        "holding is no edit"
    );
    w.hold(pass, Sym::new("clamp"), vec![a]);
    assert_eq!(
        w.mark(pass, Sym::new("clamp"), 1),
        None,
        "no mark: nothing held"
    );
    w.set_mark(pass, step, 1);
    assert!(
        w.mark(pass, step, 1).expect("set").held.is_empty(),
        "a new mark holds nothing"
    );
}
