//! WRED: multi-level RED, N drop precedences sharing one average.
//!
//! Read this first.
//! - Sources: the WRED mode of ns-2's DiffServ queue (`dsredq.cc`, `mredMode = wred`): one
//!   average over the whole physical queue, updated on every arrival, and a RED curve per drop
//!   precedence; a packet is tested against its own precedence's curve. RFC 2597 §4 asks an AF
//!   implementation for a drop probability that does not decrease with drop precedence, which
//!   per-level curves (lower thresholds for higher levels) provide. The RED maths (EWMA, count
//!   spacing per level, gentle, wait, byte mode, forced drops, ECN `setbit` semantics, the
//!   `qlen > 1` guard, hard limit → `Overflow`) is `queue::red`'s.
//! - Levels: a packet's level is its drop-precedence level in the domain's `ColourTable`
//!   (0 = dropped last); levels beyond the last curve use the last curve. 1..=8 curves (SIMA
//!   uses eight precedence levels).
//! - Idle decay as `dsredq.cc`: the queue is idle from the dequeue that empties it.
//! - ECN: with `Strategy { out_first: true }` the mark goes to a queued packet of the highest
//!   level present (Leung & Muppala's OUT scheme, generalised to N levels). With
//!   `spacing = Dsredq` ECN is ns-2 dsRED's (`queue::red`'s module doc): mark-tail only, an
//!   ECN-capable arrival marked where a non-ECN one of its level would be dropped (early, or
//!   above its level's max_th); only a full buffer drops it.
//! - Separate marking thresholds per level (`Common::mark[k]` beside `curves[k]`; see
//!   `queue::red`): tested with the shared average, each with its own count state.
//!
//! Not modelled: per-level w_q, per-level averages (that is `rio`'s decoupled mode for two
//! colours), push-out drops.

use crate::sim::ring::Ring;

use crate::net::dscp::{ColourTable, MAX_LEVELS};
use crate::net::packet::{PacketId, Pool};
use crate::param::ParamError;
use crate::queue::red::{
    act, fits, Activity, Common, Curve, IdleClock, MarkTest, Measure, RedAverage, Spacing, Stats,
};
use crate::queue::DropReason;
use crate::sim::rng::Rng;
use crate::sim::time::SimTime;

#[derive(Clone, Debug, PartialEq)]
pub struct Params {
    /// The RED curve of each drop-precedence level, level 0 first; thresholds in packets.
    pub curves: Vec<Curve>,
    pub common: Common,
}

impl Params {
    pub fn validate(&self) -> Result<(), ParamError> {
        if self.curves.is_empty() || self.curves.len() > MAX_LEVELS {
            return Err(ParamError::new(
                "levels",
                format!("{} curves; WRED takes 1..={MAX_LEVELS}", self.curves.len()),
            ));
        }
        for c in &self.curves {
            c.validate("levels")?;
        }
        self.common.validate(&self.curves)
    }
}

/// A WRED queue.
#[derive(Debug)]
pub struct Wred {
    params: Params,
    /// The curves in the measured unit.
    curves: Vec<Curve>,
    /// Each curve's marking curve (`common.mark`) in the measured unit.
    marks: Vec<Option<Curve>>,
    colours: ColourTable,
    fifo: Ring<PacketId>,
    bytes: u64,
    avg: RedAverage,
    activity: Activity,
    clock: IdleClock,
    spacing: Vec<Spacing>,
    mark_spacing: Vec<Spacing>,
    pub stats: Stats,
}

impl Wred {
    /// An empty, idle queue. `params` must have passed `validate`.
    pub fn new(params: Params, colours: ColourTable) -> Self {
        debug_assert!(params.validate().is_ok());
        let c = params.common;
        let curves = params
            .curves
            .iter()
            .map(|k| k.in_unit(c.measure, c.mean_pkt_size))
            .collect::<Vec<_>>();
        let marks = c.mark[..curves.len()]
            .iter()
            .map(|m| m.map(|m| m.in_unit(c.measure, c.mean_pkt_size)))
            .collect();
        let spacing = vec![Spacing::default(); curves.len()];
        let clock = IdleClock::new(&params.common);
        Wred {
            params,
            marks,
            mark_spacing: spacing.clone(),
            curves,
            colours,
            fifo: Ring::new(),
            bytes: 0,
            avg: RedAverage::default(),
            activity: Activity::idle(SimTime::ZERO),
            clock,
            spacing,
            stats: Stats::default(),
        }
    }

    pub fn params(&self) -> &Params {
        &self.params
    }

    /// The shared average, in the measured unit.
    pub fn avg(&self) -> f64 {
        self.avg.value()
    }

    #[inline]
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
        let curve_ix = level.min(self.curves.len() - 1);
        let q = match common.measure {
            Measure::Packets => self.fifo.len() as f64,
            Measure::Bytes => crate::queue::count_f64(self.bytes),
        };
        // dsredq.cc: a packet that finds the buffer full is refused before it touches the
        // average (plain RED, red.cc, updates it first), ECN-capable or not
        if !fits(common.limit, self.fifo.len(), self.bytes, size) {
            self.spacing[curve_ix].on_overflow(common.spacing);
            self.stats
                .record(level, Err(DropReason::Overflow), false, None);
            return Err(DropReason::Overflow);
        }
        // dsredq.cc (wred): one average over the physical queue, whatever the arrival's level.
        let m = self.activity.slots_for_arrival(now, &self.clock);
        let avg = self.clock.update(&mut self.avg, q, m);
        // ... tested against the arrival's own precedence curve; dsredq.cc has no "never drop
        // with at most one packet queued" rule (red.cc has)
        let verdict =
            self.spacing[curve_ix].decide(avg, &self.curves[curve_ix], common, true, size, rng);
        let mark = self.marks[curve_ix].as_ref().map(|curve| MarkTest {
            curve,
            spacing: &mut self.mark_spacing[curve_ix],
            avg,
            busy: true,
            size,
        });
        let colours = &self.colours;
        let (outcome, forced, marked) = act(
            verdict,
            mark,
            common,
            &self.fifo,
            id,
            pool,
            |p| colours.level(p.dscp),
            |v, pool| usize::from(colours.level(pool.get(v).dscp)),
            rng,
        );
        self.stats.record(level, outcome, forced, marked);
        // dsredq.cc updateIdleFlag (wred: qParam_[0]): a marked arrival ends the idle period too
        if outcome.is_ok() {
            self.fifo.push_back(id);
            self.bytes += u64::from(size);
            self.activity = Activity::Busy;
        }
        outcome
    }

    #[inline]
    pub fn dequeue(&mut self, now: SimTime, pool: &mut Pool) -> Option<PacketId> {
        let id = self.fifo.pop_front()?;
        let p = pool.get(id);
        self.bytes -= u64::from(p.size);
        self.stats
            .record_departure(usize::from(self.colours.level(p.dscp)));
        if self.fifo.is_empty() {
            // dsredq.cc: idle from the dequeue that empties the queue.
            self.activity = Activity::idle(now);
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
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::dscp::{Class, Marking, AF11, AF12, AF13};
    use crate::net::packet::{Ecn, Packet};
    use crate::queue::ecn_mark::{Position, Strategy};
    use crate::queue::red::testkit::{poisson, run, Discipline};
    use crate::queue::red::SpacingRule;
    use crate::scenario::spec::Limit;
    use crate::sim::rng::stream;

    impl Discipline for Wred {
        fn enq(
            &mut self,
            now: SimTime,
            id: PacketId,
            pool: &mut Pool,
            rng: &mut Rng,
        ) -> Result<(), DropReason> {
            self.enqueue(now, id, pool, rng)
        }
        fn deq(&mut self, now: SimTime, pool: &mut Pool) -> Option<PacketId> {
            self.dequeue(now, pool)
        }
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    /// Level k: min_th 40 − 4k, max_th 60 − 4k: each level dropped a little earlier.
    fn staggered(n: usize) -> Vec<Curve> {
        (0..n)
            .map(|k| {
                let k = k as f64;
                Curve {
                    min_th: 40.0 - 4.0 * k,
                    max_th: 60.0 - 4.0 * k,
                    max_p: 0.1,
                }
            })
            .collect()
    }

    fn common() -> Common {
        let mut c = Common::new(8_000_000, Limit::Packets(500));
        c.mean_pkt_size = 1_000;
        c
    }

    /// A table of `n` levels where DSCP 2k means level k.
    fn table(n: u8) -> ColourTable {
        let mut t = ColourTable::new(
            n,
            Marking {
                class: Class::BestEffort,
                level: n - 1,
            },
        )
        .unwrap();
        for k in 0..n {
            t.set(
                2 * k,
                Marking {
                    class: Class::Local(0),
                    level: k,
                },
            )
            .unwrap();
        }
        t
    }

    fn pkt(pool: &mut Pool, dscp: u8) -> PacketId {
        pool.alloc(Packet {
            size: 1_000,
            dscp,
            ecn: Ecn::Ect0,
            ..Default::default()
        })
    }

    #[test]
    fn every_level_updates_the_one_shared_average() {
        let mut c = common();
        c.w_q = 0.5;
        let mut q = Wred::new(
            Params {
                curves: staggered(3),
                common: c,
            },
            ColourTable::rfc2597(),
        );
        let (mut pool, mut rng) = (Pool::new(), stream(1, "q"));
        for (dscp, expect) in [(AF11, 0.0), (AF13, 0.5), (AF12, 1.25), (AF11, 2.125)] {
            let id = pkt(&mut pool, dscp);
            q.enqueue(SimTime::ZERO, id, &mut pool, &mut rng).unwrap();
            assert!(close(q.avg(), expect), "{} vs {expect}", q.avg());
        }
    }

    /// Average held at 12: level 0 (20, 40) accepts, level 2 (5, 10) is beyond max → forced,
    /// level 1 (10, 20) is inside its band → random.
    #[test]
    fn each_level_is_tested_against_its_own_curve() {
        let mut c = common();
        c.w_q = 1e-12;
        c.limit = Limit::Packets(5_000);
        let curves = vec![
            Curve {
                min_th: 20.0,
                max_th: 40.0,
                max_p: 0.1,
            },
            Curve {
                min_th: 10.0,
                max_th: 20.0,
                max_p: 0.5,
            },
            Curve {
                min_th: 5.0,
                max_th: 10.0,
                max_p: 0.1,
            },
        ];
        let mut q = Wred::new(Params { curves, common: c }, ColourTable::rfc2597());
        q.avg = RedAverage::starting_at(12.0);
        let (mut pool, mut rng) = (Pool::new(), stream(1, "q"));
        q.fifo.extend([pkt(&mut pool, AF11), pkt(&mut pool, AF11)]);
        let mut outcomes = [0u32; 3];
        for _ in 0..300 {
            for (l, d) in [AF11, AF12, AF13].into_iter().enumerate() {
                let id = pkt(&mut pool, d);
                if q.enqueue(SimTime::ZERO, id, &mut pool, &mut rng).is_err() {
                    outcomes[l] += 1;
                }
            }
        }
        assert_eq!(outcomes[0], 0);
        assert!(outcomes[1] > 10 && outcomes[1] < 300, "{outcomes:?}");
        assert_eq!(outcomes[2], 300);
        assert_eq!(q.stats.levels[2].forced_drops, 300);
    }

    #[test]
    fn levels_beyond_the_last_curve_use_the_last_curve() {
        let mut c = common();
        c.w_q = 1.0;
        let curves = vec![
            Curve {
                min_th: 20.0,
                max_th: 40.0,
                max_p: 0.1,
            },
            Curve {
                min_th: 2.0,
                max_th: 4.0,
                max_p: 0.1,
            },
        ];
        let mut q = Wred::new(Params { curves, common: c }, ColourTable::rfc2597());
        let (mut pool, mut rng) = (Pool::new(), stream(1, "q"));
        for _ in 0..5 {
            let id = pkt(&mut pool, AF11);
            q.enqueue(SimTime::ZERO, id, &mut pool, &mut rng).unwrap();
        }
        let red = pkt(&mut pool, AF13);
        assert_eq!(
            q.enqueue(SimTime::ZERO, red, &mut pool, &mut rng),
            Err(DropReason::Early)
        );
        assert_eq!(
            q.stats.levels[2].forced_drops, 1,
            "counted under the packet's own level"
        );
    }

    fn loss_by_level(n: u8) -> Vec<f64> {
        let mut c = common();
        c.w_q = 0.02;
        let mut q = Wred::new(
            Params {
                curves: staggered(n as usize),
                common: c,
            },
            table(n),
        );
        let dscps: Vec<u8> = (0..n).map(|k| 2 * k).collect();
        let arrivals = poisson(17, 60_000, 9.6e6, 1_000, &dscps);
        run(&mut q, &arrivals, 8_000_000, 5);
        q.check_conservation().unwrap();
        q.stats.levels[..n as usize]
            .iter()
            .map(|l| l.drops() as f64 / l.arrivals as f64)
            .collect()
    }

    #[test]
    fn loss_is_monotone_in_the_drop_precedence_level() {
        for n in [2u8, 3, 4, 8] {
            let loss = loss_by_level(n);
            assert!(
                loss.windows(2).all(|w| w[0] <= w[1]),
                "{n} levels: {loss:?}"
            );
            assert!(loss[0] < loss[n as usize - 1], "{n} levels: {loss:?}");
        }
    }

    #[test]
    fn idle_period_starts_at_the_dequeue_that_empties_the_queue() {
        let mut c = common();
        c.w_q = 0.5;
        let mut q = Wred::new(
            Params {
                curves: staggered(3),
                common: c,
            },
            ColourTable::rfc2597(),
        );
        q.avg = RedAverage::starting_at(8.0);
        let (mut pool, mut rng) = (Pool::new(), stream(1, "q"));
        let a = pkt(&mut pool, AF11);
        q.enqueue(SimTime::ZERO, a, &mut pool, &mut rng).unwrap(); // 4
        q.dequeue(SimTime::ZERO, &mut pool);
        assert_eq!(q.activity, Activity::idle(SimTime::ZERO));
        let b = pkt(&mut pool, AF12);
        q.enqueue(SimTime(3_500_000), b, &mut pool, &mut rng)
            .unwrap();
        assert!(
            close(q.avg(), 4.0 * 0.125 * 0.5),
            "3 slots of 1 ms: {}",
            q.avg()
        );
    }

    #[test]
    fn out_first_marking_picks_the_highest_level_queued() {
        let mut c = common();
        c.w_q = 1e-12;
        c.ecn = Some(Strategy {
            position: Position::Front,
            out_first: true,
        });
        let mut q = Wred::new(
            Params {
                curves: staggered(3),
                common: c,
            },
            ColourTable::rfc2597(),
        );
        let (mut pool, mut rng) = (Pool::new(), stream(1, "q"));
        for d in [AF11, AF12, AF13, AF12, AF13] {
            let id = pkt(&mut pool, d);
            q.enqueue(SimTime::ZERO, id, &mut pool, &mut rng).unwrap();
        }
        q.avg = RedAverage::starting_at(45.0); // inside level 0's band (40, 60)
        q.spacing[0].old = true;
        q.spacing[0].count = 1_000;
        let id = pkt(&mut pool, AF11);
        assert!(q.enqueue(SimTime::ZERO, id, &mut pool, &mut rng).is_ok());
        assert_eq!(pool.get(q.fifo[2]).ecn, Ecn::Ce, "the first AF13 packet");
        assert_eq!(q.stats.levels[2].ecn_marks, 1);
    }

    /// Average held at 25 under the staggered drop curves (all min_th ≥ 32): level 0 has no
    /// marking curve, level 1 marks on (20, 30, 0.1) (p_b = 0.05), level 2 on (10, 20, 0.1)
    /// (beyond max_th: every arrival).
    #[test]
    fn each_level_is_marked_by_its_own_marking_curve() {
        let mut c = common();
        c.w_q = 1e-12;
        c.limit = Limit::Packets(5_000);
        c.ecn = Some(Strategy::MARK_TAIL);
        c.mark[1] = Some(Curve {
            min_th: 20.0,
            max_th: 30.0,
            max_p: 0.1,
        });
        c.mark[2] = Some(Curve {
            min_th: 10.0,
            max_th: 20.0,
            max_p: 0.1,
        });
        let mut q = Wred::new(
            Params {
                curves: staggered(3),
                common: c,
            },
            ColourTable::rfc2597(),
        );
        q.avg = RedAverage::starting_at(25.0);
        let (mut pool, mut rng) = (Pool::new(), stream(1, "q"));
        for _ in 0..1_000 {
            for d in [AF11, AF12, AF13] {
                let id = pkt(&mut pool, d);
                q.enqueue(SimTime::ZERO, id, &mut pool, &mut rng).unwrap();
            }
        }
        let marks: Vec<u64> = q.stats.levels[..3].iter().map(|l| l.ecn_marks).collect();
        assert_eq!((marks[0], marks[2]), (0, 1_000), "{marks:?}");
        assert!(
            marks[1] > 50 && marks[1] < 150,
            "about 1000 / 10.5: {marks:?}"
        );
        assert_eq!(q.stats.total().drops(), 0);
    }

    #[test]
    fn a_level_without_a_marking_curve_keeps_early_drops_as_marks() {
        // Level 0 inside its drop band (40, 60) and no marking curve: ns-2's setbit, as before.
        let mut c = common();
        c.w_q = 1e-12;
        c.limit = Limit::Packets(5_000);
        c.ecn = Some(Strategy::MARK_TAIL);
        c.mark[2] = Some(Curve {
            min_th: 10.0,
            max_th: 20.0,
            max_p: 0.1,
        });
        let mut q = Wred::new(
            Params {
                curves: staggered(3),
                common: c,
            },
            ColourTable::rfc2597(),
        );
        q.avg = RedAverage::starting_at(50.0);
        let (mut pool, mut rng) = (Pool::new(), stream(1, "q"));
        for _ in 0..1_000 {
            let id = pkt(&mut pool, AF11);
            assert!(q.enqueue(SimTime::ZERO, id, &mut pool, &mut rng).is_ok());
        }
        assert!(q.stats.levels[0].ecn_marks > 50);
    }

    // ---- ns-2 dsRED's ECN path (spacing Dsredq with `$q set ecn_ 1`) ------------------------

    /// WRED as ns-2 dsRED with ECN (dsredq spacing, mark-tail, marks above max_th): level 0 on
    /// (40, 60, 1), level 1 on (20, 40, 1), the shared average held at `avg` (w_q ≈ 0).
    fn wred_dsred_ecn(avg: f64) -> Wred {
        let mut c = common();
        c.w_q = 1e-12;
        c.spacing = SpacingRule::Dsredq;
        c.ecn = Some(Strategy::MARK_TAIL);
        c.ecn_forced_mark = true;
        let curves = vec![
            Curve {
                min_th: 40.0,
                max_th: 60.0,
                max_p: 1.0,
            },
            Curve {
                min_th: 20.0,
                max_th: 40.0,
                max_p: 1.0,
            },
        ];
        let mut q = Wred::new(Params { curves, common: c }, ColourTable::rfc2597());
        q.avg = RedAverage::starting_at(avg);
        q
    }

    #[derive(Debug, PartialEq)]
    enum Fate {
        Enqueue,
        Mark,
        Drop(DropReason),
    }

    fn offer(q: &mut Wred, pool: &mut Pool, rng: &mut Rng, dscp: u8, ecn: Ecn) -> Fate {
        let id = pool.alloc(Packet {
            size: 1_000,
            dscp,
            ecn,
            ..Default::default()
        });
        match q.enqueue(SimTime::ZERO, id, pool, rng) {
            Ok(()) if pool.get(id).ecn == Ecn::Ce => Fate::Mark,
            Ok(()) => Fate::Enqueue,
            Err(r) => Fate::Drop(r),
        }
    }

    /// The shared average at 30: level 1 at p_b 0.5 with its count at 1, level 0 below its
    /// min_th. AF12 ECT: count 2, p_a = +inf, marked (count 0). AF11 ECT: below min_th, queued.
    /// AF12 ECT: count restarted, 1, p_a = 1, marked (count 3, p_a < 0, had it not restarted).
    /// AF12 not ECT: count 1 again, dropped early. AF11 not ECT: queued.
    #[test]
    fn dsred_ecn_early_decisions_mark_ecn_capable_arrivals_of_the_level_and_drop_the_others() {
        let mut q = wred_dsred_ecn(30.0);
        q.spacing[1].old = true;
        q.spacing[1].count = 1;
        let (mut pool, mut rng) = (Pool::new(), stream(1, "q"));
        let arrivals = [
            (AF12, Ecn::Ect0),
            (AF11, Ecn::Ect0),
            (AF12, Ecn::Ect0),
            (AF12, Ecn::NotEct),
            (AF11, Ecn::NotEct),
        ];
        let fates: Vec<Fate> = arrivals
            .into_iter()
            .map(|(d, e)| offer(&mut q, &mut pool, &mut rng, d, e))
            .collect();
        assert_eq!(
            fates,
            [
                Fate::Mark,
                Fate::Enqueue,
                Fate::Mark,
                Fate::Drop(DropReason::Early),
                Fate::Enqueue
            ]
        );
        assert_eq!(
            q.spacing[1].count, 0,
            "dsredq.cc: edv_.count = 0 on PKT_MARKED as on PKT_EDROPPED"
        );
        assert!(!q.spacing[0].old, "level 0 below its min_th: count −1");
        let (l0, l1) = (q.stats.levels[0], q.stats.levels[1]);
        assert_eq!((l0.ecn_marks, l0.drops(), l0.queued), (0, 0, 2));
        assert_eq!(
            (l1.ecn_marks, l1.early_drops, l1.forced_drops, l1.queued),
            (2, 1, 0, 2)
        );
        q.check_conservation().unwrap();
    }

    /// The shared average at 50, above level 1's max_th (40): dsredq.cc returns PKT_MARKED for
    /// an ECN-capable arrival, PKT_DROPPED for one that is not.
    #[test]
    fn dsred_ecn_above_a_levels_max_th_marks_ecn_capable_arrivals_and_drops_the_others() {
        let mut q = wred_dsred_ecn(50.0);
        let (mut pool, mut rng) = (Pool::new(), stream(1, "q"));
        assert_eq!(
            offer(&mut q, &mut pool, &mut rng, AF12, Ecn::Ect0),
            Fate::Mark
        );
        assert_eq!(
            offer(&mut q, &mut pool, &mut rng, AF12, Ecn::NotEct),
            Fate::Drop(DropReason::Early)
        );
        assert_eq!(
            offer(&mut q, &mut pool, &mut rng, AF12, Ecn::Ect1),
            Fate::Mark
        );
        let l = q.stats.levels[1];
        assert_eq!(
            (l.ecn_marks, l.early_drops, l.forced_drops, l.queued),
            (2, 1, 1, 2)
        );
        assert_eq!((q.spacing[1].count, q.spacing[1].old), (0, true));
        q.check_conservation().unwrap();
    }

    /// dsredq.cc tests the physical queue first: a full buffer drops an ECN-capable arrival,
    /// unmarked, before the average or the count are touched.
    #[test]
    fn dsred_ecn_a_full_buffer_drops_even_an_ecn_capable_arrival() {
        let mut q = wred_dsred_ecn(0.0);
        q.params.common.limit = Limit::Packets(60);
        let (mut pool, mut rng) = (Pool::new(), stream(1, "q"));
        for _ in 0..60 {
            assert_eq!(
                offer(&mut q, &mut pool, &mut rng, AF11, Ecn::Ect0),
                Fate::Enqueue
            );
        }
        q.avg = RedAverage::starting_at(50.0);
        q.spacing[1].count = 4;
        assert_eq!(
            offer(&mut q, &mut pool, &mut rng, AF12, Ecn::Ect0),
            Fate::Drop(DropReason::Overflow)
        );
        assert_eq!((q.avg(), q.spacing[1].count), (50.0, 4));
        assert_eq!(
            (
                q.stats.levels[1].overflow_drops,
                q.stats.levels[1].ecn_marks
            ),
            (1, 0)
        );
        q.check_conservation().unwrap();
    }

    #[test]
    fn validate_wants_one_to_eight_valid_curves_under_the_limit() {
        let ok = Params {
            curves: staggered(3),
            common: common(),
        };
        assert!(ok.validate().is_ok());
        assert_eq!(
            Params {
                curves: vec![],
                ..ok.clone()
            }
            .validate()
            .unwrap_err()
            .field,
            "levels"
        );
        assert_eq!(
            Params {
                curves: staggered(9),
                ..ok.clone()
            }
            .validate()
            .unwrap_err()
            .field,
            "levels"
        );
        let mut bad = ok.clone();
        bad.curves[1].max_p = 0.0;
        assert_eq!(bad.validate().unwrap_err().field, "levels");
        let mut small = ok;
        small.common.limit = Limit::Packets(50);
        assert_eq!(small.validate().unwrap_err().field, "limit");
    }
}
