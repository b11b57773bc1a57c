//! Congestion control, separate from loss recovery, as Linux composes them (`tcp_cong.c`'s
//! `tcp_congestion_ops` beside `tcp_input.c`'s recovery).
//!
//! Read this first: the sender (`sender.rs`) keeps loss recovery — Reno/NewReno fast recovery,
//! the RFC 6675 SACK scoreboard, the retransmission timer — and asks its controller, a `Cc` it
//! holds, at the few points where the window or the sending rate is decided: a new ACK outside
//! recovery (window growth), a congestion event (the new ssthresh: loss, ECN-Echo, timeout),
//! the end of a timeout, every ACK for a model-based controller (BBR: delivery rate, RTT,
//! state, cwnd, pacing rate), and each transmission (BBR's rate sample bookkeeping). `Reno` is
//! the sender's own RFC 5681 arithmetic and costs one `match` arm per decision point.
//!
//! - `cubic`: RFC 9438 §4 (window growth, Reno-friendly region, multiplicative decrease, fast
//!   convergence, timeout), with HyStart++ (RFC 9406, `hystart`) as an option.
//! - `bbr`: draft-cardwell-iccrg-bbr-congestion-control-00 (BBR v1, the algorithm of Linux's
//!   `tcp_bbr.c`), with delivery-rate samples per draft-cheng-iccrg-delivery-rate-estimation-00
//!   (`rate`), and pacing (the sender's pacing timer, `sender/pace.rs`).
//!
//! Where Linux differs from these sources, docs/assumptions.md ("Congestion control") says how
//! and which one afsim follows.

pub mod bbr;
pub mod bbr_linux;
pub mod cubic;
pub mod hystart;
pub mod hystart_linux;
pub mod rate;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_linux;

/// Which congestion controller a TCP flow uses (scenario field `cc`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum CcKind {
    /// RFC 5681 slow start and congestion avoidance (the sender's own arithmetic).
    #[default]
    Reno,
    /// RFC 9438 CUBIC.
    Cubic,
    /// BBR v1 (draft-cardwell-iccrg-bbr-congestion-control-00), paced.
    Bbr,
}

impl CcKind {
    pub const ALL: [CcKind; 3] = [CcKind::Reno, CcKind::Cubic, CcKind::Bbr];

    pub fn name(self) -> &'static str {
        match self {
            CcKind::Reno => "reno",
            CcKind::Cubic => "cubic",
            CcKind::Bbr => "bbr",
        }
    }

    pub fn from_name(s: &str) -> Option<CcKind> {
        CcKind::ALL.into_iter().find(|c| c.name() == s)
    }
}

/// The controller a sender holds.
#[derive(Debug)]
pub enum Cc {
    Reno,
    /// CUBIC, with HyStart++ (first slow start) or Linux's HyStart (first slow start and each
    /// after a timeout) while the slow start lasts, if asked for. (Boxed, as BBR's state: the
    /// enum is 16 bytes, its tag in one of the sender's hot groups; issue 28.)
    Cubic(Box<(cubic::Cubic, Option<Box<SlowStart>>)>),
    Bbr(Box<BbrSender>),
}

/// CUBIC's slow-start option (`hystart`).
#[derive(Debug)]
pub enum SlowStart {
    /// RFC 9406 HyStart++ (`hystart = true` or `"rfc9406"`).
    PlusPlus(hystart::HyStart),
    /// Linux `tcp_cubic.c`'s HyStart (`hystart = "linux"`).
    Linux(hystart_linux::LinuxHyStart),
}

impl SlowStart {
    /// The RTT sampler it reads.
    pub fn rate_mut(&mut self) -> &mut rate::RateSampler {
        match self {
            SlowStart::PlusPlus(h) => &mut h.rate,
            SlowStart::Linux(h) => &mut h.rate,
        }
    }
}

/// BBR with what the sender keeps for it: the delivery-rate sampler, the end of the timeout's
/// go-back-N (cwnd is restored when it is acknowledged), the ECN-Echo already answered with
/// CWR, and the pacing timer's next departure.
#[derive(Debug)]
pub struct BbrSender {
    pub bbr: bbr::Bbr,
    pub rate: rate::RateSampler,
    /// HighData at the last timeout, until the cumulative ACK passes it (Linux: TCP_CA_Loss).
    pub loss_until: Option<u64>,
    /// HighData when CWR was last sent for an ECN-Echo.
    pub ecn_high: u64,
    /// The earliest instant the next segment may leave (pacing).
    pub next_send: crate::sim::time::SimTime,
    /// Whether the pacing timer is pending.
    pub pace_armed: bool,
    /// Segments the current TSO burst may still send back to back, and the instant it began
    /// (`Linux::tso_bursts`; 0 without it).
    pub burst_left: u32,
    pub burst_at: crate::sim::time::SimTime,
    /// Segments retransmitted so far: the segments marked lost (Linux `tp->lost`), for the
    /// long-term bandwidth estimate (docs/assumptions.md).
    pub lost_segs: u64,
    /// In an RFC 6675 SACK recovery without RACK: the `IsLost()` boundary
    /// (`Scoreboard::lost_below`) already counted, so that each ACK counts only the segments
    /// it newly marks lost (draft-00 §4.2.3.4's packets_lost).
    pub sack_lost_to: u64,
}
