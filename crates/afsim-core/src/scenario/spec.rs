//! The resolved scenario: what the loader produces and the world builder consumes.
//!
//! Read this first: a `Spec` has no parameters left to substitute, no groups left to expand and
//! no units left to parse. Every index refers into this spec's own vectors (`nodes[a]`). The
//! loader (`scenario::load`) guarantees what its doc comment lists (names unique, indices in
//! range, values positive, routes loop-free); `Spec::check` re-checks the structural part so a
//! spec built by hand in a test fails as clearly as a file would.

use crate::sim::time::SimDuration;

// The models' own configuration types, which a `Spec` is made of: each lives with the model
// that reads it (the models never see the scenario layer), and is named here as before.
pub use crate::edge::conditioner::{ClassifierSpec, ConditionerSpec, MeterSpec};
pub use crate::net::framing::Framing;
pub use crate::queue::scheduler::{ClassSpec, SchedulerError, SchedulerSpec};
pub use crate::queue::{Limit, QueueSpec};
pub use crate::transport::cbr::CbrSpec;

/// A whole scenario, ready to build.
#[derive(Clone, Debug, PartialEq)]
pub struct Spec {
    /// Scenario name (from `[scenario] name`, or the file stem).
    pub name: String,
    /// Seed of every random stream (overridden by `--seed`).
    pub seed: u64,
    pub stop: Stop,
    /// Statistics interval starts here (throughput is measured over [warmup, end]).
    pub warmup: SimDuration,
    pub nodes: Vec<NodeSpec>,
    pub links: Vec<LinkSpec>,
    /// Explicit routes, applied over the shortest-path tables in order.
    pub routes: Vec<RouteSpec>,
    pub flows: Vec<FlowSpec>,
    /// The DiffServ domain: how code points map to drop precedence levels.
    pub colours: crate::net::dscp::ColourTable,
    /// Edge conditioners (classifier, meter, per-colour actions), in file order.
    pub conditioners: Vec<ConditionerSpec>,
    /// Congestion Signaling Algorithms (Giacomazzi et al. §IV), in file order.
    pub csas: Vec<CsaSpec>,
    /// Ports whose departing packets are written to a pcap file (`[[capture]]`, `--capture`).
    pub captures: Vec<CaptureSpec>,
    /// Queues sampled on a time grid (`[[monitor]]`, `--monitor`), in file order.
    pub monitors: Vec<MonitorSpec>,
    /// Valid but surely unmeant settings the loader found; the report repeats them.
    pub warnings: Vec<super::Warning>,
}

/// A packet capture: every packet that leaves port `port` (`net::routing::port_of`) is written
/// to `path` (`net::pcap`). The file is created when the world is built.
#[derive(Clone, Debug, PartialEq)]
pub struct CaptureSpec {
    pub port: usize,
    pub path: std::path::PathBuf,
    /// Where the capture was asked for (message empty): a file that cannot be created is
    /// reported there.
    pub place: super::ScenarioError,
}

/// What a `[[monitor]]` records (`metrics::series`, `metrics::trace`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MonitorKind {
    /// The queue of port `port`: length, bytes and the discipline's averages at each grid
    /// instant; arrivals, departures, drops and ECN marks per drop-precedence level in each
    /// interval; its queueing delays as a histogram.
    Queue,
    /// Every flow's delivered packets and bytes and dropped packets in each interval.
    Flows,
    /// Every conditioner's green, yellow and red packets and bytes and its drops in each
    /// interval.
    Conditioners,
    /// Every arrival (enqueued, ECN-marked or dropped) and departure of the queue of port
    /// `port`, one record each; no grid (`interval` unused).
    Events,
}

impl MonitorKind {
    pub const ALL: [MonitorKind; 4] = [
        MonitorKind::Queue,
        MonitorKind::Flows,
        MonitorKind::Conditioners,
        MonitorKind::Events,
    ];

    pub fn name(self) -> &'static str {
        match self {
            MonitorKind::Queue => "queue",
            MonitorKind::Flows => "flows",
            MonitorKind::Conditioners => "conditioners",
            MonitorKind::Events => "events",
        }
    }

    /// Whether the monitor watches one queue (`port`).
    pub fn has_port(self) -> bool {
        matches!(self, MonitorKind::Queue | MonitorKind::Events)
    }
}

/// A time series (or event record) asked for by a `[[monitor]]`: of what (`kind`; `port` for
/// a queue's kinds, 0 otherwise), sampled every `interval` from time 0.
#[derive(Clone, Debug, PartialEq)]
pub struct MonitorSpec {
    pub kind: MonitorKind,
    pub port: usize,
    pub interval: SimDuration,
}

/// A Congestion Signaling Algorithm watching one RIO queue and adjusting α of enhanced token
/// buckets (Giacomazzi et al. §IV and §IV.A).
#[derive(Clone, Debug, PartialEq)]
pub struct CsaSpec {
    pub name: String,
    /// The watched queue: the output port of `node` towards `towards`; it must be RIO.
    pub node: usize,
    pub towards: usize,
    pub params: crate::edge::csa::Params,
    /// The conditioners (with an enhanced token bucket meter) whose α it sets. A conditioner at
    /// `node` gets α at once (local CSA, at a border router); one elsewhere gets it in a control
    /// packet sent through the network (remote CSA, from an internal router).
    pub targets: Vec<usize>,
    /// IP size of a control packet, bytes (an ICMP message: 20 B IP + 8 B ICMP + the 28 B of
    /// the offending datagram's header it quotes, RFC 792).
    pub signal_bytes: u32,
    /// Code point of control packets (default CS6, network control, RFC 2474 §4.2.2).
    pub signal_dscp: u8,
    /// One controller shared by every target (default) or one per bucket.
    pub scope: CsaScope,
    /// Whether α's trace is reported (it can be long: one entry per change).
    pub trace: bool,
}

/// How many controllers a CSA runs, and what each counts.
///
/// Giacomazzi et al. let each bucket have its own α ("By properly setting the α factor, the
/// percentage of non-conformant packets can be differently limited for each Assured Forwarding
/// flow in the network"), and the CSA's counter counts the buffer's OUT packets: "P … returns to
/// the 0 value at the arrival of the 8-th OUT packet". With Table 1's parameters common to every
/// PHB, every bucket's controller would see the same arrivals with the same parameters and hold
/// the same α at every instant: one shared controller is that reading, exactly. A controller per
/// bucket that counts only its own bucket's OUT packets is another reading (α then differs
/// between flows), kept as a variant.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CsaScope {
    /// One controller for every target, counting every OUT packet at the buffer (best effort
    /// included) and setting one α for all of them.
    #[default]
    Shared,
    /// One controller per target bucket, counting the OUT packets that bucket marked and
    /// setting that bucket's α only.
    PerBucket,
}

impl CsaScope {
    pub fn name(self) -> &'static str {
        match self {
            CsaScope::PerBucket => "per_bucket",
            CsaScope::Shared => "shared",
        }
    }
}

/// When the run ends: at the first of the named conditions that is reached. At least one is set.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stop {
    /// Simulated time at which the run stops.
    pub duration: Option<SimDuration>,
    /// Stop once this many packets (of any kind, all flows) have been generated.
    pub max_packets: Option<u64>,
    /// Stop once the flows' sources have generated this many packets (data and SYNs; not
    /// ACKs, not CSA control packets).
    pub max_data_packets: Option<u64>,
    /// Stop once every finite transfer is complete (all its packets delivered or dropped).
    pub transfers_complete: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct NodeSpec {
    pub name: String,
}

/// A full-duplex point-to-point link between nodes `a` and `b`. Each direction has its own
/// transmitter and output queue.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkSpec {
    pub a: usize,
    pub b: usize,
    /// Line rate in bits per second (bits on the wire, framing included).
    pub rate_bps: u64,
    /// One-way propagation delay.
    pub delay: SimDuration,
    pub framing: Framing,
    /// Output queue at `a`, towards `b`. Shared (`Arc`) by the links one `[[link]]` makes: a
    /// queue spec is up to 560 bytes, and 100,000 hosts have 200,000 of them (issue 28).
    pub queue_ab: std::sync::Arc<QueueSpec>,
    /// Output queue at `b`, towards `a`.
    pub queue_ba: std::sync::Arc<QueueSpec>,
    /// Random loss of packets leaving the wire at `b` (direction a→b), and at `a` (b→a).
    pub loss_ab: Option<crate::net::loss::Model>,
    pub loss_ba: Option<crate::net::loss::Model>,
}

impl Spec {
    /// The port named `from->to` (node names, as the report names queues): the direction of
    /// the first link joining them, as `net::routing::port_of` numbers it.
    pub fn port_index(&self, name: &str) -> Option<usize> {
        let (from, to) = name.split_once("->")?;
        let node = |n: &str| self.nodes.iter().position(|x| x.name == n.trim());
        let (a, b) = (node(from)?, node(to)?);
        self.links.iter().enumerate().find_map(|(i, l)| {
            if (l.a, l.b) == (a, b) {
                Some(crate::net::routing::port_of(i, true) as usize)
            } else if (l.b, l.a) == (a, b) {
                Some(crate::net::routing::port_of(i, false) as usize)
            } else {
                None
            }
        })
    }

    /// Every port's name (`from->to`), by port index.
    /// The nodes packets are addressed to: the flows' two ends (data one way, ACKs the
    /// other) and the conditioners CSAs send their control packets to
    /// (`net::routing::Tables::compute`'s `dsts`).
    pub fn destinations(&self) -> impl Iterator<Item = usize> + '_ {
        let flows = self.flows.iter().flat_map(|f| [f.src, f.dst]);
        let signals = self
            .csas
            .iter()
            .flat_map(|c| c.targets.iter().map(|&t| self.conditioners[t].node));
        flows.chain(signals)
    }

    /// Every port's name, "from->to" in node names, in port order (port `2k` is link `k`'s a → b
    /// direction, `2k + 1` its b → a).
    pub fn port_names(&self) -> Vec<String> {
        (0..2 * self.links.len())
            .map(|p| self.port_name(p))
            .collect()
    }

    /// Port `port`'s name, "from->to" in node names.
    pub fn port_name(&self, port: usize) -> String {
        let l = &self.links[port / 2];
        let (from, to) = if port.is_multiple_of(2) {
            (l.a, l.b)
        } else {
            (l.b, l.a)
        };
        format!("{}->{}", self.nodes[from].name, self.nodes[to].name)
    }

    /// Adds a capture of port `port` (named `from->to`) into `path`, as `afsim run --capture`
    /// asks; `origin` names the option in errors. Fails on an unknown or already captured port.
    pub fn add_capture(
        &mut self,
        port: &str,
        path: std::path::PathBuf,
        origin: &str,
    ) -> Result<(), String> {
        let Some(index) = self.port_index(port) else {
            return Err(format!(
                "no port '{port}'; the ports are: {}",
                self.port_names().join(", ")
            ));
        };
        if self.captures.iter().any(|c| c.port == index) {
            return Err(format!("port '{port}' is already captured"));
        }
        let place = super::ScenarioError {
            file: origin.to_string(),
            line: 0,
            column: 0,
            field: String::new(),
            message: String::new(),
        };
        self.captures.push(CaptureSpec {
            port: index,
            path,
            place,
        });
        Ok(())
    }

    /// Adds a monitor of `kind` sampled every `interval` (as `afsim run --monitor` asks): of
    /// port `port`'s queue (named `from->to`) for the queue kinds, `port` ignored otherwise.
    /// Fails on an unknown port, a second monitor of the same kind (and queue), or a zero
    /// interval.
    pub fn add_monitor(
        &mut self,
        kind: MonitorKind,
        port: &str,
        interval: SimDuration,
    ) -> Result<(), String> {
        let index = if kind.has_port() {
            let Some(index) = self.port_index(port) else {
                return Err(format!(
                    "no port '{port}'; the ports are: {}",
                    self.port_names().join(", ")
                ));
            };
            index
        } else {
            0
        };
        let what = if kind.has_port() {
            format!("port '{port}'")
        } else {
            format!("'{}'", kind.name())
        };
        if interval.0 == 0 {
            return Err(format!("the sampling interval of {what} must be positive"));
        }
        if self
            .monitors
            .iter()
            .any(|m| m.kind == kind && m.port == index)
        {
            return Err(format!("{what} is already monitored ({})", kind.name()));
        }
        self.monitors.push(MonitorSpec {
            kind,
            port: index,
            interval,
        });
        Ok(())
    }
}

/// An explicit route: for packets addressed to `path.last()`, each node of the path forwards
/// to the next one. Consecutive nodes must share a link.
#[derive(Clone, Debug, PartialEq)]
pub struct RouteSpec {
    pub path: Vec<usize>,
}

/// One flow: an application at `src` sending to its peer at `dst`.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowSpec {
    pub name: String,
    /// The code point the source puts on its packets (RFC 2474; default 0, best effort).
    pub dscp: u8,
    /// Name of the group (`[[flow]] name`) this flow was expanded from; equal to `name` for a
    /// single flow. One string for the group's flows (a string a flow was 40 bytes of a
    /// million-flow spec's; issue 28).
    pub group: std::sync::Arc<str>,
    pub src: usize,
    pub dst: usize,
    pub app: AppSpec,
}

/// The traffic an application generates.
#[derive(Clone, Debug, PartialEq)]
pub enum AppSpec {
    /// TCP (Reno, NewReno or SACK; greedy or a transfer of N bytes), RFC 5681/6582/6675.
    Tcp(crate::transport::tcp::Params),
    /// TFRC (RFC 5348) or gTFRC, always with data to send.
    Tfrc(crate::transport::tfrc::Params),
    /// UDP constant bit rate: a `packet_size`-byte packet every `packet_size*8/rate` seconds
    /// from `start` until `stop` (if any) or until `max_packets` have been sent (if any; this
    /// makes the flow a finite transfer).
    Cbr(CbrSpec),
}

/// A structural problem in a spec; the loader turns each into a file/line/field error.
#[derive(Clone, Debug, PartialEq)]
pub enum SpecError {
    NoStopCondition,
    NodeIndex {
        what: &'static str,
        index: usize,
        field: &'static str,
    },
    SelfLink {
        link: usize,
    },
    Zero {
        what: &'static str,
        index: usize,
        field: &'static str,
    },
    DuplicateName {
        what: &'static str,
        name: String,
    },
    Route(crate::net::routing::RouteError),
    FlowIndex {
        conditioner: usize,
    },
    CsaTarget {
        csa: usize,
    },
    CsaQueue {
        csa: usize,
    },
    ShapeNeedsTokenBucket {
        conditioner: usize,
    },
    /// A capture names no port, or its file cannot be created (with the place that asked).
    Capture(Box<super::ScenarioError>),
    /// A monitor names no port (its index) or has a zero interval.
    Monitor(usize),
}

impl std::fmt::Display for SpecError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SpecError::NoStopCondition => write!(
                f,
                "no stop condition: set duration, max_packets, max_data_packets or transfers_complete"
            ),
            SpecError::NodeIndex { what, index, field } => {
                write!(f, "{what}[{index}].{field}: no such node")
            }
            SpecError::SelfLink { link } => write!(f, "link[{link}] joins a node to itself"),
            SpecError::Zero { what, index, field } => {
                write!(f, "{what}[{index}].{field} must be greater than zero")
            }
            SpecError::DuplicateName { what, name } => write!(f, "two {what}s are named '{name}'"),
            SpecError::Route(e) => write!(f, "routes: {e}"),
            SpecError::CsaTarget { csa } => {
                write!(f, "csa[{csa}].targets: not a conditioner with an enhanced token bucket")
            }
            SpecError::CsaQueue { csa } => write!(f, "csa[{csa}]: the watched queue is not a RIO queue"),
            SpecError::FlowIndex { conditioner } => {
                write!(f, "conditioner[{conditioner}].match.flows: no such flow")
            }
            SpecError::ShapeNeedsTokenBucket { conditioner } => {
                write!(f, "conditioner[{conditioner}]: shaping needs a token_bucket meter")
            }
            SpecError::Capture(e) => write!(f, "{e}"),
            SpecError::Monitor(port) => write!(f, "monitor of port {port}: no such port, or a zero interval"),
        }
    }
}

impl Spec {
    /// Structural checks a built world relies on. The loader reports richer errors first; this
    /// is the last line for specs made in code.
    pub fn check(&self) -> Result<(), SpecError> {
        if self.stop.duration.is_none()
            && self.stop.max_packets.is_none()
            && self.stop.max_data_packets.is_none()
            && !self.stop.transfers_complete
        {
            return Err(SpecError::NoStopCondition);
        }
        let n = self.nodes.len();
        for c in &self.captures {
            if c.port >= 2 * self.links.len() {
                let message = format!("capture of port {}: no such port", c.port);
                return Err(SpecError::Capture(Box::new(super::ScenarioError {
                    message,
                    ..c.place.clone()
                })));
            }
        }
        for m in &self.monitors {
            if (m.kind.has_port() && m.port >= 2 * self.links.len()) || m.interval.0 == 0 {
                return Err(SpecError::Monitor(m.port));
            }
        }
        // (sized at once, with the loader's fast hash: 2,000,002 names at a million flows)
        let mut seen = fast_set(self.nodes.len());
        for node in &self.nodes {
            if !seen.insert(node.name.as_str()) {
                return Err(SpecError::DuplicateName {
                    what: "node",
                    name: node.name.clone(),
                });
            }
        }
        for (i, l) in self.links.iter().enumerate() {
            if l.a >= n {
                return Err(SpecError::NodeIndex {
                    what: "link",
                    index: i,
                    field: "a",
                });
            }
            if l.b >= n {
                return Err(SpecError::NodeIndex {
                    what: "link",
                    index: i,
                    field: "b",
                });
            }
            if l.a == l.b {
                return Err(SpecError::SelfLink { link: i });
            }
            if l.rate_bps == 0 {
                return Err(SpecError::Zero {
                    what: "link",
                    index: i,
                    field: "rate",
                });
            }
        }
        let mut seen = fast_set(self.flows.len());
        for (i, f) in self.flows.iter().enumerate() {
            if f.src >= n {
                return Err(SpecError::NodeIndex {
                    what: "flow",
                    index: i,
                    field: "from",
                });
            }
            if f.dst >= n {
                return Err(SpecError::NodeIndex {
                    what: "flow",
                    index: i,
                    field: "to",
                });
            }
            if !seen.insert(f.name.as_str()) {
                return Err(SpecError::DuplicateName {
                    what: "flow",
                    name: f.name.clone(),
                });
            }
            match &f.app {
                AppSpec::Tcp(_) | AppSpec::Tfrc(_) => {}
                AppSpec::Cbr(c) => {
                    if c.rate_bps == 0 {
                        return Err(SpecError::Zero {
                            what: "flow",
                            index: i,
                            field: "rate",
                        });
                    }
                    if c.packet_size == 0 {
                        return Err(SpecError::Zero {
                            what: "flow",
                            index: i,
                            field: "packet_size",
                        });
                    }
                }
            }
        }
        for (i, c) in self.conditioners.iter().enumerate() {
            if c.node >= n {
                return Err(SpecError::NodeIndex {
                    what: "conditioner",
                    index: i,
                    field: "at",
                });
            }
            if c.from.is_some_and(|f| f >= n) {
                return Err(SpecError::NodeIndex {
                    what: "conditioner",
                    index: i,
                    field: "from",
                });
            }
            // a list shared with the conditioner before (one `[[conditioner]]` table) was
            // checked with it: once a table, not once a conditioner (issue 28)
            let checked = i > 0
                && std::sync::Arc::ptr_eq(
                    &self.conditioners[i - 1].classifier.flows,
                    &c.classifier.flows,
                );
            if !checked && c.classifier.flows.iter().any(|&f| f >= self.flows.len()) {
                return Err(SpecError::FlowIndex { conditioner: i });
            }
            let shaping = c.actions.contains(&crate::edge::PerColourAction::Shape);
            if shaping && !matches!(c.meter, MeterSpec::TokenBucket(_)) {
                return Err(SpecError::ShapeNeedsTokenBucket { conditioner: i });
            }
            if shaping && c.buffer_packets == 0 {
                return Err(SpecError::Zero {
                    what: "conditioner",
                    index: i,
                    field: "buffer",
                });
            }
        }
        for (i, c) in self.csas.iter().enumerate() {
            if c.node >= n {
                return Err(SpecError::NodeIndex {
                    what: "csa",
                    index: i,
                    field: "at",
                });
            }
            if c.towards >= n {
                return Err(SpecError::NodeIndex {
                    what: "csa",
                    index: i,
                    field: "towards",
                });
            }
            let is_etb = |&t: &usize| {
                self.conditioners
                    .get(t)
                    .is_some_and(|k| matches!(k.meter, MeterSpec::EnhancedTokenBucket(_)))
            };
            if !c.targets.iter().all(is_etb) {
                return Err(SpecError::CsaTarget { csa: i });
            }
            let watched = self
                .links
                .iter()
                .find(|l| (l.a, l.b) == (c.node, c.towards) || (l.b, l.a) == (c.node, c.towards));
            let queue = watched.map(|l| {
                if l.a == c.node {
                    &*l.queue_ab
                } else {
                    &*l.queue_ba
                }
            });
            if !matches!(queue, Some(QueueSpec::Rio(..))) {
                return Err(SpecError::CsaQueue { csa: i });
            }
        }
        for (i, r) in self.routes.iter().enumerate() {
            if r.path.iter().any(|&x| x >= n) {
                return Err(SpecError::NodeIndex {
                    what: "route",
                    index: i,
                    field: "path",
                });
            }
        }
        Ok(())
    }
}

/// An empty set of names with room for `n`, hashed as the loader's namespaces are
/// (`load::names::FastHash`).
fn fast_set<'a>(n: usize) -> std::collections::HashSet<&'a str, rustc_hash::FxBuildHasher> {
    std::collections::HashSet::with_capacity_and_hasher(n, rustc_hash::FxBuildHasher)
}
