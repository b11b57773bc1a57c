use super::*;
use crate::transport::tcp::tests::harness::{ack, at_ms, Host, SENDER};

const MSS: u64 = 960;

/// Fixtures on the sender itself (its private state: this module is its child).
impl Sender {
    /// Puts the congestion state where a test needs it (segments).
    pub(crate) fn set_window(&mut self, cwnd: f64, ssthresh: f64) {
        self.cwnd = cwnd;
        self.ssthresh = ssthresh;
    }

    /// Feeds the RTT estimator one sample, as the ACK of a segment sent once would.
    pub(crate) fn sample_rtt(&mut self, sent: SimTime, now: SimTime) {
        self.take_sample(sent, now, false);
    }

    /// The smoothed RTT the retransmission timer holds, to an eighth of a tick (zero before
    /// any sample).
    pub(crate) fn srtt(&self) -> SimDuration {
        self.rto.srtt_fine()
    }
}

/// A sender on a test host. Time moves only when a test says so (`sustain`'s tests use
/// it too).
pub(crate) struct Fx {
    pub(crate) h: Host,
    pub(crate) s: Sender,
    pub(crate) now: SimTime,
}

impl Fx {
    /// When the retransmission timer expires, if it runs (the flow's record, `FlowStats::retx`).
    pub(crate) fn timer_deadline(&self) -> Option<SimTime> {
        self.h.flow.retx.deadline()
    }

    /// Started at t = 0: returns the fixture and the initial window it sent.
    pub(crate) fn started(p: Params) -> (Fx, Vec<Packet>) {
        let mut s = Sender::new(0, 0, 1, 1, &p, crate::sim::rng::stream(1, "s"));
        let mut h = Host::new();
        h.call_at(SimTime::ZERO, SENDER, |ctx| s.start(ctx));
        let (t, token) = h.next_timer(SENDER).expect("start timer");
        let out = h.call_at(t, SENDER, |ctx| s.on_timer(token, ctx));
        (Fx { h, s, now: t }, out)
    }

    /// `w` full segments in flight (initial window `w`), cwnd = w, ssthresh as given.
    pub(crate) fn with_window(p: Params, w: u32, ssthresh: f64) -> (Fx, Vec<Packet>) {
        let (mut fx, out) = Fx::started(Params {
            initial_window_segments: w,
            ..p
        });
        fx.s.set_window(f64::from(w), ssthresh);
        (fx, out)
    }

    pub(crate) fn at(&mut self, ms: u64) -> &mut Self {
        self.now = at_ms(ms);
        self
    }

    /// Delivers one ACK packet now.
    pub(crate) fn deliver(&mut self, pkt: crate::net::packet::Packet) -> Vec<Packet> {
        let s = &mut self.s;
        self.h
            .call_at(self.now, SENDER, |ctx| s.on_packet(&pkt, ctx))
    }

    /// A cumulative ACK of the first `k` segments.
    pub(crate) fn ack(&mut self, k: u64) -> Vec<Packet> {
        self.deliver(ack(k * MSS, 0, &[]))
    }

    pub(crate) fn ack_with(&mut self, k: u64, extra: u16, sacks: &[(u64, u64)]) -> Vec<Packet> {
        self.deliver(ack(k * MSS, extra, sacks))
    }

    /// `n` duplicate ACKs of the first `k` segments; everything they released.
    pub(crate) fn dupacks(&mut self, k: u64, n: usize) -> Vec<Packet> {
        (0..n).flat_map(|_| self.ack(k)).collect()
    }

    /// Runs the sender's timers until the retransmission timer really expires.
    pub(crate) fn expire(&mut self) -> Vec<Packet> {
        let before = self.s.stats().timeouts;
        while let Some((t, token)) = self.h.next_timer(SENDER) {
            self.now = t;
            let s = &mut self.s;
            let out = self.h.call_at(t, SENDER, |ctx| s.on_timer(token, ctx));
            if self.s.stats().timeouts > before {
                return out;
            }
        }
        panic!("no retransmission timer pending");
    }

    pub(crate) fn cwnd(&self) -> f64 {
        self.s.cwnd_bytes() / MSS as f64
    }

    pub(crate) fn ssthresh(&self) -> f64 {
        self.s.ssthresh_bytes() / MSS as f64
    }
}

/// Segment indices of data packets.
fn segs(out: &[Packet]) -> Vec<u64> {
    out.iter().map(|p| p.th.seq / MSS).collect()
}

fn sack(a: u64, b: u64) -> (u64, u64) {
    (a * MSS, b * MSS)
}

fn reno() -> Params {
    Params {
        variant: Variant::Reno,
        ..Params::default()
    }
}

fn newreno() -> Params {
    Params {
        variant: Variant::NewReno,
        ..Params::default()
    }
}

fn sack_params() -> Params {
    Params {
        variant: Variant::Sack,
        ..Params::default()
    }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

// ------------------------------------------------------------ slow start, avoidance

#[test]
fn the_initial_window_goes_out_as_full_segments() {
    let (_, out) = Fx::started(Params::default());
    assert_eq!(segs(&out), vec![0]);
    let p = out[0];
    assert_eq!((p.size, p.th.payload, p.th.seq), (1000, 960, 0));
    assert!(!p.rev && p.dst_agent == 1 && p.src == 0 && p.dst == 1);
    assert_eq!(p.ecn, Ecn::NotEct);
    let (_, out) = Fx::started(Params {
        initial_window_segments: 4,
        ..Params::default()
    });
    assert_eq!(segs(&out), vec![0, 1, 2, 3]);
}

#[test]
fn data_starts_at_the_flows_start_time() {
    let p = Params {
        start: at_ms(2500),
        ..Params::default()
    };
    let (fx, out) = Fx::started(p);
    assert_eq!(fx.now, at_ms(2500));
    assert_eq!(out.len(), 1);
}

#[test]
fn slow_start_adds_one_segment_per_new_ack() {
    let (mut fx, _) = Fx::started(Params::default());
    assert_eq!(segs(fx.at(100).ack(1).as_slice()), vec![1, 2]);
    assert_eq!(fx.cwnd(), 2.0);
    assert_eq!(segs(&fx.ack(2)), vec![3, 4]);
    assert_eq!(segs(&fx.ack(3)), vec![5, 6]);
    assert_eq!(fx.cwnd(), 4.0);
}

#[test]
fn congestion_avoidance_adds_one_over_cwnd_per_ack() {
    let (mut fx, _) = Fx::with_window(Params::default(), 4, 2.0);
    assert_eq!(segs(&fx.ack(1)), vec![4]);
    assert!(close(fx.cwnd(), 4.25));
    let mut c = 4.25;
    for k in 2..=4 {
        assert_eq!(fx.ack(k).len(), 1, "one segment per ACK while cwnd < 5");
        c += 1.0 / c;
        assert!(close(fx.cwnd(), c));
    }
    // 4.92 + 1/4.92 = 5.12: the window holds a fifth segment
    assert_eq!(segs(&fx.ack(5)), vec![8, 9]);
}

#[test]
fn the_advertised_window_caps_the_data_in_flight() {
    let p = Params {
        max_window_bytes: 4 * MSS,
        initial_window_segments: 10,
        ..Params::default()
    };
    let (mut fx, out) = Fx::started(p);
    assert_eq!(segs(&out), vec![0, 1, 2, 3]);
    assert_eq!(
        segs(&fx.ack(1)),
        vec![4],
        "cwnd 11 but only 4 segments may be outstanding"
    );
}

#[test]
fn initial_ssthresh_is_the_advertised_window() {
    let (fx, _) = Fx::started(Params::default());
    assert_eq!(fx.ssthresh(), 20.0, "ns-2: ssthresh_ = window_");
}

// ------------------------------------------------------------ fast retransmit (Reno)

#[test]
fn the_third_duplicate_ack_retransmits_the_first_unacknowledged_segment() {
    let (mut fx, _) = Fx::with_window(reno(), 10, 20.0);
    assert!(fx.dupacks(0, 2).is_empty(), "two duplicate ACKs do nothing");
    let out = fx.ack(0);
    assert_eq!(segs(&out), vec![0]);
    assert!(fx.s.in_recovery());
    // RFC 5681 eq. (4): ssthresh = max(FlightSize/2, 2·SMSS); cwnd = ssthresh + 3·SMSS
    assert_eq!(fx.ssthresh(), 5.0);
    assert_eq!(fx.cwnd(), 8.0);
    assert_eq!(fx.s.stats().fast_recoveries, 1);
    assert_eq!(fx.s.stats().retransmitted_segments, 1);
}

#[test]
fn ssthresh_never_falls_below_two_segments() {
    let p = Params {
        dupack_threshold: 2,
        ..reno()
    };
    let (mut fx, _) = Fx::with_window(p, 3, 20.0);
    fx.dupacks(0, 2);
    assert_eq!(fx.ssthresh(), 2.0, "FlightSize 3 → 1.5, raised to 2");
}

#[test]
fn each_further_duplicate_ack_inflates_cwnd_and_releases_new_data() {
    let (mut fx, _) = Fx::with_window(reno(), 10, 20.0);
    fx.dupacks(0, 3);
    assert!(
        fx.dupacks(0, 2).is_empty(),
        "cwnd 10 = FlightSize: nothing new yet"
    );
    assert_eq!(fx.cwnd(), 10.0);
    assert_eq!(segs(&fx.ack(0)), vec![10], "cwnd 11 > FlightSize 10");
    assert_eq!(segs(&fx.ack(0)), vec![11]);
}

#[test]
fn the_next_new_ack_deflates_cwnd_to_ssthresh_and_ends_reno_recovery() {
    let (mut fx, _) = Fx::with_window(reno(), 10, 20.0);
    fx.dupacks(0, 5);
    // a partial ACK is enough for Reno
    let out = fx.ack(4);
    assert!(!fx.s.in_recovery());
    assert_eq!(
        fx.cwnd(),
        5.0,
        "deflated, not opened (RFC 5681 §3.2 step 6)"
    );
    assert!(out.is_empty(), "6 segments still outstanding > cwnd 5");
}

#[test]
fn reno_fast_retransmits_again_in_the_same_window_but_not_in_ns2_mode() {
    // RFC 5681 has no `recover`: three more duplicate ACKs cut the window again
    let (mut fx, _) = Fx::with_window(reno(), 10, 20.0);
    fx.dupacks(0, 3);
    fx.ack(4);
    assert_eq!(segs(&fx.dupacks(4, 3)), vec![4]);
    assert_eq!(fx.s.stats().fast_recoveries, 2);
    assert_eq!(fx.ssthresh(), 3.0, "FlightSize 6 / 2");
    // ns-2's bugFix_: no second fast retransmit below recover — a timeout will follow
    // (segment 0 acknowledged first: ns-2 never fast-retransmits it)
    let p = Params {
        variant: Variant::Reno,
        ..Params::ns2()
    };
    let (mut fx, _) = Fx::with_window(p, 10, 20.0);
    fx.ack(1);
    fx.dupacks(1, 3);
    fx.ack(4);
    assert!(fx.dupacks(4, 3).is_empty());
    assert_eq!(fx.s.stats().fast_recoveries, 1);
}

#[test]
fn ns2_mode_halves_the_window_rather_than_the_flight_and_opens_cwnd_on_exit() {
    let p = Params {
        variant: Variant::Reno,
        ..Params::ns2()
    };
    let (mut fx, _) = Fx::with_window(p, 9, 20.0);
    fx.ack(1); // segments 1..=9 in flight (ns-2 delay_growth_ keeps cwnd at 9)
    fx.dupacks(1, 3);
    assert_eq!(fx.ssthresh(), 4.0, "⌊9/2⌋");
    assert_eq!(fx.cwnd(), 7.5, "9/2 + 3");
    fx.ack(10);
    assert!(
        close(fx.cwnd(), 4.5 + 1.0 / 4.5),
        "deflated to 4.5, then opened by the same ACK"
    );
    // the RFC sender deflates to FlightSize/2 = 4.5 and leaves it there
    let (mut fx, _) = Fx::with_window(reno(), 9, 20.0);
    fx.dupacks(0, 3);
    assert_eq!(fx.ssthresh(), 4.5);
    fx.ack(9);
    assert_eq!(fx.cwnd(), 4.5);
}

// ------------------------------------------------------------ NewReno

#[test]
fn a_partial_ack_retransmits_the_next_hole_and_deflates_by_what_it_acknowledged() {
    // segments 0 and 5 lost out of 0..10
    let (mut fx, _) = Fx::with_window(newreno(), 10, 20.0);
    assert_eq!(segs(&fx.dupacks(0, 3)), vec![0]);
    assert_eq!(segs(&fx.dupacks(0, 5)), vec![10, 11, 12], "cwnd 8 + 5 = 13");
    // the retransmitted 0 fills the first hole: ACK 5 is partial (recover = 10)
    let out = fx.ack(5);
    assert!(
        fx.s.in_recovery(),
        "NewReno stays in recovery on a partial ACK"
    );
    assert_eq!(
        segs(&out),
        vec![5, 13],
        "the next hole, then one new segment"
    );
    // RFC 6582: cwnd − 5 acknowledged + 1
    assert_eq!(fx.cwnd(), 9.0);
    // a full ACK (all of 0..10) ends recovery with cwnd = ssthresh
    fx.ack(11);
    assert!(!fx.s.in_recovery());
    assert_eq!(fx.cwnd(), 5.0);
}

#[test]
fn only_the_first_partial_ack_restarts_the_retransmission_timer() {
    let (mut fx, _) = Fx::with_window(newreno(), 10, 20.0);
    fx.at(100).dupacks(0, 3);
    fx.at(200).ack(3);
    let first = fx.timer_deadline().unwrap();
    assert_eq!(first, at_ms(200) + fx.s.rto());
    fx.at(300).ack(6);
    assert_eq!(
        fx.timer_deadline().unwrap(),
        first,
        "RFC 6582: impatient variant"
    );
    fx.at(400).ack(10);
    assert_eq!(
        fx.timer_deadline().unwrap(),
        at_ms(400) + fx.s.rto(),
        "a full ACK restarts it"
    );
}

#[test]
fn newreno_does_not_fast_retransmit_for_data_sent_before_a_timeout() {
    let (mut fx, _) = Fx::with_window(newreno(), 4, 20.0);
    assert_eq!(segs(&fx.expire()), vec![0]);
    // duplicates of the go-back-N resend make duplicate ACKs of data below `recover`
    assert!(fx.dupacks(0, 3).is_empty(), "RFC 6582 §3.2 step 1");
    assert!(!fx.s.in_recovery());
    assert_eq!(fx.s.stats().fast_recoveries, 0);
}

// ------------------------------------------------------------ timeouts

#[test]
fn a_timeout_sets_cwnd_to_one_segment_halves_ssthresh_and_resends_from_snd_una() {
    let (mut fx, _) = Fx::with_window(newreno(), 8, 20.0);
    assert_eq!(segs(&fx.at(100).ack(2)), vec![8, 9, 10]);
    assert_eq!(
        fx.s.rto(),
        SimDuration::from_secs(1),
        "RTT 100 ms, RTO clamped to 1 s"
    );
    let out = fx.expire();
    assert_eq!(fx.now, at_ms(1100));
    assert_eq!(segs(&out), vec![2], "the first unacknowledged segment");
    assert_eq!(fx.cwnd(), 1.0);
    assert_eq!(fx.ssthresh(), 4.5, "FlightSize 9 segments / 2");
    assert_eq!(fx.s.rto(), SimDuration::from_secs(2), "backed off");
    // go-back-N: the next ACK slow-starts and resends 3 and 4, already sent once
    assert_eq!(segs(&fx.at(1200).ack(3)), vec![3, 4]);
    assert_eq!(fx.s.stats().retransmitted_segments, 3);
}

#[test]
fn each_expiry_doubles_the_rto_and_only_the_first_cuts_ssthresh() {
    let (mut fx, _) = Fx::with_window(newreno(), 8, 20.0);
    let mut times = vec![];
    for _ in 0..3 {
        assert_eq!(segs(&fx.expire()), vec![0]);
        times.push(fx.now.as_secs_f64());
    }
    assert_eq!(times, vec![1.0, 3.0, 7.0], "RTO 1, 2, 4 s");
    assert_eq!(
        fx.ssthresh(),
        4.0,
        "RFC 5681 §3.1: not cut again for the same segment"
    );
    assert_eq!(fx.s.stats().timeouts, 3);
    // ns-2 halves min(cwnd, rwnd) again at every timeout: ⌊1/2⌋ → 2 segments
    let p = Params {
        variant: Variant::NewReno,
        ..Params::ns2()
    };
    let (mut fx, _) = Fx::with_window(p, 8, 20.0);
    fx.expire();
    assert_eq!(fx.ssthresh(), 4.0);
    fx.expire();
    assert_eq!(fx.ssthresh(), 2.0);
}

#[test]
fn karn_a_retransmitted_segment_gives_no_rtt_sample() {
    let (mut fx, _) = Fx::started(newreno());
    fx.expire(); // segment 0 resent at 1 s
    fx.at(1050).ack(1);
    assert_eq!(
        fx.s.stats().rtt_samples,
        0,
        "ambiguous: original or retransmission?"
    );
    assert_eq!(
        fx.s.rto(),
        SimDuration::from_secs(2),
        "the backoff stays until a valid sample"
    );
    // segments 1 and 2 left at 1.05 s, sent once: the next ACK times segment 1
    fx.at(1150).ack(2);
    assert_eq!(fx.s.stats().rtt_samples, 1);
    assert!(close(fx.s.stats().rtt_mean_s, 0.1));
    assert_eq!(
        fx.s.rto(),
        SimDuration::from_secs(1),
        "a valid sample ends the backoff"
    );
}

#[test]
fn one_segment_per_round_trip_is_timed() {
    let (mut fx, _) = Fx::with_window(Params::default(), 4, 20.0);
    for k in 1..=4 {
        fx.at(100 + k).ack(k);
    }
    assert_eq!(
        fx.s.stats().rtt_samples,
        1,
        "segment 0 only; segment 4 is timed next"
    );
    fx.at(250).ack(5);
    assert_eq!(fx.s.stats().rtt_samples, 2);
    let st = fx.s.stats();
    assert!(close(st.rtt_mean_s, (0.101 + 0.149) / 2.0));
    assert!(close(st.rtt_std_s, 0.024));
}

#[test]
fn acknowledging_everything_stops_the_timer() {
    let p = Params {
        transfer_bytes: Some(3 * MSS),
        ..Params::default()
    };
    let (mut fx, _) = Fx::started(p);
    assert!(fx.timer_deadline().is_some(), "RFC 6298 (5.1)");
    fx.at(100).ack(1);
    assert!(fx.timer_deadline().is_some());
    fx.at(200).ack(3);
    assert_eq!(fx.timer_deadline(), None, "RFC 6298 (5.2)");
}

// ------------------------------------------------------------ ECN

fn ecn() -> Params {
    Params {
        ecn: true,
        ..newreno()
    }
}

#[test]
fn ece_halves_cwnd_once_per_window_and_the_next_new_segment_carries_cwr() {
    let (mut fx, out) = Fx::with_window(ecn(), 8, 20.0);
    assert!(
        out.iter().all(|p| p.ecn == Ecn::Ect0),
        "RFC 3168 §6.1: data is ECT(0)"
    );
    assert!(fx.ack_with(1, flags::ECE, &[]).is_empty());
    assert_eq!(fx.cwnd(), 4.0);
    assert_eq!(fx.ssthresh(), 4.0, "FlightSize 8 / 2");
    assert_eq!(fx.s.stats().ecn_reductions, 1);
    // more ECE from the same window: no further cut, and no growth either
    fx.ack_with(2, flags::ECE, &[]);
    assert_eq!(fx.cwnd(), 4.0);
    assert_eq!(fx.s.stats().ecn_reductions, 1);
    let out = fx.ack(5);
    assert_eq!(segs(&out), vec![8]);
    assert_ne!(
        out[0].th.flags & flags::CWR,
        0,
        "RFC 3168 §6.1.2: CWR on the next new segment"
    );
    let out = fx.ack(6);
    assert_eq!(out[0].th.flags & flags::CWR, 0, "once");
    // an ECE for data sent after the reduction cuts again
    fx.ack_with(9, flags::ECE, &[]);
    assert_eq!(fx.s.stats().ecn_reductions, 2);
}

#[test]
fn retransmissions_are_not_ecn_capable_and_do_not_carry_cwr() {
    let (mut fx, _) = Fx::with_window(ecn(), 4, 20.0);
    let out = fx.dupacks(0, 3);
    assert_eq!(out[0].ecn, Ecn::NotEct, "RFC 3168 §6.1.5");
    assert_eq!(out[0].th.flags & flags::CWR, 0);
    // ns-2 marks retransmissions ECT and puts CWR on them (SetCWRonRetransmit_)
    let p = Params {
        ecn: true,
        variant: Variant::NewReno,
        ..Params::ns2()
    };
    let (mut fx, _) = Fx::with_window(p, 4, 20.0);
    fx.ack(1);
    let out = fx.dupacks(1, 3);
    assert_eq!(segs(&out)[0], 1);
    assert_eq!(out[0].ecn, Ecn::Ect0);
    assert_ne!(out[0].th.flags & flags::CWR, 0);
}

#[test]
fn a_loss_in_a_window_already_cut_by_ecn_is_resent_without_a_second_cut() {
    let (mut fx, _) = Fx::with_window(ecn(), 8, 20.0);
    fx.ack_with(1, flags::ECE, &[]);
    assert_eq!(fx.cwnd(), 4.0);
    assert_eq!(segs(&fx.dupacks(1, 3)), vec![1]);
    assert_eq!(fx.ssthresh(), 4.0, "not halved again");
    assert_eq!(fx.cwnd(), 7.0, "the ECN-reduced window, inflated by 3");
}

// ------------------------------------------------------------ finite transfers

#[test]
fn a_finite_transfer_ends_with_a_short_segment_and_completes_when_all_is_acked() {
    let p = Params {
        transfer_bytes: Some(2500),
        initial_window_segments: 4,
        ..Params::default()
    };
    let (mut fx, out) = Fx::started(p);
    let lens: Vec<_> = out
        .iter()
        .map(|p| (p.th.seq, p.th.payload, p.size))
        .collect();
    assert_eq!(
        lens,
        vec![(0, 960, 1000), (960, 960, 1000), (1920, 580, 620)]
    );
    fx.at(100).deliver(ack(1920, 0, &[]));
    assert!(!fx.s.is_complete());
    assert!(fx.at(150).deliver(ack(2500, 0, &[])).is_empty());
    assert!(fx.s.is_complete());
    assert!(close(fx.s.stats().completion_time_s.unwrap(), 0.15));
    assert!(fx.h.flow.source_done);
    assert_eq!(fx.h.flow.completed_at, Some(at_ms(150)));
    assert_eq!(fx.s.stats().bytes_sent, 2500);
}

#[test]
fn an_empty_transfer_completes_at_once() {
    let (fx, out) = Fx::started(Params {
        transfer_bytes: Some(0),
        ..Params::default()
    });
    assert!(out.is_empty());
    assert!(fx.s.is_complete());
    assert!(fx.h.flow.source_done);
}

// ------------------------------------------------------------ handshake

fn handshake() -> Params {
    Params {
        handshake: true,
        ecn: true,
        variant: Variant::Sack,
        initial_window_segments: 2,
        ..Params::default()
    }
}

#[test]
fn with_the_handshake_a_syn_goes_first_and_data_follows_the_syn_ack() {
    let (mut fx, out) = Fx::started(handshake());
    assert_eq!(out.len(), 1);
    let syn = out[0];
    assert_eq!(
        syn.th.flags,
        flags::SYN | flags::ECE | flags::CWR | flags::SACK_PERMITTED,
        "ECN-setup SYN"
    );
    assert_eq!((syn.size, syn.th.payload, syn.ecn), (40, 0, Ecn::NotEct));
    let synack = ack(0, flags::SYN | flags::ECE | flags::SACK_PERMITTED, &[]);
    let out = fx.at(100).deliver(synack);
    assert_eq!(segs(&out), vec![0, 1]);
    assert!(out
        .iter()
        .all(|p| p.ecn == Ecn::Ect0 && p.th.flags & flags::ACK != 0));
    assert!(fx.s.ecn_active());
    assert_eq!(fx.s.variant(), Variant::Sack);
    assert_eq!(fx.s.stats().rtt_samples, 1, "the SYN's round trip is timed");
}

#[test]
fn a_syn_ack_without_ece_or_sack_permitted_turns_them_off() {
    let (mut fx, _) = Fx::started(handshake());
    let out = fx.at(100).deliver(ack(0, flags::SYN, &[]));
    assert!(out.iter().all(|p| p.ecn == Ecn::NotEct));
    assert!(!fx.s.ecn_active());
    assert_eq!(
        fx.s.variant(),
        Variant::NewReno,
        "SACK falls back to NewReno"
    );
    // a SYN-ACK that echoes both ECE and CWR is not an ECN-setup SYN-ACK (RFC 3168 §6.1.1)
    let (mut fx, _) = Fx::started(handshake());
    fx.at(100)
        .deliver(ack(0, flags::SYN | flags::ECE | flags::CWR, &[]));
    assert!(!fx.s.ecn_active());
}

#[test]
fn a_lost_syn_is_resent_with_backoff_and_data_then_starts_with_one_segment() {
    let (mut fx, _) = Fx::started(handshake());
    let out = fx.expire();
    assert_eq!(
        (fx.now, out[0].th.flags & flags::SYN),
        (at_ms(1000), flags::SYN)
    );
    fx.expire();
    assert_eq!(fx.now, at_ms(3000), "RTO doubled to 2 s");
    let out = fx
        .at(3100)
        .deliver(ack(0, flags::SYN | flags::ECE | flags::SACK_PERMITTED, &[]));
    assert_eq!(
        segs(&out),
        vec![0],
        "RFC 5681 §3.1: initial window of one segment"
    );
    assert_eq!(
        fx.s.stats().rtt_samples,
        0,
        "Karn: no sample from a resent SYN"
    );
    assert_eq!(fx.s.rto(), SimDuration::from_secs(3), "RFC 6298 §5.7");
}

#[test]
fn without_the_handshake_ecn_and_sack_are_taken_as_agreed() {
    let p = Params {
        ecn: true,
        variant: Variant::Sack,
        ..Params::default()
    };
    let (fx, out) = Fx::started(p);
    assert_eq!(out[0].ecn, Ecn::Ect0);
    assert_eq!(out[0].th.flags, 0, "ns-2 one-way TCP: no SYN, no ACK flag");
    assert_eq!(fx.s.variant(), Variant::Sack);
}

// ------------------------------------------------------------ limited transmit

#[test]
fn limited_transmit_sends_a_new_segment_on_each_of_the_first_two_duplicate_acks() {
    let p = Params {
        limited_transmit: true,
        ..newreno()
    };
    let (mut fx, _) = Fx::with_window(p, 4, 20.0);
    assert_eq!(segs(&fx.ack(0)), vec![4]);
    assert_eq!(segs(&fx.ack(0)), vec![5]);
    assert_eq!(fx.cwnd(), 4.0, "cwnd unchanged (RFC 3042)");
    assert_eq!(segs(&fx.ack(0)), vec![0]);
    assert_eq!(
        fx.ssthresh(),
        2.0,
        "FlightSize counts the 4 segments sent before, not the 2 extra"
    );
}

fn ns2_newreno() -> Params {
    Params {
        variant: Variant::NewReno,
        ..Params::ns2()
    }
}

#[test]
fn ns2_limited_transmit_resends_old_segments_during_go_back_n() {
    // ns-2 TcpAgent::send_one sends t_seqno_, which a timeout pulled back to SND.UNA
    let lt = |p: Params| Params {
        limited_transmit: true,
        ..p
    };
    for (p, first, second) in [
        (lt(ns2_newreno()), vec![4], vec![5]),
        (lt(newreno()), vec![], vec![]),
    ] {
        let (mut fx, _) = Fx::with_window(p, 8, 20.0);
        assert_eq!(segs(&fx.expire()), vec![0]);
        // segment 0 arrives; the receiver also held 1: slow start from one segment
        // resends 2 and 3 (go-back-N)
        assert_eq!(segs(&fx.at(3100).ack(2)), vec![2, 3]);
        assert_eq!(fx.cwnd(), 2.0);
        // two duplicate ACKs (the receiver holds 2 and 3 already): ns-2 sends the next
        // segment to send, 4 then 5, while at most cwnd + dupacks would be outstanding
        assert_eq!(segs(&fx.ack(2)), first, "ns2 {}", p.ns2_compat);
        assert_eq!(segs(&fx.ack(2)), second);
        let resent = fx.s.stats().retransmitted_segments;
        assert_eq!(
            resent,
            if p.ns2_compat { 5 } else { 3 },
            "0, 2, 3 (and 4, 5 by limited transmit)"
        );
    }
}

#[test]
fn ns2_limited_transmit_allows_cwnd_plus_the_duplicate_acks_so_far() {
    // 4 segments outstanding, cwnd 3.5: ns-2 lets the flight grow to cwnd + 1 on the first
    // duplicate ACK and cwnd + 2 on the second; RFC 3042 to cwnd + 2 on both
    for (p, first, second) in [
        (ns2_newreno(), vec![], vec![4]),
        (newreno(), vec![4], vec![]),
    ] {
        let (mut fx, _) = Fx::with_window(
            Params {
                limited_transmit: true,
                ..p
            },
            4,
            20.0,
        );
        fx.s.set_window(3.5, 20.0);
        assert_eq!(
            segs(&fx.ack(0)),
            first,
            "ns2 {}: 5 outstanding",
            p.ns2_compat
        );
        assert_eq!(segs(&fx.ack(0)), second);
    }
}

#[test]
fn ns2_the_ack_of_segment_0_alone_resets_cwnd_to_the_initial_window() {
    // ns-2 delay_growth_: 2, 3, 6, ... segments per round trip instead of 2, 4, 8
    let (mut fx, out) = Fx::started(Params {
        initial_window_segments: 2,
        ..ns2_newreno()
    });
    assert_eq!(segs(&out), vec![0, 1]);
    assert_eq!(segs(&fx.at(100).ack(1)), vec![2], "cwnd 2, not 3");
    assert_eq!(fx.cwnd(), 2.0);
    assert_eq!(segs(&fx.ack(2)), vec![3, 4]);
    assert_eq!(segs(&fx.ack(3)), vec![5, 6]);
    assert_eq!(fx.cwnd(), 4.0);
    // the RFC sender grows at once; so does ns-2 with a handshake (the SYN-ACK is that ACK)
    let rfc = Params {
        initial_window_segments: 2,
        ..newreno()
    };
    let syn = Params {
        handshake: true,
        ..rfc
    };
    let (mut fx, _) = Fx::started(rfc);
    assert_eq!(segs(&fx.at(100).ack(1)), vec![2, 3]);
    let (mut fx, _) = Fx::started(Params {
        ns2_compat: true,
        ..syn
    });
    fx.at(50).deliver(ack(0, flags::SYN, &[]));
    assert_eq!(segs(&fx.at(150).ack(1)), vec![2, 3]);
}

#[test]
fn ns2_after_segment_0_times_out_its_ack_sets_cwnd_to_one_segment() {
    // ns-2 bugfix_ss_: a lost first segment turns the initial window into one segment
    let (mut fx, _) = Fx::started(Params {
        initial_window_segments: 2,
        ..ns2_newreno()
    });
    assert_eq!(segs(&fx.expire()), vec![0]);
    assert_eq!(
        segs(&fx.at(3100).ack(1)),
        vec![1],
        "cwnd 1: segment 1 again, alone"
    );
    assert_eq!(fx.cwnd(), 1.0);
    assert_eq!(segs(&fx.ack(2)), vec![2, 3]);
}

fn ns2_ecn() -> Params {
    Params {
        ecn: true,
        ..ns2_newreno()
    }
}

/// An ns-2 ECN sender that has seen ECN-Echo on a new ACK before (ns-2 `ect_` set), so
/// that ECN-Echo no longer opens cwnd.
fn ns2_ecn_seen(w: u32) -> Fx {
    let (mut fx, _) = Fx::with_window(ns2_ecn(), w, 20.0);
    fx.s.ns2.ece_seen = true;
    fx
}

#[test]
fn ns2_packet_0_carries_ecn_echo_so_its_ack_ends_window_growth_on_ecn_echo_for_good() {
    // ns-2.35 tcp.cc TcpAgent::output, packet 0 with `syn_` false: `if (ecn_) {
    // hf->ecnecho() = 1; hf->ect() = 0; }`; TcpSink::ack echoes it (the receiver's
    // negotiated_echo); RenoTcpAgent::recv → TcpAgent::ecn(0) does nothing (seqno 0 is not
    // beyond recover_ 0) and recv_newack_helper opens cwnd and sets `ect_`, so from then on
    // an ECN-Echo ACK never opens cwnd (`if (!ect_ || !ecnecho || ...) opencwnd()`)
    let (mut fx, out) = Fx::started(Params {
        variant: Variant::Reno,
        ecn: true,
        ..Params::ns2()
    });
    assert_eq!(segs(&out), vec![0]);
    assert_eq!(
        (out[0].ecn, out[0].th.flags & flags::ECE),
        (Ecn::NotEct, flags::ECE)
    );
    // the ACK of packet 0, with the negotiation's ECN-Echo: no reduction; `delay_growth_`
    // leaves cwnd at the initial window
    let out = fx.at(100).ack_with(1, flags::ECE, &[]);
    assert_eq!(segs(&out), vec![1]);
    assert_eq!((out[0].ecn, out[0].th.flags & flags::ECE), (Ecn::Ect0, 0));
    assert_eq!(fx.s.stats().ecn_reductions, 0);
    assert_eq!(segs(&fx.at(200).ack(2)), vec![2, 3], "slow start: cwnd 2");
    // a (spurious) timeout resends 2 from cwnd 1; the late ACK of 2, CE-marked on its way,
    // halves cwnd to 0.5 (`ecn` after CWND_ACTION_TIMEOUT) and, `ect_` being set since
    // packet 0, does not open it: nothing goes out until the timer expires again
    assert_eq!(segs(&fx.expire()), vec![2]);
    assert!(
        fx.ack_with(3, flags::ECE, &[]).is_empty(),
        "cwnd 0.5: nothing to send"
    );
    assert_eq!((fx.cwnd(), fx.ssthresh()), (0.5, 2.0));
    assert_eq!(fx.s.stats().ecn_reductions, 1);
    assert!(
        fx.ack_with(4, flags::ECE, &[]).is_empty(),
        "nor on the next ECN-Echo ACK"
    );
    assert_eq!(fx.cwnd(), 0.5);
}

#[test]
fn the_rfc_sender_sends_packet_0_without_ecn_echo() {
    let (_, out) = Fx::started(Params {
        ecn: true,
        ..Params::default()
    });
    assert_eq!(out[0].th.flags & flags::ECE, 0);
}

#[test]
fn ns2_the_first_ecn_echo_on_a_new_ack_still_opens_cwnd() {
    // ns-2 recv_newack_helper opens cwnd unless `ect_`, which that same ACK only sets
    let (mut fx, _) = Fx::with_window(ns2_ecn(), 8, 20.0);
    assert!(fx.ack_with(2, flags::ECE, &[]).is_empty());
    assert_eq!(
        (fx.cwnd(), fx.ssthresh()),
        (4.25, 4.0),
        "halved to 4, then + 1/4"
    );
    assert_eq!(segs(&fx.ack(6)), vec![8, 9]);
    let before = fx.cwnd();
    fx.ack_with(9, flags::ECE, &[]);
    assert_eq!(
        fx.cwnd(),
        before / 2.0,
        "the next one (a new window) halves, and does not open"
    );
}

#[test]
fn ns2_ecn_echo_after_a_timeout_halves_cwnd_below_one_segment_and_the_sender_waits() {
    // ns-2 TcpAgent::ecn reacts when the last window action was a timeout, whatever the
    // window; the RFC sender ignores ECN-Echo for data sent before the reduction
    let mut fx = ns2_ecn_seen(8);
    assert_eq!(segs(&fx.expire()), vec![0]);
    assert_eq!(
        (fx.now, fx.s.rto()),
        (at_ms(3000), SimDuration::from_secs(6))
    );
    assert!(
        fx.at(3100).ack_with(2, flags::ECE, &[]).is_empty(),
        "cwnd 0.5: nothing to send"
    );
    assert_eq!((fx.cwnd(), fx.ssthresh()), (0.5, 2.0));
    assert_eq!(fx.s.stats().ecn_reductions, 1);
    // the timer runs on: at 3.1 + 6 s it resends segment 2, go-back-N from one segment,
    // without cutting ssthresh (the reduction was ECN's), backed off again
    assert_eq!(segs(&fx.expire()), vec![2]);
    assert_eq!(fx.now, at_ms(9100));
    assert_eq!((fx.cwnd(), fx.ssthresh()), (1.0, 2.0));
    assert_eq!(fx.s.rto(), SimDuration::from_secs(12));
    // another ECN-Echo at cwnd <= 1 (ecn_backoff_) backs the timer off once more
    assert!(fx.at(9200).ack_with(3, flags::ECE, &[]).is_empty());
    assert_eq!(fx.s.rto(), SimDuration::from_secs(24));
    assert_eq!((fx.s.stats().timeouts, fx.s.stats().ecn_reductions), (2, 2));
    // the RFC sender keeps one segment going
    let (mut fx, _) = Fx::with_window(ecn(), 8, 20.0);
    fx.expire();
    assert_eq!(segs(&fx.at(1100).ack_with(2, flags::ECE, &[])), vec![2]);
    assert_eq!(fx.s.stats().ecn_reductions, 0);
}

#[test]
fn ns2_a_timeout_that_ends_an_ecn_reduction_leaves_ssthresh_where_ecn_set_it() {
    let mut fx = ns2_ecn_seen(8);
    assert!(fx.ack_with(2, flags::ECE, &[]).is_empty());
    assert_eq!((fx.cwnd(), fx.ssthresh()), (4.0, 4.0));
    assert_eq!(segs(&fx.expire()), vec![2]);
    assert_eq!((fx.cwnd(), fx.ssthresh()), (1.0, 4.0), "not halved to 2");
    // a timeout without an ECN reduction before it halves the window
    let (mut fx, _) = Fx::with_window(ns2_newreno(), 8, 20.0);
    fx.ack(2);
    fx.s.set_window(4.0, 4.0);
    assert_eq!(segs(&fx.expire()), vec![2]);
    assert_eq!(fx.ssthresh(), 2.0);
}

#[test]
fn ns2_an_ecn_echo_at_one_segment_keeps_the_timer_and_its_expiry_restarts_the_sender() {
    let mut fx = ns2_ecn_seen(1);
    assert_eq!(segs(&fx.at(100).ack(1)), vec![1]);
    assert!(fx.at(200).ack_with(2, flags::ECE, &[]).is_empty());
    assert_eq!(fx.cwnd(), 0.5);
    let deadline = fx
        .timer_deadline()
        .expect("ns-2 newtimer: kept while cwnd < 1");
    assert_eq!(deadline, at_ms(200) + fx.s.rto());
    let rto = fx.s.rto();
    assert_eq!(
        segs(&fx.expire()),
        vec![2],
        "nothing outstanding: cwnd 1, the next segment"
    );
    assert_eq!(
        (fx.now, fx.cwnd(), fx.s.rto()),
        (deadline, 1.0, rto),
        "no backoff"
    );
    assert_eq!(fx.s.stats().timeouts, 1);
    // the RFC sender keeps a segment's window and sends at once
    let (mut fx, _) = Fx::with_window(ecn(), 1, 20.0);
    assert_eq!(segs(&fx.at(100).ack_with(1, flags::ECE, &[])), vec![1]);
    assert_eq!(fx.cwnd(), 1.0);
}

// ------------------------------------------------------------ SACK

#[test]
fn with_sack_the_third_duplicate_ack_starts_recovery_with_cwnd_equal_to_ssthresh() {
    let (mut fx, _) = Fx::with_window(sack_params(), 10, 20.0);
    fx.ack_with(0, 0, &[sack(1, 2)]);
    fx.ack_with(0, 0, &[sack(1, 3)]);
    let out = fx.ack_with(0, 0, &[sack(1, 4)]);
    assert_eq!(segs(&out), vec![0]);
    assert_eq!((fx.cwnd(), fx.ssthresh()), (5.0, 5.0), "RFC 6675 §5 (4.2)");
    // pipe = 1 (retransmitted 0) + 6 (4..10) = 7 ≥ cwnd: nothing more until it drains
    assert!(fx.ack_with(0, 0, &[sack(1, 5)]).is_empty());
    assert!(fx.ack_with(0, 0, &[sack(1, 6)]).is_empty(), "pipe 5 = cwnd");
    assert_eq!(
        segs(&fx.ack_with(0, 0, &[sack(1, 7)])),
        vec![10],
        "pipe 4: one new segment"
    );
    assert_eq!(segs(&fx.ack_with(0, 0, &[sack(1, 8)])), vec![11]);
}

#[test]
fn sack_recovery_resends_every_lost_segment_within_one_round_trip() {
    // 0, 2 and 4 lost out of 0..10: the receiver's SACKs as segments 1, 3, 5.. arrive
    let (mut fx, _) = Fx::with_window(sack_params(), 10, 20.0);
    fx.ack_with(0, 0, &[sack(1, 2)]);
    fx.ack_with(0, 0, &[sack(3, 4), sack(1, 2)]);
    let mut rtx = fx.ack_with(0, 0, &[sack(5, 6), sack(3, 4), sack(1, 2)]);
    for top in 7..=10 {
        rtx.extend(fx.ack_with(0, 0, &[sack(5, top), sack(3, 4), sack(1, 2)]));
    }
    let resent: Vec<_> = rtx
        .iter()
        .filter(|p| p.th.seq < 10 * MSS)
        .map(|p| p.th.seq / MSS)
        .collect();
    assert_eq!(
        resent,
        vec![0, 2, 4],
        "all three holes before any ACK advances"
    );
    assert!(fx.s.in_recovery());
    // the retransmissions arrive: the cumulative ACK passes RecoveryPoint (10)
    fx.ack_with(12, 0, &[]);
    assert!(!fx.s.in_recovery());
    assert_eq!(fx.cwnd(), 5.0);
    assert_eq!(fx.s.stats().timeouts, 0);
}

#[test]
fn with_sack_a_duplicate_ack_that_sacks_nothing_new_is_not_counted() {
    let (mut fx, _) = Fx::with_window(sack_params(), 10, 20.0);
    for _ in 0..3 {
        fx.ack_with(0, 0, &[sack(1, 2)]);
    }
    assert!(
        !fx.s.in_recovery(),
        "RFC 6675 §2: only one of the three is a duplicate ACK"
    );
}

#[test]
fn after_a_timeout_sacked_segments_are_not_resent() {
    let (mut fx, _) = Fx::with_window(sack_params(), 6, 20.0);
    fx.ack_with(0, 0, &[sack(2, 4)]);
    fx.ack_with(0, 0, &[sack(2, 5)]); // two duplicate ACKs, no recovery
    assert_eq!(segs(&fx.expire()), vec![0]);
    assert_eq!(segs(&fx.ack(1)), vec![1, 5], "RFC 6675 §5.1: 2..5 skipped");
}

fn ns2_sack() -> Params {
    Params {
        variant: Variant::Sack,
        ..Params::ns2()
    }
}

/// ns-2 Sack1 with segments 1..=10 in flight (segment 0 acknowledged, window 10).
fn sack1_in_flight() -> Fx {
    let (mut fx, _) = Fx::with_window(ns2_sack(), 10, 20.0);
    assert_eq!(
        segs(&fx.ack(1)),
        vec![10],
        "delay_growth_: cwnd back to the initial 10"
    );
    fx
}

#[test]
fn ns2_sack_resends_each_hole_below_the_highest_sack_in_order_while_pipe_is_below_cwnd() {
    // 1, 3 and 5 lost; ns-2 Sack1: pipe = 10 outstanding − 3 = 7 at the fast retransmit,
    // one less per ACK, one more per segment sent; cwnd 5
    let mut fx = sack1_in_flight();
    assert!(fx.ack_with(1, 0, &[sack(2, 3)]).is_empty());
    assert!(fx.ack_with(1, 0, &[sack(4, 5), sack(2, 3)]).is_empty());
    assert_eq!(
        segs(&fx.ack_with(1, 0, &[sack(6, 7), sack(4, 5), sack(2, 3)])),
        vec![1]
    );
    assert_eq!((fx.cwnd(), fx.ssthresh()), (5.0, 5.0));
    let more = |fx: &mut Fx, top| segs(&fx.ack_with(1, 0, &[sack(6, top), sack(4, 5), sack(2, 3)]));
    assert!(more(&mut fx, 8).is_empty(), "pipe 6");
    assert!(more(&mut fx, 9).is_empty(), "pipe 5");
    assert_eq!(
        more(&mut fx, 10),
        vec![3],
        "pipe 4: the first hole above the last resent"
    );
    assert_eq!(more(&mut fx, 11), vec![5]);
    // a partial ACK takes two from pipe: no hole below the highest SACK is left, so new data
    assert_eq!(
        segs(&fx.ack_with(3, 0, &[sack(6, 11), sack(4, 5)])),
        vec![11, 12]
    );
    assert_eq!(segs(&fx.ack_with(5, 0, &[sack(6, 11)])), vec![13, 14]);
    assert!(fx.s.in_recovery());
    // the ACK of everything sent before the fast retransmit ends recovery; cwnd stays 5
    fx.ack(11);
    assert!(!fx.s.in_recovery());
    assert_eq!(fx.cwnd(), 5.0);
    assert_eq!(fx.s.stats().retransmitted_segments, 3);
}

#[test]
fn ns2_sack_the_fast_retransmit_sends_the_retransmission_alone() {
    // Segments 1..=4 in flight (window 4), 1 lost. At the third duplicate ACK ns-2's Sack1
    // sets pipe_ = 4 − 3 = 1 and cwnd 2, resends 1, and sends nothing more on that ACK
    // (Sack1TcpAgent::recv calls send_much outside recovery only when dupacks_ == 0); the
    // next ACK, in recovery, takes pipe to 0 and fills the window.
    let (mut fx, _) = Fx::with_window(ns2_sack(), 4, 20.0);
    assert_eq!(segs(&fx.ack(1)), vec![4]);
    assert!(fx.ack_with(1, 0, &[sack(2, 3)]).is_empty());
    assert!(fx.ack_with(1, 0, &[sack(2, 4)]).is_empty());
    assert_eq!(
        segs(&fx.ack_with(1, 0, &[sack(2, 5)])),
        vec![1],
        "pipe 1 < cwnd 2, but no send_much"
    );
    assert_eq!(fx.cwnd(), 2.0);
    assert_eq!(segs(&fx.ack_with(1, 0, &[sack(2, 5)])), vec![5, 6]);
}

#[test]
fn ns2_sack_ignores_duplicate_acks_after_a_timeout_and_its_go_back_n_resends_sacked_data() {
    let mut fx = sack1_in_flight();
    assert_eq!(segs(&fx.expire()), vec![1]);
    for _ in 0..4 {
        assert!(
            fx.ack_with(1, 0, &[sack(2, 5)]).is_empty(),
            "Sack1 timeout_: ignored"
        );
    }
    assert!(!fx.s.in_recovery());
    // the next new ACK: slow start from one segment resends 2 and 3, which were SACKed
    assert_eq!(segs(&fx.at(3100).ack(2)), vec![2, 3]);
    // duplicate ACKs count again, but data sent before the timeout is not fast-retransmitted
    // (recover_ = maxseq_ at the timeout), and nothing SACKed is skipped
    for top in 5..8 {
        assert!(fx.ack_with(2, 0, &[sack(3, top)]).is_empty());
    }
    assert_eq!(fx.s.dupacks, 3);
    assert!(!fx.s.in_recovery());
    assert_eq!(
        segs(&fx.ack(3)),
        vec![4, 5],
        "go-back-N goes on through SACKed 4 and 5"
    );
}

/// ns-2 with ECN, segments 1..=10 in flight and an ECN-Echo already seen (`ect_`), then an
/// ECN-Echo on the ACK of segment 1: cwnd 10 → 5, `recover_` = segment 10.
fn ns2_ecn_cut_with_1_to_10_in_flight(p: Params) -> Fx {
    let (mut fx, _) = Fx::with_window(Params { ecn: true, ..p }, 10, 20.0);
    fx.s.ns2.ece_seen = true;
    assert_eq!(
        segs(&fx.ack(1)),
        vec![10],
        "delay_growth_: cwnd back to the initial 10"
    );
    assert!(fx.ack_with(2, flags::ECE, &[]).is_empty());
    assert_eq!(
        (fx.cwnd(), fx.ssthresh(), fx.s.stats().ecn_reductions),
        (5.0, 5.0, 1)
    );
    fx
}

#[test]
fn ns2_sack_an_ecn_echo_beyond_recover_in_recovery_halves_cwnd_again_and_extends_recovery() {
    // Segment 2 lost in the window the ECN-Echo already cut: the fast retransmit of
    // dupack_action's ECN branch, no second cut, recover_ left at segment 10
    let mut fx = ns2_ecn_cut_with_1_to_10_in_flight(ns2_sack());
    assert!(fx.ack_with(2, 0, &[sack(3, 4)]).is_empty());
    assert!(fx.ack_with(2, 0, &[sack(3, 5)]).is_empty());
    assert_eq!(segs(&fx.ack_with(2, 0, &[sack(3, 6)])), vec![2]);
    assert_eq!((fx.cwnd(), fx.s.stats().ecn_reductions), (5.0, 1));
    // pipe = 9 outstanding − 3 = 6, one less per ACK: new data from pipe 4 < ⌊cwnd⌋ = 5
    assert!(fx.ack_with(2, 0, &[sack(3, 7)]).is_empty());
    assert_eq!(segs(&fx.ack_with(2, 0, &[sack(3, 8)])), vec![11]);
    assert_eq!(segs(&fx.ack_with(2, 0, &[sack(3, 9)])), vec![12]);
    assert_eq!(segs(&fx.ack_with(2, 0, &[sack(3, 10)])), vec![13]);
    assert_eq!(segs(&fx.ack_with(2, 0, &[sack(3, 11)])), vec![14]);
    // The ACK of 0..=11 (the retransmitted 2 and the new 11) carries ECN-Echo. ns-2
    // Sack1TcpAgent::recv calls ecn(11) first: 11 > recover_ = 10, so cwnd 5 → 2.5,
    // ssthresh 2, recover_ = maxseq_ = 14; then `seqno >= recover_` fails and the ACK is a
    // partial one (pipe 5 − 2 = 3 ≥ ⌊2.5⌋: nothing sent)
    assert!(fx.ack_with(12, flags::ECE, &[sack(12, 13)]).is_empty());
    assert_eq!(
        (fx.cwnd(), fx.ssthresh(), fx.s.stats().ecn_reductions),
        (2.5, 2.0, 2)
    );
    assert!(fx.s.in_recovery(), "recovery now ends at segment 14");
    assert_eq!(
        segs(&fx.ack(14)),
        vec![15],
        "another partial ACK: pipe 3 − 2 = 1 < 2"
    );
    assert!(fx.s.in_recovery());
    fx.ack(15);
    assert!(!fx.s.in_recovery());
    assert_eq!(fx.cwnd(), 2.5);
    // the rfc preset (RFC 3168 §6.1.2 with RFC 6675 recovery) leaves a recovery alone
    let (mut fx, _) = Fx::with_window(
        Params {
            ecn: true,
            ..sack_params()
        },
        10,
        20.0,
    );
    fx.ack_with(1, flags::ECE, &[]);
    let cut = fx.cwnd();
    fx.ack_with(1, 0, &[sack(2, 3)]);
    fx.ack_with(1, 0, &[sack(2, 4)]);
    assert_eq!(segs(&fx.ack_with(1, 0, &[sack(2, 5)])), vec![1]);
    fx.ack_with(3, flags::ECE, &[sack(4, 5)]);
    assert_eq!((fx.cwnd().min(cut), fx.s.stats().ecn_reductions), (cut, 1));
}

#[test]
fn ns2_newreno_an_ecn_echo_beyond_recover_in_recovery_halves_the_inflated_window_and_ends_it() {
    let mut fx = ns2_ecn_cut_with_1_to_10_in_flight(ns2_newreno());
    // 2 lost: the ECN branch's fast retransmit, cwnd 5 inflated by 3, recover_ stays 10
    assert_eq!(segs(&fx.dupacks(2, 3)), vec![2]);
    assert_eq!(fx.cwnd(), 8.0);
    // 9 outstanding (2..=10): each further duplicate ACK inflates by one, new data above 9
    assert!(fx.dupacks(2, 1).is_empty());
    assert_eq!(segs(&fx.dupacks(2, 1)), vec![11]);
    assert_eq!(segs(&fx.dupacks(2, 1)), vec![12]);
    assert_eq!(fx.cwnd(), 11.0);
    // ACK of 0..=11 with ECN-Echo: ns-2 NewRenoTcpAgent::recv calls ecn(11) first (11 >
    // recover_ = 10): cwnd = windowd()/2 = (cwnd_ + dupwnd_)/2 = 11/2, ssthresh 5,
    // recover_ = 12; then last_cwnd_action_ is CWND_ACTION_ECN, so the ACK ends fast
    // recovery (dupwnd_ = 0) and no partial-ACK retransmission follows
    assert_eq!(
        segs(&fx.ack_with(12, flags::ECE, &[])),
        vec![13, 14, 15, 16],
        "12..=16: ⌊5.5⌋ outstanding"
    );
    assert_eq!(
        (fx.cwnd(), fx.ssthresh(), fx.s.stats().ecn_reductions),
        (5.5, 5.0, 2)
    );
    assert!(!fx.s.in_recovery());
    // the rfc preset: the same ACK is a partial one (RFC 6582: recover moved to 12 at the
    // fast retransmit) and its ECN-Echo is not acted on in recovery
    let (mut fx, _) = Fx::with_window(
        Params {
            ecn: true,
            ..newreno()
        },
        10,
        20.0,
    );
    fx.ack_with(1, flags::ECE, &[]);
    assert_eq!(fx.s.stats().ecn_reductions, 1);
    assert_eq!(segs(&fx.dupacks(1, 3)), vec![1]);
    fx.dupacks(1, 3);
    fx.ack_with(11, flags::ECE, &[]);
    assert_eq!(fx.s.stats().ecn_reductions, 1);
}

#[test]
fn ns2_newreno_sends_at_most_two_new_segments_per_ack_in_fast_recovery() {
    // Segments 1..=10 in flight, a receiver window of 10 segments; 1 and 5 lost
    for (p, expect) in [
        (ns2_newreno(), vec![5, 11, 12]),
        (newreno(), vec![5, 11, 12, 13, 14]),
    ] {
        let p = Params {
            max_window_bytes: 10 * MSS,
            ..p
        };
        let (mut fx, _) = Fx::with_window(p, 10, 20.0);
        fx.ack(1);
        assert_eq!(segs(&fx.dupacks(1, 3)), vec![1], "fast retransmit");
        // 6..=10 arrive: cwnd inflates to 13, but the receiver's window holds 10 out
        assert!(fx.dupacks(1, 5).is_empty());
        // The ACK of 1..=4 is a partial one: 5 is resent and 6 segments are out with room
        // for 10. ns-2.35's NewRenoTcpAgent::recv sends new data with send_much(0, 0, 2)
        // while dupacks_ ≥ 3 (partial ACKs leave it alone): 11 and 12 only.
        assert_eq!(segs(&fx.ack(5)), expect);
    }
}

#[test]
fn ns2_newreno_a_partial_ack_beyond_the_inflation_deflates_cwnd_itself() {
    // 1 lost, three duplicate ACKs (the fast retransmit), then the ACK of 1..=8 with 9
    // lost: 8 segments acknowledged against an inflation of 3. (ns-2: the ACK of segment 0
    // leaves cwnd at the initial 10, `delay_growth_`; RFC: 11, and ssthresh 5.5.)
    for (p, at_fr, after_partial, full, after_exit) in [
        (ns2_newreno(), 8.0, 2.0, 11, 2.0),
        (newreno(), 8.5, 1.5, 12, 5.5),
    ] {
        let (mut fx, _) = Fx::with_window(p, 10, 20.0);
        fx.ack(1);
        assert_eq!(segs(&fx.dupacks(1, 3)), vec![1]);
        assert_eq!(fx.cwnd(), at_fr);
        // ns-2 NewRenoTcpAgent::partialnewack: dupwnd_ (3) ≤ deflate (8), so cwnd_ −= 8 − 3
        // (5 → 0, floor 1) and dupwnd_ = 1: window 2. RFC 6582: 8.5 − 8 + 1 = 1.5.
        assert_eq!(segs(&fx.ack(9)), vec![9]);
        assert_eq!(fx.cwnd(), after_partial);
        // The full ACK ends recovery: ns-2 keeps cwnd_ (1) and opens it by one in slow
        // start (ssthresh 5); RFC 6582 deflates to ssthresh
        fx.ack(full);
        assert!(!fx.s.in_recovery());
        assert_eq!(fx.cwnd(), after_exit);
    }
}

#[test]
fn ns2_no_fast_retransmit_before_segment_0_is_acknowledged() {
    // ns-2 recover_ starts at packet 0: segment 0 lost means a timeout
    let (mut fx, _) = Fx::with_window(ns2_newreno(), 8, 20.0);
    assert!(fx.dupacks(0, 3).is_empty());
    assert!(!fx.s.in_recovery());
    let (mut fx, _) = Fx::with_window(newreno(), 8, 20.0);
    assert_eq!(
        segs(&fx.dupacks(0, 3)),
        vec![0],
        "RFC 6582: nothing to guard yet"
    );
    // with packet 0 acknowledged, the next loss is fast-retransmitted (bugfix_ss_)
    let (mut fx, _) = Fx::with_window(ns2_newreno(), 8, 20.0);
    fx.ack(1);
    assert_eq!(segs(&fx.dupacks(1, 3)), vec![1]);
}

#[test]
fn ns2_segment_0_is_not_ecn_capable_and_has_no_header_bytes() {
    // ns-2 TcpAgent::output: packet 0 is its SYN slot (ect 0, no headersize()), even
    // without a SYN
    let (mut fx, out) = Fx::started(Params {
        initial_window_segments: 2,
        ..ns2_ecn()
    });
    assert_eq!(
        out.iter().map(|p| p.ecn).collect::<Vec<_>>(),
        vec![Ecn::NotEct, Ecn::Ect0]
    );
    assert_eq!(
        out.iter()
            .map(|p| (p.size, p.th.payload))
            .collect::<Vec<_>>(),
        vec![(960, 960), (1000, 960)]
    );
    assert_eq!(fx.expire()[0].ecn, Ecn::NotEct, "nor its retransmission");
    let (_, out) = Fx::started(Params {
        initial_window_segments: 2,
        ..ecn()
    });
    assert!(out.iter().all(|p| p.ecn == Ecn::Ect0));
}

// ------------------------------------------------------------ trace

#[test]
fn the_trace_is_absent_when_off_and_records_each_change_when_on() {
    let (fx, _) = Fx::started(Params::default());
    assert!(fx.s.trace().is_none());
    let (mut fx, _) = Fx::started(Params {
        trace: true,
        ..Params::default()
    });
    fx.at(100).ack(1);
    fx.at(200).ack(3);
    let t = fx.s.trace().unwrap();
    assert_eq!(t.cwnd, vec![960.0, 1920.0, 2880.0]);
    assert_eq!(t.time_s, vec![0.0, 0.1, 0.2]);
    assert_eq!(t.bytes_in_flight, vec![960, 1920, 2880]);
    assert_eq!(t.ssthresh[0], 20.0 * 960.0);
    assert_eq!(t.rto, vec![1.0, 1.0, 1.0]);
    assert_eq!(t.srtt[1], 0.1);
}

// ------------------------------------------------------------ congestion control

/// The sender with CUBIC and BBR: what the controller changes at the sender's decision points.
mod cc;
mod prr;
mod rack;

// ---------------------------------------------------------------- byte counting (Linux)

fn counting(p: Params) -> Params {
    Params {
        byte_counting: true,
        ..p
    }
}

#[test]
fn byte_counting_slow_start_grows_by_every_segment_an_ack_covers() {
    // Linux tcp_slow_start: an ACK of two segments (a delayed ACK) adds two; RFC 5681 eq. (2)
    // adds min(N, SMSS), one
    let (mut fx, _) = Fx::with_window(counting(newreno()), 4, 20.0);
    fx.at(100).ack(2);
    assert_eq!(fx.cwnd(), 6.0);
    let (mut rfc, _) = Fx::with_window(newreno(), 4, 20.0);
    rfc.at(100).ack(2);
    assert_eq!(rfc.cwnd(), 5.0);
}

#[test]
fn byte_counting_congestion_avoidance_adds_one_segment_per_window_acknowledged() {
    // Linux tcp_cong_avoid_ai(w = cwnd): ten segments acknowledged by five ACKs of two add
    // exactly one segment, on the fifth ACK; counting ACKs (RFC 5681 eq. 3) adds about half
    let (mut fx, _) = Fx::with_window(counting(newreno()), 10, 10.0);
    for (i, k) in [2, 4, 6, 8].into_iter().enumerate() {
        fx.at(100 + i as u64).ack(k);
        assert_eq!(fx.cwnd(), 10.0, "after {k} segments");
    }
    fx.at(105).ack(10);
    assert_eq!(fx.cwnd(), 11.0);
    let (mut rfc, _) = Fx::with_window(newreno(), 10, 10.0);
    for (i, k) in [2, 4, 6, 8, 10].into_iter().enumerate() {
        rfc.at(100 + i as u64).ack(k);
    }
    assert!(rfc.cwnd() > 10.4 && rfc.cwnd() < 10.6, "{}", rfc.cwnd());
}

#[test]
fn byte_counting_slow_start_carries_what_passes_ssthresh_into_congestion_avoidance() {
    // cwnd 4, ssthresh 5: an ACK of four segments takes cwnd to 5 and counts the other
    // three towards the next segment (w = 5); two more segments complete it
    let (mut fx, _) = Fx::with_window(counting(newreno()), 4, 5.0);
    fx.at(100).ack(4);
    assert_eq!(fx.cwnd(), 5.0);
    fx.at(101).ack(5);
    assert_eq!(fx.cwnd(), 5.0, "four of five counted");
    fx.at(102).ack(6);
    assert_eq!(fx.cwnd(), 6.0);
}

#[test]
fn byte_counting_counter_restarts_after_a_window_reduction() {
    // Linux zeroes snd_cwnd_cnt when it enters loss (tcp_enter_loss): eight segments counted
    // before a timeout do not add a segment after it
    let (mut fx, _) = Fx::with_window(counting(newreno()), 10, 10.0);
    fx.at(100).ack(4);
    fx.at(101).ack(8);
    assert_eq!(fx.cwnd(), 10.0);
    fx.expire();
    assert_eq!(fx.cwnd(), 1.0);
    assert_eq!(fx.ssthresh(), 5.0, "FlightSize (10 segments) / 2");
    let t = fx.now.as_nanos() / 1_000_000;
    for (i, k) in [9, 10, 11, 12].into_iter().enumerate() {
        fx.at(t + 10 * (i as u64 + 1)).ack(k);
    }
    assert_eq!(fx.cwnd(), 5.0, "slow start up to ssthresh");
    fx.at(t + 50).ack(13);
    assert_eq!(fx.cwnd(), 5.0, "one of five counted, no carried credit");
}

#[test]
fn byte_counting_cubic_slow_start_grows_by_every_segment_an_ack_covers() {
    let cubic = Params {
        cc: crate::transport::tcp::cc::CcKind::Cubic,
        ..newreno()
    };
    let (mut fx, _) = Fx::with_window(counting(cubic), 4, 20.0);
    fx.at(100).ack(2);
    assert_eq!(fx.cwnd(), 6.0);
    let (mut rfc, _) = Fx::with_window(cubic, 4, 20.0);
    rfc.at(100).ack(2);
    assert_eq!(rfc.cwnd(), 5.0);
}

#[test]
fn byte_counting_needs_the_rfc_preset_and_a_window_controller() {
    assert!(counting(Params::ns2()).validate().is_err());
    let bbr = Params {
        cc: crate::transport::tcp::cc::CcKind::Bbr,
        ..newreno()
    };
    assert!(counting(bbr).validate().is_err());
    assert!(counting(newreno()).validate().is_ok());
}

#[test]
fn linux_reno_friendliness_is_an_option_of_cubic_only() {
    let with = |cc| Params {
        cc,
        cubic_linux_friendly: true,
        ..newreno()
    };
    use crate::transport::tcp::cc::CcKind;
    assert!(with(CcKind::Cubic).validate().is_ok());
    assert!(with(CcKind::Reno).validate().is_err());
    assert!(with(CcKind::Bbr).validate().is_err());
}
