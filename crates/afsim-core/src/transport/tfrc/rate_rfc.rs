//! The RFC 5348 sender's allowed sending rate X: what a feedback packet and the no-feedback
//! timer do to it.
//!
//! Read this first.
//! - §4.2 initialisation: X = s bytes per second (one packet per second), the no-feedback
//!   timer at 2 s, tld = −1, and X_recv_set = {Infinity} (timestamped at the start, so it
//!   stops limiting two RTTs into the connection).
//! - §4.3, on each feedback packet: (1)–(2) R_sample = (now − t_recvdata) − t_delay, and
//!   R = R_sample at first, then q·R + (1 − q)·R_sample with q = 0.9; (3) RTO = max(4R, 2s/X)
//!   with the X before this feedback; (4) X_recv_set keeps the X_recv values of the last two
//!   RTTs, recv_limit = 2·max(X_recv_set); with p > 0, X = max(min(X_Bps, recv_limit), s/t_mbi)
//!   (t_mbi = 64 s); with p = 0 (slow start) and at least R since the last doubling,
//!   X = max(min(2X, recv_limit), initial_rate) — so slow start doubles at most once per RTT
//!   and never beyond 2·X_recv once Infinity has left the set; (5) with oscillation
//!   prevention (§4.5), R_sqmean = q2·R_sqmean + (1 − q2)·sqrt(R_sample), q2 = 0.9, and packets
//!   are spaced by X_inst = X·R_sqmean / sqrt(R_sample), at least s/t_mbi; (6) the no-feedback
//!   timer is reset to RTO.
//! - §4.4, when the no-feedback timer expires: with no feedback yet, or p = 0, X halves (at
//!   least s/t_mbi); otherwise the limit halves: Update_Limits(X_recv) if 2·X_recv was what
//!   limited X (X_Bps > 2·X_recv), else Update_Limits(X_Bps/2), where Update_Limits(l) sets
//!   X_recv_set to {max(l, s/t_mbi)/2} and recomputes X as in §4.3 (4). The timer restarts at
//!   max(4R, 2s/X) (2s/X without an RTT). The "sender has been idle" cases never arise: the
//!   sender always has data.
//! - initial_rate: W_init/R with W_init = min(4s, max(2s, 4380)) (§4.2, RFC 3390), or s/R
//!   with `InitialRate::Rfc3448` (RFC 3448 §4.3's one packet per RTT).
//! - gTFRC (Jourjon et al. §3.2): with a target rate, every X computed outside slow start
//!   (p > 0, from feedback or from Update_Limits) is max(X, target): "the maximum between the
//!   TFRC rate estimation and the target rate". In slow start the target does not apply.

use super::equation::x_rfc;
use super::{secs, InitialRate};
use crate::sim::time::SimTime;

/// §4.3 step 2: the RTT filter constant q.
pub const Q: f64 = 0.9;
/// §4.5: the filter constant q2 of R_sqmean.
pub const Q2: f64 = 0.9;
/// §4.3: t_mbi, the maximum backoff interval, seconds.
pub const T_MBI: f64 = 64.0;
/// §4.2 (RFC 3390): the largest initial window, bytes.
pub const W_INIT_MAX: f64 = 4380.0;
/// X_recv values X_recv_set holds at most (two RTTs of feedback, once per RTT, and the value
/// of a report that came early).
const SET_CAPACITY: usize = 4;

#[derive(Clone, Debug)]
pub struct Control {
    s: f64,
    initial: InitialRate,
    oscillation_prevention: bool,
    target: Option<f64>,
    /// The allowed sending rate X, bytes per second.
    x: f64,
    /// R, and the last R_sample, seconds; `None` before the first feedback.
    r: Option<f64>,
    r_sample: f64,
    r_sqmean: f64,
    /// tld: when X last doubled in slow start.
    tld: Option<SimTime>,
    /// The loss event rate of the last feedback.
    p: f64,
    /// X_Bps at the last computation (p > 0).
    x_bps: f64,
    /// X_recv_set: (X_recv, when it was added); `f64::INFINITY` is the initial item.
    set: [(f64, SimTime); SET_CAPACITY],
    set_len: usize,
    recv_limit: f64,
}

impl Control {
    /// §4.2: a sender of segment size `s` bytes starting at `start`.
    pub fn new(
        s: f64,
        initial: InitialRate,
        oscillation_prevention: bool,
        target: Option<f64>,
        start: SimTime,
    ) -> Control {
        let mut set = [(0.0, SimTime::ZERO); SET_CAPACITY];
        set[0] = (f64::INFINITY, start);
        Control {
            s,
            initial,
            oscillation_prevention,
            target,
            x: s,
            r: None,
            r_sample: 0.0,
            r_sqmean: 0.0,
            tld: None,
            p: 0.0,
            x_bps: 0.0,
            set,
            set_len: 1,
            recv_limit: f64::INFINITY,
        }
    }

    /// The allowed sending rate X, bytes per second.
    pub fn x(&self) -> f64 {
        self.x
    }

    /// R, seconds (`None` before the first feedback).
    pub fn rtt(&self) -> Option<f64> {
        self.r
    }

    /// Whether the sender is in slow start (no loss reported yet).
    pub fn in_slow_start(&self) -> bool {
        self.p == 0.0
    }

    /// The time between two packets, seconds: s/X, or s/X_inst with oscillation prevention.
    pub fn interval(&self) -> f64 {
        let rate = if self.oscillation_prevention && self.r.is_some() && self.r_sample > 0.0 {
            (self.x * self.r_sqmean / self.r_sample.sqrt()).max(self.s / T_MBI)
        } else {
            self.x
        };
        self.s / rate
    }

    /// The initial no-feedback interval, seconds (§4.2).
    pub fn first_nofeedback_interval(&self) -> f64 {
        2.0
    }

    /// W_init/R or s/R: the rate slow start never falls below.
    fn initial_rate(&self, r: f64) -> f64 {
        match self.initial {
            InitialRate::Rfc5348 => (4.0 * self.s).min((2.0 * self.s).max(W_INIT_MAX)) / r,
            InitialRate::Rfc3448 => self.s / r,
        }
    }

    /// §4.3: a feedback packet with `r_sample` seconds of RTT, X_recv and p. Returns the
    /// no-feedback interval to arm, seconds (step 3's RTO).
    pub fn on_feedback(&mut self, now: SimTime, r_sample: f64, x_recv: f64, p: f64) -> f64 {
        let r = match self.r {
            None => r_sample,
            Some(r) => Q * r + (1.0 - Q) * r_sample,
        };
        self.r = Some(r);
        let rto = (4.0 * r).max(2.0 * self.s / self.x);
        self.p = p;
        self.update_set(now, x_recv, r);
        self.recv_limit = 2.0 * self.set_max();
        self.recompute(now);
        // step 5 (§4.5)
        let root = r_sample.sqrt();
        self.r_sqmean = if self.r_sample > 0.0 {
            Q2 * self.r_sqmean + (1.0 - Q2) * root
        } else {
            root
        };
        self.r_sample = r_sample;
        rto
    }

    /// §4.4: the no-feedback timer expired. Returns the interval to restart it with, seconds.
    pub fn on_nofeedback(&mut self, now: SimTime) -> f64 {
        let floor = self.s / T_MBI;
        match self.r {
            None => self.x = (self.x / 2.0).max(floor),
            Some(_) if self.p == 0.0 => self.x = (self.x / 2.0).max(floor),
            Some(_) => {
                let x_recv = self.set_max();
                let limit = if self.x_bps > 2.0 * x_recv {
                    x_recv
                } else {
                    self.x_bps / 2.0
                };
                self.update_limits(now, limit);
            }
        }
        match self.r {
            Some(r) => (4.0 * r).max(2.0 * self.s / self.x),
            None => 2.0 * self.s / self.x,
        }
    }

    /// §4.4 Update_Limits(timer_limit).
    fn update_limits(&mut self, now: SimTime, limit: f64) {
        let limit = limit.max(self.s / T_MBI);
        self.set[0] = (limit / 2.0, now);
        self.set_len = 1;
        self.recv_limit = limit;
        self.recompute(now);
    }

    /// §4.3 step 4, after recv_limit is known; gTFRC's floor outside slow start.
    fn recompute(&mut self, now: SimTime) {
        let r = self.r.expect("recompute follows a feedback");
        if self.p > 0.0 {
            self.x_bps = x_rfc(self.s, r, self.p);
            self.x = self.x_bps.min(self.recv_limit).max(self.s / T_MBI);
            if let Some(target) = self.target {
                self.x = self.x.max(target);
            }
        } else if self.tld.is_none_or(|t| secs(now.saturating_since(t)) >= r) {
            self.x = (2.0 * self.x)
                .min(self.recv_limit)
                .max(self.initial_rate(r));
            self.tld = Some(now);
        }
    }

    /// §4.3 Update X_recv_set: add X_recv, delete values older than two RTTs.
    fn update_set(&mut self, now: SimTime, x_recv: f64, r: f64) {
        let horizon = 2.0 * r;
        let mut kept = 0;
        for i in 0..self.set_len {
            let (v, t) = self.set[i];
            if secs(now.saturating_since(t)) <= horizon {
                self.set[kept] = (v, t);
                kept += 1;
            }
        }
        if kept == SET_CAPACITY {
            // the oldest goes (the set is in order of addition)
            self.set.copy_within(1.., 0);
            kept -= 1;
        }
        self.set[kept] = (x_recv, now);
        self.set_len = kept + 1;
    }

    fn set_max(&self) -> f64 {
        self.set[..self.set_len]
            .iter()
            .map(|&(v, _)| v)
            .fold(0.0, f64::max)
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
        Control::new(S, InitialRate::Rfc5348, false, None, SimTime::ZERO)
    }

    #[test]
    fn the_sender_starts_at_one_packet_per_second() {
        let c = sender();
        assert_eq!(c.x(), S);
        assert_eq!(c.interval(), 1.0);
        assert_eq!(c.first_nofeedback_interval(), 2.0);
    }

    #[test]
    fn the_first_feedback_sets_the_initial_rate_w_init_over_r() {
        let mut c = sender();
        let rto = c.on_feedback(at_ms(100), 0.1, 0.0, 0.0);
        // W_init = min(4s, max(2s, 4380)) = 4000 bytes: X = 4000 / 0.1 = 40 000 B/s
        assert!(close(c.x(), 40_000.0));
        // RTO = max(4R, 2s/X) with the X before the feedback (1000 B/s): 2 s
        assert!(close(rto, 2.0));
        let mut big = Control::new(1460.0, InitialRate::Rfc5348, false, None, SimTime::ZERO);
        big.on_feedback(at_ms(100), 0.1, 0.0, 0.0);
        assert!(close(big.x(), 43_800.0), "W_init = 4380 for s = 1460");
        let mut one = Control::new(S, InitialRate::Rfc3448, false, None, SimTime::ZERO);
        one.on_feedback(at_ms(100), 0.1, 0.0, 0.0);
        assert!(close(one.x(), 10_000.0), "RFC 3448: one packet per RTT");
    }

    #[test]
    fn slow_start_doubles_at_most_once_per_rtt() {
        let mut c = sender();
        c.on_feedback(at_ms(100), 0.1, 0.0, 0.0); // 40 000
        c.on_feedback(at_ms(150), 0.1, 20_000.0, 0.0);
        assert!(
            close(c.x(), 40_000.0),
            "50 ms after the last doubling: unchanged"
        );
        c.on_feedback(at_ms(200), 0.1, 40_000.0, 0.0);
        assert!(close(c.x(), 80_000.0), "an RTT later: doubled");
    }

    #[test]
    fn slow_start_is_bounded_by_twice_the_receive_rate() {
        let mut c = sender();
        c.on_feedback(at_ms(100), 0.1, 0.0, 0.0);
        c.on_feedback(at_ms(200), 0.1, 30_000.0, 0.0); // Infinity still in the set: 80 000
        assert!(close(c.x(), 80_000.0));
        // at 350 ms Infinity (added at 0) and the first report's 0 (100 ms) are older than
        // 2R = 200 ms: recv_limit = 2 × max(30 000, 25 000) = 60 000 < 2X = 160 000
        c.on_feedback(at_ms(350), 0.1, 25_000.0, 0.0);
        assert!(close(c.x(), 60_000.0));
    }

    #[test]
    fn after_a_loss_the_rate_is_the_equations_within_twice_x_recv() {
        let mut c = sender();
        c.on_feedback(at_ms(100), 0.1, 0.0, 0.0);
        c.on_feedback(at_ms(400), 0.1, 40_000.0, 0.01);
        // X_Bps(s = 1000, R = 0.1, p = 0.01) = 112 332 B/s (equation tests), above
        // recv_limit = 2 × 40 000: X = 80 000
        assert!(close(c.x(), 80_000.0));
        assert!(!c.in_slow_start());
        c.on_feedback(at_ms(500), 0.1, 70_000.0, 0.01);
        assert!(
            close(c.x(), x_rfc(S, 0.1, 0.01)),
            "recv_limit 140 000: the equation's rate"
        );
        c.on_feedback(at_ms(600), 0.1, 70_000.0, 0.05);
        assert!(close(c.x(), x_rfc(S, 0.1, 0.05)), "more loss, lower rate");
    }

    #[test]
    fn the_rtt_is_filtered_with_q_point_nine() {
        let mut c = sender();
        c.on_feedback(at_ms(100), 0.100, 0.0, 0.0);
        c.on_feedback(at_ms(200), 0.200, 0.0, 0.0);
        assert!(close(c.rtt().unwrap(), 0.9 * 0.1 + 0.1 * 0.2));
    }

    #[test]
    fn the_nofeedback_timer_halves_the_rate() {
        // before any feedback: X halves, and the timer restarts at 2s/X
        let mut c = sender();
        let next = c.on_nofeedback(at_ms(2000));
        assert!(close(c.x(), 500.0));
        assert!(close(next, 4.0));
        // in slow start: X halves too
        let mut c = sender();
        c.on_feedback(at_ms(100), 0.1, 0.0, 0.0);
        c.on_nofeedback(at_ms(300));
        assert!(close(c.x(), 20_000.0));
        // limited by the equation (X_Bps < 2·X_recv): X becomes X_Bps / 2
        let mut c = sender();
        c.on_feedback(at_ms(100), 0.1, 0.0, 0.0);
        c.on_feedback(at_ms(500), 0.1, 100_000.0, 0.01);
        let x_bps = x_rfc(S, 0.1, 0.01);
        assert!(close(c.x(), x_bps));
        let next = c.on_nofeedback(at_ms(700));
        assert!(close(c.x(), x_bps / 2.0));
        assert!(close(next, 0.4), "max(4R, 2s/X) = max(0.4, 0.036)");
        // limited by 2·X_recv: X becomes X_recv
        let mut c = sender();
        c.on_feedback(at_ms(100), 0.1, 0.0, 0.0);
        c.on_feedback(at_ms(500), 0.1, 30_000.0, 0.01);
        assert!(close(c.x(), 60_000.0));
        c.on_nofeedback(at_ms(700));
        assert!(close(c.x(), 30_000.0));
        // ... and a second expiry halves again (X_recv_set = {15 000}, recv_limit 30 000 →
        // X_Bps > 2 × 15 000: Update_Limits(15 000))
        c.on_nofeedback(at_ms(1100));
        assert!(close(c.x(), 15_000.0));
    }

    #[test]
    fn the_rate_never_falls_below_one_packet_per_64_seconds() {
        let mut c = sender();
        for i in 1..20 {
            c.on_nofeedback(at_ms(2000 * i));
        }
        assert!(close(c.x(), S / T_MBI));
    }

    #[test]
    fn gtfrc_never_sets_the_rate_below_the_target_outside_slow_start() {
        let target = 30_000.0;
        let mut c = Control::new(S, InitialRate::Rfc5348, false, Some(target), SimTime::ZERO);
        c.on_feedback(at_ms(100), 0.1, 0.0, 0.0);
        // slow start is untouched: the nofeedback timer halves below the target
        c.on_nofeedback(at_ms(300));
        assert!(close(c.x(), 20_000.0));
        c.on_feedback(at_ms(400), 0.1, 20_000.0, 0.0);
        // heavy loss: the equation gives 1000 / (0.1 × 0.258199 + 0.4 × 0.580948 × 0.132)
        // = 17 701 B/s at p = 0.1, below the target
        c.on_feedback(at_ms(600), 0.1, 10_000.0, 0.1);
        assert!(x_rfc(S, 0.1, 0.1) < target);
        assert!(close(c.x(), target));
        // the no-feedback timer does not take it below either
        c.on_nofeedback(at_ms(1000));
        assert!(close(c.x(), target));
        // above the target the equation rules as in TFRC
        c.on_feedback(at_ms(1100), 0.1, 100_000.0, 0.005);
        assert!(close(c.x(), x_rfc(S, c.rtt().unwrap(), 0.005)));
        assert!(c.x() > target);
    }

    #[test]
    fn oscillation_prevention_spaces_packets_by_the_rtt_ratio() {
        let mut c = Control::new(S, InitialRate::Rfc5348, true, None, SimTime::ZERO);
        c.on_feedback(at_ms(100), 0.1, 0.0, 0.0);
        assert!(
            close(c.interval(), S / c.x()),
            "R_sqmean = sqrt(R_sample) at first"
        );
        c.on_feedback(at_ms(300), 0.4, 40_000.0, 0.0);
        // R_sqmean = 0.9 × sqrt(0.1) + 0.1 × sqrt(0.4) = 0.347850; X_inst = X × 0.347850 / 0.632456
        let sq = 0.9 * 0.1f64.sqrt() + 0.1 * 0.4f64.sqrt();
        assert!(close(c.interval(), S / (c.x() * sq / 0.4f64.sqrt())));
        assert!(
            c.interval() > S / c.x(),
            "a queue building up slows the packets down"
        );
    }
}
