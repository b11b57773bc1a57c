//! Unit tests of the congestion controllers at exact values: CUBIC against RFC 9438's
//! equations, the delivery-rate sampler against draft-cheng-iccrg-delivery-rate-estimation-00
//! §3, BBR's state machine (draft-cardwell-iccrg-bbr-congestion-control-00 §4.3) at exact ACK
//! sequences. Expected numbers are worked out from the sources' formulas by hand (the
//! comments show the arithmetic), not read back from the code.

use super::bbr::{self, Bbr, Mode, HIGH_GAIN};
use super::cubic::{self, Cubic};
use super::hystart::{self, HyStart, Step};
use super::rate::{RateSampler, Sample};
use crate::sim::rng;
use crate::sim::time::{SimDuration, SimTime};

fn ms(n: u64) -> SimTime {
    SimTime::from_nanos(n * 1_000_000)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1.0)
}

// ------------------------------------------------------------------------------ CUBIC

#[test]
fn cubic_constants_are_rfc_9438s() {
    // §5.1 C = 0.4; §4.6 β = 0.7; §4.3 eq. (4) α = 3·0.3/1.7
    assert_eq!(cubic::C, 0.4);
    assert_eq!(cubic::BETA, 0.7);
    assert!(close(cubic::ALPHA, 0.529_411_764_705_882_4));
}

#[test]
fn k_and_w_cubic_at_exact_values() {
    // eq. (2): K = ∛((100 − 70)/0.4) = ∛75 = 4.217163326508746
    let k = cubic::k_of(100.0, 70.0);
    assert!(close(k, 4.217_163_326_508_746), "{k}");
    // eq. (1) at t = 0 is cwnd_epoch, at t = K is W_max; at t = 2 s: 0.4·(2 − K)³ + 100
    assert!(close(cubic::w_cubic(0.0, k, 100.0), 70.0));
    assert!(close(cubic::w_cubic(k, k, 100.0), 100.0));
    assert!(close(cubic::w_cubic(2.0, k, 100.0), 95.640_335_686_638_78));
    // no K when the epoch starts at or above W_max
    assert_eq!(cubic::k_of(50.0, 60.0), 0.0);
}

#[test]
fn multiplicative_decrease_and_fast_convergence() {
    let mut c = Cubic::new();
    // §4.6: ssthresh = cwnd · 0.7; first event: W_max = cwnd
    assert!(close(c.on_congestion(100.0), 70.0));
    assert!(close(c.w_max(), 100.0));
    // §4.7: cwnd 80 < W_max 100: W_max = 80 · (1 + 0.7)/2 = 68; ssthresh = 0.7 · 80 = 56
    assert!(close(c.on_congestion(80.0), 56.0));
    assert!(close(c.w_max(), 68.0));
    // without fast convergence W_max = cwnd
    let mut d = Cubic::new();
    d.fast_convergence = false;
    d.on_congestion(100.0);
    d.on_congestion(80.0);
    assert!(close(d.w_max(), 80.0));
    // the floor of two segments
    assert!(close(Cubic::new().on_congestion(2.0), 2.0));
}

#[test]
fn window_growth_reno_friendly_then_cubic() {
    let mut c = Cubic::new();
    c.on_congestion(100.0); // W_max 100, ssthresh 70
                            // epoch at t = 0 with cwnd 70: K = ∛75; W_est = 70 + α·1/70 = 70.00756302521009, and
                            // W_cubic(0) = 70 < W_est: the Reno-friendly region, cwnd = W_est (§4.3)
    let w = c.on_ack_ca(70.0, 1.0, ms(0), 0.1);
    assert!(close(c.k(), 4.217_163_326_508_746));
    assert!(close(w, 70.007_563_025_210_09), "{w}");
    // t = 1 s: W_cubic(1) = 86.68 > W_est: target = W_cubic(1.1) = 87.88457465954372 (within
    // [cwnd, 1.5 cwnd]); cwnd + (target − cwnd)/cwnd = 70.26292131596928 (§4.2, §4.4)
    let w2 = c.on_ack_ca(w, 1.0, ms(1000), 0.1);
    assert!(close(w2, 70.262_921_315_969_28), "{w2}");
}

#[test]
fn target_is_clamped_to_one_and_a_half_cwnd() {
    let mut c = Cubic::new();
    c.on_congestion(1000.0);
    c.on_ack_ca(10.0, 1.0, ms(0), 0.1); // epoch: cwnd 10, W_max 1000, K = ∛(990/0.4)
                                        // at t = K the target is ≈ W_max = 1000, clamped to 1.5 · 10 = 15: cwnd += (15 − 10)/10
    let t = (cubic::k_of(1000.0, 10.0) * 1e3) as u64;
    let w = c.on_ack_ca(10.0, 1.0, ms(t), 0.1);
    assert!(close(w, 10.5), "{w}");
}

#[test]
fn after_a_timeout_k_is_zero_and_w_max_is_the_stage_start() {
    let mut c = Cubic::new();
    c.on_congestion(100.0);
    c.on_timeout();
    // §4.8: first stage after the timeout starts at cwnd 35: W_max = 35, K = 0
    c.on_ack_ca(35.0, 1.0, ms(0), 0.1);
    assert_eq!(c.k(), 0.0);
    assert!(close(c.w_max(), 35.0));
}

// ------------------------------------------------------------------------------ rate samples

#[test]
fn linux_growth_floor_before_any_loss_and_after_a_timeout_only() {
    // a stage without W_max at 72 segments, RTT 0.1 s: RFC 9438 gives the Reno-friendly
    // W_est = 72 + 1/72 per segment (α = 1: W_est ≥ cwnd_prior, taken as cwnd); Linux's floor
    // (cnt ≤ 20) 72 + 1/20
    let grow = |floor: bool, cong: bool, rto: bool| {
        let mut c = Cubic::new();
        c.linux_growth_floor = floor;
        if cong {
            c.on_congestion(80.0);
            if rto {
                c.on_timeout();
            }
        }
        c.on_ack_ca(72.0, 1.0, ms(1000), 0.1)
    };
    let rfc = 72.0 + 1.0 / 72.0;
    assert!(
        close(grow(false, false, false), rfc),
        "{}",
        grow(false, false, false)
    );
    assert!(close(grow(true, false, false), 72.05));
    // after a loss (W_max 80) the floor is off: the cubic curve from K = ∛(8/0.4)
    let after_loss = grow(true, true, false);
    assert!(close(after_loss, grow(false, true, false)) && after_loss < 72.05);
    // a timeout zeroes Linux's last_max_cwnd: the floor again
    assert!(close(grow(true, true, true), 72.05));
}

#[test]
fn linux_friendliness_keeps_alpha_and_grows_towards_the_reno_estimate() {
    // after a congestion event at cwnd 4 (cwnd_prior 4, W_max 4), a stage at cwnd 5 > W_max
    // starts with W_max = W_est = 5, K = 0; one ACK of 5 segments at t = 0, RTT 0:
    // RFC 9438 §4.3: W_est ≥ cwnd_prior, so α = 1: W_est = 5 + 1·5/5 = 6, and cwnd = W_est = 6
    // Linux tcp_friendliness: α_cubic throughout: W_est = 5 + α·5/5 = 5 + α; the cubic target
    // W_cubic(0) = 5 adds nothing, the estimate (W_est − cwnd)/cwnd per segment: 5 + α·5/5
    let stage = |linux: bool| {
        let mut c = Cubic::new();
        c.linux_friendly = linux;
        c.on_congestion(4.0);
        let cwnd = c.on_ack_ca(5.0, 5.0, ms(1000), 0.0);
        (cwnd, c.w_est())
    };
    let (cwnd, w_est) = stage(false);
    assert!(close(w_est, 6.0) && close(cwnd, 6.0), "{cwnd} {w_est}");
    let (cwnd, w_est) = stage(true);
    assert!(close(w_est, 5.0 + cubic::ALPHA), "{w_est}");
    assert!(close(cwnd, 5.0 + cubic::ALPHA), "{cwnd}");
    // one segment at a time: RFC sets cwnd to W_est = 5 + α/5; Linux adds (α/5)/5
    let one = |linux: bool| {
        let mut c = Cubic::new();
        c.linux_friendly = linux;
        c.on_congestion(4.0);
        c.on_ack_ca(5.0, 1.0, ms(1000), 0.0)
    };
    assert!(
        close(one(false), 5.0 + 1.0 / 5.0),
        "α = 1 here: {}",
        one(false)
    );
    assert!(
        close(one(true), 5.0 + cubic::ALPHA / 5.0 / 5.0),
        "{}",
        one(true)
    );
}

#[test]
fn delivery_rate_samples_at_exact_values() {
    let mss = 1000;
    let mut r = RateSampler::new(mss);
    // ten segments at 1 ms spacing from t = 0, nothing in flight before the first
    for i in 0..10u64 {
        r.on_send(i * mss, mss, ms(i), i * mss, false);
    }
    // the ACK of segment 0 at 100 ms: delivered 1000 B since P.delivered_time = 0, send
    // interval 0, ACK interval 100 ms: 10 000 B/s; RTT 100 ms
    let s = r.on_ack(0, mss, false, &[], ms(100), None);
    assert_eq!(s.newly_delivered, 1000);
    assert_eq!(s.rtt, Some(SimDuration::from_millis(100)));
    assert!(close(s.rate_bytes_per_s.unwrap(), 10_000.0));
    // segment 10 leaves at 100 ms: P.delivered = 1000, P.delivered_time = 100 ms,
    // P.first_sent_time = segment 0's send time, 0
    r.on_send(10 * mss, mss, ms(100), 9 * mss, false);
    for i in 1..10u64 {
        r.on_ack(i * mss, (i + 1) * mss, false, &[], ms(100 + i), None);
    }
    // its ACK at 200 ms: 11 000 − 1000 B over max(100 ms − 0, 200 ms − 100 ms): 100 000 B/s
    let s = r.on_ack(10 * mss, 11 * mss, false, &[], ms(200), None);
    assert_eq!(s.prior_delivered, 1000);
    assert!(close(s.rate_bytes_per_s.unwrap(), 100_000.0));
    // an interval below the minimum RTT gives no rate
    r.on_send(11 * mss, mss, ms(200), 0, false);
    let s = r.on_ack(
        11 * mss,
        12 * mss,
        false,
        &[],
        ms(250),
        Some(SimDuration::from_millis(60)),
    );
    assert_eq!(s.rate_bytes_per_s, None);
}

#[test]
fn sacked_and_duplicate_acks_count_once() {
    let mss = 1000;
    let mut r = RateSampler::new(mss);
    for i in 0..4u64 {
        r.on_send(i * mss, mss, ms(0), i * mss, false);
    }
    // SACK of segments 2–3 with segment 0 still missing: 2000 B newly delivered, then the
    // cumulative ACK of all four adds only segments 0 and 1
    let s = r.on_ack(0, 0, true, &[(2 * mss, 4 * mss)], ms(100), None);
    assert_eq!(s.newly_delivered, 2000);
    let s = r.on_ack(0, 4 * mss, true, &[], ms(101), None);
    assert_eq!(s.newly_delivered, 2000);
    assert_eq!(r.delivered(), 4000);
    // without SACK a duplicate ACK counts a segment, the cumulative ACK the rest
    let mut n = RateSampler::new(mss);
    for i in 0..4u64 {
        n.on_send(i * mss, mss, ms(0), i * mss, false);
    }
    assert_eq!(
        n.on_ack(0, 0, false, &[], ms(100), None).newly_delivered,
        1000
    );
    assert_eq!(
        n.on_ack(0, 4 * mss, false, &[], ms(101), None)
            .newly_delivered,
        3000
    );
    assert_eq!(n.delivered(), 4000);
}

// ------------------------------------------------------------------------------ BBR

/// An ACK that starts a new round (its segment was sent after the last round's end), with a
/// delivery-rate sample of `rate` B/s and an RTT of `rtt_ms`.
struct Feed {
    delivered: u64,
}

impl Feed {
    fn ack(&mut self, now: SimTime, rate: f64, rtt_ms: u64, inflight_segs: u64) -> bbr::Ack {
        let prior = self.delivered;
        self.delivered += 1000;
        bbr::Ack {
            now,
            sample: Sample {
                newly_delivered: 1000,
                from_segment: true,
                prior_delivered: prior,
                rate_bytes_per_s: Some(rate),
                rtt: Some(SimDuration::from_millis(rtt_ms)),
            },
            delivered: self.delivered,
            prior_inflight: inflight_segs * 1000,
            inflight: inflight_segs * 1000,
            lost: false,
            in_recovery: false,
            lost_segs: 0,
            losses: 0,
        }
    }
}

fn bbr() -> Bbr {
    Bbr::new(1000, 10.0, SimTime::ZERO, None, rng::stream(1, "flow/bbr"))
}

#[test]
fn startup_pacing_from_the_initial_window() {
    let b = bbr();
    assert_eq!(b.mode(), Mode::Startup);
    // BBRInitPacingRate: 2/ln2 · 10 segments · 1000 B / 1 ms
    assert!(close(b.pacing_rate(), HIGH_GAIN * 10_000.0 / 1e-3));
    assert!(close(HIGH_GAIN, 2.0 / std::f64::consts::LN_2));
    // before an RTT sample BBRInflight is the initial window
    assert!(close(b.inflight(2.0), 10.0));
}

#[test]
fn full_pipe_after_three_rounds_without_growth_then_drain_then_probe_bw() {
    let mut b = bbr();
    let mut f = Feed { delivered: 0 };
    let mut cwnd = 10.0;
    // rounds 1–3: the bandwidth doubles (1e5, 2e5, 4e5 B/s): still Startup
    // (§4.2.1: before the pipe is full the pacing rate only rises: 2.885 · 4e5 is still below
    // the initial 2.885 · 10 segments / 1 ms, which stays)
    for (i, rate) in [1e5, 2e5, 4e5].into_iter().enumerate() {
        cwnd = b.on_ack(&f.ack(ms(100 * (i as u64 + 1)), rate, 100, 60), cwnd);
        assert_eq!(b.mode(), Mode::Startup);
        assert!(close(b.pacing_rate(), HIGH_GAIN * 1e7), "round {}", i + 1);
    }
    assert_eq!(b.round_count(), 3);
    // rounds 4–6 at 4.5e5 < 1.25 · 4e5: the third round without growth fills the pipe; the
    // Drain test of that ACK uses the send quantum of the Startup pacing rate (2.885e7 B/s:
    // 1 ms of data, 28.85 segments, so BBRInflight(1) = 45 + 3 · 28.85 = 131.6), and with 200
    // segments in flight BBR stays in Drain
    for r in 4..=6u64 {
        cwnd = b.on_ack(&f.ack(ms(100 * r), 4.5e5, 100, 200), cwnd);
        let want = if r < 6 { Mode::Startup } else { Mode::Drain };
        assert_eq!(b.mode(), want, "round {r}");
    }
    assert!(b.filled_pipe());
    assert!(close(b.pacing_gain(), 1.0 / HIGH_GAIN));
    // once the pipe is full the rate follows the model, falling: 4.5e5 / 2.885 B/s
    assert!(close(b.pacing_rate(), 4.5e5 / HIGH_GAIN));
    // BtlBw is the max of the last 10 rounds: 4.5e5
    assert!(close(b.btlbw(), 4.5e5));
    // now the quantum is 2 segments (pacing 4.5e5/2.885 B/s ≈ 1.25 Mb/s): inflight 52 >
    // BDP 45 + 3 · 2 keeps Drain, 51 ends it: ProbeBW, cwnd gain 2, pacing gain never 3/4 on
    // entry
    b.on_ack(&f.ack(ms(650), 4.5e5, 100, 52), cwnd);
    assert_eq!(b.mode(), Mode::Drain);
    b.on_ack(&f.ack(ms(700), 4.5e5, 100, 51), cwnd);
    assert_eq!(b.mode(), Mode::ProbeBw);
    assert!(close(b.cwnd_gain(), 2.0));
    assert_ne!(b.cycle_index(), 1);
    assert_ne!(b.pacing_gain(), 0.75);
}

#[test]
fn probe_bw_gain_cycle_phases_last_one_rtprop() {
    let mut b = bbr();
    let mut f = Feed { delivered: 0 };
    let mut cwnd = 10.0;
    let mut t = 0;
    for rate in [1e5, 2e5, 4e5, 4.5e5, 4.5e5, 4.5e5] {
        t += 100;
        cwnd = b.on_ack(&f.ack(ms(t), rate, 100, 40), cwnd);
    }
    assert_eq!(b.mode(), Mode::ProbeBw); // drained at once: 40 ≤ 51
    let start = b.cycle_index();
    // a phase of gain 1 ends once RTprop (100 ms) has passed; 1.25 needs inflight ≥ 1.25
    // BDP + quanta (62.25) or a loss; 0.75 ends after RTprop or inflight ≤ BDP + quanta
    let mut seen = vec![start];
    for _ in 0..16 {
        t += 101;
        let g = b.pacing_gain();
        let inflight = if g > 1.0 { 63 } else { 55 };
        b.on_ack(&f.ack(ms(t), 4.5e5, 100, inflight), cwnd);
        seen.push(b.cycle_index());
    }
    for w in seen.windows(2) {
        assert_eq!(w[1], (w[0] + 1) % 8, "one phase per RTprop: {seen:?}");
    }
    // with only 55 in flight the 5/4 phase outlasts RTprop
    while b.cycle_index() != 0 {
        t += 101;
        b.on_ack(&f.ack(ms(t), 4.5e5, 100, 55), cwnd);
    }
    t += 101;
    b.on_ack(&f.ack(ms(t), 4.5e5, 100, 55), cwnd);
    assert_eq!(b.cycle_index(), 0);
    assert_eq!(b.pacing_gain(), 1.25);
}

#[test]
fn probe_rtt_after_ten_seconds_without_a_lower_rtt() {
    let mut b = bbr();
    let mut f = Feed { delivered: 0 };
    let mut cwnd = 10.0;
    let mut t = 0;
    for rate in [1e5, 2e5, 4e5, 4.5e5, 4.5e5, 4.5e5] {
        t += 100;
        cwnd = b.on_ack(&f.ack(ms(t), rate, 100, 40), cwnd);
    }
    // RTTs of 120 ms never refresh RTprop (100 ms, last stamped by the 100 ms sample at
    // t = 600 ms)
    while t < 10_600 {
        t += 100;
        cwnd = b.on_ack(&f.ack(ms(t), 4.5e5, 120, 40), cwnd);
        assert_eq!(b.mode(), Mode::ProbeBw, "t = {t} ms");
    }
    let before = cwnd;
    // t = 10 700 ms > 600 ms + 10 s: ProbeRTT, cwnd 4 segments, pacing gain 1
    t += 100;
    cwnd = b.on_ack(&f.ack(ms(t), 4.5e5, 120, 40), cwnd);
    assert_eq!(b.mode(), Mode::ProbeRtt);
    assert_eq!(cwnd, bbr::MIN_PIPE_CWND);
    assert_eq!(b.pacing_gain(), 1.0);
    // inflight down to 4 at 10 800 ms: ProbeRTT lasts until 11 000 ms and a round
    t += 100;
    cwnd = b.on_ack(&f.ack(ms(t), 4.5e5, 90, 4), cwnd);
    assert_eq!(b.mode(), Mode::ProbeRtt);
    t += 100; // 10 900 ms: a round has ended, 200 ms not yet
    cwnd = b.on_ack(&f.ack(ms(t), 4.5e5, 90, 4), cwnd);
    assert_eq!(b.mode(), Mode::ProbeRtt);
    t += 101; // 11 001 ms: both: back to ProbeBW with the saved cwnd
    cwnd = b.on_ack(&f.ack(ms(t), 4.5e5, 90, 4), cwnd);
    assert_eq!(b.mode(), Mode::ProbeBw);
    assert!(cwnd >= before.min(b.inflight(2.0)), "{cwnd} vs {before}");
    assert_eq!(b.rtprop(), Some(SimDuration::from_millis(90)));
}

#[test]
fn cwnd_grows_by_what_is_delivered_up_to_the_target() {
    let mut b = bbr();
    let mut f = Feed { delivered: 0 };
    // Startup, pipe not full: cwnd 10 + 1 segment delivered = 11 (below the target)
    let cwnd = b.on_ack(&f.ack(ms(100), 1e5, 100, 10), 10.0);
    assert!(close(cwnd, 11.0), "{cwnd}");
    // in loss recovery BBR leaves cwnd to the sender
    let mut a = f.ack(ms(200), 1e5, 100, 10);
    a.in_recovery = true;
    assert_eq!(b.on_ack(&a, 7.0), 7.0);
    // on exit the window saved at the loss is restored: on_congestion saved 11
    let mut c = bbr();
    assert_eq!(c.on_congestion(11.0, 11.0, 3.0, 0), 8.0); // packet conservation: 11 − 3
    let mut a = f.ack(ms(300), 1e5, 100, 5);
    a.in_recovery = true;
    c.on_ack(&a, 8.0);
    let cwnd = c.on_ack(&f.ack(ms(400), 1e5, 100, 5), 8.0);
    assert!(cwnd >= 11.0, "{cwnd}");
}

// ------------------------------------------------------------------------------ HyStart++

fn ms_d(n: u64) -> SimDuration {
    SimDuration::from_millis(n)
}

/// One round of `n` ACKs (segment numbers `first..first + n`, SND.NXT `nxt` segments) with
/// RTT samples `rtt` ms; the last step.
fn round(h: &mut HyStart, first: u64, n: u64, nxt: u64, rtt: u64) -> Step {
    let mut last = Step::Grow { divisor: 1.0 };
    for k in first..first + n {
        last = h.on_ack(k * 1000, nxt * 1000, Some(ms_d(rtt)));
    }
    last
}

#[test]
fn hystart_enters_css_on_an_rtt_rise_of_the_threshold() {
    // rounds of 10 ACKs: round 1 at 100 ms; round 2's 112 ms is below 100 + 100/8 = 112.5:
    // slow start goes on; round 3's 113 ms is below 112 + 112/8 = 126; round 4's 128 ms is
    // above 113 + 113/8 = 127.125: CSS
    let mut h = HyStart::new(1000);
    assert_eq!(round(&mut h, 1, 10, 20, 100), Step::Grow { divisor: 1.0 });
    assert_eq!(round(&mut h, 21, 10, 40, 112), Step::Grow { divisor: 1.0 });
    assert_eq!(round(&mut h, 41, 10, 60, 113), Step::Grow { divisor: 1.0 });
    assert!(!h.in_css());
    assert_eq!(
        round(&mut h, 61, 10, 80, 128),
        Step::Grow {
            divisor: hystart::CSS_GROWTH_DIVISOR
        }
    );
    assert!(h.in_css());
}

#[test]
fn hystart_threshold_is_clamped_to_4_and_16_ms() {
    // last round 20 ms: 20/8 = 2.5 ms, clamped to 4: 23 ms is not a rise, 24 ms is
    let mut h = HyStart::new(1000);
    round(&mut h, 1, 10, 20, 20);
    round(&mut h, 21, 10, 40, 23);
    assert!(!h.in_css());
    let mut h = HyStart::new(1000);
    round(&mut h, 1, 10, 20, 20);
    round(&mut h, 21, 10, 40, 24);
    assert!(h.in_css());
    // last round 200 ms: 25 ms clamped to 16: 216 ms enters CSS
    let mut h = HyStart::new(1000);
    round(&mut h, 1, 10, 20, 200);
    round(&mut h, 21, 10, 40, 216);
    assert!(h.in_css());
    // fewer than N_RTT_SAMPLE = 8 samples in the round: no decision
    let mut h = HyStart::new(1000);
    round(&mut h, 1, 10, 20, 20);
    round(&mut h, 21, 7, 40, 100);
    assert!(!h.in_css());
}

#[test]
fn css_ends_in_congestion_avoidance_after_five_rounds_or_returns_to_slow_start() {
    let mut h = HyStart::new(1000);
    round(&mut h, 1, 10, 20, 20);
    round(&mut h, 21, 10, 40, 30); // CSS, baseline 30 ms
    assert!(h.in_css());
    // rounds 1–4 of CSS at 30 ms: growth divided by 4; the fifth round's first ACK exits
    for r in 0..4u64 {
        let first = 41 + 20 * r;
        assert_eq!(
            round(&mut h, first, 10, first + 19, 30),
            Step::Grow { divisor: 4.0 }
        );
    }
    assert_eq!(h.on_ack(121_000, 140_000, Some(ms_d(30))), Step::Exit);
    // a round minimum below the baseline (29 < 30 ms) returns to slow start
    let mut h = HyStart::new(1000);
    round(&mut h, 1, 10, 20, 20);
    round(&mut h, 21, 10, 40, 30);
    assert_eq!(round(&mut h, 41, 10, 60, 29), Step::Grow { divisor: 1.0 });
    assert!(!h.in_css());
}
