//! Delivery-rate samples, draft-cheng-iccrg-delivery-rate-estimation-00 §3.
//!
//! Read this first: every data segment sent records the connection's delivery state at that
//! moment (§3.2, "Transmitting a data packet": `P.delivered`, `P.delivered_time`,
//! `P.first_sent_time`, `P.sent_time`); every ACK marks what it newly delivers — the
//! segments the cumulative ACK passes and those newly SACKed — adds them to `C.delivered`,
//! and takes the sample from the most recently sent of them (§3.3, "Upon receiving ACK"):
//! delivered = C.delivered − P.delivered over max(send_elapsed, ack_elapsed) (§3.3,
//! "interval"). A sample over an interval shorter than the minimum RTT is discarded (§3.3,
//! as Linux's `tcp_rate_gen`). The greedy sources afsim models are never application-limited,
//! so `is_app_limited` is always false (§3.4 is not needed).
//!
//! Segments are kept in a ring in sequence order, appended as new data leaves and popped as
//! the cumulative ACK passes them; a retransmission or a SACK block finds its segment by
//! (sequence − first sequence) / MSS, since every segment but a finite transfer's last is
//! one MSS long (so the common path — new data, cumulative ACKs — divides nothing). Without SACK a duplicate ACK counts one
//! segment delivered (as Linux's `tcp_add_reno_sack`) and takes no sample; the cumulative ACK
//! that follows counts only what those duplicates did not.

use std::collections::VecDeque;

use crate::sim::time::{SimDuration, SimTime};

#[derive(Clone, Copy, Debug, PartialEq)]
struct Tx {
    seq: u64,
    end: u64,
    sent: SimTime,
    delivered: u64,
    delivered_time: SimTime,
    first_sent: SimTime,
    retransmitted: bool,
    sacked: bool,
}

/// One rate sample (§3.3).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    /// Bytes newly delivered by this ACK.
    pub newly_delivered: u64,
    /// Whether the ACK delivered a segment the sample was taken from (the fields below).
    pub from_segment: bool,
    /// `P.delivered` of the most recently sent segment this ACK delivered (the round counter's
    /// reference, BBR's `packet.delivered`).
    pub prior_delivered: u64,
    /// Delivery rate, payload bytes per second, if the interval was valid.
    pub rate_bytes_per_s: Option<f64>,
    /// RTT of that segment, if it was sent once (Karn).
    pub rtt: Option<SimDuration>,
}

#[derive(Clone, Debug, Default)]
pub struct RateSampler {
    mss: u64,
    /// The segments sent and not cumulatively acknowledged, in sequence order.
    ring: VecDeque<Tx>,
    /// C.delivered, payload bytes.
    delivered: u64,
    delivered_time: SimTime,
    first_sent_time: SimTime,
    /// Bytes counted for duplicate ACKs without SACK, not yet passed by the cumulative ACK.
    dup_credit: u64,
}

impl RateSampler {
    pub fn new(mss: u64) -> RateSampler {
        RateSampler {
            mss: mss.max(1),
            ..RateSampler::default()
        }
    }

    /// C.delivered: payload bytes delivered so far.
    pub fn delivered(&self) -> u64 {
        self.delivered
    }

    /// The ring index of the segment holding byte `seq`, if it is in the ring.
    fn index_of(&self, seq: u64) -> Option<usize> {
        let first = self.ring.front()?.seq;
        if seq < first {
            return None;
        }
        let i = ((seq - first) / self.mss) as usize;
        match self.ring.get(i) {
            Some(t) if t.seq <= seq && seq < t.end => Some(i),
            _ => self.ring.iter().position(|t| t.seq <= seq && seq < t.end),
        }
    }

    /// §3.2: the segment at `seq` of `bytes` leaves at `now`; `in_flight` bytes were
    /// outstanding before it.
    #[inline(always)]
    pub fn on_send(&mut self, seq: u64, bytes: u64, now: SimTime, in_flight: u64, retx: bool) {
        if in_flight == 0 {
            self.first_sent_time = now;
            self.delivered_time = now;
        }
        let tx = Tx {
            seq,
            end: seq + bytes,
            sent: now,
            delivered: self.delivered,
            delivered_time: self.delivered_time,
            first_sent: self.first_sent_time,
            retransmitted: retx,
            sacked: false,
        };
        match self.ring.back() {
            Some(b) if seq < b.end => {
                // a retransmission (or go-back-N): the segment's record is renewed
                if let Some(i) = self.index_of(seq) {
                    let t = &mut self.ring[i];
                    *t = Tx {
                        sacked: t.sacked,
                        retransmitted: true,
                        ..tx
                    };
                }
            }
            _ => self.ring.push_back(tx),
        }
    }

    /// Marks the segments of the SACK block [l, r) not SACKed before, walking in from its
    /// edges; calls `take` on each.
    fn sack_block(&mut self, l: u64, r: u64, take: &mut impl FnMut(&Tx)) {
        if r <= l {
            return;
        }
        if let Some(hi) = self.index_of(r - 1) {
            for i in (0..=hi).rev() {
                let t = &mut self.ring[i];
                if t.sacked || t.seq < l {
                    break;
                }
                t.sacked = true;
                take(t);
            }
        }
        if let Some(lo) = self.index_of(l) {
            for i in lo..self.ring.len() {
                let t = &mut self.ring[i];
                if t.sacked || t.end > r {
                    break;
                }
                t.sacked = true;
                take(t);
            }
        }
    }

    /// An ACK at `now` moving the cumulative ACK from `old_una` to `una`, with SACK blocks
    /// `sacks` (if the connection uses SACK: `sack`); `min_rtt` discards short intervals.
    #[inline(always)]
    pub fn on_ack(
        &mut self,
        old_una: u64,
        una: u64,
        sack: bool,
        sacks: &[(u64, u64)],
        now: SimTime,
        min_rtt: Option<SimDuration>,
    ) -> Sample {
        let mut newest: Option<Tx> = None;
        let mut sacked_bytes = 0u64;
        // §3.3: the sample comes from the most recently sent segment delivered
        let mut take = |t: &Tx, bytes: &mut u64| {
            *bytes += t.end - t.seq;
            if newest.is_none_or(|n| t.sent > n.sent || (t.sent == n.sent && t.seq > n.seq)) {
                newest = Some(*t);
            }
        };
        if sack {
            for &(l, r) in sacks {
                self.sack_block(l, r, &mut |t| take(t, &mut sacked_bytes));
            }
        }
        let mut newly = sacked_bytes;
        // segments the cumulative ACK passes
        let mut cum = 0u64;
        while self.ring.front().is_some_and(|t| t.end <= una) {
            let t = self.ring.pop_front().expect("front exists");
            if !t.sacked {
                take(&t, &mut cum);
            }
        }
        if !sack {
            if una == old_una {
                // a duplicate ACK: one segment has left the network (Linux tcp_add_reno_sack)
                self.dup_credit += self.mss;
                newly += self.mss;
            } else {
                let credited = self.dup_credit.min(cum);
                self.dup_credit -= credited;
                newly += cum - credited;
            }
        } else {
            newly += cum;
        }
        self.delivered += newly;
        let mut s = Sample {
            newly_delivered: newly,
            from_segment: false,
            prior_delivered: 0,
            rate_bytes_per_s: None,
            rtt: None,
        };
        let Some(p) = newest else { return s };
        self.delivered_time = now;
        // §3.3: the newest segment's send time starts the next send interval
        self.first_sent_time = p.sent;
        s.from_segment = true;
        s.prior_delivered = p.delivered;
        s.rtt = (!p.retransmitted).then(|| now.saturating_since(p.sent));
        let send_elapsed = p.sent.saturating_since(p.first_sent);
        let ack_elapsed = now.saturating_since(p.delivered_time);
        let interval = send_elapsed.max(ack_elapsed);
        let too_short = min_rtt.is_some_and(|m| interval < m);
        if interval > SimDuration::ZERO && !too_short {
            let d = self.delivered - p.delivered;
            s.rate_bytes_per_s = Some(d as f64 / interval.as_secs_f64());
        }
        s
    }
}
