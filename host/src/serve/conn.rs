//! One client connection: reads JSON text frames, turns each into a job for the worker
//! owning the match it is about, and writes every message meant for this client in
//! order. A bad frame gets an `error` reply; nothing a client sends closes the
//! connection or touches a world other than through a checked command.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use axum::extract::ws::{Message, WebSocket};
use futures_util::{SinkExt, StreamExt};

use super::protocol::{self, ClientMsg, SeatKind, ServerMsg};
use super::world::Out;
use super::App;

/// Serves one WebSocket until the client closes it or the server drains.
pub(crate) async fn connection(socket: WebSocket, app: Arc<App>) {
    let conn = app.core.next_conn();
    app.core.metrics.connections.fetch_add(1, Ordering::Relaxed);
    let (mut sink, mut stream) = socket.split();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<String>();
    // Every message for this client goes through `tx`, in order; an empty string ends
    // the writer once what came before it is sent.
    let writer = tokio::spawn(async move {
        while let Some(text) = rx.recv().await {
            if text.is_empty() || sink.send(Message::Text(text.into())).await.is_err() {
                break;
            }
        }
        let _ = sink.close().await;
    });
    let _ = tx.send(welcome(&app));
    // The match this connection plays in (0: none); set by the worker when `join`
    // succeeds, cleared by `leave`.
    let seated = Arc::new(AtomicU64::new(0));
    let mut stop = app.shutdown.subscribe();
    loop {
        tokio::select! {
            frame = stream.next() => match frame {
                Some(Ok(Message::Text(text))) => on_text(&app, conn, &tx, &seated, text.as_str()),
                Some(Ok(Message::Binary(_))) => reply_error(&app, &tx, "malformed", "binary frames are not part of the protocol; send JSON as text frames"),
                Some(Ok(Message::Ping(_) | Message::Pong(_))) => {}
                Some(Ok(Message::Close(_))) | Some(Err(_)) | None => break,
            },
            _ = stop.wait_for(|s| *s) => {
                let _ = tx.send(ServerMsg::Draining.to_text());
                break;
            }
        }
    }
    let id = seated.load(Ordering::SeqCst);
    if id != 0 {
        app.workers
            .send(id, Box::new(move |w| w.disconnect(id, conn)));
    }
    let _ = tx.send(String::new());
    let _ = writer.await;
    app.core.metrics.connections.fetch_sub(1, Ordering::Relaxed);
}

fn welcome(app: &App) -> String {
    let gen = app.core.current().gen.clone();
    let (game, players) = gen.game.as_ref().map_or((String::new(), 0), |g| {
        (g.player_class.to_string(), g.players)
    });
    ServerMsg::Welcome {
        protocol: protocol::PROTOCOL.into(),
        version: env!("CARGO_PKG_VERSION").into(),
        game,
        players,
    }
    .to_text()
}

fn reply_error(app: &App, tx: &Out, code: &str, message: impl Into<String>) {
    super::metrics::add(&app.core.metrics.protocol_errors, 1);
    let _ = tx.send(ServerMsg::error(code, message).to_text());
}

/// Handles one text frame.
fn on_text(app: &Arc<App>, conn: u64, tx: &Out, seated: &Arc<AtomicU64>, text: &str) {
    let msg = match protocol::parse(text) {
        Ok(m) => m,
        Err(e) => return reply_error(app, tx, "malformed", e.to_string()),
    };
    if app.core.is_draining() {
        return reply_error(
            app,
            tx,
            "draining",
            "the server is draining; reconnect with your seat token after it restarts",
        );
    }
    let out = tx.clone();
    match msg {
        ClientMsg::Create { seats, seed } => create(app, tx, seats, seed),
        ClientMsg::Join { match_id, seat: wanted, token } => {
            let now = seated.load(Ordering::SeqCst);
            if now != 0 && now != match_id {
                return reply_error(app, tx, "already_joined", format!("this connection plays in match {now}; send `leave` first, or open another connection"));
            }
            let seated = seated.clone();
            send_job(app, tx, match_id, Box::new(move |w| w.join(match_id, wanted, token, conn, out, &seated)));
        }
        other => match seated.load(Ordering::SeqCst) {
            0 => reply_error(app, tx, "not_joined", "this connection has no seat; send `join` (or `create`, then `join`) and wait for `joined`"),
            id => {
                let seated = seated.clone();
                send_job(app, tx, id, Box::new(move |w| w.handle(id, conn, out, other, &seated)));
            }
        },
    }
}

fn send_job(app: &App, tx: &Out, id: u64, job: super::workers::Job) {
    if !app.workers.send(id, job) {
        reply_error(app, tx, "draining", "the server is stopping");
    }
}

fn create(app: &Arc<App>, tx: &Out, seats: Option<Vec<SeatKind>>, seed: Option<u64>) {
    let players = app
        .core
        .current()
        .gen
        .game
        .as_ref()
        .map_or(0, |g| g.players);
    let kinds = seats.unwrap_or_else(|| vec![SeatKind::Human; players]);
    if kinds.len() != players {
        return reply_error(app, tx, "bad_seats", format!("the game has {players} seats but `seats` lists {}; give one of `human`, `random`, `greedy` per seat", kinds.len()));
    }
    let id = app.core.next_match();
    let seed = seed.unwrap_or(id);
    let out = tx.clone();
    send_job(
        app,
        tx,
        id,
        Box::new(move |w| w.create_for(id, seed, kinds, &out)),
    );
}
