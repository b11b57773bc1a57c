//! Exact division of a `u64` by a divisor fixed when a queue is made, by one multiplication
//! (issue 25): RED's idle decay divides by 8 · mean_pkt_size · 10⁹ at every arrival that ends an
//! idle period.
//!
//! Source: Granlund & Montgomery, "Division by Invariant Integers using Multiplication" (PLDI
//! 1994), §4, Figure 4.1, with N = 64: for a divisor 2 ≤ d < 2⁶⁴ let ℓ = ⌈log₂ d⌉ and
//! m′ = ⌊2⁶⁴·(2^ℓ − d)/d⌋ + 1 (below 2⁶⁴); then for every 0 ≤ n < 2⁶⁴, with
//! t₁ = ⌊m′·n / 2⁶⁴⌋, ⌊n/d⌋ = ⌊(t₁ + ⌊(n − t₁)/2⌋) / 2^(ℓ−1)⌋. One 64×64→128-bit multiply and
//! four simple operations, where a division by a general 64-bit number is a hardware
//! division (tens of cycles) and the `strength_reduce` crate used before took two multiplies.
//! The tests compare it with `/` (`queue::red::tests`).

/// A divisor d ≥ 2 prepared for `divide`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Divisor {
    d: u64,
    /// m′ of the module doc.
    multiplier: u64,
    /// ℓ − 1.
    shift: u32,
}

impl Divisor {
    /// `d` prepared for division; `d` must be at least 2.
    pub fn new(d: u64) -> Self {
        assert!(d >= 2, "Divisor::new({d}): the divisor must be at least 2");
        // ℓ = ⌈log₂ d⌉: the bits of d − 1
        let l = 64 - (d - 1).leading_zeros();
        // 2^ℓ − d < 2⁶⁴ (2^ℓ < 2d), so its product with 2⁶⁴ fits 128 bits
        let m = ((((1u128 << l) - u128::from(d)) << 64) / u128::from(d)) + 1;
        Divisor {
            d,
            multiplier: u64::try_from(m).expect("Granlund & Montgomery: m' < 2^64"),
            shift: l - 1,
        }
    }

    /// The divisor.
    pub fn get(&self) -> u64 {
        self.d
    }

    /// ⌊n / d⌋, exactly.
    #[inline(always)]
    pub fn divide(&self, n: u64) -> u64 {
        let t1 = ((u128::from(self.multiplier) * u128::from(n)) >> 64) as u64;
        (t1 + ((n - t1) >> 1)) >> self.shift
    }
}
