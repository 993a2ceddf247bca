//! `tessera serve`: many worlds (matches) in one process, played by clients over a
//! WebSocket protocol, with admin HTTP for operators.
//!
//! Owns the server's lifecycle (load the mods once, restore saves, listen, drain), the
//! worker pool the worlds run on (`workers`: each world lives on one thread, single
//! threaded and deterministic), the client protocol (`protocol`, documented in
//! `docs/protocol.md`), per-seat views (`view`), the seats' controllers (`seat`), saves
//! (`save`), the admin endpoints (`admin`: `/healthz`, `/readyz`, `/metrics`, `/mods`,
//! `POST /reload`, `POST /drain`), and the client `tessera play` uses (`client`). Every
//! world shares the one loaded [`Generation`] (its compiled plugins and engine); a world
//! changes only through [`Match`](crate::play::Match) commands. It must not reach into
//! the state, bus or rules internals.
//!
//! Built with the `serve` feature (on by default): tokio, axum and tungstenite. With the
//! `agones` feature (off by default) the server also reports to an Agones SDK sidecar
//! (`agones`: Ready, Health, player tracking, Shutdown).

mod admin;
#[cfg(feature = "agones")]
pub mod agones;
pub mod client;
mod conn;
mod metrics;
pub mod protocol;
pub mod save;
mod seat;
mod view;
mod workers;
mod world;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

use crate::mods::ServerConfig;
use crate::play::RecordedMod;
use crate::rules::registry::Registry;
use crate::rules::Generation;

pub use save::{SaveError, SaveFile};
pub use view::Visibility;

/// How to run the server. Every option has a default ([`ServeOptions::new`]).
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// Folders of mod folders. By default `["mods"]`.
    pub mod_dirs: Vec<PathBuf>,
    /// The operator's server.toml (enabled mods, limits, grants). By default none.
    pub server: Option<ServerConfig>,
    /// Where to listen. By default `127.0.0.1:7700`; port 0 picks a free port.
    pub listen: SocketAddr,
    /// Where saves go on drain and are restored from at start. By default `saves`.
    pub saves: PathBuf,
    /// Restore the saves found at start. By default `true`.
    pub restore: bool,
    /// World worker threads. By default the machine's available parallelism.
    pub workers: usize,
    /// Which zones a seat may not look into. By default hands and secrets are private
    /// and decks secret.
    pub visibility: Arc<Visibility>,
    /// Report to an Agones SDK sidecar (`tessera serve --agones`). By default `None`.
    #[cfg(feature = "agones")]
    pub agones: Option<agones::AgonesOptions>,
}

impl ServeOptions {
    /// The defaults.
    pub fn new() -> ServeOptions {
        ServeOptions {
            mod_dirs: vec![PathBuf::from("mods")],
            server: None,
            listen: SocketAddr::from(([127, 0, 0, 1], 7700)),
            saves: PathBuf::from("saves"),
            restore: true,
            workers: std::thread::available_parallelism().map_or(2, |n| n.get()),
            visibility: Arc::new(Visibility::default()),
            #[cfg(feature = "agones")]
            agones: None,
        }
    }
}

impl Default for ServeOptions {
    fn default() -> Self {
        ServeOptions::new()
    }
}

/// The rules in force: the generation every new world starts on, and the mods it came
/// from.
pub(crate) struct Current {
    pub gen: Arc<Generation>,
    /// The load that produced it (at start, or the reload that went live).
    pub stage: Arc<crate::reload::Staged>,
    pub mods: Vec<RecordedMod>,
}

/// What connections, admin requests and workers share.
pub(crate) struct Core {
    pub opts: ServeOptions,
    current: RwLock<Arc<Current>>,
    pub metrics: metrics::Metrics,
    next_match: AtomicU64,
    next_conn: AtomicU64,
    draining: AtomicBool,
    secret: u64,
    /// Where workers report seats taken and left (Agones player tracking); `None` when
    /// nothing tracks players.
    pub players: Option<tokio::sync::mpsc::UnboundedSender<PlayerChange>>,
}

/// A human seat of a match, as the player tracker names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PlayerId {
    pub match_id: u64,
    pub seat: usize,
}

impl std::fmt::Display for PlayerId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "match-{}-seat-{}", self.match_id, self.seat)
    }
}

/// A client took or left a seat.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PlayerChange {
    Connected(PlayerId),
    Disconnected(PlayerId),
}

impl Core {
    pub fn current(&self) -> Arc<Current> {
        self.current
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    fn set_current(&self, c: Current) {
        *self.current.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(c);
    }

    pub fn is_draining(&self) -> bool {
        self.draining.load(Ordering::SeqCst)
    }

    pub fn next_conn(&self) -> u64 {
        self.next_conn.fetch_add(1, Ordering::Relaxed)
    }

    pub fn next_match(&self) -> u64 {
        self.next_match.fetch_add(1, Ordering::Relaxed)
    }

    /// A seat's token: unguessable without the server's secret (sha256 of the secret,
    /// the match and the seat); empty for server seats.
    pub fn token(&self, id: u64, seat: usize, kind: protocol::SeatKind) -> String {
        use sha2::Digest;
        if kind != protocol::SeatKind::Human {
            return String::new();
        }
        let digest = sha2::Sha256::digest(format!("{}:{id}:{seat}", self.secret));
        digest.iter().take(12).map(|b| format!("{b:02x}")).collect()
    }
}

/// The shared state of the HTTP handlers.
pub(crate) struct App {
    pub core: Arc<Core>,
    pub workers: workers::Workers,
    pub shutdown: tokio::sync::watch::Sender<bool>,
    pub reloading: tokio::sync::Mutex<()>,
    pub restore_errors: Vec<String>,
    /// What the last drain did.
    pub drained: std::sync::Mutex<Option<DrainReport>>,
}

impl App {
    /// The report of the drain that stopped the server (empty if none ran).
    pub fn last_drain(&self) -> DrainReport {
        self.drained
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
            .unwrap_or_default()
    }
}

/// Why a server could not start or stopped badly. Each message says what to do.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// The mods did not load (their diagnostics, with file and line).
    #[error("{0}")]
    Mods(String),
    /// The address could not be listened on.
    #[error("{0}")]
    Listen(String),
    /// The saves folder could not be read, or a restored save could not be handed to a
    /// worker.
    #[error("{0}")]
    Saves(String),
    /// The Agones SDK sidecar did not answer, or its reporter failed.
    #[error("{0}")]
    Agones(String),
    /// The async runtime, a worker thread or the HTTP server failed.
    #[error("{0}")]
    Runtime(String),
}

/// What a server did when it stopped.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DrainReport {
    /// Matches saved.
    pub saved: Vec<u64>,
    /// Saves that failed.
    pub errors: Vec<String>,
}

/// A running server.
#[derive(Debug)]
pub struct Server {
    addr: SocketAddr,
    app: Arc<App>,
    task: tokio::task::JoinHandle<Result<(), String>>,
    /// The Agones reporter: it ends with Shutdown after the drain.
    #[cfg(feature = "agones")]
    agones: Option<tokio::task::JoinHandle<()>>,
}

impl std::fmt::Debug for App {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "App {{ draining: {} }}", self.core.is_draining())
    }
}

/// Loads the mods for the server; errors if no game can be played.
fn load(opts: &ServeOptions, number: u64) -> Result<Current, String> {
    let loaded = crate::mods::load_generation(
        &opts.mod_dirs,
        opts.server.as_ref(),
        Arc::new(Registry::with_core()),
        number,
    );
    for d in loaded.all_diagnostics().filter(|d| d.is_error()) {
        tracing::warn!("{}", d.render(false));
    }
    let gen = loaded.generation.clone().ok_or(
        "no mod loaded, so there is no game to serve; check the mod folders (`tessera check`)",
    )?;
    if gen.game.is_none() {
        return Err("no loaded mod defines `[game]`, so there is no game to serve; load a rules mod such as `arena`".into());
    }
    let mods = save::mod_set(&loaded).map_err(|e| e.to_string())?;
    let stage = crate::reload::Staged {
        loaded,
        changed: Vec::new(),
        took: std::time::Duration::ZERO,
        seen: std::time::Instant::now(),
        unplayable: std::sync::OnceLock::new(),
    };
    Ok(Current {
        gen,
        stage: Arc::new(stage),
        mods,
    })
}

/// A per-process secret (time and process id): seeds what must differ between server
/// runs.
fn session_secret() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| {
            u64::from(d.subsec_nanos()) ^ d.as_secs().rotate_left(32)
        })
        ^ u64::from(std::process::id())
}

/// Binds the listening socket.
async fn bind(listen: SocketAddr) -> Result<(tokio::net::TcpListener, SocketAddr), String> {
    let listener = tokio::net::TcpListener::bind(listen).await.map_err(|e| {
        format!("cannot listen on {listen}: {e}; pick another address with --listen")
    })?;
    let addr = listener
        .local_addr()
        .map_err(|e| format!("the listening socket has no address: {e}"))?;
    Ok((listener, addr))
}

/// Serves `router` on `listener` until `stop` turns true.
fn serve_http(
    listener: tokio::net::TcpListener,
    router: axum::Router,
    mut stop: tokio::sync::watch::Receiver<bool>,
) -> tokio::task::JoinHandle<Result<(), String>> {
    // TCP_NODELAY on every connection: protocol messages are small frames that must
    // not wait for Nagle's algorithm (~40 ms a move with delayed ACKs).
    let listener = axum::serve::ListenerExt::tap_io(listener, |tcp| {
        if let Err(e) = tcp.set_nodelay(true) {
            tracing::debug!("could not set TCP_NODELAY on a connection: {e}");
        }
    });
    tokio::spawn(async move {
        axum::serve(listener, router)
            .with_graceful_shutdown(async move {
                let _ = stop.wait_for(|s| *s).await;
            })
            .await
            .map_err(|e| format!("the server stopped: {e}"))
    })
}

impl Server {
    /// Loads the mods, starts the worker pool, restores the saves (if asked), and
    /// starts listening. Call from inside a tokio runtime.
    pub async fn start(opts: ServeOptions) -> Result<Server, ServeError> {
        let o = opts.clone();
        let current = tokio::task::spawn_blocking(move || load(&o, 1))
            .await
            .map_err(|e| ServeError::Runtime(format!("loading the mods failed: {e}")))?
            .map_err(ServeError::Mods)?;
        let secret = session_secret();
        // With Agones, the sidecar must answer before anything else happens (saves are
        // restored only by a server that will run).
        #[cfg(feature = "agones")]
        let (sdk, players, player_changes) = match &opts.agones {
            Some(a) => {
                let sdk = agones::connect(a).await.map_err(ServeError::Agones)?;
                let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
                (Some(sdk), Some(tx), Some(rx))
            }
            None => (None, None, None),
        };
        #[cfg(not(feature = "agones"))]
        let players = None;
        let core = Arc::new(Core {
            players,
            opts,
            current: RwLock::new(Arc::new(current)),
            metrics: metrics::Metrics::default(),
            next_match: AtomicU64::new(1),
            next_conn: AtomicU64::new(1),
            draining: AtomicBool::new(false),
            secret,
        });
        let workers =
            workers::Workers::start(core.opts.workers, &core).map_err(ServeError::Runtime)?;
        let (listener, addr) = bind(core.opts.listen).await.map_err(ServeError::Listen)?;
        // Saves are restored (and their files removed) only once the port is ours: a
        // server that cannot listen must not consume them.
        let restore_errors = if core.opts.restore {
            restore_all(&core, &workers)
                .await
                .map_err(ServeError::Saves)?
        } else {
            Vec::new()
        };
        // Agones is told Ready once the server listens.
        #[cfg(feature = "agones")]
        let sdk = match sdk {
            Some(mut sdk) => {
                agones::ready(&mut sdk).await.map_err(ServeError::Agones)?;
                Some(sdk)
            }
            None => None,
        };
        let (shutdown, stop) = tokio::sync::watch::channel(false);
        let app = Arc::new(App {
            core,
            workers,
            shutdown,
            reloading: tokio::sync::Mutex::new(()),
            restore_errors,
            drained: Default::default(),
        });
        let task = serve_http(listener, admin::router(app.clone()), stop);
        #[cfg(feature = "agones")]
        let agones = match (sdk, player_changes, &app.core.opts.agones) {
            (Some(sdk), Some(changes), Some(a)) => Some(tokio::spawn(agones::report(
                sdk,
                a.clone(),
                changes,
                app.shutdown.subscribe(),
            ))),
            _ => None,
        };
        Ok(Server {
            addr,
            app,
            task,
            #[cfg(feature = "agones")]
            agones,
        })
    }

    /// The address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Problems met restoring saves at start (the saves stay on disk).
    pub fn restore_errors(&self) -> &[String] {
        &self.app.restore_errors
    }

    /// Drains (as `POST /drain` does): stops accepting, saves running worlds, stops.
    pub async fn drain(&self) -> DrainReport {
        admin::drain(&self.app).await
    }

    /// Waits until the server has stopped (after a drain) and its workers have ended.
    pub async fn wait(self) -> Result<(), ServeError> {
        let r = self
            .task
            .await
            .map_err(|e| ServeError::Runtime(format!("the server task failed: {e}")))?;
        let app = self.app.clone();
        tokio::task::spawn_blocking(move || app.workers.stop())
            .await
            .map_err(|e| ServeError::Runtime(format!("stopping the workers failed: {e}")))?;
        #[cfg(feature = "agones")]
        if let Some(agones) = self.agones {
            agones
                .await
                .map_err(|e| ServeError::Agones(format!("the Agones reporter failed: {e}")))?;
        }
        r.map_err(ServeError::Runtime)
    }
}

/// Restores every save in the saves folder; a restored save is deleted (the world is
/// live again and is saved anew on the next drain). Returns the problems, one a save.
async fn restore_all(core: &Arc<Core>, workers: &workers::Workers) -> Result<Vec<String>, String> {
    let mut errors = Vec::new();
    let mods = core.current().mods.clone();
    let mut top = 0;
    for path in save::list(&core.opts.saves).map_err(|e| e.to_string())? {
        // A save kept on disk keeps its id: new matches never take it.
        let save = SaveFile::read(&path).inspect(|s| top = top.max(s.match_id));
        let save = match save.and_then(|s| s.check_mods(&mods).map(|()| s)) {
            Ok(s) => s,
            Err(e) => {
                tracing::error!("{e}");
                errors.push(e.to_string());
                continue;
            }
        };
        let id = save.match_id;
        let (tx, rx) = tokio::sync::oneshot::channel();
        workers.send(
            id,
            Box::new(move |w| {
                let _ = tx.send(w.restore(save));
            }),
        );
        match rx.await.map_err(|_| "a world worker stopped".to_owned())? {
            Ok(()) => {
                if let Err(e) = std::fs::remove_file(&path) {
                    errors.push(format!(
                        "restored match {id} but could not remove {}: {e}",
                        path.display()
                    ));
                }
            }
            Err(e) => {
                tracing::error!("{e}");
                errors.push(format!("{}: {e}", path.display()));
            }
        }
    }
    core.next_match.fetch_max(top + 1, Ordering::Relaxed);
    Ok(errors)
}

/// Runs `tessera serve` until it is drained: a tokio runtime, the server, and Ctrl-C as
/// a drain. `ready` is told the address once it listens.
pub fn run(
    opts: ServeOptions,
    ready: impl FnOnce(SocketAddr, &[String]),
) -> Result<DrainReport, ServeError> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| ServeError::Runtime(format!("cannot start the async runtime: {e}")))?;
    rt.block_on(async move {
        let server = Server::start(opts).await?;
        ready(server.addr(), server.restore_errors());
        let app = server.app.clone();
        let mut stopped = app.shutdown.subscribe();
        let report = tokio::select! {
            _ = tokio::signal::ctrl_c() => admin::drain(&app).await,
            _ = stopped.wait_for(|s| *s) => app.last_drain(),
        };
        server.wait().await?;
        Ok(report)
    })
}
