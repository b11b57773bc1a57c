//! RED's pure maths and state machines (red.cc): the average, p_b, the drop spacing, byte
//! mode, idle decay. Separate so the tests check each exactly.

use super::common::{Common, Curve, SpacingRule};
use super::divisor::Divisor;
use crate::sim::rng::Rng;
use crate::sim::time::{SimDuration, SimTime};

/// The EWMA of the queue length.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RedAverage {
    pub(super) avg: f64,
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
    ///
    /// The common case, an average below min_th, is inlined into each discipline's enqueue;
    /// the rest is `decide_red` / `decide_dsredq`, out of line (issue 25: the call was about
    /// 16 instructions an arrival).
    #[inline(always)]
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
            if avg <= curve.min_th {
                // dsredq.cc: below min_th (count −1 there; see `decide_dsredq`)
                self.old = false;
                self.last_p = 0.0;
                return Verdict::Accept;
            }
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
        self.decide_red(avg, curve, common, size, rng)
    }

    /// `decide` under `SpacingRule::Red` once the average is at or above min_th and the queue
    /// busy (count and count_bytes already tallied).
    #[inline(never)]
    fn decide_red(
        &mut self,
        avg: f64,
        curve: &Curve,
        common: &Common,
        size: u32,
        rng: &mut Rng,
    ) -> Verdict {
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
    /// Called by `decide` once the average is above min_th.
    #[inline(never)]
    fn decide_dsredq(&mut self, avg: f64, curve: &Curve, rng: &mut Rng) -> Verdict {
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
/// `m = int(ptc * (now - idletime))`, `ptc = bandwidth / (8 · mean_pktsize)`) with its constant divisor prepared once
/// (`red::divisor`: an exact multiply-and-shift instead of a hardware division on every
/// arrival), and (1 − w_q)^m for small m, each entry equal to `powi`'s.
#[derive(Clone, Copy, Debug)]
pub struct IdleClock {
    link_rate_bps: u64,
    /// 8 · mean_pkt_size · 10⁹: one slot, in bit-nanoseconds per link bit/s.
    slot: Divisor,
    decay: [f64; DECAY_TABLE],
    w_q: f64,
    /// 1 − w_q, as `RedAverage::update` computes it on every arrival: the same subtraction,
    /// done once.
    keep: f64,
}

impl IdleClock {
    pub fn new(common: &Common) -> Self {
        let w_q = common.w_q;
        IdleClock {
            link_rate_bps: common.link_rate_bps,
            slot: Divisor::new(u64::from(common.mean_pkt_size) * 8 * 1_000_000_000),
            decay: std::array::from_fn(|m| decay_factor(w_q, m as u64)),
            w_q,
            keep: 1.0 - w_q,
        }
    }

    /// How many mean-sized packets the link could have sent in `idle`, rounded down:
    /// ⌊idle_ns · rate / (8 · mean · 10⁹)⌋, exact in integers.
    /// (Inlined into every arrival that ends an idle period; the 128-bit case, an idle time
    /// whose product with the rate passes 2⁶⁴, out of line: issue 25.)
    #[inline(always)]
    pub fn slots(&self, idle: SimDuration) -> u64 {
        match idle.as_nanos().checked_mul(self.link_rate_bps) {
            Some(p) => self.slot.divide(p),
            None => self.slots_wide(idle),
        }
    }

    #[cold]
    #[inline(never)]
    fn slots_wide(&self, idle: SimDuration) -> u64 {
        let q = u128::from(idle.as_nanos()) * u128::from(self.link_rate_bps)
            / u128::from(self.slot.get());
        u64::try_from(q).unwrap_or(u64::MAX)
    }

    /// (1 − w_q)^m, as `decay_factor`.
    #[inline]
    pub fn decay(&self, m: u64) -> f64 {
        match self.decay.get(m as usize) {
            Some(&f) => f,
            None => decay_factor(self.w_q, m),
        }
    }

    /// `RedAverage::update` for an arrival credited `m` idle slots, operation for operation:
    /// avg ← avg·(1 − w_q)^m, then avg ← (1 − w_q)·avg + w_q·q, with 1 − w_q computed once
    /// (`keep`) and the first product left out when m = 0, where it is a product by 1, which
    /// changes no value (`tests::clock_update_is_red_average_update`).
    #[inline(always)]
    pub fn update(&self, avg: &mut RedAverage, q: f64, m: u64) -> f64 {
        if m != 0 {
            avg.avg *= self.decay(m);
        }
        avg.avg = self.keep * avg.avg + self.w_q * q;
        avg.avg
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
