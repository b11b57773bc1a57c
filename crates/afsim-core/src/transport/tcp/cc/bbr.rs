//! BBR v1, draft-cardwell-iccrg-bbr-congestion-control-00 (the algorithm Linux's `tcp_bbr.c`
//! implements), in payload bytes, segments and nanoseconds.
//!
//! Read this first: BBR keeps a model of the path — the bottleneck bandwidth BtlBw, a windowed
//! maximum of delivery-rate samples over 10 round trips (§4.1.1), and the round-trip
//! propagation time RTprop, a windowed minimum of RTT samples over 10 s (§4.1.2) — and sets
//! from it the pacing rate, pacing_gain · BtlBw (§4.2.1), and cwnd, cwnd_gain · BtlBw ·
//! RTprop plus 3 send quanta (§4.2.3). `on_ack` runs the draft's per-ACK steps in its order
//! (§4.3.x "BBRUpdateModelAndState", then "BBRUpdateControlParameters"): UpdateBtlBw (with
//! UpdateRound), CheckCyclePhase, CheckFullPipe, CheckDrain, UpdateRTprop, CheckProbeRTT;
//! SetPacingRate, SetSendQuantum, SetCwnd. The state machine (§4.3):
//!
//! - Startup: pacing and cwnd gain 2/ln 2; the pipe is full when BtlBw has not grown by 25 %
//!   in 3 rounds (§4.3.2.2), then Drain: pacing gain ln 2/2 until the data in flight is at
//!   most one BDP (§4.3.3), then ProbeBW.
//! - ProbeBW: cwnd gain 2, pacing gain cycling 5/4, 3/4, 1 ×6, a phase lasting at least
//!   RTprop; 5/4 ends early only with losses or when inflight reaches 5/4 BDP, 3/4 ends when
//!   inflight falls to a BDP (§4.3.4.3); entered at a random phase other than 3/4 (§4.3.4.4;
//!   the draw is the flow's own random stream).
//! - ProbeRTT: when RTprop has not been refreshed for 10 s, cwnd = 4 segments until inflight
//!   is at most 4, then for max(200 ms, one round), then back to ProbeBW (or Startup if the
//!   pipe was never full) (§4.3.5).
//!
//! Loss recovery is the sender's (NewReno or SACK): `on_congestion` saves cwnd, starts a
//! round and gives the packet-conserving window (inflight less the segments the duplicate ACKs
//! and the loss took out of the network, §4.2.3.4 "cwnd = BytesInFlight + ..."); in SACK
//! recovery `recovery_cwnd` runs §4.2.3.4's BBRModulateCwndForRecovery on each later ACK: the
//! segments the ACK newly marked lost come off cwnd (RACK's marks, or RFC 6675 `IsLost()`'s),
//! packet conservation holds for that round, then cwnd grows towards the target; cwnd follows
//! the model again once recovery ends, restored to at least the saved cwnd (§4.2.3.4, "upon
//! exiting loss recovery"). After a timeout cwnd is 1 segment and grows by what each ACK delivers.
//! ECN-Echo does not change cwnd (Linux BBR v1: `tcp_bbr.c` has no ECN response; BBR's own
//! `cong_control` replaces the reduction `tcp_input.c` would make). Not modelled: the
//! application-limited marks (sources are greedy), idle restart, Linux's 1 % pacing margin
//! (docs/assumptions.md).
//!
//! Options (`Linux`, all off by default): three parts of Linux's `tcp_bbr.c` the draft does not
//! have — the ACK-aggregation cwnd allowance, the quantization budget, and the long-term
//! (policer) bandwidth estimate `lt_bw` (`bbr_linux.rs` says which functions and kernels); and
//! Linux's window in loss recovery, `recovery_losses` (`bbr_set_cwnd_to_recover_or_restore`):
//! the same deduction of newly lost segments, but also outside recovery (after a timeout),
//! none at all on an ACK that delivers nothing, and recovery starting from the pipe plus what
//! the ACK delivered at its first ACK with data, where the default starts from inflight −
//! dupthresh at the fast retransmit.

use crate::sim::rng::Rng;
use crate::sim::time::{SimDuration, SimTime};
use crate::transport::tcp::cc::bbr_linux::{self, AckAggregation, LtAck, LtBw, LtEvent};
use crate::transport::tcp::cc::rate::Sample;

/// Linux `tcp_bbr.c` behaviours beyond draft-00 (`bbr_linux.rs`); all off by default.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Linux {
    /// `bbr_ack_aggregation_cwnd`: extra_acked added to cwnd's target.
    pub ack_aggregation: bool,
    /// `bbr_quantization_budget` instead of the draft's 3 send quanta.
    pub quantization_budget: bool,
    /// `bbr_lt_bw_sampling`: the long-term (policer) bandwidth estimate.
    pub policer_detection: bool,
    /// Pacing per TSO burst of `bbr_tso_segs_goal` segments (`sender/control.rs`): the
    /// segments of a burst leave back to back.
    pub tso_bursts: bool,
    /// Linux `bbr_set_cwnd_to_recover_or_restore` in RACK recovery: the segments an ACK
    /// newly marks lost come off cwnd, recovery starts from the pipe plus what the ACK
    /// delivered, and an ACK that delivers nothing leaves cwnd alone (`recovery_losses`).
    pub recovery_losses: bool,
}

/// §4.3.2.1: 2/ln 2, the smallest gain that doubles the sending rate each round.
pub const HIGH_GAIN: f64 = 2.885_390_081_777_927; // 2 / ln 2
/// §4.3.4.1: the ProbeBW pacing-gain cycle.
pub const GAIN_CYCLE: [f64; 8] = [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];
/// §4.1.1: BtlBwFilterLen, round trips.
pub const BTLBW_FILTER_LEN: usize = 10;
/// §4.1.2: RTpropFilterLen.
pub const RTPROP_FILTER_LEN: SimDuration = SimDuration::from_secs(10);
/// §4.3.5: ProbeRTTDuration.
pub const PROBE_RTT_DURATION: SimDuration = SimDuration::from_millis(200);
/// §4.2.3.1: BBRMinPipeCwnd, segments.
pub const MIN_PIPE_CWND: f64 = 4.0;

/// The state machine's states (§4.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
}

/// What one ACK tells BBR.
#[derive(Clone, Copy, Debug)]
pub struct Ack {
    pub now: SimTime,
    pub sample: Sample,
    /// C.delivered after this ACK, bytes.
    pub delivered: u64,
    /// Bytes in flight before and after this ACK.
    pub prior_inflight: u64,
    pub inflight: u64,
    /// Segments this ACK revealed as lost (a fast retransmit or timeout began).
    pub lost: bool,
    /// Whether the sender is in loss recovery (BBR then leaves cwnd to it).
    pub in_recovery: bool,
    /// Segments marked lost so far (Linux `tp->lost`; afsim: segments retransmitted), for
    /// the long-term bandwidth estimate.
    pub lost_segs: u64,
    /// Segments this ACK newly marked lost (draft-00 §4.2.3.4 packets_lost, Linux
    /// `rs->losses`): RACK's marks with RACK, else RFC 6675 `IsLost()`'s in a SACK recovery;
    /// 0 otherwise (NewReno recovery, where BBR leaves the window to the sender).
    pub losses: u64,
}

/// The BBR state of one sender.
#[derive(Clone, Debug)]
pub struct Bbr {
    mss: f64,
    /// 1 / mss: segments from bytes without a division per ACK.
    inv_mss: f64,
    initial_cwnd: f64,
    mode: Mode,
    /// Max filter: the largest sample of each of the last 10 rounds, by round % 10.
    bw_slots: [(u64, f64); BTLBW_FILTER_LEN],
    btlbw: f64,
    rtprop: Option<SimDuration>,
    rtprop_stamp: SimTime,
    rtprop_expired: bool,
    round_count: u64,
    next_round_delivered: u64,
    round_start: bool,
    filled_pipe: bool,
    full_bw: f64,
    full_bw_count: u32,
    pacing_gain: f64,
    cwnd_gain: f64,
    /// Bytes per second.
    pacing_rate: f64,
    send_quantum: f64,
    cycle_index: usize,
    cycle_stamp: SimTime,
    probe_rtt_done: Option<SimTime>,
    probe_rtt_round_done: bool,
    prior_cwnd: f64,
    was_in_recovery: bool,
    /// Packet conservation: the first round of a loss recovery (§4.2.3.4; Linux
    /// `packet_conservation`, cleared at the next round start).
    conservation: bool,
    rng: Rng,
    /// Linux's ACK-aggregation estimate (`Linux::ack_aggregation`).
    aggr: Option<AckAggregation>,
    quantize: bool,
    /// Linux's long-term bandwidth estimate (`Linux::policer_detection`), and `lost_segs` at
    /// the previous ACK.
    lt: Option<LtBw>,
    lt_lost_seen: u64,
    /// `Linux::recovery_losses`, and a recovery entered whose first ACK with data delivered
    /// has not yet set cwnd (Linux: `prev_ca_state` not yet `TCP_CA_Recovery`).
    recovery_losses: bool,
    entering: bool,
}

impl Bbr {
    /// BBRInit (§4.3.1) at `now` for segments of `mss` bytes and an initial window of
    /// `initial_cwnd` segments, with the smoothed RTT `srtt` if known.
    pub fn new(
        mss: u64,
        initial_cwnd: f64,
        now: SimTime,
        srtt: Option<SimDuration>,
        rng: Rng,
    ) -> Bbr {
        let mss = mss as f64;
        let mut b = Bbr {
            mss,
            inv_mss: 1.0 / mss,
            initial_cwnd,
            mode: Mode::Startup,
            bw_slots: [(u64::MAX, 0.0); BTLBW_FILTER_LEN],
            btlbw: 0.0,
            rtprop: srtt,
            rtprop_stamp: now,
            rtprop_expired: false,
            round_count: 0,
            next_round_delivered: 0,
            round_start: false,
            filled_pipe: false,
            full_bw: 0.0,
            full_bw_count: 0,
            pacing_gain: HIGH_GAIN,
            cwnd_gain: HIGH_GAIN,
            pacing_rate: 0.0,
            send_quantum: mss,
            cycle_index: 0,
            cycle_stamp: now,
            probe_rtt_done: None,
            probe_rtt_round_done: false,
            prior_cwnd: initial_cwnd,
            was_in_recovery: false,
            conservation: false,
            rng,
            aggr: None,
            quantize: false,
            lt: None,
            lt_lost_seen: 0,
            recovery_losses: false,
            entering: false,
        };
        // BBRInitPacingRate: nominal bandwidth = InitialCwnd / (SRTT or 1 ms)
        let rtt = srtt.map_or(1e-3, |d| d.as_secs_f64().max(1e-6));
        b.pacing_rate = HIGH_GAIN * initial_cwnd * mss / rtt;
        b
    }

    /// Turns on the Linux behaviours `l` asks for.
    pub fn with_linux(mut self, l: Linux) -> Bbr {
        self.aggr = l.ack_aggregation.then(AckAggregation::default);
        self.quantize = l.quantization_budget;
        self.lt = l.policer_detection.then(LtBw::default);
        self.recovery_losses = l.recovery_losses;
        self
    }

    /// The ACK-aggregation estimate, if that option is on.
    pub fn ack_aggregation(&self) -> Option<&AckAggregation> {
        self.aggr.as_ref()
    }

    /// The long-term bandwidth estimate, if that option is on.
    pub fn lt_bw(&self) -> Option<&LtBw> {
        self.lt.as_ref()
    }

    /// The bandwidth BBR paces at and sizes cwnd from: the long-term rate while a policer is
    /// detected (Linux `bbr_bw`), else BtlBw; bytes per second.
    pub fn bw(&self) -> f64 {
        self.lt.as_ref().and_then(LtBw::bw).unwrap_or(self.btlbw)
    }

    /// BBRInit again at `now`, when the connection opens (with the handshake's RTT, if any).
    pub fn restart(&mut self, now: SimTime, srtt: Option<SimDuration>) {
        self.rtprop = srtt;
        self.rtprop_stamp = now;
        self.cycle_stamp = now;
        let rtt = srtt.map_or(1e-3, |d| d.as_secs_f64().max(1e-6));
        self.pacing_rate = HIGH_GAIN * self.initial_cwnd * self.mss / rtt;
    }

    /// BBRRestoreCwnd: at least the window saved at the last loss or ProbeRTT.
    pub fn restore_cwnd(&self, cwnd: f64) -> f64 {
        cwnd.max(self.prior_cwnd)
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// BtlBw, payload bytes per second.
    pub fn btlbw(&self) -> f64 {
        self.btlbw
    }

    pub fn rtprop(&self) -> Option<SimDuration> {
        self.rtprop
    }

    pub fn pacing_gain(&self) -> f64 {
        self.pacing_gain
    }

    pub fn cwnd_gain(&self) -> f64 {
        self.cwnd_gain
    }

    pub fn filled_pipe(&self) -> bool {
        self.filled_pipe
    }

    pub fn round_count(&self) -> u64 {
        self.round_count
    }

    pub fn cycle_index(&self) -> usize {
        self.cycle_index
    }

    /// The pacing rate, payload bytes per second.
    pub fn pacing_rate(&self) -> f64 {
        self.pacing_rate
    }

    /// BBRInflight(gain) (§4.2.3.2), segments: gain · BDP + 3 send quanta; the initial window
    /// before any RTT sample.
    pub fn inflight(&self, gain: f64) -> f64 {
        self.inflight_at(self.btlbw, gain)
    }

    /// BBRInflight at bandwidth `bw` (bytes per second); with the quantization budget Linux's
    /// `bbr_inflight`: `bbr_quantization_budget(⌈gain · BDP⌉)`.
    fn inflight_at(&self, bw: f64, gain: f64) -> f64 {
        match self.rtprop {
            None => self.initial_cwnd,
            Some(rt) => {
                let bdp = bw * rt.as_secs_f64() * self.inv_mss;
                if self.quantize {
                    let probing = self.mode == Mode::ProbeBw && self.cycle_index == 0;
                    bbr_linux::quantization_budget(
                        (gain * bdp).ceil(),
                        self.pacing_rate,
                        self.mss,
                        probing,
                    )
                } else {
                    gain * bdp + 3.0 * self.send_quantum * self.inv_mss
                }
            }
        }
    }

    /// One ACK: updates the model and the state, returns the new cwnd (segments) from `cwnd`.
    /// (It and its per-ACK steps are inlined into the sender's ACK processing, as is the rate
    /// sampler's `on_ack` and `on_send`: issue 25 keeps BBR within 1.3 × Reno's instructions
    /// per packet-hop, docs/performance.md.)
    #[inline(always)]
    pub fn on_ack(&mut self, a: &Ack, cwnd: f64) -> f64 {
        // BBRUpdateModelAndState
        self.update_btlbw(a);
        if let (Some(g), Some(_)) = (self.aggr.as_mut(), a.sample.rate_bytes_per_s) {
            // Linux bbr_update_ack_aggregation, after bbr_update_bw
            let acked = a.sample.newly_delivered as f64 * self.inv_mss;
            let bw = self.lt.as_ref().and_then(LtBw::bw).unwrap_or(self.btlbw) * self.inv_mss;
            g.update(self.round_start, a.now, acked, bw, cwnd);
        }
        self.check_cycle_phase(a);
        self.check_full_pipe(a);
        self.check_drain(a);
        self.update_rtprop(a);
        let mut cwnd = self.check_probe_rtt(a, cwnd);
        // BBRUpdateControlParameters
        self.set_pacing_rate();
        self.set_send_quantum();
        if a.in_recovery {
            // the sender's recovery sets the window (`recovery_cwnd` for SACK recovery)
            self.was_in_recovery = true;
            return cwnd;
        }
        if self.recovery_losses {
            if a.sample.newly_delivered == 0 {
                // Linux bbr_set_cwnd: `if (!acked) goto done` (only the caps apply)
                return self.probe_rtt_cap(cwnd);
            }
            // Linux bbr_set_cwnd_to_recover_or_restore: the newly lost come off cwnd in
            // every state (after a timeout too)
            cwnd = deduct(cwnd, a.losses);
        }
        if self.was_in_recovery {
            // §4.2.3.4: upon exiting loss recovery, restore the saved cwnd
            self.was_in_recovery = false;
            self.conservation = false;
            self.entering = false;
            cwnd = cwnd.max(self.prior_cwnd);
        }
        self.set_cwnd(a, cwnd)
    }

    /// A loss (fast retransmit) with `flight` segments outstanding, `dupthresh` of them known
    /// to have left the network and one lost, `delivered` bytes delivered so far: saves cwnd,
    /// starts a round and packet conservation, returns the window (at least 1 segment) the
    /// sender's recovery starts from (§4.2.3.4).
    pub fn on_congestion(&mut self, cwnd: f64, flight: f64, dupthresh: f64, delivered: u64) -> f64 {
        self.save_cwnd(cwnd, false);
        self.was_in_recovery = true;
        if self.recovery_losses {
            // Linux: entering recovery leaves cwnd to BBR's next `cong_control` call
            // (`bbr_ssthresh` only saves it); `recovery_cwnd` starts packet conservation and
            // the round at the first ACK that delivers data
            self.entering = true;
            return cwnd;
        }
        self.conservation = true;
        self.next_round_delivered = delivered;
        (flight - dupthresh).max(1.0)
    }

    /// cwnd during a SACK loss recovery, from `cwnd`, with `pipe` segments in the network
    /// (RFC 6675's pipe), draft-00 §4.2.3.4's BBRModulateCwndForRecovery on every ACK after
    /// the one that began the recovery: cwnd loses the segments the ACK newly marked lost
    /// (`Ack::losses`, at least 1 left), then in the first round packet conservation,
    /// max(cwnd, pipe + delivered); in later rounds growth towards the model's target as
    /// outside recovery (§4.2.3.6 BBRSetCwnd). The ACK that began the recovery keeps the window
    /// `on_congestion` gave (§4.2.3.4 "upon entering Fast Recovery": the losses that started it
    /// are already out of that window).
    ///
    /// With `Linux::recovery_losses`, `bbr_set_cwnd_to_recover_or_restore` (tcp_bbr.c; the
    /// same steps as draft-00 §4.2.3.4's BBRModulateCwndForRecovery): nothing changes on an ACK
    /// that delivers nothing (`bbr_set_cwnd`: `if (!acked) goto done`); else cwnd loses the
    /// segments the ACK newly marked lost (at least 1 left), the recovery's first such ACK sets
    /// cwnd to `tcp_packets_in_flight` + acked (the pipe, lost segments excluded) and starts
    /// packet conservation and a round.
    pub fn recovery_cwnd(&mut self, a: &Ack, cwnd: f64, pipe: f64) -> f64 {
        let delivered = a.sample.newly_delivered as f64 * self.inv_mss;
        let mut cwnd = cwnd;
        if self.recovery_losses {
            if a.sample.newly_delivered == 0 {
                return self.probe_rtt_cap(cwnd);
            }
            cwnd = deduct(cwnd, a.losses);
            if self.entering {
                self.entering = false;
                self.conservation = true;
                self.next_round_delivered = a.delivered;
                cwnd = pipe + delivered;
            }
            if self.conservation {
                return self.probe_rtt_cap(cwnd.max(pipe + delivered));
            }
            return self.set_cwnd(a, cwnd);
        }
        if !a.lost {
            // draft-00 §4.2.3.4 BBRModulateCwndForRecovery: "if (packets_lost > 0) cwnd =
            // max(cwnd - packets_lost, 1)"
            cwnd = deduct(cwnd, a.losses);
        }
        if self.conservation {
            return cwnd.max(pipe + delivered);
        }
        self.set_cwnd(a, cwnd)
    }

    /// The retransmission timer expired at window `cwnd` (before the sender sets it to 1).
    pub fn on_timeout(&mut self, cwnd: f64) {
        self.save_cwnd(cwnd, false);
        // Linux bbr_set_state(TCP_CA_Loss): the full-pipe test starts over
        self.full_bw = 0.0;
        self.full_bw_count = 0;
        self.round_start = true;
    }

    /// With policer detection, Linux's `bbr_set_state(TCP_CA_Loss)` also runs a long-term
    /// sample with a loss and a round start, at `now` with `delivered` bytes and `lost_segs`
    /// segments lost so far.
    pub fn lt_timeout(&mut self, now: SimTime, delivered: u64, lost_segs: u64) {
        let a = LtAck {
            now,
            round_start: true,
            losses: 1,
            delivered,
            lost: lost_segs,
            probe_bw: self.mode == Mode::ProbeBw,
        };
        self.lt_sample(&a);
    }

    fn lt_sample(&mut self, a: &LtAck) {
        let Some(lt) = self.lt.as_mut() else { return };
        match lt.sample(a, self.mss) {
            LtEvent::None => {}
            LtEvent::Engaged => {
                // Linux: pacing_gain = BBR_UNIT; bbr_update_gains keeps 1 in ProbeBW
                if self.mode == Mode::ProbeBw {
                    self.pacing_gain = 1.0;
                }
            }
            // Linux bbr_reset_probe_bw_mode
            LtEvent::Expired => self.enter_probe_bw(a.now),
        }
    }

    fn save_cwnd(&mut self, cwnd: f64, in_recovery: bool) {
        // BBRSaveCwnd
        self.prior_cwnd = if !in_recovery && self.mode != Mode::ProbeRtt {
            cwnd
        } else {
            self.prior_cwnd.max(cwnd)
        };
    }

    #[inline(always)]
    fn update_btlbw(&mut self, a: &Ack) {
        // BBRUpdateRound (§4.1.1.3)
        self.round_start = false;
        if !a.sample.from_segment {
            return; // no segment delivered by this ACK: nothing to sample
        }
        if a.sample.prior_delivered >= self.next_round_delivered {
            self.next_round_delivered = a.delivered;
            self.round_count += 1;
            self.round_start = true;
            self.conservation = false;
        }
        if self.lt.is_some() && a.sample.rate_bytes_per_s.is_some() {
            // Linux bbr_update_bw: bbr_lt_bw_sampling after the round update (valid samples)
            let l = LtAck {
                now: a.now,
                round_start: self.round_start,
                losses: a.lost_segs.saturating_sub(self.lt_lost_seen),
                delivered: a.delivered,
                lost: a.lost_segs,
                probe_bw: self.mode == Mode::ProbeBw,
            };
            self.lt_lost_seen = a.lost_segs;
            self.lt_sample(&l);
        }
        // the max filter over the last BTLBW_FILTER_LEN rounds (no app-limited samples): a
        // slot per round; the maximum is recomputed only when a round starts (a slot may have
        // aged out), otherwise a larger sample raises it
        if let Some(rate) = a.sample.rate_bytes_per_s {
            let slot = &mut self.bw_slots[(self.round_count % BTLBW_FILTER_LEN as u64) as usize];
            if slot.0 != self.round_count {
                *slot = (self.round_count, rate);
            } else if rate > slot.1 {
                slot.1 = rate;
            }
        }
        if self.round_start {
            let oldest = self.round_count.saturating_sub(BTLBW_FILTER_LEN as u64 - 1);
            self.btlbw = self
                .bw_slots
                .iter()
                .filter(|(r, _)| *r != u64::MAX && *r >= oldest)
                .fold(0.0, |m, (_, v)| f64::max(m, *v));
        } else if let Some(rate) = a.sample.rate_bytes_per_s {
            self.btlbw = self.btlbw.max(rate);
        }
    }

    #[inline(always)]
    fn check_cycle_phase(&mut self, a: &Ack) {
        if self.mode == Mode::ProbeBw && self.is_next_cycle_phase(a) {
            self.advance_cycle_phase(a.now);
        }
    }

    /// BBRIsNextCyclePhase (§4.3.4.3).
    fn is_next_cycle_phase(&self, a: &Ack) -> bool {
        let rt = self.rtprop.unwrap_or(SimDuration::ZERO);
        let full_length = a.now.saturating_since(self.cycle_stamp) > rt;
        let prior = a.prior_inflight as f64 * self.inv_mss;
        if self.pacing_gain == 1.0 {
            full_length
        } else if self.pacing_gain > 1.0 {
            full_length && (a.lost || prior >= self.inflight(self.pacing_gain))
        } else {
            full_length || prior <= self.inflight(1.0)
        }
    }

    fn advance_cycle_phase(&mut self, now: SimTime) {
        self.cycle_stamp = now;
        self.cycle_index = (self.cycle_index + 1) % GAIN_CYCLE.len();
        // Linux bbr_update_gains: gain 1 while the long-term rate is in use
        self.pacing_gain = if self.lt.as_ref().is_some_and(|l| l.bw().is_some()) {
            1.0
        } else {
            GAIN_CYCLE[self.cycle_index]
        };
    }

    /// BBRCheckFullPipe (§4.3.2.2); no sample is application-limited here.
    fn check_full_pipe(&mut self, _a: &Ack) {
        if self.filled_pipe || !self.round_start {
            return;
        }
        if self.btlbw >= self.full_bw * 1.25 {
            self.full_bw = self.btlbw;
            self.full_bw_count = 0;
            return;
        }
        self.full_bw_count += 1;
        if self.full_bw_count >= 3 {
            self.filled_pipe = true;
        }
    }

    /// BBRCheckDrain (§4.3.3).
    #[inline(always)]
    fn check_drain(&mut self, a: &Ack) {
        if self.mode == Mode::Startup && self.filled_pipe {
            self.mode = Mode::Drain;
            self.pacing_gain = 1.0 / HIGH_GAIN;
            self.cwnd_gain = HIGH_GAIN;
        }
        if self.mode == Mode::Drain && a.inflight as f64 * self.inv_mss <= self.inflight(1.0) {
            self.enter_probe_bw(a.now);
        }
    }

    /// BBREnterProbeBW (§4.3.4.4): a random phase other than 3/4, then advanced.
    fn enter_probe_bw(&mut self, now: SimTime) {
        self.mode = Mode::ProbeBw;
        self.pacing_gain = 1.0;
        self.cwnd_gain = 2.0;
        let r = (self.rng.uniform() * 7.0) as usize; // random_int_between(0, 6)
        self.cycle_index = GAIN_CYCLE.len() - 1 - r.min(6);
        self.advance_cycle_phase(now);
    }

    /// BBRUpdateRTprop (§4.1.2.3).
    #[inline(always)]
    fn update_rtprop(&mut self, a: &Ack) {
        self.rtprop_expired = a.now > self.rtprop_stamp + RTPROP_FILTER_LEN;
        if let Some(rtt) = a.sample.rtt {
            if self.rtprop.is_none_or(|m| rtt <= m) || self.rtprop_expired {
                self.rtprop = Some(rtt);
                self.rtprop_stamp = a.now;
            }
        }
    }

    /// BBRCheckProbeRTT and BBRHandleProbeRTT (§4.3.5); returns cwnd.
    fn check_probe_rtt(&mut self, a: &Ack, cwnd: f64) -> f64 {
        if self.mode != Mode::ProbeRtt && self.rtprop_expired {
            // BBREnterProbeRTT
            self.save_cwnd(cwnd, a.in_recovery);
            self.mode = Mode::ProbeRtt;
            self.pacing_gain = 1.0;
            self.cwnd_gain = 1.0;
            self.probe_rtt_done = None;
        }
        if self.mode != Mode::ProbeRtt {
            return cwnd;
        }
        let inflight = a.inflight as f64 * self.inv_mss;
        match self.probe_rtt_done {
            None if inflight <= MIN_PIPE_CWND => {
                self.probe_rtt_done = Some(a.now + PROBE_RTT_DURATION);
                self.probe_rtt_round_done = false;
                self.next_round_delivered = a.delivered;
            }
            None => {}
            Some(done) => {
                if self.round_start {
                    self.probe_rtt_round_done = true;
                }
                if self.probe_rtt_round_done && a.now > done {
                    self.rtprop_stamp = a.now;
                    // BBRRestoreCwnd, BBRExitProbeRTT
                    let restored = cwnd.max(self.prior_cwnd);
                    if self.filled_pipe {
                        self.enter_probe_bw(a.now);
                    } else {
                        self.mode = Mode::Startup;
                        self.pacing_gain = HIGH_GAIN;
                        self.cwnd_gain = HIGH_GAIN;
                    }
                    return restored;
                }
            }
        }
        cwnd
    }

    /// BBRSetPacingRate (§4.2.1).
    fn set_pacing_rate(&mut self) {
        let rate = self.pacing_gain * self.bw();
        if self.filled_pipe || rate > self.pacing_rate {
            self.pacing_rate = rate;
        }
    }

    /// BBRSetSendQuantum (§4.2.2): 1 segment below 1.2 Mb/s, 2 below 24 Mb/s, else 1 ms of
    /// data up to 64 KB.
    fn set_send_quantum(&mut self) {
        let bps = self.pacing_rate * 8.0;
        self.send_quantum = if bps < 1.2e6 {
            self.mss
        } else if bps < 24e6 {
            2.0 * self.mss
        } else {
            (self.pacing_rate * 1e-3).min(65_536.0)
        };
    }

    /// The cwnd target, segments: BBRInflight(cwnd_gain) (§4.2.3.2); with the Linux options,
    /// `bbr_set_cwnd`'s: `bbr_quantization_budget(bbr_bdp(bbr_bw) + bbr_ack_aggregation_cwnd)`.
    #[inline]
    pub fn cwnd_target(&self) -> f64 {
        let bw = self.bw();
        let aggr = self
            .aggr
            .as_ref()
            .map_or(0.0, |g| g.cwnd(bw * self.inv_mss, self.filled_pipe));
        match self.rtprop {
            Some(rt) if self.quantize => {
                let bdp = bw * rt.as_secs_f64() * self.inv_mss;
                let probing = self.mode == Mode::ProbeBw && self.cycle_index == 0;
                let c = (self.cwnd_gain * bdp).ceil() + aggr;
                bbr_linux::quantization_budget(c, self.pacing_rate, self.mss, probing)
            }
            _ => self.inflight_at(bw, self.cwnd_gain) + aggr,
        }
    }

    /// Linux `bbr_set_cwnd`'s `done:` step: at most `bbr_cwnd_min_target` in ProbeRTT.
    fn probe_rtt_cap(&self, cwnd: f64) -> f64 {
        if self.mode == Mode::ProbeRtt {
            cwnd.min(MIN_PIPE_CWND)
        } else {
            cwnd
        }
    }

    /// BBRSetCwnd (§4.2.3.5), outside loss recovery.
    #[inline(always)]
    fn set_cwnd(&mut self, a: &Ack, cwnd: f64) -> f64 {
        // Linux bbr_set_cwnd: bbr_bdp at bbr_bw, plus bbr_ack_aggregation_cwnd, then
        // bbr_quantization_budget (the draft: BBRInflight, 3 send quanta)
        let target = self.cwnd_target();
        let delivered = a.sample.newly_delivered as f64 * self.inv_mss;
        let mut cwnd = if self.filled_pipe {
            (cwnd + delivered).min(target)
        } else if cwnd < target || (a.delivered as f64) < self.initial_cwnd * self.mss {
            cwnd + delivered
        } else {
            cwnd
        };
        cwnd = cwnd.max(MIN_PIPE_CWND);
        // BBRModulateCwndForProbeRTT
        if self.mode == Mode::ProbeRtt {
            cwnd = cwnd.min(MIN_PIPE_CWND);
        }
        cwnd
    }
}

/// Linux `bbr_set_cwnd_to_recover_or_restore`: `cwnd = max(cwnd - rs->losses, 1)`, segments.
fn deduct(cwnd: f64, losses: u64) -> f64 {
    if losses > 0 {
        (cwnd - losses as f64).max(1.0)
    } else {
        cwnd
    }
}
