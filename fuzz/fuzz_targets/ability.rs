//! The ability format (the `abilities` table, schema rules, `math` node pipelines), in
//! the namespace the seed abilities use, compiled and cast.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Some(text) = tessera_fuzz::text(data) {
        tessera_fuzz::compile_and_run("original", "content/abilities.json", text);
    }
});
