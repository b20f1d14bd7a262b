//! `headroom bench`: a short, fixed, reproducible suite against a live server, recorded with
//! everything that identifies what was measured (engine version and build, model file, GPU,
//! the settings and defaults the engine reports), so `headroom regress` can say both *that* a
//! later run is slower and *what changed* in between (spec 003).

use crate::cmd::progress::Bar;
use crate::output::{self, Exit};
use anyhow::{Context, Result};
use clap::Args as ClapArgs;
use comfy_table::{Cell, CellAlignment};
use engines::identity::{identify, EngineCounters, Hints, LoadWatch, Sourced};
use engines::process::is_local;
use engines::{Engine, Scraper};
use loadgen::bench_doc::BenchDoc;
use loadgen::bench_suite::{run_suite, Clock, SuiteConfig};
use loadgen::probe::Progress;
use loadgen::{Client, ClientConfig, TokenCounter};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Duration;

#[derive(ClapArgs, Debug)]
#[command(after_help = "Examples:
  headroom bench --url http://127.0.0.1:8080 --label \"b6500\"
  headroom bench --url http://gpu-box:8000 --gpu tesla-p40 --label \"after upgrade\"
  headroom bench --url http://127.0.0.1:8080 --quick --no-save --json
  headroom regress                 # the latest bench against the one before it

The suite is fixed: temperature 0, seed 0, ignore_eos, prompts of exact token lengths from a
built-in corpus (only a salt at the front differs, so no cache serves them). Per repeat, in
turn: one decode request (decode tok/s and TTFT), one 1-token request per prefill length
(prompt tokens / TTFT), and N streams at once (aggregate decode tok/s). Standard: 5 repeats,
128 generated tokens, prefill at 128/512/2048, 4 streams. --quick: 5 repeats, 24 tokens,
prefill at 96, 2 streams.

Identity is recorded automatically: llama.cpp /props (build_info, model_path, default
generation settings), /slots, vLLM /version, /v1/models, /metrics; for a server on this
machine the process's own command line (flags such as -t, -ub, -fa) and a hash of the GGUF
header of its model file. The run is saved to the history (see `headroom history --bench`).
The JSON document is described in docs/json/bench.md.")]
pub struct Args {
    /// Base URL of the OpenAI-compatible server.
    #[arg(long)]
    pub url: String,
    /// A name for what is measured (an engine version, \"after upgrade\"); regress groups runs
    /// by it.
    #[arg(long)]
    pub label: Option<String>,
    /// The short preset (CPU boxes, tests).
    #[arg(long)]
    pub quick: bool,
    /// Repeats of each measurement (overrides the preset).
    #[arg(long)]
    pub repeats: Option<u32>,
    /// Tokens generated per decode request (overrides the preset).
    #[arg(long)]
    pub gen_tokens: Option<u32>,
    /// Prefill prompt lengths, comma-separated (overrides the preset): 128,512,2048.
    #[arg(long, value_delimiter = ',')]
    pub prefill_lengths: Option<Vec<u64>>,
    /// Streams of the aggregate decode measurement (overrides the preset).
    #[arg(long)]
    pub streams: Option<u32>,
    /// The model name to send (default: the server's first model).
    #[arg(long)]
    pub model: Option<String>,
    /// The GPU, recorded in the identity (a catalog name, or any name).
    #[arg(long)]
    pub gpu: Option<String>,
    /// The engine's command line, for flags the engine does not report:
    /// "llama-server -m m.gguf -ub 512 -fa on".
    #[arg(long)]
    pub engine_args: Option<String>,
    /// Read the engine's flags from this process (/proc/PID/cmdline). Default: found from the
    /// listening port when the URL is on this machine.
    #[arg(long)]
    pub pid: Option<u32>,
    /// Sent as `Authorization: Bearer`.
    #[arg(long)]
    pub api_key: Option<String>,
    /// Do not save the run to the history.
    #[arg(long)]
    pub no_save: bool,
    /// History database (default: $XDG_DATA_HOME/headroom/history.sqlite).
    #[arg(long)]
    pub db: Option<PathBuf>,
    /// One JSON document (schema headroom.bench/2) on stdout.
    #[arg(long)]
    pub json: bool,
    /// No progress on stderr.
    #[arg(long, short)]
    pub quiet: bool,
    /// List every recorded setting and default in the table.
    #[arg(long, short)]
    pub verbose: bool,
}

pub use loadgen::bench_doc::SCHEMA;

pub fn run(a: Args) -> Result<Exit> {
    let mut suite = if a.quick {
        SuiteConfig::quick()
    } else {
        SuiteConfig::standard()
    };
    let custom = a.repeats.is_some()
        || a.gen_tokens.is_some()
        || a.prefill_lengths.is_some()
        || a.streams.is_some();
    if let Some(r) = a.repeats {
        suite.repeats = r;
    }
    if let Some(g) = a.gen_tokens {
        suite.gen_tokens = g;
    }
    if let Some(p) = &a.prefill_lengths {
        suite.prefill_lengths = p.clone();
    }
    if let Some(s) = a.streams {
        suite.streams = s;
    }
    if custom {
        suite.preset = format!("custom (from {})", suite.preset);
    }
    suite.model = a.model.clone();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    let mut doc = rt.block_on(measure(&a, &suite))?;
    let saved = if a.no_save {
        None
    } else {
        let path = super::diagnose::db_path(&a.db)?;
        let st = store::Store::open(&path)?;
        let id = st.save(
            &store::NewRun {
                kind: "bench",
                created: doc.created,
                label: a.label.as_deref(),
                url: Some(&doc.url),
                engine: doc.identity.engine.map(Engine::as_str),
                model: doc.identity.served_model.as_deref(),
            },
            &serde_json::to_value(&doc)?,
        )?;
        Some(id)
    };
    doc.saved_run_id = Some(saved);
    if a.json {
        output::json(&doc)?;
    } else {
        output::emit(&render(&doc, a.verbose))?;
        if let Some(id) = saved {
            output::emit(&format!(
                "\nSaved as bench run {id}{}. Compare with an earlier run: headroom regress\n",
                a.label
                    .as_deref()
                    .map(|l| format!(" [{l}]"))
                    .unwrap_or_default()
            ))?;
        }
    }
    Ok(Exit::Ok)
}

async fn measure(a: &Args, suite: &SuiteConfig) -> Result<BenchDoc> {
    let cfg = ClientConfig {
        max_in_flight: suite.streams.max(1) as usize,
        api_key: a.api_key.clone(),
        ..ClientConfig::default()
    };
    let client = Client::new(&a.url, cfg)?;
    let info = loadgen::discover(&client)
        .await
        .with_context(|| format!("asking {} what it serves", client.base_url()))?;
    let bar = Bar::new(
        a.quiet || (a.json && !std::io::stderr().is_terminal()),
        "",
        "steps",
    );
    bar.note(&format!(
        "{}: {} serving {}",
        client.base_url(),
        info.engine.map(Engine::name).unwrap_or("unknown engine"),
        info.model.as_deref().unwrap_or("(unnamed model)")
    ));
    let scraper = Scraper::new(client.base_url(), Duration::from_secs(10))?;
    let hints = Hints {
        engine: info.engine,
        served_model: info.model.clone(),
        pid: a.pid,
        engine_args: a.engine_args.clone(),
        gpu: a.gpu.as_ref().map(|g| {
            match physics::Catalog::embedded()
                .ok()
                .and_then(|c| c.gpu(g).ok().map(|f| f.entry.name.clone()))
            {
                Some(name) => Sourced::new(name, "--gpu (catalog)"),
                None => Sourced::new(g.clone(), "--gpu (not in the catalog)"),
            }
        }),
    };
    let mut ident = identify(&scraper, &hints).await;
    // Other traffic would share the measurement: say so when the server is not idle.
    let mut env_notes = Vec::new();
    if let Ok(Some(l)) = loadgen::current_load(&client).await {
        if !l.is_idle() {
            env_notes.push(format!(
                "the server was busy when the bench started ({} running, {} waiting, from {}): \
other traffic shares these numbers",
                l.running, l.waiting, l.source
            ));
        }
    }
    let load = LoadWatch::start(is_local(client.base_url()));
    let before = scraper.scrape_metrics().await.ok();
    let counter = TokenCounter::detect(&client, &info).await?;
    let result = run_suite(&client, &info, &counter, suite, &bar).await;
    bar.finish();
    let mut result = result?;
    result.notes.extend(env_notes);
    let after = scraper.scrape_metrics().await.ok();
    ident.host = load.finish();
    let counters = EngineCounters::between(before.as_ref(), after.as_ref());
    if let Some(d) = counters.speculative_drafts {
        ident.settings.insert(
            "speculative_active".into(),
            Sourced::new(
                (d > 0.0).to_string(),
                "metrics (draft steps during the bench)",
            ),
        );
    }
    let mut doc = BenchDoc {
        all_exact: result.all_exact,
        created: now(),
        engine_counters: counters,
        identity: ident,
        label: a.label.clone(),
        metrics: result.metrics,
        notes: result.notes,
        prompt_count: result.prompt_count,
        saved_run_id: None,
        schema: SCHEMA.into(),
        suite: result.suite,
        summary: String::new(),
        url: client.base_url().to_string(),
        wall_s: result.wall_s,
    };
    doc.summary = summary(&doc);
    Ok(doc)
}

fn now() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
}

/// One line for `headroom history --bench`: the headline medians and the build.
pub fn summary(doc: &BenchDoc) -> String {
    let mut parts = Vec::new();
    for m in &doc.metrics {
        let Some(med) = m.median else {
            continue;
        };
        let name = m.name.as_str();
        let short = if name == "decode_tps" {
            "decode".to_string()
        } else if name == "ttft_ms" {
            "TTFT".to_string()
        } else if let Some(l) = name.strip_prefix("prefill_tps_p") {
            format!("prefill@{l}")
        } else if let Some(n) = name.strip_prefix("aggregate_decode_tps_n") {
            format!("{n}-stream")
        } else {
            name.to_string()
        };
        parts.push(format!(
            "{short} {} {}",
            physics::provenance::sig(med, 3),
            m.unit
        ));
    }
    if let Some(w) = doc.identity.who() {
        parts.push(w);
    }
    parts.join(" · ")
}

fn render(doc: &BenchDoc, verbose: bool) -> String {
    let mut out = String::new();
    let s = &doc.suite;
    let id = &doc.identity;
    out.push_str(&format!(
        "headroom bench · {} · {} suite v{} ({} repeats after {} warm-up, {} generated tokens, {} streams)\n",
        doc.url, s.preset, s.version, s.repeats, s.warmup_repeats, s.gen_tokens, s.streams
    ));
    let who = id.who().unwrap_or_else(|| "version unknown".into());
    out.push_str(&format!(
        "Engine    {} {who}\n",
        id.engine.map(Engine::name).unwrap_or("unknown engine")
    ));
    out.push_str(&format!(
        "Model     {}",
        id.served_model.as_deref().unwrap_or("-")
    ));
    if let Some(f) = &id.model_file {
        out.push_str(&format!(
            " · GGUF header fnv1a64 {}, {} bytes",
            f.header_fnv1a64, f.size_bytes
        ));
    }
    out.push('\n');
    out.push_str(&format!(
        "GPU       {}\n",
        id.gpu
            .as_ref()
            .map(|g| format!("{} ({})", g.value, g.source))
            .unwrap_or_else(|| "unknown (pass --gpu)".into())
    ));
    if let Some(p) = &id.process {
        out.push_str(&format!("Process   pid {} · {}\n", p.pid, p.argv.join(" ")));
    }
    if let Some(h) = &id.host {
        out.push_str(&format!(
            "Host      load average (1 min) {:.1} → {:.1} on {} CPUs during the bench\n",
            h.loadavg_1m_start,
            h.loadavg_1m_end,
            h.cpus.map_or("?".into(), |c| c.to_string())
        ));
    }
    let (main, defaults): (Vec<_>, Vec<_>) = id
        .settings
        .iter()
        .partition(|(k, _)| !k.starts_with("default.") && !k.starts_with("chat_template"));
    let show: Vec<String> = main
        .iter()
        .map(|(k, v)| format!("{k} {}", v.value))
        .collect();
    if !show.is_empty() {
        out.push_str(&format!("Settings  {}\n", show.join(" · ")));
    }
    if verbose {
        for (k, v) in &defaults {
            out.push_str(&format!("          {k} = {} ({})\n", v.value, v.source));
        }
    } else if !defaults.is_empty() {
        out.push_str(&format!(
            "          + {} engine defaults recorded (-v lists them)\n",
            defaults.len()
        ));
    }
    let mut t = output::table([
        "metric",
        "median",
        "min – max",
        "spread",
        "n",
        "clock",
        "warm-up",
    ]);
    let f = |v: Option<f64>| {
        v.map(|x| physics::provenance::sig(x, 3))
            .unwrap_or_else(|| "-".into())
    };
    for m in &doc.metrics {
        let unit = &m.unit;
        let flagged = m.outliers.as_ref().map_or(0, Vec::len);
        t.add_row(vec![
            Cell::new(&m.label),
            Cell::new(format!("{} {unit}", f(m.median))).set_alignment(CellAlignment::Right),
            Cell::new(format!("{} – {}", f(m.min), f(m.max))).set_alignment(CellAlignment::Right),
            Cell::new(
                m.spread_pct
                    .map(|p| format!("{p:.0} %"))
                    .unwrap_or_else(|| "-".into()),
            )
            .set_alignment(CellAlignment::Right),
            Cell::new(if flagged > 0 {
                format!("{} ({flagged} outlier)", m.n)
            } else {
                m.n.to_string()
            })
            .set_alignment(CellAlignment::Right),
            Cell::new(match m.clock {
                Some(Clock::Engine) => "engine",
                Some(Clock::Client) | None => "client",
            }),
            Cell::new(
                m.warmup
                    .as_ref()
                    .filter(|w| !w.is_empty())
                    .map(|w| {
                        w.iter().map(|x| f(Some(*x))).collect::<Vec<_>>().join(", ") + " (left out)"
                    })
                    .unwrap_or_else(|| "-".into()),
            ),
        ]);
    }
    out.push_str(&format!("{t}\n"));
    out.push_str(
        "clock: engine = the engine's own per-request timings (llama.cpp timings.prompt_ms, \
predicted_ms); client = chunk arrivals on this side of the wire\n",
    );
    let c = &doc.engine_counters;
    if let Some(x) = c.speculative_acceptance {
        out.push_str(&format!(
            "Engine's own counters over the bench: speculative acceptance {:.0} %\n",
            x * 100.0
        ));
    }
    for n in doc.notes.iter().chain(&id.notes) {
        out.push_str(&format!("note: {n}\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_line() {
        let mut doc: BenchDoc = BenchDoc::read(
            &serde_json::from_str(include_str!("../../../loadgen/tests/data/bench-v1.json"))
                .unwrap(),
        )
        .unwrap();
        doc.identity.build = Some("b6500-abc".into());
        doc.metrics[0].median = Some(36.04);
        doc.metrics[2].median = Some(1234.0);
        doc.metrics[3].median = None;
        assert_eq!(
            summary(&doc),
            "decode 36 tok/s · TTFT 274 ms · prefill@96 1230 tok/s · build b6500-abc"
        );
    }
}
