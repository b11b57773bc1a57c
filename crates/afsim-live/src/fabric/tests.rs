//! The wall-clock driver's model side with injected time: pacing, the delay line, late
//! wake-ups, queues and conditioners on real frames.

use super::*;
use crate::frame::{parse, test_frame};

const A: [u8; 4] = [10, 200, 0, 2];
const B: [u8; 4] = [10, 200, 1, 2];

/// a ─10 Mb/s, 5 ms─ r ─10 Mb/s, 5 ms─ b; a's access queue holds `limit` packets.
fn fabric(limit: u32, marker: bool) -> Fabric {
    let marker = if marker {
        r#"
[[conditioner]]
name = "m"
at = "r"
from = "a"
meter = { kind = "token_bucket", rate = "1Mbps", depth = "2000B" }
green = "AF11"
yellow = "AF12"
"#
    } else {
        ""
    };
    let text = format!(
        r#"
[scenario]
name = "t"
duration = "10s"
[[node]]
name = "a"
[[node]]
name = "r"
[[node]]
name = "b"
[[link]]
between = ["a", "r"]
rate = "10Mbps"
delay = "5ms"
queue = {{ kind = "droptail", limit = "{limit}pkt" }}
[[link]]
between = ["r", "b"]
rate = "10Mbps"
delay = "5ms"
[[flow]]
name = "f"
from = "a"
to = "b"
kind = "cbr"
rate = "1Mbps"
packet_size = "1000B"
dscp = "AF11"
{marker}"#
    );
    let spec = afsim_core::load_str(&text, "t.toml", &[]).expect("scenario");
    let hosts = vec![
        Host {
            node: 0,
            ip: A,
            mac: [2, 0, 0, 0, 0, 2],
            router_mac: [2, 0, 0, 0, 0, 1],
        },
        Host {
            node: 2,
            ip: B,
            mac: [2, 0, 0, 0, 1, 2],
            router_mac: [2, 0, 0, 0, 1, 1],
        },
    ];
    let flows = [FlowMatch {
        flow: 0,
        protocol: 17,
        src_ip: A,
        dst_ip: B,
        port: 5000,
    }];
    Fabric::build(&spec, hosts, &flows).expect("fabric")
}

fn udp(size: u16, tos: u8) -> Vec<u8> {
    test_frame(A, B, 17, 40000, 5000, size, tos)
}

const MS: u64 = 1_000_000;

/// Frames handed to hosts by `advance(now)`: (host, frame).
fn run_to(f: &mut Fabric, now: u64) -> Vec<(usize, Vec<u8>)> {
    let mut out = Vec::new();
    f.advance(SimTime(now), &mut |h, fr| out.push((h, fr.to_vec())));
    out
}

#[test]
fn one_packet_leaves_after_two_transmissions_and_two_delays_not_before() {
    let mut f = fabric(100, false);
    f.ingress(SimTime(0), 0, &udp(1000, 0));
    // 1000 B at 10 Mb/s = 800 µs per hop, plus 5 ms per hop: 11.6 ms
    let due = 2 * 800_000 + 10 * MS;
    assert!(run_to(&mut f, due - 1).is_empty());
    assert_eq!(f.next_deadline(), Some(SimTime(due)));
    let out = run_to(&mut f, due);
    assert_eq!(out.len(), 1);
    let (h, fr) = &out[0];
    assert_eq!(*h, 1, "to host b");
    assert_eq!(&fr[0..6], &[2, 0, 0, 0, 1, 2], "addressed to b's interface");
    assert_eq!(
        &fr[6..12],
        &[2, 0, 0, 0, 1, 1],
        "from the router side of b's link"
    );
    assert_eq!(f.flows[0].packets_delivered, 1);
    assert_eq!(f.flows[0].last_delivery(), Some(SimTime(due)));
    assert_eq!(f.lateness.max_ns, 0);
}

#[test]
fn a_backlog_is_paced_at_the_link_rate_whatever_the_wake_up_pattern() {
    // 200 frames at t = 0; the driver wakes at irregular instants, up to 3 ms late: each
    // frame still leaves at its model instant (k+2)·0.8 ms + 10 ms
    let mut f = fabric(1000, false);
    for _ in 0..200 {
        f.ingress(SimTime(0), 0, &udp(1000, 0));
    }
    let mut now = 0u64;
    let mut step = 0u64;
    let mut delivered = 0usize;
    while now < 200 * MS {
        step = (step * 7919 + 104_729) % (3 * MS);
        now += step + 1;
        delivered += run_to(&mut f, now).len();
        let expected = (0..200u64)
            .filter(|k| (k + 2) * 800_000 + 10 * MS <= now)
            .count();
        assert_eq!(delivered, expected, "at {now} ns");
    }
    assert_eq!(
        f.flows[0].last_delivery(),
        Some(SimTime(201 * 800_000 + 10 * MS))
    );
    // the rate delivered at the far end is exactly the link's: 199 gaps of 800 µs
    let first = f.flows[0].first_delivery().unwrap().0;
    let last = f.flows[0].last_delivery().unwrap().0;
    assert_eq!(last - first, 199 * 800_000);
    assert!(f.lateness.max_ns < 3 * MS + 1);
    assert_eq!(f.lateness.count, 200);
}

#[test]
fn frames_arriving_while_the_line_is_busy_wait_their_turn() {
    // one frame every 400 µs offered to an 800 µs-per-frame link: the queue grows, the
    // departures stay 800 µs apart
    let mut f = fabric(1000, false);
    let mut times = Vec::new();
    for k in 0..50u64 {
        let t = k * 400_000;
        times.extend(run_to(&mut f, t).into_iter().map(|_| t));
        f.ingress(SimTime(t), 0, &udp(1000, 0));
    }
    let mut now = 50 * 400_000;
    while f.next_deadline().is_some() {
        now = f.next_deadline().unwrap().0;
        times.extend(run_to(&mut f, now).into_iter().map(|_| now));
    }
    assert_eq!(times.len(), 50);
    for w in times.windows(2).skip(30) {
        assert_eq!(w[1] - w[0], 800_000, "{times:?}");
    }
    let (q, _, _) = f.rows(SimTime(now), 1.0);
    assert!(q[0].max_len_packets >= 20, "{}", q[0].max_len_packets);
}

#[test]
fn the_access_queue_drops_what_it_cannot_hold_and_counts_stay_whole() {
    let mut f = fabric(5, false);
    for _ in 0..20 {
        f.ingress(SimTime(0), 0, &udp(1000, 0));
    }
    // one on the wire, five queued, fourteen dropped
    let (q, _, _) = f.rows(SimTime(0), 1.0);
    assert_eq!(&*q[0].name, "a->r");
    assert_eq!(q[0].drops["overflow"], 14);
    let out = run_to(&mut f, 100 * MS);
    assert_eq!(out.len(), 6);
    let (sent, delivered, dropped, inside) = f.totals();
    assert_eq!((sent, delivered, dropped, inside), (20, 6, 14, 0));
}

#[test]
fn the_conditioner_re_marks_the_excess_in_the_frames_themselves() {
    // 1 Mb/s contract, 2000 B bucket: the first two 1000-B frames are green (AF11), the rest of
    // a burst yellow (AF12), written into the DS field with a valid checksum
    let mut f = fabric(100, true);
    for _ in 0..6 {
        f.ingress(SimTime(0), 0, &udp(1000, 10 << 2));
    }
    let out = run_to(&mut f, 100 * MS);
    assert_eq!(out.len(), 6);
    let dscps: Vec<u8> = out
        .iter()
        .map(|(_, fr)| parse(fr).unwrap().tos >> 2)
        .collect();
    assert_eq!(dscps, vec![10, 10, 12, 12, 12, 12]);
    for (_, fr) in &out {
        let h = &fr[14..34];
        let c = crate::frame::ipv4_checksum(h);
        assert_eq!(u16::from_be_bytes([h[10], h[11]]), c);
    }
    let (_, _, conds) = f.rows(SimTime(100 * MS), 1.0);
    assert_eq!((conds[0].green_packets, conds[0].yellow_packets), (2, 4));
    // the contract check is filled live: the metered flow's bytes that left for b, over the
    // measured interval (1 s here), against the 1 Mb/s contract
    let delivered = f.flows[0].bytes_measured as f64 * 8.0 / 1e3;
    assert!(delivered > 0.0);
    assert_eq!(conds[0].delivered_kbps, delivered);
    assert_eq!(conds[0].delivered_ros, delivered / conds[0].contract_kbps);
}

#[test]
fn what_is_not_a_scenario_hosts_ipv4_is_not_forwarded() {
    let mut f = fabric(100, false);
    let mut arp = udp(60, 0);
    arp[12] = 0x08;
    arp[13] = 0x06;
    f.ingress(SimTime(0), 0, &arp);
    f.ingress(
        SimTime(0),
        0,
        &test_frame(A, [8, 8, 8, 8], 17, 1, 2, 100, 0),
    );
    assert!(run_to(&mut f, 100 * MS).is_empty());
    assert_eq!(f.counters.ignored_not_ipv4, 1);
    assert_eq!(f.counters.ignored_unknown_address, 1);
}

fn temp_path(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("afsim-live-test-{}-{name}", std::process::id()))
}

#[test]
fn a_capture_holds_each_departing_packet_whole_with_its_new_ds_field_and_wall_time() {
    // the marker re-marks 4 of 6 frames AF12; the capture of r->b holds all six as they left
    // r (re-marked, checksum valid), stamped epoch + the instant each started transmission
    let mut f = fabric(100, true);
    let path = temp_path("r-b.pcap");
    let mut spec = f.spec().clone();
    spec.add_capture("r->b", path.clone(), "test")
        .expect("port");
    let hosts = f.hosts().to_vec();
    let flows = [FlowMatch {
        flow: 0,
        protocol: 17,
        src_ip: A,
        dst_ip: B,
        port: 5000,
    }];
    f = Fabric::build(&spec, hosts, &flows).expect("fabric");
    f.set_wall_epoch(1_700_000_000_000_000_000);
    for _ in 0..6 {
        f.ingress(SimTime(0), 0, &udp(1000, 10 << 2));
    }
    assert_eq!(run_to(&mut f, 100 * MS).len(), 6);
    let caps = f.finish_captures();
    assert_eq!(caps.len(), 1);
    assert_eq!(
        (caps[0].0.as_str(), caps[0].2, caps[0].3.as_deref()),
        ("r->b", 6, None)
    );
    let bytes = std::fs::read(&path).expect("pcap");
    std::fs::remove_file(&path).ok();
    assert_eq!(&bytes[..4], &0xA1B2_3C4Du32.to_le_bytes());
    assert_eq!(
        u32::from_le_bytes(bytes[20..24].try_into().unwrap()),
        101,
        "LINKTYPE_RAW"
    );
    let mut at = 24;
    let mut dscps = Vec::new();
    let mut stamps = Vec::new();
    while at < bytes.len() {
        let r = |k: usize| u32::from_le_bytes(bytes[at + k..at + k + 4].try_into().unwrap());
        let (sec, ns, incl, orig) = (r(0), r(4), r(8) as usize, r(12));
        assert_eq!((incl, orig), (1000, 1000), "the whole IP packet");
        let ip = &bytes[at + 16..at + 16 + incl];
        assert_eq!(
            u16::from_be_bytes([ip[10], ip[11]]),
            crate::frame::ipv4_checksum(&ip[..20])
        );
        dscps.push(ip[1] >> 2);
        stamps.push(u64::from(sec) * 1_000_000_000 + u64::from(ns) - 1_700_000_000_000_000_000);
        at += 16 + incl;
    }
    assert_eq!(dscps, vec![10, 10, 12, 12, 12, 12]);
    // 1000 B at 10 Mb/s = 0.8 ms a packet; the first leaves r once it crossed a->r (0.8 ms + 5 ms)
    let first = 5_800_000;
    assert_eq!(
        stamps,
        (0..6).map(|k| first + k * 800_000).collect::<Vec<u64>>()
    );
}

#[test]
fn the_queue_trace_records_every_arrival_at_a_red_queue_with_its_average_and_fate() {
    let text = r#"
[scenario]
name = "t"
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
rate = "1Mbps"
delay = "1ms"
queue = { kind = "red", limit = "20pkt", min_th = 2, max_th = 6, max_p = 0.1, w_q = 0.2 }
[[flow]]
name = "f"
from = "a"
to = "b"
kind = "cbr"
rate = "1Mbps"
packet_size = "1000B"
"#;
    let spec = afsim_core::load_str(text, "t.toml", &[]).expect("scenario");
    let hosts = vec![
        Host {
            node: 0,
            ip: A,
            mac: [2, 0, 0, 0, 0, 2],
            router_mac: [2, 0, 0, 0, 0, 1],
        },
        Host {
            node: 2,
            ip: B,
            mac: [2, 0, 0, 0, 1, 2],
            router_mac: [2, 0, 0, 0, 1, 1],
        },
    ];
    let flows = [FlowMatch {
        flow: 0,
        protocol: 17,
        src_ip: A,
        dst_ip: B,
        port: 5000,
    }];
    let mut f = Fabric::build(&spec, hosts, &flows).expect("fabric");
    f.enable_queue_trace();
    for _ in 0..40 {
        f.ingress(SimTime(0), 0, &udp(1000, 0));
    }
    run_to(&mut f, 2000 * MS);
    let rows = f.queue_trace.clone().expect("trace");
    let (queues, _, _) = f.rows(SimTime(2000 * MS), 2.0);
    let red = queues.iter().find(|q| &*q.name == "r->b").unwrap();
    assert_eq!(
        rows.len() as u64,
        red.arrivals,
        "one row per arrival at the RED queue, none elsewhere"
    );
    let dropped = rows.iter().filter(|r| r.fate != 0).count() as u64;
    assert_eq!(dropped, red.drops_total);
    assert!(dropped > 0);
    // the average is an EWMA of the lengths: it starts low and rises behind the queue
    assert!(
        rows[0].avg < 1.0 && rows.last().unwrap().avg > 2.0,
        "{:?}",
        &rows[..3]
    );
    assert!(rows.windows(2).all(|w| w[0].t_ns <= w[1].t_ns));
    let path = temp_path("trace.csv");
    assert_eq!(f.write_queue_trace(&path).unwrap(), rows.len());
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::remove_file(&path).ok();
    assert!(text.starts_with("time_s,queue,len_packets,avg,avg_total,fate\n"));
    assert_eq!(text.lines().count(), rows.len() + 1);
    assert!(text
        .lines()
        .any(|l| l.ends_with(",early") || l.ends_with(",overflow")));
}
