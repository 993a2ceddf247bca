//! The `tessera` command-line tool: thin glue over the `tessera_host` library.

mod cli;

fn main() -> std::process::ExitCode {
    match cli::run() {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::ExitCode::from(2)
        }
    }
}
