//! Agents: the endpoints at hosts that create and consume packets.
//!
//! Read this first: every flow has two agents, its source (at the flow's `src` node) and its
//! sink (at `dst`). An agent never touches the network directly: it receives a `Ctx` in each
//! hook, sends packets with `Ctx::send` (the engine routes them from the agent's node), and
//! arms timers with `Ctx::set_timer`. Packets handed to `on_packet` are copies; the engine frees
//! the original and counts the delivery. Agents are variants of `AnyAgent`, dispatched by
//! `match`. TCP and TFRC are variants with the same three hooks.

pub mod cbr;
pub mod sink;
pub mod tcp;
pub mod tfrc;

use crate::metrics::flow::FlowStats;
use crate::net::packet::{Packet, PacketId, Pool};
use crate::sim::event::{Event, EventQueue};
use crate::sim::time::SimTime;

/// What an agent may do to the world during one of its hooks.
pub struct Ctx<'a> {
    pub now: SimTime,
    /// This agent's index (what `Packet::dst_agent` names).
    pub me: u32,
    pub(crate) pool: &'a mut Pool,
    pub(crate) events: &'a mut EventQueue,
    /// Packets sent during this hook, injected at the agent's node when the hook returns.
    pub(crate) outbox: &'a mut Vec<PacketId>,
    pub(crate) flow: &'a mut FlowStats,
    pub(crate) generated: &'a mut u64,
    /// The flow's code point (`FlowSpec::dscp`), stamped on its forward packets.
    pub(crate) dscp: u8,
    /// Forward packets sent during this hook (the caller's count of data generated: counted
    /// here, not as the difference of the flow's `packets_sent`, which a hook at the sink
    /// would read from the source's line of `FlowStats` for nothing).
    pub(crate) data_sent: u64,
}

impl Ctx<'_> {
    /// Sends a packet from this agent's node. `rev = false` marks the flow's forward direction
    /// (source → sink, e.g. data), `true` the reverse (e.g. TCP ACKs); per-flow counters keep
    /// the two apart. Forward packets leave with the flow's DSCP (the host marks its traffic,
    /// RFC 2474 §2; edge conditioners may re-mark it); reverse packets keep the one the agent
    /// set (best effort by default).
    #[inline(always)]
    pub fn send(&mut self, mut p: Packet) -> PacketId {
        p.created = self.now;
        *self.generated += 1;
        if p.rev {
            self.flow.rev_sent += 1;
        } else {
            p.dscp = self.dscp;
            self.flow.packets_sent += 1;
            self.flow.bytes_sent += u64::from(p.size);
            self.data_sent += 1;
        }
        let id = self.pool.alloc(p);
        self.outbox.push(id);
        id
    }

    /// Arms a timer: `on_timer(token)` is called at `at` (not before now).
    #[inline]
    pub fn set_timer(&mut self, at: SimTime, token: u32) {
        debug_assert!(at >= self.now, "timer in the past");
        self.events.schedule(
            at.max(self.now),
            Event::Timer {
                agent: self.me,
                token,
            },
        );
    }

    /// The source has sent everything it will ever send: the flow is a finite transfer that
    /// completes once its last packet is delivered or dropped.
    pub fn source_done(&mut self) {
        self.flow.source_done = true;
    }

    /// The transfer is complete by the agent's own definition (e.g. TCP: all bytes acknowledged).
    pub fn transfer_complete(&mut self) {
        if self.flow.completed_at.is_none() {
            self.flow.completed_at = Some(self.now);
        }
    }
}

/// Every agent kind, dispatched by `match`.
///
/// 32 bytes (issue 28): the world's agents are one array of these, read on every agent call,
/// so every kind larger than the UDP sink's 24 bytes is boxed and the array of 2 × flows
/// entries stays small enough for the caches (it was 192 bytes an entry with the TCP receiver
/// and the CBR source inline: at 2,000 flows, 750 KiB read a line per call).
#[derive(Debug)]
pub enum AnyAgent {
    Cbr(Box<cbr::Cbr>),
    Sink(sink::Sink),
    TcpSender(Box<tcp::sender::Sender>),
    TcpReceiver(Box<tcp::receiver::Receiver>),
    TfrcSender(Box<tfrc::sender::Sender>),
    TfrcReceiver(Box<tfrc::receiver::Receiver>),
}

const _: () = assert!(std::mem::size_of::<AnyAgent>() == 32);

impl AnyAgent {
    /// Where the lines a packet's hook reads most of the agent's state start: three lines from
    /// each of the two addresses (the TCP sender's state of an ACK in the open state is in its
    /// first six lines, the receiver's in its first two: issue 28, branch scale8), for a
    /// prefetch before the hook (`World::deliver`). Only a hint: nothing is read through them.
    #[inline(always)]
    pub fn hot_lines(&self) -> [*const u8; 2] {
        let p: *const u8 = match self {
            AnyAgent::Cbr(a) => (&**a as *const cbr::Cbr).cast(),
            AnyAgent::Sink(s) => (s as *const sink::Sink).cast(),
            AnyAgent::TcpSender(a) => (&**a as *const tcp::sender::Sender).cast(),
            AnyAgent::TcpReceiver(a) => (&**a as *const tcp::receiver::Receiver).cast(),
            AnyAgent::TfrcSender(a) => (&**a as *const tfrc::sender::Sender).cast(),
            AnyAgent::TfrcReceiver(a) => (&**a as *const tfrc::receiver::Receiver).cast(),
        };
        let second = if matches!(self, AnyAgent::TcpSender(_)) {
            3 * 64
        } else {
            0
        };
        [p, p.wrapping_add(second)]
    }

    /// Called once at time zero.
    pub fn start(&mut self, ctx: &mut Ctx) {
        match self {
            AnyAgent::Cbr(a) => a.start(ctx),
            AnyAgent::Sink(_) => {}
            AnyAgent::TcpSender(a) => a.start(ctx),
            AnyAgent::TcpReceiver(a) => a.start(ctx),
            AnyAgent::TfrcSender(a) => a.start(ctx),
            AnyAgent::TfrcReceiver(_) => {}
        }
    }

    #[inline]
    pub fn on_timer(&mut self, token: u32, ctx: &mut Ctx) {
        match self {
            AnyAgent::Cbr(a) => a.on_timer(token, ctx),
            AnyAgent::Sink(_) => {}
            AnyAgent::TcpSender(a) => a.on_timer(token, ctx),
            AnyAgent::TcpReceiver(a) => a.on_timer(token, ctx),
            AnyAgent::TfrcSender(a) => a.on_timer(token, ctx),
            AnyAgent::TfrcReceiver(a) => a.on_timer(token, ctx),
        }
    }

    #[inline]
    pub fn on_packet(&mut self, p: &Packet, ctx: &mut Ctx) {
        match self {
            AnyAgent::Cbr(_) => {}
            AnyAgent::Sink(a) => a.on_packet(p, ctx),
            AnyAgent::TcpSender(a) => a.on_packet(p, ctx),
            AnyAgent::TcpReceiver(a) => a.on_packet(p, ctx),
            AnyAgent::TfrcSender(a) => a.on_packet(p, ctx),
            AnyAgent::TfrcReceiver(a) => a.on_packet(p, ctx),
        }
    }

    /// The flow index this agent serves.
    pub fn flow(&self) -> u32 {
        match self {
            AnyAgent::Cbr(a) => a.flow,
            AnyAgent::Sink(a) => a.flow,
            AnyAgent::TcpSender(a) => a.flow,
            AnyAgent::TcpReceiver(a) => a.flow,
            AnyAgent::TfrcSender(a) => a.flow,
            AnyAgent::TfrcReceiver(a) => a.flow,
        }
    }
}
