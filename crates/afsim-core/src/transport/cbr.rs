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
}

impl Cbr {
    pub fn new(flow: u32, src: u32, dst: u32, dst_agent: u32, spec: CbrSpec, rng: Rng) -> Self {
        Cbr {
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

    fn next_interval(&mut self) -> SimDuration {
        let bits_ns = u128::from(self.spec.packet_size) * 8 * 1_000_000_000 + u128::from(self.rem);
        let rate = u128::from(self.spec.rate_bps);
        self.rem = (bits_ns % rate) as u64;
        let ns = (bits_ns / rate) as u64;
        if self.spec.jitter {
            // ns-2 cbr_traffic.cc: interval_ * (1 + Random::uniform(-0.5, 0.5))
            let f = 0.5 + self.rng.uniform();
            SimDuration((ns as f64 * f).round() as u64)
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
