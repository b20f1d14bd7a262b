//! The pages: diagnose, remeasure, bench and regress, each from its typed document.

use crate::svg::{self, num, Band, Interval, LineChart, RefLine, Series, Strip};
use diagnose::remeasure::{MoveVerdict, Remeasure};
use diagnose::report::Fired;
use diagnose::{Report, RuleId};
use loadgen::bench_doc::BenchDoc;
use maud::{html, Markup};
use regress::RegressDoc;

pub(crate) use crate::svg::opt;

pub(crate) use numbers::fmt::{percent, percent_opt};

/// A plot's numbers: one row per x, one column per series (`data-series` matches the plot's).
pub(crate) fn numbers(id: &str, x_label: &str, series: &[Series]) -> Markup {
    let rows = series.first().map_or(0, |s| s.points.len());
    html! {
        details {
            summary { "Numbers (" (rows) " rows)" }
            table.numbers data-for=(id) {
                thead { tr {
                    th.n { (x_label) }
                    @for s in series { th.n data-series=(s.name) { (s.name) } }
                } }
                tbody {
                    @for i in 0..rows {
                        tr {
                            td.n { (num(series[0].points[i].0)) }
                            @for s in series {
                                td.n { @if let Some(y) = s.points.get(i).and_then(|p| p.1).filter(|y| y.is_finite()) { (num(y)) } }
                            }
                        }
                    }
                }
            }
        }
    }
}

pub(crate) fn chart(c: LineChart) -> Markup {
    html! {
        figure {
            (c.render())
            (numbers(&c.id, &c.x_label, &c.series))
        }
    }
}

pub(crate) fn facts(rows: &[(&str, String)]) -> Markup {
    html! {
        table.facts {
            @for (k, v) in rows { tr { th { (k) } td { (v) } } }
        }
    }
}

/// The sub-windows as shaded bands, each labelled with its number and the rules that fired on
/// it alone.
fn bands(r: &Report) -> Vec<Band> {
    r.timeline
        .sub_windows
        .iter()
        .enumerate()
        .map(|(i, w)| Band {
            x0: w.start_s,
            x1: w.end_s,
            label: if w.fired.is_empty() {
                format!("{}", i + 1)
            } else {
                let f: Vec<&str> = w.fired.iter().map(|r| r.as_str()).collect();
                format!("{} · {}", i + 1, f.join(" "))
            },
        })
        .collect()
}

fn series(
    r: &Report,
    name: &str,
    class: &'static str,
    f: impl Fn(&diagnose::TimePoint) -> Option<f64>,
) -> Series {
    Series {
        name: name.into(),
        class,
        points: r.timeline.points.iter().map(|p| (p.t_s, f(p))).collect(),
    }
}

/// The generation ceiling line: the aggregate at the ridge batch, when the ceiling is known.
fn ceiling_line(r: &Report) -> Vec<RefLine> {
    match (r.ceiling.aggregate_at_ridge_tps, r.ceiling.ridge_batch) {
        (Some(c), Some(b)) if c.is_finite() => vec![RefLine {
            label: format!("ceiling {} tok/s at batch {} (est)", num(c), num(b)),
            y: c,
        }],
        _ => Vec::new(),
    }
}

/// The window's timeline: throughput against the ceiling, requests, KV usage, preemptions.
fn timeline(r: &Report, prefix: &str) -> Markup {
    let tl = &r.timeline;
    if tl.points.is_empty() {
        return html! {
            p.sub { "This run was saved before headroom recorded the window's timeline: only its totals are shown." }
        };
    }
    let x = "seconds into the window".to_string();
    let id = |s: &str| format!("{prefix}{s}");
    let mut max_seqs = Vec::new();
    if let Some(m) = r.requests.max_num_seqs.filter(|m| m.is_finite()) {
        max_seqs.push(RefLine {
            label: format!("max_num_seqs {}", num(m)),
            y: m,
        });
    }
    html! {
        h3 { "Generation throughput" }
        (chart(LineChart { id: id("generation"), x_label: x.clone(), y_label: "tok/s".into(),
            series: vec![series(r, "generation tok/s", "c1", |p| p.generation_tps)],
            refs: ceiling_line(r), bands: bands(r), y_max: None }))
        h3 { "Prompt throughput" }
        (chart(LineChart { id: id("prompt"), x_label: x.clone(), y_label: "tok/s".into(),
            series: vec![series(r, "prompt tok/s", "c2", |p| p.prompt_tps)],
            refs: vec![], bands: bands(r), y_max: None }))
        h3 { "Requests running and waiting" }
        (chart(LineChart { id: id("requests"), x_label: x.clone(), y_label: "requests".into(),
            series: vec![series(r, "running", "c1", |p| p.running), series(r, "waiting", "c4", |p| p.waiting)],
            refs: max_seqs, bands: bands(r), y_max: None }))
        h3 { "KV cache usage" }
        (chart(LineChart { id: id("kv"), x_label: x.clone(), y_label: "% of KV cache".into(),
            series: vec![series(r, "KV usage %", "c3", |p| p.kv_usage.map(|k| k * 100.0))],
            refs: vec![], bands: bands(r), y_max: Some(100.0) }))
        h3 { "Preemptions" }
        (chart(LineChart { id: id("preemptions"), x_label: x, y_label: "per second".into(),
            series: vec![series(r, "preemptions/s", "c4", |p| p.preemptions_per_s)],
            refs: vec![], bands: bands(r), y_max: None }))
        h3 { "Sub-windows" }
        table.subwindows {
            thead { tr { th { "#" } th.n { "from s" } th.n { "to s" } th.n { "generation tok/s" } th.n { "prompt tok/s" }
                th.n { "running mean" } th.n { "waiting mean" } th.n { "KV mean" } th.n { "preemptions/s" } th { "fired alone" } } }
            tbody {
                @for (i, w) in tl.sub_windows.iter().enumerate() {
                    tr {
                        td { (i + 1) } td.n { (num(w.start_s)) } td.n { (num(w.end_s)) }
                        td.n { (opt(w.generation_tps)) } td.n { (opt(w.prompt_tps)) }
                        td.n { (opt(w.running.map(|g| g.mean))) } td.n { (opt(w.waiting.map(|g| g.mean))) }
                        td.n { (percent_opt(w.kv_usage.map(|g| g.mean))) } td.n { (opt(w.preemptions_per_s)) }
                        td { @for rule in &w.fired { (rule.as_str()) " " } }
                    }
                }
            }
        }
    }
}

fn fix(f: &Fired) -> Markup {
    html! {
        @for step in &f.fix {
            @match (&step.flag, &step.value) {
                (Some(flag), value) => {
                    pre.fix { (flag) @if let Some(v) = value { " " (v) } }
                    p.sub { (step.text) @if let Some(c) = step.cost { " (" (c.as_str()) ")" } }
                }
                (None, _) => { p { (step.text) @if let Some(c) = step.cost { " (" (c.as_str()) ")" } } }
            }
        }
    }
}

fn verdict(r: &Report) -> Markup {
    html! {
        @if let Some(p) = &r.primary {
            div.verdict data-primary=(p.rule.as_str()) {
                h2 { "Primary: " (p.rule.as_str()) " " (p.title)
                    @if let Some(v) = &p.variant { " (" (v) ")" } }
                @if let Some(s) = p.seen_in { p.sub { "Fired in " (percent(s)) " of the sub-windows." } }
                ul.ev { @for e in &p.evidence { li { (e) } } }
                h3 { "The fix" }
                (fix(p))
            }
        } @else {
            div.verdict.none data-primary="none" {
                h2 { "No primary bottleneck" }
                @if let Some(b) = &r.boundary { p { strong { (b.kind.as_str()) ": " } (b.text) } }
                @if let Some(fb) = &r.fallback { p { (fb) } }
                @for u in &r.unjudged {
                    p { (u.rule.as_str()) " could not be judged: " (u.hint) "; settle it with " code { (u.needs) } }
                }
            }
        }
    }
}

/// A rule's standing in a report: primary, held, silenced, unjudged, silent or did not fire;
/// a CSS class for it, the share of sub-windows it fired in, and its evidence. The terminal
/// view (`headroom watch`) shows the same.
pub fn standing(r: &Report, rule: RuleId) -> (String, &'static str, Option<f64>, Vec<String>) {
    if let Some(p) = r.primary.as_ref().filter(|p| p.rule == rule) {
        return (
            "primary".into(),
            "st-primary",
            p.seen_in,
            p.evidence.clone(),
        );
    }
    if let Some(h) = r.held.iter().find(|h| h.rule == rule) {
        let next = r.next.as_ref().is_some_and(|n| n.rule == rule);
        let s = if next { "held (next)" } else { "held" };
        return (s.into(), "st-held", h.seen_in, h.evidence.clone());
    }
    if let Some(s) = r.silenced.iter().find(|s| s.rule == rule) {
        return (
            format!("silenced by {}", s.by.as_str()),
            "st-silenced",
            None,
            vec![s.why.clone()],
        );
    }
    if let Some(u) = r.unjudged.iter().find(|u| u.rule == rule) {
        return (
            format!("unjudged: needs {}", u.needs),
            "st-unjudged",
            None,
            vec![u.hint.clone()],
        );
    }
    if let Some(q) = r.quiet.iter().find(|q| q.rule == rule) {
        return match &q.silent_reason {
            Some(why) => (
                "silent".into(),
                "st-silent",
                None,
                std::iter::once(why.clone())
                    .chain(q.evidence.clone())
                    .collect(),
            ),
            None => ("did not fire".into(), "st-quiet", None, q.evidence.clone()),
        };
    }
    ("not reported".into(), "st-quiet", None, Vec::new())
}

/// Every rule's standing, with its evidence.
fn scoreboard(r: &Report) -> Markup {
    let row = |rule: RuleId| standing(r, rule);
    html! {
        table.scoreboard {
            thead { tr { th { "rule" } th { "" } th { "standing" } th.n { "seen in" } th { "evidence (measured against threshold)" } } }
            tbody {
                @for rule in RuleId::ALL {
                    @let (standing, class, seen, ev) = row(rule);
                    tr data-rule=(rule.as_str()) {
                        td { (rule.as_str()) } td { (rule.title()) }
                        td.(class) { (standing) }
                        td.n { (percent_opt(seen)) }
                        td { ul.ev { @for e in &ev { li { (e) } } } }
                    }
                }
            }
        }
    }
}

fn totals(r: &Report) -> Markup {
    let ceiling = match &r.ceiling.unknown_reason {
        Some(why) => format!("unknown: {why}"),
        None => format!(
            "decode {} tok/s per sequence (est), {} tok/s at ridge batch {} (est)",
            opt(r.ceiling.decode_tps),
            opt(r.ceiling.aggregate_at_ridge_tps),
            opt(r.ceiling.ridge_batch)
        ),
    };
    let lat = |d: Option<diagnose::Dist>| {
        d.map(|d| {
            let q = |v: Option<f64>, b: Option<diagnose::Bound>| match v {
                Some(v) => format!("{}{}", b.map_or("", |b| b.sign()), numbers::fmt::seconds(v)),
                None => "-".into(),
            };
            format!(
                "p50 {} · p95 {} · mean {} (n {})",
                q(d.p50, d.p50_bound),
                q(d.p95, d.p95_bound),
                numbers::fmt::seconds(d.mean),
                num(d.count)
            )
        })
        .unwrap_or_else(|| "-".into())
    };
    let g = |x: Option<diagnose::GaugeStats>| {
        x.map(|g| format!("mean {} · peak {}", num(g.mean), num(g.peak)))
            .unwrap_or_else(|| "-".into())
    };
    html! {
        (facts(&[
            ("generation", format!("{} tok/s", opt(r.throughput.generation_tokens_per_s))),
            ("prompt", format!("{} tok/s", opt(r.throughput.prompt_tokens_per_s))),
            ("ceiling", ceiling),
            ("efficiency", format!("~{} of the ceiling; ~{} of what the config allows", percent_opt(r.efficiency.efficiency), percent_opt(r.efficiency.config_relative))),
            ("running", g(r.requests.running)),
            ("waiting", g(r.requests.waiting)),
            ("KV usage", r.kv.usage.map(|k| format!("mean {} · peak {}", percent(k.mean), percent(k.peak))).unwrap_or_else(|| "-".into())),
            ("prefix hit rate", percent_opt(r.prefix.hit_rate)),
            ("TTFT", lat(r.latency.ttft_s)),
            ("inter-token", lat(r.latency.tpot_s)),
            ("end to end", lat(r.latency.e2e_s)),
            ("queue", lat(r.latency.queue_s)),
            ("cost", r.cost.per_million_output_tokens.map(|c| format!("${} per 1M output tokens", num(c))).or_else(|| r.cost.reason.clone()).unwrap_or_else(|| "-".into())),
        ]))
    }
}

fn header(r: &Report, what: &str) -> Markup {
    let window = match r.window.start {
        Some(_) => format!(
            "{} s in {} sub-windows, {} scrapes ({} failed)",
            num(r.window.duration_s),
            r.window.sub_windows,
            r.scrapes.ok,
            r.scrapes.failed
        ),
        None => "-".into(),
    };
    html! {
        h1 { "headroom " (what) ": " (r.model.as_deref().or(r.served_model.as_deref()).unwrap_or("unnamed model"))
            @if r.simulated { " (SIMULATED)" } }
        @if r.simulated {
            p.simulated data-simulated="true" { strong { "SIMULATED: " } "the server was headroom's emulator; every figure on this page is simulated, not measured." }
        }
        @if r.scrapes.incomplete {
            p.incomplete data-incomplete="true" { strong { "INCOMPLETE WINDOW: " }
                (r.scrapes.ok) " of " (r.scrapes.ok + r.scrapes.failed) " scrapes answered ("
                (percent(r.scrapes.share_ok.unwrap_or(0.0))) ", a verdict needs "
                (percent(diagnose::report::MIN_SHARE_OK)) "); what fired describes only the part that answered, and is not a verdict."
                @if let Some(st) = &r.scrapes.stopped { " The server stopped answering after " (st.after_ok) " scrapes: " (st.error) }
            }
        }
        (facts(&[
            ("engine", format!("{}{}", r.engine.name(), r.engine_version.as_deref().map(|v| format!(" {v}")).unwrap_or_default())),
            ("served model", r.served_model.clone().unwrap_or_else(|| "-".into())),
            ("GPU", r.gpu.clone().unwrap_or_else(|| "-".into())),
            ("server", r.shape.url.clone().unwrap_or_else(|| "recording".into())),
            ("window", window),
            ("run", r.saved_run_id.map(|i| i.to_string()).unwrap_or_else(|| "not saved".into())),
        ]))
    }
}

fn config(r: &Report) -> Markup {
    html! {
        details {
            summary { "Configuration read (" (r.config.len()) " values)" }
            table { thead { tr { th { "key" } th { "value" } th { "source" } } }
                tbody { @for (k, s) in &r.config { tr { td { code { (k) } } td { (s.value.to_string()) } td { (s.source) } } } } }
        }
        @if !r.scrapes.errors.is_empty() {
            h3 { "Scrape errors" }
            ul { @for e in &r.scrapes.errors { li { (e) } } }
        }
    }
}

fn diagnose_body(r: &Report) -> Markup {
    html! {
        (verdict(r))
        h2 { "Rules" }
        (scoreboard(r))
        h2 { "The window" }
        (timeline(r, ""))
        h2 { "Totals" }
        (totals(r))
        @if let Some(t) = &r.gpu_telemetry {
            h2 { "GPU telemetry" }
            (crate::gpus::devices(t, r.ceiling.gpu_from.as_deref()))
        }
        (config(r))
    }
}

/// The page for one diagnose window (`headroom.diagnose/1`).
pub fn diagnose(r: &Report) -> String {
    let title = format!(
        "headroom diagnose: {}",
        r.model.as_deref().unwrap_or("unnamed model")
    );
    crate::page(
        &title,
        &r.schema,
        html! { (header(r, "diagnose")) (diagnose_body(r)) },
    )
}

fn move_class(v: MoveVerdict) -> &'static str {
    match v {
        MoveVerdict::Improved => "better",
        MoveVerdict::Worse => "worse",
        _ => "same",
    }
}

/// The page for a re-measure: before and after on the same axes, the move with its interval
/// against the noise floor, whether the config moved as prescribed, then the new window.
pub fn remeasure(before: &Report, m: &Remeasure) -> String {
    let after = &m.after;
    let c = &m.comparison;
    let t = &c.throughput;
    let rule = |r: Option<RuleId>| r.map_or("none", |r| r.as_str());
    let gen = |r: &Report, name: &str, class| series(r, name, class, |p| p.generation_tps);
    let both_timed = !before.timeline.points.is_empty() && !after.timeline.points.is_empty();
    let sub = |r: &Report, name: &str, class| Series {
        name: name.into(),
        class,
        points: r
            .sub_window_generation_tps
            .iter()
            .enumerate()
            .map(|(i, v)| ((i + 1) as f64, *v))
            .collect(),
    };
    let body = html! {
        (header(after, "re-measure"))
        div.verdict.none[c.cleared == Some(true)] data-primary=(rule(c.primary_after)) {
            h2 { "Primary " (rule(c.primary_before)) " → " (rule(c.primary_after))
                @match c.cleared { Some(true) => { ": cleared" } Some(false) => { ": not cleared" } None => {} } }
            p.(move_class(t.verdict)) { "Generation throughput: " strong { (t.verdict.as_str()) }
                @if let Some(r) = &t.reason { " (" (r) ")" } }
            p { "Against run " (m.against) "." }
        }
        h2 { "Throughput, before and after" }
        @if let (Some(r), Some(lo), Some(hi)) = (t.ratio, t.ratio_low, t.ratio_high) {
            figure {
                (svg::intervals("ratio", &[Interval { name: "generation tok/s".into(), ratio: r, low: lo, high: hi, class: move_class(t.verdict) }], t.noise_floor))
                table.numbers data-for="ratio" {
                    thead { tr { th { "metric" } th.n data-series="ratio" { "ratio" } th.n { "low" } th.n { "high" } th.n { "confidence" } th.n { "noise floor" } th.n { "p" } } }
                    tbody { tr { td { "generation tok/s (sub-window medians)" } td.n { (num(r)) } td.n { (num(lo)) } td.n { (num(hi)) }
                        td.n { (percent_opt(t.confidence)) } td.n { (percent_opt(t.noise_floor)) } td.n { (opt(t.p_value)) } } }
                }
            }
        }
        (chart(LineChart { id: "subwindows".into(), x_label: "sub-window".into(), y_label: "generation tok/s".into(),
            series: vec![sub(before, "before", "c2"), sub(after, "after", "c1")],
            refs: ceiling_line(after), bands: vec![], y_max: None }))
        @if both_timed {
            (chart(LineChart { id: "beforeafter".into(), x_label: "seconds into the window".into(), y_label: "generation tok/s".into(),
                series: vec![gen(before, "before", "c2"), gen(after, "after", "c1")],
                refs: ceiling_line(after), bands: bands(after), y_max: None }))
        }
        @if !c.config.is_empty() {
            h2 { "Did the config move as prescribed?" }
            table { thead { tr { th { "flag" } th { "prescribed" } th { "before" } th { "after" } th { "applied" } } }
                tbody { @for cm in &c.config { tr {
                    td { code { (cm.flag) } } td { (cm.prescribed.as_deref().unwrap_or("-")) }
                    td { (cm.before.as_ref().map(|v| v.to_string()).unwrap_or_else(|| "unread".into())) }
                    td { (cm.after.as_ref().map(|v| v.to_string()).unwrap_or_else(|| "unread".into())) }
                    td { (match cm.applied { Some(true) => "yes", Some(false) => "no", None => "unread" }) }
                } } }
            }
        }
        h2 { "The window after" }
        (diagnose_body(after))
    };
    crate::page(
        &format!(
            "headroom re-measure: {}",
            after.model.as_deref().unwrap_or("unnamed model")
        ),
        diagnose::remeasure::SCHEMA,
        body,
    )
}

/// The page for a bench run (`headroom.bench/2`): each metric's samples, the median marked.
pub fn bench(doc: &BenchDoc, run_id: Option<i64>) -> String {
    let id = &doc.identity;
    let body = html! {
        h1 { "headroom bench: " (id.served_model.as_deref().or(doc.suite.model.as_deref()).unwrap_or("unnamed model")) }
        (facts(&[
            ("engine", format!("{}{}", id.engine.map_or("unknown", |e| e.name()), id.version.as_deref().or(id.build.as_deref()).map(|v| format!(" {v}")).unwrap_or_default())),
            ("server", doc.url.clone()),
            ("suite", format!("{} (version {}), {} repeats", doc.suite.preset, doc.suite.version, doc.suite.repeats)),
            ("label", doc.label.clone().unwrap_or_else(|| "-".into())),
            ("run", run_id.map(|i| i.to_string()).unwrap_or_else(|| "not saved".into())),
            ("summary", doc.summary.clone()),
        ]))
        h2 { "Metrics" }
        @for (i, m) in doc.metrics.iter().enumerate() {
            @let cid = format!("metric{i}");
            section data-metric=(m.name) {
                h3 { (m.label) " " span.sub { "(" (m.unit) ", " (match m.better { loadgen::bench_suite::Better::Higher => "higher is better", loadgen::bench_suite::Better::Lower => "lower is better" }) ")" } }
                p.sub { "median " (opt(m.median)) " · min " (opt(m.min)) " · max " (opt(m.max)) " · spread " (percent_opt(m.spread_pct.map(|s| s / 100.0))) " · n " (m.n) }
                figure {
                    (svg::strip(&cid, &Strip { name: m.name.clone(), unit: m.unit.clone(), samples: m.samples.clone(), outliers: m.outliers.clone().unwrap_or_default(), median: m.median }, "c1"))
                    details {
                        summary { "Samples (" (m.samples.len()) ")" }
                        table.numbers data-for=(cid) {
                            thead { tr { th.n { "repeat" } th.n data-series=(m.name) { (m.unit) } th { "" } } }
                            tbody { @for (k, v) in m.samples.iter().enumerate() { tr {
                                td.n { (k + 1) } td.n { @if v.is_finite() { (num(*v)) } }
                                td { @if m.outliers.as_ref().is_some_and(|o| o.contains(&k)) { "outlier (kept)" } }
                            } } }
                        }
                        @if let Some(w) = &m.warmup { p.sub { "Warm-up (not pooled): " (w.iter().map(|v| num(*v)).collect::<Vec<_>>().join(", ")) } }
                    }
                }
            }
        }
        @if !doc.notes.is_empty() { h2 { "Notes" } ul { @for n in &doc.notes { li { (n) } } } }
    };
    crate::page(
        &format!(
            "headroom bench: {}",
            id.served_model.as_deref().unwrap_or("unnamed model")
        ),
        &doc.schema,
        body,
    )
}

fn verdict_class(v: regress::Verdict) -> &'static str {
    match v {
        regress::Verdict::Improved => "better",
        regress::Verdict::Regressed => "worse",
        regress::Verdict::Unchanged => "same",
    }
}

/// The page for a regress comparison (`headroom.regress/3`): each metric's ratio with its
/// interval against the noise floor, then the version series with the first move marked.
pub fn regress(doc: &RegressDoc) -> String {
    let floor = doc.method.threshold_pct / 100.0;
    let rows: Vec<Interval> = doc
        .metrics
        .iter()
        .map(|m| Interval {
            name: m.label.clone(),
            ratio: m.ratio,
            low: m.low,
            high: m.high,
            class: verdict_class(m.verdict),
        })
        .collect();
    let body = html! {
        h1 { "headroom regress" }
        (facts(&[
            ("baseline", format!("{} (runs {})", doc.baseline.key, doc.baseline.run_ids.iter().map(|i| i.to_string()).collect::<Vec<_>>().join(", "))),
            ("latest", format!("{} (runs {})", doc.latest.key, doc.latest.run_ids.iter().map(|i| i.to_string()).collect::<Vec<_>>().join(", "))),
            ("method", format!("{} interval at {}, {}; noise floor ±{}", doc.method.interval, percent(doc.method.confidence), doc.method.test, percent(doc.method.threshold_pct / 100.0))),
        ]))
        ul { @for h in &doc.headline { li { (h) } } }
        h2 { "Ratios against the noise floor" }
        @if !rows.is_empty() {
            figure {
                (svg::intervals("ratios", &rows, Some(floor)))
                table.numbers data-for="ratios" {
                    thead { tr { th { "metric" } th.n { "baseline" } th.n { "latest" } th.n data-series="ratio" { "ratio" } th.n { "low" } th.n { "high" } th.n { "p" } th { "verdict" } th { "" } } }
                    tbody { @for m in &doc.metrics { tr {
                        td { (m.label) } td.n { (num(m.baseline)) " " (m.unit) } td.n { (num(m.latest)) " " (m.unit) }
                        td.n { (num(m.ratio)) } td.n { (num(m.low)) } td.n { (num(m.high)) } td.n { (num(m.test_p)) }
                        td.(verdict_class(m.verdict)) { (m.verdict.as_str()) } td { (m.sentence) }
                    } } }
                }
            }
        }
        @if let Some(series) = &doc.series {
            h2 { "Version series" }
            table { thead { tr { th.n { "#" } th { "version" } th { "runs" } } }
                tbody { @for (i, v) in series.versions.iter().enumerate() { tr { td.n { (i + 1) } td { (v.key) } td { (v.run_ids.iter().map(|i| i.to_string()).collect::<Vec<_>>().join(", ")) } } } } }
            @for (k, sm) in series.metrics.iter().enumerate() {
                @let idx = |name: &str| sm.points.iter().position(|p| p.version == name).map(|i| (i + 1) as f64);
                @let bands: Vec<Band> = sm.first_move.iter().filter_map(|b| Some(Band { x0: idx(&b.from)?, x1: idx(&b.to)?, label: format!("first move: {} → {}", b.from, b.to) })).collect();
                h3 { (sm.label) }
                @if let Some(b) = &sm.first_move { p { (b.sentence) } }
                (chart(LineChart { id: format!("series{k}"), x_label: "version #".into(), y_label: sm.unit.clone(),
                    series: vec![Series { name: "median".into(), class: "c1", points: sm.points.iter().enumerate().map(|(i, p)| ((i + 1) as f64, Some(p.median))).collect() }],
                    refs: vec![], bands, y_max: None }))
            }
        }
        @if !doc.notes.is_empty() { h2 { "Notes" } ul { @for n in &doc.notes { li { (n) } } } }
    };
    crate::page("headroom regress", &doc.schema, body)
}

/// Rows a trace page charts per ranking (the document may hold every kernel).
const TRACE_TOP: usize = 20;

/// A ranking as bars with its table: `rows` are (label, category, µs, count, percent).
fn ranking(
    id: &str,
    label_head: &str,
    rows: &[(String, String, f64, u64, f64)],
    class: &'static str,
) -> Markup {
    let bars: Vec<svg::Bar> = rows
        .iter()
        .map(|r| svg::Bar {
            label: r.0.clone(),
            value: r.2,
        })
        .collect();
    html! {
        figure {
            (svg::bars(id, "device time", "device time (µs)", &bars, class))
            details {
                summary { "Numbers (" (rows.len()) " rows)" }
                table.numbers data-for=(id) {
                    thead { tr { th.n { "#" } th { (label_head) } th { "category" } th.n data-series="device time" { "µs" } th.n { "calls" } th.n { "% of device time" } } }
                    tbody { @for (i, r) in rows.iter().enumerate() { tr {
                        td.n { (i + 1) } td { code { (r.0) } } td { (r.1) }
                        td.n { @if r.2.is_finite() { (num(r.2)) } } td.n { (r.3) } td.n { (num(r.4)) }
                    } } }
                }
            }
        }
    }
}

/// The page for a Kineto trace attribution (`headroom.trace/1`): the top kernels and kernel
/// families by device time, device time per category, and the annotation trap (what a naive
/// sum that counts gpu_user_annotation spans as device time would report).
pub fn trace(doc: &trace::doc::TraceDoc) -> String {
    let kernels: Vec<_> = doc
        .kernels
        .iter()
        .take(TRACE_TOP)
        .map(|k| {
            (
                k.name.clone(),
                k.cat.clone(),
                k.total_us,
                k.count,
                k.percent,
            )
        })
        .collect();
    let symbols: Vec<_> = doc
        .symbols
        .iter()
        .take(TRACE_TOP)
        .map(|k| {
            (
                k.symbol.clone(),
                k.cat.clone(),
                k.total_us,
                k.count,
                k.percent,
            )
        })
        .collect();
    // Categories are summed over every kernel row, so only when the document holds them all.
    let complete = doc.kernels.len() == doc.kernels_total;
    let mut cats: Vec<(String, String, f64, u64, f64)> = Vec::new();
    if complete {
        for k in &doc.kernels {
            match cats.iter_mut().find(|c| c.0 == k.cat) {
                Some(c) => {
                    c.2 += k.total_us;
                    c.3 += k.count;
                    c.4 += k.percent;
                }
                None => cats.push((k.cat.clone(), k.cat.clone(), k.total_us, k.count, k.percent)),
            }
        }
        cats.sort_by(|a, b| b.2.total_cmp(&a.2));
    }
    let a = &doc.annotation;
    let device_events = doc.counts.kernel + doc.counts.gpu_memcpy + doc.counts.gpu_memset;
    let of_device = |v: f64| {
        if doc.device_total_us > 0.0 {
            v * 100.0 / doc.device_total_us
        } else {
            0.0
        }
    };
    let trap: Vec<(String, String, f64, u64, f64)> = [
        (
            "device time (kernels, copies, sets)",
            doc.device_total_us,
            device_events,
        ),
        ("gpu_user_annotation spans", a.total_us, a.count),
        (
            "naive sum of both",
            doc.device_total_us + a.total_us,
            device_events + a.count,
        ),
    ]
    .into_iter()
    .map(|(l, v, n)| (l.to_string(), String::new(), v, n, of_device(v)))
    .collect();
    let body = html! {
        h1 { "headroom trace: " (doc.file) }
        @if let Some(v) = &doc.verdict {
            div.verdict.none[v.plan] { p { (v.text) } p.sub { "kernel time ÷ wall time " (num(v.ratio)) " against the threshold " (num(v.threshold)) " (" (v.wall_source) ")" } }
        }
        (facts(&[
            ("vendor", format!("{} ({})", doc.vendor, doc.vendor_evidence)),
            ("events", format!("{} ({}, {} bytes of JSON){}", doc.events, doc.encoding, doc.json_bytes, if doc.complete { "" } else { "; the trace stops early" })),
            ("device time", format!("{} µs summed, {} µs busy (overlap {} µs)", num(doc.device_total_us), num(doc.busy_us), num(doc.overlap_us))),
            ("span", format!("{} µs, busy {}", opt(doc.span_us), percent_opt(doc.busy_fraction))),
            ("device events", format!("{} kernels, {} copies, {} sets; {} distinct names", doc.counts.kernel, doc.counts.gpu_memcpy, doc.counts.gpu_memset, doc.kernels_total)),
            ("window", doc.window.as_ref().map(|w| format!("ProfilerSteps {}..{} ({} µs; {} device events outside)", w.first_step, w.last_step, num(w.duration_us), w.device_events_outside)).unwrap_or_else(|| "the whole trace".into())),
        ]))
        @if let Some(s) = &doc.stopped { p.sub { "Stopped early: " (s.reason) } }
        h2 { "Top kernels by device time" }
        p.sub { "The " (kernels.len()) " largest of " (doc.kernels_total) " names (full names, template arguments kept)." }
        (ranking("kernels", "kernel", &kernels, "c1"))
        h2 { "Kernel families by device time" }
        p.sub { "Demangled, template and argument lists removed: one row per family." }
        (ranking("symbols", "family", &symbols, "c1"))
        h2 { "Device time by category" }
        @if complete {
            (ranking("categories", "category", &cats, "c1"))
        } @else {
            p.sub { "The document holds the top " (doc.kernels.len()) " of " (doc.kernels_total) " names; categories need them all (run without --top)." }
        }
        h2 { "The annotation trap" }
        @if a.count > 0 {
            p { (a.count) " gpu_user_annotation span(s), " (num(a.total_us)) " µs, wrap kernels: they are not device time. A naive sum with them would report "
                (opt(a.inflation)) "× the device time." }
            @if let Some(l) = &a.largest {
                p { "The largest, " code { (l.name) } " (" (l.count) " span(s)), would have ranked at " (percent(l.naive_percent / 100.0)) " of the naive total." }
            }
            (ranking("trap", "what is summed", &trap, "c4"))
        } @else {
            p { "No gpu_user_annotation spans in this trace: a naive sum would be right here." }
        }
    };
    crate::page(&format!("headroom trace: {}", doc.file), &doc.schema, body)
}
