//! The report's group rows (`World::report`'s `groups`): per flow group, its throughput
//! statistics and, when conditioners that meter only its flows cover all of them, its
//! contract. Linear in the flows and the flows metered.

use std::collections::HashMap;

use crate::metrics::fairness;
use crate::report::{FlowRow, GroupRow};
use crate::scenario::Spec;

/// One row per flow group, in order of first appearance. `metered`: per conditioner, the
/// flows it metered and its contract in kb/s.
pub(super) fn group_rows(
    spec: &Spec,
    flows: &[FlowRow],
    metered: &[(Vec<usize>, f64)],
) -> Vec<GroupRow> {
    // the groups in the order they first appear, each flow row's group, each group's rows:
    // O(flows), not groups × flows
    let mut index: HashMap<&str, usize> = HashMap::new();
    let mut order: Vec<&str> = Vec::new();
    for f in &spec.flows {
        index.entry(&f.group).or_insert_with(|| {
            order.push(&f.group);
            order.len() - 1
        });
    }
    let gid: Vec<usize> = flows
        .iter()
        .map(|f| index.get(&*f.group).copied().unwrap_or(usize::MAX))
        .collect();
    let mut rows: Vec<Vec<usize>> = vec![Vec::new(); order.len()];
    for (i, &g) in gid.iter().enumerate() {
        if g != usize::MAX {
            rows[g].push(i);
        }
    }
    // each group's own conditioners (in order): those that meter its flows only; and the
    // flows such a conditioner meters. O(flows metered)
    let mut own: Vec<Vec<usize>> = vec![Vec::new(); order.len()];
    let mut owned = vec![false; flows.len()];
    for (k, (seen, _)) in metered.iter().enumerate() {
        let Some(&first) = seen.first() else {
            continue;
        };
        let g = gid[first];
        if g != usize::MAX && seen.iter().all(|&i| gid[i] == g) {
            own[g].push(k);
            for &i in seen {
                owned[i] = true;
            }
        }
    }
    let n = flows.len().min(spec.flows.len());
    order
        .into_iter()
        .enumerate()
        .map(|(g, name)| {
            let members: Vec<&FlowRow> = rows[g].iter().map(|&i| &flows[i]).collect();
            let tput: Vec<f64> = members.iter().map(|f| f.throughput_kbps).collect();
            let contracts: Option<Vec<f64>> = members.iter().map(|f| f.contract_kbps).collect();
            let goodput: Option<Vec<f64>> = members.iter().map(|f| f.goodput_kbps).collect();
            // the group's own conditioners give its contract if they cover all its flows
            let covered = rows[g].iter().filter(|&&i| i < n).all(|&i| owned[i]);
            let contract =
                (covered && !own[g].is_empty()).then(|| own[g].iter().map(|&k| metered[k].1).sum());
            let total: f64 = tput.iter().sum();
            GroupRow {
                name: name.to_string(),
                flows: members.len() as u64,
                throughput_kbps_total: total,
                throughput_kbps_min: tput.iter().copied().fold(f64::INFINITY, f64::min),
                throughput_kbps_median: fairness::median(&tput).unwrap_or(0.0),
                throughput_kbps_max: tput.iter().copied().fold(f64::NEG_INFINITY, f64::max),
                jain: fairness::jain(&tput),
                goodput_kbps_total: goodput.map(|g| g.iter().sum()),
                fieb: contracts.and_then(|r| fairness::fieb(&tput, &r)),
                contract_kbps: contract,
                delivered_ros: contract.map(|c: f64| total / c),
            }
        })
        .collect()
}
