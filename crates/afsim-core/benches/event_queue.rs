//! `cargo bench -p afsim-core --bench event_queue`: the event queue alone, in the classic "hold"
//! model of priority-queue studies (pop the earliest event, schedule one later), with `n`
//! events pending. Prints ns per hold for the engine's `EventQueue` and for the `BinaryHeap`
//! on (time, sequence number) it replaced, which must hand out the same events.
//!
//! Two delay laws: "dumbbell" mixes what a dumbbell run schedules (transmission times of
//! 83.2 µs, propagation delays of 1 ms and 20 ms, now and then a retransmission timer of 200 ms
//! to 1 s); "exponential" is the textbook hold-model law (mean 1 ms), ties excluded; "rto"
//! re-arms retransmission-timer-like events only (200 ms to 1.2 s ahead, uniform), which at
//! 1,000,000 pending is the event queue of a million idle TCP flows (issue 28).

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::time::Instant;

use afsim_core::sim::event::{Event, EventQueue};
use afsim_core::SimTime;

/// The project's seeded stream (`sim::rng`).
struct Rng(afsim_core::sim::rng::Rng);
impl Rng {
    fn seeded(seed: u64) -> Self {
        Rng(afsim_core::sim::rng::stream(seed, "event-queue-bench"))
    }
    fn next(&mut self) -> u64 {
        self.0.next_u64()
    }
    fn delay(&mut self, law: Law) -> u64 {
        let r = self.next();
        if law == Law::Rto {
            return 200_000_000 + (r >> 11) % 1_000_000_000;
        }
        if law == Law::Exponential {
            let u = ((r >> 11) as f64 + 0.5) / (1u64 << 53) as f64;
            return (-u.ln() * 1e6) as u64;
        }
        match r % 100 {
            0..=59 => 83_200,
            60..=84 => 1_000_000 + (r >> 32) % 200_000,
            85..=98 => 20_000_000 + (r >> 32) % 200_000,
            _ => 200_000_000 + (r >> 32) % 800_000_000,
        }
    }
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum Law {
    Dumbbell,
    Exponential,
    Rto,
}

/// Holds timed per measurement (`AFSIM_EQ_HOLDS` changes it).
fn holds() -> u64 {
    env_list("AFSIM_EQ_HOLDS", &[4_000_000])[0]
}

/// A comma-separated list of numbers from the environment variable `var`, or `default`.
fn env_list(var: &str, default: &[u64]) -> Vec<u64> {
    std::env::var(var).map_or_else(
        |_| default.to_vec(),
        |v| v.split(',').map(|x| x.trim().parse().expect(var)).collect(),
    )
}

fn wheel(n: u64, law: Law) -> (f64, u64) {
    let mut rng = Rng::seeded(n);
    let mut q = EventQueue::new();
    for i in 0..n {
        q.schedule(SimTime(rng.delay(law)), Event::Arrive { port: i as u32 });
    }
    let t0 = Instant::now();
    let mut check = 0u64;
    for _ in 0..holds() {
        let (t, ev) = q.pop().expect("n > 0");
        let Event::Arrive { port } = ev else {
            unreachable!()
        };
        check = check.wrapping_mul(31).wrapping_add(t.0 ^ u64::from(port));
        q.schedule(SimTime(t.0 + rng.delay(law)), ev);
    }
    (t0.elapsed().as_secs_f64() * 1e9 / holds() as f64, check)
}

fn heap(n: u64, law: Law) -> (f64, u64) {
    let mut rng = Rng::seeded(n);
    let mut q = BinaryHeap::new();
    let mut seq = 0u64;
    for i in 0..n {
        q.push(Reverse((rng.delay(law), seq, i as u32)));
        seq += 1;
    }
    let t0 = Instant::now();
    let mut check = 0u64;
    for _ in 0..holds() {
        let Reverse((t, _, port)) = q.pop().expect("n > 0");
        check = check.wrapping_mul(31).wrapping_add(t ^ u64::from(port));
        q.push(Reverse((t + rng.delay(law), seq, port)));
        seq += 1;
    }
    (t0.elapsed().as_secs_f64() * 1e9 / holds() as f64, check)
}

/// `AFSIM_EQ_LAWS` (dumbbell, exponential, rto), `AFSIM_EQ_PENDING` (numbers of events
/// pending), `AFSIM_EQ_REPS` (the best of how many) choose the rows.
fn main() {
    let laws: Vec<Law> = std::env::var("AFSIM_EQ_LAWS")
        .unwrap_or_else(|_| "dumbbell,exponential,rto".into())
        .split(',')
        .map(|l| match l.trim() {
            "dumbbell" => Law::Dumbbell,
            "exponential" => Law::Exponential,
            "rto" => Law::Rto,
            other => panic!("AFSIM_EQ_LAWS: unknown law {other}"),
        })
        .collect();
    let sizes = env_list(
        "AFSIM_EQ_PENDING",
        &[10, 100, 1_000, 10_000, 100_000, 1_000_000],
    );
    let reps = env_list("AFSIM_EQ_REPS", &[3])[0];
    for law in laws {
        println!("{law:?} delays: ns per hold");
        println!("{:>8} {:>8} {:>8}", "pending", "wheel", "heap");
        for &n in &sizes {
            let (w, cw) = (0..reps)
                .map(|_| wheel(n, law))
                .fold((f64::MAX, 0), |a, b| (a.0.min(b.0), b.1));
            let (h, ch) = (0..reps)
                .map(|_| heap(n, law))
                .fold((f64::MAX, 0), |a, b| (a.0.min(b.0), b.1));
            assert_eq!(cw, ch, "the wheel and the heap disagree ({law:?}, n = {n})");
            println!("{n:>8} {w:>8.1} {h:>8.1}");
        }
    }
}
