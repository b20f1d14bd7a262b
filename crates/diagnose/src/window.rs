//! Window statistics from cumulative samples: gauge mean and peak, counter rates, histogram
//! means and quantiles from bucket deltas. The same over sub-windows, so a finding can say in
//! what share of the window it held.

use engines::{Histogram, Sample};
use serde::{Deserialize, Serialize};

/// Mean and peak of a gauge over the window's scrapes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GaugeStats {
    pub mean: f64,
    pub peak: f64,
}

/// A latency or length distribution over the window, from bucket deltas.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Dist {
    /// Observations in the window.
    pub count: f64,
    pub mean: f64,
    pub p50: Option<f64>,
    pub p95: Option<f64>,
    /// Set when `p50` is a bucket bound rather than an interpolation (see [`Bound`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p50_bound: Option<Bound>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p95_bound: Option<Bound>,
}

/// A quantile the buckets cannot place inside a bucket: the figure is the bucket's bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Bound {
    /// The quantile is at most the figure (its bucket is the first, or the highest that holds
    /// a sample, where interpolating would invent where the samples lie).
    #[serde(rename = "at_most")]
    AtMost,
    /// The quantile lies in the +Inf bucket: at least the highest finite bound.
    #[serde(rename = "at_least")]
    AtLeast,
}

impl Bound {
    pub fn sign(self) -> &'static str {
        match self {
            Bound::AtMost => "≤ ",
            Bound::AtLeast => "≥ ",
        }
    }
}

/// The per-request preemption histogram over a window. vLLM observes each finished request's
/// preemption count into buckets 1, 2, 3, 4, 5, 10, 20: the first holds never-preempted and
/// once-preempted requests together, so how many were preempted at all is not known, only how
/// many were preempted twice or more, and the total (the histogram's sum).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PreemptionsPerRequest {
    /// Requests that finished in the window (the histogram's count).
    pub finished: f64,
    /// Preemptions those requests went through, in all (the histogram's sum).
    pub preemptions: f64,
    /// preemptions ÷ finished; null when nothing finished.
    pub mean: Option<f64>,
    /// Requests preempted at least twice (count less the `le="1"` bucket). Null when the
    /// buckets do not start at 1.
    pub at_least_twice: Option<f64>,
}

/// What the server did over one window. `None` where the engine does not export the metric or
/// the window holds too few scrapes to take a rate.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct WindowStats {
    pub duration_s: f64,
    pub scrapes: usize,
    pub running: Option<GaugeStats>,
    pub waiting: Option<GaugeStats>,
    pub swapped: Option<GaugeStats>,
    /// KV cache usage, 0–1.
    pub kv_usage: Option<GaugeStats>,
    /// Requests waiting for KV or other capacity, as the engine says (vLLM 0.32
    /// num_requests_waiting_by_reason{reason="capacity"}).
    pub waiting_for_capacity: Option<GaugeStats>,
    pub generation_tps: Option<f64>,
    pub prompt_tps: Option<f64>,
    pub preemptions_per_s: Option<f64>,
    /// Preemptions of the requests that finished in the window, from the engine's per-request
    /// histogram (vLLM 0.32 request_num_preemptions). None where it is not exported.
    #[serde(default)]
    pub preemptions_per_request: Option<PreemptionsPerRequest>,
    /// Requests the server refused at admission in the window (vLLM 0.32
    /// admission_rejections_total: its queue limits, answered with HTTP 503).
    #[serde(default)]
    pub admission_rejections: Option<f64>,
    /// Finished requests per second.
    pub finished_per_s: Option<f64>,
    /// Finished requests in the window.
    pub finished: Option<f64>,
    /// Prefix-cache hit rate over the window, 0–1 (hits / queries, or the engine's gauge).
    pub prefix_hit_rate: Option<f64>,
    /// Prompt tokens per second served from the prefix cache.
    pub prefix_hit_tps: Option<f64>,
    pub ttft: Option<Dist>,
    pub itl: Option<Dist>,
    pub e2e: Option<Dist>,
    pub queue_time: Option<Dist>,
    pub prompt_len: Option<Dist>,
    pub gen_len: Option<Dist>,
    /// Mean over scrapes of waiting / (running + waiting): the share of admitted-or-queued
    /// requests that sit in the queue.
    pub queue_ratio: Option<f64>,
    /// Some scrape had running in the churn band at max_num_seqs while waiting ≥ 2 (R5's
    /// collector signal). None when max_num_seqs is unread or waiting is not exported.
    pub seat_wall_cooccurred: Option<bool>,
    /// Scrape-to-scrape changes of the scheduler gauges (running, waiting, KV usage): the
    /// refreshes the scrapes saw. An engine that refreshes them only every so many steps
    /// (SGLang's `--decode-log-interval`) shows few. None when none of them is read.
    #[serde(default)]
    pub gauge_changes: Option<usize>,
}

impl WindowStats {
    /// Mean prompt tokens per finished request: the histogram when present, else the ratio of
    /// prompt tokens to finished requests.
    pub fn mean_prompt_tokens(&self) -> Option<f64> {
        if let Some(d) = self.prompt_len.filter(|d| d.count > 0.0) {
            return Some(d.mean);
        }
        match (self.prompt_tps, self.finished_per_s) {
            (Some(p), Some(f)) if f > 0.0 => Some(p / f),
            _ => None,
        }
    }

    /// No traffic in the window: every traffic signal read is zero (no token generated or
    /// prompted, nothing finished, nobody running or waiting at any scrape), and at least one
    /// was read. A window with nothing read is unknown, not idle.
    pub fn idle(&self) -> bool {
        let signals = [
            self.generation_tps,
            self.prompt_tps,
            self.finished,
            self.running.map(|g| g.peak),
            self.waiting.map(|g| g.peak),
        ];
        signals.iter().any(Option::is_some) && signals.iter().flatten().all(|v| *v == 0.0)
    }

    pub fn mean_gen_tokens(&self) -> Option<f64> {
        if let Some(d) = self.gen_len.filter(|d| d.count > 0.0) {
            return Some(d.mean);
        }
        match (self.generation_tps, self.finished_per_s) {
            (Some(g), Some(f)) if f > 0.0 => Some(g / f),
            _ => None,
        }
    }
}

/// The longest reset-free run of samples (an engine restart splits a window; rates are valid
/// within a run only), and how many samples were cut away to get it.
pub fn longest_segment(samples: &[Sample]) -> (&[Sample], usize) {
    let best = engines::split_at_resets(samples)
        .into_iter()
        .max_by_key(|r| r.len())
        .unwrap_or(0..samples.len());
    let cut = samples.len() - best.len();
    (&samples[best], cut)
}

fn gauge(samples: &[Sample], f: impl Fn(&Sample) -> Option<f64>) -> Option<GaugeStats> {
    let vals: Vec<f64> = samples
        .iter()
        .filter_map(&f)
        .filter(|v| v.is_finite())
        .collect();
    if vals.is_empty() {
        return None;
    }
    Some(GaugeStats {
        mean: vals.iter().sum::<f64>() / vals.len() as f64,
        peak: vals.iter().cloned().fold(f64::MIN, f64::max),
    })
}

/// Increase of a counter over the samples: the sum of non-negative steps, so a rate is never
/// negative even if a reset slipped into the slice.
fn increase(samples: &[Sample], f: impl Fn(&Sample) -> Option<f64>) -> Option<f64> {
    let vals: Vec<f64> = samples.iter().filter_map(&f).collect();
    if vals.len() < 2 {
        return None;
    }
    Some(vals.windows(2).map(|w| (w[1] - w[0]).max(0.0)).sum())
}

/// Bucket deltas between the first and last sample that carry the histogram.
fn hist_delta(samples: &[Sample], f: impl Fn(&Sample) -> Option<&Histogram>) -> Option<Dist> {
    let first = samples.iter().find_map(&f)?;
    let last = samples.iter().rev().find_map(&f)?;
    let count = last.count - first.count;
    if count <= 0.0 {
        return Some(Dist::default());
    }
    let sum = last.sum - first.sum;
    let buckets: Vec<(f64, f64)> = last
        .buckets
        .iter()
        .map(|&(le, c)| {
            let before = first
                .buckets
                .iter()
                .find(|(l, _)| *l == le)
                .map(|b| b.1)
                .unwrap_or(0.0);
            (le, (c - before).max(0.0))
        })
        .collect();
    let (p50, p50_bound) = quantile_in_evidence(&buckets, 0.5).unzip();
    let (p95, p95_bound) = quantile_in_evidence(&buckets, 0.95).unzip();
    Some(Dist {
        count,
        mean: sum / count,
        p50,
        p95,
        p50_bound: p50_bound.flatten(),
        p95_bound: p95_bound.flatten(),
    })
}

/// A quantile that stays inside what the buckets say: Prometheus' interpolation only between
/// two populated bounds. In the first bucket, or in the highest bucket that holds a sample, the
/// samples could lie anywhere in it, so the figure is the bucket's upper bound, marked
/// [`Bound::AtMost`] (all of vLLM's queue times in (0, 0.3] are "≤ 0.3 s", not 0.15). In the
/// +Inf bucket it is the highest finite bound, [`Bound::AtLeast`].
pub fn quantile_in_evidence(buckets: &[(f64, f64)], q: f64) -> Option<(f64, Option<Bound>)> {
    let total = buckets.last()?.1;
    if total <= 0.0 {
        return None;
    }
    let rank = q * total;
    // The highest finite bound whose bucket holds a sample.
    let mut top = None;
    let mut prev_c = 0.0;
    for &(le, c) in buckets {
        if c > prev_c && le.is_finite() {
            top = Some(le);
        }
        prev_c = c;
    }
    let mut prev = (0.0, 0.0);
    for (i, &(le, c)) in buckets.iter().enumerate() {
        if c >= rank && c > prev.1 {
            if le.is_infinite() {
                return Some((prev.0, Some(Bound::AtLeast)));
            }
            if i == 0 || Some(le) == top {
                return Some((le, Some(Bound::AtMost)));
            }
            return Some((
                prev.0 + (le - prev.0) * (rank - prev.1) / (c - prev.1),
                None,
            ));
        }
        prev = (le, c);
    }
    Some((prev.0, Some(Bound::AtLeast)))
}

/// The per-request preemption histogram between the first and last sample that carry it.
fn preemptions_per_request(samples: &[Sample]) -> Option<PreemptionsPerRequest> {
    let first = samples
        .iter()
        .find_map(|s| s.preemptions_per_request.as_ref())?;
    let last = samples
        .iter()
        .rev()
        .find_map(|s| s.preemptions_per_request.as_ref())?;
    let finished = (last.count - first.count).max(0.0);
    let preemptions = (last.sum - first.sum).max(0.0);
    let le1 = |h: &Histogram| h.buckets.iter().find(|(le, _)| *le == 1.0).map(|b| b.1);
    let at_least_twice = match (le1(first), le1(last)) {
        (Some(a), Some(b)) => Some((finished - (b - a)).max(0.0)),
        _ => None,
    };
    Some(PreemptionsPerRequest {
        finished,
        preemptions,
        mean: (finished > 0.0).then(|| preemptions / finished),
        at_least_twice,
    })
}

/// Prometheus-style histogram_quantile: linear interpolation inside the bucket that holds the
/// rank. A rank that lands in the +Inf bucket returns the highest finite bound.
pub fn quantile(buckets: &[(f64, f64)], q: f64) -> Option<f64> {
    let total = buckets.last()?.1;
    if total <= 0.0 {
        return None;
    }
    let rank = q * total;
    let mut prev = (0.0, 0.0);
    for &(le, c) in buckets {
        if c >= rank {
            if le.is_infinite() {
                return Some(prev.0);
            }
            if c == prev.1 {
                return Some(le);
            }
            return Some(prev.0 + (le - prev.0) * (rank - prev.1) / (c - prev.1));
        }
        prev = (le, c);
    }
    Some(prev.0)
}

/// Statistics of one reset-free run of samples. `max_num_seqs` feeds the seat-wall signal.
pub fn stats(samples: &[Sample], max_num_seqs: Option<f64>) -> WindowStats {
    let duration_s = match (samples.first(), samples.last()) {
        (Some(a), Some(b)) => (b.t - a.t).max(0.0),
        _ => 0.0,
    };
    let rate = |f: &dyn Fn(&Sample) -> Option<f64>| {
        increase(samples, f)
            .filter(|_| duration_s > 0.0)
            .map(|d| d / duration_s)
    };
    let queries = increase(samples, |s| s.prefix_queries);
    let hits = increase(samples, |s| s.prefix_hits);
    let prefix_hit_rate = match (queries, hits) {
        (Some(q), Some(h)) if q > 0.0 => Some(h / q),
        _ => gauge(samples, |s| s.prefix_hit_rate_gauge).map(|g| g.mean),
    };
    let prefix_hit_tps = hits
        .or_else(|| increase(samples, |s| s.cached_prompt_tokens))
        .filter(|_| duration_s > 0.0)
        .map(|h| h / duration_s);
    let queue_ratio = {
        let r: Vec<f64> = samples
            .iter()
            .filter_map(|s| match (s.running, s.waiting) {
                (Some(r), Some(w)) if r + w > 0.0 => Some(w / (r + w)),
                (Some(_), Some(_)) => Some(0.0),
                _ => None,
            })
            .collect();
        (!r.is_empty()).then(|| r.iter().sum::<f64>() / r.len() as f64)
    };
    let seat_wall_cooccurred = match max_num_seqs {
        Some(m) if samples.iter().any(|s| s.waiting.is_some()) => {
            // The churn band: within 5 % of the cap (at least one seat), since requests finish
            // and are admitted between scrapes.
            let band = (0.05 * m).max(1.0);
            Some(samples.iter().any(|s| {
                matches!((s.running, s.waiting), (Some(r), Some(w)) if r >= m - band && w >= 2.0)
            }))
        }
        _ => None,
    };
    let finished = increase(samples, |s| s.requests_finished);
    let readings: Vec<[Option<f64>; 3]> = samples
        .iter()
        .map(|s| [s.running, s.waiting, s.kv_usage])
        .filter(|r| r.iter().any(Option::is_some))
        .collect();
    let gauge_changes =
        (!readings.is_empty()).then(|| readings.windows(2).filter(|w| w[0] != w[1]).count());
    WindowStats {
        duration_s,
        scrapes: samples.len(),
        running: gauge(samples, |s| s.running),
        waiting: gauge(samples, |s| s.waiting),
        swapped: gauge(samples, |s| s.swapped),
        kv_usage: gauge(samples, |s| s.kv_usage),
        waiting_for_capacity: gauge(samples, |s| s.waiting_for_capacity),
        generation_tps: rate(&|s| s.generation_tokens),
        prompt_tps: rate(&|s| s.prompt_tokens),
        preemptions_per_s: rate(&|s| s.preemptions),
        preemptions_per_request: preemptions_per_request(samples),
        admission_rejections: increase(samples, |s| s.admission_rejections),
        finished_per_s: rate(&|s| s.requests_finished),
        finished,
        prefix_hit_rate,
        prefix_hit_tps,
        ttft: hist_delta(samples, |s| s.ttft.as_ref()),
        itl: hist_delta(samples, |s| s.itl.as_ref()),
        e2e: hist_delta(samples, |s| s.e2e.as_ref()),
        queue_time: hist_delta(samples, |s| s.queue_time.as_ref()),
        prompt_len: hist_delta(samples, |s| s.prompt_len.as_ref()),
        gen_len: hist_delta(samples, |s| s.gen_len.as_ref()),
        queue_ratio,
        seat_wall_cooccurred,
        gauge_changes,
    }
}

/// Split a run into `n` consecutive sub-windows that share their boundary sample, so counter
/// deltas cover the whole run without gaps.
pub fn sub_windows(samples: &[Sample], n: usize, max_num_seqs: Option<f64>) -> Vec<WindowStats> {
    sub_window_spans(samples.len(), n)
        .into_iter()
        .map(|(lo, hi)| stats(&samples[lo..=hi], max_num_seqs))
        .collect()
}

/// The first and last sample index of each sub-window of a run of `len` samples.
pub fn sub_window_spans(len: usize, n: usize) -> Vec<(usize, usize)> {
    if len < 3 || n == 0 {
        return Vec::new();
    }
    let steps = len - 1;
    let n = n.min(steps);
    (0..n)
        .map(|k| (k * steps / n, (k + 1) * steps / n))
        .collect()
}

/// One step of the window: rates over the step that ends at `t_s`, gauges as scraped at `t_s`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TimePoint {
    /// Seconds since the window's first scrape, at the step's end.
    pub t_s: f64,
    pub generation_tps: Option<f64>,
    pub prompt_tps: Option<f64>,
    pub preemptions_per_s: Option<f64>,
    pub running: Option<f64>,
    pub waiting: Option<f64>,
    /// 0–1.
    pub kv_usage: Option<f64>,
}

/// The most points a timeline keeps: a 10-minute window scraped each second keeps every step;
/// longer ones merge consecutive steps, so a document (and a page) stays small.
pub const MAX_TIMELINE_POINTS: usize = 600;

/// The run step by step: rates over each step (merged steps past [`MAX_TIMELINE_POINTS`]),
/// gauges as scraped at the step's end. Times are seconds since the first sample.
pub fn timeline_points(samples: &[Sample]) -> Vec<TimePoint> {
    let Some(t0) = samples.first().map(|s| s.t) else {
        return Vec::new();
    };
    let steps = samples.len() - 1;
    let k = steps.div_ceil(MAX_TIMELINE_POINTS).max(1);
    let mut out = Vec::with_capacity(steps / k + 1);
    let mut lo = 0;
    while lo < steps {
        let hi = (lo + k).min(steps);
        let seg = &samples[lo..=hi];
        let dt = seg[seg.len() - 1].t - seg[0].t;
        let rate = |f: &dyn Fn(&Sample) -> Option<f64>| {
            increase(seg, f).filter(|_| dt > 0.0).map(|d| d / dt)
        };
        let end = &samples[hi];
        let finite = |v: Option<f64>| v.filter(|x| x.is_finite());
        out.push(TimePoint {
            t_s: end.t - t0,
            generation_tps: rate(&|s| s.generation_tokens),
            prompt_tps: rate(&|s| s.prompt_tokens),
            preemptions_per_s: rate(&|s| s.preemptions),
            running: finite(end.running),
            waiting: finite(end.waiting),
            kv_usage: finite(end.kv_usage),
        });
        lo = hi;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use engines::Engine;

    fn sample(t: f64, gen: f64, running: f64, waiting: f64) -> Sample {
        let mut s = Sample::empty(t, Engine::Vllm);
        s.running = Some(running);
        s.waiting = Some(waiting);
        s.generation_tokens = Some(gen);
        s
    }

    #[test]
    fn quantile_interpolates_like_prometheus() {
        let b = [(0.1, 10.0), (0.5, 30.0), (1.0, 40.0), (f64::INFINITY, 40.0)];
        assert_eq!(quantile(&b, 0.25), Some(0.1));
        assert!((quantile(&b, 0.5).unwrap() - 0.3).abs() < 1e-12);
        assert_eq!(quantile(&b, 1.0), Some(1.0));
        assert_eq!(quantile(&[(1.0, 0.0)], 0.5), None);
        // Rank in +Inf: the highest finite bound.
        assert_eq!(
            quantile(&[(1.0, 1.0), (f64::INFINITY, 10.0)], 0.9),
            Some(1.0)
        );
    }

    #[test]
    fn quantiles_stay_inside_the_evidence() {
        // vLLM 0.32 queue time: every sample in the first bucket (le 0.3 s), mean 22 µs. Not
        // p50 0.15 / p95 0.285: both are "≤ 0.3".
        let q = [(0.3, 8.0), (0.5, 8.0), (f64::INFINITY, 8.0)];
        assert_eq!(
            quantile_in_evidence(&q, 0.5),
            Some((0.3, Some(Bound::AtMost)))
        );
        assert_eq!(
            quantile_in_evidence(&q, 0.95),
            Some((0.3, Some(Bound::AtMost)))
        );
        // TTFT with the slowest samples in (20, 40]: p95 is "≤ 40", never an interpolated 38.7
        // the samples may be far below (the client saw at most 23).
        let t = [
            (10.0, 40.0),
            (20.0, 92.0),
            (40.0, 100.0),
            (f64::INFINITY, 100.0),
        ];
        assert_eq!(
            quantile_in_evidence(&t, 0.95),
            Some((40.0, Some(Bound::AtMost)))
        );
        // Between two populated bounds: Prometheus' interpolation, unmarked.
        let (p50, b) = quantile_in_evidence(&t, 0.5).unwrap();
        assert!(p50 > 10.0 && p50 < 20.0 && b.is_none(), "{p50}");
        // Never above the highest bucket that holds a sample; in +Inf: at least the last bound.
        for q in [0.5, 0.9, 0.99, 1.0] {
            assert!(quantile_in_evidence(&t, q).unwrap().0 <= 40.0);
        }
        let inf = [(1.0, 1.0), (f64::INFINITY, 10.0)];
        assert_eq!(
            quantile_in_evidence(&inf, 0.9),
            Some((1.0, Some(Bound::AtLeast)))
        );
        assert_eq!(quantile_in_evidence(&[(1.0, 0.0)], 0.5), None);
    }

    #[test]
    fn rates_gauges_and_seat_wall() {
        let s = [
            sample(0.0, 0.0, 4.0, 0.0),
            sample(1.0, 50.0, 8.0, 2.0),
            sample(2.0, 100.0, 6.0, 0.0),
        ];
        let w = stats(&s, Some(8.0));
        assert_eq!(w.generation_tps, Some(50.0));
        assert_eq!(
            w.running,
            Some(GaugeStats {
                mean: 6.0,
                peak: 8.0
            })
        );
        assert_eq!(w.seat_wall_cooccurred, Some(true));
        assert!((w.queue_ratio.unwrap() - 0.2 / 3.0).abs() < 1e-12);
        assert_eq!(stats(&s, Some(20.0)).seat_wall_cooccurred, Some(false));
        assert_eq!(stats(&s, None).seat_wall_cooccurred, None);
    }

    #[test]
    fn a_reset_inside_a_slice_never_gives_a_negative_rate() {
        let s = [
            sample(0.0, 1000.0, 1.0, 0.0),
            sample(1.0, 1100.0, 1.0, 0.0),
            sample(2.0, 10.0, 1.0, 0.0),
            sample(3.0, 60.0, 1.0, 0.0),
        ];
        assert_eq!(stats(&s, None).generation_tps, Some(50.0));
    }

    #[test]
    fn timeline_keeps_each_step_then_merges() {
        let s: Vec<Sample> = (0..11)
            .map(|i| sample(i as f64, 10.0 * (i * i) as f64, i as f64, 0.0))
            .collect();
        let p = timeline_points(&s);
        assert_eq!(p.len(), 10);
        // Step 2→3: (90 - 40) / 1 s.
        assert_eq!(p[2].t_s, 3.0);
        assert_eq!(p[2].generation_tps, Some(50.0));
        assert_eq!(p[2].running, Some(3.0));
        assert_eq!(p[2].prompt_tps, None);
        // 1500 steps merge three at a time; the increases still sum to the whole run's.
        let s: Vec<Sample> = (0..1501)
            .map(|i| sample(i as f64, 7.0 * i as f64, 1.0, 0.0))
            .collect();
        let p = timeline_points(&s);
        assert_eq!(p.len(), 500);
        assert!(p.len() <= MAX_TIMELINE_POINTS);
        assert_eq!(p[0].t_s, 3.0);
        assert!(p.iter().all(|x| x.generation_tps == Some(7.0)));
        assert!(timeline_points(&s[..1]).is_empty());
    }

    #[test]
    fn sub_windows_cover_the_run() {
        let s: Vec<Sample> = (0..13)
            .map(|i| sample(i as f64, 10.0 * i as f64, 1.0, 0.0))
            .collect();
        let subs = sub_windows(&s, 4, None);
        assert_eq!(subs.len(), 4);
        let total: f64 = subs
            .iter()
            .map(|w| w.generation_tps.unwrap() * w.duration_s)
            .sum();
        assert_eq!(total, 120.0);
    }

    fn with_preemptions(t: f64, buckets: &[(f64, f64)], sum: f64) -> Sample {
        let mut s = sample(t, 0.0, 0.0, 0.0);
        s.preemptions_per_request = Some(Histogram {
            buckets: buckets.to_vec(),
            sum,
            count: buckets.last().map_or(0.0, |b| b.1),
        });
        s
    }

    /// vLLM's buckets (1, 2, 3, 4, 5, 10, 20): the first holds never- and once-preempted
    /// requests, so only "twice or more" is known beside the total.
    #[test]
    fn preemptions_per_request_are_bucket_deltas() {
        let inf = f64::INFINITY;
        let a = with_preemptions(0.0, &[(1.0, 10.0), (2.0, 11.0), (inf, 12.0)], 5.0);
        let b = with_preemptions(10.0, &[(1.0, 16.0), (2.0, 19.0), (inf, 20.0)], 15.0);
        let p = stats(&[a.clone(), b], None)
            .preemptions_per_request
            .unwrap();
        assert_eq!(p.finished, 8.0);
        assert_eq!(p.preemptions, 10.0);
        assert_eq!(p.mean, Some(1.25));
        // 8 finished, 6 of them in the first bucket.
        assert_eq!(p.at_least_twice, Some(2.0));
        // Nothing finished: no mean; buckets that do not start at 1: no "twice or more".
        let p = stats(&[a.clone(), a], None)
            .preemptions_per_request
            .unwrap();
        assert_eq!((p.finished, p.mean), (0.0, None));
        let c = with_preemptions(0.0, &[(5.0, 1.0), (inf, 1.0)], 0.0);
        let d = with_preemptions(1.0, &[(5.0, 3.0), (inf, 3.0)], 2.0);
        let p = stats(&[c, d], None).preemptions_per_request.unwrap();
        assert_eq!((p.mean, p.at_least_twice), (Some(1.0), None));
    }
}
