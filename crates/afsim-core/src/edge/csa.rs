//! Giacomazzi's Congestion Signaling Algorithm (CSA): the controller that moves the α of the
//! enhanced token buckets (`enhanced_token_bucket`) from the congestion status of a RIO buffer.
//!
//! Read this first.
//! - Source: Giacomazzi, Musumeci, Verticale (papers 000/001), "Control of the Percentage of
//!   Non-conformant Packets at the Token Bucket": the RIO buffer is congested when
//!   avg_q_tot > min_th_out. "Let us assume that the arrival of the first OUT packet during a
//!   congestion period occurs at time t0. Two timers, T1 and T2 (with T1 < T2), are started and
//!   a packet counter, P, is set to 1. P is a modulo-8 counter and it returns to the 0 value at
//!   the arrival of the 8-th OUT packet." At that 8th arrival, at t: "Case 1: (t − t0) > T1 …
//!   α = max{α − Δα, min_alpha} … After α has been decreased, both T1 and T2 are restarted."
//!   "Case 2: (t − t0) < T1 … the value of α is not decreased." "In any case, when T2 expires
//!   (that is, when the α parameter has not been decreased for T2 consecutive seconds), if the
//!   RIO buffer is not congested, the value of α is automatically increased by Δα and timer T2
//!   is restarted." Table 1: T1 = 30 ms, T2 = 90 ms, min_α = 0.04, max_α = 0.4, Δα = 0.02.
//! - Footnote 1: T1 and T2 "act as the T29 and T30 timers in ISUP" (ITU-T Q.764 §2.10.2: "When
//!   the first congestion indication is received … two timers T29 and T30 are started. During
//!   T29 all received congestion indications … are ignored in order not to reduce traffic too
//!   rapidly. Reception of a congestion indication after the expiry of T29, but still during
//!   T30, will decrease the traffic load by one more step and restart T29 and T30. … If T30
//!   expires (i.e. no congestion indications having been received during the T30 period),
//!   traffic will be increased by one step and T30 will be restarted unless full traffic load
//!   has been resumed."). ISUP is used only where the paper is silent.
//!
//! Two rule sets (`Rules`):
//! - `Text` (the default) follows the paper's sentences where they speak:
//!   1. T1 and T2 start at the first congested OUT arrival when no timer runs (t0). A later
//!      congestion period does not restart them: T2 measures "α has not been decreased for T2
//!      consecutive seconds", T1 bounds decreases to one "every T1 seconds".
//!   2. P is set to 1 at the first OUT arrival of every congestion period ("a packet counter,
//!      P, is set to 1"). A congestion period is a stretch in which the buffer's avg_q_tot
//!      stays above min_th_out, as the buffer itself observes at every update of its average
//!      (IN and OUT arrivals, idle decay); the caller passes the buffer's period number.
//!   3. An 8th arrival after T1 decreases α and restarts T1 and T2; at the floor nothing is
//!      decreased, so nothing is restarted ("After α has been decreased, both … restarted").
//!   4. At T2's expiry the caller reads the buffer's average with the idle decay it would
//!      apply to an arrival at that instant. Not congested: α + Δα, T2 restarted; back at max_α
//!      no timer runs (ISUP: "unless full traffic load has been resumed"). Congested: the
//!      paper does not say; α is held and T2 restarted, so the test is made again T2 later
//!      (assumption, docs/assumptions.md).
//! - `PerPeriod` is the reading afsim used first (issue 5), kept as a named variant: T1, T2
//!   and t0 restart at the first congested OUT arrival of every congestion period, a period
//!   ends at the first OUT arrival that finds the buffer uncongested, and at the floor an 8th
//!   arrival after T1 still restarts T1 and T2 (ISUP's parenthesis: T30 expires only when no
//!   indication came during it). The caller's period number is ignored.
//! - α starts at max_α (Table 2's CSA rows at N_AF = 10 and 15 equal its α = 0.4 rows, as they
//!   can only if α sat at 0.4 while the buffer never congested). Steps land exactly on the
//!   decimal values given (0.4 − 18 × 0.02 is min_α = 0.04, not 0.04000000000000001): α is
//!   rounded to 1e-12 after each step.
//! - Driving it: for every packet the watched RIO buffer treats as OUT (of the flows this
//!   controller serves), right after `Rio::enqueue`, call
//!   `on_out_arrival(now, congested, period)` with `Rio::out_congested()` and
//!   `Rio::congestion_periods()`. Keep one timer event at `next_deadline()`, re-read after
//!   every call (a call at a deadline that has since moved is ignored as stale), and at it call
//!   `on_t2_expiry(now, congested)` with `Rio::out_congested_at(now)`. Whenever either returns
//!   `Some(α)`, call `set_alpha(now, α)` on every enhanced token bucket this controller sets.
//!
//! Not modelled here: the buffer and its average (the caller passes `congested`), how α reaches
//! the conditioners, which flows a controller serves (one per bucket or one shared: the
//! engine's `[[csa]]` `scope` option), the remote variant's signalling packets.

use crate::param::ParamError;
use crate::sim::time::{SimDuration, SimTime};

/// P counts OUT arrivals modulo 8 and the 8th arrival is the one that may decrease α.
pub const COUNTER_MODULO: u8 = 8;

/// Which reading of the paper's procedure the controller follows (see the module header).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Rules {
    /// The paper's sentences, ISUP where they are silent.
    #[default]
    Text,
    /// Timers restarted with every congestion period and at the floor (afsim's first reading).
    PerPeriod,
}

impl Rules {
    pub fn name(self) -> &'static str {
        match self {
            Rules::Text => "text",
            Rules::PerPeriod => "per_period",
        }
    }
}

/// CSA parameters (Table 1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Params {
    /// T1: at most one decrease per T1 (ISUP T29). Table 1: 30 ms.
    pub t1: SimDuration,
    /// T2: α rises one step after T2 without a decrease and with the buffer not congested
    /// (ISUP T30). Table 1: 90 ms.
    pub t2: SimDuration,
    /// Δα, the decrease/increase step. Table 1: 0.02.
    pub delta_alpha: f64,
    /// Floor of α. Table 1: 0.04.
    pub min_alpha: f64,
    /// Ceiling of α, and its starting value. Table 1: 0.4.
    pub max_alpha: f64,
    /// Which reading of the procedure (default: the text).
    pub rules: Rules,
}

impl Params {
    /// Table 1 of the paper.
    pub const TABLE_1: Params = Params {
        t1: SimDuration::from_millis(30),
        t2: SimDuration::from_millis(90),
        delta_alpha: 0.02,
        min_alpha: 0.04,
        max_alpha: 0.4,
        rules: Rules::Text,
    };

    pub fn validate(&self) -> Result<(), ParamError> {
        if self.t1 == SimDuration::ZERO {
            return Err(ParamError::new("t1", "timer T1 must be positive"));
        }
        // "two timers, T1 and T2 (with T1 < T2)"
        if self.t1 >= self.t2 {
            return Err(ParamError::new(
                "t2",
                format!("T2 ({}) must be longer than T1 ({})", self.t2, self.t1),
            ));
        }
        if !(self.delta_alpha > 0.0 && self.delta_alpha <= 1.0) {
            return Err(ParamError::new(
                "delta_alpha",
                format!("the step must lie in (0, 1], got {}", self.delta_alpha),
            ));
        }
        if !(0.0..=1.0).contains(&self.min_alpha) {
            return Err(ParamError::new(
                "min_alpha",
                format!("min_alpha must lie in [0, 1], got {}", self.min_alpha),
            ));
        }
        if !(0.0..=1.0).contains(&self.max_alpha) {
            return Err(ParamError::new(
                "max_alpha",
                format!("max_alpha must lie in [0, 1], got {}", self.max_alpha),
            ));
        }
        if self.min_alpha > self.max_alpha {
            return Err(ParamError::new(
                "min_alpha",
                format!(
                    "min_alpha ({}) is above max_alpha ({})",
                    self.min_alpha, self.max_alpha
                ),
            ));
        }
        Ok(())
    }
}

impl Default for Params {
    fn default() -> Self {
        Params::TABLE_1
    }
}

/// Where the controller is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// α = max_α and no timer runs: before the first congestion, and again once α is fully
    /// restored (ISUP: T30 is not restarted once "full traffic load has been resumed").
    Idle,
    /// A control episode: T2 runs until `t2_expiry`; T1 was last started at `t0`.
    Active {
        t0: SimTime,
        t2_expiry: SimTime,
        period: Period,
    },
}

/// The congestion period the controller last counted OUT arrivals in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Period {
    /// Not counting: no congested OUT arrival since the timers started or since the last
    /// period ended (`PerPeriod` rules: since an uncongested observation).
    Over,
    /// Counting the OUT arrivals of the buffer's congestion period `id` (`Text` rules; 0
    /// under `PerPeriod`); `p` is the modulo-8 counter P.
    Congested { id: u64, p: u8 },
}

/// Counters of one controller.
///
/// Identity: `eighth_arrivals = decreases + suppressed + at_floor`;
/// `t2_expiries = increases + held`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// OUT arrivals reported, congested or not.
    pub out_arrivals: u64,
    /// Of which the buffer was congested.
    pub congested_out_arrivals: u64,
    /// Congestion periods in which this controller counted OUT arrivals (P set to 1).
    pub periods: u64,
    /// 8th arrivals (P wrapped to 0).
    pub eighth_arrivals: u64,
    /// Case 1 with α above its floor: α stepped down, T1 and T2 restarted.
    pub decreases: u64,
    /// Case 2: 8th arrival within T1; ignored.
    pub suppressed: u64,
    /// Case 1 with α already at min_α: nothing to decrease (`Text`: nothing restarts;
    /// `PerPeriod`: T1 and T2 restart).
    pub at_floor: u64,
    /// T2 expiries (stale timer calls excluded).
    pub t2_expiries: u64,
    /// T2 expiries with the buffer not congested: α stepped up (or already at max_α).
    pub increases: u64,
    /// T2 expiries with the buffer congested: α held, T2 restarted.
    pub held: u64,
}

impl Stats {
    /// Checks the identities in the doc comment.
    pub fn check(&self) -> Result<(), String> {
        if self.eighth_arrivals != self.decreases + self.suppressed + self.at_floor {
            return Err(format!(
                "CSA counters broken: {} 8th arrivals ≠ {} decreases + {} suppressed + {} at the floor",
                self.eighth_arrivals, self.decreases, self.suppressed, self.at_floor
            ));
        }
        if self.t2_expiries != self.increases + self.held {
            return Err(format!(
                "CSA counters broken: {} T2 expiries ≠ {} increases + {} held",
                self.t2_expiries, self.increases, self.held
            ));
        }
        Ok(())
    }
}

/// α's time integral, kept as α changes: the time average and the share of time at the floor
/// without storing a trace.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct AlphaClock {
    /// ∫ α dt up to `since`, in α·ns.
    integral: f64,
    /// Time spent at min_α up to `since`.
    at_floor_ns: u64,
    since: SimTime,
}

/// One Congestion Signaling Algorithm controller, watching one RIO buffer.
#[derive(Clone, Debug)]
pub struct Csa {
    params: Params,
    alpha: f64,
    state: State,
    /// Every change of α: (instant, new α), when `keep_trace`. Empty until α first moves.
    trace: Vec<(SimTime, f64)>,
    keep_trace: bool,
    clock: AlphaClock,
    /// The lowest α so far.
    lowest: f64,
    pub stats: Stats,
}

/// Removes the binary rounding a step leaves, so α lands on the decimals the user wrote.
fn tidy(alpha: f64) -> f64 {
    (alpha * 1e12).round() / 1e12
}

impl Csa {
    /// A controller at α = max_α with no timer running, keeping a trace of α. `params` must
    /// have passed `validate`.
    pub fn new(params: Params) -> Self {
        Self::with_trace(params, true)
    }

    /// As `new`; `keep_trace = false` keeps only α's time average (long runs with many
    /// controllers).
    pub fn with_trace(params: Params, keep_trace: bool) -> Self {
        debug_assert!(params.validate().is_ok());
        Csa {
            params,
            alpha: params.max_alpha,
            state: State::Idle,
            trace: Vec::new(),
            keep_trace,
            clock: AlphaClock::default(),
            lowest: params.max_alpha,
            stats: Stats::default(),
        }
    }

    pub fn params(&self) -> &Params {
        &self.params
    }

    /// The current α.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// Every change of α, in order: (instant, new α). α was max_α before the first entry.
    /// Empty when the controller was made without a trace.
    pub fn trace(&self) -> &[(SimTime, f64)] {
        &self.trace
    }

    /// The lowest α so far.
    pub fn alpha_lowest(&self) -> f64 {
        self.lowest
    }

    /// α's time average over [0, `end`] and the share of that time spent at min_α.
    pub fn alpha_average(&self, end: SimTime) -> (f64, f64) {
        let span = end.0 as f64;
        if span <= 0.0 {
            return (
                self.alpha,
                if self.alpha <= self.params.min_alpha {
                    1.0
                } else {
                    0.0
                },
            );
        }
        let tail = end.saturating_since(self.clock.since).as_nanos();
        let integral = self.clock.integral + self.alpha * tail as f64;
        let floor = self.clock.at_floor_ns
            + if self.alpha <= self.params.min_alpha {
                tail
            } else {
                0
            };
        (integral / span, floor as f64 / span)
    }

    /// When T2 expires, if it runs: the caller calls `on_t2_expiry` then. `None` while idle
    /// (before the first congestion and once α is back at max_α).
    pub fn next_deadline(&self) -> Option<SimTime> {
        match self.state {
            State::Idle => None,
            State::Active { t2_expiry, .. } => Some(t2_expiry),
        }
    }

    /// Whether the controller is counting the OUT arrivals of a congestion period.
    pub fn in_congestion_period(&self) -> bool {
        matches!(
            self.state,
            State::Active {
                period: Period::Congested { .. },
                ..
            }
        )
    }

    /// α ← α + `delta` (negative to decrease), kept within [min_α, max_α] (the paper's max{…}
    /// and min{…}); records and returns the new α if it changed.
    fn step(&mut self, now: SimTime, delta: f64) -> Option<f64> {
        let (lo, hi) = (self.params.min_alpha, self.params.max_alpha);
        let mut alpha = tidy(self.alpha + delta).clamp(lo, hi);
        // a bound with more than 12 decimals (1/3) is still reached exactly
        for bound in [lo, hi] {
            if (alpha - bound).abs() < 1e-9 {
                alpha = bound;
            }
        }
        if alpha == self.alpha {
            return None;
        }
        let held = now.saturating_since(self.clock.since).as_nanos();
        self.clock.integral += self.alpha * held as f64;
        if self.alpha <= lo {
            self.clock.at_floor_ns += held;
        }
        self.clock.since = now;
        self.alpha = alpha;
        self.lowest = self.lowest.min(alpha);
        if self.keep_trace {
            self.trace.push((now, alpha));
        }
        Some(alpha)
    }

    fn at_floor(&self) -> bool {
        self.alpha <= self.params.min_alpha
    }

    /// An OUT packet arrives at the watched buffer at `now`; `congested` is avg_q_tot >
    /// min_th_out there, as the buffer computed it for this arrival, and `period` the number
    /// of the buffer's current congestion period (`Rio::congestion_periods`). Returns the new
    /// α if it changed.
    pub fn on_out_arrival(&mut self, now: SimTime, congested: bool, period: u64) -> Option<f64> {
        self.stats.out_arrivals += 1;
        let rules = self.params.rules;
        if !congested {
            if rules == Rules::PerPeriod {
                // per-period reading: an arrival that finds no congestion ends the period
                if let State::Active { period, .. } = &mut self.state {
                    *period = Period::Over;
                }
            }
            // Text: an uncongested arrival is outside any congestion period; P counts OUT
            // arrivals "during a congestion period" only, and the timers run on.
            return None;
        }
        self.stats.congested_out_arrivals += 1;
        let id = if rules == Rules::Text { period } else { 0 };
        match self.state {
            State::Idle => {
                // "the arrival of the first OUT packet during a congestion period occurs at
                // time t0. Two timers, T1 and T2 … are started and a packet counter, P, is set
                // to 1"
                self.stats.periods += 1;
                self.state = State::Active {
                    t0: now,
                    t2_expiry: now + self.params.t2,
                    period: Period::Congested { id, p: 1 },
                };
                None
            }
            State::Active {
                t0,
                t2_expiry,
                period: Period::Over,
            } => {
                self.stats.periods += 1;
                self.state = match rules {
                    // Text: a new congestion period sets P to 1; T1 and T2 run on (T2 is
                    // "α has not been decreased for T2 consecutive seconds")
                    Rules::Text => State::Active {
                        t0,
                        t2_expiry,
                        period: Period::Congested { id, p: 1 },
                    },
                    // per-period reading: every congestion period restarts t0, T1 and T2
                    Rules::PerPeriod => State::Active {
                        t0: now,
                        t2_expiry: now + self.params.t2,
                        period: Period::Congested { id, p: 1 },
                    },
                };
                None
            }
            State::Active {
                t0,
                t2_expiry,
                period: Period::Congested { id: last, p },
            } => {
                if id != last {
                    // Text: the buffer's average left congestion and came back since the last
                    // counted arrival: this is the first OUT arrival of a new period, P = 1
                    self.stats.periods += 1;
                    self.state = State::Active {
                        t0,
                        t2_expiry,
                        period: Period::Congested { id, p: 1 },
                    };
                    return None;
                }
                // "P is a modulo-8 counter and it returns to the 0 value at the arrival of the
                // 8-th OUT packet"
                let p = (p + 1) % COUNTER_MODULO;
                if p != 0 {
                    self.state = State::Active {
                        t0,
                        t2_expiry,
                        period: Period::Congested { id, p },
                    };
                    return None;
                }
                self.stats.eighth_arrivals += 1;
                if now.saturating_since(t0) <= self.params.t1 {
                    // Case 2: "the value of α is not decreased to prevent an overly rapid
                    // reduction of α". ISUP: indications during T29 are ignored; the timers
                    // run on and P keeps counting.
                    self.stats.suppressed += 1;
                    self.state = State::Active {
                        t0,
                        t2_expiry,
                        period: Period::Congested { id, p },
                    };
                    return None;
                }
                if self.at_floor() {
                    self.stats.at_floor += 1;
                    self.state = match rules {
                        // Text: "After α has been decreased, both T1 and T2 are restarted": α
                        // was not decreased, so nothing restarts
                        Rules::Text => State::Active {
                            t0,
                            t2_expiry,
                            period: Period::Congested { id, p },
                        },
                        // per-period reading (ISUP's parenthesis on T30): the indication
                        // restarts both timers even at the last step
                        Rules::PerPeriod => State::Active {
                            t0: now,
                            t2_expiry: now + self.params.t2,
                            period: Period::Congested { id, p },
                        },
                    };
                    return None;
                }
                // Case 1: "(t − t0) > T1 … α = max{α − Δα, min_alpha} … After α has been
                // decreased, both T1 and T2 are restarted."
                self.stats.decreases += 1;
                self.state = State::Active {
                    t0: now,
                    t2_expiry: now + self.params.t2,
                    period: Period::Congested { id, p },
                };
                self.step(now, -self.params.delta_alpha)
            }
        }
    }

    /// T2's timer fires at `now`; `congested` is the buffer's status then (its average with
    /// the idle decay an arrival at `now` would apply: `Rio::out_congested_at`). Returns the
    /// new α if it changed. A call before the current deadline, or while idle, is a stale timer
    /// (T2 was restarted since it was scheduled) and does nothing.
    pub fn on_t2_expiry(&mut self, now: SimTime, congested: bool) -> Option<f64> {
        let State::Active {
            t0,
            t2_expiry,
            period,
        } = self.state
        else {
            return None;
        };
        if now < t2_expiry {
            return None;
        }
        self.stats.t2_expiries += 1;
        if congested {
            // "if the RIO buffer is not congested" fails: no increase. The paper does not say
            // what T2 does then; it restarts, and the test is made again T2 later.
            self.stats.held += 1;
            self.state = State::Active {
                t0,
                t2_expiry: now + self.params.t2,
                period,
            };
            return None;
        }
        // "α is automatically increased by Δα and timer T2 is restarted"
        self.stats.increases += 1;
        let changed = self.step(now, self.params.delta_alpha);
        let period = match self.params.rules {
            // Text: the period the controller counts in is the buffer's; an uncongested
            // observation does not touch P
            Rules::Text => period,
            // per-period reading: the buffer seen uncongested ends the period
            Rules::PerPeriod => Period::Over,
        };
        self.state = if self.alpha >= self.params.max_alpha {
            // ISUP: "T30 will be restarted unless full traffic load has been resumed"
            State::Idle
        } else {
            State::Active {
                t0,
                t2_expiry: now + self.params.t2,
                period,
            }
        };
        changed
    }
}

#[cfg(test)]
mod tests;
