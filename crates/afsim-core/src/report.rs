//! The results of a run: per-flow and per-queue rows, the conservation identity, engine counts.
//!
//! Read this first: a `Report` holds only simulated quantities, so the same scenario and seed
//! give the same report, and `to_json` gives the same bytes. Wall-clock measurements (speed,
//! memory) are kept apart in `EngineStats::wall_*`, which `to_json` leaves out.

use std::borrow::Cow;
use std::sync::Arc;

use serde::Serialize;

mod pretty;

/// Everything a run produced.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Report {
    pub scenario: String,
    pub seed: u64,
    /// Simulated time at which the run ended, in seconds.
    pub end_time_s: f64,
    /// Why it ended: "duration", "max_packets" or "transfers_complete" (or "no_events").
    pub stop_reason: String,
    /// Start of the measured interval, in seconds.
    pub warmup_s: f64,
    pub flows: Vec<FlowRow>,
    pub queues: Vec<QueueRow>,
    /// Per queue and drop-precedence level (levels that saw packets only).
    pub colours: Vec<ColourRow>,
    /// Per queue, direction and code point (those that saw packets only): `colours` split so
    /// that AF13, best effort and ACKs sharing a level stay apart.
    pub code_points: Vec<CodePointRow>,
    pub conditioners: Vec<ConditionerRow>,
    /// Per flow group (`[[flow]]` entry): totals, spread and fairness.
    pub groups: Vec<GroupRow>,
    /// Per code point at delivery (classes that delivered packets): the one-way delay of
    /// the flows' forward packets.
    pub delay_classes: Vec<DelayClassRow>,
    /// Per Congestion Signaling Algorithm.
    pub csas: Vec<CsaRow>,
    /// Per SIMA core queue: its allowed drop precedence over the run.
    pub sima_queues: Vec<SimaQueueRow>,
    /// Per SIMA core queue, class and drop precedence (those that saw packets).
    pub sima_levels: Vec<SimaLevelRow>,
    pub conservation: Conservation,
    pub engine: EngineCounts,
    /// Valid but surely unmeant settings the loader found (`scenario::Warning`), in file order.
    pub warnings: Vec<crate::scenario::Warning>,
    /// Time series of the TCP senders that asked for one (`trace = true`), by flow name.
    /// Kept out of the JSON summary (they can be long); the bindings hand them over as columns.
    #[serde(skip)]
    pub traces: Vec<(String, crate::transport::tcp::trace::Trace)>,
    /// Time series (X, X_recv, p, R) of the TFRC senders that asked for one, by flow name.
    #[serde(skip)]
    pub tfrc_traces: Vec<(String, crate::transport::tfrc::trace::Trace)>,
    /// α over time of each CSA, by CSA name: (time s, α) at every change, starting value first.
    #[serde(skip)]
    pub alpha_traces: Vec<(String, Vec<(f64, f64)>)>,
    /// Queues sampled on a time grid (`[[monitor]]`), by queue name (`from->to`), in port order.
    #[serde(skip)]
    pub queue_series: Vec<(String, crate::metrics::series::QueueSeries)>,
    /// Per flow (the report's flows, in order), per interval: forward packets and bytes
    /// delivered and packets dropped (`[[monitor]] kind = "flows"`).
    #[serde(skip)]
    pub flow_series: Option<crate::metrics::series::CountSeries<3>>,
    /// Per conditioner, per interval: green, yellow and red packets, green, yellow and red
    /// bytes, drops (`[[monitor]] kind = "conditioners"`).
    #[serde(skip)]
    pub conditioner_series: Option<crate::metrics::series::CountSeries<7>>,
    /// Per monitored queue, per drop-precedence level and interval: arrivals, departures,
    /// drops and ECN marks (`[[monitor]] kind = "queue"`).
    #[serde(skip)]
    pub level_series: Vec<(String, crate::metrics::series::CountSeries<4>)>,
    /// Per monitored queue, per (direction, code point) seen and interval: arrivals, overflow
    /// drops, early drops and ECN marks (`[[monitor]] kind = "queue"`); keys `64 × reverse +
    /// DSCP`.
    #[serde(skip)]
    pub code_point_series: Vec<(String, crate::metrics::series::CodePointSeries<4>)>,
    /// Per monitored queue: its queueing delays (enqueue to the start of transmission).
    #[serde(skip)]
    pub queue_delays: Vec<(String, crate::metrics::delay::Distribution)>,
    /// Every event of the queues with an `events` monitor, by queue name.
    #[serde(skip)]
    pub queue_traces: Vec<(String, crate::metrics::trace::QueueTrace)>,
    /// Every packet a SIMA conditioner with `trace = true` marked, by conditioner name.
    #[serde(skip)]
    pub dp_traces: Vec<(String, crate::edge::conditioner::DpTrace)>,
}

/// Packets by SIMA drop precedence, `dp0_packets` … `dp7_packets` (flattened into the row that
/// holds them); `None` where no SIMA marker counted any.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct DpCounts {
    pub dp0_packets: Option<u64>,
    pub dp1_packets: Option<u64>,
    pub dp2_packets: Option<u64>,
    pub dp3_packets: Option<u64>,
    pub dp4_packets: Option<u64>,
    pub dp5_packets: Option<u64>,
    pub dp6_packets: Option<u64>,
    pub dp7_packets: Option<u64>,
}

impl DpCounts {
    /// The counts of `counts`, or all `None`.
    pub fn new(counts: Option<[u64; 8]>) -> Self {
        let c = |k: usize| counts.map(|a| a[k]);
        DpCounts {
            dp0_packets: c(0),
            dp1_packets: c(1),
            dp2_packets: c(2),
            dp3_packets: c(3),
            dp4_packets: c(4),
            dp5_packets: c(5),
            dp6_packets: c(6),
            dp7_packets: c(7),
        }
    }

    /// The count of drop precedence `dp` (0..=7).
    pub fn get(&self, dp: usize) -> Option<u64> {
        [
            self.dp0_packets,
            self.dp1_packets,
            self.dp2_packets,
            self.dp3_packets,
            self.dp4_packets,
            self.dp5_packets,
            self.dp6_packets,
            self.dp7_packets,
        ]
        .get(dp)
        .copied()
        .flatten()
    }
}

/// One SIMA core queue (`queue::sima`): its parameters, the averaged occupancies and allowed
/// drop precedence DP_a at the end, and how DP_a spent the run.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct SimaQueueRow {
    /// The queue ("from->to").
    pub queue: String,
    /// The real-time class's buffer.
    pub rt_limit_bytes: u64,
    /// The non-real-time class's buffer.
    pub nrt_limit_bytes: u64,
    pub rt_weight: f64,
    pub nrt_weight: f64,
    /// How the occupancies combine: "max", "sum" or "euclidean".
    pub occupancy: String,
    pub dpa_offset: f64,
    pub dpa_slope: f64,
    /// Averaged occupancies at the end, as fractions of each buffer.
    pub avg_rt_end: f64,
    pub avg_nrt_end: f64,
    pub dpa_end: u8,
    pub dpa_max: u8,
    /// Time-weighted mean of DP_a over the run.
    pub dpa_mean: f64,
    /// Fraction of the run DP_a spent at each value 0 … 8 (sums to 1).
    pub dpa_time_share: Vec<f64>,
}

/// One (service class, drop precedence) at one SIMA core queue.
/// Identity: `arrivals = departures + drops_below_dpa + drops_overflow + queued_end`.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct SimaLevelRow {
    /// The queue ("from->to").
    pub queue: String,
    /// "nrt" or "rt".
    pub class: String,
    /// The drop precedence (0 … 7).
    pub dp: u8,
    /// Packets of this class and DP offered, from time 0.
    pub arrivals: u64,
    /// Packets of this class and DP that left for the link.
    pub departures: u64,
    /// Dropped before buffering, the packet's DP being below DP_a.
    pub drops_below_dpa: u64,
    /// Admitted by DP_a but its buffer had no room.
    pub drops_overflow: u64,
    /// Packets queued when the run stopped.
    pub queued_end: u64,
    /// Drops ÷ arrivals.
    pub loss_ratio: f64,
}

/// One Congestion Signaling Algorithm controller (Giacomazzi et al.): a CSA's only one
/// (`scope = "shared"`, named as the CSA) or one per bucket (`"per_bucket"`, named
/// `csa/conditioner`).
/// Identity: `eighth_arrivals = decreases + suppressed + at_floor`; `t2_expiries = increases +
/// held`.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct CsaRow {
    /// The controller's name.
    pub name: String,
    /// The RIO queue it watches.
    pub queue: String,
    /// "shared" or "per_bucket".
    pub scope: String,
    /// "text" or "per_period" (`edge::csa::Rules`).
    pub rules: String,
    /// α when the run stopped.
    pub alpha_end: f64,
    /// The lowest α reached.
    pub alpha_min: f64,
    /// α's time average over the run, and the share of the run spent at min_α.
    pub alpha_mean: f64,
    /// Share of the run α spent at min_α.
    pub alpha_floor_share: f64,
    /// OUT packets that arrived at the watched queue.
    pub out_arrivals: u64,
    /// OUT arrivals while the queue was congested.
    pub congested_out_arrivals: u64,
    pub periods: u64,
    pub eighth_arrivals: u64,
    pub decreases: u64,
    pub suppressed: u64,
    pub at_floor: u64,
    pub t2_expiries: u64,
    pub increases: u64,
    pub held: u64,
    /// Control packets sent to remote border routers.
    pub signals_sent: u64,
}

/// One flow's counters. Throughput counts IP bytes delivered inside [warmup, end]
/// (retransmitted copies included); goodput counts TCP payload delivered in order.
/// Fields that do not apply to a flow's kind are `None` (JSON `null`).
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct FlowRow {
    /// The flow's name (a group's members are named group0, group1, …).
    pub name: String,
    // `group`, `kind`, `src` and `dst` are shared: by a group's rows, and with the queue rows'
    // node names (one string a node or a group instead of four copies a flow; issue 28)
    /// The `[[flow]]` entry it was expanded from.
    pub group: Arc<str>,
    /// "cbr", "tcp-<variant>", "tfrc" or "gtfrc" ("csa-signal" for a CSA's control packets).
    pub kind: Arc<str>,
    /// The node it starts at.
    pub src: Arc<str>,
    /// The node it goes to.
    pub dst: Arc<str>,
    /// Forward packets the source sent (data, TCP retransmissions included; the reverse
    /// direction's ACKs and feedback are not counted here), from time 0.
    pub packets_sent: u64,
    /// IP bytes of `packets_sent`.
    pub bytes_sent: u64,
    /// Forward packets that reached the flow's sink, from time 0.
    pub packets_delivered: u64,
    /// IP bytes of `packets_delivered`.
    pub bytes_delivered: u64,
    /// Forward packets dropped anywhere (queues, conditioners, link loss), from time 0.
    pub packets_dropped: u64,
    /// Forward packets still in the network when the run stopped
    /// (`packets_sent = packets_delivered + packets_dropped + packets_in_flight`).
    pub packets_in_flight: u64,
    /// Delivered IP bits in the measured interval / its length, in kb/s (1 kb = 1000 bits).
    pub throughput_kbps: f64,
    /// When its first packet was delivered.
    pub first_delivery_s: Option<f64>,
    /// When its last packet was delivered.
    pub last_delivery_s: Option<f64>,
    /// Finite transfers only: whether every packet was delivered or dropped, and when.
    pub finite: bool,
    /// A finite transfer that completed before the run stopped.
    pub completed: bool,
    /// When a finite transfer completed.
    pub completion_time_s: Option<f64>,
    /// Mean one-way delay of delivered forward packets, in seconds. Every delivered packet of the
    /// whole run, warm-up included.
    pub mean_delay_s: Option<f64>,
    /// Median one-way delay of delivered forward packets, whole run (as `mean_delay_s`), from
    /// an HDR histogram of 3 significant digits (at most 0.1 % above, `metrics::delay`), s.
    pub delay_p50_s: Option<f64>,
    /// 90th percentile of the one-way delay, whole run, as `delay_p50_s`, s.
    pub delay_p90_s: Option<f64>,
    /// 99th percentile of the one-way delay, whole run, as `delay_p50_s`, s.
    pub delay_p99_s: Option<f64>,
    /// Largest one-way delay of a delivered forward packet, whole run (exact), s.
    pub delay_max_s: Option<f64>,
    /// The code point the source marks its packets with.
    pub dscp: u8,
    /// TCP: in-order payload delivered in the measured interval / its length, kb/s.
    pub goodput_kbps: Option<f64>,
    /// TCP: in-order payload delivered over the whole run, bytes.
    pub goodput_bytes: Option<u64>,
    /// TCP: data segments sent again (retransmissions), whole run.
    pub retransmitted_packets: Option<u64>,
    /// TCP: payload bytes sent again (retransmissions).
    pub retransmitted_bytes: Option<u64>,
    /// TCP: retransmission timer expiries.
    pub timeouts: Option<u64>,
    /// TCP: entries into fast recovery (or SACK loss recovery).
    pub fast_recoveries: Option<u64>,
    /// TCP: window reductions on ECN-Echo.
    pub ecn_reductions: Option<u64>,
    /// TCP, TFRC: data packets that arrived CE-marked.
    pub ce_received: Option<u64>,
    /// TCP, TFRC: mean and standard deviation of the sender's RTT samples, seconds. Whole run.
    pub rtt_mean_s: Option<f64>,
    /// TCP, TFRC: standard deviation of the sender's RTT samples, seconds.
    pub rtt_std_s: Option<f64>,
    /// TFRC: time average of the allowed sending rate X over the measured interval, kb/s of
    /// segment bytes (RFC 5348 §3.1's s: headers excluded).
    pub x_kbps: Option<f64>,
    /// TFRC: mean X_recv of the feedback packets received in the measured interval, kb/s of
    /// segment bytes.
    pub x_recv_kbps: Option<f64>,
    /// TFRC: mean loss event rate p of the feedback packets sent in the measured interval.
    pub loss_event_rate: Option<f64>,
    /// TFRC: loss events the receiver detected (RFC 5348 §5.2), whole run.
    pub loss_events: Option<u64>,
    /// TFRC: feedback packets the receiver sent, whole run.
    pub feedback_packets: Option<u64>,
    /// TFRC: expiries of the sender's no-feedback timer, whole run.
    pub nofeedback_expiries: Option<u64>,
    /// Metered alone by an edge conditioner: its committed (contracted) rate, kb/s.
    pub contract_kbps: Option<f64>,
    /// Rate of the flow's green (conformant) packets leaving the meter, measured interval, kb/s.
    pub conformant_kbps: Option<f64>,
    /// Respect of Service (Giacomazzi et al. §V.B): conformant rate ÷ contracted rate. Over
    /// the measured interval.
    pub respect_of_service: Option<f64>,
    /// Throughput above the contract (negative below it), kb/s (Leung & Muppala). Over the
    /// measured interval.
    pub excess_kbps: Option<f64>,
    /// The flow's packets by the drop precedence SIMA access nodes gave them (`None` for a
    /// flow no SIMA conditioner marked).
    #[serde(flatten)]
    pub dp: DpCounts,
}

/// One drop-precedence level at one queue (the domain's colour table decides levels).
/// Identity: `arrivals = departures + drops_overflow + drops_early + queued_end`.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ColourRow {
    // `queue` is the port's one name string, shared with its queue and code-point rows, and
    // `colour` one string a level (issue 28)
    /// The queue ("from->to").
    pub queue: Arc<str>,
    /// Drop-precedence level in the domain's colour table (0 is dropped last).
    pub level: u8,
    /// "green", "yellow", "red" for levels 0–2, "level N" beyond.
    pub colour: Arc<str>,
    /// Packets of this level offered to the queue, from time 0.
    pub arrivals: u64,
    /// Packets of this level that left for the link.
    pub departures: u64,
    /// Packets of this level refused because the buffer was full (hard limit).
    pub drops_overflow: u64,
    /// RED-family drops of this level decided by the average queue: the random early drops
    /// and the forced ones (average above max_th) together; `drops_forced` is the forced
    /// part.
    pub drops_early: u64,
    /// The part of `drops_early` forced by the average (RED family; `None` otherwise).
    pub drops_forced: Option<u64>,
    /// ECN marks put on this level's packets (`None` for disciplines that never mark).
    pub ecn_marks: Option<u64>,
    /// Packets of this level queued when the run stopped.
    pub queued_end: u64,
    /// Drops of this level ÷ its arrivals (Giacomazzi's P_c,i / P_nc,i / P_be,i).
    pub loss_ratio: f64,
}

/// One code point at one queue, forward packets and the reverse direction's (TCP ACKs, TFRC
/// feedback) apart. `departures = arrivals − drops_overflow − drops_early − queued_end`
/// (derived, not counted); their sum over a level's code points is checked against the level's
/// counted departures (`colours`).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct CodePointRow {
    // strings shared as `ColourRow`'s (issue 28)
    /// The queue ("from->to").
    pub queue: Arc<str>,
    /// The code point's name ("AF11", "BE", …; "DSCP n" for one without a name).
    pub code_point: Cow<'static, str>,
    /// "forward" (data, from the flows' sources) or "reverse" (ACKs and feedback).
    pub direction: &'static str,
    /// Its drop-precedence level in the domain's colour table.
    pub level: u8,
    /// The level's colour ("green", "yellow", "red", "level N"), as in `colours`.
    pub colour: Arc<str>,
    /// Packets of this code point and direction offered to the queue, from time 0.
    pub arrivals: u64,
    /// Packets of this code point and direction that left for the link (derived, see above).
    pub departures: u64,
    /// Refused because the buffer was full.
    pub drops_overflow: u64,
    /// Dropped by a RED-family decision on the average (random early and forced drops).
    pub drops_early: u64,
    /// Packets queued when the run stopped.
    pub queued_end: u64,
    /// Drops ÷ arrivals.
    pub loss_ratio: f64,
}

/// One edge conditioner.
/// Identity: `matched = forwarded + dropped_policed + dropped_buffer + held_end`, and
/// `matched = green + yellow + red` packets metered (held packets are not metered yet); for a
/// SIMA meter also `matched = dp0 + … + dp7`, green being DP ≥ 4 and yellow DP < 4.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ConditionerRow {
    /// The conditioner's name (a group's members are named group0, group1, …).
    pub name: String,
    /// The node it sits at.
    pub node: String,
    /// The meter's kind ("token_bucket", "srtcm", "trtcm", …).
    pub meter: String,
    /// The meter's committed rate (CIR, token rate, target rate, NBR).
    pub committed_rate_bps: u64,
    /// Packets its classifier took, from time 0.
    pub matched: u64,
    /// Packets the meter coloured green (conformant), from time 0.
    pub green_packets: u64,
    /// Packets the meter coloured yellow.
    pub yellow_packets: u64,
    /// Packets the meter coloured red (three-colour meters).
    pub red_packets: u64,
    /// IP bytes of `green_packets`.
    pub green_bytes: u64,
    /// IP bytes of `yellow_packets`.
    pub yellow_bytes: u64,
    /// IP bytes of `red_packets`.
    pub red_bytes: u64,
    /// Packets it passed on (kept, marked or downgraded).
    pub forwarded: u64,
    /// Packets a `drop` action discarded.
    pub dropped_policed: u64,
    /// Packets a shaper or enhanced token bucket could not hold (its buffer full).
    pub dropped_buffer: u64,
    /// Packets held by a shaper when the run stopped.
    pub held_end: u64,
    /// The most packets a shaper held at once.
    pub max_held: u64,
    /// Green bytes leaving the meter in the measured interval, kb/s.
    pub conformant_kbps: f64,
    /// Conformant rate ÷ committed rate, for the aggregate this conditioner meters. Over
    /// the measured interval.
    pub respect_of_service: f64,
    /// Distinct flows whose packets it metered (whole run).
    pub flows: u64,
    /// The contracted rate of what it meters, kb/s: the committed rate (per flow seen, for a
    /// per-flow meter).
    pub contract_kbps: f64,
    /// The throughput delivered to their destinations of the flows it metered (the sum of
    /// their `throughput_kbps`: IP bytes, measured interval), kb/s.
    pub delivered_kbps: f64,
    /// Respect of Service from delivered traffic: `delivered_kbps ÷ contract_kbps`
    /// (Giacomazzi et al. §V.B define RoS on the conformant rate, `respect_of_service`; this is
    /// what the customer received against the contract). Over the measured interval.
    pub delivered_ros: f64,
    /// SIMA meter: the packets it marked, by drop precedence (`None` for other meters).
    #[serde(flatten)]
    pub dp: DpCounts,
}

/// One-way delay of the packets delivered with one code point (the one they carry at
/// delivery, after every conditioner), forward packets of every flow, whole run; percentiles
/// within 0.1 % (`metrics::delay`).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct DelayClassRow {
    /// The code point the packets carried at delivery.
    pub dscp: u8,
    /// The code point's name ("AF11", "BE"), or its number.
    pub code_point: String,
    /// Forward packets delivered with this code point over the whole run.
    pub packets: u64,
    /// Their mean one-way delay over the whole run, s.
    pub mean_delay_s: f64,
    /// Their median one-way delay over the whole run (HDR histogram, at most 0.1 % above), s.
    pub delay_p50_s: f64,
    /// Their 90th percentile of one-way delay over the whole run, s.
    pub delay_p90_s: f64,
    /// Their 99th percentile of one-way delay over the whole run, s.
    pub delay_p99_s: f64,
    /// Their largest one-way delay over the whole run (exact), s.
    pub delay_max_s: f64,
}

/// One flow group: every flow expanded from one `[[flow]]` entry.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct GroupRow {
    /// The group's name (its `[[flow]]` entry).
    pub name: String,
    /// Flows in the group.
    pub flows: u64,
    /// Sum of its flows' `throughput_kbps` (measured interval).
    pub throughput_kbps_total: f64,
    /// The lowest of its flows' `throughput_kbps`.
    pub throughput_kbps_min: f64,
    /// The median of its flows' `throughput_kbps`.
    pub throughput_kbps_median: f64,
    /// The highest of its flows' `throughput_kbps`.
    pub throughput_kbps_max: f64,
    /// Jain's fairness index of the flows' throughputs. Over the measured interval.
    pub jain: Option<f64>,
    /// TCP groups: total goodput, kb/s. Over the measured interval.
    pub goodput_kbps_total: Option<f64>,
    /// FIEB (Leung & Muppala) over the flows' throughputs and contracts, when every flow of the
    /// group has a contract. Over the measured interval.
    pub fieb: Option<f64>,
    /// The contracts of the conditioners that meter only this group's flows, summed, kb/s,
    /// when together they meter every flow of the group (`None` otherwise).
    pub contract_kbps: Option<f64>,
    /// `throughput_kbps_total ÷ contract_kbps`: Respect of Service from delivered traffic.
    /// Over the measured interval.
    pub delivered_ros: Option<f64>,
}

/// A queue's drops by reason: (name, count) for each reason a queue can drop for, in name
/// order; written as the map `{"early": n, "overflow": m}`, as the `BTreeMap<String, u64>` it
/// replaced, which took about 420 bytes of heap a queue (400,000 queues at 100,000 flows;
/// issue 28).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QueueDrops(pub [(&'static str, u64); 2]);

impl QueueDrops {
    /// From (reason, count) pairs in any order; `None` unless there are exactly two.
    pub fn new(pairs: impl IntoIterator<Item = (&'static str, u64)>) -> Option<Self> {
        let mut a: [(&'static str, u64); 2] =
            pairs.into_iter().collect::<Vec<_>>().try_into().ok()?;
        a.sort_unstable_by_key(|&(k, _)| k);
        Some(QueueDrops(a))
    }

    /// The reasons' names, in order.
    pub fn keys(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.0.iter().map(|&(k, _)| k)
    }

    /// The count of `reason`, if it is one of the reasons.
    pub fn get(&self, reason: &str) -> Option<u64> {
        self.0.iter().find(|&&(k, _)| k == reason).map(|&(_, v)| v)
    }
}

impl std::ops::Index<&str> for QueueDrops {
    type Output = u64;
    fn index(&self, reason: &str) -> &u64 {
        let i = self.0.iter().position(|&(k, _)| k == reason);
        &self.0[i.unwrap_or_else(|| panic!("no drop reason '{reason}'"))].1
    }
}

impl Serialize for QueueDrops {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

/// One output queue (one direction of a link).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct QueueRow {
    // `name` is shared with the port's colour and code-point rows (issue 28)
    /// "from->to".
    pub name: Arc<str>,
    // `node` and `to` are shared by the rows of a node's ports: one string a node, not two
    // copies a port (issue 28).
    /// The node whose output port it is.
    pub node: Arc<str>,
    /// The neighbour the port sends to.
    pub to: Arc<str>,
    /// "droptail", "red", "rio", "wred", "scheduler" or "sima".
    pub discipline: &'static str,
    /// The link direction's rate.
    pub rate_bps: u64,
    /// Packets offered to the queue, from time 0.
    pub arrivals: u64,
    /// IP bytes of `arrivals`.
    pub arrival_bytes: u64,
    /// Packets that left the queue for the link, from time 0.
    pub departures: u64,
    /// IP bytes of `departures`.
    pub departure_bytes: u64,
    /// Drops by reason name ("overflow", "early", ...), every reason present, zero or not.
    pub drops: QueueDrops,
    /// Every drop of this queue: the sum of the `drops_<reason>` columns.
    pub drops_total: u64,
    /// The part of the early drops forced by the average (RED family; `None` otherwise).
    pub drops_forced: Option<u64>,
    /// ECN marks put on packets (RED family with ECN; `None` for disciplines that never mark).
    pub ecn_marks: Option<u64>,
    /// Packets queued when the run stopped.
    pub len_packets_end: u64,
    /// The longest the queue was, in packets.
    pub max_len_packets: u64,
    /// Time-average queue length in packets over the whole run.
    pub mean_len_packets: f64,
    /// Bytes transmitted (framing included) / (rate × run time). Whole run.
    pub utilization: f64,
    /// Packets the link direction lost at random after this queue sent them (`loss`); they
    /// are not part of `drops`.
    pub link_losses: u64,
}

/// The packet conservation identity of the whole run (`metrics::conservation` computes it).
pub use crate::metrics::conservation::Conservation;

/// Engine counts (simulated, hence deterministic).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct EngineCounts {
    pub events: u64,
    /// Packet transmissions on links (each hop of each packet counts once).
    pub packet_hops: u64,
    pub packets_generated: u64,
    /// Of which the flows' sources generated (data and SYNs: not ACKs nor control packets).
    pub data_packets_generated: u64,
    /// Most packets alive at once (the pool's size).
    pub pool_high_water: u64,
}

impl Report {
    /// The report as pretty JSON; byte-identical for the same scenario and seed.
    pub fn to_json(&self) -> String {
        let mut out = Vec::with_capacity(1 << 16);
        self.write_json(&mut out).expect("report serializes");
        // SAFETY: serde_json writes UTF-8 only (its strings are `&str`, escaped in ASCII; its
        // structure and numbers ASCII), as its own `to_string_pretty` relies on
        unsafe { String::from_utf8_unchecked(out) }
    }

    /// Writes `to_json`'s bytes to `out` as they are made, without the whole text in memory
    /// (more than 2 GiB at a million flows; issue 28). The first error of `out` stops it.
    /// (serde_json's pretty layout, written by `pretty::Pretty`: the same bytes in fewer writes.)
    pub fn write_json<W: std::io::Write>(&self, out: W) -> std::io::Result<()> {
        let mut ser = serde_json::Serializer::with_formatter(out, pretty::Pretty::default());
        self.serialize(&mut ser).map_err(std::io::Error::from)
    }

    /// `to_json` without the `flows` and `queues` rows (compact): what a reader needs besides
    /// the two tables it takes as columns. At 100,000 flows the whole report is 430 MB of
    /// JSON, and parsed into Python objects it took most of `afsim run`'s 1.9 GB (issue 28).
    pub fn head_json(&self) -> String {
        /// `Report`'s serialized fields in its order, but `flows` and `queues`.
        #[derive(Serialize)]
        struct Head<'a> {
            scenario: &'a str,
            seed: u64,
            end_time_s: f64,
            stop_reason: &'a str,
            warmup_s: f64,
            colours: &'a [ColourRow],
            code_points: &'a [CodePointRow],
            conditioners: &'a [ConditionerRow],
            groups: &'a [GroupRow],
            delay_classes: &'a [DelayClassRow],
            csas: &'a [CsaRow],
            sima_queues: &'a [SimaQueueRow],
            sima_levels: &'a [SimaLevelRow],
            conservation: &'a Conservation,
            engine: &'a EngineCounts,
            warnings: &'a [crate::scenario::Warning],
        }
        let r = self;
        serde_json::to_string(&Head {
            scenario: &r.scenario,
            seed: r.seed,
            end_time_s: r.end_time_s,
            stop_reason: &r.stop_reason,
            warmup_s: r.warmup_s,
            colours: &r.colours,
            code_points: &r.code_points,
            conditioners: &r.conditioners,
            groups: &r.groups,
            delay_classes: &r.delay_classes,
            csas: &r.csas,
            sima_queues: &r.sima_queues,
            sima_levels: &r.sima_levels,
            conservation: &r.conservation,
            engine: &r.engine,
            warnings: &r.warnings,
        })
        .expect("report serializes")
    }
}
