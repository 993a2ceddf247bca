//! `server.toml`: any text parses to a configuration or to located diagnostics.
#![no_main]
use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let Some(text) = tessera_fuzz::text(data) else { return };
    let root = Path::new("/srv/tessera");
    if let Err(d) = tessera_host::mods::ServerConfig::parse(&root.join("server.toml"), text, root) {
        let _ = d.render(false);
    }
});
