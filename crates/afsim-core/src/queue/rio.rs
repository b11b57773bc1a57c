//! RIO: RED with IN and OUT.
//!
//! Read this first.
//! - Sources: Clark & Fang, "Explicit allocation of best-effort packet delivery service"
//!   (IEEE/ACM ToN 1998): one FIFO, two RED curves (min, max, max_p) for IN and for OUT
//!   packets; on every arrival the router updates avg_total (all packets), and on an IN
//!   arrival also avg_in (IN packets only); an IN packet is tested against the IN curve with
//!   avg_in, an OUT packet against the OUT curve with avg_total. Giacomazzi et al. (papers
//!   000/001, "The RIO Buffer") state the same: two concurrent averages, the IN drop probability
//!   depending on the IN packets in the buffer only, the OUT drop probability on all of them.
//!   This is the *coupled* mode (ns-2 `dsredq.cc` `rio_c`). The *decoupled* mode (ns-2
//!   `rio_d`) averages OUT over the OUT packets only.
//! - Colour: from the packet's DSCP through the domain's `ColourTable`: level 0 (green, AFx1)
//!   is IN; every other level (yellow, red, best effort in the RFC 2597 table) is OUT.
//! - RED details (EWMA, count spacing, gentle, wait, byte mode, forced drops beyond max_th,
//!   ECN with `setbit` semantics, the `qlen > 1` guard on the physical queue, hard limit →
//!   `Overflow`) are `queue::red`'s, shared through `Spacing`, `Curve` and `Common`; each colour
//!   has its own count state.
//! - Idle decay, as ns-2 `dsredq.cc`: a virtual queue (IN; total or OUT) is idle from the
//!   dequeue that leaves it empty until a packet of it is accepted; an arrival first decays
//!   that queue's average by the idle slots (see `red::IdleClock`).
//! - ECN: with `Strategy { out_first: true }` this is Leung & Muppala's OUT marking scheme
//!   (`queue::ecn_mark`, their Table 5): the mark goes to a queued OUT packet while there is one.
//!   With `spacing = Dsredq` ECN is ns-2 dsRED's (`queue::red`'s module doc): mark-tail only, an
//!   ECN-capable arrival marked where a non-ECN one would be dropped (early, or above max_th),
//!   on either curve, coupled or decoupled; only a full buffer drops it.
//! - Separate marking thresholds per colour (`Common::mark[0]` for IN, `[1]` for OUT; see
//!   `queue::red`): each colour's marking curve is tested with that colour's average and has its
//!   own count state, so OUT packets can be marked earlier than IN ones.
//!
//! Not modelled: more than two colours with separate averages (use `wred` for N levels on one
//! average), per-colour w_q (ns-2 allows one per precedence; here one w_q), push-out drops.

use crate::sim::ring::Ring;

use crate::net::dscp::ColourTable;
use crate::net::packet::{PacketId, Pool};
use crate::param::ParamError;
use crate::queue::red::{
    act, fits, Activity, Common, Curve, IdleClock, MarkTest, Measure, RedAverage, Spacing, Stats,
    Verdict,
};
use crate::queue::{count_f64, DropReason};
use crate::sim::rng::Rng;
use crate::sim::time::SimTime;

/// How the OUT average is computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Coupling {
    /// OUT average over all packets (Clark & Fang's avg_total; ns-2 `rio_c`).
    Coupled,
    /// OUT average over OUT packets only (ns-2 `rio_d`).
    Decoupled,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Params {
    /// RED curve of IN packets (min_in, max_in, max_p_in), packets.
    pub in_curve: Curve,
    /// RED curve of OUT packets (min_out, max_out, max_p_out), packets.
    pub out_curve: Curve,
    pub coupling: Coupling,
    pub common: Common,
}

impl Params {
    pub fn validate(&self) -> Result<(), ParamError> {
        self.in_curve.validate("in")?;
        self.out_curve.validate("out")?;
        self.common.validate(&[self.in_curve, self.out_curve])
    }
}

/// A RIO queue.
#[derive(Debug)]
pub struct Rio {
    params: Params,
    in_curve: Curve,
    out_curve: Curve,
    /// The marking curves (`common.mark[0]`, `[1]`) in the measured unit.
    in_mark: Option<Curve>,
    out_mark: Option<Curve>,
    colours: ColourTable,
    fifo: Ring<PacketId>,
    bytes: u64,
    in_packets: usize,
    in_bytes: u64,
    avg_in: RedAverage,
    /// avg_total when coupled, the OUT-only average when decoupled.
    avg_out: RedAverage,
    act_in: Activity,
    act_out: Activity,
    clock: IdleClock,
    spacing_in: Spacing,
    spacing_out: Spacing,
    mark_spacing_in: Spacing,
    mark_spacing_out: Spacing,
    /// Whether the OUT average was above min_th_out at its last update (Giacomazzi et al.:
    /// "congested"), and how many times it has crossed above it: the number of the current (or
    /// last) congestion period, for the CSA's P counter.
    out_was_congested: bool,
    congestion_periods: u64,
    pub stats: Stats,
}

impl Rio {
    /// An empty, idle queue. `params` must have passed `validate`.
    pub fn new(params: Params, colours: ColourTable) -> Self {
        debug_assert!(params.validate().is_ok());
        let c = params.common;
        let idle = Activity::idle(SimTime::ZERO);
        Rio {
            params,
            in_curve: params.in_curve.in_unit(c.measure, c.mean_pkt_size),
            out_curve: params.out_curve.in_unit(c.measure, c.mean_pkt_size),
            in_mark: c.mark[0].map(|m| m.in_unit(c.measure, c.mean_pkt_size)),
            out_mark: c.mark[1].map(|m| m.in_unit(c.measure, c.mean_pkt_size)),
            colours,
            fifo: Ring::new(),
            bytes: 0,
            in_packets: 0,
            in_bytes: 0,
            avg_in: RedAverage::default(),
            avg_out: RedAverage::default(),
            act_in: idle,
            act_out: idle,
            clock: IdleClock::new(&c),
            spacing_in: Spacing::default(),
            spacing_out: Spacing::default(),
            mark_spacing_in: Spacing::default(),
            mark_spacing_out: Spacing::default(),
            out_was_congested: false,
            congestion_periods: 0,
            stats: Stats::default(),
        }
    }

    pub fn params(&self) -> &Params {
        &self.params
    }

    /// The IN average (over IN packets), in the measured unit.
    pub fn avg_in(&self) -> f64 {
        self.avg_in.value()
    }

    /// The OUT average: over all packets when coupled (avg_total, the value Giacomazzi's
    /// congestion signalling compares with min_th_out), over OUT packets when decoupled.
    pub fn avg_out(&self) -> f64 {
        self.avg_out.value()
    }

    /// Giacomazzi et al. §IV: the buffer is congested when avg_q_tot > min_th_out (both in the
    /// measured unit; avg_q_tot is the OUT average of coupled RIO).
    pub fn out_congested(&self) -> bool {
        self.avg_out.value() > self.out_curve.min_th
    }

    /// As `out_congested`, for an instant `now` with no arrival: the OUT average decayed over the
    /// idle slots an arrival at `now` would be credited (ns-2 `dsredq.cc` idle decay), without
    /// changing the queue. The CSA's T2 test reads the buffer this way (Giacomazzi et al.:
    /// "when T2 expires …, if the RIO buffer is not congested").
    pub fn out_congested_at(&self, now: SimTime) -> bool {
        let mut act = self.act_out;
        let m = act.slots_for_arrival(now, &self.clock);
        self.avg_out.value() * self.clock.decay(m) > self.out_curve.min_th
    }

    /// How many congestion periods have begun: times the OUT average, updated at an arrival,
    /// went from at most min_th_out to above it. A CSA sets its counter P to 1 at the first OUT
    /// arrival of each period.
    pub fn congestion_periods(&self) -> u64 {
        self.congestion_periods
    }

    /// IN packets queued.
    pub fn in_packets(&self) -> usize {
        self.in_packets
    }

    #[inline]
    fn measured(&self, packets: usize, bytes: u64) -> f64 {
        match self.params.common.measure {
            Measure::Packets => count_f64(packets as u64),
            Measure::Bytes => count_f64(bytes),
        }
    }

    #[inline(always)]
    pub fn enqueue(
        &mut self,
        now: SimTime,
        id: PacketId,
        pool: &mut Pool,
        rng: &mut Rng,
    ) -> Result<(), DropReason> {
        let (size, dscp) = {
            let p = pool.get(id);
            (p.size, p.dscp)
        };
        self.enqueue_read(now, id, (size, dscp), pool, rng)
    }

    /// `enqueue` of a packet whose size and code point the caller has read from the pool (the
    /// port has: issue 25, one read of the packet fewer at each arrival).
    #[inline(always)]
    pub fn enqueue_read(
        &mut self,
        now: SimTime,
        id: PacketId,
        (size, dscp): (u32, u8),
        pool: &mut Pool,
        rng: &mut Rng,
    ) -> Result<(), DropReason> {
        let (outcome, is_in, _) = self.admit(now, id, (size, dscp), pool, rng);
        // dsredq.cc updateIdleFlag: called for an enqueued arrival and, with ECN, before
        // PKT_MARKED, so a marked arrival ends the idle period as an accepted one does
        if outcome.is_ok() {
            self.fifo.push_back(id);
            self.bytes += u64::from(size);
            if is_in {
                self.in_packets += 1;
                self.in_bytes += u64::from(size);
                self.act_in = Activity::Busy;
                if self.params.coupling == Coupling::Coupled {
                    self.act_out = Activity::Busy;
                }
            } else {
                self.act_out = Activity::Busy;
            }
        }
        outcome
    }

    /// `enqueue_read` then `dequeue` of the same packet, for an arrival at an empty queue whose
    /// transmitter is free (the port's: issue 25, the FIFO's push and pop skipped as for
    /// drop-tail, `World::enqueue`). The averages, the verdict and its counters are the
    /// arrival's as `enqueue_read` makes them; if accepted, the queue is left as the
    /// dequeue would leave it: the departure counted, no packet or byte queued, and each
    /// virtual queue the packet was in (IN for an IN packet; the total when coupled, OUT when
    /// decoupled and the packet is OUT) idle from `now` (ns-2 `dsredq.cc`'s idle flag set by the
    /// dequeue that empties it). `Ok`: the packet goes onto the wire now.
    #[inline(always)]
    pub fn pass_read(
        &mut self,
        now: SimTime,
        id: PacketId,
        read: (u32, u8),
        pool: &mut Pool,
        rng: &mut Rng,
    ) -> Result<(), DropReason> {
        debug_assert!(self.fifo.is_empty() && self.bytes == 0 && self.in_packets == 0);
        let (outcome, is_in, level) = self.admit(now, id, read, pool, rng);
        if outcome.is_ok() {
            self.stats.record_departure(usize::from(level));
            let coupled = self.params.coupling == Coupling::Coupled;
            if is_in {
                self.act_in = Activity::idle(now);
            }
            if coupled || !is_in {
                self.act_out = Activity::idle(now);
            }
        }
        outcome
    }

    /// What `enqueue_read` does before the packet joins the FIFO: the buffer test, the
    /// averages, the verdict, the congestion periods and the counters of the arrival. Returns
    /// the outcome, whether the packet is IN, and its level.
    #[inline(always)]
    fn admit(
        &mut self,
        now: SimTime,
        id: PacketId,
        (size, dscp): (u32, u8),
        pool: &mut Pool,
        rng: &mut Rng,
    ) -> (Result<(), DropReason>, bool, u8) {
        debug_assert_eq!((size, dscp), (pool.get(id).size, pool.get(id).dscp));
        let common = &self.params.common;
        let coupled = self.params.coupling == Coupling::Coupled;
        let level = self.colours.level(dscp);
        let is_in = level == 0;
        let total = self.measured(self.fifo.len(), self.bytes);
        let q_in = self.measured(self.in_packets, self.in_bytes);
        // dsredq.cc: a packet that finds the buffer full is refused before it touches the
        // averages (plain RED, red.cc, updates them first), ECN-capable or not
        if !fits(common.limit, self.fifo.len(), self.bytes, size) {
            let spacing = if is_in {
                &mut self.spacing_in
            } else {
                &mut self.spacing_out
            };
            spacing.on_overflow(common.spacing);
            self.stats
                .record(usize::from(level), Err(DropReason::Overflow), false, None);
            return (Err(DropReason::Overflow), is_in, level);
        }
        // dsredq.cc has no "never drop with at most one packet queued" rule (red.cc has)
        let busy = true;
        let (verdict, avg) = if is_in {
            // Clark & Fang: an IN arrival updates avg_in over the IN packets ...
            let m = self.act_in.slots_for_arrival(now, &self.clock);
            let avg = self.clock.update(&mut self.avg_in, q_in, m);
            if coupled {
                // ... and, like every arrival, avg_total over all packets.
                let m = self.act_out.slots_for_arrival(now, &self.clock);
                self.clock.update(&mut self.avg_out, total, m);
            }
            // An IN packet's fate depends on avg_in and the IN curve only.
            (
                self.spacing_in
                    .decide(avg, &self.in_curve, common, busy, size, rng),
                avg,
            )
        } else {
            let q = if coupled { total } else { total - q_in };
            let m = self.act_out.slots_for_arrival(now, &self.clock);
            let avg = self.clock.update(&mut self.avg_out, q, m);
            // An OUT packet's fate depends on avg_total (coupled) and the OUT curve.
            (
                self.spacing_out
                    .decide(avg, &self.out_curve, common, busy, size, rng),
                avg,
            )
        };
        // Giacomazzi et al.: congested when avg_q_tot > min_th_out; number the periods
        let congested = self.avg_out.value() > self.out_curve.min_th;
        if congested && !self.out_was_congested {
            self.congestion_periods += 1;
        }
        self.out_was_congested = congested;
        let marking = if is_in {
            self.in_mark.is_some()
        } else {
            self.out_mark.is_some()
        };
        let outcome = if verdict == Verdict::Accept && !marking {
            // The common case (issue 25): accepted, no marking curve; what `act` and
            // `Stats::record` do for it, without their general path.
            self.stats.record(usize::from(level), Ok(()), false, None);
            Ok(())
        } else {
            self.act_on(verdict, is_in, level, avg, size, id, pool, rng)
        };
        (outcome, is_in, level)
    }

    /// The rest of `enqueue` for a verdict other than a plain accept, or with a marking curve:
    /// the marking curve of the arrival's colour tested with the same average, the verdict
    /// applied (`act`) and counted. Out of line: most arrivals do not come here.
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    fn act_on(
        &mut self,
        verdict: Verdict,
        is_in: bool,
        level: u8,
        avg: f64,
        size: u32,
        id: PacketId,
        pool: &mut Pool,
        rng: &mut Rng,
    ) -> Result<(), DropReason> {
        let busy = true; // as in `enqueue`
        let mark = if is_in {
            self.in_mark.as_ref().map(|curve| MarkTest {
                curve,
                spacing: &mut self.mark_spacing_in,
                avg,
                busy,
                size,
            })
        } else {
            self.out_mark.as_ref().map(|curve| MarkTest {
                curve,
                spacing: &mut self.mark_spacing_out,
                avg,
                busy,
                size,
            })
        };
        let colours = &self.colours;
        let (outcome, forced, marked) = act(
            verdict,
            mark,
            &self.params.common,
            &self.fifo,
            id,
            pool,
            // Leung & Muppala's OUT scheme prefers OUT (rank 1) over IN (rank 0).
            |p| u8::from(colours.level(p.dscp) > 0),
            |v, pool| usize::from(colours.level(pool.get(v).dscp)),
            rng,
        );
        self.stats
            .record(usize::from(level), outcome, forced, marked);
        outcome
    }

    #[inline(always)]
    pub fn dequeue(&mut self, now: SimTime, pool: &mut Pool) -> Option<PacketId> {
        let id = self.fifo.pop_front()?;
        let p = pool.get(id);
        let level = self.colours.level(p.dscp);
        self.bytes -= u64::from(p.size);
        self.stats.record_departure(usize::from(level));
        let is_in = level == 0;
        if is_in {
            self.in_packets -= 1;
            self.in_bytes -= u64::from(p.size);
            if self.in_packets == 0 {
                // dsredq.cc: a virtual queue left empty by a dequeue is idle from now.
                self.act_in = Activity::idle(now);
            }
        }
        let out_empty = match self.params.coupling {
            Coupling::Coupled => self.fifo.is_empty(),
            Coupling::Decoupled => !is_in && self.fifo.len() == self.in_packets,
        };
        if out_empty {
            self.act_out = Activity::idle(now);
        }
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

    /// Checks the counters' identity, and that `queued` matches the FIFO.
    pub fn check_conservation(&self) -> Result<(), String> {
        self.stats.check()?;
        let queued = self.stats.total().queued;
        if queued != self.fifo.len() as u64 {
            return Err(format!(
                "counters say {queued} queued, the FIFO holds {}",
                self.fifo.len()
            ));
        }
        if self.stats.levels[0].queued != self.in_packets as u64 {
            return Err(format!(
                "{} IN packets counted, {} tracked",
                self.stats.levels[0].queued, self.in_packets
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
