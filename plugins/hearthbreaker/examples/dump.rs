//! Prints the content tree the loader makes of a card_defs.json (for reading what the
//! translation produces): `cargo run -p hearthbreaker --features native --example dump -- FILE`.
fn main() {
    let path = std::env::args().nth(1).expect("usage: dump card_defs.json");
    let text = std::fs::read_to_string(&path).expect("readable file");
    let defs: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    match hearthbreaker::translate_file(&defs) {
        Ok(tree) => println!(
            "{}",
            serde_json::to_string_pretty(&tree).expect("printable")
        ),
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    }
}
