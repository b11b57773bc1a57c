//! Giacomazzi's enhanced token bucket: a conformant bucket, a non-conformant bucket filled at a
//! fraction α of the contracted rate, and an input buffer whose head waits when both are empty.
//!
//! Read this first.
//! - Source: Giacomazzi, Musumeci, Verticale, "Transport of TCP/IP Traffic over Assured
//!   Forwarding IP-Differentiated Services" (papers 000/001), §IV and Fig. 5: "The bucket of
//!   conformant tokens has depth equal to b1 and is filled at rate r, while the bucket of
//!   non-conformant tokens has depth b2 and is filled at rate αr", and the three-step service of
//!   each packet of the input buffer (conformant token → served conformant; else non-conformant
//!   token → served "with Per Hop Behavior downgraded to Best Effort"; else "left in the input
//!   buffer"). Tokens are per packet of constant length L, filled at r/(8L) tokens/s (§III.A.1).
//! - Variant: exact integer arithmetic on `token_bucket::Bucket` (nanobits). A token is L bytes
//!   (`Depth::Packets` semantics: every packet costs one token whatever its size). The rate of
//!   the second bucket is α·r rounded to the nearest bit/s; `set_alpha` credits the tokens
//!   accrued at the old rate before switching (what the Congestion Signaling Algorithm, `csa`,
//!   drives). Both buckets start full, as the single-rate bucket does (RFC 2697 §3).
//! - This is a *meter for a holding FIFO*: it never holds packets itself. The caller keeps the
//!   input buffer of `buffer_packets` (B) packets, asks `decide`/`serve` for its head, and when
//!   the answer is `Wait` schedules a wake-up at `next_service`. Green is conformant (IN);
//!   yellow is the downgraded packet, which the conditioner's yellow action turns into best
//!   effort (`PerColourAction::DowngradeToBestEffort`). Red is never produced.
//! - Driving it from a conditioner's FIFO: an arrival joins the FIFO if it is not empty or
//!   `decide` says `Wait` (dropped if B packets are already held); otherwise `serve` it at once.
//!   While the FIFO is not empty, keep a wake-up at `next_service(now)`; at it, `serve` the head
//!   and repeat while the answer is not `Wait`. After `set_alpha`, re-ask `next_service`.
//!
//! Not modelled: the input buffer itself and its drops (the caller's FIFO), per-packet costs in
//! bytes (the paper's packets have constant length), colour-aware operation.

use crate::edge::token_bucket::{self, Bucket, Depth};
use crate::edge::MarkerStats;
use crate::net::dscp::Colour;
use crate::param::ParamError;
use crate::sim::time::SimTime;

/// Parameters of one enhanced token bucket (Table I of the paper for the AF PHBs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Params {
    /// Contracted average rate r, bits per second (Table I: 1600, 1000, 400 kb/s).
    pub rate_bps: u64,
    /// Depth of the conformant (in-profile) bucket b1, tokens (Table I: 10).
    pub b1_tokens: u64,
    /// Depth of the non-conformant (out-of-profile) bucket b2, tokens (Table I: 1; Appendix B
    /// tries 1..5).
    pub b2_tokens: u64,
    /// Nominal packet length L a token stands for, bytes (§V.A: 576).
    pub token_bytes: u32,
    /// Initial fraction α of r that fills the non-conformant bucket, in [0, 1] (Fig. 7/8 use
    /// fixed 0, 0.2, 0.4; with the CSA it starts at max_α).
    pub alpha: f64,
    /// Capacity B of the input buffer, packets (Table I: 100; Appendix C tries 80..150). Held
    /// by the caller; kept here so one spec describes Fig. 5 whole.
    pub buffer_packets: u32,
    /// How tokens arrive: continuously, or whole on a grid from time zero (see `TokenClock`).
    pub clock: TokenClock,
}

/// How an enhanced token bucket's tokens arrive. The paper fills the buckets "at rate r" and
/// counts r/(8L) tokens per second (§III.A.1) without saying whether a token is credited bit by
/// bit or arrives whole; the two readings differ in how the buckets of many sources line up.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TokenClock {
    /// Tokens accrue continuously (exact nanobits, `token_bucket::Bucket`): a bucket's phase
    /// is set by its own history, so the sources of an aggregate drift apart.
    #[default]
    Continuous,
    /// Whole tokens, the k-th at k·8L/rate after time zero (`PeriodicBucket`): a token
    /// generator with period 8L/r started with the simulation. Buckets of equal rate receive
    /// their tokens at the same instants, and so release packets in step.
    Periodic,
    /// Whole tokens as `Periodic`, but each bucket's generator starts with its own first
    /// packet (the k-th token at t₁ + k·8L/rate, t₁ the first packet's service): Figs. 3 and
    /// 5's "tokens arriving at rate r" without the shared phase, which separates what whole
    /// tokens do from what buckets in step do.
    PeriodicOwnPhase,
}

impl Params {
    pub fn validate(&self) -> Result<(), ParamError> {
        if self.rate_bps == 0 {
            return Err(ParamError::new("rate", "token rate r must be positive"));
        }
        if self.b1_tokens == 0 {
            return Err(ParamError::new(
                "b1",
                "the conformant bucket must hold at least one token",
            ));
        }
        if self.b2_tokens == 0 {
            return Err(ParamError::new(
                "b2",
                "the non-conformant bucket must hold at least one token (use alpha = 0 to send no excess)",
            ));
        }
        if self.token_bytes == 0 {
            return Err(ParamError::new(
                "token_bytes",
                "the packet length L of a token must be positive",
            ));
        }
        if !(0.0..=1.0).contains(&self.alpha) {
            return Err(ParamError::new(
                "alpha",
                format!("alpha must lie in [0, 1], got {}", self.alpha),
            ));
        }
        if self.buffer_packets == 0 {
            return Err(ParamError::new(
                "buffer",
                "the enhanced token bucket needs an input buffer of at least one packet",
            ));
        }
        Ok(())
    }

    /// The conformant bucket as a single-rate token bucket in packet mode.
    fn conformant(&self) -> token_bucket::Params {
        token_bucket::Params {
            rate_bps: self.rate_bps,
            depth: Depth::Packets {
                tokens: self.b1_tokens,
                token_bytes: self.token_bytes,
            },
        }
    }

    /// The non-conformant bucket's shape (its rate is α·r, see `alpha_rate_bps`).
    fn nonconformant(&self) -> token_bucket::Params {
        token_bucket::Params {
            rate_bps: alpha_rate_bps(self.rate_bps, self.alpha),
            depth: Depth::Packets {
                tokens: self.b2_tokens,
                token_bytes: self.token_bytes,
            },
        }
    }
}

/// α·r in whole bits per second (nearest). α = 0 gives 0: the bucket never refills.
pub fn alpha_rate_bps(rate_bps: u64, alpha: f64) -> u64 {
    (alpha * rate_bps as f64).round() as u64
}

/// What the head of the input buffer may do now (Fig. 5's three steps).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Step 1: a conformant token is there; served in profile.
    Green,
    /// Step 2: no conformant token but a non-conformant one; served downgraded.
    Yellow,
    /// Step 3: both buckets empty; the packet stays in the input buffer.
    Wait,
}

impl Decision {
    /// The colour a served packet gets; `None` for `Wait`.
    pub fn colour(self) -> Option<Colour> {
        match self {
            Decision::Green => Some(Colour::Green),
            Decision::Yellow => Some(Colour::Yellow),
            Decision::Wait => None,
        }
    }
}

/// One of the two buckets, under either token clock.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tokens {
    Continuous(Bucket),
    Periodic(PeriodicBucket),
}

impl Tokens {
    /// A full bucket of `tokens` tokens of `token` nanobits each, filled at `rate_bps`.
    fn full(clock: TokenClock, rate_bps: u64, tokens: u64, token: u128, now: SimTime) -> Self {
        match clock {
            TokenClock::Continuous => {
                Tokens::Continuous(Bucket::full(rate_bps, u128::from(tokens) * token, now))
            }
            TokenClock::Periodic | TokenClock::PeriodicOwnPhase => {
                Tokens::Periodic(PeriodicBucket::full(rate_bps, tokens, token, now))
            }
        }
    }

    /// Tokens held as of the last update, nanobits (whole tokens × the token's nanobits for a
    /// periodic bucket).
    pub fn tokens(&self) -> u128 {
        match self {
            Tokens::Continuous(b) => b.tokens(),
            Tokens::Periodic(b) => u128::from(b.tokens) * b.token,
        }
    }

    pub fn rate_bps(&self) -> u64 {
        match self {
            Tokens::Continuous(b) => b.rate_bps(),
            Tokens::Periodic(b) => b.rate_bps,
        }
    }

    /// The earliest instant, not before `now`, at which the bucket holds `cost` nanobits (one
    /// token) if nothing is taken meanwhile.
    pub fn ready_at(&self, now: SimTime, cost: u128) -> Option<SimTime> {
        match self {
            Tokens::Continuous(b) => b.ready_at(now, cost),
            Tokens::Periodic(b) => {
                debug_assert_eq!(cost, b.token, "a periodic bucket's packets cost one token");
                b.ready_at(now)
            }
        }
    }

    #[inline]
    fn refill(&mut self, now: SimTime) {
        match self {
            Tokens::Continuous(b) => {
                b.refill(now);
            }
            Tokens::Periodic(b) => b.refill(now),
        }
    }

    /// Takes one token of `cost` nanobits if there is one (after `refill`).
    #[inline]
    fn take(&mut self, cost: u128) -> bool {
        match self {
            Tokens::Continuous(b) => b.take(cost),
            Tokens::Periodic(b) => b.take(),
        }
    }

    fn set_rate(&mut self, now: SimTime, rate_bps: u64) {
        match self {
            Tokens::Continuous(b) => b.set_rate(now, rate_bps),
            Tokens::Periodic(b) => b.set_rate(now, rate_bps),
        }
    }

    /// Moves a periodic bucket's grid to start at `now` (`TokenClock::PeriodicOwnPhase`).
    fn restart_grid(&mut self, now: SimTime) {
        if let Tokens::Periodic(b) = self {
            b.origin = now.as_nanos();
            b.credited = 0;
        }
    }
}

/// A bucket whose tokens arrive whole on a grid from its origin (time zero unless moved): at
/// rate ρ bit/s and a token of 8L bits, the k-th token at origin + ⌈k·8L/ρ⌉ (in nanoseconds,
/// exact). Every bucket with the same rate and origin shares the grid. A change of rate
/// credits the tokens of the old grid up to that instant, and from then on tokens arrive on
/// the new rate's grid (also counted from the origin).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PeriodicBucket {
    /// The grid's origin, ns.
    origin: u64,
    rate_bps: u64,
    capacity: u64,
    tokens: u64,
    /// One token, nanobits (8L · 10⁹).
    token: u128,
    /// Grid index of the last token credited (or skipped by a rate change).
    credited: u128,
}

impl PeriodicBucket {
    fn full(rate_bps: u64, capacity: u64, token: u128, now: SimTime) -> Self {
        let mut b = PeriodicBucket {
            origin: 0,
            rate_bps,
            capacity,
            tokens: capacity,
            token,
            credited: 0,
        };
        b.credited = b.index(now);
        b
    }

    /// The number of grid points in (origin, now]: ⌊(now − origin) · ρ / token⌋.
    #[inline]
    fn index(&self, now: SimTime) -> u128 {
        u128::from(now.as_nanos().saturating_sub(self.origin)) * u128::from(self.rate_bps)
            / self.token
    }

    /// Tokens held at `now` counting those arrived since the last update, capped.
    #[inline]
    fn held(&self, now: SimTime) -> u64 {
        let new = self.index(now).saturating_sub(self.credited);
        u64::try_from(u128::from(self.tokens) + new)
            .unwrap_or(u64::MAX)
            .min(self.capacity)
    }

    #[inline]
    fn refill(&mut self, now: SimTime) {
        let i = self.index(now);
        if i > self.credited {
            self.tokens = self.held(now);
            self.credited = i;
        }
    }

    #[inline]
    fn take(&mut self) -> bool {
        if self.tokens >= 1 {
            self.tokens -= 1;
            true
        } else {
            false
        }
    }

    fn ready_at(&self, now: SimTime) -> Option<SimTime> {
        if self.held(now) >= 1 {
            return Some(now);
        }
        if self.rate_bps == 0 {
            return None;
        }
        // the next grid point: the smallest t with ⌊t·ρ / token⌋ ≥ credited + 1
        let t = ((self.credited + 1) * self.token).div_ceil(u128::from(self.rate_bps))
            + u128::from(self.origin);
        u64::try_from(t).ok().map(|t| SimTime(t).max(now))
    }

    fn set_rate(&mut self, now: SimTime, rate_bps: u64) {
        self.refill(now);
        self.rate_bps = rate_bps;
        self.credited = self.index(now);
    }
}

/// An enhanced token bucket (see the module header).
#[derive(Clone, Debug)]
pub struct EnhancedTokenBucket {
    params: Params,
    /// Current α (starts at `params.alpha`, moved by `set_alpha`).
    alpha: f64,
    /// One token, nanobits: what every packet costs.
    token: u128,
    /// Conformant bucket: b1 tokens, filled at r.
    conformant: Tokens,
    /// Non-conformant bucket: b2 tokens, filled at α·r.
    nonconformant: Tokens,
    /// Packets served green (conformant) and yellow (downgraded).
    pub stats: MarkerStats,
    /// A packet has been served (`TokenClock::PeriodicOwnPhase` starts its grids at the first).
    started: bool,
}

impl EnhancedTokenBucket {
    /// Both buckets full at `now`. `params` must have passed `validate`.
    pub fn new(params: Params, now: SimTime) -> Self {
        debug_assert!(params.validate().is_ok());
        let c = params.conformant();
        let nc = params.nonconformant();
        EnhancedTokenBucket {
            params,
            alpha: params.alpha,
            token: c.cost(0),
            conformant: Tokens::full(params.clock, c.rate_bps, params.b1_tokens, c.cost(0), now),
            nonconformant: Tokens::full(
                params.clock,
                nc.rate_bps,
                params.b2_tokens,
                c.cost(0),
                now,
            ),
            stats: MarkerStats::default(),
            started: false,
        }
    }

    pub fn params(&self) -> &Params {
        &self.params
    }

    /// Capacity B of the input buffer the caller holds, packets.
    pub fn buffer_packets(&self) -> u32 {
        self.params.buffer_packets
    }

    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    pub fn conformant(&self) -> &Tokens {
        &self.conformant
    }

    pub fn nonconformant(&self) -> &Tokens {
        &self.nonconformant
    }

    /// Whether `bucket` holds a whole token at `now` (tokens accrued since its last update
    /// included), without changing it.
    #[inline]
    fn has_token(&self, bucket: &Tokens, now: SimTime) -> bool {
        bucket.ready_at(now, self.token).is_some_and(|t| t <= now)
    }

    /// Fig. 5's three steps for the head packet at `now`, taking nothing. `size` is the packet's
    /// length in bytes; every packet costs one token whatever its size, so it only matters to
    /// the byte counters of `take`/`serve`.
    #[inline]
    pub fn decide(&self, now: SimTime, _size: u32) -> Decision {
        // Step 1: "if the conformant bucket has at least one token, it is served as conformant"
        if self.has_token(&self.conformant, now) {
            Decision::Green
        // Step 2: "if the conformant bucket is empty, but the out-of-profile bucket has at least
        // one token, then the packet is served with Per Hop Behavior downgraded"
        } else if self.has_token(&self.nonconformant, now) {
            Decision::Yellow
        // Step 3: "if both buckets are empty, the packet is left in the input buffer"
        } else {
            Decision::Wait
        }
    }

    /// Serves a packet of `size` bytes as `colour` at `now`: removes one token from the
    /// conformant bucket (green) or the non-conformant one (yellow) and counts the packet.
    /// The caller must have been told that colour by `decide` at the same `now`; a take that
    /// finds no token is a caller bug (debug assertion) and takes nothing.
    pub fn take(&mut self, now: SimTime, size: u32, colour: Colour) {
        if !self.started {
            self.started = true;
            if self.params.clock == TokenClock::PeriodicOwnPhase {
                // the first packet: both generators start now (the buckets are still full)
                self.conformant.restart_grid(now);
                self.nonconformant.restart_grid(now);
            }
        }
        self.conformant.refill(now);
        self.nonconformant.refill(now);
        let taken = match colour {
            // "a token is removed from the bucket"
            Colour::Green => self.conformant.take(self.token),
            // "a token is removed from the corresponding bucket"
            Colour::Yellow => self.nonconformant.take(self.token),
            Colour::Red => false,
        };
        debug_assert!(
            taken,
            "enhanced token bucket: {colour:?} taken at {now} without a token"
        );
        if taken {
            self.stats.record(colour, size);
        }
    }

    /// `decide` and, unless it says `Wait`, `take`: the service of the head packet at `now`.
    #[inline]
    pub fn serve(&mut self, now: SimTime, size: u32) -> Decision {
        let d = self.decide(now, size);
        if let Some(colour) = d.colour() {
            self.take(now, size, colour);
        }
        d
    }

    /// The earliest instant, not before `now`, at which either bucket holds a whole token if
    /// nothing is taken meanwhile: when a waiting head packet can next be served. `now` itself
    /// if a token is already there. Exact, rounded up to the next whole nanosecond. Always
    /// `Some` for valid parameters (r > 0 refills the conformant bucket even when α = 0);
    /// `None` only if that instant lies beyond `SimTime`'s range.
    pub fn next_service(&self, now: SimTime) -> Option<SimTime> {
        let c = self.conformant.ready_at(now, self.token);
        let nc = self.nonconformant.ready_at(now, self.token);
        match (c, nc) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Sets α from `now` on: the non-conformant bucket keeps what it accrued at the old rate
    /// up to `now`, then fills at α·r (α = 0: it never refills). `alpha` must lie in [0, 1].
    /// A wake-up scheduled from an earlier `next_service` may now be early or late; the caller
    /// asks `next_service` again.
    pub fn set_alpha(&mut self, now: SimTime, alpha: f64) {
        debug_assert!((0.0..=1.0).contains(&alpha), "alpha {alpha} outside [0, 1]");
        let alpha = alpha.clamp(0.0, 1.0);
        self.alpha = alpha;
        self.nonconformant
            .set_rate(now, alpha_rate_bps(self.params.rate_bps, alpha));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edge::token_bucket::nanobits;
    use crate::sim::time::SimDuration;

    const S: u64 = 1_000_000_000;

    fn at_s(s: u64) -> SimTime {
        SimTime(s * S)
    }

    /// r = 8000 bit/s with L = 1000 B: exactly one conformant token per second.
    fn params(alpha: f64) -> Params {
        Params {
            rate_bps: 8_000,
            b1_tokens: 10,
            b2_tokens: 1,
            token_bytes: 1_000,
            alpha,
            buffer_packets: 100,
            clock: TokenClock::Continuous,
        }
    }

    fn etb(alpha: f64) -> EnhancedTokenBucket {
        EnhancedTokenBucket::new(params(alpha), SimTime::ZERO)
    }

    /// An always-backlogged input buffer: serves the head whenever a token is there, until
    /// `end` (inclusive). Returns the (time, decision) of every served packet.
    fn drain_until(
        e: &mut EnhancedTokenBucket,
        start: SimTime,
        end: SimTime,
    ) -> Vec<(SimTime, Decision)> {
        let mut out = Vec::new();
        let mut t = start;
        loop {
            let d = e.serve(t, 1_000);
            if d == Decision::Wait {
                let next = e.next_service(t).expect("r > 0 always refills");
                assert!(next > t, "after a Wait the next service lies in the future");
                t = next;
                if t > end {
                    return out;
                }
            } else {
                out.push((t, d));
            }
        }
    }

    fn count(served: &[(SimTime, Decision)], d: Decision) -> usize {
        served.iter().filter(|(_, x)| *x == d).count()
    }

    fn periodic(alpha: f64) -> Params {
        Params {
            clock: TokenClock::Periodic,
            ..params(alpha)
        }
    }

    fn times(served: &[(SimTime, Decision)], d: Decision) -> Vec<SimTime> {
        served
            .iter()
            .filter(|(_, x)| *x == d)
            .map(|(t, _)| *t)
            .collect()
    }

    #[test]
    fn periodic_tokens_arrive_whole_on_the_grid_from_time_zero() {
        // α = 0.4: conformant tokens at 1 s, 2 s, …; non-conformant at 8000·0.4 = 3200 bit/s,
        // one 8000-bit token every 2.5 s: 2.5 s, 5 s, 7.5 s, …
        let mut e = EnhancedTokenBucket::new(periodic(0.4), SimTime::ZERO);
        let served = drain_until(&mut e, SimTime::ZERO, at_s(10));
        let green = times(&served, Decision::Green);
        assert_eq!(green.len(), 10 + 10, "b1 at the start, then one per second");
        assert!(green[..10].iter().all(|&t| t == SimTime::ZERO));
        assert_eq!(green[10..], (1..=10).map(at_s).collect::<Vec<_>>());
        // b2 = 1 at the start, then a token every 2.5 s; at 5 s and 10 s both buckets get a
        // token at once: one packet goes green, the next takes the yellow token at once
        let yellow = times(&served, Decision::Yellow);
        assert_eq!(
            yellow,
            [0, 2_500, 5_000, 7_500, 10_000].map(|ms| SimTime(ms * 1_000_000))
        );
        // nothing between grid points: just before the next token there is still none
        let mut e = EnhancedTokenBucket::new(
            Params {
                b1_tokens: 1,
                ..periodic(0.0)
            },
            SimTime::ZERO,
        );
        assert_eq!(e.serve(SimTime::ZERO, 1_000), Decision::Green);
        assert_eq!(
            e.serve(SimTime::ZERO, 1_000),
            Decision::Yellow,
            "b2 starts full; α = 0 never refills it"
        );
        assert_eq!(e.serve(SimTime(999_999_999), 1_000), Decision::Wait);
        assert_eq!(e.next_service(SimTime(500_000_000)), Some(at_s(1)));
        assert_eq!(e.serve(at_s(1), 1_000), Decision::Green);
    }

    #[test]
    fn periodic_buckets_created_at_different_times_share_the_grid_continuous_ones_do_not() {
        for (clock, second_at) in [
            (TokenClock::Periodic, at_s(1)),
            (TokenClock::Continuous, SimTime(1_300_000_000)),
        ] {
            let p = Params {
                b1_tokens: 1,
                clock,
                ..params(0.0)
            };
            let mut a = EnhancedTokenBucket::new(p, SimTime::ZERO);
            let mut b = EnhancedTokenBucket::new(p, SimTime(300_000_000));
            assert_eq!(a.serve(SimTime::ZERO, 1_000), Decision::Green);
            assert_eq!(a.serve(SimTime::ZERO, 1_000), Decision::Yellow);
            assert_eq!(b.serve(SimTime(300_000_000), 1_000), Decision::Green);
            assert_eq!(b.serve(SimTime(300_000_000), 1_000), Decision::Yellow);
            assert_eq!(a.next_service(SimTime(300_000_000)), Some(at_s(1)));
            assert_eq!(
                b.next_service(SimTime(300_000_000)),
                Some(second_at),
                "{clock:?}"
            );
        }
    }

    #[test]
    fn own_phase_generators_start_at_each_buckets_first_packet() {
        // two buckets created together; their sources send first at 0.3 s and 0.7 s. On the
        // shared grid both get their next token at 1 s; with their own phase at 1.3 s and 1.7 s
        for (clock, next) in [
            (TokenClock::Periodic, [at_s(1), at_s(1)]),
            (
                TokenClock::PeriodicOwnPhase,
                [SimTime(1_300_000_000), SimTime(1_700_000_000)],
            ),
        ] {
            let p = Params {
                b1_tokens: 1,
                clock,
                ..params(0.0)
            };
            for (first, want) in [
                (SimTime(300_000_000), next[0]),
                (SimTime(700_000_000), next[1]),
            ] {
                let mut e = EnhancedTokenBucket::new(p, SimTime::ZERO);
                assert_eq!(
                    e.serve(first, 1_000),
                    Decision::Green,
                    "the bucket starts full"
                );
                assert_eq!(e.serve(first, 1_000), Decision::Yellow);
                assert_eq!(e.next_service(first), Some(want), "{clock:?}");
                assert_eq!(e.serve(want, 1_000), Decision::Green);
                // and every period after that, on the same grid
                assert_eq!(
                    e.next_service(want),
                    Some(SimTime(want.as_nanos() + 1_000_000_000)),
                    "{clock:?}"
                );
            }
        }
    }

    #[test]
    fn periodic_alpha_change_credits_the_old_grid_then_follows_the_new_one() {
        let mut e = EnhancedTokenBucket::new(
            Params {
                b1_tokens: 1,
                b2_tokens: 2,
                ..periodic(0.4)
            },
            SimTime::ZERO,
        );
        // empty both buckets at 0
        assert_eq!(e.serve(SimTime::ZERO, 1_000), Decision::Green);
        assert_eq!(e.serve(SimTime::ZERO, 1_000), Decision::Yellow);
        assert_eq!(e.serve(SimTime::ZERO, 1_000), Decision::Yellow);
        assert_eq!(e.nonconformant().tokens(), 0);
        // at 3 s the old grid (every 2.5 s) has given one token; α = 0.5 then fills on the
        // 2 s grid: the next token at 4 s, not 3 s + 2 s
        e.set_alpha(at_s(3), 0.5);
        assert_eq!(
            e.nonconformant().tokens(),
            nanobits(1_000),
            "the 2.5 s token was credited"
        );
        assert_eq!(e.nonconformant().rate_bps(), 4_000);
        assert_eq!(
            e.nonconformant().ready_at(at_s(3), nanobits(1_000)),
            Some(at_s(3))
        );
        // α = 0: a periodic bucket with no rate never refills
        let mut z = EnhancedTokenBucket::new(
            Params {
                b1_tokens: 1,
                ..periodic(0.0)
            },
            SimTime::ZERO,
        );
        assert_eq!(z.serve(SimTime::ZERO, 1_000), Decision::Green);
        assert_eq!(
            z.serve(SimTime::ZERO, 1_000),
            Decision::Yellow,
            "b2 starts full"
        );
        assert_eq!(z.nonconformant().ready_at(at_s(100), nanobits(1_000)), None);
    }

    #[test]
    fn periodic_next_token_after_a_rate_change_is_on_the_new_grid() {
        let mut e = EnhancedTokenBucket::new(
            Params {
                b1_tokens: 1,
                b2_tokens: 1,
                ..periodic(0.4)
            },
            SimTime::ZERO,
        );
        assert_eq!(e.serve(SimTime::ZERO, 1_000), Decision::Green);
        assert_eq!(e.serve(SimTime::ZERO, 1_000), Decision::Yellow);
        e.set_alpha(SimTime(1_000_000_000), 0.5); // before the old grid's 2.5 s token
        assert_eq!(e.nonconformant().tokens(), 0);
        assert_eq!(
            e.nonconformant().ready_at(at_s(1), nanobits(1_000)),
            Some(at_s(2)),
            "4000 bit/s: 2 s, 4 s, …"
        );
    }

    #[test]
    fn both_buckets_start_full() {
        let e = etb(0.4);
        assert_eq!(e.conformant().tokens(), nanobits(10_000));
        assert_eq!(e.nonconformant().tokens(), nanobits(1_000));
        assert_eq!(e.nonconformant().rate_bps(), 3_200, "α·r = 0.4 × 8000");
    }

    #[test]
    fn a_burst_takes_b1_conformant_then_b2_downgraded_then_waits() {
        let mut e = EnhancedTokenBucket::new(
            Params {
                b2_tokens: 2,
                ..params(0.4)
            },
            SimTime::ZERO,
        );
        let t = SimTime::ZERO;
        for i in 0..10 {
            assert_eq!(
                e.serve(t, 1_000),
                Decision::Green,
                "packet {i} finds a conformant token"
            );
        }
        assert_eq!(e.serve(t, 1_000), Decision::Yellow);
        assert_eq!(e.serve(t, 1_000), Decision::Yellow);
        assert_eq!(e.decide(t, 1_000), Decision::Wait);
        assert_eq!(e.stats.packets, [10, 2, 0]);
        assert_eq!(e.stats.bytes, [10_000, 2_000, 0]);
        assert!(e.stats.check().is_ok());
    }

    #[test]
    fn wait_takes_nothing() {
        let mut e = etb(0.4);
        drain_until(&mut e, SimTime::ZERO, SimTime::ZERO);
        let before = (
            e.conformant().clone(),
            e.nonconformant().clone(),
            e.stats.clone(),
        );
        for _ in 0..5 {
            assert_eq!(e.decide(SimTime(500_000_000), 1_000), Decision::Wait);
            assert_eq!(e.serve(SimTime(500_000_000), 1_000), Decision::Wait);
        }
        assert_eq!(e.stats, before.2, "a waiting packet is not counted");
        // serve refreshed nothing it did not have to: tokens are unchanged up to the accrual
        assert_eq!(e.conformant().tokens(), before.0.tokens());
        assert_eq!(e.nonconformant().tokens(), before.1.tokens());
    }

    #[test]
    fn decide_prefers_the_conformant_bucket_when_both_hold_a_token() {
        let e = etb(1.0);
        assert_eq!(e.decide(SimTime::ZERO, 1_000), Decision::Green);
    }

    #[test]
    fn under_overload_alpha_point_four_gives_r_conformant_and_point_four_r_downgraded() {
        // 100 s of backlog: conformant tokens at 1/s (whole at 1 s, 2 s, ...), non-conformant at
        // 0.4/s (whole at 2.5 s, 5 s, ...). Served: the initial b1 + b2, then exactly the tokens
        // accrued: 100 green and 40 yellow.
        let mut e = etb(0.4);
        let served = drain_until(&mut e, SimTime::ZERO, at_s(100));
        assert_eq!(count(&served, Decision::Green), 10 + 100);
        assert_eq!(count(&served, Decision::Yellow), 1 + 40);
        // first yellow after the initial burst: 2.5 s; at 5 s both buckets refill together and
        // the head goes green first, the next packet yellow at the same instant
        let yellows: Vec<_> = served
            .iter()
            .filter(|(_, d)| *d == Decision::Yellow)
            .map(|(t, _)| *t)
            .collect();
        assert_eq!(
            &yellows[..3],
            &[SimTime::ZERO, SimTime(2_500_000_000), at_s(5)]
        );
        let at5: Vec<_> = served
            .iter()
            .filter(|(t, _)| *t == at_s(5))
            .map(|(_, d)| *d)
            .collect();
        assert_eq!(at5, vec![Decision::Green, Decision::Yellow]);
        // rates measured after the initial burst: r and 0.4·r, in bits/s
        let green_bps = (count(&served, Decision::Green) - 10) as f64 * 8_000.0 / 100.0;
        let yellow_bps = (count(&served, Decision::Yellow) - 1) as f64 * 8_000.0 / 100.0;
        assert_eq!(green_bps, 8_000.0);
        assert_eq!(yellow_bps, 3_200.0);
    }

    #[test]
    fn alpha_zero_gives_exactly_r_after_the_initial_buckets() {
        let mut e = etb(0.0);
        let served = drain_until(&mut e, SimTime::ZERO, at_s(100));
        assert_eq!(count(&served, Decision::Green), 10 + 100);
        assert_eq!(
            count(&served, Decision::Yellow),
            1,
            "only the token b2 started with"
        );
        assert!(served.iter().skip(11).all(|(_, d)| *d == Decision::Green));
        // green packets leave exactly one per token interval
        let times: Vec<_> = served.iter().skip(11).map(|(t, _)| *t).collect();
        assert_eq!(times[0], at_s(1));
        assert!(times
            .windows(2)
            .all(|w| w[1] - w[0] == SimDuration::from_secs(1)));
    }

    #[test]
    fn set_alpha_credits_the_old_rate_then_fills_at_the_new_one() {
        // α = 0.5: 4000 bit/s into b2, half a token per second.
        let mut e = etb(0.5);
        drain_until(&mut e, SimTime::ZERO, SimTime::ZERO);
        assert_eq!(e.nonconformant().tokens(), 0);
        // 1 s at 4000 bit/s: half a token; then α = 0.25 (2000 bit/s) needs 2 s for the other half
        e.set_alpha(at_s(1), 0.25);
        assert_eq!(e.alpha(), 0.25);
        assert_eq!(e.nonconformant().tokens(), nanobits(500));
        assert_eq!(e.nonconformant().rate_bps(), 2_000);
        assert_eq!(
            e.nonconformant().ready_at(at_s(1), nanobits(1_000)),
            Some(at_s(3))
        );
    }

    #[test]
    fn set_alpha_zero_stops_the_nonconformant_bucket_mid_run() {
        let mut e = etb(0.4);
        drain_until(&mut e, SimTime::ZERO, SimTime::ZERO);
        e.set_alpha(at_s(1), 0.0); // 0.4 token accrued, and no more ever
        assert_eq!(e.nonconformant().tokens(), nanobits(400));
        assert_eq!(e.nonconformant().ready_at(at_s(1), nanobits(1_000)), None);
        let served = drain_until(&mut e, at_s(1), at_s(50));
        assert_eq!(count(&served, Decision::Yellow), 0);
        assert_eq!(
            count(&served, Decision::Green),
            50,
            "one per second from 1 s to 50 s"
        );
    }

    #[test]
    fn set_alpha_mid_run_changes_the_downgraded_rate() {
        // 0.4 for 50 s (20 yellow tokens), then 0.2 for 50 s (10 more).
        let mut e = etb(0.4);
        let first = drain_until(&mut e, SimTime::ZERO, at_s(50));
        e.set_alpha(at_s(50), 0.2);
        let second = drain_until(&mut e, at_s(50), at_s(100));
        assert_eq!(count(&first, Decision::Yellow), 1 + 20);
        assert_eq!(count(&second, Decision::Yellow), 10);
        assert_eq!(
            count(&first, Decision::Green) + count(&second, Decision::Green),
            110
        );
    }

    #[test]
    fn next_service_is_exact_to_the_nanosecond() {
        // r = 3000 bit/s, L = 1000 B: a token every 8/3 s = 2 666 666 666.67 ns; α = 1/3 gives
        // 1000 bit/s into b2, a token every 8 s. b1 = 2 so the fraction of a token accrued past
        // a whole one is kept, not capped away; everything is taken at 0.
        let p = Params {
            rate_bps: 3_000,
            b1_tokens: 2,
            b2_tokens: 1,
            token_bytes: 1_000,
            alpha: 1.0 / 3.0,
            buffer_packets: 1,
            clock: TokenClock::Continuous,
        };
        let mut e = EnhancedTokenBucket::new(p, SimTime::ZERO);
        assert_eq!(e.nonconformant().rate_bps(), 1_000);
        assert_eq!(e.serve(SimTime::ZERO, 576), Decision::Green);
        assert_eq!(e.serve(SimTime::ZERO, 576), Decision::Green);
        assert_eq!(e.serve(SimTime::ZERO, 576), Decision::Yellow);
        let t1 = e.next_service(SimTime::ZERO).unwrap();
        assert_eq!(
            t1,
            SimTime(2_666_666_667),
            "8e12 nb / 3000 nb per ns, rounded up"
        );
        assert_eq!(
            e.decide(SimTime(t1.0 - 1), 576),
            Decision::Wait,
            "one nanosecond early"
        );
        // 1000 nb left over after this one
        assert_eq!(e.serve(t1, 576), Decision::Green);
        let t2 = e.next_service(t1).unwrap();
        assert_eq!(
            t2,
            SimTime(5_333_333_334),
            "(8e12 − 1000) / 3000 rounded up, after t1"
        );
        // 2000 nb left over after this one
        assert_eq!(e.serve(t2, 576), Decision::Green);
        // (8e12 − 2000) / 3000 = 2 666 666 666 exactly: the conformant token is whole at 8 s,
        // the very instant the non-conformant bucket (1000 bit/s since 0) has its token too
        let t3 = e.next_service(t2).unwrap();
        assert_eq!(t3, at_s(8));
        assert_eq!(e.decide(SimTime(t3.0 - 1), 576), Decision::Wait);
        assert_eq!(e.serve(t3, 576), Decision::Green, "step 1 before step 2");
        assert_eq!(
            e.next_service(t3),
            Some(t3),
            "the non-conformant token is there now"
        );
        assert_eq!(e.serve(t3, 576), Decision::Yellow);
        assert_eq!(
            e.next_service(t3),
            Some(at_s(8) + SimDuration::from_nanos(2_666_666_667))
        );
    }

    #[test]
    fn next_service_finds_the_nonconformant_bucket_when_it_is_earlier() {
        // α = 1: both fill at r; b2 was left alone while b1 was drained, so b2 is full first.
        let p = Params {
            b1_tokens: 1,
            b2_tokens: 1,
            ..params(1.0)
        };
        let mut e = EnhancedTokenBucket::new(p, SimTime::ZERO);
        assert_eq!(e.serve(SimTime::ZERO, 1_000), Decision::Green);
        assert_eq!(
            e.next_service(SimTime::ZERO),
            Some(SimTime::ZERO),
            "b2 is still full"
        );
        assert_eq!(e.serve(SimTime::ZERO, 1_000), Decision::Yellow);
        assert_eq!(e.next_service(SimTime::ZERO), Some(at_s(1)));
    }

    #[test]
    fn alpha_rate_rounds_to_the_nearest_bit_per_second() {
        assert_eq!(alpha_rate_bps(1_000_000, 0.38), 380_000);
        assert_eq!(alpha_rate_bps(1_000_000, 0.04), 40_000);
        assert_eq!(alpha_rate_bps(3, 0.5), 2);
        assert_eq!(alpha_rate_bps(1_600_000, 0.0), 0);
    }

    #[test]
    fn validate_names_the_bad_field() {
        let ok = params(0.4);
        assert!(ok.validate().is_ok());
        assert!(Params { alpha: 0.0, ..ok }.validate().is_ok());
        assert!(Params { alpha: 1.0, ..ok }.validate().is_ok());
        assert_eq!(
            Params { rate_bps: 0, ..ok }.validate().unwrap_err().field,
            "rate"
        );
        assert_eq!(
            Params { b1_tokens: 0, ..ok }.validate().unwrap_err().field,
            "b1"
        );
        assert_eq!(
            Params { b2_tokens: 0, ..ok }.validate().unwrap_err().field,
            "b2"
        );
        assert_eq!(
            Params {
                token_bytes: 0,
                ..ok
            }
            .validate()
            .unwrap_err()
            .field,
            "token_bytes"
        );
        assert_eq!(
            Params { alpha: -0.1, ..ok }.validate().unwrap_err().field,
            "alpha"
        );
        assert_eq!(
            Params { alpha: 1.5, ..ok }.validate().unwrap_err().field,
            "alpha"
        );
        assert_eq!(
            Params {
                alpha: f64::NAN,
                ..ok
            }
            .validate()
            .unwrap_err()
            .field,
            "alpha"
        );
        assert_eq!(
            Params {
                buffer_packets: 0,
                ..ok
            }
            .validate()
            .unwrap_err()
            .field,
            "buffer"
        );
    }

    #[test]
    fn table_one_parameters_are_valid() {
        for r in [1_600_000, 1_000_000, 400_000] {
            let p = Params {
                rate_bps: r,
                b1_tokens: 10,
                b2_tokens: 1,
                token_bytes: 576,
                alpha: 0.4,
                buffer_packets: 100,
                clock: TokenClock::Continuous,
            };
            assert!(p.validate().is_ok());
        }
    }
}
