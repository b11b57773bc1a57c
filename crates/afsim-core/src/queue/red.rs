//! RED: Random Early Detection, as ns-2 implements it.
//!
//! Read this first.
//! - Sources: Floyd & Jacobson, "Random Early Detection Gateways for Congestion Avoidance"
//!   (IEEE/ACM ToN 1993), and ns-2.35 `queue/red.cc`, whose details this file follows:
//!   - the average is an EWMA of the instantaneous queue length *before* the arrival, updated
//!     on every arrival with weight w_q;
//!   - after an idle period the average first decays as if m packets had arrived to an empty
//!     queue, m = ⌊idle time / transmission time of a mean-sized packet⌋ (`IdleClock::slots`); the
//!     queue is idle from the moment the link finishes its last packet;
//!   - p_b rises linearly from 0 at min_th to max_p at max_th; with `gentle`, from max_p at
//!     max_th to 1 at 2·max_th; beyond max_th (2·max_th if gentle) every arrival is dropped
//!     ("forced");
//!   - drop spacing p_a = p_b / (1 − count·p_b), or with `wait` 0 below count·p_b = 1 and
//!     p_b / (2 − count·p_b) up to 2; `count` is the number of arrivals since the last early
//!     drop, set to 1 by the first arrival to find the average above min_th (which is never
//!     dropped early — ns-2's `old` flag; the paper instead starts count at 0 and tests it);
//!   - byte mode (`bytes_`): count is counted in mean-sized packets and p_a is scaled by
//!     size / mean_pkt_size;
//!   - no early drop while the queue holds at most one packet (`qlen > 1`);
//!   - ECN (`setbit_`): an early (unforced) drop becomes a CE mark if the packet chosen by the
//!     marking strategy (`queue::ecn_mark`) is ECN-capable; forced drops stay drops even for
//!     ECN-capable packets — unless `Common::ecn_forced_mark`, ns-2 DiffServ's rule
//!     (`dsredq.cc`, `redQueue::enque`: with ECN, an average beyond th_max returns
//!     `PKT_MARKED` too), under which a forced verdict marks like an early one and only the
//!     hard limit (or a packet that cannot carry the mark) drops;
//!   - the hard limit drops the arrival (`Overflow`), whatever the average says, and resets
//!     count as a forced drop does.
//! - ECN under `SpacingRule::Dsredq` (RIO and WRED only; a plain `Red` refuses that rule): ns-2's
//!   DiffServ queue has one ECN path, and only it is accepted. `dsred.cc`, `dsREDQueue::enque`,
//!   calls the arrival ECN-capable when the queue's `ecn_` is set and the packet's `ect()` bit
//!   is (a CE packet keeps `ect()`, as `ecn_mark::ecn_capable` counts it); `dsredq.cc`,
//!   `redQueue::enque`, then tests the full buffer (a drop, ECN or not, before any RED state),
//!   updates the averages, and — for an ECN-capable arrival — returns `PKT_MARKED` where it
//!   would drop: on a random early decision of its uncapped p_a, and whenever the average is
//!   above max_th; `dsREDQueue::enque` sets CE in *that* packet and keeps it queued (dsredq.cc
//!   queues an ECN-capable arrival between the averages and the decision, which reads only the
//!   averages, so queueing it after the decision, as here, changes nothing). The count
//!   restarts at 0 on a mark exactly as on a drop, and a marked arrival ends the idle period of
//!   its virtual queue (`updateIdleFlag`) as an accepted one does. Non-ECN arrivals are
//!   dropped as before. So: `ecn = "tail"` only (mark-front, mark-random and the OUT scheme
//!   mark some other packet, which dsred.cc cannot), `ecn_forced_mark` on, no marking curves;
//!   `Common::validate` refuses anything else at the field that asks for it.
//! - Separate marking thresholds (not in ns-2; `Common::mark`): a colour's drop curve may have a
//!   marking curve beside it, used only with ECN. The arrival is tested twice with the same
//!   average: first against the drop curve, whose early and forced verdicts then *drop* it,
//!   ECN-capable or not; if it is not dropped (nor refused at the hard limit), against the
//!   marking curve, with its own count state and the same maths (gentle, wait, byte mode, the
//!   `qlen > 1` guard), whose early verdict — and, beyond its max_th, every arrival — puts a CE
//!   mark on the packet the marking strategy chooses, and never drops. If that packet is not
//!   ECN-capable the signal is lost: no mark, and the arrival is queued (drops are the drop
//!   curve's business; with `ecn_mark`'s usual rule a marking curve would drop every non-ECT
//!   mark-tail arrival beyond its max_th, below the drop curve's min_th). Marking thresholds
//!   are usually below the drop thresholds; that is not enforced. Without a marking curve ECN
//!   works as above.
//! - Thresholds are in packets, as ns-2's `thresh_`/`maxthresh_`; when the queue is measured in
//!   bytes (`Measure::Bytes`, ns-2 `queue_in_bytes_`) they are multiplied by `mean_pkt_size`.
//! - The maths is pure and separate (`RedAverage`, `IdleClock`, `decay_factor`,
//!   `drop_probability`, `spaced`, `byte_scaled`, and `Spacing`, the count state machine), so
//!   tests check it exactly. `IdleClock` prepares each queue's idle arithmetic once (an exact
//!   strength-reduced division and a table of decay factors); the tests check it against the
//!   plain formula (`tests::idle_slots`) and ns-2's loop.
//!   `Spacing`, `Curve`, `Common`, `Stats` and `Activity` are shared with `rio` and `wred`.
//! - Drops: early and forced both return `DropReason::Early`; per-level counters in `Stats`
//!   tell them apart. Levels are drop-precedence levels from the domain's `ColourTable`, used
//!   here for counting only.
//!
//! Not modelled: Adaptive/Gentle-adaptive RED (ns-2 `adaptive_`), `cautious_`, `mark_p`,
//! drop-front / drop-random victims of forced drops (the arrival is always the victim), the
//! Holt-Winters estimator, framing overhead in the idle time (the transmission time of the
//! last packet is computed from its IP size at `link_rate_bps`).

use std::collections::VecDeque;

use strength_reduce::StrengthReducedU64;

use crate::net::dscp::{ColourTable, MAX_LEVELS};
use crate::net::packet::{PacketId, Pool};
use crate::param::ParamError;
use crate::queue::ecn_mark::{self, Position, Signal, Strategy};
use crate::queue::DropReason;
use crate::queue::Limit;
use crate::sim::rng::Rng;
use crate::sim::time::{SimDuration, SimTime};

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

    /// Transmission time of `size` bytes on the link, rounded up.
    #[inline]
    fn tx_time(&self, size: u32) -> SimDuration {
        let ns = (u128::from(size) * 8 * 1_000_000_000).div_ceil(u128::from(self.link_rate_bps));
        SimDuration(u64::try_from(ns).unwrap_or(u64::MAX))
    }
}

/// Parameters of a RED queue.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Params {
    pub curve: Curve,
    pub common: Common,
}

impl Params {
    pub fn validate(&self) -> Result<(), ParamError> {
        self.curve.validate("thresholds")?;
        if self.common.spacing == SpacingRule::Dsredq {
            // ns-2's only queue with dsredq.cc's rules is dsRED, which is `wred` (one level: one
            // precedence) or `rio` here; `Red::enqueue` keeps red.cc's order of tests and idle clock
            return Err(ParamError::new(
                "spacing",
                "spacing \"dsredq\" is ns-2's DiffServ queue (dsredq.cc): use a wred queue with one level, or spacing \"red\"",
            ));
        }
        self.common.validate(&[self.curve])
    }
}

/// The EWMA of the queue length.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RedAverage {
    avg: f64,
}

impl RedAverage {
    /// An average that starts at `avg` instead of 0 (test fixtures, warm starts).
    pub fn starting_at(avg: f64) -> Self {
        RedAverage { avg }
    }

    pub fn value(&self) -> f64 {
        self.avg
    }

    /// One arrival that finds `q` queued (packets or bytes) after an idle period that leaves
    /// `decay` = (1−w_q)^m of the average (`decay_factor`; 1 without idle time): avg ← avg·decay,
    /// then avg ← (1−w_q)·avg + w_q·q (red.cc `estimator`).
    #[inline]
    pub fn update(&mut self, q: f64, decay: f64, w_q: f64) -> f64 {
        // Floyd & Jacobson: after an idle period, as if m small packets had arrived to an
        // empty queue. Multiplying by 1 when there was no idle time changes nothing.
        self.avg *= decay;
        self.avg = (1.0 - w_q) * self.avg + w_q * q;
        self.avg
    }
}

/// p_b for an average `avg` (red.cc `calculate_p_new`): 0 below min_th; linear from 0 to max_p
/// between min_th and max_th; beyond max_th 1, or with `gentle` linear from max_p at max_th to
/// 1 at 2·max_th; never above 1.
pub fn drop_probability(avg: f64, curve: &Curve, gentle: bool) -> f64 {
    let Curve {
        min_th,
        max_th,
        max_p,
    } = *curve;
    let p = if avg < min_th {
        0.0
    } else if avg >= max_th {
        if gentle {
            // p = max_p + (1 − max_p)·(avg − max_th)/max_th
            (1.0 - max_p) / max_th * avg + (2.0 * max_p - 1.0)
        } else {
            1.0
        }
    } else {
        max_p * (avg - min_th) / (max_th - min_th)
    };
    p.min(1.0)
}

/// p_a from p_b and the arrivals since the last early drop (red.cc `modify_p`): without `wait`
/// p_b / (1 − count·p_b), 1 once count·p_b ≥ 1; with `wait` 0 while count·p_b < 1,
/// p_b / (2 − count·p_b) while below 2, then 1.
pub fn spaced(p_b: f64, count: f64, wait: bool) -> f64 {
    let cp = count * p_b;
    let p = if wait {
        if cp < 1.0 {
            0.0
        } else if cp < 2.0 {
            p_b / (2.0 - cp)
        } else {
            1.0
        }
    } else if cp < 1.0 {
        p_b / (1.0 - cp)
    } else {
        1.0
    };
    p.min(1.0)
}

/// Byte mode (red.cc): p scaled by size / mean_pkt_size when below 1, capped at 1.
pub fn byte_scaled(p: f64, size: u32, mean_pkt_size: u32) -> f64 {
    if p < 1.0 {
        (p * f64::from(size) / f64::from(mean_pkt_size)).min(1.0)
    } else {
        p
    }
}

/// The outcome of RED's test for one arrival.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Accept,
    /// Random early drop (or ECN mark).
    Early,
    /// The average is beyond max_th (2·max_th if gentle): drop, even an ECN-capable packet.
    Forced,
}

/// The drop-spacing state of one RED curve (red.cc `count`, `count_bytes`, `old`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Spacing {
    /// Arrivals since the last early drop.
    pub count: u64,
    /// Bytes since the last early drop (byte mode).
    pub count_bytes: u64,
    /// Whether the previous arrival already found the average at or above min_th.
    pub old: bool,
    /// p_a of the last probabilistic test (for traces).
    pub last_p: f64,
}

impl Spacing {
    /// RED's decision for an arrival of `size` bytes finding the average `avg` (in the curve's
    /// unit). `busy` is red.cc's `qlen > 1`. Draws one uniform number exactly when it tests
    /// p_a.
    pub fn decide(
        &mut self,
        avg: f64,
        curve: &Curve,
        common: &Common,
        busy: bool,
        size: u32,
        rng: &mut Rng,
    ) -> Verdict {
        if common.spacing == SpacingRule::Dsredq {
            return self.decide_dsredq(avg, curve, rng);
        }
        // red.cc: count and count_bytes tally the arrivals since the last early drop.
        self.count += 1;
        self.count_bytes += u64::from(size);
        if !(avg >= curve.min_th && busy) {
            self.old = false;
            self.last_p = 0.0;
            return Verdict::Accept;
        }
        let beyond = if common.gentle {
            avg >= 2.0 * curve.max_th
        } else {
            avg >= curve.max_th
        };
        if beyond {
            self.on_forced_drop();
            return Verdict::Forced;
        }
        if !self.old {
            // red.cc: the average has just crossed min_th; start counting from this packet.
            self.count = 1;
            self.count_bytes = u64::from(size);
            self.old = true;
            return Verdict::Accept;
        }
        let p_b = drop_probability(avg, curve, common.gentle);
        let count = if common.byte_mode {
            (self.count_bytes / u64::from(common.mean_pkt_size)) as f64
        } else {
            self.count as f64
        };
        let mut p_a = spaced(p_b, count, common.wait);
        if common.byte_mode {
            p_a = byte_scaled(p_a, size, common.mean_pkt_size);
        }
        self.last_p = p_a;
        if rng.uniform() < p_a {
            self.count = 0;
            self.count_bytes = 0;
            return Verdict::Early;
        }
        Verdict::Accept
    }

    /// ns-2.35 dsredq.cc `redQueue::enque`, past its buffer test. `count` holds dsredq's
    /// `edv_.count` once the average is in the band (`old`); below min_th dsredq sets it to −1,
    /// which here is `old` false, so that the next arrival in the band counts 0.
    fn decide_dsredq(&mut self, avg: f64, curve: &Curve, rng: &mut Rng) -> Verdict {
        if avg <= curve.min_th {
            self.old = false;
            self.last_p = 0.0;
            return Verdict::Accept;
        }
        if avg > curve.max_th {
            // dsredq.cc redQueue::enque: count 0 whether it then drops or, with ecn, marks
            self.count = 0;
            self.old = true;
            return Verdict::Forced;
        }
        self.count = if self.old { self.count + 1 } else { 0 };
        self.old = true;
        let p_b = curve.max_p * (avg - curve.min_th) / (curve.max_th - curve.min_th);
        // uncapped: negative (every arrival kept) once count·p_b > 1, +∞ (a drop) at exactly 1
        let p_a = p_b / (1.0 - self.count as f64 * p_b);
        self.last_p = p_a;
        if rng.uniform() <= p_a {
            // dsredq.cc redQueue::enque: edv_.count = 0 before it returns PKT_EDROPPED or, with
            // ecn, PKT_MARKED: a mark restarts the spacing exactly as a drop does
            self.count = 0;
            return Verdict::Early;
        }
        Verdict::Accept
    }

    /// A drop for a full buffer: red.cc resets the count as after a forced drop; dsredq.cc
    /// refuses the packet before it touches any RED state.
    #[inline]
    pub fn on_overflow(&mut self, rule: SpacingRule) {
        if rule == SpacingRule::Red {
            self.on_forced_drop();
        }
    }

    /// red.cc resets the count after every forced drop (the hard limit included).
    #[inline]
    pub fn on_forced_drop(&mut self) {
        self.count = 0;
        self.count_bytes = 0;
    }
}

/// Whether a (possibly virtual) queue is busy or idle, for the idle decay of its average.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Activity {
    Busy,
    /// Idle from `since`; `credited` of the idle slots elapsed since then have already been
    /// credited to arrivals that left the queue idle (refused ones).
    Idle {
        since: SimTime,
        credited: u64,
    },
}

impl Activity {
    /// Idle from `since`, nothing credited yet.
    #[inline]
    pub fn idle(since: SimTime) -> Self {
        Activity::Idle { since, credited: 0 }
    }

    /// The idle slots to credit an arrival at `now`: the whole slots elapsed since the queue
    /// went idle, less those already credited to earlier arrivals that were refused and so
    /// left it idle (each slot is credited once).
    #[inline]
    pub fn slots_for_arrival(&mut self, now: SimTime, clock: &IdleClock) -> u64 {
        match self {
            Activity::Busy => 0,
            Activity::Idle { since, credited } => {
                if now <= *since {
                    return 0;
                }
                let total = clock.slots(now - *since);
                let m = total.saturating_sub(*credited);
                *credited = total;
                m
            }
        }
    }
}

/// Decay factors (1 − w_q)^m kept in a table for m below this.
const DECAY_TABLE: usize = 32;

/// The idle-decay arithmetic of one queue, prepared once: ns-2's slot count (red.cc:
/// `m = int(ptc * (now - idletime))`, `ptc = bandwidth / (8 · mean_pktsize)`) with its constant divisor strength-reduced (an exact multiply-and-shift instead of a hardware
/// division on every arrival), and (1 − w_q)^m for small m, each entry equal to `powi`'s.
#[derive(Clone, Copy, Debug)]
pub struct IdleClock {
    link_rate_bps: u64,
    /// 8 · mean_pkt_size · 10⁹: one slot, in bit-nanoseconds per link bit/s.
    slot: StrengthReducedU64,
    decay: [f64; DECAY_TABLE],
    w_q: f64,
}

impl IdleClock {
    pub fn new(common: &Common) -> Self {
        let w_q = common.w_q;
        IdleClock {
            link_rate_bps: common.link_rate_bps,
            slot: StrengthReducedU64::new(u64::from(common.mean_pkt_size) * 8 * 1_000_000_000),
            decay: std::array::from_fn(|m| decay_factor(w_q, m as u64)),
            w_q,
        }
    }

    /// How many mean-sized packets the link could have sent in `idle`, rounded down:
    /// ⌊idle_ns · rate / (8 · mean · 10⁹)⌋, exact in integers.
    #[inline]
    pub fn slots(&self, idle: SimDuration) -> u64 {
        match idle.as_nanos().checked_mul(self.link_rate_bps) {
            Some(p) => p / self.slot,
            None => {
                let q = u128::from(idle.as_nanos()) * u128::from(self.link_rate_bps)
                    / u128::from(self.slot.get());
                u64::try_from(q).unwrap_or(u64::MAX)
            }
        }
    }

    /// (1 − w_q)^m, as `decay_factor`.
    #[inline]
    pub fn decay(&self, m: u64) -> f64 {
        match self.decay.get(m as usize) {
            Some(&f) => f,
            None => decay_factor(self.w_q, m),
        }
    }

    /// `RedAverage::update` for an arrival credited `m` idle slots.
    #[inline]
    pub fn update(&self, avg: &mut RedAverage, q: f64, m: u64) -> f64 {
        avg.update(q, self.decay(m), self.w_q)
    }
}

/// (1 − w_q)^m: what m idle slots leave of the average (1 for m = 0). Square-and-multiply in
/// a fixed order, so the value is the same in every build (`f64::powi` promises no particular
/// rounding and can differ between optimisation levels); within a few ulps of ns-2's loop of
/// m multiplications.
pub fn decay_factor(w_q: f64, m: u64) -> f64 {
    let (mut base, mut e, mut acc) = (1.0 - w_q, m, 1.0);
    while e > 0 {
        if e & 1 == 1 {
            acc *= base;
        }
        e >>= 1;
        if e > 0 {
            base *= base;
        }
    }
    acc
}

/// Counters of one drop-precedence level.
///
/// Identity: `arrivals = forwarded + early_drops + overflow_drops + queued`, and
/// `forced_drops <= early_drops`. `ecn_marks` counts marks put on packets of this level (a
/// packet may be marked more than once by mark-front / mark-random).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LevelCounters {
    pub arrivals: u64,
    /// Handed to the link (dequeued).
    pub forwarded: u64,
    /// Dropped by the AQM: random early drops plus forced drops.
    pub early_drops: u64,
    /// The part of `early_drops` forced by an average beyond max_th (2·max_th if gentle).
    pub forced_drops: u64,
    /// Dropped at the hard limit.
    pub overflow_drops: u64,
    pub ecn_marks: u64,
    /// In the queue now.
    pub queued: u64,
}

impl LevelCounters {
    fn add(&mut self, o: &LevelCounters) {
        self.arrivals += o.arrivals;
        self.forwarded += o.forwarded;
        self.early_drops += o.early_drops;
        self.forced_drops += o.forced_drops;
        self.overflow_drops += o.overflow_drops;
        self.ecn_marks += o.ecn_marks;
        self.queued += o.queued;
    }

    /// Early plus overflow drops.
    pub fn drops(&self) -> u64 {
        self.early_drops + self.overflow_drops
    }
}

/// Per-level counters of an AQM queue (see `LevelCounters` for the identity).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stats {
    pub levels: [LevelCounters; MAX_LEVELS],
}

impl Stats {
    /// Sum over levels.
    pub fn total(&self) -> LevelCounters {
        let mut t = LevelCounters::default();
        for l in &self.levels {
            t.add(l);
        }
        t
    }

    /// Checks the conservation identity of every level.
    pub fn check(&self) -> Result<(), String> {
        for (i, l) in self.levels.iter().enumerate() {
            if l.arrivals != l.forwarded + l.early_drops + l.overflow_drops + l.queued {
                return Err(format!(
                    "level {i}: arrivals != forwarded + early + overflow + queued: {l:?}"
                ));
            }
            if l.forced_drops > l.early_drops {
                return Err(format!(
                    "level {i}: more forced drops than early drops: {l:?}"
                ));
            }
        }
        Ok(())
    }

    /// Counts an arrival and what became of it. `marked` is the level of a packet that got a
    /// CE mark because of this arrival.
    #[inline]
    pub(crate) fn record(
        &mut self,
        level: usize,
        outcome: Result<(), DropReason>,
        forced: bool,
        marked: Option<usize>,
    ) {
        let l = &mut self.levels[level];
        l.arrivals += 1;
        match outcome {
            Ok(()) => l.queued += 1,
            Err(DropReason::Overflow) => l.overflow_drops += 1,
            Err(_) => {
                l.early_drops += 1;
                if forced {
                    l.forced_drops += 1;
                }
            }
        }
        if let Some(m) = marked {
            self.levels[m].ecn_marks += 1;
        }
    }

    #[inline]
    pub(crate) fn record_departure(&mut self, level: usize) {
        let l = &mut self.levels[level];
        l.queued -= 1;
        l.forwarded += 1;
    }
}

/// The second test of an arrival, against its colour's marking curve (see the module doc): the
/// curve in the measured unit, its own count state, and what the drop test was given.
pub(crate) struct MarkTest<'a> {
    pub curve: &'a Curve,
    pub spacing: &'a mut Spacing,
    pub avg: f64,
    pub busy: bool,
    pub size: u32,
}

/// What an AQM does with an arrival once its drop verdict is known. Without a marking curve:
/// forced → drop; early → ECN mark (if configured and the chosen packet is ECN-capable) or
/// drop; accept → enqueue. With one (`mark`, and ECN on): the drop verdict drops, and an
/// accepted arrival is tested against the marking curve. Returns the outcome, whether it was
/// forced, and the level of a packet marked. Shared by RED/RIO/WRED.
#[allow(clippy::too_many_arguments)]
pub(crate) fn act(
    verdict: Verdict,
    mark: Option<MarkTest>,
    common: &Common,
    fifo: &VecDeque<PacketId>,
    id: PacketId,
    pool: &mut Pool,
    rank: impl Fn(&crate::net::packet::Packet) -> u8,
    level_of: impl Fn(PacketId, &Pool) -> usize,
    rng: &mut Rng,
) -> (Result<(), DropReason>, bool, Option<usize>) {
    if let (Some(m), Some(strategy)) = (mark, common.ecn) {
        return match verdict {
            // With a marking curve, the drop curve's verdicts are drops, ECN-capable or not.
            Verdict::Forced => (Err(DropReason::Early), true, None),
            Verdict::Early => (Err(DropReason::Early), false, None),
            // Same average, the marking curve: early, or beyond its max_th (a mark with
            // probability 1), signals; a packet that cannot carry the mark loses the signal.
            Verdict::Accept => match m
                .spacing
                .decide(m.avg, m.curve, common, m.busy, m.size, rng)
            {
                Verdict::Accept => (Ok(()), false, None),
                Verdict::Early | Verdict::Forced => {
                    match ecn_mark::signal(strategy, fifo, id, pool, rank, rng) {
                        Signal::Marked(v) => (Ok(()), false, Some(level_of(v, pool))),
                        Signal::NotEcnCapable(_) => (Ok(()), false, None),
                    }
                }
            },
        };
    }
    match verdict {
        Verdict::Accept => (Ok(()), false, None),
        // dsredq.cc: with ECN, beyond th_max the packet is marked as well
        Verdict::Forced if common.ecn_forced_mark && common.ecn.is_some() => {
            let strategy = common.ecn.expect("checked");
            match ecn_mark::signal(strategy, fifo, id, pool, rank, rng) {
                // dsred.cc dsREDQueue::enque: PKT_MARKED sets ce() and the packet stays queued
                Signal::Marked(v) => (Ok(()), false, Some(level_of(v, pool))),
                // dsredq.cc redQueue::enque: without ecn (no ect()) it is PKT_DROPPED, as before
                Signal::NotEcnCapable(_) => (Err(DropReason::Early), true, None),
            }
        }
        Verdict::Forced => (Err(DropReason::Early), true, None),
        Verdict::Early => match common.ecn {
            None => (Err(DropReason::Early), false, None),
            Some(strategy) => match ecn_mark::signal(strategy, fifo, id, pool, rank, rng) {
                // red.cc setbit_; dsredq.cc redQueue::enque returns PKT_MARKED for `u <= pa`
                // with ecn, and dsred.cc dsREDQueue::enque sets ce() and keeps the packet
                Signal::Marked(v) => (Ok(()), false, Some(level_of(v, pool))),
                // dsredq.cc redQueue::enque: PKT_EDROPPED for a packet without ect()
                Signal::NotEcnCapable(_) => (Err(DropReason::Early), false, None),
            },
        },
    }
}

/// Whether a packet of `size` bytes fits under `limit` with `len` packets / `bytes` queued
/// (the drop-tail rule).
#[inline]
pub(crate) fn fits(limit: Limit, len: usize, bytes: u64, size: u32) -> bool {
    match limit {
        Limit::Packets(n) => len < n as usize,
        Limit::Bytes(b) => bytes + u64::from(size) <= b,
    }
}

/// A RED queue.
#[derive(Debug)]
pub struct Red {
    params: Params,
    /// `params.curve` in the measured unit.
    curve: Curve,
    /// The marking curve (`common.mark[0]`) in the measured unit, and its count state.
    mark: Option<Curve>,
    mark_spacing: Spacing,
    colours: ColourTable,
    fifo: VecDeque<PacketId>,
    bytes: u64,
    avg: RedAverage,
    spacing: Spacing,
    link: Activity,
    clock: IdleClock,
    pub stats: Stats,
}

impl Red {
    /// An empty, idle queue (ns-2 starts RED idle at time 0). `params` must have passed
    /// `validate`; `colours` sorts the counters by level.
    pub fn new(params: Params, colours: ColourTable) -> Self {
        debug_assert!(params.validate().is_ok());
        let c = params.common;
        Red {
            params,
            curve: params.curve.in_unit(c.measure, c.mean_pkt_size),
            mark: c.mark[0].map(|m| m.in_unit(c.measure, c.mean_pkt_size)),
            mark_spacing: Spacing::default(),
            colours,
            fifo: VecDeque::new(),
            bytes: 0,
            avg: RedAverage::default(),
            spacing: Spacing::default(),
            link: Activity::idle(SimTime::ZERO),
            clock: IdleClock::new(&params.common),
            stats: Stats::default(),
        }
    }

    pub fn params(&self) -> &Params {
        &self.params
    }

    /// The average queue length, in the measured unit.
    pub fn avg(&self) -> f64 {
        self.avg.value()
    }

    pub fn spacing(&self) -> &Spacing {
        &self.spacing
    }

    #[inline]
    fn measured_len(&self) -> f64 {
        match self.params.common.measure {
            Measure::Packets => self.fifo.len() as f64,
            Measure::Bytes => self.bytes as f64,
        }
    }

    #[inline]
    pub fn enqueue(
        &mut self,
        now: SimTime,
        id: PacketId,
        pool: &mut Pool,
        rng: &mut Rng,
    ) -> Result<(), DropReason> {
        let common = &self.params.common;
        let (size, level) = {
            let p = pool.get(id);
            (p.size, usize::from(self.colours.level(p.dscp)))
        };
        // red.cc: the average sees the queue the packet finds, after crediting idle time.
        let q = self.measured_len();
        let m = self.link.slots_for_arrival(now, &self.clock);
        let avg = self.clock.update(&mut self.avg, q, m);
        let busy = q > 1.0;
        let verdict = self
            .spacing
            .decide(avg, &self.curve, common, busy, size, rng);
        // red.cc: "if (q+1) > hard q limit, this is a FORCED drop", overriding the test above.
        if !fits(common.limit, self.fifo.len(), self.bytes, size) {
            self.spacing.on_forced_drop();
            self.stats
                .record(level, Err(DropReason::Overflow), false, None);
            return Err(DropReason::Overflow);
        }
        let colours = &self.colours;
        let mark = self.mark.as_ref().map(|curve| MarkTest {
            curve,
            spacing: &mut self.mark_spacing,
            avg,
            busy,
            size,
        });
        let (outcome, forced, marked) = act(
            verdict,
            mark,
            common,
            &self.fifo,
            id,
            pool,
            |p| colours.level(p.dscp),
            |v, pool| usize::from(colours.level(pool.get(v).dscp)),
            rng,
        );
        self.stats.record(level, outcome, forced, marked);
        if outcome.is_ok() {
            self.fifo.push_back(id);
            self.bytes += u64::from(size);
            self.link = Activity::Busy;
        }
        outcome
    }

    #[inline]
    pub fn dequeue(&mut self, now: SimTime, pool: &mut Pool) -> Option<PacketId> {
        match self.fifo.pop_front() {
            Some(id) => {
                let p = pool.get(id);
                self.bytes -= u64::from(p.size);
                self.stats
                    .record_departure(usize::from(self.colours.level(p.dscp)));
                if self.fifo.is_empty() {
                    // red.cc: idle from when the link, finding the queue empty, has finished
                    // this packet.
                    self.link = Activity::idle(now + self.params.common.tx_time(p.size));
                }
                Some(id)
            }
            None => {
                // red.cc: a dequeue that finds nothing starts the idle period now.
                match &mut self.link {
                    Activity::Idle { since, .. } => *since = (*since).min(now),
                    Activity::Busy => self.link = Activity::idle(now),
                }
                None
            }
        }
    }

    /// The port's transmitter will finish the packet just dequeued at `at` (framing included).
    /// If that left the queue empty, the link goes idle then — red.cc's idle start, exact
    /// where `dequeue`'s own estimate (IP bytes at the link rate) ignores framing.
    #[inline]
    pub fn tx_ends(&mut self, at: SimTime) {
        if self.fifo.is_empty() {
            if let Activity::Idle { since, .. } = &mut self.link {
                *since = at;
            }
        }
    }

    /// The packets queued now, head first (for end-of-run accounting).
    pub fn queued(&self) -> &std::collections::VecDeque<PacketId> {
        &self.fifo
    }

    #[inline]
    pub fn len_packets(&self) -> usize {
        self.fifo.len()
    }

    #[inline]
    pub fn len_bytes(&self) -> u64 {
        self.bytes
    }

    /// Checks the counters' identity, and that `queued` matches the FIFO.
    pub fn check_conservation(&self) -> Result<(), String> {
        self.stats.check()?;
        let queued = self.stats.total().queued;
        if queued != self.fifo.len() as u64 {
            return Err(format!(
                "counters say {queued} queued, the FIFO holds {}",
                self.fifo.len()
            ));
        }
        Ok(())
    }
}

/// Synthetic arrival sequences driven through a discipline in front of a link, for the ordering
/// tests of RED, RIO and WRED.
#[cfg(test)]
pub(crate) mod testkit {
    use super::*;
    use crate::net::packet::{Ecn, Packet};
    use crate::sim::rng::stream;

    pub(crate) trait Discipline {
        fn enq(
            &mut self,
            now: SimTime,
            id: PacketId,
            pool: &mut Pool,
            rng: &mut Rng,
        ) -> Result<(), DropReason>;
        fn deq(&mut self, now: SimTime, pool: &mut Pool) -> Option<PacketId>;
    }

    impl Discipline for Red {
        fn enq(
            &mut self,
            now: SimTime,
            id: PacketId,
            pool: &mut Pool,
            rng: &mut Rng,
        ) -> Result<(), DropReason> {
            self.enqueue(now, id, pool, rng)
        }
        fn deq(&mut self, now: SimTime, pool: &mut Pool) -> Option<PacketId> {
            self.dequeue(now, pool)
        }
    }

    #[derive(Clone, Copy, Debug)]
    pub(crate) struct Arrival {
        pub at: SimTime,
        pub size: u32,
        pub dscp: u8,
        pub ecn: Ecn,
    }

    /// `n` Poisson arrivals of `size`-byte packets at `rate_bps` on average, DSCPs drawn
    /// uniformly from `dscps`, from their own seeded stream.
    pub(crate) fn poisson(
        seed: u64,
        n: usize,
        rate_bps: f64,
        size: u32,
        dscps: &[u8],
    ) -> Vec<Arrival> {
        let mut rng = stream(seed, "test/arrivals");
        let mean_gap_ns = f64::from(size) * 8.0 / rate_bps * 1e9;
        let mut t = 0.0;
        (0..n)
            .map(|_| {
                t += rng.exponential(mean_gap_ns);
                let dscp =
                    dscps[((rng.uniform() * dscps.len() as f64) as usize).min(dscps.len() - 1)];
                Arrival {
                    at: SimTime(t as u64),
                    size,
                    dscp,
                    ecn: Ecn::NotEct,
                }
            })
            .collect()
    }

    /// Feeds `arrivals` through `q` in front of a link of `link_bps`: the link takes the head
    /// packet when it finishes the previous one (and asks an empty queue, as a port does).
    pub(crate) fn run<D: Discipline>(
        q: &mut D,
        arrivals: &[Arrival],
        link_bps: u64,
        seed: u64,
    ) -> Vec<Result<(), DropReason>> {
        let mut pool = Pool::new();
        let mut rng = stream(seed, "test/queue");
        let tx = |size: u32| SimDuration((u64::from(size) * 8 * 1_000_000_000).div_ceil(link_bps));
        let mut busy_until: Option<SimTime> = None;
        let mut out = Vec::with_capacity(arrivals.len());
        for a in arrivals {
            while let Some(t) = busy_until {
                if t > a.at {
                    break;
                }
                busy_until = q.deq(t, &mut pool).map(|id| {
                    let next = t + tx(pool.get(id).size);
                    pool.free(id);
                    next
                });
            }
            let id = pool.alloc(Packet {
                size: a.size,
                dscp: a.dscp,
                ecn: a.ecn,
                ..Default::default()
            });
            let r = q.enq(a.at, id, &mut pool, &mut rng);
            if r.is_err() {
                pool.free(id);
            }
            if busy_until.is_none() {
                if let Some(id) = q.deq(a.at, &mut pool) {
                    busy_until = Some(a.at + tx(pool.get(id).size));
                    pool.free(id);
                }
            }
            out.push(r);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::testkit::{poisson, run};
    use super::*;
    use crate::net::dscp::{AF11, AF12, BE};
    use crate::net::packet::{Ecn, Packet};
    use crate::sim::rng::stream;
    use crate::sim::time::mul_div;

    const MS: u64 = 1_000_000;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    fn curve() -> Curve {
        Curve {
            min_th: 5.0,
            max_th: 15.0,
            max_p: 0.1,
        }
    }

    /// 8 Mbit/s and 1000-byte mean packets: one idle slot is exactly 1 ms.
    fn params() -> Params {
        let mut common = Common::new(8_000_000, Limit::Packets(1_000));
        common.mean_pkt_size = 1_000;
        Params {
            curve: curve(),
            common,
        }
    }

    fn red(p: Params) -> Red {
        Red::new(p, ColourTable::rfc2597())
    }

    /// A RED whose average is `avg` and whose weight is so small that it stays there.
    fn red_with_avg(avg: f64, tweak: impl FnOnce(&mut Params)) -> Red {
        let mut p = params();
        p.common.w_q = 1e-12;
        tweak(&mut p);
        let mut r = red(p);
        r.avg = RedAverage::starting_at(avg);
        r
    }

    fn pkt(pool: &mut Pool, size: u32, ecn: Ecn) -> PacketId {
        pool.alloc(Packet {
            size,
            dscp: AF11,
            ecn,
            ..Default::default()
        })
    }

    // ---- the average -------------------------------------------------------------------

    #[test]
    fn average_is_an_ewma_of_the_length_found_by_each_arrival() {
        let mut a = RedAverage::default();
        assert!(close(a.update(4.0, decay_factor(0.5, 0), 0.5), 2.0));
        assert!(close(a.update(4.0, decay_factor(0.5, 0), 0.5), 3.0));
        let mut b = RedAverage::default();
        assert!(close(b.update(10.0, decay_factor(0.002, 0), 0.002), 0.02));
        assert!(close(
            b.update(10.0, decay_factor(0.002, 0), 0.002),
            0.02 * 0.998 + 0.02
        ));
    }

    #[test]
    fn idle_decay_multiplies_by_one_minus_w_to_the_m_first() {
        let mut a = RedAverage { avg: 3.0 };
        // 3 · 0.5² = 0.75, then 0.5 · 0.75 + 0.5 · 0
        assert!(close(a.update(0.0, decay_factor(0.5, 2), 0.5), 0.375));
    }

    /// The plain formula `IdleClock::slots` is checked against: how many packets ns-2
    /// pretends arrived to an empty queue during an idle period, the idle time over the
    /// transmission time of a mean-sized packet, rounded down (red.cc: `m = int(ptc * (now -
    /// idletime))`, `ptc = bandwidth / (8 · mean_pktsize)`): ⌊idle_ns · rate / (8 · mean · 10^9)⌋.
    fn idle_slots(idle: SimDuration, link_rate_bps: u64, mean_pkt_size: u32) -> u64 {
        mul_div(
            idle.as_nanos(),
            link_rate_bps,
            u64::from(mean_pkt_size) * 8 * 1_000_000_000,
        )
    }

    #[test]
    fn idle_slots_are_whole_mean_packet_transmission_times() {
        // 8 Mbit/s, 1000 B: 1 ms per packet.
        assert_eq!(idle_slots(SimDuration(3_500_000), 8_000_000, 1_000), 3);
        assert_eq!(idle_slots(SimDuration(999_999), 8_000_000, 1_000), 0);
        assert_eq!(idle_slots(SimDuration(1_000_000), 8_000_000, 1_000), 1);
        // 10 Mbit/s, 500 B: 400 µs.
        assert_eq!(idle_slots(SimDuration::from_millis(1), 10_000_000, 500), 2);
    }

    #[test]
    fn the_idle_clock_counts_exactly_the_slots_of_idle_slots() {
        let mut rng = stream(7, "idle-clock");
        for (rate, mean) in [
            (8_000_000, 1_000),
            (34_000_000, 576),
            (100_000_000, 500),
            (10_000_000_000, 1_500),
            (1, 1),
        ] {
            let mut common = params().common;
            common.link_rate_bps = rate;
            common.mean_pkt_size = mean;
            let clock = IdleClock::new(&common);
            for _ in 0..2_000 {
                // idle times from nanoseconds to hours, including ones whose product with
                // the rate overflows 64 bits
                let idle = SimDuration(rng.next_u64() >> (rng.next_u64() % 64));
                assert_eq!(
                    clock.slots(idle),
                    idle_slots(idle, rate, mean),
                    "{idle:?} at {rate} b/s, {mean} B"
                );
            }
        }
    }

    #[test]
    fn the_idle_clock_decay_is_ns2s_repeated_multiplication_to_a_few_ulps() {
        for w_q in [0.002, 0.5, 1e-6] {
            let mut common = params().common;
            common.w_q = w_q;
            let clock = IdleClock::new(&common);
            assert_eq!(clock.decay(0), 1.0);
            let mut looped = 1.0f64; // red.cc `estimator`: new_ave *= 1.0 - q_w, m times
            for m in 1..200u64 {
                looped *= 1.0 - w_q;
                assert!(
                    (clock.decay(m) / looped - 1.0).abs() < 1e-13,
                    "w_q {w_q}, m {m}"
                );
                assert_eq!(
                    clock.decay(m).to_bits(),
                    decay_factor(w_q, m).to_bits(),
                    "table = function"
                );
            }
        }
        assert_eq!(
            decay_factor(0.002, u64::MAX),
            0.0,
            "a very long idle period empties the average"
        );
        assert_eq!(decay_factor(1.0, 3), 0.0);
    }

    // ---- the probability ---------------------------------------------------------------

    #[test]
    fn p_b_rises_linearly_from_min_th_to_max_th() {
        let c = curve();
        assert_eq!(drop_probability(4.0, &c, false), 0.0);
        assert_eq!(drop_probability(5.0, &c, false), 0.0);
        assert!(close(drop_probability(10.0, &c, false), 0.05));
        assert!(close(drop_probability(14.0, &c, false), 0.09));
    }

    #[test]
    fn p_b_is_one_beyond_max_th_without_gentle() {
        assert_eq!(drop_probability(15.0, &curve(), false), 1.0);
        assert_eq!(drop_probability(100.0, &curve(), false), 1.0);
    }

    #[test]
    fn gentle_p_b_rises_from_max_p_to_one_between_max_th_and_twice_max_th() {
        let c = curve();
        assert!(close(drop_probability(15.0, &c, true), 0.1));
        assert!(close(drop_probability(22.5, &c, true), 0.55));
        assert!(close(drop_probability(30.0, &c, true), 1.0));
        assert_eq!(drop_probability(40.0, &c, true), 1.0, "capped at 1");
    }

    #[test]
    fn count_spacing_is_p_b_over_one_minus_count_p_b() {
        assert!(close(spaced(0.05, 0.0, false), 0.05));
        assert!(close(spaced(0.05, 10.0, false), 0.1));
        assert!(close(spaced(0.05, 18.0, false), 0.5));
        assert_eq!(spaced(0.05, 20.0, false), 1.0);
        assert_eq!(spaced(0.05, 25.0, false), 1.0);
    }

    #[test]
    fn wait_spacing_is_zero_below_one_then_p_b_over_two_minus_count_p_b() {
        assert_eq!(spaced(0.05, 10.0, true), 0.0);
        assert!(close(spaced(0.05, 30.0, true), 0.1));
        assert_eq!(spaced(0.05, 40.0, true), 1.0);
    }

    #[test]
    fn byte_mode_scales_p_by_size_over_mean_size() {
        assert!(close(byte_scaled(0.1, 250, 500), 0.05));
        assert!(close(byte_scaled(0.1, 1_500, 500), 0.3));
        assert_eq!(byte_scaled(0.5, 1_500, 500), 1.0);
        assert_eq!(
            byte_scaled(1.0, 100, 500),
            1.0,
            "a certain drop stays certain"
        );
    }

    // ---- the discipline: average --------------------------------------------------------

    #[test]
    fn discipline_average_uses_the_length_before_the_arrival() {
        let mut p = params();
        p.common.w_q = 0.5;
        let mut q = red(p);
        let (mut pool, mut rng) = (Pool::new(), stream(1, "q"));
        let t = SimTime::ZERO;
        for expect in [0.0, 0.5, 1.25] {
            let id = pkt(&mut pool, 1_000, Ecn::NotEct);
            q.enqueue(t, id, &mut pool, &mut rng).unwrap();
            assert!(close(q.avg(), expect), "{} vs {expect}", q.avg());
        }
    }

    #[test]
    fn average_in_bytes_counts_bytes() {
        let mut p = params();
        p.common.w_q = 0.5;
        p.common.measure = Measure::Bytes;
        let mut q = red(p);
        let (mut pool, mut rng) = (Pool::new(), stream(1, "q"));
        for _ in 0..2 {
            let id = pkt(&mut pool, 1_000, Ecn::NotEct);
            q.enqueue(SimTime::ZERO, id, &mut pool, &mut rng).unwrap();
        }
        assert!(close(q.avg(), 500.0));
        assert_eq!(
            q.curve.min_th, 5_000.0,
            "thresholds in mean-sized packets become bytes"
        );
    }

    /// avg 8 → arrival at 0 to an empty queue: 4. Dequeued at 0, the link is busy with it
    /// until 1 ms. Arrival at 4.5 ms: 3 idle slots, 4 · 0.5³ · 0.5 = 0.25.
    #[test]
    fn idle_time_counts_from_the_end_of_the_last_transmission() {
        let mut q = red_with_avg(8.0, |p| p.common.w_q = 0.5);
        let (mut pool, mut rng) = (Pool::new(), stream(1, "q"));
        let a = pkt(&mut pool, 1_000, Ecn::NotEct);
        q.enqueue(SimTime::ZERO, a, &mut pool, &mut rng).unwrap();
        assert!(close(q.avg(), 4.0));
        assert_eq!(q.dequeue(SimTime::ZERO, &mut pool), Some(a));
        assert_eq!(q.link, Activity::idle(SimTime(MS)));
        let b = pkt(&mut pool, 1_000, Ecn::NotEct);
        q.enqueue(SimTime(4_500_000), b, &mut pool, &mut rng)
            .unwrap();
        assert!(close(q.avg(), 0.25));
    }

    #[test]
    fn an_empty_dequeue_starts_the_idle_period_when_it_happens() {
        let mut q = red_with_avg(8.0, |p| p.common.w_q = 0.5);
        let (mut pool, mut rng) = (Pool::new(), stream(1, "q"));
        let a = pkt(&mut pool, 1_000, Ecn::NotEct);
        q.enqueue(SimTime::ZERO, a, &mut pool, &mut rng).unwrap();
        q.dequeue(SimTime::ZERO, &mut pool);
        assert_eq!(q.dequeue(SimTime(600_000), &mut pool), None);
        // Idle since 0.6 ms: at 3.8 ms that is 3 slots (it would be 2 from 1 ms).
        let b = pkt(&mut pool, 1_000, Ecn::NotEct);
        q.enqueue(SimTime(3_800_000), b, &mut pool, &mut rng)
            .unwrap();
        assert!(close(q.avg(), 4.0 * 0.125 * 0.5));
    }

    #[test]
    fn arrival_while_the_last_packet_is_still_on_the_wire_gets_no_decay() {
        let mut q = red_with_avg(8.0, |p| p.common.w_q = 0.5);
        let (mut pool, mut rng) = (Pool::new(), stream(1, "q"));
        let a = pkt(&mut pool, 1_000, Ecn::NotEct);
        q.enqueue(SimTime::ZERO, a, &mut pool, &mut rng).unwrap();
        q.dequeue(SimTime::ZERO, &mut pool);
        let b = pkt(&mut pool, 1_000, Ecn::NotEct);
        q.enqueue(SimTime(500_000), b, &mut pool, &mut rng).unwrap();
        assert!(close(q.avg(), 2.0));
    }

    #[test]
    fn refused_arrival_to_an_idle_queue_does_not_get_the_same_idle_time_twice() {
        let mut act = Activity::idle(SimTime::ZERO);
        let c = IdleClock::new(&params().common);
        assert_eq!(act.slots_for_arrival(SimTime(3_500_000), &c), 3);
        assert_eq!(
            act,
            Activity::Idle {
                since: SimTime::ZERO,
                credited: 3
            }
        );
        // 4.2 ms is 4 slots from the start of the idle period, one of them new
        assert_eq!(act.slots_for_arrival(SimTime(4_200_000), &c), 1);
        assert_eq!(act.slots_for_arrival(SimTime(4_900_000), &c), 0);
    }

    // ---- the discipline: decisions ------------------------------------------------------

    fn fill(q: &mut Red, pool: &mut Pool, rng: &mut Rng, n: usize) {
        for _ in 0..n {
            let id = pkt(pool, 1_000, Ecn::NotEct);
            q.enqueue(SimTime::ZERO, id, pool, rng).unwrap();
        }
    }

    #[test]
    fn first_arrival_above_min_th_is_never_dropped_and_starts_count_at_one() {
        let mut q = red_with_avg(14.9, |_| {});
        let (mut pool, mut rng) = (Pool::new(), stream(1, "q"));
        q.spacing.old = false;
        // Two packets queued first would already be tested; use the qlen ≤ 1 guard to get
        // there: the first two arrivals find 0 and 1 packets and are accepted untested.
        fill(&mut q, &mut pool, &mut rng, 2);
        assert!(
            !q.spacing.old,
            "no test while the queue holds at most one packet"
        );
        let id = pkt(&mut pool, 1_000, Ecn::NotEct);
        assert!(q.enqueue(SimTime::ZERO, id, &mut pool, &mut rng).is_ok());
        assert!(q.spacing.old);
        assert_eq!(q.spacing.count, 1);
    }

    #[test]
    fn early_drops_are_never_more_than_one_over_p_b_arrivals_apart() {
        // avg 10: p_b = 0.05, so p_a reaches 1 at the 20th arrival after a drop.
        let mut q = red_with_avg(10.0, |_| {});
        let (mut pool, mut rng) = (Pool::new(), stream(2, "q"));
        let mut since_drop = 0;
        let mut gaps = Vec::new();
        for _ in 0..5_000 {
            let id = pkt(&mut pool, 1_000, Ecn::NotEct);
            since_drop += 1;
            if q.enqueue(SimTime::ZERO, id, &mut pool, &mut rng) == Err(DropReason::Early) {
                gaps.push(since_drop);
                since_drop = 0;
            }
            if q.len_packets() > 500 {
                q.dequeue(SimTime::ZERO, &mut pool);
            }
        }
        assert!(gaps.len() > 200);
        assert!(gaps[1..].iter().all(|&g| (1..=20).contains(&g)), "{gaps:?}");
        assert!(
            gaps.iter().any(|&g| g < 20),
            "drops come earlier than forced spacing too"
        );
    }

    #[test]
    fn with_wait_early_drops_are_between_one_and_two_over_p_b_arrivals_apart() {
        let mut q = red_with_avg(10.0, |p| p.common.wait = true);
        let (mut pool, mut rng) = (Pool::new(), stream(3, "q"));
        let mut since_drop = 0;
        let mut gaps = Vec::new();
        for _ in 0..5_000 {
            let id = pkt(&mut pool, 1_000, Ecn::NotEct);
            since_drop += 1;
            if q.enqueue(SimTime::ZERO, id, &mut pool, &mut rng).is_err() {
                gaps.push(since_drop);
                since_drop = 0;
            }
            if q.len_packets() > 500 {
                q.dequeue(SimTime::ZERO, &mut pool);
            }
        }
        assert!(
            gaps[1..].iter().all(|&g| (20..=40).contains(&g)),
            "{gaps:?}"
        );
    }

    /// `Common` with the drop spacing `rule`.
    fn spacing_rule(rule: SpacingRule) -> Common {
        Common {
            spacing: rule,
            ..params().common
        }
    }

    /// Whether `decide` drew a number from `rng` (it draws exactly when it tests p_a).
    fn draws(rng: &Rng, after: &Rng) -> bool {
        rng.clone().next_u64() != after.clone().next_u64()
    }

    #[test]
    fn dsredq_spacing_keeps_every_arrival_once_count_times_p_b_passes_one() {
        // avg 14 on (5, 15, 0.1): p_b = 0.09; 31 arrivals since the last drop, 31 · 0.09 > 1
        let long = Spacing {
            count: 30,
            old: true,
            ..Spacing::default()
        };
        let mut rng = stream(1, "q");
        let mut s = long;
        assert_eq!(
            s.decide(
                14.0,
                &curve(),
                &spacing_rule(SpacingRule::Red),
                true,
                1_000,
                &mut rng
            ),
            Verdict::Early,
            "red.cc: p_a = 1"
        );
        let mut s2 = long;
        for k in 31..131 {
            let v = s2.decide(
                14.0,
                &curve(),
                &spacing_rule(SpacingRule::Dsredq),
                true,
                1_000,
                &mut rng,
            );
            assert_eq!(
                v,
                Verdict::Accept,
                "dsredq.cc: p_a = p_b / (1 - count p_b) < 0 at count {k}"
            );
            assert_eq!(s2.count, k);
            assert!(s2.last_p < 0.0);
        }
        // ... until the average passes max_th: a forced drop restarts the count
        assert_eq!(
            s2.decide(
                15.5,
                &curve(),
                &spacing_rule(SpacingRule::Dsredq),
                true,
                1_000,
                &mut rng
            ),
            Verdict::Forced
        );
        assert_eq!((s2.count, s.count), (0, 0));
        // at count p_b = 1 exactly, p_a is +inf: a drop (avg 10: p_b = 0.05, count 20)
        let mut s3 = Spacing {
            count: 19,
            old: true,
            ..Spacing::default()
        };
        assert_eq!(
            s3.decide(
                10.0,
                &curve(),
                &spacing_rule(SpacingRule::Dsredq),
                true,
                1_000,
                &mut rng
            ),
            Verdict::Early
        );
    }

    #[test]
    fn dsredq_spacing_tests_the_arrival_that_crosses_min_th_with_p_a_equal_to_p_b() {
        let rng = stream(7, "q");
        // red.cc: accepted untested, count starts at 1
        let (mut s, mut r) = (Spacing::default(), rng.clone());
        assert_eq!(
            s.decide(
                10.0,
                &curve(),
                &spacing_rule(SpacingRule::Red),
                true,
                1_000,
                &mut r
            ),
            Verdict::Accept
        );
        assert!(s.old && s.count == 1 && !draws(&rng, &r));
        // dsredq.cc: count −1 + 1 = 0, tested with p_a = p_b = 0.05
        let (mut s, mut r) = (Spacing::default(), rng.clone());
        s.decide(
            10.0,
            &curve(),
            &spacing_rule(SpacingRule::Dsredq),
            true,
            1_000,
            &mut r,
        );
        assert!(s.old && s.count == 0 && draws(&rng, &r));
        assert!(close(s.last_p, 0.05));
        // the next arrival counts 1: p_a = 0.05 / 0.95
        s.decide(
            10.0,
            &curve(),
            &spacing_rule(SpacingRule::Dsredq),
            true,
            1_000,
            &mut r,
        );
        assert!(s.count <= 1 && close(s.last_p, 0.05 / 0.95));
    }

    #[test]
    fn dsredq_spacing_drops_at_random_up_to_max_th_inclusive_and_nothing_at_min_th() {
        let mut rng = stream(1, "q");
        let red = spacing_rule(SpacingRule::Red);
        let ds = spacing_rule(SpacingRule::Dsredq);
        let mut s = Spacing {
            old: true,
            ..Spacing::default()
        };
        assert_eq!(
            s.decide(15.0, &curve(), &red, true, 1_000, &mut rng),
            Verdict::Forced,
            "red.cc: avg >= max_th"
        );
        let mut s = Spacing {
            old: true,
            ..Spacing::default()
        };
        assert_ne!(
            s.decide(15.0, &curve(), &ds, true, 1_000, &mut rng),
            Verdict::Forced,
            "dsredq.cc: avg > max_th"
        );
        assert!(close(s.last_p, 0.1 / 0.9), "count 1, p_b = max_p");
        // at min_th exactly: red.cc is in the band (old set), dsredq.cc below it (count −1)
        let mut s = Spacing::default();
        s.decide(5.0, &curve(), &red, true, 1_000, &mut rng);
        assert!(s.old);
        let mut s = Spacing {
            old: true,
            count: 5,
            ..Spacing::default()
        };
        assert_eq!(
            s.decide(5.0, &curve(), &ds, true, 1_000, &mut rng),
            Verdict::Accept
        );
        assert!(!s.old, "the next arrival in the band counts 0 again");
    }

    #[test]
    fn an_overflow_drop_resets_the_red_count_and_leaves_the_dsredq_count_alone() {
        let mut s = Spacing {
            count: 12,
            old: true,
            ..Spacing::default()
        };
        s.on_overflow(SpacingRule::Dsredq);
        assert_eq!(s.count, 12);
        s.on_overflow(SpacingRule::Red);
        assert_eq!(s.count, 0);
    }

    #[test]
    fn average_beyond_max_th_forces_a_drop_of_every_arrival() {
        let mut q = red_with_avg(16.0, |_| {});
        let (mut pool, mut rng) = (Pool::new(), stream(1, "q"));
        q.fifo.extend([
            pkt(&mut pool, 1, Ecn::NotEct),
            pkt(&mut pool, 1, Ecn::NotEct),
        ]);
        for _ in 0..10 {
            let id = pkt(&mut pool, 1_000, Ecn::NotEct);
            assert_eq!(
                q.enqueue(SimTime::ZERO, id, &mut pool, &mut rng),
                Err(DropReason::Early)
            );
        }
        assert_eq!(q.stats.levels[0].forced_drops, 10);
    }

    #[test]
    fn gentle_turns_forced_drops_between_max_th_and_twice_max_th_into_random_ones() {
        // avg 16: p_b = 0.1 + 0.9 · 1/15 = 0.16 (without gentle: forced).
        let mut q = red_with_avg(16.0, |p| p.common.gentle = true);
        let (mut pool, mut rng) = (Pool::new(), stream(4, "q"));
        q.fifo.extend([
            pkt(&mut pool, 1, Ecn::NotEct),
            pkt(&mut pool, 1, Ecn::NotEct),
        ]);
        let mut accepted = 0;
        for _ in 0..1_000 {
            let id = pkt(&mut pool, 1_000, Ecn::NotEct);
            if q.enqueue(SimTime::ZERO, id, &mut pool, &mut rng).is_ok() {
                accepted += 1;
            }
        }
        assert!(accepted > 100, "p_b = 0.16 leaves some through: {accepted}");
        assert_eq!(q.stats.levels[0].forced_drops, 0);
        let mut beyond = red_with_avg(30.5, |p| p.common.gentle = true);
        beyond.fifo.extend([
            pkt(&mut pool, 1, Ecn::NotEct),
            pkt(&mut pool, 1, Ecn::NotEct),
        ]);
        let id = pkt(&mut pool, 1_000, Ecn::NotEct);
        assert_eq!(
            beyond.enqueue(SimTime::ZERO, id, &mut pool, &mut rng),
            Err(DropReason::Early)
        );
        assert_eq!(
            beyond.stats.levels[0].forced_drops, 1,
            "at 2·max_th gentle forces too"
        );
    }

    #[test]
    fn no_early_drop_while_the_queue_holds_at_most_one_packet() {
        let mut q = red_with_avg(100.0, |_| {});
        let (mut pool, mut rng) = (Pool::new(), stream(1, "q"));
        fill(&mut q, &mut pool, &mut rng, 2);
        let id = pkt(&mut pool, 1_000, Ecn::NotEct);
        assert_eq!(
            q.enqueue(SimTime::ZERO, id, &mut pool, &mut rng),
            Err(DropReason::Early)
        );
    }

    #[test]
    fn hard_limit_drops_as_overflow_even_below_min_th() {
        let mut p = params();
        p.common.limit = Limit::Packets(20);
        let mut q = red(p);
        let (mut pool, mut rng) = (Pool::new(), stream(1, "q"));
        fill(&mut q, &mut pool, &mut rng, 20);
        assert!(q.avg() < 5.0);
        let id = pkt(&mut pool, 1_000, Ecn::NotEct);
        assert_eq!(
            q.enqueue(SimTime::ZERO, id, &mut pool, &mut rng),
            Err(DropReason::Overflow)
        );
        assert_eq!(q.stats.levels[0].overflow_drops, 1);
    }

    #[test]
    fn byte_limit_refuses_the_packet_that_would_exceed_it() {
        let mut p = params();
        p.common.limit = Limit::Bytes(15_500);
        let mut q = red(p);
        let (mut pool, mut rng) = (Pool::new(), stream(1, "q"));
        fill(&mut q, &mut pool, &mut rng, 15);
        let big = pkt(&mut pool, 501, Ecn::NotEct);
        assert_eq!(
            q.enqueue(SimTime::ZERO, big, &mut pool, &mut rng),
            Err(DropReason::Overflow)
        );
        let fits = pkt(&mut pool, 500, Ecn::NotEct);
        assert!(q.enqueue(SimTime::ZERO, fits, &mut pool, &mut rng).is_ok());
    }

    // ---- ECN ------------------------------------------------------------------------------

    #[test]
    fn ecn_marks_an_ect_arrival_instead_of_dropping_it_early() {
        let mut q = red_with_avg(14.0, |p| p.common.ecn = Some(Strategy::MARK_TAIL));
        let (mut pool, mut rng) = (Pool::new(), stream(5, "q"));
        q.fifo
            .extend([pkt(&mut pool, 1, Ecn::Ect0), pkt(&mut pool, 1, Ecn::Ect0)]);
        q.spacing.old = true;
        for _ in 0..200 {
            let id = pkt(&mut pool, 1_000, Ecn::Ect0);
            assert!(
                q.enqueue(SimTime::ZERO, id, &mut pool, &mut rng).is_ok(),
                "ECT packets are never dropped early"
            );
        }
        let marks = q.stats.levels[0].ecn_marks;
        assert!(marks > 5, "{marks}");
        assert_eq!(
            q.fifo
                .iter()
                .filter(|&&id| pool.get(id).ecn == Ecn::Ce)
                .count() as u64,
            marks
        );
    }

    #[test]
    fn ecn_still_drops_early_a_packet_that_is_not_ect() {
        let mut q = red_with_avg(14.0, |p| p.common.ecn = Some(Strategy::MARK_TAIL));
        let (mut pool, mut rng) = (Pool::new(), stream(5, "q"));
        q.fifo.extend([
            pkt(&mut pool, 1, Ecn::NotEct),
            pkt(&mut pool, 1, Ecn::NotEct),
        ]);
        q.spacing.old = true;
        let drops = (0..200)
            .filter(|_| {
                let id = pkt(&mut pool, 1_000, Ecn::NotEct);
                q.enqueue(SimTime::ZERO, id, &mut pool, &mut rng).is_err()
            })
            .count();
        assert!(drops > 5);
        assert_eq!(q.stats.levels[0].ecn_marks, 0);
    }

    #[test]
    fn ecn_forced_drop_drops_even_an_ect_packet() {
        let mut q = red_with_avg(15.5, |p| p.common.ecn = Some(Strategy::MARK_TAIL));
        let (mut pool, mut rng) = (Pool::new(), stream(5, "q"));
        q.fifo
            .extend([pkt(&mut pool, 1, Ecn::Ect0), pkt(&mut pool, 1, Ecn::Ect0)]);
        let id = pkt(&mut pool, 1_000, Ecn::Ect0);
        assert_eq!(
            q.enqueue(SimTime::ZERO, id, &mut pool, &mut rng),
            Err(DropReason::Early)
        );
        assert_eq!(pool.get(id).ecn, Ecn::Ect0);
    }

    #[test]
    fn with_dsred_forced_marking_an_ect_packet_beyond_max_th_is_marked_not_dropped() {
        // dsredq.cc redQueue::enque: with ECN, v_ave > th_max returns PKT_MARKED
        let mut q = red_with_avg(15.5, |p| {
            p.common.ecn = Some(Strategy::MARK_TAIL);
            p.common.ecn_forced_mark = true;
        });
        let (mut pool, mut rng) = (Pool::new(), stream(5, "q"));
        q.fifo
            .extend([pkt(&mut pool, 1, Ecn::Ect0), pkt(&mut pool, 1, Ecn::Ect0)]);
        let id = pkt(&mut pool, 1_000, Ecn::Ect0);
        assert_eq!(q.enqueue(SimTime::ZERO, id, &mut pool, &mut rng), Ok(()));
        assert_eq!(pool.get(id).ecn, Ecn::Ce);
        let l = q.stats.levels[0];
        assert_eq!((l.ecn_marks, l.early_drops, l.forced_drops), (1, 0, 0));
        // a packet that cannot carry the mark is still dropped, and counted as forced
        let id = pkt(&mut pool, 1_000, Ecn::NotEct);
        assert_eq!(
            q.enqueue(SimTime::ZERO, id, &mut pool, &mut rng),
            Err(DropReason::Early)
        );
        assert_eq!(q.stats.levels[0].forced_drops, 1);
    }

    #[test]
    fn forced_marking_needs_ecn() {
        let mut q = red_with_avg(15.5, |p| p.common.ecn_forced_mark = true);
        let (mut pool, mut rng) = (Pool::new(), stream(5, "q"));
        q.fifo
            .extend([pkt(&mut pool, 1, Ecn::Ect0), pkt(&mut pool, 1, Ecn::Ect0)]);
        let id = pkt(&mut pool, 1_000, Ecn::Ect0);
        assert_eq!(
            q.enqueue(SimTime::ZERO, id, &mut pool, &mut rng),
            Err(DropReason::Early)
        );
    }

    // ---- dsRED's ECN path (spacing Dsredq) ---------------------------------------------------

    /// A `Common` as dsRED with `$q set ecn_ 1`: dsredq spacing, mark-tail, marking above max_th.
    fn dsred_ecn() -> Common {
        Common {
            spacing: SpacingRule::Dsredq,
            ecn: Some(Strategy::MARK_TAIL),
            ecn_forced_mark: true,
            ..params().common
        }
    }

    #[test]
    fn dsredq_spacing_takes_ecn_as_dsred_does_mark_tail_with_marks_above_max_th() {
        assert_eq!(dsred_ecn().validate(&[curve()]), Ok(()));
        assert_eq!(
            Common {
                ecn: None,
                ecn_forced_mark: false,
                ..dsred_ecn()
            }
            .validate(&[curve()]),
            Ok(())
        );
    }

    #[test]
    fn dsredq_spacing_refuses_what_dsred_cannot_mark_at_the_field_that_asks_for_it() {
        let field = |c: Common| c.validate(&[curve()]).unwrap_err();
        // dsred.cc dsREDQueue::enque sets ce() in the arriving packet only
        let e = field(Common {
            ecn: Some(Strategy::MARK_FRONT),
            ..dsred_ecn()
        });
        assert_eq!(e.field, "ecn");
        assert!(
            e.message
                .contains("ecn = \"front\" cannot be spacing \"dsredq\""),
            "{}",
            e.message
        );
        assert_eq!(
            field(Common {
                ecn: Some(Strategy::MARK_RANDOM),
                ..dsred_ecn()
            })
            .field,
            "ecn"
        );
        let out_tail = Strategy {
            position: Position::Tail,
            out_first: true,
        };
        assert_eq!(
            field(Common {
                ecn: Some(out_tail),
                ..dsred_ecn()
            })
            .field,
            "out_first"
        );
        // dsredq.cc redQueue::enque: above th_max an ECN-capable packet is PKT_MARKED, never dropped
        assert_eq!(
            field(Common {
                ecn_forced_mark: false,
                ..dsred_ecn()
            })
            .field,
            "ecn_forced"
        );
        // dsredq.cc: one curve per precedence, no separate marking curve
        let mut c = dsred_ecn();
        c.mark[0] = Some(Curve {
            min_th: 2.0,
            max_th: 4.0,
            max_p: 0.1,
        });
        assert_eq!(field(c).field, "mark");
        // spacing "red" keeps taking them all
        let red = Common {
            spacing: SpacingRule::Red,
            ecn: Some(Strategy::MARK_RANDOM),
            ecn_forced_mark: false,
            ..dsred_ecn()
        };
        assert_eq!(red.validate(&[curve()]), Ok(()));
    }

    #[test]
    fn a_plain_red_queue_refuses_dsredq_spacing_which_is_dsreds() {
        let mut p = params();
        p.common.spacing = SpacingRule::Dsredq;
        let e = p.validate().unwrap_err();
        assert_eq!(e.field, "spacing");
        assert!(
            e.message.contains("wred queue with one level"),
            "{}",
            e.message
        );
        p.common = dsred_ecn();
        assert_eq!(p.validate().unwrap_err().field, "spacing");
    }

    /// The spacing state machine under dsredq.cc with ECN: the mark is `act`'s business, the
    /// count's restart is the decision's, identical for a mark and a drop. p_b = 0.05 at 10.
    #[test]
    fn dsredq_spacing_restarts_the_count_at_an_early_verdict_whatever_becomes_of_the_packet() {
        let mut s = Spacing {
            count: 19,
            old: true,
            ..Default::default()
        };
        let mut rng = stream(1, "q");
        // count 20: p_a = 0.05 / (1 - 20 * 0.05) = +inf, certain
        assert_eq!(
            s.decide(10.0, &curve(), &dsred_ecn(), true, 1_000, &mut rng),
            Verdict::Early
        );
        assert_eq!((s.count, s.old), (0, true));
        // above max_th: count 0 too, and the band is still "old" (count not −1)
        s.count = 7;
        assert_eq!(
            s.decide(15.5, &curve(), &dsred_ecn(), true, 1_000, &mut rng),
            Verdict::Forced
        );
        assert_eq!((s.count, s.old), (0, true));
    }

    #[test]
    fn mark_front_marks_the_head_packet_and_counts_its_level() {
        let mut q = red_with_avg(14.5, |p| p.common.ecn = Some(Strategy::MARK_FRONT));
        let (mut pool, mut rng) = (Pool::new(), stream(6, "q"));
        let head = pool.alloc(Packet {
            size: 1_000,
            dscp: AF12,
            ecn: Ecn::Ect0,
            ..Default::default()
        });
        q.fifo.extend([head, pkt(&mut pool, 1, Ecn::Ect0)]);
        q.spacing.old = true;
        q.spacing.count = 100; // p_a = 1: the next arrival signals for sure
        let id = pkt(&mut pool, 1_000, Ecn::Ect0);
        assert!(q.enqueue(SimTime::ZERO, id, &mut pool, &mut rng).is_ok());
        assert_eq!(pool.get(head).ecn, Ecn::Ce);
        assert_eq!(pool.get(id).ecn, Ecn::Ect0);
        assert_eq!(
            q.stats.levels[1].ecn_marks, 1,
            "counted on the marked packet's level (AF12)"
        );
    }

    // ---- separate marking thresholds ---------------------------------------------------------

    /// Drop curve (20, 40, 0.1), marking curve (5, 15, 0.1), mark-tail, the average held at
    /// `avg`, two packets of `ecn` queued (past the `qlen > 1` guard).
    fn red_marking(avg: f64, ecn: Ecn) -> (Red, Pool) {
        let mut q = red_with_avg(avg, |p| {
            p.curve = Curve {
                min_th: 20.0,
                max_th: 40.0,
                max_p: 0.1,
            };
            p.common.mark[0] = Some(curve());
            p.common.ecn = Some(Strategy::MARK_TAIL);
            p.common.limit = Limit::Packets(5_000);
        });
        let mut pool = Pool::new();
        q.fifo
            .extend([pkt(&mut pool, 1, ecn), pkt(&mut pool, 1, ecn)]);
        (q, pool)
    }

    /// Offers `n` arrivals of `ecn`; returns how many were refused.
    fn offer_n(q: &mut Red, pool: &mut Pool, rng: &mut Rng, n: usize, ecn: Ecn) -> usize {
        (0..n)
            .filter(|_| {
                let id = pkt(pool, 1_000, ecn);
                q.enqueue(SimTime::ZERO, id, pool, rng).is_err()
            })
            .count()
    }

    #[test]
    fn between_the_mark_and_drop_min_th_ect_arrivals_are_marked_and_never_dropped() {
        // avg 10: marking p_b = 0.05, so marks are at most 20 arrivals apart; the drop curve
        // (min_th 20) never fires.
        let (mut q, mut pool) = red_marking(10.0, Ecn::Ect0);
        let mut rng = stream(7, "q");
        let mut since = 0;
        let mut gaps = Vec::new();
        for _ in 0..2_000 {
            let id = pkt(&mut pool, 1_000, Ecn::Ect0);
            since += 1;
            assert!(q.enqueue(SimTime::ZERO, id, &mut pool, &mut rng).is_ok());
            if pool.get(id).ecn == Ecn::Ce {
                gaps.push(since);
                since = 0;
            }
        }
        assert!(gaps.len() > 100, "{}", gaps.len());
        assert!(gaps[1..].iter().all(|&g| (1..=20).contains(&g)), "{gaps:?}");
        let l = q.stats.levels[0];
        assert_eq!((l.ecn_marks, l.early_drops), (gaps.len() as u64, 0));
        assert_eq!(
            q.spacing.count, 2_000,
            "the drop curve's count runs on, untouched by marks"
        );
    }

    #[test]
    fn a_not_ect_arrival_chosen_for_a_mark_is_neither_marked_nor_dropped() {
        let (mut q, mut pool) = red_marking(10.0, Ecn::NotEct);
        let mut rng = stream(7, "q");
        q.mark_spacing.old = true;
        q.mark_spacing.count = 100; // p_a = 1: the next arrival is chosen for a mark
        let id = pkt(&mut pool, 1_000, Ecn::NotEct);
        assert!(q.enqueue(SimTime::ZERO, id, &mut pool, &mut rng).is_ok());
        assert_eq!(pool.get(id).ecn, Ecn::NotEct);
        assert_eq!(q.mark_spacing.count, 0, "the signal was given (and lost)");
        assert_eq!(offer_n(&mut q, &mut pool, &mut rng, 2_000, Ecn::NotEct), 0);
        assert_eq!(q.stats.levels[0].ecn_marks, 0);
    }

    #[test]
    fn marking_probability_is_the_marking_curves_spaced_p_b() {
        // avg 10 on (5, 15, 0.1): p_b = 0.05; the 10th arrival since the last mark: count·p_b
        // = 0.5, p_a = 0.05 / 0.5 = 0.1.
        let (mut q, mut pool) = red_marking(10.0, Ecn::Ect0);
        let mut rng = stream(7, "q");
        q.mark_spacing.old = true;
        q.mark_spacing.count = 9;
        let id = pkt(&mut pool, 1_000, Ecn::Ect0);
        q.enqueue(SimTime::ZERO, id, &mut pool, &mut rng).unwrap();
        assert!(
            close(q.mark_spacing.last_p, 0.1),
            "{}",
            q.mark_spacing.last_p
        );
        assert_eq!(q.spacing.last_p, 0.0, "below the drop min_th");
    }

    #[test]
    fn above_the_drop_min_th_ect_arrivals_are_dropped_early_and_every_one_kept_is_marked() {
        // avg 30: drop p_b = 0.05 (random drops); beyond the marking max_th 15, so every
        // arrival the drop curve keeps is marked, with probability 1.
        let (mut q, mut pool) = red_marking(30.0, Ecn::Ect0);
        let mut rng = stream(8, "q");
        let dropped = offer_n(&mut q, &mut pool, &mut rng, 2_000, Ecn::Ect0) as u64;
        let l = q.stats.levels[0];
        assert!(
            dropped > 120 && dropped < 260,
            "about 2000 / 10.5: {dropped}"
        );
        assert_eq!((l.early_drops, l.forced_drops), (dropped, 0));
        assert_eq!(l.ecn_marks, 2_000 - dropped);
        assert!(q.fifo.iter().skip(2).all(|&id| pool.get(id).ecn == Ecn::Ce));
    }

    #[test]
    fn above_the_drop_min_th_not_ect_arrivals_are_dropped_early_and_never_marked() {
        let (mut q, mut pool) = red_marking(30.0, Ecn::NotEct);
        let mut rng = stream(8, "q");
        let dropped = offer_n(&mut q, &mut pool, &mut rng, 2_000, Ecn::NotEct);
        assert!(
            dropped > 120 && dropped < 260,
            "about 2000 / 10.5: {dropped}"
        );
        assert_eq!(q.stats.levels[0].ecn_marks, 0);
    }

    #[test]
    fn beyond_the_drop_max_th_a_marking_curve_still_forces_drops() {
        let (mut q, mut pool) = red_marking(40.5, Ecn::Ect0);
        let mut rng = stream(8, "q");
        assert_eq!(offer_n(&mut q, &mut pool, &mut rng, 10, Ecn::Ect0), 10);
        assert_eq!(
            (q.stats.levels[0].forced_drops, q.stats.levels[0].ecn_marks),
            (10, 0)
        );
    }

    #[test]
    fn a_marking_curve_is_measured_in_the_queues_unit() {
        let mut p = params();
        p.common.measure = Measure::Bytes;
        p.common.mark[0] = Some(Curve {
            min_th: 2.0,
            max_th: 4.0,
            max_p: 0.1,
        });
        p.common.ecn = Some(Strategy::MARK_TAIL);
        let q = red(p);
        assert_eq!(
            q.mark,
            Some(Curve {
                min_th: 2_000.0,
                max_th: 4_000.0,
                max_p: 0.1
            })
        );
    }

    #[test]
    fn validate_wants_marking_curves_valid_with_ecn_and_only_beside_a_drop_curve() {
        let with = |f: fn(&mut Params)| {
            let mut p = params();
            p.common.ecn = Some(Strategy::MARK_TAIL);
            p.common.mark[0] = Some(Curve {
                min_th: 2.0,
                max_th: 4.0,
                max_p: 0.1,
            });
            f(&mut p);
            p.validate()
        };
        assert!(with(|_| {}).is_ok());
        assert!(
            with(|p| p.common.mark[0] = Some(Curve {
                min_th: 8.0,
                max_th: 1_000.0,
                max_p: 1.0
            }))
            .is_ok(),
            "not below the drop curve, nor the limit: allowed"
        );
        let e = with(|p| p.common.ecn = None).unwrap_err();
        assert_eq!(
            (e.field, e.message.starts_with("mark thresholds need ecn")),
            ("mark", true)
        );
        assert_eq!(
            with(|p| p.common.mark[0] = Some(Curve {
                min_th: 4.0,
                max_th: 2.0,
                max_p: 0.1
            }))
            .unwrap_err()
            .field,
            "mark"
        );
        assert_eq!(
            with(|p| p.common.mark[1] = Some(curve()))
                .unwrap_err()
                .field,
            "mark",
            "RED has one drop curve"
        );
    }

    // ---- orderings on synthetic traffic -----------------------------------------------------

    fn early_drops_with(max_th: f64) -> u64 {
        let mut p = params();
        p.curve = Curve {
            min_th: 5.0,
            max_th,
            max_p: 0.1,
        };
        p.common.w_q = 0.02;
        let mut q = red(p);
        // 7.6 Mbit/s of Poisson traffic on an 8 Mbit/s link: the queue builds in bursts and the
        // drops are RED's, not the overload's.
        let arrivals = poisson(21, 20_000, 7.6e6, 1_000, &[BE]);
        run(&mut q, &arrivals, 8_000_000, 9);
        q.check_conservation().unwrap();
        q.stats.total().early_drops
    }

    #[test]
    fn lower_max_th_gives_more_early_drops() {
        let (low, mid, high) = (
            early_drops_with(10.0),
            early_drops_with(30.0),
            early_drops_with(90.0),
        );
        assert!(low > mid && mid > high, "{low} > {mid} > {high}");
    }

    #[test]
    fn byte_mode_drops_large_packets_more_often_than_small_ones() {
        let mut p = params();
        p.common.byte_mode = true;
        p.common.mean_pkt_size = 500;
        p.common.w_q = 0.02;
        let mut q = red(p);
        // Mean size 800 B: about 8.4 Mbit/s offered to 8, so most drops are random, not forced.
        let mut arrivals = poisson(5, 20_000, 5.25e6, 500, &[AF11]);
        let mut rng = stream(6, "sizes");
        for a in &mut arrivals {
            if rng.uniform() < 0.5 {
                a.size = 1_500;
                a.dscp = AF12;
            } else {
                a.size = 100;
            }
        }
        run(&mut q, &arrivals, 8_000_000, 9);
        let (small, large) = (q.stats.levels[0], q.stats.levels[1]);
        let rate = |l: LevelCounters| l.early_drops as f64 / l.arrivals as f64;
        assert!(
            rate(large) > 3.0 * rate(small),
            "{} vs {}",
            rate(large),
            rate(small)
        );
    }

    #[test]
    fn counters_balance_after_a_run() {
        let mut q = red(params());
        let arrivals = poisson(2, 5_000, 16e6, 1_000, &[AF11, AF12, BE]);
        let results = run(&mut q, &arrivals, 8_000_000, 1);
        q.check_conservation().unwrap();
        let t = q.stats.total();
        assert_eq!(t.arrivals, 5_000);
        assert_eq!(
            t.drops(),
            results.iter().filter(|r| r.is_err()).count() as u64
        );
        assert!(t.overflow_drops + t.early_drops > 0);
    }

    // ---- parameters -----------------------------------------------------------------------

    #[test]
    fn validate_rejects_bad_thresholds_probabilities_weights_and_limits() {
        assert!(params().validate().is_ok());
        let with = |f: fn(&mut Params)| {
            let mut p = params();
            f(&mut p);
            p.validate().unwrap_err().field
        };
        assert_eq!(with(|p| p.curve.min_th = 15.0), "thresholds");
        assert_eq!(with(|p| p.curve.max_p = 0.0), "thresholds");
        assert_eq!(with(|p| p.curve.max_p = 1.5), "thresholds");
        assert_eq!(with(|p| p.curve.min_th = -1.0), "thresholds");
        assert_eq!(with(|p| p.common.w_q = 0.0), "w_q");
        assert_eq!(with(|p| p.common.w_q = 1.1), "w_q");
        assert_eq!(with(|p| p.common.limit = Limit::Packets(14)), "limit");
        assert_eq!(with(|p| p.common.limit = Limit::Bytes(14_999)), "limit");
        assert_eq!(with(|p| p.common.mean_pkt_size = 0), "mean_pkt_size");
        assert_eq!(with(|p| p.common.link_rate_bps = 0), "link_rate");
        let mut ok = params();
        ok.curve.max_p = 1.0;
        ok.common.limit = Limit::Packets(15);
        assert!(
            ok.validate().is_ok(),
            "max_p = 1 and limit = max_th are allowed"
        );
    }
}
