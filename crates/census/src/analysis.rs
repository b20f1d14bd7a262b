//! Decode bucketed by prefill, correlation at lag 0 and at 2–14 minutes, and the verdict
//!: step-time contention (lag 0 only), residency churn (a lagged tail beyond what
//! prefill's own persistence carries), preemption stall (the dip goes with preemptions, and
//! prefill alone no longer moves decode once the preempted steps are set aside).

use crate::ledger::{self, Counters, Ledger};
use crate::series::{StepCount, Steps};
use diagnose::window::{quantile_in_evidence, Bound};
use serde::{Deserialize, Serialize};

/// |r| at or beyond this is "moves with". Scrape-to-scrape series are autocorrelated, so the
/// white-noise bound 2/√n (0.04 for a day at 30 s) would call far too much; 0.2 is an effect
/// size (4 % of the decode variance), and the threshold is raised to 3/√n for short windows.
pub const R_MIN: f64 = 0.2;
/// The lags of the tail: 2 to 14 minutes.
pub const LAG_MIN_S: f64 = 120.0;
pub const LAG_MAX_S: f64 = 840.0;
/// Around a preemption, the steps set aside for "without preemption": a minute before (the
/// pressure that led to it) and five after (the re-prefill from token 0 and its wait).
pub const PREEMPT_BEFORE_S: f64 = 60.0;
pub const PREEMPT_AFTER_S: f64 = 300.0;
/// Fewest paired points a correlation is computed from.
pub const MIN_PAIRS: usize = 30;

pub fn threshold(n: usize) -> f64 {
    R_MIN.max(3.0 / (n.max(1) as f64).sqrt())
}

/// Pearson's r over the pairs where both are present.
pub fn pearson(pairs: &[(f64, f64)]) -> Option<f64> {
    let n = pairs.len() as f64;
    if pairs.len() < 3 {
        return None;
    }
    let mx = pairs.iter().map(|p| p.0).sum::<f64>() / n;
    let my = pairs.iter().map(|p| p.1).sum::<f64>() / n;
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for &(x, y) in pairs {
        sxy += (x - mx) * (y - my);
        sxx += (x - mx) * (x - mx);
        syy += (y - my) * (y - my);
    }
    (sxx > 0.0 && syy > 0.0).then(|| sxy / (sxx * syy).sqrt())
}

/// Pairs (x[t], y[t + lag]) where both are present and `keep(t)` and `keep(t + lag)`.
fn pairs(
    x: &[Option<f64>],
    y: &[Option<f64>],
    lag: usize,
    keep: &dyn Fn(usize) -> bool,
) -> Vec<(f64, f64)> {
    (0..x.len().saturating_sub(lag))
        .filter(|&t| keep(t) && keep(t + lag))
        .filter_map(|t| Some((x[t]?, y[t + lag]?)))
        .collect()
}

/// Which decode series the census correlates with prefill.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum DecodeSeries {
    /// The pooled generation rate (no running gauge).
    #[serde(rename = "pooled")]
    Pooled,
    /// The pooled generation rate over the engine's running gauge.
    #[serde(rename = "per_stream_over_running")]
    PerStreamOverRunning,
    /// Engine steps per second (llama.cpp's llama_decode calls), in steps busy throughout: the
    /// token rate of a stream generating through the step, counted as it happens.
    #[serde(rename = "decode_calls_per_s")]
    DecodeCallsPerS,
}

impl DecodeSeries {
    /// The series in words, for evidence lines.
    pub fn words(self) -> &'static str {
        match self {
            DecodeSeries::Pooled => "pooled decode",
            DecodeSeries::PerStreamOverRunning => "decode per stream",
            DecodeSeries::DecodeCallsPerS => "decode cadence (llama_decode calls/s)",
        }
    }
}

/// The decode series the census correlates: the step cadence where the engine credits its
/// generated tokens only when a request ends (llama.cpp: a step's pooled rate would be the
/// finished requests', and a dip would move to the step the requests end in); else per stream
/// (pooled rate over running) where the running gauge is there, else pooled.
pub fn decode_series(s: &Steps) -> (Vec<Option<f64>>, DecodeSeries) {
    if let Some(c) = &s.cadence {
        return (c.clone(), DecodeSeries::DecodeCallsPerS);
    }
    let with_running = s.running.iter().filter(|r| r.is_some()).count();
    if with_running * 5 >= s.len() * 4 && with_running > 0 {
        let v = s
            .decode
            .iter()
            .zip(&s.running)
            .map(|(d, r)| match (d, r) {
                (Some(d), Some(r)) if *r > 0.0 => Some(d / r),
                _ => None,
            })
            .collect();
        (v, DecodeSeries::PerStreamOverRunning)
    } else {
        (s.decode.clone(), DecodeSeries::Pooled)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LagPoint {
    pub lag_s: f64,
    /// r(prefill[t], decode[t + lag]).
    pub r: f64,
    /// What lag 0 carries to this lag through prefill's own persistence: r₀ · acf_prefill(lag).
    pub inherited: f64,
    /// r − inherited: the lagged effect of its own.
    pub excess: f64,
    pub pairs: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Lags {
    /// Decode per stream (true) or pooled (false).
    pub per_stream: bool,
    /// Which decode series was correlated (absent in documents written before it was named).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decode_series: Option<DecodeSeries>,
    pub r0: Option<f64>,
    pub pairs0: usize,
    /// Lag 0 again, over the steps with no preemption in or beside them; None without
    /// preemptions in the window.
    pub r0_without_preemption: Option<f64>,
    /// Every lag from 2 to 14 minutes, one per step.
    pub lagged: Vec<LagPoint>,
    /// The lag with the most negative excess.
    pub tail: Option<LagPoint>,
    /// |r| at or beyond this counts.
    pub threshold: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Shape {
    /// Decode dips with prefill in the same step and not after: the chunk holds the device.
    #[serde(rename = "step_time_contention")]
    StepTimeContention,
    /// Decode pays after the prefill is over: the prefill's working set evicted what decode
    /// needs.
    #[serde(rename = "residency_churn")]
    ResidencyChurn,
    /// Decode stops with preemptions: preempted sequences re-prefill from token 0.
    #[serde(rename = "preemption_stall")]
    PreemptionStall,
    #[serde(rename = "undecided")]
    Undecided,
}

impl Shape {
    pub fn name(self) -> &'static str {
        match self {
            Shape::StepTimeContention => "step-time contention",
            Shape::ResidencyChurn => "residency churn",
            Shape::PreemptionStall => "preemption stall",
            Shape::Undecided => "undecided",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Verdict {
    pub shape: Shape,
    /// Why this shape (or why none).
    pub reason: String,
    /// Each line a measured value against its threshold.
    pub evidence: Vec<String>,
}

/// Correlations at lag 0 and over 2–14 minutes.
pub fn lags(s: &Steps) -> Lags {
    let (decode, series) = decode_series(s);
    let all = |_: usize| true;
    let p0 = pairs(&s.prefill, &decode, 0, &all);
    let r0 = (p0.len() >= MIN_PAIRS).then(|| pearson(&p0)).flatten();
    let preempted: Vec<bool> = s
        .preemptions
        .iter()
        .map(|p| p.is_some_and(|p| p > 0.0))
        .collect();
    let r0_without_preemption = preempted.iter().any(|&p| p).then(|| {
        // A preemption's stall outlasts its step: the preempted sequence re-prefills from token
        // 0 and waits its turn. Set aside the steps from PREEMPT_BEFORE_S before a preemption to
        // PREEMPT_AFTER_S after it.
        let before = (PREEMPT_BEFORE_S / s.step_s.max(1e-9)).ceil() as usize;
        let after = (PREEMPT_AFTER_S / s.step_s.max(1e-9)).ceil() as usize;
        let near = |t: usize| {
            (t.saturating_sub(after)..=(t + before).min(preempted.len() - 1)).any(|i| preempted[i])
        };
        let keep = |t: usize| !near(t);
        let p = pairs(&s.prefill, &decode, 0, &keep);
        (p.len() >= MIN_PAIRS).then(|| pearson(&p)).flatten()
    });
    let r0_without_preemption = r0_without_preemption.flatten();
    let step = s.step_s.max(1e-9);
    let first = (LAG_MIN_S / step).ceil() as usize;
    let last = (LAG_MAX_S / step).floor() as usize;
    let mut lagged = Vec::new();
    for lag in first.max(1)..=last {
        let p = pairs(&s.prefill, &decode, lag, &all);
        if p.len() < MIN_PAIRS {
            continue;
        }
        let (Some(r), Some(r0)) = (pearson(&p), r0) else {
            continue;
        };
        let acf = pearson(&pairs(&s.prefill, &s.prefill, lag, &all)).unwrap_or(0.0);
        let inherited = r0 * acf;
        lagged.push(LagPoint {
            lag_s: lag as f64 * step,
            r,
            inherited,
            excess: r - inherited,
            pairs: p.len(),
        });
    }
    let tail = lagged
        .iter()
        .min_by(|a, b| a.excess.total_cmp(&b.excess))
        .cloned();
    Lags {
        per_stream: series != DecodeSeries::Pooled,
        decode_series: Some(series),
        r0,
        pairs0: p0.len(),
        r0_without_preemption,
        lagged,
        tail,
        threshold: threshold(p0.len()),
    }
}

/// The verdict from the lags and the preemptions in the window.
pub fn verdict(l: &Lags, preemptions: Option<f64>) -> Verdict {
    let th = l.threshold;
    let what = match (l.decode_series, l.per_stream) {
        (Some(d), _) => d.words(),
        (None, true) => "decode per stream",
        (None, false) => "pooled decode",
    };
    let mut ev = Vec::new();
    let Some(r0) = l.r0 else {
        return Verdict {
            shape: Shape::Undecided,
            reason: format!(
                "too few steps with both prefill and decode ({} pairs, {MIN_PAIRS} needed), or prefill or decode never varied",
                l.pairs0
            ),
            evidence: ev,
        };
    };
    ev.push(format!(
        "lag 0: r(prefill, {what}) = {r0:+.2} over {} steps (threshold −{th:.2})",
        l.pairs0
    ));
    if let Some(t) = &l.tail {
        ev.push(format!(
            "lagged tail: at {:.0} min r = {:+.2}, of which {:+.2} is lag 0 carried by prefill's own persistence; excess {:+.2} (threshold −{th:.2})",
            t.lag_s / 60.0,
            t.r,
            t.inherited,
            t.excess
        ));
    }
    if let (Some(n), Some(rc)) = (preemptions, l.r0_without_preemption) {
        ev.push(format!(
            "{n:.0} preemptions; lag 0 without the preempted steps: r = {rc:+.2} (threshold −{th:.2})"
        ));
        if r0 <= -th && rc > -th {
            return Verdict {
                shape: Shape::PreemptionStall,
                reason: format!(
                    "decode moves with prefill (r = {r0:+.2}) only through the preempted steps: without them r = {rc:+.2}; a preempted sequence stops and re-prefills from token 0"
                ),
                evidence: ev,
            };
        }
    }
    if let Some(t) = l.tail.as_ref().filter(|t| t.excess <= -th) {
        let also = if r0 <= -th {
            " (and at lag 0 too: the chunk also holds the device)"
        } else {
            ""
        };
        return Verdict {
            shape: Shape::ResidencyChurn,
            reason: format!(
                "decode pays {:.0} min after the prefill (excess r = {:+.2}){also}: the prefill's working set evicted something decode needs",
                t.lag_s / 60.0,
                t.excess
            ),
            evidence: ev,
        };
    }
    if r0 <= -th {
        let lags = if l.lagged.is_empty() {
            // A window shorter than 2 min plus MIN_PAIRS steps has no lag to check: say so
            // rather than claim the lags are flat.
            ev.push(format!(
                "lagged tail: not checked; {} paired steps at lag 0, and a lag of 2 min needs {MIN_PAIRS} pairs 2 min apart",
                l.pairs0
            ));
            "; the 2–14 min lags were not checked (the window is too short), so a lagged residency effect beside it is not ruled out"
        } else {
            " and the 2–14 min lags add nothing of their own"
        };
        return Verdict {
            shape: Shape::StepTimeContention,
            reason: format!(
                "{what} dips in the same step as prefill (r = {r0:+.2}){lags}: the chunk holds the device"
            ),
            evidence: ev,
        };
    }
    Verdict {
        shape: Shape::Undecided,
        reason: format!(
            "{what} does not move with prefill: r = {r0:+.2} at lag 0 and no lagged excess beyond −{th:.2}{}",
            if l.lagged.is_empty() { " (the 2–14 min lags not checked: the window is too short)" } else { "" }
        ),
        evidence: ev,
    }
}

/// A quantile with its honesty mark.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Quantile {
    pub seconds: f64,
    /// `at_most` in the first bucket or the highest bucket holding a sample, `at_least` in +Inf.
    pub bound: Option<Bound>,
}

fn q(buckets: &[(f64, f64)], p: f64) -> Option<Quantile> {
    quantile_in_evidence(buckets, p).map(|(seconds, bound)| Quantile { seconds, bound })
}

/// One prefill-rate bucket.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bucket {
    /// Prefill tokens/s, lo < prefill ≤ hi (the first bucket is prefill = 0 exactly: idle; the
    /// others equal widths up to the 99th percentile, the last one on to the maximum).
    pub prefill_lo: f64,
    pub prefill_hi: f64,
    pub steps: usize,
    /// Pooled generation tokens/s; None where the engine credits them when a request ends
    /// (llama.cpp), which makes a step's pooled rate the finished requests'.
    pub decode_tps: Option<f64>,
    /// Per stream: pooled over the running gauge, or for llama.cpp its decode cadence
    /// (llama_decode calls/s in steps busy throughout); see `Lags::decode_series`.
    pub decode_tps_per_stream: Option<f64>,
    pub running: Option<f64>,
    pub preemptions: Option<f64>,
    /// TTFT of the requests whose first token came in these steps.
    pub ttft_requests: f64,
    pub ttft_p50: Option<Quantile>,
    pub ttft_p95: Option<Quantile>,
    /// The step ledger over these steps.
    pub ledger: Option<Ledger>,
    /// Mean tokens per engine step (vLLM's `iteration_tokens_total`). None for llama.cpp: its
    /// decode calls count as they happen, its tokens when a request ends, so a bucket's ratio of
    /// the two would be no step's contents.
    pub tokens_per_step: Option<f64>,
}

fn mean(v: impl Iterator<Item = f64>) -> Option<f64> {
    let (n, s) = v.fold((0usize, 0.0), |(n, s), x| (n + 1, s + x));
    (n > 0).then(|| s / n as f64)
}

/// Equal-width prefill buckets: dose against response.
pub const BUCKETS: usize = 5;

/// Edges: prefill = 0 (idle), then [`BUCKETS`] equal widths up to the 99th percentile of the
/// non-zero prefill rates (a lone spike would otherwise squeeze every step into the first),
/// the last bucket running on to the maximum.
pub fn edges(prefill: &[Option<f64>]) -> Vec<f64> {
    let mut pos: Vec<f64> = prefill
        .iter()
        .flatten()
        .copied()
        .filter(|&p| p > 0.0)
        .collect();
    pos.sort_by(f64::total_cmp);
    let mut e = vec![0.0];
    let (Some(&max), false) = (pos.last(), pos.is_empty()) else {
        return e;
    };
    let p99 = pos[((pos.len() * 99).div_ceil(100))
        .saturating_sub(1)
        .min(pos.len() - 1)];
    let width = p99 / BUCKETS as f64;
    for k in 1..BUCKETS {
        e.push(width * k as f64);
    }
    e.push(max.max(p99));
    e.dedup();
    e
}

pub fn buckets(s: &Steps) -> Vec<Bucket> {
    let e = edges(&s.prefill);
    let (per_stream, series) = decode_series(s);
    let mut out = Vec::new();
    for b in 0..e.len() {
        let (lo, hi) = if b == 0 { (0.0, 0.0) } else { (e[b - 1], e[b]) };
        let inside = |p: f64| if b == 0 { p <= 0.0 } else { p > lo && p <= hi };
        let idx: Vec<usize> = (0..s.len())
            .filter(|&i| s.prefill[i].is_some_and(inside))
            .collect();
        if idx.is_empty() {
            continue;
        }
        let mut ttft: Vec<(f64, f64)> = Vec::new();
        for &i in &idx {
            for &(le, c) in &s.ttft[i] {
                match ttft.iter_mut().find(|(l, _)| *l == le) {
                    Some(x) => x.1 += c,
                    None => ttft.push((le, c)),
                }
            }
        }
        ttft.sort_by(|a, b| a.0.total_cmp(&b.0));
        let ttft_requests = ttft.last().map(|x| x.1).unwrap_or(0.0);
        let mut ledger_sum: Option<Counters> = None;
        for &i in &idx {
            if let Some(c) = &s.ledger[i] {
                ledger_sum.get_or_insert_with(Counters::default).add(c);
            }
        }
        let iters = idx.iter().filter_map(|&i| s.iterations[i]).fold(
            None,
            |a: Option<(f64, f64)>, (c, x)| {
                let (ac, ax) = a.unwrap_or((0.0, 0.0));
                Some((ac + c, ax + x))
            },
        );
        let preempt: Vec<f64> = idx.iter().filter_map(|&i| s.preemptions[i]).collect();
        let per_step = iters.filter(|(c, _)| *c > 0.0).map(|(c, x)| x / c);
        let calls = s.step_count == StepCount::DecodeCalls;
        out.push(Bucket {
            prefill_lo: lo,
            prefill_hi: hi,
            steps: idx.len(),
            // A pooled rate credited when requests end is no step's rate.
            decode_tps: mean(idx.iter().filter_map(|&i| s.decode[i]))
                .filter(|_| series != DecodeSeries::DecodeCallsPerS),
            decode_tps_per_stream: mean(idx.iter().filter_map(|&i| per_stream[i])).filter(|_| {
                series == DecodeSeries::DecodeCallsPerS || s.running.iter().any(|r| r.is_some())
            }),
            running: mean(idx.iter().filter_map(|&i| s.running[i])),
            preemptions: (!preempt.is_empty()).then(|| preempt.iter().sum()),
            ttft_requests,
            ttft_p50: q(&ttft, 0.5),
            ttft_p95: q(&ttft, 0.95),
            ledger: ledger_sum.as_ref().map(ledger::split),
            tokens_per_step: per_step.filter(|_| !calls),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::series::tests::blank;

    /// A deterministic pseudo-random generator (the census must not depend on a seed's luck;
    /// several seeds are run).
    struct Lcg(u64);
    impl Lcg {
        fn next(&mut self) -> f64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (self.0 >> 11) as f64 / (1u64 << 53) as f64
        }
    }

    /// (step, the bursts as (start, end) steps) → (prefill, decode) rates at that step.
    type DayShape = dyn Fn(usize, &[(usize, usize)]) -> (f64, f64);

    /// A day at 30 s: prefill bursts of 1–2 min every 15–45 min; `decode(t, burst_start,
    /// burst_end)` shapes the decode rate; noise ±3 %.
    fn day(seed: u64, shape: &DayShape) -> Steps {
        let n = 2880;
        let mut s = blank(n, 30.0);
        let mut r = Lcg(seed);
        let mut bursts = Vec::new();
        let mut t = 20;
        while t < n {
            let len = 2 + (r.next() * 3.0) as usize;
            bursts.push((t, (t + len).min(n)));
            t += 30 + (r.next() * 60.0) as usize;
        }
        for i in 0..n {
            let inb = bursts.iter().any(|&(a, b)| i >= a && i < b);
            s.prefill[i] = Some(if inb {
                3000.0 + 500.0 * r.next()
            } else {
                20.0 * r.next()
            });
            let (factor, pre) = shape(i, &bursts);
            s.decode[i] = Some(400.0 * factor * (0.97 + 0.06 * r.next()));
            s.running[i] = Some(8.0);
            s.preemptions[i] = Some(pre);
        }
        s
    }

    fn in_burst(i: usize, b: &[(usize, usize)]) -> bool {
        b.iter().any(|&(a, e)| i >= a && i < e)
    }

    #[test]
    fn lag_zero_only_is_contention() {
        for seed in 1..6 {
            let s = day(seed, &|i, b| (if in_burst(i, b) { 0.65 } else { 1.0 }, 0.0));
            let l = lags(&s);
            let v = verdict(&l, None);
            assert_eq!(v.shape, Shape::StepTimeContention, "seed {seed}: {v:?}");
        }
    }

    #[test]
    fn a_lagged_dip_is_churn() {
        // Decode dips 3–9 minutes (6–18 steps) after each burst ends, never during.
        for seed in 1..6 {
            let s = day(seed, &|i, b| {
                let after = b.iter().any(|&(_, e)| i >= e + 6 && i < e + 18);
                (if after { 0.7 } else { 1.0 }, 0.0)
            });
            let v = verdict(&lags(&s), None);
            assert_eq!(v.shape, Shape::ResidencyChurn, "seed {seed}: {v:?}");
            assert!(v.reason.contains("min after"), "{}", v.reason);
        }
    }

    #[test]
    fn preemptions_separate_the_stall() {
        // Every other burst preempts: decode collapses during it and for a minute after; the
        // other bursts leave decode alone.
        for seed in 1..6 {
            let s = day(seed, &|i, b| {
                let k = b
                    .iter()
                    .position(|&(a, e)| i >= a && i < e + 2)
                    .filter(|k| k % 2 == 0);
                match k {
                    Some(k) if i == b[k].0 => (0.05, 3.0),
                    Some(_) => (0.05, 0.0),
                    None => (1.0, 0.0),
                }
            });
            let n: f64 = s.preemptions.iter().flatten().sum();
            let v = verdict(&lags(&s), Some(n));
            assert_eq!(v.shape, Shape::PreemptionStall, "seed {seed}: {v:?}");
        }
    }

    #[test]
    fn no_relation_is_undecided_with_the_reason() {
        let s = day(7, &|_, _| (1.0, 0.0));
        let v = verdict(&lags(&s), None);
        assert_eq!(v.shape, Shape::Undecided);
        assert!(v.reason.contains("does not move"), "{}", v.reason);
        let short = blank(10, 30.0);
        let v = verdict(&lags(&short), None);
        assert_eq!(v.shape, Shape::Undecided);
        assert!(v.reason.contains("too few"), "{}", v.reason);
    }

    #[test]
    fn buckets_split_idle_and_equal_widths_and_keep_ttft_honest() {
        let mut s = blank(8, 30.0);
        for (i, p) in [0.0, 0.0, 100.0, 200.0, 300.0, 400.0, 500.0, 600.0]
            .iter()
            .enumerate()
        {
            s.prefill[i] = Some(*p);
            // All first tokens of the idle steps in the first bucket (≤ 0.1 s).
            s.ttft[i] = if *p == 0.0 {
                vec![(0.1, 5.0), (0.5, 5.0), (f64::INFINITY, 5.0)]
            } else {
                vec![(0.1, 0.0), (0.5, 2.0), (f64::INFINITY, 2.0)]
            };
        }
        let b = buckets(&s);
        assert_eq!(b[0].steps, 2);
        assert_eq!((b[0].prefill_lo, b[0].prefill_hi), (0.0, 0.0));
        // Idle: every sample in the first bucket: "≤ 0.1 s", never an interpolated 0.05.
        let p50 = b[0].ttft_p50.unwrap();
        assert_eq!((p50.seconds, p50.bound), (0.1, Some(Bound::AtMost)));
        // Busy: the highest bucket holding a sample is (0.1, 0.5]: "≤ 0.5 s".
        let p95 = b[1].ttft_p95.unwrap();
        assert_eq!((p95.seconds, p95.bound), (0.5, Some(Bound::AtMost)));
        assert_eq!(b.iter().map(|x| x.steps).sum::<usize>(), 8);
        assert_eq!(b.last().unwrap().prefill_hi, 600.0);
        // Equal widths of 600 / 5: (0,120] (120,240] (240,360] (360,480] (480,600].
        assert_eq!(
            edges(&s.prefill),
            vec![0.0, 120.0, 240.0, 360.0, 480.0, 600.0]
        );
    }
}
