//! `headroom census`: the step-shape census (how decode moves with prefill, step by step), from a Prometheus store's series or
//! one endpoint's cumulative counters. The reading and the statistics live in the census crate;
//! this file parses arguments and renders.

use crate::args::parse_duration;
use crate::output::{self, Exit};
use anyhow::{bail, Context, Result};
use census::RatesFrom;
use clap::Args as ClapArgs;
use std::time::Duration;

#[derive(ClapArgs, Debug)]
#[command(after_help = after_help())]
pub struct Args {
    /// Prometheus (or Thanos, Mimir, VictoriaMetrics) HTTP API root.
    #[arg(long, conflicts_with = "url", required_unless_present = "url")]
    pub prometheus: Option<String>,
    /// One endpoint's /metrics instead of a store: the ledger from its counters since boot.
    #[arg(long)]
    pub url: Option<String>,
    /// Label matchers picking one engine, e.g. '{instance="10.0.0.7:8000"}'.
    #[arg(long, default_value = "{}")]
    pub selector: String,
    /// The window, ending at --at (30m, 6h, 24h).
    #[arg(long, default_value = "24h", value_parser = parse_duration)]
    pub since: Duration,
    /// One step of the census (each bucket and each lag is counted in steps).
    #[arg(long, default_value = "30s", value_parser = parse_duration)]
    pub step: Duration,
    /// The window's end: unix seconds, `now`, or a duration ago (-1h).
    #[arg(long, default_value = "now", allow_hyphen_values = true)]
    pub at: String,
    /// Where the rates come from: `counters` (the engine's token counters), `gauges` (*:*_tokens_per_second),
    /// or `auto` (counters when the store has them).
    #[arg(long, default_value = "auto")]
    pub rates: String,
    /// Seconds to wait for each query or the scrape.
    #[arg(long, default_value = "30s", value_parser = parse_duration)]
    pub timeout: Duration,
    /// One JSON document (schema headroom.census/1) on stdout.
    #[arg(long)]
    pub json: bool,
    /// Also write the census as one self-contained HTML page (inline CSS and SVG, no network).
    #[arg(long, value_name = "FILE")]
    pub html: Option<std::path::PathBuf>,
    #[command(flatten)]
    pub access: super::access::StoreAccess,
}

pub fn run(a: Args) -> Result<Exit> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    let doc = match (&a.prometheus, &a.url) {
        (_, Some(_)) if a.access.is_set() => bail!(
            "--user, --bearer-token, --header and the TLS flags reach a store: they go with \
             --prometheus, not --url"
        ),
        (_, Some(url)) => rt.block_on(census::url::census(url, a.timeout))?,
        (Some(p), None) => {
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs_f64())
                .unwrap_or(0.0);
            let rates = match a.rates.as_str() {
                "auto" => None,
                "counters" => Some(RatesFrom::Counters),
                "gauges" => Some(RatesFrom::Gauges),
                other => bail!("--rates {other:?}: give auto, counters or gauges"),
            };
            let req = census::prom::Request {
                selector: promapi::Selector::parse(&a.selector).context("--selector")?,
                since_s: a.since.as_secs_f64(),
                step_s: a.step.as_secs_f64(),
                at: crate::args::parse_at(&a.at, now)?,
                rates,
            };
            let prom = promapi::Prometheus::new(p, a.timeout, &a.access.access()?)?;
            rt.block_on(census::prom::census(&prom, &req))?
        }
        (None, None) => bail!("give --prometheus URL or --url URL"),
    };
    if let Some(path) = &a.html {
        super::common::write_page(path, &::report::census(&doc))?;
    }
    if a.json {
        output::json(&doc)?;
    } else {
        output::emit(&::render::census::render(&doc))?;
    }
    Ok(Exit::Ok)
}

/// The long help, naming each engine's series from its definition.
fn after_help() -> String {
    let name = |e: engines::Engine, f: &str| e.def().exposed(f).unwrap_or_else(|| f.to_string());
    let l = engines::Engine::LlamaCpp;
    let (preemptions, l_credited, l_calls, l_running, l_prompt) = (
        name(engines::Engine::Vllm, "preemptions"),
        name(l, "generation_tokens_credited"),
        name(l, "decode_calls"),
        name(l, "running"),
        name(l, "prompt_tokens"),
    );
    format!(
        "\
On a chunked-prefill engine the unit of interference is the step: a step carrying a prompt \
chunk takes the chunk's time, and every decode row in it waits. The census splits the step \
ledger (where the engine exports *:engine_steps_total, *:engine_steps_decode_total, \
*:engine_step_seconds_total, *:engine_step_seconds_decode_total) into the mean decode-only step \
and the mean chunk step, with their shares of steps and of step time; buckets decode (per \
stream: over the engine's running gauge) and TTFT by the prefill rate; correlates decode with \
prefill at lag 0 and at 2-14 min; and names the shape: step-time contention (lag 0 only), \
residency churn (a lagged tail beyond what prefill's persistence carries), preemption stall \
(the dip goes with {preemptions}), or undecided with the reason.

Traps handled: latency is read under vllm:, cadence under whatever prefix exports it; the tps \
gauges (1 s decayed, batch-pooled) are used only at --step 30s or less; a restart or a build \
change inside the window splits it and only the latest piece is censused; the mean step is \
shown beside the phase split, never in its place. Without the step counters (stock vLLM) the \
census says what it cannot compute and does the rest.

Each engine is read under its own names (the adapters' table): vLLM under vllm:, llama.cpp under \
llamacpp:. llama.cpp adds a request's generated tokens to {l_credited} when \
the request ends, so that counter's rate in a step is the finished requests', and a dip would \
show where they end; its decode is read as its cadence instead: {l_calls} per \
second (one llama_decode call is one step and gives every generating stream one token), over the \
steps with {l_running} at least 1 at every scrape, against \
{l_prompt} per second. llama.cpp exports no step ledger, no TTFT histogram and \
no preemption counter; the census says so and reads the rest.

Counters are read as their raw values at each step's edges and differenced, so a piece's totals \
are each counter's own change over it; all queries after the first go to the store together.

Examples:
  headroom census --prometheus http://127.0.0.1:9090 --selector '{{instance=\"10.0.0.7:8000\"}}'
  headroom census --prometheus http://prom:9090 --selector '{{job=\"vllm\"}}' --since 24h --step 30s
  headroom census --prometheus http://prom:9090 --since 6h --at -1d --json
  headroom census --url http://127.0.0.1:8000      # one endpoint's counters since boot
  headroom census --prometheus http://prom:9090 --selector '{{job=\"llama\"}}' --since 6h
  headroom census --prometheus http://prom:9090 --selector '{{job=\"vllm\"}}' --html census.html

The JSON document (headroom.census/1) is described in docs/json/census.md."
    )
}
