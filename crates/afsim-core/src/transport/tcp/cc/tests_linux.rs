//! Unit tests of the Linux `tcp_bbr.c` options (`bbr_linux.rs`) at exact values, worked out
//! by hand from the kernel's arithmetic (the comments show it), not read back from the code.

use super::bbr::{self, Bbr, Linux, Mode};
use super::bbr_linux::{self, AckAggregation, LtAck, LtBw, LtEvent, LT_BW_MAX_RTTS};
use super::hystart_linux::{Found, LinuxHyStart};
use super::rate::Sample;
use crate::sim::rng;
use crate::sim::time::{SimDuration, SimTime};

fn ms(n: u64) -> SimTime {
    SimTime::from_nanos(n * 1_000_000)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1.0)
}

#[test]
fn extra_acked_after_an_ack_sequence() {
    let mut g = AckAggregation::default();
    // bandwidth estimate 100 segments/s; the first ACK starts an epoch: 1 acked, 0 expected
    g.update(false, ms(0), 1.0, 100.0, 100.0);
    assert!(close(g.extra_acked(), 1.0));
    // 5 ms later 5 more: expected 100 · 0.005 = 0.5 < 1 acked, so the epoch goes on:
    // 6 − 0.5 = 5.5 extra
    g.update(false, ms(5), 5.0, 100.0, 100.0);
    assert!(close(g.extra_acked(), 5.5));
    // at 100 ms expected is 10 ≥ 6 acked: a new epoch (1 acked, 1 extra); the max stays 5.5
    g.update(false, ms(100), 1.0, 100.0, 100.0);
    assert!(close(g.extra_acked(), 5.5));
    // 1 ms later 20 acked, but extra_acked is at most cwnd (8): 21 − 0.1 → 8
    g.update(false, ms(101), 20.0, 100.0, 8.0);
    assert!(close(g.extra_acked(), 8.0));
    // the allowance: at most 100 ms of the bandwidth (100 · 0.1 = 10 segments), whole
    // segments, and only once the pipe is full
    assert!(close(g.cwnd(100.0, true), 8.0));
    assert!(close(g.cwnd(50.0, true), 5.0));
    assert!(close(g.cwnd(100.0, false), 0.0));
    // an ACK delivering nothing changes nothing
    g.update(true, ms(102), 0.0, 100.0, 8.0);
    assert!(close(g.extra_acked(), 8.0));
}

#[test]
fn extra_acked_windows_last_five_round_trips_each() {
    let mut g = AckAggregation::default();
    g.update(false, ms(0), 1.0, 100.0, 100.0);
    g.update(false, ms(1), 9.0, 100.0, 100.0); // 10 − 0.1 = 9.9 in window 0
    assert!(close(g.extra_acked(), 9.9));
    // each ACK below starts a round and a new epoch (expected ≥ acked: 100 ms at 100/s)
    // round starts 1–4: window 0 still
    for r in 1..=4u64 {
        g.update(true, ms(100 * r + 1), 1.0, 100.0, 100.0);
        assert!(close(g.extra_acked(), 9.9), "round {r}");
    }
    // the 5th switches to window 1 (zeroed, then 1 extra); window 0's 9.9 still counts
    g.update(true, ms(501), 1.0, 100.0, 100.0);
    assert!(close(g.extra_acked(), 9.9));
    // the 10th switches back to window 0 and zeroes it: only window 1's 1 and the new 1
    for r in 6..=10u64 {
        g.update(true, ms(100 * r + 1), 1.0, 100.0, 100.0);
    }
    assert!(close(g.extra_acked(), 1.0));
}

#[test]
fn quantization_budget_at_exact_values() {
    // 10 Mb/s = 1.25e6 B/s: 1.25e6 / 1024 = 1220 bytes, 0 segments of 1448: the minimum, 2
    // (above 1.2 Mb/s); below 1.2 Mb/s (1.5e5 B/s) it is 1; at 100 Mb/s 12207 / 1448 → 8
    assert!(close(bbr_linux::tso_segs_goal(1.25e6, 1448.0), 2.0));
    assert!(close(bbr_linux::tso_segs_goal(1.0e5, 1448.0), 1.0));
    assert!(close(bbr_linux::tso_segs_goal(1.25e7, 1448.0), 8.0));
    // 4 Gb/s = 5e8 B/s: 488 281 bytes (under 6.x's GSO_MAX_SIZE cap), 337 segments — kernels
    // before 6.0 capped this at 127 segments and 64 KB (45 segments)
    assert!(close(bbr_linux::tso_segs_goal(5.0e8, 1448.0), 337.0));
    // 57 + 3 · 2 = 63, rounded up to even: 64; in ProbeBW's 5/4 phase 66
    assert!(close(
        bbr_linux::quantization_budget(57.0, 1.25e6, 1448.0, false),
        64.0
    ));
    assert!(close(
        bbr_linux::quantization_budget(57.0, 1.25e6, 1448.0, true),
        66.0
    ));
    // 100 + 3 · 8 = 124, already even
    assert!(close(
        bbr_linux::quantization_budget(100.0, 1.25e7, 1448.0, false),
        124.0
    ));
}

fn lt_ack(t: u64, round_start: bool, losses: u64, delivered_segs: u64, lost: u64) -> LtAck {
    LtAck {
        now: ms(t),
        round_start,
        losses,
        delivered: delivered_segs * 1000,
        lost,
        probe_bw: true,
    }
}

/// Four rounds after a loss, then a loss at `t_end` with `d` segments delivered and `l` lost
/// since the interval began at `t0` (delivered `d0`, lost `l0`).
fn interval(lt: &mut LtBw, t0: u64, d0: u64, l0: u64, t_end: u64, d: u64, l: u64) -> LtEvent {
    for k in 1..=4 {
        assert_eq!(
            lt.sample(&lt_ack(t0 + 100 * k, true, 0, d0 + k, l0), 1000.0),
            LtEvent::None
        );
    }
    lt.sample(&lt_ack(t_end, false, 1, d0 + d, l0 + l), 1000.0)
}

#[test]
fn lt_bw_engages_after_two_lossy_intervals_at_the_same_rate() {
    let mut lt = LtBw::default();
    // no loss: no sampling
    assert_eq!(
        lt.sample(&lt_ack(0, true, 0, 100, 0), 1000.0),
        LtEvent::None
    );
    assert!(!lt.is_sampling());
    // the first loss starts an interval at 0 ms (100 segments delivered, 1 lost)
    assert_eq!(
        lt.sample(&lt_ack(0, false, 1, 100, 1), 1000.0),
        LtEvent::None
    );
    assert!(lt.is_sampling());
    // 4 rounds, then at 450 ms 40 delivered and 10 lost (10/40 ≥ 50/256): 40 000 B / 0.45 s
    assert_eq!(interval(&mut lt, 0, 100, 1, 450, 40, 10), LtEvent::None);
    assert_eq!(lt.bw(), None);
    // the second interval from 450 ms: 36 segments in 0.45 s = 80 000 B/s, within 1/8 of
    // 88 888.9 (diff 8 888.9 ≤ 11 111.1): a policer; the rate is the two intervals' mean
    assert_eq!(
        interval(&mut lt, 450, 140, 11, 900, 36, 9),
        LtEvent::Engaged
    );
    let want = (40_000.0 / 0.45 + 80_000.0) / 2.0;
    assert!(close(lt.bw().unwrap(), want), "{:?}", lt.bw());
    // 48 round trips of ProbeBW later it expires
    for k in 1..LT_BW_MAX_RTTS as u64 {
        assert_eq!(
            lt.sample(&lt_ack(900 + 100 * k, true, 0, 200 + k, 30), 1000.0),
            LtEvent::None
        );
    }
    assert_eq!(
        lt.sample(&lt_ack(5800, true, 0, 300, 30), 1000.0),
        LtEvent::Expired
    );
    assert_eq!(lt.bw(), None);
    assert!(!lt.is_sampling());
}

#[test]
fn lt_bw_needs_the_loss_rate_and_close_rates() {
    // 7 lost of 40 delivered: 7 < 40 · 50/256 = 7.8, the interval goes on
    let mut lt = LtBw::default();
    lt.sample(&lt_ack(0, false, 1, 100, 1), 1000.0);
    assert_eq!(interval(&mut lt, 0, 100, 1, 450, 40, 7), LtEvent::None);
    assert!(lt.is_sampling());
    // and it is over after 16 rounds (4 · bbr_lt_intvl_min_rtts) without enough loss
    for k in 5..=16 {
        lt.sample(&lt_ack(100 * k, true, 0, 140 + k, 8), 1000.0);
        assert!(lt.is_sampling(), "round {k}");
    }
    lt.sample(&lt_ack(1700, true, 0, 160, 8), 1000.0);
    assert!(!lt.is_sampling());
    // two intervals at 88 888.9 and 133 333.3 B/s (60 segments in 0.45 s) differ by more than
    // 1/8: no policer, the second rate is kept for the next comparison
    let mut lt = LtBw::default();
    lt.sample(&lt_ack(0, false, 1, 100, 1), 1000.0);
    assert_eq!(interval(&mut lt, 0, 100, 1, 450, 40, 10), LtEvent::None);
    assert_eq!(interval(&mut lt, 450, 140, 11, 900, 60, 15), LtEvent::None);
    assert_eq!(
        interval(&mut lt, 900, 200, 26, 1350, 60, 15),
        LtEvent::Engaged
    );
    assert!(close(lt.bw().unwrap(), 60_000.0 / 0.45));
}

/// An ACK that starts a round, `delivered` segments of 1000 bytes so far, `lost` segments lost.
fn ack(t: u64, delivered: u64, lost: u64, rate: f64, inflight: u64) -> bbr::Ack {
    bbr::Ack {
        now: ms(t),
        sample: Sample {
            newly_delivered: 1000,
            from_segment: true,
            prior_delivered: (delivered - 1) * 1000,
            rate_bytes_per_s: Some(rate),
            rtt: Some(SimDuration::from_millis(100)),
        },
        delivered: delivered * 1000,
        prior_inflight: inflight * 1000,
        inflight: inflight * 1000,
        lost: false,
        in_recovery: false,
        lost_segs: lost,
        losses: 0,
    }
}

/// BBR in ProbeBW at BtlBw 4.5e5 B/s and RTprop 100 ms (BDP 45 segments), as the draft test
/// `full_pipe_after_three_rounds_without_growth_then_drain_then_probe_bw` gets there.
fn bbr_in_probe_bw(l: Linux) -> (Bbr, u64) {
    let mut b = Bbr::new(1000, 10.0, SimTime::ZERO, None, rng::stream(1, "flow/bbr")).with_linux(l);
    let mut cwnd = 10.0;
    let mut d = 0;
    for (i, rate) in [1e5, 2e5, 4e5, 4.5e5, 4.5e5, 4.5e5].into_iter().enumerate() {
        d += 1;
        cwnd = b.on_ack(&ack(100 * (i as u64 + 1), d, 0, rate, 200), cwnd);
    }
    d += 1;
    b.on_ack(&ack(700, d, 0, 4.5e5, 51), cwnd);
    assert_eq!(b.mode(), Mode::ProbeBw);
    (b, d)
}

#[test]
fn policer_detection_paces_bbr_at_the_long_term_rate() {
    let l = Linux {
        policer_detection: true,
        ..Linux::default()
    };
    let (mut b, mut d) = bbr_in_probe_bw(l);
    let mut cwnd = 90.0;
    // a loss at 800 ms starts sampling; 4 rounds; a loss at 1200 ms: 4 segments delivered
    // (and 2 lost) in 0.4 s = 10 000 B/s; from 1200 ms to 1700 ms 5 in 0.5 s, the same rate:
    // policed
    let mut lost = 0;
    for t in (800..=1700).step_by(100) {
        d += 1;
        if t == 800 || t == 1200 || t == 1700 {
            lost += 2;
        }
        cwnd = b.on_ack(&ack(t, d, lost, 4.5e5, 40), cwnd);
        if t < 1700 {
            assert!(close(b.bw(), 4.5e5), "{t} ms");
        }
    }
    assert!(close(b.bw(), 10_000.0));
    assert!(close(b.btlbw(), 4.5e5));
    assert!(close(b.pacing_gain(), 1.0));
    assert!(close(b.pacing_rate(), 10_000.0));
    // cwnd's target from the long-term rate: 2 · 10 000 · 0.1 / 1000 = 2 segments + 3 quanta
    // of 1 segment (80 kb/s < 1.2 Mb/s): 5
    assert!(close(b.cwnd_target(), 5.0));
    // without the option the same ACKs leave BBR at BtlBw
    let (mut b, mut d) = bbr_in_probe_bw(Linux::default());
    let mut lost = 0;
    for t in (800..=1700).step_by(100) {
        d += 1;
        lost += 2;
        b.on_ack(&ack(t, d, lost, 4.5e5, 40), 90.0);
    }
    assert!(close(b.bw(), 4.5e5));
}

#[test]
fn cwnd_target_with_ack_aggregation_and_the_quantization_budget() {
    // BDP 45 segments, cwnd gain 2: the draft's target 90 + 3 quanta of 2 segments (pacing at
    // 3.6 Mb/s or more) = 96
    let (b, _) = bbr_in_probe_bw(Linux::default());
    let probing = b.cycle_index() == 0;
    assert!(close(b.cwnd_target(), 96.0));
    // Linux: ⌈90⌉ + 3 TSO bursts of 2 = 96, even; + 2 in the 5/4 phase
    let l = Linux {
        quantization_budget: true,
        ..Linux::default()
    };
    let (b, _) = bbr_in_probe_bw(l);
    assert_eq!(b.cycle_index() == 0, probing);
    assert!(close(b.cwnd_target(), if probing { 98.0 } else { 96.0 }));
    // ACK aggregation: the 7 ACKs so far, 100 ms apart at 450 segments/s expected, each start
    // an epoch with 1 acked: extra_acked 1, allowance 1 (the pipe is full)
    let l = Linux {
        ack_aggregation: true,
        ..Linux::default()
    };
    let (b, _) = bbr_in_probe_bw(l);
    assert!(close(b.ack_aggregation().unwrap().extra_acked(), 1.0));
    assert!(close(b.cwnd_target(), 97.0));
}

// ------------------------------------------------------------ Linux HyStart (tcp_cubic.c)

#[test]
fn lt_bw_rate_test_is_on_whole_milliseconds_and_one_percent_low() {
    let at = |t: SimTime, round_start: bool, losses: u64, delivered: u64, lost: u64| LtAck {
        now: t,
        round_start,
        losses,
        delivered,
        lost,
        probe_bw: true,
    };
    let mut lt = LtBw::default();
    // the first loss at 0.6 ms starts the interval: Linux stamps it 0 ms
    lt.sample(&at(us(600), false, 1, 0, 0), 1000.0);
    for k in 1..=4u64 {
        lt.sample(&at(ms(100 * k), true, 0, 0, 0), 1000.0);
    }
    // at 1000.9 ms, 2000 bytes delivered and 1 lost (1 ≥ 2 · 50/256): 1000 − 0 = 1000 whole
    // ms, 2000 B/s
    assert_eq!(
        lt.sample(&at(us(1_000_900), false, 1, 2000, 1), 1000.0),
        LtEvent::None
    );
    for k in 1..=4u64 {
        lt.sample(&at(ms(1000 + 100 * k), true, 0, 2000, 1), 1000.0);
    }
    // the second interval, 1000 → 2000 ms: 2502 B/s; 502 B/s apart, more than 1/8 of 2000,
    // but 502 · 0.99 = 497 ≤ 500 B/s (bbr_lt_bw_diff through bbr_rate_bytes_per_sec): a policer
    assert_eq!(
        lt.sample(&at(ms(2000), false, 1, 4502, 2), 1000.0),
        LtEvent::Engaged
    );
    assert!(
        close(lt.bw().unwrap(), (2000.0 + 2502.0) / 2.0),
        "{:?}",
        lt.bw()
    );
}

fn us(n: u64) -> SimTime {
    SimTime::from_nanos(n * 1_000)
}

fn rtt_ms(n: u64) -> Option<SimDuration> {
    Some(SimDuration::from_millis(n))
}

#[test]
fn linux_hystart_ack_train_ends_slow_start_after_half_the_min_rtt() {
    let mut h = LinuxHyStart::new(1000);
    // below hystart_low_window (16 segments) only delay_min and the round are kept: 44 ms, a
    // round to SND.NXT 19 999
    assert_eq!(h.on_ack(ms(50), 10_000, 19_999, 15.0, rtt_ms(44)), None);
    assert_eq!(h.delay_min(), Some(SimDuration::from_millis(44)));
    // at 16 segments SND.UNA passes end_seq: a round starts at 100 ms; ACKs 1.2 ms apart (a
    // 10 Mb/s bottleneck's 1500-byte spacing) extend the train; the threshold is
    // (44 + 1) / 2 = 22.5 ms, passed by the 19th ACK (22.8 ms)
    assert_eq!(h.on_ack(ms(100), 20_000, 50_000, 16.0, rtt_ms(44)), None);
    for k in 1..=18u64 {
        let r = h.on_ack(
            us(100_000 + 1_200 * k),
            20_000 + k,
            50_000,
            16.0,
            rtt_ms(44),
        );
        assert_eq!(r, None, "ACK {k}");
    }
    let r = h.on_ack(us(100_000 + 1_200 * 19), 20_019, 50_000, 16.0, rtt_ms(44));
    assert_eq!(r, Some(Found::AckTrain));
}

#[test]
fn linux_hystart_round_that_began_below_the_low_window_goes_on() {
    // tcp_cubic.c's hystart_update restarts the round before it looks at cwnd: the round begun
    // at 50 ms (cwnd 15) runs to SND.NXT 30 000, so at 100 ms (cwnd 16, SND.UNA 20 000) no round
    // starts, the train's last ACK is still 50 ms, and ACKs 1.2 ms apart from 100 ms on are
    // more than 2 ms from it: no ACK train this round (a round started at 100 ms would end
    // slow start at the 19th ACK, as in the test above)
    let mut h = LinuxHyStart::new(1000);
    assert_eq!(h.on_ack(ms(50), 10_000, 30_000, 15.0, rtt_ms(44)), None);
    for k in 0..=19u64 {
        let r = h.on_ack(
            us(100_000 + 1_200 * k),
            20_000 + k,
            50_000,
            16.0,
            rtt_ms(44),
        );
        assert_eq!(r, None, "ACK {k}");
    }
}

#[test]
fn linux_hystart_train_breaks_on_a_gap_of_more_than_2_ms() {
    let mut h = LinuxHyStart::new(1000);
    assert_eq!(h.on_ack(ms(100), 20_000, 50_000, 16.0, rtt_ms(44)), None);
    for k in 1..=10u64 {
        h.on_ack(
            us(100_000 + 1_200 * k),
            20_000 + k,
            50_000,
            16.0,
            rtt_ms(44),
        );
    }
    // 112 ms, then 115 ms: 3 ms > 2 ms, the train ends; later ACKs are more than 2 ms from
    // its last (112 ms), so none counts again this round
    for k in 0..20u64 {
        let r = h.on_ack(
            us(115_000 + 1_200 * k),
            20_011 + k,
            50_000,
            16.0,
            rtt_ms(44),
        );
        assert_eq!(r, None, "ACK at {} µs", 115_000 + 1_200 * k);
    }
}

#[test]
fn linux_hystart_delay_detection_after_8_samples() {
    // delay_min 40 ms: threshold clamp(40/8 = 5 ms, 4, 16) = 5 ms; ACKs 3 ms apart (no train)
    let run = |rtt: u64| {
        let mut h = LinuxHyStart::new(1000);
        h.on_ack(ms(0), 1_000, 10_000, 10.0, rtt_ms(40));
        let mut out = vec![];
        for k in 0..9u64 {
            out.push(h.on_ack(ms(100 + 3 * k), 20_000 + k, 50_000, 20.0, rtt_ms(rtt)));
        }
        out
    };
    // the round's minimum, 46 ms > 45 ms: the 9th ACK (after 8 samples) ends slow start
    let r = run(46);
    assert!(r[..8].iter().all(Option::is_none), "{r:?}");
    assert_eq!(r[8], Some(Found::Delay));
    // 45 ms is not above the threshold
    assert!(run(45).iter().all(Option::is_none));
}

/// An ACK in RACK recovery at `t` ms delivering one 1000-byte segment (`delivered` so far)
/// whose segment was sent before the current round's end (`prior` delivered then), `losses`
/// segments newly marked lost by it.
fn recovery_ack(t: u64, delivered: u64, prior: u64, losses: u64, in_recovery: bool) -> bbr::Ack {
    bbr::Ack {
        now: ms(t),
        sample: Sample {
            newly_delivered: 1000,
            from_segment: true,
            prior_delivered: prior * 1000,
            rate_bytes_per_s: Some(4.5e5),
            rtt: Some(SimDuration::from_millis(100)),
        },
        delivered: delivered * 1000,
        prior_inflight: 60_000,
        inflight: 59_000,
        lost: false,
        in_recovery,
        lost_segs: 0,
        losses,
    }
}

/// The sender's order on an ACK in recovery: `on_ack`, then `recovery_cwnd` with the pipe.
fn step(b: &mut Bbr, a: &bbr::Ack, cwnd: f64, pipe: f64) -> f64 {
    let c = b.on_ack(a, cwnd);
    b.recovery_cwnd(a, c, pipe)
}

#[test]
fn recovery_losses_follow_bbr_set_cwnd_to_recover_or_restore() {
    let l = Linux {
        recovery_losses: true,
        ..Linux::default()
    };
    let (mut b, d) = bbr_in_probe_bw(l);
    let (mut draft, _) = bbr_in_probe_bw(Linux::default());
    // recovery begins with cwnd 60, 60 segments in flight, dupthresh 3: the draft-00 model's
    // packet-conserving start is 60 − 3 = 57; Linux leaves cwnd to the next ACK (60)
    assert!(close(draft.on_congestion(60.0, 60.0, 3.0, d * 1000), 57.0));
    assert!(close(b.on_congestion(60.0, 60.0, 3.0, d * 1000), 60.0));
    // the recovery's first ACK delivers 1 segment and RACK marks 5 lost; the pipe is 40:
    // cwnd = max(60 − 5, 1), then tcp_packets_in_flight + acked = 40 + 1 = 41 (conservation:
    // max(41, 41))
    let a = recovery_ack(800, d + 1, d - 1, 5, true);
    let c = b.on_ack(&a, 60.0);
    let c = b.recovery_cwnd(&a, c, 40.0);
    assert!(close(c, 41.0));
    // the draft's BBRModulateCwndForRecovery (§4.2.3.4) takes the 5 off too: max(57 − 5,
    // 40 + 1) = 52 (the draft's window did not start from the pipe)
    let c_draft = step(&mut draft, &a, 57.0, 40.0);
    assert!(close(c_draft, 52.0), "{c_draft}");
    // the next ACK, same round (its segment sent before the recovery's round began), 2 newly
    // lost, pipe 39: max(41 − 2, 39 + 1) = 40
    let a = recovery_ack(801, d + 2, d - 1, 2, true);
    let c = step(&mut b, &a, c, 39.0);
    assert!(close(c, 40.0));
    // an ACK that delivers nothing (`if (!acked) goto done`): 3 marked lost, cwnd stays 40
    let mut a0 = recovery_ack(802, d + 2, d - 1, 3, true);
    a0.sample.newly_delivered = 0;
    a0.sample.rate_bytes_per_s = None;
    let c = step(&mut b, &a0, c, 36.0);
    assert!(close(c, 40.0));
    // a round start ends packet conservation: then cwnd − losses + acked, at most the target
    // (2 · 45 + 3 quanta of 2 segments = 96): 40 − 1 + 1 = 40
    let a = recovery_ack(900, d + 3, d + 2, 1, true);
    let c = step(&mut b, &a, c, 38.0);
    assert!(close(c, 40.0));
    // outside recovery the newly lost come off too (Linux: every state; after a timeout, say):
    // the ACK ends the recovery, so cwnd = max(40 − 2, prior_cwnd 60) = 60, then 60 + 1
    let a = recovery_ack(1000, d + 4, d + 3, 2, false);
    assert!(close(b.on_ack(&a, c), 61.0));
    let a = recovery_ack(1100, d + 5, d + 4, 4, false);
    assert!(close(b.on_ack(&a, 61.0), 58.0)); // 61 − 4 + 1
}

#[test]
fn draft_mode_takes_newly_lost_segments_off_cwnd_in_recovery() {
    // draft-00 §4.2.3.4 BBRModulateCwndForRecovery, the default (no Linux option)
    let (mut b, d) = bbr_in_probe_bw(Linux::default());
    // the fast retransmit: 60 in flight, dupthresh 3: cwnd 57, packet conservation
    assert!(close(b.on_congestion(60.0, 60.0, 3.0, d * 1000), 57.0));
    // the ACK that began the recovery (`lost`): its 5 marks are already out of 57
    let mut a = recovery_ack(800, d + 1, d - 1, 5, true);
    a.lost = true;
    assert!(close(step(&mut b, &a, 57.0, 40.0), 57.0));
    // 2 newly lost, pipe 39: max(57 − 2, 39 + 1) = 55 (before the fix 57)
    let a = recovery_ack(801, d + 2, d - 1, 2, true);
    let c = step(&mut b, &a, 57.0, 39.0);
    assert!(close(c, 55.0), "{c}");
    // none lost: max(55, 38 + 1) = 55
    let a = recovery_ack(802, d + 3, d - 1, 0, true);
    let c = step(&mut b, &a, c, 38.0);
    assert!(close(c, 55.0), "{c}");
    // 30 lost at once, pipe 20: max(55 − 30, 20 + 1) = 25
    let a = recovery_ack(803, d + 4, d - 1, 30, true);
    let c = step(&mut b, &a, c, 20.0);
    assert!(close(c, 25.0), "{c}");
    // a round start ends packet conservation: 25 − 1 lost, + 1 delivered (below the target)
    let a = recovery_ack(900, d + 5, d, 1, true);
    let c = step(&mut b, &a, c, 20.0);
    assert!(close(c, 25.0), "{c}");
    // recovery over: the window saved at the fast retransmit (60) comes back, + 1 delivered
    let a = recovery_ack(1000, d + 6, d + 5, 0, false);
    let c = b.on_ack(&a, c);
    assert!(close(c, 61.0), "{c}");
}
