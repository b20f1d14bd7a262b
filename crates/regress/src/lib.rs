//! Statistics for `headroom regress`: is the latest set of bench samples slower than the
//! baseline, by how much, and since which version?
//!
//! Pure: values in, values out. The test for each metric is two-fold, because bench samples are
//! few (3–10 per side) and their noise is not normal:
//!
//! * a percentile **bootstrap interval on the ratio of medians** (latest / baseline), with a
//!   fixed seed so the same samples always give the same interval ([`BOOTSTRAP_SEED`],
//!   [`BOOTSTRAP_RESAMPLES`]);
//! * a two-sided **Mann-Whitney U** test (exact distribution without ties, normal approximation
//!   with tie correction otherwise).
//!
//! A metric moved only when both hold: the U test rejects at `1 − confidence`, and the whole
//! interval lies beyond the noise floor (`Config::threshold`: outside [1 − t, 1 + t]), so the
//! move is larger than the floor with that confidence. Anything less is "no change beyond
//! noise". The floor matters because runs of two versions cannot be interleaved: slow drift of
//! the machine between them (load, clocks, thermals) shifts every sample of one side alike,
//! which neither test can tell from a real change.

pub mod identity;
pub mod report;
pub mod runs;
pub mod sequential;
pub mod series;

pub use identity::{diff, Change};
pub use report::{regress, Query, RegressDoc, RegressError};
pub use runs::{BenchRun, Group};
pub use sequential::BenchPairDoc;
pub use series::{version_series, Boundary, SeriesPoint, SeriesReport, VersionSamples};

use numbers::fmt::{percent, percent_signed};
use serde::{Deserialize, Serialize};

/// Seed of the bootstrap's generator: the bytes of "headroom". Fixed, so a report is
/// reproducible from its samples.
pub const BOOTSTRAP_SEED: u64 = 0x6865_6164_726f_6f6d;
/// Resamples per interval.
pub const BOOTSTRAP_RESAMPLES: usize = 4000;
/// Above this many observations per side the exact U distribution is not tabulated.
const EXACT_U_MAX: usize = 40;

/// Which way is good for a metric.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Better {
    /// Throughput (tok/s): a lower latest value is a regression.
    Higher,
    /// Latency (ms): a higher latest value is a regression.
    Lower,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Regressed,
    Improved,
    Unchanged,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Regressed => "regressed",
            Verdict::Improved => "improved",
            Verdict::Unchanged => "unchanged",
        }
    }
}

/// How strict a comparison is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Config {
    /// Two-sided confidence of the interval; the U test rejects at `1 − confidence`.
    pub confidence: f64,
    /// Noise floor (0.05 = 5 %): the interval on the ratio must lie wholly outside
    /// [1 − threshold, 1 + threshold] for a metric to have moved.
    pub threshold: f64,
    pub resamples: usize,
    pub seed: u64,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            confidence: 0.95,
            threshold: 0.05,
            resamples: BOOTSTRAP_RESAMPLES,
            seed: BOOTSTRAP_SEED,
        }
    }
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum StatsError {
    #[error("the {side} has no samples")]
    Empty { side: &'static str },
    #[error("the {side}'s sample {index} is not a finite number ({value})")]
    NotFinite {
        side: &'static str,
        index: usize,
        value: f64,
    },
    #[error("the baseline median is {0}: a ratio to it is undefined")]
    ZeroBaseline(f64),
    #[error("confidence {0} is not between 0 and 1")]
    BadConfidence(f64),
    #[error("paired samples need as many on each side: {baseline} baseline, {latest} latest")]
    Unpaired { baseline: usize, latest: usize },
    #[error("the {side}'s sample {index} is {value}: a ratio to it is undefined")]
    NotPositive {
        side: &'static str,
        index: usize,
        value: f64,
    },
}

/// Mann-Whitney U of `a` against `b`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct MannWhitney {
    /// U of the first sample: pairs (a, b) with a > b, ties counting one half.
    pub u: f64,
    /// Two-sided p-value.
    pub p: f64,
    /// "exact" (no ties, small samples) or "normal" (tie-corrected, continuity-corrected).
    pub method: &'static str,
}

/// The rank test that decided a comparison: Mann-Whitney U for two independent samples, the
/// Wilcoxon signed-rank test for samples taken in pairs (two servers in alternation).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RankTest {
    /// "Mann-Whitney U" or "Wilcoxon signed-rank".
    pub name: &'static str,
    /// U of the baseline sample, or W+ (the rank sum of pairs where latest > baseline).
    pub statistic: f64,
    /// Two-sided p-value.
    pub p: f64,
    /// "exact" or "normal".
    pub method: &'static str,
}

impl From<MannWhitney> for RankTest {
    fn from(m: MannWhitney) -> Self {
        RankTest {
            name: MANN_WHITNEY,
            statistic: m.u,
            p: m.p,
            method: m.method,
        }
    }
}

pub const MANN_WHITNEY: &str = "Mann-Whitney U";
pub const WILCOXON: &str = "Wilcoxon signed-rank";

/// How the two samples were taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Design {
    /// Runs apart: any sample of one side against any of the other.
    Independent,
    /// Sample i of each side taken back to back (two servers in alternation): the ratio of
    /// each pair cancels the machine's drift between pairs.
    Paired,
}

/// One metric, baseline against latest.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    pub baseline: f64,
    pub latest: f64,
    /// latest median / baseline median.
    /// Independent: median(latest) / median(baseline). Paired: the median of the pairs'
    /// ratios.
    pub ratio: f64,
    /// Bootstrap interval on the ratio at `confidence`: the interval that decided the verdict
    /// (for a metric of a family, at its Holm level, so wider than the nominal confidence).
    pub low: f64,
    pub high: f64,
    pub confidence: f64,
    /// The smallest slowdown (a fraction, in the bad direction) that these samples would have
    /// called `regressed`: the latest samples scaled by it, with the same noise, would clear
    /// both the U test and the noise floor. None when no slowdown below 95 % would (too few
    /// samples for the test's level).
    pub detectable: Option<f64>,
    pub n_baseline: usize,
    pub n_latest: usize,
    pub test: RankTest,
    pub better: Better,
    /// Independent or paired samples.
    #[serde(skip)]
    pub design: Design,
    pub verdict: Verdict,
    /// Why the verdict is what it is, in one clause (e.g. "interval includes 1").
    pub reason: String,
}

impl Comparison {
    /// The change in the bad direction as a fraction, with its interval, ordered low ≤ high:
    /// for throughput 1 − ratio (0.52 = "52 % slower"), for latency ratio − 1.
    pub fn slowdown(&self) -> (f64, f64, f64) {
        match self.better {
            Better::Higher => (1.0 - self.ratio, 1.0 - self.high, 1.0 - self.low),
            Better::Lower => (self.ratio - 1.0, self.low - 1.0, self.high - 1.0),
        }
    }

    /// "regressed by 52 % (95 % CI 48 %–55 %)", "improved by 8 % (95 % CI 5 %–11 %)" or
    /// "no change beyond noise (-1 %, 95 % CI -4 %–+3 %)" (percentages by `numbers::fmt`).
    pub fn sentence(&self) -> String {
        let (s, lo, hi) = self.slowdown();
        let conf = conf_text(self.confidence);
        match self.verdict {
            Verdict::Regressed => format!(
                "regressed by {} ({conf} % CI {}–{})",
                percent(s),
                percent(lo),
                percent(hi)
            ),
            Verdict::Improved => format!(
                "improved by {} ({conf} % CI {}–{})",
                percent(-s),
                percent(-hi),
                percent(-lo)
            ),
            Verdict::Unchanged => format!(
                "no change beyond noise ({}, {conf} % CI {}–{}; {}; {})",
                percent_signed(-s),
                percent_signed(-hi),
                percent_signed(-lo),
                self.reason,
                match self.detectable {
                    Some(d) => format!(
                        "could have detected a slowdown of ≥ {}",
                        percent(d.max(0.01))
                    ),
                    None => "these samples could not have detected any slowdown".into(),
                }
            ),
        }
    }
}

/// A confidence as a percentage: "95", "98.3".
pub fn conf_text(c: f64) -> String {
    numbers::fmt::percent_cell(c)
}

fn check(side: &'static str, v: &[f64]) -> Result<(), StatsError> {
    if v.is_empty() {
        return Err(StatsError::Empty { side });
    }
    if let Some((index, &value)) = v.iter().enumerate().find(|(_, x)| !x.is_finite()) {
        return Err(StatsError::NotFinite { side, index, value });
    }
    Ok(())
}

/// Median of finite values; None when empty.
pub use numbers::median;

/// splitmix64: small, fast, and the same on every platform.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in 0..n (n ≤ a few hundred here; the modulo bias is below 1e-16).
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Percentile bootstrap interval on median(latest) / median(baseline): each resample draws
/// both sides with replacement, independently. Returns (low, high) at `confidence`.
pub fn bootstrap_ratio_ci(
    baseline: &[f64],
    latest: &[f64],
    confidence: f64,
    resamples: usize,
    seed: u64,
) -> Result<(f64, f64), StatsError> {
    check("baseline", baseline)?;
    check("latest", latest)?;
    if !(confidence > 0.0 && confidence < 1.0) {
        return Err(StatsError::BadConfidence(confidence));
    }
    let mut rng = Rng(seed);
    let mut ratios = Vec::with_capacity(resamples.max(1));
    let (mut b, mut l) = (vec![0.0; baseline.len()], vec![0.0; latest.len()]);
    for _ in 0..resamples.max(1) {
        for x in b.iter_mut() {
            *x = baseline[rng.below(baseline.len())];
        }
        for x in l.iter_mut() {
            *x = latest[rng.below(latest.len())];
        }
        let (mb, ml) = (median(&b).unwrap_or(0.0), median(&l).unwrap_or(0.0));
        // A resample whose baseline median is 0 has no ratio; it is skipped (counted out).
        if mb != 0.0 {
            ratios.push(ml / mb);
        }
    }
    if ratios.is_empty() {
        return Err(StatsError::ZeroBaseline(0.0));
    }
    ratios.sort_by(|a, b| a.total_cmp(b));
    let q = |p: f64| {
        // Nearest rank on the sorted resample ratios.
        let i = ((p * ratios.len() as f64).ceil() as usize).clamp(1, ratios.len()) - 1;
        ratios[i]
    };
    let alpha = 1.0 - confidence;
    Ok((q(alpha / 2.0), q(1.0 - alpha / 2.0)))
}

/// Ranks (1-based) of ascending `sorted` keys, ties sharing their mean rank, and the tie term
/// Σ (t³ − t) over tie groups that the normal approximations correct for. The one ranking
/// behind both the Mann-Whitney and the Wilcoxon test.
fn midranks(sorted: &[f64]) -> (Vec<f64>, f64) {
    let n = sorted.len();
    let mut ranks = vec![0.0; n];
    let mut tie_term = 0.0;
    let mut i = 0;
    while i < n {
        let mut j = i;
        while j + 1 < n && sorted[j + 1] == sorted[i] {
            j += 1;
        }
        let r = (i + j) as f64 / 2.0 + 1.0;
        for rank in ranks.iter_mut().take(j + 1).skip(i) {
            *rank = r;
        }
        let t = (j - i + 1) as f64;
        tie_term += t * t * t - t;
        i = j + 1;
    }
    (ranks, tie_term)
}

/// Two-sided Mann-Whitney U test of `a` against `b`.
pub fn mann_whitney(a: &[f64], b: &[f64]) -> Result<MannWhitney, StatsError> {
    check("baseline", a)?;
    check("latest", b)?;
    let (n1, n2) = (a.len(), b.len());
    // Ranks over the pooled sample, ties sharing their mean rank.
    let mut pooled: Vec<(f64, usize)> = a
        .iter()
        .map(|&x| (x, 0))
        .chain(b.iter().map(|&x| (x, 1)))
        .collect();
    pooled.sort_by(|x, y| x.0.total_cmp(&y.0));
    let keys: Vec<f64> = pooled.iter().map(|p| p.0).collect();
    let (ranks, tie_term) = midranks(&keys);
    let r1: f64 = pooled
        .iter()
        .zip(&ranks)
        .filter(|(p, _)| p.1 == 0)
        .map(|(_, r)| r)
        .sum();
    let u = r1 - (n1 * (n1 + 1)) as f64 / 2.0;
    let (f1, f2) = (n1 as f64, n2 as f64);
    let mean = f1 * f2 / 2.0;
    if tie_term == 0.0 && n1 <= EXACT_U_MAX && n2 <= EXACT_U_MAX {
        let dist = exact_u_distribution(n1, n2);
        let total: f64 = dist.iter().sum();
        let k = u.round() as usize;
        let lower: f64 = dist[..=k].iter().sum::<f64>() / total;
        let upper: f64 = dist[k..].iter().sum::<f64>() / total;
        return Ok(MannWhitney {
            u,
            p: (2.0 * lower.min(upper)).min(1.0),
            method: "exact",
        });
    }
    let nf = f1 + f2;
    let var = f1 * f2 / 12.0 * ((nf + 1.0) - tie_term / (nf * (nf - 1.0)));
    if var <= 0.0 {
        // Every value equal: nothing separates the samples.
        return Ok(MannWhitney {
            u,
            p: 1.0,
            method: "normal",
        });
    }
    let z = ((u - mean).abs() - 0.5).max(0.0) / var.sqrt();
    Ok(MannWhitney {
        u,
        p: (2.0 * normal_sf(z)).min(1.0),
        method: "normal",
    })
}

/// Counts of each U value (0..=n1·n2) over all arrangements of n1 + n2 distinct values:
/// f(n1, n2, u) = f(n1 − 1, n2, u − n2) + f(n1, n2 − 1, u), by dynamic programming.
fn exact_u_distribution(n1: usize, n2: usize) -> Vec<f64> {
    // table[j][u] holds f(i, j, u) for the current i.
    let max_u = n1 * n2;
    let mut table: Vec<Vec<f64>> = (0..=n2)
        .map(|_| {
            let mut v = vec![0.0; max_u + 1];
            v[0] = 1.0; // f(0, j, 0) = 1
            v
        })
        .collect();
    for _i in 1..=n1 {
        let mut next: Vec<Vec<f64>> = vec![vec![0.0; max_u + 1]; n2 + 1];
        next[0][0] = 1.0; // f(i, 0, 0) = 1
        for j in 1..=n2 {
            for u in 0..=max_u {
                let from_a = if u >= j { table[j][u - j] } else { 0.0 };
                next[j][u] = from_a + next[j - 1][u];
            }
        }
        table = next;
    }
    table.swap_remove(n2)
}

/// Upper tail of the standard normal, via erfc (Numerical Recipes' Chebyshev fit, ~1.2e-7).
fn normal_sf(z: f64) -> f64 {
    let x = z / std::f64::consts::SQRT_2;
    let t = 1.0 / (1.0 + 0.5 * x.abs());
    let y = t
        * (-x * x - 1.265_512_23
            + t * (1.000_023_68
                + t * (0.374_091_96
                    + t * (0.096_784_18
                        + t * (-0.186_288_06
                            + t * (0.278_868_07
                                + t * (-1.135_203_98
                                    + t * (1.488_515_87
                                        + t * (-0.822_152_23 + t * 0.170_872_77)))))))))
            .exp();
    let erfc = if x >= 0.0 { y } else { 2.0 - y };
    erfc / 2.0
}

/// Compare one metric on its own: latest against baseline, at `1 − confidence`.
pub fn compare(
    baseline: &[f64],
    latest: &[f64],
    better: Better,
    cfg: &Config,
) -> Result<Comparison, StatsError> {
    let mut c = measure(baseline, latest, better, Design::Independent, cfg)?;
    judge(&mut c, baseline, latest, cfg, 1.0 - cfg.confidence, None)?;
    Ok(c)
}

/// Compare one metric whose samples were taken in pairs (`baseline[i]` and `latest[i]` back
/// to back): the interval is on the median of the pairs' ratios, the test is Wilcoxon's
/// signed-rank test on their logarithms.
pub fn compare_paired(
    baseline: &[f64],
    latest: &[f64],
    better: Better,
    cfg: &Config,
) -> Result<Comparison, StatsError> {
    let mut c = measure(baseline, latest, better, Design::Paired, cfg)?;
    judge(&mut c, baseline, latest, cfg, 1.0 - cfg.confidence, None)?;
    Ok(c)
}

/// One metric's samples, for [`compare_family`].
#[derive(Debug, Clone, Copy)]
pub struct MetricSamples<'a> {
    pub baseline: &'a [f64],
    pub latest: &'a [f64],
    pub better: Better,
    pub design: Design,
}

/// Compare several metrics of the same two runs as one family: "did anything move?" is asked
/// once per metric, so the U tests are held to Holm's step-down procedure (the k-th smallest
/// p of m against α / (m − k), stopping at the first that fails), which keeps the chance of
/// any false alarm over the family at α = 1 − confidence. The interval used for the noise-
/// floor check of a metric is taken at its adjusted level 1 − α / (m − k); the `low`/`high`
/// reported stay at `confidence`.
pub fn compare_family(
    metrics: &[MetricSamples],
    cfg: &Config,
) -> Vec<Result<Comparison, StatsError>> {
    let mut out: Vec<Result<Comparison, StatsError>> = metrics
        .iter()
        .map(|m| measure(m.baseline, m.latest, m.better, m.design, cfg))
        .collect();
    let mut order: Vec<usize> = (0..out.len()).filter(|&i| out[i].is_ok()).collect();
    let p = |r: &Result<Comparison, StatsError>| r.as_ref().map_or(1.0, |c| c.test.p);
    order.sort_by(|&a, &b| p(&out[a]).total_cmp(&p(&out[b])));
    let m = order.len();
    let alpha = 1.0 - cfg.confidence;
    let mut stopped_at: Option<usize> = None;
    for (k, &i) in order.iter().enumerate() {
        let level = alpha / (m - k) as f64;
        let holm = (m > 1).then_some((k, m));
        let (b, l) = (metrics[i].baseline, metrics[i].latest);
        let c = out[i].as_mut().expect("filtered to Ok");
        if c.test.p >= level {
            stopped_at.get_or_insert(k);
        }
        let r = judge(c, b, l, cfg, level, holm);
        if r.is_ok() && stopped_at.is_some() && c.verdict != Verdict::Unchanged {
            // Holm stops at the first p that fails: no later metric counts as moved.
            c.verdict = Verdict::Unchanged;
            c.reason = format!(
                "{} p = {:.3}: Holm's procedure over {m} metrics stopped at a smaller p \
that was not significant",
                c.test.name, c.test.p
            );
        }
        if let Err(e) = r {
            out[i] = Err(e);
        }
    }
    out
}

/// Medians, ratio, the interval at `confidence` and the U test; verdict not yet decided.
fn measure(
    baseline: &[f64],
    latest: &[f64],
    better: Better,
    design: Design,
    cfg: &Config,
) -> Result<Comparison, StatsError> {
    check("baseline", baseline)?;
    check("latest", latest)?;
    let mb = median(baseline).unwrap_or(0.0);
    let ml = median(latest).unwrap_or(0.0);
    if mb == 0.0 {
        return Err(StatsError::ZeroBaseline(mb));
    }
    if design == Design::Paired {
        let r = pair_ratios(baseline, latest)?;
        let (low, high) = bootstrap_paired_ci(&r, cfg.confidence, cfg.resamples, cfg.seed)?;
        return Ok(Comparison {
            baseline: mb,
            latest: ml,
            ratio: median(&r).unwrap_or(1.0),
            low,
            high,
            confidence: cfg.confidence,
            n_baseline: baseline.len(),
            n_latest: latest.len(),
            test: wilcoxon_ratios(&r)?,
            better,
            detectable: None,
            verdict: Verdict::Unchanged,
            reason: String::new(),
            design,
        });
    }
    let (low, high) =
        bootstrap_ratio_ci(baseline, latest, cfg.confidence, cfg.resamples, cfg.seed)?;
    Ok(Comparison {
        design,
        baseline: mb,
        latest: ml,
        ratio: ml / mb,
        low,
        high,
        confidence: cfg.confidence,
        n_baseline: baseline.len(),
        n_latest: latest.len(),
        test: mann_whitney(baseline, latest)?.into(),
        better,
        detectable: None,
        verdict: Verdict::Unchanged,
        reason: String::new(),
    })
}

/// Decide the verdict at significance `level` (α, or a Holm-adjusted α when `holm` gives the
/// metric's rank k of m).
fn judge(
    c: &mut Comparison,
    baseline: &[f64],
    latest: &[f64],
    cfg: &Config,
    level: f64,
    holm: Option<(usize, usize)>,
) -> Result<(), StatsError> {
    let alpha = 1.0 - cfg.confidence;
    // The interval for the floor check at the level this metric is tested at.
    let (flo, fhi) = if (level - alpha).abs() < 1e-12 {
        (c.low, c.high)
    } else if c.design == Design::Paired {
        let r = pair_ratios(baseline, latest)?;
        bootstrap_paired_ci(&r, 1.0 - level, cfg.resamples, cfg.seed)?
    } else {
        bootstrap_ratio_ci(baseline, latest, 1.0 - level, cfg.resamples, cfg.seed)?
    };
    // The interval must clear the noise band [1 − t, 1 + t] entirely: "moved by more than the
    // floor, with this confidence", not merely "moved".
    // What is printed is what decided: the interval at the metric's own level.
    c.low = flo;
    c.high = fhi;
    c.confidence = 1.0 - level;
    let (floor_lo, floor_hi) = (1.0 - cfg.threshold, 1.0 + cfg.threshold);
    let adj = match holm {
        Some((k, m)) => format!(" (Holm: rank {} of {m}, α/{})", k + 1, m - k),
        None => String::new(),
    };
    let shown = format!(
        "{} … {} ({} % CI)",
        percent_signed(flo - 1.0),
        percent_signed(fhi - 1.0),
        conf_text(1.0 - level)
    );
    let (verdict, reason) = if c.low <= 1.0 && c.high >= 1.0 {
        (
            Verdict::Unchanged,
            format!("the interval {shown} includes no change"),
        )
    } else if c.test.p >= level {
        let floor = least_p(c.design, baseline.len(), latest.len());
        if floor >= level {
            (
                Verdict::Unchanged,
                format!(
                    "{} vs {} samples cannot reach p < {level:.3}{adj} (add repeats)",
                    baseline.len(),
                    latest.len()
                ),
            )
        } else {
            (
                Verdict::Unchanged,
                format!("{} p = {:.3} ≥ {level:.3}{adj}", c.test.name, c.test.p),
            )
        }
    } else if fhi >= floor_lo && flo <= floor_hi {
        (
            Verdict::Unchanged,
            format!(
                "the interval {shown} reaches inside the ±{} noise floor",
                percent(cfg.threshold)
            ),
        )
    } else {
        let slower = match c.better {
            Better::Higher => c.ratio < 1.0,
            Better::Lower => c.ratio > 1.0,
        };
        let v = if slower {
            Verdict::Regressed
        } else {
            Verdict::Improved
        };
        (
            v,
            format!(
                "the interval {shown} clears the ±{} noise floor, {} p = {:.3} < {level:.3}{adj}",
                percent(cfg.threshold),
                c.test.name,
                c.test.p
            ),
        )
    };
    c.verdict = verdict;
    c.reason = reason;
    c.detectable = detectable_in(
        c.design,
        baseline,
        latest,
        c.better,
        (c.ratio, (flo, fhi)),
        level,
        cfg.threshold,
    );
    Ok(())
}

/// "+6", "−12", "0": a ratio's change in whole percent.
/// The minimum detectable slowdown at these samples' noise: the least true slowdown s, in
/// steps of 0.5 %, that the rule would have called `regressed`. The observed change is taken
/// out first (the latest samples divided by the observed ratio, so they sit on the baseline),
/// then they are scaled by 1 − s (throughput) or 1 + s (latency): "could have detected ≥ s"
/// then means a change of s from none, not s beyond whatever was seen. Scaling is exact for the
/// interval (a median scales with its samples and the bootstrap redraws the same indices), so
/// only the rank test is recomputed. `observed` is (the ratio, its interval at the level).
pub fn detectable_in(
    design: Design,
    baseline: &[f64],
    latest: &[f64],
    better: Better,
    observed: (f64, (f64, f64)),
    level: f64,
    threshold: f64,
) -> Option<f64> {
    let (ratio, interval) = observed;
    if least_p(design, baseline.len(), latest.len()) >= level || !(ratio > 0.0 && ratio.is_finite())
    {
        return None;
    }
    let mut scaled = vec![0.0; latest.len()];
    (1..=190).map(|i| i as f64 * 0.005).find(|&s| {
        let f = match better {
            Better::Higher => 1.0 - s,
            Better::Lower => 1.0 + s,
        } / ratio;
        let (lo, hi) = (interval.0 * f, interval.1 * f);
        let clears = match better {
            Better::Higher => hi < 1.0 - threshold,
            Better::Lower => lo > 1.0 + threshold,
        };
        if !clears {
            return false;
        }
        for (d, x) in scaled.iter_mut().zip(latest) {
            *d = x * f;
        }
        match design {
            Design::Independent => mann_whitney(baseline, &scaled).is_ok_and(|m| m.p < level),
            Design::Paired => pair_ratios(baseline, &scaled)
                .and_then(|r| wilcoxon_ratios(&r))
                .is_ok_and(|m| m.p < level),
        }
    })
}

/// The smallest two-sided p the design's exact test can give with these sample sizes.
pub fn least_p(design: Design, n1: usize, n2: usize) -> f64 {
    match design {
        Design::Independent => min_two_sided_p(n1, n2),
        // Every sign alike: 2 / 2^n.
        Design::Paired => (2.0 / 2f64.powi(n1.min(n2) as i32)).min(1.0),
    }
}

/// latest[i] / baseline[i] for each pair.
fn pair_ratios(baseline: &[f64], latest: &[f64]) -> Result<Vec<f64>, StatsError> {
    if baseline.len() != latest.len() {
        return Err(StatsError::Unpaired {
            baseline: baseline.len(),
            latest: latest.len(),
        });
    }
    if let Some((index, &value)) = baseline.iter().enumerate().find(|(_, x)| **x <= 0.0) {
        return Err(StatsError::NotPositive {
            side: "baseline",
            index,
            value,
        });
    }
    Ok(latest.iter().zip(baseline).map(|(l, b)| l / b).collect())
}

/// Percentile bootstrap interval on the median of the pairs' ratios (pairs resampled whole).
fn bootstrap_paired_ci(
    ratios: &[f64],
    confidence: f64,
    resamples: usize,
    seed: u64,
) -> Result<(f64, f64), StatsError> {
    if !(confidence > 0.0 && confidence < 1.0) {
        return Err(StatsError::BadConfidence(confidence));
    }
    let mut rng = Rng(seed);
    let mut meds = Vec::with_capacity(resamples.max(1));
    let mut draw = vec![0.0; ratios.len()];
    for _ in 0..resamples.max(1) {
        for x in draw.iter_mut() {
            *x = ratios[rng.below(ratios.len())];
        }
        meds.push(median(&draw).unwrap_or(1.0));
    }
    meds.sort_by(|a, b| a.total_cmp(b));
    let q = |p: f64| meds[((p * meds.len() as f64).ceil() as usize).clamp(1, meds.len()) - 1];
    let alpha = 1.0 - confidence;
    Ok((q(alpha / 2.0), q(1.0 - alpha / 2.0)))
}

/// Wilcoxon's signed-rank test on the logarithms of the pairs' ratios (pairs with a ratio of
/// exactly 1 dropped, as Wilcoxon did).
fn wilcoxon_ratios(ratios: &[f64]) -> Result<RankTest, StatsError> {
    let d: Vec<f64> = ratios.iter().map(|r| r.ln()).collect();
    wilcoxon_signed_rank(&d)
}

/// Two-sided Wilcoxon signed-rank test of differences `d` against 0: exact distribution of W+
/// without ties (up to [`EXACT_U_MAX`] pairs), normal approximation with tie and continuity
/// correction otherwise. Zero differences are dropped.
pub fn wilcoxon_signed_rank(d: &[f64]) -> Result<RankTest, StatsError> {
    check("pairs", d)?;
    let mut nz: Vec<f64> = d.iter().copied().filter(|x| *x != 0.0).collect();
    let n = nz.len();
    if n == 0 {
        return Ok(RankTest {
            name: WILCOXON,
            statistic: 0.0,
            p: 1.0,
            method: "exact",
        });
    }
    nz.sort_by(|a, b| a.abs().total_cmp(&b.abs()));
    let keys: Vec<f64> = nz.iter().map(|x| x.abs()).collect();
    let (ranks, tie_term) = midranks(&keys);
    let w: f64 = nz
        .iter()
        .zip(&ranks)
        .filter(|(x, _)| **x > 0.0)
        .map(|(_, r)| r)
        .sum();
    let nf = n as f64;
    let mean = nf * (nf + 1.0) / 4.0;
    if tie_term == 0.0 && n <= EXACT_U_MAX {
        // Counts of each W+ over the 2^n sign assignments.
        let max = n * (n + 1) / 2;
        let mut dist = vec![0.0f64; max + 1];
        dist[0] = 1.0;
        for k in 1..=n {
            for s in (k..=max).rev() {
                dist[s] += dist[s - k];
            }
        }
        let total: f64 = dist.iter().sum();
        let k = w.round() as usize;
        let lower: f64 = dist[..=k].iter().sum::<f64>() / total;
        let upper: f64 = dist[k..].iter().sum::<f64>() / total;
        return Ok(RankTest {
            name: WILCOXON,
            statistic: w,
            p: (2.0 * lower.min(upper)).min(1.0),
            method: "exact",
        });
    }
    let var = nf * (nf + 1.0) * (2.0 * nf + 1.0) / 24.0 - tie_term / 48.0;
    if var <= 0.0 {
        return Ok(RankTest {
            name: WILCOXON,
            statistic: w,
            p: 1.0,
            method: "normal",
        });
    }
    let z = ((w - mean).abs() - 0.5).max(0.0) / var.sqrt();
    Ok(RankTest {
        name: WILCOXON,
        statistic: w,
        p: (2.0 * normal_sf(z)).min(1.0),
        method: "normal",
    })
}

/// The smallest two-sided p an exact U test can give with these sample sizes: 2 / C(n1+n2, n1).
pub fn min_two_sided_p(n1: usize, n2: usize) -> f64 {
    let (k, n) = (n1.min(n2), n1 + n2);
    let mut c = 1.0_f64;
    for i in 0..k {
        c = c * (n - i) as f64 / (i + 1) as f64;
    }
    (2.0 / c).min(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Deterministic noise: x·(1 + amp·u), u uniform in [−1, 1].
    fn noisy(center: f64, amp: f64, n: usize, seed: u64) -> Vec<f64> {
        let mut r = Rng(seed);
        (0..n)
            .map(|_| {
                let u = (r.next() >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0;
                center * (1.0 + amp * u)
            })
            .collect()
    }

    #[test]
    fn known_shifts_found_with_sign_and_size() {
        let cfg = Config::default();
        // (baseline, latest, better, expected verdict, expected ratio)
        let cases = [
            (36.0, 17.0, Better::Higher, Verdict::Regressed, 17.0 / 36.0),
            (17.0, 35.0, Better::Higher, Verdict::Improved, 35.0 / 17.0),
            (100.0, 130.0, Better::Lower, Verdict::Regressed, 1.3),
            (100.0, 70.0, Better::Lower, Verdict::Improved, 0.7),
            (50.0, 44.0, Better::Higher, Verdict::Regressed, 0.88),
        ];
        for (i, (b, l, better, want, ratio)) in cases.into_iter().enumerate() {
            let bs = noisy(b, 0.02, 8, 1 + i as u64);
            let ls = noisy(l, 0.02, 8, 100 + i as u64);
            let c = compare(&bs, &ls, better, &cfg).unwrap();
            assert_eq!(c.verdict, want, "case {i}: {c:?}");
            assert!((c.ratio - ratio).abs() < 0.03 * ratio, "case {i}: {c:?}");
            assert!(c.low <= c.ratio && c.ratio <= c.high, "case {i}: {c:?}");
            // The interval is near the true ratio, not somewhere else.
            assert!(
                c.low > ratio * 0.95 && c.high < ratio * 1.05,
                "case {i}: {c:?}"
            );
        }
    }

    #[test]
    fn the_spec_regression_reads_as_a_sentence() {
        let b = noisy(36.0, 0.03, 6, 7);
        let l = noisy(17.0, 0.03, 6, 8);
        let c = compare(&b, &l, Better::Higher, &Config::default()).unwrap();
        assert_eq!(c.verdict, Verdict::Regressed);
        let (s, lo, hi) = c.slowdown();
        assert!((s - 19.0 / 36.0).abs() < 0.03, "{s}");
        assert!(lo <= s && s <= hi);
        let text = c.sentence();
        assert!(text.starts_with("regressed by 5"), "{text}");
        assert!(text.contains("(95 % CI "), "{text}");
    }

    #[test]
    fn identical_and_overlapping_samples_are_unchanged() {
        let cfg = Config::default();
        let a = noisy(20.0, 0.05, 6, 3);
        let c = compare(&a, &a, Better::Higher, &cfg).unwrap();
        assert_eq!(c.verdict, Verdict::Unchanged, "{c:?}");
        assert_eq!(c.ratio, 1.0);
        assert!(c.low <= 1.0 && c.high >= 1.0);
        assert!(c.test.p > 0.9, "{:?}", c.test);
        // Two draws of the same noisy process.
        for seed in 0..20 {
            let x = noisy(20.0, 0.10, 5, 1000 + seed);
            let y = noisy(20.0, 0.10, 5, 2000 + seed);
            let c = compare(&x, &y, Better::Higher, &cfg).unwrap();
            // A real 5-sample draw can differ; beyond 10 % noise plus a floor of 5 % it may not.
            assert!(
                c.verdict == Verdict::Unchanged || (c.ratio - 1.0).abs() >= 0.05,
                "seed {seed}: {c:?}"
            );
        }
        // All values equal.
        let c = compare(&[5.0; 4], &[5.0; 4], Better::Lower, &cfg).unwrap();
        assert_eq!(c.verdict, Verdict::Unchanged);
        assert_eq!(c.test.p, 1.0);
        assert!(
            c.sentence().starts_with("no change beyond noise (0 %"),
            "{}",
            c.sentence()
        );
    }

    #[test]
    fn small_real_shift_under_the_floor_is_unchanged() {
        // 2 % slower with 0.1 % noise: statistically real, practically noise.
        let b = noisy(100.0, 0.001, 8, 11);
        let l = noisy(98.0, 0.001, 8, 12);
        let c = compare(&b, &l, Better::Higher, &Config::default()).unwrap();
        assert_eq!(c.verdict, Verdict::Unchanged);
        assert!(c.reason.contains("noise floor"), "{}", c.reason);
        let strict = Config {
            threshold: 0.01,
            ..Config::default()
        };
        let c = compare(&b, &l, Better::Higher, &strict).unwrap();
        assert_eq!(c.verdict, Verdict::Regressed);
    }

    #[test]
    fn the_interval_that_decides_is_the_one_printed() {
        // Three metrics of one family; the first moved +10 % with ±4 % noise. Holm tests it at
        // α/3, and its interval at that level is wider than the nominal 95 % one.
        let cfg = Config::default();
        let b = noisy(100.0, 0.04, 6, 31);
        let l = noisy(110.0, 0.04, 6, 32);
        let other = noisy(50.0, 0.04, 6, 33);
        let ms: Vec<MetricSamples> = [(&b, &l), (&other, &other), (&other, &other)]
            .iter()
            .map(|(x, y)| MetricSamples {
                design: Design::Independent,
                baseline: x,
                latest: y,
                better: Better::Lower,
            })
            .collect();
        let c = compare_family(&ms, &cfg).remove(0).unwrap();
        let naive = bootstrap_ratio_ci(&b, &l, 0.95, cfg.resamples, cfg.seed).unwrap();
        let level = 0.05 / 3.0;
        let decisive = bootstrap_ratio_ci(&b, &l, 1.0 - level, cfg.resamples, cfg.seed).unwrap();
        assert!(
            decisive.0 < naive.0 && decisive.1 > naive.1,
            "{naive:?} {decisive:?}"
        );
        assert_eq!((c.low, c.high), decisive, "{c:?}");
        assert!((c.confidence - (1.0 - level)).abs() < 1e-12);
        // The reason quotes the printed interval, and the sentence names its confidence.
        let shown = format!(
            "{} … {} (98.3 % CI)",
            percent_signed(decisive.0 - 1.0),
            percent_signed(decisive.1 - 1.0)
        );
        assert!(c.reason.contains(&shown), "{} / {shown}", c.reason);
        assert!(c.sentence().contains("98.3 % CI"), "{}", c.sentence());
        // Whatever the verdict, the quoted interval agrees with it: "reaches inside the floor"
        // only when it does.
        if c.reason.contains("reaches inside") {
            assert!(c.low <= 1.05 && c.high >= 0.95, "{c:?}");
        }
        if c.verdict == Verdict::Regressed {
            assert!(c.low > 1.05, "{c:?}");
        }
    }

    #[test]
    fn unchanged_says_what_it_could_have_seen() {
        let cfg = Config::default();
        let a = noisy(100.0, 0.02, 8, 41);
        let b = noisy(100.0, 0.02, 8, 42);
        let c = compare(&a, &b, Better::Higher, &cfg).unwrap();
        assert_eq!(c.verdict, Verdict::Unchanged);
        let d = c.detectable.unwrap();
        // At least the floor, and not far beyond it with 2 % noise and 8 a side.
        assert!(d > 0.05 && d < 0.12, "{d}");
        // The latest put on the baseline (the observed ratio out), then slowed by that much, is
        // called regressed; by clearly less is not.
        let slower: Vec<f64> = b.iter().map(|x| x / c.ratio * (1.0 - d)).collect();
        assert_eq!(
            compare(&a, &slower, Better::Higher, &cfg).unwrap().verdict,
            Verdict::Regressed
        );
        let less: Vec<f64> = b.iter().map(|x| x / c.ratio * (1.0 - d + 0.02)).collect();
        assert_eq!(
            compare(&a, &less, Better::Higher, &cfg).unwrap().verdict,
            Verdict::Unchanged
        );
        assert!(
            c.sentence()
                .contains("could have detected a slowdown of ≥ "),
            "{}",
            c.sentence()
        );
        // 3 vs 3 cannot reach p < 0.05 at all.
        let c = compare(&[1.0, 1.1, 0.9], &[1.0, 1.1, 0.9], Better::Higher, &cfg).unwrap();
        assert_eq!(c.detectable, None);
    }

    /// A change seen but not decided does not shrink what could have been detected: the same
    /// noise set 20 % slower says the same figure as the noise alone (it once said "≥ 2 %"
    /// beside an interval of −35 … −4 %: s beyond the change already seen).
    #[test]
    fn what_could_have_been_seen_is_measured_from_no_change() {
        let cfg = Config::default();
        let a = noisy(100.0, 0.3, 8, 61);
        let b = noisy(100.0, 0.3, 8, 62);
        let same = compare(&a, &b, Better::Higher, &cfg).unwrap();
        // The latest at exactly 0.8 of the baseline, the same noise.
        let slowed: Vec<f64> = b.iter().map(|x| x * 0.8 / same.ratio).collect();
        let slow = compare(&a, &slowed, Better::Higher, &cfg).unwrap();
        assert!((slow.ratio - 0.8).abs() < 1e-9, "{slow:?}");
        assert_eq!(slow.verdict, Verdict::Unchanged, "{slow:?}");
        let (d0, d1) = (same.detectable.unwrap(), slow.detectable.unwrap());
        assert!((d0 - d1).abs() <= 0.005 + 1e-9, "{d0} vs {d1}");
        // The 20 % slowdown was seen and left undecided, so what could be detected is more.
        assert!(d1 > 0.2, "{d1}");
    }

    #[test]
    fn too_few_samples_say_so() {
        // 3 vs 3 cannot reach p < 0.05 (the least two-sided p is 0.1), however far apart.
        let c = compare(
            &[36.0, 36.5, 35.8],
            &[17.0, 17.2, 16.9],
            Better::Higher,
            &Config::default(),
        )
        .unwrap();
        assert_eq!(c.verdict, Verdict::Unchanged);
        assert!(c.reason.contains("3 vs 3 samples"), "{}", c.reason);
        assert!((min_two_sided_p(3, 3) - 0.1).abs() < 1e-12);
        assert!((min_two_sided_p(5, 5) - 2.0 / 252.0).abs() < 1e-12);
    }

    #[test]
    fn a_family_holds_false_alarms_to_alpha() {
        // Fewer resamples keep this test quick; the intervals only feed the floor check.
        let cfg = Config {
            resamples: 500,
            ..Config::default()
        };
        // 200 families of four metrics of pure noise (±30 %, 5 vs 5, as on a loaded CPU box).
        let (mut single, mut family) = (0, 0);
        for f in 0..200u64 {
            let draws: Vec<(Vec<f64>, Vec<f64>)> = (0..4)
                .map(|k| {
                    (
                        noisy(30.0, 0.3, 5, f * 8 + k),
                        noisy(30.0, 0.3, 5, f * 8 + k + 4),
                    )
                })
                .collect();
            let alone = draws
                .iter()
                .map(|(b, l)| compare(b, l, Better::Higher, &cfg).unwrap())
                .any(|c| c.verdict != Verdict::Unchanged);
            let ms: Vec<MetricSamples> = draws
                .iter()
                .map(|(b, l)| MetricSamples {
                    design: Design::Independent,
                    baseline: b,
                    latest: l,
                    better: Better::Higher,
                })
                .collect();
            let fam = compare_family(&ms, &cfg)
                .into_iter()
                .any(|c| c.unwrap().verdict != Verdict::Unchanged);
            single += usize::from(alone);
            family += usize::from(fam);
        }
        assert!(
            family <= 20,
            "{family} of 400 families raised a false alarm"
        );
        assert!(
            family < single,
            "family {family}, metric by metric {single}"
        );
    }

    #[test]
    fn a_family_still_finds_the_real_shift() {
        let cfg = Config::default();
        let base = [
            noisy(36.0, 0.05, 5, 1),
            noisy(120.0, 0.05, 5, 2),
            noisy(50.0, 0.05, 5, 3),
        ];
        let late = [
            noisy(17.0, 0.05, 5, 4),
            noisy(121.0, 0.05, 5, 5),
            noisy(50.0, 0.05, 5, 6),
        ];
        let better = [Better::Higher, Better::Lower, Better::Higher];
        let ms: Vec<MetricSamples> = (0..3)
            .map(|i| MetricSamples {
                design: Design::Independent,
                baseline: &base[i],
                latest: &late[i],
                better: better[i],
            })
            .collect();
        let r: Vec<Comparison> = compare_family(&ms, &cfg)
            .into_iter()
            .map(Result::unwrap)
            .collect();
        assert_eq!(r[0].verdict, Verdict::Regressed, "{:?}", r[0]);
        assert!(r[0].reason.contains("Holm: rank 1 of 3"), "{}", r[0].reason);
        assert_eq!(r[1].verdict, Verdict::Unchanged);
        assert_eq!(r[2].verdict, Verdict::Unchanged);
        // Two swapped pairs in 5 vs 5 (U = 23, p = 2·4/252 = 0.032) pass alone at 0.05, not at
        // Holm's 0.05/3 as the smallest p of three.
        let b = [10.0, 10.2, 10.4, 10.6, 9.0];
        let l = [9.1, 9.2, 7.4, 7.6, 7.8];
        let alone = compare(&b, &l, Better::Higher, &cfg).unwrap();
        assert_eq!(alone.verdict, Verdict::Regressed, "{alone:?}");
        let fam = compare_family(
            &[
                MetricSamples {
                    design: Design::Independent,
                    baseline: &b,
                    latest: &l,
                    better: Better::Higher,
                },
                MetricSamples {
                    design: Design::Independent,
                    baseline: &base[1],
                    latest: &late[1],
                    better: Better::Lower,
                },
                MetricSamples {
                    design: Design::Independent,
                    baseline: &base[2],
                    latest: &late[2],
                    better: Better::Higher,
                },
            ],
            &cfg,
        );
        let c = fam[0].as_ref().unwrap();
        assert_eq!(c.verdict, Verdict::Unchanged, "{c:?}");
        // Decided at Holm's level: by the U test, or by the interval at that level.
        assert!(
            c.reason.contains("Holm") || c.reason.contains("(98.3 % CI) includes no change"),
            "{}",
            c.reason
        );
        // A bad metric does not poison the others.
        let fam = compare_family(
            &[
                MetricSamples {
                    design: Design::Independent,
                    baseline: &[],
                    latest: &l,
                    better: Better::Higher,
                },
                MetricSamples {
                    design: Design::Independent,
                    baseline: &base[0],
                    latest: &late[0],
                    better: Better::Higher,
                },
            ],
            &cfg,
        );
        assert!(fam[0].is_err());
        assert_eq!(fam[1].as_ref().unwrap().verdict, Verdict::Regressed);
    }

    #[test]
    fn bootstrap_is_reproducible_and_seeded() {
        let b = noisy(10.0, 0.2, 7, 21);
        let l = noisy(9.0, 0.2, 7, 22);
        let x = bootstrap_ratio_ci(&b, &l, 0.95, 4000, BOOTSTRAP_SEED).unwrap();
        let y = bootstrap_ratio_ci(&b, &l, 0.95, 4000, BOOTSTRAP_SEED).unwrap();
        assert_eq!(x, y);
        let z = bootstrap_ratio_ci(&b, &l, 0.95, 4000, 42).unwrap();
        assert!(
            (x.0 - z.0).abs() < 0.05 && (x.1 - z.1).abs() < 0.05,
            "{x:?} {z:?}"
        );
        // A wider confidence gives a wider interval.
        let w = bootstrap_ratio_ci(&b, &l, 0.99, 4000, BOOTSTRAP_SEED).unwrap();
        assert!(w.0 <= x.0 && w.1 >= x.1);
    }

    #[test]
    fn mann_whitney_matches_reference_values() {
        // scipy.stats.mannwhitneyu([1,2,3,4,5],[6,7,8,9,10], method='exact') → U=0, p=0.00794.
        let m = mann_whitney(&[1.0, 2.0, 3.0, 4.0, 5.0], &[6.0, 7.0, 8.0, 9.0, 10.0]).unwrap();
        assert_eq!((m.u, m.method), (0.0, "exact"));
        assert!((m.p - 2.0 / 252.0).abs() < 1e-12, "{m:?}");
        // Interleaved [1,3,5,7,9] vs [2,4,6,8,10]: U = 10; by enumerating all 252 splits,
        // 87 have U ≤ 10, so p = 2·87/252.
        let m = mann_whitney(&[1.0, 3.0, 5.0, 7.0, 9.0], &[2.0, 4.0, 6.0, 8.0, 10.0]).unwrap();
        assert_eq!(m.u, 10.0);
        assert!((m.p - 2.0 * 87.0 / 252.0).abs() < 1e-12, "{m:?}");
        // Ties: normal approximation with tie and continuity correction.
        // By hand: ranks 1, 3, 3, 6 → U = 3; mean 8; tie groups of 3 and 3 → Σ(t³−t) = 48;
        // var = 16/12·(9 − 48/56); z = (5 − 0.5)/√var = 1.3657 → p = 0.172034.
        let m = mann_whitney(&[1.0, 2.0, 2.0, 3.0], &[2.0, 3.0, 3.0, 4.0]).unwrap();
        assert_eq!((m.u, m.method), (3.0, "normal"));
        assert!((m.p - 0.172_034).abs() < 1e-5, "{m:?}");
    }

    #[test]
    fn wilcoxon_matches_reference_values() {
        // All five positive: W+ = 15, the most extreme of 32 sign patterns: p = 2/32.
        let w = wilcoxon_signed_rank(&[1.0, 2.0, 3.0, 4.0, 5.0]).unwrap();
        assert_eq!((w.statistic, w.method), (15.0, "exact"));
        assert!((w.p - 2.0 / 32.0).abs() < 1e-12, "{w:?}");
        // One negative at rank 2: W+ = 13; W+ ≥ 13 for 3 of 32 patterns → p = 6/32
        // (scipy.stats.wilcoxon([1,-2,3,4,5]) → 0.1875).
        let w = wilcoxon_signed_rank(&[1.0, -2.0, 3.0, 4.0, 5.0]).unwrap();
        assert_eq!(w.statistic, 13.0);
        assert!((w.p - 6.0 / 32.0).abs() < 1e-12, "{w:?}");
        // Zeros are dropped; nothing left is p = 1.
        assert_eq!(wilcoxon_signed_rank(&[0.0, 0.0]).unwrap().p, 1.0);
        assert_eq!(least_p(Design::Paired, 10, 10), 2.0 / 1024.0);
    }

    #[test]
    fn pairs_cancel_the_drift_that_hides_a_move_between_runs() {
        // Load moves both servers by up to ×3 from round to round; the latest is 20 % slower
        // in every round, ±2 %.
        let load = noisy(1.0, 0.5, 12, 51);
        let jitter = noisy(1.0, 0.02, 12, 52);
        let b: Vec<f64> = load.iter().map(|x| 100.0 * x).collect();
        let l: Vec<f64> = load
            .iter()
            .zip(&jitter)
            .map(|(x, j)| 80.0 * x * j)
            .collect();
        let cfg = Config::default();
        let apart = compare(&b, &l, Better::Higher, &cfg).unwrap();
        assert_eq!(apart.verdict, Verdict::Unchanged, "{apart:?}");
        let paired = compare_paired(&b, &l, Better::Higher, &cfg).unwrap();
        assert_eq!(paired.verdict, Verdict::Regressed, "{paired:?}");
        assert!((paired.ratio - 0.8).abs() < 0.02, "{paired:?}");
        assert_eq!(paired.test.name, WILCOXON);
        assert!(
            paired.reason.contains("Wilcoxon signed-rank p = "),
            "{}",
            paired.reason
        );
        // Unequal sides cannot be paired.
        assert!(matches!(
            compare_paired(&b, &l[1..], Better::Higher, &cfg),
            Err(StatsError::Unpaired { .. })
        ));
    }

    #[test]
    fn exact_distribution_sums_to_binomial() {
        for (n1, n2) in [(1, 1), (3, 4), (5, 5), (8, 3)] {
            let d = exact_u_distribution(n1, n2);
            let total: f64 = d.iter().sum();
            let mut c = 1.0;
            for i in 0..n1 {
                c = c * (n1 + n2 - i) as f64 / (i + 1) as f64;
            }
            assert_eq!(total, c, "{n1},{n2}");
            // Symmetric about n1·n2/2.
            for u in 0..d.len() {
                assert_eq!(d[u], d[d.len() - 1 - u]);
            }
        }
    }

    #[test]
    fn bad_input_is_an_error() {
        let cfg = Config::default();
        assert_eq!(
            compare(&[], &[1.0], Better::Higher, &cfg).unwrap_err(),
            StatsError::Empty { side: "baseline" }
        );
        assert!(matches!(
            compare(&[1.0], &[f64::NAN], Better::Higher, &cfg).unwrap_err(),
            StatsError::NotFinite {
                side: "latest",
                index: 0,
                ..
            }
        ));
        assert!(matches!(
            compare(&[0.0, 0.0], &[1.0], Better::Higher, &cfg).unwrap_err(),
            StatsError::ZeroBaseline(_)
        ));
        assert!(matches!(
            bootstrap_ratio_ci(&[1.0], &[1.0], 1.5, 10, 1).unwrap_err(),
            StatsError::BadConfidence(_)
        ));
    }

    #[test]
    fn normal_tail() {
        assert!((normal_sf(0.0) - 0.5).abs() < 1e-7);
        assert!((normal_sf(1.959_964) - 0.025).abs() < 1e-6);
        assert!((normal_sf(-1.0) - 0.841_344_7).abs() < 1e-6);
    }
}
