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
        // Both folds in one pass (each still meets the values in their order).
        let (min, max) = v
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &x| {
                (lo.min(x), hi.max(x))
            });
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
        } else if v.len() >= RADIX_MIN && u32::try_from(v.len()).is_ok() {
            quantiles_radix(&v)
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

/// From this many values on, [`Dist::of`] finds its order statistics by [`order_stats`] (two
/// passes and small selections) instead of selecting in place.
const RADIX_MIN: usize = 1 << 16;

/// The median, p10 and p90 of `v` (finite, not holding both 0.0 and -0.0, at most `u32::MAX`
/// values): what [`quantiles_nested`] gives (each is the same interpolation between the same
/// two order statistics), from [`order_stats`].
fn quantiles_radix(v: &[f64]) -> [f64; 3] {
    let n = v.len();
    let ranks = [0.5, 0.1, 0.9].map(|p| rank(p, n));
    // Each quantile's order statistic and the next (where there is one).
    let want = ranks.map(|(_, lo)| [lo, (lo + 1).min(n - 1)]);
    let x = order_stats(v, want.as_flattened());
    std::array::from_fn(|i| {
        let (r, lo) = ranks[i];
        let hi = (lo + 1 < n).then_some(x[2 * i + 1]);
        between(r, lo, x[2 * i], hi)
    })
}

/// `x`'s place in `f64::total_cmp`'s order, as an unsigned integer (the order of the keys is
/// that order): the sign bit flipped, and the other bits too for a negative number.
#[inline(always)]
fn order_key(x: f64) -> u64 {
    let b = x.to_bits();
    b ^ ((((b as i64) >> 63) as u64) >> 1) ^ (1 << 63)
}

/// The inverse of [`order_key`].
fn from_order_key(k: u64) -> f64 {
    let b = k ^ (1 << 63);
    f64::from_bits(b ^ ((((b as i64) >> 63) as u64) >> 1))
}

/// The values of ranks `ks` (each below `v.len()`, which is at most `u32::MAX`) in `v` ordered
/// by `f64::total_cmp`, exactly what selecting each rank would give: a count of the values per
/// 16-bit key prefix, then the values of the prefixes that hold a wanted rank (a small part of
/// `v`, unless the values crowd into few prefixes), selected by their keys. Two passes over
/// `v` and small selections instead of selections that move the whole vector about.
fn order_stats(v: &[f64], ks: &[usize]) -> Vec<f64> {
    const BITS: u32 = 16;
    let mut count = vec![0u32; 1 << BITS];
    for &x in v {
        count[(order_key(x) >> (64 - BITS)) as usize] += 1;
    }
    // For each wanted rank: its prefix, and its rank among that prefix's values.
    // One walk over the counts, the ranks taken in increasing order.
    let mut order: Vec<usize> = (0..ks.len()).collect();
    order.sort_unstable_by_key(|&j| ks[j]);
    let mut at = vec![(0usize, 0usize); ks.len()];
    let (mut below, mut b) = (0usize, 0usize);
    for j in order {
        let k = ks[j];
        while b < count.len() && below + count[b] as usize <= k {
            below += count[b] as usize;
            b += 1;
        }
        at[j] = (b, k - below);
    }
    // The keys of each distinct prefix wanted, gathered in one pass.
    let mut prefixes: Vec<usize> = at.iter().map(|a| a.0).collect();
    prefixes.sort_unstable();
    prefixes.dedup();
    let mut slot = vec![u8::MAX; 1 << BITS];
    let mut keys: Vec<Vec<u64>> = Vec::with_capacity(prefixes.len());
    for (i, &b) in prefixes.iter().enumerate() {
        slot[b] = i as u8;
        keys.push(Vec::with_capacity(count[b] as usize));
    }
    for &x in v {
        let k = order_key(x);
        let s = slot[(k >> (64 - BITS)) as usize];
        if s != u8::MAX {
            keys[s as usize].push(k);
        }
    }
    at.iter()
        .map(|&(b, r)| {
            let s = slot[b] as usize;
            let (_, &mut k, _) = keys[s].select_nth_unstable(r);
            from_order_key(k)
        })
        .collect()
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

    /// A xorshift64 stream from `seed`: test values, the same every run.
    fn xorshift(mut x: u64) -> impl FnMut() -> u64 {
        move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        }
    }

    fn bits(d: &Option<Dist>) -> Option<[u64; 6]> {
        d.as_ref()
            .map(|d| [d.n as f64, d.median, d.p10, d.p90, d.min, d.max].map(f64::to_bits))
    }

    #[test]
    fn nested_selection_matches_three_selections() {
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15u64);
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

    #[test]
    fn order_keys_sort_as_total_cmp() {
        let xs = [
            f64::NEG_INFINITY,
            -1e300,
            -2.5,
            -f64::MIN_POSITIVE,
            -0.0,
            0.0,
            f64::MIN_POSITIVE / 4.0,
            1.0,
            3.25,
            f64::MAX,
            f64::INFINITY,
        ];
        for w in xs.windows(2) {
            assert!(order_key(w[0]) < order_key(w[1]), "{} {}", w[0], w[1]);
        }
        for x in xs {
            assert_eq!(from_order_key(order_key(x)).to_bits(), x.to_bits());
        }
    }

    #[test]
    fn radix_selection_matches_nested_selection() {
        let mut next = xorshift(0x2545_f491_4f6c_dd1du64);
        let mut cases = 0;
        for n in (1..70).chain([99, 100, 101, 1000, 1001, 4095, 4096, 4097, 70_001]) {
            for kind in 0..7 {
                let v: Vec<f64> = (0..n)
                    .map(|i| match kind {
                        // Ties, ranges, negatives, one value, sorted runs, crowded prefixes,
                        // a spread of magnitudes.
                        0 => (next() % 7) as f64,
                        1 => (next() % 100_000) as f64 / 100.0,
                        2 => (next() % 50) as f64 - 25.0,
                        3 => 20.0,
                        4 => i as f64,
                        5 => 9.0 + (next() % 1000) as f64 / 1e6,
                        _ => f64::from_bits(next() >> 2) * if i % 2 == 0 { 1.0 } else { -1.0 },
                    })
                    .filter(|x| x.is_finite())
                    .collect();
                if v.is_empty() {
                    continue;
                }
                let want = quantiles_nested(&mut v.clone()).map(f64::to_bits);
                assert_eq!(
                    quantiles_radix(&v).map(f64::to_bits),
                    want,
                    "n {n}, kind {kind}"
                );
                cases += 1;
            }
        }
        assert!(cases > 500);
    }
}
