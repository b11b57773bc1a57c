//! Which queued packet receives an ECN congestion mark: mark-tail, mark-front, mark-random, and
//! Leung & Muppala's OUT marking scheme.
//!
//! Read this first.
//! - Source: Leung & Muppala (paper 004), §2 and §5.1. Mark-tail marks the packet just joining
//!   the queue (Floyd's ECN, their [5]); mark-front the packet at the head of the queue (Liu &
//!   Jain, their [12]); mark-random one packet of the queue picked at random (their [11]). The
//!   OUT marking scheme (their Table 5) applies the same position rule to the *virtual OUT
//!   queue* — the OUT packets of RIO's single FIFO — while one is queued, and to the IN packets
//!   when none is. ECN itself: RFC 3168 §5 (a router sets CE only in a packet that is ECN-capable:
//!   ECT(0), ECT(1), or already CE).
//! - API: an AQM (RED, RIO, WRED) that decides to signal congestion on an arrival calls
//!   `signal` with its FIFO of queued `PacketId`s (head first) and the arriving packet, which
//!   is counted as the tail of the queue it is joining. `rank` tells the OUT scheme which
//!   packets are preferred: the candidates of the highest rank present are chosen from (RIO
//!   passes 0 for IN, 1 for OUT; WRED passes the drop-precedence level, which generalises the
//!   scheme to more than two colours).
//! - Table 5, row by row, for the three ECN columns (tests in `queue::rio`, `table5_*`): OUT
//!   queue not empty — tail: "packet at the tail of OUT queue is marked" (the last OUT packet
//!   of the FIFO, the arrival if it is OUT: the arrival has joined the queue, as in ns-2
//!   `dsredq.cc`, which enqueues an ECN-capable arrival before deciding); front: "the head of
//!   OUT queue"; random: "selected at random … from the OUT queue". OUT queue empty — the same
//!   three over the IN packets (tail: the IN arrival itself). "When the RIO queue decides to
//!   drop/mark a packet": the decision is RIO's for the *arrival's* colour and average; with
//!   ns-2 DiffServ's rule (`red::Common::ecn_forced_mark`) that includes an average beyond
//!   max_th, where plain ns-2 RED (`red.cc`) would drop. What differed before: the forced
//!   region (a drop, never a mark); completed by `ecn_forced_mark`. The non-ECN column ("the
//!   packet at the tail of OUT queue is dropped": a push-out of a queued packet) is not
//!   modelled — the paper's figures with the schemes (Figs. 7–10) use the three ECN columns.
//! - Choices where the paper is silent:
//!   - mark-random picks uniformly among the queued packets *and* the arriving one (one draw
//!     from the queue's own stream); mark-tail and mark-front draw nothing.
//!   - If the chosen packet is not ECN-capable, the congestion signal becomes a drop of the
//!     *arriving* packet: a discipline can only refuse the arrival (`enqueue` returns `Err`),
//!     so Table 5's "non-ECN: the packet at the tail of the OUT queue is dropped" (a push-out
//!     of a queued packet) is not modelled; ns-2 RED would drop the chosen packet instead.
//!     Under a separate marking curve (`queue::red`, `Common::mark`) the discipline ignores
//!     `NotEcnCapable` instead: the signal is lost and the arrival is queued.
//!
//! Not modelled: push-out drops of queued packets, marking on dequeue.

use crate::sim::ring::Ring;

use crate::net::packet::{Ecn, Packet, PacketId, Pool};
use crate::sim::rng::Rng;

/// Where in the queue the mark goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Position {
    /// The arriving packet (mark-tail).
    Tail,
    /// The packet at the head of the queue (mark-front).
    Front,
    /// A packet of the queue chosen uniformly at random (mark-random).
    Random,
}

/// An ECN marking strategy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Strategy {
    pub position: Position,
    /// Leung & Muppala's OUT marking scheme: apply `position` to the packets of the highest
    /// rank present (OUT before IN) instead of to the whole queue.
    pub out_first: bool,
}

impl Strategy {
    /// Plain mark-tail, the ECN behaviour of ns-2 RED (`setbit_`).
    pub const MARK_TAIL: Strategy = Strategy {
        position: Position::Tail,
        out_first: false,
    };
    pub const MARK_FRONT: Strategy = Strategy {
        position: Position::Front,
        out_first: false,
    };
    pub const MARK_RANDOM: Strategy = Strategy {
        position: Position::Random,
        out_first: false,
    };
}

/// The outcome of a congestion signal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Signal {
    /// This packet (queued, or the arriving one) now carries CE.
    Marked(PacketId),
    /// The chosen packet cannot carry ECN: the discipline drops the arriving packet instead.
    NotEcnCapable(PacketId),
}

/// The `i`-th candidate: the queued packets head first, then the arriving packet.
#[inline]
fn candidate(fifo: &Ring<PacketId>, arriving: PacketId, i: usize) -> PacketId {
    if i < fifo.len() {
        fifo[i]
    } else {
        arriving
    }
}

/// Index into `0..n` from one uniform draw.
#[inline]
fn pick_index(n: usize, rng: &mut Rng) -> usize {
    ((rng.uniform() * n as f64) as usize).min(n - 1)
}

/// Chooses the packet that receives the congestion signal (see the module doc). `rank` is
/// asked only when `strategy.out_first`.
pub fn choose(
    strategy: Strategy,
    fifo: &Ring<PacketId>,
    arriving: PacketId,
    rank: impl Fn(PacketId) -> u8,
    rng: &mut Rng,
) -> PacketId {
    let n = fifo.len() + 1;
    if !strategy.out_first {
        return match strategy.position {
            // Leung & Muppala: "the packet just joining the queue is marked".
            Position::Tail => arriving,
            // "the packet at the front of the queue is marked".
            Position::Front => candidate(fifo, arriving, 0),
            // "one packet from the queue is picked at random".
            Position::Random => candidate(fifo, arriving, pick_index(n, rng)),
        };
    }
    // Table 5: select from the OUT queue while it is not empty, else from the IN queue —
    // i.e. from the candidates of the highest rank present.
    let target = (0..n)
        .map(|i| rank(candidate(fifo, arriving, i)))
        .max()
        .expect("n >= 1");
    let mut of_target = (0..n)
        .map(|i| candidate(fifo, arriving, i))
        .filter(|&id| rank(id) == target);
    match strategy.position {
        // "Packet at the tail of OUT queue is marked".
        Position::Tail => of_target.last().expect("target rank is present"),
        // "Packet at the head of OUT queue is marked".
        Position::Front => of_target.next().expect("target rank is present"),
        // "Packet is selected at random to mark from the OUT queue".
        Position::Random => {
            let m = (0..n)
                .filter(|&i| rank(candidate(fifo, arriving, i)) == target)
                .count();
            let k = pick_index(m, rng);
            of_target.nth(k).expect("k < m")
        }
    }
}

/// Whether a packet may carry CE (RFC 3168 §5: ECT(0), ECT(1), or CE already).
#[inline]
pub fn ecn_capable(p: &Packet) -> bool {
    p.ecn != Ecn::NotEct
}

/// Chooses the packet for a congestion signal and, if it is ECN-capable, sets CE in it
/// (RFC 3168 §5: a router marks instead of dropping an ECN-capable packet).
pub fn signal(
    strategy: Strategy,
    fifo: &Ring<PacketId>,
    arriving: PacketId,
    pool: &mut Pool,
    rank: impl Fn(&Packet) -> u8,
    rng: &mut Rng,
) -> Signal {
    let victim = {
        let pool_ref: &Pool = pool;
        choose(strategy, fifo, arriving, |id| rank(pool_ref.get(id)), rng)
    };
    let p = pool.get_mut(victim);
    if ecn_capable(p) {
        p.ecn = Ecn::Ce;
        Signal::Marked(victim)
    } else {
        Signal::NotEcnCapable(victim)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::rng::stream;

    const IN: u8 = 10; // AF11
    const OUT: u8 = 12; // AF12

    /// A pool and a FIFO holding packets of the given DSCPs (all ECT(0)), plus an arriving one.
    fn queue_of(dscps: &[u8], arriving: u8) -> (Pool, Ring<PacketId>, PacketId) {
        let mut pool = Pool::new();
        let fifo = dscps
            .iter()
            .map(|&d| {
                pool.alloc(Packet {
                    dscp: d,
                    ecn: Ecn::Ect0,
                    size: 1000,
                    ..Default::default()
                })
            })
            .collect();
        let a = pool.alloc(Packet {
            dscp: arriving,
            ecn: Ecn::Ect0,
            size: 1000,
            ..Default::default()
        });
        (pool, fifo, a)
    }

    fn out_rank(p: &Packet) -> u8 {
        u8::from(p.dscp == OUT)
    }

    fn mark(
        s: Strategy,
        dscps: &[u8],
        arriving: u8,
        seed: u64,
    ) -> (Pool, Ring<PacketId>, PacketId, Signal) {
        let (mut pool, fifo, a) = queue_of(dscps, arriving);
        let mut rng = stream(seed, "queue/ecn");
        let sig = signal(s, &fifo, a, &mut pool, out_rank, &mut rng);
        (pool, fifo, a, sig)
    }

    #[test]
    fn mark_tail_marks_the_arriving_packet() {
        let (pool, fifo, a, sig) = mark(Strategy::MARK_TAIL, &[IN, IN, IN], IN, 1);
        assert_eq!(sig, Signal::Marked(a));
        assert_eq!(pool.get(a).ecn, Ecn::Ce);
        assert!(
            fifo.iter().all(|&id| pool.get(id).ecn == Ecn::Ect0),
            "queued packets untouched"
        );
    }

    #[test]
    fn mark_front_marks_the_head_of_the_queue() {
        let (pool, fifo, a, sig) = mark(Strategy::MARK_FRONT, &[IN, IN, IN], IN, 1);
        assert_eq!(sig, Signal::Marked(fifo[0]));
        assert_eq!(pool.get(fifo[0]).ecn, Ecn::Ce);
        assert_eq!(pool.get(a).ecn, Ecn::Ect0);
    }

    #[test]
    fn mark_front_on_an_empty_queue_marks_the_arrival() {
        let (_, _, a, sig) = mark(Strategy::MARK_FRONT, &[], IN, 1);
        assert_eq!(sig, Signal::Marked(a));
    }

    #[test]
    fn mark_random_picks_every_position_about_equally() {
        let (pool, fifo, a) = queue_of(&[IN, IN, IN], IN);
        let mut rng = stream(5, "queue/ecn");
        let mut hits = [0u32; 4];
        for _ in 0..40_000 {
            let v = choose(Strategy::MARK_RANDOM, &fifo, a, |_| 0, &mut rng);
            let pos = fifo.iter().position(|&id| id == v).unwrap_or(3);
            hits[pos] += 1;
        }
        for h in hits {
            assert!((f64::from(h) / 40_000.0 - 0.25).abs() < 0.01, "{hits:?}");
        }
        drop(pool);
    }

    #[test]
    fn mark_random_is_reproducible_from_the_seed() {
        let picks = |seed| {
            let (_, fifo, a) = queue_of(&[IN; 20], IN);
            let mut rng = stream(seed, "queue/ecn");
            (0..50)
                .map(|_| choose(Strategy::MARK_RANDOM, &fifo, a, |_| 0, &mut rng))
                .collect::<Vec<_>>()
        };
        assert_eq!(picks(9), picks(9));
        assert_ne!(picks(9), picks(10));
    }

    #[test]
    fn tail_and_front_draw_no_random_numbers() {
        let (_, fifo, a) = queue_of(&[IN, OUT], IN);
        let mut rng = stream(2, "queue/ecn");
        let next = rng.clone().next_u64();
        for pos in [Position::Tail, Position::Front] {
            for out_first in [false, true] {
                choose(
                    Strategy {
                        position: pos,
                        out_first,
                    },
                    &fifo,
                    a,
                    |_| 0,
                    &mut rng,
                );
            }
        }
        assert_eq!(rng.next_u64(), next);
    }

    #[test]
    fn out_scheme_tail_marks_the_last_queued_out_packet_when_an_in_packet_arrives() {
        let s = Strategy {
            position: Position::Tail,
            out_first: true,
        };
        let (pool, fifo, a, sig) = mark(s, &[IN, OUT, IN, OUT, IN], IN, 1);
        assert_eq!(sig, Signal::Marked(fifo[3]));
        assert_eq!(pool.get(a).ecn, Ecn::Ect0);
    }

    #[test]
    fn out_scheme_tail_marks_the_arrival_when_it_is_out() {
        let s = Strategy {
            position: Position::Tail,
            out_first: true,
        };
        let (_, _, a, sig) = mark(s, &[IN, OUT, IN], OUT, 1);
        assert_eq!(sig, Signal::Marked(a));
    }

    #[test]
    fn out_scheme_front_marks_the_first_out_packet() {
        let s = Strategy {
            position: Position::Front,
            out_first: true,
        };
        let (_, fifo, _, sig) = mark(s, &[IN, IN, OUT, IN, OUT], IN, 1);
        assert_eq!(sig, Signal::Marked(fifo[2]));
    }

    #[test]
    fn out_scheme_random_only_ever_picks_out_packets_while_one_is_queued() {
        let s = Strategy {
            position: Position::Random,
            out_first: true,
        };
        let (pool, fifo, a) = queue_of(&[IN, OUT, IN, IN, OUT, IN, OUT], IN);
        let mut rng = stream(3, "queue/ecn");
        let mut seen = std::collections::BTreeSet::new();
        for _ in 0..3_000 {
            let v = choose(s, &fifo, a, |id| out_rank(pool.get(id)), &mut rng);
            assert_eq!(pool.get(v).dscp, OUT);
            seen.insert(v);
        }
        assert_eq!(seen.len(), 3, "all three OUT packets get picked");
    }

    #[test]
    fn out_scheme_falls_back_to_in_packets_when_no_out_is_queued() {
        let queued = [IN, IN, IN];
        let tail = mark(
            Strategy {
                position: Position::Tail,
                out_first: true,
            },
            &queued,
            IN,
            1,
        );
        assert_eq!(
            tail.3,
            Signal::Marked(tail.2),
            "tail of the IN queue: the arrival"
        );
        let front = mark(
            Strategy {
                position: Position::Front,
                out_first: true,
            },
            &queued,
            IN,
            1,
        );
        assert_eq!(front.3, Signal::Marked(front.1[0]), "head of the IN queue");
        let (pool, fifo, a) = queue_of(&queued, IN);
        let mut rng = stream(4, "queue/ecn");
        let mut seen = std::collections::BTreeSet::new();
        for _ in 0..2_000 {
            seen.insert(choose(
                Strategy {
                    position: Position::Random,
                    out_first: true,
                },
                &fifo,
                a,
                |id| out_rank(pool.get(id)),
                &mut rng,
            ));
        }
        assert_eq!(
            seen.len(),
            4,
            "random over all IN packets, the arrival included"
        );
    }

    #[test]
    fn higher_rank_wins_with_more_than_two_levels() {
        let (pool, fifo, a) = queue_of(&[10, 14, 12, 14, 12], 12);
        let mut rng = stream(1, "queue/ecn");
        let level = |id: PacketId| (pool.get(id).dscp - 10) / 2;
        let s = Strategy {
            position: Position::Front,
            out_first: true,
        };
        assert_eq!(
            choose(s, &fifo, a, level, &mut rng),
            fifo[1],
            "first of the highest level (AF13)"
        );
    }

    #[test]
    fn chosen_packet_that_is_not_ecn_capable_is_reported_and_left_alone() {
        let (mut pool, fifo, a) = queue_of(&[IN, IN], IN);
        pool.get_mut(fifo[0]).ecn = Ecn::NotEct;
        let mut rng = stream(1, "queue/ecn");
        let sig = signal(
            Strategy::MARK_FRONT,
            &fifo,
            a,
            &mut pool,
            out_rank,
            &mut rng,
        );
        assert_eq!(sig, Signal::NotEcnCapable(fifo[0]));
        assert_eq!(pool.get(fifo[0]).ecn, Ecn::NotEct);
    }

    #[test]
    fn ect1_and_ce_packets_are_ecn_capable() {
        for ecn in [Ecn::Ect1, Ecn::Ce] {
            let (mut pool, fifo, a) = queue_of(&[], IN);
            pool.get_mut(a).ecn = ecn;
            let mut rng = stream(1, "queue/ecn");
            assert_eq!(
                signal(Strategy::MARK_TAIL, &fifo, a, &mut pool, out_rank, &mut rng),
                Signal::Marked(a)
            );
            assert_eq!(pool.get(a).ecn, Ecn::Ce);
        }
    }
}
