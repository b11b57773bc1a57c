use super::super::test_util::{self, at_ms};
use super::*;

const S: f64 = 1000.0;

fn close(a: f64, b: f64) -> bool {
    test_util::close(a, b, 1e-9)
}

fn sender() -> Control {
    Control::new(S, InitialRate::Rfc5348, false, None)
}

#[test]
fn the_sender_starts_at_300_bytes_per_second() {
    let c = sender();
    let (send, nofeedback) = c.start_intervals();
    assert!(close(send, 1000.0 / 300.0));
    assert!(close(nofeedback, 2000.0 / 300.0));
    assert!(c.urgent());
}

#[test]
fn the_first_report_sets_the_rfc3390_rate_and_sends_at_once() {
    let mut c = sender();
    let a = c.on_feedback(at_ms(100), 0.1, 300.0, 0.0);
    assert!(a.send_now);
    assert!(
        close(c.x(), 4.0 * S / 0.1),
        "4 packets per RTT for s ≤ 1095"
    );
    // no-feedback timer: max(2R, 2s/rate) with the rate before this report (300 B/s)
    assert!(close(a.nofeedback_in, 2000.0 / 300.0));
    assert!(!c.urgent());
    assert_eq!(
        Control::new(1460.0, InitialRate::Rfc5348, false, None).init_packets,
        3.0
    );
    assert_eq!(
        Control::new(2500.0, InitialRate::Rfc5348, false, None).init_packets,
        2.0
    );
    assert_eq!(
        Control::new(S, InitialRate::Rfc3448, false, None).init_packets,
        1.0
    );
}

#[test]
fn the_timeout_counts_ticks_of_100_ms() {
    let mut c = sender();
    c.on_feedback(at_ms(100), 0.14, 300.0, 0.0);
    // t_rtt = ⌊1.4 + 0.5⌋ = 1 tick; SRTT = 8, RTTVAR = 2 (×4): t_RTO = (2·8 + 8) >> 3 = 3
    // ticks = 0.3 s
    assert!(close(c.tzero(), 0.3));
    assert!(close(c.rtt(), 0.14));
    c.on_feedback(at_ms(300), 0.36, 300.0, 0.0);
    // t_rtt = 4; delta = 4 − 1 = 3: SRTT = 11; |3| − (2 >> 2 = 0) = 3: RTTVAR = 5;
    // t_RTO = (5·8 + 11) >> 3 = 6 ticks; R = 0.95 × 0.14 + 0.05 × 0.36 = 0.151
    assert!(close(c.tzero(), 0.6));
    assert!(close(c.rtt(), 0.151));
}

#[test]
fn slow_start_doubles_once_per_rtt_up_to_twice_x_recv() {
    let mut c = sender();
    c.on_feedback(at_ms(100), 0.1, 300.0, 0.0); // round 1: 40 000
    c.on_feedback(at_ms(200), 0.1, 30_000.0, 0.0); // round 2 keeps the initial rate
    assert!(close(c.x(), 40_000.0));
    c.on_feedback(at_ms(350), 0.1, 40_000.0, 0.0); // 250 ms > R after the last change
    assert!(close(c.x(), 80_000.0), "doubled, under 2 × 40 000");
    c.on_feedback(at_ms(400), 0.1, 60_000.0, 0.0);
    assert!(close(c.x(), 80_000.0), "only 50 ms after the last change");
    c.on_feedback(at_ms(500), 0.1, 50_000.0, 0.0);
    assert!(close(c.x(), 100_000.0), "2 × 80 000 capped at 2 × X_recv");
    c.on_feedback(at_ms(550), 0.1, 30_000.0, 0.0);
    assert!(close(c.x(), 30_000.0), "above 2 × X_recv = 60 000: X_recv");
}

#[test]
fn a_loss_in_slow_start_sets_the_equation_rate_without_the_receive_limit() {
    let mut c = sender();
    c.on_feedback(at_ms(100), 0.1, 300.0, 0.0);
    c.on_feedback(at_ms(200), 0.1, 30_000.0, 0.0);
    let a = c.on_feedback(at_ms(300), 0.1, 1_000.0, 0.001);
    assert!(!a.send_now);
    assert_eq!(c.phase(), Phase::OutOfSlowStart);
    // the equation with ns-2's tzero (0.3 s after three 100 ms samples), not 2 × X_recv
    assert!(close(c.x(), x_ns2(0.001, 0.1, c.tzero(), S, 1.0)));
    assert!(c.x() > 2_000.0);
}

#[test]
fn congestion_avoidance_climbs_by_one_packet_per_rtt() {
    let mut c = sender();
    c.on_feedback(at_ms(100), 0.1, 300.0, 0.0);
    c.on_feedback(at_ms(200), 0.1, 30_000.0, 0.0);
    c.on_feedback(at_ms(300), 0.1, 30_000.0, 0.02);
    let r0 = c.x();
    // the equation allows more now (less loss): + s/R × (time since the last change)/R,
    // at most 2 s/R; leaving slow start changed nothing, so the last change was at 200 ms
    c.on_feedback(at_ms(400), 0.1, 100_000.0, 0.005);
    assert_eq!(c.phase(), Phase::CongestionAvoidance);
    assert!(close(c.x(), r0 + 20_000.0));
    c.on_feedback(at_ms(450), 0.1, 100_000.0, 0.005);
    assert!(close(c.x(), r0 + 25_000.0), "50 ms: half a packet per RTT");
    c.on_feedback(at_ms(850), 0.1, 100_000.0, 0.005);
    assert!(close(c.x(), r0 + 45_000.0), "400 ms: capped at 2 s/R");
    // more loss: down to the equation's rate at once
    c.on_feedback(at_ms(900), 0.1, 100_000.0, 0.05);
    assert_eq!(c.phase(), Phase::RateDecrease);
    assert!(close(c.x(), x_ns2(0.05, c.rtt(), c.tzero(), S, 1.0)));
}

#[test]
fn the_nofeedback_timer_halves_the_rate_and_sends() {
    let mut c = sender();
    c.on_feedback(at_ms(100), 0.1, 300.0, 0.0);
    let a = c.on_nofeedback();
    assert!(a.send_now && c.urgent());
    assert!(close(c.x(), 20_000.0));
    assert_eq!(c.phase(), Phase::SlowStart, "halving keeps slow start");
    assert_eq!(c.round(), 2);
    assert!(
        close(a.nofeedback_in, 0.2),
        "max(2R, 2s/rate) = max(0.2, 0.1)"
    );
}

#[test]
fn gtfrc_sends_at_the_target_when_the_equation_is_below_it() {
    let target = 50_000.0;
    let mut c = Control::new(S, InitialRate::Rfc5348, false, Some(target));
    c.on_feedback(at_ms(100), 0.1, 300.0, 0.0);
    c.on_feedback(at_ms(200), 0.1, 30_000.0, 0.0);
    c.on_feedback(at_ms(300), 0.1, 30_000.0, 0.05); // leaves slow start: no target yet
    assert!(c.x() < target);
    c.on_feedback(at_ms(400), 0.1, 30_000.0, 0.05);
    assert!(
        close(c.x(), target),
        "Fig. 1: rcvrate ≤ gtfrc_ → rate = gtfrc_"
    );
    assert_eq!(c.phase(), Phase::CongestionAvoidance);
    // with the equation above the target, the plain rules apply (here the climb of s/R)
    c.on_feedback(at_ms(500), 0.1, 100_000.0, 0.001);
    assert!(close(c.x(), target + 10_000.0));
}

#[test]
fn slow_increase_reaches_a_new_rate_packet_by_packet() {
    let mut c = sender();
    c.on_feedback(at_ms(100), 0.1, 300.0, 0.0);
    c.on_feedback(at_ms(200), 0.1, 30_000.0, 0.0);
    c.on_feedback(at_ms(350), 0.1, 40_000.0, 0.0); // 40 000 → 80 000, delta = 40 000 / 8
    let first = c.next_interval().unwrap();
    assert!(close(first, S / 45_000.0));
    let second = c.next_interval().unwrap();
    assert!(close(second, S / 50_000.0));
}

// ---- ns-2.28 against ns-2.35: each difference, same inputs, different outcome

fn both() -> [Control; 2] {
    [sender(), sender().with_release(Release::V2_28)]
}

/// A sender in slow start after its first report (R = 100 ms), then placed at `rate`, with
/// `oldrate` the rate reached before the last change, `round` reports so far and its last
/// change at `last_change_ms`.
fn in_slow_start(
    release: Release,
    rate: f64,
    oldrate: f64,
    round: u32,
    last_change_ms: u64,
) -> Control {
    let mut c = sender().with_release(release);
    c.on_feedback(at_ms(100), 0.1, 300.0, 0.0);
    c.rate = rate;
    c.oldrate = oldrate;
    c.delta = 0.0;
    c.round = round - 1;
    c.last_change = at_ms(last_change_ms);
    c
}

#[test]
fn ns2_28_takes_maxrate_from_the_first_report_too() {
    // 2.28 l.323 against 2.35 l.343. No branch reads maxrate before the next report
    // replaces it (the first report goes to slowstart's first-report branch), so this
    // shows the state only.
    let [mut v35, mut v28] = both();
    v35.on_feedback(at_ms(100), 0.1, 5_000.0, 0.0);
    v28.on_feedback(at_ms(100), 0.1, 5_000.0, 0.0);
    assert_eq!((v35.ss_maxrate, v35.maxrate), (0.0, 0.0));
    assert_eq!((v28.ss_maxrate, v28.maxrate), (10_000.0, 10_000.0));
    assert!(close(v35.x(), v28.x()), "both set the initial rate");
}

#[test]
fn ns2_28_doubles_at_the_second_report_where_2_35_keeps_the_initial_rate() {
    let [mut v35, mut v28] = both();
    for c in [&mut v35, &mut v28] {
        c.on_feedback(at_ms(100), 0.1, 300.0, 0.0); // round 1: 4 s/R = 40 000
        c.on_feedback(at_ms(250), 0.1, 50_000.0, 0.0); // round 2, 2·X_recv = 100 000
    }
    assert!(
        close(v35.x(), 40_000.0),
        "2.35 l.469: the second report keeps the initial rate"
    );
    assert!(
        close(v28.x(), 80_000.0),
        "2.28 l.458–463: doubled, below 2·X_recv"
    );
}

#[test]
fn above_twice_x_recv_ns2_28_caps_at_twice_x_recv_where_2_35_halves_to_x_recv() {
    // the rate before the last change (80 000) was below 2·X_recv = 90 000
    let mut v35 = in_slow_start(Release::V2_35, 100_000.0, 80_000.0, 5, 300);
    let mut v28 = in_slow_start(Release::V2_28, 100_000.0, 80_000.0, 5, 300);
    v35.on_feedback(at_ms(350), 0.1, 45_000.0, 0.0);
    v28.on_feedback(at_ms(350), 0.1, 45_000.0, 0.0);
    assert!(close(v35.x(), 45_000.0), "2.35 l.497–501: X_recv");
    assert!(close(v28.x(), 90_000.0), "2.28 l.470–477: 2·X_recv");
    // 2.28 halves only when the rate reached before the last change is above it too
    let mut v28 = in_slow_start(Release::V2_28, 100_000.0, 100_000.0, 5, 300);
    v28.on_feedback(at_ms(350), 0.1, 45_000.0, 0.0);
    assert!(close(v28.x(), 45_000.0), "2.28 l.464–469");
    // and at the second report it does not cap (2·X_recv does not yet reflect slow start)
    let mut v28 = in_slow_start(Release::V2_28, 100_000.0, 80_000.0, 2, 300);
    v28.on_feedback(at_ms(350), 0.1, 45_000.0, 0.0);
    assert!(
        close(v28.x(), 100_000.0),
        "2.28 l.470: round_id > 2; l.480: not an RTT since"
    );
}

#[test]
fn a_twice_x_recv_one_rounding_below_the_rate_halves_it_in_2_35_only() {
    // docs/validation.md, "Slow start beside a short-RTT flow": ns-2.35's 2·X_recv came a
    // rounding below the rate it had set, and halved it
    let rate = 250_000.0;
    let x_recv = rate / 2.0 * (1.0 - f64::EPSILON);
    assert!(2.0 * x_recv < rate);
    let mut v35 = in_slow_start(Release::V2_35, rate, 214_224.51, 6, 300);
    let mut v28 = in_slow_start(Release::V2_28, rate, 214_224.51, 6, 300);
    v35.on_feedback(at_ms(344), 0.1, x_recv, 0.0);
    v28.on_feedback(at_ms(344), 0.1, x_recv, 0.0);
    assert!(close(v35.x(), rate / 2.0));
    assert!(
        close(v28.x(), rate),
        "capped at 2·X_recv, a rounding below the rate"
    );
}

#[test]
fn with_nothing_received_ns2_28_moves_to_one_packet_per_rtt_gradually() {
    // both set s/R (2.35 l.503–509, 2.28 l.487–495); 2.35's δ is 0, so the packet spacing
    // stays at the old rate, 2.28's δ reaches s/R in one packet here
    let mut v35 = in_slow_start(Release::V2_35, 5_000.0, 5_000.0, 5, 300);
    let mut v28 = in_slow_start(Release::V2_28, 5_000.0, 5_000.0, 5, 300);
    v35.on_feedback(at_ms(350), 0.1, 0.0, 0.0);
    v28.on_feedback(at_ms(350), 0.1, 0.0, 0.0);
    assert!(close(v35.x(), 10_000.0) && close(v28.x(), 10_000.0));
    assert!(close(v35.next_interval().unwrap(), S / 5_000.0));
    assert!(close(v28.next_interval().unwrap(), S / 10_000.0));
}

#[test]
fn a_nofeedback_expiry_ends_slow_start_in_ns2_28_only() {
    let [mut v35, mut v28] = both();
    for c in [&mut v35, &mut v28] {
        c.on_feedback(at_ms(100), 0.1, 300.0, 0.0);
        c.on_feedback(at_ms(200), 0.1, 20_000.0, 0.0);
        c.on_feedback(at_ms(350), 0.1, 40_000.0, 0.0);
        assert!(close(c.x(), 80_000.0), "both at 2·X_recv");
        c.on_nofeedback();
        assert!(close(c.x(), 40_000.0), "both halve");
    }
    assert_eq!(v35.phase(), Phase::SlowStart, "2.35 l.617–621");
    assert_eq!(v28.phase(), Phase::RateDecrease, "2.28 l.563");
    // the next report, with no loss: 2.35 doubles in slow start and sends at once; 2.28
    // climbs by at most 2 s/R (`increase_rate`) and waits for its send timer
    let a35 = v35.on_feedback(at_ms(600), 0.1, 100_000.0, 0.0);
    let a28 = v28.on_feedback(at_ms(600), 0.1, 100_000.0, 0.0);
    assert!(close(v35.x(), 80_000.0) && a35.send_now);
    assert_eq!(v28.phase(), Phase::CongestionAvoidance);
    assert!(close(v28.x(), 40_000.0 + 2.0 * S / 0.1) && !a28.send_now);
}

#[test]
fn ns2_28_lets_the_rate_exceed_twice_x_recv_for_one_report() {
    // `maxHeavyRounds_`: 1 in ns-2.28 (tcl 2.28 l.1035), 0 in 2.35 (ns-default.tcl l.1155)
    let [mut v35, mut v28] = both();
    for c in [&mut v35, &mut v28] {
        c.on_feedback(at_ms(100), 0.1, 300.0, 0.0);
        c.on_feedback(at_ms(200), 0.1, 30_000.0, 0.0);
        c.on_feedback(at_ms(300), 0.1, 30_000.0, 0.001); // out of slow start
    }
    let rcv = |c: &Control| x_ns2(0.002, c.rtt(), c.tzero(), S, 1.0);
    let high = v35.x();
    assert!(
        rcv(&v35) < high && rcv(&v35) > 2.0 * 5_000.0,
        "a decrease above 2·X_recv"
    );
    v35.on_feedback(at_ms(400), 0.1, 5_000.0, 0.002);
    v28.on_feedback(at_ms(400), 0.1, 5_000.0, 0.002);
    assert!(close(v35.x(), 10_000.0), "capped at once");
    assert!(close(v28.x(), rcv(&v28)), "one report above the cap");
    v28.on_feedback(at_ms(500), 0.1, 5_000.0, 0.002);
    assert!(close(v28.x(), 10_000.0), "capped at the second");
}

#[test]
fn ns2_28_has_no_idle_fix_floor_in_increase_rate() {
    // within 1.5 R of time 0, 2.35's `increase_rate` floor is the initial rate (l.527–531,
    // `lastlimited_` 0); 2.28's is s/R (l.507)
    let [mut v35, mut v28] = both();
    for c in [&mut v35, &mut v28] {
        c.on_feedback(at_ms(100), 0.1, 300.0, 0.0);
        c.on_feedback(at_ms(110), 0.1, 1_000.0, 0.001); // leaves slow start
        c.on_feedback(at_ms(140), 0.1, 1_000.0, 0.0001); // 140 ms < 1.5 R: increase
    }
    assert_eq!(v28.phase(), Phase::CongestionAvoidance);
    assert!(close(v35.x(), 4.0 * S / 0.1), "max(2·X_recv, 4 s/R)");
    assert!(close(v28.x(), S / 0.1), "max(2·X_recv, s/R)");
}

#[test]
fn ns2_28_leaves_the_send_timer_unset_below_smallfloat() {
    // an interval at or below SMALLFLOAT: 2.35 reschedules at SMALLFLOAT (l.285–286),
    // 2.28 sets no timer (l.265–266)
    let [mut v35, mut v28] = both();
    v35.on_feedback(at_ms(100), 1e-12, 300.0, 0.0);
    v28.on_feedback(at_ms(100), 1e-12, 300.0, 0.0);
    assert!(S / v35.x() < SMALL);
    assert_eq!(v35.next_interval(), Some(SMALL));
    assert_eq!(v28.next_interval(), None);
}
