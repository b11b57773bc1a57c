//! A port's counts by code point: arrivals, departures and drops of each DSCP, with the
//! reverse direction's packets (TCP ACKs, TFRC feedback) apart.
//!
//! Read this first: the colour table folds code points into drop-precedence levels, so a
//! queue's level 2 holds AF13, best effort and ACKs alike (issue 27); these counts keep them
//! apart for the report's `code_points` table. A port sees few code points, so the counts are
//! a short list reached through a 128-entry index (`slot`), one byte per (direction, DSCP):
//! a packet costs an index load and an increment.

use crate::queue::DropReason;

/// Counts of one (direction, code point) at one port.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CpCounts {
    pub arrivals: u64,
    pub departures: u64,
    pub drops_overflow: u64,
    pub drops_early: u64,
}

/// The counts of a port, by (reverse, DSCP).
#[derive(Clone, Debug)]
pub struct ByCodePoint {
    /// (reverse, DSCP) → index into `counts`, `u8::MAX` when not seen.
    slot: [u8; 128],
    counts: Vec<(bool, u8, CpCounts)>,
}

impl Default for ByCodePoint {
    fn default() -> Self {
        ByCodePoint {
            slot: [u8::MAX; 128],
            counts: Vec::new(),
        }
    }
}

impl ByCodePoint {
    #[inline]
    fn entry(&mut self, rev: bool, dscp: u8) -> &mut CpCounts {
        let k = usize::from(dscp & 63) + if rev { 64 } else { 0 };
        if self.slot[k] == u8::MAX {
            self.slot[k] = self.counts.len() as u8;
            self.counts.push((rev, dscp & 63, CpCounts::default()));
        }
        &mut self.counts[usize::from(self.slot[k])].2
    }

    #[inline]
    pub fn arrival(&mut self, rev: bool, dscp: u8) {
        self.entry(rev, dscp).arrivals += 1;
    }

    #[inline]
    pub fn departure(&mut self, rev: bool, dscp: u8) {
        self.entry(rev, dscp).departures += 1;
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

    /// Every (reverse, DSCP) seen, forward first, each by code point.
    pub fn rows(&self) -> Vec<(bool, u8, CpCounts)> {
        let mut v = self.counts.clone();
        v.sort_by_key(|&(rev, d, _)| (rev, d));
        v
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
        b.departure(false, 10);
        b.drop(false, 14, DropReason::Early);
        b.drop(true, 0, DropReason::Overflow);
        let rows = b.rows();
        let keys: Vec<(bool, u8)> = rows.iter().map(|r| (r.0, r.1)).collect();
        assert_eq!(keys, [(false, 0), (false, 10), (false, 14), (true, 0)]);
        assert_eq!(rows[1].2.departures, 1);
        assert_eq!(rows[2].2.drops_early, 1);
        assert_eq!(rows[3].2.drops_overflow, 1);
        assert_eq!(rows[0].2.arrivals, 1);
    }
}
