//! Scenario tests: the way modders (and we) test content.
//!
//! A scenario is one TOML file holding content (the same tables as any content file:
//! `[class.*]`, `[aura.*]`, `[rule.*]`, ...), a `[scenario]` header (name, seed, mods to
//! load), optionally a `[match]` (a real game played by testing agents, `matches`),
//! named `[[object]]`s to set up, and `[[step]]`s that issue commands and assert what
//! happened. Objects are referred to by name or by path (`p1.board.0`, `paths`); a step's
//! scripted answers and random outcomes are given by its controller (`script`).
//!
//! Owns the file format, running it, and reporting failures as
//! `file: step N (name): expected X, found Y`. It drives the world only through [`Game`].

mod expect;
mod explain;
mod format;
mod matches;
mod paths;
mod script;

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::bus::Event;
use crate::diag::SourceText;
use crate::game::{Game, ScriptedController};
use crate::id::{Id, Sym};
use crate::rules::compile::{BuildOptions, ContentSource, ExtraActions};
use crate::rules::registry::Registry;
use crate::rules::{Generation, PathSeg};
use crate::state::ObjId;

pub use explain::{explain, ExplainError};
pub use format::{MatchSpec, ObjectSpec, ScenarioFile, ScenarioHeader, ScenarioMods, StepSpec};

/// Which content the scenario at `path` runs on: what it says (`[scenario] mods`), else
/// the loaded mods when it lies inside a mod's folder (a folder above it has a
/// `mod.toml`) or plays a `[match]`, else its own content only.
pub fn runs_on(path: &Path, file: &ScenarioFile) -> ScenarioMods {
    if let Some(m) = file.scenario.mods {
        return m;
    }
    let in_mod = path
        .ancestors()
        .skip(1)
        .any(|d| d.join("mod.toml").is_file());
    if in_mod || file.game_match.is_some() {
        ScenarioMods::Loaded
    } else {
        ScenarioMods::Own
    }
}

/// The result of one scenario file.
#[derive(Debug, Clone)]
pub struct ScenarioResult {
    /// The file.
    pub file: PathBuf,
    /// Its name (from `[scenario] name`, or the file stem).
    pub name: String,
    /// Every failure (empty: passed).
    pub failures: Vec<ScenarioFailure>,
}

/// Why a scenario failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ScenarioFailure {
    /// The scenario could not run: its file (or a content file it names) could not be
    /// read or parsed, its content did not compile, or its `[match]` or objects could not
    /// be set up. The message names the file and what is wrong.
    #[error("{0}")]
    Setup(String),
    /// A step failed: an expectation did not hold, or the step could not run.
    #[error("{}: {label}: {message}", file.display())]
    Step {
        /// The scenario file.
        file: PathBuf,
        /// The step's number (1-based).
        step: usize,
        /// `step N (name)`.
        label: String,
        /// What went wrong, with objects named as the scenario names them.
        message: String,
    },
}

impl ScenarioResult {
    /// Whether it passed.
    pub fn passed(&self) -> bool {
        self.failures.is_empty()
    }
}

/// Extra content every scenario in a run loads before its own (e.g. a mod's content),
/// as `(mod id, file)` pairs.
pub type SharedContent = Vec<ContentSource>;

/// Runs one scenario file.
pub fn run_file(path: &Path, registry: &Arc<Registry>, shared: &SharedContent) -> ScenarioResult {
    let fallback = path
        .file_stem()
        .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
    let fail = |name: String, msg: String| ScenarioResult {
        file: path.to_owned(),
        name,
        failures: vec![ScenarioFailure::Setup(msg)],
    };
    let (text, file) = match read(path) {
        Ok(r) => r,
        Err(msg) => return fail(fallback, msg),
    };
    let name = file.scenario.name.clone().unwrap_or(fallback);
    match run(path, &text, &file, registry, shared, None) {
        Ok(ran) => ScenarioResult {
            file: path.to_owned(),
            name,
            failures: ran.failures,
        },
        Err(msg) => fail(name, msg),
    }
}

/// A scenario file's text and contents, or why it cannot be read (file:line:col).
fn read(path: &Path) -> Result<(String, ScenarioFile), String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("could not read {}: {e}", path.display()))?;
    let file: ScenarioFile = toml::from_str(&text).map_err(|e| {
        let (line, col) = e
            .span()
            .map_or((0, 0), |s| crate::diag::line_col(&text, s.start));
        format!("{}:{line}:{col}: {}", path.display(), e.message())
    })?;
    Ok((text, file))
}

/// A scenario run: what failed, and the game and named objects as the run left them.
struct Ran {
    failures: Vec<ScenarioFailure>,
    game: Game,
    names: BTreeMap<String, ObjId>,
}

/// Runs every scenario file (`*.toml` with a `[scenario]` table) under the paths.
pub fn run_paths(
    paths: &[PathBuf],
    registry: &Arc<Registry>,
    shared: &SharedContent,
) -> Vec<ScenarioResult> {
    files(paths)
        .iter()
        .map(|f| run_file(f, registry, shared))
        .collect()
}

/// Every scenario file (`*.toml` with a `[scenario]` table) under the paths, sorted.
pub fn files(paths: &[PathBuf]) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for p in paths {
        collect(p, &mut files);
    }
    files.sort();
    files
}

/// A scenario file's `[scenario] name`, if it has one and parses.
pub fn name_of(path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    let doc: toml::Table = toml::from_str(&text).ok()?;
    Some(doc.get("scenario")?.get("name")?.as_str()?.to_owned())
}

fn collect(p: &Path, out: &mut Vec<PathBuf>) {
    if p.is_dir() {
        let Ok(rd) = std::fs::read_dir(p) else { return };
        for e in rd.flatten() {
            collect(&e.path(), out);
        }
    } else if p.extension().is_some_and(|e| e == "toml")
        && std::fs::read_to_string(p).is_ok_and(|t| t.lines().any(|l| l.trim() == "[scenario]"))
    {
        out.push(p.to_owned());
    }
}

/// Formats results the way `tessera test` prints them; ends with `N passed, M failed`.
pub fn report(results: &[ScenarioResult]) -> String {
    let mut out = String::new();
    for r in results {
        if r.passed() {
            out.push_str(&format!("ok     {} ({})\n", r.name, r.file.display()));
        } else {
            out.push_str(&format!("FAILED {} ({})\n", r.name, r.file.display()));
            for f in &r.failures {
                for line in f.to_string().lines() {
                    out.push_str(&format!("         {line}\n"));
                }
            }
        }
    }
    let passed = results.iter().filter(|r| r.passed()).count();
    out.push_str(&format!(
        "{passed} passed, {} failed\n",
        results.len() - passed
    ));
    out
}

fn run(
    path: &Path,
    text: &str,
    file: &ScenarioFile,
    registry: &Arc<Registry>,
    shared: &SharedContent,
    stop_after: Option<usize>,
) -> Result<Ran, String> {
    let ns = file
        .scenario
        .namespace
        .clone()
        .unwrap_or_else(|| "test".to_owned());
    let (sources, me) = scenario_sources(path, text, file, shared, &ns)?;
    let extras: Vec<ExtraActions> = file
        .step
        .iter()
        .enumerate()
        .filter(|(_, s)| s.actions.is_some())
        .map(|(i, _)| ExtraActions {
            source: me,
            path: vec![
                PathSeg::Key("step".into()),
                PathSeg::Index(i),
                PathSeg::Key("do".into()),
            ],
        })
        .collect();
    let opts = BuildOptions {
        number: 1,
        extras: &extras,
        ordered_after: None,
        ..BuildOptions::default()
    };
    let (gen, mut compiled) =
        Generation::build_with(registry.clone(), &sources, &opts).map_err(|d| d.render(false))?;
    let gen = Arc::new(gen);
    let (mut game, mut names, mut played) = start(
        path,
        file,
        file.game_match.as_ref(),
        &gen,
        &ns,
        file.scenario.seed,
    )?;
    let mut failures = Vec::new();
    let mut compiled_iter = compiled.drain(..);
    for (i, step) in file
        .step
        .iter()
        .enumerate()
        .take(stop_after.unwrap_or(usize::MAX))
    {
        let label = format!(
            "step {} ({})",
            i + 1,
            step.name.as_deref().unwrap_or("unnamed")
        );
        let actions = if step.actions.is_some() {
            compiled_iter.next()
        } else {
            None
        };
        let mut step = Cow::Borrowed(step);
        if step.new_game || step.new_match.is_some() {
            // The step's seed is the new world's: not applied again by the step.
            let seed = step.seed.unwrap_or(file.scenario.seed);
            let spec = step.new_match.as_ref().or(file.game_match.as_ref());
            (game, names, played) = start(path, file, spec, &gen, &ns, seed)
                .map_err(|m| format!("{label}: a new game: {m}"))?;
            step.to_mut().seed = None;
        }
        if let Err(m) =
            expect::run_step(&mut game, &ns, &step, actions, &mut names, played.as_mut())
        {
            failures.push(ScenarioFailure::Step {
                file: path.to_owned(),
                step: i + 1,
                label,
                message: with_names(&m, &names),
            });
            if !step.continue_on_failure {
                break;
            }
        }
    }
    Ok(Ran {
        failures,
        game,
        names,
    })
}

/// A started scenario game, the names of its objects, and its match when it plays one.
type Started = (
    Game,
    BTreeMap<String, ObjId>,
    Option<matches::ScenarioMatch>,
);

/// A game as the scenario starts it (and `new_game`/`new_match` start it again): a world
/// from `seed`, the match set up from `spec`, the `[[object]]`s created; with the names
/// they have.
fn start(
    path: &Path,
    file: &ScenarioFile,
    spec: Option<&MatchSpec>,
    gen: &Arc<Generation>,
    ns: &str,
    seed: u64,
) -> Result<Started, String> {
    let mut game = Game::new(gen.clone(), seed, Box::new(ScriptedController::default()));
    let mut names: BTreeMap<String, ObjId> = BTreeMap::new();
    let played = match spec {
        Some(spec) => Some(
            matches::setup(&mut game, ns, spec, &mut names)
                .map_err(|m| format!("{}: [match]: {m}", path.display()))?,
        ),
        None => None,
    };
    for (i, o) in file.object.iter().enumerate() {
        setup_object(&mut game, gen, ns, o, &mut names)
            .map_err(|m| format!("object {} (`{}`): {m}", i + 1, o.name))?;
    }
    Ok((game, names, played))
}

/// The content a scenario compiles: the loaded mods' (or none), its `content` files, and
/// its own file last (whose index is returned, for its steps' action lists).
fn scenario_sources(
    path: &Path,
    text: &str,
    file: &ScenarioFile,
    shared: &SharedContent,
    ns: &str,
) -> Result<(Vec<ContentSource>, usize), String> {
    let mut sources: Vec<ContentSource> = match runs_on(path, file) {
        ScenarioMods::Own => Vec::new(),
        ScenarioMods::Loaded if shared.is_empty() => {
            return Err(format!(
                "{}: this scenario runs on the loaded mods (it is in a mod's folder, plays a `[match]`, or says `mods = \"loaded\"`), but no mods are loaded; run it with `tessera test --mods DIR` or `--server FILE`, or write `mods = \"own\"` under [scenario] if it needs only its own content",
                path.display()
            ))
        }
        ScenarioMods::Loaded => shared.clone(),
    };
    let base = path.parent().unwrap_or(Path::new("."));
    for extra in &file.scenario.content {
        let p = base.join(extra);
        let t = std::fs::read_to_string(&p)
            .map_err(|e| format!("could not read content {}: {e}", p.display()))?;
        sources.push(ContentSource::new(ns.to_owned(), SourceText::new(p, t)));
    }
    let me = sources.len();
    sources.push(
        ContentSource::new(ns.to_owned(), SourceText::new(path, text))
            .ignoring(&["scenario", "match", "object", "step"]),
    );
    Ok((sources, me))
}

/// `message` with every object the scenario named (`#2`, `#3g1`) written by its name
/// (`lurker`), so a failure reads in the scenario's own words.
fn with_names(message: &str, names: &BTreeMap<String, ObjId>) -> String {
    let by_id: BTreeMap<String, &str> = names
        .iter()
        .map(|(n, id)| (format!("{id:?}"), n.as_str()))
        .collect();
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(at) = rest.find('#') {
        out.push_str(&rest[..at]);
        let tail = &rest[at + 1..];
        let len = tail
            .find(|c: char| !(c.is_ascii_digit() || c == 'g'))
            .unwrap_or(tail.len());
        let token = &rest[at..at + 1 + len];
        out.push_str(by_id.get(token).copied().unwrap_or(token));
        rest = &rest[at + 1 + len..];
    }
    out.push_str(rest);
    out
}

fn setup_object(
    game: &mut Game,
    gen: &Generation,
    ns: &str,
    o: &ObjectSpec,
    names: &mut BTreeMap<String, ObjId>,
) -> Result<(), String> {
    let class = resolve_id(&o.class, "class", ns)?;
    if gen.class(class).is_none() {
        return Err(format!("class `{class}` is not defined"));
    }
    let owner = match &o.owner {
        Some(n) => Some(
            *names
                .get(n)
                .ok_or_else(|| format!("owner `{n}` is not an object defined above"))?,
        ),
        None => None,
    };
    let parent = match &o.parent {
        Some(n) => Some(
            *names
                .get(n)
                .ok_or_else(|| format!("parent `{n}` is not an object defined above"))?,
        ),
        None => None,
    };
    let props = o.properties.clone();
    let tags = o.tags.clone();
    let id = game
        .spawn_with(
            class,
            owner,
            o.zone.as_deref().unwrap_or("board"),
            |w, id| {
                for (k, v) in &props {
                    let value = crate::state::Value::from_json(v).ok_or_else(|| {
                        crate::rules::RuleError::Failed(format!(
                            "property `{k}` must be a number, bool, text or list"
                        ))
                    })?;
                    w.set(id, Sym::new(k), value)?;
                }
                for t in &tags {
                    w.tag(id, Sym::new(t))?;
                }
                w.set_parent(id, parent)?;
                Ok(())
            },
        )
        .map_err(|e| e.to_string())?;
    if names.insert(o.name.clone(), id).is_some() {
        return Err(format!("the name `{}` is used twice", o.name));
    }
    Ok(())
}

/// Resolves an id written in a scenario: full, `category/name`, or a bare name
/// (this scenario's namespace first, then `core`).
pub(crate) fn resolve_id(s: &str, category: &str, ns: &str) -> Result<Id, String> {
    if s.contains(':') || s.contains('/') {
        return Id::resolve(s, Some(ns)).map_err(|e| e.to_string());
    }
    Id::from_parts(ns, category, s).map_err(|e| e.to_string())
}

/// Builds the event a step emits. Without `player`, the event is about the target's side:
/// the target itself if it is a player, else its owner (as events the rules raise are).
pub(crate) fn event_of(
    spec: &format::EmitSpec,
    ns: &str,
    names: &BTreeMap<String, ObjId>,
    gen: &Generation,
    world: &crate::state::World,
) -> Result<Event, String> {
    let mut id = resolve_id(&spec.event, "event", ns)?;
    if !gen.events.contains(&id) && !spec.event.contains(':') {
        if let Ok(core) = resolve_id(&spec.event, "event", "core") {
            if gen.events.contains(&core) {
                id = core;
            }
        }
    }
    if !gen.events.contains(&id) {
        return Err(format!("unknown event `{id}`"));
    }
    let look = |n: &Option<String>| -> Result<Option<ObjId>, String> {
        n.as_deref()
            .map(|n| paths::resolve(world, names, n))
            .transpose()
    };
    let mut e = Event::new(id);
    e.source = look(&spec.source)?;
    e.target = look(&spec.target)?;
    e.player = match look(&spec.player)? {
        Some(p) => Some(p),
        None => e.target.and_then(|t| crate::rules::core::side_of(world, t)),
    };
    e.amount = spec.amount;
    Ok(e)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 21, defect 4: a failing scenario showed its objects as `#2`, `#3`.
    #[test]
    fn failures_name_objects_as_the_scenario_does() {
        let id = |index, generation| ObjId { index, generation };
        let names = BTreeMap::from([
            ("lurker".to_owned(), id(2, 0)),
            ("giant".to_owned(), id(3, 1)),
        ]);
        assert_eq!(
            with_names("damaged target=#2 source=#3g1 by #23, #9", &names),
            "damaged target=lurker source=giant by #23, #9"
        );
    }
}
