//! Small, exact statistics: least-squares line with a Student-t interval on its slope, medians.

/// Ordinary least-squares fit of y = intercept + slope·x.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LineFit {
    pub slope: f64,
    pub intercept: f64,
    /// Standard error of the slope.
    pub slope_se: f64,
    /// Two-sided interval on the slope at `confidence`, from the t distribution with n−2 df.
    pub slope_low: f64,
    pub slope_high: f64,
    pub confidence: f64,
    /// Number of points.
    pub n: usize,
    /// Coefficient of determination (1 when every point lies on the line; 0 for a flat cloud).
    pub r2: f64,
}

impl LineFit {
    pub fn at(&self, x: f64) -> f64 {
        self.intercept + self.slope * x
    }
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FitError {
    #[error("a line needs at least 3 points for an interval, got {0}")]
    TooFewPoints(usize),
    #[error("all x values are equal ({0}); the slope is undefined")]
    NoSpread(f64),
    #[error("point {0} is not a finite number")]
    NotFinite(usize),
}

/// Least squares over (x, y) points with a two-sided `confidence` interval on the slope.
pub fn fit_line(points: &[(f64, f64)], confidence: f64) -> Result<LineFit, FitError> {
    let n = points.len();
    if n < 3 {
        return Err(FitError::TooFewPoints(n));
    }
    if let Some(i) = points
        .iter()
        .position(|(x, y)| !x.is_finite() || !y.is_finite())
    {
        return Err(FitError::NotFinite(i));
    }
    let nf = n as f64;
    let mx = points.iter().map(|p| p.0).sum::<f64>() / nf;
    let my = points.iter().map(|p| p.1).sum::<f64>() / nf;
    let sxx: f64 = points.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let sxy: f64 = points.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let syy: f64 = points.iter().map(|p| (p.1 - my).powi(2)).sum();
    if sxx <= f64::EPSILON * mx.abs().max(1.0) * nf {
        return Err(FitError::NoSpread(mx));
    }
    let slope = sxy / sxx;
    let intercept = my - slope * mx;
    let sse: f64 = points
        .iter()
        .map(|p| (p.1 - intercept - slope * p.0).powi(2))
        .sum();
    let df = nf - 2.0;
    let slope_se = (sse / df / sxx).sqrt();
    let t = t_quantile(0.5 + confidence / 2.0, df);
    let r2 = if syy > 0.0 { 1.0 - sse / syy } else { 1.0 };
    Ok(LineFit {
        slope,
        intercept,
        slope_se,
        slope_low: slope - t * slope_se,
        slope_high: slope + t * slope_se,
        confidence,
        n,
        r2,
    })
}

/// Median of the finite values; None when there are none.
pub use numbers::median;

/// The p-quantile of Student's t with `df` degrees of freedom (df > 0, 0 < p < 1), by
/// bisection on the CDF; accurate to ~1e-10.
pub fn t_quantile(p: f64, df: f64) -> f64 {
    if p == 0.5 {
        return 0.0;
    }
    if p < 0.5 {
        return -t_quantile(1.0 - p, df);
    }
    let (mut lo, mut hi) = (0.0_f64, 1.0_f64);
    while t_cdf(hi, df) < p {
        hi *= 2.0;
        if hi > 1e12 {
            return f64::INFINITY;
        }
    }
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if t_cdf(mid, df) < p {
            lo = mid;
        } else {
            hi = mid;
        }
        if hi - lo < 1e-12 * hi.max(1.0) {
            break;
        }
    }
    0.5 * (lo + hi)
}

/// CDF of Student's t: 1 − I_{df/(df+t²)}(df/2, 1/2)/2 for t ≥ 0.
pub fn t_cdf(t: f64, df: f64) -> f64 {
    let x = df / (df + t * t);
    let tail = 0.5 * reg_inc_beta(df / 2.0, 0.5, x);
    if t >= 0.0 {
        1.0 - tail
    } else {
        tail
    }
}

/// Regularized incomplete beta I_x(a, b) (Numerical Recipes' continued fraction, Lentz).
fn reg_inc_beta(a: f64, b: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let ln_front = ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * (1.0 - x).ln();
    if x < (a + 1.0) / (a + b + 2.0) {
        ln_front.exp() * beta_cf(a, b, x) / a
    } else {
        1.0 - ln_front.exp() * beta_cf(b, a, 1.0 - x) / b
    }
}

fn beta_cf(a: f64, b: f64, x: f64) -> f64 {
    const TINY: f64 = 1e-300;
    let (qab, qap, qam) = (a + b, a + 1.0, a - 1.0);
    let mut c = 1.0;
    let mut d = 1.0 - qab * x / qap;
    if d.abs() < TINY {
        d = TINY;
    }
    d = 1.0 / d;
    let mut h = d;
    for m in 1..=300 {
        let m = m as f64;
        let m2 = 2.0 * m;
        let aa = m * (b - m) * x / ((qam + m2) * (a + m2));
        d = 1.0 + aa * d;
        if d.abs() < TINY {
            d = TINY;
        }
        c = 1.0 + aa / c;
        if c.abs() < TINY {
            c = TINY;
        }
        d = 1.0 / d;
        h *= d * c;
        let aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
        d = 1.0 + aa * d;
        if d.abs() < TINY {
            d = TINY;
        }
        c = 1.0 + aa / c;
        if c.abs() < TINY {
            c = TINY;
        }
        d = 1.0 / d;
        let del = d * c;
        h *= del;
        if (del - 1.0).abs() < 1e-15 {
            break;
        }
    }
    h
}

/// ln Γ(x) for x > 0 (Lanczos, g = 7, n = 9; ~1e-15 relative).
fn ln_gamma(x: f64) -> f64 {
    const G: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        let pi = std::f64::consts::PI;
        return (pi / (pi * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut a = G[0];
    let t = x + 7.5;
    for (i, g) in G.iter().enumerate().skip(1) {
        a += g / (x + i as f64);
    }
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + a.ln()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn t_quantiles_match_tables() {
        // Two-sided 95 % critical values from standard tables.
        let cases = [
            (1.0, 12.706_204_736),
            (2.0, 4.302_652_730),
            (5.0, 2.570_581_836),
            (10.0, 2.228_138_852),
            (30.0, 2.042_272_456),
            (1000.0, 1.962_339_081),
        ];
        for (df, want) in cases {
            let got = t_quantile(0.975, df);
            assert!((got - want).abs() < 1e-6, "df {df}: {got} vs {want}");
        }
        assert!((t_quantile(0.995, 4.0) - 4.604_094_871).abs() < 1e-6);
        assert!((t_quantile(0.025, 10.0) + 2.228_138_852).abs() < 1e-6);
    }

    #[test]
    fn exact_lines_are_recovered() {
        let cases = [(2.0, 1.0), (-0.5, 100.0), (0.0, 7.0), (-0.0123, 250.0)];
        for (slope, intercept) in cases {
            let pts: Vec<(f64, f64)> = [64.0, 512.0, 1024.0, 2048.0, 4096.0]
                .iter()
                .map(|&x| (x, intercept + slope * x))
                .collect();
            let f = fit_line(&pts, 0.95).unwrap();
            assert!((f.slope - slope).abs() < 1e-9, "{f:?}");
            assert!((f.intercept - intercept).abs() < 1e-6, "{f:?}");
            assert!(f.slope_high - f.slope_low < 1e-9, "{f:?}");
        }
    }

    #[test]
    fn known_noisy_line_matches_reference() {
        // Hand-computed: mean x 3, mean y 6.04, Sxx 10, Sxy 19.7 → slope 1.97, intercept 0.13,
        // SSE 0.083, se = sqrt(SSE/(n−2)/Sxx); t(0.975, 3) = 3.182446305 from tables.
        let pts = [(1.0, 2.0), (2.0, 4.3), (3.0, 5.9), (4.0, 8.0), (5.0, 10.0)];
        let f = fit_line(&pts, 0.95).unwrap();
        assert!((f.slope - 1.97).abs() < 1e-12);
        assert!((f.intercept - 0.13).abs() < 1e-12);
        let se = (0.083_f64 / 3.0 / 10.0).sqrt();
        assert!((f.slope_se - se).abs() < 1e-12, "{}", f.slope_se);
        let t = 3.182_446_305;
        assert!((f.slope_low - (1.97 - t * se)).abs() < 1e-8);
        assert!((f.slope_high - (1.97 + t * se)).abs() < 1e-8);
    }

    #[test]
    fn flat_noise_interval_straddles_zero() {
        // Deterministic ±noise around a flat 50 tok/s; the interval must contain 0.
        let mut pts = Vec::new();
        let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
        for &x in &[256.0, 1024.0, 4096.0, 8192.0, 16384.0] {
            for _ in 0..3 {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                let noise = ((state >> 33) as f64 / (1u64 << 31) as f64 - 0.5) * 2.0;
                pts.push((x, 50.0 + noise));
            }
        }
        let f = fit_line(&pts, 0.95).unwrap();
        assert!(f.slope_low < 0.0 && f.slope_high > 0.0, "{f:?}");
        assert!(f.at(16384.0) > 48.0 && f.at(16384.0) < 52.0);
    }

    #[test]
    fn bad_inputs_are_errors() {
        assert_eq!(
            fit_line(&[(1.0, 1.0), (2.0, 2.0)], 0.95),
            Err(FitError::TooFewPoints(2))
        );
        assert_eq!(
            fit_line(&[(5.0, 1.0), (5.0, 2.0), (5.0, 3.0)], 0.95),
            Err(FitError::NoSpread(5.0))
        );
        assert_eq!(
            fit_line(&[(1.0, 1.0), (2.0, f64::NAN), (3.0, 3.0)], 0.95),
            Err(FitError::NotFinite(1))
        );
    }

    #[test]
    fn medians() {
        assert_eq!(median(&[]), None);
        assert_eq!(median(&[3.0]), Some(3.0));
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), Some(2.5));
        assert_eq!(median(&[f64::NAN, 1.0]), Some(1.0));
    }
}
