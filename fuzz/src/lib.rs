//! The harnesses behind the fuzz targets (`fuzz_targets/*.rs`): each takes the fuzzer's
//! bytes to one input path of the host through its public API, as a mod, an operator or
//! a recording would reach it, and exercises what loads. The host's answer to garbage is
//! an error value; a panic, an abort, a hang (libFuzzer's `-timeout`) or a runaway
//! allocation (`-rss_limit_mb`) is a bug.

use std::path::Path;
use std::sync::{Arc, OnceLock};

use tessera_host::ability::Aim;
use tessera_host::{
    ContentSource, Event, Game, Generation, Id, Registry, ScriptedController, SourceText,
};

pub mod expr;
pub mod host_calls;
pub mod replay;

/// At most this many objects spawned and events raised per compiled input.
const EXERCISE: usize = 8;

/// The registry every content target compiles against (built once).
pub fn registry() -> Arc<Registry> {
    static REGISTRY: OnceLock<Arc<Registry>> = OnceLock::new();
    REGISTRY
        .get_or_init(|| Arc::new(Registry::with_core()))
        .clone()
}

/// The bytes as text, if they are UTF-8 (every file the host reads is).
pub fn text(data: &[u8]) -> Option<&str> {
    std::str::from_utf8(data).ok()
}

/// Compiles `text` as the content file `file` of mod `namespace`; renders the diagnostics
/// when it does not compile, runs it a little when it does.
pub fn compile_and_run(namespace: &str, file: &str, text: &str) {
    let src = ContentSource::new(namespace, SourceText::new(file, text));
    match Generation::build(registry(), &[src], 1) {
        Err(diagnostics) => {
            let _ = diagnostics.render(false);
        }
        Ok(gen) => {
            let _ = gen.warnings.render(false);
            run(Arc::new(gen));
        }
    }
}

/// Spawns a few objects of each class, raises a few of each event on them and casts
/// every ability: the compiled content's triggers, auras, expressions and pipelines run.
fn run(gen: Arc<Generation>) {
    let mut game = Game::new(gen.clone(), 7, Box::new(ScriptedController::default()));
    let mut classes: Vec<Id> = gen.classes.keys().copied().collect();
    classes.sort();
    let objects: Vec<_> = classes
        .iter()
        .take(EXERCISE)
        .filter_map(|c| game.spawn(*c, None, "board").ok())
        .collect();
    let mut events: Vec<Id> = gen.events.iter().copied().collect();
    events.sort();
    for (i, e) in events.iter().take(EXERCISE).enumerate() {
        let mut event = Event::new(*e).amount(i as i64 + 1);
        if let Some(o) = objects.get(i % objects.len().max(1)) {
            event = event.target(*o);
        }
        let _ = game.emit(event);
    }
    let abilities: Vec<Id> = gen.abilities.iter().map(|a| a.id).take(EXERCISE).collect();
    for (i, a) in abilities.into_iter().enumerate() {
        let Some(&caster) = objects.first() else { break };
        let aim = objects.get(i % objects.len()).map_or(Aim::Nothing, |o| Aim::Object(*o));
        let _ = game.cast(a, caster, aim);
    }
    // Cast times, cooldowns and damage over time advance with ticks.
    let _ = game.tick(50);
}

/// A temporary folder for this fuzzing process (mods written once at start-up).
pub fn scratch_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("tessera-fuzz-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create the fuzzing scratch folder");
    dir
}

/// Writes `text` to `dir/rel`, creating folders.
pub fn write(dir: &Path, rel: &str, bytes: &[u8]) {
    let path = dir.join(rel);
    std::fs::create_dir_all(path.parent().expect("a parent folder")).expect("mkdir");
    std::fs::write(path, bytes).expect("write a scratch file");
}
