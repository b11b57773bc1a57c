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
mod tests;
