//! `headroom trace FILE`: where device time goes, from a PyTorch-profiler (Kineto) trace
//! (spec 000 §3).

use std::fmt::Write as _;
use std::io::Read;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use comfy_table::{Cell, CellAlignment};
use trace::doc::{per_token, percent, us, DocOptions, Grouping, TraceDoc};
use trace::input::{self, Encoding};
use trace::{
    analyze, scan_steps, symbol::demangle, verdict, DeviceCat, Options, Report, StepRange,
    TraceError, Verdict,
};

use crate::output::{self, csv_field as field, Exit, Format, Render};

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
    fn grouping(self) -> Grouping {
        match self {
            By::Name => Grouping::Name,
            By::Symbol => Grouping::Symbol,
            By::Stream => Grouping::Stream,
            By::Device => Grouping::Device,
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
  headroom trace run.pt.trace.json.gz --html trace.html
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
    /// Also write a self-contained HTML page: the top kernels, kernel families and categories
    /// by device time as bars with their tables, and the annotation trap (built from every row,
    /// whatever --top says).
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
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

pub fn run(args: Args) -> anyhow::Result<Exit> {
    let name = args.file.display().to_string();
    // Errors and warnings name the input; `-` is named for what it is (the document keeps `-`).
    let shown = if name == "-" {
        "standard input".to_string()
    } else {
        name.clone()
    };
    let (src, encoding) = open(&args.file)?;
    let mut opts = Options {
        steps: args.steps,
        known_steps: None,
    };
    let report = match analyze(src, &opts) {
        Err(TraceError::NeedsStepPass) => {
            if args.file.as_os_str() == "-" {
                bail!(
                    "{shown}: the trace lists its ProfilerSteps after its device events, so --steps \
                     needs two passes; pass the file path instead of standard input"
                );
            }
            eprintln!("{shown}: ProfilerSteps come after device events; reading the trace twice");
            let (src, _) = open(&args.file)?;
            opts.known_steps = Some(scan_steps(src).with_context(|| shown.clone())?);
            let (src, _) = open(&args.file)?;
            analyze(src, &opts).with_context(|| shown.clone())?
        }
        other => other.with_context(|| shown.clone())?,
    };
    if let Some(stop) = &report.stopped {
        eprintln!(
            "warning: {shown}: {stop}; the figures cover the {} complete events before it",
            report.events
        );
    }
    let verdict = verdict(&report, args.tokens);
    let doc = TraceDoc::new(
        &name,
        encoding,
        &report,
        verdict.as_ref(),
        DocOptions {
            by: args.by.grouping(),
            top: args.top,
            tokens: args.tokens,
        },
    );
    if let Some(p) = &args.html {
        let all = TraceDoc::new(
            &name,
            encoding,
            &report,
            verdict.as_ref(),
            DocOptions {
                by: args.by.grouping(),
                top: None,
                tokens: args.tokens,
            },
        );
        super::report::write_page(p, &::report::trace(&all))?;
    }
    let attribution = Attribution {
        name,
        encoding,
        report,
        verdict,
        doc,
        args: &args,
    };
    output::render(&attribution, Format::from_flags(args.json, args.csv))?;
    Ok(Exit::Ok)
}

/// One analysed trace in its three forms.
struct Attribution<'a> {
    name: String,
    encoding: Encoding,
    report: Report,
    verdict: Option<Verdict>,
    doc: TraceDoc,
    args: &'a Args,
}

impl Render for Attribution<'_> {
    type Doc = TraceDoc;
    fn doc(&self) -> &TraceDoc {
        &self.doc
    }
    fn human(&self) -> String {
        human(
            &self.name,
            self.encoding,
            &self.report,
            self.verdict.as_ref(),
            self.args,
        )
    }
    fn csv(&self) -> Option<String> {
        Some(csv(&self.report, self.args))
    }
}

// ---------------------------------------------------------------- CSV

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
        let mut t = output::plain_table();
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
    fn counts_are_grouped() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(708500), "708,500");
        assert_eq!(thousands(1234567), "1,234,567");
    }
}
