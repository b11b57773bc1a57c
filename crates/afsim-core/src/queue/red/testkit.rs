use super::*;
use crate::net::packet::{Ecn, Packet};
use crate::sim::rng::stream;
use crate::sim::time::SimDuration;

pub(crate) trait Discipline {
    fn enq(
        &mut self,
        now: SimTime,
        id: PacketId,
        pool: &mut Pool,
        rng: &mut Rng,
    ) -> Result<(), DropReason>;
    fn deq(&mut self, now: SimTime, pool: &mut Pool) -> Option<PacketId>;
}

impl Discipline for Red {
    fn enq(
        &mut self,
        now: SimTime,
        id: PacketId,
        pool: &mut Pool,
        rng: &mut Rng,
    ) -> Result<(), DropReason> {
        self.enqueue(now, id, pool, rng)
    }
    fn deq(&mut self, now: SimTime, pool: &mut Pool) -> Option<PacketId> {
        self.dequeue(now, pool)
    }
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Arrival {
    pub at: SimTime,
    pub size: u32,
    pub dscp: u8,
    pub ecn: Ecn,
}

/// `n` Poisson arrivals of `size`-byte packets at `rate_bps` on average, DSCPs drawn
/// uniformly from `dscps`, from their own seeded stream.
pub(crate) fn poisson(seed: u64, n: usize, rate_bps: f64, size: u32, dscps: &[u8]) -> Vec<Arrival> {
    let mut rng = stream(seed, "test/arrivals");
    let mean_gap_ns = f64::from(size) * 8.0 / rate_bps * 1e9;
    let mut t = 0.0;
    (0..n)
        .map(|_| {
            t += rng.exponential(mean_gap_ns);
            let dscp = dscps[((rng.uniform() * dscps.len() as f64) as usize).min(dscps.len() - 1)];
            Arrival {
                at: SimTime(t as u64),
                size,
                dscp,
                ecn: Ecn::NotEct,
            }
        })
        .collect()
}

/// Feeds `arrivals` through `q` in front of a link of `link_bps`: the link takes the head
/// packet when it finishes the previous one (and asks an empty queue, as a port does).
pub(crate) fn run<D: Discipline>(
    q: &mut D,
    arrivals: &[Arrival],
    link_bps: u64,
    seed: u64,
) -> Vec<Result<(), DropReason>> {
    let mut pool = Pool::new();
    let mut rng = stream(seed, "test/queue");
    let tx = |size: u32| SimDuration((u64::from(size) * 8 * 1_000_000_000).div_ceil(link_bps));
    let mut busy_until: Option<SimTime> = None;
    let mut out = Vec::with_capacity(arrivals.len());
    for a in arrivals {
        while let Some(t) = busy_until {
            if t > a.at {
                break;
            }
            busy_until = q.deq(t, &mut pool).map(|id| {
                let next = t + tx(pool.get(id).size);
                pool.free(id);
                next
            });
        }
        let id = pool.alloc(Packet {
            size: a.size,
            dscp: a.dscp,
            ecn: a.ecn,
            ..Default::default()
        });
        let r = q.enq(a.at, id, &mut pool, &mut rng);
        if r.is_err() {
            pool.free(id);
        }
        if busy_until.is_none() {
            if let Some(id) = q.deq(a.at, &mut pool) {
                busy_until = Some(a.at + tx(pool.get(id).size));
                pool.free(id);
            }
        }
        out.push(r);
    }
    out
}
