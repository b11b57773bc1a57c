//! A conditioner's classifier (RFC 2475 §2.3.1) and its per-flow index (`FlowMap`), apart
//! from the conditioner's per-packet path in `conditioner.rs`.

use std::sync::Arc;

use rustc_hash::FxHashMap;

use super::ClassifierSpec;
use crate::net::dscp;
use crate::net::packet::Packet;

/// Up to this many flows in the scenario, a conditioner finds a flow's counters by a table of
/// one `u32` a flow (`FlowMap::Dense`, at most 4 KiB); with more, by a hash map of the flows it
/// has seen (`FlowMap::Sparse`), so that one conditioner a host at 10⁵ flows holds a few
/// entries, not 10⁵ (issue 28). Either way a packet costs one lookup.
pub const DENSE_FLOWS: usize = 1024;

/// Flow index → a conditioner's own dense index of that flow (in the order it was added).
#[derive(Clone, Debug)]
pub(super) enum FlowMap {
    /// By flow index, `u32::MAX` for a flow not added.
    Dense(Vec<u32>),
    /// The flows added, and the last one looked up (a conditioner a host sees one flow, or a
    /// few: most lookups hit it without hashing).
    Sparse(FxHashMap<u32, u32>, (u32, u32)),
}

impl FlowMap {
    pub(super) fn new(n_flows: usize) -> Self {
        if n_flows <= DENSE_FLOWS {
            FlowMap::Dense(vec![u32::MAX; n_flows])
        } else {
            FlowMap::Sparse(FxHashMap::default(), (u32::MAX, u32::MAX))
        }
    }

    /// The local index of `flow`, if added.
    #[inline]
    pub(super) fn get(&mut self, flow: u32) -> Option<u32> {
        match self {
            FlowMap::Dense(v) => Some(v[flow as usize]).filter(|&i| i != u32::MAX),
            FlowMap::Sparse(m, last) => {
                if last.0 == flow {
                    return Some(last.1);
                }
                let &i = m.get(&flow)?;
                *last = (flow, i);
                Some(i)
            }
        }
    }

    /// Whether `flow` was added (without remembering the lookup).
    #[inline]
    pub(super) fn contains(&self, flow: u32) -> bool {
        match self {
            FlowMap::Dense(v) => v.get(flow as usize).is_some_and(|&i| i != u32::MAX),
            FlowMap::Sparse(m, _) => m.contains_key(&flow),
        }
    }

    /// The local index of `flow`, if added (without remembering the lookup).
    pub(super) fn peek(&self, flow: u32) -> Option<u32> {
        match self {
            FlowMap::Dense(v) => v.get(flow as usize).copied().filter(|&i| i != u32::MAX),
            FlowMap::Sparse(m, _) => m.get(&flow).copied(),
        }
    }

    /// Adds `flow` (not added before) with local index `i`.
    pub(super) fn insert(&mut self, flow: u32, i: u32) {
        match self {
            FlowMap::Dense(v) => v[flow as usize] = i,
            FlowMap::Sparse(m, _) => {
                m.insert(flow, i);
            }
        }
    }
}

/// The classifiers' flow sets already made, so that the conditioners of one `[[conditioner]]`
/// table (which share their spec's list, `ClassifierSpec::flows`) share one set: one a
/// table, not one a conditioner (`Conditioner::new_shared`).
#[derive(Debug, Default)]
pub struct FlowSets {
    last: Option<(Arc<[usize]>, Arc<FlowMap>)>,
}

impl FlowSets {
    fn get(&mut self, flows: &Arc<[usize]>, n_flows: usize) -> Arc<FlowMap> {
        match &self.last {
            Some((list, set)) if Arc::ptr_eq(list, flows) => set.clone(),
            _ => {
                let mut m = FlowMap::new(n_flows);
                for &f in flows.iter() {
                    m.insert(f as u32, 0);
                }
                let set = Arc::new(m);
                self.last = Some((flows.clone(), set.clone()));
                set
            }
        }
    }
}

/// A classifier compiled for fast matching.
#[derive(Clone, Debug)]
pub(super) struct Classifier {
    /// No criterion at all: every packet matches (one test on the per-packet path).
    pub(super) all: bool,
    /// The flows selected; `None` = every flow.
    pub(super) flows: Option<Arc<FlowMap>>,
    src: Option<u32>,
    dst: Option<u32>,
    protocol: Option<u8>,
    /// Bit `d` set: code point `d` is selected; 0 = every code point.
    dscp_mask: u64,
}

impl Classifier {
    pub(super) fn new(spec: &ClassifierSpec, n_flows: usize, sets: &mut FlowSets) -> Self {
        let flows = (!spec.flows.is_empty()).then(|| sets.get(&spec.flows, n_flows));
        Classifier {
            all: flows.is_none()
                && spec.src.is_none()
                && spec.dst.is_none()
                && spec.protocol.is_none()
                && spec.dscp.is_empty(),
            flows,
            src: spec.src.map(|s| s as u32),
            dst: spec.dst.map(|d| d as u32),
            protocol: spec.protocol,
            dscp_mask: spec
                .dscp
                .iter()
                .fold(0u64, |m, &d| m | 1u64 << (d & dscp::MAX_DSCP)),
        }
    }

    /// RFC 2475 §2.3.1: multi-field (addresses, protocol, flow) and behaviour-aggregate (DSCP)
    /// criteria, all of which must hold.
    #[inline]
    pub(super) fn matches(&self, p: &Packet) -> bool {
        self.all
            || self.flows.as_ref().is_none_or(|f| f.contains(p.flow))
                && self.src.is_none_or(|s| s == p.src)
                && self.dst.is_none_or(|d| d == p.dst)
                && self.protocol.is_none_or(|x| x == p.protocol)
                && (self.dscp_mask == 0
                    || self.dscp_mask & (1u64 << (p.dscp & dscp::MAX_DSCP)) != 0)
    }
}
