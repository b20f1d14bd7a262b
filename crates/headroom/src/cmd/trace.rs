//! `headroom trace FILE`: where device time goes, from a PyTorch-profiler (Kineto) trace
//! (spec 000 §3).

use std::fmt::Write as _;
use std::io::Read;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use comfy_table::{presets::UTF8_FULL_CONDENSED, Cell, CellAlignment, Table};
use serde::Serialize;
use trace::input::{self, Encoding};
use trace::{
    analyze, scan_steps, symbol::demangle, verdict, DeviceCat, Options, Report, StepRange,
    StopKind, TraceError, Verdict, WallSource, PLAN_THRESHOLD,
};

pub const SCHEMA: &str = "headroom.trace/1";

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum By {
    /// Full name as in the trace: template arguments are the tuning signal.
    Name,
    /// Demangled, template and argument lists removed: one row per kernel family.
    Symbol,
    /// Per (device, stream).
    Stream,
    /// Per device, with its busy time and span.
    Device,
}

impl By {
    fn as_str(self) -> &'static str {
        match self {
            By::Name => "name",
            By::Symbol => "symbol",
            By::Stream => "stream",
            By::Device => "device",
        }
    }
}

#[derive(clap::Args)]
#[command(
    after_help = "Ranks device events (ph \"X\", cat kernel / gpu_memcpy / gpu_memset) by \
summed duration. Streams the file once with flat memory (plain or gzipped JSON, recognised by its \
bytes), so run it on the server where the trace landed. gpu_user_annotation spans are never \
counted as device time; busy time is the union of intervals, so overlapping streams count once. \
A truncated trace gives the figures of its complete part and says at which byte it stopped.

--steps A..B keeps device events that start between the start of CPU ProfilerStep#A and the end \
of ProfilerStep#B (both ends included; `5` alone is one step), and compares kernel time with that \
window's wall clock. Without --steps the whole trace is ranked and compared with the device span.

Examples:
  headroom trace run.pt.trace.json.gz
  headroom trace run.pt.trace.json.gz --tokens 2048 --top 30
  headroom trace run.pt.trace.json.gz --by symbol
  headroom trace run.pt.trace.json.gz --steps 3..7 --tokens 640
  headroom trace run.pt.trace.json.gz --json | jq '.kernels[:5]'
  headroom trace run.pt.trace.json.gz --by stream --csv > streams.csv
  ssh gpu-box headroom trace /prof/worker0.pt.trace.json.gz --json > attribution.json

JSON schema: docs/json/trace.md (headroom.trace/1)."
)]
pub struct Args {
    /// The Kineto trace (`*.pt.trace.json` or `.json.gz`); `-` reads standard input.
    pub file: PathBuf,
    /// Tokens generated in the profiled window: adds ms/token per row and the tok/s of the window.
    #[arg(long, value_name = "N")]
    pub tokens: Option<u64>,
    /// Rows to show (default 20 in the table; all rows in --json and --csv unless given).
    #[arg(long, value_name = "N")]
    pub top: Option<usize>,
    /// How to group device time.
    #[arg(long, value_enum, default_value = "name")]
    pub by: By,
    /// ProfilerSteps to window, inclusive: `3..7` (or `3..=7`), or one step `5`.
    #[arg(long, value_name = "A..B", value_parser = parse_steps)]
    pub steps: Option<StepRange>,
    /// Print JSON (schema headroom.trace/1).
    #[arg(long, conflicts_with = "csv")]
    pub json: bool,
    /// Print the --by table as CSV (µs, full names).
    #[arg(long)]
    pub csv: bool,
}

fn parse_steps(s: &str) -> Result<StepRange, String> {
    let num = |x: &str| {
        x.trim()
            .trim_start_matches('#')
            .parse::<u64>()
            .map_err(|_| format!("{x:?} is not a step number (expected A..B, e.g. 3..7)"))
    };
    let (first, last) = if let Some((a, b)) = s.split_once("..=") {
        (num(a)?, num(b)?)
    } else if let Some((a, b)) = s.split_once("..") {
        (num(a)?, num(b)?)
    } else {
        let n = num(s)?;
        (n, n)
    };
    if last < first {
        return Err(format!("{s}: the last step is before the first"));
    }
    Ok(StepRange { first, last })
}

fn open(file: &Path) -> anyhow::Result<(Box<dyn Read + Send>, Encoding)> {
    if file.as_os_str() == "-" {
        return input::decode(std::io::stdin()).context("reading standard input");
    }
    input::open(file).with_context(|| format!("opening {}", file.display()))
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let name = args.file.display().to_string();
    let (src, encoding) = open(&args.file)?;
    let mut opts = Options {
        steps: args.steps,
        known_steps: None,
    };
    let report = match analyze(src, &opts) {
        Err(TraceError::NeedsStepPass) => {
            if args.file.as_os_str() == "-" {
                bail!(
                    "{name}: the trace lists its ProfilerSteps after its device events, so --steps \
                     needs two passes; pass the file path instead of standard input"
                );
            }
            eprintln!("{name}: ProfilerSteps come after device events; reading the trace twice");
            let (src, _) = open(&args.file)?;
            opts.known_steps = Some(scan_steps(src).with_context(|| name.clone())?);
            let (src, _) = open(&args.file)?;
            analyze(src, &opts).with_context(|| name.clone())?
        }
        other => other.with_context(|| name.clone())?,
    };
    if let Some(stop) = &report.stopped {
        eprintln!(
            "warning: {name}: {stop}; the figures cover the {} complete events before it",
            report.events
        );
    }
    let v = verdict(&report, args.tokens);
    if args.json {
        let j = Json::new(&name, encoding, &report, v.as_ref(), &args);
        println!("{}", serde_json::to_string_pretty(&j)?);
    } else if args.csv {
        print!("{}", csv(&report, &args));
    } else {
        print!("{}", human(&name, encoding, &report, v.as_ref(), &args));
    }
    Ok(())
}

fn us(ns: i64) -> f64 {
    ns as f64 / 1e3
}

fn percent(part: i64, whole: i64) -> f64 {
    if whole > 0 {
        part as f64 * 100.0 / whole as f64
    } else {
        0.0
    }
}

// ---------------------------------------------------------------- JSON (headroom.trace/1)

#[derive(Serialize)]
struct Json<'a> {
    schema: &'static str,
    file: &'a str,
    encoding: &'static str,
    json_bytes: u64,
    events: u64,
    complete: bool,
    stopped: Option<StoppedJson>,
    vendor: &'static str,
    vendor_evidence: &'a str,
    by: &'static str,
    window: Option<WindowJson>,
    device_total_us: f64,
    busy_us: f64,
    overlap_us: f64,
    span_us: Option<f64>,
    first_us: Option<f64>,
    last_end_us: Option<f64>,
    busy_fraction: Option<f64>,
    counts: Counts,
    kernels_total: usize,
    kernels: Vec<KernelJson<'a>>,
    symbols: Vec<SymbolJson<'a>>,
    streams: Vec<StreamJson>,
    devices: Vec<DeviceJson<'a>>,
    annotation: AnnotationJson<'a>,
    runtime: RuntimeJson,
    overhead: CountTotal,
    cuda_sync: CountTotal,
    steps: Vec<StepJson>,
    flows: FlowsJson,
    census: Vec<CensusJson<'a>>,
    malformed: MalformedJson,
    verdict: Option<VerdictJson<'a>>,
}

#[derive(Serialize)]
struct StoppedJson {
    kind: &'static str,
    byte_offset: u64,
    event_index: u64,
    reason: String,
}

#[derive(Serialize)]
struct WindowJson {
    first_step: u64,
    last_step: u64,
    start_us: f64,
    end_us: f64,
    duration_us: f64,
    device_events_outside: u64,
}

#[derive(Serialize)]
struct Counts {
    kernel: u64,
    gpu_memcpy: u64,
    gpu_memset: u64,
}

#[derive(Serialize)]
struct KernelJson<'a> {
    name: &'a str,
    symbol: &'a str,
    cat: &'static str,
    total_us: f64,
    count: u64,
    us_per_call: f64,
    min_us: f64,
    max_us: f64,
    percent: f64,
    ms_per_token: Option<f64>,
}

#[derive(Serialize)]
struct SymbolJson<'a> {
    symbol: &'a str,
    cat: &'static str,
    names: u64,
    total_us: f64,
    count: u64,
    us_per_call: f64,
    min_us: f64,
    max_us: f64,
    percent: f64,
    ms_per_token: Option<f64>,
}

#[derive(Serialize)]
struct StreamJson {
    device: i64,
    stream: i64,
    total_us: f64,
    count: u64,
    us_per_call: f64,
    percent: f64,
}

#[derive(Serialize)]
struct DeviceJson<'a> {
    device: i64,
    name: Option<&'a str>,
    total_us: f64,
    count: u64,
    busy_us: f64,
    first_us: f64,
    last_end_us: f64,
    span_us: f64,
    busy_fraction: f64,
    streams: u64,
}

#[derive(Serialize)]
struct AnnotationJson<'a> {
    count: u64,
    total_us: f64,
    inflation: Option<f64>,
    largest: Option<LargestJson<'a>>,
}

#[derive(Serialize)]
struct LargestJson<'a> {
    name: &'a str,
    count: u64,
    total_us: f64,
    naive_percent: f64,
}

#[derive(Serialize)]
struct CountTotal {
    count: u64,
    total_us: f64,
}

#[derive(Serialize)]
struct CallsJson {
    count: u64,
    total_us: f64,
    us_per_call: Option<f64>,
}

#[derive(Serialize)]
struct RuntimeJson {
    launch: CallsJson,
    sync: CallsJson,
    memory: CallsJson,
    other: CallsJson,
    hip_calls: u64,
    cuda_calls: u64,
    cuda_driver_events: u64,
}

#[derive(Serialize)]
struct StepJson {
    number: u64,
    start_us: f64,
    dur_us: f64,
    on_device: bool,
}

#[derive(Serialize)]
struct FlowsJson {
    category: Option<String>,
    count: u64,
}

#[derive(Serialize)]
struct CensusJson<'a> {
    ph: &'a str,
    cat: &'a str,
    count: u64,
}

#[derive(Serialize)]
struct MalformedJson {
    count: u64,
    first_byte_offset: Option<u64>,
    first_reason: Option<&'static str>,
}

#[derive(Serialize)]
struct VerdictJson<'a> {
    wall_us: f64,
    wall_source: &'static str,
    kernel_us: f64,
    devices: u64,
    ratio: f64,
    threshold: f64,
    plan: bool,
    tokens: Option<u64>,
    kernel_ms_per_token: Option<f64>,
    wall_ms_per_token: Option<f64>,
    tokens_per_s: Option<f64>,
    text: &'a str,
}

fn calls(s: &trace::Stats) -> CallsJson {
    CallsJson {
        count: s.count,
        total_us: us(s.total_ns),
        us_per_call: s.mean_ns().map(|m| m / 1e3),
    }
}

fn per_token(ns: i64, tokens: Option<u64>) -> Option<f64> {
    tokens
        .filter(|&t| t > 0)
        .map(|t| ns as f64 / 1e6 / t as f64)
}

impl<'a> Json<'a> {
    fn new(
        file: &'a str,
        encoding: Encoding,
        r: &'a Report,
        v: Option<&'a Verdict>,
        args: &Args,
    ) -> Self {
        let total = r.device_total_ns;
        let top = args.top.unwrap_or(usize::MAX);
        let count_of = |cat: DeviceCat| {
            r.names
                .iter()
                .filter(|n| n.cat == cat)
                .map(|n| n.stats.count)
                .sum()
        };
        let flows = ["ac2g", "async_cpu_to_gpu"]
            .iter()
            .filter_map(|c| {
                let n: u64 = r
                    .census
                    .iter()
                    .filter(|e| e.cat == *c && (e.ph == "s" || e.ph == "f"))
                    .map(|e| e.count)
                    .sum();
                (n > 0).then(|| (c.to_string(), n))
            })
            .max_by_key(|x| x.1);
        Json {
            schema: SCHEMA,
            file,
            encoding: encoding.as_str(),
            json_bytes: r.bytes,
            events: r.events,
            complete: r.stopped.is_none(),
            stopped: r.stopped.as_ref().map(|s| StoppedJson {
                kind: match s.kind {
                    StopKind::Truncated { .. } => "truncated",
                    StopKind::Invalid { .. } => "invalid",
                    StopKind::TooLarge => "too_large",
                },
                byte_offset: s.offset,
                event_index: s.events,
                reason: s.to_string(),
            }),
            vendor: r.vendor.as_str(),
            vendor_evidence: &r.vendor_evidence,
            by: args.by.as_str(),
            window: r.window.map(|w| WindowJson {
                first_step: w.steps.first,
                last_step: w.steps.last,
                start_us: us(w.start_ns),
                end_us: us(w.end_ns),
                duration_us: us(w.end_ns - w.start_ns),
                device_events_outside: r.outside_window,
            }),
            device_total_us: us(total),
            busy_us: us(r.busy_ns),
            overlap_us: us(total - r.busy_ns),
            span_us: r.span.map(|(a, b)| us(b - a)),
            first_us: r.span.map(|(a, _)| us(a)),
            last_end_us: r.span.map(|(_, b)| us(b)),
            busy_fraction: r.span.and_then(|(a, b)| {
                let cap = (b - a) as f64 * r.devices.len() as f64;
                (cap > 0.0).then(|| r.busy_ns as f64 / cap)
            }),
            counts: Counts {
                kernel: count_of(DeviceCat::Kernel),
                gpu_memcpy: count_of(DeviceCat::Memcpy),
                gpu_memset: count_of(DeviceCat::Memset),
            },
            kernels_total: r.names.len(),
            kernels: r
                .names
                .iter()
                .take(top)
                .map(|n| KernelJson {
                    name: &n.name,
                    symbol: &n.symbol,
                    cat: n.cat.as_str(),
                    total_us: us(n.stats.total_ns),
                    count: n.stats.count,
                    us_per_call: n.stats.mean_ns().unwrap_or(0.0) / 1e3,
                    min_us: us(n.stats.min_ns),
                    max_us: us(n.stats.max_ns),
                    percent: percent(n.stats.total_ns, total),
                    ms_per_token: per_token(n.stats.total_ns, args.tokens),
                })
                .collect(),
            symbols: r
                .symbols
                .iter()
                .take(top)
                .map(|s| SymbolJson {
                    symbol: &s.symbol,
                    cat: s.cat.as_str(),
                    names: s.names,
                    total_us: us(s.stats.total_ns),
                    count: s.stats.count,
                    us_per_call: s.stats.mean_ns().unwrap_or(0.0) / 1e3,
                    min_us: us(s.stats.min_ns),
                    max_us: us(s.stats.max_ns),
                    percent: percent(s.stats.total_ns, total),
                    ms_per_token: per_token(s.stats.total_ns, args.tokens),
                })
                .collect(),
            streams: r
                .streams
                .iter()
                .take(top)
                .map(|s| StreamJson {
                    device: s.device,
                    stream: s.stream,
                    total_us: us(s.stats.total_ns),
                    count: s.stats.count,
                    us_per_call: s.stats.mean_ns().unwrap_or(0.0) / 1e3,
                    percent: percent(s.stats.total_ns, total),
                })
                .collect(),
            devices: r
                .devices
                .iter()
                .map(|d| DeviceJson {
                    device: d.device,
                    name: d.name.as_deref(),
                    total_us: us(d.stats.total_ns),
                    count: d.stats.count,
                    busy_us: us(d.busy_ns),
                    first_us: us(d.first_ns),
                    last_end_us: us(d.last_end_ns),
                    span_us: us(d.last_end_ns - d.first_ns),
                    busy_fraction: if d.last_end_ns > d.first_ns {
                        d.busy_ns as f64 / (d.last_end_ns - d.first_ns) as f64
                    } else {
                        0.0
                    },
                    streams: d.streams,
                })
                .collect(),
            annotation: AnnotationJson {
                count: r.annotations.stats.count,
                total_us: us(r.annotations.stats.total_ns),
                inflation: r.annotation_inflation(),
                largest: r.annotations.by_name.first().map(|(name, s)| LargestJson {
                    name,
                    count: s.count,
                    total_us: us(s.total_ns),
                    naive_percent: percent(s.total_ns, total + r.annotations.stats.total_ns),
                }),
            },
            runtime: RuntimeJson {
                launch: calls(&r.runtime.launch),
                sync: calls(&r.runtime.sync),
                memory: calls(&r.runtime.memory),
                other: calls(&r.runtime.other),
                hip_calls: r.runtime.hip_calls,
                cuda_calls: r.runtime.cuda_calls,
                cuda_driver_events: r.runtime.driver_events,
            },
            overhead: CountTotal {
                count: r.overhead.count,
                total_us: us(r.overhead.total_ns),
            },
            cuda_sync: CountTotal {
                count: r.cuda_sync.count,
                total_us: us(r.cuda_sync.total_ns),
            },
            steps: r
                .steps
                .iter()
                .map(|s| StepJson {
                    number: s.number,
                    start_us: us(s.ts_ns),
                    dur_us: us(s.dur_ns),
                    on_device: s.on_device,
                })
                .collect(),
            flows: FlowsJson {
                count: flows.as_ref().map_or(0, |f| f.1),
                category: flows.map(|f| f.0),
            },
            census: r
                .census
                .iter()
                .map(|e| CensusJson {
                    ph: &e.ph,
                    cat: &e.cat,
                    count: e.count,
                })
                .collect(),
            malformed: MalformedJson {
                count: r.malformed.count,
                first_byte_offset: r.malformed.first.map(|f| f.0),
                first_reason: r.malformed.first.map(|f| f.1),
            },
            verdict: v.map(|v| VerdictJson {
                wall_us: us(v.wall_ns),
                wall_source: match v.wall_source {
                    WallSource::Steps { .. } => "profiler_steps",
                    WallSource::DeviceSpan => "device_span",
                },
                kernel_us: us(v.kernel_ns),
                devices: v.devices,
                ratio: v.ratio,
                threshold: PLAN_THRESHOLD,
                plan: v.plan,
                tokens: v.tokens,
                kernel_ms_per_token: v.kernel_ms_per_token,
                wall_ms_per_token: v.wall_ms_per_token,
                tokens_per_s: v.tokens_per_s,
                text: &v.text,
            }),
        }
    }
}

// ---------------------------------------------------------------- CSV

fn field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn csv(r: &Report, args: &Args) -> String {
    let total = r.device_total_ns;
    let top = args.top.unwrap_or(usize::MAX);
    let tok = |ns: i64| {
        per_token(ns, args.tokens)
            .map(|x| format!(",{x}"))
            .unwrap_or_default()
    };
    let tok_head = if args.tokens.is_some() {
        ",ms_per_token"
    } else {
        ""
    };
    let mut out = String::new();
    match args.by {
        By::Name => {
            let _ = writeln!(
                out,
                "rank,name,symbol,cat,total_us,count,us_per_call,min_us,max_us,percent{tok_head}"
            );
            for (i, n) in r.names.iter().take(top).enumerate() {
                let s = &n.stats;
                let _ = writeln!(
                    out,
                    "{},{},{},{},{},{},{},{},{},{}{}",
                    i + 1,
                    field(&n.name),
                    field(&n.symbol),
                    n.cat.as_str(),
                    us(s.total_ns),
                    s.count,
                    s.mean_ns().unwrap_or(0.0) / 1e3,
                    us(s.min_ns),
                    us(s.max_ns),
                    percent(s.total_ns, total),
                    tok(s.total_ns)
                );
            }
        }
        By::Symbol => {
            let _ = writeln!(
                out,
                "rank,symbol,cat,names,total_us,count,us_per_call,min_us,max_us,percent{tok_head}"
            );
            for (i, n) in r.symbols.iter().take(top).enumerate() {
                let s = &n.stats;
                let _ = writeln!(
                    out,
                    "{},{},{},{},{},{},{},{},{},{}{}",
                    i + 1,
                    field(&n.symbol),
                    n.cat.as_str(),
                    n.names,
                    us(s.total_ns),
                    s.count,
                    s.mean_ns().unwrap_or(0.0) / 1e3,
                    us(s.min_ns),
                    us(s.max_ns),
                    percent(s.total_ns, total),
                    tok(s.total_ns)
                );
            }
        }
        By::Stream => {
            let _ = writeln!(
                out,
                "rank,device,stream,total_us,count,us_per_call,min_us,max_us,percent{tok_head}"
            );
            for (i, n) in r.streams.iter().take(top).enumerate() {
                let s = &n.stats;
                let _ = writeln!(
                    out,
                    "{},{},{},{},{},{},{},{},{}{}",
                    i + 1,
                    n.device,
                    n.stream,
                    us(s.total_ns),
                    s.count,
                    s.mean_ns().unwrap_or(0.0) / 1e3,
                    us(s.min_ns),
                    us(s.max_ns),
                    percent(s.total_ns, total),
                    tok(s.total_ns)
                );
            }
        }
        By::Device => {
            let _ = writeln!(
                out,
                "device,name,total_us,count,busy_us,span_us,busy_fraction,streams,percent"
            );
            for d in r.devices.iter().take(top) {
                let span = d.last_end_ns - d.first_ns;
                let _ = writeln!(
                    out,
                    "{},{},{},{},{},{},{},{},{}",
                    d.device,
                    field(d.name.as_deref().unwrap_or("")),
                    us(d.stats.total_ns),
                    d.stats.count,
                    us(d.busy_ns),
                    us(span),
                    if span > 0 {
                        d.busy_ns as f64 / span as f64
                    } else {
                        0.0
                    },
                    d.streams,
                    percent(d.stats.total_ns, total)
                );
            }
        }
    }
    out
}

// ---------------------------------------------------------------- human

fn thousands(n: u64) -> String {
    let s = n.to_string();
    // The leading group holds 1 to 3 digits; every later group exactly 3.
    let head = match s.len() % 3 {
        0 => 3.min(s.len()),
        r => r,
    };
    let mut out = s[..head].to_string();
    for group in s.as_bytes()[head..].chunks(3) {
        out.push(',');
        out.push_str(std::str::from_utf8(group).expect("ASCII digits"));
    }
    out
}

fn ms(ns: i64) -> String {
    if ns.abs() < 10_000 {
        format!("{:.3} µs", ns as f64 / 1e3)
    } else {
        format!("{:.2} ms", ns as f64 / 1e6)
    }
}

fn ms_cell(ns: i64) -> String {
    format!("{:.3}", ns as f64 / 1e6)
}

fn us_cell(ns: f64) -> String {
    let v = ns / 1e3;
    if v < 10.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.1}")
    }
}

fn pct_cell(p: f64) -> String {
    if p >= 0.1 || p == 0.0 {
        format!("{p:.1}")
    } else {
        format!("{p:.2}")
    }
}

/// The name as a person reads it: demangled if the profiler left it mangled, cut to `max` chars.
fn display_name(name: &str, max: usize) -> String {
    let d = if name.starts_with("_Z") {
        demangle(name)
    } else {
        None
    };
    let s = d.as_deref().unwrap_or(name);
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(max - 1).collect();
        t.push('…');
        t
    }
}

fn right(s: String) -> Cell {
    Cell::new(s).set_alignment(CellAlignment::Right)
}

fn short_cat(c: DeviceCat) -> &'static str {
    match c {
        DeviceCat::Kernel => "kernel",
        DeviceCat::Memcpy => "memcpy",
        DeviceCat::Memset => "memset",
    }
}

fn human(file: &str, enc: Encoding, r: &Report, v: Option<&Verdict>, args: &Args) -> String {
    let mut o = String::new();
    let total = r.device_total_ns;
    let _ = writeln!(
        o,
        "{file}: {}, {:.1} MB of JSON, {} events; {} ({})",
        if enc == Encoding::Gzip {
            "gzip"
        } else {
            "plain JSON"
        },
        r.bytes as f64 / 1e6,
        thousands(r.events),
        match r.vendor {
            trace::Vendor::Cuda => "CUDA",
            trace::Vendor::Rocm => "ROCm",
            trace::Vendor::Unknown => "vendor unknown",
        },
        r.vendor_evidence
    );
    if let Some(stop) = &r.stopped {
        let _ = writeln!(
            o,
            "STOPPED EARLY: {stop}. Everything below covers the {} complete events before it.",
            thousands(r.events)
        );
    }
    for d in &r.devices {
        let _ = writeln!(
            o,
            "device {}: {} — {} events on {} stream{}",
            d.device,
            d.name.as_deref().unwrap_or("(not in deviceProperties)"),
            thousands(d.stats.count),
            d.streams,
            if d.streams == 1 { "" } else { "s" }
        );
    }
    let cpu_steps: Vec<u64> = {
        let mut n: Vec<u64> = r.cpu_steps().map(|s| s.number).collect();
        n.sort_unstable();
        n.dedup();
        n
    };
    match r.window {
        Some(w) => {
            let _ = writeln!(
                o,
                "window: ProfilerStep#{}..#{} (CPU spans, {}); {} device events outside it left out",
                w.steps.first,
                w.steps.last,
                ms(w.end_ns - w.start_ns),
                thousands(r.outside_window)
            );
        }
        None if !cpu_steps.is_empty() => {
            let _ = writeln!(
                o,
                "window: the whole trace (ProfilerSteps {}; --steps {}..{} windows them)",
                cpu_steps
                    .iter()
                    .map(|n| format!("#{n}"))
                    .collect::<Vec<_>>()
                    .join(", "),
                cpu_steps[0],
                cpu_steps[cpu_steps.len() - 1]
            );
        }
        None => {
            let _ = writeln!(o, "window: the whole trace (no ProfilerStep spans)");
        }
    }
    o.push('\n');

    if r.names.is_empty() {
        let _ = writeln!(
            o,
            "No device events (kernel, gpu_memcpy, gpu_memset) in {}.",
            if r.window.is_some() {
                "the window"
            } else {
                "the trace"
            }
        );
    } else {
        let top = args.top.unwrap_or(20);
        let with_tok = args.tokens.is_some();
        let mut t = Table::new();
        t.load_preset(UTF8_FULL_CONDENSED);
        let (rows_total, title) = match args.by {
            By::Name => (r.names.len(), "full name"),
            By::Symbol => (r.symbols.len(), "stripped symbol"),
            By::Stream => (r.streams.len(), "stream"),
            By::Device => (r.devices.len(), "device"),
        };
        let _ = writeln!(
            o,
            "Device time by {title} (top {} of {}; % of the device-time sum)",
            top.min(rows_total),
            rows_total
        );
        let tok_cell = |ns: i64| right(format!("{:.4}", per_token(ns, args.tokens).unwrap_or(0.0)));
        match args.by {
            By::Name | By::Symbol => {
                let mut head = vec!["%", "total ms", "launches", "µs/call", "min µs", "max µs"];
                if with_tok {
                    head.push("ms/token");
                }
                head.push("cat");
                if args.by == By::Symbol {
                    head.push("names");
                }
                head.push(if args.by == By::Name {
                    "name"
                } else {
                    "symbol"
                });
                t.set_header(head);
                let rows: Vec<(&str, DeviceCat, &trace::Stats, Option<u64>)> =
                    if args.by == By::Name {
                        r.names
                            .iter()
                            .map(|n| (n.name.as_str(), n.cat, &n.stats, None))
                            .collect()
                    } else {
                        r.symbols
                            .iter()
                            .map(|s| (s.symbol.as_str(), s.cat, &s.stats, Some(s.names)))
                            .collect()
                    };
                for (name, cat, s, names) in rows.into_iter().take(top) {
                    let mut row = vec![
                        right(pct_cell(percent(s.total_ns, total))),
                        right(ms_cell(s.total_ns)),
                        right(thousands(s.count)),
                        right(us_cell(s.mean_ns().unwrap_or(0.0))),
                        right(us_cell(s.min_ns as f64)),
                        right(us_cell(s.max_ns as f64)),
                    ];
                    if with_tok {
                        row.push(tok_cell(s.total_ns));
                    }
                    row.push(Cell::new(short_cat(cat)));
                    if let Some(n) = names {
                        row.push(right(n.to_string()));
                    }
                    row.push(Cell::new(display_name(name, 72)));
                    t.add_row(row);
                }
            }
            By::Stream => {
                let mut head = vec!["%", "total ms", "events", "µs/call", "device", "stream"];
                if with_tok {
                    head.insert(4, "ms/token");
                }
                t.set_header(head);
                for s in r.streams.iter().take(top) {
                    let mut row = vec![
                        right(pct_cell(percent(s.stats.total_ns, total))),
                        right(ms_cell(s.stats.total_ns)),
                        right(thousands(s.stats.count)),
                        right(us_cell(s.stats.mean_ns().unwrap_or(0.0))),
                    ];
                    if with_tok {
                        row.push(tok_cell(s.stats.total_ns));
                    }
                    row.push(right(s.device.to_string()));
                    row.push(right(s.stream.to_string()));
                    t.add_row(row);
                }
            }
            By::Device => {
                t.set_header(vec![
                    "device", "name", "%", "sum ms", "busy ms", "span ms", "busy %", "events",
                    "streams",
                ]);
                for d in r.devices.iter().take(top) {
                    let span = d.last_end_ns - d.first_ns;
                    t.add_row(vec![
                        right(d.device.to_string()),
                        Cell::new(d.name.as_deref().unwrap_or("")),
                        right(pct_cell(percent(d.stats.total_ns, total))),
                        right(ms_cell(d.stats.total_ns)),
                        right(ms_cell(d.busy_ns)),
                        right(ms_cell(span)),
                        right(pct_cell(percent(d.busy_ns, span))),
                        right(thousands(d.stats.count)),
                        right(d.streams.to_string()),
                    ]);
                }
            }
        }
        let _ = writeln!(o, "{t}");
    }
    o.push('\n');

    // Totals and traps.
    let count = |c: DeviceCat| -> u64 {
        r.names
            .iter()
            .filter(|n| n.cat == c)
            .map(|n| n.stats.count)
            .sum()
    };
    let _ = writeln!(
        o,
        "device time (sum)    {} over {} events (kernel {}, memcpy {}, memset {})",
        ms(total),
        thousands(count(DeviceCat::Kernel) + count(DeviceCat::Memcpy) + count(DeviceCat::Memset)),
        thousands(count(DeviceCat::Kernel)),
        thousands(count(DeviceCat::Memcpy)),
        thousands(count(DeviceCat::Memset))
    );
    if r.busy_ns != total {
        let _ = writeln!(
            o,
            "busy (union)         {}: overlapping intervals counted once; the sum exceeds it by {} ({:.1}%)",
            ms(r.busy_ns),
            ms(total - r.busy_ns),
            percent(total - r.busy_ns, r.busy_ns)
        );
    } else {
        let _ = writeln!(
            o,
            "busy (union)         {} (no overlap: sum = union)",
            ms(r.busy_ns)
        );
    }
    if let Some((a, b)) = r.span {
        let cap = (b - a) * r.devices.len() as i64;
        let _ = writeln!(
            o,
            "span                 {} first to last device event; busy {:.1}% of it{}",
            ms(b - a),
            percent(r.busy_ns, cap),
            if r.devices.len() > 1 {
                " (per device)"
            } else {
                ""
            }
        );
    }
    let a = &r.annotations;
    if a.stats.count > 0 {
        let _ = writeln!(
            o,
            "gpu_user_annotation  {} spans, {}: NOT device time (they wrap kernels). A naive sum with \
             them would report {:.2}× the device time.",
            thousands(a.stats.count),
            ms(a.stats.total_ns),
            r.annotation_inflation().unwrap_or(f64::NAN)
        );
        if let Some((name, s)) = a.by_name.first() {
            let _ = writeln!(
                o,
                "                     The largest, {:?}, would have ranked at {:.1}%.",
                display_name(name, 60),
                percent(s.total_ns, total + a.stats.total_ns)
            );
        }
    } else {
        let _ = writeln!(o, "gpu_user_annotation  none in the trace");
    }
    let rt = &r.runtime;
    if rt.launch.count + rt.sync.count + rt.memory.count + rt.other.count > 0 {
        let _ = writeln!(
            o,
            "host runtime calls   launch {} calls, {} ({:.1} µs/call); synchronize {} calls, {}; \
             memcpy/memset {} calls, {}; other {} calls, {}",
            thousands(rt.launch.count),
            ms(rt.launch.total_ns),
            rt.launch.mean_ns().unwrap_or(0.0) / 1e3,
            thousands(rt.sync.count),
            ms(rt.sync.total_ns),
            thousands(rt.memory.count),
            ms(rt.memory.total_ns),
            thousands(rt.other.count),
            ms(rt.other.total_ns)
        );
    }
    if r.overhead.count > 0 || r.cuda_sync.count > 0 {
        let _ = writeln!(
            o,
            "not counted          {} profiler overhead events ({}), {} cuda_sync events ({})",
            r.overhead.count,
            ms(r.overhead.total_ns),
            r.cuda_sync.count,
            ms(r.cuda_sync.total_ns)
        );
    }
    if r.malformed.count > 0 {
        let (off, why) = r.malformed.first.unwrap_or((0, ""));
        let _ = writeln!(
            o,
            "skipped              {} malformed events (first at byte {off}: {why})",
            r.malformed.count
        );
    }
    o.push('\n');
    match v {
        Some(v) => {
            let _ = writeln!(o, "Verdict: {}", v.text);
        }
        None => {
            let _ = writeln!(
                o,
                "Verdict: no device time in the window to compare with step time."
            );
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn step_ranges() {
        assert_eq!(parse_steps("3..7"), Ok(StepRange { first: 3, last: 7 }));
        assert_eq!(parse_steps("3..=7"), Ok(StepRange { first: 3, last: 7 }));
        assert_eq!(parse_steps("#5"), Ok(StepRange { first: 5, last: 5 }));
        assert!(parse_steps("7..3").is_err());
        assert!(parse_steps("a..b").is_err());
        assert!(parse_steps("").is_err());
    }

    #[test]
    fn csv_fields_are_quoted() {
        assert_eq!(field("a"), "a");
        assert_eq!(field("f<int, 2>(x)"), "\"f<int, 2>(x)\"");
        assert_eq!(field("a\"b"), "\"a\"\"b\"");
    }

    #[test]
    fn counts_are_grouped() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(708500), "708,500");
        assert_eq!(thousands(1234567), "1,234,567");
    }
}
