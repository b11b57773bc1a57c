//! Single Rate Three Color Marker (srTCM).
//!
//! Read this first.
//! - Source: RFC 2697 (Heinanen & Guerin, 1999). §2 defines the parameters (CIR in bytes of IP
//!   packets per second, CBS and EBS in bytes) and the two modes; §3 the metering: two buckets
//!   C and E, both full at the start; CIR times a second, C gains a token if below CBS, else E
//!   gains one if below EBS; a packet of B bytes is green if C holds B (C loses B), else yellow
//!   if E holds B (E loses B), else red (nothing taken). In colour-aware mode only a packet
//!   pre-coloured green may be green, and a pre-coloured red one is red.
//! - Variant: exact. afsim rates are bits/s, so CIR here is `cir_bps` (RFC CIR × 8); the buckets
//!   hold integer nanobits (`token_bucket::Bucket`) and are updated at each arrival with all the
//!   tokens accrued since the previous one, C first and the overflow into E — the RFC's
//!   one-token-at-a-time rule summed exactly ("the token count … updated … at each arrival",
//!   RFC 2697 §3 allows either). Fractional tokens never make a difference, since B is a whole
//!   number of bytes: T ≥ B exactly when ⌊T⌋ ≥ B.
//!
//! Not modelled: the marker's action on each colour (`edge::PerColourAction`, applied by the
//! caller), and the RFC's recommendation that non-zero burst sizes be at least an MTU (a
//! scenario choice, not checked here).

use crate::edge::token_bucket::{nanobits, Bucket};
use crate::edge::MarkerStats;
use crate::net::dscp::Colour;
use crate::param::ParamError;
use crate::sim::time::SimTime;

/// RFC 2697 §2 modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Incoming packets are treated as uncoloured.
    ColourBlind,
    /// Incoming packets carry a colour (from the domain's `ColourTable`) that can only worsen.
    ColourAware,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Params {
    /// Committed Information Rate, bits per second.
    pub cir_bps: u64,
    /// Committed Burst Size, bytes.
    pub cbs_bytes: u64,
    /// Excess Burst Size, bytes.
    pub ebs_bytes: u64,
    pub mode: Mode,
}

impl Params {
    pub fn validate(&self) -> Result<(), ParamError> {
        if self.cir_bps == 0 {
            return Err(ParamError::new(
                "cir",
                "the committed information rate must be positive",
            ));
        }
        // RFC 2697 §2: CBS and EBS are configured so that at least one of them is above 0.
        if self.cbs_bytes == 0 && self.ebs_bytes == 0 {
            return Err(ParamError::new(
                "cbs",
                "CBS and EBS cannot both be 0 (RFC 2697 §2)",
            ));
        }
        Ok(())
    }
}

/// An srTCM meter/marker.
#[derive(Clone, Debug)]
pub struct Srtcm {
    params: Params,
    /// Committed bucket C: filled at CIR up to CBS.
    c: Bucket,
    /// Excess bucket E: gains only what overflows C, up to EBS (so its own rate is 0).
    e: Bucket,
    pub stats: MarkerStats,
}

impl Srtcm {
    /// A marker at `now`. RFC 2697 §3: "The token buckets C and E are initially (at time 0)
    /// full". `params` must have passed `validate`.
    pub fn new(params: Params, now: SimTime) -> Self {
        debug_assert!(params.validate().is_ok());
        Srtcm {
            params,
            c: Bucket::full(params.cir_bps, nanobits(params.cbs_bytes), now),
            e: Bucket::full(0, nanobits(params.ebs_bytes), now),
            stats: MarkerStats::default(),
        }
    }

    pub fn params(&self) -> &Params {
        &self.params
    }

    /// Tokens in C, nanobits.
    pub fn committed_tokens(&self) -> u128 {
        self.c.tokens()
    }

    /// Tokens in E, nanobits.
    pub fn excess_tokens(&self) -> u128 {
        self.e.tokens()
    }

    /// RFC 2697 §3 token update: CIR fills C up to CBS; what does not fit in C goes to E, up to
    /// EBS; the rest is lost.
    fn update(&mut self, now: SimTime) {
        let overflow = self.c.refill(now);
        self.e.refill(now);
        self.e.add(overflow);
    }

    /// Meters a packet of `size` bytes arriving at `now`. `pre` is its colour on arrival, used
    /// only in colour-aware mode.
    pub fn mark(&mut self, now: SimTime, size: u32, pre: Colour) -> Colour {
        self.update(now);
        let b = nanobits(u64::from(size));
        let colour = match self.params.mode {
            // RFC 2697 §3, colour-blind: green if Tc - B >= 0, else yellow if Te - B >= 0,
            // else red; each colour decrements only its own bucket, red none.
            Mode::ColourBlind => {
                if self.c.take(b) {
                    Colour::Green
                } else if self.e.take(b) {
                    Colour::Yellow
                } else {
                    Colour::Red
                }
            }
            // RFC 2697 §3, colour-aware: only a green packet may use C; green or yellow packets
            // may use E; anything else (and a red packet always) is red.
            Mode::ColourAware => {
                if pre == Colour::Green && self.c.take(b) {
                    Colour::Green
                } else if pre != Colour::Red && self.e.take(b) {
                    Colour::Yellow
                } else {
                    Colour::Red
                }
            }
        };
        self.stats.record(colour, size);
        colour
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    fn t(ms: u64) -> SimTime {
        SimTime(ms * MS)
    }

    /// CIR 1000 B/s, CBS 1000 B, EBS 2000 B.
    fn srtcm(mode: Mode) -> Srtcm {
        Srtcm::new(
            Params {
                cir_bps: 8_000,
                cbs_bytes: 1_000,
                ebs_bytes: 2_000,
                mode,
            },
            SimTime::ZERO,
        )
    }

    /// (C, E) in bytes; the tests only reach whole-byte states.
    fn buckets(m: &Srtcm) -> (u128, u128) {
        (
            m.committed_tokens() / nanobits(1),
            m.excess_tokens() / nanobits(1),
        )
    }

    #[test]
    fn both_buckets_start_full() {
        assert_eq!(buckets(&srtcm(Mode::ColourBlind)), (1_000, 2_000));
    }

    /// One hand-computed sequence through every colour-blind branch:
    ///
    /// | t (ms) | B    | before (C, E) | colour | after (C, E) | why                          |
    /// |--------|------|---------------|--------|--------------|------------------------------|
    /// | 0      | 600  | 1000, 2000    | green  | 400, 2000    | C ≥ B                        |
    /// | 0      | 600  | 400, 2000     | yellow | 400, 1400    | C < B ≤ E                    |
    /// | 0      | 1500 | 400, 1400     | red    | 400, 1400    | C, E < B: nothing taken      |
    /// | 500    | 900  | 900, 1400     | green  | 0, 1400      | +500 into C, below CBS       |
    /// | 2000   | 1000 | 1000, 1900    | green  | 0, 1900      | +1500: 1000 to C, 500 over   |
    /// | 2000   | 1900 | 0, 1900       | yellow | 0, 0         | E = B exactly conforms       |
    /// | 10000  | 0    | 1000, 2000    | green  | 1000, 2000   | +8000: both capped           |
    #[test]
    fn colour_blind_sequence_follows_rfc2697_section3() {
        let mut m = srtcm(Mode::ColourBlind);
        let steps: [(u64, u32, Colour, (u128, u128)); 7] = [
            (0, 600, Colour::Green, (400, 2_000)),
            (0, 600, Colour::Yellow, (400, 1_400)),
            (0, 1_500, Colour::Red, (400, 1_400)),
            (500, 900, Colour::Green, (0, 1_400)),
            (2_000, 1_000, Colour::Green, (0, 1_900)),
            (2_000, 1_900, Colour::Yellow, (0, 0)),
            (10_000, 0, Colour::Green, (1_000, 2_000)),
        ];
        for (i, (ms, size, colour, after)) in steps.into_iter().enumerate() {
            assert_eq!(m.mark(t(ms), size, Colour::Green), colour, "step {i}");
            assert_eq!(buckets(&m), after, "step {i}");
        }
        assert_eq!(m.stats.packets, [4, 2, 1]);
    }

    #[test]
    fn colour_blind_mode_ignores_the_precolour() {
        let mut m = srtcm(Mode::ColourBlind);
        assert_eq!(m.mark(t(0), 100, Colour::Red), Colour::Green);
    }

    #[test]
    fn e_fills_only_with_what_overflows_c() {
        let mut m = srtcm(Mode::ColourBlind);
        m.mark(t(0), 1_000, Colour::Green); // C 0
        m.mark(t(0), 2_000, Colour::Green); // yellow, E 0
        assert_eq!(buckets(&m), (0, 0));
        m.mark(t(999), 0, Colour::Green); // +999: all into C
        assert_eq!(buckets(&m), (999, 0));
        m.mark(t(1_250), 0, Colour::Green); // +251: 1 to C, 250 over
        assert_eq!(buckets(&m), (1_000, 250));
    }

    #[test]
    fn zero_cbs_sends_every_token_to_e() {
        let p = Params {
            cir_bps: 8_000,
            cbs_bytes: 0,
            ebs_bytes: 1_000,
            mode: Mode::ColourBlind,
        };
        let mut m = Srtcm::new(p, SimTime::ZERO);
        assert_eq!(m.mark(t(0), 1_000, Colour::Green), Colour::Yellow);
        assert_eq!(
            m.mark(t(500), 500, Colour::Green),
            Colour::Yellow,
            "500 ms refilled E by 500 B"
        );
        assert_eq!(m.mark(t(500), 1, Colour::Green), Colour::Red);
    }

    #[test]
    fn colour_aware_green_uses_c_then_e() {
        let mut m = srtcm(Mode::ColourAware);
        assert_eq!(m.mark(t(0), 600, Colour::Green), Colour::Green);
        assert_eq!(buckets(&m), (400, 2_000));
        assert_eq!(
            m.mark(t(0), 600, Colour::Green),
            Colour::Yellow,
            "C short: E serves it"
        );
        assert_eq!(buckets(&m), (400, 1_400));
    }

    #[test]
    fn colour_aware_yellow_never_takes_c_tokens() {
        let mut m = srtcm(Mode::ColourAware);
        assert_eq!(m.mark(t(0), 500, Colour::Yellow), Colour::Yellow);
        assert_eq!(
            buckets(&m),
            (1_000, 1_500),
            "C untouched although it held enough"
        );
    }

    #[test]
    fn colour_aware_yellow_without_e_tokens_is_red() {
        let mut m = srtcm(Mode::ColourAware);
        assert_eq!(m.mark(t(0), 2_001, Colour::Yellow), Colour::Red);
        assert_eq!(buckets(&m), (1_000, 2_000), "red takes nothing");
    }

    #[test]
    fn colour_aware_red_stays_red_with_full_buckets() {
        let mut m = srtcm(Mode::ColourAware);
        assert_eq!(m.mark(t(0), 1, Colour::Red), Colour::Red);
        assert_eq!(buckets(&m), (1_000, 2_000));
    }

    #[test]
    fn colour_aware_green_with_both_short_is_red() {
        let mut m = srtcm(Mode::ColourAware);
        assert_eq!(m.mark(t(0), 2_500, Colour::Green), Colour::Red);
        assert_eq!(buckets(&m), (1_000, 2_000));
    }

    #[test]
    fn validate_requires_a_rate_and_one_nonzero_burst() {
        let ok = Params {
            cir_bps: 1,
            cbs_bytes: 0,
            ebs_bytes: 1,
            mode: Mode::ColourBlind,
        };
        assert!(ok.validate().is_ok());
        assert_eq!(
            Params { cir_bps: 0, ..ok }.validate().unwrap_err().field,
            "cir"
        );
        assert_eq!(
            Params { ebs_bytes: 0, ..ok }.validate().unwrap_err().field,
            "cbs"
        );
    }
}
