//! The TCP sender: congestion control, loss recovery, retransmission timer, ECN response.
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
//!   deadline later than its own time. So a per-ACK restart costs no event.
//! - `ns2_compat` changes (RFC by default), each cited where it is applied (ns-2.35 `tcp.cc`,
//!   `tcp-reno.cc`, `tcp-newreno.cc`, `tcp-sack1.cc`):
//!   - ssthresh = max(⌊min(cwnd, rwnd)/2⌋, 2) segments and cwnd = min(cwnd, rwnd)/2 on fast
//!     retransmit (`slowdown`), instead of ssthresh = max(FlightSize/2, 2·MSS) and cwnd =
//!     ssthresh; the ACK that ends fast recovery also opens cwnd; every timeout halves
//!     ssthresh again (RFC 5681: only the first timeout of a segment); slow start adds a whole
//!     segment per new ACK (RFC 5681: min(acked, MSS));
//!   - `recover` starts at packet 0: no fast retransmit before segment 0 is acknowledged, no
//!     ECN response to its ACK; Reno refuses a second fast retransmit in one window (`bugFix_`);
//!     fast retransmit restarts the retransmit timer and stops RTT timing (`reset_rtx_timer`),
//!     other retransmissions do not stop it;
//!   - the ACK of segment 0 alone sets cwnd back to the initial window, one segment if
//!     segment 0 timed out (`delay_growth_`, `bugfix_ss_`; without a handshake only);
//!   - limited transmit sends the next segment to send, old or new, within cwnd + the
//!     duplicate ACKs so far (`send_one`), also during go-back-N (RFC 3042: new data only);
//!   - ECN: retransmissions carry ECT and may carry CWR (RFC 3168 §6.1.5 forbids both);
//!     segment 0 is not ECN-capable and carries ECE (ns-2's SYN slot; the receiver echoes it,
//!     which ends window growth on ECN-Echo ACKs from the first ACK on, ns-2's `ect_`); the
//!     first ECN-Echo after a timeout is acted on whatever
//!     its window, cwnd may fall below one segment (the sender then waits for the timer), a
//!     second response at cwnd ≤ 1 backs the timer off, and a timeout that ends an ECN
//!     reduction leaves ssthresh alone (`ecn`, `timeout`, `newtimer`);
//!   - SACK is ns-2's `Sack1TcpAgent`, not RFC 6675: a `pipe` counter, every hole below the
//!     highest SACK resent in order, duplicate ACKs ignored from a timeout to the next new
//!     ACK, the scoreboard cleared by every new ACK outside recovery and at a timeout, and
//!     go-back-N resending SACKed data (`Recovery::Sack1`).
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

use crate::net::packet::{proto, Ecn, Packet, TransportHeader};
use crate::sim::rng::Rng;
use crate::sim::time::{SimDuration, SimTime};
use crate::transport::tcp::rto::Rto;
use crate::transport::tcp::sack::{Marks, NextSeg, Scoreboard};
use crate::transport::tcp::sustain;
use crate::transport::tcp::trace::{Point, Trace};
use crate::transport::tcp::{flags, Params, SenderStats, Variant, HEADER_BYTES};
use crate::transport::Ctx;

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
}

/// The last window reduction and its cause.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Reduction {
    None,
    Loss,
    Ecn,
    Timeout,
}

/// The retransmission timer (RFC 6298 §5).
#[derive(Clone, Copy, Debug, PartialEq)]
enum RetxTimer {
    Idle,
    /// Expires at `deadline`; an engine event with `token` is pending at `event_at` ≤ deadline.
    Armed {
        deadline: SimTime,
        event_at: SimTime,
        token: u32,
    },
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

#[derive(Debug)]
pub struct Sender {
    pub flow: u32,
    src: u32,
    dst: u32,
    peer: u32,
    p: Params,
    mss: u64,
    /// The variant in use: `Sack` becomes `NewReno` when SACK was not permitted.
    variant: Variant,
    /// One past the last byte to send (`u64::MAX` for a greedy source).
    end: u64,
    phase: Phase,
    /// SND.UNA (HighACK): first unacknowledged byte.
    snd_una: u64,
    /// Next byte the window sends (below `snd_max` after a timeout: go-back-N).
    snd_nxt: u64,
    /// HighData: one past the highest byte ever sent.
    snd_max: u64,
    /// Congestion window and slow-start threshold, in segments.
    cwnd: f64,
    ssthresh: f64,
    dupacks: u32,
    /// Bytes sent by limited transmit in the current run of duplicate ACKs.
    lt_bytes: u64,
    /// HighData at the last window reduction (RFC 6582 `recover`, RFC 6675 RecoveryPoint).
    recover: Option<u64>,
    reduction: Reduction,
    /// SND.UNA at the last timeout: a segment resent by the timer does not cut ssthresh again.
    timeout_una: Option<u64>,
    rto: Rto,
    timer: RetxTimer,
    next_token: u32,
    timing: Option<Timing>,
    ecn: EcnState,
    /// ns-2 `ecn_backoff_`: the last ECN response found cwnd ≤ 1 (a second one backs the
    /// timer off). `ns2_compat` only.
    ecn_backoff: bool,
    /// ns-2 `ect_`: a new ACK has carried ECN-Echo. `ns2_compat` only.
    ece_seen: bool,
    /// The window the first ACK of segment 0 sets (ns-2 `delay_growth_`): the initial window,
    /// or one segment once segment 0 has timed out (ns-2 `bugfix_ss_`). `ns2_compat` only.
    growth_window: f64,
    /// ns-2 Sack1's `timeout_`: since the last timeout no new ACK has come, and duplicate ACKs
    /// are ignored. `ns2_compat` SACK only.
    ignore_dupacks: bool,
    sack: Option<Scoreboard>,
    stats: SenderStats,
    rtt_m2: f64,
    trace: Option<Box<Trace>>,
}

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
        Sender {
            flow,
            src: src_node,
            dst: dst_node,
            peer: peer_agent,
            mss,
            variant: p.variant,
            end: p.transfer_bytes.unwrap_or(u64::MAX),
            phase: Phase::Waiting,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            cwnd: f64::from(p.initial_window_segments),
            // RFC 5681 §3.1: initial ssthresh arbitrarily high; ns-2: ssthresh_ = window_
            ssthresh: p.max_window_bytes as f64 / mss as f64,
            dupacks: 0,
            lt_bytes: 0,
            // ns-2 starts `recover_` at 0, packet 0: no fast retransmit before packet 0 is
            // acknowledged, no ECN response before packet 1 is (`dupack_action`, `ecn`)
            recover: p.ns2_compat.then_some(mss),
            reduction: Reduction::None,
            timeout_una: None,
            rto: Rto::new(&p, phase_ns),
            timer: RetxTimer::Idle,
            next_token: TOKEN_START,
            timing: None,
            ecn: EcnState::Off,
            ecn_backoff: false,
            ece_seen: false,
            growth_window: f64::from(p.initial_window_segments),
            ignore_dupacks: false,
            sack: None,
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
        if token == TOKEN_START {
            if self.phase == Phase::Waiting {
                self.begin(ctx);
            }
        } else if let RetxTimer::Armed {
            deadline, token: t, ..
        } = self.timer
        {
            if t == token {
                if deadline > ctx.now {
                    // restarted since this event was scheduled: wait for the new deadline
                    ctx.set_timer(deadline, t);
                    self.timer = RetxTimer::Armed {
                        deadline,
                        event_at: deadline,
                        token: t,
                    };
                } else {
                    self.timer = RetxTimer::Idle;
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
        self.timer = RetxTimer::Idle;
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
        // RFC 5681 §3.1: after a lost SYN the initial window is one segment
        if syn_lost {
            self.cwnd = 1.0;
        }
        self.phase = Phase::Open;
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
        // ns-2 Sack1 ignores duplicate ACKs from a timeout until the next new ACK (`timeout_`)
        let ignored = self.ignore_dupacks && ack == self.snd_una;
        // RFC 6675 §3 Update(); RFC 6675 §2: a duplicate ACK must SACK something new
        let newly_sacked = match self.sack.as_mut() {
            Some(sb) if !ignored => {
                sb.update(ack, &pkt.th.sack[..usize::from(pkt.th.sack_len).min(3)])
            }
            _ => 0,
        };
        if let Phase::Recovery(Recovery::Sack1 { pipe, next_rtx }) = self.phase {
            // ns-2 Sack1TcpAgent::recv: every ACK in fast recovery takes one from pipe
            self.phase = Phase::Recovery(Recovery::Sack1 {
                pipe: pipe - 1,
                next_rtx,
            });
        }
        let ece = self.ecn != EcnState::Off && pkt.th.flags & flags::ECE != 0;
        if ece {
            self.on_ece(ack);
        }
        if ack > self.snd_una {
            self.on_new_ack(ack, ece, ctx);
        } else if self.snd_max > self.snd_una && (self.sack.is_none() || newly_sacked > 0) {
            self.on_dupack(ctx);
        }
        // ns-2.35 NewRenoTcpAgent::recv ends with `send_much(0, 0, 2)` while dupacks_ ≥
        // numdupacks_ (newreno_changes_ 0): at most two new segments per ACK in fast recovery,
        // whose partial ACKs leave dupacks_ alone, and past a refused fast retransmit; Reno and
        // Sack1 send what the window allows (maxburst_ 0)
        if self.is_sack1() && was_open && self.dupacks > 0 {
            // ns-2.35 Sack1TcpAgent::recv, outside fast recovery: `send_much` only when
            // dupacks_ == 0, so a duplicate ACK sends nothing of its own, and the one that
            // starts fast recovery sends the retransmission alone (`dupack_action`'s `output`)
            return;
        }
        let burst = self.p.ns2_compat
            && self.variant == Variant::NewReno
            && (matches!(self.phase, Phase::Recovery(Recovery::Fast { .. }))
                || (self.phase == Phase::Open && self.dupacks >= self.p.dupack_threshold));
        if burst {
            self.send_window(Some(2), ctx);
        } else {
            self.send_more(ctx);
        }
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
        let after_timeout = self.p.ns2_compat && self.reduction == Reduction::Timeout;
        let in_recovery = self.p.ns2_compat
            && matches!(
                self.phase,
                Phase::Recovery(Recovery::Fast { .. } | Recovery::Sack1 { .. })
            );
        if (self.phase != Phase::Open && !in_recovery)
            || !(self.beyond_recover(ack) || after_timeout)
        {
            return;
        }
        self.ssthresh = self.sustained(self.reduced_ssthresh(self.snd_max - self.snd_una));
        if self.p.ns2_compat {
            if self.cwnd <= 1.0 {
                if self.ecn_backoff {
                    self.rto.back_off();
                }
                self.ecn_backoff = true;
            } else {
                self.ecn_backoff = false;
            }
            // ns-2 slowdown(CLOSE_CWND_HALF): windowd() / 2, no floor
            self.cwnd = self.sustained(self.window_segments() / 2.0);
        } else {
            self.cwnd = self.sustained(self.half_window());
        }
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
        let in_sack1 = matches!(self.phase, Phase::Recovery(Recovery::Sack1 { .. }));
        // ns-2 Sack1: a partial ACK takes no RTT sample (`newack` is not called)
        let partial_sack1 = in_sack1 && !self.reaches_recover(ack);
        // Karn: only segments sent once are timed (timing stops on any retransmission)
        if let Some(t) = self.timing {
            if ack >= t.end && !partial_sack1 {
                self.timing = None;
                self.take_sample(t.sent, ctx.now, ece);
            }
        }
        // ns-2 opens cwnd on an ECN-Echo ACK until one has been seen (`ect_` is still 0)
        let opens = !ece || (self.p.ns2_compat && !self.ece_seen);
        // (ns-2 Sack1's recovery ACKs skip recv_newack_helper)
        if self.p.ns2_compat && !in_sack1 {
            // ns-2 recv_newack_helper: an ACK without ECN-Echo ends the ECN backoff; `ect_`
            // once one has carried it
            if self.ece_seen && !ece {
                self.ecn_backoff = false;
            }
            self.ece_seen |= ece;
        }
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
                    self.open_cwnd(acked);
                }
                if self.is_sack1() {
                    // ns-2 Sack1TcpAgent::recv: a new ACK outside recovery clears the scoreboard
                    // and ends the timeout's deafness to duplicate ACKs
                    self.clear_scoreboard();
                    self.ignore_dupacks = false;
                }
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
                    // ns-2: the exiting ACK goes through recv_newack_helper → opencwnd
                    if self.p.ns2_compat && opens {
                        self.open_cwnd(acked);
                    }
                } else {
                    // RFC 6582 §3.2 step 3 (partial ACK): retransmit the next hole, deflate by
                    // the amount acknowledged, add back one segment if a segment's worth was
                    let len = self.mss.min(self.snd_max - ack);
                    self.transmit(ack, len, ctx);
                    let mut deflate_to = deflate_to;
                    if self.p.ns2_compat {
                        // ns-2.35 NewRenoTcpAgent::partialnewack (`partial_window_deflation_`):
                        // the window is cwnd_ + dupwnd_; `deflate` packets acknowledged come off
                        // dupwnd_ (less one) while it is larger, otherwise off cwnd_ itself
                        // (floor 1) with dupwnd_ left at 1 — so the window recovery ends with,
                        // cwnd_, can end below where the fast retransmit set it
                        let deflate = (acked / self.mss) as f64;
                        let mut inflation = self.cwnd - deflate_to;
                        if inflation > deflate {
                            inflation -= deflate - 1.0;
                        } else {
                            deflate_to =
                                self.sustained((deflate_to - (deflate - inflation)).max(1.0));
                            inflation = 1.0;
                        }
                        self.cwnd = deflate_to + inflation;
                    } else {
                        let back = if acked >= self.mss { 1.0 } else { 0.0 };
                        self.cwnd = (self.cwnd - acked as f64 / self.mss as f64 + back).max(1.0);
                    }
                    // RFC 6582 §3.2 step 3: reset the timer on the first partial ACK only
                    restart_timer = partial_acks == 0;
                    self.phase = Phase::Recovery(Recovery::Fast {
                        deflate_to,
                        partial_acks: partial_acks + 1,
                    });
                }
            }
            Phase::Recovery(Recovery::Sack { .. }) => {
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
        // ns-2 `delay_growth_` (on by default; tcp-reno.cc, tcp-newreno.cc, tcp-sack1.cc `recv`:
        // `if (last_ack_ == 0 && delay_growth_) cwnd_ = initial_window()`): the ACK of segment 0
        // alone does not grow the window. ns-2's one-way TCP with `syn_` false has no SYN, so
        // this is the first data segment's ACK; with a handshake the SYN-ACK plays its part.
        let exits_sack = self.variant == Variant::Sack && !was_open;
        let first = ack == self.mss.min(self.end);
        if self.p.ns2_compat
            && !self.p.handshake
            && first
            && !exits_sack
            && self.phase == Phase::Open
        {
            self.cwnd = self.growth_window;
        }
        if self.snd_una >= self.end {
            self.complete(ctx);
        } else if self.snd_una == self.snd_max && !(self.p.ns2_compat && self.cwnd < 1.0) {
            // RFC 6298 (5.2): all outstanding data acknowledged: stop the timer (ns-2
            // `newtimer` keeps it while cwnd < 1: an ECN response left nothing to send, and
            // the timer's expiry lets the sender go on)
            self.timer = RetxTimer::Idle;
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
        self.p.ns2_compat && self.variant == Variant::Sack
    }

    fn clear_scoreboard(&mut self) {
        if let Some(sb) = self.sack.as_mut() {
            sb.clear();
        }
    }

    /// RFC 5681 §3.1: slow start (eq. 2) or congestion avoidance (eq. 3).
    fn open_cwnd(&mut self, acked: u64) {
        if self.cwnd < self.ssthresh {
            // cwnd += min(N, SMSS); ns-2 adds a whole segment per new ACK
            self.cwnd += if self.p.ns2_compat {
                1.0
            } else {
                (acked as f64 / self.mss as f64).min(1.0)
            };
        } else {
            // cwnd += SMSS·SMSS/cwnd
            self.cwnd += 1.0 / self.cwnd;
        }
    }

    fn on_dupack(&mut self, ctx: &mut Ctx) {
        match self.phase {
            // RFC 5681 §3.2 step 4: each further duplicate ACK inflates cwnd by one segment
            Phase::Recovery(Recovery::Fast { .. }) => self.cwnd += 1.0,
            // RFC 6675: the scoreboard and pipe account for it (ns-2 Sack1: pipe, in on_ack)
            Phase::Recovery(Recovery::Sack { .. } | Recovery::Sack1 { .. }) => {}
            Phase::Open => {
                self.dupacks += 1;
                let thresh = self.p.dupack_threshold;
                // RFC 6675 §5 (2): IsLost(HighACK + 1) also starts recovery (not in ns-2's Sack1)
                let lost = !self.is_sack1()
                    && self
                        .sack
                        .as_ref()
                        .is_some_and(|sb| sb.is_lost(self.snd_una, self.mss, thresh));
                if self.dupacks == thresh || (lost && self.dupacks < thresh) {
                    self.enter_recovery(ctx);
                } else if self.dupacks < thresh && self.p.limited_transmit {
                    self.limited_transmit(ctx);
                }
            }
            Phase::Waiting | Phase::SynSent { .. } | Phase::Complete => {}
        }
    }

    /// RFC 3042 §2: on each of the first two duplicate ACKs, one new segment if the receiver's
    /// window allows and no more than cwnd + 2 segments would be outstanding.
    ///
    /// `ns2_compat` (ns-2.35 tcp.cc `TcpAgent::send_one`, `singledup_`): the next segment to
    /// send, `t_seqno_`, if at most cwnd + (duplicate ACKs so far) segments would then be
    /// outstanding — also while go-back-N after a timeout has pulled it below HighData, so
    /// the segment may be an old one the receiver already holds (RFC 3042 sends new data only).
    fn limited_transmit(&mut self, ctx: &mut Ctx) {
        if self.p.ns2_compat {
            if self.snd_nxt >= self.end {
                return;
            }
            let len = self.mss.min(self.end - self.snd_nxt);
            let out = self.snd_nxt + len - self.snd_una;
            let allowance = self.cwnd + f64::from(self.dupacks);
            if out as f64 <= allowance * self.mss as f64 && out <= self.p.max_window_bytes {
                if self.snd_nxt == self.snd_max {
                    self.lt_bytes += len;
                }
                self.transmit(self.snd_nxt, len, ctx);
                self.snd_nxt += len;
            }
            return;
        }
        if self.snd_nxt != self.snd_max || self.snd_max >= self.end {
            return;
        }
        let len = self.mss.min(self.end - self.snd_max);
        let out = self.snd_max + len - self.snd_una;
        if out as f64 <= (self.cwnd + 2.0) * self.mss as f64 && out <= self.p.max_window_bytes {
            self.transmit(self.snd_max, len, ctx);
            self.snd_nxt = self.snd_max;
            self.lt_bytes += len;
        }
    }

    /// Fast retransmit: RFC 5681 §3.2 steps 2–3, RFC 6582 §3.2 step 2, RFC 6675 §5 step 4.
    fn enter_recovery(&mut self, ctx: &mut Ctx) {
        let guarded = self.variant != Variant::Reno || self.p.ns2_compat;
        // RFC 6582 §3.2 step 1: only if the cumulative ACK covers more than `recover`; ns-2
        // also when it covers packet 0 alone (`bugfix_ss_`)
        let allowed = !guarded
            || self.beyond_recover(self.snd_una)
            || (self.p.ns2_compat && self.snd_una == self.mss);
        // RFC 3168 §6.1.2: the window was already cut for ECN in this window of data
        let after_ecn = !allowed && self.reduction == Reduction::Ecn;
        if !allowed && !after_ecn {
            return;
        }
        self.stats.fast_recoveries += 1;
        let target = if after_ecn {
            self.cwnd
        } else {
            // RFC 5681 §3.2 step 2: FlightSize excludes limited-transmit segments
            let flight = self.snd_max - self.snd_una - self.lt_bytes;
            self.ssthresh = self.sustained(self.reduced_ssthresh(flight));
            if let EcnState::On { .. } = self.ecn {
                self.ecn = EcnState::On { cwr_pending: true };
            }
            if self.p.ns2_compat {
                self.sustained(self.half_window())
            } else {
                self.ssthresh
            }
        };
        // ns-2 (`dupack_action`, the ECN branch) leaves `recover_` at the ECN reduction's
        if !(after_ecn && self.p.ns2_compat) {
            self.recover = Some(self.snd_max);
        }
        self.reduction = Reduction::Loss;
        // RFC 5681 §3.2 step 2: retransmit the first unacknowledged segment
        let len = self.mss.min(self.snd_max - self.snd_una);
        self.transmit(self.snd_una, len, ctx);
        if self.p.ns2_compat {
            // ns-2 reset_rtx_timer(1, 0) on fast retransmit: restart the timer, stop timing
            self.arm(ctx.now + self.rto.timeout(), ctx);
            self.timing = None;
        }
        match self.variant {
            Variant::Sack if self.p.ns2_compat => {
                // ns-2 Sack1TcpAgent::dupack_action: pipe_ = maxseq_ − highest_ack_ −
                // numdupacks_ (the retransmission is not counted); cwnd halved, not inflated;
                // the scoreboard's next retransmission is the one after this
                let outstanding = (self.snd_max - self.snd_una).div_ceil(self.mss);
                self.cwnd = target;
                let pipe = outstanding as i64 - i64::from(self.p.dupack_threshold);
                self.phase = Phase::Recovery(Recovery::Sack1 {
                    pipe,
                    next_rtx: self.snd_una + len,
                });
            }
            Variant::Sack => {
                // RFC 6675 §5 (4.2): cwnd = ssthresh; (4.3): HighRxt = RescueRxt = the segment
                self.cwnd = target;
                let high = self.snd_una + len;
                self.phase = Phase::Recovery(Recovery::Sack {
                    high_rxt: high,
                    rescue_rxt: Some(high),
                });
            }
            Variant::Reno | Variant::NewReno => {
                // RFC 5681 §3.2 step 3: cwnd = ssthresh + 3·SMSS
                self.cwnd = target + f64::from(self.p.dupack_threshold);
                self.phase = Phase::Recovery(Recovery::Fast {
                    deflate_to: target,
                    partial_acks: 0,
                });
            }
        }
    }

    /// RFC 5681 eq. (4): ssthresh = max(FlightSize/2, 2·SMSS); ns-2: max(⌊window/2⌋, 2).
    fn reduced_ssthresh(&self, flight: u64) -> f64 {
        if self.p.ns2_compat {
            (self.window_segments() / 2.0).floor().max(2.0)
        } else {
            (flight as f64 / self.mss as f64 / 2.0).max(2.0)
        }
    }

    /// Half the usable window, at least one segment (ns-2 `windowd()/2`).
    fn half_window(&self) -> f64 {
        (self.window_segments() / 2.0).max(1.0)
    }

    /// Leung & Muppala §5.1: a window set by a reduction is raised to the Throughput Sustaining
    /// Scheme's floor, target × SRTT / packet_size (`sustain`); unchanged without a target or
    /// before the first RTT sample.
    fn sustained(&self, window: f64) -> f64 {
        if self.p.target_rate_bps.is_none() {
            return window;
        }
        let srtt = if self.rto.has_sample() {
            self.rto.srtt_fine()
        } else {
            SimDuration::ZERO
        };
        let rwnd = self.p.max_window_bytes as f64 / self.mss as f64;
        window.max(sustain::floor_segments(
            self.p.target_rate_bps,
            srtt,
            self.p.packet_size,
            rwnd,
        ))
    }

    /// The cumulative ACK covers all data outstanding at the last reduction (a full ACK).
    fn reaches_recover(&self, ack: u64) -> bool {
        !matches!(self.recover, Some(r) if ack < r)
    }

    /// The cumulative ACK covers data sent after the last reduction: a new window.
    fn beyond_recover(&self, ack: u64) -> bool {
        !matches!(self.recover, Some(r) if ack <= r)
    }

    /// min(cwnd, rwnd) in segments.
    fn window_segments(&self) -> f64 {
        self.cwnd
            .min(self.p.max_window_bytes as f64 / self.mss as f64)
    }

    // ---------------------------------------------------------------- timeout

    fn on_timeout(&mut self, ctx: &mut Ctx) {
        match self.phase {
            Phase::SynSent { .. } => {
                // RFC 6298 §5.5–5.6 for the SYN
                self.stats.timeouts += 1;
                self.rto.back_off();
                self.send_syn(ctx);
                self.phase = Phase::SynSent {
                    sent_at: ctx.now,
                    retransmitted: true,
                };
                self.arm(ctx.now + self.rto.timeout(), ctx);
                return;
            }
            Phase::Open | Phase::Recovery(_) => {}
            Phase::Waiting | Phase::Complete => return,
        }
        if self.snd_una >= self.snd_max {
            if self.p.ns2_compat && self.cwnd < 1.0 {
                // ns-2 (`TcpAgent::timeout` with no data outstanding, `restart_bugfix_`): the
                // timer an ECN response left running at cwnd < 1 expires: cwnd = 1 segment,
                // ssthresh and the backoff unchanged, and sending resumes
                self.stats.timeouts += 1;
                self.cwnd = 1.0;
                self.recover = Some(self.snd_max);
                self.reduction = Reduction::Timeout;
                if let EcnState::On { .. } = self.ecn {
                    self.ecn = EcnState::On { cwr_pending: true };
                }
                self.send_more(ctx);
            }
            return;
        }
        self.stats.timeouts += 1;
        if let Phase::Recovery(Recovery::Fast { deflate_to, .. }) = self.phase {
            // leave fast recovery first: the inflation is not part of the window (ns-2 zeroes
            // dupwnd_ before its timeout code halves the window)
            self.cwnd = self.cwnd.min(deflate_to);
        }
        // ns-2 (`TcpAgent::timeout`): a timeout before the ECN reduction's window is
        // acknowledged closes cwnd to one segment but leaves ssthresh as the reduction set it
        // (and is not counted in `nrexmit_`)
        let ends_ecn = self.p.ns2_compat
            && self.reduction == Reduction::Ecn
            && !self.reaches_recover(self.snd_una);
        // RFC 5681 §3.1: ssthresh by eq. (4) unless this segment was already resent by the
        // timer; ns-2 halves again at every timeout
        if !ends_ecn && (self.p.ns2_compat || self.timeout_una != Some(self.snd_una)) {
            self.ssthresh = self.sustained(self.reduced_ssthresh(self.snd_max - self.snd_una));
        }
        if self.p.ns2_compat && self.snd_una == 0 {
            // ns-2 `bugfix_ss_`: segment 0 lost, so no larger initial window afterwards
            self.growth_window = 1.0;
        }
        self.timeout_una = Some(self.snd_una);
        // RFC 5681 §3.1: cwnd = loss window = one segment (or the sustaining floor)
        self.cwnd = self.sustained(1.0);
        self.dupacks = 0;
        self.lt_bytes = 0;
        self.phase = Phase::Open;
        // RFC 6582 §3.2 step 4, RFC 6675 §5.1: no new recovery below HighData at the timeout
        self.recover = Some(self.snd_max);
        self.reduction = Reduction::Timeout;
        if let EcnState::On { .. } = self.ecn {
            self.ecn = EcnState::On { cwr_pending: true };
        }
        if self.p.ns2_compat {
            // ns-2 Sack1TcpAgent::timeout: scoreboard cleared, duplicate ACKs ignored until
            // the next new ACK (`timeout_`)
            self.clear_scoreboard();
            self.ignore_dupacks = self.sack.is_some();
        }
        // RFC 6298 (5.5): back off; Karn: stop timing; (5.4): resend from SND.UNA
        self.rto.back_off();
        self.timing = None;
        self.snd_nxt = self.snd_una;
        // (5.6): the first retransmission below arms the timer with the backed-off RTO
        self.send_more(ctx);
    }

    // ---------------------------------------------------------------- sending

    fn send_more(&mut self, ctx: &mut Ctx) {
        match self.phase {
            Phase::Open | Phase::Recovery(Recovery::Fast { .. }) => self.send_window(None, ctx),
            Phase::Recovery(Recovery::Sack {
                high_rxt,
                rescue_rxt,
            }) => self.send_sack(high_rxt, rescue_rxt, ctx),
            Phase::Recovery(Recovery::Sack1 { pipe, next_rtx }) => {
                self.send_sack1(pipe, next_rtx, ctx)
            }
            Phase::Waiting | Phase::SynSent { .. } | Phase::Complete => {}
        }
    }

    /// Sends whole segments from `snd_nxt` while they fit in min(cwnd, rwnd), at most `burst`
    /// of them if given.
    fn send_window(&mut self, burst: Option<u32>, ctx: &mut Ctx) {
        let wnd = (self.cwnd * self.mss as f64).min(self.p.max_window_bytes as f64);
        let mut sent = 0;
        // RFC 6675 §5.1 uses the scoreboard in go-back-N; ns-2's Sack1 does not (its scoreboard
        // is cleared by every new ACK outside recovery)
        let use_board = !self.is_sack1();
        while self.snd_nxt < self.end {
            let board = self.sack.as_ref().filter(|_| use_board);
            if self.snd_nxt < self.snd_max {
                // RFC 6675 §5.1: after a timeout, do not resend what the receiver SACKed
                if let Some(e) = board.and_then(|sb| sb.sacked_until(self.snd_nxt)) {
                    self.snd_nxt = e.min(self.snd_max);
                    continue;
                }
            }
            let len = self.mss.min(self.end - self.snd_nxt);
            let mut outstanding = self.snd_nxt + len - self.snd_una;
            if self.snd_nxt < self.snd_max {
                // go-back-N after a timeout: what the receiver SACKed is not in flight
                if let Some(sb) = board {
                    outstanding -= sb.sacked_between(self.snd_una, self.snd_nxt);
                }
            }
            if outstanding as f64 > wnd || burst.is_some_and(|b| sent >= b) {
                break;
            }
            self.transmit(self.snd_nxt, len, ctx);
            self.snd_nxt += len;
            sent += 1;
        }
    }

    /// RFC 6675 §5 (B)–(C): while cwnd − pipe ≥ 1 SMSS, send what NextSeg() chooses.
    fn send_sack(&mut self, high_rxt: u64, rescue_rxt: Option<u64>, ctx: &mut Ctx) {
        let Some(sb) = self.sack.take() else { return };
        let mut m = Marks {
            high_ack: self.snd_una,
            high_data: self.snd_max,
            high_rxt,
            rescue_rxt,
            recovery_point: self.recover.unwrap_or(self.snd_max),
            mss: self.mss,
            dupthresh: self.p.dupack_threshold,
        };
        let cwnd = self.cwnd * self.mss as f64;
        // (B.2) SetPipe()
        let mut pipe = sb.pipe(&m);
        while cwnd - pipe as f64 >= self.mss as f64 {
            let len_new = self.mss.min(self.end.saturating_sub(self.snd_max));
            let new_ok =
                len_new > 0 && self.snd_max + len_new - self.snd_una <= self.p.max_window_bytes;
            match sb.next_seg(&m, new_ok) {
                NextSeg::Retransmit { start, len, rescue } => {
                    self.transmit(start, len, ctx);
                    // (C.2) HighRxt moves, except for a rescue retransmission (NextSeg rule 4)
                    if rescue {
                        m.rescue_rxt = Some(m.recovery_point);
                    } else {
                        m.high_rxt = start + len;
                    }
                    pipe += len;
                }
                NextSeg::NewData => {
                    // (C.3) HighData moves
                    self.transmit(self.snd_max, len_new, ctx);
                    self.snd_nxt = self.snd_max;
                    m.high_data = self.snd_max;
                    pipe += len_new;
                }
                NextSeg::Nothing => break,
            }
        }
        self.sack = Some(sb);
        self.phase = Phase::Recovery(Recovery::Sack {
            high_rxt: m.high_rxt,
            rescue_rxt: m.rescue_rxt,
        });
    }

    /// ns-2.35 tcp-sack1.cc `Sack1TcpAgent::send_much` in fast recovery: while pipe < ⌊cwnd⌋,
    /// the next hole from `next_rtx` below the highest SACKed byte (`ScoreBoardRQ::
    /// GetNextRetran`), else new data; nothing beyond the receiver's window.
    fn send_sack1(&mut self, mut pipe: i64, mut next_rtx: u64, ctx: &mut Ctx) {
        let wnd_end = self.snd_una + self.p.max_window_bytes;
        while pipe < self.cwnd.floor() as i64 {
            let hole = self
                .sack
                .as_ref()
                .and_then(|sb| sb.next_hole(next_rtx.max(self.snd_una)));
            if let Some(start) = hole {
                let len = self.mss.min(self.snd_max - start);
                if start + len > wnd_end {
                    break;
                }
                self.transmit(start, len, ctx);
                next_rtx = start + len;
            } else {
                let len = self.mss.min(self.end.saturating_sub(self.snd_max));
                if len == 0 || self.snd_max + len > wnd_end {
                    break;
                }
                self.transmit(self.snd_max, len, ctx);
                self.snd_nxt = self.snd_max;
            }
            pipe += 1;
        }
        self.phase = Phase::Recovery(Recovery::Sack1 { pipe, next_rtx });
    }

    /// Sends the data segment `[start, start + len)`: a retransmission if below HighData.
    fn transmit(&mut self, start: u64, len: u64, ctx: &mut Ctx) {
        let retx = start < self.snd_max;
        let mut f = if self.p.handshake { flags::ACK } else { 0 };
        let mut ecn = Ecn::NotEct;
        if let EcnState::On { cwr_pending } = self.ecn {
            // RFC 3168 §6.1.5: retransmitted data is not ECN-capable (ns-2 marks it anyway)
            let may = !retx || self.p.ns2_compat;
            // ns-2 `TcpAgent::output` sends packet 0 not ECN-capable (its SYN, even with `syn_`
            // false, when it is the first data segment)
            let syn_slot = self.p.ns2_compat && !self.p.handshake && start == 0;
            if may && !syn_slot {
                ecn = Ecn::Ect0;
            }
            if syn_slot {
                // ... and with ECN-Echo set: `if (seqno == 0) { ... if (ecn_) { hf->ecnecho() =
                // 1; hf->ect() = 0; } }`, ECN's SYN negotiation, which TCPSink answers with
                // ECN-Echo on the ACK of packet 0 (the receiver's `negotiated_echo`)
                f |= flags::ECE;
            }
            // RFC 3168 §6.1.2: CWR on the first new data segment after a reduction
            if cwr_pending && may {
                f |= flags::CWR;
                self.ecn = EcnState::On { cwr_pending: false };
            }
        }
        self.emit(start, len as u32, f, ecn, ctx);
        self.stats.segments_sent += 1;
        self.stats.bytes_sent += len;
        if retx {
            self.stats.retransmitted_segments += 1;
            self.stats.retransmitted_bytes += len;
            // Karn: a retransmission spoils the segment being timed (ns-2 stops timing only
            // at a fast retransmit or a timeout, `reset_rtx_timer`)
            if !self.p.ns2_compat {
                self.timing = None;
            }
        } else {
            self.snd_max = start + len;
            if self.timing.is_none() {
                self.timing = Some(Timing {
                    end: start + len,
                    sent: ctx.now,
                });
            }
        }
        // RFC 6298 (5.1): a data segment sent while the timer is off starts it
        if self.timer == RetxTimer::Idle {
            self.arm(ctx.now + self.rto.timeout(), ctx);
        }
    }

    fn emit(&mut self, seq: u64, payload: u32, f: u16, ecn: Ecn, ctx: &mut Ctx) {
        // ns-2 `TcpAgent::output` adds the header bytes to every packet but packet 0, its SYN
        // slot: with `syn_` false the first data segment leaves as its payload alone
        let headers = if self.p.ns2_compat && !self.p.handshake && seq == 0 && payload > 0 {
            0
        } else {
            HEADER_BYTES
        };
        ctx.send(Packet {
            src: self.src,
            dst: self.dst,
            protocol: proto::TCP,
            ecn,
            size: payload + headers,
            flow: self.flow,
            dst_agent: self.peer,
            rev: false,
            th: TransportHeader {
                seq,
                payload,
                flags: f,
                ..Default::default()
            },
            ..Default::default()
        });
    }

    // ---------------------------------------------------------------- timer, samples, end

    /// Starts or restarts the retransmission timer to expire at `deadline`.
    fn arm(&mut self, deadline: SimTime, ctx: &mut Ctx) {
        match self.timer {
            RetxTimer::Armed {
                event_at, token, ..
            } if event_at <= deadline => {
                self.timer = RetxTimer::Armed {
                    deadline,
                    event_at,
                    token,
                };
            }
            RetxTimer::Armed { .. } | RetxTimer::Idle => {
                self.next_token = self.next_token.wrapping_add(1).max(1);
                let token = self.next_token;
                ctx.set_timer(deadline, token);
                self.timer = RetxTimer::Armed {
                    deadline,
                    event_at: deadline,
                    token,
                };
            }
        }
    }

    /// An RTT sample, from an ACK that carried ECN-Echo if `ece`.
    fn take_sample(&mut self, sent: SimTime, now: SimTime, ece: bool) {
        self.rto.sample(sent, now);
        // Karn: a valid sample ends the backoff; ns-2 (`TcpAgent::newack`) keeps it while an
        // ECN-Echo keeps cwnd at one segment or less (`ecn_backoff_`)
        if !(self.p.ns2_compat && self.ece_seen && self.ecn_backoff && ece) {
            self.rto.end_backoff();
            self.ecn_backoff = false;
        }
        let x = now.saturating_since(sent).as_secs_f64();
        let s = &mut self.stats;
        s.rtt_samples += 1;
        let d = x - s.rtt_mean_s;
        s.rtt_mean_s += d / s.rtt_samples as f64;
        self.rtt_m2 += d * (x - s.rtt_mean_s);
        s.rtt_std_s = (self.rtt_m2 / s.rtt_samples as f64).sqrt();
    }

    fn complete(&mut self, ctx: &mut Ctx) {
        self.phase = Phase::Complete;
        self.timer = RetxTimer::Idle;
        self.stats.completion_time_s = Some(ctx.now.as_secs_f64());
        ctx.source_done();
        ctx.transfer_complete();
    }

    #[inline]
    fn record(&mut self, now: SimTime) {
        if self.trace.is_none() {
            return;
        }
        let point = Point {
            cwnd: self.cwnd_bytes(),
            ssthresh: self.ssthresh_bytes(),
            srtt: self.rto.srtt().as_secs_f64(),
            rto: self.rto.timeout().as_secs_f64(),
            bytes_in_flight: self.flight_bytes(),
        };
        if let Some(t) = self.trace.as_mut() {
            t.record(now, point);
        }
    }

    // ---------------------------------------------------------------- test fixtures

    /// Puts the congestion state where a test needs it (segments).
    #[cfg(test)]
    pub(crate) fn set_window(&mut self, cwnd: f64, ssthresh: f64) {
        self.cwnd = cwnd;
        self.ssthresh = ssthresh;
    }

    /// Feeds the RTT estimator one sample, as the ACK of a segment sent once would.
    #[cfg(test)]
    pub(crate) fn sample_rtt(&mut self, sent: SimTime, now: SimTime) {
        self.take_sample(sent, now, false);
    }

    /// The smoothed RTT the retransmission timer holds, to an eighth of a tick (zero before
    /// any sample).
    #[cfg(test)]
    pub(crate) fn srtt(&self) -> SimDuration {
        self.rto.srtt_fine()
    }

    /// When the retransmission timer expires, if it runs.
    #[cfg(test)]
    pub(crate) fn timer_deadline(&self) -> Option<SimTime> {
        match self.timer {
            RetxTimer::Armed { deadline, .. } => Some(deadline),
            RetxTimer::Idle => None,
        }
    }
}

#[cfg(test)]
pub(crate) mod tests;
