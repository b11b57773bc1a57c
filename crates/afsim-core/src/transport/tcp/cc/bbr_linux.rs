//! Three parts of Linux's BBR v1 that draft-cardwell-iccrg-bbr-congestion-control-00 does not
//! have, each an option of `cc = "bbr"` (off by default; the draft's BBR is `bbr.rs`). The facts
//! are from Linux's `net/ipv4/tcp_bbr.c` (kernel 6.18, the kernel `afsim live` compares with;
//! the functions named are unchanged since the versions given). Each constant and rule here was
//! checked against a 6.10-or-later `tcp_bbr.c` (6.18's own file was not available; issue 26,
//! docs/validation.md "Linux's source against the options").
//!
//! Read this first:
//!
//! - `AckAggregation` (`ack_aggregation = true`): `bbr_update_ack_aggregation` and
//!   `bbr_ack_aggregation_cwnd` (Linux 4.20 on). An ACK epoch starts when the data acknowledged
//!   since its start falls to what the bandwidth estimate predicts for its length; the excess,
//!   at most cwnd, is extra_acked. The larger of two windows' maxima, each window 5 round trips
//!   (`bbr_extra_acked_win_rtts`), times gain 1 (`bbr_extra_acked_gain`), at most 100 ms of the
//!   bandwidth estimate (`bbr_extra_acked_max_us`), is added to cwnd's target once the pipe is
//!   full (`bbr_set_cwnd`).
//! - `quantization_budget` (`quantization_budget = true`): `bbr_quantization_budget` and
//!   `bbr_tso_segs_goal` (Linux 5.1 on; replaces the draft's 3 send quanta): a target of
//!   ⌈gain·BDP⌉ (`bbr_bdp` rounds up) plus 3 TSO bursts, rounded up to an even number, plus 2 in
//!   ProbeBW's 5/4 phase. It applies to every `bbr_inflight`, as in Linux.
//! - `LtBw` (`policer_detection = true`): the long-term bandwidth estimate (`bbr_lt_bw_sampling`,
//!   `bbr_lt_bw_interval_done`, `bbr_reset_lt_bw_sampling`; Linux 4.10 on). Sampling starts at a
//!   loss; an interval of 4 to 16 round trips ends at a loss when lost/delivered ≥ 50/256; two
//!   consecutive intervals' delivery rates within 1/8 (or 4 kb/s) of each other mean a policer:
//!   BBR then uses their mean as its bandwidth, with pacing gain 1, for 48 round trips of ProbeBW.
//!
//! Units: segments and payload bytes per second (Linux: packets and packets per µs « 24).

use crate::sim::time::{SimDuration, SimTime};

/// `bbr_extra_acked_win_rtts`: the length of each of extra_acked's two windows, round trips.
pub const EXTRA_ACKED_WIN_RTTS: u32 = 5;
/// `bbr_extra_acked_max_us`: the allowance is at most this much of the bandwidth estimate.
pub const EXTRA_ACKED_MAX: SimDuration = SimDuration::from_millis(100);
/// `bbr_ack_epoch_acked_reset_thresh`: an epoch with this many segments acknowledged restarts.
pub const ACK_EPOCH_ACKED_RESET: f64 = (1u64 << 20) as f64;
/// `bbr_lt_intvl_min_rtts`: a long-term sampling interval lasts at least this many round trips
/// (and at most 4 times as many).
pub const LT_INTVL_MIN_RTTS: u32 = 4;
/// `bbr_lt_loss_thresh` / BBR_UNIT: the loss rate that ends a long-term interval.
pub const LT_LOSS_THRESH: f64 = 50.0 / 256.0;
/// `bbr_lt_bw_ratio` / BBR_UNIT: two intervals' rates this close mean a policer.
pub const LT_BW_RATIO: f64 = 1.0 / 8.0;
/// `bbr_lt_bw_diff`: or this close, bytes per second (4 kb/s).
pub const LT_BW_DIFF: f64 = 4000.0 / 8.0;
/// `bbr_lt_bw_max_rtts`: round trips of ProbeBW at the long-term rate before sampling again.
pub const LT_BW_MAX_RTTS: u32 = 48;
/// `bbr_min_tso_rate`, bits per second: below it a TSO burst is one segment, else two.
pub const MIN_TSO_RATE_BPS: f64 = 1_200_000.0;
/// `bbr_pacing_margin_percent`: `bbr_rate_bytes_per_sec` converts a rate 1 % low, which the
/// long-term estimator's 4 kb/s test (`bbr_lt_bw_interval_done`) goes through.
pub const PACING_MARGIN: f64 = 0.01;
/// `GSO_MAX_SIZE` (include/linux/netdevice.h, 6.x: 8 · GSO_MAX_SEGS = 8 · 65 535 bytes) less 1
/// and `MAX_TCP_HEADER` (taken as 320 bytes): `bbr_tso_segs_goal`'s cap on a burst's bytes.
pub const TSO_GOAL_MAX_BYTES: f64 = 8.0 * 65_535.0 - 1.0 - 320.0;

/// Linux's ACK-aggregation estimate, in segments.
#[derive(Clone, Debug, Default)]
pub struct AckAggregation {
    extra_acked: [f64; 2],
    win_idx: usize,
    win_rtts: u32,
    epoch_start: Option<SimTime>,
    epoch_acked: f64,
}

impl AckAggregation {
    /// `bbr_update_ack_aggregation` for an ACK at `now` that delivered `acked` segments (with a
    /// valid rate sample), at bandwidth estimate `bw` (segments per second) and window `cwnd`.
    pub fn update(&mut self, round_start: bool, now: SimTime, acked: f64, bw: f64, cwnd: f64) {
        if acked <= 0.0 {
            return;
        }
        if round_start {
            self.win_rtts = (self.win_rtts + 1).min(0x1f);
            if self.win_rtts >= EXTRA_ACKED_WIN_RTTS {
                self.win_rtts = 0;
                self.win_idx = 1 - self.win_idx;
                self.extra_acked[self.win_idx] = 0.0;
            }
        }
        // what the bandwidth estimate expects delivered since the epoch began (Linux stamps
        // the epoch at bbr_init with ack_epoch_acked 0, so its first ACK starts an epoch too:
        // 0 acknowledged is at most what any rate expects)
        let mut expected = match self.epoch_start {
            Some(t) => bw * now.saturating_since(t).as_secs_f64(),
            None => f64::INFINITY,
        };
        if self.epoch_acked <= expected || self.epoch_acked + acked >= ACK_EPOCH_ACKED_RESET {
            self.epoch_acked = 0.0;
            self.epoch_start = Some(now);
            expected = 0.0;
        }
        self.epoch_acked = (self.epoch_acked + acked).min(0xfffff as f64);
        let extra = (self.epoch_acked - expected).min(cwnd);
        if extra > self.extra_acked[self.win_idx] {
            self.extra_acked[self.win_idx] = extra;
        }
    }

    /// `bbr_extra_acked`: the larger window's maximum, segments.
    pub fn extra_acked(&self) -> f64 {
        self.extra_acked[0].max(self.extra_acked[1])
    }

    /// `bbr_ack_aggregation_cwnd`: the allowance added to cwnd's target, segments, at
    /// bandwidth `bw` (segments per second); 0 until the pipe is full.
    pub fn cwnd(&self, bw: f64, filled_pipe: bool) -> f64 {
        if !filled_pipe {
            return 0.0;
        }
        self.extra_acked()
            .min(bw * EXTRA_ACKED_MAX.as_secs_f64())
            .floor()
    }
}

/// `bbr_tso_segs_goal` (6.x: `bbr_tso_segs_generic` with `GSO_MAX_SIZE`): segments per TSO
/// burst at pacing rate `rate` (bytes per second): about 1 ms of data (`sk_pacing_shift` 10:
/// rate / 1024), at least 1 below 1.2 Mb/s (`bbr_min_tso_segs`) and 2 above, its bytes at most
/// `TSO_GOAL_MAX_BYTES` (binds only above 4 Gb/s). Kernels before 6.0 also capped the count at
/// 127 segments (0x7F) and the bytes at 64 KB; 6.18 does neither.
pub fn tso_segs_goal(rate: f64, mss: f64) -> f64 {
    let bytes = (rate / 1024.0).floor().min(TSO_GOAL_MAX_BYTES);
    let min = if rate < MIN_TSO_RATE_BPS / 8.0 {
        1.0
    } else {
        2.0
    };
    (bytes / mss).floor().max(min)
}

/// `bbr_quantization_budget` of `cwnd` (segments, already ⌈gain·BDP⌉): plus 3 TSO bursts,
/// rounded up to even, plus 2 in ProbeBW's first (5/4) phase (`probing`).
pub fn quantization_budget(cwnd: f64, rate: f64, mss: f64, probing: bool) -> f64 {
    let c = (cwnd + 3.0 * tso_segs_goal(rate, mss)) as u64;
    let c = (c + 1) & !1;
    c as f64 + if probing { 2.0 } else { 0.0 }
}

/// What `LtBw::sample` asks the state machine to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LtEvent {
    None,
    /// A policer was detected: pace at the long-term rate, gain 1.
    Engaged,
    /// The 48 round trips are over: back to ProbeBW's gain cycle at a random phase.
    Expired,
}

/// Linux's long-term (policed) bandwidth estimate.
#[derive(Clone, Debug, Default)]
pub struct LtBw {
    /// Bytes per second; 0 when none.
    bw: f64,
    use_bw: bool,
    is_sampling: bool,
    rtt_cnt: u32,
    last_stamp: SimTime,
    last_delivered: u64,
    last_lost: u64,
}

/// One ACK as the long-term sampler sees it.
#[derive(Clone, Copy, Debug)]
pub struct LtAck {
    pub now: SimTime,
    pub round_start: bool,
    /// Segments newly marked lost by this ACK (Linux `rs->losses`).
    pub losses: u64,
    /// Payload bytes delivered so far (`tp->delivered`) and segments marked lost so far
    /// (`tp->lost`).
    pub delivered: u64,
    pub lost: u64,
    /// Whether the state machine is in ProbeBW.
    pub probe_bw: bool,
}

impl LtBw {
    /// The long-term rate BBR uses, bytes per second, if a policer was detected.
    pub fn bw(&self) -> Option<f64> {
        self.use_bw.then_some(self.bw)
    }

    pub fn is_sampling(&self) -> bool {
        self.is_sampling
    }

    fn reset_interval(&mut self, a: &LtAck) {
        self.last_stamp = a.now;
        self.last_delivered = a.delivered;
        self.last_lost = a.lost;
        self.rtt_cnt = 0;
    }

    /// `bbr_reset_lt_bw_sampling`.
    fn reset(&mut self, a: &LtAck) {
        self.bw = 0.0;
        self.use_bw = false;
        self.is_sampling = false;
        self.reset_interval(a);
    }

    /// `bbr_lt_bw_sampling` for one ACK with a valid rate sample (or a timeout, with
    /// `round_start` and `losses` set, as `bbr_set_state(TCP_CA_Loss)` calls it); `mss` to
    /// count delivered segments.
    pub fn sample(&mut self, a: &LtAck, mss: f64) -> LtEvent {
        if self.use_bw {
            if a.probe_bw && a.round_start {
                self.rtt_cnt += 1;
                if self.rtt_cnt >= LT_BW_MAX_RTTS {
                    self.reset(a);
                    return LtEvent::Expired;
                }
            }
            return LtEvent::None;
        }
        // wait for the first loss: the policer's tokens are then exhausted
        if !self.is_sampling {
            if a.losses == 0 {
                return LtEvent::None;
            }
            self.reset_interval(a);
            self.is_sampling = true;
        }
        // (afsim's sources are never application-limited: no reset for it)
        if a.round_start {
            self.rtt_cnt += 1;
        }
        if self.rtt_cnt < LT_INTVL_MIN_RTTS {
            return LtEvent::None;
        }
        if self.rtt_cnt > 4 * LT_INTVL_MIN_RTTS {
            self.reset(a);
            return LtEvent::None;
        }
        if a.losses == 0 {
            return LtEvent::None;
        }
        let lost = a.lost.saturating_sub(self.last_lost) as f64;
        let delivered_bytes = a.delivered.saturating_sub(self.last_delivered) as f64;
        let delivered = delivered_bytes / mss;
        if delivered == 0.0 || lost < LT_LOSS_THRESH * delivered {
            return LtEvent::None;
        }
        // Linux measures the interval in whole milliseconds (both ends truncated to ms:
        // `div_u64(tp->delivered_mstamp, USEC_PER_MSEC)`) and waits below one
        let ms_of = |t: SimTime| t.as_nanos() / 1_000_000;
        let t_ms = ms_of(a.now).saturating_sub(ms_of(self.last_stamp));
        if t_ms < 1 {
            return LtEvent::None;
        }
        let bw = delivered_bytes / (t_ms as f64 * 1e-3);
        self.interval_done(bw, a)
    }

    /// `bbr_lt_bw_interval_done`.
    fn interval_done(&mut self, bw: f64, a: &LtAck) -> LtEvent {
        if self.bw > 0.0 {
            let diff = (bw - self.bw).abs();
            // the 4 kb/s test compares bbr_rate_bytes_per_sec(diff), 1 % low
            if diff <= LT_BW_RATIO * self.bw || diff * (1.0 - PACING_MARGIN) <= LT_BW_DIFF {
                self.bw = (bw + self.bw) / 2.0;
                self.use_bw = true;
                self.rtt_cnt = 0;
                return LtEvent::Engaged;
            }
        }
        self.bw = bw;
        self.reset_interval(a);
        LtEvent::None
    }
}
