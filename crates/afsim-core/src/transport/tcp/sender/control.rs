//! The sender's calls into its congestion controller (`cc::Cc`) at the decision points, and
//! pacing (BBR). Loss recovery stays in `sender.rs`; this file says, for each decision, what
//! Reno, CUBIC and BBR answer.
//!
//! - window growth on a new ACK outside recovery: RFC 5681 §3.1 (Reno; CUBIC's slow start,
//!   RFC 9438 §4.10), RFC 9438 §4.2–§4.5 (CUBIC in congestion avoidance), BBR's own (every
//!   ACK, `bbr_ack`);
//! - the reduced ssthresh at a congestion event: RFC 5681 eq. 4 (the preset's), RFC 9438
//!   §4.6–§4.7, BBR's packet-conserving window (draft-cardwell-…-00 §4.2.3.4);
//! - the window an ECN-Echo sets: RFC 3168 §6.1.2 (half), RFC 9438 §4.6 (ssthresh); BBR v1
//!   leaves cwnd alone and only answers with CWR (Linux `tcp_bbr.c`);
//! - pacing: BBR only (`Cc::Bbr`); a segment leaves no earlier than the previous one plus its
//!   payload at the pacing rate (draft-cardwell-…-00 §4.2.1; Linux's internal pacing,
//!   `tcp_update_skb_after_send`), sent from a pacing timer when the window allows more.

use super::{EcnState, Phase, Recovery, Sender};
use crate::net::packet::Packet;
use crate::sim::rng::Rng;
use crate::sim::time::{SimDuration, SimTime};
use crate::transport::tcp::cc::bbr::{self, Bbr};
use crate::transport::tcp::cc::bbr_linux;
use crate::transport::tcp::cc::hystart::{self, HyStart};
use crate::transport::tcp::cc::hystart_linux::LinuxHyStart;
use crate::transport::tcp::cc::rate::RateSampler;
use crate::transport::tcp::cc::{cubic::Cubic, BbrSender, Cc, CcKind, SlowStart};
use crate::transport::tcp::Params;
use crate::transport::Ctx;

/// Timer token of the pacing timer (retransmission timers count up from 1 and skip it).
pub(super) const TOKEN_PACE: u32 = u32::MAX;

/// The controller of a new sender.
pub(super) fn new_cc(p: &Params, mss: u64, rng: &Rng) -> Cc {
    match p.cc {
        CcKind::Reno => Cc::Reno,
        CcKind::Cubic => {
            let ss = if p.hystart_linux {
                Some(SlowStart::Linux(LinuxHyStart::new(mss)))
            } else {
                p.hystart.then(|| SlowStart::PlusPlus(HyStart::new(mss)))
            };
            let mut c = Cubic::new();
            // Linux's slow start comes with Linux's growth after it (cubic.rs)
            c.linux_growth_floor = p.hystart_linux;
            c.linux_friendly = p.cubic_linux_friendly;
            Cc::Cubic(Box::new((c, ss.map(Box::new))))
        }
        CcKind::Bbr => Cc::Bbr(Box::new(BbrSender {
            bbr: Bbr::new(
                mss,
                f64::from(p.initial_window_segments),
                p.start,
                None,
                rng.clone(),
            )
            .with_linux(p.bbr_linux),
            rate: RateSampler::new(mss),
            loss_until: None,
            ecn_high: 0,
            next_send: SimTime::ZERO,
            pace_armed: false,
            burst_left: 0,
            burst_at: SimTime::ZERO,
            lost_segs: 0,
            sack_lost_to: 0,
        })),
    }
}

impl Sender {
    /// A new ACK of `acked` bytes outside loss recovery: the window grows (Reno, CUBIC; BBR
    /// sets its window in `bbr_ack`).
    pub(super) fn open_cwnd(&mut self, acked: u64, old_una: u64, now: SimTime) {
        // CUBIC's growth reads the smoothed RTT (read before `cc` is borrowed)
        let rtt = if matches!(self.cc, Cc::Cubic(..)) {
            self.rto_srtt_secs()
        } else {
            0.0
        };
        match &mut self.cc {
            Cc::Reno => self.open_cwnd_reno(acked),
            Cc::Cubic(b) => {
                let (c, hs) = &mut **b;
                let mut segs = acked as f64 / self.mss as f64;
                if self.cwnd < self.ssthresh {
                    // RFC 9438 §4.10: slow start as RFC 5681 eq. (2), min(N, SMSS) per ACK;
                    // with `byte_counting` Linux's tcp_slow_start, the rest of the ACK's
                    // segments to congestion avoidance (tcp_cubic.c cubictcp_cong_avoid)
                    let byte_counting = self.p.byte_counting;
                    let slow_start = |cwnd: &mut f64, ssthresh: f64| -> Option<f64> {
                        if byte_counting {
                            let rest = super::linux_slow_start(cwnd, ssthresh, segs);
                            (rest > 0.0).then_some(rest)
                        } else {
                            *cwnd += segs.min(1.0);
                            None
                        }
                    };
                    let Some(h) = hs.as_mut() else {
                        match slow_start(&mut self.cwnd, self.ssthresh) {
                            Some(rest) => segs = rest,
                            None => return,
                        }
                        self.cwnd = c.on_ack_ca(self.cwnd, segs, now, rtt);
                        return;
                    };
                    let s = h
                        .rate_mut()
                        .on_ack(old_una, self.snd_una, false, &[], now, None);
                    match h.as_mut() {
                        // RFC 9406 §4.2: HyStart++
                        SlowStart::PlusPlus(h) => match h.on_ack(self.snd_una, self.snd_nxt, s.rtt)
                        {
                            hystart::Step::Grow { divisor } => {
                                self.cwnd += segs.min(hystart::L) / divisor;
                            }
                            hystart::Step::Exit => {
                                self.ssthresh = self.cwnd;
                                *hs = None;
                            }
                        },
                        // Linux tcp_cubic.c: cubictcp_acked (HyStart), then tcp_slow_start
                        SlowStart::Linux(h) => {
                            let found = h.on_ack(now, self.snd_una, self.snd_nxt, self.cwnd, s.rtt);
                            if found.is_some() {
                                self.ssthresh = self.cwnd;
                                *hs = None;
                            } else if let Some(rest) = slow_start(&mut self.cwnd, self.ssthresh) {
                                self.cwnd = c.on_ack_ca(self.cwnd, rest, now, rtt);
                            }
                        }
                    }
                } else {
                    self.cwnd = c.on_ack_ca(self.cwnd, segs, now, rtt);
                }
            }
            Cc::Bbr(_) => {}
        }
    }

    /// The smoothed RTT in seconds, 0 before the first sample (CUBIC's growth reads it).
    fn rto_srtt_secs(&self) -> f64 {
        if self.rto.has_sample() {
            self.rto.srtt_fine().as_secs_f64()
        } else {
            0.0
        }
    }

    /// The ssthresh of a congestion event with `flight` bytes outstanding (a fast
    /// retransmit, an ECN response, a timeout).
    pub(super) fn reduced_ssthresh(&mut self, flight: u64) -> f64 {
        // Linux zeroes snd_cwnd_cnt on every window reduction (tcp_init_cwnd_reduction,
        // tcp_enter_loss): `byte_counting`'s counter starts again
        self.cwnd_cnt = 0.0;
        let segs = flight as f64 / self.mss as f64;
        match &mut self.cc {
            // RFC 5681 eq. (4): max(FlightSize/2, 2·SMSS); ns-2: max(⌊window/2⌋, 2)
            Cc::Reno => rules!(self, reduced_ssthresh(flight)),
            // RFC 9438 §4.6, §4.7; a congestion event ends HyStart++ (RFC 9406 §4.2)
            Cc::Cubic(b) => {
                let (c, hs) = &mut **b;
                *hs = None;
                c.on_congestion(self.cwnd)
            }
            // draft-cardwell-…-00 §4.2.3.4: cwnd saved, packet conservation
            Cc::Bbr(b) => {
                let dupthresh = f64::from(self.p.dupack_threshold);
                let delivered = b.rate.delivered();
                b.bbr.on_congestion(self.cwnd, segs, dupthresh, delivered)
            }
        }
    }

    /// The cwnd an ECN response sets, once ssthresh is set: half the window (RFC 3168
    /// §6.1.2) or ssthresh (RFC 9438 §4.6, "reduction_on_ece").
    pub(super) fn ecn_window(&self) -> f64 {
        match self.cc {
            Cc::Cubic(..) => self.ssthresh,
            Cc::Reno | Cc::Bbr(_) => self.half_window(),
        }
    }

    /// An ECN-Echo ACK under BBR: no change to cwnd (Linux BBR v1 has no ECN response), CWR
    /// once per window of data so the receiver stops echoing. Returns false for the other
    /// controllers, whose response is the preset's.
    pub(super) fn bbr_ece(&mut self, ack: u64) -> bool {
        let Cc::Bbr(b) = &mut self.cc else {
            return false;
        };
        if ack > b.ecn_high || b.ecn_high == 0 {
            b.ecn_high = self.snd_max;
            if let EcnState::On { .. } = self.ecn {
                self.ecn = EcnState::On { cwr_pending: true };
            }
        }
        true
    }

    /// After a timeout has set cwnd to one segment (`cwnd_before` it had).
    pub(super) fn cc_timeout(&mut self, cwnd_before: f64, now: SimTime) {
        match &mut self.cc {
            Cc::Reno => {}
            // RFC 9438 §4.8
            Cc::Cubic(b) => {
                let (c, hs) = &mut **b;
                // RFC 9406 §4.3 leaves slow starts after a timeout to the implementation:
                // HyStart++ is not used again; Linux starts its HyStart over (tcp_cubic.c,
                // cubictcp_state on TCP_CA_Loss: bictcp_reset, bictcp_hystart_reset)
                *hs = self
                    .p
                    .hystart_linux
                    .then(|| Box::new(SlowStart::Linux(LinuxHyStart::new(self.mss))));
                c.on_timeout()
            }
            Cc::Bbr(b) => {
                b.bbr.on_timeout(cwnd_before);
                b.bbr.lt_timeout(now, b.rate.delivered(), b.lost_segs);
                b.loss_until = Some(self.snd_max);
            }
        }
    }

    /// The connection opens at `now` (BBRInit with the handshake's RTT, if any).
    pub(super) fn cc_open(&mut self, now: SimTime) {
        let srtt = self.rto.has_sample().then(|| self.rto.srtt_fine());
        if let Cc::Bbr(b) = &mut self.cc {
            b.bbr.restart(now, srtt);
        }
    }

    /// BBR's per-ACK step, after the sender has processed the ACK `pkt` that moved SND.UNA
    /// from `old_una`; `lost` if it started a loss recovery.
    pub(super) fn bbr_ack(&mut self, pkt: &Packet, old_una: u64, lost: bool, now: SimTime) {
        // the pipe in segments while recovering: RFC 6675's SetPipe() in a SACK recovery, RACK's
        // (`sender/rack.rs`) in a RACK one; BBR sets cwnd from it (Linux BBR does in recovery)
        let recovery_pipe = self
            .sack_pipe_segments()
            .or_else(|| self.rack_pipe_segments());
        let Cc::Bbr(b) = &mut self.cc else { return };
        // the segments this ACK newly marked lost (draft-00 §4.2.3.4's packets_lost, Linux
        // `rs->losses`), by the loss detection in use: RACK's marks (RFC 8985 §6.2), else in an
        // RFC 6675 SACK recovery the un-SACKed segments the ACK moved below IsLost()'s boundary
        let losses = if let Some(r) = self.rack.as_ref() {
            r.ack_marked
        } else if let (Some(sb), Phase::Recovery(Recovery::Sack { .. })) =
            (self.sack.as_ref(), self.phase)
        {
            let from = b.sack_lost_to.max(self.snd_una);
            let (segs, bound) = sb.lost_segments_from(from, self.mss, self.p.dupack_threshold);
            if lost {
                // the ACK that starts the recovery: what is lost by now is counted already
                // (and a mark an earlier recovery left is forgotten)
                b.sack_lost_to = bound;
                0
            } else {
                b.sack_lost_to = b.sack_lost_to.max(bound);
                segs
            }
        } else {
            0
        };
        let blocks = pkt.th.sack_blocks();
        let min_rtt = b.bbr.rtprop();
        let sample = b.rate.on_ack(
            old_una,
            self.snd_una,
            self.sack.is_some(),
            blocks,
            now,
            min_rtt,
        );
        let in_fast = matches!(self.phase, Phase::Recovery(_));
        let a = bbr::Ack {
            now,
            sample,
            delivered: b.rate.delivered(),
            prior_inflight: self.snd_max - old_una,
            inflight: self.snd_max - self.snd_una,
            lost,
            in_recovery: in_fast,
            lost_segs: b.lost_segs,
            losses,
        };
        let mut cwnd = b.bbr.on_ack(&a, self.cwnd);
        if let Some(pipe) = recovery_pipe {
            self.cwnd = b.bbr.recovery_cwnd(&a, self.cwnd, pipe);
        }
        if let Some(h) = b.loss_until {
            if self.snd_una >= h {
                // the timeout's recovery is over (Linux leaves TCP_CA_Loss): restore cwnd
                b.loss_until = None;
                cwnd = b.bbr.restore_cwnd(cwnd);
            }
        }
        // in NewReno recovery the window is recovery's (its inflation); SACK recovery's is set
        // above
        if !in_fast {
            self.cwnd = cwnd;
        }
    }

    /// Bookkeeping for a data segment leaving at `now` (rate samples, the next paced
    /// departure). (One inline test for the controllers that keep none, Reno and CUBIC
    /// without HyStart++; issue 25.)
    #[inline(always)]
    pub(super) fn cc_sent(&mut self, start: u64, len: u64, retx: bool, now: SimTime) {
        match self.cc {
            Cc::Reno => {}
            Cc::Bbr(_) => self.cc_sent_bbr(start, len, retx, now),
            Cc::Cubic(ref b) if b.1.is_some() => self.cc_sent_rate(start, len, retx, now),
            Cc::Cubic(_) => {}
        }
    }

    /// CUBIC with HyStart++'s rate sample (out of line: off by default).
    #[inline(never)]
    fn cc_sent_rate(&mut self, start: u64, len: u64, retx: bool, now: SimTime) {
        let in_flight = self.snd_max.saturating_sub(self.snd_una);
        if let Cc::Cubic(b) = &mut self.cc {
            let Some(h) = &mut b.1 else { return };
            h.rate_mut().on_send(start, len, now, in_flight, retx);
        }
    }

    /// BBR's rate sample and pacing at each segment sent (inlined into the send path, which
    /// BBR takes for every segment: issue 26's bound of 1.3 × Reno's instructions).
    #[inline(always)]
    fn cc_sent_bbr(&mut self, start: u64, len: u64, retx: bool, now: SimTime) {
        let in_flight = self.snd_max.saturating_sub(self.snd_una);
        let tso = self.p.bbr_linux.tso_bursts;
        let mss = self.mss as f64;
        match &mut self.cc {
            Cc::Reno | Cc::Cubic(..) => {}
            Cc::Bbr(b) => {
                b.rate.on_send(start, len, now, in_flight, retx);
                b.lost_segs += u64::from(retx);
                let rate = b.bbr.pacing_rate();
                if tso {
                    // Linux (`tso_bursts`): an skb of `bbr_tso_segs_goal` segments leaves at
                    // once, its segments back to back; the next one skb's time at the pacing
                    // rate later (`tcp_update_skb_after_send`): the burst's segments are let
                    // through at the instant it began (`pace_wait`)
                    if b.burst_left > 0 && b.burst_at == now {
                        b.burst_left -= 1;
                    } else {
                        b.burst_left = bbr_linux::tso_segs_goal(rate, mss) as u32 - 1;
                        b.burst_at = now;
                    }
                }
                if rate > 0.0 {
                    let ns = (len as f64 / rate * 1e9) as u64;
                    b.next_send = b.next_send.max(now) + SimDuration::from_nanos(ns);
                }
            }
        }
    }

    /// Whether pacing holds the next segment back now; if so the pacing timer is armed for
    /// its departure. Always false unless the controller paces.
    #[inline(always)]
    pub(super) fn pace_wait(&mut self, ctx: &mut Ctx) -> bool {
        // (one test without BBR, issue 25: the rest out of line)
        matches!(self.cc, Cc::Bbr(_)) && self.pace_wait_bbr(ctx)
    }

    #[inline(always)]
    fn pace_wait_bbr(&mut self, ctx: &mut Ctx) -> bool {
        let Cc::Bbr(b) = &mut self.cc else {
            return false;
        };
        if b.next_send <= ctx.now || (b.burst_left > 0 && b.burst_at == ctx.now) {
            return false;
        }
        if !b.pace_armed {
            b.pace_armed = true;
            ctx.set_timer(b.next_send, TOKEN_PACE);
        }
        true
    }

    /// The pacing timer fired: send what the window allows.
    #[inline]
    pub(super) fn on_pace_timer(&mut self, ctx: &mut Ctx) {
        if let Cc::Bbr(b) = &mut self.cc {
            b.pace_armed = false;
        }
        self.send_more(ctx);
    }

    /// The controller's state, for tests and traces.
    pub fn cc(&self) -> &Cc {
        &self.cc
    }
}
