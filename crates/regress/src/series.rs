//! A metric across engine versions, in the order they were run: where did it move first?
//!
//! Each version is compared with the one before it (the step a person upgraded through); the
//! steps of a metric are one family, held to Holm's procedure ([`crate::compare_family`]). The
//! first step that moved beyond noise is the version boundary: in a user's report of such a regression, 0.1.40.2 is
//! where decode fell from ~36 to ~17 tok/s, and 0.1.40.4 is where it came back. When no single
//! step moves but the last version differs from the first (a slow drift, each step under the
//! noise floor), the first version that differs from the first one is named instead, marked
//! gradual.

use crate::{
    compare_family, median, Better, Comparison, Config, MetricSamples, StatsError, Verdict,
};
use serde::Serialize;

/// One version's samples of one metric.
#[derive(Debug, Clone, PartialEq)]
pub struct VersionSamples {
    /// The version's name as the user labelled it (or the engine's version string).
    pub version: String,
    pub samples: Vec<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SeriesPoint {
    pub version: String,
    pub median: f64,
    pub n: usize,
    /// Median / the first version's median.
    pub vs_first: f64,
    /// This version against the one before it (None for the first).
    pub step: Option<Comparison>,
}

/// A version where the metric moved.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Boundary {
    /// Index into the series.
    pub index: usize,
    pub from: String,
    pub to: String,
    pub comparison: Comparison,
    /// True when no single step moved and this is the first version that differs from the
    /// first one.
    pub gradual: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SeriesReport {
    pub points: Vec<SeriesPoint>,
    /// Every step that moved, in order.
    pub moves: Vec<Boundary>,
    /// The first version where the metric moved (a step, else a gradual drift).
    pub first_move: Option<Boundary>,
}

/// Walk the versions in order; see the module docs.
pub fn version_series(
    versions: &[VersionSamples],
    better: Better,
    cfg: &Config,
) -> Result<SeriesReport, StatsError> {
    let mut points = Vec::with_capacity(versions.len());
    let mut moves = Vec::new();
    let first = match versions.first() {
        Some(f) => median(&f.samples).ok_or(StatsError::Empty {
            side: "first version",
        })?,
        None => {
            return Ok(SeriesReport {
                points,
                moves,
                first_move: None,
            })
        }
    };
    // The steps of one metric are one family (Holm over them): "where did it move?"
    let pairs: Vec<MetricSamples> = versions
        .windows(2)
        .map(|w| MetricSamples {
            design: crate::Design::Independent,
            baseline: &w[0].samples,
            latest: &w[1].samples,
            better,
        })
        .collect();
    let mut steps = compare_family(&pairs, cfg).into_iter();
    for (i, v) in versions.iter().enumerate() {
        let step = if i == 0 {
            None
        } else {
            Some(steps.next().expect("one step per pair")?)
        };
        let m = median(&v.samples).ok_or(StatsError::Empty { side: "latest" })?;
        if let Some(c) = step.as_ref().filter(|c| c.verdict != Verdict::Unchanged) {
            moves.push(Boundary {
                index: i,
                from: versions[i - 1].version.clone(),
                to: v.version.clone(),
                comparison: c.clone(),
                gradual: false,
            });
        }
        points.push(SeriesPoint {
            version: v.version.clone(),
            median: m,
            n: v.samples.len(),
            vs_first: if first != 0.0 { m / first } else { f64::NAN },
            step,
        });
    }
    let mut first_move = moves.first().cloned();
    if first_move.is_none() && versions.len() > 2 {
        let against_first: Vec<MetricSamples> = versions[1..]
            .iter()
            .map(|v| MetricSamples {
                design: crate::Design::Independent,
                baseline: &versions[0].samples,
                latest: &v.samples,
                better,
            })
            .collect();
        let all = compare_family(&against_first, cfg);
        for (j, c) in all.into_iter().enumerate() {
            let (i, v) = (j + 1, &versions[j + 1]);
            let c = c?;
            if c.verdict != Verdict::Unchanged {
                first_move = Some(Boundary {
                    index: i,
                    from: versions[0].version.clone(),
                    to: v.version.clone(),
                    comparison: c,
                    gradual: true,
                });
                break;
            }
        }
    }
    Ok(SeriesReport {
        points,
        moves,
        first_move,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(name: &str, center: f64, seed: u64) -> VersionSamples {
        // ±2 % deterministic spread around the center.
        let offs = [-0.02, 0.011, 0.0, -0.007, 0.019, -0.013];
        let s = offs
            .iter()
            .cycle()
            .skip(seed as usize % offs.len())
            .take(6)
            .map(|o| center * (1.0 + o))
            .collect();
        VersionSamples {
            version: name.into(),
            samples: s,
        }
    }

    #[test]
    fn spec_story_36_17_35_points_at_the_bad_version_and_the_fix() {
        let series = [
            v("0.1.40.0", 36.0, 0),
            v("0.1.40.1", 36.3, 1),
            v("0.1.40.2", 17.0, 2),
            v("0.1.40.3", 17.4, 3),
            v("0.1.40.4", 35.0, 4),
        ];
        let r = version_series(&series, Better::Higher, &Config::default()).unwrap();
        let first = r.first_move.as_ref().unwrap();
        assert_eq!(
            (first.from.as_str(), first.to.as_str(), first.gradual),
            ("0.1.40.1", "0.1.40.2", false)
        );
        assert_eq!(first.comparison.verdict, Verdict::Regressed);
        let (s, _, _) = first.comparison.slowdown();
        assert!((s - (1.0 - 17.0 / 36.3)).abs() < 0.02, "{s}");
        assert_eq!(r.moves.len(), 2, "{:?}", r.moves);
        assert_eq!(r.moves[1].to, "0.1.40.4");
        assert_eq!(r.moves[1].comparison.verdict, Verdict::Improved);
        assert_eq!(r.points.len(), 5);
        assert!(r.points[0].step.is_none());
        assert!((r.points[2].vs_first - 17.0 / 36.0).abs() < 0.02);
        assert_eq!(
            r.points[3].step.as_ref().unwrap().verdict,
            Verdict::Unchanged
        );
    }

    #[test]
    fn flat_series_has_no_boundary() {
        let series = [v("a", 20.0, 0), v("b", 20.1, 1), v("c", 19.9, 2)];
        let r = version_series(&series, Better::Higher, &Config::default()).unwrap();
        assert!(r.moves.is_empty() && r.first_move.is_none(), "{r:?}");
    }

    #[test]
    fn slow_drift_is_named_as_gradual() {
        // Each step −4 % (under the 5 % floor), −15 % over the series.
        let series = [
            v("1", 100.0, 0),
            v("2", 96.0, 1),
            v("3", 92.0, 2),
            v("4", 88.5, 3),
        ];
        let r = version_series(&series, Better::Higher, &Config::default()).unwrap();
        assert!(r.moves.is_empty(), "{:?}", r.moves);
        let f = r.first_move.unwrap();
        assert!(f.gradual);
        assert_eq!((f.from.as_str(), f.to.as_str()), ("1", "3"));
        assert_eq!(f.comparison.verdict, Verdict::Regressed);
    }

    #[test]
    fn latency_series_regresses_upward() {
        let series = [v("a", 100.0, 0), v("b", 160.0, 1), v("c", 158.0, 2)];
        let r = version_series(&series, Better::Lower, &Config::default()).unwrap();
        let f = r.first_move.unwrap();
        assert_eq!(f.to, "b");
        assert_eq!(f.comparison.verdict, Verdict::Regressed);
    }

    #[test]
    fn empty_and_single() {
        let r = version_series(&[], Better::Higher, &Config::default()).unwrap();
        assert!(r.points.is_empty() && r.first_move.is_none());
        let r = version_series(&[v("only", 5.0, 0)], Better::Higher, &Config::default()).unwrap();
        assert_eq!(r.points.len(), 1);
        assert!(r.first_move.is_none());
    }
}
