//! The ns-2.35 TFRC sender's rate (tfrc.cc, `TfrcAgent`), with the defaults of ns-default.tcl.
//!
//! Read this first: this is `Rules::Ns2`'s sender; the list of its departures from RFC 5348 is
//! on `Rules::Ns2`. Rates are bytes of s per second (ns-2's `rate_`, in units of
//! `packetSize_`). What each method follows:
//! - `new` / `start_interval`: `TfrcAgent::start` (rate 300 B/s, `InitRate_`; the first packet
//!   at once, the next s/rate later, the no-feedback timer at 2s/rate).
//! - `on_feedback`: `TfrcAgent::recv` — the round counter, maxrate = 2·X_recv from the second
//!   report on, `update_rtt`, the equation (`p_to_b`, `equation::x_ns2`), the no-feedback timer
//!   at max(2R, 2s/rate) with the rate before this report, then slow start (`slowstart`), the
//!   exit from it, or congestion avoidance (`increase_rate`, `decrease_rate`), with the gTFRC
//!   test of Jourjon et al.'s Fig. 1 in front of the latter.
//! - `update_rtt`: `TfrcAgent::update_rtt` — a TCP-style timeout t_RTO ("tzero") in integer
//!   ticks of 100 ms (SRTT × 8, RTTVAR × 4), and R and sqrt(R) filtered with `df_` 0.95.
//! - `on_nofeedback`: `reduce_rate_on_no_feedback` for an always-busy sender.
//! - `next_interval`: `nextpkt`'s spacing — during slow start the rate reached so far grows by
//!   `delta_` per packet (`slow_increase_`), otherwise rate × sqrt(R)/sqrt(R_sample) with
//!   `ca_` (oscillation prevention) or the rate.

use super::equation::x_ns2;
use super::{secs, InitialRate};
use crate::sim::time::SimTime;

/// `InitRate_`: the rate before any feedback, bytes per second.
pub const INIT_RATE: f64 = 300.0;
/// `df_`: the weight of the old R in the RTT filter.
pub const DF: f64 = 0.95;
/// `tcp_tick_`: the clock of the timeout t_RTO, seconds.
pub const TICK: f64 = 0.1;
/// `ssmult_`: slow start's factor per RTT.
pub const SSMULT: f64 = 2.0;
/// `T_SRTT_BITS`, `T_RTTVAR_BITS`, `rttvar_exp_`.
const SRTT_BITS: u32 = 3;
const RTTVAR_BITS: u32 = 2;
const RTTVAR_EXP: u32 = 2;
/// `SMALLFLOAT` of tfrc.h.
const SMALL: f64 = 1e-7;

/// ns-2's `rate_change_`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    SlowStart,
    CongestionAvoidance,
    RateDecrease,
    OutOfSlowStart,
}

/// What a feedback packet or a no-feedback expiry asks of the sender.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Action {
    /// Send a packet now and restart the send timer (`nextpkt`).
    pub send_now: bool,
    /// Restart the no-feedback timer this many seconds from now.
    pub nofeedback_in: f64,
}

#[derive(Clone, Debug)]
pub struct Control {
    s: f64,
    /// The initial rate in packets per RTT: RFC 3390's 4, 3 or 2 by size (`rate_init_option_
    /// 2`), or 1 (RFC 3448).
    init_packets: f64,
    oscillation_prevention: bool,
    target: Option<f64>,
    rate: f64,
    oldrate: f64,
    delta: f64,
    phase: Phase,
    last_change: SimTime,
    /// The equation's rate at the last report (`rcvrate`).
    rcvrate: f64,
    maxrate: f64,
    ss_maxrate: f64,
    round: u32,
    got_feedback: bool,
    urgent: bool,
    /// R (`rtt_`), sqrt-filtered R (`sqrtrtt_`), the last sample (`rttcur_`), seconds.
    rtt: f64,
    sqrtrtt: f64,
    rttcur: f64,
    /// `ca_`'s factor sqrtrtt_ / sqrt(rttcur_), kept from the last RTT sample.
    spacing: f64,
    /// t_RTO of the equation (`tzero_`), seconds, and the tick-counted SRTT and RTTVAR.
    tzero: f64,
    t_srtt: i64,
    t_rttvar: i64,
    heavyrounds: u32,
}

impl Control {
    pub fn new(s: f64, initial: InitialRate, oscillation_prevention: bool, target: Option<f64>) -> Control {
        let init_packets = match initial {
            // tfrc.cc `rfc3390()`: by packet size
            InitialRate::Rfc5348 if s <= 1095.0 => 4.0,
            InitialRate::Rfc5348 if s < 2190.0 => 3.0,
            InitialRate::Rfc5348 => 2.0,
            InitialRate::Rfc3448 => 1.0,
        };
        Control {
            s,
            init_packets,
            oscillation_prevention,
            target,
            rate: INIT_RATE,
            oldrate: INIT_RATE,
            delta: 0.0,
            phase: Phase::SlowStart,
            last_change: SimTime::ZERO,
            rcvrate: 0.0,
            maxrate: 0.0,
            ss_maxrate: 0.0,
            round: 0,
            got_feedback: false,
            urgent: true,
            rtt: 0.0,
            sqrtrtt: 1.0,
            rttcur: 1.0,
            spacing: 1.0,
            tzero: 0.0,
            t_srtt: 0,
            // `rttvar_init_ 12` seconds in ticks, shifted; replaced by the first sample
            t_rttvar: ((12.0 / TICK) as i64) << RTTVAR_BITS,
            heavyrounds: 0,
        }
    }

    /// `rate_`, bytes per second.
    pub fn x(&self) -> f64 {
        self.rate
    }

    /// `rtt_`, seconds (0 before the first feedback).
    pub fn rtt(&self) -> f64 {
        self.rtt
    }

    /// `tzero_`, seconds.
    pub fn tzero(&self) -> f64 {
        self.tzero
    }

    pub fn round(&self) -> u32 {
        self.round
    }

    pub fn urgent(&self) -> bool {
        self.urgent
    }

    pub fn phase(&self) -> Phase {
        self.phase
    }

    pub fn in_slow_start(&self) -> bool {
        self.phase == Phase::SlowStart
    }

    /// `start()`: the send timer's first interval and the no-feedback timer's, seconds.
    pub fn start_intervals(&self) -> (f64, f64) {
        (self.s / self.rate, 2.0 * self.s / self.rate)
    }

    /// `recv()`: a report with `r_sample` seconds of RTT (now − (echo + offset)), X_recv in
    /// bytes per second (ns-2 reports packets per second; the sender multiplies by s) and p.
    pub fn on_feedback(&mut self, now: SimTime, r_sample: f64, x_recv: f64, p: f64) -> Action {
        self.round += 1;
        self.urgent = false;
        if self.round > 1 && x_recv > 0.0 {
            self.ss_maxrate = 2.0 * x_recv;
            self.maxrate = 2.0 * x_recv;
        } else {
            self.ss_maxrate = 0.0;
            self.maxrate = 0.0;
        }
        self.update_rtt(r_sample);
        self.rcvrate = x_ns2(p, self.rtt, self.tzero, self.s, 1.0);
        let nofeedback_in = (2.0 * self.rtt).max(2.0 * self.s / self.rate);
        let mut send_now = false;
        if !self.got_feedback {
            self.got_feedback = true;
            self.slowstart(now);
            send_now = true;
        } else if self.phase == Phase::SlowStart {
            if p > 0.0 {
                self.phase = Phase::OutOfSlowStart;
                self.rate = self.rcvrate;
                self.oldrate = self.rcvrate;
            } else {
                self.slowstart(now);
                send_now = true;
            }
        } else if self.target.is_some_and(|g| self.rcvrate <= g) {
            // gTFRC (Fig. 1): the equation's rate is not above the target: send at the target
            self.rate = self.target.expect("checked");
            self.phase = Phase::CongestionAvoidance;
            self.last_change = now;
            self.heavyrounds = 0;
        } else if self.rcvrate > self.rate {
            self.increase(now);
        } else {
            self.decrease(now);
        }
        Action { send_now, nofeedback_in }
    }

    /// `reduce_rate_on_no_feedback()` for a sender that is never idle.
    pub fn on_nofeedback(&mut self) -> Action {
        if self.phase != Phase::SlowStart {
            self.phase = Phase::RateDecrease;
        }
        self.rate *= 0.5;
        self.urgent = true;
        self.round += 1;
        let nofeedback_in = (2.0 * self.rtt).max(2.0 * self.s / self.rate);
        Action { send_now: true, nofeedback_in }
    }

    /// `nextpkt()`'s interval until the next packet, seconds (it also advances the gradual
    /// slow-start rate); `None` when the rate is too small to schedule (ns-2 then stops).
    pub fn next_interval(&mut self) -> Option<f64> {
        let xrate = if self.round > 2 && self.phase == Phase::SlowStart && self.oldrate + SMALL < self.rate {
            self.oldrate += self.delta;
            self.oldrate
        } else if self.oscillation_prevention {
            self.rate * self.spacing
        } else {
            self.rate
        };
        (xrate > SMALL).then(|| (self.s / xrate).max(SMALL))
    }

    /// `update_rtt(tao, now)` with `r_sample` = now − tao.
    fn update_rtt(&mut self, r_sample: f64) {
        let t_rtt = ((r_sample / TICK + 0.5) as i64).max(1);
        if self.t_srtt != 0 {
            let mut delta = t_rtt - (self.t_srtt >> SRTT_BITS);
            self.t_srtt += delta;
            if self.t_srtt <= 0 {
                self.t_srtt = 1;
            }
            delta = delta.abs() - (self.t_rttvar >> RTTVAR_BITS);
            self.t_rttvar += delta;
            if self.t_rttvar <= 0 {
                self.t_rttvar = 1;
            }
        } else {
            self.t_srtt = t_rtt << SRTT_BITS;
            self.t_rttvar = t_rtt << (RTTVAR_BITS - 1);
        }
        let ticks = ((self.t_rttvar << (RTTVAR_EXP + (SRTT_BITS - RTTVAR_BITS))) + self.t_srtt) >> SRTT_BITS;
        // `minrto_` 0: no floor
        self.tzero = ticks as f64 * TICK;
        if self.rtt > 0.0 {
            self.rtt = DF * self.rtt + (1.0 - DF) * r_sample;
            self.sqrtrtt = DF * self.sqrtrtt + (1.0 - DF) * r_sample.sqrt();
        } else {
            self.rtt = r_sample;
            self.sqrtrtt = r_sample.sqrt();
        }
        self.rttcur = r_sample;
        self.spacing = self.sqrtrtt / self.rttcur.sqrt();
    }

    /// `slowstart()`.
    fn slowstart(&mut self, now: SimTime) {
        let initrate = self.init_packets * self.s / self.rtt;
        let since_change = secs(now.saturating_since(self.last_change));
        if self.round <= 1 || (self.round == 2 && self.init_packets > 1.0) {
            // no rate report worth the name yet: keep to the initial rate
            self.oldrate = self.rate;
            self.rate = self.rate.max(initrate);
            self.delta = (self.rate - self.oldrate) / (self.rate * self.rtt / self.s);
            self.last_change = now;
        } else if self.ss_maxrate > 0.0 {
            // `idleFix_`: `lastlimited_` stays 0 for a sender that always has data, so
            // "data-limited within 1.5 R" is now < 1.5 R
            if secs(now - SimTime::ZERO) < 1.5 * self.rtt && self.ss_maxrate < initrate {
                self.oldrate = self.rate;
                self.rate = self.rate.max(initrate);
                self.delta = (self.rate - self.oldrate) / (self.rate * self.rtt / self.s);
                self.last_change = now;
            } else if self.rate < self.ss_maxrate && since_change > self.rtt {
                self.oldrate = self.rate;
                self.rate = (SSMULT * self.rate).min(self.ss_maxrate).max(self.s / self.rtt);
                self.delta = (self.rate - self.oldrate) / (self.rate * self.rtt / self.s);
                self.last_change = now;
            } else if self.rate > self.ss_maxrate {
                self.rate = self.ss_maxrate / 2.0;
                self.oldrate = self.rate;
                self.delta = 0.0;
                self.last_change = now;
            }
        } else {
            // the receiver saw nothing: back to one packet per RTT
            self.oldrate = self.rate;
            self.rate = self.s / self.rtt;
            self.delta = 0.0;
            self.last_change = now;
        }
    }

    /// `increase_rate()`: at most s/R per RTT since the last change, and at most the
    /// equation's rate and max(2·X_recv, s/R).
    fn increase(&mut self, now: SimTime) {
        let mult = (secs(now.saturating_since(self.last_change)) / self.rtt).min(2.0);
        self.rate += self.s / self.rtt * mult;
        // `idleFix_`'s data-limited case again holds only before 1.5 R
        let floor = if secs(now - SimTime::ZERO) < 1.5 * self.rtt {
            self.init_packets * self.s / self.rtt
        } else {
            self.s / self.rtt
        };
        let maximum = self.maxrate.max(floor).min(self.rcvrate);
        self.rate = self.rate.min(maximum);
        self.phase = Phase::CongestionAvoidance;
        self.last_change = now;
        self.heavyrounds = 0;
    }

    /// `decrease_rate()`: the equation's rate, capped at max(2·X_recv, s/R) at once
    /// (`maxHeavyRounds_ 0`).
    fn decrease(&mut self, now: SimTime) {
        self.rate = self.rcvrate;
        let maximum = self.maxrate.max(self.s / self.rtt);
        if self.rate > maximum {
            self.heavyrounds += 1;
        } else {
            self.heavyrounds = 0;
        }
        if self.heavyrounds > 0 {
            self.rate = self.rate.min(maximum);
        }
        self.phase = Phase::RateDecrease;
        self.last_change = now;
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{self, at_ms};
    use super::*;

    const S: f64 = 1000.0;

    fn close(a: f64, b: f64) -> bool {
        test_util::close(a, b, 1e-9)
    }

    fn sender() -> Control {
        Control::new(S, InitialRate::Rfc5348, false, None)
    }

    #[test]
    fn the_sender_starts_at_300_bytes_per_second() {
        let c = sender();
        let (send, nofeedback) = c.start_intervals();
        assert!(close(send, 1000.0 / 300.0));
        assert!(close(nofeedback, 2000.0 / 300.0));
        assert!(c.urgent());
    }

    #[test]
    fn the_first_report_sets_the_rfc3390_rate_and_sends_at_once() {
        let mut c = sender();
        let a = c.on_feedback(at_ms(100), 0.1, 300.0, 0.0);
        assert!(a.send_now);
        assert!(close(c.x(), 4.0 * S / 0.1), "4 packets per RTT for s ≤ 1095");
        // no-feedback timer: max(2R, 2s/rate) with the rate before this report (300 B/s)
        assert!(close(a.nofeedback_in, 2000.0 / 300.0));
        assert!(!c.urgent());
        assert_eq!(Control::new(1460.0, InitialRate::Rfc5348, false, None).init_packets, 3.0);
        assert_eq!(Control::new(2500.0, InitialRate::Rfc5348, false, None).init_packets, 2.0);
        assert_eq!(Control::new(S, InitialRate::Rfc3448, false, None).init_packets, 1.0);
    }

    #[test]
    fn the_timeout_counts_ticks_of_100_ms() {
        let mut c = sender();
        c.on_feedback(at_ms(100), 0.14, 300.0, 0.0);
        // t_rtt = ⌊1.4 + 0.5⌋ = 1 tick; SRTT = 8, RTTVAR = 2 (×4): t_RTO = (2·8 + 8) >> 3 = 3
        // ticks = 0.3 s
        assert!(close(c.tzero(), 0.3));
        assert!(close(c.rtt(), 0.14));
        c.on_feedback(at_ms(300), 0.36, 300.0, 0.0);
        // t_rtt = 4; delta = 4 − 1 = 3: SRTT = 11; |3| − (2 >> 2 = 0) = 3: RTTVAR = 5;
        // t_RTO = (5·8 + 11) >> 3 = 6 ticks; R = 0.95 × 0.14 + 0.05 × 0.36 = 0.151
        assert!(close(c.tzero(), 0.6));
        assert!(close(c.rtt(), 0.151));
    }

    #[test]
    fn slow_start_doubles_once_per_rtt_up_to_twice_x_recv() {
        let mut c = sender();
        c.on_feedback(at_ms(100), 0.1, 300.0, 0.0); // round 1: 40 000
        c.on_feedback(at_ms(200), 0.1, 30_000.0, 0.0); // round 2 keeps the initial rate
        assert!(close(c.x(), 40_000.0));
        c.on_feedback(at_ms(350), 0.1, 40_000.0, 0.0); // 250 ms > R after the last change
        assert!(close(c.x(), 80_000.0), "doubled, under 2 × 40 000");
        c.on_feedback(at_ms(400), 0.1, 60_000.0, 0.0);
        assert!(close(c.x(), 80_000.0), "only 50 ms after the last change");
        c.on_feedback(at_ms(500), 0.1, 50_000.0, 0.0);
        assert!(close(c.x(), 100_000.0), "2 × 80 000 capped at 2 × X_recv");
        c.on_feedback(at_ms(550), 0.1, 30_000.0, 0.0);
        assert!(close(c.x(), 30_000.0), "above 2 × X_recv = 60 000: X_recv");
    }

    #[test]
    fn a_loss_in_slow_start_sets_the_equation_rate_without_the_receive_limit() {
        let mut c = sender();
        c.on_feedback(at_ms(100), 0.1, 300.0, 0.0);
        c.on_feedback(at_ms(200), 0.1, 30_000.0, 0.0);
        let a = c.on_feedback(at_ms(300), 0.1, 1_000.0, 0.001);
        assert!(!a.send_now);
        assert_eq!(c.phase(), Phase::OutOfSlowStart);
        // the equation with ns-2's tzero (0.3 s after three 100 ms samples), not 2 × X_recv
        assert!(close(c.x(), x_ns2(0.001, 0.1, c.tzero(), S, 1.0)));
        assert!(c.x() > 2_000.0);
    }

    #[test]
    fn congestion_avoidance_climbs_by_one_packet_per_rtt() {
        let mut c = sender();
        c.on_feedback(at_ms(100), 0.1, 300.0, 0.0);
        c.on_feedback(at_ms(200), 0.1, 30_000.0, 0.0);
        c.on_feedback(at_ms(300), 0.1, 30_000.0, 0.02);
        let r0 = c.x();
        // the equation allows more now (less loss): + s/R × (time since the last change)/R,
        // at most 2 s/R; leaving slow start changed nothing, so the last change was at 200 ms
        c.on_feedback(at_ms(400), 0.1, 100_000.0, 0.005);
        assert_eq!(c.phase(), Phase::CongestionAvoidance);
        assert!(close(c.x(), r0 + 20_000.0));
        c.on_feedback(at_ms(450), 0.1, 100_000.0, 0.005);
        assert!(close(c.x(), r0 + 25_000.0), "50 ms: half a packet per RTT");
        c.on_feedback(at_ms(850), 0.1, 100_000.0, 0.005);
        assert!(close(c.x(), r0 + 45_000.0), "400 ms: capped at 2 s/R");
        // more loss: down to the equation's rate at once
        c.on_feedback(at_ms(900), 0.1, 100_000.0, 0.05);
        assert_eq!(c.phase(), Phase::RateDecrease);
        assert!(close(c.x(), x_ns2(0.05, c.rtt(), c.tzero(), S, 1.0)));
    }

    #[test]
    fn the_nofeedback_timer_halves_the_rate_and_sends() {
        let mut c = sender();
        c.on_feedback(at_ms(100), 0.1, 300.0, 0.0);
        let a = c.on_nofeedback();
        assert!(a.send_now && c.urgent());
        assert!(close(c.x(), 20_000.0));
        assert_eq!(c.phase(), Phase::SlowStart, "halving keeps slow start");
        assert_eq!(c.round(), 2);
        assert!(close(a.nofeedback_in, 0.2), "max(2R, 2s/rate) = max(0.2, 0.1)");
    }

    #[test]
    fn gtfrc_sends_at_the_target_when_the_equation_is_below_it() {
        let target = 50_000.0;
        let mut c = Control::new(S, InitialRate::Rfc5348, false, Some(target));
        c.on_feedback(at_ms(100), 0.1, 300.0, 0.0);
        c.on_feedback(at_ms(200), 0.1, 30_000.0, 0.0);
        c.on_feedback(at_ms(300), 0.1, 30_000.0, 0.05); // leaves slow start: no target yet
        assert!(c.x() < target);
        c.on_feedback(at_ms(400), 0.1, 30_000.0, 0.05);
        assert!(close(c.x(), target), "Fig. 1: rcvrate ≤ gtfrc_ → rate = gtfrc_");
        assert_eq!(c.phase(), Phase::CongestionAvoidance);
        // with the equation above the target, the plain rules apply (here the climb of s/R)
        c.on_feedback(at_ms(500), 0.1, 100_000.0, 0.001);
        assert!(close(c.x(), target + 10_000.0));
    }

    #[test]
    fn slow_increase_reaches_a_new_rate_packet_by_packet() {
        let mut c = sender();
        c.on_feedback(at_ms(100), 0.1, 300.0, 0.0);
        c.on_feedback(at_ms(200), 0.1, 30_000.0, 0.0);
        c.on_feedback(at_ms(350), 0.1, 40_000.0, 0.0); // 40 000 → 80 000, delta = 40 000 / 8
        let first = c.next_interval().unwrap();
        assert!(close(first, S / 45_000.0));
        let second = c.next_interval().unwrap();
        assert!(close(second, S / 50_000.0));
    }
}
