//! The `rfc` preset (the default): where the sender's rule sets differ, the RFCs' rules, in the
//! order of `preset::Rules`.
//!
//! - RFC 5681 §3.1: slow start adds min(N, SMSS) per new ACK (eq. 2); ssthresh = max(FlightSize
//!   / 2, 2·SMSS) (eq. 4) at a fast retransmit, an ECN response and the first timeout of a
//!   segment only.
//! - RFC 5681 §3.2 (Reno): fast retransmit on the third duplicate ACK, whatever `recover`
//!   says; RFC 6582 §3.2 step 1 and RFC 6675 §5.1 (NewReno, SACK): only when the cumulative
//!   ACK covers more than `recover`. cwnd = ssthresh (+ 3 segments of inflation for Reno and
//!   NewReno).
//! - RFC 6582 §3.2 step 3: a partial ACK deflates cwnd by the amount acknowledged and adds one
//!   segment back if a segment's worth was.
//! - RFC 3042 §2: limited transmit sends new data only, within cwnd + 2 segments.
//! - RFC 3168 §6.1.2: at most one ECN response per window of data, only outside loss recovery,
//!   to half the window (at least one segment); no window growth on ECN-Echo ACKs; §6.1.5:
//!   retransmissions are not ECN-capable.
//! - RFC 6298 (5.2): the timer stops once everything is acknowledged; Karn's rule: any
//!   retransmission stops RTT timing, and a valid sample ends the backoff.
//! - No burst limit: an ACK sends what the window allows.

use super::preset::Rules;
use super::{Phase, Sender, HEADER_BYTES};
use crate::transport::Ctx;

/// The RFC rule set.
pub(super) struct Rfc;

impl Rules for Rfc {
    fn initial_recover(_mss: u64) -> Option<u64> {
        // no reduction yet: nothing blocks the first fast retransmit
        None
    }

    fn ignores_dupack(_s: &Sender, _ack: u64) -> bool {
        false
    }

    fn send_after_ack(s: &mut Sender, _was_open: bool, ctx: &mut Ctx) {
        s.send_more(ctx);
    }

    fn ecn_response(s: &mut Sender, ack: u64) {
        // RFC 3168 §6.1.2: once per window of data (ACK beyond `recover`), outside recovery
        if s.phase != Phase::Open || !s.beyond_recover(ack) {
            return;
        }
        let reduced = s.reduced_ssthresh(s.snd_max - s.snd_una);
        s.ssthresh = s.sustained(reduced);
        // RFC 3168 §6.1.2: half the window (CUBIC: RFC 9438 §4.6, `Sender::ecn_window`)
        s.cwnd = s.sustained(s.ecn_window());
        s.ecn_reduced();
    }

    fn ack_opens_cwnd(_s: &mut Sender, ece: bool, _in_sack1: bool) -> bool {
        // RFC 3168 §6.1.2: no increase in response to an ECN-Echo ACK
        !ece
    }

    fn slow_start_increment(s: &Sender, acked: u64) -> f64 {
        // RFC 5681 eq. (2): cwnd += min(N, SMSS)
        (acked as f64 / s.mss as f64).min(1.0)
    }

    fn on_full_ack(_s: &mut Sender, _acked: u64, _opens: bool) {
        // RFC 5681 §3.2 step 6 / RFC 6582 §3.2 step 3 (2): cwnd = ssthresh, nothing more
    }

    fn partial_ack_window(s: &mut Sender, acked: u64, deflate_to: f64) -> f64 {
        // RFC 6582 §3.2 step 3: deflate by the amount acknowledged, add back one segment if a
        // segment's worth was
        let back = if acked >= s.mss { 1.0 } else { 0.0 };
        s.cwnd = (s.cwnd - acked as f64 / s.mss as f64 + back).max(1.0);
        deflate_to
    }

    fn first_ack_window(_s: &mut Sender, _ack: u64, _was_open: bool) {}

    fn timer_runs_when_idle(_s: &Sender) -> bool {
        // RFC 6298 (5.2): all outstanding data acknowledged: the timer stops
        false
    }

    fn limited_transmit(s: &mut Sender, ctx: &mut Ctx) {
        // RFC 3042 §2: one new segment if no more than cwnd + 2 segments would be outstanding
        if s.snd_nxt != s.snd_max || s.snd_max >= s.end {
            return;
        }
        let len = s.mss.min(s.end - s.snd_max);
        let out = s.snd_max + len - s.snd_una;
        if out as f64 <= (s.cwnd + 2.0) * s.mss as f64 && out <= s.max_window {
            s.transmit(s.snd_max, len, ctx);
            s.snd_nxt = s.snd_max;
            s.lt_bytes += len;
        }
    }

    fn may_enter_recovery(s: &Sender) -> bool {
        // RFC 5681 §3.2: Reno has no guard; RFC 6582 §3.2 step 1, RFC 6675 §5.1: NewReno and
        // SACK only when the cumulative ACK covers more than `recover`
        s.variant == super::Variant::Reno || s.beyond_recover(s.snd_una)
    }

    fn recovery_window(s: &Sender) -> f64 {
        // RFC 5681 §3.2 step 3, RFC 6675 §5 (4.2): cwnd = ssthresh
        s.ssthresh
    }

    fn recover_moves_after_ecn(_s: &Sender) -> bool {
        true
    }

    fn on_fast_retransmit(_s: &mut Sender, _ctx: &mut Ctx) {
        // the timer runs on (RFC 6298 restarts it on new ACKs only)
    }

    fn reduced_ssthresh(s: &Sender, flight: u64) -> f64 {
        // RFC 5681 eq. (4): max(FlightSize / 2, 2·SMSS)
        (flight as f64 / s.mss as f64 / 2.0).max(2.0)
    }

    fn idle_timeout(_s: &mut Sender, _ctx: &mut Ctx) {
        // nothing outstanding, nothing to do (the RFC preset keeps cwnd ≥ 1 segment)
    }

    fn timeout_cuts_ssthresh(s: &Sender) -> bool {
        // RFC 5681 §3.1: not when this segment was already resent by the timer
        s.timeout_una != Some(s.snd_una)
    }

    fn after_timeout(_s: &mut Sender) {}

    fn retransmission_is_ect(_s: &Sender) -> bool {
        // RFC 3168 §6.1.5
        false
    }

    fn syn_slot(_s: &Sender, _start: u64) -> bool {
        false
    }

    fn retransmission_stops_timing(_s: &Sender) -> bool {
        // Karn: a retransmission spoils the segment being timed
        true
    }

    fn header_bytes(_s: &Sender, _seq: u64, _payload: u32) -> u32 {
        HEADER_BYTES
    }

    fn sample_ends_backoff(_s: &mut Sender, _ece: bool) -> bool {
        // Karn: a valid sample ends the backoff
        true
    }

    fn on_open_new_ack(_s: &mut Sender) {}
}
