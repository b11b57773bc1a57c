//! The ns-2.35 TFRC sender's rate (tfrc.cc, `TfrcAgent`), with the defaults of ns-default.tcl,
//! and ns-2.28's where it differs (`Release::V2_28`).
//!
//! Read this first: this is `Rules::Ns2`'s sender (and `Rules::Ns2_28`'s); the list of its
//! departures from RFC 5348 is on `Rules::Ns2`, ns-2.28's departures from ns-2.35 on
//! `Rules::Ns2_28`. Rates are bytes of s per second (ns-2's `rate_`, in units of
//! `packetSize_`). Line numbers: "2.35 l.N" is ns-2.35's tcp/tfrc.cc (the ns-2 CVS tree of
//! 2011-10-31, commit 796c7f12 of the GitHub mirror Raj64742/ns2), "2.28 l.N" ns-2.28's (the
//! tree of the 2005-02-03 release, commit 376dfb7e; the file last changed 2004-10-30),
//! "tcl 2.28 l.N" ns-2.28's tcl/lib/ns-default.tcl. What each method follows:
//! - `new` / `start_interval`: `TfrcAgent::start` (rate 300 B/s, `InitRate_`; the first packet
//!   at once, the next s/rate later, the no-feedback timer at 2s/rate).
//! - `on_feedback`: `TfrcAgent::recv` — the round counter, maxrate = 2·X_recv from the second
//!   report on (2.28: from the first), `update_rtt`, the equation (`p_to_b`,
//!   `equation::x_ns2`), the no-feedback timer at max(2R, 2s/rate) with the rate before this
//!   report, then slow start (`slowstart`), the exit from it, or congestion avoidance
//!   (`increase_rate`, `decrease_rate`), with the gTFRC test of Jourjon et al.'s Fig. 1 in
//!   front of the latter.
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

/// Which ns-2 release's `TfrcAgent` the arithmetic follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Release {
    /// ns-2.35 (`Rules::Ns2`).
    V2_35,
    /// ns-2.28 (`Rules::Ns2_28`), the release of the gTFRC paper's §4.
    V2_28,
}

impl Release {
    /// `maxHeavyRounds_`: reports for which `decrease_rate` lets the rate stay above
    /// max(2·X_recv, s/R). ns-2.35 ns-default.tcl l.1155: 0; tcl 2.28 l.1035: 1 (changed
    /// 2007-03-29).
    fn max_heavy_rounds(self) -> u32 {
        match self {
            Release::V2_35 => 0,
            Release::V2_28 => 1,
        }
    }
}

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
    release: Release,
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
    pub fn new(
        s: f64,
        initial: InitialRate,
        oscillation_prevention: bool,
        target: Option<f64>,
    ) -> Control {
        let init_packets = match initial {
            // tfrc.cc `rfc3390()`: by packet size
            InitialRate::Rfc5348 if s <= 1095.0 => 4.0,
            InitialRate::Rfc5348 if s < 2190.0 => 3.0,
            InitialRate::Rfc5348 => 2.0,
            InitialRate::Rfc3448 => 1.0,
        };
        Control {
            release: Release::V2_35,
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

    /// The same sender following another release's `TfrcAgent`.
    pub fn with_release(self, release: Release) -> Control {
        Control { release, ..self }
    }

    pub fn release(&self) -> Release {
        self.release
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
        let counts = match self.release {
            // 2.35 l.343: `round_id > 1 && rate_since_last_report > 0`
            Release::V2_35 => self.round > 1,
            // 2.28 l.323: `rate_since_last_report > 0`, the first report included
            Release::V2_28 => true,
        };
        if counts && x_recv > 0.0 {
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
        Action {
            send_now,
            nofeedback_in,
        }
    }

    /// `reduce_rate_on_no_feedback()` for a sender that is never idle.
    pub fn on_nofeedback(&mut self) -> Action {
        // 2.35 l.617–621 keeps slow start (a bug fix of 2006-09-26); 2.28 l.563 sets
        // RATE_DECREASE whatever the phase, so the next report goes to `increase_rate` or
        // `decrease_rate` as after a loss
        if self.phase != Phase::SlowStart || self.release == Release::V2_28 {
            self.phase = Phase::RateDecrease;
        }
        self.rate *= 0.5;
        self.urgent = true;
        self.round += 1;
        let nofeedback_in = (2.0 * self.rtt).max(2.0 * self.s / self.rate);
        Action {
            send_now: true,
            nofeedback_in,
        }
    }

    /// `nextpkt()`'s interval until the next packet, seconds (it also advances the gradual
    /// slow-start rate); `None` when the rate is too small to schedule (ns-2 then stops).
    pub fn next_interval(&mut self) -> Option<f64> {
        let xrate =
            if self.round > 2 && self.phase == Phase::SlowStart && self.oldrate + SMALL < self.rate
            {
                self.oldrate += self.delta;
                self.oldrate
            } else if self.oscillation_prevention {
                self.rate * self.spacing
            } else {
                self.rate
            };
        if xrate <= SMALL {
            return None;
        }
        let next = self.s / xrate;
        match self.release {
            // 2.35 l.285–286: an interval at or below SMALLFLOAT is rescheduled at SMALLFLOAT
            Release::V2_35 => Some(next.max(SMALL)),
            // 2.28 l.265–266: only `if (next > SMALLFLOAT)` sets the timer
            Release::V2_28 => (next > SMALL).then_some(next),
        }
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
        let ticks = ((self.t_rttvar << (RTTVAR_EXP + (SRTT_BITS - RTTVAR_BITS))) + self.t_srtt)
            >> SRTT_BITS;
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

    /// `slowstart()` of the release in force.
    fn slowstart(&mut self, now: SimTime) {
        match self.release {
            Release::V2_35 => self.slowstart_2_35(now),
            Release::V2_28 => self.slowstart_2_28(now),
        }
    }

    /// The rate change of both releases' `slowstart()` branches: δ, the step per packet that
    /// `slow_increase_` adds, and the time of the change.
    fn changed(&mut self, now: SimTime) {
        self.delta = (self.rate - self.oldrate) / (self.rate * self.rtt / self.s);
        self.last_change = now;
    }

    /// ns-2.28's `slowstart()` (2.28 l.437–497) with `ss_changes_ 1` (tcl 2.28 l.1059, the
    /// default since 2004-10-22), so its `!ss_changes_` branch (l.450) never runs.
    fn slowstart_2_28(&mut self, now: SimTime) {
        let since_change = secs(now.saturating_since(self.last_change));
        if self.round <= 1 {
            // l.441–449: the first report sets the initial rate (2.35 keeps a higher rate, and
            // keeps the initial rate at the second report too)
            self.oldrate = self.rate;
            self.rate = self.init_packets * self.s / self.rtt;
            self.changed(now);
        } else if self.ss_maxrate > 0.0 {
            if SSMULT * self.rate < self.ss_maxrate && since_change > self.rtt {
                // l.458–463: double, if doubling stays below 2·X_recv
                self.oldrate = self.rate;
                self.rate *= SSMULT;
                self.changed(now);
            } else if self.oldrate > self.ss_maxrate {
                // l.464–469: the rate reached before the last change (advanced packet by
                // packet by `slow_increase_`) is above 2·X_recv: down to X_recv
                self.rate = 0.5 * self.ss_maxrate;
                self.oldrate = self.rate;
                self.delta = 0.0;
                self.last_change = now;
            } else if self.round > 2 && self.rate > self.ss_maxrate {
                // l.470–477: above 2·X_recv: capped *at* 2·X_recv (2.35 halves to X_recv)
                self.oldrate = self.rate;
                self.rate = self.ss_maxrate;
                self.changed(now);
            } else if since_change > self.rtt {
                // l.478–485: doubling would pass 2·X_recv: 2·X_recv, once per RTT
                self.oldrate = self.rate;
                self.rate = self.ss_maxrate;
                self.changed(now);
            }
        } else {
            // l.487–495: the receiver saw nothing: s/R, reached gradually (δ from the change;
            // 2.35's δ is 0)
            self.oldrate = self.rate;
            self.rate = self.s / self.rtt;
            self.changed(now);
        }
    }

    /// ns-2.35's `slowstart()` (2.35 l.462–516).
    fn slowstart_2_35(&mut self, now: SimTime) {
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
                self.rate = (SSMULT * self.rate)
                    .min(self.ss_maxrate)
                    .max(self.s / self.rtt);
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
        // `idleFix_`'s data-limited case again holds only before 1.5 R (2.35 l.527–531); ns-2.28
        // has no `idleFix_`: the floor is s/R (2.28 l.507)
        let floor = if self.release == Release::V2_35 && secs(now - SimTime::ZERO) < 1.5 * self.rtt
        {
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

    /// `decrease_rate()` (2.35 l.549–567, 2.28 l.516–535, the same code): the equation's rate,
    /// capped at max(2·X_recv, s/R) once it has been above it for more than `maxHeavyRounds_`
    /// reports in a row — at once in 2.35 (0), from the second report in 2.28 (1).
    fn decrease(&mut self, now: SimTime) {
        self.rate = self.rcvrate;
        let maximum = self.maxrate.max(self.s / self.rtt);
        if self.rate > maximum {
            self.heavyrounds += 1;
        } else {
            self.heavyrounds = 0;
        }
        if self.heavyrounds > self.release.max_heavy_rounds() {
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
        assert!(
            close(c.x(), 4.0 * S / 0.1),
            "4 packets per RTT for s ≤ 1095"
        );
        // no-feedback timer: max(2R, 2s/rate) with the rate before this report (300 B/s)
        assert!(close(a.nofeedback_in, 2000.0 / 300.0));
        assert!(!c.urgent());
        assert_eq!(
            Control::new(1460.0, InitialRate::Rfc5348, false, None).init_packets,
            3.0
        );
        assert_eq!(
            Control::new(2500.0, InitialRate::Rfc5348, false, None).init_packets,
            2.0
        );
        assert_eq!(
            Control::new(S, InitialRate::Rfc3448, false, None).init_packets,
            1.0
        );
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
        assert!(
            close(a.nofeedback_in, 0.2),
            "max(2R, 2s/rate) = max(0.2, 0.1)"
        );
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
        assert!(
            close(c.x(), target),
            "Fig. 1: rcvrate ≤ gtfrc_ → rate = gtfrc_"
        );
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

    // ---- ns-2.28 against ns-2.35: each difference, same inputs, different outcome

    fn both() -> [Control; 2] {
        [sender(), sender().with_release(Release::V2_28)]
    }

    /// A sender in slow start after its first report (R = 100 ms), then placed at `rate`, with
    /// `oldrate` the rate reached before the last change, `round` reports so far and its last
    /// change at `last_change_ms`.
    fn in_slow_start(
        release: Release,
        rate: f64,
        oldrate: f64,
        round: u32,
        last_change_ms: u64,
    ) -> Control {
        let mut c = sender().with_release(release);
        c.on_feedback(at_ms(100), 0.1, 300.0, 0.0);
        c.rate = rate;
        c.oldrate = oldrate;
        c.delta = 0.0;
        c.round = round - 1;
        c.last_change = at_ms(last_change_ms);
        c
    }

    #[test]
    fn ns2_28_takes_maxrate_from_the_first_report_too() {
        // 2.28 l.323 against 2.35 l.343. No branch reads maxrate before the next report
        // replaces it (the first report goes to slowstart's first-report branch), so this
        // shows the state only.
        let [mut v35, mut v28] = both();
        v35.on_feedback(at_ms(100), 0.1, 5_000.0, 0.0);
        v28.on_feedback(at_ms(100), 0.1, 5_000.0, 0.0);
        assert_eq!((v35.ss_maxrate, v35.maxrate), (0.0, 0.0));
        assert_eq!((v28.ss_maxrate, v28.maxrate), (10_000.0, 10_000.0));
        assert!(close(v35.x(), v28.x()), "both set the initial rate");
    }

    #[test]
    fn ns2_28_doubles_at_the_second_report_where_2_35_keeps_the_initial_rate() {
        let [mut v35, mut v28] = both();
        for c in [&mut v35, &mut v28] {
            c.on_feedback(at_ms(100), 0.1, 300.0, 0.0); // round 1: 4 s/R = 40 000
            c.on_feedback(at_ms(250), 0.1, 50_000.0, 0.0); // round 2, 2·X_recv = 100 000
        }
        assert!(
            close(v35.x(), 40_000.0),
            "2.35 l.469: the second report keeps the initial rate"
        );
        assert!(
            close(v28.x(), 80_000.0),
            "2.28 l.458–463: doubled, below 2·X_recv"
        );
    }

    #[test]
    fn above_twice_x_recv_ns2_28_caps_at_twice_x_recv_where_2_35_halves_to_x_recv() {
        // the rate before the last change (80 000) was below 2·X_recv = 90 000
        let mut v35 = in_slow_start(Release::V2_35, 100_000.0, 80_000.0, 5, 300);
        let mut v28 = in_slow_start(Release::V2_28, 100_000.0, 80_000.0, 5, 300);
        v35.on_feedback(at_ms(350), 0.1, 45_000.0, 0.0);
        v28.on_feedback(at_ms(350), 0.1, 45_000.0, 0.0);
        assert!(close(v35.x(), 45_000.0), "2.35 l.497–501: X_recv");
        assert!(close(v28.x(), 90_000.0), "2.28 l.470–477: 2·X_recv");
        // 2.28 halves only when the rate reached before the last change is above it too
        let mut v28 = in_slow_start(Release::V2_28, 100_000.0, 100_000.0, 5, 300);
        v28.on_feedback(at_ms(350), 0.1, 45_000.0, 0.0);
        assert!(close(v28.x(), 45_000.0), "2.28 l.464–469");
        // and at the second report it does not cap (2·X_recv does not yet reflect slow start)
        let mut v28 = in_slow_start(Release::V2_28, 100_000.0, 80_000.0, 2, 300);
        v28.on_feedback(at_ms(350), 0.1, 45_000.0, 0.0);
        assert!(
            close(v28.x(), 100_000.0),
            "2.28 l.470: round_id > 2; l.480: not an RTT since"
        );
    }

    #[test]
    fn a_twice_x_recv_one_rounding_below_the_rate_halves_it_in_2_35_only() {
        // docs/validation.md, "Slow start beside a short-RTT flow": ns-2.35's 2·X_recv came a
        // rounding below the rate it had set, and halved it
        let rate = 250_000.0;
        let x_recv = rate / 2.0 * (1.0 - f64::EPSILON);
        assert!(2.0 * x_recv < rate);
        let mut v35 = in_slow_start(Release::V2_35, rate, 214_224.51, 6, 300);
        let mut v28 = in_slow_start(Release::V2_28, rate, 214_224.51, 6, 300);
        v35.on_feedback(at_ms(344), 0.1, x_recv, 0.0);
        v28.on_feedback(at_ms(344), 0.1, x_recv, 0.0);
        assert!(close(v35.x(), rate / 2.0));
        assert!(
            close(v28.x(), rate),
            "capped at 2·X_recv, a rounding below the rate"
        );
    }

    #[test]
    fn with_nothing_received_ns2_28_moves_to_one_packet_per_rtt_gradually() {
        // both set s/R (2.35 l.503–509, 2.28 l.487–495); 2.35's δ is 0, so the packet spacing
        // stays at the old rate, 2.28's δ reaches s/R in one packet here
        let mut v35 = in_slow_start(Release::V2_35, 5_000.0, 5_000.0, 5, 300);
        let mut v28 = in_slow_start(Release::V2_28, 5_000.0, 5_000.0, 5, 300);
        v35.on_feedback(at_ms(350), 0.1, 0.0, 0.0);
        v28.on_feedback(at_ms(350), 0.1, 0.0, 0.0);
        assert!(close(v35.x(), 10_000.0) && close(v28.x(), 10_000.0));
        assert!(close(v35.next_interval().unwrap(), S / 5_000.0));
        assert!(close(v28.next_interval().unwrap(), S / 10_000.0));
    }

    #[test]
    fn a_nofeedback_expiry_ends_slow_start_in_ns2_28_only() {
        let [mut v35, mut v28] = both();
        for c in [&mut v35, &mut v28] {
            c.on_feedback(at_ms(100), 0.1, 300.0, 0.0);
            c.on_feedback(at_ms(200), 0.1, 20_000.0, 0.0);
            c.on_feedback(at_ms(350), 0.1, 40_000.0, 0.0);
            assert!(close(c.x(), 80_000.0), "both at 2·X_recv");
            c.on_nofeedback();
            assert!(close(c.x(), 40_000.0), "both halve");
        }
        assert_eq!(v35.phase(), Phase::SlowStart, "2.35 l.617–621");
        assert_eq!(v28.phase(), Phase::RateDecrease, "2.28 l.563");
        // the next report, with no loss: 2.35 doubles in slow start and sends at once; 2.28
        // climbs by at most 2 s/R (`increase_rate`) and waits for its send timer
        let a35 = v35.on_feedback(at_ms(600), 0.1, 100_000.0, 0.0);
        let a28 = v28.on_feedback(at_ms(600), 0.1, 100_000.0, 0.0);
        assert!(close(v35.x(), 80_000.0) && a35.send_now);
        assert_eq!(v28.phase(), Phase::CongestionAvoidance);
        assert!(close(v28.x(), 40_000.0 + 2.0 * S / 0.1) && !a28.send_now);
    }

    #[test]
    fn ns2_28_lets_the_rate_exceed_twice_x_recv_for_one_report() {
        // `maxHeavyRounds_`: 1 in ns-2.28 (tcl 2.28 l.1035), 0 in 2.35 (ns-default.tcl l.1155)
        let [mut v35, mut v28] = both();
        for c in [&mut v35, &mut v28] {
            c.on_feedback(at_ms(100), 0.1, 300.0, 0.0);
            c.on_feedback(at_ms(200), 0.1, 30_000.0, 0.0);
            c.on_feedback(at_ms(300), 0.1, 30_000.0, 0.001); // out of slow start
        }
        let rcv = |c: &Control| x_ns2(0.002, c.rtt(), c.tzero(), S, 1.0);
        let high = v35.x();
        assert!(
            rcv(&v35) < high && rcv(&v35) > 2.0 * 5_000.0,
            "a decrease above 2·X_recv"
        );
        v35.on_feedback(at_ms(400), 0.1, 5_000.0, 0.002);
        v28.on_feedback(at_ms(400), 0.1, 5_000.0, 0.002);
        assert!(close(v35.x(), 10_000.0), "capped at once");
        assert!(close(v28.x(), rcv(&v28)), "one report above the cap");
        v28.on_feedback(at_ms(500), 0.1, 5_000.0, 0.002);
        assert!(close(v28.x(), 10_000.0), "capped at the second");
    }

    #[test]
    fn ns2_28_has_no_idle_fix_floor_in_increase_rate() {
        // within 1.5 R of time 0, 2.35's `increase_rate` floor is the initial rate (l.527–531,
        // `lastlimited_` 0); 2.28's is s/R (l.507)
        let [mut v35, mut v28] = both();
        for c in [&mut v35, &mut v28] {
            c.on_feedback(at_ms(100), 0.1, 300.0, 0.0);
            c.on_feedback(at_ms(110), 0.1, 1_000.0, 0.001); // leaves slow start
            c.on_feedback(at_ms(140), 0.1, 1_000.0, 0.0001); // 140 ms < 1.5 R: increase
        }
        assert_eq!(v28.phase(), Phase::CongestionAvoidance);
        assert!(close(v35.x(), 4.0 * S / 0.1), "max(2·X_recv, 4 s/R)");
        assert!(close(v28.x(), S / 0.1), "max(2·X_recv, s/R)");
    }

    #[test]
    fn ns2_28_leaves_the_send_timer_unset_below_smallfloat() {
        // an interval at or below SMALLFLOAT: 2.35 reschedules at SMALLFLOAT (l.285–286),
        // 2.28 sets no timer (l.265–266)
        let [mut v35, mut v28] = both();
        v35.on_feedback(at_ms(100), 1e-12, 300.0, 0.0);
        v28.on_feedback(at_ms(100), 1e-12, 300.0, 0.0);
        assert!(S / v35.x() < SMALL);
        assert_eq!(v35.next_interval(), Some(SMALL));
        assert_eq!(v28.next_interval(), None);
    }
}
