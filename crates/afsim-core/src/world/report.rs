//! The run's results: a `Report` assembled from the world's counters at the end of the run
//! (flows, queues, colours, conditioners, groups, CSAs, SIMA), and the conservation check
//! over them.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::edge::conditioner::Conditioner;
use crate::metrics::conservation;
use crate::metrics::flow::FlowStats;
use crate::net::dscp::{self, ColourTable, MAX_LEVELS};
use crate::net::packet::Pool;
use crate::queue::{AnyQueue, DropReason, QueueStats};
use crate::report::{
    ColourRow, ConditionerRow, CsaRow, DelayClassRow, DpCounts, EngineCounts, FlowRow, QueueDrops,
    QueueRow, Report,
};
use crate::scenario::spec::AppSpec;
use crate::scenario::spec::CsaScope;
use crate::sim::time::SimTime;
use crate::transport::{tfrc, AnyAgent};

/// `receive`'s `via` for packets an agent sent from the node itself.
use super::{StopReason, World};

mod groups;
use groups::group_rows;
mod ports;
use ports::{shrink_as_it_empties, PortRows};

impl World<'_> {
    /// The results, and the conservation check over them.
    pub fn report(&mut self) -> Report {
        self.report_with(false)
    }

    /// The results, the world given up on the way: the event queue and the forwarding tables
    /// first, each port as its rows are made (the ports' rows first), the packet pool, each
    /// flow's agents and delay histogram as its row is made, the flows' counters; vectors
    /// emptied from their end shrink and the heap's free pages go back (`ports::give_back`), so
    /// that the rows take memory the world gave back (the peak of a large run's memory was
    /// here; issue 28).
    pub fn into_report(mut self) -> Report {
        self.report_with(true)
    }

    /// The report; with `free`, the world is given up on the way (`into_report`).
    fn report_with(&mut self, free: bool) -> Report {
        // names of counters whose identity fails; any makes the run fail
        let mut broken: Vec<String> = Vec::new();
        let now = self.now;
        self.sample_grid(now);
        let end_s = now.as_secs_f64();
        let span = now.saturating_since(self.warmup).as_secs_f64();
        // the node names the flow rows (`src`, `dst`) and the queue rows (`node`, `to`) share
        let node_names: Vec<Arc<str>> = self
            .spec
            .nodes
            .iter()
            .map(|n| Arc::from(n.name.as_str()))
            .collect();
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
                    queue: self.port_name(run.port as usize),
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

        // the grid's per-port series, named while the ports are there
        let level_series = std::mem::take(&mut self.grid.levels)
            .into_iter()
            .map(|(port, s)| (self.port_name(port as usize), s))
            .collect();
        let code_point_series = std::mem::take(&mut self.grid.code_points)
            .into_iter()
            .map(|(port, s)| (self.port_name(port as usize), s))
            .collect();
        let in_flight_walked = self.walk_in_flight();
        if free {
            // nothing below schedules or reads an event, nor forwards a packet
            self.events = crate::sim::event::EventQueue::new();
            self.tables = crate::net::routing::Tables::default();
        }
        let mut dropped: BTreeMap<String, BTreeMap<String, u64>> = BTreeMap::new();
        let mut rows = PortRows::sized(&self.ports);
        let level_names = self.colours.level_names();
        if free {
            // The ports go from the end of their vector as their rows are made, and the vector
            // shrinks as it empties, so that the rows take the memory the ports give back (the
            // peak of a large run's memory was here, ports and rows side by side; issue 28).
            // The rows, made last port first, are put in port order at the end.
            while let Some(mut p) = self.ports.pop() {
                self.port_rows(
                    &mut p,
                    &node_names,
                    &level_names,
                    &mut rows,
                    &mut dropped,
                    true,
                );
                drop(p);
                shrink_as_it_empties(&mut self.ports);
            }
            rows.reverse();
        } else {
            let mut ports = std::mem::take(&mut self.ports);
            for p in &mut ports {
                self.port_rows(p, &node_names, &level_names, &mut rows, &mut dropped, false);
            }
            self.ports = ports;
        }
        let PortRows {
            queues,
            colours,
            code_points,
            sima_queues,
            sima_levels,
            queue_series,
            queue_delays,
            queue_traces,
            broken: broken_ports,
            name: _,
        } = rows;
        broken.extend(broken_ports);
        // the packets in the pool are read no more: what the report keeps of it, and (given
        // up) the pool
        let (pool_live, pool_high_water) = (self.pool.live(), self.pool.capacity_used() as u64);
        if free {
            self.pool = Pool::default();
        }
        // the senders' traces, and then the flow rows, are the last that need the agents
        let traces = self.take_traces();
        let tfrc_traces = self.take_tfrc_traces();
        // a group's flows share its name and kind (they follow each other in the spec)
        let mut last: Option<(Arc<str>, Arc<str>)> = None;
        let n = self.spec.flows.len();
        let mut flows: Vec<FlowRow> = Vec::with_capacity(n + self.signal_flows.len());
        if free {
            // as the ports above: each flow's two agents go as its row is made, last first
            for i in (0..n).rev() {
                flows.push(self.flow_row(i, span, &node_names, &mut last));
                self.agents.truncate(2 * i);
                shrink_as_it_empties(&mut self.agents);
                self.flow_delays.truncate(i);
                shrink_as_it_empties(&mut self.flow_delays);
            }
            flows.reverse();
            self.agents = Vec::new();
            self.flow_delays = Vec::new();
        } else {
            for i in 0..n {
                flows.push(self.flow_row(i, span, &node_names, &mut last));
            }
        }
        self.af_fields(&mut flows, span);
        self.dp_fields(&mut flows);
        // per conditioner: the flows it metered and their contract (kb/s)
        // (each conditioner's flows in increasing order: the sums below add in that order; the
        // CSAs' signal pseudo-flows, after the scenario's, left out)
        let metered: Vec<(Vec<usize>, f64)> = self
            .conditioners
            .iter()
            .map(|c| {
                let mut seen: Vec<usize> = c
                    .seen_flows
                    .iter()
                    .map(|&i| i as usize)
                    .filter(|&i| i < n)
                    .collect();
                seen.sort_unstable();
                (seen, c.contract_bps() as f64 / 1e3)
            })
            .collect();
        let groups = group_rows(self.spec, &flows, &metered);
        // CSA control packets, one pseudo-flow per (CSA, remote conditioner)
        for (k, (name, from, to)) in self.signal_flows.iter().enumerate() {
            let st = &self.flows[self.spec.flows.len() + k];
            flows.push(FlowRow {
                name: name.clone(),
                group: "csa-signals".into(),
                kind: "csa-signal".into(),
                src: Arc::clone(&node_names[*from as usize]),
                dst: Arc::clone(&node_names[*to as usize]),
                ..counter_fields(st, span, FlowRow::default())
            });
        }
        if free {
            // the flows' counters are read no more
            self.flows = Vec::new();
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
            let mut row = conditioner_row(cond, &self.spec.nodes[cond.node as usize].name, span);
            // the contract check: what the flows it metered delivered, against its contract
            // (`conditioner_row` set the contract, the same `contract_bps` as `metered`'s)
            row.delivered_kbps = metered[c].0.iter().map(|&i| flows[i].throughput_kbps).sum();
            row.delivered_ros = row.delivered_kbps / row.contract_kbps;
            conditioners.push(row);
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
            in_flight: pool_live,
            in_flight_walked,
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
            code_points,
            conditioners,
            groups,
            delay_classes: self.delay_class_rows(),
            csas,
            sima_queues,
            sima_levels,
            conservation,
            traces,
            tfrc_traces,
            alpha_traces,
            queue_series,
            queue_delays,
            queue_traces,
            level_series,
            code_point_series,
            flow_series: self.grid.flows.take(),
            conditioner_series: self.grid.conditioners.take(),
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
                pool_high_water,
            },
        }
    }
}

impl World<'_> {
    /// Flow `i`'s row (the scenario's flows; `last`: the group and kind strings of the row made
    /// before, shared when this flow's are the same).
    fn flow_row(
        &self,
        i: usize,
        span: f64,
        node_names: &[Arc<str>],
        last: &mut Option<(Arc<str>, Arc<str>)>,
    ) -> FlowRow {
        let (fs, st) = (&self.spec.flows[i], &self.flows[i]);
        let kind: std::borrow::Cow<'static, str> = match fs.app {
            AppSpec::Cbr(_) => "cbr".into(),
            AppSpec::Tcp(ref p) => format!("tcp-{}", p.variant.name()).into(),
            AppSpec::Tfrc(ref p) if p.target_rate_bps.is_some() => "gtfrc".into(),
            AppSpec::Tfrc(_) => "tfrc".into(),
        };
        let (group, kind) = match &*last {
            Some((g, k)) if **g == *fs.group && **k == *kind => (Arc::clone(g), Arc::clone(k)),
            _ => {
                let shared: (Arc<str>, Arc<str>) = (Arc::clone(&fs.group), kind.into());
                *last = Some(shared.clone());
                shared
            }
        };
        let now = self.now;
        let mut row = FlowRow {
            name: fs.name.clone(),
            group,
            kind,
            src: Arc::clone(&node_names[fs.src]),
            dst: Arc::clone(&node_names[fs.dst]),
            finite: self.finite[i],
            dscp: fs.dscp,
            ..counter_fields(st, span, self.tfrc_fields(i, now, self.tcp_fields(i, span)))
        };
        // (recorded with `record_sample`: the flow's counters hold its count and sum)
        if let Some(q) = self.flow_delays[i].quantiles_given(st.packets_delivered, st.delay_sum_ns)
        {
            row.delay_p50_s = Some(q.p50_s);
            row.delay_p90_s = Some(q.p90_s);
            row.delay_p99_s = Some(q.p99_s);
            row.delay_max_s = Some(q.max_s);
        }
        row
    }
}

impl World<'_> {
    /// One row per code point that delivered forward packets, in code point order.
    fn delay_class_rows(&self) -> Vec<DelayClassRow> {
        self.class_delays
            .iter()
            .enumerate()
            .filter_map(|(dscp, d)| {
                let q = d.quantiles()?;
                let dscp = dscp as u8;
                Some(DelayClassRow {
                    dscp,
                    code_point: dscp::name(dscp).map_or_else(|| dscp.to_string(), str::to_string),
                    packets: q.count,
                    mean_delay_s: q.mean_s,
                    delay_p50_s: q.p50_s,
                    delay_p90_s: q.p90_s,
                    delay_p99_s: q.p99_s,
                    delay_max_s: q.max_s,
                })
            })
            .collect()
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
        // per flow, the first conditioner that meters it alone: O(flows seen), not
        // conditioners × flows
        let mut alone = vec![u32::MAX; flows.len()];
        for (k, c) in self.conditioners.iter().enumerate() {
            for &i in &c.seen_flows {
                let i = i as usize;
                if i < alone.len() && alone[i] == u32::MAX && c.meters_alone(i) {
                    alone[i] = k as u32;
                }
            }
        }
        for (i, row) in flows.iter_mut().enumerate() {
            if alone[i] == u32::MAX {
                continue;
            }
            let c = &self.conditioners[alone[i] as usize];
            let contract = c.committed_rate_bps() as f64 / 1e3;
            let conformant = if span_s > 0.0 {
                c.green_of(i) as f64 * 8.0 / span_s / 1e3
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
        // each SIMA conditioner adds to the flows it saw: O(flows seen)
        let mut totals: Vec<Option<[u64; 8]>> = Vec::new();
        for c in self.conditioners.iter().filter(|c| c.is_sima()) {
            totals.resize(flows.len(), None);
            for &i in c.seen_flows.iter().filter(|&&i| (i as usize) < flows.len()) {
                let t = totals[i as usize].get_or_insert([0; 8]);
                for (dp, n) in c.dp_of(i as usize).iter().enumerate() {
                    t[dp] += n;
                }
            }
        }
        for (i, row) in flows.iter_mut().enumerate() {
            row.dp = DpCounts::new(totals.get(i).copied().flatten());
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

impl World<'_> {
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
        first_delivery_s: st.first_delivery().map(SimTime::as_secs_f64),
        last_delivery_s: st.last_delivery().map(SimTime::as_secs_f64),
        completed: st.completed_at.is_some(),
        completion_time_s: st.completed_at.map(SimTime::as_secs_f64),
        mean_delay_s: (st.packets_delivered > 0)
            .then(|| st.delay_sum_ns as f64 / st.packets_delivered as f64 * 1e-9),
        ..rest
    }
}

/// A per-level counter summed over every level; `None` if the discipline has no such counter.
fn sum_levels(f: impl Fn(usize) -> Option<u64>) -> Option<u64> {
    (0..MAX_LEVELS)
        .map(f)
        .reduce(|a, b| Some(a? + b?))
        .flatten()
}

/// A queue's report row from its counters at `now` (its `stats` brought up to `now` first).
/// Shared with afsim-live's `Fabric::rows`, which keeps the same counters per port.
#[allow(clippy::too_many_arguments)]
pub fn queue_row(
    name: &Arc<str>,
    node: &Arc<str>,
    to: &Arc<str>,
    rate_bps: u64,
    queue: &AnyQueue,
    s: &QueueStats,
    busy_ns: u64,
    link_losses: u64,
    now: SimTime,
) -> QueueRow {
    let drops = QueueDrops::new(
        DropReason::QUEUE
            .iter()
            .map(|r| (r.name(), s.drops[r.index()])),
    )
    .expect("two queue drop reasons");
    QueueRow {
        name: Arc::clone(name),
        node: Arc::clone(node),
        to: Arc::clone(to),
        discipline: queue.kind(),
        rate_bps,
        arrivals: s.arrivals,
        arrival_bytes: s.arrival_bytes,
        departures: s.departures,
        departure_bytes: s.departure_bytes,
        drops_total: s.total_drops(),
        drops_forced: sum_levels(|l| queue.forced_drops(l)),
        ecn_marks: sum_levels(|l| queue.ecn_marks(l)),
        drops,
        len_packets_end: queue.len_packets() as u64,
        max_len_packets: s.max_len_packets,
        mean_len_packets: if now.0 > 0 {
            s.len_integral() as f64 / now.0 as f64
        } else {
            0.0
        },
        utilization: if now.0 > 0 {
            busy_ns.min(now.0) as f64 / now.0 as f64
        } else {
            0.0
        },
        link_losses,
    }
}

/// A queue's rows per drop-precedence level that saw packets, with the packets still queued
/// counted by level; a level whose arrivals ≠ departures + drops + queued is named in `broken`.
/// `level_names` is `colours.level_names()`, shared by the rows. Shared with afsim-live's
/// `Fabric::rows`.
pub fn colour_rows(
    name: &Arc<str>,
    queue: &AnyQueue,
    s: &QueueStats,
    colours: &ColourTable,
    level_names: &[Arc<str>],
    pool: &Pool,
    broken: &mut Vec<String>,
) -> Vec<ColourRow> {
    let mut queued = [0u64; MAX_LEVELS];
    for id in queue.queued() {
        queued[usize::from(colours.level(pool.get(id).dscp))] += 1;
    }
    let mut rows = Vec::new();
    for (level, l) in s.levels.iter().enumerate() {
        if l.arrivals == 0 {
            continue;
        }
        let dropped: u64 = l.drops.iter().sum();
        if l.arrivals != l.departures + dropped + queued[level] {
            broken.push(format!("{name} level {level}"));
        }
        rows.push(ColourRow {
            queue: Arc::clone(name),
            level: level as u8,
            colour: Arc::clone(&level_names[level]),
            arrivals: l.arrivals,
            departures: l.departures,
            drops_overflow: l.drops[DropReason::Overflow.index()],
            drops_early: l.drops[DropReason::Early.index()],
            drops_forced: queue.forced_drops(level),
            ecn_marks: queue.ecn_marks(level),
            queued_end: queued[level],
            loss_ratio: dropped as f64 / l.arrivals as f64,
        });
    }
    rows
}

/// An edge conditioner's report row at `node`; `span_s` is the measured interval (its
/// conformant rate counts the green bytes after the warm-up). Shared with afsim-live's
/// `Fabric::rows`.
pub fn conditioner_row(cond: &Conditioner, node: &str, span_s: f64) -> ConditionerRow {
    let m = cond.marker_stats();
    let conformant_kbps = if span_s > 0.0 {
        cond.stats.green_bytes_measured as f64 * 8.0 / span_s / 1e3
    } else {
        0.0
    };
    ConditionerRow {
        name: cond.name.clone(),
        node: node.to_string(),
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
        flows: u64::from(cond.flows_seen),
        contract_kbps: cond.contract_bps() as f64 / 1e3,
        // counted where the flows are: World::report and afsim-live's Fabric::rows fill them
        // in; NaN (JSON null) otherwise
        delivered_kbps: f64::NAN,
        delivered_ros: f64::NAN,
        dp: DpCounts::new(cond.dp_totals().map(|(packets, _)| packets)),
    }
}
