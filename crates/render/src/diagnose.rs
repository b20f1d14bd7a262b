//! `headroom diagnose`'s one-screen scoreboard, and the re-measure comparison. Ceilings print
//! `(est)`, values derived from them `~`, and a value that would be false prints `-` with the
//! reason.

use diagnose::remeasure::Comparison;
use diagnose::report::{Fired, Report};
use diagnose::{Dist, GaugeStats};
use numbers::fmt::percent;
use std::fmt::Write;

fn num(x: f64) -> String {
    physics::provenance::sig(x, 3)
}

/// A gauge's mean and peak, each through `f`.
fn gauge(g: Option<GaugeStats>, f: fn(f64) -> String) -> String {
    match g {
        Some(g) => format!("{} (peak {})", f(g.mean), f(g.peak)),
        None => "- (not exported)".into(),
    }
}

fn lat(d: Option<Dist>) -> String {
    match d.filter(|d| d.count > 0.0) {
        Some(d) => {
            let p95 = d
                .p95
                .map(|p| {
                    let sign = d.p95_bound.map_or("", |b| b.sign());
                    format!(", p95 {sign}{} ms", num(p * 1e3))
                })
                .unwrap_or_default();
            format!("mean {} ms{p95}", num(d.mean * 1e3))
        }
        None => "-".into(),
    }
}

fn opt(x: Option<f64>, unit: &str) -> String {
    x.map(|v| format!("{}{unit}", num(v)))
        .unwrap_or_else(|| "-".into())
}

pub fn finding(out: &mut String, label: &str, f: &Fired) {
    let variant = f
        .variant
        .as_deref()
        .map(|v| format!(" [{v}]"))
        .unwrap_or_default();
    let seen = f
        .seen_in
        .map(|s| format!("  (seen in {} of sub-windows)", percent(s)))
        .unwrap_or_default();
    let _ = writeln!(
        out,
        "{label} {} {}{variant}{seen}",
        f.rule.as_str(),
        f.rule.title()
    );
    for e in &f.evidence {
        let _ = writeln!(out, "    evidence: {e}");
    }
    if f.fix.is_empty() {
        let _ = writeln!(out, "    fix: none left to offer");
    }
    for s in &f.fix {
        let head = match (&s.flag, &s.value) {
            (Some(fl), Some(v)) => format!("{fl} {v}: "),
            (Some(fl), None) => format!("{fl}: "),
            _ => String::new(),
        };
        let cost = s
            .cost
            .map(|c| format!(" [{}]", c.as_str()))
            .unwrap_or_default();
        let _ = writeln!(out, "    fix: {head}{}{cost}", s.text);
    }
}

/// The window is mostly missing (below `MIN_SHARE_OK` of its scrapes answered), or the server
/// stopped answering before its end: one line that says so, with the counts.
pub fn incomplete(r: &Report) -> Option<String> {
    let s = &r.scrapes;
    let stopped = s.stopped.as_ref().map(|st| {
        format!(
            "the server stopped answering at {} after {} scrape{} ({} failed since: {})",
            crate::history::clock(st.at),
            st.after_ok,
            if st.after_ok == 1 { "" } else { "s" },
            st.failed_since,
            st.error
        )
    });
    if s.incomplete {
        Some(format!(
            "INCOMPLETE WINDOW: {} of {} scrapes answered ({}, a verdict needs {}){}; \
             what fired below describes only the part that answered, and is not a verdict",
            s.ok,
            s.ok + s.failed,
            percent(s.share_ok.unwrap_or(0.0)),
            percent(diagnose::report::MIN_SHARE_OK),
            stopped.map(|x| format!("; {x}")).unwrap_or_default()
        ))
    } else {
        stopped.map(|x| format!("note: {x}"))
    }
}

pub fn render(r: &Report, verbose: bool) -> String {
    let mut o = String::new();
    let d = &r.efficiency;
    let engine = r.engine.as_str();
    let version = r
        .engine_version
        .as_deref()
        .map(|v| format!(" {v}"))
        .unwrap_or_default();
    let model = r.model.clone().unwrap_or_else(|| "-".into());
    let gpu = r.ceiling.gpu.clone().unwrap_or_else(|| "-".into());
    let _ = writeln!(
        o,
        "headroom diagnose · {}{engine}{version} · model {model} · GPU {gpu} · window {} s, {} scrapes ok, {} failed",
        if r.simulated { "SIMULATED " } else { "" },
        num(r.window.duration_s),
        r.scrapes.ok,
        r.scrapes.failed
    );
    if r.simulated {
        let _ = writeln!(
            o,
            "  SIMULATED: the server is headroom's emulator; every figure below is simulated, not measured"
        );
    }
    if let Some(line) = incomplete(r) {
        let _ = writeln!(o, "  {line}");
    }
    if r.window.resets > 0 {
        let _ = writeln!(
            o,
            "  note: counters reset {} time(s) in the window (engine restart): {} scrapes were cut, the longest run is analysed",
            r.window.resets, r.window.cut_by_reset
        );
    }
    for t in &r.window.truncated {
        let _ = writeln!(o, "  note: a scrape was truncated; cut: {t}");
    }
    let _ = writeln!(o);
    let row = |o: &mut String, k: &str, v: String| {
        let _ = writeln!(o, "  {k:<14}{v}");
    };
    match &r.ceiling.unknown_reason {
        None => {
            let dec = r
                .ceiling
                .decode_tps
                .map(|x| format!("decode {} tok/s per sequence (est)", num(x)))
                .unwrap_or_default();
            let ridge = match (r.ceiling.ridge_batch, r.ceiling.aggregate_at_ridge_tps) {
                (Some(b), Some(a)) => {
                    format!(" · ridge batch ~{} · aggregate ~{} tok/s", num(b), num(a))
                }
                _ => String::new(),
            };
            let bits = match (r.ceiling.bits, &r.ceiling.bits_source) {
                (Some(b), Some(s)) => format!(" · {} bits/param ({s})", num(b)),
                _ => String::new(),
            };
            row(&mut o, "Ceiling", format!("{dec}{ridge}{bits}"));
            if let Some(t) = &r.ceiling.tp_assumption {
                row(&mut o, "", format!("tp {}: {t}", r.ceiling.tp));
            }
        }
        Some(why) => row(
            &mut o,
            "Ceiling",
            format!("Hardware ceiling unknown: {why}"),
        ),
    }
    let eff = if d.speculation_suspected {
        "- (measured decode beats the one-token-per-read roof: speculation suspected)".to_string()
    } else {
        match (d.efficiency, d.config_relative) {
            // One seat (llama.cpp -np 1, max_num_seqs 1): the box serves one sequence at a
            // time, so its ceiling is the single-stream one; × ridge would be a batch it
            // cannot run.
            (Some(_), Some(c)) if r.requests.max_num_seqs == Some(1.0) => format!(
                "~{} of the single-stream decode ceiling (one seat: one sequence at a time)",
                percent(c)
            ),
            (Some(e), Some(c)) => format!(
                "~{} of decode ceiling × ridge · config-relative ~{}",
                percent(e),
                percent(c)
            ),
            _ => "- (needs the hardware ceiling)".into(),
        }
    };
    row(&mut o, "Efficiency", eff);
    if let Some(band) = &r.ceiling.published_band {
        row(&mut o, "", band.clone());
    }
    match (r.cost.per_million_output_tokens, &r.cost.reason) {
        (Some(c), _) => row(
            &mut o,
            "Cost",
            format!(
                "${} per 1M output tokens at the measured throughput",
                num(c)
            ),
        ),
        (None, Some(why)) if r.shape.price_per_hour.is_some() => {
            row(&mut o, "Cost", format!("- ({why})"))
        }
        _ => {}
    }
    let max = r
        .requests
        .max_num_seqs
        .map(|m| format!(" · max {}", num(m)))
        .unwrap_or_else(|| " · max unread".into());
    row(
        &mut o,
        "Requests",
        format!(
            "running {} · waiting {}{max}",
            gauge(r.requests.running, num),
            gauge(r.requests.waiting, num)
        ),
    );
    row(
        &mut o,
        "Latency",
        format!(
            "TTFT {} · TPOT {}",
            lat(r.latency.ttft_s),
            lat(r.latency.tpot_s)
        ),
    );
    let pool =
        r.kv.capacity_tokens
            .map(|c| format!(" · pool {} tokens", num(c)))
            .unwrap_or_default();
    row(
        &mut o,
        "KV cache",
        format!("{}{pool}", gauge(r.kv.usage, percent)),
    );
    let caching = match r.prefix.caching {
        Some(true) => "caching on",
        Some(false) => "caching off",
        None => "caching unread",
    };
    row(
        &mut o,
        "Prefix cache",
        format!(
            "hit rate {} · {caching}",
            numbers::fmt::percent_opt(r.prefix.hit_rate)
        ),
    );
    row(
        &mut o,
        "Throughput",
        format!(
            "generation {} · prompt {}",
            opt(r.throughput.generation_tokens_per_s, " tok/s"),
            opt(r.throughput.prompt_tokens_per_s, " tok/s")
        ),
    );
    row(
        &mut o,
        "Traffic",
        format!(
            "{} finished · prompt {} · output {}{}",
            opt(r.requests.finished_per_s, " req/s"),
            opt(r.traffic.mean_prompt_tokens, " tokens"),
            opt(r.traffic.mean_output_tokens, " tokens"),
            // Requests the server turned away never show in finished or waiting.
            match r.requests.admission_rejections {
                Some(n) if n > 0.0 => format!(" · {n:.0} refused at the queue limit (HTTP 503)"),
                _ => String::new(),
            }
        ),
    );
    let _ = writeln!(o);
    let v = r;
    match &v.primary {
        Some(p) => {
            let label = if v.scrapes.incomplete {
                "PRIMARY (incomplete window, not a verdict)"
            } else {
                "PRIMARY"
            };
            finding(&mut o, label, p);
            if let Some(n) = &v.next {
                let _ = writeln!(o);
                finding(&mut o, "NEXT (the primary has no fix left)", n);
            }
            if !v.held.is_empty() {
                let names: Vec<&str> = v.held.iter().map(|f| f.rule.as_str()).collect();
                let _ = writeln!(
                    o,
                    "\n  {} more rule(s) held: {} — they surface after the re-measure{}",
                    v.held.len(),
                    names.join(", "),
                    if verbose { "" } else { " (-v shows them)" }
                );
            }
        }
        None if !v.held.is_empty() => {
            let names: Vec<&str> = v.held.iter().map(|f| f.rule.as_str()).collect();
            let _ = writeln!(
                o,
                "No primary named: {} fired, but a rule that outranks it cannot be judged.",
                names.join(", ")
            );
            if verbose {
                for h in &v.held {
                    let _ = writeln!(o);
                    finding(&mut o, "FIRED (not crowned)", h);
                }
            }
        }
        None => {
            let _ = writeln!(o, "No rule fires.");
            if let Some(f) = &v.fallback {
                let _ = writeln!(o, "  {f}");
            }
            if let Some(b) = &v.boundary {
                let _ = writeln!(o, "  Boundary: {} — {}", b.kind.as_str(), b.text);
            }
        }
    }
    // What would outrank the primary but could not be judged: one line each, with the flag.
    for u in &v.unjudged {
        let _ = writeln!(
            o,
            "  Unjudged {} {}: {} — {} {} to settle it",
            u.rule.as_str(),
            u.rule.title(),
            u.hint,
            if u.needs.starts_with("--") {
                "pass"
            } else {
                "run"
            },
            u.needs
        );
    }
    if verbose && v.primary.is_some() {
        for h in &v.held {
            let _ = writeln!(o);
            finding(&mut o, "HELD", h);
        }
        for s in &v.silenced {
            let _ = writeln!(
                o,
                "\n  silenced {} by {}: {}",
                s.rule.as_str(),
                s.by.as_str(),
                s.why
            );
        }
        let _ = writeln!(o, "\n  quiet rules:");
        for q in &v.quiet {
            match &q.silent_reason {
                Some(why) => {
                    let _ = writeln!(
                        o,
                        "    {} {}: cannot judge: {why}",
                        q.rule.as_str(),
                        q.rule.title()
                    );
                }
                None => {
                    let _ = writeln!(
                        o,
                        "    {} {}: {}",
                        q.rule.as_str(),
                        q.rule.title(),
                        q.evidence.join("; ")
                    );
                }
            }
        }
        if !r.config.is_empty() {
            let _ = writeln!(o, "\n  config:");
            for (k, s) in &r.config {
                let _ = writeln!(o, "    {k} = {} ({})", s.value, s.source);
            }
        }
    }
    o
}

/// The re-measure's comparison, for a person.
pub fn comparison(c: &Comparison) -> String {
    let mut o = String::new();
    let rule = |r: Option<diagnose::RuleId>| r.map_or("none", |r| r.as_str());
    let (b, a) = (rule(c.primary_before), rule(c.primary_after));
    let verdict = match c.cleared {
        Some(true) => format!("cleared: the primary was {b}, now {a}"),
        Some(false) => format!("NOT cleared: {b} fires again"),
        None => format!("there was no primary before; now {a}"),
    };
    let _ = writeln!(o, "  primary       {verdict}");
    let t = &c.throughput;
    let f = |v: Option<f64>| v.map(num).unwrap_or_else(|| "-".into());
    let spread = |v: Option<[f64; 2]>| match v {
        Some([lo, hi]) => format!(" [{}–{}]", num(lo), num(hi)),
        None => String::new(),
    };
    let ratio = t
        .ratio
        .map(|r| format!(" ({}", numbers::fmt::percent_signed(r - 1.0)))
        .unwrap_or_default();
    let p = t
        .p_value
        .map(|p| format!(", p = {p:.3})"))
        .unwrap_or_else(|| {
            if ratio.is_empty() {
                String::new()
            } else {
                ")".into()
            }
        });
    let _ = writeln!(
        o,
        "  throughput    generation {} → {} tok/s (sub-window median {}{} → {}{}){ratio}{p}: {}",
        f(t.generation_tps_before),
        f(t.generation_tps_after),
        f(t.sub_window_median_before),
        spread(t.spread_before),
        f(t.sub_window_median_after),
        spread(t.spread_after),
        t.verdict.as_str()
    );
    if let (Some(lo), Some(hi), Some(conf), Some(floor)) =
        (t.ratio_low, t.ratio_high, t.confidence, t.noise_floor)
    {
        let _ = writeln!(
            o,
            "                ratio {} CI ×{}–×{}; a move must clear the ±{} noise floor{}",
            percent(conf),
            physics::provenance::sig(lo, 3),
            physics::provenance::sig(hi, 3),
            percent(floor),
            t.reason
                .as_deref()
                .map(|r| format!(" ({r})"))
                .unwrap_or_default()
        );
    }
    let pc = |v: Option<f64>| {
        v.map(|x| format!("~{}", percent(x)))
            .unwrap_or_else(|| "-".into())
    };
    let _ = writeln!(
        o,
        "  efficiency    config-relative {} → {}",
        pc(c.efficiency_before),
        pc(c.efficiency_after)
    );
    let val = |v: &Option<diagnose::report::ConfigValue>| {
        v.as_ref()
            .map_or_else(|| "null".to_string(), |v| v.to_string())
    };
    for k in &c.config {
        let applied = match k.applied {
            Some(true) => "applied",
            Some(false) => "NOT applied",
            None => "unread after",
        };
        let _ = writeln!(
            o,
            "  config        {} {}: {} → {} ({applied})",
            k.flag,
            k.prescribed.as_deref().unwrap_or(""),
            val(&k.before),
            val(&k.after)
        );
    }
    let surfaced: Vec<&str> = c.surfaced.iter().map(|f| f.rule.as_str()).collect();
    if !surfaced.is_empty() {
        let _ = writeln!(
            o,
            "  surfaced      the same primary fired again, so the held rules surface: {}",
            surfaced.join(", ")
        );
    }
    o
}
