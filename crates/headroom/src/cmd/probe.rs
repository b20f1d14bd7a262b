//! `headroom probe depth|prefix|turns`: ask a live OpenAI-compatible server what its counters
//! cannot answer (spec 000 §1, §8). The measuring lives in the loadgen crate; this file parses
//! arguments, draws progress on stderr, and renders the table, chart, JSON and CSV.

use std::time::Duration;

use crate::cmd::progress::Bar;
use anyhow::{Context, Result};
use comfy_table::{Cell, CellAlignment, Table};
use loadgen::probe::depth::Phase;
use loadgen::probe::{
    self, DepthConfig, DepthReport, DepthVerdict, Med, PrefixConfig, PrefixReport, ProbeDoc,
    ProbeReport, Progress, TurnsConfig, TurnsReport,
};
use loadgen::{discover, Client, ClientConfig, ServerInfo};
use std::path::PathBuf;

const EXAMPLES: &str = "Examples:
  headroom probe depth  --url http://127.0.0.1:8000 --depths 512,2k,8k,16k --gen 128 --repeats 3
  headroom probe prefix --url http://127.0.0.1:8080 --tokens 4k
  headroom probe turns  --url http://127.0.0.1:8000 --turns 8 --conversations 4 --context 2k
  headroom probe depth  --url http://gpu-box:8000 --model Qwen/Qwen3-8B --json > depth.json
  headroom probe turns  --url http://router:9000 --csv > turns.csv
  headroom probe depth  --url http://127.0.0.1:8000 --html depth.html

Token sizes accept a k suffix (2k = 2048). Progress goes to stderr; --json and --csv go to stdout.";

#[derive(clap::Args)]
#[command(after_help = EXAMPLES)]
pub struct Args {
    #[command(subcommand)]
    probe: Which,
}

#[derive(clap::Subcommand)]
enum Which {
    /// Is decode context-bound? Sweep decode rate across prompt depth and fit a line.
    #[command(after_help = "Examples:
  headroom probe depth --url http://127.0.0.1:8000 --depths 512,2k,8k,16k
  headroom probe depth --url http://127.0.0.1:8080 --depths 64,512,1k,2k --gen 32 --repeats 2 --json
  headroom probe depth --url http://127.0.0.1:8080 --max-repeats 20 --max-time 15m

Each round sends every depth a salted prompt cold, then the same prompt warm. Prompt lengths are
exact where the server tokenizes (llama.cpp and vLLM /tokenize), otherwise estimated (the output
says which). Decode tok/s is the engine's own (llama-server's timings) where every response
carries it, else the streamed token arrival times after the first token; the output says which.
After --repeats rounds, and after each round past them, the slope is judged (each look at its
share of 5 %); rounds stop when it decides, at --max-repeats, or at --max-time.
Verdict: flat (context is not the cost: KV/attention tuning is ruled out), context-bound (the
drop per 10k tokens is reported), or inconclusive (the interval is too wide; the fall it could
have detected is said).
Depths beyond the server's context are refused before anything is sent.")]
    Depth(DepthArgs),
    /// Is the prefix cache hit? One prompt twice to an idle server, plus a salted control.
    #[command(after_help = "Examples:
  headroom probe prefix --url http://127.0.0.1:8080
  headroom probe prefix --url http://127.0.0.1:8000 --tokens 8k --repeats 3 --json

Refuses a busy server (running or waiting requests on /metrics, or busy llama.cpp /slots)
unless --force: a busy server's TTFT says nothing about its cache. The verdict reads the engine's
own cached-token count (llama.cpp timings.cache_n, usage.prompt_tokens_details.cached_tokens)
where reported, else warm against cold TTFT.")]
    Prefix(PrefixArgs),
    /// Do agent-loop turns keep their cache? Sequential-turn conversations in parallel.
    #[command(after_help = "Examples:
  headroom probe turns --url http://127.0.0.1:8000 --turns 8 --conversations 4 --context 2k
  headroom probe turns --url http://router:9000 --turns 6 --conversations 8 --csv

Each turn re-sends the whole history plus a short new message, as an agent loop does. Warm turns
(2..) should reach their first token much sooner than first turns despite longer contexts; when
they do not, cached prefixes are being lost (eviction, or a router spreading a conversation).")]
    Turns(TurnsArgs),
}

#[derive(clap::Args)]
struct Common {
    /// The server's base URL (OpenAI-compatible; a trailing /v1 is fine).
    #[arg(long)]
    url: String,
    /// Model name to send (default: the first model the server lists).
    #[arg(long)]
    model: Option<String>,
    /// Bearer token for servers that need one (default: the HEADROOM_API_KEY variable).
    #[arg(long)]
    api_key: Option<String>,
    /// Seconds to wait for a request's first token (queueing and prefill of long prompts).
    #[arg(long, default_value_t = 600, value_name = "S")]
    timeout: u64,
    /// Seconds of silence allowed between streamed tokens.
    #[arg(long, default_value_t = 60, value_name = "S")]
    idle_timeout: u64,
    /// Print the report as JSON (schema headroom.probe/1, see docs/json/probe.md).
    #[arg(long, conflicts_with = "csv")]
    json: bool,
    /// Print every sample as CSV.
    #[arg(long)]
    csv: bool,
    /// Also write a self-contained HTML page (`-` for stdout): depth plots tok/s against depth
    /// with the fit and its interval; prefix and turns plot cold against warm.
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    /// No progress on stderr.
    #[arg(long, short)]
    quiet: bool,
}

#[derive(clap::Args)]
struct DepthArgs {
    #[command(flatten)]
    common: Common,
    /// Prompt depths in tokens, comma-separated (k = 1024).
    #[arg(long, default_value = "512,2k,8k,16k", value_parser = parse_token_list)]
    depths: TokenList,
    /// Tokens generated per request.
    #[arg(long, default_value_t = 128)]
    gen: u32,
    /// Rounds (every depth cold then warm) before the first look at the slope.
    #[arg(long, default_value_t = 3)]
    repeats: u32,
    /// The most rounds: one more at a time until the slope's interval decides.
    #[arg(long, default_value_t = 12)]
    max_repeats: u32,
    /// No round starts after this long (90, 2s, 5m).
    #[arg(long, value_parser = crate::args::parse_duration, default_value = "10m")]
    max_time: Duration,
}

#[derive(clap::Args)]
struct PrefixArgs {
    #[command(flatten)]
    common: Common,
    /// Prompt length in tokens (k = 1024).
    #[arg(long, default_value = "2k", value_parser = parse_tokens)]
    tokens: u64,
    /// Tokens generated per request.
    #[arg(long, default_value_t = 16)]
    gen: u32,
    /// Cold/warm/salted triples.
    #[arg(long, default_value_t = 1)]
    repeats: u32,
    /// Run even on a busy server, or one whose load cannot be read.
    #[arg(long)]
    force: bool,
}

#[derive(clap::Args)]
struct TurnsArgs {
    #[command(flatten)]
    common: Common,
    /// Turns per conversation (the first is cold; the rest should be warm).
    #[arg(long, default_value_t = 8)]
    turns: u32,
    /// Conversations run in parallel (also the in-flight request limit).
    #[arg(long, default_value_t = 4)]
    conversations: u32,
    /// Tokens of text in each conversation's first message (k = 1024).
    #[arg(long, default_value = "2k", value_parser = parse_tokens)]
    context: u64,
    /// Tokens generated per turn.
    #[arg(long, default_value_t = 64)]
    gen: u32,
}

#[derive(Clone)]
struct TokenList(Vec<u64>);

fn parse_tokens(s: &str) -> std::result::Result<u64, String> {
    let t = s.trim();
    let (num, mult) = match t.strip_suffix(['k', 'K']) {
        Some(n) => (n, 1024.0),
        None => (t, 1.0),
    };
    let v: f64 = num
        .parse()
        .map_err(|_| format!("{s:?} is not a token count (examples: 512, 2k, 16k)"))?;
    let n = (v * mult).round();
    if !(1.0..=16_777_216.0).contains(&n) {
        return Err(format!("{s:?} is outside 1..=16M tokens"));
    }
    Ok(n as u64)
}

fn parse_token_list(s: &str) -> std::result::Result<TokenList, String> {
    let v = s
        .split(',')
        .filter(|p| !p.trim().is_empty())
        .map(parse_tokens)
        .collect::<std::result::Result<Vec<_>, _>>()?;
    if v.is_empty() {
        return Err("no depths given".into());
    }
    Ok(TokenList(v))
}

pub fn run(args: Args) -> Result<crate::output::Exit> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    rt.block_on(async {
        match args.probe {
            Which::Depth(a) => depth(a).await,
            Which::Prefix(a) => prefix(a).await,
            Which::Turns(a) => turns(a).await,
        }
    })?;
    Ok(crate::output::Exit::Ok)
}

struct Setup {
    client: Client,
    info: ServerInfo,
    bar: Bar,
}

async fn setup(c: &Common, max_in_flight: usize) -> Result<Setup> {
    let client = Client::new(
        &c.url,
        ClientConfig {
            first_token_timeout: Duration::from_secs(c.timeout),
            idle_timeout: Duration::from_secs(c.idle_timeout),
            max_in_flight,
            api_key: c
                .api_key
                .clone()
                .or_else(|| std::env::var("HEADROOM_API_KEY").ok()),
            ..ClientConfig::default()
        },
    )?;
    let bar = Bar::new(c.quiet, "probe ", "requests");
    bar.note(&format!("asking {} what it serves", client.base_url()));
    let mut info = discover(&client).await?;
    if let Some(m) = &c.model {
        info.model = Some(m.clone());
    }
    Ok(Setup { client, info, bar })
}

async fn depth(a: DepthArgs) -> Result<()> {
    let s = setup(&a.common, 1).await?;
    let cfg = DepthConfig {
        depths: a.depths.0,
        gen: a.gen,
        repeats: a.repeats,
        max_repeats: a.max_repeats,
        max_time: Some(a.max_time),
        model: a.common.model.clone(),
        ..DepthConfig::default()
    };
    if s.info.context.is_none() {
        s.bar.note(
            "the server does not report its context length: depths cannot be checked in advance",
        );
    }
    let r = probe::run_depth(&s.client, &s.info, &cfg, &s.bar)
        .await
        .context("depth probe")?;
    s.bar.finish();
    emit(&a.common, r, ProbeReport::Depth, depth_csv, depth_human)
}

async fn prefix(a: PrefixArgs) -> Result<()> {
    let s = setup(&a.common, 1).await?;
    let cfg = PrefixConfig {
        tokens: a.tokens,
        gen: a.gen,
        repeats: a.repeats,
        force: a.force,
        model: a.common.model.clone(),
        ..PrefixConfig::default()
    };
    let r = probe::run_prefix(&s.client, &s.info, &cfg, &s.bar)
        .await
        .context("prefix probe")?;
    s.bar.finish();
    emit(&a.common, r, ProbeReport::Prefix, prefix_csv, prefix_human)
}

async fn turns(a: TurnsArgs) -> Result<()> {
    let s = setup(&a.common, a.conversations.max(1) as usize).await?;
    let cfg = TurnsConfig {
        turns: a.turns,
        conversations: a.conversations,
        context: a.context,
        gen: a.gen,
        model: a.common.model.clone(),
    };
    let r = probe::run_turns(&s.client, &s.info, &cfg, &s.bar)
        .await
        .context("turns probe")?;
    s.bar.finish();
    emit(&a.common, r, ProbeReport::Turns, turns_csv, turns_human)
}

/// The typed document (`headroom.probe/1`) goes to --json and to the page; the table or CSV is
/// rendered from the report before it is wrapped.
fn emit<T>(
    c: &Common,
    r: T,
    wrap: fn(T) -> ProbeReport,
    csv: fn(&T) -> String,
    human: fn(&T) -> String,
) -> Result<()> {
    let text = if c.json {
        None
    } else if c.csv {
        Some(csv(&r))
    } else {
        Some(human(&r))
    };
    let doc = ProbeDoc::new(wrap(r));
    if let Some(path) = &c.html {
        super::report::write_page(path, &::report::probe(&doc))?;
    }
    match text {
        None => crate::output::json(&doc),
        Some(t) => crate::output::emit(&t),
    }
}

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
    crate::output::table(header.iter().map(Cell::new))
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

fn depth_csv(r: &DepthReport) -> String {
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

fn depth_human(r: &DepthReport) -> String {
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
        "\nfit: decode tok/s = {:.2} {} {:.3} per 1k tokens of depth ({}% interval on the slope \
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
                "cold vs warm at depth {}: warm TTFT is {:.1}% of cold ({:.0} vs {:.0} ms){cached}\n",
                deep.depth,
                100.0 * w / c,
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
                "cold vs warm decode rate: median gap {:.1}% over {} depth(s)\n",
                g * 100.0,
                gaps.len()
            ));
        }
    }
    o
}

// ---------- prefix ----------

fn prefix_csv(r: &PrefixReport) -> String {
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

fn prefix_human(r: &PrefixReport) -> String {
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

fn turns_csv(r: &TurnsReport) -> String {
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

fn turns_human(r: &TurnsReport) -> String {
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
    fn token_sizes() {
        assert_eq!(parse_tokens("512"), Ok(512));
        assert_eq!(parse_tokens("2k"), Ok(2048));
        assert_eq!(parse_tokens("16K"), Ok(16384));
        assert_eq!(parse_tokens("1.5k"), Ok(1536));
        assert!(parse_tokens("0").is_err());
        assert!(parse_tokens("lots").unwrap_err().contains("lots"));
        assert_eq!(
            parse_token_list("64, 512,1k").unwrap().0,
            vec![64, 512, 1024]
        );
        assert!(parse_token_list(",").is_err());
    }

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
}
