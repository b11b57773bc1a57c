//! # afsim-core: a packet-level simulator of DiffServ Assured Forwarding networks
//!
//! The layers, in the order a packet meets them. Each is a folder; each model is a file named
//! after what it models, with its source cited in a "read this first" header.
//!
//! - **Time** (`sim::time`): simulated time is an integer count of nanoseconds (`SimTime`,
//!   `SimDuration`). Models never read a clock; `now` is passed in.
//! - **Event queue** (`sim::event`): events keyed by (time, sequence number); ties leave in the
//!   order they were scheduled. Random numbers come from one seeded stream per component
//!   (`sim::rng`), derived from the run seed and the component's name.
//! - **Packet** (`net::packet`): IPv4-like fields (addresses, protocol, DSCP, ECN, size) plus a
//!   transport header, stored in a pool and moved by index.
//! - **Link** (`net::framing`, `world`): full-duplex point-to-point; each direction is a *port*
//!   with a rate, a propagation delay, a framing model (plain, fixed overhead, ATM cell tax,
//!   AAL5), an output queue and optionally random (Bernoulli) loss (`net::loss`). Routing
//!   (`net::routing`) is destination-based: shortest paths by hop count, overridden by explicit
//!   routes, checked loop-free. A port may be captured (`net::pcap`): its departures written as
//!   a pcap file with real IPv4/TCP/UDP headers.
//! - **Queue** (`queue`): the output discipline of a port, a variant of `queue::AnyQueue`:
//!   drop-tail, RED (as ns-2), RIO (coupled, decoupled), WRED (up to 8 precedences), each RED
//!   kind optionally ECN-marking by tail, front or random position or OUT first
//!   (`queue::ecn_mark`), class schedulers (strict priority, DRR, WRR) over inner queues, and
//!   the SIMA core node (`queue::sima`: real-time and non-real-time buffers behind the allowed
//!   drop precedence, real time first).
//! - **Edge** (`edge`): DiffServ at the network's border: code points and the domain's colour
//!   table (`edge::dscp`), meters (token bucket, srTCM, trTCM, TSW2CM/TSW3CM, Giacomazzi's
//!   enhanced token bucket and its Congestion Signaling Algorithm), the SIMA access node's
//!   marker (`edge::sima`: a drop precedence 0..7 from the measured momentary bit rate against
//!   the nominal bit rate), and the conditioner that puts a classifier, a meter and per-colour
//!   actions on a node's input line (`edge::conditioner`).
//! - **Transport** (`transport`): the agents at the hosts that create and consume packets: UDP
//!   constant bit rate, TCP (Reno, NewReno, SACK, ECN, Leung & Muppala's Throughput Sustaining
//!   Scheme), TFRC (RFC 5348) and gTFRC, each a
//!   variant of `transport::AnyAgent`.
//! - **Metrics** (`metrics`): per-flow and per-queue counters, fairness indices (Jain, FIEB),
//!   and the packet conservation check every run ends with (sent = delivered + dropped + in
//!   flight).
//! - **Scenario** (`scenario`): the TOML file format, its units, parameters and groups, its
//!   file/line/field errors, and the resolved `Spec`.
//! - **World** (`world`): builds nodes, ports, agents and tables from a `Spec` and runs the
//!   event loop; `report` turns the final counters into the run's results.

pub mod edge;
pub mod metrics;
pub mod net;
pub mod param;
pub mod queue;
pub mod report;
pub mod scenario;
pub mod sim;
pub mod transport;
pub mod world;

pub use report::Report;
pub use scenario::{load_file, load_str, ScenarioError, Spec};
pub use sim::time::{SimDuration, SimTime};
pub use world::{run, RunError, World};
