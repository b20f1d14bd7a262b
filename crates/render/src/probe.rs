//! `headroom probe`'s human and CSV forms: depth (TTFT and decode against context depth, with
//! the fitted line drawn over the samples), prefix (cold, warm and salted TTFT as bars) and
//! turns (TTFT per turn of a conversation).

use comfy_table::{Cell, CellAlignment, Table};
use loadgen::probe::depth::Phase;
use loadgen::probe::{self, DepthReport, DepthVerdict, Med, PrefixReport, TurnsReport};
use loadgen::ServerInfo;

// ---------- shared rendering ----------

fn server_line(info: &ServerInfo, url_probe: &str) -> String {
    let ctx = match &info.context {
        Some(c) => format!("context {} tokens per request ({})", c.tokens, c.source),
        None => "context not reported".into(),
    };
    format!(
        "headroom probe {url_probe}: {} serving {} · {ctx}\n",
        info.engine
            .map(loadgen::Engine::name)
            .unwrap_or("unknown engine"),
        info.model.as_deref().unwrap_or("(model not listed)")
    )
}

fn med(m: &Med, digits: usize) -> String {
    med_unit(m, digits, "")
}

fn med_unit(m: &Med, digits: usize, unit: &str) -> String {
    match m.median {
        Some(v) => format!("{v:.digits$}{unit} (n={})", m.n),
        None => format!("- (n={})", m.n),
    }
}

fn opt<T: ToString>(v: Option<T>) -> String {
    v.map(|x| x.to_string()).unwrap_or_default()
}

fn optf(v: Option<f64>, digits: usize) -> String {
    match v {
        Some(x) if x.is_finite() => format!("{x:.digits$}"),
        _ => String::new(),
    }
}

fn table(header: &[&str]) -> Table {
    crate::table(header.iter().map(Cell::new))
}

fn right(t: &mut Table, from: usize) {
    for i in from..t.column_count() {
        if let Some(c) = t.column_mut(i) {
            c.set_cell_alignment(CellAlignment::Right);
        }
    }
}

/// Horizontal bars, one per labelled value, scaled to the largest.
fn bars(rows: &[(String, Option<f64>, String)], width: usize) -> String {
    let max = rows.iter().filter_map(|r| r.1).fold(0.0_f64, f64::max);
    let label_w = rows.iter().map(|r| r.0.len()).max().unwrap_or(0);
    let mut out = String::new();
    for (label, v, note) in rows {
        let n = match v {
            Some(v) if max > 0.0 => ((v / max) * width as f64).round() as usize,
            _ => 0,
        };
        out.push_str(&format!(
            "  {label:>label_w$} │{}{} {note}\n",
            "█".repeat(n),
            " ".repeat(width - n.min(width))
        ));
    }
    out
}

/// A scatter of (x, y) points with an optional fitted line, y from 0 so a flat series looks flat.
fn scatter(
    series: &[(char, Vec<(f64, f64)>)],
    line: Option<(f64, f64)>,
    w: usize,
    h: usize,
    y_unit: &str,
    x_unit: &str,
) -> String {
    let all: Vec<(f64, f64)> = series.iter().flat_map(|s| s.1.iter().copied()).collect();
    if all.is_empty() {
        return String::new();
    }
    let (x0, x1) = all
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| {
            (a.min(p.0), b.max(p.0))
        });
    let y1 = all.iter().map(|p| p.1).fold(0.0_f64, f64::max) * 1.05;
    // NaN-safe: a degenerate range draws nothing.
    if x1.partial_cmp(&x0) != Some(std::cmp::Ordering::Greater)
        || y1.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater)
    {
        return String::new();
    }
    let col = |x: f64| (((x - x0) / (x1 - x0)) * (w - 1) as f64).round() as usize;
    let row = |y: f64| {
        let r = ((y / y1) * (h - 1) as f64).round();
        (h - 1).saturating_sub(r.clamp(0.0, (h - 1) as f64) as usize)
    };
    let mut grid = vec![vec![' '; w]; h];
    if let Some((b, m)) = line {
        for c in 0..w {
            let x = x0 + (x1 - x0) * c as f64 / (w - 1) as f64;
            let y = b + m * x;
            if (0.0..=y1).contains(&y) {
                if let Some(cell) = grid.get_mut(row(y)).and_then(|r| r.get_mut(c)) {
                    *cell = '·';
                }
            }
        }
    }
    for (glyph, pts) in series {
        for &(x, y) in pts {
            grid[row(y)][col(x)] = *glyph;
        }
    }
    let mut out = String::new();
    for (i, r) in grid.iter().enumerate() {
        let label = if i == 0 {
            format!("{y1:>8.1}")
        } else if i == h - 1 {
            format!("{:>8}", 0)
        } else if i == h / 2 {
            format!("{:>8.1}", y1 / 2.0)
        } else {
            " ".repeat(8)
        };
        out.push_str(&format!("  {label} ┤{}\n", r.iter().collect::<String>()));
    }
    out.push_str(&format!("  {} └{}\n", " ".repeat(8), "─".repeat(w)));
    let left = format!("{x0:.0}");
    let right = format!("{x1:.0} {x_unit}");
    out.push_str(&format!(
        "  {}  {left}{}{right}\n",
        " ".repeat(8),
        " ".repeat(w.saturating_sub(left.len() + right.len()))
    ));
    out.push_str(&format!("  {:>8}   ({y_unit})\n", ""));
    out
}

// ---------- depth ----------

pub fn depth_csv(r: &DepthReport) -> String {
    let mut s = String::from(
        "depth,phase,repeat,prompt_tokens,server_prompt_tokens,ttft_ms,decode_tps,gen_tokens,gen_count,cached_tokens\n",
    );
    for x in &r.samples {
        s.push_str(&format!(
            "{},{},{},{},{},{},{},{},{},{}\n",
            x.depth,
            if x.phase == Phase::Cold {
                "cold"
            } else {
                "warm"
            },
            x.repeat,
            x.prompt_tokens,
            opt(x.server_prompt_tokens),
            optf(Some(x.ttft_ms), 3),
            optf(x.decode_tps, 3),
            x.gen_tokens,
            gen_count(x.gen_count),
            opt(x.cached_tokens)
        ));
    }
    s
}

fn gen_count(g: loadgen::GenCountSource) -> &'static str {
    match g {
        loadgen::GenCountSource::Usage => "usage",
        loadgen::GenCountSource::Chunks => "chunks",
    }
}

pub fn depth_human(r: &DepthReport) -> String {
    let mut o = server_line(&r.server, "depth");
    o.push_str(&format!(
        "prompt lengths: {}{}; {} tokens generated per request ({}); {} repeat(s) per depth\n\n",
        r.prompt_count.describe(),
        if r.prompt_count.is_exact() && !r.all_exact {
            " (some prompts missed their target by a token or two; the server's count is used)"
        } else {
            ""
        },
        r.gen,
        r.samples
            .first()
            .map(|s| gen_count(s.gen_count))
            .unwrap_or("-"),
        r.repeats
    ));
    let mut t = table(&[
        "depth",
        "cold TTFT ms",
        "warm TTFT ms",
        "warm cached tokens",
        "cold decode tok/s",
        "warm decode tok/s",
    ]);
    for row in &r.rows {
        t.add_row(vec![
            row.depth.to_string(),
            med(&row.cold_ttft_ms, 0),
            med(&row.warm_ttft_ms, 0),
            med(&row.warm_cached_tokens, 0),
            med(&row.cold_decode_tps, 1),
            med(&row.warm_decode_tps, 1),
        ]);
    }
    right(&mut t, 0);
    o.push_str(&format!("{t}\n\n"));

    let pts = |p: Phase| {
        r.samples
            .iter()
            .filter(|s| s.phase == p)
            .filter_map(|s| s.decode_tps.map(|y| (s.x() as f64, y)))
            .collect::<Vec<_>>()
    };
    o.push_str("  decode rate against depth (● cold, ○ warm, · fit)\n");
    o.push_str(&scatter(
        &[('○', pts(Phase::Warm)), ('●', pts(Phase::Cold))],
        Some((r.fit.intercept_tps, r.fit.slope_tps_per_1k / 1e3)),
        56,
        12,
        "decode tok/s",
        "tokens of depth",
    ));
    let f = &r.fit;
    o.push_str(&format!(
        "\nfit: decode tok/s = {:.2} {} {:.3} per 1k tokens of depth ({} % interval on the slope \
{:.3} … {:.3}; n={}, R² {:.2}; {} clock)\n",
        f.intercept_tps,
        if f.slope_tps_per_1k < 0.0 { "-" } else { "+" },
        f.slope_tps_per_1k.abs(),
        probe::depth::conf_text(f.confidence),
        f.low,
        f.high,
        f.n,
        f.r2,
        match r.decode_clock {
            loadgen::bench_suite::Clock::Engine => "engine (the server's own timings)",
            loadgen::bench_suite::Clock::Client => "client (chunk arrivals)",
        }
    ));
    o.push_str(&format!("rounds: {}\n", r.rounds_text()));
    let verdict = match r.verdict {
        DepthVerdict::Flat => "FLAT",
        DepthVerdict::ContextBound => "CONTEXT-BOUND",
        DepthVerdict::Inconclusive => "INCONCLUSIVE",
    };
    o.push_str(&format!("verdict: {verdict}: {}\n", r.reason));
    if r.verdict == DepthVerdict::ContextBound {
        o.push_str(&format!(
            "drop: {:.1} tok/s per 10k tokens of depth (interval {:.1} … {:.1}; linear fit over the \
probed depths)\n",
            r.drop_per_10k_tps, r.drop_per_10k_low, r.drop_per_10k_high
        ));
    }
    if let Some(deep) = r.rows.last() {
        if let (Some(c), Some(w)) = (deep.cold_ttft_ms.median, deep.warm_ttft_ms.median) {
            let cached = match deep.warm_cached_tokens.median {
                Some(n) => format!("; the engine reported {n:.0} cached tokens on warm runs"),
                None => format!(
                    "; the engine reports no cached-token count ({})",
                    probe::cached_tokens_hint(r.server.engine)
                ),
            };
            o.push_str(&format!(
                "cold vs warm at depth {}: warm TTFT is {} of cold ({:.0} vs {:.0} ms){cached}\n",
                deep.depth,
                numbers::fmt::percent(w / c),
                w,
                c
            ));
        }
        let gaps: Vec<f64> = r
            .rows
            .iter()
            .filter_map(|row| {
                Some(
                    (row.warm_decode_tps.median? - row.cold_decode_tps.median?).abs()
                        / row.cold_decode_tps.median?,
                )
            })
            .collect();
        if let Some(g) = loadgen::stats::median(&gaps) {
            o.push_str(&format!(
                "cold vs warm decode rate: median gap {} over {} depth(s)\n",
                numbers::fmt::percent(g),
                gaps.len()
            ));
        }
    }
    o
}

// ---------- prefix ----------

pub fn prefix_csv(r: &PrefixReport) -> String {
    let mut s = String::from(
        "kind,repeat,prompt_tokens,server_prompt_tokens,ttft_ms,decode_tps,cached_tokens,cached_field\n",
    );
    for x in &r.runs {
        s.push_str(&format!(
            "{},{},{},{},{},{},{},{}\n",
            x.kind.as_str(),
            x.repeat,
            x.prompt_tokens,
            opt(x.server_prompt_tokens),
            optf(Some(x.ttft_ms), 3),
            optf(x.decode_tps, 3),
            opt(x.cached_tokens),
            x.cached_field.as_deref().unwrap_or("")
        ));
    }
    s
}

pub fn prefix_human(r: &PrefixReport) -> String {
    let mut o = server_line(&r.server, "prefix");
    let load = match &r.load_before {
        Some(l) => format!(
            "load before: {} running, {} waiting ({})",
            l.running, l.waiting, l.source
        ),
        None => "load before: not readable".into(),
    };
    o.push_str(&format!(
        "{load}\nprompt length: {}\n\n",
        r.prompt_count.describe()
    ));
    let mut t = table(&[
        "run",
        "#",
        "prompt tokens",
        "TTFT ms",
        "cached tokens",
        "reported by",
    ]);
    for x in &r.runs {
        t.add_row(vec![
            x.kind.as_str().to_string(),
            x.repeat.to_string(),
            opt(x.server_prompt_tokens.or(Some(x.prompt_tokens))),
            optf(Some(x.ttft_ms), 0),
            x.cached_tokens
                .map(|c| c.to_string())
                .unwrap_or_else(|| "-".into()),
            x.cached_field
                .as_deref()
                .unwrap_or("not reported")
                .to_string(),
        ]);
    }
    right(&mut t, 1);
    o.push_str(&format!("{t}\n\n  median TTFT\n"));
    o.push_str(&bars(
        &[
            (
                "cold".into(),
                r.cold_ttft_ms.median,
                med_unit(&r.cold_ttft_ms, 0, " ms"),
            ),
            (
                "warm".into(),
                r.warm_ttft_ms.median,
                med_unit(&r.warm_ttft_ms, 0, " ms"),
            ),
            (
                "salted".into(),
                r.salted_ttft_ms.median,
                med_unit(&r.salted_ttft_ms, 0, " ms"),
            ),
        ],
        40,
    ));
    let v = |c: probe::CacheVerdict| match c {
        probe::CacheVerdict::Hit => "HIT",
        probe::CacheVerdict::Miss => "MISS",
    };
    o.push_str(&format!(
        "\nverdict: cache {} ({}): {}\ncontrol: the salted prompt was a {} (expected: miss)\n",
        v(r.verdict),
        match r.basis {
            probe::prefix::VerdictBasis::EngineCount => "by the engine's cached-token count",
            probe::prefix::VerdictBasis::Ttft => "by TTFT",
        },
        r.reason,
        v(r.control).to_lowercase()
    ));
    for w in &r.warnings {
        o.push_str(&format!("warning: {w}\n"));
    }
    o
}

// ---------- turns ----------

pub fn turns_csv(r: &TurnsReport) -> String {
    let mut s = String::from(
        "conversation,turn,prompt_tokens,ttft_ms,decode_tps,gen_tokens,gen_count,cached_tokens\n",
    );
    for x in &r.records {
        s.push_str(&format!(
            "{},{},{},{},{},{},{},{}\n",
            x.conversation,
            x.turn,
            opt(x.prompt_tokens),
            optf(Some(x.ttft_ms), 3),
            optf(x.decode_tps, 3),
            x.gen_tokens,
            gen_count(x.gen_count),
            opt(x.cached_tokens)
        ));
    }
    s
}

pub fn turns_human(r: &TurnsReport) -> String {
    let mut o = server_line(&r.server, "turns");
    o.push_str(&format!(
        "{} conversation(s) in parallel × {} turns; first message {} tokens, {}; {} tokens \
generated per turn\n\n",
        r.conversations,
        r.turns,
        r.context,
        r.context_count.describe(),
        r.gen
    ));
    let mut t = table(&[
        "turn",
        "context tokens",
        "TTFT ms",
        "cached tokens",
        "decode tok/s",
    ]);
    for row in &r.per_turn {
        t.add_row(vec![
            row.turn.to_string(),
            med(&row.prompt_tokens, 0),
            med(&row.ttft_ms, 0),
            med(&row.cached_tokens, 0),
            med(&row.decode_tps, 1),
        ]);
    }
    right(&mut t, 0);
    o.push_str(&format!("{t}\n\n  median TTFT per turn\n"));
    let rows: Vec<(String, Option<f64>, String)> = r
        .per_turn
        .iter()
        .map(|row| {
            (
                format!("turn {}", row.turn),
                row.ttft_ms.median,
                med_unit(&row.ttft_ms, 0, " ms"),
            )
        })
        .collect();
    o.push_str(&bars(&rows, 40));
    o.push_str(&format!(
        "\nfirst turns: TTFT {}, decode {}\nwarm turns:  TTFT {}, decode {}\n{}\n",
        med_unit(&r.first_ttft_ms, 0, " ms"),
        med_unit(&r.first_decode_tps, 1, " tok/s"),
        med_unit(&r.warm_ttft_ms, 0, " ms"),
        med_unit(&r.warm_decode_tps, 1, " tok/s"),
        r.summary
    ));
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chart_shapes() {
        let s = scatter(
            &[('●', vec![(0.0, 10.0), (100.0, 5.0)])],
            Some((10.0, -0.05)),
            20,
            6,
            "tok/s",
            "tokens",
        );
        let lines: Vec<&str> = s.lines().collect();
        assert_eq!(lines.len(), 6 + 3);
        assert!(lines[0].contains("10.5"));
        assert!(lines[0].contains('●') && lines[3].ends_with('●'), "{s}");
        assert!(s.contains('·'));
        let b = bars(
            &[
                ("a".into(), Some(10.0), "10".into()),
                ("bb".into(), Some(5.0), "5".into()),
            ],
            10,
        );
        assert!(b.contains(&"█".repeat(10)) && b.contains(&format!("{} ", "█".repeat(5))));
        assert!(scatter(&[('x', vec![])], None, 10, 5, "", "").is_empty());
    }

    /// Real `headroom probe … --json` documents (crates/report/tests/fixtures/SOURCES.md):
    /// one CSV row per sample after the header, and the human form carries the verdict.
    #[test]
    fn fixtures_render() {
        let read = |text: &str| -> probe::ProbeReport {
            serde_json::from_str::<probe::ProbeDoc>(text)
                .unwrap()
                .report
        };
        let probe::ProbeReport::Depth(d) =
            read(include_str!("../../report/tests/fixtures/probe-depth.json"))
        else {
            panic!("not a depth document")
        };
        assert_eq!(depth_csv(&d).lines().count(), d.samples.len() + 1);
        let h = depth_human(&d);
        assert!(h.starts_with("headroom probe depth: "), "{h}");
        assert!(
            h.contains("\nverdict: ") && h.contains("decode rate against depth"),
            "{h}"
        );
        let probe::ProbeReport::Prefix(p) = read(include_str!(
            "../../report/tests/fixtures/probe-prefix.json"
        )) else {
            panic!("not a prefix document")
        };
        assert_eq!(prefix_csv(&p).lines().count(), p.runs.len() + 1);
        let h = prefix_human(&p);
        assert!(
            h.contains("\nverdict: cache ") && h.contains("median TTFT"),
            "{h}"
        );
        let probe::ProbeReport::Turns(t) =
            read(include_str!("../../report/tests/fixtures/probe-turns.json"))
        else {
            panic!("not a turns document")
        };
        assert_eq!(turns_csv(&t).lines().count(), t.records.len() + 1);
        let h = turns_human(&t);
        for row in &t.per_turn {
            assert!(h.contains(&format!("turn {} │", row.turn)), "{h}");
        }
    }
}
