//! Store answers → the same typed samples a scrape gives → the one window type diagnose judges.
//!
//! Each replica gets a grid of samples over the window. Gauges are read at each point as is;
//! counters and histograms as the store's `increase` over the step before each point, summed
//! back into cumulative values that start at zero (the store has already handled resets, so the
//! run is reset-free). Histograms are read at the sub-window boundaries only: a window's
//! distribution is the difference of its two ends, so nothing between them is needed.

use crate::client::Series;
use crate::queries::{FIELD, PART};
use engines::adapters::promql::{histogram_mut, set_scalar};
use engines::{Engine, Histogram, Sample};
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
    /// of at least `min_step_s` (a counter's increase needs two scrapes inside its step) and at
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

    /// Counter answers: increases per step, summed into a cumulative run from zero.
    pub fn counters(&mut self, answer: &[Series]) {
        for s in answer {
            let Some((r, f)) = self.key(s) else { continue };
            let Some(samples) = self.replicas.get_mut(r) else {
                continue;
            };
            let mut inc = vec![0.0; self.grid.steps + 1];
            for &(t, v) in &s.points {
                if let (Some(i), true) = (self.grid.index(t), v.is_finite()) {
                    if i > 0 {
                        inc[i] = v.max(0.0);
                    }
                }
            }
            let mut total = 0.0;
            for (i, d) in inc.iter().enumerate() {
                total += d;
                set_scalar(&mut samples[i], f, total);
            }
        }
    }

    /// One histogram's answer (the Sample field `f`): increases per sub-window; sum and count
    /// tagged by part, buckets by their `le`.
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
                if i == 0 || !v.is_finite() {
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

    /// The samples, histograms summed into cumulative ones from zero at the first point.
    pub fn finish(mut self) -> BTreeMap<String, Vec<Sample>> {
        for ((r, f), points) in std::mem::take(&mut self.hist) {
            let Some(samples) = self.replicas.get_mut(&r) else {
                continue;
            };
            // The bounds every point shares (a bucket absent at one point counts 0 there).
            let mut les: Vec<f64> = points
                .values()
                .flat_map(|p| p.buckets.iter().map(|b| b.0))
                .collect();
            les.sort_by(f64::total_cmp);
            les.dedup();
            let mut cum = Histogram {
                buckets: les.iter().map(|&le| (le, 0.0)).collect(),
                sum: 0.0,
                count: 0.0,
            };
            // Without a sum the mean is unknown: leave the histogram unread (as the adapters do).
            if points.values().all(|p| p.sum.is_none()) {
                continue;
            }
            if let Some(h) = histogram_mut(&mut samples[0], &f) {
                *h = Some(cum.clone());
            }
            let mut i = self.grid.hist_every;
            while i <= self.grid.steps {
                if let Some(p) = points.get(&i) {
                    for (le, c) in cum.buckets.iter_mut() {
                        *c += p
                            .buckets
                            .iter()
                            .find(|b| b.0 == *le)
                            .map(|b| b.1)
                            .unwrap_or(0.0);
                    }
                    cum.sum += p.sum.unwrap_or(0.0);
                    cum.count += p
                        .count
                        .or_else(|| p.buckets.iter().find(|b| b.0.is_infinite()).map(|b| b.1))
                        .unwrap_or(0.0);
                }
                if let Some(h) = histogram_mut(&mut samples[i], &f) {
                    *h = Some(cum.clone());
                }
                i += self.grid.hist_every;
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
    fn increases_become_a_cumulative_run_the_window_rates_agree_with() {
        let g = Grid::new(100.0, 60.0, 6, 5.0); // step 5 s, 12 steps, histograms every 2
        let engines = BTreeMap::from([("a".to_string(), Engine::Vllm)]);
        let mut b = Builder::new(g, "instance", &engines);
        let lab = [("instance", "a"), (FIELD, "generation_tokens")];
        // 50 tokens every 5 s step = 10 tok/s; the point at the window's start is ignored.
        b.counters(&[series(&lab, (0..=12).map(|i| (g.t(i), 50.0)).collect())]);
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
            series(&l, (1..=6).map(|j| (g.t(2 * j), v)).collect())
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
}
