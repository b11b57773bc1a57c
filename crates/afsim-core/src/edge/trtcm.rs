//! Two Rate Three Color Marker (trTCM).
//!
//! Read this first.
//! - Source: RFC 2698 (Heinanen & Guerin, 1999). §2: parameters PIR ≥ CIR (bytes of IP packets
//!   per second) and PBS, CBS (bytes, above 0); colour-blind and colour-aware modes. §3: bucket P
//!   filled at PIR up to PBS, bucket C at CIR up to CBS, both full at the start; a packet of B
//!   bytes is red if P holds less than B; else yellow if C holds less than B (P loses B); else
//!   green (P and C lose B). Colour-aware: a pre-coloured red packet is red, a pre-coloured
//!   yellow one is at best yellow.
//! - Variant: exact, as `srtcm`: rates in bits/s (`pir_bps` = PIR × 8), buckets in integer
//!   nanobits updated at each arrival with everything accrued since the previous one.
//!
//! Not modelled: the action taken on each colour (`edge::PerColourAction`), the RFC's advice
//! that bursts be at least an MTU.

use crate::edge::token_bucket::{nanobits, Bucket};
use crate::edge::MarkerStats;
use crate::net::dscp::Colour;
use crate::param::ParamError;
use crate::sim::time::SimTime;

pub use crate::edge::srtcm::Mode;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Params {
    /// Peak Information Rate, bits per second.
    pub pir_bps: u64,
    /// Peak Burst Size, bytes.
    pub pbs_bytes: u64,
    /// Committed Information Rate, bits per second.
    pub cir_bps: u64,
    /// Committed Burst Size, bytes.
    pub cbs_bytes: u64,
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
        // RFC 2698 §2: "The PIR must be equal to or greater than the CIR".
        if self.pir_bps < self.cir_bps {
            return Err(ParamError::new(
                "pir",
                format!(
                    "PIR {} bit/s is below CIR {} bit/s (RFC 2698 §2)",
                    self.pir_bps, self.cir_bps
                ),
            ));
        }
        // RFC 2698 §2: PBS and CBS are both configured above 0.
        if self.pbs_bytes == 0 {
            return Err(ParamError::new(
                "pbs",
                "the peak burst size must be above 0 (RFC 2698 §2)",
            ));
        }
        if self.cbs_bytes == 0 {
            return Err(ParamError::new(
                "cbs",
                "the committed burst size must be above 0 (RFC 2698 §2)",
            ));
        }
        Ok(())
    }
}

/// A trTCM meter/marker.
#[derive(Clone, Debug)]
pub struct Trtcm {
    params: Params,
    p: Bucket,
    c: Bucket,
    pub stats: MarkerStats,
}

impl Trtcm {
    /// A marker at `now`; RFC 2698 §3: both buckets "are initially (at time 0) full".
    /// `params` must have passed `validate`.
    pub fn new(params: Params, now: SimTime) -> Self {
        debug_assert!(params.validate().is_ok());
        Trtcm {
            params,
            p: Bucket::full(params.pir_bps, nanobits(params.pbs_bytes), now),
            c: Bucket::full(params.cir_bps, nanobits(params.cbs_bytes), now),
            stats: MarkerStats::default(),
        }
    }

    pub fn params(&self) -> &Params {
        &self.params
    }

    /// Tokens in P, nanobits.
    pub fn peak_tokens(&self) -> u128 {
        self.p.tokens()
    }

    /// Tokens in C, nanobits.
    pub fn committed_tokens(&self) -> u128 {
        self.c.tokens()
    }

    /// Meters a packet of `size` bytes arriving at `now`; `pre` is used in colour-aware mode.
    pub fn mark(&mut self, now: SimTime, size: u32, pre: Colour) -> Colour {
        // RFC 2698 §3: P gains PIR tokens a second up to PBS, C gains CIR up to CBS.
        self.p.refill(now);
        self.c.refill(now);
        let b = nanobits(u64::from(size));
        let (red_anyway, yellow_at_best) = match self.params.mode {
            Mode::ColourBlind => (false, false),
            Mode::ColourAware => (pre == Colour::Red, pre == Colour::Yellow),
        };
        // RFC 2698 §3: red if Tp - B < 0 (or pre-coloured red); else yellow if Tc - B < 0 (or
        // pre-coloured yellow), taking B from P; else green, taking B from both.
        let colour = if red_anyway || !self.p.holds(b) {
            Colour::Red
        } else if yellow_at_best || !self.c.holds(b) {
            self.p.take(b);
            Colour::Yellow
        } else {
            self.p.take(b);
            self.c.take(b);
            Colour::Green
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

    /// PIR 2000 B/s, PBS 2000 B; CIR 1000 B/s, CBS 1000 B.
    fn trtcm(mode: Mode) -> Trtcm {
        let p = Params {
            pir_bps: 16_000,
            pbs_bytes: 2_000,
            cir_bps: 8_000,
            cbs_bytes: 1_000,
            mode,
        };
        Trtcm::new(p, SimTime::ZERO)
    }

    /// (P, C) in whole bytes.
    fn buckets(m: &Trtcm) -> (u128, u128) {
        (
            m.peak_tokens() / nanobits(1),
            m.committed_tokens() / nanobits(1),
        )
    }

    #[test]
    fn both_buckets_start_full() {
        assert_eq!(buckets(&trtcm(Mode::ColourBlind)), (2_000, 1_000));
    }

    /// Hand-computed colour-blind sequence covering every branch:
    ///
    /// | t (ms) | B   | before (P, C) | colour | after (P, C) | why                       |
    /// |--------|-----|---------------|--------|--------------|---------------------------|
    /// | 0      | 800 | 2000, 1000    | green  | 1200, 200    | P, C ≥ B: both lose B     |
    /// | 0      | 800 | 1200, 200     | yellow | 400, 200     | P ≥ B > C: only P loses B |
    /// | 0      | 500 | 400, 200      | red    | 400, 200     | P < B: nothing taken      |
    /// | 250    | 450 | 900, 450      | green  | 450, 0       | +500 to P, +250 to C      |
    /// | 250    | 450 | 450, 0        | yellow | 0, 0         | P = B exactly is enough   |
    /// | 5000   | 0   | 2000, 1000    | green  | 2000, 1000   | both capped at PBS, CBS   |
    #[test]
    fn colour_blind_sequence_follows_rfc2698_section3() {
        let mut m = trtcm(Mode::ColourBlind);
        let steps: [(u64, u32, Colour, (u128, u128)); 6] = [
            (0, 800, Colour::Green, (1_200, 200)),
            (0, 800, Colour::Yellow, (400, 200)),
            (0, 500, Colour::Red, (400, 200)),
            (250, 450, Colour::Green, (450, 0)),
            (250, 450, Colour::Yellow, (0, 0)),
            (5_000, 0, Colour::Green, (2_000, 1_000)),
        ];
        for (i, (ms, size, colour, after)) in steps.into_iter().enumerate() {
            assert_eq!(m.mark(t(ms), size, Colour::Green), colour, "step {i}");
            assert_eq!(buckets(&m), after, "step {i}");
        }
        assert_eq!(m.stats.packets, [3, 2, 1]);
    }

    #[test]
    fn packet_above_the_peak_bucket_is_red_even_with_c_full() {
        let p = Params {
            pir_bps: 8_000,
            pbs_bytes: 500,
            cir_bps: 8_000,
            cbs_bytes: 1_000,
            mode: Mode::ColourBlind,
        };
        let mut m = Trtcm::new(p, SimTime::ZERO);
        assert_eq!(m.mark(t(0), 600, Colour::Green), Colour::Red);
        assert_eq!(buckets(&m), (500, 1_000));
    }

    #[test]
    fn colour_aware_red_is_red_and_takes_nothing() {
        let mut m = trtcm(Mode::ColourAware);
        assert_eq!(m.mark(t(0), 100, Colour::Red), Colour::Red);
        assert_eq!(buckets(&m), (2_000, 1_000));
    }

    #[test]
    fn colour_aware_yellow_takes_only_p() {
        let mut m = trtcm(Mode::ColourAware);
        assert_eq!(m.mark(t(0), 100, Colour::Yellow), Colour::Yellow);
        assert_eq!(
            buckets(&m),
            (1_900, 1_000),
            "C untouched although it held enough"
        );
    }

    #[test]
    fn colour_aware_yellow_above_p_is_red() {
        let mut m = trtcm(Mode::ColourAware);
        assert_eq!(m.mark(t(0), 2_001, Colour::Yellow), Colour::Red);
        assert_eq!(buckets(&m), (2_000, 1_000));
    }

    #[test]
    fn colour_aware_green_is_metered_like_colour_blind() {
        let mut aware = trtcm(Mode::ColourAware);
        let mut blind = trtcm(Mode::ColourBlind);
        for (ms, size) in [(0, 800), (0, 800), (0, 500), (250, 450), (250, 450)] {
            assert_eq!(
                aware.mark(t(ms), size, Colour::Green),
                blind.mark(t(ms), size, Colour::Green)
            );
            assert_eq!(buckets(&aware), buckets(&blind));
        }
    }

    #[test]
    fn validate_rejects_pir_below_cir_and_empty_bursts() {
        let ok = Params {
            pir_bps: 2,
            pbs_bytes: 1,
            cir_bps: 1,
            cbs_bytes: 1,
            mode: Mode::ColourBlind,
        };
        assert!(ok.validate().is_ok());
        assert!(
            Params { pir_bps: 1, ..ok }.validate().is_ok(),
            "PIR = CIR is allowed"
        );
        assert_eq!(
            Params {
                pir_bps: 0,
                cir_bps: 1,
                ..ok
            }
            .validate()
            .unwrap_err()
            .field,
            "pir"
        );
        assert_eq!(
            Params { pbs_bytes: 0, ..ok }.validate().unwrap_err().field,
            "pbs"
        );
        assert_eq!(
            Params { cbs_bytes: 0, ..ok }.validate().unwrap_err().field,
            "cbs"
        );
        assert_eq!(
            Params { cir_bps: 0, ..ok }.validate().unwrap_err().field,
            "cir"
        );
    }
}
