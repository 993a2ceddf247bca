//! `tessera test`: scenario tests, filtered by name, with coloured verdicts on a terminal
//! and a progress bar while many run.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use tessera_host::scenario::{self, ScenarioResult};
use tessera_host::Registry;

use super::{check, style, ModArgs};

/// Options of `tessera test`.
#[derive(clap::Args, Debug)]
pub struct TestArgs {
    /// Files or folders (default: the loaded mods' `tests/` folders, or `tests`).
    pub paths: Vec<PathBuf>,
    #[command(flatten)]
    pub mods: ModArgs,
    /// Run only the scenarios whose name or file path contains this text.
    #[arg(long, value_name = "TEXT")]
    pub filter: Option<String>,
}

/// Whether mods should be loaded: named (`--mods`, `--server`), or found (`./server.toml`,
/// `./mods`).
fn wants_mods(mods: &ModArgs) -> bool {
    !mods.mods.is_empty()
        || mods.server.is_some()
        || Path::new("server.toml").is_file()
        || Path::new("mods").is_dir()
}

/// The registry scenarios compile against, the loaded mods' content, and their test folders.
type Setup = (Arc<Registry>, scenario::SharedContent, Vec<PathBuf>);

fn setup(mods: &ModArgs) -> Result<Setup, String> {
    let registry = Arc::new(Registry::with_core());
    if !wants_mods(mods) {
        return Ok((registry, Vec::new(), vec![PathBuf::from("tests")]));
    }
    let loaded = check::load(mods, registry.clone())?;
    if loaded.has_errors() {
        eprintln!("{}", check::render_all(&loaded));
    }
    let tests: Vec<PathBuf> = loaded
        .resolution
        .order
        .iter()
        .filter(|m| loaded.loaded.contains(&m.id))
        .map(|m| m.dir.join("tests"))
        .filter(|p| p.is_dir())
        .collect();
    // Scenarios compile against the registry the mods loaded into (with their plugins,
    // whose loaders may read some of the content files).
    let registry = loaded
        .generation
        .as_ref()
        .map_or(registry, |g| g.registry.clone());
    let shared = loaded.sources(&registry);
    Ok((registry, shared, tests))
}

/// `tessera test`.
pub fn test(args: &TestArgs) -> Result<ExitCode, String> {
    let (registry, shared, default_paths) = setup(&args.mods)?;
    let paths = if args.paths.is_empty() {
        default_paths
    } else {
        args.paths.clone()
    };
    let mut files = scenario::files(&paths);
    if let Some(f) = &args.filter {
        files.retain(|p| {
            p.to_string_lossy().contains(f.as_str())
                || scenario::name_of(p).is_some_and(|n| n.contains(f.as_str()))
        });
        if files.is_empty() {
            return Err(format!(
                "no scenario's name or file contains `{f}` (under {}); `tessera test` without --filter lists them all",
                list(&paths)
            ));
        }
    }
    let bar = style::progress(files.len() as u64, "scenarios");
    let results: Vec<ScenarioResult> = files
        .iter()
        .map(|f| {
            bar.set_message(f.display().to_string());
            let r = scenario::run_file(f, &registry, &shared);
            bar.inc(1);
            r
        })
        .collect();
    bar.finish_and_clear();
    out!("{}", style::test_report(&scenario::report(&results)));
    let failed = results.iter().any(|r| !r.passed());
    Ok(if failed || results.is_empty() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// `tessera explain PROPERTY --scenario FILE`: the scenario run with the mods `mods`
/// names, then the property's accounting.
pub fn explain(
    what: &str,
    file: &Path,
    steps: Option<usize>,
    mods: &ModArgs,
) -> Result<ExitCode, String> {
    let (registry, shared, _) = setup(mods)?;
    out!(
        "{}",
        scenario::explain(file, &registry, &shared, steps, what).map_err(|e| e.to_string())?
    );
    Ok(ExitCode::SUCCESS)
}

fn list(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}
