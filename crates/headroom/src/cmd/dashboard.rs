//! `headroom dashboard`: a Grafana dashboard written from the engine table. The model lives in
//! `fleet::dashboard`; this file parses arguments and writes.

use crate::output::Exit;
use anyhow::{Context, Result};
use clap::Args as ClapArgs;
use std::path::PathBuf;

#[derive(ClapArgs, Debug)]
#[command(after_help = "\
Each panel asks for one concept (running, waiting, KV usage, token rates, TTFT, ITL ...) in \
every engine's names and every version's: a renamed metric is read under its new name where a \
server exports it and its old name elsewhere, so one dashboard covers vLLM before and after \
gpu_cache_usage_perc became kv_cache_usage_perc, SGLang under either prefix, llama.cpp, TGI \
and LMDeploy. Counters are rates over Grafana's $__rate_interval, histograms p50 and p95. Two \
panels show headroom's own verdict series (`headroom fleet --serve`). Import the file in \
Grafana (Dashboards → New → Import) and pick the Prometheus data source; write it again after \
upgrading headroom to pick up new renames.

Examples:
  headroom dashboard -o headroom-dashboard.json
  headroom dashboard --by pod --title 'LLM serving (prod)' -o prod.json")]
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
}

pub fn run(a: Args) -> Result<Exit> {
    let d = fleet::dashboard::dashboard(&fleet::dashboard::Options {
        by: a.by.clone(),
        title: a.title.clone(),
    })?;
    let text = serde_json::to_string_pretty(&d)? + "\n";
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
