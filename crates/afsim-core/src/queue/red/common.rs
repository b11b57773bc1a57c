//! The parameters every RED-family queue shares (`Red`, `rio`, `wred`): how the queue is
//! measured, a drop curve, how drops are spaced, and `Common` with its checks.

use crate::net::dscp::MAX_LEVELS;
use crate::param::ParamError;
use crate::queue::ecn_mark::{Position, Strategy};
use crate::queue::Limit;
use crate::sim::time::SimDuration;

/// What the average (and the thresholds) measure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Measure {
    /// Queue length in packets (ns-2 default).
    Packets,
    /// Queue length in bytes (ns-2 `queue_in_bytes_`); thresholds × `mean_pkt_size`.
    Bytes,
}

/// One RED drop curve.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Curve {
    /// Minimum threshold, packets (ns-2 `thresh_`).
    pub min_th: f64,
    /// Maximum threshold, packets (ns-2 `maxthresh_`).
    pub max_th: f64,
    /// Drop probability at max_th, in (0, 1] (ns-2 `1/linterm_`).
    pub max_p: f64,
}

impl Curve {
    /// `field` names the curve in the error ("thresholds", "in", "out", "level 2", ...).
    pub fn validate(&self, field: &'static str) -> Result<(), ParamError> {
        let Curve {
            min_th,
            max_th,
            max_p,
        } = *self;
        if !(min_th.is_finite() && max_th.is_finite() && max_p.is_finite()) {
            return Err(ParamError::new(
                field,
                "thresholds and max_p must be finite numbers",
            ));
        }
        if min_th < 0.0 {
            return Err(ParamError::new(
                field,
                format!("min_th {min_th} is negative"),
            ));
        }
        if min_th >= max_th {
            return Err(ParamError::new(
                field,
                format!("min_th {min_th} must be below max_th {max_th}"),
            ));
        }
        if !(max_p > 0.0 && max_p <= 1.0) {
            return Err(ParamError::new(
                field,
                format!("max_p {max_p} must be in (0, 1]"),
            ));
        }
        Ok(())
    }

    /// The curve in the unit the average is measured in.
    pub fn in_unit(&self, measure: Measure, mean_pkt_size: u32) -> Curve {
        match measure {
            Measure::Packets => *self,
            Measure::Bytes => {
                let s = f64::from(mean_pkt_size);
                Curve {
                    min_th: self.min_th * s,
                    max_th: self.max_th * s,
                    max_p: self.max_p,
                }
            }
        }
    }
}

/// How random early drops are spaced (`Common::spacing`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SpacingRule {
    /// Floyd & Jacobson 1993 as ns-2.35 `red.cc` (`REDQueue::enque`, `modify_p`): p_a = p_b /
    /// (1 − count·p_b), 1 once count·p_b ≥ 1; the arrival that finds the average at min_th
    /// or above after one below is accepted and starts the count at 1 (`old`); random drops
    /// between min_th and max_th, forced ones from max_th; a drop for a full buffer resets the
    /// count.
    #[default]
    Red,
    /// ns-2.35 `dsredq.cc` (`redQueue::enque`), the RED of ns-2's DiffServ queues: p_a = p_b /
    /// (1 − count·p_b) *uncapped*, so once count·p_b passes 1 it is negative and every
    /// arrival is kept until the average leaves (min_th, max_th] (`u <= pa` with `u` in
    /// [0, 1)); the count is −1 below min_th, so the arrival that crosses it is tested with
    /// p_a = p_b; random drops for min_th < avg ≤ max_th, forced ones above max_th; a drop for
    /// a full buffer, tested before the average, leaves the count alone. No gentle, wait or
    /// byte mode there, and ECN only as dsRED does it — mark-tail, marking above max_th too
    /// (see the module doc); `Common::validate` refuses the rest with this rule. It departs
    /// from Floyd & Jacobson, whose p_a reaches 1 at count = 1/p_b.
    Dsredq,
}

impl SpacingRule {
    pub const NAMES: [&'static str; 2] = ["red", "dsredq"];

    pub fn name(self) -> &'static str {
        match self {
            SpacingRule::Red => "red",
            SpacingRule::Dsredq => "dsredq",
        }
    }
}

/// Parameters RED, RIO and WRED share.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Common {
    /// EWMA weight w_q in (0, 1] (ns-2 `q_weight_`; Floyd & Jacobson suggest 0.002).
    pub w_q: f64,
    /// Gentle RED: p rises from max_p to 1 between max_th and 2·max_th (ns-2 `gentle_`).
    pub gentle: bool,
    /// Uniform drop spacing with a wait (ns-2 `wait_`); off: p_a = p_b / (1 − count·p_b).
    pub wait: bool,
    pub measure: Measure,
    /// Byte mode: large packets are dropped more often (ns-2 `bytes_`).
    pub byte_mode: bool,
    /// Mean packet size in bytes (ns-2 `mean_pktsize_`, default 500): the unit of the idle
    /// decay, of byte mode, and of thresholds when measuring bytes.
    pub mean_pkt_size: u32,
    /// Rate of the link this queue feeds, bits/s: with `mean_pkt_size`, the "typical
    /// transmission time" of the idle decay (ns-2 `ptc_`).
    pub link_rate_bps: u64,
    /// Hard limit of the buffer.
    pub limit: Limit,
    /// ECN marking strategy; `None`: no ECN, early drops are drops.
    pub ecn: Option<Strategy>,
    /// Separate marking curves (see the module doc), indexed as the discipline's drop curves:
    /// RED 0; RIO 0 for IN, 1 for OUT; WRED the level's curve. `None` (the default): early
    /// drops become marks as ns-2's `setbit_`. Needs `ecn`. Thresholds in packets, like the
    /// drop curves'.
    pub mark: [Option<Curve>; MAX_LEVELS],
    /// How random drops are spaced. Default `Red`; RIO and WRED may take `Dsredq`.
    pub spacing: SpacingRule,
    /// With ECN and no marking curve: a forced verdict (average beyond max_th, 2·max_th if
    /// gentle) marks the packet the strategy chooses instead of dropping the arrival, as ns-2
    /// DiffServ's `dsredq.cc` does (`PKT_MARKED` beyond th_max); `false` (the default): ns-2
    /// `red.cc`, forced drops stay drops. `Dsredq` spacing with ECN requires it.
    pub ecn_forced_mark: bool,
}

impl Common {
    /// The defaults of Floyd & Jacobson / ns-2's packet mode: w_q = 0.002, not gentle, no wait,
    /// packets, no byte mode, mean packet 500 bytes, no ECN.
    pub fn new(link_rate_bps: u64, limit: Limit) -> Self {
        Common {
            w_q: 0.002,
            gentle: false,
            wait: false,
            measure: Measure::Packets,
            byte_mode: false,
            mean_pkt_size: 500,
            link_rate_bps,
            limit,
            ecn: None,
            mark: [None; MAX_LEVELS],
            spacing: SpacingRule::Red,
            ecn_forced_mark: false,
        }
    }

    /// Checks the shared parameters, and that the limit holds every curve's max_th.
    pub fn validate(&self, curves: &[Curve]) -> Result<(), ParamError> {
        if !(self.w_q > 0.0 && self.w_q <= 1.0) {
            return Err(ParamError::new(
                "w_q",
                format!("w_q {} must be in (0, 1]", self.w_q),
            ));
        }
        if self.mean_pkt_size == 0 {
            return Err(ParamError::new(
                "mean_pkt_size",
                "the mean packet size must be positive",
            ));
        }
        if self.link_rate_bps == 0 {
            return Err(ParamError::new(
                "link_rate",
                "the link rate must be positive",
            ));
        }
        let limit_pkts = match self.limit {
            Limit::Packets(0) | Limit::Bytes(0) => {
                return Err(ParamError::new(
                    "limit",
                    "the buffer limit must be positive",
                ))
            }
            Limit::Packets(n) => f64::from(n),
            Limit::Bytes(b) => b as f64 / f64::from(self.mean_pkt_size),
        };
        for c in curves {
            if limit_pkts < c.max_th {
                return Err(ParamError::new(
                    "limit",
                    format!(
                        "the limit ({limit_pkts} mean-sized packets) is below max_th {}",
                        c.max_th
                    ),
                ));
            }
        }
        if self.spacing == SpacingRule::Dsredq {
            // dsredq.cc has none of these: refuse them rather than guess how they would combine
            let other = [
                (self.gentle, "gentle"),
                (self.wait, "wait"),
                (self.byte_mode, "byte_mode"),
                (self.measure == Measure::Bytes, "measure = \"bytes\""),
            ];
            if let Some((_, what)) = other.iter().find(|(on, _)| *on) {
                return Err(ParamError::new(
                    "spacing",
                    format!(
                        "spacing \"dsredq\" is ns-2's dsredq.cc, which has no {what}: use spacing \"red\" or leave {what} out"
                    ),
                ));
            }
            self.validate_dsred_ecn()?;
        }
        for (i, m) in self.mark.iter().enumerate() {
            let Some(m) = m else { continue };
            if i >= curves.len() {
                return Err(ParamError::new(
                    "mark",
                    format!(
                        "a marking curve for drop curve {i}, but the queue has {} drop curves",
                        curves.len()
                    ),
                ));
            }
            m.validate("mark")?;
            if self.ecn.is_none() {
                return Err(ParamError::new(
                    "mark",
                    "mark thresholds need ecn: a marking curve only ever marks",
                ));
            }
        }
        Ok(())
    }

    /// ECN under `SpacingRule::Dsredq`: only what ns-2's dsRED can do (see the module doc).
    fn validate_dsred_ecn(&self) -> Result<(), ParamError> {
        const USE_RED: &str = "or set spacing = \"red\" (ns-2 red.cc's rules), which takes it";
        if self.mark.iter().any(Option::is_some) {
            // dsredq.cc has one curve per precedence: the drop curve is also the marking curve
            return Err(ParamError::new(
                "mark",
                format!("spacing \"dsredq\" is ns-2's dsredq.cc, which has no separate marking curves: leave mark out, {USE_RED}"),
            ));
        }
        let Some(strategy) = self.ecn else {
            return Ok(());
        };
        if strategy.position != Position::Tail {
            let which = if strategy.position == Position::Front {
                "front"
            } else {
                "random"
            };
            // dsred.cc dsREDQueue::enque: on PKT_MARKED it sets ce() in the arriving packet, no other
            return Err(ParamError::new(
                "ecn",
                format!(
                    "ecn = \"{which}\" cannot be spacing \"dsredq\": ns-2's dsRED (dsred.cc, dsREDQueue::enque) marks only the arriving packet; use ecn = \"tail\", {USE_RED}"
                ),
            ));
        }
        if strategy.out_first {
            return Err(ParamError::new(
                "out_first",
                format!(
                    "out_first cannot be spacing \"dsredq\": ns-2's dsRED (dsred.cc, dsREDQueue::enque) marks the arriving packet, never a queued OUT one; leave out_first out, {USE_RED}"
                ),
            ));
        }
        if !self.ecn_forced_mark {
            // dsredq.cc redQueue::enque: v_ave > th_max returns PKT_MARKED for an ECN-capable packet
            return Err(ParamError::new(
                "ecn_forced",
                format!(
                    "ecn_forced = \"drop\" cannot be spacing \"dsredq\": with ECN, ns-2's dsredq.cc marks an ECN-capable packet when the average is above max_th; use ecn_forced = \"mark\", {USE_RED}"
                ),
            ));
        }
        Ok(())
    }

    /// Transmission time of `size` bytes on the link, rounded up. In 64 bits when the product
    /// fits (packets below 2.3 GB), the same value without a 128-bit division, a library call
    /// at every dequeue that empties a RED queue (issue 25).
    #[inline]
    pub(crate) fn tx_time(&self, size: u32) -> SimDuration {
        match (u64::from(size) * 8).checked_mul(1_000_000_000) {
            Some(bits_ns) => SimDuration(bits_ns.div_ceil(self.link_rate_bps)),
            None => {
                let ns =
                    (u128::from(size) * 8 * 1_000_000_000).div_ceil(u128::from(self.link_rate_bps));
                SimDuration(u64::try_from(ns).unwrap_or(u64::MAX))
            }
        }
    }
}
