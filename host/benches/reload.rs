//! Hot reload latency, from a file written to the new behaviour live in a running world.
//!
//! Measured per iteration: staging (a full load of the mods: parse, resolve, validate,
//! compile plugins through the module cache) plus the swap into the running game,
//! excluding the watcher's debounce (reported separately, end to end). Baseline in the
//! same run: parsing the edited content file alone (`toml::from_str`), the floor any
//! reload pays. Run with `cargo bench -p tessera-host --bench reload`.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tessera_host::mods::load_generation;
use tessera_host::reload::HotReload;
use tessera_host::{Event, Game, Id, Registry, ScriptedController};

const ITERATIONS: usize = 60;

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

fn content(n: usize) -> String {
    let mut c = String::new();
    for k in 0..40 {
        c.push_str(&format!(
            "[class.card_{k}]\nproperties = {{ attack = {}, max_health = 3 }}\ntags = [\"minion\"]\n\n[[class.card_{k}.trigger]]\nwhen = \"core:event/turn_started\"\ndo = [{{ type = \"add\", key = \"attack\", amount = 1 }}]\n\n",
            k + n
        ));
    }
    c
}

fn percentile(samples: &mut [Duration], p: f64) -> Duration {
    samples.sort();
    let i = ((samples.len() as f64 - 1.0) * p).round() as usize;
    samples[i]
}

fn report(name: &str, samples: &mut [Duration], baseline: Duration) {
    let p50 = percentile(samples, 0.5);
    let p95 = percentile(samples, 0.95);
    println!(
        "{name:<44} p50 {:>8.2} ms  p95 {:>8.2} ms  ({:.0}x the parse-only baseline)",
        p50.as_secs_f64() * 1e3,
        p95.as_secs_f64() * 1e3,
        p50.as_secs_f64() / baseline.as_secs_f64().max(1e-9)
    );
}

fn main() {
    let root = std::env::temp_dir().join(format!("tessera-bench-reload-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let mods = root.join("mods");
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let built = tessera_host::plugins::build::build(&[repo.join("plugins/counter")])
        .expect("build the counter plugin");
    let wasm = std::fs::read(&built[0].wasm).expect("counter.wasm");
    std::env::set_var("TESSERA_CACHE_DIR", root.join("cache"));

    write(
        &mods.join("cards/mod.toml"),
        "[mod]\nid = \"cards\"\nversion = \"1.0.0\"\napi = \"0.1\"\n",
    );
    write(&mods.join("cards/content/cards.toml"), &content(0));
    write(
        &mods.join("counter/mod.toml"),
        &std::fs::read_to_string(repo.join("examples/mods/counter/mod.toml")).expect("manifest"),
    );
    write(
        &mods.join("counter/content/counter.toml"),
        &std::fs::read_to_string(repo.join("examples/mods/counter/content/counter.toml"))
            .expect("content"),
    );
    write(&mods.join("counter/plugins/counter.wasm"), "");
    std::fs::write(mods.join("counter/plugins/counter.wasm"), &wasm).expect("wasm");

    let registry = Arc::new(Registry::with_core());
    let dirs = vec![mods.clone()];
    let first = load_generation(&dirs, None, registry.clone(), 1);
    assert!(
        !first.has_errors(),
        "{:?}",
        first
            .all_diagnostics()
            .map(|d| d.to_string())
            .collect::<Vec<_>>()
    );
    let mut game = Game::new(
        first.generation.expect("generation"),
        1,
        Box::new(ScriptedController::default()),
    );
    for k in 0..40 {
        game.spawn(
            Id::parse(&format!("cards:class/card_{k}")).expect("id"),
            None,
            "board",
        )
        .expect("spawn");
    }
    game.spawn(Id::parse("counter:class/tally").expect("id"), None, "table")
        .expect("spawn");
    let turn = Id::parse("core:event/turn_started").expect("id");
    game.emit(Event::new(turn)).expect("turn");

    // Baseline: parsing the edited file alone.
    let mut base = Vec::new();
    for n in 0..ITERATIONS {
        let text = content(n);
        let t = Instant::now();
        let v: toml::Table = toml::from_str(&text).expect("parse");
        std::hint::black_box(v);
        base.push(t.elapsed());
    }
    let baseline = percentile(&mut base, 0.5);
    println!(
        "baseline: parse the edited 40-card file       p50 {:>8.3} ms",
        baseline.as_secs_f64() * 1e3
    );

    let mut number = 2;
    let mut reload = |game: &mut Game| {
        let t = Instant::now();
        let loaded = load_generation(&dirs, None, registry.clone(), number);
        number += 1;
        assert!(!loaded.has_errors());
        game.swap(loaded.generation.expect("generation"))
            .expect("swap");
        let d = t.elapsed();
        game.emit(Event::new(turn)).expect("turn");
        d
    };

    // Content edit: one card file changes; the plugin is a cache hit.
    let mut samples = Vec::new();
    for n in 1..=ITERATIONS {
        write(&mods.join("cards/content/cards.toml"), &content(n));
        samples.push(reload(&mut game));
    }
    report(
        "content edit (40 cards + a plugin mod)",
        &mut samples,
        baseline,
    );

    // Plugin swap, cache hit: the same module bytes again.
    let mut samples = Vec::new();
    for _ in 0..ITERATIONS {
        std::fs::write(mods.join("counter/plugins/counter.wasm"), &wasm).expect("wasm");
        samples.push(reload(&mut game));
    }
    report("plugin swap, module cache hit", &mut samples, baseline);

    // Plugin swap, cache miss: a new build (a custom section makes new bytes).
    let mut samples = Vec::new();
    for n in 0..ITERATIONS / 3 {
        let mut bytes = wasm.clone();
        let payload = format!("build-{n}");
        let name = b"tessera-bench";
        let body_len = 1 + name.len() + payload.len();
        bytes.push(0);
        bytes.push(u8::try_from(body_len).expect("small"));
        bytes.push(u8::try_from(name.len()).expect("small"));
        bytes.extend_from_slice(name);
        bytes.extend_from_slice(payload.as_bytes());
        std::fs::write(mods.join("counter/plugins/counter.wasm"), &bytes).expect("wasm");
        samples.push(reload(&mut game));
    }
    report(
        &format!("plugin swap, cache miss ({} KB module)", wasm.len() / 1024),
        &mut samples,
        baseline,
    );

    // End to end through the watcher, debounce included (reported separately).
    let debounce = Duration::from_millis(100);
    let mut hot =
        HotReload::new(dirs.clone(), None, registry.clone(), debounce, 1000).expect("watcher");
    let mut samples = Vec::new();
    for n in 0..10 {
        std::thread::sleep(Duration::from_millis(50));
        let t = Instant::now();
        write(&mods.join("cards/content/cards.toml"), &content(1000 + n));
        let staged = hot.wait(Duration::from_secs(30)).expect("a staging");
        let (line, _) = HotReload::apply(&mut game, &staged);
        assert!(line.starts_with("reloaded"), "{line}");
        samples.push(t.elapsed());
    }
    let p50 = percentile(&mut samples, 0.5);
    println!(
        "end to end via the watcher (debounce {} ms)   p50 {:>8.2} ms  -> {:.2} ms beyond the debounce",
        debounce.as_millis(),
        p50.as_secs_f64() * 1e3,
        (p50.saturating_sub(debounce)).as_secs_f64() * 1e3
    );
    let _ = std::fs::remove_dir_all(&root);
}
