//! `headroom dashboard`: a Grafana dashboard written from the engine table, for every engine or
//! for those a store holds. The model and the choice of panels live in `fleet::dashboard`; this
//! file parses arguments, asks the store, and writes.

use crate::args::parse_duration;
use crate::output::Exit;
use anyhow::{bail, Context, Result};
use clap::Args as ClapArgs;
use engines::Engine;
use fleet::dashboard::{Scope, Written};
use std::path::PathBuf;
use std::time::Duration;

#[derive(ClapArgs, Debug)]
#[command(after_help = "\
Each panel asks for one concept (running, waiting, KV usage, token rates, TTFT, ITL ...) in \
every engine's names and every version's: a renamed metric is read under its new name where a \
server exports it and its old name elsewhere, so one dashboard covers vLLM before and after \
gpu_cache_usage_perc became kv_cache_usage_perc, SGLang, llama.cpp, TGI and LMDeploy. Counters are rates over Grafana's $__rate_interval, histograms p50 and p95. Two \
panels show headroom's own verdict series (`headroom fleet --serve`). Import the file in \
Grafana (Dashboards → New → Import) and pick the Prometheus data source; write it again after \
upgrading headroom to pick up new renames.

With --prometheus the dashboard is written for the engines and versions the store holds: one \
request asks the store's index which of the table's names have series over --since, and each \
panel reads only the engines found and, for a renamed metric, only the names present. A panel \
whose concept no engine found exports (swapped requests on a store of vLLM V1 and llama.cpp) is \
left out; stderr names the engines found, the panels left out and why, and the renames read \
under one name. A store holding none of the table's names is an error that lists them. \
--engine restricts to engines by name, with or without a store. The store-access flags are \
fleet's and census's.

Examples:
  headroom dashboard -o headroom-dashboard.json
  headroom dashboard --by pod --title 'LLM serving (prod)' -o prod.json
  headroom dashboard --prometheus http://prom:9090 -o ours.json      # the engines the store holds
  headroom dashboard --prometheus https://mimir/prometheus --header 'X-Scope-OrgID: a' -o a.json
  headroom dashboard --engine vllm --engine llama.cpp -o two.json")]
pub struct Args {
    /// The label that names a replica (a dashboard variable of the same name picks them).
    #[arg(long, default_value = "instance")]
    pub by: String,
    /// The dashboard's title.
    #[arg(long, default_value = "LLM serving (headroom)")]
    pub title: String,
    /// Where to write the JSON model (`-`: stdout).
    #[arg(short, long, default_value = "-")]
    pub output: PathBuf,
    /// Write panels only for the engines and metric names this store (Prometheus, Thanos,
    /// Mimir, VictoriaMetrics HTTP API root) holds.
    #[arg(long, value_name = "URL")]
    pub prometheus: Option<String>,
    /// With --prometheus: a name is present when it has series in this window, ending now.
    #[arg(long, default_value = "24h", value_parser = parse_duration, requires = "prometheus")]
    pub since: Duration,
    /// Only this engine (repeat for more): vllm, llama.cpp, sglang, tgi, lmdeploy.
    #[arg(long = "engine", value_name = "NAME", value_parser = parse_engine)]
    pub engines: Vec<Engine>,
    /// Seconds to wait for the store.
    #[arg(long, default_value = "30s", value_parser = parse_duration)]
    pub timeout: Duration,
    #[command(flatten)]
    pub access: super::access::StoreAccess,
}

/// An engine by its document spelling or its name, in any case (`llama.cpp`, `vLLM`).
fn parse_engine(s: &str) -> Result<Engine, String> {
    Engine::ALL
        .into_iter()
        .find(|e| e.as_str().eq_ignore_ascii_case(s) || e.name().eq_ignore_ascii_case(s))
        .ok_or_else(|| {
            let known: Vec<&str> = Engine::ALL.iter().map(|e| e.as_str()).collect();
            format!("unknown engine {s:?}: give one of {}", known.join(", "))
        })
}

pub fn run(a: Args) -> Result<Exit> {
    let held = match &a.prometheus {
        None if a.access.is_set() => bail!(
            "--user, --bearer-token, --header and the TLS flags reach a store: they go with \
             --prometheus"
        ),
        None => None,
        Some(p) => {
            let prom = promapi::Prometheus::new(p, a.timeout, &a.access.access()?)?;
            let end = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs_f64())
                .unwrap_or(0.0);
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .context("starting the async runtime")?;
            let start = end - a.since.as_secs_f64();
            Some(rt.block_on(fleet::dashboard::held(&prom, &a.engines, start, end))?)
        }
    };
    let scoped = held.is_some() || !a.engines.is_empty();
    let w = fleet::dashboard::dashboard_for(
        &fleet::dashboard::Options {
            by: a.by.clone(),
            title: a.title.clone(),
        },
        &Scope {
            engines: a.engines.clone(),
            held,
        },
    )?;
    if scoped {
        eprint!("{}", report(&w, a.prometheus.is_some()));
    }
    let d = &w.dashboard;
    let text = serde_json::to_string_pretty(d)? + "\n";
    if a.output.as_os_str() == "-" {
        crate::output::emit(&text)?;
    } else {
        std::fs::write(&a.output, text)
            .with_context(|| format!("writing {}", a.output.display()))?;
        eprintln!(
            "wrote {} ({} panels): import it in Grafana",
            a.output.display(),
            d.panels.len()
        );
    }
    Ok(Exit::Ok)
}

/// What a scoped dashboard covers and leaves out, for stderr.
fn report(w: &Written, store: bool) -> String {
    let names: Vec<&str> = w.engines.iter().map(|e| e.name()).collect();
    let mut s = format!(
        "{}: {}\n",
        if store {
            "engines found in the store"
        } else {
            "engines chosen"
        },
        names.join(", ")
    );
    for n in &w.narrowed {
        s += &format!(
            "  {}: {} read as {} only ({} not in the store)\n",
            n.title,
            n.engine.name(),
            n.read.join(", "),
            n.absent.join(", ")
        );
    }
    if !w.dropped.is_empty() {
        let n = w.dropped.len();
        s += &format!("{n} panel{} left out:\n", if n == 1 { "" } else { "s" });
        for d in &w.dropped {
            s += &format!("  {}: {}\n", d.title, d.reason);
        }
    }
    s
}
