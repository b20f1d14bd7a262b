//! `headroom trace FILE`: where device time goes, from a PyTorch-profiler (Kineto) trace
//!.

use std::io::Read;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use render::trace::{Attribution, View};
use trace::doc::{DocOptions, Grouping, TraceDoc};
use trace::input::{self, Encoding};
use trace::{analyze, scan_steps, verdict, Options, StepRange, TraceError};

use crate::output::{self, Exit, Format};

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
    /// Tokens generated in the profiled window: adds ms/token per row and the tok/s of the window
    /// (4096, 4k).
    #[arg(long, value_name = "N", value_parser = crate::args::parse_tokens)]
    pub tokens: Option<u64>,
    /// Rows to show (default 20 in the table; all rows in --json and --csv unless given).
    #[arg(long, value_name = "N")]
    pub top: Option<usize>,
    /// How to group device time.
    #[arg(long, value_enum, default_value = "name")]
    pub by: By,
    /// ProfilerSteps to window, inclusive: `3..7` (or `3..=7`), or one step `5`.
    #[arg(long, value_name = "A..B")]
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
        super::common::write_page(p, &::report::trace(&all))?;
    }
    let attribution = Attribution {
        name,
        encoding,
        report,
        verdict,
        doc,
        view: View {
            by: args.by.grouping(),
            top: args.top,
            tokens: args.tokens,
        },
    };
    output::render(&attribution, Format::from_flags(args.json, args.csv))?;
    Ok(Exit::Ok)
}
