//! Scenario-level TCP tests: a sender and a receiver joined by a two-way path with an exact
//! propagation delay and a forward bottleneck rate, where losses and CE marks are injected at
//! exact sequence numbers. Also home of the small test language the per-file tests share
//! (`harness`).

use crate::net::packet::Ecn;
use crate::sim::time::{SimDuration, SimTime};
use crate::transport::tcp::{flags, Params, Variant};
use harness::Net;

/// The test language: a host that runs agent hooks and collects what they send, packet
/// builders, and `Net`, a two-node path between one sender and one receiver.
pub(crate) mod harness {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;

    use crate::metrics::flow::FlowStats;
    use crate::net::packet::{proto, Ecn, Packet, PacketId, Pool, TransportHeader};
    use crate::sim::event::{Event, EventQueue};
    use crate::sim::rng;
    use crate::sim::time::{SimDuration, SimTime};
    use crate::transport::tcp::receiver::Receiver;
    use crate::transport::tcp::sender::Sender;
    use crate::transport::tcp::{flags, Params};
    use crate::transport::Ctx;

    /// Agent ids of flow 0: source 2·0, sink 2·0 + 1.
    pub const SENDER: u32 = 0;
    pub const RECEIVER: u32 = 1;
    /// Nodes: the sender sits at node 0, the receiver at node 1.
    pub const SRC_NODE: u32 = 0;
    pub const DST_NODE: u32 = 1;

    /// What the engine lends an agent during a hook.
    pub struct Host {
        pool: Pool,
        events: EventQueue,
        outbox: Vec<PacketId>,
        pub flow: FlowStats,
        generated: u64,
    }

    impl Default for Host {
        fn default() -> Self {
            Self::new()
        }
    }

    impl Host {
        pub fn new() -> Host {
            Host {
                pool: Pool::new(),
                events: EventQueue::new(),
                outbox: Vec::new(),
                flow: FlowStats::default(),
                generated: 0,
            }
        }

        /// Runs one hook of agent `me` at `now`; returns the packets it sent.
        pub fn call_at(&mut self, now: SimTime, me: u32, f: impl FnOnce(&mut Ctx)) -> Vec<Packet> {
            {
                let mut ctx = Ctx {
                    now,
                    me,
                    pool: &mut self.pool,
                    events: &mut self.events,
                    outbox: &mut self.outbox,
                    flow: &mut self.flow,
                    generated: &mut self.generated,
                    dscp: 0,
                    data_sent: 0,
                };
                f(&mut ctx);
            }
            let pool = &mut self.pool;
            self.outbox
                .drain(..)
                .map(|id| {
                    let p = *pool.get(id);
                    pool.free(id);
                    p
                })
                .collect()
        }

        pub fn call_at_ms(&mut self, ms: u64, me: u32, f: impl FnOnce(&mut Ctx)) -> Vec<Packet> {
            self.call_at(at_ms(ms), me, f)
        }

        /// Removes and returns the earliest pending timer of agent `me`; other agents' timers
        /// stay pending, in order.
        pub fn next_timer(&mut self, me: u32) -> Option<(SimTime, u32)> {
            let mut others = Vec::new();
            let mut found = None;
            while let Some((t, ev)) = self.events.pop() {
                match ev {
                    Event::Timer { agent, token } if agent == me && found.is_none() => {
                        found = Some((t, token))
                    }
                    _ => others.push((t, ev)),
                }
            }
            for (t, ev) in others {
                self.events.schedule(t, ev);
            }
            found
        }

        /// Removes and returns the earliest pending timer of any agent.
        pub fn pop_timer(&mut self) -> Option<(SimTime, u32, u32)> {
            match self.events.pop()? {
                (t, Event::Timer { agent, token }) => Some((t, agent, token)),
                (_, _) => None,
            }
        }

        pub fn peek_timer(&self) -> Option<SimTime> {
            self.events.peek_time()
        }
    }

    pub fn at_ms(ms: u64) -> SimTime {
        SimTime::ZERO + SimDuration::from_millis(ms)
    }

    /// A data segment of flow 0 as the sender sends it: `len` payload bytes from `seq`.
    pub fn data(seq: u64, len: u32) -> Packet {
        Packet {
            src: SRC_NODE,
            dst: DST_NODE,
            protocol: proto::TCP,
            size: len + 40,
            dst_agent: RECEIVER,
            th: TransportHeader {
                seq,
                payload: len,
                ..Default::default()
            },
            ..Default::default()
        }
    }

    /// A SYN with extra flags (ECE|CWR for ECN, SACK_PERMITTED).
    pub fn syn(extra: u16) -> Packet {
        let mut p = data(0, 0);
        p.th.flags = flags::SYN | extra;
        p
    }

    /// An ACK to the sender: cumulative `ack`, extra flags, SACK blocks.
    pub fn ack(ack: u64, extra: u16, sacks: &[(u64, u64)]) -> Packet {
        let mut th = TransportHeader {
            ack,
            flags: flags::ACK | extra,
            ..Default::default()
        };
        th.set_sack(sacks);
        Packet {
            src: DST_NODE,
            dst: SRC_NODE,
            protocol: proto::TCP,
            size: 40 + 8 * sacks.len() as u32,
            dst_agent: SENDER,
            rev: true,
            th,
            ..Default::default()
        }
    }

    /// How a data segment left the sender.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum SentKind {
        New,
        Retransmission,
    }

    /// A data segment the sender put on the path, and its fate.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub struct Sent {
        pub t: SimTime,
        pub seq: u64,
        pub len: u32,
        pub kind: SentKind,
        pub flags: u16,
        pub ecn: Ecn,
        pub dropped: bool,
    }

    /// The sender's state right after it processed an ACK.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub struct AfterAck {
        pub t: SimTime,
        pub ack: u64,
        pub flags: u16,
        pub cwnd: f64,
        pub ssthresh: f64,
    }

    /// One sender and one receiver joined by a path: forward (data) packets queue for a
    /// bottleneck of `rate_bps` then travel `delay`; ACKs travel `delay` without queueing.
    pub struct Net {
        pub host: Host,
        pub now: SimTime,
        pub sender: Sender,
        pub receiver: Receiver,
        pub delay: SimDuration,
        pub rate_bps: u64,
        link_free: SimTime,
        wire: BinaryHeap<Reverse<(SimTime, u64, WirePacket)>>,
        order: u64,
        /// Data transmissions to drop, by first byte; each entry drops one transmission.
        pub drop_seqs: Vec<u64>,
        /// Data transmissions to mark CE (if ECN-capable), by first byte.
        pub mark_seqs: Vec<u64>,
        /// ACKs to drop, by cumulative ACK value; each entry drops one.
        pub drop_acks: Vec<u64>,
        /// SYNs to drop.
        pub drop_syns: u32,
        pub sent: Vec<Sent>,
        pub after_ack: Vec<AfterAck>,
        /// ACKs (and SYN-ACKs) the receiver sent.
        pub acks: Vec<(SimTime, Packet)>,
        /// When SYNs left the sender.
        pub syns: Vec<SimTime>,
    }

    /// A packet on the wire, ordered by its arrival only (ties: sending order via the key).
    #[derive(Clone, Copy, Debug)]
    struct WirePacket(Packet);
    impl PartialEq for WirePacket {
        fn eq(&self, _: &Self) -> bool {
            true
        }
    }
    impl Eq for WirePacket {}
    impl PartialOrd for WirePacket {
        fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
            Some(self.cmp(other))
        }
    }
    impl Ord for WirePacket {
        fn cmp(&self, _: &Self) -> std::cmp::Ordering {
            std::cmp::Ordering::Equal
        }
    }

    impl Net {
        /// A path with round-trip propagation `rtt_ms` and a forward bottleneck of `rate_bps`.
        pub fn new(p: &Params, rtt_ms: u64, rate_bps: u64) -> Net {
            let sender = Sender::new(
                0,
                SRC_NODE,
                DST_NODE,
                RECEIVER,
                p,
                rng::stream(1, "flow/tcp"),
            );
            let receiver =
                Receiver::new(0, SRC_NODE, DST_NODE, SENDER, p, rng::stream(1, "flow/tcp"));
            Net {
                host: Host::new(),
                now: SimTime::ZERO,
                sender,
                receiver,
                delay: SimDuration::from_micros(rtt_ms * 500),
                rate_bps,
                link_free: SimTime::ZERO,
                wire: BinaryHeap::new(),
                order: 0,
                drop_seqs: Vec::new(),
                mark_seqs: Vec::new(),
                drop_acks: Vec::new(),
                drop_syns: 0,
                sent: Vec::new(),
                after_ack: Vec::new(),
                acks: Vec::new(),
                syns: Vec::new(),
            }
        }

        pub fn start(&mut self) {
            let s = &mut self.sender;
            let out = self.host.call_at(self.now, SENDER, |ctx| s.start(ctx));
            self.route(out);
        }

        fn route(&mut self, out: Vec<Packet>) {
            for mut p in out {
                if p.rev {
                    self.acks.push((self.now, p));
                    if let Some(i) = self.drop_acks.iter().position(|&a| a == p.th.ack) {
                        self.drop_acks.remove(i);
                        continue;
                    }
                    self.push(self.now + self.delay, p);
                    continue;
                }
                if p.th.flags & flags::SYN != 0 {
                    self.syns.push(self.now);
                    if self.drop_syns > 0 {
                        self.drop_syns -= 1;
                        continue;
                    }
                    self.push(self.now + self.delay, p);
                    continue;
                }
                let kind = if self.sent.iter().any(|s| s.seq == p.th.seq) {
                    SentKind::Retransmission
                } else {
                    SentKind::New
                };
                let dropped = match self.drop_seqs.iter().position(|&s| s == p.th.seq) {
                    Some(i) => {
                        self.drop_seqs.remove(i);
                        true
                    }
                    None => false,
                };
                if !dropped {
                    if let Some(i) = self.mark_seqs.iter().position(|&s| s == p.th.seq) {
                        if p.ecn != Ecn::NotEct {
                            self.mark_seqs.remove(i);
                            p.ecn = Ecn::Ce;
                        }
                    }
                }
                self.sent.push(Sent {
                    t: self.now,
                    seq: p.th.seq,
                    len: p.th.payload,
                    kind,
                    flags: p.th.flags,
                    ecn: p.ecn,
                    dropped,
                });
                if dropped {
                    continue;
                }
                let tx_ns = u64::from(p.size) * 8 * 1_000_000_000 / self.rate_bps;
                let begin = self.link_free.max(self.now);
                self.link_free = begin + SimDuration::from_nanos(tx_ns);
                self.push(self.link_free + self.delay, p);
            }
        }

        fn push(&mut self, at: SimTime, p: Packet) {
            self.order += 1;
            self.wire.push(Reverse((at, self.order, WirePacket(p))));
        }

        /// Runs events until `until` (exclusive) or until nothing is pending.
        pub fn run_until(&mut self, until: SimTime) {
            loop {
                let next_wire = self.wire.peek().map(|Reverse((t, _, _))| *t);
                let next_timer = self.host.peek_timer();
                let t = match (next_wire, next_timer) {
                    (Some(a), Some(b)) => a.min(b),
                    (Some(a), None) | (None, Some(a)) => a,
                    (None, None) => break,
                };
                if t >= until {
                    break;
                }
                self.now = t;
                // timers first at equal times: they were scheduled before the arrival
                if next_timer == Some(t) {
                    let (_, agent, token) = self.host.pop_timer().expect("peeked");
                    let out = if agent == SENDER {
                        let s = &mut self.sender;
                        self.host.call_at(t, SENDER, |ctx| s.on_timer(token, ctx))
                    } else {
                        let r = &mut self.receiver;
                        self.host.call_at(t, RECEIVER, |ctx| r.on_timer(token, ctx))
                    };
                    self.route(out);
                    continue;
                }
                let Reverse((_, _, WirePacket(p))) = self.wire.pop().expect("peeked");
                let out = if p.rev {
                    self.host.flow.rev_delivered += 1;
                    let s = &mut self.sender;
                    let out = self.host.call_at(t, SENDER, |ctx| s.on_packet(&p, ctx));
                    if p.th.flags & flags::SYN == 0 {
                        self.after_ack.push(AfterAck {
                            t,
                            ack: p.th.ack,
                            flags: p.th.flags,
                            cwnd: self.sender.cwnd_bytes(),
                            ssthresh: self.sender.ssthresh_bytes(),
                        });
                    }
                    out
                } else {
                    self.host
                        .flow
                        .delivered(t, p.size, p.created, SimTime::ZERO);
                    let r = &mut self.receiver;
                    self.host.call_at(t, RECEIVER, |ctx| r.on_packet(&p, ctx))
                };
                self.route(out);
            }
        }

        /// Transmissions of the data segment starting at `seq`.
        pub fn sends_of(&self, seq: u64) -> Vec<Sent> {
            self.sent.iter().filter(|s| s.seq == seq).copied().collect()
        }

        pub fn retransmissions(&self) -> Vec<Sent> {
            self.sent
                .iter()
                .filter(|s| s.kind == SentKind::Retransmission)
                .copied()
                .collect()
        }

        /// The first time the cumulative ACK at the sender reached `ack`.
        pub fn acked_at(&self, ack: u64) -> Option<SimTime> {
            self.after_ack.iter().find(|a| a.ack >= ack).map(|a| a.t)
        }
    }
}

// ------------------------------------------------------------------------------------------
// Scenario tests
// ------------------------------------------------------------------------------------------

const MSS: u64 = 960;
/// Round-trip propagation of the test path, ms.
const RTT_MS: u64 = 100;
/// Bottleneck rate: a full segment takes 0.8 ms, so a window of 30 segments spreads over
/// 24 ms of the 100 ms round trip and nothing queues for long.
const RATE_BPS: u64 = 10_000_000;

fn at_s(s: f64) -> SimTime {
    SimTime::ZERO + SimDuration::from_nanos((s * 1e9) as u64)
}

/// A started path for `p`.
fn net(p: &Params) -> Net {
    let mut n = Net::new(p, RTT_MS, RATE_BPS);
    n.start();
    n
}

fn with(variant: Variant) -> Params {
    Params {
        variant,
        ..Params::default()
    }
}

#[test]
fn one_loss_is_repaired_by_fast_retransmit_without_a_timeout() {
    for v in Variant::ALL {
        let mut n = Net::new(&with(v), RTT_MS, RATE_BPS);
        n.drop_seqs = vec![40 * MSS];
        n.start();
        n.run_until(at_s(3.0));
        let st = n.sender.stats();
        assert_eq!((st.timeouts, st.fast_recoveries), (0, 1), "{v:?}");
        let rtx = n.retransmissions();
        assert_eq!(rtx.len(), 1, "{v:?}: only the lost segment is resent");
        assert_eq!(rtx[0].seq, 40 * MSS);
        // the window was 20 segments (the advertised window): ssthresh = 20/2
        let cut = n
            .after_ack
            .iter()
            .position(|a| a.ssthresh < 20.0 * MSS as f64)
            .unwrap();
        assert_eq!(n.after_ack[cut].ssthresh, 10.0 * MSS as f64, "{v:?}");
        let exit = cut
            + n.after_ack[cut..]
                .iter()
                .position(|a| a.ack > 40 * MSS)
                .unwrap();
        let peak = n.after_ack[cut..exit]
            .iter()
            .map(|a| a.cwnd)
            .fold(0.0, f64::max);
        let exit = n.after_ack[exit];
        if v == Variant::Sack {
            assert_eq!(
                peak,
                10.0 * MSS as f64,
                "RFC 6675: no inflation, pipe does the counting"
            );
        } else {
            assert!(
                peak > 20.0 * MSS as f64,
                "{v:?}: cwnd inflated by the duplicate ACKs"
            );
        }
        assert_eq!(exit.cwnd, 10.0 * MSS as f64, "{v:?}: deflated to ssthresh");
        assert_eq!(n.receiver.stats().goodput_bytes, n.receiver.rcv_nxt());
    }
}

/// What a burst of `drops` consecutive losses in one window did (Fall & Floyd 1996, §4).
#[derive(Debug)]
struct Burst {
    timeouts: u64,
    fast_recoveries: u64,
    /// From the first retransmission to the ACK of the last dropped segment, in RTTs.
    recovery_rtts: f64,
}

/// Slow start to ssthresh 16, congestion avoidance, then segments 60.. (cwnd ≈ 17) lost.
fn burst(p: Params, drops: u64) -> Burst {
    const FIRST: u64 = 60;
    let p = Params {
        max_window_bytes: 40 * MSS,
        ..p
    };
    let mut n = Net::new(&p, RTT_MS, RATE_BPS);
    n.sender.set_window(1.0, 16.0);
    n.drop_seqs = (FIRST..FIRST + drops).map(|k| k * MSS).collect();
    n.start();
    n.run_until(at_s(10.0));
    let first_rtx = n.retransmissions()[0].t;
    let done = n.acked_at((FIRST + drops) * MSS).expect("recovered");
    let st = n.sender.stats();
    Burst {
        timeouts: st.timeouts,
        fast_recoveries: st.fast_recoveries,
        recovery_rtts: (done - first_rtx).as_secs_f64() / (RTT_MS as f64 / 1000.0),
    }
}

#[test]
fn fall_floyd_reno_needs_a_timeout_for_three_or_more_losses_in_a_window() {
    let reno = with(Variant::Reno);
    let two = burst(reno, 2);
    assert_eq!(
        (two.timeouts, two.fast_recoveries),
        (0, 2),
        "two drops: the window is halved twice"
    );
    for drops in [3, 4] {
        let b = burst(reno, drops);
        assert!(b.timeouts >= 1, "{drops} drops: {b:?}");
        assert!(
            b.recovery_rtts > 10.0,
            "{drops} drops: the timeout costs a second: {b:?}"
        );
    }
    // ns-2's Reno (bugFix_) refuses the second fast retransmit: already two drops time out
    let ns2 = Params {
        variant: Variant::Reno,
        ..Params::ns2()
    };
    assert!(burst(ns2, 2).timeouts >= 1);
}

#[test]
fn fall_floyd_newreno_repairs_one_loss_per_round_trip_without_a_timeout() {
    for drops in [2, 3, 4] {
        let b = burst(with(Variant::NewReno), drops);
        assert_eq!(
            (b.timeouts, b.fast_recoveries),
            (0, 1),
            "{drops} drops: {b:?}"
        );
        let rtts = b.recovery_rtts;
        assert!(
            rtts > drops as f64 - 0.5 && rtts < drops as f64 + 0.5,
            "{drops} drops in {rtts:.2} RTTs"
        );
    }
}

#[test]
fn fall_floyd_sack_repairs_all_losses_in_about_one_round_trip() {
    for drops in [2, 3, 4] {
        let b = burst(with(Variant::Sack), drops);
        assert_eq!(
            (b.timeouts, b.fast_recoveries),
            (0, 1),
            "{drops} drops: {b:?}"
        );
        assert!(
            b.recovery_rtts < 1.5,
            "{drops} drops in {:.2} RTTs",
            b.recovery_rtts
        );
    }
}

#[test]
fn a_segment_lost_again_and_again_is_resent_after_1_2_and_4_seconds() {
    let p = Params {
        transfer_bytes: Some(MSS),
        ..Params::default()
    };
    let mut n = Net::new(&p, RTT_MS, RATE_BPS);
    n.drop_seqs = vec![0, 0, 0];
    n.start();
    n.run_until(at_s(20.0));
    let times: Vec<f64> = n.sends_of(0).iter().map(|s| s.t.as_secs_f64()).collect();
    assert_eq!(
        times,
        vec![0.0, 1.0, 3.0, 7.0],
        "RTO 1 s doubling (RFC 6298 §5.5)"
    );
    assert!(n.sender.is_complete());
    assert_eq!(n.sender.stats().timeouts, 3);
    assert_eq!(n.sender.stats().rtt_samples, 0, "Karn");
}

#[test]
fn with_a_500ms_tick_every_rto_is_a_whole_number_of_ticks() {
    // Giacomazzi et al.: 500 ms timer granularity
    let p = Params {
        tick: SimDuration::from_millis(500),
        trace: true,
        ..Params::default()
    };
    let mut n = Net::new(&p, RTT_MS, RATE_BPS);
    n.drop_seqs = vec![
        40 * MSS,
        41 * MSS,
        42 * MSS,
        43 * MSS,
        44 * MSS,
        120 * MSS,
        120 * MSS,
    ];
    n.start();
    n.run_until(at_s(20.0));
    let t = n.sender.trace().unwrap();
    assert!(t.len() > 100);
    for (&rto, &srtt) in t.rto.iter().zip(&t.srtt) {
        assert_eq!((rto * 2.0).fract(), 0.0, "rto {rto}");
        assert_eq!((srtt * 2.0).fract(), 0.0, "srtt {srtt}");
        assert!(rto >= 1.0);
    }
    assert!(n.sender.stats().timeouts >= 1);
}

#[test]
fn delayed_acks_acknowledge_every_second_segment() {
    let base = Params {
        transfer_bytes: Some(200 * MSS),
        ..Params::default()
    };
    let mut plain = net(&base);
    plain.run_until(at_s(30.0));
    let mut delayed = net(&Params {
        delayed_ack: true,
        ..base
    });
    delayed.run_until(at_s(30.0));
    assert_eq!(plain.receiver.stats().acks_sent, 200);
    let acks = delayed.receiver.stats().acks_sent;
    assert!((100..=110).contains(&acks), "{acks} ACKs for 200 segments");
    // ACK-clocked growth is slower: the transfer takes longer
    let (a, b) = (
        plain.sender.stats().completion_time_s.unwrap(),
        delayed.sender.stats().completion_time_s.unwrap(),
    );
    assert!(b > a, "{b} vs {a}");
    // the first segment waits for the delayed-ACK timer: its ACK leaves at 50 ms + 100 ms
    let (t, first) = delayed.acks[0];
    assert_eq!(first.th.ack, MSS);
    assert!((t.as_secs_f64() - 0.1508).abs() < 1e-3, "{t}");
}

#[test]
fn an_ecn_mark_is_echoed_until_the_sender_says_it_cut_its_window() {
    let p = Params {
        ecn: true,
        ..Params::default()
    };
    let mut n = Net::new(&p, RTT_MS, RATE_BPS);
    n.mark_seqs = vec![40 * MSS];
    n.start();
    n.run_until(at_s(3.0));
    let st = n.sender.stats();
    assert_eq!(
        (
            st.ecn_reductions,
            st.timeouts,
            st.fast_recoveries,
            st.retransmitted_segments
        ),
        (1, 0, 0, 0)
    );
    // the receiver echoes from the marked segment until the CWR segment arrives
    let ece: Vec<bool> = n
        .acks
        .iter()
        .map(|(_, a)| a.th.flags & flags::ECE != 0)
        .collect();
    let first = ece.iter().position(|&e| e).unwrap();
    let last = ece.iter().rposition(|&e| e).unwrap();
    assert!(
        ece[first..=last].iter().all(|&e| e),
        "one contiguous run of ECE"
    );
    assert_eq!(
        n.acks[first].1.th.ack,
        41 * MSS,
        "the ACK of the marked segment"
    );
    let cwr: Vec<_> = n
        .sent
        .iter()
        .filter(|s| s.flags & flags::CWR != 0)
        .collect();
    assert_eq!(cwr.len(), 1, "CWR on one segment");
    assert_eq!(
        n.acks[last + 1].1.th.ack,
        cwr[0].seq + MSS,
        "echo stops at the CWR segment's ACK"
    );
    assert!(n.sent.iter().all(|s| s.ecn != Ecn::NotEct));
    // the sender halved once: ssthresh = 20/2
    let cut = n
        .after_ack
        .iter()
        .find(|a| a.flags & flags::ECE != 0)
        .unwrap();
    assert_eq!(cut.ssthresh, 10.0 * MSS as f64);
    assert_eq!(cut.cwnd, 10.0 * MSS as f64);
}

#[test]
fn the_handshake_delays_the_first_data_segment_by_one_round_trip() {
    let mut off = net(&Params::default());
    off.run_until(at_s(1.0));
    assert_eq!(off.sent[0].t, SimTime::ZERO);
    assert!(off.syns.is_empty());
    let mut on = net(&Params {
        handshake: true,
        ..Params::default()
    });
    on.run_until(at_s(1.0));
    assert_eq!(on.syns, vec![SimTime::ZERO]);
    assert_eq!(on.sent[0].t, at_s(0.1), "after the SYN-ACK");
    assert!(on.sent.iter().all(|s| s.flags & flags::ACK != 0));
    // a lost SYN costs the initial RTO
    let mut lost = Net::new(
        &Params {
            handshake: true,
            ..Params::default()
        },
        RTT_MS,
        RATE_BPS,
    );
    lost.drop_syns = 1;
    lost.start();
    lost.run_until(at_s(2.0));
    assert_eq!(lost.syns, vec![SimTime::ZERO, at_s(1.0)]);
    assert_eq!(lost.sent[0].t, at_s(1.1));
}

#[test]
fn a_finite_transfer_completes_when_its_last_byte_is_acknowledged() {
    for v in Variant::ALL {
        let bytes = 100_000;
        let p = Params {
            transfer_bytes: Some(bytes),
            variant: v,
            ..Params::default()
        };
        let mut n = Net::new(&p, RTT_MS, RATE_BPS);
        n.drop_seqs = vec![30 * MSS, 33 * MSS, 104 * MSS - MSS];
        n.start();
        n.run_until(at_s(60.0));
        assert!(n.sender.is_complete(), "{v:?}");
        let st = n.sender.stats();
        assert_eq!(
            st.bytes_sent - st.retransmitted_bytes,
            bytes,
            "{v:?}: every byte sent once, plus resends"
        );
        assert_eq!(n.receiver.stats().goodput_bytes, bytes);
        let done = st.completion_time_s.unwrap();
        assert_eq!(
            n.host.flow.completed_at.map(|t| t.as_secs_f64()),
            Some(done)
        );
        assert!(n.host.flow.source_done);
        assert_eq!(n.acked_at(bytes).map(|t| t.as_secs_f64()), Some(done));
        // nothing is sent after completion
        assert!(n.sent.iter().all(|s| s.t.as_secs_f64() <= done), "{v:?}");
    }
}

#[test]
fn a_lost_ack_is_covered_by_the_next_cumulative_ack() {
    let mut n = Net::new(&Params::default(), RTT_MS, RATE_BPS);
    n.drop_acks = vec![10 * MSS, 11 * MSS, 12 * MSS];
    n.start();
    n.run_until(at_s(2.0));
    let st = n.sender.stats();
    assert_eq!((st.timeouts, st.retransmitted_segments), (0, 0));
}

#[test]
fn the_same_parameters_give_the_same_run() {
    let run = || {
        let p = Params {
            variant: Variant::Sack,
            ecn: true,
            trace: true,
            ..Params::default()
        };
        let mut n = Net::new(&p, RTT_MS, RATE_BPS);
        n.drop_seqs = vec![50 * MSS, 52 * MSS];
        n.mark_seqs = vec![90 * MSS];
        n.start();
        n.run_until(at_s(5.0));
        (n.sender.stats(), n.sender.trace().cloned(), n.sent.len())
    };
    assert_eq!(run(), run());
}

#[test]
fn the_engine_reaches_both_ends_through_any_agent() {
    use crate::sim::rng;
    use crate::transport::tcp::{receiver::Receiver, sender::Sender};
    use crate::transport::AnyAgent;
    use harness::{Host, RECEIVER, SENDER};
    let p = Params::default();
    let mut s = AnyAgent::TcpSender(Box::new(Sender::new(
        3,
        0,
        1,
        RECEIVER,
        &p,
        rng::stream(1, "a"),
    )));
    let mut r = AnyAgent::TcpReceiver(Box::new(Receiver::new(
        3,
        0,
        1,
        SENDER,
        &p,
        rng::stream(1, "b"),
    )));
    assert_eq!((s.flow(), r.flow()), (3, 3));
    let mut h = Host::new();
    h.call_at(SimTime::ZERO, SENDER, |ctx| s.start(ctx));
    let (t, token) = h.next_timer(SENDER).unwrap();
    let data = h.call_at(t, SENDER, |ctx| s.on_timer(token, ctx));
    assert_eq!(data.len(), 1);
    let acks = h.call_at(t, RECEIVER, |ctx| r.on_packet(&data[0], ctx));
    assert_eq!(acks[0].th.ack, MSS);
    let more = h.call_at(t, SENDER, |ctx| s.on_packet(&acks[0], ctx));
    assert_eq!(more.len(), 2, "slow start");
    assert_eq!(h.flow.packets_sent, 3);
    assert_eq!(h.flow.rev_sent, 1);
}

#[test]
fn a_flows_tcp_state_stays_small() {
    // issue 28's memory per flow (≤ 4 KiB, `afsim bench --scale`): the parameters are held twice
    // per flow (the loaded spec and the sender), the sender and receiver once each. Raise a
    // bound only with the bench's slope measured beside it.
    use std::mem::size_of;
    let sizes = [
        ("Params", size_of::<crate::transport::tcp::Params>(), 120),
        (
            "Sender",
            size_of::<crate::transport::tcp::sender::Sender>(),
            680,
        ),
        (
            "Receiver",
            size_of::<crate::transport::tcp::receiver::Receiver>(),
            192,
        ),
    ];
    for (name, size, bound) in sizes {
        assert!(size <= bound, "{name}: {size} bytes, more than {bound}");
    }
}
