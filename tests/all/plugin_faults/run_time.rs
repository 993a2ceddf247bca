//! Run-time faults (fuel, memory, stack, traps, panics): each fails its call, rolls the
//! command back, names everything, and repeated faults quarantine the mod.

use super::*;

#[test]
fn infinite_loop_is_stopped_by_fuel() {
    let err = condition_fault(ENDLESS_LOOP, PluginFaultKind::OutOfFuel);
    assert!(err.message.contains("ran out of fuel"), "{err}");
}

#[test]
fn memory_bomb_hits_the_memory_limit() {
    let err = action_fault(MEMORY_BOMB, PluginFaultKind::MemoryLimit);
    assert!(err.message.contains("trapped"), "{err}");
    assert!(err.message.contains("memory limit"), "{err}");
}

#[test]
fn one_huge_memory_grow_is_refused() {
    let err = action_fault(HUGE_GROW, PluginFaultKind::MemoryLimit);
    assert!(err.message.contains("memory limit"), "{err}");
}

#[test]
fn stack_overflow_is_caught() {
    let err = condition_fault(STACK_OVERFLOW, PluginFaultKind::StackOverflow);
    assert!(err.message.contains("overflowed its stack"), "{err}");
}

#[test]
fn trap_after_two_writes_rolls_both_back() {
    let err = action_fault(TWO_WRITES_THEN_TRAP, PluginFaultKind::Trap);
    assert!(err.message.contains("trapped"), "{err}");
}

#[test]
fn panic_message_reaches_the_error() {
    let err = action_fault(PANIC, PluginFaultKind::Panicked);
    assert_eq!(
        err.message, "panicked: the dragon refused: too many heads",
        "{err}"
    );
}

#[test]
fn fuel_limit_from_server_toml_is_honoured() {
    let h = Hostile {
        cond_fault: BUSY_LOOP,
        ..Hostile::default()
    };
    let t = tree(&h, &["condition/bad", "action/bad"], &[]);

    // Default fuel: the loop fits, the victim is poked.
    let loaded = load_tree(&t, None);
    let mut w = Fixture::new(&loaded);
    w.poke(w.victim).expect("fits the default fuel");
    assert_eq!(w.get(w.victim, "marks"), 1);

    // The operator lowers the fuel for this mod only: the same loop runs out.
    let cfg = server(&t, "[limits.hostile]\nfuel = 100000\n");
    let loaded = load_tree(&t, Some(&cfg));
    let mut w = Fixture::new(&loaded);
    let err = w.poke_victim_fails();
    assert_eq!(err.kind, PluginFaultKind::OutOfFuel, "{err}");
    assert_names_everything(&err, "tessera_condition", "hostile:condition/bad", COND_USE);
    w.others_still_run();
    // A harmless call fits the lowered budget.
    w.fresh_instance_works(1);
}

#[test]
fn repeated_faults_quarantine_the_mod() {
    let h = Hostile {
        cond_fault: TRAP,
        ..Hostile::default()
    };
    let t = tree(&h, &["condition/bad", "action/bad"], &[]);
    let loaded = load_tree(&t, None);
    let mut w = Fixture::new(&loaded);
    for n in 1..=5 {
        let err = w.poke_victim_fails();
        assert_eq!(err.kind, PluginFaultKind::Trap, "fault {n}: {err}");
        assert_eq!(err.quarantine.is_some(), n == 5, "fault {n}: {err}");
        if n == 5 {
            assert!(
                err.to_string().contains("now quarantined in this world")
                    && err
                        .to_string()
                        .contains("switched off and the game goes on"),
                "fault {n}: {err}"
            );
        }
    }
    // Issue 18, finding 4: quarantine isolates. The mod's definitions are switched off in
    // this world (its condition is false, its action does nothing) and the game goes on:
    // poking is no longer an error, and changes nothing of the hostile mod's.
    let before = w.game.world().checksum();
    w.poke(w.victim)
        .expect("a quarantined mod's definitions are off, not errors");
    w.poke(w.bystander).expect("the game goes on");
    assert_eq!(w.get(w.bystander, "marks"), 0, "its action did not run");
    assert_eq!(w.game.world().checksum(), before);
    w.others_still_run();
    // Another world of the same generation never sees this world's quarantine: the mod
    // still runs there (and still faults on the victim).
    let mut other = Fixture::new(&loaded);
    let err = other.poke_victim_fails();
    assert!(
        err.kind == PluginFaultKind::Trap && err.quarantine.is_none(),
        "{err}"
    );
    other.fresh_instance_works(1);
}
