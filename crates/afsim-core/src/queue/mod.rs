//! Output queue disciplines, one per port direction.
//!
//! Read this first: a discipline decides, on each arrival, whether the packet is enqueued or
//! dropped (and why), and on each departure which packet leaves. It may rewrite the ECN field of
//! packets it holds (marking), so it is handed the packet pool. Disciplines are variants of
//! `AnyQueue`, dispatched by `match`: the per-packet path has no boxed calls. Each discipline
//! keeps its packets as `PacketId`s; the port owns the counters (`QueueStats`), so every
//! discipline is counted the same way.
//!
//! Adding a discipline: a file in this folder with `enqueue`/`dequeue`/`len_*`, a variant in
//! `AnyQueue`, a variant in `scenario::spec::QueueSpec`.
//!
//! Disciplines: `drop_tail` (FIFO), `red` (Floyd & Jacobson as ns-2), `rio` (Clark & Fang,
//! coupled or decoupled), `wred` (up to 8 drop precedences on one average), with ECN marking
//! positions in `ecn_mark` (Leung & Muppala); `sima` (the SIMA core node: real-time and
//! non-real-time buffers behind the allowed drop precedence, Laatu, Harju, Loula §2).

pub mod drop_tail;
pub mod ecn_mark;
pub mod red;
pub mod rio;
pub mod scheduler;
pub mod sima;
pub mod wred;

use crate::net::dscp::ColourTable;
use crate::net::packet::{PacketId, Pool};
use crate::sim::rng::Rng;
use crate::sim::time::SimTime;

/// `n as f64` for a count of queued packets or bytes, through `i64`: one instruction where
/// `u64`'s conversion takes six on this target (issue 25), and the same value below 2⁶³
/// (both round the same integer to the nearest `f64`). A queue's counts are of packets it
/// holds, each at most 4 GiB (`u32` sizes), and no pool holds 2³¹ of them, so they stay far
/// below 2⁶³.
#[inline(always)]
pub(crate) fn count_f64(n: u64) -> f64 {
    debug_assert!(n < 1 << 63);
    n as i64 as f64
}

/// A buffer limit, in packets or in bytes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Limit {
    Packets(u32),
    Bytes(u64),
}

/// An output queue discipline, as a scenario configures it (`scenario::spec` names it too). New
/// disciplines are new variants. The link rate inside the
/// RED-family parameters is filled in from the link when the world is built.
#[derive(Clone, Debug, PartialEq)]
pub enum QueueSpec {
    DropTail {
        limit: Limit,
    },
    Red(crate::queue::red::Params),
    Rio(crate::queue::rio::Params, crate::net::dscp::ColourTable),
    Wred(crate::queue::wred::Params, crate::net::dscp::ColourTable),
    /// Several classes, each with its own inner queue, served by a scheduler
    /// (`queue::scheduler`).
    Scheduler(scheduler::SchedulerSpec),
    /// SIMA's core node: real-time and non-real-time buffers behind the allowed drop
    /// precedence (`queue::sima`).
    Sima(crate::queue::sima::Params),
}

/// Why a packet was dropped. The order of variants is the order of report columns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DropReason {
    /// The buffer was full (tail drop, or an AQM's hard limit).
    Overflow,
    /// An AQM dropped it early (RED and relatives).
    Early,
    /// No route to the destination at some node.
    NoRoute,
    /// An edge conditioner's action for the packet's colour was to drop it (policing).
    Policed,
    /// An edge conditioner had to hold the packet and its buffer was full.
    EdgeBuffer,
    /// Lost on a lossy link after its transmission (`net::loss`): not a queue's drop.
    LinkLoss,
    /// Removed by a discipline that loses packets without telling anyone — only the test double
    /// that proves the conservation check can fail.
    #[cfg(test)]
    Unaccounted,
}

impl DropReason {
    pub const ALL: &'static [DropReason] = &[
        DropReason::Overflow,
        DropReason::Early,
        DropReason::NoRoute,
        DropReason::Policed,
        DropReason::EdgeBuffer,
        DropReason::LinkLoss,
    ];
    /// The reasons a queue can drop for (its report row lists these).
    pub const QUEUE: &'static [DropReason] = &[DropReason::Overflow, DropReason::Early];

    pub fn name(self) -> &'static str {
        match self {
            DropReason::Overflow => "overflow",
            DropReason::Early => "early",
            DropReason::NoRoute => "no_route",
            DropReason::Policed => "policed",
            DropReason::EdgeBuffer => "edge_buffer",
            DropReason::LinkLoss => "link_loss",
            #[cfg(test)]
            DropReason::Unaccounted => "unaccounted",
        }
    }

    pub const fn index(self) -> usize {
        match self {
            DropReason::Overflow => 0,
            DropReason::Early => 1,
            DropReason::NoRoute => 2,
            DropReason::Policed => 3,
            DropReason::EdgeBuffer => 4,
            DropReason::LinkLoss => 5,
            #[cfg(test)]
            DropReason::Unaccounted => 6,
        }
    }
}

/// Number of drop reasons (counter arrays are indexed by `DropReason::index`).
pub const N_DROP_REASONS: usize = 6;

/// Number of reasons a queue drops for (`DropReason::QUEUE`: overflow and early, indices 0 and
/// 1): a queue's counters by reason (`QueueStats`, `LevelStats`) hold these only, which keeps
/// 64 bytes a port and 32 a level of counters that stayed zero out of every port (issue 28).
pub const N_QUEUE_DROP_REASONS: usize = 2;
const _: () = assert!(
    DropReason::Overflow.index() < N_QUEUE_DROP_REASONS
        && DropReason::Early.index() < N_QUEUE_DROP_REASONS
);

/// Every discipline, dispatched without boxing. The AQM variants are large (per-level
/// counters, parameters, the idle clock's table: over a kilobyte); boxing them made no
/// measurable difference to either bench reference (8 alternating runs each, same sitting),
/// so they stay inline and save the indirection.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
///
/// The RED family and SIMA are boxed (1.4–1.7 kB each against drop-tail's 56 bytes), so that a
/// port with a drop-tail queue, as most ports of a large network are, stays small (issue 28).
#[repr(u8)]
pub enum AnyQueue {
    DropTail(drop_tail::DropTail),
    Red(Box<red::Red>),
    Rio(Box<rio::Rio>),
    Wred(Box<wred::Wred>),
    /// Classes with their own queues under one scheduler (boxed: it holds `AnyQueue`s).
    Scheduler(Box<scheduler::Scheduler>),
    /// SIMA's core node (its own RT/NRT buffers and admission rule).
    Sima(Box<sima::Sima>),
    /// Test double: a drop-tail queue that silently loses every `n`-th packet it dequeues.
    #[cfg(test)]
    Leaky(drop_tail::DropTail, u64, u64),
}

/// The port's stream of a discipline that draws (`AnyQueue::enqueue_port`).
#[inline(always)]
fn stream(rng: &mut Option<Box<Rng>>) -> &mut Rng {
    match rng.as_deref_mut() {
        Some(r) => r,
        None => unreachable!("World::build gives every discipline but drop-tail a stream"),
    }
}

impl AnyQueue {
    /// The discipline a spec describes, for a port of `link_rate_bps` (RED's idle decay
    /// counts idle time in transmission times of a mean-sized packet on this link).
    pub fn from_spec(spec: &QueueSpec, link_rate_bps: u64) -> AnyQueue {
        match spec {
            QueueSpec::DropTail { limit } => AnyQueue::DropTail(drop_tail::DropTail::new(*limit)),
            QueueSpec::Red(p) => {
                let mut p = *p;
                p.common.link_rate_bps = link_rate_bps;
                AnyQueue::Red(Box::new(red::Red::new(p, ColourTable::rfc2597())))
            }
            QueueSpec::Rio(p, colours) => {
                let mut p = *p;
                p.common.link_rate_bps = link_rate_bps;
                AnyQueue::Rio(Box::new(rio::Rio::new(p, colours.clone())))
            }
            QueueSpec::Wred(p, colours) => {
                let mut p = p.clone();
                p.common.link_rate_bps = link_rate_bps;
                AnyQueue::Wred(Box::new(wred::Wred::new(p, colours.clone())))
            }
            QueueSpec::Scheduler(s) => {
                AnyQueue::Scheduler(Box::new(scheduler::Scheduler::new(s, link_rate_bps)))
            }
            QueueSpec::Sima(p) => AnyQueue::Sima(Box::new(sima::Sima::new(*p))),
        }
    }

    pub fn kind(&self) -> &'static str {
        match self {
            AnyQueue::DropTail(_) => "droptail",
            AnyQueue::Red(_) => "red",
            AnyQueue::Rio(_) => "rio",
            AnyQueue::Wred(_) => "wred",
            AnyQueue::Scheduler(_) => "scheduler",
            AnyQueue::Sima(_) => "sima",
            #[cfg(test)]
            AnyQueue::Leaky(..) => "leaky",
        }
    }

    /// Offers an arriving packet. `Ok` means the discipline now holds it; `Err` means the
    /// caller must drop it for the given reason.
    ///
    /// `enqueue` and `dequeue` are always inlined into the port's packet path (issue 25): left
    /// to the inliner, each was a call with its own prologue, about 25 instructions per
    /// packet-hop apiece on a drop-tail port.
    #[inline(always)]
    pub fn enqueue(
        &mut self,
        now: SimTime,
        id: PacketId,
        pool: &mut Pool,
        rng: &mut Rng,
    ) -> Result<(), DropReason> {
        match self {
            AnyQueue::DropTail(q) => q.enqueue(now, id, pool, rng),
            AnyQueue::Red(q) => q.enqueue(now, id, pool, rng),
            AnyQueue::Rio(q) => q.enqueue(now, id, pool, rng),
            AnyQueue::Wred(q) => q.enqueue(now, id, pool, rng),
            AnyQueue::Scheduler(q) => q.enqueue(now, id, pool, rng),
            AnyQueue::Sima(q) => q.enqueue(now, id, pool, rng),
            #[cfg(test)]
            AnyQueue::Leaky(q, ..) => q.enqueue(now, id, pool, rng),
        }
    }

    /// `enqueue` for a port whose random stream exists only if its discipline draws from one
    /// (`World::build` makes it for every discipline but drop-tail, which never draws: so a
    /// drop-tail port holds 8 bytes of stream, not 32; issue 28).
    /// `read` is the packet's size and code point, which the port has read: RIO
    /// takes them from there instead of reading the packet again.
    #[inline(always)]
    pub fn enqueue_port(
        &mut self,
        now: SimTime,
        id: PacketId,
        read: (u32, u8),
        pool: &mut Pool,
        rng: &mut Option<Box<Rng>>,
    ) -> Result<(), DropReason> {
        match self {
            AnyQueue::DropTail(q) => q.push(id, pool),
            AnyQueue::Red(q) => q.enqueue(now, id, pool, stream(rng)),
            AnyQueue::Rio(q) => q.enqueue_read(now, id, read, pool, stream(rng)),
            AnyQueue::Wred(q) => q.enqueue(now, id, pool, stream(rng)),
            AnyQueue::Scheduler(q) => q.enqueue(now, id, pool, stream(rng)),
            AnyQueue::Sima(q) => q.enqueue(now, id, pool, stream(rng)),
            #[cfg(test)]
            AnyQueue::Leaky(q, ..) => q.push(id, pool),
        }
    }

    /// `enqueue_port` then `dequeue` of the same packet, for an arrival at an empty RIO queue
    /// whose transmitter is free (`World::enqueue`, where the port's `PASS_RIO` flag says the
    /// queue is RIO): `rio::Rio::pass_read`. `Ok`: the packet goes onto the wire now.
    #[inline(always)]
    pub fn pass_port(
        &mut self,
        now: SimTime,
        id: PacketId,
        read: (u32, u8),
        pool: &mut Pool,
        rng: &mut Option<Box<Rng>>,
    ) -> Result<(), DropReason> {
        match self {
            AnyQueue::Rio(q) => q.pass_read(now, id, read, pool, stream(rng)),
            _ => unreachable!("only a RIO queue passes an arrival straight through"),
        }
    }

    /// Takes the next packet to transmit.
    #[inline(always)]
    pub fn dequeue(&mut self, now: SimTime, pool: &mut Pool) -> Option<PacketId> {
        match self {
            AnyQueue::DropTail(q) => q.dequeue(now, pool),
            AnyQueue::Red(q) => q.dequeue(now, pool),
            AnyQueue::Rio(q) => q.dequeue(now, pool),
            AnyQueue::Wred(q) => q.dequeue(now, pool),
            AnyQueue::Scheduler(q) => q.dequeue(now, pool),
            AnyQueue::Sima(q) => q.dequeue(now, pool),
            #[cfg(test)]
            AnyQueue::Leaky(q, every, count) => {
                let id = q.dequeue(now, pool)?;
                *count += 1;
                if *count % *every == 0 {
                    // lose it without counting it anywhere: conservation must catch this
                    pool.free(id);
                    return q.dequeue(now, pool);
                }
                Some(id)
            }
        }
    }

    /// The packets queued now (end-of-run accounting, not the packet path): head first for a
    /// single FIFO, class by class for a scheduler.
    pub fn queued(&self) -> Box<dyn Iterator<Item = PacketId> + '_> {
        match self {
            AnyQueue::DropTail(q) => Box::new(q.queued().iter().copied()),
            AnyQueue::Red(q) => Box::new(q.queued().iter().copied()),
            AnyQueue::Rio(q) => Box::new(q.queued().iter().copied()),
            AnyQueue::Wred(q) => Box::new(q.queued().iter().copied()),
            AnyQueue::Scheduler(q) => Box::new(q.queued()),
            AnyQueue::Sima(q) => Box::new(q.queued()),
            #[cfg(test)]
            AnyQueue::Leaky(q, ..) => Box::new(q.queued().iter().copied()),
        }
    }

    /// The discipline's averages as last computed, for `metrics::series`: (avg, avg_in) with
    /// RED's and WRED's avg, RIO's OUT average (avg_total when coupled) and IN average; NaN
    /// where the discipline keeps none.
    pub fn averages(&self) -> (f64, f64) {
        match self {
            AnyQueue::Red(q) => (q.avg(), f64::NAN),
            AnyQueue::Rio(q) => (q.avg_out(), q.avg_in()),
            AnyQueue::Wred(q) => (q.avg(), f64::NAN),
            _ => (f64::NAN, f64::NAN),
        }
    }

    /// ECN marks the discipline put on packets of drop-precedence `level`; `None` for a
    /// discipline that never marks.
    pub fn ecn_marks(&self, level: usize) -> Option<u64> {
        match self {
            AnyQueue::Red(q) => Some(q.stats.levels[level].ecn_marks),
            AnyQueue::Rio(q) => Some(q.stats.levels[level].ecn_marks),
            AnyQueue::Wred(q) => Some(q.stats.levels[level].ecn_marks),
            AnyQueue::Scheduler(q) => q.ecn_marks(level),
            _ => None,
        }
    }

    /// Early drops of drop-precedence `level` that were forced (average at or beyond max_th,
    /// or 2·max_th when gentle) rather than random; `None` for a discipline without an AQM.
    pub fn forced_drops(&self, level: usize) -> Option<u64> {
        match self {
            AnyQueue::Red(q) => Some(q.stats.levels[level].forced_drops),
            AnyQueue::Rio(q) => Some(q.stats.levels[level].forced_drops),
            AnyQueue::Wred(q) => Some(q.stats.levels[level].forced_drops),
            AnyQueue::Scheduler(q) => q.forced_drops(level),
            _ => None,
        }
    }

    /// The port's transmitter will finish the packet just dequeued at `at`.
    #[inline]
    pub fn tx_ends(&mut self, at: SimTime) {
        match self {
            AnyQueue::Red(q) => q.tx_ends(at),
            AnyQueue::Scheduler(q) => q.tx_ends(at),
            AnyQueue::DropTail(_) | AnyQueue::Rio(_) | AnyQueue::Wred(_) | AnyQueue::Sima(_) => {}
            #[cfg(test)]
            AnyQueue::Leaky(..) => {}
        }
    }

    #[inline]
    pub fn len_packets(&self) -> usize {
        match self {
            AnyQueue::DropTail(q) => q.len_packets(),
            AnyQueue::Red(q) => q.len_packets(),
            AnyQueue::Rio(q) => q.len_packets(),
            AnyQueue::Wred(q) => q.len_packets(),
            AnyQueue::Scheduler(q) => q.len_packets(),
            AnyQueue::Sima(q) => q.len_packets(),
            #[cfg(test)]
            AnyQueue::Leaky(q, ..) => q.len_packets(),
        }
    }

    #[inline]
    pub fn len_bytes(&self) -> u64 {
        match self {
            AnyQueue::DropTail(q) => q.len_bytes(),
            AnyQueue::Red(q) => q.len_bytes(),
            AnyQueue::Rio(q) => q.len_bytes(),
            AnyQueue::Wred(q) => q.len_bytes(),
            AnyQueue::Scheduler(q) => q.len_bytes(),
            AnyQueue::Sima(q) => q.len_bytes(),
            #[cfg(test)]
            AnyQueue::Leaky(q, ..) => q.len_bytes(),
        }
    }
}

/// Counters of one drop-precedence level at one queue.
///
/// Identity: `arrivals = departures + sum(drops) + queued now`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LevelStats {
    pub arrivals: u64,
    pub departures: u64,
    /// By `DropReason::index` of the queue's reasons.
    pub drops: [u64; N_QUEUE_DROP_REASONS],
}

/// Counters of one output queue.
///
/// Identity (checked at the end of every run):
/// `arrivals = departures + sum(drops) + len_packets` (and the same in bytes).
///
/// In declaration order (`repr(C)`): the four counters every packet-hop adds to come first,
/// so that a simulator port (`world::Port`) keeps them in its first two cache lines (issue 28,
/// branch scale7).
#[derive(Clone, Debug, PartialEq)]
#[repr(C)]
pub struct QueueStats {
    pub arrivals: u64,
    pub arrival_bytes: u64,
    pub departures: u64,
    pub departure_bytes: u64,
    pub max_len_packets: u64,
    /// By `DropReason::index` of the queue's reasons (`N_QUEUE_DROP_REASONS`).
    pub drops: [u64; N_QUEUE_DROP_REASONS],
    pub drop_bytes: [u64; N_QUEUE_DROP_REASONS],
    /// The same counts by drop-precedence level (the domain's `ColourTable`): `MAX_LEVELS` by
    /// default, or as many as `with_levels` says, or up to the highest level seen
    /// (`level_mut`). A vector, not an array of `MAX_LEVELS`, so that a port that only sees
    /// level 0 holds 64 bytes of them, not 512, and a port that sees nothing none (issue 28);
    /// the report skips levels without arrivals either way.
    pub levels: Vec<LevelStats>,
    /// Integral of the queue length in packets over time (packet·ns), for the time average:
    /// a `u128` in two halves (high, low), so that the counters and the port holding them are
    /// aligned to 8 bytes, not 16 (8 bytes a port; issue 28). `len_integral()` reads it.
    ///
    /// Kept in one of two ways. The live fabric calls `before_change` before each change of
    /// the length (the length so far times the time since the last change). The simulator's
    /// ports instead keep Σ Δlen·t over the changes here while the run goes on (`grew` adds
    /// the instant of an enqueue, `shrank` subtracts that of a dequeue: one addition, where
    /// `before_change` is a product and two more fields, issue 25), and `settle` turns that
    /// into the integral at the end: ∫₀ᵀ len dt = Σ Δlenᵢ·(T − tᵢ) = len(T)·T − Σ Δlenᵢ·tᵢ,
    /// exact in wrapping 128-bit arithmetic since the result lies in 0..2¹²⁸.
    len_integral: [u64; 2],
    /// The last `before_change` (live fabric) or `settle`.
    pub last_change: SimTime,
}

impl Default for QueueStats {
    fn default() -> Self {
        Self::with_levels(crate::net::dscp::MAX_LEVELS)
    }
}

impl QueueStats {
    /// The counters of `level`, made (with those below it) at its first packet.
    /// (Inlined into every enqueue; the growth, once per level, out of line.)
    #[inline(always)]
    pub fn level_mut(&mut self, level: usize) -> &mut LevelStats {
        if level >= self.levels.len() {
            self.grow_levels(level);
        }
        debug_assert!(level < self.levels.len());
        // SAFETY: `levels` was longer than `level`, or `grow_levels(level)` just resized it to
        // `level + 1`: the index is in bounds (issue 25: the compiler kept the check, the
        // growth being out of line; 0.7 % of all instructions on udp-reference).
        unsafe { self.levels.get_unchecked_mut(level) }
    }

    #[cold]
    #[inline(never)]
    fn grow_levels(&mut self, level: usize) {
        // (exactly: `resize` alone makes room for at least 4, 256 bytes for one level)
        self.levels.reserve_exact(level + 1 - self.levels.len());
        self.levels.resize(level + 1, LevelStats::default());
    }

    /// Counters for a domain of `levels` drop-precedence levels.
    pub fn with_levels(levels: usize) -> Self {
        QueueStats {
            arrivals: 0,
            arrival_bytes: 0,
            departures: 0,
            departure_bytes: 0,
            drops: [0; N_QUEUE_DROP_REASONS],
            drop_bytes: [0; N_QUEUE_DROP_REASONS],
            max_len_packets: 0,
            levels: vec![LevelStats::default(); levels],
            len_integral: [0; 2],
            last_change: SimTime::ZERO,
        }
    }

    /// Accumulates the time-average before the length changes.
    #[inline]
    pub fn before_change(&mut self, now: SimTime, len_packets: usize) {
        let sum =
            self.len_integral() + u128::from(now.0 - self.last_change.0) * len_packets as u128;
        self.len_integral = [(sum >> 64) as u64, sum as u64];
        self.last_change = now;
    }

    /// Integral of the queue length in packets over time (packet·ns), up to the last
    /// `before_change` or `settle`.
    pub fn len_integral(&self) -> u128 {
        u128::from(self.len_integral[0]) << 64 | u128::from(self.len_integral[1])
    }

    #[inline(always)]
    fn set_len_integral(&mut self, v: u128) {
        self.len_integral = [(v >> 64) as u64, v as u64];
    }

    /// The simulator's port: the length grows by one at `now` (see `len_integral`).
    #[inline(always)]
    pub fn grew(&mut self, now: SimTime) {
        self.set_len_integral(self.len_integral().wrapping_add(u128::from(now.0)));
    }

    /// The simulator's port: the length shrinks by `n` at `now` (see `len_integral`).
    #[inline(always)]
    pub fn shrank(&mut self, now: SimTime, n: u64) {
        let d = u128::from(now.0) * u128::from(n);
        self.set_len_integral(self.len_integral().wrapping_sub(d));
    }

    /// The simulator's port at a report, its length `len` (the sum of the changes `grew`
    /// and `shrank` counted): Σ Δlen·t becomes the integral up to `now`, for `len_integral`
    /// to read; `unsettle(now, len)` turns it back, so that a world can report more than once.
    pub fn settle(&mut self, now: SimTime, len: u64) {
        let sum = (u128::from(len) * u128::from(now.0)).wrapping_sub(self.len_integral());
        self.set_len_integral(sum);
        self.last_change = now;
    }

    /// Undoes `settle(now, len)` (the same subtraction: it is its own inverse).
    pub fn unsettle(&mut self, now: SimTime, len: u64) {
        self.settle(now, len);
    }

    pub fn total_drops(&self) -> u64 {
        self.drops.iter().sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::rng::stream;

    #[test]
    fn sums_of_the_changes_settle_to_the_integral_before_change_keeps() {
        // the simulator's form (grew/shrank, then settle) against the live fabric's
        // (before_change at each change), over random lengths, gaps and instants up to 2^62 ns
        let mut rng = stream(5, "integral");
        for round in 0..20u64 {
            let (mut live, mut sim) = (QueueStats::default(), QueueStats::default());
            let (mut now, mut len) = (0u64, 0u64);
            for _ in 0..2_000 {
                // gaps below 2^62 (a shift of 2 to 61), the instant capped at 2^62
                let gap = rng.next_u64() >> (2 + rng.next_u64() % 40 + (round % 3) * 10);
                now = (now + gap).min(1 << 62);
                let t = SimTime(now);
                let shrink = len > 0 && rng.uniform() < 0.5;
                live.before_change(t, len as usize);
                if shrink {
                    let n = if rng.uniform() < 0.02 { len } else { 1 };
                    sim.shrank(t, n);
                    len -= n;
                } else {
                    sim.grew(t);
                    len += 1;
                }
            }
            let end = SimTime(now + 12_345);
            live.before_change(end, len as usize);
            sim.settle(end, len);
            assert_eq!(sim.len_integral(), live.len_integral(), "round {round}");
            sim.unsettle(end, len);
            sim.settle(end, len);
            assert_eq!(sim.len_integral(), live.len_integral(), "settled twice");
        }
    }
}
