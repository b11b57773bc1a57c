//! The conditioner's common case held apart from the general path (issue 25): a classifier
//! without criteria (every packet of the input matches), one aggregate token bucket, which is
//! colour-blind, and no shaping (`Conditioner::simple`, set in `new_shared`). Such a
//! conditioner does what `offer` and `apply` do for it — count the packet as matched, meter
//! it (RFC 2697 §3's rule through `TokenBucket::mark`), count green bytes after the warm-up,
//! apply the colour's rewrite or drop — without the general path's tests of the classifier's
//! criteria, of shaping, of a per-flow meter and of the meter's kind, and with the flow's
//! local index remembered from the last packet (a conditioner on one input line mostly sees
//! one flow) instead of looked up in the flow map.

use super::{Conditioner, ConditionerSpec, Meter, MeterSpec, Outcome};
use crate::net::packet::{PacketId, Pool};
use crate::sim::time::SimTime;

/// Whether a conditioner made from `spec` (`shaping` as `new_shared` found it) is `simple`.
pub(super) fn is_simple(spec: &ConditionerSpec, shaping: bool) -> bool {
    let c = &spec.classifier;
    c.flows.is_empty()
        && c.src.is_none()
        && c.dst.is_none()
        && c.protocol.is_none()
        && c.dscp.is_empty()
        && !spec.per_flow
        && !shaping
        && matches!(spec.meter, MeterSpec::TokenBucket(_))
}

impl Conditioner {
    /// `offer` for a `simple` conditioner: the same counters, colour and outcome.
    #[inline(always)]
    pub(super) fn offer_simple(&mut self, now: SimTime, id: PacketId, pool: &mut Pool) -> Outcome {
        debug_assert!(self.simple && self.classifier.all && !self.per_flow && !self.shaping);
        let p = pool.get_mut(id);
        self.stats.matched += 1;
        let local = if u64::from(p.flow) == self.last_flow.0 {
            self.last_flow.1 as usize
        } else {
            self.local_of_new(p.flow)
        };
        debug_assert!(!self.meters.is_empty());
        // SAFETY: an aggregate conditioner is made with its one meter (`new_shared`, not
        // `per_flow`), and meters are never removed
        let colour = match unsafe { self.meters.get_unchecked_mut(0) } {
            Meter::TokenBucket(tb) => tb.mark(now, p.size),
            _ => unreachable!("a simple conditioner meters with a token bucket"),
        };
        // (`local` is `local_of_new`'s answer for this flow, now or at an earlier packet: the
        // initial `last_flow`, `u64::MAX`, equals no `u32` flow index)
        self.act_on_colour(now, p, local, colour)
    }

    /// The local index of `flow` (added if not seen), remembered for the next packet.
    #[inline(never)]
    fn local_of_new(&mut self, flow: u32) -> usize {
        let local = match self.local.get(flow) {
            Some(i) => i as usize,
            None => self.add_flow(flow),
        };
        self.last_flow = (u64::from(flow), local as u32);
        local
    }
}
