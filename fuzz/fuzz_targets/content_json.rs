//! Content files in JSON (comments allowed, as the JSON loader reads them): compiled
//! against the core registry, then run a little.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Some(text) = tessera_fuzz::text(data) {
        tessera_fuzz::compile_and_run("fuzz", "content/fuzz.json", text);
    }
});
