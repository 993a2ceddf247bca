//! Recordings (`tessera replay`): parsed, compared with the loaded mods, replayed.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Some(text) = tessera_fuzz::text(data) {
        tessera_fuzz::replay::run(text);
    }
});
