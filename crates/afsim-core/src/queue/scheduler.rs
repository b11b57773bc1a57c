//! A scheduler across classes on one port: strict priority, deficit round robin, weighted
//! round robin, and strict priority above either round robin.
//!
//! Read this first.
//! - Sources:
//!   - strict priority: the usual way of giving RFC 3246's EF PHB its configured departure
//!     rate (a simple priority queue is one of the implementations RFC 3246 and RFC 2598
//!     discuss); a packet leaves the highest-priority non-empty class;
//!   - deficit round robin: Shreedhar & Varghese, "Efficient fair queueing using deficit round
//!     robin" (SIGCOMM 1995), in the per-packet form of Linux `sch_drr.c`: backlogged classes
//!     form the ActiveList; a class joining it gets one quantum of deficit; the head class
//!     sends while its head packet fits its deficit; when it does not, the class gets another
//!     quantum and goes to the tail; a class that empties leaves the list and *loses its
//!     deficit* (the paper resets an empty queue's deficit counter to 0, so an idle class
//!     banks no credit);
//!   - weighted round robin in packets: the same machine with every packet costing 1 and the
//!     weight as quantum, so a backlogged class sends `weight` packets per turn.
//! - Classes: each is a set of DSCPs with its own inner queue (drop-tail, RED, RIO or WRED,
//!   built by `AnyQueue::from_spec`); a code point no class lists goes to the `default` class.
//!   The inner queue decides drops and ECN marks on its own arrivals exactly as it would alone,
//!   so an AF class running RIO inside a DRR share still drops OUT before IN.
//! - Strict priority above a round robin (EF over DRR among AF and best effort) is expressed
//!   per class: under `Policy::Drr`/`Policy::Wrr` a class with `Service::Priority` is served
//!   before every shared class; priority classes among themselves go in list order. Under
//!   `Policy::Priority` every class is `Priority`. One flat list covers the combinations the
//!   issue asks for without nesting schedulers (which `SchedulerSpec::validate` rejects).
//! - Counters: each class counts its own arrivals, departures and drops by reason
//!   (`ClassStats`); the port still counts the scheduler as one queue (`QueueStats`).
//!
//! Not modelled: a rate limit or token bucket on priority classes (a priority class starves the
//! others unless it is conditioned at the edge, as RFC 3246 expects EF to be); a buffer shared
//! across classes (each inner queue has its own limit); nested schedulers. A RED-family inner
//! queue is idle while its own class is empty, and counts idle slots at the full link rate, not
//! at the class's share. A quantum smaller than the largest packet is allowed, but a dequeue
//! then loops over rounds until the head fits; Shreedhar & Varghese's O(1) work per packet
//! needs quantum ≥ the largest packet.

use std::collections::VecDeque;

use crate::net::packet::{PacketId, Pool};
use crate::queue::{AnyQueue, DropReason, Limit, QueueSpec, N_DROP_REASONS};
use crate::sim::rng::Rng;
use crate::sim::time::SimTime;

/// How classes share the link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    /// Strict priority in class order: a class is served only when every class before it is
    /// empty. Every class's service is `Service::Priority`.
    Priority,
    /// Deficit round robin in bytes among the `Service::Quantum` classes, below the
    /// `Service::Priority` classes (if any).
    Drr,
    /// Weighted round robin in packets among the `Service::Weight` classes, below the
    /// `Service::Priority` classes (if any).
    Wrr,
}

impl Policy {
    pub fn name(self) -> &'static str {
        match self {
            Policy::Priority => "priority",
            Policy::Drr => "drr",
            Policy::Wrr => "wrr",
        }
    }
}

/// How one class is served.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Service {
    /// Strict priority: before every shared class and every later priority class.
    Priority,
    /// DRR quantum, bytes of credit per turn (`Policy::Drr`).
    Quantum(u32),
    /// WRR weight, packets per turn (`Policy::Wrr`).
    Weight(u32),
}

/// Counters of one class.
///
/// Identity (`Scheduler::check`): `arrivals = departures + sum(drops) + queued`, and
/// `arrival_bytes = departure_bytes + sum(drop_bytes) + queued bytes`, where "queued" is the
/// class queue's length now.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ClassStats {
    pub arrivals: u64,
    pub arrival_bytes: u64,
    pub departures: u64,
    pub departure_bytes: u64,
    /// By `DropReason::index`; a class queue drops only for `DropReason::QUEUE` reasons.
    pub drops: [u64; N_DROP_REASONS],
    pub drop_bytes: [u64; N_DROP_REASONS],
}

impl ClassStats {
    pub fn total_drops(&self) -> u64 {
        self.drops.iter().sum()
    }

    fn total_drop_bytes(&self) -> u64 {
        self.drop_bytes.iter().sum()
    }
}

/// One class: its code points live in the scheduler's table, its packets in its queue.
#[derive(Debug)]
pub struct Class {
    name: String,
    service: Service,
    queue: AnyQueue,
    /// What the class may still send in its current turn: bytes (DRR) or packets (WRR). Zero
    /// while the class is not in the round robin, and always for priority classes.
    deficit: u64,
    pub stats: ClassStats,
}

impl Class {
    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn service(&self) -> Service {
        self.service
    }

    /// The class's own queue (its AQM state and counters).
    pub fn queue(&self) -> &AnyQueue {
        &self.queue
    }

    /// DRR deficit in bytes, or WRR packets left in this turn.
    pub fn deficit(&self) -> u64 {
        self.deficit
    }

    /// Credit per turn in cost units (bytes for DRR, packets for WRR); `None` for priority.
    fn quantum(&self) -> Option<u64> {
        match self.service {
            Service::Priority => None,
            Service::Quantum(q) | Service::Weight(q) => Some(u64::from(q)),
        }
    }

    /// What sending a packet of `size` bytes costs from the deficit.
    fn cost(&self, size: u32) -> u64 {
        match self.service {
            // Shreedhar & Varghese: the deficit counts bytes.
            Service::Quantum(_) => u64::from(size),
            // WRR in packets: each packet costs one unit of the weight.
            Service::Weight(_) => 1,
            Service::Priority => 0,
        }
    }
}

/// A scheduler over classes, each with its own queue.
#[derive(Debug)]
pub struct Scheduler {
    policy: Policy,
    classes: Vec<Class>,
    /// The class of each code point (unlisted ones: the default class).
    class_of: [u8; 64],
    default: usize,
    /// Priority classes, in service order.
    priority: Vec<usize>,
    /// Backlogged shared classes, in round-robin order; the head is the class whose turn it is
    /// (DRR's ActiveList).
    active: VecDeque<usize>,
    /// The class that gave the last dequeued packet (`tx_ends` goes to its queue).
    last: Option<usize>,
    packets: usize,
    bytes: u64,
}

impl Scheduler {
    /// An empty scheduler for a port of `link_rate_bps`.
    ///
    /// # Panics
    /// If `spec` fails `SchedulerSpec::validate_classes` (the loader checks it first; a spec
    /// built in code must too).
    pub fn new(spec: &SchedulerSpec, link_rate_bps: u64) -> Self {
        if let Err(e) = spec.validate_classes() {
            panic!("invalid scheduler spec: {e}");
        }
        let default = spec
            .classes
            .iter()
            .position(|c| c.default)
            .expect("validated: one default");
        let mut class_of = [default as u8; 64];
        for (i, c) in spec.classes.iter().enumerate() {
            for &d in &c.dscp {
                class_of[usize::from(d)] = i as u8;
            }
        }
        let classes: Vec<Class> = spec
            .classes
            .iter()
            .map(|c| Class {
                name: c.name.clone(),
                service: c.service,
                queue: AnyQueue::from_spec(&c.queue, link_rate_bps),
                deficit: 0,
                stats: ClassStats::default(),
            })
            .collect();
        let priority = (0..classes.len())
            .filter(|&i| classes[i].service == Service::Priority)
            .collect();
        Scheduler {
            policy: spec.policy,
            active: VecDeque::with_capacity(classes.len()),
            classes,
            class_of,
            default,
            priority,
            last: None,
            packets: 0,
            bytes: 0,
        }
    }

    pub fn policy(&self) -> Policy {
        self.policy
    }

    pub fn classes(&self) -> &[Class] {
        &self.classes
    }

    /// The class a code point selects.
    #[inline]
    pub fn class_of(&self, dscp: u8) -> usize {
        // RFC 2474 §3: an unrecognised code point gets the default behaviour.
        self.class_of
            .get(usize::from(dscp))
            .map_or(self.default, |&c| usize::from(c))
    }

    #[inline]
    pub fn enqueue(
        &mut self,
        now: SimTime,
        id: PacketId,
        pool: &mut Pool,
        rng: &mut Rng,
    ) -> Result<(), DropReason> {
        let (dscp, size) = {
            let p = pool.get(id);
            (p.dscp, p.size)
        };
        let c = self.class_of(dscp);
        let class = &mut self.classes[c];
        let was_empty = class.queue.len_packets() == 0;
        let outcome = class.queue.enqueue(now, id, pool, rng);
        let s = &mut class.stats;
        s.arrivals += 1;
        s.arrival_bytes += u64::from(size);
        match outcome {
            Ok(()) => {
                self.packets += 1;
                self.bytes += u64::from(size);
                if was_empty {
                    if let Some(q) = class.quantum() {
                        // sch_drr.c: a class joining the ActiveList starts its turn with one quantum.
                        class.deficit = q;
                        self.active.push_back(c);
                    }
                }
            }
            Err(reason) => {
                s.drops[reason.index()] += 1;
                s.drop_bytes[reason.index()] += u64::from(size);
            }
        }
        outcome
    }

    #[inline]
    pub fn dequeue(&mut self, now: SimTime, pool: &mut Pool) -> Option<PacketId> {
        // Strict priority: the first non-empty priority class, before any shared class.
        if let Some(&c) = self
            .priority
            .iter()
            .find(|&&c| self.classes[c].queue.len_packets() > 0)
        {
            return Some(self.take(c, now, pool));
        }
        loop {
            let &c = self.active.front()?;
            let class = &mut self.classes[c];
            let head = head(&class.queue).expect("a class in the round robin holds packets");
            let cost = class.cost(pool.get(head).size);
            if cost <= class.deficit {
                // Shreedhar & Varghese: send while the head packet fits the deficit.
                class.deficit -= cost;
                let id = self.take(c, now, pool);
                debug_assert_eq!(id, head, "class queues are FIFO");
                let class = &mut self.classes[c];
                if class.queue.len_packets() == 0 {
                    // An emptied class leaves the round robin and keeps no deficit.
                    class.deficit = 0;
                    self.active.pop_front();
                }
                return Some(id);
            }
            // The head does not fit: the turn passes; this class gets its next quantum and
            // waits at the tail.
            class.deficit += class
                .quantum()
                .expect("only shared classes are in the round robin");
            self.active.rotate_left(1);
        }
    }

    /// Takes class `c`'s head packet and counts it.
    #[inline]
    fn take(&mut self, c: usize, now: SimTime, pool: &mut Pool) -> PacketId {
        let class = &mut self.classes[c];
        let id = class
            .queue
            .dequeue(now, pool)
            .expect("the class holds packets");
        let size = u64::from(pool.get(id).size);
        class.stats.departures += 1;
        class.stats.departure_bytes += size;
        self.packets -= 1;
        self.bytes -= size;
        self.last = Some(c);
        id
    }

    /// The port's transmitter will finish the packet just dequeued at `at`: the class queue it
    /// came from is told (RED's idle period starts then).
    #[inline]
    pub fn tx_ends(&mut self, at: SimTime) {
        if let Some(c) = self.last {
            self.classes[c].queue.tx_ends(at);
        }
    }

    /// The packets queued now, class by class in list order, each class head first (not the
    /// order they will leave in).
    pub fn queued(&self) -> impl Iterator<Item = PacketId> + '_ {
        self.classes.iter().flat_map(|c| c.queue.queued())
    }

    /// ECN marks of drop-precedence `level` over the class queues; `None` if no class queue
    /// marks.
    pub fn ecn_marks(&self, level: usize) -> Option<u64> {
        self.classes
            .iter()
            .filter_map(|c| c.queue.ecn_marks(level))
            .reduce(|a, b| a + b)
    }

    /// Forced early drops of `level` over the classes whose queue has an AQM.
    pub fn forced_drops(&self, level: usize) -> Option<u64> {
        self.classes
            .iter()
            .filter_map(|c| c.queue.forced_drops(level))
            .reduce(|a, b| a + b)
    }

    #[inline]
    pub fn len_packets(&self) -> usize {
        self.packets
    }

    #[inline]
    pub fn len_bytes(&self) -> u64 {
        self.bytes
    }

    /// Checks every class's identity (`ClassStats`), that the totals are the sums of the class
    /// queues, and that the round robin holds exactly the backlogged shared classes, once each,
    /// with no deficit kept by a class outside it.
    pub fn check(&self) -> Result<(), String> {
        let (mut packets, mut bytes) = (0usize, 0u64);
        for (i, c) in self.classes.iter().enumerate() {
            let s = &c.stats;
            let (len, len_bytes) = (c.queue.len_packets(), c.queue.len_bytes());
            if s.arrivals != s.departures + s.total_drops() + len as u64 {
                return Err(format!(
                    "class '{}': arrivals != departures + drops + queued ({len}): {s:?}",
                    c.name
                ));
            }
            if s.arrival_bytes != s.departure_bytes + s.total_drop_bytes() + len_bytes {
                return Err(format!(
                    "class '{}': bytes in != out + dropped + queued ({len_bytes}): {s:?}",
                    c.name
                ));
            }
            packets += len;
            bytes += len_bytes;
            let in_rr = self.active.iter().filter(|&&a| a == i).count();
            let should = usize::from(c.quantum().is_some() && len > 0);
            if in_rr != should {
                return Err(format!(
                    "class '{}' ({len} queued) is in the round robin {in_rr} times",
                    c.name
                ));
            }
            if in_rr == 0 && c.deficit != 0 {
                return Err(format!(
                    "class '{}' is idle with a deficit of {}",
                    c.name, c.deficit
                ));
            }
        }
        if (packets, bytes) != (self.packets, self.bytes) {
            return Err(format!(
                "classes hold {packets} packets / {bytes} B, the scheduler counts {} / {}",
                self.packets, self.bytes
            ));
        }
        Ok(())
    }
}

/// The packet a class queue will dequeue next (every class queue is a FIFO).
fn head(q: &AnyQueue) -> Option<PacketId> {
    match q {
        AnyQueue::DropTail(q) => q.queued().front().copied(),
        AnyQueue::Red(q) => q.queued().front().copied(),
        AnyQueue::Rio(q) => q.queued().front().copied(),
        AnyQueue::Wred(q) => q.queued().front().copied(),
        AnyQueue::Scheduler(_) | AnyQueue::Sima(_) => {
            unreachable!(
                "SchedulerSpec::validate_classes rejects schedulers and SIMA queues in classes"
            )
        }
        #[cfg(test)]
        AnyQueue::Leaky(q, ..) => q.queued().front().copied(),
    }
}

// ---- The configuration: what a scenario gives (`scenario::spec` names these types too), and
// the checks `Scheduler::new` relies on.

/// A scheduler across classes on one port (`queue::scheduler` has the model).
///
/// Strict priority above DRR/WRR is expressed per class: under `Policy::Drr` or `Policy::Wrr`
/// a class whose service is `Service::Priority` is served before every shared class, so "EF
/// first, DRR among the rest" is `policy = Drr` with EF's class `Priority` and the others
/// `Quantum`. Under `Policy::Priority` every class is `Priority` and list order is priority
/// order (first = highest).
#[derive(Clone, Debug, PartialEq)]
pub struct SchedulerSpec {
    pub policy: Policy,
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
    pub service: Service,
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
        error: crate::param::ParamError,
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
impl From<SchedulerError> for crate::param::ParamError {
    fn from(e: SchedulerError) -> Self {
        match e {
            SchedulerError::Scheduler { field, message } => {
                crate::param::ParamError::new(field, message)
            }
            SchedulerError::Class {
                class,
                field,
                message,
            } => crate::param::ParamError::new(field, format!("class {class}: {message}")),
            SchedulerError::Queue { class, error } => crate::param::ParamError::new(
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
                        crate::net::dscp::name(d).map_or_else(|| d.to_string(), str::to_string);
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
                } => Err(crate::param::ParamError::new(
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
fn service_mismatch(policy: Policy, service: Service) -> Option<(&'static str, &'static str)> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::dscp::{ColourTable, AF11, AF12, AF13, AF21, BE, EF};
    use crate::net::packet::Packet;
    use crate::queue::red::{Common, Curve};
    use crate::queue::rio::{self, Coupling};
    use crate::scenario::spec::{ClassSpec, Limit, QueueSpec, SchedulerError};
    use crate::sim::rng::stream;

    const RATE: u64 = 10_000_000;

    fn droptail(limit: u32) -> QueueSpec {
        QueueSpec::DropTail {
            limit: Limit::Packets(limit),
        }
    }

    fn class(name: &str, dscp: &[u8], service: Service) -> ClassSpec {
        ClassSpec {
            name: name.into(),
            dscp: dscp.to_vec(),
            default: false,
            service,
            queue: droptail(1000),
        }
    }

    fn default_class(name: &str, service: Service) -> ClassSpec {
        ClassSpec {
            default: true,
            ..class(name, &[], service)
        }
    }

    fn scheduler(policy: Policy, classes: Vec<ClassSpec>) -> Scheduler {
        Scheduler::new(&SchedulerSpec { policy, classes }, RATE)
    }

    /// EF, AF1 and best effort (default) under strict priority.
    fn ef_af_be_priority() -> Scheduler {
        scheduler(
            Policy::Priority,
            vec![
                class("ef", &[EF], Service::Priority),
                class("af1", &[AF11, AF12, AF13], Service::Priority),
                default_class("be", Service::Priority),
            ],
        )
    }

    /// A test bench: a pool, a random stream, and the packets that left.
    struct Bench {
        pool: Pool,
        rng: Rng,
        now: SimTime,
    }

    impl Bench {
        fn new() -> Self {
            Bench {
                pool: Pool::new(),
                rng: stream(1, "q"),
                now: SimTime::ZERO,
            }
        }

        fn offer(&mut self, s: &mut Scheduler, dscp: u8, size: u32) -> Result<(), DropReason> {
            let id = self.pool.alloc(Packet {
                dscp,
                size,
                ..Default::default()
            });
            let r = s.enqueue(self.now, id, &mut self.pool, &mut self.rng);
            if r.is_err() {
                self.pool.free(id);
            }
            r
        }

        fn offer_n(&mut self, s: &mut Scheduler, n: usize, dscp: u8, size: u32) {
            for _ in 0..n {
                self.offer(s, dscp, size).expect("accepted");
            }
        }

        /// Dequeues up to `n` packets; returns their (dscp, size).
        fn serve(&mut self, s: &mut Scheduler, n: usize) -> Vec<(u8, u32)> {
            let mut out = Vec::new();
            for _ in 0..n {
                let Some(id) = s.dequeue(self.now, &mut self.pool) else {
                    break;
                };
                let p = *self.pool.get(id);
                self.pool.free(id);
                out.push((p.dscp, p.size));
            }
            out
        }
    }

    fn bytes_of(out: &[(u8, u32)], dscp: u8) -> u64 {
        out.iter()
            .filter(|p| p.0 == dscp)
            .map(|p| u64::from(p.1))
            .sum()
    }

    fn packets_of(out: &[(u8, u32)], dscp: u8) -> usize {
        out.iter().filter(|p| p.0 == dscp).count()
    }

    #[test]
    fn unlisted_code_points_go_to_the_default_class() {
        let s = ef_af_be_priority();
        assert_eq!(s.class_of(EF), 0);
        assert_eq!(s.class_of(AF12), 1);
        assert_eq!(s.class_of(BE), 2);
        assert_eq!(s.class_of(AF21), 2, "AF2 is listed nowhere");
        assert_eq!(s.class_of(200), 2, "out of range never panics");
    }

    #[test]
    fn strict_priority_serves_ef_first_whatever_arrived_earlier() {
        let mut s = ef_af_be_priority();
        let mut b = Bench::new();
        b.offer_n(&mut s, 3, BE, 1000);
        b.offer_n(&mut s, 2, AF11, 1000);
        b.offer_n(&mut s, 2, EF, 200);
        let out = b.serve(&mut s, 10);
        let order: Vec<u8> = out.iter().map(|p| p.0).collect();
        assert_eq!(order, [EF, EF, AF11, AF11, BE, BE, BE]);
        s.check().unwrap();
    }

    #[test]
    fn strict_priority_starves_lower_classes_while_ef_is_backlogged() {
        let mut s = ef_af_be_priority();
        let mut b = Bench::new();
        b.offer_n(&mut s, 10, BE, 1000);
        b.offer_n(&mut s, 10, AF11, 1000);
        // EF keeps arriving one packet per departure: nothing else ever leaves.
        b.offer(&mut s, EF, 200).unwrap();
        for _ in 0..100 {
            b.offer(&mut s, EF, 200).unwrap();
            assert_eq!(b.serve(&mut s, 1), [(EF, 200)]);
        }
        assert_eq!(
            s.classes()[1].stats.departures + s.classes()[2].stats.departures,
            0
        );
        s.check().unwrap();
    }

    /// Two backlogged classes, equal quanta of 1500 B, one sending 500 B packets and the other
    /// 1500 B packets: each round gives both 1500 B, so the bytes served never differ by more
    /// than a quantum (Shreedhar & Varghese's fairness bound), though the packet counts are 3:1.
    #[test]
    fn drr_equal_quanta_share_bytes_equally_with_unequal_packet_sizes() {
        let mut s = scheduler(
            Policy::Drr,
            vec![
                class("small", &[AF11], Service::Quantum(1500)),
                default_class("big", Service::Quantum(1500)),
            ],
        );
        let mut b = Bench::new();
        b.offer_n(&mut s, 600, AF11, 500);
        b.offer_n(&mut s, 200, BE, 1500);
        let mut out = Vec::new();
        for _ in 0..400 {
            out.extend(b.serve(&mut s, 1));
            let gap = bytes_of(&out, AF11).abs_diff(bytes_of(&out, BE));
            assert!(
                gap <= 1500,
                "after {} packets the byte gap is {gap}",
                out.len()
            );
        }
        assert_eq!(bytes_of(&out, AF11), bytes_of(&out, BE));
        assert_eq!(packets_of(&out, AF11), 3 * packets_of(&out, BE));
        s.check().unwrap();
    }

    #[test]
    fn drr_shares_bytes_in_proportion_to_quanta() {
        let mut s = scheduler(
            Policy::Drr,
            vec![
                class("af1", &[AF11], Service::Quantum(3000)),
                class("af2", &[AF21], Service::Quantum(1500)),
                default_class("be", Service::Quantum(1500)),
            ],
        );
        let mut b = Bench::new();
        b.offer_n(&mut s, 900, AF11, 500);
        b.offer_n(&mut s, 300, AF21, 1000);
        b.offer_n(&mut s, 300, BE, 1500);
        // a round is 3000 + 1500 + 1500 bytes: 6 + 1.5 + 1 packets on average; serve 100 rounds
        let out = b.serve(&mut s, 850);
        let (a1, a2, be) = (
            bytes_of(&out, AF11) as f64,
            bytes_of(&out, AF21) as f64,
            bytes_of(&out, BE) as f64,
        );
        assert!((a1 / a2 - 2.0).abs() < 0.05, "af1 {a1} af2 {a2}");
        assert!((a2 / be - 1.0).abs() < 0.05, "af2 {a2} be {be}");
        s.check().unwrap();
    }

    #[test]
    fn drr_head_larger_than_the_quantum_waits_for_enough_rounds() {
        let mut s = scheduler(
            Policy::Drr,
            vec![
                class("jumbo", &[AF11], Service::Quantum(500)),
                default_class("be", Service::Quantum(500)),
            ],
        );
        let mut b = Bench::new();
        b.offer_n(&mut s, 1, AF11, 1500);
        b.offer_n(&mut s, 10, BE, 500);
        let order: Vec<u8> = b.serve(&mut s, 11).iter().map(|p| p.0).collect();
        // the jumbo class needs three quanta; best effort sends one 500 B packet per turn meanwhile
        assert_eq!(&order[..3], [BE, BE, AF11]);
        s.check().unwrap();
    }

    #[test]
    fn wrr_shares_packets_by_weight_whatever_their_size() {
        let mut s = scheduler(
            Policy::Wrr,
            vec![
                class("af1", &[AF11], Service::Weight(3)),
                default_class("be", Service::Weight(1)),
            ],
        );
        let mut b = Bench::new();
        b.offer_n(&mut s, 100, AF11, 1500);
        b.offer_n(&mut s, 100, BE, 40);
        let out = b.serve(&mut s, 80);
        let order: Vec<u8> = out.iter().map(|p| p.0).take(8).collect();
        assert_eq!(
            order,
            [AF11, AF11, AF11, BE, AF11, AF11, AF11, BE],
            "3 then 1 per round"
        );
        assert_eq!((packets_of(&out, AF11), packets_of(&out, BE)), (60, 20));
        s.check().unwrap();
    }

    #[test]
    fn a_class_that_empties_keeps_no_deficit() {
        let mut s = scheduler(
            Policy::Drr,
            vec![
                class("af1", &[AF11], Service::Quantum(1500)),
                default_class("be", Service::Quantum(1500)),
            ],
        );
        let mut b = Bench::new();
        // af1 sends one 100 B packet out of its 1500 B quantum, then empties
        b.offer_n(&mut s, 1, AF11, 100);
        b.offer_n(&mut s, 20, BE, 1500);
        assert_eq!(b.serve(&mut s, 1), [(AF11, 100)]);
        assert_eq!(s.classes()[0].deficit(), 0, "1400 B unused is forfeited");
        s.check().unwrap();
        // be now takes its turn; af1 comes back with exactly one quantum, not 1400 + 1500
        assert_eq!(b.serve(&mut s, 1), [(BE, 1500)]);
        b.offer_n(&mut s, 10, AF11, 500);
        assert_eq!(s.classes()[0].deficit(), 1500);
        let order: Vec<u8> = b.serve(&mut s, 6).iter().map(|p| p.0).collect();
        // be's first turn had one quantum (one packet); then af1 three 500 B packets, be one ...
        assert_eq!(order, [AF11, AF11, AF11, BE, AF11, AF11]);
        s.check().unwrap();
    }

    #[test]
    fn priority_class_above_drr_goes_first_and_the_rest_share_by_quanta() {
        let mut s = scheduler(
            Policy::Drr,
            vec![
                class("ef", &[EF], Service::Priority),
                class("af1", &[AF11, AF12, AF13], Service::Quantum(1500)),
                default_class("be", Service::Quantum(1500)),
            ],
        );
        let mut b = Bench::new();
        b.offer_n(&mut s, 20, AF11, 1500);
        b.offer_n(&mut s, 20, BE, 1500);
        assert_eq!(b.serve(&mut s, 2), [(AF11, 1500), (BE, 1500)]);
        b.offer_n(&mut s, 2, EF, 200);
        assert_eq!(
            b.serve(&mut s, 2),
            [(EF, 200), (EF, 200)],
            "EF overtakes the round robin"
        );
        assert_eq!(
            s.classes()[0].deficit(),
            0,
            "priority classes have no deficit"
        );
        let out = b.serve(&mut s, 10);
        assert_eq!((packets_of(&out, AF11), packets_of(&out, BE)), (5, 5));
        s.check().unwrap();
    }

    fn rio_queue() -> QueueSpec {
        let mut common = Common::new(RATE, Limit::Packets(200));
        common.w_q = 0.02;
        QueueSpec::Rio(
            rio::Params {
                in_curve: Curve {
                    min_th: 40.0,
                    max_th: 70.0,
                    max_p: 0.02,
                },
                out_curve: Curve {
                    min_th: 10.0,
                    max_th: 30.0,
                    max_p: 0.1,
                },
                coupling: Coupling::Coupled,
                common,
            },
            ColourTable::rfc2597(),
        )
    }

    #[test]
    fn rio_inside_a_drr_class_still_drops_out_before_in() {
        let af1 = ClassSpec {
            queue: rio_queue(),
            ..class("af1", &[AF11, AF12, AF13], Service::Quantum(1500))
        };
        let mut s = scheduler(
            Policy::Drr,
            vec![af1, default_class("be", Service::Quantum(1500))],
        );
        let mut b = Bench::new();
        b.offer_n(&mut s, 50, BE, 1000);
        // One AF1 arrival per step, one IN (AF11) for two OUT (AF12); the link serves one packet
        // per step and best effort stays backlogged, so AF1's equal DRR share drains half an
        // arrival per step: IN (1/3) fits, OUT (2/3) must lose three quarters.
        let (mut dropped_in, mut dropped_out) = (0, 0);
        for i in 0..6000u64 {
            b.now = SimTime(i * 400_000);
            let dscp = if i % 3 == 0 { AF11 } else { AF12 };
            if b.offer(&mut s, dscp, 1000).is_err() {
                *if dscp == AF11 {
                    &mut dropped_in
                } else {
                    &mut dropped_out
                } += 1;
            }
            if s.classes()[1].queue().len_packets() < 10 {
                b.offer_n(&mut s, 10, BE, 1000);
            }
            b.serve(&mut s, 1);
        }
        assert!(dropped_out > 2000, "OUT absorbs the excess: {dropped_out}");
        assert!(
            dropped_in * 10 < dropped_out,
            "IN {dropped_in} vs OUT {dropped_out}"
        );
        let AnyQueue::Rio(q) = s.classes()[0].queue() else {
            panic!("af1 runs RIO")
        };
        q.check_conservation().unwrap();
        let af1 = &s.classes()[0].stats;
        assert_eq!(af1.total_drops(), dropped_in + dropped_out);
        assert_eq!(
            af1.drops[DropReason::Overflow.index()],
            0,
            "RIO dropped early, never at the limit"
        );
        s.check().unwrap();
    }

    #[test]
    fn counters_identities_hold_with_drops_in_every_class() {
        let tiny = |c: ClassSpec| ClassSpec {
            queue: QueueSpec::DropTail {
                limit: Limit::Packets(5),
            },
            ..c
        };
        let mut s = scheduler(
            Policy::Drr,
            vec![
                tiny(class("ef", &[EF], Service::Priority)),
                tiny(class("af1", &[AF11], Service::Quantum(700))),
                tiny(default_class("be", Service::Quantum(300))),
            ],
        );
        let mut b = Bench::new();
        let mut rng = stream(7, "test/mix");
        let dscps = [EF, AF11, BE, AF21];
        let mut accepted = 0u64;
        for _ in 0..2000 {
            let d = dscps[(rng.uniform() * 4.0) as usize % 4];
            let size = 40 + (rng.uniform() * 1460.0) as u32;
            accepted += u64::from(b.offer(&mut s, d, size).is_ok());
            // each class offers 1/4 (best effort 1/2) per step, more than the 1/5 served
            if rng.uniform() < 0.2 {
                b.serve(&mut s, 1);
            }
            s.check().unwrap();
        }
        let total =
            |f: fn(&ClassStats) -> u64| s.classes().iter().map(|c| f(&c.stats)).sum::<u64>();
        assert_eq!(total(|c| c.arrivals), 2000);
        assert_eq!(
            total(|c| c.arrivals) - total(ClassStats::total_drops),
            accepted
        );
        assert!(
            s.classes().iter().all(|c| c.stats.total_drops() > 0),
            "every class overflowed"
        );
    }

    #[test]
    fn queued_lists_exactly_the_packets_accepted_and_not_yet_served() {
        let mut s = scheduler(
            Policy::Drr,
            vec![
                ClassSpec {
                    queue: droptail(3),
                    ..class("ef", &[EF], Service::Priority)
                },
                class("af1", &[AF11], Service::Quantum(1000)),
                default_class("be", Service::Quantum(1000)),
            ],
        );
        let mut b = Bench::new();
        let mut held = std::collections::BTreeSet::new();
        for i in 0..60u32 {
            let dscp = [EF, AF11, BE][(i % 3) as usize];
            let id = b.pool.alloc(Packet {
                dscp,
                size: 100 + 10 * i,
                ..Default::default()
            });
            match s.enqueue(b.now, id, &mut b.pool, &mut b.rng) {
                Ok(()) => assert!(held.insert(id)),
                Err(_) => b.pool.free(id),
            }
            if i % 4 == 0 {
                let id = s.dequeue(b.now, &mut b.pool).unwrap();
                assert!(held.remove(&id), "a dequeued packet was queued");
                b.pool.free(id);
            }
        }
        let listed: std::collections::BTreeSet<PacketId> = s.queued().collect();
        assert_eq!(listed.len(), s.len_packets(), "no packet listed twice");
        assert_eq!(listed, held);
        assert_eq!(
            s.len_bytes(),
            listed
                .iter()
                .map(|&id| u64::from(b.pool.get(id).size))
                .sum::<u64>()
        );
        assert!(
            s.classes()[0].stats.total_drops() > 0,
            "the EF queue overflowed"
        );
    }

    #[test]
    fn through_any_queue_the_scheduler_dispatches_and_lists_its_packets() {
        let spec = SchedulerSpec {
            policy: Policy::Priority,
            classes: vec![
                class("ef", &[EF], Service::Priority),
                default_class("be", Service::Priority),
            ],
        };
        let mut q = AnyQueue::from_spec(&QueueSpec::Scheduler(spec), RATE);
        let mut b = Bench::new();
        for dscp in [BE, EF] {
            let id = b.pool.alloc(Packet {
                dscp,
                size: 100,
                ..Default::default()
            });
            q.enqueue(b.now, id, &mut b.pool, &mut b.rng).unwrap();
        }
        assert_eq!(q.kind(), "scheduler");
        assert_eq!((q.len_packets(), q.len_bytes()), (2, 200));
        assert_eq!(q.queued().count(), 2);
        assert_eq!(q.ecn_marks(0), None, "drop-tail classes never mark");
        let first = q.dequeue(b.now, &mut b.pool).unwrap();
        assert_eq!(b.pool.get(first).dscp, EF);
        q.tx_ends(SimTime(1000));
    }

    fn valid() -> SchedulerSpec {
        SchedulerSpec {
            policy: Policy::Drr,
            classes: vec![
                class("ef", &[EF], Service::Priority),
                class("af1", &[AF11, AF12, AF13], Service::Quantum(1500)),
                default_class("be", Service::Quantum(1500)),
            ],
        }
    }

    fn invalid(tweak: impl FnOnce(&mut SchedulerSpec)) -> SchedulerError {
        let mut s = valid();
        tweak(&mut s);
        s.validate().expect_err("should be rejected")
    }

    fn class_field(e: &SchedulerError) -> (usize, &'static str) {
        match e {
            SchedulerError::Class { class, field, .. } => (*class, field),
            other => panic!("not a class error: {other}"),
        }
    }

    #[test]
    fn validate_accepts_ef_over_drr() {
        valid().validate().unwrap();
    }

    #[test]
    fn validate_rejects_no_class_and_a_missing_or_second_default() {
        assert!(matches!(
            invalid(|s| s.classes.clear()),
            SchedulerError::Scheduler {
                field: "classes",
                ..
            }
        ));
        let e = invalid(|s| s.classes[2] = class("be", &[BE], Service::Quantum(1500)));
        assert!(e.to_string().contains("default"), "{e}");
        assert_eq!(
            class_field(&invalid(|s| s.classes[1].default = true)),
            (2, "default")
        );
    }

    #[test]
    fn validate_rejects_a_code_point_in_two_classes_and_non_6_bit_ones() {
        let e = invalid(|s| s.classes[2].dscp = vec![BE, AF12]);
        assert_eq!(class_field(&e), (2, "dscp"));
        assert!(
            e.to_string().contains("AF12 is already in class 'af1'"),
            "{e}"
        );
        assert_eq!(
            class_field(&invalid(|s| s.classes[0].dscp.push(64))),
            (0, "dscp")
        );
        assert_eq!(
            class_field(&invalid(|s| s.classes[1].dscp.clear())),
            (1, "dscp")
        );
    }

    #[test]
    fn validate_rejects_zero_shares_and_shares_of_the_wrong_policy() {
        assert_eq!(
            class_field(&invalid(|s| s.classes[1].service = Service::Quantum(0))),
            (1, "quantum")
        );
        assert_eq!(
            class_field(&invalid(|s| s.classes[1].service = Service::Weight(2))),
            (1, "weight")
        );
        let e = invalid(|s| s.policy = Policy::Wrr);
        assert_eq!(class_field(&e), (1, "quantum"));
        let e = invalid(|s| {
            s.policy = Policy::Wrr;
            s.classes[1].service = Service::Weight(0);
            s.classes[2].service = Service::Weight(1);
        });
        assert_eq!(class_field(&e), (1, "weight"));
        assert_eq!(
            class_field(&invalid(|s| s.policy = Policy::Priority)),
            (1, "quantum")
        );
    }

    #[test]
    fn validate_rejects_duplicate_names_and_nested_schedulers() {
        assert_eq!(
            class_field(&invalid(|s| s.classes[1].name = "ef".into())),
            (1, "name")
        );
        let e = invalid(|s| s.classes[2].queue = QueueSpec::Scheduler(valid()));
        assert_eq!(class_field(&e), (2, "queue"));
    }

    #[test]
    fn validate_checks_the_class_queues_own_parameters_after_the_link_rate_is_set() {
        let mut s = valid();
        let mut q = rio_queue();
        if let QueueSpec::Rio(p, _) = &mut q {
            p.common.link_rate_bps = 0; // as the loader leaves it before the link is read
        }
        s.classes[1].queue = q;
        assert!(matches!(
            s.validate(),
            Err(SchedulerError::Queue { class: 1, .. })
        ));
        s.set_link_rate(RATE);
        s.validate().unwrap();
        if let QueueSpec::Rio(p, _) = &mut s.classes[1].queue {
            p.out_curve.max_p = 2.0;
        }
        let e = s.validate().unwrap_err();
        assert!(e.to_string().starts_with("classes[1].queue.out"), "{e}");
        let flat: crate::param::ParamError = e.into();
        assert_eq!(flat.field, "out");
    }

    #[test]
    #[should_panic(expected = "invalid scheduler spec")]
    fn building_an_invalid_spec_fails_loudly() {
        let mut s = valid();
        s.classes[0].default = true;
        Scheduler::new(&s, RATE);
    }
}
