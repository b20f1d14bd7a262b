//! The distribution every figure of the envelope and of vLLM's stats lines is quoted as.

use serde::{Deserialize, Serialize};

/// Distribution of one per-request figure. Percentiles interpolate linearly between order
/// statistics (rank p·(n−1)).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Dist {
    pub n: usize,
    pub median: f64,
    pub p10: f64,
    pub p90: f64,
    pub min: f64,
    pub max: f64,
}

impl Dist {
    pub fn of(mut v: Vec<f64>) -> Option<Dist> {
        v.retain(|x| x.is_finite());
        if v.is_empty() {
            return None;
        }
        let min = v.iter().copied().fold(f64::INFINITY, f64::min);
        let max = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        // 0.0 and -0.0 both present (only possible when 0 is in range): see below.
        let zeros_of_both_signs = min <= 0.0
            && max >= 0.0
            && v.iter().any(|x| x.to_bits() == (-0.0f64).to_bits())
            && v.iter().any(|x| x.to_bits() == 0.0f64.to_bits());
        let [median, p10, p90] = if zeros_of_both_signs {
            // 0.0 and -0.0 are equal to `f64::min` but not to the selection's order: which one
            // a quantile reads depends on the order the selections leave, so keep theirs.
            [
                numbers::quantile_in_place(&mut v, 0.5)?,
                numbers::quantile_in_place(&mut v, 0.1)?,
                numbers::quantile_in_place(&mut v, 0.9)?,
            ]
        } else {
            quantiles_nested(&mut v)
        };
        Some(Dist {
            n: v.len(),
            median,
            p10,
            p90,
            min,
            max,
        })
    }
}

/// Rank `p·(n−1)` of `n` values: the rank, and the order statistic below it.
fn rank(p: f64, n: usize) -> (f64, usize) {
    let rank = p * (n - 1) as f64;
    (rank, rank.floor() as usize)
}

/// Between the order statistics `x_lo` (at `lo`) and `x_hi` (the next), as
/// `numbers::quantile_in_place` interpolates.
fn between(rank: f64, lo: usize, x_lo: f64, x_hi: Option<f64>) -> f64 {
    let Some(x_hi) = x_hi.filter(|_| rank != lo as f64) else {
        return x_lo;
    };
    let w = rank - lo as f64;
    if w == 0.5 {
        (x_lo + x_hi) / 2.0
    } else {
        x_lo + (x_hi - x_lo) * w
    }
}

fn min_of(v: &[f64]) -> Option<f64> {
    (!v.is_empty()).then(|| v.iter().copied().fold(f64::INFINITY, f64::min))
}

/// The median, p10 and p90 of `v` (finite, not holding both 0.0 and -0.0): the values
/// `numbers::quantile_in_place` gives, the median selected over all values and p10 and p90
/// within the half below and above it (two thirds of the work of three full selections).
fn quantiles_nested(v: &mut [f64]) -> [f64; 3] {
    let n = v.len();
    let (rm, lm) = rank(0.5, n);
    let (left, &mut xm, right) = v.select_nth_unstable_by(lm, f64::total_cmp);
    let right_min = min_of(right);
    let median = between(rm, lm, xm, right_min);
    let (r10, l10) = rank(0.1, n);
    let p10 = if l10 >= lm {
        between(r10, lm, xm, right_min)
    } else {
        // Above rank l10: the rest of the lower half, the median's value, the upper half
        // (never below the median's value).
        let (_, &mut x, above) = left.select_nth_unstable_by(l10, f64::total_cmp);
        let next = above.iter().copied().fold(xm, f64::min);
        between(r10, l10, x, Some(next))
    };
    let (r90, l90) = rank(0.9, n);
    let p90 = if l90 <= lm {
        between(r90, lm, xm, right_min)
    } else {
        let (_, &mut x, above) = right.select_nth_unstable_by(l90 - lm - 1, f64::total_cmp);
        between(r90, l90, x, min_of(above))
    };
    [median, p10, p90]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The three selections `Dist::of` made before: the same values to the bit.
    fn of_by_three_selections(mut v: Vec<f64>) -> Option<Dist> {
        v.retain(|x| x.is_finite());
        if v.is_empty() {
            return None;
        }
        let min = v.iter().copied().fold(f64::INFINITY, f64::min);
        let max = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        Some(Dist {
            n: v.len(),
            median: numbers::quantile_in_place(&mut v, 0.5)?,
            p10: numbers::quantile_in_place(&mut v, 0.1)?,
            p90: numbers::quantile_in_place(&mut v, 0.9)?,
            min,
            max,
        })
    }

    fn bits(d: &Option<Dist>) -> Option<[u64; 6]> {
        d.as_ref()
            .map(|d| [d.n as f64, d.median, d.p10, d.p90, d.min, d.max].map(f64::to_bits))
    }

    #[test]
    fn nested_selection_matches_three_selections() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut cases = 0;
        for n in (0..40).chain([99, 100, 101, 1000, 1001, 4097]) {
            for kind in 0..6 {
                let v: Vec<f64> = (0..n)
                    .map(|i| match kind {
                        // Ties, ranges, specials, a sign of zero at a time, sorted runs.
                        0 => (next() % 7) as f64,
                        1 => (next() % 100_000) as f64 / 100.0,
                        2 => match next() % 9 {
                            0 => f64::NAN,
                            1 => f64::INFINITY,
                            2 => -0.0,
                            _ => (next() % 50) as f64 - 25.0,
                        },
                        3 => 0.0,
                        4 => i as f64,
                        _ => match next() % 3 {
                            0 => 0.0,
                            1 => -0.0,
                            _ => 1.0,
                        },
                    })
                    .collect();
                let want = of_by_three_selections(v.clone());
                assert_eq!(bits(&Dist::of(v)), bits(&want), "n {n}, kind {kind}");
                cases += 1;
            }
        }
        assert!(cases > 200);
    }
}
