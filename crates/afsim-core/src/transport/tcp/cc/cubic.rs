//! CUBIC, RFC 9438 §4, in segments and seconds.
//!
//! Read this first: slow start stays the sender's (RFC 5681 eq. 2; RFC 9438 §4.10 keeps it).
//! In congestion avoidance every new ACK calls `on_ack_ca`, which returns the new cwnd; a
//! congestion event (fast retransmit, ECN-Echo, timeout) calls `on_congestion`, which returns
//! the new ssthresh; a timeout also calls `on_timeout`. The state is what §4.1 names: W_max,
//! K, t_epoch, cwnd_epoch, W_est, cwnd_prior.
//!
//! - §4.2 window growth: W_cubic(t) = C·(t − K)³ + W_max (eq. 1), K = ∛((W_max − cwnd_epoch)
//!   / C) (eq. 2), t = now − t_epoch; target = W_cubic(t + RTT) clamped to [cwnd, 1.5·cwnd]
//!   (§4.2, "target"); cwnd += (target − cwnd)/cwnd per segment acknowledged (§4.4, §4.5).
//!   t_epoch is the first ACK of the congestion-avoidance stage (§4.2: "the time when the
//!   current congestion avoidance stage started"; recovery is not part of it).
//! - §4.3 Reno-friendly region: W_est starts at cwnd_epoch and grows by α_cubic per cwnd of
//!   segments acknowledged, α_cubic = 3(1 − β)/(1 + β) (eq. 4), and 1 once W_est ≥
//!   cwnd_prior; when W_cubic(t) < W_est, cwnd = W_est.
//! - §4.6 multiplicative decrease: ssthresh = cwnd · β_cubic (β = 0.7), at least 2 segments
//!   (RFC 5681 eq. 4's floor); cwnd_prior = cwnd. §4.6 writes flight_size and allows cwnd
//!   where cwnd cannot grow beyond what is in flight, which holds for afsim's greedy sources;
//!   Linux uses cwnd. With flight_size an overshooting slow start (SACK recovery keeps lost
//!   and SACKed segments in FlightSize) or a timeout during recovery would set ssthresh from
//!   far more than the path holds (docs/assumptions.md).
//! - §4.7 fast convergence: W_max = cwnd·(1 + β)/2 when cwnd < the previous W_max, else cwnd.
//! - §4.8 timeout: ssthresh as §4.6; in the first congestion-avoidance stage after it, K = 0
//!   and W_max = W_est = cwnd at the stage's start.
//! - A stage that starts without any congestion event before (slow start ended at the initial
//!   ssthresh, the receiver's window) has no W_max: it is taken as cwnd, with K = 0, as after a
//!   timeout (RFC 9438 is silent; docs/assumptions.md).
//! - `linux_growth_floor` (set with `hystart = "linux"`, whose slow start ends without a loss):
//!   Linux's `bictcp_update` (net/ipv4/tcp_cubic.c, a 6.9-or-later copy) lets cwnd grow by at least one
//!   segment per 20 acknowledged (`ca->cnt` at most 20: 5 % per round trip) while
//!   `last_max_cwnd` is 0 — before the first congestion event and after a timeout
//!   (`cubictcp_state` on TCP_CA_Loss: `bictcp_reset` zeroes it). RFC 9438 has no such floor.
//! - `linux_friendly` (`reno_friendly = "linux"`): Linux's `tcp_friendliness` instead of §4.3.
//!   W_est grows by α_cubic per cwnd acknowledged throughout (Linux never switches to 1 at
//!   cwnd_prior), and cwnd is not set to W_est: it grows by (W_est − cwnd)/cwnd per segment
//!   acknowledged when that is faster than the cubic increase (`max_cnt = cwnd / delta`), so
//!   it reaches the Reno estimate over a round trip.

use crate::sim::time::SimTime;

/// RFC 9438 §5.1: C = 0.4 (segments / s³).
pub const C: f64 = 0.4;
/// RFC 9438 §4.6: β_cubic = 0.7.
pub const BETA: f64 = 0.7;
/// RFC 9438 §4.3 eq. (4): α_cubic = 3(1 − β_cubic)/(1 + β_cubic).
pub const ALPHA: f64 = 3.0 * (1.0 - BETA) / (1.0 + BETA);

/// RFC 9438 eq. (2): K = ∛((W_max − cwnd_epoch)/C), 0 when cwnd_epoch ≥ W_max.
pub fn k_of(w_max: f64, cwnd_epoch: f64) -> f64 {
    if w_max > cwnd_epoch {
        ((w_max - cwnd_epoch) / C).cbrt()
    } else {
        0.0
    }
}

/// RFC 9438 eq. (1): W_cubic(t) = C·(t − K)³ + W_max, segments.
pub fn w_cubic(t: f64, k: f64, w_max: f64) -> f64 {
    let d = t - k;
    C * d * d * d + w_max
}

/// The CUBIC state of one sender.
#[derive(Clone, Debug, PartialEq)]
pub struct Cubic {
    /// §4.7 fast convergence (on by default, as RFC 9438 §4.7 recommends).
    pub fast_convergence: bool,
    /// W_max, segments (0 before the first congestion event).
    w_max: f64,
    /// cwnd at the last congestion event, segments.
    cwnd_prior: f64,
    k: f64,
    /// t_epoch: `None` until the first ACK of the current congestion-avoidance stage.
    epoch: Option<SimTime>,
    cwnd_epoch: f64,
    w_est: f64,
    /// The stage to come follows a timeout (§4.8).
    after_rto: bool,
    /// Linux's growth floor while it has no W_max (`bictcp_update`, `ca->cnt` ≤ 20).
    pub linux_growth_floor: bool,
    /// Linux's `last_max_cwnd == 0`: no congestion event yet, or a timeout since the last.
    linux_no_w_max: bool,
    /// Linux's Reno-friendly estimate (`tcp_friendliness`, `Params::reno_friendly`): α_cubic
    /// throughout and cwnd growing towards W_est, not set to it.
    pub linux_friendly: bool,
}

impl Default for Cubic {
    fn default() -> Self {
        Cubic::new()
    }
}

impl Cubic {
    pub fn new() -> Cubic {
        Cubic {
            fast_convergence: true,
            w_max: 0.0,
            cwnd_prior: 0.0,
            k: 0.0,
            epoch: None,
            cwnd_epoch: 0.0,
            w_est: 0.0,
            after_rto: false,
            linux_growth_floor: false,
            linux_no_w_max: true,
            linux_friendly: false,
        }
    }

    pub fn w_max(&self) -> f64 {
        self.w_max
    }

    pub fn k(&self) -> f64 {
        self.k
    }

    pub fn w_est(&self) -> f64 {
        self.w_est
    }

    /// A congestion event at window `cwnd` (segments): updates W_max (§4.7) and returns the
    /// new ssthresh (§4.6).
    pub fn on_congestion(&mut self, cwnd: f64) -> f64 {
        // §4.7: fast convergence releases bandwidth to new flows when W_max shrinks
        self.w_max = if self.fast_convergence && cwnd < self.w_max {
            cwnd * (1.0 + BETA) / 2.0
        } else {
            cwnd
        };
        self.cwnd_prior = cwnd;
        self.epoch = None;
        self.after_rto = false;
        self.linux_no_w_max = false;
        // §4.6: ssthresh = cwnd · β_cubic (RFC 5681 eq. 4's floor of 2 segments)
        (cwnd * BETA).max(2.0)
    }

    /// §4.8: the retransmission timer expired (after `on_congestion`).
    pub fn on_timeout(&mut self) {
        self.after_rto = true;
        self.epoch = None;
        self.linux_no_w_max = true;
    }

    /// A new ACK of `acked` segments in congestion avoidance at `now`, with window `cwnd` and
    /// smoothed RTT `rtt_s` seconds: the new cwnd (§4.2–§4.5).
    pub fn on_ack_ca(&mut self, cwnd: f64, acked: f64, now: SimTime, rtt_s: f64) -> f64 {
        let next = self.rfc_ack_ca(cwnd, acked, now, rtt_s);
        if self.linux_growth_floor && self.linux_no_w_max {
            // tcp_cubic.c bictcp_update: with no last_max_cwnd, ca->cnt is at most 20, so at
            // least one segment per 20 acknowledged
            next.max(cwnd + acked / 20.0)
        } else {
            next
        }
    }

    /// §4.2–§4.5's new cwnd.
    fn rfc_ack_ca(&mut self, cwnd: f64, acked: f64, now: SimTime, rtt_s: f64) -> f64 {
        let epoch = match self.epoch {
            Some(e) => e,
            None => {
                // a new congestion-avoidance stage (§4.2); §4.8 after a timeout, and the
                // stage without a W_max (docs/assumptions.md): K = 0, W_max = cwnd
                if self.after_rto || self.w_max < cwnd {
                    self.w_max = cwnd;
                    self.after_rto = false;
                }
                if self.cwnd_prior == 0.0 {
                    self.cwnd_prior = cwnd;
                }
                self.cwnd_epoch = cwnd;
                self.k = k_of(self.w_max, cwnd);
                self.w_est = cwnd;
                self.epoch = Some(now);
                now
            }
        };
        let t = now.saturating_since(epoch).as_secs_f64();
        // §4.3: W_est grows by α_cubic per window acknowledged; α = 1 once W_est ≥ cwnd_prior
        // (Linux's tcp_friendliness keeps α_cubic throughout: `linux_friendly`)
        let alpha = if self.w_est >= self.cwnd_prior && !self.linux_friendly {
            1.0
        } else {
            ALPHA
        };
        self.w_est += alpha * acked / cwnd;
        if self.linux_friendly {
            // tcp_cubic.c bictcp_update: the cubic increase (ca->cnt), or, where the Reno
            // estimate is ahead of cwnd, one of (W_est − cwnd) per cwnd acknowledged
            // (tcp_friendliness's max_cnt = cwnd / delta), whichever is faster
            let target = w_cubic(t + rtt_s, self.k, self.w_max).clamp(cwnd, 1.5 * cwnd);
            let friendly = (self.w_est - cwnd).max(0.0);
            return cwnd + (target - cwnd).max(friendly) / cwnd * acked;
        }
        if w_cubic(t, self.k, self.w_max) < self.w_est {
            // §4.3: the Reno-friendly region
            return self.w_est.max(cwnd);
        }
        // §4.2: target = W_cubic(t + RTT), within [cwnd, 1.5·cwnd]; §4.4/§4.5: the increase
        let target = w_cubic(t + rtt_s, self.k, self.w_max).clamp(cwnd, 1.5 * cwnd);
        cwnd + (target - cwnd) / cwnd * acked
    }
}
