//! Delay distributions: one-way delay per flow and per code point, queueing delay per
//! monitored queue, as streaming HDR histograms.
//!
//! Read this first. A delay is recorded in integer nanoseconds into an HdrHistogram (Gil Tene's
//! High Dynamic Range histogram, the `hdrhistogram` crate 7.x): log-linear buckets that keep
//! **3 significant decimal digits**, so every quantile read back is within 0.1 % of the value
//! an exact sort would give (the crate's `value_at_quantile` returns the highest value
//! equivalent to the bucket's: at most 0.1 % above the true order statistic, never below it).
//! The smallest distinguishable delay is 1 µs (delays below it share the first bucket, which
//! the 0.1 % bound already covers for any delay ≥ 1 ms); delays above 1000 s are clamped to
//! it (`saturating_record`). The maximum is kept exactly, apart from the histogram. A histogram
//! is allocated at its first sample (about 100 KB), so a flow that delivers nothing, or a code
//! point no packet carries, costs nothing.
//!
//! Not kept: the samples themselves, or delays of packets that are still in flight or dropped.

use hdrhistogram::Histogram;

/// The histogram's lowest distinguishable value, ns (1 µs).
const LOW_NS: u64 = 1_000;
/// The histogram's highest trackable value, ns (1000 s); larger delays are clamped to it.
const HIGH_NS: u64 = 1_000_000_000_000;
/// Significant decimal digits kept: a quantile is within 10^-3 of its exact value.
pub const SIGNIFICANT_DIGITS: u8 = 3;

/// A streaming delay distribution, allocated at its first sample.
#[derive(Clone, Debug, Default)]
pub struct Delays {
    hist: Option<Box<Histogram<u32>>>,
    sum_ns: u128,
    max_ns: u64,
}

/// The summary of a distribution, in seconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Quantiles {
    pub count: u64,
    pub mean_s: f64,
    pub p50_s: f64,
    pub p90_s: f64,
    pub p99_s: f64,
    pub max_s: f64,
}

/// A distribution as a report keeps it: its summary and its histogram in bins a factor 1.1
/// wide (`Delays::bins`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Distribution {
    pub quantiles: Option<Quantiles>,
    /// (upper bound of the bin, ns; samples), bins that hold samples only.
    pub bins: Vec<(u64, u64)>,
}

impl Delays {
    /// Summary and binned histogram, for a report.
    pub fn distribution(&self) -> Distribution {
        Distribution {
            quantiles: self.quantiles(),
            bins: self.bins(1.1),
        }
    }

    /// Records one delay.
    #[inline]
    pub fn record(&mut self, ns: u64) {
        let h = self.hist.get_or_insert_with(|| {
            Box::new(
                Histogram::new_with_bounds(LOW_NS, HIGH_NS, SIGNIFICANT_DIGITS)
                    .expect("valid histogram bounds"),
            )
        });
        h.saturating_record(ns);
        self.sum_ns += u128::from(ns);
        self.max_ns = self.max_ns.max(ns);
    }

    pub fn count(&self) -> u64 {
        self.hist.as_ref().map_or(0, |h| h.len())
    }

    /// The value at quantile `q` (0 ≤ q ≤ 1), ns: the smallest recorded value, as the
    /// histogram resolves it, at or above which lie a fraction 1 − q of the samples. `None`
    /// without samples.
    pub fn quantile_ns(&self, q: f64) -> Option<u64> {
        let h = self.hist.as_ref()?;
        // a clamped sample reads as HIGH_NS; the exact maximum bounds every quantile
        Some(h.value_at_quantile(q).min(self.max_ns))
    }

    /// Count, mean, p50, p90, p99 and the exact maximum; `None` without samples.
    pub fn quantiles(&self) -> Option<Quantiles> {
        let n = self.count();
        if n == 0 {
            return None;
        }
        let s = |q: f64| self.quantile_ns(q).unwrap_or(0) as f64 * 1e-9;
        Some(Quantiles {
            count: n,
            mean_s: self.sum_ns as f64 / n as f64 * 1e-9,
            p50_s: s(0.5),
            p90_s: s(0.9),
            p99_s: s(0.99),
            max_s: self.max_ns as f64 * 1e-9,
        })
    }

    /// The histogram as (upper bound of a bucket, ns; samples in it), for the buckets that hold
    /// samples, in increasing order: bins a factor `ratio` wide (≥ 1.01) from 1 µs on, so a
    /// plot gets a few dozen bins instead of the histogram's thousands.
    pub fn bins(&self, ratio: f64) -> Vec<(u64, u64)> {
        let Some(h) = self.hist.as_ref() else {
            return Vec::new();
        };
        let ratio = ratio.max(1.01);
        let mut out: Vec<(u64, u64)> = Vec::new();
        let mut upper = LOW_NS as f64;
        let mut acc = 0u64;
        for v in h.iter_recorded() {
            let value = v.value_iterated_to();
            while value as f64 > upper {
                if acc > 0 {
                    out.push((upper as u64, acc));
                    acc = 0;
                }
                upper *= ratio;
            }
            acc += u64::from(v.count_at_value());
        }
        if acc > 0 {
            out.push((upper as u64, acc));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_are_within_a_thousandth_of_the_exact_order_statistics() {
        let mut d = Delays::default();
        // 1 ms … 100 ms in 10 000 steps: the exact p-quantile is the value of rank ceil(p n)
        let values: Vec<u64> = (1..=10_000u64).map(|k| 1_000_000 + k * 9_900).collect();
        for &v in &values {
            d.record(v);
        }
        for q in [0.5, 0.9, 0.99] {
            let exact = values[((q * values.len() as f64).ceil() as usize) - 1] as f64;
            let got = d.quantile_ns(q).unwrap() as f64;
            assert!(
                (got - exact).abs() / exact <= 1e-3,
                "q {q}: {got} against {exact}"
            );
        }
        let s = d.quantiles().unwrap();
        assert_eq!(s.count, 10_000);
        assert_eq!(s.max_s, *values.last().unwrap() as f64 * 1e-9);
        let mean = values.iter().sum::<u64>() as f64 / values.len() as f64 * 1e-9;
        assert!((s.mean_s - mean).abs() < 1e-12);
    }

    #[test]
    fn a_distribution_without_samples_allocates_nothing_and_has_no_quantiles() {
        let d = Delays::default();
        assert!(d.hist.is_none());
        assert_eq!(d.quantiles(), None);
        assert!(d.bins(2.0).is_empty());
    }

    #[test]
    fn a_clamped_delay_keeps_its_exact_maximum_and_quantiles_never_exceed_it() {
        let mut d = Delays::default();
        d.record(5_000);
        d.record(2 * HIGH_NS);
        assert_eq!(d.quantiles().unwrap().max_s, 2.0 * HIGH_NS as f64 * 1e-9);
        let mut e = Delays::default();
        e.record(123_456_789);
        assert_eq!(e.quantile_ns(0.99), Some(123_456_789));
    }

    #[test]
    fn bins_hold_every_sample_in_increasing_order() {
        let mut d = Delays::default();
        for k in 0..1000u64 {
            d.record(10_000 + k * 1_000_000);
        }
        let bins = d.bins(1.5);
        assert_eq!(bins.iter().map(|b| b.1).sum::<u64>(), 1000);
        assert!(bins.windows(2).all(|w| w[0].0 < w[1].0));
        assert!(bins.len() < 40);
    }
}
