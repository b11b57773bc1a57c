//! The receiver's loss rules, RFC 5348's and ns-2's `Agent/TFRCSink`, as one list of decision
//! points.
//!
//! Read this first: where RFC 5348 and ns-2's tfrc-sink.cc disagree on which losses begin a loss
//! event and how the loss intervals are averaged, the detector (`loss_events.rs`) and the loss
//! history (`loss_history.rs`) ask the `Sink` they hold through `sink!(sink, decision(args))`,
//! a `match` on it: static dispatch, as `transport/tcp/sender/preset.rs` does for TCP's rules.
//! `LossRules` lists the decision points in the order a data packet meets them; `Rfc5348` and
//! `Ns2` below implement all of them, each readable from start to end with its source cited.
//! ns-2.28 and ns-2.35 have the same receiver at their defaults (`Rules::ns2_sink`), so both
//! ns-2 presets take `Ns2`. What the two share stays in the detector and the history.

use super::Rules;
use crate::sim::time::{SimDuration, SimTime};

/// Which loss rules the receiver follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sink {
    /// RFC 5348 §5.
    Rfc5348,
    /// ns-2's tfrc-sink.cc (2.28 and 2.35 alike at their defaults).
    Ns2,
}

impl Sink {
    /// The receiver rules of a preset's `Rules`.
    pub fn of(rules: Rules) -> Sink {
        if rules.ns2_sink() {
            Sink::Ns2
        } else {
            Sink::Rfc5348
        }
    }
}

/// `sink!(sink, decision(args))`: the decision of the rules `sink` names.
macro_rules! sink {
    ($sink:expr, $f:ident($($a:expr),* $(,)?)) => {
        match $sink {
            $crate::transport::tfrc::loss_rules::Sink::Rfc5348 => {
                <$crate::transport::tfrc::loss_rules::Rfc5348
                    as $crate::transport::tfrc::loss_rules::LossRules>::$f($($a),*)
            }
            $crate::transport::tfrc::loss_rules::Sink::Ns2 => {
                <$crate::transport::tfrc::loss_rules::Ns2
                    as $crate::transport::tfrc::loss_rules::LossRules>::$f($($a),*)
            }
        }
    };
}
pub(super) use sink;

/// What the rules read of the loss history (`loss_history::LossHistory` implements it), and
/// the state only ns-2's rules keep there.
pub trait History {
    /// The closed intervals held, k (at most n = 8).
    fn closed_count(&self) -> usize;
    /// I_tot1 / W_tot1: the average of the closed intervals with their DF_i.
    fn closed_mean(&self) -> f64;
    /// §5.5: DF for an open interval of `i0` packets.
    fn discount_factor(&self, i0: f64) -> f64;
    /// ns-2's `mult_factor_` and `last_sample`.
    fn ns2(&mut self) -> &mut Ns2Average;
}

/// The state of ns-2's average (tfrc-sink.cc) the history keeps for the `Ns2` rules.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ns2Average {
    /// `mult_factor_`: the DF of the last average, kept by the next event.
    pub factor: f64,
    /// `last_sample`: one past the highest sequence number the last average counted.
    pub counted_to: u64,
}

/// n of RFC 5348 §5.4: loss intervals in the average.
pub const N: usize = 8;
/// §5.5: the discount factor never goes below this (ns-2 `minDiscountRatio_`).
pub const MIN_DISCOUNT: f64 = 0.5;

/// The decision points, in the order a data packet meets them.
pub trait LossRules {
    // ---- loss detection (`loss_events::Detector::on_data`)
    /// Whether a CE-marked arrival is a loss indication *before* the losses its packet reveals
    /// are declared (otherwise after them).
    fn mark_before_gaps() -> bool;
    /// Whether a loss indication for a packet sent at `t`, in sender round `round`, begins a
    /// new loss event after the event that began at `event_time` in `event_round`; `rtt` is
    /// the R the receiver holds.
    fn begins_event(
        t: SimTime,
        round: u32,
        event_time: SimTime,
        event_round: u32,
        rtt: SimDuration,
    ) -> bool;

    // ---- loss history (`loss_history::LossHistory`)
    /// A new event whose first lost packet is `seq`: one past the last packet of the interval
    /// it closes.
    fn interval_end(seq: u64) -> u64;
    /// The discount factor the intervals already closed keep when a new event closes one of
    /// `length` packets.
    fn event_discount<H: History>(h: &mut H, length: f64) -> f64;
    /// At each average, with an open interval of `i0` packets and `s_max` the highest
    /// sequence number received: the discount factor of the closed intervals and how many of
    /// them I_tot0 weighs (besides I_0).
    fn average_discount<H: History>(h: &mut H, i0: f64, s_max: u64) -> (f64, usize);
}

/// RFC 5348 §5.
pub struct Rfc5348;

impl LossRules for Rfc5348 {
    /// §5.1 with RFC 3168: a marked packet counts like a loss once it has arrived; the losses
    /// it reveals go first (they were sent before it).
    fn mark_before_gaps() -> bool {
        false
    }

    /// §5.2: a loss begins a new event when it was sent more than R after the loss that began
    /// the current one.
    fn begins_event(t: SimTime, _: u32, event_time: SimTime, _: u32, rtt: SimDuration) -> bool {
        t > event_time + rtt
    }

    /// §5.3: an interval runs from the first packet of one event to the first packet of the
    /// next, S_B − S_A packets: the lost packet opens the new interval.
    fn interval_end(seq: u64) -> u64 {
        seq
    }

    /// §5.5: DF of the interval just closed, as the open interval it was.
    fn event_discount<H: History>(h: &mut H, length: f64) -> f64 {
        h.discount_factor(length)
    }

    /// §5.4–5.5: DF of the open interval; I_tot0 weighs I_0 … I_(k−1).
    fn average_discount<H: History>(h: &mut H, i0: f64, _: u64) -> (f64, usize) {
        (h.discount_factor(i0), h.closed_count().saturating_sub(1))
    }
}

/// ns-2's `Agent/TFRCSink` (tfrc-sink.cc, 2.35; 2.28's is the same at the defaults).
pub struct Ns2;

impl LossRules for Ns2 {
    /// `TfrcSinkAgent::recv`: a CE mark is tested (`new_loss`) before the sequence gap the
    /// packet reveals is turned into losses.
    fn mark_before_gaps() -> bool {
        true
    }

    /// `new_loss` with `PreciseLoss_ 1`: §5.2's send-time test, and also a sender round
    /// (`round_id`) newer than the event's.
    fn begins_event(
        t: SimTime,
        round: u32,
        event_time: SimTime,
        event_round: u32,
        rtt: SimDuration,
    ) -> bool {
        t > event_time + rtt && round > event_round
    }

    /// `est_loss_WALI`: ns-2 counts the lost packet into the interval it closes.
    fn interval_end(seq: u64) -> u64 {
        seq + 1
    }

    /// `mult_factor_`: the DF computed at the last report, not one for the closed interval.
    fn event_discount<H: History>(h: &mut H, _: f64) -> f64 {
        h.ns2().factor
    }

    /// `est_loss_WALI` and `weighted_average1` with `smooth_ 1`: `mult_factor_` only ever
    /// falls within an interval (and returns to 1 at events); with fewer than n closed
    /// intervals I_tot0 also weighs I_k. `last_sample` moves to the packet after `s_max`.
    fn average_discount<H: History>(h: &mut H, i0: f64, s_max: u64) -> (f64, usize) {
        let ratio = if i0 > 0.0 {
            2.0 * h.closed_mean() / i0
        } else {
            f64::INFINITY
        };
        let k = h.closed_count();
        let ns2 = h.ns2();
        if ratio < 1.0 {
            ns2.factor = ratio.max(MIN_DISCOUNT);
        }
        ns2.counted_to = s_max + 1;
        (ns2.factor, k.min(N - 1))
    }
}
