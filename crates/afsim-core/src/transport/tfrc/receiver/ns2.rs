//! ns-2's receiver (tfrc-sink.cc, the `ns2` and `ns2_28` presets): reports on urgent packets,
//! at the first loss (`adjust_history`) and every new loss event, an R after the last report,
//! and on the 1.5·R timer (`nextpkt`, `sendpkt`); X_recv is `est_thput`.

use super::Receiver;
use crate::sim::time::{SimDuration, SimTime};
use crate::transport::tfrc::equation::p_for_rate_ns2;
use crate::transport::tfrc::loss_events::Arrival;
use crate::transport::tfrc::secs;
use crate::transport::Ctx;

impl Receiver {
    pub(super) fn after_data_ns2(
        &mut self,
        a: Arrival,
        above: bool,
        urgent: bool,
        marked: bool,
        timestamp: SimTime,
        ctx: &mut Ctx,
    ) {
        let now = ctx.now;
        let mut report = a.new && urgent;
        let mut given_p = None;
        let mut absorbed = false;
        if above {
            let ecn_event = marked && self.detector.began().last().is_some();
            if !self.loss_seen && (a.gap || ecn_event) {
                // `adjust_history`: the first loss becomes a synthetic interval
                self.loss_seen = true;
                absorbed = true;
                report = true;
                let x = self.x_recv_ns2(now);
                let p = p_for_rate_ns2(x, secs(self.rtt), secs(self.rto), self.s, 1.0);
                self.history
                    .start((1.0 / p).trunc(), self.history.ns2_counted_to());
                self.detector.restart_event(timestamp, self.round);
                given_p = Some(p);
            }
            let since_report = now.saturating_since(self.last_report.unwrap_or(SimTime::ZERO));
            if secs(self.rtt) > 1e-7 && since_report >= self.rtt {
                report = true;
            }
        }
        if !self.detector.began().is_empty() {
            report = true;
            if !absorbed && self.history.has_loss() {
                for &seq in self.detector.began() {
                    self.history.begin_event(seq);
                }
            }
        }
        if report {
            self.nextpkt_ns2(given_p, ctx);
        }
    }

    /// `nextpkt(p)`: a report, then the 1.5·R timer.
    pub(super) fn nextpkt_ns2(&mut self, p: Option<f64>, ctx: &mut Ctx) {
        // `sendpkt`: only if new data arrived since the last report
        let arrival = self.last.map_or(SimTime::ZERO, |(_, a)| a);
        if arrival >= self.last_report.unwrap_or(SimTime::ZERO) {
            self.send_feedback(p, ctx);
        }
        if self.rtt > SimDuration::ZERO {
            let wait = SimDuration(self.rtt.0 + self.rtt.0 / 2);
            self.timer.arm(ctx.now + wait, ctx);
        }
    }

    /// `est_thput() × psize`: bytes (of s) per second.
    pub(super) fn x_recv_ns2(&mut self, now: SimTime) -> f64 {
        let r = secs(self.rtt);
        let since = now.saturating_since(self.last_report.unwrap_or(SimTime::ZERO));
        let packets_per_s = if r > 0.0 && secs(since) >= r {
            self.since_report as f64 / secs(since)
        } else if r > 0.0 {
            // unmarked packets that arrived within R of the latest arrival
            let latest = self.last.map_or(now, |(_, a)| a);
            let recent = self
                .recent
                .iter()
                .rev()
                .take_while(|&&t| t + self.rtt > latest)
                .count();
            if recent > 0 {
                recent as f64 / r
            } else {
                1.0
            }
        } else {
            1.0
        };
        packets_per_s * self.s
    }
}
