//! RED: Random Early Detection, as ns-2 implements it.
//!
//! Read this first.
//! - Sources: Floyd & Jacobson, "Random Early Detection Gateways for Congestion Avoidance"
//!   (IEEE/ACM ToN 1993), and ns-2.35 `queue/red.cc`, whose details this file follows:
//!   - the average is an EWMA of the instantaneous queue length *before* the arrival, updated
//!     on every arrival with weight w_q;
//!   - after an idle period the average first decays as if m packets had arrived to an empty
//!     queue, m = ⌊idle time / transmission time of a mean-sized packet⌋ (`IdleClock::slots`); the
//!     queue is idle from the moment the link finishes its last packet;
//!   - p_b rises linearly from 0 at min_th to max_p at max_th; with `gentle`, from max_p at
//!     max_th to 1 at 2·max_th; beyond max_th (2·max_th if gentle) every arrival is dropped
//!     ("forced");
//!   - drop spacing p_a = p_b / (1 − count·p_b), or with `wait` 0 below count·p_b = 1 and
//!     p_b / (2 − count·p_b) up to 2; `count` is the number of arrivals since the last early
//!     drop, set to 1 by the first arrival to find the average above min_th (which is never
//!     dropped early — ns-2's `old` flag; the paper instead starts count at 0 and tests it);
//!   - byte mode (`bytes_`): count is counted in mean-sized packets and p_a is scaled by
//!     size / mean_pkt_size;
//!   - no early drop while the queue holds at most one packet (`qlen > 1`);
//!   - ECN (`setbit_`): an early (unforced) drop becomes a CE mark if the packet chosen by the
//!     marking strategy (`queue::ecn_mark`) is ECN-capable; forced drops stay drops even for
//!     ECN-capable packets — unless `Common::ecn_forced_mark`, ns-2 DiffServ's rule
//!     (`dsredq.cc`, `redQueue::enque`: with ECN, an average beyond th_max returns
//!     `PKT_MARKED` too), under which a forced verdict marks like an early one and only the
//!     hard limit (or a packet that cannot carry the mark) drops;
//!   - the hard limit drops the arrival (`Overflow`), whatever the average says, and resets
//!     count as a forced drop does.
//! - ECN under `SpacingRule::Dsredq` (RIO and WRED only; a plain `Red` refuses that rule): ns-2's
//!   DiffServ queue has one ECN path, and only it is accepted. `dsred.cc`, `dsREDQueue::enque`,
//!   calls the arrival ECN-capable when the queue's `ecn_` is set and the packet's `ect()` bit
//!   is (a CE packet keeps `ect()`, as `ecn_mark::ecn_capable` counts it); `dsredq.cc`,
//!   `redQueue::enque`, then tests the full buffer (a drop, ECN or not, before any RED state),
//!   updates the averages, and — for an ECN-capable arrival — returns `PKT_MARKED` where it
//!   would drop: on a random early decision of its uncapped p_a, and whenever the average is
//!   above max_th; `dsREDQueue::enque` sets CE in *that* packet and keeps it queued (dsredq.cc
//!   queues an ECN-capable arrival between the averages and the decision, which reads only the
//!   averages, so queueing it after the decision, as here, changes nothing). The count
//!   restarts at 0 on a mark exactly as on a drop, and a marked arrival ends the idle period of
//!   its virtual queue (`updateIdleFlag`) as an accepted one does. Non-ECN arrivals are
//!   dropped as before. So: `ecn = "tail"` only (mark-front, mark-random and the OUT scheme
//!   mark some other packet, which dsred.cc cannot), `ecn_forced_mark` on, no marking curves;
//!   `Common::validate` refuses anything else at the field that asks for it.
//! - Separate marking thresholds (not in ns-2; `Common::mark`): a colour's drop curve may have a
//!   marking curve beside it, used only with ECN. The arrival is tested twice with the same
//!   average: first against the drop curve, whose early and forced verdicts then *drop* it,
//!   ECN-capable or not; if it is not dropped (nor refused at the hard limit), against the
//!   marking curve, with its own count state and the same maths (gentle, wait, byte mode, the
//!   `qlen > 1` guard), whose early verdict — and, beyond its max_th, every arrival — puts a CE
//!   mark on the packet the marking strategy chooses, and never drops. If that packet is not
//!   ECN-capable the signal is lost: no mark, and the arrival is queued (drops are the drop
//!   curve's business; with `ecn_mark`'s usual rule a marking curve would drop every non-ECT
//!   mark-tail arrival beyond its max_th, below the drop curve's min_th). Marking thresholds
//!   are usually below the drop thresholds; that is not enforced. Without a marking curve ECN
//!   works as above.
//! - Thresholds are in packets, as ns-2's `thresh_`/`maxthresh_`; when the queue is measured in
//!   bytes (`Measure::Bytes`, ns-2 `queue_in_bytes_`) they are multiplied by `mean_pkt_size`.
//! - The maths is pure and separate (`RedAverage`, `IdleClock`, `decay_factor`,
//!   `drop_probability`, `spaced`, `byte_scaled`, and `Spacing`, the count state machine), so
//!   tests check it exactly. `IdleClock` prepares each queue's idle arithmetic once (an exact
//!   division by one multiplication, `red/divisor.rs`, and a table of decay factors); the tests
//!   check it against the plain formula (`tests::idle_slots`) and ns-2's loop.
//!   `Spacing`, `Curve`, `Common`, `Stats` and `Activity` are shared with `rio` and `wred`.
//! - Files: this one holds `Params` and the `Red` queue; `red/common.rs` the parameters every
//!   RED-family queue shares (`Measure`, `Curve`, `SpacingRule`, `Common`); `red/maths.rs` the
//!   pure maths and state machines; `red/divisor.rs` the idle clock's exact division by a
//!   constant; `red/verdict.rs` how a verdict is applied (ECN mark or drop,
//!   `act`) and counted (`Stats`). All are re-exported here, so `queue::red::X` names them.
//! - Drops: early and forced both return `DropReason::Early`; per-level counters in `Stats`
//!   tell them apart. Levels are drop-precedence levels from the domain's `ColourTable`, used
//!   here for counting only.
//!
//! Not modelled: Adaptive/Gentle-adaptive RED (ns-2 `adaptive_`), `cautious_`, `mark_p`,
//! drop-front / drop-random victims of forced drops (the arrival is always the victim), the
//! Holt-Winters estimator, framing overhead in the idle time (the transmission time of the
//! last packet is computed from its IP size at `link_rate_bps`).
mod common;
mod divisor;
mod maths;
mod verdict;

use crate::sim::ring::Ring;

use crate::net::dscp::ColourTable;
use crate::net::packet::{PacketId, Pool};
use crate::param::ParamError;
use crate::queue::DropReason;
use crate::sim::rng::Rng;
use crate::sim::time::SimTime;

pub use common::{Common, Curve, Measure, SpacingRule};
pub use maths::{
    byte_scaled, decay_factor, drop_probability, spaced, Activity, IdleClock, RedAverage, Spacing,
    Verdict,
};
pub(crate) use verdict::{act, fits, MarkTest};
pub use verdict::{LevelCounters, Stats};

/// Parameters of a RED queue.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Params {
    pub curve: Curve,
    pub common: Common,
}

impl Params {
    pub fn validate(&self) -> Result<(), ParamError> {
        self.curve.validate("thresholds")?;
        if self.common.spacing == SpacingRule::Dsredq {
            // ns-2's only queue with dsredq.cc's rules is dsRED, which is `wred` (one level: one
            // precedence) or `rio` here; `Red::enqueue` keeps red.cc's order of tests and idle clock
            return Err(ParamError::new(
                "spacing",
                "spacing \"dsredq\" is ns-2's DiffServ queue (dsredq.cc): use a wred queue with one level, or spacing \"red\"",
            ));
        }
        self.common.validate(&[self.curve])
    }
}

/// A RED queue.
#[derive(Debug)]
pub struct Red {
    params: Params,
    /// `params.curve` in the measured unit.
    curve: Curve,
    /// The marking curve (`common.mark[0]`) in the measured unit, and its count state.
    mark: Option<Curve>,
    mark_spacing: Spacing,
    colours: ColourTable,
    fifo: Ring<PacketId>,
    bytes: u64,
    avg: RedAverage,
    spacing: Spacing,
    link: Activity,
    clock: IdleClock,
    pub stats: Stats,
}

impl Red {
    /// An empty, idle queue (ns-2 starts RED idle at time 0). `params` must have passed
    /// `validate`; `colours` sorts the counters by level.
    pub fn new(params: Params, colours: ColourTable) -> Self {
        debug_assert!(params.validate().is_ok());
        let c = params.common;
        Red {
            params,
            curve: params.curve.in_unit(c.measure, c.mean_pkt_size),
            mark: c.mark[0].map(|m| m.in_unit(c.measure, c.mean_pkt_size)),
            mark_spacing: Spacing::default(),
            colours,
            fifo: Ring::new(),
            bytes: 0,
            avg: RedAverage::default(),
            spacing: Spacing::default(),
            link: Activity::idle(SimTime::ZERO),
            clock: IdleClock::new(&params.common),
            stats: Stats::default(),
        }
    }

    pub fn params(&self) -> &Params {
        &self.params
    }

    /// The average queue length, in the measured unit.
    pub fn avg(&self) -> f64 {
        self.avg.value()
    }

    pub fn spacing(&self) -> &Spacing {
        &self.spacing
    }

    #[inline]
    fn measured_len(&self) -> f64 {
        match self.params.common.measure {
            Measure::Packets => self.fifo.len() as f64,
            Measure::Bytes => crate::queue::count_f64(self.bytes),
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
        let common = &self.params.common;
        let (size, level) = {
            let p = pool.get(id);
            (p.size, usize::from(self.colours.level(p.dscp)))
        };
        // red.cc: the average sees the queue the packet finds, after crediting idle time.
        let q = self.measured_len();
        let m = self.link.slots_for_arrival(now, &self.clock);
        let avg = self.clock.update(&mut self.avg, q, m);
        let busy = q > 1.0;
        let verdict = self
            .spacing
            .decide(avg, &self.curve, common, busy, size, rng);
        // red.cc: "if (q+1) > hard q limit, this is a FORCED drop", overriding the test above.
        if !fits(common.limit, self.fifo.len(), self.bytes, size) {
            self.spacing.on_forced_drop();
            self.stats
                .record(level, Err(DropReason::Overflow), false, None);
            return Err(DropReason::Overflow);
        }
        let outcome = if verdict == Verdict::Accept && self.mark.is_none() {
            // The common case (issue 25): accepted, no marking curve; what `act` and
            // `Stats::record` do for it, without their general path.
            self.stats.record(level, Ok(()), false, None);
            Ok(())
        } else {
            self.act_on(verdict, level, avg, busy, size, id, pool, rng)
        };
        if outcome.is_ok() {
            self.fifo.push_back(id);
            self.bytes += u64::from(size);
            self.link = Activity::Busy;
        }
        outcome
    }

    /// The rest of `enqueue` for a verdict other than a plain accept, or with a marking curve:
    /// the marking curve tested with the same average, the verdict applied (`act`) and
    /// counted. Out of line: most arrivals do not come here.
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    fn act_on(
        &mut self,
        verdict: Verdict,
        level: usize,
        avg: f64,
        busy: bool,
        size: u32,
        id: PacketId,
        pool: &mut Pool,
        rng: &mut Rng,
    ) -> Result<(), DropReason> {
        let colours = &self.colours;
        let mark = self.mark.as_ref().map(|curve| MarkTest {
            curve,
            spacing: &mut self.mark_spacing,
            avg,
            busy,
            size,
        });
        let (outcome, forced, marked) = act(
            verdict,
            mark,
            &self.params.common,
            &self.fifo,
            id,
            pool,
            |p| colours.level(p.dscp),
            |v, pool| usize::from(colours.level(pool.get(v).dscp)),
            rng,
        );
        self.stats.record(level, outcome, forced, marked);
        outcome
    }

    #[inline(always)]
    pub fn dequeue(&mut self, now: SimTime, pool: &mut Pool) -> Option<PacketId> {
        match self.fifo.pop_front() {
            Some(id) => {
                let p = pool.get(id);
                self.bytes -= u64::from(p.size);
                self.stats
                    .record_departure(usize::from(self.colours.level(p.dscp)));
                if self.fifo.is_empty() {
                    // red.cc: idle from when the link, finding the queue empty, has finished
                    // this packet.
                    self.link = Activity::idle(now + self.params.common.tx_time(p.size));
                }
                Some(id)
            }
            None => {
                // red.cc: a dequeue that finds nothing starts the idle period now.
                match &mut self.link {
                    Activity::Idle { since, .. } => *since = (*since).min(now),
                    Activity::Busy => self.link = Activity::idle(now),
                }
                None
            }
        }
    }

    /// The port's transmitter will finish the packet just dequeued at `at` (framing included).
    /// If that left the queue empty, the link goes idle then — red.cc's idle start, exact
    /// where `dequeue`'s own estimate (IP bytes at the link rate) ignores framing.
    #[inline]
    pub fn tx_ends(&mut self, at: SimTime) {
        if self.fifo.is_empty() {
            if let Activity::Idle { since, .. } = &mut self.link {
                *since = at;
            }
        }
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
        Ok(())
    }
}

/// Synthetic arrival sequences driven through a discipline in front of a link, for the ordering
/// tests of RED, RIO and WRED.
#[cfg(test)]
pub(crate) mod testkit;

#[cfg(test)]
mod tests;
