//! The `ns2` preset (`Params::ns2_compat`): ns-2.35's `RenoTcpAgent`, `NewRenoTcpAgent` and
//! `Sack1TcpAgent` (tcp.cc, tcp-reno.cc, tcp-newreno.cc, tcp-sack1.cc) where they differ from
//! the RFCs, in the order of `preset::Rules`, each rule cited. In short:
//!
//! - ssthresh = max(⌊min(cwnd, rwnd)/2⌋, 2) segments and cwnd = min(cwnd, rwnd)/2 on fast
//!   retransmit (`slowdown`), instead of ssthresh = max(FlightSize/2, 2·MSS) and cwnd =
//!   ssthresh; the ACK that ends fast recovery also opens cwnd; every timeout halves
//!   ssthresh again (RFC 5681: only the first timeout of a segment); slow start adds a whole
//!   segment per new ACK (RFC 5681: min(acked, MSS));
//! - `recover` starts at packet 0: no fast retransmit before segment 0 is acknowledged, no
//!   ECN response to its ACK; Reno refuses a second fast retransmit in one window (`bugFix_`);
//!   fast retransmit restarts the retransmit timer and stops RTT timing (`reset_rtx_timer`),
//!   other retransmissions do not stop it;
//! - the ACK of segment 0 alone sets cwnd back to the initial window, one segment if
//!   segment 0 timed out (`delay_growth_`, `bugfix_ss_`; without a handshake only);
//! - limited transmit sends the next segment to send, old or new, within cwnd + the
//!   duplicate ACKs so far (`send_one`), also during go-back-N (RFC 3042: new data only);
//! - ECN: retransmissions carry ECT and may carry CWR (RFC 3168 §6.1.5 forbids both);
//!   segment 0 is not ECN-capable and carries ECE (ns-2's SYN slot; the receiver echoes it,
//!   which ends window growth on ECN-Echo ACKs from the first ACK on, ns-2's `ect_`); the
//!   first ECN-Echo after a timeout is acted on whatever
//!   its window, cwnd may fall below one segment (the sender then waits for the timer), a
//!   second response at cwnd ≤ 1 backs the timer off, and a timeout that ends an ECN
//!   reduction leaves ssthresh alone (`ecn`, `timeout`, `newtimer`);
//! - SACK is ns-2's `Sack1TcpAgent`, not RFC 6675: a `pipe` counter, every hole below the
//!   highest SACK resent in order, duplicate ACKs ignored from a timeout to the next new
//!   ACK, the scoreboard cleared by every new ACK outside recovery and at a timeout, and
//!   go-back-N resending SACKed data (`Recovery::Sack1`).
//!
//! The state only this preset keeps is `Sender::ns2` (`preset::Ns2State`); SACK recovery as
//! `Sack1TcpAgent` runs it is `Recovery::Sack1` in `sender.rs` (`send_sack1`), chosen at the
//! fast retransmit.

use super::preset::Rules;
use super::{EcnState, Phase, Recovery, Reduction, Sender, Variant, HEADER_BYTES};
use crate::transport::Ctx;

/// The ns-2.35 rule set.
pub(super) struct Ns2;

impl Rules for Ns2 {
    fn initial_recover(mss: u64) -> Option<u64> {
        // ns-2 starts `recover_` at 0, packet 0: no fast retransmit before packet 0 is
        // acknowledged, no ECN response before packet 1 is (`dupack_action`, `ecn`)
        Some(mss)
    }

    fn ignores_dupack(s: &Sender, ack: u64) -> bool {
        // ns-2 Sack1 ignores duplicate ACKs from a timeout until the next new ACK (`timeout_`)
        s.ns2.ignore_dupacks && ack == s.snd_una
    }

    fn send_after_ack(s: &mut Sender, was_open: bool, ctx: &mut Ctx) {
        // ns-2.35 NewRenoTcpAgent::recv ends with `send_much(0, 0, 2)` while dupacks_ ≥
        // numdupacks_ (newreno_changes_ 0): at most two new segments per ACK in fast recovery,
        // whose partial ACKs leave dupacks_ alone, and past a refused fast retransmit; Reno and
        // Sack1 send what the window allows (maxburst_ 0)
        if s.variant == Variant::Sack && was_open && s.dupacks > 0 {
            // ns-2.35 Sack1TcpAgent::recv, outside fast recovery: `send_much` only when
            // dupacks_ == 0, so a duplicate ACK sends nothing of its own, and the one that
            // starts fast recovery sends the retransmission alone (`dupack_action`'s `output`)
            return;
        }
        let burst = s.variant == Variant::NewReno
            && (matches!(s.phase, Phase::Recovery(Recovery::Fast { .. }))
                || (s.phase == Phase::Open && s.dupacks >= s.p.dupack_threshold));
        if burst {
            s.send_window(Some(2), ctx);
        } else {
            s.send_more(ctx);
        }
    }

    /// ns-2.35 tcp.cc `TcpAgent::ecn`: also on the first ECN-Echo after a timeout, whatever
    /// window it belongs to (`last_cwnd_action_ == CWND_ACTION_TIMEOUT`); cwnd is halved
    /// without a floor, so from one segment it goes to half a segment and nothing is sent until
    /// the retransmission timer expires; a second response at cwnd ≤ 1 doubles the timer
    /// (`ecn_backoff_`). Also in loss recovery: see `Sender::on_ece`.
    fn ecn_response(s: &mut Sender, ack: u64) {
        let after_timeout = s.reduction == Reduction::Timeout;
        let in_recovery = matches!(
            s.phase,
            Phase::Recovery(Recovery::Fast { .. } | Recovery::Sack1 { .. })
        );
        if (s.phase != Phase::Open && !in_recovery) || !(s.beyond_recover(ack) || after_timeout) {
            return;
        }
        let reduced = s.reduced_ssthresh(s.snd_max - s.snd_una);
        s.ssthresh = s.sustained(reduced);
        if s.cwnd <= 1.0 {
            if s.ns2.ecn_backoff {
                s.rto.back_off();
            }
            s.ns2.ecn_backoff = true;
        } else {
            s.ns2.ecn_backoff = false;
        }
        // ns-2 slowdown(CLOSE_CWND_HALF): windowd() / 2, no floor
        s.cwnd = s.sustained(s.window_segments() / 2.0);
        s.ecn_reduced();
    }

    fn ack_opens_cwnd(s: &mut Sender, ece: bool, in_sack1: bool) -> bool {
        // ns-2 opens cwnd on an ECN-Echo ACK until one has been seen (`ect_` is still 0)
        let opens = !ece || !s.ns2.ece_seen;
        // (ns-2 Sack1's recovery ACKs skip recv_newack_helper)
        if !in_sack1 {
            // ns-2 recv_newack_helper: an ACK without ECN-Echo ends the ECN backoff; `ect_`
            // once one has carried it
            if s.ns2.ece_seen && !ece {
                s.ns2.ecn_backoff = false;
            }
            s.ns2.ece_seen |= ece;
        }
        opens
    }

    fn slow_start_increment(_s: &Sender, _acked: u64) -> f64 {
        // ns-2 `opencwnd`: a whole segment per new ACK
        1.0
    }

    fn on_full_ack(s: &mut Sender, acked: u64, opens: bool) {
        // ns-2: the exiting ACK goes through recv_newack_helper → opencwnd
        if opens {
            s.open_cwnd_reno(acked);
        }
    }

    fn partial_ack_window(s: &mut Sender, acked: u64, mut deflate_to: f64) -> f64 {
        // ns-2.35 NewRenoTcpAgent::partialnewack (`partial_window_deflation_`): the window is
        // cwnd_ + dupwnd_; `deflate` packets acknowledged come off dupwnd_ (less one) while it
        // is larger, otherwise off cwnd_ itself (floor 1) with dupwnd_ left at 1 — so the
        // window recovery ends with, cwnd_, can end below where the fast retransmit set it
        let deflate = (acked / s.mss) as f64;
        let mut inflation = s.cwnd - deflate_to;
        if inflation > deflate {
            inflation -= deflate - 1.0;
        } else {
            deflate_to = s.sustained((deflate_to - (deflate - inflation)).max(1.0));
            inflation = 1.0;
        }
        s.cwnd = deflate_to + inflation;
        deflate_to
    }

    fn first_ack_window(s: &mut Sender, ack: u64, was_open: bool) {
        // ns-2 `delay_growth_` (on by default; tcp-reno.cc, tcp-newreno.cc, tcp-sack1.cc
        // `recv`: `if (last_ack_ == 0 && delay_growth_) cwnd_ = initial_window()`): the ACK of
        // segment 0 alone does not grow the window. ns-2's one-way TCP with `syn_` false has no
        // SYN, so this is the first data segment's ACK; with a handshake the SYN-ACK plays its
        // part.
        let exits_sack = s.variant == Variant::Sack && !was_open;
        let first = ack == s.mss.min(s.end);
        if !s.handshake && first && !exits_sack && s.phase == Phase::Open {
            s.cwnd = s.ns2.growth_window;
        }
    }

    fn timer_runs_when_idle(s: &Sender) -> bool {
        // ns-2 `newtimer` keeps the timer while cwnd < 1: an ECN response left nothing to
        // send, and the timer's expiry lets the sender go on
        s.cwnd < 1.0
    }

    /// ns-2.35 tcp.cc `TcpAgent::send_one`, `singledup_`: the next segment to send,
    /// `t_seqno_`, if at most cwnd + (duplicate ACKs so far) segments would then be
    /// outstanding — also while go-back-N after a timeout has pulled it below HighData, so the
    /// segment may be an old one the receiver already holds (RFC 3042 sends new data only).
    fn limited_transmit(s: &mut Sender, ctx: &mut Ctx) {
        if s.snd_nxt >= s.end {
            return;
        }
        let len = s.mss.min(s.end - s.snd_nxt);
        let out = s.snd_nxt + len - s.snd_una;
        let allowance = s.cwnd + f64::from(s.dupacks);
        if out as f64 <= allowance * s.mss as f64 && out <= s.max_window {
            if s.snd_nxt == s.snd_max {
                s.lt_bytes += len;
            }
            s.transmit(s.snd_nxt, len, ctx);
            s.snd_nxt += len;
        }
    }

    fn may_enter_recovery(s: &Sender) -> bool {
        // Reno too refuses a second fast retransmit in one window (`bugFix_`); a fast
        // retransmit is allowed when the ACK covers packet 0 alone (`bugfix_ss_`)
        s.beyond_recover(s.snd_una) || s.snd_una == s.mss
    }

    fn recovery_window(s: &Sender) -> f64 {
        // ns-2 `slowdown(CLOSE_SSTHRESH_HALF | CLOSE_CWND_HALF)`: cwnd = windowd() / 2
        s.sustained(s.half_window())
    }

    fn recover_moves_after_ecn(_s: &Sender) -> bool {
        // ns-2 (`dupack_action`, the ECN branch) leaves `recover_` at the ECN reduction's
        false
    }

    fn on_fast_retransmit(s: &mut Sender, ctx: &mut Ctx) {
        // ns-2 reset_rtx_timer(1, 0) on fast retransmit: restart the timer, stop timing
        s.arm(ctx.now + s.rto.timeout(), ctx);
        s.timing = None;
    }

    fn reduced_ssthresh(s: &Sender, _flight: u64) -> f64 {
        // ns-2 `slowdown`: ssthresh_ = max(⌊windowd() / 2⌋, 2)
        (s.window_segments() / 2.0).floor().max(2.0)
    }

    fn idle_timeout(s: &mut Sender, ctx: &mut Ctx) {
        if s.cwnd < 1.0 {
            // ns-2 (`TcpAgent::timeout` with no data outstanding, `restart_bugfix_`): the
            // timer an ECN response left running at cwnd < 1 expires: cwnd = 1 segment,
            // ssthresh and the backoff unchanged, and sending resumes
            s.stats.timeouts += 1;
            s.cwnd = 1.0;
            s.recover = Some(s.snd_max);
            s.reduction = Reduction::Timeout;
            if let EcnState::On { .. } = s.ecn {
                s.ecn = EcnState::On { cwr_pending: true };
            }
            s.send_more(ctx);
        }
    }

    fn timeout_cuts_ssthresh(s: &Sender) -> bool {
        // ns-2 (`TcpAgent::timeout`) halves again at every timeout, except that a timeout
        // before the ECN reduction's window is acknowledged closes cwnd to one segment but
        // leaves ssthresh as the reduction set it (and is not counted in `nrexmit_`)
        let ends_ecn = s.reduction == Reduction::Ecn && !s.reaches_recover(s.snd_una);
        !ends_ecn
    }

    fn after_timeout(s: &mut Sender) {
        if s.snd_una == 0 {
            // ns-2 `bugfix_ss_`: segment 0 lost, so no larger initial window afterwards
            s.ns2.growth_window = 1.0;
        }
        // ns-2 Sack1TcpAgent::timeout: scoreboard cleared, duplicate ACKs ignored until the
        // next new ACK (`timeout_`)
        s.clear_scoreboard();
        s.ns2.ignore_dupacks = s.sack.is_some();
    }

    fn retransmission_is_ect(_s: &Sender) -> bool {
        // ns-2 marks retransmissions ECN-capable (RFC 3168 §6.1.5 forbids it)
        true
    }

    fn syn_slot(s: &Sender, start: u64) -> bool {
        // ns-2 `TcpAgent::output` sends packet 0 not ECN-capable (its SYN, even with `syn_`
        // false, when it is the first data segment), and with ECN-Echo set: `if (seqno == 0)
        // { ... if (ecn_) { hf->ecnecho() = 1; hf->ect() = 0; } }`, ECN's SYN negotiation,
        // which TCPSink answers with ECN-Echo on the ACK of packet 0 (the receiver's
        // `negotiated_echo`)
        !s.handshake && start == 0
    }

    fn retransmission_stops_timing(_s: &Sender) -> bool {
        // ns-2 stops timing only at a fast retransmit or a timeout (`reset_rtx_timer`)
        false
    }

    fn header_bytes(s: &Sender, seq: u64, payload: u32) -> u32 {
        // ns-2 `TcpAgent::output` adds the header bytes to every packet but packet 0, its SYN
        // slot: with `syn_` false the first data segment leaves as its payload alone
        if !s.handshake && seq == 0 && payload > 0 {
            0
        } else {
            HEADER_BYTES
        }
    }

    fn sample_ends_backoff(s: &mut Sender, ece: bool) -> bool {
        // ns-2 (`TcpAgent::newack`) keeps the backoff while an ECN-Echo keeps cwnd at one
        // segment or less (`ecn_backoff_`)
        if s.ns2.ece_seen && s.ns2.ecn_backoff && ece {
            return false;
        }
        s.ns2.ecn_backoff = false;
        true
    }

    fn on_open_new_ack(s: &mut Sender) {
        if s.variant == Variant::Sack {
            // ns-2 Sack1TcpAgent::recv: a new ACK outside recovery clears the scoreboard and
            // ends the timeout's deafness to duplicate ACKs
            s.clear_scoreboard();
            s.ns2.ignore_dupacks = false;
        }
    }
}
