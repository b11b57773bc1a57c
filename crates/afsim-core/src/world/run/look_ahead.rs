//! The look-ahead (issue 28): in a world of thousands of flows, a flow's state is out of the
//! caches by the time its next packet comes, and an arrival's loads depend on each other (the
//! packet, its route, the port; or the flow's counters, its agent, its reply's port), each a
//! wait for the memory. A packet's next stop is known as it is put on a wire, a wire's delay
//! (a millisecond and more, hundreds of packet-hops) before it gets there: `look_ahead` finds
//! it then, keeps it with the packet (`Pool::set_hop`) and asks the processor to fetch what the
//! arrival will read (`unchecked::prefetch`); `arrive` takes the packet from there. Worlds of at
//! least `LOOK_AHEAD_PORTS` ports do this (the ports' `LOOK_AHEAD` flag); a smaller one's state
//! stays in the caches, and it forwards and delivers as before (`World::receive`). The output
//! is the same either way (`world/tests/look_ahead.rs`).

use std::mem::offset_of;

use crate::metrics::flow::FlowStats;
use crate::net::packet::PacketId;
use crate::net::routing::NO_ROUTE;
use crate::transport::AnyAgent;

use super::super::unchecked::{at_mut, prefetch, prefetch_object};
use super::super::{Port, World, CONTROL, PORT_HOT_BYTES};

/// `Pool::hop` of a packet delivered at the far end of its wire (`look_ahead`); any other value
/// is the output port there, or `NO_ROUTE` (no port has this index: a world has fewer than
/// `u32::MAX - 1` ports).
const HOP_DELIVER: u32 = NO_ROUTE - 1;

impl World<'_> {
    /// A packet arrived at `node` over port `via`: delivered, or conditioned and forwarded, as
    /// `look_ahead` found when it was sent (`Pool::hop`: the same answers as `receive`'s, found
    /// a wire's delay earlier, so that what they lead to was fetched meanwhile; issue 28).
    #[inline(never)]
    pub(super) fn arrive<const O: bool>(
        &mut self,
        node: u32,
        id: PacketId,
        via: u32,
        next: Option<PacketId>,
    ) {
        let hop = self.pool.hop(id);
        if let Some(next) = next {
            // the next packet on this wire arrives a transmission time from now (a busy
            // link's): its slot and its next port, whose wait would come first then
            prefetch_object(self.pool.slot_hint(next));
            let h = self.pool.hop(next);
            if h < HOP_DELIVER {
                prefetch_port(&self.ports, h);
            }
        }
        debug_assert_eq!(
            hop,
            match self.pool.get(id).dst {
                d if d == node => HOP_DELIVER,
                d => self.tables.next_port(node as usize, d as usize),
            }
        );
        if hop == HOP_DELIVER {
            self.deliver::<O, true>(node, id);
            return;
        }
        if self.any_conditioner
            && !self.ingress[via as usize].is_empty()
            && !self.condition(node, id, via)
        {
            return;
        }
        // (a conditioner may re-mark the packet, never re-address it)
        self.forward_on::<O>(node, id, hop);
    }

    /// Packet `id`, just put on a wire to `to`, will get there a wire's delay from now: what
    /// it will need there is found now and its cache lines fetched meanwhile (issue 28: at
    /// thousands of flows a flow's state is out of the caches by the time its next packet
    /// comes, and the loads of an arrival depend on each other: the packet, its route, the
    /// port; the flow's counters, its agent, its reply's port). The route is kept with the
    /// packet (`Pool::set_hop`) for `arrive`.
    #[inline(never)]
    pub(super) fn look_ahead(&mut self, to: u32, id: PacketId) {
        let pkt = self.pool.get(id);
        let (dst, flow, agent) = (pkt.dst, pkt.flow as usize, pkt.dst_agent as usize);
        if dst == to {
            let (src, pkt_rev) = (pkt.src, pkt.rev);
            self.pool.set_hop(id, HOP_DELIVER);
            // (what `deliver` reads first: the whole packet, the flow's counters, the agent's
            // entry and the node's routing entry; the agent's state and the reply's port, found
            // through these, are fetched by `deliver` itself; and where a reply's route is
            // looked up on its way, the entry of the packet's source)
            prefetch_object(self.pool.slot_hint(id));
            prefetch(self.tables.entry_hint(src as usize));
            // (the flow's line the delivery writes: the source's side for a reverse packet,
            // an ACK; the sink's for data: `FlowStats`' layout)
            let side = if pkt_rev {
                offset_of!(FlowStats, rev_delivered)
            } else {
                offset_of!(FlowStats, packets_delivered)
            };
            prefetch(
                self.flows
                    .as_ptr()
                    .wrapping_add(flow)
                    .cast::<u8>()
                    .wrapping_add(side),
            );
            prefetch(self.flow_delays.as_ptr().wrapping_add(flow));
            prefetch(self.agents.as_ptr().wrapping_add(agent));
            prefetch(self.tables.entry_hint(to as usize));
        } else {
            let hop = self.tables.next_port(to as usize, dst as usize);
            self.pool.set_hop(id, hop);
            prefetch_port(&self.ports, hop);
        }
    }

    /// Delivers packet `id` at its destination `node`: its counters, then its agent's hook
    /// (or its CSA signal).
    #[inline(always)]
    pub(super) fn deliver<const O: bool, const PF: bool>(&mut self, node: u32, id: PacketId) {
        let pkt = *self.pool.get(id);
        if PF {
            // what the hook will read, fetched while the counters are counted (`look_ahead`
            // fetched the agent's entry and the node's routing entry a wire's delay ago)
            if let Some(a) = self.agents.get(pkt.dst_agent as usize) {
                for p in a.hot_lines() {
                    prefetch(p);
                    prefetch(p.wrapping_add(64));
                    prefetch(p.wrapping_add(128));
                }
            }
            let reply = self.tables.leaf_port(node as usize);
            if reply != NO_ROUTE {
                prefetch_port(&self.ports, reply);
            }
        }
        self.pool.free(id);
        let flow = pkt.flow as usize;
        self.count_delivery(flow, pkt.rev, pkt.size, pkt.created, pkt.dscp);
        if pkt.dst_agent == CONTROL {
            // a remote CSA's signal reaches its border router (Giacomazzi et al. §IV.A)
            let alpha = f64::from_bits(pkt.th.ack);
            self.announce_alpha(pkt.th.seq as usize, u32::from(pkt.th.src_port), alpha);
            return;
        }
        // SAFETY: a packet's `dst_agent` other than `CONTROL` is the agent id `build.rs`
        // gave its sender as the peer (see `call_agent`); agents are never removed
        if let AnyAgent::Sink(sink) = unsafe { at_mut(&mut self.agents, pkt.dst_agent as usize) } {
            // a sink sends nothing and reads one field (issue 25: no agent call); what the
            // call would do after the hook is the completion test
            sink.on_seq(pkt.th.seq);
            self.note_completion(flow);
            return;
        }
        self.call_agent::<O>(pkt.dst_agent, |a, ctx| a.on_packet(&pkt, ctx));
    }
}

/// `prefetch` of the lines of port `port` a packet-hop reads (`PORT_HOT_BYTES`; ports are
/// 64-byte multiples in a vector of a large allocation: two lines).
#[inline(always)]
pub(super) fn prefetch_port(ports: &[Port], port: u32) {
    let p = ports.as_ptr().wrapping_add(port as usize).cast::<u8>();
    prefetch(p);
    prefetch(p.wrapping_add(PORT_HOT_BYTES - 64));
}
