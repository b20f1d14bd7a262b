//! The fleet page (`headroom.fleet/1`): one row per replica beside the fleet median, the
//! outliers and the imbalance named, and each replica's throughput against the median.

use crate::pages::{facts, opt, percent_opt};
use crate::svg::{self, num, Bar, RefLine};
use ::fleet::{Figures, FleetDoc, Replica};
use maud::{html, Markup};

fn cells(f: &Figures) -> Markup {
    html! {
        td.n { (opt(f.generation_tps)) } td.n { (opt(f.tps_per_running)) } td.n { (opt(f.running)) }
        td.n { (opt(f.waiting)) } td.n { (percent_opt(f.kv_usage)) } td.n { (opt(f.finished_per_s)) }
    }
}

fn primary(r: &Replica) -> Markup {
    html! {
        @match &r.primary {
            Some(p) => {
                span.st-primary { (p.rule.as_str()) } " " (p.title)
                @if let Some(step) = p.fix.first() {
                    br; @match (&step.flag, &step.value) {
                        (Some(fl), Some(v)) => { code { (fl) " " (v) } }
                        (Some(fl), None) => { code { (fl) } " (" (step.text) ")" }
                        _ => { (step.text) }
                    }
                }
            }
            None if r.idle => { span.st-quiet { "idle" } }
            None => { span.st-quiet { "none" } }
        }
    }
}

/// A figure per replica as bars, the fleet median (and any threshold) as lines across them,
/// with its table.
fn figure(
    d: &FleetDoc,
    id: &str,
    name: &str,
    unit: &str,
    get: fn(&Figures) -> Option<f64>,
    refs: Vec<RefLine>,
) -> Markup {
    let bars: Vec<Bar> = d
        .replicas
        .iter()
        .map(|r| Bar {
            label: r.replica.clone(),
            value: get(&r.figures).unwrap_or(f64::NAN),
        })
        .collect();
    html! {
        figure {
            (svg::bars_against(id, name, unit, &bars, "c1", &refs))
            details {
                summary { "Numbers (" (d.replicas.len()) " replicas)" }
                table.numbers data-for=(id) {
                    thead { tr { th { "replica" } th.n data-series=(name) { (unit) } } }
                    tbody { @for r in &d.replicas { tr { td { (r.replica) } td.n { @if let Some(v) = get(&r.figures).filter(|v| v.is_finite()) { (num(v)) } } } } }
                    tfoot { tr { th { "fleet median" } td.n { (opt(get(&d.median))) } } }
                }
            }
        }
    }
}

fn median_line(v: Option<f64>) -> Vec<RefLine> {
    v.filter(|m| m.is_finite())
        .map(|m| RefLine {
            label: format!("fleet median {}", num(m)),
            y: m,
        })
        .into_iter()
        .collect()
}

/// The page for a fleet reading (`headroom.fleet/1`).
pub fn fleet(d: &FleetDoc) -> String {
    let outlier = |r: &str| d.outliers.iter().find(|o| o.replica == r);
    let found = !d.outliers.is_empty() || d.imbalance.fired;
    let mut slow = median_line(d.median.tps_per_running);
    if let Some(m) = d.median.tps_per_running.filter(|m| m.is_finite()) {
        slow.push(RefLine {
            label: format!("{}× the median", num(::fleet::SLOW_SHARE)),
            y: m * ::fleet::SLOW_SHARE,
        });
    }
    let body = html! {
        h1 { "headroom fleet: " (d.replicas.len()) " replicas" }
        (facts(&[
            ("store", d.prometheus.clone()),
            ("replicas", format!("by `{}` under {}", d.by, d.selector)),
            ("window", format!("{} s ending at {:.0} (unix s), step {} s, {} sub-windows; {} queries", num(d.window.duration_s), d.window.end, num(d.window.step_s), d.window.sub_windows, d.queries)),
        ]))
        div.verdict.none[!found] data-outliers=(d.outliers.len()) data-imbalance=(if d.imbalance.fired { "yes" } else { "no" }) {
            @if d.outliers.is_empty() { h2 { "No outlier" } } @else {
                h2 { "Outlier" @if d.outliers.len() > 1 { "s" } ": " (d.outliers.iter().map(|o| o.replica.as_str()).collect::<Vec<_>>().join(", ")) }
                ul.ev { @for o in &d.outliers { li data-outlier=(o.replica) { strong { (o.replica) } " (" (o.kind) "): " (o.reason) } } }
            }
            h3 { "Imbalance: " @if d.imbalance.fired { "yes" } @else { "no" } }
            @if !d.imbalance.evidence.is_empty() { ul.ev { @for e in &d.imbalance.evidence { li { (e) } } } }
            @for f in &d.imbalance.fix { pre.fix { (f) } }
        }
        h2 { "Replicas" }
        table.replicas {
            thead { tr { th { "replica" } th { "engine" } th.n { "gen tok/s" } th.n { "tok/s per seq" } th.n { "running" } th.n { "waiting" }
                th.n { "KV" } th.n { "req/s" } th.n { "load share" } th { "primary and fix" } th.n { "points read" } } }
            tbody {
                @for r in &d.replicas { tr data-replica=(r.replica) {
                    td { (r.replica) @if let Some(o) = outlier(&r.replica) { " " span.st-primary title=(o.reason) { "outlier (" (o.kind) ")" } } }
                    td { (r.engine.name()) } (cells(&r.figures))
                    td.n { (percent_opt(d.imbalance.shares.get(&r.replica).copied())) }
                    td { (primary(r)) } td.n { (r.points_read) " of " (r.points) }
                } }
            }
            tfoot { tr.median { th { "fleet median" } td {} (cells(&d.median)) td {} td {} td {} } }
        }
        @if let Some(g) = &d.dcgm {
            h2 { "GPUs (DCGM)" }
            p.sub { "DCGM series under " (g.selector) ": " (g.gpus) " GPUs in the window, " (g.joined) " joined to a replica"
                @if !g.unjoined.is_empty() { "; joined to none: " (g.unjoined.join(", ")) } }
            @for r in &d.replicas { @if let Some(j) = &r.gpu_join {
                div.replica-gpus data-replica=(r.replica) {
                    h3 { (r.replica) ": "
                        @if let Some(by) = &j.by { "joined by " (by) " (" (j.gpus.join(", ")) ")" }
                        @else { "no GPU joined" } }
                    @if let Some(why) = &j.refused { p.sub { (why) } }
                    @if let Some(t) = &r.gpu_telemetry {
                        (crate::gpus::devices(t, r.ceiling.as_ref().and_then(|c| c.gpu_from.as_deref())))
                    }
                }
            } }
        }
        h2 { "Generation throughput per replica" }
        (figure(d, "generation", "generation tok/s", "generation tok/s", |f| f.generation_tps, median_line(d.median.generation_tps)))
        h2 { "Generation per running sequence" }
        p.sub { "A replica below " (num(::fleet::SLOW_SHARE)) "× its peers' median is named an outlier." }
        (figure(d, "perseq", "tok/s per sequence", "tok/s per running sequence", |f| f.tps_per_running, slow))
        h2 { "Finished requests per second" }
        p.sub { "Imbalance: the busiest replica carries at least " (num(::fleet::IMBALANCE_RATIO)) "× the other replicas' median." }
        (figure(d, "finished", "finished/s", "finished requests per second", |f| f.finished_per_s, median_line(d.median.finished_per_s)))
    };
    crate::page(
        &format!("headroom fleet: {} replicas", d.replicas.len()),
        &d.schema,
        body,
    )
}
