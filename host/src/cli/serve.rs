//! `tessera serve` (many matches over WebSocket, admin HTTP) and `tessera play` (a human
//! seat in the terminal): argument parsing and printing; the server is the library's
//! `serve` module.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use tessera_host::serve::client::{play_terminal, PlayOptions};
use tessera_host::serve::protocol::SeatKind;
use tessera_host::serve::{ServeOptions, Server};

use super::{check, run, ModArgs};

/// Options of `tessera serve`.
#[derive(clap::Args, Debug)]
pub struct ServeArgs {
    #[command(flatten)]
    pub mods: ModArgs,
    /// Where to listen (HTTP and WebSocket on one port).
    #[arg(long, default_value = "127.0.0.1:7700")]
    pub listen: SocketAddr,
    /// Where `POST /drain` saves running matches, and where saves are restored from.
    #[arg(long, value_name = "DIR", default_value = "saves")]
    pub saves: PathBuf,
    /// Do not restore the saves found at start.
    #[arg(long)]
    pub no_restore: bool,
    /// World worker threads (default: the machine's parallelism).
    #[arg(long)]
    pub workers: Option<usize>,
    /// Report to the Agones SDK sidecar (Ready, Health, players, Shutdown after a
    /// drain); needs a tessera built with the `agones` feature.
    #[arg(long)]
    pub agones: bool,
}

/// Options of `tessera play`.
#[derive(clap::Args, Debug)]
pub struct PlayArgs {
    #[command(flatten)]
    pub mods: ModArgs,
    /// Play on a running server (`ws://127.0.0.1:7700/ws`) instead of locally.
    #[arg(long, value_name = "URL")]
    pub connect: Option<String>,
    /// Join this match (with --connect) instead of creating one.
    #[arg(long, value_name = "ID")]
    pub join: Option<u64>,
    /// The seat's token, to take a seat back.
    #[arg(long)]
    pub token: Option<String>,
    /// Who plays the other seat of a new match: `greedy`, `random` or `human` (another
    /// client joins it).
    #[arg(long, default_value = "greedy")]
    pub vs: String,
    /// The seed of a new match.
    #[arg(long)]
    pub seed: Option<u64>,
}

fn options(mods: &ModArgs) -> Result<ServeOptions, String> {
    run::build_missing_plugins(mods)?;
    let (server, dirs) = check::server_and_dirs(mods)?;
    let mut o = ServeOptions::new();
    o.mod_dirs = dirs;
    o.server = server;
    Ok(o)
}

/// `tessera serve`.
pub fn serve(args: &ServeArgs) -> Result<ExitCode, String> {
    let mut o = options(&args.mods)?;
    o.listen = args.listen;
    o.saves = args.saves.clone();
    o.restore = !args.no_restore;
    if let Some(n) = args.workers {
        o.workers = n;
    }
    if args.agones {
        #[cfg(feature = "agones")]
        {
            o.agones = Some(tessera_host::serve::agones::AgonesOptions::new());
        }
        #[cfg(not(feature = "agones"))]
        return Err("`--agones` needs a tessera built with the `agones` feature: `cargo install --path host --features agones` (needs protoc), or the image from deploy/Dockerfile".into());
    }
    let report = tessera_host::serve::run(o, |addr, errors| {
        for e in errors {
            eprintln!("error: {e}");
        }
        outln!("serving on http://{addr} (clients: ws://{addr}/ws); POST /drain or Ctrl-C to stop");
    })
    .map_err(|e| e.to_string())?;
    outln!("drained: {} match(es) saved", report.saved.len());
    for e in &report.errors {
        eprintln!("error: {e}");
    }
    Ok(if report.errors.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// `tessera play`.
pub fn play(args: &PlayArgs) -> Result<ExitCode, String> {
    let opponent = match args.vs.as_str() {
        "greedy" => SeatKind::Greedy,
        "random" => SeatKind::Random,
        "human" => SeatKind::Human,
        other => {
            return Err(format!(
                "unknown opponent `{other}`; use `greedy`, `random` or `human`"
            ))
        }
    };
    let play = PlayOptions {
        join: args.join,
        token: args.token.clone(),
        opponent,
        seed: args.seed,
    };
    let local = match &args.connect {
        Some(_) => None,
        None => Some(options(&args.mods)?),
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    rt.block_on(async move {
        let (url, _server) = match (&args.connect, local) {
            (Some(url), _) => (url.clone(), None),
            (None, Some(mut o)) => {
                o.listen = SocketAddr::from(([127, 0, 0, 1], 0));
                o.restore = false;
                o.workers = 1;
                let s = Server::start(o).await.map_err(|e| e.to_string())?;
                (format!("ws://{}/ws", s.addr()), Some(s))
            }
            (None, None) => return Err("no server to play on".to_owned()),
        };
        let stdin = tokio::io::BufReader::new(tokio::io::stdin());
        let mut stdout = std::io::stdout();
        play_terminal(&url, &play, stdin, &mut stdout)
            .await
            .map_err(|e| e.to_string())
    })?;
    Ok(ExitCode::SUCCESS)
}
