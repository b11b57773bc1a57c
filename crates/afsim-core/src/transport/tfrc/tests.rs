//! TFRC sender and receiver together: a two-way path with a fixed one-way delay (no queue,
//! no rate limit), data packets lost or feedback packets dropped at exact points; and the
//! Bernoulli-loss check of the whole model in the engine.

use std::collections::VecDeque;

use super::equation::x_rfc;
use super::receiver::Receiver;
use super::sender::Sender;
use super::test_util::{at_ms, close};
use super::{Params, Rules};
use crate::metrics::flow::FlowStats;
use crate::net::packet::{Ecn, Packet, PacketId, Pool, TfrcHeader};
use crate::sim::event::{Event, EventQueue};
use crate::sim::time::{SimDuration, SimTime};
use crate::transport::Ctx;

const SENDER: u32 = 0;
const RECEIVER: u32 = 1;

/// One sender and one receiver; packets take `delay` each way and arrive in order.
struct Net {
    now: SimTime,
    sender: Sender,
    receiver: Receiver,
    delay: SimDuration,
    events: EventQueue,
    pool: Pool,
    outbox: Vec<PacketId>,
    flow: FlowStats,
    generated: u64,
    /// Packets on the way, in arrival order (one delay for all: arrival order = send order).
    wire: VecDeque<(SimTime, Packet)>,
    /// Data packets to lose, by sequence number; to CE-mark, by sequence number.
    lose: Vec<u64>,
    mark: Vec<u64>,
    /// Feedback sent at or after this instant is lost.
    mute_feedback_from: Option<SimTime>,
    /// Data packets sent: (time, seq); feedback received: (time, X_recv, p).
    sent: Vec<(SimTime, u64)>,
    feedback: Vec<(SimTime, f64, f64)>,
}

impl Net {
    fn new(p: &Params, one_way_ms: u64) -> Net {
        Net {
            now: SimTime::ZERO,
            sender: Sender::new(0, 0, 1, RECEIVER, p, SimTime::ZERO),
            receiver: Receiver::new(0, 1, 0, SENDER, p, SimTime::ZERO),
            delay: SimDuration::from_millis(one_way_ms),
            events: EventQueue::new(),
            pool: Pool::new(),
            outbox: Vec::new(),
            flow: FlowStats::default(),
            generated: 0,
            wire: VecDeque::new(),
            lose: Vec::new(),
            mark: Vec::new(),
            mute_feedback_from: None,
            sent: Vec::new(),
            feedback: Vec::new(),
        }
    }

    /// Runs one hook of `me` and puts what it sent on the wire.
    fn call(&mut self, me: u32, hook: impl FnOnce(&mut Sender, &mut Receiver, &mut Ctx)) {
        let mut ctx = Ctx {
            now: self.now,
            me,
            pool: &mut self.pool,
            events: &mut self.events,
            outbox: &mut self.outbox,
            flow: &mut self.flow,
            generated: &mut self.generated,
            dscp: 0,
            data_sent: 0,
        };
        hook(&mut self.sender, &mut self.receiver, &mut ctx);
        for id in std::mem::take(&mut self.outbox) {
            let mut p = *self.pool.get(id);
            self.pool.free(id);
            if p.rev {
                if self.mute_feedback_from.is_some_and(|t| self.now >= t) {
                    continue;
                }
            } else {
                self.sent.push((self.now, p.th.seq));
                if self.lose.contains(&p.th.seq) {
                    continue;
                }
                if self.mark.contains(&p.th.seq) && p.ecn != Ecn::NotEct {
                    p.ecn = Ecn::Ce;
                }
            }
            self.wire.push_back((self.now + self.delay, p));
        }
    }

    fn start(&mut self) {
        self.call(SENDER, |s, _, ctx| s.start(ctx));
    }

    /// Runs every event before `until`.
    fn run_until(&mut self, until: SimTime) {
        loop {
            let wire = self.wire.front().map(|&(t, _)| t);
            let timer = self.events.peek_time();
            let next = match (wire, timer) {
                (Some(w), Some(t)) => w.min(t),
                (Some(w), None) => w,
                (None, Some(t)) => t,
                (None, None) => break,
            };
            if next >= until {
                break;
            }
            self.now = next;
            if wire == Some(next) {
                let (_, p) = self.wire.pop_front().expect("peeked");
                if p.rev {
                    if let TfrcHeader::Feedback {
                        x_recv, p: loss, ..
                    } = p.th.tfrc()
                    {
                        self.feedback.push((self.now, x_recv, loss));
                    }
                    self.call(SENDER, |s, _, ctx| s.on_packet(&p, ctx));
                } else {
                    self.call(RECEIVER, |_, r, ctx| r.on_packet(&p, ctx));
                }
            } else {
                let (_, ev) = self.events.pop().expect("peeked");
                let Event::Timer { agent, token } = ev else {
                    panic!("only timers here")
                };
                if agent == SENDER {
                    self.call(SENDER, |s, _, ctx| s.on_timer(token, ctx));
                } else {
                    self.call(RECEIVER, |_, r, ctx| r.on_timer(token, ctx));
                }
            }
        }
        self.now = until;
    }

    fn run_ms(&mut self, ms: u64) {
        self.run_until(at_ms(ms));
    }

    /// Sequence numbers sent in [from, to) ms.
    fn sent_between(&self, from: u64, to: u64) -> usize {
        self.sent
            .iter()
            .filter(|&&(t, _)| t >= at_ms(from) && t < at_ms(to))
            .count()
    }
}

/// s = 1000 − 32 = 968 bytes.
const S: f64 = 968.0;

#[test]
fn the_first_packet_is_answered_and_the_first_feedback_sets_w_init_over_r() {
    let mut n = Net::new(&Params::default(), 50);
    n.start();
    n.run_ms(99);
    assert_eq!(
        n.sent,
        vec![(SimTime::ZERO, 0)],
        "one packet per second before any feedback"
    );
    n.run_ms(101);
    // the receiver answered packet 0 at 50 ms (p = 0, X_recv = 0); at 100 ms R = 0.1 s and
    // X = W_init/R = min(4s, max(2s, 4380)) / 0.1 = 3872 / 0.1 = 38 720 B/s
    assert_eq!(n.feedback.len(), 1);
    assert_eq!((n.feedback[0].1, n.feedback[0].2), (0.0, 0.0));
    assert!(close(n.sender.x(), 38_720.0, 1e-9), "{}", n.sender.x());
    assert_eq!(
        n.sent.len(),
        2,
        "the overdue second packet leaves at once, at 100 ms"
    );
    assert_eq!(n.sent[1].0, at_ms(100));
    // then s/X = 25 ms apart
    n.run_ms(200);
    assert_eq!(n.sent_between(100, 200), 4);
}

#[test]
fn the_receiver_reports_once_per_rtt_in_steady_sending() {
    let mut n = Net::new(&Params::default(), 50);
    n.start();
    n.run_ms(3000);
    let in_second = n
        .feedback
        .iter()
        .filter(|&&(t, ..)| t >= at_ms(2000) && t < at_ms(3000))
        .count();
    assert!(
        (9..=11).contains(&in_second),
        "{in_second} reports in one second at R = 100 ms"
    );
    assert_eq!(n.receiver.stats().loss_events, 0);
    assert!(n.sender.in_slow_start());
}

#[test]
fn the_receiver_keeps_two_rtts_of_arrivals_whatever_the_run_length() {
    for p in [Params::default(), Params::ns2()] {
        let mut n = Net::new(
            &Params {
                target_rate_bps: Some(2_000_000),
                ..p
            },
            50,
        );
        n.lose = (1..400).map(|k| 37 * k).collect();
        n.start();
        n.run_ms(30_000);
        let per_2r = n.sent_between(29_800, 30_000);
        assert!(n.sent.len() > 5_000, "{}", n.sent.len());
        assert!(
            n.receiver.kept_arrivals() <= per_2r + 2,
            "{:?}: {} kept, {per_2r} sent in 2R",
            p.rules,
            n.receiver.kept_arrivals()
        );
    }
}

#[test]
fn slow_start_doubles_per_rtt_within_twice_the_receive_rate() {
    let mut n = Net::new(&Params::default(), 50);
    n.start();
    n.run_ms(1000);
    // with no loss and no bottleneck, X doubles each RTT but never beyond 2 × X_recv of the
    // last two RTTs once the initial Infinity has gone
    let max_recv = n
        .feedback
        .iter()
        .rev()
        .take(3)
        .map(|f| f.1)
        .fold(0.0, f64::max);
    assert!(
        n.sender.x() <= 2.0 * max_recv * (1.0 + 1e-9),
        "{} > 2 × {max_recv}",
        n.sender.x()
    );
    assert!(
        n.sender.x() > 16.0 * 38_720.0,
        "several doublings in a second: {}",
        n.sender.x()
    );
}

#[test]
fn a_lost_packet_is_a_loss_event_after_three_more_and_ends_slow_start() {
    let mut n = Net::new(&Params::default(), 50);
    n.lose = vec![40];
    n.start();
    n.run_ms(2000);
    let r = n.receiver.stats();
    assert_eq!((r.packets_lost, r.loss_events), (1, 1));
    // p went from 0 to 1/I_1 (the synthetic interval): reported at once, so the sender left
    // slow start one delay after packet 43 reached the receiver
    assert!(!n.sender.in_slow_start());
    let first_p = n
        .feedback
        .iter()
        .find(|f| f.2 > 0.0)
        .expect("a report with p > 0");
    let t43 = n
        .sent
        .iter()
        .find(|&&(_, s)| s == 43)
        .expect("43 was sent")
        .0;
    assert_eq!(
        first_p.0,
        t43 + SimDuration::from_millis(100),
        "reported when 43 arrived"
    );
}

#[test]
fn two_losses_within_one_rtt_are_one_event_and_two_a_second_apart_are_two() {
    let mut n = Net::new(&Params::default(), 50);
    n.lose = vec![40, 41, 45];
    n.start();
    n.run_ms(2000);
    assert_eq!(
        (
            n.receiver.stats().packets_lost,
            n.receiver.stats().loss_events
        ),
        (3, 1)
    );
    let mut m = Net::new(&Params::default(), 50);
    m.start();
    m.run_ms(1000);
    let seq_at = |net: &Net, ms: u64| {
        net.sent
            .iter()
            .rev()
            .find(|&&(t, _)| t <= at_ms(ms))
            .map(|&(_, s)| s)
            .unwrap()
    };
    let first = seq_at(&m, 1000) + 10;
    m.lose = vec![first];
    m.run_ms(2000);
    m.lose.push(seq_at(&m, 2000) + 10);
    m.run_ms(4000);
    assert_eq!(
        (
            m.receiver.stats().packets_lost,
            m.receiver.stats().loss_events
        ),
        (2, 2)
    );
}

#[test]
fn without_feedback_the_rate_halves_at_each_expiry() {
    let mut n = Net::new(&Params::default(), 50);
    n.lose = vec![30];
    n.start();
    n.run_ms(1500);
    n.mute_feedback_from = Some(n.now);
    // the feedback already on its way arrives within one delay; after it the timer stays
    // where the last feedback set it, max(4R, 2s/X) after it
    n.run_ms(1550);
    let (x0, r) = (n.sender.x(), n.sender.rtt());
    let deadline = n.sender.nofeedback_deadline().expect("armed");
    n.run_until(deadline + SimDuration::from_nanos(1));
    assert_eq!(n.sender.stats().nofeedback_expiries, 1);
    assert!(
        n.sender.x() <= x0 / 2.0 * (1.0 + 1e-9),
        "{} > {x0} / 2",
        n.sender.x()
    );
    let deadline2 = n.sender.nofeedback_deadline().expect("re-armed");
    assert_eq!(
        deadline2,
        deadline + super::duration((4.0 * r).max(2.0 * S / n.sender.x()))
    );
    n.run_until(deadline2 + SimDuration::from_nanos(1));
    assert_eq!(n.sender.stats().nofeedback_expiries, 2);
}

#[test]
fn gtfrc_keeps_the_rate_at_the_target_through_heavy_loss() {
    let target_bps = 400_000;
    let p = Params {
        target_rate_bps: Some(target_bps),
        trace: true,
        ..Params::default()
    };
    let mut n = Net::new(&p, 50);
    // every tenth packet from 100 on: p around 0.1, where the equation allows ~70 kb/s here
    n.lose = (10..200).map(|k| 10 * k).collect();
    n.start();
    n.run_ms(6000);
    assert!(!n.sender.in_slow_start());
    let t = n.sender.trace().expect("traced");
    let left = t.p.iter().position(|&p| p > 0.0).expect("left slow start");
    assert!(*t.p.last().unwrap() > 0.05, "p = {}", t.p.last().unwrap());
    let target_kbps = target_bps as f64 / 1e3;
    assert!(
        t.x_kbps[left..].iter().all(|&x| x >= target_kbps - 1e-9),
        "{:?}",
        &t.x_kbps[left..]
    );
    // plain TFRC under the same losses falls far below it
    let mut plain = Net::new(
        &Params {
            trace: true,
            ..Params::default()
        },
        50,
    );
    plain.lose = n.lose.clone();
    plain.start();
    plain.run_ms(6000);
    assert!(
        plain.sender.x() * 8e-3 < target_kbps / 2.0,
        "{}",
        plain.sender.x()
    );
}

#[test]
fn ecn_marks_count_as_loss_events_without_losing_packets() {
    let p = Params {
        ecn: true,
        ..Params::default()
    };
    let mut n = Net::new(&p, 50);
    n.mark = vec![40, 41];
    n.start();
    n.run_ms(2000);
    let r = n.receiver.stats();
    assert_eq!((r.ce_received, r.packets_lost, r.loss_events), (2, 0, 1));
    assert!(!n.sender.in_slow_start());
}

#[test]
fn ns2_sends_at_300_bytes_per_second_then_at_once_on_the_first_feedback() {
    let mut n = Net::new(&Params::ns2(), 50);
    n.start();
    n.run_ms(101);
    // packet 0 at 0; the feedback at 100 ms sends packet 1 at once (`nextpkt`) and the
    // rate becomes 4 packets per RTT: 4 × 968 / 0.1 = 38 720 B/s
    assert_eq!(n.sent, vec![(SimTime::ZERO, 0), (at_ms(100), 1)]);
    assert!(close(n.sender.x(), 38_720.0, 1e-9));
}

#[test]
fn ns2_reports_a_gap_as_a_loss_at_the_next_packet() {
    let mut n = Net::new(&Params::ns2(), 50);
    n.lose = vec![40];
    n.start();
    n.run_ms(2000);
    assert_eq!(
        (
            n.receiver.stats().packets_lost,
            n.receiver.stats().loss_events
        ),
        (1, 1)
    );
    let first_p = n
        .feedback
        .iter()
        .find(|f| f.2 > 0.0)
        .expect("a report with p > 0");
    let t41 = n
        .sent
        .iter()
        .find(|&&(_, s)| s == 41)
        .expect("41 was sent")
        .0;
    assert_eq!(
        first_p.0,
        t41 + SimDuration::from_millis(100),
        "reported when 41 arrived"
    );
    assert!(!n.sender.in_slow_start());
}

#[test]
fn ns2_28_runs_end_to_end_with_ns2s_receiver_and_parts_from_ns2_in_slow_start() {
    // same segment size for both (ns2_28's own default has no header bytes)
    let p28 = Params {
        header_bytes: 32,
        ..Params::ns2_28()
    };
    let (mut a, mut b) = (Net::new(&Params::ns2(), 50), Net::new(&p28, 50));
    for n in [&mut a, &mut b] {
        n.lose = vec![40];
        n.start();
        n.run_ms(2000);
        // the receiver's rules are ns-2.35's for both: the one gap is one loss and one event
        assert_eq!(
            (
                n.receiver.stats().packets_lost,
                n.receiver.stats().loss_events
            ),
            (1, 1)
        );
        assert!(!n.sender.in_slow_start());
    }
    // the same four reports (one every 100 ms: X_recv 1, 10, 40, 40 packets/s × s). At the
    // third (300 ms) the rate is 40 packets/s and 2·X_recv 80: doubling would not stay below
    // it in either release. 2.35 changes nothing (its last change was the second report,
    // not more than R before: 2.35 l.469–474, l.485–486); 2.28's last change was the first
    // report, so it sets 2·X_recv (2.28 l.478–485), and the fifth report already sees more
    assert_eq!(a.feedback[..4], b.feedback[..4]);
    let (xa, xb) = (a.feedback[4].1, b.feedback[4].1);
    assert!(
        close(xa, 40.0 * S, 1e-9) && close(xb, 60.0 * S, 1e-9),
        "fifth X_recv: ns2 {xa}, ns2_28 {xb}"
    );
    // and 2.28 reaches the loss (packet 40) sooner
    let first_loss = |n: &Net| {
        n.feedback
            .iter()
            .find(|f| f.2 > 0.0)
            .expect("a loss report")
            .0
    };
    assert!(first_loss(&b) < first_loss(&a));
}

// ------------------------------------------------------------------------------------------
// The whole model in the engine: one TFRC flow alone on a link with Bernoulli loss.

/// A flow over a 100 Mb/s link (never the limit here) with one-way delay 50 ms and loss `p`
/// on the data direction: (X̄ in kb/s of s, loss events per packet received, mean of the p
/// reported, mean RTT, loss events).
fn bernoulli_run(rules: Rules, p: f64, seconds: u64) -> (f64, f64, f64, f64, u64) {
    let preset = if rules == Rules::Ns2 { "ns2" } else { "rfc" };
    let text = format!(
        "[scenario]\nduration = \"{seconds}s\"\nwarmup = \"20s\"\n\
         [[node]]\nname = \"a\"\n[[node]]\nname = \"b\"\n\
         [[link]]\nbetween = [\"a\", \"b\"]\nrate = \"100Mbps\"\ndelay = \"50ms\"\nloss = {p}\n\
         queue = {{ limit = \"10000pkt\" }}\n\
         [[flow]]\nname = \"f\"\nfrom = \"a\"\nto = \"b\"\nkind = \"tfrc\"\npreset = \"{preset}\"\n"
    );
    let spec = crate::scenario::load_str(&text, "bernoulli.toml", &[]).expect("valid");
    let report = crate::world::run(&spec, None).expect("conserves packets");
    let f = &report.flows[0];
    let events = f.loss_events.unwrap();
    let per_packet = events as f64 / f.packets_delivered as f64;
    (
        f.x_kbps.unwrap(),
        per_packet,
        f.loss_event_rate.unwrap(),
        f.rtt_mean_s.unwrap(),
        events,
    )
}

#[test]
fn alone_with_bernoulli_loss_tfrc_sends_at_the_equations_rate() {
    // RFC 5348 §3.1 at the flow's loss event rate (loss events per packet, as the receiver
    // detected them) and the RTT the sender measured: within 10 % for packet loss rates from
    // 0.1 % to 10 %
    for (p, seconds) in [
        (0.001, 1500),
        (0.003, 800),
        (0.01, 400),
        (0.03, 300),
        (0.1, 300),
    ] {
        let (x_kbps, p_event, p_reported, rtt, events) = bernoulli_run(Rules::Rfc5348, p, seconds);
        assert!(events > 150, "p = {p}: only {events} loss events");
        let eq_kbps = x_rfc(S, rtt, p_event) * 8e-3;
        eprintln!("p = {p}: X̄ {x_kbps:.1} kb/s, equation {eq_kbps:.1} kb/s at p = {p_event:.5} (reported {p_reported:.5}), R = {rtt:.4}, {events} events");
        assert!(close(x_kbps, eq_kbps, 0.10), "p = {p}: X̄ {x_kbps:.1} kb/s, equation {eq_kbps:.1} kb/s at p = {p_event:.5}, R = {rtt:.4}");
        assert!(
            p_event <= p * 1.1,
            "a loss event holds one or more losses: {p_event} > {p}"
        );
    }
}
