//! The event loop: events in (time, sequence) order dispatched to ports, nodes, conditioners,
//! CSAs and agents, until a stop condition of the spec holds. Every exit of a packet from the
//! path (delivery, or a drop with its place and reason) is counted here.

use crate::edge::conditioner::Outcome;
use crate::metrics::series::CountSeries;
use crate::net::dscp::ColourTable;
use crate::net::packet::{PacketId, Pool};
use crate::net::pcap;
use crate::net::routing::NO_ROUTE;
use crate::queue::{AnyQueue, DropReason};
use crate::sim::event::{Event, EventQueue};
use crate::sim::time::{SimDuration, SimTime};
use crate::transport::AnyAgent;

use super::unchecked::{at_mut, port_mut};
/// `receive`'s `via` for packets an agent sent from the node itself.
use super::watch::{watch_arrival, watch_departure};
use super::{Port, Progress, RunError, StopReason, World, LOCAL};
use super::{LOOK_AHEAD, LOSSY, PASS_RIO, THROUGH_OK, THROUGH_SEEN};

mod agents;
mod csa;
mod look_ahead;

impl World<'_> {
    /// Runs the event loop until a stop condition of the spec is met.
    ///
    /// The packet path is compiled twice (issues 25 and 27: no per-packet cost for what is
    /// off): with or without observers (`O`: any `[[monitor]]`, watched port or `[[capture]]`).
    /// Without, there is no grid comparison per event and no watch, series or capture test per
    /// enqueue and departure, only one test of a local per event; with, each is tested as
    /// before, so the output is the same.
    pub fn run(
        &mut self,
        progress: Option<&mut dyn FnMut(&Progress) -> bool>,
    ) -> Result<(), RunError> {
        let observed = self.grid.next_ns != u64::MAX
            || !self.captures.is_empty()
            || self.ports.iter().any(|p| p.watch.is_some());
        if observed {
            self.run_loop::<true>(progress)
        } else {
            self.run_loop::<false>(progress)
        }
    }

    /// The event loop of `run`, compiled with or without observers (`O`) as the packet path
    /// it dispatches to: no per-event test of which (issue 25; the event queue's `pop_before`
    /// is inlined into each loop).
    fn run_loop<const O: bool>(
        &mut self,
        mut progress: Option<&mut dyn FnMut(&Progress) -> bool>,
    ) -> Result<(), RunError> {
        let end = self
            .spec
            .stop
            .duration
            .map_or(SimTime::MAX, |d| SimTime::ZERO + d);
        let max_packets = self.spec.stop.max_packets.unwrap_or(u64::MAX);
        let max_data = self.spec.stop.max_data_packets.unwrap_or(u64::MAX);
        let until_transfers = self.spec.stop.transfers_complete && self.finite_total > 0;
        // one test per event when no count limit is set
        let limited = max_packets != u64::MAX || max_data != u64::MAX || until_transfers;
        let reason = loop {
            if limited {
                if self.generated >= max_packets {
                    break StopReason::MaxPackets;
                }
                if self.data_generated >= max_data {
                    break StopReason::MaxDataPackets;
                }
                if until_transfers && self.finite_done == self.finite_total {
                    break StopReason::TransfersComplete;
                }
            }
            // the run covers [0, duration): an event at exactly `duration` does not happen
            let Some((t, ev)) = self.events.pop_before(end) else {
                if self.events.peek_time().is_some() {
                    self.now = end;
                    break StopReason::Duration;
                }
                if end != SimTime::MAX {
                    self.now = end;
                }
                break StopReason::NoEvents;
            };
            // counters on a grid: each instant passed gets the counts from before this event
            if O && t.0 >= self.grid.next_ns {
                self.sample_grid(t);
            }
            #[cfg(feature = "event-census")]
            {
                self.census[ev.kind()] += 1;
                if t == self.now && self.events_done > 0 {
                    self.census_ties += 1;
                }
            }
            self.now = t;
            self.dispatch::<O>(ev);
            self.events_done += 1;
            if self.events_done & 0xFFFF == 0 {
                if let Some(cb) = progress.as_mut() {
                    let p = self.progress(end, max_packets, max_data);
                    if !cb(&p) {
                        return Err(RunError::Interrupted);
                    }
                }
            }
        };
        self.stop_reason = Some(reason);
        #[cfg(feature = "event-census")]
        {
            let counts: Vec<String> = Event::KINDS
                .iter()
                .zip(self.census)
                .map(|(name, n)| format!("{name} {n}"))
                .collect();
            eprintln!(
                "event census: {}; at the instant of the event before: {}",
                counts.join(", "),
                self.census_ties
            );
        }
        Ok(())
    }

    fn progress(&self, end: SimTime, max_packets: u64, max_data: u64) -> Progress {
        let by_time = (end != SimTime::MAX).then(|| self.now.0 as f64 / end.0.max(1) as f64);
        let by_packets =
            (max_packets != u64::MAX).then(|| self.generated as f64 / max_packets as f64);
        let by_data = (max_data != u64::MAX).then(|| self.data_generated as f64 / max_data as f64);
        let fraction = [by_time, by_packets, by_data]
            .into_iter()
            .flatten()
            .reduce(f64::max);
        Progress {
            sim_time_s: self.now.as_secs_f64(),
            fraction,
            events: self.events_done,
            packet_hops: self.hops,
        }
    }

    #[inline]
    fn dispatch<const O: bool>(&mut self, ev: Event) {
        match ev {
            Event::TxDone { port } => self.tx_done::<O>(port as usize),
            Event::Arrive { port } => {
                // SAFETY: the world schedules an arrival only for a port of its own (`transmit`
                // and the line below; see `port_mut`)
                let p = unsafe { port_mut(&mut self.ports, port as usize) };
                let (id, next) = p.line.pop_front().expect("arrival with an empty line");
                debug_assert_eq!(self.pool.wire_at(id), self.now);
                if let Some(next) = next {
                    self.events
                        .schedule(self.pool.wire_at(next), Event::Arrive { port });
                }
                // (the flags, in the port's first line, not the box's pointer, in its last; one
                // test for both)
                if p.flags & (LOSSY | LOOK_AHEAD) != 0 {
                    if p.flags & LOSSY != 0 {
                        if let Some((loss, lost)) = p.loss.as_deref_mut() {
                            if loss.lose() {
                                *lost += 1;
                                self.drop_packet(id);
                                return;
                            }
                        }
                    }
                    if p.flags & LOOK_AHEAD != 0 {
                        let node = p.to;
                        self.arrive::<O>(node, id, port, next);
                        return;
                    }
                }
                let node = p.to;
                self.receive::<O>(node, id, port);
            }
            Event::Wake { cond } => self.wake::<O>(cond as usize),
            Event::CsaTimer { csa, ctl } => self.csa_timer(csa as usize, ctl as usize),
            Event::Timer { agent, token } => {
                self.call_agent::<O>(agent, |a, ctx| a.on_timer(token, ctx))
            }
            Event::Warmup => {
                for (flow, g) in self.goodput_at_warmup.iter_mut().enumerate() {
                    if let AnyAgent::TcpReceiver(r) = &self.agents[2 * flow + 1] {
                        *g = r.stats().goodput_bytes;
                    }
                }
            }
        }
    }

    /// The transmitter of `port` is free and packets wait: the next one starts.
    #[inline]
    fn tx_done<const O: bool>(&mut self, port: usize) {
        // SAFETY: the world schedules a `TxDone` only for a port of its own (`tx_done` and
        // `enqueue_queued`; see `port_mut`)
        let p = unsafe { port_mut(&mut self.ports, port) };
        p.tx_pending = false;
        if p.qlen > 0 {
            let (pool, events) = (&mut self.pool, &mut self.events);
            let sent = start_tx::<O>(
                p,
                port,
                self.now,
                pool,
                &self.colours,
                events,
                &mut self.captures,
            );
            if p.qlen > 0 {
                p.tx_pending = true;
                self.events
                    .schedule(p.busy_until, Event::TxDone { port: port as u32 });
            }
            if let Some(id) = sent {
                self.hops += 1;
                if p.flags & LOOK_AHEAD != 0 {
                    let to = p.to;
                    self.look_ahead(to, id);
                }
            }
        }
    }

    /// A packet is at `node`, sent there by an agent (`via` is `LOCAL`) or, in a world that
    /// does not look ahead, arrived over port `via`: deliver it if this is its destination,
    /// else condition it and forward it.
    #[inline(always)]
    fn receive<const O: bool>(&mut self, node: u32, id: PacketId, via: u32) {
        let dst = self.pool.get(id).dst;
        if dst == node {
            self.deliver::<O, false>(node, id);
            return;
        }
        // (most networks have no conditioner: one test, not a look at a per-port list)
        let conditioned = self.any_conditioner
            && if via == LOCAL {
                !self.local[node as usize].is_empty()
            } else {
                !self.ingress[via as usize].is_empty()
            };
        if conditioned && !self.condition(node, id, via) {
            return;
        }
        // (a conditioner may re-mark the packet, never re-address it)
        self.forward_to::<O>(node, id, dst);
    }

    /// Hands a packet to the conditioners of its input (first match wins). Returns whether it
    /// goes on now; if not, it was held or dropped.
    #[inline]
    fn condition(&mut self, node: u32, id: PacketId, via: u32) -> bool {
        let list = if via == LOCAL {
            &self.local[node as usize]
        } else {
            &self.ingress[via as usize]
        };
        // the first conditioner that selects the packet, and what it did
        let mut taken = None;
        for &c in list {
            // SAFETY: the input lists (`ingress`, `local`) hold indices of `conditioners`,
            // pushed in `build.rs` as each is made; conditioners are never removed
            let cond = unsafe { at_mut(&mut self.conditioners, c as usize) };
            let outcome = cond.offer(self.now, id, &mut self.pool);
            if outcome != Outcome::NotMatched {
                taken = Some((c as usize, outcome));
                break;
            }
        }
        let Some((c, outcome)) = taken else {
            return true;
        };
        let flow = self.pool.get(id).flow as usize;
        match outcome {
            Outcome::NotMatched => unreachable!("only a selected packet's outcome is kept"),
            Outcome::Forward => {
                // SAFETY: a packet's flow is one of the world's flows (an agent's, or a CSA
                // signal's pseudo-flow), below `n_flows`, `flow_cond`'s length (`build.rs`,
                // never resized)
                *unsafe { at_mut(&mut self.flow_cond, flow) } = c as u32;
                true
            }
            Outcome::Held => {
                self.flow_cond[flow] = c as u32;
                self.schedule_wake(c);
                false
            }
            Outcome::Drop(reason) => {
                self.cond_drops[c][reason.index()] += 1;
                self.drop_packet(id);
                false
            }
        }
    }

    /// Arms conditioner `c`'s wake-up for when its head-of-line packet may leave.
    fn schedule_wake(&mut self, c: usize) {
        let cond = &mut self.conditioners[c];
        if let Some(t) = cond.next_release(self.now, &self.pool) {
            if cond.wake_at != Some(t) {
                cond.wake_at = Some(t);
                self.events.schedule(t, Event::Wake { cond: c as u32 });
            }
        }
    }

    /// Conditioner `c` releases what conforms now, then re-arms.
    fn wake<const O: bool>(&mut self, c: usize) {
        if self.conditioners[c].wake_at != Some(self.now) {
            return; // superseded by a later wake-up
        }
        self.conditioners[c].wake_at = None;
        let node = self.conditioners[c].node;
        while let Some((id, outcome)) = self.conditioners[c].release(self.now, &mut self.pool) {
            match outcome {
                Outcome::Forward => self.forward::<O>(node, id),
                Outcome::Drop(reason) => {
                    self.cond_drops[c][reason.index()] += 1;
                    self.drop_packet(id);
                }
                Outcome::NotMatched | Outcome::Held => {
                    unreachable!("a released packet is forwarded or dropped")
                }
            }
        }
        self.schedule_wake(c);
    }

    /// Routes a packet out of `node`.
    #[inline(always)]
    fn forward<const O: bool>(&mut self, node: u32, id: PacketId) {
        let dst = self.pool.get(id).dst;
        self.forward_to::<O>(node, id, dst);
    }

    /// `forward` of a packet whose destination `dst` the caller has read.
    #[inline(always)]
    fn forward_to<const O: bool>(&mut self, node: u32, id: PacketId, dst: u32) {
        let port = self.tables.next_port(node as usize, dst as usize);
        self.forward_on::<O>(node, id, port);
    }

    /// `forward` of a packet whose output port at `node` is known (`NO_ROUTE`: none; the packet
    /// is dropped there).
    #[inline(always)]
    fn forward_on<const O: bool>(&mut self, node: u32, id: PacketId, port: u32) {
        if port == NO_ROUTE {
            self.node_drops[node as usize][DropReason::NoRoute.index()] += 1;
            self.drop_packet(id);
            return;
        }
        self.enqueue::<O>(port as usize, id);
    }

    /// Offers a packet to a port's queue; starts the transmitter if it is idle.
    #[inline]
    fn enqueue<const O: bool>(&mut self, port: usize, id: PacketId) {
        // SAFETY: `port` is a forwarding table's answer other than `NO_ROUTE` (`forward_to`):
        // the tables are built from this world's links and name only its ports
        let p = unsafe { port_mut(&mut self.ports, port) };
        let pkt = self.pool.get(id);
        let size = u64::from(pkt.size);
        let level = usize::from(self.colours.level(pkt.dscp));
        let flow = pkt.flow as usize;
        let (rev, dscp) = (pkt.rev, pkt.dscp);
        p.by_cp.arrival(&mut p.cp_first, rev, dscp);
        if O {
            p.sample(self.now);
        }
        // (before the totals count the packet: they are the one level's counts until a second)
        p.count_level_arrival(level);
        p.stats.arrivals += 1;
        p.stats.arrival_bytes += size;
        // An arrival at an idle drop-tail port with nothing queued goes straight onto the wire
        // (issue 25): the FIFO's push and pop of the same packet, which leave the queue as it
        // was, are skipped. The counters are those of the two steps: the length integral gains
        // nothing at the departure (same instant), the longest queue is at least 1
        // (`THROUGH_SEEN`, written into the counters by `Port::settle_counts`). (Not with
        // observers: they see the enqueue and the departure.) Whether the queue is drop-tail
        // and takes any packet when empty is a flag of the port's first line (`THROUGH_OK`;
        // a drop-tail queue with a smaller byte limit takes the other path, whose counts are
        // the same).
        // A RIO port, idle with nothing queued, likewise (`PASS_RIO`): its discipline sees the
        // arrival (averages, verdict, counters) but not the FIFO's push and pop.
        let through = !O
            && p.flags & (THROUGH_OK | PASS_RIO) != 0
            && p.qlen == 0
            && !p.tx_pending
            && p.busy_until <= self.now;
        if through {
            // (RIO, offered the arrival first, may refuse it: `AnyQueue::pass_port`)
            let refused = if p.flags & PASS_RIO != 0 {
                p.queue
                    .pass_port(
                        self.now,
                        id,
                        (size as u32, dscp),
                        &mut self.pool,
                        &mut p.rng,
                    )
                    .err()
            } else {
                debug_assert!(matches!(&p.queue, AnyQueue::DropTail(q) if q.fits_when_empty(size)));
                None
            };
            if let Some(reason) = refused {
                self.queue_drop(port, id, size, level, reason);
            } else {
                p.flags |= THROUGH_SEEN;
                let (pool, events) = (&mut self.pool, &mut self.events);
                // (the packet's size and level as read above: `transmit` need not look again)
                transmit::<O>(
                    p,
                    port,
                    self.now,
                    pool,
                    events,
                    &mut self.captures,
                    id,
                    (size as u32, level),
                );
                self.hops += 1;
                if p.flags & LOOK_AHEAD != 0 {
                    let to = p.to;
                    self.look_ahead(to, id);
                }
            }
        } else {
            self.enqueue_queued::<O>(port, id, size, level, dscp);
        }
        // Giacomazzi et al.: the CSA counts OUT arrivals at its RIO buffer, accepted or not
        if !self.csas.is_empty() {
            let k = self.port_csa[port];
            if k != u32::MAX && level != 0 {
                self.csa_out_arrival(k as usize, flow);
            }
        }
    }

    /// The rest of `enqueue` for an arrival the discipline is offered: queued (and sent at
    /// once if the transmitter is idle) or dropped.
    #[inline(always)]
    fn enqueue_queued<const O: bool>(
        &mut self,
        port: usize,
        id: PacketId,
        size: u64,
        level: usize,
        dscp: u8,
    ) {
        // SAFETY: `enqueue`'s port, just indexed there
        let p = unsafe { port_mut(&mut self.ports, port) };
        let watched = O && p.watch.is_some();
        match p.queue.enqueue_port(
            self.now,
            id,
            (size as u32, dscp),
            &mut self.pool,
            &mut p.rng,
        ) {
            Ok(()) => {
                p.stats.grew(self.now);
                p.qlen += 1;
                // (greater only after the test double `Leaky` lost packets)
                debug_assert!(p.qlen as usize >= p.queue.len_packets());
                let len = u64::from(p.qlen);
                if len > p.stats.max_len_packets {
                    p.stats.max_len_packets = len;
                }
                if watched {
                    watch_arrival(p, &self.pool, &self.colours, self.now, id, None);
                }
                // invariant: packets wait only behind a busy transmitter with a TxDone pending
                if !p.tx_pending {
                    if p.busy_until <= self.now {
                        let (pool, events) = (&mut self.pool, &mut self.events);
                        if let Some(id) = start_tx::<O>(
                            p,
                            port,
                            self.now,
                            pool,
                            &self.colours,
                            events,
                            &mut self.captures,
                        ) {
                            self.hops += 1;
                            if p.flags & LOOK_AHEAD != 0 {
                                let to = p.to;
                                self.look_ahead(to, id);
                            }
                        }
                    } else {
                        p.tx_pending = true;
                        self.events
                            .schedule(p.busy_until, Event::TxDone { port: port as u32 });
                    }
                }
            }
            Err(reason) => {
                if watched {
                    watch_arrival(
                        p,
                        &self.pool,
                        &self.colours,
                        self.now,
                        id,
                        Some(reason.index() as u8),
                    );
                }
                self.queue_drop(port, id, size, level, reason);
            }
        }
    }

    /// A packet the discipline of `port` refused: the port's drop counters, then the packet
    /// freed and charged to its flow. (Out of line: a queue drop is rare against the
    /// packet-hops, and its code in each of `enqueue`'s paths crowded the common ones.)
    #[inline(never)]
    fn queue_drop(
        &mut self,
        port: usize,
        id: PacketId,
        size: u64,
        level: usize,
        reason: DropReason,
    ) {
        // SAFETY: `enqueue`'s port, indexed there
        let p = unsafe { port_mut(&mut self.ports, port) };
        let r = reason.index();
        p.stats.drops[r] += 1;
        p.stats.drop_bytes[r] += size;
        if p.counts_level(level) {
            p.stats.levels[level].drops[r] += 1;
        }
        // (read again here, not carried through the enqueue: issue 25, a register fewer on
        // the packet path; the packet is freed below)
        let pkt = self.pool.get(id);
        p.by_cp.drop(p.cp_first, pkt.rev, pkt.dscp, reason);
        self.drop_packet(id);
    }

    /// Frees a dropped packet and charges it to its flow (the place was counted by the caller).
    fn drop_packet(&mut self, id: PacketId) {
        let pkt = self.pool.get(id);
        let flow = pkt.flow as usize;
        let rev = pkt.rev;
        self.pool.free(id);
        self.dropped += 1;
        if rev {
            self.flows[flow].rev_dropped += 1;
        } else {
            self.flows[flow].packets_dropped += 1;
            self.note_completion(flow);
        }
    }

    #[inline]
    fn note_completion(&mut self, flow: usize) {
        // (one test when no flow is finite, as on the bench scenarios)
        if self.finite_total != 0 && self.finite[flow] && !self.completion_counted[flow] {
            let f = &mut self.flows[flow];
            f.check_complete(self.now);
            if f.completed_at.is_some() {
                self.completion_counted[flow] = true;
                self.finite_done += 1;
            }
        }
    }

    /// Writes every grid instant up to and including `t` (`[[monitor]]` counters), with the
    /// counts as they are before the events at `t` run; called before each event at or past
    /// the next instant, and at the end of the run.
    pub(super) fn sample_grid(&mut self, t: SimTime) {
        let g = &mut self.grid;
        if let Some(s) = g.flows.as_mut() {
            while s.next_ns() <= t.0 {
                s.sample(|e| {
                    let f = &self.flows[e];
                    [f.packets_delivered, f.bytes_delivered, f.packets_dropped]
                });
            }
        }
        if let Some(s) = g.conditioners.as_mut() {
            while s.next_ns() <= t.0 {
                s.sample(|e| {
                    let c = &self.conditioners[e];
                    let m = c.marker_stats();
                    [
                        m.packets[0],
                        m.packets[1],
                        m.packets[2],
                        m.bytes[0],
                        m.bytes[1],
                        m.bytes[2],
                        c.stats.dropped_policed + c.stats.dropped_buffer,
                    ]
                });
            }
        }
        for (port, s) in &mut g.levels {
            let p = &self.ports[*port as usize];
            while s.next_ns() <= t.0 {
                s.sample(|level| {
                    // a level's counters exist from its first packet on (`QueueStats::level_mut`)
                    let Some(l) = p.stats.levels.get(level) else {
                        return [0; 4];
                    };
                    [
                        l.arrivals,
                        l.departures,
                        l.drops.iter().sum(),
                        p.queue.ecn_marks(level).unwrap_or(0),
                    ]
                });
            }
        }
        for (port, s) in &mut g.code_points {
            let p = &self.ports[*port as usize];
            while s.next_ns() <= t.0 {
                s.sample(p.by_cp.cumulative(p.cp_first, &p.stats));
            }
        }
        g.next_ns = [
            g.flows.as_ref().map(CountSeries::next_ns),
            g.conditioners.as_ref().map(CountSeries::next_ns),
        ]
        .into_iter()
        .flatten()
        .chain(g.levels.iter().map(|(_, s)| s.next_ns()))
        .chain(g.code_points.iter().map(|(_, s)| s.next_ns()))
        .min()
        .unwrap_or(u64::MAX);
    }

    /// Packets found in queues, transmitters and on the wire.
    pub(super) fn walk_in_flight(&self) -> u64 {
        let ports: u64 = self
            .ports
            .iter()
            .map(|p| p.queue.len_packets() as u64 + p.line.len() as u64)
            .sum();
        ports
            + self
                .conditioners
                .iter()
                .map(|c| c.held() as u64)
                .sum::<u64>()
    }
}

/// Moves the next packet of port `port` (`p`) onto the wire; the transmitter must be free.
/// Returns the packet that left, if one did (the caller counts the hop). It takes the world's
/// fields it uses, not the world, so that its callers, which hold `p`, do not index `ports`
/// again.
#[inline(always)]
fn start_tx<const O: bool>(
    p: &mut Port,
    port: usize,
    now: SimTime,
    pool: &mut Pool,
    colours: &ColourTable,
    events: &mut EventQueue,
    captures: &mut [pcap::Writer],
) -> Option<PacketId> {
    debug_assert!(p.busy_until <= now);
    if O {
        p.sample(now);
    }
    let Some(id) = p.queue.dequeue(now, pool) else {
        // (only after the test double `Leaky` lost packets)
        p.stats.shrank(now, u64::from(p.qlen));
        p.qlen = 0;
        return None;
    };
    p.stats.shrank(now, 1);
    p.qlen -= 1;
    if O && p.watch.is_some() {
        watch_departure(p, pool, colours, now, id);
    }
    let pkt = pool.get(id);
    let known = (pkt.size, usize::from(colours.level(pkt.dscp)));
    transmit::<O>(p, port, now, pool, events, captures, id, known);
    // (here, not in `transmit`: the through path's drop-tail queue has nothing to be told)
    p.queue.tx_ends(p.busy_until);
    Some(id)
}

/// Puts packet `id`, just taken from port `port`'s queue (`p`), on the wire: departure
/// counters, transmission time, propagation line. The transmitter must be free. `size` and
/// `level` are the packet's (its callers have read them already; issue 25).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn transmit<const O: bool>(
    p: &mut Port,
    port: usize,
    now: SimTime,
    pool: &mut Pool,
    events: &mut EventQueue,
    captures: &mut [pcap::Writer],
    id: PacketId,
    (size, level): (u32, usize),
) {
    debug_assert_eq!(size, pool.get(id).size);
    if p.counts_level(level) {
        debug_assert!(level < p.stats.levels.len());
        // SAFETY: the packet's arrival at this port counted it at `level`
        // (`QueueStats::level_mut`, which makes the level's counters, called by
        // `count_level_arrival` for a level other than the first, or by `list_levels` for the
        // first level once listed; `p.level` is the first level or `LEVEL_LISTED`, never
        // `LEVEL_NONE` after an arrival; no discipline changes a queued packet's code point),
        // and counters are only removed when the world is given up for its report
        // (`World::into_report`): the index is in bounds (issue 25: a bounds check on every
        // hop).
        unsafe { p.stats.levels.get_unchecked_mut(level) }.departures += 1;
    }
    p.stats.departures += 1;
    p.stats.departure_bytes += u64::from(size);
    let tx = p.clock.tx_ns(size);
    p.busy_ns += tx;
    p.busy_until = now + SimDuration(tx);
    let at = p.busy_until + p.delay;
    if p.line.is_empty() {
        events.schedule(at, Event::Arrive { port: port as u32 });
    }
    pool.set_wire_at(id, at);
    p.line.push_back(id);
    let capture = p.capture;
    if O && capture != pcap::NONE {
        captures[capture as usize].write(now, pool.get(id));
    }
}
