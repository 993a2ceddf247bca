//! `tessera serve` (issue 20): WebSocket clients play whole matches of the default arena
//! game; malformed and illegal messages are refused without harming the world; the admin
//! endpoints and the admin page in a headless chromium; drain, restart and restore;
//! `tessera play`. Nothing here sleeps to
//! synchronise: every step waits on a message.

mod admin;
#[cfg(feature = "agones")]
mod agones;
mod browser;
mod matches;
mod play;
mod save_kill;
mod saves;

use std::net::SocketAddr;
use std::path::Path;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tessera_host::mods::ServerConfig;
use tessera_host::serve::client::Client;
use tessera_host::serve::protocol::{ClientMsg, SeatKind, ServerMsg, View};
use tessera_host::serve::{ServeOptions, Server};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::plugin_build::{ensure_built, repo};

/// Awaits `f`, failing the test after two minutes instead of hanging (a guard, not a
/// synchronisation: every wait is for a message).
pub async fn within<T>(f: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(std::time::Duration::from_secs(120), f)
        .await
        .expect("no reply within two minutes: the server stopped answering")
}

/// A runtime for one test.
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio runtime")
}

/// The default game (`mods/` with the repository's server.toml) on a free port.
pub fn options(saves: &Path) -> ServeOptions {
    options_in(&repo().join("mods"), saves)
}

/// The game's mods from `mods`, on a free port, saving to `saves`.
pub fn options_in(mods: &Path, saves: &Path) -> ServeOptions {
    ensure_built();
    let mut o = ServeOptions::new();
    o.mod_dirs = vec![mods.to_path_buf()];
    o.server = Some(ServerConfig::load(&repo().join("server.toml")).expect("server.toml"));
    o.listen = SocketAddr::from(([127, 0, 0, 1], 0));
    o.saves = saves.to_path_buf();
    o.workers = 2;
    o
}

/// The client URL of a server.
pub fn url(s: &Server) -> String {
    format!("ws://{}/ws", s.addr())
}

/// One HTTP request (a test client; the server side is axum): status and body.
pub async fn http(addr: SocketAddr, method: &str, path: &str) -> (u16, String) {
    let mut s = tokio::net::TcpStream::connect(addr).await.expect("connect");
    let req = format!(
        "{method} {path} HTTP/1.1\r\nHost: test\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"
    );
    s.write_all(req.as_bytes()).await.expect("write");
    let mut buf = Vec::new();
    s.read_to_end(&mut buf).await.expect("read");
    let text = String::from_utf8_lossy(&buf).into_owned();
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let body = text
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_owned())
        .unwrap_or_default();
    (status, body)
}

/// Creates a match and returns its id.
pub async fn create(c: &mut Client, seats: &[SeatKind], seed: u64) -> u64 {
    c.send(&ClientMsg::Create {
        seats: Some(seats.to_vec()),
        seed: Some(seed),
    })
    .await
    .unwrap();
    c.wait_for(|m| match m {
        ServerMsg::Created { match_id, .. } => Some(*match_id),
        ServerMsg::Error { message, .. } => panic!("create failed: {message}"),
        _ => None,
    })
    .await
    .unwrap()
}

/// How a bot's session ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Played {
    /// The match ended: result and checksum.
    Ended(String, String),
    /// The bot stopped at its move limit, or the server drained.
    Paused,
}

/// A client playing one seat by a seeded policy: a random legal move, random answers.
/// With junk to send, it sends that many bad messages (a few before each of its moves)
/// and checks each gets exactly one `error`.
pub struct Bot {
    pub c: Client,
    rng: ChaCha8Rng,
    pub seat: usize,
    pub token: String,
    pub moves: usize,
    pub choices: usize,
    pub junk_left: usize,
    pub errors: usize,
    pub match_id: u64,
    /// Every view received.
    pub views: Vec<View>,
}

impl Bot {
    /// Connects and joins a seat (or takes one back with a token).
    pub async fn join(url: &str, match_id: u64, seat: usize, seed: u64) -> Bot {
        let (c, _) = Client::connect(url).await.unwrap();
        let rng = ChaCha8Rng::seed_from_u64(seed);
        let mut b = Bot {
            c,
            rng,
            seat,
            token: String::new(),
            moves: 0,
            choices: 0,
            junk_left: 0,
            errors: 0,
            match_id,
            views: Vec::new(),
        };
        b.sit(Some(seat), None).await;
        b
    }

    /// Connects again (a new server) and takes the seat back with the token.
    pub async fn rejoin(&mut self, url: &str) {
        let (c, _) = Client::connect(url).await.unwrap();
        self.c = c;
        let token = self.token.clone();
        self.sit(None, Some(token)).await;
    }

    async fn sit(&mut self, seat: Option<usize>, token: Option<String>) {
        self.c
            .send(&ClientMsg::Join {
                match_id: self.match_id,
                seat,
                token,
            })
            .await
            .unwrap();
        let (s, t) = self
            .c
            .wait_for(|m| match m {
                ServerMsg::Joined { seat, token, .. } => Some((*seat, token.clone())),
                ServerMsg::Error { message, .. } => panic!("join failed: {message}"),
                _ => None,
            })
            .await
            .unwrap();
        self.seat = s;
        self.token = t;
    }

    /// Plays until the match ends, or (with `stop_at`) when about to make move number
    /// `stop_at`, or the server drains.
    pub async fn play(&mut self, stop_at: Option<usize>) -> Played {
        loop {
            match within(self.c.recv()).await.unwrap() {
                ServerMsg::State(v) => {
                    let n = v.moves.len();
                    let mine = n > 0 && v.result.is_none();
                    self.views.push(v);
                    if !mine {
                        continue;
                    }
                    if stop_at == Some(self.moves) {
                        return Played::Paused;
                    }
                    self.junk(10).await;
                    let index = self.rng.random_range(0..n);
                    self.moves += 1;
                    self.c.send(&ClientMsg::Play { index }).await.unwrap();
                }
                ServerMsg::Choice {
                    options, min, max, ..
                } => {
                    self.choices += 1;
                    let k = min.max(1).min(max).min(options.len());
                    let mut idx: Vec<usize> = (0..options.len()).collect();
                    for i in 0..k {
                        let j = self.rng.random_range(i..idx.len());
                        idx.swap(i, j);
                    }
                    idx.truncate(k);
                    self.c
                        .send(&ClientMsg::Answer { choice: idx })
                        .await
                        .unwrap();
                }
                ServerMsg::Ended { result, checksum } => return Played::Ended(result, checksum),
                ServerMsg::Draining => return Played::Paused,
                ServerMsg::Error { code, message } => panic!("unexpected error {code}: {message}"),
                _ => {}
            }
        }
    }

    /// Sends up to `n` bad messages and waits for an error for each.
    async fn junk(&mut self, n: usize) {
        for _ in 0..n.min(self.junk_left) {
            let k = self.junk_left;
            self.junk_left -= 1;
            match junk_message(k, self.match_id) {
                Junk::Text(t) => self.c.send_text(&t).await.unwrap(),
                Junk::Binary(b) => self.c.send_binary(b).await.unwrap(),
            }
            let refused = self.c.wait_for(|m| match m {
                ServerMsg::Error { .. } => Some(()),
                ServerMsg::State(_) | ServerMsg::Choice { .. } | ServerMsg::Ended { .. } => {
                    panic!("junk message {k} changed something: {m:?}")
                }
                _ => None,
            });
            within(refused).await.unwrap();
            self.errors += 1;
        }
    }
}

/// A bad message.
pub enum Junk {
    Text(String),
    Binary(Vec<u8>),
}

/// The `k`th bad message: malformed JSON, unknown types and fields, wrong types, illegal
/// moves and answers, seats that do not exist, oversized and deeply nested messages.
pub fn junk_message(k: usize, match_id: u64) -> Junk {
    let text = match k % 20 {
        0 => "{".to_owned(),
        1 => "null".to_owned(),
        2 => "[]".to_owned(),
        3 => r#"{"type":"plya","move":0}"#.to_owned(),
        4 => r#"{"type":"play"}"#.to_owned(),
        5 => r#"{"type":"play","move":-1}"#.to_owned(),
        6 => r#"{"type":"play","move":99999}"#.to_owned(),
        7 => r#"{"type":"play","move":"0"}"#.to_owned(),
        8 => r#"{"type":"answer","choice":[0]}"#.to_owned(),
        9 => r#"{"type":"resign","now":true}"#.to_owned(),
        10 => format!(r#"{{"type":"join","match":{match_id},"seat":7}}"#),
        11 => r#"{"type":"join","match":999999}"#.to_owned(),
        12 => r#"{"type":"create","seats":["human"]}"#.to_owned(),
        13 => r#"{"type":"create","seats":["human","robot"]}"#.to_owned(),
        14 => format!("{}{}", "[".repeat(5000), "]".repeat(5000)),
        15 => format!(r#"{{"type":"state","pad":"{}"}}"#, "x".repeat(100_000)),
        16 => return Junk::Binary(vec![0xff, 0x00, 0x7b]),
        17 => r#"{"type":"play","move":18446744073709551616}"#.to_owned(),
        18 => "\u{0}\u{1}garbage".to_owned(),
        _ => r#"{"type":"leave","seat":0}"#.to_owned(),
    };
    Junk::Text(text)
}
