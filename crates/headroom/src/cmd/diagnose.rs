//! `headroom diagnose`, `headroom remeasure`: sample a live server's /metrics over a window, set
//! it against its ceiling, and name one primary bottleneck with its evidence and fix. After the
//! fix, the same window shape again, compared with the saved run.

pub(crate) mod gpu;
pub(crate) mod live;

pub use diagnose::{Report, Shape};

use crate::output::{self, Exit};
use anyhow::{bail, Context, Result};
use clap::Args as ClapArgs;
use diagnose::remeasure::{self, Remeasure};
use diagnose::RuleId;
use std::path::PathBuf;

use super::common::{db_path, now, runtime};
use super::names::{catalog, Target};
use std::time::Duration;

pub use crate::args::parse_duration;

#[derive(ClapArgs, Debug, Clone)]
#[command(after_help = "Examples:
  headroom diagnose --url http://localhost:8000 --gpu H100-SXM --model llama-3.1-8b
  headroom diagnose --url http://localhost:8000 --duration 2m --engine-args \"vllm serve meta-llama/Llama-3.1-8B-Instruct --max-num-seqs 64\" --save
  headroom diagnose --url http://127.0.0.1:8080 --duration 30s --record run.jsonl   # llama-server --metrics
  headroom diagnose --replay run.jsonl --gpu RTX-4090 --json
  headroom diagnose --url http://localhost:8000 --duration 5m --fail-on primary   # cron: exit 2 when a rule fires
  headroom diagnose --url http://localhost:8000 --fail-on R2,R4                   # only for these rules
  headroom diagnose --url http://localhost:8000 --model llama-3.1-8b --nvidia-smi  # nvidia-smi runs beside
  headroom diagnose --url http://localhost:8000 --dcgm http://node:9400/metrics     # a node's DCGM exporter
  headroom diagnose --replay run.jsonl --nvidia-smi gpu.csv --model llama-3.1-8b

Without --gpu or --model everything that needs no ceiling still works; the ceiling is 'unknown'
with the reason. When the server runs on this host, its flags are read from the command line of
the process listening on the port. Flags nobody could read stay 'unread'; a rule that needs one
stays silent, and when it would outrank the primary the report names it as unjudged, with the
flag that settles it, instead of crowning a weaker rule.

GPU telemetry (--nvidia-smi, --dcgm) names the GPU for the ceiling when --gpu is absent and
adds the GPU's own findings: throttled (SM clock held below its maximum by a power or thermal
reason while busy; the prefill ceiling is then printed scaled by the measured/max SM clock, so
labelled), host-bound and DRAM activity beside the modelled decode share (DCGM only). GPU
utilization is shown but never read as load: one busy kernel reads 100 %. A capture is
recorded with: nvidia-smi --query-gpu=timestamp,index,name,uuid,utilization.gpu,
utilization.memory,clocks.sm,clocks.max.sm,clocks.mem,power.draw,power.limit,temperature.gpu,
clocks_event_reasons.active --format=csv -lms 1000 -f gpu.csv (docs/gpu-telemetry.md).

Before the window starts, one scrape checks that the URL answers and that its /metrics carries
an LLM engine's series (vLLM, SGLang, llama.cpp, TGI, LMDeploy); a wrong port, or a node exporter, ends
the run there with what was found.

A window where under 80 % of the scrapes answered (the server went down, or answered too late)
is marked INCOMPLETE, with the counts and the time the server stopped answering: what fired is
printed, but it is not a verdict.

Exit codes: 0 ran (whatever it found), 1 error (an unknown or ambiguous --gpu or --model
included, checked before the first scrape), 2 --fail-on matched, 3 the window was
incomplete (under 80 % of its scrapes answered; takes precedence over 2).
The JSON document is described in docs/json/diagnose.md.")]
pub struct Args {
    /// Base URL of the server (its /metrics is scraped).
    #[arg(long, required_unless_present = "replay")]
    pub url: Option<String>,
    /// Window length: 90, 90s, 2m, 1h.
    #[arg(long, default_value = "2m", value_parser = parse_duration)]
    pub duration: Duration,
    /// Time between scrapes.
    #[arg(long, default_value = "1s", value_parser = parse_duration)]
    pub interval: Duration,
    /// Analyse a recorded window (from --record) instead of scraping.
    #[arg(long, conflicts_with = "url")]
    pub replay: Option<PathBuf>,
    /// Write every scrape, with its timestamp, to this JSONL file (replayable).
    #[arg(long)]
    pub record: Option<PathBuf>,
    #[command(flatten)]
    pub target: Target,
    /// The engine's command line, for its flags: "vllm serve MODEL --max-num-seqs 64 ...".
    #[arg(long)]
    pub engine_args: Option<String>,
    /// Read the engine's flags from this process's command line (/proc/PID/cmdline).
    #[arg(long)]
    pub pid: Option<u32>,
    /// Price per GPU-hour in dollars: cost per 1M output tokens at the measured throughput.
    #[arg(long)]
    pub price_per_hour: Option<f64>,
    /// Number of sub-windows for "seen in N% of windows" and the re-measure's spread.
    #[arg(long, default_value_t = 6)]
    pub sub_windows: usize,
    /// Save the run to the history database (for remeasure and history).
    #[arg(long)]
    pub save: bool,
    /// A label stored with the run.
    #[arg(long)]
    pub label: Option<String>,
    /// Exit with code 2 when a primary fires (`primary`), or when one of these rules is the
    /// primary or held (`R2,R4`). Default: exit 0 whatever is found.
    #[arg(long, value_parser = parse_fail_on)]
    pub fail_on: Option<FailOn>,
    #[command(flatten)]
    pub out: Output,
    #[command(flatten)]
    pub gpu_telemetry: gpu::GpuArgs,
}

/// What `--fail-on` fails on.
#[derive(Debug, Clone, PartialEq)]
pub enum FailOn {
    /// Any primary.
    Primary,
    /// These rules, as the primary or held.
    Rules(Vec<RuleId>),
}

fn parse_fail_on(s: &str) -> Result<FailOn, String> {
    if s.trim().eq_ignore_ascii_case("primary") {
        return Ok(FailOn::Primary);
    }
    let rules = s
        .split(',')
        .map(|r| {
            let r = r.trim();
            RuleId::ALL
                .into_iter()
                .find(|id| id.as_str().eq_ignore_ascii_case(r))
                .ok_or_else(|| {
                    format!("'{r}' is not a rule: give `primary` or rules from R1 R2 R2b R3 R4 R5 R6 R7, comma-separated")
                })
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(FailOn::Rules(rules))
}

impl FailOn {
    /// Whether the report holds what the user asked to fail on.
    pub fn found(&self, r: &Report) -> bool {
        match self {
            FailOn::Primary => r.primary.is_some(),
            FailOn::Rules(rules) => r
                .primary
                .iter()
                .chain(&r.held)
                .any(|f| rules.contains(&f.rule)),
        }
    }
}

#[derive(ClapArgs, Debug, Clone, Default)]
pub struct Output {
    /// Print the JSON document instead of the scoreboard.
    #[arg(long)]
    pub json: bool,
    /// Show held, silenced and quiet rules, and where each config value came from.
    #[arg(short, long)]
    pub verbose: bool,
    /// History database (default: $XDG_DATA_HOME/headroom/history.sqlite).
    #[arg(long)]
    pub db: Option<PathBuf>,
    /// No progress bar on stderr.
    #[arg(long)]
    pub quiet: bool,
    /// Also write the run as a self-contained HTML page: timeline, rule scoreboard, fix (see
    /// `headroom report`).
    #[arg(long, value_name = "FILE")]
    pub html: Option<std::path::PathBuf>,
}

#[derive(ClapArgs, Debug, Clone)]
#[command(after_help = "Examples:
  headroom diagnose --url http://localhost:8000 --gpu H100-SXM --save   # before
  # ... apply the prescribed flag, restart the engine ...
  headroom remeasure                                                     # after
  headroom remeasure --against 12 --engine-args \"vllm serve ... --max-num-seqs 128\"

The re-measure takes the saved run's window shape (URL, duration, interval, GPU, model) and says
whether the primary cleared, how throughput moved against the spread across sub-windows, whether
the config changed as prescribed, and what fires next. The server is checked before the window
starts, as diagnose does.

Exit codes: 0 ran, 1 error, 3 the new window was incomplete (under 80 % of its scrapes
answered): the comparison is not a verdict.")]
pub struct RemeasureArgs {
    /// The saved run to compare with (default: the newest saved diagnose run).
    #[arg(long)]
    pub against: Option<i64>,
    /// The engine's new command line, when the fix changed flags.
    #[arg(long)]
    pub engine_args: Option<String>,
    /// Read the engine's new flags from this process.
    #[arg(long)]
    pub pid: Option<u32>,
    /// The server, when it is not where the saved run measured it, or sits behind basic auth
    /// (http://user:password@host:port): credentials are never saved, so give them again here.
    #[arg(long)]
    pub url: Option<String>,
    /// Analyse a recorded window instead of scraping (tests, offline comparison).
    #[arg(long)]
    pub replay: Option<PathBuf>,
    /// Write every scrape to this JSONL file.
    #[arg(long)]
    pub record: Option<PathBuf>,
    /// Do not save the new run.
    #[arg(long)]
    pub no_save: bool,
    #[command(flatten)]
    pub out: Output,
}

/// A window request: everything needed to take and judge one window.
#[derive(Debug, Clone)]
pub struct WindowRequest {
    pub shape: Shape,
    /// A TOML catalog laid over the embedded one.
    pub catalog: Option<PathBuf>,
    pub pid: Option<u32>,
    pub replay: Option<PathBuf>,
    pub record: Option<PathBuf>,
    pub progress: bool,
}

impl WindowRequest {
    /// What the report names: the window's shape with the server's URL bare. Credentials
    /// (`user:password@`) reach the server and nothing else: not the document, the page or the
    /// history.
    pub fn target(&self) -> diagnose::Target {
        let mut shape = self.shape.clone();
        shape.url = shape
            .url
            .as_deref()
            .map(engines::scrape::without_credentials);
        diagnose::Target {
            shape,
            replay: self.replay.as_ref().map(|p| p.display().to_string()),
        }
    }
}

/// Take (or replay) one window and judge it.
pub async fn collect_and_diagnose(req: &WindowRequest) -> Result<Report> {
    let recording = match &req.replay {
        Some(p) => live::replay(p)?,
        None => live::live(&req.shape, req.pid, req.record.as_deref(), req.progress).await?,
    };
    let cat = catalog(req.catalog.as_deref())?;
    Ok(diagnose::judge(&recording, &req.target(), &cat)?.report)
}

/// Saves the report; `remeasure_of` names the run a re-measure was taken against.
fn save(
    report: &Report,
    out: &Output,
    label: Option<&str>,
    remeasure_of: Option<i64>,
) -> Result<i64> {
    let path = db_path(&out.db)?;
    let st = store::Store::open(&path)?;
    let id = st.save(
        &store::NewRun {
            kind: "diagnose",
            created: now(),
            label,
            url: report.shape.url.as_deref(),
            engine: Some(report.engine.as_str()),
            model: report.model.as_deref(),
            remeasure_of,
        },
        &serde_json::to_value(report)?,
    )?;
    Ok(id)
}

/// Prints a document as JSON with its keys in sorted order (the documents' one printed form).
fn print_json<T: serde::Serialize>(doc: &T) -> Result<()> {
    output::json(&serde_json::to_value(doc)?)
}

pub fn run(a: Args) -> Result<Exit> {
    super::names::check_target(&a.target)?;
    if a.interval >= a.duration && a.replay.is_none() {
        bail!(
            "--interval ({:?}) must be shorter than --duration ({:?})",
            a.interval,
            a.duration
        );
    }
    let req = WindowRequest {
        shape: Shape {
            url: a.url.clone(),
            duration_s: a.duration.as_secs_f64(),
            interval_s: a.interval.as_secs_f64(),
            gpu: a.target.gpu.clone(),
            model: a.target.model.clone(),
            gguf: a.target.gguf.as_ref().map(|p| p.display().to_string()),
            engine_args: a.engine_args.clone(),
            tp: a.target.tp,
            dtype: a.target.dtype.clone(),
            quantization: a.target.quantization.clone(),
            price_per_hour: a.price_per_hour,
            sub_windows: a.sub_windows,
        },
        catalog: a.target.catalog.clone(),
        pid: a.pid,
        replay: a.replay.clone(),
        record: a.record.clone(),
        progress: !a.out.quiet && !a.out.json,
    };
    let mut report = match a.gpu_telemetry.mode() {
        Some(mode) => runtime()?.block_on(gpu::collect_and_diagnose(&req, &mode))?,
        None => runtime()?.block_on(collect_and_diagnose(&req))?,
    };
    // Credentials reach the server and nothing else: not the document, the page or the history.
    report.shape.url = report
        .shape
        .url
        .as_deref()
        .map(engines::scrape::without_credentials);
    if a.save {
        report.saved_run_id = Some(save(&report, &a.out, a.label.as_deref(), None)?);
    }
    if let Some(p) = &a.out.html {
        super::common::write_page(p, &::report::diagnose(&report))?;
    }
    if a.out.json {
        print_json(&report)?;
    } else {
        output::emit(&render::diagnose::render(&report, a.out.verbose))?;
        let gpu_text = render::diagnose_gpu::render(&report, a.out.verbose);
        if !gpu_text.is_empty() {
            output::emit(&gpu_text)?;
        }
        if let Some(id) = report.saved_run_id {
            output::line(format!(
                "\nSaved as run {id}. After the fix: headroom remeasure --against {id}"
            ))?;
        }
    }
    Ok(match &a.fail_on {
        _ if report.scrapes.incomplete => Exit::Incomplete,
        Some(f) if f.found(&report) => Exit::Found,
        _ => Exit::Ok,
    })
}

pub fn remeasure(a: RemeasureArgs) -> Result<Exit> {
    let path = db_path(&a.out.db)?;
    let st = store::Store::open(&path)?;
    let run = match a.against {
        Some(id) => st
            .get(id)?
            .with_context(|| format!("no run {id} in {}", path.display()))?,
        None => st.latest("diagnose")?.with_context(|| {
            format!(
                "no saved diagnose run in {}: run `headroom diagnose --save` first",
                path.display()
            )
        })?,
    };
    if run.kind != "diagnose" {
        bail!("run {} is a {} run, not a diagnose run", run.id, run.kind);
    }
    let before: Report = run.read(&path)?;
    let mut shape = before.shape.clone();
    super::names::check(
        &catalog(None)?,
        shape.gpu.as_deref(),
        shape.model.as_deref(),
        shape.gguf.as_deref().map(std::path::Path::new),
    )
    .with_context(|| format!("saved run {}", run.id))?;
    if a.engine_args.is_some() {
        shape.engine_args = a.engine_args.clone();
    }
    if let Some(url) = &a.url {
        shape.url = Some(url.clone());
    }
    let req = WindowRequest {
        shape,
        catalog: None,
        pid: a.pid,
        replay: a.replay.clone(),
        record: a.record.clone(),
        progress: !a.out.quiet && !a.out.json,
    };
    let mut report = runtime()?.block_on(collect_and_diagnose(&req))?;
    report.shape.url = report
        .shape
        .url
        .as_deref()
        .map(engines::scrape::without_credentials);
    let comparison = remeasure::compare(&before, &report);
    let saved = if a.no_save {
        None
    } else {
        Some(save(
            &report,
            &a.out,
            Some(&format!("remeasure of {}", run.id)),
            Some(run.id),
        )?)
    };
    report.saved_run_id = saved;
    let mut before = before;
    before.saved_run_id = Some(run.id);
    let doc = Remeasure {
        schema: remeasure::SCHEMA.to_string(),
        against: run.id,
        saved_run_id: saved,
        comparison,
        after: report,
    };
    if let Some(p) = &a.out.html {
        super::common::write_page(p, &::report::remeasure(&before, &doc))?;
    }
    let exit = if doc.after.scrapes.incomplete {
        Exit::Incomplete
    } else {
        Exit::Ok
    };
    if a.out.json {
        print_json(&doc)?;
        return Ok(exit);
    }
    let (report, comparison) = (&doc.after, &doc.comparison);
    output::emit(&render::diagnose::render(report, a.out.verbose))?;
    output::line(format!("\nRe-measure against run {}:", run.id))?;
    output::emit(&render::diagnose::comparison(comparison))?;
    if let Some(id) = saved {
        output::line(format!("\nSaved as run {id}."))?;
    }
    Ok(exit)
}
