//! Reading one engine's window from a Prometheus store: one discovery query (which names, under
//! which prefixes, at which steps), then one range query per series, each summed over the
//! engine's own label splits (`engine`, `model_name`). Counters are read as increase() per step,
//! so the store handles counter resets; a counter's raw value dropping marks the restarts that
//! split the window.

use crate::analysis;
use crate::ledger::{self, Counters};
use crate::names::{self, *};
use crate::series::{Segment, Steps};
use crate::{CensusDoc, CensusError, Prefixes, RatesFrom, Source, Totals, Window, SCHEMA};
use fleet::client::{Prometheus, Series};
use fleet::queries::Selector;
use std::collections::{BTreeMap, BTreeSet};

/// Prometheus answers at most this many points per series.
const MAX_POINTS: usize = 11_000;
/// The tps gauges are 1 s decayed windows: a step above this samples too little of them.
pub const GAUGE_MAX_STEP_S: f64 = 30.0;
/// The censused piece needs at least this many steps.
pub const MIN_STEPS: usize = 30;

#[derive(Debug, Clone)]
pub struct Request {
    pub selector: Selector,
    pub since_s: f64,
    pub step_s: f64,
    /// The window's end, unix seconds.
    pub at: f64,
    /// None: counters when the store has them, else the gauges.
    pub rates: Option<RatesFrom>,
}

struct Grid {
    start: f64,
    step: f64,
    n: usize,
}

impl Grid {
    fn index(&self, t: f64) -> Option<usize> {
        let k = ((t - self.start) / self.step).round();
        (k >= 0.0 && (k as usize) < self.n).then_some(k as usize)
    }

    /// One series' points on the grid (several series are summed).
    fn values(&self, series: &[Series]) -> Vec<Option<f64>> {
        let mut v = vec![None; self.n];
        for s in series {
            for &(t, x) in &s.points {
                if let (Some(i), true) = (self.index(t), x.is_finite()) {
                    *v[i].get_or_insert(0.0) += x;
                }
            }
        }
        v
    }
}

fn matcher(sel: &Selector, name: &str) -> String {
    let m = sel.as_str();
    let inner = &m[1..m.len() - 1];
    if inner.is_empty() {
        name.to_string()
    } else {
        format!("{name}{{{inner}}}")
    }
}

fn name_re(sel: &Selector, re: &str) -> String {
    let m = sel.as_str();
    let inner = &m[1..m.len() - 1];
    if inner.is_empty() {
        format!("{{__name__=~\"{re}\"}}")
    } else {
        format!("{{__name__=~\"{re}\",{inner}}}")
    }
}

/// Reads the window and censuses its latest piece of one shape.
pub async fn census(prom: &Prometheus, req: &Request) -> Result<CensusDoc, CensusError> {
    let step = req.step_s;
    if !(step > 0.0 && step.is_finite() && req.since_s >= 2.0 * step && req.since_s.is_finite()) {
        return Err(CensusError::Window {
            since_s: req.since_s,
            step_s: step,
        });
    }
    let n = (req.since_s / step).floor() as usize;
    if n + 1 > MAX_POINTS {
        return Err(CensusError::Points {
            since_s: req.since_s,
            step_s: step,
            points: n,
        });
    }
    let end = req.at;
    let start = end - (n as f64 - 1.0) * step;
    let grid = Grid { start, step, n };
    let sel = &req.selector;
    let range = |q: String| async move { prom.query_range(&q, start, end, step).await };

    // 1. Which names, under which prefixes, for which instances, at which steps.
    let found = range(format!(
        "count by (__name__, instance) ({})",
        name_re(sel, &names::regex())
    ))
    .await?;
    let instances: BTreeSet<String> = found
        .iter()
        .filter_map(|s| s.labels.get("instance").cloned())
        .collect();
    if found.is_empty() {
        return Err(CensusError::NoSeries {
            selector: sel.as_str(),
            start,
            end,
        });
    }
    if instances.len() > 1 {
        return Err(CensusError::ManyEngines {
            selector: sel.as_str(),
            instances: instances.into_iter().collect(),
        });
    }
    // Present names, and when each was last seen (the latest build's prefix wins).
    let mut last_seen: BTreeMap<String, f64> = BTreeMap::new();
    for s in &found {
        if let (Some(name), Some(t)) = (s.labels.get("__name__"), s.points.last()) {
            let e = last_seen.entry(name.clone()).or_insert(t.0);
            *e = e.max(t.0);
        }
    }
    let has = |n: &str| last_seen.contains_key(n);
    let cadence_prefix = |suffix: &str| -> Option<String> {
        last_seen
            .iter()
            .filter_map(|(n, t)| {
                names::cadence(n)
                    .filter(|c| c.1 == suffix)
                    .map(|c| (c.0, *t))
            })
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .map(|c| c.0.to_string())
    };
    let ledger_prefix = cadence_prefix(STEPS);
    let gauge_prefix = cadence_prefix(DECODE_TPS).filter(|p| has(&format!("{p}:{PREFILL_TPS}")));
    let depth_prefix = cadence_prefix(PREEMPTED_DEPTH);

    let counters = has(GENERATION) && has(PROMPT);
    let rates = match req.rates {
        Some(RatesFrom::Counters) if !counters => {
            return Err(CensusError::NoCounters {
                selector: sel.as_str(),
            })
        }
        Some(RatesFrom::Gauges) if gauge_prefix.is_none() => {
            return Err(CensusError::NoGauges {
                selector: sel.as_str(),
            })
        }
        Some(r) => r,
        None if counters => RatesFrom::Counters,
        None if gauge_prefix.is_some() => RatesFrom::Gauges,
        None => {
            return Err(CensusError::NoSeries {
                selector: sel.as_str(),
                start,
                end,
            })
        }
    };
    let mut notes = Vec::new();
    let mut unavailable = Vec::new();
    if rates == RatesFrom::Gauges {
        let gp = gauge_prefix.clone().unwrap_or_default();
        if step > GAUGE_MAX_STEP_S {
            return Err(CensusError::GaugeStep {
                step_s: step,
                gauge: format!("{gp}:{DECODE_TPS}"),
            });
        }
        notes.push(format!(
            "rates from {gp}:{DECODE_TPS} / {gp}:{PREFILL_TPS}, 1 s decayed batch-pooled gauges averaged over each {step:.0} s step's scrapes (step ≤ {GAUGE_MAX_STEP_S:.0} s); per-stream decode is the gauge over {RUNNING}"
        ));
    } else if gauge_prefix.is_some() {
        notes.push(format!(
            "rates from the token counters' increase per step; the {}:{DECODE_TPS} gauges (1 s decayed windows) are not read",
            gauge_prefix.clone().unwrap_or_default()
        ));
    }

    // 2. The series.
    let inc = |name: String| format!("sum(increase({}[{step}s]))", matcher(sel, &name));
    let (prefill, decode) = match rates {
        RatesFrom::Counters => {
            let g = grid.values(&range(inc(GENERATION.into())).await?);
            let p = grid.values(&range(inc(PROMPT.into())).await?);
            let per_s = |v: Vec<Option<f64>>| v.into_iter().map(|x| x.map(|x| x / step)).collect();
            (per_s(p), per_s(g))
        }
        RatesFrom::Gauges => {
            let gp = gauge_prefix.clone().unwrap_or_default();
            let avg = |suffix: &str| {
                format!(
                    "sum(avg_over_time({}[{step}s]))",
                    matcher(sel, &format!("{gp}:{suffix}"))
                )
            };
            let p = grid.values(&range(avg(PREFILL_TPS)).await?);
            let d = grid.values(&range(avg(DECODE_TPS)).await?);
            (p, d)
        }
    };
    let running = if has(RUNNING) {
        grid.values(
            &range(format!(
                "sum(avg_over_time({}[{step}s]))",
                matcher(sel, RUNNING)
            ))
            .await?,
        )
    } else {
        unavailable.push(format!(
            "decode per stream: no {RUNNING} (the running gauge lives under vllm: only); decode is the pooled rate"
        ));
        vec![None; n]
    };
    let preemptions = if has(PREEMPTIONS) {
        grid.values(&range(inc(PREEMPTIONS.into())).await?)
    } else {
        let depth = depth_prefix
            .as_ref()
            .map(|p| {
                format!(
                    " ({p}:{PREEMPTED_DEPTH} is there, but it is the instant depth of preempted requests, not a count)"
                )
            })
            .unwrap_or_default();
        unavailable.push(format!(
            "preemptions: no {PREEMPTIONS}{depth}; the preemption-stall shape cannot be told apart"
        ));
        vec![None; n]
    };
    let ttft: Vec<Vec<(f64, f64)>> = if has(TTFT_BUCKET) {
        let series = range(format!(
            "sum by (le) (increase({}[{step}s]))",
            matcher(sel, TTFT_BUCKET)
        ))
        .await?;
        let mut per: Vec<Vec<(f64, f64)>> = vec![Vec::new(); n];
        for s in &series {
            let Some(le) = s
                .labels
                .get("le")
                .and_then(|l| engines::prom::parse_value(l))
            else {
                continue;
            };
            for &(t, x) in &s.points {
                if let (Some(i), true) = (grid.index(t), x.is_finite()) {
                    per[i].push((le, x));
                }
            }
        }
        for p in &mut per {
            p.sort_by(|a, b| a.0.total_cmp(&b.0));
        }
        per
    } else {
        unavailable.push(format!(
            "TTFT by prefill: no {TTFT_BUCKET} (latency histograms live under vllm: only)"
        ));
        vec![Vec::new(); n]
    };
    let mut ledger: Vec<Option<Counters>> = vec![None; n];
    let ledger_names: Option<Vec<String>> = ledger_prefix.as_ref().and_then(|p| {
        let v: Vec<String> = LEDGER.iter().map(|s| format!("{p}:{s}")).collect();
        v.iter().all(|x| has(x)).then_some(v)
    });
    match &ledger_names {
        Some(v) => {
            let mut cols = Vec::new();
            for name in v {
                cols.push(grid.values(&range(inc(name.clone())).await?));
            }
            for (i, l) in ledger.iter_mut().enumerate() {
                if let (Some(a), Some(b), Some(c), Some(d)) =
                    (cols[0][i], cols[1][i], cols[2][i], cols[3][i])
                {
                    *l = Some(Counters {
                        steps: a,
                        steps_decode: b,
                        step_seconds: c,
                        step_seconds_decode: d,
                    });
                }
            }
        }
        None => unavailable.push(format!(
            "the step ledger (mean decode-only step, mean chunk step, their shares of steps and of step time): no *:{STEPS}, *:{STEPS_DECODE}, *:{STEP_SECONDS}, *:{STEP_SECONDS_DECODE} under {} (stock vLLM exports none of them){}",
            sel.as_str(),
            if has(ITERATION_COUNT) { "; steps and tokens per step come from vllm:iteration_tokens_total instead" } else { "" }
        )),
    }
    let iterations: Vec<Option<(f64, f64)>> = if has(ITERATION_COUNT) && has(ITERATION_SUM) {
        let c = grid.values(&range(inc(ITERATION_COUNT.into())).await?);
        let s = grid.values(&range(inc(ITERATION_SUM.into())).await?);
        c.into_iter().zip(s).map(|(c, s)| Some((c?, s?))).collect()
    } else {
        vec![None; n]
    };
    // A restart: a counter's value at a step end below its value at the last step end before
    // (however long the scrape gap between them; resets() over one step misses a restart whose
    // gap is longer than the step).
    let mut reset_names = vec![GENERATION.to_string(), PROMPT.to_string()];
    if let Some(v) = &ledger_names {
        reset_names.push(v[0].clone());
    }
    let mut resets = vec![0.0; n];
    for name in reset_names.iter().filter(|x| has(x)) {
        let raw = grid.values(&range(format!("sum({})", matcher(sel, name))).await?);
        let mut last: Option<f64> = None;
        for (i, x) in raw.into_iter().enumerate() {
            if let Some(x) = x {
                if last.is_some_and(|l| x < l) {
                    resets[i] += 1.0;
                }
                last = Some(x);
            }
        }
    }

    let steps = Steps {
        t: (0..n).map(|i| start + i as f64 * step).collect(),
        step_s: step,
        prefill,
        decode,
        running,
        preemptions,
        ttft,
        ledger,
        iterations,
        resets,
    };

    // 3. One shape: the latest piece.
    let pieces = steps.segments();
    let (a, b, _) = pieces.last().cloned().unwrap_or((0, n, None));
    let segments: Vec<Segment> = pieces
        .iter()
        .map(|(x, y, why)| Segment {
            start: steps.t[*x.min(&(n - 1))] - step,
            end: steps.t[(y.max(&1) - 1).min(n - 1)],
            points: y - x,
            ended_by: why.clone(),
            censused: (*x, *y) == (a, b),
        })
        .collect();
    if pieces.len() > 1 {
        let why: Vec<String> = pieces.iter().filter_map(|p| p.2.clone()).collect();
        if b - a < MIN_STEPS {
            return Err(CensusError::ShapeTooShort {
                start: steps.t[a.min(n - 1)] - step,
                end,
                points: b - a,
                min: MIN_STEPS,
                why: why.join("; "),
            });
        }
        notes.push(format!(
            "the window is {} pieces of different shape ({}); only the latest, {} steps from {}, is censused",
            pieces.len(),
            why.join("; "),
            b - a,
            (steps.t[a] - step) as i64
        ));
    }
    let piece = steps.slice(a, b);

    let doc = finish(
        &piece,
        Source {
            kind: "prometheus".into(),
            url: prom.url().to_string(),
            selector: Some(sel.as_str()),
            instance: found.iter().find_map(|s| s.labels.get("instance").cloned()),
            queries: Some(prom.queries()),
        },
        Prefixes {
            latency: LATENCY.iter().any(|x| has(x)).then(|| "vllm:".to_string()),
            cadence: ledger_prefix.or(gauge_prefix).map(|p| format!("{p}:")),
        },
        rates,
        segments,
        unavailable,
        notes,
    );
    Ok(doc)
}

fn sum_opt(v: impl Iterator<Item = Option<f64>>) -> Option<f64> {
    v.flatten().fold(None, |a, x| Some(a.unwrap_or(0.0) + x))
}

/// The census of one piece of one shape.
fn finish(
    s: &Steps,
    source: Source,
    prefixes: Prefixes,
    rates: RatesFrom,
    segments: Vec<Segment>,
    unavailable: Vec<String>,
    mut notes: Vec<String>,
) -> CensusDoc {
    let step = s.step_s;
    let mut total = None::<Counters>;
    for c in s.ledger.iter().flatten() {
        total.get_or_insert_with(Counters::default).add(c);
    }
    let ledger = total.as_ref().map(ledger::split);
    if let Some(l) = &ledger {
        if let (Some(m), Some(c)) = (l.mean_step_ms, l.chunk_step_ms) {
            notes.push(format!(
                "the mean step ({m:.1} ms) is not the chunk step ({c:.1} ms): chunk steps are {:.1} % of the steps, so they barely move the mean; the ledger is split by phase instead",
                100.0 * l.chunk_share_of_steps.unwrap_or(0.0)
            ));
        }
    }
    let lags = analysis::lags(s);
    let preemptions = sum_opt(s.preemptions.iter().copied());
    let verdict = analysis::verdict(&lags, preemptions.filter(|&p| p > 0.0));
    let iters = s
        .iterations
        .iter()
        .flatten()
        .fold(None, |a: Option<(f64, f64)>, (c, x)| {
            let (ac, ax) = a.unwrap_or((0.0, 0.0));
            Some((ac + c, ax + x))
        });
    let totals = Totals {
        generation_tokens: sum_opt(s.decode.iter().map(|d| d.map(|d| d * step)))
            .filter(|_| rates == RatesFrom::Counters),
        prompt_tokens: sum_opt(s.prefill.iter().map(|d| d.map(|d| d * step)))
            .filter(|_| rates == RatesFrom::Counters),
        preemptions,
        iteration_steps: iters.map(|i| i.0),
        tokens_per_step: iters.filter(|i| i.0 > 0.0).map(|i| i.1 / i.0),
        seconds: Some(s.len() as f64 * step),
    };
    CensusDoc {
        schema: SCHEMA.into(),
        source,
        window: Some(Window {
            start: s.t.first().map(|t| t - step).unwrap_or(0.0),
            end: s.t.last().copied().unwrap_or(0.0),
            step_s: step,
            points: s.len(),
        }),
        prefixes,
        rates_from: Some(rates),
        segments,
        ledger,
        buckets: analysis::buckets(s),
        lags: Some(lags),
        verdict: Some(verdict),
        totals,
        unavailable,
        notes,
    }
}
