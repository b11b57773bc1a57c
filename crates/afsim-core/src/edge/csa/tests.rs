use super::*;

fn ms(x: u64) -> SimTime {
    SimTime(x * 1_000_000)
}

fn us(x: u64) -> SimTime {
    SimTime(x * 1_000)
}

/// A controller under the paper's rules (Table 1).
fn text() -> Csa {
    Csa::new(Params::TABLE_1)
}

/// A controller under the per-period reading (Table 1 otherwise).
fn per_period() -> Csa {
    Csa::new(Params {
        rules: Rules::PerPeriod,
        ..Params::TABLE_1
    })
}

/// Both rule sets, for behaviour they share.
fn both() -> [Csa; 2] {
    [text(), per_period()]
}

/// Congested OUT arrivals at each of `times`, all in the buffer's congestion period 1;
/// returns the α changes they caused.
fn congested_at(c: &mut Csa, times: impl IntoIterator<Item = SimTime>) -> Vec<(SimTime, f64)> {
    congested_in(c, 1, times)
}

/// Congested OUT arrivals in the buffer's congestion period `period`.
fn congested_in(
    c: &mut Csa,
    period: u64,
    times: impl IntoIterator<Item = SimTime>,
) -> Vec<(SimTime, f64)> {
    times
        .into_iter()
        .filter_map(|t| c.on_out_arrival(t, true, period).map(|a| (t, a)))
        .collect()
}

/// Eight congested arrivals, the first at `start` and the 8th at `eighth`.
fn eight(start: SimTime, eighth: SimTime) -> Vec<SimTime> {
    let mut v = vec![start];
    v.extend((1..7).map(|i| SimTime(start.0 + i)));
    v.push(eighth);
    v
}

/// A controller that has just decreased α once, at 31 ms (T2 due at 121 ms).
fn after_one_decrease(mut c: Csa) -> Csa {
    assert_eq!(
        congested_at(&mut c, eight(ms(0), ms(31))),
        vec![(ms(31), 0.38)]
    );
    c
}

/// A controller driven down to min_α by sustained congestion (an arrival every ms from 0:
/// decreases at 31, 63, … 575 ms).
fn at_the_floor(mut c: Csa) -> Csa {
    congested_at(&mut c, (0..=575).map(ms));
    assert_eq!(c.alpha(), 0.04);
    c
}

// ---- shared by both rule sets ---------------------------------------------------------

#[test]
fn starts_at_max_alpha_with_no_timer() {
    for c in both() {
        assert_eq!(c.alpha(), 0.4);
        assert_eq!(
            c.next_deadline(),
            None,
            "T2 does not run before the first congestion"
        );
        assert!(c.trace().is_empty());
    }
}

#[test]
fn no_change_without_congestion() {
    for mut c in both() {
        for i in 0..10_000 {
            assert_eq!(c.on_out_arrival(us(i * 100), false, 0), None);
        }
        assert_eq!(c.on_t2_expiry(ms(5_000), false), None, "no timer runs");
        assert_eq!(c.alpha(), 0.4);
        assert_eq!(c.next_deadline(), None);
        assert!(c.trace().is_empty());
        assert_eq!(c.stats.periods, 0);
    }
}

#[test]
fn first_congested_out_arrival_starts_t1_and_t2_without_a_decrease() {
    // "the arrival of the first OUT packet during a congestion period occurs at time t0. Two
    // timers, T1 and T2 (with T1 < T2), are started and a packet counter, P, is set to 1."
    for mut c in both() {
        assert_eq!(c.on_out_arrival(ms(100), true, 1), None);
        assert_eq!(c.next_deadline(), Some(ms(190)), "T2 = 90 ms from t0");
        assert!(c.in_congestion_period());
        assert_eq!(c.stats.periods, 1);
        assert_eq!(c.alpha(), 0.4);
    }
}

#[test]
fn decrease_at_the_eighth_arrival_after_t1() {
    // "Case 1: (t − t0) > T1 … α = max{α − Δα, min_alpha} … After α has been decreased,
    // both T1 and T2 are restarted."
    for mut c in both() {
        let changes = congested_at(&mut c, eight(ms(0), ms(31)));
        assert_eq!(changes, vec![(ms(31), 0.38)]);
        assert_eq!(
            c.next_deadline(),
            Some(ms(121)),
            "T2 restarted at the decrease"
        );
        assert_eq!(c.trace(), &[(ms(31), 0.38)]);
        assert_eq!(c.stats.decreases, 1);
    }
}

#[test]
fn no_decrease_at_an_eighth_arrival_within_t1() {
    // "Case 2: (t − t0) < T1 … the value of α is not decreased to prevent an overly rapid
    // reduction of α."
    for mut c in both() {
        assert!(congested_at(&mut c, eight(ms(0), ms(29))).is_empty());
        assert_eq!(c.stats.suppressed, 1);
        assert_eq!(
            c.next_deadline(),
            Some(ms(90)),
            "a non-decrease restarts nothing"
        );
    }
}

#[test]
fn an_eighth_arrival_exactly_t1_after_t0_does_not_decrease() {
    // Case 1 needs t − t0 > T1: T1 has not expired at exactly t0 + T1.
    let mut c = text();
    assert!(congested_at(&mut c, eight(ms(0), ms(30))).is_empty());
    let mut c = text();
    assert_eq!(
        congested_at(&mut c, eight(ms(0), SimTime(30_000_001))).len(),
        1
    );
}

#[test]
fn the_counter_keeps_counting_after_a_non_decrease() {
    // 8th at 20 ms (ignored, P = 0), then the 16th at 40 ms: 40 − t0 > T1, decrease.
    for mut c in both() {
        assert!(congested_at(&mut c, eight(ms(0), ms(20))).is_empty());
        let next7: Vec<_> = (21..=27).map(ms).collect();
        assert!(
            congested_at(&mut c, next7).is_empty(),
            "arrivals 9..15: P = 1..7"
        );
        assert_eq!(
            c.on_out_arrival(ms(40), true, 1),
            Some(0.38),
            "16th arrival, P wraps again"
        );
        assert_eq!(c.stats.eighth_arrivals, 2);
    }
}

#[test]
fn at_most_one_decrease_per_t1_under_sustained_congestion() {
    // "α can be decreased at most by Δα every T1 seconds": a congested OUT arrival every
    // millisecond from 0 gives 8th arrivals at 7, 15, 23, 31 ms (the first past T1,
    // decrease), then 39 … 63 (63 − 31 > 30: decrease) and so on: one every 32 ms, 18
    // steps from 0.4 down to 0.04 and no further.
    for mut c in both() {
        let changes = congested_at(&mut c, (0..2_000).map(ms));
        let expected: Vec<_> = (0..18)
            .map(|k| (ms(31 + 32 * k), tidy(0.4 - 0.02 * (k + 1) as f64)))
            .collect();
        assert_eq!(changes, expected);
        assert_eq!(changes.last().unwrap().1, 0.04, "lands exactly on min_α");
        assert!(changes
            .windows(2)
            .all(|w| w[1].0 - w[0].0 > Params::TABLE_1.t1));
        assert_eq!(c.alpha(), 0.04);
        assert_eq!(c.stats.decreases, 18);
        assert!(c.stats.at_floor > 0);
        assert!(c.stats.check().is_ok());
    }
}

#[test]
fn increase_after_t2_without_congestion() {
    // "when T2 expires …, if the RIO buffer is not congested, the value of α is
    // automatically increased by Δα and timer T2 is restarted"
    for c in both() {
        let mut c = after_one_decrease(c);
        assert_eq!(c.on_t2_expiry(ms(121), false), Some(0.4));
        assert_eq!(
            c.next_deadline(),
            None,
            "back at max_α: T2 is not restarted (ISUP)"
        );
        assert_eq!(c.trace(), &[(ms(31), 0.38), (ms(121), 0.4)]);
    }
}

#[test]
fn t2_expiry_while_congested_holds_alpha_and_restarts_t2() {
    // the paper is silent here: α is held and the test is made again T2 later
    for c in both() {
        let mut c = after_one_decrease(c);
        assert_eq!(c.on_t2_expiry(ms(121), true), None);
        assert_eq!(c.alpha(), 0.38);
        assert_eq!(c.next_deadline(), Some(ms(211)));
        assert_eq!(c.on_t2_expiry(ms(211), false), Some(0.4));
        assert_eq!(c.stats.held, 1);
        assert_eq!(c.stats.increases, 1);
    }
}

#[test]
fn a_stale_t2_call_does_nothing() {
    for c in both() {
        let mut c = after_one_decrease(c);
        // the timer first scheduled for 90 ms was moved to 121 ms by the decrease
        assert_eq!(c.on_t2_expiry(ms(90), false), None);
        assert_eq!(c.next_deadline(), Some(ms(121)));
        assert_eq!(c.stats.t2_expiries, 0);
        assert_eq!(c.alpha(), 0.38);
    }
}

#[test]
fn recovery_is_one_step_per_t2_after_congestion_ends() {
    // "the maximum increasing rate of the α parameter after a congestion period is set to
    // Δα/T2"
    for mut c in both() {
        congested_at(&mut c, (0..100).map(ms)); // decreases at 31, 63 and 95 ms
        assert_eq!(c.alpha(), 0.34);
        assert_eq!(
            c.on_out_arrival(ms(100), false, 1),
            None,
            "no congestion any more"
        );
        let mut t = c.next_deadline().unwrap();
        assert_eq!(t, ms(95 + 90));
        for expect in [0.36, 0.38, 0.4] {
            assert_eq!(c.on_t2_expiry(t, false), Some(expect));
            if expect < 0.4 {
                let next = c.next_deadline().unwrap();
                assert_eq!(next - t, Params::TABLE_1.t2);
                t = next;
            }
        }
        assert_eq!(c.next_deadline(), None);
        let ups: Vec<_> = c.trace().iter().skip(3).copied().collect();
        assert_eq!(ups, vec![(ms(185), 0.36), (ms(275), 0.38), (ms(365), 0.4)]);
    }
}

// ---- the paper's rules (Rules::Text) --------------------------------------------------

#[test]
fn text_a_new_congestion_period_sets_p_to_1_and_restarts_no_timer() {
    // "a packet counter, P, is set to 1" at the first OUT arrival of a congestion period;
    // T2 is "α has not been decreased for T2 consecutive seconds", so a new period does not
    // restart it, nor T1 (at most one decrease "every T1 seconds").
    let mut c = text();
    assert!(
        congested_in(&mut c, 1, (0..7).map(ms)).is_empty(),
        "P = 7 in period 1"
    );
    // the buffer's average dipped below min_th_out and rose again: period 2
    assert_eq!(
        c.on_out_arrival(ms(20), true, 2),
        None,
        "P = 1 again, no 8th arrival"
    );
    assert_eq!(c.stats.periods, 2);
    assert_eq!(c.next_deadline(), Some(ms(90)), "T2 still runs from t0 = 0");
    // arrivals 2..8 of period 2: the 8th at 40 ms is past T1 from t0 = 0
    assert!(congested_in(&mut c, 2, (21..=26).map(ms)).is_empty());
    assert_eq!(c.on_out_arrival(ms(40), true, 2), Some(0.38));
}

#[test]
fn per_period_a_new_congestion_period_restarts_t0_t1_and_t2() {
    // the per-period reading: an uncongested OUT arrival ends the period and the next
    // congested one starts afresh
    let mut c = per_period();
    assert!(congested_at(&mut c, (0..7).map(ms)).is_empty());
    c.on_out_arrival(ms(7), false, 1);
    assert_eq!(c.on_out_arrival(ms(40), true, 1), None);
    assert_eq!(
        c.next_deadline(),
        Some(ms(130)),
        "T1 and T2 restarted at the new period"
    );
    assert_eq!(c.stats.periods, 2);
    // its own 8th arrival at 47 ms is within T1 of 40 ms; the 16th at 71 ms is past it
    assert!(congested_at(&mut c, (41..=47).map(ms)).is_empty());
    assert!(congested_at(&mut c, (48..=54).map(ms)).is_empty());
    assert_eq!(c.on_out_arrival(ms(71), true, 1), Some(0.38));
}

#[test]
fn text_uncongested_out_arrivals_are_not_counted_and_end_nothing() {
    // P counts "the arrival of the 8-th OUT packet" of a congestion period: an OUT packet
    // that finds the buffer uncongested is outside it. Whether the period ended is the
    // buffer's to say (its period number), not one arrival's.
    let mut c = text();
    assert!(congested_at(&mut c, (0..7).map(ms)).is_empty());
    for i in 7..20 {
        assert_eq!(c.on_out_arrival(ms(i), false, 1), None);
    }
    assert!(c.in_congestion_period());
    assert_eq!(
        c.on_out_arrival(ms(31), true, 1),
        Some(0.38),
        "the 8th congested arrival, past T1"
    );
    assert_eq!(c.stats.out_arrivals, 21);
    assert_eq!(c.stats.congested_out_arrivals, 8);
}

#[test]
fn text_at_the_floor_an_eighth_arrival_restarts_nothing() {
    // "After α has been decreased, both T1 and T2 are restarted": at min_α nothing is
    // decreased, so T2 runs on from the last decrease (575 ms) and expires at 665 ms.
    let mut c = at_the_floor(text());
    assert_eq!(c.next_deadline(), Some(ms(575 + 90)));
    let before = c.stats.at_floor;
    congested_at(&mut c, (576..=664).map(ms));
    assert!(
        c.stats.at_floor > before,
        "8th arrivals past T1 at the floor"
    );
    assert_eq!(c.next_deadline(), Some(ms(665)), "no restart at the floor");
    assert_eq!(c.alpha(), 0.04);
}

#[test]
fn per_period_at_the_floor_an_eighth_arrival_restarts_t1_and_t2() {
    // the per-period reading (ISUP: T30 expires only when no indication came during it)
    let mut c = at_the_floor(per_period());
    congested_at(&mut c, (576..=700).map(ms));
    let last_eighth = SimTime(c.next_deadline().unwrap().0 - Params::TABLE_1.t2.as_nanos());
    assert!(
        last_eighth > ms(640),
        "T2 restarted at an 8th arrival at the floor"
    );
    assert_eq!(c.alpha(), 0.04);
}

#[test]
fn text_t2_expires_t2_after_the_last_decrease_whatever_the_periods() {
    // "when T2 expires (that is, when the α parameter has not been decreased for T2
    // consecutive seconds)": new congestion periods between decreases do not postpone it.
    let mut c = after_one_decrease(text()); // decrease at 31 ms, T2 due at 121 ms
    for (k, t) in [40u64, 60, 80, 100].into_iter().enumerate() {
        c.on_out_arrival(ms(t - 1), false, k as u64 + 1);
        c.on_out_arrival(ms(t), true, k as u64 + 2);
    }
    assert_eq!(c.next_deadline(), Some(ms(121)));
    assert_eq!(c.on_t2_expiry(ms(121), false), Some(0.4));
}

#[test]
fn text_increases_after_congestion_ends_at_the_floor() {
    // at the floor under congestion, T2 expires T2 after the last decrease; held while the
    // buffer is congested, α rises at the first expiry that finds it uncongested
    let mut c = at_the_floor(text());
    assert_eq!(c.on_t2_expiry(ms(665), true), None, "congested: held");
    assert_eq!(c.next_deadline(), Some(ms(755)));
    assert_eq!(c.on_t2_expiry(ms(755), false), Some(0.06));
}

#[test]
fn alpha_average_integrates_alpha_over_time() {
    let mut c = Csa::with_trace(Params::TABLE_1, false);
    // 0.4 for 31 ms, 0.38 for 90 ms, then 0.4 again up to 200 ms
    assert_eq!(
        congested_at(&mut c, eight(ms(0), ms(31))),
        vec![(ms(31), 0.38)]
    );
    assert_eq!(c.on_t2_expiry(ms(121), false), Some(0.4));
    assert!(c.trace().is_empty(), "no trace kept");
    let (avg, floor) = c.alpha_average(ms(200));
    let expect = (0.4 * 31.0 + 0.38 * 90.0 + 0.4 * 79.0) / 200.0;
    assert!((avg - expect).abs() < 1e-12, "{avg} vs {expect}");
    assert_eq!(floor, 0.0);
    let c = at_the_floor(Csa::with_trace(Params::TABLE_1, false));
    let (_, floor) = c.alpha_average(ms(1_150));
    assert!(
        (floor - 0.5).abs() < 1e-12,
        "at the floor from 575 ms to 1150 ms: {floor}"
    );
}

// ---- properties --------------------------------------------------------------------------

#[test]
fn alpha_never_leaves_its_bounds() {
    // A deterministic jumble of arrivals, congestion flips and timer expiries.
    for rules in [Rules::Text, Rules::PerPeriod] {
        let p = Params {
            delta_alpha: 0.07,
            rules,
            ..Params::TABLE_1
        }; // a step that does not divide the range
        let mut c = Csa::new(p);
        let mut x: u64 = 12345;
        let mut t = SimTime::ZERO;
        let mut busy = false;
        let mut period = 0;
        for _ in 0..200_000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            t += SimDuration::from_micros(1 + (x >> 33) % 3_000);
            // congested stretches of a few hundred arrivals, with noise either way
            if (x >> 50).is_multiple_of(500) {
                busy = !busy;
            }
            let congested = if busy {
                !(x >> 20).is_multiple_of(20)
            } else {
                (x >> 20).is_multiple_of(50)
            };
            if let Some(d) = c.next_deadline().filter(|&d| d <= t) {
                c.on_t2_expiry(d, congested);
            }
            if congested {
                period += u64::from((x >> 10).is_multiple_of(7));
            }
            c.on_out_arrival(t, congested, period);
            assert!(
                (p.min_alpha..=p.max_alpha).contains(&c.alpha()),
                "α = {}",
                c.alpha()
            );
        }
        assert!(
            c.trace().iter().any(|&(_, a)| a == p.min_alpha),
            "reached the floor"
        );
        assert!(
            c.trace().iter().filter(|&&(_, a)| a == p.max_alpha).count() > 1,
            "came back to the ceiling"
        );
        assert!(c.stats.check().is_ok());
    }
}

#[test]
fn increases_never_pass_max_alpha_with_an_uneven_step() {
    // 0.4 − 0.07 = 0.33, back up: min(0.33 + 0.07, 0.4) = 0.4 exactly.
    let mut c = Csa::new(Params {
        delta_alpha: 0.07,
        ..Params::TABLE_1
    });
    assert_eq!(
        congested_at(&mut c, eight(ms(0), ms(31))),
        vec![(ms(31), 0.33)]
    );
    assert_eq!(c.on_t2_expiry(ms(121), false), Some(0.4));
}

#[test]
fn bounds_that_are_not_short_decimals_are_reached_exactly() {
    let third = 1.0 / 3.0;
    let mut c = Csa::new(Params {
        max_alpha: third,
        ..Params::TABLE_1
    });
    assert_eq!(congested_at(&mut c, eight(ms(0), ms(31))).len(), 1);
    assert_eq!(c.on_t2_expiry(ms(121), false), Some(third));
    assert_eq!(c.next_deadline(), None, "back at max_α, idle");
}

#[test]
fn the_floor_is_held_with_an_uneven_step() {
    // Δα = 0.15 from 0.4: 0.25, 0.1, then max{−0.05, 0.04} = 0.04.
    let mut c = Csa::new(Params {
        delta_alpha: 0.15,
        ..Params::TABLE_1
    });
    let changes: Vec<_> = congested_at(&mut c, (0..200).map(ms))
        .into_iter()
        .map(|(_, a)| a)
        .collect();
    assert_eq!(changes, vec![0.25, 0.1, 0.04]);
}

#[test]
fn same_script_same_trace() {
    let run = || {
        let mut c = text();
        for i in 0..5_000u64 {
            let t = us(i * 700);
            if let Some(d) = c.next_deadline().filter(|&d| d <= t) {
                c.on_t2_expiry(d, i % 1_000 < 300);
            }
            c.on_out_arrival(t, i % 1_000 < 600, i / 1_000);
        }
        (c.trace().to_vec(), c.stats.clone())
    };
    let (a, sa) = run();
    let (b, sb) = run();
    assert!(!a.is_empty());
    assert_eq!(a, b);
    assert_eq!(sa, sb);
}

#[test]
fn validate_names_the_bad_field() {
    let ok = Params::TABLE_1;
    assert!(ok.validate().is_ok());
    assert_eq!(Params::default(), ok);
    assert_eq!(ok.rules, Rules::Text, "the paper's rules by default");
    let t = |ms| SimDuration::from_millis(ms);
    assert_eq!(
        Params { t1: t(0), ..ok }.validate().unwrap_err().field,
        "t1"
    );
    assert_eq!(
        Params { t1: t(90), ..ok }.validate().unwrap_err().field,
        "t2",
        "T1 < T2"
    );
    assert_eq!(
        Params {
            delta_alpha: 0.0,
            ..ok
        }
        .validate()
        .unwrap_err()
        .field,
        "delta_alpha"
    );
    assert_eq!(
        Params {
            delta_alpha: f64::NAN,
            ..ok
        }
        .validate()
        .unwrap_err()
        .field,
        "delta_alpha"
    );
    assert_eq!(
        Params {
            min_alpha: -0.1,
            ..ok
        }
        .validate()
        .unwrap_err()
        .field,
        "min_alpha"
    );
    assert_eq!(
        Params {
            max_alpha: 1.1,
            ..ok
        }
        .validate()
        .unwrap_err()
        .field,
        "max_alpha"
    );
    assert_eq!(
        Params {
            min_alpha: 0.5,
            ..ok
        }
        .validate()
        .unwrap_err()
        .field,
        "min_alpha"
    );
    assert!(
        Params {
            min_alpha: 0.4,
            ..ok
        }
        .validate()
        .is_ok(),
        "a fixed α is allowed"
    );
}

#[test]
fn appendix_a_timer_settings_are_valid() {
    for (t1, t2) in [(15, 45), (15, 60), (30, 90), (30, 120)] {
        let p = Params {
            t1: SimDuration::from_millis(t1),
            t2: SimDuration::from_millis(t2),
            ..Params::TABLE_1
        };
        assert!(p.validate().is_ok());
    }
}
