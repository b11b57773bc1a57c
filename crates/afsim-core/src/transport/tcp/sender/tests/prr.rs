//! Proportional Rate Reduction (RFC 6937, `sender/prr.rs`) at the exact packet sequences of
//! RFC 6937 §3.1: 20 segments in flight (cwnd = FlightSize = 20), Reno's ssthresh of 10,
//! limited transmit, and either segment 0 lost or segments 0–14 lost; what the sender sends
//! on each returning ACK, with and without PRR.

use super::*;

/// 20 segments 0..19 in flight; the ACK of segment `k` SACKs 1..=k (example 1) or
/// `first..=k` (example 2). Returns, per ACK, the segments it released.
fn replay(prr: bool, first_acked: u64) -> (Fx, Vec<Vec<u64>>) {
    let p = Params {
        variant: Variant::Sack,
        limited_transmit: true,
        prr,
        max_window_bytes: 100 * MSS,
        ..Params::default()
    };
    let (mut fx, out) = Fx::with_window(p, 20, 1000.0);
    assert_eq!(segs(&out), (0..20).collect::<Vec<_>>());
    let mut per_ack = Vec::new();
    for k in first_acked..20 {
        let out = fx.at(100 + k).ack_with(0, 0, &[sack(first_acked, k + 1)]);
        per_ack.push(segs(&out));
    }
    (fx, per_ack)
}

/// "N" new data, "R" a retransmission, "." nothing, per ACK (several letters: several).
fn pattern(per_ack: &[Vec<u64>]) -> String {
    per_ack
        .iter()
        .map(|s| {
            if s.is_empty() {
                ".".to_string()
            } else {
                s.iter().map(|&k| if k < 20 { 'R' } else { 'N' }).collect()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn one_loss_prr_spreads_the_reduction_over_the_round_trip() {
    // RFC 6937 §3.1, first example: RFC 6675 sends nothing for ACKs 4–12 (a "half window of
    // silence"), PRR one segment on every other ACK from the fifth on. The RFC's table shows
    // PRR's sends at ACKs 5, 7, …, 15, as here; its last two (18 and 19 instead of 17) come
    // from a pipe that leaves the retransmission out, where RFC 6675's SetPipe() (and
    // Linux's packets in flight) count it, as here.
    let (fx, plain) = replay(false, 1);
    assert_eq!(pattern(&plain), "N N R . . . . . . . . . N N N N N N N");
    assert_eq!(fx.ssthresh(), 10.0);
    let (fx, prr) = replay(true, 1);
    assert_eq!(pattern(&prr), "N N R . N . N . N . N . N . N . N . .");
    assert_eq!(fx.ssthresh(), 10.0);
    // RFC 6937 §3: prr_delivered counts the 17 ACKs of recovery, prr_out the retransmission
    // and 7 new segments: ⌈17 · 10 / 20⌉ = 9 would be allowed, pipe reached ssthresh first
    assert_eq!(fx.s.prr_counts(), Some((17.0, 8.0)));
    // both end the round with ssthresh in flight: 10 segments
    let flight = |per: &[Vec<u64>]| 20 + per.iter().flatten().filter(|&&k| k >= 20).count() - 19;
    assert_eq!(flight(&plain), 10);
    assert_eq!(flight(&prr), 10);
}

#[test]
fn fifteen_losses_prr_ssrb_sends_one_more_than_delivered() {
    // RFC 6937 §3.1, second example: segments 0–14 lost, ACKs of 15–19 return. PRR-SSRB:
    // "N N 2R 2R 2R" (pipe below ssthresh; the bound DeliveredData + 1 MSS); RFC 6675 sends
    // a burst up to cwnd on the third duplicate ACK (the RFC's 7R with its cwnd of 11; 6 with
    // cwnd = ssthresh = 10 as RFC 6675 (4.2) sets it)
    let (_, plain) = replay(false, 15);
    assert_eq!(pattern(&plain), "N N RRRRRR R R");
    let (fx, prr) = replay(true, 15);
    assert_eq!(pattern(&prr), "N N RR RR RR");
    assert_eq!(fx.s.prr_counts(), Some((3.0, 6.0)));
    assert_eq!(prr.concat(), vec![20, 21, 0, 1, 2, 3, 4, 5]);
}

#[test]
fn a_repair_below_sacked_data_delivers_only_itself() {
    // RFC 6937 §3: DeliveredData = (change in snd.una) + (change in SACKed). Segments 0 and 10
    // lost of 20: when the retransmission of 0 arrives the cumulative ACK passes the nine
    // segments 1–9 SACKed before, and the ACK delivers one segment, not ten (counting those
    // nine twice let PRR send a burst of new data in a long recovery)
    let p = Params {
        variant: Variant::Sack,
        limited_transmit: true,
        prr: true,
        max_window_bytes: 100 * MSS,
        ..Params::default()
    };
    let (mut fx, _) = Fx::with_window(p, 20, 1000.0);
    for k in 1..20 {
        if k != 10 {
            let blocks: Vec<(u64, u64)> = if k < 10 {
                vec![sack(1, k + 1)]
            } else {
                vec![sack(11, k + 1), sack(1, 10)]
            };
            fx.at(100 + k).ack_with(0, 0, &blocks);
        }
    }
    assert!(fx.s.in_recovery());
    let (delivered, _) = fx.s.prr_counts().unwrap();
    // the third duplicate ACK's segment (3) on: 16 segments SACKed in recovery, each once
    assert_eq!(delivered, 16.0);
    fx.at(200).ack_with(10, 0, &[sack(11, 20)]);
    assert!(fx.s.in_recovery(), "segment 10 is still missing");
    assert_eq!(
        fx.s.prr_counts().unwrap().0,
        17.0,
        "one more: the repaired segment"
    );
}

#[test]
fn linux_prr_adds_ssrbs_segment_only_on_an_ack_that_advances_snd_una() {
    // Linux tcp_cwnd_reduction (and RFC 9937): below ssthresh the bound is MAX(prr_delivered −
    // prr_out, DeliveredData), plus one segment only on a SafeACK (SND.UNA advanced, nothing
    // newly lost). RFC 6937 §3.1's second example, segments 0–14 lost: its duplicate ACKs
    // advance nothing, so each sends what it delivered, one segment, where PRR-SSRB sends two
    let p = Params {
        variant: Variant::Sack,
        limited_transmit: true,
        prr: true,
        prr_linux: true,
        max_window_bytes: 100 * MSS,
        ..Params::default()
    };
    let (mut fx, out) = Fx::with_window(p, 20, 1000.0);
    assert_eq!(segs(&out), (0..20).collect::<Vec<_>>());
    let per_ack: Vec<Vec<u64>> = (15..20)
        .map(|k| segs(&fx.at(100 + k).ack_with(0, 0, &[sack(15, k + 1)])))
        .collect();
    assert_eq!(pattern(&per_ack), "N N R R R");
    // the repair of 0 advances SND.UNA: a SafeACK, one more than it delivered
    let out = fx.at(200).ack_with(1, 0, &[sack(15, 20)]);
    assert_eq!(segs(&out).len(), 2, "{:?}", segs(&out));
}

#[test]
fn recovery_ends_at_ssthresh_and_bbr_is_left_alone() {
    // RFC 6937 §3: cwnd = ssthresh when recovery ends
    let (mut fx, _) = replay(true, 1);
    fx.at(300).ack(22);
    assert!(!fx.s.in_recovery());
    assert_eq!(fx.cwnd(), fx.ssthresh());
    // BBR sets its own window (Linux: no tcp_cwnd_reduction with cong_control)
    let p = Params {
        variant: Variant::Sack,
        limited_transmit: true,
        max_window_bytes: 100 * MSS,
        cc: crate::transport::tcp::cc::CcKind::Bbr,
        ..Params::default()
    };
    let run = |prr: bool| {
        let (mut fx, _) = Fx::with_window(Params { prr, ..p }, 20, 1000.0);
        (1..20)
            .map(|k| segs(&fx.at(100 + k).ack_with(0, 0, &[sack(1, k + 1)])))
            .collect::<Vec<_>>()
    };
    assert_eq!(run(true), run(false));
}

#[test]
fn prr_needs_sack_and_the_rfc_preset() {
    let bad = Params {
        prr: true,
        ..Params::default()
    };
    assert_eq!(bad.validate().unwrap_err().field, "prr");
    let ns2 = Params {
        prr: true,
        variant: Variant::Sack,
        ..Params::ns2()
    };
    assert_eq!(ns2.validate().unwrap_err().field, "prr");
}

#[test]
fn prr_with_rack_conserves_bytes_through_losses_of_retransmissions_and_tails() {
    use crate::transport::tcp::cc::CcKind;
    use crate::transport::tcp::tests::harness::{at_ms, Net};
    // the RACK tests' drops (some twice, one at the end of the transfer), with PRR: every
    // byte delivered once and in order, each segment dropped as listed
    let drops = [30, 31, 31, 55, 90, 91, 92, 92, 150, 200, 201, 299];
    for cc in [CcKind::Reno, CcKind::Cubic] {
        let p = Params {
            variant: Variant::Sack,
            rack: true,
            prr: true,
            cc,
            transfer_bytes: Some(300 * MSS),
            max_window_bytes: 100 * MSS,
            ..Params::default()
        };
        let mut n = Net::new(&p, 100, 10_000_000);
        n.drop_seqs = drops.iter().map(|k| k * MSS).collect();
        n.start();
        n.run_until(at_ms(30_000));
        assert!(n.sender.is_complete(), "{cc:?}");
        assert_eq!(n.receiver.rcv_nxt(), 300 * MSS, "{cc:?}");
        assert_eq!(n.receiver.stats().goodput_bytes, 300 * MSS, "{cc:?}");
        let dropped = n.sent.iter().filter(|s| s.dropped).count();
        assert_eq!(dropped, drops.len(), "{cc:?}");
        let (delivered, out) = n.sender.prr_counts().expect("PRR on");
        assert!(delivered > 0.0 && out > 0.0, "{cc:?}: PRR acted");
    }
}
