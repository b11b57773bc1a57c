//! Per-flow counters.
//!
//! Identity, per flow and direction: `sent = delivered + dropped + in flight`. Forward
//! (source → sink) packets are the flow's data and define its throughput; reverse packets
//! (ACKs) are counted apart.

use crate::sim::time::SimTime;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct FlowStats {
    pub packets_sent: u64,
    pub bytes_sent: u64,
    pub packets_delivered: u64,
    pub bytes_delivered: u64,
    pub packets_dropped: u64,
    /// Bytes delivered at or after the warm-up time (the measured interval).
    pub bytes_measured: u64,
    pub first_delivery: Option<SimTime>,
    pub last_delivery: Option<SimTime>,
    /// Sum of one-way delays of delivered forward packets, ns.
    pub delay_sum_ns: u128,
    pub rev_sent: u64,
    pub rev_delivered: u64,
    pub rev_dropped: u64,
    /// The source will send nothing more (a finite transfer).
    pub source_done: bool,
    pub completed_at: Option<SimTime>,
}

impl FlowStats {
    #[inline]
    pub fn in_flight(&self) -> u64 {
        self.packets_sent - self.packets_delivered - self.packets_dropped
    }

    #[inline]
    pub fn rev_in_flight(&self) -> u64 {
        self.rev_sent - self.rev_delivered - self.rev_dropped
    }

    /// Records a delivered forward packet.
    #[inline]
    pub fn delivered(&mut self, now: SimTime, size: u32, created: SimTime, warmup: SimTime) {
        self.packets_delivered += 1;
        self.bytes_delivered += u64::from(size);
        if now >= warmup {
            self.bytes_measured += u64::from(size);
        }
        if self.first_delivery.is_none() {
            self.first_delivery = Some(now);
        }
        self.last_delivery = Some(now);
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
        assert_eq!(f.first_delivery, Some(SimTime(500)));
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
