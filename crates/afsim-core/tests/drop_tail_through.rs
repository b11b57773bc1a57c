//! An arrival at an idle drop-tail port with nothing queued goes straight onto the wire, past
//! the FIFO (issue 25, `World::enqueue`), except in a run with observers, which takes every
//! packet through the queue. The two paths must give the same report, byte for byte: here
//! over limits in packets and in bytes, some of which refuse packets even at an empty queue.

use afsim_core::load_str;

/// Two jittered CBR flows (300-byte and 1000-byte packets) over a 2 Mb/s bottleneck with the
/// given drop-tail limit; with a queue monitor on the bottleneck if `monitored`.
fn scenario(limit: &str, monitored: bool) -> String {
    let monitor = if monitored {
        "[[monitor]]\nqueue = \"r1->r2\"\ninterval = \"10ms\"\n"
    } else {
        ""
    };
    format!(
        r#"
[scenario]
name = "through"
seed = 3
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
queue = {{ kind = "droptail", limit = "{limit}" }}
[[link]]
between = ["r1", "r2"]
rate = "2Mbps"
delay = "5ms"
queue = {{ kind = "droptail", limit = "{limit}" }}
[[link]]
between = ["r2", "sink"]
rate = "10Mbps"
delay = "1ms"
queue = {{ kind = "droptail", limit = "{limit}" }}

[[flow]]
name = "small"
from = "src"
to = "sink"
kind = "cbr"
rate = "400kbps"
packet_size = "300B"
jitter = true

[[flow]]
name = "large"
from = "src"
to = "sink"
kind = "cbr"
rate = "300kbps"
packet_size = "1000B"
jitter = true
{monitor}"#
    )
}

#[test]
fn the_fifo_skipped_or_not_gives_the_same_report() {
    // "800B": the 1000-byte packets never fit, even in an empty queue
    for limit in ["1pkt", "2pkt", "50pkt", "800B", "1000B", "3000B"] {
        let run = |monitored: bool| {
            let spec = load_str(&scenario(limit, monitored), "through.toml", &[]).unwrap();
            afsim_core::run(&spec, None).unwrap()
        };
        let (plain, observed) = (run(false), run(true));
        assert_eq!(plain.to_json(), observed.to_json(), "limit {limit}");
        let bottleneck = plain.queues.iter().map(|q| q.departures).max().unwrap();
        assert!(bottleneck > 100, "limit {limit}: traffic flows");
    }
}
