//! The report's rows made from the ports (queues, colours, code points, SIMA queues, the
//! monitors' per-port outputs), and the giving back of the world's memory as they are made
//! (`World::into_report`; issue 28).

use std::collections::BTreeMap;
use std::sync::Arc;

use super::{colour_rows, queue_row};
use crate::net::dscp::MAX_LEVELS;
use crate::queue::{AnyQueue, DropReason};
use crate::report::{CodePointRow, ColourRow, QueueRow, SimaLevelRow, SimaQueueRow};
use crate::sim::time::SimTime;
use crate::world::World;

/// The rows made from the ports: the report's per-port tables, the monitors' outputs of each
/// port, and the ports whose identities failed.
#[derive(Default)]
pub(super) struct PortRows {
    pub(super) queues: Vec<QueueRow>,
    pub(super) colours: Vec<ColourRow>,
    pub(super) code_points: Vec<CodePointRow>,
    pub(super) sima_queues: Vec<SimaQueueRow>,
    pub(super) sima_levels: Vec<SimaLevelRow>,
    pub(super) queue_series: Vec<(String, crate::metrics::series::QueueSeries)>,
    pub(super) queue_delays: Vec<(String, crate::metrics::delay::Distribution)>,
    pub(super) queue_traces: Vec<(String, crate::metrics::trace::QueueTrace)>,
    pub(super) broken: Vec<String>,
    /// Room for a port's name while it is made ("from->to"; issue 28, branch scale9r: a
    /// `format!` and a string a port, 700 instructions, at 8,002 ports).
    pub(super) name: String,
}

impl PortRows {
    /// Empty, with room for the rows of `ports` exactly (counted first: grown by doubling, the
    /// vectors held up to twice their rows, and both buffers at each doubling, at the report's
    /// peak of memory).
    pub(super) fn sized(ports: &[crate::world::Port]) -> Self {
        PortRows {
            queues: Vec::with_capacity(ports.len()),
            colours: Vec::with_capacity(ports.iter().map(|p| p.levels_seen()).sum()),
            code_points: Vec::with_capacity(
                ports.iter().map(|p| p.by_cp.rows_len(p.cp_first)).sum(),
            ),
            ..Default::default()
        }
    }

    /// Puts rows made last port first in port order: each port's rows were added in reverse
    /// (`World::port_rows` with `rev`), so reversing every table puts both the ports and each
    /// port's rows in order.
    pub(super) fn reverse(&mut self) {
        self.queues.reverse();
        self.colours.reverse();
        self.code_points.reverse();
        self.sima_queues.reverse();
        self.sima_levels.reverse();
        self.queue_series.reverse();
        self.queue_delays.reverse();
        self.queue_traces.reverse();
        self.broken.reverse();
    }
}

/// Gives back the room a vector emptied from its end no longer uses, 16,384 elements at a
/// time, and the free pages of the heap with it (`give_back`): a large vector is a mapping of
/// its own, which `realloc` shrinks in place, so that its pages go back to the system as the
/// vector empties, not at the end; what its elements owned (a port's queue and counters, an
/// agent's sender) was freed into the heap, where the rows, mappings of their own, could not
/// reuse it.
///
/// A vector of elements aligned to more than 16 bytes (the ports, aligned to a cache line:
/// `world::Port`) is not `realloc`ed: Rust's allocator cannot ask `realloc` for that alignment
/// and moves such a vector to a new block instead, both side by side (70 MiB more at the
/// report's peak at 100,000 flows, branch scale7). Its emptied pages are given back in place
/// (`release_tail`), every 16,384 elements, and its capacity stays.
pub(super) fn shrink_as_it_empties<T>(v: &mut Vec<T>) {
    if std::mem::align_of::<T>() > 16 {
        if v.len().is_multiple_of(1 << 14) && v.capacity() - v.len() >= 1 << 14 {
            release_tail(v);
            give_back();
        }
    } else if v.capacity() - v.len() >= 1 << 14 {
        v.shrink_to_fit();
        give_back();
    }
}

/// Gives the whole pages of `v`'s buffer beyond its length back to the system (madvise(2)
/// `MADV_DONTNEED`: a private anonymous page reads as zeros afterwards, and the vector writes
/// an element before reading it). Elsewhere than on Linux, nothing.
#[cfg(target_os = "linux")]
fn release_tail<T>(v: &mut Vec<T>) {
    extern "C" {
        fn madvise(
            addr: *mut std::ffi::c_void,
            len: usize,
            advice: std::ffi::c_int,
        ) -> std::ffi::c_int;
    }
    const MADV_DONTNEED: std::ffi::c_int = 4;
    const PAGE: usize = 4096;
    let size = std::mem::size_of::<T>();
    let base = v.as_mut_ptr() as usize;
    let start = (base + v.len() * size).next_multiple_of(PAGE);
    let end = (base + v.capacity() * size) / PAGE * PAGE;
    if end > start {
        // SAFETY: [start, end) is whole pages inside the vector's own allocation, past its
        // last element: no element and no allocator bookkeeping (which is outside the block,
        // before it and after its end) lives there. A failure (another page size) leaves the
        // pages as they were.
        unsafe {
            madvise(start as *mut std::ffi::c_void, end - start, MADV_DONTNEED);
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn release_tail<T>(_v: &mut Vec<T>) {}

/// Returns the heap's free pages to the system: glibc's `malloc_trim(0)` (malloc_trim(3):
/// since glibc 2.8 it releases free whole pages anywhere in the heap, not only at its top).
/// Elsewhere, nothing. Issue 28: without it the report's peak was the world's freed memory,
/// still resident, beside the rows (450 MiB against 423 at 100,000 flows).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn give_back() {
    extern "C" {
        fn malloc_trim(pad: usize) -> std::ffi::c_int;
    }
    // SAFETY: malloc_trim takes no pointer and touches only the allocator's own free lists;
    // glibc is the allocator of a Linux GNU target (Rust's `System` allocator is its malloc).
    unsafe {
        malloc_trim(0);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn give_back() {}

/// Appends `items` to `to`, in reverse order if `rev`.
fn put<T>(to: &mut Vec<T>, items: Vec<T>, rev: bool) {
    if rev {
        to.extend(items.into_iter().rev());
    } else {
        to.extend(items);
    }
}

impl World<'_> {
    /// Adds the rows of port `p` (which may be out of `self.ports`) to `rows`, each port's in
    /// reverse order if `rev` (`PortRows::reverse`), and its drops to `dropped`; with `rev`
    /// (the world is given up) the port's per-level counters, those by code point and its line
    /// are given back on the way.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn port_rows(
        &self,
        p: &mut crate::world::Port,
        node_names: &[Arc<str>],
        level_names: &[Arc<str>],
        rows: &mut PortRows,
        dropped: &mut BTreeMap<String, BTreeMap<String, u64>>,
        rev: bool,
    ) {
        let now = self.now;
        rows.name.clear();
        rows.name.push_str(&node_names[p.from as usize]);
        rows.name.push_str("->");
        rows.name.push_str(&node_names[p.to as usize]);
        let name: Arc<str> = Arc::from(rows.name.as_str());
        let mut broken = Vec::new();
        if rev {
            p.line = Default::default();
        }
        // the per-level counters, the first code point's and the longest queue where the rows
        // read them (the packet path left them in the totals and the port's flags)
        p.settle_counts();
        if let AnyQueue::Sima(q) = &p.queue {
            if let Err(e) = q.check(&self.pool) {
                broken.push(format!("{name}: {e}"));
            }
            let (row, levels) = sima_rows(&name, q, now);
            rows.sima_queues.push(row);
            put(&mut rows.sima_levels, levels, rev);
        }
        p.sample(now);
        // the run kept Σ Δlen·t (`QueueStats::len_integral`); its length is `qlen`, which is
        // `len` but after the test double `Leaky` lost packets
        p.stats.settle(now, u64::from(p.qlen));
        let row = queue_row(
            &name,
            &node_names[p.from as usize],
            &node_names[p.to as usize],
            p.rate_bps(),
            &p.queue,
            &p.stats,
            p.busy_ns,
            p.link_losses(),
            now,
        );
        p.stats.unsettle(now, u64::from(p.qlen));
        if row.arrivals != row.departures + row.drops_total + row.len_packets_end {
            broken.push(name.to_string());
        }
        let nonzero: BTreeMap<String, u64> = row
            .drops
            .0
            .iter()
            .filter(|&&(_, v)| v > 0)
            .map(|&(k, v)| (k.to_string(), v))
            .collect();
        if !nonzero.is_empty() {
            dropped.insert(format!("queue {name}"), nonzero);
        }
        if p.link_losses() > 0 {
            let reason = DropReason::LinkLoss.name().to_string();
            dropped.insert(
                format!("link {name}"),
                BTreeMap::from([(reason, p.link_losses())]),
            );
        }
        rows.queues.push(row);
        let colours = colour_rows(
            &name,
            &p.queue,
            &p.stats,
            &self.colours,
            level_names,
            &self.pool,
            &mut broken,
        );
        put(&mut rows.colours, colours, rev);
        let cps = code_point_rows(
            &name,
            p,
            &self.pool,
            &self.colours,
            level_names,
            &mut broken,
        );
        put(&mut rows.code_points, cps, rev);
        if rev {
            // nothing reads the per-level counters, nor those by code point, after this
            // port's rows
            p.stats.levels = Vec::new();
            p.by_cp = Default::default();
        }
        if let Some(w) = p.watch.as_deref_mut() {
            if let Some(s) = w.series.take() {
                rows.queue_series.push((name.to_string(), s));
            }
            if let Some(d) = w.sojourn.as_ref() {
                rows.queue_delays.push((name.to_string(), d.distribution()));
            }
            if let Some(t) = w.trace.take() {
                rows.queue_traces.push((name.to_string(), t));
            }
        }
        put(&mut rows.broken, broken, rev);
    }
}

/// The report rows of a SIMA core queue at `now`: the queue's, and one per (class, drop
/// precedence) that saw an arrival.
fn sima_rows(
    name: &str,
    q: &crate::queue::sima::Sima,
    now: SimTime,
) -> (SimaQueueRow, Vec<SimaLevelRow>) {
    use crate::edge::sima::ServiceClass;
    let p = q.params();
    let time = q.dpa_time(now);
    let total = now.as_nanos().max(1) as f64;
    let row = SimaQueueRow {
        queue: name.to_string(),
        rt_limit_bytes: p.rt_limit_bytes,
        nrt_limit_bytes: p.nrt_limit_bytes,
        rt_weight: p.rt_weight,
        nrt_weight: p.nrt_weight,
        occupancy: p.occupancy.name().to_string(),
        dpa_offset: p.dpa_offset,
        dpa_slope: p.dpa_slope,
        avg_rt_end: q.avg_occupancy(ServiceClass::Rt),
        avg_nrt_end: q.avg_occupancy(ServiceClass::Nrt),
        dpa_end: q.dpa(),
        dpa_max: q.dpa_max(),
        dpa_mean: time
            .iter()
            .enumerate()
            .map(|(v, &ns)| v as f64 * ns as f64)
            .sum::<f64>()
            / total,
        dpa_time_share: time.iter().map(|&ns| ns as f64 / total).collect(),
    };
    let mut levels = Vec::new();
    for class in [ServiceClass::Nrt, ServiceClass::Rt] {
        for (dp, s) in q.stats.dp[class.index()].iter().enumerate() {
            if s.arrivals == 0 {
                continue;
            }
            let drops = s.drops_below_dpa + s.drops_overflow;
            levels.push(SimaLevelRow {
                queue: name.to_string(),
                class: class.name().to_string(),
                dp: dp as u8,
                arrivals: s.arrivals,
                departures: s.departures,
                drops_below_dpa: s.drops_below_dpa,
                drops_overflow: s.drops_overflow,
                queued_end: s.arrivals.saturating_sub(s.departures + drops),
                loss_ratio: drops as f64 / s.arrivals as f64,
            });
        }
    }
    (row, levels)
}

/// A port's `code_points` rows, with the packets still queued counted per row and the
/// departures derived (arrivals − drops − queued); their sum per level must equal the level's
/// own departure counter, else the port is added to `broken`.
fn code_point_rows(
    name: &Arc<str>,
    p: &crate::world::Port,
    pool: &crate::net::packet::Pool,
    colours: &crate::net::dscp::ColourTable,
    level_names: &[Arc<str>],
    broken: &mut Vec<String>,
) -> Vec<CodePointRow> {
    use crate::net::dscp;
    let rows = p.by_cp.rows(p.cp_first, &p.stats);
    // (a row per key, direction and code point: at most 2 × 64)
    let mut queued = [0u64; 128];
    for id in p.queue.queued() {
        let pkt = pool.get(id);
        if let Some(i) = rows
            .iter()
            .position(|r| (r.0, r.1) == (pkt.rev, pkt.dscp & 63))
        {
            queued[i] += 1;
        }
    }
    let mut departures = [0u64; MAX_LEVELS];
    let out: Vec<CodePointRow> = rows
        .iter()
        .zip(queued)
        .map(|(&(rev, d, c), queued_end)| {
            let dropped = c.drops_overflow + c.drops_early;
            let left = c.arrivals.checked_sub(dropped + queued_end);
            let level = colours.level(d);
            departures[usize::from(level)] += left.unwrap_or(u64::MAX / 2);
            CodePointRow {
                queue: Arc::clone(name),
                code_point: dscp::name(d).map_or_else(|| format!("DSCP {d}").into(), Into::into),
                direction: if rev { "reverse" } else { "forward" },
                level,
                colour: Arc::clone(&level_names[usize::from(level)]),
                arrivals: c.arrivals,
                departures: left.unwrap_or(0),
                drops_overflow: c.drops_overflow,
                drops_early: c.drops_early,
                queued_end,
                loss_ratio: dropped as f64 / c.arrivals as f64,
            }
        })
        .collect();
    for (level, l) in p.stats.levels.iter().enumerate() {
        if departures[level] != l.departures {
            broken.push(format!("{name} level {level} by code point"));
        }
    }
    out
}
