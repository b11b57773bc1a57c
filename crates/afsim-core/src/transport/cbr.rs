//! UDP constant-bit-rate source.
//!
//! Read this first: sends a `packet_size`-byte UDP packet every `packet_size·8/rate` seconds
//! from `start`, until `stop` or until `max_packets` have been sent (then the flow is a finite
//! transfer). Intervals are integer nanoseconds with the remainder carried, so the mean rate is
//! exact. With `jitter`, each interval is scaled by a uniform factor in [0.5, 1.5) drawn from
//! the flow's own stream, as ns-2's `Application/Traffic/CBR` does with `random_ 1`.
//!
//! Not modelled: UDP checksum, ports beyond the header fields.

use crate::net::packet::{proto, Packet};
use crate::sim::rng::Rng;
use crate::sim::time::{SimDuration, SimTime};
use crate::transport::Ctx;

#[derive(Debug)]
pub struct Cbr {
    pub flow: u32,
    src: u32,
    dst: u32,
    dst_agent: u32,
    spec: CbrSpec,
    rng: Rng,
    sent: u64,
    /// remainder of interval division, in 1/rate ns units
    rem: u64,
    /// `packet_size·8·10⁹ / rate`, divided once (issue 25): the quotient (as the interval's
    /// `u64` takes it) and the remainder; `None` for a rate of 0.
    split: Option<(u64, u64)>,
}

impl Cbr {
    pub fn new(flow: u32, src: u32, dst: u32, dst_agent: u32, spec: CbrSpec, rng: Rng) -> Self {
        let bits_ns = u128::from(spec.packet_size) * 8 * 1_000_000_000;
        let rate = u128::from(spec.rate_bps);
        let split = (rate != 0).then(|| ((bits_ns / rate) as u64, (bits_ns % rate) as u64));
        Cbr {
            split,
            flow,
            src,
            dst,
            dst_agent,
            spec,
            rng,
            sent: 0,
            rem: 0,
        }
    }

    pub fn start(&mut self, ctx: &mut Ctx) {
        if self.spec.max_packets == Some(0) || self.spec.stop.is_some_and(|s| s <= self.spec.start)
        {
            ctx.source_done();
            return;
        }
        ctx.set_timer(self.spec.start, 0);
    }

    /// The next interval: ⌊(packet_size·8·10⁹ + rem) / rate⌋ ns, the remainder carried.
    /// Without a division (issue 25: a 128-bit one, a library call, on every packet): with
    /// `split` = (q, r), the quotient is q plus 1 if r + rem reaches the rate (r and rem are
    /// both below it, so the sum is below twice the rate), the remainder what is left; the
    /// same integers (`intervals_are_the_divisions`).
    fn next_interval(&mut self) -> SimDuration {
        let rate = self.spec.rate_bps;
        let ns = match self.split {
            Some((q, r)) => {
                let (sum, carry) = r.overflowing_add(self.rem);
                if carry || sum >= rate {
                    self.rem = sum.wrapping_sub(rate);
                    q.wrapping_add(1)
                } else {
                    self.rem = sum;
                    q
                }
            }
            None => {
                // a rate of 0: divides by zero, as it always did
                let bits_ns =
                    u128::from(self.spec.packet_size) * 8 * 1_000_000_000 + u128::from(self.rem);
                self.rem = (bits_ns % u128::from(rate)) as u64;
                (bits_ns / u128::from(rate)) as u64
            }
        };
        if self.spec.jitter {
            // ns-2 cbr_traffic.cc: interval_ * (1 + Random::uniform(-0.5, 0.5))
            let f = 0.5 + self.rng.uniform();
            SimDuration(round_u64(u64_f64(ns) * f))
        } else {
            SimDuration(ns)
        }
    }

    pub fn on_timer(&mut self, _token: u32, ctx: &mut Ctx) {
        if self.spec.stop.is_some_and(|s| ctx.now >= s) {
            ctx.source_done();
            return;
        }
        let seq = self.sent;
        ctx.send(Packet {
            src: self.src,
            dst: self.dst,
            protocol: proto::UDP,
            size: self.spec.packet_size,
            flow: self.flow,
            dst_agent: self.dst_agent,
            th: crate::net::packet::TransportHeader {
                seq,
                ..Default::default()
            },
            ..Default::default()
        });
        self.sent += 1;
        if self.spec.max_packets.is_some_and(|m| self.sent >= m) {
            ctx.source_done();
            return;
        }
        let next = ctx.now + self.next_interval();
        if self.spec.stop.is_some_and(|s| next >= s) {
            ctx.source_done();
            return;
        }
        ctx.set_timer(next, 0);
    }

    pub fn packets_sent(&self) -> u64 {
        self.sent
    }
}

/// `x as f64`, through `i64` below 2⁶³ (one instruction where `u64`'s conversion takes six;
/// the same value).
#[inline(always)]
fn u64_f64(x: u64) -> f64 {
    if x < 1 << 63 {
        x as i64 as f64
    } else {
        x as f64
    }
}

/// `x.round() as u64` without libm's `round` (a call, about 24 instructions): for 0 ≤ x < 2⁶³
/// the conversion truncates, `x − t` is exact (t ≤ x, and t ≥ x/2 or t = 0), and a fraction of
/// one half or more rounds up, away from zero, as `round` does; anything else as before.
#[inline(always)]
fn round_u64(x: f64) -> u64 {
    if (0.0..9_223_372_036_854_775_808.0).contains(&x) {
        let t = x as u64;
        t + u64::from(x - t as i64 as f64 >= 0.5)
    } else {
        x.round() as u64
    }
}

/// A constant-bit-rate source's configuration (`scenario::spec::AppSpec::Cbr`).
#[derive(Clone, Debug, PartialEq)]
pub struct CbrSpec {
    /// Application rate in bits per second, counting IP packet bytes.
    pub rate_bps: u64,
    /// IP packet size in bytes (headers included).
    pub packet_size: u32,
    pub start: SimTime,
    pub stop: Option<SimTime>,
    pub max_packets: Option<u64>,
    /// ns-2's `random_` flag: each interval is scaled by a uniform factor in [0.5, 1.5) from the
    /// flow's own random stream, keeping the mean rate.
    pub jitter: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::rng::stream;

    /// The intervals as the source computed them with a 128-bit division each time.
    fn divided(spec: &CbrSpec, rem: &mut u64, rng: &mut Rng) -> u64 {
        let bits_ns = u128::from(spec.packet_size) * 8 * 1_000_000_000 + u128::from(*rem);
        let rate = u128::from(spec.rate_bps);
        *rem = (bits_ns % rate) as u64;
        let ns = (bits_ns / rate) as u64;
        if spec.jitter {
            let f = 0.5 + rng.uniform();
            (ns as f64 * f).round() as u64
        } else {
            ns
        }
    }

    #[test]
    fn intervals_are_the_divisions() {
        let mut pick = stream(9, "cbr-specs");
        let mut rates = vec![
            1,
            3,
            7,
            800_000,
            1_000_000,
            45_000_000,
            999_999_937,
            u64::MAX,
        ];
        rates.extend((0..40).map(|_| pick.next_u64() >> (pick.next_u64() % 64)));
        for &rate in rates.iter().filter(|&&r| r > 0) {
            for size in [1, 40, 500, 1500, 65_535, u32::MAX] {
                for jitter in [false, true] {
                    let spec = CbrSpec {
                        rate_bps: rate,
                        packet_size: size,
                        start: SimTime::ZERO,
                        stop: None,
                        max_packets: None,
                        jitter,
                    };
                    let mut cbr = Cbr::new(0, 0, 1, 0, spec.clone(), stream(4, "cbr"));
                    let (mut rem, mut rng) = (0, stream(4, "cbr"));
                    for k in 0..300 {
                        let want = divided(&spec, &mut rem, &mut rng);
                        assert_eq!(cbr.next_interval().0, want, "{rate} b/s, {size} B, {k}");
                        assert_eq!(cbr.rem, rem);
                    }
                }
            }
        }
    }

    #[test]
    fn rounding_is_f64_round() {
        let mut rng = stream(2, "round");
        let mut xs = vec![
            0.0,
            0.5,
            1.5,
            2.5,
            0.49999999999999994,
            4_503_599_627_370_495.5,
        ];
        xs.extend([
            9_223_372_036_854_775_807.0,
            9.3e18,
            1e300,
            -0.4,
            -0.5,
            f64::NAN,
        ]);
        xs.extend((0..20_000).map(|_| rng.uniform() * 2e6));
        xs.extend((0..2_000).map(|k| f64::from(k) * 0.25));
        for x in xs {
            assert_eq!(round_u64(x), x.round() as u64, "{x}");
        }
        for x in [0, 1, 12_345, 1 << 52, (1 << 53) + 1, 1 << 63, u64::MAX] {
            assert_eq!(u64_f64(x).to_bits(), (x as f64).to_bits(), "{x}");
        }
    }
}
