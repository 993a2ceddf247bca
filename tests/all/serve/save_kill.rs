//! Issue 18, saves: a process writing saves is killed (SIGKILL) at random points 100
//! times; every time, the save on disk loads and is either the last one the process said
//! it wrote or the one it was writing — 0 corrupt. The writer is this test binary run
//! again as a child ([`save_loop_child`]), saving through the server's real
//! [`SaveFile::write`] (temporary file, fsync, rename, fsync of the folder).

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tessera_host::play::{Input, RecordedMod, Recording};
use tessera_host::serve::protocol::SeatKind;
use tessera_host::serve::save::SAVE_FORMAT;
use tessera_host::serve::SaveFile;

/// Where the child writes (set by the parent; the child does nothing without it).
const DIR_VAR: &str = "TESSERA_TEST_SAVE_KILL_DIR";
/// Inputs every save has on top of its number: about 50 KB of JSON, so a write takes a
/// while and kills land inside it.
const BASE_INPUTS: usize = 2_000;
const ROUNDS: usize = 100;

/// The `n`-th save: `BASE_INPUTS + n` inputs, seed and checksum derived from `n`.
fn nth_save(n: usize) -> SaveFile {
    SaveFile {
        format: SAVE_FORMAT,
        match_id: 1,
        seats: vec![SeatKind::Human, SeatKind::Random],
        tokens: vec![format!("token-{n}"), String::new()],
        recording: Recording {
            format: 1,
            seed: n as u64,
            agents: vec!["human".into(), "random".into()],
            mods: vec![RecordedMod {
                id: "arena".into(),
                version: "0.1.0".into(),
                hash: format!("{n:064x}"),
            }],
            inputs: (0..BASE_INPUTS + n).map(|i| Input::Move(i % 7)).collect(),
            checksum: format!("{n:016x}"),
            result: "running".into(),
            reloads: 0,
        },
    }
}

/// Which save a file on disk is, checking it is whole and consistent.
fn save_number(save: &SaveFile) -> usize {
    let n = save.recording.inputs.len() - BASE_INPUTS;
    assert_eq!(save, &nth_save(n), "save {n} is exactly what was written");
    n
}

/// The writer: continues from the save on disk, writing save after save and saying so
/// on stdout after each, until killed.
#[test]
#[ignore = "the child process of saves_survive_sigkill_at_random_points (runs only with its folder set)"]
fn save_loop_child() {
    let Some(dir) = std::env::var_os(DIR_VAR) else {
        return;
    };
    let dir = Path::new(&dir);
    let path = SaveFile::path(dir, 1);
    let mut n = if path.exists() {
        save_number(&SaveFile::read(&path).expect("the save on disk loads"))
    } else {
        0
    };
    let mut out = std::io::stdout().lock();
    writeln!(out, "start {n}")
        .and_then(|()| out.flush())
        .expect("stdout");
    loop {
        n += 1;
        nth_save(n).write(dir).expect("write the save");
        writeln!(out, "saved {n}")
            .and_then(|()| out.flush())
            .expect("stdout");
    }
}

fn spawn_writer(dir: &Path) -> Child {
    Command::new(std::env::current_exe().expect("the test binary"))
        .args(["serve::save_kill::save_loop_child", "--exact", "--ignored"])
        .args(["--nocapture", "--test-threads=1", "-q"])
        .env(DIR_VAR, dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the writer")
}

/// The numbers after `word ` in the writer's output lines.
fn numbers<'a>(lines: &'a [String], word: &'a str) -> impl Iterator<Item = usize> + 'a {
    lines
        .iter()
        .filter_map(move |l| l.strip_prefix(word)?.trim().parse().ok())
}

#[test]
fn saves_survive_sigkill_at_random_points() {
    let dir = std::env::temp_dir().join(format!("tessera-save-kill-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = SaveFile::path(&dir, 1);
    let mut rng = ChaCha8Rng::seed_from_u64(18);
    let (mut torn, mut saved) = (0, 0);
    for round in 0..ROUNDS {
        let mut child = spawn_writer(&dir);
        let mut stdout = BufReader::new(child.stdout.take().expect("piped"));
        let mut lines = Vec::new();
        loop {
            let mut line = String::new();
            if stdout.read_line(&mut line).expect("read") == 0 {
                panic!("round {round}: the writer stopped before starting: {lines:?}");
            }
            lines.push(line);
            if lines.last().is_some_and(|l| l.starts_with("start ")) {
                break;
            }
        }
        std::thread::sleep(Duration::from_micros(rng.random_range(0..40_000)));
        child.kill().expect("SIGKILL the writer");
        child.wait().expect("reap the writer");
        lines.extend(stdout.lines().map_while(Result::ok));
        let start = numbers(&lines, "start ").next().expect("start line");
        let last = numbers(&lines, "saved ").last().unwrap_or(start);
        torn += usize::from(path.with_extension("json.tmp").exists());
        saved += last - start;
        if last == 0 && !path.exists() {
            continue;
        }
        let save = SaveFile::read(&path)
            .unwrap_or_else(|e| panic!("round {round}: the save is corrupt: {e}"));
        let n = save_number(&save);
        assert!(
            n == last || n == last + 1,
            "round {round}: the save is number {n}, but the writer last said {last}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!("{ROUNDS} kills: {torn} inside a write, {saved} saves written in all");
    // The kills landed inside writes (a temporary file was left), not only between them,
    // and the writer made progress (how much depends on the machine's load).
    assert!(torn > 0, "no kill landed inside a write in {ROUNDS} rounds");
    assert!(
        saved > 0,
        "the writer never finished a save in {ROUNDS} rounds"
    );
}
