//! The `tessera` command-line tool: thin glue over the `tessera_host` library.

mod cli;

/// The binary's allocator. Loading a corpus (thousands of parsed trees and compiled
/// definitions) and playing games are bound by small allocations; mimalloc serves them
/// faster than the system's (figures in the commit that chose it). The library leaves the
/// choice to its embedder.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    match cli::run() {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::ExitCode::from(2)
        }
    }
}
