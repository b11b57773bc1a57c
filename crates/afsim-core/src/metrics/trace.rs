//! Every event of one queue (`[[monitor]] kind = "events"`, `afsim run --trace-queue`): each
//! arrival — enqueued, enqueued with an ECN mark, or dropped and why — and each departure,
//! with its time, flow, code point, drop-precedence level, size and the queue's length after
//! it, in columns (one row per event, in the order the events happened).
//!
//! What it is for: the queue's own view of a run, as ns-2's queue trace (`trace-queue`: `+`,
//! `-`, `d` records) or ns-3's queue-disc traces give it. A mark is the discipline's decision
//! on that arrival (its ECN-mark counter rose while it took the packet); a packet already CE
//! on arrival is not counted again.

/// What happened to a packet at the queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum QueueEvent {
    /// Accepted into the queue.
    Enqueue = 0,
    /// Accepted into the queue with an ECN Congestion Experienced mark.
    Mark = 1,
    /// Refused (`QueueTrace::reason` says why).
    Drop = 2,
    /// Left the queue for the transmitter.
    Dequeue = 3,
}

impl QueueEvent {
    pub const NAMES: [&'static str; 4] = ["enqueue", "mark", "drop", "dequeue"];
}

/// The events of one queue, in columns.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct QueueTrace {
    pub time_ns: Vec<u64>,
    /// `QueueEvent as u8`.
    pub event: Vec<u8>,
    pub flow: Vec<u32>,
    pub dscp: Vec<u8>,
    /// The drop-precedence level of the code point (the domain's colour table).
    pub level: Vec<u8>,
    pub size_bytes: Vec<u32>,
    /// Packets in the queue just after the event.
    pub len_packets: Vec<u32>,
    /// A drop's reason (`queue::DropReason::index`); `u8::MAX` for the other events.
    pub reason: Vec<u8>,
}

/// One event, as the world hands it over.
#[derive(Clone, Copy, Debug)]
pub struct Record {
    pub time_ns: u64,
    pub event: QueueEvent,
    pub flow: u32,
    pub dscp: u8,
    pub level: u8,
    pub size_bytes: u32,
    pub len_packets: u32,
    pub reason: u8,
}

impl QueueTrace {
    pub fn push(&mut self, r: Record) {
        self.time_ns.push(r.time_ns);
        self.event.push(r.event as u8);
        self.flow.push(r.flow);
        self.dscp.push(r.dscp);
        self.level.push(r.level);
        self.size_bytes.push(r.size_bytes);
        self.len_packets.push(r.len_packets);
        self.reason.push(r.reason);
    }

    pub fn len(&self) -> usize {
        self.time_ns.len()
    }

    pub fn is_empty(&self) -> bool {
        self.time_ns.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_keep_their_order_and_every_column_has_one_value_per_event() {
        let mut t = QueueTrace::default();
        for (i, ev) in [QueueEvent::Enqueue, QueueEvent::Mark, QueueEvent::Drop]
            .into_iter()
            .enumerate()
        {
            t.push(Record {
                time_ns: 10 * i as u64,
                event: ev,
                flow: i as u32,
                dscp: 10,
                level: 0,
                size_bytes: 1000,
                len_packets: i as u32,
                reason: if ev == QueueEvent::Drop { 0 } else { u8::MAX },
            });
        }
        assert_eq!(t.len(), 3);
        assert_eq!(t.event, vec![0, 1, 2]);
        assert_eq!(t.reason, vec![u8::MAX, u8::MAX, 0]);
        assert_eq!(QueueEvent::NAMES[t.event[1] as usize], "mark");
    }
}
