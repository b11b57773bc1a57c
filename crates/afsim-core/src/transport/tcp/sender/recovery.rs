//! Loss recovery's entry and the timeout: duplicate ACKs (RFC 5681 §3.2, RFC 6675 §5 (2),
//! RFC 8985 with RACK), limited transmit (RFC 3042), fast retransmit and the recovery each
//! variant enters, the helpers the reductions share (Leung & Muppala's sustaining floor,
//! `recover` tests) and the retransmission timeout (RFC 5681 §3.1, RFC 6298 §5). Sources and
//! state: `sender.rs`'s header.

use super::{EcnState, Phase, Recovery, Reduction, Sender};
use crate::sim::time::SimDuration;
use crate::transport::tcp::{sustain, Variant};
use crate::transport::Ctx;

impl Sender {
    pub(super) fn on_dupack(&mut self, ctx: &mut Ctx) {
        match self.phase {
            // RFC 5681 §3.2 step 4: each further duplicate ACK inflates cwnd by one segment
            Phase::Recovery(Recovery::Fast { .. }) => self.cwnd += 1.0,
            // RFC 6675: the scoreboard and pipe account for it (ns-2 Sack1: pipe, in on_ack)
            Phase::Recovery(Recovery::Sack { .. } | Recovery::Sack1 { .. } | Recovery::Rack) => {}
            Phase::Open if self.rack.is_some() => {
                // RFC 8985: RACK, not DupThresh, says what is lost (`rack_ack`); limited
                // transmit as before
                self.dupacks += 1;
                if self.dupacks < self.p.dupack_threshold && self.p.limited_transmit {
                    self.limited_transmit(ctx);
                }
            }
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
    pub(super) fn limited_transmit(&mut self, ctx: &mut Ctx) {
        rules!(self, limited_transmit(ctx));
    }

    /// Fast retransmit: RFC 5681 §3.2 steps 2–3, RFC 6582 §3.2 step 2, RFC 6675 §5 step 4.
    pub(super) fn enter_recovery(&mut self, ctx: &mut Ctx) {
        // RFC 6582 §3.2 step 1 (NewReno, SACK): only if the cumulative ACK covers more than
        // `recover`; the preset says
        let allowed = rules!(self, may_enter_recovery());
        // RFC 3168 §6.1.2: the window was already cut for ECN in this window of data
        let after_ecn = !allowed && self.reduction == Reduction::Ecn;
        if !allowed && !after_ecn {
            return;
        }
        self.stats.fast_recoveries += 1;
        // RFC 5681 §3.2 step 2: FlightSize excludes limited-transmit segments
        let mut flight = self.snd_max - self.snd_una - self.lt_bytes;
        let target = if after_ecn {
            self.cwnd
        } else {
            if self.rack.is_some() {
                // RACK: no more than cwnd (docs/assumptions.md: holes RACK has marked and not
                // yet repaired would otherwise raise ssthresh above cwnd; Linux cuts from cwnd)
                flight = flight.min((self.cwnd * self.mss as f64) as u64);
            }
            let reduced = self.reduced_ssthresh(flight);
            self.ssthresh = self.sustained(reduced);
            if let EcnState::On { .. } = self.ecn {
                self.ecn = EcnState::On { cwr_pending: true };
            }
            rules!(self, recovery_window())
        };
        // RFC 6582 §3.2 step 2: recover = HighData (after an ECN cut, the preset says)
        if !after_ecn || rules!(self, recover_moves_after_ecn()) {
            self.recover = Some(self.snd_max);
        }
        self.reduction = Reduction::Loss;
        if let Some(r) = self.rack.as_deref() {
            // RFC 8985 §6.1: RACK marked the lost segments; RFC 6675 §5 (4.3): the first goes
            // out now, whatever pipe says; `send_rack` resends the rest
            let first = r.first_lost(self.snd_una);
            self.cwnd = target;
            self.phase = Phase::Recovery(Recovery::Rack);
            if let Some((s, e)) = first {
                self.transmit(s, e - s, ctx);
                // RFC 6937 (`prr`)
                self.prr_enter(flight, e - s);
            }
            return;
        }
        // RFC 5681 §3.2 step 2: retransmit the first unacknowledged segment
        let len = self.mss.min(self.snd_max - self.snd_una);
        self.transmit(self.snd_una, len, ctx);
        rules!(self, on_fast_retransmit(ctx));
        match self.variant {
            Variant::Sack if self.is_sack1() => {
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
                // RFC 6937 (`prr`)
                self.prr_enter(flight, len);
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

    /// Half the usable window, at least one segment (ns-2 `windowd()/2`).
    pub(super) fn half_window(&self) -> f64 {
        (self.window_segments() / 2.0).max(1.0)
    }

    /// Leung & Muppala §5.1: a window set by a reduction is raised to the Throughput Sustaining
    /// Scheme's floor, target × SRTT / packet_size (`sustain`); unchanged without a target or
    /// before the first RTT sample.
    pub(super) fn sustained(&self, window: f64) -> f64 {
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
            self.p.target_rate_bps.map(std::num::NonZeroU64::get),
            srtt,
            self.p.packet_size,
            rwnd,
        ))
    }

    /// The cumulative ACK covers all data outstanding at the last reduction (a full ACK).
    pub(super) fn reaches_recover(&self, ack: u64) -> bool {
        !matches!(self.recover, Some(r) if ack < r)
    }

    /// The cumulative ACK covers data sent after the last reduction: a new window.
    pub(super) fn beyond_recover(&self, ack: u64) -> bool {
        !matches!(self.recover, Some(r) if ack <= r)
    }

    /// min(cwnd, rwnd) in segments.
    pub(super) fn window_segments(&self) -> f64 {
        self.cwnd
            .min(self.p.max_window_bytes as f64 / self.mss as f64)
    }

    // ---------------------------------------------------------------- timeout

    pub(super) fn on_timeout(&mut self, ctx: &mut Ctx) {
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
            rules!(self, idle_timeout(ctx));
            return;
        }
        self.stats.timeouts += 1;
        if let Phase::Recovery(Recovery::Fast { deflate_to, .. }) = self.phase {
            // leave fast recovery first: the inflation is not part of the window (ns-2 zeroes
            // dupwnd_ before its timeout code halves the window)
            self.cwnd = self.cwnd.min(deflate_to);
        }
        let cwnd_before = self.cwnd;
        // RFC 5681 §3.1: ssthresh by eq. (4), unless the preset says this timeout does not cut
        if rules!(self, timeout_cuts_ssthresh()) {
            let reduced = self.reduced_ssthresh(self.snd_max - self.snd_una);
            self.ssthresh = self.sustained(reduced);
        }
        self.timeout_una = Some(self.snd_una);
        // RFC 5681 §3.1: cwnd = loss window = one segment (or the sustaining floor)
        self.cwnd = self.sustained(1.0);
        self.cc_timeout(cwnd_before, ctx.now);
        self.dupacks = 0;
        self.lt_bytes = 0;
        self.phase = Phase::Open;
        // RFC 6582 §3.2 step 4, RFC 6675 §5.1: no new recovery below HighData at the timeout
        self.recover = Some(self.snd_max);
        self.reduction = Reduction::Timeout;
        if let EcnState::On { .. } = self.ecn {
            self.ecn = EcnState::On { cwr_pending: true };
        }
        rules!(self, after_timeout());
        self.rack_timeout(ctx.now);
        // RFC 6298 (5.5): back off; Karn: stop timing; (5.4): resend from SND.UNA
        self.rto.back_off();
        self.timing = None;
        self.snd_nxt = self.snd_una;
        // (5.6): the first retransmission below arms the timer with the backed-off RTO
        self.send_more(ctx);
    }
}
