//! The packet: IPv4-like header fields plus the transport header, and the pool that owns them.
//!
//! Read this first: packets live in a `Pool` and move through the engine as `PacketId`s (a
//! `u32` index), so queues and events hold four bytes, not the packet, and the steady state
//! allocates nothing (freed slots are reused). The pool also counts live packets, the "in
//! flight" term of the conservation identity.
//!
//! Not modelled: IP options, fragmentation, TTL (routes are checked loop-free instead).

use crate::sim::time::{SimDuration, SimTime};

/// A packet's place in the `Pool` that made it: only `Pool::alloc` makes one (the field is
/// private), as an index below the number of slots, and slots are never removed, so an id
/// indexes a slot of its pool for as long as the pool lives (after `Pool::free` the slot may
/// hold another packet, but it is a slot). `PacketId::default()` is slot 0, which every pool
/// has from its creation on. The pool reads without a bounds check on that ground
/// (`Pool::get`); an id is used only with the pool that made it (each world and each live
/// fabric owns one pool, and its ids never leave it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PacketId(u32);

impl PacketId {
    /// The slot index (for tables kept beside the pool, by packet).
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// IP protocol numbers (IANA), for the `protocol` field.
pub mod proto {
    pub const TCP: u8 = 6;
    pub const UDP: u8 = 17;
    /// Control messages (e.g. congestion signals), as ICMP.
    pub const ICMP: u8 = 1;
    /// DCCP (RFC 4340), the datagram transport TFRC runs over (its CCID 3, RFC 4342).
    pub const DCCP: u8 = 33;
}

/// ECN codepoints of the IP header (RFC 3168 §5).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(u8)]
pub enum Ecn {
    #[default]
    NotEct = 0b00,
    Ect1 = 0b01,
    Ect0 = 0b10,
    Ce = 0b11,
}

/// Transport header fields. UDP uses `seq` as a packet counter; TCP uses all of them.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TransportHeader {
    pub src_port: u16,
    pub dst_port: u16,
    /// First byte carried (TCP) or packet number (UDP).
    pub seq: u64,
    /// Cumulative acknowledgement (TCP).
    pub ack: u64,
    /// TCP flags (SYN, ACK, FIN, ECE, CWR, ...), as bits.
    pub flags: u16,
    /// Payload bytes (TCP segment length); zero for pure ACKs.
    pub payload: u32,
    /// What only some packets carry: TCP's SACK blocks or TFRC's fields (never both).
    pub opt: TransportOpt,
}

/// The part of a transport header only some packets carry, in one place (issue 25: the SACK
/// blocks' 49 bytes and TFRC's 40 were on every packet, 152 bytes in all, copied into the
/// pool at each send and out at each delivery by a `memcpy` call; at 120 bytes the copies
/// are inline moves). A packet is TCP or TFRC, never both.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum TransportOpt {
    #[default]
    None,
    /// TCP SACK blocks (RFC 2018 §3), `[left, right)` byte ranges, most recent first; only
    /// the first `len` are meaningful.
    Sack { len: u8, blocks: [(u64, u64); 3] },
    /// TFRC's fields (RFC 5348 §3.2).
    Tfrc(TfrcHeader),
}

impl TransportHeader {
    /// The meaningful SACK blocks (at most three; none on a packet without them).
    #[inline]
    pub fn sack_blocks(&self) -> &[(u64, u64)] {
        match &self.opt {
            TransportOpt::Sack { len, blocks } => &blocks[..usize::from(*len).min(3)],
            _ => &[],
        }
    }

    /// Sets the SACK blocks (the first three of `blocks`; none: no option).
    pub fn set_sack(&mut self, blocks: &[(u64, u64)]) {
        let n = blocks.len().min(3);
        self.opt = if n == 0 {
            TransportOpt::None
        } else {
            let mut b = [(0, 0); 3];
            b[..n].copy_from_slice(&blocks[..n]);
            TransportOpt::Sack {
                len: n as u8,
                blocks: b,
            }
        };
    }

    /// The TFRC fields (`TfrcHeader::None` on a packet without them).
    #[inline]
    pub fn tfrc(&self) -> TfrcHeader {
        match self.opt {
            TransportOpt::Tfrc(h) => h,
            _ => TfrcHeader::None,
        }
    }
}

/// The TFRC fields of a packet (RFC 5348 §3.2); `None` for every other protocol.
///
/// A data packet carries its sequence number in `TransportHeader::seq` and, here, what §3.2.1
/// asks for besides: the time it was sent and the sender's RTT estimate. A feedback packet
/// carries what §3.2.2 asks for: the timestamp of the last data packet received, the time spent
/// at the receiver since it arrived, the receive rate and the loss event rate.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum TfrcHeader {
    #[default]
    None,
    Data {
        /// When the sender sent the packet.
        timestamp: SimTime,
        /// The sender's RTT estimate R; zero before it has one (§3.2.1).
        rtt: SimDuration,
        /// The retransmission timeout the sender puts in its equation (ns-2's `tzero`, which
        /// ns-2's receiver uses for its first loss interval; the RFC receiver uses 4R).
        rto: SimDuration,
        /// How many feedback packets (and no-feedback timer expiries) the sender had seen
        /// when it sent this one: ns-2's `round_id`, which its receiver uses to tell loss
        /// events apart (`PreciseLoss_`). The RFC rules ignore it.
        round: u32,
        /// The sender asks for feedback at once (ns-2's `UrgentFlag`, set until the first
        /// feedback arrives and after a no-feedback timer expiry). The RFC rules ignore it.
        urgent: bool,
    },
    Feedback {
        /// t_recvdata: the timestamp of the last data packet received.
        echo: SimTime,
        /// t_delay: the time between that packet's arrival and this report.
        delay: SimDuration,
        /// X_recv, bytes per second (bytes of segment size s, headers excluded: RFC 5348 §3.1).
        x_recv: f64,
        /// The loss event rate p (§5).
        p: f64,
    },
}

/// One packet in the network.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Packet {
    /// Source and destination node indices (the "addresses").
    pub src: u32,
    pub dst: u32,
    pub protocol: u8,
    /// Differentiated Services code point, 6 bits (RFC 2474).
    pub dscp: u8,
    pub ecn: Ecn,
    /// Size of the IP packet in bytes, headers included; framing is added by the link.
    pub size: u32,
    /// Flow index in the run (`Spec::flows`).
    pub flow: u32,
    /// The agent that receives this packet at `dst`.
    pub dst_agent: u32,
    /// False for the flow's forward direction (source to sink: data), true for the reverse
    /// (sink to source: e.g. TCP ACKs). Per-flow counters keep the two apart.
    pub rev: bool,
    /// When the packet was created by its source.
    pub created: SimTime,
    /// The transport header; TFRC's fields (DCCP packets of `transport::tfrc` only) in its
    /// `opt`.
    pub th: TransportHeader,
}

/// A packet's wire state (`Pool::wire_at`, `Pool::hop`): 16 bytes, four to a cache line.
#[derive(Clone, Copy, Debug, Default)]
#[repr(C)]
struct Wire {
    at: SimTime,
    hop: u32,
}

/// Owns every packet in flight.
#[derive(Debug)]
pub struct Pool {
    /// Never shorter than `issued`, and never empty (slot 0 exists before it is issued, so
    /// that `PacketId::default()` is a slot).
    slots: Vec<Packet>,
    /// Per slot, the instant its packet reaches the far end of the wire it is on (a
    /// simulator port's line, `world::line`; left as it was elsewhere): beside the packets, not
    /// in them (at 120 bytes a packet's copies are inline moves), and not in each port's line
    /// (a heap block a port, a cache miss on each transmission at thousands of flows; issue 28,
    /// branch scale7). With it, what the far end does with the packet (`Wire::hop`). As long
    /// as `slots`.
    wire: Vec<Wire>,
    /// Slots issued so far (ids `0..issued`).
    issued: u32,
    free: Vec<PacketId>,
    live: u64,
}

impl Default for Pool {
    fn default() -> Self {
        Self {
            slots: vec![Packet::default()],
            wire: vec![Wire::default()],
            issued: 0,
            free: Vec::new(),
            live: 0,
        }
    }
}

impl Pool {
    pub fn new() -> Self {
        Self::default()
    }

    /// Stores a packet and returns its id, reusing a freed slot when there is one.
    #[inline]
    pub fn alloc(&mut self, p: Packet) -> PacketId {
        self.live += 1;
        if let Some(id) = self.free.pop() {
            *self.slot_mut(id) = p;
            id
        } else {
            let id = PacketId(self.issued);
            self.issued = self.issued.checked_add(1).expect("fewer than 2^32 packets");
            if id.index() < self.slots.len() {
                self.slots[id.index()] = p;
            } else {
                self.slots.push(p);
                self.wire.push(Wire::default());
            }
            id
        }
    }

    /// Releases a packet's slot. The id must not be used afterwards.
    #[inline]
    pub fn free(&mut self, id: PacketId) {
        debug_assert!(!self.free.contains(&id), "double free of packet {id:?}");
        self.live -= 1;
        self.free.push(id);
    }

    #[inline]
    pub fn get(&self, id: PacketId) -> &Packet {
        debug_assert!(id.index() < self.slots.len(), "{id:?} is not of this pool");
        // SAFETY: an id is made only by this pool's `alloc` (or is `PacketId::default()`, slot
        // 0), as an index below `slots.len()`, which never decreases (see `PacketId`).
        unsafe { self.slots.get_unchecked(id.index()) }
    }

    /// Where packet `id` is kept, for a prefetch (issue 28). Only a hint: nothing is read.
    #[inline(always)]
    pub fn slot_hint(&self, id: PacketId) -> *const Packet {
        self.slots.as_ptr().wrapping_add(id.index())
    }

    #[inline]
    pub fn get_mut(&mut self, id: PacketId) -> &mut Packet {
        self.slot_mut(id)
    }

    #[inline]
    fn slot_mut(&mut self, id: PacketId) -> &mut Packet {
        debug_assert!(id.index() < self.slots.len(), "{id:?} is not of this pool");
        // SAFETY: as `get`.
        unsafe { self.slots.get_unchecked_mut(id.index()) }
    }

    /// The instant packet `id` reaches the far end of its wire (`set_wire_at`).
    #[inline(always)]
    pub fn wire_at(&self, id: PacketId) -> SimTime {
        self.wire(id).at
    }

    #[inline(always)]
    pub fn set_wire_at(&mut self, id: PacketId, at: SimTime) {
        self.wire_mut(id).at = at;
    }

    /// What the far end of packet `id`'s wire does with it, as `set_hop` left it: the caller's
    /// code (the simulator's: its output port there, or a mark that the packet is delivered
    /// there; `world::run`). Meaningless before the first `set_hop` of the packet's current wire.
    #[inline(always)]
    pub fn hop(&self, id: PacketId) -> u32 {
        self.wire(id).hop
    }

    #[inline(always)]
    pub fn set_hop(&mut self, id: PacketId, hop: u32) {
        self.wire_mut(id).hop = hop;
    }

    #[inline(always)]
    fn wire(&self, id: PacketId) -> &Wire {
        debug_assert!(id.index() < self.wire.len(), "{id:?} is not of this pool");
        // SAFETY: as `get`: `wire` is as long as `slots` (pushed together).
        unsafe { self.wire.get_unchecked(id.index()) }
    }

    #[inline(always)]
    fn wire_mut(&mut self, id: PacketId) -> &mut Wire {
        debug_assert!(id.index() < self.wire.len(), "{id:?} is not of this pool");
        // SAFETY: as `get`.
        unsafe { self.wire.get_unchecked_mut(id.index()) }
    }

    /// Packets allocated and not yet freed.
    pub fn live(&self) -> u64 {
        self.live
    }

    /// Slots ever allocated (the pool's high-water mark): flat memory means this stops growing.
    pub fn capacity_used(&self) -> usize {
        self.issued as usize
    }
}

/// TCP header flags as bits of `TransportHeader::flags` (RFC 793 §3.1, RFC 3168 §6.1 for ECE
/// and CWR).
pub mod tcp_flags {
    pub const FIN: u16 = 0x001;
    pub const SYN: u16 = 0x002;
    pub const RST: u16 = 0x004;
    pub const PSH: u16 = 0x008;
    pub const ACK: u16 = 0x010;
    pub const URG: u16 = 0x020;
    /// ECN-Echo (RFC 3168 §6.1).
    pub const ECE: u16 = 0x040;
    /// Congestion Window Reduced (RFC 3168 §6.1).
    pub const CWR: u16 = 0x080;
    /// Not a header flag: the SACK-permitted option of a SYN or SYN-ACK (RFC 2018 §2), carried
    /// as a bit above the eight flags.
    pub const SACK_PERMITTED: u16 = 0x100;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn freed_slots_are_reused_and_live_count_tracks() {
        let mut pool = Pool::new();
        let a = pool.alloc(Packet {
            size: 100,
            ..Default::default()
        });
        let b = pool.alloc(Packet {
            size: 200,
            ..Default::default()
        });
        assert_eq!(pool.live(), 2);
        pool.free(a);
        assert_eq!(pool.live(), 1);
        let c = pool.alloc(Packet {
            size: 300,
            ..Default::default()
        });
        assert_eq!(c, a, "slot reused");
        assert_eq!(pool.get(c).size, 300);
        assert_eq!(pool.get(b).size, 200);
        assert_eq!(pool.capacity_used(), 2);
    }

    #[test]
    fn ids_are_issued_in_order_and_the_default_id_is_a_slot_of_every_pool() {
        // ids 0, 1, 2… as before the id type (issue 25): slot 0 exists before it is issued
        let mut pool = Pool::new();
        assert_eq!(pool.capacity_used(), 0);
        assert_eq!(pool.get(PacketId::default()).size, 0);
        let ids: Vec<_> = (0..3u32)
            .map(|k| {
                pool.alloc(Packet {
                    size: 10 + k,
                    ..Default::default()
                })
            })
            .collect();
        assert_eq!(
            ids.iter().map(|id| id.index()).collect::<Vec<_>>(),
            [0, 1, 2]
        );
        assert_eq!(pool.capacity_used(), 3);
        assert_eq!(pool.get(ids[2]).size, 12);
        pool.get_mut(ids[0]).size = 99;
        assert_eq!(pool.get(PacketId::default()).size, 99);
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "is not of this pool")]
    fn an_id_of_a_larger_pool_is_caught_in_the_debug_build() {
        let mut big = Pool::new();
        let id = (0..5).map(|_| big.alloc(Packet::default())).last().unwrap();
        let small = Pool::new();
        let _ = small.get(id).size;
    }

    #[test]
    fn a_packet_is_120_bytes_and_its_options_round_trip() {
        // 152 bytes before the SACK blocks and TFRC's fields shared `TransportOpt`; at most
        // 128 keeps the pool's copies inline moves (issue 25)
        assert_eq!(std::mem::size_of::<Packet>(), 120);
        let mut th = TransportHeader::default();
        assert!(th.sack_blocks().is_empty());
        assert_eq!(th.tfrc(), TfrcHeader::None);
        th.set_sack(&[(1, 2), (3, 4)]);
        assert_eq!(th.sack_blocks(), &[(1, 2), (3, 4)]);
        assert_eq!(th.tfrc(), TfrcHeader::None);
        th.set_sack(&[]);
        assert_eq!(th.opt, TransportOpt::None);
        let h = TfrcHeader::Feedback {
            echo: SimTime(5),
            delay: SimDuration(6),
            x_recv: 7.0,
            p: 0.25,
        };
        th.opt = TransportOpt::Tfrc(h);
        assert_eq!(th.tfrc(), h);
        assert!(th.sack_blocks().is_empty());
    }
}
