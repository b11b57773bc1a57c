//! End to end: a RIO bottleneck as ns-2's dsRED with ECN (`spacing = "dsredq"`, `ecn = "tail"`,
//! ns-2 `$q set ecn_ 1`), loaded from a scenario text and run by the engine. ECN-capable TCP
//! packets are marked where dsredq.cc would drop them; a non-ECN CBR stream of the same colours
//! is still dropped early; every packet is accounted for.

use afsim_core::queue::red::SpacingRule;
use afsim_core::report::Report;
use afsim_core::scenario::spec::QueueSpec;
use afsim_core::{load_str, run};

/// a ─ r ═ b: a 2 Mb/s RIO bottleneck (coupled or decoupled, `$coupling`), two ECN TCP flows
/// (AF11 and AF12) and 1.2 Mb/s of non-ECN AF12 CBR into it.
const DSRED_ECN: &str = r#"
[scenario]
duration = "20s"
[params]
coupling = "coupled"
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
queue = { kind = "droptail", limit = "1000pkt" }
[[link]]
between = ["r", "b"]
rate = "2Mbps"
delay = "10ms"
[link.queue]
kind = "rio"
limit = "60pkt"
in = { min_th = 20, max_th = 40, max_p = 0.05 }
out = { min_th = 5, max_th = 15, max_p = 0.1 }
coupling = "$coupling"
w_q = 0.02
mean_packet_size = "1000B"
spacing = "dsredq"
ecn = "tail"
[[flow]]
name = "in"
from = "a"
to = "b"
kind = "tcp"
dscp = "AF11"
packet_size = "1000B"
max_window = "100pkt"
ecn = true
[[flow]]
name = "out"
from = "a"
to = "b"
kind = "tcp"
dscp = "AF12"
packet_size = "1000B"
max_window = "100pkt"
ecn = true
[[flow]]
name = "cbr"
from = "a"
to = "b"
kind = "cbr"
dscp = "AF12"
rate = "1.2Mbps"
packet_size = "1000B"
"#;

fn dsred(coupling: &str) -> Report {
    let spec = load_str(
        DSRED_ECN,
        "dsred.toml",
        &[("coupling".into(), coupling.into())],
    )
    .unwrap();
    let QueueSpec::Rio(p, _) = &*spec.links[1].queue_ab else {
        panic!("r->b is a rio queue")
    };
    assert_eq!(p.common.spacing, SpacingRule::Dsredq);
    assert!(
        p.common.ecn_forced_mark,
        "dsredq.cc marks above max_th: the default with spacing dsredq"
    );
    let r = run(&spec, None).unwrap();
    assert!(r.conservation.holds, "{}", r.conservation.identity);
    r
}

#[test]
fn a_dsredq_rio_with_ecn_tail_marks_ecn_tcp_and_still_drops_non_ecn_packets_early() {
    for coupling in ["coupled", "decoupled"] {
        let r = dsred(coupling);
        let q = r.queues.iter().find(|q| &*q.name == "r->b").unwrap();
        assert!(q.ecn_marks.unwrap() > 0, "{coupling}: {q:?}");
        assert!(
            q.drops["early"] > 0,
            "{coupling}: the non-ECN CBR is dropped early: {q:?}"
        );
        let ce = |name: &str| {
            r.flows
                .iter()
                .find(|f| f.name == name)
                .unwrap()
                .ce_received
                .unwrap_or(0)
        };
        assert!(
            ce("in") + ce("out") > 0,
            "{coupling}: the TCP receivers see CE"
        );
        for c in r.colours.iter().filter(|c| &*c.queue == "r->b") {
            assert_eq!(
                c.arrivals,
                c.departures + c.drops_overflow + c.drops_early + c.queued_end,
                "{c:?}"
            );
        }
    }
}
