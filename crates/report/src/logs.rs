//! The logs page (`headroom.logs/1`): each server instance's envelope. From per-request timing
//! lines (llama.cpp, halogen): prompt rate against prompt length, with the band of longest
//! prompts the envelope quotes, and the decode-rate distribution. From vLLM's stats lines: the
//! throughputs and queue per logged interval, and the generation distribution over intervals.

use crate::pages::{chart, facts, opt};
use crate::svg::{self, num, LineChart, Scatter, Series, Strip};
use maud::{html, Markup};
use telemetry::doc::{LogsDoc, Source};
use telemetry::{Dist, InstanceReport, StartReason, VllmInterval, VllmStats, LONGEST_BAND};

/// Points one plot shows per instance: a log may hold a million requests, the page stays under
/// its budget. More are thinned to every k-th request, and the page says so.
pub const MAX_POINTS: usize = 600;

fn started(s: StartReason) -> &'static str {
    match s {
        StartReason::LogStart => "already running when the log begins",
        StartReason::Startup => "a startup line",
        StartReason::ModelLoaded => "a second `model loaded`",
        StartReason::TaskIdsRestarted => "task ids going backwards",
        StartReason::NewPid => "a new process id",
    }
}

fn dist(name: &str, unit: &str, d: Option<&Dist>) -> Markup {
    html! {
        tr {
            td { (name) } td { (unit) }
            @match d {
                Some(d) => { td.n { (d.n) } td.n { (num(d.median)) } td.n { (num(d.p10)) } td.n { (num(d.p90)) } td.n { (num(d.min)) } td.n { (num(d.max)) } }
                None => { td.n { "0" } td {} td {} td {} td {} td {} }
            }
        }
    }
}

fn dist_table(rows: Markup) -> Markup {
    html! {
        table.dists {
            thead { tr { th { "figure" } th { "unit" } th.n { "n" } th.n { "median" } th.n { "p10" } th.n { "p90" } th.n { "min" } th.n { "max" } } }
            tbody { (rows) }
        }
    }
}

/// Every k-th index of `n`, at most `MAX_POINTS` of them.
fn thin(n: usize) -> (usize, Vec<usize>) {
    let k = n.div_ceil(MAX_POINTS).max(1);
    (k, (0..n).step_by(k).collect())
}

fn requests(i: &InstanceReport, k: usize) -> Markup {
    let timed: Vec<_> = i
        .instance
        .requests
        .iter()
        .filter(|r| r.prompt_tokens.is_some() && r.prompt_tps.is_some_and(f64::is_finite))
        .collect();
    let longest = timed
        .iter()
        .filter_map(|r| r.prompt_tokens)
        .max()
        .unwrap_or(0);
    let band = (longest as f64 * LONGEST_BAND).ceil() as u32;
    let (step, keep) = thin(timed.len());
    let pts: Vec<_> = keep.iter().map(|&j| timed[j]).collect();
    let side = |in_band: bool| -> Vec<(f64, Option<f64>)> {
        pts.iter()
            .map(|r| {
                let t = r.prompt_tokens.unwrap_or(0);
                (t as f64, r.prompt_tps.filter(|_| (t >= band) == in_band))
            })
            .collect()
    };
    let decode: Vec<_> = i
        .instance
        .requests
        .iter()
        .filter_map(|r| r.gen_tps.filter(|v| v.is_finite() && *v > 0.0))
        .collect();
    let (dstep, dkeep) = thin(decode.len());
    let dsamples: Vec<f64> = dkeep.iter().map(|&j| decode[j]).collect();
    let e = &i.envelope;
    let pid = format!("prompt{k}");
    let did = format!("decode{k}");
    html! {
        @if !pts.is_empty() {
            h3 { "Prompt rate against prompt length" }
            p.sub { "Each timed request's prompt tokens/s as the engine printed it. Short prompts are overhead-dominated; the envelope quotes the band of prompts with at least "
                (numbers::fmt::percent(LONGEST_BAND)) " of the longest (" (longest) " tokens)"
                @if let Some(p) = &e.prompt_tps_at_longest { ": " strong { (num(p.tps)) " tok/s" } " over " (p.n) " request(s)" } "."
                @if step > 1 { " Every " (step) "th of " (timed.len()) " requests is plotted." } }
            figure {
                (Scatter { id: pid.clone(), x_label: "prompt tokens computed".into(), y_label: "prompt tok/s".into(),
                    series: vec![
                        Series { name: "shorter prompts".into(), class: "c2", points: side(false) },
                        Series { name: "longest band".into(), class: "c1", points: side(true) },
                    ], fit: None }.render())
                details {
                    summary { "Numbers (" (pts.len()) " rows)" }
                    table.numbers data-for=(pid) {
                        thead { tr { th.n { "line" } th.n { "prompt tokens" } th.n data-series="shorter prompts" { "shorter prompts tok/s" }
                            th.n data-series="longest band" { "longest band tok/s" } th.n { "prompt ms" } th.n { "cached tokens" } } }
                        tbody { @for r in &pts { @let t = r.prompt_tokens.unwrap_or(0); tr {
                            td.n { (r.line) } td.n { (t) }
                            td.n { @if t < band { (opt(r.prompt_tps)) } } td.n { @if t >= band { (opt(r.prompt_tps)) } }
                            td.n { (opt(r.prompt_ms)) } td.n { (r.cached_tokens.map(|c| c.to_string()).unwrap_or_default()) }
                        } } }
                    }
                }
            }
        }
        @if !dsamples.is_empty() {
            h3 { "Decode rate per request" }
            p.sub { "Generation tokens/s as printed, requests with at least two generated tokens. Median "
                (opt(e.decode_tps.as_ref().map(|d| d.median))) ", p10 " (opt(e.decode_tps.as_ref().map(|d| d.p10)))
                ", p90 " (opt(e.decode_tps.as_ref().map(|d| d.p90))) "."
                @if dstep > 1 { " Every " (dstep) "th of " (decode.len()) " requests is plotted." } }
            figure {
                (svg::strip(&did, &Strip { name: "decode tok/s".into(), unit: "tok/s".into(), samples: dsamples.clone(), outliers: vec![],
                    median: e.decode_tps.as_ref().map(|d| d.median) }, "c1"))
                details {
                    summary { "Samples (" (dsamples.len()) ")" }
                    table.numbers data-for=(did) {
                        thead { tr { th.n { "#" } th.n data-series="decode tok/s" { "decode tok/s" } } }
                        tbody { @for (j, v) in dsamples.iter().enumerate() { tr { td.n { (j * dstep + 1) } td.n { (num(*v)) } } } }
                    }
                }
            }
        }
    }
}

fn vllm(v: &VllmStats, id: &str) -> Markup {
    let timed = !v.intervals.is_empty() && v.intervals.iter().all(|p| p.t_s.is_some());
    let x = |j: usize, t: Option<u64>| {
        if timed {
            t.unwrap_or(0) as f64
        } else {
            (j + 1) as f64
        }
    };
    let x_label = if timed {
        "seconds after the first stats line"
    } else {
        "stats line #"
    };
    let series = |name: &str, class, f: fn(&VllmInterval) -> Option<f64>| Series {
        name: name.into(),
        class,
        points: v
            .intervals
            .iter()
            .enumerate()
            .map(|(j, p)| (x(j, p.t_s), f(p)))
            .collect(),
    };
    let engine = match (v.engine, v.aggregated_engines) {
        (Some(e), _) => format!("engine {e}"),
        (None, Some(n)) => format!("{n} engines aggregated"),
        _ => "the engine".into(),
    };
    html! {
        h3 { "vLLM stats lines: " (engine) }
        p.sub { (v.lines) " lines (" (v.first_line) "–" (v.last_line) "), every " (opt(v.interval_s)) " s; "
            (v.idle_intervals) " idle (" (numbers::fmt::percent(v.idle_share)) ")"
            @if let Some(s) = v.silent_s { "; " (num(s)) " s silent beyond the interval" } "." }
        @if !v.intervals.is_empty() {
            (chart(LineChart { id: format!("{id}tps"), x_label: x_label.into(), y_label: "tok/s".into(),
                series: vec![series("generation tok/s", "c1", |p| p.gen_tps), series("prompt tok/s", "c2", |p| p.prompt_tps)],
                refs: vec![], bands: vec![], y_max: None }))
            (chart(LineChart { id: format!("{id}queue"), x_label: x_label.into(), y_label: "requests".into(),
                series: vec![series("running", "c1", |p| p.running.map(|r| r as f64)), series("waiting", "c4", |p| p.waiting.map(|r| r as f64))],
                refs: vec![], bands: vec![], y_max: None }))
            @let gen: Vec<f64> = v.intervals.iter().filter_map(|p| p.gen_tps).collect();
            h3 { "Generation rate per interval" }
            figure {
                (svg::strip(&format!("{id}gen"), &Strip { name: "generation tok/s".into(), unit: "tok/s".into(), samples: gen.clone(), outliers: vec![], median: Some(v.gen_tps.median) }, "c1"))
                details {
                    summary { "Samples (" (gen.len()) ")" }
                    table.numbers data-for=(format!("{id}gen")) {
                        thead { tr { th.n { "#" } th.n data-series="generation tok/s" { "tok/s" } } }
                        tbody { @for (j, g) in gen.iter().enumerate() { tr { td.n { (j + 1) } td.n { (num(*g)) } } } }
                    }
                }
            }
        }
        (dist_table(html! {
            (dist("prompt throughput", "tok/s", Some(&v.prompt_tps)))
            (dist("generation throughput", "tok/s", Some(&v.gen_tps)))
            (dist("running", "requests", v.running.as_ref()))
            (dist("waiting", "requests", v.waiting.as_ref()))
            (dist("swapped", "requests", v.swapped.as_ref()))
            (dist(&format!("{} KV cache usage", v.kv_device.as_deref().unwrap_or("")), "%", v.kv_usage_pct.as_ref()))
            (dist("prefix cache hit rate", "%", v.prefix_cache_hit_pct.as_ref()))
        }))
        @if let Some(p) = v.preemptions { p { (p) " preemption(s)." } }
    }
}

fn instance(i: &InstanceReport, k: usize, n: usize) -> Markup {
    let e = &i.envelope;
    let inst = &i.instance;
    html! {
        section data-instance=(k + 1) {
            h2 { "Instance " (k + 1) " of " (n) @if let Some(p) = inst.pid { " · pid " (p) } }
            p.sub { "Lines " (inst.first_line) "–" (inst.last_line) "; starts at " (started(inst.started_by)) "." }
            @if e.requests_seen > 0 {
                (facts(&[
                    ("requests", format!("{} seen, {} timed", e.requests_seen, e.requests_timed)),
                    ("prompt at the longest", e.prompt_tps_at_longest.as_ref().map(|p| format!("{} tok/s over {} request(s) of {}–{} tokens", num(p.tps), p.n, p.prompt_tokens_min, p.prompt_tokens_max)).unwrap_or_else(|| "-".into())),
                    ("decode", e.decode_tps.as_ref().map(|d| format!("median {} tok/s, p10 {} – p90 {} (n {})", num(d.median), num(d.p10), num(d.p90), d.n)).unwrap_or_else(|| "-".into())),
                    ("draft acceptance", e.draft.as_ref().map(|d| format!("{} – {} (pooled {}, n {})", opt(d.rate_min), opt(d.rate_max), opt(d.rate_pooled), d.n)).unwrap_or_else(|| "-".into())),
                    ("prefix cache", format!("{} LCP and {} LRU slot selections; {} of {} requests with a known count reused cached tokens ({} tokens)",
                        e.prefix_cache.lcp_selections, e.prefix_cache.lru_selections, e.prefix_cache.requests_with_cached_tokens, e.prefix_cache.cached_tokens_known, e.prefix_cache.cached_tokens)),
                    ("totals", format!("{} prompt tokens in {} ms, {} generated in {} ms over {} requests", e.totals.prompt_tokens, num(e.totals.prompt_ms), e.totals.gen_tokens, num(e.totals.gen_ms), e.totals.requests)),
                ]))
                (requests(i, k))
                (dist_table(html! {
                    (dist("decode rate", "tok/s", e.decode_tps.as_ref()))
                    (dist("prompt rate, every prompt", "tok/s", e.prompt_tps.as_ref()))
                    (dist("decode rate over 3 s windows", "tok/s", e.windowed_decode_tps.as_ref()))
                }))
            }
            @for (j, v) in i.vllm_stats.iter().enumerate() { (vllm(v, &format!("vllm{k}_{j}_"))) }
            @if !i.warnings.is_empty() { h3 { "Warnings" } ul { @for w in &i.warnings { li { (w) } } } }
        }
    }
}

/// The page for a mined log (`headroom.logs/1`): one section per server instance.
pub fn logs(doc: &LogsDoc) -> String {
    let source = match &doc.source {
        Source::Stdin => "stdin".to_string(),
        Source::File { path } => path.display().to_string(),
        Source::Journal { unit, user, since } => format!(
            "journal of {}{unit} since {since}",
            if *user { "user unit " } else { "unit " }
        ),
    };
    let n = doc.instances.len();
    crate::page(
        &format!("headroom logs: {source}"),
        &doc.schema,
        html! {
            h1 { "headroom logs: " (source) }
            (facts(&[
                ("lines", format!("{} read: {} unparsed, {} blank, {} over 1 MiB{}", doc.lines, doc.unparsed_lines, doc.blank_lines, doc.overlong_lines,
                    if doc.interrupted { "; interrupted, the report covers what was read" } else { "" })),
                ("instances", format!("{n} (numbers of two instances are never combined)")),
            ]))
            @if !doc.warnings.is_empty() { ul { @for w in &doc.warnings { li { (w) } } } }
            @for (k, i) in doc.instances.iter().enumerate() { (instance(i, k, n)) }
        },
    )
}
