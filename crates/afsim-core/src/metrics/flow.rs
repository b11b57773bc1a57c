//! Per-flow counters.
//!
//! Identity, per flow and direction: `sent = delivered + dropped + in flight`. Forward
//! (source → sink) packets are the flow's data and define its throughput; reverse packets
//! (ACKs) are counted apart.

use crate::sim::lazy_timer::LazyTimer;
use crate::sim::time::SimTime;

/// A flow's counters, in three 64-byte lines (issue 28; docs/performance.md, "Tenth round"):
/// at thousands of flows a flow's record is out of the caches when its next packet comes, and
/// each line a packet touches is a miss. The first line is the source's side, what an agent
/// call at the source writes (`packets_sent`, `bytes_sent`, the retransmission timer `retx`)
/// and an ACK's delivery to it (`rev_delivered`), with the drops; the second the sink's side,
/// what a data delivery writes (`delivered`) and the sink's ACK (`rev_sent`); the third the
/// completion of a finite transfer. (144 bytes at a 144-byte stride before: a record on three
/// lines, both sides on each.) The offsets are checked below.
#[derive(Clone, Debug, Default, PartialEq)]
#[repr(C, align(64))]
pub struct FlowStats {
    // ---- line 0: the source's side
    pub packets_sent: u64,
    pub bytes_sent: u64,
    pub rev_delivered: u64,
    pub packets_dropped: u64,
    pub rev_dropped: u64,
    /// Not a counter: the retransmission timer of the flow's TCP sender (`sim::lazy_timer`;
    /// idle for other sources), here because the sender moves it on every ACK, whose delivery
    /// writes this line, and its early events are answered from it alone.
    pub retx: LazyTimer,
    // ---- line 1: the sink's side
    pub packets_delivered: u64,
    pub bytes_delivered: u64,
    /// Bytes delivered at or after the warm-up time (the measured interval).
    pub bytes_measured: u64,
    /// The first and the last delivery's times, meaningful once `packets_delivered > 0` (both
    /// are written by every delivery, the first by the first: `first_delivery` and
    /// `last_delivery` give them as options, `None` before it).
    first_delivery_at: SimTime,
    last_delivery_at: SimTime,
    pub rev_sent: u64,
    /// Sum of one-way delays of delivered forward packets, ns.
    pub delay_sum_ns: u128,
    // ---- line 2: a finite transfer's end
    pub completed_at: Option<SimTime>,
    /// The source will send nothing more (a finite transfer).
    pub source_done: bool,
}

const _: () = {
    use std::mem::{align_of, offset_of, size_of};
    assert!(size_of::<FlowStats>() == 192 && align_of::<FlowStats>() == 64);
    // the source's side in the first line
    assert!(offset_of!(FlowStats, packets_sent) < 64 && offset_of!(FlowStats, bytes_sent) < 64);
    assert!(offset_of!(FlowStats, rev_delivered) < 64);
    assert!(offset_of!(FlowStats, retx) + size_of::<LazyTimer>() == 64);
    // the sink's side in the second
    assert!(offset_of!(FlowStats, packets_delivered) == 64);
    assert!(offset_of!(FlowStats, rev_sent) >= 64);
    assert!(offset_of!(FlowStats, delay_sum_ns) == 112);
    assert!(offset_of!(FlowStats, completed_at) == 128);
};

impl FlowStats {
    #[inline]
    pub fn in_flight(&self) -> u64 {
        self.packets_sent - self.packets_delivered - self.packets_dropped
    }

    #[inline]
    pub fn rev_in_flight(&self) -> u64 {
        self.rev_sent - self.rev_delivered - self.rev_dropped
    }

    /// The time of the first delivered forward packet, if any.
    #[inline]
    pub fn first_delivery(&self) -> Option<SimTime> {
        (self.packets_delivered > 0).then_some(self.first_delivery_at)
    }

    /// The time of the last delivered forward packet, if any.
    #[inline]
    pub fn last_delivery(&self) -> Option<SimTime> {
        (self.packets_delivered > 0).then_some(self.last_delivery_at)
    }

    /// Records a delivered forward packet.
    #[inline]
    pub fn delivered(&mut self, now: SimTime, size: u32, created: SimTime, warmup: SimTime) {
        if self.packets_delivered == 0 {
            self.first_delivery_at = now;
        }
        self.packets_delivered += 1;
        self.bytes_delivered += u64::from(size);
        if now >= warmup {
            self.bytes_measured += u64::from(size);
        }
        self.last_delivery_at = now;
        self.delay_sum_ns += u128::from(now.0 - created.0);
    }

    /// A finite transfer completes when its source is done and nothing of it is in flight.
    #[inline]
    pub fn check_complete(&mut self, now: SimTime) -> bool {
        if self.completed_at.is_none() && self.source_done && self.in_flight() == 0 {
            self.completed_at = Some(now);
            return true;
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_deliveries_after_warmup_are_measured() {
        let mut f = FlowStats {
            packets_sent: 2,
            ..Default::default()
        };
        let warm = SimTime(1_000);
        f.delivered(SimTime(500), 100, SimTime(0), warm);
        f.delivered(SimTime(1_500), 100, SimTime(1_000), warm);
        assert_eq!(f.bytes_delivered, 200);
        assert_eq!(f.bytes_measured, 100);
        assert_eq!(f.first_delivery(), Some(SimTime(500)));
        assert_eq!(f.last_delivery(), Some(SimTime(1_500)));
        assert_eq!(FlowStats::default().first_delivery(), None);
        assert_eq!(FlowStats::default().last_delivery(), None);
        assert_eq!(f.delay_sum_ns, 1_000);
    }

    #[test]
    fn a_finite_transfer_completes_when_the_last_packet_is_accounted_for() {
        let mut f = FlowStats {
            packets_sent: 2,
            source_done: true,
            ..Default::default()
        };
        f.delivered(SimTime(10), 100, SimTime(0), SimTime(0));
        assert!(!f.check_complete(SimTime(10)));
        f.packets_dropped += 1;
        assert!(f.check_complete(SimTime(20)));
        assert_eq!(f.completed_at, Some(SimTime(20)));
        assert!(!f.check_complete(SimTime(30)), "completes once");
    }
}
