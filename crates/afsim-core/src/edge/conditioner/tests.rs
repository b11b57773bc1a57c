use super::*;
use crate::edge::token_bucket::{Depth, Params};
use crate::net::dscp;
use crate::sim::rng::stream;

fn tb(rate_bps: u64, depth_bytes: u64) -> MeterSpec {
    MeterSpec::TokenBucket(Params {
        rate_bps,
        depth: Depth::Bytes(depth_bytes),
    })
}

fn spec(meter: MeterSpec, actions: [PerColourAction; 3], buffer: u32) -> ConditionerSpec {
    ConditionerSpec {
        name: "c".into(),
        node: 0,
        from: None,
        classifier: ClassifierSpec::default(),
        meter,
        per_flow: false,
        actions,
        buffer_packets: buffer,
    }
}

fn conditioner(s: &ConditionerSpec) -> Conditioner {
    Conditioner::new(s, 4, &ColourTable::rfc2597(), stream(1, "c"), SimTime::ZERO)
}

fn pkt(pool: &mut Pool, flow: u32, size: u32, dscp: u8) -> PacketId {
    pool.alloc(Packet {
        flow,
        size,
        dscp,
        ..Default::default()
    })
}

const AF: [PerColourAction; 3] = [
    PerColourAction::Mark(dscp::AF11),
    PerColourAction::Mark(dscp::AF12),
    PerColourAction::Drop,
];

#[test]
fn in_profile_packets_are_marked_green_and_the_excess_is_re_marked() {
    // 1000 B/s, depth 1000 B: the first packet takes the bucket, the second finds it empty
    let s = spec(tb(8_000, 1_000), AF, 0);
    let mut c = conditioner(&s);
    let mut pool = Pool::new();
    let a = pkt(&mut pool, 0, 1000, 0);
    let b = pkt(&mut pool, 0, 1000, 0);
    assert_eq!(c.offer(SimTime::ZERO, a, &mut pool), Outcome::Forward);
    assert_eq!(c.offer(SimTime::ZERO, b, &mut pool), Outcome::Forward);
    assert_eq!(pool.get(a).dscp, dscp::AF11);
    assert_eq!(pool.get(b).dscp, dscp::AF12);
    assert!(c.check().is_ok());
}

#[test]
fn downgrade_rewrites_to_best_effort_and_drop_polices() {
    let actions = [
        PerColourAction::Keep,
        PerColourAction::DowngradeToBestEffort,
        PerColourAction::Drop,
    ];
    let mut c = conditioner(&spec(tb(8_000, 1_000), actions, 0));
    let mut pool = Pool::new();
    let a = pkt(&mut pool, 0, 1000, dscp::AF11);
    let b = pkt(&mut pool, 0, 1000, dscp::AF11);
    c.offer(SimTime::ZERO, a, &mut pool);
    c.offer(SimTime::ZERO, b, &mut pool);
    assert_eq!(pool.get(a).dscp, dscp::AF11, "keep");
    assert_eq!(pool.get(b).dscp, dscp::BE, "downgraded");
    let policer = [
        PerColourAction::Keep,
        PerColourAction::Drop,
        PerColourAction::Drop,
    ];
    let mut c = conditioner(&spec(tb(8_000, 1_000), policer, 0));
    c.offer(SimTime::ZERO, a, &mut pool);
    assert_eq!(
        c.offer(SimTime::ZERO, b, &mut pool),
        Outcome::Drop(DropReason::Policed)
    );
    assert_eq!(c.stats.dropped_policed, 1);
    assert!(c.check().is_ok());
}

#[test]
fn the_classifier_selects_by_flow_and_code_point() {
    let mut s = spec(tb(8_000, 1_000), AF, 0);
    s.classifier.flows = vec![1].into();
    s.classifier.dscp = vec![dscp::BE];
    let mut c = conditioner(&s);
    let mut pool = Pool::new();
    let other_flow = pkt(&mut pool, 0, 100, dscp::BE);
    let other_dscp = pkt(&mut pool, 1, 100, dscp::EF);
    let selected = pkt(&mut pool, 1, 100, dscp::BE);
    assert_eq!(
        c.offer(SimTime::ZERO, other_flow, &mut pool),
        Outcome::NotMatched
    );
    assert_eq!(
        c.offer(SimTime::ZERO, other_dscp, &mut pool),
        Outcome::NotMatched
    );
    assert_eq!(
        c.offer(SimTime::ZERO, selected, &mut pool),
        Outcome::Forward
    );
    assert_eq!(c.stats.matched, 1);
}

#[test]
fn a_shaper_holds_excess_packets_until_tokens_arrive_and_keeps_their_order() {
    // 8000 b/s = 1 byte per ms; depth 1000 B: the first packet passes, the next two wait
    let shape = [
        PerColourAction::Keep,
        PerColourAction::Shape,
        PerColourAction::Shape,
    ];
    let mut c = conditioner(&spec(tb(8_000, 1_000), shape, 10));
    let mut pool = Pool::new();
    let ids: Vec<_> = (0..3).map(|_| pkt(&mut pool, 0, 1000, 0)).collect();
    assert_eq!(c.offer(SimTime::ZERO, ids[0], &mut pool), Outcome::Forward);
    assert_eq!(c.offer(SimTime::ZERO, ids[1], &mut pool), Outcome::Held);
    assert_eq!(c.offer(SimTime::ZERO, ids[2], &mut pool), Outcome::Held);
    let t1 = c.next_release(SimTime::ZERO, &pool).unwrap();
    assert_eq!(
        t1,
        SimTime::from_nanos(1_000_000_000),
        "1000 bytes of tokens take 1 s"
    );
    assert_eq!(
        c.release(SimTime::from_nanos(999_999_999), &mut pool),
        None,
        "not before"
    );
    assert_eq!(c.release(t1, &mut pool), Some((ids[1], Outcome::Forward)));
    assert_eq!(
        c.next_release(t1, &pool),
        Some(SimTime::from_nanos(2_000_000_000))
    );
    assert!(c.check().is_ok());
}

#[test]
fn a_full_shaper_buffer_drops_the_arrival() {
    let shape = [
        PerColourAction::Keep,
        PerColourAction::Shape,
        PerColourAction::Shape,
    ];
    let mut c = conditioner(&spec(tb(8_000, 1_000), shape, 1));
    let mut pool = Pool::new();
    let ids: Vec<_> = (0..3).map(|_| pkt(&mut pool, 0, 1000, 0)).collect();
    c.offer(SimTime::ZERO, ids[0], &mut pool);
    assert_eq!(c.offer(SimTime::ZERO, ids[1], &mut pool), Outcome::Held);
    assert_eq!(
        c.offer(SimTime::ZERO, ids[2], &mut pool),
        Outcome::Drop(DropReason::EdgeBuffer)
    );
    assert!(c.check().is_ok());
}

fn sima_meter(trace: bool) -> MeterSpec {
    use crate::edge::sima::{Estimator, Params, ServiceClass};
    let estimator = Estimator::Slots {
        capacity_bps: 10_000_000,
        slot_bytes: 53,
        alpha: 0.01,
    };
    MeterSpec::Sima(Params {
        nbr_bps: 1_000_000,
        class: ServiceClass::Rt,
        estimator,
        trace,
    })
}

#[test]
fn a_sima_meter_writes_the_drop_precedence_into_the_code_point_and_counts_it_per_flow() {
    // a hand-built spec with actions: a SIMA marker ignores them
    let mut c = conditioner(&spec(sima_meter(true), AF, 0));
    let mut pool = Pool::new();
    // flow 1: one 1250 B packet every 10 ms = 1 Mb/s, the NBR: DP 4, except the first
    // packet, before which nothing was measured (ρ is what it adds itself: MBR 0, DP 6)
    for i in 0..50u64 {
        let id = pkt(&mut pool, 1, 1250, dscp::BE);
        assert_eq!(
            c.offer(SimTime::from_nanos(i * 10_000_000), id, &mut pool),
            Outcome::Forward
        );
        let dp = if i == 0 { 6 } else { 4 };
        assert_eq!(pool.get(id).dscp, dscp::sima(true, dp), "packet {i}");
    }
    assert_eq!(c.dp_of(1), [0, 0, 0, 0, 49, 0, 1, 0]);
    // flow 2 shares the aggregate meter: twice the rate, so both get DP 3 after a while
    let mut last = 0;
    for i in 0..200u64 {
        let t = 500_000_000 + i * 5_000_000;
        let id = pkt(&mut pool, 1 + (i % 2) as u32, 1250, dscp::BE);
        c.offer(SimTime::from_nanos(t), id, &mut pool);
        last = pool.get(id).dscp;
    }
    assert_eq!(last, dscp::sima(true, 3));
    let (packets, _) = c.dp_totals().unwrap();
    assert_eq!(packets.iter().sum::<u64>(), 250);
    assert_eq!(c.dp_of(2).iter().sum::<u64>(), 100);
    let m = c.marker_stats();
    assert_eq!(
        m.packets[0],
        packets[4..].iter().sum::<u64>(),
        "green is DP 4 and above"
    );
    let t = c.take_dp_trace().unwrap();
    assert_eq!(
        (t.time_s.len(), t.flow[0], t.dp[0], t.dp[1]),
        (250, 1, 6, 4)
    );
    assert!(
        (t.mbr_bps[49] / 1e6 - 1.0).abs() < 1e-9,
        "CBR at the NBR is measured exactly"
    );
    assert!(c.check().is_ok());
    assert_eq!(c.committed_rate_bps(), 1_000_000);
    assert_eq!(c.meter_kind(), "sima");
}

#[test]
fn per_flow_meters_give_each_flow_its_own_bucket() {
    let mut s = spec(tb(8_000, 1_000), AF, 0);
    s.per_flow = true;
    let mut c = conditioner(&s);
    let mut pool = Pool::new();
    let a = pkt(&mut pool, 0, 1000, 0);
    let b = pkt(&mut pool, 1, 1000, 0);
    c.offer(SimTime::ZERO, a, &mut pool);
    c.offer(SimTime::ZERO, b, &mut pool);
    assert_eq!(pool.get(a).dscp, dscp::AF11);
    assert_eq!(
        pool.get(b).dscp,
        dscp::AF11,
        "flow 1 has its own full bucket"
    );
    assert_eq!(c.marker_stats().packets, [2, 0, 0]);
}

#[test]
fn counters_are_sized_by_the_flows_seen_dense_or_sparse() {
    // the same packets through a conditioner of a small scenario (a table by flow index) and
    // of a large one (a hash map of the flows seen): the same counts, and only the flows that
    // passed hold counters
    for n_flows in [8, DENSE_FLOWS + 1, 200_000] {
        let mut s = spec(tb(8_000, 1_000), AF, 0);
        s.per_flow = true;
        s.classifier.flows = vec![3, 5, n_flows - 1].into();
        let mut c = Conditioner::new(
            &s,
            n_flows,
            &ColourTable::rfc2597(),
            stream(1, "c"),
            SimTime::ZERO,
        );
        let mut pool = Pool::new();
        for (i, flow) in [5u32, 3, 5, 4, (n_flows - 1) as u32, 5]
            .into_iter()
            .enumerate()
        {
            let id = pkt(&mut pool, flow, 1000, 0);
            let outcome = c.offer(SimTime::from_nanos(i as u64), id, &mut pool);
            assert_eq!(
                outcome == Outcome::NotMatched,
                flow == 4,
                "flow {flow}, {n_flows} flows"
            );
        }
        assert_eq!(c.seen_flows, vec![5, 3, (n_flows - 1) as u32]);
        assert_eq!(
            (c.green_by_flow.len(), c.slot.len(), c.meters.len()),
            (3, 3, 3)
        );
        // one bucket a flow: each flow's first packet green, flow 5's next two not
        assert_eq!(c.green_of(5), 1000);
        assert_eq!(c.green_of(3), 1000);
        assert_eq!(c.green_of(n_flows - 1), 1000);
        assert_eq!(c.green_of(4), 0);
        assert!(c.seen(5) && !c.seen(4) && !c.seen(n_flows) && c.meters_alone(3));
        assert!(matches!(c.local, FlowMap::Dense(_)) == (n_flows <= DENSE_FLOWS));
        assert!(c.check().is_ok());
    }
}

/// The common case's own path (`offer_simple`) and the general one give the same outcomes, code
/// points and counters: the same token bucket behind a classifier without criteria (simple) and
/// behind one that lists every code point (general, matching the same packets), over random
/// packets of four flows, sizes and gaps, with a warm-up. Fails if the simple path skips a
/// counter (checked by leaving out `forwarded`).
#[test]
fn the_simple_path_is_the_general_path() {
    // (a token bucket colours green or yellow: yellow is policed here)
    let actions = [
        PerColourAction::Mark(dscp::AF11),
        PerColourAction::Drop,
        PerColourAction::Mark(dscp::AF13),
    ];
    let simple = spec(tb(400_000, 3_000), actions, 0);
    let mut general = simple.clone();
    general.classifier.dscp = (0..=dscp::MAX_DSCP).collect();
    let warmup = SimTime(50_000_000);
    let make = |s: &ConditionerSpec| {
        Conditioner::new(s, 4, &ColourTable::rfc2597(), stream(1, "c"), warmup)
    };
    let (mut a, mut b) = (make(&simple), make(&general));
    assert!(a.simple && !b.simple);
    let (mut pool_a, mut pool_b) = (Pool::new(), Pool::new());
    let mut rng = stream(5, "simple-path");
    let mut now = 0u64;
    for _ in 0..5_000 {
        let r = rng.next_u64();
        now += r % 3_000_000;
        // mostly one flow for a while, then another (the remembered flow hits and misses)
        let flow = ((r >> 20) % 4) as u32 * u32::from((r >> 24).is_multiple_of(5));
        let size = 40 + ((r >> 32) % 1_461) as u32;
        let code = [0, dscp::AF11, dscp::AF13, dscp::BE][((r >> 44) % 4) as usize];
        let (pa, pb) = (
            pkt(&mut pool_a, flow, size, code),
            pkt(&mut pool_b, flow, size, code),
        );
        let t = SimTime(now);
        assert_eq!(a.offer(t, pa, &mut pool_a), b.offer(t, pb, &mut pool_b));
        assert_eq!(pool_a.get(pa).dscp, pool_b.get(pb).dscp);
    }
    assert_eq!(a.stats, b.stats);
    assert_eq!(a.marker_stats(), b.marker_stats());
    assert_eq!(a.seen_flows, b.seen_flows);
    for f in 0..4 {
        assert_eq!(a.green_of(f), b.green_of(f), "flow {f}");
    }
    assert!(a.stats.forwarded > 0 && a.stats.dropped_policed > 0);
    assert!(a.stats.green_bytes_measured > 0);
    assert!(a.check().is_ok());
}
