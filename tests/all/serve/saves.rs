//! Drain, restart, restore: running worlds are saved atomically with their mod set, a new
//! server restores them, and every game ends exactly as an uninterrupted one.

use tessera_host::serve::client::Client;
use tessera_host::serve::protocol::SeatKind;
use tessera_host::serve::{SaveFile, ServeError, Server};

use super::matches::tempfile_dir;
use super::{create, http, options, runtime, url, Bot, Played};

/// The worlds of the test: seats and seed.
fn worlds() -> Vec<(Vec<SeatKind>, u64)> {
    vec![
        (vec![SeatKind::Human, SeatKind::Random], 101),
        (vec![SeatKind::Random, SeatKind::Human], 102),
        (vec![SeatKind::Human, SeatKind::Greedy], 103),
        (vec![SeatKind::Greedy, SeatKind::Human], 104),
        (vec![SeatKind::Human, SeatKind::Random], 105),
    ]
}

/// Creates the worlds and seats a bot in every human seat.
async fn start_worlds(server: &Server) -> Vec<Bot> {
    let u = url(server);
    let (mut host, _) = Client::connect(&u).await.unwrap();
    let mut bots = Vec::new();
    for (seats, seed) in worlds() {
        let id = create(&mut host, &seats, seed).await;
        for (s, k) in seats.iter().enumerate() {
            if *k == SeatKind::Human {
                bots.push(Bot::join(&u, id, s, seed * 10 + s as u64).await);
            }
        }
    }
    bots
}

/// Plays every bot to the end (or to its limit); returns the outcomes in bot order.
async fn play_all(bots: Vec<Bot>, stop_at: Option<usize>) -> Vec<(Played, Bot)> {
    let tasks: Vec<_> = bots
        .into_iter()
        .map(|mut b| tokio::spawn(async move { (b.play(stop_at).await, b) }))
        .collect();
    let mut out = Vec::new();
    for t in tasks {
        out.push(t.await.unwrap());
    }
    out
}

#[test]
fn drained_worlds_restore_and_end_as_if_never_interrupted() {
    let rt = runtime();
    rt.block_on(async {
        // Uninterrupted.
        let dir = tempfile_dir("serve-saves-a");
        let server = Server::start(options(&dir)).await.unwrap();
        let straight = play_all(start_worlds(&server).await, None).await;
        let straight: Vec<Played> = straight.into_iter().map(|(p, _)| p).collect();
        assert!(
            straight.iter().all(|p| matches!(p, Played::Ended(..))),
            "{straight:?}"
        );

        // Interrupted: each bot (the only human of its world) stops when about to make
        // its 4th move, so every world waits on a client; then the server drains.
        let dir = tempfile_dir("serve-saves-b");
        let server = Server::start(options(&dir)).await.unwrap();
        let addr = server.addr();
        let bots = start_worlds(&server).await;
        let ids: Vec<u64> = bots.iter().map(|b| b.match_id).collect();
        let paused = play_all(bots, Some(3)).await;
        let (status, body) = http(addr, "POST", "/drain").await;
        assert_eq!(status, 200, "{body}");
        server.wait().await.unwrap();
        for id in &ids {
            assert!(body.contains(&id.to_string()), "match {id} saved: {body}");
            let save = SaveFile::read(&SaveFile::path(&dir, *id)).unwrap();
            assert!(
                save.recording
                    .mods
                    .iter()
                    .any(|m| m.id == "arena" && m.hash.starts_with("sha256:")),
                "the save names its mods: {:?}",
                save.recording.mods
            );
        }
        assert!(
            std::fs::read_dir(&dir)
                .unwrap()
                .flatten()
                .all(|e| !e.file_name().to_string_lossy().ends_with(".tmp")),
            "no temporary file is left"
        );

        // Restart on the same saves; every bot takes its seat back and plays on.
        let server = Server::start(options(&dir)).await.unwrap();
        assert!(
            server.restore_errors().is_empty(),
            "{:?}",
            server.restore_errors()
        );
        let u = url(&server);
        let mut bots = Vec::new();
        for (p, mut b) in paused {
            assert_eq!(p, Played::Paused);
            b.rejoin(&u).await;
            bots.push(b);
        }
        let resumed: Vec<Played> = play_all(bots, None)
            .await
            .into_iter()
            .map(|(p, _)| p)
            .collect();
        assert_eq!(
            resumed, straight,
            "every game ends with the same result and checksum"
        );
        let _ = std::fs::remove_dir_all(&dir);
    });
}

#[test]
fn a_save_made_with_other_mods_is_refused_and_kept() {
    let rt = runtime();
    rt.block_on(async {
        let dir = tempfile_dir("serve-saves-mods");
        let server = Server::start(options(&dir)).await.unwrap();
        let u = url(&server);
        let (mut host, _) = Client::connect(&u).await.unwrap();
        let id = create(&mut host, &[SeatKind::Human, SeatKind::Random], 9).await;
        let mut bot = Bot::join(&u, id, 0, 9).await;
        assert_eq!(bot.play(Some(2)).await, Played::Paused);
        assert_eq!(server.drain().await.saved, vec![id]);
        server.wait().await.unwrap();

        // The save now claims another version of arena.
        let path = SaveFile::path(&dir, id);
        let mut save = SaveFile::read(&path).unwrap();
        save.recording
            .mods
            .iter_mut()
            .filter(|m| m.id == "arena")
            .for_each(|m| m.version = "0.9.0".into());
        save.write(&dir).unwrap();

        let server = Server::start(options(&dir)).await.unwrap();
        let errors = server.restore_errors().join("\n");
        assert!(
            errors.contains(&format!("match {id} was saved with another mod set")),
            "{errors}"
        );
        assert!(
            errors.contains("mod `arena` was 0.9.0 and is 1.0.0 now"),
            "{errors}"
        );
        assert!(path.is_file(), "the save stays for the operator");
        let (mut c, _) = Client::connect(&url(&server)).await.unwrap();
        c.send(&tessera_host::serve::protocol::ClientMsg::Join {
            match_id: id,
            seat: None,
            token: Some(bot.token.clone()),
        })
        .await
        .unwrap();
        let code = c.wait_for(|m| match m {
            tessera_host::serve::protocol::ServerMsg::Error { code, .. } => Some(code.clone()),
            _ => None,
        });
        assert_eq!(code.await.unwrap(), "no_match");
        let _ = std::fs::remove_dir_all(&dir);
    });
}

/// A server that cannot listen (the port is taken) must not consume the saves: they are
/// restored only once the port is bound, and stay on disk for the next start.
#[test]
fn a_server_that_cannot_listen_keeps_the_saves() {
    let rt = runtime();
    rt.block_on(async {
        let dir = tempfile_dir("serve-saves-bind");
        let server = Server::start(options(&dir)).await.unwrap();
        let u = url(&server);
        let (mut host, _) = Client::connect(&u).await.unwrap();
        let id = create(&mut host, &[SeatKind::Human, SeatKind::Random], 5).await;
        let mut bot = Bot::join(&u, id, 0, 5).await;
        assert_eq!(bot.play(Some(2)).await, Played::Paused);
        assert_eq!(server.drain().await.saved, vec![id]);
        server.wait().await.unwrap();
        let path = SaveFile::path(&dir, id);
        assert!(path.is_file());

        let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let mut opts = options(&dir);
        opts.listen = taken.local_addr().unwrap();
        let Err(err) = Server::start(opts).await else {
            panic!("the port is taken: the server must not start");
        };
        assert!(matches!(err, ServeError::Listen(_)), "{err:?}");
        assert!(err.to_string().contains("cannot listen on"), "{err}");
        assert!(path.is_file(), "the save is still there");

        let server = Server::start(options(&dir)).await.unwrap();
        assert!(
            server.restore_errors().is_empty(),
            "{:?}",
            server.restore_errors()
        );
        assert!(!path.is_file(), "restored, so removed");
        server.drain().await;
        server.wait().await.unwrap();
        let _ = std::fs::remove_dir_all(&dir);
    });
}
