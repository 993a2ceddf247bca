//! Which Forge card scripts the loader translates into playable classes, and what the
//! others lack — one line per card, then a histogram of missing constructs:
//! `cargo run -p forge --features native --example report -- ../shared/corpora/forge/cardsfolder`
//! (from `plugins/`, the path relative to it).
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn scripts(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        eprintln!("cannot read folder {}", dir.display());
        std::process::exit(2);
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            scripts(&p, out);
        } else if p.extension().is_some_and(|x| x == "txt") {
            out.push(p);
        }
    }
}

fn main() {
    let Some(dir) = std::env::args().nth(1) else {
        eprintln!("usage: report CARDSFOLDER");
        std::process::exit(2);
    };
    let mut files = Vec::new();
    scripts(Path::new(&dir), &mut files);
    files.sort();
    let (mut ok, mut histogram) = (0usize, BTreeMap::<String, usize>::new());
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap_or_default();
        match forge::card::translate(&text) {
            Ok(c) if c.missing.is_empty() => {
                ok += 1;
                println!("ok      {}", c.class);
            }
            Ok(c) => {
                for m in &c.missing {
                    // Group `K:Protection from red` and `K:Protection from black` apart; it is
                    // the construct as written.
                    *histogram.entry(m.clone()).or_default() += 1;
                }
                println!("missing {}: {}", c.class, c.missing.join("; "));
            }
            Err(e) => println!("error   {}: {}", f.display(), e.message),
        }
    }
    println!(
        "\n{ok} of {} scripts translate into playable cards",
        files.len()
    );
    let mut by_count: Vec<(String, usize)> = histogram.into_iter().collect();
    by_count.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    for (m, n) in by_count {
        println!("{n:5}  {m}");
    }
}
