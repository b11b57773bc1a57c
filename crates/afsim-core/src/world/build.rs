//! Building a `World` from a `Spec`: nodes, ports (queue, transmitter, propagation line,
//! loss), routing tables, conditioners, CSAs, agents with their random streams, captures and
//! monitors. The event loop is `run`, the results `report`.

use crate::edge::conditioner::Conditioner;
use crate::edge::csa::Csa;
use crate::metrics::delay::{CountingDelays, Delays};
use crate::metrics::flow::FlowStats;
use crate::metrics::series::{CodePointSeries, CountSeries, QueueSeries};
use crate::metrics::trace::QueueTrace;
use crate::net::framing::TxClock;
use crate::net::loss::Loss;
use crate::net::packet::Pool;
use crate::net::pcap;
use crate::net::routing::Tables;
use crate::queue::{AnyQueue, QueueSpec, N_DROP_REASONS};
use crate::scenario::spec::CsaScope;
use crate::scenario::spec::{AppSpec, MonitorKind, SpecError};
use crate::scenario::Spec;
use crate::sim::event::{Event, EventQueue};
use crate::sim::rng::{self};
use crate::sim::time::SimTime;
use crate::transport::{cbr::Cbr, sink::Sink, tcp, tfrc, AnyAgent};

/// `receive`'s `via` for packets an agent sent from the node itself.
use super::{CsaRun, CtlRun, Grid, Port, Watch, World};

impl<'s> World<'s> {
    /// Builds the world a spec describes. Agents are started (their first timers armed) here.
    pub fn build(spec: &'s Spec) -> Result<World<'s>, SpecError> {
        Self::build_looking_ahead(spec, None)
    }

    /// `build`, with the look-ahead (`LOOK_AHEAD`, `run`'s `World::look_ahead`) on or off as
    /// `look_ahead` says, or by the world's size (`LOOK_AHEAD_PORTS`) if `None`: the tests run
    /// worlds both ways.
    pub(crate) fn build_looking_ahead(
        spec: &'s Spec,
        look_ahead: Option<bool>,
    ) -> Result<World<'s>, SpecError> {
        spec.check()?;
        let seed = spec.seed;
        let node_name = |i: usize| spec.nodes[i].name.as_str();
        let mut ports = Vec::with_capacity(2 * spec.links.len());
        for l in &spec.links {
            for (from, to, q, loss) in [
                (l.a, l.b, &l.queue_ab, l.loss_ab),
                (l.b, l.a, &l.queue_ba, l.loss_ba),
            ] {
                // the streams "link/FROM->TO" and "queue/FROM->TO", named without a `String`
                let (a, b) = (node_name(from), node_name(to));
                let queue = AnyQueue::from_spec(q, l.rate_bps);
                let loss = loss.map(|m| {
                    Box::new((
                        Loss::new(m, rng::stream_of(seed, &["link/", a, "->", b])),
                        0,
                    ))
                });
                let rng = (!matches!(queue, AnyQueue::DropTail(_)))
                    .then(|| Box::new(rng::stream_of(seed, &["queue/", a, "->", b])));
                ports.push(Port::new(
                    (from as u32, to as u32),
                    queue,
                    TxClock::new(l.framing, l.rate_bps),
                    l.delay,
                    (rng, loss),
                ));
            }
        }
        // capture files are created now, before anything runs
        let mut captures = Vec::with_capacity(spec.captures.len());
        for c in &spec.captures {
            let writer = pcap::Writer::create(&c.path).map_err(|e| {
                SpecError::Capture(Box::new(crate::ScenarioError {
                    message: format!("cannot create the capture file '{}': {e}", c.path.display()),
                    ..c.place.clone()
                }))
            })?;
            ports[c.port].capture = captures.len() as u32;
            captures.push(writer);
        }
        let mut grid = Grid {
            next_ns: u64::MAX,
            flows: None,
            conditioners: None,
            levels: Vec::new(),
            code_points: Vec::new(),
        };
        let n_levels = usize::from(spec.colours.levels());
        for m in &spec.monitors {
            let interval = m.interval.0;
            match m.kind {
                MonitorKind::Queue => {
                    let w = ports[m.port]
                        .watch
                        .get_or_insert_with(Box::<Watch>::default);
                    w.series = Some(QueueSeries::new(interval));
                    let l = &spec.links[m.port / 2];
                    w.marks_by_cp = may_mark(if m.port % 2 == 0 {
                        &l.queue_ab
                    } else {
                        &l.queue_ba
                    });
                    w.sojourn = Some(Delays::default());
                    grid.levels
                        .push((m.port as u32, CountSeries::new(interval, n_levels)));
                    grid.code_points
                        .push((m.port as u32, CodePointSeries::new(interval)));
                }
                MonitorKind::Events => {
                    let w = ports[m.port]
                        .watch
                        .get_or_insert_with(Box::<Watch>::default);
                    w.trace = Some(QueueTrace::default());
                }
                // the pseudo-flows of CSA signals are counted too (they follow the flows)
                MonitorKind::Flows => grid.flows = Some(CountSeries::new(interval, 0)),
                MonitorKind::Conditioners => {
                    grid.conditioners = Some(CountSeries::new(interval, spec.conditioners.len()))
                }
            }
            grid.next_ns = grid.next_ns.min(interval);
        }
        // a monitored port's per-level and per-code-point counters are read while the run goes
        // on: all of them kept from the start (`Port::settle_counts`)
        for p in ports.iter_mut().filter(|p| p.watch.is_some()) {
            p.settle_counts();
        }
        let links: Vec<(usize, usize)> = spec.links.iter().map(|l| (l.a, l.b)).collect();
        let routes: Vec<&[usize]> = spec.routes.iter().map(|r| r.path.as_slice()).collect();
        let tables = Tables::compute(spec.nodes.len(), &links, &routes, spec.destinations())
            .map_err(SpecError::Route)?;

        let mut agents = Vec::with_capacity(2 * spec.flows.len());
        let mut agent_node = Vec::with_capacity(2 * spec.flows.len());
        let mut finite = Vec::with_capacity(spec.flows.len());
        for (i, f) in spec.flows.iter().enumerate() {
            let flow = i as u32;
            let (source_id, sink_id) = (2 * flow, 2 * flow + 1);
            let stream = rng::stream_of(seed, &["flow/", &f.name]);
            let (src, dst) = (f.src as u32, f.dst as u32);
            match &f.app {
                AppSpec::Cbr(c) => {
                    finite.push(c.max_packets.is_some());
                    agents.push(AnyAgent::Cbr(Box::new(Cbr::new(
                        flow,
                        src,
                        dst,
                        sink_id,
                        c.clone(),
                        stream,
                    ))));
                    agents.push(AnyAgent::Sink(Sink::new(flow)));
                }
                AppSpec::Tcp(p) => {
                    finite.push(p.transfer_bytes.is_some());
                    let receiver_stream = rng::stream_of(seed, &["flow/", &f.name, "/receiver"]);
                    agents.push(AnyAgent::TcpSender(Box::new(tcp::sender::Sender::new(
                        flow, src, dst, sink_id, p, stream,
                    ))));
                    agents.push(AnyAgent::TcpReceiver(Box::new(
                        tcp::receiver::Receiver::new(flow, src, dst, source_id, p, receiver_stream),
                    )));
                }
                AppSpec::Tfrc(p) => {
                    finite.push(false);
                    let from = SimTime::ZERO + spec.warmup;
                    agents.push(AnyAgent::TfrcSender(Box::new(tfrc::sender::Sender::new(
                        flow, src, dst, sink_id, p, from,
                    ))));
                    agents.push(AnyAgent::TfrcReceiver(Box::new(
                        tfrc::receiver::Receiver::new(flow, dst, src, source_id, p, from),
                    )));
                }
            }
            debug_assert_eq!(agents.len() as u32, sink_id + 1);
            agent_node.push(f.src as u32);
            agent_node.push(f.dst as u32);
        }
        let finite_total = finite.iter().filter(|&&x| x).count();

        // conditioners on input lines: the ports whose far end is the conditioner's node
        // (left empty without conditioners: `run` looks at them only when there are some)
        let with = |n: usize| if spec.conditioners.is_empty() { 0 } else { n };
        let mut ingress: Vec<Vec<u32>> = vec![Vec::new(); with(ports.len())];
        let mut local: Vec<Vec<u32>> = vec![Vec::new(); with(spec.nodes.len())];
        let mut conditioners = Vec::with_capacity(spec.conditioners.len());
        // the ports into each node and out of each, in port order: a conditioner or a CSA looks
        // at its node's ports only, not at every port (issue 28)
        let (into, out_of) = if spec.conditioners.is_empty() && spec.csas.is_empty() {
            (PortsByNode::default(), PortsByNode::default())
        } else {
            (
                PortsByNode::new(spec.nodes.len(), ports.iter().map(|p| p.to)),
                PortsByNode::new(spec.nodes.len(), ports.iter().map(|p| p.from)),
            )
        };
        // per-flow arrays also cover the CSA control-packet pseudo-flows
        let n_all = spec.flows.len() + spec.csas.iter().map(|c| c.targets.len()).sum::<usize>();
        let mut sets = crate::edge::conditioner::FlowSets::default();
        for (c, cs) in spec.conditioners.iter().enumerate() {
            let stream = rng::stream_of(seed, &["conditioner/", &cs.name]);
            conditioners.push(Conditioner::new_shared(
                cs,
                n_all,
                &spec.colours,
                stream,
                SimTime::ZERO + spec.warmup,
                &mut sets,
            ));
            for &i in into.of(cs.node) {
                if cs.from.is_none_or(|f| f == ports[i as usize].from as usize) {
                    ingress[i as usize].push(c as u32);
                }
            }
            if cs.from.is_none() {
                local[cs.node].push(c as u32);
            }
        }

        // CSAs: the watched port, and a control-packet pseudo-flow per remote target
        let mut csas = Vec::with_capacity(spec.csas.len());
        let mut port_csa = vec![u32::MAX; ports.len()];
        let mut signal_flows = Vec::new();
        for (k, cs) in spec.csas.iter().enumerate() {
            let port = out_of
                .of(cs.node)
                .iter()
                .map(|&i| i as usize)
                .find(|&i| ports[i].to as usize == cs.towards)
                .ok_or(SpecError::NodeIndex {
                    what: "csa",
                    index: k,
                    field: "towards",
                })?;
            port_csa[port] = k as u32;
            let targets: Vec<(u32, u32)> = cs
                .targets
                .iter()
                .map(|&c| {
                    let at = spec.conditioners[c].node;
                    if at == cs.node {
                        (c as u32, u32::MAX)
                    } else {
                        let flow = (spec.flows.len() + signal_flows.len()) as u32;
                        signal_flows.push((
                            format!("csa/{}->{}", cs.name, spec.conditioners[c].name),
                            cs.node as u32,
                            at as u32,
                        ));
                        (c as u32, flow)
                    }
                })
                .collect();
            let n_ctls = match cs.scope {
                CsaScope::Shared => 1,
                CsaScope::PerBucket => targets.len(),
            };
            let mut ctl_of_cond = vec![u32::MAX; spec.conditioners.len()];
            for (t, &(c, _)) in targets.iter().enumerate() {
                ctl_of_cond[c as usize] = if cs.scope == CsaScope::Shared {
                    0
                } else {
                    t as u32
                };
            }
            csas.push(CsaRun {
                name: cs.name.clone(),
                node: cs.node as u32,
                port: port as u32,
                targets,
                ctls: (0..n_ctls)
                    .map(|_| CtlRun {
                        csa: Csa::with_trace(cs.params, cs.trace),
                        timer_at: None,
                    })
                    .collect(),
                ctl_of_cond,
                scope: cs.scope,
                trace: cs.trace,
                signal_bytes: cs.signal_bytes,
                signal_dscp: cs.signal_dscp,
            });
        }
        let n_flows = spec.flows.len() + signal_flows.len();
        finite.resize(n_flows, false);
        if let Some(f) = grid.flows.as_mut() {
            *f = CountSeries::new(f.interval_ns, n_flows);
        }

        let look_ahead = look_ahead.unwrap_or(ports.len() >= super::LOOK_AHEAD_PORTS);
        if look_ahead {
            for p in &mut ports {
                p.flags |= super::LOOK_AHEAD;
            }
        }
        let mut world = World {
            now: SimTime::ZERO,
            events: EventQueue::new(),
            pool: Pool::new(),
            ports,
            tables,
            agents,
            agent_node,
            flow_dscp: spec.flows.iter().map(|f| f.dscp).collect(),
            flows: vec![FlowStats::default(); n_flows],
            completion_counted: vec![false; n_flows],
            finite,
            finite_total,
            finite_done: 0,
            outbox: Vec::with_capacity(16),
            node_drops: vec![[0; N_DROP_REASONS]; spec.nodes.len()],
            any_conditioner: !conditioners.is_empty(),
            conditioners,
            ingress,
            local,
            cond_drops: vec![[0; N_DROP_REASONS]; spec.conditioners.len()],
            colours: spec.colours.clone(),
            csas,
            port_csa,
            cond_alpha: vec![Vec::new(); spec.conditioners.len()],
            flow_cond: vec![u32::MAX; n_flows],
            signal_flows,
            warmup: SimTime::ZERO + spec.warmup,
            goodput_at_warmup: vec![0; spec.flows.len()],
            generated: 0,
            data_generated: 0,
            delivered: 0,
            dropped: 0,
            events_done: 0,
            #[cfg(feature = "event-census")]
            census: [0; crate::sim::event::Event::KINDS.len()],
            #[cfg(feature = "event-census")]
            census_ties: 0,
            hops: 0,
            stop_reason: None,
            captures,
            flow_delays: vec![Delays::default(); n_flows],
            class_delays: vec![CountingDelays::default(); 64]
                .into_boxed_slice()
                .try_into()
                .expect("64 code points"),
            grid,
            spec,
        };
        for a in 0..world.agents.len() as u32 {
            world.call_agent::<true>(a, |agent, ctx| agent.start(ctx));
        }
        if world.warmup > SimTime::ZERO {
            world.events.schedule(world.warmup, Event::Warmup);
        }
        // every CSA announces its starting α (max_α) to its buckets at time zero, directly:
        // the paper's runs start uncongested with α at its ceiling
        for k in 0..world.csas.len() {
            let alpha = world.csas[k].ctls[0].csa.alpha();
            for t in 0..world.csas[k].targets.len() {
                let c = world.csas[k].targets[t].0;
                world.announce_alpha(c as usize, k as u32, alpha);
            }
        }
        Ok(world)
    }

    /// Replaces the discipline of one port (test doubles).
    #[cfg(test)]
    pub(crate) fn replace_queue(&mut self, port: usize, q: AnyQueue) {
        self.ports[port].set_queue(q);
    }
}

/// Port indices grouped by a node of theirs (compressed rows: `ports[start[n]..start[n + 1]]`
/// are node `n`'s, in port order).
#[derive(Default)]
struct PortsByNode {
    start: Vec<u32>,
    ports: Vec<u32>,
}

impl PortsByNode {
    /// From each port's node, in port order.
    fn new(n_nodes: usize, node_of: impl Iterator<Item = u32> + Clone) -> Self {
        let mut start = vec![0u32; n_nodes + 1];
        for n in node_of.clone() {
            start[n as usize + 1] += 1;
        }
        for n in 0..n_nodes {
            start[n + 1] += start[n];
        }
        let mut next = start.clone();
        let mut ports = vec![0u32; start[n_nodes] as usize];
        for (i, n) in node_of.enumerate() {
            ports[next[n as usize] as usize] = i as u32;
            next[n as usize] += 1;
        }
        PortsByNode { start, ports }
    }

    /// Node `n`'s ports, in port order (none for an empty index).
    fn of(&self, n: usize) -> &[u32] {
        match (self.start.get(n), self.start.get(n + 1)) {
            (Some(&a), Some(&b)) => &self.ports[a as usize..b as usize],
            _ => &[],
        }
    }
}

/// Whether a discipline can ever put an ECN mark: RED, RIO and WRED with `ecn` (their marking
/// curves need it), a scheduler with such a class queue.
fn may_mark(q: &QueueSpec) -> bool {
    match q {
        QueueSpec::Red(p) => p.common.ecn.is_some(),
        QueueSpec::Rio(p, _) => p.common.ecn.is_some(),
        QueueSpec::Wred(p, _) => p.common.ecn.is_some(),
        QueueSpec::Scheduler(s) => s.classes.iter().any(|c| may_mark(&c.queue)),
        QueueSpec::DropTail { .. } | QueueSpec::Sima(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::PortsByNode;

    #[test]
    fn ports_by_node_keep_port_order_within_each_node() {
        // ports 0..6 at nodes 2, 0, 2, 3, 0, 2; node 1 has none
        let idx = PortsByNode::new(4, [2u32, 0, 2, 3, 0, 2].into_iter());
        assert_eq!(idx.of(0), [1, 4]);
        assert!(idx.of(1).is_empty());
        assert_eq!(idx.of(2), [0, 2, 5]);
        assert_eq!(idx.of(3), [3]);
        assert!(idx.of(4).is_empty());
        assert!(PortsByNode::default().of(0).is_empty());
    }
}
