//! The ABI's host functions with arbitrary arguments, from a guest (see
//! `src/host_calls.rs`).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    tessera_fuzz::host_calls::run(data);
});
