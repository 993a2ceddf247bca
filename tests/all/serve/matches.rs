//! Two WebSocket clients play whole matches; each sees its own hand and only a count of
//! the other's; 1,000 bad messages change nothing.

use tessera_host::serve::client::Client;
use tessera_host::serve::protocol::{ClientMsg, SeatKind, ServerMsg};

use super::{create, http, options, runtime, url, within, Bot, Played};

/// Plays one two-human match on a fresh server; returns both bots' outcomes and the bots.
async fn two_clients(seed: u64, junk: usize) -> (Played, Played, Bot, Bot, String) {
    let saves = tempfile_dir("serve-match");
    let server = tessera_host::serve::Server::start(options(&saves))
        .await
        .unwrap();
    let u = url(&server);
    let (mut host, _) = Client::connect(&u).await.unwrap();
    let id = create(&mut host, &[SeatKind::Human, SeatKind::Human], seed).await;
    let mut a = Bot::join(&u, id, 0, seed * 7 + 1).await;
    let mut b = Bot::join(&u, id, 1, seed * 7 + 2).await;
    a.junk_left = junk / 2;
    b.junk_left = junk - junk / 2;
    let ta = tokio::spawn(async move { (a.play(None).await, a) });
    let tb = tokio::spawn(async move { (b.play(None).await, b) });
    let ((ra, mut a), (rb, mut b)) = both(ta, tb).await;
    // What junk is left (the match ended first) is sent now, to an ended match.
    a.junk(usize::MAX).await;
    b.junk(usize::MAX).await;
    // The server still serves: health, and a new match.
    let (status, _) = http(server.addr(), "GET", "/healthz").await;
    assert_eq!(status, 200);
    let again = create(&mut host, &[SeatKind::Human, SeatKind::Random], 1).await;
    assert!(again > id);
    let (_, metrics) = http(server.addr(), "GET", "/metrics").await;
    let _ = std::fs::remove_dir_all(&saves);
    (ra, rb, a, b, metrics)
}

/// Both tasks' results; a task that panics fails the test at once (its opponent would
/// otherwise wait for a move that never comes).
async fn both<A, B>(
    mut ta: tokio::task::JoinHandle<A>,
    mut tb: tokio::task::JoinHandle<B>,
) -> (A, B) {
    tokio::select! {
        a = &mut ta => {
            let a = a.unwrap_or_else(|e| std::panic::resume_unwind(e.into_panic()));
            (a, tb.await.unwrap())
        }
        b = &mut tb => {
            let b = b.unwrap_or_else(|e| std::panic::resume_unwind(e.into_panic()));
            (ta.await.unwrap(), b)
        }
    }
}

/// A fresh folder under the system temp dir.
pub fn tempfile_dir(name: &str) -> std::path::PathBuf {
    use std::sync::atomic::{AtomicU32, Ordering};
    static N: AtomicU32 = AtomicU32::new(0);
    let d = std::env::temp_dir().join(format!(
        "tessera-{name}-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn two_clients_play_a_whole_match_and_see_only_their_own_hand() {
    let rt = runtime();
    let (ra, rb, a, b, _) = rt.block_on(two_clients(11, 0));
    let Played::Ended(result, checksum) = &ra else {
        panic!("seat 0 did not see the end: {ra:?}")
    };
    assert_eq!(ra, rb, "both seats see the same ending");
    assert!(
        result.contains("wins") || result.contains("draw"),
        "{result}"
    );
    assert_eq!(checksum.len(), 16);
    assert!(
        a.moves > 5 && b.moves > 5,
        "both played: {} and {} moves",
        a.moves,
        b.moves
    );
    assert!(
        a.choices + b.choices > 0,
        "the match had moves that ask a choice, answered over the protocol"
    );
    for bot in [&a, &b] {
        let other = 1 - bot.seat;
        let mut saw_hidden_hand = false;
        for v in &bot.views {
            assert_eq!(v.seat, bot.seat);
            for o in v
                .objects
                .iter()
                .filter(|o| o.zone == "hand" || o.zone == "deck")
            {
                assert_eq!(o.zone, "hand", "no deck card is ever shown: {o:?}");
                assert_eq!(
                    o.owner,
                    Some(bot.seat),
                    "seat {} saw the other hand's {}",
                    bot.seat,
                    o.name
                );
            }
            saw_hidden_hand |= v
                .hidden
                .iter()
                .any(|h| h.owner == Some(other) && h.zone == "hand" && h.count > 0);
        }
        assert!(
            saw_hidden_hand,
            "seat {} sees the other hand as a count",
            bot.seat
        );
        assert!(
            bot.views
                .iter()
                .any(|v| v.objects.iter().any(|o| o.zone == "hand")),
            "seat {} sees its own hand",
            bot.seat
        );
    }
}

#[test]
fn a_thousand_bad_messages_change_nothing() {
    let rt = runtime();
    let (clean_a, _, ca, cb, _) = rt.block_on(two_clients(23, 0));
    let (junk_a, junk_b, ja, jb, metrics) = rt.block_on(two_clients(23, 1000));
    assert!(matches!(clean_a, Played::Ended(..)), "{clean_a:?}");
    assert_eq!(junk_a, clean_a, "same ending and checksum as the clean run");
    assert_eq!(junk_b, clean_a);
    assert_eq!((ja.moves, jb.moves), (ca.moves, cb.moves));
    assert_eq!(ja.errors + jb.errors, 1000, "one error per bad message");
    let refused = metrics
        .lines()
        .find_map(|l| l.strip_prefix("tessera_protocol_errors_total "))
        .and_then(|v| v.trim().parse::<u64>().ok())
        .unwrap();
    assert!(refused >= 1000, "metrics count the refusals: {refused}");
}

#[test]
fn errors_name_the_problem() {
    let rt = runtime();
    rt.block_on(async {
        let saves = tempfile_dir("serve-errors");
        let server = tessera_host::serve::Server::start(options(&saves))
            .await
            .unwrap();
        let (mut c, welcome) = Client::connect(&url(&server)).await.unwrap();
        assert!(
            matches!(welcome, ServerMsg::Welcome { players: 2, .. }),
            "{welcome:?}"
        );
        for (text, code, says) in [
            (r#"{"type":"plya"}"#, "malformed", "did you mean `play`"),
            (r#"{"type":"play","move":0}"#, "not_joined", "send `join`"),
            (
                r#"{"type":"join","match":4242}"#,
                "no_match",
                "there is no match 4242",
            ),
            (
                r#"{"type":"create","seats":["human"]}"#,
                "bad_seats",
                "the game has 2 seats",
            ),
        ] {
            c.send_text(text).await.unwrap();
            let got = c.recv().await.unwrap();
            let ServerMsg::Error {
                code: got_code,
                message,
            } = got
            else {
                panic!("{got:?}")
            };
            assert_eq!(got_code, code, "{message}");
            assert!(message.contains(says), "`{message}` should say `{says}`");
        }
        let _ = std::fs::remove_dir_all(&saves);
    });
}

#[test]
fn a_pending_choice_is_asked_again_after_reconnecting() {
    let rt = runtime();
    rt.block_on(async {
        let saves = tempfile_dir("serve-choice");
        let server = tessera_host::serve::Server::start(options(&saves))
            .await
            .unwrap();
        let u = url(&server);
        let (mut host, _) = Client::connect(&u).await.unwrap();
        // Play first-listed-but-one moves until one asks a choice (a targeted spell).
        for seed in 1..20 {
            let id = create(&mut host, &[SeatKind::Human, SeatKind::Random], seed).await;
            let mut bot = Bot::join(&u, id, 0, seed).await;
            let prompt = loop {
                match bot.c.recv().await.unwrap() {
                    ServerMsg::State(v) if !v.moves.is_empty() && v.result.is_none() => {
                        let index = v.moves.len().saturating_sub(2);
                        bot.c.send(&ClientMsg::Play { index }).await.unwrap();
                    }
                    ServerMsg::Choice { prompt, .. } => break Some(prompt),
                    ServerMsg::Ended { .. } => break None,
                    _ => {}
                }
            };
            let Some(prompt) = prompt else { continue };
            let token = bot.token.clone();
            bot.c.close().await;
            let (mut again, _) = Client::connect(&u).await.unwrap();
            again
                .send(&ClientMsg::Join {
                    match_id: id,
                    seat: None,
                    token: Some(token),
                })
                .await
                .unwrap();
            let asked = again.wait_for(|m| match m {
                ServerMsg::Choice { prompt, .. } => Some(prompt.clone()),
                ServerMsg::State(v) => {
                    assert!(v.moves.is_empty(), "no moves while a choice is pending");
                    None
                }
                _ => None,
            });
            assert_eq!(within(asked).await.unwrap(), prompt);
            again.send(&ClientMsg::Play { index: 0 }).await.unwrap();
            let code = again.wait_for(|m| match m {
                ServerMsg::Error { code, .. } => Some(code.clone()),
                _ => None,
            });
            assert_eq!(within(code).await.unwrap(), "choice_pending");
            let _ = std::fs::remove_dir_all(&saves);
            return;
        }
        panic!("no match of seeds 1 to 19 asked a choice");
    });
}
