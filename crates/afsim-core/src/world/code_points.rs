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

use crate::queue::DropReason;

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

/// The counts of a port: (key, counts) for each (reverse, DSCP) seen, key `64 × reverse +
/// DSCP`, in order of first sight.
#[derive(Clone, Debug, Default)]
pub struct ByCodePoint {
    counts: Vec<(u8, CpCounts)>,
}

impl ByCodePoint {
    #[inline]
    fn entry(&mut self, rev: bool, dscp: u8) -> &mut CpCounts {
        let key = (dscp & 63) | (u8::from(rev) << 6);
        // (the first entry is nearly always the one: a port sees one or two code points)
        let i = if self.counts.first().is_some_and(|e| e.0 == key) {
            0
        } else {
            match self.counts.iter().position(|e| e.0 == key) {
                Some(i) => i,
                None => self.add(key),
            }
        };
        debug_assert!(i < self.counts.len());
        // SAFETY: `i` is the position of an entry of `counts` (0 if there is a first), or the
        // index `add` returns of the entry it pushed (its length - 1): in bounds (issue 25: the
        // check per hop).
        unsafe { &mut self.counts.get_unchecked_mut(i).1 }
    }

    /// A new entry for `key`, its index; the list grows by one (at most 128 entries).
    #[cold]
    fn add(&mut self, key: u8) -> usize {
        self.counts.reserve_exact(1);
        self.counts.push((key, CpCounts::default()));
        self.counts.len() - 1
    }

    #[inline]
    pub fn arrival(&mut self, rev: bool, dscp: u8) {
        self.entry(rev, dscp).arrivals += 1;
    }

    #[inline]
    pub fn drop(&mut self, rev: bool, dscp: u8, reason: DropReason) {
        let c = self.entry(rev, dscp);
        // a queue refuses a packet only when full or by its early decision
        // (`DropReason::QUEUE`)
        match reason {
            DropReason::Overflow => c.drops_overflow += 1,
            _ => c.drops_early += 1,
        }
    }

    /// An ECN mark the queue put on an arriving packet (watched ports only).
    pub fn mark(&mut self, rev: bool, dscp: u8) {
        self.entry(rev, dscp).ecn_marks += 1;
    }

    /// Every key's cumulative arrivals, overflow drops, early drops and ECN marks, in order
    /// of first sight (for `metrics::series::CodePointSeries`).
    pub fn cumulative(&self) -> Vec<(u8, [u64; 4])> {
        self.counts
            .iter()
            .map(|(k, c)| {
                (
                    *k,
                    [c.arrivals, c.drops_overflow, c.drops_early, c.ecn_marks],
                )
            })
            .collect()
    }

    /// Every (reverse, DSCP) that saw a packet, forward first, each by code point.
    /// How many rows `rows` returns.
    pub fn rows_len(&self) -> usize {
        self.counts.iter().filter(|e| e.1.arrivals > 0).count()
    }

    pub fn rows(&self) -> Vec<(bool, u8, CpCounts)> {
        let mut seen: Vec<(u8, CpCounts)> = self
            .counts
            .iter()
            .copied()
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

    #[test]
    fn directions_and_code_points_are_counted_apart() {
        let mut b = ByCodePoint::default();
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
    }

    #[test]
    fn all_128_keys_are_kept_apart_in_key_order() {
        let mut b = ByCodePoint::default();
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
}
