//! `headroom diagnose`, `headroom remeasure`: sample a live server's /metrics over a window, set
//! it against its ceiling, and name one primary bottleneck with its evidence and fix. After the
//! fix, the same window shape again, compared with the saved run.

mod collect;
mod compare;
mod physics;
mod render;
mod report;

pub use report::{Report, Shape};

use anyhow::{bail, Context, Result};
use clap::Args as ClapArgs;
use std::path::PathBuf;
use std::time::Duration;

pub use crate::args::parse_duration;

#[derive(ClapArgs, Debug, Clone)]
#[command(after_help = "Examples:
  headroom diagnose --url http://localhost:8000 --gpu H100-SXM --model llama-3.1-8b
  headroom diagnose --url http://localhost:8000 --duration 2m --engine-args \"vllm serve meta-llama/Llama-3.1-8B-Instruct --max-num-seqs 64\" --save
  headroom diagnose --url http://127.0.0.1:8080 --duration 30s --record run.jsonl   # llama-server --metrics
  headroom diagnose --replay run.jsonl --gpu RTX-4090 --json

Without --gpu or --model everything that needs no ceiling still works; the ceiling is 'unknown'
with the reason. Flags nobody could read stay 'unread' and every rule that needs them stays silent.
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
    #[command(flatten)]
    pub out: Output,
}

/// The GPU and model the ceiling is computed for.
#[derive(ClapArgs, Debug, Clone, Default)]
pub struct Target {
    /// Catalogued GPU (loose names: H100-SXM, h100sxm, rtx4090...).
    #[arg(long)]
    pub gpu: Option<String>,
    /// Catalogued model; default: the name the engine serves.
    #[arg(long)]
    pub model: Option<String>,
    /// Take the model's figures from this GGUF file.
    #[arg(long, conflicts_with = "model")]
    pub gguf: Option<PathBuf>,
    /// Tensor-parallel size, when the engine's flags do not say.
    #[arg(long)]
    pub tp: Option<u32>,
    /// Weight dtype (bf16, fp8 ...), when the engine does not report it.
    #[arg(long)]
    pub dtype: Option<String>,
    /// Weight quantization (awq, gptq, fp8 ...), when the engine does not report it.
    #[arg(long)]
    pub quantization: Option<String>,
    /// A TOML catalog laid over the embedded one.
    #[arg(long)]
    pub catalog: Option<PathBuf>,
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
}

#[derive(ClapArgs, Debug, Clone)]
#[command(after_help = "Examples:
  headroom diagnose --url http://localhost:8000 --gpu H100-SXM --save   # before
  # ... apply the prescribed flag, restart the engine ...
  headroom remeasure                                                     # after
  headroom remeasure --against 12 --engine-args \"vllm serve ... --max-num-seqs 128\"

The re-measure takes the saved run's window shape (URL, duration, interval, GPU, model) and says
whether the primary cleared, how throughput moved against the spread across sub-windows, whether
the config changed as prescribed, and what fires next.")]
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

pub fn db_path(p: &Option<PathBuf>) -> Result<PathBuf> {
    match p {
        Some(p) => Ok(p.clone()),
        None => store::default_path()
            .context("cannot find a data folder: set XDG_DATA_HOME or HOME, or pass --db"),
    }
}

fn catalog(t: &Target) -> Result<::physics::Catalog> {
    Ok(match &t.catalog {
        Some(p) => {
            let f = std::fs::File::open(p)
                .with_context(|| format!("reading catalog {}", p.display()))?;
            ::physics::Catalog::from_user_reader(f, &p.display().to_string())?
        }
        None => ::physics::Catalog::embedded()?,
    })
}

/// A window request: everything needed to take and judge one window.
#[derive(Debug, Clone)]
pub struct WindowRequest {
    pub shape: Shape,
    pub target: Target,
    pub pid: Option<u32>,
    pub replay: Option<PathBuf>,
    pub record: Option<PathBuf>,
    pub progress: bool,
}

/// Take (or replay) one window and judge it.
pub async fn collect_and_diagnose(req: &WindowRequest) -> Result<Report> {
    let collected = match &req.replay {
        Some(p) => collect::replay(p)?,
        None => collect::live(&req.shape, req.pid, req.record.as_deref(), req.progress).await?,
    };
    let cat = catalog(&req.target)?;
    collect::judge(req, collected, &cat)
}

fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")
}

fn save(report: &Report, out: &Output, label: Option<&str>) -> Result<i64> {
    let path = db_path(&out.db)?;
    let st = store::Store::open(&path)?;
    let doc = report.to_json();
    let engine = doc["engine"].as_str().map(str::to_string);
    let model = doc["model"].as_str().map(str::to_string);
    let id = st.save(
        &store::NewRun {
            kind: "diagnose",
            created: now(),
            label,
            url: report.shape.url.as_deref(),
            engine: engine.as_deref(),
            model: model.as_deref(),
        },
        &doc,
    )?;
    Ok(id)
}

pub fn now() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
}

pub fn run(a: Args) -> Result<()> {
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
        target: a.target.clone(),
        pid: a.pid,
        replay: a.replay.clone(),
        record: a.record.clone(),
        progress: !a.out.quiet && !a.out.json,
    };
    let report = runtime()?.block_on(collect_and_diagnose(&req))?;
    let saved = if a.save {
        Some(save(&report, &a.out, a.label.as_deref())?)
    } else {
        None
    };
    if a.out.json {
        let mut doc = report.to_json();
        doc["saved_run_id"] = serde_json::json!(saved);
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else {
        print!("{}", render::render(&report, a.out.verbose));
        if let Some(id) = saved {
            println!("\nSaved as run {id}. After the fix: headroom remeasure --against {id}");
        }
    }
    Ok(())
}

pub fn remeasure(a: RemeasureArgs) -> Result<()> {
    let path = db_path(&a.out.db)?;
    let st = store::Store::open(&path)?;
    let before = match a.against {
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
    if before.kind != "diagnose" {
        bail!(
            "run {} is a {} run, not a diagnose run",
            before.id,
            before.kind
        );
    }
    let mut shape: Shape = serde_json::from_value(before.doc["shape"].clone())
        .with_context(|| format!("run {}: its window shape cannot be read", before.id))?;
    if a.engine_args.is_some() {
        shape.engine_args = a.engine_args.clone();
    }
    let target = Target {
        gpu: shape.gpu.clone(),
        model: shape.model.clone(),
        gguf: shape.gguf.clone().map(PathBuf::from),
        tp: shape.tp,
        dtype: shape.dtype.clone(),
        quantization: shape.quantization.clone(),
        catalog: None,
    };
    let req = WindowRequest {
        shape,
        target,
        pid: a.pid,
        replay: a.replay.clone(),
        record: a.record.clone(),
        progress: !a.out.quiet && !a.out.json,
    };
    let report = runtime()?.block_on(collect_and_diagnose(&req))?;
    let after = report.to_json();
    let cmp = compare::compare(&before.doc, &after);
    let saved = if a.no_save {
        None
    } else {
        Some(save(
            &report,
            &a.out,
            Some(&format!("remeasure of {}", before.id)),
        )?)
    };
    if a.out.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({
                "schema": "headroom.remeasure/1",
                "against": before.id,
                "saved_run_id": saved,
                "comparison": cmp,
                "after": after,
            }))?
        );
        return Ok(());
    }
    print!("{}", render::render(&report, a.out.verbose));
    println!("\nRe-measure against run {}:", before.id);
    print!("{}", render::comparison(&cmp));
    if let Some(id) = saved {
        println!("\nSaved as run {id}.");
    }
    Ok(())
}
