//! The receiver's loss detection: which packets are lost, and which losses begin a loss event.
//!
//! Read this first.
//! - RFC 5348 §5.1: a packet is lost once `ndupack` (NDUPACK = 3) packets with a higher sequence
//!   number have arrived; a packet that arrives CE-marked is a loss indication at once (RFC 3168
//!   with §5.1's "marked packets").
//! - §5.2: a lost packet is given the send time interpolated between the packets received just
//!   before and just after it; a loss (or mark) begins a new loss event when its send time is more
//!   than R after the send time of the loss that began the current event, R being the RTT the
//!   sender wrote into its latest data packet. Losses within R belong to the event already open.
//! - ns-2's rules (tfrc-sink.cc `new_loss`, `PreciseLoss_ 1`): the send-time test, and also a
//!   sender round (`round_id`) newer than the event's; a mark is tested before the losses its
//!   packet reveals (ns-2's order in `recv`); `restart_event` is `adjust_history`'s reset of
//!   `lastloss`. Where the two differ the detector asks its `Sink` (`loss_rules.rs`, which
//!   holds each rule set whole).
//!
//! Missing packets are kept as ranges ("holes") with the number of later packets seen since;
//! holes are declared in sequence order, the lowest first (a packet that counts for a hole also
//! counts for every hole below it). A packet that arrives after being declared lost, and a
//! duplicate, change nothing (§5.1 allows correcting the history; not modelled).

use std::collections::VecDeque;

use super::loss_rules::{sink, Sink};
use super::Rules;
use crate::sim::time::{SimDuration, SimTime};

/// A packet seen: its sequence number and the time its sender sent it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Seen {
    seq: u64,
    ts: SimTime,
}

/// Consecutive missing packets `first..=last`, between the packets received just before and
/// after them, with the number of later packets that arrived since they went missing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Hole {
    first: u64,
    last: u64,
    before: Seen,
    after: Seen,
    later: u32,
}

impl Hole {
    /// §5.2: the send time of missing packet `seq`, by linear interpolation.
    fn send_time(&self, seq: u64) -> SimTime {
        let span = u128::from(self.after.ts.0.saturating_sub(self.before.ts.0));
        let num = u128::from(seq - self.before.seq);
        let den = u128::from(self.after.seq - self.before.seq);
        SimTime(self.before.ts.0 + (span * num / den) as u64)
    }
}

/// When and in which sender round the current loss event began.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct EventStart {
    time: SimTime,
    round: u32,
}

/// What one data packet's arrival did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Arrival {
    /// Not seen before: above every packet received, or filling a hole.
    pub new: bool,
    /// It skipped sequence numbers: packets below it and above the highest before it are missing.
    pub gap: bool,
}

#[derive(Clone, Debug)]
pub struct Detector {
    sink: Sink,
    ndupack: u32,
    highest: Option<Seen>,
    holes: VecDeque<Hole>,
    event: Option<EventStart>,
    /// First sequence numbers of the loss events the last arrival began, in order.
    began: Vec<u64>,
    /// Packets declared lost so far.
    pub lost: u64,
    /// Loss events begun so far.
    pub events: u64,
}

impl Detector {
    pub fn new(rules: Rules, ndupack: u32) -> Detector {
        debug_assert!(ndupack >= 1);
        Detector {
            sink: Sink::of(rules),
            ndupack,
            highest: None,
            holes: VecDeque::new(),
            event: None,
            began: Vec::new(),
            lost: 0,
            events: 0,
        }
    }

    /// The highest sequence number received, if any.
    pub fn highest(&self) -> Option<u64> {
        self.highest.map(|h| h.seq)
    }

    /// Whether packet `seq` would be new: above every packet received or inside a hole.
    pub fn is_new(&self, seq: u64) -> bool {
        match self.highest {
            None => true,
            Some(h) if seq > h.seq => true,
            Some(_) => self.holes.iter().any(|h| h.first <= seq && seq <= h.last),
        }
    }

    /// The loss events the last call to `on_data` began, by their first sequence number.
    pub fn began(&self) -> &[u64] {
        &self.began
    }

    /// A data packet arrives: `seq` and `ts` (its send time) from its header, `rtt` the R and
    /// `round` the sender round the receiver now holds (updated from this packet if it is new),
    /// `marked` if it came CE-marked.
    pub fn on_data(
        &mut self,
        seq: u64,
        ts: SimTime,
        rtt: SimDuration,
        round: u32,
        marked: bool,
    ) -> Arrival {
        self.began.clear();
        let seen = Seen { seq, ts };
        let mut arrival = Arrival::default();
        match self.highest {
            None => {
                // the first packet: nothing below it is expected (ns-2 `maxseq = seqno - 1`)
                self.highest = Some(seen);
                arrival.new = true;
            }
            Some(h) if seq > h.seq => {
                for hole in &mut self.holes {
                    hole.later += 1;
                }
                if seq > h.seq + 1 {
                    // the packet that reveals the gap is the first of the later packets
                    self.holes.push_back(Hole {
                        first: h.seq + 1,
                        last: seq - 1,
                        before: h,
                        after: seen,
                        later: 1,
                    });
                    arrival.gap = true;
                }
                self.highest = Some(seen);
                arrival.new = true;
            }
            Some(_) => arrival.new = self.fill(seen),
        }
        let mark = arrival.new && marked;
        let mark_first = sink!(self.sink, mark_before_gaps());
        if mark && mark_first {
            self.loss_at(seq, ts, rtt, round);
        }
        self.declare(rtt, round);
        if mark && !mark_first {
            self.loss_at(seq, ts, rtt, round);
        }
        arrival
    }

    /// ns-2 `adjust_history`: the first loss event is taken to have begun at `time` in `round`.
    pub fn restart_event(&mut self, time: SimTime, round: u32) {
        self.event = Some(EventStart { time, round });
    }

    /// A late packet: if it is missing from a hole, the hole splits around it (it is a later
    /// packet for the part below it). Returns whether it filled a hole.
    fn fill(&mut self, seen: Seen) -> bool {
        let Some(i) = self
            .holes
            .iter()
            .position(|h| h.first <= seen.seq && seen.seq <= h.last)
        else {
            return false;
        };
        for hole in self.holes.iter_mut().take(i) {
            hole.later += 1;
        }
        let hole = self.holes.remove(i).expect("found above");
        let upper = (seen.seq < hole.last).then_some(Hole {
            first: seen.seq + 1,
            before: seen,
            ..hole
        });
        let lower = (hole.first < seen.seq).then_some(Hole {
            last: seen.seq - 1,
            after: seen,
            later: hole.later + 1,
            ..hole
        });
        for part in [upper, lower].into_iter().flatten() {
            self.holes.insert(i, part);
        }
        true
    }

    /// Declares the holes that have seen `ndupack` later packets, lowest first.
    fn declare(&mut self, rtt: SimDuration, round: u32) {
        while self.holes.front().is_some_and(|h| h.later >= self.ndupack) {
            let hole = self.holes.pop_front().expect("checked");
            for seq in hole.first..=hole.last {
                self.lost += 1;
                self.loss_at(seq, hole.send_time(seq), rtt, round);
            }
        }
    }

    /// A loss indication for packet `seq`, sent at `t`: §5.2's rule for a new event (with
    /// ns-2's, the round too).
    fn loss_at(&mut self, seq: u64, t: SimTime, rtt: SimDuration, round: u32) {
        let begins = match self.event {
            None => true,
            Some(e) => sink!(self.sink, begins_event(t, round, e.time, e.round, rtt)),
        };
        if begins {
            self.event = Some(EventStart { time: t, round });
            self.began.push(seq);
            self.events += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const R: SimDuration = SimDuration::from_millis(100);

    /// Packet `seq` sent at `seq` × 10 ms.
    fn ts(seq: u64) -> SimTime {
        SimTime(seq * 10_000_000)
    }

    fn rfc() -> Detector {
        Detector::new(Rules::Rfc5348, 3)
    }

    /// Delivers `seqs` in order (send times `ts(seq)`), round 0; returns the events begun.
    fn deliver(d: &mut Detector, seqs: impl IntoIterator<Item = u64>) -> Vec<u64> {
        let mut began = Vec::new();
        for s in seqs {
            d.on_data(s, ts(s), R, 0, false);
            began.extend_from_slice(d.began());
        }
        began
    }

    #[test]
    fn a_missing_packet_is_lost_at_the_third_later_packet() {
        let mut d = rfc();
        assert_eq!(deliver(&mut d, [0, 1, 2, 3, 4]), Vec::<u64>::new());
        assert_eq!(
            deliver(&mut d, [6, 7]),
            Vec::<u64>::new(),
            "two later packets: not yet lost"
        );
        assert_eq!(d.lost, 0);
        assert_eq!(
            deliver(&mut d, [8]),
            vec![5],
            "the third later packet declares 5 lost"
        );
        assert_eq!((d.lost, d.events), (1, 1));
    }

    #[test]
    fn a_packet_that_arrives_before_its_third_successor_is_not_lost() {
        let mut d = rfc();
        deliver(&mut d, [0, 1, 3, 4]);
        let a = d.on_data(2, ts(2), R, 0, false);
        assert!(a.new && !a.gap, "reordered, then filled");
        assert_eq!(deliver(&mut d, [5, 6, 7, 8]), Vec::<u64>::new());
        assert_eq!(d.lost, 0);
    }

    #[test]
    fn losses_within_one_rtt_of_the_first_are_one_loss_event() {
        let mut d = rfc();
        // 10 ms apart, R = 100 ms: losses sent at 50, 120 and 150 ms (5, 12, 15) are within R
        // of the first; 16 (160 ms) is more than R after 50 ms and begins a new event
        let began = deliver(&mut d, (0..5).chain(6..12).chain(13..15).chain(17..25));
        assert_eq!(began, vec![5, 16]);
        assert_eq!((d.lost, d.events), (4, 2));
    }

    #[test]
    fn a_loss_exactly_one_rtt_after_the_event_began_joins_it() {
        let mut d = rfc();
        // 5 sent at 50 ms, 15 at 150 ms: 150 − 50 = R, not more than R
        deliver(&mut d, (0..5).chain(6..15).chain(16..20));
        assert_eq!((d.lost, d.events), (2, 1));
    }

    #[test]
    fn a_lost_packets_send_time_is_interpolated_between_its_neighbours() {
        let mut d = rfc();
        // 3 and 4 are lost; their neighbours 2 and 5 were sent at 20 and 200 ms (5 left
        // late), so 3 and 4 count as sent at 80 and 140 ms: one event, begun by 3
        d.on_data(0, ts(0), R, 0, false);
        d.on_data(1, ts(1), R, 0, false);
        d.on_data(2, ts(2), R, 0, false);
        d.on_data(5, SimTime::from_nanos(200_000_000), R, 0, false);
        for s in [6, 7] {
            d.on_data(
                s,
                SimTime::from_nanos(200_000_000 + (s - 5) * 10_000_000),
                R,
                0,
                false,
            );
        }
        assert_eq!(d.began(), &[3]);
        assert_eq!(d.lost, 2);
        let hole = Hole {
            first: 3,
            last: 4,
            before: Seen { seq: 2, ts: ts(2) },
            after: Seen {
                seq: 5,
                ts: SimTime::from_nanos(200_000_000),
            },
            later: 3,
        };
        assert_eq!(hole.send_time(3), SimTime::from_nanos(80_000_000));
        assert_eq!(hole.send_time(4), SimTime::from_nanos(140_000_000));
    }

    #[test]
    fn a_ce_mark_is_a_loss_indication_on_arrival() {
        let mut d = rfc();
        deliver(&mut d, 0..3);
        d.on_data(3, ts(3), R, 0, true);
        assert_eq!(d.began(), &[3]);
        assert_eq!((d.lost, d.events), (0, 1));
        d.on_data(4, ts(4), R, 0, true);
        assert_eq!(
            d.began(),
            &[] as &[u64],
            "a second mark within R joins the event"
        );
    }

    #[test]
    fn a_burst_of_missing_packets_is_declared_together() {
        let mut d = rfc();
        deliver(&mut d, 0..10);
        let began = deliver(&mut d, 30..33);
        // 10..=29 lost, sent over 100..290 ms by interpolation: 10 begins an event, 21 (210 ms)
        // is the first more than R after 100 ms and begins the second
        assert_eq!(began, vec![10, 21]);
        assert_eq!(d.lost, 20);
    }

    #[test]
    fn a_late_packet_splits_its_hole() {
        let mut d = rfc();
        deliver(&mut d, [0, 1, 5]); // 2, 3, 4 missing
        d.on_data(3, ts(3), R, 0, false);
        assert!(d.is_new(2) && !d.is_new(3) && d.is_new(4));
        deliver(&mut d, [6]); // 2 has seen 5, 3, 6: lost; 4 has seen 5, 6 only
        assert_eq!(d.lost, 1);
        deliver(&mut d, [7]);
        assert_eq!(d.lost, 2);
        assert_eq!(d.events, 1, "2 and 4 are sent 20 ms apart: one event");
    }

    #[test]
    fn duplicates_and_late_arrivals_of_lost_packets_change_nothing() {
        let mut d = rfc();
        deliver(&mut d, [0, 1, 3, 4, 5]);
        assert_eq!(d.lost, 1);
        assert!(!d.on_data(2, ts(2), R, 0, false).new);
        assert!(!d.on_data(4, ts(4), R, 0, false).new);
        assert_eq!((d.lost, d.events, d.highest()), (1, 1, Some(5)));
    }

    #[test]
    fn with_ndupack_one_the_gap_itself_is_the_loss() {
        let mut d = Detector::new(Rules::Ns2, 1);
        d.on_data(0, ts(0), R, 0, false);
        let a = d.on_data(2, ts(2), R, 0, false);
        assert!(a.gap);
        assert_eq!(d.began(), &[1]);
    }

    #[test]
    fn ns2_also_needs_a_newer_sender_round_for_a_new_event() {
        let mut d = Detector::new(Rules::Ns2, 1);
        d.on_data(0, ts(0), R, 3, false);
        d.on_data(2, ts(2), R, 3, false);
        assert_eq!(d.events, 1);
        // 20 is sent 190 ms after 1, more than R, but in the same round 3: same event
        d.on_data(19, ts(19), R, 3, false);
        d.on_data(21, ts(21), R, 3, false);
        assert_eq!(d.events, 1);
        d.on_data(23, ts(23), R, 4, false);
        assert_eq!(d.began(), &[22]);
        // the RFC rule alone begins a second event at 12 (sent 120 ms, more than R after 10 ms)
        let mut r = rfc();
        deliver(&mut r, [0, 2, 3, 4, 19, 21, 22, 23]);
        assert_eq!(r.events, 2);
    }

    #[test]
    fn restarting_the_event_moves_the_window_of_one_rtt() {
        let mut d = Detector::new(Rules::Ns2, 1);
        d.on_data(0, ts(0), R, 0, false);
        d.on_data(2, ts(2), R, 1, false); // event at 10 ms
        d.restart_event(ts(12), 1); // ns-2: lastloss = the revealing packet's timestamp
        d.on_data(19, ts(19), R, 2, false);
        d.on_data(21, ts(21), R, 2, false); // 20 sent at 200 ms: 80 ms after 120 ms
        assert_eq!(d.events, 1);
    }
}
