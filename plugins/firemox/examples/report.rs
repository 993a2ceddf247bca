//! Which Firemox card files the loader translates into playable classes, and what the
//! others lack — one line per card, then the fraction and a histogram of missing features:
//! `cargo run -p firemox --features native --example report -- ../../shared/corpora/firemox`
//! (from `plugins/`, the corpus folder holding `cards/` and the fragment files).
use std::collections::BTreeMap;
use std::path::Path;

fn main() {
    let Some(root) = std::env::args().nth(1) else {
        eprintln!("usage: report FIREMOX_CORPUS_FOLDER");
        std::process::exit(2);
    };
    let root = Path::new(&root);
    let read = |name: &str| match std::fs::read(root.join(name))
        .map_err(|e| e.to_string())
        .and_then(|b| firemox_xml::decode(&b))
    {
        Ok(d) => d.text,
        Err(e) => {
            eprintln!("{name}: {e}");
            std::process::exit(2);
        }
    };
    let f = match firemox_xml::Fragments::load(
        "fragment-references.xml",
        &read("fragment-references.xml"),
        "fragment-aliases.xml",
        &read("fragment-aliases.xml"),
    ) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let Ok(entries) = std::fs::read_dir(root.join("cards")) else {
        eprintln!("cannot read {}/cards", root.display());
        std::process::exit(2);
    };
    let mut files: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    files.sort();
    let (mut ok, mut histogram) = (0usize, BTreeMap::<String, usize>::new());
    // Cards that lack exactly one feature: what translating that feature would add.
    let mut only = BTreeMap::<String, usize>::new();
    for p in &files {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("?");
        let bytes = std::fs::read(p).unwrap_or_default();
        match firemox_xml::parse_card(name, &bytes, &f) {
            Ok(card) => {
                let c = firemox::card::translate(&card, &f);
                if c.missing.is_empty() {
                    ok += 1;
                    println!("ok      {}", c.class);
                } else {
                    for m in &c.missing {
                        *histogram.entry(m.clone()).or_default() += 1;
                    }
                    if let [m] = c.missing.as_slice() {
                        *only.entry(m.clone()).or_default() += 1;
                    }
                    println!("missing {}: {}", c.class, c.missing.join("; "));
                }
            }
            Err(e) => println!("error   {e}"),
        }
    }
    let pct = if files.is_empty() {
        0.0
    } else {
        100.0 * ok as f64 / files.len() as f64
    };
    println!(
        "\n{ok} of {} card files translate into playable cards ({pct:.1}%)",
        files.len()
    );
    let mut by_count: Vec<(String, usize)> = histogram.into_iter().collect();
    by_count.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    for (m, n) in by_count {
        println!("{n:5}  {m}");
    }
    println!("\ncards lacking only one feature:");
    let mut by_count: Vec<(String, usize)> = only.into_iter().collect();
    by_count.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    for (m, n) in by_count {
        println!("{n:5}  {m}");
    }
}
