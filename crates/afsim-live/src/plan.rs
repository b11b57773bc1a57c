//! What the Python side needs to build a live run: the scenario's nodes, links and flows with
//! the few parameters real hosts use, and which nodes are hosts.
//!
//! Read this first: a *host* is a node some flow starts or ends at; every other node is a
//! router and lives only inside the forwarder. A host must have exactly one link, to a router
//! (its namespace has one interface and a default route). TFRC has no Linux implementation
//! and is refused, as are CSAs (see `fabric`).

use afsim_core::scenario::spec::AppSpec;
use afsim_core::Spec;
use serde_json::{json, Value};

/// The plan as JSON, or why the scenario cannot run live.
pub fn plan(spec: &Spec) -> Result<Value, String> {
    if !spec.csas.is_empty() {
        return Err(
            "[[csa]] is not supported live (its control packets have no wire format yet)".into(),
        );
    }
    let n = spec.nodes.len();
    let mut is_host = vec![false; n];
    for f in &spec.flows {
        is_host[f.src] = true;
        is_host[f.dst] = true;
    }
    for (i, node) in spec.nodes.iter().enumerate().filter(|(i, _)| is_host[*i]) {
        let links: Vec<usize> = spec
            .links
            .iter()
            .filter(|l| l.a == i || l.b == i)
            .map(|l| if l.a == i { l.b } else { l.a })
            .collect();
        if links.len() != 1 {
            return Err(format!(
                "host '{}' has {} links; live, a host (a flow's end) has exactly one",
                node.name,
                links.len()
            ));
        }
        if is_host[links[0]] {
            return Err(format!(
                "host '{}' is linked straight to host '{}'; live, hosts connect through a router",
                node.name, spec.nodes[links[0]].name
            ));
        }
    }
    let nodes: Vec<Value> = spec
        .nodes
        .iter()
        .enumerate()
        .map(|(i, nd)| json!({"name": nd.name, "host": is_host[i]}))
        .collect();
    let links: Vec<Value> = spec
        .links
        .iter()
        .map(|l| json!({"a": l.a, "b": l.b, "rate_bps": l.rate_bps, "delay_s": l.delay.as_secs_f64()}))
        .collect();
    let mut flows = Vec::new();
    for f in &spec.flows {
        let mut v =
            json!({"name": f.name, "group": f.group, "src": f.src, "dst": f.dst, "dscp": f.dscp});
        let o = v.as_object_mut().expect("object");
        match &f.app {
            AppSpec::Tcp(p) => {
                o.insert("kind".into(), json!("tcp"));
                o.insert("variant".into(), json!(p.variant.name()));
                o.insert("packet_size".into(), json!(p.packet_size));
                o.insert("max_window_bytes".into(), json!(p.max_window_bytes));
                o.insert("ecn".into(), json!(p.ecn));
                // the scenario's congestion control: Linux's of that name (`--cc` overrides)
                o.insert("cc".into(), json!(p.cc.name()));
                o.insert("delayed_ack".into(), json!(p.delayed_ack));
                o.insert("transfer_bytes".into(), json!(p.transfer_bytes));
                o.insert("start_s".into(), json!(p.start.as_secs_f64()));
            }
            AppSpec::Cbr(c) => {
                o.insert("kind".into(), json!("cbr"));
                o.insert("rate_bps".into(), json!(c.rate_bps));
                o.insert("packet_size".into(), json!(c.packet_size));
                o.insert("start_s".into(), json!(c.start.as_secs_f64()));
                o.insert("stop_s".into(), json!(c.stop.map(|t| t.as_secs_f64())));
                o.insert("max_packets".into(), json!(c.max_packets));
                o.insert("jitter".into(), json!(c.jitter));
            }
            AppSpec::Tfrc(_) => {
                return Err(format!(
                    "flow '{}': TFRC has no Linux implementation; it cannot run live",
                    f.name
                ))
            }
        }
        flows.push(v);
    }
    Ok(json!({
        "name": spec.name,
        "seed": spec.seed,
        "duration_s": spec.stop.duration.map(|d| d.as_secs_f64()),
        // stop once every finite TCP transfer is acknowledged (`afsim live` watches its senders)
        "until_transfers_complete": spec.stop.transfers_complete,
        "warmup_s": spec.warmup.as_secs_f64(),
        "nodes": nodes,
        "links": links,
        "flows": flows,
    }))
}
