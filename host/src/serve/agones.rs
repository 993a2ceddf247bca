//! Agones integration (feature `agones`): the server reports its lifecycle to the Agones
//! SDK sidecar of its GameServer pod through the `agones` crate (gRPC over tonic).
//!
//! Owns the conversation with the sidecar: connect, `Ready` once the server listens,
//! `Health` pings on an interval, player tracking (the alpha `PlayerConnect` and
//! `PlayerDisconnect` calls, one player id per human seat a client holds), and
//! `Shutdown` after a drain saved the running worlds. It does not touch worlds: it
//! hears about seats from the workers through a channel, and about the drain from the
//! server's shutdown signal.
//!
//! Player tracking is an alpha Agones feature: the cluster needs the `PlayerTracking`
//! feature gate, and the Fleet a `players.initialCapacity` (see `deploy/fleet.yaml`).
//! When the sidecar refuses a player call the server logs it and carries on.

use std::time::Duration;

use tokio::sync::mpsc::UnboundedReceiver;
use tokio::sync::watch;

use super::PlayerChange;

/// How `tessera serve --agones` reaches the Agones SDK sidecar.
#[derive(Debug, Clone)]
pub struct AgonesOptions {
    /// The sidecar's gRPC address without the port. By default `None`: the
    /// `AGONES_SDK_GRPC_HOST` environment variable, else `http://localhost` (what the
    /// sidecar of an Agones pod listens on).
    pub host: Option<String>,
    /// The sidecar's gRPC port. By default `None`: `AGONES_SDK_GRPC_PORT` (Agones sets
    /// it in the pod), else 9357.
    pub port: Option<u16>,
    /// How often to send a `Health` ping. By default 2 seconds; keep it below the
    /// Fleet's `health.periodSeconds` (5 by default in Agones).
    pub health_every: Duration,
    /// How long to wait for the sidecar to answer at start. By default 30 seconds.
    pub connect_timeout: Duration,
}

impl AgonesOptions {
    /// The defaults: the sidecar Agones runs beside the server.
    pub fn new() -> AgonesOptions {
        AgonesOptions {
            host: None,
            port: None,
            health_every: Duration::from_secs(2),
            connect_timeout: Duration::from_secs(30),
        }
    }
}

impl Default for AgonesOptions {
    fn default() -> Self {
        AgonesOptions::new()
    }
}

const HINT: &str = "run the server in an Agones GameServer pod (its SDK sidecar sets AGONES_SDK_GRPC_PORT), or start it without --agones";

/// Connects to the sidecar (the SDK asks it for the GameServer until it answers).
pub(crate) async fn connect(opts: &AgonesOptions) -> Result<agones::Sdk, String> {
    let where_ = format!(
        "{}:{}",
        opts.host.as_deref().unwrap_or("$AGONES_SDK_GRPC_HOST"),
        opts.port
            .map_or("$AGONES_SDK_GRPC_PORT".to_owned(), |p| p.to_string())
    );
    let connect = agones::Sdk::new_with_host(opts.host.clone(), opts.port, None);
    match tokio::time::timeout(opts.connect_timeout, connect).await {
        Ok(Ok(sdk)) => Ok(sdk),
        Ok(Err(e)) => Err(format!(
            "cannot reach the Agones SDK server at {where_}: {e}; {HINT}"
        )),
        Err(_) => Err(format!(
            "the Agones SDK server at {where_} did not answer within {:?}; {HINT}",
            opts.connect_timeout
        )),
    }
}

/// Marks the GameServer `Ready` (the server listens).
pub(crate) async fn ready(sdk: &mut agones::Sdk) -> Result<(), String> {
    sdk.ready()
        .await
        .map_err(|e| format!("the Agones SDK server refused Ready: {e}; {HINT}"))?;
    tracing::info!("agones: Ready sent");
    Ok(())
}

/// Pings `Health` every `health_every` and reports seats taken and left until the
/// server has drained (`stop` turns true), then sends `Shutdown`.
pub(crate) async fn report(
    mut sdk: agones::Sdk,
    opts: AgonesOptions,
    mut players: UnboundedReceiver<PlayerChange>,
    mut stop: watch::Receiver<bool>,
) {
    let health = sdk.health_check();
    let mut alpha = sdk.alpha().clone();
    let mut tick = tokio::time::interval(opts.health_every.max(Duration::from_millis(10)));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut players_open = true;
    loop {
        tokio::select! {
            _ = tick.tick() => {
                if health.send(()).await.is_err() {
                    tracing::warn!("agones: the Health stream to the SDK server closed; Agones will mark this GameServer Unhealthy");
                }
            }
            change = players.recv(), if players_open => match change {
                Some(change) => track(&mut alpha, change).await,
                None => players_open = false,
            },
            () = async { let _ = stop.wait_for(|s| *s).await; } => break,
        }
    }
    // Seats left by the drain itself, then the end of this GameServer.
    while let Ok(change) = players.try_recv() {
        track(&mut alpha, change).await;
    }
    match sdk.shutdown().await {
        Ok(()) => tracing::info!("agones: Shutdown sent after the drain"),
        Err(e) => tracing::error!("agones: the SDK server refused Shutdown: {e}; Agones will not replace this GameServer until it exits"),
    }
}

async fn track(alpha: &mut agones::alpha::Alpha, change: PlayerChange) {
    let r = match change {
        PlayerChange::Connected(p) => alpha.player_connect(p.to_string()).await,
        PlayerChange::Disconnected(p) => alpha.player_disconnect(p.to_string()).await,
    };
    if let Err(e) = r {
        tracing::warn!("agones: player tracking call {change:?} failed: {e}; is the PlayerTracking feature gate on in the cluster?");
    }
}
