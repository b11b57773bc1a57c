//! The receiver's loss intervals and the loss event rate p they give.
//!
//! Read this first.
//! - RFC 5348 §5.3: a loss interval runs from the first packet of one loss event to the first
//!   packet of the next: S_B − S_A packets. The open interval I_0 runs from the first packet of
//!   the latest event to the highest packet received: S_max − S_0 + 1.
//! - §5.4: with the closed intervals I_1 … I_k (k ≤ n = 8, most recent first) and weights
//!   w = 1, 1, 1, 1, 0.8, 0.6, 0.4, 0.2, the average loss interval is the larger of
//!   I_tot0 / W_tot0 (I_0 … I_(k−1) with w_0 … w_(k−1)) and I_tot1 / W_tot1 (I_1 … I_k with
//!   w_0 … w_(k−1)); p is its inverse, 0 before the first loss.
//! - §5.5 history discounting: when I_0 is more than twice the average of the closed intervals
//!   I_mean, the closed intervals' weights in I_tot0 are multiplied by
//!   DF = max(0.5, 2·I_mean / I_0); when a new event begins, that DF stays on the intervals
//!   that were already closed (their DF_i are multiplied by it) and the interval just closed
//!   starts with DF_i = 1.
//! - §6.3.1: the first loss event does not close an interval (the packets before it were sent
//!   in slow start); the receiver seeds I_1 with a synthetic interval (`start`).
//! - `Rules::Ns2` (tfrc-sink.cc `est_loss_WALI`, `weighted_average1` with `smooth_ 1`,
//!   `adjust_history`): an interval ends *at* its event's first lost packet, so a closed
//!   interval has the same length and I_0 is one packet shorter (S_max − S_0); with fewer than
//!   n closed intervals I_tot0 also weighs I_k; the DF a new event keeps is the one computed at
//!   the last report; the synthetic interval is a whole number of packets, and the open
//!   interval after it counts from the packet after the highest one the last report counted.
//!   Where the two differ the history asks its `Sink` (`loss_rules.rs`, which holds each rule
//!   set whole).

use super::loss_rules::{sink, History, Ns2Average, Sink};
pub use super::loss_rules::{MIN_DISCOUNT, N};
use super::Rules;

/// §5.4's weights for n = 8, most recent interval first.
pub const WEIGHTS: [f64; N] = [1.0, 1.0, 1.0, 1.0, 0.8, 0.6, 0.4, 0.2];

#[derive(Clone, Debug)]
pub struct LossHistory {
    sink: Sink,
    /// Closed intervals, I_1 first, and their discount factors DF_i.
    closed: [f64; N],
    discount: [f64; N],
    /// How many of `closed` hold an interval.
    k: usize,
    /// First sequence number the open interval counts; `None` before the first loss event.
    open_from: Option<u64>,
    /// ns-2's `mult_factor_` and `last_sample` (the `Ns2` rules' state).
    ns2: Ns2Average,
}

impl LossHistory {
    pub fn new(rules: Rules) -> LossHistory {
        LossHistory {
            sink: Sink::of(rules),
            closed: [0.0; N],
            discount: [1.0; N],
            k: 0,
            open_from: None,
            ns2: Ns2Average {
                factor: 1.0,
                counted_to: 0,
            },
        }
    }

    /// Whether a loss event has been seen.
    pub fn has_loss(&self) -> bool {
        self.open_from.is_some()
    }

    /// The closed intervals, I_1 first.
    pub fn closed(&self) -> &[f64] {
        &self.closed[..self.k]
    }

    /// ns-2: where the open interval begins after the first loss (`last_sample`).
    pub fn ns2_counted_to(&self) -> u64 {
        self.ns2.counted_to
    }

    /// §6.3.1: the first loss event. I_1 is `synthetic` packets; the open interval counts from
    /// sequence number `open_from` (RFC: the first lost packet).
    pub fn start(&mut self, synthetic: f64, open_from: u64) {
        debug_assert!(!self.has_loss());
        self.closed[0] = synthetic;
        self.discount[0] = 1.0;
        self.k = 1;
        self.open_from = Some(open_from);
        self.ns2.factor = 1.0;
    }

    /// A new loss event (not the first) whose first lost or marked packet is `seq`.
    pub fn begin_event(&mut self, seq: u64) {
        let Some(from) = self.open_from else {
            debug_assert!(false, "begin_event before start");
            return;
        };
        let boundary = sink!(self.sink, interval_end(seq));
        let length = boundary.saturating_sub(from) as f64;
        let df = sink!(self.sink, event_discount(self, length));
        for i in (0..N - 1).rev() {
            self.closed[i + 1] = self.closed[i];
            self.discount[i + 1] = self.discount[i] * df;
        }
        self.closed[0] = length;
        self.discount[0] = 1.0;
        self.k = (self.k + 1).min(N);
        self.open_from = Some(boundary.max(from));
        self.ns2.factor = 1.0;
    }

    /// I_0 when `s_max` is the highest sequence number received.
    pub fn open_interval(&self, s_max: u64) -> f64 {
        self.open_from
            .map_or(0.0, |from| (s_max + 1).saturating_sub(from) as f64)
    }

    /// The average of the closed intervals with their DF_i: I_tot1 / W_tot1.
    fn closed_mean(&self) -> f64 {
        let (mut sum, mut weight) = (0.0, 0.0);
        for ((w, df), interval) in WEIGHTS
            .iter()
            .zip(&self.discount)
            .zip(&self.closed)
            .take(self.k)
        {
            sum += w * df * interval;
            weight += w * df;
        }
        if weight > 0.0 {
            sum / weight
        } else {
            0.0
        }
    }

    /// §5.5: DF for an open interval of `i0` packets.
    fn discount_factor(&self, i0: f64) -> f64 {
        let mean = self.closed_mean();
        if self.k > 0 && i0 > 2.0 * mean {
            (2.0 * mean / i0).max(MIN_DISCOUNT)
        } else {
            1.0
        }
    }

    /// The loss event rate p (§5.4 with §5.5), `s_max` the highest sequence number received;
    /// 0 before the first loss event.
    pub fn p(&mut self, s_max: u64) -> f64 {
        if !self.has_loss() {
            self.ns2.counted_to = s_max + 1;
            return 0.0;
        }
        let i0 = self.open_interval(s_max);
        let (df, last) = sink!(self.sink, average_discount(self, i0, s_max));
        // I_0 with w_0, then I_1 ... I_last with w_1 ... w_last, discounted
        let (mut i_tot0, mut w_tot0) = (WEIGHTS[0] * i0, WEIGHTS[0]);
        for ((w, df_i), interval) in WEIGHTS[1..]
            .iter()
            .zip(&self.discount)
            .zip(&self.closed)
            .take(last)
        {
            let w = w * df_i * df;
            i_tot0 += w * interval;
            w_tot0 += w;
        }
        let mean0 = i_tot0 / w_tot0;
        let mean = mean0.max(self.closed_mean());
        if mean > 0.0 {
            1.0 / mean
        } else {
            1.0
        }
    }
}

impl History for LossHistory {
    fn closed_count(&self) -> usize {
        self.k
    }

    fn closed_mean(&self) -> f64 {
        LossHistory::closed_mean(self)
    }

    fn discount_factor(&self, i0: f64) -> f64 {
        LossHistory::discount_factor(self, i0)
    }

    fn ns2(&mut self) -> &mut Ns2Average {
        &mut self.ns2
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util;
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        test_util::close(a, b, 1e-12)
    }

    /// A first loss event at 1000 (synthetic I_1 = 100), then events at 1050, 1130 and 1190:
    /// closed intervals I_1..I_4 = 60, 80, 50, 100; the open interval from 1190 (ns-2: 1191).
    fn four_intervals(rules: Rules) -> LossHistory {
        let mut h = LossHistory::new(rules);
        h.start(100.0, if rules == Rules::Ns2 { 1001 } else { 1000 });
        for seq in [1050, 1130, 1190] {
            h.begin_event(seq);
        }
        h
    }

    #[test]
    fn no_loss_means_p_zero() {
        let mut h = LossHistory::new(Rules::Rfc5348);
        assert_eq!(h.p(5000), 0.0);
        assert!(!h.has_loss());
    }

    #[test]
    fn intervals_run_from_event_to_event() {
        let h = four_intervals(Rules::Rfc5348);
        assert_eq!(h.closed(), &[60.0, 80.0, 50.0, 100.0]);
        // I_0 = S_max − S_0 + 1 = 1199 − 1190 + 1
        assert_eq!(h.open_interval(1199), 10.0);
    }

    #[test]
    fn the_average_takes_the_larger_of_the_two_sums() {
        let mut h = four_intervals(Rules::Rfc5348);
        // S_max = 1199, I_0 = 10; k = 4, all weights 1:
        //   I_tot0 / W_tot0 = (10 + 60 + 80 + 50) / 4 = 50
        //   I_tot1 / W_tot1 = (60 + 80 + 50 + 100) / 4 = 72.5
        //   p = 1 / 72.5
        assert!(close(h.p(1199), 1.0 / 72.5));
        // a long open interval, still under 2 × 72.5 = 145 (no discounting): I_0 = 140,
        //   I_tot0 / W_tot0 = (140 + 190) / 4 = 82.5 > 72.5, p = 1 / 82.5
        assert!(close(h.p(1329), 1.0 / 82.5));
    }

    #[test]
    fn a_long_open_interval_discounts_the_history() {
        let mut h = four_intervals(Rules::Rfc5348);
        // I_0 = 1599 − 1190 + 1 = 410 > 2 × 72.5 = 145: DF = max(0.5, 145 / 410 = 0.354) = 0.5
        //   I_tot0 = 410 × 1 + 0.5 × (60 + 80 + 50) = 505, W_tot0 = 1 + 0.5 × 3 = 2.5: 202
        //   without discounting it would be (410 + 190) / 4 = 150
        assert!(close(h.p(1599), 1.0 / 202.0));
        // DF between 0.5 and 1: I_0 = 200, DF = 145 / 200 = 0.725
        //   I_tot0 = 200 + 0.725 × 190 = 337.75, W_tot0 = 1 + 0.725 × 3 = 3.175: 106.378
        assert!(close(h.p(1389), 3.175 / 337.75));
    }

    #[test]
    fn the_discount_stays_on_the_old_intervals_after_the_next_event() {
        let mut h = four_intervals(Rules::Rfc5348);
        // the event at 1600 closes I = 410 with DF = 0.5 (as above): the older four keep it
        h.begin_event(1600);
        assert_eq!(h.closed(), &[410.0, 60.0, 80.0, 50.0, 100.0]);
        // I_0 = 10 (S_max 1609), k = 5, weights w_0..w_4 = 1, 1, 1, 1, 0.8:
        //   mean of closed = (410 + 0.5 × (60 + 80 + 50) + 0.8 × 0.5 × 100)
        //                    / (1 + 0.5 × 3 + 0.8 × 0.5) = 545 / 2.9 = 187.93: no new discount
        //   I_tot0 / W_tot0 = (10 + 410 + 0.5 × 60 + 0.5 × 80 + 0.8 × 0.5 × 50)
        //                    / (1 + 1 + 0.5 + 0.5 + 0.4) = 510 / 3.4 = 150
        //   p = 1 / max(150, 187.93) = 2.9 / 545
        assert!(close(h.p(1609), 2.9 / 545.0));
    }

    #[test]
    fn eight_intervals_are_weighted_one_to_point_two() {
        let mut h = LossHistory::new(Rules::Rfc5348);
        // synthetic I_8 = 80, then I_7 ... I_1 = 70, 60, ..., 10 (events 70, 60, ... apart)
        h.start(80.0, 0);
        let mut at = 0;
        for len in [70, 60, 50, 40, 30, 20, 10] {
            at += len;
            h.begin_event(at);
        }
        assert_eq!(
            h.closed(),
            &[10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0]
        );
        // I_0 = 5: I_tot0 = 5 + 10 + 20 + 30 + 0.8 × 40 + 0.6 × 50 + 0.4 × 60 + 0.2 × 70 = 165
        //   W_tot = 6: 27.5; I_tot1 = 10 + 20 + 30 + 40 + 0.8 × 50 + 0.6 × 60 + 0.4 × 70
        //   + 0.2 × 80 = 220: 36.667; p = 6 / 220
        assert!(close(h.p(at + 4), 6.0 / 220.0));
        // a ninth event pushes I = 80 out of the history
        h.begin_event(at + 100);
        assert_eq!(h.closed().len(), N);
        assert_eq!(h.closed()[0], 100.0);
        assert_eq!(h.closed()[N - 1], 70.0);
    }

    #[test]
    fn one_closed_interval_gives_the_larger_of_it_and_the_open_one() {
        let mut h = LossHistory::new(Rules::Rfc5348);
        h.start(250.0, 500);
        assert!(close(h.p(599), 1.0 / 250.0), "I_0 = 100 < I_1");
        assert!(
            close(h.p(899), 1.0 / 400.0),
            "I_0 = 400 > I_1; 400 < 2 × 250: no discount"
        );
    }

    #[test]
    fn ns2_ends_an_interval_at_its_lost_packet() {
        let mut h = four_intervals(Rules::Ns2);
        // boundaries 1001, 1051, 1131, 1191: the same closed lengths, I_0 = S_max − 1190
        assert_eq!(h.closed(), &[60.0, 80.0, 50.0, 100.0]);
        assert_eq!(h.open_interval(1199), 9.0);
        // k = 4 < 8: ns-2's I_tot0 weighs I_0 ... I_4 (RFC: I_0 ... I_3), I_4 with w_4 = 0.8:
        //   (9 + 60 + 80 + 50 + 0.8 × 100) / 4.8 = 58.1 < 72.5: p = 1 / 72.5
        assert!(close(h.p(1199), 1.0 / 72.5));
        // S_max = 1400: I_0 = 210 > 2 × 72.5, DF = 145 / 210 = 0.690
        //   (210 + DF × (60 + 80 + 50 + 0.8 × 100)) / (1 + DF × 3.8) = 396.43 / 3.6238 = 109.40
        let df = 145.0 / 210.0;
        assert!(close(h.p(1400), (1.0 + df * 3.8) / (210.0 + df * 270.0)));
    }

    #[test]
    fn ns2_keeps_the_last_reports_discount_for_the_next_event() {
        let mut h = four_intervals(Rules::Ns2);
        h.p(1599); // I_0 = 409: DF = max(0.5, 145 / 409) = 0.5
        h.begin_event(1700); // closes 1701 − 1191 = 510, the older ones keep 0.5
        assert_eq!(h.closed()[0], 510.0);
        // mean of closed = (510 + 0.5 × (60 + 80 + 50) + 0.8 × 0.5 × 100) / (1 + 1.5 + 0.4)
        //                = 645 / 2.9
        let mut rfc = four_intervals(Rules::Rfc5348);
        rfc.begin_event(1700); // RFC: DF from the closed length 510: 145 / 510 = 0.284 → 0.5
        assert!(close(h.closed_mean(), 645.0 / 2.9));
        assert!(close(rfc.closed_mean(), 645.0 / 2.9));
        // had no report come in between, ns-2 would keep DF = 1: (510 + 190 + 80) / 4.8
        let mut fresh = four_intervals(Rules::Ns2);
        fresh.begin_event(1700);
        assert!(close(fresh.closed_mean(), 780.0 / 4.8));
    }
}
