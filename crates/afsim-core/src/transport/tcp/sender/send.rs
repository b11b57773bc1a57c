//! Sending: the window (go-back-N included), RFC 6675's SACK recovery (`NextSeg()`), ns-2's
//! Sack1 recovery, and each data segment's flags and ECN field (`transmit`).

use super::{EcnState, Phase, Recovery, Sender, Timing};
use crate::net::packet::{proto, Ecn, Packet, TransportHeader};
use crate::transport::tcp::flags;
use crate::transport::tcp::sack::{Marks, NextSeg};
use crate::transport::Ctx;

impl Sender {
    /// Sends what the recovery in progress (or none) allows now.
    #[inline(always)]
    pub(super) fn send_more(&mut self, ctx: &mut Ctx) {
        match self.phase {
            Phase::Open | Phase::Recovery(Recovery::Fast { .. }) => self.send_window(None, ctx),
            Phase::Recovery(Recovery::Sack {
                high_rxt,
                rescue_rxt,
            }) => self.send_sack(high_rxt, rescue_rxt, ctx),
            Phase::Recovery(Recovery::Sack1 { pipe, next_rtx }) => {
                self.send_sack1(pipe, next_rtx, ctx)
            }
            Phase::Recovery(Recovery::Rack) => self.send_rack(ctx),
            Phase::Waiting | Phase::SynSent { .. } | Phase::Complete => {}
        }
    }

    /// Sends whole segments from `snd_nxt` while they fit in min(cwnd, rwnd), at most `burst`
    /// of them if given.
    pub(super) fn send_window(&mut self, burst: Option<u32>, ctx: &mut Ctx) {
        let wnd = (self.cwnd * self.mss as f64).min(self.max_window as f64);
        let mut sent = 0;
        // RFC 6675 §5.1 uses the scoreboard in go-back-N; ns-2's Sack1 does not (its scoreboard
        // is cleared by every new ACK outside recovery)
        let use_board = !self.is_sack1();
        while self.snd_nxt < self.end {
            let board = self.sack.as_ref().filter(|_| use_board);
            if self.snd_nxt < self.snd_max {
                // RFC 6675 §5.1: after a timeout, do not resend what the receiver SACKed
                if let Some(e) = board.and_then(|sb| sb.sacked_until(self.snd_nxt)) {
                    self.snd_nxt = e.min(self.snd_max);
                    continue;
                }
            }
            let len = self.mss.min(self.end - self.snd_nxt);
            let mut outstanding = self.snd_nxt + len - self.snd_una;
            if self.snd_nxt < self.snd_max {
                // go-back-N after a timeout: what the receiver SACKed is not in flight
                if let Some(sb) = board {
                    outstanding -= sb.sacked_between(self.snd_una, self.snd_nxt);
                }
            }
            if outstanding as f64 > wnd || burst.is_some_and(|b| sent >= b) {
                break;
            }
            // BBR paces every segment the window allows (`control::pace_wait`)
            if self.pace_wait(ctx) {
                break;
            }
            self.transmit_inline(self.snd_nxt, len, ctx);
            self.snd_nxt += len;
            sent += 1;
        }
    }

    /// RFC 6675 §2's sender state that the scoreboard's SetPipe() and NextSeg() read, at this
    /// moment of a SACK recovery with `high_rxt` and `rescue_rxt`.
    pub(super) fn sack_marks(&self, high_rxt: u64, rescue_rxt: Option<u64>) -> Marks {
        Marks {
            high_ack: self.snd_una,
            high_data: self.snd_max,
            high_rxt,
            rescue_rxt,
            recovery_point: self.recover.unwrap_or(self.snd_max),
            mss: self.mss,
            dupthresh: self.p.dupack_threshold,
        }
    }

    /// RFC 6675 §4's SetPipe() in segments during a SACK recovery; `None` outside one.
    #[inline]
    pub(super) fn sack_pipe_segments(&self) -> Option<f64> {
        let Phase::Recovery(Recovery::Sack {
            high_rxt,
            rescue_rxt,
        }) = self.phase
        else {
            return None;
        };
        let sb = self.sack.as_ref()?;
        Some(sb.pipe(&self.sack_marks(high_rxt, rescue_rxt)) as f64 / self.mss as f64)
    }

    /// RFC 6675 §5 (B)–(C): while cwnd − pipe ≥ 1 SMSS, send what NextSeg() chooses.
    pub(super) fn send_sack(&mut self, high_rxt: u64, rescue_rxt: Option<u64>, ctx: &mut Ctx) {
        let Some(sb) = self.sack.take() else { return };
        let mut m = self.sack_marks(high_rxt, rescue_rxt);
        let cwnd = self.cwnd * self.mss as f64;
        // (B.2) SetPipe()
        let mut pipe = sb.pipe(&m);
        while cwnd - pipe as f64 >= self.mss as f64 {
            let len_new = self.mss.min(self.end.saturating_sub(self.snd_max));
            let new_ok =
                len_new > 0 && self.snd_max + len_new - self.snd_una <= self.p.max_window_bytes;
            if self.pace_wait(ctx) {
                break;
            }
            match sb.next_seg(&m, new_ok) {
                NextSeg::Retransmit { start, len, rescue } => {
                    self.transmit(start, len, ctx);
                    // (C.2) HighRxt moves, except for a rescue retransmission (NextSeg rule 4)
                    if rescue {
                        m.rescue_rxt = Some(m.recovery_point);
                    } else {
                        m.high_rxt = start + len;
                    }
                    pipe += len;
                }
                NextSeg::NewData => {
                    // (C.3) HighData moves
                    self.transmit(self.snd_max, len_new, ctx);
                    self.snd_nxt = self.snd_max;
                    m.high_data = self.snd_max;
                    pipe += len_new;
                }
                NextSeg::Nothing => break,
            }
        }
        self.sack = Some(sb);
        self.phase = Phase::Recovery(Recovery::Sack {
            high_rxt: m.high_rxt,
            rescue_rxt: m.rescue_rxt,
        });
    }

    /// ns-2.35 tcp-sack1.cc `Sack1TcpAgent::send_much` in fast recovery: while pipe < ⌊cwnd⌋,
    /// the next hole from `next_rtx` below the highest SACKed byte (`ScoreBoardRQ::
    /// GetNextRetran`), else new data; nothing beyond the receiver's window.
    pub(super) fn send_sack1(&mut self, mut pipe: i64, mut next_rtx: u64, ctx: &mut Ctx) {
        let wnd_end = self.snd_una + self.p.max_window_bytes;
        while pipe < self.cwnd.floor() as i64 {
            let hole = self
                .sack
                .as_ref()
                .and_then(|sb| sb.next_hole(next_rtx.max(self.snd_una)));
            if let Some(start) = hole {
                let len = self.mss.min(self.snd_max - start);
                if start + len > wnd_end {
                    break;
                }
                self.transmit(start, len, ctx);
                next_rtx = start + len;
            } else {
                let len = self.mss.min(self.end.saturating_sub(self.snd_max));
                if len == 0 || self.snd_max + len > wnd_end {
                    break;
                }
                self.transmit(self.snd_max, len, ctx);
                self.snd_nxt = self.snd_max;
            }
            pipe += 1;
        }
        self.phase = Phase::Recovery(Recovery::Sack1 { pipe, next_rtx });
    }

    /// Sends the data segment `[start, start + len)`: a retransmission if below HighData.
    #[inline(never)]
    pub(super) fn transmit(&mut self, start: u64, len: u64, ctx: &mut Ctx) {
        self.transmit_inline(start, len, ctx);
    }

    /// `transmit`, inlined into the window's loop (`send_window`, the path of nearly every
    /// segment; issue 25).
    #[inline(always)]
    fn transmit_inline(&mut self, start: u64, len: u64, ctx: &mut Ctx) {
        let retx = start < self.snd_max;
        let mut f = if self.handshake { flags::ACK } else { 0 };
        let mut ecn = Ecn::NotEct;
        if let EcnState::On { cwr_pending } = self.ecn {
            // RFC 3168 §6.1.5: retransmitted data is not ECN-capable (a preset may differ)
            let may = !retx || rules!(self, retransmission_is_ect());
            // a data segment in the SYN's place (ns-2 without a handshake) is not ECN-capable
            let syn_slot = rules!(self, syn_slot(start));
            if may && !syn_slot {
                ecn = Ecn::Ect0;
            }
            if syn_slot {
                // ... and carries ECN-Echo (`ns2::Ns2::syn_slot`)
                f |= flags::ECE;
            }
            // RFC 3168 §6.1.2: CWR on the first new data segment after a reduction
            if cwr_pending && may {
                f |= flags::CWR;
                self.ecn = EcnState::On { cwr_pending: false };
            }
        }
        self.cc_sent(start, len, retx, ctx.now);
        if self.rack.is_some() {
            self.rack_sent(start, len, retx, ctx);
        }
        if self.prr.is_some() {
            // RFC 6937 §3: prr_out (`sender/prr.rs`)
            self.prr_sent(len);
        }
        self.emit(start, len as u32, f, ecn, ctx);
        self.stats.segments_sent += 1;
        self.stats.bytes_sent += len;
        if retx {
            self.stats.retransmitted_segments += 1;
            self.stats.retransmitted_bytes += len;
            // Karn: a retransmission spoils the segment being timed (the preset says)
            if rules!(self, retransmission_stops_timing()) {
                self.timing = None;
            }
        } else {
            self.snd_max = start + len;
            if self.timing.is_none() {
                self.timing = Some(Timing {
                    end: start + len,
                    sent: ctx.now,
                });
            }
        }
        // RFC 6298 (5.1): a data segment sent while the timer is off starts it
        if ctx.flow.retx.is_idle() {
            self.arm(ctx.now + self.rto.timeout(), ctx);
        }
    }

    #[inline(always)]
    pub(super) fn emit(&mut self, seq: u64, payload: u32, f: u16, ecn: Ecn, ctx: &mut Ctx) {
        let headers = rules!(self, header_bytes(seq, payload));
        ctx.send(Packet {
            src: self.src,
            dst: self.dst,
            protocol: proto::TCP,
            ecn,
            size: payload + headers,
            flow: self.flow,
            dst_agent: self.peer,
            rev: false,
            th: TransportHeader {
                seq,
                payload,
                flags: f,
                ..Default::default()
            },
            ..Default::default()
        });
    }
}
