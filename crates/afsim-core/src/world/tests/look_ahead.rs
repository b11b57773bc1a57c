//! The look-ahead (issue 28, `run::look_ahead`): a packet's next stop found as it is sent. It
//! is a choice of speed only: a world run with it and without it gives the same report, byte
//! for byte, on every path an arrival can take (delivery to an agent, to a sink, to a CSA at a
//! router; forwarding, through conditioners, to no route; a lossy wire; observers).

use super::*;

fn run_looking(s: &Spec, look_ahead: bool) -> Report {
    let mut w = World::build_looking_ahead(s, Some(look_ahead)).unwrap_or_else(|e| panic!("{e}"));
    w.run(None).unwrap_or_else(|e| panic!("{e}"));
    w.finish_captures().unwrap_or_else(|e| panic!("{e}"));
    let r = w.into_report();
    assert!(r.conservation.holds, "{}", r.conservation.identity);
    r
}

fn same_both_ways(s: &Spec) -> Report {
    let (off, on) = (run_looking(s, false), run_looking(s, true));
    assert_eq!(off.to_json(), on.to_json());
    on
}

/// Three NewReno flows (and a CBR flow) over a RED bottleneck: deliveries to TCP senders and
/// receivers, drops, retransmission timers.
#[test]
fn tcp_over_red_reports_the_same_with_and_without_the_look_ahead() {
    use crate::transport::tcp::{Params, Variant};
    let p = Params {
        variant: Variant::NewReno,
        ..Params::default()
    };
    let mut flows: Vec<_> = (0..3).map(|i| tcp(&format!("t{i}"), 0, 3, p)).collect();
    flows.push(cbr("c", 0, 3, 2_000_000, 500));
    let s = tcp_dumbbell(red_link(1, 2, 10_000_000, 5.0, 15.0), flows, 20);
    let r = same_both_ways(&s);
    assert!(r.flows.iter().all(|f| f.packets_delivered > 0));
    assert!(
        r.flows.iter().any(|f| f.packets_dropped > 0),
        "the bottleneck drops"
    );
}

/// A remote CSA's control packets are delivered to a router (no agent); marked traffic goes
/// through conditioners and a RIO queue.
#[test]
fn conditioners_and_a_remote_csa_report_the_same_with_and_without_the_look_ahead() {
    let r = same_both_ways(&remote_csa_scenario());
    assert!(r.csas[0].signals_sent > 0);
}

/// No route (dropped at the node the packet arrives at), and a lossy wire.
#[test]
fn no_route_and_a_lossy_wire_report_the_same_with_and_without_the_look_ahead() {
    let mut lossy = link(1, 2, 10_000_000, 1, 50);
    lossy.loss_ab = Some(crate::net::loss::Model::Bernoulli { p: 0.1 });
    let s = spec(
        &["a", "b", "c", "d"],
        vec![link(0, 1, 10_000_000, 1, 50), lossy],
        vec![
            cbr("lost", 0, 2, 1_000_000, 500),
            cbr("nowhere", 0, 3, 100_000, 100),
        ],
        5,
    );
    let r = same_both_ways(&s);
    assert!(r.flows[1].packets_delivered == 0 && r.flows[1].packets_dropped > 0);
    assert!(r.flows[0].packets_delivered > 0 && r.flows[0].packets_dropped > 0);
}

/// Observers (monitors of every kind) take the other compiled packet path.
#[test]
fn observed_runs_report_the_same_with_and_without_the_look_ahead() {
    use super::monitor::{af_network, watched};
    let r = same_both_ways(&watched(&af_network()));
    assert!(r.flow_series.is_some() && !r.queue_traces.is_empty());
}

/// The look-ahead is on from `LOOK_AHEAD_PORTS` ports, off below, on every port or none.
#[test]
fn worlds_from_look_ahead_ports_on_look_ahead() {
    let hosts = |n: usize| {
        let names: Vec<String> = (0..n)
            .map(|i| format!("h{i}"))
            .chain(["r".into()])
            .collect();
        let links = (0..n).map(|i| link(i, n, 10_000_000, 1, 10)).collect();
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        spec(&refs, links, vec![cbr("f", 0, 1, 100_000, 100)], 1)
    };
    for (n, on) in [
        (LOOK_AHEAD_PORTS / 2 - 1, false),
        (LOOK_AHEAD_PORTS / 2, true),
    ] {
        let s = hosts(n);
        let w = World::build(&s).unwrap();
        assert_eq!(w.ports.len(), 2 * n);
        assert!(
            w.ports.iter().all(|p| (p.flags & LOOK_AHEAD != 0) == on),
            "{n} links"
        );
    }
}
