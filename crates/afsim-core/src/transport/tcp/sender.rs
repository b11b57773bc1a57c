//! The TCP sender: congestion control, loss recovery, retransmission timer, ECN response.
//!
//! Files: this one holds the state, connection set-up and ACK processing (one state machine
//! whose every part reads and writes the same fields); `sender/recovery.rs` the duplicate ACKs,
//! the entry into each loss recovery and the timeout; `sender/send.rs` the sending,
//! `sender/timer.rs` the timer and RTT samples, `sender/preset.rs` with `rfc.rs` and `ns2.rs`
//! the two rule sets, `sender/control.rs` the calls into the congestion controller (`cc`:
//! Reno, CUBIC, BBR) and pacing, `sender/rack.rs` RACK-TLP (RFC 8985, `Params::rack`: its
//! own recovery, `Recovery::Rack`), `sender/prr.rs` PRR (RFC 6937, `Params::prr`: the window
//! in SACK and RACK recovery), `sender/tests.rs` the unit tests.
//!
//! Congestion control is separate from loss recovery, as in Linux: the recoveries below
//! decide *what* to send; the controller `Sender::cc` (`tcp::cc`) decides how far the window
//! opens on a new ACK, the ssthresh of a congestion event and (BBR) the window on every ACK and
//! the pacing rate. With `cc = reno` (the default) the arithmetic is RFC 5681's, below.
//!
//! Read this first.
//! - Sources: RFC 5681 §3.1 (slow start, congestion avoidance, timeout response), §3.2 (fast
//!   retransmit / fast recovery: the `Reno` variant); RFC 6582 §3.2 (`NewReno`: `recover`,
//!   partial and full ACKs, the "impatient" timer reset on the first partial ACK only, option
//!   (2) cwnd = ssthresh on exit); RFC 6675 §5 (`Sack`: recovery driven by `pipe` and
//!   `NextSeg()` from `sack::Scoreboard`, RecoveryPoint, §5.1 timeouts); RFC 6298 §5 (timer
//!   management) with Karn's rule; RFC 3168 §6.1 (ECT(0) on data, ECN negotiation, at most one
//!   reduction per window on ECE, CWR on the next new data segment); RFC 3042 (optional limited
//!   transmit). Shaped after ns-2.35's `RenoTcpAgent`, `NewRenoTcpAgent`, `Sack1TcpAgent`.
//! - State: `Phase` says where the connection is; `Recovery` carries what each kind of loss
//!   recovery needs. cwnd and ssthresh are `f64` segments (see the module doc of `tcp`); the
//!   window allows whole segments only, so with full segments the sender holds ⌊cwnd⌋ of them
//!   in flight, as ns-2 does.
//! - One window reduction per window of data: `recover` holds HighData at the last reduction
//!   (loss, ECN or timeout). NewReno and SACK enter fast recovery only when the duplicate
//!   ACK's cumulative ACK is above it (RFC 6582 §3.2 step 1, RFC 6675 §5.1); ECE is acted on
//!   only when the ACK is above it (RFC 3168 §6.1.2); a loss in a window already cut by ECN is
//!   retransmitted without cutting again. Reno has no such guard (RFC 5681) unless
//!   `ns2_compat` (ns-2 `bugFix_`).
//! - After a timeout the sender goes back to the first unacknowledged byte and slow-starts
//!   from cwnd = 1 segment, resending everything from there (ns-2's go-back-N), skipping what
//!   the SACK scoreboard shows the receiver already has (RFC 6675 §5.1).
//! - The retransmission timer is one engine timer, re-armed lazily: restarting it to a later
//!   instant only moves a deadline; the pending event re-schedules itself when it finds the
//!   deadline later than its own time. So a per-ACK restart costs no event. The timer's record
//!   (deadline, the pending event's time, its token) is the flow's, `FlowStats::retx`
//!   (`sim::lazy_timer`), reached through `Ctx::flow`: for a sender without a trace `on_timer`
//!   answers such an early event, and the stale event of a timer stopped or armed anew, from
//!   it before reading anything of the sender's (issue 28: at thousands of flows its state is
//!   out of the caches).
//! - Where the RFCs and ns-2.35 differ, the sender asks its preset (`Params::ns2_compat`), a
//!   `preset::Preset` it holds: `rules!(self, decision(args))` at each decision point the
//!   `preset::Rules` trait lists (recovery entry and window, partial ACK, ECN response and
//!   window growth on ECN-Echo, burst limit, ssthresh and timeout arithmetic, limited transmit,
//!   Karn's rule, ECT on retransmissions, segment 0's header). `sender/rfc.rs` is the RFC rule
//!   set, `sender/ns2.rs` ns-2.35's (`tcp.cc`, `tcp-reno.cc`, `tcp-newreno.cc`,
//!   `tcp-sack1.cc`), each read from start to end with its citations. ns-2's SACK recovery,
//!   `Sack1TcpAgent`, is a recovery of its own here (`Recovery::Sack1`, `send_sack1`).
//!
//! - `Params::target_rate_bps` (Leung & Muppala's Throughput Sustaining Scheme, `sustain`):
//!   each of the three reductions (`on_ece`, `enter_recovery`, `on_timeout`) passes its new
//!   cwnd and ssthresh through `sustained`, which raises them to target × SRTT / packet_size.
//!
//! Not modelled: FIN, window updates from the receiver, Nagle, RFC 6582's "less careful"
//! variant, RFC 3168's cwnd < 1 timer wait in the RFC mode (cwnd stays ≥ 1 segment there),
//! ns-2's `maxburst_` (0, no limit, in every validation script) and NewReno's burst of at most
//! two segments per duplicate ACK (`send_much(0, 0, 2)` with `newreno_changes_` 0), F-RTO,
//! slow-start restart after idle (a bulk sender is never idle).

use crate::net::packet::{Ecn, Packet};
use crate::sim::lazy_timer::{Early, LazyTimer};
use crate::sim::rng::Rng;
use crate::sim::time::{SimDuration, SimTime};
use crate::transport::tcp::cc::Cc;
use crate::transport::tcp::rto::Rto;
use crate::transport::tcp::sack::Scoreboard;
use crate::transport::tcp::trace::Trace;
use crate::transport::tcp::{flags, Params, SenderStats, Variant, HEADER_BYTES};
use crate::transport::Ctx;

mod ns2;
mod preset;
mod rfc;

use preset::{Ns2State, Preset};

/// `rules!(self, decision(args))`: the decision of the sender's preset (`preset::Rules`), by a
/// `match` on the `Preset` it holds.
macro_rules! rules {
    ($s:expr, $f:ident($($a:expr),* $(,)?)) => {
        match $s.preset {
            $crate::transport::tcp::sender::preset::Preset::Rfc => {
                <$crate::transport::tcp::sender::rfc::Rfc as $crate::transport::tcp::sender::preset::Rules>::$f($s, $($a),*)
            }
            $crate::transport::tcp::sender::preset::Preset::Ns2 => {
                <$crate::transport::tcp::sender::ns2::Ns2 as $crate::transport::tcp::sender::preset::Rules>::$f($s, $($a),*)
            }
        }
    };
}

mod control;
mod prr;
mod rack;
mod recovery;
mod send;
mod timer;

/// Timer token of the start timer; retransmission timers use 1, 2, ...
const TOKEN_START: u32 = 0;

/// Where the connection is.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Phase {
    /// Before `Params::start`.
    Waiting,
    /// SYN sent, awaiting the SYN-ACK.
    SynSent {
        sent_at: SimTime,
        retransmitted: bool,
    },
    /// Slow start (cwnd < ssthresh) or congestion avoidance, including the go-back-N after a
    /// timeout.
    Open,
    Recovery(Recovery),
    /// A finite transfer, fully acknowledged.
    Complete,
}

/// Loss recovery in progress; it ends when the cumulative ACK reaches `Sender::recover`.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Recovery {
    /// RFC 5681 §3.2 fast recovery (Reno) or RFC 6582 (NewReno): cwnd is inflated by one
    /// segment per duplicate ACK and set to `deflate_to` on exit.
    Fast { deflate_to: f64, partial_acks: u32 },
    /// RFC 6675 §5 SACK loss recovery: HighRxt and RescueRxt.
    Sack {
        high_rxt: u64,
        rescue_rxt: Option<u64>,
    },
    /// ns-2.35's `Sack1TcpAgent` (tcp-sack1.cc), the SACK recovery of `ns2_compat`: `pipe` is
    /// a counter (set from the data outstanding at the fast retransmit, less one per ACK and
    /// one more per partial ACK, plus one per segment sent), and the sender resends, in
    /// order and once each, every hole below the highest SACKed byte from `next_rtx` on (the
    /// scoreboard's `h_seqno_`), then new data, while pipe < ⌊cwnd⌋.
    Sack1 { pipe: i64, next_rtx: u64 },
    /// SACK recovery with RACK-TLP's loss detection (RFC 8985, `Params::rack`, `sender/rack.rs`).
    Rack,
}

/// The last window reduction and its cause.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Reduction {
    None,
    Loss,
    Ecn,
    Timeout,
}

/// ECN state of the connection (RFC 3168 §6.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum EcnState {
    Off,
    On { cwr_pending: bool },
}

/// The segment being timed for an RTT sample (one per round trip, ns-2 `rtt_seq_`).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Timing {
    /// The sample is taken when the cumulative ACK reaches this.
    end: u64,
    sent: SimTime,
}

/// The sender's state, laid out by hand (issue 28; docs/performance.md, "Eighth round"): at
/// thousands of flows it is out of the caches when the next ACK comes, and each cache line an
/// ACK reads is a miss. What a new ACK in the open state and the segments it releases touch is
/// in the first 384 bytes, six 64-byte groups (offsets checked below; 11 lines of 680 bytes
/// before), the rest (loss recovery, report, parameters) after them. The box is malloc's,
/// 16-byte aligned: aligned to 64 bytes it missed less, but cost 0.45 KiB a flow.
#[derive(Debug)]
#[repr(C)]
pub struct Sender {
    // ---- group 0: the sequence space and the window
    /// SND.UNA (HighACK): first unacknowledged byte.
    snd_una: u64,
    /// Next byte the window sends (below `snd_max` after a timeout: go-back-N).
    snd_nxt: u64,
    /// HighData: one past the highest byte ever sent.
    snd_max: u64,
    /// One past the last byte to send (`u64::MAX` for a greedy source).
    end: u64,
    mss: u64,
    /// Congestion window and slow-start threshold, in segments.
    cwnd: f64,
    ssthresh: f64,
    /// Bytes sent by limited transmit in the current run of duplicate ACKs.
    lt_bytes: u64,
    // ---- group 1 (the retransmission timer is the flow's record, `FlowStats::retx`:
    // `sim::lazy_timer`)
    phase: Phase,
    /// HighData at the last window reduction (RFC 6582 `recover`, RFC 6675 RecoveryPoint).
    recover: Option<u64>,
    // (two fields of the cold part, in the 24 bytes the timer left)
    /// Segments acknowledged in congestion avoidance towards the next one-segment increase
    /// (`Params::byte_counting`; Linux `snd_cwnd_cnt`).
    cwnd_cnt: f64,
    /// SND.UNA at the last timeout: a segment resent by the timer does not cut ssthresh again.
    timeout_una: Option<u64>,
    // ---- group 2
    timing: Option<Timing>,
    pub flow: u32,
    src: u32,
    dst: u32,
    peer: u32,
    dupacks: u32,
    next_token: u32,
    /// The rule set where the RFCs and ns-2.35 differ (`preset`, `rfc`, `ns2`).
    preset: Preset,
    /// The variant in use: `Sack` becomes `NewReno` when SACK was not permitted.
    variant: Variant,
    ecn: EcnState,
    reduction: Reduction,
    /// Copies of `p.handshake`, `p.byte_counting` and `p.rtt_every_ack` (read per ACK).
    handshake: bool,
    byte_counting: bool,
    rtt_every_ack: bool,
    trace: Option<Box<Trace>>,
    // ---- group 3 (and 8 bytes of group 4)
    rto: Rto,
    // ---- group 4
    /// What only the ns2 preset keeps.
    ns2: Ns2State,
    sack: Option<Scoreboard>,
    /// RACK-TLP (RFC 8985), if `Params::rack` and SACK was agreed (`sender/rack.rs`).
    rack: Option<Box<rack::Rack>>,
    /// Proportional Rate Reduction (RFC 6937), if `Params::prr` and SACK was agreed
    /// (`sender/prr.rs`).
    prr: Option<Box<prr::Prr>>,
    // ---- group 5: `p.max_window_bytes` (every window computation), the controller (tested on
    // every ACK and segment), the counters of every ACK and segment (`SenderStats`, `repr(C)`)
    max_window: u64,
    /// The congestion controller (`cc`, `sender/control.rs`): Reno, CUBIC or BBR.
    cc: Cc,
    stats: SenderStats,
    // ---- the cold part
    rtt_m2: f64,
    p: Params,
}

// The hot groups' offsets (the layout above; `repr(C)` keeps the order, these keep the sizes).
const _: () = {
    use std::mem::{offset_of, size_of};
    // the retransmission timer's tokens (`transport::retx`) are none of the other timers'
    assert!(!LazyTimer::is_retx_token(TOKEN_START));
    assert!(!LazyTimer::is_retx_token(rack::TOKEN_RACK));
    assert!(!LazyTimer::is_retx_token(control::TOKEN_PACE));
    assert!(offset_of!(Sender, phase) == 64);
    assert!(offset_of!(Sender, timeout_una) + size_of::<Option<u64>>() == 128);
    assert!(offset_of!(Sender, timing) == 128);
    assert!(offset_of!(Sender, trace) == 184);
    assert!(offset_of!(Sender, rto) == 192);
    assert!(size_of::<Rto>() == 72);
    assert!(offset_of!(Sender, max_window) == 320);
    assert!(size_of::<Cc>() == 16);
    assert!(offset_of!(Sender, stats) + offset_of!(SenderStats, fast_recoveries) + 8 <= 384);
};

impl Sender {
    /// The sender of flow `flow` from `src_node` to `dst_node`; `peer_agent` is the receiver's
    /// agent id. `rng` is the flow's stream: it draws the phase of the sender's coarse clock.
    pub fn new(
        flow: u32,
        src_node: u32,
        dst_node: u32,
        peer_agent: u32,
        params: &Params,
        mut rng: Rng,
    ) -> Sender {
        debug_assert!(params.validate().is_ok());
        let p = *params;
        let mss = u64::from(p.mss().max(1));
        // ns-2 reset(): boot_time_ = Random::uniform(tcpTick_)
        let phase_ns = (rng.uniform() * p.tick.as_nanos() as f64) as u64;
        let cc = control::new_cc(&p, mss, &rng);
        Sender {
            flow,
            src: src_node,
            dst: dst_node,
            peer: peer_agent,
            mss,
            handshake: p.handshake,
            byte_counting: p.byte_counting,
            rtt_every_ack: p.rtt_every_ack,
            max_window: p.max_window_bytes,
            variant: p.variant,
            end: p.transfer_bytes.unwrap_or(u64::MAX),
            phase: Phase::Waiting,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            cwnd: f64::from(p.initial_window_segments),
            // RFC 5681 §3.1: initial ssthresh arbitrarily high; ns-2: ssthresh_ = window_
            ssthresh: p.max_window_bytes as f64 / mss as f64,
            cwnd_cnt: 0.0,
            dupacks: 0,
            lt_bytes: 0,
            // ns-2 starts `recover_` at 0, packet 0: no fast retransmit before packet 0 is
            // acknowledged, no ECN response before packet 1 is (`dupack_action`, `ecn`)
            recover: if p.ns2_compat {
                <ns2::Ns2 as preset::Rules>::initial_recover(mss)
            } else {
                <rfc::Rfc as preset::Rules>::initial_recover(mss)
            },
            reduction: Reduction::None,
            timeout_una: None,
            rto: Rto::new(&p, phase_ns),
            next_token: TOKEN_START,
            timing: None,
            ecn: EcnState::Off,
            preset: Preset::of(p.ns2_compat),
            ns2: Ns2State {
                ecn_backoff: false,
                ece_seen: false,
                growth_window: f64::from(p.initial_window_segments),
                ignore_dupacks: false,
            },
            cc,
            sack: None,
            rack: None,
            prr: None,
            stats: SenderStats::default(),
            rtt_m2: 0.0,
            trace: p.trace.then(|| Box::new(Trace::new())),
            p,
        }
    }

    // ---------------------------------------------------------------- observers

    pub fn stats(&self) -> SenderStats {
        self.stats
    }

    /// The time series, if `Params::trace` was set.
    pub fn trace(&self) -> Option<&Trace> {
        self.trace.as_deref()
    }

    /// Takes the time series out (for a report), leaving none.
    pub fn take_trace(&mut self) -> Option<Trace> {
        self.trace.take().map(|b| *b)
    }

    /// Congestion window in bytes, fast-recovery inflation included.
    pub fn cwnd_bytes(&self) -> f64 {
        self.cwnd * self.mss as f64
    }

    pub fn ssthresh_bytes(&self) -> f64 {
        self.ssthresh * self.mss as f64
    }

    pub fn snd_una(&self) -> u64 {
        self.snd_una
    }

    pub fn snd_max(&self) -> u64 {
        self.snd_max
    }

    /// FlightSize (RFC 5681): bytes sent and not cumulatively acknowledged.
    pub fn flight_bytes(&self) -> u64 {
        self.snd_max - self.snd_una
    }

    pub fn in_recovery(&self) -> bool {
        matches!(self.phase, Phase::Recovery(_))
    }

    pub fn is_complete(&self) -> bool {
        self.phase == Phase::Complete
    }

    /// The retransmission timeout now in force (backoff included).
    pub fn rto(&self) -> SimDuration {
        self.rto.timeout()
    }

    pub fn mss(&self) -> u64 {
        self.mss
    }

    /// The loss recovery in use (after SACK negotiation).
    pub fn variant(&self) -> Variant {
        self.variant
    }

    /// Whether ECN is in use (configured, and agreed in the handshake if there was one).
    pub fn ecn_active(&self) -> bool {
        self.ecn != EcnState::Off
    }

    // ---------------------------------------------------------------- hooks

    pub fn start(&mut self, ctx: &mut Ctx) {
        ctx.set_timer(self.p.start.max(ctx.now), TOKEN_START);
    }

    pub fn on_timer(&mut self, token: u32, ctx: &mut Ctx) {
        // An early or stale retransmission event, answered from the flow's record of the timer
        // before anything of the sender is read (issue 28: at thousands of flows its state is
        // out of the caches); `on_event` answers only for a sender without a trace, by the rule
        // the code below follows (`LazyTimer::fire`).
        match ctx.flow.retx.on_event(token, ctx.now) {
            Early::Stale => return,
            Early::Reschedule(at) => {
                ctx.set_timer(at, token);
                return;
            }
            Early::Call => {}
        }
        if token == TOKEN_START {
            if self.phase == Phase::Waiting {
                self.begin(ctx);
            }
        } else if token == control::TOKEN_PACE {
            self.on_pace_timer(ctx);
        } else if token == rack::TOKEN_RACK {
            self.on_rack_timer(ctx);
        } else {
            match ctx.flow.retx.fire(token, ctx.now) {
                Early::Stale => {}
                // restarted since this event was scheduled: wait for the new deadline
                Early::Reschedule(deadline) => ctx.set_timer(deadline, token),
                Early::Call => {
                    ctx.flow.retx.stop();
                    self.on_timeout(ctx);
                }
            }
        }
        self.record(ctx.now);
    }

    pub fn on_packet(&mut self, pkt: &Packet, ctx: &mut Ctx) {
        if !pkt.rev {
            return;
        }
        self.stats.acks_received += 1;
        match self.phase {
            Phase::Waiting | Phase::Complete => {}
            Phase::SynSent {
                sent_at,
                retransmitted,
            } => {
                if pkt.th.flags & (flags::SYN | flags::ACK) == flags::SYN | flags::ACK {
                    self.established(pkt, sent_at, retransmitted, ctx);
                }
            }
            Phase::Open | Phase::Recovery(_) => {
                if pkt.th.flags & flags::SYN == 0 {
                    self.on_ack(pkt, ctx);
                }
            }
        }
        self.record(ctx.now);
    }

    // ---------------------------------------------------------------- connection set-up

    fn begin(&mut self, ctx: &mut Ctx) {
        if self.p.handshake {
            self.send_syn(ctx);
            self.phase = Phase::SynSent {
                sent_at: ctx.now,
                retransmitted: false,
            };
            self.arm(ctx.now + self.rto.timeout(), ctx);
        } else {
            // ns-2 one-way TCP: no handshake, ECN and SACK taken as agreed
            self.open(self.p.ecn, self.p.variant == Variant::Sack, false, ctx);
        }
    }

    /// RFC 3168 §6.1.1: an "ECN-setup SYN" has ECE and CWR; RFC 2018 §2: SACK-permitted.
    fn send_syn(&mut self, ctx: &mut Ctx) {
        let mut f = flags::SYN;
        if self.p.ecn {
            f |= flags::ECE | flags::CWR;
        }
        if self.p.variant == Variant::Sack {
            f |= flags::SACK_PERMITTED;
        }
        // RFC 3168 §6.1.1: a SYN is not ECN-capable
        self.emit(0, 0, f, Ecn::NotEct, ctx);
    }

    fn established(&mut self, pkt: &Packet, sent_at: SimTime, retransmitted: bool, ctx: &mut Ctx) {
        ctx.flow.retx.stop();
        if retransmitted {
            // Karn: no sample from a retransmitted SYN; RFC 6298 §5.7: RTO ≥ 3 s for data
            self.rto.raise_base_to(SimDuration::from_secs(3));
        } else {
            self.take_sample(sent_at, ctx.now, false);
        }
        // RFC 3168 §6.1.1: an "ECN-setup SYN-ACK" has ECE and not CWR
        let ecn = self.p.ecn && pkt.th.flags & (flags::ECE | flags::CWR) == flags::ECE;
        let sack = self.p.variant == Variant::Sack && pkt.th.flags & flags::SACK_PERMITTED != 0;
        self.open(ecn, sack, retransmitted, ctx);
    }

    fn open(&mut self, ecn: bool, sack: bool, syn_lost: bool, ctx: &mut Ctx) {
        self.ecn = if ecn {
            EcnState::On { cwr_pending: false }
        } else {
            EcnState::Off
        };
        if self.p.variant == Variant::Sack && !sack {
            self.variant = Variant::NewReno;
        }
        self.sack = (self.variant == Variant::Sack).then(Scoreboard::new);
        // RFC 8985 needs SACK (§3.1): without it the option is off, as in Linux
        if self.p.rack && self.sack.is_some() {
            self.rack = Some(Box::new(rack::Rack::new()));
        }
        if self.p.prr && self.sack.is_some() {
            self.prr = Some(Box::new(prr::Prr::new(self.p.prr_linux)));
        }
        // RFC 5681 §3.1: after a lost SYN the initial window is one segment
        if syn_lost {
            self.cwnd = 1.0;
        }
        self.phase = Phase::Open;
        self.cc_open(ctx.now);
        if self.end == 0 {
            self.complete(ctx);
        } else {
            self.send_more(ctx);
        }
    }

    // ---------------------------------------------------------------- ACK processing

    fn on_ack(&mut self, pkt: &Packet, ctx: &mut Ctx) {
        let ack = pkt.th.ack;
        if ack < self.snd_una || ack > self.snd_max {
            return; // an old or impossible ACK
        }
        let was_open = self.phase == Phase::Open;
        let old_una = self.snd_una;
        let losses = self.stats.fast_recoveries + self.stats.timeouts;
        // a preset may ignore duplicate ACKs altogether (ns-2 Sack1 after a timeout)
        let ignored = rules!(self, ignores_dupack(ack));
        // RFC 6937 §3: DeliveredData counts SACKed bytes once, when first SACKed, so with PRR the
        // scoreboard's total before the ACK (what SND.UNA's advance may pass) is kept
        let sacked_before = match (&self.prr, &self.sack) {
            (Some(_), Some(sb)) => sb.sacked_bytes(),
            _ => 0,
        };
        // RFC 6675 §3 Update(); RFC 6675 §2: a duplicate ACK must SACK something new
        let newly_sacked = match self.sack.as_mut() {
            Some(sb) if !ignored => sb.update(ack, pkt.th.sack_blocks()),
            _ => 0,
        };
        if let Phase::Recovery(Recovery::Sack1 { pipe, next_rtx }) = self.phase {
            // ns-2 Sack1TcpAgent::recv: every ACK in fast recovery takes one from pipe
            self.phase = Phase::Recovery(Recovery::Sack1 {
                pipe: pipe - 1,
                next_rtx,
            });
        }
        if self.prr.is_some() {
            // RFC 6937 §3: DeliveredData = (change in snd.una) + (change in SACKed), the second
            // negative when SND.UNA passes data SACKed before (`sender/prr.rs`)
            let sacked_after = self.sack.as_ref().map_or(0, |sb| sb.sacked_bytes());
            let delivered = (ack - old_una + sacked_after).saturating_sub(sacked_before);
            self.prr_ack_begins(delivered, ack > old_una);
        }
        let ece = self.ecn != EcnState::Off && pkt.th.flags & flags::ECE != 0;
        if ece {
            self.on_ece(ack);
        }
        let in_recovery = !was_open;
        if ack > self.snd_una {
            self.on_new_ack(ack, ece, ctx);
        } else if self.snd_max > self.snd_una && (self.sack.is_none() || newly_sacked > 0) {
            self.on_dupack(ctx);
        }
        if self.rack.is_some() {
            // RFC 8985 §6.2, §7.4 (`sender/rack.rs`)
            let blocks = pkt.th.sack_blocks();
            let exited = in_recovery && self.phase == Phase::Open;
            self.rack_ack(blocks, old_una, newly_sacked, exited, ctx);
            if self.rtt_every_ack {
                // Linux: an RTT sample from every ACK that delivers a segment sent once
                // (`tcp_ack_update_rtt`), where RFC 6298 times one segment per round trip
                if let Some(sent) = self.rack.as_ref().and_then(|r| r.ack_rtt_sent) {
                    self.take_sample(sent, ctx.now, ece);
                }
            }
        }
        if self.prr.is_some() {
            // RFC 6937 §3: cwnd = pipe + sndcnt, or ssthresh at the end of recovery
            self.prr_ack(in_recovery && self.phase == Phase::Open);
        }
        if !matches!(self.cc, Cc::Reno) {
            let lost = self.stats.fast_recoveries + self.stats.timeouts > losses;
            self.bbr_ack(pkt, old_una, lost, ctx.now);
        }
        // what the ACK lets the sender send, within the preset's burst limit
        rules!(self, send_after_ack(was_open, ctx));
    }

    /// RFC 3168 §6.1.2: halve cwnd, reduce ssthresh, at most once per window of data.
    ///
    /// `ns2_compat` (ns-2.35 tcp.cc `TcpAgent::ecn`): also on the first ECN-Echo after a
    /// timeout, whatever window it belongs to (`last_cwnd_action_ == CWND_ACTION_TIMEOUT`); cwnd
    /// is halved without a floor, so from one segment it goes to half a segment and nothing is
    /// sent until the retransmission timer expires; a second response at cwnd ≤ 1 doubles the
    /// timer (`ecn_backoff_`).
    ///
    /// `ns2_compat` also in loss recovery: ns-2.35 calls `TcpAgent::ecn` on every ECN-Echo ACK
    /// before it looks at the recovery (`RenoTcpAgent::recv`, `NewRenoTcpAgent::recv`,
    /// `Sack1TcpAgent::recv`: `if (ecnecho && ecn_) ecn(tcph->seqno())` comes first), and `ecn`
    /// tests only `seqno > recover_`. An ECN-Echo ACK beyond `recover` — typically the one that
    /// would end a recovery entered by the ECN branch of `dupack_action`, which left `recover_`
    /// at the ECN reduction's — halves the window (inflation included: `windowd()` is
    /// cwnd_ + dupwnd_) and moves `recover_` to `maxseq_`. Reno and NewReno then leave
    /// recovery on that ACK (`dupwnd_ = 0`; NewReno: `last_cwnd_action_ != CWND_ACTION_DUPACK`);
    /// Sack1 stays in recovery until the new `recover_` (`seqno >= recover_` is tested after
    /// `ecn`), its ACKs now partial ones. RFC 3168 §6.1.2 leaves recovery alone, and so does the
    /// `rfc` preset.
    fn on_ece(&mut self, ack: u64) {
        // BBR v1 keeps its window (`control::bbr_ece`)
        if self.bbr_ece(ack) {
            return;
        }
        rules!(self, ecn_response(ack));
    }

    /// What every ECN response ends with, once the preset has set ssthresh and cwnd: one
    /// reduction per window (`recover`), CWR on the next new segment (RFC 3168 §6.1.2).
    fn ecn_reduced(&mut self) {
        self.recover = Some(self.snd_max);
        self.reduction = Reduction::Ecn;
        self.ecn = EcnState::On { cwr_pending: true };
        self.stats.ecn_reductions += 1;
        if matches!(self.phase, Phase::Recovery(Recovery::Fast { .. })) {
            // ns-2 Reno/NewReno: the ACK ends fast recovery with cwnd as `ecn` left it
            self.phase = Phase::Open;
        }
    }

    fn on_new_ack(&mut self, ack: u64, ece: bool, ctx: &mut Ctx) {
        let acked = ack - self.snd_una;
        let old_una = self.snd_una;
        let in_sack1 = matches!(self.phase, Phase::Recovery(Recovery::Sack1 { .. }));
        // ns-2 Sack1: a partial ACK takes no RTT sample (`newack` is not called)
        let partial_sack1 = in_sack1 && !self.reaches_recover(ack);
        // Karn: only segments sent once are timed (timing stops on any retransmission); with
        // `rtt_every_ack` RACK's per-segment times give every ACK a sample instead (`on_ack`)
        if let Some(t) = self.timing.filter(|_| !self.rtt_every_ack) {
            if ack >= t.end && !partial_sack1 {
                self.timing = None;
                self.take_sample(t.sent, ctx.now, ece);
            }
        }
        // RFC 3168 §6.1.2: no increase in response to an ECN-Echo ACK (a preset may differ)
        let opens = rules!(self, ack_opens_cwnd(ece, in_sack1));
        let was_open = self.phase == Phase::Open;
        self.snd_una = ack;
        self.snd_nxt = self.snd_nxt.max(ack);
        self.dupacks = 0;
        self.lt_bytes = 0;
        let mut restart_timer = true;
        let mut end_backoff = false;
        match self.phase {
            Phase::Open => {
                // RFC 3168 §6.1.2: no increase in response to an ECN-Echo ACK
                if opens {
                    self.open_cwnd(acked, old_una, ctx.now);
                }
                rules!(self, on_open_new_ack());
            }
            Phase::Recovery(Recovery::Fast {
                deflate_to,
                partial_acks,
            }) => {
                let full = self.variant == Variant::Reno || self.reaches_recover(ack);
                if full {
                    // RFC 5681 §3.2 step 6 / RFC 6582 §3.2 step 3 (2): deflate to ssthresh
                    self.cwnd = deflate_to;
                    self.phase = Phase::Open;
                    rules!(self, on_full_ack(acked, opens));
                } else {
                    // RFC 6582 §3.2 step 3 (partial ACK): retransmit the next hole, deflate by
                    // the amount acknowledged, add back one segment if a segment's worth was
                    let len = self.mss.min(self.snd_max - ack);
                    self.transmit(ack, len, ctx);
                    let deflate_to = rules!(self, partial_ack_window(acked, deflate_to));
                    // RFC 6582 §3.2 step 3: reset the timer on the first partial ACK only
                    restart_timer = partial_acks == 0;
                    self.phase = Phase::Recovery(Recovery::Fast {
                        deflate_to,
                        partial_acks: partial_acks + 1,
                    });
                }
            }
            Phase::Recovery(Recovery::Sack { .. } | Recovery::Rack) => {
                // RFC 6675 §5 (A): a cumulative ACK at or above RecoveryPoint ends recovery;
                // cwnd stays at ssthresh
                if self.reaches_recover(ack) {
                    self.phase = Phase::Open;
                }
            }
            Phase::Recovery(Recovery::Sack1 { pipe, next_rtx }) => {
                if self.reaches_recover(ack) {
                    // ns-2: recovery over; cwnd stays, `recover_` back to 0, scoreboard cleared
                    self.phase = Phase::Open;
                    self.recover = Some(self.mss);
                    self.clear_scoreboard();
                } else {
                    // a partial ACK takes one more from pipe (`partial_ack_` false), restarts
                    // the timer and then ends its backoff
                    self.phase = Phase::Recovery(Recovery::Sack1 {
                        pipe: pipe - 1,
                        next_rtx,
                    });
                    end_backoff = true;
                }
            }
            Phase::Waiting | Phase::SynSent { .. } | Phase::Complete => {}
        }
        rules!(self, first_ack_window(ack, was_open));
        if self.snd_una >= self.end {
            self.complete(ctx);
        } else if self.snd_una == self.snd_max && !rules!(self, timer_runs_when_idle()) {
            // RFC 6298 (5.2): all outstanding data acknowledged: stop the timer (a preset may
            // keep it)
            ctx.flow.retx.stop();
        } else if restart_timer || self.snd_una == self.snd_max {
            // RFC 6298 (5.3): new data acknowledged: restart the timer
            self.arm(ctx.now + self.rto.timeout(), ctx);
        }
        if end_backoff {
            self.rto.end_backoff();
        }
    }

    /// ns-2's SACK sender, `Sack1TcpAgent` (`ns2_compat` with `Variant::Sack`).
    fn is_sack1(&self) -> bool {
        self.preset == Preset::Ns2 && self.variant == Variant::Sack
    }

    fn clear_scoreboard(&mut self) {
        if let Some(sb) = self.sack.as_mut() {
            sb.clear();
        }
    }

    /// RFC 5681 §3.1: slow start (eq. 2) or congestion avoidance (eq. 3) (the `reno`
    /// controller's window growth; `control::open_cwnd` dispatches).
    fn open_cwnd_reno(&mut self, acked: u64) {
        if self.byte_counting {
            // Linux tcp_reno_cong_avoid: tcp_slow_start, the rest to tcp_cong_avoid_ai
            let segs = acked as f64 / self.mss as f64;
            let rest = linux_slow_start(&mut self.cwnd, self.ssthresh, segs);
            if rest > 0.0 {
                let w = self.cwnd.floor().max(1.0);
                self.cong_avoid_ai(w, rest);
            }
        } else if self.cwnd < self.ssthresh {
            // cwnd += min(N, SMSS) (RFC 5681 eq. 2; the preset says)
            self.cwnd += rules!(self, slow_start_increment(acked));
        } else {
            // cwnd += SMSS·SMSS/cwnd
            self.cwnd += 1.0 / self.cwnd;
        }
    }

    /// Linux `tcp_cong_avoid_ai` (net/ipv4/tcp_cong.c), `Params::byte_counting`: one segment
    /// per `w` segments acknowledged (RFC 3465 §2.1's `bytes_acked`, in segments); credit
    /// counted at a larger `w` is applied as one segment first.
    fn cong_avoid_ai(&mut self, w: f64, segs: f64) {
        if self.cwnd_cnt >= w {
            self.cwnd_cnt = 0.0;
            self.cwnd += 1.0;
        }
        self.cwnd_cnt += segs;
        if self.cwnd_cnt >= w {
            let delta = (self.cwnd_cnt / w).floor();
            self.cwnd_cnt -= delta * w;
            self.cwnd += delta;
        }
    }
}

#[cfg(test)]
pub(crate) mod tests;

/// Linux `tcp_slow_start` (net/ipv4/tcp_cong.c), `Params::byte_counting`: below ssthresh cwnd
/// grows by every one of the `segs` segments an ACK acknowledges, up to ssthresh; returns the
/// segments left over for congestion avoidance (all of them at or above ssthresh).
pub(super) fn linux_slow_start(cwnd: &mut f64, ssthresh: f64, segs: f64) -> f64 {
    if *cwnd >= ssthresh {
        return segs;
    }
    let grown = (*cwnd + segs).min(ssthresh);
    let rest = segs - (grown - *cwnd);
    *cwnd = grown;
    rest
}
