//! The TCP receiver: reassembly, cumulative ACKs, SACK blocks, delayed ACKs, ECN echo.
//!
//! Read this first.
//! - Sources: RFC 793 / RFC 1122 §4.2.2.21 (cumulative ACK = next byte expected, duplicates
//!   acknowledged), RFC 2018 §4 (which SACK blocks an ACK carries), RFC 1122 §4.2.3.2 and
//!   RFC 5681 §4.2 (delayed ACKs), RFC 3168 §6.1.1 and §6.1.3 (ECN negotiation and echo).
//!   Behaviour follows ns-2.35's `TCPSink`, `TCPSink/DelAck` and `TCPSink/Sack1` (tcp-sink.cc).
//! - Every data segment is answered at once with a 40-byte ACK (+8 bytes per SACK block),
//!   except, with delayed ACKs on, an in-order segment that finds no other segment waiting
//!   for its ACK: it is held until a second one arrives or `delayed_ack_interval` runs out
//!   (ns-2 `DelAckSink`, which ACKs every second segment). A segment that arrives out of
//!   order, fills a hole, or is a duplicate is acknowledged at once (RFC 5681 §4.2).
//! - `quick_acks` (Linux's quick-ACK mode at a connection's start, net/ipv4/tcp_input.c): with
//!   delayed ACKs on, the first `quick_acks` ACKs of data are sent at once, one per segment.
//!   Linux enters the mode at the first data segment (`tcp_event_data_recv` →
//!   `tcp_incr_quickack`: min(rcv_wnd / (2 · rcv_mss), 16) ACKs), keeps it while its receive
//!   window grows (`tcp_grow_window` sets `icsk_ack.quick |= 1`), and spends one per ACK sent
//!   (`tcp_dec_quickack_mode`). The receive buffer's autotuning is not modelled, so the count
//!   is a parameter (docs/assumptions.md: 22 measured on the project's Linux 6.18 hosts).
//! - SACK blocks (variant `Sack`): the first block holds the segment that triggered the ACK
//!   (unless it advanced the cumulative ACK), then the blocks of the previous ACK, most
//!   recent first, each at its current extent and without repeats, up to three (RFC 2018 §4).
//! - ECN: after a CE-marked data segment, every ACK carries ECE until a data segment with CWR
//!   arrives (RFC 3168 §6.1.3); a CWR and a CE on one segment keep ECE on (CWR is read first).
//!   With the handshake on, ECN and SACK are used only if the SYN asked for them.
//!   `ns2_compat`: a data segment that is not ECN-capable but carries ECE (ns-2's packet 0,
//!   its SYN slot) gets an ACK with ECE, whatever the echo state (tcp-sink.cc `TcpSink::ack`,
//!   "the negotiation for ECN-capability"); ns-2's sender takes that ECN-Echo as the sign of
//!   an ECN-capable path (`ect_`), after which no ECN-Echo ACK opens its window.
//! - The application reads at once, so the advertised window never shrinks and is not sent.
//!
//! Not modelled: FIN, window updates, D-SACK, reneging, SYN-ACK retransmission by the
//! receiver (the sender's SYN timer covers a lost SYN-ACK: each SYN gets a SYN-ACK).

use crate::net::packet::{proto, Ecn, Packet, TransportHeader};
use crate::sim::rng::Rng;
use crate::sim::time::SimDuration;
use crate::transport::tcp::{
    flags, Params, ReceiverStats, HEADER_BYTES, MAX_SACK_BLOCKS, SACK_BLOCK_BYTES,
};
use crate::transport::Ctx;

/// Whether the connection is set up, and what it agreed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Conn {
    /// Waiting for a SYN (handshake on).
    Listen,
    Open {
        ecn: bool,
        sack: bool,
    },
}

/// RFC 3168 §6.1.3: whether ACKs carry ECE.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Echo {
    Idle,
    /// A CE mark arrived and no CWR since.
    Echoing,
}

/// The delayed-ACK state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Held {
    None,
    /// One in-order segment awaits its ACK; the timer with this token sends it.
    One {
        token: u32,
    },
}

/// How a data segment relates to what was received before.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Arrival {
    /// Advances the cumulative ACK.
    InOrder,
    /// Above a hole.
    OutOfOrder,
    /// Brings no new byte.
    Duplicate,
}

/// The receiver's state, laid out by hand (issue 28): what a data segment's arrival and its
/// ACK read and write in the first 128 bytes, two 64-byte groups (the sequence state, the
/// out-of-order list's header, the delayed-ACK state and the ids of group 0; the counters, the
/// ACK's addressee and the connection's small enums of group 1), the SACK blocks last reported
/// and what only delayed ACKs or the handshake read after them. The agents hold it boxed
/// (`AnyAgent::TcpReceiver`; see the sender's layout for why the box is not cache-aligned).
#[derive(Debug)]
#[repr(C)]
pub struct Receiver {
    // ---- group 0
    /// Next byte expected (RCV.NXT).
    rcv_nxt: u64,
    /// Received ranges above `rcv_nxt`, sorted, disjoint, not touching.
    ooo: Vec<(u64, u64)>,
    delack: Option<SimDuration>,
    held: Held,
    pub flow: u32,
    /// This receiver's node.
    node: u32,
    // ---- group 1
    stats: ReceiverStats,
    /// The sender's node and agent, where ACKs go.
    sender_node: u32,
    sender_agent: u32,
    conn: Conn,
    echo: Echo,
    ns2_compat: bool,
    /// ns-2 `TcpSink::ack`: the next ACK carries ECE for a non-ECT segment that carried ECE.
    negotiated_echo: bool,
    wants_ecn: bool,
    wants_sack: bool,
    /// How many of `reported` are the last ACK's (at most `MAX_SACK_BLOCKS`; every ACK
    /// without SACK blocks writes it, so it is here and not beside them).
    n_reported: u8,
    // ---- group 2
    /// The SACK blocks of the last ACK, most recent first.
    reported: [(u64, u64); MAX_SACK_BLOCKS],
    next_token: u32,
    /// Quick ACKs left (`Params::quick_acks`; Linux `icsk_ack.quick`), with delayed ACKs.
    quick_left: u32,
}

// The two hot groups (the layout above).
const _: () = {
    use std::mem::{offset_of, size_of};
    assert!(offset_of!(Receiver, stats) == 64);
    assert!(offset_of!(Receiver, n_reported) < 128);
    assert!(offset_of!(Receiver, reported) == 128);
    assert!(size_of::<Receiver>() <= 192);
};

impl Receiver {
    /// The receiver of flow `flow` from `src_node` (the sender's node) to `dst_node` (this
    /// receiver's node); `peer_agent` is the sender's agent id. The random stream is unused
    /// (the receiver draws nothing) and taken for symmetry with `Sender::new`.
    pub fn new(
        flow: u32,
        src_node: u32,
        dst_node: u32,
        peer_agent: u32,
        params: &Params,
        _rng: Rng,
    ) -> Receiver {
        let wants_sack = params.variant == crate::transport::tcp::Variant::Sack;
        Receiver {
            flow,
            sender_node: src_node,
            sender_agent: peer_agent,
            node: dst_node,
            wants_ecn: params.ecn,
            wants_sack,
            // without a handshake ECN and SACK are taken as agreed (ns-2 one-way TCP)
            conn: if params.handshake {
                Conn::Listen
            } else {
                Conn::Open {
                    ecn: params.ecn,
                    sack: wants_sack,
                }
            },
            rcv_nxt: 0,
            ooo: Vec::new(),
            reported: [(0, 0); MAX_SACK_BLOCKS],
            n_reported: 0,
            echo: Echo::Idle,
            negotiated_echo: false,
            ns2_compat: params.ns2_compat,
            delack: params.delayed_ack.then_some(params.delayed_ack_interval),
            held: Held::None,
            next_token: 0,
            quick_left: params.quick_acks,
            stats: ReceiverStats::default(),
        }
    }

    pub fn stats(&self) -> ReceiverStats {
        self.stats
    }

    /// Next byte expected: everything below it was delivered in order.
    pub fn rcv_nxt(&self) -> u64 {
        self.rcv_nxt
    }

    /// The out-of-order ranges held above `rcv_nxt`.
    pub fn out_of_order(&self) -> &[(u64, u64)] {
        &self.ooo
    }

    /// Whether ACKs now carry ECE.
    pub fn echoing_ce(&self) -> bool {
        self.echo == Echo::Echoing
    }

    /// The receiver has nothing to do until a packet arrives.
    pub fn start(&mut self, _ctx: &mut Ctx) {}

    pub fn on_packet(&mut self, p: &Packet, ctx: &mut Ctx) {
        if p.rev {
            return;
        }
        if p.th.flags & flags::SYN != 0 {
            self.on_syn(p, ctx);
        } else if p.th.payload > 0 {
            self.on_data(p, ctx);
        }
    }

    pub fn on_timer(&mut self, token: u32, ctx: &mut Ctx) {
        // RFC 5681 §4.2: the delayed ACK is sent when its timer runs out
        if self.held == (Held::One { token }) {
            self.send_ack(None, ctx);
        }
    }

    /// RFC 793 §3.4 and RFC 3168 §6.1.1: answer a SYN with a SYN-ACK; an "ECN-setup SYN"
    /// (ECE and CWR) gets an "ECN-setup SYN-ACK" (ECE only) if this end wants ECN.
    fn on_syn(&mut self, p: &Packet, ctx: &mut Ctx) {
        let ecn =
            self.wants_ecn && p.th.flags & (flags::ECE | flags::CWR) == flags::ECE | flags::CWR;
        // RFC 2018 §2: SACK only if both ends sent SACK-permitted
        let sack = self.wants_sack && p.th.flags & flags::SACK_PERMITTED != 0;
        if self.conn == Conn::Listen {
            self.conn = Conn::Open { ecn, sack };
        }
        let mut f = flags::SYN | flags::ACK;
        if ecn {
            f |= flags::ECE;
        }
        if sack {
            f |= flags::SACK_PERMITTED;
        }
        // RFC 3168 §6.1.1: a SYN-ACK is not ECN-capable
        self.emit(self.rcv_nxt, f, &[], ctx);
    }

    fn on_data(&mut self, p: &Packet, ctx: &mut Ctx) {
        let Conn::Open { ecn, .. } = self.conn else {
            return;
        };
        self.stats.segments_received += 1;
        if p.ecn == Ecn::Ce {
            self.stats.ce_received += 1;
        }
        if ecn {
            // RFC 3168 §6.1.3: CWR ends the echo; a CE mark (re)starts it
            if p.th.flags & flags::CWR != 0 {
                self.echo = Echo::Idle;
            }
            if p.ecn == Ecn::Ce {
                self.echo = Echo::Echoing;
            }
        }
        if self.ns2_compat && p.ecn == Ecn::NotEct && p.th.flags & flags::ECE != 0 {
            // ns-2.35 tcp-sink.cc, TcpSink::ack: `if ((!of->ect() && of->ecnecho()) || ...)
            // nf->ecnecho() = 1;` (also for a delayed ACK's saved segment, `sf`)
            self.negotiated_echo = true;
        }
        let (seq, end) = (p.th.seq, p.th.seq + u64::from(p.th.payload));
        let had_hole = !self.ooo.is_empty();
        let arrival = if end <= self.rcv_nxt {
            Arrival::Duplicate
        } else if seq <= self.rcv_nxt {
            Arrival::InOrder
        } else if self.range_of(seq).is_some_and(|(_, e)| end <= e) {
            Arrival::Duplicate
        } else {
            Arrival::OutOfOrder
        };
        // RFC 2018 §4: the first block holds the triggering segment unless it advanced the ACK
        let mut trigger = None;
        match arrival {
            Arrival::Duplicate => {
                self.stats.duplicate_segments += 1;
                if seq > self.rcv_nxt {
                    trigger = Some(seq);
                }
            }
            Arrival::InOrder => {
                let before = self.rcv_nxt;
                self.rcv_nxt = end;
                // the segment may close holes: absorb the ranges it now touches
                let absorbed = self.ooo.partition_point(|&(s, _)| s <= self.rcv_nxt);
                if absorbed > 0 {
                    self.rcv_nxt = self.rcv_nxt.max(self.ooo[absorbed - 1].1);
                    self.ooo.drain(..absorbed);
                }
                self.stats.goodput_bytes += self.rcv_nxt - before;
            }
            Arrival::OutOfOrder => {
                self.stats.out_of_order_segments += 1;
                self.insert(seq, end);
                trigger = Some(seq);
            }
        }
        let immediate = match (self.delack, self.held) {
            (None, _) => true,
            // RFC 5681 §4.2: out-of-order, hole-filling and duplicate segments are ACKed at once;
            // so is every second full segment; in Linux's quick-ACK mode, every segment
            (Some(_), held) => {
                arrival != Arrival::InOrder || had_hole || held != Held::None || self.quick_left > 0
            }
        };
        if immediate {
            self.send_ack(trigger, ctx);
        } else if let Some(interval) = self.delack {
            let token = self.next_token;
            self.next_token = self.next_token.wrapping_add(1);
            self.held = Held::One { token };
            ctx.set_timer(ctx.now + interval, token);
        }
    }

    /// Adds `[s, e)` to the out-of-order ranges, merging neighbours it touches.
    fn insert(&mut self, s: u64, e: u64) {
        let i = self.ooo.partition_point(|&(_, re)| re < s);
        let mut j = i;
        let (mut ns, mut ne) = (s, e);
        while j < self.ooo.len() && self.ooo[j].0 <= e {
            ns = ns.min(self.ooo[j].0);
            ne = ne.max(self.ooo[j].1);
            j += 1;
        }
        self.ooo.splice(i..j, std::iter::once((ns, ne)));
    }

    /// The out-of-order range holding byte `seq`.
    fn range_of(&self, seq: u64) -> Option<(u64, u64)> {
        let i = self.ooo.partition_point(|&(_, e)| e <= seq);
        self.ooo.get(i).copied().filter(|&(s, _)| s <= seq)
    }

    /// Sends the cumulative ACK, with SACK blocks and ECE as the connection agreed. (Inlined
    /// into its two callers, a data segment's arrival and the delayed-ACK timer; issue 25.)
    #[inline(always)]
    fn send_ack(&mut self, trigger: Option<u64>, ctx: &mut Ctx) {
        let Conn::Open { sack, .. } = self.conn else {
            return;
        };
        let mut f = flags::ACK;
        if self.echo == Echo::Echoing && matches!(self.conn, Conn::Open { ecn: true, .. }) {
            f |= flags::ECE;
        }
        if std::mem::take(&mut self.negotiated_echo) {
            f |= flags::ECE;
        }
        if !sack || self.ooo.is_empty() {
            // no SACK block to send (issue 25: the common case without the two 64-byte block
            // lists; `reported` is read only below `n_reported`)
            self.n_reported = 0;
            self.emit(self.rcv_nxt, f, &[], ctx);
        } else {
            self.send_sack_ack(trigger, f, ctx);
        }
        self.held = Held::None;
        // Linux tcp_dec_quickack_mode: every ACK of data spends one (read only with delayed
        // ACKs, `on_data`: without them the count, in the third 64 bytes, is not touched)
        if self.delack.is_some() {
            self.quick_left = self.quick_left.saturating_sub(1);
        }
    }

    /// `send_ack`'s ACK with SACK blocks (RFC 2018 §4), out of the common path.
    #[inline(never)]
    fn send_sack_ack(&mut self, trigger: Option<u64>, f: u16, ctx: &mut Ctx) {
        let mut blocks = [(0u64, 0u64); MAX_SACK_BLOCKS];
        let mut n = 0;
        if let Some(b) = trigger.and_then(|s| self.range_of(s)) {
            push_block(&mut blocks, &mut n, b);
        }
        // RFC 2018 §4: repeat the most recently reported blocks, at their current extent
        for k in 0..usize::from(self.n_reported) {
            if let Some(b) = self.range_of(self.reported[k].0) {
                push_block(&mut blocks, &mut n, b);
            }
        }
        // nothing reported recently (the reported blocks were absorbed): the lowest range,
        // the next hole the sender must fill
        if n == 0 {
            push_block(&mut blocks, &mut n, self.ooo[0]);
        }
        self.reported = blocks;
        self.n_reported = n as u8; // n ≤ MAX_SACK_BLOCKS
        self.emit(self.rcv_nxt, f, &blocks[..n], ctx);
    }

    #[inline(always)]
    fn emit(&mut self, ack: u64, f: u16, blocks: &[(u64, u64)], ctx: &mut Ctx) {
        let mut th = TransportHeader {
            ack,
            flags: f,
            ..Default::default()
        };
        th.set_sack(blocks);
        ctx.send(Packet {
            src: self.node,
            dst: self.sender_node,
            protocol: proto::TCP,
            // RFC 3168 §6.1.4: pure ACKs are not ECN-capable
            ecn: Ecn::NotEct,
            size: HEADER_BYTES + SACK_BLOCK_BYTES * blocks.len() as u32,
            flow: self.flow,
            dst_agent: self.sender_agent,
            rev: true,
            th,
            ..Default::default()
        });
        self.stats.acks_sent += 1;
    }
}

/// Appends a SACK block unless the list is full or already holds it.
fn push_block(blocks: &mut [(u64, u64); MAX_SACK_BLOCKS], n: &mut usize, b: (u64, u64)) {
    if *n < MAX_SACK_BLOCKS && !blocks[..*n].contains(&b) {
        blocks[*n] = b;
        *n += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::tcp::tests::harness::{data, syn, Host, RECEIVER};
    use crate::transport::tcp::Variant;

    const MSS: u64 = 960;

    fn receiver(p: Params) -> Receiver {
        Receiver::new(0, 0, 1, 0, &p, crate::sim::rng::stream(1, "r"))
    }

    /// Delivers one packet at `now_ms`; returns what the receiver sent.
    fn deliver(h: &mut Host, r: &mut Receiver, now_ms: u64, p: Packet) -> Vec<Packet> {
        h.call_at_ms(now_ms, RECEIVER, |ctx| r.on_packet(&p, ctx))
    }

    /// Segment `k` (MSS-sized, from byte k·MSS).
    fn seg(k: u64) -> Packet {
        data(k * MSS, MSS as u32)
    }

    fn acks(out: &[Packet]) -> Vec<u64> {
        out.iter().map(|p| p.th.ack).collect()
    }

    fn blocks(p: &Packet) -> Vec<(u64, u64)> {
        p.th.sack_blocks().to_vec()
    }

    fn segs(a: u64, b: u64) -> (u64, u64) {
        (a * MSS, b * MSS)
    }

    #[test]
    fn an_in_order_segment_is_acked_at_once_with_the_next_byte_expected() {
        let mut h = Host::new();
        let mut r = receiver(Params::default());
        let out = deliver(&mut h, &mut r, 0, seg(0));
        assert_eq!(acks(&out), vec![MSS]);
        let a = out[0];
        assert!(a.rev && a.dst_agent == 0 && a.src == 1 && a.dst == 0);
        assert_eq!(a.size, 40, "a pure ACK is 40 bytes");
        assert_eq!(a.ecn, Ecn::NotEct);
        assert_eq!(a.th.flags, flags::ACK);
        assert_eq!(r.stats().goodput_bytes, MSS);
    }

    #[test]
    fn an_out_of_order_segment_repeats_the_cumulative_ack() {
        let mut h = Host::new();
        let mut r = receiver(Params::default());
        deliver(&mut h, &mut r, 0, seg(0));
        let out = deliver(&mut h, &mut r, 1, seg(2));
        assert_eq!(acks(&out), vec![MSS], "a duplicate ACK");
        assert!(
            blocks(&out[0]).is_empty(),
            "no SACK blocks without the SACK variant"
        );
        assert_eq!(r.stats().goodput_bytes, MSS);
        assert_eq!(r.stats().out_of_order_segments, 1);
    }

    #[test]
    fn filling_the_hole_acknowledges_the_buffered_data_too() {
        let mut h = Host::new();
        let mut r = receiver(Params::default());
        for k in [0, 2, 3, 5] {
            deliver(&mut h, &mut r, k, seg(k));
        }
        assert_eq!(r.out_of_order(), &[segs(2, 4), segs(5, 6)]);
        let out = deliver(&mut h, &mut r, 10, seg(1));
        assert_eq!(acks(&out), vec![4 * MSS]);
        assert_eq!(r.out_of_order(), &[segs(5, 6)]);
        assert_eq!(
            r.stats().goodput_bytes,
            4 * MSS,
            "goodput counts in-order bytes only"
        );
    }

    #[test]
    fn a_duplicate_segment_is_counted_and_acked_at_once() {
        let mut h = Host::new();
        let mut r = receiver(Params {
            delayed_ack: true,
            ..Params::default()
        });
        deliver(&mut h, &mut r, 0, seg(0));
        deliver(&mut h, &mut r, 1, seg(1));
        let out = deliver(&mut h, &mut r, 2, seg(0));
        assert_eq!(acks(&out), vec![2 * MSS]);
        assert_eq!(r.stats().duplicate_segments, 1);
        assert_eq!(r.stats().goodput_bytes, 2 * MSS);
    }

    #[test]
    fn the_first_sack_block_holds_the_segment_that_triggered_the_ack() {
        let mut h = Host::new();
        let mut r = receiver(Params {
            variant: Variant::Sack,
            ..Params::default()
        });
        deliver(&mut h, &mut r, 0, seg(0));
        let out = deliver(&mut h, &mut r, 1, seg(2));
        assert_eq!(blocks(&out[0]), vec![segs(2, 3)]);
        assert_eq!(out[0].size, 48, "40 + 8 bytes per block (ns-2)");
        let out = deliver(&mut h, &mut r, 2, seg(3));
        assert_eq!(
            blocks(&out[0]),
            vec![segs(2, 4)],
            "the block grows, it is not repeated"
        );
    }

    #[test]
    fn sack_blocks_list_the_most_recent_first_up_to_three() {
        let mut h = Host::new();
        let mut r = receiver(Params {
            variant: Variant::Sack,
            ..Params::default()
        });
        deliver(&mut h, &mut r, 0, seg(0));
        deliver(&mut h, &mut r, 1, seg(2));
        deliver(&mut h, &mut r, 2, seg(4));
        let out = deliver(&mut h, &mut r, 3, seg(6));
        assert_eq!(blocks(&out[0]), vec![segs(6, 7), segs(4, 5), segs(2, 3)]);
        let out = deliver(&mut h, &mut r, 4, seg(8));
        assert_eq!(
            blocks(&out[0]),
            vec![segs(8, 9), segs(6, 7), segs(4, 5)],
            "three at most"
        );
        assert_eq!(out[0].size, 40 + 24);
        // a segment joining an older block brings it to the front
        let out = deliver(&mut h, &mut r, 5, seg(3));
        assert_eq!(blocks(&out[0]), vec![segs(2, 5), segs(8, 9), segs(6, 7)]);
    }

    #[test]
    fn a_hole_filling_ack_repeats_the_remaining_blocks() {
        let mut h = Host::new();
        let mut r = receiver(Params {
            variant: Variant::Sack,
            ..Params::default()
        });
        for k in [0, 2, 4] {
            deliver(&mut h, &mut r, k, seg(k));
        }
        let out = deliver(&mut h, &mut r, 5, seg(1));
        assert_eq!(acks(&out), vec![3 * MSS]);
        assert_eq!(
            blocks(&out[0]),
            vec![segs(4, 5)],
            "no trigger block: the segment advanced the ACK"
        );
        let out = deliver(&mut h, &mut r, 6, seg(3));
        assert_eq!(acks(&out), vec![5 * MSS]);
        assert!(blocks(&out[0]).is_empty());
    }

    #[test]
    fn delayed_acks_acknowledge_every_second_segment() {
        let mut h = Host::new();
        let mut r = receiver(Params {
            delayed_ack: true,
            ..Params::default()
        });
        let mut sent = vec![];
        for k in 0..6 {
            sent.extend(deliver(&mut h, &mut r, k, seg(k)));
        }
        assert_eq!(acks(&sent), vec![2 * MSS, 4 * MSS, 6 * MSS]);
    }

    #[test]
    fn quick_acks_acknowledge_the_first_segments_one_by_one_then_every_second() {
        // Linux tcp_input.c: the first data segment enters quick-ACK mode, each ACK sent spends
        // one quick ACK (tcp_dec_quickack_mode), then delayed ACKs as RFC 5681 §4.2
        let mut h = Host::new();
        let mut r = receiver(Params {
            delayed_ack: true,
            quick_acks: 3,
            ..Params::default()
        });
        let mut sent = vec![];
        for k in 0..7 {
            sent.extend(deliver(&mut h, &mut r, k, seg(k)));
        }
        assert_eq!(acks(&sent), vec![MSS, 2 * MSS, 3 * MSS, 5 * MSS, 7 * MSS]);
    }

    #[test]
    fn an_immediate_ack_of_an_out_of_order_segment_spends_a_quick_ack() {
        // every ACK of data sent spends one (tcp_event_ack_sent → tcp_dec_quickack_mode),
        // the duplicate ACK of a segment above a hole as well
        let mut h = Host::new();
        let mut r = receiver(Params {
            delayed_ack: true,
            quick_acks: 2,
            ..Params::default()
        });
        assert_eq!(
            acks(&deliver(&mut h, &mut r, 0, seg(1))),
            vec![0],
            "above a hole"
        );
        assert_eq!(
            acks(&deliver(&mut h, &mut r, 1, seg(0))),
            vec![2 * MSS],
            "fills it"
        );
        assert!(
            deliver(&mut h, &mut r, 2, seg(2)).is_empty(),
            "both quick ACKs spent: held"
        );
        assert_eq!(acks(&deliver(&mut h, &mut r, 3, seg(3))), vec![4 * MSS]);
    }

    #[test]
    fn quick_acks_need_delayed_acks() {
        let p = Params {
            quick_acks: 22,
            ..Params::default()
        };
        assert_eq!(p.validate().unwrap_err().field, "quick_acks");
        assert!(Params {
            delayed_ack: true,
            ..p
        }
        .validate()
        .is_ok());
    }

    #[test]
    fn a_lone_segment_is_acked_when_the_delayed_ack_timer_runs_out() {
        let mut h = Host::new();
        let mut r = receiver(Params {
            delayed_ack: true,
            ..Params::default()
        });
        assert!(deliver(&mut h, &mut r, 0, seg(0)).is_empty(), "held");
        let (at, token) = h.next_timer(RECEIVER).expect("timer armed");
        assert_eq!(
            at.as_nanos(),
            100_000_000,
            "ns-2 DelAckSink interval_ 100 ms"
        );
        let out = h.call_at(at, RECEIVER, |ctx| r.on_timer(token, ctx));
        assert_eq!(acks(&out), vec![MSS]);
    }

    #[test]
    fn a_stale_delayed_ack_timer_sends_nothing() {
        let mut h = Host::new();
        let mut r = receiver(Params {
            delayed_ack: true,
            ..Params::default()
        });
        deliver(&mut h, &mut r, 0, seg(0));
        let (at, token) = h.next_timer(RECEIVER).unwrap();
        deliver(&mut h, &mut r, 1, seg(1)); // the second segment sends the ACK
        assert!(h
            .call_at(at, RECEIVER, |ctx| r.on_timer(token, ctx))
            .is_empty());
    }

    #[test]
    fn with_delayed_acks_an_out_of_order_segment_is_acked_at_once() {
        let mut h = Host::new();
        let mut r = receiver(Params {
            delayed_ack: true,
            ..Params::default()
        });
        deliver(&mut h, &mut r, 0, seg(0)); // held
        let out = deliver(&mut h, &mut r, 1, seg(2));
        assert_eq!(
            acks(&out),
            vec![MSS],
            "the held ACK goes out as the duplicate ACK"
        );
        let out = deliver(&mut h, &mut r, 2, seg(1));
        assert_eq!(
            acks(&out),
            vec![3 * MSS],
            "a hole-filling segment is acked at once"
        );
    }

    #[test]
    fn ns2_a_segment_not_ecn_capable_with_ece_gets_one_ack_with_ece() {
        // ns-2.35 tcp-sink.cc TcpSink::ack: `if ((!of->ect() && of->ecnecho()) || ...)
        // nf->ecnecho() = 1;` — the answer to ns-2's packet 0 (ECN-Echo set, not ECT)
        let ece = |out: &[Packet]| out[0].th.flags & flags::ECE != 0;
        for (ns2_compat, echoed) in [(true, true), (false, false)] {
            let mut h = Host::new();
            let mut r = receiver(Params {
                ecn: true,
                ns2_compat,
                ..Params::default()
            });
            let mut first = seg(0);
            first.th.flags |= flags::ECE;
            assert_eq!(ece(&deliver(&mut h, &mut r, 0, first)), echoed);
            let mut next = seg(1);
            next.ecn = Ecn::Ect0;
            assert!(
                !ece(&deliver(&mut h, &mut r, 1, next)),
                "once: the echo state is untouched"
            );
        }
        // with delayed ACKs the ACK that covers the held segment carries it
        let mut h = Host::new();
        let mut r = receiver(Params {
            ecn: true,
            ns2_compat: true,
            delayed_ack: true,
            ..Params::default()
        });
        let mut first = seg(0);
        first.th.flags |= flags::ECE;
        assert!(deliver(&mut h, &mut r, 0, first).is_empty(), "held");
        assert!(ece(&deliver(&mut h, &mut r, 1, seg(1))));
    }

    #[test]
    fn after_ce_every_ack_carries_ece_until_a_cwr_segment_arrives() {
        let mut h = Host::new();
        let mut r = receiver(Params {
            ecn: true,
            ..Params::default()
        });
        let ece = |out: &[Packet]| out[0].th.flags & flags::ECE != 0;
        assert!(!ece(&deliver(&mut h, &mut r, 0, seg(0))));
        let mut marked = seg(1);
        marked.ecn = Ecn::Ce;
        assert!(ece(&deliver(&mut h, &mut r, 1, marked)));
        assert!(ece(&deliver(&mut h, &mut r, 2, seg(2))), "keeps echoing");
        let mut cwr = seg(3);
        cwr.th.flags |= flags::CWR;
        assert!(!ece(&deliver(&mut h, &mut r, 3, cwr)), "CWR ends the echo");
        assert!(!ece(&deliver(&mut h, &mut r, 4, seg(4))));
        let mut both = seg(5);
        both.th.flags |= flags::CWR;
        both.ecn = Ecn::Ce;
        assert!(
            ece(&deliver(&mut h, &mut r, 5, both)),
            "a new CE on the CWR segment restarts it"
        );
        assert_eq!(r.stats().ce_received, 2);
    }

    #[test]
    fn without_ecn_a_ce_mark_is_not_echoed() {
        let mut h = Host::new();
        let mut r = receiver(Params::default());
        let mut marked = seg(0);
        marked.ecn = Ecn::Ce;
        let out = deliver(&mut h, &mut r, 0, marked);
        assert_eq!(out[0].th.flags & flags::ECE, 0);
    }

    #[test]
    fn a_syn_gets_a_syn_ack_agreeing_to_what_both_ends_want() {
        let p = Params {
            handshake: true,
            ecn: true,
            variant: Variant::Sack,
            ..Params::default()
        };
        let mut h = Host::new();
        let mut r = receiver(p);
        assert!(
            deliver(&mut h, &mut r, 0, seg(0)).is_empty(),
            "no data before the handshake"
        );
        let out = deliver(
            &mut h,
            &mut r,
            1,
            syn(flags::ECE | flags::CWR | flags::SACK_PERMITTED),
        );
        let f = out[0].th.flags;
        assert_eq!(
            f,
            flags::SYN | flags::ACK | flags::ECE | flags::SACK_PERMITTED,
            "RFC 3168 §6.1.1"
        );
        assert_eq!(out[0].ecn, Ecn::NotEct);
        assert_eq!(out[0].size, 40);
        // a SYN that does not ask for ECN or SACK gets neither
        let mut r = receiver(p);
        let out = deliver(&mut h, &mut r, 2, syn(0));
        assert_eq!(out[0].th.flags, flags::SYN | flags::ACK);
        let mut marked = seg(0);
        marked.ecn = Ecn::Ce;
        deliver(&mut h, &mut r, 3, seg(1));
        let out = deliver(&mut h, &mut r, 4, marked);
        assert_eq!(out[0].th.flags & flags::ECE, 0, "ECN was not agreed");
        assert!(blocks(&out[0]).is_empty(), "SACK was not agreed");
    }

    #[test]
    fn a_repeated_syn_gets_another_syn_ack() {
        let mut h = Host::new();
        let mut r = receiver(Params {
            handshake: true,
            ..Params::default()
        });
        assert_eq!(deliver(&mut h, &mut r, 0, syn(0)).len(), 1);
        assert_eq!(deliver(&mut h, &mut r, 1, syn(0)).len(), 1);
        assert_eq!(r.stats().acks_sent, 2);
    }
}
