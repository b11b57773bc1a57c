//! RFC 5348's receiver (§6): the first packet answered at once (§6.3), a report when p goes
//! up (§6.1) and every R_m otherwise (§6.2), X_recv over the last R_m, the first loss interval
//! synthesised from X_recv by the equation (§6.3.1).

use super::Receiver;
use crate::sim::time::{SimDuration, SimTime};
use crate::transport::tfrc::equation::p_for_rate_rfc;
use crate::transport::tfrc::secs;
use crate::transport::Ctx;

impl Receiver {
    pub(super) fn after_data_rfc(&mut self, ctx: &mut Ctx) {
        let now = ctx.now;
        if self.last_report.is_none() {
            // §6.3: the first packet is answered at once (p = 0, X_recv = 0)
            self.send_feedback(None, ctx);
            return;
        }
        if !self.detector.began().is_empty() {
            let synthetic = (!self.history.has_loss()).then(|| self.synthetic_interval(now));
            let mut began = self.detector.began().iter();
            if let (Some(i1), Some(&first)) = (synthetic, began.clone().next()) {
                self.history.start(i1, first);
                began.next();
            }
            for &seq in began {
                self.history.begin_event(seq);
            }
            let s_max = self.detector.highest().expect("a packet arrived");
            // §6.1 step 3: p went up: report now
            if self.history.p(s_max) > self.p_last {
                self.send_feedback(None, ctx);
                return;
            }
        }
        if self.rtt == SimDuration::ZERO {
            self.send_feedback(None, ctx);
        } else if self.timer.deadline().is_none() {
            self.timer.arm(now + self.rtt, ctx);
        }
    }

    /// §6.3.1: the interval that would give X_recv by the equation.
    pub(super) fn synthetic_interval(&mut self, now: SimTime) -> f64 {
        let x_target = self.x_recv_rfc(now);
        let r = secs(self.rtt);
        if r > 0.0 && x_target > 0.0 {
            1.0 / p_for_rate_rfc(self.s, r, x_target)
        } else {
            self.stats.packets_received as f64
        }
    }

    /// §6.2: bytes (of s) per second received within the last R_m (or since the first packet
    /// if that is shorter; since the last report while R_m is unknown).
    pub(super) fn x_recv_rfc(&mut self, now: SimTime) -> f64 {
        let window = if self.rtt > SimDuration::ZERO {
            self.rtt
                .min(now.saturating_since(self.first_arrival.unwrap_or(now)))
        } else {
            self.last_report
                .map_or(SimDuration::ZERO, |r| now.saturating_since(r))
        };
        let since = SimTime(now.0.saturating_sub(window.0));
        while self.recent.front().is_some_and(|&t| t < since) {
            self.recent.pop_front();
        }
        if window == SimDuration::ZERO {
            return 0.0;
        }
        self.recent.len() as f64 * self.s / secs(window)
    }
}
