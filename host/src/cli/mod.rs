//! The `tessera` commands: argument parsing and printing only; the work is done by the
//! library.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Parser, Subcommand};
use tessera_host::{scenario, Registry};

/// Tessera: a modding platform for rules-driven games.
#[derive(Parser, Debug)]
#[command(name = "tessera", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run scenario tests: every `*.toml` with a `[scenario]` table under the paths.
    Test {
        /// Files or folders (default: `tests`).
        paths: Vec<PathBuf>,
    },
}

/// Parses arguments and runs the command.
pub fn run() -> Result<ExitCode, String> {
    init_logging();
    let cli = Cli::parse();
    match cli.command {
        Command::Test { paths } => {
            let paths = if paths.is_empty() {
                vec![PathBuf::from("tests")]
            } else {
                paths
            };
            let registry = Arc::new(Registry::with_core());
            let results = scenario::run_paths(&paths, &registry, &Vec::new());
            print!("{}", scenario::report(&results));
            let failed = results.iter().any(|r| !r.passed());
            Ok(if failed || results.is_empty() {
                ExitCode::FAILURE
            } else {
                ExitCode::SUCCESS
            })
        }
    }
}

/// Logging through `tracing`, filtered by `RUST_LOG` (e.g. `RUST_LOG=tessera_host=debug`);
/// quiet (warnings only) by default.
fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .try_init();
}
