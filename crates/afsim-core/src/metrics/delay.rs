//! Delay distributions: one-way delay per flow and per code point, queueing delay per
//! monitored queue, as streaming log-linear histograms.
//!
//! Read this first. A delay is recorded in integer nanoseconds into a histogram bucketed as
//! Gil Tene's HdrHistogram (High Dynamic Range histogram) buckets values: each power of two
//! [2^k, 2^(k+1)) is cut into 1024 equal sub-buckets (below 2048 ns every nanosecond has its
//! own), so a sub-bucket is at most 1/1024 of the values it holds wide and every quantile read
//! back keeps **3 significant decimal digits**: it is the highest value of the sub-bucket that
//! holds the exact order statistic, at most 0.1 % above it and never below it (HdrHistogram's
//! own convention), and never above the maximum, which is kept exactly apart. Delays of 2^40 ns
//! (about 1100 s) and more share the last sub-bucket (their maximum stays exact). The 31 744
//! counts come in 31 chunks of 1024 (4 KB), each allocated at its first sample: a flow whose
//! delays span a factor of 3 holds two or three chunks (8–12 KB), a flow that delivers
//! nothing, or a code point no packet carries, none — so 10 000 flows cost about 100 MB, not
//! the 1.2 GB whole histograms would. Before that, while at most 32 sub-buckets hold samples,
//! the counts are a sorted list of (sub-bucket, count) pairs, at most 256 bytes: a flow that
//! delivers a handful of packets (100,000 flows sharing one bottleneck) holds no chunk at all
//! (the same quantiles and bins either way).
//!
//! Recording is a few shifts and, for a distribution's first `LOG_MAX` samples, the
//! sub-bucket's index appended to a log (2 bytes a sample), read sorted by the queries; when
//! the log is full its samples are counted into the list or the chunks, all at once, the log
//! is given back, and every later sample is counted as it comes: a shift, a chunk test and
//! one increment (issue 28, branch scale9r: at thousands of flows each delivery's counter was
//! a cache miss in a chunk of its own flow, and the chunks of 2,000 flows took 16 MB; a flow
//! that delivers fewer than `LOG_MAX` packets now holds no chunk and no list). The counts,
//! and so the quantiles and bins, are those of counting every sample at once
//! (docs/performance.md measured that against the `hdrhistogram` crate's, which gave the
//! same numbers). The code points' distributions (`CountingDelays`), which every delivery
//! feeds, count from their first sample, their chunk table inline.
//!
//! Not kept: the samples themselves, or delays of packets that are still in flight or dropped.

/// Bits of the sub-bucket index: 2^11 sub-buckets in the first bucket, 2^10 new ones in every
/// bucket after it.
const SUB_BITS: u32 = 11;
const SUB_MASK: u64 = (1 << SUB_BITS) - 1;
/// Values from here on share the last sub-bucket, ns (2^40, about 1100 s).
const HIGH_NS: u64 = 1 << 40;
/// Sub-buckets in all: buckets 0 … 29 (the value 2^40 − 1 falls in bucket 29).
const LEN: usize = (29 << (SUB_BITS - 1)) + (1 << SUB_BITS);
/// Counts are allocated in chunks of 2^CHUNK_BITS sub-buckets (one bucket's new half).
const CHUNK_BITS: u32 = SUB_BITS - 1;
const CHUNK: usize = 1 << CHUNK_BITS;
const CHUNKS: usize = LEN / CHUNK;
/// `Table::chunks`' length: `CHUNKS` rounded up to a power of two, so that a sub-bucket's
/// chunk is found by a shift and a mask, with no bounds test (the last is never used).
const TABLE: usize = CHUNKS.next_power_of_two();
/// Sub-buckets a distribution keeps as a sorted list before it takes chunks (8 bytes each).
const FEW: usize = 32;
/// Samples the log holds before they are counted (2 bytes each; the log grows by doubling
/// from `LOG_FIRST` up to this).
const LOG_MAX: usize = 256;
const LOG_FIRST: usize = 4;
/// Significant decimal digits kept: a quantile is within 10^-3 of its exact value.
pub const SIGNIFICANT_DIGITS: u8 = 3;

/// The sub-bucket of a value below `HIGH_NS`.
#[inline]
fn index(v: u64) -> usize {
    let bucket = (64 - (v | SUB_MASK).leading_zeros()) - SUB_BITS;
    ((bucket as usize) << (SUB_BITS - 1)) + (v >> bucket) as usize
}

/// The lowest and highest value of sub-bucket `i`, ns.
fn range(i: usize) -> (u64, u64) {
    let half = 1usize << (SUB_BITS - 1);
    let bucket = if i < 2 * half {
        0
    } else {
        (i >> (SUB_BITS - 1)) - 1
    };
    let low = ((i - (bucket << (SUB_BITS - 1))) as u64) << bucket;
    (low, low + (1u64 << bucket) - 1)
}

/// A streaming delay distribution, allocated at its first sample.
#[derive(Clone, Debug, Default)]
#[repr(C, align(64))]
pub struct Delays {
    /// What `record` writes, in one 64-byte line (issue 28, branch scale9r: a flow's
    /// distribution is a line of its own at each delivery; 112 bytes before, the counters
    /// and the list and chunk table beside them, often two lines).
    sum_ns: u128,
    /// Sub-buckets of the samples recorded, in arrival order, until there are `LOG_MAX`; then
    /// empty (and its room given back), the samples counted in `table`.
    log: Vec<u16>,
    count: u64,
    max_ns: u64,
    /// The samples counted, once the log has been full: every sample after those is counted
    /// at once, as before the log (the bench scenarios' long flows: a log counted later
    /// would cost each sample both).
    table: Option<Box<Table>>,
}

/// Counts of samples by sub-bucket.
#[derive(Clone, Debug, Default)]
struct Table {
    /// `CHUNKS` chunks of `CHUNK` counts, each allocated at its first sample; none while
    /// `few` holds the counts.
    chunks: [Option<Box<[u32; CHUNK]>>; TABLE],
    /// While at most `FEW` sub-buckets hold samples (and `chunked` is false): (sub-bucket,
    /// count), by sub-bucket; then empty.
    few: Vec<(u16, u32)>,
    chunked: bool,
}

const _: () = assert!(std::mem::size_of::<Delays>() == 64);

/// Sorts `v` (at most `LOG_MAX` values) by its low byte, then stably by its high byte, through
/// `tmp` of the same length: a quarter of the instructions of `sort_unstable` on a flow's log
/// of about a hundred samples (the report's quantiles at thousands of flows).
fn radix_sort(v: &mut [u16], tmp: &mut [u16]) {
    debug_assert!(v.len() <= LOG_MAX && tmp.len() == v.len());
    // (counts below LOG_MAX fit in u16)
    let (mut lo, mut hi) = ([0u16; 256], [0u16; 256]);
    for &x in v.iter() {
        lo[usize::from(x & 255)] += 1;
        hi[usize::from(x >> 8)] += 1;
    }
    let starts = |counts: &mut [u16; 256]| {
        let mut at = 0u16;
        for c in counts.iter_mut() {
            (*c, at) = (at, at + *c);
        }
    };
    starts(&mut lo);
    starts(&mut hi);
    for &x in v.iter() {
        let s = &mut lo[usize::from(x & 255)];
        tmp[usize::from(*s)] = x;
        *s += 1;
    }
    for &x in tmp.iter() {
        let s = &mut hi[usize::from(x >> 8)];
        v[usize::from(*s)] = x;
        *s += 1;
    }
}

/// A sorted vector of sub-buckets as (sub-bucket, samples in it), in order.
struct Runs {
    v: Vec<u16>,
    at: usize,
}

impl Iterator for Runs {
    type Item = (usize, u32);
    fn next(&mut self) -> Option<(usize, u32)> {
        let &i = self.v.get(self.at)?;
        let n = self.v[self.at..].iter().take_while(|&&j| j == i).count();
        self.at += n;
        // (n <= LOG_MAX)
        Some((usize::from(i), n as u32))
    }
}

/// A distribution's sub-buckets that hold samples, in order: those of its table, or those of
/// its log (a distribution holds samples in one of the two: `Delays::log`).
enum Recorded<A> {
    Counted(A),
    Logged(Runs),
}

impl<A: Iterator<Item = (usize, u32)>> Iterator for Recorded<A> {
    type Item = (usize, u32);
    fn next(&mut self) -> Option<(usize, u32)> {
        match self {
            Recorded::Counted(a) => a.next(),
            Recorded::Logged(b) => b.next(),
        }
    }
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

impl Table {
    /// Counts one sample in sub-bucket `i` (< `LEN`).
    #[inline]
    fn add(&mut self, i: usize) {
        // (i < LEN, so the mask changes nothing)
        match self.chunks[(i >> CHUNK_BITS) & (TABLE - 1)].as_deref_mut() {
            Some(chunk) => {
                let c = &mut chunk[i & (CHUNK - 1)];
                *c = c.saturating_add(1);
            }
            None => self.first(i),
        }
    }

    /// A sample in a chunk not allocated: counted in the list while the distribution has at
    /// most `FEW` sub-buckets, else in its chunk, allocated now (and the first time, the
    /// chunks take the list's counts).
    #[cold]
    #[inline(never)]
    fn first(&mut self, i: usize) {
        if !self.chunked {
            // (i < LEN < 2^16)
            match self.few.binary_search_by_key(&(i as u16), |&(j, _)| j) {
                Ok(k) => {
                    let c = &mut self.few[k].1;
                    *c = c.saturating_add(1);
                    return;
                }
                Err(k) if self.few.len() < FEW => {
                    self.few.insert(k, (i as u16, 1));
                    return;
                }
                Err(_) => {}
            }
            self.chunked = true;
            for (j, c) in std::mem::take(&mut self.few) {
                self.chunk(usize::from(j))[usize::from(j) & (CHUNK - 1)] = c;
            }
        }
        let c = &mut self.chunk(i)[i & (CHUNK - 1)];
        *c = c.saturating_add(1);
    }

    /// The chunk of sub-bucket `i`, allocated if it is not.
    fn chunk(&mut self, i: usize) -> &mut [u32; CHUNK] {
        self.chunks[i >> CHUNK_BITS].get_or_insert_with(|| Box::new([0u32; CHUNK]))
    }

    /// The sub-buckets that hold samples, in order: (index, count). Chunks never allocated
    /// are skipped whole.
    fn counted(&self) -> impl Iterator<Item = (usize, u32)> + '_ {
        // (one of the two is empty)
        let few = self.few.iter().map(|&(j, c)| (usize::from(j), c));
        few.chain(
            self.chunks
                .iter()
                .enumerate()
                .filter_map(|(k, c)| c.as_deref().map(|chunk| (k, chunk)))
                .flat_map(|(k, chunk)| {
                    chunk
                        .iter()
                        .enumerate()
                        .filter(|&(_, &c)| c > 0)
                        .map(move |(j, &c)| ((k << CHUNK_BITS) + j, c))
                }),
        )
    }
}

/// A distribution that counts every sample as it comes, its chunk table inline: no log and no
/// box (issue 28, branch scale9r), for the few distributions every delivery feeds, which are
/// long past a log's `LOG_MAX` samples (the code points', `World`'s `class_delays`): the same
/// counts, quantiles and memory as `Delays` counting, and a pointer's load and test less a
/// sample.
#[derive(Clone, Debug, Default)]
pub struct CountingDelays {
    table: Table,
    count: u64,
    sum_ns: u128,
    max_ns: u64,
}

impl CountingDelays {
    /// Records one delay.
    #[inline]
    pub fn record(&mut self, ns: u64) {
        self.table.add(index(ns.min(HIGH_NS - 1)));
        self.count += 1;
        self.sum_ns += u128::from(ns);
        self.max_ns = self.max_ns.max(ns);
    }

    /// `Delays::quantiles`.
    pub fn quantiles(&self) -> Option<Quantiles> {
        quantiles_of(self.table.counted(), self.count, self.sum_ns, self.max_ns)
    }
}

/// Count, mean, p50, p90, p99 and maximum of `count` samples summing to `sum_ns` whose
/// largest is `max_ns`, in sub-buckets `recorded` (in order): `Delays::quantiles`' walk.
fn quantiles_of(
    recorded: impl Iterator<Item = (usize, u32)>,
    count: u64,
    sum_ns: u128,
    max_ns: u64,
) -> Option<Quantiles> {
    if count == 0 {
        return None;
    }
    let ranks = [0.5, 0.9, 0.99].map(|q| rank(q, count));
    let mut at = [max_ns; 3];
    let (mut k, mut seen) = (0, 0u64);
    for (i, c) in recorded {
        seen += u64::from(c);
        // (the ranks do not decrease: a sub-bucket may hold more than one)
        while k < ranks.len() && seen >= ranks[k] {
            at[k] = range(i).1.min(max_ns);
            k += 1;
        }
        if k == ranks.len() {
            break;
        }
    }
    Some(summary(at, count, sum_ns, max_ns))
}

/// The rank of quantile `q` (0 < q ≤ 1) among `count` > 0 samples: ⌈q·n⌉, at least 1.
fn rank(q: f64, count: u64) -> u64 {
    ((q * count as f64).ceil() as u64).clamp(1, count)
}

/// The summary with p50, p90 and p99 at `at`, ns, of `count` samples summing to `sum_ns`,
/// the largest `max_ns`.
fn summary(at: [u64; 3], count: u64, sum_ns: u128, max_ns: u64) -> Quantiles {
    let s = |ns: u64| ns as f64 * 1e-9;
    Quantiles {
        count,
        mean_s: sum_ns as f64 / count as f64 * 1e-9,
        p50_s: s(at[0]),
        p90_s: s(at[1]),
        p99_s: s(at[2]),
        max_s: max_ns as f64 * 1e-9,
    }
}

impl Delays {
    /// Summary and binned histogram, for a report.
    pub fn distribution(&self) -> Distribution {
        Distribution {
            quantiles: self.quantiles(),
            bins: self.bins(1.1),
        }
    }

    /// Records one delay: its sub-bucket onto the log, or once the log has been full, counted.
    #[inline]
    pub fn record(&mut self, ns: u64) {
        self.record_sample(ns);
        self.count += 1;
        self.sum_ns += u128::from(ns);
    }

    /// `record` without the count and the sum, for a distribution whose owner counts its
    /// samples and sums them already (a flow's: `FlowStats::packets_delivered` and
    /// `delay_sum_ns`, issue 28): its summary is then `quantiles_given`'s with those
    /// (`count`, `quantiles`, `quantile_ns` and `bins` read the distribution's own count,
    /// which stays 0: not for such a distribution).
    #[inline]
    pub fn record_sample(&mut self, ns: u64) {
        let i = index(ns.min(HIGH_NS - 1));
        match self.table.as_deref_mut() {
            Some(t) => t.add(i),
            None if self.log.len() < self.log.capacity() => {
                // (LEN < 2^16)
                self.log.push(i as u16);
            }
            None => self.log_full(i),
        }
        self.max_ns = self.max_ns.max(ns);
    }

    /// `record`'s log at its capacity: grown (doubling, up to `LOG_MAX`) and sub-bucket `i`
    /// logged, or else counted with `i`.
    #[cold]
    #[inline(never)]
    fn log_full(&mut self, i: usize) {
        let cap = self.log.capacity();
        if cap < LOG_MAX {
            self.log
                .reserve_exact((2 * cap).clamp(LOG_FIRST, LOG_MAX) - cap);
            self.log.push(i as u16);
        } else {
            self.settle();
            if let Some(t) = self.table.as_deref_mut() {
                t.add(i);
            }
        }
    }

    /// Counts the log's samples (into the chunks, or the list while it has room) and gives
    /// the log back; from here on `record` counts.
    fn settle(&mut self) {
        let table = self.table.get_or_insert_with(Box::default);
        for &i in &self.log {
            table.add(usize::from(i));
        }
        self.log = Vec::new();
    }

    /// The sub-buckets that hold samples, in order: (index, count): the table's, or the
    /// log's, sorted here (never both: the log is counted into the table and given back when
    /// the table is made). Chunks never allocated are skipped whole.
    fn recorded(&self) -> impl Iterator<Item = (usize, u32)> + '_ {
        match &self.table {
            Some(t) => Recorded::Counted(t.counted()),
            None => {
                let mut v = self.log.clone();
                v.sort_unstable();
                Recorded::Logged(Runs { v, at: 0 })
            }
        }
    }

    pub fn count(&self) -> u64 {
        self.count
    }

    /// The value at quantile `q` (0 < q ≤ 1), ns: the highest value of the sub-bucket holding
    /// the sample of rank ⌈q·n⌉ (at most 0.1 % above it), capped by the exact maximum. `None`
    /// without samples.
    pub fn quantile_ns(&self, q: f64) -> Option<u64> {
        if self.count == 0 {
            return None;
        }
        let rank = rank(q, self.count);
        let mut seen = 0u64;
        for (i, c) in self.recorded() {
            seen += u64::from(c);
            if seen >= rank {
                return Some(range(i).1.min(self.max_ns));
            }
        }
        Some(self.max_ns)
    }

    /// Count, mean, p50, p90, p99 and the exact maximum; `None` without samples.
    ///
    /// The three quantiles are `quantile_ns`'s, found in one walk over the counts instead of
    /// three (issue 28: the report's fixed cost, a walk of a few thousand counts per flow).
    pub fn quantiles(&self) -> Option<Quantiles> {
        self.quantiles_given(self.count, self.sum_ns)
    }

    /// `quantiles` of a distribution recorded by `record_sample`, whose `count` samples sum
    /// to `sum_ns`.
    pub fn quantiles_given(&self, count: u64, sum_ns: u128) -> Option<Quantiles> {
        if count == 0 {
            return None;
        }
        if let Some(t) = &self.table {
            // (the log is empty: `recorded`)
            return quantiles_of(t.counted(), count, sum_ns, self.max_ns);
        }
        // every sample in the log (a flow that delivered fewer than `LOG_MAX` packets): the
        // sample of rank r is the r-th of the sorted log, no walk
        let (mut log, mut tmp) = ([0u16; LOG_MAX], [0u16; LOG_MAX]);
        let n = self.log.len();
        // (the owner's count is of the same samples: `record_sample`'s contract)
        debug_assert_eq!(
            count, n as u64,
            "quantiles_given: a count other than the samples'"
        );
        log[..n].copy_from_slice(&self.log);
        radix_sort(&mut log[..n], &mut tmp[..n]);
        let at = [0.5, 0.9, 0.99].map(|q| {
            // (1 <= rank <= count = the log's length)
            range(usize::from(log[rank(q, count) as usize - 1]))
                .1
                .min(self.max_ns)
        });
        Some(summary(at, count, sum_ns, self.max_ns))
    }

    /// The histogram as (upper bound of a bin, ns; samples in it), for the bins that hold
    /// samples, in increasing order: bins a factor `ratio` wide (≥ 1.01) from 1 µs on, so a
    /// plot gets a few dozen bins instead of the histogram's thousands.
    pub fn bins(&self, ratio: f64) -> Vec<(u64, u64)> {
        if self.count == 0 {
            return Vec::new();
        }
        let ratio = ratio.max(1.01);
        let mut out: Vec<(u64, u64)> = Vec::new();
        let mut upper = 1_000.0f64;
        let mut acc = 0u64;
        for (i, c) in self.recorded() {
            let value = range(i).1;
            while value as f64 > upper {
                if acc > 0 {
                    out.push((upper as u64, acc));
                    acc = 0;
                }
                upper *= ratio;
            }
            acc += u64::from(c);
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
                got >= exact && (got - exact) / exact <= 1e-3,
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
    fn quantiles_in_one_walk_are_quantile_ns_s() {
        // few samples (ranks that share a sub-bucket), the short list, then chunks, skewed
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut d = Delays::default();
        for n in 1..=3000u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            d.record(if n % 7 == 0 {
                5_000_000
            } else {
                20_000 + x % (1 + n * 997)
            });
            if n <= 40 || n % 97 == 0 {
                let q = d.quantiles().unwrap();
                let ns = |p: f64| d.quantile_ns(p).unwrap() as f64 * 1e-9;
                assert_eq!(
                    (q.p50_s, q.p90_s, q.p99_s),
                    (ns(0.5), ns(0.9), ns(0.99)),
                    "n {n}"
                );
            }
        }
    }

    #[test]
    fn the_short_list_and_the_chunks_give_the_same_distribution() {
        // the same samples into a distribution that starts with the list and one that starts
        // with its chunk table: equal quantiles and bins after every sample
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut listed = Delays::default();
        let mut chunked = Delays::default();
        chunked.table = Some(Box::new(Table {
            chunked: true,
            ..Table::default()
        }));
        for k in 0..400 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // a few distinct values at first (repeats), then spread over 1 µs … 1 s
            let v = if k < 60 {
                40_000_000 + (x % 8) * 50_000
            } else {
                1_000 + x % 1_000_000_000
            };
            // (each sample counted at once, as without the log)
            listed.record(v);
            listed.settle();
            chunked.record(v);
            chunked.settle();
            assert_eq!(
                listed.distribution(),
                chunked.distribution(),
                "after {} samples",
                k + 1
            );
            // the list holds the first few sub-buckets without a chunk; never both
            let c = listed.table.as_deref().unwrap();
            let chunks = c.chunks.iter().flatten().count();
            assert!(k >= 60 || chunks == 0);
            assert!(chunks == 0 || c.few.is_empty());
        }
        let c = listed.table.as_deref().unwrap();
        assert!(c.few.is_empty() && c.chunks.iter().flatten().count() > 0);
    }

    #[test]
    fn the_log_gives_the_distribution_of_counting_each_sample_at_once() {
        // the same samples recorded with the log and counted one by one (from the first):
        // equal distributions, quantiles and counts at every size, through the log's growth,
        // its counting into the short list, and the samples counted as they come after it
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut logged = Delays::default();
        let mut counted = Delays::default();
        for n in 1..=(3 * LOG_MAX as u64 + 77) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // repeats of a few values first (the list), then spread (the chunks), and some
            // clamped at the top
            let v = match n {
                _ if n < 300 => 30_000_000 + (x % 5) * 40_000,
                _ if n % 101 == 0 => 3 * HIGH_NS,
                _ => 2_000 + x % (1 + n * 50_000),
            };
            logged.record(v);
            counted.record(v);
            counted.settle();
            assert!(counted.log.is_empty());
            // (a full log is counted when the next sample comes)
            let n_logged = if n as usize <= LOG_MAX { n as usize } else { 0 };
            assert_eq!(logged.log.len(), n_logged, "n {n}");
            assert_eq!(logged.table.is_some(), n as usize > LOG_MAX, "n {n}");
            // (samples in the log or in the table, never in both: `recorded`)
            assert!(logged.table.is_none() || logged.log.is_empty());
            if n < 40 || n % 61 == 0 || (n as usize).abs_diff(LOG_MAX) < 3 {
                assert_eq!(logged.distribution(), counted.distribution(), "n {n}");
                assert_eq!(
                    logged.recorded().collect::<Vec<_>>(),
                    counted.recorded().collect::<Vec<_>>(),
                    "n {n}"
                );
                assert_eq!(logged.quantile_ns(0.37), counted.quantile_ns(0.37));
            }
        }
        assert!(logged.log.capacity() <= LOG_MAX);
        // a distribution that never filled its log holds neither list nor chunks
        let mut few = Delays::default();
        for k in 0..(LOG_MAX as u64 - 1) {
            few.record(1_000 + k * 1_000_003);
        }
        assert!(few.table.is_none());
        assert_eq!(few.quantiles().unwrap().count, LOG_MAX as u64 - 1);
    }

    #[test]
    fn quantiles_of_the_log_alone_are_the_walks() {
        // a log never counted (read by rank) against the same samples counted (walked)
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for n in 1..LOG_MAX as u64 {
            let (mut logged, mut counted) = (Delays::default(), Delays::default());
            for k in 0..n {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let v = if k % 3 == 0 {
                    7_000_000
                } else {
                    900 + x % (1 + k * 3_000_000)
                };
                logged.record(v);
                counted.record(v);
            }
            counted.settle();
            assert!(logged.table.is_none());
            let c = counted.table.as_deref().unwrap();
            assert!(!c.few.is_empty() || c.chunked);
            assert_eq!(logged.quantiles(), counted.quantiles(), "{n} samples");
        }
    }

    #[test]
    fn the_radix_sort_sorts() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for n in [0, 1, 2, 3, 17, 100, LOG_MAX - 1, LOG_MAX] {
            for spread in [3u64, 300, 70_000] {
                let mut v: Vec<u16> = (0..n)
                    .map(|_| {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        (x % spread) as u16
                    })
                    .collect();
                let mut want = v.clone();
                want.sort_unstable();
                let mut tmp = vec![0u16; n];
                radix_sort(&mut v, &mut tmp);
                assert_eq!(v, want, "{n} values below {spread}");
            }
        }
    }

    #[test]
    fn samples_recorded_without_their_totals_give_the_same_quantiles_given_them() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let (mut full, mut bare) = (Delays::default(), Delays::default());
        let mut sum = 0u128;
        for n in 1..=(LOG_MAX as u64 + 300) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let v = 10_000 + x % 90_000_000;
            full.record(v);
            bare.record_sample(v);
            sum += u128::from(v);
            assert_eq!(bare.quantiles(), None, "no count of its own");
            assert_eq!(full.quantiles(), bare.quantiles_given(n, sum), "n {n}");
        }
    }

    #[test]
    fn counting_as_samples_come_gives_the_logs_quantiles() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let (mut logged, mut counting) = (Delays::default(), CountingDelays::default());
        assert_eq!(counting.quantiles(), None);
        for n in 1..=(2 * LOG_MAX as u64) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let v = if n < 100 {
                5_000_000 + x % 7
            } else {
                1_000 + x % 3_000_000_000
            };
            logged.record(v);
            counting.record(v);
            assert_eq!(logged.quantiles(), counting.quantiles(), "n {n}");
        }
        assert!(counting.table.chunked && logged.table.is_some());
    }

    #[test]
    fn runs_count_equal_sub_buckets() {
        let r: Vec<_> = Runs {
            v: vec![0, 3, 3, 3, 9, 12, 12],
            at: 0,
        }
        .collect();
        assert_eq!(r, vec![(0, 1), (3, 3), (9, 1), (12, 2)]);
    }

    #[test]
    fn a_distribution_without_samples_allocates_nothing_and_has_no_quantiles() {
        let d = Delays::default();
        assert!(d.table.is_none() && d.log.capacity() == 0);
        assert_eq!(d.quantiles(), None);
        assert!(d.bins(2.0).is_empty());
    }

    #[test]
    fn a_clamped_delay_keeps_its_exact_maximum_and_quantiles_never_exceed_it() {
        let mut d = Delays::default();
        d.record(5_000);
        d.record(2 * HIGH_NS);
        assert_eq!(d.quantiles().unwrap().max_s, 2.0 * HIGH_NS as f64 * 1e-9);
        assert_eq!(
            d.quantile_ns(1.0),
            Some(HIGH_NS - 1),
            "the last sub-bucket's top"
        );
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

    #[test]
    fn sub_buckets_tile_the_values_and_are_at_most_a_1024th_of_them_wide() {
        assert_eq!(index(HIGH_NS - 1), LEN - 1);
        let mut next = 0u64;
        for i in 0..LEN {
            let (low, high) = range(i);
            assert_eq!(low, next, "sub-bucket {i} starts where the last ended");
            assert_eq!(index(low), i);
            assert_eq!(index(high), i);
            assert!(
                low < 2048 || (high - low + 1) * 1024 <= low,
                "{i}: {low}..{high}"
            );
            next = high + 1;
        }
        assert_eq!(next, HIGH_NS);
    }

    #[test]
    fn only_the_chunks_that_hold_samples_are_allocated() {
        let mut d = Delays::default();
        for k in 0..1000u64 {
            d.record(40_000_000 + k * 10_000); // 40 … 50 ms: within one power of two
        }
        let chunks = &d.table.as_deref().unwrap().chunks;
        assert_eq!(chunks.iter().filter(|c| c.is_some()).count(), 1);
        assert_eq!(d.recorded().map(|(_, c)| u64::from(c)).sum::<u64>(), 1000);
        assert!(d
            .recorded()
            .all(|(i, _)| range(i).1 >= 40_000_000 && range(i).0 <= 50_000_000));
    }
}
