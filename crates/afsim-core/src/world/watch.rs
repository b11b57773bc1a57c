//! What the packet path does at a watched port (`[[monitor]]` of a queue or its events): out of
//! line and cold, called only from the observed instantiation of `run`'s packet path.

use crate::metrics::trace::{QueueEvent, Record};
use crate::net::dscp::ColourTable;
use crate::net::dscp::MAX_LEVELS;
use crate::net::packet::{PacketId, Pool};
use crate::sim::time::SimTime;

use super::Port;

/// Records an arrival at a watched port (`[[monitor]]`), just after the discipline took
/// it (`dropped`: the drop's reason index) or refused it: its event, and for an accepted
/// packet its enqueue instant (for the queueing delay). A mark is a rise of the
/// discipline's ECN-mark counters, which count at arrivals only.
#[cold]
#[inline(never)]
pub(super) fn watch_arrival(
    p: &mut Port,
    pool: &Pool,
    colours: &ColourTable,
    now: SimTime,
    id: PacketId,
    dropped: Option<u8>,
) {
    let w = p.watch.as_deref_mut().expect("a watched port");
    if dropped.is_none() && w.sojourn.is_some() {
        let slot = id.index();
        if w.enq_at.len() <= slot {
            w.enq_at.resize(slot + 1, 0);
        }
        w.enq_at[slot] = now.0;
    }
    // marks are found for the event record and for the queue monitor's per-code-point marks
    // (when the discipline can mark at all)
    let by_cp = w.marks_by_cp;
    if w.trace.is_none() && !by_cp {
        return;
    }
    // a mark lands on a queued packet or the arrival, whose levels have all seen arrivals at
    // this port: the levels beyond those the port's counters hold have no marks to add
    let marks: u64 = (0..p.stats.levels.len().min(MAX_LEVELS))
        .map(|l| p.queue.ecn_marks(l).unwrap_or(0))
        .sum();
    let (event, reason) = match dropped {
        Some(r) => (QueueEvent::Drop, r),
        None if marks > w.marks_seen => (QueueEvent::Mark, u8::MAX),
        None => (QueueEvent::Enqueue, u8::MAX),
    };
    w.marks_seen = marks;
    let pkt = pool.get(id);
    if by_cp && event == QueueEvent::Mark {
        p.by_cp.mark(&mut p.cp_first, &p.stats, pkt.rev, pkt.dscp);
    }
    let Some(t) = w.trace.as_mut() else {
        return;
    };
    t.push(Record {
        time_ns: now.0,
        event,
        flow: pkt.flow,
        dscp: pkt.dscp,
        level: colours.level(pkt.dscp),
        size_bytes: pkt.size,
        len_packets: u32::try_from(p.queue.len_packets()).unwrap_or(u32::MAX),
        reason,
    });
}

/// Records a departure from a watched port: its queueing delay and its event.
#[cold]
#[inline(never)]
pub(super) fn watch_departure(
    p: &mut Port,
    pool: &Pool,
    colours: &ColourTable,
    now: SimTime,
    id: PacketId,
) {
    let len = u32::try_from(p.queue.len_packets()).unwrap_or(u32::MAX);
    let w = p.watch.as_deref_mut().expect("a watched port");
    let pkt = pool.get(id);
    if let Some(d) = w.sojourn.as_mut() {
        let at = w.enq_at.get(id.index()).copied().unwrap_or(now.0);
        d.record(now.0.saturating_sub(at));
    }
    if let Some(t) = w.trace.as_mut() {
        t.push(Record {
            time_ns: now.0,
            event: QueueEvent::Dequeue,
            flow: pkt.flow,
            dscp: pkt.dscp,
            level: colours.level(pkt.dscp),
            size_bytes: pkt.size,
            len_packets: len,
            reason: u8::MAX,
        });
    }
}
