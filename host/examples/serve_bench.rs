//! A loopback benchmark of `tessera serve`, bounded in count and time.
//!
//! ```text
//! cargo run --release --example serve_bench -- play [WORLDS] [SECONDS] [MOVES] [THINK_MS]
//! cargo run --release --example serve_bench -- restore [WORLDS] [STOP_AT]
//! ```
//!
//! `play` (the default): starts a server in this process, creates WORLDS matches of the
//! default arena game (`mods/`, `server.toml`; run from the repository root), joins two
//! WebSocket clients to each, and lets every client play random legal moves — at most
//! MOVES each, for at most SECONDS. It reports the memory the worlds take (resident set
//! before and after creating them), moves per second, and the move latency a client sees
//! (from sending `play` to receiving the new `state`), p50 and p99. With THINK_MS (default
//! 0) each client waits 0.5 to 1.5 times that long before each move, as a person would; with 0 every
//! client plays as fast as it can, which saturates the server, so the latency is mostly
//! time queued behind the other worlds' moves.
//!
//! `restore`: WORLDS matches of one client against the server's random AI; each client
//! stops before its MOVES-th move, the server drains, a new server restores the saves,
//! the clients take their seats back and play to the end. Every final checksum is
//! compared with the same games played without the interruption.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tessera_host::mods::ServerConfig;
use tessera_host::serve::client::Client;
use tessera_host::serve::protocol::{ClientMsg, SeatKind, ServerMsg};
use tessera_host::serve::{ServeOptions, Server};

/// Any error, with its message (the client's and the server's typed errors, or a line
/// of this program's own).
type Error = Box<dyn std::error::Error + Send + Sync>;

fn options(saves: PathBuf) -> Result<ServeOptions, Error> {
    let mut o = ServeOptions::new();
    o.server =
        Some(ServerConfig::load(std::path::Path::new("server.toml")).map_err(|d| d.render(false))?);
    o.listen = SocketAddr::from(([127, 0, 0, 1], 0));
    o.saves = saves;
    o.restore = true;
    Ok(o)
}

/// The resident set of this process, in KiB (Linux), or 0.
fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines().find_map(|l| {
                l.strip_prefix("VmRSS:")
                    .map(|v| v.trim().trim_end_matches(" kB").trim().parse().unwrap_or(0))
            })
        })
        .unwrap_or(0)
}

async fn create(c: &mut Client, seats: Vec<SeatKind>, seed: u64) -> Result<u64, Error> {
    c.send(&ClientMsg::Create {
        seats: Some(seats),
        seed: Some(seed),
    })
    .await?;
    c.wait_for(|m| match m {
        ServerMsg::Created { match_id, .. } => Some(Ok(*match_id)),
        ServerMsg::Error { message, .. } => Some(Err(Error::from(message.clone()))),
        _ => None,
    })
    .await?
}

/// A seated client playing random legal moves.
struct Player {
    id: u64,
    c: Client,
    rng: ChaCha8Rng,
    token: String,
    moves: usize,
    /// How long to wait before each move.
    think: Duration,
    /// When the last answer to a move of this client arrived.
    last: Instant,
}

enum End {
    Ended(String),
    Stopped,
}

impl Player {
    async fn join(
        url: &str,
        id: u64,
        seat: Option<usize>,
        token: Option<String>,
        seed: u64,
    ) -> Result<Player, Error> {
        let (mut c, _) = Client::connect(url).await?;
        c.send(&ClientMsg::Join {
            match_id: id,
            seat,
            token,
        })
        .await?;
        let token = c
            .wait_for(|m| match m {
                ServerMsg::Joined { token, .. } => Some(Ok(token.clone())),
                ServerMsg::Error { message, .. } => Some(Err(Error::from(message.clone()))),
                _ => None,
            })
            .await??;
        Ok(Player {
            id,
            c,
            rng: ChaCha8Rng::seed_from_u64(seed),
            token,
            moves: 0,
            think: Duration::ZERO,
            last: Instant::now(),
        })
    }

    /// Plays until the end, `max` moves, the deadline, or a drain; latencies go to `lat`.
    /// A client waiting for its turn stops at the deadline too: its opponent may have
    /// stopped at its own move limit, and then no message comes.
    async fn play(
        &mut self,
        max: usize,
        deadline: Instant,
        lat: &mut Vec<Duration>,
    ) -> Result<End, Error> {
        let mut sent: Option<Instant> = None;
        loop {
            let msg = tokio::time::timeout_at(deadline.into(), self.c.recv()).await;
            let Ok(msg) = msg else {
                return Ok(End::Stopped);
            };
            match msg? {
                ServerMsg::State(v) => {
                    if let Some(t) = sent.take() {
                        let now = Instant::now();
                        lat.push(now - t);
                        self.last = self.last.max(now);
                    }
                    if v.moves.is_empty() || v.result.is_some() {
                        continue;
                    }
                    if self.moves >= max || Instant::now() >= deadline {
                        return Ok(End::Stopped);
                    }
                    let index = self.rng.random_range(0..v.moves.len());
                    if !self.think.is_zero() {
                        // 0.5 to 1.5 times the think time, so clients do not move in step.
                        let f = self.rng.random_range(0.5..1.5);
                        tokio::time::sleep(self.think.mul_f64(f)).await;
                    }
                    self.moves += 1;
                    sent = Some(Instant::now());
                    self.c.send(&ClientMsg::Play { index }).await?;
                }
                ServerMsg::Choice { options, .. } => {
                    let i = self.rng.random_range(0..options.len().max(1));
                    self.c.send(&ClientMsg::Answer { choice: vec![i] }).await?;
                }
                ServerMsg::Ended { checksum, .. } => return Ok(End::Ended(checksum)),
                ServerMsg::Draining => return Ok(End::Stopped),
                ServerMsg::Error { message, .. } => return Err(message.into()),
                _ => {}
            }
        }
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

async fn bench_play(
    worlds: usize,
    seconds: u64,
    max_moves: usize,
    think: Duration,
) -> Result<(), Error> {
    let dir = std::env::temp_dir().join(format!("tessera-bench-{}", std::process::id()));
    let server = Server::start(options(dir)?).await?;
    let url = format!("ws://{}/ws", server.addr());
    let (mut host, _) = Client::connect(&url).await?;
    let before = rss_kib();
    let mut ids = Vec::new();
    for i in 0..worlds {
        ids.push(
            create(
                &mut host,
                vec![SeatKind::Human, SeatKind::Human],
                i as u64 + 1,
            )
            .await?,
        );
    }
    let worlds_kib = rss_kib().saturating_sub(before);
    let mut players = Vec::new();
    for (i, id) in ids.iter().enumerate() {
        for seat in 0..2 {
            let mut p = Player::join(&url, *id, Some(seat), None, (i * 2 + seat) as u64).await?;
            p.think = think;
            players.push(p);
        }
    }
    let all_kib = rss_kib().saturating_sub(before);
    let started = Instant::now();
    let deadline = started + Duration::from_secs(seconds);
    let tasks: Vec<_> = players
        .into_iter()
        .map(|mut p| {
            tokio::spawn(async move {
                let mut lat = Vec::new();
                let r = p.play(max_moves, deadline, &mut lat).await;
                (r.map(|_| (p.moves, p.last)), lat)
            })
        })
        .collect();
    let (mut moves, mut lat, mut errors, mut last) = (0, Vec::new(), 0, started);
    for t in tasks {
        let (r, l) = t.await.map_err(|e| e.to_string())?;
        match r {
            Ok((n, at)) => {
                moves += n;
                last = last.max(at);
            }
            Err(e) => {
                errors += 1;
                eprintln!("client error: {e}");
            }
        }
        lat.extend(l);
    }
    // Moves per second over the time moves were answered (not the wait of clients
    // whose opponent stopped at its move limit).
    let secs = (last - started).as_secs_f64().max(f64::EPSILON);
    lat.sort_unstable();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "worlds: {worlds}, clients: {}, workers: {}, think time: {} ms",
        worlds * 2,
        ServeOptions::new().workers,
        think.as_millis()
    );
    println!("memory: {:.0} KiB per world (worlds only); {:.0} KiB per world with its two connections, both ends in this process", worlds_kib as f64 / worlds as f64, all_kib as f64 / worlds as f64);
    println!(
        "moves: {moves} in {secs:.1} s = {:.0} moves/s; client errors: {errors}",
        moves as f64 / secs
    );
    println!(
        "move latency: p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms ({} samples)",
        ms(percentile(&lat, 0.5)),
        ms(percentile(&lat, 0.99)),
        ms(percentile(&lat, 1.0)),
        lat.len()
    );
    Ok(())
}

/// Plays every world to its end; `stop` pauses each client before that many moves and
/// drains between the two halves. Returns the final checksums.
async fn run_games(worlds: usize, stop: Option<usize>, dir: PathBuf) -> Result<Vec<String>, Error> {
    let far = Instant::now() + Duration::from_secs(3600);
    let server = Server::start(options(dir.clone())?).await?;
    let url = format!("ws://{}/ws", server.addr());
    let (mut host, _) = Client::connect(&url).await?;
    let mut players = Vec::new();
    for i in 0..worlds {
        let id = create(
            &mut host,
            vec![SeatKind::Human, SeatKind::Random],
            1000 + i as u64,
        )
        .await?;
        players.push(Player::join(&url, id, Some(0), None, i as u64).await?);
    }
    let mut out = vec![String::new(); worlds];
    let mut lat = Vec::new();
    if let Some(n) = stop {
        for (i, p) in players.iter_mut().enumerate() {
            if let End::Ended(c) = p.play(n, far, &mut lat).await? {
                out[i] = c;
            }
        }
        let report = server.drain().await;
        server.wait().await?;
        println!(
            "drained: {} saved, {} errors",
            report.saved.len(),
            report.errors.len()
        );
        let server = Server::start(options(dir)?).await?;
        if !server.restore_errors().is_empty() {
            return Err(server.restore_errors().join("\n").into());
        }
        let url = format!("ws://{}/ws", server.addr());
        for (i, p) in players.iter_mut().enumerate() {
            if out[i].is_empty() {
                let fresh = Player::join(&url, p.id, None, Some(p.token.clone()), 0)
                    .await
                    .map_err(|e| format!("rejoin: {e}"))?;
                p.c = fresh.c;
            }
        }
        let _keep = server;
        for (i, p) in players.iter_mut().enumerate() {
            if out[i].is_empty() {
                if let End::Ended(c) = p.play(usize::MAX, far, &mut lat).await? {
                    out[i] = c;
                }
            }
        }
        return Ok(out);
    }
    for (i, p) in players.iter_mut().enumerate() {
        if let End::Ended(c) = p.play(usize::MAX, far, &mut lat).await? {
            out[i] = c;
        }
    }
    Ok(out)
}

async fn bench_restore(worlds: usize, stop: usize) -> Result<(), Error> {
    let base = std::env::temp_dir().join(format!("tessera-restore-{}", std::process::id()));
    let started = Instant::now();
    let straight = run_games(worlds, None, base.join("a")).await?;
    let resumed = run_games(worlds, Some(stop), base.join("b")).await?;
    let same = straight
        .iter()
        .zip(&resumed)
        .filter(|(a, b)| a == b && !a.is_empty())
        .count();
    println!("{same} of {worlds} worlds ended with identical checksums after drain, restart and restore ({:.1} s)", started.elapsed().as_secs_f64());
    let _ = std::fs::remove_dir_all(&base);
    if same != worlds {
        return Err("some worlds diverged".into());
    }
    Ok(())
}

fn main() -> Result<(), Error> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mode = args.first().map_or("play", String::as_str);
    let num = |i: usize, d: usize| args.get(i).and_then(|a| a.parse().ok()).unwrap_or(d);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    match mode {
        "play" => rt.block_on(bench_play(
            num(1, 1000),
            num(2, 30) as u64,
            num(3, 40),
            Duration::from_millis(num(4, 0) as u64),
        )),
        "restore" => rt.block_on(bench_restore(num(1, 100), num(2, 5))),
        other => Err(format!("unknown mode `{other}`; use `play` or `restore`").into()),
    }
}
