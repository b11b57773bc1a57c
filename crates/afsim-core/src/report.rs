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
    pub conservation: Conservation,
    pub engine: EngineCounts,
}

/// One flow's counters. Throughput counts IP bytes delivered inside [warmup, end].
#[derive(Clone, Debug, Serialize, PartialEq)]
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
    pub drops: std::collections::BTreeMap<String, u64>,
    pub drops_total: u64,
    pub len_packets_end: u64,
    pub max_len_packets: u64,
    /// Time-average queue length in packets over the whole run.
    pub mean_len_packets: f64,
    /// Bytes transmitted (framing included) / (rate × run time).
    pub utilization: f64,
}

/// The packet conservation identity of the whole run:
/// `sent = delivered + dropped + in_flight`, and `in_flight` equals what a walk over every
/// queue, transmitter and link finds.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Conservation {
    pub sent: u64,
    pub delivered: u64,
    /// Drops by place ("queue r1->r2", "node r1") and reason.
    pub dropped: std::collections::BTreeMap<String, std::collections::BTreeMap<String, u64>>,
    pub dropped_total: u64,
    /// Packets alive in the pool at the end.
    pub in_flight: u64,
    /// Packets found by walking queues, transmitters and links at the end.
    pub in_flight_walked: u64,
    pub holds: bool,
    /// Human-readable form of the identity with the numbers filled in.
    pub identity: String,
}

/// Engine counts (simulated, hence deterministic).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct EngineCounts {
    pub events: u64,
    /// Packet transmissions on links (each hop of each packet counts once).
    pub packet_hops: u64,
    pub packets_generated: u64,
    /// Most packets alive at once (the pool's size).
    pub pool_high_water: u64,
}

impl Report {
    /// The report as pretty JSON; byte-identical for the same scenario and seed.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("report serializes")
    }
}
