//! HyStart++ (RFC 9406): slow start that leaves early on a rising RTT, as an option of CUBIC
//! (`hystart = true`; RFC 9438 §4.10 allows it).
//!
//! Read this first: in the initial slow start every new ACK gives `on_ack` the cumulative ACK,
//! SND.NXT and the ACK's RTT sample (from the delivery-rate sampler: the most recently sent
//! segment it acknowledges, if it was sent once). §4.2: a round ends when the ACK passes
//! `windowEnd` (SND.NXT at the round's start); each round keeps its minimum RTT. Once a round
//! has N_RTT_SAMPLE samples and its minimum exceeds the last round's by RttThresh =
//! clamp(last / 8, 4 ms, 16 ms), slow start becomes Conservative Slow Start (CSS): growth
//! divided by CSS_GROWTH_DIVISOR; CSS goes back to slow start if a round's minimum falls below
//! the baseline that started it, and after CSS_ROUNDS rounds ends in congestion avoidance
//! (ssthresh = cwnd). A loss or ECN-Echo ends HyStart++ (the congestion event sets ssthresh).
//! Only the first slow start uses it (§4.3 leaves slow starts after a timeout to the
//! implementation; afsim uses plain slow start there). Constants: §4.3's recommended values.

use crate::sim::time::SimDuration;
use crate::transport::tcp::cc::rate::RateSampler;

/// RFC 9406 §4.3.
pub const MIN_RTT_THRESH: SimDuration = SimDuration::from_millis(4);
pub const MAX_RTT_THRESH: SimDuration = SimDuration::from_millis(16);
pub const MIN_RTT_DIVISOR: u64 = 8;
pub const N_RTT_SAMPLE: u32 = 8;
pub const CSS_GROWTH_DIVISOR: f64 = 4.0;
pub const CSS_ROUNDS: u32 = 5;
/// The ABC limit L for a sender that does not pace (§4.3: 8).
pub const L: f64 = 8.0;

/// What the ACK does to the window.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Step {
    /// cwnd += min(N, L·SMSS) / divisor (1 in slow start, CSS_GROWTH_DIVISOR in CSS).
    Grow { divisor: f64 },
    /// Leave slow start: ssthresh = cwnd (§4.2, after CSS_ROUNDS rounds of CSS).
    Exit,
}

#[derive(Clone, Debug)]
pub struct HyStart {
    /// Per-ACK RTT samples (Karn: none from a retransmitted segment).
    pub rate: RateSampler,
    window_end: u64,
    last_round_min: Option<SimDuration>,
    current_round_min: Option<SimDuration>,
    samples: u32,
    /// Some while in CSS: the round minimum that started it.
    css_baseline: Option<SimDuration>,
    css_rounds: u32,
}

impl HyStart {
    pub fn new(mss: u64) -> HyStart {
        HyStart {
            rate: RateSampler::new(mss),
            window_end: 0,
            last_round_min: None,
            current_round_min: None,
            samples: 0,
            css_baseline: None,
            css_rounds: 0,
        }
    }

    pub fn in_css(&self) -> bool {
        self.css_baseline.is_some()
    }

    /// §4.2 for one new ACK `ack` (SND.NXT `snd_nxt`) with RTT sample `rtt`.
    pub fn on_ack(&mut self, ack: u64, snd_nxt: u64, rtt: Option<SimDuration>) -> Step {
        if ack > self.window_end {
            // a new round
            self.last_round_min = self.current_round_min;
            self.current_round_min = None;
            self.samples = 0;
            self.window_end = snd_nxt;
            if self.css_baseline.is_some() {
                self.css_rounds += 1;
                if self.css_rounds >= CSS_ROUNDS {
                    return Step::Exit;
                }
            }
        }
        if let Some(r) = rtt {
            self.current_round_min = Some(self.current_round_min.map_or(r, |m| m.min(r)));
            self.samples += 1;
        }
        let enough = self.samples >= N_RTT_SAMPLE;
        match (
            self.css_baseline,
            self.current_round_min,
            self.last_round_min,
        ) {
            (None, Some(cur), Some(last)) if enough => {
                let thresh = SimDuration::from_nanos(last.as_nanos() / MIN_RTT_DIVISOR)
                    .clamp(MIN_RTT_THRESH, MAX_RTT_THRESH);
                if cur >= last + thresh {
                    self.css_baseline = Some(cur);
                    self.css_rounds = 0;
                }
            }
            (Some(base), Some(cur), _) if enough && cur < base => {
                // the RTT increase was spurious: back to slow start
                self.css_baseline = None;
            }
            _ => {}
        }
        let divisor = if self.css_baseline.is_some() {
            CSS_GROWTH_DIVISOR
        } else {
            1.0
        };
        Step::Grow { divisor }
    }
}
