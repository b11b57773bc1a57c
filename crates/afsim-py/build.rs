//! The build's identity: a hash of the simulator's sources that compute (afsim-core and these
//! bindings), so that results stores and reproduction reports can tell runs of different model
//! code apart even when the version number is the same (`afsim._core.__build__`,
//! "0.1.0+<hash>").
//!
//! FNV-1a over every `.rs` file's path (relative to `crates/`) and canonical text
//! (`source_hash.rs`: comments, doc comments, `#[cfg(test)]` items and layout left out), in
//! sorted path order, leaving out the files of test modules (`#[cfg(test)] mod tests;`): the
//! same code gives the same hash on every machine and toolchain, and editing a comment or a
//! unit test orphans no store.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

#[path = "source_hash.rs"]
mod source_hash;

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

/// The files a module `name` declared in `file` may live in (`name.rs`, `name/mod.rs`), and
/// the folder of its own submodules.
fn module_paths(file: &Path, name: &str) -> [PathBuf; 2] {
    let dir = file.parent().unwrap_or(Path::new("."));
    let stem = file.file_stem().and_then(|s| s.to_str()).unwrap_or("");
    let base = if matches!(stem, "mod" | "lib" | "main") {
        dir.to_path_buf()
    } else {
        dir.join(stem)
    };
    [base.join(format!("{name}.rs")), base.join(name)]
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
    println!("cargo:rerun-if-changed=source_hash.rs");
    files.sort();
    let mut texts = Vec::with_capacity(files.len());
    let mut left_out: BTreeSet<PathBuf> = BTreeSet::new();
    for f in &files {
        let src = fs::read_to_string(f).unwrap_or_default();
        let (text, test_modules) = source_hash::canonical(&src);
        for name in test_modules {
            left_out.extend(module_paths(f, &name));
        }
        texts.push(text);
    }
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |bytes: &[u8]| {
        for &b in bytes {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    };
    for (f, text) in files.iter().zip(&texts) {
        if left_out.iter().any(|p| f == p || f.starts_with(p)) {
            continue;
        }
        let rel = f.strip_prefix(&crates).unwrap_or(f);
        eat(rel.to_string_lossy().as_bytes());
        eat(&[0]);
        eat(text.as_bytes());
        eat(&[0]);
    }
    println!(
        "cargo:rustc-env=AFSIM_SOURCE_HASH={:012x}",
        h & 0xffff_ffff_ffff
    );
}
