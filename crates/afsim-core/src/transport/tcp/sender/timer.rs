//! The retransmission timer (one engine timer, re-armed lazily: see `Sender`'s header), RTT
//! samples (RFC 6298, Karn), the end of a transfer and the trace.

use super::{Phase, Sender};
use crate::sim::lazy_timer::{LazyTimer, TOKENS_END};
use crate::sim::time::SimTime;
use crate::transport::tcp::trace::Point;
use crate::transport::Ctx;

impl Sender {
    /// Starts or restarts the retransmission timer to expire at `deadline`.
    ///
    /// (Inlined, issue 25: the restart of every new ACK moves the deadline of the pending
    /// event, a store; only a timer with no event at or before `deadline` pends a new one.)
    #[inline(always)]
    pub(super) fn arm(&mut self, deadline: SimTime, ctx: &mut Ctx) {
        let t = &mut ctx.flow.retx;
        if !t.is_idle() && t.event_at <= deadline {
            t.deadline = deadline;
        } else {
            self.arm_event(deadline, ctx);
        }
    }

    /// `arm` with a new engine event at `deadline` (the timer was idle, or its pending event is
    /// later than `deadline`).
    #[inline(never)]
    fn arm_event(&mut self, deadline: SimTime, ctx: &mut Ctx) {
        // 1, 2, ... wrapping, never the start or the pacing token
        self.next_token = self.next_token.wrapping_add(1).max(1);
        if self.next_token >= TOKENS_END {
            self.next_token = 1;
        }
        let token = self.next_token;
        ctx.set_timer(deadline, token);
        ctx.flow.retx = LazyTimer {
            deadline,
            event_at: deadline,
            token,
            lazy: self.trace.is_none(),
        };
    }

    /// An RTT sample, from an ACK that carried ECN-Echo if `ece`.
    pub(super) fn take_sample(&mut self, sent: SimTime, now: SimTime, ece: bool) {
        self.rto.sample(sent, now);
        // Karn: a valid sample ends the backoff (a preset may keep it)
        if rules!(self, sample_ends_backoff(ece)) {
            self.rto.end_backoff();
        }
        let x = now.saturating_since(sent).as_secs_f64();
        let s = &mut self.stats;
        s.rtt_samples += 1;
        let d = x - s.rtt_mean_s;
        s.rtt_mean_s += d / s.rtt_samples as f64;
        self.rtt_m2 += d * (x - s.rtt_mean_s);
        s.rtt_std_s = (self.rtt_m2 / s.rtt_samples as f64).sqrt();
    }

    pub(super) fn complete(&mut self, ctx: &mut Ctx) {
        self.phase = Phase::Complete;
        ctx.flow.retx.stop();
        self.stats.completion_time_s = Some(ctx.now.as_secs_f64());
        ctx.source_done();
        ctx.transfer_complete();
    }

    /// Records a point of the time series if `Params::trace` (one test when off, issue 25).
    #[inline(always)]
    pub(super) fn record(&mut self, now: SimTime) {
        if self.trace.is_some() {
            self.record_point(now);
        }
    }

    #[inline(never)]
    fn record_point(&mut self, now: SimTime) {
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
}
