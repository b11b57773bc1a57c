//! The sender with a congestion controller (`tcp::cc`): the decisions it hands over, at exact
//! packet sequences.

use super::*;
use crate::transport::tcp::cc::{bbr::HIGH_GAIN, CcKind};

fn with(cc: CcKind) -> Params {
    Params {
        cc,
        max_window_bytes: 1000 * MSS,
        ..Params::default()
    }
}

#[test]
fn bbr_with_tso_bursts_sends_a_burst_back_to_back_then_paces_it() {
    // Linux `bbr_tso_segs_goal` at 27.70 MB/s: ⌊27.70e6 / 1024 / 960⌋ = 28 segments per skb,
    // so the initial window of 10 leaves at once (one skb), and the next segment one skb's
    // time later: 10 · 34 657.36 ns
    let mut p = with(CcKind::Bbr);
    p.bbr_linux.tso_bursts = true;
    let (fx, out) = Fx::with_window(p, 10, 1000.0);
    assert_eq!(segs(&out), (0..10).collect::<Vec<_>>());
    let crate::transport::tcp::cc::Cc::Bbr(b) = fx.s.cc() else {
        panic!("bbr")
    };
    let gap = 960.0 / (HIGH_GAIN * 9600.0 / 1e-3) * 1e9;
    let t = b.next_send.as_nanos() as f64;
    assert!((t - 10.0 * gap).abs() <= 10.0, "{t} ns");
    // without the option one segment, then the pacing timer (the next test)
    let (_, out) = Fx::with_window(with(CcKind::Bbr), 10, 1000.0);
    assert_eq!(out.len(), 1);
}

#[test]
fn bbr_paces_the_initial_window_reno_sends_it_at_once() {
    let (_, out) = Fx::with_window(with(CcKind::Reno), 10, 1000.0);
    assert_eq!(out.len(), 10);
    let (mut fx, out) = Fx::with_window(with(CcKind::Bbr), 10, 1000.0);
    assert_eq!(out.len(), 1, "one segment, then the pacing timer");
    // BBRInitPacingRate: 2/ln 2 · 10 · 960 B per 1 ms (no RTT yet) = 27.70 MB/s; 960 B
    // take 34 657.36 ns at that rate
    let gap = (960.0 / (HIGH_GAIN * 9600.0 / 1e-3) * 1e9) as u64;
    assert_eq!(gap, 34_657);
    let (t, token) = fx.h.next_timer(SENDER).expect("pacing timer");
    assert_eq!(t, SimTime::from_nanos(gap));
    let s = &mut fx.s;
    let out = fx.h.call_at(t, SENDER, |ctx| s.on_timer(token, ctx));
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].th.seq, MSS);
    let (t2, _) = fx.h.next_timer(SENDER).expect("next pacing timer");
    assert_eq!(t2, SimTime::from_nanos(2 * gap));
}

#[test]
fn cubic_fast_retransmit_cuts_to_seven_tenths_reno_to_half() {
    for (cc, want) in [(CcKind::Reno, 10.0), (CcKind::Cubic, 14.0)] {
        // 20 segments in flight, cwnd 20 in congestion avoidance; three duplicate ACKs
        let (mut fx, _) = Fx::with_window(with(cc), 20, 10.0);
        fx.at(100).dupacks(0, 3);
        // Reno: FlightSize/2 = 10 (RFC 5681 eq. 4); CUBIC: cwnd · 0.7 = 14 (RFC 9438 §4.6)
        assert!(
            (fx.ssthresh() - want).abs() < 1e-9,
            "{cc:?}: {}",
            fx.ssthresh()
        );
        // NewReno's inflation on top: ssthresh + 3
        assert!(
            (fx.cwnd() - (want + 3.0)).abs() < 1e-9,
            "{cc:?}: {}",
            fx.cwnd()
        );
    }
}

#[test]
fn cubic_grows_by_the_cubic_function_after_recovery() {
    let (mut fx, _) = Fx::with_window(with(CcKind::Cubic), 20, 10.0);
    fx.at(100).dupacks(0, 3); // ssthresh 14, W_max 20
    fx.at(200).ack(20); // full ACK: cwnd = 14, recovery over
    assert!((fx.cwnd() - 14.0).abs() < 1e-9);
    // the first ACK of congestion avoidance starts the epoch at cwnd 14: K = ∛(6/0.4) =
    // 2.466 s, W_cubic(0) = 14 = cwnd_epoch; W_est = 14 + α/14 > 14: the Reno-friendly
    // region sets cwnd = W_est = 14 + 0.5294/14 (RFC 9438 §4.3)
    fx.at(300).ack(21);
    let want = 14.0 + 3.0 * 0.3 / 1.7 / 14.0;
    assert!((fx.cwnd() - want).abs() < 1e-9, "{}", fx.cwnd());
}

#[test]
fn bbr_ignores_ecn_echo_cubic_reduces() {
    let ecn = |cc| Params {
        ecn: true,
        ..with(cc)
    };
    let (mut fx, _) = Fx::with_window(ecn(CcKind::Cubic), 20, 10.0);
    fx.at(100).ack_with(1, flags::ECE, &[]);
    // RFC 9438 §4.6 on ECE: ssthresh = 0.7 · 20 = 14, cwnd = ssthresh
    assert!((fx.cwnd() - 14.0).abs() < 1e-9, "{}", fx.cwnd());
    let (mut fx, _) = Fx::with_window(ecn(CcKind::Bbr), 20, 10.0);
    let before = fx.cwnd();
    fx.at(100).ack_with(1, flags::ECE, &[]);
    assert!(fx.cwnd() >= before, "BBR v1 keeps its window on ECE");
    assert_eq!(fx.s.stats().ecn_reductions, 0);
}

#[test]
fn bbr_timeout_sets_one_segment_then_restores_the_window() {
    let (mut fx, _) = Fx::with_window(with(CcKind::Bbr), 20, 1000.0);
    let before = fx.cwnd();
    fx.expire();
    assert_eq!(fx.cwnd(), 1.0);
    // once HighData at the timeout (segment 20) is acknowledged the saved window is back
    let t = fx.now.as_nanos() / 1_000_000;
    fx.at(t + 100).ack(20);
    assert!(fx.cwnd() >= before, "{} < {before}", fx.cwnd());
}

#[test]
fn a_timeout_starts_linux_hystart_over_not_hystart_plus_plus() {
    use crate::transport::tcp::cc::{Cc, SlowStart};
    let linux = |s: &Sender| matches!(s.cc(), Cc::Cubic(b) if matches!(b.1.as_deref(), Some(SlowStart::Linux(_))));
    let plus = |s: &Sender| matches!(s.cc(), Cc::Cubic(b) if matches!(b.1.as_deref(), Some(SlowStart::PlusPlus(_))));
    for (linux_hystart, in_slow_start) in [(true, linux as fn(&Sender) -> bool), (false, plus)] {
        let p = Params {
            hystart: !linux_hystart,
            hystart_linux: linux_hystart,
            ..with(CcKind::Cubic)
        };
        let (mut fx, _) = Fx::with_window(p, 20, 1000.0);
        assert!(in_slow_start(&fx.s));
        // a fast retransmit ends either (ssthresh is set by the congestion event)
        fx.at(100).dupacks(0, 3);
        assert!(matches!(fx.s.cc(), Cc::Cubic(b) if b.1.is_none()));
        // a timeout: Linux's bictcp_reset starts HyStart over; RFC 9406 leaves it (afsim: off)
        fx.expire();
        assert_eq!(linux(&fx.s), linux_hystart);
        assert!(!plus(&fx.s));
    }
}
