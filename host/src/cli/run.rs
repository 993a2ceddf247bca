//! `tessera run` (AI-vs-AI games from the loaded mods, optionally with hot reload) and
//! `tessera replay` (play a recorded game again and check its checksum).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::rc::Rc;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tessera_host::mods::LoadedMods;
use tessera_host::play::{
    GreedyAgent, Input, Match, RandomAgent, RecordedMod, Recording, ReplayAgent,
};
use tessera_host::reload::HotReload;
use tessera_host::{Controller, Registry};

use super::{check, ModArgs};

/// Options of `tessera run`.
#[derive(clap::Args, Debug)]
pub struct RunArgs {
    #[command(flatten)]
    pub mods: ModArgs,
    /// The seed of the first game (game N uses seed + N - 1).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// How many games to play. By default 1, or with `--watch` one after another until
    /// stopped (Ctrl-C), so the game is still there when you save your next edit.
    #[arg(long)]
    pub games: Option<u32>,
    /// Pause after every turn (to watch a game, or to edit mods while it runs).
    #[arg(long, value_name = "MS", default_value_t = 0)]
    pub turn_delay_ms: u64,
    /// Hot reload: watch the mod folders and switch the running game to every good save.
    #[arg(long)]
    pub watch: bool,
    /// Who plays each seat: `random`, `greedy` or a testing agent (`none`, `play_first`,
    /// `keep_playing`, `play_and_attack`, `predictable`), comma-separated.
    #[arg(long, default_value = "random,greedy")]
    pub agents: String,
    /// Print only the summary line of each game.
    #[arg(long)]
    pub quiet: bool,
    /// After the games, print the time spent in each mod's content and plugins.
    #[arg(long)]
    pub profile: bool,
    /// End each game (a draw) after this many turns, in place of the game's
    /// `[game] turn_limit`.
    #[arg(long, value_name = "N")]
    pub turns: Option<u32>,
    /// Write each game's recording here (`game.json`; with several games `game-2.json`, ...).
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
}

fn agent(name: &str, seed: u64) -> Result<Box<dyn Controller>, String> {
    match name.trim() {
        "random" => Ok(Box::new(RandomAgent::new(seed))),
        "greedy" => Ok(Box::new(GreedyAgent::new())),
        other => match tessera_host::play::TestStyle::parse(other) {
            Some(style) => Ok(Box::new(tessera_host::play::TestAgent::new(
                style,
                tessera_host::play::TestSetup::default(),
            ))),
            None => Err(format!(
                "unknown agent `{other}`; use `random`, `greedy`, or a testing agent: `none`, `play_first`, `keep_playing`, `play_and_attack`, `predictable`"
            )),
        },
    }
}

/// The display-name lookup of loaded mods (English).
fn translator(loaded: &LoadedMods) -> tessera_host::play::Translate {
    let text = loaded.locale.text.get("en").cloned().unwrap_or_default();
    Rc::new(move |key: &str| text.get(key).cloned())
}

/// The loaded mods as a recording lists them.
fn recorded_mods(loaded: &LoadedMods) -> Result<Vec<RecordedMod>, String> {
    tessera_host::play::record::mod_set(loaded).map_err(|e| e.to_string())
}

/// Builds the plugins of the loaded mod folders whose module is missing and whose source
/// crate is under `./plugins` (a fresh clone has sources, not modules), so `tessera run`
/// works with no other step. A build failure is printed; the mod is then reported as
/// broken by the load, and the game runs without it.
pub(crate) fn build_missing_plugins(mods: &ModArgs) -> Result<(), String> {
    use tessera_host::plugins::build::{build, read_plugin_crate};
    let (_, dirs) = check::server_and_dirs(mods)?;
    let dirs: Vec<PathBuf> = dirs
        .iter()
        .filter_map(|d| std::fs::canonicalize(d).ok())
        .collect();
    let missing: Vec<PathBuf> = super::plugin_crates(Path::new("plugins"))
        .into_iter()
        .filter(|dir| {
            read_plugin_crate(dir).is_ok_and(|c| {
                let module = c.mod_dir.join("plugins").join(format!("{}.wasm", c.name));
                let in_use = std::fs::canonicalize(&c.mod_dir)
                    .is_ok_and(|m| dirs.iter().any(|d| m.starts_with(d)));
                in_use && !module.is_file()
            })
        })
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    let names: Vec<String> = missing
        .iter()
        .map(|d| {
            d.file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    eprintln!(
        "building the plugins the mods need (their modules are missing): {}",
        names.join(", ")
    );
    // One at a time, so each finished plugin is reported while the rest build (a first
    // build compiles the SDK and takes minutes).
    for (i, (dir, name)) in missing.iter().zip(&names).enumerate() {
        let what = format!("plugin {}/{}: {name}", i + 1, missing.len());
        eprintln!("  building {what} ...");
        let spinner = super::style::spinner(format!("building {what}"));
        let result = build(std::slice::from_ref(dir));
        spinner.finish_and_clear();
        match result {
            Ok(built) => {
                for b in built {
                    eprintln!("  built {what} in {:.1} s", b.build_time.as_secs_f64());
                }
            }
            Err(e) => eprintln!("plugin build failed: {e}"),
        }
    }
    Ok(())
}

fn load_game(mods: &ModArgs) -> Result<(LoadedMods, Arc<tessera_host::Generation>), String> {
    build_missing_plugins(mods)?;
    let loaded = check::load(mods, Arc::new(Registry::with_core()))?;
    if loaded.has_errors() {
        eprintln!("{}", check::render_all(&loaded));
    }
    let gen = loaded
        .generation
        .clone()
        .ok_or("no mod loaded, so there is no game to run")?;
    Ok((loaded, gen))
}

fn record_path(base: &Path, game: u32, games: u32) -> PathBuf {
    if games <= 1 {
        return base.to_path_buf();
    }
    let stem = base.file_stem().and_then(|s| s.to_str()).unwrap_or("game");
    let ext = base.extension().and_then(|s| s.to_str()).unwrap_or("json");
    base.with_file_name(format!("{stem}-{game}.{ext}"))
}

/// Prints the warnings of a staging that went live: a reload says what `check` would.
fn print_reload_warnings(staged: &tessera_host::reload::Staged) {
    let warnings: Vec<String> = staged
        .loaded
        .all_diagnostics()
        .filter(|d| d.severity == tessera_host::Severity::Warning)
        .map(|d| d.render(check::color()))
        .collect();
    if !warnings.is_empty() {
        eprintln!("{}", warnings.join("\n\n"));
    }
}

/// `tessera run`.
pub fn run(args: &RunArgs) -> Result<ExitCode, String> {
    let (loaded, gen) = load_game(&args.mods)?;
    // With --watch and no --games: games until stopped.
    let games = args.games.unwrap_or(if args.watch { u32::MAX } else { 1 });
    let names: Vec<&str> = args.agents.split(',').collect();
    let mut live = Live::new(args, &loaded, gen)?;
    let started = Instant::now();
    let mut tally = Tally {
        wins: vec![0u32; names.len()],
        ..Tally::default()
    };
    for n in 1..=games {
        tally.played = n;
        play_game(args, &names, n, games, &mut live, &mut tally)?;
    }
    if tally.played > 1 {
        let secs = started.elapsed().as_secs_f64();
        let wins: Vec<String> = tally
            .wins
            .iter()
            .enumerate()
            .map(|(i, w)| format!("Player {} ({}) {w}", i + 1, names[i].trim()))
            .collect();
        outln!(
            "{} games in {:.2} s ({:.1} games/s): {}, draws {}, errors {}",
            tally.played,
            secs,
            f64::from(tally.played) / secs.max(1e-9),
            wins.join(", "),
            tally.draws,
            tally.failures
        );
    }
    if args.profile {
        print_profile(&tally.split, tally.agent_time, started.elapsed());
    }
    Ok(if tally.failures > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// The results of a run so far.
#[derive(Default)]
struct Tally {
    played: u32,
    wins: Vec<u32>,
    draws: u32,
    failures: u32,
    split: tessera_host::plugins::TimeSplit,
    agent_time: Duration,
}

/// What carries over from game to game: the generation, its translations and recorded
/// mods (all replaced by a hot reload), and the `--watch` watchers.
struct Live {
    gen: Arc<tessera_host::Generation>,
    translate: tessera_host::play::Translate,
    mods: Vec<RecordedMod>,
    reload: Option<HotReload>,
    rebuilder: Option<tessera_host::reload::PluginRebuilder>,
}

impl Live {
    /// Starts the watchers when `--watch` asks for them.
    fn new(
        args: &RunArgs,
        loaded: &LoadedMods,
        gen: Arc<tessera_host::Generation>,
    ) -> Result<Live, String> {
        let reload = if args.watch {
            let (server, dirs) = check::server_and_dirs(&args.mods)?;
            let r = HotReload::new(
                dirs,
                server,
                Arc::new(Registry::with_core()),
                Duration::from_millis(100),
                gen.number + 1,
            )
            .map_err(|e| e.to_string())?;
            outln!("watching the mod folders; save a file to reload it into the running game");
            Some(r)
        } else {
            None
        };
        // Plugin sources under ./plugins are rebuilt on save; the new module then reloads
        // like any other change to its mod.
        let plugins_dir = Path::new("plugins");
        let rebuilder = if args.watch && plugins_dir.is_dir() {
            let r =
                tessera_host::reload::PluginRebuilder::new(plugins_dir, Duration::from_millis(200))
                    .map_err(|e| e.to_string())?;
            outln!("watching plugin sources in ./plugins; saving one rebuilds it");
            Some(r)
        } else {
            None
        };
        Ok(Live {
            gen,
            translate: translator(loaded),
            mods: recorded_mods(loaded)?,
            reload,
            rebuilder,
        })
    }

    /// Between two steps of a game: reports plugin rebuilds and applies a staged reload.
    fn poll(&mut self, m: &mut Match) -> Result<(), String> {
        if let Some(line) = self.rebuilder.as_mut().and_then(|r| r.poll()) {
            outln!("{line}");
        }
        let Some(staged) = self.reload.as_mut().and_then(|r| r.poll()) else {
            return Ok(());
        };
        let (line, report) = m.apply_reload(&staged);
        outln!("{line}");
        if report.is_some() {
            print_reload_warnings(&staged);
            self.gen = m.game().generation().clone();
            self.translate = translator(&staged.loaded);
            m.set_translate(self.translate.clone());
            self.mods = recorded_mods(&staged.loaded)?;
        } else {
            eprintln!("{}", check::render_all(&staged.loaded));
        }
        Ok(())
    }
}

/// Plays game `n` of `games` and adds its result to the tally.
fn play_game(
    args: &RunArgs,
    names: &[&str],
    n: u32,
    games: u32,
    live: &mut Live,
    tally: &mut Tally,
) -> Result<(), String> {
    let seed = args.seed.wrapping_add(u64::from(n) - 1);
    let agents = names
        .iter()
        .enumerate()
        .map(|(i, a)| agent(a, seed.wrapping_mul(31).wrapping_add(i as u64)))
        .collect::<Result<Vec<_>, _>>()?;
    let quiet = args.quiet;
    let mut out = |line: &str| {
        if !quiet {
            outln!("{line}");
        }
    };
    if !quiet {
        let seats: Vec<String> = names
            .iter()
            .enumerate()
            .map(|(i, a)| format!("Player {} {}", i + 1, a.trim()))
            .collect();
        outln!("== game {n} (seed {seed}): {} ==", seats.join(", "));
    }
    let mut m = match Match::new(
        live.gen.clone(),
        seed,
        agents,
        live.translate.clone(),
        &mut out,
    ) {
        Ok(m) => m,
        Err(e) => return Err(format!("game {n} could not start: {e}")),
    };
    m.set_log(!quiet);
    m.set_profiling(args.profile);
    if let Some(t) = args.turns {
        m.set_turn_limit(t);
    }
    let mut last_turn = m.turns();
    let result = loop {
        match m.step(&mut out) {
            Ok(Some(summary)) => break Ok(summary),
            Ok(None) => {}
            Err(e) => break Err(e),
        }
        if m.turns() != last_turn {
            last_turn = m.turns();
            if args.turn_delay_ms > 0 {
                std::thread::sleep(Duration::from_millis(args.turn_delay_ms));
            }
        }
        live.poll(&mut m)?;
    };
    if args.profile {
        let (p, a) = m.take_profile();
        tally.split.merge(&p);
        tally.agent_time += a;
    }
    match result {
        Ok(s) => {
            match &s.ending {
                tessera_host::play::Ending::Won(seat) => tally.wins[*seat] += 1,
                // A draw, or an ending this CLI does not know (counted as one).
                _ => tally.draws += 1,
            }
            outln!(
                "game {n} (seed {seed}): {} after {} turns, {} moves, {} events, {} ms (checksum {:016x})",
                s.ending,
                s.turns,
                s.moves,
                s.events,
                s.elapsed.as_millis(),
                s.checksum
            );
            if let Some(base) = &args.record {
                let path = record_path(base, n, games);
                m.recording(live.mods.clone(), &s.ending.to_string())
                    .write(&path)
                    .map_err(|e| format!("writing {}: {e}", path.display()))?;
            }
        }
        Err(e) => {
            tally.failures += 1;
            outln!("game {n} (seed {seed}): error: {e}");
        }
    }
    Ok(())
}

fn print_profile(split: &tessera_host::plugins::TimeSplit, agents: Duration, total: Duration) {
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    outln!(
        "time per mod (content excludes the plugin calls it makes; both include AI look-ahead):"
    );
    let mut mods: Vec<&String> = split.content.keys().chain(split.plugins.keys()).collect();
    mods.sort();
    mods.dedup();
    for m in mods {
        let c = split.content.get(m).copied().unwrap_or_default();
        let p = split.plugins.get(m).copied().unwrap_or_default();
        outln!(
            "  {m:<16} content {:>9.1} ms ({:>4.1}%)   plugins {:>9.1} ms ({:>4.1}%)",
            ms(c),
            100.0 * c.as_secs_f64() / total.as_secs_f64().max(1e-9),
            ms(p),
            100.0 * p.as_secs_f64() / total.as_secs_f64().max(1e-9)
        );
    }
    outln!(
        "  agents choosing moves (look-ahead included): {:.1} ms of {:.1} ms in all",
        ms(agents),
        ms(total)
    );
}

/// `tessera replay FILE`.
pub fn replay(file: &Path, mods: &ModArgs, quiet: bool) -> Result<ExitCode, String> {
    let rec = Recording::read(file).map_err(|e| e.to_string())?;
    if rec.reloads > 0 {
        return Err(format!(
            "{}: this game was played across {} hot reload(s); it can only be replayed with the mod files as they were at each reload",
            file.display(),
            rec.reloads
        ));
    }
    let (loaded, gen) = load_game(mods)?;
    let differences = rec.mod_differences(&recorded_mods(&loaded)?);
    if !differences.is_empty() {
        return Err(format!(
            "{}: the mods differ from the recording, so the game would not replay:\n  {}\nload the mods it was recorded with (`--mods DIR`)",
            file.display(),
            differences.join("\n  ")
        ));
    }
    let inputs = Rc::new(std::cell::RefCell::new(
        rec.inputs
            .iter()
            .cloned()
            .collect::<std::collections::VecDeque<Input>>(),
    ));
    let agents: Vec<Box<dyn Controller>> = rec
        .agents
        .iter()
        .map(|_| Box::new(ReplayAgent::new(inputs.clone())) as Box<dyn Controller>)
        .collect();
    let mut out = |line: &str| {
        if !quiet {
            outln!("{line}");
        }
    };
    let mut m = Match::new(gen, rec.seed, agents, translator(&loaded), &mut out)
        .map_err(|e| e.to_string())?;
    let summary = m.play(&mut out).map_err(|e| e.to_string())?;
    let checksum = format!("{:016x}", summary.checksum);
    let unused = inputs.borrow().len();
    if unused > 0 {
        outln!(
            "replay diverged: the game ended with {unused} recorded input(s) not used (of {}); the recording does not match the game",
            rec.inputs.len()
        );
        return Ok(ExitCode::FAILURE);
    }
    if checksum != rec.checksum {
        outln!(
            "replay diverged: the final checksum is {checksum}, the recording says {}",
            rec.checksum
        );
        return Ok(ExitCode::FAILURE);
    }
    outln!(
        "replayed {}: {} after {} turns; checksum {checksum} matches",
        file.display(),
        summary.ending,
        summary.turns
    );
    Ok(ExitCode::SUCCESS)
}
