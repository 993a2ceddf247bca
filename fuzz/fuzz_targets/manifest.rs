//! `mod.toml`: any text parses to a manifest or to located diagnostics.
#![no_main]
use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let Some(text) = tessera_fuzz::text(data) else { return };
    if let Err(e) = tessera_host::mods::Manifest::parse(Path::new("mods/m/mod.toml"), text) {
        let _ = e.diagnostics.render(false);
    }
});
