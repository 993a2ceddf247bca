//! Swapping a running world to a new generation loaded from edited files (the last step
//! of hot reload): classes re-bind, triggers and auras change, orphans are reported,
//! plugin state is handed over, and a failing swap keeps the last good generation.

use std::sync::Arc;

use tessera_host::mods::load;
use tessera_host::{Event, Game, Generation, Id, Registry, ScriptedController, Sym, Value};

use crate::mods_fixture::Tree;

const MANIFEST: &str = "[mod]\nid = \"m\"\nversion = \"1.0.0\"\napi = \"0.1\"\n";

fn generation(t: &Tree) -> Arc<Generation> {
    let loaded = load(&[t.mods()], None, Arc::new(Registry::with_core()));
    assert!(
        !loaded.has_errors(),
        "{:?}",
        loaded
            .all_diagnostics()
            .map(|d| d.to_string())
            .collect::<Vec<_>>()
    );
    loaded.generation.expect("generation")
}

/// Copies the example `counter` mod (with its built plugin) into the tree.
fn copy_counter_mod(t: &Tree) {
    let src = crate::plugin_build::repo().join("examples/mods/counter");
    for file in ["mod.toml", "content/counter.toml"] {
        t.write(
            "counter",
            file,
            &std::fs::read_to_string(src.join(file)).unwrap(),
        );
    }
    let dir = t.mods().join("counter/plugins");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("counter.wasm"),
        std::fs::read(src.join("plugins/counter.wasm")).unwrap(),
    )
    .unwrap();
}

fn id(s: &str) -> Id {
    Id::parse(s).unwrap()
}

fn turn(g: &mut Game) {
    g.emit(Event::new(id("core:event/turn_started")))
        .expect("turn");
}

fn attack(g: &Game, o: tessera_host::ObjId) -> i64 {
    g.world().get_int(o, Sym::new("attack"))
}

#[test]
fn edited_classes_rebind_and_game_changes_are_kept() {
    let t = Tree::new("reload-class");
    t.write("m", "mod.toml", MANIFEST);
    t.write(
        "m",
        "content/c.toml",
        "[class.wolf]\nproperties = { attack = 2, speed = 1 }\ntags = [\"beast\"]\n",
    );
    let mut g = Game::new(generation(&t), 1, Box::new(ScriptedController::default()));
    let a = g.spawn(id("m:class/wolf"), None, "board").unwrap();
    let b = g.spawn(id("m:class/wolf"), None, "board").unwrap();
    g.setup(|w| {
        w.set(b, Sym::new("attack"), Value::Int(5))
            .map(|_| ())
            .map_err(Into::into)
    })
    .unwrap();

    t.write(
        "m",
        "content/c.toml",
        "[class.wolf]\nproperties = { attack = 3, bite = 4 }\ntags = [\"beast\", \"pack\"]\n",
    );
    let report = g.swap(generation(&t)).expect("swap");
    assert_eq!(attack(&g, a), 3, "untouched attack follows the class");
    assert_eq!(attack(&g, b), 5, "attack the game changed is kept");
    let w = g.world();
    assert_eq!(w.base(a, Sym::new("speed")), None, "removed from the class");
    assert_eq!(w.get_int(b, Sym::new("bite")), 4, "new in the class");
    assert!(w.has_tag(a, Sym::new("pack")));
    assert!(report.rebound >= 4, "{report:?}");
    assert!(report.orphans.is_empty());
}

#[test]
fn edited_triggers_and_auras_take_effect_and_removed_ones_stop() {
    let t = Tree::new("reload-rules");
    t.write("m", "mod.toml", MANIFEST);
    let content = |grow: i64, aura: &str| {
        format!(
            "[class.unit]\nproperties = {{ attack = 1 }}\ntags = [\"unit\"]\n\n[class.banner]\n{aura}\n\n[trigger.grow]\nwhen = \"core:event/turn_started\"\nselect = {{ type = \"objects\", class = \"unit\" }}\ndo = [{{ type = \"add\", key = \"attack\", amount = {grow} }}]\n"
        )
    };
    let aura = |n: i64| {
        format!("[[class.banner.aura]]\nselect = {{ type = \"objects\", tag = \"unit\" }}\nmodifiers = [{{ key = \"attack\", op = \"add\", value = {n} }}]")
    };
    t.write("m", "content/c.toml", &content(1, &aura(10)));
    let mut g = Game::new(generation(&t), 1, Box::new(ScriptedController::default()));
    let u = g.spawn(id("m:class/unit"), None, "board").unwrap();
    g.spawn(id("m:class/banner"), None, "board").unwrap();
    assert_eq!(attack(&g, u), 11);
    turn(&mut g);
    assert_eq!(attack(&g, u), 12);

    t.write("m", "content/c.toml", &content(5, &aura(100)));
    let report = g.swap(generation(&t)).expect("swap");
    assert_eq!(attack(&g, u), 102, "the edited aura applies at once");
    assert!(report
        .outcome
        .events
        .iter()
        .any(|e| e.id == id("core:event/mods_reloaded")));
    turn(&mut g);
    assert_eq!(attack(&g, u), 107, "the edited trigger runs");

    t.write("m", "content/c.toml", &content(5, ""));
    g.swap(generation(&t)).expect("swap");
    assert_eq!(attack(&g, u), 7, "a removed aura leaves no value behind");
}

#[test]
fn objects_of_a_removed_class_are_reported_and_the_world_goes_on() {
    let t = Tree::new("reload-orphan");
    t.write("m", "mod.toml", MANIFEST);
    t.write(
        "m",
        "content/c.toml",
        "[class.ghost]\nproperties = { attack = 1 }\n\n[class.unit]\n",
    );
    let mut g = Game::new(generation(&t), 1, Box::new(ScriptedController::default()));
    let ghost = g.spawn(id("m:class/ghost"), None, "board").unwrap();
    t.write("m", "content/c.toml", "[class.unit]\n");
    let report = g.swap(generation(&t)).expect("swap");
    assert_eq!(report.orphans, vec![(ghost, id("m:class/ghost"))]);
    assert!(g.world().exists(ghost), "kept, inert");
    g.spawn(id("m:class/unit"), None, "board")
        .expect("the world keeps running");
    turn(&mut g);
}

#[test]
fn a_failing_swap_keeps_the_last_good_generation() {
    let t = Tree::new("reload-fail");
    t.write("m", "mod.toml", MANIFEST);
    t.write(
        "m",
        "content/c.toml",
        "[class.unit]\nproperties = { attack = 1 }\n",
    );
    let mut g = Game::new(generation(&t), 1, Box::new(ScriptedController::default()));
    let u = g.spawn(id("m:class/unit"), None, "board").unwrap();
    let before = g.world().checksum();
    // The new content compiles, but its reaction to the reload fails at run time.
    t.write(
        "m",
        "content/c.toml",
        "[class.unit]\nproperties = { attack = 9 }\n\n[trigger.boom]\nwhen = \"core:event/mods_reloaded\"\nselect = { type = \"objects\", class = \"unit\" }\ndo = [{ type = \"set\", key = \"attack\", value = \"1 / 0\" }]\n",
    );
    let err = g.swap(generation(&t)).unwrap_err();
    assert!(err.to_string().contains("division by zero"), "{err}");
    assert_eq!(g.world().checksum(), before, "the world is as it was");
    assert_eq!(attack(&g, u), 1);
    assert!(
        g.generation().triggers.is_empty(),
        "the old generation is still live"
    );
}

#[test]
fn plugin_state_is_handed_over_to_the_new_generation() {
    crate::plugin_build::ensure_built();
    let t = Tree::new("reload-plugin");
    copy_counter_mod(&t);

    let mut g = Game::new(generation(&t), 1, Box::new(ScriptedController::default()));
    let tally = g.spawn(id("counter:class/tally"), None, "table").unwrap();
    turn(&mut g);
    turn(&mut g);
    assert_eq!(g.world().get_int(tally, Sym::new("turns")), 2);

    let report = g.swap(generation(&t)).expect("swap");
    assert!(report.handover_problems.is_empty(), "{report:?}");
    turn(&mut g);
    assert_eq!(
        g.world().get_int(tally, Sym::new("turns")),
        3,
        "the count survived the reload"
    );
    assert_eq!(g.runtime().instance_count(), 1, "the old instance is gone");
}

/// Resident memory of this process, in KiB (Linux; `None` elsewhere).
fn rss_kib() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4)
}

#[test]
fn soak_200_reloads_release_what_they_replace() {
    crate::plugin_build::ensure_built();
    let t = Tree::new("reload-soak");
    copy_counter_mod(&t);
    t.write("m", "mod.toml", MANIFEST);
    let version = |n: usize| {
        let mut c = String::from("[class.unit]\nproperties = { attack = 1 }\n");
        for k in 0..(10 + n % 2 * 5) {
            c.push_str(&format!("\n[trigger.t{k}]\nwhen = \"core:event/turn_started\"\nselect = {{ type = \"objects\", class = \"unit\" }}\ndo = [{{ type = \"add\", key = \"attack\", amount = 1 }}]\n"));
        }
        c
    };
    t.write("m", "content/c.toml", &version(0));
    let mut g = Game::new(generation(&t), 1, Box::new(ScriptedController::default()));
    g.spawn(id("m:class/unit"), None, "board").unwrap();
    let tally = g.spawn(id("counter:class/tally"), None, "table").unwrap();
    let start_triggers = g.generation().triggers.len();
    let first_gen = Arc::downgrade(g.generation());
    let first_plugin = Arc::downgrade(&g.generation().registry.plugins()[0]);
    let mut warm_rss = None;
    for n in 1..=200 {
        t.write("m", "content/c.toml", &version(n));
        g.swap(generation(&t)).expect("swap");
        turn(&mut g);
        // Sampled late: a first compile of the plugin (cache miss) and the module cache's
        // background worker raise the high-water mark once, early.
        if n == 100 {
            warm_rss = rss_kib();
        }
    }
    assert!(
        first_gen.upgrade().is_none(),
        "the first generation was freed"
    );
    assert!(
        first_plugin.upgrade().is_none(),
        "its plugin (module, instances) was freed"
    );
    assert_eq!(
        g.generation().triggers.len(),
        start_triggers,
        "the triggers of old generations are gone"
    );
    assert_eq!(
        g.world().get_int(tally, Sym::new("turns")),
        200,
        "plugin state carried through every reload"
    );
    assert_eq!(
        g.runtime().instance_count(),
        1,
        "one plugin instance, not one per generation"
    );
    if let (Some(warm), Some(end)) = (warm_rss, rss_kib()) {
        assert!(
            end < warm + 16 * 1024,
            "resident memory grew from {warm} KiB to {end} KiB over the last 100 reloads"
        );
    }
}
