//! The world: nodes, ports, agents and forwarding tables built from a `Spec`, and the event
//! loop that runs them.
//!
//! Read this first: a link is two *ports*, one per direction. A port has an output queue
//! (`queue::AnyQueue`), a transmitter that holds at most one packet, and a propagation line: the
//! packets on the wire, in order (the delay is constant, so they arrive in the order they were
//! sent, and only the head of each line needs an event). A packet's life:
//! agent `send` → its node forwards it (`Tables::next_port`) → port queue → transmitter → line
//! (`Arrive` at start + framed transmission time + delay) → the next node forwards it again, or
//! delivers it to `dst_agent` if it is the destination. The transmitter is a `busy_until`
//! instant; a `TxDone` event is scheduled only while a packet waits behind it, so an idle or
//! lightly loaded port costs one event per packet instead of two.
//! Every exit from that path — delivery, or a drop with its place and reason — is counted, and
//! `report` checks that the counts add up.
//!
//! A port may also lose packets at random as they leave its wire (`net::loss`, the link's
//! `loss`): such a packet has used the link and is counted as dropped at "link from->to" for
//! reason `link_loss`.
//!
//! Not modelled: processing delay inside nodes, node input queues.

use std::collections::{BTreeMap, VecDeque};

use crate::edge::conditioner::{Conditioner, Outcome};
use crate::edge::csa::Csa;
use crate::edge::dscp::ColourTable;
use crate::edge::dscp::MAX_LEVELS;
use crate::metrics::flow::FlowStats;
use crate::metrics::series::{QueueSeries, QueueState};
use crate::metrics::{conservation, fairness};
use crate::net::framing::TxClock;
use crate::net::loss::Loss;
use crate::net::packet::{proto, Packet, TransportHeader};
use crate::net::packet::{PacketId, Pool};
use crate::net::pcap;
use crate::net::routing::{Tables, NO_ROUTE};
use crate::queue::{AnyQueue, DropReason, QueueStats, N_DROP_REASONS};
use crate::report::{
    ColourRow, ConditionerRow, CsaRow, DpCounts, EngineCounts, FlowRow, GroupRow, QueueRow, Report,
    SimaLevelRow, SimaQueueRow,
};
use crate::scenario::spec::CsaScope;
use crate::scenario::spec::{AppSpec, SpecError};
use crate::scenario::Spec;
use crate::sim::event::{Event, EventQueue};
use crate::sim::rng::{self, Rng};
use crate::sim::time::{SimDuration, SimTime};
use crate::transport::{cbr::Cbr, sink::Sink, tcp, tfrc, AnyAgent, Ctx};

/// `receive`'s `via` for packets an agent sent from the node itself.
const LOCAL: u32 = u32::MAX;
/// `Packet::dst_agent` of CSA control packets: handled by the world, not an agent.
const CONTROL: u32 = u32::MAX;

/// One direction of a link.
#[derive(Debug)]
pub struct Port {
    pub name: String,
    pub from: u32,
    pub to: u32,
    pub rate_bps: u64,
    pub delay: SimDuration,
    clock: TxClock,
    pub queue: AnyQueue,
    pub stats: QueueStats,
    /// The transmitter is busy until this instant.
    busy_until: SimTime,
    /// A `TxDone` event is scheduled at `busy_until`.
    tx_pending: bool,
    /// Packets being transmitted or propagating, with their arrival times (non-decreasing).
    line: VecDeque<(SimTime, PacketId)>,
    /// The queue discipline's own random stream.
    rng: Rng,
    /// Nanoseconds spent transmitting.
    busy_ns: u64,
    /// The capture writer (`World::captures`) of this port's departures, or `pcap::NONE`.
    capture: u32,
    /// The queue's time series, if a `[[monitor]]` asked for one (`metrics::series`).
    series: Option<Box<QueueSeries>>,
    /// Random loss at the end of the wire, with its own stream (`link/<from>-><to>`).
    loss: Option<Loss>,
    /// Packets `loss` dropped.
    pub link_losses: u64,
}

impl Port {
    /// Hands the queue's state since its last change to its time series, if it has one; called
    /// just before the queue changes (and at the end of the run).
    #[inline]
    fn sample(&mut self, now: SimTime) {
        if let Some(s) = self.series.as_deref_mut() {
            let (avg, avg_in) = self.queue.averages();
            let len_packets = u32::try_from(self.queue.len_packets()).unwrap_or(u32::MAX);
            s.advance(
                now,
                QueueState {
                    len_packets,
                    len_bytes: self.queue.len_bytes(),
                    avg,
                    avg_in,
                },
            );
        }
    }
}

/// A Congestion Signaling Algorithm at work: the RIO port it watches and whose α it sets.
#[derive(Debug)]
struct CsaRun {
    name: String,
    node: u32,
    port: u32,
    /// Conditioners it drives, and for each the flow index of its control-packet pseudo-flow
    /// (`u32::MAX` for a conditioner at the CSA's own node: α applies at once).
    targets: Vec<(u32, u32)>,
    /// The controllers: one for every target (`CsaScope::Shared`), or one per target, the
    /// `t`-th setting the α of `targets[t]` only (`CsaScope::PerBucket`).
    ctls: Vec<CtlRun>,
    /// Per conditioner index: which controller counts the OUT packets that conditioner
    /// marked (`u32::MAX`: none; a shared controller counts every OUT arrival).
    ctl_of_cond: Vec<u32>,
    scope: CsaScope,
    /// Whether α's trace is reported (`[[csa]] trace = true`).
    trace: bool,
    signal_bytes: u32,
    signal_dscp: u8,
}

/// One controller of a CSA and its T2 timer event.
#[derive(Debug)]
struct CtlRun {
    csa: Csa,
    /// The instant a timer event is scheduled for, if any.
    timer_at: Option<SimTime>,
}

/// Progress of a run, handed to the progress callback.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    pub sim_time_s: f64,
    /// Fraction done, when the run has a duration or a packet budget.
    pub fraction: Option<f64>,
    pub events: u64,
    pub packet_hops: u64,
}

/// Why a run did not produce a report.
#[derive(Debug)]
pub enum RunError {
    Spec(SpecError),
    /// The packet conservation identity failed; the report shows the numbers.
    Conservation(Box<Report>),
    /// The progress callback asked to stop.
    Interrupted,
    /// A capture file could not be written (the place is the `[[capture]]` that asked for it).
    Capture(crate::ScenarioError),
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Spec(e) => write!(f, "invalid scenario: {e}"),
            RunError::Conservation(r) => {
                write!(f, "packet conservation failed: {}", r.conservation.identity)
            }
            RunError::Interrupted => write!(f, "run interrupted"),
            RunError::Capture(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for RunError {}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum StopReason {
    Duration,
    MaxPackets,
    MaxDataPackets,
    TransfersComplete,
    NoEvents,
}

impl StopReason {
    fn name(self) -> &'static str {
        match self {
            StopReason::Duration => "duration",
            StopReason::MaxPackets => "max_packets",
            StopReason::MaxDataPackets => "max_data_packets",
            StopReason::TransfersComplete => "transfers_complete",
            StopReason::NoEvents => "no_events",
        }
    }
}

/// A built network, ready to run.
pub struct World {
    spec: Spec,
    now: SimTime,
    events: EventQueue,
    pool: Pool,
    pub ports: Vec<Port>,
    tables: Tables,
    agents: Vec<AnyAgent>,
    agent_node: Vec<u32>,
    flows: Vec<FlowStats>,
    /// Whether each flow is a finite transfer, and whether its completion was counted.
    finite: Vec<bool>,
    completion_counted: Vec<bool>,
    finite_total: usize,
    finite_done: usize,
    outbox: Vec<PacketId>,
    /// Drops at nodes (not in a queue), by reason.
    node_drops: Vec<[u64; N_DROP_REASONS]>,
    /// Edge conditioners, and which of them see packets arriving over each port (`ingress`,
    /// by port index) or sent by each node's agents (`local`, by node index), in order.
    conditioners: Vec<Conditioner>,
    ingress: Vec<Vec<u32>>,
    local: Vec<Vec<u32>>,
    /// Drops at each conditioner, by reason.
    cond_drops: Vec<[u64; N_DROP_REASONS]>,
    /// The domain's code point → drop precedence table, for per-colour counters.
    colours: ColourTable,
    csas: Vec<CsaRun>,
    /// Per port: the CSA watching it, or `u32::MAX`.
    port_csa: Vec<u32>,
    /// Per conditioner: the α last announced by each CSA that drives it; the bucket runs at the
    /// smallest (the most congested path governs).
    cond_alpha: Vec<Vec<(u32, f64)>>,
    /// Per flow: the conditioner that last metered one of its packets (`u32::MAX`: none), so
    /// that a per-bucket CSA knows whose OUT packet reached its buffer.
    flow_cond: Vec<u32>,
    /// Control-packet pseudo-flows (CSA → remote conditioner): name, from node, to node. Their
    /// counters follow the scenario's flows in `flows`.
    signal_flows: Vec<(String, u32, u32)>,
    warmup: SimTime,
    /// TCP goodput (in-order bytes) of each flow's receiver when the measured interval began.
    goodput_at_warmup: Vec<u64>,
    generated: u64,
    /// Packets the flows' sources generated (forward direction: data, and a TCP SYN): the
    /// `max_data_packets` budget. ACKs and CSA control packets are not counted.
    data_generated: u64,
    delivered: u64,
    dropped: u64,
    events_done: u64,
    hops: u64,
    stop_reason: Option<StopReason>,
    /// Open pcap files (`net::pcap`), one per captured port, in `Spec::captures` order.
    captures: Vec<pcap::Writer>,
}

impl World {
    /// Builds the world a spec describes. Agents are started (their first timers armed) here.
    pub fn build(spec: &Spec) -> Result<World, SpecError> {
        spec.check()?;
        let seed = spec.seed;
        let node_name = |i: usize| spec.nodes[i].name.as_str();
        let mut ports = Vec::with_capacity(2 * spec.links.len());
        for l in &spec.links {
            for (from, to, q, loss) in [
                (l.a, l.b, &l.queue_ab, l.loss_ab),
                (l.b, l.a, &l.queue_ba, l.loss_ba),
            ] {
                let name = format!("{}->{}", node_name(from), node_name(to));
                ports.push(Port {
                    loss: loss.map(|m| Loss::new(m, rng::stream(seed, &format!("link/{name}")))),
                    link_losses: 0,
                    rng: rng::stream(seed, &format!("queue/{name}")),
                    name,
                    from: from as u32,
                    to: to as u32,
                    rate_bps: l.rate_bps,
                    delay: l.delay,
                    clock: TxClock::new(l.framing, l.rate_bps),
                    queue: AnyQueue::from_spec(q, l.rate_bps),
                    stats: QueueStats::default(),
                    busy_until: SimTime::ZERO,
                    tx_pending: false,
                    line: VecDeque::new(),
                    busy_ns: 0,
                    capture: pcap::NONE,
                    series: None,
                });
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
        for m in &spec.monitors {
            ports[m.port].series = Some(Box::new(QueueSeries::new(m.interval.0)));
        }
        let links: Vec<(usize, usize)> = spec.links.iter().map(|l| (l.a, l.b)).collect();
        let routes: Vec<&[usize]> = spec.routes.iter().map(|r| r.path.as_slice()).collect();
        let tables =
            Tables::compute(spec.nodes.len(), &links, &routes).map_err(SpecError::Route)?;

        let mut agents = Vec::with_capacity(2 * spec.flows.len());
        let mut agent_node = Vec::with_capacity(2 * spec.flows.len());
        let mut finite = Vec::with_capacity(spec.flows.len());
        for (i, f) in spec.flows.iter().enumerate() {
            let flow = i as u32;
            let (source_id, sink_id) = (2 * flow, 2 * flow + 1);
            let stream = rng::stream(seed, &format!("flow/{}", f.name));
            let (src, dst) = (f.src as u32, f.dst as u32);
            match &f.app {
                AppSpec::Cbr(c) => {
                    finite.push(c.max_packets.is_some());
                    agents.push(AnyAgent::Cbr(Cbr::new(
                        flow,
                        src,
                        dst,
                        sink_id,
                        c.clone(),
                        stream,
                    )));
                    agents.push(AnyAgent::Sink(Sink::new(flow)));
                }
                AppSpec::Tcp(p) => {
                    finite.push(p.transfer_bytes.is_some());
                    let receiver_stream = rng::stream(seed, &format!("flow/{}/receiver", f.name));
                    agents.push(AnyAgent::TcpSender(Box::new(tcp::sender::Sender::new(
                        flow, src, dst, sink_id, p, stream,
                    ))));
                    agents.push(AnyAgent::TcpReceiver(tcp::receiver::Receiver::new(
                        flow,
                        src,
                        dst,
                        source_id,
                        p,
                        receiver_stream,
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
        let mut ingress: Vec<Vec<u32>> = vec![Vec::new(); ports.len()];
        let mut local: Vec<Vec<u32>> = vec![Vec::new(); spec.nodes.len()];
        let mut conditioners = Vec::with_capacity(spec.conditioners.len());
        for (c, cs) in spec.conditioners.iter().enumerate() {
            let stream = rng::stream(seed, &format!("conditioner/{}", cs.name));
            // per-flow arrays also cover the CSA control-packet pseudo-flows
            let n_all = spec.flows.len() + spec.csas.iter().map(|c| c.targets.len()).sum::<usize>();
            conditioners.push(Conditioner::new(
                cs,
                n_all,
                &spec.colours,
                stream,
                SimTime::ZERO + spec.warmup,
            ));
            for (i, p) in ports.iter().enumerate() {
                if p.to as usize == cs.node && cs.from.is_none_or(|f| f == p.from as usize) {
                    ingress[i].push(c as u32);
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
            let port = ports
                .iter()
                .position(|p| p.from as usize == cs.node && p.to as usize == cs.towards)
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

        let mut world = World {
            now: SimTime::ZERO,
            events: EventQueue::new(),
            pool: Pool::new(),
            ports,
            tables,
            agents,
            agent_node,
            flows: vec![FlowStats::default(); n_flows],
            completion_counted: vec![false; n_flows],
            finite,
            finite_total,
            finite_done: 0,
            outbox: Vec::with_capacity(16),
            node_drops: vec![[0; N_DROP_REASONS]; spec.nodes.len()],
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
            hops: 0,
            stop_reason: None,
            captures,
            spec: spec.clone(),
        };
        for a in 0..world.agents.len() as u32 {
            world.call_agent(a, |agent, ctx| agent.start(ctx));
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
        self.ports[port].queue = q;
    }

    /// Runs the event loop until a stop condition of the spec is met.
    pub fn run(
        &mut self,
        mut progress: Option<&mut dyn FnMut(&Progress) -> bool>,
    ) -> Result<(), RunError> {
        let end = self
            .spec
            .stop
            .duration
            .map_or(SimTime::MAX, |d| SimTime::ZERO + d);
        let max_packets = self.spec.stop.max_packets.unwrap_or(u64::MAX);
        let max_data = self.spec.stop.max_data_packets.unwrap_or(u64::MAX);
        let until_transfers = self.spec.stop.transfers_complete && self.finite_total > 0;
        let reason = loop {
            if self.generated >= max_packets {
                break StopReason::MaxPackets;
            }
            if self.data_generated >= max_data {
                break StopReason::MaxDataPackets;
            }
            if until_transfers && self.finite_done == self.finite_total {
                break StopReason::TransfersComplete;
            }
            let Some(t) = self.events.peek_time() else {
                if end != SimTime::MAX {
                    self.now = end;
                }
                break StopReason::NoEvents;
            };
            // the run covers [0, duration): an event at exactly `duration` does not happen
            if t >= end {
                self.now = end;
                break StopReason::Duration;
            }
            let (t, ev) = self.events.pop().expect("peeked");
            self.now = t;
            self.dispatch(ev);
            self.events_done += 1;
            if self.events_done & 0xFFFF == 0 {
                if let Some(cb) = progress.as_mut() {
                    let p = self.progress(end, max_packets, max_data);
                    if !cb(&p) {
                        return Err(RunError::Interrupted);
                    }
                }
            }
        };
        self.stop_reason = Some(reason);
        Ok(())
    }

    fn progress(&self, end: SimTime, max_packets: u64, max_data: u64) -> Progress {
        let by_time = (end != SimTime::MAX).then(|| self.now.0 as f64 / end.0.max(1) as f64);
        let by_packets =
            (max_packets != u64::MAX).then(|| self.generated as f64 / max_packets as f64);
        let by_data = (max_data != u64::MAX).then(|| self.data_generated as f64 / max_data as f64);
        let fraction = [by_time, by_packets, by_data]
            .into_iter()
            .flatten()
            .reduce(f64::max);
        Progress {
            sim_time_s: self.now.as_secs_f64(),
            fraction,
            events: self.events_done,
            packet_hops: self.hops,
        }
    }

    #[inline]
    fn dispatch(&mut self, ev: Event) {
        match ev {
            Event::TxDone { port } => self.tx_done(port as usize),
            Event::Arrive { port } => {
                let p = &mut self.ports[port as usize];
                let (at, id) = p.line.pop_front().expect("arrival with an empty line");
                debug_assert_eq!(at, self.now);
                if let Some(&(next, _)) = p.line.front() {
                    self.events.schedule(next, Event::Arrive { port });
                }
                if p.loss.as_mut().is_some_and(Loss::lose) {
                    p.link_losses += 1;
                    self.drop_packet(id);
                    return;
                }
                let node = p.to;
                self.receive(node, id, port);
            }
            Event::Wake { cond } => self.wake(cond as usize),
            Event::CsaTimer { csa, ctl } => self.csa_timer(csa as usize, ctl as usize),
            Event::Timer { agent, token } => {
                self.call_agent(agent, |a, ctx| a.on_timer(token, ctx))
            }
            Event::Warmup => {
                for (flow, g) in self.goodput_at_warmup.iter_mut().enumerate() {
                    if let AnyAgent::TcpReceiver(r) = &self.agents[2 * flow + 1] {
                        *g = r.stats().goodput_bytes;
                    }
                }
            }
        }
    }

    /// The transmitter of `port` is free and packets wait: the next one starts.
    #[inline]
    fn tx_done(&mut self, port: usize) {
        let p = &mut self.ports[port];
        p.tx_pending = false;
        if p.queue.len_packets() > 0 {
            self.start_tx(port);
            let p = &mut self.ports[port];
            if p.queue.len_packets() > 0 {
                p.tx_pending = true;
                self.events
                    .schedule(p.busy_until, Event::TxDone { port: port as u32 });
            }
        }
    }

    /// Moves the next packet of `port`'s queue onto the wire; the transmitter must be free.
    #[inline]
    fn start_tx(&mut self, port: usize) {
        let p = &mut self.ports[port];
        debug_assert!(p.busy_until <= self.now);
        p.sample(self.now);
        p.stats.before_change(self.now, p.queue.len_packets());
        let Some(id) = p.queue.dequeue(self.now, &mut self.pool) else {
            return;
        };
        let pkt = self.pool.get(id);
        let size = pkt.size;
        p.stats.levels[usize::from(self.colours.level(pkt.dscp))].departures += 1;
        p.stats.departures += 1;
        p.stats.departure_bytes += u64::from(size);
        let tx = p.clock.tx_ns(size);
        p.busy_ns += tx;
        p.busy_until = self.now + SimDuration(tx);
        p.queue.tx_ends(p.busy_until);
        let at = p.busy_until + p.delay;
        if p.line.is_empty() {
            self.events
                .schedule(at, Event::Arrive { port: port as u32 });
        }
        p.line.push_back((at, id));
        self.hops += 1;
        let capture = p.capture;
        if capture != pcap::NONE {
            self.captures[capture as usize].write(self.now, self.pool.get(id));
        }
    }

    /// A packet is at `node`, arrived over port `via` (or sent there by an agent: `LOCAL`):
    /// deliver it if this is its destination, else condition it and forward it.
    #[inline]
    fn receive(&mut self, node: u32, id: PacketId, via: u32) {
        let dst = self.pool.get(id).dst;
        if dst == node {
            let pkt = *self.pool.get(id);
            self.pool.free(id);
            self.delivered += 1;
            let flow = pkt.flow as usize;
            let f = &mut self.flows[flow];
            if pkt.rev {
                f.rev_delivered += 1;
            } else {
                f.delivered(self.now, pkt.size, pkt.created, self.warmup);
            }
            if pkt.dst_agent == CONTROL {
                // a remote CSA's signal reaches its border router (Giacomazzi et al. §IV.A)
                let alpha = f64::from_bits(pkt.th.ack);
                self.announce_alpha(pkt.th.seq as usize, u32::from(pkt.th.src_port), alpha);
                return;
            }
            self.call_agent(pkt.dst_agent, |a, ctx| a.on_packet(&pkt, ctx));
            return;
        }
        let conditioned = if via == LOCAL {
            !self.local[node as usize].is_empty()
        } else {
            !self.ingress[via as usize].is_empty()
        };
        if conditioned && !self.condition(node, id, via) {
            return;
        }
        self.forward(node, id);
    }

    /// Hands a packet to the conditioners of its input (first match wins). Returns whether it
    /// goes on now; if not, it was held or dropped.
    fn condition(&mut self, node: u32, id: PacketId, via: u32) -> bool {
        let n = if via == LOCAL {
            self.local[node as usize].len()
        } else {
            self.ingress[via as usize].len()
        };
        for k in 0..n {
            let c = if via == LOCAL {
                self.local[node as usize][k]
            } else {
                self.ingress[via as usize][k]
            } as usize;
            let flow = self.pool.get(id).flow as usize;
            match self.conditioners[c].offer(self.now, id, &mut self.pool) {
                Outcome::NotMatched => continue,
                Outcome::Forward => {
                    self.flow_cond[flow] = c as u32;
                    return true;
                }
                Outcome::Held => {
                    self.flow_cond[flow] = c as u32;
                    self.schedule_wake(c);
                    return false;
                }
                Outcome::Drop(reason) => {
                    self.cond_drops[c][reason.index()] += 1;
                    self.drop_packet(id);
                    return false;
                }
            }
        }
        true
    }

    /// Arms conditioner `c`'s wake-up for when its head-of-line packet may leave.
    fn schedule_wake(&mut self, c: usize) {
        let cond = &mut self.conditioners[c];
        if let Some(t) = cond.next_release(self.now, &self.pool) {
            if cond.wake_at != Some(t) {
                cond.wake_at = Some(t);
                self.events.schedule(t, Event::Wake { cond: c as u32 });
            }
        }
    }

    /// Conditioner `c` releases what conforms now, then re-arms.
    fn wake(&mut self, c: usize) {
        if self.conditioners[c].wake_at != Some(self.now) {
            return; // superseded by a later wake-up
        }
        self.conditioners[c].wake_at = None;
        let node = self.conditioners[c].node;
        while let Some((id, outcome)) = self.conditioners[c].release(self.now, &mut self.pool) {
            match outcome {
                Outcome::Forward => self.forward(node, id),
                Outcome::Drop(reason) => {
                    self.cond_drops[c][reason.index()] += 1;
                    self.drop_packet(id);
                }
                Outcome::NotMatched | Outcome::Held => {
                    unreachable!("a released packet is forwarded or dropped")
                }
            }
        }
        self.schedule_wake(c);
    }

    /// Routes a packet out of `node`.
    #[inline]
    fn forward(&mut self, node: u32, id: PacketId) {
        let dst = self.pool.get(id).dst;
        let port = self.tables.next_port(node as usize, dst as usize);
        if port == NO_ROUTE {
            self.node_drops[node as usize][DropReason::NoRoute.index()] += 1;
            self.drop_packet(id);
            return;
        }
        self.enqueue(port as usize, id);
    }

    /// Offers a packet to a port's queue; starts the transmitter if it is idle.
    #[inline]
    fn enqueue(&mut self, port: usize, id: PacketId) {
        let p = &mut self.ports[port];
        let pkt = self.pool.get(id);
        let size = u64::from(pkt.size);
        let level = usize::from(self.colours.level(pkt.dscp));
        let flow = pkt.flow as usize;
        p.sample(self.now);
        p.stats.before_change(self.now, p.queue.len_packets());
        p.stats.arrivals += 1;
        p.stats.arrival_bytes += size;
        p.stats.levels[level].arrivals += 1;
        match p.queue.enqueue(self.now, id, &mut self.pool, &mut p.rng) {
            Ok(()) => {
                let len = p.queue.len_packets() as u64;
                if len > p.stats.max_len_packets {
                    p.stats.max_len_packets = len;
                }
                // invariant: packets wait only behind a busy transmitter with a TxDone pending
                if !p.tx_pending {
                    if p.busy_until <= self.now {
                        self.start_tx(port);
                    } else {
                        p.tx_pending = true;
                        self.events
                            .schedule(p.busy_until, Event::TxDone { port: port as u32 });
                    }
                }
            }
            Err(reason) => {
                let r = reason.index();
                p.stats.drops[r] += 1;
                p.stats.drop_bytes[r] += size;
                p.stats.levels[level].drops[r] += 1;
                self.drop_packet(id);
            }
        }
        // Giacomazzi et al.: the CSA counts OUT arrivals at its RIO buffer, accepted or not
        let k = self.port_csa[port];
        if k != u32::MAX && level != 0 {
            self.csa_out_arrival(k as usize, flow);
        }
    }

    /// An OUT packet of `flow` reached the buffer CSA `k` watches: its controller counts it
    /// (a shared controller every OUT packet; a per-bucket one those its bucket marked).
    fn csa_out_arrival(&mut self, k: usize, flow: usize) {
        let run = &self.csas[k];
        let ctl = match run.scope {
            CsaScope::Shared => 0,
            CsaScope::PerBucket => match self.flow_cond[flow] {
                u32::MAX => return,
                c => match run.ctl_of_cond[c as usize] {
                    u32::MAX => return,
                    t => t as usize,
                },
            },
        };
        let (congested, period) = match &self.ports[run.port as usize].queue {
            AnyQueue::Rio(q) => (q.out_congested(), q.congestion_periods()),
            _ => (false, 0),
        };
        let changed = self.csas[k].ctls[ctl]
            .csa
            .on_out_arrival(self.now, congested, period);
        self.after_csa(k, ctl, changed);
    }

    /// A CSA controller's timer (T2) fires.
    fn csa_timer(&mut self, k: usize, ctl: usize) {
        if self.csas[k].ctls[ctl].timer_at != Some(self.now) {
            return; // superseded
        }
        self.csas[k].ctls[ctl].timer_at = None;
        let port = self.csas[k].port as usize;
        // "when T2 expires …, if the RIO buffer is not congested": the average as an arrival
        // now would find it, idle decay included
        let congested = match &self.ports[port].queue {
            AnyQueue::Rio(q) => q.out_congested_at(self.now),
            _ => false,
        };
        let changed = self.csas[k].ctls[ctl].csa.on_t2_expiry(self.now, congested);
        self.after_csa(k, ctl, changed);
    }

    /// After a controller call: spread a new α to the buckets it sets, and keep one timer event
    /// at its deadline.
    fn after_csa(&mut self, k: usize, ctl: usize, changed: Option<f64>) {
        if let Some(alpha) = changed {
            let targets = match self.csas[k].scope {
                CsaScope::Shared => 0..self.csas[k].targets.len(),
                CsaScope::PerBucket => ctl..ctl + 1,
            };
            for t in targets {
                let (c, flow) = self.csas[k].targets[t];
                if flow == u32::MAX {
                    self.announce_alpha(c as usize, k as u32, alpha);
                } else {
                    self.send_signal(k, c, flow, alpha);
                }
            }
        }
        let run = &mut self.csas[k].ctls[ctl];
        if let Some(t) = run.csa.next_deadline() {
            if run.timer_at != Some(t) {
                run.timer_at = Some(t);
                self.events.schedule(
                    t,
                    Event::CsaTimer {
                        csa: k as u32,
                        ctl: ctl as u32,
                    },
                );
            }
        }
    }

    /// Sends a control packet (ICMP-like, RFC 792) carrying α from CSA `k` to conditioner `c`.
    fn send_signal(&mut self, k: usize, c: u32, flow: u32, alpha: f64) {
        let run = &self.csas[k];
        let (node, dst) = (run.node, self.conditioners[c as usize].node);
        let id = self.pool.alloc(Packet {
            src: node,
            dst,
            protocol: proto::ICMP,
            dscp: run.signal_dscp,
            size: run.signal_bytes,
            flow,
            dst_agent: CONTROL,
            created: self.now,
            th: TransportHeader {
                src_port: k as u16,
                seq: u64::from(c),
                ack: alpha.to_bits(),
                ..Default::default()
            },
            ..Default::default()
        });
        self.generated += 1;
        let f = &mut self.flows[flow as usize];
        f.packets_sent += 1;
        f.bytes_sent += u64::from(run.signal_bytes);
        self.forward(node, id);
    }

    /// Conditioner `c` learns α from CSA `k`; its buckets run at the smallest α announced.
    fn announce_alpha(&mut self, c: usize, k: u32, alpha: f64) {
        let sources = &mut self.cond_alpha[c];
        match sources.iter_mut().find(|(s, _)| *s == k) {
            Some(entry) => entry.1 = alpha,
            None => sources.push((k, alpha)),
        }
        let effective = sources
            .iter()
            .map(|&(_, a)| a)
            .fold(f64::INFINITY, f64::min);
        if self.conditioners[c].set_alpha(self.now, effective) {
            self.schedule_wake(c);
        }
    }

    /// Frees a dropped packet and charges it to its flow (the place was counted by the caller).
    fn drop_packet(&mut self, id: PacketId) {
        let pkt = self.pool.get(id);
        let flow = pkt.flow as usize;
        let rev = pkt.rev;
        self.pool.free(id);
        self.dropped += 1;
        if rev {
            self.flows[flow].rev_dropped += 1;
        } else {
            self.flows[flow].packets_dropped += 1;
            self.note_completion(flow);
        }
    }

    #[inline]
    fn note_completion(&mut self, flow: usize) {
        if self.finite[flow] && !self.completion_counted[flow] {
            let f = &mut self.flows[flow];
            f.check_complete(self.now);
            if f.completed_at.is_some() {
                self.completion_counted[flow] = true;
                self.finite_done += 1;
            }
        }
    }

    /// Runs one agent hook, then sends what it sent from its node.
    #[inline]
    fn call_agent(&mut self, agent: u32, hook: impl FnOnce(&mut AnyAgent, &mut Ctx)) {
        let a = agent as usize;
        let flow = self.agents[a].flow() as usize;
        let sent_before = self.flows[flow].packets_sent;
        let mut outbox = std::mem::take(&mut self.outbox);
        {
            let mut ctx = Ctx {
                now: self.now,
                me: agent,
                pool: &mut self.pool,
                events: &mut self.events,
                outbox: &mut outbox,
                flow: &mut self.flows[flow],
                generated: &mut self.generated,
                dscp: self.spec.flows[flow].dscp,
            };
            hook(&mut self.agents[a], &mut ctx);
        }
        // forward packets are the source's: data (and a SYN); the sink's ACKs are reverse
        self.data_generated += self.flows[flow].packets_sent - sent_before;
        let node = self.agent_node[a];
        for &id in &outbox {
            self.receive(node, id, LOCAL);
        }
        outbox.clear();
        self.outbox = outbox;
        self.note_completion(flow);
    }

    /// Packets found in queues, transmitters and on the wire.
    fn walk_in_flight(&self) -> u64 {
        let ports: u64 = self
            .ports
            .iter()
            .map(|p| p.queue.len_packets() as u64 + p.line.len() as u64)
            .sum();
        ports
            + self
                .conditioners
                .iter()
                .map(|c| c.held() as u64)
                .sum::<u64>()
    }

    /// The results, and the conservation check over them.
    pub fn report(&mut self) -> Report {
        // names of counters whose identity fails; any makes the run fail
        let mut broken: Vec<String> = Vec::new();
        let now = self.now;
        let end_s = now.as_secs_f64();
        let span = now.saturating_since(self.warmup).as_secs_f64();
        let name = |i: u32| self.spec.nodes[i as usize].name.clone();
        let mut flows: Vec<FlowRow> = self
            .spec
            .flows
            .iter()
            .zip(&self.flows)
            .enumerate()
            .map(|(i, (fs, st))| FlowRow {
                name: fs.name.clone(),
                group: fs.group.clone(),
                kind: match fs.app {
                    AppSpec::Cbr(_) => "cbr".into(),
                    AppSpec::Tcp(ref p) => format!("tcp-{}", p.variant.name()),
                    AppSpec::Tfrc(ref p) if p.target_rate_bps.is_some() => "gtfrc".into(),
                    AppSpec::Tfrc(_) => "tfrc".into(),
                },
                src: name(fs.src as u32),
                dst: name(fs.dst as u32),
                finite: self.finite[i],
                dscp: fs.dscp,
                ..counter_fields(st, span, self.tfrc_fields(i, now, self.tcp_fields(i, span)))
            })
            .collect();
        self.af_fields(&mut flows, span);
        self.dp_fields(&mut flows);
        let groups = group_rows(&self.spec, &flows);
        // CSA control packets, one pseudo-flow per (CSA, remote conditioner)
        for (k, (name, from, to)) in self.signal_flows.iter().enumerate() {
            let st = &self.flows[self.spec.flows.len() + k];
            flows.push(FlowRow {
                name: name.clone(),
                group: "csa-signals".into(),
                kind: "csa-signal".into(),
                src: self.spec.nodes[*from as usize].name.clone(),
                dst: self.spec.nodes[*to as usize].name.clone(),
                ..counter_fields(st, span, FlowRow::default())
            });
        }
        let mut csas = Vec::with_capacity(self.csas.len());
        let mut alpha_traces = Vec::with_capacity(self.csas.len());
        for run in &self.csas {
            for (t, ctl) in run.ctls.iter().enumerate() {
                let csa = &ctl.csa;
                let st = &csa.stats;
                // one row per controller: the CSA's name, or "csa/bucket" per bucket
                let (name, targets) = match run.scope {
                    CsaScope::Shared => (run.name.clone(), &run.targets[..]),
                    CsaScope::PerBucket => (
                        format!(
                            "{}/{}",
                            run.name, self.spec.conditioners[run.targets[t].0 as usize].name
                        ),
                        &run.targets[t..t + 1],
                    ),
                };
                if let Err(e) = st.check() {
                    broken.push(format!("csa {name}: {e}"));
                }
                let (alpha_mean, floor_share) = csa.alpha_average(self.now);
                csas.push(CsaRow {
                    name: name.clone(),
                    queue: self.ports[run.port as usize].name.clone(),
                    scope: run.scope.name().into(),
                    rules: csa.params().rules.name().into(),
                    alpha_end: csa.alpha(),
                    alpha_min: csa.alpha_lowest(),
                    alpha_mean,
                    alpha_floor_share: floor_share,
                    out_arrivals: st.out_arrivals,
                    congested_out_arrivals: st.congested_out_arrivals,
                    periods: st.periods,
                    eighth_arrivals: st.eighth_arrivals,
                    decreases: st.decreases,
                    suppressed: st.suppressed,
                    at_floor: st.at_floor,
                    t2_expiries: st.t2_expiries,
                    increases: st.increases,
                    held: st.held,
                    signals_sent: targets
                        .iter()
                        .filter(|&&(_, f)| f != u32::MAX)
                        .map(|&(_, f)| self.flows[f as usize].packets_sent)
                        .sum(),
                });
                if run.trace {
                    let trace: Vec<(f64, f64)> = std::iter::once((0.0, csa.params().max_alpha))
                        .chain(csa.trace().iter().map(|&(t, a)| (t.as_secs_f64(), a)))
                        .collect();
                    alpha_traces.push((name, trace));
                }
            }
        }

        let mut dropped: BTreeMap<String, BTreeMap<String, u64>> = BTreeMap::new();
        let mut queues = Vec::with_capacity(self.ports.len());
        let mut colours = Vec::new();
        let (mut sima_queues, mut sima_levels) = (Vec::new(), Vec::new());
        for p in &mut self.ports {
            if let AnyQueue::Sima(q) = &p.queue {
                if let Err(e) = q.check(&self.pool) {
                    broken.push(format!("{}: {e}", p.name));
                }
                let (row, levels) = sima_rows(&p.name, q, now);
                sima_queues.push(row);
                sima_levels.extend(levels);
            }
            let len = p.queue.len_packets();
            p.sample(now);
            p.stats.before_change(now, len);
            let s = &p.stats;
            let drops: BTreeMap<String, u64> = DropReason::QUEUE
                .iter()
                .map(|r| (r.name().to_string(), s.drops[r.index()]))
                .collect();
            if s.arrivals != s.departures + s.total_drops() + len as u64 {
                broken.push(p.name.clone());
            }
            let nonzero: BTreeMap<String, u64> = drops
                .iter()
                .filter(|(_, &v)| v > 0)
                .map(|(k, &v)| (k.clone(), v))
                .collect();
            if !nonzero.is_empty() {
                dropped.insert(format!("queue {}", p.name), nonzero);
            }
            if p.link_losses > 0 {
                let reason = DropReason::LinkLoss.name().to_string();
                dropped.insert(
                    format!("link {}", p.name),
                    BTreeMap::from([(reason, p.link_losses)]),
                );
            }
            queues.push(QueueRow {
                name: p.name.clone(),
                node: self.spec.nodes[p.from as usize].name.clone(),
                to: self.spec.nodes[p.to as usize].name.clone(),
                discipline: p.queue.kind().to_string(),
                rate_bps: p.rate_bps,
                arrivals: s.arrivals,
                arrival_bytes: s.arrival_bytes,
                departures: s.departures,
                departure_bytes: s.departure_bytes,
                drops_total: s.total_drops(),
                drops_forced: sum_levels(|l| p.queue.forced_drops(l)),
                ecn_marks: sum_levels(|l| p.queue.ecn_marks(l)),
                drops,
                len_packets_end: len as u64,
                max_len_packets: s.max_len_packets,
                mean_len_packets: if now.0 > 0 {
                    s.len_integral as f64 / now.0 as f64
                } else {
                    0.0
                },
                utilization: if now.0 > 0 {
                    p.busy_ns.min(now.0) as f64 / now.0 as f64
                } else {
                    0.0
                },
                link_losses: p.link_losses,
            });
            // per drop-precedence level, with the packets still queued counted by level
            let mut queued = [0u64; MAX_LEVELS];
            for id in p.queue.queued() {
                queued[usize::from(self.colours.level(self.pool.get(id).dscp))] += 1;
            }
            for (level, l) in p.stats.levels.iter().enumerate() {
                if l.arrivals == 0 {
                    continue;
                }
                let (overflow, early) = (
                    l.drops[DropReason::Overflow.index()],
                    l.drops[DropReason::Early.index()],
                );
                let dropped: u64 = l.drops.iter().sum();
                if l.arrivals != l.departures + dropped + queued[level] {
                    broken.push(format!("{} level {level}", p.name));
                }
                colours.push(ColourRow {
                    queue: p.name.clone(),
                    level: level as u8,
                    colour: self.colours.level_name(level as u8),
                    arrivals: l.arrivals,
                    departures: l.departures,
                    drops_overflow: overflow,
                    drops_early: early,
                    drops_forced: p.queue.forced_drops(level),
                    ecn_marks: p.queue.ecn_marks(level),
                    queued_end: queued[level],
                    loss_ratio: dropped as f64 / l.arrivals as f64,
                });
            }
        }
        let mut conditioners = Vec::with_capacity(self.conditioners.len());
        for (c, cond) in self.conditioners.iter().enumerate() {
            if let Err(e) = cond.check() {
                broken.push(e);
            }
            let nonzero: BTreeMap<String, u64> = DropReason::ALL
                .iter()
                .filter(|r| self.cond_drops[c][r.index()] > 0)
                .map(|r| (r.name().to_string(), self.cond_drops[c][r.index()]))
                .collect();
            if !nonzero.is_empty() {
                dropped.insert(format!("conditioner {}", cond.name), nonzero);
            }
            let m = cond.marker_stats();
            let conformant_kbps = if span > 0.0 {
                cond.stats.green_bytes_measured as f64 * 8.0 / span / 1e3
            } else {
                0.0
            };
            conditioners.push(ConditionerRow {
                name: cond.name.clone(),
                node: self.spec.nodes[cond.node as usize].name.clone(),
                meter: cond.meter_kind().to_string(),
                committed_rate_bps: cond.committed_rate_bps(),
                matched: cond.stats.matched,
                green_packets: m.packets[0],
                yellow_packets: m.packets[1],
                red_packets: m.packets[2],
                green_bytes: m.bytes[0],
                yellow_bytes: m.bytes[1],
                red_bytes: m.bytes[2],
                forwarded: cond.stats.forwarded,
                dropped_policed: cond.stats.dropped_policed,
                dropped_buffer: cond.stats.dropped_buffer,
                held_end: cond.held() as u64,
                max_held: cond.stats.max_held,
                conformant_kbps,
                respect_of_service: conformant_kbps * 1e3 / cond.committed_rate_bps() as f64,
                dp: DpCounts::new(cond.dp_totals().map(|(packets, _)| packets)),
            });
        }
        for (i, d) in self.node_drops.iter().enumerate() {
            let nonzero: BTreeMap<String, u64> = DropReason::ALL
                .iter()
                .filter(|r| d[r.index()] > 0)
                .map(|r| (r.name().to_string(), d[r.index()]))
                .collect();
            if !nonzero.is_empty() {
                dropped.insert(format!("node {}", self.spec.nodes[i].name), nonzero);
            }
        }
        let mut conservation = conservation::check(conservation::Counts {
            sent: self.generated,
            delivered: self.delivered,
            dropped,
            in_flight: self.pool.live(),
            in_flight_walked: self.walk_in_flight(),
            broken_queues: broken,
        });
        // the engine's own drop counter must agree with the per-place counts
        if conservation.dropped_total != self.dropped {
            conservation.holds = false;
            conservation.identity.push_str(&format!(
                "; {} drops counted by place, {} by the engine",
                conservation.dropped_total, self.dropped
            ));
        }
        Report {
            scenario: self.spec.name.clone(),
            seed: self.spec.seed,
            end_time_s: end_s,
            stop_reason: self
                .stop_reason
                .map_or("not_run", StopReason::name)
                .to_string(),
            warmup_s: self.warmup.as_secs_f64(),
            flows,
            queues,
            colours,
            conditioners,
            groups,
            csas,
            sima_queues,
            sima_levels,
            conservation,
            traces: self.take_traces(),
            tfrc_traces: self.take_tfrc_traces(),
            alpha_traces,
            queue_series: self
                .ports
                .iter_mut()
                .filter_map(|p| p.series.take().map(|q| (p.name.clone(), *q)))
                .collect(),
            dp_traces: self
                .conditioners
                .iter_mut()
                .filter_map(|c| c.take_dp_trace().map(|t| (c.name.clone(), t)))
                .collect(),
            warnings: self.spec.warnings.clone(),
            engine: EngineCounts {
                events: self.events_done,
                packet_hops: self.hops,
                packets_generated: self.generated,
                data_packets_generated: self.data_generated,
                pool_high_water: self.pool.capacity_used() as u64,
            },
        }
    }

    pub fn now(&self) -> SimTime {
        self.now
    }

    /// Flushes and closes the capture files; the first write error, at the capture's place.
    pub fn finish_captures(&mut self) -> Result<(), RunError> {
        for (w, c) in self.captures.iter_mut().zip(&self.spec.captures) {
            w.finish().map_err(|e| {
                RunError::Capture(crate::ScenarioError {
                    message: format!(
                        "writing the capture file '{}' failed: {e}",
                        c.path.display()
                    ),
                    ..c.place.clone()
                })
            })?;
        }
        Ok(())
    }

    /// Packets written to each capture file so far, in `Spec::captures` order.
    pub fn captured(&self) -> Vec<u64> {
        self.captures.iter().map(|w| w.packets).collect()
    }

    /// The TCP senders' traces, taken out of the senders (a second report has none).
    fn take_traces(&mut self) -> Vec<(String, crate::transport::tcp::trace::Trace)> {
        let mut out = Vec::new();
        for (i, f) in self.spec.flows.iter().enumerate() {
            if let AnyAgent::TcpSender(s) = &mut self.agents[2 * i] {
                if let Some(t) = s.take_trace() {
                    out.push((f.name.clone(), t));
                }
            }
        }
        out
    }

    /// The TFRC senders' traces, taken out of the senders.
    fn take_tfrc_traces(&mut self) -> Vec<(String, tfrc::trace::Trace)> {
        let mut out = Vec::new();
        for (i, f) in self.spec.flows.iter().enumerate() {
            if let AnyAgent::TfrcSender(s) = &mut self.agents[2 * i] {
                if let Some(t) = s.take_trace() {
                    out.push((f.name.clone(), t));
                }
            }
        }
        out
    }

    /// Fills each flow's contract, conformant rate, Respect of Service and excess, from the
    /// conditioner that meters it alone (the first such, in file order).
    fn af_fields(&self, flows: &mut [FlowRow], span_s: f64) {
        for (i, row) in flows.iter_mut().enumerate() {
            let Some(c) = self.conditioners.iter().find(|c| c.meters_alone(i)) else {
                continue;
            };
            let contract = c.committed_rate_bps() as f64 / 1e3;
            let conformant = if span_s > 0.0 {
                c.green_by_flow[i] as f64 * 8.0 / span_s / 1e3
            } else {
                0.0
            };
            row.contract_kbps = Some(contract);
            row.conformant_kbps = Some(conformant);
            row.respect_of_service = Some(conformant / contract);
            row.excess_kbps = Some(row.throughput_kbps - contract);
        }
    }

    /// Fills each flow's packets by SIMA drop precedence, summed over the SIMA conditioners
    /// that saw it (`None` if none did).
    fn dp_fields(&self, flows: &mut [FlowRow]) {
        for (i, row) in flows.iter_mut().enumerate() {
            let mut total: Option<[u64; 8]> = None;
            for c in self
                .conditioners
                .iter()
                .filter(|c| c.is_sima() && c.seen[i])
            {
                let t = total.get_or_insert([0; 8]);
                for (dp, n) in c.dp_by_flow[i].iter().enumerate() {
                    t[dp] += n;
                }
            }
            row.dp = DpCounts::new(total);
        }
    }

    /// The TCP columns of flow `i`'s row (all `None` for other kinds); the rest of the row is
    /// filled by the caller.
    fn tcp_fields(&self, i: usize, span_s: f64) -> FlowRow {
        let mut row = FlowRow::default();
        if let (AnyAgent::TcpSender(s), AnyAgent::TcpReceiver(r)) =
            (&self.agents[2 * i], &self.agents[2 * i + 1])
        {
            let (s, r) = (s.stats(), r.stats());
            let measured = r.goodput_bytes - self.goodput_at_warmup[i];
            row.goodput_kbps = Some(if span_s > 0.0 {
                measured as f64 * 8.0 / span_s / 1e3
            } else {
                0.0
            });
            row.goodput_bytes = Some(r.goodput_bytes);
            row.retransmitted_packets = Some(s.retransmitted_segments);
            row.retransmitted_bytes = Some(s.retransmitted_bytes);
            row.timeouts = Some(s.timeouts);
            row.fast_recoveries = Some(s.fast_recoveries);
            row.ecn_reductions = Some(s.ecn_reductions);
            row.ce_received = Some(r.ce_received);
            row.rtt_mean_s = (s.rtt_samples > 0).then_some(s.rtt_mean_s);
            row.rtt_std_s = (s.rtt_samples > 0).then_some(s.rtt_std_s);
        }
        row
    }
}

impl World {
    /// The TFRC columns of flow `i`'s row at the end of the run (`now`), the rest from `rest`.
    fn tfrc_fields(&self, i: usize, now: SimTime, rest: FlowRow) -> FlowRow {
        let (AnyAgent::TfrcSender(s), AnyAgent::TfrcReceiver(r)) =
            (&self.agents[2 * i], &self.agents[2 * i + 1])
        else {
            return rest;
        };
        let (ss, rs) = (s.stats(), r.stats());
        FlowRow {
            x_kbps: s.x_mean_kbps(now),
            x_recv_kbps: s.x_recv_mean_kbps(),
            loss_event_rate: (rs.p_reports > 0).then(|| rs.p_sum / rs.p_reports as f64),
            loss_events: Some(rs.loss_events),
            feedback_packets: Some(rs.feedback_sent),
            nofeedback_expiries: Some(ss.nofeedback_expiries),
            ce_received: Some(rs.ce_received),
            rtt_mean_s: (ss.rtt_samples > 0).then_some(ss.rtt_mean_s),
            rtt_std_s: (ss.rtt_samples > 0).then_some(ss.rtt_std_s),
            ..rest
        }
    }
}

/// A flow row's counter columns from its `FlowStats` (throughput over a measured interval of
/// `span_s` seconds), the other columns taken from `rest`.
fn counter_fields(st: &FlowStats, span_s: f64, rest: FlowRow) -> FlowRow {
    FlowRow {
        packets_sent: st.packets_sent,
        bytes_sent: st.bytes_sent,
        packets_delivered: st.packets_delivered,
        bytes_delivered: st.bytes_delivered,
        packets_dropped: st.packets_dropped,
        packets_in_flight: st.in_flight(),
        throughput_kbps: if span_s > 0.0 {
            st.bytes_measured as f64 * 8.0 / span_s / 1e3
        } else {
            0.0
        },
        first_delivery_s: st.first_delivery.map(SimTime::as_secs_f64),
        last_delivery_s: st.last_delivery.map(SimTime::as_secs_f64),
        completed: st.completed_at.is_some(),
        completion_time_s: st.completed_at.map(SimTime::as_secs_f64),
        mean_delay_s: (st.packets_delivered > 0)
            .then(|| st.delay_sum_ns as f64 / st.packets_delivered as f64 * 1e-9),
        ..rest
    }
}

/// The report rows of a SIMA core queue at `now`: the queue's, and one per (class, drop
/// precedence) that saw an arrival.
fn sima_rows(
    name: &str,
    q: &crate::queue::sima::Sima,
    now: SimTime,
) -> (SimaQueueRow, Vec<SimaLevelRow>) {
    use crate::edge::sima::ServiceClass;
    let p = q.params();
    let time = q.dpa_time(now);
    let total = now.as_nanos().max(1) as f64;
    let row = SimaQueueRow {
        queue: name.to_string(),
        rt_limit_bytes: p.rt_limit_bytes,
        nrt_limit_bytes: p.nrt_limit_bytes,
        rt_weight: p.rt_weight,
        nrt_weight: p.nrt_weight,
        occupancy: p.occupancy.name().to_string(),
        dpa_offset: p.dpa_offset,
        dpa_slope: p.dpa_slope,
        avg_rt_end: q.avg_occupancy(ServiceClass::Rt),
        avg_nrt_end: q.avg_occupancy(ServiceClass::Nrt),
        dpa_end: q.dpa(),
        dpa_max: q.dpa_max(),
        dpa_mean: time
            .iter()
            .enumerate()
            .map(|(v, &ns)| v as f64 * ns as f64)
            .sum::<f64>()
            / total,
        dpa_time_share: time.iter().map(|&ns| ns as f64 / total).collect(),
    };
    let mut levels = Vec::new();
    for class in [ServiceClass::Nrt, ServiceClass::Rt] {
        for (dp, s) in q.stats.dp[class.index()].iter().enumerate() {
            if s.arrivals == 0 {
                continue;
            }
            let drops = s.drops_below_dpa + s.drops_overflow;
            levels.push(SimaLevelRow {
                queue: name.to_string(),
                class: class.name().to_string(),
                dp: dp as u8,
                arrivals: s.arrivals,
                departures: s.departures,
                drops_below_dpa: s.drops_below_dpa,
                drops_overflow: s.drops_overflow,
                queued_end: s.arrivals.saturating_sub(s.departures + drops),
                loss_ratio: drops as f64 / s.arrivals as f64,
            });
        }
    }
    (row, levels)
}

/// A per-level counter summed over every level; `None` if the discipline has no such counter.
fn sum_levels(f: impl Fn(usize) -> Option<u64>) -> Option<u64> {
    (0..MAX_LEVELS)
        .map(f)
        .reduce(|a, b| Some(a? + b?))
        .flatten()
}

/// One row per flow group, in order of first appearance.
fn group_rows(spec: &Spec, flows: &[FlowRow]) -> Vec<GroupRow> {
    let mut order: Vec<&str> = Vec::new();
    for f in &spec.flows {
        if !order.contains(&f.group.as_str()) {
            order.push(&f.group);
        }
    }
    order
        .into_iter()
        .map(|g| {
            let members: Vec<&FlowRow> = flows.iter().filter(|f| f.group == g).collect();
            let tput: Vec<f64> = members.iter().map(|f| f.throughput_kbps).collect();
            let contracts: Option<Vec<f64>> = members.iter().map(|f| f.contract_kbps).collect();
            let goodput: Option<Vec<f64>> = members.iter().map(|f| f.goodput_kbps).collect();
            GroupRow {
                name: g.to_string(),
                flows: members.len() as u64,
                throughput_kbps_total: tput.iter().sum(),
                throughput_kbps_min: tput.iter().copied().fold(f64::INFINITY, f64::min),
                throughput_kbps_median: fairness::median(&tput).unwrap_or(0.0),
                throughput_kbps_max: tput.iter().copied().fold(f64::NEG_INFINITY, f64::max),
                jain: fairness::jain(&tput),
                goodput_kbps_total: goodput.map(|g| g.iter().sum()),
                fieb: contracts.and_then(|r| fairness::fieb(&tput, &r)),
            }
        })
        .collect()
}

/// Builds and runs a scenario; fails if the packet conservation identity does not hold.
pub fn run(
    spec: &Spec,
    progress: Option<&mut dyn FnMut(&Progress) -> bool>,
) -> Result<Report, RunError> {
    let mut world = World::build(spec).map_err(RunError::Spec)?;
    world.run(progress)?;
    world.finish_captures()?;
    let report = world.report();
    if !report.conservation.holds {
        return Err(RunError::Conservation(Box::new(report)));
    }
    Ok(report)
}

#[cfg(test)]
mod tests;
