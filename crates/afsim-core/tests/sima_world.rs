//! End to end: the SIMA access node and core node in a small Laatu et al. testbed, loaded from
//! a scenario text and run by the engine. The bottleneck admits DP 4 and cuts the lower
//! levels; the marked flow's drop precedences are counted and traced; real-time packets pass
//! a non-real-time backlog; every packet is accounted for.

use afsim_core::report::Report;
use afsim_core::{load_str, run};

/// src ─ r1 ═ r2 ─ dst, all 10 Mb/s with SIMA queues; a TCP flow marked at r1 (NBR 1.2 Mb/s);
/// CBR background from gen into r1 over 100 Mb/s: 8.5 Mb/s at NRT DP 4 and 3 Mb/s at DP 2.
const TESTBED: &str = r#"
[scenario]
duration = "$duration"
[params]
duration = "30s"
[diffserv]
colours = "sima"
[[node]]
name = "src"
[[node]]
name = "r1"
[[node]]
name = "r2"
[[node]]
name = "dst"
[[node]]
name = "gen"
[[link]]
between = ["src", "r1"]
rate = "10Mbps"
delay = "1ms"
queue = { kind = "sima" }
[[link]]
between = ["r1", "r2"]
rate = "10Mbps"
delay = "1ms"
queue = { kind = "sima" }
[[link]]
between = ["r2", "dst"]
rate = "10Mbps"
delay = "1ms"
queue = { kind = "sima" }
[[link]]
between = ["gen", "r1"]
rate = "100Mbps"
delay = "1ms"
queue = { kind = "droptail", limit = "1000pkt" }
[[flow]]
name = "tcp"
from = "src"
to = "dst"
kind = "tcp"
variant = "sack"
packet_size = "1500B"
max_window = "64000B"
trace = true
[[flow]]
name = "bg4"
from = "gen"
to = "dst"
kind = "cbr"
dscp = "NRT4"
rate = "8.5Mbps"
packet_size = "1000B"
[[flow]]
name = "bg2"
from = "gen"
to = "dst"
kind = "cbr"
dscp = "NRT2"
rate = "3Mbps"
packet_size = "1000B"
[[conditioner]]
name = "access"
at = "r1"
from = "src"
match = { flows = "tcp" }
meter = { kind = "sima", nbr = "1.2Mbps", capacity = "10Mbps", class_buffer = "20000B", trace = true }
"#;

fn testbed(duration: &str) -> Report {
    let spec = load_str(
        TESTBED,
        "testbed.toml",
        &[("duration".into(), duration.into())],
    )
    .unwrap();
    let r = run(&spec, None).unwrap();
    assert!(r.conservation.holds, "{}", r.conservation.identity);
    r
}

#[test]
fn a_sima_bottleneck_admits_dp_four_and_drops_the_lower_levels_first() {
    let r = testbed("30s");
    let level = |dp: u8| {
        r.sima_levels
            .iter()
            .find(|l| l.queue == "r1->r2" && l.class == "nrt" && l.dp == dp)
            .unwrap()
    };
    let (dp2, dp4) = (level(2), level(4));
    assert!(
        dp2.drops_below_dpa > 0,
        "the DP 2 background is cut by DP_a: {dp2:?}"
    );
    assert!(
        dp4.loss_ratio < 0.05 && dp2.loss_ratio > 10.0 * dp4.loss_ratio,
        "DP 4 {dp4:?} vs DP 2 {dp2:?}"
    );
    for l in &r.sima_levels {
        assert_eq!(
            l.arrivals,
            l.departures + l.drops_below_dpa + l.drops_overflow + l.queued_end,
            "{l:?}"
        );
    }
    let q = r.sima_queues.iter().find(|q| q.queue == "r1->r2").unwrap();
    assert!((q.dpa_time_share.iter().sum::<f64>() - 1.0).abs() < 1e-9);
    assert!(
        q.dpa_max >= 3 && q.dpa_mean > 1.0,
        "DP_a rises above DP 2's level: {q:?}"
    );
    // the port's per-level counters under the SIMA colour table agree with the queue's own
    let colour = r
        .colours
        .iter()
        .find(|c| &*c.queue == "r1->r2" && &*c.colour == "DP 2")
        .unwrap();
    assert_eq!(
        (colour.arrivals, colour.drops_early),
        (dp2.arrivals, dp2.drops_below_dpa)
    );
}

#[test]
fn a_sima_marked_flow_reports_its_drop_precedences_and_its_trace() {
    let r = testbed("10s");
    let tcp = r.flows.iter().find(|f| f.name == "tcp").unwrap();
    let counts: Vec<u64> = (0..8).map(|dp| tcp.dp.get(dp).unwrap()).collect();
    let cond = &r.conditioners[0];
    assert_eq!(
        counts.iter().sum::<u64>(),
        cond.matched,
        "every TCP packet is marked once at r1"
    );
    assert_eq!(cond.matched, tcp.packets_sent);
    assert_eq!(counts[7], 0, "equation (1) never gives the reserved DP 7");
    assert_eq!(
        cond.green_packets,
        counts[4..].iter().sum::<u64>(),
        "green is DP 4 and above"
    );
    assert_eq!(cond.dp.get(3), Some(counts[3]));
    assert!(
        r.flows
            .iter()
            .filter(|f| f.name.starts_with("bg"))
            .all(|f| f.dp.get(0).is_none()),
        "the background is not marked"
    );
    assert_eq!(
        tcp.contract_kbps,
        Some(1200.0),
        "the NBR is the contract of a flow metered alone"
    );
    let (name, trace) = &r.dp_traces[0];
    assert_eq!(
        (name.as_str(), trace.dp.len() as u64),
        ("access", cond.matched)
    );
    assert!(trace.time_s.windows(2).all(|w| w[0] <= w[1]));
    for (dp, &n) in counts.iter().enumerate() {
        assert_eq!(
            trace.dp.iter().filter(|&&d| usize::from(d) == dp).count() as u64,
            n
        );
    }
}

#[test]
fn real_time_packets_cross_a_sima_queue_faster_than_non_real_time_ones() {
    // both classes at DP 6 into a 2 Mb/s link with 3 Mb/s offered: NRT waits, RT does not
    let text = r#"
[scenario]
duration = "10s"
[[node]]
name = "a"
[[node]]
name = "r"
[[node]]
name = "b"
[[link]]
between = ["a", "r"]
rate = "100Mbps"
delay = "1ms"
[[link]]
between = ["r", "b"]
rate = "2Mbps"
delay = "1ms"
queue = { kind = "sima" }
[[flow]]
name = "rt"
from = "a"
to = "b"
kind = "cbr"
dscp = "RT6"
rate = "500kbps"
packet_size = "200B"
[[flow]]
name = "nrt"
from = "a"
to = "b"
kind = "cbr"
dscp = "NRT6"
rate = "2.5Mbps"
packet_size = "1000B"
"#;
    let r = run(&load_str(text, "rt.toml", &[]).unwrap(), None).unwrap();
    let delay = |n: &str| {
        r.flows
            .iter()
            .find(|f| f.name == n)
            .unwrap()
            .mean_delay_s
            .unwrap()
    };
    // RT waits at most for one NRT packet's transmission (4 ms); NRT queues behind its buffer
    assert!(delay("rt") < 0.012, "rt {}", delay("rt"));
    assert!(
        delay("nrt") > 5.0 * delay("rt"),
        "nrt {} rt {}",
        delay("nrt"),
        delay("rt")
    );
    let lost = |class: &str| {
        r.sima_levels
            .iter()
            .filter(|l| l.class == class)
            .map(|l| l.drops_overflow)
            .sum::<u64>()
    };
    assert_eq!(
        lost("rt"),
        0,
        "priority in service, not in loss: the RT buffer never fills"
    );
    assert!(lost("nrt") > 0, "the NRT overload overflows its buffer");
    assert!(r.conservation.holds);
}
