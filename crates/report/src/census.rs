//! The census page (`headroom.census/1`): the step ledger (decode-only step against chunk step),
//! decode and TTFT bucketed by prefill, the correlations of decode with prefill against lag
//! with the band that does not count, the verdict with its evidence, and what could not be
//! computed.

use crate::pages::{chart, facts, opt, percent_opt};
use crate::svg::{num, Correlogram, LineChart, Series};
use ::census::analysis::{Bucket, Quantile, Shape};
use ::census::ledger::Ledger;
use ::census::CensusDoc;
use maud::{html, Markup};

fn ms(v: Option<f64>) -> String {
    v.filter(|x| x.is_finite())
        .map(|x| format!("{} ms", num(x)))
        .unwrap_or_else(|| "-".into())
}

/// A TTFT quantile as the document gives it: a figure that is a bucket's bound keeps its sign.
fn quant(q: Option<Quantile>) -> String {
    match q {
        None => "-".into(),
        Some(q) => format!(
            "{}{}",
            q.bound.map(|b| b.sign()).unwrap_or(""),
            numbers::fmt::seconds(q.seconds)
        ),
    }
}

fn range(b: &Bucket) -> String {
    if b.prefill_hi <= 0.0 {
        "0 (idle)".into()
    } else {
        format!("{} – {}", num(b.prefill_lo), num(b.prefill_hi))
    }
}

fn ledger(l: &Ledger) -> Markup {
    let steps = |n: f64| format!("{:.0}", n);
    html! {
        table.ledger {
            thead { tr { th { "" } th.n { "steps" } th.n { "step seconds" } th.n { "mean step" } th.n { "share of steps" } th.n { "share of time" } } }
            tbody {
                tr data-phase="decode" { td { "decode-only steps" } td.n { (steps(l.steps_decode)) } td.n { (num(l.step_seconds_decode)) }
                    td.n { (ms(l.decode_step_ms)) } td.n { (percent_opt(l.chunk_share_of_steps.map(|s| 1.0 - s))) } td.n { (percent_opt(l.chunk_share_of_time.map(|s| 1.0 - s))) } }
                tr data-phase="chunk" { td { "chunk steps (a prompt chunk, with or without decode rows)" } td.n { (steps(l.steps - l.steps_decode)) }
                    td.n { (num(l.step_seconds - l.step_seconds_decode)) } td.n { (ms(l.chunk_step_ms)) }
                    td.n { (percent_opt(l.chunk_share_of_steps)) } td.n { (percent_opt(l.chunk_share_of_time)) } }
            }
            tfoot { tr { th { "all steps (the diluted mean: no verdict reads it)" } td.n { (steps(l.steps)) } td.n { (num(l.step_seconds)) }
                td.n { (ms(l.mean_step_ms)) } td.n { "100%" } td.n { "100%" } } }
        }
    }
}

fn buckets(d: &CensusDoc) -> Markup {
    let b = &d.buckets;
    let per_stream = b.iter().any(|b| b.decode_tps_per_stream.is_some());
    let cadence = d.lags.as_ref().and_then(|l| l.decode_series)
        == Some(::census::analysis::DecodeSeries::DecodeCallsPerS);
    let (name, get): (&str, fn(&Bucket) -> Option<f64>) = if cadence {
        ("decode per stream (llama_decode calls/s)", |b| {
            b.decode_tps_per_stream
        })
    } else if per_stream {
        ("decode tok/s per stream", |b| b.decode_tps_per_stream)
    } else {
        ("decode tok/s (pooled)", |b| b.decode_tps)
    };
    html! {
        h2 { "Decode and TTFT by prefill" }
        p.sub { "The censused steps grouped by their prefill rate: idle (0), then equal widths up to the 99th percentile, the last on to the maximum. "
            "Each bucket is plotted at its upper edge." }
        (chart(LineChart { id: "buckets".into(), x_label: "prefill tok/s (bucket's upper edge)".into(), y_label: name.into(),
            series: vec![Series { name: name.into(), class: "c1", points: b.iter().map(|b| (b.prefill_hi, get(b))).collect() }],
            refs: vec![], bands: vec![], y_max: None }))
        table.buckets {
            thead { tr { th { "prefill tok/s" } th.n { "steps" } th.n { "decode tok/s" } th.n { "per stream" } th.n { "running" }
                th.n { "preemptions" } th.n { "first tokens" } th.n { "TTFT p50" } th.n { "TTFT p95" }
                th.n { "decode-only step" } th.n { "chunk step" } th.n { "chunk share of time" } th.n { "tokens per step" } } }
            tbody { @for b in b { tr {
                td { (range(b)) } td.n { (b.steps) } td.n { (opt(b.decode_tps)) } td.n { (opt(b.decode_tps_per_stream)) } td.n { (opt(b.running)) }
                td.n { (opt(b.preemptions)) } td.n { (num(b.ttft_requests)) } td.n { (quant(b.ttft_p50)) } td.n { (quant(b.ttft_p95)) }
                td.n { (ms(b.ledger.as_ref().and_then(|l| l.decode_step_ms))) } td.n { (ms(b.ledger.as_ref().and_then(|l| l.chunk_step_ms))) }
                td.n { (percent_opt(b.ledger.as_ref().and_then(|l| l.chunk_share_of_time))) } td.n { (opt(b.tokens_per_step)) }
            } } }
        }
        p.sub { "TTFT quantiles stay inside what the histogram's buckets tell: “≤ x” where the quantile falls in the first bucket or the highest holding a sample (x is that bucket's bound), “≥ x” in +Inf." }
    }
}

fn lags(d: &CensusDoc) -> Markup {
    let Some(l) = &d.lags else {
        return html! {};
    };
    let what = match (l.decode_series, l.per_stream) {
        (Some(d), _) => d.words(),
        (None, true) => "decode per stream",
        (None, false) => "pooled decode",
    };
    let min = |s: f64| s / 60.0;
    // Lag 0 is its own mark: the lagged line starts at 2 minutes, and a line from lag 0 to it
    // would draw values nobody measured.
    let series = vec![
        Series {
            name: "lag 0".into(),
            class: "c2",
            points: vec![(0.0, l.r0)],
        },
        Series {
            name: "r".into(),
            class: "c1",
            points: l.lagged.iter().map(|p| (min(p.lag_s), Some(p.r))).collect(),
        },
        Series {
            name: "excess".into(),
            class: "c4",
            points: l
                .lagged
                .iter()
                .map(|p| (min(p.lag_s), Some(p.excess)))
                .collect(),
        },
    ];
    let c = Correlogram {
        id: "lags".into(),
        x_label: "lag (minutes)".into(),
        series,
        threshold: l.threshold,
    };
    let tail = l.tail.as_ref().map(|t| t.lag_s);
    html! {
        h2 { "Decode against prefill, by lag" }
        p.sub { "r(prefill at t, " (what) " at t + lag); the excess is r less what lag 0 carries there through prefill's own persistence (r₀ × prefill's autocorrelation). "
            "Inside the shaded band |r| < " (num(l.threshold)) " does not count." }
        (facts(&[
            ("lag 0", format!("r = {} over {} steps", opt(l.r0), l.pairs0)),
            ("lag 0 without preemptions", l.r0_without_preemption.map(|r| format!("r = {}", num(r))).unwrap_or_else(|| "- (no preemption in the window, or too few steps)".into())),
            ("tail", l.tail.as_ref().map(|t| format!("at {} min: r = {}, inherited {}, excess {}", num(t.lag_s / 60.0), num(t.r), num(t.inherited), num(t.excess))).unwrap_or_else(|| "-".into())),
            ("threshold", format!("|r| ≥ {}", num(l.threshold))),
        ]))
        @if l.lagged.is_empty() { p { "No lag from 2 to 14 minutes had enough paired steps." } } @else {
            figure {
                (c.render())
                details {
                    summary { "Numbers (" (l.lagged.len() + 1) " rows)" }
                    table.numbers data-for="lags" {
                        thead { tr { th.n { "lag (minutes)" } th.n data-series="lag 0" { "r at lag 0" } th.n data-series="r" { "r" } th.n { "inherited" } th.n data-series="excess" { "excess" } th.n { "pairs" } } }
                        tbody {
                            tr { td.n { "0" } td.n { (opt(l.r0)) } td.n {} td.n {} td.n {} td.n { (l.pairs0) } }
                            @for p in &l.lagged { tr.tail[tail == Some(p.lag_s)] {
                            td.n { (num(min(p.lag_s))) } td.n {} td.n { (num(p.r)) } td.n { (num(p.inherited)) } td.n { (num(p.excess)) } td.n { (p.pairs) }
                        } } }
                    }
                }
            }
        }
    }
}

/// The page for a census (`headroom.census/1`).
pub fn census(d: &CensusDoc) -> String {
    let who = d
        .source
        .instance
        .clone()
        .unwrap_or_else(|| d.source.url.clone());
    let title = format!("headroom census: {who}");
    let w = d.window.as_ref();
    let found = d
        .verdict
        .as_ref()
        .is_some_and(|v| v.shape != Shape::Undecided);
    let body = html! {
        h1 { (title) }
        (facts(&[
            ("source", format!("{} {}", d.source.kind, d.source.url)),
            ("selector", d.source.selector.clone().unwrap_or_else(|| "-".into())),
            ("window", w.map(|w| format!("{:.0} – {:.0} (unix s), step {} s, {} steps censused", w.start, w.end, num(w.step_s), w.points)).unwrap_or_else(|| "one scrape: the counters since boot".into())),
            ("engine", d.engine.map(|e| e.name()).unwrap_or("-").into()),
            ("prefixes", format!("engine {}, cadence {}", d.prefixes.latency.as_deref().unwrap_or("-"), d.prefixes.cadence.as_deref().unwrap_or("-"))),
            ("rates from", d.rates_from.map(|r| match r { ::census::RatesFrom::Counters => "counters", ::census::RatesFrom::Gauges => "gauges" }).unwrap_or("-").into()),
            ("queries", d.source.queries.map(|q| q.to_string()).unwrap_or_else(|| "-".into())),
        ]))
        div.verdict.none[!found] data-verdict=(d.verdict.as_ref().map_or("none", |v| v.shape.name())) {
            @match &d.verdict {
                Some(v) => {
                    h2 { "Verdict: " (v.shape.name()) }
                    p { (v.reason) }
                    @if !v.evidence.is_empty() { ul.ev { @for e in &v.evidence { li { (e) } } } }
                }
                None => { h2 { "No verdict" } p { "A single scrape has no time series to correlate: census a Prometheus store for the shape." } }
            }
        }
        @if !d.unavailable.is_empty() {
            h2 { "Cannot compute" }
            ul.unavailable { @for u in &d.unavailable { li { (u) } } }
        }
        h2 { "Step ledger" }
        @match &d.ledger {
            Some(l) => { (ledger(l)) }
            None => { p { "No step ledger (the engine exports no *:engine_steps_total family)." } }
        }
        @if !d.buckets.is_empty() { (buckets(d)) }
        (lags(d))
        h2 { "Totals" }
        (facts(&[
            ("seconds", opt(d.totals.seconds)),
            ("generation tokens", opt(d.totals.generation_tokens)),
            ("prompt tokens", opt(d.totals.prompt_tokens)),
            ("preemptions", opt(d.totals.preemptions)),
        ]))
        @if d.totals.decode_calls.is_some() {
            (facts(&[
                ("llama_decode calls (n_decode_total)", opt(d.totals.decode_calls)),
                ("tokens per decode call", opt(d.totals.tokens_per_decode_call)),
            ]))
        } @else {
            (facts(&[
                ("engine steps (iteration_tokens_total)", opt(d.totals.iteration_steps)),
                ("tokens per step", opt(d.totals.tokens_per_step)),
            ]))
        }
        @if d.segments.len() > 1 {
            h2 { "Pieces of the window" }
            table.segments {
                thead { tr { th.n { "start (unix s)" } th.n { "end" } th.n { "steps" } th { "ended by" } th { "censused" } } }
                tbody { @for s in &d.segments { tr {
                    td.n { (format!("{:.0}", s.start)) } td.n { (format!("{:.0}", s.end)) } td.n { (s.points) }
                    td { (s.ended_by.as_deref().unwrap_or("-")) } td { @if s.censused { "yes" } @else { "no" } }
                } } }
            }
        }
        @if !d.notes.is_empty() {
            h2 { "Notes" }
            ul.notes { @for n in &d.notes { li { (n) } } }
        }
    };
    crate::page(&title, &d.schema, body)
}
