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
        // Selection, not a sort: O(n) per quantile over a million requests.
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
}
