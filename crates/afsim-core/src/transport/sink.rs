//! A sink that absorbs packets. The engine counts deliveries per flow before calling it;
//! the sink itself keeps the highest UDP sequence number seen, to count reordering.

use crate::net::packet::Packet;
use crate::transport::Ctx;

#[derive(Debug, Default)]
pub struct Sink {
    pub flow: u32,
    next_expected: u64,
    /// Packets that arrived with a lower sequence number than one seen before.
    pub reordered: u64,
}

impl Sink {
    pub fn new(flow: u32) -> Self {
        Sink {
            flow,
            ..Default::default()
        }
    }

    #[inline]
    pub fn on_packet(&mut self, p: &Packet, _ctx: &mut Ctx) {
        self.on_seq(p.th.seq);
    }

    /// `on_packet` of a packet with sequence number `seq` (all a sink reads; the world
    /// delivers to a sink through this, without a `Ctx`: issue 25).
    #[inline(always)]
    pub fn on_seq(&mut self, seq: u64) {
        if seq < self.next_expected {
            self.reordered += 1;
        } else {
            self.next_expected = seq + 1;
        }
    }
}
