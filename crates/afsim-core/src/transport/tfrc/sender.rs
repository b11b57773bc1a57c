//! The TFRC sender: sends data packets at the allowed rate and adjusts it to the feedback.
//!
//! Read this first.
//! - Sources: RFC 5348 §4 (the rate arithmetic is in `rate_rfc`), §4.6 (packets spaced s/X
//!   apart, or s/X_inst with oscillation prevention); ns-2.35 `TfrcAgent` for `Rules::Ns2`
//!   and ns-2.28's for `Rules::Ns2_28` (`rate_ns2`, `Release`); gTFRC's target rate lives in
//!   both rate modules.
//! - Packets: a data packet is `packet_size` bytes of IP with sequence numbers from 0
//!   (`th.seq`), ECT(0) when `ecn`, and `TfrcHeader::Data` with its send time, R (0 before the
//!   first feedback) and, for the ns-2 receiver, t_RTO, the sender's round and its urgent flag.
//! - Timers: the send timer, the no-feedback timer and the start timer are `super::Timer`s, so
//!   a rate change moves the next packet without a stray event. RFC rules: after each feedback
//!   or no-feedback expiry the next packet is due s/X (X_inst) after the last one, or at once.
//!   ns-2 rules: the pending send keeps its time, except where ns-2 calls `nextpkt` (first
//!   feedback, feedback in slow start, no-feedback expiry), which sends at once.
//! - Measurements: the time average of X and the mean X_recv over the measured interval
//!   (from `measure_from`, the scenario's warm-up), the RTT samples, and the optional trace.
//!
//! Not modelled: data-limited or idle periods (the sender always has data), ns-2's random
//! send-time dither (`overhead_`, 0 by default).

use super::trace::{Point, Trace};
use super::{duration, rate_ns2, rate_rfc, secs, Params, Rules, SenderStats, Timer};
use crate::net::packet::{proto, Ecn, Packet, TfrcHeader, TransportHeader, TransportOpt};
use crate::sim::time::{SimDuration, SimTime};
use crate::transport::Ctx;

/// Timer kinds (the low bits of the tokens).
const START: u32 = 0;
const SEND: u32 = 1;
const NOFEEDBACK: u32 = 2;

/// The rate arithmetic of the rules in force.
#[derive(Clone, Debug)]
enum Control {
    Rfc(rate_rfc::Control),
    Ns2(rate_ns2::Control),
}

#[derive(Debug)]
pub struct Sender {
    pub flow: u32,
    src: u32,
    dst: u32,
    peer: u32,
    p: Params,
    s: f64,
    control: Control,
    started: bool,
    seq: u64,
    last_send: SimTime,
    start_timer: Timer,
    send: Timer,
    nofeedback: Timer,
    /// X_recv and p of the last feedback.
    x_recv: f64,
    p_reported: f64,
    stats: SenderStats,
    rtt_m2: f64,
    measure_from: SimTime,
    /// ∫X dt over [measure_from, x_since], bytes.
    x_area: f64,
    x_since: SimTime,
    x_recv_sum: f64,
    x_recv_reports: u64,
    /// The header fields of the next data packets (`update_header`).
    header: (SimDuration, SimDuration, u32, bool),
    trace: Option<Box<Trace>>,
}

impl Sender {
    /// The sender of flow `flow` from `src_node` to `dst_node`; `peer_agent` is the receiver's
    /// agent id; X and X_recv are averaged from `measure_from` on.
    pub fn new(
        flow: u32,
        src_node: u32,
        dst_node: u32,
        peer_agent: u32,
        params: &Params,
        measure_from: SimTime,
    ) -> Sender {
        debug_assert!(params.validate().is_ok());
        let p = *params;
        let s = f64::from(p.segment_size());
        let target = p.target_bytes_per_s();
        let control = match p.rules {
            Rules::Rfc5348 => Control::Rfc(rate_rfc::Control::new(
                s,
                p.initial_rate,
                p.oscillation_prevention,
                target,
                p.start,
            )),
            Rules::Ns2 => Control::Ns2(rate_ns2::Control::new(
                s,
                p.initial_rate,
                p.oscillation_prevention,
                target,
            )),
            Rules::Ns2_28 => Control::Ns2(
                rate_ns2::Control::new(s, p.initial_rate, p.oscillation_prevention, target)
                    .with_release(rate_ns2::Release::V2_28),
            ),
        };
        Sender {
            flow,
            src: src_node,
            dst: dst_node,
            peer: peer_agent,
            s,
            control,
            started: false,
            seq: 0,
            last_send: SimTime::ZERO,
            start_timer: Timer::new(START),
            send: Timer::new(SEND),
            nofeedback: Timer::new(NOFEEDBACK),
            x_recv: 0.0,
            p_reported: 0.0,
            stats: SenderStats::default(),
            rtt_m2: 0.0,
            measure_from,
            x_area: 0.0,
            x_since: p.start,
            x_recv_sum: 0.0,
            x_recv_reports: 0,
            header: (SimDuration::ZERO, SimDuration::ZERO, 0, true),
            trace: p.trace.then(|| Box::new(Trace::new())),
            p,
        }
    }

    // ---------------------------------------------------------------- observers

    pub fn stats(&self) -> SenderStats {
        self.stats
    }

    /// The allowed sending rate X, bytes of s per second (0 before the start).
    pub fn x(&self) -> f64 {
        if !self.started {
            return 0.0;
        }
        match &self.control {
            Control::Rfc(c) => c.x(),
            Control::Ns2(c) => c.x(),
        }
    }

    /// R, seconds (0 before the first feedback).
    pub fn rtt(&self) -> f64 {
        match &self.control {
            Control::Rfc(c) => c.rtt().unwrap_or(0.0),
            Control::Ns2(c) => c.rtt(),
        }
    }

    pub fn in_slow_start(&self) -> bool {
        match &self.control {
            Control::Rfc(c) => c.in_slow_start(),
            Control::Ns2(c) => c.in_slow_start(),
        }
    }

    /// When the next data packet is due, if the send timer is set.
    pub fn next_send(&self) -> Option<SimTime> {
        self.send.deadline()
    }

    /// When the no-feedback timer expires, if it is set.
    pub fn nofeedback_deadline(&self) -> Option<SimTime> {
        self.nofeedback.deadline()
    }

    /// Time average of X over [measure_from, now], kb/s; `None` for an empty interval.
    pub fn x_mean_kbps(&self, now: SimTime) -> Option<f64> {
        let span = secs(now.saturating_since(self.measure_from));
        (span > 0.0)
            .then(|| (self.x_area + self.x() * self.measured_secs(self.x_since, now)) / span * 8e-3)
    }

    /// Mean X_recv of the feedback received in the measured interval, kb/s.
    pub fn x_recv_mean_kbps(&self) -> Option<f64> {
        (self.x_recv_reports > 0).then(|| self.x_recv_sum / self.x_recv_reports as f64 * 8e-3)
    }

    /// The time series, if `Params::trace` was set.
    pub fn trace(&self) -> Option<&Trace> {
        self.trace.as_deref()
    }

    /// Takes the time series out (for a report), leaving none.
    pub fn take_trace(&mut self) -> Option<Trace> {
        self.trace.take().map(|b| *b)
    }

    // ---------------------------------------------------------------- hooks

    pub fn start(&mut self, ctx: &mut Ctx) {
        self.start_timer.arm(self.p.start, ctx);
    }

    pub fn on_timer(&mut self, token: u32, ctx: &mut Ctx) {
        match Timer::kind_of(token) {
            START if self.start_timer.fire(token, ctx) => self.begin(ctx),
            SEND if self.send.fire(token, ctx) => match self.control {
                Control::Rfc(_) => {
                    self.send_packet(ctx);
                    self.schedule_rfc(ctx);
                }
                Control::Ns2(_) => self.nextpkt(ctx),
            },
            NOFEEDBACK if self.nofeedback.fire(token, ctx) => self.on_nofeedback(ctx),
            _ => {}
        }
    }

    pub fn on_packet(&mut self, pkt: &Packet, ctx: &mut Ctx) {
        let TfrcHeader::Feedback {
            echo,
            delay,
            x_recv,
            p,
        } = pkt.th.tfrc()
        else {
            return;
        };
        if !pkt.rev || !self.started {
            return;
        }
        let now = ctx.now;
        let r_sample = secs(rtt_sample(now, echo, delay)).max(1e-9);
        self.sample_rtt(r_sample);
        self.stats.feedback_received += 1;
        self.x_recv = x_recv;
        self.p_reported = p;
        if now >= self.measure_from {
            self.x_recv_sum += x_recv;
            self.x_recv_reports += 1;
        }
        self.integrate_x(now);
        match &mut self.control {
            Control::Rfc(c) => {
                let rto = c.on_feedback(now, r_sample, x_recv, p);
                self.update_header();
                self.arm_nofeedback(now, rto, ctx);
                self.schedule_rfc(ctx);
            }
            Control::Ns2(c) => {
                let action = c.on_feedback(now, r_sample, x_recv, p);
                self.update_header();
                self.arm_nofeedback(now, action.nofeedback_in, ctx);
                if action.send_now {
                    self.nextpkt(ctx);
                }
            }
        }
        self.record(now);
    }

    // ---------------------------------------------------------------- internals

    fn begin(&mut self, ctx: &mut Ctx) {
        self.started = true;
        self.update_header();
        self.x_since = ctx.now;
        self.send_packet(ctx);
        let now = ctx.now;
        let (send_in, nofeedback_in) = match &self.control {
            // §4.2: one packet per second, the no-feedback timer at 2 s
            Control::Rfc(c) => (c.interval(), c.first_nofeedback_interval()),
            Control::Ns2(c) => c.start_intervals(),
        };
        self.send.arm(now + duration(send_in), ctx);
        self.arm_nofeedback(now, nofeedback_in, ctx);
        self.record(now);
    }

    /// RFC rules: the next packet is due one interval after the last one (at once if that
    /// time has passed).
    fn schedule_rfc(&mut self, ctx: &mut Ctx) {
        if let Control::Rfc(c) = &self.control {
            let at = self.last_send + duration(c.interval());
            self.send.arm(at.max(ctx.now), ctx);
        }
    }

    /// ns-2 `nextpkt()`: send now, and the next one after the current spacing.
    fn nextpkt(&mut self, ctx: &mut Ctx) {
        self.send_packet(ctx);
        if let Control::Ns2(c) = &mut self.control {
            match c.next_interval() {
                Some(i) => self.send.arm(ctx.now + duration(i), ctx),
                None => self.send.cancel(),
            }
        }
    }

    fn arm_nofeedback(&mut self, now: SimTime, seconds: f64, ctx: &mut Ctx) {
        if self.p.nofeedback_timer {
            self.nofeedback.arm(now + duration(seconds), ctx);
        }
    }

    /// RFC 5348 §4.4, or ns-2's `reduce_rate_on_no_feedback`.
    fn on_nofeedback(&mut self, ctx: &mut Ctx) {
        let now = ctx.now;
        self.stats.nofeedback_expiries += 1;
        self.integrate_x(now);
        match &mut self.control {
            Control::Rfc(c) => {
                let next = c.on_nofeedback(now);
                self.arm_nofeedback(now, next, ctx);
                self.schedule_rfc(ctx);
            }
            Control::Ns2(c) => {
                let action = c.on_nofeedback();
                self.update_header();
                self.arm_nofeedback(now, action.nofeedback_in, ctx);
                self.nextpkt(ctx);
            }
        }
        self.record(now);
    }

    /// What the data packets carry from now on (it changes with each RTT sample and, for ns-2,
    /// each round): R, t_RTO, the round and the urgent flag.
    fn update_header(&mut self) {
        self.header = match &self.control {
            Control::Rfc(c) => {
                let r = c.rtt().unwrap_or(0.0);
                (duration(r), duration(4.0 * r), 0, false)
            }
            Control::Ns2(c) => (
                duration(c.rtt()),
                duration(c.tzero()),
                c.round(),
                c.urgent(),
            ),
        };
    }

    fn send_packet(&mut self, ctx: &mut Ctx) {
        let (rtt, rto, round, urgent) = self.header;
        ctx.send(Packet {
            src: self.src,
            dst: self.dst,
            protocol: proto::DCCP,
            ecn: if self.p.ecn { Ecn::Ect0 } else { Ecn::NotEct },
            size: self.p.packet_size,
            flow: self.flow,
            dst_agent: self.peer,
            th: TransportHeader {
                seq: self.seq,
                payload: self.s as u32,
                opt: TransportOpt::Tfrc(TfrcHeader::Data {
                    timestamp: ctx.now,
                    rtt,
                    rto,
                    round,
                    urgent,
                }),
                ..Default::default()
            },
            ..Default::default()
        });
        self.seq += 1;
        self.last_send = ctx.now;
        self.stats.packets_sent += 1;
    }

    /// Welford's running mean and variance of the RTT samples.
    fn sample_rtt(&mut self, r: f64) {
        let st = &mut self.stats;
        st.rtt_samples += 1;
        let d = r - st.rtt_mean_s;
        st.rtt_mean_s += d / st.rtt_samples as f64;
        self.rtt_m2 += d * (r - st.rtt_mean_s);
        st.rtt_std_s = (self.rtt_m2 / st.rtt_samples as f64).sqrt();
    }

    /// Seconds of [from, to] inside the measured interval.
    fn measured_secs(&self, from: SimTime, to: SimTime) -> f64 {
        secs(to.saturating_since(from.max(self.measure_from)))
    }

    /// Adds X × (time since the last change) to the measured area; call before X changes.
    fn integrate_x(&mut self, now: SimTime) {
        self.x_area += self.x() * self.measured_secs(self.x_since, now);
        self.x_since = now;
    }

    fn record(&mut self, now: SimTime) {
        if self.trace.is_none() {
            return;
        }
        let point = Point {
            x_kbps: self.x() * 8e-3,
            x_recv_kbps: self.x_recv * 8e-3,
            p: self.p_reported,
            rtt_s: self.rtt(),
        };
        if let Some(t) = self.trace.as_mut() {
            t.record(now, point);
        }
    }
}

/// RFC 5348 §4.3 step 1: R_sample = (t_now − t_recvdata) − t_delay (ns-2: now −
/// (timestamp_echo + timestamp_offset)).
fn rtt_sample(now: SimTime, echo: SimTime, delay: SimDuration) -> SimDuration {
    now.saturating_since(echo + delay)
}
