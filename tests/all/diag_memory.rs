//! Issue 18, finding 2 (diagnostics): a warning kept a copy of its whole file, so a 5 MB
//! file with 100 warnings held 516 MB and 20,000 untranslated names in a 900 KB file were
//! OOM-killed. A diagnostic now keeps only the lines it quotes, the file is read once for
//! all of them, and more than `MAX_SIMILAR_WARNINGS` of one code in one file fold into a
//! summary line.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::mods_fixture::Tree;

/// The peak resident memory (`VmHWM`, in KiB) of a running process, if it is still there.
fn peak_rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Runs `tessera check` in `dir`; returns its stdout, stderr and the largest peak RSS
/// seen while it ran (KiB; polled from /proc, so a lower bound of the true peak).
fn check_with_peak_rss(dir: &Path) -> (String, String, u64) {
    let out_path = dir.join("check.out");
    let err_path = dir.join("check.err");
    let mut child = Command::new(env!("CARGO_BIN_EXE_tessera"))
        .arg("check")
        .current_dir(dir)
        .env_remove("RUST_LOG")
        .env("NO_COLOR", "1")
        .stdout(std::fs::File::create(&out_path).expect("stdout file"))
        .stderr(std::fs::File::create(&err_path).expect("stderr file"))
        .stdin(Stdio::null())
        .spawn()
        .expect("run tessera check");
    let mut peak = 0;
    while child.try_wait().expect("wait").is_none() {
        peak = peak.max(peak_rss_kib(child.id()).unwrap_or(0));
        std::thread::sleep(Duration::from_millis(5));
    }
    let read = |p: &Path| std::fs::read_to_string(p).expect("read output");
    (read(&out_path), read(&err_path), peak)
}

/// One content file of about 4 MB (comment padding) with 300 classes whose display names
/// have no translation: 300 W-LOCALE-MISSING warnings on one big file.
fn many_warnings_on_a_big_file(t: &Tree) {
    t.add("big", "1.0.0", "");
    let mut text = String::with_capacity(4 << 20);
    for i in 0..300 {
        text.push_str(&format!("[class.c{i}]\nname = \"big.c{i}.name\"\n"));
        text.push_str(&"# padding to make the file big, as a generated card list is\n".repeat(220));
    }
    assert!(text.len() > 3_900_000, "{}", text.len());
    t.write("big", "content/cards.toml", &text);
    t.write("big", "locale/en.toml", "[big]\nother = \"x\"\n");
}

#[test]
fn many_warnings_on_a_big_file_stay_within_bounded_memory() {
    let t = Tree::new("diag-memory");
    many_warnings_on_a_big_file(&t);
    let (stdout, stderr, peak_kib) = check_with_peak_rss(&t.root);
    eprintln!("tessera check peaked at {} MiB", peak_kib / 1024);
    assert!(
        stdout.contains("0 errors, 300 warnings"),
        "{stdout}\n{stderr}"
    );
    // Before: each of the 300 warnings held its own 4 MB copy of the file (1.2 GB).
    // After: the file once, as read and parsed, plus a line per warning.
    assert!(
        peak_kib < 200 * 1024,
        "tessera check peaked at {} MiB",
        peak_kib / 1024
    );
    // Each warning still quotes its line: the class's header.
    assert!(
        stderr.contains("mods/big/content/cards.toml:1:1"),
        "{stderr}"
    );
    assert!(stderr.contains("1 | [class.c0]"), "{stderr}");
    assert!(
        stderr.contains("… and 250 more warnings like W-LOCALE-MISSING in this file"),
        "{stderr}"
    );
    assert_eq!(stderr.matches("warning[W-LOCALE-MISSING]").count(), 51);
}

/// The second case: 20,000 untranslated names in a file of about 900 KB
/// (OOM-killed at 20 GB before: the file was read and copied once per warning).
#[test]
fn twenty_thousand_untranslated_names_stay_within_bounded_memory() {
    let t = Tree::new("diag-names");
    t.add("names", "1.0.0", "");
    let text: String = (0..20_000)
        .map(|i| format!("[class.card_{i:05}]\nname = \"names.card_{i:05}.name\"\n"))
        .collect();
    assert!(text.len() > 850_000, "{}", text.len());
    t.write("names", "content/cards.toml", &text);
    let (stdout, stderr, peak_kib) = check_with_peak_rss(&t.root);
    eprintln!("tessera check peaked at {} MiB", peak_kib / 1024);
    assert!(stdout.contains("0 errors, 20000 warnings"), "{stdout}");
    assert!(
        peak_kib < 200 * 1024,
        "tessera check peaked at {} MiB",
        peak_kib / 1024
    );
    assert!(
        stderr.contains("… and 19950 more warnings like W-LOCALE-MISSING in this file"),
        "{stderr}"
    );
}
