//! The forwarding plane of a live run: the scenario's routers and links as afsim-core's own
//! models, moving real Ethernet frames, driven by whatever clock the caller reads.
//!
//! Read this first: `Fabric` is `world::World` without agents. Hosts are outside (Linux network
//! namespaces with real TCP/UDP); every port of every link, including a host's own access
//! line, is inside: its queue discipline (`queue::AnyQueue::from_spec`), its transmitter
//! (`net::framing::TxClock`, the same integer-nanosecond pacing with the remainder carried),
//! its propagation line, its random loss (`net::loss`), and the edge conditioners on node input
//! lines (`edge::conditioner::Conditioner`), built from the scenario's `Spec` exactly as
//! `World::build` builds them (same random stream names, so RED draws from the same stream).
//! Time moves only through `advance(now)`, which runs every event due up to `now` *at its own
//! instant* (a transmitter that frees at t starts the next packet at t, however late the
//! caller woke up): pacing stays exact on average, and lateness only delays the emission of
//! frames (measured: `lateness`). Frames from hosts enter with `ingress(now, …)`.
//!
//! The clock is the caller's: the live driver (`driver`) passes the wall clock's nanoseconds
//! since the run's start; the tests pass made-up instants.
//!
//! Optional records (off unless asked for): the frames leaving captured ports (`capture`:
//! the scenario's `[[capture]]`s and `afsim live --capture`, as `afsim run`'s), and a queue
//! trace (`enable_queue_trace`: every arrival at a queue that keeps an average — RED, WRED,
//! RIO — with the instantaneous length, the average after the arrival and its fate).
//!
//! Not here: CSAs (their control packets would need a wire format: a scenario with `[[csa]]`
//! is refused), agents.

use std::collections::{HashMap, VecDeque};

use afsim_core::edge::conditioner::{Conditioner, Outcome};
use afsim_core::edge::dscp::ColourTable;
use afsim_core::metrics::flow::FlowStats;
use afsim_core::net::framing::TxClock;
use afsim_core::net::loss::Loss;
use afsim_core::net::packet::{Ecn, Packet, PacketId, Pool, TransportHeader};
use afsim_core::net::routing::{Tables, NO_ROUTE};
use afsim_core::queue::{AnyQueue, DropReason, QueueStats, N_DROP_REASONS};
use afsim_core::scenario::Spec;
use afsim_core::sim::event::{Event, EventQueue};
use afsim_core::sim::rng::{self, Rng};
use afsim_core::sim::time::{SimDuration, SimTime};

use crate::capture::Pcap;
use crate::frame;

const LOCAL: u32 = u32::MAX;
const NOT_A_HOST: u32 = u32::MAX;

/// A host of the scenario: a network namespace at the end of one access link.
#[derive(Clone, Debug, serde::Deserialize, serde::Serialize)]
pub struct Host {
    /// Node index in the spec.
    pub node: u32,
    /// Its IPv4 address, as the frames carry it.
    pub ip: [u8; 4],
    /// The MAC of its interface (frames to it carry this destination).
    pub mac: [u8; 6],
    /// The MAC of the router side of its link (frames to it carry this source).
    pub router_mac: [u8; 6],
}

/// How the frames of a scenario flow are recognised: forward packets go from `src_ip` to
/// `dst_ip` with destination port `port`, reverse ones (ACKs) back with source port `port`.
#[derive(Clone, Debug, serde::Deserialize, serde::Serialize)]
pub struct FlowMatch {
    pub flow: u32,
    pub protocol: u8,
    pub src_ip: [u8; 4],
    pub dst_ip: [u8; 4],
    pub port: u16,
}

/// One direction of a link (as `world::Port`).
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
    busy_until: SimTime,
    tx_pending: bool,
    line: VecDeque<(SimTime, PacketId)>,
    rng: Rng,
    pub busy_ns: u64,
    loss: Option<Loss>,
    pub link_losses: u64,
    /// Index in `Fabric::captures`, if the port is captured.
    capture: Option<usize>,
}

/// One arrival at a queue with an average (`Fabric::enable_queue_trace`).
#[derive(Clone, Copy, Debug)]
pub struct TraceRow {
    pub t_ns: u64,
    pub port: u32,
    /// Packets in the queue after the arrival (the arrival included if it was queued).
    pub len_packets: u32,
    /// RED's and WRED's average, RIO's average of in-profile packets (its unit: packets or
    /// bytes, as the queue measures).
    pub avg: f64,
    /// RIO's average of all packets (NaN for the others).
    pub avg_total: f64,
    /// 0 queued, else `DropReason::index() + 1`.
    pub fate: u8,
}

/// The averages of a queue that keeps one: (avg, RIO's total average or NaN).
fn averages(q: &AnyQueue) -> Option<(f64, f64)> {
    match q {
        AnyQueue::Red(r) => Some((r.avg(), f64::NAN)),
        AnyQueue::Wred(w) => Some((w.avg(), f64::NAN)),
        AnyQueue::Rio(r) => Some((r.avg_in(), r.avg_out())),
        _ => None,
    }
}

/// Frame-level counters of the forwarder (what never became a model packet, and what left).
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct FrameCounters {
    pub frames_in: u64,
    pub frames_out: u64,
    /// Not IPv4 (ARP, IPv6 …), or a malformed IPv4 header: not forwarded.
    pub ignored_not_ipv4: u64,
    /// IPv4 from or to an address that is no scenario host: not forwarded.
    pub ignored_unknown_address: u64,
    /// IPv4 packets of no scenario flow (forwarded, counted under `other`).
    pub other_packets: u64,
    /// Larger than 1500 bytes of IP (an offload left on): not forwarded.
    pub oversize: u64,
}

/// Histogram of how late (wall clock) frames were handed to a host after the instant the
/// model delivered them, in microseconds.
#[derive(Clone, Debug)]
pub struct Lateness {
    buckets: Vec<u64>,
    pub count: u64,
    pub max_ns: u64,
    pub sum_ns: u128,
}

impl Default for Lateness {
    fn default() -> Self {
        Lateness {
            buckets: vec![0; 20_001],
            count: 0,
            max_ns: 0,
            sum_ns: 0,
        }
    }
}

impl Lateness {
    pub fn record(&mut self, ns: u64) {
        let us = (ns / 1000).min(self.buckets.len() as u64 - 1) as usize;
        self.buckets[us] += 1;
        self.count += 1;
        self.max_ns = self.max_ns.max(ns);
        self.sum_ns += u128::from(ns);
    }

    /// The `q`-quantile in microseconds (upper edge of its 1 µs bucket; 20 ms at most).
    pub fn quantile_us(&self, q: f64) -> Option<f64> {
        if self.count == 0 {
            return None;
        }
        let rank = ((q * self.count as f64).ceil() as u64).max(1);
        let mut seen = 0;
        for (us, &n) in self.buckets.iter().enumerate() {
            seen += n;
            if seen >= rank {
                return Some(us as f64 + 1.0);
            }
        }
        Some(self.buckets.len() as f64)
    }
}

/// The routers and links of a scenario, as models, between hosts outside.
pub struct Fabric {
    spec: Spec,
    pub ports: Vec<Port>,
    tables: Tables,
    pool: Pool,
    /// The frame each live packet came as, by `PacketId`.
    frames: Vec<Vec<u8>>,
    events: EventQueue,
    conditioners: Vec<Conditioner>,
    ingress: Vec<Vec<u32>>,
    local: Vec<Vec<u32>>,
    cond_drops: Vec<[u64; N_DROP_REASONS]>,
    node_drops: Vec<[u64; N_DROP_REASONS]>,
    colours: ColourTable,
    hosts: Vec<Host>,
    /// Per node: its index in `hosts`, or `NOT_A_HOST`.
    host_of_node: Vec<u32>,
    node_of_ip: HashMap<[u8; 4], u32>,
    /// (protocol, src, dst, port) → flow; forward by destination port, reverse by source port.
    forward: HashMap<(u8, [u8; 4], [u8; 4], u16), u32>,
    reverse: HashMap<(u8, [u8; 4], [u8; 4], u16), u32>,
    /// Per flow (the scenario's, then one `other`).
    pub flows: Vec<FlowStats>,
    warmup: SimTime,
    now: SimTime,
    pub counters: FrameCounters,
    pub lateness: Lateness,
    delivered: u64,
    dropped: u64,
    sent: u64,
    /// Open pcap files (`capture`), and the wall clock (ns since 1970) of model time zero.
    pub captures: Vec<Pcap>,
    wall_epoch_ns: u64,
    /// Arrivals at queues with an average, when asked for.
    pub queue_trace: Option<Vec<TraceRow>>,
}

/// Why a scenario cannot run live.
#[derive(Debug)]
pub struct Unsupported(pub String);

impl std::fmt::Display for Unsupported {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl Fabric {
    /// Builds the models of `spec`'s links and conditioners, as `World::build` does.
    pub fn build(
        spec: &Spec,
        hosts: Vec<Host>,
        flow_matches: &[FlowMatch],
    ) -> Result<Fabric, Unsupported> {
        spec.check()
            .map_err(|e| Unsupported(format!("invalid scenario: {e}")))?;
        if !spec.csas.is_empty() {
            return Err(Unsupported(
                "[[csa]] is not supported live (its control packets have no wire format yet)"
                    .into(),
            ));
        }
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
                    capture: None,
                });
            }
        }
        let mut captures = Vec::with_capacity(spec.captures.len());
        for c in &spec.captures {
            let Some(port) = ports.get_mut(c.port) else {
                return Err(Unsupported(format!(
                    "capture of port {}: no such port",
                    c.port
                )));
            };
            let pcap = Pcap::create(c.port, &c.path).map_err(|e| {
                Unsupported(format!(
                    "capture of {}: cannot create {}: {e}",
                    port.name,
                    c.path.display()
                ))
            })?;
            port.capture = Some(captures.len());
            captures.push(pcap);
        }
        let links: Vec<(usize, usize)> = spec.links.iter().map(|l| (l.a, l.b)).collect();
        let routes: Vec<&[usize]> = spec.routes.iter().map(|r| r.path.as_slice()).collect();
        // real frames may be addressed to any node: a column for every one (live networks are
        // small)
        let tables = Tables::compute(spec.nodes.len(), &links, &routes, 0..spec.nodes.len())
            .map_err(|e| Unsupported(format!("routing: {e:?}")))?;

        let n_flows = spec.flows.len();
        let mut ingress: Vec<Vec<u32>> = vec![Vec::new(); ports.len()];
        let mut local: Vec<Vec<u32>> = vec![Vec::new(); spec.nodes.len()];
        let mut conditioners = Vec::with_capacity(spec.conditioners.len());
        let mut sets = afsim_core::edge::conditioner::FlowSets::default();
        for (c, cs) in spec.conditioners.iter().enumerate() {
            let stream = rng::stream(seed, &format!("conditioner/{}", cs.name));
            // one more flow slot: packets of no scenario flow
            conditioners.push(Conditioner::new_shared(
                cs,
                n_flows + 1,
                &spec.colours,
                stream,
                SimTime::ZERO + spec.warmup,
                &mut sets,
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

        let mut host_of_node = vec![NOT_A_HOST; spec.nodes.len()];
        let mut node_of_ip = HashMap::new();
        for (h, host) in hosts.iter().enumerate() {
            let n = host.node as usize;
            if n >= spec.nodes.len() {
                return Err(Unsupported(format!("host {h}: no node {n}")));
            }
            host_of_node[n] = h as u32;
            node_of_ip.insert(host.ip, host.node);
        }
        let mut forward = HashMap::new();
        let mut reverse = HashMap::new();
        for m in flow_matches {
            if m.flow as usize >= n_flows {
                return Err(Unsupported(format!(
                    "flow match for flow {} of {n_flows}",
                    m.flow
                )));
            }
            forward.insert((m.protocol, m.src_ip, m.dst_ip, m.port), m.flow);
            reverse.insert((m.protocol, m.dst_ip, m.src_ip, m.port), m.flow);
        }
        Ok(Fabric {
            ports,
            tables,
            pool: Pool::new(),
            frames: Vec::new(),
            events: EventQueue::new(),
            cond_drops: vec![[0; N_DROP_REASONS]; conditioners.len()],
            conditioners,
            ingress,
            local,
            node_drops: vec![[0; N_DROP_REASONS]; spec.nodes.len()],
            colours: spec.colours.clone(),
            hosts,
            host_of_node,
            node_of_ip,
            forward,
            reverse,
            flows: vec![FlowStats::default(); n_flows + 1],
            warmup: SimTime::ZERO + spec.warmup,
            now: SimTime::ZERO,
            counters: FrameCounters::default(),
            lateness: Lateness::default(),
            delivered: 0,
            dropped: 0,
            sent: 0,
            captures,
            wall_epoch_ns: 0,
            queue_trace: None,
            spec: spec.clone(),
        })
    }

    pub fn spec(&self) -> &Spec {
        &self.spec
    }

    pub fn hosts(&self) -> &[Host] {
        &self.hosts
    }

    /// The wall clock (`CLOCK_REALTIME`, ns since 1970) at model time zero: captures are
    /// stamped with it plus the model instant.
    pub fn set_wall_epoch(&mut self, ns: u64) {
        self.wall_epoch_ns = ns;
    }

    /// Records every arrival at a RED, WRED or RIO queue from now on (`queue_trace`).
    pub fn enable_queue_trace(&mut self) {
        self.queue_trace.get_or_insert_with(Vec::new);
    }

    /// Writes the queue trace as CSV (`time_s,queue,len_packets,avg,avg_total,fate`); the
    /// number of rows.
    pub fn write_queue_trace(&self, path: &std::path::Path) -> std::io::Result<usize> {
        use std::io::Write;
        let rows = self.queue_trace.as_deref().unwrap_or(&[]);
        let mut out = std::io::BufWriter::new(std::fs::File::create(path)?);
        writeln!(out, "time_s,queue,len_packets,avg,avg_total,fate")?;
        for r in rows {
            let fate = if r.fate == 0 {
                "queued"
            } else {
                DropReason::ALL[usize::from(r.fate - 1)].name()
            };
            let total = if r.avg_total.is_nan() {
                String::new()
            } else {
                format!("{:.6}", r.avg_total)
            };
            writeln!(
                out,
                "{:.9},{},{},{:.6},{},{}",
                r.t_ns as f64 * 1e-9,
                self.ports[r.port as usize].name,
                r.len_packets,
                r.avg,
                total,
                fate
            )?;
        }
        out.flush()?;
        Ok(rows.len())
    }

    /// Flushes every capture: (port name, path, frames written, error).
    pub fn finish_captures(&mut self) -> Vec<(String, String, u64, Option<String>)> {
        let mut out = Vec::new();
        for c in &mut self.captures {
            let err = c.finish().err();
            out.push((
                self.ports[c.port].name.clone(),
                c.path.display().to_string(),
                c.frames,
                err,
            ));
        }
        out
    }

    /// The instant of the next event, if any: the driver sleeps until then (or a frame).
    pub fn next_deadline(&self) -> Option<SimTime> {
        self.events.peek_time()
    }

    /// A frame arrived from host `host` (index in `hosts`) at `now`. Events due before `now`
    /// must have been run (`advance(now)` first).
    pub fn ingress(&mut self, now: SimTime, host: usize, bytes: &[u8]) {
        self.counters.frames_in += 1;
        debug_assert!(now >= self.now);
        self.now = now;
        let Some(ip) = frame::parse(bytes) else {
            self.counters.ignored_not_ipv4 += 1;
            return;
        };
        if ip.total_len > 1500 {
            self.counters.oversize += 1;
            return;
        }
        let (Some(&src), Some(&dst)) = (self.node_of_ip.get(&ip.src), self.node_of_ip.get(&ip.dst))
        else {
            self.counters.ignored_unknown_address += 1;
            return;
        };
        let other = (self.flows.len() - 1) as u32;
        let (flow, rev) = if let Some(&f) =
            self.forward
                .get(&(ip.protocol, ip.src, ip.dst, ip.dst_port))
        {
            (f, false)
        } else if let Some(&f) = self
            .reverse
            .get(&(ip.protocol, ip.src, ip.dst, ip.src_port))
        {
            (f, true)
        } else {
            self.counters.other_packets += 1;
            (other, false)
        };
        let id = self.pool.alloc(Packet {
            src,
            dst,
            protocol: ip.protocol,
            dscp: ip.tos >> 2,
            ecn: match ip.tos & 3 {
                0 => Ecn::NotEct,
                1 => Ecn::Ect1,
                2 => Ecn::Ect0,
                _ => Ecn::Ce,
            },
            size: u32::from(ip.total_len),
            flow,
            dst_agent: 0,
            rev,
            created: now,
            th: TransportHeader {
                src_port: ip.src_port,
                dst_port: ip.dst_port,
                ..Default::default()
            },
        });
        let slot = id.index();
        if self.frames.len() <= slot {
            self.frames
                .resize_with(slot + 1, || Vec::with_capacity(1514));
        }
        let f = &mut self.frames[slot];
        f.clear();
        f.extend_from_slice(&bytes[..frame::ETH_HLEN + usize::from(ip.total_len)]);
        self.sent += 1;
        let st = &mut self.flows[flow as usize];
        if rev {
            st.rev_sent += 1;
        } else {
            st.packets_sent += 1;
            st.bytes_sent += u64::from(ip.total_len);
        }
        let from = self.hosts[host].node;
        self.receive(from, id, LOCAL);
    }

    /// Runs every event due at or before `now`, each at its own instant; `emit(host, frame)`
    /// hands a frame to a host (lateness: `now` minus its instant).
    pub fn advance(&mut self, now: SimTime, emit: &mut dyn FnMut(usize, &[u8])) {
        while let Some(t) = self.events.peek_time() {
            if t > now {
                break;
            }
            let (t, ev) = self.events.pop().expect("peeked");
            self.now = t;
            match ev {
                Event::TxDone { port } => self.tx_done(port as usize),
                Event::Arrive { port } => {
                    let p = &mut self.ports[port as usize];
                    let (_, id) = p.line.pop_front().expect("arrival with an empty line");
                    if let Some(&(next, _)) = p.line.front() {
                        self.events.schedule(next, Event::Arrive { port });
                    }
                    if p.loss.as_mut().is_some_and(Loss::lose) {
                        p.link_losses += 1;
                        self.drop_packet(id);
                        continue;
                    }
                    let node = p.to;
                    let late = now.0 - t.0;
                    self.receive_at(node, id, port, late, emit);
                }
                Event::Wake { cond } => self.wake(cond as usize),
                _ => unreachable!("the fabric schedules no agent, warm-up or CSA events"),
            }
        }
        if now > self.now {
            self.now = now;
        }
    }

    fn receive_at(
        &mut self,
        node: u32,
        id: PacketId,
        via: u32,
        late_ns: u64,
        emit: &mut dyn FnMut(usize, &[u8]),
    ) {
        let dst = self.pool.get(id).dst;
        if dst == node {
            let h = self.host_of_node[node as usize];
            if h != NOT_A_HOST {
                self.lateness.record(late_ns);
                let pkt = *self.pool.get(id);
                let host = &self.hosts[h as usize];
                let f = &mut self.frames[id.index()];
                frame::rewrite(
                    f,
                    host.mac,
                    host.router_mac,
                    (pkt.dscp << 2) | pkt.ecn as u8,
                );
                emit(h as usize, f);
                self.counters.frames_out += 1;
                self.pool.free(id);
                self.delivered += 1;
                let st = &mut self.flows[pkt.flow as usize];
                if pkt.rev {
                    st.rev_delivered += 1;
                } else {
                    st.delivered(self.now, pkt.size, pkt.created, self.warmup);
                }
                return;
            }
        }
        self.receive(node, id, via);
    }

    /// A packet is at `node` (arrived over port `via`, or from the host itself: `LOCAL`):
    /// condition it and forward it. Routers never are destinations (they have no address).
    fn receive(&mut self, node: u32, id: PacketId, via: u32) {
        if via != LOCAL && self.host_of_node[node as usize] != NOT_A_HOST {
            // a host does not forward what is not its own
            self.node_drops[node as usize][DropReason::NoRoute.index()] += 1;
            self.drop_packet(id);
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
            match self.conditioners[c].offer(self.now, id, &mut self.pool) {
                Outcome::NotMatched => continue,
                Outcome::Forward => return true,
                Outcome::Held => {
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

    fn schedule_wake(&mut self, c: usize) {
        let cond = &mut self.conditioners[c];
        if let Some(t) = cond.next_release(self.now, &self.pool) {
            if cond.wake_at != Some(t) {
                cond.wake_at = Some(t);
                self.events.schedule(t, Event::Wake { cond: c as u32 });
            }
        }
    }

    fn wake(&mut self, c: usize) {
        if self.conditioners[c].wake_at != Some(self.now) {
            return;
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

    fn enqueue(&mut self, port: usize, id: PacketId) {
        let now = self.now;
        let p = &mut self.ports[port];
        let pkt = self.pool.get(id);
        let size = u64::from(pkt.size);
        let level = usize::from(self.colours.level(pkt.dscp));
        p.stats.before_change(now, p.queue.len_packets());
        p.stats.arrivals += 1;
        p.stats.arrival_bytes += size;
        p.stats.levels[level].arrivals += 1;
        let result = p.queue.enqueue(now, id, &mut self.pool, &mut p.rng);
        if let Some(trace) = self.queue_trace.as_mut() {
            if let Some((avg, avg_total)) = averages(&p.queue) {
                trace.push(TraceRow {
                    t_ns: now.0,
                    port: port as u32,
                    len_packets: p.queue.len_packets() as u32,
                    avg,
                    avg_total,
                    fate: match &result {
                        Ok(()) => 0,
                        Err(r) => r.index() as u8 + 1,
                    },
                });
            }
        }
        match result {
            Ok(()) => {
                let len = p.queue.len_packets() as u64;
                p.stats.max_len_packets = p.stats.max_len_packets.max(len);
                if !p.tx_pending {
                    if p.busy_until <= now {
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
    }

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

    fn start_tx(&mut self, port: usize) {
        let now = self.now;
        let p = &mut self.ports[port];
        p.stats.before_change(now, p.queue.len_packets());
        let Some(id) = p.queue.dequeue(now, &mut self.pool) else {
            return;
        };
        let pkt = self.pool.get(id);
        let size = pkt.size;
        if let Some(c) = p.capture {
            let tos = (pkt.dscp << 2) | pkt.ecn as u8;
            self.captures[c].write(self.wall_epoch_ns + now.0, &self.frames[id.index()], tos);
        }
        p.stats.levels[usize::from(self.colours.level(pkt.dscp))].departures += 1;
        p.stats.departures += 1;
        p.stats.departure_bytes += u64::from(size);
        let tx = p.clock.tx_ns(size);
        p.busy_ns += tx;
        p.busy_until = now + SimDuration(tx);
        p.queue.tx_ends(p.busy_until);
        let at = p.busy_until + p.delay;
        if p.line.is_empty() {
            self.events
                .schedule(at, Event::Arrive { port: port as u32 });
        }
        p.line.push_back((at, id));
    }

    fn drop_packet(&mut self, id: PacketId) {
        let pkt = self.pool.get(id);
        let (flow, rev) = (pkt.flow as usize, pkt.rev);
        self.pool.free(id);
        self.dropped += 1;
        if rev {
            self.flows[flow].rev_dropped += 1;
        } else {
            self.flows[flow].packets_dropped += 1;
        }
    }
}

mod report;
#[cfg(test)]
mod tests;
