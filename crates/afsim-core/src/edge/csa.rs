//! Giacomazzi's Congestion Signaling Algorithm (CSA): the controller that moves the α of the
//! enhanced token buckets (`enhanced_token_bucket`) from the congestion status of a RIO buffer.
//!
//! Read this first.
//! - Source: Giacomazzi, Musumeci, Verticale (papers 000/001), §IV: the RIO buffer is congested
//!   when avg_q_tot > min_th_out. At the first OUT arrival of a congestion period (t0) "two
//!   timers, T1 and T2 (with T1 < T2) are started and a packet counter, P, is set to 1" (the
//!   OCR's "12" is "1" and footnote 2); P counts OUT arrivals modulo 8. At the 8th arrival, at
//!   t: if t − t0 > T1, α ← max{α − Δα, min_α} and T1, T2 restart; otherwise α is not
//!   decreased. "When T2 expires (…α has not been decreased for T2 consecutive seconds), if the
//!   RIO buffer is not congested", α ← min{α + Δα, max_α} and T2 restarts. Table I: T1 = 30 ms,
//!   T2 = 90 ms, min_α = 0.04, max_α = 0.4, Δα = 0.02.
//! - Footnote 2: T1 and T2 "act as the T29 and T30 timers in ISUP". ITU-T Q.764 §2.10.2 (ISUP
//!   signalling congestion control): the first congestion indication starts T29 and T30;
//!   "during T29 all received congestion indications … are ignored in order not to reduce
//!   traffic too rapidly";
//!   an indication after T29 but during T30 reduces one more step and restarts both; "if T30
//!   expires (i.e. no congestion indications having been received during the T30 period),
//!   traffic will be increased by one step and T30 will be restarted unless full traffic load
//!   has been resumed". Every point the paper leaves open is settled by that reading; each is
//!   listed in docs/assumptions.md ("Congestion Signaling Algorithm (Giacomazzi et al.)") and
//!   marked `ISUP:` where the code applies it.
//! - Variant: a pure state machine. The caller tells it of each OUT arrival at the buffer it
//!   watches and whether the buffer is congested then, and of T2's expiry (it keeps one timer at
//!   `next_deadline`); T1 needs no event, it is only compared with at the 8th arrival. α starts
//!   at max_α: Table II's CSA rows at N_AF = 10 and 15 (1381.32 kb/s, RoS 98.70 %, Pinb 3.7e-4)
//!   equal the fixed α = 0.4 rows, which they could only do if α sat at 0.4 from the start when
//!   the buffer never congests. Steps land exactly on the decimal values given (0.4 − 18 × 0.02
//!   is min_α = 0.04, not 0.04000000000000001): α is rounded to 1e-12 after each step.
//! - Driving it: for every packet the watched RIO buffer treats as OUT, right after
//!   `Rio::enqueue` (accepted or not), call `on_out_arrival(now, rio.avg_out() > min_th_out)`.
//!   Keep one timer event at `next_deadline()`, re-read after every call (a call at a deadline
//!   that has since moved is ignored as stale), and at it call `on_t2_expiry(now, congested)`.
//!   Whenever either returns `Some(α)`, call `set_alpha(now, α)` on every enhanced token bucket
//!   this CSA controls and re-ask their `next_service` (a waiting head may leave earlier).
//!
//! Not modelled: the buffer and its average (the caller passes `congested`), how α reaches the
//! conditioners (the caller calls `EnhancedTokenBucket::set_alpha`), the remote variant's
//! signalling packets (an internal router's `Csa` whose α changes are carried to border routers
//! by the engine).

use crate::edge::ParamError;
use crate::sim::time::{SimDuration, SimTime};

/// P counts OUT arrivals modulo 8 and the 8th arrival is the one that may decrease α.
pub const COUNTER_MODULO: u8 = 8;

/// CSA parameters (Table I).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Params {
    /// T1: at most one decrease per T1 (ISUP T29). Table I: 30 ms.
    pub t1: SimDuration,
    /// T2: α rises one step after T2 without a decrease and with the buffer not congested
    /// (ISUP T30). Table I: 90 ms.
    pub t2: SimDuration,
    /// Δα, the decrease/increase step. Table I: 0.02.
    pub delta_alpha: f64,
    /// Floor of α. Table I: 0.04.
    pub min_alpha: f64,
    /// Ceiling of α, and its starting value. Table I: 0.4.
    pub max_alpha: f64,
}

impl Params {
    /// Table I of the paper.
    pub const TABLE_1: Params = Params {
        t1: SimDuration::from_millis(30),
        t2: SimDuration::from_millis(90),
        delta_alpha: 0.02,
        min_alpha: 0.04,
        max_alpha: 0.4,
    };

    pub fn validate(&self) -> Result<(), ParamError> {
        if self.t1 == SimDuration::ZERO {
            return Err(ParamError::new("t1", "timer T1 must be positive"));
        }
        // §IV: "two timers, T1 and T2 (with T1 < T2)"
        if self.t1 >= self.t2 {
            return Err(ParamError::new("t2", format!("T2 ({}) must be longer than T1 ({})", self.t2, self.t1)));
        }
        if !(self.delta_alpha > 0.0 && self.delta_alpha <= 1.0) {
            return Err(ParamError::new(
                "delta_alpha",
                format!("the step must lie in (0, 1], got {}", self.delta_alpha),
            ));
        }
        if !(0.0..=1.0).contains(&self.min_alpha) {
            return Err(ParamError::new("min_alpha", format!("min_alpha must lie in [0, 1], got {}", self.min_alpha)));
        }
        if !(0.0..=1.0).contains(&self.max_alpha) {
            return Err(ParamError::new("max_alpha", format!("max_alpha must lie in [0, 1], got {}", self.max_alpha)));
        }
        if self.min_alpha > self.max_alpha {
            return Err(ParamError::new(
                "min_alpha",
                format!("min_alpha ({}) is above max_alpha ({})", self.min_alpha, self.max_alpha),
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
    Active { t0: SimTime, t2_expiry: SimTime, period: Period },
}

/// Whether a congestion period is in progress, as last observed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Period {
    /// The last observation found the buffer not congested.
    Over,
    /// In a congestion period; `p` is the modulo-8 counter of its OUT arrivals.
    Congested { p: u8 },
}

/// Counters of one controller.
///
/// Identity: `eighth_arrivals = decreases + suppressed`; `t2_expiries = increases + held`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// OUT arrivals reported, congested or not.
    pub out_arrivals: u64,
    /// Of which the buffer was congested.
    pub congested_out_arrivals: u64,
    /// Congestion periods started (first OUT arrival of a period).
    pub periods: u64,
    /// 8th arrivals (P wrapped to 0).
    pub eighth_arrivals: u64,
    /// Case 1: 8th arrival after T1; α stepped down (or already at min_α) and T1, T2 restarted.
    pub decreases: u64,
    /// Case 2: 8th arrival within T1; ignored.
    pub suppressed: u64,
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
        if self.eighth_arrivals != self.decreases + self.suppressed {
            return Err(format!(
                "CSA counters broken: {} 8th arrivals ≠ {} decreases + {} suppressed",
                self.eighth_arrivals, self.decreases, self.suppressed
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

/// One Congestion Signaling Algorithm controller, watching one RIO buffer.
#[derive(Clone, Debug)]
pub struct Csa {
    params: Params,
    alpha: f64,
    state: State,
    /// Every change of α: (instant, new α). Empty until α first moves from max_α.
    trace: Vec<(SimTime, f64)>,
    pub stats: Stats,
}

/// Removes the binary rounding a step leaves, so α lands on the decimals the user wrote.
fn tidy(alpha: f64) -> f64 {
    (alpha * 1e12).round() / 1e12
}

impl Csa {
    /// A controller at α = max_α with no timer running. `params` must have passed `validate`.
    pub fn new(params: Params) -> Self {
        debug_assert!(params.validate().is_ok());
        Csa { params, alpha: params.max_alpha, state: State::Idle, trace: Vec::new(), stats: Stats::default() }
    }

    pub fn params(&self) -> &Params {
        &self.params
    }

    /// The current α.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// Every change of α, in order: (instant, new α). α was max_α before the first entry.
    pub fn trace(&self) -> &[(SimTime, f64)] {
        &self.trace
    }

    /// When T2 expires, if it runs: the caller calls `on_t2_expiry` then. `None` while idle
    /// (before the first congestion and once α is back at max_α).
    pub fn next_deadline(&self) -> Option<SimTime> {
        match self.state {
            State::Idle => None,
            State::Active { t2_expiry, .. } => Some(t2_expiry),
        }
    }

    /// Whether a congestion period is in progress, as last observed.
    pub fn in_congestion_period(&self) -> bool {
        matches!(self.state, State::Active { period: Period::Congested { .. }, .. })
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
        self.alpha = alpha;
        self.trace.push((now, alpha));
        Some(alpha)
    }

    /// An OUT packet arrives at the watched buffer at `now`; `congested` is avg_q_tot >
    /// min_th_out there. Returns the new α if it changed.
    pub fn on_out_arrival(&mut self, now: SimTime, congested: bool) -> Option<f64> {
        self.stats.out_arrivals += 1;
        if !congested {
            // ISUP: an arrival that finds no congestion is no congestion indication; it only
            // tells that the congestion period is over. Timers run on.
            if let State::Active { period, .. } = &mut self.state {
                *period = Period::Over;
            }
            return None;
        }
        self.stats.congested_out_arrivals += 1;
        match self.state {
            State::Idle | State::Active { period: Period::Over, .. } => {
                // "the arrival of the first OUT packet during a congestion period occurs at
                // time t0. Two timers, T1 and T2 … are started and a packet counter, P, is set
                // to 1"
                self.stats.periods += 1;
                self.state =
                    State::Active { t0: now, t2_expiry: now + self.params.t2, period: Period::Congested { p: 1 } };
                None
            }
            State::Active { t0, t2_expiry, period: Period::Congested { p } } => {
                // "P is a modulo-8 counter and it returns to the 0 value at the arrival of the
                // 8-th OUT packet"
                let p = (p + 1) % COUNTER_MODULO;
                if p != 0 {
                    self.state = State::Active { t0, t2_expiry, period: Period::Congested { p } };
                    return None;
                }
                self.stats.eighth_arrivals += 1;
                if now.saturating_since(t0) > self.params.t1 {
                    // Case 1: "(t − t0) > T1 … α = max{α − Δα, min_α} … After α has been
                    // decreased, both T1 and T2 are restarted." ISUP: at the last step an
                    // indication still restarts T29 and T30.
                    self.stats.decreases += 1;
                    self.state =
                        State::Active { t0: now, t2_expiry: now + self.params.t2, period: Period::Congested { p } };
                    self.step(now, -self.params.delta_alpha)
                } else {
                    // Case 2: "the value of α is not decreased to prevent an overly rapid
                    // reduction". ISUP: indications during T29 are ignored; the timers run on
                    // and P keeps counting.
                    self.stats.suppressed += 1;
                    self.state = State::Active { t0, t2_expiry, period: Period::Congested { p } };
                    None
                }
            }
        }
    }

    /// T2's timer fires at `now`; `congested` is the buffer's status then. Returns the new α if
    /// it changed. A call before the current deadline, or while idle, is a stale timer (T2 was
    /// restarted since it was scheduled) and does nothing.
    pub fn on_t2_expiry(&mut self, now: SimTime, congested: bool) -> Option<f64> {
        let State::Active { t0, t2_expiry, period } = self.state else {
            return None;
        };
        if now < t2_expiry {
            return None;
        }
        self.stats.t2_expiries += 1;
        if congested {
            // "if the RIO buffer is not congested" fails: no increase. ISUP: T30 measures an
            // interval free of congestion; congestion at its end starts a fresh interval.
            self.stats.held += 1;
            self.state = State::Active { t0, t2_expiry: now + self.params.t2, period };
            return None;
        }
        // "α is automatically increased by Δα and timer T2 is restarted"; the buffer is seen
        // uncongested, so any congestion period is over.
        self.stats.increases += 1;
        let changed = self.step(now, self.params.delta_alpha);
        self.state = if self.alpha >= self.params.max_alpha {
            // ISUP: "T30 will be restarted unless full traffic load has been resumed"
            State::Idle
        } else {
            State::Active { t0, t2_expiry: now + self.params.t2, period: Period::Over }
        };
        changed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> SimTime {
        SimTime(x * 1_000_000)
    }

    fn us(x: u64) -> SimTime {
        SimTime(x * 1_000)
    }

    fn csa() -> Csa {
        Csa::new(Params::TABLE_1)
    }

    /// Congested OUT arrivals at each of `times`; returns the α changes they caused.
    fn congested_at(c: &mut Csa, times: impl IntoIterator<Item = SimTime>) -> Vec<(SimTime, f64)> {
        times.into_iter().filter_map(|t| c.on_out_arrival(t, true).map(|a| (t, a))).collect()
    }

    /// Eight congested arrivals, the first at `start` and the 8th at `eighth`.
    fn eight(start: SimTime, eighth: SimTime) -> Vec<SimTime> {
        let mut v = vec![start];
        v.extend((1..7).map(|i| SimTime(start.0 + i)));
        v.push(eighth);
        v
    }

    /// A controller that has just decreased α once, at 31 ms (T2 due at 121 ms).
    fn after_one_decrease() -> Csa {
        let mut c = csa();
        assert_eq!(congested_at(&mut c, eight(ms(0), ms(31))), vec![(ms(31), 0.38)]);
        c
    }

    #[test]
    fn starts_at_max_alpha_with_no_timer() {
        let c = csa();
        assert_eq!(c.alpha(), 0.4);
        assert_eq!(c.next_deadline(), None, "T2 does not run before the first congestion");
        assert!(c.trace().is_empty());
    }

    #[test]
    fn no_change_without_congestion() {
        let mut c = csa();
        for i in 0..10_000 {
            assert_eq!(c.on_out_arrival(us(i * 100), false), None);
        }
        assert_eq!(c.on_t2_expiry(ms(5_000), false), None, "no timer runs");
        assert_eq!(c.alpha(), 0.4);
        assert_eq!(c.next_deadline(), None);
        assert!(c.trace().is_empty());
        assert_eq!(c.stats.periods, 0);
    }

    #[test]
    fn first_congested_out_arrival_starts_t1_and_t2_without_a_decrease() {
        let mut c = csa();
        assert_eq!(c.on_out_arrival(ms(100), true), None);
        assert_eq!(c.next_deadline(), Some(ms(190)), "T2 = 90 ms from t0");
        assert!(c.in_congestion_period());
        assert_eq!(c.stats.periods, 1);
        assert_eq!(c.alpha(), 0.4);
    }

    #[test]
    fn decrease_at_the_eighth_arrival_after_t1() {
        let mut c = csa();
        // arrivals 1..7 at t0 = 0 (+ns), the 8th at 31 ms: 31 ms − 0 > T1
        let changes = congested_at(&mut c, eight(ms(0), ms(31)));
        assert_eq!(changes, vec![(ms(31), 0.38)]);
        assert_eq!(c.next_deadline(), Some(ms(121)), "T2 restarted at the decrease");
        assert_eq!(c.trace(), &[(ms(31), 0.38)]);
        assert_eq!(c.stats.decreases, 1);
    }

    #[test]
    fn no_decrease_at_an_eighth_arrival_within_t1() {
        let mut c = csa();
        assert!(congested_at(&mut c, eight(ms(0), ms(29))).is_empty());
        assert_eq!(c.stats.suppressed, 1);
        assert_eq!(c.next_deadline(), Some(ms(90)), "a non-decrease restarts nothing");
    }

    #[test]
    fn an_eighth_arrival_exactly_t1_after_t0_does_not_decrease() {
        // Case 1 needs t − t0 > T1: T1 has not expired at exactly t0 + T1.
        let mut c = csa();
        assert!(congested_at(&mut c, eight(ms(0), ms(30))).is_empty());
        let mut c = csa();
        assert_eq!(congested_at(&mut c, eight(ms(0), SimTime(30_000_001))).len(), 1);
    }

    #[test]
    fn the_counter_keeps_counting_after_a_non_decrease() {
        // 8th at 20 ms (ignored, P = 0), then the 16th at 40 ms: 40 − t0 > T1, decrease.
        let mut c = csa();
        assert!(congested_at(&mut c, eight(ms(0), ms(20))).is_empty());
        let next7: Vec<_> = (21..=27).map(ms).collect();
        assert!(congested_at(&mut c, next7).is_empty(), "arrivals 9..15: P = 1..7");
        assert_eq!(c.on_out_arrival(ms(40), true), Some(0.38), "16th arrival, P wraps again");
        assert_eq!(c.stats.eighth_arrivals, 2);
    }

    #[test]
    fn increase_after_t2_without_congestion() {
        let mut c = after_one_decrease();
        assert_eq!(c.on_t2_expiry(ms(121), false), Some(0.4));
        assert_eq!(c.next_deadline(), None, "back at max_α: T2 is not restarted");
        assert_eq!(c.trace(), &[(ms(31), 0.38), (ms(121), 0.4)]);
    }

    #[test]
    fn t2_expiry_while_congested_holds_alpha_and_restarts_t2() {
        let mut c = after_one_decrease();
        assert_eq!(c.on_t2_expiry(ms(121), true), None);
        assert_eq!(c.alpha(), 0.38);
        assert_eq!(c.next_deadline(), Some(ms(211)));
        assert_eq!(c.on_t2_expiry(ms(211), false), Some(0.4));
        assert_eq!(c.stats.held, 1);
        assert_eq!(c.stats.increases, 1);
    }

    #[test]
    fn a_stale_t2_call_does_nothing() {
        let mut c = after_one_decrease();
        // the timer first scheduled for 90 ms was moved to 121 ms by the decrease
        assert_eq!(c.on_t2_expiry(ms(90), false), None);
        assert_eq!(c.next_deadline(), Some(ms(121)));
        assert_eq!(c.stats.t2_expiries, 0);
        assert_eq!(c.alpha(), 0.38);
    }

    #[test]
    fn at_most_one_decrease_per_t1_under_sustained_congestion() {
        // A congested OUT arrival every millisecond from 0: 8th arrivals at 7, 15, 23, 31 ms (the
        // first past T1, decrease), then 39 … 63 (63 − 31 > 30: decrease) and so on: one every
        // 32 ms, 18 steps from 0.4 down to 0.04 and no further.
        let mut c = csa();
        let changes = congested_at(&mut c, (0..2_000).map(ms));
        let expected: Vec<_> = (0..18).map(|k| (ms(31 + 32 * k), tidy(0.4 - 0.02 * (k + 1) as f64))).collect();
        assert_eq!(changes, expected);
        assert_eq!(changes.last().unwrap().1, 0.04, "lands exactly on min_α");
        assert!(changes.windows(2).all(|w| w[1].0 - w[0].0 > Params::TABLE_1.t1));
        assert_eq!(c.alpha(), 0.04);
        // at the floor, later 8th arrivals past T1 still restart T1 and T2 (ISUP: the last step)
        assert!(c.stats.decreases > 18);
        assert_eq!(c.next_deadline(), Some(ms(1_983) + Params::TABLE_1.t2));
        assert!(c.stats.check().is_ok());
    }

    #[test]
    fn recovery_is_one_step_per_t2_after_congestion_ends() {
        let mut c = csa();
        congested_at(&mut c, (0..100).map(ms)); // decreases at 31 and 63 ms, then 95 ms
        assert_eq!(c.alpha(), 0.34);
        assert_eq!(c.on_out_arrival(ms(100), false), None, "the congestion period ends");
        assert!(!c.in_congestion_period());
        let mut t = c.next_deadline().unwrap();
        assert_eq!(t, ms(95 + 90));
        for expect in [0.36, 0.38, 0.4] {
            assert_eq!(c.on_t2_expiry(t, false), Some(expect));
            if expect < 0.4 {
                let next = c.next_deadline().unwrap();
                assert_eq!(next - t, Params::TABLE_1.t2);
                t = next;
            }
        }
        assert_eq!(c.next_deadline(), None);
        let ups: Vec<_> = c.trace().iter().skip(3).copied().collect();
        assert_eq!(ups, vec![(ms(185), 0.36), (ms(275), 0.38), (ms(365), 0.4)]);
    }

    #[test]
    fn an_uncongested_arrival_ends_the_period_and_the_next_congested_one_starts_afresh() {
        let mut c = csa();
        // 7 congested arrivals (P = 7), then one that finds no congestion
        assert!(congested_at(&mut c, (0..7).map(ms)).is_empty());
        c.on_out_arrival(ms(7), false);
        // had the period continued, the arrival at 40 ms would be the 8th, past T1
        assert_eq!(c.on_out_arrival(ms(40), true), None);
        assert_eq!(c.next_deadline(), Some(ms(130)), "T1 and T2 restarted at the new period");
        assert_eq!(c.stats.periods, 2);
        // its own 8th arrival at 47 ms is within T1 of 40 ms; the 16th at 71 ms is past it
        assert!(congested_at(&mut c, (41..=47).map(ms)).is_empty());
        assert!(congested_at(&mut c, (48..=54).map(ms)).is_empty());
        assert_eq!(c.on_out_arrival(ms(71), true), Some(0.38));
    }

    #[test]
    fn an_increase_ends_the_period_too() {
        let mut c = csa();
        congested_at(&mut c, (0..100).map(ms)); // decreases at 31, 63, 95 ms; P = 4 at 99 ms
        assert_eq!(c.on_t2_expiry(ms(185), false), Some(0.36));
        assert!(!c.in_congestion_period(), "the buffer was seen uncongested");
        // had the period continued, P would reach 0 at 193 ms, past T1 since 95 ms: a decrease.
        // A new period starts at 190 ms instead, and its 8th arrival (197 ms) is within T1.
        assert!(congested_at(&mut c, (190..=197).map(ms)).is_empty());
        assert_eq!(c.next_deadline(), Some(ms(280)));
        assert_eq!(c.stats.periods, 2);
    }

    #[test]
    fn alpha_never_leaves_its_bounds() {
        // A deterministic jumble of arrivals, congestion flips and timer expiries.
        let p = Params { delta_alpha: 0.07, ..Params::TABLE_1 }; // a step that does not divide the range
        let mut c = Csa::new(p);
        let mut x: u64 = 12345;
        let mut t = SimTime::ZERO;
        let mut busy = false;
        for _ in 0..200_000 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            t += SimDuration::from_micros(1 + (x >> 33) % 3_000);
            // congested stretches of a few hundred arrivals, with noise either way
            if (x >> 50).is_multiple_of(500) {
                busy = !busy;
            }
            let congested = if busy { !(x >> 20).is_multiple_of(20) } else { (x >> 20).is_multiple_of(50) };
            if let Some(d) = c.next_deadline().filter(|&d| d <= t) {
                c.on_t2_expiry(d, congested);
            }
            c.on_out_arrival(t, congested);
            assert!((p.min_alpha..=p.max_alpha).contains(&c.alpha()), "α = {}", c.alpha());
        }
        assert!(c.trace().iter().any(|&(_, a)| a == p.min_alpha), "reached the floor");
        assert!(c.trace().iter().filter(|&&(_, a)| a == p.max_alpha).count() > 1, "came back to the ceiling");
        assert!(c.stats.check().is_ok());
    }

    #[test]
    fn increases_never_pass_max_alpha_with_an_uneven_step() {
        // 0.4 − 0.07 = 0.33, back up: min(0.33 + 0.07, 0.4) = 0.4 exactly.
        let mut c = Csa::new(Params { delta_alpha: 0.07, ..Params::TABLE_1 });
        assert_eq!(congested_at(&mut c, eight(ms(0), ms(31))), vec![(ms(31), 0.33)]);
        assert_eq!(c.on_t2_expiry(ms(121), false), Some(0.4));
    }

    #[test]
    fn bounds_that_are_not_short_decimals_are_reached_exactly() {
        let third = 1.0 / 3.0;
        let mut c = Csa::new(Params { max_alpha: third, ..Params::TABLE_1 });
        assert_eq!(congested_at(&mut c, eight(ms(0), ms(31))).len(), 1);
        assert_eq!(c.on_t2_expiry(ms(121), false), Some(third));
        assert_eq!(c.next_deadline(), None, "back at max_α, idle");
    }

    #[test]
    fn the_floor_is_held_with_an_uneven_step() {
        // Δα = 0.15 from 0.4: 0.25, 0.1, then max{−0.05, 0.04} = 0.04.
        let mut c = Csa::new(Params { delta_alpha: 0.15, ..Params::TABLE_1 });
        let changes: Vec<_> = congested_at(&mut c, (0..200).map(ms)).into_iter().map(|(_, a)| a).collect();
        assert_eq!(changes, vec![0.25, 0.1, 0.04]);
    }

    #[test]
    fn same_script_same_trace() {
        let run = || {
            let mut c = csa();
            for i in 0..5_000u64 {
                let t = us(i * 700);
                if let Some(d) = c.next_deadline().filter(|&d| d <= t) {
                    c.on_t2_expiry(d, i % 1_000 < 300);
                }
                c.on_out_arrival(t, i % 1_000 < 600);
            }
            (c.trace().to_vec(), c.stats.clone())
        };
        let (a, sa) = run();
        let (b, sb) = run();
        assert!(!a.is_empty());
        assert_eq!(a, b);
        assert_eq!(sa, sb);
    }

    #[test]
    fn validate_names_the_bad_field() {
        let ok = Params::TABLE_1;
        assert!(ok.validate().is_ok());
        assert_eq!(Params::default(), ok);
        let t = |ms| SimDuration::from_millis(ms);
        assert_eq!(Params { t1: t(0), ..ok }.validate().unwrap_err().field, "t1");
        assert_eq!(Params { t1: t(90), ..ok }.validate().unwrap_err().field, "t2", "T1 < T2");
        assert_eq!(Params { delta_alpha: 0.0, ..ok }.validate().unwrap_err().field, "delta_alpha");
        assert_eq!(Params { delta_alpha: f64::NAN, ..ok }.validate().unwrap_err().field, "delta_alpha");
        assert_eq!(Params { min_alpha: -0.1, ..ok }.validate().unwrap_err().field, "min_alpha");
        assert_eq!(Params { max_alpha: 1.1, ..ok }.validate().unwrap_err().field, "max_alpha");
        assert_eq!(Params { min_alpha: 0.5, ..ok }.validate().unwrap_err().field, "min_alpha");
        assert!(Params { min_alpha: 0.4, ..ok }.validate().is_ok(), "a fixed α is allowed");
    }

    #[test]
    fn appendix_a_timer_settings_are_valid() {
        for (t1, t2) in [(15, 45), (15, 60), (30, 90), (30, 120)] {
            let p = Params { t1: SimDuration::from_millis(t1), t2: SimDuration::from_millis(t2), ..Params::TABLE_1 };
            assert!(p.validate().is_ok());
        }
    }
}
