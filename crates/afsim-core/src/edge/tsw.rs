//! Time Sliding Window rate estimator, and the TSW two- and three-colour markers.
//!
//! Read this first.
//! - Sources: RFC 2859 (Fang, Seddigh, Nandy, 2000), the TSWTCM: its rate estimator (state
//!   AVG_RATE, T_FRONT and the constant window length; initially AVG_RATE = CTR, T_FRONT = 0; on
//!   each arrival the bytes believed to be in the window, AVG_RATE × win_length, plus the
//!   packet, are spread over the time since T_FRONT plus the window, and T_FRONT moves to now)
//!   and its marker (green at or below the Committed Target Rate; between CTR and the Peak
//!   Target Rate yellow with probability (AVG_RATE − CTR)/AVG_RATE; above PTR red with
//!   probability (AVG_RATE − PTR)/AVG_RATE and yellow with probability (PTR − CTR)/AVG_RATE).
//!   The two-colour TSW tagger is Clark & Fang 1998 §3.3 ("Explicit allocation of best-effort
//!   packet delivery service"): above the target rate a packet is OUT with probability
//!   (AVG_RATE − target)/AVG_RATE. ns-2 `dsPolicy.cc` (`TSW2CMPolicy`, `TSW3CMPolicy`) implements
//!   the same estimator and probabilities.
//! - Variant: the estimator runs in f64 bits/s with time taken exactly from integer ns; each
//!   marking draws at most one uniform number from the marker's own stream (none when the rate
//!   is at or below CTR), as ns-2 does.
//!
//! Not modelled: colour-aware operation (RFC 2859 meters uncoloured streams), the RFC's
//! discussion of choosing win_length (a scenario choice).

use crate::edge::MarkerStats;
use crate::net::dscp::Colour;
use crate::param::ParamError;
use crate::sim::rng::Rng;
use crate::sim::time::{SimDuration, SimTime};

/// The TSW rate estimator.
#[derive(Clone, Debug, PartialEq)]
pub struct Estimator {
    win_ns: u64,
    avg_rate_bps: f64,
    t_front: SimTime,
}

impl Estimator {
    /// RFC 2859 initialisation: AVG_RATE starts at `initial_rate_bps` (the RFC uses CTR) and
    /// T_FRONT at `now` (the RFC's 0).
    pub fn new(win_length: SimDuration, initial_rate_bps: f64, now: SimTime) -> Self {
        Estimator {
            win_ns: win_length.as_nanos(),
            avg_rate_bps: initial_rate_bps,
            t_front: now,
        }
    }

    /// Updates the estimate with a packet of `size` bytes arriving at `now`; returns it.
    #[inline]
    pub fn update(&mut self, now: SimTime, size: u32) -> f64 {
        let win = self.win_ns as f64;
        let since_front = now.saturating_since(self.t_front).as_nanos() as f64;
        // RFC 2859 estimator: Bytes_in_win = AVG_RATE * win_length; New_bytes = Bytes_in_win +
        // pkt_size; AVG_RATE = New_bytes / (now - T_FRONT + win_length); T_FRONT = now.
        // In bits and nanoseconds: bits·1e9 / ns = bit/s.
        let bits_in_win_x1e9 = self.avg_rate_bps * win;
        let new_bits_x1e9 = bits_in_win_x1e9 + f64::from(size) * 8.0 * 1e9;
        self.avg_rate_bps = new_bits_x1e9 / (since_front + win);
        self.t_front = self.t_front.max(now);
        self.avg_rate_bps
    }

    /// The current estimate, bits per second.
    pub fn avg_rate_bps(&self) -> f64 {
        self.avg_rate_bps
    }

    pub fn t_front(&self) -> SimTime {
        self.t_front
    }
}

fn validate_window(win_length: SimDuration) -> Result<(), ParamError> {
    if win_length.as_nanos() == 0 {
        return Err(ParamError::new(
            "win_length",
            "the averaging window must be positive",
        ));
    }
    Ok(())
}

/// Parameters of the two-colour TSW marker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tsw2cmParams {
    /// Target rate (ns-2's CIR), bits per second.
    pub target_bps: u64,
    /// Averaging window of the estimator.
    pub win_length: SimDuration,
}

impl Tsw2cmParams {
    pub fn validate(&self) -> Result<(), ParamError> {
        if self.target_bps == 0 {
            return Err(ParamError::new(
                "target",
                "the target rate must be positive",
            ));
        }
        validate_window(self.win_length)
    }
}

/// TSW two-colour (IN/OUT) marker.
#[derive(Clone, Debug)]
pub struct Tsw2cm {
    params: Tsw2cmParams,
    estimator: Estimator,
    pub stats: MarkerStats,
}

impl Tsw2cm {
    pub fn new(params: Tsw2cmParams, now: SimTime) -> Self {
        debug_assert!(params.validate().is_ok());
        Tsw2cm {
            params,
            estimator: Estimator::new(params.win_length, params.target_bps as f64, now),
            stats: MarkerStats::default(),
        }
    }

    pub fn estimator(&self) -> &Estimator {
        &self.estimator
    }

    /// Meters a packet of `size` bytes at `now`, drawing from the marker's own stream `rng`.
    pub fn mark(&mut self, now: SimTime, size: u32, rng: &mut Rng) -> Colour {
        let avg = self.estimator.update(now, size);
        let target = self.params.target_bps as f64;
        // Clark & Fang §3.3: at or below the target everything is IN; above it a packet is OUT
        // with probability (avg - target) / avg, so that about the excess is marked OUT.
        let colour = if avg > target && rng.uniform() < (avg - target) / avg {
            Colour::OUT
        } else {
            Colour::IN
        };
        self.stats.record(colour, size);
        colour
    }
}

/// Parameters of the RFC 2859 three-colour marker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tsw3cmParams {
    /// Committed Target Rate, bits per second.
    pub ctr_bps: u64,
    /// Peak Target Rate, bits per second (≥ CTR).
    pub ptr_bps: u64,
    pub win_length: SimDuration,
}

impl Tsw3cmParams {
    pub fn validate(&self) -> Result<(), ParamError> {
        if self.ctr_bps == 0 {
            return Err(ParamError::new(
                "ctr",
                "the committed target rate must be positive",
            ));
        }
        if self.ptr_bps < self.ctr_bps {
            return Err(ParamError::new(
                "ptr",
                format!(
                    "PTR {} bit/s is below CTR {} bit/s",
                    self.ptr_bps, self.ctr_bps
                ),
            ));
        }
        validate_window(self.win_length)
    }
}

/// RFC 2859 TSWTCM.
#[derive(Clone, Debug)]
pub struct Tsw3cm {
    params: Tsw3cmParams,
    estimator: Estimator,
    pub stats: MarkerStats,
}

impl Tsw3cm {
    pub fn new(params: Tsw3cmParams, now: SimTime) -> Self {
        debug_assert!(params.validate().is_ok());
        // RFC 2859 initialisation: AVG_RATE = CTR.
        Tsw3cm {
            params,
            estimator: Estimator::new(params.win_length, params.ctr_bps as f64, now),
            stats: MarkerStats::default(),
        }
    }

    pub fn estimator(&self) -> &Estimator {
        &self.estimator
    }

    /// Meters a packet of `size` bytes at `now`, drawing from the marker's own stream `rng`.
    pub fn mark(&mut self, now: SimTime, size: u32, rng: &mut Rng) -> Colour {
        let avg = self.estimator.update(now, size);
        let ctr = self.params.ctr_bps as f64;
        let ptr = self.params.ptr_bps as f64;
        let colour = if avg <= ctr {
            // RFC 2859 marker: at or below CTR, green.
            Colour::Green
        } else {
            // RFC 2859 marker: P(red) = (avg - PTR)/avg above PTR (0 below it); P(yellow) =
            // (PTR - CTR)/avg above PTR, (avg - CTR)/avg between CTR and PTR. Either way
            // P(red) + P(yellow) = (avg - CTR)/avg, so one draw decides.
            let p_red = (avg - ptr).max(0.0) / avg;
            let p_not_green = (avg - ctr) / avg;
            let u = rng.uniform();
            if u < p_red {
                Colour::Red
            } else if u < p_not_green {
                Colour::Yellow
            } else {
                Colour::Green
            }
        };
        self.stats.record(colour, size);
        colour
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::rng::stream;

    const MS: u64 = 1_000_000;

    fn t(ms: u64) -> SimTime {
        SimTime(ms * MS)
    }

    /// Window 1 s, initial rate 8000 bit/s:
    ///
    /// | t (ms) | bytes | AVG_RATE (bit/s)               |
    /// |--------|-------|--------------------------------|
    /// | 0      | 1000  | (8000·1 + 8000) / (0 + 1) = 16000 |
    /// | 500    | 1000  | (16000 + 8000) / (0.5 + 1) = 16000 |
    /// | 2500   | 1000  | (16000 + 8000) / (2 + 1) = 8000 |
    /// | 2500   | 500   | (8000 + 4000) / (0 + 1) = 12000 |
    /// | 4500   | 1500  | (12000 + 12000) / (2 + 1) = 8000 |
    #[test]
    fn estimator_follows_the_rfc2859_update_by_hand() {
        let mut e = Estimator::new(SimDuration::from_secs(1), 8_000.0, SimTime::ZERO);
        for (ms, size, expect) in [
            (0, 1_000, 16_000.0),
            (500, 1_000, 16_000.0),
            (2_500, 1_000, 8_000.0),
            (2_500, 500, 12_000.0),
            (4_500, 1_500, 8_000.0),
        ] {
            let got = e.update(t(ms), size);
            assert!((got - expect).abs() < 1e-9, "t={ms} ms: {got} vs {expect}");
            assert_eq!(e.t_front(), t(ms), "T_FRONT moves to the arrival");
        }
    }

    #[test]
    fn estimator_converges_to_a_constant_arrival_rate() {
        // 1000 B every 4 ms = 2 Mbit/s; a fixed point of the update is exactly size/spacing.
        let mut e = Estimator::new(SimDuration::from_millis(100), 100_000.0, SimTime::ZERO);
        for i in 1..=2_000 {
            e.update(SimTime(i * 4 * MS), 1_000);
        }
        assert!((e.avg_rate_bps() - 2e6).abs() / 2e6 < 1e-6);
    }

    #[test]
    fn tsw2cm_marks_everything_in_at_or_below_target_without_drawing() {
        let mut m = Tsw2cm::new(
            Tsw2cmParams {
                target_bps: 4_000_000,
                win_length: SimDuration::from_millis(100),
            },
            SimTime::ZERO,
        );
        let mut rng = stream(1, "edge/tsw2");
        let before = rng.clone().next_u64();
        for i in 1..=1_000 {
            assert_eq!(m.mark(SimTime(i * 4 * MS), 1_000, &mut rng), Colour::IN);
            // 2 Mbit/s
        }
        assert_eq!(
            rng.next_u64(),
            before,
            "no number drawn while under the target"
        );
    }

    fn fractions(stats: &MarkerStats) -> [f64; 3] {
        stats
            .packets
            .map(|p| p as f64 / stats.offered_packets as f64)
    }

    #[test]
    fn tsw2cm_marks_the_excess_fraction_out() {
        // 4 Mbit/s offered against a 1 Mbit/s target: (4 - 1)/4 = 75 % OUT.
        let mut m = Tsw2cm::new(
            Tsw2cmParams {
                target_bps: 1_000_000,
                win_length: SimDuration::from_millis(500),
            },
            SimTime::ZERO,
        );
        let mut rng = stream(7, "edge/tsw2");
        for i in 1..=40_000 {
            m.mark(SimTime(i * 2 * MS), 1_000, &mut rng);
        }
        let f = fractions(&m.stats);
        assert!((f[1] - 0.75).abs() < 0.01, "OUT fraction {}", f[1]);
        assert_eq!(m.stats.packets[2], 0, "two colours only");
        assert!(m.stats.check().is_ok());
    }

    #[test]
    fn tsw3cm_between_ctr_and_ptr_marks_yellow_but_never_red() {
        // 4 Mbit/s, CTR 2, PTR 8: yellow (4 - 2)/4 = 50 %.
        let p = Tsw3cmParams {
            ctr_bps: 2_000_000,
            ptr_bps: 8_000_000,
            win_length: SimDuration::from_millis(500),
        };
        let mut m = Tsw3cm::new(p, SimTime::ZERO);
        let mut rng = stream(11, "edge/tsw3");
        for i in 1..=40_000 {
            m.mark(SimTime(i * 2 * MS), 1_000, &mut rng);
        }
        let f = fractions(&m.stats);
        assert_eq!(m.stats.packets[2], 0);
        assert!((f[1] - 0.5).abs() < 0.01, "yellow {}", f[1]);
    }

    #[test]
    fn tsw3cm_above_ptr_splits_red_yellow_green_by_the_rfc_probabilities() {
        // 4 Mbit/s, CTR 1, PTR 2: red (4-2)/4 = 50 %, yellow (2-1)/4 = 25 %, green 25 %.
        let p = Tsw3cmParams {
            ctr_bps: 1_000_000,
            ptr_bps: 2_000_000,
            win_length: SimDuration::from_millis(500),
        };
        let mut m = Tsw3cm::new(p, SimTime::ZERO);
        let mut rng = stream(13, "edge/tsw3");
        for i in 1..=40_000 {
            m.mark(SimTime(i * 2 * MS), 1_000, &mut rng);
        }
        let f = fractions(&m.stats);
        assert!((f[2] - 0.50).abs() < 0.01, "red {}", f[2]);
        assert!((f[1] - 0.25).abs() < 0.01, "yellow {}", f[1]);
        assert!((f[0] - 0.25).abs() < 0.01, "green {}", f[0]);
    }

    #[test]
    fn same_seed_gives_the_same_colours() {
        let p = Tsw3cmParams {
            ctr_bps: 1_000_000,
            ptr_bps: 2_000_000,
            win_length: SimDuration::from_millis(500),
        };
        let run = || {
            let mut m = Tsw3cm::new(p, SimTime::ZERO);
            let mut rng = stream(3, "edge/tsw3");
            (1..=500)
                .map(|i| m.mark(SimTime(i * 2 * MS), 1_000, &mut rng))
                .collect::<Vec<_>>()
        };
        assert_eq!(run(), run());
    }

    #[test]
    fn validate_rejects_zero_rates_ptr_below_ctr_and_empty_window() {
        let ok = Tsw3cmParams {
            ctr_bps: 1,
            ptr_bps: 1,
            win_length: SimDuration::from_millis(1),
        };
        assert!(ok.validate().is_ok());
        assert_eq!(
            Tsw3cmParams { ctr_bps: 0, ..ok }
                .validate()
                .unwrap_err()
                .field,
            "ctr"
        );
        assert_eq!(
            Tsw3cmParams { ctr_bps: 2, ..ok }
                .validate()
                .unwrap_err()
                .field,
            "ptr"
        );
        assert_eq!(
            Tsw3cmParams {
                win_length: SimDuration::ZERO,
                ..ok
            }
            .validate()
            .unwrap_err()
            .field,
            "win_length"
        );
        let two = Tsw2cmParams {
            target_bps: 0,
            win_length: SimDuration::from_millis(1),
        };
        assert_eq!(two.validate().unwrap_err().field, "target");
    }
}
