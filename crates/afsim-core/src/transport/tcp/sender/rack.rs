//! RACK-TLP loss detection (RFC 8985), an option of SACK loss recovery (`Params::rack`).
//!
//! Read this first.
//! - Sources: RFC 8985 §6 (RACK: per-segment transmit times, RACK.xmit_ts / end_seq / rtt,
//!   §6.2 steps 1–5, the reordering window min_RTT / 4 and its adaptation in step 4, the
//!   reordering timer §6.2 step 5 and §6.3), §7 (TLP: PTO §7.2, the probe §7.3, detecting a loss
//!   repaired by the probe §7.4). Facts checked against Linux's `tcp_recovery.c`
//!   (`tcp_rack_detect_loss`, `tcp_rack_update_reo_wnd`) and `tcp_output.c`
//!   (`tcp_schedule_loss_probe`, `tcp_send_loss_probe`) and `tcp_input.c`
//!   (`tcp_process_tlp_ack`); no code taken from them.
//! - Off (`rack = None` in the sender) the sender does no RACK work: every hook below is one
//!   `Option` test at its call site.
//! - With RACK on, RACK decides when a segment is lost and recovery begins (Linux's default,
//!   `RACK_NO_DUPTHRESH`: no DupThresh rule); recovery is `Recovery::Rack`: cwnd = ssthresh at
//!   entry as RFC 6675 §5 (4.2), and while cwnd − pipe ≥ 1 SMSS the sender retransmits the
//!   lowest segment marked lost, else sends new data (RFC 8985 §6.1: RACK is the loss
//!   detection, the sending is the recovery's). pipe counts each un-SACKed segment once unless
//!   it is marked lost and not yet retransmitted (Linux `tcp_packets_in_flight`).
//! - One engine timer (`TOKEN_RACK`) carries the reordering timer or the PTO (never both, as
//!   Linux's single timer slot); re-armed lazily like the retransmission timer. Resending the
//!   first unacknowledged segment restarts the retransmission timer (Linux; `rack_sent`).
//! - The window in recovery is cwnd = ssthresh (RFC 6675), or PRR's with `Params::prr`
//!   (RFC 6937, `sender/prr.rs`).
//!
//! Not modelled: D-SACK (the receiver sends none, so §6.2 step 4's growth of the window and
//! §7.4's "probe was a duplicate" test never fire), TCP timestamps (§6.2 step 2's
//! echo_reply test), RFC 8985 §6.3's
//! selective retransmission after an RTO (the sender's go-back-N stays).

use std::collections::VecDeque;

use super::{Phase, Recovery, Reduction, Sender};
use crate::sim::time::{SimDuration, SimTime};
use crate::transport::Ctx;

/// Timer token of the RACK timer (reordering timer or PTO); retransmission timers skip it.
pub(super) const TOKEN_RACK: u32 = u32::MAX - 1;

/// RFC 8985 §7.2: WCDelAckT, the worst-case delayed-ACK time added to the PTO when one
/// segment is in flight (the RFC's 200 ms).
const WC_DEL_ACK: SimDuration = SimDuration::from_millis(200);

/// RFC 8985 §6.2 step 4: recoveries without D-SACK after which the window multiplier returns
/// to 1.
const REO_WND_PERSIST: u32 = 16;

/// One segment sent and not yet cumulatively acknowledged (RFC 8985 §6.1 "per-segment
/// variables").
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Seg {
    pub start: u64,
    pub end: u64,
    /// Segment.xmit_ts: the last (re)transmission.
    pub xmit_ts: SimTime,
    pub retransmitted: bool,
    /// Marked lost and not retransmitted since.
    pub lost: bool,
    pub sacked: bool,
}

/// What the RACK timer is set for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Fire {
    Reordering,
    Probe,
}

/// RACK-TLP state of one sender (RFC 8985 §6.1, §7.1).
#[derive(Clone, Debug, Default)]
pub(super) struct Rack {
    /// Outstanding segments in sequence order.
    pub segs: VecDeque<Seg>,
    /// RACK.xmit_ts, RACK.end_seq: the most recently sent segment delivered; None before.
    last: Option<(SimTime, u64)>,
    /// RACK.rtt.
    rtt: SimDuration,
    /// RACK.min_RTT: the least RTT sample from a segment sent once.
    min_rtt: Option<SimDuration>,
    /// When the segment was sent whose RTT this ACK gives Linux's estimator
    /// (`Params::rtt_every_ack`): the oldest
    /// segment it newly and cumulatively acknowledges, none if it acknowledges a
    /// retransmission (Karn), else from the earliest-sent segment it newly SACKs that was sent
    /// once (Linux `tcp_clean_rtx_queue`'s seq_rtt_us, `tcp_ack_update_rtt`'s sack_rtt_us).
    pub ack_rtt_sent: Option<SimTime>,
    /// RACK.fack and RACK.reordering_seen (§6.2 step 3).
    fack: u64,
    pub reordering_seen: bool,
    /// RACK.reo_wnd_mult, RACK.reo_wnd_persist, RACK.dsack_round (§6.2 step 4).
    reo_wnd_mult: u32,
    reo_wnd_persist: u32,
    dsack_round: Option<u64>,
    /// SACKed segments outstanding (RACK.segs_sacked).
    sacked: usize,
    /// Segments marked lost and not retransmitted.
    lost: usize,
    /// `pipe()`, kept as the marks change: bytes of the segments neither SACKed nor marked
    /// lost (a scan of `segs` on every ACK cost RACK and PRR a tenth of their instructions).
    in_flight: u64,
    /// The RACK timer: when it fires and for what; `scheduled` the engine event pending.
    pub timer: Option<(SimTime, Fire)>,
    scheduled: Option<SimTime>,
    /// TLP.end_seq and TLP.is_retrans (§7.1).
    pub tlp_end: Option<u64>,
    tlp_retrans: bool,
    /// Probes sent and segments marked lost by RACK (for tests and reports).
    pub probes: u64,
    pub marked_lost: u64,
    /// Segments the last ACK newly marked lost (Linux `rs->losses`, for BBR's
    /// `recovery_losses`).
    pub ack_marked: u64,
}

/// RACK_sent_after(t1, seq1, t2, seq2) (RFC 8985 §6.2 step 2).
fn sent_after(t1: SimTime, seq1: u64, t2: SimTime, seq2: u64) -> bool {
    t1 > t2 || (t1 == t2 && seq1 > seq2)
}

impl Rack {
    pub fn new() -> Rack {
        Rack {
            reo_wnd_mult: 1,
            ..Rack::default()
        }
    }

    /// Index of the segment holding byte `seq`.
    fn index(&self, seq: u64) -> usize {
        self.segs.partition_point(|s| s.end <= seq)
    }

    /// A data segment left at `now` (RFC 8985 §6.1: Segment.xmit_ts, Segment.retransmitted).
    pub fn on_sent(&mut self, start: u64, len: u64, now: SimTime, retx: bool) {
        if !retx {
            self.in_flight += len;
            self.segs.push_back(Seg {
                start,
                end: start + len,
                xmit_ts: now,
                retransmitted: false,
                lost: false,
                sacked: false,
            });
            return;
        }
        let i = self.index(start);
        if let Some(s) = self.segs.get_mut(i) {
            if s.lost {
                s.lost = false;
                self.lost -= 1;
                self.in_flight += s.end - s.start;
            }
            s.xmit_ts = now;
            s.retransmitted = true;
        }
    }

    /// RFC 8985 §6.2 steps 1–3 for an ACK with cumulative ACK `una` and SACK `blocks`:
    /// the segments it newly delivers update RACK.xmit_ts, end_seq, rtt, min_RTT, fack and
    /// reordering_seen.
    pub fn on_ack(&mut self, una: u64, blocks: &[(u64, u64)], now: SimTime) {
        let mut delivered: Option<(SimTime, u64)> = None;
        // Linux's per-ACK RTT (`ack_rtt`): the oldest segment cumulatively acknowledged, Karn's
        // rule over all of them; the earliest-sent segment newly SACKed, sent once
        let (mut first_cum, mut karn, mut first_sack) = (None::<SimTime>, false, None::<SimTime>);
        let mut note = |r: &mut Rack, s: Seg| {
            let rtt = now.saturating_since(s.xmit_ts);
            // step 3: a segment delivered below RACK.fack that was sent once was reordered
            if s.end > r.fack {
                r.fack = s.end;
            } else if s.end < r.fack && !s.retransmitted {
                r.reordering_seen = true;
            }
            // step 2: a retransmitted segment whose RTT is below min_RTT was delivered by the
            // original transmission (ambiguous): no sample
            if s.retransmitted && r.min_rtt.is_some_and(|m| rtt < m) {
                return;
            }
            if !s.retransmitted {
                r.min_rtt = Some(r.min_rtt.map_or(rtt, |m| m.min(rtt)));
            }
            if delivered.is_none_or(|(t, e)| sent_after(s.xmit_ts, s.end, t, e)) {
                delivered = Some((s.xmit_ts, s.end));
            }
        };
        while let Some(&s) = self.segs.front() {
            if s.end > una {
                break;
            }
            self.segs.pop_front();
            if s.sacked {
                self.sacked -= 1;
            } else {
                if s.retransmitted {
                    karn = true;
                } else if first_cum.is_none() {
                    first_cum = Some(s.xmit_ts);
                }
                if s.lost {
                    self.lost -= 1;
                } else {
                    self.in_flight -= s.end - s.start;
                }
                note(self, s);
            }
        }
        for &(l, r) in blocks {
            let mut i = self.index(l);
            while let Some(&seg) = self.segs.get(i) {
                if seg.start >= r {
                    break;
                }
                if seg.start >= l && seg.end <= r && !seg.sacked {
                    self.segs[i].sacked = true;
                    self.segs[i].lost = false;
                    self.sacked += 1;
                    if seg.lost {
                        self.lost -= 1;
                    } else {
                        self.in_flight -= seg.end - seg.start;
                    }
                    if !seg.retransmitted && first_sack.is_none_or(|t| seg.xmit_ts < t) {
                        first_sack = Some(seg.xmit_ts);
                    }
                    note(self, seg);
                }
                i += 1;
            }
        }
        self.ack_rtt_sent = first_cum.filter(|_| !karn).or(first_sack);
        // step 2: RACK.rtt is the RTT of the most recently sent segment delivered
        if let Some((t, e)) = delivered {
            self.rtt = now.saturating_since(t);
            if self.last.is_none_or(|(lt, le)| sent_after(t, e, lt, le)) {
                self.last = Some((t, e));
            }
        }
    }

    /// RFC 8985 §6.2 step 4, RACK_update_reo_wnd(): the reordering window. `dsack` says the
    /// ACK carried a D-SACK (never, here: the receiver sends none); `exiting` that a recovery
    /// just ended; `in_recovery` that one is in progress (fast or RTO recovery); then SND.UNA
    /// and SND.NXT.
    pub fn reo_wnd(
        &mut self,
        dsack: bool,
        exiting: bool,
        in_recovery: bool,
        (snd_una, snd_nxt): (u64, u64),
        srtt: Option<SimDuration>,
        dupthresh: u32,
    ) -> SimDuration {
        if self.dsack_round.is_some_and(|r| snd_una >= r) {
            self.dsack_round = None;
        }
        if self.dsack_round.is_none() && dsack {
            self.dsack_round = Some(snd_nxt);
            self.reo_wnd_mult += 1;
            self.reo_wnd_persist = REO_WND_PERSIST;
        } else if exiting {
            self.reo_wnd_persist = self.reo_wnd_persist.saturating_sub(1);
            if self.reo_wnd_persist == 0 {
                self.reo_wnd_mult = 1;
            }
        }
        if !self.reordering_seen && (in_recovery || self.sacked >= dupthresh as usize) {
            return SimDuration::ZERO;
        }
        let min_rtt = self.min_rtt.unwrap_or(SimDuration::ZERO);
        let w = SimDuration::from_nanos(min_rtt.as_nanos() / 4 * u64::from(self.reo_wnd_mult));
        // capped at SRTT, once there is one
        srtt.map_or(w, |s| w.min(s))
    }

    /// RFC 8985 §6.2 step 5, RACK_detect_loss(): marks lost every outstanding segment sent
    /// before RACK.xmit_ts (or at it, below RACK.end_seq) more than RACK.rtt + reo_wnd ago.
    /// Returns the segments newly marked and, if some may be lost later, the time to wait.
    pub fn detect_loss(
        &mut self,
        now: SimTime,
        reo_wnd: SimDuration,
    ) -> (u32, Option<SimDuration>) {
        let Some((xt, xe)) = self.last else {
            return (0, None);
        };
        let mut marked = 0;
        let mut wait: Option<SimDuration> = None;
        let horizon = self.rtt + reo_wnd;
        for s in self.segs.iter_mut() {
            // a segment SACKed, or marked lost and not yet resent, is not looked at again
            if s.sacked || s.lost || !sent_after(xt, xe, s.xmit_ts, s.end) {
                continue;
            }
            let due = s.xmit_ts + horizon;
            if due <= now {
                s.lost = true;
                self.in_flight -= s.end - s.start;
                marked += 1;
            } else {
                let left = due.saturating_since(now);
                wait = Some(wait.map_or(left, |w| w.max(left)));
            }
        }
        self.lost += marked as usize;
        self.marked_lost += u64::from(marked);
        (marked, wait)
    }

    /// RFC 8985 §6.3 RACK_mark_losses_on_RTO(): at a retransmission timeout, the first
    /// outstanding segment and every one sent more than RACK.rtt + reo_wnd ago are lost.
    pub fn mark_on_rto(&mut self, una: u64, now: SimTime, reo_wnd: SimDuration) {
        let horizon = self.rtt + reo_wnd;
        let mut marked = 0;
        for s in self.segs.iter_mut() {
            if !s.sacked && !s.lost && (s.start <= una || s.xmit_ts + horizon <= now) {
                s.lost = true;
                self.in_flight -= s.end - s.start;
                marked += 1;
            }
        }
        self.lost += marked;
        self.marked_lost += marked as u64;
    }

    /// Bytes in flight: un-SACKed segments, less those marked lost and not yet retransmitted
    /// (RFC 6675's pipe with RACK's marks; Linux `tcp_packets_in_flight`).
    pub fn pipe(&self) -> u64 {
        debug_assert_eq!(self.lost, self.segs.iter().filter(|s| s.lost).count());
        debug_assert_eq!(self.sacked, self.segs.iter().filter(|s| s.sacked).count());
        debug_assert_eq!(
            self.in_flight,
            self.segs
                .iter()
                .filter(|s| !s.sacked && !s.lost)
                .map(|s| s.end - s.start)
                .sum::<u64>()
        );
        self.in_flight
    }

    /// The lowest segment marked lost and not yet retransmitted, at or above `from`.
    pub fn first_lost(&self, from: u64) -> Option<(u64, u64)> {
        if self.lost == 0 {
            return None;
        }
        let i = self.index(from);
        self.segs
            .range(i..)
            .find(|s| s.lost)
            .map(|s| (s.start, s.end))
    }

    /// Arms the RACK timer for `fire` at `at`; returns the instant an engine event must be
    /// scheduled for, if the one pending is later (lazy re-arming, as `Sender::arm`).
    fn set_timer(&mut self, at: SimTime, fire: Fire) -> Option<SimTime> {
        self.timer = Some((at, fire));
        match self.scheduled {
            Some(e) if e <= at => None,
            _ => {
                self.scheduled = Some(at);
                Some(at)
            }
        }
    }
}

impl Sender {
    fn rack_set_timer(&mut self, at: SimTime, fire: Fire, ctx: &mut Ctx) {
        if let Some(r) = self.rack.as_deref_mut() {
            if let Some(t) = r.set_timer(at, fire) {
                ctx.set_timer(t, TOKEN_RACK);
            }
        }
    }

    /// Whether the sender would probe now (RFC 8985 §7.2: not in loss recovery, nothing
    /// resent by go-back-N pending, data outstanding, no probe outstanding).
    fn may_probe(&self) -> bool {
        self.phase == Phase::Open
            && self.snd_nxt == self.snd_max
            && self.snd_max > self.snd_una
            && self.rack.as_ref().is_some_and(|r| r.tlp_end.is_none())
    }

    /// RFC 8985 §7.2 TLP_calc_PTO() and the arming of the PTO: 2·SRTT, plus WCDelAckT when
    /// one segment is in flight, no later than the retransmission timer.
    pub(super) fn schedule_probe(&mut self, ctx: &mut Ctx) {
        if !self.may_probe() {
            return;
        }
        let mut pto = if self.rto.has_sample() {
            let two = self.rto.srtt_fine() + self.rto.srtt_fine();
            if self.snd_max - self.snd_una <= self.mss {
                two + WC_DEL_ACK
            } else {
                two
            }
        } else {
            SimDuration::from_secs(1)
        };
        if let Some(deadline) = ctx.flow.retx.deadline() {
            pto = pto.min(deadline.saturating_since(ctx.now));
        }
        self.rack_set_timer(ctx.now + pto, Fire::Probe, ctx);
    }

    /// A data segment left (`transmit`): its transmit time; a new segment (not a probe)
    /// (re)starts the PTO (RFC 8985 §7.2). A retransmission of the first unacknowledged
    /// segment restarts the retransmission timer, unless the reordering timer is pending
    /// (Linux `tcp_xmit_retransmit_queue`: the RTO then counts from the repair of the head,
    /// not from the last cumulative ACK; RFC 6298 (5.1) only starts a stopped timer, and with
    /// RACK's later loss marking the timer would otherwise expire while the repair is in
    /// flight: docs/assumptions.md).
    pub(super) fn rack_sent(&mut self, start: u64, len: u64, retx: bool, ctx: &mut Ctx) {
        let Some(r) = self.rack.as_deref_mut() else {
            return;
        };
        r.on_sent(start, len, ctx.now, retx);
        let reordering = matches!(r.timer, Some((_, Fire::Reordering)));
        if !retx && !reordering {
            self.schedule_probe(ctx);
        } else if retx && start == self.snd_una && !reordering {
            self.arm(ctx.now + self.rto.timeout(), ctx);
        }
    }

    /// RACK on an ACK, after the sender has processed it: RFC 8985 §6.2 steps 1–5, §7.4's
    /// TLP loss detection, the timers. `old_una` is SND.UNA before the ACK; `newly_sacked`
    /// the bytes it SACKed first; `exited` that it ended a recovery.
    pub(super) fn rack_ack(
        &mut self,
        blocks: &[(u64, u64)],
        old_una: u64,
        newly_sacked: u64,
        exited: bool,
        ctx: &mut Ctx,
    ) {
        let (una, nxt, now) = (self.snd_una, self.snd_max, ctx.now);
        let in_rec = matches!(self.phase, Phase::Recovery(_)) || self.snd_nxt < self.snd_max;
        let srtt = self.rto.has_sample().then(|| self.rto.srtt_fine());
        let dupthresh = self.p.dupack_threshold;
        let Some(r) = self.rack.as_deref_mut() else {
            return;
        };
        r.on_ack(una, blocks, now);
        let reo = r.reo_wnd(false, exited, in_rec, (una, nxt), srtt, dupthresh);
        let (marked, wait) = r.detect_loss(now, reo);
        r.ack_marked = u64::from(marked);
        // segments marked lost and not yet resent, newly or before (a mark made while
        // recovery could not begin, or in the go-back-N after a timeout)
        let pending = r.lost > 0;
        self.tlp_ack(old_una, newly_sacked);
        if pending && self.phase == Phase::Open && self.snd_nxt == self.snd_max {
            // RFC 8985 §6.1: a segment RACK marks lost starts loss recovery
            self.rack_enter_recovery(ctx);
        } else if marked > 0 {
            self.rack_resend_in_rto(ctx);
        }
        if let Some(w) = wait {
            // §6.2 step 5: the reordering timer, in place of a PTO
            self.rack_set_timer(now + w, Fire::Reordering, ctx);
        } else if una > old_una {
            // §7.2: an ACK of new data restarts the PTO
            self.rack_cancel();
            self.schedule_probe(ctx);
        } else if !self.may_probe() || matches!(self.rack_fire(), Some(Fire::Reordering)) {
            self.rack_cancel();
        }
    }

    /// Loss recovery for what RACK marked lost: `enter_recovery` (fast retransmit and the
    /// window reduction). In a window of data already reduced (RFC 6582 §3.2 step 1, RFC 6675
    /// §5.1: no second reduction below `recover`, e.g. after a probe's reduction or an ECN
    /// response) the marked segments are still repaired (RFC 8985 §6.1): a recovery without a
    /// reduction, until the cumulative ACK reaches `recover` (a mark left then starts another).
    fn rack_enter_recovery(&mut self, ctx: &mut Ctx) {
        self.enter_recovery(ctx);
        if self.phase != Phase::Open {
            return;
        }
        // `recover` stays: moved forward, it would forbid the next window's reduction
        let first = self.rack.as_ref().and_then(|r| r.first_lost(self.snd_una));
        self.phase = Phase::Recovery(Recovery::Rack);
        if let Some((s, e)) = first {
            self.transmit(s, e - s, ctx);
            // RFC 6937 (`prr`): a recovery without a reduction spreads toward the same ssthresh
            self.prr_enter(self.snd_max - self.snd_una, e - s);
        }
    }

    fn rack_fire(&self) -> Option<Fire> {
        self.rack.as_ref().and_then(|r| r.timer).map(|(_, f)| f)
    }

    fn rack_cancel(&mut self) {
        if let Some(r) = self.rack.as_deref_mut() {
            r.timer = None;
        }
    }

    /// RFC 8985 §7.4.2 with Linux's tests (`tcp_process_tlp_ack`), D-SACK absent: an ACK at or
    /// beyond TLP.end_seq ends the episode; if the probe was a retransmission and the ACK goes
    /// beyond TLP.end_seq, the probe repaired a loss and the window is reduced once; a pure
    /// duplicate ACK at TLP.end_seq says the receiver already had the probe (no loss).
    fn tlp_ack(&mut self, old_una: u64, newly_sacked: u64) {
        let una = self.snd_una;
        let Some(r) = self.rack.as_deref_mut() else {
            return;
        };
        let Some(end) = r.tlp_end else { return };
        if una < end {
            return;
        }
        if !r.tlp_retrans {
            r.tlp_end = None;
        } else if una > end {
            r.tlp_end = None;
            // §7.4.2: "invoke the congestion control's response", once (as a CWR episode in
            // Linux, which ends at ssthresh)
            if self.phase == Phase::Open && self.beyond_recover(old_una) {
                let reduced = self.reduced_ssthresh(self.snd_max - self.snd_una);
                self.ssthresh = self.sustained(reduced);
                self.cwnd = self.cwnd.min(self.ssthresh);
                self.recover = Some(self.snd_max);
                self.reduction = Reduction::Loss;
            }
        } else if una == old_una && newly_sacked == 0 {
            r.tlp_end = None;
        }
    }

    /// The RACK timer's engine event.
    pub(super) fn on_rack_timer(&mut self, ctx: &mut Ctx) {
        let Some(r) = self.rack.as_deref_mut() else {
            return;
        };
        if r.scheduled == Some(ctx.now) {
            r.scheduled = None;
        }
        let Some((at, fire)) = r.timer else { return };
        if at > ctx.now {
            if r.scheduled.is_none() {
                r.scheduled = Some(at);
                ctx.set_timer(at, TOKEN_RACK);
            }
            return;
        }
        r.timer = None;
        match fire {
            Fire::Reordering => self.on_reordering_timer(ctx),
            Fire::Probe => self.send_probe(ctx),
        }
    }

    /// RFC 8985 §6.3: the reordering timer expired: detect losses again, re-arm if needed.
    fn on_reordering_timer(&mut self, ctx: &mut Ctx) {
        let in_rec = matches!(self.phase, Phase::Recovery(_)) || self.snd_nxt < self.snd_max;
        let srtt = self.rto.has_sample().then(|| self.rto.srtt_fine());
        let (una, nxt, dupthresh) = (self.snd_una, self.snd_max, self.p.dupack_threshold);
        let Some(r) = self.rack.as_deref_mut() else {
            return;
        };
        let reo = r.reo_wnd(false, false, in_rec, (una, nxt), srtt, dupthresh);
        let (marked, wait) = r.detect_loss(ctx.now, reo);
        if marked > 0 {
            if self.phase == Phase::Open && self.snd_nxt == self.snd_max {
                self.rack_enter_recovery(ctx);
            }
            self.rack_resend_in_rto(ctx);
            self.send_more(ctx);
        }
        if let Some(w) = wait {
            self.rack_set_timer(ctx.now + w, Fire::Reordering, ctx);
        } else {
            self.schedule_probe(ctx);
        }
    }

    /// RFC 8985 §7.3 TLP_send_probe(): one new segment if there is one and the receiver's
    /// window takes it, else the highest segment sent again; TLP.end_seq = SND.NXT; the
    /// retransmission timer restarts.
    fn send_probe(&mut self, ctx: &mut Ctx) {
        if !self.may_probe() {
            return;
        }
        let len_new = self.mss.min(self.end.saturating_sub(self.snd_max));
        let new_ok =
            len_new > 0 && self.snd_max + len_new - self.snd_una <= self.p.max_window_bytes;
        let last = self
            .rack
            .as_ref()
            .and_then(|r| r.segs.back())
            .map(|s| (s.start, s.end - s.start));
        let (start, len, retrans) = match (new_ok, last) {
            (true, _) => (self.snd_max, len_new, false),
            (false, Some((s, l))) => (s, l, true),
            (false, None) => return,
        };
        if let Some(r) = self.rack.as_deref_mut() {
            // set before sending: a probe does not re-arm the PTO (`rack_sent`)
            r.tlp_end = Some(u64::MAX);
            r.tlp_retrans = retrans;
            r.probes += 1;
        }
        self.transmit(start, len, ctx);
        if !retrans {
            self.snd_nxt = self.snd_max;
        }
        if let Some(r) = self.rack.as_deref_mut() {
            r.tlp_end = Some(self.snd_max);
        }
        // RFC 8985 §7.3: the RTO timer restarts after the probe
        self.arm(ctx.now + self.rto.timeout(), ctx);
    }

    /// RACK recovery's sending (`Recovery::Rack`): while cwnd − pipe ≥ 1 SMSS, the lowest
    /// segment marked lost, else new data (RFC 6675 §5 (C) with RACK's marks in place of
    /// IsLost()).
    pub(super) fn send_rack(&mut self, ctx: &mut Ctx) {
        let Some(r) = self.rack.as_deref() else {
            return;
        };
        let mut pipe = r.pipe();
        let cwnd = self.cwnd * self.mss as f64;
        let mut from = self.snd_una;
        while cwnd - pipe as f64 >= self.mss as f64 {
            if self.pace_wait(ctx) {
                break;
            }
            let lost = self.rack.as_ref().and_then(|r| r.first_lost(from));
            if let Some((s, e)) = lost {
                self.transmit(s, e - s, ctx);
                pipe += e - s;
                from = e;
                continue;
            }
            let len = self.mss.min(self.end.saturating_sub(self.snd_max));
            if len == 0 || self.snd_max + len - self.snd_una > self.p.max_window_bytes {
                break;
            }
            self.transmit(self.snd_max, len, ctx);
            self.snd_nxt = self.snd_max;
            pipe += len;
        }
    }

    /// pipe in RACK recovery (for BBR's recovery window), segments.
    #[inline]
    pub(super) fn rack_pipe_segments(&self) -> Option<f64> {
        let r = self.rack.as_deref()?;
        matches!(self.phase, Phase::Recovery(Recovery::Rack))
            .then(|| r.pipe() as f64 / self.mss as f64)
    }

    /// A retransmission timeout: the probe episode and the RACK timer end; RFC 8985 §6.3
    /// marks what is lost (the go-back-N that follows resends it, `rack_resend_in_rto`
    /// what is lost again).
    pub(super) fn rack_timeout(&mut self, now: SimTime) {
        let (una, nxt) = (self.snd_una, self.snd_max);
        let srtt = self.rto.has_sample().then(|| self.rto.srtt_fine());
        let dupthresh = self.p.dupack_threshold;
        if let Some(r) = self.rack.as_deref_mut() {
            r.timer = None;
            r.tlp_end = None;
            let reo = r.reo_wnd(false, false, true, (una, nxt), srtt, dupthresh);
            r.mark_on_rto(una, now, reo);
        }
    }

    /// After a timeout (go-back-N from SND.UNA, `snd_nxt` < HighData): a segment the
    /// go-back-N already resent and RACK marks lost again goes out once more, while cwnd −
    /// pipe ≥ 1 SMSS (RFC 8985 §6.3: RACK goes on detecting losses in RTO recovery; Linux
    /// retransmits them in its Loss state).
    fn rack_resend_in_rto(&mut self, ctx: &mut Ctx) {
        if self.phase != Phase::Open || self.snd_nxt >= self.snd_max {
            return;
        }
        let Some(r) = self.rack.as_deref() else {
            return;
        };
        let mut pipe = r.pipe();
        let mut from = self.snd_una;
        let cwnd = self.cwnd * self.mss as f64;
        while cwnd - pipe as f64 >= self.mss as f64 {
            let lost = self.rack.as_ref().and_then(|r| r.first_lost(from));
            let Some((s, e)) = lost.filter(|&(s, _)| s < self.snd_nxt) else {
                break;
            };
            self.transmit(s, e - s, ctx);
            pipe += e - s;
            from = e;
        }
    }

    /// Probes sent and segments RACK marked lost, if RACK is on.
    pub fn rack_counts(&self) -> Option<(u64, u64)> {
        self.rack.as_ref().map(|r| (r.probes, r.marked_lost))
    }
}
