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
}

/// When the run ends: at the first of the named conditions that is reached. At least one is set.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stop {
    /// Simulated time at which the run stops.
    pub duration: Option<SimDuration>,
    /// Stop once this many packets (of any kind, all flows) have been generated.
    pub max_packets: Option<u64>,
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
    DropTail { limit: Limit },
    Red(crate::queue::red::Params),
    Rio(crate::queue::rio::Params, crate::edge::dscp::ColourTable),
    Wred(crate::queue::wred::Params, crate::edge::dscp::ColourTable),
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

/// The traffic an application generates. TCP and TFRC come as new variants.
#[derive(Clone, Debug, PartialEq)]
pub enum AppSpec {
    /// TCP (Reno, NewReno or SACK; greedy or a transfer of N bytes), RFC 5681/6582/6675.
    Tcp(crate::transport::tcp::Params),
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
}

/// A structural problem in a spec; the loader turns each into a file/line/field error.
#[derive(Clone, Debug, PartialEq)]
pub enum SpecError {
    NoStopCondition,
    NodeIndex { what: &'static str, index: usize, field: &'static str },
    SelfLink { link: usize },
    Zero { what: &'static str, index: usize, field: &'static str },
    DuplicateName { what: &'static str, name: String },
    Route(crate::net::routing::RouteError),
}

impl std::fmt::Display for SpecError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SpecError::NoStopCondition => write!(
                f,
                "no stop condition: set duration, max_packets or transfers_complete"
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
        }
    }
}

impl Spec {
    /// Structural checks a built world relies on. The loader reports richer errors first; this
    /// is the last line for specs made in code.
    pub fn check(&self) -> Result<(), SpecError> {
        if self.stop.duration.is_none() && self.stop.max_packets.is_none() && !self.stop.transfers_complete {
            return Err(SpecError::NoStopCondition);
        }
        let n = self.nodes.len();
        let mut seen = std::collections::HashSet::new();
        for node in &self.nodes {
            if !seen.insert(node.name.as_str()) {
                return Err(SpecError::DuplicateName { what: "node", name: node.name.clone() });
            }
        }
        for (i, l) in self.links.iter().enumerate() {
            if l.a >= n {
                return Err(SpecError::NodeIndex { what: "link", index: i, field: "a" });
            }
            if l.b >= n {
                return Err(SpecError::NodeIndex { what: "link", index: i, field: "b" });
            }
            if l.a == l.b {
                return Err(SpecError::SelfLink { link: i });
            }
            if l.rate_bps == 0 {
                return Err(SpecError::Zero { what: "link", index: i, field: "rate" });
            }
        }
        let mut seen = std::collections::HashSet::new();
        for (i, f) in self.flows.iter().enumerate() {
            if f.src >= n {
                return Err(SpecError::NodeIndex { what: "flow", index: i, field: "from" });
            }
            if f.dst >= n {
                return Err(SpecError::NodeIndex { what: "flow", index: i, field: "to" });
            }
            if !seen.insert(f.name.as_str()) {
                return Err(SpecError::DuplicateName { what: "flow", name: f.name.clone() });
            }
            match &f.app {
                AppSpec::Tcp(_) => {}
                AppSpec::Cbr(c) => {
                    if c.rate_bps == 0 {
                        return Err(SpecError::Zero { what: "flow", index: i, field: "rate" });
                    }
                    if c.packet_size == 0 {
                        return Err(SpecError::Zero { what: "flow", index: i, field: "packet_size" });
                    }
                }
            }
        }
        for (i, r) in self.routes.iter().enumerate() {
            if let Some(_) = r.path.iter().find(|&&x| x >= n) {
                return Err(SpecError::NodeIndex { what: "route", index: i, field: "path" });
            }
        }
        Ok(())
    }
}
