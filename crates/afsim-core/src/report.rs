//! The results of a run: per-flow and per-queue rows, the conservation identity, engine counts.
//!
//! Read this first: a `Report` holds only simulated quantities, so the same scenario and seed
//! give the same report, and `to_json` gives the same bytes. Wall-clock measurements (speed,
//! memory) are kept apart in `EngineStats::wall_*`, which `to_json` leaves out.

use serde::Serialize;

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
    pub conditioners: Vec<ConditionerRow>,
    /// Per flow group (`[[flow]]` entry): totals, spread and fairness.
    pub groups: Vec<GroupRow>,
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
    pub queue: String,
    pub rt_limit_bytes: u64,
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
    pub queue: String,
    /// "nrt" or "rt".
    pub class: String,
    pub dp: u8,
    pub arrivals: u64,
    pub departures: u64,
    /// Dropped before buffering, the packet's DP being below DP_a.
    pub drops_below_dpa: u64,
    /// Admitted by DP_a but its buffer had no room.
    pub drops_overflow: u64,
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
    pub name: String,
    /// The RIO queue it watches.
    pub queue: String,
    /// "shared" or "per_bucket".
    pub scope: String,
    /// "text" or "per_period" (`edge::csa::Rules`).
    pub rules: String,
    pub alpha_end: f64,
    /// The lowest α reached.
    pub alpha_min: f64,
    /// α's time average over the run, and the share of the run spent at min_α.
    pub alpha_mean: f64,
    pub alpha_floor_share: f64,
    pub out_arrivals: u64,
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
    pub name: String,
    pub group: String,
    pub kind: String,
    pub src: String,
    pub dst: String,
    pub packets_sent: u64,
    pub bytes_sent: u64,
    pub packets_delivered: u64,
    pub bytes_delivered: u64,
    pub packets_dropped: u64,
    pub packets_in_flight: u64,
    /// Delivered IP bits in the measured interval / its length, in kb/s (1 kb = 1000 bits).
    pub throughput_kbps: f64,
    pub first_delivery_s: Option<f64>,
    pub last_delivery_s: Option<f64>,
    /// Finite transfers only: whether every packet was delivered or dropped, and when.
    pub finite: bool,
    pub completed: bool,
    pub completion_time_s: Option<f64>,
    /// Mean one-way delay of delivered packets, in seconds.
    pub mean_delay_s: Option<f64>,
    /// The code point the source marks its packets with.
    pub dscp: u8,
    /// TCP: in-order payload delivered in the measured interval / its length, kb/s.
    pub goodput_kbps: Option<f64>,
    /// TCP: in-order payload delivered over the whole run, bytes.
    pub goodput_bytes: Option<u64>,
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
    /// TCP, TFRC: mean and standard deviation of the sender's RTT samples, seconds.
    pub rtt_mean_s: Option<f64>,
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
    /// Respect of Service (Giacomazzi et al. §V.B): conformant rate ÷ contracted rate.
    pub respect_of_service: Option<f64>,
    /// Throughput above the contract (negative below it), kb/s (Leung & Muppala).
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
    pub queue: String,
    pub level: u8,
    /// "green", "yellow", "red" for levels 0–2, "level N" beyond.
    pub colour: String,
    pub arrivals: u64,
    pub departures: u64,
    pub drops_overflow: u64,
    pub drops_early: u64,
    /// The part of `drops_early` forced by the average (RED family; `None` otherwise).
    pub drops_forced: Option<u64>,
    /// ECN marks put on this level's packets (`None` for disciplines that never mark).
    pub ecn_marks: Option<u64>,
    pub queued_end: u64,
    /// Drops of this level ÷ its arrivals (Giacomazzi's P_c,i / P_nc,i / P_be,i).
    pub loss_ratio: f64,
}

/// One edge conditioner.
/// Identity: `matched = forwarded + dropped_policed + dropped_buffer + held_end`, and
/// `matched = green + yellow + red` packets metered (held packets are not metered yet); for a
/// SIMA meter also `matched = dp0 + … + dp7`, green being DP ≥ 4 and yellow DP < 4.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ConditionerRow {
    pub name: String,
    pub node: String,
    pub meter: String,
    pub committed_rate_bps: u64,
    pub matched: u64,
    pub green_packets: u64,
    pub yellow_packets: u64,
    pub red_packets: u64,
    pub green_bytes: u64,
    pub yellow_bytes: u64,
    pub red_bytes: u64,
    pub forwarded: u64,
    pub dropped_policed: u64,
    pub dropped_buffer: u64,
    pub held_end: u64,
    pub max_held: u64,
    /// Green bytes leaving the meter in the measured interval, kb/s.
    pub conformant_kbps: f64,
    /// Conformant rate ÷ committed rate, for the aggregate this conditioner meters.
    pub respect_of_service: f64,
    /// SIMA meter: the packets it marked, by drop precedence (`None` for other meters).
    #[serde(flatten)]
    pub dp: DpCounts,
}

/// One flow group: every flow expanded from one `[[flow]]` entry.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct GroupRow {
    pub name: String,
    pub flows: u64,
    pub throughput_kbps_total: f64,
    pub throughput_kbps_min: f64,
    pub throughput_kbps_median: f64,
    pub throughput_kbps_max: f64,
    /// Jain's fairness index of the flows' throughputs.
    pub jain: Option<f64>,
    /// TCP groups: total goodput, kb/s.
    pub goodput_kbps_total: Option<f64>,
    /// FIEB (Leung & Muppala) over the flows' throughputs and contracts, when every flow of the
    /// group has a contract.
    pub fieb: Option<f64>,
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
    /// "from->to".
    pub name: String,
    pub node: String,
    pub to: String,
    pub discipline: String,
    pub rate_bps: u64,
    pub arrivals: u64,
    pub arrival_bytes: u64,
    pub departures: u64,
    pub departure_bytes: u64,
    /// Drops by reason name ("overflow", "early", ...), every reason present, zero or not.
    pub drops: QueueDrops,
    pub drops_total: u64,
    /// The part of the early drops forced by the average (RED family; `None` otherwise).
    pub drops_forced: Option<u64>,
    /// ECN marks put on packets (RED family with ECN; `None` for disciplines that never mark).
    pub ecn_marks: Option<u64>,
    pub len_packets_end: u64,
    pub max_len_packets: u64,
    /// Time-average queue length in packets over the whole run.
    pub mean_len_packets: f64,
    /// Bytes transmitted (framing included) / (rate × run time).
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
        serde_json::to_string_pretty(self).expect("report serializes")
    }
}
