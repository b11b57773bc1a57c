//! The agents' side of the event loop (issue 25): an agent's hook and the packets it sends
//! (`call_agent`), and the counters of a delivery (`count_delivery`).

use super::super::unchecked::{at, at_mut};
use super::LOCAL;
use crate::sim::time::SimTime;
use crate::transport::{AnyAgent, Ctx};
use crate::world::World;

impl World<'_> {
    /// Counts a packet of `flow` delivered now (`rev`: the flow's reverse direction), created
    /// at `created`, of `size` bytes and code point `dscp`.
    #[inline(always)]
    pub(super) fn count_delivery(
        &mut self,
        flow: usize,
        rev: bool,
        size: u32,
        created: SimTime,
        dscp: u8,
    ) {
        self.delivered += 1;
        let f = &mut self.flows[flow];
        if rev {
            f.rev_delivered += 1;
        } else {
            f.delivered(self.now, size, created, self.warmup);
            let delay_ns = self.now.0 - created.0;
            // SAFETY: `flows[flow]` above was in bounds, and `flow_delays` has as many
            // entries (both `n_flows`, made in `build.rs`, never resized). (Its count and sum
            // are the flow's `packets_delivered` and `delay_sum_ns`, just counted: the report
            // reads them there, `World::flow_row`.)
            unsafe { at_mut(&mut self.flow_delays, flow) }.record_sample(delay_ns);
            self.class_delays[usize::from(dscp & 63)].record(delay_ns);
        }
    }

    /// Runs one agent hook, then sends what it sent from its node.
    ///
    /// The packets sent are pushed on the world's `outbox` as a stack (issue 25: no `Vec` taken
    /// out and put back per call): this call's are those above the length it found, sent in
    /// order, then cut off. A packet delivered to an agent at the same node calls this again
    /// from `receive`; that call's packets go above this one's and are gone before it goes on,
    /// so the order of the sends is the order of a fresh outbox per call.
    #[inline]
    pub(in crate::world) fn call_agent<const O: bool>(
        &mut self,
        agent: u32,
        hook: impl FnOnce(&mut AnyAgent, &mut Ctx),
    ) {
        let a = agent as usize;
        // SAFETY: agent ids are the world's: a timer's is the `Ctx::me` of the agent that set
        // it, a packet's `dst_agent` the peer id `build.rs` gave its sender (CSA signals, the
        // one other kind, are handled before), `build.rs`'s own calls the indices of `agents`;
        // agents are never removed
        let ag = unsafe { at_mut(&mut self.agents, a) };
        // flow i's agents are 2i (source) and 2i + 1 (sink) (`build.rs`)
        let flow = a >> 1;
        debug_assert_eq!(flow, ag.flow() as usize);
        // SAFETY: `flow` is the index of a spec flow (above), below `spec.flows.len()`, which
        // is `flow_dscp`'s length and at most `flows`' (`n_flows`, signal flows after); neither
        // is ever resized
        let dscp = unsafe { *at(&self.flow_dscp, flow) };
        let f = unsafe { at_mut(&mut self.flows, flow) };
        let start = self.outbox.len();
        let mut ctx = Ctx {
            now: self.now,
            me: agent,
            pool: &mut self.pool,
            events: &mut self.events,
            outbox: &mut self.outbox,
            flow: f,
            generated: &mut self.generated,
            dscp,
            data_sent: 0,
        };
        hook(ag, &mut ctx);
        // forward packets are the source's: data (and a SYN); the sink's ACKs are reverse
        self.data_generated += ctx.data_sent;
        let end = self.outbox.len();
        if end > start {
            // SAFETY: `agents[a]` above was in bounds, and `agent_node` has an entry per agent
            // (two per spec flow, pushed together in `build.rs`, never resized)
            let node = unsafe { *at(&self.agent_node, a) };
            for i in start..end {
                // SAFETY: `i < end`, the outbox's length after the hook; the sends below only
                // push above `end` and cut back to it (the stack order above)
                let id = unsafe { *at(&self.outbox, i) };
                self.receive::<O>(node, id, LOCAL);
            }
            self.outbox.truncate(start);
        }
        self.note_completion(flow);
    }
}
