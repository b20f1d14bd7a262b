//! Store answers → the same typed samples a scrape gives → the one window type diagnose judges.
//!
//! Each replica gets a grid of samples over the window. Gauges are read at each point as is;
//! counters and histograms as their raw value at each point (the store's last sample at or
//! before it), differenced here ([`deltas`]) and summed back into cumulative values that start
//! at zero: a window's increase is then the counter's own change between the window's edges,
//! whatever its jumps in between. A value below the one before it is a restart, counted from
//! zero, as Prometheus' own `increase` counts it; a restart hidden inside one step (the counter
//! back above its old value by the next point) is not seen. Histograms are read at the
//! sub-window boundaries only: a window's distribution is the difference of its two ends, so
//! nothing between them is needed.

use crate::queries::{FIELD, PART};
use engines::adapters::promql::{histogram_mut, set_scalar};
use engines::{Engine, Histogram, Sample};
use promapi::{deltas, Series};
use std::collections::BTreeMap;

/// The time grid: `points` samples `step_s` apart ending at `end`, histograms every `hist_every`
/// points.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Grid {
    pub start: f64,
    pub step_s: f64,
    /// Intervals (samples − 1).
    pub steps: usize,
    pub hist_every: usize,
}

impl Grid {
    /// A grid for `window_s` ending at `end`, split into `subs` sub-windows, each cut into steps
    /// of at least `min_step_s` (a scrape interval, so each point reads a sample of its own) and at
    /// most 10 per sub-window (enough for a gauge's mean and peak; more only costs points).
    pub fn new(end: f64, window_s: f64, subs: usize, min_step_s: f64) -> Grid {
        let subs = subs.max(1);
        let per_sub = window_s / subs as f64;
        let k = ((per_sub / min_step_s).floor() as usize).clamp(1, 10);
        let steps = subs * k;
        // On whole milliseconds, as the API takes times, so the store's points land on the grid.
        let ms = |x: f64| (x * 1000.0).round() / 1000.0;
        let step_s = ms(window_s / steps as f64).max(0.001);
        Grid {
            start: ms(end) - step_s * steps as f64,
            step_s,
            steps,
            hist_every: k,
        }
    }

    pub fn end(&self) -> f64 {
        self.start + self.step_s * self.steps as f64
    }

    pub fn t(&self, i: usize) -> f64 {
        self.start + self.step_s * i as f64
    }

    /// The grid index of a point the store returned at `t`, if it is on the grid.
    fn index(&self, t: f64) -> Option<usize> {
        let x = (t - self.start) / self.step_s;
        let i = x.round();
        ((x - i).abs() < 1e-3 && i >= 0.0 && i <= self.steps as f64).then_some(i as usize)
    }
}

/// Samples per replica being filled from the store's answers.
pub struct Builder<'a> {
    pub grid: Grid,
    by: &'a str,
    pub replicas: BTreeMap<String, Vec<Sample>>,
    /// Per replica, per histogram field: per histogram point, per part (bucket le / sum / count).
    hist: BTreeMap<(String, String), BTreeMap<usize, HistPoint>>,
}

#[derive(Default)]
struct HistPoint {
    buckets: Vec<(f64, f64)>,
    sum: Option<f64>,
    count: Option<f64>,
}

impl<'a> Builder<'a> {
    pub fn new(grid: Grid, by: &'a str, engines: &BTreeMap<String, Engine>) -> Builder<'a> {
        let replicas = engines
            .iter()
            .map(|(r, e)| {
                let v = (0..=grid.steps)
                    .map(|i| Sample::empty(grid.t(i), *e))
                    .collect();
                (r.clone(), v)
            })
            .collect();
        Builder {
            grid,
            by,
            replicas,
            hist: BTreeMap::new(),
        }
    }

    fn key<'s>(&self, s: &'s Series) -> Option<(&'s str, &'s str)> {
        Some((
            s.labels.get(self.by)?.as_str(),
            s.labels.get(FIELD)?.as_str(),
        ))
    }

    /// Gauge answers: the value at each point.
    pub fn gauges(&mut self, answer: &[Series]) {
        for s in answer {
            let Some((r, f)) = self.key(s) else { continue };
            let Some(samples) = self.replicas.get_mut(r) else {
                continue;
            };
            for &(t, v) in &s.points {
                if let (Some(i), true) = (self.grid.index(t), v.is_finite()) {
                    set_scalar(&mut samples[i], f, v);
                }
            }
        }
    }

    /// Counter answers: raw values at the points, differenced into a cumulative run from zero.
    pub fn counters(&mut self, answer: &[Series]) {
        for s in answer {
            let Some((r, f)) = self.key(s) else { continue };
            let Some(samples) = self.replicas.get_mut(r) else {
                continue;
            };
            let mut raw = vec![None; self.grid.steps + 1];
            for &(t, v) in &s.points {
                if let (Some(i), true) = (self.grid.index(t), v.is_finite()) {
                    raw[i] = Some(v);
                }
            }
            let (d, _) = deltas(&raw);
            let mut total = 0.0;
            set_scalar(&mut samples[0], f, total);
            for (i, d) in d.iter().enumerate() {
                total += d.unwrap_or(0.0);
                set_scalar(&mut samples[i + 1], f, total);
            }
        }
    }

    /// One histogram's answer (the Sample field `f`): raw values at the sub-window boundaries;
    /// sum and count tagged by part, buckets by their `le`.
    pub fn histograms(&mut self, f: &str, answer: &[Series]) {
        for s in answer {
            let Some(r) = s.labels.get(self.by).map(String::as_str) else {
                continue;
            };
            if !self.replicas.contains_key(r) {
                continue;
            }
            let le = s
                .labels
                .get("le")
                .and_then(|l| engines::prom::parse_value(l));
            let part = match s.labels.get(PART) {
                Some(p) => Some(p.as_str()),
                None => le.map(|_| "bucket"),
            };
            let points = self.hist.entry((r.to_string(), f.to_string())).or_default();
            for &(t, v) in &s.points {
                let Some(i) = self.grid.index(t) else {
                    continue;
                };
                if !v.is_finite() {
                    continue;
                }
                let p = points.entry(i).or_default();
                match (part, le) {
                    (Some("bucket"), Some(le)) if !le.is_nan() => p.buckets.push((le, v.max(0.0))),
                    (Some("sum"), _) => p.sum = Some(v),
                    (Some("count"), _) => p.count = Some(v.max(0.0)),
                    _ => {}
                }
            }
        }
    }

    /// The samples, histograms differenced into cumulative ones from zero at the first point.
    pub fn finish(mut self) -> BTreeMap<String, Vec<Sample>> {
        let at: Vec<usize> = (0..=self.grid.steps)
            .step_by(self.grid.hist_every.max(1))
            .collect();
        for ((r, f), points) in std::mem::take(&mut self.hist) {
            let Some(samples) = self.replicas.get_mut(&r) else {
                continue;
            };
            // Without a sum the mean is unknown: leave the histogram unread (as the adapters do).
            if points.values().all(|p| p.sum.is_none()) {
                continue;
            }
            // The bounds any point has (a bucket absent at a point is unread there).
            let mut les: Vec<f64> = points
                .values()
                .flat_map(|p| p.buckets.iter().map(|b| b.0))
                .collect();
            les.sort_by(f64::total_cmp);
            les.dedup();
            let raw = |part: &dyn Fn(&HistPoint) -> Option<f64>| -> Vec<Option<f64>> {
                at.iter().map(|i| points.get(i).and_then(part)).collect()
            };
            let count = raw(&|p: &HistPoint| {
                p.count
                    .or_else(|| p.buckets.iter().find(|b| b.0.is_infinite()).map(|b| b.1))
            });
            // A histogram restarts whole: its count falling marks the restart for every part
            // (a sum may fall on its own where observations are negative).
            let (count_d, restarts) = deltas(&count);
            let part_deltas = |v: Vec<Option<f64>>| -> Vec<f64> {
                (0..restarts.len())
                    .map(|k| match (v[k], v[k + 1]) {
                        (Some(_), Some(b)) if restarts[k] > 0.0 => b,
                        (Some(a), Some(b)) => b - a,
                        _ => 0.0,
                    })
                    .collect()
            };
            let sum_d = part_deltas(raw(&|p: &HistPoint| p.sum));
            let bucket_d: Vec<Vec<f64>> = les
                .iter()
                .map(|&le| {
                    part_deltas(raw(&|p: &HistPoint| {
                        p.buckets.iter().find(|b| b.0 == le).map(|b| b.1)
                    }))
                })
                .collect();
            let mut cum = Histogram {
                buckets: les.iter().map(|&le| (le, 0.0)).collect(),
                sum: 0.0,
                count: 0.0,
            };
            if let Some(h) = histogram_mut(&mut samples[0], &f) {
                *h = Some(cum.clone());
            }
            for (k, &i) in at.iter().enumerate().skip(1) {
                for (j, (_, c)) in cum.buckets.iter_mut().enumerate() {
                    *c += bucket_d[j][k - 1].max(0.0);
                }
                cum.sum += sum_d[k - 1];
                cum.count += count_d[k - 1].unwrap_or(0.0);
                if let Some(h) = histogram_mut(&mut samples[i], &f) {
                    *h = Some(cum.clone());
                }
            }
        }
        self.replicas
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn series(labels: &[(&str, &str)], points: Vec<(f64, f64)>) -> Series {
        Series {
            labels: labels
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            points,
        }
    }

    #[test]
    fn grid_keeps_counter_steps_wide_enough() {
        let g = Grid::new(1000.0, 600.0, 6, 5.0);
        assert_eq!((g.steps, g.hist_every, g.step_s), (60, 10, 10.0));
        let g = Grid::new(1000.0, 30.0, 6, 5.0);
        assert_eq!((g.steps, g.hist_every, g.step_s), (6, 1, 5.0));
        assert_eq!(g.end(), 1000.0);
        assert_eq!(g.index(975.0), Some(1));
        assert_eq!(g.index(977.0), None);
    }

    #[test]
    fn raw_values_become_a_cumulative_run_the_window_rates_agree_with() {
        let g = Grid::new(100.0, 60.0, 6, 5.0); // step 5 s, 12 steps, histograms every 2
        let engines = BTreeMap::from([("a".to_string(), Engine::Vllm)]);
        let mut b = Builder::new(g, "instance", &engines);
        let lab = [("instance", "a"), (FIELD, "generation_tokens")];
        // 50 tokens every 5 s step = 10 tok/s, from a counter already at 7000.
        b.counters(&[series(
            &lab,
            (0..=12)
                .map(|i| (g.t(i), 7000.0 + 50.0 * i as f64))
                .collect(),
        )]);
        b.gauges(&[series(
            &[("instance", "a"), (FIELD, "running")],
            (0..=12).map(|i| (g.t(i), i as f64)).collect(),
        )]);
        let h = |part: &str, le: Option<&str>, v: f64| {
            let mut l = vec![("instance", "a")];
            match le {
                Some(le) => l.push(("le", le)),
                None => l.push((PART, part)),
            }
            // Raw, cumulative since the engine started: 100 × v before the window, v more
            // in each sub-window.
            series(
                &l,
                (0..=6)
                    .map(|j| (g.t(2 * j), v * (100 + j) as f64))
                    .collect(),
            )
        };
        b.histograms(
            "ttft",
            &[
                h("bucket", Some("0.1"), 3.0),
                h("bucket", Some("+Inf"), 4.0),
                h("sum", None, 1.0),
                h("count", None, 4.0),
            ],
        );
        let s = b.finish().remove("a").unwrap();
        let w = diagnose::window::stats(&s, None);
        assert_eq!(w.duration_s, 60.0);
        assert_eq!(w.generation_tps, Some(10.0));
        assert_eq!(w.running.unwrap().peak, 12.0);
        let ttft = w.ttft.unwrap();
        assert_eq!((ttft.count, ttft.mean), (24.0, 0.25));
        let subs = diagnose::window::sub_windows(&s, 6, None);
        assert!(subs.iter().all(|w| w.ttft.unwrap().count == 4.0));
    }

    /// What tiled increase() got wrong: a counter that jumps between two points counts its
    /// whole jump once, wherever the jump falls; a restart counts from zero.
    #[test]
    fn a_burst_counts_once_and_a_restart_from_zero() {
        let g = Grid::new(100.0, 60.0, 6, 5.0);
        let engines = BTreeMap::from([("a".to_string(), Engine::Vllm)]);
        let mut b = Builder::new(g, "instance", &engines);
        // Two 600-token bursts (steps 3 and 9), then a restart at step 11 (back to 40).
        let prompt: Vec<(f64, f64)> = (0..=12)
            .map(|i| {
                let v = match i {
                    0..=2 => 1000.0,
                    3..=8 => 1600.0,
                    9..=10 => 2200.0,
                    _ => 40.0 + 10.0 * (i - 11) as f64,
                };
                (g.t(i), v)
            })
            .collect();
        b.counters(&[series(
            &[("instance", "a"), (FIELD, "prompt_tokens")],
            prompt,
        )]);
        let s = b.finish().remove("a").unwrap();
        let total = |i: usize| s[i].prompt_tokens.unwrap();
        assert_eq!(total(0), 0.0);
        assert_eq!(total(10), 1200.0, "both bursts, once each");
        assert_eq!(
            total(12),
            1200.0 + 40.0 + 10.0,
            "the restart counts from zero"
        );
    }
}
