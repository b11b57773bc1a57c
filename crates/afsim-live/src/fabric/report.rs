//! The report side of the forwarding plane: conservation totals, drops outside queues, and the
//! queue, colour and conditioner rows of afsim's report from the live counters, built by the
//! functions `World::report` uses (`afsim_core::world::{queue_row, colour_rows,
//! conditioner_row}`), so that a live run's rows and a simulated run's are the same code.

use std::collections::BTreeMap;
use std::sync::Arc;

use afsim_core::queue::{DropReason, N_DROP_REASONS};
use afsim_core::report::{ColourRow, ConditionerRow, QueueRow};
use afsim_core::sim::time::SimTime;
use afsim_core::world::{colour_rows, conditioner_row, queue_row};

use super::Fabric;

impl Fabric {
    /// Packets that entered, left for a host, were dropped, and are inside now.
    pub fn totals(&self) -> (u64, u64, u64, u64) {
        (self.sent, self.delivered, self.dropped, self.pool.live())
    }

    /// Drops outside queues: (place, reason) → count.
    pub fn other_drops(&self) -> BTreeMap<String, BTreeMap<String, u64>> {
        let mut out = BTreeMap::new();
        let mut put = |place: String, d: &[u64; N_DROP_REASONS]| {
            let m: BTreeMap<String, u64> = DropReason::ALL
                .iter()
                .filter(|r| d[r.index()] > 0)
                .map(|r| (r.name().to_string(), d[r.index()]))
                .collect();
            if !m.is_empty() {
                out.insert(place, m);
            }
        };
        for (c, d) in self.cond_drops.iter().enumerate() {
            put(format!("conditioner {}", self.conditioners[c].name), d);
        }
        for (n, d) in self.node_drops.iter().enumerate() {
            put(format!("node {}", self.spec.nodes[n].name), d);
        }
        out
    }

    /// The queue, colour and conditioner rows of afsim's report, from the live counters, over
    /// `[0, now]` (`span_s`: the measured interval, after the warm-up). A conditioner's
    /// `delivered_kbps` and `delivered_ros` (the contract check) are measured at the forwarder:
    /// its flows' bytes that left it for their hosts after the warm-up.
    pub fn rows(
        &mut self,
        now: SimTime,
        span_s: f64,
    ) -> (Vec<QueueRow>, Vec<ColourRow>, Vec<ConditionerRow>) {
        let mut queues = Vec::new();
        let mut colours = Vec::new();
        // the identities the rows break are afsim's report's concern, not the live report's
        let mut broken = Vec::new();
        let level_names = self.colours.level_names();
        for p in &mut self.ports {
            let name: Arc<str> = p.name.as_str().into();
            p.stats.before_change(now, p.queue.len_packets());
            queues.push(queue_row(
                &name,
                &Arc::from(self.spec.nodes[p.from as usize].name.as_str()),
                &Arc::from(self.spec.nodes[p.to as usize].name.as_str()),
                p.rate_bps,
                &p.queue,
                &p.stats,
                p.busy_ns,
                p.link_losses,
                now,
            ));
            colours.extend(colour_rows(
                &name,
                &p.queue,
                &p.stats,
                &self.colours,
                &level_names,
                &self.pool,
                &mut broken,
            ));
        }
        // the contract check, as `World::report` makes it: the throughput the flows a
        // conditioner metered delivered (here: left the forwarder for their host, IP bytes
        // after the warm-up, as the live flow rows' `throughput_kbps`), against its contract
        let n = self.spec.flows.len();
        let kbps = |b: u64| {
            if span_s > 0.0 {
                b as f64 * 8.0 / span_s / 1e3
            } else {
                0.0
            }
        };
        let conds = self
            .conditioners
            .iter()
            .map(|c| {
                let mut row = conditioner_row(c, &self.spec.nodes[c.node as usize].name, span_s);
                row.delivered_kbps = (0..n)
                    .filter(|&i| c.seen(i))
                    .map(|i| kbps(self.flows[i].bytes_measured))
                    .sum();
                row.delivered_ros = row.delivered_kbps / row.contract_kbps;
                row
            })
            .collect();
        (queues, colours, conds)
    }

    /// Per scenario flow: (contract kb/s, conformant kb/s over the measured interval) of the
    /// conditioner that meters it alone, if any (as `World::af_fields`).
    pub fn contract(&self, flow: usize, span_s: f64) -> Option<(f64, f64)> {
        let c = self.conditioners.iter().find(|c| c.meters_alone(flow))?;
        let conformant = if span_s > 0.0 {
            c.green_of(flow) as f64 * 8.0 / span_s / 1e3
        } else {
            0.0
        };
        Some((c.committed_rate_bps() as f64 / 1e3, conformant))
    }
}
