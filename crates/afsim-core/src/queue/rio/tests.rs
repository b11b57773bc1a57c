use super::*;
use crate::net::dscp::{AF11, AF12, AF13, BE};
use crate::net::packet::{Ecn, Packet};
use crate::queue::ecn_mark::{Position, Strategy};
use crate::queue::red::testkit::{poisson, run, Discipline};
use crate::queue::red::SpacingRule;
use crate::scenario::spec::Limit;
use crate::sim::rng::stream;

impl Discipline for Rio {
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

const MS: u64 = 1_000_000;

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

/// IN (40, 70, 0.02), OUT (10, 30, 0.1); 8 Mbit/s, 1000 B mean: 1 ms slots.
fn params(coupling: Coupling) -> Params {
    let mut common = Common::new(8_000_000, Limit::Packets(500));
    common.mean_pkt_size = 1_000;
    Params {
        in_curve: Curve {
            min_th: 40.0,
            max_th: 70.0,
            max_p: 0.02,
        },
        out_curve: Curve {
            min_th: 10.0,
            max_th: 30.0,
            max_p: 0.1,
        },
        coupling,
        common,
    }
}

fn rio(coupling: Coupling, tweak: impl FnOnce(&mut Params)) -> Rio {
    let mut p = params(coupling);
    tweak(&mut p);
    Rio::new(p, ColourTable::rfc2597())
}

fn pkt(pool: &mut Pool, dscp: u8) -> PacketId {
    pool.alloc(Packet {
        size: 1_000,
        dscp,
        ecn: Ecn::Ect0,
        ..Default::default()
    })
}

fn offer(
    q: &mut Rio,
    pool: &mut Pool,
    rng: &mut Rng,
    at: SimTime,
    dscp: u8,
) -> Result<(), DropReason> {
    let id = pkt(pool, dscp);
    q.enqueue(at, id, pool, rng)
}

/// w = 0.5, arrivals IN, OUT, IN, OUT at t = 0 (nothing leaves):
/// avg_in 0, 0, 0.5, 0.5; avg_total 0, 0.5, 1.25, 2.125.
#[test]
fn coupled_in_average_counts_in_packets_and_out_average_counts_all() {
    let mut q = rio(Coupling::Coupled, |p| p.common.w_q = 0.5);
    let (mut pool, mut rng) = (Pool::new(), stream(1, "q"));
    let expect = [
        (AF11, 0.0, 0.0),
        (AF12, 0.0, 0.5),
        (AF11, 0.5, 1.25),
        (AF12, 0.5, 2.125),
    ];
    for (dscp, avg_in, avg_total) in expect {
        offer(&mut q, &mut pool, &mut rng, SimTime::ZERO, dscp).unwrap();
        assert!(
            close(q.avg_in(), avg_in) && close(q.avg_out(), avg_total),
            "{} {}",
            q.avg_in(),
            q.avg_out()
        );
    }
}

/// Same arrivals decoupled: avg_in 0, 0, 0.5, 0.5; avg_out (OUT only) 0, 0, 0, 0.5.
#[test]
fn decoupled_out_average_counts_only_out_packets() {
    let mut q = rio(Coupling::Decoupled, |p| p.common.w_q = 0.5);
    let (mut pool, mut rng) = (Pool::new(), stream(1, "q"));
    let expect = [
        (AF11, 0.0, 0.0),
        (AF12, 0.0, 0.0),
        (AF11, 0.5, 0.0),
        (AF12, 0.5, 0.5),
    ];
    for (dscp, avg_in, avg_out) in expect {
        offer(&mut q, &mut pool, &mut rng, SimTime::ZERO, dscp).unwrap();
        assert!(
            close(q.avg_in(), avg_in) && close(q.avg_out(), avg_out),
            "{} {}",
            q.avg_in(),
            q.avg_out()
        );
    }
}

#[test]
fn out_arrivals_leave_the_in_average_alone() {
    let mut q = rio(Coupling::Coupled, |p| p.common.w_q = 0.5);
    let (mut pool, mut rng) = (Pool::new(), stream(1, "q"));
    offer(&mut q, &mut pool, &mut rng, SimTime::ZERO, AF11).unwrap();
    offer(&mut q, &mut pool, &mut rng, SimTime::ZERO, AF11).unwrap();
    let before = q.avg_in();
    for _ in 0..5 {
        offer(&mut q, &mut pool, &mut rng, SimTime::ZERO, AF13).unwrap();
    }
    assert_eq!(q.avg_in(), before);
}

/// Giacomazzi et al.: "congested (when avg_q_tot > min_th_out)". avg_total = 16 (OUT
/// min_th 10); the queue empties at 0. At 0.5 ms no whole slot has passed: still congested.
/// At 1.5 ms one slot: 16 · 0.5 = 8 ≤ 10, not congested, though no arrival has updated the
/// average since; the peek changes nothing.
#[test]
fn out_congestion_at_an_instant_applies_the_idle_decay_an_arrival_would() {
    let mut q = rio(Coupling::Coupled, |p| p.common.w_q = 0.5);
    let mut pool = Pool::new();
    q.avg_out = RedAverage::starting_at(16.0);
    q.act_out = Activity::idle(SimTime::ZERO);
    assert!(q.out_congested(), "as last updated");
    assert!(q.out_congested_at(SimTime(MS / 2)));
    assert!(!q.out_congested_at(SimTime(3 * MS / 2)));
    assert!(
        close(q.avg_out(), 16.0),
        "a peek does not update the average"
    );
    assert!(q.out_congested(), "nor the congestion state");
    // a busy queue is not decayed: its average is as the last arrival left it
    let (mut rng, id) = (stream(1, "q"), pkt(&mut pool, AF11));
    q.enqueue(SimTime::ZERO, id, &mut pool, &mut rng).unwrap();
    q.avg_out = RedAverage::starting_at(16.0);
    assert!(q.out_congested_at(SimTime(100 * MS)));
}

/// w = 0.5, OUT min_th 10: the average crosses above 10 (period 1), falls back when the
/// queue has drained and sat idle, and crosses again (period 2). Arrivals that stay above
/// do not start a new period.
#[test]
fn congestion_periods_count_the_crossings_of_min_th_out() {
    let mut q = rio(Coupling::Coupled, |p| p.common.w_q = 0.5);
    let (mut pool, mut rng) = (Pool::new(), stream(1, "q"));
    assert_eq!(q.congestion_periods(), 0);
    let mut t = SimTime::ZERO;
    for _ in 0..8 {
        offer(&mut q, &mut pool, &mut rng, t, AF11).unwrap(); // IN arrivals move avg_total too
    }
    assert!(
        !q.out_congested(),
        "avg_total {} after 8 arrivals",
        q.avg_out()
    );
    for _ in 0..20 {
        offer(&mut q, &mut pool, &mut rng, t, AF11).unwrap();
    }
    assert!(q.out_congested());
    assert_eq!(
        q.congestion_periods(),
        1,
        "one crossing however many arrivals above"
    );
    while q.dequeue(t, &mut pool).is_some() {}
    t = SimTime(50 * MS); // 50 idle slots: the average decays to ~0 at the next arrival
    offer(&mut q, &mut pool, &mut rng, t, AF11).unwrap();
    assert!(!q.out_congested());
    for _ in 0..30 {
        offer(&mut q, &mut pool, &mut rng, t, AF11).unwrap();
    }
    assert!(q.out_congested());
    assert_eq!(q.congestion_periods(), 2);
}

/// avg_in = avg_total = 8. IN at 0: both → 4. OUT at 0: total → 2.5. The IN packet leaves
/// at 0: the IN queue is idle from 0, the physical queue still holds the OUT packet. IN at
/// 3.5 ms: avg_in decays 3 slots, 4 · 0.5³ · 0.5 = 0.25; avg_total does not: 2.5·0.5 + 0.5.
#[test]
fn in_average_decays_over_the_in_queue_idle_time_while_out_packets_remain() {
    let mut q = rio(Coupling::Coupled, |p| p.common.w_q = 0.5);
    let (mut pool, mut rng) = (Pool::new(), stream(1, "q"));
    q.avg_in = RedAverage::starting_at(8.0);
    q.avg_out = RedAverage::starting_at(8.0);
    assert!(close(q.avg_in(), 8.0));
    offer(&mut q, &mut pool, &mut rng, SimTime::ZERO, AF11).unwrap();
    assert!(close(q.avg_in(), 4.0) && close(q.avg_out(), 4.0));
    offer(&mut q, &mut pool, &mut rng, SimTime::ZERO, AF12).unwrap();
    assert!(close(q.avg_out(), 2.5));
    let first = q.dequeue(SimTime::ZERO, &mut pool).unwrap();
    assert_eq!(pool.get(first).dscp, AF11);
    offer(&mut q, &mut pool, &mut rng, SimTime(3_500_000), AF11).unwrap();
    assert!(close(q.avg_in(), 0.25), "{}", q.avg_in());
    assert!(close(q.avg_out(), 1.75), "{}", q.avg_out());
}

#[test]
fn colour_comes_from_the_dscp_through_the_table() {
    let mut q = rio(Coupling::Coupled, |_| {});
    let (mut pool, mut rng) = (Pool::new(), stream(1, "q"));
    for d in [AF11, AF12, AF13, BE] {
        offer(&mut q, &mut pool, &mut rng, SimTime::ZERO, d).unwrap();
    }
    assert_eq!(
        q.in_packets(),
        1,
        "only AF11 is IN; AF12, AF13 and BE are OUT"
    );
    assert_eq!(
        [
            q.stats.levels[0].queued,
            q.stats.levels[1].queued,
            q.stats.levels[2].queued
        ],
        [1, 1, 2]
    );
}

/// w_q = 1 makes each average the length the arrival finds. 40 IN packets queued (below
/// min_in): an OUT arrival sees avg_total 40 > max_out when coupled, 0 when decoupled.
#[test]
fn coupled_out_packets_pay_for_in_packets_in_the_buffer_decoupled_do_not() {
    for (coupling, expect) in [
        (Coupling::Coupled, Err(DropReason::Early)),
        (Coupling::Decoupled, Ok(())),
    ] {
        let mut q = rio(coupling, |p| p.common.w_q = 1.0);
        let (mut pool, mut rng) = (Pool::new(), stream(1, "q"));
        for _ in 0..40 {
            offer(&mut q, &mut pool, &mut rng, SimTime::ZERO, AF11).unwrap();
        }
        assert_eq!(
            offer(&mut q, &mut pool, &mut rng, SimTime::ZERO, AF12),
            expect,
            "{coupling:?}"
        );
    }
}

#[test]
fn in_packets_are_tested_against_the_in_curve() {
    // 20 OUT packets queued: avg_total 20 is inside the OUT band but below min_in.
    let mut q = rio(Coupling::Coupled, |p| p.common.w_q = 1.0);
    let (mut pool, mut rng) = (Pool::new(), stream(1, "q"));
    for _ in 0..20 {
        let _ = offer(&mut q, &mut pool, &mut rng, SimTime::ZERO, AF12);
    }
    for _ in 0..30 {
        assert!(offer(&mut q, &mut pool, &mut rng, SimTime::ZERO, AF11).is_ok());
    }
}

#[test]
fn out_packets_are_dropped_before_in_packets() {
    let mut q = rio(Coupling::Coupled, |p| p.common.w_q = 0.002);
    // 50 % IN, 50 % OUT, 12 Mbit/s offered to 8 Mbit/s.
    let arrivals = poisson(31, 40_000, 12e6, 1_000, &[AF11, AF12]);
    let results = run(&mut q, &arrivals, 8_000_000, 2);
    q.check_conservation().unwrap();
    let first_drop = arrivals
        .iter()
        .zip(&results)
        .find(|(_, r)| r.is_err())
        .map(|(a, _)| a.dscp);
    assert_eq!(first_drop, Some(AF12), "the first packet dropped is OUT");
    let loss = |l: usize| q.stats.levels[l].drops() as f64 / q.stats.levels[l].arrivals as f64;
    assert!(loss(1) > 0.5, "OUT absorbs the overload: {}", loss(1));
    assert!(
        loss(0) < 0.01,
        "IN (6 Mbit/s < 8) is protected: {}",
        loss(0)
    );
}

#[test]
fn lower_out_max_th_drops_more_out_packets() {
    let drops = |max_th: f64| {
        let mut q = rio(Coupling::Coupled, |p| {
            p.common.w_q = 0.02;
            p.out_curve = Curve {
                min_th: 5.0,
                max_th,
                max_p: 0.1,
            };
        });
        let arrivals = poisson(8, 20_000, 7.6e6, 1_000, &[AF11, AF12]);
        run(&mut q, &arrivals, 8_000_000, 3);
        q.stats.levels[1].early_drops
    };
    let (low, high) = (drops(10.0), drops(60.0));
    assert!(low > high, "{low} > {high}");
}

// ---- ECN and the OUT marking scheme ------------------------------------------------------

/// A coupled RIO with its OUT curve out of the way and an average that barely moves
/// (w_q ≈ 0), so tests can fill the queue and then `trigger` it.
fn rio_marking(strategy: Strategy) -> Rio {
    rio(Coupling::Coupled, |p| {
        p.common.w_q = 1e-12;
        p.common.ecn = Some(strategy);
        p.out_curve = Curve {
            min_th: 400.0,
            max_th: 450.0,
            max_p: 0.1,
        };
    })
}

/// Puts the IN average at 60 (IN band) with p_a forced to 1: the next IN arrival signals.
fn trigger(q: &mut Rio) {
    q.avg_in = RedAverage::starting_at(60.0);
    q.spacing_in.old = true;
    q.spacing_in.count = 1_000;
}

/// ns-2 dsredq.cc's spacing, at the queue: the OUT average at 25 (p_b = 0.075), 20
/// arrivals since the last OUT drop, so count·p_b passes 1 with the next one.
#[test]
fn with_dsredq_spacing_out_packets_are_kept_once_count_times_p_b_passes_one() {
    for (rule, kept) in [(SpacingRule::Dsredq, 30), (SpacingRule::Red, 0)] {
        let mut q = rio(Coupling::Coupled, |p| {
            p.common.w_q = 1e-12;
            p.common.spacing = rule;
        });
        q.avg_out = RedAverage::starting_at(25.0);
        q.spacing_out.old = true;
        q.spacing_out.count = 20;
        let (mut pool, mut rng) = (Pool::new(), stream(1, "q"));
        let n = (0..30)
            .take_while(|_| offer(&mut q, &mut pool, &mut rng, SimTime::ZERO, AF12).is_ok())
            .count();
        assert_eq!(n, kept, "{rule:?}");
    }
}

#[test]
fn with_dsredq_spacing_an_overflow_drop_keeps_the_out_count() {
    let mut q = rio(Coupling::Coupled, |p| {
        p.common.limit = Limit::Packets(70);
        p.common.spacing = SpacingRule::Dsredq;
    });
    let (mut pool, mut rng) = (Pool::new(), stream(1, "q"));
    for _ in 0..70 {
        q.fifo.push_back(pkt(&mut pool, AF11));
    }
    q.spacing_out.count = 9;
    assert_eq!(
        offer(&mut q, &mut pool, &mut rng, SimTime::ZERO, AF12),
        Err(DropReason::Overflow)
    );
    assert_eq!(q.spacing_out.count, 9);
    q.fifo.clear();
}

#[test]
fn a_full_buffer_refuses_the_arrival_before_it_touches_the_averages() {
    // dsredq.cc order: the overflow test comes first
    // curves at 1..2 packets, a 2-packet buffer; with w_q = 0.5 the third arrival would
    // move both averages (to 1.25) if it reached them
    let mut q = rio(Coupling::Coupled, |p| {
        p.in_curve = Curve {
            min_th: 1.0,
            max_th: 2.0,
            max_p: 0.1,
        };
        p.out_curve = Curve {
            min_th: 1.0,
            max_th: 2.0,
            max_p: 0.1,
        };
        p.common.limit = Limit::Packets(2);
        p.common.w_q = 0.5;
    });
    let (mut pool, mut rng) = (Pool::new(), stream(1, "q"));
    offer(&mut q, &mut pool, &mut rng, SimTime::ZERO, AF11).unwrap();
    offer(&mut q, &mut pool, &mut rng, SimTime::ZERO, AF12).unwrap();
    let (avg_in, avg_out) = (q.avg_in(), q.avg_out());
    assert_eq!(
        offer(&mut q, &mut pool, &mut rng, SimTime::ZERO, AF11),
        Err(DropReason::Overflow)
    );
    assert_eq!(
        (q.avg_in(), q.avg_out()),
        (avg_in, avg_out),
        "averages untouched"
    );
}

// ---- ns-2 dsRED's ECN path (spacing Dsredq with `$q set ecn_ 1`) ------------------------

/// RIO as ns-2 dsRED with ECN: dsredq spacing, mark-tail, marks above max_th, averages held
/// (w_q ≈ 0). max_p 1 on both curves so that p_b is round: IN (40, 70) gives 0.5 at 55, OUT
/// (10, 30) gives 0.5 at 20.
fn rio_dsred_ecn(coupling: Coupling) -> Rio {
    rio(coupling, |p| {
        p.common.w_q = 1e-12;
        p.common.spacing = SpacingRule::Dsredq;
        p.common.ecn = Some(Strategy::MARK_TAIL);
        p.common.ecn_forced_mark = true;
        p.in_curve.max_p = 1.0;
        p.out_curve.max_p = 1.0;
    })
}

fn arrival(pool: &mut Pool, dscp: u8, ecn: Ecn) -> PacketId {
    pool.alloc(Packet {
        size: 1_000,
        dscp,
        ecn,
        ..Default::default()
    })
}

type Outcome = (PacketId, Result<(), DropReason>);

/// Two arrivals of colour `dscp` (`ecn`) with that colour's average at p_b 0.5 and its count
/// at 1: the first is tested at count 2 (p_a = +inf), the second, the count having restarted,
/// at count 1 (p_a = 1): both decisions say drop. Had the first not restarted the count, the
/// second would be tested at count 3, p_a < 0, and kept. Returns the queue, the pool and the
/// two packets with their outcomes.
fn two_early_decisions(coupling: Coupling, dscp: u8, ecn: Ecn) -> (Rio, Pool, Vec<Outcome>) {
    let mut q = rio_dsred_ecn(coupling);
    let (mut pool, mut rng) = (Pool::new(), stream(1, "q"));
    if dscp == AF11 {
        q.avg_in = RedAverage::starting_at(55.0);
        q.spacing_in.old = true;
        q.spacing_in.count = 1;
    } else {
        q.avg_out = RedAverage::starting_at(20.0);
        q.spacing_out.old = true;
        q.spacing_out.count = 1;
    }
    let mut out = Vec::new();
    for _ in 0..2 {
        let id = arrival(&mut pool, dscp, ecn);
        let r = q.enqueue(SimTime::ZERO, id, &mut pool, &mut rng);
        let count = if dscp == AF11 {
            q.spacing_in.count
        } else {
            q.spacing_out.count
        };
        assert_eq!(
            count, 0,
            "dsredq.cc: edv_.count = 0 on PKT_MARKED as on PKT_EDROPPED"
        );
        out.push((id, r));
    }
    q.check_conservation().unwrap();
    (q, pool, out)
}

#[test]
fn dsred_ecn_an_early_decision_on_the_in_curve_marks_an_ecn_capable_arrival_and_restarts_the_count()
{
    for coupling in [Coupling::Coupled, Coupling::Decoupled] {
        let (q, pool, out) = two_early_decisions(coupling, AF11, Ecn::Ect0);
        for &(id, r) in &out {
            assert_eq!(r, Ok(()), "{coupling:?}: PKT_MARKED, not dropped");
            assert_eq!(
                pool.get(id).ecn,
                Ecn::Ce,
                "{coupling:?}: dsred.cc sets ce() in the arrival"
            );
        }
        assert_eq!(
            q.fifo.iter().copied().collect::<Vec<_>>(),
            vec![out[0].0, out[1].0],
            "both queued"
        );
        let l = q.stats.levels[0];
        assert_eq!(
            (l.ecn_marks, l.early_drops, l.forced_drops, l.queued),
            (2, 0, 0, 2),
            "{coupling:?}"
        );
        assert_eq!(
            q.spacing_out,
            Spacing::default(),
            "the OUT curve's state is the OUT colour's"
        );
    }
}

#[test]
fn dsred_ecn_the_same_early_decisions_on_the_in_curve_drop_arrivals_that_are_not_ecn_capable() {
    for coupling in [Coupling::Coupled, Coupling::Decoupled] {
        let (q, _, out) = two_early_decisions(coupling, AF11, Ecn::NotEct);
        assert!(
            out.iter().all(|&(_, r)| r == Err(DropReason::Early)),
            "{coupling:?}: PKT_EDROPPED"
        );
        let l = q.stats.levels[0];
        assert_eq!(
            (l.ecn_marks, l.early_drops, l.forced_drops, l.queued),
            (0, 2, 0, 0),
            "{coupling:?}"
        );
    }
}

#[test]
fn dsred_ecn_an_early_decision_on_the_out_curve_marks_an_ecn_capable_arrival_and_drops_one_that_is_not(
) {
    for coupling in [Coupling::Coupled, Coupling::Decoupled] {
        let (q, pool, out) = two_early_decisions(coupling, AF12, Ecn::Ect0);
        assert!(
            out.iter()
                .all(|&(id, r)| r == Ok(()) && pool.get(id).ecn == Ecn::Ce),
            "{coupling:?}"
        );
        let l = q.stats.levels[1];
        assert_eq!(
            (l.ecn_marks, l.early_drops, l.queued),
            (2, 0, 2),
            "{coupling:?}"
        );
        assert_eq!(
            q.spacing_in,
            Spacing::default(),
            "the IN curve's state is the IN colour's"
        );
        let (q, _, out) = two_early_decisions(coupling, AF12, Ecn::NotEct);
        assert!(
            out.iter().all(|&(_, r)| r == Err(DropReason::Early)),
            "{coupling:?}"
        );
        assert_eq!(
            (q.stats.levels[1].ecn_marks, q.stats.levels[1].early_drops),
            (0, 2),
            "{coupling:?}"
        );
    }
}

/// dsredq.cc's uncapped p_a holds with ECN too: at count 3 with p_b 0.5, p_a < 0 and an
/// ECN-capable arrival is kept without a mark.
#[test]
fn dsred_ecn_once_count_times_p_b_passes_one_ecn_capable_arrivals_are_kept_unmarked() {
    let mut q = rio_dsred_ecn(Coupling::Coupled);
    let (mut pool, mut rng) = (Pool::new(), stream(1, "q"));
    q.avg_in = RedAverage::starting_at(55.0);
    q.spacing_in.old = true;
    q.spacing_in.count = 2;
    let id = arrival(&mut pool, AF11, Ecn::Ect0);
    assert_eq!(q.enqueue(SimTime::ZERO, id, &mut pool, &mut rng), Ok(()));
    assert_eq!(pool.get(id).ecn, Ecn::Ect0);
    assert_eq!((q.stats.levels[0].ecn_marks, q.spacing_in.count), (0, 3));
}

/// dsredq.cc: v_ave > th_max returns PKT_MARKED with ECN, PKT_DROPPED without; on both
/// curves, in both modes. IN average 80 (max_th 70), OUT average 40 (max_th 30).
#[test]
fn dsred_ecn_above_max_th_marks_an_ecn_capable_arrival_and_drops_one_that_is_not() {
    for coupling in [Coupling::Coupled, Coupling::Decoupled] {
        for (dscp, level) in [(AF11, 0), (AF12, 1)] {
            let mut q = rio_dsred_ecn(coupling);
            q.avg_in = RedAverage::starting_at(80.0);
            q.avg_out = RedAverage::starting_at(40.0);
            let (mut pool, mut rng) = (Pool::new(), stream(1, "q"));
            let ect = arrival(&mut pool, dscp, Ecn::Ect0);
            assert_eq!(
                q.enqueue(SimTime::ZERO, ect, &mut pool, &mut rng),
                Ok(()),
                "{coupling:?} {dscp}"
            );
            assert_eq!(pool.get(ect).ecn, Ecn::Ce);
            let not_ect = arrival(&mut pool, dscp, Ecn::NotEct);
            assert_eq!(
                q.enqueue(SimTime::ZERO, not_ect, &mut pool, &mut rng),
                Err(DropReason::Early)
            );
            let l = q.stats.levels[level];
            assert_eq!(
                (l.ecn_marks, l.early_drops, l.forced_drops, l.queued),
                (1, 1, 1, 1),
                "{coupling:?} {dscp}"
            );
            let s = if level == 0 {
                q.spacing_in
            } else {
                q.spacing_out
            };
            assert_eq!((s.count, s.old), (0, true));
            q.check_conservation().unwrap();
        }
    }
}

/// dsredq.cc tests `q_->length() > qlim - 1` first and returns PKT_DROPPED whatever the ECN:
/// no mark, no RED state touched.
#[test]
fn dsred_ecn_a_full_buffer_drops_even_an_ecn_capable_arrival() {
    let mut q = rio_dsred_ecn(Coupling::Coupled);
    q.params.common.limit = Limit::Packets(70);
    let (mut pool, mut rng) = (Pool::new(), stream(1, "q"));
    for _ in 0..70 {
        offer(&mut q, &mut pool, &mut rng, SimTime::ZERO, AF11).unwrap();
    }
    q.avg_in = RedAverage::starting_at(80.0);
    q.spacing_in.count = 5;
    let id = arrival(&mut pool, AF11, Ecn::Ect0);
    assert_eq!(
        q.enqueue(SimTime::ZERO, id, &mut pool, &mut rng),
        Err(DropReason::Overflow)
    );
    assert_eq!(pool.get(id).ecn, Ecn::Ect0, "not marked");
    assert_eq!(
        (q.avg_in(), q.spacing_in.count),
        (80.0, 5),
        "average and count untouched"
    );
    let l = q.stats.levels[0];
    assert_eq!((l.overflow_drops, l.ecn_marks), (1, 0));
    q.check_conservation().unwrap();
}

/// dsredq.cc updateIdleFlag runs before PKT_MARKED: a marked arrival ends the idle period
/// (rio_c: its own virtual queue and those above; rio_d: its own); a dropped one does not.
#[test]
fn dsred_ecn_a_marked_arrival_ends_the_idle_period_a_dropped_one_does_not() {
    for (coupling, dscp, busy_in, busy_out) in [
        (Coupling::Coupled, AF11, true, true),
        (Coupling::Coupled, AF12, false, true),
        (Coupling::Decoupled, AF11, true, false),
        (Coupling::Decoupled, AF12, false, true),
    ] {
        for ecn in [Ecn::Ect0, Ecn::NotEct] {
            let mut q = rio_dsred_ecn(coupling);
            q.avg_in = RedAverage::starting_at(80.0);
            q.avg_out = RedAverage::starting_at(40.0);
            let (mut pool, mut rng) = (Pool::new(), stream(1, "q"));
            let id = arrival(&mut pool, dscp, ecn);
            let marked = q.enqueue(SimTime::ZERO, id, &mut pool, &mut rng).is_ok();
            assert_eq!(marked, ecn == Ecn::Ect0);
            let idle = Activity::idle(SimTime::ZERO);
            let expect = |busy: bool| if busy && marked { Activity::Busy } else { idle };
            assert_eq!(
                (q.act_in, q.act_out),
                (expect(busy_in), expect(busy_out)),
                "{coupling:?} {dscp} {ecn:?}"
            );
        }
    }
}

#[test]
fn out_marking_scheme_marks_a_queued_out_packet_when_an_in_packet_triggers() {
    let mut q = rio_marking(Strategy {
        position: Position::Tail,
        out_first: true,
    });
    let (mut pool, mut rng) = (Pool::new(), stream(1, "q"));
    for d in [AF11, AF12, AF11, AF13, AF11] {
        offer(&mut q, &mut pool, &mut rng, SimTime::ZERO, d).unwrap();
    }
    trigger(&mut q);
    let arriving = pkt(&mut pool, AF11);
    assert!(q
        .enqueue(SimTime::ZERO, arriving, &mut pool, &mut rng)
        .is_ok());
    let marked: Vec<u8> = q
        .fifo
        .iter()
        .filter(|&&id| pool.get(id).ecn == Ecn::Ce)
        .map(|&id| pool.get(id).dscp)
        .collect();
    assert_eq!(
        marked,
        vec![AF13],
        "the tail of the OUT queue, not the IN arrival"
    );
    assert_eq!(q.stats.levels[2].ecn_marks, 1);
}

#[test]
fn out_marking_scheme_falls_back_to_in_packets_when_no_out_is_queued() {
    let mut q = rio_marking(Strategy {
        position: Position::Front,
        out_first: true,
    });
    let (mut pool, mut rng) = (Pool::new(), stream(1, "q"));
    for _ in 0..3 {
        offer(&mut q, &mut pool, &mut rng, SimTime::ZERO, AF11).unwrap();
    }
    trigger(&mut q);
    offer(&mut q, &mut pool, &mut rng, SimTime::ZERO, AF11).unwrap();
    assert_eq!(pool.get(q.fifo[0]).ecn, Ecn::Ce, "head of the IN queue");
    assert_eq!(
        q.fifo
            .iter()
            .filter(|&&id| pool.get(id).ecn == Ecn::Ce)
            .count(),
        1
    );
    assert_eq!(q.stats.levels[0].ecn_marks, 1);
}

#[test]
fn plain_mark_tail_marks_the_in_arrival_even_with_out_packets_queued() {
    let mut q = rio_marking(Strategy::MARK_TAIL);
    let (mut pool, mut rng) = (Pool::new(), stream(1, "q"));
    for d in [AF11, AF12, AF12] {
        offer(&mut q, &mut pool, &mut rng, SimTime::ZERO, d).unwrap();
    }
    trigger(&mut q);
    let arriving = pkt(&mut pool, AF11);
    q.enqueue(SimTime::ZERO, arriving, &mut pool, &mut rng)
        .unwrap();
    assert_eq!(pool.get(arriving).ecn, Ecn::Ce);
    assert_eq!(
        q.fifo
            .iter()
            .filter(|&&id| pool.get(id).ecn == Ecn::Ce)
            .count(),
        1,
        "only the arrival"
    );
}

/// Leung & Muppala's Table 5, row by row, for the three ECN positions, with ns-2 dsRED's
/// rule that an average beyond max_th marks too: an IN arrival finds the IN average at 200
/// (beyond max_in 70: the RIO queue "decides to mark"); the queue holds IN, OUT, IN, OUT, IN.
/// Returns the DSCPs and positions (0..5 queued, 5 the arrival) of the packets marked.
fn table5(position: Position, out_queued: bool, seed: u64) -> Vec<usize> {
    let mut q = rio_marking(Strategy {
        position,
        out_first: true,
    });
    q.params.common.ecn_forced_mark = true;
    let (mut pool, mut rng) = (Pool::new(), stream(seed, "q"));
    let queued = if out_queued {
        [AF11, AF12, AF11, AF12, AF11]
    } else {
        [AF11; 5]
    };
    for d in queued {
        offer(&mut q, &mut pool, &mut rng, SimTime::ZERO, d).unwrap();
    }
    q.avg_in = RedAverage::starting_at(200.0);
    let arriving = pkt(&mut pool, AF11);
    assert_eq!(
        q.enqueue(SimTime::ZERO, arriving, &mut pool, &mut rng),
        Ok(()),
        "marked, not dropped"
    );
    let l = q.stats.total();
    assert_eq!((l.ecn_marks, l.drops()), (1, 0));
    (0..6)
        .filter(|&i| pool.get(q.fifo[i]).ecn == Ecn::Ce)
        .collect()
}

#[test]
fn table5_out_queue_not_empty_tail_front_and_random_mark_out_packets() {
    // "Packet at the tail of OUT queue is marked"
    assert_eq!(table5(Position::Tail, true, 1), vec![3]);
    // "Packet at the head of OUT queue is marked"
    assert_eq!(table5(Position::Front, true, 1), vec![1]);
    // "Packet is selected at random to mark from the OUT queue": only 1 and 3, both seen
    let picks: std::collections::BTreeSet<_> = (0..40)
        .flat_map(|seed| table5(Position::Random, true, seed))
        .collect();
    assert_eq!(picks.into_iter().collect::<Vec<_>>(), vec![1, 3]);
}

#[test]
fn table5_out_queue_empty_tail_front_and_random_mark_in_packets() {
    // "Packet at the tail of IN queue is marked": the IN arrival just joining the queue
    assert_eq!(table5(Position::Tail, false, 1), vec![5]);
    // "Packet at the head of IN queue is marked"
    assert_eq!(table5(Position::Front, false, 1), vec![0]);
    // "Packet is selected at random to mark from the IN queue": any of the six
    let picks: std::collections::BTreeSet<_> = (0..60)
        .flat_map(|seed| table5(Position::Random, false, seed))
        .collect();
    assert_eq!(picks.len(), 6, "{picks:?}");
}

// ---- separate marking thresholds per colour ----------------------------------------------

/// Coupled RIO with marking curves IN (20, 30, 0.1) and OUT (5, 8, 0.1) under the drop
/// curves IN (40, 70), OUT (10, 30); mark-tail; both averages held at `avg`.
fn rio_mark_thresholds(avg: f64) -> Rio {
    let mut q = rio(Coupling::Coupled, |p| {
        p.common.w_q = 1e-12;
        p.common.limit = Limit::Packets(5_000);
        p.common.ecn = Some(Strategy::MARK_TAIL);
        p.common.mark[0] = Some(Curve {
            min_th: 20.0,
            max_th: 30.0,
            max_p: 0.1,
        });
        p.common.mark[1] = Some(Curve {
            min_th: 5.0,
            max_th: 8.0,
            max_p: 0.1,
        });
    });
    q.avg_in = RedAverage::starting_at(avg);
    q.avg_out = RedAverage::starting_at(avg);
    q
}

#[test]
fn out_packets_are_marked_at_an_average_that_leaves_in_packets_alone() {
    // avg 9: beyond OUT's marking max_th 8 (every OUT arrival marked), below IN's marking
    // min_th 20 and both drop min_th.
    let mut q = rio_mark_thresholds(9.0);
    let (mut pool, mut rng) = (Pool::new(), stream(1, "q"));
    for _ in 0..100 {
        for d in [AF11, AF12] {
            offer(&mut q, &mut pool, &mut rng, SimTime::ZERO, d).unwrap();
        }
    }
    let (l_in, l_out) = (q.stats.levels[0], q.stats.levels[1]);
    assert_eq!((l_in.ecn_marks, l_out.ecn_marks), (0, 100));
    assert_eq!(l_in.drops() + l_out.drops(), 0);
    assert!(q
        .fifo
        .iter()
        .all(|&id| (pool.get(id).ecn == Ecn::Ce) == (pool.get(id).dscp == AF12)));
}

#[test]
fn in_packets_are_marked_by_their_own_curve_with_the_in_average() {
    // avg 25: IN marking p_b = 0.05, so some IN arrivals are marked; OUT (drop min_th 10)
    // arrivals are dropped early or, kept, marked for sure.
    let mut q = rio_mark_thresholds(25.0);
    let (mut pool, mut rng) = (Pool::new(), stream(2, "q"));
    for _ in 0..1_000 {
        offer(&mut q, &mut pool, &mut rng, SimTime::ZERO, AF11).unwrap();
    }
    let l_in = q.stats.levels[0];
    assert!(
        l_in.ecn_marks > 50 && l_in.ecn_marks < 150,
        "about 1000 / 10.5: {}",
        l_in.ecn_marks
    );
    assert_eq!(l_in.drops(), 0);
    for _ in 0..1_000 {
        let _ = offer(&mut q, &mut pool, &mut rng, SimTime::ZERO, AF12);
    }
    let l_out = q.stats.levels[1];
    assert!(
        l_out.early_drops > 0 && l_out.forced_drops == 0,
        "{l_out:?}"
    );
    assert_eq!(l_out.ecn_marks, 1_000 - l_out.early_drops);
}

#[test]
fn out_first_sends_an_in_curve_mark_to_a_queued_out_packet() {
    let mut q = rio_mark_thresholds(25.0);
    q.params.common.ecn = Some(Strategy {
        position: Position::Tail,
        out_first: true,
    });
    let (mut pool, mut rng) = (Pool::new(), stream(1, "q"));
    let out = pkt(&mut pool, AF12);
    q.fifo.push_back(out);
    q.mark_spacing_in.old = true;
    q.mark_spacing_in.count = 100; // p_a = 1
    let arriving = pkt(&mut pool, AF11);
    q.enqueue(SimTime::ZERO, arriving, &mut pool, &mut rng)
        .unwrap();
    assert_eq!(
        (pool.get(out).ecn, pool.get(arriving).ecn),
        (Ecn::Ce, Ecn::Ect0)
    );
    assert_eq!(q.stats.levels[1].ecn_marks, 1);
}

#[test]
fn validate_knows_two_marking_curves() {
    let mut p = params(Coupling::Coupled);
    p.common.ecn = Some(Strategy::MARK_TAIL);
    p.common.mark[1] = Some(Curve {
        min_th: 5.0,
        max_th: 8.0,
        max_p: 0.1,
    });
    assert!(p.validate().is_ok());
    p.common.mark[2] = Some(Curve {
        min_th: 5.0,
        max_th: 8.0,
        max_p: 0.1,
    });
    assert_eq!(p.validate().unwrap_err().field, "mark");
    p.common.mark[2] = None;
    p.common.ecn = None;
    assert_eq!(p.validate().unwrap_err().field, "mark");
}

// ---- counters, parameters ---------------------------------------------------------------

#[test]
fn counters_balance_after_a_run_in_both_modes() {
    for coupling in [Coupling::Coupled, Coupling::Decoupled] {
        let mut q = rio(coupling, |p| p.common.limit = Limit::Packets(80));
        let arrivals = poisson(4, 10_000, 14e6, 1_000, &[AF11, AF12, AF13, BE]);
        run(&mut q, &arrivals, 8_000_000, 4);
        q.check_conservation().unwrap();
        assert_eq!(q.stats.total().arrivals, 10_000);
        assert!(q.stats.total().overflow_drops + q.stats.total().early_drops > 0);
    }
}

#[test]
fn validate_names_the_faulty_curve() {
    assert!(params(Coupling::Coupled).validate().is_ok());
    let mut p = params(Coupling::Coupled);
    p.in_curve.max_th = 10.0;
    assert_eq!(p.validate().unwrap_err().field, "in");
    let mut p = params(Coupling::Coupled);
    p.out_curve.max_p = 2.0;
    assert_eq!(p.validate().unwrap_err().field, "out");
    let mut p = params(Coupling::Coupled);
    p.common.limit = Limit::Packets(60);
    assert_eq!(
        p.validate().unwrap_err().field,
        "limit",
        "the limit must hold max_in"
    );
}

#[test]
fn idle_clock_of_the_in_queue_runs_from_the_dequeue() {
    let mut q = rio(Coupling::Coupled, |_| {});
    let (mut pool, mut rng) = (Pool::new(), stream(1, "q"));
    offer(&mut q, &mut pool, &mut rng, SimTime::ZERO, AF11).unwrap();
    offer(&mut q, &mut pool, &mut rng, SimTime::ZERO, AF12).unwrap();
    q.dequeue(SimTime(2 * MS), &mut pool);
    assert_eq!(q.act_in, Activity::idle(SimTime(2 * MS)));
    assert_eq!(
        q.act_out,
        Activity::Busy,
        "the OUT packet keeps the physical queue busy"
    );
    q.dequeue(SimTime(3 * MS), &mut pool);
    assert_eq!(q.act_out, Activity::idle(SimTime(3 * MS)));
}

/// `pass_read` against `enqueue_read` then `dequeue` of the same packet at the same instant
/// (what a port does with an arrival at an empty queue and a free transmitter, with and
/// without the FIFO skipped: `World::enqueue`), in lockstep over random traffic in front of
/// a link: every outcome, counter, average, idle clock, count state, ECN mark and random draw
/// the same. Small thresholds and a large w_q, so that arrivals at an empty queue are also
/// dropped early, forced, marked or refused by a byte limit.
#[test]
fn passing_an_arrival_through_is_enqueue_then_dequeue() {
    use crate::sim::time::SimDuration;
    type Tweak = fn(&mut Params);
    let variants: [(&str, Tweak); 5] = [
        ("red", |_| {}),
        ("bytes", |p| {
            p.common.measure = Measure::Bytes;
            p.common.limit = Limit::Bytes(9_000);
        }),
        ("ecn out_first, marking curves", |p| {
            p.common.ecn = Some(Strategy {
                position: Position::Front,
                out_first: true,
            });
            p.common.mark[0] = Some(Curve {
                min_th: 1.0,
                max_th: 3.0,
                max_p: 0.3,
            });
            p.common.mark[1] = Some(Curve {
                min_th: 0.2,
                max_th: 1.0,
                max_p: 0.5,
            });
        }),
        ("dsredq ecn", |p| {
            p.common.spacing = SpacingRule::Dsredq;
            p.common.ecn = Some(Strategy::MARK_TAIL);
            p.common.ecn_forced_mark = true;
        }),
        ("gentle, 4 packets", |p| {
            p.common.gentle = true;
            p.common.limit = Limit::Packets(4);
        }),
    ];
    let link_bps = 8_000_000;
    let tx = |size: u32| SimDuration((u64::from(size) * 8 * 1_000_000_000).div_ceil(link_bps));
    let (mut passed, mut passed_refused) = (0, 0);
    for coupling in [Coupling::Coupled, Coupling::Decoupled] {
        for (name, tweak) in variants {
            for (load, seed) in [(0.5, 1), (0.9, 2), (1.4, 3)] {
                let make = || {
                    rio(coupling, |p| {
                        p.common.w_q = 0.25;
                        p.common.limit = Limit::Packets(8);
                        p.in_curve = Curve {
                            min_th: 1.0,
                            max_th: 4.0,
                            max_p: 0.3,
                        };
                        p.out_curve = Curve {
                            min_th: 0.3,
                            max_th: 2.0,
                            max_p: 0.5,
                        };
                        tweak(p);
                        assert!(p.validate().is_ok(), "{name}");
                    })
                };
                let (mut a, mut b) = (make(), make());
                let (mut pool_a, mut pool_b) = (Pool::new(), Pool::new());
                let (mut rng_a, mut rng_b) = (stream(seed, "rio/a"), stream(seed, "rio/a"));
                let mut traffic = stream(seed, "rio/traffic");
                let mut busy_until: Option<SimTime> = None;
                let mut t = 0.0;
                let what = format!("{name}, {coupling:?}, load {load}");
                for i in 0..4_000 {
                    let size = 200 + (traffic.uniform() * 1_300.0) as u32;
                    t += traffic.exponential(f64::from(size) * 8.0 / (load * 8e6) * 1e9);
                    let now = SimTime(t as u64);
                    let dscp = [AF11, AF12, AF13, BE][(traffic.uniform() * 4.0) as usize % 4];
                    let ecn = if traffic.uniform() < 0.5 {
                        Ecn::Ect0
                    } else {
                        Ecn::NotEct
                    };
                    // the link takes the head packet when it finishes the previous one
                    while let Some(at) = busy_until.filter(|&at| at <= now) {
                        let (da, db) = (a.dequeue(at, &mut pool_a), b.dequeue(at, &mut pool_b));
                        assert_eq!(da, db, "{what}: departure before arrival {i}");
                        busy_until = da.map(|id| {
                            let sent = pool_a.get(id).size;
                            pool_a.free(id);
                            pool_b.free(id);
                            at + tx(sent)
                        });
                    }
                    let packet = Packet {
                        size,
                        dscp,
                        ecn,
                        ..Default::default()
                    };
                    let (ia, ib) = (pool_a.alloc(packet), pool_b.alloc(packet));
                    assert_eq!(ia, ib);
                    let idle = busy_until.is_none();
                    let (ra, rb) = if idle {
                        assert_eq!(a.len_packets(), 0);
                        let ra = a.enqueue_read(now, ia, (size, dscp), &mut pool_a, &mut rng_a);
                        if ra.is_ok() {
                            assert_eq!(a.dequeue(now, &mut pool_a), Some(ia));
                        }
                        let rb = b.pass_read(now, ib, (size, dscp), &mut pool_b, &mut rng_b);
                        passed += 1;
                        passed_refused += usize::from(rb.is_err());
                        (ra, rb)
                    } else {
                        (
                            a.enqueue_read(now, ia, (size, dscp), &mut pool_a, &mut rng_a),
                            b.enqueue_read(now, ib, (size, dscp), &mut pool_b, &mut rng_b),
                        )
                    };
                    assert_eq!(ra, rb, "{what}: arrival {i}");
                    assert_eq!(
                        pool_a.get(ia).ecn,
                        pool_b.get(ib).ecn,
                        "{what}: arrival {i}"
                    );
                    if idle && ra.is_ok() {
                        busy_until = Some(now + tx(size));
                        pool_a.free(ia);
                        pool_b.free(ib);
                    } else if ra.is_err() {
                        pool_a.free(ia);
                        pool_b.free(ib);
                    }
                    let state = |q: &Rio| {
                        (
                            q.stats.clone(),
                            (q.avg_in.value().to_bits(), q.avg_out.value().to_bits()),
                            (q.act_in, q.act_out),
                            (q.spacing_in, q.spacing_out),
                            (q.mark_spacing_in, q.mark_spacing_out),
                            (q.out_was_congested, q.congestion_periods),
                            (q.fifo.len(), q.bytes, q.in_packets, q.in_bytes),
                        )
                    };
                    assert_eq!(state(&a), state(&b), "{what}: after arrival {i}");
                }
                assert_eq!(rng_a.next_u64(), rng_b.next_u64(), "{what}: the same draws");
                a.check_conservation().unwrap();
                b.check_conservation().unwrap();
            }
        }
    }
    // the comparison covers both kinds of arrival at an empty queue
    assert!(
        passed > 5_000 && passed_refused > 100,
        "{passed} passed, {passed_refused} refused"
    );
}
