//! Fairness indices over a set of flows.
//!
//! - Jain's fairness index (Jain, Chiu and Hawe, DEC-TR-301, 1984):
//!   J = (Σ x_i)² / (n · Σ x_i²), 1/n ≤ J ≤ 1 for non-negative x, 1 when all are equal.
//! - FIEB, the fairness index on excess bandwidth (Leung and Muppala, §"Performance metrics"):
//!   Jain's index applied to the excess P_i − R_i of each flow's throughput P_i over its
//!   target R_i.

/// Jain's index of `x`; `None` for an empty set or one whose squares sum to zero.
pub fn jain(x: &[f64]) -> Option<f64> {
    let n = x.len() as f64;
    let sum: f64 = x.iter().sum();
    let sum_sq: f64 = x.iter().map(|v| v * v).sum();
    (n > 0.0 && sum_sq > 0.0).then(|| sum * sum / (n * sum_sq))
}

/// FIEB of throughputs `p` against targets `r` (same units, same order).
pub fn fieb(p: &[f64], r: &[f64]) -> Option<f64> {
    debug_assert_eq!(p.len(), r.len());
    let excess: Vec<f64> = p.iter().zip(r).map(|(p, r)| p - r).collect();
    jain(&excess)
}

/// Median of `x` (mean of the two middle values for an even count); `None` if empty.
pub fn median(x: &[f64]) -> Option<f64> {
    if x.is_empty() {
        return None;
    }
    let mut v = x.to_vec();
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    Some(if v.len() % 2 == 1 {
        v[m]
    } else {
        (v[m - 1] + v[m]) / 2.0
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jain_is_one_for_equal_shares_and_one_over_n_for_a_monopoly() {
        assert_eq!(jain(&[3.0, 3.0, 3.0]), Some(1.0));
        assert_eq!(jain(&[5.0, 0.0, 0.0, 0.0]), Some(0.25));
        // (1+2+3)^2 / (3 * 14) = 36/42
        assert!((jain(&[1.0, 2.0, 3.0]).unwrap() - 36.0 / 42.0).abs() < 1e-15);
        assert_eq!(jain(&[]), None);
        assert_eq!(jain(&[0.0, 0.0]), None);
    }

    #[test]
    fn fieb_measures_the_fairness_of_the_excess_over_targets() {
        // Leung & Muppala's example: targets 1, 4, 2 Mb/s; a perfectly fair share of 9 Mb/s of
        // excess gives 4, 7, 5 Mb/s and FIEB = 1
        assert_eq!(fieb(&[4.0, 7.0, 5.0], &[1.0, 4.0, 2.0]), Some(1.0));
        // equal throughputs of 16/3 are not fair on excess: 13/3, 4/3, 10/3, so
        // FIEB = 9² / (3 · 285/9) = 729/855
        let unfair = fieb(&[16.0 / 3.0; 3], &[1.0, 4.0, 2.0]).unwrap();
        assert!((unfair - 729.0 / 855.0).abs() < 1e-12, "{unfair}");
    }

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), Some(2.5));
        assert_eq!(median(&[]), None);
    }
}
