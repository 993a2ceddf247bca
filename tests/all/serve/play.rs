//! `tessera play`: a human seat driven through stdin, locally and against a running
//! `tessera serve`.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use super::matches::tempfile_dir;
use super::{http, runtime};
use crate::plugin_build::{ensure_built, repo};

fn tessera() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_tessera"));
    c.current_dir(repo()).env_remove("RUST_LOG");
    c
}

/// Runs `tessera play ARGS` with `input` on stdin; returns stdout.
fn play(args: &[&str], input: &str) -> String {
    let mut child = tessera()
        .arg("play")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("tessera play starts");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "tessera play failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

#[test]
fn tessera_play_locally_lists_moves_by_number_and_resigns() {
    ensure_built();
    // Three first-listed moves, a line that is not a move, then resign.
    let out = play(&["--seed", "3", "--vs", "random"], "1\n1\nfoo\n1\nr\n");
    assert!(out.contains("you are Player 1"), "{out}");
    assert!(out.contains("  1) "), "moves are numbered:\n{out}");
    assert!(
        out.contains("type a number from 1 to"),
        "a bad line is explained:\n{out}"
    );
    assert!(
        out.contains("game over: Player 2 wins (Player 1 resigned)"),
        "{out}"
    );
}

#[test]
fn tessera_play_connects_to_tessera_serve() {
    ensure_built();
    let saves = tempfile_dir("serve-play");
    let mut server = tessera()
        .args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--no-restore",
            "--saves",
        ])
        .arg(&saves)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("tessera serve starts");
    let mut lines = BufReader::new(server.stdout.take().unwrap()).lines();
    let first = lines.next().expect("serve prints its address").unwrap();
    let addr = first
        .strip_prefix("serving on http://")
        .and_then(|r| r.split_whitespace().next())
        .unwrap_or_else(|| panic!("unexpected first line: {first}"))
        .to_owned();
    // Quitting leaves the match running on the server.
    let out = play(
        &[
            "--connect",
            &format!("ws://{addr}/ws"),
            "--vs",
            "greedy",
            "--seed",
            "8",
        ],
        "2\nq\n",
    );
    assert!(out.contains("you are Player 1"), "{out}");
    let rt = runtime();
    let (status, body) = rt.block_on(http(addr.parse().unwrap(), "POST", "/drain"));
    assert_eq!(status, 200, "{body}");
    assert!(
        body.contains("\"saved\":[1]"),
        "the quit match is saved: {body}"
    );
    let rest: Vec<String> = lines.map_while(Result::ok).collect();
    assert!(server.wait().unwrap().success());
    assert!(
        rest.iter().any(|l| l == "drained: 1 match(es) saved"),
        "{rest:?}"
    );
    let _ = std::fs::remove_dir_all(&saves);
}

#[test]
fn a_client_reports_why_it_cannot_play_by_kind() {
    use tessera_host::serve::client::{play_terminal, Client, ClientError, PlayOptions};
    use tessera_host::serve::protocol::SeatKind;
    runtime().block_on(async {
        // A port nothing listens on (bound, then released).
        let free = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("ws://{}/ws", free.local_addr().unwrap());
        drop(free);
        let err = Client::connect(&url).await.unwrap_err();
        assert!(matches!(err, ClientError::Connect { .. }), "{err:?}");
        assert!(
            err.to_string()
                .contains("is `tessera serve` running there?"),
            "{err}"
        );
        let opts = PlayOptions {
            join: None,
            token: None,
            opponent: SeatKind::Random,
            seed: None,
        };
        let mut out = Vec::new();
        let err = play_terminal(&url, &opts, &b""[..], &mut out)
            .await
            .unwrap_err();
        assert!(matches!(err, ClientError::Connect { .. }), "{err:?}");
    });
}
