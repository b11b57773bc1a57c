//! A port's counts by code point: arrivals and drops of each DSCP, with the reverse
//! direction's packets (TCP ACKs, TFRC feedback) apart. Departures are not counted: the report
//! derives them (arrivals − drops − still queued) and checks their sum per level against the
//! level's own departure counter, which keeps the transmitter's path free of this table.
//!
//! Read this first: the colour table folds code points into drop-precedence levels, so a
//! queue's level 2 holds AF13, best effort and ACKs alike (issue 27); these counts keep them
//! apart for the report's `code_points` table. A port sees few code points (one or two on a
//! host's access link: its data, or the ACKs coming back), so the counts are a short list of
//! (direction, DSCP) entries searched in order, not an array of all 128: the array took
//! 3 KiB a port, 12 KiB a flow at 100,000 flows (issue 28), the list 32 bytes an entry.
//!
//! The first key a port sees is not in the list (issue 28, branch scale7): the port keeps
//! only the key, in its first cache line (`Port::cp_first`), and its counts are the port's
//! totals (`QueueStats`: every arrival and queue drop at a port is counted there and here)
//! less those of the listed keys. A port that only ever sees one code point, as most of a
//! large network's do, so counts nothing here per packet, and owns no list (a heap block, a
//! cache line more per packet-hop at thousands of flows). `list_first` moves the first key's
//! counts into the list, at its head (first sight comes first), for the report and for the
//! ports whose counts are read while the run goes on (monitored ports: `World::build`);
//! `FIRST_LISTED` says it was done (every key's counts in the list), `FIRST_NONE` that no packet
//! came yet.

use crate::queue::{DropReason, QueueStats};

/// `Port::cp_first` of a port that has seen no packet.
pub const FIRST_NONE: u8 = 0xFF;
/// `Port::cp_first` of a port whose every key, the first included, is in the list.
pub const FIRST_LISTED: u8 = 0xFE;

/// Counts of one (direction, code point) at one port.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CpCounts {
    pub arrivals: u64,
    pub drops_overflow: u64,
    pub drops_early: u64,
    /// ECN marks the queue put on its packets; counted only at ports a `[[monitor]] kind =
    /// "queue"` watches (`run::watch_arrival`), 0 elsewhere.
    pub ecn_marks: u64,
}

/// The key of a (direction, code point): `64 × reverse + DSCP`.
#[inline(always)]
fn key(rev: bool, dscp: u8) -> u8 {
    (dscp & 63) | (u8::from(rev) << 6)
}

/// The listed counts of a port: (key, counts) for each (reverse, DSCP) seen but the first
/// (see the module), in order of first sight.
#[derive(Clone, Debug, Default)]
pub struct ByCodePoint {
    counts: Vec<(u8, CpCounts)>,
}

impl ByCodePoint {
    /// The listed entry of `key`, made if new.
    #[inline]
    fn entry(&mut self, key: u8) -> &mut CpCounts {
        let i = match self.counts.iter().position(|e| e.0 == key) {
            Some(i) => i,
            None => self.add(key),
        };
        debug_assert!(i < self.counts.len());
        // SAFETY: `i` is the position of an entry of `counts`, or the index `add` returns of
        // the entry it pushed (its length - 1): in bounds (issue 25: the check per hop).
        unsafe { &mut self.counts.get_unchecked_mut(i).1 }
    }

    /// A new entry for `key`, its index; the list grows by one (at most 128 entries).
    #[cold]
    fn add(&mut self, key: u8) -> usize {
        self.counts.reserve_exact(1);
        self.counts.push((key, CpCounts::default()));
        self.counts.len() - 1
    }

    /// An arrival; `first` is the port's first key (`Port::cp_first`). One comparison when it
    /// is the first key's.
    #[inline(always)]
    pub fn arrival(&mut self, first: &mut u8, rev: bool, dscp: u8) {
        let k = key(rev, dscp);
        if k != *first {
            self.arrival_listed(first, k);
        }
    }

    #[inline]
    fn arrival_listed(&mut self, first: &mut u8, k: u8) {
        if *first == FIRST_NONE {
            *first = k;
        } else {
            self.entry(k).arrivals += 1;
        }
    }

    /// A queue drop of an arrival counted by `arrival`.
    #[inline]
    pub fn drop(&mut self, first: u8, rev: bool, dscp: u8, reason: DropReason) {
        let k = key(rev, dscp);
        if k == first {
            return; // in the port's totals
        }
        let c = self.entry(k);
        // a queue refuses a packet only when full or by its early decision
        // (`DropReason::QUEUE`)
        match reason {
            DropReason::Overflow => c.drops_overflow += 1,
            _ => c.drops_early += 1,
        }
    }

    /// An ECN mark the queue put on an arriving packet (watched ports only, whose first key is
    /// listed from the start: `World::build`).
    pub fn mark(&mut self, first: &mut u8, stats: &QueueStats, rev: bool, dscp: u8) {
        if key(rev, dscp) == *first {
            self.list_first(first, stats);
        }
        self.entry(key(rev, dscp)).ecn_marks += 1;
    }

    /// The first key's counts: the port's totals less the listed keys'.
    fn first_counts(&self, stats: &QueueStats) -> CpCounts {
        let mut c = CpCounts {
            arrivals: stats.arrivals,
            drops_overflow: stats.drops[DropReason::Overflow.index()],
            drops_early: stats.total_drops() - stats.drops[DropReason::Overflow.index()],
            ecn_marks: 0,
        };
        for (_, e) in &self.counts {
            c.arrivals -= e.arrivals;
            c.drops_overflow -= e.drops_overflow;
            c.drops_early -= e.drops_early;
        }
        c
    }

    /// Puts the first key's counts at the head of the list, which then holds every key's;
    /// `first` becomes `FIRST_LISTED`. Exact at any moment: the totals and the list are
    /// counted together.
    pub fn list_first(&mut self, first: &mut u8, stats: &QueueStats) {
        if *first != FIRST_NONE && *first != FIRST_LISTED {
            let c = self.first_counts(stats);
            self.counts.insert(0, (*first, c));
        }
        *first = FIRST_LISTED;
    }

    /// Every key's (key, counts), in order of first sight.
    fn all(&self, first: u8, stats: &QueueStats) -> Vec<(u8, CpCounts)> {
        let mut v = Vec::with_capacity(self.counts.len() + 1);
        if first != FIRST_NONE && first != FIRST_LISTED {
            v.push((first, self.first_counts(stats)));
        }
        v.extend_from_slice(&self.counts);
        v
    }

    /// Every key's cumulative arrivals, overflow drops, early drops and ECN marks, in order
    /// of first sight (for `metrics::series::CodePointSeries`).
    pub fn cumulative(&self, first: u8, stats: &QueueStats) -> Vec<(u8, [u64; 4])> {
        self.all(first, stats)
            .into_iter()
            .map(|(k, c)| {
                (
                    k,
                    [c.arrivals, c.drops_overflow, c.drops_early, c.ecn_marks],
                )
            })
            .collect()
    }

    /// How many rows `rows` returns.
    pub fn rows_len(&self, first: u8) -> usize {
        // (a first key not listed saw its arrival)
        usize::from(first != FIRST_NONE && first != FIRST_LISTED)
            + self.counts.iter().filter(|e| e.1.arrivals > 0).count()
    }

    /// Every (reverse, DSCP) that saw a packet, forward first, each by code point.
    pub fn rows(&self, first: u8, stats: &QueueStats) -> Vec<(bool, u8, CpCounts)> {
        let mut seen: Vec<(u8, CpCounts)> = self
            .all(first, stats)
            .into_iter()
            .filter(|e| e.1.arrivals > 0)
            .collect();
        seen.sort_unstable_by_key(|e| e.0);
        seen.into_iter()
            .map(|(k, c)| (k >= 64, k & 63, c))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A port's totals and code points counted together, as `World::enqueue` does.
    struct P {
        first: u8,
        stats: QueueStats,
        by: ByCodePoint,
    }

    impl P {
        fn new() -> Self {
            P {
                first: FIRST_NONE,
                stats: QueueStats::with_levels(0),
                by: ByCodePoint::default(),
            }
        }
        fn arrival(&mut self, rev: bool, dscp: u8) {
            self.by.arrival(&mut self.first, rev, dscp);
            self.stats.arrivals += 1;
        }
        fn drop(&mut self, rev: bool, dscp: u8, reason: DropReason) {
            self.stats.drops[reason.index()] += 1;
            self.by.drop(self.first, rev, dscp, reason);
        }
        fn rows(&self) -> Vec<(bool, u8, CpCounts)> {
            self.by.rows(self.first, &self.stats)
        }
    }

    #[test]
    fn directions_and_code_points_are_counted_apart() {
        let mut b = P::new();
        b.arrival(false, 14);
        b.arrival(false, 10);
        b.arrival(true, 0);
        b.arrival(false, 0);
        b.drop(false, 14, DropReason::Early);
        b.drop(true, 0, DropReason::Overflow);
        let rows = b.rows();
        let keys: Vec<(bool, u8)> = rows.iter().map(|r| (r.0, r.1)).collect();
        assert_eq!(keys, [(false, 0), (false, 10), (false, 14), (true, 0)]);
        assert_eq!(rows[1].2.arrivals, 1);
        assert_eq!(rows[2].2.drops_early, 1);
        assert_eq!(rows[3].2.drops_overflow, 1);
        assert_eq!(rows[0].2.arrivals, 1);
        assert_eq!(b.by.rows_len(b.first), 4);
        // the first key (forward 14) is not listed, its counts are the rest of the totals
        assert_eq!(b.first, 14);
        assert_eq!(b.by.counts.len(), 3);
    }

    #[test]
    fn all_128_keys_are_kept_apart_in_key_order() {
        let mut b = P::new();
        // first sight in reverse key order, key k seen k + 1 times
        for k in (0..128u8).rev() {
            for _ in 0..=k {
                b.arrival(k >= 64, k & 63);
            }
        }
        b.drop(true, 63, DropReason::Early);
        let rows = b.rows();
        assert_eq!(rows.len(), 128);
        for (k, r) in rows.iter().enumerate() {
            assert_eq!((r.0, r.1), (k >= 64, (k & 63) as u8));
            assert_eq!(r.2.arrivals, k as u64 + 1);
        }
        assert_eq!(rows[127].2.drops_early, 1);
    }

    /// The first key's counts, derived from the totals, equal a list's that counted every key
    /// (the module's code before branch scale7); listing the first key at any point changes no
    /// count, and the order of first sight is kept.
    #[test]
    fn the_first_key_derived_equals_it_counted() {
        let mut x = 0x2545_F491u32;
        let mut b = P::new();
        let mut reference: Vec<(u8, CpCounts)> = Vec::new();
        for step in 0..5000 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            // mostly the first code point, as on a host's link
            let (rev, dscp) = match x % 16 {
                0 => (true, 0),
                1 => (false, 10),
                2 => (false, 46),
                _ => (false, 14),
            };
            b.arrival(rev, dscp);
            let k = key(rev, dscp);
            let i = match reference.iter().position(|e| e.0 == k) {
                Some(i) => i,
                None => {
                    reference.push((k, CpCounts::default()));
                    reference.len() - 1
                }
            };
            reference[i].1.arrivals += 1;
            match (x >> 8) % 8 {
                0 => {
                    b.drop(rev, dscp, DropReason::Overflow);
                    reference[i].1.drops_overflow += 1;
                }
                1 => {
                    b.drop(rev, dscp, DropReason::Early);
                    reference[i].1.drops_early += 1;
                }
                _ => {}
            }
            if step == 3000 {
                b.by.list_first(&mut b.first, &b.stats);
                assert_eq!(b.first, FIRST_LISTED);
            }
            if step % 250 == 0 {
                let cumulative: Vec<(u8, [u64; 4])> = reference
                    .iter()
                    .map(|(k, c)| (*k, [c.arrivals, c.drops_overflow, c.drops_early, 0]))
                    .collect();
                assert_eq!(
                    b.by.cumulative(b.first, &b.stats),
                    cumulative,
                    "step {step}"
                );
            }
        }
        assert_eq!(b.by.counts, reference);
    }

    #[test]
    fn a_port_without_packets_has_no_rows() {
        let mut b = P::new();
        assert!(b.rows().is_empty());
        assert_eq!(b.by.rows_len(b.first), 0);
        b.by.list_first(&mut b.first, &b.stats);
        assert!(b.rows().is_empty() && b.by.counts.is_empty());
    }
}
