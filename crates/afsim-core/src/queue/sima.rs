//! SIMA core node: a real-time and a non-real-time buffer behind one admission rule, the
//! allowed drop precedence DP_a.
//!
//! Read this first.
//! - Sources: Laatu, Harju, Loula §2 ("The DP_a calculation is based on the occupancy levels of
//!   the real time and non-real time buffers. If an incoming packet has smaller precedence than
//!   DP_a it is dropped before the actual buffering") and §3.4 (RT buffer 9800 bytes, NRT
//!   buffer 20000 bytes, "weighting factor" 0.01 for RT and 0.001 for NRT: the occupancies are
//!   exponentially weighted averages). Kilkki's SIMA draft (draft-kalevi-simple-media-access-01)
//!   §4.2 and Fig. 6: PL_a = F(M_rt, M_nrt) before the buffers, both buffers FIFO, "all packets
//!   … in the real-time buffer shall be transmitted before any packet … in the non-real-time
//!   buffer"; §9.2: with x_rt = M_rt/K_rt and x_nrt = M_nrt/K_nrt, the occupancy of the whole
//!   system "might be determined" as (a) x_rt + x_nrt, (b) sqrt(x_rt² + x_nrt²) or (c)
//!   max(x_rt, x_nrt), and a packet is accepted on a linear relation between its priority and
//!   a − b·x (eq. 6). The paper's core node reference ([22], Laine et al. 1999) was not
//!   available.
//! - Variant (afsim's choices, docs/assumptions.md): occupancies in bytes over each buffer's
//!   limit, averaged at every arrival to the port — both classes, whatever the arrival's class
//!   — with their own weights, before the arriving packet is counted; the draft's eq. (6) as
//!   printed accepts low priorities as the buffers fill, the opposite of its text, so afsim
//!   reads it as `DP_a = ⌊a + b·x⌋` clamped to 0..=8, accepting DP ≥ DP_a; defaults a = 0,
//!   b = 8 (each eighth of the averaged occupancy raises DP_a by one; DP_a = 8 refuses even
//!   the reserved DP 7) and x = max (c). A packet that passes DP_a but does not fit its buffer
//!   is dropped as overflow. A packet's class and drop precedence come from its code point
//!   (`dscp::sima_decode`); any other code point, best effort included, is non-real time at
//!   DP 0 (the DRT draft's default class; the SIMA draft's lowest priority).
//! - Counters: per class and drop precedence, arrivals, departures, drops below DP_a
//!   (`DropReason::Early`) and overflow drops; identity arrivals = departures + drops + queued.
//!   And the time DP_a spent at each value.
//!
//! Not modelled: the draft's pre-calculated tables (afsim computes the rule), idle-time decay
//! of the averages (they move only at arrivals), pre-emption of a non-real-time packet being
//! transmitted (§9.3 discusses it; transmission is non-pre-emptive here).

use crate::sim::ring::Ring;

use crate::net::dscp;
use crate::net::dscp::{ServiceClass, SIMA_LEVELS as LEVELS};
use crate::net::packet::{PacketId, Pool};
use crate::param::ParamError;
use crate::queue::{count_f64, DropReason};
use crate::sim::rng::Rng;
use crate::sim::time::SimTime;

/// DP_a values: 0 (accept every packet) … 8 (accept none).
pub const DPA_VALUES: usize = LEVELS + 1;

/// How the two averaged occupancies combine into one (SIMA draft eq. 5).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Occupancy {
    /// (c) max(x_rt, x_nrt): the fuller buffer governs.
    #[default]
    Max,
    /// (a) x_rt + x_nrt.
    Sum,
    /// (b) sqrt(x_rt² + x_nrt²).
    Euclidean,
}

impl Occupancy {
    pub const ALL: [Occupancy; 3] = [Occupancy::Max, Occupancy::Sum, Occupancy::Euclidean];

    pub fn name(self) -> &'static str {
        match self {
            Occupancy::Max => "max",
            Occupancy::Sum => "sum",
            Occupancy::Euclidean => "euclidean",
        }
    }

    #[inline]
    pub fn combine(self, x_rt: f64, x_nrt: f64) -> f64 {
        match self {
            // (a comparison, not `f64::max`: its NaN handling cost 9 instructions an arrival,
            // and an average of finite occupancies is never NaN; issue 25)
            Occupancy::Max => {
                if x_nrt > x_rt {
                    x_nrt
                } else {
                    x_rt
                }
            }
            Occupancy::Sum => x_rt + x_nrt,
            Occupancy::Euclidean => x_rt.hypot(x_nrt),
        }
    }
}

/// A SIMA core queue's parameters. Field names in errors are the scenario file's.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Params {
    /// K_rt and K_nrt, bytes (the paper: 9800 and 20000).
    pub rt_limit_bytes: u64,
    pub nrt_limit_bytes: u64,
    /// EWMA weights of the occupancies (the paper: 0.01 and 0.001).
    pub rt_weight: f64,
    pub nrt_weight: f64,
    pub occupancy: Occupancy,
    /// DP_a = ⌊a + b·x⌋: a and b.
    pub dpa_offset: f64,
    pub dpa_slope: f64,
}

impl Params {
    /// Laatu et al. §3.4's buffers and weights, with afsim's rule (see the header).
    pub const LAATU: Params = Params {
        rt_limit_bytes: 9800,
        nrt_limit_bytes: 20_000,
        rt_weight: 0.01,
        nrt_weight: 0.001,
        occupancy: Occupancy::Max,
        dpa_offset: 0.0,
        dpa_slope: 8.0,
    };

    pub fn validate(&self) -> Result<(), ParamError> {
        for (field, limit) in [
            ("rt_limit", self.rt_limit_bytes),
            ("nrt_limit", self.nrt_limit_bytes),
        ] {
            // the smallest IP packet is a 20-byte header
            if limit < 20 {
                return Err(ParamError::new(
                    field,
                    format!("a buffer of {limit} B cannot hold any IP packet (at least 20 B)"),
                ));
            }
        }
        for (field, w) in [
            ("rt_weight", self.rt_weight),
            ("nrt_weight", self.nrt_weight),
        ] {
            if !(w > 0.0 && w <= 1.0) {
                return Err(ParamError::new(
                    field,
                    format!("{field} = {w}: an EWMA weight must be in (0, 1]"),
                ));
            }
        }
        if !(self.dpa_slope.is_finite() && self.dpa_slope > 0.0) {
            return Err(ParamError::new(
                "dpa_slope",
                format!("dpa_slope = {}: DP_a must rise with the occupancy, so the slope must be a positive number", self.dpa_slope),
            ));
        }
        if !(self.dpa_offset.is_finite() && self.dpa_offset < DPA_VALUES as f64 - 1.0) {
            return Err(ParamError::new(
                "dpa_offset",
                format!(
                    "dpa_offset = {}: with empty buffers DP_a would be {} or more and refuse every packet; the offset must be a number below 8",
                    self.dpa_offset,
                    LEVELS
                ),
            ));
        }
        Ok(())
    }

    /// DP_a for the combined occupancy `x`: ⌊a + b·x⌋ clamped to 0..=8.
    ///
    /// Without `f64::floor`, a call into libm on this target (about 20 instructions an
    /// arrival; issue 25): below 0 (and NaN) gives 0, from 8 on 8, and in between the
    /// conversion's truncation toward zero is the floor of a non-negative number. Equal to
    /// `v.floor().clamp(0.0, 8.0) as u8` for every `v` (`allowed_is_the_clamped_floor_everywhere`).
    #[inline]
    pub fn allowed(&self, x: f64) -> u8 {
        let v = self.dpa_offset + self.dpa_slope * x;
        if v >= LEVELS as f64 {
            LEVELS as u8
        } else if v >= 0.0 {
            v as u8
        } else {
            0
        }
    }
}

/// Counters of one (class, drop precedence).
/// Identity: `arrivals = departures + drops_below_dpa + drops_overflow + queued now`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DpStats {
    pub arrivals: u64,
    pub departures: u64,
    pub drops_below_dpa: u64,
    pub drops_overflow: u64,
}

/// Counters by class (`ServiceClass::index`) and drop precedence.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stats {
    pub dp: [[DpStats; LEVELS]; 2],
}

/// A SIMA core queue.
#[derive(Debug)]
pub struct Sima {
    params: Params,
    /// The buffers, by class index (NRT 0, RT 1), and their bytes.
    fifo: [Ring<PacketId>; 2],
    bytes: [u64; 2],
    /// The limits as `f64` (`nrt_limit_bytes`, `rt_limit_bytes` by class index), converted
    /// once: a `u64` to `f64` conversion is six instructions on this target (issue 25).
    limit_f64: [f64; 2],
    /// Averaged occupancies (fractions of each limit), by class index.
    avg: [f64; 2],
    dpa: u8,
    /// When DP_a took its present value; nanoseconds spent at each value before that.
    dpa_since: SimTime,
    dpa_ns: [u64; DPA_VALUES],
    dpa_max: u8,
    pub stats: Stats,
}

/// A packet's class and drop precedence, from its code point: `decode`, looked up in a table
/// worked out at compile time (one load where the tests took ten instructions, twice a hop;
/// issue 25).
#[inline(always)]
pub fn classify(dscp: u8) -> (ServiceClass, u8) {
    let e = CLASSES[usize::from(dscp)];
    let class = if e & 8 != 0 {
        ServiceClass::Rt
    } else {
        ServiceClass::Nrt
    };
    (class, e & 7)
}

/// `classify` without the table: SIMA's code points (`dscp::sima_decode`); any other is non-real
/// time at DP 0.
const fn decode(dscp: u8) -> (bool, u8) {
    match dscp::sima_decode(dscp) {
        Some((rt, dp)) => (rt, dp),
        None => (false, 0),
    }
}

/// `decode` of every byte: 8 for real time, plus the drop precedence (0 … 7: `sima_decode`
/// shifts a code point of at most 63 by 3).
const CLASSES: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut d = 0;
    while d < 256 {
        let (rt, dp) = decode(d as u8);
        assert!(dp < 8);
        t[d] = if rt { 8 } else { 0 } | dp;
        d += 1;
    }
    t
};

impl Sima {
    /// An empty queue; `params` must have passed `validate`.
    pub fn new(params: Params) -> Self {
        debug_assert!(params.validate().is_ok());
        Sima {
            params,
            fifo: [Ring::new(), Ring::new()],
            bytes: [0; 2],
            limit_f64: [params.nrt_limit_bytes as f64, params.rt_limit_bytes as f64],
            avg: [0.0; 2],
            dpa: params.allowed(0.0),
            dpa_since: SimTime::ZERO,
            dpa_ns: [0; DPA_VALUES],
            dpa_max: params.allowed(0.0),
            stats: Stats::default(),
        }
    }

    pub fn params(&self) -> &Params {
        &self.params
    }

    fn limit(&self, class: usize) -> u64 {
        if class == ServiceClass::Rt.index() {
            self.params.rt_limit_bytes
        } else {
            self.params.nrt_limit_bytes
        }
    }

    /// Updates both averages with the present occupancies and DP_a with them (an arrival).
    #[inline]
    fn update(&mut self, now: SimTime) {
        let p = &self.params;
        let x_nrt = count_f64(self.bytes[0]) / self.limit_f64[0];
        let x_rt = count_f64(self.bytes[1]) / self.limit_f64[1];
        self.avg[0] += p.nrt_weight * (x_nrt - self.avg[0]);
        self.avg[1] += p.rt_weight * (x_rt - self.avg[1]);
        let dpa = p.allowed(p.occupancy.combine(self.avg[1], self.avg[0]));
        if dpa != self.dpa {
            self.dpa_ns[usize::from(self.dpa)] += now.saturating_since(self.dpa_since).as_nanos();
            self.dpa_since = now;
            self.dpa = dpa;
            self.dpa_max = self.dpa_max.max(dpa);
        }
    }

    #[inline(always)]
    pub fn enqueue(
        &mut self,
        now: SimTime,
        id: PacketId,
        pool: &mut Pool,
        _rng: &mut Rng,
    ) -> Result<(), DropReason> {
        let (size, (class, dp)) = {
            let p = pool.get(id);
            (p.size, classify(p.dscp))
        };
        self.update(now);
        let c = class.index();
        let limit = self.limit(c);
        let s = &mut self.stats.dp[c][usize::from(dp)];
        s.arrivals += 1;
        // Laatu et al. §2: "If an incoming packet has smaller precedence than DP_a it is
        // dropped before the actual buffering"
        if dp < self.dpa {
            s.drops_below_dpa += 1;
            return Err(DropReason::Early);
        }
        if self.bytes[c] + u64::from(size) > limit {
            s.drops_overflow += 1;
            return Err(DropReason::Overflow);
        }
        self.bytes[c] += u64::from(size);
        self.fifo[c].push_back(id);
        Ok(())
    }

    /// SIMA draft §4.2: every real-time packet leaves before any non-real-time one.
    #[inline(always)]
    pub fn dequeue(&mut self, _now: SimTime, pool: &mut Pool) -> Option<PacketId> {
        let c = if self.fifo[1].is_empty() { 0 } else { 1 };
        let id = self.fifo[c].pop_front()?;
        let p = pool.get(id);
        self.bytes[c] -= u64::from(p.size);
        self.stats.dp[c][usize::from(classify(p.dscp).1)].departures += 1;
        Some(id)
    }

    /// The packets queued now: real time first, each buffer head first.
    pub fn queued(&self) -> impl Iterator<Item = PacketId> + '_ {
        self.fifo[1].iter().chain(self.fifo[0].iter()).copied()
    }

    #[inline]
    pub fn len_packets(&self) -> usize {
        self.fifo[0].len() + self.fifo[1].len()
    }

    #[inline]
    pub fn len_bytes(&self) -> u64 {
        self.bytes[0] + self.bytes[1]
    }

    /// The averaged occupancy of a class's buffer, as a fraction of its limit.
    pub fn avg_occupancy(&self, class: ServiceClass) -> f64 {
        self.avg[class.index()]
    }

    /// The allowed drop precedence now (as the last arrival computed it).
    pub fn dpa(&self) -> u8 {
        self.dpa
    }

    /// The highest DP_a of the run so far.
    pub fn dpa_max(&self) -> u8 {
        self.dpa_max
    }

    /// Nanoseconds DP_a spent at each value 0..=8 from time 0 until `now`.
    pub fn dpa_time(&self, now: SimTime) -> [u64; DPA_VALUES] {
        let mut t = self.dpa_ns;
        t[usize::from(self.dpa)] += now.saturating_since(self.dpa_since).as_nanos();
        t
    }

    /// Checks each (class, drop precedence)'s identity against what the buffers hold.
    pub fn check(&self, pool: &Pool) -> Result<(), String> {
        let mut queued = [[0u64; LEVELS]; 2];
        for (counts, fifo) in queued.iter_mut().zip(&self.fifo) {
            for &id in fifo.iter() {
                counts[usize::from(classify(pool.get(id).dscp).1)] += 1;
            }
        }
        for (c, class) in [ServiceClass::Nrt, ServiceClass::Rt]
            .into_iter()
            .enumerate()
        {
            for (dp, s) in self.stats.dp[c].iter().enumerate() {
                let out = s.departures + s.drops_below_dpa + s.drops_overflow + queued[c][dp];
                if s.arrivals != out {
                    return Err(format!(
                        "{} DP {dp}: {} arrivals ≠ {} departures + {} below DP_a + {} overflow + {} queued",
                        class.name(),
                        s.arrivals,
                        s.departures,
                        s.drops_below_dpa,
                        s.drops_overflow,
                        queued[c][dp]
                    ));
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::Packet;
    use crate::sim::rng::stream;

    fn pkt(pool: &mut Pool, size: u32, rt: bool, dp: u8) -> PacketId {
        pool.alloc(Packet {
            size,
            dscp: dscp::sima(rt, dp),
            ..Default::default()
        })
    }

    fn offer(
        q: &mut Sima,
        pool: &mut Pool,
        t: u64,
        size: u32,
        rt: bool,
        dp: u8,
    ) -> Result<(), DropReason> {
        let id = pkt(pool, size, rt, dp);
        let r = q.enqueue(SimTime::from_nanos(t), id, pool, &mut stream(1, "q"));
        if r.is_err() {
            pool.free(id);
        }
        r
    }

    #[test]
    fn the_allowed_precedence_is_the_integer_part_of_a_plus_b_x_within_zero_to_eight() {
        let p = Params::LAATU;
        let cases = [
            (0.0, 0),
            (0.124, 0),
            (0.125, 1),
            (0.5, 4),
            (0.62, 4),
            (0.625, 5),
            (0.999, 7),
            (1.0, 8),
            (1.7, 8),
        ];
        for (x, dpa) in cases {
            assert_eq!(p.allowed(x), dpa, "x = {x}");
        }
        let shifted = Params {
            dpa_offset: -2.0,
            dpa_slope: 12.0,
            ..p
        };
        // ⌊−2 + 12·x⌋: 0 up to x = 0.25, then one level per 1/12
        assert_eq!(
            [0.1, 0.25, 0.5, 0.83, 0.84].map(|x| shifted.allowed(x)),
            [0, 1, 4, 7, 8]
        );
    }

    #[test]
    fn allowed_is_the_clamped_floor_everywhere() {
        // `allowed` avoids `floor`; it must equal ⌊a + b·x⌋ clamped to 0..=8 for every input
        let floor_rule = |p: &Params, x: f64| {
            (p.dpa_offset + p.dpa_slope * x)
                .floor()
                .clamp(0.0, LEVELS as f64) as u8
        };
        let mut xs = vec![
            0.0,
            -0.0,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::MIN_POSITIVE,
            1e300,
            -1e300,
        ];
        for k in -40..=40 {
            let x = f64::from(k) / 32.0;
            xs.extend([x, x * (1.0 + f64::EPSILON), x * (1.0 - f64::EPSILON)]);
        }
        let mut rng = crate::sim::rng::stream(3, "x");
        xs.extend((0..10_000).map(|_| rng.uniform() * 3.0 - 1.0));
        for p in [
            Params::LAATU,
            Params {
                dpa_offset: -2.0,
                dpa_slope: 12.0,
                ..Params::LAATU
            },
            Params {
                dpa_offset: 7.5,
                dpa_slope: 0.3,
                ..Params::LAATU
            },
        ] {
            for &x in &xs {
                assert_eq!(p.allowed(x), floor_rule(&p, x), "x = {x}, {p:?}");
            }
        }
    }

    #[test]
    fn max_occupancy_is_f64_max_for_averages() {
        let vals = [0.0, 1e-9, 0.25, 0.5, 0.5000000000000001, 1.0, 3.0];
        for &a in &vals {
            for &b in &vals {
                assert_eq!(Occupancy::Max.combine(a, b), a.max(b), "{a} {b}");
            }
        }
    }

    #[test]
    fn occupancies_combine_as_the_drafts_three_formulas() {
        assert_eq!(Occupancy::Max.combine(0.3, 0.4), 0.4);
        assert!((Occupancy::Sum.combine(0.3, 0.4) - 0.7).abs() < 1e-15);
        assert!((Occupancy::Euclidean.combine(0.3, 0.4) - 0.5).abs() < 1e-15);
    }

    #[test]
    fn dpa_follows_the_averaged_occupancy_of_scripted_arrivals() {
        // Fill the NRT buffer with DP 7 packets (always admitted below DP_a = 8), then check
        // the average and DP_a against the EWMA computed by hand at each arrival.
        let p = Params {
            nrt_weight: 0.1,
            ..Params::LAATU
        };
        let mut q = Sima::new(p);
        let mut pool = Pool::new();
        let mut avg = 0.0;
        for k in 0..10u64 {
            // before the k-th arrival the buffer holds k packets of 1000 B out of 20000 B
            assert_eq!(offer(&mut q, &mut pool, k, 1000, false, 7), Ok(()));
            avg += 0.1 * (k as f64 * 1000.0 / 20_000.0 - avg);
            assert!(
                (q.avg_occupancy(ServiceClass::Nrt) - avg).abs() < 1e-12,
                "arrival {k}"
            );
            assert_eq!(q.dpa(), (8.0 * avg).floor() as u8, "arrival {k}: avg {avg}");
        }
        // the RT average saw only an empty buffer
        assert_eq!(q.avg_occupancy(ServiceClass::Rt), 0.0);
        // with the max rule an RT backlog raises DP_a as much as an NRT one
        let mut q = Sima::new(Params {
            rt_weight: 1.0,
            ..Params::LAATU
        });
        for k in 0..5 {
            offer(&mut q, &mut pool, k, 1960, true, 7).unwrap();
        }
        // before the 5th arrival: 4 × 1960 B of 9800 B = 0.8: DP_a = 6
        assert_eq!(q.dpa(), 6);
        assert_eq!(
            offer(&mut q, &mut pool, 5, 100, false, 5),
            Err(DropReason::Early)
        );
        assert_eq!(q.dpa(), 8, "5 × 1960 B is the whole RT buffer");
    }

    #[test]
    fn packets_below_dpa_are_dropped_before_buffering_and_the_rest_admitted() {
        // weight 1: the average is the occupancy at the arrival. 10000 B of 20000 B: DP_a = 4
        let mut q = Sima::new(Params {
            nrt_weight: 1.0,
            ..Params::LAATU
        });
        let mut pool = Pool::new();
        for k in 0..10 {
            offer(&mut q, &mut pool, k, 1000, false, 7).unwrap();
        }
        for dp in 0..8u8 {
            let before = q.len_bytes();
            let r = offer(&mut q, &mut pool, 100, 10, false, dp);
            assert_eq!(q.dpa(), 4, "a 10 B packet moves the occupancy by 1/2000");
            if dp < 4 {
                assert_eq!(r, Err(DropReason::Early), "DP {dp} < DP_a");
                assert_eq!(q.len_bytes(), before, "dropped before buffering");
            } else {
                assert_eq!(r, Ok(()), "DP {dp} ≥ DP_a");
            }
        }
        let s = &q.stats.dp[0];
        assert_eq!(
            (s[3].drops_below_dpa, s[4].drops_below_dpa, s[4].arrivals),
            (1, 0, 1)
        );
        assert!(q.check(&pool).is_ok());
    }

    #[test]
    fn a_packet_that_does_not_fit_its_buffer_overflows_whatever_its_precedence() {
        let mut q = Sima::new(Params {
            rt_limit_bytes: 3000,
            nrt_weight: 0.001,
            ..Params::LAATU
        });
        let mut pool = Pool::new();
        assert_eq!(offer(&mut q, &mut pool, 0, 2000, true, 7), Ok(()));
        assert_eq!(
            offer(&mut q, &mut pool, 0, 1000, true, 7),
            Ok(()),
            "exactly full fits"
        );
        assert_eq!(
            offer(&mut q, &mut pool, 0, 1, true, 7),
            Err(DropReason::Overflow)
        );
        assert_eq!(
            offer(&mut q, &mut pool, 0, 1500, false, 0),
            Ok(()),
            "the NRT buffer is separate"
        );
        assert_eq!(q.stats.dp[1][7].drops_overflow, 1);
        assert!(q.check(&pool).is_ok());
    }

    #[test]
    fn real_time_packets_leave_before_any_non_real_time_packet() {
        let mut q = Sima::new(Params::LAATU);
        let mut pool = Pool::new();
        let t = SimTime::ZERO;
        let mut rng = stream(1, "q");
        let n1 = pkt(&mut pool, 500, false, 6);
        let r1 = pkt(&mut pool, 500, true, 2);
        let n2 = pkt(&mut pool, 500, false, 6);
        let r2 = pkt(&mut pool, 500, true, 2);
        for id in [n1, r1, n2, r2] {
            q.enqueue(t, id, &mut pool, &mut rng).unwrap();
        }
        assert_eq!(q.queued().collect::<Vec<_>>(), [r1, r2, n1, n2]);
        let order: Vec<_> = std::iter::from_fn(|| q.dequeue(t, &mut pool)).collect();
        assert_eq!(order, [r1, r2, n1, n2], "RT first, each class FIFO");
        assert_eq!((q.len_packets(), q.len_bytes()), (0, 0));
        assert_eq!(
            (q.stats.dp[1][2].departures, q.stats.dp[0][6].departures),
            (2, 2)
        );
    }

    #[test]
    fn the_class_table_is_the_decoding() {
        for d in 0..=255u8 {
            let (rt, dp) = decode(d);
            let class = if rt {
                ServiceClass::Rt
            } else {
                ServiceClass::Nrt
            };
            assert_eq!(classify(d), (class, dp), "code point {d}");
        }
        assert_eq!(decode(dscp::sima(true, 5)), (true, 5));
        assert_eq!(decode(dscp::sima(false, 7)), (false, 7));
    }

    #[test]
    fn unmarked_packets_are_non_real_time_at_dp_zero() {
        assert_eq!(classify(dscp::BE), (ServiceClass::Nrt, 0));
        assert_eq!(classify(dscp::EF), (ServiceClass::Nrt, 0));
        assert_eq!(classify(dscp::sima(true, 5)), (ServiceClass::Rt, 5));
    }

    #[test]
    fn counters_conserve_packets_and_dpa_time_adds_up_to_the_run() {
        let mut q = Sima::new(Params {
            nrt_weight: 0.2,
            ..Params::LAATU
        });
        let mut pool = Pool::new();
        let mut rng = stream(7, "traffic");
        let mut now = 0u64;
        for _ in 0..5000 {
            now += 100_000 + (rng.uniform() * 200_000.0) as u64;
            let dp = (rng.uniform() * 8.0) as u8;
            let rt = rng.uniform() < 0.2;
            let _ = offer(
                &mut q,
                &mut pool,
                now,
                200 + (rng.uniform() * 1300.0) as u32,
                rt,
                dp,
            );
            if rng.uniform() < 0.45 {
                if let Some(id) = q.dequeue(SimTime::from_nanos(now), &mut pool) {
                    pool.free(id);
                }
            }
        }
        assert!(q.check(&pool).is_ok(), "{:?}", q.check(&pool));
        let dropped: u64 = q.stats.dp.iter().flatten().map(|s| s.drops_below_dpa).sum();
        assert!(
            dropped > 0 && q.dpa_max() > 0,
            "the workload must congest the queue"
        );
        let end = SimTime::from_nanos(now + 1);
        assert_eq!(q.dpa_time(end).iter().sum::<u64>(), end.as_nanos());
        // a counter out of step is caught
        q.stats.dp[0][3].arrivals += 1;
        assert!(q.check(&pool).unwrap_err().contains("nrt DP 3"));
    }

    #[test]
    fn impossible_parameters_name_their_field() {
        assert!(Params::LAATU.validate().is_ok());
        let field = |p: Params| p.validate().unwrap_err().field;
        let p = Params::LAATU;
        assert_eq!(
            field(Params {
                rt_limit_bytes: 0,
                ..p
            }),
            "rt_limit"
        );
        assert_eq!(
            field(Params {
                nrt_limit_bytes: 19,
                ..p
            }),
            "nrt_limit"
        );
        for w in [0.0, -0.5, 1.5, f64::NAN] {
            assert_eq!(field(Params { rt_weight: w, ..p }), "rt_weight");
            assert_eq!(field(Params { nrt_weight: w, ..p }), "nrt_weight");
        }
        assert!(Params {
            nrt_weight: 1.0,
            ..p
        }
        .validate()
        .is_ok());
        for b in [0.0, -1.0, f64::INFINITY, f64::NAN] {
            assert_eq!(field(Params { dpa_slope: b, ..p }), "dpa_slope");
        }
        for a in [8.0, 100.0, f64::NAN] {
            assert_eq!(field(Params { dpa_offset: a, ..p }), "dpa_offset");
        }
        assert!(Params {
            dpa_offset: -3.0,
            ..p
        }
        .validate()
        .is_ok());
    }
}
