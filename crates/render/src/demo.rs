//! `headroom demo`'s side-by-side table and its scenario list.

use comfy_table::Cell;
use diagnose::report::Report;
use emulator::demo::{AppliedFix, Demo, FixKind};
use emulator::scenario::{self, Scenario};
use numbers::fmt::{percent_opt, seconds};

/// The scenario list (`headroom demo --list`).
pub fn scenarios() -> comfy_table::Table {
    let mut t = crate::table(["scenario", "primary", "what it is"]);
    for s in scenario::all() {
        t.add_row(vec![
            s.name.to_string(),
            s.expect.primary.unwrap_or("none").to_string(),
            s.summary.to_string(),
        ]);
    }
    t
}

fn f1(v: Option<f64>, unit: &str, scale: f64) -> String {
    match v {
        Some(x) => format!("{:.1}{unit}", x * scale),
        None => "-".into(),
    }
}

fn primary_line(d: &Report) -> String {
    match &d.primary {
        Some(p) => {
            let variant = p
                .variant
                .as_deref()
                .map(|v| format!(" ({v})"))
                .unwrap_or_default();
            format!("{} {}{variant}", p.rule.as_str(), p.title)
        }
        None => "none".into(),
    }
}

fn fix_words(fix: &AppliedFix) -> String {
    match fix.kind {
        FixKind::Flag => format!(
            "{}{}",
            fix.flag.as_deref().unwrap_or(""),
            fix.value
                .as_deref()
                .map(|v| format!(" {v}"))
                .unwrap_or_default()
        ),
        FixKind::Load => format!("clients {}", fix.value.as_deref().unwrap_or("")),
        FixKind::None => "nothing".into(),
    }
}

/// The side-by-side report.
pub fn render(s: &Scenario, doc: &Demo) -> String {
    let before = &doc.before;
    let fix = &doc.applied_fix;
    let after = doc.after.as_ref();
    let mut out = String::new();
    out += &format!(
        "headroom demo: {} on a SIMULATED {} × {} (headroom's emulator, {:.0} s wall)\n{}\n\n",
        s.name, s.gpu, s.model, doc.wall_seconds, s.summary
    );
    type Row = (&'static str, Box<dyn Fn(&Report) -> String>);
    let rows: Vec<Row> = vec![
        ("primary", Box::new(primary_line)),
        (
            "generation tok/s",
            Box::new(|d| f1(d.throughput.generation_tokens_per_s, "", 1.0)),
        ),
        (
            "prompt tok/s",
            Box::new(|d| f1(d.throughput.prompt_tokens_per_s, "", 1.0)),
        ),
        (
            "running (mean)",
            Box::new(|d| f1(d.requests.running.map(|g| g.mean), "", 1.0)),
        ),
        (
            "waiting (mean)",
            Box::new(|d| f1(d.requests.waiting.map(|g| g.mean), "", 1.0)),
        ),
        (
            "KV usage mean / peak",
            Box::new(|d| {
                format!(
                    "{} / {}",
                    percent_opt(d.kv.usage.map(|g| g.mean)),
                    percent_opt(d.kv.usage.map(|g| g.peak))
                )
            }),
        ),
        (
            "prefix-cache hit rate",
            Box::new(|d| percent_opt(d.prefix.hit_rate)),
        ),
        (
            "TTFT p50 / p95",
            Box::new(|d| {
                let t = d.latency.ttft_s;
                // A bucket bound prints with its side ("≤ 40.0 s"), never as a point.
                let q = |v: Option<f64>, b: Option<diagnose::Bound>| match v {
                    Some(v) => format!("{}{}", b.map_or("", |b| b.sign()), seconds(v)),
                    None => "-".into(),
                };
                format!(
                    "{} / {}",
                    q(t.and_then(|t| t.p50), t.and_then(|t| t.p50_bound)),
                    q(t.and_then(|t| t.p95), t.and_then(|t| t.p95_bound))
                )
            }),
        ),
        (
            "time per output token",
            Box::new(|d| f1(d.latency.tpot_s.map(|t| t.mean), " ms", 1e3)),
        ),
        (
            "efficiency (config-relative)",
            Box::new(|d| percent_opt(d.efficiency.config_relative)),
        ),
    ];
    let mut t = crate::table(["", "before", "after"]);
    for (label, f) in &rows {
        t.add_row(vec![
            Cell::new(label),
            Cell::new(f(before)),
            Cell::new(after.map(f).unwrap_or_else(|| "-".into())),
        ]);
    }
    out += &format!("{t}\n\n");
    if let Some(p) = &before.primary {
        out += &format!("Before: {}\n", primary_line(before));
        for e in &p.evidence {
            out += &format!("  - {e}\n");
        }
    }
    match fix.kind {
        FixKind::Flag => {
            out += &format!(
                "Applied: {} ({})\n  before: {}\n  after:  {}\n",
                fix_words(fix),
                fix.text,
                fix.command_line_before,
                fix.command_line_after.as_deref().unwrap_or("-"),
            )
        }
        FixKind::Load => {
            out += &format!(
                "Applied on the client side: {} ({})\n",
                fix.value.as_deref().unwrap_or(""),
                fix.text
            )
        }
        FixKind::None => out += &format!("Nothing applied: {}\n", fix.text),
    }
    if doc.chain.len() > 1 {
        let mut t = crate::table(["step", "change", "generation tok/s", "primary"]);
        t.add_row(vec![
            "0".to_string(),
            "as deployed".to_string(),
            f1(before.throughput.generation_tokens_per_s, "", 1.0),
            before
                .primary_rule()
                .map_or("none", |r| r.as_str())
                .to_string(),
        ]);
        for c in &doc.chain {
            t.add_row(vec![
                c.step.to_string(),
                fix_words(&c.fix),
                f1(c.generation_tokens_per_s, "", 1.0),
                c.primary.map_or("none", |r| r.as_str()).to_string(),
            ]);
        }
        out += &format!("\nThe prescription, step by step:\n{t}\n");
    }
    if let Some(a) = after {
        let b = before.primary_rule();
        let now = a.primary_rule();
        let steps = doc.chain.len();
        let verdict = match (b, now) {
            (Some(b), Some(n)) if b == n => {
                let g = |d: &Report| d.throughput.generation_tokens_per_s;
                match (g(before), g(a)) {
                    (Some(x), Some(y)) if x > 0.0 => format!(
                        "{} still fires after {steps} step(s) (generation {x:.0} → {y:.0} tok/s, ×{:.2}): the prescription's steps ran out here",
                        b.as_str(),
                        y / x
                    ),
                    _ => format!("{} still fires after {steps} step(s): the prescription's steps ran out here", b.as_str()),
                }
            }
            (Some(b), Some(_)) => format!("{} cleared; next: {}", b.as_str(), primary_line(a)),
            (Some(b), None) => format!("{} cleared; no rule fires", b.as_str()),
            _ => "no change".into(),
        };
        out += &format!("After: {verdict}\n");
    }
    out
}
