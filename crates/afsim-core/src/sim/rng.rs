//! Seeded random streams, one per component.
//!
//! Read this first: every component that needs randomness owns a `Rng` made by
//! `stream(seed, name)`, where `name` is the component's stable name in the scenario
//! (`"flow/cbr3"`, `"queue/r1->r2"`). The stream depends only on the run seed and that name, so
//! adding a flow does not change the numbers any other component draws. The generator is
//! xoshiro256++ (rand_xoshiro); the name is hashed with FNV-1a 64 and the pair is expanded to the
//! 256-bit state by SplitMix64, as the xoshiro authors recommend for seeding.

use rand_core::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// A component's random stream.
#[derive(Clone, Debug)]
pub struct Rng(Xoshiro256PlusPlus);

/// FNV-1a, 64-bit: a stable hash (unlike `std`'s, it never changes between Rust versions).
/// Its offset basis, the hash of nothing.
const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

/// FNV-1a of `bytes` from the hash `h` of what came before them (`FNV_OFFSET` for nothing):
/// the hash of a concatenation is the hash of its parts one after the other.
fn fnv1a64(mut h: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// The random stream of component `name` in a run seeded with `seed`.
pub fn stream(seed: u64, name: &str) -> Rng {
    stream_of(seed, &[name])
}

/// `stream(seed, name)` for the name that is `parts` one after the other, without making the
/// name (issue 28: a world's build names two streams a flow and one a lossy link or random
/// queue; formatting each name was a tenth of the build at 100,000 flows).
pub fn stream_of(seed: u64, parts: &[&str]) -> Rng {
    let h = parts
        .iter()
        .fold(FNV_OFFSET, |h, p| fnv1a64(h, p.as_bytes()));
    let mixed = seed ^ h.rotate_left(17);
    Rng(Xoshiro256PlusPlus::seed_from_u64(mixed))
}

impl Rng {
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// Uniform in [0, 1), 53 bits of precision.
    #[inline]
    pub fn uniform(&mut self) -> f64 {
        (self.0.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Exponentially distributed with the given mean.
    pub fn exponential(&mut self, mean: f64) -> f64 {
        -mean * (1.0 - self.uniform()).ln()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stream_named_by_parts_is_the_stream_of_their_concatenation() {
        for parts in [
            &["flow/", "tcp12", "/receiver"][..],
            &["link/", "a", "->", "b"],
            &[],
            &[""],
        ] {
            let mut a = stream_of(9, parts);
            let mut b = stream(9, &parts.concat());
            assert_eq!((a.next_u64(), a.next_u64()), (b.next_u64(), b.next_u64()));
        }
        assert_ne!(
            stream_of(9, &["flow/a"]).next_u64(),
            stream_of(9, &["flow/b"]).next_u64()
        );
    }

    #[test]
    fn same_seed_and_name_give_the_same_stream() {
        let mut a = stream(7, "flow/a");
        let mut b = stream(7, "flow/a");
        for _ in 0..100 {
            assert_eq!(a.next_u64(), b.next_u64());
        }
    }

    #[test]
    fn different_names_or_seeds_give_different_streams() {
        let first = |s: u64, n: &str| stream(s, n).next_u64();
        assert_ne!(first(7, "flow/a"), first(7, "flow/b"));
        assert_ne!(first(7, "flow/a"), first(8, "flow/a"));
    }

    #[test]
    fn uniform_stays_in_unit_interval_with_mean_near_half() {
        let mut r = stream(1, "x");
        let n = 100_000;
        let mut sum = 0.0;
        for _ in 0..n {
            let u = r.uniform();
            assert!((0.0..1.0).contains(&u));
            sum += u;
        }
        assert!((sum / n as f64 - 0.5).abs() < 0.01);
    }
}
