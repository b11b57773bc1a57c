//! The build's identity: a hash of the simulator's sources (afsim-core and these bindings), so
//! that results stores and reproduction reports can tell runs of different model code apart
//! even when the version number is the same (`afsim._core.__build__`, "0.1.0+<hash>").
//!
//! FNV-1a over every file's path (relative to `crates/`) and bytes, in sorted path order: the
//! same sources give the same hash on every machine and toolchain.

use std::fs;
use std::path::{Path, PathBuf};

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

fn main() {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("crates/")
        .to_path_buf();
    let mut files = Vec::new();
    for dir in ["afsim-core/src", "afsim-py/src"] {
        collect(&crates.join(dir), &mut files);
        println!("cargo:rerun-if-changed=../{dir}");
    }
    files.sort();
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |bytes: &[u8]| {
        for &b in bytes {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    };
    for f in &files {
        let rel = f.strip_prefix(&crates).unwrap_or(f);
        eat(rel.to_string_lossy().as_bytes());
        eat(&[0]);
        eat(&fs::read(f).unwrap_or_default());
        eat(&[0]);
    }
    println!(
        "cargo:rustc-env=AFSIM_SOURCE_HASH={:012x}",
        h & 0xffff_ffff_ffff
    );
}
