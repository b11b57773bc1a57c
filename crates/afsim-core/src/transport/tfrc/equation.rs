//! The TCP throughput equation TFRC sends by, and its inverse.
//!
//! Read this first: RFC 5348 §3.1 gives the sending rate, in bytes per second, of a TCP flow
//! with segment size s, round-trip time R and loss event rate p:
//!
//! ```text
//!                                 s
//!   X_Bps = ----------------------------------------------------------
//!           R*sqrt(2*b*p/3) + (t_RTO * (3*sqrt(3*b*p/8)*p*(1+32*p^2)))
//! ```
//!
//! with b = 1 packet per ACK and t_RTO = 4R (the values §3.1 says implementations use).
//! ns-2.35's `p_to_b` (formula.h) is the same equation with Padhye's min(1, 3·sqrt(3bp/8)) in the
//! second term, any t_RTO, and a ceiling of 25 MB/s (`MAXRATE`, also its answer for p = 0).
//! The inverse gives the loss event rate at which the equation allows a given rate, for the
//! receiver's synthetic first loss interval (RFC 5348 §6.3.1; ns-2 `b_to_p`).

/// b of §3.1: packets acknowledged by one TCP ACK.
pub const B: f64 = 1.0;

/// ns-2 formula.h `MAXRATE`: the largest rate `p_to_b` returns, bytes per second.
pub const NS2_MAX_RATE: f64 = 25_000_000.0;

/// RFC 5348 §3.1 with any t_RTO and b: bytes per second. `p` must be positive.
pub fn x_bps(s: f64, r: f64, p: f64, t_rto: f64, b: f64) -> f64 {
    debug_assert!(p > 0.0);
    s / (r * (2.0 * b * p / 3.0).sqrt()
        + t_rto * (3.0 * (3.0 * b * p / 8.0).sqrt() * p * (1.0 + 32.0 * p * p)))
}

/// RFC 5348 §3.1 as the RFC's sender uses it: t_RTO = 4R, b = 1.
pub fn x_rfc(s: f64, r: f64, p: f64) -> f64 {
    x_bps(s, r, p, 4.0 * r, B)
}

/// ns-2.35 formula.h `p_to_b(p, rtt, tzero, psize, bval)`: bytes per second, at most
/// `NS2_MAX_RATE`, which is also the answer for p or rtt below zero and for a denominator
/// below 1e-7 (so for p = 0).
pub fn x_ns2(p: f64, rtt: f64, tzero: f64, s: f64, b: f64) -> f64 {
    if p < 0.0 || rtt < 0.0 {
        return NS2_MAX_RATE;
    }
    let first = rtt * (2.0 * b * p / 3.0).sqrt();
    let second = (3.0 * (3.0 * b * p / 8.0).sqrt()).min(1.0) * tzero * p * (1.0 + 32.0 * p * p);
    let denominator = first + second;
    if denominator < 1e-7 {
        return NS2_MAX_RATE;
    }
    (s / denominator).min(NS2_MAX_RATE)
}

/// The loss event rate at which `x_rfc(s, r, p)` equals `x_target` (RFC 5348 §6.3.1 asks for
/// a p giving a rate within 5 % of the target; this one is exact to 1e-12 relative, by
/// bisection: the rate falls as p grows). A target the equation cannot reach even at p = 1
/// gives 1; a target it exceeds for every p > 0 gives the smallest p tried, 1e-12.
pub fn p_for_rate_rfc(s: f64, r: f64, x_target: f64) -> f64 {
    let (mut lo, mut hi) = (1e-12_f64, 1.0_f64);
    if x_rfc(s, r, hi) >= x_target {
        return hi;
    }
    if x_rfc(s, r, lo) <= x_target {
        return lo;
    }
    // invariant: x(lo) > target > x(hi); bisect on log p, where the equation is smooth
    for _ in 0..200 {
        let mid = (lo * hi).sqrt();
        if x_rfc(s, r, mid) > x_target {
            lo = mid;
        } else {
            hi = mid;
        }
        if hi / lo - 1.0 < 1e-12 {
            break;
        }
    }
    (lo * hi).sqrt()
}

/// ns-2.35 formula-with-inverse.h `b_to_p(b, rtt, tzero, psize, bval)`: a halving search from
/// p = 0.5 in steps of 0.25, 0.125, ..., stopping at the first p whose rate is within 5 % of
/// the target, or after 31 steps.
pub fn p_for_rate_ns2(x_target: f64, rtt: f64, tzero: f64, s: f64, b: f64) -> f64 {
    let (mut p, mut step) = (0.5, 0.25);
    for _ in 0..=30 {
        let x = x_ns2(p, rtt, tzero, s, b);
        if x > 0.95 * x_target && x < 1.05 * x_target {
            return p;
        }
        if x > x_target {
            p += step;
        } else {
            p -= step;
        }
        step /= 2.0;
    }
    p
}

#[cfg(test)]
mod tests {
    use super::super::test_util::close;
    use super::*;

    // Each value below is worked by hand from RFC 5348 §3.1 with t_RTO = 4R and b = 1:
    // X = s / (R·sqrt(2p/3) + 4R·3·sqrt(3p/8)·p·(1 + 32p²)).

    #[test]
    fn equation_at_one_percent_and_100_ms() {
        // s = 1000 B, R = 0.1 s, p = 0.01:
        //   R·sqrt(2p/3) = 0.1 × sqrt(0.0066667) = 0.1 × 0.0816497 = 0.00816497
        //   3·sqrt(3p/8) = 3 × sqrt(0.00375) = 3 × 0.0612372 = 0.183712
        //   p·(1 + 32p²) = 0.01 × 1.0032 = 0.010032
        //   4R × 0.183712 × 0.010032 = 0.4 × 0.00184300 = 0.000737198
        //   X = 1000 / (0.00816497 + 0.000737198) = 1000 / 0.00890217 = 112 332 B/s
        assert!(
            close(x_rfc(1000.0, 0.1, 0.01), 112_332.2, 1e-5),
            "{}",
            x_rfc(1000.0, 0.1, 0.01)
        );
    }

    #[test]
    fn equation_at_a_tenth_of_a_percent_and_50_ms() {
        // s = 1460 B, R = 0.05 s, p = 0.001:
        //   R·sqrt(2p/3) = 0.05 × 0.0258199 = 0.00129099
        //   3·sqrt(3p/8) = 3 × 0.0193649 = 0.0580948; p·(1 + 32p²) = 0.001000032
        //   4R × 0.0580948 × 0.001000032 = 0.2 × 0.0000580967 = 0.0000116193
        //   X = 1460 / 0.00130261 = 1 120 823 B/s
        assert!(close(x_rfc(1460.0, 0.05, 0.001), 1_120_823.0, 1e-5));
    }

    #[test]
    fn equation_at_ten_percent_and_200_ms() {
        // s = 968 B, R = 0.2 s, p = 0.1:
        //   R·sqrt(2p/3) = 0.2 × 0.258199 = 0.0516398
        //   3·sqrt(3p/8) = 3 × 0.193649 = 0.580948; p·(1 + 32p²) = 0.1 × 1.32 = 0.132
        //   4R × 0.580948 × 0.132 = 0.8 × 0.0766851 = 0.0613481
        //   X = 968 / (0.0516398 + 0.0613481) = 968 / 0.112988 = 8567.3 B/s
        assert!(close(x_rfc(968.0, 0.2, 0.1), 8567.3, 1e-5));
    }

    #[test]
    fn the_rate_scales_with_s_and_inversely_with_r() {
        let base = x_rfc(1000.0, 0.1, 0.02);
        assert!(close(x_rfc(2000.0, 0.1, 0.02), 2.0 * base, 1e-12));
        assert!(close(x_rfc(1000.0, 0.2, 0.02), base / 2.0, 1e-12));
        assert!(x_rfc(1000.0, 0.1, 0.03) < base, "more loss, less rate");
    }

    #[test]
    fn ns2_caps_the_timeout_term_and_the_rate() {
        // p = 0.3: 3·sqrt(3 × 0.3/8) = 3 × 0.335410 = 1.00623, which ns-2 caps at 1
        let (s, r, p) = (1000.0_f64, 0.1_f64, 0.3_f64);
        let by_hand = s / (r * (2.0 * p / 3.0).sqrt() + 1.0 * 0.4 * p * (1.0 + 32.0 * p * p));
        assert!(close(x_ns2(p, r, 0.4, s, 1.0), by_hand, 1e-12));
        assert!(
            x_ns2(p, r, 0.4, s, 1.0) > x_bps(s, r, p, 0.4, 1.0),
            "the cap raises the rate"
        );
        // below the cap it is the RFC equation with ns-2's tzero
        assert!(close(
            x_ns2(0.01, 0.1, 0.4, 1000.0, 1.0),
            x_rfc(1000.0, 0.1, 0.01),
            1e-12
        ));
        assert_eq!(x_ns2(0.0, 0.1, 0.4, 1000.0, 1.0), NS2_MAX_RATE);
        assert_eq!(x_ns2(1e-9, 0.0001, 0.0, 1000.0, 1.0), NS2_MAX_RATE);
    }

    #[test]
    fn the_inverse_finds_the_p_of_a_rate() {
        for p in [1e-4, 0.003, 0.02, 0.1, 0.4] {
            let x = x_rfc(1460.0, 0.08, p);
            let back = p_for_rate_rfc(1460.0, 0.08, x);
            assert!(close(back, p, 1e-9), "p {p} came back as {back}");
        }
        assert_eq!(
            p_for_rate_rfc(1000.0, 0.1, 1.0),
            1.0,
            "a rate below x(1) gives 1"
        );
    }

    #[test]
    fn ns2_inverse_stops_within_five_percent() {
        let (s, r, t0) = (1000.0, 0.1, 0.5);
        for target in [1e4, 5e4, 2e5] {
            let p = p_for_rate_ns2(target, r, t0, s, 1.0);
            let x = x_ns2(p, r, t0, s, 1.0);
            assert!(
                x > 0.95 * target && x < 1.05 * target,
                "target {target}: p {p} gives {x}"
            );
        }
        // the first probe, p = 0.5, is accepted when it is within 5 %
        let x_half = x_ns2(0.5, r, t0, s, 1.0);
        assert_eq!(p_for_rate_ns2(x_half, r, t0, s, 1.0), 0.5);
    }
}
