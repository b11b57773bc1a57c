//! An edge traffic conditioner: classifier, meter, and an action per colour.
//!
//! Read this first: RFC 2475 §2.3.3 — "a traffic conditioner may contain the following
//! elements: meter, marker, shaper, and dropper"; §2.3.1 — a classifier selects the packets it
//! conditions. Here a conditioner sits on one input line of a node (Giacomazzi et al. §III.A:
//! "a conditioner for each input line"), or on every packet a node forwards. A packet the
//! classifier selects is metered (one meter for the aggregate, or one per flow); its colour's
//! action keeps it, re-marks its DSCP, downgrades it to best effort, drops it (policing), or
//! holds it in the conditioner's FIFO until the token bucket says it conforms (shaping).
//! Packets behind a held packet wait too, so a conditioner never reorders a flow.
//!
//! A SIMA meter (`edge::sima`, Laatu et al. §2) is a marker: it writes the packet's drop
//! precedence into its code point and forwards it; the per-colour actions do not apply. The
//! conditioner counts the drop precedences it gave each flow's packets, and may trace them.
//!
//! Not modelled: shaping with meters other than the single-rate token bucket (the scenario
//! loader rejects it); per-class queues inside the shaper.

use std::collections::VecDeque;

use self::classify::{Classifier, FlowMap};
pub use self::classify::{FlowSets, DENSE_FLOWS};
use super::enhanced_token_bucket::{Decision, EnhancedTokenBucket};
use super::sima;
use super::srtcm::Srtcm;
use super::token_bucket::TokenBucket;
use super::trtcm::Trtcm;
use super::tsw::{Tsw2cm, Tsw3cm};
use super::{MarkerStats, PerColourAction, Rewrite};
use crate::net::dscp::{Colour, ColourTable};
use crate::net::packet::{Packet, PacketId, Pool};
use crate::queue::DropReason;
use crate::sim::rng::Rng;
use crate::sim::time::SimTime;

/// One meter, any kind.
#[derive(Clone, Debug)]
pub enum Meter {
    TokenBucket(TokenBucket),
    Srtcm(Srtcm),
    Trtcm(Trtcm),
    Tsw2cm(Tsw2cm),
    Tsw3cm(Tsw3cm),
    Etb(EnhancedTokenBucket),
    Sima(sima::Marker),
}

impl Meter {
    /// A meter with full buckets at `now` (RFC 2697 §3, RFC 2698 §3: buckets start full).
    pub fn new(spec: &MeterSpec, now: SimTime) -> Meter {
        match spec {
            MeterSpec::TokenBucket(p) => Meter::TokenBucket(TokenBucket::new(*p, now)),
            MeterSpec::Srtcm(p) => Meter::Srtcm(Srtcm::new(*p, now)),
            MeterSpec::Trtcm(p) => Meter::Trtcm(Trtcm::new(*p, now)),
            MeterSpec::Tsw2cm(p) => Meter::Tsw2cm(Tsw2cm::new(*p, now)),
            MeterSpec::Tsw3cm(p) => Meter::Tsw3cm(Tsw3cm::new(*p, now)),
            MeterSpec::EnhancedTokenBucket(p) => Meter::Etb(EnhancedTokenBucket::new(*p, now)),
            MeterSpec::Sima(p) => Meter::Sima(sima::Marker::new(*p, now)),
        }
    }

    /// Colours a packet of `size` bytes with code point `dscp`; its pre-colour (`colours`'
    /// reading of `dscp`) is looked up only by the meters that use it, the colour-aware ones.
    #[inline]
    pub fn colour(
        &mut self,
        now: SimTime,
        size: u32,
        dscp: u8,
        colours: &ColourTable,
        rng: &mut Rng,
    ) -> Colour {
        match self {
            Meter::TokenBucket(m) => m.mark(now, size),
            Meter::Srtcm(m) => m.mark(now, size, colours.colour(dscp)),
            Meter::Trtcm(m) => m.mark(now, size, colours.colour(dscp)),
            Meter::Tsw2cm(m) => m.mark(now, size, rng),
            Meter::Tsw3cm(m) => m.mark(now, size, rng),
            // the conditioner offers a packet only once `decide` said it need not wait
            Meter::Etb(m) => m
                .serve(now, size)
                .colour()
                .expect("served only when a token is there"),
            // (the conditioner marks SIMA packets itself, in `apply`)
            Meter::Sima(m) => sima::colour(m.mark(now, size).dp),
        }
    }

    pub fn stats(&self) -> &MarkerStats {
        match self {
            Meter::TokenBucket(m) => &m.stats,
            Meter::Srtcm(m) => &m.stats,
            Meter::Trtcm(m) => &m.stats,
            Meter::Tsw2cm(m) => &m.stats,
            Meter::Tsw3cm(m) => &m.stats,
            Meter::Etb(m) => &m.stats,
            Meter::Sima(m) => &m.stats,
        }
    }

    pub fn kind(&self) -> &'static str {
        match self {
            Meter::TokenBucket(_) => "token_bucket",
            Meter::Srtcm(_) => "srtcm",
            Meter::Trtcm(_) => "trtcm",
            Meter::Tsw2cm(_) => "tsw2cm",
            Meter::Tsw3cm(_) => "tsw3cm",
            Meter::Etb(_) => "enhanced_token_bucket",
            Meter::Sima(_) => "sima",
        }
    }
}

/// The committed (contracted) rate of a meter spec, bits/s: what Respect of Service and excess
/// bandwidth are measured against.
pub fn committed_rate_bps(spec: &MeterSpec) -> u64 {
    match spec {
        MeterSpec::TokenBucket(p) => p.rate_bps,
        MeterSpec::Srtcm(p) => p.cir_bps,
        MeterSpec::Trtcm(p) => p.cir_bps,
        MeterSpec::Tsw2cm(p) => p.target_bps,
        MeterSpec::Tsw3cm(p) => p.ctr_bps,
        MeterSpec::EnhancedTokenBucket(p) => p.rate_bps,
        MeterSpec::Sima(p) => p.nbr_bps,
    }
}

/// What happened to a packet offered to a conditioner.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Not selected by the classifier: the next conditioner (or forwarding) gets it.
    NotMatched,
    /// Forward it now (its DSCP may have been rewritten).
    Forward,
    /// The conditioner holds it; `Conditioner::release` hands it back later.
    Held,
    /// Drop it, for this reason.
    Drop(DropReason),
}

/// Counters of one conditioner.
///
/// Identity: `matched = forwarded + dropped_policed + dropped_buffer + held`, where `forwarded`
/// counts packets that left (at once or after being held).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ConditionerStats {
    pub matched: u64,
    pub forwarded: u64,
    pub dropped_policed: u64,
    pub dropped_buffer: u64,
    pub max_held: u64,
    /// Packets and bytes that left green (conformant), after the warm-up time.
    pub green_bytes_measured: u64,
}

/// A traffic conditioner (see the module header).
#[derive(Debug)]
pub struct Conditioner {
    pub name: String,
    /// The node it sits at.
    pub node: u32,
    classifier: Classifier,
    meter_spec: MeterSpec,
    /// The aggregate meter, or per-flow meters created on a flow's first packet.
    meters: Vec<Meter>,
    /// Per flow seen (local index, `seen_flows`' order): index into `meters`, or `u32::MAX`
    /// (per-flow mode only).
    slot: Vec<u32>,
    per_flow: bool,
    /// The action of each colour (index `Colour::index()`), as a code point rewrite.
    actions: [Rewrite; 3],
    shaping: bool,
    held: VecDeque<PacketId>,
    limit: u32,
    /// Colours of arriving packets, for colour-aware meters.
    colours: ColourTable,
    rng: Rng,
    warmup: SimTime,
    /// The instant a wake-up event is scheduled for, if any.
    pub wake_at: Option<SimTime>,
    pub stats: ConditionerStats,
    /// Flow index → local index (the flow's place in `seen_flows`) of the flows seen: the
    /// per-flow counters below are sized by the flows that passed, not by the scenario's flows
    /// (issue 28).
    local: FlowMap,
    /// Per flow seen (local index): bytes that left green after the warm-up time (`green_of`).
    green_by_flow: Vec<u64>,
    /// Distinct flows seen, and which, in the order first seen (the local indices' order).
    pub flows_seen: u32,
    pub seen_flows: Vec<u32>,
    /// The meter is SIMA's: it marks, and the actions do not apply.
    is_sima: bool,
    /// SIMA meter only: per flow seen (local index), the packets marked with each drop
    /// precedence (`dp_of`).
    dp_by_flow: Vec<[u64; sima::LEVELS]>,
    /// SIMA meter with `trace`: every packet marked.
    pub dp_trace: Option<DpTrace>,
    /// The common case, metered by `offer_simple` (`conditioner/simple.rs`): a classifier
    /// without criteria, one aggregate token bucket (colour-blind), no shaping.
    simple: bool,
    /// The flow of the last packet `offer_simple` metered, and its local index (`u64::MAX`,
    /// which no `u32` flow index equals: none yet).
    last_flow: (u64, u32),
}

/// The drop precedence and measured rate of every packet a SIMA conditioner marked, in order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DpTrace {
    pub time_s: Vec<f64>,
    /// Flow index (into the scenario's flows).
    pub flow: Vec<u32>,
    pub dp: Vec<u8>,
    pub mbr_bps: Vec<f64>,
}

impl Conditioner {
    pub fn new(
        spec: &ConditionerSpec,
        n_flows: usize,
        colours: &ColourTable,
        rng: Rng,
        warmup: SimTime,
    ) -> Self {
        Self::new_shared(
            spec,
            n_flows,
            colours,
            rng,
            warmup,
            &mut FlowSets::default(),
        )
    }

    /// `new`, the classifier's flow set taken from `sets` when the conditioner made before
    /// it had the same list.
    pub fn new_shared(
        spec: &ConditionerSpec,
        n_flows: usize,
        colours: &ColourTable,
        rng: Rng,
        warmup: SimTime,
        sets: &mut FlowSets,
    ) -> Self {
        let sima = match spec.meter {
            MeterSpec::Sima(p) => Some(p),
            _ => None,
        };
        // the enhanced token bucket always holds what it cannot serve (its input buffer)
        let shaping = spec.actions.contains(&PerColourAction::Shape)
            || matches!(spec.meter, MeterSpec::EnhancedTokenBucket(_));
        debug_assert!(
            !shaping
                || matches!(
                    spec.meter,
                    MeterSpec::TokenBucket(_) | MeterSpec::EnhancedTokenBucket(_)
                ),
            "shaping needs a token bucket meter (the loader checks this)"
        );
        Conditioner {
            name: spec.name.clone(),
            node: spec.node as u32,
            classifier: Classifier::new(&spec.classifier, n_flows, sets),
            meters: if spec.per_flow {
                Vec::new()
            } else {
                vec![Meter::new(&spec.meter, SimTime::ZERO)]
            },
            slot: Vec::new(),
            meter_spec: spec.meter.clone(),
            per_flow: spec.per_flow,
            // a SIMA marker has no actions: the code point it wrote is the outcome
            actions: if sima.is_some() {
                [PerColourAction::Keep.rewrite(); 3]
            } else {
                spec.actions.map(PerColourAction::rewrite)
            },
            shaping,
            held: VecDeque::new(),
            limit: spec.buffer_packets,
            colours: colours.clone(),
            rng,
            warmup,
            wake_at: None,
            stats: ConditionerStats::default(),
            local: FlowMap::new(n_flows),
            green_by_flow: Vec::new(),
            flows_seen: 0,
            seen_flows: Vec::new(),
            is_sima: sima.is_some(),
            dp_by_flow: Vec::new(),
            dp_trace: sima.filter(|p| p.trace).map(|_| DpTrace::default()),
            simple: simple::is_simple(spec, shaping),
            last_flow: (u64::MAX, u32::MAX),
        }
    }

    /// Whether this conditioner meters `flow` on its own: a per-flow meter, or the only flow
    /// its aggregate meter ever saw. Then the meter's rate is that flow's contract.
    pub fn meters_alone(&self, flow: usize) -> bool {
        self.seen(flow) && (self.per_flow || self.flows_seen == 1)
    }

    /// Whether a packet of `flow` passed the classifier.
    pub fn seen(&self, flow: usize) -> bool {
        u32::try_from(flow).is_ok_and(|f| self.local.peek(f).is_some())
    }

    /// Bytes of `flow` that left green after the warm-up time (0 for a flow not seen).
    pub fn green_of(&self, flow: usize) -> u64 {
        self.local_of(flow).map_or(0, |i| self.green_by_flow[i])
    }

    /// SIMA meter: the packets of `flow` marked with each drop precedence (zeros for a flow
    /// not seen, or another meter).
    pub fn dp_of(&self, flow: usize) -> [u64; sima::LEVELS] {
        self.local_of(flow)
            .and_then(|i| self.dp_by_flow.get(i).copied())
            .unwrap_or_default()
    }

    fn local_of(&self, flow: usize) -> Option<usize> {
        let f = u32::try_from(flow).ok()?;
        self.local.peek(f).map(|i| i as usize)
    }

    /// The local index of a flow already seen (`offer` added it).
    #[inline]
    fn local_index(&mut self, flow: u32) -> usize {
        let Some(i) = self.local.get(flow) else {
            unreachable!("a conditioner meters only flows its `offer` has seen")
        };
        i as usize
    }

    /// The meter of the flow of local index `local` (a per-flow meter is made at its flow's
    /// first metered packet).
    #[inline(always)]
    fn meter_index(&mut self, local: usize, now: SimTime) -> usize {
        if !self.per_flow {
            return 0;
        }
        match self.slot[local] {
            u32::MAX => self.add_meter(local, now),
            s => s as usize,
        }
    }

    /// Makes the per-flow meter of the flow of local index `local` (its first metered packet).
    #[cold]
    #[inline(never)]
    fn add_meter(&mut self, local: usize, now: SimTime) -> usize {
        let m = self.meters.len();
        self.slot[local] = m as u32;
        self.meters.push(Meter::new(&self.meter_spec, now));
        m
    }

    /// Adds `flow`, not seen before, to the flows seen; returns its local index.
    #[cold]
    #[inline(never)]
    fn add_flow(&mut self, flow: u32) -> usize {
        let i = self.flows_seen;
        self.local.insert(flow, i);
        self.flows_seen += 1;
        self.seen_flows.push(flow);
        self.green_by_flow.push(0);
        if self.per_flow {
            self.slot.push(u32::MAX);
        }
        if self.is_sima {
            self.dp_by_flow.push([0; sima::LEVELS]);
        }
        i as usize
    }

    /// Offers a packet arriving at `now`.
    #[inline]
    pub fn offer(&mut self, now: SimTime, id: PacketId, pool: &mut Pool) -> Outcome {
        if self.simple {
            return self.offer_simple(now, id, pool);
        }
        self.offer_general(now, id, pool)
    }

    /// `offer` for a conditioner that is not `simple`. Out of line (issue 25): inlined, its
    /// flow map's hashing constants and the classifier's set-up were loaded before every
    /// conditioner's offer, the simple path's too.
    #[inline(never)]
    fn offer_general(&mut self, now: SimTime, id: PacketId, pool: &mut Pool) -> Outcome {
        let p = pool.get(id);
        if !self.classifier.matches(p) {
            return Outcome::NotMatched;
        }
        self.stats.matched += 1;
        let local = match self.local.get(p.flow) {
            Some(i) => i as usize,
            None => self.add_flow(p.flow),
        };
        if self.shaping {
            // no overtaking: behind a held packet, every packet waits its turn
            if !self.held.is_empty() || !self.conforms_now(now, p, local) {
                return self.hold(id);
            }
        }
        self.apply(now, id, pool, local)
    }

    /// Whether the token bucket would colour this packet green now (shaping mode).
    fn conforms_now(&mut self, now: SimTime, p: &Packet, local: usize) -> bool {
        let m = self.meter_index(local, now);
        match &self.meters[m] {
            Meter::TokenBucket(tb) => tb.next_conformant(now, p.size).is_some_and(|t| t <= now),
            Meter::Etb(etb) => etb.decide(now, p.size) != Decision::Wait,
            _ => true,
        }
    }

    fn hold(&mut self, id: PacketId) -> Outcome {
        if self.held.len() >= self.limit as usize {
            self.stats.dropped_buffer += 1;
            return Outcome::Drop(DropReason::EdgeBuffer);
        }
        self.held.push_back(id);
        self.stats.max_held = self.stats.max_held.max(self.held.len() as u64);
        Outcome::Held
    }

    /// Meters the packet (of the flow of local index `local`) and applies its colour's action.
    #[inline(always)]
    fn apply(&mut self, now: SimTime, id: PacketId, pool: &mut Pool, local: usize) -> Outcome {
        let p = pool.get_mut(id);
        let m = self.meter_index(local, now);
        debug_assert!(m < self.meters.len());
        // SAFETY: `meter_index` returns 0 for an aggregate conditioner, made with its one meter,
        // or a per-flow slot's value, `meters.len()` when its meter was pushed (none removed)
        let colour = match unsafe { self.meters.get_unchecked_mut(m) } {
            // (the common meter, inlined here rather than through `Meter::colour`)
            Meter::TokenBucket(tb) => tb.mark(now, p.size),
            Meter::Sima(marker) => {
                // Laatu et al. §2: the access node marks the DSCP with the packet's class and DP
                let mark = marker.mark(now, p.size);
                p.dscp = marker.code_point(mark.dp);
                self.dp_by_flow[local][usize::from(mark.dp)] += 1;
                if let Some(t) = &mut self.dp_trace {
                    t.time_s.push(now.as_secs_f64());
                    t.flow.push(p.flow);
                    t.dp.push(mark.dp);
                    t.mbr_bps.push(mark.mbr_bps);
                }
                sima::colour(mark.dp)
            }
            meter => meter.colour(now, p.size, p.dscp, &self.colours, &mut self.rng),
        };
        self.act_on_colour(now, p, local, colour)
    }

    /// What follows the meter's colour, on both paths (`apply`, `offer_simple`): the flow's
    /// green bytes after the warm-up, then the colour's action (keep, re-mark, downgrade, drop:
    /// `PerColourAction::rewrite`; a SIMA marker's actions are all `Keep`, set in `new_shared`).
    /// `local` is the flow's local index, given by `add_flow`.
    #[inline(always)]
    pub(super) fn act_on_colour(
        &mut self,
        now: SimTime,
        p: &mut Packet,
        local: usize,
        colour: Colour,
    ) -> Outcome {
        if colour == Colour::Green && now >= self.warmup {
            self.stats.green_bytes_measured += u64::from(p.size);
            debug_assert!(local < self.green_by_flow.len());
            // SAFETY: every local index (`local` maps flows to them) was given by `add_flow`,
            // which pushed its entry to `green_by_flow`; entries are never removed
            *unsafe { self.green_by_flow.get_unchecked_mut(local) } += u64::from(p.size);
        }
        let action = self.actions[colour.index()];
        if action.drop {
            self.stats.dropped_policed += 1;
            return Outcome::Drop(DropReason::Policed);
        }
        p.dscp = (p.dscp & action.keep) | action.set;
        self.stats.forwarded += 1;
        Outcome::Forward
    }

    /// When the head of the held FIFO can leave, if anything is held.
    pub fn next_release(&self, now: SimTime, pool: &Pool) -> Option<SimTime> {
        let &head = self.held.front()?;
        let p = pool.get(head);
        let m = if self.per_flow {
            match self.local.peek(p.flow) {
                Some(i) => self.slot[i as usize] as usize,
                None => unreachable!("a held packet's flow was seen"),
            }
        } else {
            0
        };
        match &self.meters[m] {
            // a packet bigger than the bucket never conforms: release it to be metered anyway
            Meter::TokenBucket(tb) => Some(tb.next_conformant(now, p.size).unwrap_or(now).max(now)),
            Meter::Etb(etb) => Some(etb.next_service(now).unwrap_or(now).max(now)),
            _ => Some(now),
        }
    }

    /// Releases the head of the held FIFO if it conforms at `now`: `Some((id, outcome))`.
    pub fn release(&mut self, now: SimTime, pool: &mut Pool) -> Option<(PacketId, Outcome)> {
        let &head = self.held.front()?;
        if self.next_release(now, pool)? > now {
            return None;
        }
        self.held.pop_front();
        let local = self.local_index(pool.get(head).flow);
        Some((head, self.apply(now, head, pool, local)))
    }

    /// Sets α of every enhanced token bucket of this conditioner (the CSA's output). Returns
    /// whether there was one; the caller re-arms the wake-up, which may now come earlier.
    pub fn set_alpha(&mut self, now: SimTime, alpha: f64) -> bool {
        let mut any = false;
        for m in &mut self.meters {
            if let Meter::Etb(etb) = m {
                etb.set_alpha(now, alpha);
                any = true;
            }
        }
        any
    }

    /// α of the (first) enhanced token bucket, if any.
    pub fn alpha(&self) -> Option<f64> {
        self.meters.iter().find_map(|m| {
            if let Meter::Etb(e) = m {
                Some(e.alpha())
            } else {
                None
            }
        })
    }

    /// Packets held now.
    pub fn held(&self) -> usize {
        self.held.len()
    }

    /// Every meter's counters added up.
    pub fn marker_stats(&self) -> MarkerStats {
        let mut total = MarkerStats::default();
        for m in &self.meters {
            let s = m.stats();
            total.offered_packets += s.offered_packets;
            total.offered_bytes += s.offered_bytes;
            for c in 0..3 {
                total.packets[c] += s.packets[c];
                total.bytes[c] += s.bytes[c];
            }
        }
        total
    }

    /// Whether the meter is SIMA's (a marker without actions).
    pub fn is_sima(&self) -> bool {
        self.is_sima
    }

    /// SIMA meter only: the packets of every meter by drop precedence, and bytes.
    pub fn dp_totals(&self) -> Option<([u64; sima::LEVELS], [u64; sima::LEVELS])> {
        if !self.is_sima {
            return None;
        }
        let (mut packets, mut bytes) = ([0; sima::LEVELS], [0; sima::LEVELS]);
        for m in &self.meters {
            if let Meter::Sima(s) = m {
                for dp in 0..sima::LEVELS {
                    packets[dp] += s.dp_packets[dp];
                    bytes[dp] += s.dp_bytes[dp];
                }
            }
        }
        Some((packets, bytes))
    }

    /// Takes the SIMA trace out (a second call gives `None`).
    pub fn take_dp_trace(&mut self) -> Option<DpTrace> {
        self.dp_trace.take()
    }

    pub fn meter_kind(&self) -> &'static str {
        Meter::new(&self.meter_spec, SimTime::ZERO).kind()
    }

    pub fn committed_rate_bps(&self) -> u64 {
        committed_rate_bps(&self.meter_spec)
    }

    /// The rate contracted for everything this conditioner meters, bit/s: the committed rate,
    /// times the flows seen for a per-flow meter (one contract each).
    pub fn contract_bps(&self) -> u64 {
        let n = if self.per_flow {
            u64::from(self.flows_seen)
        } else {
            1
        };
        self.committed_rate_bps().saturating_mul(n)
    }

    /// Checks the identity of `ConditionerStats`.
    pub fn check(&self) -> Result<(), String> {
        let s = &self.stats;
        let out = s.forwarded + s.dropped_policed + s.dropped_buffer + self.held.len() as u64;
        if s.matched != out {
            return Err(format!(
                "conditioner {}: matched {} ≠ forwarded {} + policed {} + buffer drops {} + held {}",
                self.name,
                s.matched,
                s.forwarded,
                s.dropped_policed,
                s.dropped_buffer,
                self.held.len()
            ));
        }
        for m in &self.meters {
            if let Meter::Sima(s) = m {
                s.check()
                    .map_err(|e| format!("conditioner {}: {e}", self.name))?;
            }
        }
        if let Some((packets, _)) = self.dp_totals() {
            let by_flow: u64 = self.dp_by_flow.iter().flatten().sum();
            let marked: u64 = packets.iter().sum();
            if by_flow != marked {
                return Err(format!(
                    "conditioner {}: {marked} packets marked by drop precedence, {by_flow} counted by flow",
                    self.name
                ));
            }
        }
        self.marker_stats().check()
    }
}

// ---- The configuration a scenario gives (`scenario::spec` names these types too).

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
    /// Flow indices (from flow or flow-group names), shared by the conditioners of one
    /// `[[conditioner]]` table (one list, not one a conditioner; issue 28).
    pub flows: std::sync::Arc<[usize]>,
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

mod classify;
mod simple;

#[cfg(test)]
mod tests;
