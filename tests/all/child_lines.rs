//! What a child process prints, line by line over a channel, so a test waits for the
//! line it needs (with a deadline) instead of sleeping and hoping.

use std::io::{BufRead, BufReader, Read};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// The lines of a child's output, read on a thread of their own.
pub struct Lines {
    rx: Receiver<String>,
    seen: Vec<String>,
}

impl Lines {
    /// Starts reading `out` (a child's stdout or stderr) until it closes.
    pub fn of(out: impl Read + Send + 'static) -> Lines {
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Lines {
            rx,
            seen: Vec::new(),
        }
    }

    /// Waits until a line containing `needle` arrives; panics with everything printed so
    /// far when `timeout` passes or the output closes first.
    pub fn wait_for(&mut self, needle: &str, timeout: Duration) {
        let deadline = Instant::now() + timeout;
        if self.seen.iter().any(|l| l.contains(needle)) {
            return;
        }
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.rx.recv_timeout(left) {
                Ok(line) => {
                    let found = line.contains(needle);
                    self.seen.push(line);
                    if found {
                        return;
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    panic!(
                        "no line with `{needle}` within {timeout:?}:\n{}",
                        self.seen.join("\n")
                    )
                }
                Err(RecvTimeoutError::Disconnected) => panic!(
                    "the output closed before a line with `{needle}`:\n{}",
                    self.seen.join("\n")
                ),
            }
        }
    }

    /// Everything printed, once the output has closed.
    pub fn finish(mut self) -> String {
        self.seen.extend(self.rx.iter());
        let mut text = self.seen.join("\n");
        text.push('\n');
        text
    }
}

#[test]
fn waits_for_a_line_and_keeps_every_line() {
    let text: &'static [u8] = b"one\ntwo\nthree\n";
    let mut lines = Lines::of(text);
    lines.wait_for("two", Duration::from_secs(5));
    assert_eq!(lines.finish(), "one\ntwo\nthree\n");
}

#[test]
#[should_panic(expected = "the output closed before a line with `four`")]
fn a_line_that_never_comes_fails_with_the_output() {
    let text: &'static [u8] = b"one\n";
    Lines::of(text).wait_for("four", Duration::from_secs(5));
}
