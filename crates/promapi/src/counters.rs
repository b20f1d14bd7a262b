//! Counters read as raw values at grid points and differenced here, so a window counts each
//! counter's own change between its edges however bursty, with Prometheus' own restart rule.

/// Per-step increases from a counter's raw values at the step edges (`n + 1` values, the first
/// at the first step's start), and the restarts: a value below the last present one before it,
/// however long the gap between them. A step whose two edges are not both present has no
/// increase; a step holding a restart counts from zero (Prometheus' rule for `increase`).
pub fn deltas(raw: &[Option<f64>]) -> (Vec<Option<f64>>, Vec<f64>) {
    let n = raw.len().saturating_sub(1);
    let mut d = vec![None; n];
    let mut resets = vec![0.0; n];
    let mut last = raw.first().copied().flatten();
    for k in 0..n {
        let Some(b) = raw[k + 1] else { continue };
        if last.is_some_and(|l| b < l) {
            resets[k] = 1.0;
        }
        last = Some(b);
        d[k] = raw[k].map(|a| if b >= a { b - a } else { b });
    }
    (d, resets)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deltas_telescope_and_mark_restarts() {
        let (d, r) = deltas(&[Some(5.0), Some(8.0), None, Some(9.0), Some(2.0)]);
        assert_eq!(d, vec![Some(3.0), None, None, Some(2.0)]);
        assert_eq!(r, vec![0.0, 0.0, 0.0, 1.0]);
    }
}
