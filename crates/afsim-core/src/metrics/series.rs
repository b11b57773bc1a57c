//! Time series of one queue sampled on a regular grid (`[[monitor]]`, `afsim run --monitor`).
//!
//! A sampler costs no event: the queue's state (length, bytes, the discipline's averages) is
//! constant between two changes, so just before each change the world hands the state that
//! held since the previous one, and the sampler writes every grid instant `k · interval` it has
//! passed (`advance`). A sample at an instant where the queue also changes shows the state
//! before that change. The averages are the discipline's own (RED's avg, RIO's avg_total and
//! avg_in, WRED's avg) as last computed, which RED does at arrivals (Floyd & Jacobson 1993,
//! §4): between arrivals an idle queue's average is the one its last arrival left, exactly what
//! the discipline itself would compare with its thresholds at that instant only after the next
//! arrival's idle-time correction.

use crate::sim::time::SimTime;

/// The state of a queue between two changes, as the sampler records it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QueueState {
    pub len_packets: u32,
    pub len_bytes: u64,
    /// The discipline's average (RED/WRED avg; RIO avg_total when coupled), in its measured
    /// unit (packets, or bytes in byte mode); NaN for disciplines without one.
    pub avg: f64,
    /// RIO's IN average; NaN for every other discipline.
    pub avg_in: f64,
}

/// Samples of one queue at `k · interval`, k = 0, 1, …, in columns.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct QueueSeries {
    /// Sampling interval, ns (> 0).
    pub interval_ns: u64,
    /// The next grid instant to write, ns.
    next_ns: u64,
    pub time_s: Vec<f64>,
    pub len_packets: Vec<u32>,
    pub len_bytes: Vec<u64>,
    pub avg: Vec<f64>,
    pub avg_in: Vec<f64>,
}

impl QueueSeries {
    pub fn new(interval_ns: u64) -> Self {
        assert!(interval_ns > 0, "a sampling interval must be positive");
        QueueSeries {
            interval_ns,
            ..QueueSeries::default()
        }
    }

    /// Writes every grid instant up to and including `now` with `state`, the state that held
    /// since the previous call (the caller calls this just before the queue changes).
    #[inline]
    pub fn advance(&mut self, now: SimTime, state: QueueState) {
        while self.next_ns <= now.0 {
            self.time_s.push(self.next_ns as f64 * 1e-9);
            self.len_packets.push(state.len_packets);
            self.len_bytes.push(state.len_bytes);
            self.avg.push(state.avg);
            self.avg_in.push(state.avg_in);
            self.next_ns += self.interval_ns;
        }
    }

    pub fn len(&self) -> usize {
        self.time_s.len()
    }

    pub fn is_empty(&self) -> bool {
        self.time_s.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(n: u32) -> QueueState {
        QueueState {
            len_packets: n,
            len_bytes: 100 * u64::from(n),
            avg: f64::from(n) / 2.0,
            avg_in: f64::NAN,
        }
    }

    #[test]
    fn every_grid_instant_gets_the_state_that_held_there() {
        let mut s = QueueSeries::new(10);
        // length 0 over [0, 25), 3 over [25, 31), 1 from 31 to the end at 50
        s.advance(SimTime(25), state(0));
        s.advance(SimTime(31), state(3));
        s.advance(SimTime(50), state(1));
        assert_eq!(s.time_s.len(), 6);
        assert_eq!(s.len_packets, vec![0, 0, 0, 3, 1, 1]);
        assert_eq!(s.len_bytes, vec![0, 0, 0, 300, 100, 100]);
        assert_eq!(s.avg[3], 1.5);
        assert!((s.time_s[5] - 50e-9).abs() < 1e-18);
    }

    #[test]
    fn a_change_on_a_grid_instant_is_sampled_before_it() {
        let mut s = QueueSeries::new(10);
        s.advance(SimTime(10), state(4)); // 4 held up to 10, where it changes
        s.advance(SimTime(10), state(9)); // a second change at the same instant writes nothing
        s.advance(SimTime(15), state(7));
        assert_eq!(s.len_packets, vec![4, 4]);
    }

    #[test]
    fn changes_between_grid_instants_leave_no_sample() {
        let mut s = QueueSeries::new(1000);
        s.advance(SimTime(0), state(0));
        for t in 1..999 {
            s.advance(SimTime(t), state(t as u32));
        }
        assert_eq!(s.len(), 1);
        s.advance(SimTime(1000), state(5));
        assert_eq!(s.len_packets, vec![0, 5]);
    }
}
