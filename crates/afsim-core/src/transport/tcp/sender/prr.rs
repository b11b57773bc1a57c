//! Proportional Rate Reduction (RFC 6937), an option of SACK loss recovery (`Params::prr`).
//!
//! Read this first.
//! - Source: RFC 6937 §3 (the algorithm: RecoverFS, prr_delivered, prr_out, DeliveredData,
//!   sndcnt by the proportional part while pipe > ssthresh, else by the Slow Start Reduction
//!   Bound, PRR-SSRB, the RFC's recommendation; cwnd = ssthresh when recovery ends), §3.1
//!   (the examples the tests replay). Facts checked against Linux's `tcp_input.c`
//!   (`tcp_init_cwnd_reduction`, `tcp_cwnd_reduction`, `tcp_end_cwnd_reduction`); no code
//!   taken from it.
//! - Where it acts: in RFC 6675 recovery (`Recovery::Sack`) and in RACK's (`Recovery::Rack`),
//!   with `cc = reno` or `cubic`. BBR sets its own window on every ACK (Linux calls
//!   `tcp_cwnd_reduction` only for a controller without `cong_control`, and BBR has one), so
//!   with `cc = bbr` the option does nothing.
//! - How: on every ACK in recovery PRR computes sndcnt and sets cwnd = pipe + sndcnt; the
//!   recovery's own sending (`send_sack`, `send_rack`: while cwnd − pipe ≥ 1 SMSS) then sends
//!   exactly ⌊sndcnt⌋ segments. At entry sndcnt is computed before the fast retransmission,
//!   which is its first segment (Linux sends at least that one: `prr_out` 0 forces 1).
//! - Units: segments (`f64`, as cwnd): RFC 6937 counts bytes, its examples and Linux count
//!   segments; a bulk sender's segments are all full-sized, so the two agree except for the
//!   ceiling, which the examples take in segments.
//! - RecoverFS: the FlightSize the reduction used (`enter_recovery`: SND.MAX − SND.UNA less
//!   the limited-transmit segments, at most cwnd with RACK), not RFC 6937's SND.NXT −
//!   SND.UNA, which counts the limited-transmit segments: the RFC's own examples assume
//!   RecoverFS = FlightSize = 20 after two limited transmits, and Linux divides by the cwnd
//!   before the reduction (`prior_cwnd`), also 20 there (docs/assumptions.md).
//! - Off (`prr = None` in the sender): one `Option` test per ACK and per segment sent.
//!
//! - `prr = "linux"` (`Params::prr_linux`): the bound chosen per ACK as Linux's
//!   `tcp_cwnd_reduction` and RFC 9937 (PRR's 2025 revision) do: PRR-SSRB's extra segment only
//!   on a SafeACK, one that advances SND.UNA and on which nothing is newly marked lost (RACK's
//!   marks on that ACK), else MAX(prr_delivered − prr_out, DeliveredData).
//!
//! Not modelled: PRR in an ECN or TLP reduction outside recovery (Linux's CWR state uses it),
//! PRR-CRB alone (the conservative bound), RFC 9937's RecoverFS = pipe.

use super::{Phase, Recovery, Sender};
use crate::transport::tcp::cc::Cc;

/// RFC 6937 §3's state of one recovery, in segments.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(super) struct Prr {
    /// prr_delivered: data the receiver got since recovery began.
    delivered: f64,
    /// prr_out: data sent since recovery began.
    out: f64,
    /// RecoverFS.
    recover_fs: f64,
    /// DeliveredData of the ACK being processed (SND.UNA's advance plus newly SACKed data),
    /// and whether recovery began on it (its share is then counted at entry).
    ack_delivered: f64,
    entered: bool,
    /// Linux's bound (`Params::prr_linux`): the ACK being processed advanced SND.UNA.
    ack_advanced: bool,
    /// PRR-SSRB's extra segment only on a SafeACK, one that advances SND.UNA and marks no
    /// further segment lost (Linux `tcp_cwnd_reduction` since 5.10; RFC 9937, PRR's 2025
    /// revision), instead of on every ACK (RFC 6937's PRR-SSRB).
    linux: bool,
}

impl Prr {
    pub fn new(linux: bool) -> Prr {
        Prr {
            linux,
            ..Prr::default()
        }
    }

    /// RFC 6937 §3: sndcnt for an ACK that delivered `dd` when `pipe` is in flight, with
    /// `ssthresh`; prr_delivered is updated. Segments (may be fractional; the sender sends
    /// whole ones).
    pub fn sndcnt(&mut self, dd: f64, pipe: f64, ssthresh: f64, safe: bool) -> f64 {
        self.delivered += dd;
        let n = if pipe > ssthresh {
            // proportional rate reduction
            (self.delivered * ssthresh / self.recover_fs.max(1.0)).ceil() - self.out
        } else {
            // PRR-SSRB: limit = MAX(prr_delivered − prr_out, DeliveredData) + MSS; Linux's and
            // RFC 9937's: the MSS only on a SafeACK
            let extra = if !self.linux || safe { 1.0 } else { 0.0 };
            let limit = (self.delivered - self.out).max(dd) + extra;
            (ssthresh - pipe).min(limit)
        };
        n.max(0.0)
    }
}

impl Sender {
    /// Whether PRR governs the window now: the option is on, a SACK or RACK recovery is in
    /// progress, and the controller is not BBR.
    fn prr_acts(&self) -> bool {
        self.prr.is_some()
            && matches!(
                self.phase,
                Phase::Recovery(Recovery::Sack { .. } | Recovery::Rack)
            )
            && !matches!(self.cc, Cc::Bbr(_))
    }

    /// The start of an ACK's processing: its DeliveredData, bytes (RFC 6937 §3: SND.UNA's
    /// advance plus the change in SACKed bytes, so data SACKed before counts once; Linux
    /// `tcp_newly_delivered`).
    pub(super) fn prr_ack_begins(&mut self, delivered: u64, advanced: bool) {
        let mss = self.mss as f64;
        if let Some(p) = self.prr.as_mut() {
            p.ack_delivered = delivered as f64 / mss;
            p.ack_advanced = advanced;
            p.entered = false;
        }
    }

    /// RFC 6937 §3 "at the beginning of recovery", called once the recovery has begun and its
    /// first retransmission of `retx` bytes is out: `flight` is the FlightSize of the
    /// reduction (bytes, RecoverFS). sndcnt is computed with the pipe before that
    /// retransmission, which is its first segment; cwnd lets the recovery send the rest.
    pub(super) fn prr_enter(&mut self, flight: u64, retx: u64) {
        if self.prr.is_none() || !self.prr_acts() {
            return;
        }
        let mss = self.mss as f64;
        let ssthresh = self.ssthresh;
        let pipe = self
            .rack_pipe_segments()
            .or_else(|| self.sack_pipe_segments())
            .unwrap_or(0.0);
        let before = pipe - retx as f64 / mss;
        let Some(p) = self.prr.as_mut() else { return };
        let dd = p.ack_delivered;
        **p = Prr {
            recover_fs: flight as f64 / mss,
            entered: true,
            linux: p.linux,
            ..Prr::default()
        };
        // Linux: at least the fast retransmission, which is the first of the sndcnt
        let n = p.sndcnt(dd, before, ssthresh, false).max(1.0);
        p.out = retx as f64 / mss;
        self.cwnd = before + n;
    }

    /// A segment of `len` bytes left during recovery: prr_out.
    pub(super) fn prr_sent(&mut self, len: u64) {
        if self.prr_acts() {
            let mss = self.mss as f64;
            if let Some(p) = self.prr.as_mut() {
                p.out += len as f64 / mss;
            }
        }
    }

    /// RFC 6937 §3 "on every ACK during recovery" (after the ACK was processed, before the
    /// recovery sends): cwnd = pipe + sndcnt. An ACK that delivered nothing changes nothing
    /// (Linux). `exited` says the ACK ended a recovery: cwnd = ssthresh (§3 "on exit").
    pub(super) fn prr_ack(&mut self, exited: bool) {
        let Some(p) = self.prr.as_ref() else { return };
        if exited {
            if !matches!(self.cc, Cc::Bbr(_)) && self.phase == Phase::Open {
                self.cwnd = self.ssthresh;
            }
            return;
        }
        if p.entered || p.ack_delivered <= 0.0 || !self.prr_acts() {
            return;
        }
        let pipe = self
            .rack_pipe_segments()
            .or_else(|| self.sack_pipe_segments())
            .unwrap_or(0.0);
        let ssthresh = self.ssthresh;
        // a SafeACK: SND.UNA advanced and RACK marked nothing newly lost on it
        let newly_lost = self.rack.as_ref().is_some_and(|r| r.ack_marked > 0);
        let Some(p) = self.prr.as_mut() else { return };
        let dd = p.ack_delivered;
        let safe = p.ack_advanced && !newly_lost;
        let n = p.sndcnt(dd, pipe, ssthresh, safe);
        self.cwnd = pipe + n;
    }

    /// prr_delivered and prr_out of the current or last recovery, if PRR is on (tests).
    #[cfg(test)]
    pub(crate) fn prr_counts(&self) -> Option<(f64, f64)> {
        self.prr.as_deref().map(|p| (p.delivered, p.out))
    }
}
