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
mod tests;
