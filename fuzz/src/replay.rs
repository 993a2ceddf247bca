//! Recordings: a recording file is parsed as `tessera replay` reads it, compared with
//! the loaded mod set, and (whatever the comparison says, to reach the game with
//! arbitrary inputs) replayed on the arena game: moves and choices the fuzzer wrote,
//! against the rules.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::{Arc, OnceLock};

use tessera_host::mods::{load, LoadedMods, ServerConfig};
use tessera_host::play::record::mod_set;
use tessera_host::play::{Match, RecordedMod, Recording, ReplayAgent, Translate};
use tessera_host::{Controller, Generation, Registry};

/// At most this many recorded inputs are replayed (each is one move or choice).
const MAX_INPUTS: usize = 400;

/// The arena game (rules and classic cards: content only, no plugin to build).
struct Arena {
    gen: Arc<Generation>,
    mods: Vec<RecordedMod>,
}

fn repo_mods() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../mods")
}

fn arena() -> &'static Arena {
    static ARENA: OnceLock<Arena> = OnceLock::new();
    ARENA.get_or_init(|| {
        let dir = repo_mods();
        let text = format!(
            "mod_dirs = [{:?}]\ndisabled = [\"hearthbreaker\", \"arena-plus\", \"spellbook\"]\n",
            dir.display().to_string()
        );
        let server = ServerConfig::parse(&dir.join("fuzz-server.toml"), &text, &dir)
            .unwrap_or_else(|e| panic!("server.toml: {}", e.render(false)));
        let loaded: LoadedMods = load(&[dir], Some(&server), Arc::new(Registry::with_core()));
        Arena {
            gen: loaded.generation.clone().expect("the arena game loads"),
            mods: mod_set(&loaded).expect("the arena mods hash"),
        }
    })
}

/// Parses `data` as a recording and replays it.
pub fn run(text: &str) {
    let Ok(rec) = Recording::parse(text, Path::new("fuzz.json")) else {
        return;
    };
    let arena = arena();
    let _ = rec.mod_differences(&arena.mods);
    let inputs = Rc::new(RefCell::new(
        rec.inputs.iter().take(MAX_INPUTS).cloned().collect::<VecDeque<_>>(),
    ));
    let agents: Vec<Box<dyn Controller>> = rec
        .agents
        .iter()
        .take(4)
        .map(|_| Box::new(ReplayAgent::new(inputs.clone())) as Box<dyn Controller>)
        .collect();
    let translate: Translate = Rc::new(|_: &str| None);
    let mut out = |_: &str| {};
    let Ok(mut m) = Match::new(arena.gen.clone(), rec.seed, agents, translate, &mut out) else {
        return;
    };
    while !inputs.borrow().is_empty() {
        match m.step(&mut out) {
            Ok(None) => {}
            Ok(Some(_)) | Err(_) => break,
        }
    }
    let _ = format!("{:016x}", m.game().world().checksum()) == rec.checksum;
}
