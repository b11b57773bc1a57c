//! # afsim-live: the simulator's network on real frames
//!
//! `afsim live` builds a scenario's hosts as Linux network namespaces running real TCP and UDP,
//! and its routers and links as one forwarder process: this crate. The forwarder runs
//! afsim-core's own models — link rate and framing (`TxClock`), propagation delay, queue
//! disciplines, edge conditioners, random loss — against the wall clock instead of the event
//! loop's simulated one ("one implementation, two clocks", docs/architecture.md).
//!
//! - `frame`: the Ethernet/IPv4 fields read and rewritten.
//! - `fabric`: the forwarding plane, clock-agnostic (`advance(now)`, `ingress(now, frame)`),
//!   tested with made-up time.
//! - `capture`: `--capture`'s pcap files (the simulator's format, real packets).
//! - `driver` (Linux): AF_PACKET sockets and the wall-clock loop.

pub mod capture;
pub mod fabric;
pub mod frame;
pub mod plan;

#[cfg(target_os = "linux")]
pub mod driver;
