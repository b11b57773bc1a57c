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
use crate::metrics::delay::{CountingDelays, Delays};
use crate::metrics::flow::FlowStats;
use crate::metrics::series::{CodePointSeries, CountSeries, QueueSeries, QueueState};
use crate::metrics::trace::QueueTrace;
use crate::net::dscp::ColourTable;
use crate::net::framing::TxClock;
use crate::net::loss::Loss;
use crate::net::packet::{PacketId, Pool};
use crate::net::pcap;
use crate::net::routing::Tables;
use crate::queue::{AnyQueue, LevelStats, QueueStats, N_DROP_REASONS};
use crate::report::Report;
use crate::scenario::spec::CsaScope;
use crate::scenario::spec::SpecError;
use crate::scenario::Spec;
use crate::sim::event::EventQueue;
use crate::sim::rng::Rng;
use crate::sim::time::{SimDuration, SimTime};
use crate::transport::AnyAgent;

/// `receive`'s `via` for packets an agent sent from the node itself.
mod build;
mod code_points;
mod line;
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
///
/// Laid out by hand (`repr(C)`), aligned to a cache line (issue 28, branch scale7): what a
/// packet-hop through a port with an idle drop-tail queue reads and writes (the arrival's
/// counters, the transmitter, the line; `World::enqueue`, `transmit`, the `Arrive` event)
/// is in its first two 64-byte lines, 128 bytes; the queue, the drop and per-level counters,
/// the code-point list and what monitors and lossy links add come after. At thousands of
/// flows the ports are far beyond the caches (4 a flow), and a hop cost a miss on each of the
/// five or six lines a 336-byte port spanned, and on the heap blocks of its per-level and
/// per-code-point counters besides (`cachegrind`, docs/performance.md, "Seventh round").
/// `PORT_HOT_BYTES` and the size test check the layout.
#[derive(Debug)]
#[repr(C, align(64))]
pub struct Port {
    // -- first line --
    /// Packets in `queue`, kept here as the discipline accepts (+1) and hands out (−1) packets,
    /// so that the packet path reads the port, not the discipline behind its `match` and box
    /// (issue 25). Equal to `queue.len_packets()`: no discipline gains or loses packets
    /// otherwise (only the test double `AnyQueue::Leaky`, which loses packets on purpose).
    qlen: u32,
    /// Nodes (indices); the port's name is "from->to" in node names (`World::port_name`: not
    /// stored, which saves 56 bytes a port; issue 28). (`from` is in the cold part.)
    pub to: u32,
    /// The capture writer (`World::captures`) of this port's departures, or `pcap::NONE`.
    capture: u32,
    /// A `TxDone` event is scheduled at `busy_until`.
    tx_pending: bool,
    /// `THROUGH_OK`, `THROUGH_SEEN`, `LOSSY`, `PASS_RIO`, `LOOK_AHEAD` (below).
    flags: u8,
    /// The first drop-precedence level this port has seen (`LEVEL_NONE`: none yet). Its
    /// counters are not kept while the run goes on: they are the port's totals less the other
    /// levels' (as the first code point's, `code_points`), so a packet-hop of the first level
    /// counts nothing per level, and a port that only sees one level has an empty
    /// `stats.levels`; packets of the other levels are counted in `stats.levels` (issue 25:
    /// before, a second level had every packet counted there). `list_levels` writes the first
    /// level's counters out, for the report and for monitored ports (from the start), and
    /// makes this `LEVEL_LISTED`: every level counted in `stats.levels`.
    level: u8,
    /// The first (direction, code point) key this port has seen, whose counts `by_cp` derives
    /// from the totals (`code_points`), or `code_points::FIRST_NONE` / `FIRST_LISTED`.
    cp_first: u8,
    /// The transmitter is busy until this instant.
    busy_until: SimTime,
    pub delay: SimDuration,
    /// Nanoseconds spent transmitting.
    busy_ns: u64,
    clock: TxClock,
    /// Packets being transmitted or propagating (their arrival instants, non-decreasing, in
    /// the pool: `Pool::wire_at`): the first three inline (`line`).
    line: line::Line,
    // -- second line --
    /// Its first four counters end the second line (`QueueStats` is `repr(C)`).
    pub stats: QueueStats,
    // -- the rest: not read by a packet-hop through an idle drop-tail port --
    pub queue: AnyQueue,
    /// Arrivals and drops by code point and direction but the first key's (`code_points`).
    by_cp: code_points::ByCodePoint,
    /// The queue discipline's own random stream (`queue/<from>-><to>`): only the RED family
    /// (RED, RIO, WRED, SIMA and schedulers of them) draws from it, so a drop-tail port has
    /// none (`AnyQueue::enqueue_port`; 24 bytes a port, issue 28).
    rng: Option<Box<Rng>>,
    /// What `[[monitor]]`s record of this queue, if any asked (`None`: nothing; a run with no
    /// watched port, monitor or capture does not test it, `World::run`).
    watch: Option<Box<Watch>>,
    /// Random loss at the end of the wire, with its own stream (`link/<from>-><to>`), and the
    /// packets it dropped; boxed, as few ports have one (`LOSSY` says whether there is one).
    loss: LinkLoss,
    pub from: u32,
}

/// A port's random loss at the end of its wire and the packets it dropped (`Port::loss`).
type LinkLoss = Option<Box<(Loss, u64)>>;

/// `Port::flags`: the queue is drop-tail and any packet fits it when empty (a limit in
/// packets, or one of at least 65,535 bytes, the largest packet): an arrival at an idle port
/// may go straight onto the wire (`World::enqueue`).
const THROUGH_OK: u8 = 1;
/// `Port::flags`: a packet went straight onto the wire (so the longest queue was at least 1;
/// `Port::settle_counts` puts that in `stats.max_len_packets`).
const THROUGH_SEEN: u8 = 2;
/// `Port::flags`: the port has a `loss` model.
const LOSSY: u8 = 4;
/// `Port::flags`: the queue is RIO: an arrival at an idle port with nothing queued is offered
/// to it and, if accepted, goes straight onto the wire (`AnyQueue::pass_port`).
const PASS_RIO: u8 = 8;
/// `Port::flags`: the world looks ahead: a packet this port sends has its next stop found as it
/// leaves, and what it will read there fetched meanwhile (`run::look_ahead`); its arrival takes
/// it from there (`run::arrive`). Every port of a world has it or none: those of at least
/// `LOOK_AHEAD_PORTS` ports (`World::build_looking_ahead`), whose per-flow state is out of the
/// caches by a flow's next packet; a smaller world's state stays in them, and the look-ahead
/// would only add instructions. A flag of the port's first line, tested with `LOSSY` at an
/// arrival.
const LOOK_AHEAD: u8 = 16;
/// `Port::level` before the first packet.
const LEVEL_NONE: u8 = 0xFF;
/// `Port::level` once the per-level counters are kept in `stats.levels`.
const LEVEL_LISTED: u8 = 0xFE;
/// The bytes at the start of a port that a packet-hop through an idle drop-tail port touches.
const PORT_HOT_BYTES: usize = 128;
const _: () = assert!(
    std::mem::offset_of!(Port, stats) + 4 * 8 <= PORT_HOT_BYTES
        && std::mem::offset_of!(QueueStats, departure_bytes) == 3 * 8
);
/// Five cache lines (336 bytes, unaligned, before branch scale7). Not in the test build, whose
/// test double `AnyQueue::Leaky` makes the queue longer (`ports_and_link_specs_stay_small`).
#[cfg(not(test))]
const _: () = assert!(std::mem::size_of::<Port>() == 5 * 64);

/// The look-ahead (`LOOK_AHEAD`) from this many ports on: about 500 flows of a dumbbell (four ports
/// each), whose state a packet-hop reads (the ports' first two lines, the TCP sender's first six
/// and the receiver's first two, the flow's counters: about 1.5 KiB a flow) outgrows the 1 MiB
/// second-level cache of this project's machine (issue 28). A choice of speed only: the output
/// is the same either way (a test runs both).
pub(crate) const LOOK_AHEAD_PORTS: usize = 2048;

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
    /// A port of a link from `from` to `to` with this queue, clock, delay and loss (of its own
    /// random streams).
    fn new(
        (from, to): (u32, u32),
        queue: AnyQueue,
        clock: TxClock,
        delay: SimDuration,
        (rng, loss): (Option<Box<Rng>>, LinkLoss),
    ) -> Port {
        Port {
            qlen: 0,
            to,
            capture: pcap::NONE,
            tx_pending: false,
            flags: Port::pass_flags(&queue) | if loss.is_some() { LOSSY } else { 0 },
            level: LEVEL_NONE,
            cp_first: code_points::FIRST_NONE,
            busy_until: SimTime::ZERO,
            delay,
            busy_ns: 0,
            clock,
            line: Default::default(),
            stats: QueueStats::with_levels(0),
            queue,
            by_cp: Default::default(),
            rng,
            watch: None,
            loss,
            from,
        }
    }

    /// Whether an arrival at an idle port may go straight onto the wire (`THROUGH_OK`).
    fn through_ok(queue: &AnyQueue) -> bool {
        // (the largest packet the loader accepts is 65,535 bytes)
        matches!(queue, AnyQueue::DropTail(q) if q.fits_when_empty(65_535))
    }

    /// `THROUGH_OK` or `PASS_RIO`, as the queue allows.
    fn pass_flags(queue: &AnyQueue) -> u8 {
        if Port::through_ok(queue) {
            THROUGH_OK
        } else if matches!(queue, AnyQueue::Rio(_)) {
            PASS_RIO
        } else {
            0
        }
    }

    /// Replaces the queue discipline (`World::replace_queue`, tests), `THROUGH_OK` and
    /// `PASS_RIO` with it.
    #[cfg(test)]
    fn set_queue(&mut self, queue: AnyQueue) {
        self.flags &= !(THROUGH_OK | PASS_RIO);
        self.flags |= Port::pass_flags(&queue);
        self.queue = queue;
    }

    /// Packets lost on the wire (`loss`).
    pub fn link_losses(&self) -> u64 {
        self.loss.as_ref().map_or(0, |l| l.1)
    }

    /// The per-level counters of a packet of `level` arriving (before the totals count it):
    /// none for the first level (`level`), whose counts the totals give.
    #[inline(always)]
    fn count_level_arrival(&mut self, level: usize) {
        if level != usize::from(self.level) {
            if self.level != LEVEL_NONE {
                self.stats.level_mut(level).arrivals += 1;
            } else {
                self.first_level(level);
            }
        }
    }

    /// Whether a departure or a queue drop of a packet of `level` is counted in `stats.levels`:
    /// not if it is of the first level, while that level's counts are the totals less the
    /// others' (`Port::level`).
    #[inline(always)]
    fn counts_level(&self, level: usize) -> bool {
        level != usize::from(self.level)
    }

    /// The port's first packet: its level is the first level.
    #[cold]
    #[inline(never)]
    fn first_level(&mut self, level: usize) {
        self.level = level as u8;
    }

    /// Writes the first level's counters into `stats.levels`, which then counts every level
    /// (`LEVEL_LISTED`). Exact at any moment: every arrival, departure and queue drop is in
    /// the totals, and those not of the first level in their own level's counters too, so the
    /// first level's are the totals less the others'.
    fn list_levels(&mut self) {
        if self.level != LEVEL_NONE && self.level != LEVEL_LISTED {
            let first = usize::from(self.level);
            let (mut arrivals, mut departures, mut drops) =
                (self.stats.arrivals, self.stats.departures, self.stats.drops);
            for (i, l) in self.stats.levels.iter().enumerate() {
                if i != first {
                    arrivals -= l.arrivals;
                    departures -= l.departures;
                    for (d, o) in drops.iter_mut().zip(l.drops) {
                        *d -= o;
                    }
                }
            }
            let l = self.stats.level_mut(first);
            debug_assert_eq!(*l, LevelStats::default());
            l.arrivals = arrivals;
            l.departures = departures;
            l.drops = drops;
        }
        self.level = LEVEL_LISTED;
    }

    /// Every counter where the report and the monitors read it: the per-level counters and
    /// those of the first code point listed, the longest queue at least 1 if a packet went
    /// straight through (issue 28, branch scale7: the packet path counts none of them at a
    /// port that sees one level and one code point). The port counts on as before afterwards.
    fn settle_counts(&mut self) {
        self.list_levels();
        self.by_cp.list_first(&mut self.cp_first, &self.stats);
        if self.flags & THROUGH_SEEN != 0 && self.stats.max_len_packets == 0 {
            self.stats.max_len_packets = 1;
        }
    }

    /// How many levels saw an arrival (the report's colour rows), without `settle_counts`.
    fn levels_seen(&self) -> usize {
        match self.level {
            LEVEL_NONE => 0,
            LEVEL_LISTED => self.stats.levels.iter().filter(|l| l.arrivals > 0).count(),
            // the first level's (not counted in `stats.levels`) and the others'
            first => {
                let others = self.stats.levels.iter().enumerate();
                1 + others
                    .filter(|&(i, l)| i != usize::from(first) && l.arrivals > 0)
                    .count()
            }
        }
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
    /// Events run, by kind (`Event::KINDS` order), and how many of them ran at the instant of
    /// the event before them (ties, ordered by when they were scheduled): the `event-census`
    /// feature only.
    #[cfg(feature = "event-census")]
    census: [u64; crate::sim::event::Event::KINDS.len()],
    #[cfg(feature = "event-census")]
    census_ties: u64,
    hops: u64,
    stop_reason: Option<StopReason>,
    /// Open pcap files (`net::pcap`), one per captured port, in `Spec::captures` order.
    captures: Vec<pcap::Writer>,
    /// One-way delays of delivered forward packets, per flow and per code point at delivery.
    /// (A flow's count and sum are its `FlowStats`'; the code points', every delivery's,
    /// counted as they come.)
    flow_delays: Vec<Delays>,
    class_delays: Box<[CountingDelays; 64]>,
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
