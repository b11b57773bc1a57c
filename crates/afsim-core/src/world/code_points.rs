//! A port's counts by code point: arrivals and drops of each DSCP, with the reverse
//! direction's packets (TCP ACKs, TFRC feedback) apart. Departures are not counted: the report
//! derives them (arrivals − drops − still queued) and checks their sum per level against the
//! level's own departure counter, which keeps the transmitter's path free of this table.
//!
//! Read this first: the colour table folds code points into drop-precedence levels, so a
//! queue's level 2 holds AF13, best effort and ACKs alike (issue 27); these counts keep them
//! apart for the report's `code_points` table. The counts are an array indexed by
//! (direction, DSCP): an arrival costs an index and an increment.

use crate::queue::DropReason;

/// Counts of one (direction, code point) at one port.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CpCounts {
    pub arrivals: u64,
    pub drops_overflow: u64,
    pub drops_early: u64,
}

/// The counts of a port, indexed by (reverse, DSCP): `64 × reverse + DSCP`.
#[derive(Clone, Debug)]
pub struct ByCodePoint {
    counts: Box<[CpCounts; 128]>,
}

impl Default for ByCodePoint {
    fn default() -> Self {
        ByCodePoint {
            counts: Box::new([CpCounts::default(); 128]),
        }
    }
}

impl ByCodePoint {
    #[inline]
    fn entry(&mut self, rev: bool, dscp: u8) -> &mut CpCounts {
        &mut self.counts[usize::from(dscp & 63) | (usize::from(rev) << 6)]
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

    /// Every (reverse, DSCP) that saw a packet, forward first, each by code point.
    pub fn rows(&self) -> Vec<(bool, u8, CpCounts)> {
        (0..128)
            .filter(|&k| self.counts[k].arrivals > 0)
            .map(|k| (k >= 64, (k & 63) as u8, self.counts[k]))
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
}
