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

/// Where the two releases' `TfrcAgent` differ, in the order a connection meets them (the
/// line numbers are tfrc.cc's; `slowstart` has a function per release, `slowstart_2_35` and
/// `slowstart_2_28`).
impl Release {
    /// `recv()`: whether this report's X_recv sets `maxrate` (2·X_recv).
    fn report_sets_maxrate(self, round: u32) -> bool {
        match self {
            // 2.35 l.343: `round_id > 1 && rate_since_last_report > 0`
            Release::V2_35 => round > 1,
            // 2.28 l.323: `rate_since_last_report > 0`, the first report included
            Release::V2_28 => true,
        }
    }

    /// `reduce_rate_on_no_feedback()`: whether the no-feedback timer ends slow start.
    fn nofeedback_ends_slow_start(self) -> bool {
        match self {
            // 2.35 l.617–621 keeps slow start (a bug fix of 2006-09-26)
            Release::V2_35 => false,
            // 2.28 l.563 sets RATE_DECREASE whatever the phase, so the next report goes to
            // `increase_rate` or `decrease_rate` as after a loss
            Release::V2_28 => true,
        }
    }

    /// `nextpkt()`: the send timer's interval for `next` seconds, if it is set at all.
    fn timer_interval(self, next: f64) -> Option<f64> {
        match self {
            // 2.35 l.285–286: an interval at or below SMALLFLOAT is rescheduled at SMALLFLOAT
            Release::V2_35 => Some(next.max(SMALL)),
            // 2.28 l.265–266: only `if (next > SMALLFLOAT)` sets the timer
            Release::V2_28 => (next > SMALL).then_some(next),
        }
    }

    /// `increase_rate()`: whether `idleFix_`'s data-limited floor (the initial rate before
    /// 1.5 R) exists.
    fn idle_fix(self) -> bool {
        match self {
            // 2.35 l.527–531
            Release::V2_35 => true,
            // ns-2.28 has no `idleFix_`: the floor is s/R (2.28 l.507)
            Release::V2_28 => false,
        }
    }

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
        let counts = self.release.report_sets_maxrate(self.round);
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
        // slow start may survive the timer (`Release::nofeedback_ends_slow_start`)
        if self.phase != Phase::SlowStart || self.release.nofeedback_ends_slow_start() {
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
        self.release.timer_interval(next)
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
        // `idleFix_`'s data-limited case again holds only before 1.5 R (`Release::idle_fix`)
        let floor = if self.release.idle_fix() && secs(now - SimTime::ZERO) < 1.5 * self.rtt {
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
mod tests;
