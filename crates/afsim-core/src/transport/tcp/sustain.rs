//! The Throughput Sustaining Scheme: a floor under the congestion window after a reduction.
//!
//! Read this first.
//! - Source: Leung & Muppala (paper 004) §5.1, "Throughput Sustaining Scheme": the sender
//!   estimates its sending rate as `SendingRate = CongestionWindow / RTT` "by using the
//!   estimated RTT and congestion window size", and "if (Adjusted Sending Rate < Target
//!   Throughput) Current Sending Rate = Target Throughput", where the adjusted rate is "the
//!   result after adjusting the congestion window": "the target throughput provides a lower
//!   bound on how low the congestion window can be adjusted". The paper follows its reference
//!   [3], Feng, Kandlur, Saha & Shin (IEEE/ACM ToN 7(2), 1999), whose rate-adaptive window
//!   keeps a reserved part RWND = reserved rate × estimated RTT below which the window is never
//!   cut (in fast recovery CWND = RWND + (CWND − RWND)/2; after a timeout CWND = RWND + 1,
//!   SSTHRESH = min(RWND + (CWND − RWND)/2, AWND)).
//! - What afsim does (`tcp::Params::target_rate_bps`): at each window reduction — fast
//!   retransmit / SACK recovery, an ECN-Echo, a retransmission timeout — the new cwnd and
//!   ssthresh are raised to at least `floor = target × SRTT / (8 × packet_size)` segments,
//!   capped at the advertised window (Feng's `min(…, AWND)`: a window the receiver refuses
//!   sustains nothing). With the floor, Leung's rule `max(adjusted, target)` is applied to the
//!   rate the window allows; Feng's halving of the excess above RWND is not (Leung's text
//!   replaces it by a plain lower bound).
//! - The RTT estimate is SRTT, the RFC 6298 smoothed RTT that the retransmission timer keeps
//!   (`rto::Rto::srtt_fine`: ns-2's `t_srtt_`, an eighth of a tick, not truncated to whole
//!   ticks — truncation would bias the floor low by up to a tick): it is what the paper calls the
//!   "estimated RTT" and what Feng's RWND uses. Not the latest sample (one delayed ACK or one
//!   queue spike would swing the floor by the RTT's whole variance at the very moment of a
//!   reduction), not the minimum RTT (the rate a window achieves is window / the RTT it
//!   actually sees, queueing included: a floor from the propagation RTT alone would sustain
//!   less than the target whenever a queue is standing). The floor is computed afresh at each
//!   reduction, so it follows a changing RTT.
//! - The rate counts IP bytes (`packet_size`, headers included) because the edge marker meters
//!   the target rate on IP packets and the paper's throughput is in packets of 1000 bytes (ns-2
//!   counts cwnd in packets of `packetSize_`).
//! - ssthresh gets the same floor, so that leaving fast recovery (cwnd = ssthresh) and slow
//!   start after a timeout (which ends at ssthresh) never end below it either.
//! - After a timeout cwnd is max(1 segment, floor) (Feng: RWND + 1): the go-back-N resend then
//!   starts from the floor, not from one segment. With no floor (below it) slow start proceeds
//!   as usual.
//! - Slow start and congestion avoidance are untouched: the floor bounds reductions only, so a
//!   flow that starts (or has not yet grown) below its floor grows by the ordinary rules.
//! - ECN's once-per-window rule (RFC 3168 §6.1.2) is unchanged: an ECE that the rule ignores
//!   causes no reduction and so no floor; the one it acts on is floored like a loss.
//! - Before the first RTT sample there is no estimate to turn a rate into a window: no floor
//!   (the first reduction of a connection whose SYN or first segment has not yet been timed is
//!   an ordinary one). The same holds after repeated timeouts make the estimator forget SRTT
//!   (RFC 6298 §5, `rto`): until the next sample, no floor.
//! - It works the same for Reno, NewReno and SACK (the reductions are shared code in
//!   `sender`); NewReno's partial-ACK deflation only removes fast-recovery inflation and is not
//!   a reduction, but the exit to ssthresh is floored.
//!
//! Not modelled: Feng's scaled window increase ((CWND − RWND)/CWND per ACK) and its timed
//! transmissions; any pacing of the window a floor releases at once.

use crate::sim::time::SimDuration;

/// The floor, in segments of the connection: `target_bps × srtt / (8 × packet_size)`, capped
/// at `max_segments`; zero without a target or before the first RTT sample (`srtt` zero).
pub fn floor_segments(
    target_bps: Option<u64>,
    srtt: SimDuration,
    packet_size: u32,
    max_segments: f64,
) -> f64 {
    match target_bps {
        Some(r) if srtt > SimDuration::ZERO && packet_size > 0 => {
            // Leung & Muppala §5.1: SendingRate = CongestionWindow / RTT, solved for the window
            let w = r as f64 * srtt.as_secs_f64() / (8.0 * f64::from(packet_size));
            w.min(max_segments)
        }
        _ => 0.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::Packet;
    use crate::sim::time::SimTime;
    use crate::transport::tcp::sender::tests::Fx;
    use crate::transport::tcp::sender::Sender;
    use crate::transport::tcp::tests::harness::{ack, at_ms, Host, Net, SENDER};
    use crate::transport::tcp::{flags, Params, Variant};

    const MSS: u64 = 960;

    fn ms(x: u64) -> SimDuration {
        SimDuration::from_millis(x)
    }

    #[test]
    fn the_floor_is_target_times_srtt_over_the_packet_size_capped_at_the_window() {
        // 4 Mb/s × 100 ms / 8000 bit = 50 packets
        assert_eq!(floor_segments(Some(4_000_000), ms(100), 1000, 100.0), 50.0);
        assert_eq!(
            floor_segments(Some(4_000_000), ms(100), 1000, 20.0),
            20.0,
            "the advertised window caps it"
        );
        assert_eq!(floor_segments(Some(1_000_000), ms(130), 1000, 100.0), 16.25);
        assert_eq!(floor_segments(None, ms(100), 1000, 100.0), 0.0);
        assert_eq!(
            floor_segments(Some(4_000_000), SimDuration::ZERO, 1000, 100.0),
            0.0,
            "no RTT sample yet"
        );
    }

    // ------------------------------------------------------------ the sender, step by step

    /// `sender`'s fixture with segments 0..w in flight (initial window w), cwnd w and ssthresh
    /// as given, a receiver window of 100 segments, and one RTT sample of 100 ms taken (SRTT
    /// 100 ms). With 1000-byte packets a target of `k` × 80 kb/s is then a floor of `k`
    /// segments.
    fn sender_at(p: Params, w: u32, ssthresh: f64) -> Fx {
        let p = Params {
            max_window_bytes: 100 * MSS,
            ..p
        };
        let (mut fx, out) = Fx::with_window(p, w, ssthresh);
        assert_eq!(out.len(), w as usize);
        fx.s.sample_rtt(SimTime::ZERO, at_ms(100));
        fx.at(100);
        fx
    }

    /// A target of `k` segments per 100 ms round trip of 1000-byte packets.
    fn target(k: u64) -> Option<std::num::NonZeroU64> {
        std::num::NonZeroU64::new(k * 80_000)
    }

    fn segs(out: &[Packet]) -> Vec<u64> {
        out.iter().map(|p| p.th.seq / MSS).collect()
    }

    fn with(variant: Variant, target_rate_bps: Option<std::num::NonZeroU64>) -> Params {
        Params {
            variant,
            target_rate_bps,
            ..Params::default()
        }
    }

    #[test]
    fn fast_recovery_sets_cwnd_and_ssthresh_no_lower_than_the_floor() {
        for v in [Variant::Reno, Variant::NewReno] {
            let mut fx = sender_at(with(v, target(12)), 16, 40.0);
            assert_eq!(segs(&fx.dupacks(0, 3)), vec![0], "{v:?}: fast retransmit");
            assert!(fx.s.in_recovery());
            // plain: ssthresh = FlightSize/2 = 8; with the floor 12, inflated by 3
            assert_eq!((fx.ssthresh(), fx.cwnd()), (12.0, 15.0), "{v:?}");
            // the full ACK deflates to the floor, not to 8
            fx.ack(16);
            assert!(!fx.s.in_recovery());
            assert_eq!(fx.cwnd(), 12.0, "{v:?}");
        }
        // the same loss without a target halves as usual
        let mut fx = sender_at(with(Variant::NewReno, None), 16, 40.0);
        fx.dupacks(0, 3);
        assert_eq!((fx.ssthresh(), fx.cwnd()), (8.0, 11.0));
    }

    #[test]
    fn ns2_mode_floors_the_halved_window_too() {
        let p = Params {
            target_rate_bps: target(12),
            variant: Variant::Reno,
            ..Params::ns2()
        };
        let mut fx = sender_at(p, 16, 40.0);
        // ns-2 allows no fast retransmit before segment 0 is acknowledged (`recover_` starts
        // at 0); its ACK alone leaves cwnd at the initial window, 16 (`delay_growth_`)
        fx.ack(1);
        assert_eq!(fx.cwnd(), 16.0);
        assert_eq!(segs(&fx.dupacks(1, 3)), vec![1], "fast retransmit");
        // ns-2: ssthresh ⌊16/2⌋ = 8, cwnd 16/2 + 3; both raised to 12 first
        assert_eq!((fx.ssthresh(), fx.cwnd()), (12.0, 15.0));
    }

    #[test]
    fn sack_recovery_starts_from_the_floor() {
        let mut fx = sender_at(with(Variant::Sack, target(12)), 16, 40.0);
        let sacks = |hi: u64| [(MSS, hi * MSS)];
        fx.deliver(ack(0, 0, &sacks(2)));
        fx.deliver(ack(0, 0, &sacks(3)));
        let out = fx.deliver(ack(0, 0, &sacks(4)));
        assert_eq!(segs(&out), vec![0], "segment 0 retransmitted");
        assert_eq!(
            (fx.cwnd(), fx.ssthresh()),
            (12.0, 12.0),
            "RFC 6675 (4.2) cwnd = ssthresh, floored"
        );
    }

    #[test]
    fn a_floor_below_the_halved_window_changes_nothing() {
        let mut fx = sender_at(with(Variant::NewReno, target(5)), 16, 40.0);
        fx.dupacks(0, 3);
        assert_eq!((fx.ssthresh(), fx.cwnd()), (8.0, 11.0));
    }

    #[test]
    fn an_ecn_echo_cuts_no_lower_than_the_floor_once_per_window() {
        let p = Params {
            ecn: true,
            ..with(Variant::NewReno, target(12))
        };
        let mut fx = sender_at(p, 16, 40.0);
        assert!(
            fx.deliver(ack(MSS, flags::ECE, &[])).is_empty(),
            "cwnd 12 < 15 outstanding"
        );
        assert_eq!(
            (fx.cwnd(), fx.ssthresh()),
            (12.0, 12.0),
            "16/2 = 8 raised to the floor"
        );
        assert_eq!(fx.s.stats().ecn_reductions, 1);
        // RFC 3168 §6.1.2: more ECE from the same window cause no reduction, floored or not
        fx.deliver(ack(2 * MSS, flags::ECE, &[]));
        assert_eq!((fx.cwnd(), fx.s.stats().ecn_reductions), (12.0, 1));
        // data sent after the reduction, echoed: a second reduction, floored again
        fx.ack(5);
        fx.deliver(ack(17 * MSS, flags::ECE, &[]));
        assert_eq!((fx.cwnd(), fx.s.stats().ecn_reductions), (12.0, 2));
    }

    #[test]
    fn a_timeout_restarts_from_the_floor_and_resends_a_floors_worth() {
        let mut fx = sender_at(with(Variant::NewReno, target(10)), 16, 40.0);
        let out = fx.expire();
        // RFC 5681: cwnd 1 and ssthresh 8; with the floor both 10, and go-back-N resends 10
        assert_eq!((fx.cwnd(), fx.ssthresh()), (10.0, 10.0));
        assert_eq!(segs(&out), (0..10).collect::<Vec<_>>());
        // without a target: one segment
        let mut fx = sender_at(with(Variant::NewReno, None), 16, 40.0);
        assert_eq!(segs(&fx.expire()), vec![0]);
        assert_eq!((fx.cwnd(), fx.ssthresh()), (1.0, 8.0));
    }

    #[test]
    fn slow_start_is_not_floored() {
        // a fresh connection with a 40-segment floor starts from one segment and grows by one
        // per ACK: no jump to 40
        let p = Params {
            max_window_bytes: 100 * MSS,
            ..with(Variant::NewReno, target(40))
        };
        let mut s = Sender::new(0, 0, 1, 1, &p, crate::sim::rng::stream(1, "s"));
        let mut h = Host::new();
        h.call_at(SimTime::ZERO, SENDER, |ctx| s.start(ctx));
        let (t, token) = h.next_timer(SENDER).unwrap();
        assert_eq!(
            segs(&h.call_at(t, SENDER, |ctx| s.on_timer(token, ctx))),
            vec![0]
        );
        let a = ack(MSS, 0, &[]);
        assert_eq!(
            segs(&h.call_at(at_ms(100), SENDER, |ctx| s.on_packet(&a, ctx))),
            vec![1, 2]
        );
        assert_eq!(s.cwnd_bytes(), 2.0 * MSS as f64);
        // below the floor after a reduction (ssthresh 10 < 40 would not be), slow start too:
        let mut fx = sender_at(with(Variant::NewReno, target(10)), 4, 40.0);
        fx.ack(1);
        assert_eq!(
            fx.cwnd(),
            5.0,
            "cwnd 4 < floor 10 grows by one, not to the floor"
        );
    }

    #[test]
    fn before_the_first_rtt_sample_there_is_no_floor() {
        // segments 0..4 sent at once; no ACK: the timeout comes before any sample
        let p = Params {
            initial_window_segments: 4,
            ..with(Variant::NewReno, target(40))
        };
        let mut s = Sender::new(0, 0, 1, 1, &p, crate::sim::rng::stream(1, "s"));
        let mut h = Host::new();
        h.call_at(SimTime::ZERO, SENDER, |ctx| s.start(ctx));
        let (t, token) = h.next_timer(SENDER).unwrap();
        h.call_at(t, SENDER, |ctx| s.on_timer(token, ctx));
        let (t, token) = h.next_timer(SENDER).unwrap();
        let out = h.call_at(t, SENDER, |ctx| s.on_timer(token, ctx));
        assert_eq!(s.stats().timeouts, 1);
        assert_eq!(segs(&out), vec![0], "an ordinary timeout: one segment");
        assert_eq!(s.cwnd_bytes(), MSS as f64);
    }

    #[test]
    fn the_floor_follows_a_changing_rtt() {
        // SRTT 100 ms: a target of 10 segments per 100 ms is a floor of 10
        let mut fx = sender_at(with(Variant::NewReno, target(10)), 14, 60.0);
        fx.dupacks(0, 3);
        assert_eq!(fx.ssthresh(), 10.0, "14/2 = 7 raised to 10");
        // the path's RTT grows to 300 ms: five samples move SRTT 7/8 of the way each time
        let mut fx = sender_at(with(Variant::NewReno, target(10)), 14, 60.0);
        for i in 1..=5 {
            fx.s.sample_rtt(at_ms(1000 * i), at_ms(1000 * i + 300));
        }
        // about 100 + 200 · (1 − (7/8)^5) = 197 ms (30 or 31 ticks of 10 ms a sample)
        let srtt = fx.s.srtt();
        assert!(srtt >= ms(180) && srtt <= ms(210), "{srtt}");
        fx.at(6000).dupacks(0, 3);
        let floor = 10.0 * srtt.as_secs_f64() / 0.1;
        assert!(
            (fx.ssthresh() - floor).abs() < 1e-9,
            "floor 10 × SRTT/100 ms = {floor}: {}",
            fx.ssthresh()
        );
        // and when the RTT falls back, so does the floor
        let mut fx = sender_at(with(Variant::NewReno, target(10)), 14, 60.0);
        for i in 1..=40 {
            fx.s.sample_rtt(at_ms(1000 * i), at_ms(1000 * i + 50));
        }
        assert!(fx.s.srtt() <= ms(60), "{}", fx.s.srtt());
        fx.at(50_000).dupacks(0, 3);
        assert_eq!(fx.ssthresh(), 7.0, "floor 5 is below the halved window");
    }

    // ------------------------------------------------------------ a whole connection

    /// Goodput of one flow over `secs` seconds on the test path (100 ms RTT, 10 Mb/s), every
    /// `every`-th data transmission lost.
    fn goodput_mbps(p: &Params, every: u64, secs: f64) -> f64 {
        let mut n = Net::new(p, 100, 10_000_000);
        n.drop_seqs = (1..4000).map(|k| k * every * MSS).collect();
        n.start();
        n.run_until(SimTime::ZERO + SimDuration::from_nanos((secs * 1e9) as u64));
        n.receiver.stats().goodput_bytes as f64 * 8.0 / secs / 1e6
    }

    #[test]
    fn periodic_losses_keep_a_sustained_flow_above_its_target_where_plain_tcp_falls_below() {
        // one loss every 100 segments: plain TCP's sawtooth averages about 1.2/sqrt(0.01)
        // = 12 segments per RTT ≈ 0.9 Mb/s of payload; the floor holds 3 Mb/s of IP
        // packets, 2.88 Mb/s of payload
        for v in Variant::ALL {
            let base = Params {
                max_window_bytes: 200 * MSS,
                ..with(v, None)
            };
            let plain = goodput_mbps(&base, 100, 40.0);
            let sustained = goodput_mbps(
                &Params {
                    target_rate_bps: std::num::NonZeroU64::new(3_000_000),
                    ..base
                },
                100,
                40.0,
            );
            assert!(plain < 2.0, "{v:?}: plain {plain}");
            assert!(sustained >= 2.88 * 0.97, "{v:?}: sustained {sustained}");
        }
    }

    #[test]
    fn a_sack_flow_alone_on_a_lossy_link_stays_at_its_target_where_plain_tcp_falls_below() {
        // 1 % Bernoulli loss on a 10 Mb/s, 100 ms RTT path; target 4 Mb/s of IP packets. SACK:
        // with NewReno or Reno a floored window of 50 segments often holds two losses, and
        // after the timeout that follows, go-back-N leaves the second hole to a further timeout
        // (`recover` blocks fast retransmit below the data sent before the timeout), so the
        // scheme loses to backed-off timers what it gains from the floor (goodput about
        // 1.5 Mb/s for NewReno under the ns2 preset); SACK repairs both holes in one recovery
        let toml = |preset: &str, target: &str| {
            format!(
                r#"[scenario]
duration = "60s"
warmup = "10s"
[[node]]
name = "a"
[[node]]
name = "b"
[[node]]
name = "c"
[[link]]
between = ["a", "b"]
rate = "100Mbps"
delay = "1ms"
[[link]]
between = ["b", "c"]
rate = "10Mbps"
delay = "49ms"
loss = 0.01
queue = {{ kind = "droptail", limit = "200pkt" }}
[[flow]]
name = "f"
kind = "tcp"
preset = "{preset}"
variant = "sack"
from = "a"
to = "c"
max_window = "300pkt"
target_rate = "{target}"
"#
            )
        };
        let goodput = |preset: &str, target: &str| {
            let spec =
                crate::scenario::load::load_str(&toml(preset, target), "lossy.toml", &[]).unwrap();
            let r = crate::world::run(&spec, None).unwrap();
            assert!(r.conservation.holds, "{}", r.conservation.identity);
            r.flows[0].goodput_kbps.unwrap()
        };
        for preset in ["rfc", "ns2"] {
            let plain = goodput(preset, "none");
            let sustained = goodput(preset, "4Mbps");
            assert!(plain < 4000.0 * 0.6, "{preset}: plain TCP {plain} kb/s");
            // the floor holds the sending rate at the target; the link loses 1 % of it and
            // 40 of every 1000 bytes are headers
            let payload = 4000.0 * 0.96 * (1.0 - 0.01);
            assert!(
                sustained >= payload * 0.98,
                "{preset}: sustained {sustained} kb/s of goodput"
            );
        }
    }
}
