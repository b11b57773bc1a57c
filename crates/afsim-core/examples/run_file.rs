//! Runs a scenario file from Rust alone and prints a one-line summary: for profiling the core
//! without the Python front (`cargo run --release -p afsim-core --example run_file -- FILE`).
//! With `REPORT_JSON=PATH` in the environment it also writes the run's report there.

use std::time::Instant;

// The allocator and its options are the Python extension's (crates/afsim-py/src/lib.rs: jemalloc
// with transparent huge pages), so that this runner's time and memory are those a user of
// `afsim run` gets (issue 28).
#[cfg(target_os = "linux")]
#[global_allocator]
static ALLOC: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;
#[cfg(target_os = "linux")]
#[export_name = "_rjem_malloc_conf"]
pub static JEMALLOC_CONF: &[u8; 29] = b"thp:always,metadata_thp:auto\0";

fn main() {
    let path = std::env::args()
        .nth(1)
        .expect("usage: run_file SCENARIO.toml [key=value ...]");
    let overrides: Vec<(String, String)> = std::env::args()
        .skip(2)
        .filter_map(|kv| {
            kv.split_once('=')
                .map(|(k, v)| (k.to_string(), v.to_string()))
        })
        .collect();
    let spec = afsim_core::load_file(std::path::Path::new(&path), &overrides).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2)
    });
    let t0 = Instant::now();
    let r = afsim_core::run(&spec, None).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(1)
    });
    let wall = t0.elapsed().as_secs_f64();
    if let Some(out) = std::env::var_os("REPORT_JSON") {
        std::fs::write(&out, r.to_json()).unwrap_or_else(|e| {
            eprintln!("{}: {e}", out.to_string_lossy());
            std::process::exit(1)
        });
    }
    let bottleneck = r
        .queues
        .iter()
        .max_by(|a, b| a.utilization.total_cmp(&b.utilization))
        .expect("a queue");
    println!(
        "{}: {} events, {} packet-hops, {:.3} s wall, {:.2} M bottleneck pkts/s ({})",
        r.scenario,
        r.engine.events,
        r.engine.packet_hops,
        wall,
        bottleneck.departures as f64 / wall / 1e6,
        bottleneck.name
    );
}
