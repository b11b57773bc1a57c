//! A port's propagation line: the packets being transmitted or propagating, first in first
//! out (their arrival instants at the far end, non-decreasing as the delay is constant, are
//! kept by the pool: `Pool::wire_at`).
//!
//! Read this first: the first three packets are kept inline, in the port's first cache lines,
//! and any more in a ring (`sim::ring::Ring`) behind a pointer, made the first time a fourth is
//! on the wire (issue 28, branch scale7). At thousands of flows a host's access link has one
//! to three packets on its wire at a time, and a ring of its own (a heap block) cost a cache
//! miss on every transmission; now the port's own lines hold them. A busy port (a bottleneck)
//! has its ring as before, one pointer further. The ring, once made, stays (rings never
//! shrink); it is empty whenever the inline slots are not all taken.

use crate::net::packet::PacketId;
use crate::sim::ring::Ring;

/// Packets kept inline.
const INLINE: usize = 3;

/// See the module. 24 bytes.
#[derive(Debug, Default)]
pub(super) struct Line {
    /// The packets after the first `INLINE`, if there ever were more.
    rest: Option<Box<Ring<PacketId>>>,
    /// The first `len` packets, front first.
    ids: [PacketId; INLINE],
    len: u8,
}

impl Line {
    #[inline(always)]
    pub(super) fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Packets on the line.
    pub(super) fn len(&self) -> usize {
        usize::from(self.len) + self.rest.as_ref().map_or(0, |r| r.len())
    }

    #[inline(always)]
    pub(super) fn push_back(&mut self, id: PacketId) {
        let n = usize::from(self.len);
        if n < INLINE {
            debug_assert!(self.rest.as_ref().is_none_or(|r| r.is_empty()));
            // SAFETY: `n < INLINE`, the array's length
            unsafe { *self.ids.get_unchecked_mut(n) = id };
            self.len += 1;
        } else {
            match self.rest.as_deref_mut() {
                Some(rest) => rest.push_back(id),
                None => self.first_of_rest(id),
            }
        }
    }

    /// `push_back` of the first packet beyond the inline slots: the ring made. (Out of line,
    /// once a port, so that the packet path's copies of `push_back` stay small: left to the
    /// inliner, `Option::get_or_insert_with` became a call on every push to the ring, issue 25.)
    #[cold]
    #[inline(never)]
    fn first_of_rest(&mut self, id: PacketId) {
        let mut rest = Box::<Ring<PacketId>>::default();
        rest.push_back(id);
        self.rest = Some(rest);
    }

    /// Takes the first packet; and the one after it, now the first, if any.
    #[inline(always)]
    pub(super) fn pop_front(&mut self) -> Option<(PacketId, Option<PacketId>)> {
        if self.len == 0 {
            return None;
        }
        let first = self.ids[0];
        self.ids.copy_within(1.., 0);
        // the first of the ring, if any, takes the last inline slot (the ring holds packets
        // only while the slots are all taken)
        if self.len as usize == INLINE {
            if let Some(id) = self.rest.as_deref_mut().and_then(Ring::pop_front) {
                self.ids[INLINE - 1] = id;
                return Some((first, Some(self.ids[0])));
            }
        }
        self.len -= 1;
        Some((first, (self.len > 0).then_some(self.ids[0])))
    }

    /// The first packet.
    #[cfg(test)]
    fn front(&self) -> Option<PacketId> {
        (self.len > 0).then_some(self.ids[0])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::{Packet, Pool};
    use std::collections::VecDeque;

    /// Against `VecDeque`, through phases that fill and drain the line.
    #[test]
    fn behaves_as_a_fifo() {
        let mut line = Line::default();
        let mut v = VecDeque::new();
        let mut pool = Pool::new();
        let mut x = 0x9E37_79B9u32;
        for step in 0..20_000u32 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            // phases that grow, hold and drain the line, and some that stay short
            let push_odds = match (step / 1000) % 4 {
                0 => 3,
                1 => 2,
                2 => 1,
                _ => u32::from(v.len() < 3) * 2,
            };
            if x % 4 < push_odds {
                let id = pool.alloc(Packet::default());
                line.push_back(id);
                v.push_back(id);
            } else {
                let popped = line.pop_front();
                assert_eq!(popped.map(|p| p.0), v.pop_front(), "step {step}");
                assert_eq!(popped.and_then(|p| p.1), v.front().copied(), "step {step}");
            }
            assert_eq!(line.len(), v.len());
            assert_eq!(line.is_empty(), v.is_empty());
            assert_eq!(line.front(), v.front().copied());
        }
    }

    #[test]
    fn three_packets_at_a_time_need_no_ring() {
        let mut line = Line::default();
        let mut pool = Pool::new();
        for _ in 0..10 {
            let ids: Vec<PacketId> = (0..3).map(|_| pool.alloc(Packet::default())).collect();
            for &id in &ids {
                line.push_back(id);
            }
            assert_eq!(line.len(), 3);
            for &id in &ids {
                assert_eq!(line.pop_front().map(|p| p.0), Some(id));
            }
            assert!(line.is_empty() && line.pop_front().is_none());
        }
        assert!(line.rest.is_none());
        assert_eq!(std::mem::size_of::<Line>(), 24);
    }
}
