//! # afsim-core: a packet-level simulator of DiffServ Assured Forwarding networks
//!
//! The layers, bottom up: each imports only those listed before it (`python3
//! tools/import_cycles.py --rust-only --layers` prints the graph from the source, and fails on
//! any import cycle). Each is a folder; each model is a file named after what it models, with
//! its source cited in a "read this first" header. A model owns its configuration type; the
//! scenario's `Spec` is made of them.
//!
//! - **Time** (`sim::time`): simulated time is an integer count of nanoseconds (`SimTime`,
//!   `SimDuration`). Models never read a clock; `now` is passed in. **Event queue**
//!   (`sim::event`): events keyed by (time, sequence number); ties leave in the order they were
//!   scheduled. Random numbers come from one seeded stream per component (`sim::rng`), derived
//!   from the run seed and the component's name.
//! - **Parameters** (`param`): `ParamError`, what every model's `validate()` returns.
//! - **Network** (`net`): the packet (`net::packet`: IPv4-like fields plus a transport header,
//!   stored in a pool and moved by index; TCP's flag bits), its DS field (`net::dscp`: code
//!   points, the domain's colour table, SIMA's classes), links — full-duplex point-to-point,
//!   each direction a *port* (built in `world`) with a rate, a propagation delay, a framing
//!   model (`net::framing`: plain, fixed overhead, ATM cell tax, AAL5) and optionally random
//!   (Bernoulli) loss (`net::loss`) — routing (`net::routing`: destination-based, shortest
//!   paths by hop count, overridden by explicit routes, checked loop-free) and pcap capture of
//!   a port's departures (`net::pcap`).
//! - **Queue** (`queue`): the output discipline of a port, a variant of `queue::AnyQueue` built
//!   from a `queue::QueueSpec`: drop-tail, RED (as ns-2), RIO (coupled, decoupled), WRED (up to
//!   8 precedences), each RED kind optionally ECN-marking by tail, front or random position or
//!   OUT first (`queue::ecn_mark`), class schedulers (strict priority, DRR, WRR) over inner
//!   queues, and the SIMA core node (`queue::sima`).
//! - **Edge** (`edge`): DiffServ at the network's border: meters (token bucket, srTCM, trTCM,
//!   TSW2CM/TSW3CM, Giacomazzi's enhanced token bucket and its Congestion Signaling
//!   Algorithm), the SIMA access node's marker (`edge::sima`), and the conditioner that puts a
//!   classifier, a meter and per-colour actions on a node's input line (`edge::conditioner`).
//!   It uses `queue` for `DropReason` only.
//! - **Metrics** (`metrics`): per-flow counters, fairness indices (Jain, FIEB), and the packet
//!   conservation check every run ends with (sent = delivered + dropped + in flight); delay
//!   distributions (`metrics::delay`), time series on a grid (`metrics::series`) and a queue's
//!   event record (`metrics::trace`), which `[[monitor]]`s ask for.
//! - **Transport** (`transport`): the agents at the hosts that create and consume packets: UDP
//!   constant bit rate, TCP (Reno, NewReno, SACK, ECN, Leung & Muppala's Throughput Sustaining
//!   Scheme; the RFC and ns-2 rule sets as presets, `transport::tcp::sender`), TFRC (RFC 5348)
//!   and gTFRC, each a variant of `transport::AnyAgent`.
//! - **Scenario** (`scenario`): the TOML file format, its units, parameters and groups, its
//!   file/line/field errors, and the resolved `Spec`.
//! - **Report** (`report`): the results of a run, serializable.
//! - **World** (`world`): builds nodes, ports, agents and tables from a `Spec`
//!   (`world/build.rs`), runs the event loop (`world/run.rs`) and assembles the `Report`
//!   (`world/report.rs`).

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
