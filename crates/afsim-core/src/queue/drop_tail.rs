//! Drop-tail FIFO, limited in packets or in bytes.
//!
//! Source: the default router queue of every paper here (ns-2 `DropTail`; in packet mode
//! ns-2's `limit_` counts packets, in byte mode the check is "would this packet exceed the byte
//! limit", as `queue-in-bytes_`). An arrival that does not fit is dropped (`Overflow`).
//!
//! Not modelled: drop-front, shared buffers across ports.

use crate::net::packet::{PacketId, Pool};
use crate::queue::DropReason;
use crate::queue::Limit;
use crate::sim::ring::Ring;
use crate::sim::rng::Rng;
use crate::sim::time::SimTime;

/// `DropTail::limit`'s flag of a byte limit.
const BYTES: u64 = 1 << 63;

#[derive(Debug)]
pub struct DropTail {
    /// The limit in one word: packets, or bytes with `BYTES` set (a byte limit of 2^63 or
    /// more, beyond any queue that can exist, kept as 2^63 − 1). So the queue is 48 bytes, and
    /// the ports' queue enum (`AnyQueue`) has an explicit tag, cheaper to test per packet than
    /// the one folded into `Limit`'s, at the size it had before (issue 25).
    limit: u64,
    fifo: Ring<PacketId>,
    bytes: u64,
}

impl DropTail {
    /// The FIFO starts empty and grows to its working size (it never shrinks): a network of
    /// 100,000 hosts has 400,000 ports, most of which never hold more than a few packets, and
    /// reserving each one's limit up front cost 4 kB a port (issue 28).
    pub fn new(limit: Limit) -> Self {
        DropTail {
            limit: match limit {
                Limit::Packets(n) => u64::from(n),
                Limit::Bytes(b) => BYTES | b.min(BYTES - 1),
            },
            fifo: Ring::new(),
            bytes: 0,
        }
    }

    #[inline]
    pub fn enqueue(
        &mut self,
        _now: SimTime,
        id: PacketId,
        pool: &mut Pool,
        _rng: &mut Rng,
    ) -> Result<(), DropReason> {
        self.push(id, pool)
    }

    /// `enqueue` without a random stream (drop-tail never draws one).
    #[inline(always)]
    pub fn push(&mut self, id: PacketId, pool: &mut Pool) -> Result<(), DropReason> {
        let size = u64::from(pool.get(id).size);
        let fits = if self.limit & BYTES == 0 {
            (self.fifo.len() as u64) < self.limit
        } else {
            self.bytes + size <= self.limit & !BYTES
        };
        if !fits {
            return Err(DropReason::Overflow);
        }
        self.bytes += size;
        self.fifo.push_back(id);
        Ok(())
    }

    /// Whether a packet of `size` bytes would fit were the queue empty (`World::enqueue` sends
    /// an arrival at an empty queue and an idle transmitter straight on, if so).
    #[inline]
    pub fn fits_when_empty(&self, size: u64) -> bool {
        if self.limit & BYTES == 0 {
            self.limit > 0
        } else {
            size <= self.limit & !BYTES
        }
    }

    #[inline]
    pub fn dequeue(&mut self, _now: SimTime, pool: &mut Pool) -> Option<PacketId> {
        let id = self.fifo.pop_front()?;
        self.bytes -= u64::from(pool.get(id).size);
        Some(id)
    }

    /// The packets queued now, head first (for end-of-run accounting).
    pub fn queued(&self) -> &Ring<PacketId> {
        &self.fifo
    }

    #[inline]
    pub fn len_packets(&self) -> usize {
        self.fifo.len()
    }

    #[inline]
    pub fn len_bytes(&self) -> u64 {
        self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::Packet;
    use crate::sim::rng::stream;

    fn pkt(pool: &mut Pool, size: u32) -> PacketId {
        pool.alloc(Packet {
            size,
            ..Default::default()
        })
    }

    #[test]
    fn packet_limit_drops_the_arrival_that_does_not_fit() {
        let mut pool = Pool::new();
        let mut rng = stream(1, "q");
        let mut q = DropTail::new(Limit::Packets(2));
        let t = SimTime::ZERO;
        let (a, b, c) = (
            pkt(&mut pool, 100),
            pkt(&mut pool, 100),
            pkt(&mut pool, 100),
        );
        assert_eq!(q.enqueue(t, a, &mut pool, &mut rng), Ok(()));
        assert_eq!(q.enqueue(t, b, &mut pool, &mut rng), Ok(()));
        assert_eq!(
            q.enqueue(t, c, &mut pool, &mut rng),
            Err(DropReason::Overflow)
        );
        assert_eq!(q.dequeue(t, &mut pool), Some(a), "first in, first out");
        assert_eq!(q.len_bytes(), 100);
    }

    #[test]
    fn the_largest_byte_limit_takes_everything_and_the_queue_stays_small() {
        let mut pool = Pool::new();
        let mut rng = stream(1, "q");
        let mut q = DropTail::new(Limit::Bytes(u64::MAX));
        for _ in 0..100 {
            let p = pkt(&mut pool, 1500);
            assert_eq!(q.enqueue(SimTime::ZERO, p, &mut pool, &mut rng), Ok(()));
        }
        assert_eq!(q.len_bytes(), 150_000);
        assert!(std::mem::size_of::<DropTail>() <= 48);
    }

    #[test]
    fn byte_limit_counts_bytes_not_packets() {
        let mut pool = Pool::new();
        let mut rng = stream(1, "q");
        let mut q = DropTail::new(Limit::Bytes(1000));
        let t = SimTime::ZERO;
        let big = pkt(&mut pool, 900);
        let small = pkt(&mut pool, 100);
        let one_more = pkt(&mut pool, 1);
        assert!(q.enqueue(t, big, &mut pool, &mut rng).is_ok());
        assert!(
            q.enqueue(t, small, &mut pool, &mut rng).is_ok(),
            "exactly at the limit fits"
        );
        assert_eq!(
            q.enqueue(t, one_more, &mut pool, &mut rng),
            Err(DropReason::Overflow)
        );
        assert_eq!(q.len_packets(), 2);
    }
}
