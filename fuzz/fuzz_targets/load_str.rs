//! libFuzzer target: the scenario loader must never panic, and every error must point at a
//! real position (line and column ≥ 1) — the same properties tests/loader_fuzz.rs checks with
//! seeded mutations, here with coverage guidance.
//!
//! Run (needs cargo-fuzz, i.e. nightly; on stable, RUSTC_BOOTSTRAP=1 stands in for nightly):
//!
//! ```sh
//! cd fuzz
//! RUSTC_BOOTSTRAP=1 cargo fuzz run load_str ../crates/afsim-core/tests/corpus -- -max_total_time=60
//! ```
//!
//! The first input bytes up to a NUL, if any, are `--set` overrides (`k=v` per line); the rest
//! is the scenario text.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let (overrides, text) = match text.split_once('\0') {
        Some((o, t)) => (o, t),
        None => ("", text),
    };
    let overrides: Vec<(String, String)> = overrides
        .lines()
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    match afsim_core::load_str(text, "fuzz.toml", &overrides) {
        Ok(spec) => assert!(spec.check().is_ok()),
        Err(e) => assert!(e.line >= 1 && e.column >= 1, "{e}"),
    }
});
