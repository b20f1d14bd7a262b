//! Order statistics, written once: the median and the quantile that fleet, loadgen, regress,
//! hostmem and telemetry read, so one figure means the same thing in every command; and in
//! [`fmt`], the one way a figure is printed (significant figures, percentages, latencies).
//!
//! Non-finite values (NaN, ±inf) are left out: a failed measurement is not a very large or very
//! small one. A quantile interpolates linearly between the order statistics around rank
//! p·(n−1) (Hyndman and Fan's type 7, numpy's and R's default), so the median of an even count
//! is the mean of the middle two.

pub mod fmt;

/// The median of the finite values; None when there are none.
pub fn median(values: &[f64]) -> Option<f64> {
    quantile(values, 0.5)
}

/// The p-quantile (0 ≤ p ≤ 1) of the finite values; None when there are none or p is outside
/// [0, 1].
pub fn quantile(values: &[f64], p: f64) -> Option<f64> {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    quantile_in_place(&mut v, p)
}

/// [`quantile`] on a buffer the caller owns, reordered in place (no copy, no full sort: a
/// selection in O(n)); for large series. Every value must be finite.
pub fn quantile_in_place(v: &mut [f64], p: f64) -> Option<f64> {
    if v.is_empty() || !(0.0..=1.0).contains(&p) {
        return None;
    }
    let rank = p * (v.len() - 1) as f64;
    let lo = rank.floor() as usize;
    let (_, &mut x_lo, right) = v.select_nth_unstable_by(lo, f64::total_cmp);
    if rank == lo as f64 || right.is_empty() {
        return Some(x_lo);
    }
    // The next order statistic is the smallest of those above.
    let x_hi = right.iter().copied().fold(f64::INFINITY, f64::min);
    let w = rank - lo as f64;
    // Halfway (an even count's median) as the mean of the two, the form every caller had.
    Some(if w == 0.5 {
        (x_lo + x_hi) / 2.0
    } else {
        x_lo + (x_hi - x_lo) * w
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), Some(2.5));
        assert_eq!(median(&[7.0]), Some(7.0));
        assert_eq!(median(&[]), None);
    }

    #[test]
    fn non_finite_values_are_left_out() {
        assert_eq!(median(&[f64::NAN, 1.0, f64::INFINITY, 3.0]), Some(2.0));
        assert_eq!(median(&[f64::NAN]), None);
    }

    #[test]
    fn quantile_interpolates_between_order_statistics() {
        // numpy.quantile([10, 20, 30, 40, 50], [0, .1, .25, .9, 1]) = 10, 14, 20, 46, 50.
        let v = [50.0, 10.0, 40.0, 20.0, 30.0];
        for (p, want) in [
            (0.0, 10.0),
            (0.1, 14.0),
            (0.25, 20.0),
            (0.9, 46.0),
            (1.0, 50.0),
        ] {
            let got = quantile(&v, p).unwrap();
            assert!((got - want).abs() < 1e-12, "p={p}: {got} != {want}");
        }
        assert_eq!(quantile(&v, 1.5), None);
        assert_eq!(quantile(&v, -0.1), None);
    }

    #[test]
    fn in_place_agrees_with_a_full_sort() {
        let mut x = 0x2545_f491_4f6c_dd1d_u64;
        let v: Vec<f64> = (0..1001)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x % 10_000) as f64
            })
            .collect();
        let mut sorted = v.clone();
        sorted.sort_by(f64::total_cmp);
        for p in [0.0f64, 0.01, 0.5, 0.9, 0.99, 1.0] {
            let rank = p * 1000.0;
            let (lo, hi) = (rank.floor() as usize, rank.ceil() as usize);
            let want = sorted[lo] + (sorted[hi] - sorted[lo]) * (rank - lo as f64);
            assert_eq!(quantile_in_place(&mut v.clone(), p), Some(want), "p={p}");
        }
    }
}
