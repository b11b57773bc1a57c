//! A RED-family verdict applied and counted: per-level counters (`Stats`), the ECN-or-drop
//! decision for one arrival (`act`) and the hard limit (`fits`), shared by `Red`, `rio` and
//! `wred`.

use crate::sim::ring::Ring;

use super::common::{Common, Curve};
use super::maths::{Spacing, Verdict};
use crate::net::dscp::MAX_LEVELS;
use crate::net::packet::{PacketId, Pool};
use crate::queue::ecn_mark::{self, Signal};
use crate::queue::DropReason;
use crate::queue::Limit;
use crate::sim::rng::Rng;

/// Counters of one drop-precedence level.
///
/// Identity: `arrivals = forwarded + early_drops + overflow_drops + queued`, and
/// `forced_drops <= early_drops`. `ecn_marks` counts marks put on packets of this level (a
/// packet may be marked more than once by mark-front / mark-random).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LevelCounters {
    pub arrivals: u64,
    /// Handed to the link (dequeued).
    pub forwarded: u64,
    /// Dropped by the AQM: random early drops plus forced drops.
    pub early_drops: u64,
    /// The part of `early_drops` forced by an average beyond max_th (2·max_th if gentle).
    pub forced_drops: u64,
    /// Dropped at the hard limit.
    pub overflow_drops: u64,
    pub ecn_marks: u64,
    /// In the queue now.
    pub queued: u64,
}

impl LevelCounters {
    fn add(&mut self, o: &LevelCounters) {
        self.arrivals += o.arrivals;
        self.forwarded += o.forwarded;
        self.early_drops += o.early_drops;
        self.forced_drops += o.forced_drops;
        self.overflow_drops += o.overflow_drops;
        self.ecn_marks += o.ecn_marks;
        self.queued += o.queued;
    }

    /// Early plus overflow drops.
    pub fn drops(&self) -> u64 {
        self.early_drops + self.overflow_drops
    }
}

/// Per-level counters of an AQM queue (see `LevelCounters` for the identity).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stats {
    pub levels: [LevelCounters; MAX_LEVELS],
}

impl Stats {
    /// Sum over levels.
    pub fn total(&self) -> LevelCounters {
        let mut t = LevelCounters::default();
        for l in &self.levels {
            t.add(l);
        }
        t
    }

    /// Checks the conservation identity of every level.
    pub fn check(&self) -> Result<(), String> {
        for (i, l) in self.levels.iter().enumerate() {
            if l.arrivals != l.forwarded + l.early_drops + l.overflow_drops + l.queued {
                return Err(format!(
                    "level {i}: arrivals != forwarded + early + overflow + queued: {l:?}"
                ));
            }
            if l.forced_drops > l.early_drops {
                return Err(format!(
                    "level {i}: more forced drops than early drops: {l:?}"
                ));
            }
        }
        Ok(())
    }

    /// Counts an arrival and what became of it. `marked` is the level of a packet that got a
    /// CE mark because of this arrival.
    #[inline]
    pub(crate) fn record(
        &mut self,
        level: usize,
        outcome: Result<(), DropReason>,
        forced: bool,
        marked: Option<usize>,
    ) {
        debug_assert!(level < MAX_LEVELS);
        // SAFETY: callers pass a `ColourTable::level` (as `record_departure`'s), below
        // `MAX_LEVELS`, this array's length
        let l = unsafe { self.levels.get_unchecked_mut(level) };
        l.arrivals += 1;
        match outcome {
            Ok(()) => l.queued += 1,
            Err(DropReason::Overflow) => l.overflow_drops += 1,
            Err(_) => {
                l.early_drops += 1;
                if forced {
                    l.forced_drops += 1;
                }
            }
        }
        if let Some(m) = marked {
            self.levels[m].ecn_marks += 1;
        }
    }

    #[inline]
    pub(crate) fn record_departure(&mut self, level: usize) {
        debug_assert!(level < MAX_LEVELS);
        // SAFETY: callers pass a `ColourTable::level`, below the table's level count, which
        // `ColourTable::new` keeps at most `MAX_LEVELS` (and `set` below it), this array's
        // length
        let l = unsafe { self.levels.get_unchecked_mut(level) };
        l.queued -= 1;
        l.forwarded += 1;
    }
}

/// The second test of an arrival, against its colour's marking curve (see the module doc): the
/// curve in the measured unit, its own count state, and what the drop test was given.
pub(crate) struct MarkTest<'a> {
    pub curve: &'a Curve,
    pub spacing: &'a mut Spacing,
    pub avg: f64,
    pub busy: bool,
    pub size: u32,
}

/// What an AQM does with an arrival once its drop verdict is known. Without a marking curve:
/// forced → drop; early → ECN mark (if configured and the chosen packet is ECN-capable) or
/// drop; accept → enqueue. With one (`mark`, and ECN on): the drop verdict drops, and an
/// accepted arrival is tested against the marking curve. Returns the outcome, whether it was
/// forced, and the level of a packet marked. Shared by RED/RIO/WRED.
#[allow(clippy::too_many_arguments)]
pub(crate) fn act(
    verdict: Verdict,
    mark: Option<MarkTest>,
    common: &Common,
    fifo: &Ring<PacketId>,
    id: PacketId,
    pool: &mut Pool,
    rank: impl Fn(&crate::net::packet::Packet) -> u8,
    level_of: impl Fn(PacketId, &Pool) -> usize,
    rng: &mut Rng,
) -> (Result<(), DropReason>, bool, Option<usize>) {
    // The common case first (issue 25): accepted, and no marking curve to test.
    if verdict == Verdict::Accept && mark.is_none() {
        return (Ok(()), false, None);
    }
    if let (Some(m), Some(strategy)) = (mark, common.ecn) {
        return match verdict {
            // With a marking curve, the drop curve's verdicts are drops, ECN-capable or not.
            Verdict::Forced => (Err(DropReason::Early), true, None),
            Verdict::Early => (Err(DropReason::Early), false, None),
            // Same average, the marking curve: early, or beyond its max_th (a mark with
            // probability 1), signals; a packet that cannot carry the mark loses the signal.
            Verdict::Accept => match m
                .spacing
                .decide(m.avg, m.curve, common, m.busy, m.size, rng)
            {
                Verdict::Accept => (Ok(()), false, None),
                Verdict::Early | Verdict::Forced => {
                    match ecn_mark::signal(strategy, fifo, id, pool, rank, rng) {
                        Signal::Marked(v) => (Ok(()), false, Some(level_of(v, pool))),
                        Signal::NotEcnCapable(_) => (Ok(()), false, None),
                    }
                }
            },
        };
    }
    match verdict {
        Verdict::Accept => (Ok(()), false, None),
        // dsredq.cc: with ECN, beyond th_max the packet is marked as well
        Verdict::Forced if common.ecn_forced_mark && common.ecn.is_some() => {
            let strategy = common.ecn.expect("checked");
            match ecn_mark::signal(strategy, fifo, id, pool, rank, rng) {
                // dsred.cc dsREDQueue::enque: PKT_MARKED sets ce() and the packet stays queued
                Signal::Marked(v) => (Ok(()), false, Some(level_of(v, pool))),
                // dsredq.cc redQueue::enque: without ecn (no ect()) it is PKT_DROPPED, as before
                Signal::NotEcnCapable(_) => (Err(DropReason::Early), true, None),
            }
        }
        Verdict::Forced => (Err(DropReason::Early), true, None),
        Verdict::Early => match common.ecn {
            None => (Err(DropReason::Early), false, None),
            Some(strategy) => match ecn_mark::signal(strategy, fifo, id, pool, rank, rng) {
                // red.cc setbit_; dsredq.cc redQueue::enque returns PKT_MARKED for `u <= pa`
                // with ecn, and dsred.cc dsREDQueue::enque sets ce() and keeps the packet
                Signal::Marked(v) => (Ok(()), false, Some(level_of(v, pool))),
                // dsredq.cc redQueue::enque: PKT_EDROPPED for a packet without ect()
                Signal::NotEcnCapable(_) => (Err(DropReason::Early), false, None),
            },
        },
    }
}

/// Whether a packet of `size` bytes fits under `limit` with `len` packets / `bytes` queued
/// (the drop-tail rule).
#[inline]
pub(crate) fn fits(limit: Limit, len: usize, bytes: u64, size: u32) -> bool {
    match limit {
        Limit::Packets(n) => len < n as usize,
        Limit::Bytes(b) => bytes + u64::from(size) <= b,
    }
}
