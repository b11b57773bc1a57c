//! RACK-TLP (RFC 8985, `sender/rack.rs`) at exact packet sequences: a lost retransmission
//! found by RACK, a lost tail repaired by a TLP probe, reordering inside the window not taken
//! for loss, and byte conservation with losses on top of losses. Each case also runs without
//! RACK where that shows the difference (the timeout RACK avoids).

use super::*;
use crate::transport::tcp::cc::CcKind;
use crate::transport::tcp::tests::harness::{at_ms, Net, SentKind};

const RTT_MS: u64 = 100;
const RATE_BPS: u64 = 10_000_000;

fn rack_params() -> Params {
    Params {
        variant: Variant::Sack,
        rack: true,
        ..Params::default()
    }
}

/// A run of `p` whose receiver's window (100 segments) never limits the sender, with the
/// transmissions of the segments in `drops` dropped (a segment listed twice: its first two).
fn run(p: &Params, drops: &[u64], until_ms: u64) -> Net {
    let p = Params {
        max_window_bytes: 100 * MSS,
        ..*p
    };
    let mut n = Net::new(&p, RTT_MS, RATE_BPS);
    n.drop_seqs = drops.iter().map(|k| k * MSS).collect();
    n.start();
    n.run_until(at_ms(until_ms));
    n
}

/// Every byte the receiver delivered came in order, once; the sender's cumulative ACK never
/// runs ahead of it (ACKs may still be on their way).
fn conserved(n: &Net) {
    assert_eq!(n.receiver.stats().goodput_bytes, n.receiver.rcv_nxt());
    assert!(n.sender.snd_una() <= n.receiver.rcv_nxt());
}

#[test]
fn a_lost_retransmission_is_found_by_rack_without_a_timeout() {
    // segment 40 is dropped twice: its first transmission and its fast retransmission
    let plain = run(&sack_params(), &[40, 40], 4000);
    assert!(
        plain.sender.stats().timeouts >= 1,
        "RFC 6675 alone: only the timer finds a lost retransmission"
    );
    let n = run(&rack_params(), &[40, 40], 4000);
    let st = n.sender.stats();
    assert_eq!(st.timeouts, 0, "RACK marks the retransmission lost");
    let sends = n.sends_of(40 * MSS);
    assert_eq!(sends.len(), 3, "original, lost retransmission, its repair");
    assert!(sends[1].dropped && !sends[2].dropped);
    // RFC 8985 §6.2 step 5: the second retransmission waits for a segment sent after the first
    // one to be delivered, then one RACK.rtt (the reordering window is 0 in recovery)
    let gap = sends[2].t.saturating_since(sends[1].t);
    assert!(
        gap >= SimDuration::from_millis(RTT_MS) && gap < SimDuration::from_millis(2 * RTT_MS),
        "{gap:?}"
    );
    assert_eq!(n.retransmissions().len(), 2, "nothing else is resent");
    assert_eq!(st.fast_recoveries, 1);
    conserved(&n);
}

#[test]
fn a_lost_tail_is_repaired_by_a_loss_probe_without_a_timeout() {
    // a 10-segment transfer whose last segment is dropped: no duplicate ACK follows it
    let p = Params {
        transfer_bytes: Some(10 * MSS),
        initial_window_segments: 10,
        ..rack_params()
    };
    let plain = run(&Params { rack: false, ..p }, &[9], 5000);
    assert_eq!(
        plain.sender.stats().timeouts,
        1,
        "without TLP the timer repairs the tail"
    );
    let n = run(&p, &[9], 5000);
    let st = n.sender.stats();
    assert_eq!(st.timeouts, 0);
    assert!(n.sender.is_complete());
    assert_eq!(n.sender.rack_counts().map(|c| c.0), Some(1), "one probe");
    let sends = n.sends_of(9 * MSS);
    assert_eq!(sends.len(), 2);
    assert_eq!(sends[1].kind, SentKind::Retransmission);
    // RFC 8985 §7.2: PTO = 2·SRTT after the last ACK of new data (more than one segment was
    // in flight when it was armed, so no delayed-ACK allowance); well before the 1 s RTO
    let last_ack = n.acked_at(9 * MSS).expect("segments 0..9 acknowledged");
    let wait = sends[1].t.saturating_since(last_ack).as_secs_f64();
    let srtt = n.sender.srtt().as_secs_f64();
    assert!(wait < 0.5, "{wait} s");
    assert!(
        wait >= 1.9 * 0.1 && wait <= 2.0 * srtt + 0.25,
        "{wait} s, srtt {srtt} s"
    );
    conserved(&n);
}

/// Runs the sender's timers due up to `t`, collecting what they sent.
fn timers_until(fx: &mut Fx, t: SimTime) -> Vec<Packet> {
    let mut out = Vec::new();
    while let Some(at) = fx.h.peek_timer() {
        if at > t {
            break;
        }
        let (at, token) = fx.h.next_timer(SENDER).expect("a timer");
        fx.now = at;
        let s = &mut fx.s;
        out.extend(fx.h.call_at(at, SENDER, |ctx| s.on_timer(token, ctx)));
    }
    fx.now = t;
    out
}

/// Four segments out at t = 0; at 100 ms an ACK SACKs segment 1 (segment 0 missing).
fn reordered() -> Fx {
    let (mut fx, out) = Fx::with_window(rack_params(), 4, 100.0);
    assert_eq!(segs(&out), vec![0, 1, 2, 3]);
    let out = fx.at(100).ack_with(0, 0, &[sack(1, 2)]);
    assert!(out.is_empty(), "one SACKed segment: nothing lost yet");
    fx
}

#[test]
fn reordering_within_the_window_is_not_taken_for_loss() {
    // RFC 8985 §6.2 step 4: reo_wnd = min_RTT / 4 = 25 ms (no SRTT yet); segment 0 is lost
    // only at 0 + RACK.rtt (100 ms) + 25 ms. It arrives late at 120 ms: no retransmission.
    let mut fx = reordered();
    assert!(timers_until(&mut fx, at_ms(120)).is_empty());
    let out = fx.at(120).ack_with(2, 0, &[]);
    assert!(
        segs(&out).iter().all(|&k| k >= 4),
        "only new data: {:?}",
        segs(&out)
    );
    let later = timers_until(&mut fx, at_ms(300));
    assert!(
        later.iter().all(|p| p.th.seq >= 4 * MSS),
        "{:?}",
        segs(&later)
    );
    let st = fx.s.stats();
    assert_eq!((st.fast_recoveries, st.retransmitted_segments), (0, 0));
    assert_eq!(
        fx.s.rack_counts().map(|c| c.1),
        Some(0),
        "nothing marked lost"
    );
}

#[test]
fn a_hole_older_than_the_window_is_resent_by_the_reordering_timer() {
    // the same, but segment 0 never comes: at 125 ms the reordering timer marks it lost (one
    // SACKed segment is below DupThresh: RFC 6675 would wait for two more)
    let mut fx = reordered();
    assert!(timers_until(&mut fx, at_ms(124)).is_empty());
    let out = timers_until(&mut fx, at_ms(125));
    assert_eq!(segs(&out)[0], 0, "segment 0 resent at 125 ms");
    assert_eq!(fx.s.stats().fast_recoveries, 1);
    assert!(fx.s.in_recovery());
    assert_eq!(fx.s.stats().timeouts, 0);
}

#[test]
fn the_heads_retransmission_restarts_the_retransmission_timer() {
    // Linux `tcp_xmit_retransmit_queue`: resending the first unacknowledged segment restarts
    // the RTO (RFC 6298 (5.1) would leave the timer armed at t = 0 for the first segment)
    let mut fx = reordered();
    let armed_at_start = fx.timer_deadline().expect("armed by segment 0");
    assert_eq!(armed_at_start, at_ms(0) + fx.s.rto());
    let out = timers_until(&mut fx, at_ms(125));
    assert_eq!(segs(&out)[0], 0, "segment 0 resent at 125 ms");
    assert_eq!(fx.timer_deadline(), Some(at_ms(125) + fx.s.rto()));
    // a retransmission of a later segment does not move it
    let out = fx.at(200).ack_with(0, 0, &[sack(1, 2), sack(3, 4)]);
    assert!(segs(&out).iter().all(|&k| k != 0), "{:?}", segs(&out));
    assert_eq!(fx.timer_deadline(), Some(at_ms(125) + fx.s.rto()));
}

#[test]
fn bytes_are_conserved_through_losses_of_retransmissions_and_tails() {
    // many drops, some twice, one at the end of a finite transfer
    let p = Params {
        transfer_bytes: Some(300 * MSS),
        ..rack_params()
    };
    let drops = [30, 31, 31, 55, 90, 91, 92, 92, 150, 200, 201, 299];
    for cc in [CcKind::Reno, CcKind::Cubic, CcKind::Bbr] {
        let p = Params { cc, ..p };
        let n = run(&p, &drops, 30_000);
        assert!(n.sender.is_complete(), "{cc:?}");
        conserved(&n);
        assert_eq!(n.receiver.rcv_nxt(), 300 * MSS, "{cc:?}");
        let st = n.sender.stats();
        let delivered: u64 = n.sent.iter().filter(|s| !s.dropped).count() as u64;
        let dropped = n.sent.iter().filter(|s| s.dropped).count() as u64;
        assert_eq!(st.segments_sent, delivered + dropped, "{cc:?}");
        assert_eq!(dropped, drops.len() as u64, "{cc:?}");
    }
}

#[test]
fn rack_needs_sack_and_the_rfc_preset() {
    let bad = Params {
        rack: true,
        ..Params::default()
    };
    assert_eq!(bad.validate().unwrap_err().field, "rack");
    let ns2 = Params {
        rack: true,
        variant: Variant::Sack,
        ..Params::ns2()
    };
    assert_eq!(ns2.validate().unwrap_err().field, "rack");
    assert!(rack_params().validate().is_ok());
}

#[test]
fn rtt_every_ack_samples_each_ack_from_its_oldest_segment() {
    // Linux (`tcp_clean_rtx_queue`, `tcp_ack_update_rtt`): every ACK of segments sent once
    // gives a sample, timed from the oldest it newly acknowledges; RFC 6298 one per round trip
    let p = Params {
        variant: Variant::Sack,
        rack: true,
        rtt_every_ack: true,
        ..Params::default()
    };
    let (mut fx, _) = Fx::with_window(p, 4, 20.0);
    fx.at(100).ack(2); // segments 0 and 1, sent at 0 ms: one sample of 100 ms
    assert_eq!(fx.s.stats().rtt_samples, 1);
    for k in 3..=4 {
        fx.at(100 + k).ack(k);
    }
    let st = fx.s.stats();
    assert_eq!(st.rtt_samples, 3, "every ACK");
    assert!(close(st.rtt_mean_s, (0.100 + 0.103 + 0.104) / 3.0));
    // without the option, segment 0 only (`one_segment_per_round_trip_is_timed`)
    let (mut fx, _) = Fx::with_window(
        Params {
            rtt_every_ack: false,
            ..p
        },
        4,
        20.0,
    );
    fx.at(100).ack(2);
    for k in 3..=4 {
        fx.at(100 + k).ack(k);
    }
    assert_eq!(fx.s.stats().rtt_samples, 1);
}

#[test]
fn rtt_every_ack_takes_no_sample_from_an_ack_of_a_retransmission() {
    // Karn's rule as Linux's FLAG_RETRANS_DATA_ACKED: a cumulative ACK that covers a
    // retransmitted segment gives no sample from the cumulative part, only from a segment sent
    // once that it newly SACKs (the earliest sent)
    use crate::transport::tcp::sender::rack::Rack;
    let mss = MSS;
    let mut r = Rack::new();
    for k in 0..4 {
        r.on_sent(k * mss, mss, at_ms(k), false);
    }
    r.on_sent(0, mss, at_ms(50), true); // segment 0 resent
    r.on_ack(2 * mss, &[], at_ms(150));
    assert_eq!(r.ack_rtt_sent, None, "0 was retransmitted: Karn");
    r.on_ack(2 * mss, &[(3 * mss, 4 * mss)], at_ms(160));
    assert_eq!(
        r.ack_rtt_sent,
        Some(at_ms(3)),
        "the SACKed segment, sent once"
    );
    r.on_ack(4 * mss, &[], at_ms(170));
    assert_eq!(
        r.ack_rtt_sent,
        Some(at_ms(2)),
        "segment 2, the oldest newly acknowledged"
    );
    let p = Params {
        rtt_every_ack: true,
        ..rack_params()
    };
    assert!(Params { rack: false, ..p }
        .validate()
        .is_err_and(|e| e.field == "rtt_every_ack"));
}
