//! Linux's HyStart (`net/ipv4/tcp_cubic.c`, `hystart_update`, `bictcp_hystart_reset`,
//! `cubictcp_acked`; kernel 6.18, as since 5.7), the slow start Linux's CUBIC runs by default
//! (`hystart = "linux"`); not RFC 9406's HyStart++ (`hystart.rs`), which Linux does not have.
//!
//! Read this first: Ha and Rhee's HyStart, with both detectors on (`hystart_detect` = 3) and
//! Linux's constants. Every ACK with an RTT sample updates delay_min, the least RTT of the
//! connection; in a slow start (the first, and each after a timeout):
//!
//! - a round begins when SND.UNA passes the previous round's SND.NXT (`end_seq`), at that
//!   ACK's instant (`round_start`), at any window; the two detectors below run from a window
//!   of `hystart_low_window` (16) segments on;
//! - ACK train: an ACK within 2 ms (`hystart_ack_delta_us`) of the previous one extends the
//!   train; once the train has lasted more than (delay_min + ack_delay) / 2 since the round
//!   began, slow start ends. ack_delay is `hystart_ack_delay`, min(1 ms, 4 · 64 KB at the
//!   pacing rate), 1 ms at the rates here; the halving is Linux's for a socket that does not
//!   pace (`SK_PACING_NONE`, CUBIC without the fq qdisc);
//! - delay: once a round has more than 8 samples (`HYSTART_MIN_SAMPLES`), its least RTT above
//!   delay_min + clamp(delay_min / 8, 4 ms, 16 ms) ends slow start.
//!
//! Ending slow start sets ssthresh = cwnd (`tp->snd_ssthresh = tcp_snd_cwnd(tp)`), growth by
//! RFC 5681's slow start until then (`tcp_slow_start`). A timeout starts HyStart over with a
//! new state (delay_min too), as Linux's `bictcp_reset` and `bictcp_hystart_reset` on
//! TCP_CA_Loss (the sender's `cc_timeout`).

use crate::sim::time::{SimDuration, SimTime};
use crate::transport::tcp::cc::rate::RateSampler;

/// `hystart_low_window`, segments.
pub const LOW_WINDOW: f64 = 16.0;
/// `hystart_ack_delta_us`.
pub const ACK_DELTA: SimDuration = SimDuration::from_millis(2);
/// `hystart_ack_delay` at the rates where min(1 ms, …) is 1 ms.
pub const ACK_DELAY: SimDuration = SimDuration::from_millis(1);
/// `HYSTART_MIN_SAMPLES`.
pub const MIN_SAMPLES: u32 = 8;
/// `HYSTART_DELAY_MIN`, `HYSTART_DELAY_MAX`.
pub const DELAY_MIN: SimDuration = SimDuration::from_millis(4);
pub const DELAY_MAX: SimDuration = SimDuration::from_millis(16);

/// Which detector ended slow start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Found {
    AckTrain,
    Delay,
}

#[derive(Clone, Debug)]
pub struct LinuxHyStart {
    /// Per-ACK RTT samples (Karn: none from a retransmitted segment).
    pub rate: RateSampler,
    delay_min: Option<SimDuration>,
    round_start: SimTime,
    last_ack: SimTime,
    end_seq: u64,
    curr_rtt: Option<SimDuration>,
    sample_cnt: u32,
}

impl LinuxHyStart {
    /// `bictcp_hystart_reset` at connection start: the first round ends at SND.NXT = 0.
    pub fn new(mss: u64) -> LinuxHyStart {
        LinuxHyStart {
            rate: RateSampler::new(mss),
            delay_min: None,
            round_start: SimTime::ZERO,
            last_ack: SimTime::ZERO,
            end_seq: 0,
            curr_rtt: None,
            sample_cnt: 0,
        }
    }

    pub fn delay_min(&self) -> Option<SimDuration> {
        self.delay_min
    }

    /// `cubictcp_acked` for one ACK in slow start at `now`, with SND.UNA `una` after it,
    /// SND.NXT `snd_nxt`, window `cwnd` segments and RTT sample `rtt`: whether slow start ends.
    pub fn on_ack(
        &mut self,
        now: SimTime,
        una: u64,
        snd_nxt: u64,
        cwnd: f64,
        rtt: Option<SimDuration>,
    ) -> Option<Found> {
        // duplicates without an RTT sample are not passed to the controller
        let delay = rtt?.max(SimDuration::from_nanos(1_000));
        if self.delay_min.is_none_or(|m| m > delay) {
            self.delay_min = Some(delay);
        }
        // hystart_update (net/ipv4/tcp_cubic.c, as read in a 6.9-or-later copy): a round boundary
        // restarts the round first, whatever cwnd is; only then do windows below
        // hystart_low_window return (so a round that began below 16 segments goes on)
        if una > self.end_seq {
            // bictcp_hystart_reset
            self.round_start = now;
            self.last_ack = now;
            self.end_seq = snd_nxt;
            self.curr_rtt = None;
            self.sample_cnt = 0;
        }
        if cwnd < LOW_WINDOW {
            return None;
        }
        let delay_min = self.delay_min.expect("set above");
        if now.saturating_since(self.last_ack) <= ACK_DELTA {
            self.last_ack = now;
            // not paced: half of delay_min + ack_delay
            let threshold = SimDuration::from_nanos((delay_min + ACK_DELAY).as_nanos() / 2);
            if now.saturating_since(self.round_start) > threshold {
                return Some(Found::AckTrain);
            }
        }
        self.curr_rtt = Some(self.curr_rtt.map_or(delay, |c| c.min(delay)));
        if self.sample_cnt < MIN_SAMPLES {
            self.sample_cnt += 1;
        } else {
            let thresh =
                SimDuration::from_nanos(delay_min.as_nanos() / 8).clamp(DELAY_MIN, DELAY_MAX);
            if self.curr_rtt.expect("set above") > delay_min + thresh {
                return Some(Found::Delay);
            }
        }
        None
    }
}
