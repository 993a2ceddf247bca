//! The expression language: the text parsed alone, then as an amount in content (aliases,
//! `count(selector)`, dice) compiled and evaluated by a trigger.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Some(text) = tessera_fuzz::text(data) {
        tessera_fuzz::expr::run(text);
    }
});
