//! Token bucket: the bucket arithmetic every meter here shares, a single-rate two-colour
//! (IN/OUT) marker, and the "when does this packet conform" question a shaper asks.
//!
//! Read this first.
//! - Sources: the token bucket profile of RFC 2475 §2.3.2 / RFC 2697 §3 (tokens accrue at a rate
//!   up to a depth; a packet of B bytes conforms if B tokens are there, and takes them);
//!   Giacomazzi et al. (papers 000/001, "The Token Bucket"): one token per packet of constant
//!   length L, tokens at r/(8L) per second, a packet finding no token is served with its PHB
//!   downgraded; Jourjon et al. (paper 003): a two-colour token bucket marker with a depth of
//!   10^4 bytes. ns-2 `dsPolicy.cc` `TBPolicy` is the same byte-mode marker.
//! - Variants: depth in bytes (a packet costs its size) or in packets (a packet costs one token
//!   whatever its size; the rate still is bits/s, converted with the token's nominal size L).
//! - Exact arithmetic: tokens are held as integer *nanobits* (10^-9 bit). A rate of R bit/s
//!   accrues exactly R nanobits per nanosecond of `SimTime`, so R × Δt_ns is an exact integer
//!   and no rounding ever accumulates, however the arrivals split time. u128 holds any bucket
//!   (10^9 bytes = 8·10^18 nb) and any accrual (10^12 bit/s over 10^6 s ≈ 10^27 nb).
//! - The bucket starts full (RFC 2697 §3: "initially full").
//!
//! Not modelled: the input buffer and second bucket of Giacomazzi's *enhanced* token bucket
//! (its own file, built on `Bucket`), shaping queues (the caller holds packets; this file only
//! answers when one conforms), packet-size-dependent costs in packet mode.

use crate::edge::MarkerStats;
use crate::net::dscp::Colour;
use crate::param::ParamError;
use crate::sim::time::{SimDuration, SimTime};

/// Nanobits per bit: a rate in bit/s accrues this many nanobits per second, i.e. `rate_bps`
/// nanobits per nanosecond.
pub const NANOBITS_PER_BIT: u128 = 1_000_000_000;
/// Nanobits per byte.
pub const NANOBITS_PER_BYTE: u128 = 8 * NANOBITS_PER_BIT;

/// `bytes` expressed in the buckets' nanobit unit.
#[inline]
pub const fn nanobits(bytes: u64) -> u128 {
    bytes as u128 * NANOBITS_PER_BYTE
}

/// One token bucket: `tokens` accrue at `rate_bps` up to `capacity`, both in nanobits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bucket {
    rate_bps: u64,
    capacity: u128,
    tokens: u128,
    last: SimTime,
}

impl Bucket {
    /// A bucket holding `capacity` nanobits at `now` (buckets start full).
    pub fn full(rate_bps: u64, capacity: u128, now: SimTime) -> Self {
        Bucket {
            rate_bps,
            capacity,
            tokens: capacity,
            last: now,
        }
    }

    /// Adds the tokens accrued since the last update (rate × elapsed ns, exact), capped at the
    /// capacity; returns the part that did not fit (srTCM pours it into its E bucket).
    #[inline]
    pub fn refill(&mut self, now: SimTime) -> u128 {
        debug_assert!(
            now >= self.last,
            "token bucket refilled at {now}, earlier than {}",
            self.last
        );
        let elapsed = u128::from(now.saturating_since(self.last).as_nanos());
        self.last = self.last.max(now);
        self.add(u128::from(self.rate_bps) * elapsed)
    }

    /// Adds `amount` nanobits, capped at the capacity; returns the overflow.
    #[inline]
    pub fn add(&mut self, amount: u128) -> u128 {
        let room = self.capacity - self.tokens;
        if amount <= room {
            self.tokens += amount;
            0
        } else {
            self.tokens = self.capacity;
            amount - room
        }
    }

    /// Takes `cost` nanobits if the bucket holds at least that many ("T - B >= 0").
    #[inline]
    pub fn take(&mut self, cost: u128) -> bool {
        if self.tokens >= cost {
            self.tokens -= cost;
            true
        } else {
            false
        }
    }

    /// `refill(now)`, then `take(cost)`: the same tokens, instant and answer. A bucket whose
    /// capacity is below 2⁶⁴ nanobits (2.3 GB) holds at most that many tokens, so the sums
    /// and comparisons are done in 64 bits (issue 25: each 128-bit one is two instructions);
    /// an accrual that does not fit 64 bits exceeds the room left and fills the bucket, as in
    /// `add`, and a cost that does not fit exceeds every token count and is not taken.
    #[inline]
    pub fn refill_take(&mut self, now: SimTime, cost: u128) -> bool {
        let (Ok(capacity), Ok(tokens)) = (u64::try_from(self.capacity), u64::try_from(self.tokens))
        else {
            self.refill(now);
            return self.take(cost);
        };
        debug_assert!(
            now >= self.last,
            "token bucket refilled at {now}, earlier than {}",
            self.last
        );
        let elapsed = now.saturating_since(self.last).as_nanos();
        self.last = self.last.max(now);
        // (`tokens <= capacity` always: `add` caps, `take` only lowers)
        let tokens = match self.rate_bps.checked_mul(elapsed) {
            Some(amount) if amount <= capacity - tokens => tokens + amount,
            _ => capacity,
        };
        let taken = u64::try_from(cost).is_ok_and(|c| tokens >= c);
        self.tokens = u128::from(if taken { tokens - cost as u64 } else { tokens });
        taken
    }

    /// Whether `cost` nanobits are there, without taking them.
    #[inline]
    pub fn holds(&self, cost: u128) -> bool {
        self.tokens >= cost
    }

    /// Tokens now held (as of the last refill), nanobits.
    pub fn tokens(&self) -> u128 {
        self.tokens
    }

    pub fn capacity(&self) -> u128 {
        self.capacity
    }

    pub fn rate_bps(&self) -> u64 {
        self.rate_bps
    }

    /// Changes the fill rate from `now` on (tokens accrued so far are credited at the old rate
    /// first). For controllers that adapt a rate, like Giacomazzi's CSA.
    pub fn set_rate(&mut self, now: SimTime, rate_bps: u64) {
        self.refill(now);
        self.rate_bps = rate_bps;
    }

    /// The earliest instant, not before `now`, at which the bucket will hold `cost` nanobits if
    /// nothing is taken meanwhile; `None` if it never will (cost above capacity, or zero rate
    /// and too few tokens). Rounded up to the next whole nanosecond.
    pub fn ready_at(&self, now: SimTime, cost: u128) -> Option<SimTime> {
        if cost > self.capacity {
            return None;
        }
        let elapsed = u128::from(now.saturating_since(self.last).as_nanos());
        let have = (self.tokens + u128::from(self.rate_bps) * elapsed).min(self.capacity);
        if have >= cost {
            return Some(now.max(self.last));
        }
        if self.rate_bps == 0 {
            return None;
        }
        let deficit = cost - have;
        let wait_ns = deficit.div_ceil(u128::from(self.rate_bps));
        let wait_ns = u64::try_from(wait_ns).ok()?;
        Some(now.max(self.last) + SimDuration::from_nanos(wait_ns))
    }
}

/// How deep the bucket is, and so what a packet costs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Depth {
    /// Depth in bytes; a packet costs its size in bytes (RFC 2697 style, ns-2 `TokenBucket`).
    Bytes(u64),
    /// Depth in tokens of `token_bytes` each; every packet costs one token whatever its size
    /// (Giacomazzi: tokens at r/(8L) per second for packets of constant length L).
    Packets { tokens: u64, token_bytes: u32 },
}

/// Parameters of a single-rate token bucket.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Params {
    /// Token rate, bits per second (the committed / target rate r).
    pub rate_bps: u64,
    /// Bucket depth (b).
    pub depth: Depth,
}

impl Params {
    pub fn validate(&self) -> Result<(), ParamError> {
        if self.rate_bps == 0 {
            return Err(ParamError::new("rate", "token rate must be positive"));
        }
        match self.depth {
            Depth::Bytes(0) => Err(ParamError::new("depth", "bucket depth must be positive")),
            Depth::Packets { tokens: 0, .. } => {
                Err(ParamError::new("depth", "bucket depth must be positive"))
            }
            Depth::Packets { token_bytes: 0, .. } => Err(ParamError::new(
                "token_bytes",
                "the nominal packet size of a token must be positive",
            )),
            Depth::Bytes(_) | Depth::Packets { .. } => Ok(()),
        }
    }

    /// Capacity of the bucket, nanobits.
    pub fn capacity(&self) -> u128 {
        match self.depth {
            Depth::Bytes(b) => nanobits(b),
            Depth::Packets {
                tokens,
                token_bytes,
            } => u128::from(tokens) * nanobits(u64::from(token_bytes)),
        }
    }

    /// What a packet of `size` bytes costs, nanobits.
    #[inline]
    pub fn cost(&self, size: u32) -> u128 {
        match self.depth {
            Depth::Bytes(_) => nanobits(u64::from(size)),
            Depth::Packets { token_bytes, .. } => nanobits(u64::from(token_bytes)),
        }
    }
}

/// Single-rate two-colour marker: IN (green) if the packet finds its tokens, OUT (yellow)
/// otherwise.
#[derive(Clone, Debug)]
pub struct TokenBucket {
    params: Params,
    bucket: Bucket,
    pub stats: MarkerStats,
}

impl TokenBucket {
    /// A marker whose bucket is full at `now`. `params` must have passed `validate`.
    pub fn new(params: Params, now: SimTime) -> Self {
        debug_assert!(params.validate().is_ok());
        TokenBucket {
            params,
            bucket: Bucket::full(params.rate_bps, params.capacity(), now),
            stats: MarkerStats::default(),
        }
    }

    pub fn params(&self) -> &Params {
        &self.params
    }

    pub fn bucket(&self) -> &Bucket {
        &self.bucket
    }

    /// Meters a packet of `size` bytes arriving at `now` (colour-blind).
    #[inline]
    pub fn mark(&mut self, now: SimTime, size: u32) -> Colour {
        // Conformant if the bucket holds the packet's cost; it takes it (RFC 2697 §3 rule).
        let colour = if self.bucket.refill_take(now, self.params.cost(size)) {
            Colour::IN
        } else {
            Colour::OUT
        };
        self.stats.record(colour, size);
        colour
    }

    /// Colour-aware metering: a packet already OUT stays OUT and takes no tokens (as RFC 2697
    /// §3 keeps a pre-coloured packet from using the committed bucket); an IN packet is metered.
    #[inline]
    pub fn mark_aware(&mut self, now: SimTime, size: u32, pre: Colour) -> Colour {
        if pre.is_in() {
            return self.mark(now, size);
        }
        self.bucket.refill(now);
        self.stats.record(Colour::OUT, size);
        Colour::OUT
    }

    /// Shaper helper: the earliest instant, not before `now`, at which a packet of `size` bytes
    /// would be IN if nothing else took tokens; `None` if it never can (bigger than the bucket).
    /// A shaper holds the packet until then and calls `mark` at that instant, which returns IN.
    pub fn next_conformant(&self, now: SimTime, size: u32) -> Option<SimTime> {
        self.bucket.ready_at(now, self.params.cost(size))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    fn at_ms(ms: u64) -> SimTime {
        SimTime(ms * MS)
    }

    /// 8000 bit/s = 1000 bytes/s, depth 1500 bytes.
    fn kb_per_s_bucket() -> TokenBucket {
        TokenBucket::new(
            Params {
                rate_bps: 8_000,
                depth: Depth::Bytes(1_500),
            },
            SimTime::ZERO,
        )
    }

    #[test]
    fn bucket_starts_full() {
        let tb = kb_per_s_bucket();
        assert_eq!(tb.bucket().tokens(), nanobits(1_500));
    }

    #[test]
    fn packet_is_in_when_tokens_cover_it_and_takes_them() {
        let mut tb = kb_per_s_bucket();
        assert_eq!(tb.mark(at_ms(0), 1_000), Colour::IN);
        assert_eq!(tb.bucket().tokens(), nanobits(500));
    }

    #[test]
    fn packet_is_out_when_tokens_fall_short_and_takes_none() {
        let mut tb = kb_per_s_bucket();
        tb.mark(at_ms(0), 1_000);
        assert_eq!(tb.mark(at_ms(0), 1_000), Colour::OUT);
        assert_eq!(
            tb.bucket().tokens(),
            nanobits(500),
            "an OUT packet leaves the tokens alone"
        );
    }

    #[test]
    fn exactly_enough_tokens_conform() {
        let mut tb = kb_per_s_bucket();
        tb.mark(at_ms(0), 1_000); // 500 left
                                  // 500 ms at 1000 B/s adds 500 B: exactly 1000 B for a 1000 B packet.
        assert_eq!(tb.mark(at_ms(500), 1_000), Colour::IN);
        assert_eq!(tb.bucket().tokens(), 0);
    }

    #[test]
    fn tokens_never_exceed_the_depth() {
        let mut tb = kb_per_s_bucket();
        tb.mark(at_ms(0), 1_500);
        assert_eq!(tb.bucket().tokens(), 0);
        tb.mark(at_ms(10_000), 0); // ten seconds would add 10 000 B
        assert_eq!(tb.bucket().tokens(), nanobits(1_500));
        assert_eq!(
            tb.mark(at_ms(10_000), 1_501),
            Colour::OUT,
            "deeper than the bucket never conforms"
        );
    }

    #[test]
    fn accrual_is_exact_however_time_is_split() {
        // 3 bit/s does not divide a byte per nanosecond: float bytes would drift.
        let mut split = Bucket::full(3, nanobits(1_000_000), SimTime::ZERO);
        split.take(nanobits(1_000_000));
        let mut whole = split.clone();
        let mut t = 0u64;
        for step in [1u64, 7, 333_333_333, 2, 999_999_999, 13, 5_000_000_001] {
            t += step;
            split.refill(SimTime(t));
        }
        whole.refill(SimTime(t));
        assert_eq!(split.tokens(), whole.tokens());
        assert_eq!(
            whole.tokens(),
            3 * u128::from(t),
            "R bit/s accrues R nanobits per ns"
        );
    }

    #[test]
    fn packet_mode_charges_one_token_per_packet_whatever_its_size() {
        // r = 8000 bit/s with L = 1000 B: one token per second; depth 2 tokens.
        let p = Params {
            rate_bps: 8_000,
            depth: Depth::Packets {
                tokens: 2,
                token_bytes: 1_000,
            },
        };
        let mut tb = TokenBucket::new(p, SimTime::ZERO);
        assert_eq!(tb.mark(at_ms(0), 40), Colour::IN);
        assert_eq!(
            tb.mark(at_ms(0), 1_500),
            Colour::IN,
            "a big packet still costs one token"
        );
        assert_eq!(tb.mark(at_ms(0), 40), Colour::OUT);
        assert_eq!(
            tb.mark(at_ms(999), 40),
            Colour::OUT,
            "the next token is whole at 1 s"
        );
        assert_eq!(tb.mark(at_ms(1_000), 40), Colour::IN);
    }

    #[test]
    fn colour_aware_out_packet_stays_out_and_spares_the_tokens() {
        let mut tb = kb_per_s_bucket();
        assert_eq!(tb.mark_aware(at_ms(0), 1_000, Colour::OUT), Colour::OUT);
        assert_eq!(tb.bucket().tokens(), nanobits(1_500));
        assert_eq!(tb.mark_aware(at_ms(0), 1_000, Colour::IN), Colour::IN);
        assert_eq!(tb.bucket().tokens(), nanobits(500));
    }

    #[test]
    fn shaper_release_time_is_when_the_deficit_has_accrued() {
        let mut tb = kb_per_s_bucket();
        tb.mark(at_ms(0), 1_500); // empty
                                  // 600 B at 1000 B/s: 600 ms.
        assert_eq!(tb.next_conformant(at_ms(0), 600), Some(at_ms(600)));
        assert_eq!(
            tb.next_conformant(at_ms(200), 600),
            Some(at_ms(600)),
            "asking later does not move it"
        );
        assert_eq!(
            tb.next_conformant(at_ms(700), 600),
            Some(at_ms(700)),
            "already conformant: now"
        );
        assert_eq!(tb.next_conformant(at_ms(0), 1_501), None, "never fits");
        assert_eq!(tb.mark(at_ms(600), 600), Colour::IN);
    }

    #[test]
    fn shaper_release_time_rounds_up_to_a_whole_nanosecond() {
        // 3 bit/s, one byte = 8 bits: 8/3 s = 2 666 666 666.67 ns.
        let mut tb = TokenBucket::new(
            Params {
                rate_bps: 3,
                depth: Depth::Bytes(1),
            },
            SimTime::ZERO,
        );
        assert_eq!(tb.mark(SimTime::ZERO, 1), Colour::IN);
        let t = tb.next_conformant(SimTime::ZERO, 1).unwrap();
        assert_eq!(t, SimTime(2_666_666_667));
        let mut early = tb.clone();
        assert_eq!(early.mark(SimTime(t.0 - 1), 1), Colour::OUT);
        assert_eq!(tb.mark(t, 1), Colour::IN);
    }

    #[test]
    fn set_rate_credits_the_old_rate_up_to_the_change() {
        let mut b = Bucket::full(8_000, nanobits(10_000), SimTime::ZERO);
        b.take(nanobits(10_000));
        b.set_rate(at_ms(1_000), 16_000); // 1 s at 1000 B/s
        assert_eq!(b.tokens(), nanobits(1_000));
        b.refill(at_ms(2_000)); // 1 s at 2000 B/s
        assert_eq!(b.tokens(), nanobits(3_000));
    }

    #[test]
    fn zero_rate_bucket_never_becomes_ready() {
        let mut b = Bucket::full(0, nanobits(10), SimTime::ZERO);
        b.take(nanobits(10));
        assert_eq!(b.ready_at(SimTime::ZERO, 1), None);
    }

    #[test]
    fn stats_count_each_colour() {
        let mut tb = kb_per_s_bucket();
        tb.mark(at_ms(0), 1_000);
        tb.mark(at_ms(0), 1_000);
        assert_eq!(tb.stats.packets, [1, 1, 0]);
        assert!(tb.stats.check().is_ok());
    }

    #[test]
    fn validate_rejects_zero_rate_and_empty_buckets() {
        let ok = Params {
            rate_bps: 1,
            depth: Depth::Bytes(1),
        };
        assert!(ok.validate().is_ok());
        assert_eq!(
            Params { rate_bps: 0, ..ok }.validate().unwrap_err().field,
            "rate"
        );
        assert_eq!(
            Params {
                depth: Depth::Bytes(0),
                ..ok
            }
            .validate()
            .unwrap_err()
            .field,
            "depth"
        );
        let no_l = Params {
            depth: Depth::Packets {
                tokens: 1,
                token_bytes: 0,
            },
            ..ok
        };
        assert_eq!(no_l.validate().unwrap_err().field, "token_bytes");
    }

    /// `refill_take` is `refill` then `take` for every bucket: capacities below, at and above
    /// 2⁶⁴ nanobits (the 64-bit path and the general one), accruals that overflow 64 bits,
    /// costs above 2⁶⁴. It fails when the 64-bit path caps wrongly (checked by making its
    /// overflowing accrual leave the tokens as they were).
    #[test]
    fn refill_take_is_refill_then_take() {
        let mut rng = crate::sim::rng::stream(7, "refill_take");
        let big = u128::from(u64::MAX);
        let capacities = [
            1,
            nanobits(500),
            nanobits(5_000),
            big - 1,
            big,
            big + 1,
            nanobits(u64::MAX / 8),
        ];
        let rates = [
            1,
            8_000,
            500_000,
            45_000_000,
            1 << 40,
            u64::MAX / 3,
            u64::MAX,
        ];
        let mut compared = 0;
        for &capacity in &capacities {
            for &rate in &rates {
                let mut a = Bucket::full(rate, capacity, SimTime::ZERO);
                let mut b = a.clone();
                let mut now = 0u64;
                for _ in 0..400 {
                    let r = rng.next_u64();
                    // gaps from none to many seconds, some of them huge
                    now = now.saturating_add(match r % 5 {
                        0 => 0,
                        1 => r >> 60,
                        2 => (r >> 40) % 2_000_000,
                        3 => (r >> 20) % 20_000_000_000,
                        _ => r >> 4,
                    });
                    let cost = match (r >> 8) % 6 {
                        0 => 0,
                        1 => capacity,
                        2 => capacity + 1,
                        3 => u128::from(rng.next_u64()) << 8,
                        4 => nanobits(u64::from(rng.next_u64() as u32)),
                        _ => u128::from(rng.next_u64()) % (capacity + 1),
                    };
                    let t = SimTime(now);
                    b.refill(t);
                    let took = b.take(cost);
                    assert_eq!(a.refill_take(t, cost), took, "cap {capacity} rate {rate}");
                    assert_eq!(a, b, "cap {capacity} rate {rate} at {now} cost {cost}");
                    compared += 1;
                }
            }
        }
        assert_eq!(compared, 7 * 7 * 400);
    }
}
