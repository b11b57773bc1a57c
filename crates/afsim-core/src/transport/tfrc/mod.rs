//! TFRC, TCP-Friendly Rate Control (RFC 5348), and gTFRC, its QoS-aware variant.
//!
//! Read this first.
//! - Sources: RFC 5348 — §3.1 the throughput equation (`equation`), §3.2 packet contents
//!   (`net::packet::TfrcHeader`), §4 the sender (`sender`), §5 the loss event rate
//!   (`loss_events`: §5.1–5.2, `loss_history`: §5.3–5.5), §6 the receiver (`receiver`); the
//!   sender's rate arithmetic is `rate_rfc` (RFC 5348 §4.2–4.5) or `rate_ns2` (ns-2.35).
//!   RFC 3448 §4.2–4.3 for the one-packet start (`InitialRate::Rfc3448`). gTFRC: Jourjon,
//!   Lochin, Dairaine 2006, §3.2 and Fig. 1 (`Params::target_rate_bps`). The `ns2` rules follow
//!   ns-2.35's `Agent/TFRC` and `Agent/TFRCSink` (tfrc.cc, tfrc-sink.cc, formula.h and the
//!   defaults of ns-default.tcl), the code the gTFRC paper modified.
//! - Shape: one flow = a `sender::Sender` at the source and a `receiver::Receiver` at the
//!   sink. Data packets go forward (`Packet::rev == false`) with `th.seq` counting packets
//!   from 0 and `TfrcHeader::Data`; the receiver returns feedback packets (`rev == true`) with
//!   `TfrcHeader::Feedback`. The sender is greedy: it always has data (an application such as
//!   ns-2's `SndrType_ 0`).
//! - Units: `Params::packet_size` is the IP packet, `header_bytes` of which are headers; the
//!   segment size of the equation is s = packet_size − header_bytes (RFC 5348 §3.1: "excluding
//!   IP and transport protocol headers"; ns-2 likewise computes with `packetSize_` and adds
//!   `headersize_` 32 on the wire). X, X_recv and the target rate count bytes of s per second,
//!   so a flow at rate X puts X × packet_size / s on the wire.
//! - Three rule sets (`Rules`): RFC 5348 (`preset = "rfc"`, the default), ns-2.35
//!   (`preset = "ns2"`) and ns-2.28 (`preset = "ns2_28"`, the release the gTFRC paper ran).
//!   Their differences are listed on `Rules::Ns2` and `Rules::Ns2_28` and in
//!   docs/assumptions.md; every option (`initial_rate`, `ndupack`, `oscillation_prevention`,
//!   `nofeedback_timer`, `ecn`, `target_rate`) applies to both.
//! - gTFRC is the same sender with a target rate: outside slow start its allowed rate is never
//!   set below the target (`sender`).
//!
//! Not modelled: data-limited senders (RFC 5348 §4.3's data-limited branch, §8.2) — the
//! sender always has data; correcting the loss history when a packet declared lost arrives
//! late (§5.1 lets a receiver do it); sending bursts to make up for a coarse OS timer (§4.6);
//! TFRC-SP (RFC 4828); feedback more than once per RTT; ns-2's VoIP mode, `ShortIntervals_`,
//! `conservative_` response and its EWMA/RBPH/EBPH loss estimators.

pub mod equation;
pub mod loss_events;
pub mod loss_history;
pub mod loss_rules;
pub mod rate_ns2;
pub mod rate_rfc;
pub mod receiver;
pub mod sender;
pub mod trace;

#[cfg(test)]
mod tests;

/// What the model files' tests share.
#[cfg(test)]
pub(crate) mod test_util {
    use crate::sim::time::{SimDuration, SimTime};

    pub fn at_ms(ms: u64) -> SimTime {
        SimTime::ZERO + SimDuration::from_millis(ms)
    }

    /// `a` is within `rel` of `b`, relatively.
    pub fn close(a: f64, b: f64, rel: f64) -> bool {
        (a - b).abs() <= rel * b.abs()
    }
}

use crate::param::ParamError;
use crate::sim::time::{SimDuration, SimTime};
use crate::transport::Ctx;

/// Which specification the sender and receiver follow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rules {
    /// RFC 5348.
    Rfc5348,
    /// ns-2.35's `Agent/TFRC` and `Agent/TFRCSink` with their default settings, where they
    /// depart from RFC 5348:
    /// - sender: rate in bytes of `packetSize_` per second, starting at 300 B/s
    ///   (`InitRate_`) with a no-feedback timer of 2 packet times; the RTT filter weight is
    ///   0.95 (`df_`; RFC q = 0.9); the equation's t_RTO is a TCP-style timeout on a 100 ms
    ///   clock (`tcp_tick_`, `update_rtt`), not 4R, and its second term has
    ///   min(1, 3·sqrt(3bp/8)); the initial rate is 4, 3 or 2 packets per RTT by packet size
    ///   (RFC 3390, `rate_init_option_ 2`); slow start doubles at most once per RTT up to
    ///   2·X_recv (counted in packets × s), and a rate above 2·X_recv falls to X_recv
    ///   (`slowstart`); leaving slow start sets the rate to the equation's without the
    ///   2·X_recv limit; in congestion avoidance the rate climbs by at most s/R per RTT towards
    ///   the equation's rate (`increase_rate`) or drops to it, capped at max(2·X_recv, s/R)
    ///   (`decrease_rate`, `maxHeavyRounds_ 0`); during slow start each new rate is reached
    ///   gradually, packet by packet (`slow_increase_ 1`); the inter-packet time has the
    ///   sqrt(RTT) factor of RFC 3448 §4.5 (`ca_ 1`); a feedback packet in slow start, and
    ///   every no-feedback timer expiry, sends a packet at once and restarts the send timer
    ///   (`nextpkt`); the no-feedback timer is max(2R, 2s/X) (RFC: 4R) and halves the rate
    ///   without floor or X_recv bookkeeping;
    /// - receiver: a gap in the sequence numbers is a loss at the first later packet
    ///   (`numPkts_ 1`, the `ndupack` default of this preset); a new loss event also needs a
    ///   sender round newer than the last event's (`PreciseLoss_ 1`); the first loss event is
    ///   replaced by a synthetic interval found to within 5 % (`adjust_history`, `b_to_p`) and
    ///   the open interval then counts from the last report; a loss interval ends at its lost
    ///   packet, not before it; with fewer than 8 closed intervals the average also weighs the
    ///   oldest (`smooth_ 1`); X_recv counts packets, not marked ones, over the last R; feedback
    ///   goes at every new loss event, at the first packet an RTT after the last report, to
    ///   every packet the sender marks urgent, and on a 1.5·R timer (`nack_timer_`); it is a
    ///   40-byte packet.
    Ns2,
    /// ns-2.28's `Agent/TFRC` and `Agent/TFRCSink` (released 2005-02-03; the simulator the
    /// gTFRC paper names in its §4), with their default settings. The receiver follows the
    /// `Ns2` rules (`ns2_sink`): between the two releases tfrc-sink.cc gained
    /// `ShortIntervals_` (0, off), counts every CE mark in the report's `losses` (read only by
    /// the sender's `conservative_`, off), resets the skipped slots of its 100 000-packet ring
    /// (a wrap-around fix), takes the 0.5 discount floor from `minDiscountRatio_ 0.5` and
    /// gained statistics — none changes a report at the defaults (docs/assumptions.md,
    /// "ns-2.28 against ns-2.35"). The sender departs from ns-2.35's (each difference applied
    /// in `rate_ns2`, cited at the code with ns-2.28's tfrc.cc and ns-default.tcl lines):
    /// - slow start is 2.28's `slowstart()` with `ss_changes_ 1`: the second report may
    ///   already double (2.35 keeps the initial rate); a rate above 2·X_recv is capped *at*
    ///   2·X_recv, and falls to X_recv only when the rate before the last change was above it
    ///   too (2.35: always to X_recv); with a report of nothing received both set s/R, and a
    ///   rise to it is stepped packet by packet (2.35's δ of 0 leaves the spacing at the old
    ///   rate); `idleFix_`'s slow-start branch is absent;
    /// - maxrate = 2·X_recv is taken from every report, the first included (no branch reads it
    ///   before the next report replaces it);
    /// - a no-feedback expiry ends slow start (the next report leaves it as a loss would, by
    ///   `increase_rate` or `decrease_rate`); 2.35 keeps slow start;
    /// - `maxHeavyRounds_ 1`: the rate may stay above max(2·X_recv, s/R) for one report in
    ///   `decrease_rate` (2.35: 0);
    /// - no `idleFix_`: `increase_rate`'s floor is s/R at every time (2.35's is the initial rate
    ///   within 1.5 R of time 0);
    /// - no header bytes on the wire (`useHeaders_` came in 2005-06): s = `packetSize_`, the
    ///   preset's `header_size` is 0;
    /// - a packet interval at or below `SMALLFLOAT` leaves the send timer unset (2.35 sets it
    ///   to `SMALLFLOAT`).
    #[allow(non_camel_case_types)]
    Ns2_28,
}

impl Rules {
    /// ns-2's receiver rules (`Agent/TFRCSink`), the same in 2.28 and 2.35 at their defaults.
    pub fn ns2_sink(self) -> bool {
        matches!(self, Rules::Ns2 | Rules::Ns2_28)
    }
}

/// The rate after the first feedback, before any loss.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InitialRate {
    /// RFC 5348 §4.2: W_init/R with W_init = min(4s, max(2s, 4380 bytes)), RFC 3390's initial
    /// window (ns-2: 4, 3 or 2 packets per RTT by size).
    Rfc5348,
    /// RFC 3448 §4.2–4.3: one packet per RTT.
    Rfc3448,
}

impl InitialRate {
    pub const ALL: [InitialRate; 2] = [InitialRate::Rfc5348, InitialRate::Rfc3448];

    pub fn name(self) -> &'static str {
        match self {
            InitialRate::Rfc5348 => "rfc5348",
            InitialRate::Rfc3448 => "rfc3448",
        }
    }

    pub fn from_name(s: &str) -> Option<InitialRate> {
        InitialRate::ALL.into_iter().find(|v| v.name() == s)
    }
}

/// What the user sets for one TFRC flow; both ends read the same `Params`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Params {
    /// The specification followed (set by the preset).
    pub rules: Rules,
    /// IP size of a data packet, bytes, headers included. Default 1000.
    pub packet_size: u32,
    /// Bytes of `packet_size` that are headers: s = packet_size − header_bytes. Default 32
    /// (ns-2 `headersize_`: IP 20 + a DCCP generic header of 12, RFC 4340 §5.1).
    pub header_bytes: u32,
    /// IP size of a feedback packet, bytes. Default 40 (ns-2 `Agent/TFRCSink packetSize_`).
    pub feedback_size: u32,
    /// The rate after the first feedback. Default `Rfc5348`.
    pub initial_rate: InitialRate,
    /// Later packets that must arrive before a missing one counts as lost (RFC 5348 §5.1:
    /// NDUPACK = 3; ns-2 `numPkts_` 1).
    pub ndupack: u32,
    /// RFC 5348 §4.5: space packets by X·sqrt(R_sample)/R_sqmean instead of X. Default false
    /// (rfc) / true (ns2, `ca_ 1`).
    pub oscillation_prevention: bool,
    /// The no-feedback timer (RFC 5348 §4.4). Default true; off, the sender never cuts its
    /// rate for lack of feedback (for experiments only).
    pub nofeedback_timer: bool,
    /// ECN-capable: data packets carry ECT(0) and CE marks count as losses (RFC 5348 §5.1,
    /// RFC 3168). Default false.
    pub ecn: bool,
    /// gTFRC: the negotiated target rate, bits of s per second; `None` is plain TFRC.
    pub target_rate_bps: Option<u64>,
    /// When the sender sends its first packet.
    pub start: SimTime,
    /// Record the sender's X, X_recv, p and R over time (`trace::Trace`). Default false.
    pub trace: bool,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            rules: Rules::Rfc5348,
            packet_size: 1000,
            header_bytes: 32,
            feedback_size: 40,
            initial_rate: InitialRate::Rfc5348,
            ndupack: 3,
            oscillation_prevention: false,
            nofeedback_timer: true,
            ecn: false,
            target_rate_bps: None,
            start: SimTime::ZERO,
            trace: false,
        }
    }
}

impl Params {
    /// ns-2.35's `Agent/TFRC` / `Agent/TFRCSink` (ns-default.tcl): the `Ns2` rules, a loss at
    /// the first later packet (`numPkts_ 1`) and the sqrt(RTT) spacing (`ca_ 1`).
    pub fn ns2() -> Self {
        Params {
            rules: Rules::Ns2,
            ndupack: 1,
            oscillation_prevention: true,
            ..Params::default()
        }
    }

    /// ns-2.28's `Agent/TFRC` / `Agent/TFRCSink` (ns-2.28 ns-default.tcl lines 1018–1089): the
    /// `Ns2_28` rules, `numPkts_ 1` and `ca_ 1` as in 2.35, and no header bytes: ns-2.28's
    /// `TfrcAgent::sendpkt` (tfrc.cc lines 537–559) sends `packetSize_` bytes, so s is the
    /// whole packet (2.35 adds `headersize_` 32 when `useHeaders_`, tfrc.cc lines 596–598).
    pub fn ns2_28() -> Self {
        Params {
            rules: Rules::Ns2_28,
            header_bytes: 0,
            ..Params::ns2()
        }
    }

    /// The segment size s of the equation, bytes.
    pub fn segment_size(&self) -> u32 {
        self.packet_size.saturating_sub(self.header_bytes)
    }

    /// gTFRC's target rate in bytes of s per second (the unit of X).
    pub fn target_bytes_per_s(&self) -> Option<f64> {
        self.target_rate_bps.map(|r| r as f64 / 8.0)
    }

    /// Checks the parameters once, before a run.
    pub fn validate(&self) -> Result<(), ParamError> {
        if self.packet_size > 65_535 {
            return Err(ParamError::new(
                "packet_size",
                "an IP packet is at most 65535 bytes",
            ));
        }
        if self.header_bytes >= self.packet_size {
            return Err(ParamError::new(
                "header_size",
                format!(
                    "the headers ({} B) must be smaller than the packet ({} B): the segment size s is what is left",
                    self.header_bytes, self.packet_size
                ),
            ));
        }
        if !(20..=65_535).contains(&self.feedback_size) {
            return Err(ParamError::new(
                "feedback_size",
                "a feedback packet is an IP packet of 20..=65535 bytes",
            ));
        }
        if self.ndupack == 0 {
            return Err(ParamError::new(
                "ndupack",
                "must be at least 1: a packet is lost once a later one arrived",
            ));
        }
        if self.target_rate_bps == Some(0) {
            return Err(ParamError::new(
                "target_rate",
                "a gTFRC target rate must be above 0 bit/s",
            ));
        }
        Ok(())
    }
}

/// The sender's counters.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SenderStats {
    pub packets_sent: u64,
    pub feedback_received: u64,
    /// No-feedback timer expiries.
    pub nofeedback_expiries: u64,
    /// RTT samples (RFC 5348 §4.3 step 1) and their mean and population standard deviation, s.
    pub rtt_samples: u64,
    pub rtt_mean_s: f64,
    pub rtt_std_s: f64,
}

/// The receiver's counters.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ReceiverStats {
    pub packets_received: u64,
    pub feedback_sent: u64,
    /// Loss events (RFC 5348 §5.2), the first one included.
    pub loss_events: u64,
    /// Packets declared lost (§5.1), CE marks excluded.
    pub packets_lost: u64,
    /// Data packets that arrived with the CE codepoint.
    pub ce_received: u64,
    /// Sum and count of p over the feedback packets sent in the measured interval.
    pub p_sum: f64,
    pub p_reports: u64,
}

/// One engine timer of an agent, re-armed lazily: moving its deadline later costs no event
/// (the pending event finds the deadline moved and waits again); moving it earlier schedules a
/// new event under a new token, and the old one is ignored when it comes. So a timer restarted
/// at every feedback packet costs no more than one event per expiry.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Timer {
    /// Low bits of every token of this timer (an agent's timers differ in them).
    kind: u32,
    deadline: Option<SimTime>,
    /// The event that is pending, and its token.
    pending: Option<(SimTime, u32)>,
    generation: u32,
}

/// Bits of a timer token that say which of an agent's timers it belongs to.
pub(crate) const TIMER_KIND_BITS: u32 = 2;

impl Timer {
    pub(crate) fn new(kind: u32) -> Timer {
        debug_assert!(kind < 1 << TIMER_KIND_BITS);
        Timer {
            kind,
            deadline: None,
            pending: None,
            generation: 0,
        }
    }

    /// Which timer a token belongs to.
    pub(crate) fn kind_of(token: u32) -> u32 {
        token & ((1 << TIMER_KIND_BITS) - 1)
    }

    pub(crate) fn deadline(&self) -> Option<SimTime> {
        self.deadline
    }

    /// The timer expires at `at` (not before now), replacing any earlier setting.
    pub(crate) fn arm(&mut self, at: SimTime, ctx: &mut Ctx) {
        let at = at.max(ctx.now);
        self.deadline = Some(at);
        if matches!(self.pending, Some((t, _)) if t <= at) {
            return; // the pending event comes first and will wait for the new deadline
        }
        self.generation = self.generation.wrapping_add(1);
        let token = (self.generation << TIMER_KIND_BITS) | self.kind;
        ctx.set_timer(at, token);
        self.pending = Some((at, token));
    }

    pub(crate) fn cancel(&mut self) {
        self.deadline = None;
    }

    /// An event of this timer's kind came: whether the timer expires now. A stale event (one
    /// superseded by an earlier setting) is ignored; one that comes before a deadline moved
    /// later waits for it.
    pub(crate) fn fire(&mut self, token: u32, ctx: &mut Ctx) -> bool {
        match self.pending {
            Some((_, t)) if t == token => {}
            _ => return false,
        }
        self.pending = None;
        match self.deadline {
            Some(d) if d > ctx.now => {
                ctx.set_timer(d, token);
                self.pending = Some((d, token));
                false
            }
            Some(_) => {
                self.deadline = None;
                true
            }
            None => false,
        }
    }
}

/// Seconds of a duration, for the model maths.
#[inline]
pub(crate) fn secs(d: SimDuration) -> f64 {
    d.as_secs_f64()
}

/// A duration of `s` seconds, rounded to the nanosecond (negative or NaN: zero).
#[inline]
pub(crate) fn duration(s: f64) -> SimDuration {
    if s.is_finite() && s > 0.0 {
        // + 0.5 and truncation: the rounding of a positive number, without a libm call (the
        // send timer takes one of these per packet); `as` saturates above u64::MAX
        SimDuration((s * 1e9 + 0.5) as u64)
    } else if s.is_infinite() && s > 0.0 {
        SimDuration(u64::MAX / 4)
    } else {
        SimDuration::ZERO
    }
}

#[cfg(test)]
mod param_tests {
    use super::*;

    #[test]
    fn defaults_are_valid_and_s_excludes_the_headers() {
        let p = Params::default();
        assert!(p.validate().is_ok());
        assert_eq!(p.segment_size(), 968);
        assert_eq!(
            (p.rules, p.ndupack, p.oscillation_prevention),
            (Rules::Rfc5348, 3, false)
        );
        let n = Params::ns2();
        assert!(n.validate().is_ok());
        assert_eq!(
            (n.rules, n.ndupack, n.oscillation_prevention),
            (Rules::Ns2, 1, true)
        );
        // ns-2.28: ns-2.35's receiver settings, no header bytes on the wire
        let o = Params::ns2_28();
        assert!(o.validate().is_ok());
        assert_eq!(
            (o.rules, o.ndupack, o.oscillation_prevention),
            (Rules::Ns2_28, 1, true)
        );
        assert_eq!((n.segment_size(), o.segment_size()), (968, 1000));
        assert!(o.rules.ns2_sink() && n.rules.ns2_sink() && !p.rules.ns2_sink());
    }

    #[test]
    fn validate_names_the_offending_field() {
        let bad = |f: fn(&mut Params)| {
            let mut p = Params::default();
            f(&mut p);
            p.validate().unwrap_err().field
        };
        assert_eq!(bad(|p| p.packet_size = 70_000), "packet_size");
        assert_eq!(bad(|p| p.header_bytes = 1000), "header_size");
        assert_eq!(bad(|p| p.feedback_size = 10), "feedback_size");
        assert_eq!(bad(|p| p.ndupack = 0), "ndupack");
        assert_eq!(bad(|p| p.target_rate_bps = Some(0)), "target_rate");
    }

    #[test]
    fn initial_rate_names_round_trip() {
        for v in InitialRate::ALL {
            assert_eq!(InitialRate::from_name(v.name()), Some(v));
        }
        assert_eq!(InitialRate::from_name("fast"), None);
    }

    #[test]
    fn the_target_rate_is_in_the_unit_of_x() {
        let p = Params {
            target_rate_bps: Some(800_000),
            ..Params::default()
        };
        assert_eq!(p.target_bytes_per_s(), Some(100_000.0));
    }

    #[test]
    fn durations_round_to_the_nanosecond_and_never_go_negative() {
        assert_eq!(duration(0.1), SimDuration::from_millis(100));
        assert_eq!(duration(1.4e-9), SimDuration(1));
        assert_eq!(duration(1.6e-9), SimDuration(2));
        assert_eq!(duration(-1.0), SimDuration::ZERO);
        assert_eq!(duration(f64::NAN), SimDuration::ZERO);
        assert!(duration(f64::INFINITY) > SimDuration::from_secs(1_000_000));
        assert_eq!(secs(SimDuration::from_millis(250)), 0.25);
    }
}
