//! The probe pages (`headroom.probe/1`): depth plots decode rate against depth with the fit and
//! the interval on its slope; prefix and turns put cold (or first) requests against warm ones.

use crate::pages::{chart, facts, numbers, opt};
use crate::svg::{self, num, Fit, LineChart, Scatter, Series};
use loadgen::probe::depth::Phase;
use loadgen::probe::{
    CacheVerdict, DepthReport, DepthVerdict, Med, PrefixReport, ProbeDoc, ProbeReport, TurnsReport,
};
use loadgen::ServerInfo;
use maud::{html, Markup};

fn med(m: &Med) -> String {
    format!("{} (n {})", opt(m.median), m.n)
}

fn server(info: &ServerInfo, counted: String) -> Markup {
    facts(&[
        (
            "engine",
            info.engine.map_or("unknown", |e| e.name()).to_string(),
        ),
        (
            "model",
            info.model.clone().unwrap_or_else(|| "not listed".into()),
        ),
        (
            "context",
            info.context
                .as_ref()
                .map(|c| format!("{} tokens per request ({})", c.tokens, c.source))
                .unwrap_or_else(|| "not reported".into()),
        ),
        ("prompt lengths", counted),
    ])
}

/// A scatter with its numbers under it.
fn scatter(s: Scatter) -> Markup {
    html! {
        figure {
            (s.render())
            (numbers(&s.id, &s.x_label, &s.series))
        }
    }
}

fn depth(r: &DepthReport) -> Markup {
    let f = &r.fit;
    // The fit's x is the server's prompt count where given; its centre is the mean x of the
    // samples it was fitted on (those with a decode rate).
    let fitted: Vec<f64> = r
        .samples
        .iter()
        .filter(|s| s.decode_tps.is_some_and(f64::is_finite))
        .map(|s| s.x() as f64)
        .collect();
    let pivot = fitted.iter().sum::<f64>() / fitted.len().max(1) as f64;
    let phase = |p: Phase| -> Vec<(f64, Option<f64>)> {
        r.samples
            .iter()
            .map(|s| (s.x() as f64, s.decode_tps.filter(|_| s.phase == p)))
            .collect()
    };
    let conf = numbers::fmt::percent(f.confidence);
    let by_depth =
        |name: &str, class, g: fn(&loadgen::probe::depth::DepthRow) -> Option<f64>| Series {
            name: name.into(),
            class,
            points: r
                .rows
                .iter()
                .map(|row| (row.depth as f64, g(row)))
                .collect(),
        };
    html! {
        div.verdict.none[r.verdict == DepthVerdict::Flat] data-verdict=(r.verdict.as_str()) {
            h2 { "Verdict: " (r.verdict.as_str()) }
            p { (r.reason) }
            @if r.verdict == DepthVerdict::ContextBound {
                p { "Drop: " (num(r.drop_per_10k_tps)) " tok/s per 10k tokens of depth (interval "
                    (num(r.drop_per_10k_low)) " … " (num(r.drop_per_10k_high)) "; a linear fit over the probed depths)." }
            }
        }
        h2 { "Decode rate against depth" }
        p.sub { "Every request, cold (freshly salted) and warm (the same prompt again); the line is the least-squares fit, the shaded fan the "
            (conf) " interval on its slope." }
        (scatter(Scatter { id: "depth".into(), x_label: "prompt tokens".into(), y_label: "decode tok/s".into(),
            series: vec![
                Series { name: "cold".into(), class: "c2", points: phase(Phase::Cold) },
                Series { name: "warm".into(), class: "c1", points: phase(Phase::Warm) },
            ],
            fit: Some(Fit { label: format!("fit, {conf} interval on the slope"), intercept: f.intercept_tps,
                slope: f.slope_tps_per_1k / 1e3, low: f.low / 1e3, high: f.high / 1e3, pivot_x: pivot }) }))
        table.fit {
            thead { tr { th { "fit" } th.n { "slope tok/s per 1k tokens" } th.n { "low" } th.n { "high" } th.n { "confidence" }
                th.n { "at depth 0, tok/s" } th.n { "R²" } th.n { "n" } th.n { "drop over the range" } } }
            tbody { tr { td { "decode tok/s against depth" } td.n { (num(f.slope_tps_per_1k)) } td.n { (num(f.low)) } td.n { (num(f.high)) }
                td.n { (conf) } td.n { (num(f.intercept_tps)) } td.n { (num(f.r2)) } td.n { (f.n) }
                td.n { (numbers::fmt::percent(r.drop_over_range)) } } }
        }
        h2 { "Cold against warm, per depth" }
        (chart(LineChart { id: "ttft".into(), x_label: "depth (tokens)".into(), y_label: "median TTFT ms".into(),
            series: vec![by_depth("cold TTFT ms", "c2", |row| row.cold_ttft_ms.median), by_depth("warm TTFT ms", "c1", |row| row.warm_ttft_ms.median)],
            refs: vec![], bands: vec![], y_max: None }))
        table.rows {
            thead { tr { th.n { "depth" } th.n { "cold TTFT ms" } th.n { "warm TTFT ms" } th.n { "warm cached tokens" }
                th.n { "cold decode tok/s" } th.n { "warm decode tok/s" } } }
            tbody { @for row in &r.rows { tr {
                td.n { (row.depth) } td.n { (med(&row.cold_ttft_ms)) } td.n { (med(&row.warm_ttft_ms)) } td.n { (med(&row.warm_cached_tokens)) }
                td.n { (med(&row.cold_decode_tps)) } td.n { (med(&row.warm_decode_tps)) }
            } } }
        }
        p.sub { (r.gen) " tokens generated per request, " (r.repeats) " cold+warm pair(s) per depth." }
    }
}

fn verdict(v: CacheVerdict) -> &'static str {
    match v {
        CacheVerdict::Hit => "hit",
        CacheVerdict::Miss => "miss",
    }
}

fn prefix(r: &PrefixReport) -> Markup {
    let bars: Vec<svg::Bar> = r
        .runs
        .iter()
        .map(|x| svg::Bar {
            label: format!("{} #{}", x.kind.as_str(), x.repeat),
            value: x.ttft_ms,
        })
        .collect();
    let basis = match r.basis {
        loadgen::probe::prefix::VerdictBasis::EngineCount => "by the engine's cached-token count",
        loadgen::probe::prefix::VerdictBasis::Ttft => "by TTFT",
    };
    html! {
        div.verdict.none[r.verdict == CacheVerdict::Hit && r.control == CacheVerdict::Miss] data-verdict=(verdict(r.verdict)) {
            h2 { "Prefix cache: " (verdict(r.verdict)) " (" (basis) ")" }
            p { (r.reason) }
            p.sub { "Control: the salted prompt was a " (verdict(r.control)) " (expected: miss)." }
            @for w in &r.warnings { p { "Warning: " (w) } }
        }
        (facts(&[
            ("load before", r.load_before.as_ref().map(|l| format!("{} running, {} waiting ({})", num(l.running), num(l.waiting), l.source)).unwrap_or_else(|| "not readable".into())),
            ("forced", if r.forced { "yes" } else { "no" }.into()),
        ]))
        h2 { "TTFT cold, warm and the salted control" }
        figure {
            (svg::bars("prefix", "TTFT", "TTFT (ms)", &bars, "c1"))
            table.numbers data-for="prefix" {
                thead { tr { th { "run" } th.n { "#" } th.n { "prompt tokens" } th.n data-series="TTFT" { "TTFT ms" }
                    th.n { "decode tok/s" } th.n { "cached tokens" } th { "reported by" } } }
                tbody { @for x in &r.runs { tr {
                    td { (x.kind.as_str()) } td.n { (x.repeat) } td.n { (x.server_prompt_tokens.unwrap_or(x.prompt_tokens)) }
                    td.n { @if x.ttft_ms.is_finite() { (num(x.ttft_ms)) } } td.n { (opt(x.decode_tps)) }
                    td.n { (x.cached_tokens.map(|c| c.to_string()).unwrap_or_else(|| "-".into())) }
                    td { (x.cached_field.as_deref().unwrap_or("not reported")) }
                } } }
            }
        }
        table.medians {
            thead { tr { th { "" } th.n { "median TTFT ms" } th.n { "cached fraction" } } }
            tbody {
                tr { td { "cold" } td.n { (med(&r.cold_ttft_ms)) } td.n { "" } }
                tr { td { "warm" } td.n { (med(&r.warm_ttft_ms)) } td.n { (med(&r.warm_cached_fraction)) } }
                tr { td { "salted" } td.n { (med(&r.salted_ttft_ms)) } td.n { (med(&r.salted_cached_fraction)) } }
            }
        }
    }
}

fn turns(r: &TurnsReport) -> Markup {
    let first = |warm: bool| -> Vec<(f64, Option<f64>)> {
        r.records
            .iter()
            .map(|x| {
                (
                    x.turn as f64,
                    Some(x.ttft_ms).filter(|_| (x.turn > 1) == warm),
                )
            })
            .collect()
    };
    let per_turn =
        |name: &str, class, g: fn(&loadgen::probe::turns::TurnRow) -> Option<f64>| Series {
            name: name.into(),
            class,
            points: r
                .per_turn
                .iter()
                .map(|row| (row.turn as f64, g(row)))
                .collect(),
        };
    html! {
        div.verdict.none[r.warm_faster] data-verdict=(if r.warm_faster { "warm-faster" } else { "warm-not-faster" }) {
            h2 { @if r.warm_faster { "Warm turns reach their first token sooner" } @else { "Warm turns are not faster" } }
            p { (r.summary) }
            p.sub { "Median warm TTFT ÷ median first-turn TTFT: " (opt(r.warm_over_first)) "." }
        }
        (facts(&[
            ("conversations", format!("{} in parallel × {} turns", r.conversations, r.turns)),
            ("first message", format!("{} tokens", r.context)),
            ("generated", format!("{} tokens per turn", r.gen)),
        ]))
        h2 { "TTFT of every turn: first against warm" }
        (scatter(Scatter { id: "turns".into(), x_label: "turn".into(), y_label: "TTFT ms".into(),
            series: vec![
                Series { name: "first turn".into(), class: "c2", points: first(false) },
                Series { name: "warm turns".into(), class: "c1", points: first(true) },
            ], fit: None }))
        h2 { "Per turn, medians over conversations" }
        (chart(LineChart { id: "perturn".into(), x_label: "turn".into(), y_label: "tokens".into(),
            series: vec![per_turn("context tokens", "c3", |t| t.prompt_tokens.median), per_turn("cached tokens", "c1", |t| t.cached_tokens.median)],
            refs: vec![], bands: vec![], y_max: None }))
        table.medians {
            thead { tr { th { "" } th.n { "median TTFT ms" } th.n { "median decode tok/s" } } }
            tbody {
                tr { td { "first turns" } td.n { (med(&r.first_ttft_ms)) } td.n { (med(&r.first_decode_tps)) } }
                tr { td { "warm turns" } td.n { (med(&r.warm_ttft_ms)) } td.n { (med(&r.warm_decode_tps)) } }
            }
        }
        table.rows {
            thead { tr { th.n { "turn" } th.n { "context tokens" } th.n { "TTFT ms" } th.n { "cached tokens" } th.n { "decode tok/s" } } }
            tbody { @for row in &r.per_turn { tr {
                td.n { (row.turn) } td.n { (med(&row.prompt_tokens)) } td.n { (med(&row.ttft_ms)) } td.n { (med(&row.cached_tokens)) } td.n { (med(&row.decode_tps)) }
            } } }
        }
    }
}

/// The page for a probe run (`headroom.probe/1`).
pub fn probe(doc: &ProbeDoc) -> String {
    let (info, counted, body) = match &doc.report {
        ProbeReport::Depth(r) => (&r.server, r.prompt_count.describe(), depth(r)),
        ProbeReport::Prefix(r) => (&r.server, r.prompt_count.describe(), prefix(r)),
        ProbeReport::Turns(r) => (&r.server, r.context_count.describe(), turns(r)),
    };
    let model = info.model.as_deref().unwrap_or("unnamed model");
    let title = format!("headroom probe {}: {model}", doc.probe());
    crate::page(
        &title,
        &doc.schema,
        html! {
            h1 { (title) }
            (server(info, counted))
            (body)
        },
    )
}
