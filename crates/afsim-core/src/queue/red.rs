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
pub(crate) mod testkit;

#[cfg(test)]
mod tests;
