use super::*;
use crate::edge::token_bucket::nanobits;
use crate::sim::time::SimDuration;

const S: u64 = 1_000_000_000;

fn at_s(s: u64) -> SimTime {
    SimTime(s * S)
}

/// r = 8000 bit/s with L = 1000 B: exactly one conformant token per second.
fn params(alpha: f64) -> Params {
    Params {
        rate_bps: 8_000,
        b1_tokens: 10,
        b2_tokens: 1,
        token_bytes: 1_000,
        alpha,
        buffer_packets: 100,
        clock: TokenClock::Continuous,
    }
}

fn etb(alpha: f64) -> EnhancedTokenBucket {
    EnhancedTokenBucket::new(params(alpha), SimTime::ZERO)
}

/// An always-backlogged input buffer: serves the head whenever a token is there, until
/// `end` (inclusive). Returns the (time, decision) of every served packet.
fn drain_until(
    e: &mut EnhancedTokenBucket,
    start: SimTime,
    end: SimTime,
) -> Vec<(SimTime, Decision)> {
    let mut out = Vec::new();
    let mut t = start;
    loop {
        let d = e.serve(t, 1_000);
        if d == Decision::Wait {
            let next = e.next_service(t).expect("r > 0 always refills");
            assert!(next > t, "after a Wait the next service lies in the future");
            t = next;
            if t > end {
                return out;
            }
        } else {
            out.push((t, d));
        }
    }
}

fn count(served: &[(SimTime, Decision)], d: Decision) -> usize {
    served.iter().filter(|(_, x)| *x == d).count()
}

fn periodic(alpha: f64) -> Params {
    Params {
        clock: TokenClock::Periodic,
        ..params(alpha)
    }
}

fn times(served: &[(SimTime, Decision)], d: Decision) -> Vec<SimTime> {
    served
        .iter()
        .filter(|(_, x)| *x == d)
        .map(|(t, _)| *t)
        .collect()
}

#[test]
fn periodic_tokens_arrive_whole_on_the_grid_from_time_zero() {
    // α = 0.4: conformant tokens at 1 s, 2 s, …; non-conformant at 8000·0.4 = 3200 bit/s,
    // one 8000-bit token every 2.5 s: 2.5 s, 5 s, 7.5 s, …
    let mut e = EnhancedTokenBucket::new(periodic(0.4), SimTime::ZERO);
    let served = drain_until(&mut e, SimTime::ZERO, at_s(10));
    let green = times(&served, Decision::Green);
    assert_eq!(green.len(), 10 + 10, "b1 at the start, then one per second");
    assert!(green[..10].iter().all(|&t| t == SimTime::ZERO));
    assert_eq!(green[10..], (1..=10).map(at_s).collect::<Vec<_>>());
    // b2 = 1 at the start, then a token every 2.5 s; at 5 s and 10 s both buckets get a
    // token at once: one packet goes green, the next takes the yellow token at once
    let yellow = times(&served, Decision::Yellow);
    assert_eq!(
        yellow,
        [0, 2_500, 5_000, 7_500, 10_000].map(|ms| SimTime(ms * 1_000_000))
    );
    // nothing between grid points: just before the next token there is still none
    let mut e = EnhancedTokenBucket::new(
        Params {
            b1_tokens: 1,
            ..periodic(0.0)
        },
        SimTime::ZERO,
    );
    assert_eq!(e.serve(SimTime::ZERO, 1_000), Decision::Green);
    assert_eq!(
        e.serve(SimTime::ZERO, 1_000),
        Decision::Yellow,
        "b2 starts full; α = 0 never refills it"
    );
    assert_eq!(e.serve(SimTime(999_999_999), 1_000), Decision::Wait);
    assert_eq!(e.next_service(SimTime(500_000_000)), Some(at_s(1)));
    assert_eq!(e.serve(at_s(1), 1_000), Decision::Green);
}

#[test]
fn periodic_buckets_created_at_different_times_share_the_grid_continuous_ones_do_not() {
    for (clock, second_at) in [
        (TokenClock::Periodic, at_s(1)),
        (TokenClock::Continuous, SimTime(1_300_000_000)),
    ] {
        let p = Params {
            b1_tokens: 1,
            clock,
            ..params(0.0)
        };
        let mut a = EnhancedTokenBucket::new(p, SimTime::ZERO);
        let mut b = EnhancedTokenBucket::new(p, SimTime(300_000_000));
        assert_eq!(a.serve(SimTime::ZERO, 1_000), Decision::Green);
        assert_eq!(a.serve(SimTime::ZERO, 1_000), Decision::Yellow);
        assert_eq!(b.serve(SimTime(300_000_000), 1_000), Decision::Green);
        assert_eq!(b.serve(SimTime(300_000_000), 1_000), Decision::Yellow);
        assert_eq!(a.next_service(SimTime(300_000_000)), Some(at_s(1)));
        assert_eq!(
            b.next_service(SimTime(300_000_000)),
            Some(second_at),
            "{clock:?}"
        );
    }
}

#[test]
fn own_phase_generators_start_at_each_buckets_first_packet() {
    // two buckets created together; their sources send first at 0.3 s and 0.7 s. On the
    // shared grid both get their next token at 1 s; with their own phase at 1.3 s and 1.7 s
    for (clock, next) in [
        (TokenClock::Periodic, [at_s(1), at_s(1)]),
        (
            TokenClock::PeriodicOwnPhase,
            [SimTime(1_300_000_000), SimTime(1_700_000_000)],
        ),
    ] {
        let p = Params {
            b1_tokens: 1,
            clock,
            ..params(0.0)
        };
        for (first, want) in [
            (SimTime(300_000_000), next[0]),
            (SimTime(700_000_000), next[1]),
        ] {
            let mut e = EnhancedTokenBucket::new(p, SimTime::ZERO);
            assert_eq!(
                e.serve(first, 1_000),
                Decision::Green,
                "the bucket starts full"
            );
            assert_eq!(e.serve(first, 1_000), Decision::Yellow);
            assert_eq!(e.next_service(first), Some(want), "{clock:?}");
            assert_eq!(e.serve(want, 1_000), Decision::Green);
            // and every period after that, on the same grid
            assert_eq!(
                e.next_service(want),
                Some(SimTime(want.as_nanos() + 1_000_000_000)),
                "{clock:?}"
            );
        }
    }
}

#[test]
fn periodic_alpha_change_credits_the_old_grid_then_follows_the_new_one() {
    let mut e = EnhancedTokenBucket::new(
        Params {
            b1_tokens: 1,
            b2_tokens: 2,
            ..periodic(0.4)
        },
        SimTime::ZERO,
    );
    // empty both buckets at 0
    assert_eq!(e.serve(SimTime::ZERO, 1_000), Decision::Green);
    assert_eq!(e.serve(SimTime::ZERO, 1_000), Decision::Yellow);
    assert_eq!(e.serve(SimTime::ZERO, 1_000), Decision::Yellow);
    assert_eq!(e.nonconformant().tokens(), 0);
    // at 3 s the old grid (every 2.5 s) has given one token; α = 0.5 then fills on the
    // 2 s grid: the next token at 4 s, not 3 s + 2 s
    e.set_alpha(at_s(3), 0.5);
    assert_eq!(
        e.nonconformant().tokens(),
        nanobits(1_000),
        "the 2.5 s token was credited"
    );
    assert_eq!(e.nonconformant().rate_bps(), 4_000);
    assert_eq!(
        e.nonconformant().ready_at(at_s(3), nanobits(1_000)),
        Some(at_s(3))
    );
    // α = 0: a periodic bucket with no rate never refills
    let mut z = EnhancedTokenBucket::new(
        Params {
            b1_tokens: 1,
            ..periodic(0.0)
        },
        SimTime::ZERO,
    );
    assert_eq!(z.serve(SimTime::ZERO, 1_000), Decision::Green);
    assert_eq!(
        z.serve(SimTime::ZERO, 1_000),
        Decision::Yellow,
        "b2 starts full"
    );
    assert_eq!(z.nonconformant().ready_at(at_s(100), nanobits(1_000)), None);
}

#[test]
fn periodic_next_token_after_a_rate_change_is_on_the_new_grid() {
    let mut e = EnhancedTokenBucket::new(
        Params {
            b1_tokens: 1,
            b2_tokens: 1,
            ..periodic(0.4)
        },
        SimTime::ZERO,
    );
    assert_eq!(e.serve(SimTime::ZERO, 1_000), Decision::Green);
    assert_eq!(e.serve(SimTime::ZERO, 1_000), Decision::Yellow);
    e.set_alpha(SimTime(1_000_000_000), 0.5); // before the old grid's 2.5 s token
    assert_eq!(e.nonconformant().tokens(), 0);
    assert_eq!(
        e.nonconformant().ready_at(at_s(1), nanobits(1_000)),
        Some(at_s(2)),
        "4000 bit/s: 2 s, 4 s, …"
    );
}

#[test]
fn both_buckets_start_full() {
    let e = etb(0.4);
    assert_eq!(e.conformant().tokens(), nanobits(10_000));
    assert_eq!(e.nonconformant().tokens(), nanobits(1_000));
    assert_eq!(e.nonconformant().rate_bps(), 3_200, "α·r = 0.4 × 8000");
}

#[test]
fn a_burst_takes_b1_conformant_then_b2_downgraded_then_waits() {
    let mut e = EnhancedTokenBucket::new(
        Params {
            b2_tokens: 2,
            ..params(0.4)
        },
        SimTime::ZERO,
    );
    let t = SimTime::ZERO;
    for i in 0..10 {
        assert_eq!(
            e.serve(t, 1_000),
            Decision::Green,
            "packet {i} finds a conformant token"
        );
    }
    assert_eq!(e.serve(t, 1_000), Decision::Yellow);
    assert_eq!(e.serve(t, 1_000), Decision::Yellow);
    assert_eq!(e.decide(t, 1_000), Decision::Wait);
    assert_eq!(e.stats.packets, [10, 2, 0]);
    assert_eq!(e.stats.bytes, [10_000, 2_000, 0]);
    assert!(e.stats.check().is_ok());
}

#[test]
fn wait_takes_nothing() {
    let mut e = etb(0.4);
    drain_until(&mut e, SimTime::ZERO, SimTime::ZERO);
    let before = (
        e.conformant().clone(),
        e.nonconformant().clone(),
        e.stats.clone(),
    );
    for _ in 0..5 {
        assert_eq!(e.decide(SimTime(500_000_000), 1_000), Decision::Wait);
        assert_eq!(e.serve(SimTime(500_000_000), 1_000), Decision::Wait);
    }
    assert_eq!(e.stats, before.2, "a waiting packet is not counted");
    // serve refreshed nothing it did not have to: tokens are unchanged up to the accrual
    assert_eq!(e.conformant().tokens(), before.0.tokens());
    assert_eq!(e.nonconformant().tokens(), before.1.tokens());
}

#[test]
fn decide_prefers_the_conformant_bucket_when_both_hold_a_token() {
    let e = etb(1.0);
    assert_eq!(e.decide(SimTime::ZERO, 1_000), Decision::Green);
}

#[test]
fn under_overload_alpha_point_four_gives_r_conformant_and_point_four_r_downgraded() {
    // 100 s of backlog: conformant tokens at 1/s (whole at 1 s, 2 s, ...), non-conformant at
    // 0.4/s (whole at 2.5 s, 5 s, ...). Served: the initial b1 + b2, then exactly the tokens
    // accrued: 100 green and 40 yellow.
    let mut e = etb(0.4);
    let served = drain_until(&mut e, SimTime::ZERO, at_s(100));
    assert_eq!(count(&served, Decision::Green), 10 + 100);
    assert_eq!(count(&served, Decision::Yellow), 1 + 40);
    // first yellow after the initial burst: 2.5 s; at 5 s both buckets refill together and
    // the head goes green first, the next packet yellow at the same instant
    let yellows: Vec<_> = served
        .iter()
        .filter(|(_, d)| *d == Decision::Yellow)
        .map(|(t, _)| *t)
        .collect();
    assert_eq!(
        &yellows[..3],
        &[SimTime::ZERO, SimTime(2_500_000_000), at_s(5)]
    );
    let at5: Vec<_> = served
        .iter()
        .filter(|(t, _)| *t == at_s(5))
        .map(|(_, d)| *d)
        .collect();
    assert_eq!(at5, vec![Decision::Green, Decision::Yellow]);
    // rates measured after the initial burst: r and 0.4·r, in bits/s
    let green_bps = (count(&served, Decision::Green) - 10) as f64 * 8_000.0 / 100.0;
    let yellow_bps = (count(&served, Decision::Yellow) - 1) as f64 * 8_000.0 / 100.0;
    assert_eq!(green_bps, 8_000.0);
    assert_eq!(yellow_bps, 3_200.0);
}

#[test]
fn alpha_zero_gives_exactly_r_after_the_initial_buckets() {
    let mut e = etb(0.0);
    let served = drain_until(&mut e, SimTime::ZERO, at_s(100));
    assert_eq!(count(&served, Decision::Green), 10 + 100);
    assert_eq!(
        count(&served, Decision::Yellow),
        1,
        "only the token b2 started with"
    );
    assert!(served.iter().skip(11).all(|(_, d)| *d == Decision::Green));
    // green packets leave exactly one per token interval
    let times: Vec<_> = served.iter().skip(11).map(|(t, _)| *t).collect();
    assert_eq!(times[0], at_s(1));
    assert!(times
        .windows(2)
        .all(|w| w[1] - w[0] == SimDuration::from_secs(1)));
}

#[test]
fn set_alpha_credits_the_old_rate_then_fills_at_the_new_one() {
    // α = 0.5: 4000 bit/s into b2, half a token per second.
    let mut e = etb(0.5);
    drain_until(&mut e, SimTime::ZERO, SimTime::ZERO);
    assert_eq!(e.nonconformant().tokens(), 0);
    // 1 s at 4000 bit/s: half a token; then α = 0.25 (2000 bit/s) needs 2 s for the other half
    e.set_alpha(at_s(1), 0.25);
    assert_eq!(e.alpha(), 0.25);
    assert_eq!(e.nonconformant().tokens(), nanobits(500));
    assert_eq!(e.nonconformant().rate_bps(), 2_000);
    assert_eq!(
        e.nonconformant().ready_at(at_s(1), nanobits(1_000)),
        Some(at_s(3))
    );
}

#[test]
fn set_alpha_zero_stops_the_nonconformant_bucket_mid_run() {
    let mut e = etb(0.4);
    drain_until(&mut e, SimTime::ZERO, SimTime::ZERO);
    e.set_alpha(at_s(1), 0.0); // 0.4 token accrued, and no more ever
    assert_eq!(e.nonconformant().tokens(), nanobits(400));
    assert_eq!(e.nonconformant().ready_at(at_s(1), nanobits(1_000)), None);
    let served = drain_until(&mut e, at_s(1), at_s(50));
    assert_eq!(count(&served, Decision::Yellow), 0);
    assert_eq!(
        count(&served, Decision::Green),
        50,
        "one per second from 1 s to 50 s"
    );
}

#[test]
fn set_alpha_mid_run_changes_the_downgraded_rate() {
    // 0.4 for 50 s (20 yellow tokens), then 0.2 for 50 s (10 more).
    let mut e = etb(0.4);
    let first = drain_until(&mut e, SimTime::ZERO, at_s(50));
    e.set_alpha(at_s(50), 0.2);
    let second = drain_until(&mut e, at_s(50), at_s(100));
    assert_eq!(count(&first, Decision::Yellow), 1 + 20);
    assert_eq!(count(&second, Decision::Yellow), 10);
    assert_eq!(
        count(&first, Decision::Green) + count(&second, Decision::Green),
        110
    );
}

#[test]
fn next_service_is_exact_to_the_nanosecond() {
    // r = 3000 bit/s, L = 1000 B: a token every 8/3 s = 2 666 666 666.67 ns; α = 1/3 gives
    // 1000 bit/s into b2, a token every 8 s. b1 = 2 so the fraction of a token accrued past
    // a whole one is kept, not capped away; everything is taken at 0.
    let p = Params {
        rate_bps: 3_000,
        b1_tokens: 2,
        b2_tokens: 1,
        token_bytes: 1_000,
        alpha: 1.0 / 3.0,
        buffer_packets: 1,
        clock: TokenClock::Continuous,
    };
    let mut e = EnhancedTokenBucket::new(p, SimTime::ZERO);
    assert_eq!(e.nonconformant().rate_bps(), 1_000);
    assert_eq!(e.serve(SimTime::ZERO, 576), Decision::Green);
    assert_eq!(e.serve(SimTime::ZERO, 576), Decision::Green);
    assert_eq!(e.serve(SimTime::ZERO, 576), Decision::Yellow);
    let t1 = e.next_service(SimTime::ZERO).unwrap();
    assert_eq!(
        t1,
        SimTime(2_666_666_667),
        "8e12 nb / 3000 nb per ns, rounded up"
    );
    assert_eq!(
        e.decide(SimTime(t1.0 - 1), 576),
        Decision::Wait,
        "one nanosecond early"
    );
    // 1000 nb left over after this one
    assert_eq!(e.serve(t1, 576), Decision::Green);
    let t2 = e.next_service(t1).unwrap();
    assert_eq!(
        t2,
        SimTime(5_333_333_334),
        "(8e12 − 1000) / 3000 rounded up, after t1"
    );
    // 2000 nb left over after this one
    assert_eq!(e.serve(t2, 576), Decision::Green);
    // (8e12 − 2000) / 3000 = 2 666 666 666 exactly: the conformant token is whole at 8 s,
    // the very instant the non-conformant bucket (1000 bit/s since 0) has its token too
    let t3 = e.next_service(t2).unwrap();
    assert_eq!(t3, at_s(8));
    assert_eq!(e.decide(SimTime(t3.0 - 1), 576), Decision::Wait);
    assert_eq!(e.serve(t3, 576), Decision::Green, "step 1 before step 2");
    assert_eq!(
        e.next_service(t3),
        Some(t3),
        "the non-conformant token is there now"
    );
    assert_eq!(e.serve(t3, 576), Decision::Yellow);
    assert_eq!(
        e.next_service(t3),
        Some(at_s(8) + SimDuration::from_nanos(2_666_666_667))
    );
}

#[test]
fn next_service_finds_the_nonconformant_bucket_when_it_is_earlier() {
    // α = 1: both fill at r; b2 was left alone while b1 was drained, so b2 is full first.
    let p = Params {
        b1_tokens: 1,
        b2_tokens: 1,
        ..params(1.0)
    };
    let mut e = EnhancedTokenBucket::new(p, SimTime::ZERO);
    assert_eq!(e.serve(SimTime::ZERO, 1_000), Decision::Green);
    assert_eq!(
        e.next_service(SimTime::ZERO),
        Some(SimTime::ZERO),
        "b2 is still full"
    );
    assert_eq!(e.serve(SimTime::ZERO, 1_000), Decision::Yellow);
    assert_eq!(e.next_service(SimTime::ZERO), Some(at_s(1)));
}

#[test]
fn alpha_rate_rounds_to_the_nearest_bit_per_second() {
    assert_eq!(alpha_rate_bps(1_000_000, 0.38), 380_000);
    assert_eq!(alpha_rate_bps(1_000_000, 0.04), 40_000);
    assert_eq!(alpha_rate_bps(3, 0.5), 2);
    assert_eq!(alpha_rate_bps(1_600_000, 0.0), 0);
}

#[test]
fn validate_names_the_bad_field() {
    let ok = params(0.4);
    assert!(ok.validate().is_ok());
    assert!(Params { alpha: 0.0, ..ok }.validate().is_ok());
    assert!(Params { alpha: 1.0, ..ok }.validate().is_ok());
    assert_eq!(
        Params { rate_bps: 0, ..ok }.validate().unwrap_err().field,
        "rate"
    );
    assert_eq!(
        Params { b1_tokens: 0, ..ok }.validate().unwrap_err().field,
        "b1"
    );
    assert_eq!(
        Params { b2_tokens: 0, ..ok }.validate().unwrap_err().field,
        "b2"
    );
    assert_eq!(
        Params {
            token_bytes: 0,
            ..ok
        }
        .validate()
        .unwrap_err()
        .field,
        "token_bytes"
    );
    assert_eq!(
        Params { alpha: -0.1, ..ok }.validate().unwrap_err().field,
        "alpha"
    );
    assert_eq!(
        Params { alpha: 1.5, ..ok }.validate().unwrap_err().field,
        "alpha"
    );
    assert_eq!(
        Params {
            alpha: f64::NAN,
            ..ok
        }
        .validate()
        .unwrap_err()
        .field,
        "alpha"
    );
    assert_eq!(
        Params {
            buffer_packets: 0,
            ..ok
        }
        .validate()
        .unwrap_err()
        .field,
        "buffer"
    );
}

#[test]
fn table_one_parameters_are_valid() {
    for r in [1_600_000, 1_000_000, 400_000] {
        let p = Params {
            rate_bps: r,
            b1_tokens: 10,
            b2_tokens: 1,
            token_bytes: 576,
            alpha: 0.4,
            buffer_packets: 100,
            clock: TokenClock::Continuous,
        };
        assert!(p.validate().is_ok());
    }
}
