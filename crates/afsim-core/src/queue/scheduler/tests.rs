use super::*;
use crate::net::dscp::{ColourTable, AF11, AF12, AF13, AF21, BE, EF};
use crate::net::packet::Packet;
use crate::queue::red::{Common, Curve};
use crate::queue::rio::{self, Coupling};
use crate::scenario::spec::{ClassSpec, Limit, QueueSpec, SchedulerError};
use crate::sim::rng::stream;

const RATE: u64 = 10_000_000;

fn droptail(limit: u32) -> QueueSpec {
    QueueSpec::DropTail {
        limit: Limit::Packets(limit),
    }
}

fn class(name: &str, dscp: &[u8], service: Service) -> ClassSpec {
    ClassSpec {
        name: name.into(),
        dscp: dscp.to_vec(),
        default: false,
        service,
        queue: droptail(1000),
    }
}

fn default_class(name: &str, service: Service) -> ClassSpec {
    ClassSpec {
        default: true,
        ..class(name, &[], service)
    }
}

fn scheduler(policy: Policy, classes: Vec<ClassSpec>) -> Scheduler {
    Scheduler::new(&SchedulerSpec { policy, classes }, RATE)
}

/// EF, AF1 and best effort (default) under strict priority.
fn ef_af_be_priority() -> Scheduler {
    scheduler(
        Policy::Priority,
        vec![
            class("ef", &[EF], Service::Priority),
            class("af1", &[AF11, AF12, AF13], Service::Priority),
            default_class("be", Service::Priority),
        ],
    )
}

/// A test bench: a pool, a random stream, and the packets that left.
struct Bench {
    pool: Pool,
    rng: Rng,
    now: SimTime,
}

impl Bench {
    fn new() -> Self {
        Bench {
            pool: Pool::new(),
            rng: stream(1, "q"),
            now: SimTime::ZERO,
        }
    }

    fn offer(&mut self, s: &mut Scheduler, dscp: u8, size: u32) -> Result<(), DropReason> {
        let id = self.pool.alloc(Packet {
            dscp,
            size,
            ..Default::default()
        });
        let r = s.enqueue(self.now, id, &mut self.pool, &mut self.rng);
        if r.is_err() {
            self.pool.free(id);
        }
        r
    }

    fn offer_n(&mut self, s: &mut Scheduler, n: usize, dscp: u8, size: u32) {
        for _ in 0..n {
            self.offer(s, dscp, size).expect("accepted");
        }
    }

    /// Dequeues up to `n` packets; returns their (dscp, size).
    fn serve(&mut self, s: &mut Scheduler, n: usize) -> Vec<(u8, u32)> {
        let mut out = Vec::new();
        for _ in 0..n {
            let Some(id) = s.dequeue(self.now, &mut self.pool) else {
                break;
            };
            let p = *self.pool.get(id);
            self.pool.free(id);
            out.push((p.dscp, p.size));
        }
        out
    }
}

fn bytes_of(out: &[(u8, u32)], dscp: u8) -> u64 {
    out.iter()
        .filter(|p| p.0 == dscp)
        .map(|p| u64::from(p.1))
        .sum()
}

fn packets_of(out: &[(u8, u32)], dscp: u8) -> usize {
    out.iter().filter(|p| p.0 == dscp).count()
}

#[test]
fn unlisted_code_points_go_to_the_default_class() {
    let s = ef_af_be_priority();
    assert_eq!(s.class_of(EF), 0);
    assert_eq!(s.class_of(AF12), 1);
    assert_eq!(s.class_of(BE), 2);
    assert_eq!(s.class_of(AF21), 2, "AF2 is listed nowhere");
    assert_eq!(s.class_of(200), 2, "out of range never panics");
}

#[test]
fn strict_priority_serves_ef_first_whatever_arrived_earlier() {
    let mut s = ef_af_be_priority();
    let mut b = Bench::new();
    b.offer_n(&mut s, 3, BE, 1000);
    b.offer_n(&mut s, 2, AF11, 1000);
    b.offer_n(&mut s, 2, EF, 200);
    let out = b.serve(&mut s, 10);
    let order: Vec<u8> = out.iter().map(|p| p.0).collect();
    assert_eq!(order, [EF, EF, AF11, AF11, BE, BE, BE]);
    s.check().unwrap();
}

#[test]
fn strict_priority_starves_lower_classes_while_ef_is_backlogged() {
    let mut s = ef_af_be_priority();
    let mut b = Bench::new();
    b.offer_n(&mut s, 10, BE, 1000);
    b.offer_n(&mut s, 10, AF11, 1000);
    // EF keeps arriving one packet per departure: nothing else ever leaves.
    b.offer(&mut s, EF, 200).unwrap();
    for _ in 0..100 {
        b.offer(&mut s, EF, 200).unwrap();
        assert_eq!(b.serve(&mut s, 1), [(EF, 200)]);
    }
    assert_eq!(
        s.classes()[1].stats.departures + s.classes()[2].stats.departures,
        0
    );
    s.check().unwrap();
}

/// Two backlogged classes, equal quanta of 1500 B, one sending 500 B packets and the other
/// 1500 B packets: each round gives both 1500 B, so the bytes served never differ by more
/// than a quantum (Shreedhar & Varghese's fairness bound), though the packet counts are 3:1.
#[test]
fn drr_equal_quanta_share_bytes_equally_with_unequal_packet_sizes() {
    let mut s = scheduler(
        Policy::Drr,
        vec![
            class("small", &[AF11], Service::Quantum(1500)),
            default_class("big", Service::Quantum(1500)),
        ],
    );
    let mut b = Bench::new();
    b.offer_n(&mut s, 600, AF11, 500);
    b.offer_n(&mut s, 200, BE, 1500);
    let mut out = Vec::new();
    for _ in 0..400 {
        out.extend(b.serve(&mut s, 1));
        let gap = bytes_of(&out, AF11).abs_diff(bytes_of(&out, BE));
        assert!(
            gap <= 1500,
            "after {} packets the byte gap is {gap}",
            out.len()
        );
    }
    assert_eq!(bytes_of(&out, AF11), bytes_of(&out, BE));
    assert_eq!(packets_of(&out, AF11), 3 * packets_of(&out, BE));
    s.check().unwrap();
}

#[test]
fn drr_shares_bytes_in_proportion_to_quanta() {
    let mut s = scheduler(
        Policy::Drr,
        vec![
            class("af1", &[AF11], Service::Quantum(3000)),
            class("af2", &[AF21], Service::Quantum(1500)),
            default_class("be", Service::Quantum(1500)),
        ],
    );
    let mut b = Bench::new();
    b.offer_n(&mut s, 900, AF11, 500);
    b.offer_n(&mut s, 300, AF21, 1000);
    b.offer_n(&mut s, 300, BE, 1500);
    // a round is 3000 + 1500 + 1500 bytes: 6 + 1.5 + 1 packets on average; serve 100 rounds
    let out = b.serve(&mut s, 850);
    let (a1, a2, be) = (
        bytes_of(&out, AF11) as f64,
        bytes_of(&out, AF21) as f64,
        bytes_of(&out, BE) as f64,
    );
    assert!((a1 / a2 - 2.0).abs() < 0.05, "af1 {a1} af2 {a2}");
    assert!((a2 / be - 1.0).abs() < 0.05, "af2 {a2} be {be}");
    s.check().unwrap();
}

#[test]
fn drr_head_larger_than_the_quantum_waits_for_enough_rounds() {
    let mut s = scheduler(
        Policy::Drr,
        vec![
            class("jumbo", &[AF11], Service::Quantum(500)),
            default_class("be", Service::Quantum(500)),
        ],
    );
    let mut b = Bench::new();
    b.offer_n(&mut s, 1, AF11, 1500);
    b.offer_n(&mut s, 10, BE, 500);
    let order: Vec<u8> = b.serve(&mut s, 11).iter().map(|p| p.0).collect();
    // the jumbo class needs three quanta; best effort sends one 500 B packet per turn meanwhile
    assert_eq!(&order[..3], [BE, BE, AF11]);
    s.check().unwrap();
}

#[test]
fn wrr_shares_packets_by_weight_whatever_their_size() {
    let mut s = scheduler(
        Policy::Wrr,
        vec![
            class("af1", &[AF11], Service::Weight(3)),
            default_class("be", Service::Weight(1)),
        ],
    );
    let mut b = Bench::new();
    b.offer_n(&mut s, 100, AF11, 1500);
    b.offer_n(&mut s, 100, BE, 40);
    let out = b.serve(&mut s, 80);
    let order: Vec<u8> = out.iter().map(|p| p.0).take(8).collect();
    assert_eq!(
        order,
        [AF11, AF11, AF11, BE, AF11, AF11, AF11, BE],
        "3 then 1 per round"
    );
    assert_eq!((packets_of(&out, AF11), packets_of(&out, BE)), (60, 20));
    s.check().unwrap();
}

#[test]
fn a_class_that_empties_keeps_no_deficit() {
    let mut s = scheduler(
        Policy::Drr,
        vec![
            class("af1", &[AF11], Service::Quantum(1500)),
            default_class("be", Service::Quantum(1500)),
        ],
    );
    let mut b = Bench::new();
    // af1 sends one 100 B packet out of its 1500 B quantum, then empties
    b.offer_n(&mut s, 1, AF11, 100);
    b.offer_n(&mut s, 20, BE, 1500);
    assert_eq!(b.serve(&mut s, 1), [(AF11, 100)]);
    assert_eq!(s.classes()[0].deficit(), 0, "1400 B unused is forfeited");
    s.check().unwrap();
    // be now takes its turn; af1 comes back with exactly one quantum, not 1400 + 1500
    assert_eq!(b.serve(&mut s, 1), [(BE, 1500)]);
    b.offer_n(&mut s, 10, AF11, 500);
    assert_eq!(s.classes()[0].deficit(), 1500);
    let order: Vec<u8> = b.serve(&mut s, 6).iter().map(|p| p.0).collect();
    // be's first turn had one quantum (one packet); then af1 three 500 B packets, be one ...
    assert_eq!(order, [AF11, AF11, AF11, BE, AF11, AF11]);
    s.check().unwrap();
}

#[test]
fn priority_class_above_drr_goes_first_and_the_rest_share_by_quanta() {
    let mut s = scheduler(
        Policy::Drr,
        vec![
            class("ef", &[EF], Service::Priority),
            class("af1", &[AF11, AF12, AF13], Service::Quantum(1500)),
            default_class("be", Service::Quantum(1500)),
        ],
    );
    let mut b = Bench::new();
    b.offer_n(&mut s, 20, AF11, 1500);
    b.offer_n(&mut s, 20, BE, 1500);
    assert_eq!(b.serve(&mut s, 2), [(AF11, 1500), (BE, 1500)]);
    b.offer_n(&mut s, 2, EF, 200);
    assert_eq!(
        b.serve(&mut s, 2),
        [(EF, 200), (EF, 200)],
        "EF overtakes the round robin"
    );
    assert_eq!(
        s.classes()[0].deficit(),
        0,
        "priority classes have no deficit"
    );
    let out = b.serve(&mut s, 10);
    assert_eq!((packets_of(&out, AF11), packets_of(&out, BE)), (5, 5));
    s.check().unwrap();
}

fn rio_queue() -> QueueSpec {
    let mut common = Common::new(RATE, Limit::Packets(200));
    common.w_q = 0.02;
    QueueSpec::Rio(
        rio::Params {
            in_curve: Curve {
                min_th: 40.0,
                max_th: 70.0,
                max_p: 0.02,
            },
            out_curve: Curve {
                min_th: 10.0,
                max_th: 30.0,
                max_p: 0.1,
            },
            coupling: Coupling::Coupled,
            common,
        },
        ColourTable::rfc2597(),
    )
}

#[test]
fn rio_inside_a_drr_class_still_drops_out_before_in() {
    let af1 = ClassSpec {
        queue: rio_queue(),
        ..class("af1", &[AF11, AF12, AF13], Service::Quantum(1500))
    };
    let mut s = scheduler(
        Policy::Drr,
        vec![af1, default_class("be", Service::Quantum(1500))],
    );
    let mut b = Bench::new();
    b.offer_n(&mut s, 50, BE, 1000);
    // One AF1 arrival per step, one IN (AF11) for two OUT (AF12); the link serves one packet
    // per step and best effort stays backlogged, so AF1's equal DRR share drains half an
    // arrival per step: IN (1/3) fits, OUT (2/3) must lose three quarters.
    let (mut dropped_in, mut dropped_out) = (0, 0);
    for i in 0..6000u64 {
        b.now = SimTime(i * 400_000);
        let dscp = if i % 3 == 0 { AF11 } else { AF12 };
        if b.offer(&mut s, dscp, 1000).is_err() {
            *if dscp == AF11 {
                &mut dropped_in
            } else {
                &mut dropped_out
            } += 1;
        }
        if s.classes()[1].queue().len_packets() < 10 {
            b.offer_n(&mut s, 10, BE, 1000);
        }
        b.serve(&mut s, 1);
    }
    assert!(dropped_out > 2000, "OUT absorbs the excess: {dropped_out}");
    assert!(
        dropped_in * 10 < dropped_out,
        "IN {dropped_in} vs OUT {dropped_out}"
    );
    let AnyQueue::Rio(q) = s.classes()[0].queue() else {
        panic!("af1 runs RIO")
    };
    q.check_conservation().unwrap();
    let af1 = &s.classes()[0].stats;
    assert_eq!(af1.total_drops(), dropped_in + dropped_out);
    assert_eq!(
        af1.drops[DropReason::Overflow.index()],
        0,
        "RIO dropped early, never at the limit"
    );
    s.check().unwrap();
}

#[test]
fn counters_identities_hold_with_drops_in_every_class() {
    let tiny = |c: ClassSpec| ClassSpec {
        queue: QueueSpec::DropTail {
            limit: Limit::Packets(5),
        },
        ..c
    };
    let mut s = scheduler(
        Policy::Drr,
        vec![
            tiny(class("ef", &[EF], Service::Priority)),
            tiny(class("af1", &[AF11], Service::Quantum(700))),
            tiny(default_class("be", Service::Quantum(300))),
        ],
    );
    let mut b = Bench::new();
    let mut rng = stream(7, "test/mix");
    let dscps = [EF, AF11, BE, AF21];
    let mut accepted = 0u64;
    for _ in 0..2000 {
        let d = dscps[(rng.uniform() * 4.0) as usize % 4];
        let size = 40 + (rng.uniform() * 1460.0) as u32;
        accepted += u64::from(b.offer(&mut s, d, size).is_ok());
        // each class offers 1/4 (best effort 1/2) per step, more than the 1/5 served
        if rng.uniform() < 0.2 {
            b.serve(&mut s, 1);
        }
        s.check().unwrap();
    }
    let total = |f: fn(&ClassStats) -> u64| s.classes().iter().map(|c| f(&c.stats)).sum::<u64>();
    assert_eq!(total(|c| c.arrivals), 2000);
    assert_eq!(
        total(|c| c.arrivals) - total(ClassStats::total_drops),
        accepted
    );
    assert!(
        s.classes().iter().all(|c| c.stats.total_drops() > 0),
        "every class overflowed"
    );
}

#[test]
fn queued_lists_exactly_the_packets_accepted_and_not_yet_served() {
    let mut s = scheduler(
        Policy::Drr,
        vec![
            ClassSpec {
                queue: droptail(3),
                ..class("ef", &[EF], Service::Priority)
            },
            class("af1", &[AF11], Service::Quantum(1000)),
            default_class("be", Service::Quantum(1000)),
        ],
    );
    let mut b = Bench::new();
    let mut held = std::collections::BTreeSet::new();
    for i in 0..60u32 {
        let dscp = [EF, AF11, BE][(i % 3) as usize];
        let id = b.pool.alloc(Packet {
            dscp,
            size: 100 + 10 * i,
            ..Default::default()
        });
        match s.enqueue(b.now, id, &mut b.pool, &mut b.rng) {
            Ok(()) => assert!(held.insert(id)),
            Err(_) => b.pool.free(id),
        }
        if i % 4 == 0 {
            let id = s.dequeue(b.now, &mut b.pool).unwrap();
            assert!(held.remove(&id), "a dequeued packet was queued");
            b.pool.free(id);
        }
    }
    let listed: std::collections::BTreeSet<PacketId> = s.queued().collect();
    assert_eq!(listed.len(), s.len_packets(), "no packet listed twice");
    assert_eq!(listed, held);
    assert_eq!(
        s.len_bytes(),
        listed
            .iter()
            .map(|&id| u64::from(b.pool.get(id).size))
            .sum::<u64>()
    );
    assert!(
        s.classes()[0].stats.total_drops() > 0,
        "the EF queue overflowed"
    );
}

#[test]
fn through_any_queue_the_scheduler_dispatches_and_lists_its_packets() {
    let spec = SchedulerSpec {
        policy: Policy::Priority,
        classes: vec![
            class("ef", &[EF], Service::Priority),
            default_class("be", Service::Priority),
        ],
    };
    let mut q = AnyQueue::from_spec(&QueueSpec::Scheduler(spec), RATE);
    let mut b = Bench::new();
    for dscp in [BE, EF] {
        let id = b.pool.alloc(Packet {
            dscp,
            size: 100,
            ..Default::default()
        });
        q.enqueue(b.now, id, &mut b.pool, &mut b.rng).unwrap();
    }
    assert_eq!(q.kind(), "scheduler");
    assert_eq!((q.len_packets(), q.len_bytes()), (2, 200));
    assert_eq!(q.queued().count(), 2);
    assert_eq!(q.ecn_marks(0), None, "drop-tail classes never mark");
    let first = q.dequeue(b.now, &mut b.pool).unwrap();
    assert_eq!(b.pool.get(first).dscp, EF);
    q.tx_ends(SimTime(1000));
}

fn valid() -> SchedulerSpec {
    SchedulerSpec {
        policy: Policy::Drr,
        classes: vec![
            class("ef", &[EF], Service::Priority),
            class("af1", &[AF11, AF12, AF13], Service::Quantum(1500)),
            default_class("be", Service::Quantum(1500)),
        ],
    }
}

fn invalid(tweak: impl FnOnce(&mut SchedulerSpec)) -> SchedulerError {
    let mut s = valid();
    tweak(&mut s);
    s.validate().expect_err("should be rejected")
}

fn class_field(e: &SchedulerError) -> (usize, &'static str) {
    match e {
        SchedulerError::Class { class, field, .. } => (*class, field),
        other => panic!("not a class error: {other}"),
    }
}

#[test]
fn validate_accepts_ef_over_drr() {
    valid().validate().unwrap();
}

#[test]
fn validate_rejects_no_class_and_a_missing_or_second_default() {
    assert!(matches!(
        invalid(|s| s.classes.clear()),
        SchedulerError::Scheduler {
            field: "classes",
            ..
        }
    ));
    let e = invalid(|s| s.classes[2] = class("be", &[BE], Service::Quantum(1500)));
    assert!(e.to_string().contains("default"), "{e}");
    assert_eq!(
        class_field(&invalid(|s| s.classes[1].default = true)),
        (2, "default")
    );
}

#[test]
fn validate_rejects_a_code_point_in_two_classes_and_non_6_bit_ones() {
    let e = invalid(|s| s.classes[2].dscp = vec![BE, AF12]);
    assert_eq!(class_field(&e), (2, "dscp"));
    assert!(
        e.to_string().contains("AF12 is already in class 'af1'"),
        "{e}"
    );
    assert_eq!(
        class_field(&invalid(|s| s.classes[0].dscp.push(64))),
        (0, "dscp")
    );
    assert_eq!(
        class_field(&invalid(|s| s.classes[1].dscp.clear())),
        (1, "dscp")
    );
}

#[test]
fn validate_rejects_zero_shares_and_shares_of_the_wrong_policy() {
    assert_eq!(
        class_field(&invalid(|s| s.classes[1].service = Service::Quantum(0))),
        (1, "quantum")
    );
    assert_eq!(
        class_field(&invalid(|s| s.classes[1].service = Service::Weight(2))),
        (1, "weight")
    );
    let e = invalid(|s| s.policy = Policy::Wrr);
    assert_eq!(class_field(&e), (1, "quantum"));
    let e = invalid(|s| {
        s.policy = Policy::Wrr;
        s.classes[1].service = Service::Weight(0);
        s.classes[2].service = Service::Weight(1);
    });
    assert_eq!(class_field(&e), (1, "weight"));
    assert_eq!(
        class_field(&invalid(|s| s.policy = Policy::Priority)),
        (1, "quantum")
    );
}

#[test]
fn validate_rejects_duplicate_names_and_nested_schedulers() {
    assert_eq!(
        class_field(&invalid(|s| s.classes[1].name = "ef".into())),
        (1, "name")
    );
    let e = invalid(|s| s.classes[2].queue = QueueSpec::Scheduler(valid()));
    assert_eq!(class_field(&e), (2, "queue"));
}

#[test]
fn validate_checks_the_class_queues_own_parameters_after_the_link_rate_is_set() {
    let mut s = valid();
    let mut q = rio_queue();
    if let QueueSpec::Rio(p, _) = &mut q {
        p.common.link_rate_bps = 0; // as the loader leaves it before the link is read
    }
    s.classes[1].queue = q;
    assert!(matches!(
        s.validate(),
        Err(SchedulerError::Queue { class: 1, .. })
    ));
    s.set_link_rate(RATE);
    s.validate().unwrap();
    if let QueueSpec::Rio(p, _) = &mut s.classes[1].queue {
        p.out_curve.max_p = 2.0;
    }
    let e = s.validate().unwrap_err();
    assert!(e.to_string().starts_with("classes[1].queue.out"), "{e}");
    let flat: crate::param::ParamError = e.into();
    assert_eq!(flat.field, "out");
}

#[test]
#[should_panic(expected = "invalid scheduler spec")]
fn building_an_invalid_spec_fails_loudly() {
    let mut s = valid();
    s.classes[0].default = true;
    Scheduler::new(&s, RATE);
}
