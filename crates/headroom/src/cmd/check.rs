//! `headroom check`: run a load generator under observation (or take a recorded window after the
//! fact), read the tool's result file, and judge whether the run measured what it claims (the
//! `check` crate), beside the server's own diagnosis of the same window.

mod bound;

use super::common::runtime;
use super::diagnose::live::{self, Until};
use super::diagnose::Shape;
use crate::output::{self, Exit};
use anyhow::{bail, Context, Result};
use clap::Args as ClapArgs;
use std::path::{Path, PathBuf};
use std::time::Duration;

pub use crate::args::parse_duration;

#[derive(ClapArgs, Debug, Clone)]
#[command(after_help = "Examples:
  # Run vLLM's serving benchmark under observation, then judge it:
  headroom check --url http://localhost:8000 --result run.json -- \\
    vllm bench serve --model meta-llama/Llama-3.1-8B-Instruct --dataset-name random \\
      --num-prompts 200 --save-result --result-filename run.json
  # Against llama-server (started with --metrics), keeping the window to judge again later:
  headroom check --url http://127.0.0.1:8080 --result run.json --record run.jsonl -- \\
    vllm bench serve --base-url http://127.0.0.1:8080 ... --save-result --result-filename run.json
  # GuideLLM (0.8), one profile per check; the tool is told by the file's content:
  headroom check --url http://127.0.0.1:8080 --result benchmarks.json -- \\
    guidellm run --backend kind=openai_http,target=http://127.0.0.1:8080 \\
      --profile kind=synchronous --constraint kind=max_requests,count=100 \\
      --data kind=synthetic_text,prompt_tokens=256,output_tokens=128 \\
      --output kind=json,path=benchmarks.json
  # AIPerf (0.13): the result is its --artifact-dir (or the profile_export_aiperf.json in it):
  headroom check --url http://127.0.0.1:8080 --result artifacts -- \\
    aiperf profile --model M --url http://127.0.0.1:8080 --endpoint-type completions \\
      --streaming --tokenizer M --synthetic-input-tokens-mean 256 --output-tokens-mean 128 \\
      --request-count 100 --concurrency 4 --artifact-dir artifacts
  # inference-perf (0.7): the result is its report folder, the config's fixed
  # storage.local_storage.path (or the summary_lifecycle_metrics.json in it):
  headroom check --url http://127.0.0.1:8080 --result reports -- inference-perf -c config.yml
  # After the fact, from a window recorded with `diagnose --record` over exactly the run:
  headroom check run.json --recording run.jsonl --json
  # Bound the figures by the hardware (as `headroom ceiling` names it):
  headroom check run.json --recording run.jsonl --gpu H100-SXM --model llama-3.1-8b
  headroom check run.json --recording run.jsonl --gpu none --ram-bandwidth 40 --gguf m.gguf
  # Two runs against one server (two tools, or the same one twice): save each check, compare:
  headroom check a.json --recording a.jsonl --json > a.check.json
  headroom check b.json --recording b.jsonl --json > b.check.json
  headroom check --compare a.check.json b.check.json

headroom scrapes the server's /metrics once before the command starts (a wrong port ends it
there), every --interval while it runs, and once after it exits; the command's output goes to
the terminal as usual (to stderr with --json, so stdout holds the document alone). Then it
reads the result file and sets the tool's figures against what the engine counted over the
same window:

  prompt and output tokens   the client's totals against the engine's counters, within 3 %
                             (llama.cpp's prompt counter leaves out cached tokens: its cached-
                             token counter is added back; a build without it cannot judge)
  cache contamination        the share of prompt tokens served from the prefix cache, over 10 %
                             (a second run with the same --seed replays the first one's prompts)
  saturation                 waiting ≥ running in most scrapes, or a queue that grew by 2 or more
  failed requests            any, from the result file (vllm bench serve's `failed`,
                             GuideLLM's, AIPerf's and inference-perf's errored requests)
  preemptions                any, from the engine's counter
  impossible figures         with --gpu and the model: the client's median TPOT faster than
                             the hardware's decode floor (bytes per token ÷ bandwidth, once per
                             step for all streams), or its output throughput above streams ×
                             the one-stream ceiling, by more than 2× (peak bandwidth, a few
                             percent of tokens miscounted and the embedding table keep an
                             honest run well inside it); the engine's counted speculative
                             tokens per step raise the ceiling

Each finding prints its measured value and threshold, or why it could not judge. Below them:
the server's own diagnosis of the window (the primary bottleneck and its fix), so a valid run
also says what limits it.

vllm bench serve sends its first prompt once as a ready check before the run, and --num-warmups
more: the engine counts them and the result does not, so on short runs the token counts and the
cache share show them (pass --ready-check-timeout-sec 0 and no warm-ups, or run more prompts).
Against llama-server it counts output tokens by re-tokenizing the text: its client reads `usage`
only from a stream chunk without `choices`, and llama-server sends both in its last chunk
(vllm/benchmarks/lib/endpoint_request_func.py at v0.32.0); check names the gap when it exceeds
the tolerance (4.7 % measured on 24 random prompts).

GuideLLM's report may hold several benchmarks (a sweep, or --override rates): they share the
window, so check refuses such a file; run one profile per check. Its synthetic data is seeded
(42 by default): the same run twice replays the prompts, and the second is judged warm. Its
default endpoint is chat, whose template puts one preamble before every prompt: the engine
serves it from its cache after the first request (21 % of 94-token prompts, measured once by
hand against llama-server with SmolLM2's template), so short prompts are judged contaminated; request_format=/v1/completions in
--backend sends the prompt alone.

AIPerf writes a directory of artifacts; check reads its summary, profile_export_aiperf.json
(given the directory, it reads that file; given the per-request profile_export.jsonl or the CSV,
it names the file to give). AIPerf's prompt count (ISL) is its tokenizer's count of the prompt
text: with --endpoint-type chat the server's template is in the engine's count alone, and check
names it (--use-server-token-count makes AIPerf count the server's `usage`). Its synthetic
prompts are seeded by --random-seed: the same run twice replays them.

inference-perf writes a report folder (storage.local_storage.path in its config; give it a
fixed path, not the default's {timestamp}); check reads its summary_lifecycle_metrics.json
(given the folder, it reads that file; given config.yaml or validation.json, it names the file
to give). Its token totals are the server's `usage` where the server sends one. The summary
states no tokenizer, rate or concurrency (config.yaml holds them), so --compare cannot set an
inference-perf run's load beside another's by those. Its random prompts are seeded by
load.base_seed: the same config twice replays them. Against llama-server a request sent on a
pooled connection the server had closed fails at once ('Server disconnected', never reaching a
slot: 1 of 4 requests on 3 of 5 runs at concurrency 1) and is judged as failed;
load.request_retries: 1 sends it again (4 of 4 on two runs, the engine's counts exact).

--compare A B takes two saved check documents (--json) of runs against the same server. It
first says whether they measured the same load: request rate and concurrency limit, mean prompt
and output tokens (the engine's counts per finished request, so two tools' tokenizers do not
matter) and request count, each within 10 % (the concurrency limit exactly). Only then does it
set their figures side by side: the client's output and request throughput, median TTFT and
TPOT, and the server's generated and prompt tokens and requests per second of each window,
naming each that differs by more than 5 % (one run each side: a size, not a significance
test). When the loads differ it names what differs and compares nothing.

Exit codes: 0 judged (valid or not), 1 error (the command exited non-zero or could not start, the
server did not answer, the result file is unreadable), 3 under 80 % of the scrapes answered.
The JSON document is described in docs/json/check.md.")]
pub struct Args {
    /// A result file to judge after the fact, with --recording.
    #[arg(value_name = "RESULT", requires = "recording", conflicts_with = "url")]
    pub result_file: Option<PathBuf>,
    /// Base URL of the server the command loads (its /metrics is scraped).
    #[arg(long, required_unless_present_any = ["recording", "compare"])]
    pub url: Option<String>,
    /// Compare two saved check documents (`check ... --json > a.check.json`) of runs against
    /// the same server: the load first, then the figures.
    #[arg(long, num_args = 2, value_names = ["A", "B"],
          conflicts_with_all = ["url", "recording", "result_file", "gpu", "model", "gguf"])]
    pub compare: Vec<PathBuf>,
    /// GPU the server ran on, as `headroom ceiling --gpu` names it; `none` for CPU only (with
    /// --ram-bandwidth). With the model, bounds the client's TPOT and throughput.
    #[arg(long, value_name = "NAME")]
    pub gpu: Option<String>,
    /// Catalogued model the server ran (as `headroom ceiling --model`).
    #[arg(long, value_name = "NAME", conflicts_with = "gguf")]
    pub model: Option<String>,
    /// The model file the server ran (GGUF header only), instead of --model.
    #[arg(long, value_name = "FILE")]
    pub gguf: Option<PathBuf>,
    /// Tensor-parallel size (as `headroom ceiling --tp`).
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub tp: u32,
    /// Weight dtype (as `headroom ceiling --dtype`).
    #[arg(long, value_name = "DTYPE")]
    pub dtype: Option<String>,
    /// Weight quantization (as `headroom ceiling --quantization`: fp8, awq, Q4_K_M, bits ...).
    #[arg(long, value_name = "NAME")]
    pub quantization: Option<String>,
    /// Measured host RAM bandwidth, GB/s (`headroom membw`), with --gpu none.
    #[arg(long, value_name = "GBPS")]
    pub ram_bandwidth: Option<f64>,
    /// A TOML file of [[gpu]] / [[model]] entries laid over the built-in catalogs.
    #[arg(long, value_name = "FILE")]
    pub catalog: Option<PathBuf>,
    /// Time between scrapes while the command runs.
    #[arg(long, default_value = "1s", value_parser = parse_duration)]
    pub interval: Duration,
    /// The result file the command writes (vllm bench serve --save-result, GuideLLM's
    /// --output kind=json,path=FILE, AIPerf's --artifact-dir, or inference-perf's report
    /// folder), read after it exits.
    #[arg(long, value_name = "FILE", conflicts_with = "recording")]
    pub result: Option<PathBuf>,
    /// Write every scrape of the run to this JSONL file (replayable with --recording).
    #[arg(long, value_name = "FILE", conflicts_with = "recording")]
    pub record: Option<PathBuf>,
    /// A window recorded with `diagnose --record` (or check --record) over exactly the run.
    #[arg(long, value_name = "FILE")]
    pub recording: Option<PathBuf>,
    /// Print the headroom.check/1 JSON document instead of the text.
    #[arg(long)]
    pub json: bool,
    /// The benchmark command and its arguments, after `--`.
    #[arg(last = true, value_name = "CMD")]
    pub command: Vec<String>,
}

fn shape(url: Option<String>, interval: Duration, duration_s: f64) -> Shape {
    Shape {
        url,
        duration_s,
        interval_s: interval.as_secs_f64(),
        gpu: None,
        model: None,
        gguf: None,
        engine_args: None,
        tp: None,
        dtype: None,
        quantization: None,
        price_per_hour: None,
        sub_windows: 6,
    }
}

/// Runs `command` while sampling the server; the window ends with one scrape after it exits.
async fn observe(
    shape: &Shape,
    interval: Duration,
    record: Option<&Path>,
    command: &[String],
    json: bool,
) -> Result<engines::Recording> {
    let Some((program, args)) = command.split_first() else {
        bail!("no command to run: give it after `--` (headroom check --url URL -- vllm bench serve ...)");
    };
    let opened = live::open(shape, None).await?;
    let mut cmd = std::process::Command::new(program);
    cmd.args(args);
    if json {
        // stdout holds the document alone; the command's own output goes to stderr.
        cmd.stdout(std::io::stderr());
    }
    let mut child = cmd
        .spawn()
        .with_context(|| format!("starting `{program}`"))?;
    let sampled = live::sample(opened, interval, record, Until::Exits(&mut child), false).await;
    let (recording, exit) = match sampled {
        Ok(x) => x,
        Err(e) => {
            // The window cannot be kept: the run it would judge is not left running unobserved.
            let _ = child.kill();
            let _ = child.wait();
            return Err(e);
        }
    };
    match exit {
        Some(status) if status.success() => Ok(recording),
        Some(status) => bail!(
            "`{}` exited with {status}: the run did not finish, so it is not judged{}",
            command.join(" "),
            record
                .map(|p| format!(" (its window is recorded in {})", p.display()))
                .unwrap_or_default()
        ),
        None => bail!("`{program}`: the window ended before the command did"),
    }
}

/// Reads a saved check document.
fn read_check(p: &Path) -> Result<check::Check> {
    let text = check::result::read_text(p)?;
    serde_json::from_str(&text).with_context(|| {
        format!(
            "{}: not a {} document (save one with `headroom check ... --json`)",
            p.display(),
            check::SCHEMA
        )
    })
}

fn compare(a: &Args) -> Result<Exit> {
    let [x, y] = a.compare.as_slice() else {
        bail!("--compare takes two saved check documents");
    };
    let (dx, dy) = (read_check(x)?, read_check(y)?);
    let c = check::compare::compare(&dx, &x.display().to_string(), &dy, &y.display().to_string());
    if a.json {
        output::json(&serde_json::to_value(&c)?)?;
    } else {
        output::emit(&render::check::compare(&c))?;
    }
    Ok(Exit::Ok)
}

pub fn run(a: Args) -> Result<Exit> {
    if !a.compare.is_empty() {
        return compare(&a);
    }
    // Resolved before the run, so a misspelt GPU or model costs no benchmark.
    let ceiling = bound::ceiling(&bound::Hardware {
        gpu: a.gpu.as_deref(),
        model: a.model.as_deref(),
        gguf: a.gguf.as_deref(),
        tp: a.tp,
        dtype: a.dtype.as_deref(),
        quantization: a.quantization.as_deref(),
        ram_bandwidth: a.ram_bandwidth,
        catalog: a.catalog.as_deref(),
    })?;
    let (recording, result_path, command, url) = match (&a.recording, &a.url) {
        (Some(rec), _) => {
            if !a.command.is_empty() {
                bail!("--recording judges a run after the fact: give no command after `--`");
            }
            (live::replay(rec)?, a.result_file.clone(), None, None)
        }
        (None, Some(url)) => {
            let sh = shape(Some(url.clone()), a.interval, 0.0);
            let rec = runtime()?.block_on(observe(
                &sh,
                a.interval,
                a.record.as_deref(),
                &a.command,
                a.json,
            ))?;
            (
                rec,
                a.result.clone(),
                Some(a.command.clone()),
                Some(url.clone()),
            )
        }
        (None, None) => bail!("give --url and a command after `--`, or RESULT --recording FILE"),
    };
    let (result, figures) = match &result_path {
        // The tool is told by the file's content, not by the command that wrote it.
        Some(p) => {
            // An AIPerf --artifact-dir or an inference-perf report folder is read by its
            // summary.
            let file = check::result::resolve(p)?;
            let text = check::result::read_text(&file)?;
            (
                Some(check::result::from_text(&text, &file)?),
                check::ClientFigures::from_text(&text),
            )
        }
        None => (None, None),
    };
    let duration_s = match (recording.scrapes.first(), recording.scrapes.last()) {
        (Some(a), Some(b)) => (b.t - a.t).max(0.0),
        _ => 0.0,
    };
    // Credentials reach the server and nothing else.
    let url = url
        .or_else(|| Some(recording.header.url.clone()))
        .map(|u| engines::scrape::without_credentials(&u));
    let interval = match &a.recording {
        Some(_) => Duration::from_secs_f64(recording.header.interval_s.max(0.0)),
        None => a.interval,
    };
    let target = diagnose::Target {
        shape: shape(url, interval, duration_s),
        replay: a.recording.as_ref().map(|p| p.display().to_string()),
    };
    let read = diagnose::read(&recording, &target);
    let samples = read.samples.clone();
    let report = diagnose::judge_samples(read, &target, &super::names::catalog(None)?)?.report;
    let doc = check::judge_with(
        &samples,
        &report,
        result,
        command,
        check::Bounds { figures, ceiling },
    );
    if a.json {
        output::json(&serde_json::to_value(&doc)?)?;
    } else {
        output::emit(&render::check::render(&doc))?;
    }
    Ok(if doc.diagnosis.incomplete {
        Exit::Incomplete
    } else {
        Exit::Ok
    })
}
