//! An arrival at an idle drop-tail or RIO port with nothing queued goes straight onto the wire,
//! past the FIFO (issue 25, `World::enqueue`; RIO first offered the packet, `Rio::pass_read`),
//! except in a run with observers, which takes every packet through the queue. The two paths
//! must give the same report, byte for byte: drop-tail over limits in packets and in bytes,
//! some of which refuse packets even at an empty queue; RIO coupled and decoupled, with ECN
//! configured, with dsredq spacing and with a byte limit that refuses some packets even at an
//! empty queue, over a bottleneck loaded enough for early drops and access links idle most of
//! the time.

use afsim_core::load_str;

/// What varies between the cases of one network: four sources behind r1, a bottleneck r1 -> r2,
/// a sink behind r2, every link's queue `queue` (a TOML inline table).
struct Net<'a> {
    name: &'a str,
    seed: u64,
    queue: &'a str,
    bottleneck: &'a str,
    /// The rates of the two jittered CBR flows, of 300-byte and of 1000-byte packets.
    rates: (&'a str, &'a str),
    /// More tables (a conditioner), after the flows.
    extra: &'a str,
}

/// The scenario, with a queue monitor on the bottleneck if `monitored`.
fn scenario(n: &Net, monitored: bool) -> String {
    let monitor = if monitored {
        "[[monitor]]\nqueue = \"r1->r2\"\ninterval = \"10ms\"\n"
    } else {
        ""
    };
    let Net {
        name,
        seed,
        queue,
        bottleneck,
        rates: (small, large),
        extra,
    } = n;
    format!(
        r#"
[scenario]
name = "{name}"
seed = {seed}
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
rate = "{bottleneck}"
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
rate = "{small}"
packet_size = "300B"
jitter = true

[[flow]]
name = "large"
from = "src"
to = "sink"
kind = "cbr"
rate = "{large}"
packet_size = "1000B"
jitter = true
{extra}{monitor}"#
    )
}

/// The run's report, with and without the observer.
fn both(n: &Net) -> (afsim_core::Report, afsim_core::Report) {
    let run = |monitored: bool| {
        let spec = load_str(&scenario(n, monitored), &format!("{}.toml", n.name), &[])
            .unwrap_or_else(|e| panic!("{}: {e}", n.queue));
        afsim_core::run(&spec, None).unwrap()
    };
    (run(false), run(true))
}

#[test]
fn the_fifo_skipped_or_not_gives_the_same_report() {
    // "800B": the 1000-byte packets never fit, even in an empty queue
    for limit in ["1pkt", "2pkt", "50pkt", "800B", "1000B", "3000B"] {
        let queue = format!("{{ kind = \"droptail\", limit = \"{limit}\" }}");
        let (plain, observed) = both(&Net {
            name: "through",
            seed: 3,
            queue: &queue,
            bottleneck: "2Mbps",
            rates: ("400kbps", "300kbps"),
            extra: "",
        });
        assert_eq!(plain.to_json(), observed.to_json(), "limit {limit}");
        let bottleneck = plain.queues.iter().map(|q| q.departures).max().unwrap();
        assert!(bottleneck > 100, "limit {limit}: traffic flows");
    }
}

/// The CBR packets are not ECN-capable (a CBR flow has no `ecn`), so the `ecn = "tail"` case
/// takes RIO's ECN configuration through both paths with drops where marks would be.
#[test]
fn the_fifo_skipped_or_not_gives_the_same_rio_report() {
    let marker = r#"
[[conditioner]]
name = "edge"
at = "r1"
from = "src"
meter = { kind = "token_bucket", rate = "150kbps", depth = "3000B" }
green = "AF11"
yellow = "AF12"
"#;
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
        let queue = format!("{{ kind = \"rio\", w_q = 0.05, {rio} }}");
        let (plain, observed) = both(&Net {
            name: "rio-through",
            seed: 5,
            queue: &queue,
            bottleneck: "1.5Mbps",
            rates: ("200kbps", "250kbps"),
            extra: marker,
        });
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
