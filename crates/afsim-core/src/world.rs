//! The world: nodes, ports, agents and forwarding tables built from a `Spec`, and the event
//! loop that runs them.
//!
//! Read this first: a link is two *ports*, one per direction. A port has an output queue
//! (`queue::AnyQueue`), a transmitter that holds at most one packet, and a propagation line: the
//! packets on the wire, in order (the delay is constant, so they arrive in the order they were
//! sent, and only the head of each line needs an event). A packet's life:
//! agent `send` → its node forwards it (`Tables::next_port`) → port queue → transmitter → line
//! (`Arrive` at start + framed transmission time + delay) → the next node forwards it again, or
//! delivers it to `dst_agent` if it is the destination. The transmitter is a `busy_until`
//! instant; a `TxDone` event is scheduled only while a packet waits behind it, so an idle or
//! lightly loaded port costs one event per packet instead of two.
//! Every exit from that path — delivery, or a drop with its place and reason — is counted, and
//! `report` checks that the counts add up.
//!
//! A port may also lose packets at random as they leave its wire (`net::loss`, the link's
//! `loss`): such a packet has used the link and is counted as dropped at "link from->to" for
//! reason `link_loss`.
//!
//! Three files hold the work: `build.rs` makes a `World` from a `Spec` (ports, tables,
//! conditioners, CSAs, agents and their random streams); `run.rs` is the event loop (dispatch,
//! transmission, forwarding, conditioning, CSA signalling, agent calls); `report.rs` assembles
//! the `Report` and its conservation check from the counters. This file holds the types they
//! share and `run`, which does all three.
//!
//! Not modelled: processing delay inside nodes, node input queues.

use crate::edge::conditioner::Conditioner;
use crate::edge::csa::Csa;
use crate::metrics::delay::Delays;
use crate::metrics::flow::FlowStats;
use crate::metrics::series::{CodePointSeries, CountSeries, QueueSeries, QueueState};
use crate::metrics::trace::QueueTrace;
use crate::net::dscp::ColourTable;
use crate::net::framing::TxClock;
use crate::net::loss::Loss;
use crate::net::packet::{PacketId, Pool};
use crate::net::pcap;
use crate::net::routing::Tables;
use crate::queue::{AnyQueue, QueueStats, N_DROP_REASONS};
use crate::report::Report;
use crate::scenario::spec::CsaScope;
use crate::scenario::spec::SpecError;
use crate::scenario::Spec;
use crate::sim::event::EventQueue;
use crate::sim::ring::Ring;
use crate::sim::rng::Rng;
use crate::sim::time::{SimDuration, SimTime};
use crate::transport::AnyAgent;

/// `receive`'s `via` for packets an agent sent from the node itself.
mod build;
mod code_points;
mod report;
/// The report rows afsim-live's forwarding plane builds from the same counters.
pub use report::{colour_rows, conditioner_row, queue_row};
mod run;
mod unchecked;
mod watch;

const LOCAL: u32 = u32::MAX;
/// `Packet::dst_agent` of CSA control packets: handled by the world, not an agent.
const CONTROL: u32 = u32::MAX;

/// One direction of a link.
#[derive(Debug)]
pub struct Port {
    /// Nodes (indices); the port's name is "from->to" in node names (`World::port_name`: not
    /// stored, which saves 56 bytes a port; issue 28).
    pub from: u32,
    pub to: u32,
    pub delay: SimDuration,
    clock: TxClock,
    pub queue: AnyQueue,
    pub stats: QueueStats,
    /// The transmitter is busy until this instant.
    busy_until: SimTime,
    /// A `TxDone` event is scheduled at `busy_until`.
    tx_pending: bool,
    /// Packets in `queue`, kept here as the discipline accepts (+1) and hands out (−1) packets,
    /// so that the packet path reads the port, not the discipline behind its `match` and box
    /// (issue 25). Equal to `queue.len_packets()`: no discipline gains or loses packets
    /// otherwise (only the test double `AnyQueue::Leaky`, which loses packets on purpose).
    qlen: u32,
    /// Packets being transmitted or propagating, with their arrival times (non-decreasing).
    line: Ring<(SimTime, PacketId)>,
    /// The queue discipline's own random stream (`queue/<from>-><to>`): only the RED family
    /// (RED, RIO, WRED, SIMA and schedulers of them) draws from it, so a drop-tail port has
    /// none (`AnyQueue::enqueue_port`; 24 bytes a port, issue 28).
    rng: Option<Box<Rng>>,
    /// Nanoseconds spent transmitting.
    busy_ns: u64,
    /// The capture writer (`World::captures`) of this port's departures, or `pcap::NONE`.
    capture: u32,
    /// What `[[monitor]]`s record of this queue, if any asked (`None`: nothing; a run with no
    /// watched port, monitor or capture does not test it, `World::run`).
    watch: Option<Box<Watch>>,
    /// Random loss at the end of the wire, with its own stream (`link/<from>-><to>`), and the
    /// packets it dropped; boxed, as few ports have one (the count in the box leaves room in
    /// the port for `TxClock`'s remembered size, issue 25).
    loss: Option<Box<(Loss, u64)>>,
    /// Arrivals, departures and drops by code point and direction (`code_points`).
    by_cp: code_points::ByCodePoint,
}

/// What the `[[monitor]]`s of one port record.
#[derive(Debug, Default)]
struct Watch {
    /// The queue's state on a grid (`kind = "queue"`).
    series: Option<QueueSeries>,
    /// Queueing delays (enqueue to the start of transmission), `kind = "queue"`.
    sojourn: Option<Delays>,
    /// Each queued packet's enqueue instant, ns, by pool slot (for `sojourn`).
    enq_at: Vec<u64>,
    /// Every event (`kind = "events"`).
    trace: Option<QueueTrace>,
    /// The discipline's ECN marks (all levels) at the last recorded arrival.
    marks_seen: u64,
    /// A queue monitor on a discipline that can mark (`build::may_mark`): its arrivals are
    /// checked for marks, counted per code point (`Port::by_cp`).
    marks_by_cp: bool,
}

/// Counters sampled on a grid for the `[[monitor]]`s of kinds "flows", "conditioners" and
/// (per drop-precedence level) "queue" (`metrics::series::CountSeries`).
#[derive(Debug)]
struct Grid {
    /// The earliest next instant of the series below, ns (`u64::MAX`: none).
    next_ns: u64,
    /// Per flow: forward packets delivered, bytes delivered, packets dropped.
    flows: Option<CountSeries<3>>,
    /// Per conditioner: green, yellow, red packets; green, yellow, red bytes; drops.
    conditioners: Option<CountSeries<7>>,
    /// Per monitored port, per level of the colour table: arrivals, departures, drops, ECN
    /// marks.
    levels: Vec<(u32, CountSeries<4>)>,
    /// Per monitored port, per (direction, code point) it has seen: arrivals, overflow drops,
    /// early drops, ECN marks (from `Port::by_cp`).
    code_points: Vec<(u32, CodePointSeries<4>)>,
}

impl Port {
    /// Packets lost on the wire (`loss`).
    pub fn link_losses(&self) -> u64 {
        self.loss.as_ref().map_or(0, |l| l.1)
    }

    /// The link rate, bits per second (kept once, in the transmitter's clock: the 8 bytes
    /// pay for `qlen` within the size `ports_and_link_specs_stay_small` allows).
    pub fn rate_bps(&self) -> u64 {
        self.clock.rate_bps()
    }

    /// Hands the queue's state since its last change to its time series, if it has one; called
    /// just before the queue changes (and at the end of the run). Called only on the packet
    /// path compiled with observers (`World::run`), and inlined there: it is one test when the
    /// port has no series.
    #[inline(always)]
    fn sample(&mut self, now: SimTime) {
        if let Some(s) = self.watch.as_deref_mut().and_then(|w| w.series.as_mut()) {
            let (avg, avg_in) = self.queue.averages();
            let len_packets = u32::try_from(self.queue.len_packets()).unwrap_or(u32::MAX);
            s.advance(
                now,
                QueueState {
                    len_packets,
                    len_bytes: self.queue.len_bytes(),
                    avg,
                    avg_in,
                },
            );
        }
    }
}

/// A Congestion Signaling Algorithm at work: the RIO port it watches and whose α it sets.
#[derive(Debug)]
struct CsaRun {
    name: String,
    node: u32,
    port: u32,
    /// Conditioners it drives, and for each the flow index of its control-packet pseudo-flow
    /// (`u32::MAX` for a conditioner at the CSA's own node: α applies at once).
    targets: Vec<(u32, u32)>,
    /// The controllers: one for every target (`CsaScope::Shared`), or one per target, the
    /// `t`-th setting the α of `targets[t]` only (`CsaScope::PerBucket`).
    ctls: Vec<CtlRun>,
    /// Per conditioner index: which controller counts the OUT packets that conditioner
    /// marked (`u32::MAX`: none; a shared controller counts every OUT arrival).
    ctl_of_cond: Vec<u32>,
    scope: CsaScope,
    /// Whether α's trace is reported (`[[csa]] trace = true`).
    trace: bool,
    signal_bytes: u32,
    signal_dscp: u8,
}

/// One controller of a CSA and its T2 timer event.
#[derive(Debug)]
struct CtlRun {
    csa: Csa,
    /// The instant a timer event is scheduled for, if any.
    timer_at: Option<SimTime>,
}

/// Progress of a run, handed to the progress callback.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    pub sim_time_s: f64,
    /// Fraction done, when the run has a duration or a packet budget.
    pub fraction: Option<f64>,
    pub events: u64,
    pub packet_hops: u64,
}

/// Why a run did not produce a report.
#[derive(Debug)]
pub enum RunError {
    Spec(SpecError),
    /// The packet conservation identity failed; the report shows the numbers.
    Conservation(Box<Report>),
    /// The progress callback asked to stop.
    Interrupted,
    /// A capture file could not be written (the place is the `[[capture]]` that asked for it).
    Capture(crate::ScenarioError),
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Spec(e) => write!(f, "invalid scenario: {e}"),
            RunError::Conservation(r) => {
                write!(f, "packet conservation failed: {}", r.conservation.identity)
            }
            RunError::Interrupted => write!(f, "run interrupted"),
            RunError::Capture(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for RunError {}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum StopReason {
    Duration,
    MaxPackets,
    MaxDataPackets,
    TransfersComplete,
    NoEvents,
}

impl StopReason {
    fn name(self) -> &'static str {
        match self {
            StopReason::Duration => "duration",
            StopReason::MaxPackets => "max_packets",
            StopReason::MaxDataPackets => "max_data_packets",
            StopReason::TransfersComplete => "transfers_complete",
            StopReason::NoEvents => "no_events",
        }
    }
}

/// A built network, ready to run. It borrows its spec (not a copy: at 100,000 flows a spec
/// holds tens of megabytes, issue 28).
pub struct World<'s> {
    spec: &'s Spec,
    now: SimTime,
    events: EventQueue,
    pool: Pool,
    pub(crate) ports: Vec<Port>,
    tables: Tables,
    agents: Vec<AnyAgent>,
    agent_node: Vec<u32>,
    /// Each flow's DSCP (`FlowSpec::dscp`), packed: the spec's flows are 184 bytes apart.
    flow_dscp: Vec<u8>,
    flows: Vec<FlowStats>,
    /// Whether each flow is a finite transfer, and whether its completion was counted.
    finite: Vec<bool>,
    completion_counted: Vec<bool>,
    finite_total: usize,
    finite_done: usize,
    outbox: Vec<PacketId>,
    /// Drops at nodes (not in a queue), by reason.
    node_drops: Vec<[u64; N_DROP_REASONS]>,
    /// Edge conditioners, and which of them see packets arriving over each port (`ingress`,
    /// by port index) or sent by each node's agents (`local`, by node index), in order.
    conditioners: Vec<Conditioner>,
    /// `!conditioners.is_empty()`.
    any_conditioner: bool,
    ingress: Vec<Vec<u32>>,
    local: Vec<Vec<u32>>,
    /// Drops at each conditioner, by reason.
    cond_drops: Vec<[u64; N_DROP_REASONS]>,
    /// The domain's code point → drop precedence table, for per-colour counters.
    colours: ColourTable,
    csas: Vec<CsaRun>,
    /// Per port: the CSA watching it, or `u32::MAX`.
    port_csa: Vec<u32>,
    /// Per conditioner: the α last announced by each CSA that drives it; the bucket runs at the
    /// smallest (the most congested path governs).
    cond_alpha: Vec<Vec<(u32, f64)>>,
    /// Per flow: the conditioner that last metered one of its packets (`u32::MAX`: none), so
    /// that a per-bucket CSA knows whose OUT packet reached its buffer.
    flow_cond: Vec<u32>,
    /// Control-packet pseudo-flows (CSA → remote conditioner): name, from node, to node. Their
    /// counters follow the scenario's flows in `flows`.
    signal_flows: Vec<(String, u32, u32)>,
    warmup: SimTime,
    /// TCP goodput (in-order bytes) of each flow's receiver when the measured interval began.
    goodput_at_warmup: Vec<u64>,
    generated: u64,
    /// Packets the flows' sources generated (forward direction: data, and a TCP SYN): the
    /// `max_data_packets` budget. ACKs and CSA control packets are not counted.
    data_generated: u64,
    delivered: u64,
    dropped: u64,
    events_done: u64,
    hops: u64,
    stop_reason: Option<StopReason>,
    /// Open pcap files (`net::pcap`), one per captured port, in `Spec::captures` order.
    captures: Vec<pcap::Writer>,
    /// One-way delays of delivered forward packets, per flow and per code point at delivery.
    flow_delays: Vec<Delays>,
    class_delays: Box<[Delays; 64]>,
    /// Counters sampled on a grid (`[[monitor]]`).
    grid: Grid,
}
impl World<'_> {
    pub fn now(&self) -> SimTime {
        self.now
    }

    /// A port's name, "from->to" (node names), as the report names queues.
    pub fn port_name(&self, port: usize) -> String {
        let p = &self.ports[port];
        let node = |i: u32| self.spec.nodes[i as usize].name.as_str();
        format!("{}->{}", node(p.from), node(p.to))
    }

    /// Flushes and closes the capture files; the first write error, at the capture's place.
    pub fn finish_captures(&mut self) -> Result<(), RunError> {
        for (w, c) in self.captures.iter_mut().zip(&self.spec.captures) {
            w.finish().map_err(|e| {
                RunError::Capture(crate::ScenarioError {
                    message: format!(
                        "writing the capture file '{}' failed: {e}",
                        c.path.display()
                    ),
                    ..c.place.clone()
                })
            })?;
        }
        Ok(())
    }

    /// Packets written to each capture file so far, in `Spec::captures` order.
    pub fn captured(&self) -> Vec<u64> {
        self.captures.iter().map(|w| w.packets).collect()
    }
}

/// Builds and runs a scenario; fails if the packet conservation identity does not hold.
pub fn run(
    spec: &Spec,
    progress: Option<&mut dyn FnMut(&Progress) -> bool>,
) -> Result<Report, RunError> {
    let mut world = World::build(spec).map_err(RunError::Spec)?;
    world.run(progress)?;
    world.finish_captures()?;
    let report = world.into_report();
    if !report.conservation.holds {
        return Err(RunError::Conservation(Box::new(report)));
    }
    Ok(report)
}

#[cfg(test)]
mod tests;
