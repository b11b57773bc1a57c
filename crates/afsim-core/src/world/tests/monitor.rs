//! Monitors (`[[monitor]]` of every kind) and delay distributions, on a marked AF network.

use super::*;

/// Two 1.5 Mb/s CBR sources metered at 1 Mb/s each into a 2.4 Mb/s RIO bottleneck (as
/// `edge_marking_into_rio_protects_in_profile_packets`), 20 s.
pub(super) fn af_network() -> Spec {
    use crate::edge::PerColourAction::Mark;
    use crate::net::dscp::{AF11, AF12};
    let mut flows = vec![];
    for i in 0..2 {
        let mut f = cbr(&format!("af{i}"), i, 4, 1_500_000, 500);
        cbr_mut(&mut f).jitter = true;
        flows.push(f);
    }
    let mut s = spec(
        &["s0", "s1", "r1", "r2", "d"],
        vec![
            link(0, 2, 10_000_000, 1, 100),
            link(1, 2, 10_000_000, 1, 100),
            rio_link(2, 3, 2_400_000),
            link(3, 4, 10_000_000, 1, 100),
        ],
        flows,
        20,
    );
    for i in 0..2 {
        s.conditioners.push(token_bucket_conditioner(
            &format!("edge{i}"),
            2,
            Some(i),
            1_000_000,
            [Mark(AF11), Mark(AF12), Mark(AF12)],
            0,
        ));
    }
    s
}

pub(super) fn watched(plain: &Spec) -> Spec {
    let mut s = plain.clone();
    let ms = SimDuration::from_millis;
    s.add_monitor(MonitorKind::Queue, "r1->r2", ms(10)).unwrap();
    s.add_monitor(MonitorKind::Events, "r1->r2", ms(10))
        .unwrap();
    s.add_monitor(MonitorKind::Flows, "", ms(100)).unwrap();
    s.add_monitor(MonitorKind::Conditioners, "", ms(250))
        .unwrap();
    s
}

#[test]
fn monitors_of_every_kind_leave_the_report_byte_identical() {
    let plain = af_network();
    let s = watched(&plain);
    assert!(
        s.clone()
            .add_monitor(MonitorKind::Flows, "", SimDuration::from_millis(5))
            .is_err(),
        "one flows monitor"
    );
    let (a, b) = (run_ok(&plain), run_ok(&s));
    assert_eq!(a.to_json(), b.to_json());
    assert!(a.flow_series.is_none() && a.queue_traces.is_empty() && a.level_series.is_empty());
    assert!(b.flow_series.is_some() && b.conditioner_series.is_some());
}

#[test]
fn the_flows_series_adds_up_to_each_flows_totals() {
    let r = run_ok(&watched(&af_network()));
    let fs = r.flow_series.as_ref().unwrap();
    // instants 0.1 s … 20 s inclusive, one row per flow each
    assert_eq!(fs.len(), 200 * r.flows.len());
    assert!((fs.time_s[fs.len() - 1] - 20.0).abs() < 1e-9);
    for (i, f) in r.flows.iter().enumerate() {
        let rows = || (0..fs.len()).filter(move |&k| fs.entity[k] as usize == i);
        let delivered: u64 = rows().map(|k| fs.counts[1][k]).sum();
        let packets: u64 = rows().map(|k| fs.counts[0][k]).sum();
        let dropped: u64 = rows().map(|k| fs.counts[2][k]).sum();
        assert_eq!(delivered, f.bytes_delivered, "{}", f.name);
        assert_eq!(packets, f.packets_delivered);
        assert_eq!(dropped, f.packets_dropped);
        // 1.5 Mb/s offered, 2.4 Mb/s shared by two: about 1.2 Mb/s each in every 100 ms late on
        let late: Vec<f64> = rows()
            .filter(|&k| fs.time_s[k] > 5.0)
            .map(|k| fs.counts[1][k] as f64 * 8.0 / 0.1)
            .collect();
        let mean = late.iter().sum::<f64>() / late.len() as f64;
        assert!((1.0e6..1.4e6).contains(&mean), "{mean}");
    }
}

#[test]
fn the_conditioner_and_level_series_add_up_to_the_report_rows() {
    let r = run_ok(&watched(&af_network()));
    let cs = r.conditioner_series.as_ref().unwrap();
    assert_eq!(cs.len(), 80 * r.conditioners.len());
    for (i, c) in r.conditioners.iter().enumerate() {
        let sum = |col: usize| -> u64 {
            (0..cs.len())
                .filter(|&k| cs.entity[k] as usize == i)
                .map(|k| cs.counts[col][k])
                .sum()
        };
        assert_eq!(sum(0), c.green_packets);
        assert_eq!(sum(1), c.yellow_packets);
        assert_eq!(sum(2), c.red_packets);
        assert_eq!(sum(3), c.green_bytes);
        assert!(c.yellow_packets > 0, "the excess over 1 Mb/s is marked");
    }
    let (name, ls) = &r.level_series[0];
    assert_eq!(name, "r1->r2");
    for c in r.colours.iter().filter(|c| &*c.queue == "r1->r2") {
        let sum = |col: usize| -> u64 {
            (0..ls.len())
                .filter(|&k| ls.entity[k] == u32::from(c.level))
                .map(|k| ls.counts[col][k])
                .sum()
        };
        assert_eq!(sum(0), c.arrivals);
        assert_eq!(sum(1), c.departures);
        assert_eq!(sum(2), c.drops_overflow + c.drops_early);
    }
}

#[test]
fn the_event_trace_holds_every_arrival_and_departure_of_its_queue() {
    use crate::metrics::trace::QueueEvent;
    let r = run_ok(&watched(&af_network()));
    let q = r.queues.iter().find(|q| &*q.name == "r1->r2").unwrap();
    let (name, t) = &r.queue_traces[0];
    assert_eq!(name, "r1->r2");
    let count = |e: QueueEvent| t.event.iter().filter(|&&x| x == e as u8).count() as u64;
    assert_eq!(count(QueueEvent::Drop), q.drops_total);
    assert_eq!(count(QueueEvent::Dequeue), q.departures);
    assert_eq!(
        count(QueueEvent::Enqueue) + count(QueueEvent::Mark) + count(QueueEvent::Drop),
        q.arrivals
    );
    assert!(t.time_ns.windows(2).all(|w| w[0] <= w[1]), "in time order");
    assert_eq!(
        u64::from(*t.len_packets.iter().max().unwrap()),
        q.max_len_packets
    );
    // the queueing delays: one per departure, no more than a full 200-packet buffer drains in
    let (_, d) = &r.queue_delays[0];
    let qd = d.quantiles.unwrap();
    assert_eq!(qd.count, q.departures);
    let drain_s = 200.0 * 500.0 * 8.0 / 2.4e6;
    assert!(qd.max_s <= drain_s + 1e-3, "{}", qd.max_s);
    assert!(qd.p50_s <= qd.p90_s && qd.p90_s <= qd.p99_s && qd.p99_s <= qd.max_s);
    assert_eq!(d.bins.iter().map(|b| b.1).sum::<u64>(), q.departures);
}

#[test]
fn delay_percentiles_per_flow_and_per_class_are_ordered_and_bound_the_mean() {
    let r = run_ok(&af_network());
    for f in &r.flows {
        let (p50, p90, p99, max) = (
            f.delay_p50_s.unwrap(),
            f.delay_p90_s.unwrap(),
            f.delay_p99_s.unwrap(),
            f.delay_max_s.unwrap(),
        );
        assert!(p50 <= p90 && p90 <= p99 && p99 <= max, "{f:?}");
        // at least the propagation (1 + 5 + 1 ms) and the transmissions
        assert!(p50 > 0.007 && f.mean_delay_s.unwrap() <= max);
    }
    // AF11 (in profile) waits less than AF12 (the excess) in RIO, on average
    let class = |n: &str| r.delay_classes.iter().find(|c| c.code_point == n).unwrap();
    let (in_, out) = (class("AF11"), class("AF12"));
    let delivered: u64 = r.flows.iter().map(|f| f.packets_delivered).sum();
    assert_eq!(in_.packets + out.packets, delivered);
    assert!(in_.delay_p50_s <= in_.delay_p99_s && out.delay_p99_s <= out.delay_max_s);
}

/// Per key (`64 × reverse + DSCP`) of a code point series: the sums of its counter columns.
fn cp_sums(s: &crate::metrics::series::CodePointSeries<4>, key: u8) -> [u64; 4] {
    std::array::from_fn(|c| {
        (0..s.len())
            .filter(|&k| s.key[k] == key)
            .map(|k| s.counts[c][k])
            .sum()
    })
}

#[test]
fn the_code_point_series_adds_up_to_the_code_point_rows() {
    use crate::net::dscp;
    let r = run_ok(&watched(&af_network()));
    let (name, s) = &r.code_point_series[0];
    assert_eq!(name, "r1->r2");
    // a row per key seen, from 10 ms to 20 s
    assert!((s.time_s[s.len() - 1] - 20.0).abs() < 1e-9);
    let rows: Vec<_> = r
        .code_points
        .iter()
        .filter(|c| &*c.queue == "r1->r2")
        .collect();
    assert!(rows.len() >= 2, "AF11 and AF12 at least");
    for c in rows {
        let d = dscp::parse(&c.code_point).unwrap();
        let key = d + if c.direction == "reverse" { 64 } else { 0 };
        let [arrivals, overflow, early, marks] = cp_sums(s, key);
        assert_eq!(arrivals, c.arrivals, "{}", c.code_point);
        assert_eq!((overflow, early), (c.drops_overflow, c.drops_early));
        assert_eq!(marks, 0, "RIO without ECN marks nothing");
    }
    // AF12 (the excess) is dropped, AF11 (in profile) is not, apart in the series
    assert!(cp_sums(s, dscp::AF12)[2] > 0);
    assert!(cp_sums(s, dscp::AF11)[1] + cp_sums(s, dscp::AF11)[2] < cp_sums(s, dscp::AF12)[2]);
}

#[test]
fn the_code_point_series_counts_ecn_marks_per_code_point() {
    use crate::queue::ecn_mark::Strategy;
    use crate::transport::tcp::Params;
    let mut bottleneck = red_link(1, 2, 10_000_000, 5.0, 15.0);
    if let QueueSpec::Red(p) = std::sync::Arc::make_mut(&mut bottleneck.queue_ab) {
        p.common.ecn = Some(Strategy::MARK_TAIL);
    }
    let params = Params {
        ecn: true,
        ..Params::default()
    };
    let mut flows: Vec<_> = (0..4)
        .map(|i| tcp(&format!("t{i}"), 0, 3, params))
        .collect();
    flows[3].dscp = crate::net::dscp::AF11;
    let mut s = tcp_dumbbell(bottleneck, flows, 10);
    s.add_monitor(MonitorKind::Queue, "r1->r2", SimDuration::from_millis(100))
        .unwrap();
    let r = run_ok(&s);
    let q = r.queues.iter().find(|q| &*q.name == "r1->r2").unwrap();
    let (_, cs) = &r.code_point_series[0];
    let (be, af11) = (cp_sums(cs, 0)[3], cp_sums(cs, crate::net::dscp::AF11)[3]);
    assert!(be > 0 && af11 > 0, "both code points marked: {be}, {af11}");
    assert_eq!(
        be + af11,
        q.ecn_marks.unwrap(),
        "every mark, on its code point"
    );
}
