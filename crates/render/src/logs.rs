//! `headroom logs`'s human form: each server instance's envelope from the engine's own log
//! lines (llama.cpp's print_timing, vLLM's stats line), the follow-mode update line, and the
//! per-request table.

use comfy_table::{Cell, CellAlignment, Table};
use numbers::fmt::percent;
use telemetry::{Dist, InstanceReport, Report, StartReason, VllmStats};

/// The one-line-per-instance update `--follow` prints as requests arrive.
pub fn update(report: &Report) -> String {
    let mut out = String::new();
    for (k, i) in report.instances.iter().enumerate() {
        for v in &i.vllm_stats {
            out += &format!(
                "instance {}{}: vLLM {}: {} stats lines | generation median {} t/s, peak {} | \
                 prompt median {} t/s, peak {}\n",
                k + 1,
                i.instance
                    .pid
                    .map(|p| format!(" pid {p}"))
                    .unwrap_or_default(),
                vllm_engine(v),
                v.lines,
                tenths(v.gen_tps.median),
                tenths(v.gen_tps.max),
                tenths(v.prompt_tps.median),
                tenths(v.prompt_tps.max),
            );
        }
        if i.envelope.requests_seen == 0 {
            continue;
        }
        let e = &i.envelope;
        let mut line = format!(
            "instance {}{}: {} requests ({} timed)",
            k + 1,
            i.instance
                .pid
                .map(|p| format!(" pid {p}"))
                .unwrap_or_default(),
            e.requests_seen,
            e.requests_timed
        );
        if let Some(d) = &e.decode_tps {
            line += &format!(
                " | decode median {} t/s, p10-p90 {}-{} (n={})",
                num(d.median),
                num(d.p10),
                num(d.p90),
                d.n
            );
        }
        if let Some(p) = &e.prompt_tps_at_longest {
            line += &format!(
                " | prompt {} t/s at {} tok (n={})",
                num(p.tps),
                p.prompt_tokens_max,
                p.n
            );
        }
        out += &line;
        out.push('\n');
    }
    out
}

/// Three significant figures for rates, without pretending to more.
fn num(x: f64) -> String {
    if !x.is_finite() {
        return "-".into();
    }
    let a = x.abs();
    if a >= 100.0 {
        format!("{x:.0}")
    } else if a >= 10.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.2}")
    }
}

fn dist(d: &Dist, unit: &str) -> String {
    format!(
        "median {}{unit} · p10-p90 {}-{}{unit}",
        num(d.median),
        num(d.p10),
        num(d.p90)
    )
}

fn started(i: &InstanceReport) -> &'static str {
    match i.instance.started_by {
        StartReason::LogStart => "already running when the log starts",
        StartReason::Startup => "startup lines",
        StartReason::ModelLoaded => "a new `model loaded`",
        StartReason::TaskIdsRestarted => "task ids restarted (a restart without startup lines)",
        StartReason::NewPid => "a new process id",
    }
}

/// The final report: per instance its envelope table (and with `list_requests` every
/// request), then the warnings and the line counts.
pub fn report(report: &Report, list_requests: bool) -> String {
    let mut out = String::new();
    let n = report.instances.len();
    for (k, i) in report.instances.iter().enumerate() {
        let e = &i.envelope;
        out += &format!(
            "instance {} of {n}{} · lines {}-{} · started by {}\n",
            k + 1,
            i.instance
                .pid
                .map(|p| format!(" · pid {p}"))
                .unwrap_or_default(),
            i.instance.first_line,
            i.instance.last_line,
            started(i),
        );
        if e.requests_seen > 0 || i.vllm_stats.is_empty() {
            out += &format!(
                "  requests: {} seen, {} with timing lines, {} cancel line(s)\n",
                e.requests_seen, e.requests_timed, i.instance.cancelled_tasks
            );
        }
        for v in &i.vllm_stats {
            out += &vllm_table(v);
        }
        if e.requests_seen == 0 {
            out += "\n";
            continue;
        }
        let mut t = crate::table(["figure", "value", "n", "how"]);
        let mut row = |fig: &str, val: String, n: String, how: &str| {
            t.add_row(vec![
                Cell::new(fig),
                Cell::new(val),
                Cell::new(n).set_alignment(CellAlignment::Right),
                Cell::new(how),
            ]);
        };
        match &e.decode_tps {
            Some(d) => row(
                "decode",
                dist(d, " t/s"),
                d.n.to_string(),
                "engine's rate per request, >= 2 tokens",
            ),
            None => row(
                "decode",
                "-".into(),
                "0".into(),
                "no request with >= 2 generated tokens",
            ),
        }
        if let Some(d) = &e.windowed_decode_tps {
            row(
                "decode, 3 s windows",
                dist(d, " t/s"),
                d.n.to_string(),
                "tg_3s of n_gen lines",
            );
        }
        match &e.prompt_tps_at_longest {
            Some(p) => row(
                "prompt, longest",
                if p.prompt_tokens_min == p.prompt_tokens_max {
                    format!("{} t/s at {} tokens", num(p.tps), p.prompt_tokens_max)
                } else {
                    format!(
                        "{} t/s at {}-{} tokens",
                        num(p.tps),
                        p.prompt_tokens_min,
                        p.prompt_tokens_max
                    )
                },
                p.n.to_string(),
                "sum tokens / sum time, prompts >= 90% of the longest",
            ),
            None => row(
                "prompt, longest",
                "-".into(),
                "0".into(),
                "no computed prompt",
            ),
        }
        if let Some(d) = &e.prompt_tps {
            row(
                "prompt, all",
                dist(d, " t/s"),
                d.n.to_string(),
                "short prompts are overhead-dominated",
            );
        }
        if let Some(d) = &e.draft {
            let mut v = match (d.rate_min, d.rate_max, d.rate_pooled) {
                (Some(a), Some(b), Some(p)) => {
                    format!("acceptance {a:.2}-{b:.2} (pooled {p:.2})")
                }
                _ => String::new(),
            };
            if let Some(m) = &d.mean_len {
                if !v.is_empty() {
                    v += " · ";
                }
                v += &format!(
                    "mean len median {:.2} ({:.2}-{:.2}, n={})",
                    m.median, m.min, m.max, m.n
                );
            }
            row(
                "draft",
                v,
                d.n.to_string(),
                "content-dependent: read the range",
            );
        }
        if let Some(g) = &e.graphs_reused {
            row(
                "graphs reused",
                format!(
                    "{} of {} requests > 0 (median {:.0})",
                    g.nonzero, g.n, g.median
                ),
                g.n.to_string(),
                "> 0: compute graphs were reused",
            );
        }
        let pc = &e.prefix_cache;
        row(
            "prefix cache",
            format!(
                "{} LCP / {} LRU slot selections · {} requests reused {} cached tokens",
                pc.lcp_selections,
                pc.lru_selections,
                pc.requests_with_cached_tokens,
                pc.cached_tokens
            ),
            pc.cached_tokens_known.to_string(),
            "LCP selection and cached tokens prove reuse",
        );
        let tt = &e.totals;
        row(
            "totals",
            format!(
                "prompt {} tok in {:.3} s · generated {} tok in {:.3} s",
                tt.prompt_tokens,
                tt.prompt_ms / 1000.0,
                tt.gen_tokens,
                tt.gen_ms / 1000.0
            ),
            tt.requests.to_string(),
            "engine's own times, summed",
        );
        out += &format!("{t}\n");
        if list_requests && !i.instance.requests.is_empty() {
            out += &format!(
                "{}\n  * cached tokens derived from the release line (n_tokens + 1 - prompt - generated)\n",
                request_table(i)
            );
        }
        for w in &i.warnings {
            out += &format!("warning: {w}\n");
        }
        out += "\n";
    }
    for w in &report.warnings {
        out += &format!("warning: {w}\n");
    }
    out += &format!(
        "{} lines read: {} unparsed (skipped), {} blank, {} over 1 MiB\n",
        report.lines, report.unparsed_lines, report.blank_lines, report.overlong_lines
    );
    out
}

/// `engine 000`, `2 engines aggregated`, or `one engine` (lines without an engine prefix).
fn vllm_engine(v: &VllmStats) -> String {
    match (v.engine, v.aggregated_engines) {
        (Some(e), _) => format!("engine {e:03}"),
        (None, Some(n)) => format!("{n} engines aggregated"),
        (None, None) => "one engine".into(),
    }
}

/// A figure vLLM printed with one decimal (`%.1f`), or a median between two of them: no more
/// digits than that.
fn tenths(x: f64) -> String {
    if !x.is_finite() {
        "-".into()
    } else if ((x * 10.0).round() - x * 10.0).abs() < 1e-6 {
        format!("{x:.1}")
    } else {
        format!("{x:.2}")
    }
}

/// A request count (`%d`), or a median between two of them.
fn count(x: f64) -> String {
    if x.fract() == 0.0 {
        format!("{x:.0}")
    } else {
        format!("{x:.1}")
    }
}

/// `median M · peak P` of a per-interval figure.
fn med_peak(d: &Dist, unit: &str) -> String {
    if unit == "%" {
        return format!(
            "median {} · peak {}",
            percent(d.median / 100.0),
            percent(d.max / 100.0)
        );
    }
    format!(
        "median {}{unit} · peak {}{unit}",
        tenths(d.median),
        tenths(d.max)
    )
}

/// The same for request counts.
fn med_peak_count(d: &Dist) -> String {
    format!("median {} · peak {}", count(d.median), count(d.max))
}

/// vLLM's stats lines of one engine: one row per figure, n = the intervals behind it.
fn vllm_table(v: &VllmStats) -> String {
    let mut head = format!(
        "  vLLM stats, {}: {} lines (lines {}-{})",
        vllm_engine(v),
        v.lines,
        v.first_line,
        v.last_line
    );
    if let (Some(i), Some(span)) = (v.interval_s, v.span_s) {
        head += &format!(", every {} s over {span} s", count(i));
    }
    let mut t = crate::table(["figure", "value", "n", "how"]);
    let mut row = |fig: &str, val: String, n: usize, how: &str| {
        t.add_row(vec![
            Cell::new(fig),
            Cell::new(val),
            Cell::new(n).set_alignment(CellAlignment::Right),
            Cell::new(how),
        ]);
    };
    row(
        "generation",
        med_peak(&v.gen_tps, " t/s"),
        v.gen_tps.n,
        "Avg generation throughput per interval",
    );
    row(
        "prompt",
        med_peak(&v.prompt_tps, " t/s"),
        v.prompt_tps.n,
        "Avg prompt throughput per interval (computed tokens, cache hits excluded)",
    );
    let mut idle = format!(
        "{} of {} intervals ({})",
        v.idle_intervals,
        v.lines,
        percent(v.idle_share)
    );
    if let Some(s) = v.silent_s.filter(|&s| s > 0.0) {
        idle += &format!(" · {} s without a stats line", count(s));
    }
    row(
        "idle",
        idle,
        v.lines,
        "both throughputs 0.0; vLLM logs repeated idle intervals at debug only",
    );
    if let Some(d) = &v.running {
        row("running", med_peak_count(d), d.n, "requests scheduled");
    }
    if let Some(d) = &v.waiting {
        row(
            "waiting",
            med_peak_count(d),
            d.n,
            "requests queued (V0: Pending)",
        );
    }
    if let Some(d) = &v.swapped {
        row(
            "swapped",
            med_peak_count(d),
            d.n,
            "requests swapped to CPU (V0)",
        );
    }
    if let Some(p) = v.preemptions {
        row(
            "preemptions",
            p.to_string(),
            v.lines,
            "summed over the intervals that printed them",
        );
    }
    if let Some(d) = &v.kv_usage_pct {
        row(
            &format!("KV cache ({})", v.kv_device.as_deref().unwrap_or("?")),
            med_peak(d, "%"),
            d.n,
            "KV cache usage of the pool",
        );
    }
    if let Some(d) = &v.swap_usage_pct {
        row(
            "swap space",
            med_peak(d, "%"),
            d.n,
            "V0's CPU KV cache usage",
        );
    }
    if let (Some(d), Some(last)) = (&v.prefix_cache_hit_pct, v.prefix_cache_hit_pct_last) {
        row(
            "prefix cache hit rate",
            format!(
                "last {} · range {}–{}",
                percent(last / 100.0),
                percent(d.min / 100.0),
                percent(d.max / 100.0)
            ),
            d.n,
            "over vLLM's most recent requests",
        );
    }
    format!("{head}\n{t}\n")
}

fn request_table(i: &InstanceReport) -> Table {
    fn opt<T: ToString>(v: Option<T>) -> String {
        v.map_or("-".to_string(), |v| v.to_string())
    }
    let optf = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.2}"));
    let mut t = crate::table([
        "line",
        "slot",
        "task",
        "prompt tok",
        "prompt ms",
        "prompt t/s",
        "gen tok",
        "gen ms",
        "gen t/s",
        "cached",
        "graphs",
        "slot by",
        "notes",
    ]);
    for r in &i.instance.requests {
        let mut notes = Vec::new();
        if r.cancelled {
            notes.push("cancelled".to_string());
        }
        if r.truncated == Some(true) {
            notes.push("truncated".into());
        }
        if let Some(d) = &r.draft {
            if let Some(rate) = d.rate {
                notes.push(format!("draft {rate:.2}"));
            }
            if let Some(m) = d.mean_len {
                notes.push(format!("mean len {m:.2}"));
            }
        }
        if !r.timed() {
            notes.push("no timings".into());
        }
        let cached = match (r.cached_tokens, r.cached_from()) {
            (Some(c), Some(telemetry::CachedFrom::Derived)) => format!("{c}*"),
            (c, _) => opt(c),
        };
        t.add_row(vec![
            r.line.to_string(),
            r.slot.map_or("-".into(), |s| s.to_string()),
            opt(r.task),
            opt(r.prompt_tokens),
            optf(r.prompt_ms),
            optf(r.prompt_tps),
            opt(r.gen_tokens),
            optf(r.gen_ms),
            optf(r.gen_tps),
            cached,
            opt(r.graphs_reused),
            r.selected_by
                .map_or("-".into(), |s| format!("{s:?}").to_uppercase()),
            notes.join(", "),
        ]);
    }
    t
}
