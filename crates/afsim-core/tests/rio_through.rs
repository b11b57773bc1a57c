//! An arrival at an idle RIO port with nothing queued is offered to RIO and, if accepted, goes
//! straight onto the wire, past the FIFO (issue 25, `World::enqueue`, `Rio::pass_read`),
//! except in a run with observers, which takes every packet through the queue. The two paths
//! must give the same report, byte for byte: here with coupled and decoupled RIO, with ECN,
//! with dsredq spacing and with a byte limit that refuses some packets even at an empty queue,
//! over a bottleneck loaded enough for early drops and access links idle most of the time.

use afsim_core::load_str;

/// Two jittered CBR flows (300-byte and 1000-byte packets, the second ECN-capable when
/// `ecn`) marked AF11/AF12 by a token bucket at r1, over RIO queues (`rio` is the rest of the
/// queue's table) on a 1.5 Mb/s bottleneck; with a queue monitor on the bottleneck if
/// `monitored`.
fn scenario(rio: &str, monitored: bool) -> String {
    let monitor = if monitored {
        "[[monitor]]\nqueue = \"r1->r2\"\ninterval = \"10ms\"\n"
    } else {
        ""
    };
    let queue = format!("{{ kind = \"rio\", w_q = 0.05, {rio} }}");
    format!(
        r#"
[scenario]
name = "rio-through"
seed = 5
duration = "3s"

[[node]]
name = "r1"
[[node]]
name = "r2"
[[node]]
name = "sink"
[[node]]
name = "src"
count = 4

[[link]]
between = ["src", "r1"]
rate = "10Mbps"
delay = "1ms"
queue = {queue}
[[link]]
between = ["r1", "r2"]
rate = "1.5Mbps"
delay = "5ms"
queue = {queue}
[[link]]
between = ["r2", "sink"]
rate = "10Mbps"
delay = "1ms"
queue = {queue}

[[flow]]
name = "small"
from = "src"
to = "sink"
kind = "cbr"
rate = "200kbps"
packet_size = "300B"
jitter = true

[[flow]]
name = "large"
from = "src"
to = "sink"
kind = "cbr"
rate = "250kbps"
packet_size = "1000B"
jitter = true

[[conditioner]]
name = "edge"
at = "r1"
from = "src"
meter = {{ kind = "token_bucket", rate = "150kbps", depth = "3000B" }}
green = "AF11"
yellow = "AF12"
{monitor}"#
    )
}

#[test]
fn the_fifo_skipped_or_not_gives_the_same_rio_report() {
    let curves = "in = { min_th = 2, max_th = 6, max_p = 0.2 }, out = { min_th = 1, max_th = 3, max_p = 0.5 }";
    let cases = [
        format!("limit = \"20pkt\", {curves}"),
        format!("limit = \"20pkt\", {curves}, coupling = \"decoupled\""),
        format!("limit = \"20pkt\", {curves}, ecn = \"tail\""),
        format!("limit = \"20pkt\", {curves}, spacing = \"dsredq\""),
        // 900 bytes: the 1000-byte packets never fit, even in an empty queue
        format!("limit = \"900B\", mean_packet_size = \"150B\", {curves}"),
    ];
    for rio in &cases {
        let run = |monitored: bool| {
            let spec = load_str(&scenario(rio, monitored), "rio-through.toml", &[])
                .unwrap_or_else(|e| panic!("{rio}: {e}"));
            afsim_core::run(&spec, None).unwrap()
        };
        let (plain, observed) = (run(false), run(true));
        assert_eq!(plain.to_json(), observed.to_json(), "{rio}");
        let departures: u64 = plain.colours.iter().map(|c| c.departures).sum();
        assert!(departures > 1_000, "{rio}: traffic flows");
        let drops: u64 = plain
            .colours
            .iter()
            .map(|c| c.drops_early + c.drops_overflow)
            .sum();
        assert!(drops > 0, "{rio}: some arrivals are refused");
    }
}
