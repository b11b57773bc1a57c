//! The TFRC receiver: detects loss events, keeps the loss history, and reports X_recv and p.
//!
//! Read this first.
//! - RFC 5348 §6: on the first data packet, feedback with p = 0 and X_recv = 0 (§6.3); on each
//!   data packet, the loss history is updated (`loss_events`, `loss_history`) and, if p went
//!   up, feedback is sent at once (§6.1); otherwise the feedback timer sends it every R_m, the
//!   RTT in the latest data packet, when data arrived since the last report (§6.2). X_recv is
//!   the rate of the data received within the last R_m (segment bytes s per packet). Until
//!   the sender has an RTT estimate (R_m = 0) every data packet is answered: a timer of R_m
//!   would expire at once. The first loss event seeds a synthetic interval of 1/p, p being
//!   the loss event rate at which the equation allows X_recv (§6.3.1); should the first loss
//!   come before any R is known, the packets received so far stand in for it.
//! - `Rules::Ns2` (tfrc-sink.cc): feedback goes when the sender marks a packet urgent, at the
//!   first loss and at every new loss event, at the first new packet an R after the last
//!   report, and when the 1.5·R timer (`nack_timer_`) expires — each only if data arrived since
//!   the last report (`sendpkt`); X_recv is `est_thput`: packets since the last report over the
//!   time since it when that is at least R, otherwise the unmarked packets that arrived within
//!   R of the latest one, over R (1 packet/s before any R), times s; the first loss is
//!   `adjust_history`: p for the synthetic interval from `b_to_p` with the sender's t_RTO,
//!   reported at once.
//! - Files: `receiver/rfc.rs` is RFC 5348's receiver behaviour, `receiver/ns2.rs` ns-2's
//!   (both ns-2 presets), each read from start to end; this file holds what they share and
//!   dispatches on `Params::rules` at five points (the feedback timer, which packets X_recv
//!   counts, what a data packet triggers, X_recv, the timer after a report).
//! - A feedback packet is `feedback_size` bytes (ns-2 `packetSize_ 40`), best effort, with
//!   `TfrcHeader::Feedback`: the timestamp of the latest new data packet and the time it spent
//!   here, X_recv and p.
//!
//! Not modelled: feedback more than once per RTT (ns-2 `NumFeedback_` > 1), a receiver that
//! corrects its loss history when a packet declared lost arrives after all.

use std::collections::VecDeque;

use super::loss_events::Detector;
use super::loss_history::LossHistory;
use super::{Params, ReceiverStats, Rules, Timer};
use crate::net::packet::{proto, Ecn, Packet, TfrcHeader, TransportHeader, TransportOpt};
use crate::sim::time::{SimDuration, SimTime};
use crate::transport::Ctx;

mod ns2;
mod rfc;

/// The feedback timer's kind (low bits of its tokens).
const FEEDBACK: u32 = 1;

#[derive(Debug)]
pub struct Receiver {
    pub flow: u32,
    /// This receiver's node and the sender's.
    node: u32,
    sender_node: u32,
    peer: u32,
    p: Params,
    s: f64,
    detector: Detector,
    history: LossHistory,
    /// R_m, the sender's t_RTO and round, from the latest new data packet.
    rtt: SimDuration,
    rto: SimDuration,
    round: u32,
    /// The latest new data packet: its timestamp and when it arrived.
    last: Option<(SimTime, SimTime)>,
    first_arrival: Option<SimTime>,
    /// Arrival times of the packets X_recv counts, oldest first.
    recent: VecDeque<SimTime>,
    /// Data packets since the last report (ns-2 `rcvd_since_last_report`).
    since_report: u64,
    last_report: Option<SimTime>,
    /// p of the last report.
    p_last: f64,
    /// ns-2 `loss_seen_yet`.
    loss_seen: bool,
    timer: Timer,
    measure_from: SimTime,
    stats: ReceiverStats,
}

impl Receiver {
    /// The receiver of flow `flow` at `node`, answering the sender agent `peer_agent` at
    /// `sender_node`; p is averaged over the reports sent from `measure_from` on.
    pub fn new(
        flow: u32,
        node: u32,
        sender_node: u32,
        peer_agent: u32,
        params: &Params,
        measure_from: SimTime,
    ) -> Receiver {
        Receiver {
            flow,
            node,
            sender_node,
            peer: peer_agent,
            s: f64::from(params.segment_size()),
            detector: Detector::new(params.rules, params.ndupack),
            history: LossHistory::new(params.rules),
            rtt: SimDuration::ZERO,
            rto: SimDuration::ZERO,
            round: 0,
            last: None,
            first_arrival: None,
            recent: VecDeque::new(),
            since_report: 0,
            last_report: None,
            p_last: 0.0,
            loss_seen: false,
            timer: Timer::new(FEEDBACK),
            measure_from,
            stats: ReceiverStats::default(),
            p: *params,
        }
    }

    pub fn stats(&self) -> ReceiverStats {
        self.stats
    }

    /// The loss event rate the receiver would report now.
    pub fn loss_event_rate(&mut self) -> f64 {
        match self.detector.highest() {
            Some(s_max) => self.history.p(s_max),
            None => 0.0,
        }
    }

    pub fn history(&self) -> &LossHistory {
        &self.history
    }

    /// Arrival times kept for X_recv (their number stays bounded by about 2·R of packets).
    #[cfg(test)]
    pub(crate) fn kept_arrivals(&self) -> usize {
        self.recent.len()
    }

    // ---------------------------------------------------------------- hooks

    pub fn on_timer(&mut self, token: u32, ctx: &mut Ctx) {
        if Timer::kind_of(token) != FEEDBACK || !self.timer.fire(token, ctx) {
            return;
        }
        match self.p.rules {
            // §6.2: a report if data arrived since the last one; the timer runs on
            Rules::Rfc5348 => {
                if self
                    .last
                    .is_some_and(|(_, arrival)| self.last_report.is_none_or(|r| arrival > r))
                {
                    self.send_feedback(None, ctx);
                } else if self.rtt > SimDuration::ZERO {
                    self.timer.arm(ctx.now + self.rtt, ctx);
                }
            }
            Rules::Ns2 | Rules::Ns2_28 => self.nextpkt_ns2(None, ctx),
        }
    }

    pub fn on_packet(&mut self, pkt: &Packet, ctx: &mut Ctx) {
        let TfrcHeader::Data {
            timestamp,
            rtt,
            rto,
            round,
            urgent,
        } = pkt.th.tfrc()
        else {
            return;
        };
        if pkt.rev {
            return;
        }
        let now = ctx.now;
        let seq = pkt.th.seq;
        let marked = pkt.ecn == Ecn::Ce;
        self.stats.packets_received += 1;
        if marked {
            self.stats.ce_received += 1;
        }
        let new = self.detector.is_new(seq);
        let highest_before = self.detector.highest();
        if new {
            self.rtt = rtt;
            self.rto = rto;
            self.round = round;
            self.last = Some((timestamp, now));
            self.first_arrival.get_or_insert(now);
            // ns-2 counts only unmarked packets (`RCVD`) in its receive rate
            if !(marked && self.p.rules.ns2_sink()) {
                self.recent.push_back(now);
            }
            // X_recv looks back R_m at most (ns-2: R before the latest arrival); arrivals
            // older than 2·R_m go (ns-2 keeps them all: they would count again only if R more
            // than doubled between two reports)
            if self.rtt > SimDuration::ZERO {
                let horizon = SimTime(now.0.saturating_sub(2 * self.rtt.0));
                while self.recent.front().is_some_and(|&t| t < horizon) {
                    self.recent.pop_front();
                }
            }
        }
        self.since_report += 1;
        let arrival = self
            .detector
            .on_data(seq, timestamp, self.rtt, self.round, marked);
        self.stats.loss_events = self.detector.events;
        self.stats.packets_lost = self.detector.lost;
        match self.p.rules {
            Rules::Rfc5348 => self.after_data_rfc(ctx),
            Rules::Ns2 | Rules::Ns2_28 => {
                let above = highest_before.is_none_or(|m| seq > m);
                self.after_data_ns2(arrival, above, urgent, marked, timestamp, ctx)
            }
        }
    }

    // ---------------------------------------------------------------- feedback

    /// Sends a report with p (`given_p`, or the history's now) and X_recv.
    fn send_feedback(&mut self, given_p: Option<f64>, ctx: &mut Ctx) {
        let now = ctx.now;
        let Some((echo, arrival)) = self.last else {
            return;
        };
        let s_max = self.detector.highest().expect("data arrived");
        let p = given_p.unwrap_or_else(|| self.history.p(s_max));
        let x_recv = match self.p.rules {
            Rules::Rfc5348 => self.x_recv_rfc(now),
            Rules::Ns2 | Rules::Ns2_28 => self.x_recv_ns2(now),
        };
        ctx.send(Packet {
            src: self.node,
            dst: self.sender_node,
            protocol: proto::DCCP,
            size: self.p.feedback_size,
            flow: self.flow,
            dst_agent: self.peer,
            rev: true,
            th: TransportHeader {
                ack: s_max,
                opt: TransportOpt::Tfrc(TfrcHeader::Feedback {
                    echo,
                    delay: now.saturating_since(arrival),
                    x_recv,
                    p,
                }),
                ..Default::default()
            },
            ..Default::default()
        });
        self.stats.feedback_sent += 1;
        if now >= self.measure_from {
            self.stats.p_sum += p;
            self.stats.p_reports += 1;
        }
        self.p_last = p;
        self.last_report = Some(now);
        self.since_report = 0;
        if self.p.rules == Rules::Rfc5348 && self.rtt > SimDuration::ZERO {
            self.timer.arm(now + self.rtt, ctx);
        }
    }
}
