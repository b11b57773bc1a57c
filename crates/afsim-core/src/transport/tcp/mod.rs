//! TCP: a bulk-data sender (Reno, NewReno or SACK, with optional ECN) and its receiver.
//!
//! Read this first.
//! - Sources: RFC 5681 (slow start, congestion avoidance, fast retransmit / fast recovery —
//!   "Reno"), RFC 6582 (NewReno partial ACKs), RFC 2018 (SACK option) and RFC 6675 (SACK-based
//!   loss recovery), RFC 6298 (retransmission timer), RFC 3168 §6.1 (ECN in TCP), RFC 1122
//!   §4.2.3.2 and RFC 5681 §4.2 (delayed ACKs), RFC 3042 (limited transmit, optional). Where a
//!   rule leaves a choice, afsim follows ns-2.35's one-way agents (`Agent/TCP/Reno`,
//!   `Agent/TCP/Newreno`, `Agent/TCP/Sack1`, `Agent/TCPSink`, `Agent/TCPSink/DelAck`,
//!   `Agent/TCPSink/Sack1`), which produced the numbers of the papers afsim reproduces.
//! - Shape: one flow = a `sender::Sender` at the source node and a `receiver::Receiver` at
//!   the sink. Data flows one way (`Packet::rev == false`); the receiver returns 40-byte ACKs
//!   (`rev == true`, plus 8 bytes per SACK block as ns-2 counts them). Sequence numbers are
//!   bytes from 0 (`th.seq` = first payload byte, `th.ack` = next byte expected). The scenario
//!   gives the IP size of a full data segment (`Params::packet_size`); the TCP/IP header is 40
//!   bytes, so MSS = `packet_size` − 40.
//! - Units: cwnd and ssthresh are reported in bytes. Inside, the sender keeps them as `f64`
//!   counts of full segments, so that with full-sized segments the arithmetic is exactly
//!   ns-2's packet-counted arithmetic (slow start +1 per new ACK, congestion avoidance +1/cwnd
//!   per ACK, a window of ⌊cwnd⌋ whole segments).
//! - Two sets of defaults: `Params::default()` follows the RFCs (1 s minimum and initial RTO,
//!   FlightSize-based ssthresh); `Params::ns2()` sets ns-2.35's values and quirks
//!   (`ns2_compat`, listed on that field).
//!
//! Files: `sender` (congestion control and loss recovery), `receiver` (cumulative ACKs, SACK
//! blocks, delayed ACKs, ECN echo), `rto` (RFC 6298 estimator with a coarse clock tick),
//! `sack` (the RFC 6675 scoreboard), `trace` (optional cwnd/ssthresh/srtt/rto time series),
//! `sustain` (Leung & Muppala's Throughput Sustaining Scheme: a floor under reductions).
//!
//! Not modelled: connection teardown (FIN), RST, the receiver's window as a header field (the
//! receiver's buffer is read at once, so its window is the constant `max_window_bytes`),
//! window scaling, timestamps (RFC 7323), Nagle, D-SACK, F-RTO, PRR, pacing, maximum burst.

pub mod cc;
pub mod receiver;
pub mod rto;
pub mod sack;
pub mod sender;
pub mod sustain;
pub mod trace;

#[cfg(test)]
mod tests;

use std::fmt;

use crate::sim::time::{SimDuration, SimTime};

/// Bytes of TCP/IP header in every segment (20 IP + 20 TCP, no options; ns-2
/// `tcpip_base_hdr_size_`).
pub const HEADER_BYTES: u32 = 40;

/// Bytes a SACK block adds to an ACK, as ns-2's `Sacker::append_ack` counts them (RFC 2018 §3:
/// 8 bytes per block; the 2-byte kind/length and padding are not counted).
pub const SACK_BLOCK_BYTES: u32 = 8;

/// SACK blocks an ACK carries at most (RFC 2018 §3, with the timestamp option in use; ns-2
/// `maxSackBlocks_` 3).
pub const MAX_SACK_BLOCKS: usize = 3;

/// TCP header flags: they are the packet's (`net::packet::tcp_flags`), named here as TCP's.
pub use crate::net::packet::tcp_flags as flags;

/// Which loss recovery the sender runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// RFC 5681 fast retransmit / fast recovery: any new ACK ends recovery.
    Reno,
    /// RFC 6582: recovery lasts until all data outstanding at its start is acknowledged;
    /// each partial ACK retransmits the next hole.
    NewReno,
    /// RFC 6675 SACK-based recovery with a scoreboard; the receiver sends SACK blocks
    /// (RFC 2018). Without SACK permitted in the handshake it falls back to NewReno. With
    /// `ns2_compat`, ns-2.35's `Sack1` recovery instead (`sender`).
    Sack,
}

impl Variant {
    pub const ALL: [Variant; 3] = [Variant::Reno, Variant::NewReno, Variant::Sack];

    pub fn name(self) -> &'static str {
        match self {
            Variant::Reno => "reno",
            Variant::NewReno => "newreno",
            Variant::Sack => "sack",
        }
    }

    pub fn from_name(s: &str) -> Option<Variant> {
        Variant::ALL.into_iter().find(|v| v.name() == s)
    }
}

/// A parameter that fails validation: which field, and why.
#[derive(Clone, Debug, PartialEq)]
pub struct ParamError {
    pub field: &'static str,
    pub message: String,
}

impl ParamError {
    fn new(field: &'static str, message: impl Into<String>) -> Self {
        ParamError {
            field,
            message: message.into(),
        }
    }
}

impl fmt::Display for ParamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

impl std::error::Error for ParamError {}

/// What the user sets for one TCP flow; both ends read the same `Params`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Params {
    /// Loss recovery. Default `NewReno`.
    pub variant: Variant,
    /// IP size of a full data segment, bytes, headers included (ns-2 `packetSize_`); MSS is
    /// this minus `HEADER_BYTES`. Default 1000.
    pub packet_size: u32,
    /// The receiver's advertised window, bytes (ns-2 `window_`, in packets there); it also
    /// caps the initial ssthresh (ns-2 sets `ssthresh_ = window_`). Use a multiple of the MSS
    /// to match ns-2. Default 20 full segments of the default size (19 200).
    pub max_window_bytes: u64,
    /// Initial congestion window, segments (ns-2 `windowInit_`). Default 1. (ns-2.35's
    /// ns-default.tcl says 2; RFC 5681 §3.1 allows up to 4 by size.)
    pub initial_window_segments: u32,
    /// Duplicate ACKs that trigger fast retransmit (RFC 5681 §3.2, ns-2 `numdupacks_`).
    /// Default 3.
    pub dupack_threshold: u32,
    /// RFC 3042 limited transmit: a new segment on each of the first two duplicate ACKs.
    /// Default false (ns-2.35 `singledup_` is 1; Fall & Floyd's TCPs had none).
    pub limited_transmit: bool,
    /// Clock granularity of RTT measurement and RTO (ns-2 `tcpTick_`). Default 10 ms
    /// (ns-2.35); Giacomazzi et al. use 500 ms.
    pub tick: SimDuration,
    /// RTO before the first RTT sample (RFC 6298 §2.1: 1 s; ns-2.35 `rtxcur_init_` 3 s).
    pub initial_rto: SimDuration,
    /// Lower bound of the RTO before backoff (RFC 6298 §2.4: 1 s; ns-2.35 `minrto_` 0.2 s).
    pub min_rto: SimDuration,
    /// Upper bound of the backed-off RTO (RFC 6298 §2.5: at least 60 s; ns-2.35 `maxrto_` 60).
    /// Default 60 s.
    pub max_rto: SimDuration,
    /// ECN-capable transport (RFC 3168). Default false.
    pub ecn: bool,
    /// Model the SYN / SYN-ACK exchange before data (ECN and SACK are negotiated in it).
    /// Off: ns-2's one-way TCP, data from `start`, ECN and SACK assumed agreed. Default false.
    pub handshake: bool,
    /// The receiver delays ACKs (RFC 5681 §4.2: an ACK for every second full segment, or
    /// when `delayed_ack_interval` runs out). Default false (ns-2 `TCPSink` ACKs every segment).
    pub delayed_ack: bool,
    /// Delayed-ACK timer (ns-2 `DelAckSink interval_` 100 ms; RFC 1122 §4.2.3.2: < 0.5 s).
    pub delayed_ack_interval: SimDuration,
    /// With `delayed_ack`, the receiver's first `quick_acks` ACKs of data are sent at once,
    /// one per segment: Linux's quick-ACK mode at a connection's start (`receiver`). Default 0
    /// (RFC 5681 §4.2 and ns-2's `DelAckSink`: every second segment from the first).
    pub quick_acks: u32,
    /// Bytes to transfer; `None` = greedy ("always has data", an FTP source). Default `None`.
    pub transfer_bytes: Option<u64>,
    /// When the sender starts (the SYN, or the first data segment).
    pub start: SimTime,
    /// Reproduce ns-2.35 where it departs from the RFCs (the list is in `sender`'s module
    /// doc): ssthresh = ⌊min(cwnd, rwnd)/2⌋ segments instead of FlightSize/2, cwnd =
    /// min(cwnd, rwnd)/2 unrounded; the ACK that ends fast recovery also opens cwnd; every
    /// timeout halves ssthresh again; Reno refuses a second fast retransmit in the same window
    /// (`bugFix_`); fast retransmit restarts the retransmit timer; slow start adds one segment
    /// per ACK however little it acknowledges, and the ACK of segment 0 alone does not grow
    /// the window (`delay_growth_`); limited transmit resends old segments during go-back-N
    /// (`send_one`); ns-2's ECN response (ECT and CWR also on retransmissions, cwnd below one
    /// segment after a timeout, `ecn_backoff_`); SACK recovery is `Sack1`'s. The RTO
    /// arithmetic is ns-2's in both modes (`rto`). Default false.
    pub ns2_compat: bool,
    /// Record the sender's time series (`trace::Trace`). Default false.
    pub trace: bool,
    /// Congestion control (`cc`): Reno (the default: RFC 5681's window growth), CUBIC (RFC
    /// 9438) or BBR v1 (paced). CUBIC and BBR need the `rfc` preset.
    pub cc: cc::CcKind,
    /// HyStart++ (RFC 9406) in CUBIC's first slow start. Default false.
    pub hystart: bool,
    /// Linux `tcp_cubic.c`'s HyStart instead (`hystart = "linux"`). Default false.
    pub hystart_linux: bool,
    /// Linux `tcp_bbr.c` behaviours beyond draft-cardwell-…-00 (`ack_aggregation`,
    /// `quantization_budget`, `policer_detection`; `cc::bbr_linux`). Default: all off.
    pub bbr_linux: cc::bbr::Linux,
    /// RACK-TLP loss detection (RFC 8985, `sender/rack.rs`) in SACK recovery. Needs `variant
    /// = Sack` and the `rfc` preset. Default false.
    pub rack: bool,
    /// An RTT sample from every ACK that newly acknowledges or SACKs a segment sent once, as
    /// Linux takes them (`tcp_ack_update_rtt`; RACK's per-segment send times, so it needs
    /// `rack`), instead of RFC 6298's one timed segment per round trip. Default false.
    pub rtt_every_ack: bool,
    /// PRR as Linux's `tcp_cwnd_reduction` (`prr = "linux"`, with `prr`): PRR-SSRB's extra
    /// segment only on an ACK that advances SND.UNA and marks nothing newly lost (RFC 9937's
    /// SafeACK). Default false.
    pub prr_linux: bool,
    /// Proportional Rate Reduction (RFC 6937, PRR-SSRB; `sender/prr.rs`) sets cwnd in SACK
    /// recovery (with or without `rack`), for `cc` reno and cubic (BBR sets its own window, as
    /// in Linux). Needs `variant = Sack` and the `rfc` preset. Default false.
    pub prr: bool,
    /// Window growth counted by the segments each ACK acknowledges, as Linux does
    /// (`net/ipv4/tcp_cong.c`): slow start adds every segment acknowledged, up to ssthresh,
    /// and carries the rest into congestion avoidance (`tcp_slow_start`), which adds one
    /// segment per cwnd segments acknowledged (`tcp_cong_avoid_ai`; RFC 3465 §2.1's
    /// `bytes_acked` counter, in segments). Off (the default): RFC 5681 §3.1 counts ACKs —
    /// eq. (2), min(N, SMSS) per ACK in slow start, and SMSS·SMSS/cwnd per ACK in congestion
    /// avoidance — so a receiver that delays its ACKs halves the growth. Applies to Reno, and
    /// to CUBIC's slow start (CUBIC's congestion avoidance counts segments already, RFC 9438
    /// §4.3). Needs the `rfc` preset. Default false.
    pub byte_counting: bool,
    /// CUBIC's Reno-friendly region as Linux's `tcp_friendliness` (`reno_friendly =
    /// "linux"`; `cc::cubic`) instead of RFC 9438 §4.3. Default false.
    pub cubic_linux_friendly: bool,
    /// Leung & Muppala's Throughput Sustaining Scheme (`sustain`): after a window reduction,
    /// cwnd and ssthresh are not set below target × SRTT / packet_size. Bits per second of IP
    /// packets; `None` (the default): plain TCP.
    /// (`NonZeroU64`: a zero target is refused where the scenario is read, and the option
    /// costs 8 bytes, not 16, in every flow's parameters; issue 28's memory per flow.)
    pub target_rate_bps: Option<std::num::NonZeroU64>,
}

impl Default for Params {
    fn default() -> Self {
        let packet_size = 1000;
        Params {
            variant: Variant::NewReno,
            packet_size,
            max_window_bytes: 20 * u64::from(packet_size - HEADER_BYTES),
            initial_window_segments: 1,
            dupack_threshold: 3,
            limited_transmit: false,
            tick: SimDuration::from_millis(10),
            initial_rto: SimDuration::from_secs(1),
            min_rto: SimDuration::from_secs(1),
            max_rto: SimDuration::from_secs(60),
            ecn: false,
            handshake: false,
            delayed_ack: false,
            delayed_ack_interval: SimDuration::from_millis(100),
            quick_acks: 0,
            transfer_bytes: None,
            start: SimTime::ZERO,
            ns2_compat: false,
            trace: false,
            cc: cc::CcKind::Reno,
            hystart: false,
            hystart_linux: false,
            bbr_linux: cc::bbr::Linux::default(),
            rack: false,
            rtt_every_ack: false,
            prr: false,
            prr_linux: false,
            byte_counting: false,
            cubic_linux_friendly: false,
            target_rate_bps: None,
        }
    }
}

impl Params {
    /// ns-2.35's defaults (ns-default.tcl): 200 ms minimum RTO, 3 s initial RTO, 10 ms tick,
    /// and `ns2_compat`. The initial window stays 1 (see `initial_window_segments`).
    pub fn ns2() -> Self {
        Params {
            min_rto: SimDuration::from_millis(200),
            initial_rto: SimDuration::from_secs(3),
            ns2_compat: true,
            ..Params::default()
        }
    }

    /// Maximum segment size: payload bytes of a full segment.
    pub fn mss(&self) -> u32 {
        self.packet_size.saturating_sub(HEADER_BYTES)
    }

    /// Checks the parameters once, before a run.
    pub fn validate(&self) -> Result<(), ParamError> {
        if self.packet_size <= HEADER_BYTES || self.packet_size > 65_535 {
            return Err(ParamError::new(
                "packet_size",
                format!(
                    "a data segment must be {}..=65535 bytes (40 of them headers)",
                    HEADER_BYTES + 1
                ),
            ));
        }
        if self.max_window_bytes < u64::from(self.mss()) {
            return Err(ParamError::new(
                "max_window",
                "the window must hold at least one full segment",
            ));
        }
        if self.initial_window_segments == 0 {
            return Err(ParamError::new(
                "initial_window",
                "the initial window must be at least one segment",
            ));
        }
        if self.dupack_threshold == 0 {
            return Err(ParamError::new("dupack_threshold", "must be at least 1"));
        }
        if self.tick == SimDuration::ZERO {
            return Err(ParamError::new(
                "tick",
                "the clock granularity must be positive",
            ));
        }
        if self.initial_rto == SimDuration::ZERO {
            return Err(ParamError::new("initial_rto", "must be positive"));
        }
        if self.min_rto > self.max_rto {
            return Err(ParamError::new("min_rto", "must not exceed max_rto"));
        }
        if self.max_rto == SimDuration::ZERO {
            return Err(ParamError::new("max_rto", "must be positive"));
        }
        if self.cc != cc::CcKind::Reno && self.ns2_compat {
            return Err(ParamError::new(
                "cc",
                format!(
                    "cc = \"{}\" needs preset = \"rfc\" (the ns2 preset models ns-2.35's Reno agents)",
                    self.cc.name()
                ),
            ));
        }
        if self.cc != cc::CcKind::Reno && self.target_rate_bps.is_some() {
            return Err(ParamError::new(
                "cc",
                "the Throughput Sustaining Scheme (target_rate) applies to cc = \"reno\" only",
            ));
        }
        if (self.hystart || self.hystart_linux) && self.cc != cc::CcKind::Cubic {
            return Err(ParamError::new(
                "hystart",
                "HyStart++ is an option of cc = \"cubic\" (BBR has its own Startup)",
            ));
        }
        if self.cc != cc::CcKind::Bbr {
            let l = self.bbr_linux;
            for (on, field) in [
                (l.ack_aggregation, "ack_aggregation"),
                (l.quantization_budget, "quantization_budget"),
                (l.policer_detection, "policer_detection"),
                (l.tso_bursts, "tso_bursts"),
                (l.recovery_losses, "recovery_losses"),
            ] {
                if on {
                    return Err(ParamError::new(
                        field,
                        "an option of cc = \"bbr\" (Linux tcp_bbr.c's)",
                    ));
                }
            }
        }
        if self.rack && (self.variant != Variant::Sack || self.ns2_compat) {
            return Err(ParamError::new(
                "rack",
                "RACK-TLP (RFC 8985) needs variant = \"sack\" and preset = \"rfc\"",
            ));
        }
        if self.rtt_every_ack && !self.rack {
            return Err(ParamError::new(
                "rtt_every_ack",
                "needs rack = true (the samples are timed from RACK's per-segment send times)",
            ));
        }
        if self.bbr_linux.recovery_losses && !self.rack {
            return Err(ParamError::new(
                "recovery_losses",
                "needs rack = true (the segments an ACK marks lost are RACK's marks)",
            ));
        }
        if self.prr && (self.variant != Variant::Sack || self.ns2_compat) {
            return Err(ParamError::new(
                "prr",
                "PRR (RFC 6937) needs variant = \"sack\" and preset = \"rfc\"",
            ));
        }
        if self.byte_counting && (self.ns2_compat || self.cc == cc::CcKind::Bbr) {
            return Err(ParamError::new(
                "byte_counting",
                "Linux's window growth applies to cc = \"reno\" or \"cubic\" with preset = \"rfc\"",
            ));
        }
        if self.cubic_linux_friendly && self.cc != cc::CcKind::Cubic {
            return Err(ParamError::new(
                "reno_friendly",
                "the Reno-friendly region is an option of cc = \"cubic\"",
            ));
        }
        if self.quick_acks > 0 && !self.delayed_ack {
            return Err(ParamError::new(
                "quick_acks",
                "Linux's quick ACKs are the exception to delayed ACKs: needs delayed_ack = true",
            ));
        }
        // RFC 1122 §4.2.3.2: the delay MUST be less than 0.5 s; RFC 5681 §4.2: within 500 ms.
        if self.delayed_ack
            && (self.delayed_ack_interval == SimDuration::ZERO
                || self.delayed_ack_interval > SimDuration::from_millis(500))
        {
            return Err(ParamError::new(
                "delayed_ack_interval",
                "must be in (0, 500 ms] (RFC 1122 §4.2.3.2)",
            ));
        }
        Ok(())
    }
}

/// The sender's counters. Bytes are payload bytes (headers excluded); the engine's per-flow
/// counters hold IP bytes.
///
/// Identities: `retransmitted_bytes <= bytes_sent`; once a finite transfer of N bytes is
/// complete, `bytes_sent - retransmitted_bytes == N`.
///
/// `repr(C)`: the counters of every segment and ACK first, and those of a loss, in this order
/// (the sender's hot groups, `sender.rs`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C)]
pub struct SenderStats {
    /// Data segments sent, retransmissions included (SYNs excluded).
    pub segments_sent: u64,
    /// Payload bytes sent, retransmissions included.
    pub bytes_sent: u64,
    pub acks_received: u64,
    /// Retransmission timer expiries (SYN timeouts included).
    pub timeouts: u64,
    /// Fast retransmits that entered fast recovery (or SACK loss recovery).
    pub fast_recoveries: u64,
    pub retransmitted_segments: u64,
    pub retransmitted_bytes: u64,
    /// Window reductions in response to ECN-Echo (RFC 3168 §6.1.2).
    pub ecn_reductions: u64,
    /// Valid RTT samples (Karn's rule applied) and their mean and population standard
    /// deviation, seconds, as measured (not tick-rounded).
    pub rtt_samples: u64,
    pub rtt_mean_s: f64,
    pub rtt_std_s: f64,
    /// When the last byte of a finite transfer was cumulatively acknowledged, seconds.
    pub completion_time_s: Option<f64>,
}

/// The receiver's counters.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ReceiverStats {
    /// In-order payload bytes delivered to the application (goodput).
    pub goodput_bytes: u64,
    /// Data segments received, duplicates included.
    pub segments_received: u64,
    /// Segments that carried no byte not received before.
    pub duplicate_segments: u64,
    /// Segments that arrived above a hole.
    pub out_of_order_segments: u64,
    /// ACKs sent (SYN-ACKs included).
    pub acks_sent: u64,
    /// Data segments that arrived with the CE codepoint.
    pub ce_received: u64,
}

#[cfg(test)]
mod param_tests {
    use super::*;

    #[test]
    fn defaults_are_valid_and_mss_is_packet_size_minus_forty() {
        let p = Params::default();
        assert!(p.validate().is_ok());
        assert_eq!(p.mss(), 960);
        assert_eq!(p.max_window_bytes, 20 * 960, "ns-2 window_ 20 packets");
        assert!(Params::ns2().validate().is_ok());
        assert!(Params::ns2().ns2_compat);
    }

    #[test]
    fn validate_names_the_offending_field() {
        let bad = |f: fn(&mut Params)| {
            let mut p = Params::default();
            f(&mut p);
            p.validate().unwrap_err().field
        };
        assert_eq!(bad(|p| p.packet_size = 40), "packet_size");
        assert_eq!(bad(|p| p.max_window_bytes = 100), "max_window");
        assert_eq!(bad(|p| p.initial_window_segments = 0), "initial_window");
        assert_eq!(bad(|p| p.dupack_threshold = 0), "dupack_threshold");
        assert_eq!(bad(|p| p.tick = SimDuration::ZERO), "tick");
        assert_eq!(bad(|p| p.min_rto = SimDuration::from_secs(100)), "min_rto");
        assert_eq!(
            bad(|p| {
                p.delayed_ack = true;
                p.delayed_ack_interval = SimDuration::from_millis(600);
            }),
            "delayed_ack_interval"
        );
    }

    #[test]
    fn variant_names_round_trip() {
        for v in Variant::ALL {
            assert_eq!(Variant::from_name(v.name()), Some(v));
        }
        assert_eq!(Variant::from_name("tahoe"), None);
    }
}
