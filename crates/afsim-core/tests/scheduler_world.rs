//! End to end: a strict-priority scheduler on an overloaded link, built in code and run by the
//! engine. EF (served first) loses nothing; best effort absorbs the whole overload; every
//! packet is accounted for.

use afsim_core::edge::dscp::{ColourTable, BE, EF};
use afsim_core::queue::scheduler::{Policy, Service};
use afsim_core::scenario::spec::{
    AppSpec, CbrSpec, ClassSpec, FlowSpec, Framing, Limit, LinkSpec, NodeSpec, QueueSpec,
    SchedulerSpec, Spec, Stop,
};
use afsim_core::{run, SimDuration, SimTime};

fn cbr(name: &str, dscp: u8, rate_bps: u64, packet_size: u32) -> FlowSpec {
    FlowSpec {
        name: name.into(),
        dscp,
        group: name.into(),
        src: 0,
        dst: 1,
        app: AppSpec::Cbr(CbrSpec {
            rate_bps,
            packet_size,
            start: SimTime::ZERO,
            stop: None,
            max_packets: None,
            jitter: false,
        }),
    }
}

fn class(name: &str, dscp: &[u8], default: bool) -> ClassSpec {
    ClassSpec {
        name: name.into(),
        dscp: dscp.to_vec(),
        default,
        service: Service::Priority,
        queue: QueueSpec::DropTail {
            limit: Limit::Packets(20),
        },
    }
}

/// a → b at 1 Mb/s, EF first then best effort, each class with 20 packets of buffer; EF offers
/// 400 kb/s, best effort 1 Mb/s: 40 % overload, all of it best effort's to lose.
fn priority_link_spec() -> Spec {
    let scheduler = QueueSpec::Scheduler(SchedulerSpec {
        policy: Policy::Priority,
        classes: vec![class("ef", &[EF], false), class("be", &[], true)],
    });
    Spec {
        name: "priority".into(),
        seed: 1,
        stop: Stop {
            duration: Some(SimDuration::from_secs(10)),
            ..Default::default()
        },
        warmup: SimDuration::from_secs(1),
        nodes: vec![NodeSpec { name: "a".into() }, NodeSpec { name: "b".into() }],
        links: vec![LinkSpec {
            a: 0,
            b: 1,
            rate_bps: 1_000_000,
            delay: SimDuration::from_millis(5),
            framing: Framing::Plain,
            queue_ab: scheduler.into(),
            queue_ba: QueueSpec::DropTail {
                limit: Limit::Packets(50),
            }
            .into(),
            loss_ab: None,
            loss_ba: None,
        }],
        routes: vec![],
        flows: vec![cbr("ef", EF, 400_000, 200), cbr("be", BE, 1_000_000, 1000)],
        colours: ColourTable::rfc2597(),
        conditioners: vec![],
        csas: vec![],
        captures: vec![],
        monitors: vec![],
        warnings: vec![],
    }
}

#[test]
fn strict_priority_protects_ef_and_best_effort_absorbs_the_overload() {
    let r = run(&priority_link_spec(), None).unwrap_or_else(|e| panic!("{e}"));
    assert!(r.conservation.holds, "{}", r.conservation.identity);
    let (ef, be) = (&r.flows[0], &r.flows[1]);
    assert_eq!(ef.packets_dropped, 0, "EF loses nothing");
    assert_eq!(ef.packets_sent, ef.packets_delivered + ef.packets_in_flight);
    assert!(
        (ef.throughput_kbps - 400.0).abs() < 5.0,
        "EF gets its rate: {}",
        ef.throughput_kbps
    );
    // best effort gets what EF leaves of the link
    assert!(
        be.packets_dropped * 10 > be.packets_sent * 3,
        "about 40 % of BE is lost: {be:?}"
    );
    assert!(
        (be.throughput_kbps - 600.0).abs() < 15.0,
        "BE gets the rest: {}",
        be.throughput_kbps
    );
    let q = r.queues.iter().find(|q| &*q.name == "a->b").unwrap();
    assert_eq!(q.discipline, "scheduler");
    assert_eq!(
        q.drops_total, be.packets_dropped,
        "every queue drop is best effort's"
    );
    assert!(q.utilization > 0.99);
    // an EF packet waits at most for the BE packet on the wire (8 ms) and the EF packets ahead
    // of it; with 5 ms propagation and 1.6 ms of its own transmission, well under 15 ms
    assert!(ef.mean_delay_s.unwrap() < 0.015, "{:?}", ef.mean_delay_s);
}
