//! Enough samples, adaptively: `headroom bench` keeps sampling until the comparison has decided
//! or the samples are tight, and stops at a cap otherwise. Looking more than once at growing
//! samples raises the chance of a false alarm, so each look is held to its share of the error
//! rate (Bonferroni over the planned looks): the chance of any false "moved" over every look and
//! every metric stays at 1 − confidence.

use crate::{compare_family, median, Better, Comparison, Config, MetricSamples, Rng, StatsError};
use loadgen::bench_suite::{self, BenchMetric};

/// The configuration for one of `looks` looks: confidence 1 − (1 − c) / looks.
pub fn per_look(cfg: &Config, looks: usize) -> Config {
    Config {
        confidence: 1.0 - (1.0 - cfg.confidence) / looks.max(1) as f64,
        ..*cfg
    }
}

/// A comparison has decided when it found a move, or when its whole interval lies inside the
/// noise floor (no move as large as the floor, with its confidence). An interval that straddles
/// a floor edge has not: more samples would narrow it.
pub fn settled(c: &Comparison, threshold: f64) -> bool {
    c.verdict != crate::Verdict::Unchanged
        || (c.low >= 1.0 - threshold && c.high <= 1.0 + threshold)
}

fn better(m: &BenchMetric) -> Better {
    match m.better {
        bench_suite::Better::Higher => Better::Higher,
        bench_suite::Better::Lower => Better::Lower,
    }
}

/// The metrics of two servers benched in alternation, compared as one family pair by pair (the
/// comparison `headroom regress` makes of such runs): metrics of the same name on the same
/// clock, each with its result.
pub fn compare_metrics<'a>(
    baseline: &'a [BenchMetric],
    latest: &'a [BenchMetric],
    cfg: &Config,
) -> Vec<(&'a BenchMetric, Result<Comparison, StatsError>)> {
    let pairs: Vec<(&BenchMetric, &BenchMetric)> = baseline
        .iter()
        .filter_map(|b| {
            latest
                .iter()
                .find(|l| l.name == b.name && l.clock == b.clock)
                .map(|l| (b, l))
        })
        .collect();
    let ms: Vec<MetricSamples> = pairs
        .iter()
        .map(|(b, l)| MetricSamples {
            design: if b.samples.len() == l.samples.len() {
                crate::Design::Paired
            } else {
                crate::Design::Independent
            },
            baseline: &b.samples,
            latest: &l.samples,
            better: better(b),
        })
        .collect();
    pairs
        .iter()
        .map(|(b, _)| *b)
        .zip(compare_family(&ms, cfg))
        .collect()
}

/// The alternation has answered "did it get slower?" at `cfg`: some metric regressed (Holm's
/// procedure over the family passed), or every metric has decided: moved either way, or its
/// interval inside the floor (see [`settled`]). An improvement alone does not stop it: one knob
/// can speed one path and slow another (llama.cpp's `-ub 1` raises two streams' aggregate
/// decode by ~25 % on this CPU while it slows prefill by ~25 %), and stopping at the
/// improvement would leave the slowdown "unchanged". Stopping at a look costs nothing in error
/// control: each look is held to its Bonferroni share whether or not sampling goes on, and the
/// metrics still undecided are reported "unchanged" with the effect they could have shown at the
/// n reached.
pub fn pair_settled(baseline: &[BenchMetric], latest: &[BenchMetric], cfg: &Config) -> bool {
    let r = compare_metrics(baseline, latest, cfg);
    let regressed = r.iter().any(|(_, c)| {
        c.as_ref()
            .is_ok_and(|c| c.verdict == crate::Verdict::Regressed)
    });
    let decided = !r.is_empty()
        && r.iter()
            .all(|(_, c)| c.as_ref().is_ok_and(|c| settled(c, cfg.threshold)));
    regressed || decided
}

/// Percentile bootstrap interval on the median of one sample, relative to the median:
/// (low / median, high / median).
pub fn median_interval(samples: &[f64], cfg: &Config) -> Option<(f64, f64)> {
    let m = median(samples).filter(|m| *m > 0.0 && m.is_finite())?;
    let mut rng = Rng(cfg.seed);
    let mut meds = Vec::with_capacity(cfg.resamples.max(1));
    let mut draw = vec![0.0; samples.len()];
    for _ in 0..cfg.resamples.max(1) {
        for x in draw.iter_mut() {
            *x = samples[rng.below(samples.len())];
        }
        meds.push(median(&draw)? / m);
    }
    meds.sort_by(f64::total_cmp);
    let q = |p: f64| meds[((p * meds.len() as f64).ceil() as usize).clamp(1, meds.len()) - 1];
    let a = 1.0 - cfg.confidence;
    Some((q(a / 2.0), q(1.0 - a / 2.0)))
}

/// One server's samples are tight when every metric's interval on its median lies within
/// ±threshold/√2: two runs that tight give an interval on their ratio about as wide as the
/// floor, so a later comparison can tell a move of the floor's size from none.
pub fn run_tight(metrics: &[BenchMetric], cfg: &Config) -> bool {
    let half = cfg.threshold / std::f64::consts::SQRT_2;
    !metrics.is_empty()
        && metrics.iter().all(|m| {
            m.samples.len() >= 2
                && median_interval(&m.samples, cfg)
                    .is_some_and(|(lo, hi)| lo >= 1.0 - half && hi <= 1.0 + half)
        })
}

/// The rule in words, for the record.
pub fn pair_rule(cfg: &Config, looks: usize) -> String {
    format!(
        "decided: some metric regressed (interval clear of the ±{} % floor, the rank test below \
Holm's level), or every metric decided (moved either way, or its whole interval inside the \
floor); each of {looks} look(s) at {} % confidence (Bonferroni over the looks)",
        crate::conf_text(cfg.threshold),
        crate::conf_text(per_look(cfg, looks).confidence)
    )
}

pub fn run_rule(cfg: &Config) -> String {
    format!(
        "every metric's {} % interval on its median within ±{} (the ±{} % floor / √2)",
        crate::conf_text(cfg.confidence),
        numbers::fmt::percent(cfg.threshold / std::f64::consts::SQRT_2),
        crate::conf_text(cfg.threshold)
    )
}

/// Pairs need this many repeats before a signed-rank test can reach Holm's level at a look (the
/// least two-sided p of n pairs is 2 / 2^n).
pub const PAIRED_MIN_REPEATS: u32 = 10;

/// How `bench` samples: at least `min` and at most `max` repeats per server, looking at the
/// planned points (`bench_suite::planned_looks`) and stopping at the first look where
/// [`Plan::enough`] holds, under the rule in words. One server stops when its samples are tight
/// ([`run_tight`]); two in alternation when every metric of the pair has decided
/// ([`pair_settled`], each look at its Bonferroni share). `--repeats` alone fixes the count: no
/// look stops it early.
#[derive(Debug, Clone)]
pub struct Plan {
    pub min: u32,
    pub max: u32,
    /// The stopping rule, for the record (`fixed by --repeats` when fixed).
    pub rule: String,
    /// No early stop: exactly `min` repeats.
    pub fixed: bool,
    /// The confidence each look is held to (two servers), or the run's own (one).
    at: Config,
    paired: bool,
}

impl Plan {
    /// The plan for `servers` (1, or 2 with `--against`) given the suite's repeats, `--repeats`
    /// (None when not given) and `--max-repeats`.
    pub fn new(
        cfg: &Config,
        servers: usize,
        suite_repeats: u32,
        repeats_flag: Option<u32>,
        max_repeats: u32,
    ) -> Plan {
        let paired = servers == 2;
        if repeats_flag.is_some() && !paired {
            return Plan {
                min: suite_repeats,
                max: suite_repeats,
                rule: "fixed by --repeats".into(),
                fixed: true,
                at: *cfg,
                paired,
            };
        }
        let min = match (repeats_flag, paired) {
            (None, true) => suite_repeats.max(PAIRED_MIN_REPEATS),
            _ => suite_repeats,
        };
        let max = max_repeats.max(min);
        let looks = bench_suite::planned_looks(min, max).len();
        let (at, rule) = if paired {
            (per_look(cfg, looks), pair_rule(cfg, looks))
        } else {
            (*cfg, run_rule(cfg))
        };
        Plan {
            min,
            max,
            rule,
            fixed: false,
            at,
            paired,
        }
    }

    /// Whether the samples so far are enough to stop: each server's metrics, in order.
    pub fn enough(&self, servers: &[Vec<BenchMetric>]) -> bool {
        match (self.fixed, self.paired, servers) {
            (true, _, _) => false,
            (false, true, [a, b]) => pair_settled(a, b, &self.at),
            (false, false, [a]) => run_tight(a, &self.at),
            _ => false,
        }
    }
}

/// `headroom bench --against`: two servers benched in alternation, and their comparison.
pub const PAIR_SCHEMA: &str = "headroom.bench-pair/1";

/// The document `headroom bench --against --json` prints (docs/json/bench.md).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BenchPairDoc {
    /// The `--url` server's run.
    pub baseline: loadgen::bench_doc::BenchDoc,
    /// `headroom regress` of the two runs, at the per-look confidence that decided.
    pub comparison: crate::RegressDoc,
    /// The `--against` server's run.
    pub latest: loadgen::bench_doc::BenchDoc,
    pub sampling: bench_suite::Sampling,
    pub schema: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Verdict;

    /// Log-normal-ish noise: x · exp(cv · z), z from a sum of uniforms.
    fn draw(rng: &mut Rng, center: f64, cv: f64) -> f64 {
        let u: f64 = (0..12)
            .map(|_| (rng.next() >> 11) as f64 / (1u64 << 53) as f64)
            .sum::<f64>()
            - 6.0;
        center * (cv * u).exp()
    }

    /// The rule as bench applies it, on one simulated metric of two servers in alternation:
    /// each round the machine's load scales both alike (log-sd `drift`), each sample has its
    /// own noise (`cv`); look at 10, 20, 40 rounds (bench --against's looks); the verdict at the look that decided,
    /// else at the last.
    fn sequential(ratio: f64, cv: f64, seed: u64, cfg: &Config) -> (Verdict, usize) {
        let looks = [10usize, 20, 40];
        let at = per_look(cfg, looks.len());
        let mut rng = Rng(seed);
        let (mut b, mut l) = (Vec::new(), Vec::new());
        let mut last = Verdict::Unchanged;
        for &n in &looks {
            while b.len() < n {
                let load = draw(&mut rng, 1.0, 0.5);
                b.push(draw(&mut rng, 100.0 * load, cv));
                l.push(draw(&mut rng, 100.0 * ratio * load, cv));
            }
            let c = crate::compare_paired(&b, &l, Better::Higher, &at).unwrap();
            last = c.verdict;
            if settled(&c, cfg.threshold) {
                return (c.verdict, n);
            }
        }
        (last, 40)
    }

    #[test]
    fn looking_again_keeps_false_alarms_under_alpha_and_finds_real_moves() {
        let cfg = Config {
            resamples: 400,
            ..Config::default()
        };
        // A/A at 10 % noise per sample and a load that moves both servers by ±50 % (log-sd)
        // from round to round, as measured on a loaded 2-core box (engine's clock: log-sd 0.6
        // per server, 0.15 for the ratio of a back-to-back pair): 300 sequential runs.
        let alarms = (0..300)
            .filter(|&s| sequential(1.0, 0.1, s, &cfg).0 != Verdict::Unchanged)
            .count();
        assert!(alarms <= 15, "{alarms} of 300 A/A runs moved");
        // A 2× slowdown is found at the first look; 20 % within 40 rounds.
        for s in 0..20 {
            assert_eq!(
                sequential(0.5, 0.1, 1000 + s, &cfg),
                (Verdict::Regressed, 10)
            );
        }
        let found = (0..50)
            .filter(|&s| sequential(0.8, 0.1, 2000 + s, &cfg).0 == Verdict::Regressed)
            .count();
        assert!(found >= 45, "20 % found in {found} of 50");
    }

    #[test]
    fn a_move_decides_the_pair_while_a_noisy_metric_would_not() {
        let cfg = per_look(
            &Config {
                resamples: 400,
                ..Config::default()
            },
            3,
        );
        let mut rng = Rng(11);
        let m = |name: &str, s: Vec<f64>| {
            BenchMetric::new(name, name, "tok/s", bench_suite::Better::Higher, s)
        };
        let (mut b, mut l, mut nb, mut nl) = (vec![], vec![], vec![], vec![]);
        for _ in 0..10 {
            let load = draw(&mut rng, 1.0, 0.3);
            b.push(draw(&mut rng, 100.0 * load, 0.02));
            l.push(draw(&mut rng, 50.0 * load, 0.02));
            nb.push(draw(&mut rng, 100.0 * load, 0.3));
            nl.push(draw(&mut rng, 100.0 * load, 0.3));
        }
        // 2× on one metric, ±30 % noise on the other: decided (by the move), and the noisy
        // metric alone is not (its interval cannot fit inside ±5 % at 10 pairs).
        let base = [m("decode", b.clone()), m("other", nb.clone())];
        let late = [m("decode", l.clone()), m("other", nl.clone())];
        assert!(pair_settled(&base, &late, &cfg));
        assert!(!pair_settled(&base[1..], &late[1..], &cfg));
        assert!(!pair_settled(&[], &[], &cfg));
        // The same 2× the other way (an improvement) beside the undecided metric does not stop
        // it: a slowdown may still be found in the other; alone, it has decided.
        let faster = [m("decode", l.clone()), m("other", nb.clone())];
        let slower = [m("decode", b.clone()), m("other", nl.clone())];
        assert!(!pair_settled(&faster, &slower, &cfg));
        assert!(pair_settled(&faster[..1], &slower[..1], &cfg));
    }

    #[test]
    fn a_tight_run_and_a_loose_one() {
        let cfg = Config::default();
        let mut rng = Rng(7);
        let tight: Vec<f64> = (0..20).map(|_| draw(&mut rng, 100.0, 0.02)).collect();
        let loose: Vec<f64> = (0..5).map(|_| draw(&mut rng, 100.0, 0.3)).collect();
        let m = |s: &[f64]| {
            BenchMetric::new("d", "d", "tok/s", bench_suite::Better::Higher, s.to_vec())
        };
        assert!(run_tight(&[m(&tight)], &cfg));
        assert!(!run_tight(&[m(&tight), m(&loose)], &cfg));
        assert!(!run_tight(&[], &cfg));
        let (lo, hi) = median_interval(&tight, &cfg).unwrap();
        assert!(lo < 1.0 && hi > 1.0 && hi - lo < 0.05, "{lo} {hi}");
    }

    #[test]
    fn per_look_splits_the_error_rate() {
        let c = per_look(&Config::default(), 4);
        assert!((c.confidence - 0.9875).abs() < 1e-12);
        assert_eq!(per_look(&Config::default(), 1).confidence, 0.95);
    }
}

#[cfg(test)]
mod plan_tests {
    use super::*;

    #[test]
    fn the_plan_takes_the_repeats_the_pair_needs_and_fixes_only_one_server() {
        let cfg = Config::default();
        let one = Plan::new(&cfg, 1, 3, None, 30);
        assert_eq!((one.min, one.max, one.fixed), (3, 30, false));
        assert_eq!(one.rule, run_rule(&cfg));
        let fixed = Plan::new(&cfg, 1, 5, Some(5), 30);
        assert_eq!((fixed.min, fixed.max, fixed.fixed), (5, 5, true));
        assert!(!fixed.enough(&[Vec::new()]));
        // Two servers: at least PAIRED_MIN_REPEATS unless --repeats says otherwise, never fixed.
        let pair = Plan::new(&cfg, 2, 3, None, 30);
        assert_eq!(
            (pair.min, pair.max, pair.fixed),
            (PAIRED_MIN_REPEATS, 30, false)
        );
        let looks = bench_suite::planned_looks(PAIRED_MIN_REPEATS, 30).len();
        assert_eq!(pair.rule, pair_rule(&cfg, looks));
        let pair = Plan::new(&cfg, 2, 4, Some(4), 2);
        assert_eq!((pair.min, pair.max, pair.fixed), (4, 4, false));
        // Nothing measured is never enough.
        assert!(!Plan::new(&cfg, 1, 3, None, 30).enough(&[Vec::new()]));
    }
}
