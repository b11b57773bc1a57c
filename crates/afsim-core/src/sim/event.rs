//! The event queue: a binary heap keyed by (time, sequence number).
//!
//! Read this first: events scheduled for the same instant leave in the order they were
//! scheduled (the sequence number breaks ties, first-in first-out), so a run is a pure function
//! of its scenario and seed. Events are a small `Copy` enum; what they refer to (a port, an
//! agent) is an index into the world, and packets travel as pool indices, so an entry is 24
//! bytes and scheduling allocates nothing once the heap has grown to its working size.
//! Cancelling is lazy: a timer event carries a token its owner compares with its current one.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use crate::sim::time::SimTime;

/// Everything that can happen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// The transmitter of `port` finished putting its packet on the wire.
    TxDone { port: u32 },
    /// The packet at the head of `port`'s propagation line reaches the far node.
    Arrive { port: u32 },
    /// A timer set by an agent; `token` lets the agent ignore timers it has since re-armed.
    Timer { agent: u32, token: u32 },
    /// The measured interval begins (counters that need a snapshot take it).
    Warmup,
    /// Edge conditioner `cond` may release the packet it holds at the head of its FIFO.
    Wake { cond: u32 },
    /// A timer of Congestion Signaling Algorithm `csa` (T2) is due.
    CsaTimer { csa: u32 },
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    /// time in the high 64 bits, sequence number in the low 64: one integer comparison.
    key: u128,
    event: Event,
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    fn cmp(&self, other: &Self) -> Ordering {
        // BinaryHeap is a max-heap: the earliest key must compare greatest.
        other.key.cmp(&self.key)
    }
}

/// Pending events in (time, scheduling order).
#[derive(Debug, Default)]
pub struct EventQueue {
    heap: BinaryHeap<Entry>,
    seq: u64,
}

impl EventQueue {
    pub fn new() -> Self {
        Self::default()
    }

    #[inline]
    pub fn schedule(&mut self, at: SimTime, event: Event) {
        let key = (u128::from(at.0) << 64) | u128::from(self.seq);
        self.seq += 1;
        self.heap.push(Entry { key, event });
    }

    /// Removes and returns the earliest event.
    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, Event)> {
        self.heap.pop().map(|e| (SimTime((e.key >> 64) as u64), e.event))
    }

    /// Time of the earliest event, without removing it.
    #[inline]
    pub fn peek_time(&self) -> Option<SimTime> {
        self.heap.peek().map(|e| SimTime((e.key >> 64) as u64))
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_leave_in_time_order() {
        let mut q = EventQueue::new();
        q.schedule(SimTime(30), Event::TxDone { port: 3 });
        q.schedule(SimTime(10), Event::TxDone { port: 1 });
        q.schedule(SimTime(20), Event::TxDone { port: 2 });
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).map(|(t, _)| t.0).collect();
        assert_eq!(order, vec![10, 20, 30]);
    }

    #[test]
    fn ties_leave_first_in_first_out() {
        let mut q = EventQueue::new();
        for port in 0..100 {
            q.schedule(SimTime(5), Event::Arrive { port });
        }
        for port in 0..100 {
            assert_eq!(q.pop(), Some((SimTime(5), Event::Arrive { port })));
        }
        assert!(q.is_empty());
    }

    #[test]
    fn fifo_ties_hold_when_interleaved_with_earlier_events() {
        let mut q = EventQueue::new();
        q.schedule(SimTime(7), Event::Timer { agent: 1, token: 0 });
        q.schedule(SimTime(3), Event::Timer { agent: 9, token: 0 });
        q.schedule(SimTime(7), Event::Timer { agent: 2, token: 0 });
        assert_eq!(q.peek_time(), Some(SimTime(3)));
        q.pop();
        assert_eq!(q.pop().unwrap().1, Event::Timer { agent: 1, token: 0 });
        assert_eq!(q.pop().unwrap().1, Event::Timer { agent: 2, token: 0 });
    }
}
