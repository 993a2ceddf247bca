//! Prints a FOCS file as the parser sees it (includes inserted, macros expanded), each
//! line with where it came from, then the diagnostics.
//!
//! `cargo run -p focs-script --example expand -- <content root> <entry, relative to it>`

use focs_script::{preprocess, DirFiles};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [root, entry] = args.as_slice() else {
        eprintln!("usage: expand <content root> <entry relative to it>");
        std::process::exit(2);
    };
    let p = preprocess(entry, &[], &mut DirFiles::new(root));
    for (line, origin) in p.text.lines().zip(&p.lines) {
        let via = origin
            .via
            .as_deref()
            .map_or(String::new(), |m| format!(" [[{m}]]"));
        println!("{:>40}:{:<4}{via:<30} | {line}", origin.file, origin.line);
    }
    for d in &p.diagnostics {
        eprintln!("{d}");
    }
}
