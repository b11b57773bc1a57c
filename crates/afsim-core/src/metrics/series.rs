//! Time series sampled on a regular grid (`[[monitor]]`, `afsim run --monitor`): a queue's
//! state (`QueueSeries`), and counters of several things per interval (`CountSeries`: flows'
//! deliveries and drops, conditioners' colours, a queue's arrivals, drops and marks per
//! drop-precedence level), and a queue's counters per code point (`CodePointSeries`: the
//! entities are the (direction, DSCP) pairs the queue has seen, which grow during the run).
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

/// Counters of several entities (flows, conditioners, levels of a queue), N per entity,
/// sampled at `k · interval`, k = 1, 2, …, and stored per interval, in long columns: one row
/// per (instant, entity), instants in order and entities in index order within each.
///
/// The world calls `due` before each event and `sample` with every entity's cumulative
/// counters for each grid instant it has passed, before the event at that instant runs; a
/// row at `time_s` = t therefore counts what happened in [t − interval, t). No event is added
/// and, when no monitor asks for counts, none of this is on the world's packet path (`World::run`
/// takes the path compiled without observers).
#[derive(Clone, Debug, PartialEq)]
pub struct CountSeries<const N: usize> {
    /// Sampling interval, ns (> 0).
    pub interval_ns: u64,
    /// The next grid instant to write, ns.
    next_ns: u64,
    /// Every entity's cumulative counters at the previous instant.
    last: Vec<[u64; N]>,
    pub time_s: Vec<f64>,
    /// The entity (flow, conditioner or level index) of each row.
    pub entity: Vec<u32>,
    /// Counts in each row's interval, one column per counter.
    pub counts: [Vec<u64>; N],
}

impl<const N: usize> CountSeries<N> {
    pub fn new(interval_ns: u64, entities: usize) -> Self {
        assert!(interval_ns > 0, "a sampling interval must be positive");
        CountSeries {
            interval_ns,
            next_ns: interval_ns,
            last: vec![[0; N]; entities],
            time_s: Vec::new(),
            entity: Vec::new(),
            counts: std::array::from_fn(|_| Vec::new()),
        }
    }

    /// The next grid instant to write, ns.
    #[inline]
    pub fn next_ns(&self) -> u64 {
        self.next_ns
    }

    /// Writes the rows of the next grid instant from every entity's cumulative counters
    /// (`cumulative(e)` for e in 0..entities) and moves to the instant after it.
    pub fn sample(&mut self, mut cumulative: impl FnMut(usize) -> [u64; N]) {
        let t = self.next_ns as f64 * 1e-9;
        for (e, last) in self.last.iter_mut().enumerate() {
            let now = cumulative(e);
            self.time_s.push(t);
            self.entity.push(e as u32);
            for (col, (n, l)) in self.counts.iter_mut().zip(now.iter().zip(last.iter())) {
                col.push(n - l);
            }
            *last = now;
        }
        self.next_ns += self.interval_ns;
    }

    pub fn len(&self) -> usize {
        self.time_s.len()
    }

    pub fn is_empty(&self) -> bool {
        self.time_s.is_empty()
    }
}

/// Counters of one queue per (direction, code point), sampled like `CountSeries` (rows at
/// `k · interval`, k = 1, 2, …, each counting [t − interval, t)), but over the pairs the queue
/// has seen so far: a pair has rows from the first instant after its first packet on, in key
/// order within each instant (key `64 × reverse + DSCP`, as `world::code_points`).
#[derive(Clone, Debug, PartialEq)]
pub struct CodePointSeries<const N: usize> {
    /// Sampling interval, ns (> 0).
    pub interval_ns: u64,
    next_ns: u64,
    /// Every key's cumulative counters at the previous instant, in key order.
    last: Vec<(u8, [u64; N])>,
    pub time_s: Vec<f64>,
    /// The key of each row: `64 × reverse + DSCP`.
    pub key: Vec<u8>,
    /// Counts in each row's interval, one column per counter.
    pub counts: [Vec<u64>; N],
}

impl<const N: usize> CodePointSeries<N> {
    pub fn new(interval_ns: u64) -> Self {
        assert!(interval_ns > 0, "a sampling interval must be positive");
        CodePointSeries {
            interval_ns,
            next_ns: interval_ns,
            last: Vec::new(),
            time_s: Vec::new(),
            key: Vec::new(),
            counts: std::array::from_fn(|_| Vec::new()),
        }
    }

    /// The next grid instant to write, ns.
    #[inline]
    pub fn next_ns(&self) -> u64 {
        self.next_ns
    }

    /// Writes the rows of the next grid instant from the cumulative counters of every key
    /// seen so far (any order; a key once given must be given at every later instant, as
    /// counters are never forgotten) and moves to the instant after it.
    pub fn sample(&mut self, mut now: Vec<(u8, [u64; N])>) {
        now.sort_unstable_by_key(|e| e.0);
        let t = self.next_ns as f64 * 1e-9;
        let mut before = self.last.iter().peekable();
        for (key, c) in &now {
            let prev = match before.peek() {
                Some((k, p)) if k == key => {
                    let p = *p;
                    before.next();
                    p
                }
                _ => [0; N],
            };
            self.time_s.push(t);
            self.key.push(*key);
            for (col, (n, l)) in self.counts.iter_mut().zip(c.iter().zip(prev.iter())) {
                col.push(n - l);
            }
        }
        self.last = now;
        self.next_ns += self.interval_ns;
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

    #[test]
    fn counts_are_per_interval_and_rows_go_by_instant_then_entity() {
        let mut c: CountSeries<2> = CountSeries::new(10, 2);
        assert_eq!(c.next_ns(), 10);
        let cum = [[[3, 30], [0, 0]], [[5, 50], [1, 10]]];
        c.sample(|e| cum[0][e]);
        c.sample(|e| cum[1][e]);
        assert_eq!(c.next_ns(), 30);
        assert_eq!(c.entity, vec![0, 1, 0, 1]);
        assert_eq!(c.counts[0], vec![3, 0, 2, 1]);
        assert_eq!(c.counts[1], vec![30, 0, 20, 10]);
        assert!((c.time_s[2] - 20e-9).abs() < 1e-18);
        // the counts of every interval add up to the cumulative counter at the last instant
        assert_eq!(c.counts[1].iter().step_by(2).sum::<u64>(), 50);
    }

    #[test]
    fn code_points_get_rows_from_their_first_sight_on_in_key_order() {
        let mut c: CodePointSeries<2> = CodePointSeries::new(10);
        c.sample(vec![(10, [3, 1])]);
        // key 64 (reverse BE) and 0 appear; 10 stays
        c.sample(vec![(64, [2, 0]), (10, [5, 1]), (0, [1, 1])]);
        c.sample(vec![(0, [1, 1]), (10, [5, 4]), (64, [7, 0])]);
        assert_eq!(c.key, vec![10, 0, 10, 64, 0, 10, 64]);
        assert_eq!(c.counts[0], vec![3, 1, 2, 2, 0, 0, 5]);
        assert_eq!(c.counts[1], vec![1, 1, 0, 0, 0, 3, 0]);
        assert_eq!(c.next_ns(), 40);
        assert!((c.time_s[6] - 30e-9).abs() < 1e-18);
        // each key's counts add up to its cumulative counter at the last instant
        let sum10: u64 = (0..c.len())
            .filter(|&i| c.key[i] == 10)
            .map(|i| c.counts[1][i])
            .sum();
        assert_eq!(sum10, 4);
    }
}
