//! A deterministic mutation fuzzer for the scenario loader.
//!
//! Read this first: starting from every file of tests/corpus/, each iteration applies one to
//! three seeded random mutations — byte flips, deleted, duplicated or swapped lines,
//! truncation, splicing two files, replacing a value by a random string, number or quantity,
//! inserting a random token — and sometimes adds random `--set` overrides. The loader must never
//! panic, every error must point at a real position (line and column ≥ 1: `load_str` has no
//! read errors), and every spec it returns must pass `Spec::check`. The generator is a tiny
//! xorshift, so a failure prints the iteration and the exact input, and reruns identically.
//!
//! `AFSIM_FUZZ_ITERS` changes the iteration count (default 20 000), `AFSIM_FUZZ_SEED` the seed.

use afsim_core::load_str;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

/// xorshift64* (Vigna 2016): enough randomness for choosing mutations, and no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

/// Bytes that matter to TOML, to units and to parameter substitution.
const BYTES: &[u8] = b"\"'[]{}=,.#\n\t $_-+0123456789abcdefghijklmnopqrstuvwxyzABMGKip/\\\x00\x7f";

const NUMBERS: &[&str] = &[
    "0",
    "1",
    "2",
    "3",
    "7",
    "10",
    "64",
    "255",
    "65535",
    "65536",
    "4097",
    "5000",
    "-1",
    "-0",
    "1_000",
    "9223372036854775807",
    "-9223372036854775808",
    "4294967296",
    "1.5",
    "0.0",
    "-2.5",
    "1e300",
    "nan",
    "inf",
    "true",
    "false",
    "1979-05-27",
    "[]",
    "[1, 2]",
    "{}",
    "{ kind = \"fixed\" }",
];

const UNITS: &[&str] = &[
    "", "bps", "b/s", "kbps", "Kbps", "Mbps", "Mb/s", "Gbps", "MBps", "mbps", "ns", "us", "µs",
    "μs", "ms", "s", "min", "m", "B", "KB", "kB", "KiB", "MB", "MiB", "GB", "GiB", "b", "pkt", "p",
    "packets", "x", " ms", "  Mbps",
];

const STRINGS: &[&str] = &[
    "\"\"",
    "\"$\"",
    "\"$$\"",
    "\"$n_af\"",
    "\"$t\"",
    "\"$nope\"",
    "\"${d}ms\"",
    "\"${nope}\"",
    "\"${\"",
    "\"src\"",
    "\"src0\"",
    "\"r1\"",
    "\"dst\"",
    "\"g\"",
    "\"cbr\"",
    "\"tcp\"",
    "\"ppp\"",
    "\"aal5\"",
    "\"aal5_llc\"",
    "\"atm_cell_tax\"",
    "\"fixed\"",
    "\"plain\"",
    "\"droptail\"",
    "\"red\"",
    "[\"src\", \"r1\"]",
    "[\"r1\", \"r1\"]",
    "[\"a\"]",
    "[\"src0\", \"r1\", \"r3\"]",
    "[1, 2]",
    "\"µµ\"",
    "{ kind = \"droptail\", limit = \"0pkt\" }",
    "{ limit = \"1B\" }",
    "{ kind = \"fixed\", overhead = \"12B\" }",
    "'literal'",
    "\"\"\"multi\nline\"\"\"",
    "\"1_000.000_1Mbps\"",
    "\"0.1Mbps\"",
    "\"18446744073709551616B\"",
];

const TOKENS: &[&str] = &[
    "[scenario]\n",
    "[params]\n",
    "[[node]]\n",
    "[[link]]\n",
    "[[route]]\n",
    "[[flow]]\n",
    "[nodes]\n",
    "name = \"x\"\n",
    "count = 3\n",
    "duration = \"1s\"\n",
    "until_transfers_complete = true\n",
    "packets = 5\n",
    "x = 1\n",
    "[link.queue]\n",
    "limit = \"5p\"\n",
    "\"",
    "=",
    "[",
    "]",
    "{",
    "}",
    "$",
    "${",
    "\n",
    "#",
    ".",
    "\r\n",
];

fn corpus() -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    let mut files: Vec<(String, String)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read_to_string(&p).unwrap(),
            )
        })
        .collect();
    files.sort();
    assert!(!files.is_empty());
    files
}

fn lines(text: &str) -> Vec<String> {
    text.split_inclusive('\n').map(str::to_string).collect()
}

fn random_value(rng: &mut Rng) -> String {
    match rng.below(3) {
        0 => rng.pick(NUMBERS).to_string(),
        1 => rng.pick(STRINGS).to_string(),
        _ => {
            let n = *rng.pick(&[
                "0", "1", "10", "1.5", "0.001", "30.792", "-3", "1_0", "1__0", ".5", "5.", "",
            ]);
            format!("\"{n}{}\"", rng.pick(UNITS))
        }
    }
}

fn mutate(rng: &mut Rng, text: &str, files: &[(String, String)]) -> String {
    let mut bytes = text.as_bytes().to_vec();
    let mut ls = lines(text);
    match rng.below(9) {
        // flip a byte
        0 if !bytes.is_empty() => {
            let i = rng.below(bytes.len());
            bytes[i] = *rng.pick(BYTES);
            String::from_utf8_lossy(&bytes).into_owned()
        }
        // delete a line
        1 if !ls.is_empty() => {
            ls.remove(rng.below(ls.len()));
            ls.concat()
        }
        // duplicate a line somewhere
        2 if !ls.is_empty() => {
            let l = ls[rng.below(ls.len())].clone();
            ls.insert(rng.below(ls.len() + 1), l);
            ls.concat()
        }
        // truncate
        3 => {
            bytes.truncate(rng.below(bytes.len() + 1));
            String::from_utf8_lossy(&bytes).into_owned()
        }
        // splice the head of this file with the tail of another, at line boundaries
        4 => {
            let other = lines(&rng.pick(files).1);
            let head = rng.below(ls.len() + 1);
            let tail = rng.below(other.len() + 1);
            let mut s = ls[..head].concat();
            s.push_str(&other[tail..].concat());
            s
        }
        // replace a value
        5 | 6 => {
            let candidates: Vec<usize> = (0..ls.len()).filter(|&i| ls[i].contains(" = ")).collect();
            if candidates.is_empty() {
                return text.to_string();
            }
            let i = *rng.pick(&candidates);
            let key = ls[i].split(" = ").next().unwrap().to_string();
            ls[i] = format!("{key} = {}\n", random_value(rng));
            ls.concat()
        }
        // swap two lines
        7 if ls.len() >= 2 => {
            let (a, b) = (rng.below(ls.len()), rng.below(ls.len()));
            ls.swap(a, b);
            ls.concat()
        }
        // insert a token
        _ => {
            let mut i = rng.below(bytes.len() + 1);
            while !text.is_char_boundary(i) {
                i -= 1;
            }
            format!("{}{}{}", &text[..i], rng.pick(TOKENS), &text[i..])
        }
    }
}

fn random_overrides(rng: &mut Rng) -> Vec<(String, String)> {
    let keys = [
        "n_af",
        "t",
        "d",
        "access_rate",
        "bottleneck",
        "n",
        "unit",
        "lim",
        "rate",
        "nope",
    ];
    let values = [
        "0", "1", "3", "-1", "2.5", "true", "10s", "0s", "2Mbps", "\"7\"", "$x", "", "ms", "{",
        "x y",
    ];
    (0..rng.below(3))
        .map(|_| (rng.pick(&keys).to_string(), rng.pick(&values).to_string()))
        .collect()
}

#[test]
fn mutated_scenarios_never_panic_and_every_error_has_a_position() {
    let iters: usize = std::env::var("AFSIM_FUZZ_ITERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20_000);
    let seed: u64 = std::env::var("AFSIM_FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x5eed_afc0_ffee);
    let files = corpus();
    // Spread the seed's bits (splitmix64's constant) so nearby seeds give unrelated streams.
    let mut rng = Rng((seed ^ 0x9e37_79b9_7f4a_7c15).wrapping_mul(0xbf58_476d_1ce4_e5b9) | 1);
    let (mut ok, mut syntax, mut semantic) = (0usize, 0usize, 0usize);
    let started = std::time::Instant::now();
    for iter in 0..iters {
        let (name, base) = &files[iter % files.len()];
        let mut text = base.clone();
        // Mostly one mutation, so that many inputs stay close enough to valid to load.
        let rounds = if rng.chance(60) { 1 } else { 2 + rng.below(2) };
        for _ in 0..rounds {
            text = mutate(&mut rng, &text, &files);
        }
        let overrides = if rng.chance(15) {
            random_overrides(&mut rng)
        } else {
            Vec::new()
        };
        let result = catch_unwind(AssertUnwindSafe(|| load_str(&text, name, &overrides)));
        let result = match result {
            Ok(r) => r,
            Err(_) => panic!("load_str panicked at iteration {iter} (seed {seed}) on {name} with overrides {overrides:?}:\n{text}"),
        };
        match result {
            Ok(spec) => {
                ok += 1;
                assert!(
                    spec.check().is_ok(),
                    "iteration {iter}: spec fails check:\n{text}"
                );
            }
            Err(e) => {
                assert!(
                    e.line >= 1 && e.column >= 1,
                    "iteration {iter}: error without a position: {e}\n--- input ---\n{text}"
                );
                let line_count = text.split('\n').count();
                assert!(
                    e.line <= line_count,
                    "iteration {iter}: line {} past the end: {e}\n{text}",
                    e.line
                );
                assert_eq!(e.file, *name);
                assert!(
                    !e.message.is_empty(),
                    "iteration {iter}: empty message: {e:?}"
                );
                if e.message.starts_with("invalid TOML") {
                    syntax += 1;
                } else {
                    semantic += 1;
                }
            }
        }
    }
    eprintln!(
        "loader fuzz: {iters} inputs in {:.1?}: {ok} loaded, {syntax} TOML errors, {semantic} scenario errors",
        started.elapsed()
    );
    // The mutations must reach past the TOML parser, or this test proves little.
    if iters >= 1000 {
        assert!(
            semantic > iters / 5,
            "only {semantic} scenario errors in {iters} inputs"
        );
        assert!(ok > iters / 50, "only {ok} inputs loaded in {iters}");
    }
}

#[test]
fn a_read_error_is_the_only_error_at_line_zero() {
    let e = afsim_core::load_file(Path::new("/nonexistent/fuzz.toml"), &[]).unwrap_err();
    assert_eq!((e.line, e.column), (0, 0));
}
