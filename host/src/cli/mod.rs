//! The `tessera` commands: argument parsing and printing only; the work is done by the
//! library.

/// Prints a line to stdout, like `println!`, through [`write_stdout`].
macro_rules! outln {
    () => { $crate::cli::write_stdout(format_args!("\n")) };
    ($($arg:tt)*) => { $crate::cli::write_stdout(format_args!("{}\n", format_args!($($arg)*))) };
}

/// Prints to stdout, like `print!`, through [`write_stdout`].
macro_rules! out {
    ($($arg:tt)*) => { $crate::cli::write_stdout(format_args!($($arg)*)) };
}

mod check;
mod new;
mod pack;
mod run;
mod schema;
#[cfg(feature = "serve")]
mod serve;
mod style;
mod test;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

/// Tessera: a modding platform for rules-driven games.
#[derive(Parser, Debug)]
#[command(name = "tessera", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// Where mods come from (shared by every command that loads mods).
#[derive(clap::Args, Debug, Clone)]
pub struct ModArgs {
    /// A folder of mod folders (repeatable; default `./mods`, or `mod_dirs` of --server).
    #[arg(long = "mods", value_name = "DIR")]
    pub mods: Vec<PathBuf>,
    /// The operator's server.toml (mod folders, enabled/disabled mods, limits, grants);
    /// by default `./server.toml` when it exists.
    #[arg(long, value_name = "FILE")]
    pub server: Option<PathBuf>,
}

/// Output format.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Coloured text with source snippets.
    Human,
    /// One JSON document with stable error codes.
    Json,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Validate every mod (manifests, resolution, content, locale) without starting a game.
    Check {
        #[command(flatten)]
        mods: ModArgs,
        /// Output format.
        #[arg(long, value_enum, default_value = "human")]
        format: Format,
        /// The lock file: written when missing, compared otherwise. By default `mods.lock`
        /// for `./server.toml` (or no server file), and `NAME.mods.lock` beside any other
        /// server file `NAME.toml`, so two server files never share one lock.
        #[arg(long, value_name = "FILE")]
        lock: Option<PathBuf>,
        /// Rewrite the lock file even if it exists.
        #[arg(long)]
        update_lock: bool,
        /// Keep watching the mod folders and check again after every save (stop with
        /// Ctrl-C).
        #[arg(long)]
        watch: bool,
    },
    /// Print the resolved load order, why each mod is enabled or disabled, and what
    /// depends on what.
    Mods {
        #[command(flatten)]
        mods: ModArgs,
    },
    /// Print where an id is defined, every patch that touched it, and its final definition;
    /// with `--scenario`, why an object's property has its value (each change the last
    /// effect pass made, with its effects group's label).
    Explain {
        /// The id (`arena:class/wolf`, `core:action/damage`, ...), or with `--scenario`
        /// an object's property (`capital.target_industry`).
        id: String,
        /// Run this scenario, then explain the property `ID` names.
        #[arg(long, value_name = "FILE")]
        scenario: Option<PathBuf>,
        /// With `--scenario`: stop after this many steps (default: all).
        #[arg(long, value_name = "N")]
        step: Option<usize>,
        #[command(flatten)]
        mods: ModArgs,
    },
    /// Build plugin crates to wasm and copy each into its mod's `plugins/` folder
    /// (`[package.metadata.tessera] mod` in the crate's Cargo.toml). Adds the wasm target
    /// with rustup if it is missing, and says so.
    Build {
        /// Plugin crate folders (default: every plugin crate under `./plugins`).
        paths: Vec<PathBuf>,
        /// Build trusted native extensions (shared libraries for this host, feature
        /// `tessera-plugin-api/native`) instead of wasm modules. A mod loads one only if
        /// server.toml lists it in `trusted_native`.
        #[arg(long)]
        native: bool,
    },
    /// Play games between two AIs with the loaded mods, printing a readable log and a
    /// summary line per game. The same seed gives the same game, line for line.
    Run(run::RunArgs),
    /// Play a recorded game (`tessera run --record FILE`) again and check that it ends
    /// with the same world checksum.
    Replay {
        /// The recording.
        file: PathBuf,
        #[command(flatten)]
        mods: ModArgs,
        /// Print only the verdict.
        #[arg(long)]
        quiet: bool,
    },
    /// Host many matches in one process for clients over WebSocket (`ws://ADDR/ws`,
    /// protocol in docs/protocol.md), with admin HTTP (`/healthz`, `/readyz`, `/metrics`,
    /// `/mods`, `POST /reload`, `POST /drain`). Saved matches are restored at start.
    #[cfg(feature = "serve")]
    Serve(serve::ServeArgs),
    /// Play a match from the terminal against an AI (or another human through
    /// `--connect`), choosing legal moves by number.
    #[cfg(feature = "serve")]
    Play(serve::PlayArgs),
    /// Run scenario tests: every `*.toml` with a `[scenario]` table under the paths.
    /// Mods are loaded (from `--mods`, `--server`, `./server.toml` or `./mods`) and each
    /// loaded mod's `tests/` folder is run; a scenario runs on the loaded mods' content or
    /// only on its own, as its `[scenario] mods` says.
    Test(test::TestArgs),
    /// A language server for content files (LSP over stdin/stdout): diagnostics as
    /// `check` gives them, go-to-definition and hover for ids, completion of ids, kinds
    /// and parameters. Editors start it; it serves the folder they open.
    #[cfg(feature = "lsp")]
    Lsp,
    /// Write JSON Schemas of content files (with every kind the loaded mods register,
    /// plugins' included), mod.toml and server.toml, for editor completion.
    Schema(schema::SchemaArgs),
    /// Make a new mod, or a plugin crate for a mod, that passes `check` and `test` at once.
    #[command(subcommand)]
    New(new::NewCommand),
    /// Pack a mod folder into one `.zip` (manifest, content, locale, built plugins,
    /// tests) and print its hash in `mods.lock` form.
    Pack(pack::PackArgs),
    /// Install a packed mod into a mods folder, after checking its hash and that its
    /// dependencies are there at matching versions.
    Install(pack::InstallArgs),
}

/// Parses arguments and runs the command.
pub fn run() -> Result<ExitCode, String> {
    init_logging();
    let cli = Cli::parse();
    match cli.command {
        Command::Check {
            mods,
            format,
            lock,
            update_lock,
            watch,
        } => {
            let lock = lock.unwrap_or_else(|| check::default_lock(&mods));
            if watch {
                check::watch(&mods, format, &lock)
            } else {
                check::check(
                    &mods,
                    format,
                    &lock,
                    check::LockMode::from_flag(update_lock),
                )
            }
        }
        Command::Mods { mods } => check::mods(&mods),
        Command::Explain {
            id,
            scenario: Some(file),
            step,
            mods,
        } => test::explain(&id, &file, step, &mods),
        Command::Explain { id, mods, .. } => check::explain(&id, &mods),
        Command::Test(args) => test::test(&args),
        Command::New(cmd) => new::new(&cmd),
        Command::Schema(args) => schema::schema(&args),
        Command::Pack(args) => pack::pack(&args),
        Command::Install(args) => pack::install(&args),
        #[cfg(feature = "lsp")]
        Command::Lsp => tessera_host::lsp::serve_stdio()
            .map(|()| ExitCode::SUCCESS)
            .map_err(|e| format!("the language server stopped: {e}")),
        Command::Build { paths, native } => build(paths, native),
        Command::Run(args) => run::run(&args),
        Command::Replay { file, mods, quiet } => run::replay(&file, &mods, quiet),
        #[cfg(feature = "serve")]
        Command::Serve(args) => serve::serve(&args),
        #[cfg(feature = "serve")]
        Command::Play(args) => serve::play(&args),
    }
}

fn build(paths: Vec<PathBuf>, native: bool) -> Result<ExitCode, String> {
    let paths = if paths.is_empty() {
        plugin_crates(std::path::Path::new("plugins"))
    } else {
        paths
    };
    if paths.is_empty() {
        return Err(
            "no plugin crates found under ./plugins; name them: `tessera build <crate folder>...`"
                .into(),
        );
    }
    use tessera_host::plugins::build::{build_for, Target};
    let target = if native { Target::Native } else { Target::Wasm };
    let built = build_for(&paths, target).map_err(|e| e.to_string())?;
    for b in built {
        for n in &b.notes {
            outln!("note: {n}");
        }
        outln!(
            "built {} -> {} ({} KB in {:.1} s)",
            b.name,
            b.wasm.display(),
            b.size / 1024,
            b.build_time.as_secs_f64()
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// The plugin crates directly under `dir`: folders whose Cargo.toml names a target mod.
pub fn plugin_crates(dir: &std::path::Path) -> Vec<PathBuf> {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = rd
        .flatten()
        .map(|e| e.path())
        .filter(|p| tessera_host::reload::is_plugin_crate(p))
        .collect();
    out.sort();
    out
}

/// Logging through `tracing`, filtered by `RUST_LOG`: `tessera_host=debug` shows every
/// command and every trigger that fires (its definition, file:line and mod);
/// `tessera_host=trace` adds each event and action. Quiet (warnings only) by default;
/// coloured only on a terminal without `NO_COLOR`.
fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(check::color())
        .try_init();
}

/// Writes to stdout. When the reader has gone (`tessera run | head`), the command stops
/// quietly with success, as Unix tools do; `println!` would panic. Any other write error
/// ends it with a message.
pub(crate) fn write_stdout(args: std::fmt::Arguments<'_>) {
    use std::io::Write as _;
    if let Err(e) = std::io::stdout().lock().write_fmt(args) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("error: writing to stdout failed: {e}");
        std::process::exit(2);
    }
}
