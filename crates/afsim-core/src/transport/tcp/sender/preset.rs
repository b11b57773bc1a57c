//! The sender's two rule sets, `rfc` and `ns2` (`Params::ns2_compat`), as one list of decision
//! points.
//!
//! Read this first: wherever the RFCs and ns-2.35 disagree, the sender asks its preset through
//! `rules!(self, decision(args))` (defined in `sender.rs`), a `match` on the `Preset` it holds:
//! static dispatch, no boxed call, the same test of one value the old `if ns2_compat` made.
//! `Rules` lists the decision points in the order a connection meets them; `rfc.rs` and
//! `ns2.rs` implement all of them, each file readable from start to end with every rule cited
//! (RFC section, ns-2.35 source). What both presets share stays in `sender.rs`. A new preset
//! is a new file implementing `Rules`, a variant of `Preset` and an arm of `rules!`.

use super::Sender;
use crate::transport::Ctx;

/// Which rule set the sender follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Preset {
    /// The RFCs (5681, 6582, 6675, 6298, 3168, 3042).
    Rfc,
    /// ns-2.35's `RenoTcpAgent`, `NewRenoTcpAgent`, `Sack1TcpAgent`.
    Ns2,
}

impl Preset {
    pub(super) fn of(ns2_compat: bool) -> Preset {
        if ns2_compat {
            Preset::Ns2
        } else {
            Preset::Rfc
        }
    }
}

/// State only the ns2 preset reads and writes (the RFC preset never touches it).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Ns2State {
    /// ns-2 `ecn_backoff_`: the last ECN response found cwnd ≤ 1 (a second one backs the
    /// timer off).
    pub ecn_backoff: bool,
    /// ns-2 `ect_`: a new ACK has carried ECN-Echo.
    pub ece_seen: bool,
    /// The window the first ACK of segment 0 sets (ns-2 `delay_growth_`): the initial window,
    /// or one segment once segment 0 has timed out (ns-2 `bugfix_ss_`).
    pub growth_window: f64,
    /// ns-2 Sack1's `timeout_`: since the last timeout no new ACK has come, and duplicate ACKs
    /// are ignored (SACK only).
    pub ignore_dupacks: bool,
}

/// The decision points, in the order a connection meets them. `s` is the sender, whose state
/// the rule reads (and, for the rules that act, changes).
pub(super) trait Rules {
    // ---- start
    /// `recover` (HighData at the last reduction) before any reduction.
    fn initial_recover(mss: u64) -> Option<u64>;

    // ---- every ACK
    /// Whether this duplicate ACK is ignored altogether (not even its SACK blocks read).
    fn ignores_dupack(s: &Sender, ack: u64) -> bool;
    /// What the ACK lets the sender send (burst limit).
    fn send_after_ack(s: &mut Sender, was_open: bool, ctx: &mut Ctx);

    // ---- ECN
    /// The response to an ECN-Echo ACK: when, and to what window.
    fn ecn_response(s: &mut Sender, ack: u64);
    /// Whether a new ACK (with ECN-Echo if `ece`) may open cwnd; keeps the preset's ECN state.
    fn ack_opens_cwnd(s: &mut Sender, ece: bool, in_sack1: bool) -> bool;

    // ---- new ACKs
    /// Slow start: the increase per new ACK of `acked` bytes, in segments.
    fn slow_start_increment(s: &Sender, acked: u64) -> f64;
    /// A new ACK outside loss recovery, after cwnd has opened.
    fn on_open_new_ack(s: &mut Sender);
    /// The full ACK that ends Reno/NewReno fast recovery, after cwnd is deflated.
    fn on_full_ack(s: &mut Sender, acked: u64, opens: bool);
    /// A NewReno partial ACK of `acked` bytes: sets cwnd, returns the new `deflate_to`.
    fn partial_ack_window(s: &mut Sender, acked: u64, deflate_to: f64) -> f64;
    /// After every new ACK: the window the ACK of segment 0 alone sets, if any.
    fn first_ack_window(s: &mut Sender, ack: u64, was_open: bool);
    /// Whether the retransmission timer keeps running with nothing outstanding.
    fn timer_runs_when_idle(s: &Sender) -> bool;

    // ---- duplicate ACKs and fast retransmit
    /// Limited transmit on the first duplicate ACKs (if `Params::limited_transmit`).
    fn limited_transmit(s: &mut Sender, ctx: &mut Ctx);
    /// Whether the duplicate ACK threshold may start a fast retransmit now.
    fn may_enter_recovery(s: &Sender) -> bool;
    /// The window fast retransmit sets (before any inflation), ssthresh being set.
    fn recovery_window(s: &Sender) -> f64;
    /// Whether a fast retransmit in a window already cut by ECN moves `recover`.
    fn recover_moves_after_ecn(s: &Sender) -> bool;
    /// What the fast retransmit does to the retransmission timer and RTT timing.
    fn on_fast_retransmit(s: &mut Sender, ctx: &mut Ctx);
    /// The reduced ssthresh, from FlightSize `flight` (bytes) or the window.
    fn reduced_ssthresh(s: &Sender, flight: u64) -> f64;

    // ---- timeout
    /// The timer expires with nothing outstanding.
    fn idle_timeout(s: &mut Sender, ctx: &mut Ctx);
    /// Whether this timeout reduces ssthresh.
    fn timeout_cuts_ssthresh(s: &Sender) -> bool;
    /// What else a timeout resets, once cwnd, `recover` and ECN are set.
    fn after_timeout(s: &mut Sender);

    // ---- sending and RTT
    /// Whether retransmitted segments are ECN-capable (and may carry CWR).
    fn retransmission_is_ect(s: &Sender) -> bool;
    /// Whether the data segment at `start` takes the SYN's place (not ECN-capable, ECE set).
    fn syn_slot(s: &Sender, start: u64) -> bool;
    /// Whether a retransmission stops the RTT timing of the segment being timed.
    fn retransmission_stops_timing(s: &Sender) -> bool;
    /// Header bytes added to the segment `seq` carrying `payload` bytes.
    fn header_bytes(s: &Sender, seq: u64, payload: u32) -> u32;
    /// Whether an RTT sample (from an ACK with ECN-Echo if `ece`) ends the timer's backoff.
    fn sample_ends_backoff(s: &mut Sender, ece: bool) -> bool;
}
