//! `cargo bench -p afsim-core`: engine speed on the UDP reference (specs built in code, so the
//! figure is the event loop alone, not the loader). Prints packet-hops and events per wall
//! second. The `afsim bench` command reports the same scenario from its TOML file.

use std::time::Instant;

use afsim_core::scenario::spec::*;
use afsim_core::{run, SimDuration, SimTime};

/// 50 CBR sources -> r1 -> r2 -> r3 -> sink: four hops, bottleneck r1-r2 at 45 Mb/s loaded 89%.
fn udp_reference(secs: u64) -> Spec {
    let q = QueueSpec::DropTail {
        limit: Limit::Packets(100),
    };
    let link = |a, b, rate_bps, ms| LinkSpec {
        a,
        b,
        rate_bps,
        delay: SimDuration::from_millis(ms),
        framing: Framing::Plain,
        queue_ab: q.clone().into(),
        queue_ba: q.clone().into(),
        loss_ab: None,
        loss_ba: None,
    };
    let mut nodes: Vec<NodeSpec> = ["r1", "r2", "r3", "sink"]
        .iter()
        .map(|n| NodeSpec {
            name: n.to_string(),
        })
        .collect();
    let mut links = vec![
        link(0, 1, 45_000_000, 10),
        link(1, 2, 100_000_000, 5),
        link(2, 3, 100_000_000, 1),
    ];
    let mut flows = vec![];
    for i in 0..50 {
        nodes.push(NodeSpec {
            name: format!("src{i}"),
        });
        links.push(link(4 + i, 0, 100_000_000, 1));
        flows.push(FlowSpec {
            name: format!("cbr{i}"),
            dscp: 0,
            group: "cbr".into(),
            src: 4 + i,
            dst: 3,
            app: AppSpec::Cbr(CbrSpec {
                rate_bps: 800_000,
                packet_size: 500,
                start: SimTime(i as u64 * 1_000_000),
                stop: None,
                max_packets: None,
                jitter: true,
            }),
        });
    }
    Spec {
        name: "udp-reference".into(),
        seed: 1,
        stop: Stop {
            duration: Some(SimDuration::from_secs(secs)),
            ..Default::default()
        },
        warmup: SimDuration::ZERO,
        nodes,
        links,
        routes: vec![],
        flows,
        colours: afsim_core::edge::dscp::ColourTable::rfc2597(),
        conditioners: vec![],
        csas: vec![],
        captures: vec![],
        monitors: vec![],
        warnings: vec![],
    }
}

fn main() {
    for secs in [100, 400] {
        let spec = udp_reference(secs);
        let t0 = Instant::now();
        let r = run(&spec, None).expect("run");
        let wall = t0.elapsed().as_secs_f64();
        println!(
            "udp-reference {secs:>4} s simulated: {:>10} packet-hops, {:>10} events, {wall:.3} s wall, {:.2} M hops/s, {:.2} M events/s, pool high-water {}",
            r.engine.packet_hops,
            r.engine.events,
            r.engine.packet_hops as f64 / wall / 1e6,
            r.engine.events as f64 / wall / 1e6,
            r.engine.pool_high_water
        );
    }
}
