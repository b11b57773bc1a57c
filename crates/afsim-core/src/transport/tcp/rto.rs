//! The retransmission timeout estimator, on a coarse clock.
//!
//! Read this first.
//! - Source: RFC 6298 (SRTT/RTTVAR with α = 1/8, β = 1/4, K = 4; minimum, maximum, backoff;
//!   Karn's rule is applied by the sender, which only feeds samples of segments sent once).
//!   The arithmetic is ns-2.35's `TcpAgent::rtt_update` / `rtt_timeout` / `rtt_backoff`
//!   (tcp.cc), because the papers' numbers come from it: time is counted in ticks of
//!   `Params::tick` (`tcpTick_`), SRTT is kept ×8 and RTTVAR ×4 as integers, and the RTO is
//!   a whole number of ticks.
//! - A measurement counts the tick boundaries the segment's round trip crossed, as a BSD
//!   timer that ticks every `tick` would: `⌊(rtt + phase(sent)) / tick⌋`, at least 1, where
//!   `phase` is the send time's offset into its tick on a clock that started at a random
//!   instant (ns-2 `boot_time_`, drawn from the flow's stream).
//! - RTO = max(min_rto, SRTT + 4·RTTVAR) · backoff, capped at max_rto, never below two ticks
//!   (RFC 6298 §2.2–2.5; ns-2's floor of 2 ticks). RFC 6298's `max(G, K·RTTVAR)` needs no
//!   code: RTTVAR·4 is an integer number of quarter ticks kept ≥ 1, so 4·RTTVAR ≥ G = one tick
//!   always. The minimum applies before the backoff multiplies it (ns-2 `rfc2988_` true).
//! - Backoff (RFC 6298 §5.5) doubles until the RTO reaches max_rto; after more than three
//!   doublings SRTT is forgotten so the next sample starts afresh (RFC 6298 §5 last
//!   paragraph "MAY", ns-2 `t_backoff_ > 8`). A valid sample ends the backoff (Karn).
//!
//! Not modelled: timestamps (RFC 7323 per-ACK samples), ns-2's 16-bit `delta` overflow.

use crate::sim::time::{SimDuration, SimTime};
use crate::transport::tcp::Params;

/// SRTT is kept with 3 fractional bits, RTTVAR with 2 (ns-2 `T_SRTT_BITS`, `T_RTTVAR_BITS`).
const SRTT_SHIFT: u32 = 3;
const RTTVAR_SHIFT: u32 = 2;

/// Doublings are counted up to this factor at most (2^16 · RTO is beyond any max_rto).
const MAX_BACKOFF: u64 = 1 << 16;

/// `repr(C)`, declared order: `timeout` (every ACK) reads the first, second, third, seventh and
/// eighth fields, within 64 bytes (one of the TCP sender's hot groups).
#[derive(Clone, Debug)]
#[repr(C)]
pub struct Rto {
    tick_ns: u64,
    min_ns: u64,
    max_ns: u64,
    /// The send clock's phase within a tick, ns (ns-2 `boot_time_`).
    phase_ns: u64,
    /// SRTT · 8, in ticks; 0 = no sample yet (ns-2 `t_srtt_`).
    srtt8: i64,
    /// RTTVAR · 4, in ticks (ns-2 `t_rttvar_`).
    rttvar4: i64,
    /// The RTO before clamping and backoff, ns (ns-2 `t_rtxcur_`).
    base_ns: u64,
    backoff: u64,
    /// Ticks of the last sample (ns-2 `t_rtt_`), 0 before any.
    last_ticks: i64,
}

impl Rto {
    /// An estimator with no sample yet: RTO = `initial_rto`. `phase_ns` is the clock phase,
    /// reduced modulo the tick.
    pub fn new(p: &Params, phase_ns: u64) -> Rto {
        let tick_ns = p.tick.as_nanos().max(1);
        Rto {
            tick_ns,
            min_ns: p.min_rto.as_nanos(),
            max_ns: p.max_rto.as_nanos(),
            phase_ns: phase_ns % tick_ns,
            srtt8: 0,
            rttvar4: 0,
            base_ns: p.initial_rto.as_nanos(),
            backoff: 1,
            last_ticks: 0,
        }
    }

    /// Feeds one RTT sample: the segment was sent at `sent` and acknowledged at `now`.
    pub fn sample(&mut self, sent: SimTime, now: SimTime) {
        let rtt_ns = now.saturating_since(sent).as_nanos();
        // count the tick boundaries crossed (ns-2 rtt_update without timestamps)
        let offset = (sent.as_nanos() % self.tick_ns + self.phase_ns) % self.tick_ns;
        let m = (((rtt_ns + offset) / self.tick_ns) as i64).max(1);
        self.last_ticks = m;
        if self.srtt8 != 0 {
            // RFC 6298 §2.3: RTTVAR ← 3/4 RTTVAR + 1/4 |SRTT − R'|, SRTT ← 7/8 SRTT + 1/8 R'
            let mut delta = m - (self.srtt8 >> SRTT_SHIFT);
            self.srtt8 += delta;
            if self.srtt8 <= 0 {
                self.srtt8 = 1;
            }
            delta = delta.abs() - (self.rttvar4 >> RTTVAR_SHIFT);
            self.rttvar4 += delta;
            if self.rttvar4 <= 0 {
                self.rttvar4 = 1;
            }
        } else {
            // RFC 6298 §2.2: SRTT ← R, RTTVAR ← R/2
            self.srtt8 = m << SRTT_SHIFT;
            self.rttvar4 = m << (RTTVAR_SHIFT - 1);
        }
        // RFC 6298 §2.3: RTO ← SRTT + max(G, K·RTTVAR); K·RTTVAR ≥ G since rttvar4 ≥ 1.
        // 4·RTTVAR at SRTT's scale (×8) is rttvar4 · 8.
        let var8 = self.rttvar4 << SRTT_SHIFT;
        let ticks = ((self.srtt8 + var8) >> SRTT_SHIFT) as u64;
        self.base_ns = ticks * self.tick_ns;
    }

    /// The current timeout: the base clamped below by min_rto, times the backoff, capped by
    /// max_rto, never below two ticks.
    pub fn timeout(&self) -> SimDuration {
        // RFC 6298 §2.4: round up to the minimum before backing off (ns-2 rfc2988_)
        let base = self.base_ns.max(self.min_ns);
        // RFC 6298 §2.5: a maximum value may be placed on the RTO
        let t = base.saturating_mul(self.backoff).min(self.max_ns);
        SimDuration::from_nanos(t.max(2 * self.tick_ns))
    }

    /// RFC 6298 §5.5: the timer expired, back it off.
    pub fn back_off(&mut self) {
        // ns-2 rtt_backoff: keep doubling while the RTO is below its maximum
        if self.backoff < MAX_BACKOFF && self.timeout().as_nanos() < self.max_ns {
            self.backoff <<= 1;
        }
        // RFC 6298 §5: after backing off repeatedly SRTT and RTTVAR MAY be cleared (ns-2: > 8)
        if self.backoff > 8 {
            self.srtt8 = 0;
        }
    }

    /// Karn's algorithm: a valid sample from a segment sent once ends the backoff.
    pub fn end_backoff(&mut self) {
        self.backoff = 1;
    }

    /// RFC 6298 §5.7: after a SYN timed out, an RTO below 3 s is raised to 3 s for data.
    pub fn raise_base_to(&mut self, d: SimDuration) {
        if self.srtt8 == 0 {
            self.base_ns = self.base_ns.max(d.as_nanos());
        }
        self.backoff = 1;
    }

    pub fn backoff_factor(&self) -> u64 {
        self.backoff
    }

    /// The smoothed RTT as the tick arithmetic holds it (SRTT·8 ticks / 8), or zero before
    /// any sample.
    pub fn srtt(&self) -> SimDuration {
        SimDuration::from_nanos(((self.srtt8 >> SRTT_SHIFT) as u64) * self.tick_ns)
    }

    /// The smoothed RTT at the estimator's full resolution, an eighth of a tick (SRTT·8 ticks,
    /// not truncated to whole ticks as `srtt` is), or zero before any sample.
    pub fn srtt_fine(&self) -> SimDuration {
        SimDuration::from_nanos(((self.srtt8 as u64) * self.tick_ns) >> SRTT_SHIFT)
    }

    /// RTTVAR, rounded to a quarter tick.
    pub fn rttvar(&self) -> SimDuration {
        SimDuration::from_nanos((self.rttvar4 as u64) * self.tick_ns / 4)
    }

    /// The last sample in ticks (0 before any).
    pub fn last_sample_ticks(&self) -> i64 {
        self.last_ticks
    }

    pub fn has_sample(&self) -> bool {
        self.srtt8 != 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> SimDuration {
        SimDuration::from_millis(x)
    }

    fn at(ms: u64) -> SimTime {
        SimTime::ZERO + SimDuration::from_millis(ms)
    }

    /// An estimator with the given tick and minimum RTO, clock phase zero.
    fn rto(tick_ms: u64, min_ms: u64) -> Rto {
        let p = Params {
            tick: ms(tick_ms),
            min_rto: ms(min_ms),
            ..Params::default()
        };
        Rto::new(&p, 0)
    }

    #[test]
    fn before_any_sample_the_rto_is_the_initial_one() {
        let r = rto(10, 200);
        assert_eq!(r.timeout(), SimDuration::from_secs(1), "RFC 6298 §2.1");
        let ns2 = Rto::new(&Params::ns2(), 0);
        assert_eq!(
            ns2.timeout(),
            SimDuration::from_secs(3),
            "ns-2.35 rtxcur_init_"
        );
        assert!(!r.has_sample());
    }

    #[test]
    fn first_sample_sets_srtt_to_r_and_rttvar_to_half_r() {
        let mut r = rto(10, 0);
        r.sample(at(0), at(100));
        assert_eq!(r.last_sample_ticks(), 10);
        assert_eq!(r.srtt(), ms(100));
        assert_eq!(r.rttvar(), ms(50));
        // RFC 6298 §2.2: RTO = SRTT + max(G, 4 RTTVAR) = 100 + 200 ms
        assert_eq!(r.timeout(), ms(300));
    }

    #[test]
    fn later_samples_smooth_with_one_eighth_and_one_quarter_gains() {
        let mut r = rto(10, 0);
        r.sample(at(0), at(100)); // 10 ticks: srtt8 80, rttvar4 20
        r.sample(at(1000), at(1180)); // 18 ticks: delta 8 → srtt8 88; |8| − 5 = 3 → rttvar4 23
        assert_eq!(r.srtt(), ms(110), "srtt8 88 → 11 ticks");
        assert_eq!(
            r.rttvar(),
            SimDuration::from_micros(57_500),
            "23 quarter-ticks"
        );
        // (88 + 23·8) >> 3 = 34 ticks
        assert_eq!(r.timeout(), ms(340));
    }

    #[test]
    fn with_a_500ms_tick_every_rto_is_a_whole_number_of_ticks() {
        let p = Params {
            tick: ms(500),
            ..Params::default()
        };
        let mut r = Rto::new(&p, 0);
        let mut t = 0;
        for rtt in [130, 700, 260, 1400, 90, 520, 610] {
            r.sample(at(t), at(t + rtt));
            let rto = r.timeout().as_nanos();
            assert_eq!(rto % 500_000_000, 0, "rto {rto} ns after a {rtt} ms sample");
            assert!(rto >= 1_000_000_000);
            t += 3000;
        }
    }

    #[test]
    fn a_measurement_counts_tick_boundaries_crossed() {
        // sent 100 ms into a 500 ms tick: a 450 ms round trip crosses one boundary
        let p = Params {
            tick: ms(500),
            ..Params::default()
        };
        let mut r = Rto::new(&p, 0);
        r.sample(at(100), at(550));
        assert_eq!(r.last_sample_ticks(), 1);
        // a 40 ms round trip inside one tick crosses none, which still counts as one tick
        // (ns-2: t_rtt_ >= 1)
        let mut r = Rto::new(&p, 0);
        r.sample(at(40), at(80));
        assert_eq!(r.last_sample_ticks(), 1);
        // a clock phase shifts where the boundaries fall
        let mut r = Rto::new(&p, 450_000_000);
        r.sample(at(100), at(200)); // offset (100 + 450) mod 500 = 50 ms: crosses none → 1
        assert_eq!(r.last_sample_ticks(), 1);
        let mut r = Rto::new(&p, 450_000_000);
        r.sample(at(0), at(100)); // offset 450 ms: 450 + 100 crosses one boundary
        assert_eq!(r.last_sample_ticks(), 1);
        let mut r = Rto::new(&p, 450_000_000);
        r.sample(at(0), at(600)); // 450 + 600 = 1050 → two boundaries
        assert_eq!(r.last_sample_ticks(), 2);
    }

    #[test]
    fn the_minimum_applies_before_the_backoff_multiplies() {
        let mut r = rto(10, 1000);
        r.sample(at(0), at(100)); // base 300 ms, below the 1 s minimum
        assert_eq!(r.timeout(), SimDuration::from_secs(1));
        r.back_off();
        assert_eq!(
            r.timeout(),
            SimDuration::from_secs(2),
            "2 · max(300 ms, 1 s), not max(600 ms, 1 s)"
        );
    }

    #[test]
    fn backoff_doubles_up_to_the_maximum_and_a_valid_sample_ends_it() {
        let mut r = rto(10, 1000);
        let secs = |r: &Rto| r.timeout().as_nanos() / 1_000_000_000;
        let mut seen = vec![secs(&r)];
        for _ in 0..8 {
            r.back_off();
            seen.push(secs(&r));
        }
        assert_eq!(seen, vec![1, 2, 4, 8, 16, 32, 60, 60, 60]);
        r.end_backoff();
        assert_eq!(r.timeout(), SimDuration::from_secs(1));
    }

    #[test]
    fn after_more_than_three_doublings_srtt_is_forgotten_and_the_next_sample_restarts_it() {
        let mut r = rto(10, 0);
        r.sample(at(0), at(100));
        for _ in 0..4 {
            r.back_off();
        }
        assert!(!r.has_sample(), "backoff 16 > 8 clears SRTT");
        r.end_backoff();
        r.sample(at(10_000), at(10_400));
        assert_eq!(
            r.srtt(),
            ms(400),
            "re-initialised as a first sample (RFC 6298 §2.2)"
        );
        assert_eq!(r.rttvar(), ms(200));
    }

    #[test]
    fn the_rto_is_never_below_two_ticks() {
        // an initial RTO of 100 ms on a 500 ms clock is raised to two ticks (ns-2 rtt_timeout)
        let p = Params {
            tick: ms(500),
            min_rto: SimDuration::ZERO,
            initial_rto: ms(100),
            ..Params::default()
        };
        let mut r = Rto::new(&p, 0);
        assert_eq!(r.timeout(), SimDuration::from_secs(1));
        // the smallest sample, one tick, gives SRTT 1 + 4·RTTVAR 2 = 3 ticks
        r.sample(at(0), at(10));
        assert_eq!(r.timeout(), ms(1500));
    }

    #[test]
    fn a_steady_rtt_keeps_the_rto_at_least_one_tick_above_srtt() {
        // RTTVAR decays to its floor of one quarter tick · 4 = 3 (3 >> 2 = 0 stops the decay)
        let mut r = rto(10, 0);
        for i in 0..40 {
            r.sample(at(i * 1000), at(i * 1000 + 100));
        }
        assert_eq!(r.srtt(), ms(100));
        assert_eq!(
            r.timeout(),
            ms(130),
            "(80 + 3·8) >> 3 = 13 ticks ≥ SRTT + G"
        );
    }

    #[test]
    fn raising_the_base_after_a_lost_syn_gives_three_seconds() {
        let mut r = rto(10, 1000);
        r.back_off();
        r.raise_base_to(SimDuration::from_secs(3));
        assert_eq!(r.timeout(), SimDuration::from_secs(3));
        assert_eq!(r.backoff_factor(), 1);
    }
}
