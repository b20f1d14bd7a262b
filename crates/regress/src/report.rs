//! The `headroom.regress` document (docs/json/regress.md) and the comparison that fills it:
//! the latest group of bench runs against a baseline, metric by metric, what changed in their
//! identities, the machine's load per run, and the version series.
//!
//! Fields are in alphabetical order, the order the documents have always been written in.

use serde::{Deserialize, Serialize};

use crate::runs::{
    group_key, groups, identity_map, load_between_note, load_within_note, loads, select, BenchRun,
    Group, GroupRef, RunLoad, SelectError, Shape,
};
use crate::series::{version_series, Boundary, VersionSamples};
use crate::{compare_family, diff, Better, Change, Comparison, Config, MetricSamples, Verdict};
use loadgen::bench_suite::{self, Clock};

pub const SCHEMA: &str = "headroom.regress/3";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RegressDoc {
    pub baseline: GroupRef,
    pub changed: Vec<Change>,
    pub db: String,
    pub headline: Vec<String>,
    /// Every run's machine load, per side.
    pub host: Loads,
    pub latest: GroupRef,
    pub method: Method,
    pub metrics: Vec<MetricComparison>,
    pub notes: Vec<String>,
    pub schema: String,
    pub series: Option<Series>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Loads {
    pub baseline: Vec<RunLoad>,
    pub latest: Vec<RunLoad>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Method {
    pub confidence: f64,
    pub interval: String,
    pub resamples: usize,
    pub seed: String,
    pub test: String,
    pub threshold_pct: f64,
}

/// One metric, baseline against latest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MetricComparison {
    pub baseline: f64,
    pub better: Better,
    /// Whose clock timed the samples (the same on both sides, or the metric is not compared).
    pub clock: Clock,
    /// Confidence of `low`…`high`: the level the metric was decided at (Holm-adjusted).
    pub confidence: f64,
    /// The least slowdown in percent these samples would have called regressed (null: none
    /// below 95 %, too few samples).
    pub detectable_pct: Option<f64>,
    pub high: f64,
    pub label: String,
    pub latest: f64,
    pub low: f64,
    pub n_baseline: usize,
    pub n_latest: usize,
    pub name: String,
    pub ratio: f64,
    pub reason: String,
    pub sentence: String,
    pub slowdown_high_pct: f64,
    pub slowdown_low_pct: f64,
    pub slowdown_pct: f64,
    /// The rank test: "Mann-Whitney U" (independent runs) or "Wilcoxon signed-rank" (runs
    /// benched in alternation, compared pair by pair).
    pub test: String,
    /// "exact" or "normal".
    pub test_method: String,
    pub test_p: f64,
    /// U of the baseline, or W+ of the pairs.
    pub test_statistic: f64,
    pub unit: String,
    pub verdict: Verdict,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Series {
    pub metrics: Vec<SeriesMetric>,
    pub versions: Vec<GroupRef>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeriesMetric {
    pub first_move: Option<BoundaryDoc>,
    pub label: String,
    pub moves: Vec<BoundaryDoc>,
    pub name: String,
    pub points: Vec<PointDoc>,
    pub unit: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PointDoc {
    pub median: f64,
    pub n: usize,
    pub step_ratio: Option<f64>,
    pub step_verdict: Option<Verdict>,
    pub version: String,
    pub vs_first: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoundaryDoc {
    pub from: String,
    pub gradual: bool,
    pub high: f64,
    pub low: f64,
    pub ratio: f64,
    pub sentence: String,
    pub to: String,
    pub verdict: Verdict,
}

impl BoundaryDoc {
    fn of(b: &Boundary) -> Self {
        BoundaryDoc {
            from: b.from.clone(),
            gradual: b.gradual,
            high: b.comparison.high,
            low: b.comparison.low,
            ratio: b.comparison.ratio,
            sentence: b.comparison.sentence(),
            to: b.to.clone(),
            verdict: b.comparison.verdict,
        }
    }
}

/// Which runs to compare.
#[derive(Debug, Clone, Default)]
pub struct Query {
    /// A run id or a group key; default: the group before the latest.
    pub baseline: Option<String>,
    /// A run id or a group key; default: the newest run's group.
    pub latest: Option<String>,
    /// Named in the report (`db`).
    pub db: String,
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RegressError {
    #[error("no bench runs in {0}: run `headroom bench --url ... --label <version>` first")]
    NoRuns(String),
    #[error(transparent)]
    Select(#[from] SelectError),
    #[error(
        "only one version in {db} ({group}): bench the other version with another --label, or \
name a --baseline"
    )]
    OneVersion { db: String, group: String },
    #[error("the baseline and the latest are the same runs ({0})")]
    Same(String),
    #[error(
        "run {run} is in both the baseline {baseline} and the latest {latest}: name disjoint runs"
    )]
    Shared {
        run: i64,
        baseline: String,
        latest: String,
    },
    #[error(
        "the baseline ran {baseline} and the latest {latest}: their metrics are defined \
differently and cannot be compared; bench both with the same preset"
    )]
    Shapes { baseline: String, latest: String },
}

/// Compare the runs `q` names; `notes` arrive with what the reader already skipped.
pub fn regress(
    runs: &[BenchRun],
    q: &Query,
    cfg: &Config,
    mut notes: Vec<String>,
) -> Result<RegressDoc, RegressError> {
    let last = runs
        .last()
        .ok_or_else(|| RegressError::NoRuns(q.db.clone()))?;
    let latest = match &q.latest {
        Some(s) => select(runs, s, "latest")?,
        None => select(runs, &group_key(last), "latest")?,
    };
    let baseline = match &q.baseline {
        Some(s) => select(runs, s, "baseline")?,
        None => {
            let ids = latest.ids();
            let prev = runs
                .iter()
                .rev()
                .find(|r| !ids.contains(&r.id) && group_key(r) != latest.key)
                .ok_or_else(|| RegressError::OneVersion {
                    db: q.db.clone(),
                    group: latest.describe(),
                })?;
            select(runs, &group_key(prev), "baseline")?
        }
    };
    if baseline.ids() == latest.ids() {
        return Err(RegressError::Same(latest.describe()));
    }
    let (bi, li) = (baseline.ids(), latest.ids());
    if let Some(&run) = bi.iter().find(|i| li.contains(i)) {
        return Err(RegressError::Shared {
            run,
            baseline: baseline.describe(),
            latest: latest.describe(),
        });
    }
    let baseline = baseline.same_shape_only(&mut notes);
    let latest = latest.same_shape_only(&mut notes);
    let (bs, ls) = (baseline.shape(), latest.shape());
    if bs != ls {
        return Err(RegressError::Shapes {
            baseline: bs.describe(),
            latest: ls.describe(),
        });
    }
    for g in [&baseline, &latest] {
        let first = identity_map(&g.runs[0].doc);
        for r in &g.runs[1..] {
            let d = diff(&first, &identity_map(&r.doc));
            if !d.is_empty() {
                notes.push(format!(
                    "runs {} and {} of \"{}\" differ in: {}",
                    g.runs[0].id,
                    r.id,
                    g.key,
                    d.iter()
                        .map(|c| c.field.clone())
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
        }
    }

    // Metrics measured on both sides on one clock, compared as one family (Holm over their U
    // tests), in the latest run's order.
    let mut measured = Vec::new();
    for name in latest.metric_names() {
        let (Some((b, bm)), Some((l, lm))) = (baseline.samples(&name), latest.samples(&name))
        else {
            notes.push(format!("{name}: not measured in both runs"));
            continue;
        };
        let clock = |m: &bench_suite::BenchMetric| m.clock.unwrap_or(Clock::Client);
        if clock(bm) != clock(lm) {
            notes.push(format!(
                "{name}: not compared: timed on the {:?} clock in the baseline and the {:?} clock \
in the latest",
                clock(bm),
                clock(lm)
            ));
            continue;
        }
        measured.push((name, lm.clone(), b, l));
    }
    // Two runs benched in alternation (one `bench --against`) are compared pair by pair: sample
    // i of each was taken back to back, so the machine's drift between rounds cancels.
    let pair_of = |g: &Group| match g.runs.as_slice() {
        [r] => r.doc.sampling.as_ref().and_then(|s| s.pair.clone()),
        _ => None,
    };
    let paired = pair_of(&baseline).is_some() && pair_of(&baseline) == pair_of(&latest);
    if paired {
        notes.push(
            "the two runs were benched in alternation: each metric is compared pair by pair \
(the median of the rounds' ratios, Wilcoxon's signed-rank test)"
                .into(),
        );
    }
    let family: Vec<MetricSamples> = measured
        .iter()
        .map(|(_, meta, b, l)| MetricSamples {
            design: if paired && b.len() == l.len() {
                crate::Design::Paired
            } else {
                crate::Design::Independent
            },
            baseline: b,
            latest: l,
            better: better_of(meta),
        })
        .collect();
    let mut metrics = Vec::new();
    for ((name, meta, _, _), r) in measured.iter().zip(compare_family(&family, cfg)) {
        match r {
            Ok(c) => metrics.push(metric_doc(name, meta, &c)),
            Err(e) => notes.push(format!("{name}: {e}")),
        }
    }
    let (bd, ld) = (&baseline.last().doc, &latest.last().doc);
    let changed = diff(&identity_map(bd), &identity_map(ld));
    let unknown = |d: &loadgen::bench_doc::BenchDoc| d.identity.who().is_none();
    if unknown(bd) && unknown(ld) {
        notes.push(
            "neither side records its engine version or build (a build without a version says \
b0-unknown): whether the two are the same build is unknown, and \"what changed\" cannot say"
                .into(),
        );
    }
    for g in [&baseline, &latest] {
        notes.extend(load_within_note(g));
    }
    notes.extend(load_between_note(&baseline, &latest));
    let series = series(runs, &latest, cfg, &mut notes);
    let headline = metrics
        .iter()
        .filter(|m| m.verdict != Verdict::Unchanged)
        .map(|m| m.sentence.clone())
        .collect();
    Ok(RegressDoc {
        baseline: baseline.reference(),
        changed,
        db: q.db.clone(),
        headline,
        host: Loads {
            baseline: loads(&baseline),
            latest: loads(&latest),
        },
        latest: latest.reference(),
        method: Method {
            confidence: cfg.confidence,
            interval: if paired {
                "percentile bootstrap on the median of the pairs' ratios latest / baseline, \
pairs resampled whole"
            } else {
                "percentile bootstrap on median(latest) / median(baseline), both sides \
resampled independently"
            }
            .into(),
            resamples: cfg.resamples,
            seed: format!("{:#018x}", cfg.seed),
            test: format!(
                "two-sided {} (exact without ties, else normal with tie and continuity \
correction), Holm's step-down over the metrics compared (over the steps of each metric in the \
series)",
                if paired {
                    "Wilcoxon signed-rank on the logarithms of the pairs' ratios"
                } else {
                    "Mann-Whitney U"
                }
            ),
            threshold_pct: cfg.threshold * 100.0,
        },
        metrics,
        notes,
        schema: SCHEMA.into(),
        series,
    })
}

fn better_of(m: &bench_suite::BenchMetric) -> Better {
    match m.better {
        bench_suite::Better::Higher => Better::Higher,
        bench_suite::Better::Lower => Better::Lower,
    }
}

fn metric_doc(name: &str, meta: &bench_suite::BenchMetric, c: &Comparison) -> MetricComparison {
    let (s, lo, hi) = c.slowdown();
    MetricComparison {
        baseline: c.baseline,
        better: c.better,
        clock: meta.clock.unwrap_or(Clock::Client),
        confidence: c.confidence,
        detectable_pct: c.detectable.map(|d| d * 100.0),
        high: c.high,
        label: meta.label.clone(),
        latest: c.latest,
        low: c.low,
        test: c.test.name.to_string(),
        test_method: c.test.method.to_string(),
        test_p: c.test.p,
        test_statistic: c.test.statistic,
        n_baseline: c.n_baseline,
        n_latest: c.n_latest,
        name: name.to_string(),
        ratio: c.ratio,
        reason: c.reason.clone(),
        sentence: format!("{} {}", meta.label, c.sentence()),
        slowdown_high_pct: hi * 100.0,
        slowdown_low_pct: lo * 100.0,
        slowdown_pct: s * 100.0,
        unit: meta.unit.clone(),
        verdict: c.verdict,
    }
}

/// The version series over every group whose suite matches the latest's, when there are 3+.
fn series(
    runs: &[BenchRun],
    latest: &Group,
    cfg: &Config,
    notes: &mut Vec<String>,
) -> Option<Series> {
    let want = latest.shape();
    let all: Vec<Group> = groups(runs)
        .into_iter()
        .map(|g| {
            let mut quiet = Vec::new();
            // Within a group, only the runs of its newest run's shape; the group counts as
            // that shape.
            g.same_shape_only(&mut quiet)
        })
        .collect();
    let (same, other): (Vec<Group>, Vec<Group>) = all.into_iter().partition(|g| g.shape() == want);
    if same.len() < 3 {
        return None;
    }
    if !other.is_empty() {
        notes.push(format!(
            "series: {} group(s) with another suite shape left out ({})",
            other.len(),
            other
                .iter()
                .map(|g| g.key.clone())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    let mut out = Vec::new();
    for name in latest.metric_names() {
        let mut versions = Vec::new();
        let mut meta = None;
        for g in &same {
            if let Some((s, m)) = g.samples(&name) {
                versions.push(VersionSamples {
                    version: g.key.clone(),
                    samples: s,
                });
                meta = Some(m.clone());
            }
        }
        let Some(meta) = meta.filter(|_| versions.len() >= 3) else {
            continue;
        };
        match version_series(&versions, better_of(&meta), cfg) {
            Ok(r) => out.push(SeriesMetric {
                first_move: r.first_move.as_ref().map(BoundaryDoc::of),
                label: meta.label.clone(),
                moves: r.moves.iter().map(BoundaryDoc::of).collect(),
                name,
                points: r
                    .points
                    .iter()
                    .map(|p| PointDoc {
                        median: p.median,
                        n: p.n,
                        step_ratio: p.step.as_ref().map(|c| c.ratio),
                        step_verdict: p.step.as_ref().map(|c| c.verdict),
                        version: p.version.clone(),
                        vs_first: p.vs_first,
                    })
                    .collect(),
                unit: meta.unit.clone(),
            }),
            Err(e) => notes.push(format!("series {name}: {e}")),
        }
    }
    Some(Series {
        metrics: out,
        versions: same.iter().map(Group::reference).collect(),
    })
}

/// Shapes are compared, never pooled: re-exported for readers that group runs themselves.
pub fn shape_of(r: &BenchRun) -> Shape {
    Shape::of(&r.doc.suite)
}

#[cfg(test)]
mod tests {
    use super::*;
    use engines::identity::{Host, Process};
    use loadgen::bench_doc::BenchDoc;
    use loadgen::bench_suite::BenchMetric;

    /// A real version-1 document (see loadgen's tests/data), reshaped per case.
    fn base() -> BenchDoc {
        let v: serde_json::Value =
            serde_json::from_str(include_str!("../../loadgen/tests/data/bench-v1.json")).unwrap();
        BenchDoc::read(&v).unwrap()
    }

    fn run(id: i64, label: &str, decode: &[f64], f: impl FnOnce(&mut BenchDoc)) -> BenchRun {
        let mut doc = base();
        doc.metrics = vec![BenchMetric::new(
            "decode_tps",
            "decode, 1 stream",
            "tok/s",
            bench_suite::Better::Higher,
            decode.to_vec(),
        )];
        f(&mut doc);
        BenchRun {
            id,
            created: id as f64,
            label: Some(label.into()),
            doc,
        }
    }

    fn q(b: &str, l: &str) -> Query {
        Query {
            baseline: Some(b.into()),
            latest: Some(l.into()),
            db: "test".into(),
        }
    }

    const FIVE: [f64; 5] = [90.0, 91.0, 89.0, 90.5, 89.5];

    #[test]
    fn runs_of_another_suite_are_never_pooled() {
        let runs = vec![
            run(1, "a", &FIVE, |_| {}),
            run(2, "a", &[10.0; 5], |d| d.suite.gen_tokens = 128),
            run(3, "a", &FIVE, |_| {}),
            run(4, "b", &FIVE, |_| {}),
        ];
        let r = regress(&runs, &q("a", "b"), &Config::default(), vec![]).unwrap();
        assert_eq!(r.baseline.run_ids, vec![1, 3], "{:?}", r.notes);
        assert!(
            r.notes.iter().any(|n| n.contains("run(s) 2 left out")),
            "{:?}",
            r.notes
        );
        assert_eq!(r.metrics[0].n_baseline, 10);
        // Sides of different shapes are refused, not compared.
        let runs = vec![
            run(1, "a", &FIVE, |_| {}),
            run(2, "b", &FIVE, |d| d.suite.prefill_lengths = vec![128, 512]),
        ];
        let e = regress(&runs, &q("a", "b"), &Config::default(), vec![]).unwrap_err();
        assert!(matches!(e, RegressError::Shapes { .. }), "{e}");
    }

    #[test]
    fn a_flag_only_the_command_line_shows_is_named() {
        let argv = |extra: &[&str]| {
            let mut v: Vec<String> = ["vllm", "serve", "m", "--max-num-seqs", "8"]
                .iter()
                .map(|s| s.to_string())
                .collect();
            v.extend(extra.iter().map(|s| s.to_string()));
            Some(Process {
                argv: v,
                found: "--pid".into(),
                pid: 1,
            })
        };
        let runs = vec![
            run(1, "a", &FIVE, |d| d.identity.process = argv(&[])),
            run(2, "b", &FIVE, |d| {
                d.identity.process = argv(&["--enforce-eager"])
            }),
        ];
        let r = regress(&runs, &q("a", "b"), &Config::default(), vec![]).unwrap();
        let c: Vec<&str> = r.changed.iter().map(|c| c.field.as_str()).collect();
        assert_eq!(c, ["argv.--enforce-eager"], "{:?}", r.changed);
        assert_eq!(r.changed[0].latest.as_deref(), Some("(set)"));
    }

    #[test]
    fn every_run_s_load_is_shown_and_a_group_of_mixed_load_is_named() {
        let load = |l: f64| {
            move |d: &mut BenchDoc| {
                d.identity.host = Some(Host {
                    cpus: Some(2),
                    loadavg_1m_end: l,
                    loadavg_1m_start: l,
                    source: "test".into(),
                })
            }
        };
        let runs = vec![
            run(1, "a", &FIVE, load(1.0)),
            run(2, "b", &FIVE, load(1.0)),
            run(3, "a", &FIVE, load(2.4)),
            run(4, "b", &FIVE, load(1.1)),
        ];
        let r = regress(&runs, &q("a", "b"), &Config::default(), vec![]).unwrap();
        let ids: Vec<i64> = r.host.baseline.iter().map(|l| l.run_id).collect();
        assert_eq!(ids, [1, 3], "every run of the side, not the newest alone");
        assert_eq!(r.host.latest.len(), 2);
        let n: Vec<&String> = r
            .notes
            .iter()
            .filter(|n| n.contains("ran under different load"))
            .collect();
        assert_eq!(n.len(), 1, "{:?}", r.notes);
        assert!(
            n[0].contains("\"a\"") && n[0].contains("run 3 at ~2.4"),
            "{}",
            n[0]
        );
    }

    #[test]
    fn versionless_builds_are_not_called_the_same_build() {
        let runs = vec![
            run(1, "a", &FIVE, |d| d.identity.build = None),
            run(2, "b", &FIVE, |d| d.identity.build = None),
        ];
        let r = regress(&runs, &q("a", "b"), &Config::default(), vec![]).unwrap();
        assert!(
            r.notes.iter().any(|n| n.contains("same build is unknown")),
            "{:?}",
            r.notes
        );
    }

    #[test]
    fn engine_and_client_clocks_are_not_compared() {
        let runs = vec![
            run(1, "a", &FIVE, |d| d.metrics[0].clock = Some(Clock::Engine)),
            run(2, "b", &FIVE, |d| d.metrics[0].clock = Some(Clock::Client)),
        ];
        let r = regress(&runs, &q("a", "b"), &Config::default(), vec![]).unwrap();
        assert!(r.metrics.is_empty());
        assert!(
            r.notes.iter().any(|n| n.contains("not compared")),
            "{:?}",
            r.notes
        );
    }

    #[test]
    fn the_document_reads_back_strictly() {
        let runs = vec![run(1, "a", &FIVE, |_| {}), run(2, "b", &FIVE, |_| {})];
        let r = regress(&runs, &q("a", "b"), &Config::default(), vec![]).unwrap();
        let v = serde_json::to_value(&r).unwrap();
        let back: RegressDoc = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(back, r);
        let mut extra = v;
        extra["metrics"][0]["extra"] = 1.into();
        assert!(serde_json::from_value::<RegressDoc>(extra).is_err());
    }
}
