//! A protocol client: [`Client`] speaks the protocol over a WebSocket (tests, benches and
//! tools use it), and [`play_terminal`] is `tessera play`'s human seat — the view and the
//! legal moves by number, a line of input per decision.

use std::io::Write;

use futures_util::{SinkExt, StreamExt};
use tokio::io::{AsyncBufRead, AsyncBufReadExt};
use tokio_tungstenite::tungstenite::Message;

use super::protocol::{ClientMsg, SeatKind, ServerMsg, View};

type Ws =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// Why a client's exchange with a server failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ClientError {
    /// No connection could be made to the address.
    #[error("cannot connect to {url}: {message}; is `tessera serve` running there?")]
    Connect {
        /// The address tried.
        url: String,
        /// What the network said.
        message: String,
    },
    /// The server answered, but did not greet with `welcome`.
    #[error("{url} did not greet with `welcome`; is it a tessera server?")]
    NotTessera {
        /// The address connected to.
        url: String,
    },
    /// The server closed the connection.
    #[error("the server closed the connection")]
    Closed,
    /// The connection broke.
    #[error("the connection failed: {0}")]
    Connection(String),
    /// The server sent a message this client cannot read (a newer or different protocol).
    #[error("the server sent something this client does not understand ({error}): {text}")]
    Protocol {
        /// Why it could not be read.
        error: String,
        /// The message as received.
        text: String,
    },
    /// The server refused a request; its `error` message.
    #[error("{0}")]
    Refused(String),
    /// The server is draining (it will restart; a seat's token takes it back).
    #[error("the server is draining; play again after it restarts, with your token")]
    Draining,
    /// The terminal could not be read or written.
    #[error("{0}")]
    Terminal(String),
}

/// A connection to a `tessera serve` WebSocket (`ws://host:port/ws`).
#[derive(Debug)]
pub struct Client {
    ws: Ws,
}

impl Client {
    /// Connects and reads the server's `welcome`.
    pub async fn connect(url: &str) -> Result<(Client, ServerMsg), ClientError> {
        // TCP_NODELAY: a move is one small frame; with Nagle's algorithm and delayed
        // ACKs each answer would wait ~40 ms.
        let connect = tokio_tungstenite::connect_async_with_config(url, None, true);
        let (ws, _) = connect.await.map_err(|e| ClientError::Connect {
            url: url.to_owned(),
            message: e.to_string(),
        })?;
        let mut c = Client { ws };
        let welcome = c.recv().await?;
        Ok((c, welcome))
    }

    /// Sends a message.
    pub async fn send(&mut self, msg: &ClientMsg) -> Result<(), ClientError> {
        let text = serde_json::to_string(msg).map_err(|e| ClientError::Protocol {
            error: e.to_string(),
            text: format!("{msg:?}"),
        })?;
        self.send_text(&text).await
    }

    /// Sends a raw text frame (any text: tests send malformed ones).
    pub async fn send_text(&mut self, text: &str) -> Result<(), ClientError> {
        self.ws
            .send(Message::Text(text.into()))
            .await
            .map_err(|e| ClientError::Connection(e.to_string()))
    }

    /// Sends a raw binary frame.
    pub async fn send_binary(&mut self, bytes: Vec<u8>) -> Result<(), ClientError> {
        self.ws
            .send(Message::Binary(bytes.into()))
            .await
            .map_err(|e| ClientError::Connection(e.to_string()))
    }

    /// The next message from the server.
    pub async fn recv(&mut self) -> Result<ServerMsg, ClientError> {
        loop {
            let frame = self.ws.next().await.ok_or(ClientError::Closed)?;
            match frame.map_err(|e| ClientError::Connection(e.to_string()))? {
                Message::Text(t) => {
                    return serde_json::from_str(t.as_str()).map_err(|e| ClientError::Protocol {
                        error: e.to_string(),
                        text: t.to_string(),
                    })
                }
                Message::Close(_) => return Err(ClientError::Closed),
                _ => {}
            }
        }
    }

    /// Reads messages until `f` picks one; the others are dropped.
    pub async fn wait_for<T>(
        &mut self,
        mut f: impl FnMut(&ServerMsg) -> Option<T>,
    ) -> Result<T, ClientError> {
        loop {
            let msg = self.recv().await?;
            if let Some(t) = f(&msg) {
                return Ok(t);
            }
        }
    }

    /// Closes the connection.
    pub async fn close(mut self) {
        let _ = self.ws.close(None).await;
    }
}

/// What `tessera play` plays.
#[derive(Debug, Clone)]
pub struct PlayOptions {
    /// Join this match instead of creating one.
    pub join: Option<u64>,
    /// The seat's token, to take a seat back.
    pub token: Option<String>,
    /// Who plays the other seats of a new match. By default the greedy AI.
    pub opponent: SeatKind,
    /// The seed of a new match. By default the server picks.
    pub seed: Option<u64>,
}

/// Plays one seat from a terminal: reads decisions from `input`, writes the game to
/// `out`. Returns the result line (`Player 1 wins`), or why it stopped.
pub async fn play_terminal<R: AsyncBufRead + Unpin>(
    url: &str,
    opts: &PlayOptions,
    input: R,
    out: &mut dyn Write,
) -> Result<String, ClientError> {
    let (mut c, welcome) = Client::connect(url).await?;
    let ServerMsg::Welcome { players, .. } = welcome else {
        return Err(ClientError::NotTessera {
            url: url.to_owned(),
        });
    };
    let id = match_to_join(&mut c, opts, players).await?;
    c.send(&ClientMsg::Join {
        match_id: id,
        seat: None,
        token: opts.token.clone(),
    })
    .await?;
    let mut lines = input.lines();
    let w = write_line;
    loop {
        match c.recv().await? {
            ServerMsg::Joined {
                match_id,
                seat,
                token,
            } => w(
                out,
                &format!(
                    "match {match_id}, you are Player {} (token {token})",
                    seat + 1
                ),
            )?,
            ServerMsg::Log { lines: l } => {
                for line in l {
                    w(out, &line)?;
                }
            }
            ServerMsg::State(v) if !v.moves.is_empty() && v.result.is_none() => {
                let Some(msg) = ask_move(&mut lines, out, &v).await? else {
                    c.close().await;
                    return Ok("left the match".into());
                };
                c.send(&msg).await?;
            }
            ServerMsg::Choice {
                prompt, options, ..
            } => {
                w(out, &format!("{prompt}:"))?;
                for o in &options {
                    w(out, &format!("  {}) {}", o.index + 1, o.name))?;
                }
                let Some(n) = ask(&mut lines, out, "choose (number)", options.len()).await? else {
                    c.close().await;
                    return Ok("left the match".into());
                };
                let msg = match n {
                    Pick::Number(i) => ClientMsg::Answer { choice: vec![i] },
                    Pick::Resign => ClientMsg::Resign {},
                };
                c.send(&msg).await?;
            }
            ServerMsg::Error { message, .. } => {
                w(out, &format!("error: {message}"))?;
                c.send(&ClientMsg::State {}).await?;
            }
            ServerMsg::Ended { result, checksum } => {
                w(out, &format!("game over: {result} (checksum {checksum})"))?;
                c.close().await;
                return Ok(result);
            }
            ServerMsg::Draining => return Err(ClientError::Draining),
            _ => {}
        }
    }
}

/// The match to join: `opts.join`, or a new one with this terminal in the first seat.
async fn match_to_join(
    c: &mut Client,
    opts: &PlayOptions,
    players: usize,
) -> Result<u64, ClientError> {
    if let Some(id) = opts.join {
        return Ok(id);
    }
    let mut seats = vec![opts.opponent; players];
    if let Some(first) = seats.first_mut() {
        *first = SeatKind::Human;
    }
    c.send(&ClientMsg::Create {
        seats: Some(seats),
        seed: opts.seed,
    })
    .await?;
    c.wait_for(|m| match m {
        ServerMsg::Created { match_id, .. } => Some(Ok(*match_id)),
        ServerMsg::Error { message, .. } => Some(Err(ClientError::Refused(message.clone()))),
        _ => None,
    })
    .await?
}

/// Shows the state and its moves and asks for one; `None` when the player quits.
async fn ask_move<R: AsyncBufRead + Unpin>(
    lines: &mut tokio::io::Lines<R>,
    out: &mut dyn Write,
    v: &View,
) -> Result<Option<ClientMsg>, ClientError> {
    write_line(out, &describe(v))?;
    for m in &v.moves {
        write_line(out, &format!("  {}) {}", m.index + 1, m.text))?;
    }
    let picked = ask(
        lines,
        out,
        "your move (number, r = resign, q = quit)",
        v.moves.len(),
    )
    .await?;
    Ok(picked.map(|n| match n {
        Pick::Number(i) => ClientMsg::Play { index: i },
        Pick::Resign => ClientMsg::Resign {},
    }))
}

/// Writes one line to the terminal.
fn write_line(out: &mut dyn Write, s: &str) -> Result<(), ClientError> {
    writeln!(out, "{s}")
        .map_err(|e| ClientError::Terminal(format!("cannot write to the terminal: {e}")))
}

enum Pick {
    Number(usize),
    Resign,
}

/// Asks for a number between 1 and `n` until one is given; `None` at end of input or `q`.
async fn ask<R: AsyncBufRead + Unpin>(
    lines: &mut tokio::io::Lines<R>,
    out: &mut dyn Write,
    prompt: &str,
    n: usize,
) -> Result<Option<Pick>, ClientError> {
    loop {
        let _ = write!(out, "{prompt}> ");
        let _ = out.flush();
        let Some(line) = lines
            .next_line()
            .await
            .map_err(|e| ClientError::Terminal(format!("cannot read the terminal: {e}")))?
        else {
            return Ok(None);
        };
        match line.trim() {
            "q" | "quit" => return Ok(None),
            "r" | "resign" => return Ok(Some(Pick::Resign)),
            t => match t.parse::<usize>() {
                Ok(i) if (1..=n).contains(&i) => return Ok(Some(Pick::Number(i - 1))),
                _ => {
                    let _ = writeln!(out, "type a number from 1 to {n}, r to resign or q to quit");
                }
            },
        }
    }
}

/// A few lines about the board as a seat sees it.
fn describe(v: &View) -> String {
    let mut s = format!("-- your turn (turn {}) --", v.turns + 1);
    for o in &v.objects {
        if o.zone == "graveyard" {
            continue;
        }
        let num = |k: &str| o.props.get(k).and_then(serde_json::Value::as_i64);
        let stats = match (num("attack"), num("max_health"), num("damage")) {
            (Some(a), Some(h), d) => format!(" {a}/{}", h - d.unwrap_or(0)),
            _ => String::new(),
        };
        let whose = o
            .owner
            .or(o.seat)
            .map_or(String::new(), |s| format!("P{} ", s + 1));
        s.push_str(&format!("\n  {whose}{}: {}{stats}", o.zone, o.name));
    }
    for h in &v.hidden {
        let whose = h.owner.map_or(String::new(), |s| format!("P{} ", s + 1));
        s.push_str(&format!("\n  {whose}{}: {} hidden", h.zone, h.count));
    }
    s
}
