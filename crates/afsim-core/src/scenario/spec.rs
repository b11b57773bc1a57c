//! The resolved scenario: what the loader produces and the world builder consumes.
//!
//! Read this first: a `Spec` has no parameters left to substitute, no groups left to expand and
//! no units left to parse. Every index refers into this spec's own vectors (`nodes[a]`). The
//! loader (`scenario::load`) guarantees what its doc comment lists (names unique, indices in
//! range, values positive, routes loop-free); `Spec::check` re-checks the structural part so a
//! spec built by hand in a test fails as clearly as a file would.

use crate::sim::time::{SimDuration, SimTime};

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
    pub colours: crate::edge::dscp::ColourTable,
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

/// A queue's time series: the queue of port `port` (length, bytes, the discipline's averages)
/// sampled every `interval` from time 0 (`metrics::series`).
#[derive(Clone, Debug, PartialEq)]
pub struct MonitorSpec {
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
    /// Output queue at `a`, towards `b`.
    pub queue_ab: QueueSpec,
    /// Output queue at `b`, towards `a`.
    pub queue_ba: QueueSpec,
    /// Random loss of packets leaving the wire at `b` (direction a→b), and at `a` (b→a).
    pub loss_ab: Option<crate::net::loss::Model>,
    pub loss_ba: Option<crate::net::loss::Model>,
}

/// How an IP packet of `size` bytes becomes bits on the wire.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Framing {
    /// The IP packet alone.
    Plain,
    /// A fixed per-packet overhead in bytes (PPP-like HDLC framing: flag, address, control,
    /// protocol, FCS).
    Fixed { overhead_bytes: u32 },
    /// ATM cell tax as the Giacomazzi paper applies it: every 48 payload bytes cost 53 on the
    /// wire, without AAL5 trailer or padding (34 Mb/s E3 nets 30.792 Mb/s at the IP level).
    AtmCellTax,
    /// ATM AAL5 exactly (RFC 2684 / ITU-T I.363.5): packet + optional 8-byte LLC/SNAP header +
    /// 8-byte AAL5 trailer, padded up to whole 48-byte cell payloads, 53 bytes per cell.
    Aal5 { llc_snap: bool },
}

/// An output queue discipline. New disciplines are new variants. The link rate inside the
/// RED-family parameters is filled in from the link when the world is built.
#[derive(Clone, Debug, PartialEq)]
pub enum QueueSpec {
    DropTail {
        limit: Limit,
    },
    Red(crate::queue::red::Params),
    Rio(crate::queue::rio::Params, crate::edge::dscp::ColourTable),
    Wred(crate::queue::wred::Params, crate::edge::dscp::ColourTable),
    /// Several classes, each with its own inner queue, served by a scheduler
    /// (`queue::scheduler`).
    Scheduler(SchedulerSpec),
    /// SIMA's core node: real-time and non-real-time buffers behind the allowed drop
    /// precedence (`queue::sima`).
    Sima(crate::queue::sima::Params),
}

/// A scheduler across classes on one port (`queue::scheduler` has the model).
///
/// Strict priority above DRR/WRR is expressed per class: under `Policy::Drr` or `Policy::Wrr`
/// a class whose service is `Service::Priority` is served before every shared class, so "EF
/// first, DRR among the rest" is `policy = Drr` with EF's class `Priority` and the others
/// `Quantum`. Under `Policy::Priority` every class is `Priority` and list order is priority
/// order (first = highest).
#[derive(Clone, Debug, PartialEq)]
pub struct SchedulerSpec {
    pub policy: crate::queue::scheduler::Policy,
    /// The classes, highest priority first (the order also breaks ties in the round robin:
    /// shared classes join it in the order they become backlogged).
    pub classes: Vec<ClassSpec>,
}

/// One class of a scheduler.
#[derive(Clone, Debug, PartialEq)]
pub struct ClassSpec {
    /// Unique within the scheduler (for reports and errors).
    pub name: String,
    /// Code points (RFC 2474 behaviour aggregate) that select this class; may be empty for the
    /// default class.
    pub dscp: Vec<u8>,
    /// Packets whose code point no class lists come here. Exactly one class is the default
    /// (RFC 2474 §3: unrecognised code points get the default behaviour).
    pub default: bool,
    pub service: crate::queue::scheduler::Service,
    /// The class's own queue: drop-tail or a RED-family AQM (not a scheduler).
    pub queue: QueueSpec,
}

/// What is wrong with a `SchedulerSpec`, and where.
#[derive(Clone, Debug, PartialEq)]
pub enum SchedulerError {
    /// The scheduler as a whole (`field` is "classes").
    Scheduler {
        field: &'static str,
        message: String,
    },
    /// A field of class `class` ("name", "dscp", "default", "priority", "quantum", "weight",
    /// "queue").
    Class {
        class: usize,
        field: &'static str,
        message: String,
    },
    /// Class `class`'s queue failed its own model's validation.
    Queue {
        class: usize,
        error: crate::edge::ParamError,
    },
}

impl std::fmt::Display for SchedulerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SchedulerError::Scheduler { field, message } => write!(f, "{field}: {message}"),
            SchedulerError::Class {
                class,
                field,
                message,
            } => write!(f, "classes[{class}].{field}: {message}"),
            SchedulerError::Queue { class, error } => write!(f, "classes[{class}].queue.{error}"),
        }
    }
}

impl std::error::Error for SchedulerError {}

/// For callers that report one field and a message (the loader's queue errors).
impl From<SchedulerError> for crate::edge::ParamError {
    fn from(e: SchedulerError) -> Self {
        match e {
            SchedulerError::Scheduler { field, message } => {
                crate::edge::ParamError::new(field, message)
            }
            SchedulerError::Class {
                class,
                field,
                message,
            } => crate::edge::ParamError::new(field, format!("class {class}: {message}")),
            SchedulerError::Queue { class, error } => crate::edge::ParamError::new(
                error.field,
                format!("queue of class {class}: {}", error.message),
            ),
        }
    }
}

impl SchedulerSpec {
    /// Fills the link rate into the RED-family queues of the classes (as the loader does for a
    /// port's own queue once the link's rate is known). Call before `validate`.
    pub fn set_link_rate(&mut self, link_rate_bps: u64) {
        for c in &mut self.classes {
            match &mut c.queue {
                QueueSpec::DropTail { .. } | QueueSpec::Sima(_) => {}
                QueueSpec::Red(p) => p.common.link_rate_bps = link_rate_bps,
                QueueSpec::Rio(p, _) => p.common.link_rate_bps = link_rate_bps,
                QueueSpec::Wred(p, _) => p.common.link_rate_bps = link_rate_bps,
                QueueSpec::Scheduler(s) => s.set_link_rate(link_rate_bps),
            }
        }
    }

    /// Everything `validate` checks except the inner queues' own parameters: at least one
    /// class, names unique and non-empty, exactly one default, every non-default class lists a
    /// code point, code points 6-bit and in one class only, services matching the policy with
    /// positive quanta / weights, no nested scheduler. `queue::scheduler::Scheduler::new`
    /// relies on this.
    pub fn validate_classes(&self) -> Result<(), SchedulerError> {
        let class_err =
            |class: usize, field: &'static str, message: String| SchedulerError::Class {
                class,
                field,
                message,
            };
        if self.classes.is_empty() {
            let message = "a scheduler needs at least one class".into();
            return Err(SchedulerError::Scheduler {
                field: "classes",
                message,
            });
        }
        let mut owner: [Option<usize>; 64] = [None; 64];
        let mut names = std::collections::HashSet::new();
        for (i, c) in self.classes.iter().enumerate() {
            if c.name.is_empty() {
                return Err(class_err(i, "name", "a class needs a name".into()));
            }
            if !names.insert(c.name.as_str()) {
                return Err(class_err(
                    i,
                    "name",
                    format!("two classes are named '{}'", c.name),
                ));
            }
            if c.dscp.is_empty() && !c.default {
                let message = format!(
                    "class '{}' lists no code point and is not the default: it would never receive a packet",
                    c.name
                );
                return Err(class_err(i, "dscp", message));
            }
            for &d in &c.dscp {
                let Some(slot) = owner.get_mut(usize::from(d)) else {
                    return Err(class_err(
                        i,
                        "dscp",
                        format!("{d} is not a 6-bit code point (0..=63)"),
                    ));
                };
                if let Some(j) = *slot {
                    let other = &self.classes[j].name;
                    let what =
                        crate::edge::dscp::name(d).map_or_else(|| d.to_string(), str::to_string);
                    return Err(class_err(
                        i,
                        "dscp",
                        format!("{what} is already in class '{other}'"),
                    ));
                }
                *slot = Some(i);
            }
            if let Some((field, message)) = service_mismatch(self.policy, c.service) {
                return Err(class_err(i, field, message.into()));
            }
            if let QueueSpec::Scheduler(_) = c.queue {
                return Err(class_err(
                    i,
                    "queue",
                    "a class queue cannot itself be a scheduler".into(),
                ));
            }
            if let QueueSpec::Sima(_) = c.queue {
                let message =
                    "a class queue cannot be a SIMA queue, which schedules its own two classes"
                        .into();
                return Err(class_err(i, "queue", message));
            }
        }
        let defaults: Vec<usize> = (0..self.classes.len())
            .filter(|&i| self.classes[i].default)
            .collect();
        match defaults.as_slice() {
            [_] => Ok(()),
            [] => Err(SchedulerError::Scheduler {
                field: "classes",
                message: "no class is the default; mark exactly one with default = true".into(),
            }),
            [first, second, ..] => Err(class_err(
                *second,
                "default",
                format!(
                    "class '{}' is already the default",
                    self.classes[*first].name
                ),
            )),
        }
    }

    /// `validate_classes`, then each class queue's own parameters (RED-family queues need
    /// `set_link_rate` first).
    pub fn validate(&self) -> Result<(), SchedulerError> {
        self.validate_classes()?;
        for (class, c) in self.classes.iter().enumerate() {
            let checked = match &c.queue {
                QueueSpec::DropTail {
                    limit: Limit::Packets(0) | Limit::Bytes(0),
                } => Err(crate::edge::ParamError::new(
                    "limit",
                    "the buffer limit must be positive",
                )),
                QueueSpec::DropTail { .. } => Ok(()),
                QueueSpec::Red(p) => p.validate(),
                QueueSpec::Rio(p, _) => p.validate(),
                QueueSpec::Wred(p, _) => p.validate(),
                QueueSpec::Scheduler(_) | QueueSpec::Sima(_) => {
                    unreachable!("validate_classes rejects schedulers and SIMA queues in classes")
                }
            };
            checked.map_err(|error| SchedulerError::Queue { class, error })?;
        }
        Ok(())
    }
}

/// Why a class's service does not fit the scheduler's policy: the field at fault and a message.
fn service_mismatch(
    policy: crate::queue::scheduler::Policy,
    service: crate::queue::scheduler::Service,
) -> Option<(&'static str, &'static str)> {
    use crate::queue::scheduler::{Policy, Service};
    match (policy, service) {
        (Policy::Priority | Policy::Drr | Policy::Wrr, Service::Priority) => None,
        (Policy::Drr, Service::Quantum(0)) => {
            Some(("quantum", "a quantum must be greater than zero"))
        }
        (Policy::Wrr, Service::Weight(0)) => Some(("weight", "a weight must be greater than zero")),
        (Policy::Drr, Service::Quantum(_)) | (Policy::Wrr, Service::Weight(_)) => None,
        (Policy::Priority, Service::Quantum(_)) => Some((
            "quantum",
            "a quantum needs policy drr; strict priority serves classes in list order",
        )),
        (Policy::Priority, Service::Weight(_)) => Some((
            "weight",
            "a weight needs policy wrr; strict priority serves classes in list order",
        )),
        (Policy::Drr, Service::Weight(_)) => Some((
            "weight",
            "policy drr shares bytes: give this class a quantum",
        )),
        (Policy::Wrr, Service::Quantum(_)) => Some((
            "quantum",
            "policy wrr shares packets: give this class a weight",
        )),
    }
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
    pub fn port_names(&self) -> Vec<String> {
        let name = |i: usize| self.nodes[i].name.as_str();
        self.links
            .iter()
            .flat_map(|l| {
                [
                    format!("{}->{}", name(l.a), name(l.b)),
                    format!("{}->{}", name(l.b), name(l.a)),
                ]
            })
            .collect()
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

    /// Adds a time series of port `port`'s queue (named `from->to`) sampled every `interval`,
    /// as `afsim run --monitor` asks. Fails on an unknown or already monitored port, or a
    /// zero interval.
    pub fn add_monitor(&mut self, port: &str, interval: SimDuration) -> Result<(), String> {
        let Some(index) = self.port_index(port) else {
            return Err(format!(
                "no port '{port}'; the ports are: {}",
                self.port_names().join(", ")
            ));
        };
        if interval.0 == 0 {
            return Err(format!(
                "the sampling interval of '{port}' must be positive"
            ));
        }
        if self.monitors.iter().any(|m| m.port == index) {
            return Err(format!("port '{port}' is already monitored"));
        }
        self.monitors.push(MonitorSpec {
            port: index,
            interval,
        });
        Ok(())
    }
}

/// A buffer limit, in packets or in bytes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Limit {
    Packets(u32),
    Bytes(u64),
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
    /// single flow.
    pub group: String,
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

#[derive(Clone, Debug, PartialEq)]
pub struct CbrSpec {
    /// Application rate in bits per second, counting IP packet bytes.
    pub rate_bps: u64,
    /// IP packet size in bytes (headers included).
    pub packet_size: u32,
    pub start: SimTime,
    pub stop: Option<SimTime>,
    pub max_packets: Option<u64>,
    /// ns-2's `random_` flag: each interval is scaled by a uniform factor in [0.5, 1.5) from the
    /// flow's own random stream, keeping the mean rate.
    pub jitter: bool,
}

/// An edge conditioner (RFC 2475 §2.3.3): at `node`, packets arriving over the link from
/// `from` (or, with `from = None`, every packet arriving at or sent from `node`) that the
/// classifier selects are metered, and each colour's action is applied.
#[derive(Clone, Debug, PartialEq)]
pub struct ConditionerSpec {
    pub name: String,
    pub node: usize,
    /// The neighbour whose link is this conditioner's input line (Giacomazzi: "a conditioner
    /// for each input line").
    pub from: Option<usize>,
    pub classifier: ClassifierSpec,
    pub meter: MeterSpec,
    /// One meter per flow (each with the same parameters) instead of one for the aggregate.
    pub per_flow: bool,
    /// What to do with green, yellow and red packets (indexed by `Colour::index()`).
    pub actions: [crate::edge::PerColourAction; 3],
    /// Packets a shaping conditioner may hold (used when an action is `Shape`).
    pub buffer_packets: u32,
}

/// Which packets a conditioner takes: every listed criterion must hold; an empty list or
/// `None` matches anything (RFC 2475 §2.3.1 multi-field and behaviour-aggregate classifiers).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ClassifierSpec {
    /// Flow indices (from flow or flow-group names).
    pub flows: Vec<usize>,
    pub src: Option<usize>,
    pub dst: Option<usize>,
    pub protocol: Option<u8>,
    /// Code points (behaviour aggregate).
    pub dscp: Vec<u8>,
}

/// The meter of a conditioner, with its source's parameters.
#[derive(Clone, Debug, PartialEq)]
pub enum MeterSpec {
    TokenBucket(crate::edge::token_bucket::Params),
    Srtcm(crate::edge::srtcm::Params),
    Trtcm(crate::edge::trtcm::Params),
    Tsw2cm(crate::edge::tsw::Tsw2cmParams),
    Tsw3cm(crate::edge::tsw::Tsw3cmParams),
    /// Giacomazzi et al.'s enhanced token bucket (Fig. 5); its input buffer is the
    /// conditioner's holding FIFO, of `Params::buffer_packets`.
    EnhancedTokenBucket(crate::edge::enhanced_token_bucket::Params),
    /// The SIMA access node's marker (`edge::sima`): it writes a drop precedence into every
    /// packet's code point and has no per-colour actions.
    Sima(crate::edge::sima::Params),
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
            if m.port >= 2 * self.links.len() || m.interval.0 == 0 {
                return Err(SpecError::Monitor(m.port));
            }
        }
        let mut seen = std::collections::HashSet::new();
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
        let mut seen = std::collections::HashSet::new();
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
            if c.classifier.flows.iter().any(|&f| f >= self.flows.len()) {
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
                    &l.queue_ab
                } else {
                    &l.queue_ba
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
